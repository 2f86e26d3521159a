/* Scene arena and heap helpers of the rasterizer. */
#include "sr_scene.h"

#include <stdlib.h>
#include <string.h>

#define SR_ARENA_BLOCK_SIZE (256u * 1024u)
/* The most the block pool keeps (sr_scene.h: struct sr_block_pool). */
#define SR_BLOCK_POOL_MAX_BYTES ((size_t)512 << 20)

struct sr_arena_block {
   struct sr_arena_block *next;  /* older block */
   size_t size;                  /* bytes after the header */
   _Alignas(64) uint8_t data[];
};

void *
sr_alloc(const VkAllocationCallbacks *alloc, size_t size, size_t align)
{
   if (align < sizeof(void *))
      align = sizeof(void *);
   if (alloc)
      return alloc->pfnAllocation(alloc->pUserData, size, align, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   void *p = NULL;
   if (posix_memalign(&p, align, size ? size : 1) != 0)
      return NULL;
   return p;
}

void *
sr_zalloc(const VkAllocationCallbacks *alloc, size_t size, size_t align)
{
   void *p = sr_alloc(alloc, size, align);
   if (p)
      memset(p, 0, size);
   return p;
}

void
sr_free(const VkAllocationCallbacks *alloc, void *ptr)
{
   if (!ptr)
      return;
   if (alloc)
      alloc->pfnFree(alloc->pUserData, ptr);
   else
      free(ptr);
}

/* ---- Block pool ---- */

#define SR_BLOCK_POOL_MAX_BLOCKS ((uint32_t)(SR_BLOCK_POOL_MAX_BYTES / SR_ARENA_BLOCK_SIZE))

void
sr_block_pool_init(struct sr_block_pool *pool, const VkAllocationCallbacks *alloc)
{
   memset(pool, 0, sizeof(*pool));
   pthread_mutex_init(&pool->lock, NULL);
   pool->alloc = alloc;
}

/* A standard block: a free one of the pool, else a new one. */
static struct sr_arena_block *
block_get(struct sr_arena *a)
{
   struct sr_block_pool *pool = a->pool;
   struct sr_arena_block *b = NULL;
   if (pool) {
      pthread_mutex_lock(&pool->lock);
      b = pool->free;
      if (b) {
         pool->free = b->next;
         pool->free_count--;
      }
      if (++pool->in_use > pool->peak)
         pool->peak = pool->in_use;
      pthread_mutex_unlock(&pool->lock);
   }
   if (!b) {
      b = sr_alloc(a->alloc, sizeof(*b) + SR_ARENA_BLOCK_SIZE, 64);
      if (!b) {
         if (pool) {
            pthread_mutex_lock(&pool->lock);
            pool->in_use--;
            pthread_mutex_unlock(&pool->lock);
         }
         return NULL;
      }
      b->size = SR_ARENA_BLOCK_SIZE;
   }
   return b;
}

/* Gives a list of blocks back: standard ones to the pool, others to the heap. */
static void
blocks_put(struct sr_arena *a, struct sr_arena_block *list)
{
   struct sr_block_pool *pool = a->pool;
   struct sr_arena_block *keep = NULL;
   uint32_t n = 0;
   for (struct sr_arena_block *b = list, *next; b; b = next) {
      next = b->next;
      if (pool && b->size == SR_ARENA_BLOCK_SIZE) {
         b->next = keep;
         keep = b;
         n++;
      } else {
         sr_free(a->alloc, b);
      }
   }
   if (!n)
      return;
   pthread_mutex_lock(&pool->lock);
   struct sr_arena_block *last = keep;
   while (last->next)
      last = last->next;
   last->next = pool->free;
   pool->free = keep;
   pool->free_count += n;
   pool->in_use -= n;
   pthread_mutex_unlock(&pool->lock);
}

void
sr_block_pool_trim(struct sr_block_pool *pool)
{
   struct sr_arena_block *drop = NULL;
   pthread_mutex_lock(&pool->lock);
   pool->history[pool->history_next] = pool->peak;
   pool->history_next = (pool->history_next + 1) % SR_BLOCK_POOL_HISTORY;
   pool->peak = pool->in_use;
   uint32_t high = 0;
   for (unsigned i = 0; i < SR_BLOCK_POOL_HISTORY; i++)
      high = pool->history[i] > high ? pool->history[i] : high;
   if (high > SR_BLOCK_POOL_MAX_BLOCKS)
      high = SR_BLOCK_POOL_MAX_BLOCKS;
   while (pool->free && pool->in_use + pool->free_count > high) {
      struct sr_arena_block *b = pool->free;
      pool->free = b->next;
      pool->free_count--;
      b->next = drop;
      drop = b;
   }
   pthread_mutex_unlock(&pool->lock);
   for (struct sr_arena_block *b = drop, *next; b; b = next) {
      next = b->next;
      sr_free(pool->alloc, b);
   }
}

void
sr_block_pool_finish(struct sr_block_pool *pool)
{
   for (struct sr_arena_block *b = pool->free, *next; b; b = next) {
      next = b->next;
      sr_free(pool->alloc, b);
   }
   pool->free = NULL;
   pool->free_count = 0;
   pthread_mutex_destroy(&pool->lock);
}

/* ---- Arena ---- */

void
sr_arena_init(struct sr_arena *a, const VkAllocationCallbacks *alloc, struct sr_block_pool *pool)
{
   a->alloc = alloc;
   a->pool = pool;
   a->blocks = NULL;
   a->cur = a->end = NULL;
}

void *
sr_arena_alloc(struct sr_arena *a, size_t size)
{
   size_t align = size >= 64 ? 64 : 16;
   uintptr_t p = ((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1);
   if (a->cur && p + size <= (uintptr_t)a->end) {
      a->cur = (uint8_t *)(p + size);
      return (void *)p;
   }
   if (size > SR_ARENA_BLOCK_SIZE / 4) {
      /* A large allocation gets its own block (from the heap), behind the
       * current one when there is one, so the current block's free space
       * stays usable. */
      struct sr_arena_block *b = sr_alloc(a->alloc, sizeof(*b) + size, 64);
      if (!b)
         return NULL;
      b->size = size;
      if (a->blocks) {
         b->next = a->blocks->next;
         a->blocks->next = b;
         return b->data;
      }
      b->next = NULL;
      a->blocks = b;
      a->cur = a->end = b->data + size;
      return b->data;
   }
   struct sr_arena_block *b = block_get(a);
   if (!b)
      return NULL;
   b->next = a->blocks;
   a->blocks = b;
   a->cur = b->data + size;
   a->end = b->data + b->size;
   return b->data;
}

void
sr_arena_reset(struct sr_arena *a)
{
   /* Keep one block of the standard size; give the rest back. */
   struct sr_arena_block *keep = NULL, *rest = NULL;
   for (struct sr_arena_block *b = a->blocks, *next; b; b = next) {
      next = b->next;
      if (!keep && b->size == SR_ARENA_BLOCK_SIZE) {
         keep = b;
      } else {
         b->next = rest;
         rest = b;
      }
   }
   blocks_put(a, rest);
   a->blocks = keep;
   if (keep) {
      keep->next = NULL;
      a->cur = keep->data;
      a->end = keep->data + keep->size;
   } else {
      a->cur = a->end = NULL;
   }
}

void
sr_arena_finish(struct sr_arena *a)
{
   blocks_put(a, a->blocks);
   sr_arena_init(a, a->alloc, a->pool);
}
