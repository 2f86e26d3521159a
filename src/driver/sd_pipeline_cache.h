/*
 * sd_pipeline_cache: the shader runtime (compiler, worker threads and the
 * in-memory cache of compiled shaders) and VkPipelineCache.
 *
 * Runtime: one per process, reference counted. Every device holds a
 * reference for its whole life (sd_device.h), and every pipeline and every
 * VkPipelineCache one of its own; the first reference (the first
 * vkCreateDevice) creates the compiler (an LLVM ORC session) and the thread
 * pool (su_thread_pool: size from the CPU count, SHALE_THREADS overrides),
 * the last one (the last vkDestroyDevice) tears them down together with
 * every cached shader. Its memory cache maps a 32-byte key
 * (SHA-256 of everything that decides the machine code: SPIR-V, entry point,
 * stage, specialization, descriptor layouts, compile flags, SIMD width, ABI
 * version; built by sd_pipeline.c) to a compiled shader (util/su_hash.h:
 * chains picked by the key's first byte); it keeps at most
 * SD_MEMORY_CACHE_MAX shaders that no pipeline uses (least recently used
 * ones go first). The runtime is process infrastructure shared by every
 * device, so it (the compiler included) allocates with malloc, not an
 * application's callbacks; what a pipeline creation allocates for itself
 * (the copy of a blob from cache data it links, the blob of a back-end
 * routine it serializes into the cache) comes from that command's
 * allocator (pAllocator, else the device's), COMMAND scope, freed before
 * it returns. The
 * memory cache stays warm while a device exists, whatever pipelines and
 * caches come and go; only VkPipelineCache data carries shaders past the
 * last device.
 *
 * VkPipelineCache: a set of entries, each a key and the compiled shader
 * (a reference), or, for entries read from cache data and not used yet, the
 * compiler's blob of it (sc_shader_serialize: relocatable machine code plus
 * metadata). A lookup tries the application's cache (linking a blob with
 * sc_shader_deserialize, which runs neither LLVM's optimizer nor its code
 * generator), then the memory cache; any hit skips LLVM. A blob that does
 * not load (another CPU or compiler build, damage: the compiler checks a
 * digest and the host's identity) is dropped and the shader compiled again.
 * vkGetPipelineCacheData writes the header the spec defines
 * (VkPipelineCacheHeaderVersionOne, little-endian: length 32, version ONE,
 * vendorID, deviceID, pipelineCacheUUID of the physical device: a digest of
 * the driver's build ID, so data from any other build fails the header), then
 *   "SHPC", format version, SHALE_SHADER_ABI_VERSION, entry count,
 *   per entry: key[32], flags, blob size, blob (padded to 4 bytes)
 * (all uint32 little-endian; flags 0: a shader's blob, SD_CACHE_ENTRY_BACKEND:
 * a fragment back-end routine's, sc_backend_serialize, keyed by
 * sc_backend_cache_key, so that graphics pipelines made from cache data run
 * LLVM neither for their shaders nor for their back-end routines; such
 * entries hold only blobs: the compiler keeps linked routines itself).
 * Data whose header does not match this device
 * is ignored, as the spec requires; a truncated or damaged tail is dropped.
 * Entries are a list searched linearly: meant for caches of hundreds of
 * pipelines, not hundreds of thousands.
 *
 * Two tiers (sd_optimizer.c): a pipeline that misses every cache is
 * created with baseline code (SC_COMPILE_BASELINE, scalar - simd_width 1 -
 * unless the shader uses subgroups: about a sixth of the optimized compile
 * time; vector baseline code takes about a third) and the runtime's
 * optimizer thread compiles the optimized code in the background (at a
 * lower priority than the application's threads); it replaces the baseline
 * code in the compiled shader (an atomic pointer: a dispatch running
 * baseline code reads it again before each workgroup, so optimized code
 * takes over between workgroups when its memory needs fit the dispatch's
 * allocation) and the baseline code stays until the compiled shader goes,
 * so a running dispatch never loses its code. Only optimized code is ever
 * serialized: writing cache data
 * waits for the pending optimized code of its entries. SHALE_JIT_BASELINE=0
 * compiles optimized code at creation instead; so do shader dumps.
 *
 * Invariants: an entry's shader, when set, has the entry's key. Compiled
 * shaders live while referenced; their code changes at most once, from
 * baseline to optimized.
 *
 * Threading: the runtime's table is guarded by its mutex; each
 * VkPipelineCache by its own (the spec lets several threads use one cache).
 * Compilation runs outside every lock, so two threads may compile the same
 * key at once; the first to insert wins and the other's result is dropped.
 */
#ifndef SD_PIPELINE_CACHE_H
#define SD_PIPELINE_CACHE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shale/shader_abi.h"
#include "util/su_hash.h"
#include "util/su_sha256.h"

#include "sd_object.h"

struct sc_compiler;
struct sc_shader;
struct su_thread_pool;

/* ---- compiled shaders and the runtime ---- */

#define SD_KEY_SIZE 32
#define SD_MEMORY_CACHE_MAX 256

struct sd_compiled_shader {
   uint8_t key[SD_KEY_SIZE];
   atomic_uint refcount;
   struct sc_shader *_Atomic shader;   /* the code dispatches run */
   struct sc_shader *baseline;         /* replaced baseline code (kept) */
   bool optimizing;                    /* under the runtime's lock */
   /* Runtime table (under its mutex). */
   struct su_hash_node hash;
   struct sd_compiled_shader *lru_prev, *lru_next;
};

struct sd_runtime {
   struct sc_compiler *compiler;
   struct su_thread_pool *pool;
   uint32_t simd_width;        /* sc_default_simd_width(), read once */
   atomic_uint compilations;   /* sc_compile calls that succeeded */
   atomic_uint loads;          /* blobs linked by sc_shader_deserialize */
   pthread_mutex_t lock;
   /* The optimizer (sd_optimizer.c), under `lock`: its thread, started at
    * the first job, and the queue of optimized compiles to do. */
   pthread_t optimizer;
   bool optimizer_started, optimizer_stop;
   pthread_cond_t optimized;   /* a job queued, or a shader's optimizing ended */
   struct sd_optimize_job *jobs_first, *jobs_last;
   struct su_hash_table table;   /* compiled shaders by key; table.count of them */
   struct sd_compiled_shader *lru_first, *lru_last;   /* most recent first */
};

/* The process's runtime, created on first use. VK_ERROR_OUT_OF_HOST_MEMORY
 * or VK_ERROR_INITIALIZATION_FAILED (LLVM or threads unavailable). */
VkResult sd_runtime_acquire(struct sd_runtime **out);
void sd_runtime_release(struct sd_runtime *rt);

/* The first 8 bytes of a key in hex: how logs and dumps name a shader. */
void sd_key_string(const uint8_t key[SD_KEY_SIZE], char out[17]);

void sd_compiled_shader_ref(struct sd_compiled_shader *cs);
void sd_compiled_shader_unref(struct sd_compiled_shader *cs);

struct sd_pipeline_cache;

enum sd_cache_hit {
   SD_CACHE_MISS,
   SD_CACHE_HIT_APPLICATION,   /* the VkPipelineCache passed in had the shader */
   SD_CACHE_HIT_DATA,          /* ... had its blob (from cache data): linked */
   SD_CACHE_HIT_MEMORY,        /* the runtime's memory cache had it */
};

/* A reference to the compiled shader of `key`, or NULL. `cache` may be NULL.
 * A memory hit is also recorded in `cache`. A blob from cache data is
 * copied (a COMMAND-scope allocation of `alloc`, the creating command's
 * allocator) and linked. VK_ERROR_OUT_OF_HOST_MEMORY in *result only when
 * a blob could not be linked for lack of memory. */
struct sd_compiled_shader *sd_shader_cache_find(struct sd_runtime *rt,
                                                struct sd_pipeline_cache *cache,
                                                const uint8_t key[SD_KEY_SIZE],
                                                const VkAllocationCallbacks *alloc,
                                                enum sd_cache_hit *hit, VkResult *result);

/* Adds a freshly compiled shader under `key` (taking `shader`) to the memory
 * cache and to `cache` (may be NULL), and returns a reference to the cached
 * one: `shader` itself, or the one another thread added first (then `shader`
 * is destroyed). NULL only when memory ran out (`shader` destroyed too). */
struct sd_compiled_shader *sd_shader_cache_add(struct sd_runtime *rt,
                                               struct sd_pipeline_cache *cache,
                                               const uint8_t key[SD_KEY_SIZE],
                                               struct sc_shader *shader);

/* ---- the optimizer ---- */

struct sc_compile_info;

/* Whether pipelines start with baseline code (SHALE_JIT_BASELINE, read
 * once; the default is yes). */
bool sd_optimizer_enabled(void);

/* Queues the optimized compile of cs, whose code is baseline, from info
 * (copied: the caller's memory may go). VK_ERROR_OUT_OF_HOST_MEMORY leaves
 * cs on baseline code, which is correct, only slower. */
VkResult sd_optimizer_queue(struct sd_runtime *rt, struct sd_compiled_shader *cs,
                            const struct sc_compile_info *info);

/* Moves cs's optimized compile, if still queued, to the front of the queue
 * (a dispatch is running its baseline code). */
void sd_optimizer_hurry(struct sd_runtime *rt, struct sd_compiled_shader *cs);

/* Like sd_compiled_shader_settle, giving up after `ms` milliseconds;
 * whether cs runs its final code. */
bool sd_compiled_shader_settle_for(struct sd_runtime *rt, struct sd_compiled_shader *cs,
                                   double ms);

/* Returns once cs runs its final code (optimized, or baseline when the
 * optimized compile failed or was dropped). */
void sd_compiled_shader_settle(struct sd_runtime *rt, struct sd_compiled_shader *cs);

/* Stops the optimizer thread and drops the queued work (runtime teardown). */
void sd_optimizer_stop(struct sd_runtime *rt);

/* A graphics pipeline's fragment back-end routines compiled in the
 * background (sd_graphics_pipeline.c): the keys are set before it is
 * queued and never change; a wanted routine's pointer is NULL until the
 * optimizer thread has compiled it, then set once (release; a draw loads
 * both pointers once, acquire, into its state: sd_cmd_draw.c), never back;
 * the other part's pointer holds, from creation, the routine the pipeline
 * already had (NULL only where it has none: the C back end). Reference
 * counted: the pipeline and the queued job each hold one, so a pipeline
 * destroyed while its job waits or runs leaves the job a live slot (the
 * job then skips the compile when it is the last holder). malloc'ed, like
 * the optimizer's jobs: it may outlive the pipeline's allocator. */
struct sd_fb_slot {
   atomic_uint refcount;
   bool want_color, want_ds;
   struct shale_fb_key key;          /* want_color */
   struct shale_fb_ds_key ds_key;    /* want_ds */
   void *_Atomic color;              /* shale_fb_color_fn once compiled */
   void *_Atomic ds;                 /* shale_fb_ds_fn once compiled */
   /* A draw that finds a wanted routine missing gets it first
    * (sd_fb_slot_need); false: draws run the C back end until the
    * background has compiled it (SHALE_FRAGMENT_BACKEND=background). */
   bool at_draw;
   atomic_bool settled;              /* the job is done (release), whoever did it */
   /* Under the runtime's lock: pending (queued, waiting or compiling),
    * claimed (a draw took the compile: the optimizer thread leaves it),
    * compiling (the optimizer thread is compiling it: a draw waits). */
   bool pending, claimed, compiling;
};

/* A new slot (refcount 1, nothing wanted), or NULL without memory. */
struct sd_fb_slot *sd_fb_slot_create(void);
void sd_fb_slot_unref(struct sd_fb_slot *slot);

/* Queues the compile of slot's wanted routines on the optimizer thread,
 * ahead of the optimized shader compiles (a routine costs a tenth of a
 * shader's optimized compile, and a draw waiting for it runs the C back
 * end, several times slower). VK_ERROR_OUT_OF_HOST_MEMORY (no memory, no
 * thread): nothing queued, the caller compiles them itself. */
VkResult sd_optimizer_queue_backend(struct sd_runtime *rt, struct sd_fb_slot *slot);

/* Returns once slot's job is done (tests and vkGetPipelineCacheData need
 * no such wait: they compile through the compiler's own cache). */
void sd_fb_slot_settle(struct sd_runtime *rt, struct sd_fb_slot *slot);

/* Called by each draw of the slot's pipeline (sd_cmd_draw.c, the queue
 * thread) before it reads the routines; one atomic load once the job is
 * done. With at_draw, a job still queued (or held in its
 * SHALE_BACKEND_DELAY_MS wait) is taken off the optimizer and compiled
 * here, at the caller's priority, and one the optimizer thread is compiling
 * is waited for: the draw then runs the compiled routines. A routine costs
 * one LLVM compile (23 to 180 ms measured through zink), the C back end
 * about three times the compiled one's time per fragment for as long as it
 * runs, so a frame's first draws pay the compile once instead of the C
 * back end for the frames the background takes (issue 12). */
void sd_fb_slot_need(struct sd_runtime *rt, struct sd_fb_slot *slot);

/* ---- VkPipelineCache ---- */

/* sd_cache_entry.flags: a back-end routine's blob (sc_backend_serialize;
 * never a shader), keyed by sc_backend_cache_key. */
#define SD_CACHE_ENTRY_BACKEND 1u

struct sd_cache_entry {
   uint8_t key[SD_KEY_SIZE];
   uint32_t flags;                      /* 0 (a shader) or SD_CACHE_ENTRY_BACKEND */
   struct sd_compiled_shader *shader;   /* NULL: only the blob is known yet */
   void *blob;                          /* from cache data, until linked */
   size_t blob_size;
   /* A back-end routine compiled in the background when the entry was
    * made (no blob yet): its key, so that vkGetPipelineCacheData and
    * vkMergePipelineCaches take the routine from the compiler (compiling
    * it there and then if the background has not yet) and store its blob. */
   bool pending, pending_ds;
   struct shale_fb_key fb_key;
   struct shale_fb_ds_key fb_ds_key;
   struct sd_cache_entry *next;         /* insertion order */
};

struct sd_pipeline_cache {
   struct sd_object base;
   VkAllocationCallbacks alloc;
   struct sd_runtime *runtime;
   pthread_mutex_t lock;
   struct sd_cache_entry *first, *last;
   uint32_t count;
   uint32_t vendor_id, device_id;
   uint8_t uuid[VK_UUID_SIZE];
};

/* Back-end routine entries (sd_graphics_pipeline.c). sd_backend_cache_get:
 * a copy of the blob under `key`, a COMMAND-scope allocation of `alloc` the
 * caller frees with it (NULL when there is none or memory ran out:
 * *present tells which; a pending entry, below, is present without a
 * blob). sd_backend_cache_put: adds the
 * blob (copied) unless the key has one; false when out of memory.
 * sd_backend_cache_drop: forgets the blob of `key` (it did not load). */
void *sd_backend_cache_get(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                           const VkAllocationCallbacks *alloc, size_t *size, bool *present);
bool sd_backend_cache_put(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                          const void *blob, size_t size);
void sd_backend_cache_drop(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE]);
/* Records that the routine of fb_key (colour) or ds_key (depth/stencil)
 * belongs under `key` while it compiles in the background: a later
 * sd_backend_cache_get finds it present (without a blob), and writing or
 * merging the cache stores its blob. False when out of memory. */
bool sd_backend_cache_put_pending(struct sd_pipeline_cache *cache, const uint8_t key[SD_KEY_SIZE],
                                  const struct shale_fb_key *fb_key,
                                  const struct shale_fb_ds_key *ds_key);

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_pipeline_cache, base, VkPipelineCache,
                               VK_OBJECT_TYPE_PIPELINE_CACHE)

#endif
