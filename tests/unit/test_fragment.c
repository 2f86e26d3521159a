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
   /* The record is leaked on purpose: the scene is short-lived. */
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
static float g_depth = -1.0f;           /* FragDepth written when >= 0 */

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
         if (!q->coverage[i])
            g_helpers++;
         else if (x >= 0 && y >= 0 && x < MAXW && y < MAXH)
            g_hits[y][x] += (uint32_t)__builtin_popcount(q->coverage[i]);
      }
   }
   for (uint32_t i = 0; i < W; i++) {
      for (int c = 0; c < 4; c++)
         q->outputs[c * W + i] = g_out[c];
      q->frag_depth[i] = g_depth;
   }
   q->kill_mask = 0;
}

static uint32_t fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
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
   VkClearValue v1 = {.color.int32 = {-5, 40000, 0, 0}};
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
            bad1 += s[0] != -5 || s[1] != 32767;
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
   CHECK(bad1 == 0, "%d SINT clear texels wrong (clamped to 16 bits)", bad1);
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

int main(void)
{
   test_top_left();
   test_mesh_coverage(4);
   test_mesh_coverage(8);
   test_mesh_coverage(16);
   test_clears();
   return check_finish();
}
