/* Bump allocation in blocks with a per-pool free list (su_arena.h). */
#include "su_arena.h"

#include <stdint.h>

/* A header followed by data. */
struct su_arena_block {
   struct su_arena_block *next;
   size_t size, used;
   _Alignas(16) unsigned char data[];
};

static void
su_arena_release_block(struct su_arena_pool *pool, struct su_arena_block *b, bool keep)
{
   if (keep && b->size == SU_ARENA_BLOCK_SIZE) {
      b->next = pool->free_blocks;
      pool->free_blocks = b;
   } else {
      pool->alloc->pfnFree(pool->alloc->pUserData, b);
   }
}

void
su_arena_pool_trim(struct su_arena_pool *pool)
{
   while (pool->free_blocks) {
      struct su_arena_block *next = pool->free_blocks->next;
      pool->alloc->pfnFree(pool->alloc->pUserData, pool->free_blocks);
      pool->free_blocks = next;
   }
}

void
su_arena_reset(struct su_arena *arena, bool keep)
{
   struct su_arena_block *b = arena->blocks;
   while (b) {
      struct su_arena_block *next = b->next;
      su_arena_release_block(arena->pool, b, keep);
      b = next;
   }
   arena->blocks = NULL;
}

static struct su_arena_block *
su_arena_new_block(struct su_arena_pool *pool, size_t size)
{
   struct su_arena_block *b;
   if (size == SU_ARENA_BLOCK_SIZE && pool->free_blocks) {
      b = pool->free_blocks;
      pool->free_blocks = b->next;
   } else {
      if (size > SIZE_MAX - sizeof(*b))
         return NULL;
      b = pool->alloc->pfnAllocation(pool->alloc->pUserData, sizeof(*b) + size, 16,
                                     VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!b)
         return NULL;
      b->size = size;
   }
   b->used = 0;
   return b;
}

void *
su_arena_alloc(struct su_arena *arena, size_t size)
{
   if (size > SIZE_MAX - 15)
      return NULL;
   size = (size + 15) & ~(size_t)15;
   struct su_arena_block *head = arena->blocks;
   if (head && head->size - head->used >= size) {
      void *p = head->data + head->used;
      head->used += size;
      return p;
   }
   bool big = size > SU_ARENA_BIG;
   struct su_arena_block *b = su_arena_new_block(arena->pool, big ? size : SU_ARENA_BLOCK_SIZE);
   if (!b)
      return NULL;
   b->used = size;
   if (big && head) {
      /* Full at once: keep filling the current head after it. */
      b->next = head->next;
      head->next = b;
   } else {
      b->next = head;
      arena->blocks = b;
   }
   return b->data;
}
