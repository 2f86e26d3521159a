/* VK_EXT_conditional_rendering: vkCmdBegin/EndConditionalRenderingEXT set
 * and clear sd_exec_state.cond_discard (sd_exec.h), which the draws,
 * dispatches and vkCmdClearAttachments check when they replay. */
#include <string.h>

#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_exec.h"
#include "sd_util.h"

void
sd_exec_BeginConditionalRenderingEXT(struct sd_exec_state *state,
                                     const struct sd_cmd_BeginConditionalRenderingEXT *cmd)
{
   const VkConditionalRenderingBeginInfoEXT *info = cmd->pConditionalRenderingBegin;
   SD_FROM_HANDLE(sd_buffer, buffer, info->buffer);
   /* Latched here, at execution: every command before this one has run (or,
    * inside a render pass, its buffer writes were made visible by a
    * barrier, which flushed the scene). */
   uint32_t predicate;
   memcpy(&predicate, buffer->data + info->offset, sizeof(predicate));
   bool inverted = (info->flags & VK_CONDITIONAL_RENDERING_INVERTED_BIT_EXT) != 0;
   state->cond_discard = (predicate == 0) != inverted;
}

void
sd_exec_EndConditionalRenderingEXT(struct sd_exec_state *state,
                                   const struct sd_cmd_EndConditionalRenderingEXT *cmd)
{
   state->cond_discard = false;
}
