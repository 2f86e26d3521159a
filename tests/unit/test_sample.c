/* Unit test: the specialised sampling routines (sr_sample_fast.c) against sr_sample(). */
/*
 * Random views (the fast routines' formats: 8-bit RGBA, BGRA, R and RG in
 * UNORM and sRGB, RGBA 16- and 32-bit floats; 2D and 2D-array, power-of-two
 * and other sizes, padded pitches, 1 to 16 levels, random texels (floats in
 * (-8, 8) with infinities, NaNs, subnormals and signed zeros) and
 * swizzles), random samplers (filters, mipmap modes, the three address
 * modes, bias, LOD clamps; a quarter of them trilinear with REPEAT on s and
 * t, the routines' compile-time specialised case) and random calls (Lod, Grad, Grad with Bias,
 * offsets; random lane masks; coordinates well outside [0, 1], NaN,
 * infinite and huge ones now and then), each sampled by sr_sample() and by
 * the routine sr_sample_select() picks, in both builds (portable and AVX2
 * where the CPU has it). Agreement: lanes outside the mask untouched by
 * both; nearest filtering and nearest mipmapping identical bits (float
 * equality: NaN equals NaN); anything linear within 1e-5 of the texels'
 * magnitude bound (1 for UNORM and sRGB, 8 for the floats) or of the
 * result, whichever is larger (the fast routine filters UNORM codes and
 * divides by 255 once, and its log2 may differ from log2f by an ulp, which
 * moves the mipmap weight by as much, so the difference grows with the
 * texels' range; the spec's filtering precision, 8 sub-texel and mipmap
 * bits as Shale reports, allows about 4e-3). The AVX2 routines' fixed-point
 * states (8-bit UNORM RGBA / BGRA with both filters LINEAR: the trilinear
 * REPEAT power-of-two one, and sr_sample_fast_nl.h's any other) are held to
 * what those limits allow instead: FIXED_TOLERANCE, 3 * 2^-8 of the range
 * and a little (below); so is sr_sample_fast_srgb16.h's sRGB trilinear
 * REPEAT routine where the CPU has AVX-512 with VBMI (srgb_fixed_call), and
 * test_srgb_fixed holds it to 8e-6 where its weights lie on the 1/256 grid. test_nl draws sr_sample_fast_nl.h's states (single
 * levels, maxLod 0, odd sizes, each address mode) more often. Grad lanes whose lambda (in
 * double) lies within 1e-4 of a point where the result jumps (lambda 0 when
 * the two filters differ; x.5 for nearest mipmapping) are not compared:
 * log2 there may round either way in either routine; the count is printed.
 * Nor are ZERO and ONE components of lanes with a NaN or infinite
 * coordinate (sr_sample filters them with NaN weights, the fast routine
 * substitutes them after filtering). States the routines do not take (other
 * samplers, operations, formats and view types) must come back from
 * sr_sample() bit for bit, or be refused at selection.
 */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rasterizer/sr_sample.h"
#include "sample_view.h"
#include "util/su_format.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 7;
   rng_state ^= rng_state << 17;
   return (uint32_t)(rng_state >> 16);
}

static float frand(float lo, float hi)
{
   return lo + (hi - lo) * (float)((rnd() & 0xffffff) / 16777216.0);
}

static uint32_t pick(uint32_t n)
{
   return rnd() % n;
}

/* Levels in the full mip chain of a w x h image (down to 1 x 1). */
static uint32_t full_levels(uint32_t w, uint32_t h)
{
   uint32_t levels = 1;
   while ((w >> levels) || (h >> levels))
      levels++;
   return levels;
}

struct image {
   uint8_t *mem;
   struct shale_image_view_desc v;
};

static uint32_t minify(uint32_t v, uint32_t l)
{
   v >>= l;
   return v ? v : 1;
}

static uint32_t texel_size(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_R8_UNORM:
   case VK_FORMAT_R8_SRGB:
      return 1;
   case VK_FORMAT_R8G8_UNORM:
   case VK_FORMAT_R8G8_SRGB:
      return 2;
   case VK_FORMAT_R16G16B16A16_SFLOAT:
      return 8;
   case VK_FORMAT_R32G32B32A32_SFLOAT:
      return 16;
   default:
      return 4;
   }
}

/* Random texels: any bits for 8-bit formats; floats in (-8, 8), with
 * infinities, NaNs, subnormals and zeros of both signs now and then. */
static void fill(uint8_t *p, uint64_t size, VkFormat f)
{
   if (f == VK_FORMAT_R32G32B32A32_SFLOAT) {
      static const float special[] = { INFINITY, -INFINITY, NAN, 1e-40f, -0.0f, 0.0f };
      for (uint64_t i = 0; i + 4 <= size; i += 4) {
         float x = pick(50) ? frand(-8.0f, 8.0f) : special[pick(6)];
         memcpy(p + i, &x, 4);
      }
   } else if (f == VK_FORMAT_R16G16B16A16_SFLOAT) {
      /* Exponent fields 0 (subnormals, zeros) to 17 (below 8), or 31. */
      for (uint64_t i = 0; i + 2 <= size; i += 2) {
         uint16_t h = (uint16_t)((rnd() & 0x83ff) | (pick(50) ? pick(18) : 31) << 10);
         memcpy(p + i, &h, 2);
      }
   } else {
      for (uint64_t i = 0; i < size; i++)
         p[i] = (uint8_t)rnd();
   }
}

static void make_image(struct image *im, VkFormat format, VkImageViewType type, uint32_t w,
                       uint32_t h, uint32_t levels, uint32_t layers)
{
   memset(im, 0, sizeof(*im));
   struct shale_image_view_desc *v = &im->v;
   const uint32_t ts = texel_size(format);
   uint64_t size = 0;
   for (uint32_t l = 0; l < levels; l++) {
      v->row_pitch[l] = (minify(w, l) + pick(3)) * ts;
      v->slice_pitch[l] = v->row_pitch[l] * minify(h, l) + ts * pick(2);
      v->level_offset[l] = size;
      size += v->slice_pitch[l] * layers;
   }
   im->mem = malloc(size);
   fill(im->mem, size, format);
   sample_view_init(v, im->mem, format, type, w, h, levels, layers, ts);
   if (pick(4) == 0)
      for (int k = 0; k < 4; k++)
         v->swizzle[k] = VK_COMPONENT_SWIZZLE_ZERO + pick(6);
}

static const uint32_t fast_modes[3] = { VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                        VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
                                        VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE };

static void random_sampler(struct shale_sampler_desc *s, uint32_t levels)
{
   memset(s, 0, sizeof(*s));
   s->mag_filter = pick(2) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
   s->min_filter = pick(2) ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
   s->mipmap_mode = pick(2) ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
   for (int k = 0; k < 3; k++)
      s->address_mode[k] = fast_modes[pick(3)];
   s->mip_lod_bias = pick(2) ? 0.0f : frand(-3.0f, 3.0f);
   s->min_lod = pick(2) ? 0.0f : frand(0.0f, 2.0f);
   s->max_lod = pick(2) ? 1000.0f : s->min_lod + frand(0.0f, (float)levels);
   s->max_anisotropy = 1.0f;
   s->compare_op = VK_COMPARE_OP_ALWAYS;
   s->border_color = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK;
}

static float special_coord(float x)
{
   switch (pick(40)) {
   case 0: return NAN;
   case 1: return frand(-1e9f, 1e9f);
   case 2: return INFINITY;
   case 3: return frand(-70000.0f, 70000.0f);
   default: return x;
   }
}

static void random_args(struct shale_sample_args *a, const struct image *im)
{
   memset(a, 0, sizeof(*a));
   uint32_t op = pick(2) ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
   if (op == SHALE_SAMPLE_GRAD && pick(2))
      op |= SHALE_SAMPLE_BIAS;
   if (pick(4) == 0)
      op |= SHALE_SAMPLE_OFFSET;
   a->op = op;
   a->lanes = rnd() & 0xffff;
   if (!a->lanes)
      a->lanes = 1;
   float range = pick(3) ? 1.0f : 3.0f;
   for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
      a->coord[0][l] = special_coord(frand(-range, 1.0f + range));
      a->coord[1][l] = special_coord(frand(-range, 1.0f + range));
      a->coord[2][l] = frand(-1.5f, (float)im->v.layer_count + 1.0f);
      a->coord[3][l] = frand(-1.0f, 1.0f);
      a->lod[l] = op & SHALE_SAMPLE_BIAS ? frand(-4.0f, 4.0f)
                                         : frand(-1.5f, (float)im->v.level_count + 0.5f);
      for (int e = 0; e < 2; e++)
         for (int k = 0; k < 3; k++) {
            float g = ldexpf(frand(0.5f, 1.0f), (int)pick(20) - 15);
            a->grad[e][k][l] = pick(2) ? g : -g;
            if (pick(16) == 0)
               a->grad[e][k][l] = 0.0f;
         }
      for (int k = 0; k < 3; k++)
         a->offset[k][l] = (int32_t)pick(16) - 8;
      for (int k = 0; k < 4; k++)
         a->result[k][l] = rnd();
   }
}

/* lambda of a Grad lane in double (sr_sample's formula), before clamping. */
static double grad_lambda(const struct shale_sample_args *a, const struct image *im,
                          const struct shale_sampler_desc *s, int l)
{
   double rho[2];
   for (int e = 0; e < 2; e++) {
      double x = a->grad[e][0][l] * (double)im->v.width, y = a->grad[e][1][l] * (double)im->v.height;
      rho[e] = sqrt(x * x + y * y);
   }
   double lambda = log2(fmax(rho[0], rho[1]));
   double bias = s->mip_lod_bias;
   if (a->op & SHALE_SAMPLE_BIAS)
      bias = fmin(fmax(bias + a->lod[l], -16.0), 16.0);
   lambda += bias;
   return fmin(fmax(lambda, s->min_lod), s->max_lod);
}

/* Whether a Grad lane sits on a jump of the result (see the file's note). */
static bool near_jump(const struct shale_sample_args *a, const struct image *im,
                      const struct shale_sampler_desc *s, int l)
{
   if ((a->op & SHALE_SAMPLE_OP_MASK) != SHALE_SAMPLE_GRAD)
      return false;
   double lambda = grad_lambda(a, im, s, l);
   if (s->mag_filter != s->min_filter && fabs(lambda) < 1e-4)
      return true;
   if (s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST) {
      double f = lambda - floor(lambda);
      if (fabs(f - 0.5) < 1e-4)
         return true;
   }
   return false;
}

static float as_float(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

struct tally {
   long lanes, exact, near, skipped, bad, fixed;
   double worst, worst_fixed;
};

static void report_bad(const char *what, const struct image *im, const struct shale_sampler_desc *s,
                       const struct shale_sample_args *a, int l, int k, float want, float got)
{
   fprintf(stderr,
           "%s: format %u type %u %ux%u levels %u layers %u; mag %u min %u mip %u modes %u %u "
           "bias %g lod [%g, %g]; op %#x lane %d comp %d: coord (%.9g, %.9g, %.9g) lod %.9g "
           "grad (%g %g / %g %g): sr_sample %.9g, fast %.9g\n",
           what, im->v.format, im->v.view_type, im->v.width, im->v.height, im->v.level_count,
           im->v.layer_count, s->mag_filter, s->min_filter, s->mipmap_mode, s->address_mode[0],
           s->address_mode[1], s->mip_lod_bias, s->min_lod, s->max_lod, a->op, l, k,
           a->coord[0][l], a->coord[1][l], a->coord[2][l], a->lod[l], a->grad[0][0][l],
           a->grad[0][1][l], a->grad[1][0][l], a->grad[1][1][l], want, got);
}

/* Whether sr_sample_fast_srgb16.h's fixed-point routine takes this call
 * (held to FIXED_TOLERANCE, as the UNORM ones): a GCC x86 build on a CPU
 * with AVX-512 F, BW, DQ, VL and VBMI; a 2D power-of-two unswizzled view of
 * R8G8B8A8_SRGB, B8G8R8A8_SRGB or A8B8G8R8_SRGB_PACK32; the trilinear
 * REPEAT state (sr_sample_fast.c's fast_tri_call()); Lod or Grad, no
 * offsets. */
static bool srgb_fixed_call(const struct image *im, const struct shale_sampler_desc *s,
                            const struct shale_sample_args *a, bool avx2)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__)
   if (!avx2 || !__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
       !__builtin_cpu_supports("avx512dq") || !__builtin_cpu_supports("avx512vl") ||
       !__builtin_cpu_supports("avx512vbmi"))
      return false;
#else
   (void)im, (void)s, (void)a, (void)avx2;
   return false;
#endif
   const struct shale_image_view_desc *v = &im->v;
   bool view = (v->format == VK_FORMAT_R8G8B8A8_SRGB || v->format == VK_FORMAT_B8G8R8A8_SRGB ||
                v->format == VK_FORMAT_A8B8G8R8_SRGB_PACK32) &&
               v->view_type == VK_IMAGE_VIEW_TYPE_2D && !(v->width & (v->width - 1)) &&
               !(v->height & (v->height - 1));
   for (int k = 0; k < 4; k++)
      view = view && v->swizzle[k] == (uint32_t)(VK_COMPONENT_SWIZZLE_R + k);
   return view && s->mag_filter == VK_FILTER_LINEAR && s->min_filter == VK_FILTER_LINEAR &&
          s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_LINEAR &&
          s->address_mode[0] == VK_SAMPLER_ADDRESS_MODE_REPEAT &&
          s->address_mode[1] == VK_SAMPLER_ADDRESS_MODE_REPEAT && s->max_anisotropy <= 1.0f &&
          !s->unnormalized_coordinates && !s->compare_enable &&
          (a->op & ~(uint32_t)SHALE_SAMPLE_BIAS) <= SHALE_SAMPLE_GRAD;
}

/* Whether the AVX2 routines filter this call in fixed point: 8-bit UNORM
 * RGBA / BGRA / ABGR views with both filters LINEAR (the trilinear REPEAT
 * power-of-two state without offsets in fixed_chunk, every other mipmap
 * mode, address mode, size, view type and offset in sr_sample_fast_nl.h's
 * lin_fixed_chunk). */
static bool fixed_point_call(const struct image *im, const struct shale_sampler_desc *s,
                             const struct shale_sample_args *a, bool avx2)
{
   if (srgb_fixed_call(im, s, a, avx2))
      return true;
#if defined(__x86_64__) || defined(__i386__)
   if (!avx2 || !__builtin_cpu_supports("avx2"))
      return false;
#else
   return false;
#endif
   const uint32_t f = im->v.format;
   return (f == VK_FORMAT_R8G8B8A8_UNORM || f == VK_FORMAT_B8G8R8A8_UNORM ||
           f == VK_FORMAT_A8B8G8R8_UNORM_PACK32) &&
          s->mag_filter == VK_FILTER_LINEAR && s->min_filter == VK_FILTER_LINEAR;
}

/* The fixed-point routine's tolerance, in units of the texels' range, from
 * the precision Shale reports (sd_physical_device.c): weights snapped to
 * 2^-subTexelPrecisionBits (8) of a texel on each of s and t move the
 * result by at most 2^-8 of the range each; the mipmap weight snapped to
 * 2^-mipmapPrecisionBits (8), by at most 2^-8 more; each level's sum is
 * truncated to 1/256 of a code (2^-8 / 255 of the range); the float
 * arithmetic and log2's ulps stay within 1e-5. */
#define SUB_TEXEL_BITS 8
#define MIPMAP_BITS 8
#define FIXED_TOLERANCE                                                                    \
   (2.0 / (1 << SUB_TEXEL_BITS) + 1.0 / (1 << MIPMAP_BITS) + 1.0 / (256.0 * 255.0) + 1e-5)

/* One call through both routines; the results compared lane by lane
 * (`fixed`: to FIXED_TOLERANCE; lanes with a non-finite coordinate, where
 * sr_sample gives NaN, to lie in [0, 1]). */
static void compare_call(shale_sample_fn fn, const struct image *im,
                         const struct shale_sampler_desc *s, const struct shale_sample_args *in,
                         bool must_be_identical, struct tally *t, bool fixed)
{
   struct shale_sample_args ref = *in, got = *in;
   sr_sample(&im->v, s, &ref);
   fn(&im->v, s, &got);
   bool exact = must_be_identical ||
                (s->mag_filter == VK_FILTER_NEAREST && s->min_filter == VK_FILTER_NEAREST &&
                 s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST);
   for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
      if (!(in->lanes & (1u << l))) {
         for (int k = 0; k < 4; k++)
            if (got.result[k][l] != in->result[k][l] && t->bad++ < 10)
               fprintf(stderr, "lane %d (not in mask %#x) written\n", l, in->lanes);
         continue;
      }
      t->lanes++;
      bool skip = !must_be_identical && near_jump(in, im, s, l);
      bool finite = isfinite(in->coord[0][l]) && isfinite(in->coord[1][l]);
      for (int k = 0; k < 4; k++) {
         /* ZERO and ONE where a coordinate is NaN or infinite: sr_sample
          * filters the constant with NaN weights, the fast routine
          * substitutes it after filtering (the spec leaves such results
          * undefined). */
         if (!finite && im->v.swizzle[k] >= VK_COMPONENT_SWIZZLE_ZERO &&
             im->v.swizzle[k] <= VK_COMPONENT_SWIZZLE_ONE && !must_be_identical)
            continue;
         float want = as_float(ref.result[k][l]), have = as_float(got.result[k][l]);
         bool same = want == have || (want != want && have != have);
         if (fixed && !finite) {
            same = have >= 0.0f && have <= 1.0f;
         } else if (fixed) {
            double d = fabs((double)want - (double)have);
            if (d > t->worst_fixed)
               t->worst_fixed = d;
            same = d <= FIXED_TOLERANCE;
         } else if (exact || must_be_identical) {
            same = same && (must_be_identical ? ref.result[k][l] == got.result[k][l] : true);
         } else if (!same) {
            /* Relative to the texels' magnitude bound (1 for UNORM and
             * sRGB, 8 for the float formats here) or the result. */
            bool flt = im->v.format == VK_FORMAT_R16G16B16A16_SFLOAT ||
                       im->v.format == VK_FORMAT_R32G32B32A32_SFLOAT;
            double d = fabs((double)want - (double)have) /
                       fmax(flt ? 8.0 : 1.0, fabs((double)want));
            if (d > t->worst && !skip)
               t->worst = d;
            same = d <= 1e-5;
         }
         if (!same && skip) {
            t->skipped++;
            break;
         }
         if (!same && t->bad++ < 10)
            report_bad(fixed ? "beyond the fixed-point tolerance"
                       : exact ? "not identical" : "beyond 1e-5",
                       im, s, in, l, k, want, have);
      }
      t->exact += exact;
      t->fixed += fixed;
   }
}

static const VkFormat fast_formats[] = {
   VK_FORMAT_R8G8B8A8_UNORM,        VK_FORMAT_R8G8B8A8_SRGB,
   VK_FORMAT_B8G8R8A8_UNORM,        VK_FORMAT_B8G8R8A8_SRGB,
   VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_A8B8G8R8_SRGB_PACK32,
   VK_FORMAT_R8_UNORM,              VK_FORMAT_R8_SRGB,
   VK_FORMAT_R8G8_UNORM,            VK_FORMAT_R8G8_SRGB,
   VK_FORMAT_R16G16B16A16_SFLOAT,   VK_FORMAT_R32G32B32A32_SFLOAT,
};
#define FAST_FORMATS (sizeof(fast_formats) / sizeof(fast_formats[0]))

static void random_image(struct image *im, VkFormat f, VkImageViewType type)
{
   static const uint32_t sizes[] = { 1, 2, 3, 5, 16, 37, 64, 100, 128, 255, 256 };
   uint32_t w = sizes[pick(11)], h = sizes[pick(11)];
   uint32_t max_levels = full_levels(w, h);
   uint32_t levels = 1 + pick(max_levels);
   uint32_t layers = type == VK_IMAGE_VIEW_TYPE_2D_ARRAY ? 1 + pick(4) : 1;
   make_image(im, f, type, w, h, levels, layers);
}

/* The specialised trilinear REPEAT state's filters and address modes
 * (LINEAR / LINEAR / LINEAR mipmaps, REPEAT on s and t) on a sampler. */
static void trilinear_repeat(struct shale_sampler_desc *s)
{
   s->mag_filter = s->min_filter = VK_FILTER_LINEAR;
   s->mipmap_mode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
   s->address_mode[0] = s->address_mode[1] = VK_SAMPLER_ADDRESS_MODE_REPEAT;
}

/* Fast states: the routine agrees with sr_sample(). */
static void test_fast(bool avx2)
{
   struct tally t = { 0 };
   long fast_fns = 0;
   for (unsigned fi = 0; fi < FAST_FORMATS; fi++)
      for (int ty = 0; ty < 2; ty++)
         for (int n = 0; n < 40; n++) {
            struct image im;
            random_image(&im, fast_formats[fi],
                         ty ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D);
            for (int m = 0; m < 8; m++) {
               struct shale_sampler_desc s;
               random_sampler(&s, im.v.level_count);
               if (m >= 6) {
                  /* The specialised trilinear REPEAT case (power-of-two 2D views). */
                  trilinear_repeat(&s);
               }
               /* Combined records know the sampler, sampled images do not. */
               shale_sample_fn fn = sr_sample_select_isa(&im.v, m & 1 ? &s : NULL, avx2);
               fast_fns += fn != sr_sample;
               /* (clang's x86 builds have no portable routines.) */
               CHECK(fn != sr_sample || (!avx2 && !SR_SAMPLE_FAST_PORTABLE),
                     "format %u type %u: no fast routine", im.v.format, im.v.view_type);
               for (int c = 0; c < 12; c++) {
                  struct shale_sample_args a;
                  random_args(&a, &im);
                  compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, avx2));
               }
            }
            free(im.mem);
         }
   printf("%s build: %ld lanes (%ld nearest, compared exactly; %ld in fixed point, largest "
          "difference %.3g of the range, tolerance %.3g), %ld skipped near a jump, "
          "largest linear difference %.3g, %ld disagreements; %ld fast routines chosen\n",
          avx2 ? "AVX2" : "portable", t.lanes, t.exact, t.fixed, t.worst_fixed, FIXED_TOLERANCE,
          t.skipped, t.worst, t.bad, fast_fns);
#if defined(__x86_64__) || defined(__i386__)
   if (avx2 && __builtin_cpu_supports("avx2"))
      CHECK(t.fixed > 1000, "only %ld lanes in fixed point", t.fixed);
#endif
   CHECK(t.bad == 0, "%ld lanes disagree", t.bad);
   CHECK(t.skipped * 1000 < t.lanes, "%ld of %ld lanes skipped", t.skipped, t.lanes);
   CHECK(t.lanes > 10000, "only %ld lanes compared", t.lanes);
}

/* States the routines do not take: refused when the sampler is known,
 * sr_sample()'s bits when it is not. */
static void test_fallback(bool avx2)
{
   struct tally t = { 0 };
   for (int n = 0; n < 60; n++) {
      struct image im;
      random_image(&im, fast_formats[pick(FAST_FORMATS)], pick(2) ? VK_IMAGE_VIEW_TYPE_2D_ARRAY
                                                       : VK_IMAGE_VIEW_TYPE_2D);
      struct shale_sampler_desc s;
      random_sampler(&s, im.v.level_count);
      bool bad_sampler = true;
      switch (n % 6) {
      case 0:
         s.address_mode[pick(2)] = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
         break;
      case 1:
         s.address_mode[pick(2)] = VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE;
         break;
      case 2:
         s.unnormalized_coordinates = 1;
         s.mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
         s.min_lod = s.max_lod = 0.0f;
         break;
      case 3:
         s.compare_enable = 1;
         s.compare_op = VK_COMPARE_OP_LESS;
         break;
      default:
         bad_sampler = false;   /* fetches and gathers below */
         break;
      }
      if (bad_sampler)
         CHECK(sr_sample_select_isa(&im.v, &s, avx2) == sr_sample,
               "a fast routine for sampler case %d", n % 6);
      shale_sample_fn fn = sr_sample_select_isa(&im.v, NULL, avx2);
      for (int c = 0; c < 10; c++) {
         struct shale_sample_args a;
         random_args(&a, &im);
         if (!bad_sampler) {
            a.op = pick(2) ? SHALE_SAMPLE_GATHER : SHALE_SAMPLE_FETCH;
            a.component = pick(4);
            for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
               int32_t ci[3] = { (int32_t)pick(im.v.width + 2) - 1,
                                 (int32_t)pick(im.v.height + 2) - 1, (int32_t)pick(3) };
               if (a.op == SHALE_SAMPLE_FETCH)
                  for (int k = 0; k < 3; k++)
                     memcpy(&a.coord[k][l], &ci[k], 4);
               int32_t lod = (int32_t)pick(im.v.level_count + 1);
               if (a.op == SHALE_SAMPLE_FETCH)
                  memcpy(&a.lod[l], &lod, 4);
            }
         }
         compare_call(fn, &im, &s, &a, true, &t, false);
      }
      free(im.mem);
   }
   /* Formats and view types without a routine. */
   static const struct {
      VkFormat f;
      VkImageViewType ty;
   } others[] = {
      { VK_FORMAT_R16G16B16A16_UNORM, VK_IMAGE_VIEW_TYPE_2D },
      { VK_FORMAT_R32G32_SFLOAT, VK_IMAGE_VIEW_TYPE_2D },
      { VK_FORMAT_R8G8B8A8_UINT, VK_IMAGE_VIEW_TYPE_2D },
      { VK_FORMAT_R8G8B8A8_SNORM, VK_IMAGE_VIEW_TYPE_2D },
      { VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_VIEW_TYPE_3D },
      { VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_VIEW_TYPE_1D },
      { VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_VIEW_TYPE_CUBE },
   };
   for (unsigned i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
      struct image im;
      make_image(&im, others[i].f, others[i].ty, 16, 16, 1, others[i].ty == VK_IMAGE_VIEW_TYPE_CUBE ? 6 : 1);
      CHECK(sr_sample_select_isa(&im.v, NULL, avx2) == sr_sample,
            "a fast routine for format %u view type %u", others[i].f, others[i].ty);
      free(im.mem);
   }
   CHECK(sr_sample_select_isa(NULL, NULL, avx2) == sr_sample, "a fast routine without a view");
   printf("%s build, other states: %ld lanes from sr_sample, %ld disagreements\n",
          avx2 ? "AVX2" : "portable", t.lanes, t.bad);
   CHECK(t.bad == 0, "%ld lanes disagree", t.bad);
}

/* Far coordinates (texel coordinates of 1e3 to 3e6, below the routines'
 * WRAP_LIMIT, so wrapped by their float-reciprocal modulo) with every lane
 * asked for, on views whose sizes are not powers of two, in the three
 * address modes: every result is sr_sample()'s. A wrong quotient there
 * once made the ASan build read far outside the view (MIRRORED_REPEAT, the
 * reciprocal of n for 2n; see sr_sample_fast.c's vmod); here such a
 * wrap would give some other texel on a lane that is compared. */
static void test_far(bool avx2)
{
   static const uint32_t sizes[][2] = { { 5, 2 }, { 37, 3 }, { 100, 255 }, { 3, 64 } };
   struct tally t = { 0 };
   for (unsigned si = 0; si < 4; si++)
      for (unsigned mode = 0; mode < 3; mode++)
         for (int filt = 0; filt < 2; filt++) {
            struct image im;
            make_image(&im, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_VIEW_TYPE_2D, sizes[si][0],
                       sizes[si][1], 1, 1);
            struct shale_sampler_desc s;
            random_sampler(&s, 1);
            s.mag_filter = s.min_filter = filt ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
            s.address_mode[0] = s.address_mode[1] = fast_modes[mode];
            shale_sample_fn fn = sr_sample_select_isa(&im.v, &s, avx2);
            for (int c = 0; c < 8; c++) {
               struct shale_sample_args a;
               memset(&a, 0, sizeof(a));
               a.op = SHALE_SAMPLE_LOD;
               a.lanes = 0xffff;
               for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
                  a.coord[0][l] = (pick(2) ? 1.0f : -1.0f) * frand(1e3f, 3e6f) / (float)im.v.width;
                  a.coord[1][l] = (pick(2) ? 1.0f : -1.0f) * frand(1e3f, 3e6f) / (float)im.v.height;
                  a.lod[l] = frand(-1.0f, 1.0f);
               }
               compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, avx2));
            }
            free(im.mem);
         }
   printf("%s build, far coordinates: %ld lanes, %ld disagreements\n", avx2 ? "AVX2" : "portable",
          t.lanes, t.bad);
   CHECK(t.bad == 0, "%ld lanes disagree", t.bad);
}

/* Gradients d (ds/dx, dt/dx, ds/dy, dt/dy) of k texels a pixel on a w x h
 * level, turned by ang radians, x and y mirrored where mx and my are -1
 * (1 and 1: a rotation only; multiplying by 1 is exact). */
static void draw_grads(float k, float ang, float mx, float my, float w, float h, float d[4])
{
   d[0] = mx * k * cosf(ang) / w;
   d[1] = k * sinf(ang) / h;
   d[2] = -k * sinf(ang) / w;
   d[3] = my * k * cosf(ang) / h;
}

/* Lane l of a call laid out as a draw lays it (two 2x2 quads side by side
 * per eight lanes; where block, sixteen lanes as a 4x4 block's quads in
 * sr_tile.c's quad_pos order, as a draw of 16 lanes lays them):
 * coordinates from (s0, t0) at the lane's pixel centre along the
 * gradients d (ds/dx, dt/dx, ds/dy, dt/dy), also its GRAD operands, lod
 * its LOD or Bias operand, and random bits in its results (the routine
 * must write every active lane's). */
static void draw_lane_in(struct shale_sample_args *a, int l, float s0, float t0, const float d[4],
                         float lod, bool block)
{
   float x = (float)((l >> 2) * 2 + (l & 1)) + 0.5f, y = (float)((l >> 1) & 1) + 0.5f;
   if (block) {
      x = (float)(((l >> 2) & 1) * 2 + (l & 1)) + 0.5f;
      y = (float)((l >> 3) * 2 + ((l >> 1) & 1)) + 0.5f;
   }
   a->coord[0][l] = s0 + x * d[0] + y * d[2];
   a->coord[1][l] = t0 + x * d[1] + y * d[3];
   a->lod[l] = lod;
   a->grad[0][0][l] = d[0];
   a->grad[0][1][l] = d[1];
   a->grad[1][0][l] = d[2];
   a->grad[1][1][l] = d[3];
   for (int q = 0; q < 4; q++)
      a->result[q][l] = rnd();
}

static void draw_lane(struct shale_sample_args *a, int l, float s0, float t0, const float d[4],
                      float lod)
{
   draw_lane_in(a, l, s0, t0, d, lod, false);
}

/* The routine sr_sample_select_isa() chooses for view v and sampler s with
 * AVX-512 switched off (sr_sample_fast_test's no_avx512): the AVX2 one the
 * AVX-512 routines must match bit for bit. */
static shale_sample_fn select_avx2(const struct shale_image_view_desc *v,
                                   const struct shale_sampler_desc *s)
{
   struct sr_sample_fast_test no512 = { .no_avx512 = true };
   sr_sample_fast_test = &no512;
   shale_sample_fn fn = sr_sample_select_isa(v, s, true);
   sr_sample_fast_test = NULL;
   return fn;
}

/* Scene (b)'s texture and sampler: a 512x512 RGBA8 view of 10 levels with
 * the identity swizzle, trilinear REPEAT, no bias, LOD clamps that do not
 * bind. */
static void trilinear_512(struct image *im, struct shale_sampler_desc *s)
{
   make_image(im, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_VIEW_TYPE_2D, 512, 512, 10, 1);
   for (int k = 0; k < 4; k++)
      im->v.swizzle[k] = VK_COMPONENT_SWIZZLE_R + k;
   random_sampler(s, 10);
   trilinear_repeat(s);
   s->mip_lod_bias = 0.0f;
   s->min_lod = 0.0f;
   s->max_lod = 1000.0f;
}

/* The calls of test_window() and test_srgb_window(): 60 power-of-two
 * views of 4 to 512 texels a side, in formats[0..2], in the trilinear
 * REPEAT state, 60 calls each, every call made with the gathers only and
 * with the windows (counted in *differ when they differ) and compared with
 * sr_sample() (compare_call; 8-bit UNORM views held to FIXED_TOLERANCE
 * where fixed_point_call says so, sRGB ones to 1e-5 or, on the AVX-512
 * routine of sr_sample_fast_srgb16.h, FIXED_TOLERANCE). With srgb, one view
 * in four is given the explicit swizzle R, G, B, A. Where the AVX-512
 * routine is chosen (counted in *isa_routines), each call is also made
 * through the AVX2 routine chosen without it (sr_sample_fast_test's
 * no_avx512), counted in *isa_differ when the two differ. */
static void window_calls(const VkFormat formats[3], bool srgb, struct sr_sample_fast_test *hook,
                         struct tally *t, long *calls, long *differ, long *isa_routines,
                         long *isa_differ)
{
   static const uint32_t sizes[] = { 4, 8, 16, 64, 256, 512 };
   for (int n = 0; n < 60; n++) {
      struct image im;
      uint32_t w = sizes[pick(6)], h = sizes[pick(6)];
      uint32_t levels = full_levels(w, h);
      make_image(&im, formats[pick(3)], VK_IMAGE_VIEW_TYPE_2D, w, h, levels, 1);
      if (srgb && pick(4) == 0)
         for (int k = 0; k < 4; k++)
            im.v.swizzle[k] = VK_COMPONENT_SWIZZLE_R + k;
      struct shale_sampler_desc s;
      random_sampler(&s, levels);
      trilinear_repeat(&s);
      s.min_lod = 0.0f;
      s.max_lod = 1000.0f;
      const struct shale_sampler_desc *known = pick(2) ? &s : NULL;
      shale_sample_fn fn = sr_sample_select_isa(&im.v, known, true);
      /* The AVX2 routine where the AVX-512 one was chosen (else fn). */
      shale_sample_fn fn2 = select_avx2(&im.v, known);
      *isa_routines += fn2 != fn;
      for (int c = 0; c < 60; c++) {
         struct shale_sample_args a;
         memset(&a, 0, sizeof(a));
         a.op = pick(2) ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
         a.lanes = pick(4) ? 0xffff : (rnd() & 0xffff) | 1;
         float k = frand(0.05f, 3.0f), ang = pick(3) ? 0.0f : frand(0.0f, 6.2831853f);
         float d[4];
         draw_grads(k, ang, 1.0f, 1.0f, (float)w, (float)h, d);
         float s0 = frand(-3.0f, 3.0f), t0 = frand(-3.0f, 3.0f);
         const bool block = pick(2);
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++)
            draw_lane_in(&a, l, s0, t0, d, log2f(k), block);
         struct shale_sample_args g = a, wnd = a, narrow = a;
         sr_sample_fast_test = hook;
         hook->gathers_only = true;
         fn(&im.v, &s, &g);
         hook->gathers_only = false;
         fn(&im.v, &s, &wnd);
         compare_call(fn, &im, &s, &a, false, t, fixed_point_call(&im, &s, &a, true));
         sr_sample_fast_test = NULL;
         fn2(&im.v, &s, &narrow);
         *differ += memcmp(g.result, wnd.result, sizeof(g.result)) != 0;
         *isa_differ += memcmp(narrow.result, wnd.result, sizeof(g.result)) != 0;
         (*calls)++;
      }
      free(im.mem);
   }
}

/* The AVX2 fixed-point routine's contiguous row windows (sr_sample_fast_body.h's
 * window()): calls laid out as a draw lays them (two 2x2 quads side by
 * side per eight lanes) with coordinates changing smoothly across the
 * lanes at 0.05 to 3 texels a pixel, sometimes rotated, anywhere on the
 * repeated texture (so footprints cross the wrap and the last eight
 * columns of a level), on power-of-two RGBA / BGRA / ABGR views of 4 to
 * 512 texels a side with padded pitches. Each call runs with the windows
 * and with gathers only (sr_sample_fast_test): the two results must be
 * identical bits (the windows only read the same texels another way), and
 * within FIXED_TOLERANCE of sr_sample() (compare_call). Where the CPU has
 * AVX2, more than one level a call must have come through a window (about
 * two in five do: the others' footprints are too wide, or their levels
 * narrower than eight texels), and some calls through the routines chosen
 * for unswizzled views (run_tri: views keep the identity swizzle three
 * times in four). Where the CPU has AVX-512, the unswizzled views' routine
 * is the sixteen-lane one (sr_sample_fast.c's fixed_chunk16, its window
 * sixteen columns wide): every call must give the AVX2 routine's bits. */
static void test_window(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_A8B8G8R8_UNORM_PACK32 };
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0, isa_routines = 0, isa_differ = 0;
   window_calls(formats, false, &hook, &t, &calls, &differ, &isa_routines, &isa_differ);
   printf("row windows: %ld calls, %" PRIu64 " levels read through a window, %" PRIu64
          " calls through the unswizzled views' routines, %ld results differing from the "
          "gathers', %ld lanes against sr_sample (largest difference %.3g of the range, "
          "tolerance %.3g), %ld disagreements; %ld of 60 views on the AVX-512 routines, %ld "
          "calls differing from the AVX2 routines'\n",
          calls, hook.windows, hook.tri_calls, differ, t.lanes, t.worst_fixed, FIXED_TOLERANCE,
          t.bad, isa_routines, isa_differ);
   CHECK(differ == 0, "%ld calls differ between windows and gathers", differ);
   CHECK(isa_differ == 0, "%ld calls differ between the AVX-512 and AVX2 routines", isa_differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
   CHECK(t.lanes > 10000, "only %ld lanes compared", t.lanes);
#if defined(__x86_64__) || defined(__i386__)
   /* Two calls with windows a call (wnd and compare_call's), two chunks
    * each, one or two levels a chunk. */
   if (__builtin_cpu_supports("avx2")) {
      CHECK(hook.windows > (uint64_t)calls, "only %" PRIu64 " windows in %ld calls",
            hook.windows, calls);
      CHECK(hook.tri_calls > (uint64_t)calls / 4, "only %" PRIu64 " of %ld calls through run_tri",
            hook.tri_calls, calls);
   }
   /* On a CPU with the AVX-512 routines' extensions, sr_sample_select must
    * have chosen them (else the comparison with the AVX2 routines above
    * compared nothing). */
   if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
      CHECK(isa_routines > 0, "no view of 60 took the AVX-512 routines on an AVX-512 CPU");
#endif
}

/* The AVX-512 routine's windows on draws of sixteen lanes (a 4x4 block's
 * quads, sr_tile.c's layout: four pixel rows): bench_render (b)'s case,
 * a 512x512 RGBA8 view of 10 levels (pitches padded now and then),
 * LINEAR / LINEAR / LINEAR mipmap REPEAT, GRAD at 0.3 to 0.95 texels a
 * pixel (level 0 alone) and 1.05 to 1.95 (levels 0 and 1), 2000 calls
 * unrotated, then 1000 turned a quarter, half or three quarters or
 * mirrored in s (lane 0 not the least: window16's reduction over the
 * lanes), anywhere on the repeated texture (footprints at most seven columns
 * wide: window16 reads all those it takes through window8's eight). Each call runs with the windows and
 * with gathers only (identical bits) and through the AVX2 routine
 * (identical bits), and against sr_sample() (compare_call). Where the
 * CPU has the AVX-512 routines' extensions, nine levels in ten read must
 * come through a window, in all and in the turned or mirrored blocks
 * (window16 takes footprints up to fifteen columns wide and seven rows
 * high, so all but those crossing the level's last
 * column: before it took rows at most two apart, and these blocks' four
 * pixel rows span three to six texel rows on level 0). Then 400 calls with
 * one lane far out (1e7 to 1e30 texels) or not finite: the AVX2 routine's
 * bits. */
static void test_block_windows(void)
{
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0, isa_differ = 0;
   uint64_t levels = 0, turned_levels = 0, turned_windows = 0;
   struct image im;
   struct shale_sampler_desc s;
   trilinear_512(&im, &s);
   shale_sample_fn fn = sr_sample_select_isa(&im.v, &s, true);
   shale_sample_fn fn2 = select_avx2(&im.v, &s);
   uint64_t rng_saved = 0;
   for (int c = 0; c < 3000; c++) {
      if (c == 2000)
         rng_saved = rng_state;
      struct shale_sample_args a;
      memset(&a, 0, sizeof(a));
      a.op = SHALE_SAMPLE_GRAD;
      a.lanes = 0xffff;
      const bool minified = pick(2);
      float k = minified ? frand(1.05f, 1.95f) : frand(0.3f, 0.95f);
      float d[4];
      /* Calls 2000 on: blocks turned a quarter, half or three quarters,
       * or mirrored in s, so s or t falls to the right or down and lane 0
       * is not the least (window16's reduction over the lanes). */
      const bool turned = c >= 2000;
      const int turn = turned ? pick(4) : 0;
      draw_grads(k, turn == 3 ? 0.0f : (float)turn * 1.5707963f, turn == 3 ? -1.0f : 1.0f, 1.0f,
                 512.0f, 512.0f, d);
      const uint64_t windows_before = hook.windows;
      float s0 = frand(-3.0f, 3.0f), t0 = frand(-3.0f, 3.0f);
      for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++)
         draw_lane_in(&a, l, s0, t0, d, 0.0f, true);
      struct shale_sample_args g = a, wnd = a, narrow = a;
      sr_sample_fast_test = &hook;
      hook.gathers_only = true;
      fn(&im.v, &s, &g);
      hook.gathers_only = false;
      fn(&im.v, &s, &wnd);
      levels += 2 * (minified ? 2 : 1);   /* windows are counted per eight lanes */
      sr_sample_fast_test = NULL;
      if (turned) {
         turned_levels += 2 * (minified ? 2 : 1);
         turned_windows += hook.windows - windows_before;
      }
      compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, true));
      fn2(&im.v, &s, &narrow);
      differ += memcmp(g.result, wnd.result, sizeof(g.result)) != 0;
      isa_differ += memcmp(narrow.result, wnd.result, sizeof(g.result)) != 0;
      calls++;
   }
   /* The turned blocks leave the random numbers of what follows as they were. */
   rng_state = rng_saved;
   /* Then lanes far out or not finite (fixed_level16 takes those through
    * fixed_level()'s floors and clamps): the AVX2 routine's bits still. */
   static const float far[] = { 1e7f, -1e7f, 3e8f, -3e9f, 1e30f, __builtin_inff(), -__builtin_inff(),
                                __builtin_nanf("") };
   long far_differ = 0;
   for (int c = 0; c < 400; c++) {
      struct shale_sample_args a;
      memset(&a, 0, sizeof(a));
      a.op = pick(2) ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
      a.lanes = 0xffff;
      float k = frand(0.3f, 3.0f), d[4];
      draw_grads(k, 0.0f, 1.0f, 1.0f, 512.0f, 512.0f, d);
      float s0 = frand(-3.0f, 3.0f), t0 = frand(-3.0f, 3.0f);
      for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++)
         draw_lane_in(&a, l, s0, t0, d, log2f(k), true);
      a.coord[pick(2)][pick(16)] = far[pick(8)] / 512.0f;
      struct shale_sample_args wide = a, narrow = a;
      fn(&im.v, &s, &wide);
      fn2(&im.v, &s, &narrow);
      far_differ += memcmp(narrow.result, wide.result, sizeof(a.result)) != 0;
   }
   CHECK(far_differ == 0, "%ld calls with a far or non-finite lane differ between the AVX-512 "
         "and AVX2 routines", far_differ);
   free(im.mem);
   printf("4x4-block windows: %ld calls, %" PRIu64 " of %" PRIu64 " levels (per eight lanes) "
          "read through a window (%" PRIu64 " of %" PRIu64 " of turned or mirrored blocks; %" PRIu64
          " eight columns wide), %ld results differing from the gathers', %ld from the AVX2 "
          "routine's, %ld lanes against sr_sample (largest difference %.3g), %ld disagreements\n",
          calls, hook.windows, levels, turned_windows, turned_levels, hook.windows8, differ,
          isa_differ, t.lanes, t.worst_fixed, t.bad);
   CHECK(differ == 0, "%ld calls differ between windows and gathers", differ);
   CHECK(isa_differ == 0, "%ld calls differ between the AVX-512 and AVX2 routines", isa_differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
   {
      CHECK(hook.windows * 10 >= levels * 9, "only %" PRIu64 " of %" PRIu64 " levels through a window",
            hook.windows, levels);
      /* The same share where lane 0 is not the least. */
      CHECK(turned_windows * 10 >= turned_levels * 9, "only %" PRIu64 " of %" PRIu64 " levels of "
            "turned or mirrored blocks through a window", turned_windows, turned_levels);
      /* Blocks unrotated or turned by right angles at under two texels a
       * pixel: every lane's columns within seven of the least, so
       * window8's eight columns wherever window16's sixteen would do. */
      CHECK(hook.windows8 == hook.windows, "only %" PRIu64 " of %" PRIu64 " windows eight columns wide",
            hook.windows8, hook.windows);
   }
#endif
}

/* The sRGB routines' row windows and blocks (sr_sample_fast_srgb.h):
 * test_window()'s calls (two quads per eight lanes, smooth coordinates at
 * 0.05 to 3 texels a pixel, sometimes rotated, anywhere on the repeated
 * texture) on power-of-two R8G8B8A8_SRGB, B8G8R8A8_SRGB and
 * A8B8G8R8_SRGB_PACK32 views of 4 to 512 texels a side in the trilinear
 * REPEAT state. The windows and blocks decode each texel of a footprint
 * once and pick the lanes' linear values by permutes: results identical to
 * the gathers' (sr_sample_fast_test's gathers_only, the body's float
 * chunk()), and within 1e-5 of sr_sample() (compare_call; the largest
 * difference is printed). Where the CPU has AVX2, more than one level a
 * call must have come through a window or a block (the hook's windows
 * counts both). Where it has AVX-512 with VBMI, the unswizzled views'
 * routine is sr_sample_fast_srgb16.h's fixed-point one (windows sixteen
 * columns wide, else gathers; the same bits either way), held to
 * FIXED_TOLERANCE, and some views must have taken it. */
static void test_srgb_window(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_SRGB,
                                       VK_FORMAT_A8B8G8R8_SRGB_PACK32 };
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0, isa_routines = 0, isa_differ = 0;
   window_calls(formats, true, &hook, &t, &calls, &differ, &isa_routines, &isa_differ);
   printf("sRGB row windows and blocks: %ld calls, %" PRIu64 " levels read through one, %" PRIu64
          " calls through the unswizzled views' routines, %ld results differing from the "
          "gathers', %ld lanes against sr_sample (largest difference %.3g; %ld lanes in fixed "
          "point, largest difference %.3g), %ld disagreements; %ld of 60 views on the AVX-512 "
          "routine\n",
          calls, hook.windows, hook.tri_calls, differ, t.lanes, t.worst, t.fixed, t.worst_fixed,
          t.bad, isa_routines);
   CHECK(differ == 0, "%ld calls differ between windows and gathers", differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
   CHECK(t.lanes > 10000, "only %ld lanes compared", t.lanes);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx2")) {
      CHECK(hook.windows > (uint64_t)calls, "only %" PRIu64 " windows in %ld calls",
            hook.windows, calls);
      CHECK(hook.tri_calls > (uint64_t)calls / 4, "only %" PRIu64 " of %ld calls through the "
            "sRGB routines", hook.tri_calls, calls);
   }
#if defined(__GNUC__) && !defined(__clang__)
   if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
       __builtin_cpu_supports("avx512vbmi"))
      CHECK(isa_routines > 0 && t.fixed > 10000,
            "%ld of 60 views, %ld lanes on the sRGB AVX-512 routine", isa_routines, t.fixed);
#endif
#endif
}

/* sRGB EOTF inverse in double, to an 8-bit code (round to nearest). */
static int srgb_encode8(double x)
{
   double y = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1.0 / 2.4) - 0.055;
   return (int)floor(y * 255.0 + 0.5);
}

/* sr_sample_fast_srgb16.h's precision (its note), where the routine is
 * chosen (srgb_fixed_call): on R8G8B8A8_SRGB, B8G8R8A8_SRGB and
 * A8B8G8R8_SRGB_PACK32 views of 1 to 64 texels a side (full mip chains,
 * padded pitches, random texels) in the trilinear REPEAT state, Lod calls
 * whose weights are all multiples of 1/256 (lambda k / 256; coordinates
 * n / (256 W), W the second level's width or height, so that u and v on
 * both levels are multiples of 1/256): there the weights' snapping moves
 * nothing, and every lane must be within 8e-6 of sr_sample() (the 16-bit
 * decoding's 2^-17, the truncation's 2^-24 and a few float ulps on either
 * side). And each of the 256 codes read alone (texel centres on one level)
 * must re-encode to itself in R, G and B (the EOTF's inverse in double)
 * and give code / 255 in A within an ulp. */
static void test_srgb_fixed(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_SRGB,
                                       VK_FORMAT_A8B8G8R8_SRGB_PACK32 };
   static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 32, 64 };
   long calls = 0, lanes = 0, bad = 0;
   double worst = 0.0;
   bool chosen = false;
   for (int n = 0; n < 120; n++) {
      struct image im;
      uint32_t w = sizes[pick(7)], h = sizes[pick(7)];
      uint32_t levels = full_levels(w, h);
      make_image(&im, formats[pick(3)], VK_IMAGE_VIEW_TYPE_2D, w, h, levels, 1);
      for (int k = 0; k < 4; k++)
         im.v.swizzle[k] = VK_COMPONENT_SWIZZLE_R + k;
      struct shale_sampler_desc s;
      random_sampler(&s, levels);
      trilinear_repeat(&s);
      s.mip_lod_bias = 0.0f;
      s.min_lod = 0.0f;
      s.max_lod = 1000.0f;
      shale_sample_fn fn = sr_sample_select_isa(&im.v, pick(2) ? &s : NULL, true);
      for (int c = 0; c < 40; c++) {
         struct shale_sample_args a;
         memset(&a, 0, sizeof(a));
         a.op = SHALE_SAMPLE_LOD;
         a.lanes = pick(4) ? 0xffff : (rnd() & 0xffff) | 1;
         if (!srgb_fixed_call(&im, &s, &a, true))
            break;
         chosen = true;
         /* A lambda on one level pair for the call, or on a lane's own. */
         int32_t k0 = (int32_t)pick(256 * levels);
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
            int32_t kl = pick(4) ? k0 : (int32_t)pick(256 * levels);
            a.lod[l] = (float)kl / 256.0f;
            uint32_t l1 = (uint32_t)kl / 256 + 1 < levels ? (uint32_t)kl / 256 + 1 : levels - 1;
            float W = (float)minify(w, l1), H = (float)minify(h, l1);
            a.coord[0][l] = (float)((int32_t)pick(256 * 6 * (uint32_t)W) - 256 * 3 * (int32_t)W) / (256.0f * W);
            a.coord[1][l] = (float)((int32_t)pick(256 * 6 * (uint32_t)H) - 256 * 3 * (int32_t)H) / (256.0f * H);
            for (int q = 0; q < 4; q++)
               a.result[q][l] = rnd();
         }
         struct shale_sample_args ref = a, got = a;
         sr_sample(&im.v, &s, &ref);
         fn(&im.v, &s, &got);
         calls++;
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
            if (!(a.lanes & (1u << l)))
               continue;
            lanes++;
            for (int q = 0; q < 4; q++) {
               double d = fabs((double)as_float(ref.result[q][l]) - (double)as_float(got.result[q][l]));
               if (d > worst)
                  worst = d;
               if (d > 8e-6 && bad++ < 10)
                  report_bad("sRGB fixed point beyond 8e-6", &im, &s, &a, l, q,
                             as_float(ref.result[q][l]), as_float(got.result[q][l]));
            }
         }
      }
      free(im.mem);
   }
   /* Every code alone: a 16 x 16 view of one level, texel i holding codes
    * i, 255 - i, (7 i) mod 256 and i, read at texel centres. */
   long codes_bad = 0;
   {
      struct image im;
      memset(&im, 0, sizeof(im));
      im.mem = malloc(16 * 16 * 4);
      for (int i = 0; i < 256; i++) {
         im.mem[4 * i] = (uint8_t)i;
         im.mem[4 * i + 1] = (uint8_t)(255 - i);
         im.mem[4 * i + 2] = (uint8_t)(7 * i);
         im.mem[4 * i + 3] = (uint8_t)i;
      }
      im.v.row_pitch[0] = 64;
      im.v.slice_pitch[0] = 1024;
      sample_view_init(&im.v, im.mem, VK_FORMAT_R8G8B8A8_SRGB, VK_IMAGE_VIEW_TYPE_2D, 16, 16, 1,
                       1, 4);
      struct shale_sampler_desc s;
      random_sampler(&s, 1);
      trilinear_repeat(&s);
      shale_sample_fn fn = sr_sample_select_isa(&im.v, &s, true);
      for (int i0 = 0; i0 < 256; i0 += SHALE_MAX_SIMD_WIDTH) {
         struct shale_sample_args a;
         memset(&a, 0, sizeof(a));
         a.op = SHALE_SAMPLE_LOD;
         a.lanes = 0xffff;
         if (!srgb_fixed_call(&im, &s, &a, true))
            break;
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
            int i = i0 + l;
            a.coord[0][l] = ((float)(i % 16) + 0.5f) / 16.0f;
            a.coord[1][l] = ((float)(i / 16) + 0.5f) / 16.0f;
         }
         fn(&im.v, &s, &a);
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
            int i = i0 + l;
            const int want[3] = { i, 255 - i, (7 * i) & 255 };
            for (int q = 0; q < 3; q++)
               if (srgb_encode8(as_float(a.result[q][l])) != want[q] && codes_bad++ < 10)
                  fprintf(stderr, "sRGB code %d (component %d) decoded to %.9g, re-encoded to %d\n",
                          want[q], q, as_float(a.result[q][l]),
                          srgb_encode8(as_float(a.result[q][l])));
            float al = as_float(a.result[3][l]), aw = (float)i / 255.0f;
            if (fabsf(al - aw) > 6e-8f && codes_bad++ < 10)
               fprintf(stderr, "alpha code %d gave %.9g\n", i, al);
         }
      }
      free(im.mem);
   }
   printf("sRGB fixed point: %s; %ld calls with weights on the 1/256 grid, %ld lanes, largest "
          "difference from sr_sample %.3g (bound 8e-6), %ld beyond; %ld codes not read back\n",
          chosen ? "routine chosen" : "not on this CPU", calls, lanes, worst, bad, codes_bad);
   CHECK(bad == 0, "%ld lanes beyond 8e-6", bad);
   CHECK(codes_bad == 0, "%ld codes not read back", codes_bad);
   CHECK(!chosen || lanes > 10000, "only %ld lanes compared", lanes);
}

/* Whether call a gives other results with *flag (a switch in hook) set than
 * with it clear: runs fn on two copies of a, hook installed as
 * sr_sample_fast_test, then uninstalls it. */
static bool hook_differs(shale_sample_fn fn, const struct image *im,
                         const struct shale_sampler_desc *s, const struct shale_sample_args *a,
                         struct sr_sample_fast_test *hook, bool *flag)
{
   struct shale_sample_args on = *a, off = *a;
   sr_sample_fast_test = hook;
   *flag = true;
   fn(&im->v, s, &on);
   *flag = false;
   fn(&im->v, s, &off);
   sr_sample_fast_test = NULL;
   return memcmp(on.result, off.result, sizeof(on.result)) != 0;
}

/* A NEAREST call of test_near16 and test_near16_half_lanes: offsets on it
 * one time in four, then run with windows and with gathers only (hook:
 * *differ counts calls whose bits differ), through fn and fn2 (the AVX2
 * routine: *isa_differ counts calls whose bits differ), and against
 * sr_sample() (compare_call into t). */
static void near_call(shale_sample_fn fn, shale_sample_fn fn2, const struct image *im,
                      const struct shale_sampler_desc *s, struct shale_sample_args *a,
                      struct sr_sample_fast_test *hook, struct tally *t, long *differ,
                      long *isa_differ)
{
   if (pick(4) == 0) {
      a->op |= SHALE_SAMPLE_OFFSET;
      for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
         a->offset[0][l] = (int32_t)pick(16) - 8;
         a->offset[1][l] = (int32_t)pick(16) - 8;
      }
   }
   *differ += hook_differs(fn, im, s, a, hook, &hook->gathers_only);
   struct shale_sample_args wide = *a, narrow = *a;
   fn(&im->v, s, &wide);
   fn2(&im->v, s, &narrow);
   *isa_differ += memcmp(wide.result, narrow.result, sizeof(a->result)) != 0;
   compare_call(fn, im, s, a, false, t, fixed_point_call(im, s, a, true));
}

/* The AVX2 single-level routines' row windows (sr_sample_fast_nl.h's
 * near_window() and lin_window()): calls laid out as a draw lays them (two
 * 2x2 quads side by side per eight lanes) at 0.2 to 3 texels a pixel,
 * sometimes rotated or mirrored, anywhere on or off the texture, on 8-bit
 * RGBA / BGRA / ABGR views (NEAREST: UNORM and sRGB; LINEAR: UNORM, the
 * fixed-point state; swizzled now and then) of 1x1 to 800x600 texels
 * (glmark2's effect2d size among them, and views narrower than eight
 * texels, which never take a window), with both filters `filter` and
 * NEAREST mipmaps, each address mode on s and t, on one level, on many with
 * maxLod 0.25 (zink's clamp for GL textures without mipmaps: level 0
 * alone) or with any maxLod, through the routines chosen without
 * AVX-512 (sr_sample_fast_test's no_avx512). Each call runs with the
 * windows and with gathers only (sr_sample_fast_test): identical bits,
 * and sr_sample()'s bits (NEAREST) or within FIXED_TOLERANCE of them
 * (LINEAR; compare_call).
 * Where the CPU has AVX2, more than one chunk in two calls must have come
 * through a window. */
static void test_single_windows(VkFilter filter)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_R8G8B8A8_SRGB,
                                       VK_FORMAT_B8G8R8A8_SRGB };
   static const uint32_t sizes[][2] = { { 1, 1 }, { 7, 9 }, { 8, 8 }, { 37, 5 },
                                        { 800, 600 }, { 256, 64 }, { 100, 255 }, { 512, 512 } };
   const bool linear = filter == VK_FILTER_LINEAR;
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0;
   for (int n = 0; n < 80; n++) {
      struct image im;
      const uint32_t *sz = sizes[pick(8)];
      uint32_t levels = pick(2) ? full_levels(sz[0], sz[1]) : 1;
      make_image(&im, formats[pick(linear ? 3 : 5)], VK_IMAGE_VIEW_TYPE_2D, sz[0], sz[1], levels,
                 1);
      struct shale_sampler_desc s;
      random_sampler(&s, levels);
      s.mag_filter = s.min_filter = filter;
      s.mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
      s.address_mode[0] = fast_modes[pick(3)];
      s.address_mode[1] = fast_modes[pick(3)];
      s.min_lod = 0.0f;
      s.max_lod = pick(2) ? 0.25f : 1000.0f;
      /* The AVX2 routines, also where the CPU has AVX-512 (whose
       * near_chunk16 gathers: test_near16). */
      struct sr_sample_fast_test no512 = { .no_avx512 = true };
      sr_sample_fast_test = &no512;
      shale_sample_fn fn = sr_sample_select_isa(&im.v, pick(2) ? &s : NULL, true);
      sr_sample_fast_test = NULL;
      const float w = (float)sz[0], h = (float)sz[1];
      for (int c = 0; c < 40; c++) {
         struct shale_sample_args a;
         memset(&a, 0, sizeof(a));
         a.op = pick(2) ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
         a.lanes = pick(4) ? 0xffff : (rnd() & 0xffff) | 1;
         float k = frand(0.2f, 3.0f), ang = pick(3) ? 0.0f : frand(0.0f, 6.2831853f);
         float mx = pick(4) ? 1.0f : -1.0f, my = pick(4) ? 1.0f : -1.0f;
         float d[4];
         draw_grads(k, ang, mx, my, w, h, d);
         float s0 = frand(-1.5f, 2.5f), t0 = frand(-1.5f, 2.5f);
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++)
            draw_lane(&a, l, s0, t0, d, log2f(k));
         differ += hook_differs(fn, &im, &s, &a, &hook, &hook.gathers_only);
         compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, true));
         calls++;
      }
      free(im.mem);
   }
   printf("%s single-level row windows: %ld calls, %" PRIu64 " chunks read through a window, "
          "%ld results differing from the gathers', %ld lanes against sr_sample (%ld compared "
          "exactly, %ld in fixed point, largest difference %.3g of the range), %ld "
          "disagreements\n",
          linear ? "LINEAR" : "NEAREST", calls, hook.windows, differ, t.lanes, t.exact, t.fixed,
          t.worst_fixed, t.bad);
   CHECK(differ == 0, "%ld calls differ between windows and gathers", differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
   CHECK(t.lanes > 10000, "only %ld lanes compared", t.lanes);
   CHECK(linear || t.exact == t.lanes, "only %ld of %ld lanes compared exactly", t.exact, t.lanes);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx2"))
      CHECK(hook.windows > (uint64_t)calls / 2, "only %" PRIu64 " windows in %ld calls",
            hook.windows, calls);
#endif
}

/* The AVX-512 single-level NEAREST routine (sr_sample_fast.c's
 * near_chunk16) on calls laid out as a draw's 4x4 block (sr_tile.c's
 * layout; half the calls as two rows of quads side by side instead) at
 * 0.2 to 3 texels a pixel, often rotated (vkcube's spinning cube), on 8-bit
 * UNORM RGBA / BGRA / ABGR views of 1x1 to 800x600 texels (power-of-two
 * ones through the trilinear-ready routine, the others through the
 * general one; swizzled now and then), NEAREST filters and mipmaps, each
 * address mode on s and t, one level or maxLod 0 or 0.25, offsets now and
 * then, lanes asked for all or some. Each call runs with the windows and
 * with gathers only (identical bits: near_chunk16 always gathers, the
 * AVX2 routine's eight-lane chunks of calls with lanes in one half read
 * windows), through the AVX2 routine chosen without AVX-512
 * (sr_sample_fast_test's no_avx512: identical bits), and against
 * sr_sample() (compare_call: exact). Where the CPU has AVX-512 F, BW, DQ
 * and VL, the routine chosen must differ from the AVX2 one and every
 * call must have run near_chunk16 (lanes in one half too). */
static void test_near16(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_A8B8G8R8_UNORM_PACK32 };
   static const uint32_t sizes[][2] = { { 1, 1 }, { 15, 9 }, { 16, 16 }, { 37, 5 },
                                        { 800, 600 }, { 256, 256 }, { 100, 255 }, { 512, 512 } };
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0, isa_differ = 0, routines = 0, views = 0;
   for (int n = 0; n < 80; n++) {
      struct image im;
      const uint32_t *sz = sizes[pick(8)];
      uint32_t levels = pick(2) ? full_levels(sz[0], sz[1]) : 1;
      make_image(&im, formats[pick(3)], VK_IMAGE_VIEW_TYPE_2D, sz[0], sz[1], levels, 1);
      if (pick(4) == 0)
         for (int k = 0; k < 4; k++)
            im.v.swizzle[k] = VK_COMPONENT_SWIZZLE_R + (k + 1) % 4;
      struct shale_sampler_desc s;
      random_sampler(&s, levels);
      s.mag_filter = s.min_filter = VK_FILTER_NEAREST;
      s.mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
      s.address_mode[0] = fast_modes[pick(3)];
      s.address_mode[1] = fast_modes[pick(3)];
      s.min_lod = 0.0f;
      s.max_lod = pick(2) ? 0.0f : 0.25f;
      const struct shale_sampler_desc *known = pick(2) ? &s : NULL;
      shale_sample_fn fn = sr_sample_select_isa(&im.v, known, true);
      shale_sample_fn fn2 = select_avx2(&im.v, known);
      routines += fn2 != fn;
      views++;
      const float w = (float)sz[0], h = (float)sz[1];
      for (int c = 0; c < 40; c++) {
         struct shale_sample_args a;
         memset(&a, 0, sizeof(a));
         a.op = pick(2) ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
         a.lanes = pick(4) ? 0xffff : (rnd() & 0xffff) | 1;
         float k = frand(0.2f, 3.0f), ang = pick(3) ? frand(0.0f, 6.2831853f) : 0.0f;
         float d[4];
         draw_grads(k, ang, 1.0f, pick(4) ? 1.0f : -1.0f, w, h, d);
         float s0 = frand(-1.5f, 2.5f), t0 = frand(-1.5f, 2.5f);
         const bool block = pick(2);
         for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++)
            draw_lane_in(&a, l, s0, t0, d, log2f(k), block);
         near_call(fn, fn2, &im, &s, &a, &hook, &t, &differ, &isa_differ);
         calls++;
      }
      free(im.mem);
   }
   printf("AVX-512 NEAREST: %ld of %ld views on another routine than AVX2's, %ld calls, %" PRIu64
          " through near_chunk16 (made twice a call, windows and gathers), %" PRIu64
          " eight-lane windows (AVX2 chunks), %ld results differing from the gathers', %ld from the AVX2 "
          "routine's, %ld lanes against sr_sample (%ld compared exactly), %ld disagreements\n",
          routines, views, calls, hook.near16_calls, hook.windows, differ, isa_differ, t.lanes,
          t.exact, t.bad);
   CHECK(differ == 0, "%ld calls differ between windows and gathers", differ);
   CHECK(isa_differ == 0, "%ld calls differ between the AVX-512 and AVX2 routines", isa_differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
   CHECK(t.exact == t.lanes && t.lanes > 10000, "only %ld of %ld lanes compared exactly", t.exact,
         t.lanes);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
       __builtin_cpu_supports("avx512vl")) {
      CHECK(routines == views, "only %ld of %ld views get the AVX-512 routine", routines, views);
      CHECK(hook.near16_calls == 2 * (uint64_t)calls, "only %" PRIu64 " of %ld calls (twice) "
            "through near_chunk16", hook.near16_calls, calls);
   }
#endif
}

/* Every 8-bit UNORM code through the single-level NEAREST routines
 * (sr_sample_fast.c's unorm8_16 in near_chunk16 where the CPU has
 * AVX-512, vdiv255 in near_chunk32 otherwise): a 16 x 16 view of one level
 * whose texel i holds codes i, 255 - i, 7 i and 11 i + 5 (mod 256: each
 * byte takes every code), in R8G8B8A8, B8G8R8A8 and A8B8G8R8_PACK32,
 * identity and reversed swizzles, read at texel centres sixteen texels a
 * call (all lanes asked for, or lanes 1 .. 14), with windows and with
 * gathers only (the AVX2 routine's switch), and through the AVX2 routine: every component must hold
 * the bits of code / 255.0f (the correctly rounded quotient, what
 * su_unpack_float gives; checked against it too) of the byte the format
 * and swizzle name. Where the CPU has AVX-512 F, BW, DQ and VL, every
 * call must have run near_chunk16. */
static void test_unorm8_codes(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_A8B8G8R8_UNORM_PACK32 };
   long bad = 0, checked = 0, calls = 0, unpack_bad = 0;
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   /* Each code's quotient, and su_unpack_float's. */
   for (int c = 0; c < 256; c++) {
      const struct su_format_desc *d = su_format_desc(VK_FORMAT_R8_UNORM);
      uint8_t b = (uint8_t)c;
      float rgba[4];
      su_unpack_float(d, &b, rgba);
      float q = (float)c / 255.0f;
      unpack_bad += memcmp(&q, &rgba[0], 4) != 0;
   }
   uint8_t *mem = malloc(16 * 16 * 4);
   for (int i = 0; i < 256; i++) {
      mem[4 * i] = (uint8_t)i;
      mem[4 * i + 1] = (uint8_t)(255 - i);
      mem[4 * i + 2] = (uint8_t)(7 * i);
      mem[4 * i + 3] = (uint8_t)(11 * i + 5);
   }
   for (int fi = 0; fi < 3; fi++) {
      for (int rev = 0; rev < 2; rev++) {
         struct shale_image_view_desc v;
         memset(&v, 0, sizeof(v));
         v.row_pitch[0] = 64;
         v.slice_pitch[0] = 1024;
         sample_view_init(&v, mem, formats[fi], VK_IMAGE_VIEW_TYPE_2D, 16, 16, 1, 1, 4);
         if (rev)
            for (int k = 0; k < 4; k++)
               v.swizzle[k] = VK_COMPONENT_SWIZZLE_A - k;
         struct image im = { .v = v, .mem = mem };
         struct shale_sampler_desc s;
         random_sampler(&s, 1);
         s.mag_filter = s.min_filter = VK_FILTER_NEAREST;
         s.mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
         s.address_mode[0] = s.address_mode[1] = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
         s.min_lod = s.max_lod = 0.0f;
         shale_sample_fn fn = sr_sample_select_isa(&v, &s, true);
         shale_sample_fn fn2 = select_avx2(&v, &s);
         for (int part = 0; part < 2; part++) {
            for (int i0 = 0; i0 < 256; i0 += SHALE_MAX_SIMD_WIDTH) {
               struct shale_sample_args a;
               memset(&a, 0, sizeof(a));
               a.op = SHALE_SAMPLE_LOD;
               a.lanes = part ? 0x7ffe : 0xffff;
               for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
                  a.coord[0][l] = ((float)((i0 + l) % 16) + 0.5f) / 16.0f;
                  a.coord[1][l] = ((float)((i0 + l) / 16) + 0.5f) / 16.0f;
               }
               struct shale_sample_args runs[3] = { a, a, a };
               sr_sample_fast_test = &hook;
               fn(&v, &s, &runs[0]);
               hook.gathers_only = true;
               fn(&v, &s, &runs[1]);
               hook.gathers_only = false;
               sr_sample_fast_test = NULL;
               fn2(&v, &s, &runs[2]);
               calls++;
               for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
                  if (!(a.lanes & (1u << l)))
                     continue;
                  const uint8_t *tx = mem + 4 * (i0 + l);
                  for (int k = 0; k < 4; k++) {
                     /* The format's component (R, G, B, A) the swizzle names, and its byte. */
                     int comp = rev ? 3 - k : k;
                     int byte = formats[fi] == VK_FORMAT_B8G8R8A8_UNORM && comp != 3 ? 2 - comp : comp;
                     float want = (float)tx[byte] / 255.0f;
                     for (int r = 0; r < 3; r++) {
                        float got = as_float(runs[r].result[k][l]);
                        checked++;
                        if (memcmp(&got, &want, 4) != 0 && bad++ < 10)
                           fprintf(stderr, "format %d swizzle %d run %d: code %d gave %.9g, "
                                   "not %.9g\n", fi, rev, r, tx[byte], got, want);
                     }
                  }
               }
               compare_call(fn, &im, &s, &a, true, &t, false);
            }
         }
      }
   }
   free(mem);
   printf("UNORM8 codes through the NEAREST routines: %ld calls (three runs each), %ld components "
          "checked, %" PRIu64 " calls through near_chunk16, %ld wrong; %ld quotients differ from "
          "su_unpack_float; %ld lanes against sr_sample, %ld disagreements\n", calls, checked,
          hook.near16_calls, bad, unpack_bad, t.lanes, t.bad);
   CHECK(bad == 0, "%ld components differ from code / 255.0f", bad);
   CHECK(t.bad == 0 && t.exact == t.lanes, "%ld of %ld lanes differ from sr_sample", t.bad, t.lanes);
   CHECK(unpack_bad == 0, "%ld codes: su_unpack_float differs from code / 255.0f", unpack_bad);
   CHECK(checked == 3L * 6 * 4 * (256 + 224), "%ld components checked", checked);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
       __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
       __builtin_cpu_supports("avx512vl"))
      CHECK(hook.near16_calls == 2 * (uint64_t)calls, "only %" PRIu64 " of %ld calls (twice) "
            "through near_chunk16", hook.near16_calls, calls);
#endif
}

/* The fixed-point and sRGB trilinear routines' level-0 shortcut
 * (sr_sample_fast_body.h's fixed_select): calls laid out as a draw lays
 * them (two quads per eight lanes, one gradient a quad as implicit LOD
 * gives it) at 0.05 to 2.5 texels a pixel, so chunks are magnified or not,
 * with sampler biases of -2 to 1, Bias operands now and then, minLod -1,
 * 0 or 0.5, maxLod 1000, 0 or 0.5, and views of one level or all, on
 * power-of-two RGBA8 UNORM and sRGB views in the trilinear REPEAT state.
 * Each call runs with the shortcut and without (sr_sample_fast_test's
 * no_shortcut): identical bits (it skips the LOD only where the LOD can
 * select nothing but level 0), and within FIXED_TOLERANCE or 1e-5 of
 * sr_sample() (compare_call). Where the CPU has AVX2, some chunks must
 * have taken it and some not. */
static void test_level0(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_R8G8B8A8_SRGB };
   static const uint32_t sizes[] = { 4, 16, 64, 256 };
   static const float min_lods[] = { -1.0f, 0.0f, 0.5f }, max_lods[] = { 1000.0f, 0.0f, 0.5f };
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0;
   uint64_t full = 0;
   for (int n = 0; n < 60; n++) {
      struct image im;
      uint32_t w = sizes[pick(4)], h = sizes[pick(4)];
      uint32_t levels = pick(4) ? full_levels(w, h) : 1;
      VkFormat fmt = formats[pick(3)];
      make_image(&im, fmt, VK_IMAGE_VIEW_TYPE_2D, w, h, levels, 1);
      struct shale_sampler_desc s;
      random_sampler(&s, levels);
      trilinear_repeat(&s);
      s.mip_lod_bias = pick(2) ? 0.0f : frand(-2.0f, 1.0f);
      s.min_lod = min_lods[pick(3)];
      s.max_lod = max_lods[pick(3)];
      if (s.max_lod < s.min_lod)
         s.max_lod = s.min_lod;
      shale_sample_fn fn = sr_sample_select_isa(&im.v, pick(2) ? &s : NULL, true);
      for (int c = 0; c < 40; c++) {
         struct shale_sample_args a;
         memset(&a, 0, sizeof(a));
         a.op = SHALE_SAMPLE_GRAD | (pick(4) ? 0 : SHALE_SAMPLE_BIAS);
         a.lanes = pick(4) ? 0xffff : (rnd() & 0xffff) | 1;
         float s0 = frand(-3.0f, 3.0f), t0 = frand(-3.0f, 3.0f);
         for (int q = 0; q < SHALE_MAX_SIMD_WIDTH / 4; q++) {
            float k = frand(0.05f, 2.5f), ang = pick(3) ? 0.0f : frand(0.0f, 6.2831853f);
            float d[4];
            draw_grads(k, ang, 1.0f, 1.0f, (float)w, (float)h, d);
            float bias = pick(2) ? 0.0f : frand(-1.0f, 0.5f);
            for (int i = 0; i < 4; i++)
               draw_lane(&a, q * 4 + i, s0, t0, d, bias);
         }
         differ += hook_differs(fn, &im, &s, &a, &hook, &hook.no_shortcut);
         compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, true));
         calls++;
         for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += 8)
            full += ((a.lanes >> l0) & 0xffu) != 0;
      }
      free(im.mem);
   }
   printf("level-0 shortcut: %ld calls, %" PRIu64 " of %" PRIu64 " chunks skipped the LOD, "
          "%ld results differing from the LOD's, %ld lanes against sr_sample (largest "
          "difference %.3g), %ld disagreements\n",
          calls, hook.level0_chunks, full, differ, t.lanes, t.worst_fixed, t.bad);
   CHECK(differ == 0, "%ld calls differ with and without the shortcut", differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx2")) {
      CHECK(hook.level0_chunks > full / 8, "only %" PRIu64 " of %" PRIu64 " chunks took it",
            hook.level0_chunks, full);
      CHECK(hook.level0_chunks < full * 7 / 8, "%" PRIu64 " of %" PRIu64 " chunks took it",
            hook.level0_chunks, full);
   }
#endif
}

/* sr_sample_fast_nl.h's states, drawn more often than test_fast's random
 * samplers draw them: both filters NEAREST or both LINEAR, on views of one
 * level or many with maxLod 0 (lambda then chooses nothing: the paths skip
 * it) or any maxLod, odd and power-of-two sizes (800x600 as glmark2's
 * scenes sample), each address mode on s and t, 2D and 2D-array, offsets
 * now and then. NEAREST with NEAREST mipmaps (or one level) must give
 * sr_sample()'s bits; 8-bit UNORM RGBA / BGRA with LINEAR filters in the
 * AVX2 build is held to FIXED_TOLERANCE; anything else to 1e-5 (compare_call). */
static void test_nl(bool avx2)
{
   static const uint32_t sizes[][2] = { { 1, 1 }, { 3, 5 }, { 37, 2 }, { 100, 255 },
                                        { 800, 600 }, { 256, 256 }, { 64, 3 }, { 500, 500 } };
   struct tally t = { 0 };
   long exact_single = 0;
   for (int n = 0; n < 240; n++) {
      struct image im;
      const uint32_t *sz = sizes[pick(8)];
      uint32_t levels = pick(2) ? full_levels(sz[0], sz[1]) : 1;
      VkImageViewType ty = pick(3) ? VK_IMAGE_VIEW_TYPE_2D : VK_IMAGE_VIEW_TYPE_2D_ARRAY;
      make_image(&im, fast_formats[pick(FAST_FORMATS)], ty, sz[0], sz[1], levels,
                 ty == VK_IMAGE_VIEW_TYPE_2D_ARRAY ? 1 + pick(3) : 1);
      struct shale_sampler_desc s;
      random_sampler(&s, levels);
      s.mag_filter = s.min_filter = n & 1 ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
      s.address_mode[0] = fast_modes[(n >> 1) % 3];
      s.address_mode[1] = fast_modes[pick(3)];
      if (pick(2)) {
         s.min_lod = 0.0f;
         s.max_lod = pick(2) ? 0.0f : 0.25f;   /* vkcube's and zink's one-level clamp */
      }
      bool single = levels == 1 || s.max_lod <= 0.0f ||
                    (s.mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST && s.max_lod <= 0.5f);
      shale_sample_fn fn = sr_sample_select_isa(&im.v, pick(2) ? &s : NULL, avx2);
      CHECK(fn != sr_sample || (!avx2 && !SR_SAMPLE_FAST_PORTABLE), "format %u: no fast routine",
            im.v.format);
      for (int c = 0; c < 10; c++) {
         struct shale_sample_args a;
         random_args(&a, &im);
         if (pick(2))
            a.op &= ~(uint32_t)SHALE_SAMPLE_OFFSET;
         compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, avx2));
         if (single && s.mag_filter == VK_FILTER_NEAREST &&
             s.mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST)
            exact_single += __builtin_popcount(a.lanes);
      }
      free(im.mem);
   }
   printf("%s build, nearest and linear states: %ld lanes (%ld nearest, compared exactly, %ld of "
          "them on one level; %ld in fixed point, largest difference %.3g of the range), %ld "
          "skipped near a jump, largest linear difference %.3g, %ld disagreements\n",
          avx2 ? "AVX2" : "portable", t.lanes, t.exact, exact_single, t.fixed, t.worst_fixed,
          t.skipped, t.worst, t.bad);
   CHECK(t.bad == 0, "%ld lanes disagree", t.bad);
   CHECK(exact_single > 1000, "only %ld single-level nearest lanes", exact_single);
   CHECK(t.skipped * 1000 < t.lanes, "%ld of %ld lanes skipped", t.skipped, t.lanes);
#if defined(__x86_64__) || defined(__i386__)
   if (avx2 && __builtin_cpu_supports("avx2"))
      CHECK(t.fixed > 1000, "only %ld lanes in fixed point", t.fixed);
#endif
}

/* The AVX-512 routine's guess at the level (sr_sample_fast.c's
 * fixed_guess16: half the binary exponent of the first lane's larger
 * square), checked against fixed_select16's level: draws of sixteen lanes
 * (4x4 blocks, unrotated) on a 512x512 RGBA8 view of 10 levels in the
 * trilinear REPEAT state with no bias and minLod 0, maxLod 1000 (where the
 * guess is made), at rho = 2^n (1 + m 2^-24) texels a pixel for n in 0 ..
 * 9 and m in -12 .. 12: lambda at or next to an integer, where vhalf_log2
 * rounds n - 4e-8 up to n on the levels above 1, so that the guess (n - 1)
 * misses and the levels are read again. Each call must give the AVX2
 * routine's bits (sr_sample_fast_test's no_avx512) and agree with
 * sr_sample() (compare_call). Where the CPU has the AVX-512 routines'
 * extensions, calls must have been read from a guess and some guesses
 * must have missed. */
static void test_level_guess(void)
{
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, isa_differ = 0;
   struct image im;
   struct shale_sampler_desc s;
   trilinear_512(&im, &s);
   shale_sample_fn fn = sr_sample_select_isa(&im.v, &s, true);
   shale_sample_fn fn2 = select_avx2(&im.v, &s);
   for (int n = 0; n <= 9; n++)
      for (int m = -12; m <= 12; m++)
         for (int c = 0; c < 4; c++) {
            struct shale_sample_args a;
            memset(&a, 0, sizeof(a));
            a.op = SHALE_SAMPLE_GRAD;
            a.lanes = c ? 0xffff : (rnd() & 0xffff) | 0x0101;
            float d[4];
            draw_grads(ldexpf(1.0f + (float)m * 0x1p-24f, n), 0.0f, 1.0f, 1.0f, 512.0f, 512.0f, d);
            float s0 = frand(-3.0f, 3.0f), t0 = frand(-3.0f, 3.0f);
            for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++)
               draw_lane_in(&a, l, s0, t0, d, 0.0f, true);
            struct shale_sample_args wide = a, narrow = a;
            sr_sample_fast_test = &hook;
            fn(&im.v, &s, &wide);
            sr_sample_fast_test = NULL;
            fn2(&im.v, &s, &narrow);
            isa_differ += memcmp(narrow.result, wide.result, sizeof(a.result)) != 0;
            compare_call(fn, &im, &s, &a, false, &t, fixed_point_call(&im, &s, &a, true));
            calls++;
         }
   free(im.mem);
   printf("level guesses: %ld calls, %" PRIu64 " read from a guess, %" PRIu64 " guesses missed, "
          "%ld differing from the AVX2 routine's, %ld lanes against sr_sample (largest difference "
          "%.3g), %ld disagreements\n",
          calls, hook.level_guesses, hook.guess_misses, isa_differ, t.lanes, t.worst_fixed, t.bad);
   CHECK(isa_differ == 0, "%ld calls differ between the AVX-512 and AVX2 routines", isa_differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
#if defined(__x86_64__) || defined(__i386__)
   if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")) {
      CHECK(hook.level_guesses > (uint64_t)calls / 2, "only %" PRIu64 " of %ld calls read from a guess",
            hook.level_guesses, calls);
      CHECK(hook.guess_misses > 0, "no guess of %" PRIu64 " missed", hook.level_guesses);
   }
#endif
}

/* Single-level NEAREST calls with lanes asked for in one half only, or
 * one lane (masks 0x00ff, 0xff00, 0x000f, 0x0f00, lanes 0, 7, 8, 15 and a
 * random one), whose lanes not asked for hold coordinates NaN, +-inf or
 * +-1e30 (their LOD, Bias and gradient operands too): the single-level
 * routines compute lanes they do not store (near_chunk16 all sixteen,
 * near_chunk32 eight), from indices clamped or wrapped into the level,
 * and must neither fault (ASan) nor let those lanes reach the ones asked
 * for. 8-bit UNORM RGBA / BGRA / ABGR views of 1x1 to 256x256 texels,
 * power-of-two (the trilinear-ready routine) and not (the general one),
 * one level or many with maxLod 0 or 0.25, every pair of CLAMP_TO_EDGE,
 * REPEAT and MIRRORED_REPEAT on s and t, offsets now and then. Each call
 * against sr_sample() (exact, and no lane not asked for written:
 * compare_call), with windows and with gathers only (identical bits), and
 * through the AVX2 routine chosen without AVX-512 (identical bits). */
static void test_near16_half_lanes(void)
{
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_A8B8G8R8_UNORM_PACK32 };
   static const uint32_t sizes[][2] = { { 1, 1 }, { 15, 9 }, { 16, 16 }, { 37, 5 },
                                        { 100, 255 }, { 256, 256 }, { 64, 32 } };
   static const uint32_t masks[] = { 0x00ff, 0xff00, 0x000f, 0x0f00, 0x0001, 0x0080, 0x0100, 0x8000 };
   static const float garbage[] = { NAN, INFINITY, -INFINITY, 1e30f, -1e30f };
   struct sr_sample_fast_test hook = { 0 };
   struct tally t = { 0 };
   long calls = 0, differ = 0, isa_differ = 0;
   for (int n = 0; n < 28; n++) {
      struct image im;
      const uint32_t *sz = sizes[n % 7];
      const uint32_t levels = pick(2) ? full_levels(sz[0], sz[1]) : 1;
      make_image(&im, formats[pick(3)], VK_IMAGE_VIEW_TYPE_2D, sz[0], sz[1], levels, 1);
      const float w = (float)sz[0], h = (float)sz[1];
      for (int mode = 0; mode < 9; mode++) {
         struct shale_sampler_desc s;
         random_sampler(&s, levels);
         s.mag_filter = s.min_filter = VK_FILTER_NEAREST;
         s.mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
         s.address_mode[0] = fast_modes[mode % 3];
         s.address_mode[1] = fast_modes[mode / 3];
         s.mip_lod_bias = 0.0f;
         s.min_lod = 0.0f;
         s.max_lod = pick(2) ? 0.0f : 0.25f;
         const struct shale_sampler_desc *known = pick(2) ? &s : NULL;
         shale_sample_fn fn = sr_sample_select_isa(&im.v, known, true);
         shale_sample_fn fn2 = select_avx2(&im.v, known);
         for (int c = 0; c < 10; c++) {
            struct shale_sample_args a;
            memset(&a, 0, sizeof(a));
            a.op = pick(2) ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
            const int m = pick(9);
            a.lanes = m < 8 ? masks[m] : 1u << pick(16);
            const float k = frand(0.2f, 3.0f);
            const float ang = pick(3) ? frand(0.0f, 6.2831853f) : 0.0f;
            float d[4];
            draw_grads(k, ang, 1.0f, pick(4) ? 1.0f : -1.0f, w, h, d);
            const float s0 = frand(-1.5f, 2.5f), t0 = frand(-1.5f, 2.5f);
            const bool block = pick(2);
            for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
               draw_lane_in(&a, l, s0, t0, d, log2f(k), block);
               if (a.lanes >> l & 1)
                  continue;
               a.coord[0][l] = garbage[pick(5)];
               a.coord[1][l] = garbage[pick(5)];
               a.lod[l] = garbage[pick(5)];
               for (int g = 0; g < 4; g++)
                  a.grad[g >> 1][g & 1][l] = garbage[pick(5)];
            }
            near_call(fn, fn2, &im, &s, &a, &hook, &t, &differ, &isa_differ);
            calls++;
         }
      }
      free(im.mem);
   }
   printf("NEAREST, lanes in one half or one lane, the others NaN / inf / 1e30: %ld calls, %" PRIu64
          " through near_chunk16 (twice a call), %ld results differing from the gathers', %ld from "
          "the AVX2 routine's, %ld lanes against sr_sample (%ld exactly), %ld disagreements\n",
          calls, hook.near16_calls, differ, isa_differ, t.lanes, t.exact, t.bad);
   CHECK(differ == 0, "%ld calls differ between windows and gathers", differ);
   CHECK(isa_differ == 0, "%ld calls differ between the AVX-512 and AVX2 routines", isa_differ);
   CHECK(t.bad == 0, "%ld lanes disagree with sr_sample", t.bad);
   CHECK(t.exact == t.lanes && t.lanes > 5000, "only %ld of %ld lanes compared exactly", t.exact,
         t.lanes);
}

int main(void)
{
   test_window();
   test_block_windows();
   test_srgb_window();
   test_srgb_fixed();
   test_single_windows(VK_FILTER_NEAREST);
   test_single_windows(VK_FILTER_LINEAR);
   test_near16();
   test_unorm8_codes();
   test_level0();
   test_far(false);
   test_far(true);
   test_fast(false);
   test_fast(true);
   test_nl(false);
   test_nl(true);
   test_fallback(false);
   test_fallback(true);
   test_level_guess();
   test_near16_half_lanes();   /* last: no other test's random draws move */
   return check_finish();
}
