/* Vertex and fragment stage test: compiles GLSL vertex and fragment shaders,
 * calls their shale_vs_fn / shale_fs_fn directly with hand-made batches,
 * planes and quads at SIMD widths 4, 8 and 16 (vertex shaders also as
 * scalar code) and checks every output and the interface metadata
 * (sc_shader.io) against C references. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "float_bits.h"
#include "compiler/sc_compiler.h"
#include "rasterizer/sr_sample.h"

#include "shaders/stage_deriv_frag_spv.h"
#include "shaders/stage_double_vert_spv.h"
#include "shaders/stage_fs_demote_frag_spv.h"
#include "shaders/stage_fs_frag_spv.h"
#include "shaders/stage_fs_sample_frag_spv.h"
#include "shaders/stage_fs_xfb_spv.h"
#include "shaders/stage_geom_geom_spv.h"
#include "shaders/stage_init_out_spv.h"
#include "shaders/stage_minimal_vert_spv.h"
#include "shaders/stage_sink_frag_spv.h"
#include "shaders/stage_unused_frag_spv.h"
#include "shaders/stage_vs_vert_spv.h"
#include "shaders/stage_xfb_bad_spv.h"
#include "shaders/stage_xfb_vert_spv.h"

#define SPV(a) (a), (sizeof(a) / sizeof((a)[0]))
#define SENTINEL 0xdeadbeefu

static struct sc_compiler *compiler;

/* What the tests compile: `words` (entry point main) for `stage` at SIMD
 * width W, no flags; callers add flags or masks. */
static struct sc_compile_info
compile_info(const uint32_t *words, size_t count, VkShaderStageFlagBits stage, uint32_t W)
{
   return (struct sc_compile_info){
      .words = words,
      .word_count = count,
      .entry_point = "main",
      .stage = stage,
      .simd_width = W,
   };
}

static enum sc_result
try_compile(const uint32_t *words, size_t count, VkShaderStageFlagBits stage, uint32_t W,
            struct sc_shader **out, char *msg, size_t msg_size)
{
   struct sc_compile_info info = compile_info(words, count, stage, W);
   return sc_compile(compiler, &info, out, msg, msg_size);
}

static struct sc_shader *
compile(const uint32_t *words, size_t count, VkShaderStageFlagBits stage, uint32_t W)
{
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = try_compile(words, count, stage, W, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "compile (W=%u): %s: %s", W, sc_result_string(r), msg);
   if (s)
      CHECK_EQ_INT(s->simd_width, W);
   return r == SC_SUCCESS ? s : NULL;
}

/* A serialized and reloaded copy of s (destroys s). */
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
   CHECK(r == SC_SUCCESS, "deserialize: %s", msg);
   if (t) {
      CHECK(!memcmp(&t->io, &s->io, sizeof(s->io)), "io survives serialization");
      CHECK_EQ_INT(t->stage, s->stage);
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

/* ------------------------------------------------------------------------ */
/* Vertex                                                                    */
/* ------------------------------------------------------------------------ */

struct vs_lane {
   float pos[4];
   int32_t i[2];
   uint32_t u[3];
   float f;
   float m[4];
};

static struct vs_lane
vs_lane_input(uint32_t i)
{
   struct vs_lane l = {
      .pos = { (float)i + 1.0f, -2.0f * (float)i, 0.5f * (float)i, 1.0f },
      .i = { (int32_t)i - 3, (int32_t)(i % 3) - 1 },
      .u = { i, 2 * i, 100 + i },
      .f = 0.25f * (float)i,
      .m = { (float)i, 1.0f, 2.0f, -(float)i },
   };
   return l;
}

static void
check_vs_io(const struct sc_shader *s)
{
   const struct shale_vs_info *io = &s->io.vs;
   CHECK_EQ_INT(io->inputs_read, 0x3f);
   static const uint8_t types[6] = { 0, 1, 2, 0, 0, 0 };
   for (int l = 0; l < 6; l++)
      CHECK(io->input_type[l] == types[l], "input_type[%d] = %u", l, io->input_type[l]);
   uint64_t want = (1ull << SHALE_SLOT_POSITION) | (1ull << SHALE_SLOT_POINT_SIZE) |
                   (1ull << SHALE_SLOT_CLIP_CULL0);
   for (int l = 0; l <= 9; l++)
      want |= 1ull << (SHALE_SLOT_USER + l);
   CHECK(io->outputs_written == want, "outputs_written %#llx, want %#llx",
         (unsigned long long)io->outputs_written, (unsigned long long)want);
   CHECK_EQ_INT(io->clip_distance_count, 2);
   CHECK_EQ_INT(io->cull_distance_count, 1);
   CHECK_EQ_INT(io->writes_point_size, 1);
}

/* Runs stage_vs on `count` vertices and checks everything it writes. */
static void
run_vs(const struct sc_shader *s, uint32_t W, uint32_t count)
{
   uint32_t *in = aligned(SHALE_MAX_LOCATIONS * 4 * W * 4);
   uint32_t *out = aligned(SHALE_SLOT_COUNT * 4 * W * 4);
   for (size_t k = 0; k < SHALE_SLOT_COUNT * 4 * W; k++)
      out[k] = SENTINEL;
#define IN(l, c, i) in[((l) * 4 + (c)) * W + (i)]
#define OUT(sl, c, i) out[((sl) * 4 + (c)) * W + (i)]
   for (uint32_t i = 0; i < W; i++) {
      struct vs_lane l = vs_lane_input(i);
      for (int c = 0; c < 4; c++)
         IN(0, c, i) = fbits(l.pos[c]);
      IN(1, 0, i) = (uint32_t)l.i[0];
      IN(1, 1, i) = (uint32_t)l.i[1];
      for (int c = 0; c < 3; c++)
         IN(2, c, i) = l.u[c];
      IN(3, 1, i) = fbits(l.f);
      for (int c = 0; c < 2; c++) {
         IN(4, c, i) = fbits(l.m[c]);
         IN(5, c, i) = fbits(l.m[2 + c]);
      }
   }
   uint32_t buf[1 + 64] = { 0 };
   union shale_descriptor set0[1];
   memset(set0, 0, sizeof(set0));
   set0[0].buffer.base = (uint8_t *)buf;
   set0[0].buffer.range = sizeof(buf);
   _Alignas(16) uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
   float scale = 1.5f;
   int32_t sel = 1;
   memcpy(push, &scale, 4);
   memcpy(push + 4, &sel, 4);
   struct shale_vs_context ctx = {
      .sets = { set0 },
      .push_constants = push,
      .base_vertex = -2,
      .base_instance = 5,
      .draw_index = 7,
   };
   struct shale_vs_batch batch = { .count = count, .instance_index = 3, .inputs = in,
                                   .outputs = out };
   for (uint32_t i = 0; i < W; i++)
      batch.vertex_index[i] = 10 + 2 * i;
   s->fn.vs(&ctx, &batch);

   uint32_t expect_seen = 0;
   for (uint32_t i = 0; i < count; i++) {
      struct vs_lane l = vs_lane_input(i);
      float vi = (float)batch.vertex_index[i];
      float pos[4] = { l.pos[0] * 1.5f + vi, l.pos[1] * 1.5f + 3.0f, l.pos[2] * 1.5f,
                       l.pos[3] * 1.5f };
      for (int c = 0; c < 4; c++)
         CHECK(bitsf(OUT(0, c, i)) == pos[c], "W=%u lane %u Position[%d] %g, want %g", W, i, c,
               bitsf(OUT(0, c, i)), pos[c]);
      CHECK(bitsf(OUT(1, 0, i)) == l.f + 1.0f, "W=%u lane %u PointSize", W, i);
      CHECK(bitsf(OUT(2, 0, i)) == l.pos[0], "W=%u lane %u ClipDistance[0]", W, i);
      CHECK(bitsf(OUT(2, 1, i)) == -l.pos[1], "W=%u lane %u ClipDistance[1]", W, i);
      CHECK(bitsf(OUT(2, 2, i)) == (float)l.i[0], "W=%u lane %u CullDistance[0]", W, i);
      uint32_t u = SHALE_SLOT_USER;
      for (int c = 0; c < 3; c++)
         CHECK(bitsf(OUT(u + 0, c, i)) == (float)l.u[c] * 0.5f, "W=%u lane %u o_color[%d]", W, i, c);
      CHECK(bitsf(OUT(u + 0, 3, i)) == 0.5f, "W=%u lane %u o_color.w", W, i);
      CHECK(OUT(u + 1, 0, i) == (uint32_t)(l.i[0] * 3) && OUT(u + 1, 1, i) == (uint32_t)(l.i[1] * 3),
            "W=%u lane %u o_i", W, i);
      /* sel = 1: o_arr[1] = f, o_arr[0] = 2f. */
      CHECK(bitsf(OUT(u + 2, 0, i)) == l.f * 2.0f, "W=%u lane %u o_arr[0]", W, i);
      CHECK(bitsf(OUT(u + 3, 0, i)) == l.f, "W=%u lane %u o_arr[1]", W, i);
      for (int c = 0; c < 2; c++) {
         CHECK(bitsf(OUT(u + 4, c, i)) == l.m[c] * 2.0f, "W=%u lane %u o_m[0][%d]", W, i, c);
         CHECK(bitsf(OUT(u + 5, c, i)) == l.m[2 + c] * 2.0f, "W=%u lane %u o_m[1][%d]", W, i, c);
      }
      for (int c = 0; c < 3; c++)
         CHECK(bitsf(OUT(u + 6, c, i)) == l.pos[c] + 1.0f, "W=%u lane %u o_blk.a[%d]", W, i, c);
      CHECK(OUT(u + 7, 0, i) == l.u[2] + 7, "W=%u lane %u o_blk.b", W, i);
      CHECK(bitsf(OUT(u + 8, 2, i)) == vi * 0.25f, "W=%u lane %u o_c", W, i);
      CHECK(OUT(u + 9, 0, i) == (uint32_t)-2 && OUT(u + 9, 1, i) == 5 && OUT(u + 9, 2, i) == 7 &&
            OUT(u + 9, 3, i) == batch.vertex_index[i], "W=%u lane %u o_ids", W, i);
      if (l.i[1] > 0) {
         expect_seen++;
         CHECK_EQ_INT(buf[1 + batch.vertex_index[i]], 4);
      }
   }
   /* Components no output covers are left as they were, for every lane. */
   for (uint32_t i = 0; i < W; i++) {
      uint32_t u = SHALE_SLOT_USER;
      bool kept = OUT(1, 1, i) == SENTINEL && OUT(2, 3, i) == SENTINEL &&
                  OUT(3, 0, i) == SENTINEL && OUT(SHALE_SLOT_LAYER_VIEWPORT, 0, i) == SENTINEL &&
                  OUT(u + 1, 2, i) == SENTINEL && OUT(u + 2, 1, i) == SENTINEL &&
                  OUT(u + 7, 1, i) == SENTINEL && OUT(u + 8, 0, i) == SENTINEL &&
                  OUT(u + 8, 3, i) == SENTINEL && OUT(u + 10, 0, i) == SENTINEL;
      CHECK(kept, "W=%u lane %u: a component no output covers was written", W, i);
   }
   /* Lanes without a vertex do no stores or atomics. */
   CHECK(buf[0] == expect_seen, "W=%u count %u: counter %u, want %u", W, count, buf[0],
         expect_seen);
   uint32_t stored = 0;
   for (int k = 1; k < 65; k++)
      stored += buf[k] != 0;
   CHECK(stored == expect_seen, "W=%u count %u: %u stores, want %u", W, count, stored,
         expect_seen);
#undef IN
#undef OUT
   free(in);
   free(out);
}

static void
test_vertex(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_vs_vert_spv), VK_SHADER_STAGE_VERTEX_BIT, W);
   if (!s)
      return;
   check_vs_io(s);
   run_vs(s, W, W);
   if (W > 1) {
      run_vs(s, W, W - 1);
      run_vs(s, W, 1);
   }
   s = reload(s);
   if (s) {
      check_vs_io(s);
      run_vs(s, W, W);
   }
   sc_shader_destroy(s);

   /* No Position write: fine, and only the one user slot is written. */
   s = compile(SPV(stage_minimal_vert_spv), VK_SHADER_STAGE_VERTEX_BIT, W);
   if (s) {
      CHECK(s->io.vs.outputs_written == 1ull << SHALE_SLOT_USER, "minimal: outputs_written %#llx",
            (unsigned long long)s->io.vs.outputs_written);
      CHECK_EQ_INT(s->io.vs.inputs_read, 0);
      CHECK_EQ_INT(s->io.vs.writes_point_size, 0);
      CHECK_EQ_INT(s->io.vs.clip_distance_count, 0);
      uint32_t *out = aligned(SHALE_SLOT_COUNT * 4 * W * 4);
      struct shale_vs_context ctx = { 0 };
      uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
      ctx.push_constants = push;
      struct shale_vs_batch batch = { .count = W, .outputs = out, .inputs = out };
      for (uint32_t i = 0; i < W; i++)
         batch.vertex_index[i] = 100 + i;
      s->fn.vs(&ctx, &batch);
      for (uint32_t i = 0; i < W; i++)
         CHECK(bitsf(out[SHALE_SLOT_USER * 4 * W + i]) == (float)(100 + i), "minimal lane %u", i);
      free(out);
      sc_shader_destroy(s);
   }

   /* An output's initializer stays where no lane overwrites it. */
   s = compile(SPV(stage_init_out_spv), VK_SHADER_STAGE_VERTEX_BIT, W);
   if (s) {
      uint32_t *out = aligned(SHALE_SLOT_COUNT * 4 * W * 4);
      struct shale_vs_context ctx = { 0 };
      uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE] = { 0 };
      ctx.push_constants = push;
      struct shale_vs_batch batch = { .count = W, .outputs = out, .inputs = out };
      for (uint32_t i = 0; i < W; i++)
         batch.vertex_index[i] = 99 + i;
      s->fn.vs(&ctx, &batch);
      for (uint32_t i = 0; i < W; i++) {
         float want = 99 + i > 100 ? 1.0f : 2.5f;
         CHECK(bitsf(out[SHALE_SLOT_USER * 4 * W + i]) == want, "initialized output lane %u: %g",
               i, bitsf(out[SHALE_SLOT_USER * 4 * W + i]));
         CHECK(bitsf(out[(SHALE_SLOT_USER + 1) * 4 * W + i]) == (float)(99 + i), "lane %u w", i);
      }
      free(out);
      sc_shader_destroy(s);
   }
}


/* ------------------------------------------------------------------------ */
/* Fragment                                                                  */
/* ------------------------------------------------------------------------ */

#define NPLANES (2 + SHALE_MAX_LOCATIONS * 4)

struct fs_run {
   uint32_t W;
   struct shale_fs_plane planes[NPLANES];
   struct shale_fs_plane point_coord[2];
   struct shale_fs_context ctx;
   struct shale_fs_quads q;
   uint32_t *outputs;
   float *depth;
   uint32_t *smask;
   union shale_descriptor set0[4];
   _Alignas(16) uint8_t push[SHALE_MAX_PUSH_CONSTANTS_SIZE];
   uint32_t buf[1 + 256];
};

static float
plane_eval(const struct shale_fs_plane *p, float x, float y)
{
   return p->a * x + p->b * y + p->c;
}

/* W lanes of quads at (2q, 2 + 2 * (q & 1)) for q < quad_count, every
 * pixel covered, pixel-centre centroids, whole-pixel shading, planes with
 * distinct small slopes for every input. */
static void
fs_setup(struct fs_run *f, uint32_t W, uint32_t quad_count)
{
   memset(f, 0, sizeof(*f));
   f->W = W;
   f->outputs = aligned(SHALE_FS_OUTPUT_LOCATIONS * 4 * W * 4);
   f->depth = aligned(W * 4);
   f->smask = aligned(W * 4);
   for (size_t k = 0; k < SHALE_FS_OUTPUT_LOCATIONS * 4 * W; k++)
      f->outputs[k] = SENTINEL;
   f->planes[0] = (struct shale_fs_plane){ 0.01f, 0.02f, 0.1f };
   f->planes[1] = (struct shale_fs_plane){ 0.01f, -0.02f, 0.8f };
   for (int k = 2; k < NPLANES; k++)
      f->planes[k] = (struct shale_fs_plane){ 0.25f + 0.1f * (float)(k % 7), 0.05f - 0.125f * (float)(k % 5),
                                              1.0f + (float)k };
   f->point_coord[0] = (struct shale_fs_plane){ 0.125f, 0.0f, -0.25f };
   f->point_coord[1] = (struct shale_fs_plane){ 0.0f, -0.125f, 1.0f };
   f->set0[0].buffer.base = (uint8_t *)f->buf;
   f->set0[0].buffer.range = sizeof(f->buf);
   f->ctx.sets[0] = f->set0;
   f->ctx.push_constants = f->push;
   f->ctx.sample_count = 1;
   f->ctx.sample_positions[0][0] = f->ctx.sample_positions[0][1] = 0.5f;
   f->q.quad_count = quad_count;
   f->q.sample_id = ~0u;
   f->q.front_facing = 1;
   f->q.planes = f->planes;
   f->q.outputs = f->outputs;
   f->q.frag_depth = f->depth;
   f->q.sample_mask = f->smask;
   for (uint32_t q = 0; q < W / 4; q++) {
      f->q.x[q] = 2 * (int32_t)q;
      f->q.y[q] = 2 + 2 * (int32_t)(q & 1);
   }
   for (uint32_t i = 0; i < W; i++) {
      f->q.coverage[i] = i / 4 < quad_count ? 1 : 0;
      f->q.centroid[0][i] = (float)(f->q.x[i / 4] + (int32_t)(i & 1)) + 0.5f;
      f->q.centroid[1][i] = (float)(f->q.y[i / 4] + (int32_t)((i >> 1) & 1)) + 0.5f;
   }
}

static void
fs_finish(struct fs_run *f)
{
   free(f->outputs);
   free(f->depth);
   free(f->smask);
}

static float
lane_px(const struct fs_run *f, uint32_t i)
{
   return (float)(f->q.x[i / 4] + (int32_t)(i & 1)) + 0.5f;
}

static float
lane_py(const struct fs_run *f, uint32_t i)
{
   return (float)(f->q.y[i / 4] + (int32_t)((i >> 1) & 1)) + 0.5f;
}

/* A smooth input component (Location l, Component c) at (x, y). */
static float
smooth_at(const struct fs_run *f, uint32_t l, uint32_t c, float x, float y)
{
   return plane_eval(&f->planes[2 + l * 4 + c], x, y) / plane_eval(&f->planes[1], x, y);
}

static bool
near(float a, float b)
{
   return fabsf(a - b) <= 1e-5f * fmaxf(1.0f, fabsf(b));
}

#define FOUT(f, l, c, i) ((f)->outputs[((l) * 4 + (c)) * (f)->W + (i)])

static void
check_fs_io(const struct sc_shader *s)
{
   const struct shale_fs_info *io = &s->io.fs;
   for (int k = 0; k < SHALE_MAX_LOCATIONS * 4; k++) {
      uint8_t want = k < 4 ? SHALE_INTERP_SMOOTH : k < 6 ? SHALE_INTERP_NOPERSPECTIVE
                   : k < 9 ? SHALE_INTERP_FLAT : SHALE_INTERP_NONE;
      CHECK(io->interp[k] == want, "interp[%d] = %u, want %u", k, io->interp[k], want);
   }
   CHECK_EQ_INT(io->outputs_written, 0x1f);
   static const uint8_t types[5] = { 0, 1, 2, 0, 0 };
   for (int l = 0; l < 5; l++)
      CHECK(io->output_type[l] == types[l], "output_type[%d] = %u", l, io->output_type[l]);
   CHECK(io->reads_frag_coord && io->reads_front_facing && io->can_discard &&
         io->has_side_effects, "fs io flags");
   CHECK(!io->reads_point_coord && !io->reads_sample_id && !io->reads_sample_mask &&
         !io->reads_primitive_id && !io->reads_layer && !io->writes_frag_depth &&
         !io->writes_sample_mask && !io->writes_stencil && !io->early_fragment_tests &&
         !io->depth_mode && !io->uses_derivatives && !io->dual_source, "fs io: nothing else");
}

static void
run_fs(const struct sc_shader *s, uint32_t W, uint32_t quad_count, float discard_below,
       bool front)
{
   struct fs_run f;
   fs_setup(&f, W, quad_count);
   memcpy(f.push, &discard_below, 4);
   f.q.front_facing = front;
   /* Some helper lanes inside the quads. */
   for (uint32_t i = 0; i < W; i++)
      if (i % 5 == 3)
         f.q.coverage[i] = 0;
   /* Flat planes: c holds the bits. */
   int32_t fl[2] = { -5, 77 };
   memcpy(&f.planes[2 + 6].c, &fl[0], 4);
   memcpy(&f.planes[2 + 7].c, &fl[1], 4);
   uint32_t fu = 0xfedcba98u;
   memcpy(&f.planes[2 + 8].c, &fu, 4);
   s->fn.fs(&f.ctx, &f.q);

   uint32_t want_kill = 0, live = 0;
   for (uint32_t i = 0; i < W; i++) {
      float x = lane_px(&f, i), y = lane_py(&f, i);
      float sx = smooth_at(&f, 0, 0, x, y);
      if (sx < discard_below) {
         want_kill |= 1u << i;
         continue;
      }
      bool covered = i / 4 < quad_count && f.q.coverage[i];
      if (covered) {
         live++;
         int px = (int)x, py = (int)y;
         CHECK(f.buf[1 + py * 16 + px] == 1, "W=%u lane %u wrote its pixel", W, i);
      }
      for (uint32_t c = 0; c < 4; c++) {
         float want = smooth_at(&f, 0, c, x, y);
         CHECK(near(bitsf(FOUT(&f, 0, c, i)), want), "W=%u lane %u smooth[%u] %g, want %g", W, i,
               c, bitsf(FOUT(&f, 0, c, i)), want);
      }
      CHECK(FOUT(&f, 1, 0, i) == (uint32_t)-5 && FOUT(&f, 1, 1, i) == 77 &&
            FOUT(&f, 1, 2, i) == (front ? 1u : 0u) && FOUT(&f, 1, 3, i) == (uint32_t)-7,
            "W=%u lane %u o_int", W, i);
      CHECK(FOUT(&f, 2, 0, i) == fu && FOUT(&f, 2, 1, i) == 12345, "W=%u lane %u o_uint", W, i);
      CHECK(FOUT(&f, 2, 2, i) == SENTINEL && FOUT(&f, 2, 3, i) == SENTINEL,
            "W=%u lane %u: o_uint.zw untouched", W, i);
      float coord[4] = { x, y, plane_eval(&f.planes[0], x, y), plane_eval(&f.planes[1], x, y) };
      for (uint32_t c = 0; c < 4; c++)
         CHECK(near(bitsf(FOUT(&f, 3, c, i)), coord[c]), "W=%u lane %u FragCoord[%u] %g, want %g",
               W, i, c, bitsf(FOUT(&f, 3, c, i)), coord[c]);
      for (uint32_t c = 0; c < 2; c++) {
         float want = plane_eval(&f.planes[2 + 4 + c], x, y);
         CHECK(near(bitsf(FOUT(&f, 4, c, i)), want), "W=%u lane %u noperspective[%u]", W, i, c);
      }
   }
   CHECK(f.q.kill_mask == want_kill, "W=%u: kill_mask %#x, want %#x", W, f.q.kill_mask, want_kill);
   CHECK(f.buf[0] == live, "W=%u quads %u: %u atomics, want %u (helpers and discarded lanes do none)",
         W, quad_count, f.buf[0], live);
   uint32_t stored = 0;
   for (int k = 1; k < 257; k++)
      stored += f.buf[k];
   CHECK(stored == live, "W=%u: %u stores, want %u", W, stored, live);
   fs_finish(&f);
}

/* Declared but untouched inputs and outputs are neither read nor written. */
static void
test_fragment_unused(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_unused_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   if (!s)
      return;
   for (int k = 0; k < 8; k++)
      CHECK(s->io.fs.interp[k] == (k < 4 ? SHALE_INTERP_SMOOTH : SHALE_INTERP_NONE),
            "unused: interp[%d] = %u", k, s->io.fs.interp[k]);
   CHECK_EQ_INT(s->io.fs.outputs_written, 1);
   struct fs_run f;
   fs_setup(&f, W, W / 4);
   s->fn.fs(&f.ctx, &f.q);
   for (uint32_t i = 0; i < W; i++) {
      CHECK(near(bitsf(FOUT(&f, 0, 1, i)), smooth_at(&f, 0, 1, lane_px(&f, i), lane_py(&f, i))),
            "unused: lane %u o.y", i);
      CHECK(FOUT(&f, 1, 0, i) == SENTINEL, "unused: lane %u: Location 1 written", i);
   }
   fs_finish(&f);
   sc_shader_destroy(s);
}

/* sc_compile_info.fs_unused_outputs: Locations 1, 2 and 4 of stage_fs.frag
 * declared unread. Their stores are left out (the outputs buffer keeps its
 * sentinel there, outputs_written has their bits clear), and everything
 * else (Locations 0 and 3, the kill mask, the buffer stores and atomics)
 * has the same bits as the shader compiled with every Location, in
 * optimized and in baseline code. The mask is part of the compile key of a
 * fragment shader only. */
static void
test_fragment_unused_outputs(uint32_t W)
{
   const uint32_t unused = (1u << 1) | (1u << 2) | (1u << 4);
   for (int baseline = 0; baseline < 2; baseline++) {
      struct sc_compile_info info =
         compile_info(SPV(stage_fs_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
      info.flags = baseline ? SC_COMPILE_BASELINE : 0;
      struct sc_shader *all = NULL, *some = NULL;
      char msg[256] = "";
      enum sc_result r = sc_compile(compiler, &info, &all, msg, sizeof(msg));
      CHECK(r == SC_SUCCESS, "unused outputs (W=%u): %s", W, msg);
      info.fs_unused_outputs = unused;
      r = sc_compile(compiler, &info, &some, msg, sizeof(msg));
      CHECK(r == SC_SUCCESS, "unused outputs, masked (W=%u): %s", W, msg);
      if (!all || !some) {
         sc_shader_destroy(all);
         sc_shader_destroy(some);
         return;
      }
      CHECK_EQ_INT(all->io.fs.outputs_written, 0x1f);
      CHECK_EQ_INT(some->io.fs.outputs_written, 0x09);
      CHECK(some->io.fs.output_type[0] == 0 && some->io.fs.output_type[3] == 0,
            "unused outputs: output types");
      struct fs_run fa, fs;
      float discard_below = 4.0f;
      fs_setup(&fa, W, W / 4);
      fs_setup(&fs, W, W / 4);
      memcpy(fa.push, &discard_below, 4);
      memcpy(fs.push, &discard_below, 4);
      for (uint32_t i = 0; i < W; i++)
         if (i % 5 == 3)
            fa.q.coverage[i] = fs.q.coverage[i] = 0;
      all->fn.fs(&fa.ctx, &fa.q);
      some->fn.fs(&fs.ctx, &fs.q);
      uint32_t kept = 0, untouched = 0;
      for (uint32_t l = 0; l < 5; l++)
         for (uint32_t c = 0; c < 4; c++)
            for (uint32_t i = 0; i < W; i++) {
               if (unused & (1u << l)) {
                  untouched += FOUT(&fs, l, c, i) == SENTINEL;
               } else {
                  CHECK(FOUT(&fs, l, c, i) == FOUT(&fa, l, c, i),
                        "W=%u baseline %d: Location %u[%u] lane %u: %#x, want %#x", W, baseline,
                        l, c, i, FOUT(&fs, l, c, i), FOUT(&fa, l, c, i));
                  kept++;
               }
            }
      CHECK(untouched == 3 * 4 * W, "W=%u baseline %d: %u of %u unused words untouched", W,
            baseline, untouched, 3 * 4 * W);
      CHECK_EQ_INT(kept, 2 * 4 * W);
      CHECK(fs.q.kill_mask == fa.q.kill_mask && fs.q.kill_mask != 0,
            "W=%u baseline %d: kill mask %#x, want %#x (nonzero)", W, baseline, fs.q.kill_mask,
            fa.q.kill_mask);
      CHECK(!memcmp(fs.buf, fa.buf, sizeof(fs.buf)) && fs.buf[0] != 0,
            "W=%u baseline %d: the buffer's stores and atomics", W, baseline);
      fs_finish(&fa);
      fs_finish(&fs);
      sc_shader_destroy(all);
      sc_shader_destroy(some);
   }

   uint8_t k0[SC_COMPILE_KEY_SIZE], k1[SC_COMPILE_KEY_SIZE];
   struct sc_compile_info info =
      compile_info(SPV(stage_fs_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   CHECK_EQ_INT(sc_compile_key(compiler, &info, k0), SC_SUCCESS);
   info.fs_unused_outputs = unused;
   CHECK_EQ_INT(sc_compile_key(compiler, &info, k1), SC_SUCCESS);
   CHECK(memcmp(k0, k1, sizeof(k0)) != 0, "the fragment shader's key depends on the mask");
   info = compile_info(SPV(stage_vs_vert_spv), VK_SHADER_STAGE_VERTEX_BIT, W);
   info.fs_unused_outputs = unused;
   CHECK_EQ_INT(sc_compile_key(compiler, &info, k1), SC_SUCCESS);
   info.fs_unused_outputs = 0;
   CHECK_EQ_INT(sc_compile_key(compiler, &info, k0), SC_SUCCESS);
   CHECK(!memcmp(k0, k1, sizeof(k0)), "a vertex shader's key ignores the mask");
}

static void
test_fragment_basic(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_fs_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   if (!s)
      return;
   check_fs_io(s);
   /* Nothing discarded, some lanes discarded, everything discarded. */
   run_fs(s, W, W / 4, -1e9f, true);
   run_fs(s, W, W / 4, 4.0f, false);
   run_fs(s, W, W / 4, 1e9f, true);
   if (W > 4)
      run_fs(s, W, 1, 4.0f, true);
   s = reload(s);
   if (s) {
      check_fs_io(s);
      run_fs(s, W, W / 4, 4.0f, true);
   }
   sc_shader_destroy(s);
}


/* ------------------------------------------------------------------------ */
/* Derivatives and implicit LOD                                              */
/* ------------------------------------------------------------------------ */

/* A 16x16 RGBA8 image with 5 levels, each one colour. */
#define MIP_LEVELS 5
static const uint8_t mip_colour[MIP_LEVELS][4] = {
   { 255, 0, 0, 255 }, { 0, 255, 0, 255 }, { 0, 0, 255, 255 }, { 255, 255, 0, 255 },
   { 0, 255, 255, 255 },
};

struct mip_texture {
   uint8_t texels[(256 + 64 + 16 + 4 + 1) * 4];
   struct shale_image_view_desc view;
   struct shale_sampler_desc sampler;
};

static void
mip_texture_init(struct mip_texture *t, union shale_descriptor *rec)
{
   memset(t, 0, sizeof(*t));
   struct shale_image_view_desc *v = &t->view;
   v->base = t->texels;
   v->format = VK_FORMAT_R8G8B8A8_UNORM;
   v->view_type = VK_IMAGE_VIEW_TYPE_2D;
   v->width = v->height = 16;
   v->depth = 1;
   v->level_count = MIP_LEVELS;
   v->layer_count = 1;
   v->samples = 1;
   v->texel_size = 4;
   v->aspect = VK_IMAGE_ASPECT_COLOR_BIT;
   for (int c = 0; c < 4; c++)
      v->swizzle[c] = VK_COMPONENT_SWIZZLE_R + (uint32_t)c;
   uint64_t off = 0;
   for (uint32_t l = 0; l < MIP_LEVELS; l++) {
      uint32_t side = 16u >> l;
      v->level_offset[l] = off;
      v->row_pitch[l] = side * 4;
      v->slice_pitch[l] = side * side * 4;
      for (uint32_t k = 0; k < side * side; k++)
         memcpy(t->texels + off + k * 4, mip_colour[l], 4);
      off += side * side * 4;
   }
   struct shale_sampler_desc *s = &t->sampler;
   s->mag_filter = s->min_filter = VK_FILTER_NEAREST;
   s->mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
   for (int k = 0; k < 3; k++)
      s->address_mode[k] = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
   s->max_lod = 16.0f;
   s->max_anisotropy = 1.0f;
   s->compare_op = VK_COMPARE_OP_ALWAYS;
   rec->image.view = v;
   rec->image.sampler = s;
   rec->image.sample_fn = sr_sample;
   rec->image.width = rec->image.height = 16;
   rec->image.depth_or_layers = 1;
   rec->image.format = VK_FORMAT_R8G8B8A8_UNORM;
   rec->image.texel_size = 4;
   rec->image.level_count = MIP_LEVELS;
   rec->image.samples = 1;
}

static void
check_colour(const struct fs_run *f, uint32_t loc, uint32_t i, uint32_t level, const char *what)
{
   bool ok = true;
   for (uint32_t c = 0; c < 4; c++)
      ok &= bitsf(FOUT(f, loc, c, i)) == (float)mip_colour[level][c] / 255.0f;
   CHECK(ok, "W=%u lane %u %s: (%g %g %g %g), want level %u", f->W, i, what,
         bitsf(FOUT(f, loc, 0, i)), bitsf(FOUT(f, loc, 1, i)), bitsf(FOUT(f, loc, 2, i)),
         bitsf(FOUT(f, loc, 3, i)), level);
}

/* A 16x16 D32_SFLOAT image, depth x / 16 in column x, compared LESS. */
struct shadow_texture {
   float texels[256];
   struct shale_image_view_desc view;
   struct shale_sampler_desc sampler;
};

static void
shadow_texture_init(struct shadow_texture *t, union shale_descriptor *rec)
{
   memset(t, 0, sizeof(*t));
   for (int k = 0; k < 256; k++)
      t->texels[k] = (float)(k % 16) / 16.0f;
   struct shale_image_view_desc *v = &t->view;
   v->base = (uint8_t *)t->texels;
   v->format = VK_FORMAT_D32_SFLOAT;
   v->view_type = VK_IMAGE_VIEW_TYPE_2D;
   v->width = v->height = 16;
   v->depth = 1;
   v->level_count = v->layer_count = v->samples = 1;
   v->texel_size = 4;
   v->aspect = VK_IMAGE_ASPECT_DEPTH_BIT;
   for (int c = 0; c < 4; c++)
      v->swizzle[c] = VK_COMPONENT_SWIZZLE_R + (uint32_t)c;
   v->row_pitch[0] = 64;
   v->slice_pitch[0] = 1024;
   struct shale_sampler_desc *s = &t->sampler;
   s->mag_filter = s->min_filter = VK_FILTER_NEAREST;
   s->mipmap_mode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
   for (int k = 0; k < 3; k++)
      s->address_mode[k] = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
   s->max_lod = 16.0f;
   s->max_anisotropy = 1.0f;
   s->compare_enable = 1;
   s->compare_op = VK_COMPARE_OP_LESS;
   rec->image.view = v;
   rec->image.sampler = s;
   rec->image.sample_fn = sr_sample;
   rec->image.format = VK_FORMAT_D32_SFLOAT;
   rec->image.texel_size = 4;
   rec->image.width = rec->image.height = 16;
   rec->image.depth_or_layers = rec->image.level_count = rec->image.samples = 1;
}

/* What sr_sample answers for lane i of a depth comparison at uv with the
 * gradients of uv = pixel / 8 (and an x offset). */
static float
shadow_reference(const struct shadow_texture *t, float u, float v, int32_t offset_x)
{
   static struct shale_sample_args a;
   memset(&a, 0, sizeof(a));
   a.op = SHALE_SAMPLE_GRAD | SHALE_SAMPLE_DREF | (offset_x ? SHALE_SAMPLE_OFFSET : 0);
   a.lanes = 1;
   a.coord[0][0] = u;
   a.coord[1][0] = v;
   a.dref[0] = 0.5f;
   a.grad[0][0][0] = 0.125f;
   a.grad[1][1][0] = 0.125f;
   a.offset[0][0] = offset_x;
   sr_sample(&t->view, &t->sampler, &a);
   return bitsf(a.result[0][0]);
}

static void
test_derivatives(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_deriv_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   if (!s)
      return;
   const struct shale_fs_info *io = &s->io.fs;
   CHECK(io->uses_derivatives && !io->can_discard && !io->has_side_effects,
         "deriv io flags");
   CHECK_EQ_INT(io->outputs_written, 0x7f);
   CHECK(io->interp[0] == SHALE_INTERP_SMOOTH && io->interp[4] == SHALE_INTERP_NOPERSPECTIVE &&
         io->interp[5] == SHALE_INTERP_NOPERSPECTIVE && io->interp[1] == SHALE_INTERP_NONE,
         "deriv interp");
   struct fs_run f;
   struct mip_texture tex;
   struct shadow_texture shadow;
   for (uint32_t nq = W / 4; nq >= 1; nq = nq > 1 ? nq / 2 : 0) {
      fs_setup(&f, W, nq);
      mip_texture_init(&tex, &f.set0[1]);
      shadow_texture_init(&shadow, &f.set0[3]);
      /* uv = pixel / 8: rho = 2 on a 16-texel image, lambda 1. */
      f.planes[2 + 4] = (struct shale_fs_plane){ 0.125f, 0.0f, 0.0f };
      f.planes[2 + 5] = (struct shale_fs_plane){ 0.0f, 0.125f, 0.0f };
      float k = 3.25f;
      memcpy(f.push, &k, 4);
      /* Helpers: derivatives and sampling still see them. */
      f.q.coverage[1] = 0;
      s->fn.fs(&f.ctx, &f.q);
      float sv[SHALE_MAX_SIMD_WIDTH];
      for (uint32_t i = 0; i < W; i++) {
         float v = smooth_at(&f, 0, 0, lane_px(&f, i), lane_py(&f, i));
         sv[i] = v * v;
      }
      for (uint32_t i = 0; i < W; i++) {
         uint32_t q0 = i & ~3u;
         float fine_x = sv[i | 1] - sv[i & ~1u], fine_y = sv[i | 2] - sv[i & ~2u];
         float coarse_x = sv[q0 + 1] - sv[q0], coarse_y = sv[q0 + 2] - sv[q0];
         float want[2][4] = {
            { fine_x, fine_y, coarse_x, coarse_y },
            { fine_x, fine_y, fabsf(fine_x) + fabsf(fine_y), fabsf(coarse_x) + fabsf(coarse_y) },
         };
         for (uint32_t l = 0; l < 2; l++)
            for (uint32_t c = 0; c < 4; c++) {
               float got = bitsf(FOUT(&f, l, c, i));
               CHECK(fabsf(got - want[l][c]) <= 1e-4f * fmaxf(1.0f, fabsf(sv[i])),
                     "W=%u lane %u derivative %u.%u: %g, want %g", W, i, l, c, got, want[l][c]);
            }
         check_colour(&f, 2, i, 1, "texture()");
         check_colour(&f, 3, i, 3, "texture(bias 2)");
         check_colour(&f, 4, i, 1, "textureProj()");
         CHECK(bitsf(FOUT(&f, 5, 0, i)) == 1.0f, "W=%u lane %u: derivative of a uniform", W, i);
         float u = (lane_px(&f, i)) * 0.125f, v = lane_py(&f, i) * 0.125f;
         float want_s[3] = { shadow_reference(&shadow, u, v, 0), shadow_reference(&shadow, u, v, 3),
                             shadow_reference(&shadow, u, v, 0) };
         for (uint32_t c = 0; c < 3; c++)
            CHECK(bitsf(FOUT(&f, 6, c, i)) == want_s[c], "W=%u lane %u shadow[%u] %g, want %g", W,
                  i, c, bitsf(FOUT(&f, 6, c, i)), want_s[c]);
      }
      fs_finish(&f);
   }
   sc_shader_destroy(s);
}


/* ------------------------------------------------------------------------ */
/* Sample shading, centroid, depth and sample mask                           */
/* ------------------------------------------------------------------------ */

static const float std4[4][2] = { { 0.375f, 0.125f }, { 0.875f, 0.375f }, { 0.125f, 0.625f },
                                  { 0.625f, 0.875f } };

static void
run_fs_sample(const struct sc_shader *s, uint32_t W, uint32_t sample_id, bool points)
{
   struct fs_run f;
   fs_setup(&f, W, W / 4);
   f.ctx.sample_count = 4;
   memcpy(f.ctx.sample_positions, std4, sizeof(std4));
   f.q.sample_id = sample_id;
   f.q.primitive_id = 41;
   f.q.layer = 3;
   f.q.point_coord = points ? f.point_coord : NULL;
   for (uint32_t i = 0; i < W; i++) {
      f.q.coverage[i] = sample_id != ~0u ? (i % 3 ? 1u << sample_id : 0) : (i * 7 + 3) & 15;
      /* Centroids off the centre for partly covered pixels. */
      if (f.q.coverage[i] != 15) {
         f.q.centroid[0][i] += 0.125f * (float)(i % 3) - 0.125f;
         f.q.centroid[1][i] -= 0.25f * (float)(i % 2);
      }
   }
   s->fn.fs(&f.ctx, &f.q);
   float ox = sample_id != ~0u ? std4[sample_id][0] : 0.5f;
   float oy = sample_id != ~0u ? std4[sample_id][1] : 0.5f;
   for (uint32_t i = 0; i < W; i++) {
      float x = (float)(f.q.x[i / 4] + (int32_t)(i & 1)) + ox;
      float y = (float)(f.q.y[i / 4] + (int32_t)((i >> 1) & 1)) + oy;
      float cx = sample_id != ~0u ? x : f.q.centroid[0][i];
      float cy = sample_id != ~0u ? y : f.q.centroid[1][i];
      float want_pos[4] = { ox, oy, sample_id != ~0u ? (float)sample_id : 0.0f, 41.0f };
      float want_c[4] = { smooth_at(&f, 1, 0, cx, cy), smooth_at(&f, 1, 1, cx, cy),
                          smooth_at(&f, 1, 2, x, y),
                          points ? plane_eval(&f.point_coord[1], x, y) : 0.0f };
      float want_a[4] = { smooth_at(&f, 0, 0, x, y), smooth_at(&f, 0, 1, x, y),
                          smooth_at(&f, 0, 2, x, y),
                          points ? plane_eval(&f.point_coord[0], x, y) : 0.0f };
      for (uint32_t c = 0; c < 4; c++) {
         CHECK(near(bitsf(FOUT(&f, 0, c, i)), want_pos[c]), "W=%u sid %d lane %u o_pos[%u] %g, want %g",
               W, (int)sample_id, i, c, bitsf(FOUT(&f, 0, c, i)), want_pos[c]);
         CHECK(near(bitsf(FOUT(&f, 1, c, i)), want_c[c]), "W=%u sid %d lane %u o_c[%u] %g, want %g",
               W, (int)sample_id, i, c, bitsf(FOUT(&f, 1, c, i)), want_c[c]);
         CHECK(near(bitsf(FOUT(&f, 3, c, i)), want_a[c]), "W=%u sid %d lane %u o_a[%u] %g, want %g",
               W, (int)sample_id, i, c, bitsf(FOUT(&f, 3, c, i)), want_a[c]);
      }
      uint32_t cov = f.q.coverage[i];
      CHECK(FOUT(&f, 2, 0, i) == cov && FOUT(&f, 2, 1, i) == 3 && FOUT(&f, 2, 2, i) == (cov == 0),
            "W=%u lane %u: SampleMaskIn %u, Layer %u, HelperInvocation %u", W, i,
            FOUT(&f, 2, 0, i), FOUT(&f, 2, 1, i), FOUT(&f, 2, 2, i));
      CHECK(near(f.depth[i], want_a[0] * 0.5f), "W=%u lane %u FragDepth %g", W, i, f.depth[i]);
      CHECK(f.smask[i] == (cov & 5), "W=%u lane %u SampleMask %u", W, i, f.smask[i]);
   }
   CHECK_EQ_INT(f.q.kill_mask, 0);
   fs_finish(&f);
}

static void
test_fragment_sample(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_fs_sample_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   if (!s)
      return;
   const struct shale_fs_info *io = &s->io.fs;
   for (int k = 0; k < 8; k++) {
      uint8_t want = k < 4 ? SHALE_INTERP_SMOOTH
                   : k < 6 ? SHALE_INTERP_SMOOTH | SHALE_INTERP_CENTROID
                   : k == 6 ? SHALE_INTERP_SMOOTH | SHALE_INTERP_SAMPLE : SHALE_INTERP_NONE;
      CHECK(io->interp[k] == want, "sample interp[%d] = %#x, want %#x", k, io->interp[k], want);
   }
   CHECK(io->reads_sample_id && io->reads_sample_mask && io->reads_point_coord &&
         io->reads_primitive_id && io->reads_layer && io->writes_frag_depth &&
         io->writes_sample_mask && io->depth_mode == 2 && !io->reads_frag_coord &&
         !io->can_discard && !io->has_side_effects && !io->early_fragment_tests,
         "sample io flags");
   CHECK_EQ_INT(io->outputs_written, 0xf);
   run_fs_sample(s, W, ~0u, true);
   run_fs_sample(s, W, 2, false);
   run_fs_sample(s, W, 0, true);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Demotion, dual source, image stores                                       */
/* ------------------------------------------------------------------------ */

static void
test_fragment_demote(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_fs_demote_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   if (!s)
      return;
   const struct shale_fs_info *io = &s->io.fs;
   CHECK(io->can_discard && io->early_fragment_tests && io->dual_source && io->has_side_effects &&
         io->uses_derivatives && io->reads_frag_coord && io->outputs_written == 1 &&
         io->output_type[0] == 0, "demote io flags");
   struct fs_run f;
   fs_setup(&f, W, W / 4);
   uint32_t img[16 * 16] = { 0 };
   f.set0[2].image.base = (uint8_t *)img;
   f.set0[2].image.row_pitch = 16 * 4;
   f.set0[2].image.slice_pitch = 16 * 16 * 4;
   f.set0[2].image.width = f.set0[2].image.height = 16;
   f.set0[2].image.depth_or_layers = 1;
   f.set0[2].image.format = VK_FORMAT_R32_UINT;
   f.set0[2].image.texel_size = 4;
   f.set0[2].image.level_count = 1;
   f.set0[2].image.samples = 1;
   float below = 4.0f;
   memcpy(f.push, &below, 4);
   for (uint32_t i = 0; i < W; i++)
      if (i % 7 == 2)
         f.q.coverage[i] = 0;
   s->fn.fs(&f.ctx, &f.q);
   float v[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t i = 0; i < W; i++)
      v[i] = smooth_at(&f, 0, 0, lane_px(&f, i), lane_py(&f, i));
   uint32_t want_kill = 0, live = 0;
   for (uint32_t i = 0; i < W; i++) {
      bool demoted = v[i] < below;
      bool helper = demoted || !f.q.coverage[i];
      want_kill |= (uint32_t)demoted << i;
      int px = (int)lane_px(&f, i), py = (int)lane_py(&f, i);
      CHECK(img[py * 16 + px] == (helper ? 0u : 7u), "W=%u lane %u image texel %u", W, i,
            img[py * 16 + px]);
      live += !helper;
      CHECK(near(bitsf(FOUT(&f, 0, 0, i)), v[i]), "W=%u lane %u o0.x", W, i);
      CHECK(bitsf(FOUT(&f, 0, 1, i)) == (helper ? 1.0f : 0.0f), "W=%u lane %u helperInvocationEXT",
            W, i);
      CHECK(bitsf(FOUT(&f, 0, 2, i)) == (helper ? 1.0f : 0.0f), "W=%u lane %u HelperInvocation",
            W, i);
      /* Index 1 goes to Location 8; demoted neighbours still give derivatives. */
      float dx = v[i | 1] - v[i & ~1u], dy = v[i | 2] - v[i & ~2u];
      CHECK(fabsf(bitsf(FOUT(&f, 8, 0, i)) - dx) <= 1e-4f && fabsf(bitsf(FOUT(&f, 8, 1, i)) - dy) <= 1e-4f &&
            bitsf(FOUT(&f, 8, 3, i)) == 2.0f, "W=%u lane %u dual-source output", W, i);
   }
   CHECK(f.q.kill_mask == want_kill, "W=%u demote kill_mask %#x, want %#x", W, f.q.kill_mask,
         want_kill);
   CHECK(f.buf[0] == live, "W=%u: %u atomics, want %u", W, f.buf[0], live);
   CHECK(want_kill && want_kill != (1u << W) - 1, "the test demotes some lanes");
   fs_finish(&f);
   sc_shader_destroy(s);
}

/* ------------------------------------------------------------------------ */
/* Refusals                                                                  */
/* ------------------------------------------------------------------------ */

/* Transform feedback decorations (Xfb execution mode): each captured
 * component's slot word, buffer and offset, the strides; an Offset past
 * its XfbStride is refused. */
static void
test_xfb(uint32_t W)
{
   struct sc_shader *s = compile(SPV(stage_xfb_vert_spv), VK_SHADER_STAGE_VERTEX_BIT, W);
   if (s)
      s = reload(s);
   if (!s)
      return;
   const struct shale_vs_info *io = &s->io.vs;
   /* word, buffer, offset: gl_Position and gl_ClipDistance[0..1] in buffer
    * 0 (stride 48); Blk.a (Location 0) at 8 and Blk.b (Location 1) at 16
    * in buffer 1 (stride 32); `plain` has no Offset. */
   const struct shale_xfb_component want[] = {
      { SHALE_SLOT_POSITION * 4 + 0, 0, 0 }, { SHALE_SLOT_POSITION * 4 + 1, 0, 4 },
      { SHALE_SLOT_POSITION * 4 + 2, 0, 8 }, { SHALE_SLOT_POSITION * 4 + 3, 0, 12 },
      { SHALE_SLOT_CLIP_CULL0 * 4 + 0, 0, 16 }, { SHALE_SLOT_CLIP_CULL0 * 4 + 1, 0, 20 },
      { SHALE_SLOT_USER * 4 + 0, 1, 8 }, { SHALE_SLOT_USER * 4 + 1, 1, 12 },
      { (SHALE_SLOT_USER + 1) * 4 + 0, 1, 16 },
   };
   const uint32_t n = sizeof(want) / sizeof(want[0]);
   CHECK(io->xfb_count == n, "xfb (W=%u): %u components, expected %u", W, io->xfb_count, n);
   for (uint32_t i = 0; i < n; i++) {
      bool found = false;
      for (uint32_t k = 0; k < io->xfb_count && !found; k++)
         found = io->xfb[k].word == want[i].word && io->xfb[k].buffer == want[i].buffer &&
                 io->xfb[k].offset == want[i].offset;
      CHECK(found, "xfb (W=%u): word %u to buffer %u offset %u missing", W, want[i].word,
            want[i].buffer, want[i].offset);
   }
   CHECK(io->xfb_stride[0] == 48 && io->xfb_stride[1] == 32 && !io->xfb_stride[2] &&
            !io->xfb_stride[3], "xfb (W=%u): strides %u %u %u %u", W, io->xfb_stride[0],
         io->xfb_stride[1], io->xfb_stride[2], io->xfb_stride[3]);
   sc_shader_destroy(s);

   char msg[256] = "";
   s = NULL;
   enum sc_result r = try_compile(SPV(stage_xfb_bad_spv), VK_SHADER_STAGE_VERTEX_BIT, W, &s, msg,
                                  sizeof(msg));
   CHECK(r == SC_ERROR_INVALID_SPIRV && !s, "xfb Offset past XfbStride (W=%u): %s (%s)", W,
         sc_result_string(r), msg);
   sc_shader_destroy(s);

   /* zink declares Xfb in the fragment shader too: nothing to capture. */
   if (W > 1) {
      s = compile(SPV(stage_fs_xfb_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
      CHECK(s != NULL, "fragment shader with Xfb (W=%u)", W);
      sc_shader_destroy(s);
   }
}

static void
test_refusals(void)
{
   char msg[256];
   struct sc_shader *s = NULL;
   /* 64-bit vertex inputs compile: a dvec3 and each dmat2x3 column take
    * two Locations (render/vertex_input64 draws them). */
   enum sc_result r = try_compile(SPV(stage_double_vert_spv), VK_SHADER_STAGE_VERTEX_BIT, 4, &s,
                                  msg, sizeof(msg));
   CHECK(r == SC_SUCCESS && s, "64-bit vertex inputs: %s", msg);
   if (s)
      CHECK(s->io.vs.inputs_read == 0x3f, "64-bit inputs read Locations %#x, expected 0x3f",
            s->io.vs.inputs_read);
   sc_shader_destroy(s);
   s = NULL;
   /* Geometry shaders compile, at every width, and say what they read and
    * write (shader_abi.h, "Geometry"). */
   for (uint32_t w = 1; w <= 16; w *= 2) {
      if (w == 2)
         continue;
      r = try_compile(SPV(stage_geom_geom_spv), VK_SHADER_STAGE_GEOMETRY_BIT, w, &s, msg,
                      sizeof(msg));
      CHECK(r == SC_SUCCESS && s, "geometry shader (W=%u): %s", w, msg);
      if (s)
         s = reload(s);   /* and through a blob (pipeline cache data) */
      if (s) {
         const struct shale_gs_info *gs = &s->io.gs;
         CHECK(gs->vertices_in == 1 && gs->invocations == 1 && gs->output_vertices == 1 &&
                  gs->output_topology == VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
               "geometry modes: %u %u %u %u", gs->vertices_in, gs->invocations,
               gs->output_vertices, gs->output_topology);
         CHECK(gs->inputs_read == 1ull << SHALE_SLOT_POSITION && gs->out_words == 4 &&
                  gs->out.outputs_written == 1ull << SHALE_SLOT_POSITION,
               "geometry interface: inputs %llx, %u output words, outputs %llx",
               (unsigned long long)gs->inputs_read, gs->out_words,
               (unsigned long long)gs->out.outputs_written);
         for (uint32_t j = 0; j < gs->out_words && j < 4; j++)
            CHECK(gs->out_word[j] == SHALE_SLOT_POSITION * 4 + j, "output word %u: %u", j,
                  gs->out_word[j]);
         sc_shader_destroy(s);
         s = NULL;
      }
   }
   /* Fragment shaders need quads: no scalar code. */
   r = try_compile(SPV(stage_fs_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, 1, &s, msg, sizeof(msg));
   CHECK_EQ_INT(r, SC_ERROR_UNSUPPORTED);
   CHECK(strstr(msg, "quad") != NULL, "message: \"%s\"", msg);
   CHECK(s == NULL, "no shader on failure");

   /* Mutated vertex and fragment modules: any result but a crash, a message
    * with every failure. */
   static uint32_t mutant[sizeof(stage_fs_sample_frag_spv) / 4 + sizeof(stage_vs_vert_spv) / 4];
   uint32_t seed = 12345;
   int compiled = 0, failed = 0;
   for (int t = 0; t < 80; t++) {
      const uint32_t *src = t & 1 ? stage_vs_vert_spv : stage_fs_sample_frag_spv;
      size_t n = t & 1 ? sizeof(stage_vs_vert_spv) / 4 : sizeof(stage_fs_sample_frag_spv) / 4;
      memcpy(mutant, src, n * 4);
      for (int k = 0; k < 2; k++) {
         seed = seed * 1103515245u + 12345u;
         uint32_t w = 5 + (seed >> 8) % (uint32_t)(n - 5);
         seed = seed * 1103515245u + 12345u;
         mutant[w] = (seed >> 4) & 1 ? mutant[w] ^ (1u << (seed % 32)) : (seed >> 8) % 64;
      }
      VkShaderStageFlagBits stage = t & 1 ? VK_SHADER_STAGE_VERTEX_BIT : VK_SHADER_STAGE_FRAGMENT_BIT;
      msg[0] = 0;
      r = try_compile(mutant, n, stage, 4, &s, msg, sizeof(msg));
      if (r == SC_SUCCESS) {
         compiled++;
         sc_shader_destroy(s);
         s = NULL;
      } else {
         failed++;
         CHECK(msg[0] != '\0' && s == NULL, "mutant %d: a message, no shader", t);
      }
   }
   CHECK(compiled + failed == 80, "every mutant answered");
   fprintf(stderr, "mutated stage modules: %d compiled, %d refused\n", compiled, failed);
}

/* ------------------------------------------------------------------------ */
/* Plane loads sunk below the sampler call                                   */
/* ------------------------------------------------------------------------ */

/* The next line of IR after p, or NULL. */
static const char *
next_line(const char *p)
{
   p = strchr(p, '\n');
   return p ? p + 1 : NULL;
}

/* Whether line (up to its end) holds s. */
static bool
line_has(const char *line, const char *s)
{
   const char *end = strchr(line, '\n');
   const char *h = strstr(line, s);
   return h && (!end || h < end);
}

/* llvm_stage.c plane_load marks a fragment shader's plane words
 * !invariant.load and llvm_jit.c sink_invariant_loads moves such a load,
 * after the pass pipeline, to the block of its users: vkcube's shader
 * read its frag_pos planes before the texture() call while the arithmetic
 * on them was below it, so each value lived across the call (every
 * vector register caller-saved there) and was spilled and reloaded.
 * stage_sink.frag samples at v_uv and only then uses v_a (smooth, 4
 * components) and v_b (noperspective, 3): the optimized IR (through
 * sc_compile_dump) of the function holding the indirect (sampler) call
 * must read those 7 components' planes (3 words each: a, b, c) after the
 * call, each load in the block of its users. Counts the invariant loads
 * after the first indirect call and requires at least 21, every one used
 * in its own block. */
static void
test_plane_sinking(uint32_t W)
{
   struct sc_compile_info info =
      compile_info(SPV(stage_sink_frag_spv), VK_SHADER_STAGE_FRAGMENT_BIT, W);
   struct sc_compile_dump dump = { .want_ir = true };
   info.dump = &dump;
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "sink compile (W=%u): %s", W, msg);
   CHECK(dump.ir_opt != NULL, "sink W=%u: optimized IR dumped", W);
   /* The indirect call: the sampler's, through the descriptor's sample_fn. */
   const char *call = NULL;
   for (const char *l = dump.ir_opt; l && !call; l = next_line(l))
      if (line_has(l, "call void %"))
         call = l;
   CHECK(call != NULL, "sink W=%u: the sampler call is an indirect call in the IR", W);
   unsigned after = 0, in_block = 0;
   for (const char *l = call ? next_line(call) : NULL; l && *l != '}'; l = next_line(l)) {
      if (!line_has(l, "!invariant.load") || !line_has(l, " = load "))
         continue;
      after++;
      /* The loaded value's name (%N), then a use of it later in the block
       * (which ends at a line not indented: a label or the closing brace). */
      const char *pc = strchr(l, '%'), *eq = strstr(l, " = ");
      char name[32];
      int len = pc && eq && eq > pc && eq - pc < 30 ? (int)(eq - pc) : 0;
      snprintf(name, sizeof(name), "%.*s", len, pc ? pc : "");
      bool used = false;
      for (const char *u = next_line(l); len && u && *u == ' ' && !used; u = next_line(u)) {
         for (const char *h = u; !used && (h = strstr(h, name)) && h < strchr(u, '\n'); h++) {
            const char c = h[len];
            used = !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') &&
                   !(c >= 'A' && c <= 'Z') && c != '_' && c != '.';
         }
      }
      in_block += used;
   }
   CHECK(after >= 21, "sink W=%u: %u plane loads after the sampler call, want >= 21", W, after);
   CHECK(in_block == after, "sink W=%u: %u of the %u loads after the call used in their block",
         W, in_block, after);
   if (getenv("SINK_DUMP") && dump.ir_opt)
      fputs(dump.ir_opt, stderr);
   sc_compile_dump_finish(&dump);
   sc_shader_destroy(s);
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
      test_vertex(widths[w]);
      test_xfb(widths[w]);
   }
   for (unsigned w = 1; w < 4; w++) {
      test_fragment_basic(widths[w]);
      test_fragment_unused(widths[w]);
      test_fragment_unused_outputs(widths[w]);
      test_derivatives(widths[w]);
      test_fragment_sample(widths[w]);
      test_fragment_demote(widths[w]);
      test_plane_sinking(widths[w]);
   }
   test_refusals();
   sc_compiler_destroy(compiler);
   return check_finish();
}
