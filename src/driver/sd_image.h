/*
 * sd_image: VkImage and VkImageView.
 *
 * Owns: an image's creation parameters, its memory layout and its binding
 * (memory + offset); a view's image, type, format, resolved swizzle and
 * resolved subresource range.
 *
 * Memory layout (the same for OPTIMAL and LINEAR tiling today, so a linear
 * image's vkGetImageSubresourceLayout also describes an optimal one):
 *   - mip levels follow each other; level L starts at levels[L].offset, a
 *     multiple of SD_IMAGE_ALIGNMENT (64) bytes from the image's start;
 *   - inside a level, the array layers follow each other, layer_pitch bytes
 *     apart (a multiple of 64, so every layer starts on a cache line);
 *   - inside a layer, z slices (3D images) follow each other, depth_pitch =
 *     row_pitch * rows-of-blocks bytes apart (no padding between slices);
 *   - inside a slice, rows of blocks are row_pitch bytes apart: the bytes of
 *     one row of blocks rounded up to SD_IMAGE_ROW_ALIGNMENT (16, the
 *     optimalBufferCopyRowPitchAlignment), texels packed inside a row.
 *   A "block" is one texel for uncompressed formats, a compressed block
 *   (e.g. 4x4 texels) otherwise. Depth/stencil formats store both aspects
 *   interleaved in one texel as described in util/su_format.h, so both
 *   aspects share one layout (and the same subresource offsets).
 *   The image needs `size` bytes (a multiple of 64), aligned to 64.
 *
 * Invariants: levels[] is filled for every mip level at creation and never
 * changes; `data` is NULL until bound, then points at the bound memory plus
 * offset, and never changes (images bind once). A view's range has no
 * VK_REMAINING_* left in it.
 *
 * Threading: immutable after binding; views are immutable.
 */
#ifndef SD_IMAGE_H
#define SD_IMAGE_H

#include <stdbool.h>

#include "sd_object.h"

struct sd_device_memory;
struct sd_physical_device;
struct su_format_desc;
struct sr_image_level;

/* 16384 (maxImageDimension1D/2D/Cube) has 15 levels. */
#define SD_MAX_MIP_LEVELS 15
#define SD_IMAGE_ALIGNMENT 64
#define SD_IMAGE_ROW_ALIGNMENT 16

struct sd_image_level_layout {
   VkDeviceSize offset;        /* from the image's start */
   VkDeviceSize row_pitch;     /* bytes between rows of blocks */
   VkDeviceSize depth_pitch;   /* bytes between z slices */
   VkDeviceSize layer_pitch;   /* bytes between array layers */
   VkDeviceSize size;          /* layer_pitch * layers */
};

struct sd_image {
   struct sd_object base;
   VkImageType type;
   VkFormat format;
   const struct su_format_desc *desc;
   VkExtent3D extent;
   uint32_t mip_levels;
   uint32_t array_layers;
   VkSampleCountFlagBits samples;
   VkImageTiling tiling;
   VkImageUsageFlags usage;
   VkImageCreateFlags flags;

   struct sd_image_level_layout levels[SD_MAX_MIP_LEVELS];
   VkDeviceSize size;

   struct sd_device_memory *memory;
   VkDeviceSize memory_offset;
   uint8_t *data;
};

struct sd_image_view {
   struct sd_object base;
   struct sd_image *image;
   VkImageViewType view_type;
   VkFormat format;
   const struct su_format_desc *desc;
   /* IDENTITY resolved to the component itself (R, G, B or A). */
   VkComponentMapping swizzle;
   /* levelCount and layerCount resolved (no VK_REMAINING_*). */
   VkImageSubresourceRange range;
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_image, base, VkImage, VK_OBJECT_TYPE_IMAGE)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_image_view, base, VkImageView, VK_OBJECT_TYPE_IMAGE_VIEW)

/* The extent of mip level `level` of `extent` (each dimension halved, at
 * least 1). */
static inline VkExtent3D
sd_minify_extent(VkExtent3D extent, uint32_t level)
{
   VkExtent3D e = { extent.width >> level, extent.height >> level, extent.depth >> level };
   if (!e.width)
      e.width = 1;
   if (!e.height)
      e.height = 1;
   if (!e.depth)
      e.depth = 1;
   return e;
}

/* Computes the layout above for the given parameters into levels[] and
 * returns the total size. `desc` must be a known format; mip_levels at most
 * SD_MAX_MIP_LEVELS. */
VkDeviceSize sd_image_compute_layout(const struct su_format_desc *desc, VkExtent3D extent,
                                     uint32_t mip_levels, uint32_t array_layers,
                                     struct sd_image_level_layout *levels);

/* Describes mip level `level` of a bound image, all its array layers, for the
 * rasterizer's transfer and sampling code. `aspect` is one or more aspects of
 * the image's format (depth and stencil of combined formats share one
 * interleaved layout, so the description is the same for both; multi-planar
 * formats, which would pick a plane, are not supported). */
void sd_image_level(const struct sd_image *img, uint32_t level, VkImageAspectFlags aspect,
                    struct sr_image_level *out);

/* Resolves VK_REMAINING_MIP_LEVELS / VK_REMAINING_ARRAY_LAYERS of a range
 * against an image. */
static inline uint32_t
sd_image_level_count(const struct sd_image *img, const VkImageSubresourceRange *r)
{
   return r->levelCount == VK_REMAINING_MIP_LEVELS ? img->mip_levels - r->baseMipLevel
                                                   : r->levelCount;
}

static inline uint32_t
sd_image_layer_count(const struct sd_image *img, const VkImageSubresourceRange *r)
{
   return r->layerCount == VK_REMAINING_ARRAY_LAYERS ? img->array_layers - r->baseArrayLayer
                                                     : r->layerCount;
}

#endif
