/* Unit test of the rasterizer's back end (sr_tile.c, sr_fragment.c): coverage
 * of hand-built primitives (top-left rule, shared edges), fragment quads,
 * clears, colour packing, per-fragment operations against C references
 * written from the spec, MSAA coverage and resolves. No Vulkan device. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rasterizer/sr_fragment.h"
#include "util/su_thread_pool.h"

static uint32_t rng_state = 0x2545f491u;

static uint32_t rng(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 17;
   rng_state ^= rng_state << 5;
   return rng_state;
}

static const struct su_format_desc *fmt(VkFormat f)
{
   const struct su_format_desc *d = su_format_desc(f);
   if (!d) {
      fprintf(stderr, "format %d unknown to su_format\n", (int)f);
      exit(1);
   }
   return d;
}

/* ---- A scene built by hand: surfaces, bins, primitives ---- */

static void surf_init(struct sr_surface *s, VkFormat f, uint32_t w, uint32_t h, uint32_t samples,
                      uint32_t layers)
{
   memset(s, 0, sizeof(*s));
   s->format = fmt(f);
   s->vk_format = f;
   s->width = w;
   s->height = h;
   s->layers = layers;
   s->samples = samples;
   s->row_pitch = (uint64_t)w * samples * s->format->block_size + 24;
   s->layer_pitch = s->row_pitch * h + 40;
   size_t size = s->layer_pitch * layers;
   s->base = malloc(size);
   for (size_t i = 0; i < size; i++)
      s->base[i] = (uint8_t)rng();
}

struct harness {
   struct sr_context ctx;
   struct sr_worker_scratch *scratch;
   struct sr_scene scene;
   struct sr_clear_cmd *clears[64];     /* freed by h_finish */
   unsigned clear_count;
};

static void h_init(struct harness *h, const struct sr_framebuffer *fb)
{
   memset(h, 0, sizeof(*h));
   h->scratch = aligned_alloc(SHALE_MEMORY_ALIGN, sizeof(struct sr_worker_scratch));
   h->ctx.workers = 1;
   h->ctx.scratch = &h->scratch;
   h->scene.ctx = &h->ctx;
   h->scene.fb = *fb;
   h->scene.layer_count = fb->layers ? fb->layers : 1;
   h->scene.tiles_x = (fb->width + SR_TILE_SIZE - 1) / SR_TILE_SIZE;
   h->scene.tiles_y = (fb->height + SR_TILE_SIZE - 1) / SR_TILE_SIZE;
   h->scene.bins = calloc((size_t)h->scene.layer_count * h->scene.tiles_x * h->scene.tiles_y,
                          sizeof(struct sr_bin));
}

/* Appends cmd to the bins of `layer` that the pixel box touches. */
static void h_append(struct harness *h, uint32_t layer, int32_t x0, int32_t y0, int32_t x1,
                     int32_t y1, struct sr_cmd cmd)
{
   struct sr_scene *s = &h->scene;
   x0 = x0 < 0 ? 0 : x0;
   y0 = y0 < 0 ? 0 : y0;
   x1 = x1 >= (int32_t)s->fb.width ? (int32_t)s->fb.width - 1 : x1;
   y1 = y1 >= (int32_t)s->fb.height ? (int32_t)s->fb.height - 1 : y1;
   for (int32_t ty = y0 / SR_TILE_SIZE; ty <= y1 / SR_TILE_SIZE; ty++) {
      for (int32_t tx = x0 / SR_TILE_SIZE; tx <= x1 / SR_TILE_SIZE; tx++) {
         struct sr_bin *b = &s->bins[((size_t)layer * s->tiles_y + ty) * s->tiles_x + tx];
         if (!b->last || b->last->count == SR_BIN_CHUNK) {
            struct sr_bin_chunk *c = calloc(1, sizeof(*c));
            if (b->last)
               b->last->next = c;
            else
               b->first = c;
            b->last = c;
         }
         b->last->cmds[b->last->count++] = cmd;
      }
   }
}

static void h_clear(struct harness *h, uint32_t attachment, VkImageAspectFlags aspects,
                    VkClearValue value, int32_t x, int32_t y, uint32_t w, uint32_t hh)
{
   struct sr_clear_cmd *c = calloc(1, sizeof(*c));
   if (h->clear_count == 64) {
      fprintf(stderr, "too many clears in one test scene\n");
      exit(1);
   }
   h->clears[h->clear_count++] = c;
   c->attachment = attachment;
   c->aspects = aspects;
   c->value = value;
   c->rect.offset.x = x;
   c->rect.offset.y = y;
   c->rect.extent.width = w;
   c->rect.extent.height = hh;
   c->base_layer = 0;
   c->layer_count = h->scene.layer_count;
   struct sr_cmd cmd = {.kind = SR_CMD_CLEAR, .clear = c};
   for (uint32_t l = 0; l < h->scene.layer_count; l++)
      h_append(h, l, x, y, x + (int32_t)w - 1, y + (int32_t)hh - 1, cmd);
}

/* Runs every tile, then empties the bins. */
static void h_run(struct harness *h)
{
   struct sr_scene *s = &h->scene;
   for (uint32_t l = 0; l < s->layer_count; l++)
      for (uint32_t ty = 0; ty < s->tiles_y; ty++)
         for (uint32_t tx = 0; tx < s->tiles_x; tx++)
            sr_tile_run(s, l, tx, ty, 0);
   size_t n = (size_t)s->layer_count * s->tiles_x * s->tiles_y;
   for (size_t i = 0; i < n; i++) {
      struct sr_bin_chunk *c = s->bins[i].first;
      while (c) {
         struct sr_bin_chunk *next = c->next;
         free(c);
         c = next;
      }
      s->bins[i].first = s->bins[i].last = NULL;
   }
}

static void h_finish(struct harness *h)
{
   for (unsigned i = 0; i < h->clear_count; i++)
      free(h->clears[i]);
   free(h->scene.bins);
   free(h->scratch);
}

/* A snapshot for the given state; planes of primitives are z and 1/w only. */
static void snap_init(struct sr_draw_snapshot *snap, const struct sr_draw_state *st)
{
   memset(snap, 0, sizeof(*snap));
   snap->state = st;
   snap->fs_input_count = 2;
   memset(snap->plane_index, 0xff, sizeof(snap->plane_index));
   snap->fs_ctx.sample_count = st->samples;
}

static void state_init(struct sr_draw_state *st, shale_fs_fn fs, uint32_t width)
{
   memset(st, 0, sizeof(*st));
   st->fs = fs;
   st->fs_width = width;
   st->fs_io.outputs_written = fs ? 1 : 0;
   st->samples = 1;
   st->sample_mask = ~0u;
   st->depth_compare = VK_COMPARE_OP_ALWAYS;
   for (int c = 0; c < SR_MAX_COLOR_ATTACHMENTS; c++)
      st->blend[c].write_mask = 0xf;
}

/* Sets up a triangle from window coordinates (pixels) as sr_scene.h says
 * the front end does: vertices snapped to 1/256, edges oriented inside
 * positive, the top-left rule folded into c; z interpolated linearly. */
static void prim_init(struct sr_prim *p, const struct sr_draw_snapshot *snap, const float v[3][2],
                      const float z[3], int32_t fb_w, int32_t fb_h)
{
   static const struct shale_fs_plane planes[2] = {{0, 0, 0}, {0, 0, 1}};
   memset(p, 0, sizeof(*p));
   p->draw = snap;
   int64_t X[3], Y[3];
   for (int i = 0; i < 3; i++) {
      X[i] = llrintf(v[i][0] * 256.0f);
      Y[i] = llrintf(v[i][1] * 256.0f);
   }
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
   for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3;
      /* E(P) = cross(Vj - Vi, P - Vi), positive inside for area > 0. */
      int64_t a = -(Y[j] - Y[i]), b = X[j] - X[i];
      int64_t c = -(a * X[i] + b * Y[i]);
      if (area < 0) {
         a = -a;
         b = -b;
         c = -c;
      }
      bool top_left = a > 0 || (a == 0 && b > 0);
      p->a[i] = a;
      p->b[i] = b;
      p->c[i] = top_left ? c : c - 1;
   }
   int64_t minx = X[0], maxx = X[0], miny = Y[0], maxy = Y[0];
   for (int i = 1; i < 3; i++) {
      minx = X[i] < minx ? X[i] : minx;
      maxx = X[i] > maxx ? X[i] : maxx;
      miny = Y[i] < miny ? Y[i] : miny;
      maxy = Y[i] > maxy ? Y[i] : maxy;
   }
   p->min_x = (int32_t)(minx >> 8);
   p->min_y = (int32_t)(miny >> 8);
   p->max_x = (int32_t)(maxx >> 8);
   p->max_y = (int32_t)(maxy >> 8);
   if (p->min_x < 0) p->min_x = 0;
   if (p->min_y < 0) p->min_y = 0;
   if (p->max_x >= fb_w) p->max_x = fb_w - 1;
   if (p->max_y >= fb_h) p->max_y = fb_h - 1;
   p->front_facing = area > 0;
   /* z = a x + b y + c through the three vertices. */
   double x0 = v[0][0], y0 = v[0][1], x1 = v[1][0], y1 = v[1][1], x2 = v[2][0], y2 = v[2][1];
   double det = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
   if (det != 0) {
      double za = ((z[1] - z[0]) * (y2 - y0) - (z[2] - z[0]) * (y1 - y0)) / det;
      double zb = ((x1 - x0) * (z[2] - z[0]) - (x2 - x0) * (z[1] - z[0])) / det;
      p->z.a = (float)za;
      p->z.b = (float)zb;
      p->z.c = (float)(z[0] - za * x0 - zb * y0);
   }
   p->depth_min = 0.0f;
   p->depth_max = 1.0f;
   p->planes = planes;
}

static void h_prim(struct harness *h, const struct sr_prim *p)
{
   struct sr_cmd cmd = {.kind = SR_CMD_PRIM, .prim = p};
   h_append(h, p->layer, p->min_x, p->min_y, p->max_x, p->max_y, cmd);
}

/* ---- Test fragment shaders (shale_fs_fn) ---- */

#define MAXW 160
#define MAXH 140
static uint32_t g_width;                /* the SIMD width the shaders were "compiled" for */
static uint32_t g_hits[MAXH][MAXW];     /* covered samples seen per pixel */
static uint32_t g_helpers;              /* helper lanes seen */
static uint32_t g_calls;
static uint32_t g_bad_quads;            /* quads off the 2x2 grid */
static uint32_t g_out[4];               /* colour bits written at Location 0 */
static float g_depth = -1.0f;           /* FragDepth written */
static bool g_kill_odd;                /* discard lanes of odd x */
static uint32_t g_mask[MAXH][MAXW];     /* union of coverage masks seen per pixel */
static float g_centroid[MAXH][MAXW][2]; /* centroid of the last lane seen per pixel */
static uint32_t g_sample_ids;           /* bit s: a call shaded sample s */
static bool g_bad_sample_call;          /* per-sample call with a wrong coverage */
static uint32_t g_mask_out = ~0u;       /* SampleMask output */
static bool g_color_by_sample;          /* R = sample id / 8 (per-sample shading) */

static uint32_t fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* Counts coverage and writes g_out (Location 0) and g_depth (FragDepth). */
static void fs_count(const struct shale_fs_context *ctx, struct shale_fs_quads *q)
{
   (void)ctx;
   uint32_t W = g_width;
   g_calls++;
   for (uint32_t k = 0; k < q->quad_count; k++) {
      if ((q->x[k] & 1) || (q->y[k] & 1))
         g_bad_quads++;
      for (int l = 0; l < 4; l++) {
         uint32_t i = k * 4 + (uint32_t)l;
         int x = q->x[k] + (l & 1), y = q->y[k] + ((l >> 1) & 1);
         if (!q->coverage[i]) {
            g_helpers++;
         } else if (x >= 0 && y >= 0 && x < MAXW && y < MAXH) {
            g_hits[y][x] += (uint32_t)__builtin_popcount(q->coverage[i]);
            g_mask[y][x] |= q->coverage[i];
            g_centroid[y][x][0] = q->centroid[0][i];
            g_centroid[y][x][1] = q->centroid[1][i];
            if (q->sample_id != ~0u && q->coverage[i] != 1u << q->sample_id)
               g_bad_sample_call = true;
         }
      }
   }
   if (q->sample_id != ~0u)
      g_sample_ids |= 1u << q->sample_id;
   for (uint32_t i = 0; i < W; i++) {
      for (int c = 0; c < 4; c++)
         q->outputs[c * W + i] = g_out[c];
      if (g_color_by_sample)
         q->outputs[i] = fbits((float)q->sample_id / 8.0f);
      q->frag_depth[i] = g_depth;
      q->sample_mask[i] = g_mask_out;
   }
   q->kill_mask = 0;
   if (g_kill_odd) {
      for (uint32_t k = 0; k < q->quad_count; k++)
         q->kill_mask |= 0x5u << (k * 4 + 1);   /* lanes 1 and 3: odd x */
   }
}

static void set_out_float(float r, float g, float b, float a)
{
   g_out[0] = fbits(r);
   g_out[1] = fbits(g);
   g_out[2] = fbits(b);
   g_out[3] = fbits(a);
}

/* ---- Tests: coverage ---- */

/* A rectangle tessellated into triangles of both windings, with interior
 * vertices jittered (some exactly on pixel centres): every pixel inside is
 * covered exactly once, none outside, whatever the SIMD width. */
static void test_mesh_coverage(uint32_t width)
{
   enum { GX = 7, GY = 6 };
   const int32_t W = 150, H = 130, RX0 = 8, RY0 = 6, RX1 = 142, RY1 = 126;
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.width = W;
   fb.height = H;
   fb.layers = 1;
   fb.samples = 1;
   fb.color_count = 1;
   surf_init(&fb.color[0], VK_FORMAT_R8G8B8A8_UNORM, W, H, 1, 1);
   struct harness h;
   h_init(&h, &fb);
   struct sr_draw_state st;
   state_init(&st, fs_count, width);
   struct sr_draw_snapshot snap;
   snap_init(&snap, &st);

   float gx[GY + 1][GX + 1], gy[GY + 1][GX + 1];
   for (int j = 0; j <= GY; j++) {
      for (int i = 0; i <= GX; i++) {
         float x = RX0 + (float)(RX1 - RX0) * i / GX, y = RY0 + (float)(RY1 - RY0) * j / GY;
         if (i > 0 && i < GX && j > 0 && j < GY) {
            if (rng() % 3 == 0) {   /* on a pixel centre */
               x = floorf(x) + 0.5f;
               y = floorf(y) + 0.5f;
            } else {
               x += (float)((int)(rng() % 2048) - 1024) / 256.0f;
               y += (float)((int)(rng() % 2048) - 1024) / 256.0f;
            }
         } else {
            x = roundf(x);
            y = roundf(y);
         }
         gx[j][i] = x;
         gy[j][i] = y;
      }
   }
   static struct sr_prim prims[GX * GY * 2];
   const float z[3] = {0, 0, 0};
   int n = 0;
   for (int j = 0; j < GY; j++) {
      for (int i = 0; i < GX; i++) {
         float a[3][2] = {{gx[j][i], gy[j][i]}, {gx[j][i + 1], gy[j][i + 1]},
                          {gx[j + 1][i + 1], gy[j + 1][i + 1]}};
         float b[3][2] = {{gx[j][i], gy[j][i]}, {gx[j + 1][i], gy[j + 1][i]},
                          {gx[j + 1][i + 1], gy[j + 1][i + 1]}};
         if ((i + j) & 1) {   /* the other diagonal, reversed winding */
            float a2[3][2] = {{gx[j][i + 1], gy[j][i + 1]}, {gx[j][i], gy[j][i]},
                              {gx[j + 1][i], gy[j + 1][i]}};
            float b2[3][2] = {{gx[j][i + 1], gy[j][i + 1]}, {gx[j + 1][i + 1], gy[j + 1][i + 1]},
                              {gx[j + 1][i], gy[j + 1][i]}};
            memcpy(a, a2, sizeof(a));
            memcpy(b, b2, sizeof(b));
         }
         prim_init(&prims[n], &snap, a, z, W, H);
         h_prim(&h, &prims[n++]);
         prim_init(&prims[n], &snap, b, z, W, H);
         h_prim(&h, &prims[n++]);
      }
   }
   memset(g_hits, 0, sizeof(g_hits));
   g_width = width;
   g_helpers = g_calls = g_bad_quads = 0;
   set_out_float(1.0f, 0.5f, 0.0f, 0.25f);
   h_run(&h);

   int wrong = 0, wrong_color = 0;
   for (int y = 0; y < H; y++) {
      for (int x = 0; x < W; x++) {
         uint32_t want = x >= RX0 && x < RX1 && y >= RY0 && y < RY1;
         wrong += g_hits[y][x] != want;
         const uint8_t *t = sr_surface_texel(&fb.color[0], 0, x, y, 0);
         if (want)
            wrong_color += !(t[0] == 255 && t[1] == 128 && t[2] == 0 && t[3] == 64);
      }
   }
   CHECK(wrong == 0, "W=%u: %d pixels covered a wrong number of times", width, wrong);
   CHECK(wrong_color == 0, "W=%u: %d covered pixels with a wrong colour", width, wrong_color);
   CHECK(g_bad_quads == 0, "W=%u: quads off the 2x2 grid", width);
   CHECK(g_helpers > 0, "W=%u: edge quads need helper lanes", width);
   h_finish(&h);
   free(fb.color[0].base);
}

/* Edges through pixel centres: left and top edges include them, right and
 * bottom ones do not. Also checks untouched pixels keep their bytes. */
static void test_top_left(void)
{
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.width = fb.height = 16;
   fb.layers = fb.samples = 1;
   fb.color_count = 1;
   surf_init(&fb.color[0], VK_FORMAT_R32G32B32A32_UINT, 16, 16, 1, 1);
   size_t size = fb.color[0].layer_pitch;
   uint8_t *before = malloc(size);
   memcpy(before, fb.color[0].base, size);
   struct harness h;
   h_init(&h, &fb);
   struct sr_draw_state st;
   state_init(&st, fs_count, 8);
   st.fs_io.output_type[0] = 2;
   struct sr_draw_snapshot snap;
   snap_init(&snap, &st);
   /* The square [2.5, 6.5] x [2.5, 6.5] as two triangles. */
   const float t0[3][2] = {{2.5f, 2.5f}, {6.5f, 2.5f}, {6.5f, 6.5f}};
   const float t1[3][2] = {{2.5f, 2.5f}, {2.5f, 6.5f}, {6.5f, 6.5f}};
   const float z[3] = {0, 0, 0};
   struct sr_prim p0, p1;
   prim_init(&p0, &snap, t0, z, 16, 16);
   prim_init(&p1, &snap, t1, z, 16, 16);
   h_prim(&h, &p0);
   h_prim(&h, &p1);
   memset(g_hits, 0, sizeof(g_hits));
   g_width = 8;
   g_out[0] = 0xdeadbeefu;
   g_out[1] = 7;
   g_out[2] = 0x80000000u;
   g_out[3] = 0xffffffffu;
   h_run(&h);
   int wrong = 0, wrong_mem = 0;
   for (int y = 0; y < 16; y++) {
      for (int x = 0; x < 16; x++) {
         bool in = x >= 2 && x <= 5 && y >= 2 && y <= 5;
         wrong += g_hits[y][x] != (uint32_t)in;
         uint8_t *t = sr_surface_texel(&fb.color[0], 0, x, y, 0);
         if (in)
            wrong_mem += memcmp(t, g_out, 16) != 0;
         else
            wrong_mem += memcmp(t, before + (t - fb.color[0].base), 16) != 0;
      }
   }
   CHECK(wrong == 0, "%d pixels break the top-left rule", wrong);
   CHECK(wrong_mem == 0, "%d pixels with wrong memory (uint bits kept, others untouched)",
         wrong_mem);
   h_finish(&h);
   free(before);
   free(fb.color[0].base);
}

/* ---- Tests: clears ---- */

static void test_clears(void)
{
   struct sr_framebuffer fb;
   memset(&fb, 0, sizeof(fb));
   fb.width = 100;
   fb.height = 70;
   fb.layers = 2;
   fb.samples = 1;
   fb.color_count = 3;
   surf_init(&fb.color[0], VK_FORMAT_R8G8B8A8_SRGB, 100, 70, 1, 2);
   surf_init(&fb.color[1], VK_FORMAT_R16G16_SINT, 100, 70, 1, 2);
   surf_init(&fb.color[2], VK_FORMAT_B8G8R8A8_UNORM, 100, 70, 4, 2);
   surf_init(&fb.depth, VK_FORMAT_D24_UNORM_S8_UINT, 100, 70, 1, 2);
   fb.stencil = fb.depth;
   size_t dsize = fb.depth.layer_pitch * 2;
   uint8_t *dbefore = malloc(dsize);
   memcpy(dbefore, fb.depth.base, dsize);
   uint8_t *c0before = malloc(fb.color[0].layer_pitch * 2);
   memcpy(c0before, fb.color[0].base, fb.color[0].layer_pitch * 2);

   struct harness h;
   h_init(&h, &fb);
   VkClearValue v0 = {.color.float32 = {0.5f, 0.0f, 1.0f, 0.5f}};
   VkClearValue v1 = {.color.int32 = {-5, 30000, 0, 0}};
   VkClearValue v2 = {.color.float32 = {1.0f, 0.0f, 0.2f, 1.0f}};
   VkClearValue vd = {.depthStencil = {0.75f, 0x5a}};
   h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, v0, 10, 5, 70, 62);
   h_clear(&h, 1, VK_IMAGE_ASPECT_COLOR_BIT, v1, 0, 0, 100, 70);
   h_clear(&h, 2, VK_IMAGE_ASPECT_COLOR_BIT, v2, 60, 60, 40, 10);
   h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, vd, 0, 0, 100, 70);
   h_run(&h);

   uint8_t want0[4];
   want0[0] = (uint8_t)lrint(su_linear_to_srgb(0.5f) * 255.0);
   want0[1] = 0;
   want0[2] = 255;
   want0[3] = 128;
   CHECK_EQ_INT(want0[0], 188);
   int bad0 = 0, bad1 = 0, bad2 = 0, badd = 0;
   for (uint32_t l = 0; l < 2; l++) {
      for (int y = 0; y < 70; y++) {
         for (int x = 0; x < 100; x++) {
            uint8_t *t = sr_surface_texel(&fb.color[0], l, x, y, 0);
            bool in = x >= 10 && x < 80 && y >= 5 && y < 67;
            bad0 += in ? memcmp(t, want0, 4) != 0
                       : memcmp(t, c0before + (t - fb.color[0].base), 4) != 0;
            int16_t s[2];
            memcpy(s, sr_surface_texel(&fb.color[1], l, x, y, 0), 4);
            bad1 += s[0] != -5 || s[1] != 30000;
            for (uint32_t smp = 0; smp < 4; smp++) {
               uint8_t *b = sr_surface_texel(&fb.color[2], l, x, y, smp);
               if (x >= 60 && y >= 60)
                  bad2 += !(b[0] == 51 && b[1] == 0 && b[2] == 255 && b[3] == 255);
            }
            uint8_t *d = sr_surface_texel(&fb.depth, l, x, y, 0);
            uint32_t dv;
            memcpy(&dv, d, 4);
            badd += (dv & 0xffffff) != (uint32_t)lrint(0.75 * 0xffffff) ||
                    d[3] != dbefore[(d - fb.depth.base) + 3];
         }
      }
   }
   CHECK(bad0 == 0, "%d sRGB clear texels wrong (rect, both layers)", bad0);
   CHECK(bad1 == 0, "%d SINT clear texels wrong", bad1);
   CHECK(bad2 == 0, "%d 4-sample BGRA clear samples wrong", bad2);
   CHECK(badd == 0, "%d depth-only clears of D24S8 wrong or not keeping stencil", badd);

   /* Stencil only, then both aspects of D32_SFLOAT_S8_UINT. */
   struct sr_surface ds;
   surf_init(&ds, VK_FORMAT_D32_SFLOAT_S8_UINT, 100, 70, 1, 2);
   h.scene.fb.depth = h.scene.fb.stencil = ds;
   VkClearValue vs = {.depthStencil = {0.0f, 0x33}};
   VkClearValue vb = {.depthStencil = {0.125f, 0xc4}};
   h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_STENCIL_BIT, vs, 0, 0, 100, 70);
   h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL,
           VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, vb, 0, 0, 50, 70);
   uint8_t *dsbefore = malloc(ds.layer_pitch * 2);
   memcpy(dsbefore, ds.base, ds.layer_pitch * 2);
   h_run(&h);
   int bads = 0;
   for (uint32_t l = 0; l < 2; l++) {
      for (int y = 0; y < 70; y++) {
         for (int x = 0; x < 100; x++) {
            uint8_t *t = sr_surface_texel(&ds, l, x, y, 0);
            float f;
            memcpy(&f, t, 4);
            if (x < 50)
               bads += f != 0.125f || t[4] != 0xc4;
            else
               bads += t[4] != 0x33 || memcmp(t, dsbefore + (t - ds.base), 4) != 0;
         }
      }
   }
   CHECK(bads == 0, "%d D32S8 texels wrong after stencil-only and combined clears", bads);
   h_finish(&h);
   free(ds.base);
   free(dsbefore);
   free(dbefore);
   free(c0before);
   for (int i = 0; i < 3; i++)
      free(fb.color[i].base);
   free(fb.depth.base);
}

/* ---- Tests: scalar operations against the spec's tables ---- */

static bool ref_compare(VkCompareOp op, double a, double b)
{
   /* Outcome: 0 less, 1 equal, 2 greater, 3 unordered; each op passes a set. */
   static const unsigned pass[8] = {0x0, 0x1, 0x2, 0x3, 0x4, 0xd, 0x6, 0xf};
   int o = a < b ? 0 : a == b ? 1 : a > b ? 2 : 3;
   return (pass[op] >> o) & 1;
}

static void test_compare_and_stencil_ops(void)
{
   static const double vals[] = {0, 1, 0.5, 255, -0.0, NAN};
   int bad = 0;
   for (int op = 0; op < 8; op++) {
      for (unsigned i = 0; i < 6; i++) {
         for (unsigned j = 0; j < 6; j++) {
            bad += sr_compare((VkCompareOp)op, vals[i], vals[j]) !=
                   ref_compare((VkCompareOp)op, vals[i], vals[j]);
         }
      }
   }
   CHECK(bad == 0, "%d compare results differ from the spec's table", bad);

   /* Stencil: every op, test and update with masks, against the spec. */
   bad = 0;
   for (int iter = 0; iter < 20000; iter++) {
      struct sr_stencil_face f;
      f.compare_op = (VkCompareOp)(rng() % 8);
      f.fail_op = (VkStencilOp)(rng() % 8);
      f.pass_op = (VkStencilOp)(rng() % 8);
      f.depth_fail_op = (VkStencilOp)(rng() % 8);
      static const uint32_t special[] = {0, 1, 0x7f, 0x80, 0xfe, 0xff};
      uint32_t r = rng();
      f.reference = r & 1 ? special[rng() % 6] : rng() & 0xff;
      f.compare_mask = r & 2 ? 0xff : rng() & 0xff;
      f.write_mask = r & 4 ? 0xff : rng() & 0xff;
      uint8_t sv = (uint8_t)(r & 8 ? special[rng() % 6] : rng() & 0xff);
      bool dpass = rng() & 1;
      bool want_pass = ref_compare(f.compare_op, f.reference & f.compare_mask, sv & f.compare_mask);
      bool got_pass = sr_stencil_test(&f, sv);
      VkStencilOp op = !want_pass ? f.fail_op : dpass ? f.pass_op : f.depth_fail_op;
      int v;
      switch (op) {
      case VK_STENCIL_OP_KEEP: v = sv; break;
      case VK_STENCIL_OP_ZERO: v = 0; break;
      case VK_STENCIL_OP_REPLACE: v = (int)f.reference; break;
      case VK_STENCIL_OP_INCREMENT_AND_CLAMP: v = sv + 1 > 255 ? 255 : sv + 1; break;
      case VK_STENCIL_OP_DECREMENT_AND_CLAMP: v = sv - 1 < 0 ? 0 : sv - 1; break;
      case VK_STENCIL_OP_INVERT: v = 255 - sv; break;
      case VK_STENCIL_OP_INCREMENT_AND_WRAP: v = (sv + 1) % 256; break;
      default: v = (sv + 255) % 256; break;
      }
      uint8_t want = (uint8_t)((sv & ~f.write_mask) | ((uint32_t)v & f.write_mask));
      bad += got_pass != want_pass || sr_stencil_update(&f, sv, got_pass, dpass) != want;
   }
   CHECK(bad == 0, "%d stencil tests/updates differ from the spec", bad);

   /* Logic ops: the spec's table on single bits. */
   static const uint8_t table[16] = {0x0, 0x8, 0x4, 0xc, 0x2, 0xa, 0x6, 0xe,
                                     0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf};
   /* Bit (s * 2 + d) of table[op]: the result for source bit s, destination bit d. */
   bad = 0;
   for (int op = 0; op < 16; op++) {
      for (int sbit = 0; sbit < 2; sbit++) {
         for (int dbit = 0; dbit < 2; dbit++) {
            int want = (table[op] >> (sbit * 2 + dbit)) & 1;
            uint32_t got = sr_logic_op((VkLogicOp)op, sbit ? ~0u : 0, dbit ? ~0u : 0);
            bad += got != (want ? ~0u : 0u);
         }
      }
   }
   CHECK(bad == 0, "%d logic op results differ from the spec's table", bad);
   CHECK_EQ_INT(sr_alpha_to_coverage(0.0f, 4), 0);
   CHECK_EQ_INT(sr_alpha_to_coverage(1.0f, 4), 0xf);
   CHECK_EQ_INT(sr_alpha_to_coverage(0.5f, 4), 0x3);
   CHECK_EQ_INT(sr_alpha_to_coverage(NAN, 8), 0);
   CHECK_EQ_INT(sr_alpha_to_coverage(0.49f, 1), 0);
   CHECK_EQ_INT(sr_alpha_to_coverage(0.51f, 1), 1);
}

/* ---- Tests: colour operations on one texel ---- */

/* The spec's blend factor table, all four components at once. */
static void ref_factor(VkBlendFactor f, const float s[4], const float s1[4], const float d[4],
                       const float k[4], float o[4])
{
   const float *v = NULL;
   bool inv = false, alpha = false;
   switch (f) {
   case VK_BLEND_FACTOR_ZERO: o[0] = o[1] = o[2] = o[3] = 0; return;
   case VK_BLEND_FACTOR_ONE: o[0] = o[1] = o[2] = o[3] = 1; return;
   case VK_BLEND_FACTOR_SRC_COLOR: v = s; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR: v = s; inv = true; break;
   case VK_BLEND_FACTOR_DST_COLOR: v = d; break;
   case VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR: v = d; inv = true; break;
   case VK_BLEND_FACTOR_SRC_ALPHA: v = s; alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA: v = s; alpha = inv = true; break;
   case VK_BLEND_FACTOR_DST_ALPHA: v = d; alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA: v = d; alpha = inv = true; break;
   case VK_BLEND_FACTOR_CONSTANT_COLOR: v = k; break;
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR: v = k; inv = true; break;
   case VK_BLEND_FACTOR_CONSTANT_ALPHA: v = k; alpha = true; break;
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA: v = k; alpha = inv = true; break;
   case VK_BLEND_FACTOR_SRC_ALPHA_SATURATE: {
      float m = s[3] < 1.0f - d[3] ? s[3] : 1.0f - d[3];
      o[0] = o[1] = o[2] = m;
      o[3] = 1;
      return;
   }
   case VK_BLEND_FACTOR_SRC1_COLOR: v = s1; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_COLOR: v = s1; inv = true; break;
   case VK_BLEND_FACTOR_SRC1_ALPHA: v = s1; alpha = true; break;
   default: v = s1; alpha = inv = true; break;   /* ONE_MINUS_SRC1_ALPHA */
   }
   for (int c = 0; c < 4; c++) {
      float x = alpha ? v[3] : v[c];
      o[c] = inv ? 1.0f - x : x;
   }
}

static float ref_op(VkBlendOp op, float s, float sf, float d, float df)
{
   if (op == VK_BLEND_OP_MIN)
      return s < d ? s : d;
   if (op == VK_BLEND_OP_MAX)
      return s > d ? s : d;
   float a = s * sf, b = d * df;
   return op == VK_BLEND_OP_ADD ? a + b : op == VK_BLEND_OP_SUBTRACT ? a - b : b - a;
}

/* A 1x1 framebuffer of one colour attachment (and nothing else). */
struct one_texel {
   struct sr_framebuffer fb;
   struct sr_draw_state st;
   struct sr_fragment_state fs;
   _Alignas(64) uint32_t outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 * 4];
};

static void one_init(struct one_texel *o, VkFormat f)
{
   memset(o, 0, sizeof(*o));
   o->fb.width = o->fb.height = o->fb.layers = o->fb.samples = 1;
   o->fb.color_count = 1;
   surf_init(&o->fb.color[0], f, 1, 1, 1, 1);
   state_init(&o->st, fs_count, 4);
}

/* Writes src (and src1) through sr_fragment_color onto dst; returns the texel. */
static void one_write(struct one_texel *o, const uint32_t src[4], const uint32_t src1[4],
                      const uint8_t *dst, uint8_t *out)
{
   unsigned size = o->fb.color[0].format->block_size;
   memcpy(o->fb.color[0].base, dst, size);
   for (int c = 0; c < 4; c++) {
      o->outputs[c * 4] = src[c];
      o->outputs[((SHALE_FS_OUTPUT_LOCATIONS - 1) * 4 + c) * 4] = src1[c];
   }
   sr_fragment_setup(&o->fs, &o->fb, &o->st);
   const int32_t x = 0, y = 0;
   const uint32_t cov = 1;
   sr_fragment_color(&o->fs, 0, &x, &y, &cov, 1, o->outputs, 4);
   memcpy(out, o->fb.color[0].base, size);
}

static float frand(float lo, float hi)
{
   return lo + (hi - lo) * (float)(rng() & 0xffff) / 65535.0f;
}

static void test_blending(void)
{
   static const VkFormat formats[] = {
      VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SNORM,  VK_FORMAT_R8G8B8A8_SRGB,
      VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
      VK_FORMAT_A2B10G10R10_UNORM_PACK32, VK_FORMAT_R5G6B5_UNORM_PACK16, VK_FORMAT_R16_UNORM,
      VK_FORMAT_B10G11R11_UFLOAT_PACK32,
   };
   int bad = 0, runs = 0;
   for (unsigned fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
      struct one_texel o;
      one_init(&o, formats[fi]);
      const struct su_format_desc *d = o.fb.color[0].format;
      bool unorm = d->kind == SU_KIND_UNORM || d->kind == SU_KIND_SRGB;
      bool snorm = d->kind == SU_KIND_SNORM;
      struct sr_blend_attachment *b = &o.st.blend[0];
      b->blend_enable = true;
      for (int sf = 0; sf <= VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA; sf++) {
         for (int df = 0; df <= VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA; df++) {
            b->src_color = (VkBlendFactor)sf;
            b->dst_color = (VkBlendFactor)df;
            b->src_alpha = (VkBlendFactor)((sf + 7) % 19);
            b->dst_alpha = (VkBlendFactor)((df + 3) % 19);
            b->color_op = (VkBlendOp)(rng() % 5);
            b->alpha_op = (VkBlendOp)(rng() % 5);
            float src[4], src1[4], k[4];
            for (int c = 0; c < 4; c++) {
               src[c] = frand(-0.5f, 1.5f);
               src1[c] = frand(-0.5f, 1.5f);
               k[c] = frand(-0.5f, 1.5f);
               o.st.blend_constants[c] = k[c];
            }
            uint8_t dst[16], got[16], want[16];
            for (int i = 0; i < 16; i++)
               dst[i] = (uint8_t)rng();
            if (d->kind == SU_KIND_SFLOAT || d->kind == SU_KIND_UFLOAT) {
               /* A finite destination: random bits could be NaN. */
               float dv[4] = {frand(0, 2), frand(0, 2), frand(0, 2), frand(0, 1)};
               su_pack_float(d, dv, dst);
            }
            uint32_t sb[4], s1b[4];
            memcpy(sb, src, 16);
            memcpy(s1b, src1, 16);
            one_write(&o, sb, s1b, dst, got);

            /* Reference: clamp (fixed point), factors, ops, pack. */
            float dv[4], rs[4], rs1[4], rk[4], fs_[4], fd[4], out[4];
            su_unpack_float(d, dst, dv);
            memcpy(rs, src, 16);
            memcpy(rs1, src1, 16);
            memcpy(rk, k, 16);
            if (unorm || snorm) {
               float lo = unorm ? 0.0f : -1.0f;
               float *all[4] = {rs, rs1, rk, dv};
               for (int a = 0; a < 4; a++)
                  for (int c = 0; c < 4; c++)
                     all[a][c] = all[a][c] < lo ? lo : all[a][c] > 1 ? 1 : all[a][c];
            }
            float sfa[4], dfa[4];
            ref_factor(b->src_color, rs, rs1, dv, rk, fs_);
            ref_factor(b->dst_color, rs, rs1, dv, rk, fd);
            ref_factor(b->src_alpha, rs, rs1, dv, rk, sfa);
            ref_factor(b->dst_alpha, rs, rs1, dv, rk, dfa);
            for (int c = 0; c < 3; c++)
               out[c] = ref_op(b->color_op, rs[c], fs_[c], dv[c], fd[c]);
            out[3] = ref_op(b->alpha_op, rs[3], sfa[3], dv[3], dfa[3]);
            memset(want, 0, sizeof(want));
            su_pack_float(d, out, want);
            runs++;
            if (memcmp(got, want, d->block_size) != 0) {
               if (bad < 5)
                  fprintf(stderr, "%s: factors %d/%d %d/%d ops %d/%d differ\n", d->name, sf, df,
                          b->src_alpha, b->dst_alpha, b->color_op, b->alpha_op);
               bad++;
            }
         }
      }
      free(o.fb.color[0].base);
   }
   CHECK(bad == 0, "%d of %d blends differ from the reference", bad, runs);

   /* sRGB: the destination is decoded, blended linearly, encoded: 50% of
    * linear 1.0 over sRGB 0 is linear 0.5 = sRGB 188. */
   struct one_texel o;
   one_init(&o, VK_FORMAT_R8G8B8A8_SRGB);
   struct sr_blend_attachment *b = &o.st.blend[0];
   *b = (struct sr_blend_attachment){true, VK_BLEND_FACTOR_SRC_ALPHA,
                                     VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_FACTOR_ONE,
                                     VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD, VK_BLEND_OP_ADD, 0xf};
   float s[4] = {1.0f, 1.0f, 1.0f, 0.5f};
   uint32_t sb[4];
   memcpy(sb, s, 16);
   uint8_t dst[4] = {0, 0, 0, 0}, got[4];
   one_write(&o, sb, sb, dst, got);
   CHECK(got[0] == 188 && got[3] == 128, "sRGB blend gave %u %u", got[0], got[3]);
   /* Alpha to one: the source alpha becomes 1 before blending. */
   o.st.alpha_to_one = true;
   one_write(&o, sb, sb, dst, got);
   CHECK(got[0] == 255 && got[3] == 255, "alpha to one gave %u %u", got[0], got[3]);
   free(o.fb.color[0].base);
}

/* The 8-bit sRGB shortcut encodes and decodes exactly as su_format does:
 * around every step of the encoding, at random and at special values. */
static void test_srgb8(void)
{
   const struct su_format_desc *d = fmt(VK_FORMAT_R8_SRGB);
   int bad = 0;
   for (unsigned v = 0; v < 256; v++) {
      uint8_t t = (uint8_t)v;
      float rgba[4];
      su_unpack_float(d, &t, rgba);
      bad += sr_srgb8_decode(t) != rgba[0];
      /* The linear value of each code and its neighbours encode alike. */
      float f = rgba[0];
      float probes[5] = {f, nextafterf(f, 0), nextafterf(f, 2), (f + sr_srgb8_decode((uint8_t)(v ? v - 1 : 0))) / 2,
                         nextafterf((f + sr_srgb8_decode((uint8_t)(v ? v - 1 : 0))) / 2, 2)};
      for (int i = 0; i < 5; i++) {
         float in[4] = {probes[i], 0, 0, 1};
         uint8_t want = 0;
         su_pack_float(d, in, &want);
         bad += sr_srgb8_encode(probes[i]) != want;
      }
   }
   static const float special[] = {0.0f, -0.0f, -1.0f, 1.0f, 2.0f, INFINITY, -INFINITY, NAN,
                                   1e-30f, 0.0031308f, 0.04045f, 0.99999f};
   for (unsigned i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
      float in[4] = {special[i], 0, 0, 1};
      uint8_t want = 0;
      su_pack_float(d, in, &want);
      bad += sr_srgb8_encode(special[i]) != want;
   }
   for (int i = 0; i < 200000; i++) {
      uint32_t u = rng() % 0x3f800001u;
      float f;
      memcpy(&f, &u, 4);
      float in[4] = {f, 0, 0, 1};
      uint8_t want = 0;
      su_pack_float(d, in, &want);
      bad += sr_srgb8_encode(f) != want;
   }
   CHECK(bad == 0, "%d sRGB8 encodings/decodings differ from su_format", bad);
}

/* Channel c's bits in a texel of the formats below, from their definitions. */
static uint64_t ref_channel_bits(VkFormat f, int c)
{
   switch (f) {
   case VK_FORMAT_R8G8B8A8_UNORM:
   case VK_FORMAT_R8G8B8A8_UINT: return 0xffull << (8 * c);
   case VK_FORMAT_B8G8R8A8_UNORM: {
      static const int byte[4] = {2, 1, 0, 3};
      return 0xffull << (8 * byte[c]);
   }
   case VK_FORMAT_R5G6B5_UNORM_PACK16: {
      static const uint64_t m[4] = {0xf800, 0x07e0, 0x001f, 0};
      return m[c];
   }
   case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
   case VK_FORMAT_A2B10G10R10_UINT_PACK32: {
      static const uint64_t m[4] = {0x3ff, 0x3ffull << 10, 0x3ffull << 20, 0x3ull << 30};
      return m[c];
   }
   case VK_FORMAT_R16G16B16A16_SFLOAT:
   case VK_FORMAT_R16G16B16A16_SNORM: return 0xffffull << (16 * c);
   case VK_FORMAT_R16G16_SINT: return c < 2 ? 0xffffull << (16 * c) : 0;
   default: return 0;
   }
}

static uint64_t load_bits(const uint8_t *p, unsigned size)
{
   uint64_t v = 0;
   memcpy(&v, p, size);
   return v;
}

static void test_write_masks_and_logic_ops(void)
{
   static const VkFormat formats[] = {
      VK_FORMAT_R8G8B8A8_UNORM,      VK_FORMAT_R8G8B8A8_UINT,           VK_FORMAT_B8G8R8A8_UNORM,
      VK_FORMAT_R5G6B5_UNORM_PACK16, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
      VK_FORMAT_A2B10G10R10_UINT_PACK32, VK_FORMAT_R16G16B16A16_SFLOAT,
      VK_FORMAT_R16G16B16A16_SNORM,  VK_FORMAT_R16G16_SINT,
   };
   int bad_mask = 0, bad_logic = 0, runs = 0;
   for (unsigned fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
      struct one_texel o;
      one_init(&o, formats[fi]);
      const struct su_format_desc *d = o.fb.color[0].format;
      enum su_numeric_class cls = su_format_class(d);
      unsigned size = d->block_size;
      for (int iter = 0; iter < 64; iter++) {
         uint32_t src[4];
         for (int c = 0; c < 4; c++) {
            float f = frand(-1.2f, 1.2f);
            src[c] = cls == SU_CLASS_FLOAT ? fbits(f) : rng() % 3 == 0 ? rng() : rng() % 600;
         }
         uint8_t dst[16], full[16], got[16];
         for (int i = 0; i < 16; i++)
            dst[i] = (uint8_t)rng();
         /* Write masks: blending off, every mask. */
         o.st.logic_op_enable = false;
         o.st.blend[0].blend_enable = false;
         o.st.blend[0].write_mask = 0xf;
         one_write(&o, src, src, dst, full);
         for (uint32_t m = 1; m < 16; m++) {
            o.st.blend[0].write_mask = m;
            one_write(&o, src, src, dst, got);
            uint64_t bits = 0;
            for (int c = 0; c < 4; c++)
               if (m & (1u << c))
                  bits |= ref_channel_bits(formats[fi], c);
            uint64_t want = (load_bits(full, size) & bits) | (load_bits(dst, size) & ~bits);
            bad_mask += load_bits(got, size) != want;
         }
         /* Logic ops on integer and normalized formats (not float). */
         if (d->kind == SU_KIND_SFLOAT)
            continue;
         o.st.blend[0].write_mask = 0xf;
         o.st.blend[0].blend_enable = true;   /* treated as disabled */
         o.st.logic_op_enable = true;
         for (int op = 0; op < 16; op++) {
            o.st.logic_op = (VkLogicOp)op;
            one_write(&o, src, src, dst, got);
            uint64_t want = 0;
            for (int c = 0; c < 4; c++) {
               uint64_t cb = ref_channel_bits(formats[fi], c);
               if (!cb)
                  continue;
               unsigned shift = (unsigned)__builtin_ctzll(cb);
               uint64_t s = (load_bits(full, size) & cb) >> shift;
               uint64_t dd = (load_bits(dst, size) & cb) >> shift;
               uint64_t r = 0;
               for (unsigned bit = 0; bit < 64; bit++) {
                  int sb = (s >> bit) & 1, db = (dd >> bit) & 1;
                  r |= (uint64_t)(sr_logic_op((VkLogicOp)op, sb ? ~0u : 0u, db ? ~0u : 0u) & 1)
                       << bit;
               }
               want |= (r << shift) & cb;
            }
            runs++;
            bad_logic += load_bits(got, size) != want;
         }
      }
      free(o.fb.color[0].base);
   }
   CHECK(bad_mask == 0, "%d write-masked texels differ from the channel layout", bad_mask);
   CHECK(bad_logic == 0, "%d of %d logic ops differ from the per-channel reference", bad_logic,
         runs);

   /* Float and sRGB attachments pass values through a logic op unchanged
    * (and blending stays off). */
   static const VkFormat pass_formats[] = {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R8G8B8A8_SRGB};
   for (unsigned fi = 0; fi < 2; fi++) {
      struct one_texel o;
      one_init(&o, pass_formats[fi]);
      const struct su_format_desc *d = o.fb.color[0].format;
      float s[4] = {0.25f, 0.5f, 0.75f, 0.5f};
      uint32_t sb[4];
      memcpy(sb, s, 16);
      uint8_t dst[16], got[16], want[16];
      memset(dst, 0x55, sizeof(dst));
      su_pack_float(d, s, want);
      o.st.blend[0].blend_enable = true;
      o.st.blend[0].src_color = o.st.blend[0].src_alpha = VK_BLEND_FACTOR_ZERO;
      o.st.blend[0].dst_color = o.st.blend[0].dst_alpha = VK_BLEND_FACTOR_ONE;
      o.st.logic_op_enable = true;
      o.st.logic_op = VK_LOGIC_OP_XOR;
      one_write(&o, sb, sb, dst, got);
      CHECK(memcmp(got, want, d->block_size) == 0, "%s: logic op not passed through", d->name);
      free(o.fb.color[0].base);
   }
}

/* Every uncompressed colour format su_format knows: the written texel is
 * su_pack_* of the output (integer bits kept), a partial write mask keeps
 * the other channels' values, and blending (float and normalized formats)
 * matches the reference on one factor set. */
static void test_format_sweep(void)
{
   uint32_t count;
   const struct su_format_desc *table = su_format_table(&count);
   int tested = 0, bad_pack = 0, bad_mask = 0, bad_blend = 0;
   for (uint32_t i = 0; i < count; i++) {
      const struct su_format_desc *d = &table[i];
      if (d->kind == SU_KIND_COMPRESSED || d->kind == SU_KIND_DEPTH_STENCIL ||
          d->block_width != 1 || d->bits[0] == 64 || d->scaled ||
          d->format == VK_FORMAT_E5B9G9R9_UFLOAT_PACK32)
         continue;
      enum su_numeric_class cls = su_format_class(d);
      tested++;
      struct one_texel o;
      one_init(&o, d->format);
      for (int iter = 0; iter < 8; iter++) {
         uint32_t src[4];
         float f[4];
         for (int c = 0; c < 4; c++) {
            f[c] = frand(-0.25f, 1.25f);
            src[c] = cls == SU_CLASS_FLOAT ? fbits(f[c]) : rng() % 4 ? rng() % 200 : rng();
         }
         uint8_t dst[32], got[32], want[32];
         memset(want, 0, sizeof(want));
         for (int k = 0; k < 32; k++)
            dst[k] = (uint8_t)rng();
         if (cls == SU_CLASS_FLOAT) {   /* a valid destination (no NaN bits) */
            float dv[4] = {frand(0, 1), frand(0, 1), frand(0, 1), frand(0, 1)};
            su_pack_float(d, dv, dst);
         }
         o.st.blend[0].blend_enable = false;
         o.st.blend[0].write_mask = 0xf;
         one_write(&o, src, src, dst, got);
         if (cls == SU_CLASS_UINT)
            su_pack_uint(d, src, want);
         else if (cls == SU_CLASS_SINT)
            su_pack_sint(d, (const int32_t *)src, want);
         else
            su_pack_float(d, f, want);
         if (memcmp(got, want, d->block_size) != 0) {
            if (bad_pack < 3)
               fprintf(stderr, "%s: packed texel differs from su_pack\n", d->name);
            bad_pack++;
         }
         /* Write mask R and B: G and A keep the destination's values. */
         o.st.blend[0].write_mask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_B_BIT;
         one_write(&o, src, src, dst, got);
         if (cls == SU_CLASS_FLOAT) {
            float g[4], w[4], dd[4];
            su_unpack_float(d, got, g);
            su_unpack_float(d, want, w);
            su_unpack_float(d, dst, dd);
            for (int c = 0; c < 4; c++) {
               float e = (c == 0 || c == 2) ? w[c] : dd[c];
               bad_mask += !(g[c] == e || (isnan(g[c]) && isnan(e)));
            }
         } else {
            int32_t g[4], w[4], dd[4];
            if (cls == SU_CLASS_UINT) {
               su_unpack_uint(d, got, (uint32_t *)g);
               su_unpack_uint(d, want, (uint32_t *)w);
               su_unpack_uint(d, dst, (uint32_t *)dd);
            } else {
               su_unpack_sint(d, got, g);
               su_unpack_sint(d, want, w);
               su_unpack_sint(d, dst, dd);
            }
            for (int c = 0; c < 4; c++)
               bad_mask += g[c] != ((c == 0 || c == 2) ? w[c] : dd[c]);
         }
         if (cls != SU_CLASS_FLOAT)
            continue;
         /* Blending: src * srcAlpha + dst * (1 - srcAlpha), alpha: src + dst. */
         o.st.blend[0] = (struct sr_blend_attachment){
            true, VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
            VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE, VK_BLEND_OP_ADD, VK_BLEND_OP_ADD, 0xf};
         one_write(&o, src, src, dst, got);
         bool fixed = d->kind == SU_KIND_UNORM || d->kind == SU_KIND_SRGB || d->kind == SU_KIND_SNORM;
         float lo = d->kind == SU_KIND_SNORM ? -1.0f : 0.0f;
         float s4[4], dv[4], out[4];
         su_unpack_float(d, dst, dv);
         for (int c = 0; c < 4; c++) {
            s4[c] = f[c];
            if (fixed) {
               s4[c] = s4[c] < lo ? lo : s4[c] > 1 ? 1 : s4[c];
               dv[c] = dv[c] < lo ? lo : dv[c] > 1 ? 1 : dv[c];
            }
         }
         for (int c = 0; c < 3; c++)
            out[c] = s4[c] * s4[3] + dv[c] * (1.0f - s4[3]);
         out[3] = s4[3] * 1.0f + dv[3] * 1.0f;
         memset(want, 0, sizeof(want));
         su_pack_float(d, out, want);
         if (memcmp(got, want, d->block_size) != 0) {
            if (bad_blend < 3)
               fprintf(stderr, "%s: blended texel differs\n", d->name);
            bad_blend++;
         }
      }
      free(o.fb.color[0].base);
   }
   CHECK(tested > 80, "only %d colour formats swept", tested);
   CHECK(bad_pack == 0 && bad_mask == 0 && bad_blend == 0,
         "format sweep (%d formats): %d packs, %d masked channels, %d blends wrong", tested,
         bad_pack, bad_mask, bad_blend);
}

/* ---- Tests: depth and stencil in tiles ---- */

static struct sr_prim g_prims[64];
static unsigned g_prim_count;

/* Two triangles covering [x0, x1) x [y0, y1) at depth z; ccw: front facing. */
static void draw_rect(struct harness *h, const struct sr_draw_snapshot *snap, float x0, float y0,
                      float x1, float y1, float z, bool ccw)
{
   const float zz[3] = {z, z, z};
   float a[3][2] = {{x0, y0}, {x1, y0}, {x1, y1}};
   float b[3][2] = {{x0, y0}, {x1, y1}, {x0, y1}};
   if (!ccw) {
      float t[2];
      memcpy(t, a[1], sizeof(t)); memcpy(a[1], a[2], sizeof(t)); memcpy(a[2], t, sizeof(t));
      memcpy(t, b[1], sizeof(t)); memcpy(b[1], b[2], sizeof(t)); memcpy(b[2], t, sizeof(t));
   }
   struct sr_prim *p = &g_prims[g_prim_count++ % 64];
   prim_init(p, snap, a, zz, (int32_t)h->scene.fb.width, (int32_t)h->scene.fb.height);
   h_prim(h, p);
   p = &g_prims[g_prim_count++ % 64];
   prim_init(p, snap, b, zz, (int32_t)h->scene.fb.width, (int32_t)h->scene.fb.height);
   h_prim(h, p);
}

static uint32_t max_raw(unsigned bits)
{
   return bits == 16 ? 0xffffu : 0xffffffu;
}

/* Incoming depth is quantised to the format (round to nearest) before the
 * compare; writes store that value and keep the stencil byte. */
static void test_depth_formats(void)
{
   static const VkFormat formats[] = {
      VK_FORMAT_D16_UNORM, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D32_SFLOAT,
      VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT, VK_FORMAT_D16_UNORM_S8_UINT,
   };
   for (unsigned fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
      struct sr_framebuffer fb;
      memset(&fb, 0, sizeof(fb));
      fb.width = 24;
      fb.height = 4;
      fb.layers = fb.samples = 1;
      fb.color_count = 1;
      surf_init(&fb.color[0], VK_FORMAT_R8G8B8A8_UNORM, 24, 4, 1, 1);
      surf_init(&fb.depth, formats[fi], 24, 4, 1, 1);
      const struct su_format_desc *d = fb.depth.format;
      unsigned bits = su_format_depth_bits(d);
      bool is_float = bits == 32;
      memset(fb.color[0].base, 0, fb.color[0].layer_pitch);
      int bad = 0;
      for (int op = 0; op < 8; op++) {
         for (int iter = 0; iter < 4; iter++) {
            struct harness h;
            h_init(&h, &fb);
            struct sr_draw_state st;
            state_init(&st, fs_count, 4);
            st.depth_test = st.depth_write = true;
            st.depth_compare = (VkCompareOp)op;
            struct sr_draw_snapshot snap;
            snap_init(&snap, &st);
            /* Incoming z between two representable values (or on one). */
            static const float fracs[4] = {0.0f, 0.3f, -0.3f, 0.45f};
            uint32_t K = 1000 + rng() % 30000;
            float z = is_float ? (float)K / 65536.0f
                               : (float)(((double)K + fracs[iter]) / max_raw(bits));
            uint8_t q[8] = {0};
            su_pack_depth(d, z, q);
            double zq = sr_depth_key(d, q);   /* checked below against the rounding */
            if (!is_float)
               bad += zq != (double)K;   /* nearest: K + frac rounds to K */
            /* Stored values around it: below, equal, above. */
            for (int y = 0; y < 4; y++) {
               for (int x = 0; x < 24; x++) {
                  uint8_t *t = sr_surface_texel(&fb.depth, 0, x, y, 0);
                  int delta = x % 3 - 1;
                  if (is_float) {
                     float v = delta < 0 ? nextafterf(z, 0) : delta > 0 ? nextafterf(z, 1) : z;
                     memcpy(t + d->depth_offset, &v, 4);
                  } else {
                     uint32_t v = K + (uint32_t)delta;
                     if (bits == 16) {
                        uint16_t v16 = (uint16_t)v;
                        memcpy(t, &v16, 2);
                     } else {
                        uint32_t w;
                        memcpy(&w, t, 4);
                        w = (w & 0xff000000u) | v;
                        memcpy(t, &w, 4);
                     }
                  }
               }
            }
            size_t size = fb.depth.layer_pitch;
            uint8_t *before = malloc(size);
            memcpy(before, fb.depth.base, size);
            draw_rect(&h, &snap, 0, 0, 24, 4, z, true);
            set_out_float(0, 1, 0, 1);
            memset(g_hits, 0, sizeof(g_hits));
            g_width = 4;
            h_run(&h);
            for (int y = 0; y < 4; y++) {
               for (int x = 0; x < 24; x++) {
                  uint8_t *t = sr_surface_texel(&fb.depth, 0, x, y, 0);
                  const uint8_t *b0 = before + (t - fb.depth.base);
                  double stored = sr_depth_key(d, b0);
                  bool pass = ref_compare((VkCompareOp)op, zq, stored);
                  double now = sr_depth_key(d, t);
                  bad += now != (pass ? zq : stored);
                  if (d->aspects & VK_IMAGE_ASPECT_STENCIL_BIT)
                     bad += t[d->stencil_offset] != b0[d->stencil_offset];
                  const uint8_t *c = sr_surface_texel(&fb.color[0], 0, x, y, 0);
                  bad += pass != (c[1] == 255 && c[0] == 0);
                  memset((uint8_t *)c, 0, 4);
               }
            }
            free(before);
            h_finish(&h);
         }
      }
      CHECK(bad == 0, "%s: %d depth results differ (quantisation, compare, write)", d->name, bad);
      free(fb.color[0].base);
      free(fb.depth.base);
   }
}

static void fb_color_depth(struct sr_framebuffer *fb, VkFormat depth, uint32_t w, uint32_t h)
{
   memset(fb, 0, sizeof(*fb));
   fb->width = w;
   fb->height = h;
   fb->layers = fb->samples = 1;
   fb->color_count = 1;
   surf_init(&fb->color[0], VK_FORMAT_R8G8B8A8_UNORM, w, h, 1, 1);
   surf_init(&fb->depth, depth, w, h, 1, 1);
   fb->stencil = fb->depth;
}

static float depth_at(const struct sr_framebuffer *fb, int x, int y)
{
   return su_unpack_depth(fb->depth.format, sr_surface_texel(&fb->depth, 0, x, y, 0));
}

static bool green_at(const struct sr_framebuffer *fb, int x, int y)
{
   const uint8_t *c = sr_surface_texel(&fb->color[0], 0, x, y, 0);
   return c[0] == 0 && c[1] == 255;
}

/* Late tests follow discard; EarlyFragmentTests write depth before it; a
 * shader that cannot tell is rejected early; FragDepth replaces z. */
static void test_early_late(void)
{
   const VkClearValue far = {.depthStencil = {1.0f, 0}};
   const VkClearValue red = {.color.float32 = {1, 0, 0, 1}};
   for (int mode = 0; mode < 2; mode++) {
      struct sr_framebuffer fb;
      fb_color_depth(&fb, VK_FORMAT_D32_SFLOAT, 16, 4);
      struct harness h;
      h_init(&h, &fb);
      struct sr_draw_state st;
      state_init(&st, fs_count, 8);
      st.depth_test = st.depth_write = true;
      st.depth_compare = VK_COMPARE_OP_LESS;
      st.fs_io.can_discard = 1;
      st.fs_io.early_fragment_tests = (uint8_t)mode;
      uint64_t occ = 0;
      struct sr_draw_snapshot snap;
      snap_init(&snap, &st);
      snap.occlusion = &occ;
      h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, far, 0, 0, 16, 4);
      h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, red, 0, 0, 16, 4);
      draw_rect(&h, &snap, 0, 0, 16, 4, 0.5f, true);
      g_width = 8;
      g_kill_odd = true;
      set_out_float(0, 1, 0, 1);
      h_run(&h);
      g_kill_odd = false;
      int bad = 0;
      for (int y = 0; y < 4; y++) {
         for (int x = 0; x < 16; x++) {
            bool even = !(x & 1);
            bad += green_at(&fb, x, y) != even;
            bad += depth_at(&fb, x, y) != (even || mode ? 0.5f : 1.0f);
         }
      }
      CHECK(bad == 0, "%s tests with discard: %d pixels wrong", mode ? "early" : "late", bad);
      CHECK_EQ_INT(occ, mode ? 64 : 32);
      h_finish(&h);
      free(fb.color[0].base);
      free(fb.depth.base);
   }

   /* Implicit early rejection: not shaded where the depth test fails, unless
    * the shader has side effects. */
   for (int side = 0; side < 2; side++) {
      struct sr_framebuffer fb;
      fb_color_depth(&fb, VK_FORMAT_D16_UNORM, 16, 4);
      struct harness h;
      h_init(&h, &fb);
      struct sr_draw_state st;
      state_init(&st, fs_count, 16);
      st.depth_test = true;
      st.depth_compare = VK_COMPARE_OP_LESS;
      st.fs_io.has_side_effects = (uint8_t)side;
      struct sr_draw_snapshot snap;
      snap_init(&snap, &st);
      VkClearValue near = {.depthStencil = {0.25f, 0}};
      h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, far, 0, 0, 16, 4);
      h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, near, 0, 0, 8, 4);
      h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, red, 0, 0, 16, 4);
      draw_rect(&h, &snap, 0, 0, 16, 4, 0.5f, true);
      g_width = 16;
      memset(g_hits, 0, sizeof(g_hits));
      set_out_float(0, 1, 0, 1);
      h_run(&h);
      int bad = 0;
      for (int y = 0; y < 4; y++) {
         for (int x = 0; x < 16; x++) {
            bool left = x < 8;
            bad += green_at(&fb, x, y) == left;
            bad += g_hits[y][x] != (uint32_t)(!left || side);
         }
      }
      CHECK(bad == 0, "early rejection (side effects %d): %d pixels wrong", side, bad);
      h_finish(&h);
      free(fb.color[0].base);
      free(fb.depth.base);
   }

   /* FragDepth: late tests use it; EarlyFragmentTests use the interpolated z. */
   for (int early = 0; early < 2; early++) {
      struct sr_framebuffer fb;
      fb_color_depth(&fb, VK_FORMAT_D32_SFLOAT, 8, 2);
      struct harness h;
      h_init(&h, &fb);
      struct sr_draw_state st;
      state_init(&st, fs_count, 4);
      st.depth_test = st.depth_write = true;
      st.depth_compare = VK_COMPARE_OP_LESS;
      st.fs_io.writes_frag_depth = 1;
      st.fs_io.early_fragment_tests = (uint8_t)early;
      struct sr_draw_snapshot snap;
      snap_init(&snap, &st);
      VkClearValue mid = {.depthStencil = {0.5f, 0}};
      h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, mid, 0, 0, 8, 2);
      h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, red, 0, 0, 8, 2);
      draw_rect(&h, &snap, 0, 0, 8, 2, 0.9f, true);
      g_width = 4;
      g_depth = 0.125f;
      set_out_float(0, 1, 0, 1);
      h_run(&h);
      g_depth = -1.0f;
      int bad = 0;
      for (int y = 0; y < 2; y++)
         for (int x = 0; x < 8; x++)
            bad += green_at(&fb, x, y) == (bool)early ||
                   depth_at(&fb, x, y) != (early ? 0.5f : 0.125f);
      CHECK(bad == 0, "FragDepth (early %d): %d pixels wrong", early, bad);
      h_finish(&h);
      free(fb.color[0].base);
      free(fb.depth.base);
   }
}

/* Front and back stencil state by facing, depth-fail ops, depth bounds,
 * and a pass with no fragment shader. */
static void test_stencil_and_bounds(void)
{
   struct sr_framebuffer fb;
   fb_color_depth(&fb, VK_FORMAT_D24_UNORM_S8_UINT, 16, 4);
   struct harness h;
   h_init(&h, &fb);
   struct sr_draw_state st;
   state_init(&st, fs_count, 8);
   st.stencil_test = true;
   st.stencil[0] = (struct sr_stencil_face){VK_STENCIL_OP_KEEP, VK_STENCIL_OP_REPLACE,
                                            VK_STENCIL_OP_INVERT, VK_COMPARE_OP_ALWAYS,
                                            0xff, 0xff, 0x42};
   st.stencil[1] = (struct sr_stencil_face){VK_STENCIL_OP_ZERO, VK_STENCIL_OP_INCREMENT_AND_WRAP,
                                            VK_STENCIL_OP_KEEP, VK_COMPARE_OP_EQUAL,
                                            0x0f, 0xff, 0x17};
   struct sr_draw_snapshot snap;
   snap_init(&snap, &st);
   const VkClearValue red = {.color.float32 = {1, 0, 0, 1}};
   VkClearValue s7 = {.depthStencil = {0.5f, 0x07}}, s9 = {.depthStencil = {0.5f, 0x09}};
   h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, red, 0, 0, 16, 4);
   h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL,
           VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, s7, 0, 0, 16, 2);
   h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL,
           VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, s9, 0, 2, 16, 2);
   draw_rect(&h, &snap, 0, 0, 8, 4, 0.25f, true);     /* front: REPLACE 0x42 */
   draw_rect(&h, &snap, 8, 0, 16, 4, 0.25f, false);   /* back: 7 == 0x17 & 0xf: INCR */
   g_width = 8;
   set_out_float(0, 1, 0, 1);
   h_run(&h);
   int bad = 0;
   for (int y = 0; y < 4; y++) {
      for (int x = 0; x < 16; x++) {
         uint8_t sv = sr_surface_texel(&fb.depth, 0, x, y, 0)[3];
         bool left = x < 8, top = y < 2;
         uint8_t want = left ? 0x42 : top ? 0x08 : 0x00;
         bad += sv != want || green_at(&fb, x, y) != (left || top);
      }
   }
   CHECK(bad == 0, "stencil faces: %d pixels wrong", bad);

   /* Depth fails (stored 0.5 < 0.75): front's depth-fail op INVERT. */
   st.depth_test = true;
   st.depth_compare = VK_COMPARE_OP_LESS;
   struct sr_draw_snapshot snap2;
   snap_init(&snap2, &st);
   draw_rect(&h, &snap2, 0, 0, 8, 4, 0.75f, true);
   h_run(&h);
   bad = 0;
   for (int y = 0; y < 4; y++)
      for (int x = 0; x < 8; x++)
         bad += sr_surface_texel(&fb.depth, 0, x, y, 0)[3] != (uint8_t)~0x42;
   CHECK(bad == 0, "depth-fail stencil op: %d pixels wrong", bad);

   /* Depth bounds against the stored depth: [0.4, 0.6] passes 0.5 only. */
   struct sr_draw_state sb;
   state_init(&sb, fs_count, 8);
   sb.depth_bounds_test = true;
   sb.min_depth_bounds = 0.4f;
   sb.max_depth_bounds = 0.6f;
   struct sr_draw_snapshot snap3;
   snap_init(&snap3, &sb);
   VkClearValue d1 = {.depthStencil = {0.9f, 0}};
   VkClearValue blue = {.color.float32 = {0, 0, 1, 1}};
   h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, blue, 0, 0, 16, 4);
   h_clear(&h, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, d1, 0, 0, 4, 4);
   draw_rect(&h, &snap3, 0, 0, 16, 4, 0.0f, true);
   h_run(&h);
   bad = 0;
   for (int y = 0; y < 4; y++)
      for (int x = 0; x < 16; x++)
         bad += green_at(&fb, x, y) != (x >= 4);
   CHECK(bad == 0, "depth bounds: %d pixels wrong", bad);

   /* No fragment shader: depth and stencil only, occlusion counted. */
   struct sr_draw_state sd;
   state_init(&sd, NULL, 8);
   sd.depth_test = sd.depth_write = true;
   sd.depth_compare = VK_COMPARE_OP_GREATER;
   uint64_t occ = 5;
   struct sr_draw_snapshot snap4;
   snap_init(&snap4, &sd);
   snap4.occlusion = &occ;
   draw_rect(&h, &snap4, 0, 0, 16, 4, 0.7f, true);
   h_run(&h);
   bad = 0;
   for (int y = 0; y < 4; y++)
      for (int x = 0; x < 16; x++)
         bad += fabsf(depth_at(&fb, x, y) - (x < 4 ? 0.9f : 0.7f)) > 1e-6f;
   CHECK(bad == 0, "depth-only draw: %d pixels wrong", bad);
   CHECK_EQ_INT(occ, 5 + 12 * 4);
   h_finish(&h);
   free(fb.color[0].base);
   free(fb.depth.base);
}

/* ---- Tests: multisampling ---- */

/* The spec's standard sample locations. */
static const float ref_pos2[2][2] = {{0.75f, 0.75f}, {0.25f, 0.25f}};
static const float ref_pos4[4][2] = {{0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f},
                                     {0.625f, 0.875f}};
static const float ref_pos8[8][2] = {{0.5625f, 0.3125f}, {0.4375f, 0.6875f}, {0.8125f, 0.5625f},
                                     {0.3125f, 0.1875f}, {0.1875f, 0.8125f}, {0.0625f, 0.4375f},
                                     {0.6875f, 0.9375f}, {0.9375f, 0.0625f}};

static const float (*ref_positions(uint32_t samples))[2]
{
   return samples == 2 ? ref_pos2 : samples == 4 ? ref_pos4 : ref_pos8;
}

static uint32_t ref_coverage(const struct sr_prim *p, int x, int y, uint32_t samples)
{
   const float(*pos)[2] = ref_positions(samples);
   uint32_t m = 0;
   for (uint32_t s = 0; s < samples; s++) {
      int64_t X = (int64_t)((x + (double)pos[s][0]) * 256), Y = (int64_t)((y + (double)pos[s][1]) * 256);
      bool in = true;
      for (int i = 0; i < 3; i++)
         in &= p->a[i] * X + p->b[i] * Y + p->c[i] >= 0;
      m |= (uint32_t)in << s;
   }
   return m;
}

static void fb_msaa(struct sr_framebuffer *fb, VkFormat color, VkFormat depth, uint32_t w,
                    uint32_t h, uint32_t samples)
{
   memset(fb, 0, sizeof(*fb));
   fb->width = w;
   fb->height = h;
   fb->layers = 1;
   fb->samples = samples;
   fb->color_count = 1;
   surf_init(&fb->color[0], color, w, h, samples, 1);
   if (depth) {
      surf_init(&fb->depth, depth, w, h, samples, 1);
      fb->stencil = fb->depth;
   }
}

/* Per-sample coverage of random triangles at the standard positions: the
 * masks the shader sees and the samples written, for 2, 4 and 8 samples. */
static void test_msaa_coverage(void)
{
   static const uint32_t counts[] = {2, 4, 8};
   for (unsigned ci = 0; ci < 3; ci++) {
      uint32_t n = counts[ci];
      for (uint32_t width = 4; width <= 16; width *= 2) {
         struct sr_framebuffer fb;
         fb_msaa(&fb, VK_FORMAT_R8G8B8A8_UNORM, 0, 80, 70, n);
         struct harness h;
         h_init(&h, &fb);
         struct sr_draw_state st;
         state_init(&st, fs_count, width);
         st.samples = n;
         /* A CENTROID input (no plane read): the tile loop fills
          * centroid[] only for shaders that have one. */
         st.fs_io.interp[0] = SHALE_INTERP_SMOOTH | SHALE_INTERP_CENTROID;
         struct sr_draw_snapshot snap;
         snap_init(&snap, &st);
         int bad_mask = 0, bad_mem = 0, bad_centroid = 0;
         for (int tri = 0; tri < 12; tri++) {
            float v[3][2];
            for (int i = 0; i < 3; i++) {
               v[i][0] = (float)(rng() % (90 * 256)) / 256.0f - 5.0f;
               v[i][1] = (float)(rng() % (80 * 256)) / 256.0f - 5.0f;
            }
            const float z[3] = {0, 0, 0};
            struct sr_prim p;
            prim_init(&p, &snap, v, z, 80, 70);
            memset(fb.color[0].base, 0, fb.color[0].layer_pitch);
            memset(g_mask, 0, sizeof(g_mask));
            h_prim(&h, &p);
            g_width = width;
            set_out_float(1, 1, 1, 1);
            h_run(&h);
            for (int y = 0; y < 70; y++) {
               for (int x = 0; x < 80; x++) {
                  uint32_t want = ref_coverage(&p, x, y, n);
                  bad_mask += g_mask[y][x] != want;
                  for (uint32_t s = 0; s < n; s++) {
                     const uint8_t *t = sr_surface_texel(&fb.color[0], 0, x, y, s);
                     bad_mem += (t[0] == 255) != ((want >> s) & 1);
                  }
                  if (want) {
                     const float(*pos)[2] = ref_positions(n);
                     uint32_t first = (uint32_t)__builtin_ctz(want);
                     float cx = x + (want == (1u << n) - 1 ? 0.5f : pos[first][0]);
                     float cy = y + (want == (1u << n) - 1 ? 0.5f : pos[first][1]);
                     bad_centroid += g_centroid[y][x][0] != cx || g_centroid[y][x][1] != cy;
                  }
               }
            }
         }
         CHECK(bad_mask == 0 && bad_mem == 0 && bad_centroid == 0,
               "%u samples, W=%u: %d masks, %d samples, %d centroids wrong", n, width, bad_mask,
               bad_mem, bad_centroid);
         h_finish(&h);
         free(fb.color[0].base);
      }
   }
}

/* Pipeline sample mask, SampleMask output, alpha to coverage, per-sample
 * shading and per-sample depth, with 4 samples. */
static void test_msaa_ops(void)
{
   const VkClearValue black = {.color.float32 = {0, 0, 0, 0}};
   for (int variant = 0; variant < 4; variant++) {
      struct sr_framebuffer fb;
      fb_msaa(&fb, VK_FORMAT_R8G8B8A8_UNORM, 0, 8, 4, 4);
      struct harness h;
      h_init(&h, &fb);
      struct sr_draw_state st;
      state_init(&st, fs_count, 8);
      st.samples = 4;
      uint32_t want = 0xf;
      set_out_float(1, 1, 1, 1);
      g_mask_out = ~0u;
      switch (variant) {
      case 0: st.sample_mask = 0x5; want = 0x5; break;
      case 1: st.fs_io.writes_sample_mask = 1; g_mask_out = 0xa; want = 0xa; break;
      case 2: st.alpha_to_coverage = true; set_out_float(1, 1, 1, 0.5f); want = 0x3; break;
      default:
         st.alpha_to_coverage = true;
         st.sample_mask = 0xe;
         set_out_float(1, 1, 1, 0.75f);
         want = 0x6;
         break;
      }
      struct sr_draw_snapshot snap;
      snap_init(&snap, &st);
      h_clear(&h, 0, VK_IMAGE_ASPECT_COLOR_BIT, black, 0, 0, 8, 4);
      draw_rect(&h, &snap, 0, 0, 8, 4, 0, true);
      g_width = 8;
      memset(g_mask, 0, sizeof(g_mask));
      h_run(&h);
      int bad = 0;
      for (int y = 0; y < 4; y++)
         for (int x = 0; x < 8; x++)
            for (uint32_t s = 0; s < 4; s++)
               bad += (sr_surface_texel(&fb.color[0], 0, x, y, s)[0] == 255) !=
                      ((want >> s) & 1);
      CHECK(bad == 0, "MSAA variant %d: %d samples wrong", variant, bad);
      if (variant == 0)
         CHECK(g_mask[0][0] == 0x5, "SampleMaskIn 0x%x, expected the pipeline's 0x5",
               g_mask[0][0]);
      h_finish(&h);
      free(fb.color[0].base);
   }
   g_mask_out = ~0u;

   /* Per-sample shading (SampleId read): one call per sample, each sample
    * gets its own colour; depth evaluated at each sample on a slope. */
   struct sr_framebuffer fb;
   fb_msaa(&fb, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_D32_SFLOAT, 8, 4, 4);
   struct harness h;
   h_init(&h, &fb);
   struct sr_draw_state st;
   state_init(&st, fs_count, 16);
   st.samples = 4;
   st.fs_io.reads_sample_id = 1;
   st.depth_test = st.depth_write = true;
   st.depth_compare = VK_COMPARE_OP_ALWAYS;
   struct sr_draw_snapshot snap;
   snap_init(&snap, &st);
   const float v[3][2] = {{0, 0}, {16, 0}, {0, 8}};
   const float z[3] = {0.0f, 0.5f, 0.25f};   /* z = x / 32 + y / 32 */
   struct sr_prim p;
   prim_init(&p, &snap, v, z, 8, 4);
   h_prim(&h, &p);
   g_width = 16;
   g_sample_ids = 0;
   g_bad_sample_call = false;
   g_color_by_sample = true;
   set_out_float(0, 1, 0, 1);
   h_run(&h);
   g_color_by_sample = false;
   int bad = 0, bad_z = 0;
   for (int y = 0; y < 4; y++) {
      for (int x = 0; x < 8; x++) {
         for (uint32_t s = 0; s < 4; s++) {
            const uint8_t *t = sr_surface_texel(&fb.color[0], 0, x, y, s);
            bad += t[0] != (uint8_t)lrintf(s / 8.0f * 255.0f) || t[1] != 255;
            float d;
            memcpy(&d, sr_surface_texel(&fb.depth, 0, x, y, s), 4);
            double px = x + (double)ref_pos4[s][0], py = y + (double)ref_pos4[s][1];
            float wz = (float)(p.z.a * px + p.z.b * py + p.z.c);
            bad_z += d != wz || fabs(d - (px + py) / 32.0) > 1e-6;
         }
      }
   }
   CHECK(g_sample_ids == 0xf && !g_bad_sample_call, "per-sample calls: ids 0x%x", g_sample_ids);
   CHECK(bad == 0, "per-sample shading: %d samples wrong", bad);
   CHECK(bad_z == 0, "per-sample depth: %d samples wrong", bad_z);
   h_finish(&h);
   free(fb.color[0].base);
   free(fb.depth.base);
}

/* The generic resolve loop's texel for pixel (x, y) of a 4-sample
 * surface's layer 0: its samples unpacked to float, summed in sample
 * order, divided by 4 and packed. */
static void resolve_reference(const struct sr_surface *src, int x, int y, uint8_t *want)
{
   float sum[4] = {0, 0, 0, 0};
   for (uint32_t s = 0; s < 4; s++) {
      float v[4];
      su_unpack_float(src->format, sr_surface_texel(src, 0, x, y, s), v);
      for (int c = 0; c < 4; c++)
         sum[c] += v[c];
   }
   for (int c = 0; c < 4; c++)
      sum[c] /= 4.0f;
   su_pack_float(src->format, sum, want);
}

/* Resolves colour attachment 0 of fb's samples in rect into dst (its
 * layer 0) through one tile run of the harness. */
static void color_resolve(const struct sr_framebuffer *fb, struct sr_surface dst, VkRect2D rect)
{
   struct harness h;
   h_init(&h, fb);
   struct sr_resolve_cmd r;
   memset(&r, 0, sizeof(r));
   r.attachment = 0;
   r.dst = dst;
   r.rect = rect;
   r.layer_count = 1;
   struct sr_cmd cmd = {.kind = SR_CMD_RESOLVE, .resolve = &r};
   h_append(&h, 0, rect.offset.x, rect.offset.y, rect.offset.x + (int32_t)rect.extent.width - 1,
            rect.offset.y + (int32_t)rect.extent.height - 1, cmd);
   h_run(&h);
   h_finish(&h);
}

/* The vector rows test_resolve and test_resolve_equal_samples run under
 * (sr_resolve_test_rows), for their messages. */
static const char *rows_name = "the CPU's";

/* Resolves: the average of the samples (in linear for sRGB), sample 0 for
 * integer formats; only the rect, only this layer's tiles. */
static void test_resolve(void)
{
   static const VkFormat formats[] = {VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB,
                                      VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32_UINT,
                                      VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R8G8_UNORM};
   for (unsigned fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
      struct sr_framebuffer fb;
      fb_msaa(&fb, formats[fi], 0, 70, 10, 4);
      const struct su_format_desc *d = fb.color[0].format;
      struct sr_surface dst;
      surf_init(&dst, formats[fi], 70, 10, 1, 1);
      uint8_t *before = malloc(dst.layer_pitch);
      memcpy(before, dst.base, dst.layer_pitch);
      if (d->kind == SU_KIND_SFLOAT) {   /* finite sample values */
         for (int y = 0; y < 10; y++)
            for (int x = 0; x < 70; x++)
               for (uint32_t s = 0; s < 4; s++) {
                  float v[4] = {frand(0, 1), frand(-1, 1), frand(0, 4), frand(0, 1)};
                  su_pack_float(d, v, sr_surface_texel(&fb.color[0], 0, x, y, s));
               }
      } else if (formats[fi] == VK_FORMAT_R8G8B8A8_UNORM) {
         /* Every byte value in every sample and channel of the resolved
          * rect (512 pixels, an odd step a pixel): the vector rows' b /
          * 255.0f (sr_resolve.c) is checked for each byte. */
         for (int y = 1; y < 9; y++)
            for (int x = 3; x < 67; x++)
               for (uint32_t s = 0; s < 4; s++)
                  for (uint32_t c = 0; c < 4; c++)
                     sr_surface_texel(&fb.color[0], 0, x, y, s)[c] =
                        (uint8_t)(((y - 1) * 64 + (x - 3)) * 7 + s * 61 + c * 113);
      }
      color_resolve(&fb, dst, (VkRect2D){{3, 1}, {64, 8}});
      int bad = 0, inexact = 0;
      bool byte_channels = d->block_size == d->num_channels &&
                           (d->kind == SU_KIND_UNORM || d->kind == SU_KIND_SRGB);
      for (int y = 0; y < 10; y++) {
         for (int x = 0; x < 70; x++) {
            uint8_t *t = sr_surface_texel(&dst, 0, x, y, 0);
            uint8_t want[16];
            if (byte_channels && x >= 3 && x < 67 && y >= 1 && y < 9) {
               /* 8-bit channels (sr_resolve.c's byte loop): exactly the
                * generic loop's bytes (sum in sample order, then / 4). */
               resolve_reference(&fb.color[0], x, y, want);
               inexact += memcmp(t, want, d->block_size) != 0;
            }
            if (!(x >= 3 && x < 67 && y >= 1 && y < 9)) {
               bad += memcmp(t, before + (t - dst.base), d->block_size) != 0;
               continue;
            }
            if (su_format_class(d) != SU_CLASS_FLOAT) {
               memcpy(want, sr_surface_texel(&fb.color[0], 0, x, y, 0), d->block_size);
            } else {
               float sum[4] = {0, 0, 0, 0};
               for (uint32_t s = 0; s < 4; s++) {
                  float v[4];
                  su_unpack_float(d, sr_surface_texel(&fb.color[0], 0, x, y, s), v);
                  for (int c = 0; c < 4; c++)
                     sum[c] += v[c] * 0.25f;
               }
               su_pack_float(d, sum, want);
            }
            if (memcmp(t, want, d->block_size) != 0) {
               /* Summation order may differ by one rounding step. */
               float a[4], b[4];
               su_unpack_float(d, t, a);
               su_unpack_float(d, want, b);
               for (int c = 0; c < 4; c++)
                  bad += fabsf(a[c] - b[c]) > 1.0f / 255.0f + 1e-3f * fabsf(b[c]);
            }
         }
      }
      CHECK(bad == 0, "%s (rows: %s): %d resolved texels wrong", d->name, rows_name, bad);
      CHECK(inexact == 0, "%s (rows: %s): %d resolved texels not the generic loop's", d->name,
            rows_name, inexact);
      free(before);
      free(dst.base);
      free(fb.color[0].base);
   }
}

/* RGBA8 UNORM 4x resolves of pixels whose four samples are equal (the
 * vector rows skip their arithmetic, sr_resolve.c) next to pixels whose
 * samples differ in one byte of one sample: every byte value in every
 * channel of equal samples, in every arrangement of a pair of pixels, and
 * rows of equal samples only (the AVX-512 rows' runs of four); exactly
 * the generic loop's bytes. */
static void test_resolve_equal_samples(void)
{
   const VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
   struct sr_framebuffer fb;
   fb_msaa(&fb, format, 0, 70, 10, 4);
   struct sr_surface dst;
   surf_init(&dst, format, 70, 10, 1, 1);
   for (int y = 0; y < 10; y++)
      for (int x = 0; x < 70; x++) {
         const uint32_t p = (uint32_t)(y * 70 + x);
         for (uint32_t s = 0; s < 4; s++)
            for (uint32_t c = 0; c < 4; c++) {
               uint8_t b = (uint8_t)(p * 3 + c * 61);
               /* Rows 0-4, every third pixel (x + y) % 3 == 2: sample
                * 3's channel p % 4 one higher (rows 5-9: all equal). */
               if ((x + y) % 3 == 2 && y < 5 && s == 3 && c == p % 4)
                  b++;
               sr_surface_texel(&fb.color[0], 0, x, y, s)[c] = b;
            }
      }
   color_resolve(&fb, dst, (VkRect2D){{1, 0}, {69, 10}});
   int inexact = 0, equal = 0;
   for (int y = 0; y < 10; y++)
      for (int x = 1; x < 70; x++) {
         uint8_t want[4];
         resolve_reference(&fb.color[0], x, y, want);
         inexact += memcmp(sr_surface_texel(&dst, 0, x, y, 0), want, 4) != 0;
         if ((x + y) % 3 != 2 || y >= 5)
            equal += memcmp(want, sr_surface_texel(&fb.color[0], 0, x, y, 0), 4) == 0;
      }
   CHECK(inexact == 0,
         "rows %s: %d resolved texels of equal and unequal samples not the generic loop's",
         rows_name, inexact);
   /* The generic loop gives equal samples' own bytes back (as the rows'
    * shortcut assumes). */
   CHECK(equal == 575, "%d of 575 pixels of equal samples resolved to their texel", equal);
   free(dst.base);
   free(fb.color[0].base);
}

/* Depth/stencil resolves: every mode against a per-pixel reference, the
 * other aspect of a combined destination kept. */
static void test_resolve_depth_stencil(void)
{
   static const VkFormat formats[] = {VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT,
                                      VK_FORMAT_D16_UNORM, VK_FORMAT_D32_SFLOAT};
   static const VkResolveModeFlagBits dmodes[] = {
      VK_RESOLVE_MODE_NONE, VK_RESOLVE_MODE_SAMPLE_ZERO_BIT, VK_RESOLVE_MODE_AVERAGE_BIT,
      VK_RESOLVE_MODE_MIN_BIT, VK_RESOLVE_MODE_MAX_BIT};
   static const VkResolveModeFlagBits smodes[] = {
      VK_RESOLVE_MODE_NONE, VK_RESOLVE_MODE_SAMPLE_ZERO_BIT, VK_RESOLVE_MODE_MIN_BIT,
      VK_RESOLVE_MODE_MAX_BIT};
   for (unsigned fi = 0; fi < 4; fi++) {
      for (unsigned mi = 0; mi < 5; mi++) {
         VkResolveModeFlagBits dm = dmodes[mi], sm = smodes[mi % 4];
         struct sr_framebuffer fb;
         memset(&fb, 0, sizeof(fb));
         fb.width = 70;
         fb.height = 9;
         fb.layers = 1;
         fb.samples = 4;
         surf_init(&fb.depth, formats[fi], 70, 9, 4, 1);
         fb.stencil = fb.depth;
         const struct su_format_desc *d = fb.depth.format;
         bool has_s = d->aspects & VK_IMAGE_ASPECT_STENCIL_BIT;
         for (int y = 0; y < 9; y++)   /* valid depth values (random bits may be NaN) */
            for (int x = 0; x < 70; x++)
               for (uint32_t smp = 0; smp < 4; smp++)
                  su_pack_depth(d, frand(0, 1), sr_surface_texel(&fb.depth, 0, x, y, smp));
         struct sr_surface dst;
         surf_init(&dst, formats[fi], 70, 9, 1, 1);
         for (int y = 0; y < 9; y++)
            for (int x = 0; x < 70; x++)
               su_pack_depth(d, frand(0, 1), sr_surface_texel(&dst, 0, x, y, 0));
         uint8_t *before = malloc(dst.layer_pitch);
         memcpy(before, dst.base, dst.layer_pitch);
         struct harness h;
         h_init(&h, &fb);
         struct sr_resolve_cmd r;
         memset(&r, 0, sizeof(r));
         r.attachment = SR_ATTACHMENT_DEPTH_STENCIL;
         r.dst = dst;
         r.rect = (VkRect2D){{1, 0}, {68, 9}};
         r.layer_count = 1;
         r.depth_mode = dm;
         r.stencil_mode = sm;
         struct sr_cmd cmd = {.kind = SR_CMD_RESOLVE, .resolve = &r};
         h_append(&h, 0, 0, 0, 69, 8, cmd);
         h_run(&h);
         int bad = 0;
         for (int y = 0; y < 9; y++) {
            for (int x = 0; x < 70; x++) {
               const uint8_t *t = sr_surface_texel(&dst, 0, x, y, 0);
               const uint8_t *b0 = before + (t - dst.base);
               bool in = x >= 1 && x < 69;
               double keys[4];
               float vals[4];
               uint8_t sv[4];
               for (uint32_t smp = 0; smp < 4; smp++) {
                  const uint8_t *st = sr_surface_texel(&fb.depth, 0, x, y, smp);
                  keys[smp] = sr_depth_key(d, st);
                  vals[smp] = su_unpack_depth(d, st);
                  sv[smp] = has_s ? su_unpack_stencil(d, st) : 0;
               }
               double want_key = sr_depth_key(d, b0);
               if (in && dm == VK_RESOLVE_MODE_SAMPLE_ZERO_BIT)
                  want_key = keys[0];
               if (in && (dm == VK_RESOLVE_MODE_MIN_BIT || dm == VK_RESOLVE_MODE_MAX_BIT)) {
                  want_key = keys[0];
                  for (int k = 1; k < 4; k++)
                     want_key = dm == VK_RESOLVE_MODE_MIN_BIT ? fmin(want_key, keys[k])
                                                                : fmax(want_key, keys[k]);
               }
               if (in && dm == VK_RESOLVE_MODE_AVERAGE_BIT) {
                  uint8_t q[8] = {0};
                  su_pack_depth(d, (float)(((double)vals[0] + vals[1] + vals[2] + vals[3]) / 4), q);
                  want_key = sr_depth_key(d, q);
               }
               bad += sr_depth_key(d, t) != want_key;
               if (has_s) {
                  uint8_t want_s = su_unpack_stencil(d, b0);
                  if (in && sm == VK_RESOLVE_MODE_SAMPLE_ZERO_BIT)
                     want_s = sv[0];
                  if (in && (sm == VK_RESOLVE_MODE_MIN_BIT || sm == VK_RESOLVE_MODE_MAX_BIT)) {
                     want_s = sv[0];
                     for (int k = 1; k < 4; k++)
                        want_s = sm == VK_RESOLVE_MODE_MIN_BIT ? (sv[k] < want_s ? sv[k] : want_s)
                                                               : (sv[k] > want_s ? sv[k] : want_s);
                  }
                  bad += su_unpack_stencil(d, t) != want_s;
               }
            }
         }
         CHECK(bad == 0, "%s depth mode %d stencil mode %d: %d texels wrong", d->name, dm, sm,
               bad);
         h_finish(&h);
         free(before);
         free(dst.base);
         free(fb.depth.base);
      }
   }
}

/* ---- Tests: whole scenes through the front end ---- */

#define SW 200
#define SH 150

/* Location 0 -> Position, Location 1 -> Location 0 (W = 8). */
static void vs_scene(const struct shale_vs_context *ctx, struct shale_vs_batch *b)
{
   (void)ctx;
   for (uint32_t i = 0; i < b->count; i++) {
      for (int c = 0; c < 4; c++) {
         b->outputs[(SHALE_SLOT_POSITION * 4 + c) * 8 + i] = b->inputs[c * 8 + i];
         b->outputs[(SHALE_SLOT_USER * 4 + c) * 8 + i] = b->inputs[(4 + c) * 8 + i];
      }
   }
}

static uint64_t g_scene_samples;   /* covered samples shaded, all workers */

/* The flat Location 0 input as the colour; counts covered samples. */
static void fs_scene(const struct shale_fs_context *ctx, struct shale_fs_quads *q)
{
   (void)ctx;
   q->kill_mask = 0;
   uint32_t n = 0;
   for (uint32_t i = 0; i < 8; i++) {
      for (int c = 0; c < 4; c++)
         q->outputs[c * 8 + i] = fbits(q->planes[2 + c].c);
      n += (uint32_t)__builtin_popcount(q->coverage[i]);
   }
   __atomic_fetch_add(&g_scene_samples, n, __ATOMIC_RELAXED);
}

struct scene_vtx {
   float pos[4];
   float rgba[4];
};

static void scene_state(struct sr_draw_state *st, bool blend, VkCompareOp depth)
{
   state_init(st, fs_scene, 8);
   st->vs = vs_scene;
   st->vs_width = 8;
   st->vs_io.outputs_written = (1ull << SHALE_SLOT_POSITION) | (1ull << SHALE_SLOT_USER);
   st->vs_io.inputs_read = 0x3;
   for (int c = 0; c < 4; c++)
      st->fs_io.interp[c] = SHALE_INTERP_FLAT;
   st->binding_mask = 1;
   st->bindings[0] = (struct sr_vertex_binding){sizeof(struct scene_vtx),
                                                VK_VERTEX_INPUT_RATE_VERTEX, 1};
   st->attribute_count = 2;
   st->attributes[0] = (struct sr_vertex_attribute){0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0};
   st->attributes[1] = (struct sr_vertex_attribute){1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16};
   st->topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
   st->viewports[0] = (VkViewport){0, 0, SW, SH, 0, 1};
   st->scissors[0] = (VkRect2D){{0, 0}, {SW, SH}};
   st->polygon_mode = VK_POLYGON_MODE_FILL;
   st->cull_mode = VK_CULL_MODE_NONE;
   st->front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE;
   st->line_width = 1.0f;
   st->samples = 4;
   st->depth_test = true;
   st->depth_write = true;
   st->depth_compare = depth;
   if (blend)
      st->blend[0] = (struct sr_blend_attachment){true, VK_BLEND_FACTOR_SRC_ALPHA,
                                                  VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
                                                  VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ONE,
                                                  VK_BLEND_OP_ADD, VK_BLEND_OP_ADD, 0xf};
}

/* 4x MSAA with depth, blending, occlusion and a resolve through
 * sr_scene_*: identical memory and counts at 1, 2 and 4 threads; with
 * depth ALWAYS the occlusion count is every covered sample shaded. */
static void test_scene_threads(void)
{
   enum { N = 120 };
   struct scene_vtx *v = malloc(sizeof(*v) * N * 3);
   for (unsigned i = 0; i < N * 3; i++) {
      v[i].pos[0] = frand(-1.2f, 1.2f);
      v[i].pos[1] = frand(-1.2f, 1.2f);
      v[i].pos[2] = frand(0.0f, 1.0f);
      v[i].pos[3] = 1.0f;
      for (int c = 0; c < 4; c++)
         v[i].rgba[c] = frand(0.0f, 1.0f);
      if (i % 3)   /* flat colour: the provoking vertex's */
         memcpy(v[i].rgba, v[i - i % 3].rgba, sizeof(v[i].rgba));
   }
   struct sr_draw_bindings b;
   memset(&b, 0, sizeof(b));
   b.vertex_buffers[0] = (struct sr_vertex_buffer){(const uint8_t *)v, sizeof(*v) * N * 3};
   uint8_t *first[3] = {NULL, NULL, NULL};
   uint64_t first_occ[2] = {0, 0};
   const unsigned threads[3] = {1, 2, 4};
   for (int t = 0; t < 3; t++) {
      struct su_thread_pool *pool;
      struct sr_context *ctx;
      if (!su_thread_pool_create(threads[t], &pool) ||
          sr_context_create(pool, NULL, &ctx) != VK_SUCCESS) {
         CHECK(false, "no pool or context");
         return;
      }
      struct sr_framebuffer fb;
      fb_msaa(&fb, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_D32_SFLOAT, SW, SH, 4);
      struct sr_surface dst;
      surf_init(&dst, VK_FORMAT_R8G8B8A8_UNORM, SW, SH, 1, 1);
      struct sr_scene *scene;
      VkRect2D area = {{0, 0}, {SW, SH}};
      CHECK(sr_scene_begin(ctx, &fb, &area, 1, &scene) == VK_SUCCESS, "begin");
      VkClearValue cc = {.color.float32 = {0.1f, 0.2f, 0.3f, 0.4f}};
      VkClearValue cd = {.depthStencil = {1.0f, 0}};
      sr_scene_clear(scene, 0, VK_IMAGE_ASPECT_COLOR_BIT, &cc, &area, 0, 1);
      sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL, VK_IMAGE_ASPECT_DEPTH_BIT, &cd, &area, 0, 1);
      struct sr_draw_state st_less, st_always;
      scene_state(&st_less, true, VK_COMPARE_OP_LESS);
      scene_state(&st_always, false, VK_COMPARE_OP_ALWAYS);
      uint64_t occ[2] = {0, 0};
      struct sr_draw d = {.count = N * 3 / 2, .instance_count = 1, .occlusion = &occ[0]};
      CHECK(sr_scene_draw(scene, &st_less, &b, &d) == VK_SUCCESS, "draw");
      sr_scene_flush(scene);
      g_scene_samples = 0;
      d.first = N * 3 / 2;
      d.occlusion = &occ[1];
      CHECK(sr_scene_draw(scene, &st_always, &b, &d) == VK_SUCCESS, "draw");
      sr_scene_flush(scene);
      CHECK(occ[1] == g_scene_samples && occ[1] > 0,
            "%u threads: occlusion %llu, shaded samples %llu", threads[t],
            (unsigned long long)occ[1], (unsigned long long)g_scene_samples);
      CHECK(sr_scene_resolve(scene, 0, &dst) == VK_SUCCESS, "resolve");
      struct sr_surface ddst;
      surf_init(&ddst, VK_FORMAT_D32_SFLOAT, SW, SH, 1, 1);
      CHECK(sr_scene_resolve_depth_stencil(scene, &ddst, VK_RESOLVE_MODE_MAX_BIT,
                                           VK_RESOLVE_MODE_NONE) == VK_SUCCESS,
            "depth resolve");
      sr_scene_end(scene);
      int bad_depth = 0;
      for (int y = 0; y < SH; y++) {
         for (int x = 0; x < SW; x++) {
            float m = 0, r;
            for (uint32_t smp = 0; smp < 4; smp++) {
               float z;
               memcpy(&z, sr_surface_texel(&fb.depth, 0, x, y, smp), 4);
               m = z > m ? z : m;
            }
            memcpy(&r, sr_surface_texel(&ddst, 0, x, y, 0), 4);
            bad_depth += r != m;
         }
      }
      CHECK(bad_depth == 0, "%u threads: %d depth resolves (MAX) wrong", threads[t], bad_depth);
      free(ddst.base);
      /* The pixels (not the random padding between rows). */
      const struct sr_surface *mem[3] = {&fb.color[0], &fb.depth, &dst};
      for (int m = 0; m < 3; m++) {
         size_t row = (size_t)SW * mem[m]->samples * mem[m]->format->block_size;
         if (!first[m])
            first[m] = malloc(row * SH);
         int rows_differ = 0;
         for (int y = 0; y < SH; y++) {
            const uint8_t *p = mem[m]->base + (size_t)y * mem[m]->row_pitch;
            if (t == 0)
               memcpy(first[m] + row * (size_t)y, p, row);
            else
               rows_differ += memcmp(first[m] + row * (size_t)y, p, row) != 0;
         }
         CHECK(rows_differ == 0, "%u threads: %d rows of memory %d differ", threads[t],
               rows_differ, m);
      }
      if (t == 0) {
         memcpy(first_occ, occ, sizeof(occ));
         CHECK(occ[0] > 0, "no sample passed the depth test");
      } else {
         CHECK(occ[0] == first_occ[0] && occ[1] == first_occ[1], "%u threads: occlusion differs",
               threads[t]);
      }
      /* The resolve is the average of the samples. */
      int bad = 0;
      for (int y = 0; y < SH; y++) {
         for (int x = 0; x < SW; x++) {
            const uint8_t *r = sr_surface_texel(&dst, 0, x, y, 0);
            for (int c = 0; c < 4; c++) {
               unsigned sum = 0;
               for (uint32_t smp = 0; smp < 4; smp++)
                  sum += sr_surface_texel(&fb.color[0], 0, x, y, smp)[c];
               bad += abs((int)r[c] * 4 - (int)sum) > 2;
            }
         }
      }
      CHECK(bad == 0, "%u threads: %d resolved channels off the average", threads[t], bad);
      free(fb.color[0].base);
      free(fb.depth.base);
      free(dst.base);
      sr_context_destroy(ctx);
      su_thread_pool_destroy(pool);
   }
   for (int m = 0; m < 3; m++)
      free(first[m]);
   free(v);
}

/* Allocation failures around a depth/stencil resolve: each allocation of
 * a scene with a clear, a draw and both resolves fails in turn; the calls
 * report VK_ERROR_OUT_OF_HOST_MEMORY and nothing leaks. */
static int g_alloc_live, g_alloc_count, g_alloc_fail_at;

static void *VKAPI_PTR t_alloc(void *user, size_t size, size_t align,
                               VkSystemAllocationScope scope)
{
   (void)user, (void)scope;
   if (++g_alloc_count == g_alloc_fail_at)
      return NULL;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
      return NULL;
   g_alloc_live++;
   return p;
}

static void *VKAPI_PTR t_realloc(void *user, void *old, size_t size, size_t align,
                                 VkSystemAllocationScope scope)
{
   (void)user, (void)old, (void)size, (void)align, (void)scope;
   return NULL;
}

static void VKAPI_PTR t_free(void *user, void *p)
{
   (void)user;
   if (p) {
      g_alloc_live--;
      free(p);
   }
}

/* test_resolve and test_resolve_equal_samples again with the resolve rows
 * a CPU without AVX-512 takes (the FMA row: AVX2 and FMA), without FMA
 * too (the AVX2 row's vdivps) and without AVX2 (the scalar row), where
 * this machine's AVX-512 row took the 4-sample RGBA8 rows above: every
 * byte value in every sample and channel, pairs of equal and unequal
 * samples, exactly the generic loop's bytes. Run last, so no other test's
 * random draws move. */
static void test_resolve_rows(void)
{
   static const struct {
      enum sr_resolve_rows rows;
      const char *name;
   } rows[] = {
      {SR_RESOLVE_ROWS_NO_AVX512, "no AVX-512 (AVX2 + FMA)"},
      {SR_RESOLVE_ROWS_NO_FMA, "no FMA (AVX2 vdivps)"},
      {SR_RESOLVE_ROWS_NO_AVX2, "no AVX2 (scalar)"},
   };
   for (unsigned i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
      sr_resolve_test_rows = rows[i].rows;
      rows_name = rows[i].name;
      test_resolve();
      test_resolve_equal_samples();
   }
   sr_resolve_test_rows = SR_RESOLVE_ROWS_ALL;
   rows_name = "the CPU's";
}

static void test_resolve_alloc_failures(void)
{
   const VkAllocationCallbacks cb = {.pfnAllocation = t_alloc, .pfnReallocation = t_realloc,
                                     .pfnFree = t_free};
   struct su_thread_pool *pool;
   if (!su_thread_pool_create(1, &pool)) {
      CHECK(false, "no pool");
      return;
   }
   struct sr_framebuffer fb;
   fb_msaa(&fb, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_D24_UNORM_S8_UINT, SW, SH, 4);
   struct sr_surface cdst, ddst;
   surf_init(&cdst, VK_FORMAT_R8G8B8A8_UNORM, SW, SH, 1, 1);
   surf_init(&ddst, VK_FORMAT_D24_UNORM_S8_UINT, SW, SH, 1, 1);
   struct scene_vtx v[3] = {{{-1, -1, 0.5f, 1}, {1, 0, 0, 1}}, {{1, -1, 0.5f, 1}, {1, 0, 0, 1}},
                            {{-1, 1, 0.5f, 1}, {1, 0, 0, 1}}};
   struct sr_draw_bindings b;
   memset(&b, 0, sizeof(b));
   b.vertex_buffers[0] = (struct sr_vertex_buffer){(const uint8_t *)v, sizeof(v)};
   struct sr_draw_state st;
   scene_state(&st, false, VK_COMPARE_OP_ALWAYS);
   bool done = false;
   int runs = 0;
   for (g_alloc_fail_at = 1; !done && g_alloc_fail_at < 1000; g_alloc_fail_at++, runs++) {
      g_alloc_count = g_alloc_live = 0;
      struct sr_context *ctx;
      VkResult res = sr_context_create(pool, &cb, &ctx);
      bool failed = res != VK_SUCCESS;
      if (res == VK_SUCCESS) {
         struct sr_scene *scene;
         VkRect2D area = {{0, 0}, {SW, SH}};
         res = sr_scene_begin(ctx, &fb, &area, 1, &scene);
         failed |= res != VK_SUCCESS;
         if (res == VK_SUCCESS) {
            VkClearValue cd = {.depthStencil = {1.0f, 3}};
            failed |= sr_scene_clear(scene, SR_ATTACHMENT_DEPTH_STENCIL,
                                     VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, &cd,
                                     &area, 0, 1) != VK_SUCCESS;
            struct sr_draw d = {.count = 3, .instance_count = 1};
            failed |= sr_scene_draw(scene, &st, &b, &d) != VK_SUCCESS;
            failed |= sr_scene_resolve(scene, 0, &cdst) != VK_SUCCESS;
            res = sr_scene_resolve_depth_stencil(scene, &ddst, VK_RESOLVE_MODE_SAMPLE_ZERO_BIT,
                                                 VK_RESOLVE_MODE_MAX_BIT);
            CHECK(res == VK_SUCCESS || res == VK_ERROR_OUT_OF_HOST_MEMORY, "resolve: %d", res);
            failed |= res != VK_SUCCESS;
            sr_scene_end(scene);
         }
         sr_context_destroy(ctx);
      }
      CHECK(g_alloc_live == 0, "failing allocation %d: %d leaked", g_alloc_fail_at, g_alloc_live);
      if (g_alloc_live)
         break;
      done = !failed && g_alloc_count < g_alloc_fail_at;
   }
   CHECK(done && runs > 3, "allocation failure runs: %d, done %d", runs, done);
   free(fb.color[0].base);
   free(fb.depth.base);
   free(cdst.base);
   free(ddst.base);
   su_thread_pool_destroy(pool);
}

int main(void)
{
   test_top_left();
   test_mesh_coverage(4);
   test_mesh_coverage(8);
   test_mesh_coverage(16);
   test_clears();
   test_compare_and_stencil_ops();
   test_srgb8();
   test_blending();
   test_write_masks_and_logic_ops();
   test_format_sweep();
   test_depth_formats();
   test_early_late();
   test_stencil_and_bounds();
   test_msaa_coverage();
   test_msaa_ops();
   test_resolve();
   test_resolve_equal_samples();
   test_resolve_depth_stencil();
   test_scene_threads();
   test_resolve_alloc_failures();
   test_resolve_rows();
   return check_finish();
}
