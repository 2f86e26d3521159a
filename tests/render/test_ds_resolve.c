/*
 * Depth/stencil resolves (VK_KHR_depth_stencil_resolve) and dynamic
 * rendering (VK_KHR_dynamic_rendering) through the loader and the
 * validation layer: a 4x D32_SFLOAT, D24_UNORM_S8_UINT or (stencil only)
 * S8_UINT attachment whose
 * four samples hold different depths and stencil values (one draw per
 * sample, each pipeline with a pSampleMask of that sample alone, a
 * constant depth and a stencil REPLACE of its reference; the left and right
 * halves of the image get different sets) is resolved into a 1x image of
 * the same format with each mode the device reports, through a
 * VK_KHR_create_renderpass2 render pass (VkSubpassDescriptionDepthStencilResolve)
 * and through vkCmdBeginRenderingKHR (VkRenderingAttachmentInfo's resolve
 * mode and view), and compared with a CPU reference of the mode: sample 0,
 * the average, the minimum and the maximum differ in every pixel, so a
 * wrong mode fails. Mixed modes and a NONE aspect (its pre-cleared value
 * must stay) check independentResolve and independentResolveNone. A
 * dynamic rendering instance with a 4x colour attachment as well checks
 * the colour resolve (AVERAGE) beside the depth one.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "fullscreen_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define W 8
#define H 4
#define NONE VK_RESOLVE_MODE_NONE
#define SZ VK_RESOLVE_MODE_SAMPLE_ZERO_BIT
#define AVG VK_RESOLVE_MODE_AVERAGE_BIT
#define MIN VK_RESOLVE_MODE_MIN_BIT
#define MAX VK_RESOLVE_MODE_MAX_BIT
#define CFMT VK_FORMAT_R8G8B8A8_UNORM

/* Per half (x < W/2, x >= W/2), per sample: depth and stencil. Sample 0,
 * the average, the minimum and the maximum all differ. */
static const float depth_of[2][4] = {
   { 0.25f, 0.75f, 0.125f, 0.5f },       /* avg 0.40625 */
   { 0.375f, 0.875f, 0.0625f, 0.625f },  /* avg 0.484375 */
};
static const uint8_t stencil_of[2][4] = { { 5, 9, 3, 7 }, { 60, 200, 17, 100 } };
static const float color_of[4][4] = {
   { 1, 0, 0, 1 }, { 0, 1, 0, 1 }, { 0, 0, 1, 1 }, { 1, 1, 0.2f, 1 },
};
/* What the resolve image holds before: a NONE aspect keeps it. */
#define PRE_DEPTH 1.0f
#define PRE_STENCIL 0xab

static PFN_vkCreateRenderPass2KHR create_rp2;
static PFN_vkCmdBeginRenderingKHR begin_rendering;
static PFN_vkCmdEndRenderingKHR end_rendering;

static uint32_t
d24(float z)
{
   return (uint32_t)((double)z * 16777215.0 + 0.5);
}

/* The reference of `mode` over the four samples of half h. */
static float
ref_depth(int h, VkResolveModeFlagBits mode)
{
   const float *d = depth_of[h];
   float v = d[0];
   for (int s = 1; s < 4; s++) {
      if (mode == MIN && d[s] < v)
         v = d[s];
      if (mode == MAX && d[s] > v)
         v = d[s];
   }
   if (mode == AVG)
      v = (d[0] + d[1] + d[2] + d[3]) / 4;
   if (mode == NONE)
      v = PRE_DEPTH;
   return v;
}

static uint32_t
ref_d24(int h, VkResolveModeFlagBits mode)
{
   if (mode != AVG)
      return d24(ref_depth(h, mode));
   double sum = 0;
   for (int s = 0; s < 4; s++)
      sum += d24(depth_of[h][s]);
   return (uint32_t)(sum / 4 + 0.5);
}

static uint8_t
ref_stencil(int h, VkResolveModeFlagBits mode)
{
   const uint8_t *st = stencil_of[h];
   uint8_t v = st[0];
   for (int s = 1; s < 4; s++) {
      if (mode == MIN && st[s] < v)
         v = st[s];
      if (mode == MAX && st[s] > v)
         v = st[s];
   }
   return mode == NONE ? PRE_STENCIL : v;
}

static const char *
mode_name(VkResolveModeFlagBits m)
{
   return m == NONE ? "NONE" : m == SZ ? "SAMPLE_ZERO" : m == AVG ? "AVERAGE" : m == MIN ? "MIN"
                                                                                   : "MAX";
}

struct ds_case {
   VkFormat format;
   VkResolveModeFlagBits depth_mode, stencil_mode;
   bool dynamic;   /* vkCmdBeginRenderingKHR instead of a render pass */
   bool color;     /* dynamic only: a 4x colour attachment resolved too */
};

static void
run_case(struct vkt *t, const struct ds_case *c)
{
   /* S8_UINT: a stencil-only attachment. */
   const bool has_depth = c->format != VK_FORMAT_S8_UINT;
   const bool stencil = draw_has_stencil(c->format) || !has_depth;
   const VkImageAspectFlags aspects = (has_depth ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) |
                                      (stencil ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
   char label[128];
   snprintf(label, sizeof(label), "%s %s depth %s stencil %s%s",
            c->format == VK_FORMAT_D32_SFLOAT ? "D32_SFLOAT"
            : has_depth                       ? "D24_UNORM_S8_UINT"
                                              : "S8_UINT",
            c->dynamic ? "dynamic rendering" : "render pass",
            has_depth ? mode_name(c->depth_mode) : "-",
            stencil ? mode_name(c->stencil_mode) : "-", c->color ? " + colour" : "");

   struct vkt_image ms = { 0 }, rs = { 0 }, cms = { 0 }, crs = { 0 };
   VkImageView ms_view = VK_NULL_HANDLE, rs_view = VK_NULL_HANDLE;
   VkImageView cms_view = VK_NULL_HANDLE, crs_view = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkPipelineLayout layout = VK_NULL_HANDLE;
   struct draw_pipeline pipes[4];
   memset(pipes, 0, sizeof(pipes));
   struct vkt_buffer rb = { 0 };
   VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;

   CHECK_VK(draw_image_create(t, c->format, W, H, VK_SAMPLE_COUNT_4_BIT,
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, aspects, &ms, &ms_view));
   CHECK_VK(draw_image_create(t, c->format, W, H, VK_SAMPLE_COUNT_1_BIT,
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                              aspects, &rs, &rs_view));
   if (c->color) {
      CHECK_VK(draw_image_create(t, CFMT, W, H, VK_SAMPLE_COUNT_4_BIT,
                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
                                 &cms, &cms_view));
      CHECK_VK(draw_image_create(t, CFMT, W, H, VK_SAMPLE_COUNT_1_BIT,
                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                 VK_IMAGE_ASPECT_COLOR_BIT, &crs, &crs_view));
   }
   CHECK_VK(vkt_buffer_create(t, W * H * (4 + 1 + 4), VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb));

   if (!c->dynamic) {
      VkAttachmentDescription2 atts[2] = {
         { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
           .format = c->format, .samples = VK_SAMPLE_COUNT_4_BIT,
           .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
           .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
           .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
           .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
           .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
         { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
           .format = c->format, .samples = VK_SAMPLE_COUNT_1_BIT,
           .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
           .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
           .stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE,
           .initialLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
           .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      };
      VkAttachmentReference2 ds_ref = {
         .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, .attachment = 0,
         .layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, .aspectMask = aspects,
      };
      VkAttachmentReference2 res_ref = ds_ref;
      res_ref.attachment = 1;
      VkSubpassDescriptionDepthStencilResolve dsr = {
         .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE,
         .depthResolveMode = has_depth ? c->depth_mode : NONE,
         .stencilResolveMode = stencil ? c->stencil_mode : NONE,
         .pDepthStencilResolveAttachment = &res_ref,
      };
      VkSubpassDescription2 sp = {
         .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2, .pNext = &dsr,
         .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
         .pDepthStencilAttachment = &ds_ref,
      };
      VkSubpassDependency2 deps[2] = {
         { .sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2,
           .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
           .srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
           .dstStageMask = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                           VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
           .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
           .dstAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT },
         { .sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2,
           .srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
           .srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
           .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
           .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
           .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT },
      };
      VkRenderPassCreateInfo2 rpci = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
         .attachmentCount = 2, .pAttachments = atts,
         .subpassCount = 1, .pSubpasses = &sp,
         .dependencyCount = 2, .pDependencies = deps,
      };
      CHECK_VK(create_rp2(t->device, &rpci, NULL, &rp));
      VkImageView views[2] = { ms_view, rs_view };
      CHECK_VK(draw_framebuffer(t, rp, views, 2, W, H, 1, &fb));
   }

   /* Four pipelines, one per sample (pSampleMask), depth and stencil
    * always written. */
   CHECK_VK(draw_pipeline_layout(t, VK_NULL_HANDLE,
                                 VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 20,
                                 &layout));
   VkShaderModuleCreateInfo smci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                     .codeSize = sizeof(fullscreen_vert_spv),
                                     .pCode = fullscreen_vert_spv };
   CHECK_VK(vkCreateShaderModule(t->device, &smci, NULL, &vs));
   if (c->color) {
      smci.codeSize = sizeof(const_float_frag_spv);
      smci.pCode = const_float_frag_spv;
      CHECK_VK(vkCreateShaderModule(t->device, &smci, NULL, &fs));
   }
   VkStencilOpState sop = {
      .failOp = VK_STENCIL_OP_KEEP, .passOp = VK_STENCIL_OP_REPLACE,
      .depthFailOp = VK_STENCIL_OP_KEEP, .compareOp = VK_COMPARE_OP_ALWAYS,
      .compareMask = 0xff, .writeMask = 0xff,
   };
   VkPipelineDepthStencilStateCreateInfo dss = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = has_depth, .depthWriteEnable = has_depth,
      .depthCompareOp = VK_COMPARE_OP_ALWAYS,
      .stencilTestEnable = stencil, .front = sop, .back = sop,
   };
   VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
   };
   const VkDynamicState dyn[] = { VK_DYNAMIC_STATE_STENCIL_REFERENCE };
   const VkFormat cfmt = CFMT;
   VkPipelineRenderingCreateInfoKHR prci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO_KHR,
      .colorAttachmentCount = c->color ? 1 : 0,
      .pColorAttachmentFormats = &cfmt,
      .depthAttachmentFormat = has_depth ? c->format : VK_FORMAT_UNDEFINED,
      .stencilAttachmentFormat = stencil ? c->format : VK_FORMAT_UNDEFINED,
   };
   for (uint32_t s = 0; s < 4; s++) {
      const VkSampleMask mask = 1u << s;
      VkPipelineMultisampleStateCreateInfo msi = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
         .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT, .pSampleMask = &mask,
      };
      struct draw_pipeline_info pi = {
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .cull_mode = VK_CULL_MODE_NONE, .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
         .polygon_mode = VK_POLYGON_MODE_FILL,
         .depth_stencil = &dss, .dynamic_viewport_scissor = true,
         .vertex_input = &vi, .dynamic_states = dyn, .dynamic_state_count = 1,
         .multisample = &msi, .vs_module = vs, .fs_module = fs, .layout = layout,
         .render_pass = rp, .color_count = c->color ? 1 : 0,
      };
      struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, NULL, &pi, vs, fs, layout);
      if (c->dynamic)
         st.info.pNext = &prci;
      CHECK_VK(vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &st.info, NULL,
                                         &pipes[s].pipeline));
   }

   VkCommandBuffer cb = vkt_begin(t);
   /* The resolve image starts as PRE_DEPTH / PRE_STENCIL. */
   vkt_image_barrier(cb, rs.image, aspects, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkClearDepthStencilValue pre = { PRE_DEPTH, PRE_STENCIL };
   VkImageSubresourceRange range = { aspects, 0, 1, 0, 1 };
   vkCmdClearDepthStencilImage(cb, rs.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &pre, 1, &range);
   vkt_image_barrier(cb, rs.image, aspects, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
   const VkRect2D area = { { 0, 0 }, { W, H } };
   if (c->dynamic) {
      vkt_image_barrier(cb, ms.image, aspects, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
      if (c->color) {
         vkt_image_barrier(cb, cms.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
         vkt_image_barrier(cb, crs.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL);
      }
      VkRenderingAttachmentInfoKHR color = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO_KHR,
         .imageView = cms_view, .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .resolveMode = AVG, .resolveImageView = crs_view,
         .resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      };
      VkRenderingAttachmentInfoKHR depth = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO_KHR,
         .imageView = ms_view, .imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
         .resolveMode = c->depth_mode,
         .resolveImageView = c->depth_mode != NONE ? rs_view : VK_NULL_HANDLE,
         .resolveImageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .clearValue.depthStencil = { 1.0f, 0 },
      };
      VkRenderingAttachmentInfoKHR sten = depth;
      sten.resolveMode = c->stencil_mode;
      sten.resolveImageView = c->stencil_mode != NONE ? rs_view : VK_NULL_HANDLE;
      VkRenderingInfoKHR ri = {
         .sType = VK_STRUCTURE_TYPE_RENDERING_INFO_KHR,
         .renderArea = area, .layerCount = 1,
         .colorAttachmentCount = c->color ? 1 : 0, .pColorAttachments = &color,
         .pDepthAttachment = has_depth ? &depth : NULL,
         .pStencilAttachment = stencil ? &sten : NULL,
      };
      begin_rendering(cb, &ri);
   } else {
      VkClearValue clear[2] = { { .depthStencil = { 1.0f, 0 } } };
      VkRenderPassBeginInfo bi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb, .renderArea = area,
         .clearValueCount = 2, .pClearValues = clear,
      };
      vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
   }
   VkViewport vp = { 0, 0, W, H, 0, 1 };
   vkCmdSetViewport(cb, 0, 1, &vp);
   for (int h = 0; h < 2; h++) {
      VkRect2D sc = { { h * W / 2, 0 }, { W / 2, H } };
      vkCmdSetScissor(cb, 0, 1, &sc);
      for (uint32_t s = 0; s < 4; s++) {
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[s].pipeline);
         float pc[5] = { color_of[s][0], color_of[s][1], color_of[s][2], color_of[s][3],
                         depth_of[h][s] };
         vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                            0, sizeof(pc), pc);
         vkCmdSetStencilReference(cb, VK_STENCIL_FACE_FRONT_AND_BACK, stencil_of[h][s]);
         vkCmdDraw(cb, 3, 1, 0, 0);
      }
   }
   if (c->dynamic) {
      end_rendering(cb);
      vkt_image_barrier(cb, rs.image, aspects, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      if (c->color)
         vkt_image_barrier(cb, crs.image, VK_IMAGE_ASPECT_COLOR_BIT,
                           VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   } else {
      vkCmdEndRenderPass(cb);
   }
   if (has_depth)
      draw_copy_to_buffer(cb, rs.image, VK_IMAGE_ASPECT_DEPTH_BIT, W, H, rb.buffer, 0);
   if (stencil)
      draw_copy_to_buffer(cb, rs.image, VK_IMAGE_ASPECT_STENCIL_BIT, W, H, rb.buffer, W * H * 4);
   if (c->color)
      draw_copy_to_buffer(cb, crs.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, rb.buffer, W * H * 5);
   draw_host_barrier(cb);
   CHECK_VK(vkt_submit_wait(t, cb));

   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         const int h = x >= W / 2;
         const uint32_t i = y * W + x;
         const uint8_t *p = (const uint8_t *)rb.map;
         if (!has_depth) {
            /* no depth aspect */
         } else if (c->format == VK_FORMAT_D32_SFLOAT) {
            float got, want = ref_depth(h, c->depth_mode);
            memcpy(&got, p + i * 4, 4);
            if (got != want && bad++ < 4)
               fprintf(stderr, "%s: (%u,%u) depth %.9g, expected %.9g\n", label, x, y, got, want);
         } else {
            uint32_t got, want = ref_d24(h, c->depth_mode);
            memcpy(&got, p + i * 4, 4);
            got &= 0xffffff;
            /* AVERAGE of 24-bit depths: the mean of the samples, within
             * one unit of rounding; the other modes exactly. */
            uint32_t diff = got > want ? got - want : want - got;
            if (diff > (c->depth_mode == AVG ? 1u : 0u) && bad++ < 4)
               fprintf(stderr, "%s: (%u,%u) depth 0x%06x, expected 0x%06x\n", label, x, y, got,
                       want);
         }
         if (stencil) {
            uint8_t got = p[W * H * 4 + i], want = ref_stencil(h, c->stencil_mode);
            if (got != want && bad++ < 4)
               fprintf(stderr, "%s: (%u,%u) stencil %u, expected %u\n", label, x, y, got, want);
         }
         if (c->color) {
            const uint8_t *got = p + W * H * 5 + i * 4;
            for (int k = 0; k < 4; k++) {
               float avg = (color_of[0][k] + color_of[1][k] + color_of[2][k] + color_of[3][k]) / 4;
               int want = (int)lrintf(avg * 255.0f);
               if (abs(got[k] - want) > 1 && bad++ < 4)
                  fprintf(stderr, "%s: (%u,%u) colour %d = %u, expected %d\n", label, x, y, k,
                          got[k], want);
            }
         }
      }
   }
   CHECK(bad == 0, "%s: %u wrong values", label, bad);
   printf("%s: %s\n", label, bad ? "FAILED" : "ok");

   for (uint32_t s = 0; s < 4; s++)
      vkDestroyPipeline(t->device, pipes[s].pipeline, NULL);
   vkDestroyPipelineLayout(t->device, layout, NULL);
   vkDestroyShaderModule(t->device, vs, NULL);
   vkDestroyShaderModule(t->device, fs, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkt_buffer_destroy(t, &rb);
   VkImageView views[] = { ms_view, rs_view, cms_view, crs_view };
   for (int i = 0; i < 4; i++)
      vkDestroyImageView(t->device, views[i], NULL);
   vkt_image_destroy(t, &ms);
   vkt_image_destroy(t, &rs);
   vkt_image_destroy(t, &cms);
   vkt_image_destroy(t, &crs);
}

int
main(void)
{
   const char *inst_ext[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   const char *dev_ext[] = { VK_KHR_MULTIVIEW_EXTENSION_NAME,
                             VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME,
                             VK_KHR_DEPTH_STENCIL_RESOLVE_EXTENSION_NAME,
                             VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME };
   VkPhysicalDeviceDynamicRenderingFeaturesKHR drf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR,
      .dynamicRendering = VK_TRUE,
   };
   struct vkt_options opts = {
      .driver = VKT_SHALE,
      .instance_extensions = inst_ext, .instance_extension_count = 1,
      .api_version = VK_API_VERSION_1_1,
      .device_extensions = dev_ext, .device_extension_count = 4,
      .device_pnext = &drf,
   };
   struct vkt t;
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device with depth_stencil_resolve and dynamic_rendering not available");
      return check_finish();
   }
   /* What the device claims. */
   VkPhysicalDeviceDynamicRenderingFeaturesKHR f = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES_KHR,
   };
   VkPhysicalDeviceFeatures2 f2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f };
   vkGetPhysicalDeviceFeatures2(t.pdev, &f2);
   CHECK(f.dynamicRendering, "dynamicRendering not reported");
   VkPhysicalDeviceDepthStencilResolveProperties p = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_STENCIL_RESOLVE_PROPERTIES,
   };
   VkPhysicalDeviceProperties2 p2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &p };
   vkGetPhysicalDeviceProperties2(t.pdev, &p2);
   CHECK(p.supportedDepthResolveModes == (SZ | AVG | MIN | MAX) &&
         p.supportedStencilResolveModes == (SZ | MIN | MAX) && p.independentResolveNone &&
         p.independentResolve,
         "depth/stencil resolve properties 0x%x 0x%x %u %u", p.supportedDepthResolveModes,
         p.supportedStencilResolveModes, p.independentResolveNone, p.independentResolve);

   create_rp2 = (PFN_vkCreateRenderPass2KHR)vkGetDeviceProcAddr(t.device, "vkCreateRenderPass2KHR");
   begin_rendering =
      (PFN_vkCmdBeginRenderingKHR)vkGetDeviceProcAddr(t.device, "vkCmdBeginRenderingKHR");
   end_rendering = (PFN_vkCmdEndRenderingKHR)vkGetDeviceProcAddr(t.device, "vkCmdEndRenderingKHR");
   CHECK(create_rp2 && begin_rendering && end_rendering, "missing entry points");
   if (create_rp2 && begin_rendering && end_rendering) {
      static const VkResolveModeFlagBits d32[] = { SZ, AVG, MIN, MAX };
      static const VkResolveModeFlagBits d24s8[][2] = {
         { SZ, SZ }, { AVG, MIN }, { MIN, MAX }, { MAX, SZ }, { NONE, MAX }, { MIN, NONE },
      };
      for (int dyn = 0; dyn < 2; dyn++) {
         for (unsigned i = 0; i < 4; i++) {
            struct ds_case c = { VK_FORMAT_D32_SFLOAT, d32[i], NONE, dyn, false };
            run_case(&t, &c);
         }
         for (unsigned i = 0; i < 6; i++) {
            struct ds_case c = { VK_FORMAT_D24_UNORM_S8_UINT, d24s8[i][0], d24s8[i][1], dyn,
                                 false };
            run_case(&t, &c);
         }
         /* A stencil-only attachment (S8_UINT, when it is one). */
         VkFormatProperties fp;
         vkGetPhysicalDeviceFormatProperties(t.pdev, VK_FORMAT_S8_UINT, &fp);
         if (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) {
            static const VkResolveModeFlagBits s8[] = { SZ, MIN, MAX };
            for (unsigned i = 0; i < 3; i++) {
               struct ds_case c = { VK_FORMAT_S8_UINT, NONE, s8[i], dyn, false };
               run_case(&t, &c);
            }
         }
      }
      struct ds_case c = { VK_FORMAT_D32_SFLOAT, MIN, NONE, true, true };
      run_case(&t, &c);
      struct ds_case c2 = { VK_FORMAT_D24_UNORM_S8_UINT, MAX, MIN, true, true };
      run_case(&t, &c2);
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t.pdev, VK_FORMAT_S8_UINT, &fp);
      if (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) {
         struct ds_case c3 = { VK_FORMAT_S8_UINT, NONE, MAX, true, true };
         run_case(&t, &c3);
      }
   }
   vkt_finish(&t);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
