/*
 * sd_sampler: VkSampler.
 *
 * Owns: the sampler's whole fixed-function state, copied from
 * VkSamplerCreateInfo at creation, and its shader ABI description (struct
 * shale_sampler_desc), which sampler and combined image sampler descriptor
 * records point at and the sampling routine (src/rasterizer/sr_sample)
 * reads. Immutable samplers are copied into their set layout
 * (sd_sampler_desc_fill), so a layout outlives the sampler objects.
 *
 * Invariants: immutable after creation. Extension state (reduction modes,
 * custom border colours, Y'CbCr conversions) is not claimed and not stored;
 * those pNext structs are ignored like any unknown struct.
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
   bool unnormalized_coordinates;
   VkSamplerCreateFlags flags;
};

struct sd_sampler {
   struct sd_object base;
   struct sd_sampler_state state;
   struct shale_sampler_desc desc;   /* what descriptor records point at */
};

/* The ABI description of a sampler state. */
void sd_sampler_desc_fill(struct shale_sampler_desc *d, const struct sd_sampler_state *s);

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_sampler, base, VkSampler, VK_OBJECT_TYPE_SAMPLER)

#endif
