/* Tessellation stage test: compiles GLSL tessellation control and
 * evaluation shaders, calls their shale_tcs_fn / shale_tes_fn directly with
 * hand-made patches (the control shader's outputs fed to the evaluation
 * shader, as the draw path will) at SIMD widths 1, 4, 8 and 16, and checks
 * every output word, the words left alone, and the interface metadata
 * (sc_shader.io.tcs / io.tes, local_size) against C references
 * (include/shale/shader_abi.h, "Tessellation"). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "float_bits.h"
#include "compiler/sc_compiler.h"
#include "rasterizer/sr_scene.h"
#include "rasterizer/sr_tess.h"
#include "util/su_thread_pool.h"

#include "shaders/draw_fs_frag_spv.h"
#include "shaders/draw_vs_vert_spv.h"
#include "shaders/tess_draw_geom_spv.h"
#include "shaders/tess_draw_tesc_spv.h"
#include "shaders/tess_xfb_tese_spv.h"
#include "shaders/tess_draw_tese_spv.h"

#include "shaders/tess_ctrl_tesc_spv.h"
#include "shaders/tess_eval_tese_spv.h"
#include "shaders/tess_hiloc_tesc_spv.h"
#include "shaders/tess_hiloc_tese_spv.h"
#include "shaders/tess_init_out_spv.h"
#include "shaders/tess_multi_ep_spv.h"
#include "shaders/tess_lines_tese_spv.h"
#include "shaders/tess_quads_tese_spv.h"
#include "shaders/tess_small_tesc_spv.h"

#define SPV(a) (a), (sizeof(a) / sizeof((a)[0]))
#define SENTINEL 0xdeadbeefu
#define VERTEX_WORDS (SHALE_SLOT_COUNT * 4)
#define PATCH_WORDS (SHALE_PATCH_SLOT_COUNT * 4)
#define USER(l) (SHALE_SLOT_USER + (l))

static struct sc_compiler *compiler;

static struct sc_shader *
compile(const uint32_t *words, size_t count, VkShaderStageFlagBits stage, uint32_t W)
{
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = "main",
      .stage = stage,
      .simd_width = W,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && s, "compile stage %#x (W=%u): %s: %s", stage, W,
         sc_result_string(r), msg);
   return r == SC_SUCCESS ? s : NULL;
}

/* A serialized and reloaded copy of s (destroys s): the pipeline cache's
 * path. */
static struct sc_shader *
reload(struct sc_shader *s)
{
   size_t size = 0;
   CHECK_EQ_INT(sc_shader_serialize(s, NULL, &size), SC_SUCCESS);
   void *blob = malloc(size);
   CHECK_EQ_INT(sc_shader_serialize(s, blob, &size), SC_SUCCESS);
   struct sc_shader *t = NULL;
   char msg[256] = "";
   enum sc_result r = sc_shader_deserialize(compiler, blob, size, &t, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && t, "deserialize stage %#x: %s", s->stage, msg);
   if (t) {
      CHECK(!memcmp(&t->io, &s->io, sizeof(s->io)), "io survives serialization");
      CHECK(t->stage == s->stage && t->shared_size == s->shared_size &&
               t->scratch_size == s->scratch_size &&
               !memcmp(t->local_size, s->local_size, sizeof(s->local_size)),
            "metadata survives serialization");
   }
   free(blob);
   sc_shader_destroy(s);
   return t;
}

static void *
aligned(size_t bytes)
{
   void *p = aligned_alloc(SHALE_MEMORY_ALIGN, (bytes + 63) & ~(size_t)63);
   memset(p, 0, bytes);
   return p;
}

static uint32_t *
words_filled(size_t n, uint32_t value)
{
   uint32_t *w = aligned(n * 4);
   for (size_t i = 0; i < n; i++)
      w[i] = value;
   return w;
}

static uint32_t *
vword(uint32_t *w, uint32_t v, uint32_t slot, uint32_t c)
{
   return &w[(v * SHALE_SLOT_COUNT + slot) * 4 + c];
}

/* The input patch: PATCH_IN vertices, Position and Location 0. */
#define PATCH_IN 3
#define PRIM_ID 7
static float
in_pos(uint32_t v, uint32_t c)
{
   return (float)(v * 10 + c) - 4.0f;
}

static float
in_loc0(uint32_t v, uint32_t c)
{
   return (float)(v * 100 + c * 3) + 0.5f;
}

/* tess_ctrl.tesc, computed in C. */
static float
ref_out_pos(uint32_t i, uint32_t c)
{
   return in_pos(i % PATCH_IN, c) + (float)i;
}

static float
ref_out_loc0(uint32_t i, uint32_t c)
{
   return in_loc0(i % PATCH_IN, c) * 2.0f + (float)PRIM_ID;
}

/* Runs tess_ctrl.tesc on the input patch; outputs and patch words are
 * SENTINEL where not written. */
static void
run_ctrl(const struct sc_shader *s, uint32_t *outputs, uint32_t *patch_out)
{
   uint32_t *inputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, 0);
   for (uint32_t v = 0; v < PATCH_IN; v++)
      for (uint32_t c = 0; c < 4; c++) {
         *vword(inputs, v, SHALE_SLOT_POSITION, c) = fbits(in_pos(v, c));
         *vword(inputs, v, USER(0), c) = fbits(in_loc0(v, c));
      }
   struct shale_tess_context ctx = { .view_index = 0 };
   struct shale_tcs_patch patch = {
      .patch_block = aligned(s->shared_size ? s->shared_size : 1),
      .scratch = aligned(s->scratch_size ? s->scratch_size : 1),
      .primitive_id = PRIM_ID,
      .patch_vertices = PATCH_IN,
      .inputs = inputs,
      .outputs = outputs,
      .patch_outputs = patch_out,
   };
   s->fn.tcs(&ctx, &patch);
   free(patch.patch_block);
   free(patch.scratch);
   free(inputs);
}

static void
test_control(uint32_t W, uint32_t **outputs_out, uint32_t **patch_out_out)
{
   struct sc_shader *s = compile(SPV(tess_ctrl_tesc_spv), VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, W);
   if (s && W == 8)
      s = reload(s);   /* and through a blob (pipeline cache data) */
   if (!s)
      return;
   const struct shale_tcs_info *io = &s->io.tcs;
   CHECK(s->local_size[0] == 20 && s->local_size[1] == 1 && s->local_size[2] == 1,
         "W=%u: workgroup %ux%ux%u", W, s->local_size[0], s->local_size[1], s->local_size[2]);
   CHECK_EQ_INT(io->output_vertices, 20);
   CHECK(io->modes.domain == 0 && io->modes.spacing == 0 && io->modes.vertex_order == 0 &&
            io->modes.point_mode == 0, "W=%u: control shader declares no generator mode", W);
   CHECK(io->inputs_read == ((1ull << SHALE_SLOT_POSITION) | (1ull << USER(0))),
         "W=%u: inputs read %#llx", W, (unsigned long long)io->inputs_read);
   CHECK(io->outputs_written ==
            ((1ull << SHALE_SLOT_POSITION) | (1ull << USER(0)) | (1ull << USER(1))),
         "W=%u: outputs written %#llx", W, (unsigned long long)io->outputs_written);
   CHECK(io->patch_written == ((1ull << SHALE_PATCH_SLOT_TESS_OUTER) |
                               (1ull << SHALE_PATCH_SLOT_TESS_INNER) |
                               (1ull << (SHALE_PATCH_SLOT_USER + 3))),
         "W=%u: patch words written %#llx", W, (unsigned long long)io->patch_written);
   CHECK(s->shared_size > 0, "W=%u: the outputs take a patch block", W);

   uint32_t *outputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, SENTINEL);
   uint32_t *patch_out = words_filled(PATCH_WORDS, SENTINEL);
   /* Twice, the second time over the first's outputs: the same words. */
   for (int pass = 0; pass < 2; pass++)
      run_ctrl(s, outputs, patch_out);
   int bad = 0;
   for (uint32_t v = 0; v < SHALE_TESS_MAX_PATCH_VERTICES; v++) {
      for (uint32_t slot = 0; slot < SHALE_SLOT_COUNT; slot++) {
         for (uint32_t c = 0; c < 4; c++) {
            uint32_t want = SENTINEL;
            if (v < 20 && slot == SHALE_SLOT_POSITION)
               want = fbits(ref_out_pos(v, c));
            else if (v < 20 && slot == USER(0))
               want = fbits(ref_out_loc0(v, c));
            else if (v < 20 && slot == USER(1) && c == 0)
               want = fbits(ref_out_loc0((v + 1) % 20, 0));
            else if (v < 20 && slot == USER(1))
               want = 0;   /* a uint at Component 0: the rest of the slot is not written */
            uint32_t got = *vword(outputs, v, slot, c);
            if (slot == USER(1) && c > 0 && v < 20)
               continue;   /* not written by the shader: not checked */
            if (got != want && bad++ < 8)
               CHECK(false, "W=%u: vertex %u slot %u.%u: %#x (%g), expected %#x (%g)", W, v, slot,
                     c, got, bitsf(got), want, bitsf(want));
         }
      }
   }
   CHECK(bad == 0, "W=%u: %d per-vertex words wrong", W, bad);
   static const float outer[4] = { 1, 2, 3, 4 }, inner[2] = { 5, 6 };
   for (uint32_t w = 0; w < PATCH_WORDS; w++) {
      uint32_t want = SENTINEL;
      uint32_t slot = w / 4, c = w % 4;
      if (slot == SHALE_PATCH_SLOT_TESS_OUTER)
         want = fbits(outer[c]);
      else if (slot == SHALE_PATCH_SLOT_TESS_INNER && c < 2)
         want = fbits(inner[c]);
      else if (slot == SHALE_PATCH_SLOT_TESS_INNER)
         continue;   /* TessLevelInner has two components */
      else if (slot == SHALE_PATCH_SLOT_USER + 3) {
         float sum = 0;
         for (uint32_t k = 0; k < 20; k++)
            sum += ref_out_loc0(k, c);
         want = fbits(sum);
      }
      CHECK(patch_out[w] == want, "W=%u: patch word %u: %#x (%g), expected %#x (%g)", W, w,
            patch_out[w], bitsf(patch_out[w]), want, bitsf(want));
   }
   sc_shader_destroy(s);
   *outputs_out = outputs;
   *patch_out_out = patch_out;
}

/* tess_small.tesc: one subgroup (3 invocations), a dynamically indexed
 * TessLevelOuter, push constants. */
static void
test_control_small(uint32_t W)
{
   struct sc_shader *s = compile(SPV(tess_small_tesc_spv), VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, W);
   if (!s)
      return;
   CHECK_EQ_INT(s->io.tcs.output_vertices, 3);
   CHECK(s->io.tcs.patch_written == 3, "W=%u: patch words written %#llx", W,
         (unsigned long long)s->io.tcs.patch_written);
   uint32_t *inputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, 0);
   for (uint32_t v = 0; v < 3; v++)
      for (uint32_t c = 0; c < 4; c++)
         *vword(inputs, v, SHALE_SLOT_POSITION, c) = fbits(in_pos(v, c));
   uint32_t *outputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, SENTINEL);
   uint32_t *patch_out = words_filled(PATCH_WORDS, SENTINEL);
   float push[SHALE_MAX_PUSH_CONSTANTS_SIZE / 4] = { 2.5f };
   struct shale_tess_context ctx = { .push_constants = push };
   struct shale_tcs_patch patch = {
      .patch_block = aligned(s->shared_size),
      .scratch = aligned(s->scratch_size ? s->scratch_size : 1),
      .patch_vertices = 3,
      .inputs = inputs,
      .outputs = outputs,
      .patch_outputs = patch_out,
   };
   s->fn.tcs(&ctx, &patch);
   for (uint32_t v = 0; v < 4; v++)
      for (uint32_t c = 0; c < 4; c++) {
         uint32_t want = v < 3 ? fbits(in_pos(v, c)) : SENTINEL;
         CHECK(*vword(outputs, v, SHALE_SLOT_POSITION, c) == want, "W=%u: vertex %u.%u", W, v, c);
      }
   /* Invocation i writes outer[i]; outer[3] and inner[1] stay as the
    * zeroed patch block had them. */
   static const float outer[4] = { 2.5f, 3.5f, 4.5f, 0.0f };
   for (uint32_t c = 0; c < 4; c++)
      CHECK(patch_out[c] == fbits(outer[c]), "W=%u: outer %u: %g", W, c, bitsf(patch_out[c]));
   CHECK(patch_out[4] == fbits(2.5f) && patch_out[5] == 0, "W=%u: inner %g %g", W,
         bitsf(patch_out[4]), bitsf(patch_out[5]));
   CHECK(patch_out[8] == SENTINEL, "W=%u: Patch Locations untouched", W);
   free(patch.patch_block);
   free(patch.scratch);
   free(inputs);
   free(outputs);
   free(patch_out);
   sc_shader_destroy(s);
}

/* tess_eval.tese on the control shader's outputs: 11 points, so batches
 * of W lanes with a partial last one. */
static void
test_evaluation(uint32_t W, const uint32_t *tcs_out, const uint32_t *tcs_patch)
{
   struct sc_shader *s = compile(SPV(tess_eval_tese_spv),
                                 VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   if (s && W == 8)
      s = reload(s);
   if (!s)
      return;
   const struct shale_tes_info *io = &s->io.tes;
   CHECK(io->modes.domain == SHALE_TESS_DOMAIN_TRIANGLES &&
            io->modes.spacing == SHALE_TESS_SPACING_FRACTIONAL_ODD &&
            io->modes.vertex_order == SHALE_TESS_ORDER_CW && io->modes.point_mode == 0,
         "W=%u: modes %u %u %u %u", W, io->modes.domain, io->modes.spacing,
         io->modes.vertex_order, io->modes.point_mode);
   CHECK(io->inputs_read == ((1ull << SHALE_SLOT_POSITION) | (1ull << USER(0))),
         "W=%u: inputs read %#llx", W, (unsigned long long)io->inputs_read);
   CHECK(io->patch_read == ((1ull << SHALE_PATCH_SLOT_TESS_OUTER) |
                            (1ull << SHALE_PATCH_SLOT_TESS_INNER) |
                            (1ull << (SHALE_PATCH_SLOT_USER + 3))),
         "W=%u: patch words read %#llx", W, (unsigned long long)io->patch_read);
   CHECK(io->out.outputs_written ==
            ((1ull << SHALE_SLOT_POSITION) | (1ull << USER(0)) | (1ull << USER(1))),
         "W=%u: outputs written %#llx", W, (unsigned long long)io->out.outputs_written);

   enum { POINTS = 11 };
   float coord[POINTS][3];
   for (uint32_t p = 0; p < POINTS; p++) {
      coord[p][0] = (float)(p % 5) / 8.0f;
      coord[p][1] = (float)(p / 5) / 4.0f;
      coord[p][2] = 1.0f - coord[p][0] - coord[p][1];
   }
   uint32_t *outputs = aligned((size_t)VERTEX_WORDS * W * 4);
   struct shale_tess_context ctx = { .view_index = 0 };
   int bad = 0;
   for (uint32_t first = 0; first < POINTS; first += W) {
      struct shale_tes_batch batch = {
         .count = POINTS - first < W ? POINTS - first : W,
         .primitive_id = 9,
         .patch_vertices = 20,
         .inputs = tcs_out,
         .patch_inputs = tcs_patch,
         .outputs = outputs,
      };
      for (uint32_t i = 0; i < batch.count; i++)
         for (uint32_t k = 0; k < 3; k++)
            batch.tess_coord[k][i] = coord[first + i][k];
      for (uint32_t i = 0; i < (size_t)VERTEX_WORDS * W; i++)
         outputs[i] = SENTINEL;
      s->fn.tes(&ctx, &batch);
      for (uint32_t i = 0; i < batch.count; i++) {
         const float *u = coord[first + i];
         for (uint32_t c = 0; c < 4; c++) {
            float pos = u[0] * bitsf(*vword((uint32_t *)tcs_out, 0, SHALE_SLOT_POSITION, c)) +
                        u[1] * bitsf(*vword((uint32_t *)tcs_out, 1, SHALE_SLOT_POSITION, c)) +
                        u[2] * bitsf(*vword((uint32_t *)tcs_out, 2, SHALE_SLOT_POSITION, c));
            const float extra[4] = { 2.0f, 5.0f, 4.0f, u[1] };
            float col = bitsf(*vword((uint32_t *)tcs_out, 19, USER(0), c)) * u[0] +
                        bitsf(tcs_patch[(SHALE_PATCH_SLOT_USER + 3) * 4 + c]) + extra[c];
            uint32_t want[3] = { fbits(pos), fbits(col), c == 0 ? 9u : c == 1 ? 20u : SENTINEL };
            uint32_t slots[3] = { SHALE_SLOT_POSITION, USER(0), USER(1) };
            for (int k = 0; k < 3; k++) {
               if (k == 2 && c > 1)
                  continue;   /* an ivec2: components 2 and 3 not written */
               uint32_t got = outputs[(slots[k] * 4 + c) * W + i];
               if (got != want[k] && bad++ < 8)
                  CHECK(false, "W=%u: point %u slot %u.%u: %#x (%g), expected %#x (%g)", W,
                        first + i, slots[k], c, got, bitsf(got), want[k], bitsf(want[k]));
            }
         }
      }
      /* A slot the shader does not write is left alone. */
      for (uint32_t i = 0; i < W; i++)
         if (outputs[(USER(5) * 4) * W + i] != SENTINEL)
            bad++;
   }
   CHECK(bad == 0, "W=%u: %d evaluation output words wrong", W, bad);
   free(outputs);
   sc_shader_destroy(s);
}

static void
test_modes(uint32_t W)
{
   struct sc_shader *s = compile(SPV(tess_quads_tese_spv),
                                 VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   if (s) {
      const struct shale_tess_modes *m = &s->io.tes.modes;
      CHECK(m->domain == SHALE_TESS_DOMAIN_QUADS && m->spacing == SHALE_TESS_SPACING_EQUAL &&
               m->vertex_order == SHALE_TESS_ORDER_CCW && m->point_mode == 1,
            "W=%u quads: %u %u %u %u", W, m->domain, m->spacing, m->vertex_order, m->point_mode);
      CHECK(s->io.tes.inputs_read == 0 && s->io.tes.patch_read == 0, "W=%u: nothing read", W);
      /* TessCoord per lane goes out as the position. */
      uint32_t *outputs = aligned((size_t)VERTEX_WORDS * W * 4);
      struct shale_tes_batch batch = { .count = W, .outputs = outputs };
      for (uint32_t i = 0; i < W; i++) {
         batch.tess_coord[0][i] = (float)i / 16.0f;
         batch.tess_coord[1][i] = 1.0f - (float)i / 32.0f;
         batch.tess_coord[2][i] = 0.0f;
      }
      struct shale_tess_context ctx = { .view_index = 0 };
      s->fn.tes(&ctx, &batch);
      for (uint32_t i = 0; i < W; i++) {
         const float want[4] = { batch.tess_coord[0][i], batch.tess_coord[1][i], 0.0f, 1.0f };
         for (uint32_t c = 0; c < 4; c++)
            CHECK(outputs[c * W + i] == fbits(want[c]), "W=%u lane %u position.%u: %g", W, i, c,
                  bitsf(outputs[c * W + i]));
      }
      free(outputs);
      sc_shader_destroy(s);
   }
   s = compile(SPV(tess_lines_tese_spv), VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   if (s) {
      const struct shale_tess_modes *m = &s->io.tes.modes;
      /* glslang declares VertexOrderCcw, GLSL's default, for isolines too. */
      CHECK(m->domain == SHALE_TESS_DOMAIN_ISOLINES &&
               m->spacing == SHALE_TESS_SPACING_FRACTIONAL_EVEN &&
               m->vertex_order == SHALE_TESS_ORDER_CCW && m->point_mode == 0,
            "W=%u isolines: %u %u %u %u", W, m->domain, m->spacing, m->vertex_order,
            m->point_mode);
      sc_shader_destroy(s);
   }
}

/* tess_hiloc.tesc and tess_hiloc.tese: the highest Locations the reported
 * limits allow (sd_physical_device.c: 64 per-vertex components, Locations
 * 0-15; 120 per-patch components, 0-29), the control shader's outputs fed
 * to the evaluation shader. Values are small multiples of 1/8, so every
 * product and sum is exact whatever the compiler fuses. */
static float
hi_in(uint32_t v, uint32_t c)
{
   return (float)(v * 8 + c) + 0.5f;
}

static void
test_high_locations(uint32_t W)
{
   struct sc_shader *tcs = compile(SPV(tess_hiloc_tesc_spv),
                                   VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, W);
   struct sc_shader *tes = compile(SPV(tess_hiloc_tese_spv),
                                   VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   if (!tcs || !tes) {
      sc_shader_destroy(tcs);
      sc_shader_destroy(tes);
      return;
   }
   const uint64_t patch_hi = 1ull << (SHALE_PATCH_SLOT_USER + 29);
   CHECK(tcs->io.tcs.inputs_read == 1ull << USER(15), "W=%u: control inputs read %#llx", W,
         (unsigned long long)tcs->io.tcs.inputs_read);
   CHECK(tcs->io.tcs.outputs_written == 1ull << USER(15), "W=%u: control outputs written %#llx",
         W, (unsigned long long)tcs->io.tcs.outputs_written);
   CHECK(tcs->io.tcs.patch_written == ((1ull << SHALE_PATCH_SLOT_TESS_OUTER) |
                                       (1ull << SHALE_PATCH_SLOT_TESS_INNER) | patch_hi),
         "W=%u: patch words written %#llx", W, (unsigned long long)tcs->io.tcs.patch_written);
   CHECK(tes->io.tes.inputs_read == 1ull << USER(15), "W=%u: evaluation inputs read %#llx", W,
         (unsigned long long)tes->io.tes.inputs_read);
   CHECK(tes->io.tes.patch_read == patch_hi, "W=%u: evaluation patch words read %#llx", W,
         (unsigned long long)tes->io.tes.patch_read);
   CHECK(tes->io.tes.out.outputs_written == ((1ull << SHALE_SLOT_POSITION) | (1ull << USER(15))),
         "W=%u: evaluation outputs written %#llx", W,
         (unsigned long long)tes->io.tes.out.outputs_written);

   /* The control shader on a patch of 4 vertices, every other word a
    * sentinel: Location 15 read, nothing else. */
   uint32_t *inputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, SENTINEL);
   for (uint32_t v = 0; v < 4; v++)
      for (uint32_t c = 0; c < 4; c++)
         *vword(inputs, v, USER(15), c) = fbits(hi_in(v, c));
   uint32_t *outputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, SENTINEL);
   uint32_t *patch_out = words_filled(PATCH_WORDS, SENTINEL);
   struct shale_tess_context ctx = { .view_index = 0 };
   struct shale_tcs_patch patch = {
      .patch_block = aligned(tcs->shared_size ? tcs->shared_size : 1),
      .scratch = aligned(tcs->scratch_size ? tcs->scratch_size : 1),
      .patch_vertices = 4,
      .inputs = inputs,
      .outputs = outputs,
      .patch_outputs = patch_out,
   };
   tcs->fn.tcs(&ctx, &patch);
   int bad = 0;
   for (uint32_t v = 0; v < SHALE_TESS_MAX_PATCH_VERTICES; v++)
      for (uint32_t slot = 0; slot < SHALE_SLOT_COUNT; slot++)
         for (uint32_t c = 0; c < 4; c++) {
            uint32_t want = SENTINEL;
            if (v < 4 && slot == USER(15))
               want = fbits(hi_in(v, c) * 3.0f + (float)v);
            uint32_t got = *vword(outputs, v, slot, c);
            if (got != want && bad++ < 8)
               CHECK(false, "W=%u: control vertex %u slot %u.%u: %#x (%g), expected %#x (%g)", W,
                     v, slot, c, got, bitsf(got), want, bitsf(want));
         }
   for (uint32_t w = 0; w < PATCH_WORDS; w++) {
      uint32_t slot = w / 4, c = w % 4, want = SENTINEL;
      if (slot == SHALE_PATCH_SLOT_TESS_OUTER || (slot == SHALE_PATCH_SLOT_TESS_INNER && c < 2))
         want = fbits(1.0f);
      else if (slot == SHALE_PATCH_SLOT_TESS_INNER)
         continue;   /* TessLevelInner has two components */
      else if (slot == SHALE_PATCH_SLOT_USER + 29)
         want = fbits(hi_in(0, c) + hi_in(3, c));
      if (patch_out[w] != want && bad++ < 8)
         CHECK(false, "W=%u: control patch word %u: %#x (%g), expected %#x (%g)", W, w,
               patch_out[w], bitsf(patch_out[w]), want, bitsf(want));
   }
   CHECK(bad == 0, "W=%u: %d control output words wrong at Locations 15 / patch 29", W, bad);

   /* The evaluation shader on those outputs: 11 points, a partial last
    * batch at widths 4, 8 and 16. */
   enum { POINTS = 11 };
   uint32_t *tes_out = aligned((size_t)VERTEX_WORDS * W * 4);
   bad = 0;
   for (uint32_t first = 0; first < POINTS; first += W) {
      struct shale_tes_batch batch = {
         .count = POINTS - first < W ? POINTS - first : W,
         .patch_vertices = 4,
         .inputs = outputs,
         .patch_inputs = patch_out,
         .outputs = tes_out,
      };
      for (uint32_t i = 0; i < batch.count; i++) {
         batch.tess_coord[0][i] = (float)((first + i) % 5) / 4.0f;
         batch.tess_coord[1][i] = (float)((first + i) / 5) / 2.0f;
         batch.tess_coord[2][i] = 0.0f;
      }
      for (uint32_t i = 0; i < (size_t)VERTEX_WORDS * W; i++)
         tes_out[i] = SENTINEL;
      tes->fn.tes(&ctx, &batch);
      for (uint32_t i = 0; i < W; i++)
         for (uint32_t slot = 0; slot < SHALE_SLOT_COUNT; slot++)
            for (uint32_t c = 0; c < 4; c++) {
               const float u = batch.tess_coord[0][i], v = batch.tess_coord[1][i];
               uint32_t want = SENTINEL;
               if (i >= batch.count)
                  continue;   /* lanes past the batch: not checked */
               if (slot == SHALE_SLOT_POSITION)
                  want = fbits(c == 0 ? u : c == 1 ? v : c == 2 ? 0.0f : 1.0f);
               else if (slot == USER(15))
                  want = fbits(bitsf(*vword(outputs, 1, USER(15), c)) * u +
                               bitsf(*vword(outputs, 3, USER(15), c)) * v +
                               bitsf(patch_out[(SHALE_PATCH_SLOT_USER + 29) * 4 + c]));
               else if (slot < SHALE_SLOT_USER)
                  continue;   /* built-in slots besides the position: not checked */
               uint32_t got = tes_out[(slot * 4 + c) * W + i];
               if (got != want && bad++ < 8)
                  CHECK(false, "W=%u: point %u slot %u.%u: %#x (%g), expected %#x (%g)", W,
                        first + i, slot, c, got, bitsf(got), want, bitsf(want));
            }
   }
   CHECK(bad == 0, "W=%u: %d evaluation output words wrong at Location 15", W, bad);
   free(tes_out);
   free(patch.patch_block);
   free(patch.scratch);
   free(inputs);
   free(outputs);
   free(patch_out);
   sc_shader_destroy(tcs);
   sc_shader_destroy(tes);
}

/* ---- sr_tess_run_patch: a patch through both stages and the generator ---- */

struct emitted {
   uint32_t W;
   uint32_t next;                /* points emitted so far */
   const float (*coord)[3];      /* the generator's points, from the test's own call */
   float pos[3][4];              /* the patch's control points */
   float outer1, inner0;
   uint32_t prim_id;
   int bad;
};

static void
check_batch(void *data, const uint32_t *o, uint32_t w, uint32_t first, uint32_t count)
{
   struct emitted *e = data;
   if (w != e->W || first != e->next || count == 0 || count > w) {
      e->bad++;
      return;
   }
   for (uint32_t i = 0; i < count; i++) {
      const float *u = e->coord[first + i];
      for (uint32_t c = 0; c < 4; c++) {
         float pos = u[0] * e->pos[0][c] + u[1] * e->pos[1][c] + u[2] * e->pos[2][c];
         float got = bitsf(o[(SHALE_SLOT_POSITION * 4 + c) * w + i]);
         /* Within a few ulps (the compiled code may fuse the multiply-adds). */
         float d = got - pos, m = 1e-5f * (1.0f + (pos < 0 ? -pos : pos));
         if (!(d <= m && d >= -m))
            e->bad++;
      }
      /* color = (TessLevelOuter[1], TessLevelInner[0], TessLevelOuter[3], v):
       * the control shader writes no Location, so those words are 0. */
      const uint32_t want[4] = { fbits(e->outer1), fbits(e->inner0), 0, fbits(u[1]) };
      for (uint32_t c = 0; c < 4; c++)
         if (o[(USER(0) * 4 + c) * w + i] != want[c])
            e->bad++;
      if (o[(USER(1) * 4) * w + i] != e->prim_id || o[(USER(1) * 4 + 1) * w + i] != 3)
         e->bad++;
   }
   e->next = first + count;
}

static void
test_run_patch(uint32_t W)
{
   struct sc_shader *tcs = compile(SPV(tess_small_tesc_spv), VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, W);
   struct sc_shader *tes = compile(SPV(tess_eval_tese_spv),
                                   VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   if (!tcs || !tes) {
      sc_shader_destroy(tcs);
      sc_shader_destroy(tes);
      return;
   }
   struct sr_tess_stages st = {
      .tcs = tcs->fn.tcs,
      .tcs_io = &tcs->io.tcs,
      .tcs_block_size = tcs->shared_size,
      .tcs_scratch_size = tcs->scratch_size,
      .tes = tes->fn.tes,
      .tes_io = &tes->io.tes,
      .tes_width = W,
      .patch_vertices = 3,
   };
   CHECK(sr_tess_merge_modes(&tcs->io.tcs.modes, &tes->io.tes.modes, false, &st.mode),
         "W=%u: modes merge", W);
   CHECK(st.mode.domain == SR_TESS_TRIANGLES && st.mode.spacing == SR_TESS_FRACTIONAL_ODD &&
            !st.mode.ccw && !st.mode.point_mode, "W=%u: merged modes", W);
   struct sr_tess_worker wk;
   CHECK_EQ_INT(sr_tess_worker_init(&wk, &st, NULL), VK_SUCCESS);
   uint32_t *inputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS, 0);
   struct emitted e = { .W = W };
   for (uint32_t v = 0; v < 3; v++)
      for (uint32_t c = 0; c < 4; c++) {
         e.pos[v][c] = in_pos(v, c);
         *vword(inputs, v, SHALE_SLOT_POSITION, c) = fbits(in_pos(v, c));
      }
   float push[SHALE_MAX_PUSH_CONSTANTS_SIZE / 4] = { 0 };
   struct shale_tess_context ctx = { .push_constants = push };
   /* Levels (l, l + 1, l + 2) outside, l inside: fractional, integer, a
    * culled patch (l = 0), the maximum and past it. */
   static const float levels[] = { 2.5f, 1.0f, 4.0f, 0.0f, 7.25f, 63.0f, 100.0f };
   for (unsigned li = 0; li < sizeof(levels) / sizeof(levels[0]); li++) {
      push[0] = levels[li];
      struct sr_tess_params p = st.mode;
      p.outer[0] = levels[li], p.outer[1] = levels[li] + 1, p.outer[2] = levels[li] + 2;
      p.inner[0] = levels[li];
      struct sr_tess_counts want;
      bool drawn = sr_tess_count(&p, &want);
      float (*coord)[3] = malloc(((size_t)want.vertices + 1) * sizeof(*coord));
      uint32_t *index = malloc(((size_t)want.primitives * want.prim_verts + 1) * 4);
      if (drawn)
         sr_tess_generate(&p, coord, index);
      e.next = 0;
      e.coord = (const float (*)[3])coord;
      e.outer1 = levels[li] + 1, e.inner0 = levels[li];
      e.prim_id = 40 + li;
      e.bad = 0;
      struct sr_tess_counts got;
      sr_tess_run_patch(&st, &wk, &ctx, inputs, e.prim_id, check_batch, &e, &got);
      CHECK(got.vertices == want.vertices && got.primitives == want.primitives &&
               got.prim_verts == want.prim_verts,
            "W=%u level %g: %u points %u primitives, expected %u %u", W, levels[li], got.vertices,
            got.primitives, want.vertices, want.primitives);
      CHECK(e.bad == 0 && e.next == want.vertices, "W=%u level %g: %d wrong words, %u of %u points",
            W, levels[li], e.bad, e.next, want.vertices);
      if (drawn)
         CHECK(!memcmp(wk.index, index, (size_t)want.primitives * want.prim_verts * 4),
               "W=%u level %g: the generator's indices", W, levels[li]);
      free(coord);
      free(index);
   }
   sr_tess_worker_finish(&wk);
   free(inputs);
   sc_shader_destroy(tcs);
   sc_shader_destroy(tes);
}

static void
test_merge(void)
{
   struct shale_tess_modes none = { 0 }, tri = { SHALE_TESS_DOMAIN_TRIANGLES, 0, 0, 0 };
   struct shale_tess_modes rest = { 0, SHALE_TESS_SPACING_EQUAL, SHALE_TESS_ORDER_CW, 1 };
   struct shale_tess_modes quads = { SHALE_TESS_DOMAIN_QUADS, SHALE_TESS_SPACING_EQUAL, 0, 0 };
   struct sr_tess_params p;
   CHECK(sr_tess_merge_modes(&tri, &rest, true, &p) && p.domain == SR_TESS_TRIANGLES &&
            p.spacing == SR_TESS_EQUAL && !p.ccw && p.point_mode && p.lower_left,
         "modes split between the stages merge");
   CHECK(sr_tess_merge_modes(&quads, &none, false, &p) && p.domain == SR_TESS_QUADS && p.ccw,
         "counter-clockwise unless declared");
   CHECK(!sr_tess_merge_modes(&tri, &quads, false, &p), "disagreeing domains refused");
   CHECK(!sr_tess_merge_modes(&tri, &none, false, &p), "no spacing refused");
   CHECK(!sr_tess_merge_modes(&none, &none, false, &p), "no domain refused");
}

/* ---- A tessellated draw through the rasterizer ---- */

#define FBW 64
#define FBH 48

struct vtx {
   float pos[4];
   float color[4];
};

/* Draws `count` vertices of v (through `indices` when not NULL: 32-bit
 * indices into nv vertices), `instances` times, with st into a cleared
 * framebuffer. */
static struct sr_stats last_stats;

static float *
draw_fb_xfb(struct sr_context *ctx, const struct sr_draw_state *st, const struct vtx *v, uint32_t nv,
            const uint32_t *indices, uint32_t count, uint32_t instances, struct sr_xfb *xfb)
{
   float *color = malloc(sizeof(float) * 4 * FBW * FBH);
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.width = FBW;
   fb.height = FBH;
   fb.layers = 1;
   fb.samples = 1;
   fb.color_count = 1;
   fb.color[0] = (struct sr_surface){
      .base = (uint8_t *)color, .format = su_format_desc(VK_FORMAT_R32G32B32A32_SFLOAT),
      .vk_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = FBW, .height = FBH, .layers = 1,
      .samples = 1, .row_pitch = FBW * 16, .layer_pitch = FBW * FBH * 16};
   struct sr_draw_bindings b;
   memset(&b, 0, sizeof(b));
   b.vertex_buffers[0] = (struct sr_vertex_buffer){(const uint8_t *)v, nv * sizeof(*v)};
   if (indices) {
      b.index_base = (const uint8_t *)indices;
      b.index_size = count * sizeof(uint32_t);
      b.index_type = VK_INDEX_TYPE_UINT32;
   }
   const float discard_below = -1.0f;   /* draw_fs discards nothing */
   memcpy(b.push_constants, &discard_below, 4);
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(ctx, &fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   VkClearValue cc = {.color.float32 = {-1, -1, -1, -1}};
   CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) == VK_SUCCESS,
         "clear");
   memset(&last_stats, 0, sizeof(last_stats));
   struct sr_draw d = {.indexed = indices != NULL, .count = count, .instance_count = instances,
                       .xfb = xfb, .stats = &last_stats};
   CHECK(sr_scene_draw(scene, st, &b, &d) == VK_SUCCESS, "draw");
   sr_scene_end(scene);
   return color;
}

static float *
draw_fb(struct sr_context *ctx, const struct sr_draw_state *st, const struct vtx *v, uint32_t nv,
        const uint32_t *indices, uint32_t count, uint32_t instances)
{
   return draw_fb_xfb(ctx, st, v, nv, indices, count, instances, NULL);
}

/* Three patches of 4 control points (and one vertex left over, dropped):
 * fractional levels, all levels 1, and a culled patch. The tessellated
 * draw must equal, bit for bit, a triangle-list draw of the triangles the
 * generator makes, with the evaluation shader's positions and colours
 * computed here (exact: the generator's coordinates are multiples of
 * 2^-16). */
static void
test_draw(uint32_t W, unsigned threads)
{
   struct sc_shader *vs = compile(SPV(draw_vs_vert_spv), VK_SHADER_STAGE_VERTEX_BIT, W);
   struct sc_shader *fs = compile(SPV(draw_fs_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   struct sc_shader *tcs = compile(SPV(tess_draw_tesc_spv), VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, W);
   struct sc_shader *tes = compile(SPV(tess_draw_tese_spv),
                                   VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   struct sc_shader *gs = compile(SPV(tess_draw_geom_spv), VK_SHADER_STAGE_GEOMETRY_BIT, W);
   struct sc_shader *tx = compile(SPV(tess_xfb_tese_spv),
                                  VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, W);
   struct su_thread_pool *pool = NULL;
   struct sr_context *ctx = NULL;
   if (!vs || !fs || !tcs || !tes || !gs || !tx || !su_thread_pool_create(threads, &pool) ||
       sr_context_create(pool, NULL, &ctx) != VK_SUCCESS) {
      CHECK(false, "setup failed (W=%u)", W);
      goto out;
   }
   struct sr_draw_state st;
   memset(&st, 0, sizeof(st));
   st.vs = vs->fn.vs;
   st.fs = fs->fn.fs;
   st.vs_width = st.fs_width = W;
   st.vs_io = vs->io.vs;
   st.fs_io = fs->io.fs;
   st.binding_mask = 1;
   st.bindings[0] = (struct sr_vertex_binding){sizeof(struct vtx), VK_VERTEX_INPUT_RATE_VERTEX, 1};
   st.attribute_count = 2;
   st.attributes[0] = (struct sr_vertex_attribute){0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0};
   st.attributes[1] = (struct sr_vertex_attribute){1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16};
   st.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
   st.viewports[0] = (VkViewport){0, 0, FBW, FBH, 0, 1};
   st.scissors[0] = (VkRect2D){{0, 0}, {FBW, FBH}};
   st.polygon_mode = VK_POLYGON_MODE_FILL;
   st.cull_mode = VK_CULL_MODE_NONE;
   st.front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE;
   st.line_width = 1.0f;
   st.samples = 1;
   st.sample_mask = ~0u;
   st.depth_compare = VK_COMPARE_OP_ALWAYS;
   st.blend[0].write_mask = 0xf;

   /* The control points: colours carry the levels (vertex 0: outer,
    * vertex 1: inner) and the patch's blue (vertex 2). */
   static const float levels[3][6] = {
      { 3.0f, 2.5f, 4.0f, 1.5f, 3.0f, 5.0f },
      { 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f },
      { 0.0f, 2.0f, 2.0f, 2.0f, 2.0f, 2.0f },
   };
   struct vtx in[13];
   memset(in, 0, sizeof(in));
   for (uint32_t p = 0; p < 3; p++) {
      struct vtx *q = &in[p * 4];
      memcpy(q[0].color, levels[p], 16);
      q[1].color[0] = levels[p][4], q[1].color[1] = levels[p][5];
      q[2].color[2] = 0.25f + 0.5f * (float)p;
      for (uint32_t v = 0; v < 4; v++)
         q[v].pos[3] = 1.0f;
   }

   /* The reference: the generator's triangles as a list. */
   struct vtx *ref = malloc(sizeof(struct vtx) * 3 * 8192 * 2);
   uint32_t nref = 0;
   for (uint32_t p = 0; p < 3; p++) {
      struct sr_tess_params prm = { .domain = SR_TESS_QUADS, .spacing = SR_TESS_FRACTIONAL_ODD,
                                    .ccw = true };
      memcpy(prm.outer, levels[p], 16);
      prm.inner[0] = levels[p][4], prm.inner[1] = levels[p][5];
      struct sr_tess_patch tp;
      CHECK_EQ_INT(sr_tess_patch_build(&prm, NULL, &tp), VK_SUCCESS);
      for (uint32_t k = 0; k < tp.n.primitives * tp.n.prim_verts; k++) {
         const float *uvw = tp.coord[tp.index[k]];
         struct vtx *r = &ref[nref++];
         r->pos[0] = (uvw[0] - 1.0f) + (float)p;
         r->pos[1] = 2.0f * uvw[1] - 1.0f;
         r->pos[2] = 0.5f;
         r->pos[3] = 1.0f;
         r->color[0] = uvw[0];
         r->color[1] = uvw[1];
         r->color[2] = in[p * 4 + 2].color[2];
         r->color[3] = (float)(p + 1);
      }
      if (p == 2)
         CHECK(tp.n.primitives == 0, "patch 2 is culled");
      sr_tess_patch_free(&tp, NULL);
   }
   float *want = draw_fb(ctx, &st, ref, nref, NULL, nref, 1);

   struct sr_draw_state ts = st;
   ts.topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;
   ts.tcs = tcs->fn.tcs;
   ts.tes = tes->fn.tes;
   ts.tcs_io = tcs->io.tcs;
   ts.tes_io = tes->io.tes;
   ts.tcs_block_size = tcs->shared_size;
   ts.tcs_scratch_size = tcs->scratch_size;
   ts.tes_width = W;
   ts.patch_control_points = 4;
   float *got = draw_fb(ctx, &ts, in, 13, NULL, 13, 1);
   /* Pipeline statistics: 13 vertices, 3 patches (the leftover vertex
    * none), each patch's control shader, every generated point once, the
    * generated triangles entering clipping. */
   uint64_t points = 0;
   for (uint32_t p = 0; p < 3; p++) {
      struct sr_tess_params prm = { .domain = SR_TESS_QUADS, .spacing = SR_TESS_FRACTIONAL_ODD,
                                    .ccw = true };
      memcpy(prm.outer, levels[p], 16);
      prm.inner[0] = levels[p][4], prm.inner[1] = levels[p][5];
      struct sr_tess_counts c;
      sr_tess_count(&prm, &c);
      points += c.vertices;
   }
   CHECK(last_stats.ia_vertices == 13 && last_stats.ia_primitives == 3 &&
            last_stats.vs_invocations == 13 && last_stats.tcs_patches == 3 &&
            last_stats.tes_invocations == points && last_stats.clip_invocations == nref / 3,
         "W=%u: statistics: ia %llu/%llu vs %llu tcs %llu tes %llu (of %llu) clip %llu (of %u)", W,
         (unsigned long long)last_stats.ia_vertices, (unsigned long long)last_stats.ia_primitives,
         (unsigned long long)last_stats.vs_invocations, (unsigned long long)last_stats.tcs_patches,
         (unsigned long long)last_stats.tes_invocations, (unsigned long long)points,
         (unsigned long long)last_stats.clip_invocations, nref / 3);
   /* The same patches through indices into the vertices stored in
    * reverse, in two instances: PrimitiveId restarts with each instance,
    * so the second draws over the first with the same values (had it gone
    * on counting, patches 3 and 4 would land where 0 and 1 did, with other
    * alphas). */
   struct vtx rev[13];
   uint32_t idx[13];
   for (uint32_t i = 0; i < 13; i++) {
      rev[i] = in[12 - i];
      idx[i] = 12 - i;
   }
   float *got2 = draw_fb(ctx, &ts, rev, 13, idx, 13, 2);
   /* A geometry shader after tessellation passing the triangles on. */
   struct sr_draw_state tg = ts;
   tg.gs = gs->fn.gs;
   tg.gs_width = W;
   tg.gs_io = gs->io.gs;
   float *got3 = draw_fb(ctx, &tg, in, 13, NULL, 13, 1);
   int drawn = 0, differ = 0, differ2 = 0, differ3 = 0;
   for (uint32_t i = 0; i < FBW * FBH; i++) {
      drawn += want[i * 4] != -1.0f;
      differ += memcmp(&want[i * 4], &got[i * 4], 16) != 0;
      differ2 += memcmp(&want[i * 4], &got2[i * 4], 16) != 0;
      differ3 += memcmp(&want[i * 4], &got3[i * 4], 16) != 0;
   }
   CHECK(differ3 == 0, "W=%u, %u threads: with a geometry shader: %d pixels differ", W, threads,
         differ3);
   /* Transform feedback of the evaluation shader's colour, rasterizer
    * discard on: every generated triangle's vertices in order, the
    * reference's colours (the same expression), patch after patch. */
   struct sr_draw_state tx_st = ts;
   tx_st.tes = tx->fn.tes;
   tx_st.tes_io = tx->io.tes;
   tx_st.rasterizer_discard = true;
   CHECK(tx->io.tes.out.xfb_count == 4 && tx->io.tes.out.xfb_stride[0] == 16,
         "W=%u: evaluation shader captures %u components", W, tx->io.tes.out.xfb_count);
   const size_t xfb_bytes = (size_t)(nref + 3) * 16;
   float *cap = malloc(xfb_bytes);
   memset(cap, 0xff, xfb_bytes);
   struct sr_xfb xfb = {.base = {(uint8_t *)cap}, .size = {xfb_bytes}};
   free(draw_fb_xfb(ctx, &tx_st, in, 13, NULL, 13, 1, &xfb));
   CHECK(xfb.offset[0] == (uint64_t)nref * 16 && xfb.primitives_written == nref / 3 &&
            xfb.primitives_needed == nref / 3,
         "W=%u: captured %llu bytes, %llu primitives of %u", W,
         (unsigned long long)xfb.offset[0], (unsigned long long)xfb.primitives_written, nref / 3);
   int xbad = 0;
   for (uint32_t k = 0; k < nref; k++)
      xbad += memcmp(&cap[k * 4], ref[k].color, 16) != 0;
   CHECK(xbad == 0, "W=%u: %d captured vertices wrong", W, xbad);
   free(cap);
   CHECK(differ2 == 0, "W=%u, %u threads: indexed, 2 instances: %d pixels differ", W, threads,
         differ2);
   CHECK(drawn > FBW * FBH / 2, "W=%u: the reference covers %d pixels", W, drawn);
   CHECK(differ == 0, "W=%u, %u threads: %d of %d pixels differ from the triangle list", W,
         threads, differ, FBW * FBH);
   fprintf(stderr, "tessellated draw W=%u, %u threads: %u triangles, %d pixels drawn, %d differ\n",
           W, threads, nref / 3, drawn, differ);
   free(ref);
   free(want);
   free(got);
   free(got2);
   free(got3);
out:
   if (ctx)
      sr_context_destroy(ctx);
   if (pool)
      su_thread_pool_destroy(pool);
   sc_shader_destroy(vs);
   sc_shader_destroy(fs);
   sc_shader_destroy(tcs);
   sc_shader_destroy(tes);
   sc_shader_destroy(gs);
   sc_shader_destroy(tx);
}

/* Mutated tessellation modules: any result but a crash, a message with
 * every failure (bad input gets an error code). */
/* Module m (count words) with its first OpExecutionMode OutputVertices
 * removed (drop) or with OpExecutionMode <entry> OutputVertices n inserted
 * before its first OpExecutionMode (!drop); *out_count words, malloc'd. */
static uint32_t *
edit_output_vertices(const uint32_t *m, size_t count, bool drop, uint32_t n, size_t *out_count)
{
   uint32_t *o = malloc((count + 4) * sizeof(uint32_t));
   size_t k = 0;
   bool done = false;
   for (size_t i = 0; i < count;) {
      const uint32_t len = i < 5 ? 1 : m[i] >> 16, op = i < 5 ? 0 : m[i] & 0xffff;
      const bool mode = op == 16 /* OpExecutionMode */;
      if (!done && mode && drop && m[i + 2] == 26 /* OutputVertices */) {
         done = true;
         i += len;
         continue;
      }
      if (!done && mode && !drop) {
         o[k++] = 4u << 16 | 16, o[k++] = m[i + 1], o[k++] = 26, o[k++] = n;
         done = true;
      }
      for (uint32_t w = 0; w < len; w++)
         o[k++] = m[i + w];
      i += len;
   }
   CHECK(done, "OpExecutionMode found");
   *out_count = k;
   return o;
}

/* OutputVertices in either stage (Vulkan allows both): an evaluation
 * shader declaring it compiles with the same interface as without; a
 * control shader leaving it to the evaluation shader takes the one the
 * pipeline read from that module (sc_compile_info.tess_output_vertices,
 * which sc_tess_output_vertices finds in the words) as its workgroup, and
 * is refused as invalid, with a message, where neither declares it. */
static void
output_vertices_either_stage(void)
{
   size_t n = 0;
   uint32_t *tes = edit_output_vertices(SPV(tess_eval_tese_spv), false, 3, &n);
   struct sc_shader *with = compile(tes, n, VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, 4);
   struct sc_shader *without = compile(SPV(tess_eval_tese_spv),
                                       VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, 4);
   CHECK(with && without && !memcmp(&with->io.tes, &without->io.tes, sizeof(with->io.tes)),
         "an evaluation shader's OutputVertices accepted, interface unchanged");
   sc_shader_destroy(with);
   sc_shader_destroy(without);
   free(tes);
   uint32_t *tes3 = edit_output_vertices(SPV(tess_eval_tese_spv), false, 3, &n);
   CHECK(sc_tess_output_vertices(tes3, n, "main") == 3 &&
            sc_tess_output_vertices(tes3, n, "other") == 0 &&
            sc_tess_output_vertices(SPV(tess_eval_tese_spv), "main") == 0 &&
            sc_tess_output_vertices(tes3, 3, "main") == 0,
         "sc_tess_output_vertices: the evaluation entry point's OutputVertices, else 0");
   free(tes3);
   uint32_t *tcs = edit_output_vertices(SPV(tess_small_tesc_spv), true, 0, &n);
   struct sc_compile_info info = {
      .words = tcs, .word_count = n, .entry_point = "main",
      .stage = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, .simd_width = 4,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_ERROR_INVALID_SPIRV && !s && strstr(msg, "OutputVertices"),
         "a control shader without OutputVertices in either stage refused: %s: %s",
         sc_result_string(r), msg);
   info.tess_output_vertices = 3;
   msg[0] = '\0';
   r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && s && s->io.tcs.output_vertices == 3 && s->local_size[0] == 3,
         "a control shader taking the evaluation shader's OutputVertices: %s: %s",
         sc_result_string(r), msg);
   if (s)
      sc_shader_destroy(s);
   s = NULL;
   info.tess_output_vertices = 0;
   free(tcs);
   /* A control shader's patch Output with an initializer it never
    * stores: the initializer is what the patch hands on. */
   info.words = tess_init_out_spv;
   info.word_count = sizeof(tess_init_out_spv) / 4;
   msg[0] = '\0';
   r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && s, "an initialized control-shader Output: %s: %s",
         sc_result_string(r), msg);
   if (s) {
      uint32_t *outputs = words_filled((size_t)SHALE_TESS_MAX_PATCH_VERTICES * VERTEX_WORDS,
                                       SENTINEL);
      uint32_t *patch_out = words_filled(PATCH_WORDS, SENTINEL);
      run_ctrl(s, outputs, patch_out);
      bool ok = s->io.tcs.patch_written >> SHALE_PATCH_SLOT_USER & 1;
      for (uint32_t c = 0; c < 4; c++)
         ok &= patch_out[SHALE_PATCH_SLOT_USER * 4 + c] == fbits(1.0f);
      CHECK(ok, "the initialized patch Output holds its initializer (1, 1, 1, 1)");
      free(outputs);
      free(patch_out);
      sc_shader_destroy(s);
      s = NULL;
   }
   /* Another entry point's initialized Output in the same
    * module is not the control shader's. */
   info.words = tess_multi_ep_spv;
   info.word_count = sizeof(tess_multi_ep_spv) / 4;
   msg[0] = '\0';
   s = NULL;
   r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && s, "a control shader beside a vertex entry point's initialized "
         "Output: %s: %s", sc_result_string(r), msg);
   if (s)
      sc_shader_destroy(s);
}

static void
test_mutants(void)
{
   static uint32_t mutant[sizeof(tess_ctrl_tesc_spv) / 4 + sizeof(tess_eval_tese_spv) / 4];
   uint32_t seed = 4242;
   int compiled = 0, failed = 0;
   for (int t = 0; t < 120; t++) {
      const uint32_t *src = t & 1 ? tess_eval_tese_spv : tess_ctrl_tesc_spv;
      size_t n = t & 1 ? sizeof(tess_eval_tese_spv) / 4 : sizeof(tess_ctrl_tesc_spv) / 4;
      memcpy(mutant, src, n * 4);
      for (int k = 0; k < 2; k++) {
         seed = seed * 1103515245u + 12345u;
         uint32_t w = 5 + (seed >> 8) % (uint32_t)(n - 5);
         seed = seed * 1103515245u + 12345u;
         mutant[w] = (seed >> 4) & 1 ? mutant[w] ^ (1u << (seed % 32)) : (seed >> 8) % 64;
      }
      struct sc_compile_info info = {
         .words = mutant,
         .word_count = n,
         .entry_point = "main",
         .stage = t & 1 ? VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT
                        : VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
         .simd_width = 4,
      };
      char msg[256] = "";
      struct sc_shader *s = NULL;
      enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
      if (r == SC_SUCCESS) {
         compiled++;
         sc_shader_destroy(s);
      } else {
         failed++;
         CHECK(msg[0] != '\0' && s == NULL, "mutant %d: a message, no shader", t);
      }
   }
   CHECK(compiled + failed == 120, "every mutant answered");
   fprintf(stderr, "mutated tessellation modules: %d compiled, %d refused\n", compiled, failed);
   /* A control shader compiled as an evaluation shader (no entry point of
    * that stage) is refused with a message. */
   struct sc_compile_info info = {
      .words = tess_ctrl_tesc_spv,
      .word_count = sizeof(tess_ctrl_tesc_spv) / 4,
      .entry_point = "main",
      .stage = VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
      .simd_width = 4,
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   CHECK(sc_compile(compiler, &info, &s, msg, sizeof(msg)) != SC_SUCCESS && !s && msg[0],
         "wrong stage refused: %s", msg);
   output_vertices_either_stage();
}

int
main(void)
{
   if (sc_compiler_create(&compiler) != SC_SUCCESS) {
      fprintf(stderr, "no compiler\n");
      return 1;
   }
   static const uint32_t widths[] = { 1, 4, 8, 16 };
   for (unsigned w = 0; w < 4; w++) {
      uint32_t *out = NULL, *patch = NULL;
      test_control(widths[w], &out, &patch);
      test_control_small(widths[w]);
      if (out && patch)
         test_evaluation(widths[w], out, patch);
      test_modes(widths[w]);
      test_run_patch(widths[w]);
      test_high_locations(widths[w]);
      free(out);
      free(patch);
   }
   test_merge();
   test_mutants();
   test_draw(4, 1);
   test_draw(8, 2);
   test_draw(16, 3);
   sc_compiler_destroy(compiler);
   return check_finish();
}
