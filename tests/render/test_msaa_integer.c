/*
 * 4-sample integer colour images, drawn and then sampled, through the
 * loader with the validation layer (Shale): for R8G8B8A8_UINT, R16G16_SINT,
 * R32_UINT, A2B10G10R10_UINT_PACK32, R32G32B32A32_SINT and R8_SINT, a
 * render pass clears a 4x image (an integer clear value) and draws a
 * different value into each sample of each half of the image (one draw per
 * sample: pSampleMask of that sample alone, const_uint / const_int
 * fragment shaders; sample 3 of the right half is left cleared); a compute
 * shader then reads every sample with texelFetch of a usampler2DMS /
 * isampler2DMS, and every channel of every sample (absent channels 0, alpha
 * 1) is compared exactly with the values drawn. Also checked:
 * sampledImageIntegerSampleCounts is 1 | 4 and
 * vkGetPhysicalDeviceImageFormatProperties reports 1 | 4 for integer
 * formats with SAMPLED (and COLOR_ATTACHMENT) usage.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_int_frag_spv.h"
#include "const_uint_frag_spv.h"
#include "fullscreen_vert_spv.h"
#include "mss_int_i_comp_spv.h"
#include "mss_int_u_comp_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define W 8
#define H 8
#define S 4

struct fmt {
   VkFormat format;
   const char *name;
   bool sint;
   uint32_t nch;
   uint32_t bits[4];
};

static const struct fmt formats[] = {
   { VK_FORMAT_R8G8B8A8_UINT, "R8G8B8A8_UINT", false, 4, { 8, 8, 8, 8 } },
   { VK_FORMAT_R16G16_SINT, "R16G16_SINT", true, 2, { 16, 16 } },
   { VK_FORMAT_R32_UINT, "R32_UINT", false, 1, { 32 } },
   { VK_FORMAT_A2B10G10R10_UINT_PACK32, "A2B10G10R10_UINT", false, 4, { 10, 10, 10, 2 } },
   { VK_FORMAT_R32G32B32A32_SINT, "R32G32B32A32_SINT", true, 4, { 32, 32, 32, 32 } },
   { VK_FORMAT_R8_SINT, "R8_SINT", true, 1, { 8 } },
};

/* The value channel k of sample s in half h holds (in range for the
 * channel: unsigned below 2^bits, signed of either sign). */
static uint32_t
value_of(const struct fmt *f, uint32_t h, uint32_t s, uint32_t k)
{
   uint32_t b = f->bits[k];
   uint32_t v = (h * 4 + s + 1) * 29 + k * 7 + (b > 16 ? 0x12340000u * (s + 1) : 0);
   if (!f->sint)
      return b == 32 ? v : v & ((1u << b) - 1);
   uint32_t m = b == 32 ? 0x7fffffffu : (1u << (b - 1)) - 1;
   int32_t iv = (int32_t)(v & m);
   return (uint32_t)((s + k) & 1 ? -iv : iv);
}

static uint32_t
clear_of(const struct fmt *f, uint32_t k)
{
   if (k >= f->nch)
      return 0;
   return f->sint ? (uint32_t)(-3 - (int32_t)k) : (5 + k) & (uint32_t)((1ull << f->bits[k]) - 1);
}

/* What texelFetch returns for channel k (absent: 0, alpha 1). */
static uint32_t
expected(const struct fmt *f, uint32_t x, uint32_t s, uint32_t k)
{
   if (k >= f->nch)
      return k == 3 ? 1 : 0;
   uint32_t h = x >= W / 2;
   if (h == 1 && s == 3)
      return clear_of(f, k);
   return value_of(f, h, s, k);
}

static void
check_limits(struct vkt *t)
{
   const VkSampleCountFlags c14 = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
   CHECK(t->props.limits.sampledImageIntegerSampleCounts == c14,
         "sampledImageIntegerSampleCounts %#x", t->props.limits.sampledImageIntegerSampleCounts);
   for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
      VkImageFormatProperties p;
      VkResult r = vkGetPhysicalDeviceImageFormatProperties(
         t->pdev, formats[i].format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
         VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, 0, &p);
      CHECK(r == VK_SUCCESS && p.sampleCounts == c14, "%s: sampled sample counts %#x",
            formats[i].name, p.sampleCounts);
   }
}

static void
run_format(struct vkt *t, const struct fmt *f)
{
   struct vkt_image img = { 0 };
   VkImageView view = VK_NULL_HANDLE;
   CHECK_VK(draw_image_create(t, f->format, W, H, VK_SAMPLE_COUNT_4_BIT,
                              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                              VK_IMAGE_ASPECT_COLOR_BIT, &img, &view));
   VkAttachmentDescription att = {
      .format = f->format, .samples = VK_SAMPLE_COUNT_4_BIT,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .finalLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
   };
   VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &ref,
   };
   VkSubpassDependency dep = {
      .srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
      .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
      .dstStageMask = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
      .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 1, .pAttachments = &att, .subpassCount = 1, .pSubpasses = &sub,
      .dependencyCount = 1, .pDependencies = &dep,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_VK(vkCreateRenderPass(t->device, &rpci, NULL, &rp));
   VkFramebuffer fb = VK_NULL_HANDLE;
   CHECK_VK(draw_framebuffer(t, rp, &view, 1, W, H, 1, &fb));

   struct draw_pipeline pipes[S];
   memset(pipes, 0, sizeof(pipes));
   VkSampleMask masks[S];
   VkPipelineMultisampleStateCreateInfo msi[S];
   for (uint32_t s = 0; s < S; s++) {
      masks[s] = 1u << s;
      msi[s] = (VkPipelineMultisampleStateCreateInfo) {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
         .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT, .pSampleMask = &masks[s],
      };
      struct draw_pipeline_info pi = {
         .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
         .fs = f->sint ? const_int_frag_spv : const_uint_frag_spv,
         .fs_size = f->sint ? sizeof(const_int_frag_spv) : sizeof(const_uint_frag_spv),
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .cull_mode = VK_CULL_MODE_NONE, .polygon_mode = VK_POLYGON_MODE_FILL,
         .push_size = 20, .dynamic_viewport_scissor = true, .multisample = &msi[s],
         .render_pass = rp, .subpass = 0, .color_count = 1,
      };
      CHECK_VK(draw_pipeline_create(t, NULL, &pi, &pipes[s]));
   }

   const VkDescriptorSetLayoutBinding bindings[2] = {
      { 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   struct vkt_kernel_info ki = {
      .code = f->sint ? mss_int_i_comp_spv : mss_int_u_comp_spv,
      .code_size = f->sint ? sizeof(mss_int_i_comp_spv) : sizeof(mss_int_u_comp_spv),
      .bindings = { bindings }, .binding_counts = { 2 },
   };
   struct vkt_kernel k;
   memset(&k, 0, sizeof(k));
   CHECK_VK(vkt_kernel_create(t, &ki, &k));
   const VkDescriptorPoolSize sizes[2] = { { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
                                           { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   CHECK_VK(vkt_descriptor_pool(t, 1, sizes, 2, 0, &pool));
   CHECK_VK(vkt_alloc_sets(t, pool, &k.set_layouts[0], 1, &set));
   VkSamplerCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO };
   VkSampler sampler = VK_NULL_HANDLE;
   CHECK_VK(vkCreateSampler(t->device, &sci, NULL, &sampler));
   struct vkt_buffer out = { 0 };
   CHECK_VK(vkt_buffer_create(t, W * H * S * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out));
   memset(out.map, 0xcd, W * H * S * 16);
   VkDescriptorImageInfo ii = { sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkWriteDescriptorSet wr = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0,
      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
      .pImageInfo = &ii,
   };
   vkUpdateDescriptorSets(t->device, 1, &wr, 0, NULL);
   VkDescriptorBufferInfo bi = { out.buffer, 0, VK_WHOLE_SIZE };
   vkt_write_buffers(t, set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bi, 1);

   VkClearValue clear;
   for (uint32_t c = 0; c < 4; c++)
      clear.color.uint32[c] = clear_of(f, c);
   VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp, .framebuffer = fb, .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 1, .pClearValues = &clear,
   };
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   VkViewport vp = { 0, 0, W, H, 0, 1 };
   vkCmdSetViewport(cb, 0, 1, &vp);
   for (uint32_t h = 0; h < 2; h++) {
      VkRect2D sc = { { (int32_t)(h * W / 2), 0 }, { W / 2, H } };
      vkCmdSetScissor(cb, 0, 1, &sc);
      for (uint32_t s = 0; s < S; s++) {
         if (h == 1 && s == 3)
            continue;   /* left at the clear value */
         uint32_t pc[5] = { 0, 0, 0, 0, 0 };
         for (uint32_t c = 0; c < f->nch; c++)
            pc[c] = value_of(f, h, s, c);
         float z = 0.5f;
         memcpy(&pc[4], &z, 4);
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[s].pipeline);
         vkCmdPushConstants(cb, pipes[s].layout,
                            VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                            sizeof(pc), pc);
         vkCmdDraw(cb, 3, 1, 0, 0);
      }
   }
   vkCmdEndRenderPass(cb);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, 1, 1, 1);
   vkt_compute_barrier(cb);
   CHECK_VK(vkt_submit_wait(t, cb));

   const uint32_t *o = out.map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++)
      for (uint32_t x = 0; x < W; x++)
         for (uint32_t s = 0; s < S; s++)
            for (uint32_t c = 0; c < 4; c++) {
               uint32_t got = o[((y * W + x) * S + s) * 4 + c], want = expected(f, x, s, c);
               if (got != want && bad++ < 6)
                  fprintf(stderr, "%s: (%u,%u) sample %u channel %u: 0x%08x, expected 0x%08x\n",
                          f->name, x, y, s, c, got, want);
            }
   CHECK(bad == 0, "%s: %u sample channels differ", f->name, bad);
   printf("%s: %s\n", f->name, bad ? "FAILED" : "every sample exact");

   vkt_buffer_destroy(t, &out);
   vkDestroySampler(t->device, sampler, NULL);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_kernel_destroy(t, &k);
   for (uint32_t s = 0; s < S; s++)
      draw_pipeline_destroy(t, &pipes[s]);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkDestroyImageView(t->device, view, NULL);
   vkt_image_destroy(t, &img);
}

int
main(void)
{
   struct vkt t;
   if (!draw_open_shale(&t))
      return check_finish();
   check_limits(&t);
   for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
      run_format(&t, &formats[i]);
   return draw_close_shale(&t);
}
