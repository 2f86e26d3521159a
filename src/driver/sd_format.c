/* Format claims and the physical device's format/image-format queries. */
#include "sd_format.h"

#include <stdbool.h>
#include <stddef.h>

#include "compiler/sc_compiler.h"
#include "rasterizer/sr_sample.h"

#include "sd_ahb.h" /* AHB: image format properties */
#include "sd_entrypoints.h"
#include "sd_external.h"
#include "sd_image.h"
#include "sd_physical_device.h"
#include "sd_util.h"
#include "util/su_format.h"

/* Storage image features: claimed only for formats the compiler converts
 * (sc_image_format_features). The first sixteen (Vulkan's mandatory set)
 * are also run by tests/api/test_storage.c on 2D, 2D array and 3D views;
 * all of them, the storage image extended formats
 * (shaderStorageImageExtendedFormats) included, by
 * tests/api/test_storage_formats.c: loads and stores in compute and
 * fragment shaders with the format declared and without it
 * (shaderStorageImageRead/WriteWithoutFormat), against a C reference and
 * lavapipe. */
static const VkFormat sd_storage_image_formats[] = {
   VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT, VK_FORMAT_R32_SFLOAT,
   VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SFLOAT,
   VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SFLOAT,
   VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_UINT,
   VK_FORMAT_R8G8B8A8_SINT, VK_FORMAT_R16G16B16A16_UINT, VK_FORMAT_R16G16B16A16_SINT,
   VK_FORMAT_R16G16B16A16_SFLOAT,
   /* shaderStorageImageExtendedFormats */
   VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_R16_SFLOAT,
   VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_R16G16_UNORM,
   VK_FORMAT_R8G8_UNORM, VK_FORMAT_R16_UNORM, VK_FORMAT_R8_UNORM,
   VK_FORMAT_R16G16B16A16_SNORM, VK_FORMAT_R16G16_SNORM, VK_FORMAT_R8G8_SNORM,
   VK_FORMAT_R16_SNORM, VK_FORMAT_R8_SNORM, VK_FORMAT_R16G16_SINT, VK_FORMAT_R8G8_SINT,
   VK_FORMAT_R16_SINT, VK_FORMAT_R8_SINT, VK_FORMAT_A2B10G10R10_UINT_PACK32,
   VK_FORMAT_R16G16_UINT, VK_FORMAT_R8G8_UINT, VK_FORMAT_R16_UINT, VK_FORMAT_R8_UINT,
};
/* Texel buffer features: Vulkan 1.0's mandatory tables. UNIFORM_TEXEL_BUFFER
 * on these; STORAGE_TEXEL_BUFFER on the ones below; the atomic bit on
 * R32_UINT/SINT. Each format's fetches, loads and stores are tested by
 * tests/api/test_storage.c's texel buffer sweep (st_tbfmt.comp) against a
 * C reference and lavapipe. */
static const VkFormat sd_uniform_texel_buffer_formats[] = {
   VK_FORMAT_R8_UNORM, VK_FORMAT_R8_SNORM, VK_FORMAT_R8_UINT, VK_FORMAT_R8_SINT,
   VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8_SNORM, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8_SINT,
   VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_UINT,
   VK_FORMAT_R8G8B8A8_SINT, VK_FORMAT_B8G8R8A8_UNORM,
   VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_A8B8G8R8_SNORM_PACK32,
   VK_FORMAT_A8B8G8R8_UINT_PACK32, VK_FORMAT_A8B8G8R8_SINT_PACK32,
   VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_A2B10G10R10_UINT_PACK32,
   VK_FORMAT_R16_UINT, VK_FORMAT_R16_SINT, VK_FORMAT_R16_SFLOAT,
   VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16_SFLOAT,
   VK_FORMAT_R16G16B16A16_UINT, VK_FORMAT_R16G16B16A16_SINT, VK_FORMAT_R16G16B16A16_SFLOAT,
   VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT, VK_FORMAT_R32_SFLOAT,
   VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SFLOAT,
   VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SFLOAT,
   VK_FORMAT_B10G11R11_UFLOAT_PACK32,
   /* Not mandatory: 12-byte texels (zink's GL_ARB_texture_buffer_object_rgb32,
    * OpenGL 4.0), read as a 64-bit and a 32-bit word (llvm_texel.c). */
   VK_FORMAT_R32G32B32_UINT, VK_FORMAT_R32G32B32_SINT, VK_FORMAT_R32G32B32_SFLOAT,
};
static const VkFormat sd_storage_texel_buffer_formats[] = {
   VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_UINT,
   VK_FORMAT_R8G8B8A8_SINT,
   VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_A8B8G8R8_SNORM_PACK32,
   VK_FORMAT_A8B8G8R8_UINT_PACK32, VK_FORMAT_A8B8G8R8_SINT_PACK32,
   VK_FORMAT_R16G16B16A16_UINT, VK_FORMAT_R16G16B16A16_SINT, VK_FORMAT_R16G16B16A16_SFLOAT,
   VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT, VK_FORMAT_R32_SFLOAT,
   VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SFLOAT,
   VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SFLOAT,
};
/* SAMPLED_IMAGE: formats sr_sample decodes that tests/api/test_sampling.c
 * samples (nearest, and linear where FILTER_LINEAR is claimed) against its
 * C reference and lavapipe. Every format Vulkan requires SAMPLED_IMAGE on is
 * here. Not here: SCALED formats, R4G4 / R4G4B4A4, the 24- and 48-bit RGB
 * formats, R8/R8G8 sRGB, 64-bit channels, D16_UNORM_S8_UINT (lavapipe, the
 * reference, has none of them), compressed formats. */
static const VkFormat sd_sampled_formats[] = {
   VK_FORMAT_B4G4R4A4_UNORM_PACK16, VK_FORMAT_R5G6B5_UNORM_PACK16, VK_FORMAT_B5G6R5_UNORM_PACK16,
   VK_FORMAT_R5G5B5A1_UNORM_PACK16, VK_FORMAT_B5G5R5A1_UNORM_PACK16,
   VK_FORMAT_A1R5G5B5_UNORM_PACK16,
   VK_FORMAT_R8_UNORM, VK_FORMAT_R8_SNORM, VK_FORMAT_R8_UINT, VK_FORMAT_R8_SINT,
   VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8_SNORM, VK_FORMAT_R8G8_UINT, VK_FORMAT_R8G8_SINT,
   VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R8G8B8A8_UINT,
   VK_FORMAT_R8G8B8A8_SINT, VK_FORMAT_R8G8B8A8_SRGB,
   VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SNORM, VK_FORMAT_B8G8R8A8_UINT,
   VK_FORMAT_B8G8R8A8_SINT, VK_FORMAT_B8G8R8A8_SRGB,
   VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_A8B8G8R8_SNORM_PACK32,
   VK_FORMAT_A8B8G8R8_UINT_PACK32, VK_FORMAT_A8B8G8R8_SINT_PACK32,
   VK_FORMAT_A8B8G8R8_SRGB_PACK32,
   VK_FORMAT_A2R10G10B10_UNORM_PACK32, VK_FORMAT_A2R10G10B10_SNORM_PACK32,
   VK_FORMAT_A2R10G10B10_UINT_PACK32,
   VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_A2B10G10R10_SNORM_PACK32,
   VK_FORMAT_A2B10G10R10_UINT_PACK32,
   VK_FORMAT_R16_UNORM, VK_FORMAT_R16_SNORM, VK_FORMAT_R16_UINT, VK_FORMAT_R16_SINT,
   VK_FORMAT_R16_SFLOAT,
   VK_FORMAT_R16G16_UNORM, VK_FORMAT_R16G16_SNORM, VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16_SINT,
   VK_FORMAT_R16G16_SFLOAT,
   VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_R16G16B16A16_SNORM, VK_FORMAT_R16G16B16A16_UINT,
   VK_FORMAT_R16G16B16A16_SINT, VK_FORMAT_R16G16B16A16_SFLOAT,
   VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT, VK_FORMAT_R32_SFLOAT,
   VK_FORMAT_R32G32_UINT, VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SFLOAT,
   VK_FORMAT_R32G32B32_UINT, VK_FORMAT_R32G32B32_SINT, VK_FORMAT_R32G32B32_SFLOAT,
   VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SFLOAT,
   VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_E5B9G9R9_UFLOAT_PACK32,
   VK_FORMAT_D16_UNORM, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D32_SFLOAT, VK_FORMAT_S8_UINT,
   VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT,
};

static bool
sd_format_in(VkFormat format, const VkFormat *list, size_t count)
{
   for (size_t i = 0; i < count; i++) {
      if (list[i] == format)
         return true;
   }
   return false;
}

#define SD_FORMAT_IN(format, list) sd_format_in(format, list, sizeof(list) / sizeof(list[0]))

static VkFormatFeatureFlags
sd_format_storage_image_features(VkFormat format)
{
   const uint32_t sc = sc_image_format_features(format);
   VkFormatFeatureFlags f = 0;
   if ((sc & SC_IMAGE_FORMAT_LOAD_STORE) && SD_FORMAT_IN(format, sd_storage_image_formats)) {
      f |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
      /* R32_UINT / R32_SINT: test_storage.c's st_atomic.comp. */
      if (sc & SC_IMAGE_FORMAT_ATOMIC)
         f |= VK_FORMAT_FEATURE_STORAGE_IMAGE_ATOMIC_BIT;
   }
   return f;
}

/* Sampling (src/rasterizer/sr_sample): SAMPLED_IMAGE for the tested list.
 * FILTER_LINEAR: float-class colour formats have it below (linear blits and
 * linear sampling both filter them); formats with depth get it here (linear
 * filtering of depth values and of depth comparisons, tested on Shale
 * against the reference only: lavapipe filters neither). */
static VkFormatFeatureFlags
sd_format_sampled_features(VkFormat format, const struct su_format_desc *d)
{
   if (!sr_sample_format_supported(format) || !SD_FORMAT_IN(format, sd_sampled_formats))
      return 0;
   VkFormatFeatureFlags f = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
   if (d->aspects & VK_IMAGE_ASPECT_DEPTH_BIT)
      f |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
   return f;
}

/* Multi-planar formats (VK_KHR_sampler_ycbcr_conversion), the ones
 * tests/api/ycbcr samples through every conversion setting, copies plane
 * by plane and binds disjoint: sampled only through a Y'CbCr conversion
 * (sr_sample reconstructs chroma implicitly, or explicitly when forced,
 * with either chroma location and either filter, the luma filter separate
 * from the chroma filter), copied plane by plane, disjoint planes. No blits
 * (the spec forbids them on these formats), no storage. */
static const VkFormat sd_ycbcr_formats[] = {
   VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM,
   VK_FORMAT_G8_B8R8_2PLANE_420_UNORM,
};

static VkFormatFeatureFlags
sd_format_multiplanar_features(VkFormat format)
{
   if (!su_format_multiplanar(format) || !SD_FORMAT_IN(format, sd_ycbcr_formats))
      return 0;
   return VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
          VK_FORMAT_FEATURE_TRANSFER_DST_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
          VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT |
          VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT |
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT |
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_SEPARATE_RECONSTRUCTION_FILTER_BIT |
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT |
          VK_FORMAT_FEATURE_DISJOINT_BIT;
}

/* Depth/stencil formats the rasterizer tests and writes (sr_fragment.c);
 * S8_UINT as a stencil-only attachment (render/formats, render/ds_resolve:
 * 4x, clears, stencil resolves through render passes and dynamic
 * rendering; render/stencil_only: loads, stores, clears, stencil ops). */
static const VkFormat sd_depth_attachment_formats[] = {
   VK_FORMAT_D16_UNORM,         VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D32_SFLOAT,
   VK_FORMAT_D16_UNORM_S8_UINT, VK_FORMAT_D24_UNORM_S8_UINT,   VK_FORMAT_D32_SFLOAT_S8_UINT,
   VK_FORMAT_S8_UINT,
};

/* Attachment features: every uncompressed colour format of at most 32 bits
 * a channel that the fragment back end packs (su_pack_*), blending on the
 * float and normalized ones; the depth/stencil formats above. Held by
 * render/formats (every format drawn against a clear of the same value,
 * blending against lavapipe). */
static VkFormatFeatureFlags
sd_format_attachment_features(VkFormat format, const struct su_format_desc *d)
{
   if (su_format_is_depth_stencil(d))
      return SD_FORMAT_IN(format, sd_depth_attachment_formats)
                ? VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT : 0;
   if (d->scaled || d->bits[0] > 32 || format == VK_FORMAT_E5B9G9R9_UFLOAT_PACK32)
      return 0;
   VkFormatFeatureFlags f = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
   if (su_format_class(d) == SU_CLASS_FLOAT)
      f |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT;
   return f;
}

VkFormatFeatureFlags
sd_format_image_features(VkFormat format)
{
   if (su_format_multiplanar(format))
      return sd_format_multiplanar_features(format);
   const struct su_format_desc *d = su_format_desc(format);
   /* Compressed formats: not claimed. Formats past the core 1.0 range (the
    * A4 formats of 1.3 / VK_EXT_4444_formats) only once that is exposed. */
   if (!d || d->kind == SU_KIND_COMPRESSED || format > VK_FORMAT_ASTC_12x12_SRGB_BLOCK)
      return 0;
   /* USCALED / SSCALED images: not claimed. The spec clears them with
    * float32 values and blits them through float like UNORM; dEQP
    * (image_clearing, copy_and_blit) clears them with uint32/int32 values
    * and fails every blit between them and UNORM or float formats, so a
    * claim can only fail one or the other. Vulkan requires no image
    * feature on them (their use is vertex input). */
   if (d->scaled)
      return 0;
   VkFormatFeatureFlags f = VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
   /* 64-bit channels go through 32-bit values in blits: copies only. */
   if (d->bits[0] == 64)
      return f;
   f |= VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT;
   if (!su_format_is_depth_stencil(d) && su_format_class(d) == SU_CLASS_FLOAT)
      f |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
   return f | sd_format_sampled_features(format, d) | sd_format_storage_image_features(format) |
          sd_format_attachment_features(format, d);
}

/* Single-plane formats a Y'CbCr conversion samples (sr_sample applies the
 * conversion's swizzle, range expansion and model to the texel): the
 * formats of RGB Android hardware buffers' external formats, reached only
 * through those (sd_ahb), never through these formats' own properties;
 * tests/android/test_ahb.c samples every one through every model, both
 * ranges, both reconstructions and both filters. */
static const VkFormat sd_conversion_single_plane_formats[] = {
   VK_FORMAT_R8G8B8A8_UNORM,
   VK_FORMAT_R5G6B5_UNORM_PACK16,
   VK_FORMAT_A2B10G10R10_UNORM_PACK32,
   VK_FORMAT_R16G16B16A16_SFLOAT,
};

VkFormatFeatureFlags
sd_format_conversion_features(VkFormat format)
{
   if (su_format_multiplanar(format))
      return sd_format_multiplanar_features(format);
   if (!SD_FORMAT_IN(format, sd_conversion_single_plane_formats))
      return 0;
   const VkFormatFeatureFlags own = sd_format_image_features(format);
   if (!(own & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT))
      return 0;
   /* Nothing is subsampled: either chroma location and either chroma
    * filter are the texel's own samples; the filters stay separate. */
   return VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
          (own & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) |
          VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT |
          VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT |
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT |
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_SEPARATE_RECONSTRUCTION_FILTER_BIT |
          VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT;
}

VkFormatFeatureFlags
sd_format_buffer_features(VkFormat format)
{
   VkFormatFeatureFlags f = 0;
   /* Every vertex input format: render/vertex_input fetches each one (all
    * 111 uncompressed colour formats of 8 to 32 bits a channel) and
    * compares it with a reference decoder and with lavapipe;
    * render/vertex_input64 the twelve R64* formats into double and int64
    * inputs. */
   if (sd_format_vertex_input(format))
      f |= VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT;
   /* Texel buffers: only formats the compiler converts. */
   const uint32_t sc = sc_image_format_features(format);
   if (!(sc & SC_IMAGE_FORMAT_LOAD_STORE))
      return f;
   if (SD_FORMAT_IN(format, sd_uniform_texel_buffer_formats))
      f |= VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
   if (SD_FORMAT_IN(format, sd_storage_texel_buffer_formats)) {
      f |= VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT;
      if (sc & SC_IMAGE_FORMAT_ATOMIC)
         f |= VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_ATOMIC_BIT;
   }
   return f;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceFormatProperties(VkPhysicalDevice physicalDevice, VkFormat format,
                                     VkFormatProperties *pProps)
{
   VkFormatFeatureFlags f = sd_format_image_features(format);
   pProps->linearTilingFeatures = f;
   pProps->optimalTilingFeatures = f;
   pProps->bufferFeatures = sd_format_buffer_features(format);
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice physicalDevice, VkFormat format,
                                      VkFormatProperties2 *pProps)
{
   sd_GetPhysicalDeviceFormatProperties(physicalDevice, format, &pProps->formatProperties);
}

static uint32_t
sd_log2_plus1(uint32_t v)
{
   uint32_t n = 0;
   while (v) {
      n++;
      v >>= 1;
   }
   return n;
}

VkResult
sd_format_image_properties(const struct sd_physical_device *pdev, VkFormat format,
                           VkImageType type, VkImageTiling tiling, VkImageUsageFlags usage,
                           VkImageCreateFlags flags, VkImageFormatProperties *props)
{
   const VkPhysicalDeviceLimits *l = &pdev->properties.limits;
   VkFormatFeatureFlags f = sd_format_image_features(format);
   VkImageUsageFlags supported_usage = 0;
   if (f & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT)
      supported_usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
   if (f & VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
      supported_usage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   if (f & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
      supported_usage |= VK_IMAGE_USAGE_STORAGE_BIT;
   if (f & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
      supported_usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
   if (f & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)
      supported_usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
   if (f & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)
      supported_usage |= VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
   /* Input and transient attachments: any attachment format (the memory
    * layout is the same; reading inputs is the fragment shader's). */
   if (f & (VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT))
      supported_usage |= VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT |
                         VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
   /* Feedback loops (VK_EXT_attachment_feedback_loop_layout): an attachment
    * that is also sampled in its render pass; every layout is the same
    * linear memory, so any attachment format. */
   if ((f & (VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
             VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) &&
       sd_device_extensions_supported.EXT_attachment_feedback_loop_layout)
      supported_usage |= VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT;
   const bool multiplanar = su_format_multiplanar(format) != NULL;
   /* ALIAS (VK_KHR_bind_memory2): an image's layout follows from its
    * creation parameters alone, so images created alike and bound to the
    * same memory read each other's texels. */
   /* EXTENDED_USAGE (maintenance2, Vulkan 1.1): usage other formats of a
    * mutable image allow; the check below still asks this format for all
    * of it, which is the conservative answer. */
   VkImageCreateFlags supported_flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT |
                                        VK_IMAGE_CREATE_ALIAS_BIT |
                                        VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
   if (multiplanar)
      supported_flags |= (f & VK_FORMAT_FEATURE_DISJOINT_BIT) ? VK_IMAGE_CREATE_DISJOINT_BIT : 0;
   else
      supported_flags |= VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT | VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT;

   if (tiling != VK_IMAGE_TILING_OPTIMAL && tiling != VK_IMAGE_TILING_LINEAR)
      goto unsupported;
   if (!f || (usage & ~supported_usage) || (flags & ~supported_flags))
      goto unsupported;
   if ((flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) && type != VK_IMAGE_TYPE_2D)
      goto unsupported;
   /* maintenance1: 2D and 2D array views of a 3D image's slices. */
   if ((flags & VK_IMAGE_CREATE_2D_ARRAY_COMPATIBLE_BIT) && type != VK_IMAGE_TYPE_3D)
      goto unsupported;
   /* Formats that need a Y'CbCr conversion: 2D, one level, one layer, one
    * sample (the spec's image creation limits for them). */
   if (multiplanar && type != VK_IMAGE_TYPE_2D)
      goto unsupported;

   switch (type) {
   case VK_IMAGE_TYPE_1D:
      props->maxExtent = (VkExtent3D) { l->maxImageDimension1D, 1, 1 };
      props->maxArrayLayers = l->maxImageArrayLayers;
      break;
   case VK_IMAGE_TYPE_2D:
      props->maxExtent = (VkExtent3D) { l->maxImageDimension2D, l->maxImageDimension2D, 1 };
      if (flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT)
         props->maxExtent = (VkExtent3D) { l->maxImageDimensionCube, l->maxImageDimensionCube, 1 };
      props->maxArrayLayers = l->maxImageArrayLayers;
      break;
   case VK_IMAGE_TYPE_3D:
      props->maxExtent = (VkExtent3D) { l->maxImageDimension3D, l->maxImageDimension3D,
                                        l->maxImageDimension3D };
      props->maxArrayLayers = 1;
      break;
   default:
      goto unsupported;
   }
   /* A full mip chain of the largest extent (the largest dimension is the
    * width for every type). */
   props->maxMipLevels = sd_log2_plus1(props->maxExtent.width);
   if (multiplanar) {
      props->maxMipLevels = 1;
      props->maxArrayLayers = 1;
   }
   props->sampleCounts = VK_SAMPLE_COUNT_1_BIT;
   /* Multisampled images (sd_image.h: a pixel's samples adjacent): 2D,
    * optimal, not cube compatible, of a format that can be an attachment,
    * one mip level (the spec's rule for such images). Usages that shaders
    * read or write narrow the counts to the limits for them, as the spec's
    * list for sampleCounts says (sampled colour, integer, depth, stencil;
    * storage). Input attachments read samples like sampled images. A format
    * that is neither a colour nor a depth/stencil attachment format gets 1
    * sample whatever the usage, storage included (the spec's rule); every
    * STORAGE_IMAGE format is a colour attachment format today. */
   if (tiling == VK_IMAGE_TILING_OPTIMAL && type == VK_IMAGE_TYPE_2D && !multiplanar &&
       !(flags & VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) &&
       (f & (VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT))) {
      VkSampleCountFlags counts = SD_IMAGE_SAMPLE_COUNTS;
      const struct su_format_desc *desc = su_format_desc(format);
      VkImageAspectFlags aspects = desc ? desc->aspects : 0;
      if (usage & VK_IMAGE_USAGE_SAMPLED_BIT) {
         if (aspects & VK_IMAGE_ASPECT_COLOR_BIT)
            counts &= desc->kind == SU_KIND_UINT || desc->kind == SU_KIND_SINT
                         ? l->sampledImageIntegerSampleCounts
                         : l->sampledImageColorSampleCounts;
         if (aspects & VK_IMAGE_ASPECT_DEPTH_BIT)
            counts &= l->sampledImageDepthSampleCounts;
         if (aspects & VK_IMAGE_ASPECT_STENCIL_BIT)
            counts &= l->sampledImageStencilSampleCounts;
      }
      if (usage & VK_IMAGE_USAGE_STORAGE_BIT)
         counts &= l->storageImageSampleCounts;
      props->sampleCounts |= counts;
   }
   props->maxResourceSize = pdev->memory.memoryHeaps[0].size;
   return VK_SUCCESS;

unsupported:
   *props = (VkImageFormatProperties) { 0 };
   return VK_ERROR_FORMAT_NOT_SUPPORTED;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceImageFormatProperties(VkPhysicalDevice physicalDevice, VkFormat format,
                                          VkImageType type, VkImageTiling tiling,
                                          VkImageUsageFlags usage, VkImageCreateFlags flags,
                                          VkImageFormatProperties *pProps)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   return sd_format_image_properties(pdev, format, type, tiling, usage, flags, pProps);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceImageFormatProperties2(VkPhysicalDevice physicalDevice,
                                           const VkPhysicalDeviceImageFormatInfo2 *pInfo,
                                           VkImageFormatProperties2 *pProps)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   /* VkImageFormatListCreateInfo (VK_KHR_image_format_list) changes
    * nothing: an image's memory and what it supports are the same whatever
    * formats its views will have. */
   /* External memory: the handle type must be one images can share
    * (sd_external.c); handleType 0 means "not external", per the spec. */
   const VkPhysicalDeviceExternalImageFormatInfo *ext =
      sd_find_struct(pInfo, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO);
   VkExternalMemoryProperties ext_props;
   VkResult r = sd_external_image_properties(ext ? ext->handleType : 0, pInfo, &ext_props);
   if (r == VK_SUCCESS) {
      /* A separate stencil usage must be supported as well. */
      VkImageUsageFlags usage = pInfo->usage;
      const VkImageStencilUsageCreateInfo *stencil =
         sd_find_struct(pInfo, VK_STRUCTURE_TYPE_IMAGE_STENCIL_USAGE_CREATE_INFO);
      if (stencil)
         usage |= stencil->stencilUsage;
      r = sd_format_image_properties(pdev, pInfo->format, pInfo->type, pInfo->tiling, usage,
                                     pInfo->flags, &pProps->imageFormatProperties);
   } else {
      pProps->imageFormatProperties = (VkImageFormatProperties) { 0 };
   }
   sd_foreach_struct_out(s, pProps->pNext) {
      if (s->sType == VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES) {
         VkExternalImageFormatProperties *e = (VkExternalImageFormatProperties *)s;
         e->externalMemoryProperties =
            r == VK_SUCCESS ? ext_props : (VkExternalMemoryProperties) { 0 };
      } else if (s->sType == VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_IMAGE_FORMAT_PROPERTIES) {
         /* A combined image sampler of any format is one descriptor record:
          * the view's description covers every plane. */
         ((VkSamplerYcbcrConversionImageFormatProperties *)s)->combinedImageSamplerDescriptorCount =
            r == VK_SUCCESS ? 1 : 0;
      }
   }
   /* AHB: AHardwareBuffer images have one level and layer; their usage. */
   sd_ahb_image_format_properties(pInfo, r, pProps);
   return r;
}

bool
sd_format_vertex_input(VkFormat format)
{
   /* The rasterizer's vertex fetch converts any uncompressed colour format
    * of 8 to 32 bits a channel (su_unpack_*), and copies the R64* formats'
    * channels as they are into 64-bit shader inputs (a three- or
    * four-channel one fills two locations; render/vertex_input64). */
   const struct su_format_desc *d = su_format_desc(format);
   return d && d->kind != SU_KIND_COMPRESSED && !su_format_is_depth_stencil(d) &&
          (d->bits[0] <= 32 || (format >= VK_FORMAT_R64_UINT && format <= VK_FORMAT_R64G64B64A64_SFLOAT)) &&
          format <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK;
}
