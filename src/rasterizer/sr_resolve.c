/*
 * sr_resolve: multisample resolves as tile commands: the scene call that
 * bins a depth/stencil resolve (colour resolves are binned by
 * sr_scene_resolve in sr_raster.c) and the back end's run of a RESOLVE
 * command on a tile's pixels. Workload: once per attachment at the end of
 * a subpass or rendering instance, every pixel of the render area.
 */
#include "sr_fragment.h"

#include <string.h>

VkResult sr_scene_resolve_depth_stencil(struct sr_scene *scene, const struct sr_surface *dst,
                                        VkResolveModeFlagBits depth_mode,
                                        VkResolveModeFlagBits stencil_mode)
{
   if (depth_mode == VK_RESOLVE_MODE_NONE && stencil_mode == VK_RESOLVE_MODE_NONE)
      return VK_SUCCESS;
   struct sr_resolve_cmd *c = sr_arena_alloc(&scene->arena, sizeof(*c));
   if (!c)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   memset(c, 0, sizeof(*c));
   c->attachment = SR_ATTACHMENT_DEPTH_STENCIL;
   c->dst = *dst;
   c->rect = scene->render_area;
   c->layer_count = scene->layer_count;
   c->depth_mode = depth_mode;
   c->stencil_mode = stencil_mode;
   const VkRect2D *ra = &scene->render_area;
   if (!ra->extent.width || !ra->extent.height)
      return VK_SUCCESS;
   struct sr_cmd cmd = {.kind = SR_CMD_RESOLVE, .resolve = c};
   for (uint32_t l = 0; l < scene->layer_count; l++) {
      if (!sr_scene_resolves_layer(scene, l))
         continue;
      VkResult res = sr_bin_box(scene, l, ra->offset.x, ra->offset.y,
                                ra->offset.x + (int32_t)ra->extent.width - 1,
                                ra->offset.y + (int32_t)ra->extent.height - 1, cmd);
      if (res != VK_SUCCESS)
         return res;
   }
   return VK_SUCCESS;
}

/* 8-bit UNORM and sRGB formats with a byte per channel (sr_pack_kind),
 * source and destination alike: each byte averaged on its own, with
 * su_unpack_float's values, the same float sum in sample order and
 * su_pack_float's rounding (sr_unorm8, sr_srgb8_encode), so the bytes are
 * those of the generic loop below. `size` and `samples` are constants in
 * the common instances (RGBA8 at 4 samples), which the compiler unrolls
 * and vectorizes. */
static inline void resolve_row8(const uint8_t *restrict s, uint8_t *restrict d, int32_t n,
                                unsigned size, uint32_t samples, uint8_t srgb_mask)
{
   const float inv = (float)samples;
   for (int32_t x = 0; x < n; x++, s += size * samples, d += size) {
      for (unsigned i = 0; i < size; i++) {
         float sum = 0.0f;
         if (srgb_mask & (1u << i)) {
            for (uint32_t k = 0; k < samples; k++)
               sum += sr_srgb8_decode(s[k * size + i]);
            d[i] = sr_srgb8_encode(sum / inv);
         } else {
            for (uint32_t k = 0; k < samples; k++)
               sum += (float)s[k * size + i] / 255.0f;
            /* sr_unorm8 without its NaN and range branches: the average
             * of values in [0, 1] is in [0, 1], where they change nothing
             * (1.0 gives 255 either way). Branch-free, so it vectorizes. */
            d[i] = (uint8_t)(int)((double)(sum / inv) * 255.0 + 0.5);
         }
      }
   }
}

/* resolve_row8 for 4-byte UNORM texels at 4 samples (RGBA8 / BGRA8, the
 * common MSAA target) in GCC/Clang vector types: the same operations per
 * byte (a float per sample byte, divided by 255, summed in sample order,
 * divided by 4, rounded through double), four bytes at once. */
typedef uint8_t sr_v4u8 __attribute__((vector_size(4)));
typedef int32_t sr_v4i __attribute__((vector_size(16)));
typedef float sr_v4f __attribute__((vector_size(16)));
typedef double sr_v4d __attribute__((vector_size(32)));

static void resolve_row_unorm8x4(const uint8_t *restrict s, uint8_t *restrict d, int32_t n)
{
   const sr_v4f k255 = {255.0f, 255.0f, 255.0f, 255.0f}, k4 = {4.0f, 4.0f, 4.0f, 4.0f};
   const sr_v4d d255 = {255.0, 255.0, 255.0, 255.0}, half = {0.5, 0.5, 0.5, 0.5};
   for (int32_t x = 0; x < n; x++, s += 16, d += 4) {
      sr_v4f sum = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int k = 0; k < 4; k++) {
         sr_v4u8 b;
         memcpy(&b, s + 4 * k, 4);
         sum += __builtin_convertvector(b, sr_v4f) / k255;
      }
      sr_v4d v = __builtin_convertvector(sum / k4, sr_v4d) * d255 + half;
      sr_v4u8 r = __builtin_convertvector(__builtin_convertvector(v, sr_v4i), sr_v4u8);
      memcpy(d, &r, 4);
   }
}

static bool resolve_color8(const struct sr_surface *src, const struct sr_surface *dst,
                           uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
   uint8_t byte_of[4];
   uint8_t kind = sr_pack_kind(src->format, byte_of);
   if ((kind != SR_PACK_UNORM8 && kind != SR_PACK_SRGB8) || src->format != dst->format ||
       src->samples < 2)
      return false;
   uint8_t srgb_mask = 0;   /* bit i: byte i is an sRGB colour channel */
   for (int c = 0; c < 3 && kind == SR_PACK_SRGB8; c++)
      if (byte_of[c] != 0xff)
         srgb_mask |= (uint8_t)(1u << byte_of[c]);
   unsigned size = src->format->block_size;
   int32_t n = x1 - x0 + 1;
   for (int32_t y = y0; y <= y1; y++) {
      const uint8_t *s = sr_surface_texel(src, layer, x0, y, 0);
      uint8_t *d = sr_surface_texel(dst, layer, x0, y, 0);
      if (size == 4 && src->samples == 4 && !srgb_mask)
         resolve_row_unorm8x4(s, d, n);
      else if (size == 4 && src->samples == 4)
         resolve_row8(s, d, n, 4, 4, srgb_mask);
      else
         resolve_row8(s, d, n, size, src->samples, srgb_mask);
   }
   return true;
}

/* Colour: the average of the samples for float and normalized formats (sRGB
 * averaged in linear), sample 0 for integer formats. */
static void resolve_color(const struct sr_surface *src, const struct sr_surface *dst,
                          uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
   bool average = src->samples > 1 && su_format_class(src->format) == SU_CLASS_FLOAT;
   if (average && resolve_color8(src, dst, layer, x0, y0, x1, y1))
      return;
   unsigned size = dst->format->block_size;
   for (int32_t y = y0; y <= y1; y++) {
      for (int32_t x = x0; x <= x1; x++) {
         uint8_t *d = sr_surface_texel(dst, layer, x, y, 0);
         if (!average) {
            memcpy(d, sr_surface_texel(src, layer, x, y, 0), size);
            continue;
         }
         float sum[4] = {0, 0, 0, 0};
         for (uint32_t s = 0; s < src->samples; s++) {
            float v[4];
            su_unpack_float(src->format, sr_surface_texel(src, layer, x, y, s), v);
            for (int c = 0; c < 4; c++)
               sum[c] += v[c];
         }
         for (int c = 0; c < 4; c++)
            sum[c] /= (float)src->samples;
         su_pack_float(dst->format, sum, d);
      }
   }
}

/* Depth: sample 0, the minimum or maximum sample (their bits copied when
 * both formats store depth alike), or the average. */
static void resolve_depth(const struct sr_surface *src, const struct sr_surface *dst,
                          VkResolveModeFlagBits mode, uint32_t layer, int32_t x0, int32_t y0,
                          int32_t x1, int32_t y1)
{
   const struct su_format_desc *sf = src->format, *df = dst->format;
   unsigned bits = su_format_depth_bits(sf);
   bool same = bits == su_format_depth_bits(df);
   unsigned bytes = bits == 16 ? 2 : bits == 24 ? 3 : 4;
   for (int32_t y = y0; y <= y1; y++) {
      for (int32_t x = x0; x <= x1; x++) {
         uint8_t *d = sr_surface_texel(dst, layer, x, y, 0);
         if (mode == VK_RESOLVE_MODE_AVERAGE_BIT) {
            double sum = 0;
            for (uint32_t s = 0; s < src->samples; s++)
               sum += su_unpack_depth(sf, sr_surface_texel(src, layer, x, y, s));
            su_pack_depth(df, (float)(sum / src->samples), d);
            continue;
         }
         const uint8_t *pick = sr_surface_texel(src, layer, x, y, 0);
         if (mode == VK_RESOLVE_MODE_MIN_BIT || mode == VK_RESOLVE_MODE_MAX_BIT) {
            double best = sr_depth_key(sf, pick);
            for (uint32_t s = 1; s < src->samples; s++) {
               const uint8_t *t = sr_surface_texel(src, layer, x, y, s);
               double k = sr_depth_key(sf, t);
               if (mode == VK_RESOLVE_MODE_MIN_BIT ? k < best : k > best) {
                  best = k;
                  pick = t;
               }
            }
         }
         if (same)
            memcpy(d + df->depth_offset, pick + sf->depth_offset, bytes);
         else
            su_pack_depth(df, su_unpack_depth(sf, pick), d);
      }
   }
}

static void resolve_stencil(const struct sr_surface *src, const struct sr_surface *dst,
                            VkResolveModeFlagBits mode, uint32_t layer, int32_t x0, int32_t y0,
                            int32_t x1, int32_t y1)
{
   for (int32_t y = y0; y <= y1; y++) {
      for (int32_t x = x0; x <= x1; x++) {
         uint8_t v = su_unpack_stencil(src->format, sr_surface_texel(src, layer, x, y, 0));
         for (uint32_t s = 1; s < src->samples && mode != VK_RESOLVE_MODE_SAMPLE_ZERO_BIT; s++) {
            uint8_t w = su_unpack_stencil(src->format, sr_surface_texel(src, layer, x, y, s));
            v = mode == VK_RESOLVE_MODE_MIN_BIT ? (w < v ? w : v) : (w > v ? w : v);
         }
         su_pack_stencil(dst->format, v, sr_surface_texel(dst, layer, x, y, 0));
      }
   }
}

void sr_resolve_run(const struct sr_framebuffer *fb, const struct sr_resolve_cmd *r,
                    uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
   const struct sr_surface *dst = &r->dst;
   if (layer >= r->layer_count || !dst->base)
      return;
   /* The rect inside the tile and the destination. */
   int32_t rx1 = r->rect.offset.x + (int32_t)r->rect.extent.width - 1;
   int32_t ry1 = r->rect.offset.y + (int32_t)r->rect.extent.height - 1;
   x0 = x0 > r->rect.offset.x ? x0 : r->rect.offset.x;
   y0 = y0 > r->rect.offset.y ? y0 : r->rect.offset.y;
   x1 = x1 < rx1 ? x1 : rx1;
   y1 = y1 < ry1 ? y1 : ry1;
   x1 = x1 < (int32_t)dst->width - 1 ? x1 : (int32_t)dst->width - 1;
   y1 = y1 < (int32_t)dst->height - 1 ? y1 : (int32_t)dst->height - 1;
   if (x0 > x1 || y0 > y1)
      return;

   if (r->attachment != SR_ATTACHMENT_DEPTH_STENCIL) {
      if (r->attachment < fb->color_count && fb->color[r->attachment].base)
         resolve_color(&fb->color[r->attachment], dst, layer, x0, y0, x1, y1);
      return;
   }
   if (r->depth_mode != VK_RESOLVE_MODE_NONE && fb->depth.base &&
       su_format_depth_bits(fb->depth.format) && su_format_depth_bits(dst->format))
      resolve_depth(&fb->depth, dst, r->depth_mode, layer, x0, y0, x1, y1);
   if (r->stencil_mode != VK_RESOLVE_MODE_NONE && fb->stencil.base &&
       (fb->stencil.format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) &&
       (dst->format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT))
      resolve_stencil(&fb->stencil, dst, r->stencil_mode, layer, x0, y0, x1, y1);
}
