/* Unit test: anisotropic filtering in sr_sample() (samplerAnisotropy,
 * maxSamplerAnisotropy 16), the spec's Texel Anisotropic Filtering as
 * sr_sample.h's design note defines it. On random 2D and 2D-array
 * R32G32B32A32_SFLOAT views (texels in [0, 1], 1 to 7 levels) with LINEAR
 * filters, NEAREST and LINEAR mipmap modes, REPEAT and CLAMP_TO_EDGE:
 *  - isotropic footprints (d/dy the d/dx vector turned by 90 degrees on a
 *    square view, so rho_x == rho_y exactly) give the bits of the same
 *    sampler with maxAnisotropy 1, whatever maxAnisotropy;
 *  - anisotropic footprints (ratios 1.5 to 200, maxAnisotropy 2 to 16, the
 *    long axis x or y) match a CPU reference of the definition built from
 *    isotropic samples: eta = min(rho_max / rho_min, maxAniso), lambda =
 *    log2(rho_max / eta), the mean of ceil(eta) samples at explicit LOD
 *    lambda (sr_sample with maxAnisotropy 1) at s + (i / (N + 1) - 1/2) *
 *    d(s, t)/d(major axis), i = 1 .. N, within 1e-5 (the implementation
 *    averages each level's probes before the mipmap blend, the reference
 *    after it: the same sums in another order);
 *  - OpImageQueryLod's lambda is log2(rho_max / eta) (1e-5);
 *  - sr_sample_select() refuses the specialised routines (sr_sample_fast.c)
 *    a sampler with maxAnisotropy above 1, for a view they take, and the
 *    routine it picks for that view without a sampler (sampled images)
 *    gives sr_sample's bits for such a sampler. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rasterizer/sr_sample.h"
#include "sample_view.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rnd(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 7;
   rng_state ^= rng_state << 17;
   return (uint32_t)(rng_state >> 16);
}

static float
frand(float lo, float hi)
{
   return lo + (hi - lo) * (float)(rnd() & 0xffffff) / 16777216.0f;
}

static uint32_t
minify(uint32_t v, uint32_t l)
{
   v >>= l;
   return v ? v : 1;
}

/* A w x w view of `levels` levels and `layers` layers, RGBA32F texels in
 * [0, 1]; 2D or 2D array. */
static uint8_t *
make_view(struct shale_image_view_desc *v, uint32_t w, uint32_t levels, uint32_t layers,
          VkFormat format, uint32_t texel_size)
{
   memset(v, 0, sizeof(*v));
   uint64_t size = 0;
   for (uint32_t l = 0; l < levels; l++) {
      v->row_pitch[l] = minify(w, l) * texel_size;
      v->slice_pitch[l] = v->row_pitch[l] * minify(w, l);
      v->level_offset[l] = size;
      size += v->slice_pitch[l] * layers;
   }
   uint8_t *mem = malloc(size);
   if (texel_size == 16) {
      for (uint64_t i = 0; i + 4 <= size; i += 4) {
         float x = frand(0.0f, 1.0f);
         memcpy(mem + i, &x, 4);
      }
   } else {
      for (uint64_t i = 0; i < size; i++)
         mem[i] = (uint8_t)rnd();
   }
   sample_view_init(v, mem, format,
                    layers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D, w, w,
                    levels, layers, texel_size);
   return mem;
}

static float
lane_f(const struct shale_sample_args *a, int k, int l)
{
   float f;
   memcpy(&f, &a->result[k][l], 4);
   return f;
}

/* The reference's lambda and probes of one footprint (sr_sample.h's
 * definition, in float as the routine computes rho). */
struct ref_fp {
   float lambda, ds, dt;
   unsigned n;
};

static struct ref_fp
ref_footprint(const float d[2][2], float size, float max_aniso)
{
   float rho[2];
   for (int e = 0; e < 2; e++) {
      float m0 = d[e][0] * size, m1 = d[e][1] * size;
      float sum = 0.0f;
      sum += m0 * m0;
      sum += m1 * m1;
      rho[e] = sqrtf(sum);
   }
   float rho_max = rho[0] > rho[1] ? rho[0] : rho[1];
   float rho_min = rho[0] > rho[1] ? rho[1] : rho[0];
   float eta = rho_min > 0.0f ? fminf(rho_max / rho_min, max_aniso) : max_aniso;
   int e = rho[0] > rho[1] ? 0 : 1;
   struct ref_fp r = { log2f(rho_max / eta), d[e][0], d[e][1], (unsigned)ceilf(eta) };
   return r;
}

static void
test_calls(void)
{
   unsigned iso = 0, aniso = 0, probes_max = 0;
   double worst = 0.0;
   for (int iter = 0; iter < 400; iter++) {
      uint32_t w = 1u << (2 + rnd() % 5);   /* 4 .. 64 */
      uint32_t levels = 1 + rnd() % 7;
      if (levels > 1 + (uint32_t)log2f((float)w))
         levels = 1 + (uint32_t)log2f((float)w);
      uint32_t layers = rnd() % 3 == 0 ? 3 : 1;
      struct shale_image_view_desc v;
      uint8_t *mem = make_view(&v, w, levels, layers, VK_FORMAT_R32G32B32A32_SFLOAT, 16);
      struct shale_sampler_desc plain = {
         .mag_filter = VK_FILTER_LINEAR, .min_filter = VK_FILTER_LINEAR,
         .mipmap_mode = rnd() & 1 ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST,
         .address_mode = { rnd() & 1 ? VK_SAMPLER_ADDRESS_MODE_REPEAT
                                     : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                           rnd() & 1 ? VK_SAMPLER_ADDRESS_MODE_REPEAT
                                     : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
                           VK_SAMPLER_ADDRESS_MODE_REPEAT },
         .min_lod = 0.0f, .max_lod = 16.0f, .max_anisotropy = 1.0f,
      };
      struct shale_sampler_desc an = plain;
      static const float maxes[] = { 2.0f, 3.5f, 4.0f, 8.0f, 16.0f };
      an.max_anisotropy = maxes[rnd() % 5];
      for (int call = 0; call < 8; call++) {
         bool isotropic = call < 3;
         float s = frand(-0.5f, 1.5f), t = frand(-0.5f, 1.5f);
         float layer = (float)(rnd() % layers);
         /* The major derivative: a random direction of length 0.5 .. 64
          * texels; the minor one perpendicular, its length over the ratio. */
         float ang = frand(0.0f, 6.2831853f), len = frand(0.5f, 64.0f) / (float)w;
         float a = cosf(ang) * len, b = sinf(ang) * len;
         float ratio = isotropic ? 1.0f : frand(1.5f, 200.0f);
         float d[2][2];
         bool major_y = rnd() & 1;
         d[major_y][0] = a;
         d[major_y][1] = b;
         d[!major_y][0] = isotropic ? -b : -b / ratio;
         d[!major_y][1] = isotropic ? a : a / ratio;
         struct shale_sample_args args, plain_args;
         memset(&args, 0, sizeof(args));
         args.op = SHALE_SAMPLE_GRAD;
         args.lanes = 1;
         args.coord[0][0] = s;
         args.coord[1][0] = t;
         args.coord[2][0] = layer;
         for (int e = 0; e < 2; e++)
            for (int k = 0; k < 2; k++)
               args.grad[e][k][0] = d[e][k];
         plain_args = args;
         sr_sample(&v, &an, &args);
         if (isotropic) {
            sr_sample(&v, &plain, &plain_args);
            iso++;
            CHECK(memcmp(args.result, plain_args.result, sizeof(args.result)) == 0,
                  "isotropic footprint (%g, %g), (%g, %g), maxAnisotropy %g: differs from 1", d[0][0],
                  d[0][1], d[1][0], d[1][1], an.max_anisotropy);
            continue;
         }
         aniso++;
         struct ref_fp r = ref_footprint(d, (float)w, an.max_anisotropy);
         if (r.n > probes_max)
            probes_max = r.n;
         double acc[4] = { 0, 0, 0, 0 };
         for (unsigned i = 1; i <= r.n; i++) {
            float f = (float)i / (float)(r.n + 1) - 0.5f;
            struct shale_sample_args p;
            memset(&p, 0, sizeof(p));
            p.op = SHALE_SAMPLE_LOD;
            p.lanes = 1;
            p.coord[0][0] = s + f * r.ds;
            p.coord[1][0] = t + f * r.dt;
            p.coord[2][0] = layer;
            p.lod[0] = r.lambda;
            sr_sample(&v, &plain, &p);
            for (int k = 0; k < 4; k++)
               acc[k] += lane_f(&p, k, 0);
         }
         for (int k = 0; k < 4; k++) {
            double want = acc[k] / r.n, diff = fabs(lane_f(&args, k, 0) - want);
            if (diff > worst)
               worst = diff;
            CHECK(diff <= 1e-5, "anisotropic footprint (%g, %g), (%g, %g) on %ux%u (%u levels), "
                  "maxAnisotropy %g, N %u: component %d %.7g, reference %.7g", d[0][0], d[0][1],
                  d[1][0], d[1][1], w, w, levels, an.max_anisotropy, r.n, k,
                  lane_f(&args, k, 0), want);
         }
         /* OpImageQueryLod's lambda. */
         struct shale_sample_args q = plain_args;
         q.op = SHALE_SAMPLE_QUERY_LOD;
         sr_sample(&v, &an, &q);
         CHECK(fabsf(lane_f(&q, 1, 0) - r.lambda) <= 1e-5f, "QueryLod lambda %g, reference %g",
               lane_f(&q, 1, 0), r.lambda);
      }
      free(mem);
   }
   printf("%u isotropic and %u anisotropic calls (up to %u probes), worst difference %.3g\n", iso,
          aniso, probes_max, worst);
   CHECK(probes_max == 16, "the calls reached %u probes, not 16", probes_max);
}

static void
test_select(void)
{
   struct shale_image_view_desc v;
   uint8_t *mem = make_view(&v, 16, 5, 1, VK_FORMAT_R8G8B8A8_UNORM, 4);
   struct shale_sampler_desc s = {
      .mag_filter = VK_FILTER_LINEAR, .min_filter = VK_FILTER_LINEAR,
      .mipmap_mode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
      .address_mode = { VK_SAMPLER_ADDRESS_MODE_REPEAT, VK_SAMPLER_ADDRESS_MODE_REPEAT,
                        VK_SAMPLER_ADDRESS_MODE_REPEAT },
      .max_lod = 16.0f, .max_anisotropy = 1.0f,
   };
   shale_sample_fn iso_fn = sr_sample_select(&v, &s);
   s.max_anisotropy = 16.0f;
   CHECK(sr_sample_select(&v, &s) == sr_sample, "maxAnisotropy 16: a specialised routine");
   CHECK(sr_sample_select_isa(&v, &s, false) == sr_sample,
         "maxAnisotropy 16: a portable specialised routine");
   /* Sampled images take their routine without knowing the sampler: the
    * routine chosen for the view must hand an anisotropic call to
    * sr_sample (the same bits), in both builds. */
   for (int isa = 0; isa < 2; isa++) {
      shale_sample_fn fn = sr_sample_select_isa(&v, NULL, isa == 1);
      s.mipmap_mode = VK_SAMPLER_MIPMAP_MODE_LINEAR;
      struct shale_sample_args a, b;
      memset(&a, 0, sizeof(a));
      a.op = SHALE_SAMPLE_GRAD;
      a.lanes = (1u << SHALE_MAX_SIMD_WIDTH) - 1;
      for (int l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
         a.coord[0][l] = frand(0.0f, 1.0f);
         a.coord[1][l] = frand(0.0f, 1.0f);
         a.grad[0][0][l] = 0.5f;       /* 8 texels along x */
         a.grad[1][1][l] = 1.0f / 64;  /* a quarter texel along y */
      }
      b = a;
      fn(&v, &s, &a);
      sr_sample(&v, &s, &b);
      CHECK(memcmp(a.result, b.result, sizeof(a.result)) == 0,
            "the view's routine (%s build) differs from sr_sample on an anisotropic call",
            isa ? "AVX2" : "portable");
   }
   printf("maxAnisotropy 1 on this view: %s\n",
          iso_fn == sr_sample ? "sr_sample" : "a specialised routine");
   free(mem);
}

int
main(void)
{
   test_calls();
   test_select();
   return check_finish();
}
