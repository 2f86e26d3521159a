/* The shader runtime (compiler, threads, memory cache) and VkPipelineCache. */
#include "sd_pipeline_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/sc_compiler.h"
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_physical_device.h"
#include "sd_util.h"
#include "util/su_thread_pool.h"

/* ---- the runtime ---- */

static pthread_mutex_t sd_runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sd_runtime *sd_runtime_instance;
static unsigned sd_runtime_refs;

static void
sd_compiled_shader_free(struct sd_compiled_shader *cs)
{
   sc_shader_destroy(atomic_load(&cs->shader));
   sc_shader_destroy(cs->baseline);
   free(cs);
}

void
sd_key_string(const uint8_t key[SD_KEY_SIZE], char out[17])
{
   for (int i = 0; i < 8; i++)
      snprintf(out + 2 * i, 3, "%02x", key[i]);
}

void
sd_compiled_shader_ref(struct sd_compiled_shader *cs)
{
   atomic_fetch_add(&cs->refcount, 1);
}

void
sd_compiled_shader_unref(struct sd_compiled_shader *cs)
{
   if (cs && atomic_fetch_sub(&cs->refcount, 1) == 1)
      sd_compiled_shader_free(cs);
}

VkResult
sd_runtime_acquire(struct sd_runtime **out)
{
   pthread_mutex_lock(&sd_runtime_lock);
   struct sd_runtime *rt = sd_runtime_instance;
   if (!rt) {
      /* Process infrastructure shared by every device: malloc, not an
       * application allocator that one device's owner controls. */
      rt = calloc(1, sizeof(*rt));
      if (!rt) {
         pthread_mutex_unlock(&sd_runtime_lock);
         return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      }
      enum sc_result r = sc_compiler_create(&rt->compiler);
      if (r != SC_SUCCESS || !su_thread_pool_create(0, &rt->pool)) {
         sc_compiler_destroy(rt->compiler);
         free(rt);
         pthread_mutex_unlock(&sd_runtime_lock);
         return sd_errorf(r == SC_ERROR_OUT_OF_MEMORY ? VK_ERROR_OUT_OF_HOST_MEMORY
                                                      : VK_ERROR_INITIALIZATION_FAILED,
                          "shader runtime: compiler or threads unavailable");
      }
      pthread_mutex_init(&rt->lock, NULL);
      su_hash_init(&rt->table, SD_KEY_SIZE);
      pthread_cond_init(&rt->optimized, NULL);
      atomic_init(&rt->compilations, 0);
      /* Asking LLVM for the host's features costs ~0.1 ms: once. */
      rt->simd_width = sc_default_simd_width();
      sd_runtime_instance = rt;
      if (su_debug(SU_DEBUG_INFO))
         su_log("runtime: %u worker threads (caller included), SIMD width %u",
                su_thread_pool_size(rt->pool), rt->simd_width);
   }
   sd_runtime_refs++;
   pthread_mutex_unlock(&sd_runtime_lock);
   *out = rt;
   return VK_SUCCESS;
}

void
sd_runtime_release(struct sd_runtime *rt)
{
   if (!rt)
      return;
   pthread_mutex_lock(&sd_runtime_lock);
   assert(rt == sd_runtime_instance && sd_runtime_refs > 0);
   if (--sd_runtime_refs > 0) {
      pthread_mutex_unlock(&sd_runtime_lock);
      return;
   }
   sd_runtime_instance = NULL;
   pthread_mutex_unlock(&sd_runtime_lock);
   sd_optimizer_stop(rt);
   /* Nothing else references the cached shaders now: pipelines and caches
    * each held a runtime reference, the optimizer's jobs are gone. */
   for (struct sd_compiled_shader *cs = rt->lru_first, *next; cs; cs = next) {
      next = cs->lru_next;
      assert(atomic_load(&cs->refcount) == 1);
      sd_compiled_shader_unref(cs);
   }
   su_thread_pool_destroy(rt->pool);
   sc_compiler_destroy(rt->compiler);
   pthread_cond_destroy(&rt->optimized);
   pthread_mutex_destroy(&rt->lock);
   free(rt);
}

static void
sd_runtime_lru_unlink(struct sd_runtime *rt, struct sd_compiled_shader *cs)
{
   if (cs->lru_prev)
      cs->lru_prev->lru_next = cs->lru_next;
   else
      rt->lru_first = cs->lru_next;
   if (cs->lru_next)
      cs->lru_next->lru_prev = cs->lru_prev;
   else
      rt->lru_last = cs->lru_prev;
   cs->lru_prev = cs->lru_next = NULL;
}

static void
sd_runtime_lru_push(struct sd_runtime *rt, struct sd_compiled_shader *cs)
{
   cs->lru_prev = NULL;
   cs->lru_next = rt->lru_first;
   if (rt->lru_first)
      rt->lru_first->lru_prev = cs;
   else
      rt->lru_last = cs;
   rt->lru_first = cs;
}

/* Under rt->lock: the cached shader of `key`, marked most recently used. */
static struct sd_compiled_shader *
sd_runtime_find_locked(struct sd_runtime *rt, const uint8_t key[SD_KEY_SIZE])
{
   struct su_hash_node *n = su_hash_find(&rt->table, key);
   if (!n)
      return NULL;
   struct sd_compiled_shader *cs = su_hash_entry(n, struct sd_compiled_shader, hash);
   sd_runtime_lru_unlink(rt, cs);
   sd_runtime_lru_push(rt, cs);
   return cs;
}

/* Under rt->lock: drops least recently used shaders nobody else holds
 * while more than SD_MEMORY_CACHE_MAX are cached. */
static void
sd_runtime_evict_locked(struct sd_runtime *rt)
{
   struct sd_compiled_shader *cs = rt->lru_last;
   while (cs && rt->table.count > SD_MEMORY_CACHE_MAX) {
      struct sd_compiled_shader *prev = cs->lru_prev;
      if (atomic_load(&cs->refcount) == 1) {
         su_hash_remove(&rt->table, &cs->hash);
         sd_runtime_lru_unlink(rt, cs);
         sd_compiled_shader_unref(cs);
      }
      cs = prev;
   }
}

/* Under rt->lock: adds `cs` (a reference is taken) unless the key is
 * there already; returns a reference to the cached one. */
static struct sd_compiled_shader *
sd_runtime_insert_locked(struct sd_runtime *rt, struct sd_compiled_shader *cs)
{
   struct sd_compiled_shader *old = sd_runtime_find_locked(rt, cs->key);
   if (old) {
      sd_compiled_shader_ref(old);
      return old;
   }
   su_hash_insert(&rt->table, &cs->hash, cs->key);
   sd_runtime_lru_push(rt, cs);
   sd_compiled_shader_ref(cs);   /* the memory cache's */
   sd_compiled_shader_ref(cs);   /* the caller's */
   sd_runtime_evict_locked(rt);
   return cs;
}

/* ---- VkPipelineCache entries ---- */

/* The entry of `key` holding a shader (flags 0) or a back-end routine
 * (SD_CACHE_ENTRY_BACKEND). */
static struct sd_cache_entry *
sd_cache_find_locked(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                     uint32_t flags)
{
   for (struct sd_cache_entry *e = cache->first; e; e = e->next)
      if (e->flags == flags && !memcmp(e->key, key, SD_KEY_SIZE))
         return e;
   return NULL;
}

static void
sd_cache_entry_drop_blob(struct sd_pipeline_cache *cache, struct sd_cache_entry *e)
{
   sd_free(&cache->alloc, e->blob);
   e->blob = NULL;
   e->blob_size = 0;
}

/* Adds an entry for `key` with `cs` (a reference is taken) or a copy of
 * `blob`, or completes an existing entry (a shader replaces its blob).
 * False when out of memory (nothing changed). */
static bool
sd_cache_put_locked(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                    uint32_t flags, struct sd_compiled_shader *cs, const void *blob,
                    size_t blob_size)
{
   struct sd_cache_entry *e = sd_cache_find_locked(cache, key, flags);
   if (e && (e->shader || (!cs && (e->blob || !blob))))
      return true;
   void *copy = NULL;
   if (!cs && blob) {
      copy = sd_alloc(&cache->alloc, blob_size ? blob_size : 1, SD_ALIGN_DEFAULT,
                      VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!copy)
         return false;
      memcpy(copy, blob, blob_size);
   }
   if (!e) {
      e = sd_zalloc(&cache->alloc, sizeof(*e), SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!e) {
         sd_free(&cache->alloc, copy);
         return false;
      }
      memcpy(e->key, key, SD_KEY_SIZE);
      e->flags = flags;
      if (cache->last)
         cache->last->next = e;
      else
         cache->first = e;
      cache->last = e;
      cache->count++;
   }
   if (cs) {
      sd_compiled_shader_ref(cs);
      e->shader = cs;
      sd_cache_entry_drop_blob(cache, e);
   } else if (copy) {
      e->blob = copy;
      e->blob_size = blob_size;
   }
   return true;
}

/* Links the blob of `key` in `cache`, if it has one; the blob is dropped
 * when it does not load. */
/* Wraps shader (taken) under key and adds it to the memory cache; returns a
 * reference to the cached one: this one, or the one another thread added
 * first (then this one is freed). NULL when memory ran out (shader freed). */
static struct sd_compiled_shader *
sd_runtime_add(struct sd_runtime *rt, const uint8_t key[SD_KEY_SIZE], struct sc_shader *shader)
{
   struct sd_compiled_shader *cs = calloc(1, sizeof(*cs));
   if (!cs) {
      sc_shader_destroy(shader);
      return NULL;
   }
   memcpy(cs->key, key, SD_KEY_SIZE);
   atomic_init(&cs->shader, shader);
   atomic_init(&cs->refcount, 1);
   pthread_mutex_lock(&rt->lock);
   struct sd_compiled_shader *cached = sd_runtime_insert_locked(rt, cs);
   pthread_mutex_unlock(&rt->lock);
   sd_compiled_shader_unref(cs);   /* ours: frees it when another thread won */
   return cached;
}

static struct sd_compiled_shader *
sd_cache_link_blob(struct sd_runtime *rt, struct sd_pipeline_cache *cache,
                   const uint8_t key[SD_KEY_SIZE], const VkAllocationCallbacks *alloc,
                   VkResult *result)
{
   pthread_mutex_lock(&cache->lock);
   struct sd_cache_entry *e = sd_cache_find_locked(cache, key, 0);
   void *blob = NULL;
   size_t size = 0;
   if (e && !e->shader && e->blob) {
      /* A private copy: another thread may complete the entry meanwhile. */
      size = e->blob_size;
      blob = sd_alloc(alloc, size ? size : 1, SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
      if (blob)
         memcpy(blob, e->blob, size);
   }
   pthread_mutex_unlock(&cache->lock);
   if (!blob) {
      if (e && !e->shader && e->blob)
         *result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      return NULL;
   }
   struct sc_shader *shader = NULL;
   char message[256];
   enum sc_result r = sc_shader_deserialize(rt->compiler, blob, size, &shader, message,
                                            sizeof(message));
   sd_free(alloc, blob);
   if (r != SC_SUCCESS) {
      if (r == SC_ERROR_OUT_OF_MEMORY) {
         *result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
         return NULL;
      }
      if (su_debug(SU_DEBUG_INFO))
         su_log("pipeline cache: a blob from cache data does not load (%s: %s); compiling",
                sc_result_string(r), message);
      pthread_mutex_lock(&cache->lock);
      e = sd_cache_find_locked(cache, key, 0);
      if (e && !e->shader)
         sd_cache_entry_drop_blob(cache, e);
      pthread_mutex_unlock(&cache->lock);
      return NULL;
   }
   struct sd_compiled_shader *cached = sd_runtime_add(rt, key, shader);
   if (!cached) {
      *result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      return NULL;
   }
   atomic_fetch_add(&rt->loads, 1);
   /* Cannot fail: the entry exists (an attached shader needs no memory). */
   pthread_mutex_lock(&cache->lock);
   sd_cache_put_locked(cache, key, 0, cached, NULL, 0);
   pthread_mutex_unlock(&cache->lock);
   return cached;
}

struct sd_compiled_shader *
sd_shader_cache_find(struct sd_runtime *rt, struct sd_pipeline_cache *cache,
                     const uint8_t key[SD_KEY_SIZE], const VkAllocationCallbacks *alloc,
                     enum sd_cache_hit *hit, VkResult *result)
{
   *hit = SD_CACHE_MISS;
   *result = VK_SUCCESS;
   if (cache) {
      pthread_mutex_lock(&cache->lock);
      struct sd_cache_entry *e = sd_cache_find_locked(cache, key, 0);
      struct sd_compiled_shader *cs = e ? e->shader : NULL;
      if (cs)
         sd_compiled_shader_ref(cs);
      pthread_mutex_unlock(&cache->lock);
      if (cs) {
         *hit = SD_CACHE_HIT_APPLICATION;
         return cs;
      }
   }
   pthread_mutex_lock(&rt->lock);
   struct sd_compiled_shader *cs = sd_runtime_find_locked(rt, key);
   if (cs)
      sd_compiled_shader_ref(cs);
   pthread_mutex_unlock(&rt->lock);
   if (cs) {
      *hit = SD_CACHE_HIT_MEMORY;
      if (cache) {
         /* Remember it in the application's cache too (best effort: a failed
          * allocation only means the cache data will not list it). */
         pthread_mutex_lock(&cache->lock);
         sd_cache_put_locked(cache, key, 0, cs, NULL, 0);
         pthread_mutex_unlock(&cache->lock);
      }
      return cs;
   }
   if (cache) {
      cs = sd_cache_link_blob(rt, cache, key, alloc, result);
      if (cs)
         *hit = SD_CACHE_HIT_DATA;
   }
   return cs;
}

struct sd_compiled_shader *
sd_shader_cache_add(struct sd_runtime *rt, struct sd_pipeline_cache *cache,
                    const uint8_t key[SD_KEY_SIZE], struct sc_shader *shader)
{
   struct sd_compiled_shader *cached = sd_runtime_add(rt, key, shader);
   if (!cached)
      return NULL;
   atomic_fetch_add(&rt->compilations, 1);
   if (cache) {
      pthread_mutex_lock(&cache->lock);
      sd_cache_put_locked(cache, key, 0, cached, NULL, 0);
      pthread_mutex_unlock(&cache->lock);
   }
   return cached;
}

/* ---- back-end routines ---- */

void *
sd_backend_cache_get(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                     const VkAllocationCallbacks *alloc, size_t *size, bool *present)
{
   pthread_mutex_lock(&cache->lock);
   struct sd_cache_entry *e = sd_cache_find_locked(cache, key, SD_CACHE_ENTRY_BACKEND);
   void *copy = NULL;
   *present = e && (e->blob || e->pending);
   *size = 0;
   if (e && !e->blob) {
      pthread_mutex_unlock(&cache->lock);
      return NULL;
   }
   if (*present) {
      copy = sd_alloc(alloc, e->blob_size ? e->blob_size : 1, SD_ALIGN_DEFAULT,
                      VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
      if (copy) {
         memcpy(copy, e->blob, e->blob_size);
         *size = e->blob_size;
      }
   }
   pthread_mutex_unlock(&cache->lock);
   return copy;
}

bool
sd_backend_cache_put(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                     const void *blob, size_t size)
{
   pthread_mutex_lock(&cache->lock);
   bool ok = sd_cache_put_locked(cache, key, SD_CACHE_ENTRY_BACKEND, NULL, blob, size);
   pthread_mutex_unlock(&cache->lock);
   return ok;
}

/* The entry of `key` marked pending with the routine's key, unless it has
 * a blob or is pending already. False when out of memory. */
static bool
sd_cache_put_pending_locked(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                            const struct shale_fb_key *fb_key,
                            const struct shale_fb_ds_key *ds_key)
{
   struct sd_cache_entry *e = sd_cache_find_locked(cache, key, SD_CACHE_ENTRY_BACKEND);
   if (e && (e->blob || e->pending))
      return true;
   if (!e) {
      if (!sd_cache_put_locked(cache, key, SD_CACHE_ENTRY_BACKEND, NULL, NULL, 0))
         return false;
      e = sd_cache_find_locked(cache, key, SD_CACHE_ENTRY_BACKEND);
   }
   e->pending = true;
   e->pending_ds = ds_key != NULL;
   if (ds_key)
      e->fb_ds_key = *ds_key;
   else
      e->fb_key = *fb_key;
   return true;
}

bool
sd_backend_cache_put_pending(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                             const struct shale_fb_key *fb_key,
                             const struct shale_fb_ds_key *ds_key)
{
   pthread_mutex_lock(&cache->lock);
   bool ok = sd_cache_put_pending_locked(cache, key, fb_key, ds_key);
   pthread_mutex_unlock(&cache->lock);
   return ok;
}

/* The blob of one back-end routine (the color routine of key, or the
 * depth/stencil routine of ds_key when ds_key is not NULL): the routine
 * compiled (or found: the compiler keeps what it compiled) and serialized
 * into memory from the cache's allocator, its size in *size. NULL when the
 * routine fails to compile or serialize, or no memory is found (nothing
 * then left allocated). */
static void *
sd_cache_backend_blob(struct sd_pipeline_cache *cache, const struct shale_fb_key *key,
                      const struct shale_fb_ds_key *ds_key, size_t *size)
{
   struct sc_compiler *compiler = cache->runtime->compiler;
   char msg[160];
   enum sc_result r;
   if (ds_key) {
      shale_fb_ds_fn f;
      r = sc_compile_fragment_ds(compiler, ds_key, &f, msg, sizeof(msg));
   } else {
      shale_fb_color_fn f;
      r = sc_compile_fragment_backend(compiler, key, &f, msg, sizeof(msg));
   }
   *size = 0;
   if (r != SC_SUCCESS || sc_backend_serialize(compiler, key, ds_key, NULL, size) != SC_SUCCESS)
      return NULL;
   void *blob = sd_alloc(&cache->alloc, *size ? *size : 1, SD_ALIGN_DEFAULT,
                         VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!blob)
      return NULL;
   if (sc_backend_serialize(compiler, key, ds_key, blob, size) != SC_SUCCESS) {
      sd_free(&cache->alloc, blob);
      return NULL;
   }
   return blob;
}

/* Gives each pending back-end entry its blob: the routine from the
 * compiler (compiled here when the background has not got to it yet; the
 * compiler keeps it, so the background job then finds it). An entry whose
 * routine fails to compile, or whose blob finds no memory, stays pending
 * and is not written. */
static void
sd_cache_resolve_pending_locked(struct sd_pipeline_cache *cache)
{
   for (struct sd_cache_entry *e = cache->first; e; e = e->next) {
      if (!e->pending || e->blob)
         continue;
      const struct shale_fb_key *key = e->pending_ds ? NULL : &e->fb_key;
      const struct shale_fb_ds_key *ds_key = e->pending_ds ? &e->fb_ds_key : NULL;
      size_t size;
      void *blob = sd_cache_backend_blob(cache, key, ds_key, &size);
      if (!blob)
         continue;
      e->blob = blob;
      e->blob_size = size;
      e->pending = false;
   }
}

/* What sd_cache_settle copies of an entry under the cache's lock. */
struct sd_cache_settling {
   struct sd_compiled_shader *shader;   /* a reference, or NULL: a pending routine's entry */
   uint8_t key[SD_KEY_SIZE];
   bool ds;
   struct shale_fb_key fb_key;
   struct shale_fb_ds_key fb_ds_key;
};

/* The waits of vkGetPipelineCacheData, outside the cache's lock, so that
 * pipeline creations using the cache on other threads do not stand behind
 * them: the entries' shaders (references) and pending routines' keys are
 * copied under the lock, then each shader's optimized code is waited for
 * and each routine compiled (or found: the background may have done it)
 * and serialized with no lock held, and the blob given to its entry under
 * the lock again when the entry still wants it. Best effort: the caller
 * then settles and resolves under the lock as before, which has nothing
 * left to wait for unless entries came meanwhile or memory ran out here. */
static void
sd_cache_settle(struct sd_pipeline_cache *cache)
{
   pthread_mutex_lock(&cache->lock);
   size_t n = 0;
   for (struct sd_cache_entry *e = cache->first; e; e = e->next)
      n += e->shader || (e->pending && !e->blob);
   struct sd_cache_settling *items =
      n ? sd_alloc(&cache->alloc, n * sizeof(*items), SD_ALIGN_DEFAULT,
                   VK_SYSTEM_ALLOCATION_SCOPE_COMMAND)
        : NULL;
   if (!items) {
      pthread_mutex_unlock(&cache->lock);
      return;
   }
   size_t i = 0;
   for (struct sd_cache_entry *e = cache->first; e; e = e->next) {
      if (!e->shader && !(e->pending && !e->blob))
         continue;
      struct sd_cache_settling *it = &items[i++];
      memset(it, 0, sizeof(*it));
      memcpy(it->key, e->key, SD_KEY_SIZE);
      if (e->shader) {
         it->shader = e->shader;
         sd_compiled_shader_ref(e->shader);
      } else {
         it->ds = e->pending_ds;
         it->fb_key = e->fb_key;
         it->fb_ds_key = e->fb_ds_key;
      }
   }
   pthread_mutex_unlock(&cache->lock);
   for (i = 0; i < n; i++) {
      struct sd_cache_settling *it = &items[i];
      if (it->shader) {
         sd_compiled_shader_settle(cache->runtime, it->shader);
         sd_compiled_shader_unref(it->shader);
         continue;
      }
      const struct shale_fb_key *key = it->ds ? NULL : &it->fb_key;
      const struct shale_fb_ds_key *ds_key = it->ds ? &it->fb_ds_key : NULL;
      size_t size;
      void *blob = sd_cache_backend_blob(cache, key, ds_key, &size);
      if (!blob)
         continue;
      pthread_mutex_lock(&cache->lock);
      struct sd_cache_entry *e = sd_cache_find_locked(cache, it->key, SD_CACHE_ENTRY_BACKEND);
      if (e && e->pending && !e->blob) {
         e->blob = blob;
         e->blob_size = size;
         e->pending = false;
         blob = NULL;
      }
      pthread_mutex_unlock(&cache->lock);
      sd_free(&cache->alloc, blob);
   }
   sd_free(&cache->alloc, items);
}

void
sd_backend_cache_drop(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE])
{
   pthread_mutex_lock(&cache->lock);
   struct sd_cache_entry *e = sd_cache_find_locked(cache, key, SD_CACHE_ENTRY_BACKEND);
   if (e)
      sd_cache_entry_drop_blob(cache, e);
   pthread_mutex_unlock(&cache->lock);
}

/* ---- cache data ---- */

#define SD_CACHE_HEADER_SIZE 32
#define SD_CACHE_PREAMBLE_SIZE 16   /* "SHPC", version, ABI version, entry count */
#define SD_CACHE_FORMAT_VERSION 3   /* 3: back-end routine entries */
#define SD_CACHE_ENTRY_SIZE (SD_KEY_SIZE + 8)   /* key, flags, blob size; then the blob */

static void
sd_put32(uint8_t *p, uint32_t v)
{
   p[0] = (uint8_t)v;
   p[1] = (uint8_t)(v >> 8);
   p[2] = (uint8_t)(v >> 16);
   p[3] = (uint8_t)(v >> 24);
}

static uint32_t
sd_get32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static size_t
sd_pad4(size_t v)
{
   return (v + 3) & ~(size_t)3;
}

static void
sd_cache_write_header(const struct sd_pipeline_cache *cache, uint8_t *p)
{
   sd_put32(p, SD_CACHE_HEADER_SIZE);
   sd_put32(p + 4, VK_PIPELINE_CACHE_HEADER_VERSION_ONE);
   sd_put32(p + 8, cache->vendor_id);
   sd_put32(p + 12, cache->device_id);
   memcpy(p + 16, cache->uuid, VK_UUID_SIZE);
}

/* Reads entries of data written by this driver for this device; anything
 * else is ignored. False only when memory ran out. */
static bool
sd_cache_load_locked(struct sd_pipeline_cache *cache, const uint8_t *data, size_t size)
{
   if (!data || size < SD_CACHE_HEADER_SIZE)
      return true;
   uint32_t header_size = sd_get32(data);
   if (header_size < SD_CACHE_HEADER_SIZE || header_size > size ||
       sd_get32(data + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE ||
       sd_get32(data + 8) != cache->vendor_id || sd_get32(data + 12) != cache->device_id ||
       memcmp(data + 16, cache->uuid, VK_UUID_SIZE) != 0)
      return true;
   const uint8_t *p = data + header_size;
   size_t left = size - header_size;
   if (left < SD_CACHE_PREAMBLE_SIZE || memcmp(p, "SHPC", 4) != 0 ||
       sd_get32(p + 4) != SD_CACHE_FORMAT_VERSION || sd_get32(p + 8) != SHALE_SHADER_ABI_VERSION)
      return true;
   uint32_t count = sd_get32(p + 12);
   p += SD_CACHE_PREAMBLE_SIZE;
   left -= SD_CACHE_PREAMBLE_SIZE;
   for (uint32_t i = 0; i < count && left >= SD_CACHE_ENTRY_SIZE; i++) {
      uint32_t flags = sd_get32(p + SD_KEY_SIZE);
      uint32_t blob = sd_get32(p + SD_KEY_SIZE + 4);
      size_t padded = sd_pad4(blob);
      if (padded > left - SD_CACHE_ENTRY_SIZE || (flags & ~(uint32_t)SD_CACHE_ENTRY_BACKEND))
         break;   /* damaged: keep what came before */
      /* The blob is checked (digest, host) only when a pipeline needs it. */
      if (blob && !sd_cache_put_locked(cache, p, flags, NULL, p + SD_CACHE_ENTRY_SIZE, blob))
         return false;
      p += SD_CACHE_ENTRY_SIZE + padded;
      left -= SD_CACHE_ENTRY_SIZE + padded;
   }
   return true;
}

/* The blob of an entry: its shader serialized into `out` (size query when
 * out is NULL), or the blob it still holds. 0: nothing to write. */
static size_t
sd_cache_entry_blob(const struct sd_cache_entry *e, uint8_t *out)
{
   if (e->shader) {
      size_t size = 0;
      if (sc_shader_serialize(e->shader->shader, NULL, &size) != SC_SUCCESS)
         return 0;
      if (out && sc_shader_serialize(e->shader->shader, out, &size) != SC_SUCCESS)
         return 0;
      return size;
   }
   if (out && e->blob)
      memcpy(out, e->blob, e->blob_size);
   return e->blob ? e->blob_size : 0;
}

static void
sd_pipeline_cache_free(struct sd_pipeline_cache *cache)
{
   for (struct sd_cache_entry *e = cache->first, *next; e; e = next) {
      next = e->next;
      sd_compiled_shader_unref(e->shader);
      sd_free(&cache->alloc, e->blob);
      sd_free(&cache->alloc, e);
   }
   pthread_mutex_destroy(&cache->lock);
   sd_runtime_release(cache->runtime);
   VkAllocationCallbacks alloc = cache->alloc;
   sd_free(&alloc, cache);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreatePipelineCache(VkDevice _device, const VkPipelineCacheCreateInfo *pCreateInfo,
                       const VkAllocationCallbacks *pAllocator, VkPipelineCache *pPipelineCache)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   struct sd_pipeline_cache *cache = sd_zalloc(alloc, sizeof(*cache), SD_ALIGN_DEFAULT,
                                               VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!cache)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   VkResult result = sd_runtime_acquire(&cache->runtime);
   if (result != VK_SUCCESS) {
      sd_free(alloc, cache);
      return result;
   }
   sd_object_init(&cache->base, VK_OBJECT_TYPE_PIPELINE_CACHE, device);
   cache->alloc = *alloc;
   pthread_mutex_init(&cache->lock, NULL);
   const VkPhysicalDeviceProperties *props = &device->physical_device->properties;
   cache->vendor_id = props->vendorID;
   cache->device_id = props->deviceID;
   memcpy(cache->uuid, props->pipelineCacheUUID, VK_UUID_SIZE);
   if (!sd_cache_load_locked(cache, pCreateInfo->pInitialData, pCreateInfo->initialDataSize)) {
      sd_pipeline_cache_free(cache);
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   }
   if (su_debug(SU_DEBUG_INFO))
      su_log("pipeline cache: created with %u entries from %zu bytes of data", cache->count,
             pCreateInfo->initialDataSize);
   *pPipelineCache = sd_pipeline_cache_to_handle(cache);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyPipelineCache(VkDevice _device, VkPipelineCache _cache,
                        const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_pipeline_cache, cache, _cache);
   if (cache)
      sd_pipeline_cache_free(cache);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPipelineCacheData(VkDevice _device, VkPipelineCache _cache, size_t *pDataSize, void *pData)
{
   SD_FROM_HANDLE(sd_pipeline_cache, cache, _cache);
   sd_cache_settle(cache);
   pthread_mutex_lock(&cache->lock);
   /* Only optimized code is written, and the size asked for first must be
    * the size written next: pending optimized code and back-end routines
    * land now (sd_cache_settle did it outside the lock; what came since). */
   for (struct sd_cache_entry *e = cache->first; e; e = e->next)
      if (e->shader)
         sd_compiled_shader_settle(cache->runtime, e->shader);
   sd_cache_resolve_pending_locked(cache);
   size_t full = SD_CACHE_HEADER_SIZE + SD_CACHE_PREAMBLE_SIZE;
   uint32_t count = 0;
   for (struct sd_cache_entry *e = cache->first; e; e = e->next) {
      size_t blob = sd_cache_entry_blob(e, NULL);
      if (blob) {
         full += SD_CACHE_ENTRY_SIZE + sd_pad4(blob);
         count++;
      }
   }
   if (!pData) {
      pthread_mutex_unlock(&cache->lock);
      *pDataSize = full;
      return VK_SUCCESS;
   }
   /* Too small for the header: nothing written, size 0 (the spec's rule). */
   if (*pDataSize < SD_CACHE_HEADER_SIZE) {
      pthread_mutex_unlock(&cache->lock);
      *pDataSize = 0;
      return VK_INCOMPLETE;
   }
   uint64_t start = sd_now_ns();
   uint8_t *p = pData;
   sd_cache_write_header(cache, p);
   size_t used = SD_CACHE_HEADER_SIZE;
   if (*pDataSize - used < SD_CACHE_PREAMBLE_SIZE) {
      /* A header alone is valid (empty) cache data. */
      pthread_mutex_unlock(&cache->lock);
      *pDataSize = used;
      return VK_INCOMPLETE;
   }
   uint8_t *preamble = p + used;
   used += SD_CACHE_PREAMBLE_SIZE;
   uint32_t written = 0;
   for (struct sd_cache_entry *e = cache->first; e; e = e->next) {
      size_t blob = sd_cache_entry_blob(e, NULL);
      if (!blob)
         continue;
      if (*pDataSize - used < SD_CACHE_ENTRY_SIZE + sd_pad4(blob))
         break;   /* whole entries only */
      uint8_t *q = p + used;
      memcpy(q, e->key, SD_KEY_SIZE);
      sd_put32(q + SD_KEY_SIZE, e->flags);
      sd_put32(q + SD_KEY_SIZE + 4, (uint32_t)blob);
      if (sd_cache_entry_blob(e, q + SD_CACHE_ENTRY_SIZE) != blob)
         break;
      memset(q + SD_CACHE_ENTRY_SIZE + blob, 0, sd_pad4(blob) - blob);
      used += SD_CACHE_ENTRY_SIZE + sd_pad4(blob);
      written++;
   }
   memcpy(preamble, "SHPC", 4);
   sd_put32(preamble + 4, SD_CACHE_FORMAT_VERSION);
   sd_put32(preamble + 8, SHALE_SHADER_ABI_VERSION);
   sd_put32(preamble + 12, written);
   pthread_mutex_unlock(&cache->lock);
   /* Compiled shaders are serialized here, not when they are compiled. */
   if (su_debug(SU_DEBUG_INFO))
      su_log("pipeline cache: data written, %u of %u entries, %zu bytes, in %.3f ms "
             "(serializing included)", written, count, used, (sd_now_ns() - start) / 1e6);
   *pDataSize = used;
   return written < count ? VK_INCOMPLETE : VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_MergePipelineCaches(VkDevice _device, VkPipelineCache dstCache, uint32_t srcCacheCount,
                       const VkPipelineCache *pSrcCaches)
{
   SD_FROM_HANDLE(sd_pipeline_cache, dst, dstCache);
   VkResult result = VK_SUCCESS;
   for (uint32_t i = 0; i < srcCacheCount && result == VK_SUCCESS; i++) {
      SD_FROM_HANDLE(sd_pipeline_cache, src, pSrcCaches[i]);
      /* Lock order: by address, so two merges in opposite directions
       * cannot deadlock (the spec forbids dst among the sources). */
      struct sd_pipeline_cache *a = src < dst ? src : dst, *b = src < dst ? dst : src;
      pthread_mutex_lock(&a->lock);
      pthread_mutex_lock(&b->lock);
      for (struct sd_cache_entry *e = src->first; e; e = e->next) {
         bool ok = e->pending && !e->blob
                      ? sd_cache_put_pending_locked(dst, e->key,
                                                    e->pending_ds ? NULL : &e->fb_key,
                                                    e->pending_ds ? &e->fb_ds_key : NULL)
                      : sd_cache_put_locked(dst, e->key, e->flags, e->shader, e->blob,
                                            e->blob_size);
         if (!ok) {
            result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
            break;
         }
      }
      pthread_mutex_unlock(&b->lock);
      pthread_mutex_unlock(&a->lock);
   }
   return result;
}
