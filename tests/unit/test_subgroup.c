/* Subgroup operations unit test: compiles compute shaders using them, runs
 * them with sc_dispatch_compute at SIMD widths 4, 8 and 16, with every lane
 * active and with divergent lane sets, in full and partial subgroups, and
 * checks every result against a C reference computed here from the inputs
 * and from the subgroup layout the shaders report. Covered: reductions,
 * inclusive / exclusive scans and clustered reductions of every operation
 * on 8/16/32/64-bit integers, 16/32/64-bit floats (NaN, infinities, signed
 * zeros for min / max), booleans and vectors, of per-lane and uniform
 * values; elect, votes, broadcasts, ballots and their bit operations, the
 * lane mask built-ins, shuffles (constant, uniform and per-lane lanes),
 * relative shuffles, quad operations; the SPV_KHR_shader_ballot /
 * SPV_KHR_subgroup_vote opcodes; SPIR-V 1.5 dynamically uniform broadcast
 * lanes; operations in a loop lanes leave at different times, in nested
 * branches and around workgroup barriers; other scopes refused.
 *
 * Cost: nearly all of it is LLVM generating code for the arithmetic
 * shaders (117 compiles; two thirds of the time at W=16, whose vectors an
 * AVX2 host splits in two). The ASan/UBSan build (where LLVM's code is not
 * instrumented and only gets slower) runs the arithmetic at W=8 alone, all
 * of it: the translator's subgroup lowering is the same C code at every
 * width, with the width as a number, so the instrumented code is exercised
 * as much; the other widths' code generation is tested by the normal
 * build, and every other part of this test runs at the three widths in
 * both builds. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compiler/sc_compiler.h"

#include "shaders/subgroup_arith_bool_spv.h"
#include "shaders/subgroup_arith_f16_spv.h"
#include "shaders/subgroup_arith_f32_spv.h"
#include "shaders/subgroup_arith_f64_spv.h"
#include "shaders/subgroup_arith_i16_spv.h"
#include "shaders/subgroup_arith_i32_spv.h"
#include "shaders/subgroup_arith_i64_spv.h"
#include "shaders/subgroup_arith_i8_spv.h"
#include "shaders/subgroup_arith_iv2_spv.h"
#include "shaders/subgroup_arith_u16_spv.h"
#include "shaders/subgroup_arith_u32_spv.h"
#include "shaders/subgroup_arith_u64_spv.h"
#include "shaders/subgroup_arith_v4_spv.h"
#include "shaders/subgroup_barrier_spv.h"
#include "shaders/subgroup_basic_spv.h"
#include "shaders/subgroup_dynamic_spv.h"
#include "shaders/subgroup_khr_spv.h"
#include "shaders/subgroup_scope_spv.h"

#define SPV(a) (a), (sizeof(a) / sizeof((a)[0]))
#define MAX_BAD 8

static struct sc_compiler *compiler;
static uint32_t width;   /* SIMD width of this round */

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

static struct sc_shader *
compile(const char *name, const uint32_t *words, size_t count, uint32_t local_size)
{
   struct sc_spec_constant spec = { 0, 4, local_size };
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = "main",
      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
      .spec_constants = &spec,
      .spec_constant_count = local_size ? 1 : 0,
      .simd_width = width,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "%s (W=%u, local size %u): %s (%s)", name, width, local_size,
         sc_result_string(r), msg);
   if (s)
      CHECK_EQ_INT(s->simd_width, width);
   return s;
}

static void
bind(union shale_descriptor *set, uint32_t binding, void *p, size_t bytes)
{
   set[binding].buffer.base = p;
   set[binding].buffer.range = bytes;
}

static uint32_t rng_state = 0x5eed;

static uint32_t
rng(void)
{
   rng_state = rng_state * 1664525u + 1013904223u;
   return rng_state ^ (rng_state >> 15);
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* Both NaN, or equal (0.0 == -0.0: sums of signed zeros are not checked). */
static bool
same_float(double a, double b)
{
   return (isnan(a) && isnan(b)) || a == b;
}

/* Lane sets of the divergent runs, per subgroup id % 4 (bit = lane). */
static uint32_t
lanes_mod3(void)
{
   uint32_t m = 0;
   for (uint32_t l = 0; l < 16; l++)
      if (l % 3 != 0)
         m |= 1u << l;
   return m;
}

/* Where each invocation of a dispatch sits: its subgroup and lane, from the
 * shader's own report (SubgroupId << 16 | SubgroupLocalInvocationId << 8 |
 * SubgroupSize), checked for consistency. */
struct layout {
   uint32_t groups, local, nsg;
   uint32_t *sg, *lane;
   int32_t *at;      /* [(group * nsg + sg) * W + lane]: invocation, or -1 */
};

static bool
layout_build(struct layout *lo, const uint32_t *ids, uint32_t groups, uint32_t local)
{
   uint32_t W = width;
   lo->groups = groups;
   lo->local = local;
   lo->nsg = (local + W - 1) / W;
   lo->sg = calloc(groups * local, sizeof(uint32_t));
   lo->lane = calloc(groups * local, sizeof(uint32_t));
   lo->at = malloc(groups * lo->nsg * W * sizeof(int32_t));
   if (!lo->sg || !lo->lane || !lo->at)
      return false;
   for (uint32_t i = 0; i < groups * lo->nsg * W; i++)
      lo->at[i] = -1;
   bool ok = true;
   for (uint32_t g = 0; g < groups * local; g++) {
      uint32_t id = ids[g];
      uint32_t sg = id >> 16, lane = (id >> 8) & 0xff, size = id & 0xff;
      if (size != W || lane >= W || sg >= lo->nsg) {
         CHECK(0, "invocation %u reports subgroup %u lane %u size %u (W=%u)", g, sg, lane,
               size, W);
         ok = false;
         continue;
      }
      int32_t *slot = &lo->at[((g / local) * lo->nsg + sg) * W + lane];
      if (*slot >= 0) {
         CHECK(0, "invocations %d and %u both in subgroup %u lane %u", *slot, g, sg, lane);
         ok = false;
      }
      *slot = (int32_t)g;
      lo->sg[g] = sg;
      lo->lane[g] = lane;
   }
   return ok;
}

static void
layout_free(struct layout *lo)
{
   free(lo->sg);
   free(lo->lane);
   free(lo->at);
}

/* Invocation at lane l of g's subgroup, or -1 when that lane has none. */
static int32_t
layout_peer(const struct layout *lo, uint32_t g, uint32_t l)
{
   return lo->at[((g / lo->local) * lo->nsg + lo->sg[g]) * width + l];
}

/* ------------------------------------------------------------------------ */
/* Reductions, scans, clustered reductions                                   */
/* ------------------------------------------------------------------------ */

enum kind { K_U32, K_I32, K_U64, K_I64, K_I16, K_U16, K_I8, K_F32, K_F64, K_F16, K_BOOL };
enum op { OP_ADD, OP_MUL, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
enum { FORMS = 8 };   /* reduce, inclusive, exclusive, clustered 1 2 4 8 16 */

struct variant {
   const char *name;
   const uint32_t *spv;
   size_t words;
   enum kind kind;
   uint32_t ncomp;    /* components of the value type */
   uint32_t csize;    /* bytes of one component in the buffers */
};

static bool
kind_float(enum kind k)
{
   return k == K_F32 || k == K_F64 || k == K_F16;
}

static bool
kind_signed(enum kind k)
{
   return k == K_I32 || k == K_I64 || k == K_I16 || k == K_I8;
}

static unsigned
kind_bits(enum kind k)
{
   switch (k) {
   case K_U64: case K_I64: case K_F64: return 64;
   case K_I16: case K_U16: case K_F16: return 16;
   case K_I8: return 8;
   case K_BOOL: return 1;
   default: return 32;
   }
}

/* An integer as the shader's type holds it, widened to int64. */
static int64_t
canon(enum kind k, uint64_t v)
{
   unsigned bits = kind_bits(k);
   if (bits < 64) {
      v &= (1ull << bits) - 1;
      if (kind_signed(k) && (v >> (bits - 1)) & 1)
         v |= ~((1ull << bits) - 1);
   }
   return (int64_t)v;
}

struct num {
   int64_t i;
   double f;
};

static struct num
num_read(const struct variant *v, const uint8_t *buf, uint32_t elem, uint32_t comp)
{
   struct num n = { 0, 0 };
   const uint8_t *p = buf + ((size_t)elem * v->ncomp + comp) * v->csize;
   if (kind_float(v->kind)) {
      if (v->csize == 8) {
         memcpy(&n.f, p, 8);
      } else {
         float f;
         memcpy(&f, p, 4);
         n.f = f;
      }
   } else if (v->csize == 8) {
      uint64_t u;
      memcpy(&u, p, 8);
      n.i = canon(v->kind, u);
   } else {
      uint32_t u;
      memcpy(&u, p, 4);
      n.i = canon(v->kind, kind_signed(v->kind) ? (uint64_t)(int64_t)(int32_t)u : u);
   }
   return n;
}

static void
num_write(const struct variant *v, uint8_t *buf, uint32_t elem, uint32_t comp, struct num n)
{
   uint8_t *p = buf + ((size_t)elem * v->ncomp + comp) * v->csize;
   if (kind_float(v->kind)) {
      if (v->csize == 8) {
         memcpy(p, &n.f, 8);
      } else {
         float f = (float)n.f;
         memcpy(p, &f, 4);
      }
   } else if (v->csize == 8) {
      memcpy(p, &n.i, 8);
   } else {
      uint32_t u = (uint32_t)n.i;
      memcpy(p, &u, 4);
   }
}

static struct num
op_identity(enum kind k, enum op op)
{
   struct num n = { 0, 0 };
   unsigned bits = kind_bits(k);
   switch (op) {
   case OP_MUL: n.i = 1; n.f = 1.0; break;
   case OP_MIN:
      n.f = INFINITY;
      n.i = kind_signed(k) ? canon(k, (1ull << (bits - 1)) - 1) : canon(k, ~0ull);
      break;
   case OP_MAX:
      n.f = -INFINITY;
      n.i = kind_signed(k) ? canon(k, 1ull << (bits - 1)) : 0;
      break;
   case OP_AND: n.i = canon(k, ~0ull); break;
   default: break;
   }
   return n;
}

static struct num
op_combine(enum kind k, enum op op, struct num a, struct num b)
{
   struct num r = { 0, 0 };
   if (kind_float(k)) {
      switch (op) {
      case OP_ADD: r.f = a.f + b.f; break;
      case OP_MUL: r.f = a.f * b.f; break;
      case OP_MIN: r.f = fmin(a.f, b.f); break;   /* a NaN operand gives the other */
      default: r.f = fmax(a.f, b.f); break;
      }
      return r;
   }
   uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
   bool less = kind_signed(k) ? a.i < b.i : x < y;
   switch (op) {
   case OP_ADD: r.i = canon(k, x + y); break;
   case OP_MUL: r.i = canon(k, x * y); break;
   case OP_MIN: r.i = less ? a.i : b.i; break;
   case OP_MAX: r.i = less ? b.i : a.i; break;
   case OP_AND: r.i = canon(k, x & y); break;
   case OP_OR: r.i = canon(k, x | y); break;
   default: r.i = canon(k, x ^ y); break;
   }
   return r;
}

/* Test inputs for operation input array a (0: add and bitwise, 1: multiply,
 * 2: min / max). Float values keep every sum and product exact in any
 * order (so the shader's order cannot matter); min / max see NaNs,
 * infinities and signed zeros. */
static struct num
gen_input(enum kind k, int array, uint32_t index)
{
   struct num n = { 0, 0 };
   uint32_t r = rng();
   if (k == K_BOOL) {
      /* Mostly true for "and", mostly false for "or", even for "xor". */
      n.i = array == 0 ? (r % 8) != 0 : array == 1 ? (r % 8) == 0 : r & 1;
      return n;
   }
   if (kind_float(k)) {
      if (array == 0) {
         int range = k == K_F16 ? 100 : 400;
         n.f = ((int)(r % (2 * range + 1)) - range) * 0.25;
         if (k != K_F16 && r % 97 == 0)
            n.f = (r & 0x100) ? INFINITY : -INFINITY;
      } else if (array == 1) {
         /* ±2^e, e in -1..1; for halves at most 13 of 16 neighbours (and
          * none of the first three, the uniform operands) away from 1, so no
          * partial product leaves their normal range. */
         int e = (int)(r % 3) - 1;
         if (k == K_F16 && index % 16 < 3)
            e = 0;
         n.f = ldexp((r & 0x10) ? -1.0 : 1.0, e);
         if (r % 41 == 0)
            n.f = 0.0;
      } else {
         switch (r % 16) {
         case 0: n.f = NAN; break;
         case 1: n.f = INFINITY; break;
         case 2: n.f = -INFINITY; break;
         case 3: n.f = -0.0; break;
         case 4: n.f = 0.0; break;
         default: n.f = (int)((r >> 8) % 2001) - 1000; break;
         }
         if (k == K_F16 && isfinite(n.f))
            n.f = fmod(n.f, 1024.0);
      }
      return n;
   }
   unsigned bits = kind_bits(k);
   uint64_t wide = ((uint64_t)r << 32) | rng();
   switch (r % 10) {
   case 0: n.i = canon(k, 1ull << (bits - 1)); break;          /* signed minimum */
   case 1: n.i = canon(k, (1ull << (bits - 1)) - 1); break;    /* signed maximum */
   case 2: n.i = canon(k, ~0ull); break;                       /* -1 / unsigned maximum */
   case 3: n.i = 0; break;
   case 4: n.i = canon(k, (r >> 8) % 7); break;
   default: n.i = canon(k, wide); break;
   }
   return n;
}

static void
check_arith_run(const struct variant *v, const struct sc_shader *s, uint32_t local,
                const uint32_t lanes[4], int *bad)
{
   enum { GROUPS = 3 };
   const enum op int_ops[] = { OP_ADD, OP_MUL, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
   const enum op float_ops[] = { OP_ADD, OP_MUL, OP_MIN, OP_MAX };
   const enum op bool_ops[] = { OP_AND, OP_OR, OP_XOR };
   const int int_arr[] = { 0, 1, 2, 2, 0, 0, 0 }, float_arr[] = { 0, 1, 2, 2 },
             bool_arr[] = { 0, 1, 2 };
   const enum op *ops = int_ops;
   const int *arr = int_arr;
   uint32_t nops = 7;
   if (kind_float(v->kind)) {
      ops = float_ops, arr = float_arr, nops = 4;
   } else if (v->kind == K_BOOL) {
      ops = bool_ops, arr = bool_arr, nops = 3;
   }
   uint32_t nout = nops * 2 * FORMS;
   uint32_t n = GROUPS * local;
   size_t esize = (size_t)v->ncomp * v->csize;
   uint8_t *in[3], *out = malloc(n * nout * esize);
   uint32_t *ids = malloc(n * sizeof(uint32_t));
   for (int a = 0; a < 3; a++)
      in[a] = calloc(n, esize);
   if (!out || !ids || !in[0] || !in[1] || !in[2]) {
      CHECK(0, "out of memory");
      goto done;
   }
   for (int a = 0; a < 3; a++)
      for (uint32_t g = 0; g < n; g++)
         for (uint32_t c = 0; c < v->ncomp; c++)
            num_write(v, in[a], g, c, gen_input(v->kind, a, g % local));
   memset(out, 0xa5, n * nout * esize);
   memset(ids, 0xff, n * sizeof(uint32_t));

   union shale_descriptor set[5];
   memset(set, 0, sizeof(set));
   for (int a = 0; a < 3; a++)
      bind(set, a, in[a], n * esize);
   bind(set, 3, out, n * nout * esize);
   bind(set, 4, ids, n * sizeof(uint32_t));
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, lanes, 4 * sizeof(uint32_t));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   const uint32_t base[3] = { 0, 0, 0 }, count[3] = { GROUPS, 1, 1 };
   CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);

   struct layout lo;
   if (!layout_build(&lo, ids, GROUPS, local)) {
      (*bad)++;
      layout_free(&lo);
      goto done;
   }
   uint8_t sentinel[16];
   memset(sentinel, 0xa5, sizeof(sentinel));
   const uint32_t W = width;
   for (uint32_t g = 0; g < n; g++) {
      uint32_t lane = lo.lane[g], sg = lo.sg[g];
      bool on = (lanes[sg & 3] >> lane) & 1;
      if (!on) {
         /* Inactive invocations write nothing. */
         for (uint32_t k = 0; k < nout; k++)
            if (memcmp(out + ((size_t)g * nout + k) * esize, sentinel, esize) && (*bad)++ < MAX_BAD)
               CHECK(0, "%s W=%u local %u: inactive invocation %u wrote output %u", v->name, W,
                     local, g, k);
         continue;
      }
      for (uint32_t o = 0; o < nops; o++) {
         for (uint32_t uni = 0; uni < 2; uni++) {
            for (uint32_t f = 0; f < FORMS; f++) {
               uint32_t cluster = f >= 3 ? 1u << (f - 3) : 0;
               if (cluster > W)
                  continue;   /* larger than the subgroup: undefined */
               uint32_t k = (o * 2 + uni) * FORMS + f;
               for (uint32_t c = 0; c < v->ncomp; c++) {
                  struct num want = op_identity(v->kind, ops[o]);
                  uint32_t contributors = 0, numbers = 0;
                  for (uint32_t l = 0; l < W; l++) {
                     int32_t j = layout_peer(&lo, g, l);
                     if (j < 0 || !((lanes[sg & 3] >> l) & 1))
                        continue;
                     bool counts = f == 0 || (f == 1 && l <= lane) || (f == 2 && l < lane) ||
                                   (cluster && l / cluster == lane / cluster);
                     if (!counts)
                        continue;
                     struct num x = num_read(v, in[arr[o]], uni ? g / local : (uint32_t)j, c);
                     want = op_combine(v->kind, ops[o], want, x);
                     contributors++;
                     numbers += !isnan(x.f);
                  }
                  struct num got = num_read(v, out, g * nout + k, c);
                  bool ok;
                  if (kind_float(v->kind)) {
                     /* FMin / FMax of NaNs only: undefined. */
                     if ((ops[o] == OP_MIN || ops[o] == OP_MAX) && contributors && !numbers)
                        continue;
                     double w = v->kind == K_F64 ? want.f : (double)(float)want.f;
                     ok = same_float(got.f, w);
                     want.f = w;
                  } else {
                     ok = got.i == want.i;
                  }
                  if (!ok && (*bad)++ < MAX_BAD)
                     CHECK(0, "%s W=%u local %u: invocation %u (subgroup %u lane %u) op %u%s "
                           "form %u comp %u = %lld / %g, expected %lld / %g", v->name, W, local,
                           g, sg, lane, o, uni ? " (uniform)" : "", f, c, (long long)got.i,
                           got.f, (long long)want.i, want.f);
               }
            }
         }
      }
   }
   layout_free(&lo);
done:
   for (int a = 0; a < 3; a++)
      free(in[a]);
   free(out);
   free(ids);
}

static const struct variant arith_variants[] = {
   { "u32", SPV(subgroup_arith_u32_spv), K_U32, 1, 4 },
   { "i32", SPV(subgroup_arith_i32_spv), K_I32, 1, 4 },
   { "u64", SPV(subgroup_arith_u64_spv), K_U64, 1, 8 },
   { "i64", SPV(subgroup_arith_i64_spv), K_I64, 1, 8 },
   { "i16", SPV(subgroup_arith_i16_spv), K_I16, 1, 4 },
   { "ivec2", SPV(subgroup_arith_iv2_spv), K_I32, 2, 4 },
   { "f32", SPV(subgroup_arith_f32_spv), K_F32, 1, 4 },
   { "f64", SPV(subgroup_arith_f64_spv), K_F64, 1, 8 },
   { "f16", SPV(subgroup_arith_f16_spv), K_F16, 1, 4 },
   { "vec4", SPV(subgroup_arith_v4_spv), K_F32, 4, 4 },
   { "bool", SPV(subgroup_arith_bool_spv), K_BOOL, 1, 4 },
   { "i8", SPV(subgroup_arith_i8_spv), K_I8, 1, 4 },
   { "u16", SPV(subgroup_arith_u16_spv), K_U16, 1, 4 },
};

static void
test_arith(void)
{
   /* Workgroup sizes: whole subgroups, a partial last one, less than one. */
   static const uint32_t sizes[] = { 64, 37, 5 };
   const uint32_t all[4] = { ~0u, ~0u, ~0u, ~0u };
   const uint32_t divergent[4] = { lanes_mod3(), 0x0001, 0xa5c3, 0x7ffe };
   for (size_t vi = 0; vi < sizeof(arith_variants) / sizeof(arith_variants[0]); vi++) {
      const struct variant *v = &arith_variants[vi];
      int bad = 0;
      for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
         struct sc_shader *s = compile(v->name, v->spv, v->words, sizes[si]);
         if (!s)
            continue;
         check_arith_run(v, s, sizes[si], all, &bad);
         check_arith_run(v, s, sizes[si], divergent, &bad);
         sc_shader_destroy(s);
      }
      CHECK(bad == 0, "subgroup arithmetic %s W=%u: %d wrong", v->name, width, bad);
   }
}

/* ------------------------------------------------------------------------ */
/* Basic, vote, ballot, shuffle, shuffle relative, quad                      */
/* ------------------------------------------------------------------------ */

enum { NB = 64 };   /* results per invocation of subgroup_basic.comp */

static uint32_t
lanes_below(uint32_t l)
{
   return (1u << l) - 1;
}

/* The shader's per-invocation values derived from its input x. */
static float
basic_f(uint32_t x)
{
   return (float)((int)(x % 2001u) - 1000) * 0.25f;
}

static int64_t
basic_q(uint32_t x)
{
   return (int64_t)((uint64_t)x << 24) - 7;
}

static bool
basic_b(uint32_t x)
{
   return (x & 4u) != 0;
}

/* One run of subgroup_basic.comp; k: the run-time lane distance. */
static void
check_basic_run(const struct sc_shader *s, uint32_t local, const uint32_t lanes[4], uint32_t k,
                int *bad)
{
   enum { GROUPS = 3 };
   const uint32_t W = width;
   uint32_t n = GROUPS * local;
   uint32_t *a = malloc((n + 1) * sizeof(uint32_t)), *e = malloc(n * sizeof(uint32_t));
   uint32_t *o = malloc((size_t)n * NB * sizeof(uint32_t)), *ids = malloc(n * sizeof(uint32_t));
   if (!a || !e || !o || !ids) {
      CHECK(0, "out of memory");
      goto done;
   }
   for (uint32_t g = 0; g <= n; g++)
      a[g] = rng();
   /* Subgroups (as laid out: W consecutive invocations) whose active lanes
    * hold one value and inactive ones others, or a mix of close values. */
   for (uint32_t g0 = 0; g0 < n; g0 += W) {
      uint32_t c = rng() % 8, sg = (g0 % local) / W;
      bool same = rng() & 1;
      for (uint32_t l = 0; l < W && g0 + l < n; l++) {
         bool on = (lanes[sg & 3] >> l) & 1;
         e[g0 + l] = same ? (on ? c : c ^ 1) : c ^ (rng() % 3);
      }
   }
   memset(o, 0xa5, (size_t)n * NB * sizeof(uint32_t));
   union shale_descriptor set[4];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, (n + 1) * sizeof(uint32_t));
   bind(set, 1, e, n * sizeof(uint32_t));
   bind(set, 2, o, (size_t)n * NB * sizeof(uint32_t));
   bind(set, 3, ids, n * sizeof(uint32_t));
   uint32_t pc[5] = { lanes[0], lanes[1], lanes[2], lanes[3], k };
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, pc, sizeof(pc));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   const uint32_t base[3] = { 0, 0, 0 }, count[3] = { GROUPS, 1, 1 };
   CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);

   struct layout lo;
   if (!layout_build(&lo, ids, GROUPS, local)) {
      (*bad)++;
      layout_free(&lo);
      goto done;
   }
   const uint32_t wmask = (uint32_t)((1ull << W) - 1);
   for (uint32_t g = 0; g < n; g++) {
      uint32_t lane = lo.lane[g], sg = lo.sg[g], wg = g / local;
      const uint32_t *got = o + (size_t)g * NB;
      if (!((lanes[sg & 3] >> lane) & 1)) {
         for (uint32_t r = 0; r < NB; r++)
            if (got[r] != 0xa5a5a5a5u && (*bad)++ < MAX_BAD)
               CHECK(0, "basic W=%u local %u: inactive invocation %u wrote result %u", W, local,
                     g, r);
         continue;
      }
      /* The subgroup's active invocations by lane (-1: none or inactive). */
      int32_t peer[16];
      uint32_t active = 0;
      for (uint32_t l = 0; l < W; l++) {
         peer[l] = layout_peer(&lo, g, l);
         if (peer[l] >= 0 && ((lanes[sg & 3] >> l) & 1))
            active |= 1u << l;
         else
            peer[l] = -1;
      }
      uint32_t first = (uint32_t)__builtin_ctz(active);
      uint32_t x = a[g];
#define X(l) a[peer[l]]
      uint32_t want[NB];
      bool defined[NB];
      for (uint32_t r = 0; r < NB; r++)
         defined[r] = true;
      /* Lane reads: defined when the source lane is in range and active. */
#define READ(r, src, expr)                                                      \
   do {                                                                         \
      int64_t src_ = (src);                                                     \
      defined[r] = src_ >= 0 && src_ < (int64_t)W && ((active >> src_) & 1);    \
      if (defined[r]) {                                                         \
         uint32_t l_ = (uint32_t)src_;                                          \
         (void)l_;                                                              \
         want[r] = (expr);                                                      \
      }                                                                         \
   } while (0)
      bool all = true, any = false, eq_u = true, eq_f = true, eq_b = true, eq_3 = true, eq_x = true;
      uint32_t bal = 0;
      uint32_t c0 = e[peer[first]];
      float f0 = c0 == 7 ? NAN : (float)c0;
      for (uint32_t l = 0; l < W; l++) {
         if (!((active >> l) & 1))
            continue;
         uint32_t xl = X(l), cl = e[peer[l]];
         float fl = cl == 7 ? NAN : (float)cl;
         all &= (xl % 16) != 0;
         any |= (xl % 16) == 0;
         eq_u &= cl == c0;
         eq_f &= fl == f0;
         eq_b &= (cl & 3) == (c0 & 3);
         eq_3 &= (cl >> 2) == (c0 >> 2) && (cl & 1) == (c0 & 1);
         eq_x &= xl == X(first);
         if (xl % 3 == 0)
            bal |= 1u << l;
      }
      want[0] = lane == first;
      want[1] = all;
      want[2] = any;
      want[3] = eq_u;
      want[4] = eq_f;
      want[5] = eq_b;
      want[6] = eq_3;
      want[7] = 1;
      READ(8, 0, X(l_));
      READ(9, 3, X(l_));
      want[10] = X(first);
      want[11] = fbits(basic_f(X(first)));
      want[12] = bal;
      want[13] = want[14] = want[15] = 0;
      uint32_t bv[4] = { a[wg], a[wg + 1], ~0u, 0x80000001u };
      want[16] = (bv[0] >> lane) & 1;
      uint32_t bit = x % 128;
      want[17] = (bv[bit / 32] >> (bit % 32)) & 1;
      want[18] = (uint32_t)__builtin_popcount(bv[0] & wmask);
      want[19] = (uint32_t)__builtin_popcount(bv[0] & wmask & (lanes_below(lane) | 1u << lane));
      want[20] = (uint32_t)__builtin_popcount(bv[0] & lanes_below(lane));
      want[21] = (uint32_t)__builtin_ctz(bal | 1u << lane);
      defined[22] = (bv[0] & wmask) != 0;
      if (defined[22])
         want[22] = 31 - (uint32_t)__builtin_clz(bv[0] & wmask);
      want[23] = (uint32_t)__builtin_popcount(x & wmask);
      want[24] = 1u << lane;
      want[25] = wmask & ~lanes_below(lane);
      want[26] = wmask & ~(lanes_below(lane) | 1u << lane);
      want[27] = lanes_below(lane) | 1u << lane;
      want[28] = lanes_below(lane);
      want[29] = 0;
      READ(30, (lane * 5 + 3) % W, X(l_));
      READ(31, (lane + 1) % W, fbits(basic_f(X(l_))));
      {
         double d = 0;
         READ(32, W - 1 - lane, 0);
         if (defined[32])
            d = (double)X(W - 1 - lane) * 1.5 + 0.5;
         uint64_t du;
         memcpy(&du, &d, 8);
         want[32] = (uint32_t)du;
         want[33] = (uint32_t)(du >> 32);
         defined[33] = defined[32];
      }
      READ(34, (lane * 3) % W, basic_b(X(l_)));
      READ(35, k, X(l_));
      READ(36, lane ^ 1, X(l_));
      READ(37, lane ^ 6, X(l_));
      READ(38, lane ^ k, X(l_));
      READ(39, lane ^ (x & (W - 1)), X(l_));
      READ(40, (int64_t)lane - 1, X(l_));
      READ(41, (int64_t)lane - k, X(l_));
      READ(42, (int64_t)lane - lane % 3, X(l_));
      READ(43, lane + 2, X(l_));
      READ(44, lane + k, X(l_));
      READ(45, lane + 1, basic_b(X(l_)));
      READ(46, lane & ~3u, X(l_));
      READ(47, (lane & ~3u) + 3, X(l_));
      READ(48, lane ^ 1, X(l_));
      READ(49, lane ^ 2, X(l_));
      READ(50, lane ^ 3, X(l_));
      READ(51, lane ^ 3, basic_b(X(l_)));
      READ(52, lane ^ 3, X(l_) ^ 0x55u);
      READ(53, lane + 1, (uint32_t)basic_q(X(l_)));
      READ(54, lane + 1, (uint32_t)((uint64_t)basic_q(X(l_)) >> 32));
      READ(55, lane ^ 2, (X(l_) >> 7) & 0xffff);
      READ(56, (lane + 1) % W, a[wg]);
      /* The loop: lanes stay while i <= x % 5. */
      uint32_t acc = 0;
      for (uint32_t i = 0; i <= x % 5; i++) {
         uint32_t sum = 0, cnt = 0, lowest = W;
         for (uint32_t l = 0; l < W; l++) {
            if (!((active >> l) & 1) || i > X(l) % 5)
               continue;
            sum += X(l) + i;
            cnt++;
            if (lowest == W)
               lowest = l;
         }
         acc = acc * 31 + sum + cnt * 7 + (lane == lowest ? 1000 : 0);
      }
      want[57] = acc;
      {
         uint32_t before = 0, lowest = W, maxlane = 0;
         for (uint32_t l = 0; l < W; l++) {
            if (!((active >> l) & 1) || ((X(l) & 8) != 0) != ((x & 8) != 0))
               continue;
            if (l < lane)
               before++;
            if (lowest == W)
               lowest = l;
            maxlane = l;
         }
         want[58] = (x & 8) ? before + 100 * lowest : maxlane;
      }
      want[59] = W;
      READ(60, 2, ~X(l_));
      want[61] = (uint32_t)(basic_q(X(first)) >> 8);
      READ(62, 1, basic_b(X(l_)));
      want[63] = eq_x;
#undef READ
#undef X
      for (uint32_t r = 0; r < NB; r++)
         if (defined[r] && got[r] != want[r] && (*bad)++ < MAX_BAD)
            CHECK(0, "basic W=%u local %u k %u: invocation %u (subgroup %u lane %u, active %#x) "
                  "result %u = %#x, expected %#x", W, local, k, g, sg, lane, active, r, got[r],
                  want[r]);
   }
   layout_free(&lo);
done:
   free(a);
   free(e);
   free(o);
   free(ids);
}

static void
test_basic(void)
{
   static const uint32_t sizes[] = { 64, 37, 5 };
   const uint32_t all[4] = { ~0u, ~0u, ~0u, ~0u };
   const uint32_t divergent[4] = { lanes_mod3(), 0x0001, 0xa5c3, 0x7ffe };
   int bad = 0;
   for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
      struct sc_shader *s = compile("subgroup_basic", SPV(subgroup_basic_spv), sizes[si]);
      if (!s)
         continue;
      for (int rep = 0; rep < 3; rep++) {
         check_basic_run(s, sizes[si], all, 1, &bad);
         check_basic_run(s, sizes[si], divergent, 3, &bad);
      }
      sc_shader_destroy(s);
   }
   CHECK(bad == 0, "subgroup basic W=%u: %d wrong", width, bad);
}

/* ------------------------------------------------------------------------ */
/* SPV_KHR_shader_ballot, SPV_KHR_subgroup_vote                              */
/* ------------------------------------------------------------------------ */

enum { NK = 16 };   /* results per invocation of subgroup_khr.comp */

static void
check_khr_run(const struct sc_shader *s, uint32_t local, const uint32_t lanes[4], int *bad)
{
   enum { GROUPS = 2 };
   const uint32_t W = width;
   uint32_t n = GROUPS * local;
   uint32_t *a = malloc(n * sizeof(uint32_t)), *ids = malloc(n * sizeof(uint32_t));
   uint32_t *o = malloc((size_t)n * NK * sizeof(uint32_t));
   if (!a || !o || !ids) {
      CHECK(0, "out of memory");
      goto done;
   }
   for (uint32_t g = 0; g < n; g++)
      a[g] = rng();
   memset(o, 0xa5, (size_t)n * NK * sizeof(uint32_t));
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, n * sizeof(uint32_t));
   bind(set, 1, o, (size_t)n * NK * sizeof(uint32_t));
   bind(set, 2, ids, n * sizeof(uint32_t));
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, lanes, 4 * sizeof(uint32_t));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   const uint32_t base[3] = { 0, 0, 0 }, count[3] = { GROUPS, 1, 1 };
   CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);
   struct layout lo;
   if (!layout_build(&lo, ids, GROUPS, local)) {
      (*bad)++;
      layout_free(&lo);
      goto done;
   }
   const uint32_t wmask = (uint32_t)((1ull << W) - 1);
   for (uint32_t g = 0; g < n; g++) {
      uint32_t lane = lo.lane[g], sg = lo.sg[g];
      const uint32_t *got = o + (size_t)g * NK;
      CHECK(lane == (g % local) % W, "khr: invocation %u in lane %u", g, lane);
      if (!((lanes[sg & 3] >> lane) & 1)) {
         for (uint32_t r = 0; r < NK; r++)
            if (got[r] != 0xa5a5a5a5u && (*bad)++ < MAX_BAD)
               CHECK(0, "khr W=%u local %u: inactive invocation %u wrote result %u", W, local, g,
                     r);
         continue;
      }
      int32_t peer[16];
      uint32_t active = 0;
      for (uint32_t l = 0; l < W; l++) {
         peer[l] = layout_peer(&lo, g, l);
         if (peer[l] >= 0 && ((lanes[sg & 3] >> l) & 1))
            active |= 1u << l;
         else
            peer[l] = -1;
      }
      uint32_t first = (uint32_t)__builtin_ctz(active);
      uint32_t want[NK], bal = 0;
      bool defined[NK], any = false, all = true, eq = true;
      for (uint32_t l = 0; l < W; l++) {
         if (!((active >> l) & 1))
            continue;
         uint32_t xl = a[peer[l]];
         bal |= (xl % 3 == 0) << l;
         any |= xl % 16 == 0;
         all &= xl % 16 != 0;
         eq &= (xl % 8 != 0) == (a[peer[first]] % 8 != 0);
      }
      for (uint32_t r = 0; r < NK; r++)
         defined[r] = true;
      want[0] = bal;
      want[1] = 0;
      defined[2] = (active >> 1) & 1;
      want[2] = defined[2] ? a[peer[1]] : 0;
      want[3] = a[peer[first]];
      want[4] = any;
      want[5] = all;
      want[6] = eq;
      want[7] = 1u << lane;
      want[8] = 0;
      want[9] = wmask & ~lanes_below(lane);
      want[10] = wmask & ~(lanes_below(lane) | 1u << lane);
      want[11] = lanes_below(lane) | 1u << lane;
      want[12] = lanes_below(lane);
      want[13] = 0;
      want[14] = W;
      defined[15] = active & 1;
      want[15] = defined[15] ? a[peer[0]] ^ 5 : 0;
      for (uint32_t r = 0; r < NK; r++)
         if (defined[r] && got[r] != want[r] && (*bad)++ < MAX_BAD)
            CHECK(0, "khr W=%u local %u: invocation %u (lane %u, active %#x) result %u = %#x, "
                  "expected %#x", W, local, g, lane, active, r, got[r], want[r]);
   }
   layout_free(&lo);
done:
   free(a);
   free(o);
   free(ids);
}

static void
test_khr(void)
{
   static const uint32_t sizes[] = { 64, 37 };
   const uint32_t all[4] = { ~0u, ~0u, ~0u, ~0u };
   const uint32_t divergent[4] = { lanes_mod3(), 0x0002, 0xa5c3, 0x7ffe };
   int bad = 0;
   for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
      struct sc_shader *s = compile("subgroup_khr", SPV(subgroup_khr_spv), sizes[si]);
      if (!s)
         continue;
      check_khr_run(s, sizes[si], all, &bad);
      check_khr_run(s, sizes[si], divergent, &bad);
      sc_shader_destroy(s);
   }
   CHECK(bad == 0, "subgroup KHR W=%u: %d wrong", width, bad);
}

/* ------------------------------------------------------------------------ */
/* Dynamically uniform broadcast lanes (SPIR-V 1.5)                          */
/* ------------------------------------------------------------------------ */

static void
check_dynamic_run(const struct sc_shader *s, uint32_t local, const uint32_t lanes[4], uint32_t k,
                  uint32_t q, int *bad)
{
   enum { GROUPS = 2, ND = 4 };
   const uint32_t W = width;
   uint32_t n = GROUPS * local;
   uint32_t *a = malloc(n * 4), *o = malloc(n * ND * 4), *ids = malloc(n * 4);
   if (!a || !o || !ids) {
      CHECK(0, "out of memory");
      goto done;
   }
   for (uint32_t g = 0; g < n; g++)
      a[g] = rng();
   memset(o, 0xa5, n * ND * 4);
   union shale_descriptor set[3];
   memset(set, 0, sizeof(set));
   bind(set, 0, a, n * 4);
   bind(set, 1, o, n * ND * 4);
   bind(set, 2, ids, n * 4);
   uint32_t pc[6] = { lanes[0], lanes[1], lanes[2], lanes[3], k, q };
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   memcpy(push, pc, sizeof(pc));
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   const uint32_t base[3] = { 0, 0, 0 }, count[3] = { GROUPS, 1, 1 };
   CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);
   struct layout lo;
   if (!layout_build(&lo, ids, GROUPS, local)) {
      (*bad)++;
      layout_free(&lo);
      goto done;
   }
   for (uint32_t g = 0; g < n; g++) {
      uint32_t lane = lo.lane[g], sg = lo.sg[g];
      bool on = (lanes[sg & 3] >> lane) & 1;
      int32_t src = layout_peer(&lo, g, k);
      int32_t qsrc = layout_peer(&lo, g, (lane & ~3u) + q);
      bool src_on = src >= 0 && ((lanes[sg & 3] >> k) & 1);
      bool qsrc_on = qsrc >= 0 && ((lanes[sg & 3] >> ((lane & ~3u) + q)) & 1);
      uint32_t want[ND] = { 0, 0, 0, 0 };
      bool defined[ND] = { src_on, src_on, src_on, qsrc_on };
      if (src_on) {
         want[0] = a[src];
         want[1] = a[src] * 3;
         want[2] = fbits((float)(a[src] & 0xffff));
      }
      if (qsrc_on)
         want[3] = a[qsrc];
      for (int r = 0; r < ND; r++) {
         uint32_t w = on ? want[r] : 0xa5a5a5a5u;
         if ((defined[r] || !on) && o[g * ND + r] != w && (*bad)++ < MAX_BAD)
            CHECK(0, "dynamic W=%u local %u k %u q %u: invocation %u (lane %u) result %d = %#x, "
                  "expected %#x", W, local, k, q, g, lane, r, o[g * ND + r], w);
      }
   }
   layout_free(&lo);
done:
   free(a);
   free(o);
   free(ids);
}

static void
test_dynamic(void)
{
   static const uint32_t sizes[] = { 64, 37 };
   const uint32_t all[4] = { ~0u, ~0u, ~0u, ~0u };
   const uint32_t divergent[4] = { lanes_mod3(), 0x0001, 0xa5c3, 0x7ffe };
   int bad = 0;
   for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
      struct sc_shader *s = compile("subgroup_dynamic", SPV(subgroup_dynamic_spv), sizes[si]);
      if (!s)
         continue;
      for (uint32_t k = 0; k < width; k += 3) {
         check_dynamic_run(s, sizes[si], all, k, k % 4, &bad);
         check_dynamic_run(s, sizes[si], divergent, k, (k + 1) % 4, &bad);
      }
      sc_shader_destroy(s);
   }
   CHECK(bad == 0, "subgroup dynamic broadcast W=%u: %d wrong", width, bad);
}

/* ------------------------------------------------------------------------ */
/* Barriers, errors                                                          */
/* ------------------------------------------------------------------------ */

static void
test_barrier(void)
{
   static const uint32_t sizes[] = { 64, 37, 12 };
   enum { GROUPS = 2 };
   const uint32_t W = width;
   int bad = 0;
   for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
      uint32_t local = sizes[si], n = GROUPS * local;
      struct sc_shader *s = compile("subgroup_barrier", SPV(subgroup_barrier_spv), local);
      if (!s)
         continue;
      uint32_t *a = malloc(n * 4), *o = malloc(n * 16), *ids = malloc(n * 4);
      if (!a || !o || !ids) {
         CHECK(0, "out of memory");
         free(a), free(o), free(ids);
         sc_shader_destroy(s);
         continue;
      }
      for (uint32_t g = 0; g < n; g++)
         a[g] = rng() % 100000;
      union shale_descriptor set[3];
      memset(set, 0, sizeof(set));
      bind(set, 0, a, n * 4);
      bind(set, 1, o, n * 16);
      bind(set, 2, ids, n * 4);
      struct shale_cs_context ctx = { .sets = { set } };
      const uint32_t base[3] = { 0, 0, 0 }, count[3] = { GROUPS, 1, 1 };
      CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);
      struct layout lo;
      if (layout_build(&lo, ids, GROUPS, local)) {
         /* Sums of each subgroup (the first pass), by invocation. */
         uint32_t *s1 = calloc(n, 4);
         for (uint32_t g = 0; s1 && g < n; g++)
            for (uint32_t l = 0; l < W; l++)
               if (layout_peer(&lo, g, l) >= 0)
                  s1[g] += a[layout_peer(&lo, g, l)];
         for (uint32_t g = 0; s1 && g < n; g++) {
            uint32_t lane = lo.lane[g], wg = g / local, e1 = 0, s2 = 0, exist = 0, odd = 0;
            for (uint32_t l = 0; l < W; l++) {
               int32_t j = layout_peer(&lo, g, l);
               if (j < 0)
                  continue;
               exist |= 1u << l;
               odd += a[j] & 1;
               if (l < lane && a[j] > e1)
                  e1 = a[j];
               if (l <= lane)
                  s2 += s1[wg * local + ((uint32_t)j % local + W) % local];
            }
            s2 ^= 1;   /* BroadcastFirst of e1 + 1: the first lane's e1 is 0 */
            if (a[g] & 1)
               s2 += odd * 1000;
            uint32_t want[4] = { s1[g], e1, s2, exist };
            for (int r = 0; r < 4; r++)
               if (o[g * 4 + r] != want[r] && bad++ < MAX_BAD)
                  CHECK(0, "barrier W=%u local %u: invocation %u result %d = %u, expected %u", W,
                        local, g, r, o[g * 4 + r], want[r]);
         }
         free(s1);
      } else {
         bad++;
      }
      layout_free(&lo);
      free(a), free(o), free(ids);
      sc_shader_destroy(s);
   }
   CHECK(bad == 0, "subgroup barrier W=%u: %d wrong", W, bad);
}

/* Group operations of another scope than Subgroup are refused. */
static void
test_scope(void)
{
   struct sc_compile_info info = {
      .words = subgroup_scope_spv,
      .word_count = sizeof(subgroup_scope_spv) / 4,
      .entry_point = "main",
      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
      .simd_width = width,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_ERROR_INVALID_SPIRV || r == SC_ERROR_UNSUPPORTED,
         "Workgroup-scope group operation: %s (%s)", sc_result_string(r), msg);
   CHECK(s == NULL, "no shader on failure");
}

/* ------------------------------------------------------------------------ */

/* True in the AddressSanitizer build (GCC's macro, clang's feature). */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN_BUILD 1
#endif
#endif
#ifndef ASAN_BUILD
#define ASAN_BUILD 0
#endif

int
main(void)
{
   enum sc_result r = sc_compiler_create(&compiler);
   CHECK_EQ_INT(r, SC_SUCCESS);
   if (r != SC_SUCCESS)
      return check_finish();
   static const uint32_t widths[] = { 4, 8, 16 };
   for (int w = 0; w < 3; w++) {
      width = widths[w];
      if (!ASAN_BUILD || width == 8)
         test_arith();
      else
         printf("W=%u: subgroup arithmetic not run in the ASan build (W=8 runs it; see the top)\n",
                width);
      test_basic();
      test_khr();
      test_dynamic();
      test_barrier();
      test_scope();
   }
   sc_compiler_destroy(compiler);
   return check_finish();
}
