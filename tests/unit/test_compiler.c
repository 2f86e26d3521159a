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
#include "shaders/early_return_switch_spv.h"
#include "shaders/floatops_spv.h"
#include "shaders/shared_oob_spv.h"
#include "shaders/glsl450_float_spv.h"
#include "shaders/glsl450_spv.h"
#include "shaders/image_atomics_spv.h"
#include "shaders/image_copy_spv.h"
#include "shaders/image_formats_spv.h"
#include "shaders/image_nonuniform_spv.h"
#include "shaders/image_query_spv.h"
#include "shaders/interleaved_spv.h"
#include "shaders/intops_spv.h"
#include "shaders/misc_spv.h"
#include "shaders/modf_struct_spv.h"
#include "shaders/partial_spv.h"
#include "shaders/phi_swap_spv.h"
#include "shaders/dont_inline_spv.h"
#include "shaders/private_big_spv.h"
#include "shaders/saxpy_spv.h"
#include "shaders/shared_small_spv.h"
#include "shaders/simple_vert_spv.h"
#include "shaders/spec_spv.h"
#include "shaders/transcendental_spv.h"
#include "shaders/unsupported_op_spv.h"
#include "shaders/varptr_workgroup_spv.h"

#define SPV(a) (a), (sizeof(a) / sizeof((a)[0]))

static struct sc_compiler *compiler;
static uint32_t width;   /* SIMD width of this round */
static uint32_t round_flags;   /* compile flags of this round (SC_COMPILE_BASELINE) */
/* sc_compile_info.simd_width of this round: 0 (the environment's width) or
 * 1 (scalar code, what pipelines without subgroups start with). */
static uint32_t round_simd_width;

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
      .flags = round_flags,
      .simd_width = round_simd_width,
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
   info->flags |= round_flags;
   if (!info->simd_width)
      info->simd_width = round_simd_width;
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
   if (s) {
      CHECK_EQ_INT(s->simd_width, width);
      CHECK_EQ_INT(s->baseline, round_flags != 0);
   }
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

/* Interleaved per-lane vectors (vec4/vec3/ivec2 elements of consecutive
 * lanes side by side): block loads and stores give the same results as one
 * access per component, including short ranges under robust buffer access
 * (components past the range read 0 and are not written), divergent stores
 * and the untouched fourth word of vec3 elements. */
static void
test_interleaved(void)
{
   struct sc_compile_info info = {
      .words = interleaved_spv,
      .word_count = sizeof(interleaved_spv) / 4,
      .flags = SC_COMPILE_ROBUST_BUFFER_ACCESS,
   };
   struct sc_shader *s = compile_info("interleaved", &info);
   if (!s)
      return;
   enum { N = 256 };
   /* Ranges end inside an element: 4 bytes into element R4, 8 into R3. */
   const size_t r4 = 200 * 16 + 4, r3 = 150 * 16 + 8, ro4 = 230 * 16 + 12, ro3 = 170 * 16 + 4;
   const size_t ro2 = 240 * 8 + 4, rou = N * 16;
   static float a4[N][4], a3[N][4], o4[N][4], ou[N][4];
   static uint32_t o3[N][4];
   static int32_t o2[N][2];
   for (int i = 0; i < N; i++) {
      for (int c = 0; c < 4; c++) {
         a4[i][c] = (float)(i * 4 + c) * 0.5f - 100.0f;
         a3[i][c] = c == 3 ? -7.0f : (float)(i + c * 1000);
         o4[i][c] = -1.0f;
         ou[i][c] = -1.0f;
         o3[i][c] = 0xdeadbeef;
      }
      o2[i][0] = o2[i][1] = 0x5a5a5a5a;
   }
   float k = 3.25f;
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, &k, sizeof(k));
   union shale_descriptor set[6];
   memset(set, 0, sizeof(set));
   bind(set, 0, a4, r4);
   bind(set, 1, a3, r3);
   bind(set, 2, o4, ro4);
   bind(set, 3, o3, ro3);
   bind(set, 4, o2, ro2);
   bind(set, 5, ou, rou);
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, N / 64, 1, 1);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      float v[4], w[3];
      for (int c = 0; c < 4; c++)
         v[c] = (size_t)(i * 16 + c * 4 + 4) <= r4 ? a4[i][c] : 0.0f;
      for (int c = 0; c < 3; c++)
         w[c] = (size_t)(i * 16 + c * 4 + 4) <= r3 ? a3[i][c] : 0.0f;
      for (int c = 0; c < 4; c++) {
         bool in = (size_t)(i * 16 + c * 4 + 4) <= ro4 && i % 3 != 1;
         float want = in ? v[c] * 2.0f + (c < 3 ? w[c] : 1.0f) : -1.0f;
         if (o4[i][c] != want && bad++ < 8)
            CHECK(0, "interleaved W=%u: o4[%d].%d = %g, expected %g", width, i, c, o4[i][c], want);
         float wu = k + (float)c;
         if (ou[i][c] != wu && bad++ < 8)
            CHECK(0, "interleaved W=%u: ou[%d].%d = %g, expected %g", width, i, c, ou[i][c], wu);
         uint32_t want3 = c < 3 && (size_t)(i * 16 + c * 4 + 4) <= ro3 ? (uint32_t)(w[c] * 4.0f)
                                                                       : 0xdeadbeef;
         if (o3[i][c] != want3 && bad++ < 8)
            CHECK(0, "interleaved W=%u: o3[%d].%d = %#x, expected %#x", width, i, c, o3[i][c], want3);
      }
      for (int c = 0; c < 2; c++) {
         int32_t want = (size_t)(i * 8 + c * 4 + 4) <= ro2 ? (c ? -i : i) + (int32_t)v[c]
                                                            : 0x5a5a5a5a;
         if (o2[i][c] != want && bad++ < 8)
            CHECK(0, "interleaved W=%u: o2[%d].%d = %d, expected %d", width, i, c, o2[i][c], want);
      }
   }
   CHECK(bad == 0, "interleaved W=%u: %d wrong", width, bad);
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
/* modf, frexp, ldexp, determinant, inverse, double packing                  */
/* ------------------------------------------------------------------------ */

/* Bitwise equal, or both NaN. */
static bool
same_float(float a, float b)
{
   return (isnan(a) && isnan(b)) || fbits(a) == fbits(b);
}

/* ldexp is exact (correctly rounded); a denormal result may be flushed. */
static bool
ldexp_ok(float got, float x, int e)
{
   float want = ldexpf(x, e);
   return same_float(got, want) || (fpclassify(want) == FP_SUBNORMAL && got == 0.0f) ||
          (fpclassify(x) == FP_SUBNORMAL && same_float(got, ldexpf(flush(x), e)));
}

static bool
frexp_ok(float got_m, int got_e, float x)
{
   if (isnan(x))
      return isnan(got_m);
   if (isinf(x))
      return got_m == x;
   int e;
   float m = frexpf(x, &e);
   if (x == 0.0f || (fpclassify(x) == FP_SUBNORMAL && got_m == 0.0f && got_e == 0))
      return got_m == 0.0f && got_e == 0;
   return same_float(got_m, m) && got_e == e;
}

static bool
modf_ok(float got_f, float got_w, float x)
{
   float w, f = modff(x, &w);
   if (fpclassify(x) == FP_SUBNORMAL && got_w == 0.0f && got_f == 0.0f)
      return true;
   return same_float(got_f, f) && same_float(got_w, w);
}

/* Determinant and inverse in double, a[row][col]. */
static double
det_d(const double *a, int n)
{
   if (n == 1)
      return a[0];
   double sum = 0.0, sub[9];
   for (int j = 0; j < n; j++) {
      int k = 0;
      for (int r = 1; r < n; r++)
         for (int c = 0; c < n; c++)
            if (c != j)
               sub[k++] = a[r * n + c];
      sum += (j & 1 ? -1.0 : 1.0) * a[j] * det_d(sub, n - 1);
   }
   return sum;
}

static void
inverse_d(const double *a, int n, double *inv)
{
   double det = det_d(a, n), sub[9];
   for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
         int k = 0;
         for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
               if (r != i && c != j)
                  sub[k++] = a[r * n + c];
         inv[j * n + i] = ((i + j) & 1 ? -1.0 : 1.0) * det_d(sub, n - 1) / det;
      }
   }
}

/* The n x n matrix GLSL builds column by column from v: a[row][col]. */
static void
matrix_from(const float *v, int n, double *a)
{
   for (int c = 0; c < n; c++)
      for (int r = 0; r < n; r++)
         a[r * n + c] = v[c * n + r];
}

static bool
near(float got, double want, double scale)
{
   return fabs(got - want) <= 1e-5 * fmax(scale, fabs(want));
}

static void
test_glsl450_float(void)
{
   struct sc_shader *s = compile("glsl450_float", SPV(glsl450_float_spv));
   if (!s)
      return;
   enum { N = 32 };
   static const float xs[] = {
      0.0f, -0.0f, 1.5f, -2.75f, 1e-40f, -3e-39f, FLT_MAX, INFINITY, -INFINITY, NAN, 0.5f,
      1.0f, 123456.79f, -1e20f, 1e-30f, 7.0f, 1.0f, 1.0f, 1.5f, 3.0f, -1.0f, 1e-40f,
      FLT_MIN, 0.75f, 2.0f, -5.5f, 1e30f, 1.0f, 1.25f, 8388609.0f, -0.3f, 0.999f,
   };
   static const int es[] = {
      5, 3, 127, -3, 100, 126, -300, 2, -2, 1, -149, -149, -10, -60, 40, 0, -150, 128, -150,
      -151, 1 << 30, 60, -1, -126, -127, -(1 << 30), 200, -148, -149, 3, 0, -130,
   };
   static float a[N * 17], o[N * 48];
   static int32_t ei[N], p[N * 8];
   for (int i = 0; i < N; i++) {
      a[i * 17] = xs[i];
      ei[i] = es[i];
      /* Diagonally dominant, so well conditioned. */
      for (int k = 0; k < 16; k++)
         a[i * 17 + 1 + k] = (float)((int)(rng() % 2001) - 1000) / 1000.0f + (k % 5 == 0 ? 5.0f : 0.0f);
   }
   union shale_descriptor set[4];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, sizeof(a));
   bind(set, 1, ei, sizeof(ei));
   bind(set, 2, o, sizeof(o));
   bind(set, 3, p, sizeof(p));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, N / 16, 1, 1);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      const float *r = &o[i * 48];
      float x = xs[i];
      if (!modf_ok(r[0], r[1], x) && bad++ < 10)
         CHECK(0, "modf(%g) = %g, %g", x, r[0], r[1]);
      if (!frexp_ok(r[2], p[i * 8], x) && bad++ < 10)
         CHECK(0, "frexp(%g) = %g, %d", x, r[2], p[i * 8]);
      if (!ldexp_ok(r[3], x, es[i]) && bad++ < 10)
         CHECK(0, "ldexp(%g, %d) = %g, expected %g", x, es[i], r[3], ldexpf(x, es[i]));
      const float *mv = &a[i * 17 + 1];
      double m2[4], m3[9], m4[16], inv[16];
      matrix_from(mv, 2, m2);
      matrix_from(mv, 3, m3);
      matrix_from(mv, 4, m4);
      CHECK(near(r[4], det_d(m2, 2), 30.0), "det2 = %g, expected %g", r[4], det_d(m2, 2));
      CHECK(near(r[5], det_d(m3, 3), 300.0), "det3 = %g, expected %g", r[5], det_d(m3, 3));
      CHECK(near(r[6], det_d(m4, 4), 3000.0), "det4 = %g, expected %g", r[6], det_d(m4, 4));
      const struct { int n, at; double *m; } invs[3] = { { 4, 7, m4 }, { 3, 23, m3 }, { 2, 32, m2 } };
      for (int t = 0; t < 3; t++) {
         int n = invs[t].n;
         inverse_d(invs[t].m, n, inv);
         for (int c = 0; c < n; c++)
            for (int rr = 0; rr < n; rr++)
               if (!near(r[invs[t].at + c * n + rr], inv[rr * n + c], 1.0) && bad++ < 10)
                  CHECK(0, "inverse%d[%d][%d] = %g, expected %g", n, c, rr,
                        r[invs[t].at + c * n + rr], inv[rr * n + c]);
      }
      float v[3] = { x, x * 3.0f, -x - 0.25f };
      float wv, fv = modff(v[1], &wv);
      if (!(modf_ok(r[36], modff(v[2], &wv) * 0.0f + truncf(v[2]), v[1]) || same_float(r[36], fv)) &&
          bad++ < 10)
         CHECK(0, "modf(vec).y of %g = %g", v[1], r[36]);
      if (!same_float(r[37], truncf(v[2])) && !(fpclassify(v[2]) == FP_SUBNORMAL) && bad++ < 10)
         CHECK(0, "modf(vec) whole.z of %g = %g", v[2], r[37]);
      int e1;
      float m1 = frexpf(v[2], &e1);
      if (!frexp_ok(r[38], isfinite(v[2]) && v[2] != 0.0f ? e1 : 0, v[2]) && bad++ < 10)
         CHECK(0, "frexp(vec).z of %g = %g (want %g)", v[2], r[38], m1);
      if (!frexp_ok(frexpf(v[1], &e1), p[i * 8 + 1], v[1]) && bad++ < 10)
         CHECK(0, "frexp(vec) exp.y of %g = %d", v[1], p[i * 8 + 1]);
      if (!ldexp_ok(r[39], v[2], -3) && bad++ < 10)
         CHECK(0, "ldexp(vec).z of %g = %g", v[2], r[39]);
      double u3[9], uinv[9];
      matrix_from(&a[1], 3, u3);
      inverse_d(u3, 3, uinv);
      CHECK(near(r[40], det_d(u3, 3), 300.0), "uniform det3 = %g", r[40]);
      CHECK(near(r[41], uinv[2 * 3 + 1], 1.0), "uniform inverse[1][2] = %g, expected %g", r[41],
            uinv[2 * 3 + 1]);
      /* packDouble2x32, * 2, unpackDouble2x32. */
      uint64_t bits = (uint64_t)(i * 0x01010101u + 0x3ff00000u) << 32 | fbits(x);
      double d;
      memcpy(&d, &bits, 8);
      d *= 2.0;
      memcpy(&bits, &d, 8);
      if (!isnan(d))
         CHECK((uint32_t)p[i * 8 + 2] == (uint32_t)bits &&
                  (uint32_t)p[i * 8 + 3] == (uint32_t)(bits >> 32),
               "double packing %d: %#x %#x, expected %#llx", i, p[i * 8 + 2], p[i * 8 + 3],
               (unsigned long long)bits);
   }
   CHECK(bad == 0, "glsl450_float: %d wrong", bad);
   sc_shader_destroy(s);

   /* ModfStruct and Frexp through a pointer (hand-written SPIR-V). */
   s = compile("modf_struct", SPV(modf_struct_spv));
   if (!s)
      return;
   static float in[16], out[48];
   static int32_t exps[16];
   for (int i = 0; i < 16; i++)
      in[i] = xs[i];
   memset(set, 0, sizeof(set));
   bind(set, 0, in, sizeof(in));
   bind(set, 1, out, sizeof(out));
   bind(set, 2, exps, sizeof(exps));
   struct shale_cs_context ctx2 = { .sets = { set } };
   dispatch(s, &ctx2, 2, 1, 1);
   for (int i = 0; i < 16; i++) {
      CHECK(modf_ok(out[i * 3], out[i * 3 + 1], in[i]), "ModfStruct(%g) = %g, %g", in[i],
            out[i * 3], out[i * 3 + 1]);
      CHECK(frexp_ok(out[i * 3 + 2], exps[i], in[i]), "Frexp(%g) = %g, %d", in[i],
            out[i * 3 + 2], exps[i]);
   }
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Transcendentals against libm, with Vulkan's precision requirements        */
/* ------------------------------------------------------------------------ */

enum {
   TR_SIN, TR_COS, TR_TAN, TR_ASIN, TR_ACOS, TR_ATAN, TR_ATAN2, TR_SINH, TR_COSH, TR_TANH,
   TR_ASINH, TR_ACOSH, TR_ATANH, TR_EXP, TR_EXP2, TR_LOG, TR_LOG2, TR_POW, TR_COUNT
};

static const char *const tr_names[TR_COUNT] = {
   "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
   "asinh", "acosh", "atanh", "exp", "exp2", "log", "log2", "pow",
};

/* The size of one unit in the last place of a float of magnitude |v|. */
static double
ulp_of(double v)
{
   v = fabs(v);
   if (v < FLT_MIN)
      return 0x1p-149;
   if (v > FLT_MAX)
      v = FLT_MAX;
   int e;
   frexp(v, &e);
   return ldexp(1.0, e - 24);
}

/* Vulkan: log / log2 within 3 ULP outside [0.5, 2], absolute 2^-21 inside. */
static double
log_tol(double w, double result)
{
   return w >= 0.5 && w <= 2.0 ? 0x1p-21 : 3.0 * ulp_of(result);
}

/* Exact reference (double libm) and allowed absolute error of function f at
 * (x, y), from the spec's table; false where the result is undefined. */
static bool
tr_reference(int f, double x, double y, double *ref, double *tol)
{
   double ax = fabs(x);
   switch (f) {
   case TR_SIN:
   case TR_COS:
      if (ax > M_PI)
         return false;
      *ref = f == TR_SIN ? sin(x) : cos(x);
      *tol = 0x1p-11;
      return true;
   case TR_TAN: {
      /* Inherited from sin(x) / cos(x). */
      if (ax > M_PI)
         return false;
      double e = 0x1p-11, c = fabs(cos(x));
      if (c <= 2 * e)
         return false;
      *ref = tan(x);
      *tol = e * (fabs(sin(x)) + c) / (c * (c - e)) + ulp_of(*ref);
      return true;
   }
   case TR_ASIN:
   case TR_ACOS: {
      /* Inherited from atan2(x, sqrt(1 - x^2)) (4096 ULP), with the error
       * of sqrt(1 - x * x) carried through. */
      if (ax > 1.0)
         return false;
      *ref = f == TR_ASIN ? asin(x) : acos(x);
      double c = sqrt(fmax(1.0 - x * x, 0x1p-48));
      *tol = 4096 * ulp_of(*ref) + 0x1p-22 / c;
      return true;
   }
   case TR_ATAN:
      *ref = atan(x);
      *tol = 4096 * ulp_of(*ref);
      return true;
   case TR_ATAN2:
      if (x == 0.0 && y == 0.0)
         return false;
      *ref = atan2(x, y);
      *tol = 4096 * ulp_of(*ref);
      return true;
   case TR_EXP:
   case TR_EXP2:
      *ref = f == TR_EXP ? exp(x) : exp2(x);
      *tol = (3.0 + 2.0 * ax) * ulp_of(*ref);
      return true;
   case TR_LOG:
   case TR_LOG2:
      if (!(x > 0.0))
         return false;
      *ref = f == TR_LOG ? log(x) : log2(x);
      *tol = log_tol(x, *ref);
      return true;
   case TR_POW: {
      /* Inherited from exp2(y * log2(x)). */
      if (ax == 0.0 || isinf(ax) || isnan(ax) || isnan(y))
         return false;
      double l = log2(ax), t = y * l;
      *ref = pow(ax, y);
      double dt = fabs(y) * log_tol(ax, l) + 0.5 * ulp_of(t);
      *tol = *ref * expm1(M_LN2 * dt) + (3.0 + 2.0 * fabs(t)) * ulp_of(*ref);
      return true;
   }
   case TR_SINH:
   case TR_COSH: {
      /* Inherited from (exp(x) -+ exp(-x)) * 0.5. */
      double ep = exp(ax), em = exp(-ax);
      *ref = f == TR_SINH ? sinh(x) : cosh(x);
      *tol = 0.5 * (3.0 + 2.0 * ax) * (ulp_of(ep) + ulp_of(em)) + 2 * ulp_of(*ref);
      return true;
   }
   case TR_TANH: {
      double ep = exp(ax), em = exp(-ax);
      double d = 0.5 * (3.0 + 2.0 * ax) * (ulp_of(ep) + ulp_of(em));
      *ref = tanh(x);
      *tol = isinf(x) ? 0.0 : (d + fabs(*ref) * d) / cosh(x) + 2 * ulp_of(*ref);
      return true;
   }
   case TR_ASINH: {
      /* Inherited from log(x + sqrt(x^2 + 1)), taken at |x| (the formula
       * cancels for negative x; asinh is odd). */
      double w = ax + sqrt(ax * ax + 1.0);
      *ref = asinh(x);
      *tol = log_tol(w, *ref) + 3 * ulp_of(w) / w + ulp_of(*ref);
      return true;
   }
   case TR_ACOSH: {
      if (x < 1.0)
         return false;
      double s = sqrt(fmax(x * x - 1.0, 0x1p-48)), w = x + s;
      *ref = acosh(x);
      *tol = log_tol(w, *ref) + (ulp_of(x * x) / (2 * s) + 2 * ulp_of(w)) / w + ulp_of(*ref);
      return true;
   }
   case TR_ATANH: {
      /* Inherited from log((1 + x) / (1 - x)) * 0.5. */
      if (ax >= 1.0)
         return false;
      double q = (1.0 + ax) / (1.0 - ax);
      *ref = atanh(x);
      *tol = 0.5 * (log_tol(q, log(q)) + 3 * ulp_of(q) / q) + ulp_of(*ref);
      return true;
   }
   }
   return false;
}

/* got is within tol of ref, overflow and denormal flushing allowed for. */
static bool
tr_close(float got, double ref, double tol)
{
   if (isnan(ref))
      return isnan(got);
   if (isnan(got))
      return false;
   if (fabs(ref) - tol > FLT_MAX)
      return isinf(got) && (got > 0) == (ref > 0);
   if (isinf(got))
      return fabs(ref) + tol > FLT_MAX && (got > 0) == (ref > 0);
   if (fabs((double)got - ref) <= tol)
      return true;
   return fabs(ref) < FLT_MIN && got == 0.0f;
}

static void
tr_inputs(float (*in)[2], int n)
{
   static const float edges[] = {
      0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 2.0f, 3.14159265f, -3.14159265f, 1.57079633f,
      -1.57079633f, 0.785398163f, 1e-8f, -1e-8f, FLT_MIN, -FLT_MIN, 1e-40f, -1e-40f,
      FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN, 0.99999994f, 1.00000012f, -0.99999994f,
      88.7f, 88.72f, 88.73f, -87.3f, -103.0f, -104.0f, 89.0f, 127.9f, 128.0f, 128.5f,
      -149.0f, -150.0f, -160.0f, 10.0f, -10.0f, 20.0f, -20.0f, 0.3466f, 0.6931472f, 1e10f,
      -1e10f, 4096.0f, 4097.0f, 100.0f, 0.1f, 2.71828183f, 0.70710677f, 1.4142135f,
      1e-3f, -1e-3f, 9.0f, 8.9f, 0.25f, 0.75f, 1.5f, 3.0f, 6.0f, 1000.0f, 1e-20f,
   };
   int ne = (int)(sizeof(edges) / sizeof(edges[0]));
   for (int i = 0; i < n; i++) {
      float x, r01 = (float)(rng() & 0xffffff) / 16777216.0f;
      int k = i < ne ? 0 : 1 + (i % 5);
      switch (k) {
      case 0: x = edges[i]; break;
      case 1: x = (2.0f * r01 - 1.0f) * 3.14159265f; break;
      case 2: x = (2.0f * r01 - 1.0f) * 12.0f; break;
      case 3:
         x = ldexpf(1.0f + r01, (int)(rng() % 60) - 30) * ((rng() & 1) ? -1.0f : 1.0f);
         break;
      case 4: x = 2.0f * r01 - 1.0f; break;
      default: x = 0.5f + 1.5f * r01; break;
      }
      float y;
      switch (rng() % 4) {
      case 0: y = (float)((int)(rng() % 9) - 4); break;
      case 1: y = ((float)(rng() & 0xffff) / 65536.0f - 0.5f) * 40.0f; break;
      case 2: y = ldexpf(1.0f, (int)(rng() % 20) - 10) * ((rng() & 1) ? -1.0f : 1.0f); break;
      default: y = (2.0f * ((float)(rng() & 0xffff) / 65536.0f) - 1.0f) * 3.0f; break;
      }
      in[i][0] = x;
      in[i][1] = y;
   }
}

static void
test_transcendental(bool report)
{
   struct sc_shader *s = compile("transcendental", SPV(transcendental_spv));
   if (!s)
      return;
   enum { N = 4096 };
   static float in[N][2], out[N * TR_COUNT], uni[TR_COUNT];
   tr_inputs(in, N);
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, in, sizeof(in));
   bind(set, 1, out, sizeof(out));
   bind(set, 2, uni, sizeof(uni));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, N / 64, 1, 1);
   int bad[TR_COUNT] = { 0 };
   double worst[TR_COUNT] = { 0 };   /* in ULP of the reference */
   for (int i = 0; i < N; i++) {
      for (int f = 0; f < TR_COUNT; f++) {
         /* atan(x, y) is atan2(x, y); pow takes |x|. */
         float x = f == TR_POW ? fabsf(in[i][0]) : in[i][0], y = in[i][1];
         float got = out[i * TR_COUNT + f];
         double ref, tol;
         bool ok = false, defined = tr_reference(f, x, y, &ref, &tol);
         if (defined)
            ok = tr_close(got, ref, tol);
         /* Denormal inputs may be flushed to zero. */
         if (defined && !ok && (fpclassify(x) == FP_SUBNORMAL || fpclassify(y) == FP_SUBNORMAL)) {
            double ref0, tol0;
            if (tr_reference(f, flush(x), flush(y), &ref0, &tol0))
               ok = tr_close(got, ref0, tol0);
         }
         if (!defined) {
            /* No precision requirement; sin and cos of finite x stay in
             * [-1, 1]. */
            if ((f != TR_SIN && f != TR_COS) || !isfinite(x))
               continue;
            ok = fabsf(got) <= 1.0f;
         }
         if (defined && isfinite(ref) && isfinite(got) && fabs(ref) >= FLT_MIN) {
            double e = fabs((double)got - ref) / ulp_of(ref);
            if (e > worst[f])
               worst[f] = e;
         }
         bool two = f == TR_ATAN2 || f == TR_POW;
         if (!ok && bad[f]++ < 3)
            CHECK(0, "%s(%.9g%s%.9g) = %.9g, expected %.9g +- %.3g (W=%u)", tr_names[f], x,
                  two ? ", " : "", two ? y : 0.0f, got, defined ? ref : 0.0,
                  defined ? tol : 0.0, width);
      }
   }
   for (int f = 0; f < TR_COUNT; f++)
      CHECK(bad[f] == 0, "%s: %d of %d results out of tolerance", tr_names[f], bad[f], N);
   if (report) {
      fprintf(stderr, "transcendentals, largest error seen (ULP):");
      for (int f = 0; f < TR_COUNT; f++)
         fprintf(stderr, " %s %.1f", tr_names[f], worst[f]);
      fprintf(stderr, "\n");
   }
   /* The uniform (scalar) code computes what lane 0 did. */
   for (int f = 0; f < TR_COUNT; f++)
      CHECK(memcmp(&uni[f], &out[f], 4) == 0, "uniform %s(%g) = %.9g, per-lane %.9g",
            tr_names[f], in[0][0], uni[f], out[f]);
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

/* Compiles words with flags, dumping the IR; returns whether the IR polls
 * the watchdog's cancel word (-1: no IR) and the compile key in key. */
static int
ir_polls(const char *name, const uint32_t *words, size_t count, uint32_t flags,
         uint8_t key[SC_COMPILE_KEY_SIZE])
{
   struct sc_compile_dump dump = { .want_ir = true };
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = "main",
      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
      .flags = flags,
      .dump = &dump,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "%s: %s (%s)", name, sc_result_string(r), msg);
   CHECK(dump.ir != NULL, "%s: no IR dump", name);
   int polls = dump.ir ? strstr(dump.ir, "poll_due") != NULL : -1;
   CHECK_EQ_INT(sc_compile_key(compiler, &info, key), SC_SUCCESS);
   sc_compile_dump_finish(&dump);
   sc_shader_destroy(s);
   return polls;
}

/* Watchdog polls (sd_watchdog.h): a loop with a push-constant bound polls
 * the cancel word at its header, unless SC_COMPILE_NO_CANCEL_POLLS (a device
 * whose watchdog is off) leaves the polls out; the flag is part of the
 * compile key. Loops that end by themselves soon have no poll: barrier.comp
 * has a constant counted loop and a tree reduction's `stride >>= 1` loop
 * (with a barrier in it, where a poll would run at every resume). */
static void
test_cancel_polls(void)
{
   uint8_t keys[2][SC_COMPILE_KEY_SIZE];
   CHECK_EQ_INT(ir_polls("control", SPV(control_spv), 0, keys[0]), 1);
   CHECK_EQ_INT(ir_polls("control, no polls", SPV(control_spv), SC_COMPILE_NO_CANCEL_POLLS,
                         keys[1]), 0);
   CHECK(memcmp(keys[0], keys[1], SC_COMPILE_KEY_SIZE) != 0, "cancel polls: same compile key");
   CHECK_EQ_INT(ir_polls("barrier", SPV(barrier_spv), 0, keys[0]), 0);
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

/* Functions returning from inside a switch (and a switch in a loop): they
 * only inline after merge-return. */
static uint32_t
ers_f(uint32_t x)
{
   switch (x & 3u) {
   case 0u: return 1u;
   case 1u: return x * 3u;
   default: break;
   }
   return x + 7u;
}

static uint32_t
ers_g(uint32_t x)
{
   uint32_t acc = 0;
   for (uint32_t n = 0; n < (x & 15u); n++) {
      switch ((x >> n) & 3u) {
      case 3u: return acc + 100u;
      case 2u: acc += n; break;
      default: acc += 1u; break;
      }
   }
   return acc;
}

static void
test_early_return_switch(void)
{
   struct sc_shader *s = compile("early_return_switch", SPV(early_return_switch_spv));
   if (!s)
      return;
   enum { GROUPS = 5, N = 16 * GROUPS };
   static uint32_t a[N], o[N * 2];
   for (int i = 0; i < N; i++)
      a[i] = i < 32 ? (uint32_t)i * 0x9u : rng();
   memset(o, 0xab, sizeof(o));
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, sizeof(a));
   bind(set, 1, o, sizeof(o));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, GROUPS, 1, 1);
   int bad = 0;
   for (int i = 0; i < N; i++) {
      uint32_t want0 = ers_f(a[i]), want1 = ers_g(a[i]) + ers_f(a[i] >> 2);
      if ((o[i * 2] != want0 || o[i * 2 + 1] != want1) && bad++ < 10)
         CHECK(0, "early_return_switch: x=%u got %u %u, expected %u %u", a[i], o[i * 2],
               o[i * 2 + 1], want0, want1);
   }
   CHECK(bad == 0, "early_return_switch: %d wrong", bad);
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

/* Function control (DontInline, Const|DontInline, Pure|DontInline) is a
 * hint: the functions are inlined like any other. dEQP-VK.spirv_assembly.
 * instruction.compute.function_control.dont_inline, const_dont_inline,
 * inline_dont_inline, pure_inline_dont_inline failed pipeline creation
 * (the legalizer left the calls, the translator refused them). */
static void
test_dont_inline(void)
{
   struct sc_shader *s = compile("dont_inline", SPV(dont_inline_spv));
   if (!s)
      return;
   static int32_t in[16], out[16];
   for (int i = 0; i < 16; i++)
      in[i] = (int32_t)(rng() % 2001) - 1000;
   memset(out, 0xab, sizeof(out));
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   bind(set, 0, in, sizeof(in));
   bind(set, 1, out, sizeof(out));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 2, 1, 1);
   for (int g = 0; g < 16; g++) {
      /* twice(neg(neg(in) + twice(g) + 3 + 3)) */
      const int32_t want = -2 * (-in[g] + 2 * g + 6);
      CHECK(out[g] == want, "dont_inline: out[%d] = %d, expected %d", g, out[g], want);
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
/* Storage images and texel buffers on plain memory                          */
/* ------------------------------------------------------------------------ */

/* Test-side description of the formats (from the spec's format tables):
 * each channel is a bit field of one component. */
enum tf_kind { TF_UNORM, TF_SNORM, TF_UINT, TF_SINT, TF_SFLOAT, TF_UFLOAT };

struct tformat {
   VkFormat vk;
   const char *name;
   int size, kind, n;
   int comp[4], shift[4], bits[4];
};

#define TF1(f, k, b) { f, #f, (b) / 8, k, 1, { 0 }, { 0 }, { b } }
#define TF2(f, k, b) { f, #f, (b) / 4, k, 2, { 0, 1 }, { 0, b }, { b, b } }
#define TF4(f, k, b) { f, #f, (b) / 2, k, 4, { 0, 1, 2, 3 }, { 0, b, 2 * b, 3 * b }, { b, b, b, b } }

static const struct tformat tformats[] = {
   TF1(VK_FORMAT_R8_UNORM, TF_UNORM, 8), TF1(VK_FORMAT_R8_SNORM, TF_SNORM, 8),
   TF1(VK_FORMAT_R8_UINT, TF_UINT, 8), TF1(VK_FORMAT_R8_SINT, TF_SINT, 8),
   TF2(VK_FORMAT_R8G8_UNORM, TF_UNORM, 8), TF2(VK_FORMAT_R8G8_SNORM, TF_SNORM, 8),
   TF2(VK_FORMAT_R8G8_UINT, TF_UINT, 8), TF2(VK_FORMAT_R8G8_SINT, TF_SINT, 8),
   TF4(VK_FORMAT_R8G8B8A8_UNORM, TF_UNORM, 8), TF4(VK_FORMAT_R8G8B8A8_SNORM, TF_SNORM, 8),
   TF4(VK_FORMAT_R8G8B8A8_UINT, TF_UINT, 8), TF4(VK_FORMAT_R8G8B8A8_SINT, TF_SINT, 8),
   { VK_FORMAT_B8G8R8A8_UNORM, "VK_FORMAT_B8G8R8A8_UNORM", 4, TF_UNORM, 4, { 2, 1, 0, 3 },
     { 0, 8, 16, 24 }, { 8, 8, 8, 8 } },
   TF4(VK_FORMAT_A8B8G8R8_UNORM_PACK32, TF_UNORM, 8),
   TF4(VK_FORMAT_A8B8G8R8_SNORM_PACK32, TF_SNORM, 8),
   TF4(VK_FORMAT_A8B8G8R8_UINT_PACK32, TF_UINT, 8),
   TF4(VK_FORMAT_A8B8G8R8_SINT_PACK32, TF_SINT, 8),
   { VK_FORMAT_A2B10G10R10_UNORM_PACK32, "VK_FORMAT_A2B10G10R10_UNORM_PACK32", 4, TF_UNORM, 4,
     { 0, 1, 2, 3 }, { 0, 10, 20, 30 }, { 10, 10, 10, 2 } },
   { VK_FORMAT_A2B10G10R10_UINT_PACK32, "VK_FORMAT_A2B10G10R10_UINT_PACK32", 4, TF_UINT, 4,
     { 0, 1, 2, 3 }, { 0, 10, 20, 30 }, { 10, 10, 10, 2 } },
   { VK_FORMAT_B10G11R11_UFLOAT_PACK32, "VK_FORMAT_B10G11R11_UFLOAT_PACK32", 4, TF_UFLOAT, 3,
     { 0, 1, 2 }, { 0, 11, 22 }, { 11, 11, 10 } },
   TF1(VK_FORMAT_R16_UNORM, TF_UNORM, 16), TF1(VK_FORMAT_R16_SNORM, TF_SNORM, 16),
   TF1(VK_FORMAT_R16_UINT, TF_UINT, 16), TF1(VK_FORMAT_R16_SINT, TF_SINT, 16),
   TF1(VK_FORMAT_R16_SFLOAT, TF_SFLOAT, 16),
   TF2(VK_FORMAT_R16G16_UNORM, TF_UNORM, 16), TF2(VK_FORMAT_R16G16_SNORM, TF_SNORM, 16),
   TF2(VK_FORMAT_R16G16_UINT, TF_UINT, 16), TF2(VK_FORMAT_R16G16_SINT, TF_SINT, 16),
   TF2(VK_FORMAT_R16G16_SFLOAT, TF_SFLOAT, 16),
   TF4(VK_FORMAT_R16G16B16A16_UNORM, TF_UNORM, 16), TF4(VK_FORMAT_R16G16B16A16_SNORM, TF_SNORM, 16),
   TF4(VK_FORMAT_R16G16B16A16_UINT, TF_UINT, 16), TF4(VK_FORMAT_R16G16B16A16_SINT, TF_SINT, 16),
   TF4(VK_FORMAT_R16G16B16A16_SFLOAT, TF_SFLOAT, 16),
   TF1(VK_FORMAT_R32_UINT, TF_UINT, 32), TF1(VK_FORMAT_R32_SINT, TF_SINT, 32),
   TF1(VK_FORMAT_R32_SFLOAT, TF_SFLOAT, 32),
   TF2(VK_FORMAT_R32G32_UINT, TF_UINT, 32), TF2(VK_FORMAT_R32G32_SINT, TF_SINT, 32),
   TF2(VK_FORMAT_R32G32_SFLOAT, TF_SFLOAT, 32),
   TF4(VK_FORMAT_R32G32B32A32_UINT, TF_UINT, 32), TF4(VK_FORMAT_R32G32B32A32_SINT, TF_SINT, 32),
   TF4(VK_FORMAT_R32G32B32A32_SFLOAT, TF_SFLOAT, 32),
};
#define NTFORMATS (int)(sizeof(tformats) / sizeof(tformats[0]))

static const struct tformat *
tformat(VkFormat vk)
{
   for (int i = 0; i < NTFORMATS; i++)
      if (tformats[i].vk == vk)
         return &tformats[i];
   return NULL;
}

static bool
tf_integer(const struct tformat *f)
{
   return f->kind == TF_UINT || f->kind == TF_SINT;
}

static uint64_t
tf_field(const uint8_t *texel, int shift, int bits)
{
   uint64_t v = 0;
   for (int b = 0; b < bits; b++)
      v |= (uint64_t)((texel[(shift + b) / 8] >> ((shift + b) % 8)) & 1) << b;
   return v;
}

static void
tf_set_field(uint8_t *texel, int shift, int bits, uint64_t v)
{
   for (int b = 0; b < bits; b++) {
      uint8_t m = (uint8_t)(1u << ((shift + b) % 8));
      texel[(shift + b) / 8] = (uint8_t)((texel[(shift + b) / 8] & ~m) | (((v >> b) & 1) ? m : 0));
   }
}

static float
bits_float(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/* IEEE half to float, exactly. */
static float
half_float(uint32_t h)
{
   int e = (h >> 10) & 31, m = h & 1023;
   float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                       : ldexpf((float)(m | 1024), e - 25);
   return (h & 0x8000) ? -v : v;
}

/* Unsigned float with a 5-bit exponent and m mantissa bits, to float. */
static float
ufloat_float(uint32_t v, int m)
{
   int e = (int)(v >> m);
   uint32_t mant = v & ((1u << m) - 1);
   if (e == 0)
      return ldexpf((float)mant, -14 - m);
   if (e == 31)
      return mant ? NAN : INFINITY;
   return ldexpf((float)(mant | (1u << m)), e - 15 - m);
}

/* Float to a (sign bit) 5-bit exponent, m-bit mantissa float, rounding
 * to nearest even in double arithmetic; NaN and overflow as IEEE does. */
static uint32_t
float_small(float f, int m, bool is_signed)
{
   uint32_t sign = 0;
   if (isnan(f))
      return (31u << m) | (1u << (m - 1));
   if (signbit(f)) {
      if (!is_signed)
         return 0;
      sign = 1u << (m + 5);
      f = -f;
   }
   if (isinf(f))
      return sign | (31u << m);
   double q = ldexp(1.0, -14 - m);                    /* denormal quantum */
   int e;
   frexp(f, &e);                                      /* f in [2^(e-1), 2^e) */
   if (e - 1 >= -14)
      q = ldexp(1.0, e - 1 - m);
   double n = nearbyint(f / q) * q;                   /* rounded to the grid */
   if (n == 0.0)
      return sign;
   frexp(n, &e);
   if (e - 1 > 15)
      return sign | (31u << m);
   if (e - 1 < -14)
      return sign | (uint32_t)(n / ldexp(1.0, -14 - m));
   uint32_t mant = (uint32_t)(n / ldexp(1.0, e - 1 - m)) - (1u << m);
   return sign | ((uint32_t)(e - 1 + 15) << m) | mant;
}

/* Decodes a texel to 32-bit components (float bits or integers). */
static void
tf_decode(const struct tformat *f, const uint8_t *texel, uint32_t out[4])
{
   bool integer = tf_integer(f);
   out[0] = out[1] = out[2] = 0;
   out[3] = integer ? 1 : fbits(1.0f);
   for (int i = 0; i < f->n; i++) {
      int b = f->bits[i];
      uint64_t v = tf_field(texel, f->shift[i], b);
      int64_t s = b < 64 && (v >> (b - 1)) & 1 ? (int64_t)v - ((int64_t)1 << b) : (int64_t)v;
      float r = 0.0f;
      switch (f->kind) {
      case TF_UNORM: r = (float)v / (float)((1u << b) - 1); break;
      case TF_SNORM: r = fmaxf((float)s / (float)((1u << (b - 1)) - 1), -1.0f); break;
      case TF_UINT: out[f->comp[i]] = (uint32_t)v; continue;
      case TF_SINT: out[f->comp[i]] = (uint32_t)s; continue;
      case TF_SFLOAT: r = b == 16 ? half_float((uint32_t)v) : bits_float((uint32_t)v); break;
      default: r = ufloat_float((uint32_t)v, b - 5); break;
      }
      out[f->comp[i]] = fbits(r);
   }
}

static void
tf_encode(const struct tformat *f, const uint32_t in[4], uint8_t *texel)
{
   for (int i = 0; i < f->n; i++) {
      int b = f->bits[i];
      uint32_t c = in[f->comp[i]];
      float x = bits_float(c);
      uint64_t v;
      if (isnan(x) && (f->kind == TF_UNORM || f->kind == TF_SNORM))
         x = 0.0f;   /* NaN converts to 0 */
      switch (f->kind) {
      case TF_UNORM:
         v = (uint64_t)rintf(fminf(fmaxf(x, 0.0f), 1.0f) * (float)((1u << b) - 1));
         break;
      case TF_SNORM:
         v = (uint64_t)(int64_t)rintf(fminf(fmaxf(x, -1.0f), 1.0f) * (float)((1u << (b - 1)) - 1));
         break;
      case TF_SFLOAT: v = b == 16 ? float_small(x, 10, true) : c; break;
      case TF_UFLOAT: v = float_small(x, b - 5, false); break;
      default: v = c; break;
      }
      tf_set_field(texel, f->shift[i], b, v & (b >= 64 ? ~0ull : (1ull << b) - 1));
   }
}

/* Channel values equal, NaN standing for any NaN of float formats. */
static bool
tf_same_texel(const struct tformat *f, const uint8_t *a, const uint8_t *b)
{
   for (int i = 0; i < f->n; i++) {
      uint64_t u = tf_field(a, f->shift[i], f->bits[i]), v = tf_field(b, f->shift[i], f->bits[i]);
      if (u == v)
         continue;
      if (f->kind == TF_SFLOAT || f->kind == TF_UFLOAT) {
         uint32_t m = f->kind == TF_UFLOAT ? (uint32_t)f->bits[i] - 5 : f->bits[i] == 16 ? 10 : 23;
         uint32_t em = f->kind == TF_UFLOAT || f->bits[i] == 16 ? 31 : 255;
         bool nan_u = ((u >> m) & em) == em && (u & ((1u << m) - 1));
         bool nan_v = ((v >> m) & em) == em && (v & ((1u << m) - 1));
         if (nan_u && nan_v)
            continue;
      }
      return false;
   }
   return true;
}

static bool
same_comp(uint32_t a, uint32_t b, bool integer)
{
   return a == b || (!integer && isnan(bits_float(a)) && isnan(bits_float(b)));
}

/* A 2D image in plain memory with guard bytes around it and padded rows. */
struct timage {
   uint8_t *mem;
   uint8_t *base;
   size_t bytes;
   uint32_t w, h, layers, pitch, slice;
};

#define GUARD 64
#define GUARD_BYTE 0x5a

static void
timage_init(struct timage *t, union shale_descriptor *rec, VkFormat vk, uint32_t size,
            uint32_t w, uint32_t h, uint32_t layers)
{
   t->w = w, t->h = h, t->layers = layers;
   t->pitch = w * size + 12;
   t->slice = t->pitch * h + 20;
   t->bytes = (size_t)t->slice * layers;
   t->mem = malloc(t->bytes + 2 * GUARD);
   memset(t->mem, GUARD_BYTE, t->bytes + 2 * GUARD);
   t->base = t->mem + GUARD;
   memset(rec, 0, sizeof(*rec));
   rec->image.base = t->base;
   rec->image.row_pitch = t->pitch;
   rec->image.slice_pitch = t->slice;
   rec->image.width = w;
   rec->image.height = h;
   rec->image.depth_or_layers = layers;
   rec->image.format = vk;
   rec->image.texel_size = size;
   rec->image.level_count = 1;
   rec->image.samples = 1;
}

static uint8_t *
texel_at(const struct timage *t, uint32_t size, uint32_t x, uint32_t y, uint32_t z)
{
   return t->base + (size_t)z * t->slice + (size_t)y * t->pitch + (size_t)x * size;
}

/* Bytes outside texels (guards, row and slice padding) still GUARD_BYTE. */
static bool
timage_guards_intact(const struct timage *t, uint32_t size)
{
   for (size_t i = 0; i < t->bytes + 2 * GUARD; i++) {
      size_t off = i - GUARD;
      bool texel = false;
      if (i >= GUARD && off < t->bytes) {
         size_t in_slice = off % t->slice;
         texel = in_slice < (size_t)t->pitch * t->h && in_slice % t->pitch < (size_t)t->w * size;
      }
      if (!texel && t->mem[i] != GUARD_BYTE)
         return false;
   }
   return true;
}

/* Random 32-bit components of a class, with special values mixed in. */
static uint32_t
random_comp(bool integer)
{
   static const float specials[] = {
      0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1.5f, -2.0f, NAN, INFINITY, -INFINITY, 65504.0f,
      65520.0f, 70000.0f, 1e-6f, 6e-5f, 3e-8f, 0.5f / 255.0f, 1.5f / 255.0f, 0.5f / 127.0f,
      65024.0f, 65280.0f, 64512.0f, 1e-10f, 0.25f,
   };
   uint32_t r = rng();
   if (integer)
      return r;
   switch (r % 4) {
   case 0: return fbits(((float)(rng() & 0xffff) / 32768.0f - 1.0f) * 1.25f);
   case 1: return fbits(ldexpf((float)(rng() & 0xffff) / 65536.0f, (int)(rng() % 40) - 20));
   case 2: return fbits(specials[rng() % (sizeof(specials) / sizeof(specials[0]))]);
   default: return rng();
   }
}

/* image_copy: every format read (decoded into a 32-bit RGBA image) and
 * written (encoded from one), through descriptors of any format. */
static void
test_image_copy(void)
{
   struct sc_shader *s = compile("image_copy", SPV(image_copy_spv));
   if (!s)
      return;
   enum { W = 13, H = 11 };
   int bad = 0;
   for (int i = 0; i < NTFORMATS; i++) {
      const struct tformat *f = &tformats[i];
      bool integer = tf_integer(f);
      /* Class 0 float, 1 int, 2 uint; the 32-bit RGBA format of it. */
      int mode = !integer ? 0 : f->kind == TF_SINT ? 1 : 2;
      const struct tformat *wide = tformat(mode == 0 ? VK_FORMAT_R32G32B32A32_SFLOAT
                                           : mode == 1 ? VK_FORMAT_R32G32B32A32_SINT
                                                       : VK_FORMAT_R32G32B32A32_UINT);
      for (int dir = 0; dir < 2; dir++) {
         /* dir 0: read f into wide; dir 1: write wide into f. */
         const struct tformat *sf = dir ? wide : f, *df = dir ? f : wide;
         union shale_descriptor set[7];
         memset(set, 0, sizeof(set));
         struct timage src, dst;
         timage_init(&src, &set[mode * 2], sf->vk, (uint32_t)sf->size, W, H, 1);
         timage_init(&dst, &set[mode * 2 + 1], df->vk, (uint32_t)df->size, W, H, 1);
         for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
               uint8_t *t = texel_at(&src, (uint32_t)sf->size, x, y, 0);
               if (dir == 0) {
                  for (int k = 0; k < sf->size; k++)
                     t[k] = (uint8_t)rng();
               } else {
                  uint32_t c[4];
                  for (int k = 0; k < 4; k++)
                     c[k] = random_comp(integer);
                  memcpy(t, c, 16);
               }
            }
         struct { int32_t mode; } pc = { mode };
         uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
         memcpy(push, &pc, sizeof(pc));
         struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
         dispatch(s, &ctx, 2, 2, 1);
         for (uint32_t y = 0; y < H; y++) {
            for (uint32_t x = 0; x < W; x++) {
               /* dst(x, y) = src(x - 1, y); src(-1, y) reads (0, 0, 0, 1). */
               uint32_t c[4] = { 0, 0, 0, integer ? 1u : fbits(1.0f) };
               if (x > 0)
                  tf_decode(sf, texel_at(&src, (uint32_t)sf->size, x - 1, y, 0), c);
               uint8_t want[16];
               memset(want, 0, sizeof(want));
               tf_encode(df, c, want);
               const uint8_t *got = texel_at(&dst, (uint32_t)df->size, x, y, 0);
               bool ok = dir ? tf_same_texel(df, got, want) : true;
               if (!dir) {
                  uint32_t g[4], w4[4];
                  memcpy(g, got, 16);
                  memcpy(w4, want, 16);
                  for (int k = 0; k < 4; k++)
                     ok &= same_comp(g[k], w4[k], integer);
               }
               if (!ok && bad++ < 8) {
                  uint32_t g[4] = { 0 };
                  memcpy(g, got, (size_t)df->size < 16 ? (size_t)df->size : 16);
                  uint32_t w4[4];
                  memcpy(w4, want, 16);
                  CHECK(0, "image %s %s (%u, %u): got %08x %08x %08x %08x, expected %08x %08x "
                        "%08x %08x from %08x %08x %08x %08x (W=%u)", dir ? "write" : "read",
                        f->name, x, y, g[0], g[1], g[2], g[3], w4[0], w4[1], w4[2], w4[3], c[0],
                        c[1], c[2], c[3], width);
               }
            }
         }
         CHECK(timage_guards_intact(&dst, (uint32_t)df->size), "image %s %s wrote outside texels",
               dir ? "write" : "read", f->name);
         CHECK(timage_guards_intact(&src, (uint32_t)sf->size), "image %s %s: source changed",
               dir ? "write" : "read", f->name);
         free(src.mem);
         free(dst.mem);
      }
   }
   CHECK(bad == 0, "image_copy: %d texels wrong", bad);

   /* Mode 3: a uniform load and store, uni(1, 0) = uni(0, 0) * 2. */
   const struct tformat *f = tformat(VK_FORMAT_R16G16B16A16_SFLOAT);
   union shale_descriptor set[7];
   memset(set, 0, sizeof(set));
   struct timage u;
   timage_init(&u, &set[6], f->vk, 8, 2, 1, 1);
   const uint32_t c0[4] = { fbits(0.75f), fbits(-3.5f), fbits(1000.0f), fbits(0.125f) };
   tf_encode(f, c0, texel_at(&u, 8, 0, 0, 0));
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 3 };
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   dispatch(s, &ctx, 1, 1, 1);
   uint32_t c[4];
   tf_decode(f, texel_at(&u, 8, 1, 0, 0), c);
   for (int k = 0; k < 4; k++)
      CHECK(bits_float(c[k]) == 2.0f * bits_float(c0[k]), "uniform image store %d: %g", k,
            bits_float(c[k]));
   CHECK(timage_guards_intact(&u, 8), "uniform image store wrote outside texels");
   free(u.mem);
   sc_shader_destroy(s);
}

/* image_formats: declared formats, converted inline; each texel read,
 * changed, written back. */
static void
test_image_formats(void)
{
   struct sc_shader *s = compile("image_formats", SPV(image_formats_spv));
   if (!s)
      return;
   static const VkFormat fmts[16] = {
      VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM, VK_FORMAT_R16G16B16A16_SFLOAT,
      VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_B10G11R11_UFLOAT_PACK32,
      VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32_SFLOAT,
      VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R16G16_SNORM, VK_FORMAT_R8G8B8A8_UINT,
      VK_FORMAT_R16G16B16A16_SINT, VK_FORMAT_A2B10G10R10_UINT_PACK32, VK_FORMAT_R32_SINT,
      VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R8G8_SINT,
   };
   enum { W = 5, H = 4 };
   union shale_descriptor set[16];
   struct timage img[16];
   static uint8_t before[16][W * H][16];
   for (int b = 0; b < 16; b++) {
      const struct tformat *f = tformat(fmts[b]);
      timage_init(&img[b], &set[b], f->vk, (uint32_t)f->size, W, H, 1);
      for (int t = 0; t < W * H; t++) {
         uint8_t *p = texel_at(&img[b], (uint32_t)f->size, t % W, t / W, 0);
         for (int k = 0; k < f->size; k++)
            p[k] = before[b][t][k] = (uint8_t)rng();
      }
   }
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 2, 1, 1);   /* 8 x 4: columns 5..7 out of bounds */
   static const float mul[4] = { 0.5f, -1.5f, 2.0f, 1.0f }, add[4] = { 0.25f, 0.125f, -0.5f, 0.0f };
   static const int32_t imul[4] = { 3, -1, 1, 2 }, iadd[4] = { 1, 2, 300, -7 };
   int bad = 0;
   for (int b = 0; b < 16; b++) {
      const struct tformat *f = tformat(fmts[b]);
      for (int t = 0; t < W * H; t++) {
         uint32_t c[4], c2[4];
         tf_decode(f, before[b][t], c);
         memcpy(c2, c, sizeof(c));
         for (int k = 0; k < 4; k++) {
            if (tf_integer(f)) {
               c[k] = c2[k] = c[k] * (uint32_t)imul[k] + (uint32_t)iadd[k];
            } else {
               volatile float prod = bits_float(c[k]) * mul[k];
               c[k] = fbits(prod + add[k]);
               c2[k] = fbits(fmaf(bits_float(c2[k]), mul[k], add[k]));
            }
         }
         uint8_t want[16] = { 0 }, want2[16] = { 0 };
         tf_encode(f, c, want);
         tf_encode(f, c2, want2);
         const uint8_t *got = texel_at(&img[b], (uint32_t)f->size, t % W, t / W, 0);
         if (!tf_same_texel(f, got, want) && !tf_same_texel(f, got, want2) && bad++ < 8)
            CHECK(0, "declared %s texel %d wrong (W=%u)", f->name, t, width);
      }
      CHECK(timage_guards_intact(&img[b], (uint32_t)f->size), "declared %s wrote outside texels",
            f->name);
      free(img[b].mem);
   }
   CHECK(bad == 0, "image_formats: %d texels wrong", bad);

   /* A view whose texel size is not the declared format's is not touched. */
   timage_init(&img[0], &set[7], VK_FORMAT_R16_SFLOAT, 2, W, H, 1);
   for (int b = 0; b < 16; b++)
      if (b != 7)
         memset(&set[b], 0, sizeof(set[b]));   /* zero extents: nothing accessed */
   memset(img[0].base, 0x11, img[0].bytes);
   dispatch(s, &ctx, 2, 1, 1);
   bool untouched = true;
   for (size_t i = 0; i < img[0].bytes; i++)
      untouched &= img[0].base[i] == 0x11;
   CHECK(untouched, "an r32f image with a 2-byte view was written");
   free(img[0].mem);
   sc_shader_destroy(s);
}

static void
test_image_atomics(void)
{
   struct sc_shader *s = compile("image_atomics", SPV(image_atomics_spv));
   if (!s)
      return;
   enum { N = 320 };
   union shale_descriptor set[6];
   memset(set, 0, sizeof(set));
   struct timage counters, mins, swaps;
   timage_init(&counters, &set[0], VK_FORMAT_R32_UINT, 4, 6, 2, 1);
   timage_init(&mins, &set[1], VK_FORMAT_R32_SINT, 4, 3, 1, 1);
   timage_init(&swaps, &set[3], VK_FORMAT_R32_UINT, 4, 1, 1, 1);
   for (uint32_t y = 0; y < 2; y++)
      for (uint32_t x = 0; x < 6; x++)
         memset(texel_at(&counters, 4, x, y, 0), 0, 4);
   for (uint32_t x = 0; x < 3; x++) {
      int32_t v = 1000;
      memcpy(texel_at(&mins, 4, x, 0, 0), &v, 4);
   }
   memset(texel_at(&swaps, 4, 0, 0, 0), 0, 4);
   static uint32_t tcount[4 + 16];
   memset(tcount, 0, sizeof(tcount));
   for (int i = 4; i < 20; i++)
      tcount[i] = 0xdeadbeef;
   set[2].texel_buffer.base = (uint8_t *)tcount;
   set[2].texel_buffer.range = 16;
   set[2].texel_buffer.format = VK_FORMAT_R32_UINT;
   set[2].texel_buffer.element_size = 4;
   set[2].texel_buffer.element_count = 4;
   static uint32_t olds[N], xch[N];
   bind(set, 4, olds, sizeof(olds));
   bind(set, 5, xch, sizeof(xch));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, N / 64, 1, 1);
   /* Each counter saw 32 adds, and handed out 0 .. 31 once each. */
   for (uint32_t y = 0; y < 2; y++) {
      for (uint32_t x = 0; x < 5; x++) {
         uint32_t v;
         memcpy(&v, texel_at(&counters, 4, x, y, 0), 4);
         CHECK(v == 32, "counter (%u, %u) = %u, expected 32", x, y, v);
         uint64_t seen = 0;
         for (uint32_t i = 0; i < N; i++)
            if (i % 5 == x && i / 160 == y && olds[i] < 64)
               seen |= 1ull << olds[i];
         CHECK(seen == 0xffffffffull, "counter (%u, %u) returned %#llx", x, y,
               (unsigned long long)seen);
      }
   }
   uint32_t bits;
   memcpy(&bits, texel_at(&counters, 4, 5, 0, 0), 4);
   CHECK(bits == 0xffffffffu, "atomic or: %#x", bits);
   for (uint32_t x = 0; x < 3; x++) {
      int32_t want = 1000, got;
      for (uint32_t i = x; i < N; i += 3)
         if ((int32_t)(i * 37 % 101) - 50 < want)
            want = (int32_t)(i * 37 % 101) - 50;
      memcpy(&got, texel_at(&mins, 4, x, 0, 0), 4);
      CHECK(got == want, "atomic min (%u) = %d, expected %d", x, got, want);
   }
   for (uint32_t j = 0; j < 4; j++) {
      uint32_t want = 0;
      for (uint32_t i = j; i < N; i += 4)
         want += i;
      CHECK(tcount[j] == want, "texel buffer atomic %u = %u, expected %u", j, tcount[j], want);
   }
   for (int i = 4; i < 20; i++)
      CHECK(tcount[i] == 0xdeadbeef, "out-of-bounds texel buffer atomic wrote element %d", i);
   /* Lanes and workgroups run in order: each compare-exchange succeeds. */
   uint32_t sw;
   memcpy(&sw, texel_at(&swaps, 4, 0, 0, 0), 4);
   CHECK(sw == N, "compare-exchange chain ended at %u", sw);
   for (uint32_t i = 0; i < N; i++)
      if (xch[i] != i) {
         CHECK(0, "compare-exchange %u returned %u", i, xch[i]);
         break;
      }
   CHECK(timage_guards_intact(&counters, 4), "out-of-bounds image atomic wrote outside");
   CHECK(timage_guards_intact(&mins, 4) && timage_guards_intact(&swaps, 4),
         "image atomics wrote outside texels");
   for (uint32_t i = 0; i < s->binding_count; i++)
      CHECK(s->bindings[i].written, "binding %u written", s->bindings[i].binding);
   free(counters.mem);
   free(mins.mem);
   free(swaps.mem);
   sc_shader_destroy(s);
}

/* One r32ui texel buffer descriptor over data. */
static void
texel_buffer(union shale_descriptor *rec, void *data, VkFormat fmt, uint32_t size, uint32_t count)
{
   memset(rec, 0, sizeof(*rec));
   rec->texel_buffer.base = data;
   rec->texel_buffer.range = (uint64_t)size * count;
   rec->texel_buffer.format = fmt;
   rec->texel_buffer.element_size = size;
   rec->texel_buffer.element_count = count;
}

static void
test_image_query(void)
{
   struct sc_shader *s = compile("image_query", SPV(image_query_spv));
   if (!s)
      return;
   union shale_descriptor set[14];
   memset(set, 0, sizeof(set));
   struct timage a1, a2, a3, ac, cube;
   timage_init(&a1, &set[0], VK_FORMAT_R32_UINT, 4, 5, 1, 4);
   timage_init(&a2, &set[1], VK_FORMAT_R32_UINT, 4, 3, 2, 3);
   timage_init(&a3, &set[2], VK_FORMAT_R32_UINT, 4, 2, 3, 3);
   timage_init(&ac, &set[3], VK_FORMAT_R32_UINT, 4, 2, 2, 12);
   timage_init(&cube, &set[4], VK_FORMAT_R32_UINT, 4, 4, 4, 6);
   struct { struct timage *t; uint32_t tag; } ims[4] = { { &a1, 0 }, { &a2, 1000 }, { &a3, 2000 },
                                                         { &ac, 3000 } };
   for (int k = 0; k < 4; k++) {
      struct timage *t = ims[k].t;
      for (uint32_t z = 0; z < t->layers; z++)
         for (uint32_t y = 0; y < t->h; y++)
            for (uint32_t x = 0; x < t->w; x++) {
               uint32_t v = ims[k].tag + z * 100 + y * 10 + x;
               memcpy(texel_at(t, 4, x, y, z), &v, 4);
            }
   }
   /* tb: R8G8B8A8_SNORM, 20 texels; utb: R16_UINT, 10; sb: rgba32f, 8. */
   static int8_t tbd[20][4];
   static uint16_t utbd[10];
   static float sbd[8][4];
   for (int i = 0; i < 20; i++)
      for (int c = 0; c < 4; c++)
         tbd[i][c] = (int8_t)(rng() & 0xff);
   for (int i = 0; i < 10; i++)
      utbd[i] = (uint16_t)(1000 + i * 7);
   for (int i = 0; i < 8; i++)
      for (int c = 0; c < 4; c++)
         sbd[i][c] = (float)(i * 4 + c) * 0.5f;
   texel_buffer(&set[5], tbd, VK_FORMAT_R8G8B8A8_SNORM, 4, 20);
   texel_buffer(&set[6], utbd, VK_FORMAT_R16_UINT, 2, 10);
   texel_buffer(&set[7], sbd, VK_FORMAT_R32G32B32A32_SFLOAT, 16, 8);
   /* s2: a 37 x 20 sampled image of 5 levels; ms: 4 samples. */
   set[8].image.width = 37;
   set[8].image.height = 20;
   set[8].image.depth_or_layers = 1;
   set[8].image.level_count = 5;
   set[8].image.samples = 1;
   set[9].image.width = 8;
   set[9].image.height = 8;
   set[9].image.depth_or_layers = 1;
   set[9].image.level_count = 1;
   set[9].image.samples = 4;
   static uint32_t o[128];
   static float fo[16][4];
   bind(set, 10, o, sizeof(o));
   bind(set, 11, fo, sizeof(fo));
   /* wb: 12 RGBA8 texels; wub: R16G16_UINT, 12 texels; one guard after each. */
   static uint8_t wbd[13][4];
   static uint16_t wubd[13][2];
   memset(wbd, 0xee, sizeof(wbd));
   memset(wubd, 0xee, sizeof(wubd));
   texel_buffer(&set[12], wbd, VK_FORMAT_R8G8B8A8_UNORM, 4, 12);
   texel_buffer(&set[13], wubd, VK_FORMAT_R16G16_UINT, 4, 12);
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 1, 1, 1);
   const uint32_t want_sizes[26] = { 5, 4, 3, 2, 3, 2, 3, 3, 2, 2, 2, 4, 4, 20, 10, 8,
                                     37, 20, 18, 10, 9, 5, 4, 2, 5, 4 };
   for (int i = 0; i < 26; i++)
      CHECK(o[i] == want_sizes[i], "query %d = %u, expected %u", i, o[i], want_sizes[i]);
   for (uint32_t i = 0; i < 16; i++) {
      int k = (int)i;
      CHECK(o[32 + i] == (37u >> (i % 4) ? 37u >> (i % 4) : 1u), "per-lane size %u = %u", i,
            o[32 + i]);
      uint32_t w1 = k / 5 < 4 ? (uint32_t)(k / 5) * 100 + (uint32_t)(k % 5) : 0;
      uint32_t w2 = k / 6 < 3 ? 1000u + (uint32_t)(k / 6) * 100 + (uint32_t)(k / 3 % 2) * 10 + (uint32_t)(k % 3) : 0;
      uint32_t w3 = k / 6 < 3 ? 2000u + (uint32_t)(k / 6) * 100 + (uint32_t)(k / 2 % 3) * 10 + (uint32_t)(k % 2) : 0;
      uint32_t z = (uint32_t)(k / 4 * 3 % 13);
      uint32_t wc = z < 12 ? 3000u + z * 100 + (uint32_t)(k / 2 % 2) * 10 + (uint32_t)(k % 2) : 0;
      uint32_t wu = k - 2 >= 0 && k - 2 < 10 ? utbd[k - 2] : 0;
      CHECK(o[48 + i] == w1, "1D array load %u = %u, expected %u", i, o[48 + i], w1);
      CHECK(o[64 + i] == w2, "2D array load %u = %u, expected %u", i, o[64 + i], w2);
      CHECK(o[80 + i] == w3, "3D load %u = %u, expected %u", i, o[80 + i], w3);
      CHECK(o[96 + i] == wc, "cube array load %u = %u, expected %u", i, o[96 + i], wc);
      CHECK(o[112 + i] == wu, "texel buffer fetch %u = %u, expected %u", i, o[112 + i], wu);
      /* texelFetch(tb, 3k - 5) + imageLoad(sb, k - 1). */
      float want[4] = { 0.0f, 0.0f, 0.0f, 1.0f }, add[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
      int t = k * 3 - 5;
      if (t >= 0 && t < 20)
         for (int c = 0; c < 4; c++)
            want[c] = fmaxf((float)tbd[t][c] / 127.0f, -1.0f);
      if (k - 1 >= 0 && k - 1 < 8)
         for (int c = 0; c < 4; c++)
            add[c] = sbd[k - 1][c];
      for (int c = 0; c < 4; c++)
         CHECK(fo[i][c] == want[c] + add[c], "texel buffers %u.%d = %g, expected %g", i, c,
               fo[i][c], want[c] + add[c]);
   }
   /* Storage texel buffer writes, out-of-bounds ones dropped. */
   for (int t = 0; t < 13; t++) {
      bool wrote = t < 12 && t + 1 < 16;   /* element t written by k = t + 1 */
      uint8_t want[4] = { 0xee, 0xee, 0xee, 0xee };
      if (wrote) {
         want[0] = (uint8_t)rintf((float)(t + 1) / 15.0f * 255.0f);
         want[1] = 128, want[2] = 0, want[3] = 255;
      }
      CHECK(!memcmp(wbd[t], want, 4), "imageStore(imageBuffer) element %d: %02x%02x%02x%02x", t,
            wbd[t][0], wbd[t][1], wbd[t][2], wbd[t][3]);
      /* wub: element t written by k = t - 1, for k in [0, 16) and t < 12. */
      bool uwrote = t >= 1 && t < 12;
      uint16_t uwant[2] = { 0xeeee, 0xeeee };
      if (uwrote) {
         uwant[0] = (uint16_t)((t - 1) * 1000 + 7);
         uwant[1] = (uint16_t)(t - 1);
      }
      CHECK(wubd[t][0] == uwant[0] && wubd[t][1] == uwant[1],
            "imageStore(uimageBuffer) element %d: %u %u", t, wubd[t][0], wubd[t][1]);
   }
   free(a1.mem), free(a2.mem), free(a3.mem), free(ac.mem), free(cube.mem);
   sc_shader_destroy(s);
}

/* Per-lane image descriptors of different formats. */
static void
test_image_nonuniform(void)
{
   struct sc_shader *s = compile("image_nonuniform", SPV(image_nonuniform_spv));
   if (!s)
      return;
   static const VkFormat ff[3] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R32_SFLOAT,
                                   VK_FORMAT_R16G16B16A16_SFLOAT };
   static const VkFormat uf[2] = { VK_FORMAT_R32_UINT, VK_FORMAT_R8G8B8A8_UINT };
   union shale_descriptor set[7];
   struct timage img[7];
   const struct tformat *fmt[7];
   for (int k = 0; k < 7; k++) {
      fmt[k] = tformat(k < 3 ? ff[k] : k < 5 ? uf[k - 3] : VK_FORMAT_R32_SFLOAT);
      timage_init(&img[k], &set[k], fmt[k]->vk, (uint32_t)fmt[k]->size, 16, 2, 1);
      for (uint32_t x = 0; x < 16; x++) {
         uint32_t c[4];
         for (int j = 0; j < 4; j++)
            c[j] = k < 3 || k >= 5 ? fbits((float)(rng() % 256) / 255.0f) : rng() % 200;
         tf_encode(fmt[k], c, texel_at(&img[k], (uint32_t)fmt[k]->size, x, 0, 0));
      }
   }
   /* Binding 0: records 0..2; binding 1: records 3..4; binding 2: 5..6. */
   const struct sc_binding_layout bl[3] = { { 0, 3 }, { 3, 2 }, { 5, 2 } };
   const struct sc_set_layout layout = { 3, bl };
   struct sc_compile_info info = {
      .words = image_nonuniform_spv,
      .word_count = sizeof(image_nonuniform_spv) / 4,
      .set_layouts = &layout,
      .set_layout_count = 1,
   };
   sc_shader_destroy(s);
   s = compile_info("image_nonuniform (layout)", &info);
   if (!s)
      return;
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, 1, 1, 1);
   for (uint32_t i = 0; i < 16; i++) {
      int k = (int)(i % 3);
      uint32_t c[4];
      tf_decode(fmt[k], texel_at(&img[k], (uint32_t)fmt[k]->size, i, 0, 0), c);
      for (int j = 0; j < 4; j++)
         c[j] = fbits(bits_float(c[j]) * 0.5f);
      uint8_t want[16] = { 0 };
      tf_encode(fmt[k], c, want);
      CHECK(tf_same_texel(fmt[k], texel_at(&img[k], (uint32_t)fmt[k]->size, i, 1, 0), want),
            "non-uniform %s texel %u", fmt[k]->name, i);
      int u = 3 + (int)(i & 1);
      tf_decode(fmt[u], texel_at(&img[u], (uint32_t)fmt[u]->size, i, 0, 0), c);
      for (int j = 0; j < 4; j++)
         c[j] += 1;
      memset(want, 0, sizeof(want));
      tf_encode(fmt[u], c, want);
      CHECK(tf_same_texel(fmt[u], texel_at(&img[u], (uint32_t)fmt[u]->size, i, 1, 0), want),
            "non-uniform %s texel %u", fmt[u]->name, i);
      int r = 5 + (int)((i >> 1) & 1);
      float in, out;
      memcpy(&in, texel_at(&img[r], 4, i, 0, 0), 4);
      memcpy(&out, texel_at(&img[r], 4, i, 1, 0), 4);
      CHECK(out == in + 1.0f, "non-uniform declared r32f texel %u: %g, expected %g", i, out,
            in + 1.0f);
   }
   for (int k = 0; k < 7; k++) {
      CHECK(timage_guards_intact(&img[k], (uint32_t)fmt[k]->size), "non-uniform %s guards",
            fmt[k]->name);
      free(img[k].mem);
   }
   sc_shader_destroy(s);
}

static void
test_images(void)
{
   /* The compiler converts every format of the test's table. */
   for (int i = 0; i < NTFORMATS; i++) {
      uint32_t want = SC_IMAGE_FORMAT_LOAD_STORE;
      if (tformats[i].vk == VK_FORMAT_R32_UINT || tformats[i].vk == VK_FORMAT_R32_SINT)
         want |= SC_IMAGE_FORMAT_ATOMIC;
      CHECK(sc_image_format_features(tformats[i].vk) == want, "%s features %#x", tformats[i].name,
            sc_image_format_features(tformats[i].vk));
   }
   CHECK(sc_image_format_features(VK_FORMAT_R8G8B8A8_SRGB) == 0, "sRGB is not a storage format");
   test_image_copy();
   test_image_formats();
   test_image_atomics();
   test_image_query();
   test_image_nonuniform();
}

/* ------------------------------------------------------------------------ */
/* Caching: keys, blobs, loading without LLVM                                */
/* ------------------------------------------------------------------------ */

/* Runs the barrier shader (shared memory, scratch, resumable subgroups) on
 * fixed inputs; out receives rev[] then sums[]. */
static void
run_barrier(struct sc_shader *s, uint32_t *out)
{
   enum { GROUPS = 3, N = 64 * GROUPS };
   static uint32_t v[N];
   for (int i = 0; i < N; i++)
      v[i] = (uint32_t)(i * 2654435761u) % 100000;
   memset(out, 0, (N + GROUPS) * sizeof(uint32_t));
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, v, sizeof(v));
   bind(set, 1, out, N * sizeof(uint32_t));
   bind(set, 2, out + N, GROUPS * sizeof(uint32_t));
   struct shale_cs_context ctx = { .sets = { set } };
   dispatch(s, &ctx, GROUPS, 1, 1);
}

static void *
serialize(const struct sc_shader *s, size_t *size)
{
   *size = 0;
   CHECK_EQ_INT(sc_shader_serialize(s, NULL, size), SC_SUCCESS);
   void *blob = malloc(*size + 16);
   if (!blob)
      return NULL;
   size_t small = *size - 1;
   CHECK_EQ_INT(sc_shader_serialize(s, blob, &small), SC_ERROR_TOO_SMALL);
   size_t got = *size + 16;
   CHECK_EQ_INT(sc_shader_serialize(s, blob, &got), SC_SUCCESS);
   CHECK(got == *size, "serialized %zu bytes, size query said %zu", got, *size);
   return blob;
}

static void
check_same_metadata(const struct sc_shader *a, const struct sc_shader *b)
{
   CHECK_EQ_INT(b->stage, a->stage);
   CHECK_EQ_INT(b->simd_width, a->simd_width);
   for (int k = 0; k < 3; k++)
      CHECK_EQ_INT(b->local_size[k], a->local_size[k]);
   CHECK_EQ_INT(b->subgroup_count, a->subgroup_count);
   CHECK_EQ_INT(b->shared_size, a->shared_size);
   CHECK_EQ_INT(b->scratch_size, a->scratch_size);
   CHECK_EQ_INT(b->push_constant_size, a->push_constant_size);
   CHECK_EQ_INT(b->binding_count, a->binding_count);
   for (uint32_t i = 0; i < a->binding_count && i < b->binding_count; i++) {
      CHECK_EQ_INT(b->bindings[i].set, a->bindings[i].set);
      CHECK_EQ_INT(b->bindings[i].binding, a->bindings[i].binding);
      CHECK_EQ_INT(b->bindings[i].array_size, a->bindings[i].array_size);
      CHECK_EQ_INT(b->bindings[i].type, a->bindings[i].type);
      CHECK_EQ_INT(b->bindings[i].written, a->bindings[i].written);
   }
}

static void
test_cache_keys(void)
{
   uint8_t k0[SC_COMPILE_KEY_SIZE], k1[SC_COMPILE_KEY_SIZE];
   struct sc_compile_info info = {
      .words = spec_spv, .word_count = sizeof(spec_spv) / 4, .entry_point = "main",
      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
   };
   CHECK_EQ_INT(sc_compile_key(compiler, &info, k0), SC_SUCCESS);
   CHECK_EQ_INT(sc_compile_key(compiler, &info, k1), SC_SUCCESS);
   CHECK(!memcmp(k0, k1, sizeof(k0)), "the same input gives the same key");
   /* The width from the environment is the width in the key. */
   struct sc_compile_info explicit_w = info;
   explicit_w.simd_width = sc_default_simd_width();
   CHECK_EQ_INT(sc_compile_key(compiler, &explicit_w, k1), SC_SUCCESS);
   CHECK(!memcmp(k0, k1, sizeof(k0)), "simd_width 0 keys as the default width");

   /* Each input that changes code changes the key. */
   uint32_t *words = malloc(sizeof(spec_spv));
   memcpy(words, spec_spv, sizeof(spec_spv));
   words[sizeof(spec_spv) / 4 - 2] ^= 1;
   const struct sc_spec_constant spec = { 1, 4, 3 }, spec2 = { 1, 4, 4 };
   const struct sc_binding_layout bl[2] = { { 0, 1 }, { 5, 1 } }, bl2[2] = { { 0, 1 }, { 6, 1 } };
   const struct sc_set_layout layout = { 2, bl }, layout2 = { 2, bl2 };
   struct sc_compile_info v[9];
   for (int i = 0; i < 9; i++)
      v[i] = info;
   v[0].words = words;
   v[1].entry_point = "main2";
   v[2].spec_constants = &spec, v[2].spec_constant_count = 1;
   v[3].spec_constants = &spec2, v[3].spec_constant_count = 1;
   v[4].set_layouts = &layout, v[4].set_layout_count = 1;
   v[5].set_layouts = &layout2, v[5].set_layout_count = 1;
   v[6].flags = SC_COMPILE_ROBUST_BUFFER_ACCESS;
   v[7].simd_width = sc_default_simd_width() == 4 ? 8 : 4;
   v[8].stage = VK_SHADER_STAGE_VERTEX_BIT;
   uint8_t keys[10][SC_COMPILE_KEY_SIZE];
   memcpy(keys[9], k0, sizeof(k0));
   for (int i = 0; i < 9; i++)
      CHECK_EQ_INT(sc_compile_key(compiler, &v[i], keys[i]), SC_SUCCESS);
   for (int i = 0; i < 10; i++)
      for (int j = i + 1; j < 10; j++)
         CHECK(memcmp(keys[i], keys[j], SC_COMPILE_KEY_SIZE), "keys %d and %d collide", i, j);
   free(words);
}

static void
test_cache(bool report_time)
{
   test_cache_keys();

   struct sc_shader *s = compile("barrier (cache)", SPV(barrier_spv));
   if (!s)
      return;
   size_t size;
   uint8_t *blob = serialize(s, &size);
   if (!blob) {
      sc_shader_destroy(s);
      return;
   }
   char msg[256];
   struct sc_shader *l = NULL, *l2 = NULL;
   enum sc_result r = sc_shader_deserialize(compiler, blob, size, &l, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "deserialize: %s (%s)", sc_result_string(r), msg);
   /* The same blob twice at once: each load is its own code. */
   r = sc_shader_deserialize(compiler, blob, size, &l2, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "second deserialize: %s (%s)", sc_result_string(r), msg);
   if (l && l2) {
      check_same_metadata(s, l);
      enum { WORDS = 64 * 3 + 3 };
      static uint32_t want[WORDS], got[WORDS];
      run_barrier(s, want);
      run_barrier(l, got);
      CHECK(!memcmp(want, got, sizeof(want)), "loaded shader computes what the compiled one does");
      memset(got, 0, sizeof(got));
      run_barrier(l2, got);
      CHECK(!memcmp(want, got, sizeof(want)), "second load computes the same");
      /* A loaded shader serializes to the same blob. */
      size_t size2;
      uint8_t *blob2 = serialize(l, &size2);
      CHECK(blob2 && size2 == size && !memcmp(blob, blob2, size), "re-serialized blob differs");
      free(blob2);
   }
   sc_shader_destroy(l2);
   sc_shader_destroy(l);

   /* Truncated, extended and corrupted blobs are rejected, never crash. */
   const size_t cuts[] = { 0, 1, 7, 8, 60, 119, 120, 121, size / 2, size - 1 };
   for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
      l = NULL;
      r = sc_shader_deserialize(compiler, blob, cuts[i], &l, msg, sizeof(msg));
      CHECK(r == SC_ERROR_INVALID_BLOB && !l, "%zu of %zu bytes: %s", cuts[i], size,
            sc_result_string(r));
   }
   uint8_t *bigger = malloc(size + 8);
   memcpy(bigger, blob, size);
   memset(bigger + size, 0, 8);
   r = sc_shader_deserialize(compiler, bigger, size + 8, &l, msg, sizeof(msg));
   CHECK(r == SC_ERROR_INVALID_BLOB && !l, "blob with trailing bytes: %s", sc_result_string(r));
   free(bigger);
   int accepted = 0;
   for (int i = 0; i < 200; i++) {
      size_t pos = i < 120 ? (size_t)i : rng() % size;
      uint8_t bit = (uint8_t)(1u << (rng() % 8));
      blob[pos] ^= bit;
      l = NULL;
      r = sc_shader_deserialize(compiler, blob, size, &l, msg, sizeof(msg));
      blob[pos] ^= bit;
      if (r == SC_SUCCESS || l) {
         accepted++;
         sc_shader_destroy(l);
      } else {
         CHECK(r == SC_ERROR_INVALID_BLOB || r == SC_ERROR_INCOMPATIBLE_BLOB,
               "corrupted byte %zu: %s", pos, sc_result_string(r));
      }
   }
   CHECK(accepted == 0, "%d corrupted blobs accepted", accepted);
   /* Another blob version is "incompatible", not "corrupt". */
   blob[8] ^= 0x40;
   r = sc_shader_deserialize(compiler, blob, size, &l, msg, sizeof(msg));
   CHECK(r == SC_ERROR_INCOMPATIBLE_BLOB, "other version: %s", sc_result_string(r));
   blob[8] ^= 0x40;
   r = sc_shader_deserialize(compiler, NULL, 0, &l, msg, sizeof(msg));
   CHECK(r == SC_ERROR_INVALID_BLOB, "empty blob: %s", sc_result_string(r));
   free(blob);
   sc_shader_destroy(s);

   /* Compile versus load, on the largest test shader. */
   s = compile("misc (cache)", SPV(misc_spv));
   if (!s)
      return;
   blob = serialize(s, &size);
   double load_ms = 1e9;
   for (int round = 0; round < 3 && blob; round++) {
      l = NULL;
      r = sc_shader_deserialize(compiler, blob, size, &l, msg, sizeof(msg));
      CHECK(r == SC_SUCCESS, "deserialize misc: %s (%s)", sc_result_string(r), msg);
      if (l && l->compile_ms < load_ms)
         load_ms = l->compile_ms;
      sc_shader_destroy(l);
   }
   if (report_time)
      fprintf(stderr, "misc (%zu-byte blob, W=%u): compile %.2f ms, load from blob %.3f ms\n",
              size, width, s->compile_ms, load_ms);
   CHECK(load_ms < s->compile_ms, "loading (%.3f ms) is faster than compiling (%.2f ms)",
         load_ms, s->compile_ms);
   free(blob);
   sc_shader_destroy(s);
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
   /* A vertex shader compiles too (unit/stages runs them). */
   s = NULL;
   CHECK_EQ_INT(try_compile(SPV(simple_vert_spv), "main", VK_SHADER_STAGE_VERTEX_BIT, NULL, 0,
                            &s, msg, sizeof(msg)), SC_SUCCESS);
   CHECK(s && s->io.vs.outputs_written == 1u << SHALE_SLOT_POSITION, "vertex io");
   sc_shader_destroy(s);
   s = NULL;
   /* Valid SPIR-V with an instruction we do not implement. */
   enum sc_result r = try_compile(SPV(unsupported_op_spv), "main", VK_SHADER_STAGE_COMPUTE_BIT,
                                  NULL, 0, &s, msg, sizeof(msg));
   CHECK_EQ_INT(r, SC_ERROR_UNSUPPORTED);
   CHECK(strstr(msg, "OpReadClockKHR") != NULL, "message names the opcode: \"%s\"", msg);
   CHECK(s == NULL, "no shader on failure");
   /* A variable pointer into Workgroup memory (variablePointers, not
    * claimed): refused, with a message. */
   msg[0] = 0;
   r = try_compile(SPV(varptr_workgroup_spv), "main", VK_SHADER_STAGE_COMPUTE_BIT, NULL, 0, &s,
                   msg, sizeof(msg));
   CHECK_EQ_INT(r, SC_ERROR_UNSUPPORTED);
   CHECK(strstr(msg, "variable pointer") != NULL, "message: \"%s\"", msg);
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

/* Out-of-range workgroup-memory indices: values are undefined, but accesses
 * must stay inside the workgroup's memory. Shale's clamping keeps elements
 * 0..62 intact when every lane of a vector access is out of range (it goes
 * to the slack after the variable) and sends a single out-of-range address
 * or lane to the last element; the rest is only required not to crash or
 * write elsewhere. */
static void
test_shared_oob(void)
{
   struct sc_shader *s = compile("shared_oob", SPV(shared_oob_spv));
   if (!s)
      return;
   enum { GROUPS = 3, PER = 192 };
   static const uint32_t offs[] = { 0, 64, 1000, 0x7fffffffu, 0xfffffff0u, 0xffffffffu };
   static uint32_t o[GROUPS * PER + GUARD];
   for (unsigned k = 0; k < sizeof(offs) / sizeof(offs[0]); k++) {
      uint32_t off = offs[k];
      for (unsigned i = 0; i < GROUPS * PER + GUARD; i++)
         o[i] = 0xdeadbeefu;
      uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
      memcpy(push, &off, 4);
      union shale_descriptor set[1];
      memset(set, 0, sizeof(set));
      bind(set, 0, o, GROUPS * PER * 4);
      struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
      dispatch(s, &ctx, GROUPS, 1, 1);
      int bad = 0;
      for (unsigned i = GROUPS * PER; i < GROUPS * PER + GUARD; i++)
         bad += o[i] != 0xdeadbeefu;
      CHECK(bad == 0, "shared_oob(%#x): %d words written past the buffer", off, bad);
      for (uint32_t g = 0; g < GROUPS; g++) {
         const uint32_t *r = &o[g * PER];
         bad = 0;
         for (uint32_t l = 0; l < 64; l++) {
            uint32_t idx = (l * 37u + off) % 200u;
            /* Element l after the four phases, where it is defined. */
            uint32_t want = l * 3u;
            bool known = true;
            if (off == 0) {
               /* Out-of-range lanes of the scatter land on the last element. */
               want = l == 0 ? 2000u : 1000u + l;
               known = l < 63;
            } else if (off == 64 || off == 1000) {   /* no wrap-around in byte offsets */
               known = l < 63;
            } else {
               known = false;
            }
            for (uint32_t m = 0; m < 64; m++)
               if ((m * 37u + off) % 200u == l)
                  want = 5000u + m;
            if (known && r[l] != want && bad++ < 3)
               CHECK(0, "shared_oob(%#x) W=%u group %u: s[%u] = %u, expected %u", off, width,
                     g, l, r[l], want);
            if (off == 0 && r[64 + l] != r[l] && bad++ < 3)
               CHECK(0, "shared_oob(0) W=%u: s[l + 0] = %u, s[l] = %u", width, r[64 + l], r[l]);
            if (idx < 63 && r[128 + l] != 5000u + l && bad++ < 3)
               CHECK(0, "shared_oob(%#x) W=%u: scattered s[%u] = %u, expected %u", off, width,
                     idx, r[128 + l], 5000u + l);
         }
         CHECK(bad == 0, "shared_oob(%#x) W=%u group %u: %d wrong", off, width, g, bad);
      }
   }
   sc_shader_destroy(s);
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

   /* Optimized code at every width, then baseline code (SC_COMPILE_BASELINE,
    * what pipelines run until their optimized code is ready) at 16 lanes and
    * as scalar code (simd_width 1, one invocation per call). */
   static const uint32_t widths[] = { 4, 8, 16, 16, 1 };
   for (int w = 0; w < 5; w++) {
      char value[8];
      snprintf(value, sizeof(value), "%u", widths[w] == 1 ? 16 : widths[w]);
      setenv("SHALE_SIMD_WIDTH", value, 1);
      width = widths[w];
      round_flags = w >= 3 ? SC_COMPILE_BASELINE : 0;
      round_simd_width = widths[w] == 1 ? 1 : 0;
      CHECK_EQ_INT(sc_default_simd_width(), widths[w] == 1 ? 16 : width);
      test_saxpy(w == 0);
      test_robust();
      test_arraylen();
      test_intops();
      test_floatops();
      test_glsl450();
      test_transcendental(w == 0);
      test_glsl450_float();
      test_images();
      test_control();
      if (w == 0)
         test_cancel_polls();
      test_early_return_switch();
      test_atomics();
      test_big();
      test_composites();
      test_misc();
      test_spec();
      test_partial();
      test_private_big();
      test_phi_swap();
      test_dont_inline();
      test_shared_small();
      test_shared_oob();
      test_interleaved();
      test_barrier();
      test_errors();
      test_cache(true);
      if (w == 0)
         test_threads();
   }
   sc_compiler_destroy(compiler);
   return check_finish();
}
