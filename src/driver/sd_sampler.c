/* VkSampler and VkSamplerYcbcrConversion: creation and destruction, and the descriptions sampling reads. */
#include "sd_sampler.h"

#include <string.h>

#include "sd_ahb.h" /* AHB: external format conversions */
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_format.h"
#include "sd_util.h"
#include "util/su_format.h"

/* ---- Y'CbCr conversions ---- */

static VkComponentSwizzle
sd_ycbcr_resolve(VkComponentSwizzle s, VkComponentSwizzle identity)
{
   return s == VK_COMPONENT_SWIZZLE_IDENTITY ? identity : s;
}

/* The valid-usage rules of VkSamplerYcbcrConversionCreateInfo that depend
 * on the format (see sd_sampler.h); `external`: an external format
 * conversion, whose format (already resolved) has the features of its
 * external format; *d receives the conversion. */
static VkResult
sd_ycbcr_check(const VkSamplerYcbcrConversionCreateInfo *ci, bool external,
               struct shale_ycbcr_desc *d)
{
   const VkFormatFeatureFlags f = external ? sd_format_conversion_features(ci->format)
                                           : sd_format_image_features(ci->format);
   const struct su_multiplanar_desc *mp = su_format_multiplanar(ci->format);
   if (!(f & (VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT |
              VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT)))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "Y'CbCr conversion: the format has no chroma sample locations");
   const VkChromaLocation loc[2] = { ci->xChromaOffset, ci->yChromaOffset };
   for (int k = 0; k < 2; k++) {
      if (loc[k] == VK_CHROMA_LOCATION_COSITED_EVEN ? !(f & VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT)
          : loc[k] == VK_CHROMA_LOCATION_MIDPOINT   ? !(f & VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT)
                                                    : true)
         return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                          "Y'CbCr conversion: a chroma location the format lacks");
   }
   if (ci->chromaFilter != VK_FILTER_NEAREST &&
       (ci->chromaFilter != VK_FILTER_LINEAR ||
        !(f & VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT)))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "Y'CbCr conversion: a chroma filter the format lacks");
   if (ci->forceExplicitReconstruction &&
       !(f & VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "Y'CbCr conversion: explicit reconstruction cannot be forced");
   if ((uint32_t)ci->ycbcrModel > VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020 ||
       (uint32_t)ci->ycbcrRange > VK_SAMPLER_YCBCR_RANGE_ITU_NARROW)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "Y'CbCr conversion: unknown model or range");
   /* _420 formats: g and a stay (a may also be ONE or ZERO); r and b are
    * both identity or swap with each other. Single-plane formats take any
    * swizzle. */
   const VkComponentSwizzle sw[4] = {
      sd_ycbcr_resolve(ci->components.r, VK_COMPONENT_SWIZZLE_R),
      sd_ycbcr_resolve(ci->components.g, VK_COMPONENT_SWIZZLE_G),
      sd_ycbcr_resolve(ci->components.b, VK_COMPONENT_SWIZZLE_B),
      sd_ycbcr_resolve(ci->components.a, VK_COMPONENT_SWIZZLE_A),
   };
   const bool rb_identity = sw[0] == VK_COMPONENT_SWIZZLE_R && sw[2] == VK_COMPONENT_SWIZZLE_B;
   const bool rb_swapped = sw[0] == VK_COMPONENT_SWIZZLE_B && sw[2] == VK_COMPONENT_SWIZZLE_R;
   if (mp && (sw[1] != VK_COMPONENT_SWIZZLE_G || (!rb_identity && !rb_swapped) ||
              (sw[3] != VK_COMPONENT_SWIZZLE_A && sw[3] != VK_COMPONENT_SWIZZLE_ONE &&
               sw[3] != VK_COMPONENT_SWIZZLE_ZERO)))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "Y'CbCr conversion: components not allowed for a _420 format");
   /* Single-plane (external) formats expand each component with its own
    * bit depth, whatever it is (sr_sample). */
   if (ci->ycbcrRange == VK_SAMPLER_YCBCR_RANGE_ITU_NARROW && mp && mp->bits < 8)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "Y'CbCr conversion: narrow range needs 8-bit components");
   *d = (struct shale_ycbcr_desc) {
      .format = ci->format,
      .model = ci->ycbcrModel,
      .range = ci->ycbcrRange,
      .swizzle = { sw[0], sw[1], sw[2], sw[3] },
      .chroma_offset = { ci->xChromaOffset, ci->yChromaOffset },
      .chroma_filter = ci->chromaFilter,
      .explicit_reconstruction = ci->forceExplicitReconstruction,
   };
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateSamplerYcbcrConversion(VkDevice _device, const VkSamplerYcbcrConversionCreateInfo *pCreateInfo,
                                const VkAllocationCallbacks *pAllocator,
                                VkSamplerYcbcrConversion *pYcbcrConversion)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   /* AHB: an external format conversion converts the format it stands for
    * (pCreateInfo then points at ahb_ci). */
   VkSamplerYcbcrConversionCreateInfo ahb_ci;
   VkResult ahb_r = sd_ahb_ycbcr_create_info(device, &pCreateInfo, &ahb_ci);
   if (ahb_r != VK_SUCCESS)
      return ahb_r;
   const bool external = pCreateInfo == &ahb_ci;
   /* pNext: VkExternalFormatANDROID (above); unknown structs are ignored. */
   struct shale_ycbcr_desc d;
   VkResult r = sd_ycbcr_check(pCreateInfo, external, &d);
   if (r != VK_SUCCESS)
      return r;
   struct sd_ycbcr_conversion *conv = sd_device_object_alloc(
      device, pAllocator, sizeof(*conv), VK_OBJECT_TYPE_SAMPLER_YCBCR_CONVERSION);
   if (!conv)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   conv->desc = d;
   *pYcbcrConversion = sd_ycbcr_conversion_to_handle(conv);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroySamplerYcbcrConversion(VkDevice _device, VkSamplerYcbcrConversion ycbcrConversion,
                                 const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_ycbcr_conversion, conv, ycbcrConversion);
   if (conv)
      sd_device_object_free(device, pAllocator, conv);
}

/* A sampler with a conversion samples one level of one image with
 * normalized coordinates clamped to its edge, unfiltered by anisotropy and
 * without comparison. */
static VkResult
sd_sampler_check_ycbcr(const VkSamplerCreateInfo *ci)
{
   if (ci->addressModeU != VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE ||
       ci->addressModeV != VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE ||
       ci->addressModeW != VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE || ci->anisotropyEnable ||
       ci->unnormalizedCoordinates || ci->compareEnable)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "vkCreateSampler: a Y'CbCr conversion needs CLAMP_TO_EDGE, normalized "
                       "coordinates, no anisotropy, no comparison");
   return VK_SUCCESS;
}

/* ---- samplers ---- */

void
sd_sampler_desc_fill(struct shale_sampler_desc *d, const struct sd_sampler_state *s)
{
   *d = (struct shale_sampler_desc) {
      .mag_filter = s->mag_filter,
      .min_filter = s->min_filter,
      .mipmap_mode = s->mipmap_mode,
      .address_mode = { s->address_u, s->address_v, s->address_w },
      .mip_lod_bias = s->mip_lod_bias,
      .min_lod = s->min_lod,
      .max_lod = s->max_lod,
      .max_anisotropy = s->max_anisotropy,
      .compare_enable = s->compare_enable,
      .compare_op = s->compare_op,
      .border_color = s->border_color,
      .unnormalized_coordinates = s->unnormalized_coordinates,
   };
   memcpy(d->custom_border, s->custom_border.uint32, sizeof(d->custom_border));
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateSampler(VkDevice _device, const VkSamplerCreateInfo *pCreateInfo,
                 const VkAllocationCallbacks *pAllocator, VkSampler *pSampler)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkSamplerCreateInfo *ci = pCreateInfo;
   /* pNext: VkSamplerYcbcrConversionInfo, VkSamplerCustomBorderColorCreateInfoEXT;
    * unknown structs are ignored. */
   const VkSamplerYcbcrConversionInfo *conv_info =
      sd_find_struct(ci, VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO);
   const VkSamplerCustomBorderColorCreateInfoEXT *custom =
      sd_find_struct(ci, VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT);
   bool is_custom = ci->borderColor == VK_BORDER_COLOR_FLOAT_CUSTOM_EXT ||
                    ci->borderColor == VK_BORDER_COLOR_INT_CUSTOM_EXT;
   const struct sd_ycbcr_conversion *conv =
      conv_info ? sd_ycbcr_conversion_from_handle(conv_info->conversion) : NULL;
   if (conv) {
      VkResult r = sd_sampler_check_ycbcr(ci);
      if (r != VK_SUCCESS)
         return r;
   }
   struct sd_sampler *sampler = sd_device_object_alloc(device, pAllocator, sizeof(*sampler),
                                                       VK_OBJECT_TYPE_SAMPLER);
   if (!sampler)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   /* Members the spec says are ignored (maxAnisotropy without anisotropy,
    * compareOp without comparison) are normalised, so equal states compare
    * equal when sampling routines are keyed on them. */
   sampler->state = (struct sd_sampler_state) {
      .mag_filter = ci->magFilter,
      .min_filter = ci->minFilter,
      .mipmap_mode = ci->mipmapMode,
      .address_u = ci->addressModeU,
      .address_v = ci->addressModeV,
      .address_w = ci->addressModeW,
      .mip_lod_bias = ci->mipLodBias,
      .anisotropy_enable = ci->anisotropyEnable,
      .max_anisotropy = ci->anisotropyEnable ? ci->maxAnisotropy : 1.0f,
      .compare_enable = ci->compareEnable,
      .compare_op = ci->compareEnable ? ci->compareOp : VK_COMPARE_OP_ALWAYS,
      .min_lod = ci->minLod,
      .max_lod = ci->maxLod,
      .border_color = ci->borderColor,
      .unnormalized_coordinates = ci->unnormalizedCoordinates,
      .flags = ci->flags,
   };
   /* A custom colour without its struct is invalid; transparent black is
    * one defined answer. */
   if (is_custom && custom)
      sampler->state.custom_border = custom->customBorderColor;
   sd_sampler_desc_fill(&sampler->desc, &sampler->state);
   if (conv) {
      sampler->desc.ycbcr = 1;
      sampler->desc.conversion = conv->desc;
   }
   *pSampler = sd_sampler_to_handle(sampler);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroySampler(VkDevice _device, VkSampler _sampler, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_sampler, sampler, _sampler);
   if (sampler)
      sd_device_object_free(device, pAllocator, sampler);
}
