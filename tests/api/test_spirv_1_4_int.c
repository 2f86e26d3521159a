/* Integer sampling in SPIR-V 1.4 modules (VK_KHR_spirv_1_4) through the
 * loader with the validation layer, on Shale and (when it offers the
 * extension) lavapipe. glslang's --target-env spirv1.4 output puts a
 * SignExtend (isampler) or ZeroExtend (usampler) image operand on every
 * OpImageFetch, OpImageSample*Lod and OpImageGather with an integer result;
 * s14_int.comp does texelFetch, textureLod (NEAREST) and textureGather on a
 * 16x16 image of R8_SINT, R16_SINT (negative values included), R8_UINT and
 * R16_UINT (values with the top bit set), through a combined image sampler
 * (clamp to edge): every word against a CPU reference (the texel extended
 * by the format's signedness, as the operand asks; gathers take the 2x2
 * footprint at (x + 0.75, y + 0.75) / 16, i.e. texels x..x+1, y..y+1,
 * clamped). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "s14_int_i_spv.h"
#include "s14_int_u_spv.h"

#define W 16
#define WORDS 6

struct fmt {
   VkFormat format;
   unsigned bytes;
   bool sint;
   const char *name;
};

static const struct fmt fmts[] = {
   { VK_FORMAT_R8_SINT, 1, true, "R8_SINT" },
   { VK_FORMAT_R16_SINT, 2, true, "R16_SINT" },
   { VK_FORMAT_R8_UINT, 1, false, "R8_UINT" },
   { VK_FORMAT_R16_UINT, 2, false, "R16_UINT" },
};

/* The texel at (x, y), as its bits in the format. */
static uint32_t
texel_bits(const struct fmt *f, int x, int y)
{
   uint32_t v = (uint32_t)(x * 37 + y * 101) * 2654435761u;
   v ^= v >> 13;
   return f->bytes == 1 ? v & 0xff : v & 0xffff;
}

/* What the shader reads: the texel extended by the format's signedness. */
static uint32_t
texel_value(const struct fmt *f, int x, int y)
{
   x = x < 0 ? 0 : x >= W ? W - 1 : x;
   y = y < 0 ? 0 : y >= W ? W - 1 : y;
   uint32_t b = texel_bits(f, x, y);
   if (!f->sint)
      return b;
   return f->bytes == 1 ? (uint32_t)(int32_t)(int8_t)b : (uint32_t)(int32_t)(int16_t)b;
}

static void
run_format(struct vkt *t, const struct fmt *f)
{
   const char *drv = vkt_driver_name(t->driver);
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t->pdev, f->format, &fp);
   if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) {
      CHECK(t->driver != VKT_SHALE, "%s: %s not sampled", drv, f->name);
      return;
   }
   const VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
      .format = f->format, .extent = { W, W, 1 }, .mipLevels = 1, .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   struct vkt_image img = { 0 };
   VkResult r = vkt_image_create(t, &ici, &img);
   const VkDescriptorSetLayoutBinding b[2] = {
      { .binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
      { .binding = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
   };
   const struct vkt_kernel_info kinfo = {
      .code = f->sint ? s14_int_i_spv : s14_int_u_spv,
      .code_size = f->sint ? sizeof(s14_int_i_spv) : sizeof(s14_int_u_spv),
      .bindings = { b, NULL }, .binding_counts = { 2, 0 },
   };
   struct vkt_kernel k = { 0 };
   if (r == VK_SUCCESS) {
      r = vkt_kernel_create(t, &kinfo, &k);
      CHECK(r == VK_SUCCESS, "%s: %s: the SPIR-V 1.4 %s kernel: %d", drv, f->name,
            f->sint ? "isampler2D" : "usampler2D", r);
   }
   VkImageView view = VK_NULL_HANDLE;
   VkSampler sampler = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = img.image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = f->format,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
      };
      r = vkCreateImageView(t->device, &vci, NULL, &view);
   }
   if (r == VK_SUCCESS) {
      const VkSamplerCreateInfo sci = {
         .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = VK_FILTER_NEAREST,
         .minFilter = VK_FILTER_NEAREST, .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
         .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
         .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
         .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      };
      r = vkCreateSampler(t->device, &sci, NULL, &sampler);
   }
   struct vkt_buffer up = { 0 }, out = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 2 * W * W, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 4 * WORDS * W * W, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out);
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkDescriptorPoolSize ps[2] = { { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
                                           { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
      r = vkt_descriptor_pool(t, 1, ps, 2, 0, &pool);
      if (r == VK_SUCCESS)
         r = vkt_alloc_sets(t, pool, k.set_layouts, 1, &set);
   }
   CHECK(r == VK_SUCCESS, "%s: %s: image, kernel, view, buffers and set: %d", drv, f->name, r);
   if (r == VK_SUCCESS) {
      uint8_t *u = up.map;
      for (int y = 0; y < W; y++)
         for (int x = 0; x < W; x++) {
            uint32_t v = texel_bits(f, x, y);
            memcpy(u + (y * W + x) * f->bytes, &v, f->bytes);   /* little-endian */
         }
      memset(out.map, 0xcd, 4 * WORDS * W * W);
      const VkDescriptorImageInfo ii = { sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
      const VkDescriptorBufferInfo bi = { out.buffer, 0, VK_WHOLE_SIZE };
      const VkWriteDescriptorSet w[2] = {
         { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0,
           .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
           .pImageInfo = &ii },
         { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 1,
           .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
           .pBufferInfo = &bi },
      };
      vkUpdateDescriptorSets(t->device, 2, w, 0, NULL);

      VkCommandBuffer cb = vkt_begin(t);
      vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      const VkBufferImageCopy copy = {
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 }, .imageExtent = { W, W, 1 },
      };
      vkCmdCopyBufferToImage(cb, up.buffer, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                             &copy);
      vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, NULL);
      vkCmdDispatch(cb, 1, 1, 1);
      vkt_compute_barrier(cb);
      r = vkt_submit_wait(t, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: submit: %d", drv, f->name, r);
   }
   if (r == VK_SUCCESS) {
      const uint32_t *got = out.map;
      unsigned bad = 0, negative = 0;
      for (int y = 0; y < W; y++)
         for (int x = 0; x < W; x++) {
            /* Gather's order: (i0, j1), (i1, j1), (i1, j0), (i0, j0). */
            const uint32_t want[WORDS] = {
               texel_value(f, x, y), texel_value(f, x, y),
               texel_value(f, x, y + 1), texel_value(f, x + 1, y + 1),
               texel_value(f, x + 1, y), texel_value(f, x, y),
            };
            negative += (int32_t)want[0] < 0;
            for (int j = 0; j < WORDS; j++) {
               uint32_t g = got[(y * W + x) * WORDS + j];
               if (g != want[j] && bad++ < 6)
                  printf("%s: %s: texel (%d, %d) word %d: 0x%08x, expected 0x%08x\n", drv,
                         f->name, x, y, j, g, want[j]);
            }
         }
      CHECK(bad == 0, "%s: %s: %u of %u words differ", drv, f->name, bad, WORDS * W * W);
      CHECK(!f->sint || negative > 0, "%s: no negative texels", f->name);
   }
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_buffer_destroy(t, &up);
   vkt_buffer_destroy(t, &out);
   vkDestroySampler(t->device, sampler, NULL);
   vkDestroyImageView(t->device, view, NULL);
   vkt_kernel_destroy(t, &k);
   vkt_image_destroy(t, &img);
}

int
main(void)
{
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      const char *dn = vkt_driver_name(drv);
      VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
      bool has_ext;
      const char *exts[2] = { VK_KHR_SPIRV_1_4_EXTENSION_NAME,
                              VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME };
      if (!vkt_query_features(drv, &f2, exts[0], &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      if (drv == VKT_SHALE)
         CHECK(has_ext, "Shale does not offer %s", exts[0]);
      if (!has_ext) {
         printf("%s lacks %s: skipped\n", dn, exts[0]);
         continue;
      }
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = exts, .device_extension_count = 2 };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with %s", dn, exts[0]);
         continue;
      }
      for (unsigned i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
         run_format(&t, &fmts[i]);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
