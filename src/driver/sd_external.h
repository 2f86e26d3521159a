/*
 * sd_external: what device memory Shale shares with other Vulkan instances,
 * processes and APIs, and the identity (UUIDs) that decides who may share it.
 *
 * Owns: the external-memory capability answers
 * (vkGetPhysicalDeviceExternalBufferProperties and the external part of
 * vkGetPhysicalDeviceImageFormatProperties2) and the deviceUUID / driverUUID
 * of VkPhysicalDeviceIDProperties.
 *
 * Handle types: VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, for every
 * buffer and every image Shale can create: exportable and importable, never
 * dedicated-only, exportable again from an import. The fd is a sealed memfd
 * with a header page that names the driver, the device, the allocation size
 * and the memory type (sd_memory.h describes it); an import checks all of it.
 * ANDROID_HARDWARE_BUFFER where the extension is offered (the Android HAL
 * module: sd_ahb.h): every buffer (not dedicated-only), and the images
 * sd_ahb.c takes (dedicated-only); compatible with itself alone.
 * Not offered: DMA_BUF (a dma-buf's pages may be touched by the CPU only
 * between DMA_BUF_IOCTL_SYNC calls and many exporters cannot be mapped at all,
 * while Shale's "GPU" reads and writes memory at any time; exporting one would
 * need udmabuf or a dma-heap, which applications cannot count on), HOST_*
 * (VK_EXT_external_memory_host is not implemented).
 *
 * UUIDs: deviceUUID names "the CPU and the host memory of this machine" and
 * never changes (not across driver versions, processes, 32/64-bit builds or
 * reboots): any two Shale devices on one machine share memory. Machines are
 * not told apart, which is harmless: an fd cannot leave its machine.
 * driverUUID changes exactly when SD_EXTERNAL_LAYOUT_VERSION does: two builds
 * with the same driverUUID lay out buffers, images (sd_image.h), texels
 * (util/su_format.h) and the memfd header identically. Both are name-based
 * RFC 9562 version-8 UUIDs, distinct from every other driver's. No LUID
 * (deviceLUIDValid = VK_FALSE, a Windows concept).
 *
 * Threading: pure functions.
 */
#ifndef SD_EXTERNAL_H
#define SD_EXTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

/* Bump when anything that two processes sharing memory must agree on changes:
 * the image layout, a texel encoding, the memfd header. */
#define SD_EXTERNAL_LAYOUT_VERSION 1

/* Every memory handle type Shale imports and exports in every build (AHBs:
 * only where sd_ahb_supported(), and only on devices that enable them). */
#define SD_EXTERNAL_MEMORY_HANDLE_TYPES VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT

/* The properties of one handle type for buffers (and, but for AHBs, for
 * images); all zero (and false) for a type Shale does not support. */
bool sd_external_memory_properties(VkExternalMemoryHandleTypeFlagBits type,
                                   VkExternalMemoryProperties *out);

/* The external part of vkGetPhysicalDeviceImageFormatProperties2 for
 * `handle_type` (0: not external, VK_SUCCESS with *out zeroed): VK_SUCCESS
 * with the properties, or VK_ERROR_FORMAT_NOT_SUPPORTED with *out zeroed. The
 * caller checks the image parameters themselves. */
VkResult sd_external_image_properties(VkExternalMemoryHandleTypeFlagBits handle_type,
                                      const VkPhysicalDeviceImageFormatInfo2 *info,
                                      VkExternalMemoryProperties *out);

void sd_external_device_uuid(uint8_t uuid[VK_UUID_SIZE]);
void sd_external_driver_uuid(uint8_t uuid[VK_UUID_SIZE]);

/* Fills VkPhysicalDeviceIDProperties (the same five members appear in
 * VkPhysicalDeviceVulkan11Properties). */
void sd_external_fill_id_properties(VkPhysicalDeviceIDProperties *p);

#endif
