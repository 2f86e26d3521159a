/*
 * sr_tile: runs one tile's command list (CLEAR, PRIM, RESOLVE) in API order:
 * coverage of 4x4-pixel blocks from the edge functions, fragment shader
 * calls on 2x2 quads, per-fragment operations (sr_fragment.c), clears and
 * resolves. Workload: every flush runs each tile with commands once, on one
 * worker (sr_scene.h); a tile's pixels belong to that worker meanwhile.
 */
#include "sr_coverage.h"
#include "sr_fragment.h"
#include "sr_transfer.h"

#include <string.h>

typedef int32_t sr_v4i __attribute__((vector_size(16)));

/* Vulkan's standard sample positions (Multisampling: "Standard sample
 * locations"); 1 sample: the pixel centre. */
static const float positions_1[1][2] = {{0.5f, 0.5f}};
static const float positions_2[2][2] = {{0.75f, 0.75f}, {0.25f, 0.25f}};
static const float positions_4[4][2] = {
   {0.375f, 0.125f}, {0.875f, 0.375f}, {0.125f, 0.625f}, {0.625f, 0.875f}};
static const float positions_8[8][2] = {
   {0.5625f, 0.3125f}, {0.4375f, 0.6875f}, {0.8125f, 0.5625f}, {0.3125f, 0.1875f},
   {0.1875f, 0.8125f}, {0.0625f, 0.4375f}, {0.6875f, 0.9375f}, {0.9375f, 0.0625f}};
static const float positions_16[16][2] = {
   {0.5625f, 0.5625f}, {0.4375f, 0.3125f}, {0.3125f, 0.625f}, {0.75f, 0.4375f},
   {0.1875f, 0.375f},  {0.625f, 0.8125f},  {0.8125f, 0.6875f}, {0.6875f, 0.1875f},
   {0.375f, 0.875f},   {0.5f, 0.0625f},    {0.25f, 0.125f},    {0.125f, 0.75f},
   {0.0f, 0.5f},       {0.9375f, 0.25f},   {0.875f, 0.9375f},  {0.0625f, 0.0f}};

const float (*sr_sample_positions(uint32_t samples))[2]
{
   switch (samples) {
   case 2: return positions_2;
   case 4: return positions_4;
   case 8: return positions_8;
   case 16: return positions_16;
   default: return positions_1;
   }
}

/* A pixel rectangle, inclusive. */
struct box {
   int32_t x0, y0, x1, y1;
};

static bool box_intersect(struct box *b, const struct box *o)
{
   if (o->x0 > b->x0) b->x0 = o->x0;
   if (o->y0 > b->y0) b->y0 = o->y0;
   if (o->x1 < b->x1) b->x1 = o->x1;
   if (o->y1 < b->y1) b->y1 = o->y1;
   return b->x0 <= b->x1 && b->y0 <= b->y1;
}

static struct box rect_box(const VkRect2D *r)
{
   struct box b = {r->offset.x, r->offset.y, r->offset.x + (int32_t)r->extent.width - 1,
                   r->offset.y + (int32_t)r->extent.height - 1};
   return b;
}

struct tile {
   struct sr_scene *scene;
   /* The scene's attachments as this tile reads and writes them: those in
    * tile memory (tile_memory) point into the worker's buffer. */
   struct sr_framebuffer fb;
   uint32_t layer;
   struct box box;                      /* the tile's pixels inside the framebuffer */
   struct sr_worker_scratch *scratch;
   /* Occlusion: samples counted for `occ_target` since it was last added
    * (counts_add). */
   uint64_t *occ_target;
   uint64_t occ_count;
   /* Pipeline statistics: fragment shader invocations likewise. */
   uint64_t *fsi_target;
   uint64_t fsi_count;
   /* Fragment operations of the last primitive's state. */
   const struct sr_draw_state *frag_key;
   struct sr_fragment_state frag;
   /* Per-state facts of the quad loop (set with frag): some input is
    * evaluated at the centroid (else centroid[] is not filled); the
    * coverage after the shader is the shader's coverage less killed lanes
    * (no SampleMask output, no alpha to coverage, no late tests in C);
    * post_plain is set when the state or the occlusion target changes. */
   bool need_centroid;
   bool post_plain;
   /* Whether full blocks take the whole-block path (full_path_ok), or
    * that path after the early tests (full_path_ok_early); set with
    * post_plain, when the state or the occlusion target changes. */
   bool full_ok, full_early;
   /* The primitive as the compiled depth/stencil routine reads it. */
   struct shale_fb_prim ds_prim;
   /* The last snapshot's inputs: ABI plane 2 + slot[i] is prim plane src[i]. */
   const struct sr_draw_snapshot *plane_snap;
   uint32_t plane_count;
   uint8_t plane_slot[SHALE_FS_INPUT_COMPONENTS], plane_src[SHALE_FS_INPUT_COMPONENTS];
   /* Prim plane 2 + i is ABI plane 2 + i for every input (slot[i] + 2 ==
    * src[i]): the shader reads the primitive's planes in place. */
   bool plane_direct;
   /* The plane array the shader calls of the current primitive read. */
   const struct shale_fs_plane *planes;
   /* Sample offsets of the last primitive's sample count (sr_coverage.h). */
   struct sr_cover_samples cover_samples;
   /* Quads of the current primitive's partly covered blocks waiting for a
    * shader call (whole pixels, after their early tests): up to W / 4,
    * from any of its blocks; shaded when full and at the primitive's end
    * (batch_flush). Quad k's corner (x[k], y[k]), lane 4k + l's coverage
    * cov[4k + l]. */
   struct {
      uint32_t n;
      int32_t x[SHALE_MAX_SIMD_WIDTH / 4], y[SHALE_MAX_SIMD_WIDTH / 4];
      uint32_t cov[SHALE_MAX_SIMD_WIDTH];
   } batch;
   /* The command being run comes after the tile's last primitive
    * (sr_bin.prims_end): its clears' and resolves' stores stream. */
   bool after_prims;
   /* Per colour attachment, the last CLEAR since the tile's last PRIM
    * (NULL: none, or a PRIM came after it) and its pixels in the tile:
    * every sample there holds that clear's texel, so a RESOLVE of pixels
    * inside needs no read of them. */
   const struct sr_clear_cmd *cleared[SR_MAX_COLOR_ATTACHMENTS];
   struct box cleared_box[SR_MAX_COLOR_ATTACHMENTS];
   /* Clears held back (tile_clear), SR_DISCARD_* bits: colour attachment
    * a's is cleared[a] over cleared_box[a], the depth/stencil one's
    * ds_pending over ds_pending_box. Only after the last primitive; what
    * is still held at the tile's end is never written. */
   uint32_t pending;
   const struct sr_clear_cmd *ds_pending;
   struct box ds_pending_box;
   /* Attachments (SR_DISCARD_* bits) whose pixels of this tile are in tile
    * memory (tile_memory), and those of them written back to the
    * attachment at the tile's end (stored ones: tile_memory_write_back). */
   uint32_t in_tile_mem, write_back;
};

static void counts_add(struct tile *t)
{
   if (t->occ_target && t->occ_count)
      __atomic_fetch_add(t->occ_target, t->occ_count, __ATOMIC_RELAXED);
   t->occ_count = 0;
   if (t->fsi_target && t->fsi_count)
      __atomic_fetch_add(t->fsi_target, t->fsi_count, __ATOMIC_RELAXED);
   t->fsi_count = 0;
}

/* ---- Clears ---- */

/* Layer `layer` of a surface as sr_transfer sees a level: a row of
 * width * samples texels (a pixel's samples are adjacent). */
static struct sr_image_level surface_level(const struct sr_surface *s)
{
   struct sr_image_level l = {
      .base = s->base,
      .format = s->format,
      .width = s->width * s->samples,
      .height = s->height,
      .depth = 1,
      .layers = s->layers,
      .row_pitch = s->row_pitch,
      .depth_pitch = s->layer_pitch,
      .layer_pitch = s->layer_pitch,
   };
   return l;
}

static struct sr_box surface_box(const struct sr_surface *s, const struct box *b)
{
   struct sr_box r = {b->x0 * (int32_t)s->samples, b->y0, 0,
                      (uint32_t)(b->x1 - b->x0 + 1) * s->samples, (uint32_t)(b->y1 - b->y0 + 1), 1};
   return r;
}

/* `aspects` of a depth/stencil surface in the box (sr_clear_depth_stencil
 * keeps the other aspect and ignores aspects the format lacks). */
static void clear_depth_stencil(const struct tile *t, const struct sr_surface *s,
                                const struct box *b, VkImageAspectFlags aspects,
                                const VkClearDepthStencilValue *v)
{
   struct sr_image_level l = surface_level(s);
   struct sr_box box = surface_box(s, b);
   sr_clear_depth_stencil_stream(&l, t->layer, 1, &box, aspects, v->depth, v->stencil,
                                 t->after_prims &&
                                    !(t->in_tile_mem & SR_DISCARD_DEPTH_STENCIL));
}

static bool box_contains(const struct box *outer, const struct box *inner)
{
   return inner->x0 >= outer->x0 && inner->y0 >= outer->y0 && inner->x1 <= outer->x1 &&
          inner->y1 <= outer->y1;
}

/* Writes the clear's pixels b (its rect inside this tile, on this tile's
 * layer) through sr_transfer's clears (the same packing as
 * vkCmdClear*Image: 64-bit components, one aspect of a combined format
 * kept); streamed after the tile's last primitive, unless they are in
 * tile memory (which the write-back reads). */
static void clear_write(struct tile *t, const struct sr_clear_cmd *c, const struct box *b)
{
   const struct sr_framebuffer *fb = &t->fb;
   if (c->attachment != SR_ATTACHMENT_DEPTH_STENCIL) {
      const struct sr_surface *s = &fb->color[c->attachment];
      struct sr_image_level l = surface_level(s);
      struct sr_box box = surface_box(s, b);
      sr_clear_color_box_stream(&l, t->layer, 1, &box, &c->value.color,
                                t->after_prims && !(t->in_tile_mem & 1u << c->attachment));
      return;
   }
   const struct sr_surface *d = fb->depth.base ? &fb->depth : NULL;
   const struct sr_surface *st = fb->stencil.base ? &fb->stencil : NULL;
   if (d && st && d->base == st->base) {   /* one combined surface: one pass */
      clear_depth_stencil(t, d, b, c->aspects, &c->value.depthStencil);
      return;
   }
   if (d)
      clear_depth_stencil(t, d, b, c->aspects & VK_IMAGE_ASPECT_DEPTH_BIT, &c->value.depthStencil);
   if (st)
      clear_depth_stencil(t, st, b, c->aspects & VK_IMAGE_ASPECT_STENCIL_BIT,
                          &c->value.depthStencil);
}

/* Writes attachment `a`'s clear held back (t->pending) now: a later
 * command needs its pixels in memory. */
static void pending_write(struct tile *t, uint32_t a)
{
   const uint32_t bit = a == SR_ATTACHMENT_DEPTH_STENCIL ? SR_DISCARD_DEPTH_STENCIL : 1u << a;
   if (!(t->pending & bit))
      return;
   t->pending &= ~bit;
   if (a == SR_ATTACHMENT_DEPTH_STENCIL)
      clear_write(t, t->ds_pending, &t->ds_pending_box);
   else
      clear_write(t, t->cleared[a], &t->cleared_box[a]);
}

/* A CLEAR on this tile. After the tile's last primitive, a clear of an
 * attachment the flush discards (sr_scene_set_discard) is held back
 * (t->pending) and written only if a later RESOLVE reads those pixels or a
 * later clear of the attachment leaves some of them; a held-back clear
 * that a later one covers (every aspect it writes, every pixel) is
 * dropped, as it would be overwritten. */
static void tile_clear(struct tile *t, const struct sr_clear_cmd *c)
{
   const struct sr_framebuffer *fb = &t->fb;
   if (t->layer < c->base_layer || t->layer - c->base_layer >= c->layer_count)
      return;
   struct box b = rect_box(&c->rect);
   if (!box_intersect(&b, &t->box))
      return;

   const uint32_t a = c->attachment;
   bool hold = false;
   if (a != SR_ATTACHMENT_DEPTH_STENCIL) {
      if (a >= fb->color_count || !fb->color[a].base)
         return;
      if (t->pending & 1u << a) {
         if (box_contains(&b, &t->cleared_box[a]))
            t->pending &= ~(1u << a);
         else
            pending_write(t, a);
      }
      t->cleared[a] = c;
      t->cleared_box[a] = b;
      hold = t->after_prims && (t->scene->discard & 1u << a);
      if (hold)
         t->pending |= 1u << a;
   } else {
      if (t->pending & SR_DISCARD_DEPTH_STENCIL) {
         if (box_contains(&b, &t->ds_pending_box) &&
             !(t->ds_pending->aspects & ~c->aspects))
            t->pending &= ~SR_DISCARD_DEPTH_STENCIL;
         else
            pending_write(t, a);
      }
      hold = t->after_prims && (t->scene->discard & SR_DISCARD_DEPTH_STENCIL);
      if (hold) {
         t->ds_pending = c;
         t->ds_pending_box = b;
         t->pending |= SR_DISCARD_DEPTH_STENCIL;
      }
   }
   if (!hold)
      clear_write(t, c, &b);
}

/* A RESOLVE on the tile's pixels. Pixels of a colour source that a CLEAR
 * since the last PRIM wrote take the resolve of that clear's value
 * (sr_resolve_run's `cleared`, no read of them; a held-back clear stays
 * unwritten); else a held-back clear of the source is written first.
 * Streamed stores after the last PRIM. */
static void tile_resolve(struct tile *t, const struct sr_resolve_cmd *r)
{
   const struct sr_clear_cmd *cleared = NULL;
   if (r->attachment != SR_ATTACHMENT_DEPTH_STENCIL && r->attachment < SR_MAX_COLOR_ATTACHMENTS &&
       t->cleared[r->attachment] &&
       t->fb.color[r->attachment].samples <= SR_RESOLVE_CLEARED_MAX_SAMPLES) {
      /* The pixels sr_resolve_run resolves here: the rect's and the
       * destination's inside the tile. */
      struct box b = rect_box(&r->rect);
      const struct box dst = {0, 0, (int32_t)r->dst.width - 1, (int32_t)r->dst.height - 1};
      if (box_intersect(&b, &t->box) && box_intersect(&b, &dst) &&
          box_contains(&t->cleared_box[r->attachment], &b))
         cleared = t->cleared[r->attachment];
   }
   if (!cleared && (r->attachment == SR_ATTACHMENT_DEPTH_STENCIL ||
                    r->attachment < SR_MAX_COLOR_ATTACHMENTS))
      pending_write(t, r->attachment);
   sr_resolve_run(&t->fb, r, t->layer, t->box.x0, t->box.y0, t->box.x1, t->box.y1, cleared,
                  t->after_prims);
}

/* ---- Primitives ---- */

/* One 4x4 block's coverage: cov[py * 4 + px], a sample mask per pixel;
 * pixels: bit py * 4 + px set where cov[py * 4 + px] != 0. */
struct block {
   int32_t x, y;
   uint32_t pixels;
   uint32_t cov[16];
};

/* The pixel bits of a block's 2x2 quads (quad_pos order). */
static const uint32_t quad_bits[4] = {0x0033, 0x00cc, 0x3300, 0xcc00};

/* Depth/stencil of one pixel's samples `cov` (FragDepth fd or the prim's
 * z), counting the samples that pass when an occlusion query listens. */
static uint32_t tile_depth_stencil(struct tile *t, const struct sr_prim *p, int32_t x, int32_t y,
                                   uint32_t cov, const float *fd)
{
   if (t->frag.ds_tests)
      return sr_fragment_depth_stencil(&t->frag, p, t->layer, x, y, cov, fd, &t->occ_count);
   if (t->occ_target)
      t->occ_count += (uint64_t)sr_popcount(cov);
   return cov;
}

/* Pixel of lane `lane` of quad (qx, qy) within the block: its cov index. */
static int lane_pixel(int qx, int qy, int lane)
{
   return (qy + ((lane >> 1) & 1)) * 4 + qx + (lane & 1);
}

/* The lane arrays the colour and depth/stencil routines get for W / 4
 * quads (corners qx[k], qy[k]; lane 4k + l at (qx[k] + (l & 1), qy[k] +
 * (l >> 1))) with coverage cov[i] less the lanes killed (bit i of kill),
 * stored a quad (16 bytes) at a time: the routines load them four lanes
 * at a time (llvm_backend.h fb_load_lanes4), so the loads take the stored
 * values instead of waiting for the stores to reach the cache. */
static inline __attribute__((always_inline)) void
quad_lanes(uint32_t W, const int32_t *qx, const int32_t *qy, const uint32_t *cov, uint32_t kill,
           int32_t *lx, int32_t *ly, uint32_t *lcov)
{
   const sr_v4u zero = {0, 0, 0, 0}, dx = {0, 1, 0, 1}, dy = {0, 0, 1, 1}, bit = {1, 2, 4, 8};
   for (uint32_t k = 0; k < W / 4; k++) {
      const sr_v4u x = zero + (uint32_t)qx[k] + dx, y = zero + (uint32_t)qy[k] + dy;
      sr_v4u c;
      memcpy(&c, cov + 4 * k, sizeof(c));
      c &= (sr_v4u)(((zero + (kill >> (4 * k))) & bit) == 0);
      memcpy(lx + 4 * k, &x, sizeof(x));
      memcpy(ly + 4 * k, &y, sizeof(y));
      memcpy(lcov + 4 * k, &c, sizeof(c));
   }
}

/* Runs the fragment shader on n quads of p (1 .. W / 4), quad k's corner
 * (qx[k], qy[k]) and lane 4k + l's coverage lcov_in[4k + l] (within
 * `sample_id`'s bit when shading one sample), shading sample `sample_id`
 * or whole pixels (~0u), then the late operations and the colour writes. */
static inline __attribute__((always_inline)) void
shade_quads(struct tile *t, const struct sr_prim *p, const int32_t *qx, const int32_t *qy,
            const uint32_t *lcov_in, uint32_t n, uint32_t sample_id)
{
   const struct sr_draw_state *st = p->draw->state;
   const struct sr_fragment_state *fs = &t->frag;
   struct sr_worker_scratch *sc = t->scratch;
   const uint32_t W = st->fs_width;
   const float(*pos)[2] = fs->positions;
   const uint32_t all = fs->samples >= 32 ? ~0u : (1u << fs->samples) - 1;

   struct shale_fs_quads q;
   q.kill_mask = 0;
   q.quad_count = n;
   q.front_facing = p->front_facing;
   q.primitive_id = p->primitive_id;
   q.layer = p->layer;
   q.viewport_index = p->viewport_index;
   q.sample_id = sample_id;
   q.planes = t->planes;
   q.point_coord = p->is_point ? p->point_coord : NULL;
   q.outputs = sc->fs_outputs;
   q.frag_depth = sc->frag_depth;
   q.sample_mask = sc->sample_mask;
   /* The quads' corners, one vector store an array (the shader loads
    * each with one vector load: llvm_stage.c pixel_coord). Quads past n
    * repeat the first (helpers). */
   {
      const sr_v4i vx = {qx[0], qx[n > 1 ? 1 : 0], qx[n > 2 ? 2 : 0], qx[n > 3 ? 3 : 0]};
      const sr_v4i vy = {qy[0], qy[n > 1 ? 1 : 0], qy[n > 2 ? 2 : 0], qy[n > 3 ? 3 : 0]};
      memcpy(q.x, &vx, sizeof(vx));
      memcpy(q.y, &vy, sizeof(vy));
   }
   for (uint32_t i = 0; i < W; i++)
      q.coverage[i] = i < n * 4 ? lcov_in[i] : 0;
   if (t->need_centroid) {
      for (uint32_t i = 0; i < W; i++) {
         const uint32_t cov = q.coverage[i];
         float cx = 0.5f, cy = 0.5f;
         if (sample_id != ~0u) {
            cx = pos[sample_id][0];
            cy = pos[sample_id][1];
         } else if (cov && cov != all) {
            uint32_t s = (uint32_t)__builtin_ctz(cov);
            cx = pos[s][0];
            cy = pos[s][1];
         }
         q.centroid[0][i] = (float)(q.x[i / 4] + (int32_t)(i & 1)) + cx;
         q.centroid[1][i] = (float)(q.y[i / 4] + (int32_t)((i >> 1) & 1)) + cy;
      }
   }
   if (t->fsi_target) {
      for (uint32_t i = 0; i < n * 4; i++)
         t->fsi_count += q.coverage[i] != 0;
   }
   st->fs(&p->draw->fs_ctx, &q);

   /* Coverage after the shader (discard, SampleMask, alpha to coverage,
    * late tests), then the colour writes of every lane. Lanes past the
    * quads have coverage 0. */
   const struct shale_fs_info *io = &st->fs_io;
   _Alignas(16) int32_t lx[SHALE_MAX_SIMD_WIDTH], ly[SHALE_MAX_SIMD_WIDTH];
   _Alignas(16) uint32_t lcov[SHALE_MAX_SIMD_WIDTH];
   const uint32_t lanes = n * 4;
   const uint32_t kill = q.kill_mask;
   quad_lanes(W, q.x, q.y, q.coverage, kill, lx, ly, lcov);
   if (!t->post_plain) {
      for (uint32_t i = 0; i < lanes; i++) {
         uint32_t cov = lcov[i];
         if (cov && io->writes_sample_mask)
            cov &= sc->sample_mask[i];
         if (cov && fs->alpha_to_coverage) {
            float alpha;
            memcpy(&alpha, &sc->fs_outputs[3 * W + i], sizeof(alpha));
            cov &= sr_alpha_to_coverage(alpha, fs->samples);
         }
         if (cov && !fs->early && !fs->compiled_ds)
            cov = tile_depth_stencil(t, p, lx[i], ly[i], cov,
                                     io->writes_frag_depth ? &sc->frag_depth[i] : NULL);
         lcov[i] = cov;
      }
   }
   if (!fs->early && fs->compiled_ds)
      t->occ_count += fs->compiled_ds(&fs->fb_ctx, &t->ds_prim, t->layer, lx, ly, lcov,
                                      sc->frag_depth, 0);
   if (fs->compiled) {
      /* The colour routine's rows promise (shader_abi.h): the quads side
       * by side (W 8: two in a row; W 16: a block's four in quad_pos
       * order), every sample of every lane covered. */
      uint32_t rows = lanes == W && (W == 4 || (q.x[1] == q.x[0] + 2 && q.y[1] == q.y[0]));
      if (W == 16)
         rows = rows && q.x[2] == q.x[0] && q.y[2] == q.y[0] + 2 && q.x[3] == q.x[0] + 2 &&
                q.y[3] == q.y[0] + 2;
      for (uint32_t i = 0; i < W && rows; i++)
         rows = lcov[i] == all;
      fs->compiled(&fs->fb_ctx, t->layer, lx, ly, lcov, sc->fs_outputs, rows);
      return;
   }
   sr_fragment_color(fs, t->layer, lx, ly, lcov, lanes, sc->fs_outputs, W);
}

/* The early depth/stencil tests of a block whose coverage blk->cov came
 * from sr_cover_block (already within the sample mask): blk->cov and
 * blk->pixels become what passed. full: every pixel has every sample the
 * mask allows; returns whether every pixel still has the same coverage
 * (blk->cov[0], 0 when nothing passed). */
static inline __attribute__((always_inline)) bool
block_early_tests(struct tile *t, const struct sr_prim *p, struct block *blk, bool full)
{
   const struct sr_fragment_state *fs = &t->frag;
   if (fs->early && fs->compiled_ds) {
      /* The block's rows, W / 4 a call (the routine's rows promise), its
       * coverage in place: calls whose lanes have no coverage are
       * skipped. */
      const uint32_t W = fs->ds_width;
      const uint32_t lanes = W >= 16 ? 0xffffu : (1u << W) - 1;
      const uint32_t cov0 = blk->cov[0];
      uint32_t passed = 0;
      for (uint32_t first = 0; first < 16; first += W) {
         if (!(blk->pixels >> first & lanes))
            continue;
         const int32_t x0 = blk->x, y0 = blk->y + (int32_t)(first / 4);
         passed += fs->compiled_ds(&fs->fb_ctx, &t->ds_prim, t->layer, &x0, &y0,
                                   blk->cov + first, NULL, 1);
      }
      t->occ_count += passed;
      /* A block of which every sample passed (the routines return the
       * samples that passed) kept its masks: no need to read them back.
       * Its samples: a full block's 16 pixels' cov0, a single-sample
       * block's one a pixel with coverage. */
      const uint32_t had = full                ? 16 * sr_popcount(cov0)
                           : fs->samples == 1 ? sr_popcount(blk->pixels)
                                              : ~0u;
      if (passed == had)
         return full;
      /* Four pixels a vector (the routine stored the masks a vector at a
       * time; scalar loads of them waited on the stores). */
      const sr_v4u first = (sr_v4u){0, 0, 0, 0} + blk->cov[0];
      uint32_t pixels = 0, same = 0;
      for (uint32_t r = 0; r < 4; r++) {
         sr_v4u v;
         memcpy(&v, blk->cov + 4 * r, sizeof(v));
         pixels |= sr_cover_signs((sr_v4u)(v != 0)) << (4 * r);
         same |= sr_cover_signs((sr_v4u)(v == first)) << (4 * r);
      }
      full = full && same == 0xffff;
      blk->pixels = pixels;
   } else if (fs->early && (fs->ds_tests || t->occ_target)) {
      uint32_t first = 0, pixels = 0;
      for (int i = 0; i < 16; i++) {
         if (blk->cov[i])
            blk->cov[i] = tile_depth_stencil(t, p, blk->x + (i & 3), blk->y + (i >> 2),
                                             blk->cov[i], NULL);
         if (!i)
            first = blk->cov[0];
         full = full && blk->cov[i] == first;
         pixels |= (uint32_t)(blk->cov[i] != 0) << i;
      }
      blk->pixels = pixels;
   }
   return full;
}

/* Shades the quads of the current primitive's batch (t->batch), if any. */
static inline __attribute__((always_inline)) void
batch_flush(struct tile *t, const struct sr_prim *p)
{
   if (!t->batch.n)
      return;
   shade_quads(t, p, t->batch.x, t->batch.y, t->batch.cov, t->batch.n, ~0u);
   t->batch.n = 0;
}

/* Shades the quads of a block after its early tests (block_early_tests);
 * full: every pixel has the coverage blk->cov[0]. A partly covered
 * block's quads (whole pixels) join the primitive's batch, so that a
 * call shades up to W / 4 quads of the primitive's small blocks (calls
 * of a partial block alone mostly had few live lanes); a full block's
 * quads, and each pass of per-sample shading, are shaded as their own
 * calls, W / 4 quads at a time. */
static inline __attribute__((always_inline)) void
shade_block_quads(struct tile *t, const struct sr_prim *p, struct block *blk, bool full)
{
   const struct sr_draw_state *st = p->draw->state;
   const struct sr_fragment_state *fs = &t->frag;
   static const int quad_pos[4][2] = {{0, 0}, {2, 0}, {0, 2}, {2, 2}};
   if (!blk->pixels)
      return;
   if (!st->fs)
      return;

   uint32_t W = st->fs_width ? st->fs_width : 4;
   uint32_t per_call = W / 4;
   if (!full && !fs->per_sample) {
      for (int k = 0; k < 4; k++) {
         if (!(blk->pixels & quad_bits[k]))
            continue;
         const uint32_t n = t->batch.n;
         t->batch.x[n] = blk->x + quad_pos[k][0];
         t->batch.y[n] = blk->y + quad_pos[k][1];
         /* Lanes 0, 1 and 2, 3: the quad's two rows (lane_pixel). */
         const uint32_t *row = blk->cov + quad_pos[k][1] * 4 + quad_pos[k][0];
         memcpy(&t->batch.cov[4 * n], row, 2 * sizeof(uint32_t));
         memcpy(&t->batch.cov[4 * n + 2], row + 4, 2 * sizeof(uint32_t));
         t->batch.n = n + 1;
         if (n + 1 == per_call)
            batch_flush(t, p);
      }
      return;
   }
   uint32_t passes = fs->per_sample ? fs->samples : 1;
   for (uint32_t s = 0; s < passes; s++) {
      uint32_t only = fs->per_sample ? 1u << s : ~0u;
      int32_t qx[4], qy[4];
      uint32_t qc[16];
      uint32_t n = 0;
      for (int k = 0; k < 4; k++) {
         if (full ? !(blk->cov[0] & only) : !(blk->pixels & quad_bits[k]))
            continue;
         uint32_t any = 0;
         for (int l = 0; l < 4; l++) {
            const uint32_t c = blk->cov[lane_pixel(quad_pos[k][0], quad_pos[k][1], l)] & only;
            qc[4 * n + (uint32_t)l] = c;
            any |= c;
         }
         if (!any)
            continue;
         qx[n] = blk->x + quad_pos[k][0];
         qy[n] = blk->y + quad_pos[k][1];
         n++;
      }
      for (uint32_t first = 0; first < n; first += per_call) {
         uint32_t count = n - first < per_call ? n - first : per_call;
         shade_quads(t, p, qx + first, qy + first, qc + 4 * first, count,
                     fs->per_sample ? s : ~0u);
      }
   }
}

/* shade_block_quads out of line, for the whole-block path's full blocks
 * whose tests dropped samples (rare); the common paths inline theirs. */
static __attribute__((noinline)) void
shade_block_quads_cold(struct tile *t, const struct sr_prim *p, struct block *blk, bool full)
{
   shade_block_quads(t, p, blk, full);
}

/* Shades one block whose coverage blk->cov came from sr_cover_block
 * (already within the sample mask); full: every pixel has every sample
 * the mask allows. */
static void shade_block(struct tile *t, const struct sr_prim *p, struct block *blk, bool full)
{
   full = block_early_tests(t, p, blk, full);
   shade_block_quads(t, p, blk, full);
}

/* The whole-block path: a full block (sr_cover_block said SR_COVER_FULL)
 * of a primitive whose shading needs no per-lane work besides the shader,
 * the compiled late depth/stencil routine if any and the compiled colour
 * routine (no early depth/stencil or occlusion work, no centroids, one
 * pass a pixel, coverage after the shader only less killed lanes). The call's fields that are the same for every such
 * block of the primitive are filled once (full_begin); a block sets only
 * the quads' positions. Same calls, same order, same lanes as shade_block's
 * full case: the quads in quad_pos order, W / 4 a call.
 * With the compiled early depth/stencil routine (full_path_ok_early) a
 * full block runs its tests first (block_early_tests, as shade_block
 * does) and takes the path when every pixel kept every sample (the
 * routine counts the occlusion samples); else shade_block_quads shades
 * what passed. */
struct full_path {
   struct shale_fs_quads q;
   uint32_t per_call;                   /* quads a call: W / 4, 1 .. 4 */
   uint32_t cov;                        /* every lane's coverage */
   uint32_t all;                        /* every sample of a pixel */
};

/* Whether p's full blocks may take the whole-block path (state of tile_prim). */
static bool full_path_ok(const struct tile *t, const struct sr_draw_state *st)
{
   const struct sr_fragment_state *fs = &t->frag;
   return st->fs && fs->compiled && t->post_plain && !t->need_centroid && !fs->per_sample &&
          !(fs->early && (fs->compiled_ds || fs->ds_tests || t->occ_target)) &&
          (st->fs_width == 4 || st->fs_width == 8 || st->fs_width == 16);
}

/* Whether p's full blocks may take the whole-block path after the
 * compiled early depth/stencil routine's tests. */
static bool full_path_ok_early(const struct tile *t, const struct sr_draw_state *st)
{
   const struct sr_fragment_state *fs = &t->frag;
   return st->fs && fs->compiled && t->post_plain && !t->need_centroid && !fs->per_sample &&
          fs->early && fs->compiled_ds &&
          (st->fs_width == 4 || st->fs_width == 8 || st->fs_width == 16);
}

static void full_begin(struct tile *t, const struct sr_prim *p, struct full_path *f, uint32_t cov)
{
   struct sr_worker_scratch *sc = t->scratch;
   const uint32_t W = p->draw->state->fs_width;
   f->per_call = W / 4;
   f->cov = cov;
   f->all = t->frag.samples >= 32 ? ~0u : (1u << t->frag.samples) - 1;
   f->q.quad_count = f->per_call;
   f->q.front_facing = p->front_facing;
   f->q.primitive_id = p->primitive_id;
   f->q.layer = p->layer;
   f->q.viewport_index = p->viewport_index;
   f->q.sample_id = ~0u;
   f->q.planes = t->planes;
   f->q.point_coord = p->is_point ? p->point_coord : NULL;
   f->q.outputs = sc->fs_outputs;
   f->q.frag_depth = sc->frag_depth;
   f->q.sample_mask = sc->sample_mask;
   for (uint32_t i = 0; i < W; i++)
      f->q.coverage[i] = cov;
}

static inline __attribute__((always_inline)) void
shade_full(struct tile *t, const struct sr_prim *p, struct full_path *f, int32_t bx,
                       int32_t by)
{
   const struct sr_draw_state *st = p->draw->state;
   const struct sr_fragment_state *fs = &t->frag;
   struct sr_worker_scratch *sc = t->scratch;
   const uint32_t per_call = f->per_call, W = per_call * 4;
   _Alignas(16) int32_t lx[SHALE_MAX_SIMD_WIDTH], ly[SHALE_MAX_SIMD_WIDTH];
   _Alignas(16) uint32_t lcov[SHALE_MAX_SIMD_WIDTH];
   if (t->fsi_target)
      t->fsi_count += 16;
   /* The call's quads' corners from `first` on (quad_pos order; entries
    * past the call's quads are not read), stored one vector an array:
    * the shader loads each with one vector load (llvm_stage.c
    * pixel_coord), which takes the stored value. */
   static const sr_v4i quad_dx[4] = {{0, 2, 0, 2}, {2, 0, 2, 0}, {0, 2, 0, 2}, {2, 0, 2, 0}};
   static const sr_v4i quad_dy[4] = {{0, 0, 2, 2}, {0, 2, 2, 0}, {2, 2, 0, 0}, {2, 0, 0, 0}};
   for (uint32_t first = 0; first < 4; first += per_call) {
      const sr_v4i vx = quad_dx[first] + bx, vy = quad_dy[first] + by;
      memcpy(f->q.x, &vx, sizeof(vx));
      memcpy(f->q.y, &vy, sizeof(vy));
      f->q.kill_mask = 0;
      st->fs(&p->draw->fs_ctx, &f->q);
      const uint32_t kill = f->q.kill_mask;
      /* The colour routine's rows promise (shader_abi.h): the quads of a
       * call side by side (quad_pos order), every sample of every lane
       * covered. Without a late depth/stencil routine the promise needs
       * no lane arrays: lane 0 is at the first quad's corner. */
      uint32_t rows = f->cov == f->all && !kill;
      if (rows && (fs->early || !fs->compiled_ds)) {
         fs->compiled(&fs->fb_ctx, t->layer, f->q.x, f->q.y, f->q.coverage, sc->fs_outputs, 1);
         continue;
      }
      quad_lanes(W, f->q.x, f->q.y, f->q.coverage, kill, lx, ly, lcov);
      if (!fs->early && fs->compiled_ds) {
         t->occ_count += fs->compiled_ds(&fs->fb_ctx, &t->ds_prim, t->layer, lx, ly, lcov,
                                         sc->frag_depth, 0);
         for (uint32_t i = 0; i < W && rows; i++)
            rows = lcov[i] == f->all;
      }
      fs->compiled(&fs->fb_ctx, t->layer, lx, ly, lcov, sc->fs_outputs, rows);
   }
}

/* shade_full for every block of box b (whole blocks, each full) in the
 * block loop's order, for W 16 (a block a call) with every sample of
 * every lane covered and no late depth/stencil routine (f->cov ==
 * f->all; the early tests, if any, already done): each call the
 * shader's, then the colour routine's with the rows promise unless the
 * shader killed a lane (then shade_full's lane arrays). The same calls
 * with the same arguments as shade_full makes, with what they read from
 * the tile and the draw loaded once, in registers across the calls (in
 * tile_prim they were reloaded, block by block, from the stack). */
static __attribute__((noinline)) void
shade_full_box16(struct tile *t, const struct sr_prim *p, struct full_path *f, const struct box *b)
{
   const shale_fs_fn shade = p->draw->state->fs;
   const struct shale_fs_context *fs_ctx = &p->draw->fs_ctx;
   const shale_fb_color_fn color = t->frag.compiled;
   const struct shale_fb_context *fb_ctx = &t->frag.fb_ctx;
   const uint32_t layer = t->layer;
   const uint32_t *outputs = t->scratch->fs_outputs;
   struct shale_fs_quads *q = &f->q;
   const sr_v4i dx = {0, 2, 0, 2}, dy = {0, 0, 2, 2};
   const int32_t x0 = b->x0, x1 = b->x1, y1 = b->y1;
   for (int32_t by = b->y0; by <= y1; by += 4) {
      for (int32_t bx = x0; bx <= x1; bx += 4) {
         const sr_v4i vx = dx + bx, vy = dy + by;
         memcpy(q->x, &vx, sizeof(vx));
         memcpy(q->y, &vy, sizeof(vy));
         q->kill_mask = 0;
         shade(fs_ctx, q);
         if (__builtin_expect(q->kill_mask != 0, 0)) {
            _Alignas(16) int32_t lx[16], ly[16];
            _Alignas(16) uint32_t lcov[16];
            quad_lanes(16, q->x, q->y, q->coverage, q->kill_mask, lx, ly, lcov);
            color(fb_ctx, layer, lx, ly, lcov, outputs, 0);
         } else {
            color(fb_ctx, layer, q->x, q->y, q->coverage, outputs, 1);
         }
      }
   }
   if (t->fsi_target)
      t->fsi_count += 16 * (uint64_t)((x1 - x0) / 4 + 1) * (uint64_t)((y1 - b->y0) / 4 + 1);
}

static void tile_prim(struct tile *t, const struct sr_prim *p)
{
   const struct sr_draw_snapshot *snap = p->draw;
   const struct sr_draw_state *st = snap->state;
   bool facts = false;
   if (t->frag_key != st) {
      sr_fragment_setup(&t->frag, &t->fb, st);
      t->frag_key = st;
      t->need_centroid = false;
      if (st->fs && !t->frag.per_sample) {
         for (unsigned k = 0; k < SHALE_FS_INPUT_COMPONENTS; k++)
            t->need_centroid |= (st->fs_io.interp[k] & SHALE_INTERP_CENTROID) != 0;
      }
      facts = true;
   }
   if (t->occ_target != snap->occlusion || t->fsi_target != snap->fs_invocations) {
      counts_add(t);
      t->occ_target = snap->occlusion;
      t->fsi_target = snap->fs_invocations;
      facts = true;
   }
   if (facts) {
      t->post_plain = st->fs && !st->fs_io.writes_sample_mask && !t->frag.alpha_to_coverage &&
                      (t->frag.early || t->frag.compiled_ds ||
                       (!t->frag.ds_tests && !t->occ_target));
      t->full_ok = full_path_ok(t, st);
      t->full_early = !t->full_ok && full_path_ok_early(t, st);
   }
   struct box b = {p->min_x, p->min_y, p->max_x, p->max_y};
   if (!box_intersect(&b, &t->box))
      return;
   if (t->frag.compiled_ds) {
      t->ds_prim.z = p->z;
      t->ds_prim.depth_min = p->depth_min;
      t->ds_prim.depth_max = p->depth_max;
      t->ds_prim.front_facing = p->front_facing;
   }

   /* The ABI's plane array: z, 1/w, then every input component's slot. */
   if (st->fs) {
      if (t->plane_snap != snap) {
         /* The components read, sixteen at a time (a byte compare): a
          * tile's first primitive of each draw scans all of them. */
         t->plane_snap = snap;
         uint32_t n = 0;
         bool direct = true;
         for (unsigned k0 = 0; k0 < SHALE_FS_INPUT_COMPONENTS; k0 += 16) {
            uint32_t used = 0;
            for (unsigned j = 0; j < 16 && k0 + j < SHALE_FS_INPUT_COMPONENTS; j++)
               used |= (uint32_t)(snap->plane_index[k0 + j] != 0xff) << j;
            while (used) {
               const unsigned k = k0 + (unsigned)__builtin_ctz(used);
               used &= used - 1;
               t->plane_slot[n] = (uint8_t)k;
               t->plane_src[n] = snap->plane_index[k];
               direct &= k + 2u == snap->plane_index[k];
               n++;
            }
         }
         t->plane_count = n;
         t->plane_direct = direct;
      }
      if (t->plane_direct) {
         t->planes = p->planes;
      } else {
         struct shale_fs_plane *planes = t->scratch->planes;
         planes[0] = p->planes[0];
         planes[1] = p->planes[1];
         for (uint32_t i = 0; i < t->plane_count; i++)
            planes[2 + t->plane_slot[i]] = p->planes[t->plane_src[i]];
         t->planes = planes;
      }
   }

   if (t->cover_samples.samples != t->frag.samples)
      sr_cover_samples_init(&t->cover_samples, t->frag.samples);
   struct sr_cover cv;
   sr_cover_init(&cv, p, &t->cover_samples, st->sample_mask, b.x0, b.y0, b.x1, b.y1);
   /* The whole-block path, set up at the primitive's first full block. */
   const bool full_ok = t->full_ok, full_early = t->full_early;
   bool full_ready = false;
   struct full_path f;
   /* The edge functions stepped from block to block (exact 64-bit sums,
    * the values sr_cover_block_pixels computes per block). */
   int64_t e_row[3], step_x[3], step_y[3];
   sr_cover_block_edges(&cv, b.x0 & ~3, b.y0 & ~3, e_row);
   /* Edges whose values do not grow to the right: a block one of them
    * rejects (its largest value < 0) ends its row, every later block's
    * largest value being no larger. */
   uint32_t ends_row = 0;
   for (int i = 0; i < 3; i++) {
      step_x[i] = p->a[i] * SR_COVER_BLOCK_STEP;
      step_y[i] = p->b[i] * SR_COVER_BLOCK_STEP;
      ends_row |= (uint32_t)(step_x[i] <= 0) << i;
   }
   /* Block origins whose 4x4 pixels the clip box holds: columns
    * in_x0 .. in_x1 (multiples of 4) of rows in_y0 .. in_y1. */
   const int32_t in_x0 = (b.x0 + 3) & ~3, in_x1 = b.x1 - 3;
   const int32_t in_y0 = (b.y0 + 3) & ~3, in_y1 = b.y1 - 3;
   /* A box of whole blocks wholly inside the primitive (a tile inside a
    * large triangle): each edge's values grow linearly from block to
    * block, so its smallest value over the box's blocks is at a corner
    * block, and when the four corners are full every block is. Then the
    * blocks go to the whole-block path straight away, in the loop's order
    * (the same calls as the loop below makes), without classifying each. */
   if (full_ok && cv.all && !(b.x0 & 3) && !(b.y0 & 3) && !((b.x1 + 1) & 3) &&
       !((b.y1 + 1) & 3)) {
      const int64_t last_x = (b.x1 - b.x0) / 4, last_y = (b.y1 - b.y0) / 4;
      bool inside = true;
      for (int i = 0; i < 3; i++) {
         const int64_t lo = e_row[i] + cv.lo_off[i];
         const int64_t dx = step_x[i] * last_x, dy = step_y[i] * last_y;
         inside = inside && lo >= 0 && lo + dx >= 0 && lo + dy >= 0 && lo + dx + dy >= 0;
      }
      if (inside) {
         full_begin(t, p, &f, cv.all);
         if (f.per_call == 4 && f.cov == f.all && (t->frag.early || !t->frag.compiled_ds)) {
            shade_full_box16(t, p, &f, &b);
         } else {
            for (int32_t by = b.y0; by <= b.y1; by += 4)
               for (int32_t bx = b.x0; bx <= b.x1; bx += 4)
                  shade_full(t, p, &f, bx, by);
         }
         batch_flush(t, p);
         return;
      }
   }
   /* (No sample in the mask: nothing is covered.) */
   for (int32_t by = b.y0 & ~3; cv.all && by <= b.y1; by += 4) {
      int64_t e[3] = {e_row[0], e_row[1], e_row[2]};
      for (int i = 0; i < 3; i++)
         e_row[i] += step_y[i];
      const bool row_in = by >= in_y0 && by <= in_y1;
      for (int32_t bx = b.x0 & ~3; bx <= b.x1; bx += 4) {
         /* The block's class from its edges' extremes, as
          * sr_cover_block_pixels_e finds it: rejected when an edge's
          * largest value is < 0, full when every edge's smallest is
          * >= 0 and the clip box holds it (every pixel then has every
          * sample of cv.all: no per-sample work, and the whole-block
          * path needs no masks). */
         uint32_t out = 0, in = 0;
         for (int i = 0; i < 3; i++) {
            out |= (uint32_t)(e[i] + cv.hi_off[i] < 0) << i;
            in |= (uint32_t)(e[i] + cv.lo_off[i] >= 0) << i;
         }
         struct block blk;
         blk.x = bx;
         blk.y = by;
         uint32_t c;
         if (out) {
            if (out & ends_row)
               break;
            /* Every edge rejecting it grows to the right: the blocks up
             * to where the last of them reaches 0 (its largest value
             * hi + k * step_x >= 0 from k = ceil(-hi / step_x) on) are
             * rejected too. k is at most the blocks left in the row, so
             * the steps stay exact. */
            const int64_t left = (b.x1 - bx) / 4 + 1;
            int64_t k = 1;
            for (int i = 0; i < 3; i++) {
               if (out >> i & 1) {
                  const int64_t need = (-(e[i] + cv.hi_off[i]) + step_x[i] - 1) / step_x[i];
                  k = need > k ? need : k;
               }
            }
            if (k >= left)
               break;
            for (int i = 0; i < 3; i++)
               e[i] += step_x[i] * k;
            bx += 4 * ((int32_t)k - 1);
            continue;
         } else if (in == 7 && row_in && bx >= in_x0 && bx <= in_x1) {
            c = SR_COVER_FULL;
            if (!full_ok) {
               sr_cover_spread(0xffff, cv.all, blk.cov);
               blk.pixels = 0xffff;
            }
         } else {
            c = sr_cover_block_pixels_e(&cv, bx, by, e, blk.cov, &blk.pixels);
         }
         for (int i = 0; i < 3; i++)
            e[i] += step_x[i];
         if (c == SR_COVER_FULL && full_ok) {
            if (!full_ready) {
               full_begin(t, p, &f, cv.all);
               full_ready = true;
            }
            shade_full(t, p, &f, bx, by);
         } else if (c == SR_COVER_FULL && full_early) {
            const bool same = block_early_tests(t, p, &blk, true);
            if (same && blk.cov[0] == cv.all) {
               if (!full_ready) {
                  full_begin(t, p, &f, cv.all);
                  full_ready = true;
               }
               shade_full(t, p, &f, bx, by);
            } else {
               shade_block_quads_cold(t, p, &blk, same);
            }
         } else if (c) {
            shade_block(t, p, &blk, c == SR_COVER_FULL);
         }
      }
   }
   batch_flush(t, p);
}

/* ---- Tile memory ---- */

/* Attachment bit (SR_DISCARD_* layout) of a clear or resolve's attachment;
 * 0 for none. */
static uint32_t attachment_bit(uint32_t a)
{
   return a == SR_ATTACHMENT_DEPTH_STENCIL ? SR_DISCARD_DEPTH_STENCIL
          : a < SR_MAX_COLOR_ATTACHMENTS   ? 1u << a
                                           : 0;
}

/* Puts surface *s's pixels of this tile (layer t->layer) at *mem: the
 * surface's base and pitches change so that every address the tile's
 * code computes for its pixels (base + layer * layer_pitch + y * row_pitch
 * + (x * samples + s) * texel size) falls inside the SR_TILE_SIZE-square
 * region there. Returns false (nothing changed) when the region does not
 * fit in the room left. */
static bool tile_memory_place(const struct tile *t, struct sr_surface *s, uint8_t *mem,
                              size_t *used)
{
   const uint64_t texel = (uint64_t)s->samples * s->format->block_size;
   const uint64_t row_pitch = SR_TILE_SIZE * texel, layer_pitch = SR_TILE_SIZE * row_pitch;
   if (s->format->block_width != 1 || s->format->block_height != 1 ||
       *used + layer_pitch > SR_TILE_MEM_BYTES)
      return false;
   const uint64_t origin = (uint64_t)t->layer * layer_pitch + (uint64_t)t->box.y0 * row_pitch +
                           (uint64_t)t->box.x0 * texel;
   /* Pointer arithmetic on integers: the base itself lies outside the
    * buffer (as a layer's base lies before its pixels), never dereferenced. */
   s->base = (uint8_t *)((uintptr_t)(mem + *used) - (uintptr_t)origin);
   s->row_pitch = row_pitch;
   s->layer_pitch = layer_pitch;
   *used += layer_pitch;
   return true;
}

/* Tile memory: where the flush discards an attachment (store op
 * DONT_CARE at the instance's last flush: its contents afterwards are
 * undefined) or the driver lets a stored one live there
 * (sr_scene_set_tile_memory), and the tile's commands before its first
 * PRIM clear all of it (every pixel of the tile, every aspect the
 * surfaces have), nothing in the tile reads what the attachment held
 * before. Its tile then lives in the worker's buffer
 * (sr_worker_scratch.tile_mem, SR_TILE_MEM_BYTES, reused tile after tile,
 * so it stays in the cache) instead of the attachment's memory: the
 * clears, the draws' depth/stencil and colour operations and the
 * resolves (which read it) use t->fb, whose surface points there. A
 * discarded attachment's memory is never touched (a 4x colour and depth
 * pair of 640x480 is 9.8 MB a frame otherwise written, read and written
 * again); a stored one's tile is written back once at the tile's end
 * (tile_memory_write_back: whole lines streamed, no read for ownership),
 * where it was cleared in memory (lines read for ownership), drawn, and
 * evicted later (vkcube's colour: the clear's misses were a tenth of the
 * frame). The bytes in memory after the flush are the same: every pixel
 * of the tile was written in the tile (the clear covers it). The
 * resolves' destinations are the application's images, as before.
 * Subpass inputs read attachments through their image descriptors, so
 * sd_cmd_render.c leaves the subpass's input attachments out of both
 * masks. */
static void tile_memory(struct tile *t, const struct sr_bin *bin)
{
   const uint32_t discard = t->scene->discard;
   const uint32_t allowed = discard | t->scene->tile_memory;
   if (!allowed || !bin->prims_end)
      return;
   struct sr_framebuffer *fb = &t->fb;
   const struct sr_surface *d = fb->depth.base ? &fb->depth : NULL;
   const struct sr_surface *st = fb->stencil.base ? &fb->stencil : NULL;
   const VkImageAspectFlags ds = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
   const VkImageAspectFlags ds_aspects =
      (d ? d->format->aspects & ds : 0) | (st ? st->format->aspects & ds : 0);
   uint32_t cleared = 0;
   for (const struct sr_bin_chunk *c = bin->first; c; c = c->next) {
      for (uint32_t i = 0; i < c->count; i++) {
         if (c->cmds[i].kind != SR_CMD_CLEAR)
            goto scanned;
         const struct sr_clear_cmd *cl = c->cmds[i].clear;
         if (t->layer < cl->base_layer || t->layer - cl->base_layer >= cl->layer_count)
            continue;
         struct box b = rect_box(&cl->rect);
         if (!box_intersect(&b, &t->box) || !box_contains(&b, &t->box))
            continue;
         if (cl->attachment == SR_ATTACHMENT_DEPTH_STENCIL && (ds_aspects & ~cl->aspects))
            continue;
         cleared |= attachment_bit(cl->attachment);
      }
   }
scanned:
   cleared &= allowed;
   if (!cleared)
      return;
   uint8_t *mem = t->scratch->tile_mem;
   size_t used = 0;
   for (uint32_t a = 0; a < fb->color_count && a < SR_MAX_COLOR_ATTACHMENTS; a++) {
      if ((cleared & 1u << a) && fb->color[a].base &&
          tile_memory_place(t, &fb->color[a], mem, &used))
         t->in_tile_mem |= 1u << a;
   }
   if (cleared & SR_DISCARD_DEPTH_STENCIL) {
      if (d && st && d->base == st->base) {
         if (tile_memory_place(t, &fb->depth, mem, &used)) {
            fb->stencil.base = fb->depth.base;
            fb->stencil.row_pitch = fb->depth.row_pitch;
            fb->stencil.layer_pitch = fb->depth.layer_pitch;
            t->in_tile_mem |= SR_DISCARD_DEPTH_STENCIL;
         }
      } else {
         /* Both or neither: a depth/stencil clear writes both. */
         const size_t before = used;
         struct sr_surface dd = fb->depth, ss = fb->stencil;
         if ((!d || tile_memory_place(t, &dd, mem, &used)) &&
             (!st || tile_memory_place(t, &ss, mem, &used))) {
            fb->depth = dd;
            fb->stencil = ss;
            t->in_tile_mem |= SR_DISCARD_DEPTH_STENCIL;
         } else {
            used = before;
         }
      }
   }
   t->write_back = t->in_tile_mem & ~discard;
}

/* Surface *m's pixels of the tile (in tile memory) into *s, the
 * attachment it stands for. */
static void surface_write_back(const struct tile *t, const struct sr_surface *m,
                               const struct sr_surface *s)
{
   const uint64_t texel = (uint64_t)s->samples * s->format->block_size;
   const uint64_t off_m = (uint64_t)t->layer * m->layer_pitch + (uint64_t)t->box.y0 * m->row_pitch +
                          (uint64_t)t->box.x0 * texel;
   const uint64_t off_s = (uint64_t)t->layer * s->layer_pitch + (uint64_t)t->box.y0 * s->row_pitch +
                          (uint64_t)t->box.x0 * texel;
   /* m's base lies outside the buffer (tile_memory_place): the address
    * of the tile's first pixel is formed on integers. */
   const uint8_t *src = (const uint8_t *)((uintptr_t)m->base + (uintptr_t)off_m);
   sr_copy_rows_stream(s->base + off_s, s->row_pitch, src, m->row_pitch,
                       (size_t)(t->box.x1 - t->box.x0 + 1) * texel,
                       (uint32_t)(t->box.y1 - t->box.y0 + 1));
}

/* The tile's end: the stored attachments in tile memory go to their
 * memory (every pixel of the tile: the clear that put them there wrote
 * them all). */
static void tile_memory_write_back(const struct tile *t)
{
   const struct sr_framebuffer *fb = &t->scene->fb;
   for (uint32_t a = 0; a < SR_MAX_COLOR_ATTACHMENTS; a++)
      if (t->write_back & 1u << a)
         surface_write_back(t, &t->fb.color[a], &fb->color[a]);
   if (t->write_back & SR_DISCARD_DEPTH_STENCIL) {
      if (fb->depth.base)
         surface_write_back(t, &t->fb.depth, &fb->depth);
      if (fb->stencil.base && fb->stencil.base != fb->depth.base)
         surface_write_back(t, &t->fb.stencil, &fb->stencil);
   }
}

void sr_tile_run(struct sr_scene *scene, uint32_t layer, uint32_t tx, uint32_t ty,
                 unsigned worker)
{
   struct tile t;
   memset(&t, 0, sizeof(t));
   t.scene = scene;
   t.layer = layer;
   t.scratch = scene->ctx->scratch[worker];
   t.box.x0 = (int32_t)(tx * SR_TILE_SIZE);
   t.box.y0 = (int32_t)(ty * SR_TILE_SIZE);
   t.box.x1 = t.box.x0 + SR_TILE_SIZE - 1;
   t.box.y1 = t.box.y0 + SR_TILE_SIZE - 1;
   if (t.box.x1 >= (int32_t)scene->fb.width)
      t.box.x1 = (int32_t)scene->fb.width - 1;
   if (t.box.y1 >= (int32_t)scene->fb.height)
      t.box.y1 = (int32_t)scene->fb.height - 1;
   if (t.box.x0 > t.box.x1 || t.box.y0 > t.box.y1)
      return;

   const struct sr_bin *bin = &scene->bins[((uint64_t)layer * scene->tiles_y + ty) *
                                           scene->tiles_x + tx];
   t.fb = scene->fb;
   tile_memory(&t, bin);
   /* Ahead of a primitive: the second next command's primitive (both
    * lines) and the next one's planes are prefetched (tiny primitives,
    * as the demo's torus: otherwise tile_prim's first reads of them were
    * its hottest loads). Measured and not kept before: the fourth next
    * primitive and the second next one's planes, no measurable gain on
    * bench_render scene (a) at SHALE_THREADS=1 (CPU ms a frame, medians of
    * 6 alternated runs at load 2.2 to 1.7: 352 without, 356 with). */
   uint32_t pos = 0;
   for (const struct sr_bin_chunk *c = bin->first; c; c = c->next) {
      for (uint32_t i = 0; i < c->count; i++, pos++) {
         const struct sr_cmd *cmd = &c->cmds[i];
         t.after_prims = pos >= bin->prims_end;
         switch (cmd->kind) {
         case SR_CMD_PRIM:
            /* Nothing is held back before the last primitive. */
            memset(t.cleared, 0, sizeof(t.cleared));
            if (i + 2 < c->count && cmd[2].kind == SR_CMD_PRIM) {
               const char *p2 = (const char *)cmd[2].prim;
               __builtin_prefetch(p2);
               __builtin_prefetch(p2 + 64);
            }
            if (i + 1 < c->count && cmd[1].kind == SR_CMD_PRIM) {
               const char *planes = (const char *)cmd[1].prim->planes;
               __builtin_prefetch(planes);
               __builtin_prefetch(planes + 64);
            }
            tile_prim(&t, cmd->prim);
            break;
         case SR_CMD_CLEAR: tile_clear(&t, cmd->clear); break;
         case SR_CMD_RESOLVE: tile_resolve(&t, cmd->resolve); break;
         }
      }
   }
   if (t.write_back)
      tile_memory_write_back(&t);
   counts_add(&t);
}
