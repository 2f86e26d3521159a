/* Rasterizer context and scenes: begin, commands, flush, end. */
#include "sr_front.h"

#include <stdlib.h>
#include <string.h>

#include "util/su_thread_pool.h"

static void scene_free(struct sr_scene *scene);

VkResult
sr_context_create(struct su_thread_pool *pool, const VkAllocationCallbacks *alloc,
                  struct sr_context **out)
{
   struct sr_context *ctx = sr_zalloc(alloc, sizeof(*ctx), 16);
   if (!ctx)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   ctx->pool = pool;
   ctx->alloc = alloc;
   sr_block_pool_init(&ctx->blocks, alloc);
   ctx->workers = su_thread_pool_size(pool);
   ctx->scratch = sr_zalloc(alloc, ctx->workers * sizeof(*ctx->scratch), 16);
   if (!ctx->scratch) {
      sr_context_destroy(ctx);
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   }
   for (unsigned i = 0; i < ctx->workers; i++) {
      ctx->scratch[i] = sr_zalloc(alloc, sizeof(struct sr_worker_scratch), SHALE_MEMORY_ALIGN);
      if (!ctx->scratch[i]) {
         sr_context_destroy(ctx);
         return VK_ERROR_OUT_OF_HOST_MEMORY;
      }
   }
   *out = ctx;
   return VK_SUCCESS;
}

void
sr_context_set_cancel(struct sr_context *ctx, const uint32_t *cancel)
{
   ctx->cancel = cancel;
}

void
sr_context_destroy(struct sr_context *ctx)
{
   if (!ctx)
      return;
   if (ctx->spare)
      scene_free(ctx->spare);
   sr_block_pool_finish(&ctx->blocks);
   for (unsigned i = 0; ctx->scratch && i < ctx->workers; i++)
      sr_free(ctx->alloc, ctx->scratch[i]);
   sr_free(ctx->alloc, ctx->scratch);
   sr_free(ctx->alloc, ctx);
}

/* ---- Scene ---- */

static VkRect2D
rect_clip(VkRect2D r, uint32_t width, uint32_t height)
{
   int64_t x0 = r.offset.x, y0 = r.offset.y;
   int64_t x1 = x0 + r.extent.width, y1 = y0 + r.extent.height;
   if (x0 < 0)
      x0 = 0;
   if (y0 < 0)
      y0 = 0;
   if (x1 > width)
      x1 = width;
   if (y1 > height)
      y1 = height;
   VkRect2D out = {{(int32_t)x0, (int32_t)y0}, {0, 0}};
   if (x1 > x0 && y1 > y0)
      out.extent = (VkExtent2D){(uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
   return out;
}

/* (Re)sizes the bins for the framebuffer; bins are empty afterwards. */
static VkResult
scene_size_bins(struct sr_scene *scene)
{
   uint32_t tx = (scene->fb.width + SR_TILE_SIZE - 1) / SR_TILE_SIZE;
   uint32_t ty = (scene->fb.height + SR_TILE_SIZE - 1) / SR_TILE_SIZE;
   size_t n = (size_t)tx * ty * scene->layer_count;
   if (!scene->bins || n > scene->bins_cap) {
      struct sr_bin *bins = sr_zalloc(scene->ctx->alloc, (n ? n : 1) * sizeof(*bins), 16);
      if (!bins)
         return VK_ERROR_OUT_OF_HOST_MEMORY;
      sr_free(scene->ctx->alloc, scene->bins);
      scene->bins = bins;
      scene->bins_cap = n ? n : 1;
   } else {
      memset(scene->bins, 0, n * sizeof(*scene->bins));
   }
   scene->tiles_x = tx;
   scene->tiles_y = ty;
   return VK_SUCCESS;
}

/* Frees a scene that has no commands left. */
static void
scene_free(struct sr_scene *scene)
{
   sr_front_finish(scene);
   sr_arena_finish(&scene->arena);
   sr_free(scene->ctx->alloc, scene->bins);
   sr_free(scene->ctx->alloc, scene);
}

/* The most front-end buffer memory (vertex records, index arrays) an ended
 * scene may keep for the next one; a larger one is freed. */
#define SR_SPARE_FRONT_MAX_BYTES ((size_t)64 << 20)
/* The same for its bins (many layers make many). */
#define SR_SPARE_BINS_MAX_BYTES ((size_t)4 << 20)

static size_t
front_bytes(const struct sr_front *f)
{
   return f->verts_cap * sizeof(float) + f->pos_cap * (3 * sizeof(uint32_t) + 1) +
          f->map_cap * sizeof(uint32_t);
}

VkResult
sr_scene_begin(struct sr_context *ctx, const struct sr_framebuffer *fb, const VkRect2D *render_area,
               uint32_t layer_count, struct sr_scene **out)
{
   /* The last ended scene's memory (bins, arenas, front buffers), already
    * touched, when there is one. */
   pthread_mutex_lock(&ctx->blocks.lock);
   struct sr_scene *scene = ctx->spare;
   ctx->spare = NULL;
   pthread_mutex_unlock(&ctx->blocks.lock);
   if (scene) {
      struct sr_scene keep = *scene;
      memset(scene, 0, sizeof(*scene));
      scene->ctx = ctx;
      scene->arena = keep.arena;
      scene->bins = keep.bins;
      scene->bins_cap = keep.bins_cap;
      scene->front = keep.front;
   } else {
      scene = sr_zalloc(ctx->alloc, sizeof(*scene), 16);
      if (!scene)
         return VK_ERROR_OUT_OF_HOST_MEMORY;
      scene->ctx = ctx;
      sr_arena_init(&scene->arena, ctx->alloc, &ctx->blocks);
   }
   scene->fb = *fb;
   scene->render_area = rect_clip(*render_area, fb->width, fb->height);
   scene->layer_count = layer_count ? layer_count : 1;
   VkResult r = scene_size_bins(scene);
   if (r == VK_SUCCESS && !scene->front)
      r = sr_front_init(scene);
   if (r != VK_SUCCESS) {
      scene_free(scene);
      return r;
   }
   *out = scene;
   return VK_SUCCESS;
}

/* Bins cmd over rect (clipped to the render area) on layers [base, base + count). */
static VkResult
bin_rect(struct sr_scene *scene, VkRect2D rect, uint32_t base_layer, uint32_t layer_count,
         struct sr_cmd cmd)
{
   VkRect2D r = rect_clip(rect, scene->fb.width, scene->fb.height);
   VkRect2D ra = scene->render_area;
   int32_t x0 = r.offset.x > ra.offset.x ? r.offset.x : ra.offset.x;
   int32_t y0 = r.offset.y > ra.offset.y ? r.offset.y : ra.offset.y;
   int32_t x1 = r.offset.x + (int32_t)r.extent.width;
   int32_t y1 = r.offset.y + (int32_t)r.extent.height;
   if (x1 > ra.offset.x + (int32_t)ra.extent.width)
      x1 = ra.offset.x + (int32_t)ra.extent.width;
   if (y1 > ra.offset.y + (int32_t)ra.extent.height)
      y1 = ra.offset.y + (int32_t)ra.extent.height;
   if (x1 <= x0 || y1 <= y0)
      return VK_SUCCESS;
   for (uint32_t l = base_layer; l < base_layer + layer_count && l < scene->layer_count; l++) {
      VkResult res = sr_bin_box(scene, l, x0, y0, x1 - 1, y1 - 1, cmd);
      if (res != VK_SUCCESS)
         return res;
   }
   return VK_SUCCESS;
}

VkResult
sr_scene_clear(struct sr_scene *scene, uint32_t attachment, VkImageAspectFlags aspects,
               const VkClearValue *value, const VkRect2D *rect, uint32_t base_layer,
               uint32_t layer_count)
{
   struct sr_clear_cmd *c = sr_arena_alloc(&scene->arena, sizeof(*c));
   if (!c)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   *c = (struct sr_clear_cmd){
      .attachment = attachment,
      .aspects = aspects,
      .value = *value,
      .rect = *rect,
      .base_layer = base_layer,
      .layer_count = layer_count,
   };
   return bin_rect(scene, *rect, base_layer, layer_count,
                   (struct sr_cmd){.kind = SR_CMD_CLEAR, .clear = c});
}

VkResult
sr_scene_resolve(struct sr_scene *scene, uint32_t attachment, const struct sr_surface *dst)
{
   struct sr_resolve_cmd *c = sr_arena_alloc(&scene->arena, sizeof(*c));
   if (!c)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   *c = (struct sr_resolve_cmd){
      .attachment = attachment,
      .dst = *dst,
      .rect = scene->render_area,
      .layer_count = scene->layer_count,
   };
   const struct sr_cmd cmd = {.kind = SR_CMD_RESOLVE, .resolve = c};
   for (uint32_t l = 0; l < scene->layer_count; l++) {
      if (!sr_scene_resolves_layer(scene, l))
         continue;
      VkResult res = bin_rect(scene, scene->render_area, l, 1, cmd);
      if (res != VK_SUCCESS)
         return res;
   }
   return VK_SUCCESS;
}

void
sr_scene_set_discard(struct sr_scene *scene, uint32_t mask)
{
   scene->discard = mask;
}

void
sr_scene_set_tile_memory(struct sr_scene *scene, uint32_t mask)
{
   scene->tile_memory = mask;
}

void
sr_scene_set_view_mask(struct sr_scene *scene, uint32_t view_mask)
{
   scene->view_mask = view_mask;
}

/* The draw's immutable snapshot (state shared with the last draw when equal). */
static struct sr_draw_snapshot *
snapshot(struct sr_scene *scene, const struct sr_draw_state *state,
         const struct sr_draw_bindings *bindings, const struct sr_draw *draw)
{
   const struct sr_draw_state *st = scene->last_state;
   if (!st || memcmp(st, state, sizeof(*state)) != 0) {
      struct sr_draw_state *copy = sr_arena_alloc(&scene->arena, sizeof(*copy));
      if (!copy)
         return NULL;
      memcpy(copy, state, sizeof(*copy));
      scene->last_state = st = copy;
   }
   struct sr_draw_snapshot *s = sr_arena_alloc(&scene->arena, sizeof(*s));
   uint8_t *pc = sr_arena_alloc(&scene->arena, SHALE_MAX_PUSH_CONSTANTS_SIZE);
   if (!s || !pc)
      return NULL;
   memset(s, 0, sizeof(*s));
   s->state = st;
   memcpy(pc, bindings->push_constants, SHALE_MAX_PUSH_CONSTANTS_SIZE);
   s->push_constants = pc;
   for (unsigned i = 0; i < SHALE_MAX_DESCRIPTOR_SETS; i++) {
      const union shale_descriptor *set = bindings->sets[i];
      if (set && bindings->set_copy_records[i]) {
         size_t bytes = (size_t)bindings->set_copy_records[i] * sizeof(*set);
         union shale_descriptor *copy = sr_arena_alloc(&scene->arena, bytes);
         if (!copy)
            return NULL;
         memcpy(copy, set, bytes);
         set = copy;
      }
      s->fs_ctx.sets[i] = set;
   }
   s->fs_ctx.push_constants = pc;
   s->fs_ctx.cancel = scene->ctx->cancel;
   s->fs_ctx.view_index = draw->view_index;
   s->fs_ctx.sample_count = state->samples ? state->samples : 1;
   const float(*pos)[2] = sr_sample_positions(s->fs_ctx.sample_count);
   if (pos)
      memcpy(s->fs_ctx.sample_positions, pos, s->fs_ctx.sample_count * sizeof(*pos));
   s->occlusion = draw->occlusion;
   s->fs_invocations = draw->stats ? &draw->stats->fs_invocations : NULL;
   memset(s->plane_index, 0xff, sizeof(s->plane_index));
   uint32_t n = 2;
   for (unsigned k = 0; state->fs && k < SHALE_FS_INPUT_COMPONENTS; k++) {
      if ((state->fs_io.interp[k] & SHALE_INTERP_KIND_MASK) != SHALE_INTERP_NONE)
         s->plane_index[k] = (uint8_t)n++;
   }
   s->fs_input_count = n;
   return s;
}

VkResult
sr_scene_draw(struct sr_scene *scene, const struct sr_draw_state *state,
              const struct sr_draw_bindings *bindings, const struct sr_draw *draw)
{
   if (draw->count == 0 || draw->instance_count == 0 || sr_scene_cancelled(scene))
      return VK_SUCCESS;
   struct sr_draw_snapshot *snap = snapshot(scene, state, bindings, draw);
   if (!snap)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   return sr_vertex_draw(scene, snap, bindings, draw);
}

/* ---- Flush ---- */

/* The tiles with commands, in the order the participants take them (one
 * at a time): most commands first (ties in bin order: layer, row,
 * column), so the tiles left at the end of a flush are the cheap ones
 * (clears only, a few primitives) and the participants finish at about
 * the same time; in bin order, the caller of a vkcube 500x500 flush waited
 * 12-36 us for the worker's last tile, asleep, to be woken again. Which
 * tile runs when, and on which participant, changes no pixel (a tile runs
 * its commands in API order on one participant). Tiles side by side may
 * run at the same time: an image's rows of 64 bytes or more are a
 * multiple of 64 bytes apart (sd_image_compute_layout), so a 64-pixel
 * tile's rows start on a cache line and neighbours share none. */
struct flush_job {
   struct sr_scene *scene;
   const uint32_t *tiles;        /* bin index per tile with commands, in run order */
};

static void
flush_tiles(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   const struct flush_job *job = data;
   struct sr_scene *scene = job->scene;
   uint32_t per_layer = scene->tiles_x * scene->tiles_y;
   for (uint64_t i = begin; i < end && !sr_scene_cancelled(scene); i++) {
      uint32_t b = job->tiles[i];
      uint32_t layer = b / per_layer, t = b % per_layer;
      sr_tile_run(scene, layer, t % scene->tiles_x, t / scene->tiles_x, worker);
   }
}

static int
key_cmp(const void *a, const void *b)
{
   const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return (x > y) - (x < y);
}

void
sr_scene_flush(struct sr_scene *scene)
{
   if (!scene->dirty) {
      scene->discard = 0;
      return;
   }
   size_t n = (size_t)scene->tiles_x * scene->tiles_y * scene->layer_count;
   /* Sort keys: the complement of a tile's command count above its bin
    * index, so an ascending sort puts the most commands first. */
   const size_t m = n ? n : 1;
   uint64_t *keys = sr_alloc(scene->ctx->alloc, m * (sizeof(*keys) + sizeof(uint32_t)), 16);
   uint32_t *tiles = keys ? (uint32_t *)(keys + m) : NULL;
   uint32_t count = 0;
   if (keys) {
      for (size_t i = 0; i < n; i++)
         if (scene->bins[i].first)
            keys[count++] = (uint64_t)(UINT32_MAX - scene->bins[i].count) << 32 | (uint32_t)i;
      if (su_thread_pool_size(scene->ctx->pool) > 1)
         qsort(keys, count, sizeof(*keys), key_cmp);
      for (uint32_t i = 0; i < count; i++)
         tiles[i] = (uint32_t)keys[i];
      struct flush_job job = {scene, tiles};
      su_thread_pool_run(scene->ctx->pool, count, 1, flush_tiles, &job);
      sr_free(scene->ctx->alloc, keys);
   } else {
      /* Out of memory for the list: run the tiles on this thread. */
      for (size_t i = 0; i < n; i++) {
         if (scene->bins[i].first) {
            uint32_t job_tile = (uint32_t)i;
            struct flush_job job = {scene, &job_tile};
            flush_tiles(&job, 0, 1, 0);
         }
      }
   }
   memset(scene->bins, 0, n * sizeof(*scene->bins));
   scene->dirty = false;
   scene->discard = 0;
   scene->last_state = NULL;
   sr_arena_reset(&scene->arena);
   sr_front_reset(scene);
}

void
sr_scene_set_framebuffer(struct sr_scene *scene, const struct sr_framebuffer *fb)
{
   sr_scene_flush(scene);
   struct sr_framebuffer old = scene->fb;
   scene->fb = *fb;
   scene->tile_memory = 0;
   if (scene_size_bins(scene) != VK_SUCCESS) {
      /* Keep the old tiling: a framebuffer no larger fits it; a larger one
       * is clipped to it (drawing outside is dropped, as allocation
       * failures drop commands). */
      scene->fb.width = old.width < fb->width ? old.width : fb->width;
      scene->fb.height = old.height < fb->height ? old.height : fb->height;
   }
   scene->render_area = rect_clip(scene->render_area, scene->fb.width, scene->fb.height);
}

void
sr_scene_end(struct sr_scene *scene)
{
   struct sr_context *ctx = scene->ctx;
   sr_scene_flush(scene);
   /* A scene without a flush that ran may still hold snapshots. */
   sr_arena_reset(&scene->arena);
   sr_front_reset(scene);
   /* Keep the scene's memory for the next sr_scene_begin (one spare scene,
    * its front buffers bounded); then trim the block pool. */
   bool kept = false;
   if (scene->bins_cap * sizeof(*scene->bins) > SR_SPARE_BINS_MAX_BYTES) {
      sr_free(ctx->alloc, scene->bins);
      scene->bins = NULL;
      scene->bins_cap = 0;
   }
   if (scene->front && front_bytes(scene->front) <= SR_SPARE_FRONT_MAX_BYTES) {
      pthread_mutex_lock(&ctx->blocks.lock);
      if (!ctx->spare) {
         ctx->spare = scene;
         kept = true;
      }
      pthread_mutex_unlock(&ctx->blocks.lock);
   }
   if (!kept)
      scene_free(scene);
   sr_block_pool_trim(&ctx->blocks);
}
