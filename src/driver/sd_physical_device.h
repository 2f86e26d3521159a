/*
 * sd_physical_device: the one VkPhysicalDevice (the CPU): properties, limits,
 * features, queue families, memory types, and the device extensions Shale
 * implements.
 *
 * Invariants: everything reported here is implemented and tested (see the
 * README's claim table). Memory types: 0 host-visible cached non-coherent, 1
 * host-visible coherent cached; both device-local, one heap.
 *
 * Threading: immutable after creation.
 */
#ifndef SD_PHYSICAL_DEVICE_H
#define SD_PHYSICAL_DEVICE_H

#include "sd_extensions.h"
#include "sd_object.h"

struct sd_instance;

#define SD_MEMORY_TYPE_COUNT 2
#define SD_MEMORY_TYPE_COHERENT 1

struct sd_physical_device {
   struct sd_object base;
   struct sd_instance *instance;
   VkPhysicalDeviceProperties properties;
   VkPhysicalDeviceMemoryProperties memory;
   uint32_t api_version;
};

SD_DEFINE_HANDLE_CASTS(sd_physical_device, base, VkPhysicalDevice, VK_OBJECT_TYPE_PHYSICAL_DEVICE)

/* Device extensions Shale implements. Read-only after the library loads:
 * VK_ANDROID_native_buffer is offered only by the Android HAL module
 * (vulkan.shale.so), whose load-time constructor calls
 * sd_physical_device_offer_android_native_buffer(); the desktop ICD never
 * lists it (it is the Android loader's private interface). */
extern struct sd_device_extension_table sd_device_extensions_supported;
void sd_physical_device_offer_android_native_buffer(void);

VkResult sd_physical_device_create(struct sd_instance *instance, struct sd_physical_device **out);
void sd_physical_device_destroy(struct sd_physical_device *pdev);

/* Fills VkPhysicalDeviceFeatures2 (and its chain) with what Shale supports. */
void sd_physical_device_get_features(struct sd_physical_device *pdev, VkPhysicalDeviceFeatures2 *f);

#endif
