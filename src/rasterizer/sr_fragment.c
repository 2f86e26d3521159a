/*
 * sr_fragment: per-fragment operations in plain C (depth bounds, stencil,
 * depth, alpha to coverage, blending, logic ops, write masks, packing).
 * See sr_fragment.h. Workload: called per covered pixel of every primitive;
 * the per-state decisions are made once in sr_fragment_setup.
 */
#include "sr_fragment.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

/* ---- Scalar operations ---- */

bool sr_compare(VkCompareOp op, double ref, double stored)
{
   switch (op) {
   case VK_COMPARE_OP_NEVER: return false;
   case VK_COMPARE_OP_LESS: return ref < stored;
   case VK_COMPARE_OP_EQUAL: return ref == stored;
   case VK_COMPARE_OP_LESS_OR_EQUAL: return ref <= stored;
   case VK_COMPARE_OP_GREATER: return ref > stored;
   case VK_COMPARE_OP_NOT_EQUAL: return ref != stored;
   case VK_COMPARE_OP_GREATER_OR_EQUAL: return ref >= stored;
   default: return true;
   }
}

uint8_t sr_stencil_op(VkStencilOp op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case VK_STENCIL_OP_KEEP: return s;
   case VK_STENCIL_OP_ZERO: return 0;
   case VK_STENCIL_OP_REPLACE: return ref;
   case VK_STENCIL_OP_INCREMENT_AND_CLAMP: return s == 0xff ? s : (uint8_t)(s + 1);
   case VK_STENCIL_OP_DECREMENT_AND_CLAMP: return s == 0 ? s : (uint8_t)(s - 1);
   case VK_STENCIL_OP_INVERT: return (uint8_t)~s;
   case VK_STENCIL_OP_INCREMENT_AND_WRAP: return (uint8_t)(s + 1);
   case VK_STENCIL_OP_DECREMENT_AND_WRAP: return (uint8_t)(s - 1);
   default: return s;
   }
}

bool sr_stencil_test(const struct sr_stencil_face *f, uint8_t s)
{
   return sr_compare(f->compare_op, f->reference & f->compare_mask & 0xff,
                         s & f->compare_mask & 0xff);
}

uint8_t sr_stencil_update(const struct sr_stencil_face *f, uint8_t s, bool stencil_pass,
                          bool depth_pass)
{
   VkStencilOp op = !stencil_pass ? f->fail_op : depth_pass ? f->pass_op : f->depth_fail_op;
   uint8_t v = sr_stencil_op(op, s, (uint8_t)f->reference);
   uint8_t wm = (uint8_t)f->write_mask;
   return (uint8_t)((s & ~wm) | (v & wm));
}

double sr_depth_key(const struct su_format_desc *desc, const void *texel)
{
   const uint8_t *p = (const uint8_t *)texel + desc->depth_offset;
   switch (su_format_depth_bits(desc)) {
   case 16: {
      uint16_t v;
      memcpy(&v, p, 2);
      return v;
   }
   case 24: {
      uint32_t v;
      memcpy(&v, p, 4);
      return v & 0xffffffu;
   }
   default: {
      float v;
      memcpy(&v, p, 4);
      return v;
   }
   }
}

float sr_blend_factor(VkBlendFactor f, int c, const float src[4], const float src1[4],
                      const float dst[4], const float k[4])
{
   switch (f) {
   case VK_BLEND_FACTOR_ZERO: return 0.0f;
   case VK_BLEND_FACTOR_ONE: return 1.0f;
   case VK_BLEND_FACTOR_SRC_COLOR: return src[c];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR: return 1.0f - src[c];
   case VK_BLEND_FACTOR_DST_COLOR: return dst[c];
   case VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR: return 1.0f - dst[c];
   case VK_BLEND_FACTOR_SRC_ALPHA: return src[3];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA: return 1.0f - src[3];
   case VK_BLEND_FACTOR_DST_ALPHA: return dst[3];
   case VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA: return 1.0f - dst[3];
   case VK_BLEND_FACTOR_CONSTANT_COLOR: return k[c];
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR: return 1.0f - k[c];
   case VK_BLEND_FACTOR_CONSTANT_ALPHA: return k[3];
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA: return 1.0f - k[3];
   case VK_BLEND_FACTOR_SRC_ALPHA_SATURATE:
      return c == 3 ? 1.0f : fminf(src[3], 1.0f - dst[3]);
   case VK_BLEND_FACTOR_SRC1_COLOR: return src1[c];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_COLOR: return 1.0f - src1[c];
   case VK_BLEND_FACTOR_SRC1_ALPHA: return src1[3];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA: return 1.0f - src1[3];
   default: return 0.0f;
   }
}

static inline float blend_op(VkBlendOp op, float s, float sf, float d, float df)
{
   switch (op) {
   case VK_BLEND_OP_ADD: return s * sf + d * df;
   case VK_BLEND_OP_SUBTRACT: return s * sf - d * df;
   case VK_BLEND_OP_REVERSE_SUBTRACT: return d * df - s * sf;
   case VK_BLEND_OP_MIN: return fminf(s, d);
   case VK_BLEND_OP_MAX: return fmaxf(s, d);
   default: return s;
   }
}

/* Factor f for components c0 .. c1-1 (RGB: 0..2, alpha: 3..3) into o:
 * one dispatch for the components that share it. */
static inline void blend_factors(VkBlendFactor f, int c0, int c1, const float src[4],
                                 const float src1[4], const float dst[4], const float k[4],
                                 float o[4])
{
   const float *v;
   bool alpha = false, inv = false;
   switch (f) {
   case VK_BLEND_FACTOR_ZERO:
   case VK_BLEND_FACTOR_ONE:
      for (int c = c0; c < c1; c++)
         o[c] = f == VK_BLEND_FACTOR_ONE ? 1.0f : 0.0f;
      return;
   case VK_BLEND_FACTOR_SRC_ALPHA_SATURATE:
      for (int c = c0; c < c1; c++)
         o[c] = sr_blend_factor(f, c, src, src1, dst, k);
      return;
   case VK_BLEND_FACTOR_SRC_COLOR: v = src; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR: v = src, inv = true; break;
   case VK_BLEND_FACTOR_DST_COLOR: v = dst; break;
   case VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR: v = dst, inv = true; break;
   case VK_BLEND_FACTOR_SRC_ALPHA: v = src, alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA: v = src, alpha = inv = true; break;
   case VK_BLEND_FACTOR_DST_ALPHA: v = dst, alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA: v = dst, alpha = inv = true; break;
   case VK_BLEND_FACTOR_CONSTANT_COLOR: v = k; break;
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR: v = k, inv = true; break;
   case VK_BLEND_FACTOR_CONSTANT_ALPHA: v = k, alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA: v = k, alpha = inv = true; break;
   case VK_BLEND_FACTOR_SRC1_COLOR: v = src1; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_COLOR: v = src1, inv = true; break;
   case VK_BLEND_FACTOR_SRC1_ALPHA: v = src1, alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA: v = src1, alpha = inv = true; break;
   default:
      for (int c = c0; c < c1; c++)
         o[c] = 0.0f;
      return;
   }
   for (int c = c0; c < c1; c++) {
      float x = alpha ? v[3] : v[c];
      o[c] = inv ? 1.0f - x : x;
   }
}

/* op over components c0 .. c1-1. */
static inline void blend_ops(VkBlendOp op, int c0, int c1, const float s[4], const float sf[4],
                             const float d[4], const float df[4], float out[4])
{
   for (int c = c0; c < c1; c++)
      out[c] = blend_op(op, s[c], sf[c], d[c], df[c]);
}

void sr_blend(const struct sr_blend_attachment *b, const float src[4], const float src1[4],
              const float dst[4], const float k[4], float out[4])
{
   float sf[4], df[4];
   blend_factors(b->src_color, 0, 3, src, src1, dst, k, sf);
   blend_factors(b->dst_color, 0, 3, src, src1, dst, k, df);
   blend_factors(b->src_alpha, 3, 4, src, src1, dst, k, sf);
   blend_factors(b->dst_alpha, 3, 4, src, src1, dst, k, df);
   blend_ops(b->color_op, 0, 3, src, sf, dst, df, out);
   blend_ops(b->alpha_op, 3, 4, src, sf, dst, df, out);
}

static inline uint8_t unorm8_blend_op(VkBlendOp op, VkBlendFactor fs, VkBlendFactor fd,
                                      float s, float sf, float d, float db, float df)
{
   /* Copies of a source (ONE / ZERO) and MIN / MAX round their value as a
    * blend-free write does. */
   if (op == VK_BLEND_OP_MIN || op == VK_BLEND_OP_MAX)
      return sr_unorm8(op == VK_BLEND_OP_MIN ? fminf(s, d) : fmaxf(s, d));
   if ((op == VK_BLEND_OP_ADD || op == VK_BLEND_OP_SUBTRACT) && fs == VK_BLEND_FACTOR_ONE &&
       fd == VK_BLEND_FACTOR_ZERO)
      return sr_unorm8(s);
   float v;
   switch (op) {
   case VK_BLEND_OP_ADD: v = fmaf(s, sf * 255.0f, db * df); break;
   case VK_BLEND_OP_SUBTRACT: v = fmaf(s, sf * 255.0f, -(db * df)); break;
   case VK_BLEND_OP_REVERSE_SUBTRACT: v = fmaf(-s, sf * 255.0f, db * df); break;
   default: v = s * 255.0f; break;
   }
   v = v > 0.0f ? v : 0.0f;
   v = v < 255.0f ? v : 255.0f;
   return (uint8_t)(int)rintf(v);
}

void sr_blend_unorm8(const struct sr_blend_attachment *b, const float src[4],
                     const float src1[4], const float dst[4], const float dbyte[4],
                     const float k[4], uint8_t out[4])
{
   float sf[4], df[4];
   blend_factors(b->src_color, 0, 3, src, src1, dst, k, sf);
   blend_factors(b->dst_color, 0, 3, src, src1, dst, k, df);
   blend_factors(b->src_alpha, 3, 4, src, src1, dst, k, sf);
   blend_factors(b->dst_alpha, 3, 4, src, src1, dst, k, df);
   for (int c = 0; c < 4; c++)
      out[c] = unorm8_blend_op(c < 3 ? b->color_op : b->alpha_op,
                               c < 3 ? b->src_color : b->src_alpha,
                               c < 3 ? b->dst_color : b->dst_alpha, src[c], sf[c], dst[c],
                               dbyte[c], df[c]);
}

uint32_t sr_logic_op(VkLogicOp op, uint32_t s, uint32_t d)
{
   switch (op) {
   case VK_LOGIC_OP_CLEAR: return 0;
   case VK_LOGIC_OP_AND: return s & d;
   case VK_LOGIC_OP_AND_REVERSE: return s & ~d;
   case VK_LOGIC_OP_COPY: return s;
   case VK_LOGIC_OP_AND_INVERTED: return ~s & d;
   case VK_LOGIC_OP_NO_OP: return d;
   case VK_LOGIC_OP_XOR: return s ^ d;
   case VK_LOGIC_OP_OR: return s | d;
   case VK_LOGIC_OP_NOR: return ~(s | d);
   case VK_LOGIC_OP_EQUIVALENT: return ~(s ^ d);
   case VK_LOGIC_OP_INVERT: return ~d;
   case VK_LOGIC_OP_OR_REVERSE: return s | ~d;
   case VK_LOGIC_OP_COPY_INVERTED: return ~s;
   case VK_LOGIC_OP_OR_INVERTED: return ~s | d;
   case VK_LOGIC_OP_NAND: return ~(s & d);
   default: return ~0u;   /* SET */
   }
}

uint32_t sr_alpha_to_coverage(float alpha, uint32_t samples)
{
   if (!(alpha > 0.0f))
      return 0;   /* NaN too */
   if (alpha >= 1.0f)
      return samples >= 32 ? ~0u : (1u << samples) - 1;
   uint32_t n = (uint32_t)(alpha * (float)samples + 0.5f);
   return (1u << n) - 1;
}

static float clampf(float v, float lo, float hi)
{
   return v < lo ? lo : v > hi ? hi : v;
}

static void clamp4(float v[4], float lo, float hi)
{
   for (int c = 0; c < 4; c++)
      v[c] = clampf(v[c], lo, hi);
}

/* ---- 8-bit sRGB ---- */

/* thresholds[k]: the smallest float that su_pack_float encodes as k + 1 or
 * more (the encoding is monotonic); decoded[v]: su_unpack_float of v. */
static float srgb8_thresholds[255];
static float srgb8_decoded[256];
static uint32_t srgb8_buckets[SHALE_SRGB8_BUCKETS];
static pthread_once_t srgb8_once = PTHREAD_ONCE_INIT;

static uint8_t srgb8_reference(const struct su_format_desc *d, float f)
{
   float v[4] = {f, 0, 0, 1};
   uint8_t t = 0;
   su_pack_float(d, v, &t);
   return t;
}

static void srgb8_init(void)
{
   const struct su_format_desc *d = su_format_desc(VK_FORMAT_R8_SRGB);
   for (unsigned k = 0; k < 255; k++) {
      /* Positive floats order like their bits: search [0.0f, 1.0f]. */
      uint32_t lo = 0, hi = 0x3f800000u;
      while (lo < hi) {
         uint32_t mid = lo + (hi - lo) / 2;
         float f;
         memcpy(&f, &mid, 4);
         if (srgb8_reference(d, f) >= k + 1)
            hi = mid;
         else
            lo = mid + 1;
      }
      memcpy(&srgb8_thresholds[k], &lo, 4);
   }
   /* The buckets (shader_abi.h): positive floats order like their bits.
    * The encoding's steps are at least 0.89% of the value apart, a bucket
    * spans at most 0.79%: never two thresholds inside one bucket. */
   uint32_t tb[255];
   memcpy(tb, srgb8_thresholds, sizeof(tb));
   assert(tb[0] >= SHALE_SRGB8_BUCKET_FIRST << 16);
   unsigned n = 0;
   for (unsigned i = 0; i < SHALE_SRGB8_BUCKETS; i++) {
      const uint32_t start = (SHALE_SRGB8_BUCKET_FIRST + i) << 16;
      while (n < 255 && tb[n] <= start)
         n++;
      srgb8_buckets[i] = n;
      assert(n + 1 >= 255 || tb[n + 1] >= start + 0x10000u);
   }
   for (unsigned v = 0; v < 256; v++) {
      uint8_t t = (uint8_t)v;
      float rgba[4];
      su_unpack_float(d, &t, rgba);
      srgb8_decoded[v] = rgba[0];
   }
}

uint8_t sr_srgb8_encode(float linear)
{
   pthread_once(&srgb8_once, srgb8_init);
   if (!(linear > 0.0f))
      return 0;   /* NaN too */
   /* The number of thresholds at or below `linear`. */
   unsigned lo = 0, hi = 255;
   while (lo < hi) {
      unsigned mid = (lo + hi) / 2;
      if (srgb8_thresholds[mid] <= linear)
         lo = mid + 1;
      else
         hi = mid;
   }
   return (uint8_t)lo;
}

float sr_srgb8_decode(uint8_t v)
{
   pthread_once(&srgb8_once, srgb8_init);
   return srgb8_decoded[v];
}

/* ---- Setup ---- */

/* The bits of channel c in a texel of desc: or-ing packed probes with only
 * channel c set covers every bit of it (all-ones UNORM/UINT/SINT, both
 * signs of SNORM, the largest finite and infinite values of floats). */
static void channel_bits(const struct su_format_desc *desc, int c, uint8_t bits[SR_MAX_TEXEL_SIZE])
{
   uint8_t t[SR_MAX_TEXEL_SIZE];
   memset(bits, 0, SR_MAX_TEXEL_SIZE);
   switch (su_format_class(desc)) {
   case SU_CLASS_UINT: {
      uint32_t v[4] = {0, 0, 0, 0};
      v[c] = ~0u;
      memset(t, 0, sizeof(t));
      su_pack_uint(desc, v, t);
      memcpy(bits, t, desc->block_size);
      return;
   }
   case SU_CLASS_SINT: {
      int32_t v[4] = {0, 0, 0, 0};
      v[c] = -1;
      memset(t, 0, sizeof(t));
      su_pack_sint(desc, v, t);
      memcpy(bits, t, desc->block_size);
      return;
   }
   default: {
      static const float probes[] = {1.0f, -1.0f, -1.5f, 65504.0f, 65024.0f, 64512.0f,
                                     3.4028235e38f, INFINITY, -INFINITY};
      for (unsigned p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
         float v[4] = {0, 0, 0, 0};
         v[c] = probes[p];
         memset(t, 0, sizeof(t));
         su_pack_float(desc, v, t);
         for (unsigned i = 0; i < desc->block_size; i++)
            bits[i] |= t[i];
      }
      return;
   }
   }
}

/* Which packing shortcut suits d (enum sr_pack_kind); byte_of[c]: the
 * byte of channel c for SR_PACK_UNORM8. */
uint8_t sr_pack_kind(const struct su_format_desc *d, uint8_t byte_of[4])
{
   bool all8 = true, all32 = true;
   for (int c = 0; c < 4; c++) {
      if (c < d->num_channels) {
         all8 &= d->bits[c] == 8;
         all32 &= d->bits[c] == 32;
      } else {
         all8 &= d->bits[c] == 0;
         all32 &= d->bits[c] == 0;
      }
   }
   if (all32 && d->block_size == 4 * d->num_channels && !d->scaled &&
       (d->kind == SU_KIND_SFLOAT || d->kind == SU_KIND_UINT || d->kind == SU_KIND_SINT))
      return SR_PACK_COPY32;
   if (all8 && d->block_size == d->num_channels &&
       ((d->kind == SU_KIND_UNORM && !d->scaled) || d->kind == SU_KIND_SRGB)) {
      for (int c = 0; c < 4; c++) {
         byte_of[c] = 0xff;
         if (c >= d->num_channels)
            continue;
         float v[4] = {0, 0, 0, 0};
         uint8_t t[4] = {0, 0, 0, 0};
         v[c] = 1.0f;
         su_pack_float(d, v, t);
         for (uint8_t i = 0; i < d->block_size; i++)
            if (t[i] == 0xff)
               byte_of[c] = i;
      }
      return d->kind == SU_KIND_SRGB ? SR_PACK_SRGB8 : SR_PACK_UNORM8;
   }
   return SR_PACK_GENERIC;
}

/* Packs rgba (float bits, or integer bits for integer classes) into val. */
static inline void pack_color(const struct sr_color_target *t, const uint32_t bits[4],
                              const float rgba[4], uint8_t *val)
{
   const struct su_format_desc *d = t->surf->format;
   switch (t->pack) {
   case SR_PACK_UNORM8:
      for (int c = 0; c < 4; c++)
         if (t->byte_of[c] != 0xff)
            val[t->byte_of[c]] = sr_unorm8(rgba[c]);
      return;
   case SR_PACK_SRGB8:   /* alpha is linear */
      for (int c = 0; c < 4; c++)
         if (t->byte_of[c] != 0xff)
            val[t->byte_of[c]] = c < 3 ? sr_srgb8_encode(rgba[c]) : sr_unorm8(rgba[c]);
      return;
   case SR_PACK_COPY32:
      memcpy(val, t->cls == SU_CLASS_FLOAT ? (const void *)rgba : (const void *)bits,
             d->block_size);
      return;
   default:
      if (t->cls == SU_CLASS_UINT)
         su_pack_uint(d, bits, val);
      else if (t->cls == SU_CLASS_SINT)
         su_pack_sint(d, (const int32_t *)bits, val);
      else
         su_pack_float(d, rgba, val);
      return;
   }
}

/* The compiled depth/stencil routine when the state's key is this
 * state's, with its part of the context. */
static void ds_compiled_setup(struct sr_fragment_state *fs)
{
   const struct sr_draw_state *st = fs->state;
   struct shale_fb_ds_key key;
   if (!st->fb_ds || !sr_fragment_ds_key(fs, &key) || memcmp(&key, &st->fb_ds_key, sizeof(key)))
      return;
   /* The routine reads and writes a combined format's depth and stencil
    * as one texel: they must be one surface (Vulkan makes them one view). */
   if (fs->depth && fs->stencil && key.depth_format == key.stencil_format &&
       (fs->depth->base != fs->stencil->base || fs->depth->row_pitch != fs->stencil->row_pitch ||
        fs->depth->layer_pitch != fs->stencil->layer_pitch))
      return;
   fs->compiled_ds = st->fb_ds;
   fs->ds_width = key.width;
   struct shale_fb_context *c = &fs->fb_ctx;
   if (fs->depth) {
      c->depth.base = fs->depth->base;
      c->depth.row_pitch = fs->depth->row_pitch;
      c->depth.layer_pitch = fs->depth->layer_pitch;
   }
   if (fs->stencil) {
      c->stencil.base = fs->stencil->base;
      c->stencil.row_pitch = fs->stencil->row_pitch;
      c->stencil.layer_pitch = fs->stencil->layer_pitch;
   }
   c->sample_positions = fs->positions;
   c->depth_bounds[0] = st->min_depth_bounds;
   c->depth_bounds[1] = st->max_depth_bounds;
   for (int i = 0; i < 2; i++) {
      c->stencil_reference[i] = st->stencil[i].reference;
      c->stencil_compare_mask[i] = st->stencil[i].compare_mask;
      c->stencil_write_mask[i] = st->stencil[i].write_mask;
   }
}

bool sr_fragment_ds_key(const struct sr_fragment_state *fs, struct shale_fb_ds_key *key)
{
   const struct sr_draw_state *st = fs->state;
   memset(key, 0, sizeof(*key));
   if (!fs->ds_tests)
      return false;
   key->width = st->fs ? st->fs_width : 16;
   key->samples = fs->samples;
   if (fs->depth) {
      if (fs->depth->samples != fs->samples)
         return false;
      key->depth_format = (uint32_t)fs->depth->vk_format;
      key->depth_test = fs->depth_test;
      key->depth_write = fs->depth_write;
      key->depth_compare = fs->depth_test ? (uint32_t)st->depth_compare : 0;
      key->depth_bounds = fs->depth_bounds;
      key->frag_depth = fs->depth_test && !fs->early && st->fs && st->fs_io.writes_frag_depth;
      key->depth_clamp = key->frag_depth && st->depth_clamp;
   }
   if (fs->stencil) {
      if (fs->stencil->samples != fs->samples)
         return false;
      key->stencil_format = (uint32_t)fs->stencil->vk_format;
      for (int i = 0; i < 2; i++) {
         key->stencil[i].compare_op = st->stencil[i].compare_op;
         key->stencil[i].fail_op = st->stencil[i].fail_op;
         key->stencil[i].pass_op = st->stencil[i].pass_op;
         key->stencil[i].depth_fail_op = st->stencil[i].depth_fail_op;
      }
   }
   return true;
}

void sr_fragment_setup(struct sr_fragment_state *fs, const struct sr_framebuffer *fb,
                       const struct sr_draw_state *state)
{
   const struct shale_fs_info *io = &state->fs_io;
   memset(fs, 0, sizeof(*fs));
   fs->state = state;
   fs->samples = state->samples ? state->samples : (fb->samples ? fb->samples : 1);
   fs->positions = sr_sample_positions(fs->samples);

   if (fb->depth.base && su_format_depth_bits(fb->depth.format) &&
       (state->depth_test || state->depth_bounds_test)) {
      fs->depth = &fb->depth;
      fs->depth_test = state->depth_test;
      fs->depth_write = state->depth_test && state->depth_write;
      fs->depth_bounds = state->depth_bounds_test;
      fs->depth_float = su_format_depth_bits(fb->depth.format) == 32;
   }
   if (fb->stencil.base && (fb->stencil.format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) &&
       state->stencil_test)
      fs->stencil = &fb->stencil;
   fs->ds_tests = fs->depth || fs->stencil;

   if (!state->fs) {
      fs->early = true;
      ds_compiled_setup(fs);
      return;
   }
   fs->early = io->early_fragment_tests ||
               (!io->writes_frag_depth && !io->can_discard && !io->writes_sample_mask &&
                !io->writes_stencil && !io->has_side_effects && !state->alpha_to_coverage);

   bool sample_input = false;
   for (unsigned i = 0; i < SHALE_FS_INPUT_COMPONENTS; i++)
      sample_input |= (io->interp[i] & SHALE_INTERP_SAMPLE) != 0;
   fs->per_sample = io->reads_sample_id || sample_input ||
                    (state->sample_shading && state->min_sample_shading * fs->samples > 1.0f);
   fs->alpha_to_coverage = state->alpha_to_coverage && (io->outputs_written & 1);
   fs->alpha_to_one = state->alpha_to_one;

   fs->color_count = fb->color_count < SR_MAX_COLOR_ATTACHMENTS ? fb->color_count
                                                                 : SR_MAX_COLOR_ATTACHMENTS;
   for (uint32_t c = 0; c < fs->color_count; c++) {
      const struct sr_surface *s = &fb->color[c];
      const struct sr_blend_attachment *b = &state->blend[c];
      struct sr_color_target *t = &fs->color[c];
      if (!s->base || !s->format || !(io->outputs_written & (1u << c)) || !b->write_mask ||
          s->format->block_size > SR_MAX_TEXEL_SIZE)
         continue;
      const struct su_format_desc *d = s->format;
      t->surf = s;
      t->cls = su_format_class(d);
      bool normalized = d->kind == SU_KIND_UNORM || d->kind == SU_KIND_SNORM;
      t->logic = state->logic_op_enable && !d->scaled &&
                 (normalized || t->cls != SU_CLASS_FLOAT);
      t->blend = b->blend_enable && !state->logic_op_enable && t->cls == SU_CLASS_FLOAT;
      t->clamp01 = (d->kind == SU_KIND_UNORM && !d->scaled) || d->kind == SU_KIND_SRGB;
      t->clamp11 = d->kind == SU_KIND_SNORM && !d->scaled;
      const VkBlendFactor f[4] = {b->src_color, b->dst_color, b->src_alpha, b->dst_alpha};
      for (int i = 0; i < 4; i++)
         t->dual |= f[i] >= VK_BLEND_FACTOR_SRC1_COLOR && f[i] <= VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA;
      memcpy(t->constants, state->blend_constants, sizeof(t->constants));
      if (t->clamp01 || t->clamp11)
         clamp4(t->constants, t->clamp01 ? 0.0f : -1.0f, 1.0f);
      t->pack = sr_pack_kind(d, t->byte_of);
      uint32_t present = (1u << d->num_channels) - 1;
      t->full_write = (b->write_mask & present) == present;
      for (int ch = 0; ch < 4 && !t->full_write; ch++) {
         if (!(b->write_mask & (1u << ch)))
            continue;
         uint8_t bits[SR_MAX_TEXEL_SIZE];
         channel_bits(d, ch, bits);
         for (unsigned i = 0; i < SR_MAX_TEXEL_SIZE; i++)
            t->write_bits[i] |= bits[i];
      }
   }

   struct shale_fb_key key;
   if (state->fb_color && sr_fragment_key(fs, state->fs_width, &key) &&
       !memcmp(&key, &state->fb_key, sizeof(key))) {
      pthread_once(&srgb8_once, srgb8_init);
      fs->compiled = state->fb_color;
      fs->fb_ctx.srgb_thresholds = srgb8_thresholds;
      fs->fb_ctx.srgb_decode = srgb8_decoded;
      fs->fb_ctx.srgb_buckets = srgb8_buckets;
      for (uint32_t c = 0; c < fs->color_count && c < SHALE_FB_MAX_COLOR; c++) {
         const struct sr_color_target *t = &fs->color[c];
         if (!t->surf)
            continue;
         fs->fb_ctx.color[c].base = t->surf->base;
         fs->fb_ctx.color[c].row_pitch = t->surf->row_pitch;
         fs->fb_ctx.color[c].layer_pitch = t->surf->layer_pitch;
         memcpy(fs->fb_ctx.color[c].constants, t->constants, sizeof(t->constants));
      }
   }
   ds_compiled_setup(fs);
}

bool sr_fragment_key(const struct sr_fragment_state *fs, uint32_t width, struct shale_fb_key *key)
{
   const struct sr_draw_state *st = fs->state;
   memset(key, 0, sizeof(*key));
   key->width = width;
   key->samples = fs->samples;
   key->alpha_to_one = fs->alpha_to_one;
   key->color_count = fs->color_count;
   bool any = false;
   for (uint32_t c = 0; c < fs->color_count; c++) {
      const struct sr_color_target *t = &fs->color[c];
      struct shale_fb_attachment *a = &key->color[c];
      if (!t->surf)
         continue;
      if (t->surf->samples != fs->samples)
         return false;
      any = true;
      a->format = (uint32_t)t->surf->vk_format;
      a->write_mask = st->blend[c].write_mask & 0xf;
      a->logic_op = t->logic ? (uint32_t)st->logic_op + 1 : 0;
      if (t->blend) {
         const struct sr_blend_attachment *b = &st->blend[c];
         a->blend = 1;
         a->src_color = b->src_color;
         a->dst_color = b->dst_color;
         a->src_alpha = b->src_alpha;
         a->dst_alpha = b->dst_alpha;
         a->color_op = b->color_op;
         a->alpha_op = b->alpha_op;
      }
   }
   return any;
}

static void no_shader(const struct shale_fs_context *ctx, struct shale_fs_quads *quads)
{
   (void)ctx;
   (void)quads;
}

bool sr_fragment_backend_key(const struct sr_draw_state *state, uint32_t width,
                             uint32_t color_count, const VkFormat *formats, uint32_t samples,
                             struct shale_fb_key *key)
{
   static uint8_t dummy;
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.color_count = color_count < SR_MAX_COLOR_ATTACHMENTS ? color_count : SR_MAX_COLOR_ATTACHMENTS;
   fb.samples = samples;
   for (uint32_t c = 0; c < fb.color_count; c++) {
      const struct su_format_desc *d =
         formats[c] != VK_FORMAT_UNDEFINED ? su_format_desc(formats[c]) : NULL;
      if (!d)
         continue;
      fb.color[c].base = &dummy;
      fb.color[c].format = d;
      fb.color[c].vk_format = formats[c];
      fb.color[c].samples = samples;
   }
   struct sr_draw_state st = *state;
   st.fs = no_shader;
   st.fs_width = width;
   struct sr_fragment_state fs;
   sr_fragment_setup(&fs, &fb, &st);
   return sr_fragment_key(&fs, width, key);
}

bool sr_fragment_backend_ds_key(const struct sr_draw_state *state, uint32_t width,
                                VkFormat depth_format, VkFormat stencil_format,
                                uint32_t samples, struct shale_fb_ds_key *key)
{
   static uint8_t dummy;
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.samples = samples;
   const VkFormat f[2] = {depth_format, stencil_format};
   struct sr_surface *s[2] = {&fb.depth, &fb.stencil};
   for (int i = 0; i < 2; i++) {
      const struct su_format_desc *d = f[i] != VK_FORMAT_UNDEFINED ? su_format_desc(f[i]) : NULL;
      if (!d)
         continue;
      s[i]->base = &dummy;
      s[i]->format = d;
      s[i]->vk_format = f[i];
      s[i]->samples = samples;
   }
   struct sr_draw_state st = *state;
   st.fs = width ? no_shader : NULL;
   st.fs_width = width;
   st.fb_ds = NULL;
   st.fb_color = NULL;
   struct sr_fragment_state fs;
   sr_fragment_setup(&fs, &fb, &st);
   return sr_fragment_ds_key(&fs, key);
}

/* ---- Depth and stencil ---- */

uint32_t sr_fragment_depth_stencil(const struct sr_fragment_state *fs, const struct sr_prim *prim,
                                   uint32_t layer, int32_t x, int32_t y, uint32_t cov,
                                   const float *frag_depth, uint64_t *passed)
{
   const struct sr_draw_state *st = fs->state;
   if (!fs->ds_tests) {
      *passed += (uint64_t)sr_popcount(cov);
      return cov;
   }
   const float(*pos)[2] = fs->positions;
   uint32_t out = cov;
   for (uint32_t m = cov; m; m &= m - 1) {
      uint32_t s = (uint32_t)__builtin_ctz(m);
      uint8_t *dt = fs->depth ? sr_surface_texel(fs->depth, layer, x, y, s) : NULL;
      uint8_t *stt = fs->stencil ? sr_surface_texel(fs->stencil, layer, x, y, s) : NULL;

      if (fs->depth_bounds) {
         float za = su_unpack_depth(fs->depth->format, dt);
         if (!(za >= st->min_depth_bounds && za <= st->max_depth_bounds)) {
            out &= ~(1u << s);
            continue;
         }
      }

      const struct sr_stencil_face *face = &st->stencil[prim->front_facing ? 0 : 1];
      uint8_t sv = 0;
      if (stt) {
         sv = su_unpack_stencil(fs->stencil->format, stt);
         if (!sr_stencil_test(face, sv)) {
            su_pack_stencil(fs->stencil->format, sr_stencil_update(face, sv, false, false), stt);
            out &= ~(1u << s);
            continue;
         }
      }

      bool dpass = true;
      if (fs->depth_test) {
         float z;
         if (frag_depth) {
            z = *frag_depth;
            if (st->depth_clamp)
               z = clampf(z, prim->depth_min, prim->depth_max);
         } else {
            double px = x + pos[s][0], py = y + pos[s][1];
            z = (float)(prim->z.a * px + prim->z.b * py + prim->z.c);
            z = clampf(z, prim->depth_min, prim->depth_max);
         }
         const struct su_format_desc *df = fs->depth->format;
         if (fs->depth_float) {
            /* D32: stored as is (su_pack_depth), compared as floats. */
            float stored;
            memcpy(&stored, dt + df->depth_offset, 4);
            dpass = sr_compare(st->depth_compare, z, stored);
            if (dpass && fs->depth_write)
               memcpy(dt + df->depth_offset, &z, 4);
         } else {
            uint8_t q[8];
            memset(q, 0, sizeof(q));
            su_pack_depth(df, z, q);
            dpass = sr_compare(st->depth_compare, sr_depth_key(df, q), sr_depth_key(df, dt));
            if (dpass && fs->depth_write)
               su_pack_depth(df, z, dt);
         }
      }
      if (stt)
         su_pack_stencil(fs->stencil->format, sr_stencil_update(face, sv, true, dpass), stt);
      if (!dpass)
         out &= ~(1u << s);
   }
   *passed += (uint64_t)sr_popcount(out);
   return out;
}

/* ---- Colour ---- */

/* One lane's colour into target c. */
static inline void color_lane(const struct sr_fragment_state *fs, uint32_t c, uint32_t layer,
                              int32_t x, int32_t y, uint32_t cov, const uint32_t *outputs,
                              uint32_t width, uint32_t lane)
{
   const struct sr_draw_state *st = fs->state;
   const struct sr_color_target *t = &fs->color[c];
   const struct su_format_desc *d = t->surf->format;
   uint32_t bits[4];
   for (int k = 0; k < 4; k++)
      bits[k] = outputs[(c * 4 + k) * width + lane];
   float src[4], src1[4] = {0, 0, 0, 0};
   memcpy(src, bits, sizeof(src));
   if (t->cls == SU_CLASS_FLOAT && fs->alpha_to_one)
      src[3] = 1.0f;
   if (t->blend) {
      if (t->dual) {
         for (int k = 0; k < 4; k++)
            memcpy(&src1[k],
                   &outputs[((SHALE_FS_OUTPUT_LOCATIONS - 1) * 4 + k) * width + lane], 4);
      }
      if (t->clamp01 || t->clamp11) {
         float lo = t->clamp01 ? 0.0f : -1.0f;
         clamp4(src, lo, 1.0f);
         if (t->dual)
            clamp4(src1, lo, 1.0f);
      }
   }

   /* The packed source, the same for every sample unless blending. */
   uint8_t packed[SR_MAX_TEXEL_SIZE];
   if (!t->blend)
      pack_color(t, bits, src, packed);

   for (uint32_t m = cov; m; m &= m - 1) {
      uint32_t s = (uint32_t)__builtin_ctz(m);
      uint8_t *dst = sr_surface_texel(t->surf, layer, x, y, s);
      uint8_t val[SR_MAX_TEXEL_SIZE];
      if (t->blend && t->pack == SR_PACK_UNORM8) {
         float dv[4], db[4];
         uint8_t out[4];
         for (int k = 0; k < 4; k++) {
            bool have = t->byte_of[k] != 0xff;
            db[k] = have ? (float)dst[t->byte_of[k]] : 0.0f;
            dv[k] = have ? db[k] / 255.0f : k == 3 ? 1.0f : 0.0f;
         }
         sr_blend_unorm8(&st->blend[c], src, src1, dv, db, t->constants, out);
         memset(val, 0, d->block_size);
         for (int k = 0; k < 4; k++)
            if (t->byte_of[k] != 0xff)
               val[t->byte_of[k]] = out[k];
      } else if (t->blend) {
         float dv[4], out[4];
         if (t->pack == SR_PACK_UNORM8 || t->pack == SR_PACK_SRGB8) {
            bool srgb = t->pack == SR_PACK_SRGB8;
            for (int k = 0; k < 4; k++) {
               uint8_t b8 = t->byte_of[k] != 0xff ? dst[t->byte_of[k]] : 0;
               dv[k] = t->byte_of[k] == 0xff ? (k == 3 ? 1.0f : 0.0f)
                       : srgb && k < 3       ? sr_srgb8_decode(b8)
                                             : (float)b8 / 255.0f;
            }
         } else {
            /* Decoded bytes are in range already; other formats clamp. */
            su_unpack_float(d, dst, dv);
            if (t->clamp01 || t->clamp11)
               clamp4(dv, t->clamp01 ? 0.0f : -1.0f, 1.0f);
         }
         sr_blend(&st->blend[c], src, src1, dv, t->constants, out);
         pack_color(t, bits, out, val);
      } else {
         memcpy(val, packed, d->block_size);
      }
      if (t->logic) {
         for (unsigned i = 0; i < d->block_size; i++)
            val[i] = (uint8_t)sr_logic_op(st->logic_op, val[i], dst[i]);
      }
      if (t->full_write) {
         memcpy(dst, val, d->block_size);
      } else {
         for (unsigned i = 0; i < d->block_size; i++)
            dst[i] = (uint8_t)((val[i] & t->write_bits[i]) | (dst[i] & ~t->write_bits[i]));
      }
   }
}

void sr_fragment_color(const struct sr_fragment_state *fs, uint32_t layer, const int32_t *x,
                       const int32_t *y, const uint32_t *cov, uint32_t lanes,
                       const uint32_t *outputs, uint32_t width)
{
   for (uint32_t c = 0; c < fs->color_count; c++) {
      if (!fs->color[c].surf)
         continue;
      for (uint32_t i = 0; i < lanes; i++) {
         if (cov[i])
            color_lane(fs, c, layer, x[i], y[i], cov[i], outputs, width, i);
      }
   }
}
