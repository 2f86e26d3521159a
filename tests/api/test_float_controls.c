/* Float controls (VK_KHR_shader_float_controls, promoted to Vulkan 1.2)
 * through the loader with the validation layer, on Shale and (when it
 * offers the same) lavapipe: fc.spvasm declares DenormPreserve,
 * SignedZeroInfNanPreserve and RoundingModeRTE for 32- and 64-bit floats
 * and adds, subtracts, multiplies and divides pairs of floats and of
 * doubles and converts between the widths, on inputs chosen for the rules
 * those modes fix: denormal operands and results (kept, not flushed),
 * signed zeros, infinities and NaNs (kept, and NaN where IEEE 754 says),
 * halfway cases (rounded to even), conversions into the float denormal
 * range and past its largest value, plus random values. Every result is
 * compared bit for bit with the host's IEEE 754 arithmetic (SSE, round to
 * nearest even, denormals kept); NaNs compare as NaNs whatever their
 * payload. The properties Shale reports are checked against what the test
 * holds it to: preserve and RTE for 32 and 64 bits, no flush-to-zero or
 * RTZ, nothing for 16-bit floats (no shaderFloat16).
 *
 * The expected results are computed once, in the default environment (the
 * test checks MXCSR has no FTZ, DAZ or directed rounding). Shale then runs
 * a second time from an application thread that set FTZ, DAZ and rounding
 * toward zero before creating the device, as a program linked with
 * -ffast-math (crtfastmath) or one that called fesetround() does: the
 * shader's results must not change, since the driver's threads inherit
 * their creator's environment unless Shale sets its own (util/su_fp.h). */
#include <fenv.h>
#include <math.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"
#include "xorshift.h"

#include "fc_spv.h"

#define N 64

static float a[N], b[N];
static double c[N], d[N];
static float want_f[N][5];
static double want_d[N][5];

static uint64_t rng = 0x853C49E6748FEA9Bull;

static uint64_t
rnd64(void)
{
   return xorshift64(&rng);
}

static float
fb(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

static double
db(uint64_t u)
{
   double v;
   memcpy(&v, &u, 8);
   return v;
}

static void
make_inputs(void)
{
   const float fnan = fb(0x7fc00000u), finf = fb(0x7f800000u);
   const double dnan = db(0x7ff8000000000000ull), dinf = db(0x7ff0000000000000ull);
   /* [a, b] pairs for floats */
   const float fpairs[][2] = {
      { 1e-40f, 1e-40f },                   /* denormal + denormal */
      { ldexpf(1, -126), 0.5f },            /* smallest normal * 0.5: denormal */
      { ldexpf(1, -126), 4.0f },            /* / 4: denormal */
      { ldexpf(3, -128), ldexpf(1, -126) }, /* denormal - normal: denormal */
      { ldexpf(1, -149), 3.0f },            /* smallest denormal * 3 */
      { ldexpf(1, -70), ldexpf(1, -70) },   /* underflow to zero (exact 0 product) */
      { -0.0f, -0.0f },                     /* -0 + -0 = -0 */
      { 0.0f, 0.0f },
      { -0.0f, 5.0f },                      /* -0 * 5 = -0 */
      { 1.0f, -finf },                      /* 1 / -inf = -0 */
      { finf, 1.0f },
      { finf, -finf },                      /* inf + -inf = NaN */
      { finf, 0.0f },                       /* inf * 0 = NaN */
      { -1.0f, 0.0f },                      /* -1 / 0 = -inf */
      { 0.0f, 0.0f },
      { fnan, 1.0f },
      { 1.0f, ldexpf(1, -24) },             /* halfway: 1 (even) */
      { 1.0f + ldexpf(1, -23), ldexpf(1, -24) },   /* halfway: up to even */
      { 3.4028235e38f, 3.4028235e38f },     /* overflow to inf */
      { 1.0f, 3.0f },                       /* 1/3 rounded to nearest */
   };
   const double dpairs[][2] = {
      { ldexp(1, -1074), ldexp(1, -1074) },
      { ldexp(1, -1022), 0.5 },
      { ldexp(1, -1022), 8.0 },
      { ldexp(3, -1024), ldexp(1, -1022) },
      { ldexp(1, -1074), 5.0 },
      { ldexp(1, -600), ldexp(1, -600) },
      { -0.0, -0.0 },
      { 0.0, -0.0 },
      { -0.0, 7.0 },
      { 2.0, -dinf },
      { dinf, 1.0 },
      { dinf, -dinf },
      { dinf, 0.0 },
      { -2.0, 0.0 },
      { 0.0, 0.0 },
      { dnan, 1.0 },
      { 1.0, ldexp(1, -53) },
      { 1.0 + ldexp(1, -52), ldexp(1, -53) },
      { 1.7976931348623157e308, 1.7976931348623157e308 },
      { 1.0, 3.0 },
   };
   /* c values whose conversion to float tests RTE and denormals */
   const double conv[] = {
      ldexp(1, -140), 1.0 + ldexp(1, -24), 1.0 + ldexp(3, -24), 1e300, -0.0, ldexp(1, -150),
      ldexp(3, -150), -ldexp(5, -151), ldexp(1, -149) * 1.5, 3.4028235677973366e38,
   };
   const int nf = sizeof(fpairs) / sizeof(fpairs[0]), nd = sizeof(dpairs) / sizeof(dpairs[0]);
   const int nc = sizeof(conv) / sizeof(conv[0]);
   for (int i = 0; i < N; i++) {
      uint64_t r = rnd64();
      a[i] = fb((uint32_t)r & 0xbf7fffffu);   /* finite, random exponents below 2^64 */
      b[i] = fb((uint32_t)(r >> 32) & 0xbf7fffffu);
      c[i] = db(rnd64() & 0xbfefffffffffffffull);
      d[i] = db(rnd64() & 0xbfefffffffffffffull);
      if (i < nf) {
         a[i] = fpairs[i][0];
         b[i] = fpairs[i][1];
      }
      if (i < nd) {
         c[i] = dpairs[i][0];
         d[i] = dpairs[i][1];
      }
      if (i >= 32 && i - 32 < nc)
         c[i] = conv[i - 32];
   }
}

/* IEEE 754's results in the default environment, computed before any run. */
static void
make_expected(void)
{
#if defined(__x86_64__) || defined(__i386__)
   CHECK((_mm_getcsr() & 0xe040u) == 0, "the test starts with MXCSR %#x (FTZ/DAZ/rounding set)",
         _mm_getcsr());
#endif
   CHECK(fegetround() == FE_TONEAREST, "the test starts with rounding mode %d", fegetround());
   for (int i = 0; i < N; i++) {
      const float wf[5] = { a[i] + b[i], a[i] - b[i], a[i] * b[i], a[i] / b[i], (float)c[i] };
      const double wd[5] = { c[i] + d[i], c[i] - d[i], c[i] * d[i], c[i] / d[i], (double)a[i] };
      memcpy(want_f[i], wf, sizeof(wf));
      memcpy(want_d[i], wd, sizeof(wd));
   }
}

static bool
same_f(float x, float y)
{
   return (isnan(x) && isnan(y)) || memcmp(&x, &y, 4) == 0;
}

static bool
same_d(double x, double y)
{
   return (isnan(x) && isnan(y)) || memcmp(&x, &y, 8) == 0;
}

/* FTZ, DAZ and rounding toward zero on this thread (so in every thread it
 * creates from now on), as a -ffast-math program or fesetround() leaves it;
 * false where the test cannot set them. */
static bool
hostile_env_enter(void)
{
#if defined(__x86_64__) || defined(__i386__)
   if (fesetround(FE_TOWARDZERO) != 0)
      return false;
   _mm_setcsr(_mm_getcsr() | 0x8040u | 0x6000u);
   return (_mm_getcsr() & 0xe040u) == 0xe040u;
#else
   return false;
#endif
}

static void
hostile_env_leave(void)
{
#if defined(__x86_64__) || defined(__i386__)
   _mm_setcsr(_mm_getcsr() & ~0xe040u);
#endif
   fesetround(FE_TONEAREST);
}

static void
run(struct vkt *t, const char *how)
{
   char drv[96];
   snprintf(drv, sizeof(drv), "%s%s", vkt_driver_name(t->driver), how);
   const struct vkt_ssbo_info info = { .code = fc_spv, .code_size = sizeof(fc_spv), .n = 6 };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: fc.spvasm's pipeline: %d", drv, r);
   const VkDeviceSize sizes[6] = { 4 * N, 4 * N, 8 * N, 8 * N, 4 * 5 * N, 8 * 5 * N };
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(t, &s, sizes);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   if (r == VK_SUCCESS) {
      r = vkt_ssbo_set(t, &s);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      memcpy(s.bufs[0].map, a, sizeof(a));
      memcpy(s.bufs[1].map, b, sizeof(b));
      memcpy(s.bufs[2].map, c, sizeof(c));
      memcpy(s.bufs[3].map, d, sizeof(d));
      memset(s.bufs[4].map, 0xcd, sizes[4]);
      memset(s.bufs[5].map, 0xcd, sizes[5]);
      r = vkt_ssbo_dispatch(t, &s, NULL, 0, N / 16, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
   }
   /* The shader has run: compare (and print) in the default environment. */
   if (how[0])
      hostile_env_leave();
   if (r == VK_SUCCESS) {
      const float *rf = s.bufs[4].map;
      const double *rd = s.bufs[5].map;
      unsigned bad = 0;
      static const char *const ops[5] = { "+", "-", "*", "/", "convert" };
      for (int i = 0; i < N; i++) {
         const float *wf = want_f[i];
         const double *wd = want_d[i];
         for (int o = 0; o < 5; o++) {
            if (!same_f(rf[5 * i + o], wf[o]) && bad++ < 12)
               printf("%s: float %d %s: %a (%.9g %s %.9g / %.17g), expected %a\n", drv, i,
                      ops[o], rf[5 * i + o], a[i], ops[o], b[i], c[i], wf[o]);
            if (!same_d(rd[5 * i + o], wd[o]) && bad++ < 12)
               printf("%s: double %d %s: %a (%.17g %s %.17g / %.9g), expected %a\n", drv, i,
                      ops[o], rd[5 * i + o], c[i], ops[o], d[i], a[i], wd[o]);
         }
      }
      CHECK(bad == 0, "%s: %u results differ from IEEE 754 arithmetic", drv, bad);
   }
   vkt_ssbo_end(t, &s);
}

int
main(void)
{
   make_inputs();
   make_expected();
   /* Shale, Shale again from a thread in a hostile environment, lavapipe. */
   for (int pass = 0; pass < 3; pass++) {
      enum vkt_driver drv = pass == 2 ? VKT_LAVAPIPE : VKT_SHALE;
      const bool hostile = pass == 1;
      const char *dn = vkt_driver_name(drv);
      VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
      bool has_ext;
      const char *ext = VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(drv == VKT_LAVAPIPE, "shale not available");
         continue;
      }
      if (drv == VKT_SHALE)
         CHECK(has_ext && f2.features.shaderFloat64, "Shale: %s %u, shaderFloat64 %u", ext,
               has_ext, f2.features.shaderFloat64);
      if (!has_ext || !f2.features.shaderFloat64) {
         printf("%s lacks %s or shaderFloat64: skipped\n", dn, ext);
         continue;
      }
      if (hostile && !hostile_env_enter()) {
         printf("cannot set FTZ/DAZ/rounding toward zero here: the second Shale run skipped\n");
         continue;
      }
      const VkPhysicalDeviceFeatures core = { .shaderFloat64 = VK_TRUE };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = &ext, .device_extension_count = 1,
                                  .features = &core };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with %s", dn, ext);
         if (hostile)
            hostile_env_leave();
         continue;
      }
      VkPhysicalDeviceFloatControlsProperties fc = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES,
      };
      VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &fc };
      vkGetPhysicalDeviceProperties2(t.pdev, &p2);
      bool needed = fc.shaderDenormPreserveFloat32 && fc.shaderDenormPreserveFloat64 &&
                    fc.shaderSignedZeroInfNanPreserveFloat32 &&
                    fc.shaderSignedZeroInfNanPreserveFloat64 && fc.shaderRoundingModeRTEFloat32 &&
                    fc.shaderRoundingModeRTEFloat64;
      if (drv == VKT_SHALE) {
         CHECK(needed, "Shale: preserve/RTE properties for 32 and 64 bits not all reported");
         CHECK(!fc.shaderDenormFlushToZeroFloat16 && !fc.shaderDenormFlushToZeroFloat32 &&
                  !fc.shaderDenormFlushToZeroFloat64 && !fc.shaderRoundingModeRTZFloat16 &&
                  !fc.shaderRoundingModeRTZFloat32 && !fc.shaderRoundingModeRTZFloat64 &&
                  !fc.shaderDenormPreserveFloat16 && !fc.shaderSignedZeroInfNanPreserveFloat16 &&
                  !fc.shaderRoundingModeRTEFloat16,
               "Shale reports a float control this test does not hold it to");
      }
      if (needed)
         run(&t, hostile ? " (application thread with FTZ, DAZ, round toward zero)" : "");
      else
         printf("%s lacks the preserve/RTE float controls fc.spvasm uses: skipped\n", dn);
      vkt_finish(&t);
      if (hostile)
         hostile_env_leave();   /* where run() did not already */
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
