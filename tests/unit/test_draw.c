/* Unit test of whole draws with compiled shaders: GLSL vertex and fragment
 * shaders compiled by the compiler (sc_compile) drawn through the
 * rasterizer (sr_scene_*), checked against perspective-correct
 * interpolation computed here, with discard, at SIMD widths 4, 8 and 16.
 * No Vulkan device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "compiler/sc_compiler.h"
#include "rasterizer/sr_scene.h"
#include "util/su_thread_pool.h"

#include "shaders/draw_fs_frag_spv.h"
#include "shaders/draw_vs_vert_spv.h"

#define FBW 96
#define FBH 80

static struct sc_compiler *compiler;

static struct sc_shader *compile(const uint32_t *words, size_t bytes, VkShaderStageFlagBits stage,
                                 uint32_t W)
{
   struct sc_compile_info info = {
      .words = words,
      .word_count = bytes / 4,
      .entry_point = "main",
      .stage = stage,
      .simd_width = W,
   };
   struct sc_shader *s = NULL;
   char msg[256] = "";
   enum sc_result r = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   CHECK(r == SC_SUCCESS, "compile (W=%u): %s: %s", W, sc_result_string(r), msg);
   return r == SC_SUCCESS ? s : NULL;
}

struct vtx {
   float pos[4];     /* clip coordinates */
   float color[4];
};

/* Window position of a vertex under the full-framebuffer viewport. */
static void window(const struct vtx *v, double *x, double *y)
{
   *x = (v->pos[0] / v->pos[3] + 1.0) * FBW / 2;
   *y = (v->pos[1] / v->pos[3] + 1.0) * FBH / 2;
}

/* One triangle of perspective-correct colours, alpha 0 to 1 across it;
 * fragments with alpha < 0.5 discarded. Every pixel whose centre is
 * clearly inside (and clearly away from the discard line) has the
 * reference colour; every pixel clearly outside keeps the clear value. */
static void test_triangle(uint32_t W, unsigned threads)
{
   struct sc_shader *vs = compile(draw_vs_vert_spv, sizeof(draw_vs_vert_spv),
                                  VK_SHADER_STAGE_VERTEX_BIT, W);
   struct sc_shader *fs = compile(draw_fs_frag_spv, sizeof(draw_fs_frag_spv),
                                  VK_SHADER_STAGE_FRAGMENT_BIT, W);
   struct su_thread_pool *pool = NULL;
   struct sr_context *ctx = NULL;
   if (!vs || !fs || !su_thread_pool_create(threads, &pool) ||
       sr_context_create(pool, NULL, &ctx) != VK_SUCCESS) {
      CHECK(false, "setup failed (W=%u)", W);
      goto out;
   }
   CHECK(fs->io.fs.outputs_written == 1 && fs->io.fs.can_discard,
         "fs info: outputs 0x%x, discard %u", fs->io.fs.outputs_written, fs->io.fs.can_discard);

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

   /* Different w per vertex: interpolation must be perspective-correct. */
   const struct vtx v[3] = {
      {{-0.9f * 1.0f, -0.8f * 1.0f, 0.2f, 1.0f}, {1.0f, 0.0f, 0.0f, 0.0f}},
      {{0.95f * 3.0f, -0.6f * 3.0f, 0.5f * 3.0f, 3.0f}, {0.0f, 1.0f, 0.0f, 1.0f}},
      {{-0.3f * 0.5f, 0.9f * 0.5f, 0.1f, 0.5f}, {0.0f, 0.0f, 1.0f, 1.0f}},
   };
   struct sr_draw_bindings b;
   memset(&b, 0, sizeof(b));
   b.vertex_buffers[0] = (struct sr_vertex_buffer){(const uint8_t *)v, sizeof(v)};
   const float discard_below = 0.5f;
   memcpy(b.push_constants, &discard_below, 4);

   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(ctx, &fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   VkClearValue cc = {.color.float32 = {-1, -1, -1, -1}};
   CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) == VK_SUCCESS,
         "clear");
   struct sr_draw d = {.count = 3, .instance_count = 1};
   CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
   sr_scene_end(scene);

   double X[3], Y[3];
   for (int i = 0; i < 3; i++)
      window(&v[i], &X[i], &Y[i]);
   double area2 = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   int inside = 0, drawn = 0, bad = 0, checked = 0;
   for (int y = 0; y < FBH; y++) {
      for (int x = 0; x < FBW; x++) {
         double px = x + 0.5, py = y + 0.5, l[3];
         for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3, k = (i + 2) % 3;
            l[i] = ((X[k] - X[j]) * (py - Y[j]) - (Y[k] - Y[j]) * (px - X[j])) / area2;
         }
         const float *c = color + (size_t)(y * FBW + x) * 4;
         bool written = c[0] != -1.0f;
         drawn += written;
         double lo = fmin(l[0], fmin(l[1], l[2]));
         if (lo < -1e-3) {
            bad += written;
            continue;
         }
         if (lo < 1e-3)
            continue;   /* on an edge: the top-left rule decides */
         /* Perspective-correct: sum(l_i a_i / w_i) / sum(l_i / w_i). */
         double den = 0, ref[4] = {0, 0, 0, 0};
         for (int i = 0; i < 3; i++) {
            den += l[i] / v[i].pos[3];
            for (int ch = 0; ch < 4; ch++)
               ref[ch] += l[i] * v[i].color[ch] / v[i].pos[3];
         }
         for (int ch = 0; ch < 4; ch++)
            ref[ch] /= den;
         if (fabs(ref[3] - discard_below) < 1e-3)
            continue;
         inside++;
         if (ref[3] < discard_below) {
            bad += written;
            continue;
         }
         checked++;
         for (int ch = 0; ch < 4; ch++)
            bad += !(fabs(c[ch] - ref[ch]) <= 1e-4 + 1e-4 * fabs(ref[ch]));
      }
   }
   CHECK(inside > FBW * FBH / 8 && checked > FBW * FBH / 16,
         "W=%u: triangle covers %d pixels, %d kept", W, inside, checked);
   CHECK(bad == 0, "W=%u, %u threads: %d pixels wrong (of %d drawn)", W, threads, bad, drawn);
   fprintf(stderr, "W=%u: %d pixels drawn, %d checked\n", W, drawn, checked);
   free(color);
out:
   if (ctx)
      sr_context_destroy(ctx);
   if (pool)
      su_thread_pool_destroy(pool);
   if (vs)
      sc_shader_destroy(vs);
   if (fs)
      sc_shader_destroy(fs);
}

int main(void)
{
   if (sc_compiler_create(&compiler) != SC_SUCCESS) {
      fprintf(stderr, "no compiler\n");
      return 1;
   }
   test_triangle(4, 1);
   test_triangle(8, 2);
   test_triangle(16, 2);
   sc_compiler_destroy(compiler);
   return check_finish();
}
