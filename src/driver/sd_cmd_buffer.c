/* Command pools, command buffers, the recording arena and replay. */
#include "sd_cmd_buffer.h"

#include <string.h>

#include "sd_alloc.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_queue.h"
#include "sd_util.h"
#include "util/su_arena.h"

/* Gives the command buffer's arena back: to the pool's free list when
 * `keep`, else to the allocator. */
static void
sd_cmd_buffer_free_blocks(struct sd_cmd_buffer *cb, bool keep)
{
   su_arena_reset(&cb->arena, keep);
   cb->first = cb->last = NULL;
}

/* 16-byte aligned arena memory, or NULL after recording the failure. */
static void *
sd_cmd_buffer_arena_alloc(struct sd_cmd_buffer *cb, size_t size)
{
   void *p = su_arena_alloc(&cb->arena, size);
   if (!p)
      cb->record_result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   return p;
}

void *
sd_cmd_record_alloc(VkCommandBuffer commandBuffer, uint32_t type, size_t size)
{
   SD_FROM_HANDLE(sd_cmd_buffer, cb, commandBuffer);
   if (cb->record_result != VK_SUCCESS)
      return NULL;
   struct sd_cmd *cmd = sd_cmd_buffer_arena_alloc(cb, size);
   if (!cmd)
      return NULL;
   memset(cmd, 0, size);
   cmd->type = type;
   return cmd;
}

void *
sd_cmd_record_dup(VkCommandBuffer commandBuffer, const void *data, size_t size)
{
   SD_FROM_HANDLE(sd_cmd_buffer, cb, commandBuffer);
   /* An empty array still gets a distinct non-NULL pointer. */
   void *p = sd_cmd_buffer_arena_alloc(cb, size ? size : 1);
   if (p && size)
      memcpy(p, data, size);
   return p;
}

void
sd_cmd_record_commit(VkCommandBuffer commandBuffer, struct sd_cmd *cmd)
{
   SD_FROM_HANDLE(sd_cmd_buffer, cb, commandBuffer);
   cmd->next = NULL;
   if (cb->last)
      cb->last->next = cmd;
   else
      cb->first = cmd;
   cb->last = cmd;
}

/* ---- pools ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateCommandPool(VkDevice _device, const VkCommandPoolCreateInfo *pCreateInfo,
                     const VkAllocationCallbacks *pAllocator, VkCommandPool *pCommandPool)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   struct sd_cmd_pool *pool = sd_zalloc(alloc, sizeof(*pool), SD_ALIGN_DEFAULT,
                                        VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!pool)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&pool->base, VK_OBJECT_TYPE_COMMAND_POOL, device);
   pool->alloc = *alloc;
   su_arena_pool_init(&pool->arena_pool, &pool->alloc);
   pool->flags = pCreateInfo->flags;
   *pCommandPool = sd_cmd_pool_to_handle(pool);
   return VK_SUCCESS;
}

static void
sd_cmd_buffer_destroy(struct sd_cmd_buffer *cb)
{
   struct sd_cmd_pool *pool = cb->pool;
   sd_cmd_buffer_free_blocks(cb, true);
   if (cb->pool_prev)
      cb->pool_prev->pool_next = cb->pool_next;
   else
      pool->buffers = cb->pool_next;
   if (cb->pool_next)
      cb->pool_next->pool_prev = cb->pool_prev;
   sd_free(&pool->alloc, cb);
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyCommandPool(VkDevice _device, VkCommandPool _pool, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_cmd_pool, pool, _pool);
   if (!pool)
      return;
   while (pool->buffers)
      sd_cmd_buffer_destroy(pool->buffers);
   su_arena_pool_trim(&pool->arena_pool);
   VkAllocationCallbacks alloc = pool->alloc;
   sd_free(&alloc, pool);
}

/* Back to the initial state; `release` gives the memory back to the
 * allocator instead of keeping it in the pool for the next recording. */
static void
sd_cmd_buffer_reset(struct sd_cmd_buffer *cb, bool release)
{
   assert(atomic_load(&cb->pending) == 0);
   sd_cmd_buffer_free_blocks(cb, !release);
   cb->record_result = VK_SUCCESS;
   cb->usage = 0;
   cb->state = SD_CB_INITIAL;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetCommandPool(VkDevice _device, VkCommandPool _pool, VkCommandPoolResetFlags flags)
{
   SD_FROM_HANDLE(sd_cmd_pool, pool, _pool);
   bool release = (flags & VK_COMMAND_POOL_RESET_RELEASE_RESOURCES_BIT) != 0;
   for (struct sd_cmd_buffer *cb = pool->buffers; cb; cb = cb->pool_next)
      sd_cmd_buffer_reset(cb, release);
   if (release)
      su_arena_pool_trim(&pool->arena_pool);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_TrimCommandPool(VkDevice _device, VkCommandPool _pool, VkCommandPoolTrimFlags flags)
{
   /* Blocks of reset and freed command buffers wait in the pool for reuse;
    * give them back. Blocks in use by command buffers stay. */
   su_arena_pool_trim(&sd_cmd_pool_from_handle(_pool)->arena_pool);
}

/* ---- command buffers ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_AllocateCommandBuffers(VkDevice _device, const VkCommandBufferAllocateInfo *pAllocateInfo,
                          VkCommandBuffer *pCommandBuffers)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_cmd_pool, pool, pAllocateInfo->commandPool);
   uint32_t i;
   for (i = 0; i < pAllocateInfo->commandBufferCount; i++) {
      struct sd_cmd_buffer *cb = sd_zalloc(&pool->alloc, sizeof(*cb), SD_ALIGN_DEFAULT,
                                           VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!cb)
         break;
      sd_object_init(&cb->base, VK_OBJECT_TYPE_COMMAND_BUFFER, device);
      cb->pool = pool;
      su_arena_init(&cb->arena, &pool->arena_pool);
      cb->level = pAllocateInfo->level;
      cb->state = SD_CB_INITIAL;
      cb->pool_next = pool->buffers;
      if (pool->buffers)
         pool->buffers->pool_prev = cb;
      pool->buffers = cb;
      pCommandBuffers[i] = sd_cmd_buffer_to_handle(cb);
   }
   if (i == pAllocateInfo->commandBufferCount)
      return VK_SUCCESS;
   /* Unwind: free what was allocated, and every handle reads VK_NULL_HANDLE. */
   for (uint32_t j = 0; j < i; j++)
      sd_cmd_buffer_destroy(sd_cmd_buffer_from_handle(pCommandBuffers[j]));
   for (uint32_t j = 0; j < pAllocateInfo->commandBufferCount; j++)
      pCommandBuffers[j] = VK_NULL_HANDLE;
   return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
}

VKAPI_ATTR void VKAPI_CALL
sd_FreeCommandBuffers(VkDevice _device, VkCommandPool _pool, uint32_t count,
                      const VkCommandBuffer *pCommandBuffers)
{
   for (uint32_t i = 0; i < count; i++) {
      SD_FROM_HANDLE(sd_cmd_buffer, cb, pCommandBuffers[i]);
      if (cb)
         sd_cmd_buffer_destroy(cb);
   }
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetCommandBuffer(VkCommandBuffer commandBuffer, VkCommandBufferResetFlags flags)
{
   sd_cmd_buffer_reset(sd_cmd_buffer_from_handle(commandBuffer),
                       (flags & VK_COMMAND_BUFFER_RESET_RELEASE_RESOURCES_BIT) != 0);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_BeginCommandBuffer(VkCommandBuffer commandBuffer, const VkCommandBufferBeginInfo *pBeginInfo)
{
   SD_FROM_HANDLE(sd_cmd_buffer, cb, commandBuffer);
   /* Begin implicitly resets (the pool allows it, or the buffer is initial);
    * the memory stays in the pool for this recording. */
   sd_cmd_buffer_reset(cb, false);
   cb->usage = pBeginInfo->flags;
   cb->state = SD_CB_RECORDING;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EndCommandBuffer(VkCommandBuffer commandBuffer)
{
   SD_FROM_HANDLE(sd_cmd_buffer, cb, commandBuffer);
   if (cb->record_result != VK_SUCCESS) {
      cb->state = SD_CB_INVALID;
      return cb->record_result;
   }
   cb->state = SD_CB_EXECUTABLE;
   return VK_SUCCESS;
}

void
sd_cmd_buffer_begin_pending(struct sd_cmd_buffer *cb)
{
   atomic_fetch_add(&cb->pending, 1);
}

void
sd_cmd_buffer_end_pending(struct sd_cmd_buffer *cb)
{
   atomic_fetch_sub(&cb->pending, 1);
}

void
sd_cmd_buffer_execute(struct sd_cmd_buffer *cb, struct sd_exec_state *state)
{
   bool log = su_debug(SU_DEBUG_CMDS);
   for (const struct sd_cmd *cmd = cb->first; cmd; cmd = cmd->next) {
      if (state->queue && sd_queue_replay_stopped(state->queue))
         return;
      if (log)
         su_log("exec %s", sd_cmd_type_name(cmd->type));
      sd_cmd_execute(state, cmd);
   }
}

void
sd_exec_ExecuteCommands(struct sd_exec_state *state, const struct sd_cmd_ExecuteCommands *cmd)
{
   for (uint32_t i = 0; i < cmd->commandBufferCount; i++)
      sd_cmd_buffer_execute(sd_cmd_buffer_from_handle(cmd->pCommandBuffers[i]), state);
}

void
sd_exec_PushConstants(struct sd_exec_state *state, const struct sd_cmd_PushConstants *cmd)
{
   if (cmd->offset < sizeof(state->push_constants) &&
       cmd->size <= sizeof(state->push_constants) - cmd->offset)
      memcpy(state->push_constants + cmd->offset, cmd->pValues, cmd->size);
}
