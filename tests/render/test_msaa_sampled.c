/* Shaders reading 4-sample images, through the loader with the validation
 * layer, on Shale and (when present) lavapipe: a render pass draws distinct
 * values into every sample of a colour attachment (layer 1 of a two-layer
 * 4-sample image, per-sample shading: pixel, SampleId, SamplePosition) and
 * of a D32_SFLOAT_S8_UINT attachment (FragDepth per sample; stencil
 * references per sample through SampleMask outputs); its second subpass
 * reads every sample of the colour through a subpassInputMS into a buffer;
 * a compute shader then reads every sample by texelFetch of sampler2DMS
 * (colour, the depth aspect, the stencil aspect as usampler2DMS) and
 * sampler2DMSArray (both layers; layer 0 cleared by vkCmdClearColorImage),
 * with textureSize and textureSamples. Everything is compared exactly with
 * a CPU reference. Also checked: the sampledImage{Color,Depth,Stencil}
 * SampleCounts limits (1 | 4) and the 4-sample counts that
 * vkGetPhysicalDeviceImageFormatProperties reports for SAMPLED and
 * INPUT_ATTACHMENT usage, also integer SAMPLED (render/msaa_integer
 * samples them), and for STORAGE usage (render/msaa_storage writes and
 * reads them)). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "fullscreen_vert_spv.h"
#include "mss_fetch_comp_spv.h"
#include "mss_input_frag_spv.h"
#include "mss_mask_frag_spv.h"
#include "mss_write_frag_spv.h"

#define W 8
#define H 8
#define S 4
#define COLOR_FORMAT VK_FORMAT_R32G32B32A32_SFLOAT
#define DS_FORMAT VK_FORMAT_D32_SFLOAT_S8_UINT

/* Vulkan's standard 4-sample positions. */
static const float positions[S][2] = {
   { 0.375f, 0.125f }, { 0.875f, 0.375f }, { 0.125f, 0.625f }, { 0.625f, 0.875f }
};
static const float layer0[4] = { 7.0f, 8.0f, 9.0f, 10.0f };

/* The compute shader's output block (std430). */
struct fetch_out {
   float c[W * H * S][4];
   float a[2 * W * H * S][4];
   float d[W * H * S];
   uint32_t st[W * H * S];
   int32_t q[4][4];
};

static void
ref_color(uint32_t x, uint32_t y, uint32_t s, float out[4])
{
   out[0] = (float)x;
   out[1] = (float)y;
   out[2] = (float)s;
   out[3] = positions[s][0] + 2.0f * positions[s][1];
}

static float
ref_depth(uint32_t x, uint32_t y, uint32_t s)
{
   return ((float)s * 64.0f + (float)x + (float)y * 8.0f) / 1024.0f;
}

static uint32_t
ref_stencil(uint32_t s)
{
   return 20 + 3 * s;
}

static void
check_limits(struct vkt *t)
{
   const VkPhysicalDeviceLimits *l = &t->props.limits;
   const VkSampleCountFlags c14 = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
   CHECK((l->sampledImageColorSampleCounts & c14) == c14, "sampledImageColorSampleCounts %#x",
         l->sampledImageColorSampleCounts);
   CHECK((l->sampledImageDepthSampleCounts & c14) == c14, "sampledImageDepthSampleCounts %#x",
         l->sampledImageDepthSampleCounts);
   CHECK((l->sampledImageStencilSampleCounts & c14) == c14, "sampledImageStencilSampleCounts %#x",
         l->sampledImageStencilSampleCounts);
   if (t->driver != VKT_SHALE)
      return;
   /* Shale's own claims: integer sampled images 1 | 4 (render/msaa_integer),
    * storage images 1 | 4 (render/msaa_storage). */
   CHECK(l->sampledImageColorSampleCounts == c14 && l->sampledImageDepthSampleCounts == c14 &&
         l->sampledImageStencilSampleCounts == c14, "sampled sample counts beyond 1 | 4");
   CHECK(l->sampledImageIntegerSampleCounts == c14 &&
         l->storageImageSampleCounts == c14,
         "integer %#x / storage %#x sample counts", l->sampledImageIntegerSampleCounts,
         l->storageImageSampleCounts);
   static const struct {
      VkFormat format;
      VkImageUsageFlags usage;
      VkSampleCountFlags expect;
   } cases[] = {
      { VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 5 },
      { COLOR_FORMAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT, 5 },
      { VK_FORMAT_R16G16B16A16_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT, 5 },
      { VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT, 5 },
      { VK_FORMAT_D16_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT, 5 },
      { DS_FORMAT, VK_IMAGE_USAGE_SAMPLED_BIT, 5 },
      { VK_FORMAT_D24_UNORM_S8_UINT, VK_IMAGE_USAGE_SAMPLED_BIT, 5 },
      { VK_FORMAT_R32_UINT, VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT, 5 },
      { VK_FORMAT_R32_UINT, VK_IMAGE_USAGE_SAMPLED_BIT, 5 },
      { VK_FORMAT_R8G8B8A8_SINT, VK_IMAGE_USAGE_SAMPLED_BIT, 5 },
      { VK_FORMAT_R32_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT, 5 },
      { VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT, 5 },
   };
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      VkImageFormatProperties p;
      VkResult r = vkGetPhysicalDeviceImageFormatProperties(
         t->pdev, cases[i].format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, cases[i].usage, 0, &p);
      CHECK(r == VK_SUCCESS && p.sampleCounts == cases[i].expect,
            "format %u usage %#x: result %d sampleCounts %#x, expected %#x", cases[i].format,
            cases[i].usage, r, p.sampleCounts, cases[i].expect);
   }
}

static VkResult
make_view(struct vkt *t, VkImage image, VkImageViewType type, VkFormat format,
          VkImageAspectFlags aspect, uint32_t layer, uint32_t layers, VkImageView *out)
{
   VkImageViewCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = image,
      .viewType = type,
      .format = format,
      .subresourceRange = { aspect, 0, 1, layer, layers },
   };
   return vkCreateImageView(t->device, &ci, NULL, out);
}

static VkRenderPass
make_render_pass(struct vkt *t)
{
   VkAttachmentDescription att[2] = {
      { 0, COLOR_FORMAT, VK_SAMPLE_COUNT_4_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL },
      { 0, DS_FORMAT, VK_SAMPLE_COUNT_4_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL },
   };
   VkAttachmentReference color = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference ds = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkAttachmentReference input = { 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   uint32_t preserve = 1;
   VkSubpassDescription sub[2] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .colorAttachmentCount = 1, .pColorAttachments = &color,
        .pDepthStencilAttachment = &ds },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
        .inputAttachmentCount = 1, .pInputAttachments = &input,
        .preserveAttachmentCount = 1, .pPreserveAttachments = &preserve },
   };
   VkSubpassDependency dep[2] = {
      { 0, 1, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_INPUT_ATTACHMENT_READ_BIT,
        VK_DEPENDENCY_BY_REGION_BIT },
      { 1, VK_SUBPASS_EXTERNAL,
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
           VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
           VK_ACCESS_SHADER_WRITE_BIT,
        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_HOST_READ_BIT, 0 },
   };
   VkRenderPassCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2, .pAttachments = att,
      .subpassCount = 2, .pSubpasses = sub,
      .dependencyCount = 2, .pDependencies = dep,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   VkResult r = vkCreateRenderPass(t->device, &ci, NULL, &rp);
   CHECK(r == VK_SUCCESS, "vkCreateRenderPass: %d", r);
   return rp;
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   VkResult r;
   /* The two-layer colour image, its layer-1 attachment view and the
    * depth/stencil image. */
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = COLOR_FORMAT,
      .extent = { W, H, 1 },
      .mipLevels = 1,
      .arrayLayers = 2,
      .samples = VK_SAMPLE_COUNT_4_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
               VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   struct vkt_image color = { 0 }, ds = { 0 };
   r = vkt_image_create(t, &ici, &color);
   CHECK(r == VK_SUCCESS, "%s: 4-sample sampled colour image: %d", drv, r);
   ici.format = DS_FORMAT;
   ici.arrayLayers = 1;
   ici.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
   VkResult r2 = vkt_image_create(t, &ici, &ds);
   CHECK(r2 == VK_SUCCESS, "%s: 4-sample sampled depth/stencil image: %d", drv, r2);
   if (r != VK_SUCCESS || r2 != VK_SUCCESS) {
      vkt_image_destroy(t, &color);
      vkt_image_destroy(t, &ds);
      return;
   }
   VkImageView v_att, v_ds, v_col, v_arr, v_dep, v_sten;
   make_view(t, color.image, VK_IMAGE_VIEW_TYPE_2D, COLOR_FORMAT, VK_IMAGE_ASPECT_COLOR_BIT, 1, 1,
             &v_att);
   make_view(t, color.image, VK_IMAGE_VIEW_TYPE_2D, COLOR_FORMAT, VK_IMAGE_ASPECT_COLOR_BIT, 1, 1,
             &v_col);
   make_view(t, color.image, VK_IMAGE_VIEW_TYPE_2D_ARRAY, COLOR_FORMAT, VK_IMAGE_ASPECT_COLOR_BIT,
             0, 2, &v_arr);
   make_view(t, ds.image, VK_IMAGE_VIEW_TYPE_2D, DS_FORMAT,
             VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, 0, 1, &v_ds);
   make_view(t, ds.image, VK_IMAGE_VIEW_TYPE_2D, DS_FORMAT, VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, &v_dep);
   make_view(t, ds.image, VK_IMAGE_VIEW_TYPE_2D, DS_FORMAT, VK_IMAGE_ASPECT_STENCIL_BIT, 0, 1,
             &v_sten);

   VkRenderPass rp = make_render_pass(t);
   VkImageView fb_views[2] = { v_att, v_ds };
   VkFramebufferCreateInfo fci = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp, .attachmentCount = 2, .pAttachments = fb_views,
      .width = W, .height = H, .layers = 1,
   };
   VkFramebuffer fb = VK_NULL_HANDLE;
   r = vkCreateFramebuffer(t->device, &fci, NULL, &fb);
   CHECK(r == VK_SUCCESS, "vkCreateFramebuffer: %d", r);

   /* Buffers: the subpass input's copy, the compute shader's output. */
   struct vkt_buffer in_buf = { 0 }, out_buf = { 0 };
   vkt_buffer_create(t, sizeof(float) * 4 * W * H * S, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in_buf);
   vkt_buffer_create(t, sizeof(struct fetch_out), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out_buf);
   memset(in_buf.map, 0xff, in_buf.size);
   memset(out_buf.map, 0xff, out_buf.size);

   /* Descriptor sets: subpass 1 (input attachment, buffer) and compute
    * (four combined image samplers, buffer). */
   VkDescriptorSetLayoutBinding b_in[2] = {
      { 0, VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL },
   };
   VkDescriptorSetLayoutBinding b_cs[5];
   for (uint32_t i = 0; i < 5; i++)
      b_cs[i] = (VkDescriptorSetLayoutBinding) {
         i, i < 4 ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         1, VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   VkDescriptorSetLayout sl[2] = { VK_NULL_HANDLE, VK_NULL_HANDLE };
   vkt_set_layout(t, b_in, 2, &sl[0]);
   vkt_set_layout(t, b_cs, 5, &sl[1]);
   VkDescriptorPoolSize sizes[3] = {
      { VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, 1 },
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 },
      { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 4 },
   };
   VkDescriptorPool pool = VK_NULL_HANDLE;
   vkt_descriptor_pool(t, 2, sizes, 3, 0, &pool);
   VkDescriptorSet sets[2] = { VK_NULL_HANDLE, VK_NULL_HANDLE };
   r = vkt_alloc_sets(t, pool, sl, 2, sets);
   CHECK(r == VK_SUCCESS, "sets: %d", r);
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_NEAREST, .minFilter = VK_FILTER_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
   };
   VkSampler sampler = VK_NULL_HANDLE;
   vkCreateSampler(t->device, &sci, NULL, &sampler);
   VkDescriptorImageInfo ii_in = { VK_NULL_HANDLE, v_att, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkDescriptorImageInfo ii_cs[4] = {
      { sampler, v_col, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL },
      { sampler, v_arr, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL },
      { sampler, v_dep, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL },
      { sampler, v_sten, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL },
   };
   VkDescriptorBufferInfo bi_in = { in_buf.buffer, 0, VK_WHOLE_SIZE };
   VkDescriptorBufferInfo bi_cs = { out_buf.buffer, 0, VK_WHOLE_SIZE };
   VkWriteDescriptorSet w[4] = {
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[0], 0, 0, 1,
        VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, &ii_in, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[0], 1, 0, 1,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi_in, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 0, 0, 4,
        VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, ii_cs, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 4, 0, 1,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi_cs, NULL },
   };
   vkUpdateDescriptorSets(t->device, 4, w, 0, NULL);

   /* Pipelines: per-sample colour and depth; stencil per sample; the
    * subpass-input reader; the compute fetcher. */
   VkPipelineLayout gl_plain = VK_NULL_HANDLE, gl_input = VK_NULL_HANDLE, cl = VK_NULL_HANDLE;
   const VkShaderStageFlags vf = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
   draw_pipeline_layout(t, VK_NULL_HANDLE, vf, 20, &gl_plain);
   draw_pipeline_layout(t, sl[0], vf, 20, &gl_input);
   draw_pipeline_layout(t, sl[1], 0, 0, &cl);
   VkPipelineMultisampleStateCreateInfo ms4 = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT,
   };
   VkPipelineDepthStencilStateCreateInfo dss_write = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_ALWAYS,
   };
   VkStencilOpState sop = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_REPLACE, VK_STENCIL_OP_KEEP,
                            VK_COMPARE_OP_ALWAYS, 0xff, 0xff, 0 };
   VkPipelineDepthStencilStateCreateInfo dss_stencil = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .stencilTestEnable = VK_TRUE, .front = sop, .back = sop,
   };
   VkPipelineDepthStencilStateCreateInfo dss_none = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
   };
   VkPipelineColorBlendAttachmentState no_write = { 0 };
   VkPipelineColorBlendStateCreateInfo cb_none = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = 1, .pAttachments = &no_write,
   };
   VkPipelineColorBlendStateCreateInfo cb_empty = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
   };
   static const VkDynamicState dyn_ref = VK_DYNAMIC_STATE_STENCIL_REFERENCE;
   struct draw_pipeline_info pi = {
      .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
      .fs = mss_write_frag_spv, .fs_size = sizeof(mss_write_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .cull_mode = VK_CULL_MODE_NONE,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .depth_stencil = &dss_write,
      .dynamic_viewport_scissor = true,
      .multisample = &ms4,
      .layout = gl_plain,
      .render_pass = rp, .subpass = 0, .color_count = 1,
   };
   struct draw_pipeline p_write = { 0 }, p_stencil = { 0 }, p_input = { 0 };
   r = draw_pipeline_create(t, NULL, &pi, &p_write);
   CHECK(r == VK_SUCCESS, "%s: per-sample pipeline: %d", drv, r);
   pi.fs = mss_mask_frag_spv;
   pi.fs_size = sizeof(mss_mask_frag_spv);
   pi.depth_stencil = &dss_stencil;
   pi.color_blend = &cb_none;
   pi.dynamic_states = &dyn_ref;
   pi.dynamic_state_count = 1;
   r = draw_pipeline_create(t, NULL, &pi, &p_stencil);
   CHECK(r == VK_SUCCESS, "%s: stencil pipeline: %d", drv, r);
   VkPipelineMultisampleStateCreateInfo ms1 = ms4;
   ms1.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
   pi.fs = mss_input_frag_spv;
   pi.fs_size = sizeof(mss_input_frag_spv);
   pi.depth_stencil = &dss_none;
   pi.color_blend = &cb_empty;
   pi.dynamic_states = NULL;
   pi.dynamic_state_count = 0;
   pi.multisample = &ms1;
   pi.layout = gl_input;
   pi.subpass = 1;
   pi.color_count = 0;
   r = draw_pipeline_create(t, NULL, &pi, &p_input);
   CHECK(r == VK_SUCCESS, "%s: subpass input pipeline: %d", drv, r);
   VkShaderModule cs_mod = VK_NULL_HANDLE;
   VkPipeline cs = VK_NULL_HANDLE;
   vkt_shader_module(t, mss_fetch_comp_spv, sizeof(mss_fetch_comp_spv), &cs_mod);
   r = vkt_compute_pipeline(t, VK_NULL_HANDLE, cs_mod, cl, NULL, 0, NULL, &cs);
   CHECK(r == VK_SUCCESS, "%s: fetch pipeline: %d", drv, r);

   if (fb && p_write.pipeline && p_stencil.pipeline && p_input.pipeline && cs && sets[1]) {
      VkCommandBuffer cb = vkt_begin(t);
      /* Layer 0: one colour in every sample; both layers then shader-read. */
      vkt_image_barrier(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      VkClearColorValue cc;
      memcpy(cc.float32, layer0, sizeof(layer0));
      VkImageSubresourceRange l0 = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
      vkCmdClearColorImage(cb, color.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cc, 1, &l0);
      vkt_image_barrier(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
      VkClearValue clears[2] = { { .color = { { -1.0f, -1.0f, -1.0f, -1.0f } } },
                                 { .depthStencil = { 1.0f, 0 } } };
      VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb,
         .renderArea = { { 0, 0 }, { W, H } },
         .clearValueCount = 2, .pClearValues = clears,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      VkViewport vp = { 0, 0, W, H, 0, 1 };
      VkRect2D sc = { { 0, 0 }, { W, H } };
      vkCmdSetViewport(cb, 0, 1, &vp);
      vkCmdSetScissor(cb, 0, 1, &sc);
      float z = 0.5f;
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p_write.pipeline);
      vkCmdPushConstants(cb, gl_plain, vf, 16, 4, &z);
      vkCmdDraw(cb, 3, 1, 0, 0);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p_stencil.pipeline);
      for (uint32_t s = 0; s < S; s++) {
         int32_t mask = 1 << s;
         vkCmdPushConstants(cb, gl_plain, vf, 0, 4, &mask);
         vkCmdSetStencilReference(cb, VK_STENCIL_FACE_FRONT_AND_BACK, ref_stencil(s));
         vkCmdDraw(cb, 3, 1, 0, 0);
      }
      vkCmdNextSubpass(cb, VK_SUBPASS_CONTENTS_INLINE);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p_input.pipeline);
      vkCmdSetViewport(cb, 0, 1, &vp);
      vkCmdSetScissor(cb, 0, 1, &sc);
      int32_t width = W;
      vkCmdPushConstants(cb, gl_input, vf, 0, 4, &width);
      vkCmdPushConstants(cb, gl_input, vf, 16, 4, &z);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, gl_input, 0, 1, &sets[0], 0,
                              NULL);
      vkCmdDraw(cb, 3, 1, 0, 0);
      vkCmdEndRenderPass(cb);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, cs);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, cl, 0, 1, &sets[1], 0, NULL);
      vkCmdDispatch(cb, 1, 1, 1);
      vkt_compute_barrier(cb);
      draw_host_barrier(cb);
      r = vkt_submit_wait(t, cb);
      CHECK(r == VK_SUCCESS, "%s: submit: %d", drv, r);

      const float(*in)[4] = in_buf.map;
      const struct fetch_out *o = out_buf.map;
      unsigned bad_in = 0, bad_c = 0, bad_a = 0, bad_d = 0, bad_s = 0;
      for (uint32_t y = 0; y < H; y++)
         for (uint32_t x = 0; x < W; x++)
            for (uint32_t s = 0; s < S; s++) {
               uint32_t i = (y * W + x) * S + s;
               float ref[4];
               ref_color(x, y, s, ref);
               if (memcmp(in[i], ref, sizeof(ref)) && bad_in++ < 4)
                  printf("%s: subpassLoad (%u,%u) sample %u: %g %g %g %g, expected %g %g %g %g\n",
                         drv, x, y, s, in[i][0], in[i][1], in[i][2], in[i][3], ref[0], ref[1],
                         ref[2], ref[3]);
               if (memcmp(o->c[i], ref, sizeof(ref)) && bad_c++ < 4)
                  printf("%s: texelFetch (%u,%u) sample %u: %g %g %g %g, expected %g %g %g %g\n",
                         drv, x, y, s, o->c[i][0], o->c[i][1], o->c[i][2], o->c[i][3], ref[0],
                         ref[1], ref[2], ref[3]);
               if ((memcmp(o->a[W * H * S + i], ref, sizeof(ref)) ||
                    memcmp(o->a[i], layer0, sizeof(layer0))) && bad_a++ < 4)
                  printf("%s: array texelFetch (%u,%u) sample %u: layer 0 %g %g %g %g, layer 1 "
                         "%g %g %g %g\n", drv, x, y, s, o->a[i][0], o->a[i][1], o->a[i][2],
                         o->a[i][3], o->a[W * H * S + i][0], o->a[W * H * S + i][1],
                         o->a[W * H * S + i][2], o->a[W * H * S + i][3]);
               if (o->d[i] != ref_depth(x, y, s) && bad_d++ < 4)
                  printf("%s: depth texelFetch (%u,%u) sample %u: %.9g, expected %.9g\n", drv, x,
                         y, s, o->d[i], ref_depth(x, y, s));
               if (o->st[i] != ref_stencil(s) && bad_s++ < 4)
                  printf("%s: stencil texelFetch (%u,%u) sample %u: %u, expected %u\n", drv, x, y,
                         s, o->st[i], ref_stencil(s));
            }
      CHECK(!bad_in, "%s: %u samples read through subpassInputMS differ", drv, bad_in);
      CHECK(!bad_c, "%s: %u samples read through sampler2DMS differ", drv, bad_c);
      CHECK(!bad_a, "%s: %u samples read through sampler2DMSArray differ", drv, bad_a);
      CHECK(!bad_d, "%s: %u depth samples differ", drv, bad_d);
      CHECK(!bad_s, "%s: %u stencil samples differ", drv, bad_s);
      static const int32_t q_ref[3][4] = { { W, H, S, S }, { W, H, 2, S }, { W, H, S, 0 } };
      CHECK(!memcmp(o->q, q_ref, sizeof(q_ref)),
            "%s: textureSize/textureSamples %d %d %d %d / %d %d %d %d / %d %d %d %d", drv,
            o->q[0][0], o->q[0][1], o->q[0][2], o->q[0][3], o->q[1][0], o->q[1][1], o->q[1][2],
            o->q[1][3], o->q[2][0], o->q[2][1], o->q[2][2], o->q[2][3]);
   }

   vkDestroyPipeline(t->device, cs, NULL);
   vkDestroyShaderModule(t->device, cs_mod, NULL);
   draw_pipeline_destroy(t, &p_write);
   draw_pipeline_destroy(t, &p_stencil);
   draw_pipeline_destroy(t, &p_input);
   vkDestroyPipelineLayout(t->device, gl_plain, NULL);
   vkDestroyPipelineLayout(t->device, gl_input, NULL);
   vkDestroyPipelineLayout(t->device, cl, NULL);
   vkDestroySampler(t->device, sampler, NULL);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl[0], NULL);
   vkDestroyDescriptorSetLayout(t->device, sl[1], NULL);
   vkt_buffer_destroy(t, &in_buf);
   vkt_buffer_destroy(t, &out_buf);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   VkImageView views[6] = { v_att, v_ds, v_col, v_arr, v_dep, v_sten };
   for (int i = 0; i < 6; i++)
      vkDestroyImageView(t->device, views[i], NULL);
   vkt_image_destroy(t, &color);
   vkt_image_destroy(t, &ds);
}

int
main(void)
{
   static const VkPhysicalDeviceFeatures features = {
      .sampleRateShading = VK_TRUE,
      .fragmentStoresAndAtomics = VK_TRUE,
   };
   for (int d = 0; d < 2; d++) {
      struct vkt_options opts = {
         .driver = d ? VKT_LAVAPIPE : VKT_SHALE,
         .features = &features,
      };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(d == 1, "shale not available");
         if (d == 1)
            printf("lavapipe not available: Shale's results are checked against the reference "
                   "only\n");
         continue;
      }
      check_limits(&t);
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
