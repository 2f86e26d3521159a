/* Scene arena and heap helpers of the rasterizer. */
#include "sr_scene.h"

#include <stdlib.h>
#include <string.h>

#define SR_ARENA_BLOCK_SIZE (256u * 1024u)

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

void
sr_arena_init(struct sr_arena *a, const VkAllocationCallbacks *alloc)
{
   a->alloc = alloc;
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
   size_t bytes = size > SR_ARENA_BLOCK_SIZE / 4 ? size : SR_ARENA_BLOCK_SIZE;
   struct sr_arena_block *b = sr_alloc(a->alloc, sizeof(*b) + bytes, 64);
   if (!b)
      return NULL;
   b->size = bytes;
   if (bytes == size && a->blocks) {
      /* A large allocation gets its own block behind the current one, so
       * the current block's free space stays usable. */
      b->next = a->blocks->next;
      a->blocks->next = b;
      return b->data;
   }
   b->next = a->blocks;
   a->blocks = b;
   a->cur = b->data + size;
   a->end = b->data + bytes;
   return b->data;
}

void
sr_arena_reset(struct sr_arena *a)
{
   /* Keep one block of the standard size; free the rest. */
   struct sr_arena_block *keep = NULL;
   for (struct sr_arena_block *b = a->blocks, *next; b; b = next) {
      next = b->next;
      if (!keep && b->size == SR_ARENA_BLOCK_SIZE)
         keep = b;
      else
         sr_free(a->alloc, b);
   }
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
   for (struct sr_arena_block *b = a->blocks, *next; b; b = next) {
      next = b->next;
      sr_free(a->alloc, b);
   }
   sr_arena_init(a, a->alloc);
}
