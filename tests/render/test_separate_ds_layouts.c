/*
 * Separate depth and stencil layouts (separateDepthStencilLayouts,
 * VK_KHR_separate_depth_stencil_layouts, required by Vulkan 1.2) through the
 * loader and the validation layer, on Shale at SHALE_THREADS 1 and 4 and on
 * lavapipe, on a 16x16 depth/stencil image (D24_UNORM_S8_UINT, else
 * D32_SFLOAT_S8_UINT) whose two aspects live in different layouts:
 *  - barriers of one aspect each take both from UNDEFINED to
 *    TRANSFER_DST_OPTIMAL; vkCmdClearDepthStencilImage clears the depth
 *    aspect alone to 0.5 and the stencil aspect alone to 3;
 *  - per-aspect barriers to DEPTH_READ_ONLY_OPTIMAL and
 *    STENCIL_ATTACHMENT_OPTIMAL; a vkCreateRenderPass2 render pass takes the
 *    attachment in those (VkAttachmentDescriptionStencilLayout,
 *    VkAttachmentReferenceStencilLayout): a quad at depth 0.25 (left) and
 *    0.75 (right), depth test LESS without writes, stencil INCREMENT where
 *    the depth test passes and REPLACE (9) where it fails, colour A where it
 *    passes;
 *  - per-aspect barriers to DEPTH_ATTACHMENT_OPTIMAL and
 *    STENCIL_READ_ONLY_OPTIMAL; dynamic rendering with those layouts: a quad
 *    over the top half at depth 0.125, depth test ALWAYS with writes,
 *    stencil EQUAL 4 read only, colour B and the depth where it passes;
 *  - per-aspect barriers to TRANSFER_SRC_OPTIMAL and copies of each aspect.
 * Colour, depth (within one unit of 24 bits) and stencil are compared with
 * a CPU model of those steps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"

#define W 16
#define H 16

static const float color_a[4] = { 1.0f, 0.0f, 0.0f, 1.0f };
static const float color_b[4] = { 0.0f, 0.0f, 1.0f, 1.0f };

static void
quad(struct draw_vertex *v, float x0, float y0, float x1, float y1, float z, const float c[4])
{
   const float p[6][2] = { { x0, y0 }, { x1, y0 }, { x0, y1 }, { x1, y0 }, { x1, y1 }, { x0, y1 } };
   for (int i = 0; i < 6; i++) {
      v[i] = (struct draw_vertex) { { p[i][0], p[i][1], z, 1.0f }, { c[0], c[1], c[2], c[3] } };
   }
}

static void
aspect_barrier(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
               VkImageLayout to)
{
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      .oldLayout = from, .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = { aspect, 0, 1, 0, 1 },
   };
   const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_TRANSFER_BIT |
                                       VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                       VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
   vkCmdPipelineBarrier(cb, stages, stages, 0, 0, NULL, 0, NULL, 1, &b);
}

static VkFormat
pick_format(struct vkt *t)
{
   const VkFormat fmts[2] = { VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT };
   for (int i = 0; i < 2; i++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, fmts[i], &fp);
      if ((fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) &&
          (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT) &&
          (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_TRANSFER_DST_BIT))
         return fmts[i];
   }
   return VK_FORMAT_UNDEFINED;
}

static VkResult
make_pass(struct vkt *t, VkFormat ds_format, VkRenderPass *out)
{
   const VkAttachmentDescriptionStencilLayout stencil_layouts = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_STENCIL_LAYOUT,
      .stencilInitialLayout = VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL,
      .stencilFinalLayout = VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL,
   };
   const VkAttachmentDescription2 att[2] = {
      { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .format = VK_FORMAT_R8G8B8A8_UNORM,
        .samples = VK_SAMPLE_COUNT_1_BIT, .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
      { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2, .pNext = &stencil_layouts,
        .format = ds_format, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE,
        .initialLayout = VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL,
        .finalLayout = VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL },
   };
   const VkAttachmentReferenceStencilLayout ref_stencil = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_STENCIL_LAYOUT,
      .stencilLayout = VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL,
   };
   const VkAttachmentReference2 color_ref = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
      .layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
   };
   const VkAttachmentReference2 ds_ref = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .pNext = &ref_stencil, .attachment = 1,
      .layout = VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL,
      .aspectMask = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
   };
   const VkSubpassDescription2 sub = {
      .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &color_ref,
      .pDepthStencilAttachment = &ds_ref,
   };
   const VkRenderPassCreateInfo2 info = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
      .attachmentCount = 2, .pAttachments = att, .subpassCount = 1, .pSubpasses = &sub,
   };
   PFN_vkCreateRenderPass2KHR create =
      (PFN_vkCreateRenderPass2KHR)vkGetDeviceProcAddr(t->device, "vkCreateRenderPass2KHR");
   return create ? create(t->device, &info, NULL, out) : VK_ERROR_EXTENSION_NOT_PRESENT;
}

struct result {
   uint32_t color[W * H];
   float depth[W * H];
   uint8_t stencil[W * H];
};

static void
reference(struct result *r)
{
   const uint32_t clear = 0, a = draw_pack_rgba8(color_a), b = draw_pack_rgba8(color_b);
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         int i = y * W + x;
         bool left = x < W / 2, top = y < H / 2;
         /* render pass: depth 0.25 < 0.5 on the left, 0.75 fails on the right */
         r->color[i] = left ? a : clear;
         r->stencil[i] = left ? 4 : 9;
         r->depth[i] = 0.5f;
         /* dynamic rendering: top half, stencil EQUAL 4 (a fragment that
          * fails it writes no depth), depth written */
         if (top && r->stencil[i] == 4) {
            r->depth[i] = 0.125f;
            r->color[i] = b;
         }
      }
}

static void
run(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const char *dn = vkt_driver_name(which);
   VkPhysicalDeviceSeparateDepthStencilLayoutsFeatures have = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SEPARATE_DEPTH_STENCIL_LAYOUTS_FEATURES,
   };
   struct vkt_options o;
   bool has_ext = false;
   if (!draw_probe_extension(which, &o, VK_KHR_SEPARATE_DEPTH_STENCIL_LAYOUTS_EXTENSION_NAME,
                             &have, NULL, NULL, &has_ext)) {
      CHECK(which == VKT_LAVAPIPE, "%s not available", dn);
      return;
   }
   if (which == VKT_SHALE)
      CHECK(has_ext && have.separateDepthStencilLayouts,
            "Shale: extension %u, separateDepthStencilLayouts %u", has_ext,
            have.separateDepthStencilLayouts);
   if (!has_ext || !have.separateDepthStencilLayouts) {
      printf("%s lacks separateDepthStencilLayouts: skipped\n", dn);
      return;
   }
   const char *exts[] = { VK_KHR_SEPARATE_DEPTH_STENCIL_LAYOUTS_EXTENSION_NAME,
                          VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME,
                          VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME,
                          VK_KHR_DEPTH_STENCIL_RESOLVE_EXTENSION_NAME,
                          VK_KHR_MULTIVIEW_EXTENSION_NAME, VK_KHR_MAINTENANCE_2_EXTENSION_NAME };
   VkPhysicalDeviceDynamicRenderingFeatures dyn = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES,
      .dynamicRendering = VK_TRUE,
   };
   VkPhysicalDeviceSeparateDepthStencilLayoutsFeatures want = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SEPARATE_DEPTH_STENCIL_LAYOUTS_FEATURES,
      .pNext = &dyn, .separateDepthStencilLayouts = VK_TRUE,
   };
   o.api_version = VK_API_VERSION_1_1;
   o.device_extensions = exts;
   o.device_extension_count = sizeof(exts) / sizeof(exts[0]);
   o.device_pnext = &want;
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(false, "%s: device with separateDepthStencilLayouts", dn);
      return;
   }
   VkFormat ds_format = pick_format(&t);
   CHECK(ds_format != VK_FORMAT_UNDEFINED, "%s: no D24S8 / D32S8 attachment format", dn);
   struct vkt_image color = { 0 }, ds = { 0 };
   VkImageView color_view = VK_NULL_HANDLE, ds_view = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkPipelineLayout layout = VK_NULL_HANDLE;
   VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
   VkPipeline pipes[2] = { VK_NULL_HANDLE, VK_NULL_HANDLE };
   struct vkt_buffer vbuf = { 0 }, rb = { 0 };
   VkResult r = ds_format ? VK_SUCCESS : VK_ERROR_FORMAT_NOT_SUPPORTED;
   if (r == VK_SUCCESS)
      r = draw_image_create(&t, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_SAMPLE_COUNT_1_BIT,
                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            VK_IMAGE_ASPECT_COLOR_BIT, &color, &color_view);
   if (r == VK_SUCCESS)
      r = draw_image_create(&t, ds_format, W, H, VK_SAMPLE_COUNT_1_BIT,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                            VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, &ds, &ds_view);
   if (r == VK_SUCCESS)
      r = make_pass(&t, ds_format, &rp);
   if (r == VK_SUCCESS) {
      const VkImageView views[2] = { color_view, ds_view };
      r = draw_framebuffer(&t, rp, views, 2, W, H, 1, &fb);
   }
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&t, VK_NULL_HANDLE, 0, 0, &layout);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, pos_color_vert_spv, sizeof(pos_color_vert_spv), &vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, flat_color_frag_spv, sizeof(flat_color_frag_spv), &fs);
   CHECK(r == VK_SUCCESS, "%s: images, pass and modules: %d", dn, r);
   /* Pipeline 0: the render pass's (depth read only, stencil written);
    * pipeline 1: dynamic rendering's (depth written, stencil read only). */
   const VkPipelineDepthStencilStateCreateInfo dss[2] = {
      { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_FALSE,
        .depthCompareOp = VK_COMPARE_OP_LESS, .stencilTestEnable = VK_TRUE,
        .front = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_INCREMENT_AND_CLAMP, VK_STENCIL_OP_REPLACE,
                   VK_COMPARE_OP_ALWAYS, 0xff, 0xff, 9 },
        .back = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_INCREMENT_AND_CLAMP, VK_STENCIL_OP_REPLACE,
                  VK_COMPARE_OP_ALWAYS, 0xff, 0xff, 9 } },
      { .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
        .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
        .depthCompareOp = VK_COMPARE_OP_ALWAYS, .stencilTestEnable = VK_TRUE,
        .front = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_KEEP, VK_STENCIL_OP_KEEP,
                   VK_COMPARE_OP_EQUAL, 0xff, 0, 4 },
        .back = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_KEEP, VK_STENCIL_OP_KEEP,
                  VK_COMPARE_OP_EQUAL, 0xff, 0, 4 } },
   };
   const VkFormat color_format = VK_FORMAT_R8G8B8A8_UNORM;
   const VkPipelineRenderingCreateInfo rendering = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO,
      .colorAttachmentCount = 1, .pColorAttachmentFormats = &color_format,
      .depthAttachmentFormat = ds_format, .stencilAttachmentFormat = ds_format,
   };
   for (int p = 0; r == VK_SUCCESS && p < 2; p++) {
      struct draw_pipeline_info pi;
      draw_vertex_info(&pi, NULL, 0, NULL, 0);
      pi.depth_stencil = &dss[p];
      pi.render_pass = p == 0 ? rp : VK_NULL_HANDLE;
      pi.color_count = 1;
      const VkViewport vp = { 0, 0, W, H, 0, 1 };
      const VkRect2D sc = { { 0, 0 }, { W, H } };
      pi.viewport = &vp;
      pi.scissor = &sc;
      struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, NULL, &pi, vs, fs, layout);
      if (p == 1)
         st.info.pNext = &rendering;
      r = vkCreateGraphicsPipelines(t.device, VK_NULL_HANDLE, 1, &st.info, NULL, &pipes[p]);
      CHECK(r == VK_SUCCESS, "%s: pipeline %d: %d", dn, p, r);
   }
   struct draw_vertex v[18];
   quad(v, -1, -1, 0, 1, 0.25f, color_a);
   quad(v + 6, 0, -1, 1, 1, 0.75f, color_a);
   quad(v + 12, -1, -1, 1, 0, 0.125f, color_b);
   if (r == VK_SUCCESS)
      r = draw_upload(&t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vbuf);
   const size_t depth_texel = 4;
   const VkDeviceSize off_depth = 4 * W * H, off_stencil = off_depth + depth_texel * W * H;
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, off_stencil + W * H, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", dn, r);
   PFN_vkCmdBeginRenderPass2KHR begin_pass2 =
      (PFN_vkCmdBeginRenderPass2KHR)vkGetDeviceProcAddr(t.device, "vkCmdBeginRenderPass2KHR");
   PFN_vkCmdEndRenderPass2KHR end_pass2 =
      (PFN_vkCmdEndRenderPass2KHR)vkGetDeviceProcAddr(t.device, "vkCmdEndRenderPass2KHR");
   PFN_vkCmdBeginRenderingKHR begin_rendering =
      (PFN_vkCmdBeginRenderingKHR)vkGetDeviceProcAddr(t.device, "vkCmdBeginRenderingKHR");
   PFN_vkCmdEndRenderingKHR end_rendering =
      (PFN_vkCmdEndRenderingKHR)vkGetDeviceProcAddr(t.device, "vkCmdEndRenderingKHR");
   CHECK(begin_pass2 && end_pass2 && begin_rendering && end_rendering, "%s: KHR entry points",
         dn);
   if (!begin_pass2 || !end_pass2 || !begin_rendering || !end_rendering)
      r = VK_ERROR_EXTENSION_NOT_PRESENT;
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb;
      const VkCommandBufferAllocateInfo ai = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = t.pool,
         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1,
      };
      vkAllocateCommandBuffers(t.device, &ai, &cb);
      const VkCommandBufferBeginInfo bi = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
         .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
      };
      vkBeginCommandBuffer(cb, &bi);
      const VkImageAspectFlags D = VK_IMAGE_ASPECT_DEPTH_BIT, S = VK_IMAGE_ASPECT_STENCIL_BIT;
      aspect_barrier(cb, ds.image, D, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      aspect_barrier(cb, ds.image, S, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      const VkClearDepthStencilValue dclear = { 0.5f, 0x55 }, sclear = { 1.0f, 3 };
      const VkImageSubresourceRange dr = { D, 0, 1, 0, 1 }, sr = { S, 0, 1, 0, 1 };
      vkCmdClearDepthStencilImage(cb, ds.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &dclear, 1,
                                  &dr);
      vkCmdClearDepthStencilImage(cb, ds.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &sclear, 1,
                                  &sr);
      aspect_barrier(cb, ds.image, D, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL);
      aspect_barrier(cb, ds.image, S, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL);
      const VkClearValue clears[2] = { { .color = { { 0, 0, 0, 0 } } } };
      const VkRenderPassBeginInfo rpb = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = rp, .framebuffer = fb,
         .renderArea = { { 0, 0 }, { W, H } }, .clearValueCount = 2, .pClearValues = clears,
      };
      const VkSubpassBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
                                       .contents = VK_SUBPASS_CONTENTS_INLINE };
      const VkSubpassEndInfo sei = { .sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO };
      const VkDeviceSize zero = 0;
      begin_pass2(cb, &rpb, &sbi);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[0]);
      vkCmdBindVertexBuffers(cb, 0, 1, &vbuf.buffer, &zero);
      vkCmdDraw(cb, 12, 1, 0, 0);
      end_pass2(cb, &sei);
      aspect_barrier(cb, ds.image, D, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL,
                     VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL);
      aspect_barrier(cb, ds.image, S, VK_IMAGE_LAYOUT_STENCIL_ATTACHMENT_OPTIMAL,
                     VK_IMAGE_LAYOUT_STENCIL_READ_ONLY_OPTIMAL);
      {
         const VkImageMemoryBarrier cbar = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
            .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
            .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                             VK_ACCESS_COLOR_ATTACHMENT_READ_BIT,
            .oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            .newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
            .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
            .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .image = color.image,
            .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
         };
         vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                              VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0, NULL, 0, NULL,
                              1, &cbar);
      }
      const VkRenderingAttachmentInfo catt = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = color_view,
         .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      };
      const VkRenderingAttachmentInfo datt = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = ds_view,
         .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      };
      const VkRenderingAttachmentInfo satt = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO, .imageView = ds_view,
         .imageLayout = VK_IMAGE_LAYOUT_STENCIL_READ_ONLY_OPTIMAL,
         .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      };
      const VkRenderingInfo ri = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_INFO, .renderArea = { { 0, 0 }, { W, H } },
         .layerCount = 1, .colorAttachmentCount = 1, .pColorAttachments = &catt,
         .pDepthAttachment = &datt, .pStencilAttachment = &satt,
      };
      begin_rendering(cb, &ri);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[1]);
      vkCmdBindVertexBuffers(cb, 0, 1, &vbuf.buffer, &zero);
      vkCmdDraw(cb, 6, 1, 12, 0);
      end_rendering(cb);
      aspect_barrier(cb, ds.image, D, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      aspect_barrier(cb, ds.image, S, VK_IMAGE_LAYOUT_STENCIL_READ_ONLY_OPTIMAL,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      vkt_image_barrier(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      draw_copy_to_buffer(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, rb.buffer, 0);
      draw_copy_to_buffer(cb, ds.image, D, W, H, rb.buffer, off_depth);
      draw_copy_to_buffer(cb, ds.image, S, W, H, rb.buffer, off_stencil);
      draw_host_barrier(cb);
      vkEndCommandBuffer(cb);
      const VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                .commandBufferCount = 1, .pCommandBuffers = &cb };
      r = vkQueueSubmit(t.queue, 1, &si, VK_NULL_HANDLE);
      if (r == VK_SUCCESS)
         r = vkQueueWaitIdle(t.queue);
      CHECK(r == VK_SUCCESS, "%s: submit: %d", dn, r);
      vkFreeCommandBuffers(t.device, t.pool, 1, &cb);
   }
   if (r == VK_SUCCESS) {
      static struct result ref;
      reference(&ref);
      const uint8_t *base = rb.map;
      unsigned bad_c = 0, bad_d = 0, bad_s = 0;
      for (int i = 0; i < W * H; i++) {
         uint32_t c;
         memcpy(&c, base + 4 * i, 4);
         uint32_t dw;
         memcpy(&dw, base + off_depth + depth_texel * i, 4);
         float d;
         if (ds_format == VK_FORMAT_D24_UNORM_S8_UINT)
            d = (float)((dw & 0xffffff) / 16777215.0);
         else
            memcpy(&d, &dw, 4);
         uint8_t s = base[off_stencil + i];
         if (c != ref.color[i] && bad_c++ < 4)
            printf("%s (%s): colour at (%d, %d): 0x%08x, expected 0x%08x\n", dn,
                   threads ? threads : "-", i % W, i / W, c, ref.color[i]);
         if (fabsf(d - ref.depth[i]) > 1.0f / 16777215.0f && bad_d++ < 4)
            printf("%s (%s): depth at (%d, %d): %.9f, expected %.9f\n", dn,
                   threads ? threads : "-", i % W, i / W, d, ref.depth[i]);
         if (s != ref.stencil[i] && bad_s++ < 4)
            printf("%s (%s): stencil at (%d, %d): %u, expected %u\n", dn,
                   threads ? threads : "-", i % W, i / W, s, ref.stencil[i]);
      }
      CHECK(bad_c == 0, "%s (%s): %u colour texels differ", dn, threads ? threads : "-", bad_c);
      CHECK(bad_d == 0, "%s (%s): %u depth texels differ", dn, threads ? threads : "-", bad_d);
      CHECK(bad_s == 0, "%s (%s): %u stencil texels differ", dn, threads ? threads : "-", bad_s);
   }
   vkt_buffer_destroy(&t, &vbuf);
   vkt_buffer_destroy(&t, &rb);
   for (int p = 0; p < 2; p++)
      vkDestroyPipeline(t.device, pipes[p], NULL);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   vkDestroyPipelineLayout(t.device, layout, NULL);
   vkDestroyFramebuffer(t.device, fb, NULL);
   vkDestroyRenderPass(t.device, rp, NULL);
   draw_color_target_destroy(&t, &color, color_view, VK_NULL_HANDLE, VK_NULL_HANDLE);
   draw_color_target_destroy(&t, &ds, ds_view, VK_NULL_HANDLE, VK_NULL_HANDLE);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
