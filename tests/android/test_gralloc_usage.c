/* VK_ANDROID_native_buffer gralloc usage queries, called on a real Shale device. */
#include <stdint.h>
#include <string.h>

#include "driver/sd_entrypoints.h"

#include "check.h"

/* The ABI values, spelled out from the public headers (gralloc.h, gralloc1.h,
 * the NDK's hardware_buffer.h) rather than taken from sh_gralloc.h. */
#define G0_SW_READ_OFTEN 0x3
#define G0_SW_WRITE_OFTEN 0x30
#define G1_CPU_READ_OFTEN UINT64_C(0x6)
#define G1_CPU_WRITE_OFTEN UINT64_C(0x60)
#define AHB_CPU_READ_OFTEN UINT64_C(0x3)
#define AHB_CPU_WRITE_OFTEN UINT64_C(0x30)
#define AHB_FRONT_BUFFER (UINT64_C(1) << 32)
#define SHARED_BIT 0x1   /* VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID */

/* The documented policy, one row per usage: a CPU renderer reads and writes
 * the buffer itself. */
static const struct {
   VkImageUsageFlags usage;
   bool read, write;
} usages[] = {
   { VK_IMAGE_USAGE_TRANSFER_DST_BIT, false, true },
   { VK_IMAGE_USAGE_TRANSFER_SRC_BIT, true, false },
   { VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, true, true },
   { VK_IMAGE_USAGE_SAMPLED_BIT, true, false },
   { VK_IMAGE_USAGE_STORAGE_BIT, true, true },
   { VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT, true, false },
   { VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, true, true },
   { VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, true, true },
   { VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, true, true },
};

/* Swapchain formats with a gralloc format. */
static const VkFormat gralloc_formats[] = {
   VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM,
   VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R5G6B5_UNORM_PACK16, VK_FORMAT_R16G16B16A16_SFLOAT,
   VK_FORMAT_A2B10G10R10_UNORM_PACK32,
};

/* Formats the driver may well support, but not as gralloc buffers. */
static const VkFormat other_formats[] = {
   VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM, VK_FORMAT_R32G32B32A32_SFLOAT,
   VK_FORMAT_B5G6R5_UNORM_PACK16, VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_D16_UNORM,
   VK_FORMAT_UNDEFINED,
};

#define SENTINEL64 UINT64_C(0xDEADBEEFCAFEF00D)
#define SENTINEL32 0x5EADBEEF

static void
check_answers(VkDevice dev, VkFormat format, VkImageUsageFlags usage, VkResult expected,
              bool read, bool write)
{
   int g0 = SENTINEL32;
   VkResult r = sd_GetSwapchainGrallocUsageANDROID(dev, format, usage, &g0);
   CHECK(r == expected, "Usage(%d, 0x%x) = %d, expected %d", format, usage, r, expected);
   if (expected == VK_SUCCESS)
      CHECK_EQ_INT(g0, (read ? G0_SW_READ_OFTEN : 0) | (write ? G0_SW_WRITE_OFTEN : 0));
   else
      CHECK_EQ_INT(g0, SENTINEL32);

   for (int shared = 0; shared <= 1; shared++) {
      uint64_t consumer = SENTINEL64, producer = SENTINEL64;
      r = sd_GetSwapchainGrallocUsage2ANDROID(dev, format, usage, shared ? SHARED_BIT : 0,
                                              &consumer, &producer);
      CHECK(r == expected, "Usage2(%d, 0x%x) = %d, expected %d", format, usage, r, expected);
      if (expected == VK_SUCCESS) {
         CHECK(consumer == 0, "consumer usage 0x%llx", (unsigned long long)consumer);
         uint64_t want = (read ? G1_CPU_READ_OFTEN : 0) | (write ? G1_CPU_WRITE_OFTEN : 0) |
                         (shared ? AHB_FRONT_BUFFER : 0);
         CHECK(producer == want, "Usage2(%d, 0x%x, shared %d) producer 0x%llx, expected 0x%llx",
               format, usage, shared, (unsigned long long)producer, (unsigned long long)want);
      } else {
         CHECK(consumer == SENTINEL64 && producer == SENTINEL64, "Usage2 wrote on failure");
      }

      const VkGrallocUsageInfo2ANDROID info2 = {
         .sType = (VkStructureType)1000010004,
         .format = format,
         .imageUsage = usage,
         .swapchainImageUsage = shared ? SHARED_BIT : 0,
      };
      uint64_t u4 = SENTINEL64;
      r = sd_GetSwapchainGrallocUsage4ANDROID(dev, &info2, &u4);
      CHECK(r == expected, "Usage4(%d, 0x%x) = %d, expected %d", format, usage, r, expected);
      uint64_t want4 = (read ? AHB_CPU_READ_OFTEN : 0) | (write ? AHB_CPU_WRITE_OFTEN : 0) |
                       (shared ? AHB_FRONT_BUFFER : 0);
      CHECK(u4 == (expected == VK_SUCCESS ? want4 : SENTINEL64),
            "Usage4(%d, 0x%x, shared %d) = 0x%llx", format, usage, shared,
            (unsigned long long)u4);
   }

   const VkGrallocUsageInfoANDROID info = {
      .sType = (VkStructureType)1000010003,
      .format = format,
      .imageUsage = usage,
   };
   uint64_t u3 = SENTINEL64;
   r = sd_GetSwapchainGrallocUsage3ANDROID(dev, &info, &u3);
   CHECK(r == expected, "Usage3(%d, 0x%x) = %d, expected %d", format, usage, r, expected);
   uint64_t want3 = (read ? AHB_CPU_READ_OFTEN : 0) | (write ? AHB_CPU_WRITE_OFTEN : 0);
   CHECK(u3 == (expected == VK_SUCCESS ? want3 : SENTINEL64), "Usage3(%d, 0x%x) = 0x%llx",
         format, usage, (unsigned long long)u3);
}

int
main(void)
{
   const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .apiVersion = VK_API_VERSION_1_0,
   };
   const VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
   };
   VkInstance instance = VK_NULL_HANDLE;
   CHECK_EQ_INT(sd_CreateInstance(&ici, NULL, &instance), VK_SUCCESS);
   if (instance == VK_NULL_HANDLE)
      return check_finish();
   uint32_t count = 1;
   VkPhysicalDevice pdev = VK_NULL_HANDLE;
   VkResult r = sd_EnumeratePhysicalDevices(instance, &count, &pdev);
   CHECK(r == VK_SUCCESS || r == VK_INCOMPLETE, "EnumeratePhysicalDevices: %d", r);
   const float priority = 1.0f;
   const VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = 0,
      .queueCount = 1,
      .pQueuePriorities = &priority,
   };
   const VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
   };
   VkDevice dev = VK_NULL_HANDLE;
   CHECK_EQ_INT(sd_CreateDevice(pdev, &dci, NULL, &dev), VK_SUCCESS);
   if (dev == VK_NULL_HANDLE) {
      sd_DestroyInstance(instance, NULL);
      return check_finish();
   }

   /* A gralloc format is answered exactly when the driver supports the image:
    * the query and vkGetPhysicalDeviceImageFormatProperties agree. */
   int answered = 0, refused = 0;
   for (size_t f = 0; f < sizeof(gralloc_formats) / sizeof(gralloc_formats[0]); f++) {
      for (size_t u = 0; u < sizeof(usages) / sizeof(usages[0]); u++) {
         VkImageFormatProperties props;
         VkResult supported = sd_GetPhysicalDeviceImageFormatProperties(
            pdev, gralloc_formats[f], VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
            usages[u].usage, 0, &props);
         check_answers(dev, gralloc_formats[f], usages[u].usage, supported, usages[u].read,
                       usages[u].write);
         if (supported == VK_SUCCESS)
            answered++;
         else
            refused++;
      }
   }
   fprintf(stderr, "%d format/usage pairs answered, %d refused by the driver's format support\n",
           answered, refused);
   /* Today's driver copies to and from every one of these formats. */
   CHECK(answered >= 7 * 3, "only %d pairs answered", answered);

   /* Not gralloc formats: refused whatever the driver can do with them. */
   for (size_t f = 0; f < sizeof(other_formats) / sizeof(other_formats[0]); f++)
      check_answers(dev, other_formats[f], VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                    VK_ERROR_FORMAT_NOT_SUPPORTED, false, false);

   sd_DestroyDevice(dev, NULL);
   sd_DestroyInstance(instance, NULL);
   return check_finish();
}
