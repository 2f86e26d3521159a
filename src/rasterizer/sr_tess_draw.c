/* Tessellation in a draw (sr_tess.h, steps 2a-2c): an instance's patches
 * (PATCH_LIST positions, patchControlPoints each) run on the workers in
 * chunks, each patch through sr_tess_run_patch (control shader, generator,
 * evaluation shader) into records of its own region; the calling thread
 * appends every patch's records and rebased indices in patch order and
 * sets the list up as sr_geom.c does a geometry shader's output, or, with
 * a geometry shader, hands it to the geometry stage as its input (the
 * records then the raw words the geometry shader reads). */
#include <string.h>

#include "sr_front.h"
#include "sr_tess.h"
#include "util/su_thread_pool.h"

/* A chunk's record regions stay below this many bytes (about). */
#define TESS_CHUNK_BYTES (8u << 20)
#define TESS_CHUNK_PATCHES 256u
#define VERTEX_WORDS ((size_t)SHALE_TESS_MAX_PATCH_VERTICES * SHALE_SLOT_COUNT * 4)

void
sr_tess_draw_init(struct sr_vdraw *vd, struct sr_geom *g)
{
   const struct sr_draw_state *st = vd->st;
   if (st->gs)
      sr_geom_init(vd, g);   /* the geometry shader's output records (prim_id_off, layer_off) */
   memset(g, 0, sizeof(*g));
   /* The control shader's input slots, as a geometry shader's. */
   for (uint32_t s = 0; s < SHALE_SLOT_COUNT; s++)
      if (st->tcs_io.inputs_read >> s & 1)
         g->in_slot[g->in_slots++] = (uint8_t)s;
   g->in_stride = 4 * g->in_slots;
   g->vs_written = st->vs_io.outputs_written;
   memset(g->out_j, 0xff, sizeof(g->out_j));
   vd->geom = g;
   /* Without a geometry shader, the fragment shader's PrimitiveId is the
    * patch's: each record holds it after its other words. */
   if (!st->gs)
      vd->prim_id_off = vd->stride++;
}

/* The geometry shader's input records after tessellation: its input
 * slots from the evaluation shader's outputs (sr_geom_init's table, the
 * record stride unchanged). */
static void
gs_input_geom(const struct sr_draw_state *st, struct sr_geom *g)
{
   sr_geom_table(&st->gs_io, st->tes_io.out.outputs_written, g);
}

struct tess_job {
   const struct sr_vdraw *vd;
   struct sr_tess_stages stages;
   struct shale_tess_context ctx;
   struct sr_tess_worker *workers;   /* [participants] */
   uint32_t *inputs;                 /* [participants][VERTEX_WORDS] */
   uint32_t first, count;            /* the chunk's patches */
   uint32_t max_vertices, max_indices;
   const struct sr_geom *gs_in;      /* with a geometry shader: its input records */
   uint32_t stride;                  /* words per record */
   float *recs;                      /* [patch of the chunk][max_vertices][stride] */
   uint32_t *index;                  /* [patch of the chunk][max_indices] */
   struct sr_tess_counts *counts;    /* [patch of the chunk] */
};

struct emit_to {
   const struct sr_vdraw *vd;
   const struct sr_geom *gs_in;
   float *recs;
   uint32_t stride;
   uint32_t patch_id;
};

/* Set-up records of a batch of evaluated points (the evaluation shader's
 * outputs, laid out as a vertex shader's). */
static void
emit_records(void *data, const uint32_t *o, uint32_t w, uint32_t first, uint32_t count)
{
   const struct emit_to *e = data;
   const struct sr_vdraw *vd = e->vd;
   if (e->gs_in) {
      /* The geometry shader's input words (0 where not written). */
      for (uint32_t i = 0; i < count; i++)
         sr_geom_words(e->gs_in, o, w, i, (uint32_t *)e->recs + (size_t)(first + i) * e->stride);
      return;
   }
   for (uint32_t i = 0; i < count; i++) {
      float *r = e->recs + (size_t)(first + i) * e->stride;
      sr_vertex_record(vd, &vd->st->tes_io.out, o, w, i, r);
      ((uint32_t *)r)[vd->prim_id_off] = e->patch_id;
      sr_setup_vertex(vd, r);
   }
}

static void
run_patches(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   const struct tess_job *job = data;
   const struct sr_vdraw *vd = job->vd;
   const struct sr_geom *g = vd->geom;
   struct sr_tess_worker *wk = &job->workers[worker];
   uint32_t *in = job->inputs + worker * VERTEX_WORDS;
   const uint32_t n = job->stages.patch_vertices;
   for (uint64_t p = begin; p < end && !sr_scene_cancelled(vd->scene); p++) {
      const uint32_t patch = job->first + (uint32_t)p;
      for (uint32_t v = 0; v < n; v++) {
         const uint32_t pos = patch * n + v;
         const uint32_t rec = vd->pos_rec ? vd->pos_rec[pos] : pos;
         const uint32_t *raw = (const uint32_t *)vd->verts + (size_t)rec * g->in_stride;
         for (uint32_t si = 0; si < g->in_slots; si++)
            for (uint32_t c = 0; c < 4; c++)
               in[(v * SHALE_SLOT_COUNT + g->in_slot[si]) * 4 + c] = raw[si * 4 + c];
      }
      struct emit_to e = {
         .vd = vd,
         .gs_in = job->gs_in,
         .recs = job->recs + (size_t)p * job->max_vertices * job->stride,
         .stride = job->stride,
         .patch_id = vd->primitive_id + patch,
      };
      struct sr_tess_counts *c = &job->counts[p];
      sr_tess_run_patch(&job->stages, wk, &job->ctx, in, e.patch_id, emit_records, &e, c);
      memcpy(job->index + (size_t)p * job->max_indices, wk->index,
             (size_t)c->primitives * c->prim_verts * sizeof(uint32_t));
   }
}

/* The generated list of the instance. */
struct tess_list {
   const VkAllocationCallbacks *alloc;
   float *recs;
   size_t nrec, cap_rec;             /* records */
   uint32_t *pos;
   size_t npos, cap_pos;
};

/* Appends the chunk's patches in order: records, then indices rebased. */
static bool
append_chunk(const struct tess_job *job, struct tess_list *l, uint32_t stride)
{
   for (uint32_t p = 0; p < job->count; p++) {
      const struct sr_tess_counts *c = &job->counts[p];
      const size_t ni = (size_t)c->primitives * c->prim_verts;
      if (!c->vertices)
         continue;
      if (!sr_geom_grow(l->alloc, (void **)&l->recs, &l->cap_rec,
                        (l->nrec + c->vertices) * stride, sizeof(float)) ||
          !sr_geom_grow(l->alloc, (void **)&l->pos, &l->cap_pos, l->npos + ni, sizeof(uint32_t)))
         return false;
      memcpy(l->recs + l->nrec * stride, job->recs + (size_t)p * job->max_vertices * stride,
             (size_t)c->vertices * stride * sizeof(float));
      const uint32_t *idx = job->index + (size_t)p * job->max_indices;
      for (size_t k = 0; k < ni; k++)
         l->pos[l->npos + k] = (uint32_t)l->nrec + idx[k];
      l->nrec += c->vertices;
      l->npos += ni;
   }
   return true;
}

/* The fields of the draw that running a list replaces (use_list), put
 * back afterwards (restore_draw). */
struct saved_draw {
   const struct sr_draw_state *st;
   const struct sr_geom *geom;
   float *verts;
   const uint32_t *pos_rec;
   const uint8_t *restart;
   uint32_t count, primitive_id;
};

/* Points vd at list l as a draw of state st without restarts; returns what
 * it replaced. */
static struct saved_draw
use_list(struct sr_vdraw *vd, const struct sr_draw_state *st, const struct tess_list *l)
{
   struct saved_draw saved = {
      .st = vd->st,
      .geom = vd->geom,
      .verts = vd->verts,
      .pos_rec = vd->pos_rec,
      .restart = vd->restart,
      .count = vd->count,
      .primitive_id = vd->primitive_id,
   };
   vd->st = st;
   vd->verts = l->recs;
   vd->pos_rec = l->pos;
   vd->restart = NULL;
   vd->count = (uint32_t)l->npos;
   return saved;
}

static void
restore_draw(struct sr_vdraw *vd, const struct saved_draw *saved)
{
   vd->st = saved->st;
   vd->geom = saved->geom;
   vd->verts = saved->verts;
   vd->pos_rec = saved->pos_rec;
   vd->restart = saved->restart;
   vd->count = saved->count;
   vd->primitive_id = saved->primitive_id;
}

/* The list as the geometry stage's input primitives of `topology`;
 * PrimitiveIdIn counts them from 0 in each instance (the primitives
 * presented to the geometry shader). */
static void
geometry_list(struct sr_vdraw *vd, struct tess_list *l, const struct sr_geom *gs_in,
              VkPrimitiveTopology topology)
{
   struct sr_draw_state st = *vd->st;
   st.topology = topology;
   st.primitive_restart = false;
   struct saved_draw saved = use_list(vd, &st, l);
   vd->geom = gs_in;
   vd->primitive_id = 0;
   if (l->npos)
      sr_geom_instance(vd);
   restore_draw(vd, &saved);
}

/* Captures and sets up the list as a draw of `topology` (no restarts). */
static void
setup_list(struct sr_vdraw *vd, struct tess_list *l, VkPrimitiveTopology topology)
{
   struct sr_draw_state st = *vd->st;
   st.topology = topology;
   st.primitive_restart = false;
   st.vs_io = st.tes_io.out;   /* transform feedback captures the evaluation shader's outputs */
   struct saved_draw saved = use_list(vd, &st, l);
   if (l->npos) {
      if (vd->xfb)
         sr_xfb_capture(vd);
      if (!st.rasterizer_discard)
         sr_setup_instance(vd);
   }
   restore_draw(vd, &saved);
   vd->layer = vd->draw->view_index;
}

void
sr_tess_instance(struct sr_vdraw *vd)
{
   const struct sr_draw_state *st = vd->st;
   const VkAllocationCallbacks *alloc = vd->scene->ctx->alloc;
   struct tess_job job = {.vd = vd};
   job.stages = (struct sr_tess_stages){
      .tcs = st->tcs,
      .tcs_io = &st->tcs_io,
      .tcs_block_size = st->tcs_block_size,
      .tcs_scratch_size = st->tcs_scratch_size,
      .tes = st->tes,
      .tes_io = &st->tes_io,
      .tes_width = st->tes_width ? st->tes_width : 1,
      .patch_vertices = st->patch_control_points,
   };
   const uint32_t n = st->patch_control_points;
   if (!st->tcs || n < 1 || n > SHALE_TESS_MAX_PATCH_VERTICES ||
       !sr_tess_merge_modes(&st->tcs_io.modes, &st->tes_io.modes, st->tess_lower_left != 0,
                            &job.stages.mode))
      return;   /* pipeline creation refuses such stages */
   for (unsigned s = 0; s < SHALE_MAX_DESCRIPTOR_SETS; s++)
      job.ctx.sets[s] = vd->vs_ctx.sets[s];
   job.ctx.push_constants = vd->vs_ctx.push_constants;
   job.ctx.cancel = vd->vs_ctx.cancel;
   job.ctx.view_index = vd->vs_ctx.view_index;
   /* Patches: consecutive runs of n positions; a partial last one is
    * dropped. */
   const uint32_t patches = vd->count / n;
   const VkPrimitiveTopology topo = job.stages.mode.point_mode ? VK_PRIMITIVE_TOPOLOGY_POINT_LIST
                                    : job.stages.mode.domain == SR_TESS_ISOLINES
                                       ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST
                                       : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
   const unsigned participants = su_thread_pool_size(vd->scene->ctx->pool);
   struct tess_list l = {.alloc = alloc};
   struct sr_geom gs_in;
   if (st->gs) {
      gs_input_geom(st, &gs_in);
      job.gs_in = &gs_in;
   }
   job.stride = st->gs ? gs_in.in_stride : vd->stride;
   bool ok = true;
   job.workers = sr_alloc(alloc, participants * sizeof(*job.workers), 64);
   job.inputs = sr_alloc(alloc, participants * VERTEX_WORDS * sizeof(uint32_t), 64);
   unsigned ready = 0;
   ok = job.workers && job.inputs;
   if (ok) {
      memset(job.inputs, 0, participants * VERTEX_WORDS * sizeof(uint32_t));
      for (; ready < participants; ready++)
         if (sr_tess_worker_init(&job.workers[ready], &job.stages, alloc) != VK_SUCCESS) {
            ok = false;
            break;
         }
   }
   uint32_t chunk = 1;
   if (ok) {
      job.max_vertices = job.workers[0].max_vertices;
      job.max_indices = job.workers[0].max_indices;
      const size_t region = (size_t)job.max_vertices * job.stride * sizeof(float) +
                            (size_t)job.max_indices * sizeof(uint32_t) + sizeof(*job.counts);
      chunk = (uint32_t)(TESS_CHUNK_BYTES / region);
      chunk = chunk < 1 ? 1 : chunk > TESS_CHUNK_PATCHES ? TESS_CHUNK_PATCHES : chunk;
      if (chunk > patches)
         chunk = patches ? patches : 1;
      job.recs = sr_alloc(alloc, (size_t)chunk * job.max_vertices * job.stride * sizeof(float) + 64, 64);
      job.index = sr_alloc(alloc, (size_t)chunk * job.max_indices * sizeof(uint32_t) + 64, 64);
      job.counts = sr_alloc(alloc, (size_t)chunk * sizeof(*job.counts), 64);
      ok = job.recs && job.index && job.counts;
   }
   for (uint32_t p0 = 0; ok && p0 < patches; p0 += chunk) {
      if (sr_scene_cancelled(vd->scene))
         break;
      job.first = p0;
      job.count = patches - p0 < chunk ? patches - p0 : chunk;
      su_thread_pool_run(vd->scene->ctx->pool, job.count, 1, run_patches, &job);
      if (sr_scene_cancelled(vd->scene))
         break;
      ok = append_chunk(&job, &l, job.stride);
      /* Pipeline statistics: every patch's control shader ran. */
      for (uint32_t p = 0; ok && p < job.count; p++) {
         vd->tcs_patches++;
         vd->tes_invocations += job.counts[p].vertices;
         vd->tess_primitives += job.counts[p].primitives;
      }
   }
   for (unsigned i = 0; i < ready; i++)
      sr_tess_worker_finish(&job.workers[i]);
   sr_free(alloc, job.workers);
   sr_free(alloc, job.inputs);
   sr_free(alloc, job.recs);
   sr_free(alloc, job.index);
   sr_free(alloc, job.counts);
   if (!ok)
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
   else if (!sr_scene_cancelled(vd->scene) && st->gs)
      geometry_list(vd, &l, &gs_in, topo);
   else if (!sr_scene_cancelled(vd->scene))
      setup_list(vd, &l, topo);
   sr_free(alloc, l.recs);
   sr_free(alloc, l.pos);
}
