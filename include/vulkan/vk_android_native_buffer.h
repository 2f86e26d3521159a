/*
 * vulkan/vk_android_native_buffer.h: VK_ANDROID_native_buffer (extension 11,
 * spec version 11), the private contract between Android's Vulkan loader and
 * a driver, written for Shale from the ABI facts. vk.xml lists the extension
 * as "disabled", so vulkan_core.h defines none of it.
 *
 * Owns: types, constants and prototypes only. The loader implements
 * VK_KHR_swapchain on top of these: it asks for gralloc usage bits, allocates
 * gralloc buffers, wraps each in a VkImage by chaining VkNativeBufferANDROID
 * into vkCreateImage (or vkBindImageMemory2 from spec version 8), and trades
 * images with the compositor through vkAcquireImageANDROID and
 * vkQueueSignalReleaseImageANDROID using sync fence fds.
 *
 * Invariants: VkNativeBufferANDROID is 72 bytes on LP64 with usage2 at 40,
 * usage3 at 56 and ahb at 64 (asserted below). Version history: 6 added
 * usage2 and GrallocUsage2; 8 allowed VkNativeBufferANDROID in
 * vkBindImageMemory2 with VkBindImageMemorySwapchainInfoKHR; 9 added usage3,
 * VkGrallocUsageInfoANDROID and GrallocUsage3; 10 added
 * VkGrallocUsageInfo2ANDROID and GrallocUsage4; 11 added ahb.
 *
 * Threading: plain data.
 */
#ifndef SHALE_VK_ANDROID_NATIVE_BUFFER_H
#define SHALE_VK_ANDROID_NATIVE_BUFFER_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

/* native_handle_t / buffer_handle_t: an Android build takes them from
 * libcutils; elsewhere (the host tests' gralloc) we define the same layout:
 * three ints (version = sizeof(native_handle_t), numFds, numInts) followed by
 * numFds file descriptors and then numInts ints. */
#if defined(__ANDROID__) && defined(__has_include)
#if __has_include(<cutils/native_handle.h>)
#include <cutils/native_handle.h>
#define SH_HAVE_CUTILS_NATIVE_HANDLE 1
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef SH_HAVE_CUTILS_NATIVE_HANDLE
typedef struct native_handle {
   int version; /* sizeof(native_handle_t) */
   int numFds;
   int numInts;
   int data[];  /* numFds fds, then numInts ints */
} native_handle_t;

typedef const native_handle_t *buffer_handle_t;
#endif

struct AHardwareBuffer;

#define VK_ANDROID_native_buffer 1
#define VK_ANDROID_NATIVE_BUFFER_EXTENSION_NUMBER 11
#define VK_ANDROID_NATIVE_BUFFER_SPEC_VERSION 11
#define VK_ANDROID_NATIVE_BUFFER_EXTENSION_NAME "VK_ANDROID_native_buffer"

/* Extension enum values: 1000000000 + (extension number - 1) * 1000 + offset. */
#define SH_ANDROID_NATIVE_BUFFER_ENUM(offset) \
   (1000000000 + (VK_ANDROID_NATIVE_BUFFER_EXTENSION_NUMBER - 1) * 1000 + (offset))

#ifndef VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID
#define VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID \
   ((VkStructureType)SH_ANDROID_NATIVE_BUFFER_ENUM(0))
#endif
#ifndef VK_STRUCTURE_TYPE_SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID
#define VK_STRUCTURE_TYPE_SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID \
   ((VkStructureType)SH_ANDROID_NATIVE_BUFFER_ENUM(1))
#endif
#ifndef VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID \
   ((VkStructureType)SH_ANDROID_NATIVE_BUFFER_ENUM(2))
#endif
#ifndef VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_ANDROID
#define VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_ANDROID \
   ((VkStructureType)SH_ANDROID_NATIVE_BUFFER_ENUM(3))
#endif
#ifndef VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_2_ANDROID
#define VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_2_ANDROID \
   ((VkStructureType)SH_ANDROID_NATIVE_BUFFER_ENUM(4))
#endif

typedef enum VkSwapchainImageUsageFlagBitsANDROID {
   VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID = 0x00000001,
   VK_SWAPCHAIN_IMAGE_USAGE_FLAG_BITS_MAX_ENUM_ANDROID = 0x7FFFFFFF
} VkSwapchainImageUsageFlagBitsANDROID;
typedef VkFlags VkSwapchainImageUsageFlagsANDROID;

/* Gralloc1 usage, split into consumer and producer bits (spec version 6). */
typedef struct VkNativeBufferUsage2ANDROID {
   uint64_t consumer;
   uint64_t producer;
} VkNativeBufferUsage2ANDROID;

/* Chained into VkImageCreateInfo (and, from spec version 8, into
 * VkBindImageMemoryInfo with VkBindImageMemorySwapchainInfoKHR): the image's
 * memory is the gralloc buffer `handle`. */
typedef struct VkNativeBufferANDROID {
   VkStructureType sType;  /* VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID */
   const void *pNext;
   buffer_handle_t handle;
   int stride;             /* in pixels */
   int format;             /* AHARDWAREBUFFER_FORMAT_* / HAL_PIXEL_FORMAT_* */
   int usage;              /* gralloc0 usage; deprecated by usage2 (v6) */
   VkNativeBufferUsage2ANDROID usage2; /* deprecated by usage3 (v9) */
   uint64_t usage3;        /* AHARDWAREBUFFER_USAGE_* (v9) */
   struct AHardwareBuffer *ahb; /* the same buffer as an AHardwareBuffer (v11) */
} VkNativeBufferANDROID;

/* Chained into VkImageCreateInfo for swapchain images. */
typedef struct VkSwapchainImageCreateInfoANDROID {
   VkStructureType sType;  /* VK_STRUCTURE_TYPE_SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID */
   const void *pNext;
   VkSwapchainImageUsageFlagsANDROID usage;
} VkSwapchainImageCreateInfoANDROID;

/* Chained into VkPhysicalDeviceProperties2. */
typedef struct VkPhysicalDevicePresentationPropertiesANDROID {
   VkStructureType sType;  /* VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID */
   const void *pNext;      /* const in the ABI although the struct is an output */
   VkBool32 sharedImage;   /* shared presentable images supported */
} VkPhysicalDevicePresentationPropertiesANDROID;

typedef struct VkGrallocUsageInfoANDROID {
   VkStructureType sType;  /* VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_ANDROID */
   const void *pNext;
   VkFormat format;
   VkImageUsageFlags imageUsage;
} VkGrallocUsageInfoANDROID;

typedef struct VkGrallocUsageInfo2ANDROID {
   VkStructureType sType;  /* VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_2_ANDROID */
   const void *pNext;
   VkFormat format;
   VkImageUsageFlags imageUsage;
   VkSwapchainImageUsageFlagsANDROID swapchainImageUsage;
} VkGrallocUsageInfo2ANDROID;

typedef VkResult (VKAPI_PTR *PFN_vkGetSwapchainGrallocUsageANDROID)(
   VkDevice device, VkFormat format, VkImageUsageFlags imageUsage, int *grallocUsage);
typedef VkResult (VKAPI_PTR *PFN_vkGetSwapchainGrallocUsage2ANDROID)(
   VkDevice device, VkFormat format, VkImageUsageFlags imageUsage,
   VkSwapchainImageUsageFlagsANDROID swapchainImageUsage,
   uint64_t *grallocConsumerUsage, uint64_t *grallocProducerUsage);
typedef VkResult (VKAPI_PTR *PFN_vkGetSwapchainGrallocUsage3ANDROID)(
   VkDevice device, const VkGrallocUsageInfoANDROID *grallocUsageInfo,
   uint64_t *grallocUsage);
typedef VkResult (VKAPI_PTR *PFN_vkGetSwapchainGrallocUsage4ANDROID)(
   VkDevice device, const VkGrallocUsageInfo2ANDROID *grallocUsageInfo,
   uint64_t *grallocUsage);
typedef VkResult (VKAPI_PTR *PFN_vkAcquireImageANDROID)(
   VkDevice device, VkImage image, int nativeFenceFd, VkSemaphore semaphore,
   VkFence fence);
typedef VkResult (VKAPI_PTR *PFN_vkQueueSignalReleaseImageANDROID)(
   VkQueue queue, uint32_t waitSemaphoreCount, const VkSemaphore *pWaitSemaphores,
   VkImage image, int *pNativeFenceFd);

#ifndef VK_NO_PROTOTYPES
VKAPI_ATTR VkResult VKAPI_CALL vkGetSwapchainGrallocUsageANDROID(
   VkDevice device, VkFormat format, VkImageUsageFlags imageUsage, int *grallocUsage);
VKAPI_ATTR VkResult VKAPI_CALL vkGetSwapchainGrallocUsage2ANDROID(
   VkDevice device, VkFormat format, VkImageUsageFlags imageUsage,
   VkSwapchainImageUsageFlagsANDROID swapchainImageUsage,
   uint64_t *grallocConsumerUsage, uint64_t *grallocProducerUsage);
VKAPI_ATTR VkResult VKAPI_CALL vkGetSwapchainGrallocUsage3ANDROID(
   VkDevice device, const VkGrallocUsageInfoANDROID *grallocUsageInfo,
   uint64_t *grallocUsage);
VKAPI_ATTR VkResult VKAPI_CALL vkGetSwapchainGrallocUsage4ANDROID(
   VkDevice device, const VkGrallocUsageInfo2ANDROID *grallocUsageInfo,
   uint64_t *grallocUsage);
VKAPI_ATTR VkResult VKAPI_CALL vkAcquireImageANDROID(
   VkDevice device, VkImage image, int nativeFenceFd, VkSemaphore semaphore,
   VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL vkQueueSignalReleaseImageANDROID(
   VkQueue queue, uint32_t waitSemaphoreCount, const VkSemaphore *pWaitSemaphores,
   VkImage image, int *pNativeFenceFd);
#endif

#ifndef SH_ABI_ASSERT
#ifdef __cplusplus
#define SH_ABI_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SH_ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#endif

SH_ABI_ASSERT(VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID == 1000010000, "sType");
SH_ABI_ASSERT(VK_STRUCTURE_TYPE_SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID == 1000010001, "sType");
SH_ABI_ASSERT(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID == 1000010002,
              "sType");
SH_ABI_ASSERT(VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_ANDROID == 1000010003, "sType");
SH_ABI_ASSERT(VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_2_ANDROID == 1000010004, "sType");
#if UINTPTR_MAX > 0xffffffffu
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, handle) == 16, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, stride) == 24, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, format) == 28, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, usage) == 32, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, usage2) == 40, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, usage3) == 56, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(offsetof(VkNativeBufferANDROID, ahb) == 64, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(sizeof(VkNativeBufferANDROID) == 72, "VkNativeBufferANDROID ABI");
SH_ABI_ASSERT(sizeof(VkGrallocUsageInfo2ANDROID) == 32, "VkGrallocUsageInfo2ANDROID ABI");
#endif
SH_ABI_ASSERT(sizeof(native_handle_t) == 3 * sizeof(int), "native_handle_t header");

#ifdef __cplusplus
}
#endif

#endif
