/* Multiview through the loader with the validation layer: render passes
 * whose subpasses have view masks (VkRenderPassMultiviewCreateInfo), each
 * draw rendered once per view into that view's layer with ViewIndex in the
 * vertex and fragment shaders; load op clears of the views in the mask
 * only (a view first used by a later subpass cleared there), clears of
 * vkCmdClearAttachments in every view, input attachments read from the
 * view's own layer, resolves of the views in the mask, occlusion queries
 * taking one query per view, the highest view (31) and instance index
 * (maxMultiviewInstanceIndex); the layers outside the mask keep what they
 * held; the same through VK_KHR_create_renderpass2 (vkCreateRenderPass2KHR,
 * vkCmdBeginRenderPass2KHR, vkCmdEndRenderPass2KHR); tessellation and
 * geometry shaders under a view mask (multiviewTessellationShader,
 * multiviewGeometryShader: test_stages, on Shale and on lavapipe). Every
 * layer is compared with a CPU reference. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "mv_vert_spv.h"
#include "mv_frag_spv.h"
#include "mv_input_frag_spv.h"
#include "mvs_frag_spv.h"
#include "mvs_geom_spv.h"
#include "mvs_tesc_spv.h"
#include "mvs_tese_spv.h"
#include "mvs_vert_spv.h"

#define W 16
#define H 16
/* Instances FIRST_INSTANCE and + 1: the validation layer takes firstInstance
 * + instanceCount as the highest index, so this keeps it at
 * maxMultiviewInstanceIndex (2^27 - 1) by its rule. */
#define FIRST_INSTANCE ((1u << 27) - 3)

static const uint8_t poison[4] = { 200, 201, 202, 203 };
static const uint8_t clear0[4] = { 10, 20, 30, 40 };
static const uint8_t clear1[4] = { 90, 91, 92, 93 };
static const uint8_t clear_att[4] = { 50, 60, 70, 80 };

static VkClearValue
cv(const uint8_t c[4])
{
   VkClearValue v;
   for (int i = 0; i < 4; i++)
      v.color.float32[i] = c[i] / 255.0f;
   return v;
}

/* The pixel the mv shaders draw at (x, y) of view `view`, false when the
 * view's squares do not cover it. */
static bool
drawn(uint32_t view, uint32_t x, uint32_t y, uint8_t out[4])
{
   const uint32_t x0 = view % 8;
   if (x < x0 || x >= x0 + 8)
      return false;
   /* Even instances draw the top half. */
   const uint32_t inst = ((FIRST_INSTANCE & 1) == (y >= 8)) ? FIRST_INSTANCE : FIRST_INSTANCE + 1;
   out[0] = (uint8_t)view;
   out[1] = (uint8_t)(view + 64);
   out[2] = (uint8_t)(inst & 255);
   out[3] = (uint8_t)((inst >> 20) & 255);
   return true;
}

struct mv_image {
   struct vkt_image img;
   VkImageView view;
   uint32_t layers;
   VkSampleCountFlagBits samples;
};

static bool
image_create(struct vkt *t, uint32_t layers, VkSampleCountFlagBits samples, VkImageUsageFlags extra,
             struct mv_image *m)
{
   memset(m, 0, sizeof(*m));
   m->layers = layers;
   m->samples = samples;
   VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | extra;
   if (samples == VK_SAMPLE_COUNT_1_BIT)
      usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   const VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { W, H, 1 },
      .mipLevels = 1,
      .arrayLayers = layers,
      .samples = samples,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   if (vkt_image_create(t, &ici, &m->img) != VK_SUCCESS)
      return false;
   const VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = m->img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers },
   };
   return vkCreateImageView(t->device, &vci, NULL, &m->view) == VK_SUCCESS;
}

static void
image_destroy(struct vkt *t, struct mv_image *m)
{
   vkDestroyImageView(t->device, m->view, NULL);
   vkt_image_destroy(t, &m->img);
}

/* Every layer of a single-sampled image filled with `poison`, then in
 * COLOR_ATTACHMENT_OPTIMAL. */
static void
image_poison(VkCommandBuffer cb, const struct mv_image *m)
{
   vkt_image_barrier(cb, m->img.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   const VkClearColorValue c = cv(poison).color;
   const VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, m->layers };
   vkCmdClearColorImage(cb, m->img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1, &range);
   VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      .oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
      .newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = m->img.image,
      .subresourceRange = range,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, 0, NULL, 0, NULL, 1, &b);
}

/* Copies every layer of a single-sampled image (in COLOR_ATTACHMENT_OPTIMAL
 * after the render pass) into `out`, layer after layer. */
static void
image_readback(VkCommandBuffer cb, const struct mv_image *m, const struct vkt_buffer *out)
{
   vkt_image_barrier(cb, m->img.image, VK_IMAGE_ASPECT_COLOR_BIT,
                     VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   const VkBufferImageCopy region = {
      .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, m->layers },
      .imageExtent = { W, H, 1 },
   };
   vkCmdCopyImageToBuffer(cb, m->img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, out->buffer, 1,
                          &region);
   VkBufferMemoryBarrier bb = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .buffer = out->buffer,
      .size = VK_WHOLE_SIZE,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL,
                        1, &bb, 0, NULL);
}

typedef void (*ref_fn)(uint32_t layer, uint32_t x, uint32_t y, uint8_t out[4]);

/* Compares every texel of every layer; prints the first few mismatches. */
static void
compare(const char *what, const struct vkt_buffer *b, uint32_t layers, ref_fn ref)
{
   const uint8_t *p = b->map;
   unsigned bad = 0;
   for (uint32_t l = 0; l < layers; l++) {
      for (uint32_t y = 0; y < H; y++) {
         for (uint32_t x = 0; x < W; x++) {
            uint8_t e[4];
            ref(l, x, y, e);
            const uint8_t *g = p + (((size_t)l * H + y) * W + x) * 4;
            if (memcmp(e, g, 4) != 0 && bad++ < 8)
               fprintf(stderr,
                       "%s: layer %u (%u, %u): got %u %u %u %u, expected %u %u %u %u\n", what, l,
                       x, y, g[0], g[1], g[2], g[3], e[0], e[1], e[2], e[3]);
         }
      }
   }
   CHECK(bad == 0, "%s: %u texels differ from the reference", what, bad);
}

/* A W x H framebuffer of one layer on the count views, for rp (one CHECK). */
static VkFramebuffer
framebuffer_create(struct vkt *t, VkRenderPass rp, uint32_t count, const VkImageView *views)
{
   const VkFramebufferCreateInfo fbi = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp, .attachmentCount = count, .pAttachments = views,
      .width = W, .height = H, .layers = 1,
   };
   VkFramebuffer fb = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateFramebuffer(t->device, &fbi, NULL, &fb), VK_SUCCESS);
   return fb;
}

/* A pipeline of the stageCount stages with the state every pipeline here
 * has: no vertex input, triangle lists (patches of 4 vertices where tess),
 * the whole W x H viewport, no culling, samples, one colour attachment
 * written without blending, in subpass of rp. */
static VkResult
pipeline_build(struct vkt *t, VkRenderPass rp, uint32_t subpass,
               const VkPipelineShaderStageCreateInfo *stages, uint32_t stage_count, bool tess,
               VkPipelineLayout layout, VkSampleCountFlagBits samples, VkPipeline *out)
{
   const VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
   };
   const VkPipelineInputAssemblyStateCreateInfo ia = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
      .topology = tess ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
   };
   const VkPipelineTessellationStateCreateInfo ts = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
      .patchControlPoints = 4,
   };
   const VkViewport vp = { 0, 0, W, H, 0, 1 };
   const VkRect2D sc = { { 0, 0 }, { W, H } };
   const VkPipelineViewportStateCreateInfo vps = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
      .viewportCount = 1, .pViewports = &vp, .scissorCount = 1, .pScissors = &sc,
   };
   const VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE, .lineWidth = 1.0f,
   };
   const VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = samples,
   };
   const VkPipelineColorBlendAttachmentState blend = { .colorWriteMask = 0xf };
   const VkPipelineColorBlendStateCreateInfo cb = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = 1, .pAttachments = &blend,
   };
   const VkGraphicsPipelineCreateInfo gci = {
      .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
      .stageCount = stage_count, .pStages = stages, .pVertexInputState = &vi,
      .pInputAssemblyState = &ia, .pTessellationState = tess ? &ts : NULL,
      .pViewportState = &vps, .pRasterizationState = &rs, .pMultisampleState = &ms,
      .pColorBlendState = &cb, .layout = layout, .renderPass = rp, .subpass = subpass,
   };
   return vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &gci, NULL, out);
}

static bool
pipeline_create(struct vkt *t, VkRenderPass rp, uint32_t subpass, const uint32_t *fs,
                size_t fs_size, VkPipelineLayout layout, VkSampleCountFlagBits samples,
                VkShaderModule *mods, VkPipeline *out)
{
   if (vkt_shader_module(t, mv_vert_spv, sizeof(mv_vert_spv), &mods[0]) != VK_SUCCESS ||
       vkt_shader_module(t, fs, fs_size, &mods[1]) != VK_SUCCESS)
      return false;
   const VkPipelineShaderStageCreateInfo stages[2] = {
      { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT,
        mods[0], "main", NULL },
      { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_FRAGMENT_BIT,
        mods[1], "main", NULL },
   };
   return pipeline_build(t, rp, subpass, stages, 2, false, layout, samples, out) == VK_SUCCESS;
}

static VkPipelineLayout
empty_layout(struct vkt *t, const VkDescriptorSetLayout *set)
{
   const VkPipelineLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = set ? 1 : 0,
      .pSetLayouts = set,
   };
   VkPipelineLayout l = VK_NULL_HANDLE;
   vkCreatePipelineLayout(t->device, &lci, NULL, &l);
   return l;
}

static const VkAttachmentDescription color_att = {
   .format = VK_FORMAT_R8G8B8A8_UNORM,
   .samples = VK_SAMPLE_COUNT_1_BIT,
   .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
   .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
   .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
   .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
   .initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
   .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
};

/* ---- one subpass: draw, vkCmdClearAttachments, an occlusion query ---- */

static uint32_t g_mask;

static void
ref_single(uint32_t l, uint32_t x, uint32_t y, uint8_t out[4])
{
   if (l >= 32 || !(g_mask >> l & 1)) {
      memcpy(out, poison, 4);
      return;
   }
   memcpy(out, clear0, 4);
   drawn(l, x, y, out);
   if (x >= 12 && y >= 12)
      memcpy(out, clear_att, 4);
}

/* The same pass in the VK_KHR_create_renderpass2 form. */
static VkRenderPass
render_pass2(struct vkt *t, uint32_t mask)
{
   const VkAttachmentDescription2 att = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
      .format = color_att.format, .samples = color_att.samples,
      .loadOp = color_att.loadOp, .storeOp = color_att.storeOp,
      .stencilLoadOp = color_att.stencilLoadOp, .stencilStoreOp = color_att.stencilStoreOp,
      .initialLayout = color_att.initialLayout, .finalLayout = color_att.finalLayout,
   };
   const VkAttachmentReference2 ref = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2,
      .attachment = 0, .layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
   };
   const VkSubpassDescription2 sub = {
      .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .viewMask = mask,
      .colorAttachmentCount = 1, .pColorAttachments = &ref,
   };
   const VkRenderPassCreateInfo2 ci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
      .attachmentCount = 1, .pAttachments = &att,
      .subpassCount = 1, .pSubpasses = &sub,
      .correlatedViewMaskCount = 1, .pCorrelatedViewMasks = &mask,
   };
   PFN_vkCreateRenderPass2KHR create =
      (PFN_vkCreateRenderPass2KHR)vkGetDeviceProcAddr(t->device, "vkCreateRenderPass2KHR");
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK(create != NULL, "no vkCreateRenderPass2KHR");
   if (create)
      CHECK_EQ_INT(create(t->device, &ci, NULL, &rp), VK_SUCCESS);
   return rp;
}

static void
test_single(struct vkt *t, uint32_t mask, uint32_t layers, bool rp2)
{
   char what[80];
   snprintf(what, sizeof(what), "view mask 0x%x%s", mask, rp2 ? " (create_renderpass2)" : "");
   const uint32_t views = (uint32_t)__builtin_popcount(mask);
   struct mv_image img;
   CHECK(image_create(t, layers, VK_SAMPLE_COUNT_1_BIT, 0, &img), "%s: image", what);
   const VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &ref,
   };
   const uint32_t corr = mask;
   const VkRenderPassMultiviewCreateInfo mv = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO,
      .subpassCount = 1,
      .pViewMasks = &mask,
      .correlationMaskCount = 1,
      .pCorrelationMasks = &corr,
   };
   const VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .pNext = &mv,
      .attachmentCount = 1,
      .pAttachments = &color_att,
      .subpassCount = 1,
      .pSubpasses = &sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   if (rp2)
      rp = render_pass2(t, mask);
   else
      CHECK_EQ_INT(vkCreateRenderPass(t->device, &rpi, NULL, &rp), VK_SUCCESS);
   VkFramebuffer fb = framebuffer_create(t, rp, 1, &img.view);
   VkPipelineLayout layout = empty_layout(t, NULL);
   VkShaderModule mods[2] = { 0 };
   VkPipeline pipe = VK_NULL_HANDLE;
   CHECK(pipeline_create(t, rp, 0, mv_frag_spv, sizeof(mv_frag_spv), layout,
                         VK_SAMPLE_COUNT_1_BIT, mods, &pipe), "%s: pipeline", what);
   const VkQueryPoolCreateInfo qpi = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_OCCLUSION,
      .queryCount = views,
   };
   VkQueryPool qp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateQueryPool(t->device, &qpi, NULL, &qp), VK_SUCCESS);
   struct vkt_buffer out;
   CHECK_EQ_INT(vkt_buffer_create(t, (VkDeviceSize)W * H * 4 * layers,
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &out), VK_SUCCESS);
   if (!pipe || !fb || !qp) {
      CHECK(0, "%s: setup failed", what);
      return;
   }

   VkCommandBuffer cb = vkt_begin(t);
   image_poison(cb, &img);
   vkCmdResetQueryPool(cb, qp, 0, views);
   const VkClearValue clear = cv(clear0);
   const VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp, .framebuffer = fb, .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 1, .pClearValues = &clear,
   };
   PFN_vkCmdBeginRenderPass2KHR begin2 = (PFN_vkCmdBeginRenderPass2KHR)vkGetDeviceProcAddr(
      t->device, "vkCmdBeginRenderPass2KHR");
   PFN_vkCmdEndRenderPass2KHR end2 =
      (PFN_vkCmdEndRenderPass2KHR)vkGetDeviceProcAddr(t->device, "vkCmdEndRenderPass2KHR");
   const VkSubpassBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
                                    .contents = VK_SUBPASS_CONTENTS_INLINE };
   const VkSubpassEndInfo sei = { .sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO };
   if (rp2 && begin2 && end2)
      begin2(cb, &rbi, &sbi);
   else
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
   vkCmdBeginQuery(cb, qp, 0, 0);
   vkCmdDraw(cb, 6, 2, 0, FIRST_INSTANCE);
   vkCmdEndQuery(cb, qp, 0);
   const VkClearAttachment ca = { VK_IMAGE_ASPECT_COLOR_BIT, 0, cv(clear_att) };
   const VkClearRect cr = { { { 12, 12 }, { 4, 4 } }, 0, 1 };
   vkCmdClearAttachments(cb, 1, &ca, 1, &cr);
   if (rp2 && begin2 && end2)
      end2(cb, &sei);
   else
      vkCmdEndRenderPass(cb);
   image_readback(cb, &img, &out);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);

   g_mask = mask;
   compare(what, &out, layers, ref_single);

   /* One query per view; their sum is every view's samples (64 per square,
    * two squares per view). */
   uint64_t q[32] = { 0 };
   CHECK_EQ_INT(vkGetQueryPoolResults(t->device, qp, 0, views, sizeof(q), q, sizeof(q[0]),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                VK_SUCCESS);
   uint64_t sum = 0;
   for (uint32_t i = 0; i < views; i++)
      sum += q[i];
   CHECK(sum == 128ull * views, "%s: occlusion queries sum to %llu, expected %llu", what,
         (unsigned long long)sum, 128ull * views);

   vkt_buffer_destroy(t, &out);
   vkDestroyQueryPool(t->device, qp, NULL);
   vkDestroyPipeline(t->device, pipe, NULL);
   vkDestroyShaderModule(t->device, mods[0], NULL);
   vkDestroyShaderModule(t->device, mods[1], NULL);
   vkDestroyPipelineLayout(t->device, layout, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   image_destroy(t, &img);
}

/* ---- three subpasses: per-view first use, input attachments ---- */

/* A0 after the pass: view 0 cleared and drawn in subpass 0, view 1 cleared
 * in subpass 1 (its first use of that view). */
static void
ref_a0(uint32_t l, uint32_t x, uint32_t y, uint8_t out[4])
{
   memcpy(out, clear0, 4);
   if (l == 0)
      drawn(0, x, y, out);
}

/* A1: cleared in subpass 2, then each view's squares hold A0's pixel of that
 * view's layer with alpha view + 1. */
static void
ref_a1(uint32_t l, uint32_t x, uint32_t y, uint8_t out[4])
{
   uint8_t d[4];
   memcpy(out, clear1, 4);
   if (!drawn(l, x, y, d))
      return;
   ref_a0(l, x, y, out);
   out[3] = (uint8_t)(l + 1);
}

static void
test_subpasses(struct vkt *t)
{
   struct mv_image a0, a1;
   CHECK(image_create(t, 2, VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT, &a0) &&
         image_create(t, 2, VK_SAMPLE_COUNT_1_BIT, 0, &a1), "subpasses: images");
   const VkAttachmentDescription atts[2] = { color_att, color_att };
   const VkAttachmentReference r0 = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference r0_in = { 0, VK_IMAGE_LAYOUT_GENERAL };
   const VkAttachmentReference r1 = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub[3] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &r0 },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &r0 },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .inputAttachmentCount = 1,
        .pInputAttachments = &r0_in, .colorAttachmentCount = 1, .pColorAttachments = &r1 },
   };
   const uint32_t masks[3] = { 0x1, 0x2, 0x3 };
   const VkRenderPassMultiviewCreateInfo mv = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO,
      .subpassCount = 3,
      .pViewMasks = masks,
   };
   const VkSubpassDependency deps[3] = {
      { 0, 1, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_DEPENDENCY_BY_REGION_BIT },
      { 0, 2, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_INPUT_ATTACHMENT_READ_BIT,
        VK_DEPENDENCY_BY_REGION_BIT },
      { 1, 2, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_INPUT_ATTACHMENT_READ_BIT,
        VK_DEPENDENCY_BY_REGION_BIT },
   };
   const VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .pNext = &mv,
      .attachmentCount = 2, .pAttachments = atts,
      .subpassCount = 3, .pSubpasses = sub,
      .dependencyCount = 3, .pDependencies = deps,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t->device, &rpi, NULL, &rp), VK_SUCCESS);
   const VkImageView views[2] = { a0.view, a1.view };
   VkFramebuffer fb = framebuffer_create(t, rp, 2, views);

   const VkDescriptorSetLayoutBinding binding = {
      0, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL,
   };
   VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkt_set_layout(t, &binding, 1, &dsl), VK_SUCCESS);
   const VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 1 };
   VkDescriptorPool dp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkt_descriptor_pool(t, 1, &ps, 1, 0, &dp), VK_SUCCESS);
   VkDescriptorSet set = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkt_alloc_sets(t, dp, &dsl, 1, &set), VK_SUCCESS);
   const VkDescriptorImageInfo dii = { VK_NULL_HANDLE, a0.view, VK_IMAGE_LAYOUT_GENERAL };
   const VkWriteDescriptorSet w = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
      .dstSet = set, .descriptorCount = 1,
      .descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, .pImageInfo = &dii,
   };
   vkUpdateDescriptorSets(t->device, 1, &w, 0, NULL);

   VkPipelineLayout l0 = empty_layout(t, NULL), l2 = empty_layout(t, &dsl);
   VkShaderModule m0[2] = { 0 }, m2[2] = { 0 };
   VkPipeline p0 = VK_NULL_HANDLE, p2 = VK_NULL_HANDLE;
   CHECK(pipeline_create(t, rp, 0, mv_frag_spv, sizeof(mv_frag_spv), l0, VK_SAMPLE_COUNT_1_BIT,
                         m0, &p0) &&
         pipeline_create(t, rp, 2, mv_input_frag_spv, sizeof(mv_input_frag_spv), l2,
                         VK_SAMPLE_COUNT_1_BIT, m2, &p2), "subpasses: pipelines");
   struct vkt_buffer o0, o1;
   CHECK_EQ_INT(vkt_buffer_create(t, W * H * 4 * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &o0),
                VK_SUCCESS);
   CHECK_EQ_INT(vkt_buffer_create(t, W * H * 4 * 2, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &o1),
                VK_SUCCESS);
   if (!p0 || !p2 || !fb || !set) {
      CHECK(0, "subpasses: setup failed");
      return;
   }

   VkCommandBuffer cb = vkt_begin(t);
   image_poison(cb, &a0);
   image_poison(cb, &a1);
   const VkClearValue clears[2] = { cv(clear0), cv(clear1) };
   const VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp, .framebuffer = fb, .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 2, .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p0);
   vkCmdDraw(cb, 6, 2, 0, FIRST_INSTANCE);
   vkCmdNextSubpass(cb, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdNextSubpass(cb, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p2);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, l2, 0, 1, &set, 0, NULL);
   vkCmdDraw(cb, 6, 2, 0, FIRST_INSTANCE);
   vkCmdEndRenderPass(cb);
   image_readback(cb, &a0, &o0);
   image_readback(cb, &a1, &o1);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   compare("subpasses: attachment 0", &o0, 2, ref_a0);
   compare("subpasses: attachment 1 (input attachment per view)", &o1, 2, ref_a1);

   vkt_buffer_destroy(t, &o0);
   vkt_buffer_destroy(t, &o1);
   vkDestroyPipeline(t->device, p0, NULL);
   vkDestroyPipeline(t->device, p2, NULL);
   for (int i = 0; i < 2; i++) {
      vkDestroyShaderModule(t->device, m0[i], NULL);
      vkDestroyShaderModule(t->device, m2[i], NULL);
   }
   vkDestroyPipelineLayout(t->device, l0, NULL);
   vkDestroyPipelineLayout(t->device, l2, NULL);
   vkDestroyDescriptorPool(t->device, dp, NULL);
   vkDestroyDescriptorSetLayout(t->device, dsl, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   image_destroy(t, &a0);
   image_destroy(t, &a1);
}

/* ---- resolves: only the views in the mask ---- */

static void
ref_resolve(uint32_t l, uint32_t x, uint32_t y, uint8_t out[4])
{
   if (l != 1) {
      memcpy(out, poison, 4);
      return;
   }
   memcpy(out, clear0, 4);
   drawn(l, x, y, out);
}

static void
test_resolve(struct vkt *t)
{
   VkImageFormatProperties ifp;
   if (vkGetPhysicalDeviceImageFormatProperties(
          t->pdev, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
          VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0, &ifp) != VK_SUCCESS ||
       !(ifp.sampleCounts & VK_SAMPLE_COUNT_4_BIT) || ifp.maxArrayLayers < 3) {
      CHECK(0, "4-sample 2D array colour attachments are not supported");
      return;
   }
   struct mv_image ms, rs;
   CHECK(image_create(t, 3, VK_SAMPLE_COUNT_4_BIT, 0, &ms) &&
         image_create(t, 3, VK_SAMPLE_COUNT_1_BIT, 0, &rs), "resolve: images");
   VkAttachmentDescription atts[2] = { color_att, color_att };
   atts[0].samples = VK_SAMPLE_COUNT_4_BIT;
   atts[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
   atts[0].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
   atts[1].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
   const VkAttachmentReference r0 = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference r1 = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &r0, .pResolveAttachments = &r1,
   };
   const uint32_t mask = 0x2;
   const VkRenderPassMultiviewCreateInfo mv = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO,
      .subpassCount = 1, .pViewMasks = &mask,
   };
   const VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .pNext = &mv, .attachmentCount = 2, .pAttachments = atts,
      .subpassCount = 1, .pSubpasses = &sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t->device, &rpi, NULL, &rp), VK_SUCCESS);
   const VkImageView views[2] = { ms.view, rs.view };
   VkFramebuffer fb = framebuffer_create(t, rp, 2, views);
   VkPipelineLayout layout = empty_layout(t, NULL);
   VkShaderModule mods[2] = { 0 };
   VkPipeline pipe = VK_NULL_HANDLE;
   CHECK(pipeline_create(t, rp, 0, mv_frag_spv, sizeof(mv_frag_spv), layout,
                         VK_SAMPLE_COUNT_4_BIT, mods, &pipe), "resolve: pipeline");
   struct vkt_buffer out;
   CHECK_EQ_INT(vkt_buffer_create(t, W * H * 4 * 3, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &out),
                VK_SUCCESS);
   if (!pipe || !fb) {
      CHECK(0, "resolve: setup failed");
      return;
   }
   VkCommandBuffer cb = vkt_begin(t);
   image_poison(cb, &rs);
   const VkClearValue clears[2] = { cv(clear0), cv(clear1) };
   const VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp, .framebuffer = fb, .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 2, .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
   vkCmdDraw(cb, 6, 2, 0, FIRST_INSTANCE);
   vkCmdEndRenderPass(cb);
   image_readback(cb, &rs, &out);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   compare("resolve of view 1", &out, 3, ref_resolve);

   vkt_buffer_destroy(t, &out);
   vkDestroyPipeline(t->device, pipe, NULL);
   vkDestroyShaderModule(t->device, mods[0], NULL);
   vkDestroyShaderModule(t->device, mods[1], NULL);
   vkDestroyPipelineLayout(t->device, layout, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   image_destroy(t, &ms);
   image_destroy(t, &rs);
}

/* ---- tessellation and geometry shaders (multiviewTessellationShader,
 * multiviewGeometryShader) ---- */

/* Three bands of a view mask 0xb pass (views 0, 1, 3 of 4 layers), each a
 * rectangle of one pipeline moved right by the stages' ViewIndex:
 * tessellation (rows 0-3: by the evaluation shader's), a geometry shader
 * (rows 5-8: by its), both (rows 10-13: by both, twice). Every stage
 * writes its ViewIndex into the colour (mvs.*): red 10 + the control
 * shader's, green 20 + the evaluation shader's, blue 30 + the geometry
 * shader's (0 where the stage is absent), alpha 40 + 8 x the vertex
 * shader's + the fragment shader's. Edges a quarter pixel off the grid:
 * the covered pixels are exact. */
#define STAGES_MASK 0xbu
static const float band_rect[3][4] = {
   { 1.25f, 0.25f, 7.25f, 4.25f }, { 1.25f, 5.25f, 7.25f, 9.25f }, { 1.25f, 10.25f, 7.25f, 14.25f },
};

static void
ref_stages(uint32_t l, uint32_t x, uint32_t y, uint8_t out[4])
{
   if (!(STAGES_MASK >> l & 1)) {
      memcpy(out, poison, 4);
      return;
   }
   memcpy(out, clear0, 4);
   const float cx = x + 0.5f, cy = y + 0.5f;
   for (int b = 0; b < 3; b++) {
      const bool tess = b != 1, geom = b != 0;
      const float dx = (float)l * ((tess ? 1 : 0) + (geom ? 1 : 0));
      const float *r = band_rect[b];
      if (cx > r[0] + dx && cx < r[2] + dx && cy > r[1] && cy < r[3]) {
         out[0] = (uint8_t)(tess ? 10 + l : 0);
         out[1] = (uint8_t)(tess ? 20 + l : 0);
         out[2] = (uint8_t)(geom ? 30 + l : 0);
         out[3] = (uint8_t)(40 + 9 * l);
      }
   }
}

static void
test_stages(enum vkt_driver drv)
{
   const char *dn = vkt_driver_name(drv);
   VkPhysicalDeviceMultiviewFeatures have = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
   };
   VkPhysicalDeviceFeatures2 f2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &have };
   if (!vkt_query_features(drv, &f2, NULL, NULL)) {
      CHECK(drv != VKT_SHALE, "%s: no device", dn);
      return;
   }
   const bool ok = have.multiview && have.multiviewTessellationShader &&
                   have.multiviewGeometryShader && f2.features.tessellationShader &&
                   f2.features.geometryShader;
   CHECK(ok || drv != VKT_SHALE, "%s: multiview %u, multiviewTessellationShader %u, "
         "multiviewGeometryShader %u", dn, have.multiview, have.multiviewTessellationShader,
         have.multiviewGeometryShader);
   if (!ok) {
      printf("%s: multiview with tessellation and geometry shaders not offered: not run\n", dn);
      return;
   }
   VkPhysicalDeviceMultiviewFeatures mvf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
      .multiview = VK_TRUE, .multiviewTessellationShader = VK_TRUE,
      .multiviewGeometryShader = VK_TRUE,
   };
   const VkPhysicalDeviceFeatures core = { .tessellationShader = VK_TRUE,
                                           .geometryShader = VK_TRUE };
   const struct vkt_options opts = {
      .driver = drv, .api_version = VK_API_VERSION_1_1, .features = &core, .device_pnext = &mvf,
   };
   struct vkt tt;
   if (!vkt_init(&tt, &opts)) {
      CHECK(0, "%s: device with multiviewTessellationShader and multiviewGeometryShader", dn);
      return;
   }
   struct vkt *t = &tt;
   const uint32_t layers = 4, mask = STAGES_MASK;
   struct mv_image img;
   CHECK(image_create(t, layers, VK_SAMPLE_COUNT_1_BIT, 0, &img), "%s: stages: image", dn);
   const VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &ref,
   };
   const VkRenderPassMultiviewCreateInfo mv = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO,
      .subpassCount = 1, .pViewMasks = &mask,
   };
   const VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .pNext = &mv,
      .attachmentCount = 1, .pAttachments = &color_att, .subpassCount = 1, .pSubpasses = &sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t->device, &rpi, NULL, &rp), VK_SUCCESS);
   VkFramebuffer fb = framebuffer_create(t, rp, 1, &img.view);
   const VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, 20 };
   const VkPipelineLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr,
   };
   VkPipelineLayout layout = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreatePipelineLayout(t->device, &lci, NULL, &layout), VK_SUCCESS);
   VkShaderModule mods[5] = { 0 };
   const struct { const uint32_t *code; size_t size; } src[5] = {
      { mvs_vert_spv, sizeof(mvs_vert_spv) }, { mvs_tesc_spv, sizeof(mvs_tesc_spv) },
      { mvs_tese_spv, sizeof(mvs_tese_spv) }, { mvs_geom_spv, sizeof(mvs_geom_spv) },
      { mvs_frag_spv, sizeof(mvs_frag_spv) },
   };
   for (int k = 0; k < 5; k++)
      CHECK_EQ_INT(vkt_shader_module(t, src[k].code, src[k].size, &mods[k]), VK_SUCCESS);
   static const VkShaderStageFlagBits stage_bits[5] = {
      VK_SHADER_STAGE_VERTEX_BIT, VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
      VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, VK_SHADER_STAGE_GEOMETRY_BIT,
      VK_SHADER_STAGE_FRAGMENT_BIT,
   };
   VkPipeline pipes[3] = { 0 };
   for (int b = 0; b < 3; b++) {
      const bool tess = b != 1, geom = b != 0;
      VkPipelineShaderStageCreateInfo stages[5];
      uint32_t n = 0;
      for (int k = 0; k < 5; k++) {
         if ((k == 1 || k == 2) && !tess)
            continue;
         if (k == 3 && !geom)
            continue;
         stages[n++] = (VkPipelineShaderStageCreateInfo){
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = stage_bits[k], .module = mods[k], .pName = "main",
         };
      }
      CHECK_EQ_INT(pipeline_build(t, rp, 0, stages, n, tess, layout, VK_SAMPLE_COUNT_1_BIT,
                                  &pipes[b]),
                   VK_SUCCESS);
   }
   struct vkt_buffer out;
   CHECK_EQ_INT(vkt_buffer_create(t, (VkDeviceSize)W * H * 4 * layers,
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &out), VK_SUCCESS);
   if (pipes[0] && pipes[1] && pipes[2] && fb) {
      VkCommandBuffer cb = vkt_begin(t);
      image_poison(cb, &img);
      const VkClearValue clear = cv(clear0);
      const VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb, .renderArea = { { 0, 0 }, { W, H } },
         .clearValueCount = 1, .pClearValues = &clear,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      for (int b = 0; b < 3; b++) {
         struct { float rect[4]; uint32_t tri; } pc;
         memcpy(pc.rect, band_rect[b], sizeof(pc.rect));
         pc.tri = b == 1;
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[b]);
         vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, 20, &pc);
         vkCmdDraw(cb, b == 1 ? 6 : 4, 1, 0, 0);
      }
      vkCmdEndRenderPass(cb);
      image_readback(cb, &img, &out);
      CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
      char what[64];
      snprintf(what, sizeof(what), "%s: tessellation and geometry shaders", dn);
      compare(what, &out, layers, ref_stages);
   } else {
      CHECK(0, "%s: stages: setup failed", dn);
   }
   vkt_buffer_destroy(t, &out);
   for (int b = 0; b < 3; b++)
      vkDestroyPipeline(t->device, pipes[b], NULL);
   for (int k = 0; k < 5; k++)
      vkDestroyShaderModule(t->device, mods[k], NULL);
   vkDestroyPipelineLayout(t->device, layout, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   image_destroy(t, &img);
   vkt_finish(t);
}

int
main(void)
{
   const char *inst_ext[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   const char *dev_ext[] = { VK_KHR_MULTIVIEW_EXTENSION_NAME,
                             VK_KHR_CREATE_RENDERPASS_2_EXTENSION_NAME };
   VkPhysicalDeviceMultiviewFeatures mvf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
      .multiview = VK_TRUE,
   };
   struct vkt_options opts = {
      .driver = VKT_SHALE,
      .instance_extensions = inst_ext, .instance_extension_count = 1,
      .api_version = VK_API_VERSION_1_1,   /* create_renderpass2 needs maintenance2 */
      .device_extensions = dev_ext, .device_extension_count = 2,
      .device_pnext = &mvf,
   };
   struct vkt t;
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device with VK_KHR_multiview not available");
      return check_finish();
   }
   /* What the device claims: multiview with geometry and tessellation
    * shaders (test_stages), 32 views, instance indices to 2^27 - 1. */
   PFN_vkGetPhysicalDeviceFeatures2KHR features2 = (PFN_vkGetPhysicalDeviceFeatures2KHR)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceFeatures2KHR");
   PFN_vkGetPhysicalDeviceProperties2KHR props2 = (PFN_vkGetPhysicalDeviceProperties2KHR)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceProperties2KHR");
   CHECK(features2 && props2, "no vkGetPhysicalDeviceFeatures2KHR/Properties2KHR");
   if (features2 && props2) {
      VkPhysicalDeviceMultiviewFeatures f = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES,
         .multiviewGeometryShader = VK_TRUE, .multiviewTessellationShader = VK_TRUE,
      };
      VkPhysicalDeviceFeatures2 f2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f };
      features2(t.pdev, &f2);
      CHECK(f.multiview && f.multiviewGeometryShader && f.multiviewTessellationShader,
            "multiview features %u %u %u", f.multiview, f.multiviewGeometryShader,
            f.multiviewTessellationShader);
      VkPhysicalDeviceMultiviewProperties p = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES,
      };
      VkPhysicalDeviceProperties2 p2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &p };
      props2(t.pdev, &p2);
      CHECK(p.maxMultiviewViewCount == 32 && p.maxMultiviewInstanceIndex == (1u << 27) - 1,
            "multiview properties %u %u", p.maxMultiviewViewCount, p.maxMultiviewInstanceIndex);
   }
   test_single(&t, 0x3, 2, false);
   test_single(&t, 0xb, 4, false);            /* views 0, 1, 3: layer 2 untouched */
   test_single(&t, 0x80000004u, 32, false);   /* views 2 and 31 */
   test_single(&t, 0x5, 3, true);             /* views 0 and 2, create_renderpass2 */
   test_subpasses(&t);
   test_resolve(&t);
   vkt_finish(&t);
   test_stages(VKT_SHALE);
   test_stages(VKT_LAVAPIPE);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
