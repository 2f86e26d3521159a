/*
 * sd_ahb: VK_ANDROID_external_memory_android_hardware_buffer in the driver:
 * device memory that is an AHardwareBuffer (imported, or allocated for
 * export), the buffer's properties, images that take the buffer's layout,
 * and the handle type's capability answers.
 *
 * Owns: struct sd_ahb_memory (the AHB state of a VkDeviceMemory, in the
 * memory's own allocation), the AHB format and usage equivalences of the
 * spec ("AHardwareBuffer Format/Usage Equivalence"), and the registration
 * of the platform's gralloc access (sd_ahb_ops, like sd_native_buffer_ops:
 * the driver knows no gralloc; the HAL registers both backends' access when
 * its library loads, src/hal/sh_ahb.c).
 *
 * Zero copy: an AHB-backed VkDeviceMemory is the buffer's CPU mapping, taken
 * at allocation (AHardwareBuffer_lock with the buffer's own CPU usage) and
 * held until vkFreeMemory, which unlocks and releases the memory's one
 * reference. vkGetMemoryAndroidHardwareBufferANDROID hands out the same
 * buffer with a new reference each call. The "GPU" is the CPU, so Shale
 * takes only buffers it may read and write from the CPU: an AHB's usage
 * must hold CPU read and CPU write bits (VkAndroidHardwareBufferUsageANDROID
 * asks for both, and export allocates with both); others are
 * VK_ERROR_INVALID_EXTERNAL_HANDLE.
 *
 * What Shale takes: one layer, one mip level (no GPU_MIPMAP_COMPLETE, no
 * GPU_CUBE_MAP), no PROTECTED_CONTENT; BLOB (buffers: `width` bytes), the
 * colour formats whose Vulkan equivalent Shale samples (R8G8B8A8,
 * R8G8B8X8, R5G6B5, R16G16B16A16_FLOAT, R10G10B10A2; R8G8B8 once
 * R8G8B8_UNORM is sampled, which it is not today: with no GPU usage Shale
 * honours, such a buffer would be unusable) and Y8Cb8Cr8_420 (below).
 * Depth/stencil AHB formats are not taken. Images with COLOR_ATTACHMENT
 * usage wait for the rasterizer like every other image.
 *
 * allocationSize of a buffer: BLOB: its width; RGB: stride * bytes per
 * pixel * height (the rows the CPU mapping spans); Y'CbCr: up to the last
 * sample of the plane that ends last. Every memory type may hold it.
 * Images bound to AHB memory: the memory must be dedicated to the image
 * (VkMemoryDedicatedRequirements says so once bound; the spec forbids
 * asking before); binding replaces the image's layout with the buffer's
 * (row pitch = the buffer's stride * bytes per pixel; the planes' offsets
 * and pitches), as native-buffer images do.
 *
 * Y'CbCr buffers (Y8Cb8Cr8_420, 4:2:0, even extents): where the planes are
 * comes from the lock (AHardwareBuffer_lockPlanes). Cb,Cr interleaved is
 * G8_B8R8_2PLANE_420_UNORM (Cr,Cb interleaved: the same format, its
 * external format's conversion swapping R and B), separate planes
 * G8_B8_R8_3PLANE_420_UNORM; images of them take the buffer's plane offsets
 * and pitches. Exports: G8_B8R8_2PLANE_420_UNORM images only, when the
 * allocator lays the buffer out that way.
 *
 * externalFormat: the AHB format number, with the Y'CbCr layout in bits
 * 32 and up (never 0; buffers of one external format sample alike). An
 * external-format image or conversion is made for the format it stands for
 * (the conversion with the components the layout needs: RGBX reads X as
 * one, Cr,Cb pairs swap R and B; the application's are ignored). Its
 * features are those of sampling that format through a conversion
 * (sd_format_conversion_features): RGB buffers' single-plane formats too
 * (SAMPLED_IMAGE, FILTER_LINEAR, both chroma locations, LINEAR_FILTER,
 * SEPARATE_RECONSTRUCTION_FILTER, EXPLICIT_FORCEABLE), which the plain
 * formats' own properties never show. Suggested conversions: RGB_IDENTITY,
 * full range, for RGB buffers; BT.601 narrow, cosited/midpoint, for
 * Y'CbCr ones. The extension is offered only where Y'CbCr conversion is
 * and every external format has features (sd_ahb_offer); it is, on the
 * Android HAL module.
 *
 * Threading: the ops and the offer are set when the library loads; memory
 * state is immutable after allocation.
 */
#ifndef SD_AHB_H
#define SD_AHB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sd_object.h"

struct AHardwareBuffer;
struct sd_device;
struct sd_device_memory;
struct sd_image;

/* AHardwareBuffer_Desc's members. */
struct sd_ahb_desc {
   uint32_t width, height, layers;
   uint32_t format;           /* AHARDWAREBUFFER_FORMAT_* (shale/ahb.h) */
   uint64_t usage;            /* AHARDWAREBUFFER_USAGE_* */
   uint32_t stride;           /* pixels between rows (BLOB: its width) */
};

/* Where a buffer's samples are, from its mapping's first byte: one plane
 * for RGB and BLOB buffers (offset 0; a BLOB's row is its width), Y, Cb and
 * Cr for Y'CbCr ones (Cb and Cr may interleave: pixel_stride 2, one byte
 * apart). AHardwareBuffer_lockPlanes's answer, made relative. */
struct sd_ahb_plane {
   VkDeviceSize offset;
   VkDeviceSize row_pitch;
   uint32_t pixel_stride;
};

struct sd_ahb_layout {
   uint32_t plane_count;      /* 1 or 3; 0: the platform could not say */
   struct sd_ahb_plane planes[3];
};

/* A buffer mapped for the CPU, as the platform gives it to a memory. */
struct sd_ahb_mapping {
   uint8_t *data;             /* the lowest byte of any plane, valid until release */
   struct sd_ahb_layout layout;
};

/* The platform's AHardwareBuffer access (registered by the HAL when its
 * library loads). State of one mapped buffer lives in `storage`
 * (storage_size bytes, 16-aligned); on failure storage holds nothing.
 *  - describe: AHardwareBuffer_describe, and (when `layout` is not NULL)
 *    the layout the buffer's lock would give (Y'CbCr buffers: locked and
 *    unlocked to learn it; plane_count 0 when that fails);
 *    VK_ERROR_INVALID_EXTERNAL_HANDLE where the platform can tell it is not
 *    a buffer.
 *  - import: takes a reference and maps the whole buffer for the CPU
 *    access its usage allows (locked until release), saying where the
 *    planes are.
 *  - allocate: AHardwareBuffer_allocate (desc->stride is ignored), then as
 *    import; the one reference is the storage's.
 *  - buffer: the buffer in `storage` (no new reference); acquire adds one
 *    for a caller.
 *  - release: unlocks and drops the storage's reference.
 * Results: VK_SUCCESS, VK_ERROR_INVALID_EXTERNAL_HANDLE,
 * VK_ERROR_OUT_OF_HOST_MEMORY or VK_ERROR_OUT_OF_DEVICE_MEMORY. */
struct sd_ahb_ops {
   size_t storage_size;
   VkResult (*describe)(const struct AHardwareBuffer *ahb, struct sd_ahb_desc *out,
                        struct sd_ahb_layout *layout);
   VkResult (*import)(struct AHardwareBuffer *ahb, void *storage, struct sd_ahb_mapping *out);
   VkResult (*allocate)(const struct sd_ahb_desc *desc, void *storage, struct sd_ahb_mapping *out);
   struct AHardwareBuffer *(*buffer)(const void *storage);
   void (*acquire)(struct AHardwareBuffer *ahb);
   void (*release)(void *storage);
};

void sd_ahb_register_ops(const struct sd_ahb_ops *ops);

/* Offers the extension (sd_device_extensions_supported) when its
 * dependency VK_KHR_sampler_ycbcr_conversion is offered and every external
 * format samples through a conversion; called by the Android HAL module
 * only (the desktop ICD never has AHardwareBuffers). */
void sd_ahb_offer(void);

/* Whether the handle type is offered (ops registered, extension offered). */
bool sd_ahb_supported(void);

/* How a buffer's samples are laid out. */
enum sd_ahb_kind {
   SD_AHB_KIND_PLAIN,         /* one plane: RGB or BLOB */
   SD_AHB_KIND_NV12,          /* Y, then Cb,Cr interleaved */
   SD_AHB_KIND_NV21,          /* Y, then Cr,Cb interleaved */
   SD_AHB_KIND_PLANAR,        /* Y, Cb and Cr planes */
};

/* What Shale makes of a buffer it takes: the Vulkan format of its
 * pictures and where their planes are. */
struct sd_ahb_info {
   struct sd_ahb_desc desc;
   enum sd_ahb_kind kind;
   VkFormat format;                   /* its pictures' format; UNDEFINED for a BLOB */
   VkComponentMapping components;     /* what its external format's conversion applies */
   uint32_t plane_count;              /* Vulkan planes: 1, or 2 / 3 for Y'CbCr */
   struct {
      VkDeviceSize offset;            /* from the mapping's first byte */
      VkDeviceSize row_pitch;
   } planes[3];
   VkDeviceSize size;                 /* allocationSize */
};

/* The AHB state of a VkDeviceMemory. */
struct sd_ahb_memory {
   struct sd_ahb_info info;
   const struct sd_image *image;      /* the dedicated image, or NULL */
   void *storage;                     /* the platform's (sd_ahb_ops::storage_size) */
};

/* Bytes a memory needs after its struct for the AHB state. */
size_t sd_ahb_memory_bytes(void);

/* Makes `mem` (created for `info`, zeroed, size and type set) an
 * AHardwareBuffer: imports `import` when non-NULL, else allocates one for
 * export (VkExportMemoryAllocateInfo with the AHB type; dedicated to an
 * image: the image's description, allocationSize ignored as the spec makes
 * it 0; otherwise a BLOB of allocationSize bytes). Sets data, size, ahb and
 * imported. `state` is sd_ahb_memory_bytes() bytes. On failure nothing is
 * kept. */
VkResult sd_ahb_memory_init(struct sd_device *device, struct sd_device_memory *mem,
                            const VkMemoryAllocateInfo *info, struct AHardwareBuffer *import,
                            void *state);
/* Unmaps and releases the memory's reference (vkFreeMemory). */
void sd_ahb_memory_finish(struct sd_device_memory *mem);

/* The external-memory properties of an image for the AHB handle type
 * (sd_external_image_properties): VK_SUCCESS, or
 * VK_ERROR_FORMAT_NOT_SUPPORTED with *out zeroed. */
VkResult sd_ahb_external_image_properties(const VkPhysicalDeviceImageFormatInfo2 *info,
                                          VkExternalMemoryProperties *out);
/* The AHB part of vkGetPhysicalDeviceImageFormatProperties2 once the query
 * has its answer `result`: one level and one layer for the AHB handle type,
 * and VkAndroidHardwareBufferUsageANDROID. */
void sd_ahb_image_format_properties(const VkPhysicalDeviceImageFormatInfo2 *info, VkResult result,
                                    VkImageFormatProperties2 *props);

/* External formats (VkExternalFormatANDROID), for the call sites in image,
 * view and conversion creation. Each replaces *ci with `storage` holding a
 * copy that names the real format (and, for conversions, the components the
 * external format needs), or leaves it alone where no external format is
 * involved (or the device did not enable the extension). Errors:
 * VK_ERROR_FORMAT_NOT_SUPPORTED for an external format Shale did not hand
 * out, or one whose images cannot be sampled (no conversion for it). */
VkResult sd_ahb_image_create_info(const struct sd_device *device, const VkImageCreateInfo **ci,
                                  VkImageCreateInfo *storage);
/* A view of an external-format image names no format (UNDEFINED): the
 * image's. */
const VkImageViewCreateInfo *sd_ahb_image_view_create_info(const struct sd_device *device,
                                                           const struct sd_image *img,
                                                           const VkImageViewCreateInfo *ci,
                                                           VkImageViewCreateInfo *storage);
VkResult sd_ahb_ycbcr_create_info(const struct sd_device *device,
                                  const VkSamplerYcbcrConversionCreateInfo **ci,
                                  VkSamplerYcbcrConversionCreateInfo *storage);

/* Binding: an image bound to memory of an AHB dedicated to it takes the
 * buffer's layout. Called by every bind, after img->memory/data are set. */
void sd_ahb_image_bind(struct sd_image *img, struct sd_device_memory *mem);
/* VkMemoryDedicatedRequirements of a bound image: required and preferred
 * when its memory is an AHB dedicated to it. */
void sd_ahb_image_requirements(const struct sd_image *img, VkMemoryRequirements2 *req);

#endif
