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
#include "float_bits.h"
#include "rasterizer/sr_coverage.h"
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
   }                                                                                       \
   static void fs_linear_##W(const struct shale_fs_context *ctx, struct shale_fs_quads *q) \
   {                                                                                       \
      (void)ctx;                                                                           \
      q->kill_mask = 0;                                                                    \
      for (uint32_t i = 0; i < W; i++) {                                                   \
         float x = (float)(q->x[i / 4] + (int)(i & 1)) + 0.5f;                             \
         float y = (float)(q->y[i / 4] + (int)((i >> 1) & 1)) + 0.5f;                      \
         for (int c = 0; c < 4; c++) {                                                     \
            const struct shale_fs_plane *p = &q->planes[2 + c];                            \
            q->outputs[c * W + i] = fbits(p->a * x + p->b * y + p->c);                     \
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

/* The rig's colour and depth made 4 samples a pixel (zeroed), in place of
 * rig_init()'s single-sample ones. */
static void
rig_samples4(struct rig *r)
{
   free(r->color);
   free(r->depth);
   r->color = calloc(FBW * FBH * 4, 4);
   r->depth = calloc(FBW * FBH * 4, 4);
   r->fb.color[0].base = r->color;
   r->fb.depth.base = (uint8_t *)r->depth;
   r->fb.color[0].samples = r->fb.depth.samples = 4;
   r->fb.color[0].row_pitch = r->fb.depth.row_pitch = FBW * 16;
   r->fb.color[0].layer_pitch = r->fb.depth.layer_pitch = FBW * FBH * 16;
   r->fb.samples = 4;
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
   st->viewports[0] = (VkViewport){0, 0, VPS, VPS, 0, 1};
   st->scissors[0] = (VkRect2D){{0, 0}, {FBW, FBH}};
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

/* Reference coverage of the convex polygon (X[i], Y[i]) (1/256 pixels,
 * already snapped, n >= 3, no three corners on a line) at pixel centres
 * inside [sx0, sx1) x [sy0, sy1): added to ref[y][x]. A centre on an edge
 * is covered only if the edge is a top edge (horizontal, the polygon below
 * it) or a left edge (the polygon to its right); zero-area polygons cover
 * nothing. */
static int64_t ref_sample_x = 128, ref_sample_y = 128;   /* sample position in the pixel, 1/256 */

static void
ref_polygon(const int64_t *X, const int64_t *Y, int n, uint32_t ref[FBH][FBW], int32_t sx0, int32_t sy0,
            int32_t sx1, int32_t sy1)
{
   int64_t area = 0;
   for (int i = 1; i + 1 < n; i++)
      area += (X[i] - X[0]) * (Y[i + 1] - Y[0]) - (X[i + 1] - X[0]) * (Y[i] - Y[0]);
   if (area == 0)
      return;
   /* Only pixels whose centre can be inside the box of the corners. */
   int64_t bx0 = X[0], by0 = Y[0], bx1 = X[0], by1 = Y[0];
   for (int i = 1; i < n; i++) {
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
         int64_t px = (int64_t)x * 256 + ref_sample_x, py = (int64_t)y * 256 + ref_sample_y;
         bool in = true;
         for (int e = 0; e < n && in; e++) {
            const int64_t ax = X[e], ay = Y[e], bx = X[(e + 1) % n], by = Y[(e + 1) % n];
            const int64_t ox = X[(e + 2) % n], oy = Y[(e + 2) % n];
            /* Which side another corner and the centre are on. */
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

static void
ref_triangle(const int64_t X[3], const int64_t Y[3], uint32_t ref[FBH][FBW], int32_t sx0, int32_t sy0,
             int32_t sx1, int32_t sy1)
{
   ref_polygon(X, Y, 3, ref, sx0, sy0, sx1, sy1);
}

/* A non-strict line of width w (1/256 units) from A to B: the
 * parallelogram with two sides through A and B along the minor axis. */
static void
ref_line(int64_t xa, int64_t ya, int64_t xb, int64_t yb, int64_t w, uint32_t ref[FBH][FBW])
{
   int64_t dx = xb - xa, dy = yb - ya, h = w / 2;
   bool x_major = (dx < 0 ? -dx : dx) >= (dy < 0 ? -dy : dy);
   int64_t ox = x_major ? 0 : h, oy = x_major ? h : 0;
   const int64_t X[4] = {xa - ox, xb - ox, xb + ox, xa + ox};
   const int64_t Y[4] = {ya - oy, yb - oy, yb + oy, ya + oy};
   ref_polygon(X, Y, 4, ref, 0, 0, FBW, FBH);
}

/* A point of side s (1/256 units) centred on (x, y). */
static void
ref_point(int64_t x, int64_t y, int64_t s, uint32_t ref[FBH][FBW])
{
   const int64_t X[4] = {x - s / 2, x + s / 2, x + s / 2, x - s / 2};
   const int64_t Y[4] = {y - s / 2, y - s / 2, y + s / 2, y + s / 2};
   ref_polygon(X, Y, 4, ref, 0, 0, FBW, FBH);
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

/* Large random triangles (corners anywhere in and around the
 * framebuffer) under a scissor whose sides are not on 4-pixel block
 * lines: the tile loop's whole-block class (the clip box holding the
 * block), its row ends (blocks rejected by edges falling to the right)
 * and its partial blocks; fragment counts equal the reference's. */
static void
test_large_scissored(struct rig *r, uint32_t width)
{
   enum { COUNT = 40 };
   const int32_t sx0 = 7, sy0 = 5, sx1 = FBW - 6, sy1 = FBH - 3;
   struct vtx v[COUNT * 3];
   memset(ref, 0, sizeof(ref));
   for (unsigned t = 0; t < COUNT; t++) {
      int64_t X[3], Y[3];
      for (int i = 0; i < 3; i++) {
         X[i] = (int64_t)(rng() % ((FBW + 100) * 256)) - 50 * 256;
         Y[i] = (int64_t)(rng() % ((FBH + 100) * 256)) - 50 * 256;
         if (t % 5 == 2)
            X[i] = (X[i] & ~1023) + 128, Y[i] = (Y[i] & ~1023) + 128;   /* block corners */
      }
      if (t % 7 == 4)
         Y[2] = Y[1];   /* a horizontal edge (a = 0): no step to the right */
      if (t % 7 == 5)
         X[2] = X[1];   /* a vertical edge (b = 0): steps to the right only */
      ref_triangle(X, Y, ref, sx0, sy0, sx1, sy1);
      for (int i = 0; i < 3; i++)
         v[t * 3 + i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   }
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.scissors[0] = (VkRect2D){{sx0, sy0}, {(uint32_t)(sx1 - sx0), (uint32_t)(sy1 - sy0)}};
   struct sr_draw_bindings b;
   bindings_init(&b, v, COUNT * 3);
   struct draw_call call = {&st, &b, {.count = COUNT * 3, .instance_count = 1}};
   run_scene(r, &call, 1);
   compare_counters("large scissored triangles");
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

static void rand_win(int64_t *X, int64_t *Y);
static void draw1(struct rig *r, const struct sr_draw_state *st, const struct sr_draw_bindings *b,
                  struct sr_draw d);

/* The same scene at 1, 2 and 4 threads and every SIMD width: bit-identical. */
static void
test_threads(void)
{
   enum { N = 2500 };   /* > 1024 triangles: parallel setup at 2 and 4 threads */
   struct vtx *v = malloc(sizeof(*v) * N * 3);
   int64_t cx = 0, cy = 0;
   for (unsigned i = 0; i < N * 3; i++) {
      /* Triangles of up to 24 pixels around random centres, some large. */
      if (i % 3 == 0)
         rand_win(&cx, &cy);
      int64_t reach = i % 300 < 3 ? 200 * 256 : 24 * 256;
      float w = 0.5f + (float)(rng() % 1000) / 500.0f;
      v[i] = vwin(cx + (int64_t)(rng() % (2 * reach)) - reach, cy + (int64_t)(rng() % (2 * reach)) - reach,
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
            CHECK(lit > FBW * FBH / 2, "threads scene covers %d pixels", lit);
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


/* A large indexed draw (more than 65536 positions: its indices are read on
 * the pool from four threads on, sr_vertex.c read_indices_parallel): a
 * jittered grid mesh whose triangles come in a shuffled order, index
 * values offset (vertexOffset undoes it), two instances, 16- and 32-bit
 * indices. The image and depth must equal those of the same triangles
 * drawn non-indexed (records are functions of the vertex alone) at 1, 2,
 * 4 and 5 threads; so must the grid with index values spread too wide
 * for the value map (every position shaded), and 8-bit indices into a
 * corner of the grid (against that corner's triangles non-indexed). Then
 * the grid's rows as strips cut by restart indices,
 * three times over (restart flags read in every chunk): 2, 4 and 5
 * threads must give the 1-thread image. */
static void
test_indexed_threads(void)
{
   enum { G = 120, TRIS = (G - 1) * (G - 1) * 2, BASE = 7, STRIP_POS = 3 * (G - 1) * (2 * G + 1) };
   struct vtx *v = malloc(sizeof(*v) * G * G);
   struct vtx *flat = malloc(sizeof(*flat) * TRIS * 3);
   uint32_t *tri = malloc(sizeof(*tri) * TRIS * 3);
   uint32_t *order = malloc(sizeof(*order) * TRIS);
   uint8_t *idx = malloc(4 * (size_t)(TRIS * 3 > STRIP_POS ? TRIS * 3 : STRIP_POS));
   uint8_t *ref_color = malloc(FBW * FBH * 4);
   float *ref_depth = malloc(FBW * FBH * 4);
   for (int y = 0; y < G; y++) {
      for (int x = 0; x < G; x++) {
         int64_t X = (int64_t)x * (FBW + 10) * 256 / (G - 1) - 5 * 256 + (int64_t)(rng() % 200) - 100;
         int64_t Y = (int64_t)y * (FBH + 10) * 256 / (G - 1) - 5 * 256 + (int64_t)(rng() % 200) - 100;
         v[y * G + x] = vwin(X, Y, (float)(rng() % 1000) / 1000.0f, 0.5f + (float)(rng() % 1000) / 500.0f,
                             rng());
      }
   }
   for (int y = 0, t = 0; y + 1 < G; y++) {
      for (int x = 0; x + 1 < G; x++, t += 2) {
         const uint32_t a = y * G + x, b = a + 1, c = a + G, d = c + 1;
         const uint32_t q[6] = {a, b, c, b, d, c};
         memcpy(&tri[3 * t], q, sizeof(q));
      }
   }
   for (uint32_t t = 0; t < TRIS; t++)
      order[t] = t;
   for (uint32_t t = TRIS - 1; t > 0; t--) {
      uint32_t k = (uint32_t)(rng() % (t + 1)), s = order[t];
      order[t] = order[k];
      order[k] = s;
   }
   for (uint32_t t = 0; t < TRIS; t++)
      for (int k = 0; k < 3; k++)
         flat[3 * t + k] = v[tri[3 * order[t] + k]];

   struct sr_draw_state st;
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true);
   struct sr_draw_bindings b;
   struct rig r;
   rig_init(&r, 1);
   bindings_init(&b, flat, TRIS * 3);
   draw1(&r, &st, &b, (struct sr_draw){.count = TRIS * 3, .instance_count = 1});
   memcpy(ref_color, r.color, FBW * FBH * 4);
   memcpy(ref_depth, r.depth, FBW * FBH * 4);
   rig_finish(&r);
   int lit = 0;
   for (int i = 0; i < FBW * FBH; i++)
      lit += ref_color[i * 4 + 3] != 0;
   CHECK(lit == FBW * FBH, "indexed grid reference covers %d of %d pixels", lit, FBW * FBH);

   const unsigned threads[4] = {1, 2, 4, 5};
   for (int size = 2; size <= 4; size += 2) {
      for (uint32_t t = 0; t < TRIS; t++) {
         for (int k = 0; k < 3; k++) {
            uint32_t value = tri[3 * order[t] + k] + BASE;
            memcpy(idx + (3 * t + k) * size, &value, size);
         }
      }
      for (int ti = 0; ti < 4; ti++) {
         rig_init(&r, threads[ti]);
         bindings_init(&b, v, G * G);
         b.index_base = idx;
         b.index_size = (uint64_t)TRIS * 3 * size;
         b.index_type = size == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32;
         draw1(&r, &st, &b, (struct sr_draw){.indexed = true, .count = TRIS * 3, .instance_count = 2,
                                              .vertex_offset = -BASE});
         CHECK(memcmp(r.color, ref_color, FBW * FBH * 4) == 0 && memcmp(r.depth, ref_depth, FBW * FBH * 4) == 0,
               "%d-bit indices, %u threads: the non-indexed image and depth", size * 8, threads[ti]);
         rig_finish(&r);
      }
   }

   /* Index values spanning more than 4 * count + 64 (the grid's vertices
    * WIDE apart in a larger array, the rest zero): read_indices_parallel()
    * then shades every position with the serial loop over what its first
    * pass read (records numbered by position), and the serial reading
    * (1 and 2 threads) does the same; both must give the non-indexed
    * image. */
   enum { WIDE = 32 };
   CHECK((uint64_t)(G * G - 1) * WIDE + 1 > 4ull * TRIS * 3 + 64, "wide index span");
   struct vtx *wide = calloc((size_t)G * G * WIDE, sizeof(*wide));
   for (int i = 0; i < G * G; i++)
      wide[(size_t)i * WIDE] = v[i];
   for (uint32_t t = 0; t < TRIS; t++) {
      for (int k = 0; k < 3; k++) {
         uint32_t value = tri[3 * order[t] + k] * WIDE + BASE;
         memcpy(idx + (3 * t + k) * 4, &value, 4);
      }
   }
   for (int ti = 0; ti < 4; ti++) {
      rig_init(&r, threads[ti]);
      bindings_init(&b, wide, G * G * WIDE);
      b.index_base = idx;
      b.index_size = (uint64_t)TRIS * 3 * 4;
      b.index_type = VK_INDEX_TYPE_UINT32;
      draw1(&r, &st, &b, (struct sr_draw){.indexed = true, .count = TRIS * 3, .instance_count = 2,
                                           .vertex_offset = -BASE});
      CHECK(memcmp(r.color, ref_color, FBW * FBH * 4) == 0 && memcmp(r.depth, ref_depth, FBW * FBH * 4) == 0,
            "widely spread indices, %u threads: the non-indexed image and depth", threads[ti]);
      rig_finish(&r);
   }
   free(wide);

   /* 8-bit indices (VK_INDEX_TYPE_UINT8_EXT, VK_EXT_index_type_uint8;
    * render/index_uint8 draws them through the driver) on the parallel
    * path: the 16 x 16 corner of the grid (256 vertices), its
    * triangles in a permuted order REP8 times over (more than 65536
    * indices), against the same triangles drawn non-indexed. */
   enum { G8 = 16, TRIS8 = (G8 - 1) * (G8 - 1) * 2, REP8 = 49, N8 = TRIS8 * 3 * REP8 };
   CHECK(N8 >= 65536 && N8 <= TRIS * 3, "8-bit index count %d", N8);
   struct vtx *v8 = malloc(sizeof(*v8) * G8 * G8);
   for (int y = 0; y < G8; y++)
      for (int x = 0; x < G8; x++)
         v8[y * G8 + x] = v[y * G + x];
   for (int rep = 0, n = 0; rep < REP8; rep++) {
      for (int t = 0; t < TRIS8; t++) {
         const int u = (t * 7 + rep) % TRIS8, q = u / 2, y = q / (G8 - 1), x = q % (G8 - 1);
         const uint32_t a = y * G8 + x, bb = a + 1, c = a + G8, d = c + 1;
         const uint32_t tv[2][3] = {{a, bb, c}, {bb, d, c}};
         for (int k = 0; k < 3; k++, n++) {
            idx[n] = (uint8_t)tv[u & 1][k];
            flat[n] = v8[tv[u & 1][k]];
         }
      }
   }
   rig_init(&r, 1);
   bindings_init(&b, flat, N8);
   draw1(&r, &st, &b, (struct sr_draw){.count = N8, .instance_count = 1});
   memcpy(ref_color, r.color, FBW * FBH * 4);
   memcpy(ref_depth, r.depth, FBW * FBH * 4);
   rig_finish(&r);
   lit = 0;
   for (int i = 0; i < FBW * FBH; i++)
      lit += ref_color[i * 4 + 3] != 0;
   CHECK(lit > FBW * FBH / 100, "8-bit index reference covers %d pixels", lit);
   for (int ti = 0; ti < 4; ti++) {
      rig_init(&r, threads[ti]);
      bindings_init(&b, v8, G8 * G8);
      b.index_base = idx;
      b.index_size = N8;
      b.index_type = VK_INDEX_TYPE_UINT8_EXT;
      draw1(&r, &st, &b, (struct sr_draw){.indexed = true, .count = N8, .instance_count = 1});
      CHECK(memcmp(r.color, ref_color, FBW * FBH * 4) == 0 && memcmp(r.depth, ref_depth, FBW * FBH * 4) == 0,
            "8-bit indices, %u threads: the non-indexed image and depth", threads[ti]);
      rig_finish(&r);
   }
   free(v8);

   /* Strips: row y's is a(y, 0) a(y + 1, 0) a(y, 1) a(y + 1, 1) ..., then
    * a restart; the rows three times over. */
   uint32_t count = 0;
   for (int rep = 0; rep < 3; rep++) {
      for (int y = 0; y + 1 < G; y++) {
         for (int x = 0; x < G; x++) {
            const uint32_t pair[2] = {(uint32_t)(y * G + x), (uint32_t)((y + 1) * G + x)};
            memcpy(idx + 4 * count, pair, sizeof(pair));
            count += 2;
         }
         const uint32_t restart = 0xffffffffu;
         memcpy(idx + 4 * count, &restart, 4);
         count++;
      }
   }
   CHECK(count == STRIP_POS && count > 65536, "strip indices %u", count);
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, true);
   st.primitive_restart = true;
   for (int ti = 0; ti < 4; ti++) {
      rig_init(&r, threads[ti]);
      bindings_init(&b, v, G * G);
      b.index_base = idx;
      b.index_size = (uint64_t)count * 4;
      b.index_type = VK_INDEX_TYPE_UINT32;
      draw1(&r, &st, &b, (struct sr_draw){.indexed = true, .count = count, .instance_count = 1});
      if (ti == 0) {
         memcpy(ref_color, r.color, FBW * FBH * 4);
         memcpy(ref_depth, r.depth, FBW * FBH * 4);
         lit = 0;
         for (int i = 0; i < FBW * FBH; i++)
            lit += ref_color[i * 4 + 3] != 0;
         CHECK(lit == FBW * FBH, "strips cover %d of %d pixels", lit, FBW * FBH);
      } else {
         CHECK(memcmp(r.color, ref_color, FBW * FBH * 4) == 0 && memcmp(r.depth, ref_depth, FBW * FBH * 4) == 0,
               "strips with restarts, %u threads: the 1-thread image and depth", threads[ti]);
      }
      rig_finish(&r);
   }
   free(ref_depth);
   free(ref_color);
   free(idx);
   free(order);
   free(tri);
   free(flat);
   free(v);
}

static void
draw1(struct rig *r, const struct sr_draw_state *st, const struct sr_draw_bindings *b, struct sr_draw d)
{
   struct draw_call call = {st, b, d};
   run_scene(r, &call, 1);
}

/* A random vertex in window space near the framebuffer. */
static void
rand_win(int64_t *X, int64_t *Y)
{
   *X = (int64_t)(rng() % ((FBW + 20) * 256)) - 10 * 256;
   *Y = (int64_t)(rng() % ((FBH + 20) * 256)) - 10 * 256;
}

/* Strips and fans (with back faces culled: the strip's odd triangles are
 * reordered, so all of a consistent strip face the same way), also split
 * by restart indices, 16- and 32-bit, with vertexOffset. */
static void
test_strips_fans(struct rig *r, uint32_t width)
{
   enum { N = 14 };
   int64_t X[N], Y[N];
   struct vtx v[N + 3];
   /* A zig-zag strip across the framebuffer: triangles (i, i+1, i+2). */
   for (int i = 0; i < N; i++) {
      X[i] = (int64_t)(i / 2) * 31 * 256 + (int64_t)(rng() % 2000);
      Y[i] = (i & 1) ? 140 * 256 - (int64_t)(rng() % 3000) : 9 * 256 + (int64_t)(rng() % 3000);
      v[i + 3] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   }
   for (int i = 0; i < 3; i++)
      v[i] = vwin(0, 0, 0.5f, 1.0f, 0);   /* skipped by vertexOffset / firstVertex */
   struct sr_draw_state st;
   struct sr_draw_bindings b;
   bindings_init(&b, v, N + 3);
   for (int cull = 0; cull < 2; cull++) {
      state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, false);
      /* Triangle 0 is (0, 1, 2): y down, 0 top, 1 bottom, 2 top right: counter-clockwise on screen. */
      st.cull_mode = VK_CULL_MODE_BACK_BIT;
      st.front_face = cull ? VK_FRONT_FACE_CLOCKWISE : VK_FRONT_FACE_COUNTER_CLOCKWISE;
      memset(ref, 0, sizeof(ref));
      for (int i = 0; i + 2 < N && !cull; i++) {
         int64_t tx[3] = {X[i], X[i + 1], X[i + 2]}, ty[3] = {Y[i], Y[i + 1], Y[i + 2]};
         ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
      }
      draw1(r, &st, &b, (struct sr_draw){.count = N, .instance_count = 1, .first = 3});
      compare_counters(cull ? "strip, all culled" : "strip");
   }

   /* Indexed strip with restarts: segments [0, 5), [5, 9), [9, 14) of the
    * vertices, indices shifted by -3 and vertexOffset 3. */
   /* With `sparse`, a restart and a lone far index end the list: the
    * index values then span too wide a range to shade each value once,
    * and each position is shaded. */
   for (int variant = 0; variant < 4; variant++) {
      const int size = variant & 1 ? 4 : 2, sparse = variant >> 1;
      uint8_t idx[4 * (N + 4)];
      uint32_t count = 0;
      const int cuts[2] = {5, 9};
      for (int i = 0; i < N; i++) {
         for (int c = 0; c < 2; c++) {
            if (i == cuts[c]) {
               uint32_t rv = 0xffffffffu;
               memcpy(idx + count * size, &rv, size);
               count++;
            }
         }
         uint32_t iv = (uint32_t)i;
         memcpy(idx + count * size, &iv, size);
         count++;
      }
      if (sparse) {
         uint32_t tail[2] = {0xffffffffu, 0xfff0u};
         for (int k = 0; k < 2; k++, count++)
            memcpy(idx + count * size, &tail[k], size);
      }
      state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, false);
      st.primitive_restart = true;
      st.cull_mode = VK_CULL_MODE_BACK_BIT;
      b.index_base = idx;
      b.index_size = count * size;
      b.index_type = size == 2 ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32;
      memset(ref, 0, sizeof(ref));
      const int seg[4] = {0, 5, 9, N};
      for (int sgi = 0; sgi < 3; sgi++) {
         for (int i = seg[sgi]; i + 2 < seg[sgi + 1]; i++) {
            /* Within a segment, triangle k's winding follows k's parity. */
            int k = i - seg[sgi];
            int64_t tx[3] = {X[i], X[i + 1], X[i + 2]}, ty[3] = {Y[i], Y[i + 1], Y[i + 2]};
            /* The strip starts counter-clockwise at even i; a segment
             * starting at odd i starts clockwise and is culled whole. */
            if (((i - k) & 1) == 0)
               ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
         }
      }
      draw1(r, &st, &b, (struct sr_draw){.indexed = true, .count = count, .instance_count = 1,
                                         .vertex_offset = 3});
      compare_counters(size == 2 ? (sparse ? "strip with restarts, 16-bit, sparse" : "strip with restarts, 16-bit")
                                 : (sparse ? "strip with restarts, 32-bit, sparse" : "strip with restarts, 32-bit"));
      b.index_base = NULL;
   }

   /* A fan around a centre, some triangles culled (back-facing ones). */
   {
      enum { F = 9 };
      int64_t fx[F], fy[F];
      struct vtx fv[F];
      fx[0] = 100 * 256 + 17, fy[0] = 70 * 256 + 99;
      for (int i = 1; i < F; i++) {
         double a = 2 * M_PI * (i - 1) / (F - 2) * (i == 4 ? -0.1 : 1.0);
         fx[i] = fx[0] + (int64_t)(cos(a) * 70 * 256);
         fy[i] = fy[0] + (int64_t)(sin(a) * 60 * 256);
      }
      for (int i = 0; i < F; i++)
         fv[i] = vwin(fx[i], fy[i], 0.5f, 1.0f, 0xffffffffu);
      struct sr_draw_bindings fb;
      bindings_init(&fb, fv, F);
      state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, false);
      st.cull_mode = VK_CULL_MODE_FRONT_BIT;
      st.front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE;
      memset(ref, 0, sizeof(ref));
      int kept = 0;
      for (int i = 1; i + 1 < F; i++) {
         int64_t tx[3] = {fx[i], fx[i + 1], fx[0]}, ty[3] = {fy[i], fy[i + 1], fy[0]};
         int64_t area = (tx[1] - tx[0]) * (ty[2] - ty[0]) - (tx[2] - tx[0]) * (ty[1] - ty[0]);
         /* area > 0: clockwise on screen (y down): back-facing with CCW front: kept. */
         if (area > 0) {
            ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
            kept++;
         }
      }
      CHECK(kept > 0 && kept < F - 2, "fan keeps %d triangles", kept);
      draw1(r, &st, &fb, (struct sr_draw){.count = F, .instance_count = 1});
      compare_counters("fan");
   }
}

/* Both ends of a segment beyond the same side of the viewport: the
 * segment is clipped away (wide or not). */
static bool
outside_viewport(int64_t xa, int64_t ya, int64_t xb, int64_t yb)
{
   const int64_t m = VPS * 256;
   return (xa < 0 && xb < 0) || (ya < 0 && yb < 0) || (xa > m && xb > m) || (ya > m && yb > m);
}

/* Line lists and strips, points of several sizes, polygon modes. */
static void
test_lines_points(struct rig *r, uint32_t width)
{
   enum { N = 40 };
   int64_t X[N], Y[N];
   struct vtx v[N];
   for (int i = 0; i < N; i++) {
      rand_win(&X[i], &Y[i]);
      if (i % 5 == 2)
         X[i] = (X[i] & ~255) + 128;
      if (i % 7 == 3 && i > 0)
         Y[i] = Y[i - 1];   /* horizontal */
      if (i % 11 == 4 && i > 0)
         X[i] = X[i - 1];   /* vertical */
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   }
   struct sr_draw_bindings b;
   bindings_init(&b, v, N);
   struct sr_draw_state st;
   const float widths[3] = {1.0f, 2.5f, 7.0f};
   for (int wi = 0; wi < 3; wi++) {
      for (int strip = 0; strip < 2; strip++) {
         state_init(&st, width, strip ? VK_PRIMITIVE_TOPOLOGY_LINE_STRIP : VK_PRIMITIVE_TOPOLOGY_LINE_LIST, false);
         st.line_width = widths[wi];
         memset(ref, 0, sizeof(ref));
         for (int i = 0; i + 1 < N; i += strip ? 1 : 2)
            if (!outside_viewport(X[i], Y[i], X[i + 1], Y[i + 1]))
               ref_line(X[i], Y[i], X[i + 1], Y[i + 1], (int64_t)(widths[wi] * 256), ref);
         draw1(r, &st, &b, (struct sr_draw){.count = N, .instance_count = 1});
         compare_counters(strip ? "line strip" : "line list");
      }
   }
   /* Points: PointSize 1 when not written; written sizes from Location 1's red. */
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_POINT_LIST, false);
   memset(ref, 0, sizeof(ref));
   for (int i = 0; i < N; i++)
      ref_point(X[i], Y[i], 256, ref);
   draw1(r, &st, &b, (struct sr_draw){.count = N, .instance_count = 1});
   compare_counters("points of size 1");

   /* Polygon mode LINE and POINT: the triangles' edges and corners. */
   for (int mode = 0; mode < 2; mode++) {
      state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
      st.polygon_mode = mode ? VK_POLYGON_MODE_POINT : VK_POLYGON_MODE_LINE;
      memset(ref, 0, sizeof(ref));
      for (int t = 0; t + 2 < N; t += 3) {
         int64_t area = (X[t + 1] - X[t]) * (Y[t + 2] - Y[t]) - (X[t + 2] - X[t]) * (Y[t + 1] - Y[t]);
         if (area == 0)
            continue;
         for (int e = 0; e < 3; e++) {
            int i = t + e, j = t + (e + 1) % 3;
            if (mode)
               ref_point(X[i], Y[i], 256, ref);
            else
               ref_line(X[i], Y[i], X[j], Y[j], 256, ref);
         }
      }
      draw1(r, &st, &b, (struct sr_draw){.count = N - N % 3, .instance_count = 1});
      compare_counters(mode ? "polygon mode POINT" : "polygon mode LINE");
   }
}

/* Vertex shader writing PointSize from Location 1's red channel * 20. */
#define VS_PSIZE_DEF(W)                                                                    \
   static void vs_psize_##W(const struct shale_vs_context *ctx, struct shale_vs_batch *b) \
   {                                                                                      \
      vs_copy_##W(ctx, b);                                                                \
      for (uint32_t i = 0; i < b->count; i++)                                             \
         b->outputs[(SHALE_SLOT_POINT_SIZE * 4) * W + i] =                                \
            fbits(bitsf(b->inputs[(1 * 4) * W + i]) * 20.0f);                            \
   }
VS_PSIZE_DEF(4)
VS_PSIZE_DEF(8)
VS_PSIZE_DEF(16)

static void
test_point_sizes(struct rig *r, uint32_t width)
{
   enum { N = 30 };
   int64_t X[N], Y[N];
   struct vtx v[N];
   uint8_t red[N];
   for (int i = 0; i < N; i++) {
      /* Points stay inside the view volume (their centres must). */
      X[i] = (int64_t)(rng() % (FBW * 256));
      Y[i] = (int64_t)(rng() % (FBH * 256));
      red[i] = (uint8_t)(rng() % 256);
      if (i == 0)
         red[i] = 0;   /* size 0: clamped to 1 */
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, red[i]);
   }
   struct sr_draw_bindings b;
   bindings_init(&b, v, N);
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_POINT_LIST, false);
   st.vs = width == 4 ? vs_psize_4 : width == 8 ? vs_psize_8 : vs_psize_16;
   st.vs_io.outputs_written |= 1ull << SHALE_SLOT_POINT_SIZE;
   st.vs_io.writes_point_size = 1;
   memset(ref, 0, sizeof(ref));
   for (int i = 0; i < N; i++) {
      float size = (float)red[i] / 255.0f * 20.0f;
      if (size < 1.0f)
         size = 1.0f;
      int64_t s = llrint((double)size * 256.0 / 2.0) * 2;
      ref_point(X[i], Y[i], s, ref);
   }
   draw1(r, &st, &b, (struct sr_draw){.count = N, .instance_count = 1});
   compare_counters("point sizes");
}

/* Instancing: Location 2 is a per-instance (x, y) offset, divisor 1 and 2. */
static void
test_instancing(struct rig *r, uint32_t width)
{
   const int64_t X[3] = {10 * 256 + 5, 60 * 256 + 100, 20 * 256 + 200};
   const int64_t Y[3] = {5 * 256 + 50, 15 * 256 + 3, 50 * 256 + 128};
   struct vtx v[3];
   for (int i = 0; i < 3; i++)
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   /* Offsets in clip units: 64 and 32 pixels per step (exact). */
   const float off[5][2] = {{9, 9}, {0, 0}, {0.5f, 0}, {0.5f, 0.25f}, {1.0f, 0.5f}};
   for (uint32_t divisor = 1; divisor <= 2; divisor++) {
      struct sr_draw_state st;
      state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
      st.binding_mask = 3;
      st.bindings[1].divisor = divisor;
      st.attribute_count = 3;
      st.attributes[2] = (struct sr_vertex_attribute){2, 1, VK_FORMAT_R32G32_SFLOAT, 0};
      struct sr_draw_bindings b;
      bindings_init(&b, v, 3);
      b.vertex_buffers[1] = (struct sr_vertex_buffer){(const uint8_t *)off, sizeof(off)};
      memset(ref, 0, sizeof(ref));
      for (uint32_t inst = 0; inst < 4; inst++) {
         const float *o = off[1 + inst / divisor];
         int64_t tx[3], ty[3];
         for (int i = 0; i < 3; i++)
            tx[i] = X[i] + (int64_t)(o[0] * 128 * 256), ty[i] = Y[i] + (int64_t)(o[1] * 128 * 256);
         ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
      }
      draw1(r, &st, &b, (struct sr_draw){.count = 3, .instance_count = 4, .first_instance = 1});
      compare_counters(divisor == 1 ? "instancing" : "instancing, divisor 2");
   }
}

/* Huge triangles: clipped against the guard band (and, in perspective,
 * against the near plane), with no crack and no pixel twice. */
static void
test_huge(struct rig *r, uint32_t width)
{
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct sr_draw_bindings b;
   /* A quad far past the guard band in window space, split along a
    * diagonal that crosses the framebuffer; w = 1. */
   const float big = 4000.0f;   /* clip units: 512000 pixels */
   struct vtx q[6];
   const float cx[4] = {-big, big * 1.3f, big, -big * 0.7f}, cy[4] = {-big * 1.1f, -big, big, big * 0.9f};
   const int o[6] = {0, 1, 2, 0, 2, 3};
   for (int i = 0; i < 6; i++)
      q[i] = (struct vtx){{cx[o[i]], cy[o[i]], 0.5f, 1.0f}, {255, 255, 255, 255}};
   bindings_init(&b, q, 6);
   draw1(r, &st, &b, (struct sr_draw){.count = 6, .instance_count = 1});
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++)
         ref[y][x] = 1;
   compare_counters("huge quad");

   /* A ground plane in perspective: w runs from -5 to 5 (behind the eye to
    * far ahead); near-plane clipping keeps z >= 0. Every pixel below the
    * horizon once, none above. Clip: x = X, y = 1 (eye height below),
    * z = w = depth. */
   const float gz[4] = {-5.0f, -5.0f, 20.0f, 20.0f}, gx[4] = {-30.0f, 30.0f, 30.0f, -30.0f};
   for (int i = 0; i < 6; i++) {
      float w = gz[o[i]];
      q[i] = (struct vtx){{gx[o[i]], 1.0f, w * 0.5f, w}, {255, 255, 255, 255}};
   }
   draw1(r, &st, &b, (struct sr_draw){.count = 6, .instance_count = 1});
   /* Window y = 128 + 128 / w: rows below y = 128 + 128/20 = 134.4 are
    * covered where |x_win - 128| <= 128 * 30 / w; check rows 140 .. 149
    * fully (w <= 12.8 there: x reach >= 300 pixels) and rows < 134 empty. */
   int twice = 0, holes = 0, above = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++) {
         twice += counters[y][x] > 1;
         holes += y >= 140 && counters[y][x] != 1;
         above += y < 134 && counters[y][x] != 0;
      }
   CHECK(twice == 0 && holes == 0 && above == 0, "ground plane: %d twice, %d holes, %d above", twice,
         holes, above);
}

/* Near and far clipping with w = 1: z runs from -0.5 to 1.5 across a
 * triangle; only pixels with 0 <= z <= 1 are drawn. */
static void
test_near_far(struct rig *r, uint32_t width)
{
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   /* Clipped corners land on the sub-pixel grid (x = 50 and 150). */
   const int64_t X[3] = {0, 200 * 256, 100 * 256}, Y[3] = {2 * 256, 2 * 256, 148 * 256};
   struct vtx v[3];
   for (int i = 0; i < 3; i++)
      v[i] = vwin(X[i], Y[i], -0.5f + 2.0f * (float)X[i] / 256.0f / 200.0f, 1.0f, 0xffffffffu);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   for (int clamp = 0; clamp < 2; clamp++) {
      st.depth_clamp = clamp;
      st.no_depth_clip = clamp;
      draw1(r, &st, &b, (struct sr_draw){.count = 3, .instance_count = 1});
      memset(ref, 0, sizeof(ref));
      ref_triangle(X, Y, ref, clamp ? 0 : 50, 0, clamp ? FBW : 150, FBH);
      int bad = 0;
      for (int y = 0; y < FBH; y++)
         for (int x = 0; x < FBW; x++)
            bad += counters[y][x] != ref[y][x];
      CHECK(bad == 0, "near/far clipping (depth clamp %d): %d pixels differ", clamp, bad);
   }
}

/* Vertex shader with ClipDistance[0] = x (clip) and CullDistance[0] =
 * Location 1's green - 0.5. */
#define VS_DIST_DEF(W)                                                                     \
   static void vs_dist_##W(const struct shale_vs_context *ctx, struct shale_vs_batch *b)  \
   {                                                                                      \
      vs_copy_##W(ctx, b);                                                                \
      for (uint32_t i = 0; i < b->count; i++) {                                           \
         b->outputs[(SHALE_SLOT_CLIP_CULL0 * 4 + 0) * W + i] = b->inputs[0 * W + i];      \
         b->outputs[(SHALE_SLOT_CLIP_CULL0 * 4 + 1) * W + i] =                            \
            fbits(bitsf(b->inputs[(1 * 4 + 1) * W + i]) - 0.5f);                         \
      }                                                                                   \
   }
VS_DIST_DEF(4)
VS_DIST_DEF(8)
VS_DIST_DEF(16)

static void
test_clip_cull_distances(struct rig *r, uint32_t width)
{
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.vs = width == 4 ? vs_dist_4 : width == 8 ? vs_dist_8 : vs_dist_16;
   st.vs_io.outputs_written |= 1ull << SHALE_SLOT_CLIP_CULL0;
   st.vs_io.clip_distance_count = 1;
   st.vs_io.cull_distance_count = 1;
   /* Triangle 0: green 255 (kept), clipped at window x = 128 (the clipped
    * corners (128, 30) and (128, 90) are on the grid); triangle 1: one
    * vertex green 255 (kept); triangle 2: all green 0 (culled). */
   const int64_t X[9] = {64 * 256, 192 * 256, 64 * 256, 130 * 256, 199 * 256, 150 * 256, 0, 199 * 256, 100 * 256};
   const int64_t Y[9] = {20 * 256, 40 * 256, 140 * 256, 100 * 256, 110 * 256, 149 * 256, 0, 0, 149 * 256};
   const uint32_t green[9] = {0xff00, 0xff00, 0xff00, 0, 0xff00, 0, 0, 0, 0};
   struct vtx v[9];
   for (int i = 0; i < 9; i++)
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, green[i] | 0xff0000ffu);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 9);
   draw1(r, &st, &b, (struct sr_draw){.count = 9, .instance_count = 1});
   memset(ref, 0, sizeof(ref));
   const int64_t CX[3] = {128 * 256, 192 * 256, 128 * 256}, CY[3] = {30 * 256, 40 * 256, 90 * 256};
   ref_triangle(CX, CY, ref, 0, 0, FBW, FBH);
   ref_triangle(X + 3, Y + 3, ref, 0, 0, FBW, FBH);
   compare_counters("clip and cull distances");
}

/* Depth bias: constant (r from the depth format) and slope, clamped; and
 * the depth written through a D32 attachment. */
static void
test_depth_bias(struct rig *r)
{
   struct sr_draw_state st;
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.depth_bias_enable = true;
   st.depth_bias_constant = 4.0f;
   st.depth_bias_slope = 0.0f;
   st.depth_test = true;
   st.depth_write = true;
   st.depth_compare = VK_COMPARE_OP_ALWAYS;
   const int64_t X[3] = {0, 300 * 256, 0}, Y[3] = {0, 0, 300 * 256};
   struct vtx v[3];
   for (int i = 0; i < 3; i++)
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   draw1(r, &st, &b, (struct sr_draw){.count = 3, .instance_count = 1});
   /* D32_SFLOAT, z = 0.5: e = -1, r = 2^(-1-23). */
   CHECK(r->depth[10 * FBW + 10] == 0.5f + 4.0f * ldexpf(1.0f, -24), "biased depth %.9g", r->depth[10 * FBW + 10]);

   /* Slope and clamp, read from the primitive (D16: r = 2^-16). */
   const VkFormat formats[2] = {VK_FORMAT_D16_UNORM, VK_FORMAT_X8_D24_UNORM_PACK32};
   const int bits[2] = {16, 24};
   for (int f = 0; f < 2; f++) {
      struct sr_framebuffer fb = r->fb;
      fb.depth.format = su_format_desc(formats[f]);
      fb.depth.vk_format = formats[f];
      /* z = 0.25 + x / 1000 (window pixels): dz/dx = 1/1000. */
      for (int i = 0; i < 3; i++)
         v[i].pos[2] = 0.25f + (float)X[i] / 256.0f / 1000.0f;
      st.depth_bias_slope = 2.0f;
      for (int clamp = 0; clamp < 2; clamp++) {
         st.depth_bias_clamp = clamp ? 0.001f : 0.0f;
         struct sr_scene *scene;
         VkRect2D area = {{0, 0}, {FBW, FBH}};
         CHECK(sr_scene_begin(r->ctx, &fb, &area, 1, &scene) == VK_SUCCESS, "begin");
         struct sr_draw d = {.count = 3, .instance_count = 1};
         CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
         const struct sr_prim *p = scene->bins[0].first->cmds[0].prim;
         double want = 2.0 / 1000.0 + 4.0 * ldexp(1.0, -bits[f]);
         if (clamp)
            want = 0.001;
         double got = (double)p->z.c - p->planes[0].c;
         CHECK(fabs(got - want) < 1e-6, "%s bias %.9g, expected %.9g", fb.depth.format->name, got, want);
         CHECK(p->z.a == p->planes[0].a && p->z.b == p->planes[0].b, "bias is a constant");
         /* The unbiased plane's slope. */
         CHECK(fabs(p->planes[0].a - 0.001) < 1e-7 && fabs(p->planes[0].b) < 1e-7, "z plane %g %g",
               p->planes[0].a, p->planes[0].b);
         sr_scene_end(scene);
         memset(r->depth, 0, FBW * FBH * 4);
      }
   }
}

/* PrimitiveId counts the draw's primitives (culled ones too), per instance. */
static void
test_primitive_id(struct rig *r)
{
   /* Triangle 0 counter-clockwise on screen (front, kept), 1 clockwise
    * (back, culled), 2 counter-clockwise; all inside tile (0, 0). */
   const int64_t X[9] = {5, 5, 50, 5, 50, 5, 8, 8, 60}, Y[9] = {5, 50, 5, 5, 5, 50, 8, 60, 8};
   struct vtx v[9];
   for (int i = 0; i < 9; i++)
      v[i] = vwin(X[i] * 256, Y[i] * 256, 0.5f, 1.0f, 0);
   struct sr_draw_state st;
   state_init(&st, 4, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.cull_mode = VK_CULL_MODE_BACK_BIT;
   st.front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 9);
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   struct sr_draw d = {.count = 9, .instance_count = 2};
   CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
   uint32_t n = 0, ids[16];
   for (const struct sr_bin_chunk *c = scene->bins[0].first; c; c = c->next)
      for (uint32_t i = 0; i < c->count && n < 16; i++)
         ids[n++] = c->cmds[i].prim->primitive_id;
   CHECK_EQ_INT(n, 4);
   const uint32_t want[4] = {0, 2, 0, 2};
   for (uint32_t i = 0; i < n && i < 4; i++)
      CHECK(ids[i] == want[i], "primitive %u has id %u", i, ids[i]);
   sr_scene_end(scene);
}

/* Vertex fetch: formats, types, missing components, out-of-range reads,
 * per-instance rates; a vertex shader that records its inputs. */
static uint32_t fetched[2][8][7][4];   /* [instance][vertex][location][component] */

#define VS_FETCH_DEF(W)                                                                     \
   static void vs_fetch_##W(const struct shale_vs_context *ctx, struct shale_vs_batch *b)  \
   {                                                                                       \
      (void)ctx;                                                                           \
      for (uint32_t i = 0; i < b->count; i++)                                              \
         for (int l = 0; l < 7; l++)                                                       \
            for (int c = 0; c < 4; c++)                                                    \
               fetched[b->instance_index][b->vertex_index[i]][l][c] = b->inputs[(l * 4 + c) * W + i]; \
   }
VS_FETCH_DEF(4)
VS_FETCH_DEF(8)
VS_FETCH_DEF(16)

static void
test_fetch(struct rig *r, uint32_t width)
{
   /* 16-byte vertices: R16G16_SNORM at 0, R8G8B8A8_UINT at 4 (also R8_SINT),
    * A2B10G10R10_UNORM_PACK32 at 8, R16G16B16A16_SFLOAT at 8. 4 vertices in
    * the buffer, 5 drawn: vertex 4 reads out of range. */
   uint8_t vb[4 * 16];
   for (int i = 0; i < 4; i++) {
      int16_t sn[2] = {(int16_t)(i == 0 ? -32768 : 32767 / (i + 1)), (int16_t)(-1000 * i)};
      memcpy(vb + i * 16, sn, 4);
      uint8_t u[4] = {(uint8_t)(i + 1), 200, (uint8_t)(250 - i), 0x80};
      memcpy(vb + i * 16 + 4, u, 4);
      uint16_t h[4] = {0x3e00, 0xc000, 0x3400, 0x3c00};   /* 1.5, -2, 0.25, 1 */
      memcpy(vb + i * 16 + 8, h, 8);
   }
   const float inst[2][3] = {{1.0f, 2.0f, 3.0f}, {-4.0f, 5.5f, 6.0f}};
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_POINT_LIST, false);
   st.vs = width == 4 ? vs_fetch_4 : width == 8 ? vs_fetch_8 : vs_fetch_16;
   st.rasterizer_discard = true;
   st.vs_io.inputs_read = 0x7f;
   st.vs_io.input_type[1] = 2;   /* uvec4 */
   st.vs_io.input_type[5] = 1;   /* ivec4 */
   st.binding_mask = 3;
   st.bindings[0] = (struct sr_vertex_binding){16, VK_VERTEX_INPUT_RATE_VERTEX, 1};
   st.bindings[1] = (struct sr_vertex_binding){12, VK_VERTEX_INPUT_RATE_INSTANCE, 1};
   st.attribute_count = 6;
   st.attributes[0] = (struct sr_vertex_attribute){0, 0, VK_FORMAT_R16G16_SNORM, 0};
   st.attributes[1] = (struct sr_vertex_attribute){1, 0, VK_FORMAT_R8G8B8A8_UINT, 4};
   st.attributes[2] = (struct sr_vertex_attribute){2, 0, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 8};
   st.attributes[3] = (struct sr_vertex_attribute){3, 0, VK_FORMAT_R16G16B16A16_SFLOAT, 8};
   st.attributes[4] = (struct sr_vertex_attribute){4, 1, VK_FORMAT_R32G32B32_SFLOAT, 0};
   st.attributes[5] = (struct sr_vertex_attribute){5, 0, VK_FORMAT_R8_SINT, 7};
   /* Location 6: no attribute. */
   struct sr_draw_bindings b;
   memset(&b, 0, sizeof(b));
   b.vertex_buffers[0] = (struct sr_vertex_buffer){vb, sizeof(vb)};
   b.vertex_buffers[1] = (struct sr_vertex_buffer){(const uint8_t *)inst, sizeof(inst)};
   memset(fetched, 0xcd, sizeof(fetched));
   draw1(r, &st, &b, (struct sr_draw){.count = 5, .instance_count = 2});
   for (int in = 0; in < 2; in++) {
      for (int i = 0; i < 5; i++) {
         const uint32_t(*f)[4] = fetched[in][i];
         bool oob = i == 4;
         int16_t sx = (int16_t)(i == 0 ? -32768 : 32767 / (i + 1));
         float want0[4] = {oob ? 0.0f : (sx == -32768 ? -1.0f : (float)sx / 32767.0f),
                           oob ? 0.0f : (float)(-1000 * i) / 32767.0f, 0.0f, 1.0f};
         for (int c = 0; c < 4; c++)
            CHECK(fabsf(bitsf(f[0][c]) - want0[c]) < 1e-6f, "inst %d vertex %d snorm[%d] = %g, want %g", in, i, c,
                  bitsf(f[0][c]), want0[c]);
         const uint32_t want1[4] = {oob ? 0 : (uint32_t)(i + 1), oob ? 0 : 200, oob ? 0 : (uint32_t)(250 - i),
                                    oob ? 0 : 0x80};
         for (int c = 0; c < 4; c++)
            CHECK(f[1][c] == want1[c], "vertex %d uint[%d] = %u", i, c, f[1][c]);
         /* 0xc0003e00 as A2B10G10R10: R = 0x200, G = 0xf, B = 0x000, A = 3. */
         const float want2[4] = {oob ? 0.0f : 512.0f / 1023.0f, oob ? 0.0f : 15.0f / 1023.0f, 0.0f,
                                 oob ? 0.0f : 1.0f};
         for (int c = 0; c < 4; c++)
            CHECK(fabsf(bitsf(f[2][c]) - want2[c]) < 1e-6f, "vertex %d packed[%d] = %g", i, c, bitsf(f[2][c]));
         const float want3[4] = {oob ? 0 : 1.5f, oob ? 0 : -2.0f, oob ? 0 : 0.25f, oob ? 0 : 1.0f};
         for (int c = 0; c < 4; c++)
            CHECK(bitsf(f[3][c]) == want3[c], "vertex %d half[%d] = %g", i, c, bitsf(f[3][c]));
         for (int c = 0; c < 4; c++)
            CHECK(bitsf(f[4][c]) == (c < 3 ? inst[in][c] : 1.0f), "instance %d [%d] = %g", in, c, bitsf(f[4][c]));
         const int32_t want5[4] = {oob ? 0 : -128, 0, 0, 1};
         for (int c = 0; c < 4; c++)
            CHECK((int32_t)f[5][c] == want5[c], "vertex %d sint[%d] = %d", i, c, (int32_t)f[5][c]);
         const float want6[4] = {0, 0, 0, 1};
         for (int c = 0; c < 4; c++)
            CHECK(bitsf(f[6][c]) == want6[c], "vertex %d missing[%d] = %g", i, c, bitsf(f[6][c]));
      }
   }
}

/* The provoking vertex (first and last) gives flat inputs, per topology. */
static void
test_provoking(struct rig *r, uint32_t width)
{
   /* A strip of 2 triangles and a fan of 2, far apart; pixel probes
    * inside each triangle. */
   const int64_t X[4] = {10, 10, 60, 60}, Y[4] = {10, 90, 10, 90};
   const uint32_t col[4] = {0xff0000ffu, 0xff00ff00u, 0xffff0000u, 0xff00ffffu};
   struct vtx v[4];
   for (int i = 0; i < 4; i++)
      v[i] = vwin(X[i] * 256, Y[i] * 256, 0.5f, 1.0f, col[i]);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 4);
   const VkPrimitiveTopology topo[3] = {VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN,
                                        VK_PRIMITIVE_TOPOLOGY_LINE_STRIP};
   for (int t = 0; t < 3; t++) {
      for (int last = 0; last < 2; last++) {
         struct sr_draw_state st;
         state_init(&st, width, topo[t], false);
         st.provoking_last = last;
         st.line_width = 3.0f;
         draw1(r, &st, &b, (struct sr_draw){.count = 4, .instance_count = 1});
         /* Probes: strip triangle 0 (0, 1, 2) and 1 (1, 3, 2); fan
          * triangle 0 (1, 2, 0) and 1 (2, 3, 0); line strip segments 0-1
          * and 1-2 (at their middles). */
         int px[2], py[2], want[2];
         if (t == 0) {
            px[0] = 20, py[0] = 30, px[1] = 50, py[1] = 70;
            want[0] = last ? 2 : 0, want[1] = last ? 3 : 1;
         } else if (t == 1) {
            px[0] = 20, py[0] = 30, px[1] = 50, py[1] = 70;
            want[0] = last ? 2 : 1, want[1] = last ? 3 : 2;
         } else {
            px[0] = 10, py[0] = 50, px[1] = 35, py[1] = 50;
            want[0] = last ? 1 : 0, want[1] = last ? 2 : 1;
         }
         for (int k = 0; k < 2; k++) {
            uint32_t got;
            memcpy(&got, r->color + (py[k] * FBW + px[k]) * 4, 4);
            CHECK(got == col[want[k]], "topology %d, provoking %s: primitive %d is %08x, want vertex %d (%08x)",
                  topo[t], last ? "last" : "first", k, got, want[k], col[want[k]]);
         }
      }
   }
}

/* Perspective-correct and linear interpolation of a colour: within one
 * 8-bit step of a double-precision reference at every pixel centre. */
static void
test_interpolation(struct rig *r, uint32_t width)
{
   const int64_t X[3] = {5 * 256 + 30, 195 * 256 + 7, 90 * 256 + 200}, Y[3] = {3 * 256, 60 * 256 + 77, 147 * 256};
   const float W[3] = {1.0f, 4.0f, 0.5f};
   const uint32_t col[3] = {0xff0000ffu, 0x8000ff00u, 0x40ff0000u};
   struct vtx v[3];
   for (int i = 0; i < 3; i++)
      v[i] = vwin(X[i], Y[i], 0.5f, W[i], col[i]);
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   for (int persp = 0; persp < 2; persp++) {
      struct sr_draw_state st;
      state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true);
      if (!persp) {
         for (int c = 0; c < 4; c++)
            st.fs_io.interp[c] = SHALE_INTERP_NOPERSPECTIVE;
         st.fs = width == 4 ? fs_linear_4 : width == 8 ? fs_linear_8 : fs_linear_16;
      }
      draw1(r, &st, &b, (struct sr_draw){.count = 3, .instance_count = 1});
      memset(ref, 0, sizeof(ref));
      ref_triangle(X, Y, ref, 0, 0, FBW, FBH);
      int bad = 0, n = 0;
      for (int y = 0; y < FBH; y++) {
         for (int x = 0; x < FBW; x++) {
            if (!ref[y][x])
               continue;
            n++;
            /* Barycentrics at the centre, in window space. */
            double px = x + 0.5, py = y + 0.5, xs[3], ys[3];
            for (int i = 0; i < 3; i++)
               xs[i] = X[i] / 256.0, ys[i] = Y[i] / 256.0;
            double area = (xs[1] - xs[0]) * (ys[2] - ys[0]) - (xs[2] - xs[0]) * (ys[1] - ys[0]);
            double l0 = ((xs[1] - px) * (ys[2] - py) - (xs[2] - px) * (ys[1] - py)) / area;
            double l1 = ((xs[2] - px) * (ys[0] - py) - (xs[0] - px) * (ys[2] - py)) / area;
            double l[3] = {l0, l1, 1.0 - l0 - l1};
            if (persp) {
               double s = l[0] / W[0] + l[1] / W[1] + l[2] / W[2];
               for (int i = 0; i < 3; i++)
                  l[i] = l[i] / W[i] / s;
            }
            for (int c = 0; c < 4; c++) {
               double want = 0;
               for (int i = 0; i < 3; i++)
                  want += l[i] * ((col[i] >> (8 * c)) & 0xff);
               int got = r->color[(y * FBW + x) * 4 + c];
               bad += fabs(got - want) > 1.0;
            }
         }
      }
      CHECK(n > 1000 && bad == 0, "%s interpolation: %d of %d pixel channels off", persp ? "perspective" : "linear",
            bad, n * 4);
   }
}

/* 4 samples: random triangles, lines and points counted per sample (the
 * standard positions) against the reference at each sample position. */
static void
test_msaa(uint32_t width)
{
   struct rig r;
   rig_init(&r, 2);
   rig_samples4(&r);
   enum { N = 60 };
   struct vtx v[N * 3];
   int64_t X[N * 3], Y[N * 3];
   for (int i = 0; i < N * 3; i++) {
      if (i % 3 == 0)
         rand_win(&X[i], &Y[i]);
      else
         X[i] = X[i - i % 3] + (int64_t)(rng() % (30 * 256)) - 15 * 256,
         Y[i] = Y[i - i % 3] + (int64_t)(rng() % (30 * 256)) - 15 * 256;
      /* Points must be inside the view volume. */
      X[i] = X[i] < 0 ? -X[i] : X[i];
      Y[i] = Y[i] < 0 ? -Y[i] : Y[i];
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   }
   struct sr_draw_bindings b;
   bindings_init(&b, v, N * 3);
   const float(*pos)[2] = sr_sample_positions(4);
   const VkPrimitiveTopology topo[3] = {VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
                                        VK_PRIMITIVE_TOPOLOGY_POINT_LIST};
   for (int t = 0; t < 3; t++) {
      struct sr_draw_state st;
      state_init(&st, width, topo[t], false);
      st.samples = 4;
      st.line_width = 2.0f;
      draw1(&r, &st, &b, (struct sr_draw){.count = N * 3, .instance_count = 1});
      memset(ref, 0, sizeof(ref));
      for (int s = 0; s < 4; s++) {
         ref_sample_x = (int64_t)(pos[s][0] * 256);
         ref_sample_y = (int64_t)(pos[s][1] * 256);
         for (int i = 0; i < N * 3; i += t == 0 ? 3 : t == 1 ? 2 : 1) {
            if (t == 0)
               ref_triangle(X + i, Y + i, ref, 0, 0, FBW, FBH);
            else if (t == 1 && i + 1 < N * 3)
               ref_line(X[i], Y[i], X[i + 1], Y[i + 1], 512, ref);
            else if (t == 2)
               ref_point(X[i], Y[i], 256, ref);
         }
      }
      ref_sample_x = ref_sample_y = 128;
      compare_counters(t == 0 ? "4 samples: triangles" : t == 1 ? "4 samples: lines" : "4 samples: points");
   }
   rig_finish(&r);
}

/* test_large_scissored with 4 samples: large random triangles (corners
 * anywhere in and around the framebuffer, block corners, horizontal and
 * vertical edges among them) under sample masks 0xf, 0x6 and 0x9, with a
 * scissor off the 4-pixel block lines and one on them, counted per sample
 * (the standard positions, the mask's samples only) against the
 * reference: the tile loop's block classes (full, rejected, skipped to a
 * row's end or past rejecting edges, partial) where a block's coverage is
 * four samples a pixel and the mask takes some of them. */
static void
test_large_scissored_msaa(uint32_t width)
{
   enum { COUNT = 40 };
   static const int32_t boxes[2][4] = {{7, 5, FBW - 6, FBH - 3}, {8, 4, FBW - 8, FBH - 4}};
   static const uint32_t masks[3] = {0xf, 0x6, 0x9};
   struct rig r;
   rig_init(&r, 2);
   rig_samples4(&r);
   const float(*pos)[2] = sr_sample_positions(4);
   for (int box = 0; box < 2; box++) {
      const int32_t sx0 = boxes[box][0], sy0 = boxes[box][1];
      const int32_t sx1 = boxes[box][2], sy1 = boxes[box][3];
      for (int m = 0; m < 3; m++) {
         struct vtx v[COUNT * 3];
         int64_t X[COUNT * 3], Y[COUNT * 3];
         for (unsigned t = 0; t < COUNT; t++) {
            int64_t *x = X + 3 * t, *y = Y + 3 * t;
            for (int i = 0; i < 3; i++) {
               x[i] = (int64_t)(rng() % ((FBW + 100) * 256)) - 50 * 256;
               y[i] = (int64_t)(rng() % ((FBH + 100) * 256)) - 50 * 256;
               if (t % 5 == 2)
                  x[i] = (x[i] & ~1023) + 128, y[i] = (y[i] & ~1023) + 128;   /* block corners */
            }
            if (t % 7 == 4)
               y[2] = y[1];   /* a horizontal edge (a = 0): no step to the right */
            if (t % 7 == 5)
               x[2] = x[1];   /* a vertical edge (b = 0): steps to the right only */
            if (t % 7 == 6)
               y[0] = y[1], x[2] = x[1];   /* both: a right triangle */
            for (int i = 0; i < 3; i++)
               v[3 * t + i] = vwin(x[i], y[i], 0.5f, 1.0f, 0xffffffffu);
         }
         memset(ref, 0, sizeof(ref));
         for (int s = 0; s < 4; s++) {
            if (!(masks[m] >> s & 1))
               continue;
            ref_sample_x = (int64_t)(pos[s][0] * 256);
            ref_sample_y = (int64_t)(pos[s][1] * 256);
            for (unsigned t = 0; t < COUNT; t++)
               ref_triangle(X + 3 * t, Y + 3 * t, ref, sx0, sy0, sx1, sy1);
         }
         ref_sample_x = ref_sample_y = 128;
         struct sr_draw_state st;
         state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
         st.samples = 4;
         st.sample_mask = masks[m];
         st.scissors[0] =
            (VkRect2D){{sx0, sy0}, {(uint32_t)(sx1 - sx0), (uint32_t)(sy1 - sy0)}};
         struct sr_draw_bindings b;
         bindings_init(&b, v, COUNT * 3);
         draw1(&r, &st, &b, (struct sr_draw){.count = COUNT * 3, .instance_count = 1});
         char what[96];
         snprintf(what, sizeof(what), "4 samples, mask 0x%x, scissor %s block lines, W %u",
                  masks[m], box ? "on" : "off", width);
         compare_counters(what);
      }
   }
   rig_finish(&r);
}

/* Clears and resolves after a tile's last primitive (sr_tile.c): a 4-sample
 * colour and depth scene, one triangle in tile (0, 0), a resolve into a
 * one-sample image; tile (2, 1) (x 128-191, y 64-127) has no primitive.
 *  0: no discard: every sample there holds the clears, the resolve too
 *     (taken from the clear's value, no samples read);
 *  1: sr_scene_set_discard (colour and depth/stencil) before the last
 *     flush: the clears of tile (2, 1) are never written (its samples keep
 *     what they held), the resolve is still the clear colour, and tile
 *     (0, 0), drawn after its clears, has them (depth 1 everywhere);
 *  2: discard, but a flush between the clears and the draw: the clears are
 *     written by the first flush (the discard holds for the last only);
 *  3: discard, a whole clear then a second clear of a small rect in tile
 *     (2, 1), then the resolve: the second does not cover the first, so
 *     the first is written, and the resolve reads the rect's pixels (not
 *     covering the tile) so the second is written too; depth is dropped.
 * Tile (0, 0), cleared before its primitive, is in tile memory where the
 * flush discards (modes 1 and 3): its resolve is the same, its samples
 * never reach the attachments. */
static void
test_tile_clears(void)
{
   struct rig r;
   rig_init(&r, 2);
   rig_samples4(&r);
   uint8_t *dst = malloc(FBW * FBH * 4), *dst0 = malloc(FBW * FBH * 4);
   const struct sr_surface dsurf = {
      .base = dst, .format = su_format_desc(VK_FORMAT_R8G8B8A8_UNORM),
      .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .width = FBW, .height = FBH, .layers = 1,
      .samples = 1, .row_pitch = FBW * 4, .layer_pitch = FBW * FBH * 4};
   struct vtx v[3] = {vwin(10 * 256, 10 * 256, 0.5f, 1, ~0u), vwin(30 * 256, 10 * 256, 0.5f, 1, ~0u),
                      vwin(10 * 256, 30 * 256, 0.5f, 1, ~0u)};
   struct sr_draw_state st;
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.samples = 4;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   const struct sr_draw d = {.count = 3, .instance_count = 1};
   const VkClearValue c1 = {.color.float32 = {1.0f, 0.2f, 0.0f, 0.6f}};
   const VkClearValue c2 = {.color.float32 = {0.0f, 1.0f, 0.2f, 1.0f}};
   const VkClearValue cd = {.depthStencil = {1.0f, 0}};
   const uint8_t b1[4] = {255, 51, 0, 153}, b2[4] = {0, 255, 51, 255}, keep[4] = {0xab, 0xab, 0xab, 0xab};
   const VkRect2D area = {{0, 0}, {FBW, FBH}}, rect = {{140, 70}, {11, 11}};
   for (int mode = 0; mode < 4; mode++) {
      memset(r.color, 0xab, FBW * FBH * 16);
      memset(r.depth, 0xcd, FBW * FBH * 16);
      memset(dst, 0x11, FBW * FBH * 4);
      struct sr_scene *scene;
      CHECK(sr_scene_begin(r.ctx, &r.fb, &area, 1, &scene) == VK_SUCCESS, "begin");
      CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &c1, &area, 0, 1) == VK_SUCCESS,
            "clear");
      CHECK(sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, &cd, &area,
                           0, 1) == VK_SUCCESS, "clear");
      if (mode == 2)
         sr_scene_flush(scene);
      if (mode == 3)
         CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &c2, &rect, 0, 1) == VK_SUCCESS,
               "clear");
      CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
      CHECK(sr_scene_resolve(scene, 0, &dsurf) == VK_SUCCESS, "resolve");
      if (mode)
         sr_scene_set_discard(scene, 1u | SR_DISCARD_DEPTH_STENCIL);
      sr_scene_end(scene);
      uint32_t bad_ms = 0, bad_depth = 0, bad_dst = 0, bad_drawn = 0;
      for (int y = 64; y < 128; y++) {
         for (int x = 128; x < 192; x++) {
            const bool in_rect = mode == 3 && x >= 140 && x <= 150 && y >= 70 && y <= 80;
            const uint8_t *want = in_rect ? b2 : b1;
            const uint8_t *ms_want = mode == 1 ? keep : want;
            for (int s = 0; s < 4; s++) {
               const size_t o = ((size_t)y * FBW + (size_t)x) * 4 + (size_t)s;
               bad_ms += memcmp(r.color + o * 4, ms_want, 4) != 0;
               uint32_t dw;
               memcpy(&dw, &r.depth[o], 4);
               bad_depth += dw != (mode == 1 || mode == 3 ? 0xcdcdcdcdu : fbits(1.0f));
            }
            bad_dst += memcmp(dst + ((size_t)y * FBW + (size_t)x) * 4, want, 4) != 0;
         }
      }
      /* Tile (0, 0): cleared before its primitive; where the flush
       * discards colour and depth (modes 1 and 3) the tile lives in tile
       * memory (sr_tile.c), so the attachments' memory keeps what it held,
       * else every depth sample holds the clear (the triangle writes no
       * depth). Either way the resolved tile is mode 0's. */
      const uint32_t drawn_want = mode == 1 || mode == 3 ? 0xcdcdcdcdu : fbits(1.0f);
      for (int i = 0; i < 64 * 64 * 4; i++)
         bad_drawn += fbits(r.depth[(size_t)(i / 256) * FBW * 4 + (size_t)(i % 256)]) != drawn_want;
      uint32_t bad_drawn_dst = 0;
      for (int y = 0; y < 64; y++) {
         const size_t o = (size_t)y * FBW * 4;
         if (mode == 0)
            memcpy(dst0 + o, dst + o, 64 * 4);
         else
            bad_drawn_dst += memcmp(dst0 + o, dst + o, 64 * 4) != 0;
      }
      CHECK(bad_drawn_dst == 0, "tile clears, mode %d: %u resolved rows of tile (0, 0) unlike mode 0's",
            mode, bad_drawn_dst);
      CHECK(bad_ms == 0, "tile clears, mode %d: %u samples of tile (2, 1) wrong", mode, bad_ms);
      CHECK(bad_depth == 0, "tile clears, mode %d: %u depth samples of tile (2, 1) wrong", mode,
            bad_depth);
      CHECK(bad_dst == 0, "tile clears, mode %d: %u resolved pixels of tile (2, 1) wrong", mode,
            bad_dst);
      CHECK(bad_drawn == 0, "tile clears, mode %d: %u depth samples of tile (0, 0) wrong", mode,
            bad_drawn);
   }
   free(dst0);
   free(dst);
   rig_finish(&r);
}

/* Tile memory's offsets (sr_tile.c, tile_memory_place): a 4x RGBA8
 * colour (16 bytes a pixel) and a 4x D16 depth (8 bytes) of two layers,
 * cleared on both layers, a triangle over several tiles of each layer, the
 * colour resolved on both layers; drawn once with the attachments kept
 * and once discarded (their tiles then live in tile memory, colour first,
 * depth after it). The resolved images must be byte-identical. A tile's
 * place in tile memory subtracts its origin (layer, y0, x0) from the
 * base: without the x0 term the colour of a tile with x0 > 0 runs x0 * 16
 * bytes past its region but the depth only x0 * 8, so the depth clear
 * overwrites the colour's last rows; without the layer term, layer 1's
 * colour lands over the depth's region. Either way the resolve differs
 * (identical texel sizes would shift both by the same amount and hide
 * the x0 fault). */
static void
test_tile_memory_offsets(void)
{
   enum { L = 2 };
   struct rig r;
   rig_init(&r, 2);
   free(r.color);
   free(r.depth);
   r.color = calloc((size_t)FBW * FBH * 4 * L, 4);
   r.depth = calloc((size_t)FBW * FBH * 4 * L, 2);
   r.fb.color[0].base = r.color;
   r.fb.color[0].samples = 4;
   r.fb.color[0].layers = L;
   r.fb.color[0].row_pitch = FBW * 16;
   r.fb.color[0].layer_pitch = FBW * FBH * 16;
   r.fb.depth = (struct sr_surface){
      .base = (uint8_t *)r.depth, .format = su_format_desc(VK_FORMAT_D16_UNORM),
      .vk_format = VK_FORMAT_D16_UNORM, .width = FBW, .height = FBH, .layers = L,
      .samples = 4, .row_pitch = FBW * 8, .layer_pitch = FBW * FBH * 8};
   r.fb.samples = 4;
   r.fb.layers = L;
   const size_t dst_bytes = (size_t)FBW * FBH * 4 * L;
   uint8_t *dst = malloc(dst_bytes), *dst0 = malloc(dst_bytes);
   const struct sr_surface dsurf = {
      .base = dst, .format = su_format_desc(VK_FORMAT_R8G8B8A8_UNORM),
      .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .width = FBW, .height = FBH, .layers = L,
      .samples = 1, .row_pitch = FBW * 4, .layer_pitch = FBW * FBH * 4};
   struct vtx v[3] = {vwin(10 * 256, 10 * 256, 0.5f, 1, ~0u), vwin(190 * 256, 20 * 256, 0.5f, 1, ~0u),
                      vwin(30 * 256, 140 * 256, 0.5f, 1, ~0u)};
   struct sr_draw_state st;
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.samples = 4;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   const VkClearValue c1 = {.color.float32 = {1.0f, 0.2f, 0.0f, 0.6f}};
   const VkClearValue cd = {.depthStencil = {1.0f, 0}};
   const VkRect2D area = {{0, 0}, {FBW, FBH}};
   for (int mode = 0; mode < 2; mode++) {
      memset(r.color, 0xab, (size_t)FBW * FBH * 16 * L);
      memset(r.depth, 0xcd, (size_t)FBW * FBH * 8 * L);
      memset(dst, 0x11, dst_bytes);
      memset(counters, 0, sizeof(counters));
      struct sr_scene *scene;
      CHECK(sr_scene_begin(r.ctx, &r.fb, &area, L, &scene) == VK_SUCCESS, "begin");
      CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &c1, &area, 0, L) == VK_SUCCESS,
            "clear");
      CHECK(sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, &cd, &area,
                           0, L) == VK_SUCCESS, "clear");
      /* The triangle on each layer (multiview: view_index picks the
       * layer), so every layer's tiles hold a primitive: a tile only
       * cleared resolves from the clear value without reading memory. */
      for (uint32_t l = 0; l < L; l++) {
         const struct sr_draw d = {.count = 3, .instance_count = 1, .view_index = l};
         CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
      }
      CHECK(sr_scene_resolve(scene, 0, &dsurf) == VK_SUCCESS, "resolve");
      if (mode)
         sr_scene_set_discard(scene, 1u | SR_DISCARD_DEPTH_STENCIL);
      sr_scene_end(scene);
      if (mode == 0) {
         memcpy(dst0, dst, dst_bytes);
         continue;
      }
      /* Where the attachments' memory kept its fill, their tiles were in
       * tile memory (else this test would not reach it). */
      uint32_t untouched = 0;
      for (size_t i = 0; i < (size_t)FBW * FBH * 16 * L; i += 16)
         untouched += r.color[i] == 0xab;
      CHECK(untouched == (uint32_t)FBW * FBH * L,
            "tile memory offsets: %u of %u colour pixels untouched (tile memory not used)", untouched,
            FBW * FBH * L);
      for (int l = 0; l < L; l++) {
         uint32_t bad_px = 0, bad_tx1 = 0;
         for (int y = 0; y < FBH; y++)
            for (int x = 0; x < FBW; x++) {
               const size_t o = (size_t)l * FBW * FBH * 4 + ((size_t)y * FBW + (size_t)x) * 4;
               const bool bad = memcmp(dst + o, dst0 + o, 4) != 0;
               bad_px += bad;
               bad_tx1 += bad && x >= 64;
            }
         CHECK(bad_px == 0,
               "tile memory offsets, layer %d: %u resolved pixels unlike the kept attachments' "
               "(%u in tiles with x0 > 0)", l, bad_px, bad_tx1);
      }
   }
   free(dst0);
   free(dst);
   rig_finish(&r);
}

/* Tile memory for stored attachments (sr_scene_set_tile_memory; sr_tile.c
 * tile_memory_write_back): smooth random triangles with a depth test
 * (LESS, written) over a one-sample RGBA8 colour and D32 depth of
 * 200 x 150 (tiles cut at the right and bottom edges), cleared over the
 * render area, then a vkCmdClearAttachments-like clear of a rect after
 * the draws (a clear after a tile's last primitive, into tile memory:
 * not streamed). Run at 1, 2 and 4 threads, with the full area and with
 * a render area that clears no tile whole on its edges, in four modes:
 *  0: no tile memory (the reference: what the attachments held before);
 *  1: tile memory for colour and depth, both stored: the colour and depth
 *     bytes are identical to mode 0's (the write-back stores every pixel);
 *  2: tile memory, depth discarded (vkcube's render pass: depth
 *     DONT_CARE): the colour is mode 0's, and over the full area the
 *     depth memory is never touched (tiles with primitives keep it in
 *     tile memory, the clears of the others are dropped);
 *  3: tile memory for colour only, depth stored in memory: both are mode
 *     0's.
 * That the tile memory is used: every worker's buffer is zeroed before a
 * run; after modes 1-3 one of them holds the final colour of a tile the
 * area clears whole (the last it ran), after mode 0 none does. */
static void
test_tile_memory_stored(void)
{
   static const uint8_t canary = 0x5a;
   const size_t cbytes = (size_t)FBW * FBH * 4, dbytes = (size_t)FBW * FBH * 4;
   uint8_t *ref_c[2] = {malloc(cbytes), malloc(cbytes)};
   uint8_t *ref_d[2] = {malloc(dbytes), malloc(dbytes)};
   enum { NT = 40 };
   struct vtx v[NT * 3];
   /* Its own sequence: the later tests' random inputs stay as they were. */
   const uint32_t rng_saved = rng_state;
   rng_state = 0x7f4a7c15u;
   for (int i = 0; i < NT * 3; i++)
      v[i] = vwin((int64_t)(rng() % (FBW * 256 + 2000)) - 1000,
                  (int64_t)(rng() % (FBH * 256 + 2000)) - 1000, (float)(rng() % 1000) / 1000.0f, 1,
                  rng());
   rng_state = rng_saved;
   const VkClearValue cc = {.color.float32 = {0.25f, 0.5f, 0.75f, 1.0f}};
   const VkClearValue cc2 = {.color.float32 = {1.0f, 0.0f, 0.5f, 0.0f}};
   const VkClearValue cd = {.depthStencil = {1.0f, 0}};
   const VkRect2D areas[2] = {{{0, 0}, {FBW, FBH}}, {{10, 5}, {FBW - 30, FBH - 20}}};
   const VkRect2D late = {{60, 50}, {90, 40}};
   static const unsigned threads[3] = {1, 2, 4};
   for (int ti = 0; ti < 3; ti++) {
      for (int ai = 0; ai < 2; ai++) {
         for (int mode = 0; mode < 4; mode++) {
            struct rig r;
            rig_init(&r, threads[ti]);
            for (unsigned w = 0; w < r.ctx->workers; w++)
               memset(r.ctx->scratch[w]->tile_mem, 0, SR_TILE_MEM_BYTES);
            memset(r.color, canary, cbytes);
            memset(r.depth, canary, dbytes);
            struct sr_draw_state st;
            state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true);
            st.depth_test = st.depth_write = true;
            st.depth_compare = VK_COMPARE_OP_LESS;
            st.scissors[0] = areas[ai];
            struct sr_draw_bindings b;
            bindings_init(&b, v, NT * 3);
            const struct sr_draw d = {.count = NT * 3, .instance_count = 1};
            struct sr_scene *scene;
            CHECK(sr_scene_begin(r.ctx, &r.fb, &areas[ai], 1, &scene) == VK_SUCCESS, "begin");
            if (mode)
               sr_scene_set_tile_memory(scene, mode == 3 ? 1u : 1u | SR_DISCARD_DEPTH_STENCIL);
            CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &areas[ai], 0, 1) ==
                     VK_SUCCESS, "clear");
            CHECK(sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, &cd,
                                 &areas[ai], 0, 1) == VK_SUCCESS, "clear");
            CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
            CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc2, &late, 0, 1) ==
                     VK_SUCCESS, "clear");
            if (mode == 2)
               sr_scene_set_discard(scene, SR_DISCARD_DEPTH_STENCIL);
            sr_scene_end(scene);
            /* Workers whose buffer starts with the final colour of a
             * tile the area holds whole (colour is placed first, rows of
             * 64 pixels): the last such tile that worker ran. */
            uint32_t used = 0;
            for (unsigned w = 0; w < r.ctx->workers; w++) {
               const uint8_t *m = r.ctx->scratch[w]->tile_mem;
               bool found = false;
               for (int ty = 0; ty * 64 < FBH && !found; ty++) {
                  for (int tx = 0; tx * 64 < FBW && !found; tx++) {
                     const int x0 = tx * 64, y0 = ty * 64;
                     const int x1 = x0 + 63 < FBW - 1 ? x0 + 63 : FBW - 1;
                     const int y1 = y0 + 63 < FBH - 1 ? y0 + 63 : FBH - 1;
                     const VkRect2D *a = &areas[ai];
                     if (x0 < a->offset.x || y0 < a->offset.y ||
                         x1 >= a->offset.x + (int)a->extent.width ||
                         y1 >= a->offset.y + (int)a->extent.height)
                        continue;
                     bool same = true;
                     for (int y = y0; y <= y1 && same; y++)
                        same = !memcmp(m + (size_t)(y - y0) * 256,
                                       r.color + ((size_t)y * FBW + (size_t)x0) * 4,
                                       (size_t)(x1 - x0 + 1) * 4);
                     found = same;
                  }
               }
               used += found;
            }
            if (mode == 0) {
               /* The reference of this area at one thread, and this one
                * at more threads: the same bytes. */
               if (ti == 0) {
                  memcpy(ref_c[ai], r.color, cbytes);
                  memcpy(ref_d[ai], r.depth, dbytes);
               }
               CHECK(used == 0, "tile memory stored, %u threads, area %d: tile memory written "
                     "without the mask", threads[ti], ai);
            } else {
               CHECK(used > 0, "tile memory stored, %u threads, area %d, mode %d: tile memory "
                     "unused", threads[ti], ai, mode);
            }
            uint32_t bad_c = 0, bad_d = 0, touched_d = 0;
            for (size_t i = 0; i < cbytes; i += 4) {
               bad_c += memcmp(r.color + i, ref_c[ai] + i, 4) != 0;
               bad_d += memcmp((uint8_t *)r.depth + i, ref_d[ai] + i, 4) != 0;
               const uint8_t *dp = (const uint8_t *)r.depth + i;
               touched_d += dp[0] != canary || dp[1] != canary || dp[2] != canary ||
                            dp[3] != canary;
            }
            CHECK(bad_c == 0, "tile memory stored, %u threads, area %d, mode %d: %u colour "
                  "pixels unlike mode 0 at 1 thread", threads[ti], ai, mode, bad_c);
            /* With the smaller area the edge tiles are not cleared whole:
             * their depth is in memory, as without tile memory. */
            if (mode == 2 && ai == 0)
               CHECK(touched_d == 0, "tile memory stored, %u threads, area %d, mode 2: %u depth "
                     "pixels written under discard", threads[ti], ai, touched_d);
            else if (mode != 2)
               CHECK(bad_d == 0, "tile memory stored, %u threads, area %d, mode %d: %u depth "
                     "pixels unlike mode 0 at 1 thread", threads[ti], ai, mode, bad_d);
            rig_finish(&r);
         }
      }
   }
   for (int i = 0; i < 2; i++) {
      free(ref_c[i]);
      free(ref_d[i]);
   }
}

/* A RESOLVE followed by a PRIM in its tile: its rows are stored with
 * ordinary stores, not streamed (sr_resolve.c's `stream` is false). The
 * driver never builds this (its resolves come right before a flush or the
 * scene's end), but the rasterizer allows it. A 4x RGBA8 colour, smooth
 * random triangles, the resolve, then (scene B only) a full-screen pair of
 * triangles: the resolved pixels (B's non-streaming rows, A's streaming
 * ones) must be byte-identical, and the pixels outside the render area
 * untouched. The render area is 198 pixels wide: the last tile's rows are
 * 6 pixels, 4 for the AVX-512 row and 2 left to the FMA row's pair loop
 * (where the CPU has them), so both rows' ordinary stores run. */
static void
test_resolve_before_prim(void)
{
   enum { NT = 24, AW = 198 };
   struct rig r;
   rig_init(&r, 2);
   rig_samples4(&r);
   const size_t dst_bytes = (size_t)FBW * FBH * 4;
   uint8_t *dst = malloc(dst_bytes), *dst0 = malloc(dst_bytes);
   const struct sr_surface dsurf = {
      .base = dst, .format = su_format_desc(VK_FORMAT_R8G8B8A8_UNORM),
      .vk_format = VK_FORMAT_R8G8B8A8_UNORM, .width = FBW, .height = FBH, .layers = 1,
      .samples = 1, .row_pitch = FBW * 4, .layer_pitch = FBW * FBH * 4};
   struct vtx v[NT * 3];
   for (int i = 0; i < NT * 3; i++)
      v[i] = vwin((int64_t)(rng() % ((FBW + 40) * 256)) - 20 * 256,
                  (int64_t)(rng() % ((FBH + 40) * 256)) - 20 * 256, 0.5f, 1.0f, rng());
   const struct vtx full[6] = {
      vwin(-8 * 256, -8 * 256, 0.5f, 1, 0x80402010u), vwin((FBW + 8) * 256, -8 * 256, 0.5f, 1, 0x80402010u),
      vwin(-8 * 256, (FBH + 8) * 256, 0.5f, 1, 0x80402010u),
      vwin((FBW + 8) * 256, -8 * 256, 0.5f, 1, 0x80402010u),
      vwin((FBW + 8) * 256, (FBH + 8) * 256, 0.5f, 1, 0x80402010u),
      vwin(-8 * 256, (FBH + 8) * 256, 0.5f, 1, 0x80402010u)};
   struct sr_draw_state st;
   state_init(&st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true);
   st.samples = 4;
   struct sr_draw_bindings b, bf;
   bindings_init(&b, v, NT * 3);
   bindings_init(&bf, full, 6);
   const VkClearValue cc = {.color.float32 = {0.1f, 0.3f, 0.5f, 0.7f}};
   const VkClearValue cd = {.depthStencil = {1.0f, 0}};
   const VkRect2D area = {{0, 0}, {AW, FBH}};
   for (int mode = 0; mode < 2; mode++) {
      memset(dst, 0x11, dst_bytes);
      struct sr_scene *scene;
      CHECK(sr_scene_begin(r.ctx, &r.fb, &area, 1, &scene) == VK_SUCCESS, "begin");
      CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) == VK_SUCCESS,
            "clear");
      CHECK(sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, &cd, &area,
                           0, 1) == VK_SUCCESS, "clear");
      CHECK(sr_scene_draw(scene, &st, &b, &(struct sr_draw){.count = NT * 3, .instance_count = 1}) ==
               VK_SUCCESS, "draw");
      CHECK(sr_scene_resolve(scene, 0, &dsurf) == VK_SUCCESS, "resolve");
      if (mode)
         CHECK(sr_scene_draw(scene, &st, &bf, &(struct sr_draw){.count = 6, .instance_count = 1}) ==
                  VK_SUCCESS, "draw after the resolve");
      sr_scene_end(scene);
      if (mode == 0) {
         memcpy(dst0, dst, dst_bytes);
         /* Pixels whose samples differ (edges): the averaging paths run. */
         uint32_t mixed = 0;
         for (size_t p = 0; p < (size_t)FBW * FBH; p++)
            mixed += memcmp(r.color + p * 16, r.color + p * 16 + 4, 4) != 0 ||
                     memcmp(r.color + p * 16, r.color + p * 16 + 12, 4) != 0;
         CHECK(mixed > 100, "resolve before a primitive: only %u pixels of mixed samples", mixed);
         continue;
      }
      uint32_t bad = 0, bad_tail = 0, outside = 0;
      for (int y = 0; y < FBH; y++)
         for (int x = 0; x < FBW; x++) {
            const size_t o = ((size_t)y * FBW + (size_t)x) * 4;
            if (x >= AW) {
               outside += dst[o] != 0x11 || dst[o + 1] != 0x11 || dst[o + 2] != 0x11 || dst[o + 3] != 0x11;
               continue;
            }
            const bool diff = memcmp(dst + o, dst0 + o, 4) != 0;
            bad += diff;
            bad_tail += diff && x >= 196;
         }
      CHECK(bad == 0, "resolve before a primitive: %u pixels unlike the streamed resolve's (%u in the "
            "last two columns)", bad, bad_tail);
      CHECK(outside == 0, "resolve before a primitive: %u pixels outside the render area written",
            outside);
   }
   free(dst0);
   free(dst);
   rig_finish(&r);
}

/* Positions with NaN, infinities and huge values: undefined pictures,
 * but no crash, no undefined behaviour (the ASan/UBSan build), and the
 * finite triangle drawn with them is still right. */
static void
test_bad_positions(struct rig *r, uint32_t width)
{
   const float bad[6] = {NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 0.0f};
   enum { N = 6 * 6 * 3 };
   struct vtx v[N + 3];
   int n = 0;
   for (int i = 0; i < 6; i++)
      for (int j = 0; j < 6; j++) {
         v[n++] = (struct vtx){{bad[i], 0.5f, 0.5f, bad[j]}, {0}};
         v[n++] = (struct vtx){{0.5f, bad[j], bad[i], 1.0f}, {0}};
         v[n++] = (struct vtx){{-0.5f, -0.5f, 0.5f, 1.0f}, {0}};
      }
   const int64_t X[3] = {20 * 256, 90 * 256 + 3, 40 * 256 + 100}, Y[3] = {30 * 256, 40 * 256, 120 * 256 + 7};
   for (int i = 0; i < 3; i++)
      v[n++] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   struct sr_draw_bindings b;
   bindings_init(&b, v, N + 3);
   const VkPrimitiveTopology topo[3] = {VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
                                        VK_PRIMITIVE_TOPOLOGY_POINT_LIST};
   for (int t = 0; t < 3; t++) {
      struct sr_draw_state st;
      state_init(&st, width, topo[t], false);
      st.polygon_mode = t == 0 && width == 8 ? VK_POLYGON_MODE_LINE : VK_POLYGON_MODE_FILL;
      struct draw_call calls[2] = {{&st, &b, {.count = N, .instance_count = 1}},
                                   {&st, &b, {.count = 3, .instance_count = 1, .first = N}}};
      run_scene(r, calls, t == 0 ? 2 : 1);
   }
   /* The last scene drew points only; the triangle list's finite triangle
    * is checked in a scene of its own after the bad one. */
   struct sr_draw_state st;
   state_init(&st, width, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct draw_call calls[2] = {{&st, &b, {.count = N, .instance_count = 1}},
                                {&st, &b, {.count = 3, .instance_count = 1, .first = N}}};
   run_scene(r, calls, 2);
   uint32_t want[FBH][FBW];
   memset(want, 0, sizeof(want));
   ref_triangle(X, Y, want, 0, 0, FBW, FBH);
   int bad_px = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++)
         bad_px += want[y][x] && counters[y][x] == 0;
   CHECK(bad_px == 0, "finite triangle after bad ones: %d pixels missing", bad_px);
}

/* Long non-indexed lists and strips run in windows of 49152 positions:
 * coverage and PrimitiveId continue across the windows. */
static void
test_windows(struct rig *r, bool strip)
{
   const uint32_t n = strip ? 49152 + 2 + 1001 : 3 * 16500;
   struct vtx *v = malloc(sizeof(*v) * n);
   int64_t *X = malloc(sizeof(*X) * n), *Y = malloc(sizeof(*Y) * n);
   for (uint32_t i = 0; i < n; i++) {
      if (strip) {
         uint32_t k = i / 2;
         X[i] = (5 + (int64_t)(k % 180)) * 256 + (i & 1) * 77;
         Y[i] = (5 + (int64_t)(k / 180 % 140)) * 256 + (i & 1) * 190;
      } else if (i % 3 == 0) {
         rand_win(&X[i], &Y[i]);
      } else {
         X[i] = X[i - i % 3] + (int64_t)(rng() % 1024) - 512;
         Y[i] = Y[i - i % 3] + (int64_t)(rng() % 1024) - 512;
      }
      v[i] = vwin(X[i], Y[i], 0.5f, 1.0f, 0xffffffffu);
   }
   struct sr_draw_state st;
   state_init(&st, 8, strip ? VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   struct sr_draw_bindings b;
   bindings_init(&b, v, n);
   const uint32_t prims = strip ? n - 2 : n / 3;
   memset(ref, 0, sizeof(ref));
   uint8_t *expect = calloc(prims, 1), *seen = calloc(prims, 1);
   for (uint32_t p = 0; p < prims; p++) {
      uint32_t i = strip ? p : 3 * p;
      int64_t tx[3] = {X[i], X[i + 1], X[i + 2]}, ty[3] = {Y[i], Y[i + 1], Y[i + 2]};
      ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
      int64_t area = (tx[1] - tx[0]) * (ty[2] - ty[0]) - (tx[2] - tx[0]) * (ty[1] - ty[0]);
      int64_t x0 = tx[0], x1 = tx[0], y0 = ty[0], y1 = ty[0];
      for (int k = 1; k < 3; k++)
         x0 = tx[k] < x0 ? tx[k] : x0, x1 = tx[k] > x1 ? tx[k] : x1, y0 = ty[k] < y0 ? ty[k] : y0,
         y1 = ty[k] > y1 ? ty[k] : y1;
      /* Binned when not degenerate and its box reaches the framebuffer. */
      expect[p] = area != 0 && x1 >= 0 && y1 >= 0 && x0 >> 8 < FBW && y0 >> 8 < FBH;
   }
   memset(counters, 0, sizeof(counters));
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   struct sr_draw d = {.count = n, .instance_count = 1};
   CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
   for (uint32_t t = 0; t < scene->tiles_x * scene->tiles_y; t++)
      for (const struct sr_bin_chunk *c = scene->bins[t].first; c; c = c->next)
         for (uint32_t i = 0; i < c->count; i++)
            if (c->cmds[i].prim->primitive_id < prims)
               seen[c->cmds[i].prim->primitive_id] = 1;
   sr_scene_end(scene);
   int wrong = 0;
   for (uint32_t p = 0; p < prims; p++)
      wrong += seen[p] != expect[p];
   CHECK(wrong == 0, "%s: %d primitive ids binned wrongly", strip ? "long strip" : "long list", wrong);
   compare_counters(strip ? "long strip" : "long list");
   free(expect);
   free(seen);
   free(v);
   free(X);
   free(Y);
}

/* Multiview: a draw with view_index 1 reaches layer 1 only, and both
 * shaders see ViewIndex 1. */
static uint32_t seen_view_vs, seen_view_fs;

static void
vs_view(const struct shale_vs_context *ctx, struct shale_vs_batch *b)
{
   vs_copy_4(ctx, b);
   __atomic_store_n(&seen_view_vs, ctx->view_index, __ATOMIC_RELAXED);
}

static void
fs_view(const struct shale_fs_context *ctx, struct shale_fs_quads *q)
{
   fs_count_4(ctx, q);
   __atomic_store_n(&seen_view_fs, ctx->view_index, __ATOMIC_RELAXED);
}

static void
test_view_index(void)
{
   struct rig r;
   rig_init(&r, 2);
   free(r.color);
   r.color = calloc(FBW * FBH * 2, 4);
   r.fb.color[0].base = r.color;
   r.fb.color[0].layers = 2;
   r.fb.layers = 2;
   r.fb.depth.base = NULL;
   struct vtx v[3] = {vwin(10 * 256, 10 * 256, 0.5f, 1, 0xffffffffu), vwin(150 * 256, 20 * 256, 0.5f, 1, 0xffffffffu),
                      vwin(40 * 256, 140 * 256, 0.5f, 1, 0xffffffffu)};
   struct sr_draw_state st;
   state_init(&st, 4, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.vs = vs_view;
   st.fs = fs_view;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(r.ctx, &r.fb, &area, 2, &scene) == VK_SUCCESS, "begin");
   struct sr_draw d = {.count = 3, .instance_count = 1, .view_index = 1};
   seen_view_vs = seen_view_fs = 7;
   CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
   sr_scene_end(scene);
   int layer0 = 0, layer1 = 0;
   for (int i = 0; i < FBW * FBH; i++) {
      layer0 += r.color[i * 4 + 3] != 0;
      layer1 += r.color[(FBW * FBH + i) * 4 + 3] != 0;
   }
   CHECK(layer0 == 0 && layer1 > 1000, "view 1: %d pixels in layer 0, %d in layer 1", layer0, layer1);
   CHECK(seen_view_vs == 1 && seen_view_fs == 1, "ViewIndex %u / %u", seen_view_vs, seen_view_fs);
   rig_finish(&r);
}

/* A point's primitives: PointCoord planes (s = 1/2 + (x - xc) / size,
 * t likewise), constant inputs, front-facing. */
static void
test_point_planes(struct rig *r)
{
   struct vtx v[1] = {vwin(50 * 256 + 64, 60 * 256 + 128, 0.25f, 2.0f, 0x80402010u)};
   v[0].rgba[0] = 51;   /* PointSize 51 / 255 * 20 = 4 */
   struct sr_draw_state st;
   state_init(&st, 4, VK_PRIMITIVE_TOPOLOGY_POINT_LIST, false);
   st.vs = vs_psize_4;
   st.vs_io.outputs_written |= 1ull << SHALE_SLOT_POINT_SIZE;
   st.vs_io.writes_point_size = 1;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 1);
   struct sr_scene *scene;
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   struct sr_draw d = {.count = 1, .instance_count = 1};
   CHECK(sr_scene_draw(scene, &st, &b, &d) == VK_SUCCESS, "draw");
   const struct sr_bin_chunk *c = scene->bins[0].first;
   CHECK(c && c->count == 2, "a point is two primitives");
   for (uint32_t i = 0; c && i < c->count; i++) {
      const struct sr_prim *p = c->cmds[i].prim;
      CHECK(p->is_point && p->front_facing && !p->is_line, "point flags");
      CHECK(p->point_coord[0].a == 0.25f && p->point_coord[0].b == 0 && p->point_coord[0].c == 0.5f - 50.25f / 4,
            "s plane %g %g %g", p->point_coord[0].a, p->point_coord[0].b, p->point_coord[0].c);
      CHECK(p->point_coord[1].a == 0 && p->point_coord[1].b == 0.25f && p->point_coord[1].c == 0.5f - 60.5f / 4,
            "t plane %g %g %g", p->point_coord[1].a, p->point_coord[1].b, p->point_coord[1].c);
      CHECK(p->z.a == 0 && p->z.b == 0 && p->z.c == 0.25f, "z %g", p->z.c);
      CHECK(p->planes[1].c == 0.5f, "1/w %g", p->planes[1].c);
      CHECK(p->min_x == 48 && p->max_x == 52 && p->min_y == 58 && p->max_y == 62, "box %d %d %d %d", p->min_x,
            p->max_x, p->min_y, p->max_y);
   }
   sr_scene_end(scene);
}

/* The post-transform cache: an indexed draw shades each distinct index
 * value once per instance (when the values span a small range). */
static uint32_t vs_invocations;

static void
vs_counting(const struct shale_vs_context *ctx, struct shale_vs_batch *b)
{
   vs_copy_4(ctx, b);
   __atomic_fetch_add(&vs_invocations, b->count, __ATOMIC_RELAXED);
}

static void
test_vertex_reuse(struct rig *r)
{
   struct vtx v[4] = {vwin(10 * 256, 10 * 256, 0.5f, 1, 0), vwin(90 * 256, 10 * 256, 0.5f, 1, 0),
                      vwin(10 * 256, 90 * 256, 0.5f, 1, 0), vwin(90 * 256, 90 * 256, 0.5f, 1, 0)};
   const uint16_t idx[12] = {0, 1, 2, 2, 1, 3, 3, 1, 2, 0, 2, 1};
   struct sr_draw_state st;
   state_init(&st, 4, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.vs = vs_counting;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 4);
   b.index_base = (const uint8_t *)idx;
   b.index_size = sizeof(idx);
   b.index_type = VK_INDEX_TYPE_UINT16;
   vs_invocations = 0;
   draw1(r, &st, &b, (struct sr_draw){.indexed = true, .count = 12, .instance_count = 3});
   CHECK_EQ_INT(vs_invocations, 4 * 3);
   memset(ref, 0, sizeof(ref));
   const int64_t X[4] = {10 * 256, 90 * 256, 10 * 256, 90 * 256}, Y[4] = {10 * 256, 10 * 256, 90 * 256, 90 * 256};
   for (int inst = 0; inst < 3; inst++)
      for (int t = 0; t < 4; t++) {
         int64_t tx[3] = {X[idx[t * 3]], X[idx[t * 3 + 1]], X[idx[t * 3 + 2]]};
         int64_t ty[3] = {Y[idx[t * 3]], Y[idx[t * 3 + 1]], Y[idx[t * 3 + 2]]};
         ref_triangle(tx, ty, ref, 0, 0, FBW, FBH);
      }
   compare_counters("indexed quad, vertices reused");
}

/* The watchdog's cancel word (sr_context_set_cancel): once it is set, the
 * rasterizer's own loops stop (draws dropped, instances, vertex batches
 * and tiles skipped), also for shaders that never poll it (these C shaders
 * do not). */
static uint32_t cancel_word;

static void
vs_cancelling(const struct shale_vs_context *ctx, struct shale_vs_batch *b)
{
   vs_copy_4(ctx, b);
   __atomic_fetch_add(&vs_invocations, b->count, __ATOMIC_RELAXED);
   __atomic_store_n(&cancel_word, 1, __ATOMIC_RELAXED);   /* the watchdog fires */
}

static bool
cancel_nothing_drawn(const struct rig *r)
{
   unsigned covered = 0, written = 0;
   for (int y = 0; y < FBH; y++)
      for (int x = 0; x < FBW; x++)
         covered += counters[y][x] != 0;
   for (size_t i = 0; i < (size_t)FBW * FBH * 4; i++)
      written += r->color[i] != 0xab;
   CHECK(covered == 0 && written == 0, "cancelled: %u pixels shaded, %u bytes written", covered,
         written);
   return covered == 0 && written == 0;
}

static void
test_cancel(struct rig *r)
{
   struct vtx v[3] = {vwin(0, 0, 0.5f, 1, 0), vwin(200 * 256, 0, 0.5f, 1, 0),
                      vwin(0, 200 * 256, 0.5f, 1, 0)};
   struct sr_draw_state st;
   state_init(&st, 4, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false);
   st.vs = vs_counting;
   struct sr_draw_bindings b;
   bindings_init(&b, v, 3);
   VkRect2D area = {{0, 0}, {FBW, FBH}};
   VkClearValue cc = {.color.float32 = {0, 0, 0, 0}};
   sr_context_set_cancel(r->ctx, &cancel_word);

   /* Cancelled before the draw: no vertex shaded, the clear and the draw
    * never reach the framebuffer. */
   cancel_word = 1;
   memset(r->color, 0xab, (size_t)FBW * FBH * 4);
   memset(counters, 0, sizeof(counters));
   vs_invocations = 0;
   struct sr_scene *scene;
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) == VK_SUCCESS, "clear");
   CHECK(sr_scene_draw(scene, &st, &b, &(struct sr_draw){.count = 3, .instance_count = 1000}) ==
            VK_SUCCESS, "draw");
   sr_scene_end(scene);
   CHECK_EQ_INT(vs_invocations, 0);
   cancel_nothing_drawn(r);

   /* Cancelled between the draw and the flush: the vertices were shaded,
    * no tile runs. */
   cancel_word = 0;
   memset(r->color, 0xab, (size_t)FBW * FBH * 4);
   memset(counters, 0, sizeof(counters));
   vs_invocations = 0;
   CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
   CHECK(sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) == VK_SUCCESS, "clear");
   CHECK(sr_scene_draw(scene, &st, &b, &(struct sr_draw){.count = 3, .instance_count = 10}) ==
            VK_SUCCESS, "draw");
   cancel_word = 1;
   sr_scene_end(scene);
   CHECK_EQ_INT(vs_invocations, 3 * 10);
   cancel_nothing_drawn(r);

   /* Cancelled by the first vertex batch of a draw of 100000 instances
    * (and of a 200000-vertex list: windows of 49152): the draw stops
    * after that batch's instance or window, and nothing of it is
    * assembled. */
   for (int big = 0; big < 2; big++) {
      cancel_word = 0;
      memset(r->color, 0xab, (size_t)FBW * FBH * 4);
      memset(counters, 0, sizeof(counters));
      vs_invocations = 0;
      struct sr_draw_state st2 = st;
      st2.vs = vs_cancelling;
      static struct vtx many[200000];
      for (size_t i = 0; i < 200000; i++)
         many[i] = v[i % 3];
      struct sr_draw_bindings b2;
      bindings_init(&b2, many, big ? 200000 : 3);
      struct sr_draw d = {.count = big ? 200000 : 3, .instance_count = big ? 1 : 100000};
      CHECK(sr_scene_begin(r->ctx, &r->fb, &area, 1, &scene) == VK_SUCCESS, "begin");
      CHECK(sr_scene_draw(scene, &st2, &b2, &d) == VK_SUCCESS, "draw");
      sr_scene_end(scene);
      uint32_t n = __atomic_load_n(&vs_invocations, __ATOMIC_RELAXED);
      /* At most one window's batches started before the word was seen
       * (each worker may be inside one batch). */
      CHECK(n >= 3 && n <= (big ? 49152u : 3u), "cancelled %s: %u vertices shaded",
            big ? "200000-vertex list" : "100000 instances", n);
      cancel_nothing_drawn(r);
   }
   cancel_word = 0;
   sr_context_set_cancel(r->ctx, NULL);
}

/* Allocation failures: every allocation of a context, a scene and its
 * draws (one with a geometry shader) fails in turn; calls report
 * VK_ERROR_OUT_OF_HOST_MEMORY, nothing leaks, nothing crashes. */
static int alloc_live, alloc_count, alloc_fail_at;

static void *VKAPI_PTR
t_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   (void)user, (void)scope;
   /* Called from the workers too (parallel setup): counters are atomic. */
   if (__atomic_add_fetch(&alloc_count, 1, __ATOMIC_RELAXED) == alloc_fail_at)
      return NULL;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
      return NULL;
   __atomic_add_fetch(&alloc_live, 1, __ATOMIC_RELAXED);
   return p;
}

static void *VKAPI_PTR
t_realloc(void *user, void *old, size_t size, size_t align, VkSystemAllocationScope scope)
{
   (void)user, (void)old, (void)size, (void)align, (void)scope;
   return NULL;   /* never called */
}

static void VKAPI_PTR
t_free(void *user, void *p)
{
   (void)user;
   if (p) {
      __atomic_sub_fetch(&alloc_live, 1, __ATOMIC_RELAXED);
      free(p);
   }
}

/* A geometry shader in C (W = 8): each input triangle out twice (Invocations
 * 2) as a strip of its three vertices, Position and Location 0 passed on. */
static void
gs_pass_8(const struct shale_gs_context *ctx, struct shale_gs_batch *b)
{
   (void)ctx;
   enum { W = 8, WORDS = 8 };
   for (uint32_t i = 0; i < b->count; i++) {
      for (uint32_t v = 0; v < 3; v++) {
         for (uint32_t j = 0; j < WORDS; j++) {
            uint32_t slot = j < 4 ? SHALE_SLOT_POSITION : SHALE_SLOT_USER;
            b->outputs[(v * WORDS + j) * W + i] = b->inputs[((v * SHALE_SLOT_COUNT + slot) * 4 + j % 4) * W + i];
         }
         b->cut[v * W + i] = v == 0;
      }
      b->emitted[i] = 3;
   }
}

static void
gs_state(struct sr_draw_state *st)
{
   state_init(st, 8, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true);
   st->gs = gs_pass_8;
   st->gs_width = 8;
   struct shale_gs_info *g = &st->gs_io;
   g->out.outputs_written = (1ull << SHALE_SLOT_POSITION) | (1ull << SHALE_SLOT_USER);
   g->inputs_read = g->out.outputs_written;
   g->vertices_in = 3;
   g->invocations = 2;
   g->output_vertices = 3;
   g->output_topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
   g->out_words = 8;
   for (uint32_t j = 0; j < 8; j++)
      g->out_word[j] = (uint16_t)((j < 4 ? SHALE_SLOT_POSITION : SHALE_SLOT_USER) * 4 + j % 4);
}

static void
test_alloc_failures(void)
{
   const VkAllocationCallbacks cb = {.pfnAllocation = t_alloc, .pfnReallocation = t_realloc, .pfnFree = t_free};
   struct su_thread_pool *pool;
   if (!su_thread_pool_create(2, &pool))
      return;
   enum { N = 3300 };   /* 1100 triangles: parallel setup */
   struct vtx *v = malloc(sizeof(*v) * N);
   int64_t X = 0, Y = 0;
   for (int i = 0; i < N; i++) {
      /* Small triangles (a few pixels). */
      if (i % 3 == 0)
         rand_win(&X, &Y);
      v[i] = vwin(X + (int64_t)(rng() % 2048), Y + (int64_t)(rng() % 2048), 0.5f, 1.0f + (float)(i % 7),
                  0xffffffffu);
   }
   struct rig r;
   rig_init(&r, 1);
   bool done = false;
   int runs = 0;
   for (alloc_fail_at = 1; !done && alloc_fail_at < 10000; alloc_fail_at++, runs++) {
      alloc_count = 0;
      alloc_live = 0;
      struct sr_context *ctx;
      VkResult res = sr_context_create(pool, &cb, &ctx);
      bool failed = res != VK_SUCCESS;
      if (res == VK_SUCCESS) {
         struct sr_scene *scene;
         VkRect2D area = {{0, 0}, {FBW, FBH}};
         res = sr_scene_begin(ctx, &r.fb, &area, 1, &scene);
         failed |= res != VK_SUCCESS;
         if (res == VK_SUCCESS) {
            VkClearValue cc = {.color.float32 = {0, 0, 0, 0}};
            failed |= sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1) != VK_SUCCESS;
            struct sr_draw_state st;
            struct sr_draw_bindings b;
            bindings_init(&b, v, N);
            const VkPrimitiveTopology topo[3] = {VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                                                 VK_PRIMITIVE_TOPOLOGY_LINE_STRIP,
                                                 VK_PRIMITIVE_TOPOLOGY_POINT_LIST};
            for (int t = 0; t < 3; t++) {
               state_init(&st, 8, topo[t], true);
               struct sr_draw d = {.count = t == 0 ? N : 300, .instance_count = 2};
               failed |= sr_scene_draw(scene, &st, &b, &d) != VK_SUCCESS;
               if (t == 1)
                  sr_scene_flush(scene);
            }
            /* A geometry shader's draw (sr_geom.c's buffers): 1100
             * triangles, two invocations each. */
            gs_state(&st);
            struct sr_draw d = {.count = N, .instance_count = 1};
            failed |= sr_scene_draw(scene, &st, &b, &d) != VK_SUCCESS;
            sr_scene_end(scene);
         }
         sr_context_destroy(ctx);
      }
      CHECK(alloc_live == 0, "failing allocation %d: %d allocations leaked", alloc_fail_at, alloc_live);
      if (alloc_live)
         break;
      done = !failed && alloc_count < alloc_fail_at;
   }
   CHECK(done && runs > 5, "allocation failure runs: %d, done %d", runs, done);
   printf("allocation failures: %d runs\n", runs);
   rig_finish(&r);
   free(v);
   su_thread_pool_destroy(pool);
}

/* sr_coverage.h against a plain 64-bit evaluation of the edge functions
 * at every sample of every pixel: random triangles from a few pixels to
 * the whole guard band (so both the 32-bit lanes and the 64-bit fallback
 * run), every sample count, random clip boxes inside a tile and random
 * sample masks; every block of the box, masks compared exactly. `paths`
 * 0 forces sr_cover_samples.avx2 and .avx512 off (four samples take the
 * SSE sr_cover_lanes4, one the generic lanes); 1 forces .avx512 off
 * (sr_cover_lanes4_avx2 where the CPU has AVX2); 2: as
 * sr_cover_samples_init chose from the CPU (the _avx512 forms where it has
 * AVX-512 F and DQ). */
static void
test_coverage_blocks(int paths)
{
   /* 2: the CPU's paths; 1: AVX-512 off (AVX2 at four samples where the
    * CPU has it); 0: both off (SSE2 and the generic lanes). */
   const char *mode = paths == 2 ? "as detected" : paths == 1 ? "AVX-512 off" : "AVX2 and AVX-512 off";
   const uint32_t counts[5] = {1, 2, 4, 8, 16};
   const int64_t big = (int64_t)(SR_GUARD_BAND + SR_MAX_FRAMEBUFFER_SIZE / 2) << SR_SUBPIXEL_BITS;
   uint32_t bad = 0, blocks = 0, lanes32 = 0;
   for (uint32_t n = 0; n < 3000; n++) {
      /* A tile at a random place, a triangle near it of random size. */
      const int32_t tx = (int32_t)(rng() % 128) * SR_TILE_SIZE, ty = (int32_t)(rng() % 128) * SR_TILE_SIZE;
      const int64_t sizes[4] = {4 << 8, 40 << 8, 2000 << 8, big};
      const int64_t size = sizes[n % 4];
      int64_t fx[3], fy[3];
      for (int i = 0; i < 3; i++) {
         fx[i] = ((int64_t)tx << 8) + (int64_t)(rng() % (uint32_t)(2 * size + 1)) - size + (32 << 8);
         fy[i] = ((int64_t)ty << 8) + (int64_t)(rng() % (uint32_t)(2 * size + 1)) - size + (32 << 8);
         if (i == 0 && size > (40 << 8)) {
            /* Long edges through the tile. */
            fx[0] = ((int64_t)tx << 8) + (int64_t)(rng() % (64 << 8));
            fy[0] = ((int64_t)ty << 8) + (int64_t)(rng() % (64 << 8));
         }
         if (n % 8 < 2) {
            /* On the 1/16-pixel grid: edges through sample positions (ties). */
            fx[i] &= ~(int64_t)15;
            fy[i] &= ~(int64_t)15;
         }
         fx[i] = fx[i] < -big ? -big : fx[i] > big ? big : fx[i];
         fy[i] = fy[i] < -big ? -big : fy[i] > big ? big : fy[i];
      }
      int64_t area2 = (fx[1] - fx[0]) * (fy[2] - fy[0]) - (fx[2] - fx[0]) * (fy[1] - fy[0]);
      if (area2 == 0)
         continue;
      struct sr_prim p;
      memset(&p, 0, sizeof(p));
      for (int i = 0; i < 3; i++) {
         const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
         int64_t a = fy[i1] - fy[i2], b = fx[i2] - fx[i1], c = fx[i1] * fy[i2] - fx[i2] * fy[i1];
         if (area2 < 0)
            a = -a, b = -b, c = -c;
         if (!(a > 0 || (a == 0 && b > 0)))
            c -= 1;
         p.a[i] = a;
         p.b[i] = b;
         p.c[i] = c;
      }
      const uint32_t S = counts[rng() % 5];
      const uint32_t smask = rng() % 4 == 0 ? rng() : ~0u;
      struct sr_cover_samples cs;
      sr_cover_samples_init(&cs, S);
      if (paths < 2)
         cs.avx512 = false;
      if (paths < 1)
         cs.avx2 = false;
      const float(*pos)[2] = sr_sample_positions(S);
      int32_t x0 = tx + (int32_t)(rng() % 64), x1 = tx + (int32_t)(rng() % 64);
      int32_t y0 = ty + (int32_t)(rng() % 64), y1 = ty + (int32_t)(rng() % 64);
      if (x0 > x1) { int32_t t = x0; x0 = x1; x1 = t; }
      if (y0 > y1) { int32_t t = y0; y0 = y1; y1 = t; }
      if (rng() % 2)
         x0 = tx, y0 = ty, x1 = tx + 63, y1 = ty + 63;
      struct sr_cover cv;
      sr_cover_init(&cv, &p, &cs, smask, x0, y0, x1, y1);
      for (int32_t by = y0 & ~3; by <= y1; by += 4) {
         for (int32_t bx = x0 & ~3; bx <= x1; bx += 4) {
            uint32_t cov[16], pixels;
            bool any = sr_cover_block_pixels(&cv, bx, by, cov, &pixels);
            uint32_t ref_any = 0, ref_pixels = 0;
            blocks++;
            lanes32 += cv.tab_ready != 0;
            for (int k = 0; k < 16; k++) {
               const int32_t x = bx + (k & 3), y = by + (k >> 2);
               uint32_t m = 0;
               for (uint32_t s = 0; s < S && x >= x0 && x <= x1 && y >= y0 && y <= y1; s++) {
                  const int64_t X = ((int64_t)x << 8) + (int64_t)(pos[s][0] * 256.0f);
                  const int64_t Y = ((int64_t)y << 8) + (int64_t)(pos[s][1] * 256.0f);
                  bool in = true;
                  for (int i = 0; i < 3; i++)
                     in &= p.a[i] * X + p.b[i] * Y + p.c[i] >= 0;
                  m |= (uint32_t)in << s;
               }
               m &= smask;
               ref_any |= m;
               ref_pixels |= (uint32_t)(m != 0) << k;
               if (any && cov[k] != m && bad++ < 5)
                  fprintf(stderr, "coverage: %u samples, block (%d, %d) pixel %d: 0x%x, expected 0x%x\n",
                          S, bx, by, k, cov[k], m);
            }
            if (any != (ref_any != 0) && bad++ < 5)
               fprintf(stderr, "coverage: %u samples, block (%d, %d): any %d, expected %d\n", S, bx,
                       by, any, ref_any != 0);
            if (pixels != ref_pixels && bad++ < 5)
               fprintf(stderr, "coverage: %u samples, block (%d, %d): pixels 0x%x, expected 0x%x\n",
                       S, bx, by, pixels, ref_pixels);
         }
      }
   }
   CHECK(bad == 0, "coverage (%s): %u of %u blocks differ", mode, bad, blocks);
   CHECK(lanes32 > blocks / 4, "coverage (%s): the 32-bit lanes ran in %u of %u blocks", mode, lanes32,
         blocks);
}

int
main(void)
{
   struct rig r;
   test_coverage_blocks(0);
   test_coverage_blocks(1);
   test_coverage_blocks(2);
   rig_init(&r, 2);
   test_bins(&r);
   test_depth_bias(&r);
   test_primitive_id(&r);
   test_vertex_reuse(&r);
   test_cancel(&r);
   test_point_planes(&r);
   test_windows(&r, false);
   test_windows(&r, true);
   for (uint32_t w = 4; w <= 16; w *= 2) {
      test_fetch(&r, w);
      test_two_triangles(&r, w);
      test_fan_on_centres(&r, w);
      test_random_triangles(&r, w, 1500);   /* > 1024: parallel setup */
      test_large_scissored(&r, w);
      test_strips_fans(&r, w);
      test_lines_points(&r, w);
      test_point_sizes(&r, w);
      test_instancing(&r, w);
      test_huge(&r, w);
      test_near_far(&r, w);
      test_clip_cull_distances(&r, w);
      test_provoking(&r, w);
      test_interpolation(&r, w);
      test_bad_positions(&r, w);
   }
   rig_finish(&r);
   for (uint32_t w = 4; w <= 16; w *= 2)
      test_msaa(w);
   test_tile_clears();
   test_tile_memory_offsets();
   test_tile_memory_stored();
   test_resolve_before_prim();
   test_threads();
   test_indexed_threads();
   test_view_index();
   test_alloc_failures();
   /* Last, so that no earlier test's random draws move. */
   for (uint32_t w = 4; w <= 16; w *= 2)
      test_large_scissored_msaa(w);
   return check_finish();
}
