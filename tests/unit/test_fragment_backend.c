/* Unit test of the compiled fragment back end (src/compiler/llvm_backend.c,
 * sr_raster.h "The fragment back end"): for random back-end states (formats,
 * UNORM, SNORM, sRGB, float, uint and sint formats of one word or of 32-bit
 * channels; blend enables, factors, ops, write masks, logic ops, samples,
 * alpha-to-one, widths) and random shader outputs (special values
 * included), the compiled routine and the C reference (sr_fragment_color)
 * must leave bit-identical attachments. Also: keys the compiler does not cover yet are refused (the
 * C back end runs), the same key gives the same routine, and a framebuffer
 * whose formats differ from the compiled key falls back to C. Likewise the
 * compiled depth/stencil routines (llvm_backend_ds.c) against
 * sr_fragment_depth_stencil: random depth/stencil formats (combined, or a
 * depth format beside an S8_UINT surface), depth test / write / compare /
 * bounds, FragDepth and depth clamp, stencil ops and compares per face with
 * random references and masks, sample counts 1 to 8, random planes,
 * ranges, facing and lanes: coverage out, passed-sample counts and both
 * surfaces' bytes bit-identical. */
#include <glob.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compiler/sc_compiler.h"
#include "rasterizer/sr_fragment.h"

static uint32_t rng_state = 0x9e3779b9u;

/* When set, run_state's first attachment has this format. */
static VkFormat force_format;

/* The key of the last routine run_state / run_ds_state compiled. */
static struct shale_fb_key last_key;
static struct shale_fb_ds_key last_ds_key;

static uint32_t rng(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 17;
   rng_state ^= rng_state << 5;
   return rng_state;
}

static void dummy_fs(const struct shale_fs_context *ctx, struct shale_fs_quads *q)
{
   (void)ctx;
   (void)q;
}

static const VkFormat formats[] = {
   VK_FORMAT_R8G8B8A8_UNORM,           VK_FORMAT_R8G8B8A8_SRGB,
   VK_FORMAT_B8G8R8A8_UNORM,           VK_FORMAT_B8G8R8A8_SRGB,
   VK_FORMAT_R16G16B16A16_SFLOAT,      VK_FORMAT_R32G32B32A32_SFLOAT,
   VK_FORMAT_R8_UNORM,                 VK_FORMAT_R8G8_UNORM,
   VK_FORMAT_B5G6R5_UNORM_PACK16,      VK_FORMAT_R5G6B5_UNORM_PACK16,
   VK_FORMAT_A1R5G5B5_UNORM_PACK16,    VK_FORMAT_R4G4B4A4_UNORM_PACK16,
   VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_A2R10G10B10_UNORM_PACK32,
   VK_FORMAT_A8B8G8R8_UNORM_PACK32,    VK_FORMAT_R16_UNORM,
   VK_FORMAT_R16G16_UNORM,             VK_FORMAT_R16G16B16A16_UNORM,
   VK_FORMAT_R8G8B8A8_SNORM,           VK_FORMAT_R16G16B16A16_SNORM,
   VK_FORMAT_R16_SFLOAT,               VK_FORMAT_R16G16_SFLOAT,
   VK_FORMAT_R32_SFLOAT,               VK_FORMAT_R32G32_SFLOAT,
   VK_FORMAT_R8_UINT,                  VK_FORMAT_R8G8B8A8_UINT,
   VK_FORMAT_R8G8B8A8_SINT,            VK_FORMAT_R16G16_UINT,
   VK_FORMAT_R16G16B16A16_SINT,        VK_FORMAT_A2B10G10R10_UINT_PACK32,
   VK_FORMAT_R32_UINT,                 VK_FORMAT_R32_SINT,
   VK_FORMAT_R32G32B32A32_UINT,        VK_FORMAT_R32G32B32A32_SINT,
   /* Packed floats, 3- and 6-byte texels, sRGB with fewer than four
    * channels (and A8B8G8R8's). */
   VK_FORMAT_B10G11R11_UFLOAT_PACK32,  VK_FORMAT_B10G11R11_UFLOAT_PACK32,
   VK_FORMAT_R8G8B8_UNORM,             VK_FORMAT_B8G8R8_SNORM,
   VK_FORMAT_R8G8B8_UINT,              VK_FORMAT_B8G8R8_SINT,
   VK_FORMAT_R16G16B16_SFLOAT,         VK_FORMAT_R16G16B16_UNORM,
   VK_FORMAT_R16G16B16_SNORM,          VK_FORMAT_R16G16B16_UINT,
   VK_FORMAT_R16G16B16_SINT,           VK_FORMAT_R8_SRGB,
   VK_FORMAT_R8G8_SRGB,                VK_FORMAT_R8G8B8_SRGB,
   VK_FORMAT_B8G8R8_SRGB,              VK_FORMAT_A8B8G8R8_SRGB_PACK32,
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

#define FB_W 8
#define FB_H 8
#define FB_LAYERS 2

static float rand_value(void)
{
   static const float special[] = {0.0f,   -0.0f,  1.0f,     0.5f,     -1.0f,  2.0f,
                                   NAN,    -NAN,   INFINITY, -INFINITY, 1e-40f, 70000.0f,
                                   65504.0f, 1e-7f, 0.99999994f, 0.0031308f};
   uint32_t r = rng() % 16;
   if (r == 0)
      return special[rng() % (sizeof(special) / sizeof(special[0]))];
   if (r == 1) {   /* any bits */
      uint32_t b = rng();
      float f;
      memcpy(&f, &b, 4);
      return f;
   }
   return (float)(rng() % 200000) / 100000.0f - 0.4f;
}

static void surf_alloc(struct sr_surface *s, VkFormat f, uint32_t samples)
{
   memset(s, 0, sizeof(*s));
   s->format = su_format_desc(f);
   s->vk_format = f;
   s->width = FB_W;
   s->height = FB_H;
   s->layers = FB_LAYERS;
   s->samples = samples;
   s->row_pitch = (uint64_t)FB_W * samples * s->format->block_size + 16;
   s->layer_pitch = s->row_pitch * FB_H + 32;
   size_t size = s->layer_pitch * FB_LAYERS;
   s->base = malloc(size);
   for (size_t i = 0; i < size; i++)
      s->base[i] = (uint8_t)rng();
}

static size_t surf_size(const struct sr_surface *s)
{
   return s->layer_pitch * s->layers;
}

static bool is_nan_bits(const uint8_t *p, uint32_t bytes)
{
   if (bytes == 2) {
      uint16_t h;
      memcpy(&h, p, 2);
      return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
   }
   uint32_t u;
   memcpy(&u, p, 4);
   return (u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu);
}

/* The first byte where the compiled result differs from the C one; NaN
 * channels of float formats match any NaN: which operand's payload and
 * sign a blend of two NaNs keeps is left open by Vulkan and by LLVM (it
 * may commute an fadd or fold x * 1.0), so only that bits differ there is
 * not a failure. size when they match. */
/* Whether two B10G11R11_UFLOAT texels match (NaN channels matching any
 * NaN, as above). */
static bool ufloat_texels_match(const uint8_t *a, const uint8_t *b)
{
   static const uint32_t shift[3] = {0, 11, 22}, mbits[3] = {6, 6, 5};
   uint32_t x, y;
   memcpy(&x, a, 4);
   memcpy(&y, b, 4);
   for (int c = 0; c < 3; c++) {
      uint32_t mask = (1u << (mbits[c] + 5)) - 1, exp = 0x1fu << mbits[c];
      uint32_t fx = (x >> shift[c]) & mask, fy = (y >> shift[c]) & mask;
      bool nx = (fx & exp) == exp && (fx & ~exp), ny = (fy & exp) == exp && (fy & ~exp);
      if (fx != fy && !(nx && ny))
         return false;
   }
   return true;
}

static size_t first_difference(const struct sr_surface *s, const uint8_t *ref, size_t size)
{
   if (s->vk_format == VK_FORMAT_B10G11R11_UFLOAT_PACK32) {
      /* Texels start at multiples of 4 (surf_alloc's pitches). */
      for (size_t i = 0; i + 4 <= size; i += 4) {
         if (ufloat_texels_match(s->base + i, ref + i))
            continue;
         size_t k = i;
         while (s->base[k] == ref[k])
            k++;
         return k;
      }
      return size;
   }
   uint32_t ch = s->format->kind == SU_KIND_SFLOAT ? s->format->bits[0] / 8u : 1;
   for (size_t i = 0; i + ch <= size; i += ch) {
      if (!memcmp(s->base + i, ref + i, ch))
         continue;
      if (ch > 1 && is_nan_bits(s->base + i, ch) && is_nan_bits(ref + i, ch))
         continue;
      size_t k = i;
      while (s->base[k] == ref[k])
         k++;
      return k;
   }
   return size;
}

static float rand_depth(void);

/* The lanes of one back-end call: w distinct random pixels of the
 * framebuffer (the start of a random permutation) in x and y, each lane's
 * coverage none, every sample (`all`) or random samples, and, when fd is not
 * NULL, a random FragDepth per lane (drawn in the lanes' loop, so the
 * sequence of random numbers is that of the loops this replaced). */
static void rand_lanes(uint32_t w, uint32_t all, int32_t *x, int32_t *y, uint32_t *cov, float *fd)
{
   uint32_t pix[FB_W * FB_H];
   for (uint32_t i = 0; i < FB_W * FB_H; i++)
      pix[i] = i;
   for (uint32_t i = 0; i < w; i++) {
      uint32_t j = i + rng() % (FB_W * FB_H - i);
      uint32_t t = pix[i];
      pix[i] = pix[j];
      pix[j] = t;
      x[i] = (int32_t)(pix[i] % FB_W);
      y[i] = (int32_t)(pix[i] / FB_W);
      uint32_t k = rng() % 4;
      cov[i] = k == 0 ? 0 : k == 1 ? all : rng() & all;
      if (fd)
         fd[i] = rand_depth();
   }
}

/* One random state: compiles it, then runs `rounds` random batches through
 * both back ends. Returns false when the key was refused. */
static bool run_state(struct sc_compiler *c, uint32_t round_id, uint32_t rounds)
{
   static const uint32_t widths[] = {4, 8, 16, 8};
   uint32_t W = widths[rng() % 4];
   uint32_t samples = rng() % 2 ? 4 : 1;
   if (samples == 4 && round_id % 7 == 3)
      samples = 8;   /* 8 samples of 32-bit channels: more than the lanes form takes */
   uint32_t count = 1 + rng() % 3;

   struct sr_draw_state st;
   memset(&st, 0, sizeof(st));
   st.fs = dummy_fs;
   st.fs_width = W;
   st.samples = samples;
   st.sample_mask = ~0u;
   st.alpha_to_one = rng() % 4 == 0;
   st.logic_op_enable = rng() % 4 == 0;
   st.logic_op = (VkLogicOp)(rng() % 16);
   for (int k = 0; k < 4; k++)
      st.blend_constants[k] = rand_value();
   VkFormat fmts[3];
   for (uint32_t a = 0; a < count; a++) {
      fmts[a] = a == 0 && force_format ? force_format : formats[rng() % NFORMATS];
      struct sr_blend_attachment *b = &st.blend[a];
      b->blend_enable = rng() % 4 != 0;
      b->src_color = (VkBlendFactor)(rng() % 19);
      b->dst_color = (VkBlendFactor)(rng() % 19);
      b->src_alpha = (VkBlendFactor)(rng() % 19);
      b->dst_alpha = (VkBlendFactor)(rng() % 19);
      b->color_op = (VkBlendOp)(rng() % 5);
      b->alpha_op = (VkBlendOp)(rng() % 5);
      b->write_mask = rng() % 3 ? 0xf : rng() % 16;
      if (a == 0 && force_format && !b->write_mask)
         b->write_mask = 0xf;   /* a state that writes the format */
      if (rng() % 8 != 0 || (a == 0 && force_format))
         st.fs_io.outputs_written |= 1u << a;
   }
   if (round_id % 5 == 0) {
      /* The common case: one opaque or alpha-blended RGBA8 target. */
      count = 1;
      st.logic_op_enable = false;
      st.fs_io.outputs_written = 1;
      st.blend[0].write_mask = 0xf;
      st.blend[0].src_color = VK_BLEND_FACTOR_SRC_ALPHA;
      st.blend[0].dst_color = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
      st.blend[0].src_alpha = VK_BLEND_FACTOR_ONE;
      st.blend[0].dst_alpha = VK_BLEND_FACTOR_ZERO;
      st.blend[0].color_op = st.blend[0].alpha_op = VK_BLEND_OP_ADD;
   }

   struct shale_fb_key key;
   if (!sr_fragment_backend_key(&st, W, count, fmts, samples, &key))
      return false;
   shale_fb_color_fn fn = NULL;
   char msg[256] = "";
   enum sc_result r = sc_compile_fragment_backend(c, &key, &fn, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && fn, "state %u: compile: %s (%s)", round_id, sc_result_string(r), msg);
   if (r != SC_SUCCESS)
      return false;
   last_key = key;
   shale_fb_color_fn again = NULL;
   r = sc_compile_fragment_backend(c, &key, &again, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && again == fn, "state %u: the cached routine differs", round_id);

   struct sr_draw_state st_c = st;      /* C reference */
   st.fb_color = fn;
   st.fb_key = key;

   struct sr_framebuffer fb_jit, fb_c;
   memset(&fb_jit, 0, sizeof(fb_jit));
   fb_jit.color_count = count;
   fb_jit.width = FB_W;
   fb_jit.height = FB_H;
   fb_jit.layers = FB_LAYERS;
   fb_jit.samples = samples;
   for (uint32_t a = 0; a < count; a++)
      surf_alloc(&fb_jit.color[a], fmts[a], samples);
   fb_c = fb_jit;
   for (uint32_t a = 0; a < count; a++) {
      size_t size = surf_size(&fb_jit.color[a]);
      fb_c.color[a].base = malloc(size);
      memcpy(fb_c.color[a].base, fb_jit.color[a].base, size);
   }

   struct sr_fragment_state fs_jit, fs_c;
   sr_fragment_setup(&fs_jit, &fb_jit, &st);
   sr_fragment_setup(&fs_c, &fb_c, &st_c);
   CHECK(fs_jit.compiled == fn, "state %u: the compiled routine is not used", round_id);
   CHECK(fs_c.compiled == NULL, "state %u: compiled code without a key", round_id);

   uint32_t all = (1u << samples) - 1;
   _Alignas(64) uint32_t outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 * SHALE_MAX_SIMD_WIDTH];
   for (uint32_t round = 0; round < rounds && fs_jit.compiled; round++) {
      int32_t x[SHALE_MAX_SIMD_WIDTH], y[SHALE_MAX_SIMD_WIDTH];
      uint32_t cov[SHALE_MAX_SIMD_WIDTH];
      uint32_t rows = 0;   /* the routine's rows promise (shader_abi.h) */
      rand_lanes(W, all, x, y, cov, NULL);
      if (round % 3 == 1) {
         /* Lanes without coverage on a covered lane's pixel (sr_tile.c
          * pads its calls so): they must change nothing. */
         for (uint32_t i = 1; i < W; i++)
            if (!cov[i]) {
               x[i] = x[0];
               y[i] = y[0];
            }
      } else if (round % 3 == 2) {
         /* The quads of a block side by side (sr_tile.c's lanes: W 8 two in
          * a row, W 16 the whole block), every lane covered: the routine's
          * rows form (llvm_backend.c); every sample covered (with several
          * samples and nothing read, the form that only writes), or,
          * every other time with several samples, some samples of each
          * lane. */
         const int32_t cols = W < 8 ? 2 : 4, rws = (int32_t)W / cols;
         int32_t x0 = x[0] % (FB_W - cols + 1), y0 = y[0] % (FB_H - rws + 1);
         const bool some = samples > 1 && round % 6 == 5;
         for (uint32_t i = 0; i < W; i++) {
            x[i] = x0 + 2 * (int32_t)((i / 4) & 1) + (int32_t)(i & 1);
            y[i] = y0 + 2 * (int32_t)(i / 8) + (int32_t)((i >> 1) & 1);
            cov[i] = some ? (rng() & all) | 1u << (i % samples) : all;
         }
         /* Promised where it holds (every sample), except one time in
          * four: the same lanes through the lanes form. */
         rows = !some && round % 12 != 11;
      }
      for (uint32_t i = 0; i < SHALE_FS_OUTPUT_LOCATIONS * 4 * W; i++) {
         float f = rand_value();
         memcpy(&outputs[i], &f, 4);
      }
      uint32_t layer = rng() % FB_LAYERS;
      uint8_t *before[3];
      for (uint32_t a = 0; a < count; a++) {
         before[a] = malloc(surf_size(&fb_c.color[a]));
         memcpy(before[a], fb_c.color[a].base, surf_size(&fb_c.color[a]));
      }
      sr_fragment_color(&fs_c, layer, x, y, cov, W, outputs, W);
      /* With the rows promise the routine reads x[0] and y[0] only: the
       * other lanes' entries it gets are wrong (every lane at lane 0's
       * pixel, no coverage), which would show in the pixels if read. */
      int32_t jx[SHALE_MAX_SIMD_WIDTH], jy[SHALE_MAX_SIMD_WIDTH];
      uint32_t jcov[SHALE_MAX_SIMD_WIDTH];
      for (uint32_t i = 0; i < W; i++) {
         jx[i] = rows ? x[0] : x[i];
         jy[i] = rows ? y[0] : y[i];
         jcov[i] = rows ? 0 : cov[i];
      }
      fs_jit.compiled(&fs_jit.fb_ctx, layer, jx, jy, jcov, outputs, rows);
      for (uint32_t a = 0; a < count; a++) {
         const struct sr_surface *sj = &fb_jit.color[a], *sc = &fb_c.color[a];
         size_t size = surf_size(sj);
         if (!memcmp(sj->base, sc->base, size))
            continue;
         size_t i = first_difference(sj, sc->base, size);
         if (i == size)
            continue;
         const struct shale_fb_attachment *k = &key.color[a];
         CHECK(false,
               "state %u round %u attachment %u (format %u, W %u, samples %u, blend %u: "
               "%u %u %u %u ops %u %u, mask %x, logic %u, alpha_to_one %u): byte %zu is %02x, "
               "C has %02x",
               round_id, round, a, k->format, W, samples, k->blend, k->src_color, k->dst_color,
               k->src_alpha, k->dst_alpha, k->color_op, k->alpha_op, k->write_mask, k->logic_op,
               key.alpha_to_one, i, sj->base[i], sc->base[i]);
         /* The lane and sample: print what went in. */
         size_t ts = sj->format->block_size;
         for (uint32_t l = 0; l < W; l++) {
            size_t p0 = layer * sj->layer_pitch + (size_t)y[l] * sj->row_pitch +
                        (size_t)x[l] * samples * ts;
            if (i < p0 || i >= p0 + samples * ts)
               continue;
            size_t t0 = p0 + (i - p0) / ts * ts;
            fprintf(stderr, "  lane %u cov %x sample %zu:", l, cov[l], (i - p0) / ts);
            for (int ci = 0; ci < 4; ci++)
               fprintf(stderr, " src[%d] %08x src1 %08x", ci, outputs[(a * 4 + ci) * W + l],
                       outputs[(32 + ci) * W + l]);
            fprintf(stderr, "\n  before:");
            for (size_t b = 0; b < ts; b++)
               fprintf(stderr, " %02x", before[a][t0 + b]);
            fprintf(stderr, "\n  C:     ");
            for (size_t b = 0; b < ts; b++)
               fprintf(stderr, " %02x", sc->base[t0 + b]);
            fprintf(stderr, "\n  JIT:   ");
            for (size_t b = 0; b < ts; b++)
               fprintf(stderr, " %02x", sj->base[t0 + b]);
            fprintf(stderr, "\n  constants %a %a %a %a\n", fs_c.color[a].constants[0],
                    fs_c.color[a].constants[1], fs_c.color[a].constants[2], fs_c.color[a].constants[3]);
         }
         memcpy(sj->base, sc->base, size);   /* report each difference once */
         rounds = round + 1;
      }
      for (uint32_t a = 0; a < count; a++)
         free(before[a]);
   }

   /* Another format in the framebuffer than the key: the C back end. */
   struct sr_framebuffer fb_other = fb_jit;
   uint32_t first = 0;
   while (!key.color[first].format)
      first++;
   VkFormat other = key.color[first].format == VK_FORMAT_R8G8B8A8_UINT ? VK_FORMAT_R8G8B8A8_SINT
                                                                        : VK_FORMAT_R8G8B8A8_UINT;
   fb_other.color[first].format = su_format_desc(other);
   fb_other.color[first].vk_format = other;
   struct sr_fragment_state fs_other;
   sr_fragment_setup(&fs_other, &fb_other, &st);
   CHECK(fs_other.compiled == NULL, "state %u: compiled code for other formats", round_id);

   for (uint32_t a = 0; a < count; a++) {
      free(fb_jit.color[a].base);
      free(fb_c.color[a].base);
   }
   return true;
}

/* ---- Depth/stencil ---- */

static const VkFormat ds_formats[] = {
   VK_FORMAT_D16_UNORM,         VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D32_SFLOAT,
   VK_FORMAT_D16_UNORM_S8_UINT, VK_FORMAT_D24_UNORM_S8_UINT,   VK_FORMAT_D32_SFLOAT_S8_UINT,
   VK_FORMAT_S8_UINT,
};
#define NDS_FORMATS (sizeof(ds_formats) / sizeof(ds_formats[0]))

/* A depth value: mostly in [0, 1], some outside, some special. */
static float rand_depth(void)
{
   uint32_t r = rng() % 8;
   if (r == 0)
      return rand_value();
   if (r == 1)
      return (float)(rng() % 5) / 4.0f;
   return (float)(rng() % 1000001) / 1000000.0f;
}

/* Depth texels of a surface near z values the test draws (so that compare
 * ops go both ways), stencil bytes random. */
static void ds_fill(struct sr_surface *s)
{
   const struct su_format_desc *d = s->format;
   size_t size = surf_size(s);
   for (size_t i = 0; i < size; i++)
      s->base[i] = (uint8_t)rng();
   if (!(d->aspects & VK_IMAGE_ASPECT_DEPTH_BIT))
      return;
   for (uint32_t l = 0; l < s->layers; l++)
      for (uint32_t y = 0; y < s->height; y++)
         for (uint32_t x = 0; x < s->width * s->samples; x++)
            if (rng() % 8)
               su_pack_depth(d, rand_depth(), s->base + l * s->layer_pitch + y * s->row_pitch +
                                                  (size_t)x * d->block_size);
}

static void rand_face(struct sr_stencil_face *f)
{
   f->fail_op = (VkStencilOp)(rng() % 8);
   f->pass_op = (VkStencilOp)(rng() % 8);
   f->depth_fail_op = (VkStencilOp)(rng() % 8);
   f->compare_op = (VkCompareOp)(rng() % 8);
   f->compare_mask = rng() % 2 ? 0xff : rng();
   f->write_mask = rng() % 2 ? 0xff : rng();
   f->reference = rng() % 2 ? rng() % 256 : rng();
}

/* One random depth/stencil state: compiled, then `rounds` random calls on
 * random lanes, held against sr_fragment_depth_stencil lane by lane
 * (coverage out, passed counts, both surfaces' bytes). */
static bool run_ds_state(struct sc_compiler *c, uint32_t id, uint32_t rounds)
{
   static const uint32_t widths[] = {4, 8, 16, 8};
   static const uint32_t sample_counts[] = {1, 4, 1, 2, 8, 4};
   uint32_t W = widths[rng() % 4];
   uint32_t samples = sample_counts[rng() % 6];
   bool no_fs = rng() % 8 == 0;
   if (no_fs)
      W = 16;

   struct sr_draw_state st;
   memset(&st, 0, sizeof(st));
   st.fs = no_fs ? NULL : dummy_fs;
   st.fs_width = no_fs ? 0 : W;
   st.samples = samples;
   st.sample_mask = ~0u;
   st.fs_io.outputs_written = 1;
   st.fs_io.writes_frag_depth = !no_fs && rng() % 3 == 0;
   st.fs_io.can_discard = !no_fs && rng() % 4 == 0;
   st.depth_clamp = rng() % 3 == 0;
   st.depth_test = rng() % 4 != 0;
   st.depth_write = rng() % 3 != 0;
   st.depth_compare = (VkCompareOp)(rng() % 8);
   st.depth_bounds_test = rng() % 4 == 0;
   st.min_depth_bounds = rand_depth();
   st.max_depth_bounds = rng() % 2 ? 1.0f : rand_depth();
   st.stencil_test = rng() % 2;
   rand_face(&st.stencil[0]);
   if (rng() % 2)
      st.stencil[1] = st.stencil[0];
   else
      rand_face(&st.stencil[1]);

   /* One combined surface, or separate depth and S8_UINT surfaces. */
   VkFormat df = ds_formats[rng() % NDS_FORMATS];
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.width = FB_W;
   fb.height = FB_H;
   fb.layers = FB_LAYERS;
   fb.samples = samples;
   struct sr_surface ds, s8;
   surf_alloc(&ds, df, samples);
   ds_fill(&ds);
   bool separate = df != VK_FORMAT_S8_UINT && rng() % 4 == 0 &&
                   !(ds.format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT);
   if (separate) {
      surf_alloc(&s8, VK_FORMAT_S8_UINT, samples);
      fb.stencil = s8;
   }
   if (ds.format->aspects & VK_IMAGE_ASPECT_DEPTH_BIT)
      fb.depth = ds;
   if (ds.format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT)
      fb.stencil = ds;
   VkFormat dfmt = fb.depth.base ? fb.depth.vk_format : VK_FORMAT_UNDEFINED;
   VkFormat sfmt = fb.stencil.base ? fb.stencil.vk_format : VK_FORMAT_UNDEFINED;

   struct shale_fb_ds_key key;
   bool have_key = sr_fragment_backend_ds_key(&st, no_fs ? 0 : W, dfmt, sfmt, samples, &key);
   bool ok = false;
   if (!have_key)
      goto out;
   shale_fb_ds_fn fn = NULL;
   char msg[256] = "";
   enum sc_result r = sc_compile_fragment_ds(c, &key, &fn, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && fn, "ds state %u: compile: %s (%s)", id, sc_result_string(r), msg);
   if (r != SC_SUCCESS)
      goto out;
   last_ds_key = key;
   shale_fb_ds_fn again = NULL;
   r = sc_compile_fragment_ds(c, &key, &again, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && again == fn, "ds state %u: the cached routine differs", id);
   ok = true;

   /* The C reference draws into copies. */
   struct sr_framebuffer fb_c = fb;
   uint8_t *ds_c = malloc(surf_size(&ds)), *s8_c = separate ? malloc(surf_size(&s8)) : NULL;
   memcpy(ds_c, ds.base, surf_size(&ds));
   if (fb_c.depth.base)
      fb_c.depth.base = ds_c;
   if (fb_c.stencil.base)
      fb_c.stencil.base = separate ? s8_c : ds_c;
   if (separate)
      memcpy(s8_c, s8.base, surf_size(&s8));

   struct sr_draw_state st_jit = st;
   st_jit.fb_ds = fn;
   st_jit.fb_ds_key = key;
   struct sr_fragment_state fs_jit, fs_c;
   sr_fragment_setup(&fs_jit, &fb, &st_jit);
   sr_fragment_setup(&fs_c, &fb_c, &st);
   CHECK(fs_jit.compiled_ds == fn && fs_jit.ds_width == W, "ds state %u: routine not used", id);
   CHECK(fs_c.compiled_ds == NULL, "ds state %u: compiled code without a key", id);
   bool use_fd = !fs_c.early && st.fs_io.writes_frag_depth;
   uint32_t all = (1u << samples) - 1;

   for (uint32_t round = 0; round < rounds && fs_jit.compiled_ds; round++) {
      struct sr_prim prim;
      memset(&prim, 0, sizeof(prim));
      prim.front_facing = rng() % 2;
      prim.z.a = rng() % 4 ? (float)((int)(rng() % 2001) - 1000) / 20000.0f : rand_value();
      prim.z.b = rng() % 4 ? (float)((int)(rng() % 2001) - 1000) / 20000.0f : rand_value();
      prim.z.c = rand_depth();
      prim.depth_min = rng() % 2 ? 0.0f : rand_depth();
      prim.depth_max = rng() % 2 ? 1.0f : rand_depth();
      struct shale_fb_prim fp = {prim.z, prim.depth_min, prim.depth_max, prim.front_facing};
      int32_t x[SHALE_MAX_SIMD_WIDTH], y[SHALE_MAX_SIMD_WIDTH];
      uint32_t cov[SHALE_MAX_SIMD_WIDTH], cov_c[SHALE_MAX_SIMD_WIDTH];
      float fd[SHALE_MAX_SIMD_WIDTH];
      rand_lanes(W, all, x, y, cov, fd);
      uint32_t rows = 0;   /* the routine's rows promise (shader_abi.h) */
      if (round % 3 == 1) {
         /* Lanes without coverage on a covered lane's pixel (sr_tile.c
          * pads its calls so): they must change nothing. */
         for (uint32_t i = 1; i < W; i++)
            if (!cov[i]) {
               x[i] = x[0];
               y[i] = y[0];
            }
      } else if (round % 3 == 2) {
         /* W / 4 rows of a block (sr_tile.c's early tests): lane i at
          * (x0 + (i & 3), y0 + (i >> 2)), the coverage as drawn (some
          * lanes none), promised three times in four; every lane covered
          * with every sample one time in four. */
         const int32_t x0 = x[0] % (FB_W - 3), y0 = y[0] % (FB_H - (int32_t)W / 4 + 1);
         const bool whole = round % 12 == 2;
         for (uint32_t i = 0; i < W; i++) {
            x[i] = x0 + (int32_t)(i & 3);
            y[i] = y0 + (int32_t)(i >> 2);
            if (whole)
               cov[i] = all;
         }
         rows = round % 12 != 11;
      }
      uint32_t layer = rng() % FB_LAYERS;
      uint64_t passed_c = 0;
      for (uint32_t i = 0; i < W; i++)
         cov_c[i] = cov[i] ? sr_fragment_depth_stencil(&fs_c, &prim, layer, x[i], y[i], cov[i],
                                                       use_fd ? &fd[i] : NULL, &passed_c)
                           : 0;
      /* With the rows promise the routine reads x[0] and y[0] only: the
       * other lanes' entries it gets are far outside the attachment. */
      int32_t jx[SHALE_MAX_SIMD_WIDTH], jy[SHALE_MAX_SIMD_WIDTH];
      for (uint32_t i = 0; i < W; i++) {
         jx[i] = rows && i ? 1 << 20 : x[i];
         jy[i] = rows && i ? 1 << 20 : y[i];
      }
      uint32_t passed = fs_jit.compiled_ds(&fs_jit.fb_ctx, &fp, layer, jx, jy, cov, fd, rows);
      CHECK(passed == passed_c, "ds state %u round %u: %u samples passed, C: %u", id, round,
            passed, (unsigned)passed_c);
      for (uint32_t i = 0; i < W; i++)
         CHECK(cov[i] == cov_c[i], "ds state %u round %u lane %u: coverage %x, C: %x", id, round,
               i, cov[i], cov_c[i]);
      const struct sr_surface *sj[2] = {&ds, separate ? &s8 : NULL};
      const uint8_t *sc_[2] = {ds_c, s8_c};
      for (int k = 0; k < 2; k++) {
         if (!sj[k] || !memcmp(sj[k]->base, sc_[k], surf_size(sj[k])))
            continue;
         size_t i = 0;
         while (sj[k]->base[i] == sc_[k][i])
            i++;
         CHECK(false,
               "ds state %u round %u (format %u, W %u, samples %u, depth test %u write %u op %u "
               "bounds %u frag_depth %u clamp %u, stencil %u ops %u %u %u %u / %u %u %u %u, "
               "front %u): %s byte %zu is %02x, C has %02x",
               id, round, df, W, samples, key.depth_test, key.depth_write, key.depth_compare,
               key.depth_bounds, key.frag_depth, key.depth_clamp, key.stencil_format,
               key.stencil[0].compare_op, key.stencil[0].fail_op, key.stencil[0].pass_op,
               key.stencil[0].depth_fail_op, key.stencil[1].compare_op, key.stencil[1].fail_op,
               key.stencil[1].pass_op, key.stencil[1].depth_fail_op, prim.front_facing,
               k ? "stencil" : "depth", i, sj[k]->base[i], sc_[k][i]);
         memcpy(sj[k]->base, sc_[k], surf_size(sj[k]));
         rounds = round + 1;
      }
   }
   free(ds_c);
   free(s8_c);
out:
   free(ds.base);
   if (separate)
      free(s8.base);
   return ok;
}

/* Back-end routines through blobs (what VkPipelineCache data carries):
 * a routine serialized from compiler c and linked into a fresh compiler
 * is found there without compiling and matches the C back end bit for bit
 * on the same state; damaged blobs and blobs of another key are refused. */
static void test_blobs(struct sc_compiler *c)
{
   uint32_t linked = 0, ds_linked = 0;
   for (uint32_t s = 1000; s < 1012; s++) {
      const bool ds = s % 2 != 0;
      uint32_t seed = rng_state;
      bool ok = ds ? run_ds_state(c, s, 4) : run_state(c, s, 4);
      if (!ok)
         continue;
      const struct shale_fb_key kc = last_key;
      const struct shale_fb_ds_key kd = last_ds_key;
      const struct shale_fb_key *key = ds ? NULL : &kc;
      const struct shale_fb_ds_key *ds_key = ds ? &kd : NULL;
      size_t size = 0;
      CHECK(sc_backend_serialize(c, key, ds_key, NULL, &size) == SC_SUCCESS && size > 80,
            "blob %u: size %zu", s, size);
      uint8_t *blob = malloc(size);
      size_t small = size - 1;
      CHECK(sc_backend_serialize(c, key, ds_key, blob, &small) == SC_ERROR_TOO_SMALL,
            "blob %u: a short buffer is refused", s);
      CHECK(sc_backend_serialize(c, key, ds_key, blob, &size) == SC_SUCCESS, "blob %u", s);
      uint8_t k1[SC_COMPILE_KEY_SIZE], k2[SC_COMPILE_KEY_SIZE];
      CHECK(sc_backend_cache_key(c, key, ds_key, k1) == SC_SUCCESS, "blob %u: cache key", s);

      struct sc_compiler *c2 = NULL;
      CHECK(sc_compiler_create(&c2) == SC_SUCCESS, "second compiler");
      CHECK(sc_backend_cache_key(c2, key, ds_key, k2) == SC_SUCCESS && !memcmp(k1, k2, sizeof(k1)),
            "blob %u: the same cache key in another compiler", s);
      CHECK(!sc_backend_compiled(c2, key, ds_key), "blob %u: compiled in a fresh compiler", s);
      char msg[256];
      /* Damage: the object's last byte, a truncation, another key. */
      blob[size - 1] ^= 0x40;
      CHECK(sc_backend_deserialize(c2, key, ds_key, blob, size, msg, sizeof(msg)) ==
               SC_ERROR_INVALID_BLOB, "blob %u: a damaged blob loads", s);
      blob[size - 1] ^= 0x40;
      CHECK(sc_backend_deserialize(c2, key, ds_key, blob, size - 16, msg, sizeof(msg)) ==
               SC_ERROR_INVALID_BLOB, "blob %u: a truncated blob loads", s);
      struct shale_fb_key other = kc;
      struct shale_fb_ds_key other_ds = kd;
      other.samples ^= 2;
      other_ds.samples ^= 2;
      CHECK(sc_backend_deserialize(c2, ds ? NULL : &other, ds ? &other_ds : NULL, blob, size,
                                   msg, sizeof(msg)) == SC_ERROR_INVALID_BLOB,
            "blob %u: loads for another key", s);
      CHECK(sc_backend_deserialize(c2, ds ? &kc : NULL, ds ? NULL : &kd, blob,
                                   size, msg, sizeof(msg)) == SC_ERROR_INVALID_BLOB,
            "blob %u: loads as the other kind of routine", s);
      CHECK(!sc_backend_compiled(c2, key, ds_key), "blob %u: a refused blob left a routine", s);
      enum sc_result r = sc_backend_deserialize(c2, key, ds_key, blob, size, msg, sizeof(msg));
      CHECK(r == SC_SUCCESS && sc_backend_compiled(c2, key, ds_key), "blob %u: load: %s (%s)", s,
            sc_result_string(r), msg);
      free(blob);
      /* The same state again, now with c2: its routine is the linked one. */
      if (r == SC_SUCCESS) {
         rng_state = seed;
         bool again = ds ? run_ds_state(c2, s, 40) : run_state(c2, s, 40);
         CHECK(again, "blob %u: the state again", s);
         CHECK(ds ? !memcmp(&last_ds_key, ds_key, sizeof(*ds_key))
                  : !memcmp(&last_key, key, sizeof(*key)),
               "blob %u: the state again gave another key", s);
         if (ds)
            ds_linked++;
         else
            linked++;
      }
      sc_compiler_destroy(c2);
   }
   CHECK(linked >= 3 && ds_linked >= 3, "only %u colour and %u depth/stencil routines linked",
         linked, ds_linked);
}

/* A colour routine of W lanes for one single-sample attachment of `fmt`
 * (dummy_fs writing Location 0, every component), compiled (a CHECK
 * names `what` where it fails), with the draw state that uses it and a
 * framebuffer of FB_W x FB_H x FB_LAYERS holding that attachment
 * (allocated: the caller frees fb->color[0].base). NULL, and nothing
 * allocated, where it does not compile. */
static shale_fb_color_fn color_routine(struct sc_compiler *c, uint32_t W, VkFormat fmt,
                                       const char *what, struct sr_draw_state *st,
                                       struct sr_framebuffer *fb)
{
   memset(st, 0, sizeof(*st));
   st->fs = dummy_fs;
   st->fs_width = W;
   st->samples = 1;
   st->sample_mask = ~0u;
   st->fs_io.outputs_written = 1;
   st->blend[0].write_mask = 0xf;
   struct shale_fb_key key;
   shale_fb_color_fn fn = NULL;
   char msg[256] = "";
   CHECK(sr_fragment_backend_key(st, W, 1, &fmt, 1, &key) &&
            sc_compile_fragment_backend(c, &key, &fn, msg, sizeof(msg)) == SC_SUCCESS && fn,
         "%s: compile (%s)", what, msg);
   if (!fn)
      return NULL;
   st->fb_color = fn;
   st->fb_key = key;
   memset(fb, 0, sizeof(*fb));
   fb->color_count = 1;
   fb->width = FB_W;
   fb->height = FB_H;
   fb->layers = FB_LAYERS;
   fb->samples = 1;
   surf_alloc(&fb->color[0], fmt, 1);
   return fn;
}

/* The compiled sRGB encoding (llvm_backend.c srgb8: a bucket of floats,
 * then at most one threshold) against sr_srgb8_encode's search of the
 * thresholds: every float within 2 ulps of each threshold, both ends of
 * every bucket, special values and 200000 random floats of [2^-15, 1.125),
 * written by an R8G8B8A8_SRGB routine as R, G and B. */
static void test_srgb_encode(struct sc_compiler *c)
{
   enum { W = 8 };
   struct sr_draw_state st;
   struct sr_framebuffer fb;
   const shale_fb_color_fn fn = color_routine(c, W, VK_FORMAT_R8G8B8A8_SRGB, "sRGB", &st, &fb);
   if (!fn)
      return;
   struct sr_fragment_state fs;
   sr_fragment_setup(&fs, &fb, &st);
   CHECK(fs.compiled == fn, "sRGB: the routine is not used");

   /* The values: bits of positive floats, then specials. */
   size_t cap = 260000, n = 0;
   uint32_t *v = malloc(cap * sizeof(*v));
   for (unsigned k = 1; k < 256; k++) {
      uint32_t lo = 0, hi = 0x3f800000u;   /* the smallest float encoding to k */
      while (lo < hi) {
         uint32_t mid = lo + (hi - lo) / 2;
         float f;
         memcpy(&f, &mid, 4);
         if (sr_srgb8_encode(f) >= k)
            hi = mid;
         else
            lo = mid + 1;
      }
      for (uint32_t d = 0; d < 5; d++)
         v[n++] = lo - 2 + d;
   }
   for (uint32_t i = 0; i < SHALE_SRGB8_BUCKETS; i++) {
      uint32_t start = (SHALE_SRGB8_BUCKET_FIRST + i) << 16;
      v[n++] = start;
      v[n++] = start - 1;
      v[n++] = start + 0xffffu;
   }
   static const uint32_t special[] = {0, 0x80000000u, 0x7fc00000u, 0xffc00000u, 0x7f800000u,
                                      0xff800000u, 1, 0x3f800000u, 0x3f800001u, 0x3f7fffffu,
                                      0x40000000u, 0xbf800000u, 0x7f7fffffu, 0x38ffffffu};
   for (unsigned i = 0; i < sizeof(special) / sizeof(special[0]); i++)
      v[n++] = special[i];
   while (n < cap - 3 * W)
      v[n++] = 0x38000000u + rng() % (0x3f900000u - 0x38000000u);
   while (n % (3 * W))
      v[n++] = 0;

   _Alignas(64) uint32_t outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 * SHALE_MAX_SIMD_WIDTH];
   memset(outputs, 0, sizeof(outputs));
   int32_t x[W], y[W];
   uint32_t cov[W];
   for (uint32_t i = 0; i < W; i++) {
      x[i] = (int32_t)i;
      y[i] = 0;
      cov[i] = 1;
   }
   uint32_t bad = 0;
   for (size_t at = 0; at < n; at += 3 * W) {
      for (uint32_t ch = 0; ch < 3; ch++)
         for (uint32_t i = 0; i < W; i++)
            outputs[ch * W + i] = v[at + ch * W + i];
      fn(&fs.fb_ctx, 0, x, y, cov, outputs, 0);
      for (uint32_t ch = 0; ch < 3; ch++)
         for (uint32_t i = 0; i < W; i++) {
            float f;
            memcpy(&f, &v[at + ch * W + i], 4);
            uint8_t got = fb.color[0].base[4 * i + ch], want = sr_srgb8_encode(f);
            if (got != want && bad++ < 5)
               CHECK(false, "sRGB: %a (bits %08x) encodes to %u, C: %u", f, v[at + ch * W + i],
                     got, want);
         }
   }
   CHECK(bad == 0, "sRGB: %u of %zu values differ", bad, n);
   free(v);
   free(fb.color[0].base);
}

/* Bits of the floats within 3 ulps of each UNORM rounding boundary
 * (k - 0.5) / max for k = 1 .. ends and max - ends + 1 .. max (all of them
 * where 2 ends >= max), then specials; n a multiple of `mult` (zeros
 * after). */
static uint32_t *boundary_values(uint32_t max, uint32_t ends, uint32_t mult, size_t *count)
{
   static const uint32_t special[] = {0, 0x80000000u, 1, 0x3f7fffffu, 0x3f800000u,
                                      0x3f800001u, 0x3effffffu, 0x3f000000u, 0x3f000001u,
                                      0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u,
                                      0xbf800000u, 0x40000000u, 0x00800000u};
   size_t nspecial = sizeof(special) / sizeof(special[0]);
   size_t cap = (size_t)(2 * ends < max ? 2 * ends : max) * 7 + nspecial + mult, n = 0;
   uint32_t *v = malloc(cap * sizeof(*v));
   for (uint32_t k = 1; k <= max; k++) {
      if (k > ends && k <= max - ends)
         k = max - ends + 1;
      float b = (float)((k - 0.5) / max);
      uint32_t bits;
      memcpy(&bits, &b, 4);
      for (uint32_t d = 0; d < 7; d++)
         v[n++] = bits - 3 + d;
   }
   for (size_t i = 0; i < nspecial; i++)
      v[n++] = special[i];
   while (n % mult)
      v[n++] = 0;
   *count = n;
   return v;
}

/* A single-sample draw state of W lanes whose shader writes FragDepth,
 * depth test ALWAYS and written: the depth routines' value checks. */
static void frag_depth_always(struct sr_draw_state *st, uint32_t W)
{
   memset(st, 0, sizeof(*st));
   st->fs = dummy_fs;
   st->fs_width = W;
   st->samples = 1;
   st->sample_mask = ~0u;
   st->fs_io.outputs_written = 1;
   st->fs_io.writes_frag_depth = 1;
   st->depth_test = 1;
   st->depth_write = 1;
   st->depth_compare = VK_COMPARE_OP_ALWAYS;
}

/* The 16-lane UNORM roundings (llvm_backend.h floor_fma16: with AVX-512
 * one fma rounded toward negative infinity, elsewhere the general forms)
 * at every float within 3 ulps of each rounding boundary (D24: of the
 * first and last 40000 values) and special values: R8G8B8A8_UNORM colour
 * writes against su_pack_float, and D16 and D24 depth written from
 * FragDepth (test ALWAYS) against the C back end. */
static void test_unorm_rounding(struct sc_compiler *c)
{
   enum { W = 16 };
   int32_t x[W], y[W];
   uint32_t cov[W];
   for (uint32_t i = 0; i < W; i++) {
      x[i] = (int32_t)(i % FB_W);
      y[i] = (int32_t)(i / FB_W);
      cov[i] = 1;
   }

   struct sr_draw_state st;
   struct sr_framebuffer fb;
   const shale_fb_color_fn fn = color_routine(c, W, VK_FORMAT_R8G8B8A8_UNORM, "UNORM8", &st, &fb);
   if (fn) {
      struct sr_fragment_state fs;
      sr_fragment_setup(&fs, &fb, &st);
      CHECK(fs.compiled == fn, "UNORM8: the routine is not used");
      size_t n;
      uint32_t *v = boundary_values(255, 255, 4 * W, &n);
      _Alignas(64) uint32_t outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 * SHALE_MAX_SIMD_WIDTH];
      memset(outputs, 0, sizeof(outputs));
      uint32_t bad = 0;
      for (size_t at = 0; at < n && fs.compiled == fn; at += 4 * W) {
         memcpy(outputs, &v[at], 4 * W * sizeof(uint32_t));
         fn(&fs.fb_ctx, 0, x, y, cov, outputs, 0);
         for (uint32_t i = 0; i < W; i++) {
            float rgba[4];
            for (uint32_t ch = 0; ch < 4; ch++)
               memcpy(&rgba[ch], &v[at + ch * W + i], 4);
            uint8_t want[4];
            su_pack_float(fb.color[0].format, rgba, want);
            const uint8_t *got = fb.color[0].base + y[i] * fb.color[0].row_pitch + 4 * x[i];
            for (uint32_t ch = 0; ch < 4; ch++)
               if (got[ch] != want[ch] && bad++ < 5)
                  CHECK(false, "UNORM8: %a (bits %08x) writes %u, C: %u", rgba[ch],
                        v[at + ch * W + i], got[ch], want[ch]);
         }
      }
      CHECK(bad == 0, "UNORM8: %u of %zu values differ", bad, n);
      free(v);
      free(fb.color[0].base);
   }

   static const VkFormat depth_formats[] = {VK_FORMAT_D16_UNORM, VK_FORMAT_X8_D24_UNORM_PACK32};
   char msg[256] = "";
   for (unsigned f = 0; f < 2; f++) {
      frag_depth_always(&st, W);
      memset(&fb, 0, sizeof(fb));
      fb.width = FB_W;
      fb.height = FB_H;
      fb.layers = FB_LAYERS;
      fb.samples = 1;
      surf_alloc(&fb.depth, depth_formats[f], 1);
      struct shale_fb_ds_key dkey;
      shale_fb_ds_fn dfn = NULL;
      CHECK(sr_fragment_backend_ds_key(&st, W, depth_formats[f], VK_FORMAT_UNDEFINED, 1, &dkey) &&
               sc_compile_fragment_ds(c, &dkey, &dfn, msg, sizeof(msg)) == SC_SUCCESS && dfn,
            "depth format %u: compile (%s)", depth_formats[f], msg);
      if (!dfn) {
         free(fb.depth.base);
         continue;
      }
      struct sr_framebuffer fb_c = fb;
      size_t size = surf_size(&fb.depth);
      fb_c.depth.base = malloc(size);
      memcpy(fb_c.depth.base, fb.depth.base, size);
      struct sr_draw_state st_jit = st;
      st_jit.fb_ds = dfn;
      st_jit.fb_ds_key = dkey;
      struct sr_fragment_state fs_jit, fs_c;
      sr_fragment_setup(&fs_jit, &fb, &st_jit);
      sr_fragment_setup(&fs_c, &fb_c, &st);
      CHECK(fs_jit.compiled_ds == dfn && fs_c.compiled_ds == NULL && !fs_c.early,
            "depth format %u: the routine is not used", depth_formats[f]);
      size_t n;
      uint32_t *v = boundary_values(depth_formats[f] == VK_FORMAT_D16_UNORM ? 65535u : 16777215u,
                                    40000, W, &n);
      struct sr_prim prim;
      memset(&prim, 0, sizeof(prim));
      prim.depth_max = 1.0f;
      struct shale_fb_prim fp = {prim.z, prim.depth_min, prim.depth_max, prim.front_facing};
      uint32_t bad = 0;
      for (size_t at = 0; at < n && fs_jit.compiled_ds == dfn; at += W) {
         float fd[W];
         memcpy(fd, &v[at], sizeof(fd));
         uint32_t cov_j[W], cov_c[W];
         uint64_t passed_c = 0;
         for (uint32_t i = 0; i < W; i++) {
            cov_j[i] = cov[i];
            cov_c[i] = sr_fragment_depth_stencil(&fs_c, &prim, 0, x[i], y[i], cov[i], &fd[i],
                                                 &passed_c);
         }
         dfn(&fs_jit.fb_ctx, &fp, 0, x, y, cov_j, fd, 0);
         if (memcmp(cov_j, cov_c, sizeof(cov_j)) && bad++ < 5)
            CHECK(false, "depth format %u: values %a .. %a: coverage differs from C's",
                  depth_formats[f], fd[0], fd[W - 1]);
         if (memcmp(fb.depth.base, fb_c.depth.base, size) && bad++ < 5) {
            size_t i = 0;
            while (fb.depth.base[i] == fb_c.depth.base[i])
               i++;
            CHECK(false, "depth format %u: values %a .. %a: byte %zu is %02x, C has %02x",
                  depth_formats[f], fd[0], fd[W - 1], i, fb.depth.base[i], fb_c.depth.base[i]);
            memcpy(fb.depth.base, fb_c.depth.base, size);
         }
      }
      CHECK(bad == 0, "depth format %u: %u of %zu batches differ", depth_formats[f], bad, n / W);
      free(v);
      free(fb.depth.base);
      free(fb_c.depth.base);
   }
}

/* The blend's 8-bit UNORM destination decode (llvm_backend.c
 * unorm8_value): fma(x, hi, x * lo) with the routine's two constants is
 * x / 255.0f for each of the 256 bytes; and every destination byte in
 * every channel, blended with SRC_ALPHA / ONE_MINUS_SRC_ALPHA (scene (b)'s
 * state), the same swapped, DST_ALPHA / ONE_MINUS_DST_ALPHA (those three
 * without the clamp to 255: the bound checked over every a first),
 * ONE / ONE_MINUS_SRC_ALPHA, DST_COLOR / ZERO and ONE / ONE into
 * R8G8B8A8 and B8G8R8A8 UNORM under random, special and near-byte source
 * values, leaves the bytes the C reference does. */
static void test_unorm8_blend(struct sc_compiler *c)
{
   enum { W = 8 };
   for (uint32_t x = 0; x < 256; x++) {
      const float xf = (float)x, t = xf * -0x1.fdfdfep-33f;
      const float q = fmaf(xf, 0x1.010102p-8f, t);
      CHECK(q == xf / 255.0f, "decode of %u: %a, not %a", x, q, xf / 255.0f);
   }
   /* llvm_backend.c unorm8_add_bounded: ADD with factors a and 1 - a of
    * one a in [0, 1] leaves out the clamp to 255, as the sum stays below
    * 255.5. The sum grows with the source and the destination byte, so
    * its largest values are at s = 1 and byte 255: every float a from
    * 2^-10 to 1 (below, a * 255 < 0.25 and the rest at most 255 (1 +
    * 2^-24)^2), as sr_blend_unorm8 computes it. */
   float top = 0.0f;
   for (uint32_t bits = 0x3a800000u; bits <= 0x3f800000u; bits++) {
      float a;
      memcpy(&a, &bits, 4);
      const float v = fmaf(1.0f, a * 255.0f, 255.0f * (1.0f - a));
      top = v > top ? v : top;
   }
   CHECK(top < 255.5f, "UNORM8 blend: a / 1 - a sum up to %a", top);
   printf("UNORM8 blend: a / 1 - a sums up to %.9g\n", top);
   /* Factors (source, destination) and op, colour and alpha alike. */
   static const uint32_t pairs[][3] = {
      {VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_OP_ADD},
      {VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_OP_ADD},
      {VK_BLEND_FACTOR_DST_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA, VK_BLEND_OP_ADD},
      {VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_OP_ADD},
      {VK_BLEND_FACTOR_DST_COLOR, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD},
      {VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_ADD},
      {VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
       VK_BLEND_OP_REVERSE_SUBTRACT},
      {VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_DST_COLOR, VK_BLEND_OP_SUBTRACT},
      {VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_MIN},
      {VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_MAX},
   };
   enum { NPAIRS = sizeof(pairs) / sizeof(pairs[0]) };
   /* A8B8G8R8_UNORM_PACK32: the one-word form's bytes (llvm_backend.c
    * FB_WORD), the others the 8-bit form's. */
   static const VkFormat fmts[] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                   VK_FORMAT_A8B8G8R8_UNORM_PACK32};
   static const uint8_t byte_of[3][4] = {{0, 1, 2, 3}, {2, 1, 0, 3}, {0, 1, 2, 3}};
   uint32_t bad = 0, calls = 0, imprecise = 0, compared = 0, off_nearest = 0;
   double worst = 0.0;
   for (unsigned fi = 0; fi < 3; fi++)
      for (unsigned pi = 0; pi < NPAIRS; pi++) {
         struct sr_draw_state st;
         memset(&st, 0, sizeof(st));
         st.fs = dummy_fs;
         st.fs_width = W;
         st.samples = 1;
         st.sample_mask = ~0u;
         st.fs_io.outputs_written = 1;
         struct sr_blend_attachment *b = &st.blend[0];
         b->blend_enable = true;
         b->write_mask = 0xf;
         b->src_color = b->src_alpha = pairs[pi][0];
         b->dst_color = b->dst_alpha = pairs[pi][1];
         b->color_op = b->alpha_op = pairs[pi][2];
         VkFormat fmt = fmts[fi];
         struct shale_fb_key key;
         shale_fb_color_fn fn = NULL;
         char msg[256] = "";
         CHECK(sr_fragment_backend_key(&st, W, 1, &fmt, 1, &key) &&
                  sc_compile_fragment_backend(c, &key, &fn, msg, sizeof(msg)) == SC_SUCCESS && fn,
               "UNORM8 blend: compile (%s)", msg);
         if (!fn)
            continue;
         struct sr_draw_state st_c = st;
         st.fb_color = fn;
         st.fb_key = key;
         struct sr_framebuffer fb, fb_c;
         memset(&fb, 0, sizeof(fb));
         fb.color_count = 1;
         fb.width = FB_W;
         fb.height = FB_H;
         fb.layers = FB_LAYERS;
         fb.samples = 1;
         surf_alloc(&fb.color[0], fmt, 1);
         fb_c = fb;
         const size_t size = surf_size(&fb.color[0]);
         fb_c.color[0].base = malloc(size);
         struct sr_fragment_state fs, fs_c;
         sr_fragment_setup(&fs, &fb, &st);
         sr_fragment_setup(&fs_c, &fb_c, &st_c);
         CHECK(fs.compiled == fn && !fs_c.compiled, "UNORM8 blend: the routines");
         _Alignas(64) uint32_t outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 * SHALE_MAX_SIMD_WIDTH];
         memset(outputs, 0, sizeof(outputs));
         int32_t x[W], y[W];
         uint32_t cov[W];
         for (uint32_t i = 0; i < W; i++) {
            x[i] = (int32_t)i;
            y[i] = 0;
            cov[i] = 1;
         }
         for (uint32_t round = 0; round < 48; round++)
            for (uint32_t d0 = 0; d0 < 256; d0 += W) {
               for (uint32_t i = 0; i < W; i++) {
                  uint8_t *p = fb.color[0].base + 4 * i;
                  for (uint32_t ch = 0; ch < 4; ch++)
                     p[ch] = (uint8_t)(d0 + i + 67 * ch + 5 * round);
               }
               memcpy(fb_c.color[0].base, fb.color[0].base, size);
               uint8_t before[4 * W];
               memcpy(before, fb.color[0].base, sizeof(before));
               for (uint32_t i = 0; i < 4 * W; i++) {
                  float v;
                  if (round < 16)
                     v = rand_value();
                  else if (round < 32)   /* near a byte's value */
                     v = (float)(rng() % 256) / 255.0f + (float)((int)(rng() % 9) - 4) * 0x1p-24f;
                  else
                     v = (float)(rng() % 100001) / 100000.0f;
                  memcpy(&outputs[i], &v, 4);
               }
               sr_fragment_color(&fs_c, 0, x, y, cov, W, outputs, W);
               fn(&fs.fb_ctx, 0, x, y, cov, outputs, 0);
               calls++;
               if (memcmp(fb.color[0].base, fb_c.color[0].base, size) && bad++ < 5)
                  CHECK(false, "UNORM8 blend: format %u factors %u %u round %u first byte %u "
                        "differs from C", fmt, pairs[pi][0], pairs[pi][1], round, d0);
               /* Against exact arithmetic (double; the factors' values
                * exact): the byte within 0.5 + 1e-4 of the exact result
                * times 255 (sr_blend_unorm8's statement), so the nearest
                * byte, or a neighbour only within 1e-4 of a midpoint. */
               for (uint32_t i = 0; i < W; i++) {
                  double sv[4], dv[4];
                  bool snan[4];
                  for (uint32_t ch = 0; ch < 4; ch++) {
                     float v;
                     memcpy(&v, &outputs[ch * W + i], 4);
                     /* fminf / fmaxf give a signaling NaN back (quiet). */
                     snan[ch] = isnan(v) && !(outputs[ch * W + i] & 0x400000u);
                     sv[ch] = v < 0.0f ? 0.0 : v > 1.0f ? 1.0 : (double)v;   /* NaN stays */
                     dv[ch] = before[4 * i + byte_of[fi][ch]] / 255.0;
                  }
                  for (uint32_t ch = 0; ch < 4; ch++) {
                     double f2[2];
                     for (int side = 0; side < 2; side++) {
                        switch (pairs[pi][side]) {
                        case VK_BLEND_FACTOR_SRC_ALPHA: f2[side] = sv[3]; break;
                        case VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA: f2[side] = 1.0 - sv[3]; break;
                        case VK_BLEND_FACTOR_DST_COLOR: f2[side] = dv[ch]; break;
                        case VK_BLEND_FACTOR_DST_ALPHA: f2[side] = dv[3]; break;
                        case VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA: f2[side] = 1.0 - dv[3]; break;
                        case VK_BLEND_FACTOR_ZERO: f2[side] = 0.0; break;
                        default: f2[side] = 1.0; break;
                        }
                     }
                     double e;
                     switch (pairs[pi][2]) {
                     case VK_BLEND_OP_ADD: e = sv[ch] * f2[0] + dv[ch] * f2[1]; break;
                     case VK_BLEND_OP_SUBTRACT: e = sv[ch] * f2[0] - dv[ch] * f2[1]; break;
                     case VK_BLEND_OP_REVERSE_SUBTRACT: e = dv[ch] * f2[1] - sv[ch] * f2[0]; break;
                     case VK_BLEND_OP_MIN: e = snan[ch] ? NAN : fmin(sv[ch], dv[ch]); break;
                     default: e = snan[ch] ? NAN : fmax(sv[ch], dv[ch]); break;
                     }
                     /* NaN results convert to 0. */
                     e = isnan(e) ? 0.0 : e < 0.0 ? 0.0 : e > 1.0 ? 255.0 : e * 255.0;
                     const double got = fb.color[0].base[4 * i + byte_of[fi][ch]];
                     const double err = fabs(got - e);
                     compared++;
                     worst = err > worst ? err : worst;
                     off_nearest += got != floor(e + 0.5);
                     if (!(err <= 0.5 + 1e-4) && imprecise++ < 5)
                        CHECK(false, "UNORM8 blend: format %u factors %u %u op %u: %g, exact %.9g",
                              fmt, pairs[pi][0], pairs[pi][1], pairs[pi][2], got, e);
                  }
               }
            }
         free(fb.color[0].base);
         free(fb_c.color[0].base);
      }
   CHECK(bad == 0 && calls == 3 * NPAIRS * 48 * 32, "UNORM8 blend: %u of %u calls differ", bad,
         calls);
   CHECK(imprecise == 0 && compared == calls * W * 4,
         "UNORM8 blend: %u of %u channels off the exact result by more than 0.5 + 1e-4",
         imprecise, compared);
   printf("UNORM8 blend: %u channels against exact arithmetic, worst %.6f of a unit, %u not the "
          "nearest byte (ties)\n", compared, worst, off_nearest);
}

/* SHALE_PERF_MAP (set in main before any compile): the map names the
 * compiled routine fn, and "objects" wrote its object. */
static void test_perf_map(struct sc_compiler *c)
{
   struct shale_fb_key key;
   memset(&key, 0, sizeof(key));
   key.width = 4;
   key.samples = 1;
   key.color_count = 1;
   key.color[0].write_mask = 0x5;   /* a key no other test compiles */
   key.color[0].format = VK_FORMAT_R8G8B8A8_UINT;
   shale_fb_color_fn fn = NULL;
   char msg[256] = "", path[64], line[256];
   CHECK(sc_compile_fragment_backend(c, &key, &fn, msg, sizeof(msg)) == SC_SUCCESS && fn,
         "perf map: compile (%s)", msg);
   snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
   FILE *f = fopen(path, "r");
   CHECK(f != NULL, "perf map: %s written", path);
   unsigned lines = 0, hits = 0, objects = 0;
   while (f && fgets(line, sizeof(line), f)) {
      unsigned long long start, size;
      char name[128];
      lines++;
      if (sscanf(line, "%llx %llx %127s", &start, &size, name) != 3)
         continue;
      const uintptr_t p = (uintptr_t)fn;
      if (p >= start && p < start + size && strstr(name, "shale_entry")) {
         hits++;
         /* The object of the same load: /tmp/shale-jit-<pid>-<n>-<start>.o. */
         unsigned id;
         char pattern[96];
         glob_t g;
         if (sscanf(name, "shale_jit%u_", &id) == 1) {
            snprintf(pattern, sizeof(pattern), "/tmp/shale-jit-%d-%u-*.o", (int)getpid(), id);
            if (glob(pattern, 0, NULL, &g) == 0) {
               for (size_t k = 0; k < g.gl_pathc; k++) {
                  FILE *o = fopen(g.gl_pathv[k], "rb");
                  unsigned char magic[4] = {0};
                  if (o) {
                     objects += fread(magic, 1, 4, o) == 4 && !memcmp(magic, "\x7f" "ELF", 4);
                     fclose(o);
                  }
               }
               globfree(&g);
            }
         }
      }
   }
   if (f)
      fclose(f);
   CHECK(lines >= 1 && hits == 1, "perf map: %u lines, %u name the routine's entry", lines, hits);
   CHECK(objects == 1, "perf map: the routine's object written (%u found)", objects);
}

/* Removes what SHALE_PERF_MAP wrote for this process. */
static void perf_map_cleanup(void)
{
   char path[64];
   snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
   unlink(path);
   snprintf(path, sizeof(path), "/tmp/shale-jit-%d-*.o", (int)getpid());
   glob_t g;
   if (glob(path, 0, NULL, &g) == 0) {
      for (size_t k = 0; k < g.gl_pathc; k++)
         unlink(g.gl_pathv[k]);
      globfree(&g);
   }
}

/* The code the spec's float -> UNORM conversion gives f for a maximum code
 * `max` ("Conversion from Floating-Point to Normalized Fixed-Point": f
 * clamped to [0, 1], times 2^b - 1, to one of the two nearest codes,
 * round to nearest recommended, 0.0 and 1.0 exact), as Shale chooses where
 * the spec leaves a choice: the nearest code, ties (f * max exactly k + 0.5)
 * up, NaN to 0 (su_pack_float). f * max is exact in double (at most 24 + 24
 * significant bits). *tie set where the value was a tie. Written from the
 * spec, not from su_pack_float or the back end. */
static uint32_t spec_unorm(float f, uint32_t max, bool *tie)
{
   *tie = false;
   if (isnan(f) || !(f > 0.0f))
      return 0;
   if (f >= 1.0f)
      return max;
   const double x = (double)f * (double)max;
   const double k = floor(x);
   if (x - k == 0.5)
      *tie = true;
   return (uint32_t)k + (x - k >= 0.5);
}

/* Floats around every code k of 0 .. max (all codes where ends is 0, else
 * the first and last `ends`): k / max and the rounding boundary
 * (k + 0.5) / max (each the nearest float, as bits) and the 2 floats on
 * either side of each, then specials; zeros after, up to a multiple of
 * mult. */
static uint32_t *code_values(uint32_t max, uint32_t ends, uint32_t mult, size_t *count)
{
   static const uint32_t special[] = {0, 0x80000000u, 1, 0x00800000u, 0x3f7fffffu, 0x3f800000u,
                                      0x3f800001u, 0x3f000000u, 0x7fc00000u, 0xffc00000u,
                                      0x7f800000u, 0xff800000u, 0xbf800000u, 0x40000000u,
                                      0x7f7fffffu, 0x80000001u};
   const size_t nspecial = sizeof(special) / sizeof(special[0]);
   const uint64_t codes = ends && 2ull * ends < max + 1ull ? 2ull * ends : max + 1ull;
   size_t cap = (size_t)codes * 10 + nspecial + mult, n = 0;
   uint32_t *v = malloc(cap * sizeof(*v));
   for (uint64_t k = 0; k <= max; k++) {
      if (ends && k == ends && k < (uint64_t)max + 1 - ends)
         k = (uint64_t)max + 1 - ends;
      const double at[2] = {(double)k / max, (k + 0.5) / max};
      for (int a = 0; a < 2; a++) {
         const float b = (float)at[a];
         uint32_t bits;
         memcpy(&bits, &b, 4);
         for (uint32_t d = 0; d < 5; d++)
            v[n++] = bits - 2 + d;   /* (k = 0: the negative side wraps to NaNs) */
      }
   }
   for (size_t i = 0; i < nspecial; i++)
      v[n++] = special[i];
   while (n % mult)
      v[n++] = 0;
   *count = n;
   return v;
}

/* Compiles a colour (key) or depth/stencil (ds_key) routine on a compiler
 * of its own with SHALE_DUMP_IR set and stderr sent to a file: returns
 * the dumped (optimized) IR, NULL when none came; the routine in *color or
 * *ds. */
static char *compile_with_ir(struct sc_compiler *c, const struct shale_fb_key *key,
                             const struct shale_fb_ds_key *ds_key, shale_fb_color_fn *color,
                             shale_fb_ds_fn *ds)
{
   char path[] = "/tmp/shale-ir-XXXXXX";
   const int fd = mkstemp(path);
   CHECK(fd >= 0, "IR file");
   if (fd < 0)
      return NULL;
   fflush(stderr);
   const int saved = dup(2);
   dup2(fd, 2);
   close(fd);
   setenv("SHALE_DUMP_IR", "1", 1);
   char msg[256] = "";
   enum sc_result r = key ? sc_compile_fragment_backend(c, key, color, msg, sizeof(msg))
                          : sc_compile_fragment_ds(c, ds_key, ds, msg, sizeof(msg));
   unsetenv("SHALE_DUMP_IR");
   fflush(stderr);
   dup2(saved, 2);
   close(saved);
   CHECK(r == SC_SUCCESS, "compile (%s)", msg);
   FILE *f = fopen(path, "rb");
   char *text = NULL;
   if (f) {
      fseek(f, 0, SEEK_END);
      const long size = ftell(f);
      fseek(f, 0, SEEK_SET);
      text = calloc(1, (size_t)(size > 0 ? size : 0) + 1);
      if (size > 0 && fread(text, 1, (size_t)size, f) != (size_t)size)
         text[0] = 0;
      fclose(f);
   }
   unlink(path);
   return text;
}

/* Whether IR calls floor_fma16's intrinsic (llvm_backend.h: the AVX-512
 * fma with embedded rounding 9, toward negative infinity). */
static bool ir_has_floor_fma16(const char *ir)
{
   for (const char *p = ir; p && (p = strstr(p, "call <16 x float> @llvm.x86.avx512.vfmadd.ps.512("));
        p++) {
      const char *end = strchr(p, '\n');
      const char *nine = strstr(p, ", i32 9)");
      if (nine && (!end || nine < end))
         return true;
   }
   return false;
}

/* Checks a routine's dumped IR (compile_with_ir; freed here): that there
 * is one, and where want_fma16 that it calls floor_fma16's intrinsic.
 * what names the routine kind in the messages ("format", "depth format"). */
static void check_routine_ir(char *ir, bool want_fma16, const char *what, uint32_t fmt,
                             uint32_t W)
{
   CHECK(ir && strstr(ir, "shale_backend"), "%s %u W %u: no IR dumped", what, fmt, W);
   if (want_fma16)
      CHECK(ir_has_floor_fma16(ir), "%s %u W %u: floor_fma16 is not used", what, fmt, W);
   free(ir);
}

/* UNORM colour writes and D16 / D24 depth writes of the compiled back end
 * against the spec's float -> UNORM conversion (spec_unorm, not
 * su_pack_float or the C back end): R8G8B8A8_UNORM and R16G16B16A16_UNORM
 * colour at W 8 and 16, each channel fed the floats at and around every
 * code and every rounding boundary (code_values: every code of both; D24
 * the first and last 30000 codes), infinities, NaNs, negatives, denormals
 * and values above 1; D16_UNORM and X8_D24_UNORM_PACK32 from FragDepth
 * (test ALWAYS, writes on) likewise, in batches called with rows 0 and 1
 * alternately. Every stored code compared exactly; the ties (f * max
 * exactly k + 0.5, where the spec allows either code) are counted and must
 * round up as Shale documents. On an AVX-512 host the W 16 routines of
 * the 8-bit colour and both depth formats must call floor_fma16's
 * intrinsic (their IR, dumped through SHALE_DUMP_IR), so this checks the
 * two-instruction rounding itself. A compiler of its own: every routine is
 * compiled here, never taken from the cache of an earlier test. */
static void test_unorm_spec(void)
{
   struct sc_compiler *c = NULL;
   CHECK(sc_compiler_create(&c) == SC_SUCCESS, "compiler");
   if (!c)
      return;
#if defined(__x86_64__)
   const bool avx512 = __builtin_cpu_supports("avx512f");
#else
   const bool avx512 = false;
#endif
   static const VkFormat colors[] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R16G16B16A16_UNORM};
   for (unsigned fi = 0; fi < 2; fi++) {
      const VkFormat fmt = colors[fi];
      const uint32_t bytes = fi ? 2 : 1, max = fi ? 65535u : 255u;
      for (uint32_t W = 8; W <= 16; W += 8) {
         /* Lanes in the rows layout (shader_abi.h), every sample covered. */
         int32_t x[16], y[16];
         uint32_t cov[16];
         for (uint32_t i = 0; i < W; i++) {
            x[i] = 2 + 2 * (int32_t)((i / 4) & 1) + (int32_t)(i & 1);
            y[i] = 1 + 2 * (int32_t)(i / 8) + (int32_t)((i >> 1) & 1);
            cov[i] = 1;
         }
         struct sr_draw_state st;
         memset(&st, 0, sizeof(st));
         st.fs = dummy_fs;
         st.fs_width = W;
         st.samples = 1;
         st.sample_mask = ~0u;
         st.fs_io.outputs_written = 1;
         st.blend[0].write_mask = 0xf;
         struct shale_fb_key key;
         shale_fb_color_fn fn = NULL;
         CHECK(sr_fragment_backend_key(&st, W, 1, &fmt, 1, &key), "format %u: key", fmt);
         check_routine_ir(compile_with_ir(c, &key, NULL, &fn, NULL),
                          avx512 && W == 16 && bytes == 1, "format", fmt, W);
         if (!fn)
            continue;
         st.fb_color = fn;
         st.fb_key = key;
         struct sr_framebuffer fb;
         memset(&fb, 0, sizeof(fb));
         fb.color_count = 1;
         fb.width = FB_W;
         fb.height = FB_H;
         fb.layers = FB_LAYERS;
         fb.samples = 1;
         surf_alloc(&fb.color[0], fmt, 1);
         struct sr_fragment_state fs;
         sr_fragment_setup(&fs, &fb, &st);
         CHECK(fs.compiled == fn, "format %u W %u: the routine is not used", fmt, W);
         size_t n;
         uint32_t *v = code_values(max, 0, 4 * W, &n);
         _Alignas(64) uint32_t outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 * SHALE_MAX_SIMD_WIDTH];
         memset(outputs, 0, sizeof(outputs));
         uint32_t bad = 0, ties = 0;
         for (size_t at = 0; at < n && fs.compiled == fn; at += 4 * W) {
            memcpy(outputs, &v[at], 4 * W * sizeof(uint32_t));
            fn(&fs.fb_ctx, 0, x, y, cov, outputs, (uint32_t)(at / (4 * W)) & 1);
            for (uint32_t i = 0; i < W; i++) {
               const uint8_t *t = fb.color[0].base + (size_t)y[i] * fb.color[0].row_pitch +
                                  (size_t)x[i] * 4 * bytes;
               for (uint32_t ch = 0; ch < 4; ch++) {
                  float f;
                  memcpy(&f, &v[at + ch * W + i], 4);
                  bool tie;
                  const uint32_t want = spec_unorm(f, max, &tie);
                  ties += tie;
                  uint32_t got = t[ch * bytes];
                  if (bytes == 2)
                     got |= (uint32_t)t[ch * bytes + 1] << 8;
                  if (got != want && bad++ < 5)
                     CHECK(false, "format %u W %u: %a (bits %08x) stored %u, the spec's %u", fmt,
                           W, f, v[at + ch * W + i], got, want);
               }
            }
         }
         CHECK(bad == 0, "format %u W %u: %u of %zu values not the spec's code", fmt, W, bad, n);
         /* 0.5 * 255 and 0.5 * 65535 (0x3f000000) are ties; more where
          * a boundary's float is exact (none for these maxima). */
         CHECK(ties >= 1, "format %u W %u: %u ties seen", fmt, W, ties);
         free(v);
         free(fb.color[0].base);
      }
   }

   static const VkFormat depths[] = {VK_FORMAT_D16_UNORM, VK_FORMAT_X8_D24_UNORM_PACK32};
   for (unsigned fi = 0; fi < 2; fi++) {
      const VkFormat fmt = depths[fi];
      const uint32_t max = fi ? 16777215u : 65535u;
      for (uint32_t W = 8; W <= 16; W += 8) {
         int32_t x[16], y[16];
         uint32_t cov[16];
         for (uint32_t i = 0; i < W; i++) {
            x[i] = 1 + (int32_t)(i & 3);   /* the depth routines' rows layout */
            y[i] = 2 + (int32_t)(i >> 2);
            cov[i] = 1;
         }
         struct sr_draw_state st;
         frag_depth_always(&st, W);
         struct shale_fb_ds_key dkey;
         shale_fb_ds_fn dfn = NULL;
         CHECK(sr_fragment_backend_ds_key(&st, W, fmt, VK_FORMAT_UNDEFINED, 1, &dkey),
               "depth format %u: key", fmt);
         check_routine_ir(compile_with_ir(c, NULL, &dkey, NULL, &dfn), avx512 && W == 16,
                          "depth format", fmt, W);
         if (!dfn)
            continue;
         st.fb_ds = dfn;
         st.fb_ds_key = dkey;
         struct sr_framebuffer fb;
         memset(&fb, 0, sizeof(fb));
         fb.width = FB_W;
         fb.height = FB_H;
         fb.layers = FB_LAYERS;
         fb.samples = 1;
         surf_alloc(&fb.depth, fmt, 1);
         struct sr_fragment_state fs;
         sr_fragment_setup(&fs, &fb, &st);
         CHECK(fs.compiled_ds == dfn, "depth format %u W %u: the routine is not used", fmt, W);
         size_t n;
         uint32_t *v = code_values(max, fi ? 30000 : 0, W, &n);
         const struct shale_fb_prim fp = {.depth_max = 1.0f};
         uint32_t bad = 0, ties = 0;
         for (size_t at = 0; at < n && fs.compiled_ds == dfn; at += W) {
            float fd[16];
            memcpy(fd, &v[at], W * sizeof(float));
            uint32_t lcov[16];
            memcpy(lcov, cov, sizeof(lcov));
            const uint32_t passed =
               dfn(&fs.fb_ctx, &fp, 0, x, y, lcov, fd, (uint32_t)(at / W) & 1);
            if (passed != W && bad++ < 5)
               CHECK(false, "depth format %u W %u: %u of %u samples passed ALWAYS", fmt, W,
                     passed, W);
            for (uint32_t i = 0; i < W; i++) {
               const uint8_t *t = fb.depth.base + (size_t)y[i] * fb.depth.row_pitch +
                                  (size_t)x[i] * fb.depth.format->block_size;
               uint32_t got = 0;
               memcpy(&got, t, fi ? 4 : 2);
               got &= max;
               bool tie;
               const uint32_t want = spec_unorm(fd[i], max, &tie);
               ties += tie;
               if (got != want && bad++ < 5)
                  CHECK(false, "depth format %u W %u: %a (bits %08x) stored %u, the spec's %u",
                        fmt, W, fd[i], v[at + i], got, want);
            }
         }
         CHECK(bad == 0, "depth format %u W %u: %u of %zu values not the spec's code", fmt, W, bad,
               n);
         CHECK(ties >= 1, "depth format %u W %u: %u ties seen", fmt, W, ties);
         free(v);
         free(fb.depth.base);
      }
   }
   sc_compiler_destroy(c);
}

int main(void)
{
   /* Every routine this test compiles goes into the perf map (test_perf_map). */
   setenv("SHALE_PERF_MAP", "objects", 1);
   struct sc_compiler *c = NULL;
   CHECK(sc_compiler_create(&c) == SC_SUCCESS, "compiler");
   if (!c)
      return 1;

   /* Formats not compiled (no colour attachments: shared-exponent floats,
    * 64-bit channels, SCALED formats) and a logic op on a float format
    * (never a key sr_fragment_key makes) are refused, so the C back end
    * runs. */
   struct shale_fb_key key;
   memset(&key, 0, sizeof(key));
   key.width = 8;
   key.samples = 1;
   key.color_count = 1;
   key.color[0].write_mask = 0xf;
   static const VkFormat refused[] = {VK_FORMAT_E5B9G9R9_UFLOAT_PACK32, VK_FORMAT_R64_UINT,
                                      VK_FORMAT_R8G8B8A8_USCALED};
   shale_fb_color_fn fn = NULL;
   char msg[256] = "";
   for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
      key.color[0].format = refused[i];
      CHECK(sc_compile_fragment_backend(c, &key, &fn, msg, sizeof(msg)) == SC_ERROR_UNSUPPORTED &&
               !fn, "format %u was compiled", refused[i]);
   }
   key.color[0].format = VK_FORMAT_R16G16B16A16_SFLOAT;
   key.color[0].logic_op = VK_LOGIC_OP_XOR + 1;
   CHECK(sc_compile_fragment_backend(c, &key, &fn, msg, sizeof(msg)) == SC_ERROR_UNSUPPORTED &&
            !fn, "a logic op on a float format was compiled");

   uint32_t states = 0;
   for (uint32_t s = 0; s < 120; s++)
      states += run_state(c, s, 40);
   CHECK(states >= 80, "only %u states compiled", states);
   /* Each format moved from the C back end, in states of its own. */
   static const VkFormat moved[] = {
      VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_R8G8B8_UNORM,    VK_FORMAT_R8G8B8_SNORM,
      VK_FORMAT_R8G8B8_UINT,             VK_FORMAT_R8G8B8_SINT,     VK_FORMAT_B8G8R8_UNORM,
      VK_FORMAT_B8G8R8_SNORM,            VK_FORMAT_B8G8R8_UINT,     VK_FORMAT_B8G8R8_SINT,
      VK_FORMAT_R16G16B16_UNORM,         VK_FORMAT_R16G16B16_SNORM, VK_FORMAT_R16G16B16_UINT,
      VK_FORMAT_R16G16B16_SINT,          VK_FORMAT_R16G16B16_SFLOAT, VK_FORMAT_R8_SRGB,
      VK_FORMAT_R8G8_SRGB,               VK_FORMAT_R8G8B8_SRGB,     VK_FORMAT_B8G8R8_SRGB,
      VK_FORMAT_A8B8G8R8_SRGB_PACK32,
   };
   for (unsigned i = 0; i < sizeof(moved) / sizeof(moved[0]); i++) {
      force_format = moved[i];
      uint32_t n = 0;
      for (uint32_t s = 0; s < 3; s++)
         n += run_state(c, 500 + 3 * i + s, 20);
      CHECK(n == 3, "format %u: only %u of 3 states compiled", moved[i], n);
   }
   force_format = VK_FORMAT_UNDEFINED;
   uint32_t ds_states = 0;
   for (uint32_t s = 0; s < 120; s++)
      ds_states += run_ds_state(c, s, 40);
   CHECK(ds_states >= 60, "only %u depth/stencil states compiled", ds_states);
   test_blobs(c);
   test_srgb_encode(c);
   test_unorm8_blend(c);
   test_unorm_rounding(c);
   test_perf_map(c);
   perf_map_cleanup();
   test_unorm_spec();
   printf("%u colour states, %u depth/stencil states compared, %d checks\n", states, ds_states,
          check_count);
   sc_compiler_destroy(c);
   return check_failures ? 1 : 0;
}
