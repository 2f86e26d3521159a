/* Unit test of the rasterizer's front end (vertex fetch and shading,
 * assembly, clipping, fixed-point setup, binning) through whole scenes:
 * C functions with the shader ABI's signatures act as shaders, surfaces are
 * malloc'ed, and results are compared exactly with a reference rasterizer
 * written here from the spec's rules (pixel centres, 8 sub-pixel bits, the
 * top-left rule). The fragment shader counts the fragments of every pixel,
 * so "covered exactly once" is observed directly. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rasterizer/sr_scene.h"
#include "util/su_thread_pool.h"

#define FBW 200
#define FBH 150
/* The viewport is 256 x 256 at (0, 0): clip x = xw / 128 - 1 is exact for
 * window coordinates in 1/256 pixels. */
#define VPS 256

static uint32_t rng_state = 0x2545f491u;

static uint32_t
rng(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 17;
   rng_state ^= rng_state << 5;
   return rng_state;
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float
bitsf(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/* ---- Shaders ---- */

/* Fragments per pixel (and per sample bit count), written by fs_count. */
static uint32_t counters[FBH][FBW];

/* Vertex shader: Location 0 -> Position, Location 1 -> Location 0;
 * Location 2 (per-instance offset, when read) is added to x and y. */
#define VS_DEF(W)                                                                          \
   static void vs_copy_##W(const struct shale_vs_context *ctx, struct shale_vs_batch *b)    \
   {                                                                                       \
      (void)ctx;                                                                           \
      for (uint32_t i = 0; i < b->count; i++) {                                            \
         for (int c = 0; c < 4; c++) {                                                     \
            float v = bitsf(b->inputs[(0 * 4 + c) * W + i]);                               \
            if (c < 2)                                                                     \
               v += bitsf(b->inputs[(2 * 4 + c) * W + i]);                                 \
            b->outputs[(SHALE_SLOT_POSITION * 4 + c) * W + i] = fbits(v);                  \
            b->outputs[((SHALE_SLOT_USER + 0) * 4 + c) * W + i] = b->inputs[(1 * 4 + c) * W + i]; \
         }                                                                                 \
      }                                                                                    \
   }
VS_DEF(4)
VS_DEF(8)
VS_DEF(16)

/* Fragment shaders: fs_count adds each covered lane's sample count to its
 * pixel's counter and writes Location 0 input (read flat) as the colour;
 * fs_smooth writes the perspective-correct Location 0 input. */
#define FS_DEF(W)                                                                          \
   static void fs_count_##W(const struct shale_fs_context *ctx, struct shale_fs_quads *q)  \
   {                                                                                       \
      (void)ctx;                                                                           \
      q->kill_mask = 0;                                                                    \
      for (uint32_t i = 0; i < q->quad_count * 4; i++) {                                   \
         for (int c = 0; c < 4; c++)                                                       \
            q->outputs[c * W + i] = fbits(q->planes[2 + c].c);                             \
         if (!q->coverage[i])                                                              \
            continue;                                                                      \
         int x = q->x[i / 4] + (int)(i & 1), y = q->y[i / 4] + (int)((i >> 1) & 1);        \
         if (x >= 0 && y >= 0 && x < FBW && y < FBH)                                       \
            __atomic_fetch_add(&counters[y][x], (uint32_t)__builtin_popcount(q->coverage[i]), \
                               __ATOMIC_RELAXED);                                          \
      }                                                                                    \
   }                                                                                       \
   static void fs_smooth_##W(const struct shale_fs_context *ctx, struct shale_fs_quads *q) \
   {                                                                                       \
      (void)ctx;                                                                           \
      q->kill_mask = 0;                                                                    \
      for (uint32_t i = 0; i < W; i++) {                                                   \
         float x = (float)(q->x[i / 4] + (int)(i & 1)) + 0.5f;                             \
         float y = (float)(q->y[i / 4] + (int)((i >> 1) & 1)) + 0.5f;                      \
         float inv_w = q->planes[1].a * x + q->planes[1].b * y + q->planes[1].c;           \
         for (int c = 0; c < 4; c++) {                                                     \
            const struct shale_fs_plane *p = &q->planes[2 + c];                            \
            q->outputs[c * W + i] = fbits((p->a * x + p->b * y + p->c) / inv_w);           \
         }                                                                                 \
      }                                                                                    \
   }
FS_DEF(4)
FS_DEF(8)
FS_DEF(16)

static shale_vs_fn
vs_for(uint32_t w)
{
   return w == 4 ? vs_copy_4 : w == 8 ? vs_copy_8 : vs_copy_16;
}

static shale_fs_fn
fs_count_for(uint32_t w)
{
   return w == 4 ? fs_count_4 : w == 8 ? fs_count_8 : fs_count_16;
}

static shale_fs_fn
fs_smooth_for(uint32_t w)
{
   return w == 4 ? fs_smooth_4 : w == 8 ? fs_smooth_8 : fs_smooth_16;
}

/* ---- Vertices, state, surfaces ---- */

struct vtx {
   float pos[4];
   uint8_t rgba[4];
};

/* A vertex at window position (X, Y) in 1/256 pixels, depth z, clip w. */
static struct vtx
vwin(int64_t X, int64_t Y, float z, float w, uint32_t rgba)
{
   struct vtx v = {{((float)X / 256.0f / (VPS / 2) - 1.0f) * w,
                    ((float)Y / 256.0f / (VPS / 2) - 1.0f) * w, z * w, w},
                   {(uint8_t)rgba, (uint8_t)(rgba >> 8), (uint8_t)(rgba >> 16), (uint8_t)(rgba >> 24)}};
   return v;
}

struct rig {
   struct su_thread_pool *pool;
   struct sr_context *ctx;
   uint8_t *color;
   float *depth;
   struct sr_framebuffer fb;
};

static void
rig_init(struct rig *r, unsigned threads)
{
   memset(r, 0, sizeof(*r));
   if (!su_thread_pool_create(threads, &r->pool) || sr_context_create(r->pool, NULL, &r->ctx) != VK_SUCCESS) {
      fprintf(stderr, "no pool or context\n");
      exit(1);
   }
   r->color = calloc(FBW * FBH, 4);
   r->depth = calloc(FBW * FBH, 4);
   r->fb.color_count = 1;
   r->fb.color[0] = (struct sr_surface){
      .base = r->color, .format = su_format_desc(VK_FORMAT_R8G8B8A8_UNORM),
      .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .width = FBW, .height = FBH, .layers = 1,
      .samples = 1, .row_pitch = FBW * 4, .layer_pitch = FBW * FBH * 4};
   r->fb.depth = (struct sr_surface){
      .base = (uint8_t *)r->depth, .format = su_format_desc(VK_FORMAT_D32_SFLOAT),
      .vk_format = VK_FORMAT_D32_SFLOAT, .width = FBW, .height = FBH, .layers = 1,
      .samples = 1, .row_pitch = FBW * 4, .layer_pitch = FBW * FBH * 4};
   r->fb.width = FBW;
   r->fb.height = FBH;
   r->fb.layers = 1;
   r->fb.samples = 1;
}

static void
rig_finish(struct rig *r)
{
   sr_context_destroy(r->ctx);
   su_thread_pool_destroy(r->pool);
   free(r->color);
   free(r->depth);
}

static void
state_init(struct sr_draw_state *st, uint32_t width, VkPrimitiveTopology topology, bool smooth)
{
   memset(st, 0, sizeof(*st));
   st->vs = vs_for(width);
   st->fs = smooth ? fs_smooth_for(width) : fs_count_for(width);
   st->vs_width = st->fs_width = width;
   st->vs_io.outputs_written = (1ull << SHALE_SLOT_POSITION) | (1ull << SHALE_SLOT_USER);
   st->vs_io.inputs_read = 0x7;
   for (int c = 0; c < 4; c++)
      st->fs_io.interp[c] = smooth ? SHALE_INTERP_SMOOTH : SHALE_INTERP_FLAT;
   st->fs_io.outputs_written = 1;
   st->binding_mask = 1;
   st->bindings[0] = (struct sr_vertex_binding){sizeof(struct vtx), VK_VERTEX_INPUT_RATE_VERTEX, 1};
   st->bindings[1] = (struct sr_vertex_binding){8, VK_VERTEX_INPUT_RATE_INSTANCE, 1};
   st->attribute_count = 2;
   st->attributes[0] = (struct sr_vertex_attribute){0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0};
   st->attributes[1] = (struct sr_vertex_attribute){1, 0, VK_FORMAT_R8G8B8A8_UNORM, 16};
   st->topology = topology;
   st->viewport = (VkViewport){0, 0, VPS, VPS, 0, 1};
   st->scissor = (VkRect2D){{0, 0}, {FBW, FBH}};
   st->polygon_mode = VK_POLYGON_MODE_FILL;
   st->cull_mode = VK_CULL_MODE_NONE;
   st->front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE;
   st->line_width = 1.0f;
   st->samples = 1;
   st->sample_mask = ~0u;
   st->depth_compare = VK_COMPARE_OP_ALWAYS;
   for (int i = 0; i < SR_MAX_COLOR_ATTACHMENTS; i++)
      st->blend[i].write_mask = 0xf;
}

static void
bindings_init(struct sr_draw_bindings *b, const struct vtx *v, size_t n)
{
   memset(b, 0, sizeof(*b));
   b->vertex_buffers[0] = (struct sr_vertex_buffer){(const uint8_t *)v, n * sizeof(*v)};
}

/* One scene: clear colour to 0 (and depth to 1), the draws, end. */
struct draw_call {
   const struct sr_draw_state *st;
   const struct sr_draw_bindings *b;
   struct sr_draw d;
};

static void
run_scene(struct rig *r, const struct draw_call *calls, unsigned n)
{
   memset(counters, 0, sizeof(counters));
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   VkClearValue cc = {.color.float32 = {0, 0, 0, 0}};
   VkClearValue cd = {.depthStencil = {1.0f, 0}};
   CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) == VK_SUCCESS, "clear");
   CHECK(sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, &cd, &area, 0, 1) ==
            VK_SUCCESS, "clear");
   for (unsigned i = 0; i < n; i++)
      CHECK(sr_scene_draw(scene, calls[i].st, calls[i].b, &calls[i].d) == VK_SUCCESS, "draw %u", i);
   sr_scene_end(scene);
}

/* ---- Reference rasterizer ---- */

/* Reference coverage of the triangle (X[i], Y[i]) (1/256 pixels, already
 * snapped) at pixel centres: added to ref[y][x]. A centre on an edge is
 * covered only if the edge is a top edge (horizontal, the triangle below
 * it) or a left edge (the triangle to its right); zero-area triangles
 * cover nothing. */
static void
ref_triangle(const int64_t X[3], const int64_t Y[3], uint32_t ref[FBH][FBW], int32_t sx0, int32_t sy0,
             int32_t sx1, int32_t sy1)
{
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   if (area == 0)
      return;
   /* Only pixels whose centre can be inside the box of the vertices. */
   int64_t bx0 = X[0], by0 = Y[0], bx1 = X[0], by1 = Y[0];
   for (int i = 1; i < 3; i++) {
      bx0 = X[i] < bx0 ? X[i] : bx0, bx1 = X[i] > bx1 ? X[i] : bx1;
      by0 = Y[i] < by0 ? Y[i] : by0, by1 = Y[i] > by1 ? Y[i] : by1;
   }
   if (bx0 / 256 - 1 > sx0)
      sx0 = (int32_t)(bx0 / 256 - 1);
   if (by0 / 256 - 1 > sy0)
      sy0 = (int32_t)(by0 / 256 - 1);
   if (bx1 / 256 + 2 < sx1)
      sx1 = (int32_t)(bx1 / 256 + 2);
   if (by1 / 256 + 2 < sy1)
      sy1 = (int32_t)(by1 / 256 + 2);
   for (int32_t y = sy0; y < sy1; y++) {
      for (int32_t x = sx0; x < sx1; x++) {
         int64_t px = (int64_t)x * 256 + 128, py = (int64_t)y * 256 + 128;
         bool in = true;
         for (int e = 0; e < 3 && in; e++) {
            const int64_t ax = X[e], ay = Y[e], bx = X[(e + 1) % 3], by = Y[(e + 1) % 3];
            const int64_t ox = X[(e + 2) % 3], oy = Y[(e + 2) % 3];
            /* Which side the opposite vertex and the centre are on. */
            int64_t so = (bx - ax) * (oy - ay) - (by - ay) * (ox - ax);
            int64_t sp = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
            if (sp == 0) {
               bool top = by == ay && oy > ay;
               bool left = by != ay && ((ox - ax) * (by - ay) - (bx - ax) * (oy - ay)) * (by - ay) > 0;
               in = top || left;
            } else {
               in = (sp > 0) == (so > 0);
            }
         }
         ref[y][x] += in;
      }
   }
}

static uint32_t ref[FBH][FBW];

static int
compare_counters(const char *what)
{
   int bad = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++)
         if (counters[y][x] != ref[y][x]) {
            if (bad < 5)
               fprintf(stderr, "%s: pixel (%d, %d): %u fragments, reference %u\n", what, x, y,
                       counters[y][x], ref[y][x]);
            bad++;
         }
   CHECK(bad == 0, "%s: %d pixels differ", what, bad);
   return bad;
}

/* ---- Tests ---- */

/* Two triangles sharing a diagonal: every pixel of the quad once. */
static void
test_two_triangles(struct rig *r, uint32_t width)
{
   const int64_t X[4] = {10 * 256 + 37, 150 * 256 + 3, 170 * 256 + 200, 5 * 256 + 128};
   const int64_t Y[4] = {7 * 256 + 128, 12 * 256 + 77, 140 * 256 + 1, 120 * 256 + 255};
   struct vtx v[6];
   const int idx[6] = {0, 1, 2, 0, 2, 3};
   for (int i = 0; i < 6; i++)
      v[i] = vwin(X[idx[i]], Y[idx[i]], 0.5f, 1.0f, i < 3 ? 0xff0000ffu : 0xff00ff00u);
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 6);
   struct draw_call call = {&st, &b, {.count = 6, .instance_count = 1}};
   run_scene(r, &call, 1);

   memset(ref, 0, sizeof(ref));
   uint32_t refa[FBH][FBW];
   memset(refa, 0, sizeof(refa));
   for (int t = 0; t < 2; t++) {
      int64_t tx[3], ty[3];
      for (int i = 0; i < 3; i++)
         tx[i] = X[idx[t * 3 + i]], ty[i] = Y[idx[t * 3 + i]];
      ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
      if (t == 0)
         memcpy(refa, ref, sizeof(refa));
   }
   int multiple = 0, covered = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++)
         multiple += ref[y][x] > 1, covered += ref[y][x] == 1;
   CHECK(multiple == 0 && covered > 10000, "reference: %d pixels covered twice, %d once", multiple, covered);
   compare_counters("two triangles");
   /* Colours: the flat colour of the triangle that covers the pixel. */
   int bad = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++) {
         uint32_t got;
         memcpy(&got, r->color + (y * FBW + x) * 4, 4);
         uint32_t want = !ref[y][x] ? 0 : refa[y][x] ? 0xff0000ffu : 0xff00ff00u;
         bad += got != want;
      }
   CHECK(bad == 0, "two triangles: %d pixels of the wrong colour", bad);
}

/* Many random triangles (inside and across the framebuffer's edges, every
 * orientation, some degenerate): fragment counts equal the reference's. */
static void
test_random_triangles(struct rig *r, uint32_t width, unsigned count)
{
   struct vtx *v = malloc(sizeof(*v) * count * 3);
   memset(ref, 0, sizeof(ref));
   for (unsigned t = 0; t < count; t++) {
      int64_t X[3], Y[3];
      for (int i = 0; i < 3; i++) {
         /* Small triangles near a random point; sometimes on the pixel grid. */
         int64_t cx = (int64_t)(rng() % ((FBW + 40) * 256)) - 20 * 256;
         int64_t cy = (int64_t)(rng() % ((FBH + 40) * 256)) - 20 * 256;
         if (i == 0) {
            X[0] = cx, Y[0] = cy;
         } else {
            X[i] = X[0] + (int64_t)(rng() % (40 * 256)) - 20 * 256;
            Y[i] = Y[0] + (int64_t)(rng() % (40 * 256)) - 20 * 256;
         }
         if (t % 4 == 1)
            X[i] = (X[i] & ~255) + 128, Y[i] = (Y[i] & ~255) + 128;   /* on pixel centres */
         if (t % 8 == 3 && i == 2)
            Y[2] = Y[1];   /* a horizontal edge */
      }
      ref_triangle(X, Y, ref, 0, 0, FBW, FBH);
      for (int i = 0; i < 3; i++)
         v[t * 3 + i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   }
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct sr_draw_bindings b;
   bindings_init(&b, v, count * 3);
   struct draw_call call = {&st, &b, {.count = count * 3, .instance_count = 1}};
   run_scene(r, &call, 1);
   compare_counters("random triangles");
   free(v);
}

/* A fan of triangles around a pixel centre, every vertex on a pixel centre:
 * edges run through sample points in every direction. */
static void
test_fan_on_centres(struct rig *r, uint32_t width)
{
   enum { N = 16 };
   struct vtx v[N * 3];
   memset(ref, 0, sizeof(ref));
   const int64_t cx = 100 * 256 + 128, cy = 75 * 256 + 128;
   int64_t px[N], py[N];
   for (int i = 0; i < N; i++) {
      double a = 2 * M_PI * i / N;
      px[i] = (int64_t)lround(cos(a) * 60) * 256 + cx;
      py[i] = (int64_t)lround(sin(a) * 60) * 256 + cy;
   }
   for (int i = 0; i < N; i++) {
      int64_t X[3] = {cx, px[i], px[(i + 1) % N]}, Y[3] = {cy, py[i], py[(i + 1) % N]};
      ref_triangle(X, Y, ref, 0, 0, FBW, FBH);
      for (int k = 0; k < 3; k++)
         v[i * 3 + k] = vwin(X[k], Y[k], 0.5f, 1.0f, 0xffffffffu);
   }
   int multiple = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++)
         multiple += ref[y][x] > 1;
   CHECK(multiple == 0, "reference fan: %d pixels covered twice", multiple);
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct sr_draw_bindings b;
   bindings_init(&b, v, N * 3);
   struct draw_call call = {&st, &b, {.count = N * 3, .instance_count = 1}};
   run_scene(r, &call, 1);
   compare_counters("fan on centres");
}

/* Binning: a small triangle's primitive is in the bins of exactly the tiles
 * its box touches, after any clear. */
static void
test_bins(struct rig *r)
{
   struct vtx v[3] = {vwin(60 * 256, 10 * 256, 0.5f, 1, 0), vwin(70 * 256, 10 * 256, 0.5f, 1, 0),
                      vwin(60 * 256, 70 * 256, 0.5f, 1, 0)};
   struct sr_draw_state st;
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   struct sr_draw d = {.count = 3, .instance_count = 1};
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
   CHECK_EQ_INT(scene->tiles_x, 4);
   CHECK_EQ_INT(scene->tiles_y, 3);
   for (uint32_t ty = 0; ty < scene->tiles_y; ty++)
      for (uint32_t tx = 0; tx < scene->tiles_x; tx++) {
         const struct sr_bin *bin = &scene->bins[ty * scene->tiles_x + tx];
         bool want = tx <= 1 && ty <= 1;
         CHECK(want == (bin->first != NULL), "tile (%u, %u) binned %d", tx, ty, bin->first != NULL);
         if (bin->first) {
            CHECK(bin->first->count == 1 && bin->first->cmds[0].kind == SR_CMD_PRIM, "one prim");
            const struct sr_prim *p = bin->first->cmds[0].prim;
            CHECK(p->min_x == 60 && p->min_y == 10 && p->max_x == 70 && p->max_y == 70,
                  "box %d %d %d %d", p->min_x, p->min_y, p->max_x, p->max_y);
            CHECK(p->draw->fs_input_count == 6, "planes %u", p->draw->fs_input_count);
            /* Flat colour 0: the plane's c holds the bits of 0.0f. */
            CHECK(p->planes[2].a == 0 && p->planes[2].b == 0 && fbits(p->planes[2].c) == 0, "flat plane");
            CHECK(p->planes[1].c == 1.0f && p->planes[1].a == 0 && p->planes[1].b == 0, "1/w plane");
            CHECK(fabsf(p->z.c - 0.5f) < 1e-6f && p->z.a == 0 && p->z.b == 0, "z plane");
         }
      }
   sr_scene_end(scene);
}

/* The same scene at 1, 2 and 4 threads and every SIMD width: bit-identical. */
static void
test_threads(void)
{
   enum { N = 300 };
   struct vtx *v = malloc(sizeof(*v) * N * 3);
   for (unsigned i = 0; i < N * 3; i++) {
      float w = 0.5f + (float)(rng() % 1000) / 500.0f;
      v[i] = vwin((int64_t)(rng() % (FBW * 256 + 4000)) - 2000, (int64_t)(rng() % (FBH * 256 + 4000)) - 2000,
                  (float)(rng() % 1000) / 1000.0f, w, rng());
   }
   uint8_t *first = NULL;
   const unsigned threads[3] = {1, 2, 4};
   const uint32_t widths[3] = {4, 8, 16};
   for (int t = 0; t < 3; t++) {
      for (int wi = 0; wi < 3; wi++) {
         struct rig r;
         rig_init(&r, threads[t]);
         struct sr_draw_state st;
         state_init(&st, widths[wi], VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true);
         struct sr_draw_bindings b;
         bindings_init(&b, v, N * 3);
         struct draw_call call = {&st, &b, {.count = N * 3, .instance_count = 1}};
         run_scene(&r, &call, 1);
         if (!first) {
            first = malloc(FBW * FBH * 4);
            memcpy(first, r.color, FBW * FBH * 4);
            int lit = 0;
            for (int i = 0; i < FBW * FBH; i++)
               lit += first[i * 4 + 3] != 0;
            CHECK(lit > FBW * FBH / 4, "threads scene covers %d pixels", lit);
         } else {
            CHECK(memcmp(first, r.color, FBW * FBH * 4) == 0, "%u threads, width %u: image differs",
                  threads[t], widths[wi]);
         }
         rig_finish(&r);
      }
   }
   free(first);
   free(v);
}

int
main(void)
{
   struct rig r;
   rig_init(&r, 2);
   test_bins(&r);
   for (uint32_t w = 4; w <= 16; w *= 2) {
      test_two_triangles(&r, w);
      test_fan_on_centres(&r, w);
      test_random_triangles(&r, w, 400);
   }
   rig_finish(&r);
   test_threads();
   return check_finish();
}
