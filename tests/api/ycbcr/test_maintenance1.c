/* VK_KHR_maintenance1, which VK_KHR_sampler_ycbcr_conversion requires, in
 * the parts that are not tested elsewhere (vkTrimCommandPool: api/cmdbuf;
 * VK_ERROR_OUT_OF_POOL_MEMORY: api/compute): 3D images created
 * 2D_ARRAY_COMPATIBLE and their 2D and 2D array views of z slices, and
 * vkCmdCopyImage between 3D images and 2D arrays (slices <-> layers), on
 * Shale and lavapipe against a CPU model. */
#include <stdio.h>

#include "ycbcr_common.h"

#define W 7
#define H 5
#define D 6
#define LAYERS 8
#define TEXEL 4   /* R8G8B8A8_UINT */

/* The model: the 3D image's slices and the 2D array's layers. */
struct model {
   uint8_t vol[D][H][W][TEXEL];
   uint8_t arr[LAYERS][H][W][TEXEL];
};

static void
test_views(struct ydev *d)
{
   VkDevice dev = d->t.device;
   const char *dn = vkt_driver_name(d->t.driver);
   VkImageFormatProperties p;
   CHECK_EQ_INT(vkGetPhysicalDeviceImageFormatProperties(
                   d->t.pdev, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D, VK_IMAGE_TILING_OPTIMAL,
                   VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT, &p),
                VK_SUCCESS);
   CHECK(p.maxExtent.depth >= 256 && p.maxArrayLayers >= 1, "%s: 3D limits", dn);
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT,
      .imageType = VK_IMAGE_TYPE_3D, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { 8, 8, 6 },
      .mipLevels = 2, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = VK_IMAGE_USAGE_SAMPLED_BIT,
   };
   struct vkt_image img;
   CHECK_EQ_INT(vkt_image_create(&d->t, &ici, &img), VK_SUCCESS);
   /* A 2D array of every slice of level 1, a 2D view of slice 4 of level 0. */
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY, .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, 0, VK_REMAINING_ARRAY_LAYERS },
   };
   VkImageView v;
   CHECK_EQ_INT(vkCreateImageView(dev, &vci, NULL, &v), VK_SUCCESS);
   vkDestroyImageView(dev, v, NULL);
   vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
   vci.subresourceRange = (VkImageSubresourceRange) { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 4, 1 };
   CHECK_EQ_INT(vkCreateImageView(dev, &vci, NULL, &v), VK_SUCCESS);
   vkDestroyImageView(dev, v, NULL);
   vkt_image_destroy(&d->t, &img);
}

/* Moves src from src_from to TRANSFER_SRC and dst from dst_from to
 * TRANSFER_DST (where they differ), then copies region c from src to dst. */
static void
copy_image(VkCommandBuffer cb, VkImage src, VkImageLayout src_from, VkImage dst,
           VkImageLayout dst_from, const VkImageCopy *c)
{
   const VkImageLayout SRC = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, DST = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
   if (src_from != SRC)
      vkt_image_barrier(cb, src, VK_IMAGE_ASPECT_COLOR_BIT, src_from, SRC);
   if (dst_from != DST)
      vkt_image_barrier(cb, dst, VK_IMAGE_ASPECT_COLOR_BIT, dst_from, DST);
   vkCmdCopyImage(cb, src, SRC, dst, DST, 1, c);
}

/* Runs the copies on one driver; returns the read-back 3D image and 2D
 * array through vol/arr of *out. */
static bool
run_copies(struct ydev *d, const struct model *in, struct model *out)
{
   struct vkt *t = &d->t;
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_3D,
      .format = VK_FORMAT_R8G8B8A8_UINT, .extent = { W, H, D }, .mipLevels = 1, .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   struct vkt_image vol, arr;
   if (vkt_image_create(t, &ici, &vol) != VK_SUCCESS)
      return false;
   ici.imageType = VK_IMAGE_TYPE_2D;
   ici.extent.depth = 1;
   ici.arrayLayers = LAYERS;
   if (vkt_image_create(t, &ici, &arr) != VK_SUCCESS)
      return false;
   struct vkt_buffer up, down;
   CHECK(vkt_buffer_create(t, sizeof(*in), VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up) == VK_SUCCESS, "up");
   CHECK(vkt_buffer_create(t, sizeof(*in), VK_BUFFER_USAGE_TRANSFER_DST_BIT, &down) == VK_SUCCESS,
         "down");
   memcpy(up.map, in, sizeof(*in));
   const VkImageLayout SRC = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, DST = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
   const VkImageAspectFlags C = VK_IMAGE_ASPECT_COLOR_BIT;
   VkBufferImageCopy rv = { .bufferOffset = offsetof(struct model, vol),
                            .imageSubresource = { C, 0, 0, 1 }, .imageExtent = { W, H, D } };
   VkBufferImageCopy ra = { .bufferOffset = offsetof(struct model, arr),
                            .imageSubresource = { C, 0, 0, LAYERS }, .imageExtent = { W, H, 1 } };
   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, vol.image, C, VK_IMAGE_LAYOUT_UNDEFINED, DST);
   vkt_image_barrier(cb, arr.image, C, VK_IMAGE_LAYOUT_UNDEFINED, DST);
   vkCmdCopyBufferToImage(cb, up.buffer, vol.image, DST, 1, &rv);
   vkCmdCopyBufferToImage(cb, up.buffer, arr.image, DST, 1, &ra);
   /* Slices 1..4 of the 3D image into layers 2..5: each slice a layer;
    * then layers 0..2 (after that copy) into slices 3..5. */
   const VkImageCopy c1 = { .srcSubresource = { C, 0, 0, 1 }, .srcOffset = { 1, 1, 1 },
                            .dstSubresource = { C, 0, 2, 4 }, .dstOffset = { 2, 1, 0 },
                            .extent = { 4, 3, 4 } };
   const VkImageCopy c2 = { .srcSubresource = { C, 0, 0, 3 }, .srcOffset = { 0, 0, 0 },
                            .dstSubresource = { C, 0, 0, 1 }, .dstOffset = { 3, 2, 3 },
                            .extent = { 4, 3, 3 } };
   copy_image(cb, vol.image, DST, arr.image, DST, &c1);
   copy_image(cb, arr.image, DST, vol.image, SRC, &c2);
   vkt_image_barrier(cb, vol.image, C, DST, SRC);
   vkCmdCopyImageToBuffer(cb, vol.image, SRC, down.buffer, 1, &rv);
   vkCmdCopyImageToBuffer(cb, arr.image, SRC, down.buffer, 1, &ra);
   VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0,
                        NULL, 0, NULL);
   VkResult r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: copies: %d", vkt_driver_name(t->driver), r);
   memcpy(out, down.map, sizeof(*out));
   vkt_buffer_destroy(t, &up);
   vkt_buffer_destroy(t, &down);
   vkt_image_destroy(t, &vol);
   vkt_image_destroy(t, &arr);
   return r == VK_SUCCESS;
}

int
main(void)
{
   struct model *in = malloc(sizeof(*in)), *ref = malloc(sizeof(*ref)), *got = malloc(sizeof(*got));
   for (size_t b = 0; b < sizeof(*in); b++)
      ((uint8_t *)in)[b] = (uint8_t)yrnd();
   /* The model: the same two copies, in order. */
   *ref = *in;
   for (int z = 0; z < 4; z++)
      for (int y = 0; y < 3; y++)
         for (int x = 0; x < 4; x++)
            memcpy(ref->arr[2 + z][1 + y][2 + x], ref->vol[1 + z][1 + y][1 + x], TEXEL);
   for (int l = 0; l < 3; l++)
      for (int y = 0; y < 3; y++)
         for (int x = 0; x < 4; x++)
            memcpy(ref->vol[3 + l][2 + y][3 + x], ref->arr[l][y][x], TEXEL);

   for (int which = 0; which < 2; which++) {
      enum vkt_driver drv = which ? VKT_LAVAPIPE : VKT_SHALE;
      struct ydev d;
      if (!ydev_init(&d, drv, false, false, NULL, NULL)) {
         CHECK(which == 1, "Shale device missing");
         continue;
      }
      const char *dn = vkt_driver_name(drv);
      bool m1 = vkt_has_device_extension(d.t.pdev, VK_KHR_MAINTENANCE_1_EXTENSION_NAME);
      CHECK(m1 || which == 1, "%s: VK_KHR_maintenance1 not listed", dn);
      if (m1) {
         test_views(&d);
         memset(got, 0, sizeof(*got));
         if (run_copies(&d, in, got)) {
            CHECK(!memcmp(got->vol, ref->vol, sizeof(ref->vol)), "%s: 3D image differs from the model",
                  dn);
            CHECK(!memcmp(got->arr, ref->arr, sizeof(ref->arr)), "%s: 2D array differs from the model",
                  dn);
         } else {
            CHECK(false, "%s: copies did not run", dn);
         }
      }
      vkt_finish(&d.t);
   }
   free(in);
   free(ref);
   free(got);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
