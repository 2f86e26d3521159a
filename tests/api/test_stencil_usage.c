/* Separate stencil usage (VkImageStencilUsageCreateInfo,
 * VK_EXT_separate_stencil_usage, core in Vulkan 1.2) through the loader with
 * the validation layer, on Shale and (when present) lavapipe, with
 * D24_UNORM_S8_UINT (else D32_SFLOAT_S8_UINT):
 *  - vkGetPhysicalDeviceImageFormatProperties2: a stencil usage of STORAGE
 *    (which no depth/stencil format has on Shale) is refused although the
 *    depth usage alone is supported (Shale only: lavapipe accepts it), one
 *    of DEPTH_STENCIL_ATTACHMENT and transfers is accepted;
 *  - a 16x16 image whose depth aspect is SAMPLED, attachment and transfers
 *    and whose stencil aspect is attachment and transfers only:
 *    both aspects are written from buffers (a depth gradient, a stencil
 *    pattern), a compute shader samples the depth aspect through a
 *    depth-only view (texelFetch), the stencil aspect is copied back out;
 *    every depth value (within one unit of 24 bits) and stencil byte is
 *    compared with what was written. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "su_depth_spv.h"

#define W 16
#define H 16

static VkFormat
pick_format(struct vkt *t)
{
   const VkFormat fmts[2] = { VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT };
   for (int i = 0; i < 2; i++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, fmts[i], &fp);
      const VkFormatFeatureFlags need = VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                        VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                        VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                        VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
      if ((fp.optimalTilingFeatures & need) == need)
         return fmts[i];
   }
   return VK_FORMAT_UNDEFINED;
}

static VkResult
query(struct vkt *t, VkFormat f, VkImageUsageFlags usage, VkImageUsageFlags stencil_usage)
{
   const VkImageStencilUsageCreateInfo su = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_STENCIL_USAGE_CREATE_INFO, .stencilUsage = stencil_usage,
   };
   const VkPhysicalDeviceImageFormatInfo2 info = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2, .pNext = &su,
      .format = f, .type = VK_IMAGE_TYPE_2D, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = usage,
   };
   VkImageFormatProperties2 props = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
   return vkGetPhysicalDeviceImageFormatProperties2(t->pdev, &info, &props);
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   VkFormat f = pick_format(t);
   CHECK(f != VK_FORMAT_UNDEFINED, "%s: no sampled D24S8 / D32S8 format", drv);
   if (f == VK_FORMAT_UNDEFINED)
      return;
   /* The depth usage has the transfers too: the validation layer
    * (1.3.239) checks barriers' layouts and copies of the stencil aspect
    * against the image's main usage. */
   const VkImageUsageFlags depth_usage =
      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   const VkImageUsageFlags stencil_usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                           VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                           VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   VkResult qr = query(t, f, depth_usage, stencil_usage);
   CHECK(qr == VK_SUCCESS, "%s: separate stencil usage refused: %d", drv, qr);
   qr = query(t, f, depth_usage, VK_IMAGE_USAGE_STORAGE_BIT);
   if (t->driver == VKT_SHALE)
      CHECK(qr == VK_ERROR_FORMAT_NOT_SUPPORTED, "%s: STORAGE stencil usage: %d", drv, qr);
   else if (qr == VK_SUCCESS)
      printf("%s accepts a STORAGE stencil usage of format %d (not checked)\n", drv, f);

   const VkImageStencilUsageCreateInfo su = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_STENCIL_USAGE_CREATE_INFO, .stencilUsage = stencil_usage,
   };
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .pNext = &su, .imageType = VK_IMAGE_TYPE_2D,
      .format = f, .extent = { W, H, 1 }, .mipLevels = 1, .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = depth_usage,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   struct vkt_image img = { 0 };
   VkResult r = vkt_image_create(t, &ici, &img);
   CHECK(r == VK_SUCCESS, "%s: image with a separate stencil usage: %d", drv, r);

   const VkDescriptorSetLayoutBinding b[2] = {
      { .binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
        .descriptorCount = 1, .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
      { .binding = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
   };
   const struct vkt_kernel_info kinfo = {
      .code = su_depth_spv, .code_size = sizeof(su_depth_spv),
      .bindings = { b, NULL }, .binding_counts = { 2, 0 },
   };
   struct vkt_kernel k = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_kernel_create(t, &kinfo, &k);
   VkImageView view = VK_NULL_HANDLE;
   VkSampler sampler = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = img.image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = f,
         .subresourceRange = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1 },
      };
      r = vkCreateImageView(t->device, &vci, NULL, &view);
   }
   if (r == VK_SUCCESS) {
      const VkSamplerCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO };
      r = vkCreateSampler(t->device, &sci, NULL, &sampler);
   }
   struct vkt_buffer up = { 0 }, out = { 0 }, sout = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 5 * W * H, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 4 * W * H, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, W * H, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &sout);
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkDescriptorPoolSize ps[2] = { { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
                                           { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
      r = vkt_descriptor_pool(t, 1, ps, 2, 0, &pool);
      if (r == VK_SUCCESS)
         r = vkt_alloc_sets(t, pool, k.set_layouts, 1, &set);
   }
   CHECK(r == VK_SUCCESS, "%s: kernel, view, buffers and set: %d", drv, r);
   /* Depth: a gradient over the texels (24-bit units, or their floats);
    * stencil: a byte pattern. */
   float want_depth[W * H];
   uint8_t want_stencil[W * H];
   if (r == VK_SUCCESS) {
      uint8_t *u = up.map;
      for (int i = 0; i < W * H; i++) {
         uint32_t units = (uint32_t)i * 65537u + 12345u;   /* < 2^24 */
         want_depth[i] = (float)(units / 16777215.0);
         if (f == VK_FORMAT_D24_UNORM_S8_UINT)
            memcpy(u + 4 * i, &units, 4);
         else
            memcpy(u + 4 * i, &want_depth[i], 4);
         want_stencil[i] = (uint8_t)((i * 37) ^ (i >> 3));
         u[4 * W * H + i] = want_stencil[i];
      }
      memset(out.map, 0, 4 * W * H);
      memset(sout.map, 0, W * H);
      const VkDescriptorImageInfo ii = { sampler, view,
                                         VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL };
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
      const VkImageAspectFlags ds = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
      vkt_image_barrier(cb, img.image, ds, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      const VkBufferImageCopy copies[2] = {
         { .bufferOffset = 0, .imageSubresource = { VK_IMAGE_ASPECT_DEPTH_BIT, 0, 0, 1 },
           .imageExtent = { W, H, 1 } },
         { .bufferOffset = 4 * W * H,
           .imageSubresource = { VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0, 1 },
           .imageExtent = { W, H, 1 } },
      };
      vkCmdCopyBufferToImage(cb, up.buffer, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 2,
                             copies);
      vkt_image_barrier(cb, img.image, ds, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, NULL);
      vkCmdDispatch(cb, 1, 1, 1);
      vkt_image_barrier(cb, img.image, ds, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      const VkBufferImageCopy back = {
         .imageSubresource = { VK_IMAGE_ASPECT_STENCIL_BIT, 0, 0, 1 }, .imageExtent = { W, H, 1 },
      };
      vkCmdCopyImageToBuffer(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, sout.buffer, 1,
                             &back);
      vkt_compute_barrier(cb);
      r = vkt_submit_wait(t, cb);
      CHECK(r == VK_SUCCESS, "%s: submit: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      const float *d = out.map;
      const uint8_t *s = sout.map;
      unsigned bad_d = 0, bad_s = 0;
      for (int i = 0; i < W * H; i++) {
         if (!(fabsf(d[i] - want_depth[i]) <= 1.0f / 16777215.0f) && bad_d++ < 4)
            printf("%s: depth %d: %.9f, expected %.9f\n", drv, i, d[i], want_depth[i]);
         if (s[i] != want_stencil[i] && bad_s++ < 4)
            printf("%s: stencil %d: %u, expected %u\n", drv, i, s[i], want_stencil[i]);
      }
      CHECK(bad_d == 0, "%s: %u depth texels sampled wrong", drv, bad_d);
      CHECK(bad_s == 0, "%s: %u stencil bytes differ", drv, bad_s);
   }
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_buffer_destroy(t, &up);
   vkt_buffer_destroy(t, &out);
   vkt_buffer_destroy(t, &sout);
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
      VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
      bool has_ext;
      const char *ext = VK_EXT_SEPARATE_STENCIL_USAGE_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      if (drv == VKT_SHALE)
         CHECK(has_ext, "Shale does not offer %s", ext);
      else if (!has_ext)
         printf("lavapipe lacks %s: reference run skipped\n", ext);
      if (!has_ext)
         continue;
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = &ext, .device_extension_count = 1 };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with %s", vkt_driver_name(drv), ext);
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
