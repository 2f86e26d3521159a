/* Compiler unit test: constant indices out of range (built-ins, Function,
 * Private, push-constant and Workgroup variables, dynamic vector access,
 * vector shuffles, descriptor arrays) and operands of the wrong size (a
 * group operation's value, an OpSpecConstantOp's operand: sizes spirv-val
 * does not compare). spirv-val accepts every module here;
 * what such an index reads is undefined, but compiling must never crash: a
 * module compiles and its defined results hold, or it is refused with an
 * error code and a message. Run as optimized vector code, baseline vector
 * code and scalar baseline code. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compiler/sc_compiler.h"

#include "shaders/builtin_oob_spv.h"
#include "shaders/desc_oob_spv.h"
#include "shaders/index_oob_spv.h"
#include "shaders/shape_group_spv.h"
#include "shaders/shape_spec_op_spv.h"

#define SPV(a) (a), (sizeof(a) / sizeof((a)[0]))

static struct sc_compiler *compiler;

struct round {
   const char *name;
   uint32_t flags;
   uint32_t simd_width;
};

static const struct round rounds[] = {
   { "optimized", 0, 0 },
   { "baseline", SC_COMPILE_BASELINE, 0 },
   { "scalar baseline", SC_COMPILE_BASELINE, 1 },
};

static struct sc_shader *
compile(const struct round *r, const char *name, const uint32_t *words, size_t count)
{
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = "main",
      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
      .flags = r->flags,
      .simd_width = r->simd_width,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result res = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(res == SC_SUCCESS, "%s (%s): %s (%s)", name, r->name, sc_result_string(res), msg);
   CHECK((res == SC_SUCCESS) == (s != NULL), "%s: shader only on success", name);
   return s;
}

enum { N = 64, GUARD = 64 };

/* Runs s over N invocations (8 workgroups of 8) on a buffer of words
 * words followed by a guard; checks the guard and out[i] = i + add for
 * i < N. */
static void
run(const struct round *r, const char *name, struct sc_shader *s, uint32_t words, uint32_t add)
{
   static uint32_t buf[2 * N + GUARD];
   for (uint32_t i = 0; i < 2 * N + GUARD; i++)
      buf[i] = 0xdeadbeefu;
   uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   union shale_descriptor set[2];
   memset(set, 0, sizeof(set));
   set[0].buffer.base = (uint8_t *)buf;
   set[0].buffer.range = words * 4;
   struct shale_cs_context ctx = { .sets = { set }, .push_constants = push };
   const uint32_t base[3] = { 0, 0, 0 }, count[3] = { N / 8, 1, 1 };
   CHECK_EQ_INT(sc_dispatch_compute(s, &ctx, base, count), SC_SUCCESS);
   int bad = 0;
   for (uint32_t i = 0; i < N; i++)
      if (buf[i] != i + add && bad++ < 3)
         CHECK(0, "%s (%s): out[%u] = %u, expected %u", name, r->name, i, buf[i], i + add);
   for (uint32_t i = words; i < 2 * N + GUARD; i++)
      if (buf[i] != 0xdeadbeefu && bad++ < 3)
         CHECK(0, "%s (%s): word %u past the buffer written", name, r->name, i);
   CHECK(bad == 0, "%s (%s): %d wrong", name, r->name, bad);
}

/* gid[0xffffffff], gid[3] and gid[0x80000000] of the uvec3 built-in read
 * zero (the undefined value Shale picks), so out[x] = x. */
static void
test_builtin(const struct round *r)
{
   struct sc_shader *s = compile(r, "builtin_oob", SPV(builtin_oob_spv));
   if (!s)
      return;
   run(r, "builtin_oob", s, N, 0);
   sc_shader_destroy(s);
}

static void
test_index(const struct round *r)
{
   struct sc_shader *s = compile(r, "index_oob", SPV(index_oob_spv));
   if (!s)
      return;
   run(r, "index_oob", s, 2 * N, 1);
   sc_shader_destroy(s);
}

/* A module the translator must refuse with SC_ERROR_INVALID_SPIRV, no
 * shader and a message containing what. */
static void
refused(const struct round *r, const char *name, const uint32_t *words, size_t count,
        const char *what)
{
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = "main",
      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
      .flags = r->flags,
      .simd_width = r->simd_width,
   };
   char msg[256] = "";
   struct sc_shader *s = (struct sc_shader *)0x1;
   enum sc_result res = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(res == SC_ERROR_INVALID_SPIRV, "%s (%s): %s (%s)", name, r->name,
         sc_result_string(res), msg);
   CHECK(s == NULL, "%s: no shader on failure", name);
   CHECK(strstr(msg, what) != NULL, "%s: message \"%s\"", name, msg);
   sc_shader_destroy(s);
}

/* buf[0xffffffff] of an array of two storage buffers: refused cleanly. */
static void
test_descriptor(const struct round *r)
{
   refused(r, "desc_oob", SPV(desc_oob_spv), "descriptor");
}

/* Operands with fewer components than their instruction reads. */
static void
test_shapes(const struct round *r)
{
   if (r->simd_width != 1)   /* scalar code refuses subgroups before translating */
      refused(r, "shape_group", SPV(shape_group_spv), "components");
   refused(r, "shape_spec_op", SPV(shape_spec_op_spv), "components");
}

int
main(void)
{
   unsetenv("SHALE_SIMD_WIDTH");
   enum sc_result res = sc_compiler_create(&compiler);
   CHECK_EQ_INT(res, SC_SUCCESS);
   if (res != SC_SUCCESS)
      return check_finish();
   for (size_t i = 0; i < sizeof(rounds) / sizeof(rounds[0]); i++) {
      test_builtin(&rounds[i]);
      test_index(&rounds[i]);
      test_descriptor(&rounds[i]);
      test_shapes(&rounds[i]);
   }
   sc_compiler_destroy(compiler);
   return check_finish();
}
