/* Replay of image transfer commands (copies, buffer copies, blits, clears, resolves) through sr_transfer and sr_raster. */
#include "rasterizer/sr_transfer.h"
#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_image.h"
#include "sd_queue.h"

/* The aspect sr_transfer moves: a plane of a multi-planar image is an image
 * of the plane's compatible (colour) format, sd_image_level describes it. */
static VkImageAspectFlags
sd_copy_aspect(VkImageAspectFlags aspect)
{
   return su_plane_of_aspect(aspect) >= 0 ? VK_IMAGE_ASPECT_COLOR_BIT : aspect;
}

/* Slices or layers a region moves, and how: 3D <-> 3D copies move
 * extent.depth z slices of one "layer"; copies between a 3D and a 2D image
 * (maintenance1 semantics) move extent.depth slices, each an array layer on
 * the 2D side, which sr_copy_image does when given layer_count 1 and the
 * slices as the box depth; everything else moves layerCount layers of one
 * slice. */
static void
sd_copy_image_region(struct sd_image *src, struct sd_image *dst,
                     const VkImageSubresourceLayers *ss, VkOffset3D so,
                     const VkImageSubresourceLayers *ds, VkOffset3D dof, VkExtent3D extent)
{
   struct sr_image_level s, d;
   sd_image_level(src, ss->mipLevel, ss->aspectMask, &s);
   sd_image_level(dst, ds->mipLevel, ds->aspectMask, &d);
   /* Multisampled images (the same count on both sides) are levels
    * `samples` texels wide per pixel: every sample moves. */
   const uint32_t n = src->samples;
   struct sr_box box = { so.x * (int32_t)n, so.y, so.z, extent.width * n, extent.height,
                         extent.depth };
   dof.x *= (int32_t)n;
   uint32_t layers = ss->layerCount;
   if (src->type == VK_IMAGE_TYPE_3D || dst->type == VK_IMAGE_TYPE_3D)
      layers = 1;
   else
      box.d = 1;
   /* Planes and single-plane colour images copy whole texels; depth and
    * stencil aspects name the same aspect on both sides. */
   sr_copy_image(&s, ss->baseArrayLayer, &box, &d, ds->baseArrayLayer, dof.x, dof.y, dof.z, layers,
                 sd_copy_aspect(ss->aspectMask));
}

void
sd_exec_CopyImage(struct sd_exec_state *state, const struct sd_cmd_CopyImage *cmd)
{
   struct sd_image *src = sd_image_from_handle(cmd->srcImage);
   struct sd_image *dst = sd_image_from_handle(cmd->dstImage);
   for (uint32_t i = 0; i < cmd->regionCount; i++) {
      const VkImageCopy *r = &cmd->pRegions[i];
      sd_copy_image_region(src, dst, &r->srcSubresource, r->srcOffset, &r->dstSubresource,
                           r->dstOffset, r->extent);
   }
}

void
sd_exec_CopyImage2(struct sd_exec_state *state, const struct sd_cmd_CopyImage2 *cmd)
{
   const VkCopyImageInfo2 *info = cmd->pCopyImageInfo;
   struct sd_image *src = sd_image_from_handle(info->srcImage);
   struct sd_image *dst = sd_image_from_handle(info->dstImage);
   for (uint32_t i = 0; i < info->regionCount; i++) {
      const VkImageCopy2 *r = &info->pRegions[i];
      sd_copy_image_region(src, dst, &r->srcSubresource, r->srcOffset, &r->dstSubresource,
                           r->dstOffset, r->extent);
   }
}

/* One VkBufferImageCopy(2) region in either direction. bufferRowLength and
 * bufferImageHeight 0 mean "tightly packed": the extent's width and height.
 * 3D images move extent.depth slices of their one layer; arrays move
 * layerCount layers of one slice; either way the buffer holds image_height
 * rows per slice or layer, one after the other. */
static void
sd_copy_buffer_image_region(struct sd_buffer *buf, struct sd_image *img, bool to_image,
                            VkDeviceSize buffer_offset, uint32_t row_length, uint32_t image_height,
                            const VkImageSubresourceLayers *sub, VkOffset3D off, VkExtent3D extent)
{
   struct sr_image_level lvl;
   sd_image_level(img, sub->mipLevel, sub->aspectMask, &lvl);
   const struct sr_box box = { off.x, off.y, off.z, extent.width, extent.height, extent.depth };
   const uint32_t layers = img->type == VK_IMAGE_TYPE_3D ? 1 : sub->layerCount;
   if (!row_length)
      row_length = extent.width;
   if (!image_height)
      image_height = extent.height;
   uint8_t *b = buf->data + buffer_offset;
   const VkImageAspectFlags aspect = sd_copy_aspect(sub->aspectMask);
   if (to_image)
      sr_copy_buffer_to_image(b, row_length, image_height, &lvl, sub->baseArrayLayer, layers, &box,
                              aspect);
   else
      sr_copy_image_to_buffer(&lvl, sub->baseArrayLayer, layers, &box, aspect, b, row_length,
                              image_height);
}

void
sd_exec_CopyBufferToImage(struct sd_exec_state *state, const struct sd_cmd_CopyBufferToImage *cmd)
{
   struct sd_buffer *buf = sd_buffer_from_handle(cmd->srcBuffer);
   struct sd_image *img = sd_image_from_handle(cmd->dstImage);
   for (uint32_t i = 0; i < cmd->regionCount; i++) {
      const VkBufferImageCopy *r = &cmd->pRegions[i];
      sd_copy_buffer_image_region(buf, img, true, r->bufferOffset, r->bufferRowLength,
                                  r->bufferImageHeight, &r->imageSubresource, r->imageOffset,
                                  r->imageExtent);
   }
}

void
sd_exec_CopyBufferToImage2(struct sd_exec_state *state,
                           const struct sd_cmd_CopyBufferToImage2 *cmd)
{
   const VkCopyBufferToImageInfo2 *info = cmd->pCopyBufferToImageInfo;
   struct sd_buffer *buf = sd_buffer_from_handle(info->srcBuffer);
   struct sd_image *img = sd_image_from_handle(info->dstImage);
   for (uint32_t i = 0; i < info->regionCount; i++) {
      const VkBufferImageCopy2 *r = &info->pRegions[i];
      sd_copy_buffer_image_region(buf, img, true, r->bufferOffset, r->bufferRowLength,
                                  r->bufferImageHeight, &r->imageSubresource, r->imageOffset,
                                  r->imageExtent);
   }
}

void
sd_exec_CopyImageToBuffer(struct sd_exec_state *state, const struct sd_cmd_CopyImageToBuffer *cmd)
{
   struct sd_image *img = sd_image_from_handle(cmd->srcImage);
   struct sd_buffer *buf = sd_buffer_from_handle(cmd->dstBuffer);
   for (uint32_t i = 0; i < cmd->regionCount; i++) {
      const VkBufferImageCopy *r = &cmd->pRegions[i];
      sd_copy_buffer_image_region(buf, img, false, r->bufferOffset, r->bufferRowLength,
                                  r->bufferImageHeight, &r->imageSubresource, r->imageOffset,
                                  r->imageExtent);
   }
}

void
sd_exec_CopyImageToBuffer2(struct sd_exec_state *state,
                           const struct sd_cmd_CopyImageToBuffer2 *cmd)
{
   const VkCopyImageToBufferInfo2 *info = cmd->pCopyImageToBufferInfo;
   struct sd_image *img = sd_image_from_handle(info->srcImage);
   struct sd_buffer *buf = sd_buffer_from_handle(info->dstBuffer);
   for (uint32_t i = 0; i < info->regionCount; i++) {
      const VkBufferImageCopy2 *r = &info->pRegions[i];
      sd_copy_buffer_image_region(buf, img, false, r->bufferOffset, r->bufferRowLength,
                                  r->bufferImageHeight, &r->imageSubresource, r->imageOffset,
                                  r->imageExtent);
   }
}

/* One blit region: layerCount layers (1 for 3D images, whose z range is in
 * the offsets), each from srcOffsets to dstOffsets (possibly mirrored). */
static void
sd_blit_region(struct sd_image *src, struct sd_image *dst, const VkImageSubresourceLayers *ss,
               const VkOffset3D so[2], const VkImageSubresourceLayers *ds, const VkOffset3D dof[2],
               VkFilter filter)
{
   /* Blits of multi-planar formats are invalid usage: nothing to do. */
   if (src->plane_count || dst->plane_count)
      return;
   struct sr_image_level s, d;
   sd_image_level(src, ss->mipLevel, ss->aspectMask, &s);
   sd_image_level(dst, ds->mipLevel, ds->aspectMask, &d);
   const int32_t src_offsets[2][3] = { { so[0].x, so[0].y, so[0].z },
                                       { so[1].x, so[1].y, so[1].z } };
   const int32_t dst_offsets[2][3] = { { dof[0].x, dof[0].y, dof[0].z },
                                       { dof[1].x, dof[1].y, dof[1].z } };
   sr_blit(&s, ss->baseArrayLayer, src_offsets, &d, ds->baseArrayLayer, dst_offsets,
           ss->layerCount, ss->aspectMask, filter);
}

void
sd_exec_BlitImage(struct sd_exec_state *state, const struct sd_cmd_BlitImage *cmd)
{
   struct sd_image *src = sd_image_from_handle(cmd->srcImage);
   struct sd_image *dst = sd_image_from_handle(cmd->dstImage);
   for (uint32_t i = 0; i < cmd->regionCount; i++) {
      const VkImageBlit *r = &cmd->pRegions[i];
      sd_blit_region(src, dst, &r->srcSubresource, r->srcOffsets, &r->dstSubresource,
                     r->dstOffsets, cmd->filter);
   }
}

void
sd_exec_BlitImage2(struct sd_exec_state *state, const struct sd_cmd_BlitImage2 *cmd)
{
   const VkBlitImageInfo2 *info = cmd->pBlitImageInfo;
   struct sd_image *src = sd_image_from_handle(info->srcImage);
   struct sd_image *dst = sd_image_from_handle(info->dstImage);
   for (uint32_t i = 0; i < info->regionCount; i++) {
      const VkImageBlit2 *r = &info->pRegions[i];
      sd_blit_region(src, dst, &r->srcSubresource, r->srcOffsets, &r->dstSubresource,
                     r->dstOffsets, info->filter);
   }
}

/* Clears: every level and layer of each range (VK_REMAINING_* resolved),
 * the whole extent of each (every z slice of 3D images). */
void
sd_exec_ClearColorImage(struct sd_exec_state *state, const struct sd_cmd_ClearColorImage *cmd)
{
   struct sd_image *img = sd_image_from_handle(cmd->image);
   /* Clears of multi-planar formats are invalid usage: nothing to do. */
   if (img->plane_count)
      return;
   for (uint32_t i = 0; i < cmd->rangeCount; i++) {
      const VkImageSubresourceRange *r = &cmd->pRanges[i];
      const uint32_t levels = sd_image_level_count(img, r);
      const uint32_t layers = sd_image_layer_count(img, r);
      for (uint32_t l = 0; l < levels; l++) {
         struct sr_image_level lvl;
         sd_image_level(img, r->baseMipLevel + l, VK_IMAGE_ASPECT_COLOR_BIT, &lvl);
         sr_clear_color(&lvl, r->baseArrayLayer, layers, cmd->pColor);
      }
   }
}

void
sd_exec_ClearDepthStencilImage(struct sd_exec_state *state,
                               const struct sd_cmd_ClearDepthStencilImage *cmd)
{
   struct sd_image *img = sd_image_from_handle(cmd->image);
   if (img->plane_count)   /* invalid usage: no depth or stencil */
      return;
   for (uint32_t i = 0; i < cmd->rangeCount; i++) {
      const VkImageSubresourceRange *r = &cmd->pRanges[i];
      const uint32_t levels = sd_image_level_count(img, r);
      const uint32_t layers = sd_image_layer_count(img, r);
      const VkImageAspectFlags aspects = r->aspectMask & img->desc->aspects;
      for (uint32_t l = 0; l < levels; l++) {
         struct sr_image_level lvl;
         sd_image_level(img, r->baseMipLevel + l, aspects, &lvl);
         sr_clear_depth_stencil(&lvl, r->baseArrayLayer, layers, NULL, aspects,
                                cmd->pDepthStencil->depth, cmd->pDepthStencil->stencil);
      }
   }
}

/* Resolves: a scene of the region (source and destination surfaces
 * based at their offsets, the region's layers) with one RESOLVE command:
 * the average of the samples for float and normalized formats (sRGB in
 * linear), sample 0 for integer formats, as the rasterizer resolves
 * attachments. */
static void
sd_resolve_region(struct sd_exec_state *state, struct sd_image *src, struct sd_image *dst,
                  const VkImageSubresourceLayers *ss, VkOffset3D so,
                  const VkImageSubresourceLayers *ds, VkOffset3D dof, VkExtent3D extent)
{
   if (!extent.width || !extent.height || !ss->layerCount)
      return;
   struct sr_image_level s, d;
   sd_image_level(src, ss->mipLevel, VK_IMAGE_ASPECT_COLOR_BIT, &s);
   sd_image_level(dst, ds->mipLevel, VK_IMAGE_ASPECT_COLOR_BIT, &d);
   const uint32_t n = src->samples;
   struct sr_framebuffer fb = {
      .color_count = 1,
      .color[0] = {
         .base = s.base + s.layer_pitch * ss->baseArrayLayer + s.row_pitch * (uint32_t)so.y +
                 (size_t)so.x * n * s.format->block_size,
         .format = s.format,
         .vk_format = src->format,
         .width = extent.width,
         .height = extent.height,
         .layers = ss->layerCount,
         .samples = n,
         .row_pitch = s.row_pitch,
         .layer_pitch = s.layer_pitch,
      },
      .width = extent.width,
      .height = extent.height,
      .layers = ss->layerCount,
      .samples = n,
   };
   const struct sr_surface out = {
      .base = d.base + d.layer_pitch * ds->baseArrayLayer + d.row_pitch * (uint32_t)dof.y +
              (size_t)dof.x * d.format->block_size,
      .format = d.format,
      .vk_format = dst->format,
      .width = extent.width,
      .height = extent.height,
      .layers = ss->layerCount,
      .samples = 1,
      .row_pitch = d.row_pitch,
      .layer_pitch = d.layer_pitch,
   };
   const VkRect2D area = { { 0, 0 }, { extent.width, extent.height } };
   struct sr_scene *scene;
   VkResult r = sr_scene_begin(state->device->raster, &fb, &area, ss->layerCount, &scene);
   if (r == VK_SUCCESS) {
      r = sr_scene_resolve(scene, 0, &out);
      sr_scene_end(scene);
   }
   if (r != VK_SUCCESS && state->queue)
      sd_queue_replay_failed(state->queue, "out of memory in vkCmdResolveImage");
}

void
sd_exec_ResolveImage(struct sd_exec_state *state, const struct sd_cmd_ResolveImage *cmd)
{
   struct sd_image *src = sd_image_from_handle(cmd->srcImage);
   struct sd_image *dst = sd_image_from_handle(cmd->dstImage);
   for (uint32_t i = 0; i < cmd->regionCount; i++) {
      const VkImageResolve *r = &cmd->pRegions[i];
      sd_resolve_region(state, src, dst, &r->srcSubresource, r->srcOffset, &r->dstSubresource,
                        r->dstOffset, r->extent);
   }
}

void
sd_exec_ResolveImage2(struct sd_exec_state *state, const struct sd_cmd_ResolveImage2 *cmd)
{
   const VkResolveImageInfo2 *info = cmd->pResolveImageInfo;
   struct sd_image *src = sd_image_from_handle(info->srcImage);
   struct sd_image *dst = sd_image_from_handle(info->dstImage);
   for (uint32_t i = 0; i < info->regionCount; i++) {
      const VkImageResolve2 *r = &info->pRegions[i];
      sd_resolve_region(state, src, dst, &r->srcSubresource, r->srcOffset, &r->dstSubresource,
                        r->dstOffset, r->extent);
   }
}
