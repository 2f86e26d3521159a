/*
 * Sampler-test helpers shared by unit/sample and unit/aniso: header-only
 * (static inline), no state and no CHECKs (check.h's counters are each
 * test file's own).
 */
#ifndef SHALE_TEST_SAMPLE_VIEW_H
#define SHALE_TEST_SAMPLE_VIEW_H

#include <stdint.h>

#include "rasterizer/sr_sample.h"

/* Fills in v's description of a view of base (the caller sets its
 * pitches and level offsets): format, type, w x h x 1, levels and
 * layers, one sample, texel_size bytes a texel, the colour aspect and
 * the identity swizzle. */
static inline void
sample_view_init(struct shale_image_view_desc *v, uint8_t *base, VkFormat format,
                 VkImageViewType type, uint32_t w, uint32_t h, uint32_t levels, uint32_t layers,
                 uint32_t texel_size)
{
   v->base = base;
   v->format = format;
   v->view_type = type;
   v->width = w;
   v->height = h;
   v->depth = 1;
   v->level_count = levels;
   v->layer_count = layers;
   v->samples = 1;
   v->texel_size = texel_size;
   v->aspect = VK_IMAGE_ASPECT_COLOR_BIT;
   for (int k = 0; k < 4; k++)
      v->swizzle[k] = VK_COMPONENT_SWIZZLE_R + k;
}

#endif
