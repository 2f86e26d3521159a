/* VkSampler: creation and destruction, and the description sampling reads. */
#include "sd_sampler.h"

#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_util.h"

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
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateSampler(VkDevice _device, const VkSamplerCreateInfo *pCreateInfo,
                 const VkAllocationCallbacks *pAllocator, VkSampler *pSampler)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkSamplerCreateInfo *ci = pCreateInfo;
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
   sd_sampler_desc_fill(&sampler->desc, &sampler->state);
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
