/* Geometry shading (sr_raster.h, "Geometry shading"): an instance's input
 * primitives (adjacency included) assembled on the calling thread, the
 * compiled geometry shader run over them on the workers in chunks of
 * batches, its output appended in API order as an indexed strip with
 * restarts that transform feedback and sr_setup_instance take; and the
 * adjacency topologies drawn without a geometry shader. */
#include <string.h>

#include "sr_front.h"
#include "util/su_thread_pool.h"

/* A chunk's regions stay below this many bytes (about). */
#define GEOM_CHUNK_BYTES (8u << 20)
/* Groups of W primitives per chunk, at most. */
#define GEOM_CHUNK_GROUPS 64u

bool
sr_geom_adjacency(VkPrimitiveTopology topology)
{
   return topology >= VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY &&
          topology <= VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY;
}

void
sr_geom_table(const struct shale_gs_info *gi, uint64_t written, struct sr_geom *g)
{
   memset(g, 0, sizeof(*g));
   for (uint32_t s = 0; s < SHALE_SLOT_COUNT; s++)
      if (gi->inputs_read >> s & 1)
         g->in_slot[g->in_slots++] = (uint8_t)s;
   g->in_stride = 4 * g->in_slots;
   g->vs_written = written;
   memset(g->out_j, 0xff, sizeof(g->out_j));
   for (uint32_t j = 0; j < gi->out_words && j < SHALE_SLOT_COUNT * 4; j++)
      if (gi->out_word[j] < SHALE_SLOT_COUNT * 4)
         g->out_j[gi->out_word[j]] = (uint16_t)j;
}

void
sr_geom_init(struct sr_vdraw *vd, struct sr_geom *g)
{
   const struct sr_draw_state *st = vd->st;
   const struct shale_gs_info *gi = &st->gs_io;
   sr_geom_table(gi, st->vs_io.outputs_written, g);
   vd->geom = g;
   /* PrimitiveId, Layer and ViewportIndex of the provoking vertex: after
    * the record's other words. */
   if (gi->writes_primitive_id && g->out_j[SHALE_GS_PRIMITIVE_ID_WORD] != 0xffff)
      vd->prim_id_off = vd->stride++;
   if (gi->writes_layer && g->out_j[SHALE_SLOT_LAYER_VIEWPORT * 4] != 0xffff)
      vd->layer_off = vd->stride++;
   if (g->out_j[SHALE_SLOT_LAYER_VIEWPORT * 4 + 1] != 0xffff)
      vd->viewport_off = vd->stride++;
}

void
sr_geom_words(const struct sr_geom *g, const uint32_t *o, uint32_t w, uint32_t i, uint32_t *r)
{
   for (uint32_t si = 0; si < g->in_slots; si++) {
      uint32_t s = g->in_slot[si];
      bool written = g->vs_written >> s & 1;
      for (uint32_t c = 0; c < 4; c++)
         r[si * 4 + c] = written ? o[(s * 4 + c) * w + i] : 0;
   }
}

void
sr_geom_vertex(const struct sr_vdraw *vd, const uint32_t *o, uint32_t w, uint32_t i, uint32_t rec)
{
   const struct sr_geom *g = vd->geom;
   sr_geom_words(g, o, w, i, (uint32_t *)(vd->verts + (size_t)rec * g->in_stride));
}

/* The set-up record of an emitted vertex whose output word j is o[j * w]. */
static void
out_record(const struct sr_vdraw *vd, const uint32_t *o, uint32_t w, float *r)
{
   const struct sr_geom *g = vd->geom;
   uint32_t *ru = (uint32_t *)r;
#define WORD(d) (g->out_j[d] == 0xffff ? 0u : o[(size_t)g->out_j[d] * w])
   for (uint32_t c = 0; c < 4; c++)
      ru[SR_V_POS + c] = WORD(SHALE_SLOT_POSITION * 4 + c);
   if (vd->writes_point_size)
      ru[SR_V_PSIZE] = WORD(SHALE_SLOT_POINT_SIZE * 4);
   else
      r[SR_V_PSIZE] = 1.0f;
   for (uint32_t d = 0; d < vd->clip_count + vd->cull_count; d++)
      ru[SR_V_DIST + d] = WORD(SHALE_SLOT_CLIP_CULL0 * 4 + d);
   for (uint32_t k = 0; k < vd->attr_count; k++) {
      uint16_t src = vd->attr_src[k];
      ru[vd->attr_off + k] = src == 0xffff ? 0 : WORD(src);
   }
   for (uint32_t k = 0; k < vd->xfb_count; k++)
      ru[vd->xfb_off + k] = WORD(vd->st->gs_io.out.xfb[k].word);
   if (vd->prim_id_off)
      ru[vd->prim_id_off] = WORD(SHALE_GS_PRIMITIVE_ID_WORD);
   if (vd->layer_off)
      ru[vd->layer_off] = WORD(SHALE_SLOT_LAYER_VIEWPORT * 4);
   if (vd->viewport_off)
      ru[vd->viewport_off] = WORD(SHALE_SLOT_LAYER_VIEWPORT * 4 + 1);
#undef WORD
   sr_setup_vertex(vd, r);
}

/* ---- Input primitives ---- */

/* Positions of primitive p of the n primitives of a run of positions
 * starting at b (no restart inside), in the order a geometry shader reads
 * them (the spec's equations, which the provoking vertex mode does not
 * change; the adjacent vertices included). Returns how many. */
static unsigned
prim_positions(VkPrimitiveTopology t, uint32_t b, uint32_t p, uint32_t n, uint32_t *o)
{
   uint32_t odd = p & 1;
   switch (t) {
   case VK_PRIMITIVE_TOPOLOGY_POINT_LIST:
      o[0] = b + p;
      return 1;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST:
      o[0] = b + 2 * p, o[1] = b + 2 * p + 1;
      return 2;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP:
      o[0] = b + p, o[1] = b + p + 1;
      return 2;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      o[0] = b + 3 * p, o[1] = b + 3 * p + 1, o[2] = b + 3 * p + 2;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
      o[0] = b + p, o[1] = b + p + 1 + odd, o[2] = b + p + 2 - odd;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN:
      o[0] = b + p + 1, o[1] = b + p + 2, o[2] = b;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY:
      for (unsigned v = 0; v < 4; v++)
         o[v] = b + 4 * p + v;
      return 4;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY:
      for (unsigned v = 0; v < 4; v++)
         o[v] = b + p + v;
      return 4;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY:
      for (unsigned v = 0; v < 6; v++)
         o[v] = b + 6 * p + v;
      return 6;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY: {
      /* Vertices 2p, 2p + 2, 2p + 4 (odd primitives: 2p, 2p + 4, 2p + 2)
       * with their neighbours, by the spec's equations. */
      const uint32_t i = 2 * p, end = p + 1 == n ? 5 : 6;
      if (n == 1) {
         o[0] = 0, o[1] = 1, o[2] = 2, o[3] = 5, o[4] = 4, o[5] = 3;
      } else if (p == 0) {
         o[0] = 0, o[1] = 1, o[2] = 2, o[3] = 6, o[4] = 4, o[5] = 3;
      } else if (odd) {
         o[0] = i, o[1] = i + 3, o[2] = i + 4, o[3] = i + end, o[4] = i + 2, o[5] = i - 2;
      } else {
         o[0] = i, o[1] = i - 2, o[2] = i + 2, o[3] = i + end, o[4] = i + 4, o[5] = i + 3;
      }
      for (unsigned v = 0; v < 6; v++)
         o[v] += b;
      return 6;
   }
   default:
      return 0;
   }
}

/* ---- Output list ---- */

struct out_list {
   const VkAllocationCallbacks *alloc;
   float *recs;            /* records (geometry shader output) */
   size_t nrec, cap_rec;   /* records */
   uint32_t stride;
   uint32_t *pos;          /* per position: record */
   uint8_t *restart;       /* per position: 1 at a restart */
   size_t npos, cap_pos;
};

bool
sr_geom_grow(const VkAllocationCallbacks *alloc, void **p, size_t *cap, size_t need, size_t elem)
{
   if (need <= *cap)
      return true;
   size_t cap2 = *cap ? *cap : 1024;
   while (cap2 < need)
      cap2 *= 2;
   void *q = sr_alloc(alloc, cap2 * elem, 64);
   if (!q)
      return false;
   if (*p)
      memcpy(q, *p, *cap * elem);
   sr_free(alloc, *p);
   *p = q;
   *cap = cap2;
   return true;
}

static bool
out_pos(struct out_list *l, uint32_t rec, bool restart)
{
   if (l->npos + 1 > l->cap_pos) {
      size_t cap = l->cap_pos;
      if (!sr_geom_grow(l->alloc, (void **)&l->pos, &cap, l->npos + 1, sizeof(uint32_t)))
         return false;
      size_t cap_r = l->cap_pos;
      if (!sr_geom_grow(l->alloc, (void **)&l->restart, &cap_r, l->npos + 1, 1))
         return false;
      l->cap_pos = cap;
   }
   l->pos[l->npos] = rec;
   l->restart[l->npos] = restart;
   l->npos++;
   return true;
}

static void
out_free(struct out_list *l)
{
   sr_free(l->alloc, l->recs);
   sr_free(l->alloc, l->pos);
   sr_free(l->alloc, l->restart);
}

/* Sets up (and captures) the positions of l as a draw of `topology` with
 * restarts, records from `verts` (the instance's, or l's). */
static void
setup_list(struct sr_vdraw *vd, struct out_list *l, const float *verts, VkPrimitiveTopology topology)
{
   struct sr_draw_state st = *vd->st;
   st.topology = topology;
   st.primitive_restart = true;
   if (st.gs)
      st.vs_io = st.gs_io.out;   /* transform feedback captures the geometry shader's outputs */
   const struct sr_draw_state *saved_st = vd->st;
   float *saved_verts = vd->verts;
   const uint32_t *saved_pos = vd->pos_rec;
   const uint8_t *saved_restart = vd->restart;
   uint32_t saved_count = vd->count, saved_id = vd->primitive_id;
   vd->st = &st;
   vd->verts = (float *)verts;
   vd->pos_rec = l->pos;
   vd->restart = l->restart;
   vd->count = (uint32_t)l->npos;
   if (saved_st->gs)
      vd->primitive_id = 0;   /* output primitives count from 0 per instance */
   if (l->npos) {
      if (vd->xfb)
         sr_xfb_capture(vd);
      if (!st.rasterizer_discard)
         sr_setup_instance(vd);
   }
   vd->st = saved_st;
   vd->verts = saved_verts;
   vd->pos_rec = saved_pos;
   vd->restart = saved_restart;
   vd->count = saved_count;
   vd->primitive_id = saved_id;
   vd->layer = vd->draw->view_index;
}

/* The vertex record of input position `pos`: through the record table
 * (pos_rec) where the draw has one, else `pos` itself. */
static uint32_t
record_of(const struct sr_vdraw *vd, uint32_t pos)
{
   return vd->pos_rec ? vd->pos_rec[pos] : pos;
}

/* ---- Adjacency without a geometry shader ---- */

/* Each primitive's own vertices, as a list or strip of the topology
 * without adjacency. */
static void
adjacency_draw(struct sr_vdraw *vd)
{
   const VkPrimitiveTopology t = vd->st->topology;
   struct out_list l = {.alloc = vd->scene->ctx->alloc};
   VkPrimitiveTopology base = t == VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY  ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST
                              : t == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY ? VK_PRIMITIVE_TOPOLOGY_LINE_STRIP
                              : t == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY
                                 ? VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST
                                 : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
   bool ok = true;
   for (uint32_t b = 0, i = 0; ok && i <= vd->count; i++) {
      if (i < vd->count && !(vd->restart && vd->restart[i]))
         continue;
      uint32_t n = sr_prim_count(t, i - b);
      if (n) {
         switch (t) {
         case VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY:
            for (uint32_t p = 0; ok && p < n; p++)
               ok = out_pos(&l, record_of(vd, b + 4 * p + 1), false) &&
                    out_pos(&l, record_of(vd, b + 4 * p + 2), false);
            break;
         case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY:
            for (uint32_t v = 1; ok && v <= n + 1; v++)
               ok = out_pos(&l, record_of(vd, b + v), false);
            break;
         case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY:
            for (uint32_t p = 0; ok && p < n; p++)
               for (uint32_t v = 0; ok && v < 6; v += 2)
                  ok = out_pos(&l, record_of(vd, b + 6 * p + v), false);
            break;
         default:
            for (uint32_t v = 0; ok && v < n + 2; v++)
               ok = out_pos(&l, record_of(vd, b + 2 * v), false);
            break;
         }
         ok = ok && out_pos(&l, 0, true);
      }
      b = i + 1;
   }
   if (!ok)
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
   else
      setup_list(vd, &l, vd->verts, base);
   out_free(&l);
}

/* ---- Geometry shader ---- */

struct gs_job {
   const struct sr_vdraw *vd;
   struct shale_gs_context ctx;
   const uint32_t *prims;        /* [nprims][6]: records of the chunk's primitives */
   const uint32_t *prim_ids;     /* [nprims]: PrimitiveIdIn */
   uint32_t nprims, tverts;      /* primitives; vertices each (the topology's) */
   uint32_t w, inv, ov, out_words, vin, stride;
   float *recs;                  /* [batch][lane][ov][stride] */
   uint32_t *emitted;            /* [batch][lane] */
   uint8_t *cut;                 /* [batch][lane][ov] */
   uint32_t *scratch;            /* per worker: inputs, outputs, cut words */
   size_t scratch_words, in_words, out_total;
};

static void
run_batches(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   const struct gs_job *job = data;
   const struct sr_vdraw *vd = job->vd;
   const struct sr_geom *g = vd->geom;
   const uint32_t w = job->w, ov = job->ov;
   uint32_t *in = job->scratch + worker * job->scratch_words;
   uint32_t *out = in + job->in_words;
   uint32_t *cutw = out + job->out_total;
   for (uint64_t bi = begin; bi < end && !sr_scene_cancelled(vd->scene); bi++) {
      const uint32_t group = (uint32_t)bi / job->inv, inv = (uint32_t)bi % job->inv;
      const uint32_t p0 = group * w;
      const uint32_t cnt = job->nprims - p0 < w ? job->nprims - p0 : w;
      struct shale_gs_batch batch = {
         .count = cnt, .invocation_id = inv, .inputs = in, .outputs = out, .cut = cutw};
      for (uint32_t i = 0; i < cnt; i++) {
         batch.primitive_id[i] = job->prim_ids[p0 + i];
         const uint32_t *pr = job->prims + (size_t)(p0 + i) * 6;
         for (uint32_t v = 0; v < job->vin; v++) {
            const uint32_t *raw = v < job->tverts
                                     ? (const uint32_t *)vd->verts + (size_t)pr[v] * g->in_stride
                                     : NULL;
            for (uint32_t si = 0; si < g->in_slots; si++)
               for (uint32_t c = 0; c < 4; c++)
                  in[((v * SHALE_SLOT_COUNT + g->in_slot[si]) * 4 + c) * w + i] = raw ? raw[si * 4 + c] : 0;
         }
      }
      vd->st->gs(&job->ctx, &batch);
      for (uint32_t i = 0; i < cnt; i++) {
         uint32_t em = batch.emitted[i] < ov ? batch.emitted[i] : ov;
         job->emitted[bi * w + i] = em;
         float *r = job->recs + ((bi * w + i) * ov) * job->stride;
         uint8_t *cut = job->cut + (bi * w + i) * ov;
         for (uint32_t k = 0; k < em; k++) {
            out_record(vd, out + (size_t)k * job->out_words * w + i, w, r + (size_t)k * job->stride);
            cut[k] = cutw[k * w + i] != 0;
         }
      }
   }
}

/* Appends the chunk's output in API order: primitive by primitive, each
 * one's invocations in order, each invocation's vertices as emitted; a
 * restart between strips. */
static bool
append_chunk(struct sr_vdraw *vd, const struct gs_job *job, struct out_list *l)
{
   const VkPrimitiveTopology topo = vd->st->gs_io.output_topology;
   const uint32_t w = job->w, ov = job->ov, stride = job->stride;
   for (uint32_t p = 0; p < job->nprims; p++) {
      for (uint32_t n = 0; n < job->inv; n++) {
         const size_t bi = (size_t)(p / w) * job->inv + n, i = p % w;
         const uint32_t em = job->emitted[bi * w + i];
         const float *r = job->recs + ((bi * w + i) * ov) * stride;
         const uint8_t *cut = job->cut + (bi * w + i) * ov;
         vd->gs_invocations++;
         if (!em)
            continue;
         size_t need = l->nrec + em;
         if (!sr_geom_grow(l->alloc, (void **)&l->recs, &l->cap_rec, need * stride, sizeof(float))) {
            return false;
         }
         uint32_t len = 0;
         for (uint32_t k = 0; k < em; k++) {
            if (k && cut[k]) {
               vd->gs_primitives += sr_prim_count(topo, len);
               len = 0;
               if (!out_pos(l, 0, true))
                  return false;
            }
            memcpy(l->recs + l->nrec * stride, r + (size_t)k * stride, stride * sizeof(float));
            if (!out_pos(l, (uint32_t)l->nrec, false))
               return false;
            l->nrec++;
            len++;
         }
         vd->gs_primitives += sr_prim_count(topo, len);
         if (!out_pos(l, 0, true))
            return false;
      }
   }
   return true;
}

static void
geometry_draw(struct sr_vdraw *vd)
{
   const struct sr_draw_state *st = vd->st;
   const struct shale_gs_info *gi = &st->gs_io;
   const VkAllocationCallbacks *alloc = vd->scene->ctx->alloc;
   const VkPrimitiveTopology t = st->topology;
   struct gs_job job = {
      .vd = vd,
      .w = st->gs_width ? st->gs_width : 1,
      .inv = gi->invocations ? gi->invocations : 1,
      .ov = gi->output_vertices,
      .out_words = gi->out_words,
      .vin = gi->vertices_in,
      .stride = vd->stride,
   };
   for (unsigned s = 0; s < SHALE_MAX_DESCRIPTOR_SETS; s++)
      job.ctx.sets[s] = vd->vs_ctx.sets[s];
   job.ctx.push_constants = vd->vs_ctx.push_constants;
   job.ctx.cancel = vd->vs_ctx.cancel;
   job.ctx.view_index = vd->vs_ctx.view_index;
   const size_t region = (size_t)job.w * job.ov * (job.stride * sizeof(float) + 1) + job.w * 4;
   uint32_t groups = (uint32_t)(GEOM_CHUNK_BYTES / (region * job.inv));
   groups = groups < 1 ? 1 : groups > GEOM_CHUNK_GROUPS ? GEOM_CHUNK_GROUPS : groups;
   const uint32_t batches = groups * job.inv;
   const unsigned participants = su_thread_pool_size(vd->scene->ctx->pool);
   job.in_words = (size_t)job.vin * SHALE_SLOT_COUNT * 4 * job.w;
   job.out_total = (size_t)job.ov * job.out_words * job.w;
   job.scratch_words = (job.in_words + job.out_total + (size_t)job.ov * job.w + 15) & ~(size_t)15;

   /* The instance's input primitives. */
   uint32_t total = 0;
   for (uint32_t b = 0, i = 0; i <= vd->count; i++)
      if (i == vd->count || (vd->restart && vd->restart[i])) {
         total += sr_prim_count(t, i - b);
         b = i + 1;
      }
   struct out_list l = {.alloc = alloc, .stride = job.stride};
   uint32_t *prims = sr_alloc(alloc, ((size_t)total * 7 + 1) * sizeof(uint32_t), 64);
   float *recs = sr_alloc(alloc, (size_t)batches * job.w * job.ov * job.stride * sizeof(float) + 64, 64);
   uint32_t *emitted = sr_alloc(alloc, (size_t)batches * job.w * sizeof(uint32_t), 64);
   uint8_t *cut = sr_alloc(alloc, (size_t)batches * job.w * job.ov + 64, 64);
   uint32_t *scratch = sr_alloc(alloc, job.scratch_words * participants * sizeof(uint32_t), 64);
   bool ok = prims && recs && emitted && cut && scratch;
   if (ok) {
      uint32_t *ids = prims + (size_t)total * 6, np = 0;
      for (uint32_t b = 0, i = 0; i <= vd->count; i++) {
         if (i < vd->count && !(vd->restart && vd->restart[i]))
            continue;
         uint32_t n = sr_prim_count(t, i - b);
         for (uint32_t p = 0; p < n; p++, np++) {
            uint32_t pos[6] = {0};
            job.tverts = prim_positions(t, b, p, n, pos);
            for (unsigned v = 0; v < 6; v++)
               prims[(size_t)np * 6 + v] = v < job.tverts ? record_of(vd, pos[v]) : 0;
            ids[np] = vd->primitive_id + np;
         }
         b = i + 1;
      }
      job.recs = recs;
      job.emitted = emitted;
      job.cut = cut;
      job.scratch = scratch;
      for (uint32_t p0 = 0; ok && p0 < total; p0 += groups * job.w) {
         if (sr_scene_cancelled(vd->scene))
            break;
         job.prims = prims + (size_t)p0 * 6;
         job.prim_ids = ids + p0;
         job.nprims = total - p0 < groups * job.w ? total - p0 : groups * job.w;
         uint32_t nb = (job.nprims + job.w - 1) / job.w * job.inv;
         su_thread_pool_run(vd->scene->ctx->pool, nb, 1, run_batches, &job);
         if (sr_scene_cancelled(vd->scene))
            break;
         ok = append_chunk(vd, &job, &l);
      }
   }
   sr_free(alloc, prims);
   sr_free(alloc, recs);
   sr_free(alloc, emitted);
   sr_free(alloc, cut);
   sr_free(alloc, scratch);
   if (!ok)
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
   else if (!sr_scene_cancelled(vd->scene))
      setup_list(vd, &l, l.recs, gi->output_topology);
   out_free(&l);
}

void
sr_geom_instance(struct sr_vdraw *vd)
{
   if (vd->st->gs)
      geometry_draw(vd);
   else
      adjacency_draw(vd);
}
