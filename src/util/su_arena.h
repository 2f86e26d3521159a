/*
 * su_arena: bump allocation of short-lived records in blocks, freed all at
 * once (command buffers record their packets into one).
 *
 * Design note
 * -----------
 * Owns: an arena's blocks (newest first). Blocks come from the
 * VkAllocationCallbacks of the arena's su_arena_pool; a pool also keeps a
 * free list of standard-size blocks (SU_ARENA_BLOCK_SIZE of data) that
 * arenas gave back, which later allocations of any arena of the pool reuse
 * before asking the allocator. A request bigger than SU_ARENA_BIG gets a
 * block of its own, sized exactly (big copies waste no space); such a block
 * is full at once, so it goes behind the block being filled, which keeps
 * being filled. Oversized blocks always go back to the allocator.
 *
 * Invariants: memory from su_arena_alloc is 16-byte aligned and stays valid
 * until su_arena_reset of its arena; a failed allocation (NULL: the
 * allocator failed, or the size overflows) leaves the arena as it was.
 * Every block is either in exactly one arena, in its pool's free list, or
 * freed; su_arena_pool_trim frees the free list (blocks in arenas stay).
 *
 * Threading: none inside. An arena and its pool are used by one thread at a
 * time (the caller locks: command buffers follow the pool's external
 * synchronization).
 */
#ifndef SU_ARENA_H
#define SU_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan_core.h>

/* The standard block's data size, and the largest request that shares one. */
#define SU_ARENA_BLOCK_SIZE (16 * 1024)
#define SU_ARENA_BIG (SU_ARENA_BLOCK_SIZE / 4)

struct su_arena_block;

struct su_arena_pool {
   const VkAllocationCallbacks *alloc;     /* must outlive the pool */
   struct su_arena_block *free_blocks;     /* standard-size blocks for reuse */
};

struct su_arena {
   struct su_arena_pool *pool;
   struct su_arena_block *blocks;          /* newest first */
};

static inline void
su_arena_pool_init(struct su_arena_pool *pool, const VkAllocationCallbacks *alloc)
{
   pool->alloc = alloc;
   pool->free_blocks = NULL;
}

/* Frees the pool's free list. */
void su_arena_pool_trim(struct su_arena_pool *pool);

static inline void
su_arena_init(struct su_arena *arena, struct su_arena_pool *pool)
{
   arena->pool = pool;
   arena->blocks = NULL;
}

/* `size` bytes, 16-byte aligned (uninitialized), or NULL. */
void *su_arena_alloc(struct su_arena *arena, size_t size);

/* Gives every block back: standard-size ones to the pool's free list when
 * `keep`, the rest to the allocator. The arena is empty afterwards. */
void su_arena_reset(struct su_arena *arena, bool keep);

#endif
