/* Command pools, command buffers, the recording arena and replay. */
#include "sd_cmd_buffer.h"

#include <string.h>

#include "sd_alloc.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_util.h"

/* Arena blocks: a header followed by data; oversized requests get their own. */
struct sd_arena_block {
   struct sd_arena_block *next;
   size_t size, used;
   _Alignas(16) unsigned char data[];
};

#define SD_ARENA_BLOCK_SIZE (16 * 1024)

static void
sd_cmd_buffer_free_blocks(struct sd_cmd_buffer *cb)
{
   struct sd_arena_block *b = cb->blocks;
   while (b) {
      struct sd_arena_block *next = b->next;
      sd_free(&cb->pool->alloc, b);
      b = next;
   }
   cb->blocks = NULL;
   cb->first = cb->last = NULL;
}

static void *
sd_cmd_buffer_arena_alloc(struct sd_cmd_buffer *cb, size_t size)
{
   size = (size + 15) & ~(size_t)15;
   struct sd_arena_block *b = cb->blocks;
   if (!b || b->size - b->used < size) {
      size_t bsize = size > SD_ARENA_BLOCK_SIZE ? size : SD_ARENA_BLOCK_SIZE;
      b = sd_alloc(&cb->pool->alloc, sizeof(*b) + bsize, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!b) {
         cb->record_result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
         return NULL;
      }
      b->size = bsize;
      b->used = 0;
      b->next = cb->blocks;
      cb->blocks = b;
   }
   void *p = b->data + b->used;
   b->used += size;
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
   if (size == 0)
      size = 1;
   void *p = sd_cmd_buffer_arena_alloc(cb, size);
   if (p)
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
   pool->flags = pCreateInfo->flags;
   *pCommandPool = sd_cmd_pool_to_handle(pool);
   return VK_SUCCESS;
}

static void
sd_cmd_buffer_destroy(struct sd_cmd_buffer *cb)
{
   struct sd_cmd_pool *pool = cb->pool;
   sd_cmd_buffer_free_blocks(cb);
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
   VkAllocationCallbacks alloc = pool->alloc;
   sd_free(&alloc, pool);
}

static void
sd_cmd_buffer_reset(struct sd_cmd_buffer *cb)
{
   sd_cmd_buffer_free_blocks(cb);
   cb->record_result = VK_SUCCESS;
   cb->state = SD_CB_INITIAL;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetCommandPool(VkDevice _device, VkCommandPool _pool, VkCommandPoolResetFlags flags)
{
   SD_FROM_HANDLE(sd_cmd_pool, pool, _pool);
   for (struct sd_cmd_buffer *cb = pool->buffers; cb; cb = cb->pool_next)
      sd_cmd_buffer_reset(cb);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_TrimCommandPool(VkDevice _device, VkCommandPool _pool, VkCommandPoolTrimFlags flags)
{
   /* Reset buffers already return their blocks to the allocator. */
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
   sd_cmd_buffer_reset(sd_cmd_buffer_from_handle(commandBuffer));
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_BeginCommandBuffer(VkCommandBuffer commandBuffer, const VkCommandBufferBeginInfo *pBeginInfo)
{
   SD_FROM_HANDLE(sd_cmd_buffer, cb, commandBuffer);
   /* Begin implicitly resets (the pool allows it, or the buffer is initial). */
   sd_cmd_buffer_reset(cb);
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
