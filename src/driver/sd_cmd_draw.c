/* Replay of the draw commands and of the state they read (vertex and index
 * buffers, Vulkan 1.0's dynamic state, VK_EXT_extended_dynamic_state3's
 * depth clamp and clip enables and polygon mode): each draw becomes one
 * sr_scene_draw with a draw state rebuilt only when something changed. */
#include <stdatomic.h>
#include <string.h>

#include "compiler/sc_compiler.h"
#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_exec.h"
#include "sd_pipeline.h"
#include "sd_pipeline_cache.h"
#include "sd_query.h"
#include "sd_queue.h"
#include "sd_util.h"

#define SD_DYN(s) (1u << VK_DYNAMIC_STATE_##s)

static VkRect2D
sd_rect_intersect(VkRect2D a, VkRect2D b)
{
   int64_t x0 = a.offset.x > b.offset.x ? a.offset.x : b.offset.x;
   int64_t y0 = a.offset.y > b.offset.y ? a.offset.y : b.offset.y;
   int64_t ax1 = (int64_t)a.offset.x + a.extent.width, bx1 = (int64_t)b.offset.x + b.extent.width;
   int64_t ay1 = (int64_t)a.offset.y + a.extent.height;
   int64_t by1 = (int64_t)b.offset.y + b.extent.height;
   int64_t x1 = ax1 < bx1 ? ax1 : bx1, y1 = ay1 < by1 ? ay1 : by1;
   VkRect2D r = { { (int32_t)x0, (int32_t)y0 }, { 0, 0 } };
   if (x1 > x0 && y1 > y0)
      r.extent = (VkExtent2D) { (uint32_t)(x1 - x0), (uint32_t)(y1 - y0) };
   return r;
}

/* Rebuilds the draw state from the bound pipeline and the dynamic values. */
static void
sd_draw_state_update(struct sd_exec_state *state, const struct sd_pipeline *pipeline)
{
   struct sd_exec_draw *d = &state->draw;
   struct sr_draw_state *s = &d->state;
   const uint32_t dyn = pipeline->graphics.dynamic;
   *s = pipeline->graphics.state;
   /* The pipeline's viewport count (Vulkan 1.1: never dynamic); entries
    * past it stay the pipeline's zeros. */
   const uint32_t nvp = s->viewport_count ? s->viewport_count : 1;
   if (dyn & SD_DYN(VIEWPORT))
      memcpy(s->viewports, d->viewports, nvp * sizeof(VkViewport));
   if (dyn & SD_DYN(SCISSOR))
      memcpy(s->scissors, d->scissors, nvp * sizeof(VkRect2D));
   if (dyn & SD_DYN(LINE_WIDTH))
      s->line_width = d->line_width;
   /* Depth clipping follows a dynamic clamp where the pipeline gave no
    * depth clip state (VK_EXT_depth_clip_enable's rule). */
   if (dyn & SD_DYNAMIC_DEPTH_CLAMP_ENABLE) {
      s->depth_clamp = d->depth_clamp_enable;
      if (pipeline->graphics.depth_clip_follows_clamp)
         s->no_depth_clip = d->depth_clamp_enable;
   }
   if (dyn & SD_DYNAMIC_DEPTH_CLIP_ENABLE)
      s->no_depth_clip = !d->depth_clip_enable;
   /* FILL, LINE or POINT (the others need extensions Shale lacks). */
   if (dyn & SD_DYNAMIC_POLYGON_MODE)
      s->polygon_mode = d->polygon_mode <= VK_POLYGON_MODE_POINT ? d->polygon_mode
                                                                 : VK_POLYGON_MODE_FILL;
   if (dyn & SD_DYN(DEPTH_BIAS)) {
      s->depth_bias_constant = d->depth_bias[0];
      s->depth_bias_clamp = d->depth_bias[1];
      s->depth_bias_slope = d->depth_bias[2];
   }
   if (dyn & SD_DYN(BLEND_CONSTANTS))
      memcpy(s->blend_constants, d->blend_constants, sizeof(s->blend_constants));
   if (dyn & SD_DYN(DEPTH_BOUNDS)) {
      s->min_depth_bounds = d->depth_bounds[0];
      s->max_depth_bounds = d->depth_bounds[1];
   }
   for (int f = 0; f < 2; f++) {
      if (dyn & SD_DYN(STENCIL_COMPARE_MASK))
         s->stencil[f].compare_mask = d->compare_mask[f];
      if (dyn & SD_DYN(STENCIL_WRITE_MASK))
         s->stencil[f].write_mask = d->write_mask[f];
      if (dyn & SD_DYN(STENCIL_REFERENCE))
         s->stencil[f].reference = d->reference[f];
   }
   /* The rasterizer always scissors: within the render area too. */
   for (uint32_t i = 0; i < nvp; i++)
      s->scissors[i] = sd_rect_intersect(s->scissors[i], state->render.area);
   d->dirty = false;
}

/* Queues one draw into the current scene. */
static void
sd_draw(struct sd_exec_state *state, const struct sr_draw *draw_in)
{
   struct sd_pipeline *pipeline = state->graphics.pipeline;
   struct sd_exec_draw *d = &state->draw;
   if (!state->render.scene || !pipeline || !draw_in->count || !draw_in->instance_count ||
       state->cond_discard)
      return;
   /* Pipeline statistics count while a query is active (sd_exec.h). */
   struct sr_draw counted = *draw_in;
   counted.stats = state->stats.query ? &state->stats.raster : NULL;
   const struct sr_draw *draw = &counted;
   if (d->dirty)
      sd_draw_state_update(state, pipeline);

   /* The code pointers, read once per draw: the optimizer may replace
    * baseline code, or set a back-end routine, between draws, never
    * inside one. */
   const struct sc_shader *vs = atomic_load(&pipeline->graphics.vs->shader);
   d->state.vs = vs->fn.vs;
   d->state.vs_width = vs->simd_width;
   if (pipeline->graphics.tes) {
      /* The control shader's patch block and scratch sizes and the
       * evaluation shader's width go with the code they belong to. */
      const struct sc_shader *tcs = atomic_load(&pipeline->graphics.tcs->shader);
      const struct sc_shader *tes = atomic_load(&pipeline->graphics.tes->shader);
      d->state.tcs = tcs->fn.tcs;
      d->state.tcs_block_size = tcs->shared_size;
      d->state.tcs_scratch_size = tcs->scratch_size;
      d->state.tes = tes->fn.tes;
      d->state.tes_width = tes->simd_width;
   }
   if (pipeline->graphics.gs) {
      const struct sc_shader *gs = atomic_load(&pipeline->graphics.gs->shader);
      d->state.gs = gs->fn.gs;
      d->state.gs_width = gs->simd_width;
   }
   if (pipeline->graphics.fs) {
      const struct sc_shader *fs = atomic_load(&pipeline->graphics.fs->shader);
      d->state.fs = fs->fn.fs;
      d->state.fs_width = fs->simd_width;
   }
   /* Back-end routines compiled in the background: compiled here, or
    * waited for, unless the pipeline leaves draws on the C back end meanwhile
    * (sd_fb_slot_need); NULL (the C back end, the same pixels) until each is
    * in place; the state already has their keys. */
   struct sd_fb_slot *slot = pipeline->graphics.fb_slot;
   if (slot) {
      sd_fb_slot_need(pipeline->runtime, slot);
      d->state.fb_color = (shale_fb_color_fn)(uintptr_t)atomic_load_explicit(
         &slot->color, memory_order_acquire);
      d->state.fb_ds = (shale_fb_ds_fn)(uintptr_t)atomic_load_explicit(&slot->ds,
                                                                       memory_order_acquire);
   }

   struct sr_draw_bindings b;
   memcpy(b.sets, state->graphics.sets, sizeof(b.sets));
   memcpy(b.set_copy_records, d->set_copy_records, sizeof(b.set_copy_records));
   memcpy(b.push_constants, state->push_constants, sizeof(b.push_constants));
   memcpy(b.vertex_buffers, d->vertex_buffers, sizeof(b.vertex_buffers));
   b.index_base = d->index_base;
   b.index_size = d->index_size;
   b.index_type = d->index_type;

   /* Multiview: once per view of the mask, into that view's layer. */
   const uint32_t views = state->render.view_mask;
   if (!views) {
      if (sr_scene_draw(state->render.scene, &d->state, &b, draw) != VK_SUCCESS)
         sd_queue_replay_failed(state->queue, "out of memory queueing a draw");
      return;
   }
   for (uint32_t m = views; m; m &= m - 1) {
      struct sr_draw one = *draw;
      one.view_index = (uint32_t)__builtin_ctz(m);
      if (m != views)
         one.xfb = NULL;   /* (transform feedback is invalid with multiview) */
      if (sr_scene_draw(state->render.scene, &d->state, &b, &one) != VK_SUCCESS) {
         sd_queue_replay_failed(state->queue, "out of memory queueing a draw");
         return;
      }
   }
}

static uint64_t *
sd_draw_occlusion(struct sd_exec_state *state)
{
   /* The rasterizer adds at its flush, on the queue thread, before the
    * query ends (vkCmdEndQuery flushes the scene). */
   return state->active_occlusion ? (uint64_t *)&state->active_occlusion->value : NULL;
}

/* The transform feedback the draw captures into, while active. */
static struct sr_xfb *
sd_draw_xfb(struct sd_exec_state *state)
{
   return state->xfb.active ? &state->xfb.cap : NULL;
}

void
sd_exec_Draw(struct sd_exec_state *state, const struct sd_cmd_Draw *cmd)
{
   struct sr_draw draw = {
      .count = cmd->vertexCount, .instance_count = cmd->instanceCount,
      .first = cmd->firstVertex, .first_instance = cmd->firstInstance,
      .occlusion = sd_draw_occlusion(state), .xfb = sd_draw_xfb(state),
   };
   sd_draw(state, &draw);
}

void
sd_exec_DrawIndexed(struct sd_exec_state *state, const struct sd_cmd_DrawIndexed *cmd)
{
   struct sr_draw draw = {
      .indexed = true, .count = cmd->indexCount, .instance_count = cmd->instanceCount,
      .first = cmd->firstIndex, .vertex_offset = cmd->vertexOffset,
      .first_instance = cmd->firstInstance, .occlusion = sd_draw_occlusion(state),
      .xfb = sd_draw_xfb(state),
   };
   sd_draw(state, &draw);
}

/* Indirect draws read their parameters when the command replays: earlier
 * commands (outside the render pass) wrote them. */
static void
sd_draw_indirect(struct sd_exec_state *state, VkBuffer _buffer, VkDeviceSize offset,
                 uint32_t draw_count, uint32_t stride, bool indexed)
{
   SD_FROM_HANDLE(sd_buffer, buffer, _buffer);
   for (uint32_t i = 0; i < draw_count; i++) {
      const uint8_t *p = buffer->data + offset + (uint64_t)i * stride;
      struct sr_draw draw = { .indexed = indexed, .draw_index = i,
                              .occlusion = sd_draw_occlusion(state), .xfb = sd_draw_xfb(state) };
      if (indexed) {
         VkDrawIndexedIndirectCommand a;
         memcpy(&a, p, sizeof(a));
         draw.count = a.indexCount;
         draw.instance_count = a.instanceCount;
         draw.first = a.firstIndex;
         draw.vertex_offset = a.vertexOffset;
         draw.first_instance = a.firstInstance;
      } else {
         VkDrawIndirectCommand a;
         memcpy(&a, p, sizeof(a));
         draw.count = a.vertexCount;
         draw.instance_count = a.instanceCount;
         draw.first = a.firstVertex;
         draw.first_instance = a.firstInstance;
      }
      sd_draw(state, &draw);
   }
}

void
sd_exec_DrawIndirect(struct sd_exec_state *state, const struct sd_cmd_DrawIndirect *cmd)
{
   sd_draw_indirect(state, cmd->buffer, cmd->offset, cmd->drawCount, cmd->stride, false);
}

void
sd_exec_DrawIndexedIndirect(struct sd_exec_state *state,
                            const struct sd_cmd_DrawIndexedIndirect *cmd)
{
   sd_draw_indirect(state, cmd->buffer, cmd->offset, cmd->drawCount, cmd->stride, true);
}

/* VK_KHR_draw_indirect_count: the draw count is the 32-bit value at
 * countBufferOffset in countBuffer, read when the command replays (earlier
 * commands or the host may have written it after recording), clamped to
 * maxDrawCount; then the records are read as for vkCmdDrawIndirect, draw i
 * at offset + i * stride with DrawIndex i. The spec makes the application
 * keep every record it asks for inside the buffer; records past its end are
 * not read (the count is also clamped to those that fit), so a bad count
 * cannot make the replay read outside the buffer's memory. */
static void
sd_draw_indirect_count(struct sd_exec_state *state, VkBuffer _buffer, VkDeviceSize offset,
                       VkBuffer _count_buffer, VkDeviceSize count_offset, uint32_t max_draw_count,
                       uint32_t stride, bool indexed)
{
   SD_FROM_HANDLE(sd_buffer, buffer, _buffer);
   SD_FROM_HANDLE(sd_buffer, count_buffer, _count_buffer);
   uint32_t count;
   memcpy(&count, count_buffer->data + count_offset, sizeof(count));
   if (count > max_draw_count)
      count = max_draw_count;
   const VkDeviceSize record = indexed ? sizeof(VkDrawIndexedIndirectCommand)
                                       : sizeof(VkDrawIndirectCommand);
   if (count && offset + record > buffer->size)
      count = 0;
   else if (count && stride && (count - 1) > (buffer->size - offset - record) / stride)
      count = (uint32_t)((buffer->size - offset - record) / stride) + 1;
   sd_draw_indirect(state, _buffer, offset, count, stride, indexed);
}

void
sd_exec_DrawIndirectCount(struct sd_exec_state *state, const struct sd_cmd_DrawIndirectCount *cmd)
{
   sd_draw_indirect_count(state, cmd->buffer, cmd->offset, cmd->countBuffer,
                          cmd->countBufferOffset, cmd->maxDrawCount, cmd->stride, false);
}

void
sd_exec_DrawIndexedIndirectCount(struct sd_exec_state *state,
                                 const struct sd_cmd_DrawIndexedIndirectCount *cmd)
{
   sd_draw_indirect_count(state, cmd->buffer, cmd->offset, cmd->countBuffer,
                          cmd->countBufferOffset, cmd->maxDrawCount, cmd->stride, true);
}

/* vkCmdDrawIndirectByteCountEXT: the vertex count is the bytes a
 * transform feedback counter says were written (less counterOffset) over
 * the vertex stride, read when the command replays. */
void
sd_exec_DrawIndirectByteCountEXT(struct sd_exec_state *state,
                                 const struct sd_cmd_DrawIndirectByteCountEXT *cmd)
{
   SD_FROM_HANDLE(sd_buffer, buffer, cmd->counterBuffer);
   uint32_t bytes;
   memcpy(&bytes, buffer->data + cmd->counterBufferOffset, sizeof(bytes));
   uint32_t count = bytes > cmd->counterOffset && cmd->vertexStride
                       ? (bytes - cmd->counterOffset) / cmd->vertexStride : 0;
   struct sr_draw draw = {
      .count = count, .instance_count = cmd->instanceCount,
      .first_instance = cmd->firstInstance,
      .occlusion = sd_draw_occlusion(state), .xfb = sd_draw_xfb(state),
   };
   sd_draw(state, &draw);
}

void
sd_exec_BindVertexBuffers(struct sd_exec_state *state, const struct sd_cmd_BindVertexBuffers *cmd)
{
   for (uint32_t i = 0; i < cmd->bindingCount; i++) {
      uint32_t slot = cmd->firstBinding + i;
      SD_FROM_HANDLE(sd_buffer, buffer, cmd->pBuffers[i]);
      if (slot >= SR_MAX_VERTEX_BINDINGS)
         continue;
      struct sr_vertex_buffer *vb = &state->draw.vertex_buffers[slot];
      if (!buffer) {   /* nullDescriptor (not claimed): reads give zeros */
         *vb = (struct sr_vertex_buffer) { NULL, 0 };
         continue;
      }
      VkDeviceSize off = cmd->pOffsets[i];
      vb->base = buffer->data + off;
      vb->size = off < buffer->size ? buffer->size - off : 0;
   }
}

void
sd_exec_BindIndexBuffer(struct sd_exec_state *state, const struct sd_cmd_BindIndexBuffer *cmd)
{
   SD_FROM_HANDLE(sd_buffer, buffer, cmd->buffer);
   state->draw.index_base = buffer->data + cmd->offset;
   state->draw.index_size = cmd->offset < buffer->size ? buffer->size - cmd->offset : 0;
   state->draw.index_type = cmd->indexType;
}

void
sd_exec_SetViewport(struct sd_exec_state *state, const struct sd_cmd_SetViewport *cmd)
{
   /* firstViewport + viewportCount <= maxViewports (valid usage). */
   for (uint32_t i = 0; i < cmd->viewportCount && cmd->firstViewport + i < SR_MAX_VIEWPORTS; i++)
      state->draw.viewports[cmd->firstViewport + i] = cmd->pViewports[i];
   state->draw.dirty = true;
}

void
sd_exec_SetScissor(struct sd_exec_state *state, const struct sd_cmd_SetScissor *cmd)
{
   for (uint32_t i = 0; i < cmd->scissorCount && cmd->firstScissor + i < SR_MAX_VIEWPORTS; i++)
      state->draw.scissors[cmd->firstScissor + i] = cmd->pScissors[i];
   state->draw.dirty = true;
}

void
sd_exec_SetLineWidth(struct sd_exec_state *state, const struct sd_cmd_SetLineWidth *cmd)
{
   state->draw.line_width = cmd->lineWidth;
   state->draw.dirty = true;
}

void
sd_exec_SetDepthClampEnableEXT(struct sd_exec_state *state,
                               const struct sd_cmd_SetDepthClampEnableEXT *cmd)
{
   state->draw.depth_clamp_enable = cmd->depthClampEnable;
   state->draw.dirty = true;
}

void
sd_exec_SetDepthClipEnableEXT(struct sd_exec_state *state,
                              const struct sd_cmd_SetDepthClipEnableEXT *cmd)
{
   state->draw.depth_clip_enable = cmd->depthClipEnable;
   state->draw.dirty = true;
}

void
sd_exec_SetPolygonModeEXT(struct sd_exec_state *state, const struct sd_cmd_SetPolygonModeEXT *cmd)
{
   state->draw.polygon_mode = cmd->polygonMode;
   state->draw.dirty = true;
}

/* The rest of VK_EXT_extended_dynamic_state3's commands. Their feature bits
 * read false (sd_physical_device.c), so a valid application never records
 * them (each command's VUID requires its feature); they exist because
 * vkGetDeviceProcAddr must return a non-NULL pointer for every command of an
 * enabled extension, and a recorded one is replayed as nothing. */
#define SD_EXEC_NOT_OFFERED(name)                                                  \
   void sd_exec_##name(struct sd_exec_state *state, const struct sd_cmd_##name *cmd) \
   {                                                                               \
      (void)state;                                                                 \
      (void)cmd;                                                                   \
   }
SD_EXEC_NOT_OFFERED(SetTessellationDomainOriginEXT)
SD_EXEC_NOT_OFFERED(SetRasterizationSamplesEXT)
SD_EXEC_NOT_OFFERED(SetSampleMaskEXT)
SD_EXEC_NOT_OFFERED(SetAlphaToCoverageEnableEXT)
SD_EXEC_NOT_OFFERED(SetAlphaToOneEnableEXT)
SD_EXEC_NOT_OFFERED(SetLogicOpEnableEXT)
SD_EXEC_NOT_OFFERED(SetColorBlendEnableEXT)
SD_EXEC_NOT_OFFERED(SetColorBlendEquationEXT)
SD_EXEC_NOT_OFFERED(SetColorWriteMaskEXT)
SD_EXEC_NOT_OFFERED(SetRasterizationStreamEXT)
SD_EXEC_NOT_OFFERED(SetConservativeRasterizationModeEXT)
SD_EXEC_NOT_OFFERED(SetExtraPrimitiveOverestimationSizeEXT)
SD_EXEC_NOT_OFFERED(SetSampleLocationsEnableEXT)
SD_EXEC_NOT_OFFERED(SetColorBlendAdvancedEXT)
SD_EXEC_NOT_OFFERED(SetProvokingVertexModeEXT)
SD_EXEC_NOT_OFFERED(SetLineRasterizationModeEXT)
SD_EXEC_NOT_OFFERED(SetLineStippleEnableEXT)
SD_EXEC_NOT_OFFERED(SetDepthClipNegativeOneToOneEXT)
SD_EXEC_NOT_OFFERED(SetViewportWScalingEnableNV)
SD_EXEC_NOT_OFFERED(SetViewportSwizzleNV)
SD_EXEC_NOT_OFFERED(SetCoverageToColorEnableNV)
SD_EXEC_NOT_OFFERED(SetCoverageToColorLocationNV)
SD_EXEC_NOT_OFFERED(SetCoverageModulationModeNV)
SD_EXEC_NOT_OFFERED(SetCoverageModulationTableEnableNV)
SD_EXEC_NOT_OFFERED(SetCoverageModulationTableNV)
SD_EXEC_NOT_OFFERED(SetShadingRateImageEnableNV)
SD_EXEC_NOT_OFFERED(SetRepresentativeFragmentTestEnableNV)
SD_EXEC_NOT_OFFERED(SetCoverageReductionModeNV)
#undef SD_EXEC_NOT_OFFERED

void
sd_exec_SetLineStippleEXT(struct sd_exec_state *state, const struct sd_cmd_SetLineStippleEXT *cmd)
{
   state->draw.line_stipple[0] = cmd->lineStippleFactor;
   state->draw.line_stipple[1] = cmd->lineStipplePattern;
}

void
sd_exec_SetDepthBias(struct sd_exec_state *state, const struct sd_cmd_SetDepthBias *cmd)
{
   state->draw.depth_bias[0] = cmd->depthBiasConstantFactor;
   state->draw.depth_bias[1] = cmd->depthBiasClamp;
   state->draw.depth_bias[2] = cmd->depthBiasSlopeFactor;
   state->draw.dirty = true;
}

void
sd_exec_SetBlendConstants(struct sd_exec_state *state, const struct sd_cmd_SetBlendConstants *cmd)
{
   memcpy(state->draw.blend_constants, cmd->blendConstants, sizeof(state->draw.blend_constants));
   state->draw.dirty = true;
}

void
sd_exec_SetDepthBounds(struct sd_exec_state *state, const struct sd_cmd_SetDepthBounds *cmd)
{
   state->draw.depth_bounds[0] = cmd->minDepthBounds;
   state->draw.depth_bounds[1] = cmd->maxDepthBounds;
   state->draw.dirty = true;
}

/* Sets `value` for the faces in `faces`. */
static void
sd_set_faces(struct sd_exec_state *state, uint32_t *values, VkStencilFaceFlags faces,
             uint32_t value)
{
   if (faces & VK_STENCIL_FACE_FRONT_BIT)
      values[0] = value;
   if (faces & VK_STENCIL_FACE_BACK_BIT)
      values[1] = value;
   state->draw.dirty = true;
}

void
sd_exec_SetStencilCompareMask(struct sd_exec_state *state,
                              const struct sd_cmd_SetStencilCompareMask *cmd)
{
   sd_set_faces(state, state->draw.compare_mask, cmd->faceMask, cmd->compareMask);
}

void
sd_exec_SetStencilWriteMask(struct sd_exec_state *state,
                            const struct sd_cmd_SetStencilWriteMask *cmd)
{
   sd_set_faces(state, state->draw.write_mask, cmd->faceMask, cmd->writeMask);
}

void
sd_exec_SetStencilReference(struct sd_exec_state *state,
                            const struct sd_cmd_SetStencilReference *cmd)
{
   sd_set_faces(state, state->draw.reference, cmd->faceMask, cmd->reference);
}
