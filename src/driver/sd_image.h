/*
 * sd_image: VkImage and VkImageView.
 *
 * Owns: an image's creation parameters, its memory layout and its binding
 * (memory + offset); a view's image, type, format, resolved swizzle,
 * resolved subresource range and its shader ABI description (struct
 * shale_image_view_desc, which descriptor records point at).
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
 *     one row of blocks rounded up to a multiple of 64 (SD_IMAGE_ALIGNMENT,
 *     a cache line) when they are 64 or more, else to SD_IMAGE_ROW_ALIGNMENT
 *     (16, the optimalBufferCopyRowPitchAlignment), texels packed inside a
 *     row. Whole lines a row: the rasterizer's 64-pixel tiles then share no
 *     cache line with their neighbours (tiles run on different threads at
 *     once), a clear streams whole lines, and the X server's copy of a
 *     swapchain image reads aligned rows. (Multi-planar images' planes keep
 *     rows rounded up to 16.)
 *   Multisampled images (2D, one level, optimal; SD_IMAGE_SAMPLE_COUNTS)
 *   keep a pixel's samples next to each other, as the rasterizer's
 *   surfaces do: sample s of pixel (x, y) is at the row's start + (x *
 *   samples + s) * texel size, so a row holds width * samples texels
 *   (row_pitch = that, rounded up as above). Transfers see such a level as
 *   an image width * samples texels wide (sd_image_level).
 *   A "block" is one texel for uncompressed formats, a compressed block
 *   (e.g. 4x4 texels) otherwise. Depth/stencil formats store both aspects
 *   interleaved in one texel as described in util/su_format.h, so both
 *   aspects share one layout (and the same subresource offsets).
 *   The image needs `size` bytes (a multiple of 64), aligned to 64.
 *
 * Multi-planar formats (VK_KHR_sampler_ycbcr_conversion; 2D, one level, one
 * layer): each plane is an image of its compatible single-plane format
 * (su_format_multiplanar) at its own extent, laid out like a level above
 * (rows of row_pitch bytes, a multiple of 16; size a multiple of 64). The
 * planes of a non-disjoint image follow each other (plane p at
 * planes[p].offset from the image's start); each plane of a disjoint image
 * (VK_IMAGE_CREATE_DISJOINT_BIT) has its own requirements and binding
 * (VkImagePlaneMemoryRequirementsInfo, VkBindImagePlaneMemoryInfo), offset
 * 0 from it. Such an image has `desc` NULL (planes[] describe it; levels[0]
 * repeats plane 0's layout), `mp` its description, `plane_count` 2 or 3.
 *
 * VK_KHR_maintenance1: a 3D image created with 2D_ARRAY_COMPATIBLE has 2D
 * and 2D array views whose layers are z slices of one level.
 *
 * External formats (VK_ANDROID_external_memory_android_hardware_buffer,
 * VkExternalFormatANDROID): such an image is an image of the format its
 * external format stands for (sd_ahb resolves it before anything else
 * sees the create info: a multi-planar format for Y'CbCr buffers, a
 * single-plane one such as R8G8B8A8_UNORM for RGB buffers), sampled only;
 * its views name VK_FORMAT_UNDEFINED and take the image's format, and are
 * sampled through the external format's conversion (single-plane views
 * with a conversion are read by sr_sample as one plane). Bound to the AHB
 * dedicated to it, it takes the buffer's layout (sd_ahb_image_bind).
 *
 * Android native-buffer images (VK_ANDROID_native_buffer, when the device
 * enabled it): an image created with VkNativeBufferANDROID chained, or
 * created with VkImageSwapchainCreateInfoKHR and later bound through
 * vkBindImageMemory2 with VkBindImageMemorySwapchainInfoKHR and
 * VkNativeBufferANDROID chained (spec version 8), has the gralloc buffer as
 * its memory: zero copy, the renderer reads and writes the buffer in place.
 * Such an image is 2D, one level, one layer, one sample; its single level
 * has row_pitch = the buffer's stride * bytes per pixel (not aligned to
 * SD_IMAGE_ROW_ALIGNMENT: the buffer's own pitch), depth_pitch = layer_pitch
 * = size = row_pitch * height, and `data` is the buffer's CPU mapping,
 * locked once at import for the image's life and unlocked and released by
 * vkDestroyImage. The platform does the gralloc work through
 * sd_native_buffer_ops (registered by the HAL); the state it keeps lives in
 * the image's own allocation (`native`). VkSwapchainImageCreateInfoANDROID's
 * usage is kept in `swapchain_usage` (the shared bit: a shared presentable
 * image, released again and again without being acquired in between).
 *
 * Invariants: levels[] is filled for every mip level at creation and never
 * changes, except that binding a native buffer replaces the layout with the
 * buffer's; `data` is NULL until bound, then points at the bound memory plus
 * offset (or the native buffer's pixel (0,0)), and never changes (images bind
 * once). A view's range has no VK_REMAINING_* left in it.
 *
 * Threading: immutable after binding; views are immutable.
 */
#ifndef SD_IMAGE_H
#define SD_IMAGE_H

#include <stdbool.h>

#include "sd_object.h"
#include "shale/shader_abi.h"
#include "vulkan/vk_android_native_buffer.h"

struct sd_device_memory;
struct sd_physical_device;
struct sd_ycbcr_conversion;
struct su_format_desc;
struct su_multiplanar_desc;
struct sr_image_level;
struct sr_surface;

/* 16384 (maxImageDimension1D/2D/Cube) has 15 levels. */
#define SD_MAX_MIP_LEVELS 15
#define SD_IMAGE_ALIGNMENT 64
#define SD_IMAGE_ROW_ALIGNMENT 16
/* Sample counts of multisampled images (sd_format_image_properties says
 * which images may have them): 4, the count graphics pipelines take. The
 * layout, clears, copies and resolves work for 2 and 8 too (the rasterizer
 * has their sample positions); they are reported once pipelines take them. */
#define SD_IMAGE_SAMPLE_COUNTS VK_SAMPLE_COUNT_4_BIT

struct sd_image_level_layout {
   VkDeviceSize offset;        /* from the image's start */
   VkDeviceSize row_pitch;     /* bytes between rows of blocks */
   VkDeviceSize depth_pitch;   /* bytes between z slices */
   VkDeviceSize layer_pitch;   /* bytes between array layers */
   VkDeviceSize size;          /* layer_pitch * layers */
};

/* One plane of a multi-planar image. */
struct sd_image_plane {
   const struct su_format_desc *desc;   /* the plane's compatible format */
   VkExtent3D extent;                   /* in the plane's texels (depth 1) */
   VkDeviceSize offset;                 /* from the image's start (disjoint: 0) */
   VkDeviceSize row_pitch;
   VkDeviceSize size;                   /* a multiple of SD_IMAGE_ALIGNMENT */
   struct sd_device_memory *memory;     /* disjoint planes: their own binding */
   VkDeviceSize memory_offset;
   uint8_t *data;                       /* texel (0, 0); NULL until bound */
};

struct sd_image {
   struct sd_object base;
   VkImageType type;
   VkFormat format;
   const struct su_format_desc *desc;   /* NULL for multi-planar formats */
   const struct su_multiplanar_desc *mp;   /* multi-planar formats only */
   uint32_t plane_count;                /* 0 unless multi-planar */
   bool disjoint;
   struct sd_image_plane planes[3];
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

   /* VK_ANDROID_native_buffer: the platform's state for the imported buffer
    * (sd_native_buffer_ops::storage_size bytes), or NULL for an image that
    * takes no native buffer; `native_bound` once a buffer is imported. */
   void *native;
   bool native_bound;
   VkSwapchainImageUsageFlagsANDROID swapchain_usage;
};

struct sd_image_view {
   struct sd_object base;
   struct sd_image *image;
   VkImageViewType view_type;
   VkFormat format;
   /* NULL for a view of a whole multi-planar format (sampled through the
    * Y'CbCr conversion `conversion`); a view of one plane (`plane` >= 0)
    * has the plane's compatible format or one compatible with it. */
   const struct su_format_desc *desc;
   int plane;
   const struct sd_ycbcr_conversion *conversion;
   /* IDENTITY resolved to the component itself (R, G, B or A). */
   VkComponentMapping swizzle;
   /* levelCount and layerCount resolved (no VK_REMAINING_*). */
   VkImageSubresourceRange range;
   /* What compiled code reads through image descriptor records (`view`):
    * the view's levels and layers in the image's memory, filled at creation
    * (the image is bound by then, as the spec requires). */
   struct shale_image_view_desc abi;
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

/* What a native buffer's import gives the image: the CPU mapping of pixel
 * (0,0), valid until release, and the bytes between rows. */
struct sd_native_mapping {
   uint8_t *data;
   VkDeviceSize row_pitch;
};

/* The platform's gralloc access (the HAL registers it when its library
 * loads). import() reads img's format, extent and usage, imports and maps
 * the buffer for CPU access matching that usage, and keeps its state in
 * `storage` (storage_size bytes, 16-aligned); on failure storage holds
 * nothing. Returns VK_SUCCESS, VK_ERROR_INVALID_EXTERNAL_HANDLE (a handle or
 * description that does not fit the image), VK_ERROR_FORMAT_NOT_SUPPORTED or
 * VK_ERROR_OUT_OF_HOST_MEMORY. release() unmaps and drops the import. */
struct sd_native_buffer_ops {
   size_t storage_size;
   VkResult (*import)(const struct sd_image *img, const VkNativeBufferANDROID *nb, void *storage,
                      struct sd_native_mapping *out);
   void (*release)(void *storage);
};

void sd_image_register_native_buffer_ops(const struct sd_native_buffer_ops *ops);

/* Fills VkPhysicalDevicePresentationPropertiesANDROID (chained into
 * vkGetPhysicalDeviceProperties2 when VK_ANDROID_native_buffer is claimed). */
void sd_image_presentation_properties_android(VkPhysicalDevicePresentationPropertiesANDROID *p);

/* Computes the layout above for the given parameters into levels[] and
 * returns the total size. `desc` must be a known format; mip_levels at most
 * SD_MAX_MIP_LEVELS. */
VkDeviceSize sd_image_compute_layout(const struct su_format_desc *desc, VkExtent3D extent,
                                     uint32_t mip_levels, uint32_t array_layers,
                                     uint32_t samples, struct sd_image_level_layout *levels);

/* Describes mip level `level` of a bound image, all its array layers, for the
 * rasterizer's transfer and sampling code (a multisampled level as one
 * `samples` times as wide). `aspect` is one or more aspects of
 * the image's format (depth and stencil of combined formats share one
 * interleaved layout, so the description is the same for both), or one
 * VK_IMAGE_ASPECT_PLANE_n_BIT of a multi-planar image: that plane, as an
 * image of its compatible format. */
void sd_image_level(const struct sd_image *img, uint32_t level, VkImageAspectFlags aspect,
                    struct sr_image_level *out);

/* Describes a bound, single-plane view's first level and its layers as a
 * rasterizer attachment (sr_raster.h): base at the view's base layer,
 * the level's pitches (z slices for 2D views of 3D images), the image's
 * samples. */
void sd_image_view_surface(const struct sd_image_view *view, struct sr_surface *out);

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
