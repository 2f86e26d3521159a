/* VK_ANDROID_external_memory_android_hardware_buffer: AHardwareBuffer memory, properties, external formats, image layouts, capabilities. */
#include "sd_ahb.h"

#include <string.h>

#include "shale/ahb.h"
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_format.h"
#include "sd_image.h"
#include "sd_memory.h"
#include "sd_physical_device.h"
#include "sd_util.h"
#include "util/su_format.h"

#define SD_AHB_TYPE VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID

static const struct sd_ahb_ops *sd_ahb_ops;   /* set when the HAL's library loads */

/* ---- formats and usage (the spec's equivalence tables) ---- */

/* AHardwareBuffer Format Equivalence, the colour rows (Shale takes no
 * depth/stencil buffers). R8G8B8X8 reads as R8G8B8A8 (alpha undefined). */
static const struct {
   uint32_t ahb;
   VkFormat vk;
} sd_ahb_formats[] = {
   { SHALE_AHB_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM },
   { SHALE_AHB_FORMAT_R8G8B8X8_UNORM, VK_FORMAT_R8G8B8A8_UNORM },
   { SHALE_AHB_FORMAT_R8G8B8_UNORM, VK_FORMAT_R8G8B8_UNORM },
   { SHALE_AHB_FORMAT_R5G6B5_UNORM, VK_FORMAT_R5G6B5_UNORM_PACK16 },
   { SHALE_AHB_FORMAT_R16G16B16A16_FLOAT, VK_FORMAT_R16G16B16A16_SFLOAT },
   { SHALE_AHB_FORMAT_R10G10B10A2_UNORM, VK_FORMAT_A2B10G10R10_UNORM_PACK32 },
};
#define SD_AHB_FORMAT_COUNT (sizeof(sd_ahb_formats) / sizeof(sd_ahb_formats[0]))

/* The Vulkan format of an RGB AHB format's pictures; UNDEFINED for others. */
static VkFormat
sd_ahb_rgb_format(uint32_t ahb_format)
{
   for (size_t i = 0; i < SD_AHB_FORMAT_COUNT; i++) {
      if (sd_ahb_formats[i].ahb == ahb_format)
         return sd_ahb_formats[i].vk;
   }
   return VK_FORMAT_UNDEFINED;
}

/* The AHB format an export of an image of `format` allocates (and the
 * layout it must come back in); 0 for none. */
static uint32_t
sd_ahb_format_for_vk(VkFormat format, enum sd_ahb_kind *kind)
{
   *kind = SD_AHB_KIND_PLAIN;
   if (format == VK_FORMAT_G8_B8R8_2PLANE_420_UNORM) {
      *kind = SD_AHB_KIND_NV12;
      return SHALE_AHB_FORMAT_Y8Cb8Cr8_420;
   }
   for (size_t i = 0; i < SD_AHB_FORMAT_COUNT; i++) {
      if (sd_ahb_formats[i].vk == format)
         return sd_ahb_formats[i].ahb;
   }
   return 0;
}

/* The format of a layout's pictures. */
static VkFormat
sd_ahb_kind_format(uint32_t ahb_format, enum sd_ahb_kind kind)
{
   switch (kind) {
   case SD_AHB_KIND_NV12:
   case SD_AHB_KIND_NV21:
      return VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
   case SD_AHB_KIND_PLANAR:
      return VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM;
   default:
      return sd_ahb_rgb_format(ahb_format);
   }
}

/* What a conversion of the layout's external format applies: RGBX reads
 * its undefined X as one; Cr,Cb-interleaved data swaps what
 * G8_B8R8_2PLANE_420 calls B and R. */
static VkComponentMapping
sd_ahb_kind_components(uint32_t ahb_format, enum sd_ahb_kind kind)
{
   VkComponentMapping c = { VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY,
                            VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY };
   if (ahb_format == SHALE_AHB_FORMAT_R8G8B8X8_UNORM)
      c.a = VK_COMPONENT_SWIZZLE_ONE;
   if (kind == SD_AHB_KIND_NV21) {
      c.r = VK_COMPONENT_SWIZZLE_B;
      c.b = VK_COMPONENT_SWIZZLE_R;
   }
   return c;
}

/* Whether images of this format may live in a buffer. Every AHB needs a GPU
 * usage, and any buffer allocated with one must work with the equivalent
 * Vulkan usage; the one Shale always honours is sampling
 * (GPU_SAMPLED_IMAGE), so a format it does not sample is not taken. */
static bool
sd_ahb_image_format_ok(VkFormat format)
{
   return format != VK_FORMAT_UNDEFINED &&
          (sd_format_image_features(format) & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT);
}

/* AHardwareBuffer Usage Equivalence: the AHB usage an image's usage and
 * flags correspond to; *listed = every bit has a row in the table. */
static uint64_t
sd_ahb_usage_for_image(VkImageUsageFlags usage, VkImageCreateFlags flags, bool *listed)
{
   const VkImageUsageFlags known_usage =
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT |
      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
      VK_IMAGE_USAGE_STORAGE_BIT;
   const VkImageCreateFlags known_flags =
      VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT | VK_IMAGE_CREATE_PROTECTED_BIT |
      VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
   *listed = !(usage & ~known_usage) && !(flags & ~known_flags);
   uint64_t ahb = 0;
   if (usage & (VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT))
      ahb |= SHALE_AHB_USAGE_GPU_SAMPLED_IMAGE;
   if (usage & (VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT))
      ahb |= SHALE_AHB_USAGE_GPU_FRAMEBUFFER;
   if (usage & VK_IMAGE_USAGE_STORAGE_BIT)
      ahb |= SHALE_AHB_USAGE_GPU_DATA_BUFFER;
   if (flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT)
      ahb |= SHALE_AHB_USAGE_GPU_CUBE_MAP;
   if (flags & VK_IMAGE_CREATE_PROTECTED_BIT)
      ahb |= SHALE_AHB_USAGE_PROTECTED_CONTENT;
   return ahb;
}

/* What Shale asks allocators for: the equivalent GPU usage (sampling when
 * there is none: the spec wants at least one GPU bit), and CPU read and
 * write, since its GPU is the CPU. */
static uint64_t
sd_ahb_optimal_usage(uint64_t gpu)
{
   if (!(gpu & SHALE_AHB_USAGE_GPU_ANY))
      gpu |= SHALE_AHB_USAGE_GPU_SAMPLED_IMAGE;
   return gpu | SHALE_AHB_USAGE_CPU_READ_OFTEN | SHALE_AHB_USAGE_CPU_WRITE_OFTEN;
}

/* ---- external formats ---- */

/* externalFormat: the AHB format, the layout above bit 32. */
static uint64_t
sd_ahb_external_format(uint32_t ahb_format, enum sd_ahb_kind kind)
{
   return (uint64_t)ahb_format | (uint64_t)kind << 32;
}

/* The format and components an external format Shale handed out stands
 * for; false for any other value. */
static bool
sd_ahb_external_format_resolve(uint64_t external, VkFormat *format, VkComponentMapping *components)
{
   const uint32_t ahb_format = (uint32_t)external;
   const uint64_t kind = external >> 32;
   const bool yuv = ahb_format == SHALE_AHB_FORMAT_Y8Cb8Cr8_420;
   if (yuv ? (kind < SD_AHB_KIND_NV12 || kind > SD_AHB_KIND_PLANAR) : kind != SD_AHB_KIND_PLAIN)
      return false;
   *format = sd_ahb_kind_format(ahb_format, (enum sd_ahb_kind)kind);
   *components = sd_ahb_kind_components(ahb_format, (enum sd_ahb_kind)kind);
   return sd_ahb_image_format_ok(*format);
}

/* Features of an external format's images: those of sampling its format
 * through a Y'CbCr conversion (external-format images are sampled only
 * through one; single-plane RGB formats have them only here). None where
 * the driver cannot: without conversions, or when its conversions do not
 * take the format (the spec's minimum is SAMPLED_IMAGE and a chroma sample
 * location). */
static VkFormatFeatureFlags
sd_ahb_external_format_features(uint64_t external)
{
   VkFormat format;
   VkComponentMapping components;
   if (!sd_device_extensions_supported.KHR_sampler_ycbcr_conversion ||
       !sd_ahb_external_format_resolve(external, &format, &components))
      return 0;
   const VkFormatFeatureFlags sampling =
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
      VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_SEPARATE_RECONSTRUCTION_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT;
   const VkFormatFeatureFlags f = sd_format_conversion_features(format) & sampling;
   const VkFormatFeatureFlags chroma =
      VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT;
   return (f & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) && (f & chroma) ? f : 0;
}

/* ---- registration and offer ---- */

void
sd_ahb_register_ops(const struct sd_ahb_ops *ops)
{
   sd_ahb_ops = ops;
}

/* Whether every external format Shale hands out can be sampled (the spec
 * requires it of every one). */
static bool
sd_ahb_external_formats_complete(void)
{
   for (size_t i = 0; i < SD_AHB_FORMAT_COUNT; i++) {
      const uint64_t e = sd_ahb_external_format(sd_ahb_formats[i].ahb, SD_AHB_KIND_PLAIN);
      VkFormat format;
      VkComponentMapping components;
      if (sd_ahb_external_format_resolve(e, &format, &components) &&
          !sd_ahb_external_format_features(e))
         return false;
   }
   for (int k = SD_AHB_KIND_NV12; k <= SD_AHB_KIND_PLANAR; k++) {
      if (!sd_ahb_external_format_features(
             sd_ahb_external_format(SHALE_AHB_FORMAT_Y8Cb8Cr8_420, (enum sd_ahb_kind)k)))
         return false;
   }
   return true;
}

void
sd_ahb_offer(void)
{
   /* The extension requires VK_KHR_sampler_ycbcr_conversion, and its
    * external formats sample only through conversions. */
   if (sd_device_extensions_supported.KHR_sampler_ycbcr_conversion &&
       sd_ahb_external_formats_complete())
      sd_device_extensions_supported.ANDROID_external_memory_android_hardware_buffer = true;
}

bool
sd_ahb_supported(void)
{
   return sd_ahb_ops &&
          sd_device_extensions_supported.ANDROID_external_memory_android_hardware_buffer;
}

/* ---- buffers Shale takes ---- */

/* The Y'CbCr layout of three planes (Y, Cb, Cr) of a w x h 4:2:0 buffer. */
static enum sd_ahb_kind
sd_ahb_yuv_kind(const struct sd_ahb_layout *l)
{
   const struct sd_ahb_plane *y = &l->planes[0], *cb = &l->planes[1], *cr = &l->planes[2];
   if (l->plane_count != 3 || y->pixel_stride != 1 || cb->pixel_stride != cr->pixel_stride ||
       cb->row_pitch != cr->row_pitch)
      return SD_AHB_KIND_PLAIN;
   if (cb->pixel_stride == 1)
      return SD_AHB_KIND_PLANAR;
   if (cb->pixel_stride == 2 && cr->offset == cb->offset + 1)
      return SD_AHB_KIND_NV12;
   if (cb->pixel_stride == 2 && cb->offset == cr->offset + 1)
      return SD_AHB_KIND_NV21;
   return SD_AHB_KIND_PLAIN;
}

/* The last byte a plane of cols x rows samples reaches, plus one. */
static VkDeviceSize
sd_ahb_plane_end(const struct sd_ahb_plane *p, uint32_t cols, uint32_t rows, uint32_t bytes)
{
   return p->offset + p->row_pitch * (rows - 1) + (VkDeviceSize)p->pixel_stride * (cols - 1) +
          bytes;
}

/* Whether Shale takes the buffer, and what it makes of it; NULL, or why
 * not. */
static const char *
sd_ahb_info_init(const struct sd_ahb_desc *d, const struct sd_ahb_layout *l,
                 struct sd_ahb_info *info)
{
   memset(info, 0, sizeof(*info));
   info->desc = *d;
   const uint64_t u = d->usage;
   if (!(u & SHALE_AHB_USAGE_GPU_ANY))
      return "AHardwareBuffer without a GPU usage";
   if (!(u & SHALE_AHB_USAGE_CPU_READ_MASK) || !(u & SHALE_AHB_USAGE_CPU_WRITE_MASK))
      return "AHardwareBuffer without CPU read and write usage (Shale's GPU is the CPU)";
   if (u & (SHALE_AHB_USAGE_PROTECTED_CONTENT | SHALE_AHB_USAGE_GPU_MIPMAP_COMPLETE |
            SHALE_AHB_USAGE_GPU_CUBE_MAP))
      return "protected, mipmapped or cube-map AHardwareBuffer";
   if (d->layers != 1 || d->width == 0 || d->height == 0)
      return "AHardwareBuffer not of one non-empty layer";

   if (d->format == SHALE_AHB_FORMAT_BLOB) {
      if (d->height != 1)
         return "BLOB AHardwareBuffer taller than one row";
      info->plane_count = 1;
      info->planes[0].row_pitch = d->width;
      info->size = d->width;
      return NULL;
   }

   if (d->format == SHALE_AHB_FORMAT_Y8Cb8Cr8_420) {
      info->kind = sd_ahb_yuv_kind(l);
      if (info->kind == SD_AHB_KIND_PLAIN)
         return "Y'CbCr AHardwareBuffer in a layout Shale does not take";
      if ((d->width | d->height) & 1)
         return "Y'CbCr 4:2:0 AHardwareBuffer of odd width or height";
      const uint32_t cw = d->width / 2, ch = d->height / 2;
      if (l->planes[0].row_pitch < d->width ||
          l->planes[1].row_pitch < (VkDeviceSize)cw * l->planes[1].pixel_stride)
         return "Y'CbCr AHardwareBuffer rows shorter than its width";
      info->format = sd_ahb_kind_format(d->format, info->kind);
      if (!sd_ahb_image_format_ok(info->format))
         return "Y'CbCr AHardwareBuffer: the format is not sampled";
      info->components = sd_ahb_kind_components(d->format, info->kind);
      info->planes[0].offset = l->planes[0].offset;
      info->planes[0].row_pitch = l->planes[0].row_pitch;
      if (info->kind == SD_AHB_KIND_PLANAR) {
         info->plane_count = 3;
         for (int p = 1; p < 3; p++) {
            info->planes[p].offset = l->planes[p].offset;
            info->planes[p].row_pitch = l->planes[p].row_pitch;
         }
      } else {
         /* The interleaved plane starts at whichever comes first. */
         info->plane_count = 2;
         info->planes[1].offset = info->kind == SD_AHB_KIND_NV12 ? l->planes[1].offset
                                                                 : l->planes[2].offset;
         info->planes[1].row_pitch = l->planes[1].row_pitch;
      }
      info->size = sd_ahb_plane_end(&l->planes[0], d->width, d->height, 1);
      for (int p = 1; p < 3; p++) {
         const VkDeviceSize end = sd_ahb_plane_end(&l->planes[p], cw, ch, 1);
         info->size = end > info->size ? end : info->size;
      }
      return NULL;
   }

   info->format = sd_ahb_rgb_format(d->format);
   if (!sd_ahb_image_format_ok(info->format))
      return "AHardwareBuffer format not taken";
   if (d->stride < d->width)
      return "AHardwareBuffer stride below its width";
   info->components = sd_ahb_kind_components(d->format, SD_AHB_KIND_PLAIN);
   info->plane_count = 1;
   info->planes[0].row_pitch = (VkDeviceSize)d->stride * su_format_desc(info->format)->block_size;
   info->size = info->planes[0].row_pitch * d->height;
   /* The platform's lock, where it says, must agree. */
   if (l->plane_count && (l->plane_count != 1 || l->planes[0].offset != 0 ||
                          l->planes[0].row_pitch != info->planes[0].row_pitch))
      return "AHardwareBuffer lock layout differs from its description";
   return NULL;
}

/* Describes a buffer the application gave and checks Shale takes it. */
static VkResult
sd_ahb_describe(const struct AHardwareBuffer *ahb, struct sd_ahb_info *info)
{
   memset(info, 0, sizeof(*info));
   if (!sd_ahb_ops || !ahb)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "no AHardwareBuffer");
   struct sd_ahb_desc d;
   struct sd_ahb_layout l;
   VkResult r = sd_ahb_ops->describe(ahb, &d, &l);
   if (r != VK_SUCCESS)
      return r;
   const char *why = sd_ahb_info_init(&d, &l, info);
   return why ? sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, why) : VK_SUCCESS;
}

/* ---- vkGetAndroidHardwareBufferPropertiesANDROID ---- */

struct sd_ahb_format_properties {
   VkFormat format;
   uint64_t external_format;
   VkFormatFeatureFlags features;
   VkComponentMapping components;
   VkSamplerYcbcrModelConversion model;
   VkSamplerYcbcrRange range;
   VkChromaLocation x_offset, y_offset;
};

static void
sd_ahb_format_properties(const struct sd_ahb_info *info, struct sd_ahb_format_properties *p)
{
   const bool yuv = info->kind != SD_AHB_KIND_PLAIN;
   /* The Vulkan format, where one is the buffer's: the equivalence table's
    * for RGB; the multi-planar format where the layout is exactly it. */
   p->format = info->kind == SD_AHB_KIND_NV21 ? VK_FORMAT_UNDEFINED : info->format;
   p->external_format = sd_ahb_external_format(info->desc.format, info->kind);
   p->features = info->desc.format == SHALE_AHB_FORMAT_BLOB
                    ? 0
                    : sd_ahb_external_format_features(p->external_format);
   /* Identity for a format Vulkan knows; the external format's own
    * conversion applies what the layout needs (sd_ahb_ycbcr_create_info). */
   p->components = info->components;
   if (p->format == VK_FORMAT_UNDEFINED)
      p->components = (VkComponentMapping) { 0 };
   /* Suggestions: RGB data converts nothing; Y'CbCr buffers are video and
    * camera frames, BT.601 limited range with MPEG-2 chroma siting
    * (co-sited horizontally, between the rows vertically), as GL's
    * external images usually sample them. */
   p->model = yuv ? VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601
                  : VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY;
   p->range = yuv ? VK_SAMPLER_YCBCR_RANGE_ITU_NARROW : VK_SAMPLER_YCBCR_RANGE_ITU_FULL;
   p->x_offset = yuv ? VK_CHROMA_LOCATION_COSITED_EVEN : VK_CHROMA_LOCATION_MIDPOINT;
   p->y_offset = VK_CHROMA_LOCATION_MIDPOINT;
}

/* VkAndroidHardwareBufferFormatPropertiesANDROID and its _2 version (whose
 * formatFeatures are VkFormatFeatureFlags2) take the same members. */
#define SD_AHB_FORMAT_PROPERTIES_FILL(f, p)                                               \
   do {                                                                                   \
      (f)->format = (p)->format;                                                          \
      (f)->externalFormat = (p)->external_format;                                         \
      (f)->formatFeatures = (p)->features;                                                \
      (f)->samplerYcbcrConversionComponents = (p)->components;                            \
      (f)->suggestedYcbcrModel = (p)->model;                                              \
      (f)->suggestedYcbcrRange = (p)->range;                                              \
      (f)->suggestedXChromaOffset = (p)->x_offset;                                        \
      (f)->suggestedYChromaOffset = (p)->y_offset;                                        \
   } while (0)

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetAndroidHardwareBufferPropertiesANDROID(VkDevice _device, const struct AHardwareBuffer *buffer,
                                             VkAndroidHardwareBufferPropertiesANDROID *pProperties)
{
   struct sd_ahb_info info;
   VkResult r = sd_ahb_describe(buffer, &info);
   if (r != VK_SUCCESS)
      return r;
   pProperties->allocationSize = info.size;
   pProperties->memoryTypeBits = (1u << SD_MEMORY_TYPE_COUNT) - 1;
   struct sd_ahb_format_properties p;
   sd_ahb_format_properties(&info, &p);
   sd_foreach_struct_out(s, pProperties->pNext) {
      switch ((int)s->sType) {
      case VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_FORMAT_PROPERTIES_ANDROID:
         SD_AHB_FORMAT_PROPERTIES_FILL((VkAndroidHardwareBufferFormatPropertiesANDROID *)s, &p);
         break;
      case VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_FORMAT_PROPERTIES_2_ANDROID:
         SD_AHB_FORMAT_PROPERTIES_FILL((VkAndroidHardwareBufferFormatProperties2ANDROID *)s, &p);
         break;
      default:
         break;
      }
   }
   return VK_SUCCESS;
}

/* ---- memory ---- */

size_t
sd_ahb_memory_bytes(void)
{
   return sd_align64(sizeof(struct sd_ahb_memory), SD_ALIGN_DEFAULT) +
          (sd_ahb_ops ? sd_ahb_ops->storage_size : 0);
}

/* The valid usage of a dedicated import (VUID-VkMemoryAllocateInfo-pNext-
 * 02386..02390, 02586): the image must be the buffer's picture. */
static VkResult
sd_ahb_check_image(const struct sd_image *img, const struct sd_ahb_info *info)
{
   const struct sd_ahb_desc *d = &info->desc;
   bool listed;
   const uint64_t need = sd_ahb_usage_for_image(img->usage, img->flags, &listed);
   if (d->format == SHALE_AHB_FORMAT_BLOB ||
       !(d->usage & (SHALE_AHB_USAGE_GPU_FRAMEBUFFER | SHALE_AHB_USAGE_GPU_SAMPLED_IMAGE |
                     SHALE_AHB_USAGE_GPU_DATA_BUFFER)))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "dedicated import: the AHardwareBuffer is not an image buffer");
   if (img->format != info->format || img->type != VK_IMAGE_TYPE_2D ||
       img->extent.width != d->width || img->extent.height != d->height ||
       img->extent.depth != 1 || img->array_layers != d->layers || img->mip_levels != 1 ||
       img->disjoint)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "dedicated import: the image's format, extent, layers or levels differ "
                       "from the AHardwareBuffer's");
   if (!listed || (need & ~d->usage))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "dedicated import: the image's usage is not in the AHardwareBuffer's");
   return VK_SUCCESS;
}

/* The buffer an export dedicated to `img` allocates: the image's picture. */
static VkResult
sd_ahb_desc_for_image(const struct sd_image *img, struct sd_ahb_desc *d, enum sd_ahb_kind *kind)
{
   bool listed;
   const uint64_t gpu = sd_ahb_usage_for_image(img->usage, img->flags, &listed);
   const uint32_t format = sd_ahb_format_for_vk(img->format, kind);
   if (!format || !sd_ahb_image_format_ok(img->format) || img->type != VK_IMAGE_TYPE_2D ||
       img->extent.depth != 1 || img->mip_levels != 1 || img->array_layers != 1 || !listed ||
       (img->flags & ~(VkImageCreateFlags)VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "export: the dedicated image has no AHardwareBuffer equivalent");
   *d = (struct sd_ahb_desc) {
      .width = img->extent.width,
      .height = img->extent.height,
      .layers = 1,
      .format = format,
      .usage = sd_ahb_optimal_usage(gpu),
   };
   return VK_SUCCESS;
}

VkResult
sd_ahb_memory_init(struct sd_device *device, struct sd_device_memory *mem,
                   const VkMemoryAllocateInfo *info, struct AHardwareBuffer *import, void *state)
{
   if (!sd_ahb_ops)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "no AHardwareBuffer access in this build");
   struct sd_ahb_memory *am = state;
   am->storage = (char *)state + sd_align64(sizeof(*am), SD_ALIGN_DEFAULT);
   const VkMemoryDedicatedAllocateInfo *dedicated =
      sd_find_struct(info, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
   const struct sd_image *img =
      dedicated && dedicated->image ? sd_image_from_handle(dedicated->image) : NULL;
   struct sd_ahb_mapping m;
   memset(&m, 0, sizeof(m));
   VkResult r;

   if (import) {
      /* The spec's valid usage, checked: a buffer Shale takes, the size the
       * properties query gave, and a picture for a dedicated image (else a
       * BLOB for buffers). */
      r = sd_ahb_describe(import, &am->info);
      if (r == VK_SUCCESS && info->allocationSize != am->info.size)
         r = sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "import: allocationSize is not the AHardwareBuffer's");
      if (r == VK_SUCCESS && img)
         r = sd_ahb_check_image(img, &am->info);
      if (r == VK_SUCCESS && !img &&
          (am->info.desc.format != SHALE_AHB_FORMAT_BLOB ||
           !(am->info.desc.usage & SHALE_AHB_USAGE_GPU_DATA_BUFFER)))
         r = sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "import without a dedicated image needs a BLOB with GPU_DATA_BUFFER");
      if (r == VK_SUCCESS)
         r = sd_ahb_ops->import(import, am->storage, &m);
      if (r != VK_SUCCESS)
         return r;
      /* The lock that stays is the authority on where the planes are; it
       * must agree with what the properties query saw. */
      struct sd_ahb_info mapped;
      const char *why = sd_ahb_info_init(&am->info.desc, &m.layout, &mapped);
      if (why || mapped.size != am->info.size || mapped.kind != am->info.kind) {
         sd_ahb_ops->release(am->storage);
         return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                          why ? why : "import: the AHardwareBuffer's layout changed");
      }
      am->info = mapped;
      mem->imported = true;
   } else {
      /* Export: a buffer with the dedicated image's description, else a
       * BLOB of allocationSize bytes (its width is 32-bit). */
      struct sd_ahb_desc want;
      enum sd_ahb_kind kind = SD_AHB_KIND_PLAIN;
      if (img) {
         r = sd_ahb_desc_for_image(img, &want, &kind);
      } else if (info->allocationSize == 0 || info->allocationSize > UINT32_MAX) {
         r = sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                       "export: a BLOB AHardwareBuffer holds 1 to 2^32-1 bytes");
      } else {
         want = (struct sd_ahb_desc) {
            .width = (uint32_t)info->allocationSize,
            .height = 1,
            .layers = 1,
            .format = SHALE_AHB_FORMAT_BLOB,
            .usage = sd_ahb_optimal_usage(SHALE_AHB_USAGE_GPU_DATA_BUFFER),
         };
         r = VK_SUCCESS;
      }
      if (r == VK_SUCCESS)
         r = sd_ahb_ops->allocate(&want, am->storage, &m);
      if (r != VK_SUCCESS)
         return r;
      /* The allocator picked the stride and the layout (the lock that
       * stays says where the planes are); what it made must be what was
       * asked. */
      struct sd_ahb_desc made;
      r = sd_ahb_ops->describe(sd_ahb_ops->buffer(am->storage), &made, NULL);
      const char *why = r == VK_SUCCESS ? sd_ahb_info_init(&made, &m.layout, &am->info) : NULL;
      if (why)
         r = sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY, why);
      if (r == VK_SUCCESS &&
          (am->info.desc.format != want.format || am->info.desc.width != want.width ||
           am->info.desc.height != want.height || am->info.kind != kind ||
           (am->info.desc.usage & want.usage) != want.usage))
         r = sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                       "export: the allocator made another AHardwareBuffer than asked");
      if (r != VK_SUCCESS) {
         sd_ahb_ops->release(am->storage);
         return r;
      }
   }
   am->image = img;
   mem->ahb = am;
   mem->data = m.data;
   mem->size = am->info.size;
   mem->mapped_size = 0;
   return VK_SUCCESS;
}

void
sd_ahb_memory_finish(struct sd_device_memory *mem)
{
   sd_ahb_ops->release(mem->ahb->storage);
   mem->ahb = NULL;
   mem->data = NULL;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetMemoryAndroidHardwareBufferANDROID(VkDevice _device,
                                         const VkMemoryGetAndroidHardwareBufferInfoANDROID *pInfo,
                                         struct AHardwareBuffer **pBuffer)
{
   SD_FROM_HANDLE(sd_device_memory, mem, pInfo->memory);
   /* Valid usage: exportable as an AHB (or imported from one, which gives
    * that same buffer back). */
   if (!mem->ahb)
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY,
                       "vkGetMemoryAndroidHardwareBufferANDROID: not AHardwareBuffer memory");
   /* The same buffer every call, with a new reference for the caller. */
   struct AHardwareBuffer *ahb = sd_ahb_ops->buffer(mem->ahb->storage);
   sd_ahb_ops->acquire(ahb);
   *pBuffer = ahb;
   return VK_SUCCESS;
}

/* ---- capabilities ---- */

VkResult
sd_ahb_external_image_properties(const VkPhysicalDeviceImageFormatInfo2 *info,
                                 VkExternalMemoryProperties *out)
{
   /* 2D, optimal, one of the formats Shale exports (the equivalence
    * table's RGB rows it samples, and NV12), usage and flags the usage
    * table lists (cube maps and protected images: no). Levels and layers:
    * one each (sd_ahb_image_format_properties). */
   bool listed;
   enum sd_ahb_kind kind;
   sd_ahb_usage_for_image(info->usage, info->flags, &listed);
   if (!sd_ahb_supported() || info->type != VK_IMAGE_TYPE_2D ||
       info->tiling != VK_IMAGE_TILING_OPTIMAL || !sd_ahb_format_for_vk(info->format, &kind) ||
       !sd_ahb_image_format_ok(info->format) || !listed ||
       (info->flags & ~(VkImageCreateFlags)VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT)) {
      *out = (VkExternalMemoryProperties) { 0 };
      return VK_ERROR_FORMAT_NOT_SUPPORTED;
   }
   *out = (VkExternalMemoryProperties) {
      .externalMemoryFeatures = VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT |
                                VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
                                VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT,
      .exportFromImportedHandleTypes = SD_AHB_TYPE,
      .compatibleHandleTypes = SD_AHB_TYPE,
   };
   return VK_SUCCESS;
}

void
sd_ahb_image_format_properties(const VkPhysicalDeviceImageFormatInfo2 *info, VkResult result,
                               VkImageFormatProperties2 *props)
{
   if (!sd_ahb_supported())
      return;
   const VkPhysicalDeviceExternalImageFormatInfo *ext =
      sd_find_struct(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO);
   const bool ahb = result == VK_SUCCESS && ext && ext->handleType == SD_AHB_TYPE;
   if (ahb) {
      /* A gralloc buffer holds one picture. */
      props->imageFormatProperties.maxMipLevels = 1;
      props->imageFormatProperties.maxArrayLayers = 1;
   }
   VkAndroidHardwareBufferUsageANDROID *u = (VkAndroidHardwareBufferUsageANDROID *)
      sd_find_struct(props, VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_USAGE_ANDROID);
   if (u) {
      bool listed;
      u->androidHardwareBufferUsage =
         ahb ? sd_ahb_optimal_usage(sd_ahb_usage_for_image(info->usage, info->flags, &listed))
             : 0;
   }
}

/* ---- external formats in object creation ---- */

/* The non-zero external format in a chain, where the device enabled the
 * extension; 0 otherwise. */
static uint64_t
sd_ahb_chain_external_format(const struct sd_device *device, const void *chain)
{
   if (!device->enabled_extensions.ANDROID_external_memory_android_hardware_buffer)
      return 0;
   const VkExternalFormatANDROID *e =
      sd_find_struct(chain, VK_STRUCTURE_TYPE_EXTERNAL_FORMAT_ANDROID);
   return e ? e->externalFormat : 0;
}

VkResult
sd_ahb_image_create_info(const struct sd_device *device, const VkImageCreateInfo **ci,
                         VkImageCreateInfo *storage)
{
   const uint64_t external = sd_ahb_chain_external_format(device, *ci);
   if (!external)
      return VK_SUCCESS;
   /* Valid usage (VUID-VkImageCreateInfo-pNext-01974, 02396..02398): format
    * UNDEFINED, sampled only, not mutable, optimal. */
   VkFormat format;
   VkComponentMapping components;
   if ((*ci)->format != VK_FORMAT_UNDEFINED || ((*ci)->usage & ~VK_IMAGE_USAGE_SAMPLED_BIT) ||
       ((*ci)->flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT) ||
       (*ci)->tiling != VK_IMAGE_TILING_OPTIMAL)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "external-format image: format, usage, flags or tiling not allowed");
   if (!sd_ahb_external_format_features(external) ||
       !sd_ahb_external_format_resolve(external, &format, &components))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "external-format image: an external format Shale cannot sample");
   *storage = **ci;
   storage->format = format;
   *ci = storage;
   return VK_SUCCESS;
}

const VkImageViewCreateInfo *
sd_ahb_image_view_create_info(const struct sd_device *device, const struct sd_image *img,
                              const VkImageViewCreateInfo *ci, VkImageViewCreateInfo *storage)
{
   /* VUID-VkImageViewCreateInfo-image-02399: UNDEFINED exactly for views
    * of external-format images (which have a real format inside). */
   if (ci->format != VK_FORMAT_UNDEFINED ||
       !device->enabled_extensions.ANDROID_external_memory_android_hardware_buffer)
      return ci;
   *storage = *ci;
   storage->format = img->format;
   return storage;
}

VkResult
sd_ahb_ycbcr_create_info(const struct sd_device *device,
                         const VkSamplerYcbcrConversionCreateInfo **ci,
                         VkSamplerYcbcrConversionCreateInfo *storage)
{
   const uint64_t external = sd_ahb_chain_external_format(device, *ci);
   if (!external)
      return VK_SUCCESS;
   VkFormat format;
   VkComponentMapping components;
   if ((*ci)->format != VK_FORMAT_UNDEFINED || !sd_ahb_external_format_features(external) ||
       !sd_ahb_external_format_resolve(external, &format, &components))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "external format conversion: an external format Shale cannot sample");
   /* The spec ignores the application's components for external formats:
    * the conversion applies what the buffer's layout needs. */
   *storage = **ci;
   storage->format = format;
   storage->components = components;
   *ci = storage;
   return VK_SUCCESS;
}

/* ---- images ---- */

void
sd_ahb_image_bind(struct sd_image *img, struct sd_device_memory *mem)
{
   const struct sd_ahb_memory *am = mem ? mem->ahb : NULL;
   if (!am || am->image != img)
      return;
   /* The buffer's rows and planes, as native-buffer images have them (the
    * dedicated allocation binds at offset 0). */
   const struct sd_ahb_info *info = &am->info;
   for (uint32_t p = 0; p < img->plane_count && p < info->plane_count; p++) {
      struct sd_image_plane *pl = &img->planes[p];
      pl->offset = info->planes[p].offset;
      pl->row_pitch = info->planes[p].row_pitch;
      pl->size = pl->row_pitch * pl->extent.height;
      pl->memory_offset = pl->offset;
      pl->data = mem->data + pl->offset;
   }
   struct sd_image_level_layout *lv = &img->levels[0];
   lv->offset = info->planes[0].offset;
   lv->row_pitch = info->planes[0].row_pitch;
   lv->depth_pitch = lv->row_pitch * img->extent.height;
   lv->layer_pitch = lv->depth_pitch;
   lv->size = lv->depth_pitch;
   img->size = info->size;
   if (!img->plane_count)
      img->data = mem->data + lv->offset;
}

void
sd_ahb_image_requirements(const struct sd_image *img, VkMemoryRequirements2 *req)
{
   const struct sd_ahb_memory *am = img->memory ? img->memory->ahb : NULL;
   if (!am || am->image != img)
      return;
   sd_foreach_struct_out(s, req->pNext) {
      if (s->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS) {
         VkMemoryDedicatedRequirements *d = (VkMemoryDedicatedRequirements *)s;
         d->prefersDedicatedAllocation = VK_TRUE;
         d->requiresDedicatedAllocation = VK_TRUE;
      }
   }
}
