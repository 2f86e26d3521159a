/*
 * sd_exec: the state a command buffer's replay carries from one command to
 * the next on the queue thread (bound state, push constants, ...). Each
 * sd_exec_* function (one per recorded command, declared in the generated
 * sd_cmd_queue.h) reads its packet and this state.
 *
 * Invariants: one sd_exec_state per primary command buffer execution;
 * secondary command buffers run with their caller's state.
 * `active_occlusion` is the query between vkCmdBeginQuery and vkCmdEndQuery
 * of an occlusion pool, or NULL; draws add passed samples to it through
 * sd_query_count_samples() (sd_query.h).
 * Bound state, per bind point (compute; graphics is kept apart for later):
 * the pipeline from vkCmdBindPipeline, and per set number the records a
 * shader reads (sd_descriptor_set_bind(): the set's own records, or a bind
 * copy with the dynamic offsets of that vkCmdBindDescriptorSets applied).
 * Nothing here points at a pipeline layout: the application may destroy one
 * once recording ended. A dispatch runs all of its workgroups (over the
 * runtime's thread pool) before the next command replays, so later commands
 * see every write of earlier ones.
 *
 * Conditional rendering (`cond_discard`): true between a
 * vkCmdBeginConditionalRenderingEXT whose predicate said discard and the
 * matching end. The predicate is read once, when the begin replays (the spec
 * lets an implementation latch it then); the draws, dispatches and
 * vkCmdClearAttachments replayed meanwhile (in secondary command buffers
 * too, which run with this state) do nothing. Copies, blits, queries and
 * everything else run as usual.
 *
 * Rendering (`render`): between a render pass (or dynamic rendering)
 * begin and its end, `render.scene` is the rasterizer scene draws and
 * clears go to; commands that must see earlier pixels flush it first
 * (sd_exec_render_flush: pipeline barriers, event waits, query ends,
 * timestamps).
 *
 * Threading: used only by the queue thread (the rasterizer's workers may
 * call sd_query_count_samples() with it during a draw; compute workers read
 * the bound sets and push constants during a dispatch).
 */
#ifndef SD_EXEC_H
#define SD_EXEC_H

#include <stdint.h>

#include "rasterizer/sr_raster.h"
#include "shale/shader_abi.h"

struct sd_device;
struct sd_queue;
struct sd_cmd_buffer;
struct sd_query;
struct sd_pipeline;

struct sd_exec_bind_point {
   struct sd_pipeline *pipeline;
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
};

/* The render pass instance (or dynamic rendering instance) being recorded
 * into, lowered to one rasterizer scene: begin, subpass changes and end
 * (sd_cmd_render.c) keep it; draws and clears append to `scene`. */
struct sd_exec_render {
   struct sr_scene *scene;              /* NULL outside rendering */
   VkRect2D area;                       /* the render area */
   struct sr_framebuffer fb;            /* the current subpass's attachments */
   uint32_t layer_count;                /* layers the instance renders */
   /* Multiview: the current subpass's (or the rendering instance's) view
    * mask; each draw is queued once per bit, into that layer, and clears
    * and resolves cover those layers. 0: no multiview. */
   uint32_t view_mask;
   /* The current subpass's attachment formats (UNDEFINED: unused) and
    * sample count, for draws that check them against the pipeline. */
   uint32_t color_count;
   VkFormat color_formats[SR_MAX_COLOR_ATTACHMENTS];
   VkFormat depth_format, stencil_format;
   VkSampleCountFlagBits samples;
   /* A render pass instance: its pass, framebuffer, current subpass and
    * clear values (in the recorded packet); pass NULL for dynamic
    * rendering. */
   const struct sd_render_pass *pass;
   const struct sd_framebuffer *framebuffer;
   /* An imageless framebuffer's views, from the begin's
    * VkRenderPassAttachmentBeginInfo (in the recorded packet); NULL: the
    * framebuffer's own. */
   const VkImageView *begin_views;
   uint32_t subpass;
   const VkClearValue *clear_values;
   uint32_t clear_value_count;
   /* Dynamic rendering: resolve targets of the colour attachments (base
    * NULL: none), written at the end unless the instance suspends. */
   struct sr_surface resolve[SR_MAX_COLOR_ATTACHMENTS];
   /* Dynamic rendering: the depth/stencil resolve target (base NULL: none)
    * and each aspect's mode (NONE: that aspect is not resolved). */
   struct sr_surface ds_resolve;
   VkResolveModeFlagBits depth_resolve_mode, stencil_resolve_mode;
   bool suspending;
   /* Dynamic rendering: the attachments whose store op is DONT_CARE
    * (sr_scene_set_discard's mask), for the instance's last flush. */
   uint32_t discard;
};

/* Graphics state between draws (sd_cmd_draw.c): what vkCmdSet*,
 * vkCmdBindVertexBuffers and vkCmdBindIndexBuffer set, and the draw state
 * made from the bound pipeline with the dynamic parts patched in and the
 * scissor clipped to the render area, rebuilt at the next draw when `dirty`
 * (a pipeline bind, a vkCmdSet*, a new render area). */
struct sd_exec_draw {
   bool dirty;
   struct sr_draw_state state;
   uint32_t set_copy_records[SHALE_MAX_DESCRIPTOR_SETS];   /* of graphics.sets[] */
   /* Dynamic state values (used where the pipeline says dynamic). */
   VkViewport viewports[SR_MAX_VIEWPORTS];
   VkRect2D scissors[SR_MAX_VIEWPORTS];
   float line_width;
   /* VK_EXT_extended_dynamic_state3's depth clamp and clip enables and
    * polygon mode. */
   bool depth_clamp_enable, depth_clip_enable;
   VkPolygonMode polygon_mode;
   /* vkCmdSetLineStippleEXT's factor and pattern: kept, never applied (no
    * stippled line feature is offered, so no pipeline enables stippling). */
   uint32_t line_stipple[2];
   float depth_bias[3];                 /* constant, clamp, slope */
   float blend_constants[4];
   float depth_bounds[2];
   uint32_t compare_mask[2], write_mask[2], reference[2];
   /* Bound buffers. */
   struct sr_vertex_buffer vertex_buffers[SR_MAX_VERTEX_BINDINGS];
   const uint8_t *index_base;
   uint64_t index_size;
   VkIndexType index_type;
};

/* Transform feedback (sd_cmd_xfb.c): the bindings of
 * vkCmdBindTransformFeedbackBuffersEXT, and between
 * vkCmdBegin/EndTransformFeedbackEXT the active buffers and write offsets
 * the draws capture through (`cap`, handed to sr_scene_draw; the capture
 * happens when the draw replays, so the offsets and primitive counts are
 * final when the next command replays). The counts only grow; a
 * TRANSFORM_FEEDBACK_STREAM query takes their difference between its begin
 * and end. */
struct sd_exec_xfb {
   uint8_t *bound_base[SHALE_MAX_XFB_BUFFERS];   /* buffer memory + offset; NULL: unbound */
   uint64_t bound_size[SHALE_MAX_XFB_BUFFERS];
   bool active;
   struct sr_xfb cap;
   struct sd_query *query;               /* the active query, or NULL */
   uint64_t query_written, query_needed; /* cap's counts at its begin */
};

/* Pipeline statistics (sd_query.c): between the begin and end of a
 * PIPELINE_STATISTICS query (one at a time per command buffer) `query` is
 * that query; the draws count into `raster` (handed to sr_scene_draw,
 * fragment shader invocations added at the scene's flush, which the end
 * forces) and the dispatches into `cs_invocations`. Zeroed at the begin;
 * nothing counts while no such query is active. */
struct sd_exec_stats {
   struct sd_query *query;
   struct sr_stats raster;
   uint64_t cs_invocations;
};

struct sd_exec_state {
   struct sd_device *device;
   struct sd_queue *queue;
   struct sd_cmd_buffer *cmd_buffer;
   _Alignas(16) uint8_t push_constants[SHALE_MAX_PUSH_CONSTANTS_SIZE];
   struct sd_query *active_occlusion;
   bool cond_discard;
   struct sd_exec_bind_point compute;
   struct sd_exec_bind_point graphics;
   struct sd_exec_render render;
   struct sd_exec_draw draw;
   struct sd_exec_xfb xfb;
   struct sd_exec_stats stats;
};

/* A flush point inside rendering (sr_raster.h): every pixel binned so far
 * is in memory when it returns. Nothing outside rendering. */
static inline void
sd_exec_render_flush(struct sd_exec_state *state)
{
   if (state->render.scene)
      sr_scene_flush(state->render.scene);
}

/* Ends a rendering instance still open when a primary command buffer's
 * replay stops (a suspended dynamic rendering instance, a failed replay). */
void sd_exec_render_finish(struct sd_exec_state *state);

#endif
