/*
 * sd_sampler: VkSampler and VkSamplerYcbcrConversion.
 *
 * Owns: the sampler's whole fixed-function state, copied from
 * VkSamplerCreateInfo at creation, and its shader ABI description (struct
 * shale_sampler_desc), which sampler and combined image sampler descriptor
 * records point at and the sampling routine (src/rasterizer/sr_sample)
 * reads. Immutable samplers are copied into their set layout
 * (sd_sampler_desc_fill), so a layout outlives the sampler objects.
 * A Y'CbCr conversion (VK_KHR_sampler_ycbcr_conversion) is its creation
 * parameters as a struct shale_ycbcr_desc; a sampler created with
 * VkSamplerYcbcrConversionInfo copies them into its own state, so the
 * conversion object may be destroyed while samplers made with it live.
 *
 * Valid usage checked (VK_ERROR_FORMAT_NOT_SUPPORTED, logged, rather than
 * an object the sampler cannot honour): a conversion's format must have
 * cosited or midpoint chroma samples (sd_format), the chroma locations,
 * chroma filter and forceExplicitReconstruction must be ones its format
 * features allow, components must be a swizzle the spec allows for _420
 * formats, and a narrow range needs 8-bit components of multi-planar
 * formats; a sampler with a conversion must clamp to edge, use normalized
 * coordinates, no anisotropy and no comparison.
 *
 * External format conversions (VK_ANDROID_external_memory_android_hardware_
 * buffer: VkExternalFormatANDROID, format UNDEFINED) are made by sd_ahb for
 * the format the external format stands for, with the components its
 * buffers need (the application's are ignored, as the spec says), and have
 * that external format's features (sd_format_conversion_features): RGB
 * buffers' conversions sample a single-plane format (R8G8B8A8_UNORM,
 * R5G6B5_UNORM_PACK16, A2B10G10R10_UNORM_PACK32, R16G16B16A16_SFLOAT) with
 * no chroma reconstruction, every model and both ranges; a narrow range
 * expands each component with its own bit depth (5 and 6 bits for R5G6B5:
 * the spec's 8-bit minimum speaks of `format`, UNDEFINED here). Plain
 * single-plane formats take no conversion.
 *
 * Custom border colours (VK_EXT_custom_border_color): the
 * VkSamplerCustomBorderColorCreateInfoEXT colour of a sampler whose
 * borderColor is FLOAT_CUSTOM or INT_CUSTOM is stored with its state and
 * read by the generic sampling path's border replacement, which takes the
 * numeric class from the image view, so its `format` member is not needed
 * (customBorderColorWithoutFormat).
 *
 * Invariants: immutable after creation. Other extension state (reduction
 * modes) is not claimed and not stored; those pNext structs are ignored like
 * any unknown struct.
 *
 * Threading: immutable.
 */
#ifndef SD_SAMPLER_H
#define SD_SAMPLER_H

#include <stdbool.h>

#include "sd_object.h"
#include "shale/shader_abi.h"

struct sd_sampler_state {
   VkFilter mag_filter, min_filter;
   VkSamplerMipmapMode mipmap_mode;
   VkSamplerAddressMode address_u, address_v, address_w;
   float mip_lod_bias;
   bool anisotropy_enable;
   float max_anisotropy;
   bool compare_enable;
   VkCompareOp compare_op;
   float min_lod, max_lod;
   VkBorderColor border_color;
   VkClearColorValue custom_border;   /* border_color FLOAT_CUSTOM / INT_CUSTOM; else zero */
   bool unnormalized_coordinates;
   VkSamplerCreateFlags flags;
};

struct sd_sampler {
   struct sd_object base;
   struct sd_sampler_state state;
   /* What descriptor records point at; a Y'CbCr conversion's parameters
    * are in desc.conversion (desc.ycbcr set). */
   struct shale_sampler_desc desc;
};

struct sd_ycbcr_conversion {
   struct sd_object base;
   struct shale_ycbcr_desc desc;
};

/* The ABI description of a sampler state. */
void sd_sampler_desc_fill(struct shale_sampler_desc *d, const struct sd_sampler_state *s);

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_sampler, base, VkSampler, VK_OBJECT_TYPE_SAMPLER)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_ycbcr_conversion, base, VkSamplerYcbcrConversion,
                               VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION)

#endif
