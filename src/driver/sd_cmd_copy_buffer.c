/* Replay of buffer transfer commands: copy, fill, update. */
#include <string.h>

#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_exec.h"

static void
sd_copy_buffer_region(struct sd_buffer *src, struct sd_buffer *dst, VkDeviceSize src_offset,
                      VkDeviceSize dst_offset, VkDeviceSize size)
{
   /* memmove: the spec forbids overlap, but a CPU copy can tolerate it. */
   memmove(dst->data + dst_offset, src->data + src_offset, size);
}

void
sd_exec_CopyBuffer(struct sd_exec_state *state, const struct sd_cmd_CopyBuffer *cmd)
{
   struct sd_buffer *src = sd_buffer_from_handle(cmd->srcBuffer);
   struct sd_buffer *dst = sd_buffer_from_handle(cmd->dstBuffer);
   for (uint32_t i = 0; i < cmd->regionCount; i++)
      sd_copy_buffer_region(src, dst, cmd->pRegions[i].srcOffset, cmd->pRegions[i].dstOffset,
                            cmd->pRegions[i].size);
}

void
sd_exec_CopyBuffer2(struct sd_exec_state *state, const struct sd_cmd_CopyBuffer2 *cmd)
{
   const VkCopyBufferInfo2 *info = cmd->pCopyBufferInfo;
   struct sd_buffer *src = sd_buffer_from_handle(info->srcBuffer);
   struct sd_buffer *dst = sd_buffer_from_handle(info->dstBuffer);
   for (uint32_t i = 0; i < info->regionCount; i++)
      sd_copy_buffer_region(src, dst, info->pRegions[i].srcOffset, info->pRegions[i].dstOffset,
                            info->pRegions[i].size);
}

void
sd_exec_FillBuffer(struct sd_exec_state *state, const struct sd_cmd_FillBuffer *cmd)
{
   struct sd_buffer *dst = sd_buffer_from_handle(cmd->dstBuffer);
   VkDeviceSize size = cmd->size;
   if (size == VK_WHOLE_SIZE)
      size = (dst->size - cmd->dstOffset) & ~(VkDeviceSize)3;   /* whole words only */
   uint32_t *p = (uint32_t *)(dst->data + cmd->dstOffset);
   if (cmd->data == 0 || cmd->data == UINT32_MAX) {
      memset(p, (int)(cmd->data & 0xff), size);
      return;
   }
   for (VkDeviceSize i = 0; i < size / 4; i++)
      p[i] = cmd->data;
}

void
sd_exec_UpdateBuffer(struct sd_exec_state *state, const struct sd_cmd_UpdateBuffer *cmd)
{
   struct sd_buffer *dst = sd_buffer_from_handle(cmd->dstBuffer);
   memcpy(dst->data + cmd->dstOffset, cmd->pData, cmd->dataSize);
}
