/* VK_EXT_transform_feedback commands: buffer bindings, begin and end with
 * their counter buffers (sd_exec.h, struct sd_exec_xfb). The capture itself
 * is the rasterizer's (sr_raster.h, "Transform feedback"); queries are in
 * sd_query.c, vkCmdDrawIndirectByteCountEXT in sd_cmd_draw.c. */
#include <string.h>

#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_exec.h"
#include "sd_util.h"

void
sd_exec_BindTransformFeedbackBuffersEXT(struct sd_exec_state *state,
                                        const struct sd_cmd_BindTransformFeedbackBuffersEXT *cmd)
{
   struct sd_exec_xfb *x = &state->xfb;
   for (uint32_t i = 0; i < cmd->bindingCount; i++) {
      uint32_t b = cmd->firstBinding + i;
      if (b >= SHALE_MAX_XFB_BUFFERS)
         break;
      SD_FROM_HANDLE(sd_buffer, buffer, cmd->pBuffers[i]);
      VkDeviceSize off = cmd->pOffsets[i];
      VkDeviceSize size = cmd->pSizes ? cmd->pSizes[i] : VK_WHOLE_SIZE;
      VkDeviceSize left = off < buffer->size ? buffer->size - off : 0;
      x->bound_base[b] = buffer->data + off;
      x->bound_size[b] = size == VK_WHOLE_SIZE || size > left ? left : size;
   }
}

/* The 32-bit counter at (pCounterBuffers[i], pCounterBufferOffsets[i]),
 * or NULL when the command names none. */
static uint8_t *
sd_xfb_counter(const VkBuffer *buffers, const VkDeviceSize *offsets, uint32_t i)
{
   if (!buffers || buffers[i] == VK_NULL_HANDLE)
      return NULL;
   SD_FROM_HANDLE(sd_buffer, buffer, buffers[i]);
   return buffer->data + (offsets ? offsets[i] : 0);
}

void
sd_exec_BeginTransformFeedbackEXT(struct sd_exec_state *state,
                                  const struct sd_cmd_BeginTransformFeedbackEXT *cmd)
{
   struct sd_exec_xfb *x = &state->xfb;
   for (uint32_t b = 0; b < SHALE_MAX_XFB_BUFFERS; b++) {
      x->cap.base[b] = x->bound_base[b];
      x->cap.size[b] = x->bound_size[b];
      x->cap.offset[b] = 0;
   }
   /* Resume: the bytes an earlier end recorded (written by it, or by any
    * command before this one). */
   for (uint32_t i = 0; i < cmd->counterBufferCount; i++) {
      uint32_t b = cmd->firstCounterBuffer + i;
      const uint8_t *c = sd_xfb_counter(cmd->pCounterBuffers, cmd->pCounterBufferOffsets, i);
      if (b < SHALE_MAX_XFB_BUFFERS && c) {
         uint32_t bytes;
         memcpy(&bytes, c, sizeof(bytes));
         x->cap.offset[b] = bytes;
      }
   }
   x->active = true;
}

void
sd_exec_EndTransformFeedbackEXT(struct sd_exec_state *state,
                                const struct sd_cmd_EndTransformFeedbackEXT *cmd)
{
   struct sd_exec_xfb *x = &state->xfb;
   /* Every draw captured when it replayed: the offsets are final. */
   for (uint32_t i = 0; i < cmd->counterBufferCount; i++) {
      uint32_t b = cmd->firstCounterBuffer + i;
      uint8_t *c = sd_xfb_counter(cmd->pCounterBuffers, cmd->pCounterBufferOffsets, i);
      if (b < SHALE_MAX_XFB_BUFFERS && c) {
         uint32_t bytes = (uint32_t)x->cap.offset[b];
         memcpy(c, &bytes, sizeof(bytes));
      }
   }
   x->active = false;
}
