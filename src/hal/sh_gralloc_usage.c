/* VK_ANDROID_native_buffer gralloc usage queries: which usage swapchain buffers need. */
/*
 * The choice: Shale's "GPU" is the CPU, and a swapchain image's memory is the
 * gralloc buffer's own CPU mapping (sh_gralloc.h). So the only access the
 * driver ever makes is a CPU access, and the usage it asks for is CPU usage,
 * "often" because it touches the buffer every frame:
 *  - read  when the image usage can read the pixels: TRANSFER_SRC, SAMPLED,
 *          STORAGE, INPUT_ATTACHMENT, and the attachments (loads, blending);
 *  - write when it can write them: TRANSFER_DST, STORAGE, the attachments.
 *  Usage bits this file does not know count as both.
 * No GPU bits (HW_RENDER, HW_TEXTURE, ...): a gralloc that saw them could
 * pick memory laid out or placed for a GPU that is not there. The consumer
 * (the compositor) adds its own usage. In the gralloc1 split every access is
 * the producer's (Shale renders the image; its reads are of its own output),
 * so the consumer bits are 0. A shared presentable image
 * (VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID) adds
 * AHARDWAREBUFFER_USAGE_FRONT_BUFFER where the query can carry 64 bits
 * (Usage2's producer bits, Usage4); the gralloc0 int cannot.
 *
 * A format is answered only when it is one of the gralloc formats Shale takes
 * (sh_gralloc.h) and the driver supports an optimal-tiling 2D image of that
 * format with that usage (vkGetPhysicalDeviceImageFormatProperties); anything
 * else is VK_ERROR_FORMAT_NOT_SUPPORTED. The outputs are written only on
 * success.
 */
#include <assert.h>

#include "driver/sd_device.h"
#include "driver/sd_physical_device.h"
#include "driver/sd_util.h"
#include "sh_gralloc.h"

struct sh_cpu_access {
   bool read, write;
};

/* Whether Shale takes `format` as a swapchain format with `usage`, and the
 * CPU access that usage means. */
static VkResult
sh_swapchain_access(VkDevice device, VkFormat format, VkImageUsageFlags usage,
                    struct sh_cpu_access *access)
{
   SD_FROM_HANDLE(sd_device, dev, device);
   if (sh_gralloc_format_from_vk(format) == 0)
      return sd_error(VK_ERROR_FORMAT_NOT_SUPPORTED);

   VkImageFormatProperties props;
   VkResult r = sd_GetPhysicalDeviceImageFormatProperties(
      sd_physical_device_to_handle(dev->physical_device), format, VK_IMAGE_TYPE_2D,
      VK_IMAGE_TILING_OPTIMAL, usage, 0, &props);
   if (r != VK_SUCCESS)
      return r == VK_ERROR_FORMAT_NOT_SUPPORTED ? sd_error(r) : r;

   sh_gralloc_usage_cpu_access(usage, &access->read, &access->write);
   return VK_SUCCESS;
}

/* AHARDWAREBUFFER_USAGE_* (usage3/usage4: the 64-bit BufferUsage bits). */
static uint64_t
sh_ahb_usage(struct sh_cpu_access a, bool shared)
{
   return (a.read ? SHALE_AHB_USAGE_CPU_READ_OFTEN : 0) |
          (a.write ? SHALE_AHB_USAGE_CPU_WRITE_OFTEN : 0) |
          (shared ? SHALE_AHB_USAGE_FRONT_BUFFER : 0);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSwapchainGrallocUsageANDROID(VkDevice device, VkFormat format,
                                   VkImageUsageFlags imageUsage, int *grallocUsage)
{
   struct sh_cpu_access a = { false, false };
   VkResult r = sh_swapchain_access(device, format, imageUsage, &a);
   if (r != VK_SUCCESS)
      return r;
   *grallocUsage = (a.read ? SH_GRALLOC0_USAGE_SW_READ_OFTEN : 0) |
                   (a.write ? SH_GRALLOC0_USAGE_SW_WRITE_OFTEN : 0);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSwapchainGrallocUsage2ANDROID(VkDevice device, VkFormat format,
                                    VkImageUsageFlags imageUsage,
                                    VkSwapchainImageUsageFlagsANDROID swapchainImageUsage,
                                    uint64_t *grallocConsumerUsage,
                                    uint64_t *grallocProducerUsage)
{
   struct sh_cpu_access a = { false, false };
   VkResult r = sh_swapchain_access(device, format, imageUsage, &a);
   if (r != VK_SUCCESS)
      return r;
   bool shared = (swapchainImageUsage & VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID) != 0;
   *grallocConsumerUsage = 0;
   *grallocProducerUsage = (a.read ? SH_GRALLOC1_USAGE_CPU_READ_OFTEN : 0) |
                           (a.write ? SH_GRALLOC1_USAGE_CPU_WRITE_OFTEN : 0) |
                           (shared ? SHALE_AHB_USAGE_FRONT_BUFFER : 0);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSwapchainGrallocUsage3ANDROID(VkDevice device,
                                    const VkGrallocUsageInfoANDROID *grallocUsageInfo,
                                    uint64_t *grallocUsage)
{
   assert(grallocUsageInfo->sType == VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_ANDROID);
   struct sh_cpu_access a = { false, false };
   VkResult r = sh_swapchain_access(device, grallocUsageInfo->format,
                                    grallocUsageInfo->imageUsage, &a);
   if (r != VK_SUCCESS)
      return r;
   *grallocUsage = sh_ahb_usage(a, false);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSwapchainGrallocUsage4ANDROID(VkDevice device,
                                    const VkGrallocUsageInfo2ANDROID *grallocUsageInfo,
                                    uint64_t *grallocUsage)
{
   assert(grallocUsageInfo->sType == VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_2_ANDROID);
   struct sh_cpu_access a = { false, false };
   VkResult r = sh_swapchain_access(device, grallocUsageInfo->format,
                                    grallocUsageInfo->imageUsage, &a);
   if (r != VK_SUCCESS)
      return r;
   bool shared = (grallocUsageInfo->swapchainImageUsage &
                  VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID) != 0;
   *grallocUsage = sh_ahb_usage(a, shared);
   return VK_SUCCESS;
}
