/*
 * shale_demo: a small Vulkan program that runs on whatever driver the loader
 * picks (point VK_DRIVER_FILES at Shale's manifest). It uploads an 8x8
 * pattern, clears a 512x512 image, blits the pattern into it with linear
 * and nearest filtering (one mirrored), reads the result back and writes a
 * PNG. Later issues replace the picture with real rendering.
 *   shale_demo [out.png]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "png_write.h"

#define VK(call)                                                               \
   do {                                                                        \
      VkResult r_ = (call);                                                    \
      if (r_ != VK_SUCCESS) {                                                  \
         fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, r_); \
         exit(1);                                                              \
      }                                                                        \
   } while (0)

enum { TILE = 8, SIZE = 512 };

static VkDevice device;
static VkPhysicalDeviceMemoryProperties mem_props;

static uint32_t
memory_type(uint32_t bits, VkMemoryPropertyFlags flags)
{
   for (uint32_t i = 0; i < mem_props.memoryTypeCount; i++)
      if ((bits & (1u << i)) && (mem_props.memoryTypes[i].propertyFlags & flags) == flags)
         return i;
   fprintf(stderr, "no suitable memory type\n");
   exit(1);
}

static VkDeviceMemory
bind_memory(VkMemoryRequirements req, VkMemoryPropertyFlags flags)
{
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = memory_type(req.memoryTypeBits, flags) };
   VkDeviceMemory mem;
   VK(vkAllocateMemory(device, &ai, NULL, &mem));
   return mem;
}

static VkImage
make_image(uint32_t size, VkDeviceMemory *mem)
{
   VkImageCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { size, size, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   VkImage img;
   VK(vkCreateImage(device, &ci, NULL, &img));
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(device, img, &req);
   *mem = bind_memory(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
   VK(vkBindImageMemory(device, img, *mem, 0));
   return img;
}

static void
barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from, VkImageLayout to)
{
   VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .oldLayout = from,
      .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = img,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                        NULL, 0, NULL, 1, &b);
}

static void
blit(VkCommandBuffer cb, VkImage src, VkImage dst, int x0, int y0, int x1, int y1, VkFilter filter)
{
   VkImageBlit region = {
      .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .srcOffsets = { { 0, 0, 0 }, { TILE, TILE, 1 } },
      .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .dstOffsets = { { x0, y0, 0 }, { x1, y1, 1 } },
   };
   vkCmdBlitImage(cb, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region, filter);
}

int
main(int argc, char **argv)
{
   const char *out = argc > 1 ? argv[1] : "shale-demo.png";
   VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "shale_demo", .apiVersion = VK_API_VERSION_1_0 };
   VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app };
   VkInstance instance;
   VK(vkCreateInstance(&ici, NULL, &instance));
   uint32_t n = 1;
   VkPhysicalDevice pdev;
   VkResult r = vkEnumeratePhysicalDevices(instance, &n, &pdev);
   if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
      fprintf(stderr, "no Vulkan device\n");
      return 1;
   }
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(pdev, &props);
   printf("device: %s (Vulkan %u.%u.%u)\n", props.deviceName, VK_API_VERSION_MAJOR(props.apiVersion),
          VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_PATCH(props.apiVersion));
   vkGetPhysicalDeviceMemoryProperties(pdev, &mem_props);

   float prio = 1.0f;
   VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueCount = 1, .pQueuePriorities = &prio };
   VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci };
   VK(vkCreateDevice(pdev, &dci, NULL, &device));
   VkQueue queue;
   vkGetDeviceQueue(device, 0, 0, &queue);

   /* A host-visible buffer for the upload (first 256 bytes) and the readback. */
   VkDeviceSize frame_bytes = (VkDeviceSize)SIZE * SIZE * 4;
   VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = frame_bytes,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT };
   VkBuffer buf;
   VK(vkCreateBuffer(device, &bci, NULL, &buf));
   VkMemoryRequirements req;
   vkGetBufferMemoryRequirements(device, buf, &req);
   VkDeviceMemory buf_mem = bind_memory(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
   VK(vkBindBufferMemory(device, buf, buf_mem, 0));
   uint8_t *map;
   VK(vkMapMemory(device, buf_mem, 0, VK_WHOLE_SIZE, 0, (void **)&map));
   for (int y = 0; y < TILE; y++) {
      for (int x = 0; x < TILE; x++) {
         uint8_t *p = map + (y * TILE + x) * 4;
         p[0] = (uint8_t)(x * 255 / (TILE - 1));
         p[1] = (uint8_t)(y * 255 / (TILE - 1));
         p[2] = ((x ^ y) & 1) ? 255 : 60;
         p[3] = 255;
      }
   }

   VkDeviceMemory tile_mem, frame_mem;
   VkImage tile = make_image(TILE, &tile_mem);
   VkImage frame = make_image(SIZE, &frame_mem);

   VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
   VkCommandPool pool;
   VK(vkCreateCommandPool(device, &pci, NULL, &pool));
   VkCommandBufferAllocateInfo cai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1 };
   VkCommandBuffer cb;
   VK(vkAllocateCommandBuffers(device, &cai, &cb));
   VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   VK(vkBeginCommandBuffer(cb, &begin));

   barrier(cb, tile, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkBufferImageCopy up = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                            .imageExtent = { TILE, TILE, 1 } };
   vkCmdCopyBufferToImage(cb, buf, tile, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &up);
   barrier(cb, tile, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);

   barrier(cb, frame, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkClearColorValue bg = { .float32 = { 0.05f, 0.07f, 0.15f, 1.0f } };
   VkImageSubresourceRange all = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
   vkCmdClearColorImage(cb, frame, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &bg, 1, &all);
   blit(cb, tile, frame, 32, 32, 352, 352, VK_FILTER_LINEAR);          /* smooth upscale */
   blit(cb, tile, frame, 384, 32, 480, 128, VK_FILTER_NEAREST);        /* blocky */
   blit(cb, tile, frame, 480, 256, 384, 352, VK_FILTER_NEAREST);       /* mirrored in x */
   barrier(cb, frame, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   VkBufferImageCopy down = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                              .imageExtent = { SIZE, SIZE, 1 } };
   vkCmdCopyImageToBuffer(cb, frame, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &down);
   VK(vkEndCommandBuffer(cb));

   VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   VkFence fence;
   VK(vkCreateFence(device, &fci, NULL, &fence));
   VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &cb };
   VK(vkQueueSubmit(queue, 1, &si, fence));
   VK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));

   int status = 0;
   if (png_write_rgba8(out, SIZE, SIZE, map, SIZE * 4)) {
      printf("wrote %s (%dx%d)\n", out, SIZE, SIZE);
   } else {
      fprintf(stderr, "cannot write %s\n", out);
      status = 1;
   }

   vkDestroyFence(device, fence, NULL);
   vkDestroyCommandPool(device, pool, NULL);
   vkDestroyImage(device, tile, NULL);
   vkDestroyImage(device, frame, NULL);
   vkFreeMemory(device, tile_mem, NULL);
   vkFreeMemory(device, frame_mem, NULL);
   vkUnmapMemory(device, buf_mem);
   vkDestroyBuffer(device, buf, NULL);
   vkFreeMemory(device, buf_mem, NULL);
   vkDestroyDevice(device, NULL);
   vkDestroyInstance(instance, NULL);
   return status;
}
