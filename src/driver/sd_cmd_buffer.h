/*
 * sd_cmd_buffer: command pools and command buffers.
 *
 * Owns: each command buffer's arena (util/su_arena.h: blocks from its pool's
 * allocator) and its list of recorded packets (struct sd_cmd, generated in
 * sd_cmd_queue.h); the recording-error status; the pending-execution count.
 * The pool owns its command buffers and its su_arena_pool: the free list of
 * standard-size arena blocks that reset and freed command buffers gave back,
 * reused by the next recordings.
 *
 * Invariants: packets live in the arena until reset or free; a failed
 * allocation while recording leaves the list as it was and makes
 * vkEndCommandBuffer return VK_ERROR_OUT_OF_HOST_MEMORY. Destroying a pool
 * frees its command buffers and every block; resetting it resets them all.
 * Memory goes back to the allocator on vkTrimCommandPool, on resets with a
 * RELEASE_RESOURCES flag, and for oversized (single-request) blocks always.
 * `pending` is nonzero exactly while a submission holding the buffer has not
 * finished (it drops before the submission's fence and semaphores signal), so
 * a reset or free of a pending buffer is caught by an assert.
 *
 * Threading: recording follows Vulkan's external synchronization (pool and
 * buffer are the app's to lock; every vkCmd* also locks the pool, which is
 * what makes the pool's free list safe without a lock). Replay happens on the
 * queue thread while the buffer is pending, and only reads; it stops early
 * when sd_queue_replay_stopped() says so.
 */
#ifndef SD_CMD_BUFFER_H
#define SD_CMD_BUFFER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/su_arena.h"

#include "sd_object.h"

struct sd_device;
struct sd_cmd;
struct sd_exec_state;

struct sd_cmd_pool {
   struct sd_object base;
   VkAllocationCallbacks alloc;
   VkCommandPoolCreateFlags flags;
   struct sd_cmd_buffer *buffers;   /* doubly linked through pool_prev/next */
   struct su_arena_pool arena_pool;   /* blocks from `alloc`, and the free list */
};

enum sd_cmd_buffer_state {
   SD_CB_INITIAL,
   SD_CB_RECORDING,
   SD_CB_EXECUTABLE,
   SD_CB_INVALID,
};

struct sd_cmd_buffer {
   struct sd_object base;
   struct sd_cmd_pool *pool;
   struct sd_cmd_buffer *pool_prev, *pool_next;
   VkCommandBufferLevel level;
   VkCommandBufferUsageFlags usage;
   enum sd_cmd_buffer_state state;
   VkResult record_result;
   struct su_arena arena;             /* from the pool's arena_pool */
   struct sd_cmd *first, *last;
   atomic_uint pending;               /* submissions not yet finished */
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_cmd_pool, base, VkCommandPool, VK_OBJECT_TYPE_COMMAND_POOL)
SD_DEFINE_HANDLE_CASTS(sd_cmd_buffer, base, VkCommandBuffer, VK_OBJECT_TYPE_COMMAND_BUFFER)

/* Replays every recorded command (queue thread). */
void sd_cmd_buffer_execute(struct sd_cmd_buffer *cb, struct sd_exec_state *state);

/* Submission bookkeeping: called at submit and when the submission finished. */
void sd_cmd_buffer_begin_pending(struct sd_cmd_buffer *cb);
void sd_cmd_buffer_end_pending(struct sd_cmd_buffer *cb);

#endif
