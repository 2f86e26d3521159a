/*
 * sd_format: which formats Shale claims, with which format features, and the
 * image-format capability queries built on them.
 *
 * Owns: the mapping from a known format (src/util/su_format) to its
 * VkFormatProperties, and vkGetPhysicalDeviceImageFormatProperties(2).
 *
 * Invariants: a feature bit is set only for what the driver does: today the
 * transfer path (copies of every known format; blits and clears of every
 * uncompressed format except the 64-bit-channel ones; linear blit filtering
 * for float-class colour formats). Sampling, attachments, storage and vertex
 * input arrive with the compiler and the rasterizer.
 *
 * Threading: pure functions.
 */
#ifndef SD_FORMAT_H
#define SD_FORMAT_H

#include <vulkan/vulkan_core.h>

/* Features of a format with optimal (linear tiling is identical in Shale). */
VkFormatFeatureFlags sd_format_image_features(VkFormat format);
VkFormatFeatureFlags sd_format_buffer_features(VkFormat format);

#endif
