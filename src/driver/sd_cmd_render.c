/* Render pass and dynamic rendering commands, lowered at replay to one rasterizer scene. */
#include <string.h>

#include "sd_cmd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_image.h"
#include "sd_queue.h"
#include "sd_render_pass.h"
#include "sd_util.h"
#include "util/su_format.h"

/* Both kinds of rendering instance take the same path:
 *   begin: sr_scene_begin with the first subpass's attachments, then the
 *          clears of the attachments whose load op is CLEAR (a render
 *          pass attachment only in the first subpass that uses it);
 *   subpass end: resolves into the resolve attachments (colour, and the
 *          depth/stencil one of VkSubpassDescriptionDepthStencilResolve
 *          with its modes), then a flush;
 *   next subpass: sr_scene_set_framebuffer and that subpass's clears;
 *   end: sr_scene_end (flush and free).
 * LOAD and DONT_CARE load ops and every store op cost nothing: the scene
 * draws straight into the attachments' memory. Store op DONT_CARE saves
 * work: the instance's last flush is told (sr_scene_set_discard) and, in
 * each tile, skips the clears of those attachments that come after the
 * tile's last primitive and that no later resolve reads, and keeps the
 * tiles that clear them first in tile memory (sr_tile.c); attachments the
 * last subpass also reads as input attachments are not discarded. Stored
 * attachments may live in tile memory too (sr_scene_set_tile_memory, set
 * for each subpass: all but its input attachments; every attachment of
 * dynamic rendering), written back at each tile's end. Attachments in
 * ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT or GENERAL layout, which shaders
 * of the same subpass may sample from the image's memory, are neither
 * in tile memory nor discarded.
 * Multiview (a subpass's or VkRenderingInfo's view mask): the scene has one
 * layer per view index up to the highest; draws are queued once per view
 * (sd_cmd_draw.c), load op clears and vkCmdClearAttachments clear the
 * layers of the views in the mask (a render pass attachment each view at
 * the first subpass that renders that view of it), resolves cover those
 * layers (sr_scene_set_view_mask), and a query inside takes one query per
 * view (sd_query.c: the first gets the count, the others 0).
 * Dynamic rendering resolves colour attachments (AVERAGE for float and
 * normalized formats, SAMPLE_ZERO for integer ones, which is what the
 * rasterizer's RESOLVE does) and depth/stencil with the modes asked
 * (SD_DEPTH_RESOLVE_MODES / SD_STENCIL_RESOLVE_MODES). A suspended instance stays open within its primary command
 * buffer (secondaries share the primary's exec state) and is ended with it
 * (sd_exec_render_finish): a later primary resumes into a new scene (its
 * pixels are in memory, so nothing is lost; the resolves wait for the
 * final part). */

static void
sd_render_fail(struct sd_exec_state *state, const char *why)
{
   if (state->queue)
      sd_queue_replay_failed(state->queue, why);
   else
      su_log("%s", why);
}

static void
sd_render_check(struct sd_exec_state *state, VkResult r, const char *what)
{
   if (r != VK_SUCCESS)
      sd_render_fail(state, what);
}

/* A clear of `rect` on the layers of `view_mask`'s views, or on every
 * layer of the instance when view_mask is 0. */
static void
sd_render_clear_views(struct sd_exec_state *state, uint32_t target, VkImageAspectFlags aspects,
                      const VkClearValue *value, const VkRect2D *rect, uint32_t view_mask,
                      const char *what)
{
   struct sd_exec_render *r = &state->render;
   if (!view_mask) {
      sd_render_check(state, sr_scene_clear(r->scene, target, aspects, value, rect, 0,
                                            r->layer_count), what);
      return;
   }
   for (uint32_t m = view_mask; m; m &= m - 1)
      sd_render_check(state, sr_scene_clear(r->scene, target, aspects, value, rect,
                                            (uint32_t)__builtin_ctz(m), 1), what);
}

/* ---- render pass instances ---- */

/* Attachment `a` of the current render pass instance: an imageless
 * framebuffer's from the begin info, another's from the framebuffer. */
static struct sd_image_view *
sd_render_attachment(const struct sd_exec_render *r, uint32_t a)
{
   if (r->begin_views)
      return sd_image_view_from_handle(r->begin_views[a]);
   return r->framebuffer->attachments[a];
}

/* The attachments of subpass `s` of the current render pass instance. */
static void
sd_render_subpass_fb(struct sd_exec_state *state, uint32_t s)
{
   struct sd_exec_render *r = &state->render;
   const struct sd_subpass *sp = &r->pass->subpasses[s];
   const struct sd_framebuffer *fb = r->framebuffer;
   struct sr_framebuffer *out = &r->fb;
   memset(out, 0, sizeof(*out));
   out->width = fb->width;
   out->height = fb->height;
   out->layers = r->layer_count;
   r->view_mask = sp->view_mask;
   out->samples = sp->samples ? sp->samples : 1;
   out->color_count = sp->color_count < SR_MAX_COLOR_ATTACHMENTS ? sp->color_count
                                                                 : SR_MAX_COLOR_ATTACHMENTS;
   r->color_count = out->color_count;
   r->depth_format = r->stencil_format = VK_FORMAT_UNDEFINED;
   r->samples = out->samples;
   for (uint32_t i = 0; i < out->color_count; i++) {
      const uint32_t a = sp->colors[i].attachment;
      r->color_formats[i] = VK_FORMAT_UNDEFINED;
      if (a == VK_ATTACHMENT_UNUSED)
         continue;
      sd_image_view_surface(sd_render_attachment(r, a), &out->color[i]);
      r->color_formats[i] = r->pass->attachments[a].format;
   }
   const uint32_t ds = sp->depth_stencil.attachment;
   if (ds != VK_ATTACHMENT_UNUSED) {
      const struct sd_rp_attachment *att = &r->pass->attachments[ds];
      struct sr_surface surf;
      sd_image_view_surface(sd_render_attachment(r, ds), &surf);
      if (att->aspects & VK_IMAGE_ASPECT_DEPTH_BIT) {
         out->depth = surf;
         r->depth_format = att->format;
      }
      if (att->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) {
         out->stencil = surf;
         r->stencil_format = att->format;
      }
   }
}

/* The views of attachment `a` that subpass `s` uses first: the bits of its
 * view mask no earlier subpass using `a` had. ~0u without multiview when
 * `s` is the attachment's first subpass (every layer), else 0. */
static uint32_t
sd_render_first_views(const struct sd_render_pass *pass, uint32_t a, uint32_t s)
{
   const struct sd_rp_attachment *att = &pass->attachments[a];
   if (!pass->view_layers)
      return att->first_subpass == s ? ~0u : 0;
   uint32_t views = pass->subpasses[s].view_mask;
   for (uint32_t t = att->first_subpass; t < s && views; t++) {
      if (sd_subpass_uses(&pass->subpasses[t], a))
         views &= ~pass->subpasses[t].view_mask;
   }
   return views;
}

/* LOAD_OP_CLEAR of the attachments subpass `s` uses first (as colour or
 * depth/stencil: the spec forbids CLEAR on an attachment first used as an
 * input attachment only); with multiview, of the views it uses first. */
static void
sd_render_subpass_clears(struct sd_exec_state *state, uint32_t s)
{
   struct sd_exec_render *r = &state->render;
   const struct sd_subpass *sp = &r->pass->subpasses[s];
   for (uint32_t i = 0; i < r->fb.color_count; i++) {
      const uint32_t a = sp->colors[i].attachment;
      if (a == VK_ATTACHMENT_UNUSED || a >= r->clear_value_count)
         continue;
      const struct sd_rp_attachment *att = &r->pass->attachments[a];
      const uint32_t views = sd_render_first_views(r->pass, a, s);
      if (!views || att->load_op != VK_ATTACHMENT_LOAD_OP_CLEAR)
         continue;
      sd_render_clear_views(state, i, VK_IMAGE_ASPECT_COLOR_BIT, &r->clear_values[a], &r->area,
                            r->pass->view_layers ? views : 0,
                            "out of memory clearing a colour attachment");
   }
   const uint32_t ds = sp->depth_stencil.attachment;
   if (ds == VK_ATTACHMENT_UNUSED || ds >= r->clear_value_count)
      return;
   const struct sd_rp_attachment *att = &r->pass->attachments[ds];
   const uint32_t views = sd_render_first_views(r->pass, ds, s);
   if (!views)
      return;
   VkImageAspectFlags aspects = 0;
   if ((att->aspects & VK_IMAGE_ASPECT_DEPTH_BIT) && att->load_op == VK_ATTACHMENT_LOAD_OP_CLEAR)
      aspects |= VK_IMAGE_ASPECT_DEPTH_BIT;
   if ((att->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) &&
       att->stencil_load_op == VK_ATTACHMENT_LOAD_OP_CLEAR)
      aspects |= VK_IMAGE_ASPECT_STENCIL_BIT;
   if (aspects)
      sd_render_clear_views(state, SR_ATTACHMENT_DEPTH_STENCIL, aspects, &r->clear_values[ds],
                            &r->area, r->pass->view_layers ? views : 0,
                            "out of memory clearing a depth/stencil attachment");
}

/* The end of the current subpass: resolves, then every pixel in memory
 * (later subpasses may read these attachments). */
static void
sd_render_subpass_end(struct sd_exec_state *state)
{
   struct sd_exec_render *r = &state->render;
   const struct sd_subpass *sp = &r->pass->subpasses[r->subpass];
   for (uint32_t i = 0; sp->resolves && i < r->fb.color_count; i++) {
      const uint32_t a = sp->resolves[i].attachment;
      if (a == VK_ATTACHMENT_UNUSED || sp->colors[i].attachment == VK_ATTACHMENT_UNUSED)
         continue;
      struct sr_surface dst;
      sd_image_view_surface(sd_render_attachment(r, a), &dst);
      sd_render_check(state, sr_scene_resolve(r->scene, i, &dst),
                      "out of memory resolving a colour attachment");
   }
   const uint32_t dsa = sp->ds_resolve.attachment;
   if (dsa != VK_ATTACHMENT_UNUSED && sp->depth_stencil.attachment != VK_ATTACHMENT_UNUSED) {
      struct sr_surface dst;
      sd_image_view_surface(sd_render_attachment(r, dsa), &dst);
      sd_render_check(state,
                      sr_scene_resolve_depth_stencil(r->scene, &dst, sp->depth_resolve_mode,
                                                     sp->stencil_resolve_mode),
                      "out of memory resolving a depth/stencil attachment");
   }
   sr_scene_flush(r->scene);
}

/* Whether attachment a is one of subpass sp's input attachments. */
static bool
sd_subpass_reads_input(const struct sd_subpass *sp, uint32_t a)
{
   for (uint32_t i = 0; i < sp->input_count; i++)
      if (sp->inputs[i].attachment == a)
         return true;
   return false;
}

/* Whether an attachment in `layout` may also be read by the same
 * subpass's (or rendering instance's) shaders through descriptors, from
 * the image's memory: a feedback loop (ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT)
 * or GENERAL (which the spec also allows as a sampled or storage image in
 * the same subpass). Such an attachment is never kept in tile memory nor
 * discarded: its clears and draws must land in memory as they happen. */
static bool
sd_layout_read_in_place(VkImageLayout layout)
{
   return layout == VK_IMAGE_LAYOUT_ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT ||
          layout == VK_IMAGE_LAYOUT_GENERAL;
}

/* The current subpass's attachments (sr_scene_set_discard's bits) that
 * the rasterizer may keep in tile memory during its flushes, stored ones
 * too (sr_scene_set_tile_memory): all but those the subpass also reads as
 * input attachments, which its shaders read through descriptors from the
 * image's memory, and those in a layout that lets its shaders sample them
 * (sd_layout_read_in_place). */
static uint32_t
sd_render_pass_tile_memory(const struct sd_exec_render *r)
{
   const struct sd_subpass *sp = &r->pass->subpasses[r->subpass];
   uint32_t mask = 0;
   for (uint32_t i = 0; i < sp->color_count && i < SR_MAX_COLOR_ATTACHMENTS; i++) {
      const uint32_t a = sp->colors[i].attachment;
      if (a != VK_ATTACHMENT_UNUSED && !sd_subpass_reads_input(sp, a) &&
          !sd_layout_read_in_place(sp->colors[i].layout))
         mask |= 1u << i;
   }
   const uint32_t a = sp->depth_stencil.attachment;
   if (a != VK_ATTACHMENT_UNUSED && !sd_subpass_reads_input(sp, a) &&
       !sd_layout_read_in_place(sp->depth_stencil.layout) &&
       !sd_layout_read_in_place(sp->depth_stencil.stencil_layout))
      mask |= SR_DISCARD_DEPTH_STENCIL;
   return mask;
}

static void
sd_render_pass_begin(struct sd_exec_state *state, const VkRenderPassBeginInfo *info)
{
   struct sd_exec_render *r = &state->render;
   assert(!r->scene);
   memset(r, 0, sizeof(*r));
   r->pass = sd_render_pass_from_handle(info->renderPass);
   r->framebuffer = sd_framebuffer_from_handle(info->framebuffer);
   r->area = info->renderArea;
   /* Multiview: one layer per view index (the framebuffer has 1 layer). */
   r->layer_count = r->pass->view_layers ? r->pass->view_layers : r->framebuffer->layers;
   r->clear_values = info->pClearValues;
   r->clear_value_count = info->pClearValues ? info->clearValueCount : 0;
   /* pNext: VkRenderPassAttachmentBeginInfo gives an imageless
    * framebuffer's views (for other framebuffers the spec forbids it);
    * VkDeviceGroupRenderPassBeginInfo's render area of device 0 (the
    * only device of the group) replaces renderArea when it gives one;
    * the rest is ignored. */
   if (r->framebuffer->imageless) {
      const VkRenderPassAttachmentBeginInfo *views =
         sd_find_struct(info, VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO);
      if (!views || views->attachmentCount < r->framebuffer->attachment_count ||
          (r->framebuffer->attachment_count && !views->pAttachments)) {
         sd_render_fail(state, "an imageless framebuffer begun without its views");
         return;
      }
      r->begin_views = views->pAttachments;
   }
   const VkDeviceGroupRenderPassBeginInfo *group =
      sd_find_struct(info, VK_STRUCTURE_TYPE_DEVICE_GROUP_RENDER_PASS_BEGIN_INFO);
   if (group && group->deviceRenderAreaCount)
      r->area = group->pDeviceRenderAreas[0];
   state->draw.dirty = true;   /* draws scissor to the render area */
   sd_render_subpass_fb(state, 0);
   VkResult res = sr_scene_begin(state->device->raster, &r->fb, &r->area, r->layer_count, &r->scene);
   if (res != VK_SUCCESS) {
      r->scene = NULL;
      sd_render_fail(state, "out of memory beginning a render pass");
      return;
   }
   sr_scene_set_view_mask(r->scene, r->view_mask);
   sr_scene_set_tile_memory(r->scene, sd_render_pass_tile_memory(r));
   sd_render_subpass_clears(state, 0);
}

static void
sd_render_pass_next(struct sd_exec_state *state)
{
   struct sd_exec_render *r = &state->render;
   if (!r->scene || !r->pass || r->subpass + 1 >= r->pass->subpass_count)
      return;
   sd_render_subpass_end(state);
   r->subpass++;
   sd_render_subpass_fb(state, r->subpass);
   sr_scene_set_framebuffer(r->scene, &r->fb);
   sr_scene_set_view_mask(r->scene, r->view_mask);
   sr_scene_set_tile_memory(r->scene, sd_render_pass_tile_memory(r));
   sd_render_subpass_clears(state, r->subpass);
}

/* The last subpass's attachments whose store ops are DONT_CARE (every
 * aspect's, for depth/stencil): sr_scene_set_discard's mask for the
 * instance's last flush. Not those it also reads as input attachments:
 * the flush may keep a discarded attachment's tiles out of its memory
 * (sr_tile.c's tile memory), where subpass inputs, which read the image
 * through descriptors, would not see them; nor those in a feedback-loop
 * or GENERAL layout (sd_layout_read_in_place), for the same reason. */
static uint32_t
sd_render_pass_discard(const struct sd_exec_render *r)
{
   const struct sd_subpass *sp = &r->pass->subpasses[r->subpass];
   uint32_t mask = 0;
   for (uint32_t i = 0; i < sp->color_count && i < SR_MAX_COLOR_ATTACHMENTS; i++) {
      const uint32_t a = sp->colors[i].attachment;
      if (a != VK_ATTACHMENT_UNUSED &&
          r->pass->attachments[a].store_op == VK_ATTACHMENT_STORE_OP_DONT_CARE &&
          !sd_subpass_reads_input(sp, a) && !sd_layout_read_in_place(sp->colors[i].layout))
         mask |= 1u << i;
   }
   const uint32_t a = sp->depth_stencil.attachment;
   if (a != VK_ATTACHMENT_UNUSED && !sd_subpass_reads_input(sp, a) &&
       !sd_layout_read_in_place(sp->depth_stencil.layout) &&
       !sd_layout_read_in_place(sp->depth_stencil.stencil_layout)) {
      const struct sd_rp_attachment *at = &r->pass->attachments[a];
      if ((!(at->aspects & VK_IMAGE_ASPECT_DEPTH_BIT) ||
           at->store_op == VK_ATTACHMENT_STORE_OP_DONT_CARE) &&
          (!(at->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) ||
           at->stencil_store_op == VK_ATTACHMENT_STORE_OP_DONT_CARE))
         mask |= SR_DISCARD_DEPTH_STENCIL;
   }
   return mask;
}

static void
sd_render_pass_end(struct sd_exec_state *state)
{
   struct sd_exec_render *r = &state->render;
   if (!r->scene || !r->pass)
      return;
   /* Store op DONT_CARE: the last subpass's flush need not write clears
    * nothing reads (earlier flushes, and earlier subpasses' attachments,
    * keep theirs). */
   sr_scene_set_discard(r->scene, sd_render_pass_discard(r));
   sd_render_subpass_end(state);
   sr_scene_end(r->scene);
   memset(r, 0, sizeof(*r));
}

void
sd_exec_BeginRenderPass(struct sd_exec_state *state, const struct sd_cmd_BeginRenderPass *cmd)
{
   sd_render_pass_begin(state, cmd->pRenderPassBegin);
}

void
sd_exec_BeginRenderPass2(struct sd_exec_state *state, const struct sd_cmd_BeginRenderPass2 *cmd)
{
   sd_render_pass_begin(state, cmd->pRenderPassBegin);
}

void
sd_exec_NextSubpass(struct sd_exec_state *state, const struct sd_cmd_NextSubpass *cmd)
{
   sd_render_pass_next(state);
}

void
sd_exec_NextSubpass2(struct sd_exec_state *state, const struct sd_cmd_NextSubpass2 *cmd)
{
   sd_render_pass_next(state);
}

void
sd_exec_EndRenderPass(struct sd_exec_state *state, const struct sd_cmd_EndRenderPass *cmd)
{
   sd_render_pass_end(state);
}

void
sd_exec_EndRenderPass2(struct sd_exec_state *state, const struct sd_cmd_EndRenderPass2 *cmd)
{
   sd_render_pass_end(state);
}

/* ---- dynamic rendering ---- */

static void
sd_render_view(const VkRenderingAttachmentInfo *a, struct sr_surface *out)
{
   memset(out, 0, sizeof(*out));
   if (a && a->imageView)
      sd_image_view_surface(sd_image_view_from_handle(a->imageView), out);
}

void
sd_exec_BeginRendering(struct sd_exec_state *state, const struct sd_cmd_BeginRendering *cmd)
{
   const VkRenderingInfo *info = cmd->pRenderingInfo;
   struct sd_exec_render *r = &state->render;
   const bool resuming = (info->flags & VK_RENDERING_RESUMING_BIT) != 0;
   /* A resumed instance whose suspended part ran in this replay is still
    * open: it goes on as if nothing happened in between. */
   if (r->scene && resuming && r->suspending) {
      r->suspending = (info->flags & VK_RENDERING_SUSPENDING_BIT) != 0;
      return;
   }
   assert(!r->scene);
   memset(r, 0, sizeof(*r));
   r->area = info->renderArea;
   /* pNext: VkDeviceGroupRenderPassBeginInfo as for render passes. */
   const VkDeviceGroupRenderPassBeginInfo *group =
      sd_find_struct(info, VK_STRUCTURE_TYPE_DEVICE_GROUP_RENDER_PASS_BEGIN_INFO);
   if (group && group->deviceRenderAreaCount)
      r->area = group->pDeviceRenderAreas[0];
   state->draw.dirty = true;   /* draws scissor to the render area */
   /* Multiview: layerCount is ignored, one layer per view index. */
   r->view_mask = info->viewMask;
   r->layer_count = info->viewMask ? 32u - (uint32_t)__builtin_clz(info->viewMask)
                                   : info->layerCount;
   r->suspending = (info->flags & VK_RENDERING_SUSPENDING_BIT) != 0;
   /* Store op DONT_CARE (sr_scene_set_discard at the end): colour
    * attachments, and depth/stencil when every attachment given for it
    * has it. Attachments in a layout that lets shaders sample them
    * (sd_layout_read_in_place) are neither discarded nor kept in tile
    * memory (sr_scene_set_tile_memory below). */
   uint32_t tile_memory = 0;
   for (uint32_t i = 0; i < info->colorAttachmentCount && i < SR_MAX_COLOR_ATTACHMENTS; i++) {
      const VkRenderingAttachmentInfo *a = &info->pColorAttachments[i];
      if (sd_layout_read_in_place(a->imageLayout))
         continue;
      tile_memory |= 1u << i;
      if (a->imageView && a->storeOp == VK_ATTACHMENT_STORE_OP_DONT_CARE)
         r->discard |= 1u << i;
   }
   {
      const VkRenderingAttachmentInfo *rd = info->pDepthAttachment, *rs = info->pStencilAttachment;
      const bool d = rd && rd->imageView, st = rs && rs->imageView;
      const bool in_place = (d && sd_layout_read_in_place(rd->imageLayout)) ||
                            (st && sd_layout_read_in_place(rs->imageLayout));
      if (!in_place)
         tile_memory |= SR_DISCARD_DEPTH_STENCIL;
      if ((d || st) && !in_place && (!d || rd->storeOp == VK_ATTACHMENT_STORE_OP_DONT_CARE) &&
          (!st || rs->storeOp == VK_ATTACHMENT_STORE_OP_DONT_CARE))
         r->discard |= SR_DISCARD_DEPTH_STENCIL;
   }
   struct sr_framebuffer *fb = &r->fb;
   memset(fb, 0, sizeof(*fb));
   /* No framebuffer object: the render area's far corner bounds it (the
    * render area lies inside every attachment). */
   fb->width = (uint32_t)r->area.offset.x + r->area.extent.width;
   fb->height = (uint32_t)r->area.offset.y + r->area.extent.height;
   fb->layers = r->layer_count;
   fb->color_count = info->colorAttachmentCount < SR_MAX_COLOR_ATTACHMENTS
                        ? info->colorAttachmentCount
                        : SR_MAX_COLOR_ATTACHMENTS;
   r->color_count = fb->color_count;
   uint32_t samples = 0;
   for (uint32_t i = 0; i < fb->color_count; i++) {
      const VkRenderingAttachmentInfo *a = &info->pColorAttachments[i];
      sd_render_view(a, &fb->color[i]);
      r->color_formats[i] = a->imageView ? sd_image_view_from_handle(a->imageView)->format
                                         : VK_FORMAT_UNDEFINED;
      if (fb->color[i].base && !samples)
         samples = fb->color[i].samples;
      if (a->imageView && a->resolveMode != VK_RESOLVE_MODE_NONE && a->resolveImageView)
         sd_image_view_surface(sd_image_view_from_handle(a->resolveImageView), &r->resolve[i]);
   }
   sd_render_view(info->pDepthAttachment, &fb->depth);
   sd_render_view(info->pStencilAttachment, &fb->stencil);
   /* Depth/stencil resolves: one target (the spec requires the depth and
    * stencil attachments, and their resolve views, to be the same view
    * when both are given with resolves), each aspect with its own mode. */
   const VkRenderingAttachmentInfo *rd = info->pDepthAttachment, *rs = info->pStencilAttachment;
   if (fb->depth.base && rd->resolveMode != VK_RESOLVE_MODE_NONE && rd->resolveImageView) {
      sd_image_view_surface(sd_image_view_from_handle(rd->resolveImageView), &r->ds_resolve);
      r->depth_resolve_mode = rd->resolveMode;
   }
   if (fb->stencil.base && rs->resolveMode != VK_RESOLVE_MODE_NONE && rs->resolveImageView) {
      if (!r->ds_resolve.base)
         sd_image_view_surface(sd_image_view_from_handle(rs->resolveImageView), &r->ds_resolve);
      r->stencil_resolve_mode = rs->resolveMode;
   }
   if (fb->depth.base) {
      r->depth_format = fb->depth.vk_format;
      if (!samples)
         samples = fb->depth.samples;
   }
   if (fb->stencil.base) {
      r->stencil_format = fb->stencil.vk_format;
      if (!samples)
         samples = fb->stencil.samples;
   }
   fb->samples = samples ? samples : 1;
   r->samples = fb->samples;
   VkResult res = sr_scene_begin(state->device->raster, fb, &r->area, r->layer_count, &r->scene);
   if (res != VK_SUCCESS) {
      r->scene = NULL;
      sd_render_fail(state, "out of memory beginning dynamic rendering");
      return;
   }
   sr_scene_set_view_mask(r->scene, r->view_mask);
   /* Dynamic rendering has no input attachments (Shale offers no
    * dynamicRenderingLocalRead): every attachment but those in a layout
    * that lets shaders sample them may be in tile memory during the
    * flushes (sr_scene_set_tile_memory). */
   sr_scene_set_tile_memory(r->scene, tile_memory);
   /* A resumed instance keeps what its suspended part drew: no load ops. */
   if (resuming)
      return;
   for (uint32_t i = 0; i < fb->color_count; i++) {
      const VkRenderingAttachmentInfo *a = &info->pColorAttachments[i];
      if (fb->color[i].base && a->loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR)
         sd_render_clear_views(state, i, VK_IMAGE_ASPECT_COLOR_BIT, &a->clearValue, &r->area,
                               r->view_mask, "out of memory clearing a colour attachment");
   }
   const VkRenderingAttachmentInfo *d = info->pDepthAttachment, *s = info->pStencilAttachment;
   if (fb->depth.base && d->loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR)
      sd_render_clear_views(state, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT,
                            &d->clearValue, &r->area, r->view_mask,
                            "out of memory clearing a depth attachment");
   if (fb->stencil.base && s->loadOp == VK_ATTACHMENT_LOAD_OP_CLEAR)
      sd_render_clear_views(state, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_STENCIL_BIT,
                            &s->clearValue, &r->area, r->view_mask,
                            "out of memory clearing a stencil attachment");
}

void
sd_exec_EndRendering(struct sd_exec_state *state, const struct sd_cmd_EndRendering *cmd)
{
   struct sd_exec_render *r = &state->render;
   if (!r->scene || r->pass)
      return;
   /* A suspended instance stays open for the instance that resumes it
    * (in this replay, or ended by sd_exec_render_finish); its resolves
    * wait for the last part. */
   if (r->suspending) {
      sr_scene_flush(r->scene);
      return;
   }
   for (uint32_t i = 0; i < r->fb.color_count; i++) {
      if (r->resolve[i].base && r->fb.color[i].base)
         sd_render_check(state, sr_scene_resolve(r->scene, i, &r->resolve[i]),
                         "out of memory resolving a colour attachment");
   }
   if (r->ds_resolve.base)
      sd_render_check(state,
                      sr_scene_resolve_depth_stencil(r->scene, &r->ds_resolve,
                                                     r->depth_resolve_mode,
                                                     r->stencil_resolve_mode),
                      "out of memory resolving a depth/stencil attachment");
   sr_scene_set_discard(r->scene, r->discard);
   sr_scene_end(r->scene);
   memset(r, 0, sizeof(*r));
}

void
sd_exec_render_finish(struct sd_exec_state *state)
{
   struct sd_exec_render *r = &state->render;
   if (!r->scene)
      return;
   /* The resolves of a suspended instance happen when the instance that
    * resumes it ends: in a later command buffer this replay does not see
    * as one. Its pixels are flushed; the resumed part starts a new scene. */
   sr_scene_end(r->scene);
   memset(r, 0, sizeof(*r));
}

/* ---- vkCmdClearAttachments ---- */

void
sd_exec_ClearAttachments(struct sd_exec_state *state, const struct sd_cmd_ClearAttachments *cmd)
{
   struct sd_exec_render *r = &state->render;
   if (!r->scene || state->cond_discard)
      return;
   for (uint32_t i = 0; i < cmd->attachmentCount; i++) {
      const VkClearAttachment *a = &cmd->pAttachments[i];
      uint32_t target;
      if (a->aspectMask & VK_IMAGE_ASPECT_COLOR_BIT) {
         /* An unused colour attachment clears nothing. */
         if (a->colorAttachment >= r->fb.color_count || !r->fb.color[a->colorAttachment].base)
            continue;
         target = a->colorAttachment;
      } else {
         target = SR_ATTACHMENT_DEPTH_STENCIL;
      }
      for (uint32_t k = 0; k < cmd->rectCount; k++) {
         const VkClearRect *rect = &cmd->pRects[k];
         /* Multiview: the rect (layer 0, one layer, as the spec requires)
          * is cleared in every view of the current subpass. */
         if (r->view_mask)
            sd_render_clear_views(state, target, a->aspectMask, &a->clearValue, &rect->rect,
                                  r->view_mask, "out of memory in vkCmdClearAttachments");
         else
            sd_render_check(state,
                            sr_scene_clear(r->scene, target, a->aspectMask, &a->clearValue,
                                           &rect->rect, rect->baseArrayLayer, rect->layerCount),
                            "out of memory in vkCmdClearAttachments");
      }
   }
}
