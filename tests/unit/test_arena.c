/* Unit test of su_arena: alignment, block reuse through the pool's free
 * list, oversized blocks, reset/trim, and allocator failures. */
#define _POSIX_C_SOURCE 200112L   /* posix_memalign */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/su_arena.h"

/* A counting allocator that can be told to fail. */
struct counter {
   int live;          /* blocks allocated and not freed */
   int allocations;   /* calls that succeeded */
   int fail_after;    /* calls left before failing; -1: never */
   size_t last_size;
};

static void *VKAPI_PTR
count_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct counter *c = user;
   (void)scope;
   if (c->fail_after == 0)
      return NULL;
   if (c->fail_after > 0)
      c->fail_after--;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
      return NULL;
   c->live++;
   c->allocations++;
   c->last_size = size;
   return p;
}

static void VKAPI_PTR
count_free(void *user, void *p)
{
   struct counter *c = user;
   if (p)
      c->live--;
   free(p);
}

int
main(void)
{
   struct counter c = { .fail_after = -1 };
   VkAllocationCallbacks cb = {
      .pUserData = &c, .pfnAllocation = count_alloc, .pfnFree = count_free,
   };
   struct su_arena_pool pool;
   su_arena_pool_init(&pool, &cb);
   struct su_arena a, b;
   su_arena_init(&a, &pool);
   su_arena_init(&b, &pool);

   /* Small requests: 16-byte aligned, distinct, from one block until it is
    * full, and writable over their whole size. */
   unsigned char *prev = NULL;
   size_t used = 0;
   int n = 0;
   while (used + 48 <= SU_ARENA_BLOCK_SIZE) {
      unsigned char *p = su_arena_alloc(&a, 40);   /* rounds to 48 */
      CHECK(p && ((uintptr_t)p & 15) == 0, "allocation %d: %p", n, (void *)p);
      if (!p)
         break;
      memset(p, n & 0xff, 40);
      if (prev)
         CHECK(p == prev + 48, "allocation %d not packed after the previous one", n);
      prev = p;
      used += 48;
      n++;
   }
   CHECK_EQ_INT(c.allocations, 1);
   /* The next one opens a second block. */
   CHECK(su_arena_alloc(&a, 48) != NULL, "second block");
   CHECK_EQ_INT(c.allocations, 2);
   CHECK_EQ_INT(c.live, 2);

   /* A zero-byte request still gets memory that is aligned. */
   void *z = su_arena_alloc(&a, 0);
   CHECK(z && ((uintptr_t)z & 15) == 0, "zero-size allocation");

   /* A big request that the block being filled has no room for gets a
    * block of its own, sized exactly, and the block being filled keeps
    * being filled. */
   CHECK(su_arena_alloc(&a, SU_ARENA_BLOCK_SIZE - 48 - 16 - 4096) != NULL, "filler");
   unsigned char *before = su_arena_alloc(&a, 16);   /* 4080 bytes left */
   unsigned char *big = su_arena_alloc(&a, SU_ARENA_BIG + 1);
   CHECK(big && ((uintptr_t)big & 15) == 0, "big allocation");
   CHECK_EQ_INT(c.allocations, 3);
   CHECK(c.last_size < SU_ARENA_BLOCK_SIZE && c.last_size >= SU_ARENA_BIG + 1,
         "big block of %zu bytes", c.last_size);
   memset(big, 0xab, SU_ARENA_BIG + 1);
   unsigned char *after = su_arena_alloc(&a, 16);
   CHECK(after == before + 16, "the head block is filled after a big block");
   /* A request that fits is served from the block being filled, big or
    * not. */
   CHECK(su_arena_alloc(&a, 4096 - 32) == after + 16, "the rest of the head block");
   CHECK_EQ_INT(c.allocations, 3);

   /* Reset with keep: standard blocks go to the free list, the big one to
    * the allocator; another arena of the pool reuses them without
    * allocating. */
   su_arena_reset(&a, true);
   CHECK(a.blocks == NULL, "arena empty after reset");
   CHECK_EQ_INT(c.live, 2);
   int allocs = c.allocations;
   CHECK(su_arena_alloc(&b, 100) != NULL, "reuse 1");
   CHECK_EQ_INT(c.allocations, allocs);
   /* Exactly a standard block's size: the other free block. */
   CHECK(su_arena_alloc(&b, SU_ARENA_BLOCK_SIZE) != NULL, "exactly one block's size");
   CHECK_EQ_INT(c.allocations, allocs);
   CHECK(pool.free_blocks == NULL, "both free blocks reused");
   /* Bigger than a block: its own block, behind the head. */
   CHECK(su_arena_alloc(&b, SU_ARENA_BLOCK_SIZE + 16) != NULL, "more than one block's size");
   CHECK_EQ_INT(c.allocations, allocs + 1);
   /* What is left of the first reused block still serves a request that
    * fits. */
   CHECK(su_arena_alloc(&b, SU_ARENA_BLOCK_SIZE - 112) != NULL, "rest of the reused block");
   CHECK_EQ_INT(c.allocations, allocs + 1);
   /* Trim frees only the free list. */
   su_arena_reset(&b, true);
   int live_before_trim = c.live;
   su_arena_pool_trim(&pool);
   CHECK(c.live < live_before_trim, "trim freed the free list (%d -> %d)", live_before_trim,
         c.live);
   CHECK_EQ_INT(c.live, 0);

   /* Reset without keep gives everything back at once. */
   CHECK(su_arena_alloc(&a, 32) != NULL, "after trim");
   su_arena_reset(&a, false);
   CHECK_EQ_INT(c.live, 0);
   CHECK(pool.free_blocks == NULL, "nothing kept without keep");

   /* Failures: the allocator failing, and sizes that overflow, give NULL
    * and leave the arena as it was. */
   CHECK(su_arena_alloc(&a, 16) != NULL, "one block");
   CHECK(su_arena_alloc(&a, SU_ARENA_BLOCK_SIZE - 48) != NULL, "most of it");
   unsigned char *last = su_arena_alloc(&a, 16);   /* 16 bytes left */
   c.fail_after = 0;
   CHECK(su_arena_alloc(&a, SU_ARENA_BLOCK_SIZE + 16) == NULL,
         "big block with a failing allocator");
   CHECK(su_arena_alloc(&a, 32) == NULL, "standard block with a failing allocator");
   CHECK(su_arena_alloc(&a, SIZE_MAX) == NULL, "SIZE_MAX");
   CHECK(su_arena_alloc(&a, SIZE_MAX - 15) == NULL, "SIZE_MAX - 15");
   CHECK(su_arena_alloc(&a, SIZE_MAX - 31) == NULL, "SIZE_MAX - 31 (header overflow)");
   CHECK(su_arena_alloc(&a, 16) == last + 16, "the arena still fills its block");
   c.fail_after = -1;
   su_arena_reset(&a, false);
   CHECK_EQ_INT(c.live, 0);
   return check_finish();
}
