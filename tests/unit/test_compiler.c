/* Compiler unit test: compiles GLSL / SPIR-V compute shaders, JITs them,
 * runs them with sc_dispatch_compute and checks every output against a C
 * reference, at SIMD widths 4, 8 and 16 (through SHALE_SIMD_WIDTH). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "compiler/sc_compiler.h"

#include "shaders/arraylen_spv.h"
#include "shaders/atomics_spv.h"
#include "shaders/barrier_odd_spv.h"
#include "shaders/barrier_spv.h"
#include "shaders/big_spv.h"
#include "shaders/composites_spv.h"
#include "shaders/control_spv.h"
#include "shaders/floatops_spv.h"
#include "shaders/glsl450_spv.h"
#include "shaders/intops_spv.h"
#include "shaders/misc_spv.h"
#include "shaders/partial_spv.h"
#include "shaders/phi_swap_spv.h"
#include "shaders/private_big_spv.h"
#include "shaders/saxpy_spv.h"
#include "shaders/shared_small_spv.h"
#include "shaders/simple_vert_spv.h"
#include "shaders/spec_spv.h"
#include "shaders/unsupported_op_spv.h"

#define SPV(a) (a), (sizeof(a) / sizeof((a)[0]))

static struct sc_compiler *compiler;
static uint32_t width;   /* SIMD width of this round */

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static enum sc_result
try_compile(const uint32_t *words, size_t count, const char *entry, VkShaderStageFlagBits stage,
            const struct sc_spec_constant *spec, uint32_t nspec, struct sc_shader **out,
            char *msg, size_t msg_size)
{
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = entry,
      .stage = stage,
      .spec_constants = spec,
      .spec_constant_count = nspec,
   };
   return sc_compile(compiler, &info, out, msg, msg_size);
}

static struct sc_shader *
compile_info(const char *name, struct sc_compile_info *info)
{
   char msg[256] = "";
   struct sc_shader *s = NULL;
   info->entry_point = "main";
   info->stage = VK_SHADER_STAGE_COMPUTE_BIT;
   enum sc_result r = sc_compile(compiler, info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "%s: %s (%s)", name, sc_result_string(r), msg);
   return s;
}

static struct sc_shader *
compile_spec(const char *name, const uint32_t *words, size_t count,
             const struct sc_spec_constant *spec, uint32_t nspec)
{
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = try_compile(words, count, "main", VK_SHADER_STAGE_COMPUTE_BIT, spec, nspec,
                                  &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "%s: %s (%s)", name, sc_result_string(r), msg);
   if (s)
      CHECK_EQ_INT(s->simd_width, width);
   return s;
}

static struct sc_shader *
compile(const char *name, const uint32_t *words, size_t count)
{
   return compile_spec(name, words, count, NULL, 0);
}

static void
bind(union shale_descriptor *set, uint32_t binding, void *p, size_t bytes)
{
   set[binding].buffer.base = p;
   set[binding].buffer.range = bytes;
}

static void
dispatch(struct sc_shader *s, struct shale_cs_context *ctx, uint32_t x, uint32_t y, uint32_t z)
{
   const uint32_t base[3] = { 0, 0, 0 }, count[3] = { x, y, z };
   CHECK_EQ_INT(sc_dispatch_compute(s, ctx, base, count), SC_SUCCESS);
}

static uint32_t rng_state = 12345;

static uint32_t
rng(void)
{
   rng_state = rng_state * 1664525u + 1013904223u;
   return rng_state ^ (rng_state >> 15);
}

static double
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* Distance in units in the last place between two finite floats. */
static int64_t
ulps(float a, float b)
{
   int32_t ia = (int32_t)fbits(a), ib = (int32_t)fbits(b);
   if (ia < 0)
      ia = INT32_MIN - ia;
   if (ib < 0)
      ib = INT32_MIN - ib;
   return llabs((long long)ia - ib);
}

static float
flush(float f)
{
   return fpclassify(f) == FP_SUBNORMAL ? copysignf(0.0f, f) : f;
}

/* ------------------------------------------------------------------------ */
/* SAXPY                                                                     */
/* ------------------------------------------------------------------------ */

static void
test_saxpy(bool report_time)
{
   struct sc_shader *s = compile("saxpy", SPV(saxpy_spv));
   if (!s)
      return;
   if (report_time)
      fprintf(stderr, "saxpy: cold compile %.1f ms (W=%u)\n", s->compile_ms, width);
   CHECK_EQ_INT(s->local_size[0], 64);
   CHECK_EQ_INT(s->binding_count, 2);
   CHECK_EQ_INT(s->push_constant_size, 8);
   CHECK_EQ_INT(s->scratch_size, 0);
   for (uint32_t i = 0; i < s->binding_count; i++) {
      CHECK_EQ_INT(s->bindings[i].type, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
      CHECK(s->bindings[i].written == (s->bindings[i].binding == 1), "saxpy binding %u written %d",
            s->bindings[i].binding, s->bindings[i].written);
   }
   enum { N = 1000, CAP = 1088 };
   static float x[CAP], y[CAP], y0[CAP];
   for (int i = 0; i < CAP; i++) {
      x[i] = i * 0.5f - 100.0f;
      y[i] = y0[i] = (float)((i * 37) % 101) - 50.25f;
   }
   struct { float a; uint32_t n; } pc = { 2.5f, N };
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, &pc, sizeof(pc));
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   bind(set, 0, x, sizeof(x));
   bind(set, 1, y, sizeof(y));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, CAP / 64, 1, 1);
   int bad = 0;
   for (int i = 0; i < CAP; i++) {
      volatile float prod = 2.5f * x[i];
      float want = i < N ? prod + y0[i] : y0[i];
      float fused = i < N ? fmaf(2.5f, x[i], y0[i]) : y0[i];
      if (y[i] != want && y[i] != fused && bad++ < 5)
         CHECK(0, "saxpy y[%d] = %g, expected %g", i, y[i], want);
   }
   CHECK(bad == 0, "saxpy: %d wrong", bad);
   sc_shader_destroy(s);
}

/* robustBufferAccess: out-of-range loads give zero, stores are dropped. */
static void
test_robust(void)
{
   struct sc_compile_info info = {
      .words = saxpy_spv,
      .word_count = sizeof(saxpy_spv) / 4,
      .flags = SC_COMPILE_ROBUST_BUFFER_ACCESS,
   };
   struct sc_shader *s = compile_info("saxpy (robust)", &info);
   if (!s)
      return;
   enum { N = 1000, CAP = 1024, XR = 100, YR = 200 };
   static float x[CAP], y[CAP], y0[CAP];
   for (int i = 0; i < CAP; i++) {
      x[i] = (float)i;
      y[i] = y0[i] = (float)(i % 7);
   }
   struct { float a; uint32_t n; } pc = { 2.0f, N };
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, &pc, sizeof(pc));
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   bind(set, 0, x, XR * sizeof(float));   /* the bound ranges are short */
   bind(set, 1, y, YR * sizeof(float));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, CAP / 64, 1, 1);
   int bad = 0;
   for (int i = 0; i < CAP; i++) {
      float want = i < XR ? 2.0f * x[i] + y0[i] : i < YR ? y0[i] : y0[i];
      if (y[i] != want && bad++ < 5)
         CHECK(0, "robust saxpy y[%d] = %g, expected %g", i, y[i], want);
   }
   CHECK(bad == 0, "robust: %d wrong", bad);
   sc_shader_destroy(s);
}

/* Descriptor arrays through a set layout, OpArrayLength. */
static void
test_arraylen(void)
{
   const struct sc_binding_layout bl[2] = { { 0, 3 }, { 3, 1 } };
   const struct sc_set_layout layout = { 2, bl };
   struct sc_compile_info info = {
      .words = arraylen_spv,
      .word_count = sizeof(arraylen_spv) / 4,
      .set_layouts = &layout,
      .set_layout_count = 1,
   };
   struct sc_shader *s = compile_info("arraylen", &info);
   if (!s)
      return;
   /* Metadata: both bindings, the array written. */
   CHECK_EQ_INT(s->binding_count, 2);
   for (uint32_t i = 0; i < s->binding_count; i++) {
      const struct sc_binding_use *u = &s->bindings[i];
      CHECK_EQ_INT(u->set, 0);
      CHECK_EQ_INT(u->type, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER);
      CHECK_EQ_INT(u->array_size, u->binding == 0 ? 3 : 1);
      CHECK(u->written, "binding %u is written", u->binding);
   }
   CHECK_EQ_INT(s->push_constant_size, 4);
   static struct { uint32_t hdr; float data[63]; } b[3];
   static uint32_t o[4];
   const uint32_t sizes[3] = { 4 + 10 * 4, 4 + 63 * 4, 4 + 5 * 4 + 3 };
   union shale_descriptor set[4];
   memset(set, 0, sizeof(set));
   for (int k = 0; k < 3; k++) {
      b[k].hdr = 7 + k;
      for (int i = 0; i < 63; i++)
         b[k].data[i] = (float)(k * 100 + i);
      bind(set, k, &b[k], sizes[k]);
   }
   bind(set, 3, o, sizeof(o));
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   uint32_t which = 1;
   memcpy(push, &which, 4);
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, 1, 1, 1);
   /* (range - offset of data) / stride, rounded down. */
   CHECK_EQ_INT(o[0], 10);
   CHECK_EQ_INT(o[1], 63);
   CHECK_EQ_INT(o[2], 5);
   CHECK_EQ_INT(o[3], 63 + 8 * 1000);
   for (int k = 0; k < 3; k++)
      for (int i = 0; i < 63; i++)
         CHECK(b[k].data[i] == (float)(k * 100 + i) + (k == 1 && i < 4 ? 1.5f : 0.0f),
               "arraylen: b[%d].data[%d] = %g", k, i, b[k].data[i]);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Integer operations                                                        */
/* ------------------------------------------------------------------------ */

static int32_t
bitfield_sext(uint32_t v, uint32_t off, uint32_t bits)
{
   uint32_t f = (v >> off) & ((1u << bits) - 1);
   if (f & (1u << (bits - 1)))
      f |= ~((1u << bits) - 1);
   return (int32_t)f;
}

static int32_t
find_msb_u(uint32_t v)
{
   for (int b = 31; b >= 0; b--)
      if (v & (1u << b))
         return b;
   return -1;
}

static void
int_reference(int32_t x, int32_t y, int32_t out[32])
{
   uint32_t ux = (uint32_t)x, uy = (uint32_t)y, s = uy & 31;
   bool divok = y != 0 && !(x == INT32_MIN && y == -1);
   out[0] = (int32_t)(ux + uy);
   out[1] = (int32_t)(ux - uy);
   out[2] = (int32_t)(ux * uy);
   out[3] = divok ? x / y : 12345;
   if (divok) {
      /* GLSL % is OpSMod: the sign of the divisor. */
      int32_t r = x % y;
      if (r != 0 && ((r < 0) != (y < 0)))
         r += y;
      out[4] = r;
   } else {
      out[4] = 12345;
   }
   out[5] = (int32_t)(ux / (uy ? uy : 1));
   out[6] = (int32_t)(ux % (uy ? uy : 1));
   out[7] = (int32_t)(ux << s);
   out[8] = (int32_t)(x < 0 ? ~(~ux >> s) : ux >> s);
   out[9] = (int32_t)(ux >> s);
   out[10] = x & y;
   out[11] = x | y;
   out[12] = x ^ y;
   out[13] = ~x;
   out[14] = (int32_t)(0u - ux);
   out[15] = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 |
             (x != y) << 5 | (ux < uy) << 6 | (ux > uy) << 7 | (ux <= uy) << 8 | (ux >= uy) << 9;
   out[16] = x < y ? x : y;
   out[17] = x > y ? x : y;
   out[18] = x < -100 ? -100 : x > 100 ? 100 : x;
   out[19] = (int32_t)(ux < uy ? ux : uy);
   out[20] = (int32_t)(ux > uy ? ux : uy);
   out[21] = (int32_t)(ux < 10 ? 10 : ux > 1000 ? 1000 : ux);
   out[22] = x < 0 ? (int32_t)(0u - ux) : x;
   out[23] = (x > 0) - (x < 0);
   out[24] = bitfield_sext(ux, uy & 15, 8);
   out[25] = (int32_t)((ux >> (uy & 15)) & 0xff);
   out[26] = (int32_t)((ux & ~(0xfffu << 4)) | ((uy & 0xfff) << 4));
   out[27] = __builtin_popcount(ux);
   out[28] = ux ? __builtin_ctz(ux) : -1;
   out[29] = find_msb_u(x < 0 ? ~ux : ux);
   out[30] = find_msb_u(ux);
   uint32_t r = 0;
   for (int b = 0; b < 32; b++)
      if (ux & (1u << b))
         r |= 1u << (31 - b);
   out[31] = (int32_t)r;
}

static void
test_intops(void)
{
   struct sc_shader *s = compile("intops", SPV(intops_spv));
   if (!s)
      return;
   enum { N = 96 };
   static const int32_t edges[] = { INT32_MIN, INT32_MAX, 0, -1, 1, 31, 32, -32, 0x12345678,
                                    -7, 7, 3, -3, 100, -100, 65535, INT32_MIN + 1 };
   const int ne = sizeof(edges) / sizeof(edges[0]);
   static int32_t a[N], b[N], o[N * 32];
   for (int i = 0; i < N; i++) {
      a[i] = i < ne * 2 ? edges[i % ne] : (int32_t)rng();
      b[i] = i < ne * 2 ? edges[(i / ne + i) % ne] : (i % 3 == 0 ? (int32_t)(rng() % 40) - 20 : (int32_t)rng());
   }
   memset(o, 0xcd, sizeof(o));
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, sizeof(a));
   bind(set, 1, b, sizeof(b));
   bind(set, 2, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, N / 32, 1, 1);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      int32_t want[32];
      int_reference(a[i], b[i], want);
      for (int k = 0; k < 32; k++) {
         if (o[i * 32 + k] != want[k] && bad++ < 10)
            CHECK(0, "intops: x=%d y=%d op %d = %d, expected %d", a[i], b[i], k,
                  o[i * 32 + k], want[k]);
      }
   }
   CHECK(bad == 0, "intops: %d wrong", bad);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Float operations (Vulkan precision rules: IEEE results for +, -, *, and
 * infinities; 2.5 ULP division; denormals may be flushed; min/max/clamp and
 * conversions are undefined for NaN, so those are not checked on NaN).      */
/* ------------------------------------------------------------------------ */

enum fcheck { EXACT, ULP3, ULP4, REL5, SINCOS, EXPF, LOGF, SKIPNAN_EXACT, EITHER_FMA };

static bool
float_ok(float got, float want, float want_flushed, enum fcheck how, float arg)
{
   if (isnan(want))
      return isnan(got);
   if (got == want || got == want_flushed || flush(got) == flush(want) ||
       flush(got) == flush(want_flushed))
      return true;
   if (isinf(want) || isinf(got) || isnan(got))
      return false;
   switch (how) {
   case ULP3: return ulps(got, want) <= 3 || ulps(got, want_flushed) <= 3;
   case ULP4: return ulps(got, want) <= 4 || ulps(got, want_flushed) <= 4;
   case REL5: return fabsf(got - want) <= 1e-5f * fmaxf(1.0f, fabsf(want));
   case SINCOS: return fabsf(got - want) <= 0x1p-11f;
   case EXPF: return ulps(got, want) <= 3 + 2 * (int64_t)fabsf(arg);
   case LOGF:
      if (arg >= 0.5f && arg <= 2.0f)
         return fabsf(got - want) <= 0x1p-21f;
      return ulps(got, want) <= 3;
   default: return false;
   }
}

static void
test_floatops(void)
{
   struct sc_shader *s = compile("floatops", SPV(floatops_spv));
   if (!s)
      return;
   enum { N = 64 };
   const float pinf = INFINITY, qnan = NAN;
   const float xs[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-40f, -1e-40f, FLT_MAX, -FLT_MAX,
                        pinf, -pinf, qnan, 3.14159f, -2.5f, 2.5f, 1e10f, 100.25f, -0.75f,
                        1.5e-38f, 7.0f, -3.0f, 0.1f };
   const float ys[] = { 2.0f, 0.0f, -0.0f, 3.0f, pinf, -1.0f, 1e-40f, 0.25f, qnan, 1e30f, -1e30f };
   const int nx = sizeof(xs) / sizeof(xs[0]), ny = sizeof(ys) / sizeof(ys[0]);
   static float a[N], b[N], o[N * 32];
   static int32_t p[N * 4];
   for (int i = 0; i < N; i++) {
      a[i] = i < nx ? xs[i] : (float)((int32_t)rng() % 20000) / 97.0f;
      b[i] = ys[i % ny];
   }
   union shale_descriptor set[4];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, sizeof(a));
   bind(set, 1, b, sizeof(b));
   bind(set, 2, o, sizeof(o));
   bind(set, 3, p, sizeof(p));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, N / 16, 1, 1);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      /* Each op is checked against the inputs as given and as flushed. */
      float X[2] = { a[i], flush(a[i]) }, Y[2] = { b[i], flush(b[i]) };
      bool xnan = isnan(a[i]), ynan = isnan(b[i]);
      for (int k = 0; k < 32; k++) {
         float want[2];
         enum fcheck how = EXACT;
         bool skip = false;
         float arg = 0.0f;
         for (int f = 0; f < 2; f++) {
            float x = X[f], y = Y[f];
            volatile float t;
            switch (k) {
            case 0: want[f] = x + y; break;
            case 1: want[f] = x - y; break;
            case 2: want[f] = x * y; break;
            case 3: want[f] = x / y; how = ULP3; break;
            case 4: want[f] = fabsf(x); break;
            case 5: want[f] = -x; break;
            case 6: want[f] = floorf(x); break;
            case 7: want[f] = ceilf(x); break;
            case 8: want[f] = x - floorf(x); skip = !isfinite(x); break;
            case 9: want[f] = truncf(x); break;
            case 10: want[f] = sqrtf(fabsf(x)); how = ULP4; break;
            case 11: want[f] = 1.0f / sqrtf(fabsf(x)); how = ULP3; break;
            case 12: want[f] = fminf(x, y); skip = xnan || ynan; break;
            case 13: want[f] = fmaxf(x, y); skip = xnan || ynan; break;
            case 14: want[f] = fminf(fmaxf(x, -1.0f), 1.0f); skip = xnan; break;
            case 15:
               t = (y - x) * 0.25f;
               want[f] = x + t;
               how = REL5;
               skip = !isfinite(x) || !isfinite(y);
               break;
            case 16: want[f] = fmaf(x, y, 1.0f); how = EITHER_FMA; break;
            case 17: want[f] = sinf(x); how = SINCOS; skip = !(fabsf(x) <= 3.14159265f); break;
            case 18: want[f] = cosf(x); how = SINCOS; skip = !(fabsf(x) <= 3.14159265f); break;
            case 19:
               arg = fminf(fmaxf(x, -80.0f), 80.0f);
               want[f] = expf(arg);
               how = EXPF;
               skip = xnan;
               break;
            case 20: arg = fabsf(x); want[f] = logf(arg); how = LOGF; break;
            case 21: want[f] = powf(fabsf(x), 1.5f); how = REL5; skip = !isfinite(x); break;
            case 22: want[f] = x > 0 ? 1.0f : x < 0 ? -1.0f : x; skip = xnan; break;
            case 23: want[f] = x < y ? 0.0f : 1.0f; skip = xnan || ynan; break;
            case 24: {
               float u = fminf(fmaxf((x + 2.0f) / 4.0f, 0.0f), 1.0f);
               want[f] = u * u * (3.0f - 2.0f * u);
               how = REL5;
               skip = xnan;
               break;
            }
            case 25: want[f] = (float)(int32_t)fminf(fmaxf(x, -1e9f), 1e9f); skip = xnan; break;
            case 26: want[f] = (float)(uint32_t)fminf(fmaxf(x, 0.0f), 4e9f); skip = xnan; break;
            case 27:
               t = y * 1000.0f;
               skip = !(fabsf(t) < 2e9f);
               want[f] = skip ? 0.0f : (float)((int32_t)(t + 0.5f) & 0xffff);
               break;
            case 28: want[f] = rintf(x); break;
            case 29:
               arg = fminf(fmaxf(y, -100.0f), 100.0f);
               want[f] = exp2f(arg);
               how = EXPF;
               skip = ynan;
               break;
            case 30: arg = fabsf(y); want[f] = log2f(arg); how = LOGF; break;
            default: want[f] = x * 0.5f; break;
            }
         }
         if (skip)
            continue;
         float got = o[i * 32 + k];
         bool ok;
         if (how == EITHER_FMA) {
            volatile float prod = X[0] * Y[0];
            float unfused = prod + 1.0f;
            ok = float_ok(got, want[0], want[1], EXACT, 0) ||
                 float_ok(got, unfused, unfused, EXACT, 0) ||
                 float_ok(got, X[1] * Y[1] + 1.0f, want[1], EXACT, 0);
         } else {
            ok = float_ok(got, want[0], want[1], how, arg);
         }
         if (!ok && bad++ < 10)
            CHECK(0, "floatops: x=%g y=%g op %d = %g, expected %g (or %g)", a[i], b[i], k,
                  got, want[0], want[1]);
      }
      /* Comparisons, bit casts, half packing. */
      float x = a[i], y = b[i];
      int32_t cmp = (isnan(x) ? 1 : 0) | (isinf(x) ? 2 : 0) | (x < y) << 2 | (x <= y) << 3 |
                    (x == y) << 4 | (x != y) << 5 | (x > y) << 6 | (x >= y) << 7;
      /* x * 0.0 may fold to 0.0 (Vulkan lets implementations assume no
       * NaN or infinity unless SignedZeroInfNanPreserve is requested). */
      volatile float z = x * 0.0f;
      int32_t want2 = 1 + (z != 0.0f) * 2;
      int32_t cmpf = cmp;
      {
         /* The same comparisons with denormal inputs flushed. */
         float fx = flush(x), fy = flush(y);
         cmpf = (isnan(fx) ? 1 : 0) | (isinf(fx) ? 2 : 0) | (fx < fy) << 2 | (fx <= fy) << 3 |
                (fx == fy) << 4 | (fx != fy) << 5 | (fx > fy) << 6 | (fx >= fy) << 7;
      }
      CHECK(p[i * 4 + 0] == cmp || p[i * 4 + 0] == cmpf, "floatops: compare x=%g y=%g: %#x, expected %#x",
            x, y, p[i * 4 + 0], cmp);
      CHECK((uint32_t)p[i * 4 + 1] == fbits(x), "floatops: floatBitsToInt(%g) = %#x", x,
            p[i * 4 + 1]);
      CHECK(p[i * 4 + 2] == want2 || p[i * 4 + 2] == 1, "floatops: x=%g: %d, expected %d",
            x, p[i * 4 + 2], want2);
      /* Values exact in half precision convert exactly. */
      static const struct { float f; uint16_t h; } halves[] = {
         { 0.0f, 0x0000 }, { -0.0f, 0x8000 }, { 1.0f, 0x3c00 }, { -1.0f, 0xbc00 },
         { 0.5f, 0x3800 }, { 2.5f, 0x4100 }, { -2.5f, 0xc100 }, { 100.25f, 0x5644 },
         { 7.0f, 0x4700 }, { -3.0f, 0xc200 }, { -0.75f, 0xba00 },
      };
      for (size_t h = 0; h < sizeof(halves) / sizeof(halves[0]); h++)
         if (fbits(halves[h].f) == fbits(x))
            CHECK_EQ_INT(p[i * 4 + 3], halves[h].h);
      if (isinf(x))
         CHECK_EQ_INT(p[i * 4 + 3], x > 0 ? 0x7c00 : 0xfc00);
      if (isnan(x))
         CHECK((p[i * 4 + 3] & 0x7c00) == 0x7c00 && (p[i * 4 + 3] & 0x3ff),
               "packHalf2x16(NaN) = %#x", p[i * 4 + 3]);
   }
   CHECK(bad == 0, "floatops: %d wrong", bad);
   /* x / 0 is an infinity of the right sign (required by Vulkan). */
   for (int i = 0; i < N; i++) {
      if (b[i] == 0.0f && a[i] != 0.0f && isfinite(a[i]) && fpclassify(a[i]) != FP_SUBNORMAL) {
         bool neg = signbit(a[i]) != signbit(b[i]);
         CHECK(isinf(o[i * 32 + 3]) && (signbit(o[i * 32 + 3]) != 0) == neg,
               "%g / %g = %g", a[i], b[i], o[i * 32 + 3]);
      }
   }
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* The rest of GLSL.std.450                                                  */
/* ------------------------------------------------------------------------ */

static void
normalize3(float v[3])
{
   float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
   for (int k = 0; k < 3; k++)
      v[k] /= l;
}

static float
dot3(const float a[3], const float b[3])
{
   return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Packs with either rounding of halfway cases (GLSL leaves it open). */
static bool
pack_ok(uint32_t got, const float *c, int n, bool snorm)
{
   uint32_t bits = n == 4 ? 8 : 16;
   float scale = snorm ? (float)((1u << (bits - 1)) - 1) : (float)((1u << bits) - 1);
   for (int mode = 0; mode < 2; mode++) {
      uint32_t want = 0;
      for (int k = 0; k < n; k++) {
         float v = fminf(fmaxf(c[k], snorm ? -1.0f : 0.0f), 1.0f) * scale;
         int32_t q = (int32_t)(mode ? roundf(v) : rintf(v));
         want |= ((uint32_t)q & ((1u << bits) - 1)) << (k * bits);
      }
      if (got == want)
         return true;
   }
   return false;
}

static void
test_glsl450(void)
{
   struct sc_shader *s = compile("glsl450", SPV(glsl450_spv));
   if (!s)
      return;
   enum { N = 16 };
   static float a[N], o[N * 24];
   static uint32_t p[N * 4];
   for (int i = 0; i < N; i++)
      a[i] = ((float)i - 7.3f) * 0.113f;
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, sizeof(a));
   bind(set, 1, o, sizeof(o));
   bind(set, 2, p, sizeof(p));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 1, 1, 1);
   int bad = 0;
   for (uint32_t i = 0; i < N; i++) {
      float x = a[i];
      float want[24];
      want[0] = roundf(x * 10.0f);
      want[1] = tanf(x);
      want[2] = asinf(x);
      want[3] = acosf(x);
      want[4] = atanf(x * 3.0f);
      want[5] = atan2f(x, 0.5f - x);
      want[6] = sinhf(x);
      want[7] = coshf(x);
      want[8] = tanhf(x * 2.0f);
      want[9] = asinhf(x * 5.0f);
      want[10] = acoshf(2.0f + x);
      want[11] = atanhf(x);
      want[12] = x * 57.29577951f;
      want[13] = x * 100.0f * 0.017453292f;
      float n[3] = { 0.3f, 1.0f, x }, d[3] = { 1.0f, -1.0f, 0.25f }, nr[3] = { x, 1.0f, 0.0f };
      normalize3(n);
      normalize3(d);
      float dn = dot3(n, d);
      float k = 1.0f - 0.66f * 0.66f * (1.0f - dn * dn);
      for (int c = 0; c < 3; c++) {
         want[14 + c] = d[c] - 2.0f * dn * n[c];
         want[17 + c] = k < 0.0f ? 0.0f : 0.66f * d[c] - (0.66f * dn + sqrtf(k)) * n[c];
      }
      float sgn = dot3(nr, d) < 0.0f ? 1.0f : -1.0f;
      want[20] = sgn * n[0] + sgn * n[1] * 10.0f;
      want[21] = 1.0f + (float)i * 0x1p-24f;
      uint32_t u = i * 0x01020304u, sn = i * 0x10203040u;
      want[22] = want[23] = 0.0f;
      for (int c = 0; c < 4; c++) {
         float scale = (float)(c == 0 ? 1 : c == 1 ? 10 : c == 2 ? 100 : 1000);
         want[22] += (float)((u >> (8 * c)) & 0xff) / 255.0f * scale;
         float sv = (float)(int8_t)(sn >> (8 * c)) / 127.0f;
         want[23] += fminf(fmaxf(sv, -1.0f), 1.0f) * scale;
      }
      for (int j = 0; j < 24; j++) {
         float got = o[i * 24 + j];
         if (!(fabsf(got - want[j]) <= 2e-5f * fmaxf(1.0f, fabsf(want[j]))) && bad++ < 10)
            CHECK(0, "glsl450: x=%g op %d = %.9g, expected %.9g", x, j, got, want[j]);
      }
      float c4[4] = { x, -x, x * 0.5f + 0.5f, 1.5f };
      CHECK(pack_ok(p[i * 4 + 0], c4, 4, false), "packUnorm4x8 x=%g: %#x", x, p[i * 4 + 0]);
      CHECK(pack_ok(p[i * 4 + 1], c4, 4, true), "packSnorm4x8 x=%g: %#x", x, p[i * 4 + 1]);
      /* packUnorm2x16(c.zw) ^ packSnorm2x16(c.xy), either rounding. */
      bool ok2 = false;
      {
         uint32_t got = p[i * 4 + 2];
         for (int mu = 0; mu < 2 && !ok2; mu++)
            for (int ms = 0; ms < 2 && !ok2; ms++) {
               uint32_t pu = 0, ps = 0;
               for (int c = 0; c < 2; c++) {
                  float vu = fminf(fmaxf(c4[2 + c], 0.0f), 1.0f) * 65535.0f;
                  float vs = fminf(fmaxf(c4[c], -1.0f), 1.0f) * 32767.0f;
                  pu |= ((uint32_t)(int32_t)(mu ? roundf(vu) : rintf(vu)) & 0xffff) << (16 * c);
                  ps |= ((uint32_t)(int32_t)(ms ? roundf(vs) : rintf(vs)) & 0xffff) << (16 * c);
               }
               ok2 = got == (pu ^ ps);
            }
         CHECK(ok2, "pack 2x16 x=%g: %#x", x, got);
      }
      uint32_t uu = i * 0x12345u, ss = i * 0x87654321u;
      float u2x = (float)(uu & 0xffff) / 65535.0f;
      float s2y = fminf(fmaxf((float)(int16_t)(ss >> 16) / 32767.0f, -1.0f), 1.0f);
      uint32_t w3 = (uint32_t)(u2x * 1000.0f) + (uint32_t)(fabsf(s2y) * 1000.0f) * 10000u;
      CHECK_EQ_INT(p[i * 4 + 3], w3);
   }
   CHECK(bad == 0, "glsl450: %d wrong", bad);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Divergent control flow                                                    */
/* ------------------------------------------------------------------------ */

static int32_t
collatz_ref(int32_t v, int32_t limit)
{
   int32_t steps = 0;
   for (int32_t n = 0; n < limit; n++) {
      if (v <= 1)
         break;
      if ((v & 1) == 0) {
         v /= 2;
         continue;
      }
      v = (int32_t)(3u * (uint32_t)v + 1u);
      steps++;
   }
   int32_t r = v % 1000;
   if (r != 0 && ((r < 0) != (1000 < 0)))
      r += 1000;
   return steps * 1000 + r;
}

static void
control_reference(int32_t v, uint32_t local_index, int32_t limit, int32_t out[6])
{
   int32_t r;
   if (v < 0) {
      r = -v * 3;
   } else {
      int32_t m = v % 3;   /* v >= 0: SMod == C % */
      r = m == 0 ? v / 3 : v + 7;
   }
   out[0] = r;
   out[1] = collatz_ref(v < 0 ? -v : v, limit);
   int32_t acc = 0;
   for (int32_t p = 0; p < (v & 7); p++) {
      for (int32_t q = 0; q <= p; q++) {
         if (((p + q) & 3) == 3)
            continue;
         acc += p * q + 1;
      }
      if (acc > 40)
         break;
   }
   out[2] = acc;
   int32_t s = 0;
   switch (v & 7) {
   case 0: s = 10; break;
   case 1:
   case 2: s = 25; break;
   case 3: s = 5; break;
   case 6: s = 60; break;
   default: s = -1; break;
   }
   out[3] = s;
   int32_t d = v, cnt = 0;
   do {
      d = d / 2;
      cnt++;
   } while (d != 0 && cnt < 40);
   out[4] = cnt;
   out[5] = (v & 1) ? -7 : v * 2 + (int32_t)local_index;
}

static void
test_control(void)
{
   struct sc_shader *s = compile("control", SPV(control_spv));
   if (!s)
      return;
   enum { GX = 3, GY = 2, W8 = 8 * GX, H4 = 4 * GY, N = W8 * H4 };
   static int32_t a[N], o[N * 6];
   for (int i = 0; i < N; i++) {
      switch (i % 4) {
      case 0: a[i] = i * 7 - 100; break;
      case 1: a[i] = (int32_t)(rng() % 100000); break;
      case 2: a[i] = -(int32_t)(rng() % 1000); break;
      default: a[i] = i; break;
      }
   }
   a[5] = 27;   /* a long Collatz path */
   a[6] = 1;
   a[7] = 0;
   memset(o, 0xab, sizeof(o));
   struct { int32_t limit, width; } pc = { 200, W8 };
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, &pc, sizeof(pc));
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, sizeof(a));
   bind(set, 1, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, GX, GY, 1);
   int bad = 0;
   for (int y = 0; y < H4; y++) {
      for (int x = 0; x < W8; x++) {
         int i = y * W8 + x;
         uint32_t local_index = (uint32_t)((y % 4) * 8 + (x % 8));
         int32_t want[6];
         control_reference(a[i], local_index, pc.limit, want);
         for (int k = 0; k < 6; k++)
            if (o[i * 6 + k] != want[k] && bad++ < 10)
               CHECK(0, "control: v=%d result %d = %d, expected %d", a[i], k, o[i * 6 + k],
                     want[k]);
      }
   }
   CHECK(bad == 0, "control: %d wrong", bad);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Atomics                                                                   */
/* ------------------------------------------------------------------------ */

static int
compare_u32(const void *a, const void *b)
{
   uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
   return x < y ? -1 : x > y;
}

static void
test_atomics(void)
{
   struct sc_shader *s = compile("atomics", SPV(atomics_spv));
   if (!s)
      return;
   enum { GROUPS = 4, N = 48 * GROUPS };
   struct {
      uint32_t counter;
      int32_t smin, smax;
      uint32_t umin, umax, andv, orv, xorv, exch, cas_wins, cas_target;
   } c = { 0, INT32_MAX, INT32_MIN, UINT32_MAX, 0, UINT32_MAX, 0, 0, 777777, 0, UINT32_MAX };
   static uint32_t slot[N], ret[N];
   memset(slot, 0xff, sizeof(slot));
   memset(ret, 0xee, sizeof(ret));
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, &c, sizeof(c));
   bind(set, 1, slot, sizeof(slot));
   bind(set, 2, ret, sizeof(ret));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, GROUPS, 1, 1);

   uint32_t participants = 0, andv = UINT32_MAX, orv = 0, xorv = 0;
   int32_t smin = INT32_MAX, smax = INT32_MIN;
   uint32_t umin = UINT32_MAX, umax = 0;
   static uint32_t expect_slots[N], got_slots[N], pool[N + 1], seen[N + 1];
   for (uint32_t i = 0; i < N; i++) {
      if (i % 5 == 4)
         continue;
      expect_slots[participants++] = i;
      int32_t v = (int32_t)(i * 2654435761u) >> 8;
      smin = v < smin ? v : smin;
      smax = v > smax ? v : smax;
      umin = (uint32_t)v < umin ? (uint32_t)v : umin;
      umax = (uint32_t)v > umax ? (uint32_t)v : umax;
      andv &= ~(1u << (i & 31));
      orv |= 1u << (i % 29);
      xorv ^= i * 7;
   }
   CHECK_EQ_INT(c.counter, participants);
   memcpy(got_slots, slot, participants * sizeof(uint32_t));
   qsort(got_slots, participants, sizeof(uint32_t), compare_u32);
   CHECK(memcmp(got_slots, expect_slots, participants * sizeof(uint32_t)) == 0,
         "atomicAdd slots are not a permutation of the participants");
   CHECK_EQ_INT(c.smin, smin);
   CHECK_EQ_INT(c.smax, smax);
   CHECK_EQ_INT(c.umin, umin);
   CHECK_EQ_INT(c.umax, umax);
   CHECK_EQ_INT(c.andv, andv);
   CHECK_EQ_INT(c.orv, orv);
   CHECK_EQ_INT(c.xorv, xorv);
   CHECK_EQ_INT(c.cas_wins, 1);
   CHECK(c.cas_target < N && c.cas_target % 5 != 4, "cas_target = %u", c.cas_target);
   /* Exchange: the returned values plus the final one are the initial value
    * plus every participant's index, each once. */
   uint32_t n = 0, m = 0;
   pool[n++] = 777777;
   for (uint32_t i = 0; i < N; i++)
      if (i % 5 != 4)
         pool[n++] = i;
   for (uint32_t i = 0; i < N; i++)
      if (i % 5 != 4)
         seen[m++] = ret[i];
   seen[m++] = c.exch;
   qsort(pool, n, sizeof(uint32_t), compare_u32);
   qsort(seen, m, sizeof(uint32_t), compare_u32);
   CHECK(n == m && memcmp(pool, seen, n * sizeof(uint32_t)) == 0,
         "atomicExchange results are not a permutation");
   for (uint32_t i = 0; i < N; i++)
      if (i % 5 == 4)
         CHECK_EQ_INT(ret[i], 0xeeeeeeeeu);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* A dispatch of 1M invocations                                              */
/* ------------------------------------------------------------------------ */

static void
test_big(void)
{
   struct sc_shader *s = compile("big", SPV(big_spv));
   if (!s)
      return;
   enum { GX = 64, GY = 64, N = GX * GY * 256 };
   uint32_t *o = malloc(N * sizeof(uint32_t));
   if (!o) {
      CHECK(0, "out of memory");
      sc_shader_destroy(s);
      return;
   }
   memset(o, 0, N * sizeof(uint32_t));
   union shale_descriptor set[1];
   memset(set, 0, sizeof(set));
   bind(set, 0, o, N * sizeof(uint32_t));
   struct shale_cs_context ctx = { .sets = { set } };
   double t0 = now_ms();
   dispatch(s, &ctx, GX, GY, 1);
   double t1 = now_ms();
   fprintf(stderr, "big: %d invocations in %.1f ms (W=%u)\n", N, t1 - t0, width);
   int bad = 0;
   for (uint32_t i = 0; i < N; i++) {
      uint32_t h = i * 0x9e3779b9u;
      h ^= h >> 16;
      h *= 0x85ebca6bu;
      h ^= h >> 13;
      uint32_t want = h + ((i % 256) / 128);
      if (o[i] != want && bad++ < 5)
         CHECK(0, "big o[%u] = %#x, expected %#x", i, o[i], want);
   }
   CHECK(bad == 0, "big: %d wrong", bad);
   free(o);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Vectors, matrices, uniform buffer, push constants, local arrays           */
/* ------------------------------------------------------------------------ */

static bool
close_to(float got, float want)
{
   return fabsf(got - want) <= 2e-5f * fmaxf(1.0f, fabsf(want));
}

static void
test_composites(void)
{
   struct sc_shader *s = compile("composites", SPV(composites_spv));
   if (!s)
      return;
   enum { GROUPS = 2, N = 8 * GROUPS };
   /* std140: mat4 at 0 (column-major, stride 16), lights[3] at 64 (vec3 dir,
    * float power: 16 bytes each), ivec4 sel at 112. */
   struct {
      float m[4][4];
      struct { float dir[3]; float power; } lights[3];
      int32_t sel[4];
   } ubo;
   for (int c = 0; c < 4; c++)
      for (int r = 0; r < 4; r++)
         ubo.m[c][r] = (float)(c * 4 + r) * 0.25f - 1.0f;
   const float dirs[3][3] = { { 0.0f, 0.0f, 1.0f }, { 0.6f, 0.8f, 0.0f }, { -1.0f, 0.0f, 0.0f } };
   for (int l = 0; l < 3; l++) {
      memcpy(ubo.lights[l].dir, dirs[l], sizeof(dirs[l]));
      ubo.lights[l].power = 1.0f + l;
   }
   ubo.sel[0] = 5;
   ubo.sel[1] = ubo.sel[2] = ubo.sel[3] = 0;
   struct { float bias[4]; int32_t count; } pc = { { 0.5f, -0.5f, 1.0f, 2.0f }, 42 };
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, &pc, sizeof(pc));
   static float in[N][4], out[N * 4][4];
   for (int i = 0; i < N; i++)
      for (int k = 0; k < 4; k++)
         in[i][k] = (float)((i * 5 + k * 3) % 11) - 4.5f;
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, &ubo, sizeof(ubo));
   bind(set, 1, in, sizeof(in));
   bind(set, 2, out, sizeof(out));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, GROUPS, 1, 1);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      const float *p = in[i];
      float want[4][4];
      for (int r = 0; r < 4; r++) {
         float t = 0.0f;
         for (int c = 0; c < 4; c++)
            t += ubo.m[c][r] * p[c];
         want[0][r] = t + pc.bias[r];
      }
      float n[3] = { p[0] + 1.0f, p[1] + 2.0f, p[2] + 3.0f };
      float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      for (int k = 0; k < 3; k++)
         n[k] /= len;
      float lit = 0.0f;
      for (int l = 0; l < 3; l++) {
         float d = n[0] * dirs[l][0] + n[1] * dirs[l][1] + n[2] * dirs[l][2];
         lit += fmaxf(d, 0.0f) * (1.0f + l);
      }
      want[1][0] = n[0], want[1][1] = n[1], want[1][2] = n[2], want[1][3] = lit;
      float arr[8];
      for (int k = 0; k < 8; k++)
         arr[k] = (float)(k * k) + p[0];
      want[2][0] = arr[i % 8];
      want[2][1] = arr[5];
      want[2][2] = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
      want[2][3] = sqrtf((p[0] - p[2]) * (p[0] - p[2]) + (p[1] - p[3]) * (p[1] - p[3]));
      /* cross(p.xyz, (0,0,1)) = (p.y, -p.x, 0); .zyx = (0, -p.x, p.y) */
      float c3[4] = { 0.0f, -p[0], p[1], 42.0f };
      for (int k = 0; k < 4; k++)
         want[3][k] = c3[k] * p[3 - k];
      for (int r = 0; r < 4; r++)
         for (int k = 0; k < 4; k++)
            if (!close_to(out[i * 4 + r][k], want[r][k]) && bad++ < 10)
               CHECK(0, "composites: invocation %d result %d.%d = %g, expected %g", i, r, k,
                     out[i * 4 + r][k], want[r][k]);
   }
   CHECK(bad == 0, "composites: %d wrong", bad);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Matrices in memory, dynamic vector indices, bool arrays, 64-bit types     */
/* ------------------------------------------------------------------------ */

static void
test_misc(void)
{
   struct sc_shader *s = compile("misc", SPV(misc_spv));
   if (!s)
      return;
   /* std430: row-major mat4 at 0, column-major mat4 at 64, mat2x3 (two
    * vec3 columns, stride 16) at 128. */
   static struct { float rm[16], cm[16], m23[8]; } mats;
   float RM[4][4], CM[4][4], M23[3][2];   /* [row][column] */
   for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++) {
         RM[r][c] = (float)(r * 4 + c) * 0.5f - 3.0f;
         CM[r][c] = (float)((r + 2 * c) % 5) - 1.5f;
         mats.rm[r * 4 + c] = RM[r][c];
         mats.cm[c * 4 + r] = CM[r][c];
      }
   for (int r = 0; r < 3; r++)
      for (int c = 0; c < 2; c++) {
         M23[r][c] = (float)(r - c) * 1.25f;
         mats.m23[c * 4 + r] = M23[r][c];
      }
   static struct { int64_t a64[8]; double d[8]; } ins = {
      { 0, 1, -1, INT64_MAX, INT64_MIN + 1, 123456789012345LL, -987654321098LL, 1LL << 40 },
      { 0.0, 1.0, -2.5, 1e300, 3.141592653589793, -1e-300, 0.1, 12345.678 },
   };
   static struct { float f[48][4]; int64_t i64[32]; double dd[24]; uint32_t flags[8]; } out;
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, &mats, sizeof(mats));
   bind(set, 1, &ins, sizeof(ins));
   bind(set, 2, &out, sizeof(out));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 1, 1, 1);
   int bad = 0;
   for (uint32_t i = 0; i < 8; i++) {
      float v[4] = { (float)i, 1.0f - (float)i, 0.5f * (float)i, 2.0f };
      float want[6][4];
      for (int r = 0; r < 4; r++) {
         want[0][r] = 0.0f;
         for (int c = 0; c < 4; c++)
            want[0][r] += RM[r][c] * v[c];
      }
      for (int c = 0; c < 4; c++) {
         want[1][c] = 0.0f;
         for (int r = 0; r < 4; r++)
            want[1][c] += v[r] * CM[r][c];
      }
      for (int r = 0; r < 4; r++) {
         want[2][r] = 0.0f;
         for (int k = 0; k < 4; k++)
            want[2][r] += RM[r][k] * CM[k][i % 4];
      }
      for (int c = 0; c < 4; c++)
         want[3][c] = CM[1][c] + (c < 3 ? M23[c][0] * v[0] + M23[c][1] * v[1] : 0.0f);
      want[4][0] = v[0] * v[1];
      want[4][1] = v[1] * v[1];
      want[4][2] = v[0] * v[3];
      want[4][3] = v[1] * v[3];
      float w[4] = { v[0], v[1], v[2], v[3] };
      w[i % 4] = 42.0f;
      want[5][0] = w[0];
      want[5][1] = w[3];
      want[5][2] = v[(i + 1) % 4];
      want[5][3] = 42.0f;
      for (int k = 0; k < 6; k++)
         for (int c = 0; c < 4; c++)
            if (!close_to(out.f[i * 6 + k][c], want[k][c]) && bad++ < 10)
               CHECK(0, "misc: invocation %u vec %d.%d = %g, expected %g", i, k, c,
                     out.f[i * 6 + k][c], want[k][c]);
      uint32_t bits = 0;
      for (uint32_t k = 0; k < 8; k++) {
         uint32_t j = (k + i) % 8;
         if ((i >> (j % 3)) & 1)
            bits |= 1u << k;
      }
      CHECK(out.flags[i] == bits, "misc: flags[%u] = %#x, expected %#x", i, out.flags[i], bits);
      int64_t a = ins.a64[i];
      int64_t w64[4] = {
         (int64_t)((uint64_t)a * 3u + (uint64_t)(a >> 7)),
         (int64_t)((uint64_t)a / 1000000007u),
         a < 0 ? -a : a,
         (int64_t)i << 40,
      };
      for (int k = 0; k < 4; k++)
         CHECK(out.i64[i * 4 + k] == w64[k], "misc: i64 %u.%d = %lld, expected %lld", i, k,
               (long long)out.i64[i * 4 + k], (long long)w64[k]);
      double x = ins.d[i];
      double wd[3] = { x * x + 1.0, sqrt(fabs(x)) / 3.0, (double)(float)x - x };
      for (int k = 0; k < 3; k++)
         CHECK(out.dd[i * 3 + k] == wd[k] ||
                  fabs(out.dd[i * 3 + k] - wd[k]) <= 1e-12 * fmax(1.0, fabs(wd[k])),
               "misc: double %u.%d = %.17g, expected %.17g", i, k, out.dd[i * 3 + k], wd[k]);
   }
   CHECK(bad == 0, "misc: %d wrong", bad);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Specialization constants                                                  */
/* ------------------------------------------------------------------------ */

static void
test_spec(void)
{
   /* Defaults: local_size_x 1, MUL 2, NEGATE false, OFFSET 0.5. */
   struct sc_shader *s = compile("spec (defaults)", SPV(spec_spv));
   static float o[64];
   union shale_descriptor set[1];
   memset(set, 0, sizeof(set));
   bind(set, 0, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   if (s) {
      CHECK_EQ_INT(s->local_size[0], 1);
      memset(o, 0, sizeof(o));
      dispatch(s, &ctx, 8, 1, 1);
      for (int i = 0; i < 8; i++)
         CHECK(o[i] == i * 2 + 0.5f, "spec default o[%d] = %g", i, o[i]);
      sc_shader_destroy(s);
   }
   const struct sc_spec_constant spec[] = {
      { 0, 4, 16 },                   /* local_size_x */
      { 1, 4, 3 },                    /* MUL */
      { 2, 4, 1 },                    /* NEGATE (VkBool32) */
      { 3, 4, 0x3e800000 },           /* OFFSET = 0.25f */
   };
   s = compile_spec("spec", SPV(spec_spv), spec, 4);
   if (!s)
      return;
   CHECK_EQ_INT(s->local_size[0], 16);
   memset(o, 0, sizeof(o));
   dispatch(s, &ctx, 4, 1, 1);
   for (int i = 0; i < 64; i++)
      CHECK(o[i] == -(i * 3 + 0.25f), "spec o[%d] = %g", i, o[i]);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Built-ins of a 6x3 workgroup, dispatch base                               */
/* ------------------------------------------------------------------------ */

static void
test_partial(void)
{
   struct sc_shader *s = compile("partial", SPV(partial_spv));
   if (!s)
      return;
   CHECK_EQ_INT(s->local_size[0], 6);
   CHECK_EQ_INT(s->local_size[1], 3);
   CHECK_EQ_INT(s->subgroup_count, (18 + width - 1) / width);
   enum { MAXG = 16 };
   static uint32_t o[MAXG * 18 * 3][4];
   union shale_descriptor set[1];
   memset(set, 0, sizeof(set));
   bind(set, 0, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   const uint32_t base[3] = { 1, 0, 1 }, count[3] = { 2, 2, 2 };
   memset(o, 0xff, sizeof(o));
   CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);
   int bad = 0;
   bool written[MAXG] = { false };
   for (uint32_t gz = base[2]; gz < base[2] + count[2]; gz++) {
      for (uint32_t gy = base[1]; gy < base[1] + count[1]; gy++) {
         for (uint32_t gx = base[0]; gx < base[0] + count[0]; gx++) {
            uint32_t flat = gx + count[0] * (gy + count[1] * gz);
            if (flat >= MAXG) {
               CHECK(0, "group index %u too large", flat);
               continue;
            }
            written[flat] = true;
            for (uint32_t l = 0; l < 18; l++) {
               uint32_t lx = l % 6, ly = l / 6;
               uint32_t i = flat * 18 + l;
               uint32_t want[3][4] = {
                  { lx, ly, 0, l },
                  { gx * 6 + lx, gy * 3 + ly, gz, flat },
                  { gx, gy, gz, 222 },
               };
               for (int r = 0; r < 3; r++)
                  if (memcmp(o[i * 3 + r], want[r], sizeof(want[r])) && bad++ < 5)
                     CHECK(0, "partial: group (%u,%u,%u) invocation %u row %d = (%u,%u,%u,%u)",
                           gx, gy, gz, l, r, o[i * 3 + r][0], o[i * 3 + r][1], o[i * 3 + r][2],
                           o[i * 3 + r][3]);
            }
         }
      }
   }
   /* Nothing written outside the dispatched groups (inactive lanes stay off). */
   for (uint32_t g = 0; g < MAXG; g++)
      if (!written[g])
         for (uint32_t k = 0; k < 18 * 3; k++)
            if (o[g * 54 + k][0] != UINT32_MAX && bad++ < 5)
               CHECK(0, "partial: group slot %u written", g);
   CHECK(bad == 0, "partial: %d wrong", bad);
   sc_shader_destroy(s);
}

/* A 4 KiB private array per invocation: on the stack at W = 4, in scratch
 * memory at wider widths. */
static void
test_private_big(void)
{
   struct sc_shader *s = compile("private_big", SPV(private_big_spv));
   if (!s)
      return;
   CHECK((s->scratch_size == 0) == (4096 * width <= 16384), "scratch_size %u at W=%u",
         s->scratch_size, width);
   enum { N = 64 };
   static float o[N];
   union shale_descriptor set[1];
   memset(set, 0, sizeof(set));
   bind(set, 0, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, N / 32, 1, 1);
   for (uint32_t g = 0; g < N; g++) {
      float acc = 0.0f;
      for (uint32_t k = g % 7; k < 1024; k += 97)
         acc += (float)k * 0.5f + (float)g;
      float want = acc + ((float)((g * 13) % 1024) * 0.5f + (float)g);
      CHECK(o[g] == want, "private_big o[%u] = %g, expected %g", g, o[g], want);
   }
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Hand-written SPIR-V: swapping phis, OpSelect, undefined shuffle lane      */
/* ------------------------------------------------------------------------ */

static void
test_phi_swap(void)
{
   struct sc_shader *s = compile("phi_swap", SPV(phi_swap_spv));
   if (!s)
      return;
   static uint32_t o[8 * 3];
   union shale_descriptor set[1];
   memset(set, 0, sizeof(set));
   bind(set, 0, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 1, 1, 1);
   for (uint32_t g = 0; g < 8; g++) {
      uint32_t fa = 0, fb = 1;
      for (uint32_t i = 0; i < 3 * g; i++) {
         uint32_t t = fa + fb;
         fa = fb;
         fb = t;
      }
      CHECK(o[3 * g] == fa, "fib(%u) = %u, expected %u", 3 * g, o[3 * g], fa);
      CHECK_EQ_INT(o[3 * g + 1], g < 2 ? g : 2);
      CHECK_EQ_INT(o[3 * g + 2], 100);
   }
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Shared memory and a barrier within one subgroup                           */
/* ------------------------------------------------------------------------ */

static void
test_shared_small(void)
{
   struct sc_shader *s = compile("shared_small", SPV(shared_small_spv));
   if (!s)
      return;
   CHECK(s->shared_size >= 16, "shared_size = %u", s->shared_size);
   static uint32_t in[12], o[12];
   for (int i = 0; i < 12; i++)
      in[i] = (uint32_t)(i * i + 3);
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   bind(set, 0, in, sizeof(in));
   bind(set, 1, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 3, 1, 1);
   for (int g = 0; g < 3; g++)
      for (int l = 0; l < 4; l++)
         CHECK_EQ_INT(o[g * 4 + l], in[g * 4 + 3 - l] * 3 + l);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Barriers across several subgroups                                         */
/* ------------------------------------------------------------------------ */

static void
test_barrier(void)
{
   struct sc_shader *s = compile("barrier", SPV(barrier_spv));
   if (!s)
      return;
   CHECK_EQ_INT(s->subgroup_count, 64 / width);
   CHECK(s->scratch_size > 0, "a resumable shader needs scratch memory");
   CHECK(s->shared_size >= 2 * 64 * 4, "shared_size = %u", s->shared_size);
   enum { GROUPS = 5, N = 64 * GROUPS };
   static uint32_t v[N], rev[N], sums[GROUPS];
   for (int i = 0; i < N; i++)
      v[i] = rng() % 100000;
   memset(rev, 0, sizeof(rev));
   memset(sums, 0, sizeof(sums));
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, v, sizeof(v));
   bind(set, 1, rev, sizeof(rev));
   bind(set, 2, sums, sizeof(sums));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, GROUPS, 1, 1);
   int bad = 0;
   for (int g = 0; g < GROUPS; g++) {
      uint32_t sum = 0;
      for (int l = 0; l < 64; l++)
         sum += v[g * 64 + l];
      CHECK(sums[g] == sum, "barrier: group %d sum %u, expected %u", g, sums[g], sum);
      for (uint32_t l = 0; l < 64; l++) {
         uint32_t mine = v[g * 64 + l];
         uint32_t keep = mine * 3 + l + ((mine & 1) ? 7 : 0);
         uint32_t want = v[g * 64 + 63 - l] + keep + mine + (l & 3) * 1000;
         if (rev[g * 64 + l] != want && bad++ < 5)
            CHECK(0, "barrier: group %d invocation %u = %u, expected %u", g, l,
                  rev[g * 64 + l], want);
      }
   }
   CHECK(bad == 0, "barrier: %d wrong", bad);
   sc_shader_destroy(s);

   s = compile("barrier_odd", SPV(barrier_odd_spv));
   if (!s)
      return;
   CHECK_EQ_INT(s->subgroup_count, (70 + width - 1) / width);
   static uint32_t o[70 * 3];
   memset(o, 0, sizeof(o));
   union shale_descriptor set1[1];
   memset(set1, 0, sizeof(set1));
   bind(set1, 0, o, sizeof(o));
   struct shale_cs_context ctx1 = { .sets = { set1 } };
   dispatch(s, &ctx1, 3, 1, 1);
   for (uint32_t g = 0; g < 3; g++)
      for (uint32_t l = 0; l < 70; l++) {
         uint32_t n = (l + 1) % 70;
         if (o[g * 70 + l] != n * n + g && bad++ < 5)
            CHECK(0, "barrier_odd: group %u invocation %u = %u", g, l, o[g * 70 + l]);
      }
   CHECK(bad == 0, "barrier_odd: %d wrong", bad);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Compiles from several threads at once                                     */
/* ------------------------------------------------------------------------ */

struct thread_job {
   int index;
   int failures;
};

static void *
compile_thread(void *arg)
{
   struct thread_job *job = arg;
   for (int round = 0; round < 3; round++) {
      struct sc_shader *s = NULL;
      char msg[256];
      if (try_compile(SPV(saxpy_spv), "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s, msg,
                      sizeof(msg)) != SC_SUCCESS) {
         job->failures++;
         continue;
      }
      float x[128], y[128];
      for (int i = 0; i < 128; i++) {
         x[i] = (float)(i + job->index);
         y[i] = 1.0f;
      }
      struct { float a; uint32_t n; } pc = { 3.0f, 128 };
      uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
      memcpy(push, &pc, sizeof(pc));
      union shale_descriptor set[2];
      memset(set, 0, sizeof(set));
      bind(set, 0, x, sizeof(x));
      bind(set, 1, y, sizeof(y));
      struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
      const uint32_t base[3] = { 0, 0, 0 }, count[3] = { 2, 1, 1 };
      if (sc_dispatch_compute(s, &ctx, base, count) != SC_SUCCESS)
         job->failures++;
      for (int i = 0; i < 128; i++)
         if (y[i] != 3.0f * x[i] + 1.0f)
            job->failures++;
      sc_shader_destroy(s);
   }
   return NULL;
}

static void
test_threads(void)
{
   enum { T = 4 };
   pthread_t threads[T];
   struct thread_job jobs[T];
   for (int t = 0; t < T; t++) {
      jobs[t].index = t;
      jobs[t].failures = 0;
      CHECK_EQ_INT(pthread_create(&threads[t], NULL, compile_thread, &jobs[t]), 0);
   }
   for (int t = 0; t < T; t++) {
      pthread_join(threads[t], NULL);
      CHECK(jobs[t].failures == 0, "thread %d: %d failures", t, jobs[t].failures);
   }
}

/* ------------------------------------------------------------------------ */
/* Errors: invalid SPIR-V and unsupported instructions never crash           */
/* ------------------------------------------------------------------------ */

static void
test_errors(void)
{
   char msg[256];
   struct sc_shader *s = (struct sc_shader *)0x1;
   uint32_t garbage[64];
   for (int i = 0; i < 64; i++)
      garbage[i] = rng();
   CHECK_EQ_INT(try_compile(garbage, 64, "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s, msg,
                            sizeof(msg)), SC_ERROR_INVALID_SPIRV);
   CHECK(s == NULL, "no shader on failure");
   /* A valid header followed by garbage. */
   garbage[0] = 0x07230203;
   garbage[1] = 0x00010000;
   garbage[2] = 0;
   garbage[3] = 100;
   garbage[4] = 0;
   CHECK_EQ_INT(try_compile(garbage, 64, "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s, msg,
                            sizeof(msg)), SC_ERROR_INVALID_SPIRV);
   CHECK(msg[0] != '\0', "a message explains the failure");
   /* Truncated modules. */
   size_t n = sizeof(saxpy_spv) / 4;
   CHECK_EQ_INT(try_compile(saxpy_spv, n / 2, "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s,
                            msg, sizeof(msg)), SC_ERROR_INVALID_SPIRV);
   CHECK_EQ_INT(try_compile(saxpy_spv, 3, "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s,
                            msg, sizeof(msg)), SC_ERROR_INVALID_SPIRV);
   CHECK_EQ_INT(try_compile(saxpy_spv, 0, "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s,
                            msg, sizeof(msg)), SC_ERROR_INVALID_SPIRV);
   /* Missing entry point, wrong stage. */
   CHECK_EQ_INT(try_compile(SPV(saxpy_spv), "nope", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s,
                            msg, sizeof(msg)), SC_ERROR_ENTRY_POINT);
   CHECK_EQ_INT(try_compile(SPV(saxpy_spv), "main", VK_SHADER_STAGE_VERTEX_BIT, NULL, 0, &s,
                            msg, sizeof(msg)), SC_ERROR_ENTRY_POINT);
   /* Stages other than compute: a clean "unsupported". */
   s = NULL;
   CHECK_EQ_INT(try_compile(SPV(simple_vert_spv), "main", VK_SHADER_STAGE_VERTEX_BIT, NULL, 0,
                            &s, msg, sizeof(msg)), SC_ERROR_UNSUPPORTED);
   CHECK(s == NULL, "no shader on failure");
   /* Valid SPIR-V with an instruction we do not implement. */
   enum sc_result r = try_compile(SPV(unsupported_op_spv), "main", VK_SHADER_STAGE_COMPUTE_BIT,
                                  NULL, 0, &s, msg, sizeof(msg));
   CHECK_EQ_INT(r, SC_ERROR_UNSUPPORTED);
   CHECK(strstr(msg, "OpReadClockKHR") != NULL, "message names the opcode: \"%s\"", msg);
   CHECK(s == NULL, "no shader on failure");

   /* Mutated modules: any result but a crash; what compiles must be valid. */
   static uint32_t mutant[sizeof(control_spv) / 4];
   int compiled = 0;
   for (int t = 0; t < 150; t++) {
      memcpy(mutant, control_spv, sizeof(control_spv));
      int flips = 1 + (int)(rng() % 3);
      for (int f = 0; f < flips; f++) {
         uint32_t w = 5 + rng() % (sizeof(mutant) / 4 - 5);
         switch (rng() % 3) {
         case 0: mutant[w] ^= 1u << (rng() % 32); break;
         case 1: mutant[w] = rng() % 64; break;
         default: mutant[w] = rng(); break;
         }
      }
      s = NULL;
      r = try_compile(mutant, sizeof(mutant) / 4, "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0,
                      &s, msg, sizeof(msg));
      CHECK((r == SC_SUCCESS) == (s != NULL), "result %d with shader %p", r, (void *)s);
      CHECK(r == SC_SUCCESS || r == SC_ERROR_INVALID_SPIRV || r == SC_ERROR_UNSUPPORTED ||
               r == SC_ERROR_ENTRY_POINT,
            "mutant %d: %s (%s)", t, sc_result_string(r), msg);
      compiled += r == SC_SUCCESS;
      sc_shader_destroy(s);
   }
   fprintf(stderr, "errors: %d of 150 mutated modules still compiled\n", compiled);
}

/* ------------------------------------------------------------------------ */

/* The width the CPU should get, from /proc/cpuinfo (x86 only). */
static uint32_t
cpuinfo_width(void)
{
   FILE *f = fopen("/proc/cpuinfo", "r");
   if (!f)
      return 0;
   char line[4096];
   uint32_t w = 0;
   while (fgets(line, sizeof(line), f)) {
      if (strncmp(line, "flags", 5) != 0)
         continue;
      w = strstr(line, " avx512f") ? 16 : strstr(line, " avx2") ? 8 : 4;
      break;
   }
   fclose(f);
   return w;
}

int
main(void)
{
   unsetenv("SHALE_SIMD_WIDTH");
   uint32_t host = sc_default_simd_width();
   CHECK(host == 4 || host == 8 || host == 16, "default width %u", host);
#if defined(__x86_64__)
   uint32_t want = cpuinfo_width();
   if (want)
      CHECK_EQ_INT(host, want);
#endif
   enum sc_result r = sc_compiler_create(&compiler);
   CHECK_EQ_INT(r, SC_SUCCESS);
   if (r != SC_SUCCESS)
      return check_finish();

   static const uint32_t widths[] = { 4, 8, 16 };
   for (int w = 0; w < 3; w++) {
      char value[8];
      snprintf(value, sizeof(value), "%u", widths[w]);
      setenv("SHALE_SIMD_WIDTH", value, 1);
      width = widths[w];
      CHECK_EQ_INT(sc_default_simd_width(), width);
      test_saxpy(w == 0);
      test_robust();
      test_arraylen();
      test_intops();
      test_floatops();
      test_glsl450();
      test_control();
      test_atomics();
      test_big();
      test_composites();
      test_misc();
      test_spec();
      test_partial();
      test_private_big();
      test_phi_swap();
      test_shared_small();
      test_barrier();
      test_errors();
      if (w == 0)
         test_threads();
   }
   sc_compiler_destroy(compiler);
   return check_finish();
}
