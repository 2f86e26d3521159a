/* Vertex fetch and vertex shading in batches of W over the worker pool. */
#include "sr_front.h"

#include <math.h>
#include <string.h>

#include "util/su_thread_pool.h"

VkResult
sr_front_init(struct sr_scene *scene)
{
   const struct sr_context *ctx = scene->ctx;
   struct sr_front *f = sr_zalloc(ctx->alloc, sizeof(*f), 16);
   if (!f)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   f->arenas = sr_alloc(ctx->alloc, ctx->workers * sizeof(*f->arenas), _Alignof(struct sr_worker_arena));
   if (!f->arenas) {
      sr_free(ctx->alloc, f);
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   }
   f->workers = ctx->workers;
   for (unsigned i = 0; i < f->workers; i++)
      sr_arena_init(&f->arenas[i].arena, ctx->alloc, &scene->ctx->blocks);
   scene->front = f;
   return VK_SUCCESS;
}

void
sr_front_reset(struct sr_scene *scene)
{
   struct sr_front *f = scene->front;
   for (unsigned i = 0; f && i < f->workers; i++)
      sr_arena_reset(&f->arenas[i].arena);
}

void
sr_front_finish(struct sr_scene *scene)
{
   struct sr_front *f = scene->front;
   if (!f)
      return;
   const VkAllocationCallbacks *alloc = scene->ctx->alloc;
   for (unsigned i = 0; i < f->workers; i++)
      sr_arena_finish(&f->arenas[i].arena);
   sr_free(alloc, f->arenas);
   sr_free(alloc, f->verts);
   sr_free(alloc, f->shade_vi);
   sr_free(alloc, f->shade_rec);
   sr_free(alloc, f->pos_rec);
   sr_free(alloc, f->restart);
   sr_free(alloc, f->map);
   sr_free(alloc, f);
   scene->front = NULL;
}

static VkResult
front_reserve(struct sr_scene *scene, size_t positions, size_t floats)
{
   struct sr_front *f = scene->front;
   const VkAllocationCallbacks *alloc = scene->ctx->alloc;
   if (positions > f->pos_cap) {
      size_t cap = positions < 1024 ? 1024 : positions;
      uint32_t *vi = sr_alloc(alloc, cap * sizeof(uint32_t), 64);
      uint32_t *sr = sr_alloc(alloc, cap * sizeof(uint32_t), 64);
      uint32_t *pr = sr_alloc(alloc, cap * sizeof(uint32_t), 64);
      uint8_t *rs = sr_alloc(alloc, cap, 64);
      if (!vi || !sr || !pr || !rs) {
         sr_free(alloc, vi);
         sr_free(alloc, sr);
         sr_free(alloc, pr);
         sr_free(alloc, rs);
         return VK_ERROR_OUT_OF_HOST_MEMORY;
      }
      sr_free(alloc, f->shade_vi);
      sr_free(alloc, f->shade_rec);
      sr_free(alloc, f->pos_rec);
      sr_free(alloc, f->restart);
      f->shade_vi = vi;
      f->shade_rec = sr;
      f->pos_rec = pr;
      f->restart = rs;
      f->pos_cap = cap;
   }
   if (floats > f->verts_cap) {
      size_t cap = floats < 16384 ? 16384 : floats;
      float *v = sr_alloc(alloc, cap * sizeof(float), 64);
      if (!v)
         return VK_ERROR_OUT_OF_HOST_MEMORY;
      sr_free(alloc, f->verts);
      f->verts = v;
      f->verts_cap = cap;
   }
   return VK_SUCCESS;
}

/* ---- Fetch ---- */

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* Float to integer for mismatched types (undefined in the spec: any value
 * will do, but never undefined behaviour here). */
static uint32_t
f2i(float f, bool is_signed)
{
   if (!(f == f))
      return 0;
   if (is_signed)
      return (uint32_t)(f <= -2147483648.0f ? INT32_MIN : f >= 2147483647.0f ? INT32_MAX : (int32_t)f);
   return f <= 0.0f ? 0u : f >= 4294967295.0f ? UINT32_MAX : (uint32_t)f;
}

/* Converts one attribute to the shader's type (0 float, 1 sint, 2 uint). */
static void
fetch_one(const struct sr_fetch_attr *fa, const uint8_t *texel, uint32_t out[4])
{
   /* An out-of-range or unbound attribute reads zeros: as wide as the
    * widest texel (R64G64B64A64, 32 bytes), whose second Location copies
    * bytes 16 .. 31. */
   static const uint8_t zeros[32];
   if (!fa->format) {
      /* A location the shader reads with no attribute: (0, 0, 0, 1). */
      out[0] = out[1] = out[2] = 0;
      out[3] = fa->type == 0 ? fbits(1.0f) : 1;
      return;
   }
   if (!texel)
      texel = zeros;
   if (fa->copy_channels) {
      memcpy(out, texel + fa->copy_from * 4u, fa->copy_channels * 4u);
      for (unsigned c = fa->copy_channels; c < 4; c++)
         out[c] = c < 3 || fa->copy_wide ? 0 : fa->type == 0 ? fbits(1.0f) : 1;
      return;
   }
   switch (su_format_class(fa->format)) {
   case SU_CLASS_FLOAT: {
      float v[4];
      su_unpack_float(fa->format, texel, v);
      for (int c = 0; c < 4; c++)
         out[c] = fa->type == 0 ? fbits(v[c]) : f2i(v[c], fa->type == 1);
      break;
   }
   case SU_CLASS_UINT: {
      uint32_t v[4];
      su_unpack_uint(fa->format, texel, v);
      for (int c = 0; c < 4; c++)
         out[c] = fa->type == 0 ? fbits((float)v[c]) : v[c];
      break;
   }
   case SU_CLASS_SINT: {
      int32_t v[4];
      su_unpack_sint(fa->format, texel, v);
      for (int c = 0; c < 4; c++)
         out[c] = fa->type == 0 ? fbits((float)v[c]) : (uint32_t)v[c];
      break;
   }
   }
}

static const uint8_t *
fetch_address(const struct sr_vdraw *vd, const struct sr_fetch_attr *fa, uint32_t vertex_index)
{
   if (!fa->format || !fa->base)
      return NULL;
   uint64_t element;
   if (fa->per_instance)
      element = (uint64_t)vd->draw->first_instance + (fa->divisor ? vd->instance / fa->divisor : 0);
   else
      element = vertex_index;
   uint64_t off = element * fa->stride + fa->offset;
   if (off + fa->format->block_size > fa->size || off + fa->format->block_size < off)
      return NULL;   /* out of range: zeros (robust buffer access) */
   return fa->base + off;
}

/* ---- Batches ---- */

void
sr_vertex_record(const struct sr_vdraw *vd, const struct shale_vs_info *io, const uint32_t *o,
                 uint32_t w, uint32_t i, float *r)
{
   uint32_t *ru = (uint32_t *)r;
   const bool pos_written = io->outputs_written & (1ull << SHALE_SLOT_POSITION);
   for (int c = 0; c < 4; c++)
      ru[SR_V_POS + c] = pos_written ? o[(SHALE_SLOT_POSITION * 4 + c) * w + i] : 0;
   if (vd->writes_point_size)
      ru[SR_V_PSIZE] = o[(SHALE_SLOT_POINT_SIZE * 4) * w + i];
   else
      r[SR_V_PSIZE] = 1.0f;
   for (uint32_t d = 0; d < vd->clip_count + vd->cull_count; d++)
      ru[SR_V_DIST + d] = o[(SHALE_SLOT_CLIP_CULL0 * 4 + d) * w + i];
   for (uint32_t k = 0; k < vd->attr_count; k++) {
      uint16_t src = vd->attr_src[k];
      ru[vd->attr_off + k] = src == 0xffff ? 0 : o[src * w + i];
   }
   for (uint32_t k = 0; k < vd->xfb_count; k++)
      ru[vd->xfb_off + k] = o[io->xfb[k].word * w + i];
   if (vd->layer_off && !vd->st->gs)
      ru[vd->layer_off] = o[(SHALE_SLOT_LAYER_VIEWPORT * 4) * w + i];
   if (vd->viewport_off && !vd->st->gs)
      ru[vd->viewport_off] = o[(SHALE_SLOT_LAYER_VIEWPORT * 4 + 1) * w + i];
}

static void
shade_batches(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   const struct sr_vdraw *vd = data;
   struct sr_worker_scratch *ws = vd->scene->ctx->scratch[worker];
   const uint32_t w = vd->st->vs_width;
   const struct sr_draw *draw = vd->draw;

   for (uint64_t b = begin; b < end && !sr_scene_cancelled(vd->scene); b++) {
      uint32_t first = (uint32_t)b * w;
      uint32_t n = vd->shade_count - first < w ? vd->shade_count - first : w;
      struct shale_vs_batch batch = {
         .count = n,
         .instance_index = draw->first_instance + vd->instance,
         .inputs = ws->vs_inputs,
         .outputs = ws->vs_outputs,
      };
      for (uint32_t i = 0; i < n; i++) {
         uint32_t vi = vd->shade_vi ? vd->shade_vi[first + i] : draw->first + vd->first_pos + first + i;
         batch.vertex_index[i] = vi;
         for (uint32_t a = 0; a < vd->fetch_count; a++) {
            const struct sr_fetch_attr *fa = &vd->fetch[a];
            uint32_t v[4];
            fetch_one(fa, fetch_address(vd, fa, vi), v);
            for (int c = 0; c < 4; c++)
               ws->vs_inputs[(fa->location * 4 + c) * w + i] = v[c];
         }
      }
      for (uint32_t i = n; i < w; i++)
         batch.vertex_index[i] = batch.vertex_index[0];

      vd->st->vs(&vd->vs_ctx, &batch);

      /* Records: position, point size, distances, fragment inputs. */
      const uint32_t *o = ws->vs_outputs;
      if (vd->geom) {
         /* The geometry shader's input records: raw output words. */
         for (uint32_t i = 0; i < n; i++)
            sr_geom_vertex(vd, o, w, i, vd->shade_rec ? vd->shade_rec[first + i] : first + i);
         continue;
      }
      for (uint32_t i = 0; i < n; i++) {
         uint32_t rec = vd->shade_rec ? vd->shade_rec[first + i] : first + i;
         float *r = vd->verts + (size_t)rec * vd->stride;
         sr_vertex_record(vd, &vd->st->vs_io, o, w, i, r);
         sr_setup_vertex(vd, r);
      }
   }
}

/* Record layout and fetch table of a draw. */
static void
vdraw_init(struct sr_vdraw *vd, struct sr_scene *scene, const struct sr_draw_snapshot *snap,
           const struct sr_draw_bindings *bind, const struct sr_draw *draw)
{
   const struct sr_draw_state *st = snap->state;
   memset(vd, 0, sizeof(*vd));
   vd->scene = scene;
   vd->arena = &scene->arena;
   vd->st = st;
   vd->bind = bind;
   vd->draw = draw;
   vd->snap = snap;
   for (unsigned i = 0; i < SHALE_MAX_DESCRIPTOR_SETS; i++)
      vd->vs_ctx.sets[i] = bind->sets[i];
   vd->vs_ctx.push_constants = bind->push_constants;
   vd->vs_ctx.cancel = scene->ctx->cancel;
   vd->vs_ctx.base_vertex = draw->indexed ? draw->vertex_offset : (int32_t)draw->first;
   vd->vs_ctx.base_instance = draw->first_instance;
   vd->vs_ctx.draw_index = draw->draw_index;
   vd->vs_ctx.view_index = draw->view_index;

   /* The records are of the last stage before rasterization. */
   const struct shale_vs_info *io = st->gs ? &st->gs_io.out : st->tes ? &st->tes_io.out : &st->vs_io;
   vd->layer = draw->view_index;
   vd->clip_count = io->clip_distance_count;
   vd->cull_count = io->cull_distance_count;
   vd->writes_point_size = io->writes_point_size &&
                           (io->outputs_written & (1ull << SHALE_SLOT_POINT_SIZE));
   vd->attr_off = SR_V_DIST + vd->clip_count + vd->cull_count;
   for (unsigned k = 0; k < SHALE_FS_INPUT_COMPONENTS; k++) {
      if (snap->plane_index[k] == 0xff)
         continue;
      uint32_t a = snap->plane_index[k] - 2u;
      if (k >= SHALE_FS_CLIP_INPUT) {
         /* ClipDistance[i] / CullDistance[j] of the fragment shader: the
          * vertex shader's packed distances (0 where it has none). */
         uint32_t i = k - SHALE_FS_CLIP_INPUT, d = i < 8 ? i : io->clip_distance_count + i - 8;
         bool has = i < 8 ? i < io->clip_distance_count : i - 8 < io->cull_distance_count;
         vd->attr_src[a] = has ? (uint16_t)(SHALE_SLOT_CLIP_CULL0 * 4 + d) : 0xffff;
         vd->attr_interp[a] = SHALE_INTERP_SMOOTH;
         vd->attr_count = a + 1;
         continue;
      }
      uint32_t slot = SHALE_SLOT_USER + k / 4;
      vd->attr_src[a] = (io->outputs_written & (1ull << slot)) ? (uint16_t)(slot * 4 + k % 4) : 0xffff;
      vd->attr_interp[a] = st->fs_io.interp[k] & SHALE_INTERP_KIND_MASK;
      vd->attr_count = a + 1;
   }
   vd->stride = vd->attr_off + vd->attr_count;
   /* Transform feedback: the captured components after the attributes. */
   if (draw->xfb && io->xfb_count) {
      for (uint32_t k = 0; k < io->xfb_count; k++) {
         uint32_t b = io->xfb[k].buffer;
         if (b < SHALE_MAX_XFB_BUFFERS && draw->xfb->base[b] && io->xfb_stride[b])
            vd->xfb_used |= 1u << b;
      }
      if (vd->xfb_used) {
         vd->xfb = draw->xfb;
         vd->xfb_off = vd->stride;
         vd->xfb_count = io->xfb_count;
         vd->stride += io->xfb_count;
      }
   }
   /* VK_EXT_shader_viewport_index_layer: a vertex or evaluation shader's
    * Layer and ViewportIndex, taken from the provoking vertex as a
    * geometry shader's (sr_setup.c; sr_geom_init places those). */
   if (!st->gs && (io->outputs_written & (1ull << SHALE_SLOT_LAYER_VIEWPORT))) {
      if (io->writes_layer_viewport & 1)
         vd->layer_off = vd->stride++;
      if (io->writes_layer_viewport & 2)
         vd->viewport_off = vd->stride++;
   }
   sr_setup_draw(vd);

   for (unsigned l = 0; l < SHALE_MAX_LOCATIONS; l++) {
      if (!(st->vs_io.inputs_read & (1u << l)))
         continue;
      struct sr_fetch_attr *fa = &vd->fetch[vd->fetch_count++];
      memset(fa, 0, sizeof(*fa));
      fa->location = l;
      fa->type = st->vs_io.input_type[l];
      for (unsigned a = 0; a < st->attribute_count; a++) {
         const struct sr_vertex_attribute *at = &st->attributes[a];
         /* A 64-bit attribute of three or four channels at Location l - 1
          * fills l with its channels 2 and 3 (dvec3 / dvec4 inputs). */
         const struct su_format_desc *ad = su_format_desc(at->format);
         const bool upper = at->location + 1 == l && ad && ad->bits[0] == 64 && ad->num_channels > 2;
         if (at->location != l && !upper)
            continue;
         const struct sr_vertex_binding *vb = &st->bindings[at->binding];
         fa->format = su_format_desc(at->format);
         fa->base = bind->vertex_buffers[at->binding].base;
         fa->size = bind->vertex_buffers[at->binding].size;
         fa->stride = vb->stride;
         fa->offset = at->offset;
         fa->per_instance = vb->input_rate == VK_VERTEX_INPUT_RATE_INSTANCE;
         fa->divisor = vb->divisor;
         /* 32-bit channels of the shader's type (R32*_SFLOAT to float,
          * R32*_UINT / _SINT to the same type) need no conversion. */
         const struct su_format_desc *d = fa->format;
         if (d && d->bits[0] == 64) {
            /* 64-bit channels go to 64-bit inputs as they are, two words
             * each, two channels a location. */
            fa->copy_wide = true;
            fa->copy_from = upper ? 4 : 0;
            fa->copy_channels = (uint8_t)(upper ? 2 * d->num_channels - 4
                                                : (d->num_channels > 2 ? 4 : 2 * d->num_channels));
         } else if (d && d->kind != SU_KIND_DEPTH_STENCIL && d->bits[0] == 32 && d->block_size == 4u * d->num_channels &&
             ((d->kind == SU_KIND_SFLOAT && fa->type == 0) || (d->kind == SU_KIND_SINT && fa->type == 1) ||
              (d->kind == SU_KIND_UINT && fa->type == 2)))
            fa->copy_channels = d->num_channels;
         break;
      }
   }
}

static uint32_t
read_index(const struct sr_draw_bindings *bind, uint64_t off, uint32_t size)
{
   uint32_t index = 0;   /* out of range: index 0 (robust buffer access) */
   if (bind->index_base && off + size <= bind->index_size) {
      const uint8_t *p = bind->index_base + off;
      if (size == 4) {
         memcpy(&index, p, 4);
      } else if (size == 2) {
         uint16_t v;
         memcpy(&v, p, 2);
         index = v;
      } else {
         index = *p;
      }
   }
   return index;
}

/* Reads positions i0 .. i1 - 1 of an indexed draw: each value into
 * pos_rec[i] (the value for now, its record later), restart[i] set where
 * it is the restart value and restarts are on. The smallest and largest
 * value of the other positions go to *lo and *hi (UINT32_MAX and 0 when
 * there are none); returns whether a restart was seen. The serial reading
 * and pass 0 of the parallel one. */
static bool
read_index_range(const struct sr_vdraw *vd, struct sr_front *f, uint32_t size,
                 uint32_t restart_value, bool restart_on, uint32_t i0, uint32_t i1, uint32_t *lo,
                 uint32_t *hi)
{
   const uint64_t first = vd->draw->first;
   uint32_t l = UINT32_MAX, h = 0;
   bool any = false;
   for (uint32_t i = i0; i < i1; i++) {
      uint32_t index = read_index(vd->bind, (first + i) * size, size);
      bool restart = restart_on && index == restart_value;
      f->restart[i] = restart;
      any |= restart;
      f->pos_rec[i] = index;
      if (!restart) {
         l = index < l ? index : l;
         h = index > h ? index : h;
      }
   }
   *lo = l;
   *hi = h;
   return any;
}

/* Indexed draws of at least this many positions read their indices on
 * the pool (in chunks of SR_INDEX_CHUNK positions) when it has at least
 * SR_INDEX_PARALLEL_THREADS participants, others on the calling thread:
 * the parallel passes cost six pool runs and about twice the serial
 * reading's work (1 thread: 2.1 ms for (a)'s 751,896 indices; the
 * passes 4.4 ms of CPU in all), a gain only from four threads on. */
#define SR_INDEX_PARALLEL_MIN 65536u
#define SR_INDEX_PARALLEL_THREADS 4u
#define SR_INDEX_CHUNK 16384u

/* The parallel reading of an indexed draw's indices (read_indices_parallel). */
struct index_job {
   const struct sr_vdraw *vd;
   struct sr_front *f;
   uint32_t size, restart_value;
   bool restart_on;
   unsigned pass;
   uint32_t count;               /* positions */
   uint32_t lo;                  /* smallest index value (passes 2 on) */
   uint64_t range;               /* map entries (pass 1 on) */
   /* Per chunk: pass 0's smallest and largest value and restart seen,
    * pass 3's first occurrences, then their prefix sums. */
   uint32_t *chunk_lo, *chunk_hi, *chunk_first;
   uint8_t *chunk_restart;
};

static void
index_pass(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   (void)worker;
   struct index_job *job = data;
   struct sr_front *f = job->f;
   const struct sr_draw *draw = job->vd->draw;
   for (uint64_t c = begin; c < end; c++) {
      const uint32_t i0 = (uint32_t)c * SR_INDEX_CHUNK;
      const uint32_t i1 = job->count - i0 < SR_INDEX_CHUNK ? job->count : i0 + SR_INDEX_CHUNK;
      switch (job->pass) {
      case 0: {
         /* Index values (in pos_rec for now), restarts, range. */
         job->chunk_restart[c] = read_index_range(job->vd, f, job->size, job->restart_value,
                                                  job->restart_on, i0, i1, &job->chunk_lo[c],
                                                  &job->chunk_hi[c]);
         break;
      }
      case 1: {
         /* The map, emptied: this chunk's share of it. */
         const uint64_t nchunks = (job->count + SR_INDEX_CHUNK - 1) / SR_INDEX_CHUNK;
         const uint64_t m0 = job->range * c / nchunks, m1 = job->range * (c + 1) / nchunks;
         memset(f->map + m0, 0xff, (m1 - m0) * sizeof(uint32_t));
         break;
      }
      case 2:
         /* Each value's first position: the smallest of its positions. */
         for (uint32_t i = i0; i < i1; i++) {
            if (f->restart[i])
               continue;
            uint32_t *slot = &f->map[f->pos_rec[i] - job->lo];
            uint32_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
            while (i < cur && !__atomic_compare_exchange_n(slot, &cur, i, true, __ATOMIC_RELAXED,
                                                           __ATOMIC_RELAXED))
               ;
         }
         break;
      case 3: {
         /* First occurrences of this chunk. */
         uint32_t n = 0;
         for (uint32_t i = i0; i < i1; i++)
            n += !f->restart[i] && f->map[f->pos_rec[i] - job->lo] == i;
         job->chunk_first[c] = n;
         break;
      }
      case 4: {
         /* Records in order of first occurrence (the serial order):
          * shade_rec holds each first position's record for pass 5. */
         uint32_t n = job->chunk_first[c];
         for (uint32_t i = i0; i < i1; i++) {
            if (!f->restart[i] && f->map[f->pos_rec[i] - job->lo] == i) {
               f->shade_vi[n] = f->pos_rec[i] + (uint32_t)draw->vertex_offset;
               f->shade_rec[i] = n++;
            }
         }
         break;
      }
      case 5:
         /* Every position's record: its first position's. */
         for (uint32_t i = i0; i < i1; i++)
            if (!f->restart[i])
               f->pos_rec[i] = f->shade_rec[f->map[f->pos_rec[i] - job->lo]];
         break;
      }
   }
}

/* Every index position a vertex of its own (index values spread too
 * widely for a map): position i's value, read into pos_rec[i], becomes a
 * shaded vertex with record i, in position order, restarts skipped.
 * Returns the count of vertices shaded. */
static uint32_t
shade_every_position(struct sr_front *f, const struct sr_draw *draw)
{
   uint32_t n = 0;
   for (uint32_t i = 0; i < draw->count; i++) {
      if (!f->restart[i]) {
         f->shade_vi[n] = f->pos_rec[i] + (uint32_t)draw->vertex_offset;
         f->shade_rec[n] = i;
         n++;
      }
      f->pos_rec[i] = i;
   }
   return n;
}

/* read_indices() on the pool, for large draws: the same records in the
 * same order. Each value's first position is found as the smallest
 * position holding it (an atomic minimum per map entry), the first
 * occurrences are counted per chunk, and their records numbered from the
 * chunks' prefix sums, so the numbering is the serial one whatever the
 * thread count. False (nothing changed but the front buffers) when it
 * does not apply: the values span too wide a range for the map, or
 * memory for the per-chunk arrays ran out; the serial reading then runs. */
static bool
read_indices_parallel(struct sr_vdraw *vd, struct sr_front *f, uint32_t size, uint32_t restart_value,
                      bool restart_on, VkResult *result)
{
   const struct sr_draw *draw = vd->draw;
   const VkAllocationCallbacks *alloc = vd->scene->ctx->alloc;
   struct su_thread_pool *pool = vd->scene->ctx->pool;
   const uint32_t nchunks = (draw->count + SR_INDEX_CHUNK - 1) / SR_INDEX_CHUNK;
   struct index_job job = {
      .vd = vd, .f = f, .size = size, .restart_value = restart_value, .restart_on = restart_on,
      .count = draw->count,
   };
   uint32_t *arrays = sr_alloc(alloc, (size_t)nchunks * (3 * sizeof(uint32_t) + 1), 64);
   if (!arrays)
      return false;
   job.chunk_lo = arrays;
   job.chunk_hi = arrays + nchunks;
   job.chunk_first = arrays + 2 * nchunks;
   job.chunk_restart = (uint8_t *)(arrays + 3 * nchunks);
   su_thread_pool_run(pool, nchunks, 1, index_pass, &job);
   uint32_t lo = UINT32_MAX, hi = 0;
   bool any_restart = false;
   for (uint32_t c = 0; c < nchunks; c++) {
      lo = job.chunk_lo[c] < lo ? job.chunk_lo[c] : lo;
      hi = job.chunk_hi[c] > hi ? job.chunk_hi[c] : hi;
      any_restart |= job.chunk_restart[c];
   }
   const uint64_t range = lo <= hi ? (uint64_t)hi - lo + 1 : 0;
   if (!range || range > 4ull * draw->count + 64) {
      /* Every position shaded (or none): the serial loop, which is one
       * pass; pass 0 already read the values and restarts. */
      sr_free(alloc, arrays);
      vd->restart = any_restart ? f->restart : NULL;
      vd->shade_vi = f->shade_vi;
      vd->shade_rec = f->shade_rec;
      vd->pos_rec = f->pos_rec;
      vd->shade_count = shade_every_position(f, draw);
      return true;
   }
   if (range > f->map_cap) {
      uint32_t *map = sr_alloc(alloc, range * sizeof(uint32_t), 64);
      if (!map) {
         sr_free(alloc, arrays);
         *result = VK_ERROR_OUT_OF_HOST_MEMORY;
         return true;
      }
      sr_free(alloc, f->map);
      f->map = map;
      f->map_cap = range;
   }
   job.lo = lo;
   job.range = range;
   for (job.pass = 1; job.pass <= 5; job.pass++) {
      su_thread_pool_run(pool, nchunks, 1, index_pass, &job);
      if (job.pass == 3) {
         uint32_t n = 0;
         for (uint32_t c = 0; c < nchunks; c++) {
            uint32_t k = job.chunk_first[c];
            job.chunk_first[c] = n;
            n += k;
         }
         vd->shade_count = n;
      }
   }
   sr_free(alloc, arrays);
   vd->restart = any_restart ? f->restart : NULL;
   vd->shade_vi = f->shade_vi;
   vd->shade_rec = NULL;   /* vertex j's record is j */
   vd->pos_rec = f->pos_rec;
   return true;
}

/* The vertices an indexed draw shades and the record of each position:
 * each distinct index value once when the values span at most a few times
 * the index count, else every position (restart positions never). */
static VkResult
read_indices(struct sr_vdraw *vd, struct sr_front *f)
{
   const struct sr_draw *draw = vd->draw;
   const struct sr_draw_bindings *bind = vd->bind;
   const uint32_t size = bind->index_type == VK_INDEX_TYPE_UINT32 ? 4
                         : bind->index_type == VK_INDEX_TYPE_UINT8_EXT ? 1 : 2;
   const uint32_t restart_value = size == 4 ? 0xffffffffu : size == 2 ? 0xffffu : 0xffu;
   const bool restart_on = vd->st->primitive_restart;
   if (draw->count >= SR_INDEX_PARALLEL_MIN && vd->scene->ctx->workers >= SR_INDEX_PARALLEL_THREADS) {
      VkResult r = VK_SUCCESS;
      if (read_indices_parallel(vd, f, size, restart_value, restart_on, &r))
         return r;
   }
   /* Pass 1: index values (kept in pos_rec for now), restarts, range. */
   uint32_t lo, hi;
   const bool any_restart =
      read_index_range(vd, f, size, restart_value, restart_on, 0, draw->count, &lo, &hi);
   vd->restart = any_restart ? f->restart : NULL;
   vd->shade_vi = f->shade_vi;
   vd->shade_rec = f->shade_rec;
   vd->pos_rec = f->pos_rec;
   uint32_t n = 0;
   const uint64_t range = lo <= hi ? (uint64_t)hi - lo + 1 : 0;
   if (range && range <= 4ull * draw->count + 64) {
      if (range > f->map_cap) {
         uint32_t *map = sr_alloc(vd->scene->ctx->alloc, range * sizeof(uint32_t), 64);
         if (!map)
            return VK_ERROR_OUT_OF_HOST_MEMORY;
         sr_free(vd->scene->ctx->alloc, f->map);
         f->map = map;
         f->map_cap = range;
      }
      memset(f->map, 0xff, range * sizeof(uint32_t));
      for (uint32_t i = 0; i < draw->count; i++) {
         if (f->restart[i])
            continue;
         uint32_t *slot = &f->map[f->pos_rec[i] - lo];
         if (*slot == UINT32_MAX) {
            *slot = n;
            f->shade_vi[n] = f->pos_rec[i] + (uint32_t)draw->vertex_offset;
            n++;
         }
         f->pos_rec[i] = *slot;
      }
      vd->shade_rec = NULL;   /* vertex j's record is j */
      vd->shade_count = n;
   } else {
      vd->shade_count = shade_every_position(f, draw);
   }
   return VK_SUCCESS;
}

/* Pipeline statistics of a whole draw (sr_raster.h): per instance the
 * index positions and the primitives of each run between restarts, the
 * vertices shaded, and what setup counted. */
static void
count_stats(const struct sr_vdraw *vd, uint64_t shaded)
{
   const struct sr_draw *draw = vd->draw;
   const VkPrimitiveTopology topo = vd->st->topology;
   uint64_t verts = draw->count, prims = 0;
   if (topo == VK_PRIMITIVE_TOPOLOGY_PATCH_LIST) {
      /* Input assembly primitives of a patch list: its patches. */
      const uint32_t n = vd->st->patch_control_points;
      prims = n ? draw->count / n : 0;
   } else if (!vd->restart) {
      prims = sr_prim_count(topo, draw->count);
   } else {
      verts = 0;
      for (uint32_t i = 0, b = 0; i <= draw->count; i++) {
         if (i == draw->count || vd->restart[i]) {
            prims += sr_prim_count(topo, i - b);
            verts += i - b;
            b = i + 1;
         }
      }
   }
   struct sr_stats *s = draw->stats;
   s->ia_vertices += verts * draw->instance_count;
   s->ia_primitives += prims * draw->instance_count;
   s->vs_invocations += shaded;
   s->gs_invocations += vd->gs_invocations;
   s->gs_primitives += vd->gs_primitives;
   s->tcs_patches += vd->tcs_patches;
   s->tes_invocations += vd->tes_invocations;
   if (!vd->st->rasterizer_discard) {
      /* With a geometry shader, clipping sees its output primitives; with
       * tessellation, the generated ones. */
      s->clip_invocations += vd->st->gs ? vd->gs_primitives
                             : vd->st->tes ? vd->tess_primitives
                                           : prims * draw->instance_count;
      s->clip_primitives += vd->clip_out;
   }
}

/* Non-indexed list and strip draws longer than this run in windows of
 * positions (shade, then set up), so records stay in cache and their
 * memory bounded; divisible by 2 and 3, so list primitives never straddle
 * two windows. */
#define SR_VERTEX_WINDOW (3u * 2u * 8192u)

/* A chunk of the pool's vertex shading has at least this many vertices, so
 * a small draw (vkcube's 36 vertices, a full-screen triangle) runs on the
 * calling thread alone: waking a worker and waiting for it to finish costs
 * more than shading a few dozen vertices. Which thread shades a batch never
 * changes its records. */
#define SR_VERTEX_MIN_CHUNK 256u

VkResult
sr_vertex_draw(struct sr_scene *scene, const struct sr_draw_snapshot *snap,
               const struct sr_draw_bindings *bindings, const struct sr_draw *draw)
{
   struct sr_vdraw vd;
   struct sr_geom geom;
   vdraw_init(&vd, scene, snap, bindings, draw);
   if (!vd.st->vs)
      return VK_SUCCESS;
   const VkPrimitiveTopology topo = vd.st->topology;
   /* Geometry shading and adjacency: whole instances, sr_geom.c. */
   const bool geom_path = vd.st->gs || vd.st->tes || sr_geom_adjacency(topo);
   if (vd.st->tes)
      sr_tess_draw_init(&vd, &geom);   /* tessellation: sr_tess_draw.c */
   else if (vd.st->gs)
      sr_geom_init(&vd, &geom);
   /* Strips carry their last one or two positions into the next window. */
   const uint32_t overlap = topo == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP ? 2
                            : topo == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP   ? 1
                                                                         : 0;
   const bool windows = !draw->indexed && !geom_path && topo != VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN &&
                        draw->count > SR_VERTEX_WINDOW + overlap;
   const uint32_t span = windows ? SR_VERTEX_WINDOW + overlap : draw->count;
   const uint32_t rec_stride = vd.geom ? vd.geom->in_stride : vd.stride;
   VkResult r = front_reserve(scene, span, (size_t)span * rec_stride);
   if (r != VK_SUCCESS)
      return r;
   struct sr_front *f = scene->front;
   vd.verts = f->verts;
   if (draw->indexed) {
      vd.count = draw->count;
      r = read_indices(&vd, f);
      if (r != VK_SUCCESS)
         return r;
   }
   const uint32_t w = vd.st->vs_width ? vd.st->vs_width : 1;
   uint64_t shaded = 0;
   for (vd.instance = 0; vd.instance < draw->instance_count; vd.instance++) {
      vd.primitive_id = 0;
      for (uint32_t wb = 0; wb == 0 || wb + overlap < draw->count; wb += SR_VERTEX_WINDOW) {
         if (!draw->indexed) {
            vd.first_pos = wb;
            vd.count = draw->count - wb < span ? draw->count - wb : span;
            vd.shade_count = vd.count;
            /* PrimitiveId continues from the primitives before the window. */
            vd.primitive_id = wb ? sr_prim_count(topo, wb + overlap) : 0;
         }
         if (sr_scene_cancelled(scene))
            return vd.result;
         const uint64_t batches = (vd.shade_count + w - 1) / w;
         const uint64_t workers = su_thread_pool_size(scene->ctx->pool);
         uint64_t chunk = batches / (workers * 8);   /* the pool's own default */
         if (chunk < (SR_VERTEX_MIN_CHUNK + w - 1) / w)
            chunk = (SR_VERTEX_MIN_CHUNK + w - 1) / w;
         su_thread_pool_run(scene->ctx->pool, batches, chunk, shade_batches, &vd);
         shaded += vd.shade_count;
         /* Cancelled while shading: some vertices were never shaded, so
          * nothing is assembled from them. */
         if (sr_scene_cancelled(scene))
            return vd.result;
         if (geom_path) {
            if (vd.st->tes)
               sr_tess_instance(&vd);
            else
               sr_geom_instance(&vd);
            break;
         }
         /* Transform feedback, before clipping and rasterizer discard. */
         if (vd.xfb)
            sr_xfb_capture(&vd);
         /* Rasterizer discard: the vertex shader still runs (its stores
          * are seen), nothing is assembled. */
         if (!vd.st->rasterizer_discard)
            sr_setup_instance(&vd);
         if (!windows)
            break;
      }
   }
   if (draw->stats)
      count_stats(&vd, shaded);
   return vd.result;
}
