/* Occlusion queries (precise and not) in render passes, subpasses with input and preserve attachments, secondary command buffers with inherited queries. */
/*
 * On a 16x16 target, exact CPU references, on Shale and (when present)
 * lavapipe:
 *  - occlusion queries inside a render pass with a D32 depth attachment:
 *    scissored full-screen draws at chosen depths against a LESS test, each
 *    in its own query; PRECISE queries must count exactly the samples that
 *    passed (occlusionQueryPrecise), a non-precise one must be nonzero
 *    exactly when some passed, and a query whose draw fails everywhere 0;
 *  - three subpasses: subpass 0 writes two position-dependent colours,
 *    subpass 1 reads the first as an input attachment (subpassLoad) and
 *    preserves the second, subpass 2 reads subpass 1's output and the
 *    preserved one; every attachment is read back and compared;
 *  - a subpass with VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS: two
 *    secondary command buffers (RENDER_PASS_CONTINUE, inheriting render
 *    pass, subpass and framebuffer) draw overlapping rectangles in order,
 *    inside a PRECISE occlusion query begun in the primary
 *    (inheritedQueries, occlusionQueryEnable with the PRECISE flag; lavapipe
 *    lacks inheritedQueries and draws the secondaries without the query).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "fullscreen_vert_spv.h"
#include "sp0_frag_spv.h"
#include "sp1_frag_spv.h"
#include "sp2_frag_spv.h"
#include "tri_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define SIZE 16
#define FMT VK_FORMAT_R32G32B32A32_SFLOAT

struct att {
   struct vkt_image image;
   VkImageView view;
};

static VkResult
att_create(struct vkt *t, VkFormat f, VkImageUsageFlags usage, VkImageAspectFlags aspect,
           struct att *a)
{
   return draw_image_create(t, f, SIZE, SIZE, VK_SAMPLE_COUNT_1_BIT, usage, aspect, &a->image,
                            &a->view);
}

static void
att_destroy(struct vkt *t, struct att *a)
{
   vkDestroyImageView(t->device, a->view, NULL);
   vkt_image_destroy(t, &a->image);
}

/* A LESS depth test that writes depth. */
static const VkPipelineDepthStencilStateCreateInfo less_depth = {
   .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
   .depthTestEnable = VK_TRUE,
   .depthWriteEnable = VK_TRUE,
   .depthCompareOp = VK_COMPARE_OP_LESS,
};

/* A graphics pipeline for (render_pass, subpass) with `colors` colour
 * attachments, dynamic viewport and scissor, optional LESS depth test. */
static VkPipeline
pipeline(struct vkt *t, VkRenderPass rp, uint32_t subpass, VkPipelineLayout layout,
         VkShaderModule vs, VkShaderModule fs, uint32_t colors, bool depth)
{
   struct draw_pipeline_info info = {
      .vs_module = vs,
      .fs_module = fs,
      .layout = layout,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = VK_CULL_MODE_NONE,
      .depth_stencil = depth ? &less_depth : NULL,
      .dynamic_viewport_scissor = true,
      .render_pass = rp,
      .subpass = subpass,
      .color_count = colors,
   };
   struct draw_pipeline p;
   draw_pipeline_create(t, NULL, &info, &p);   /* owns nothing but the pipeline */
   return p.pipeline;
}

/* fullscreen.vert + const_float.frag for subpass 0 of rp, one colour
 * attachment (and a LESS depth test), its 20 bytes of push constants
 * (push_color_z) in its own layout; p owns the modules and the layout. */
static VkPipeline
fill_pipeline(struct vkt *t, VkRenderPass rp, bool depth, struct draw_pipeline *p)
{
   struct draw_pipeline_info info = {
      .vs = fullscreen_vert_spv,
      .vs_size = sizeof(fullscreen_vert_spv),
      .fs = const_float_frag_spv,
      .fs_size = sizeof(const_float_frag_spv),
      .push_size = 20,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = VK_CULL_MODE_NONE,
      .depth_stencil = depth ? &less_depth : NULL,
      .dynamic_viewport_scissor = true,
      .render_pass = rp,
      .color_count = 1,
   };
   draw_pipeline_create(t, NULL, &info, p);
   return p->pipeline;
}

static VkPipelineLayout
push_layout(struct vkt *t, const VkDescriptorSetLayout *set, uint32_t push_size)
{
   VkPipelineLayout l = VK_NULL_HANDLE;
   CHECK_VK(draw_pipeline_layout(t, set ? *set : VK_NULL_HANDLE,
                                 VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                                 push_size, &l));
   return l;
}

static void
set_view(VkCommandBuffer cb, VkRect2D scissor)
{
   VkViewport viewport = { 0, 0, SIZE, SIZE, 0, 1 };
   vkCmdSetViewport(cb, 0, 1, &viewport);
   vkCmdSetScissor(cb, 0, 1, &scissor);
}

/* Pushes colour (offset 0) and z (offset 16) for fullscreen.vert + const_float.frag. */
static void
push_color_z(VkCommandBuffer cb, VkPipelineLayout layout, const float color[4], float z)
{
   float push[5] = { color[0], color[1], color[2], color[3], z };
   vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                      20, push);
}

/* ---- occlusion queries ---- */

struct occ_draw {
   VkRect2D scissor;
   float z;
   bool precise;
};

static void
test_occlusion(struct vkt *t)
{
   const char *name = vkt_driver_name(t->driver);
   struct att color, depth;
   CHECK_VK(att_create(t, FMT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT,
                       &color));
   CHECK_VK(att_create(t, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                       VK_IMAGE_ASPECT_DEPTH_BIT, &depth));
   VkAttachmentDescription atts[2] = {
      { .format = FMT, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
      { .format = VK_FORMAT_D32_SFLOAT, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
   };
   VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference dref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &cref,
      .pDepthStencilAttachment = &dref,
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2,
      .pAttachments = atts,
      .subpassCount = 1,
      .pSubpasses = &sub,
   };
   VkRenderPass rp;
   CHECK_VK(vkCreateRenderPass(t->device, &rpci, NULL, &rp));
   VkImageView views[2] = { color.view, depth.view };
   VkFramebuffer fb;
   CHECK_VK(draw_framebuffer(t, rp, views, 2, SIZE, SIZE, 1, &fb));
   struct draw_pipeline fill;
   VkPipeline p = fill_pipeline(t, rp, true, &fill);
   VkPipelineLayout layout = fill.layout;
   /* Depth is cleared to 1.0; each draw writes its z where it passes. */
   static const struct occ_draw draws[] = {
      { { { 0, 0 }, { SIZE, SIZE } }, 0.5f, false },   /* 256 pass: nonzero */
      { { { 2, 3 }, { 5, 7 } }, 0.25f, true },          /* 35 */
      { { { 0, 0 }, { SIZE, SIZE } }, 0.75f, true },    /* 0: behind everything */
      { { { 4, 1 }, { 6, 9 } }, 0.375f, true },         /* 54 minus the 3x6 at 0.25 */
      { { { 0, 0 }, { SIZE, SIZE } }, 0.75f, false },   /* 0 */
   };
   const uint32_t n = sizeof(draws) / sizeof(draws[0]);
   /* The reference: a depth buffer. */
   float zbuf[SIZE * SIZE];
   uint64_t want[8];
   for (int i = 0; i < SIZE * SIZE; i++)
      zbuf[i] = 1.0f;
   for (uint32_t d = 0; d < n; d++) {
      want[d] = 0;
      for (int y = draws[d].scissor.offset.y;
           y < draws[d].scissor.offset.y + (int)draws[d].scissor.extent.height; y++)
         for (int x = draws[d].scissor.offset.x;
              x < draws[d].scissor.offset.x + (int)draws[d].scissor.extent.width; x++)
            if (draws[d].z < zbuf[y * SIZE + x]) {
               zbuf[y * SIZE + x] = draws[d].z;
               want[d]++;
            }
   }
   VkQueryPoolCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_OCCLUSION,
      .queryCount = n,
   };
   VkQueryPool pool;
   CHECK_VK(vkCreateQueryPool(t->device, &qci, NULL, &pool));
   if (p) {
      VkCommandBuffer cb = vkt_begin(t);
      vkCmdResetQueryPool(cb, pool, 0, n);
      VkClearValue clears[2] = { { .color = { { 0 } } }, { .depthStencil = { 1.0f, 0 } } };
      VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb,
         .renderArea = { { 0, 0 }, { SIZE, SIZE } },
         .clearValueCount = 2, .pClearValues = clears,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
      static const float white[4] = { 1, 1, 1, 1 };
      for (uint32_t d = 0; d < n; d++) {
         set_view(cb, draws[d].scissor);
         push_color_z(cb, layout, white, draws[d].z);
         vkCmdBeginQuery(cb, pool, d, draws[d].precise ? VK_QUERY_CONTROL_PRECISE_BIT : 0);
         vkCmdDraw(cb, 3, 1, 0, 0);
         vkCmdEndQuery(cb, pool, d);
      }
      vkCmdEndRenderPass(cb);
      CHECK_VK(vkt_submit_wait(t, cb));
      uint64_t got[8] = { 0 };
      CHECK_VK(vkGetQueryPoolResults(t->device, pool, 0, n, sizeof(got), got, 8,
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      for (uint32_t d = 0; d < n; d++) {
         if (draws[d].precise)
            CHECK(got[d] == want[d], "%s: PRECISE occlusion query %u: %llu samples, want %llu",
                  name, d, (unsigned long long)got[d], (unsigned long long)want[d]);
         else
            CHECK((got[d] != 0) == (want[d] != 0),
                  "%s: occlusion query %u: %llu samples, want %s", name, d,
                  (unsigned long long)got[d], want[d] ? "nonzero" : "0");
      }
   }
   CHECK(p != VK_NULL_HANDLE, "%s: occlusion pipeline", name);
   vkDestroyQueryPool(t->device, pool, NULL);
   draw_pipeline_destroy(t, &fill);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   att_destroy(t, &color);
   att_destroy(t, &depth);
}

/* ---- three subpasses, input and preserve attachments ---- */

static void
test_subpasses(struct vkt *t)
{
   const char *name = vkt_driver_name(t->driver);
   /* A0: subpass 0 output 0, subpass 1 input. A1: subpass 1 output,
    * subpass 2 input. A2: subpass 0 output 1, preserved by subpass 1,
    * subpass 2 input. A3: subpass 2 output. */
   struct att a[4];
   for (int i = 0; i < 4; i++)
      CHECK_VK(att_create(t, FMT,
                          VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT |
                             VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                          VK_IMAGE_ASPECT_COLOR_BIT, &a[i]));
   VkAttachmentDescription desc[4];
   for (int i = 0; i < 4; i++)
      desc[i] = (VkAttachmentDescription) {
         .format = FMT, .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      };
   const VkImageLayout CA = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
   const VkImageLayout RO = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
   VkAttachmentReference s0_out[2] = { { 0, CA }, { 2, CA } };
   VkAttachmentReference s1_in = { 0, RO }, s1_out = { 1, CA };
   VkAttachmentReference s2_in[2] = { { 1, RO }, { 2, RO } }, s2_out = { 3, CA };
   uint32_t s1_preserve = 2;
   VkSubpassDescription subs[3] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .colorAttachmentCount = 2, .pColorAttachments = s0_out },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .inputAttachmentCount = 1, .pInputAttachments = &s1_in,
        .colorAttachmentCount = 1, .pColorAttachments = &s1_out,
        .preserveAttachmentCount = 1, .pPreserveAttachments = &s1_preserve },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .inputAttachmentCount = 2, .pInputAttachments = s2_in,
        .colorAttachmentCount = 1, .pColorAttachments = &s2_out },
   };
   VkSubpassDependency deps[4];
   const uint32_t pairs[3][2] = { { 0, 1 }, { 1, 2 }, { 0, 2 } };
   for (int i = 0; i < 3; i++)
      deps[i] = (VkSubpassDependency) {
         .srcSubpass = pairs[i][0], .dstSubpass = pairs[i][1],
         .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_INPUT_ATTACHMENT_READ_BIT,
         .dependencyFlags = VK_DEPENDENCY_BY_REGION_BIT,
      };
   deps[3] = draw_dep_color_to_transfer;
   deps[3].srcSubpass = 2;
   deps[3].srcStageMask |= VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 4, .pAttachments = desc,
      .subpassCount = 3, .pSubpasses = subs,
      .dependencyCount = 4, .pDependencies = deps,
   };
   VkRenderPass rp;
   CHECK_VK(vkCreateRenderPass(t->device, &rpci, NULL, &rp));
   VkImageView views[4] = { a[0].view, a[1].view, a[2].view, a[3].view };
   VkFramebuffer fb;
   CHECK_VK(draw_framebuffer(t, rp, views, 4, SIZE, SIZE, 1, &fb));

   VkDescriptorSetLayoutBinding b[2] = {
      { 0, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
   };
   VkDescriptorSetLayout sl1, sl2;
   CHECK_VK(vkt_set_layout(t, b, 1, &sl1));
   CHECK_VK(vkt_set_layout(t, b, 2, &sl2));
   VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 3 };
   VkDescriptorPool dpool;
   CHECK_VK(vkt_descriptor_pool(t, 2, &ps, 1, 0, &dpool));
   VkDescriptorSetLayout sls[2] = { sl1, sl2 };
   VkDescriptorSet sets[2];
   CHECK_VK(vkt_alloc_sets(t, dpool, sls, 2, sets));
   VkDescriptorImageInfo ii[3] = {
      { VK_NULL_HANDLE, a[0].view, RO }, { VK_NULL_HANDLE, a[1].view, RO },
      { VK_NULL_HANDLE, a[2].view, RO },
   };
   VkWriteDescriptorSet w[2] = {
      { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[0], .dstBinding = 0,
        .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT,
        .pImageInfo = &ii[0] },
      { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = sets[1], .dstBinding = 0,
        .descriptorCount = 2, .descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT,
        .pImageInfo = &ii[1] },
   };
   vkUpdateDescriptorSets(t->device, 2, w, 0, NULL);

   VkShaderModule vs, fs[3];
   CHECK_VK(vkt_shader_module(t, tri_vert_spv, sizeof(tri_vert_spv), &vs));
   CHECK_VK(vkt_shader_module(t, sp0_frag_spv, sizeof(sp0_frag_spv), &fs[0]));
   CHECK_VK(vkt_shader_module(t, sp1_frag_spv, sizeof(sp1_frag_spv), &fs[1]));
   CHECK_VK(vkt_shader_module(t, sp2_frag_spv, sizeof(sp2_frag_spv), &fs[2]));
   VkPipelineLayout layouts[3] = { push_layout(t, NULL, 0), push_layout(t, &sl1, 0),
                                   push_layout(t, &sl2, 0) };
   VkPipeline p[3];
   bool ok = true;
   for (uint32_t i = 0; i < 3; i++) {
      p[i] = pipeline(t, rp, i, layouts[i], vs, fs[i], i == 0 ? 2 : 1, false);
      ok = ok && p[i];
   }
   CHECK(ok, "%s: subpass pipelines", name);
   struct vkt_buffer out;
   CHECK_VK(vkt_buffer_create(t, 4 * SIZE * SIZE * 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &out));
   if (ok) {
      VkCommandBuffer cb = vkt_begin(t);
      VkClearValue clears[4] = { 0 };
      VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb,
         .renderArea = { { 0, 0 }, { SIZE, SIZE } },
         .clearValueCount = 4, .pClearValues = clears,
      };
      VkRect2D full = { { 0, 0 }, { SIZE, SIZE } };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      for (uint32_t i = 0; i < 3; i++) {
         if (i)
            vkCmdNextSubpass(cb, VK_SUBPASS_CONTENTS_INLINE);
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p[i]);
         if (i)
            vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layouts[i], 0, 1,
                                    &sets[i - 1], 0, NULL);
         set_view(cb, full);
         vkCmdDraw(cb, 3, 1, 0, 0);
      }
      vkCmdEndRenderPass(cb);
      for (int i = 0; i < 4; i++)
         draw_copy_to_buffer(cb, a[i].image.image, VK_IMAGE_ASPECT_COLOR_BIT, SIZE, SIZE, out.buffer,
                             (VkDeviceSize)i * SIZE * SIZE * 16);
      draw_host_barrier(cb);
      CHECK_VK(vkt_submit_wait(t, cb));
      const float *got = out.map;
      unsigned bad = 0;
      for (int y = 0; y < SIZE; y++)
         for (int x = 0; x < SIZE; x++) {
            float cx = x + 0.5f, cy = y + 0.5f;
            float ref[4][4] = {
               { cx, cy, 1, 2 },
               { 2 * cx + 1, 2 * cy + 1, 3, 5 },
               { 3 * cy, cx, 5, 7 },
               { 2 * cx + 1 - 3 * cy, 2 * cy + 1 - cx, -2, -2 },
            };
            for (int i = 0; i < 4; i++)
               for (int c = 0; c < 4; c++) {
                  float g = got[(size_t)i * SIZE * SIZE * 4 + (y * SIZE + x) * 4 + c];
                  if (g != ref[i][c] && bad++ < 4)
                     fprintf(stderr, "%s: subpasses: attachment %d pixel (%d, %d)[%d]: %g, want %g\n",
                             name, i, x, y, c, g, ref[i][c]);
               }
         }
      CHECK(bad == 0, "%s: three subpasses with input and preserve attachments (%u wrong)", name,
            bad);
   }
   vkt_buffer_destroy(t, &out);
   for (int i = 0; i < 3; i++) {
      vkDestroyPipeline(t->device, p[i], NULL);
      vkDestroyPipelineLayout(t->device, layouts[i], NULL);
      vkDestroyShaderModule(t->device, fs[i], NULL);
   }
   vkDestroyShaderModule(t->device, vs, NULL);
   vkDestroyDescriptorPool(t->device, dpool, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl1, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl2, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   for (int i = 0; i < 4; i++)
      att_destroy(t, &a[i]);
}

/* ---- secondary command buffers ---- */

static void
test_secondary(struct vkt *t, bool query)
{
   const char *name = vkt_driver_name(t->driver);
   struct att color;
   CHECK_VK(att_create(t, FMT, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                       VK_IMAGE_ASPECT_COLOR_BIT, &color));
   VkAttachmentDescription desc = {
      .format = FMT, .samples = VK_SAMPLE_COUNT_1_BIT,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
   };
   VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &cref,
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 1, .pAttachments = &desc,
      .subpassCount = 1, .pSubpasses = &sub,
      .dependencyCount = 1, .pDependencies = &draw_dep_color_to_transfer,
   };
   VkRenderPass rp;
   CHECK_VK(vkCreateRenderPass(t->device, &rpci, NULL, &rp));
   VkFramebuffer fb;
   CHECK_VK(draw_framebuffer(t, rp, &color.view, 1, SIZE, SIZE, 1, &fb));
   struct draw_pipeline fill;
   VkPipeline p = fill_pipeline(t, rp, false, &fill);
   VkPipelineLayout layout = fill.layout;
   VkQueryPoolCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_OCCLUSION,
      .queryCount = 1,
   };
   VkQueryPool pool;
   CHECK_VK(vkCreateQueryPool(t->device, &qci, NULL, &pool));
   struct vkt_buffer out;
   CHECK_VK(vkt_buffer_create(t, SIZE * SIZE * 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &out));
   static const VkRect2D rects[2] = { { { 1, 2 }, { 9, 7 } }, { { 5, 4 }, { 8, 10 } } };
   static const float colors[2][4] = { { 1, 0, 0, 1 }, { 0, 1, 0.5f, 1 } };
   CHECK(p != VK_NULL_HANDLE, "%s: secondary pipeline", name);
   if (p) {
      VkCommandBuffer sec[2];
      VkCommandBufferAllocateInfo cai = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
         .commandPool = t->pool,
         .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
         .commandBufferCount = 2,
      };
      CHECK_VK(vkAllocateCommandBuffers(t->device, &cai, sec));
      VkCommandBufferInheritanceInfo inh = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
         .renderPass = rp, .subpass = 0, .framebuffer = fb,
         .occlusionQueryEnable = query,
         .queryFlags = query ? VK_QUERY_CONTROL_PRECISE_BIT : 0,
      };
      VkCommandBufferBeginInfo bi = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
         .flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT |
                  VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
         .pInheritanceInfo = &inh,
      };
      for (int i = 0; i < 2; i++) {
         CHECK_VK(vkBeginCommandBuffer(sec[i], &bi));
         vkCmdBindPipeline(sec[i], VK_PIPELINE_BIND_POINT_GRAPHICS, p);
         set_view(sec[i], rects[i]);
         push_color_z(sec[i], layout, colors[i], 0.5f);
         vkCmdDraw(sec[i], 3, 1, 0, 0);
         CHECK_VK(vkEndCommandBuffer(sec[i]));
      }
      VkCommandBuffer cb = vkt_begin(t);
      vkCmdResetQueryPool(cb, pool, 0, 1);
      if (query)
         vkCmdBeginQuery(cb, pool, 0, VK_QUERY_CONTROL_PRECISE_BIT);
      VkClearValue clear = { .color = { { 0.25f, 0.25f, 0.25f, 0.25f } } };
      VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb,
         .renderArea = { { 0, 0 }, { SIZE, SIZE } },
         .clearValueCount = 1, .pClearValues = &clear,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
      vkCmdExecuteCommands(cb, 2, sec);
      vkCmdEndRenderPass(cb);
      if (query)
         vkCmdEndQuery(cb, pool, 0);
      draw_copy_to_buffer(cb, color.image.image, VK_IMAGE_ASPECT_COLOR_BIT, SIZE, SIZE,
                          out.buffer, 0);
      draw_host_barrier(cb);
      CHECK_VK(vkt_submit_wait(t, cb));
      vkFreeCommandBuffers(t->device, t->pool, 2, sec);
      uint64_t samples = 0, want_samples = 0;
      if (query)
         CHECK_VK(vkGetQueryPoolResults(t->device, pool, 0, 1, sizeof(samples), &samples, 8,
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
      for (int i = 0; query && i < 2; i++)
         want_samples += (uint64_t)rects[i].extent.width * rects[i].extent.height;
      CHECK(samples == want_samples,
            "%s: PRECISE query over two secondaries: %llu samples, want %llu", name,
            (unsigned long long)samples, (unsigned long long)want_samples);
      const float *got = out.map;
      unsigned bad = 0;
      for (int y = 0; y < SIZE; y++)
         for (int x = 0; x < SIZE; x++) {
            const float *wc = clear.color.float32;
            for (int i = 0; i < 2; i++)
               if (x >= rects[i].offset.x && x < rects[i].offset.x + (int)rects[i].extent.width &&
                   y >= rects[i].offset.y && y < rects[i].offset.y + (int)rects[i].extent.height)
                  wc = colors[i];
            for (int c = 0; c < 4; c++)
               if (got[(y * SIZE + x) * 4 + c] != wc[c] && bad++ < 4)
                  fprintf(stderr, "%s: secondaries: pixel (%d, %d)[%d]: %g, want %g\n", name, x,
                          y, c, got[(y * SIZE + x) * 4 + c], wc[c]);
         }
      CHECK(bad == 0, "%s: two secondary command buffers drawn in order (%u wrong)", name, bad);
   }
   vkt_buffer_destroy(t, &out);
   vkDestroyQueryPool(t->device, pool, NULL);
   draw_pipeline_destroy(t, &fill);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   att_destroy(t, &color);
}

static void
run_all(enum vkt_driver driver)
{
   const char *name = vkt_driver_name(driver);
   struct vkt probe;
   if (!draw_probe(driver, &probe)) {
      if (driver != VKT_LAVAPIPE)
         CHECK(false, "Shale device");
      return;
   }
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(probe.pdev, &have);
   vkt_finish(&probe);
   CHECK(have.occlusionQueryPrecise, "%s reports occlusionQueryPrecise", name);
   /* lavapipe (Mesa 22.3) has no inheritedQueries: its secondaries run
    * without the query. */
   CHECK(have.inheritedQueries || driver == VKT_LAVAPIPE, "%s reports inheritedQueries", name);
   VkPhysicalDeviceFeatures want = {
      .occlusionQueryPrecise = have.occlusionQueryPrecise,
      .inheritedQueries = have.inheritedQueries,
   };
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = driver, .features = &want })) {
      CHECK(false, "%s device", name);
      return;
   }
   if (want.occlusionQueryPrecise)
      test_occlusion(&t);
   test_subpasses(&t);
   test_secondary(&t, want.occlusionQueryPrecise && want.inheritedQueries);
   vkt_finish(&t);
}

int
main(void)
{
   run_all(VKT_SHALE);
   run_all(VKT_LAVAPIPE);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
