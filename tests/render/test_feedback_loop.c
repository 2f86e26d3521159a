/* VK_EXT_attachment_feedback_loop_layout, through the loader with the
 * validation layer, on Shale and (when it offers the extension) lavapipe:
 *  - the feature attachmentFeedbackLoopLayout is reported (Shale: TRUE) and
 *    enabled;
 *  - the image format query (vkGetPhysicalDeviceImageFormatProperties and
 *    ...2KHR) accepts VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT exactly
 *    for the formats and usages it accepts as colour or depth/stencil
 *    attachments, with the same limits;
 *  - a 192x128 R8G8B8A8 attachment (usage with the feedback loop bit,
 *    subpass layout ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT, a self-dependency
 *    with VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT, pipelines created with
 *    VK_PIPELINE_CREATE_COLOR_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT, the same
 *    view bound as a combined image sampler in the feedback loop layout):
 *    draw 1 writes a pattern over the whole image; a feedback-loop barrier;
 *    draw 2 covers the left half and writes the inverse of the texel it
 *    samples at its pixel mirrored left to right (in the right half, drawn
 *    by draw 1 only); a second barrier; draw 3 covers the right half and
 *    writes the channels of its mirrored texel (drawn by draw 2) swapped.
 *    The result is compared texel for texel with a CPU reference.
 * The mirrored reads cross Shale's 64x64 tiles, so they see earlier draws'
 * writes only because the barrier flushes the whole scene (sr_raster.h):
 * the spec promises only framebuffer-local visibility for in-pass
 * barriers, and Shale gives more (lavapipe as well). A second run reads
 * each pixel's own texel (the spec's framebuffer-local case): draw 2 over
 * the whole image writes the inverse of its own pixel; a third does that
 * without draw 1 and its barrier, so draw 2 reads the load op's clear
 * (0.2, 0.4, 0.6, 1): Shale failed it on every pixel when the attachment
 * was kept in tile memory (the clear never reached the image before the
 * draw sampled it). A fourth loops
 * through depth: a D32_SFLOAT attachment in the feedback loop layout (and
 * DEPTH_STENCIL_ATTACHMENT_FEEDBACK_LOOP pipelines) gets a depth pattern,
 * a barrier on the depth aspect, then a draw over the left half with depth
 * writes off writes to the colour attachment the depths it samples at the
 * mirrored pixels. With the in-pass flush removed, Shale fails the
 * mirrored reads of the colour and the depth runs at SHALE_THREADS=1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "fbloop_depth_frag_spv.h"
#include "fbloop_frag_spv.h"
#include "fbloop_vert_spv.h"

#define W 192
#define H 128
#define FB_LAYOUT VK_IMAGE_LAYOUT_ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT

static uint32_t
pattern(uint32_t x, uint32_t y)
{
   return ((x * 7 + y * 3) & 255) | ((x ^ (y * 5)) & 255) << 8 | ((y * 11 + 17) & 255) << 16 |
          0xffu << 24;
}

static uint32_t
invert(uint32_t v)
{
   return (v ^ 0x00ffffffu);
}

static uint32_t
swap_rb(uint32_t v)
{
   return (v & 0xff00ff00u) | (v & 0xff) << 16 | ((v >> 16) & 0xff);
}

/* The load op's clear colour of the cleared run, (0.2, 0.4, 0.6, 1) in
 * R8G8B8A8_UNORM (51, 102, 153, 255). */
#define CLEAR_TEXEL 0xff996633u

/* The runs of run_loop. */
enum loop_run {
   RUN_MIRRORED,     /* draws 1, 2 (left half), 3 (right half) */
   RUN_OWN,          /* draw 1, then draw 2 reads each pixel's own texel */
   RUN_CLEARED_OWN,  /* no draw 1: draw 2 reads the load op's clear */
};

/* The expected image of a run. */
static uint32_t
reference(uint32_t x, uint32_t y, enum loop_run run)
{
   if (run == RUN_CLEARED_OWN)
      return invert(CLEAR_TEXEL);
   if (run == RUN_OWN)
      return invert(pattern(x, y));
   if (x < W / 2)
      return invert(pattern(W - 1 - x, y));
   return swap_rb(invert(pattern(x, y)));
}

static void
check_format_query(struct vkt *t, const char *dn)
{
   PFN_vkGetPhysicalDeviceImageFormatProperties2KHR get2 =
      (PFN_vkGetPhysicalDeviceImageFormatProperties2KHR)vkGetInstanceProcAddr(
         t->instance, "vkGetPhysicalDeviceImageFormatProperties2KHR");
   CHECK(get2 != NULL, "%s: vkGetPhysicalDeviceImageFormatProperties2KHR", dn);
   if (!get2)
      return;
   static const VkFormat formats[] = {
      VK_FORMAT_R8G8B8A8_UNORM,      VK_FORMAT_B8G8R8A8_SRGB,        VK_FORMAT_R16G16B16A16_SFLOAT,
      VK_FORMAT_R32_UINT,            VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_D32_SFLOAT,
      VK_FORMAT_D24_UNORM_S8_UINT,   VK_FORMAT_D16_UNORM,            VK_FORMAT_S8_UINT,
      VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, VK_FORMAT_BC1_RGB_UNORM_BLOCK, VK_FORMAT_R8G8B8_UNORM,
   };
   unsigned accepted = 0;
   for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
      for (int att = 0; att < 2; att++) {
         const VkImageUsageFlags base =
            VK_IMAGE_USAGE_SAMPLED_BIT | (att ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT
                                              : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
         VkImageFormatProperties a, b;
         VkResult ra = vkGetPhysicalDeviceImageFormatProperties(
            t->pdev, formats[i], VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, base, 0, &a);
         VkResult rb = vkGetPhysicalDeviceImageFormatProperties(
            t->pdev, formats[i], VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
            base | VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT, 0, &b);
         CHECK(ra == rb, "%s: format %d usage %#x: %d, with the feedback loop bit %d", dn,
               formats[i], base, ra, rb);
         if (ra == VK_SUCCESS && rb == VK_SUCCESS) {
            accepted++;
            CHECK(memcmp(&a, &b, sizeof(a)) == 0,
                  "%s: format %d usage %#x: other limits with the feedback loop bit", dn,
                  formats[i], base);
         }
         VkPhysicalDeviceImageFormatInfo2 info = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
            .format = formats[i],
            .type = VK_IMAGE_TYPE_2D,
            .tiling = VK_IMAGE_TILING_OPTIMAL,
            .usage = base | VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT,
         };
         VkImageFormatProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
         VkResult r2 = get2(t->pdev, &info, &p2);
         CHECK(r2 == rb, "%s: format %d usage %#x: ...Properties2 %d, ...Properties %d", dn,
               formats[i], base, r2, rb);
      }
   }
   /* RGBA8 colour and D32 depth at least. */
   CHECK(accepted >= 2, "%s: the feedback loop bit accepted for %u format/usage pairs", dn,
         accepted);
}

struct loop {
   struct vkt_image img;
   VkImageView view;
   VkRenderPass rp;
   VkFramebuffer fb;
   VkSampler sampler;
   VkDescriptorSetLayout sl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipelineLayout layout;
   VkShaderModule vs, fs;
   VkPipeline pipeline;
   struct vkt_buffer readback;
};

static bool
loop_create(struct vkt *t, struct loop *l)
{
   const VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                   VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT;
   if (draw_image_create(t, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_SAMPLE_COUNT_1_BIT, usage,
                         VK_IMAGE_ASPECT_COLOR_BIT, &l->img, &l->view) != VK_SUCCESS)
      return false;
   const VkSubpassDependency deps[2] = {
      {
         .srcSubpass = 0,
         .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
         .dependencyFlags = VK_DEPENDENCY_BY_REGION_BIT | VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT,
      },
      draw_dep_color_to_transfer,
   };
   if (draw_color_pass_in(t, VK_FORMAT_R8G8B8A8_UNORM, FB_LAYOUT, deps, 2, &l->rp) != VK_SUCCESS ||
       draw_framebuffer(t, l->rp, &l->view, 1, W, H, 1, &l->fb) != VK_SUCCESS)
      return false;
   if (draw_nearest_sampler(t, &l->sampler) != VK_SUCCESS ||
       draw_single_set(t, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_SHADER_STAGE_FRAGMENT_BIT,
                       &l->sl, &l->pool, &l->set) != VK_SUCCESS)
      return false;
   /* The attachment itself, in the feedback loop layout. */
   const VkDescriptorImageInfo ii = { l->sampler, l->view, FB_LAYOUT };
   const VkWriteDescriptorSet w = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = l->set, .dstBinding = 0,
      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
      .pImageInfo = &ii,
   };
   vkUpdateDescriptorSets(t->device, 1, &w, 0, NULL);
   if (draw_pipeline_layout(t, l->sl, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                            16, &l->layout) != VK_SUCCESS)
      return false;
   VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = sizeof(fbloop_vert_spv),
      .pCode = fbloop_vert_spv,
   };
   if (vkCreateShaderModule(t->device, &smci, NULL, &l->vs) != VK_SUCCESS)
      return false;
   smci.codeSize = sizeof(fbloop_frag_spv);
   smci.pCode = fbloop_frag_spv;
   if (vkCreateShaderModule(t->device, &smci, NULL, &l->fs) != VK_SUCCESS)
      return false;
   const struct draw_pipeline_info pi = {
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .render_pass = l->rp,
      .color_count = 1,
      .dynamic_viewport_scissor = true,
   };
   static struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, NULL, &pi, l->vs, l->fs, l->layout);
   st.info.flags |= VK_PIPELINE_CREATE_COLOR_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT;
   if (vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &st.info, NULL, &l->pipeline) !=
       VK_SUCCESS)
      return false;
   return vkt_buffer_create(t, W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &l->readback) ==
          VK_SUCCESS;
}

static void
loop_destroy(struct vkt *t, struct loop *l)
{
   vkt_buffer_destroy(t, &l->readback);
   vkDestroyPipeline(t->device, l->pipeline, NULL);
   vkDestroyShaderModule(t->device, l->vs, NULL);
   vkDestroyShaderModule(t->device, l->fs, NULL);
   vkDestroyPipelineLayout(t->device, l->layout, NULL);
   vkDestroyDescriptorPool(t->device, l->pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, l->sl, NULL);
   vkDestroySampler(t->device, l->sampler, NULL);
   vkDestroyFramebuffer(t->device, l->fb, NULL);
   vkDestroyRenderPass(t->device, l->rp, NULL);
   vkDestroyImageView(t->device, l->view, NULL);
   vkt_image_destroy(t, &l->img);
}

/* The feedback-loop barrier: attachment writes before it, sampled reads
 * after it, the image staying in the feedback loop layout. */
static void
loop_barrier(VkCommandBuffer cb, VkImage image)
{
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
      .oldLayout = FB_LAYOUT,
      .newLayout = FB_LAYOUT,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                        VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                        VK_DEPENDENCY_BY_REGION_BIT | VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT, 0, NULL,
                        0, NULL, 1, &b);
}

static void
loop_draw(VkCommandBuffer cb, const struct loop *l, float x0, float x1, int mode)
{
   struct {
      float x[2];
      int32_t mode;
      int32_t pad;
   } pc = { { x0, x1 }, mode, 0 };
   vkCmdPushConstants(cb, l->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                      sizeof(pc), &pc);
   vkCmdDraw(cb, 4, 1, 0, 0);
}

/* RUN_OWN: draw 2 over the whole image reads each pixel's own texel, no
 * draw 3. RUN_CLEARED_OWN: the same without draw 1 and its barrier, so
 * draw 2 reads the load op's clear (the load op happens before the
 * subpass's commands): an attachment in the feedback loop layout must not
 * be kept in the rasterizer's tile memory, where the sampler would not see
 * the clear. */
static void
run_loop(struct vkt *t, struct loop *l, enum loop_run run)
{
   const char *dn = vkt_driver_name(t->driver);
   const bool own = run != RUN_MIRRORED;
   const char *what = run == RUN_MIRRORED ? "mirrored" : run == RUN_OWN ? "own texel"
                                                                        : "cleared own texel";
   VkCommandBuffer cb = vkt_begin(t);
   const VkClearValue clear = {
      .color = { .float32 = { run == RUN_CLEARED_OWN ? 0.2f : 0.0f,
                              run == RUN_CLEARED_OWN ? 0.4f : 0.0f,
                              run == RUN_CLEARED_OWN ? 0.6f : 0.0f,
                              run == RUN_CLEARED_OWN ? 1.0f : 0.0f } },
   };
   const VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = l->rp,
      .framebuffer = l->fb,
      .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 1,
      .pClearValues = &clear,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, l->pipeline);
   const VkViewport vp = { 0, 0, W, H, 0.0f, 1.0f };
   const VkRect2D sc = { { 0, 0 }, { W, H } };
   vkCmdSetViewport(cb, 0, 1, &vp);
   vkCmdSetScissor(cb, 0, 1, &sc);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, l->layout, 0, 1, &l->set, 0,
                           NULL);
   if (run != RUN_CLEARED_OWN) {
      loop_draw(cb, l, -1.0f, 1.0f, 0);
      loop_barrier(cb, l->img.image);
   }
   if (own) {
      loop_draw(cb, l, -1.0f, 1.0f, 3);
   } else {
      loop_draw(cb, l, -1.0f, 0.0f, 1);
      loop_barrier(cb, l->img.image);
      loop_draw(cb, l, 0.0f, 1.0f, 2);
   }
   vkCmdEndRenderPass(cb);
   draw_copy_to_buffer(cb, l->img.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, l->readback.buffer, 0);
   draw_host_barrier(cb);
   VkResult r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", dn, r);
   const uint32_t *px = l->readback.map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         const uint32_t want = reference(x, y, run);
         if (px[y * W + x] != want && bad++ < 5)
            fprintf(stderr, "%s: %s: pixel (%u, %u) %08x, expected %08x\n", dn, what, x, y,
                    px[y * W + x], want);
      }
   }
   CHECK(bad == 0, "%s: %s reads: %u of %u pixels differ from the reference", dn, what, bad,
         W * H);
}

/* A depth feedback loop: draw 1 writes a depth pattern into a D32_SFLOAT
 * attachment in the feedback loop layout (depth test ALWAYS, writes on);
 * a feedback-loop barrier on the depth aspect; draw 2, with depth writes
 * off, covers the left half and writes to the colour attachment the depth
 * it samples from that same attachment at the mirrored pixel. */
static void
run_depth(struct vkt *t)
{
   const char *dn = vkt_driver_name(t->driver);
   struct vkt_image color = { 0 }, depth = { 0 };
   VkImageView cview = VK_NULL_HANDLE, dview = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkSampler sampler = VK_NULL_HANDLE;
   VkDescriptorSetLayout sl = VK_NULL_HANDLE;
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   VkPipelineLayout layout = VK_NULL_HANDLE;
   VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
   VkPipeline pipes[2] = { VK_NULL_HANDLE, VK_NULL_HANDLE };
   struct vkt_buffer readback = { 0 };
   bool ok =
      draw_image_create(t, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_SAMPLE_COUNT_1_BIT,
                        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                        VK_IMAGE_ASPECT_COLOR_BIT, &color, &cview) == VK_SUCCESS &&
      draw_image_create(t, VK_FORMAT_D32_SFLOAT, W, H, VK_SAMPLE_COUNT_1_BIT,
                        VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                           VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT,
                        VK_IMAGE_ASPECT_DEPTH_BIT, &depth, &dview) == VK_SUCCESS;
   const VkAttachmentDescription atts[2] = {
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { 0, VK_FORMAT_D32_SFLOAT, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED, FB_LAYOUT },
   };
   const VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference dref = { 1, FB_LAYOUT };
   const VkSubpassDescription sp = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &cref,
      .pDepthStencilAttachment = &dref,
   };
   const VkPipelineStageFlags ds_stages = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                          VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
   const VkSubpassDependency deps[2] = {
      {
         .srcSubpass = 0,
         .dstSubpass = 0,
         .srcStageMask = ds_stages,
         .dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
         .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
         .dependencyFlags = VK_DEPENDENCY_BY_REGION_BIT | VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT,
      },
      draw_dep_color_to_transfer,
   };
   const VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2,
      .pAttachments = atts,
      .subpassCount = 1,
      .pSubpasses = &sp,
      .dependencyCount = 2,
      .pDependencies = deps,
   };
   const VkImageView views[2] = { cview, dview };
   ok = ok && vkCreateRenderPass(t->device, &rpci, NULL, &rp) == VK_SUCCESS &&
        draw_framebuffer(t, rp, views, 2, W, H, 1, &fb) == VK_SUCCESS &&
        draw_nearest_sampler(t, &sampler) == VK_SUCCESS &&
        draw_single_set(t, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                        VK_SHADER_STAGE_FRAGMENT_BIT, &sl, &pool, &set) == VK_SUCCESS &&
        draw_pipeline_layout(t, sl, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                             16, &layout) == VK_SUCCESS;
   if (ok) {
      const VkDescriptorImageInfo ii = { sampler, dview, FB_LAYOUT };
      const VkWriteDescriptorSet w = {
         .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0,
         .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
         .pImageInfo = &ii,
      };
      vkUpdateDescriptorSets(t->device, 1, &w, 0, NULL);
      VkShaderModuleCreateInfo smci = {
         .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
         .codeSize = sizeof(fbloop_vert_spv),
         .pCode = fbloop_vert_spv,
      };
      ok = vkCreateShaderModule(t->device, &smci, NULL, &vs) == VK_SUCCESS;
      smci.codeSize = sizeof(fbloop_depth_frag_spv);
      smci.pCode = fbloop_depth_frag_spv;
      ok = ok && vkCreateShaderModule(t->device, &smci, NULL, &fs) == VK_SUCCESS;
   }
   for (int i = 0; ok && i < 2; i++) {
      /* Draw 1 writes depth (test ALWAYS); draw 2 only reads it. */
      const VkPipelineDepthStencilStateCreateInfo dss = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
         .depthTestEnable = i == 0,
         .depthWriteEnable = i == 0,
         .depthCompareOp = VK_COMPARE_OP_ALWAYS,
      };
      const struct draw_pipeline_info pi = {
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
         .polygon_mode = VK_POLYGON_MODE_FILL,
         .render_pass = rp,
         .color_count = 1,
         .dynamic_viewport_scissor = true,
         .depth_stencil = &dss,
      };
      static struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, NULL, &pi, vs, fs, layout);
      st.info.flags |= VK_PIPELINE_CREATE_DEPTH_STENCIL_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT;
      ok = vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &st.info, NULL, &pipes[i]) ==
           VK_SUCCESS;
   }
   ok = ok && vkt_buffer_create(t, W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &readback) ==
                 VK_SUCCESS;
   CHECK(ok, "%s: depth feedback loop image, render pass and pipelines", dn);
   if (ok) {
      VkCommandBuffer cb = vkt_begin(t);
      const VkClearValue clears[2] = { { .color = { .float32 = { 0.0f, 0.0f, 1.0f, 1.0f } } },
                                       { .depthStencil = { 1.0f, 0 } } };
      const VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp,
         .framebuffer = fb,
         .renderArea = { { 0, 0 }, { W, H } },
         .clearValueCount = 2,
         .pClearValues = clears,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      const VkViewport vp = { 0, 0, W, H, 0.0f, 1.0f };
      const VkRect2D sc = { { 0, 0 }, { W, H } };
      vkCmdSetViewport(cb, 0, 1, &vp);
      vkCmdSetScissor(cb, 0, 1, &sc);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, NULL);
      struct {
         float x[2];
         int32_t mode, pad;
      } pc = { { -1.0f, 1.0f }, 0, 0 };
      const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[0]);
      vkCmdPushConstants(cb, layout, stages, 0, sizeof(pc), &pc);
      vkCmdDraw(cb, 4, 1, 0, 0);
      const VkImageMemoryBarrier b = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
         .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
         .oldLayout = FB_LAYOUT,
         .newLayout = FB_LAYOUT,
         .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .image = depth.image,
         .subresourceRange = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 },
      };
      vkCmdPipelineBarrier(cb, ds_stages, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                           VK_DEPENDENCY_BY_REGION_BIT | VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT, 0,
                           NULL, 0, NULL, 1, &b);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[1]);
      pc.x[1] = 0.0f;
      pc.mode = 1;
      vkCmdPushConstants(cb, layout, stages, 0, sizeof(pc), &pc);
      vkCmdDraw(cb, 4, 1, 0, 0);
      vkCmdEndRenderPass(cb);
      draw_copy_to_buffer(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, readback.buffer, 0);
      draw_host_barrier(cb);
      VkResult r = vkt_submit_wait(t, cb);
      CHECK(r == VK_SUCCESS, "%s: depth: submit: %d", dn, r);
      const uint32_t *px = readback.map;
      unsigned bad = 0;
      for (uint32_t y = 0; y < H; y++) {
         for (uint32_t x = 0; x < W; x++) {
            const uint32_t want =
               x < W / 2 ? (0xff000000u | (((W - 1 - x) * 7 + y * 3) & 255)) : 0xff000000u;
            if (px[y * W + x] != want && bad++ < 5)
               fprintf(stderr, "%s: depth: pixel (%u, %u) %08x, expected %08x\n", dn, x, y,
                       px[y * W + x], want);
         }
      }
      CHECK(bad == 0, "%s: depth reads: %u of %u pixels differ from the reference", dn, bad,
            W * H);
   }
   vkt_buffer_destroy(t, &readback);
   for (int i = 0; i < 2; i++)
      vkDestroyPipeline(t->device, pipes[i], NULL);
   vkDestroyShaderModule(t->device, vs, NULL);
   vkDestroyShaderModule(t->device, fs, NULL);
   vkDestroyPipelineLayout(t->device, layout, NULL);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl, NULL);
   vkDestroySampler(t->device, sampler, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkDestroyImageView(t->device, cview, NULL);
   vkDestroyImageView(t->device, dview, NULL);
   vkt_image_destroy(t, &color);
   vkt_image_destroy(t, &depth);
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceAttachmentFeedbackLoopLayoutFeaturesEXT ff = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ATTACHMENT_FEEDBACK_LOOP_LAYOUT_FEATURES_EXT };
   struct vkt_options o;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_ATTACHMENT_FEEDBACK_LOOP_LAYOUT_EXTENSION_NAME,
                             &ff, NULL, NULL, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE)
      CHECK(has && ff.attachmentFeedbackLoopLayout,
            "shale: VK_EXT_attachment_feedback_loop_layout %d, attachmentFeedbackLoopLayout %u",
            has, ff.attachmentFeedbackLoopLayout);
   if (!has || !ff.attachmentFeedbackLoopLayout) {
      fprintf(stderr, "%s: no attachment feedback loop layout, not run\n", dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_ATTACHMENT_FEEDBACK_LOOP_LAYOUT_EXTENSION_NAME };
   VkPhysicalDeviceAttachmentFeedbackLoopLayoutFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ATTACHMENT_FEEDBACK_LOOP_LAYOUT_FEATURES_EXT,
      .attachmentFeedbackLoopLayout = VK_TRUE,
   };
   o.device_extensions = dexts;
   o.device_extension_count = 1;
   o.device_pnext = &enable;
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(false, "%s: device with VK_EXT_attachment_feedback_loop_layout", dn);
      return;
   }
   check_format_query(&t, dn);
   struct loop l;
   memset(&l, 0, sizeof(l));
   bool ok = loop_create(&t, &l);
   CHECK(ok, "%s: feedback loop image, render pass and pipeline", dn);
   if (ok) {
      run_loop(&t, &l, RUN_MIRRORED);
      run_loop(&t, &l, RUN_OWN);
      run_loop(&t, &l, RUN_CLEARED_OWN);
   }
   loop_destroy(&t, &l);
   run_depth(&t);
   vkt_finish(&t);
}

int
main(void)
{
   /* Debian's validation layer (1.3.239) checks draws against
    * VUID-vkCmdDraw-None-06538 (no non-attachment reads of an attachment
    * the subpass writes), which later specs replaced by VUIDs 09000-09002
    * that exempt attachments in the feedback loop layout: it reports every
    * draw here, on lavapipe as well. That one VUID is filtered; every other
    * message still fails the test. */
   setenv("VK_LAYER_MESSAGE_ID_FILTER", "VUID-vkCmdDraw-None-06538", 1);
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
