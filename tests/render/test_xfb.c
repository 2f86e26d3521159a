/* VK_EXT_transform_feedback (zink needs it for GL 3.0): a vertex shader
 * (xfb/xfb.vert) captures gl_Position and a tag (VertexIndex | InstanceIndex
 * << 16) into buffer 0 (stride 20) and a vec2 at offset 4 of buffer 1
 * (stride 12: bytes 0-3 of each vertex are never written). Every case is
 * compared with a CPU reference of the spec's rules: primitives in
 * primitive order, strips and fans as separate triangles and lines
 * (triangles may start at any of their vertices, keeping the winding),
 * incomplete primitives dropped, primitive restart, instancing, with
 * rasterizerDiscardEnable, binding offsets and sizes (VK_WHOLE_SIZE), a
 * primitive that does not fit in a buffer not written to either buffer, the
 * counters vkCmdEndTransformFeedbackEXT writes, resuming from them, the
 * TRANSFORM_FEEDBACK_STREAM query (primitives written and needed, through
 * vkCmdBeginQueryIndexedEXT) and vkCmdDrawIndirectByteCountEXT. With
 * VK_EXT_provoking_vertex's transformFeedbackPreservesProvokingVertex
 * enabled, triangles must start with their provoking vertex (FIRST) or end
 * with it (LAST mode cases), so the order is exact. On Shale (at the
 * SHALE_THREADS the harness sets) and on lavapipe. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"
#include "xfb_util.h"

#include "xfb_frag_spv.h"
#include "xfb_vert_spv.h"

#define W 32
#define H 32
#define NV 64                  /* vertices in the vertex buffer */
#define BUF_SIZE 4096
#define FILL 0xab
#define S0 20                  /* strides */
#define S1 12

static PFN_vkCmdDrawIndirectByteCountEXT draw_bc;

static float vpos[NV][4];

struct env {
   struct vkt t;
   const char *dn;
   bool preserve;                 /* transformFeedbackPreservesProvokingVertex enabled */
   struct draw_target dt;
   struct vkt_buffer vb, ib, xb[2], counters, qres;
   VkQueryPool qpool;
};

struct xcase {
   const char *name;
   VkPrimitiveTopology topo;
   bool restart, discard;
   uint32_t count;                /* vertices or indices */
   const uint16_t *indices;       /* NULL: not indexed */
   uint32_t instances, first_instance;
   VkDeviceSize off[2], size[2];  /* binding; size 0: pSizes NULL */
   bool last;                     /* provoking vertex LAST (needs `preserve`) */
};

/* The expected capture: vertices (index, instance) of each primitive. */
struct prim {
   uint32_t n;
   uint32_t v[3];
   uint32_t inst;
};
#define MAXP 256

static uint32_t
emit(struct prim *p, uint32_t np, uint32_t n, uint32_t a, uint32_t b, uint32_t c, uint32_t inst)
{
   if (np < MAXP)
      p[np] = (struct prim) { n, { a, b, c }, inst };
   return np + 1;
}

/* The spec's decomposition of one run (no restart) of vertex indices. */
static uint32_t
ref_run(VkPrimitiveTopology t, const uint32_t *vi, uint32_t len, uint32_t inst, bool last,
        struct prim *p, uint32_t np)
{
   for (uint32_t i = 0;; i++) {
      switch (t) {
      case VK_PRIMITIVE_TOPOLOGY_POINT_LIST:
         if (i >= len) return np;
         np = emit(p, np, 1, vi[i], 0, 0, inst);
         break;
      case VK_PRIMITIVE_TOPOLOGY_LINE_LIST:
         if (2 * i + 1 >= len) return np;
         np = emit(p, np, 2, vi[2 * i], vi[2 * i + 1], 0, inst);
         break;
      case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP:
         if (i + 1 >= len) return np;
         np = emit(p, np, 2, vi[i], vi[i + 1], 0, inst);
         break;
      case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
         if (3 * i + 2 >= len) return np;
         np = emit(p, np, 3, vi[3 * i], vi[3 * i + 1], vi[3 * i + 2], inst);
         break;
      case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
         if (i + 2 >= len) return np;
         /* odd triangles keep the strip's winding; the provoking vertex
          * (i, or i + 2 in LAST mode) first or last */
         if (i % 2 == 0)
            np = emit(p, np, 3, vi[i], vi[i + 1], vi[i + 2], inst);
         else if (!last)
            np = emit(p, np, 3, vi[i], vi[i + 2], vi[i + 1], inst);
         else
            np = emit(p, np, 3, vi[i + 1], vi[i], vi[i + 2], inst);
         break;
      default: /* fan: provoking vertex i + 1, or i + 2 in LAST mode */
         if (i + 2 >= len) return np;
         np = last ? emit(p, np, 3, vi[0], vi[i + 1], vi[i + 2], inst)
                   : emit(p, np, 3, vi[i + 1], vi[i + 2], vi[0], inst);
         break;
      }
   }
}

static uint32_t
ref_prims(const struct xcase *c, uint32_t base_vertex, struct prim *p)
{
   uint32_t np = 0, vi[NV * 2], len = 0;
   for (uint32_t inst = 0; inst < c->instances; inst++) {
      len = 0;
      for (uint32_t k = 0; k <= c->count; k++) {
         bool end = k == c->count;
         bool restart = !end && c->indices && c->restart && c->indices[k] == 0xffff;
         if (end || restart) {
            np = ref_run(c->topo, vi, len, inst + c->first_instance, c->last, p, np);
            len = 0;
            continue;
         }
         vi[len++] = c->indices ? c->indices[k] : base_vertex + k;
      }
   }
   return np;
}

/* A vertex's captured words in buffer 0 (5) and buffer 1 (2 at +4). */
static void
ref_vertex(uint32_t v, uint32_t inst, uint32_t b0[5], float b1[2])
{
   memcpy(b0, vpos[v], 16);
   b0[4] = v | inst << 16;
   b1[0] = vpos[v][0] * 2.0f;
   b1[1] = vpos[v][1] * 2.0f;
}

static VkResult
make_pipeline(struct env *e, VkPrimitiveTopology topo, bool restart, bool discard, bool last,
              struct draw_pipeline *p)
{
   VkPipelineRasterizationProvokingVertexStateCreateInfoEXT pv = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
      .provokingVertexMode = VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT,
   };
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .pNext = last ? &pv : NULL,
      .rasterizerDiscardEnable = discard,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .cullMode = VK_CULL_MODE_NONE,
      .lineWidth = 1.0f,
   };
   struct draw_pipeline_info pi = {
      .vs = xfb_vert_spv, .vs_size = sizeof(xfb_vert_spv),
      .fs = xfb_frag_spv, .fs_size = sizeof(xfb_frag_spv),
      .stride = 16, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT },
      .topology = topo, .primitive_restart = restart, .rasterization = &rs,
   };
   return draw_pipeline_create(&e->t, &e->dt, &pi, p);
}

static void
bind(struct env *e, VkCommandBuffer cb, const VkDeviceSize off[2], const VkDeviceSize size[2])
{
   VkBuffer bufs[2] = { e->xb[0].buffer, e->xb[1].buffer };
   bind_xfb(cb, 0, 2, bufs, off, size[0] || size[1] ? size : NULL);
}

static void
reset_buffers(struct env *e)
{
   memset(e->xb[0].map, FILL, BUF_SIZE);
   memset(e->xb[1].map, FILL, BUF_SIZE);
   memset(e->counters.map, 0, 64);
}

/* Checks the buffers against the reference primitives p[0..np) written
 * from (bound offset + start[b]); returns how many were written. */
static uint32_t
check_buffers(struct env *e, const char *name, const struct prim *p, uint32_t np,
              const VkDeviceSize off[2], const uint64_t limit[2], const uint32_t start[2])
{
   const uint8_t *m0 = e->xb[0].map, *m1 = e->xb[1].map;
   uint64_t pos[2] = { start[0], start[1] };
   uint32_t written = 0;
   unsigned bad = 0;
   for (uint32_t i = 0; i < np; i++) {
      uint32_t n = p[i].n;
      if (pos[0] + n * S0 > limit[0] || pos[1] + n * S1 > limit[1])
         continue;   /* does not fit: not written, later ones may */
      /* triangles may start at any vertex (keeping the winding) unless
       * the provoking vertex must be preserved: find the rotation */
      bool match = false;
      for (uint32_t r = 0; r < (n == 3 && !e->preserve ? 3u : 1u) && !match; r++) {
         match = true;
         for (uint32_t k = 0; k < n && match; k++) {
            uint32_t b0[5];
            float b1[2];
            ref_vertex(p[i].v[(k + r) % n], p[i].inst, b0, b1);
            match = !memcmp(m0 + off[0] + pos[0] + k * S0, b0, sizeof(b0)) &&
                    !memcmp(m1 + off[1] + pos[1] + k * S1 + 4, b1, sizeof(b1));
            const uint8_t gap[4] = { FILL, FILL, FILL, FILL };
            match = match && !memcmp(m1 + off[1] + pos[1] + k * S1, gap, 4);
         }
      }
      if (!match && bad++ < 3) {
         const uint32_t *g = (const uint32_t *)(m0 + off[0] + pos[0]);
         fprintf(stderr, "%s: %s: primitive %u (vertices %u %u %u, instance %u): got tags %x %x %x\n",
                 e->dn, name, i, p[i].v[0], p[i].v[1], p[i].v[2], p[i].inst, g[4],
                 n > 1 ? g[9] : 0, n > 2 ? g[14] : 0);
      }
      pos[0] += n * S0;
      pos[1] += n * S1;
      written++;
   }
   CHECK(bad == 0, "%s: %s: %u of %u primitives captured wrong", e->dn, name, bad, np);
   /* Nothing past what was written (nor before the binding) changed. */
   for (int b = 0; b < 2; b++) {
      const uint8_t *m = b ? m1 : m0;
      unsigned changed = 0;
      for (uint64_t k = 0; k < BUF_SIZE; k++) {
         bool inside = k >= off[b] + start[b] && k < off[b] + pos[b];
         if (!inside && m[k] != FILL)
            changed++;
      }
      CHECK(changed == 0, "%s: %s: buffer %d: %u bytes outside the capture changed", e->dn,
            name, b, changed);
   }
   uint32_t *cnt = e->counters.map;
   CHECK(cnt[0] == pos[0] && cnt[1] == pos[1], "%s: %s: counters %u %u, expected %u %u", e->dn,
         name, cnt[0], cnt[1], (uint32_t)pos[0], (uint32_t)pos[1]);
   return written;
}

static void
reset_query(struct env *e)
{
   VkCommandBuffer cb = vkt_begin(&e->t);
   vkCmdResetQueryPool(cb, e->qpool, 0, 1);
   CHECK(vkt_submit_wait(&e->t, cb) == VK_SUCCESS, "%s: query reset", e->dn);
}

static void
check_query(struct env *e, const char *name, uint64_t written, uint64_t needed)
{
   uint64_t r[3] = { 0 };
   VkResult res = vkGetQueryPoolResults(e->t.device, e->qpool, 0, 1, sizeof(r), r, sizeof(r),
                                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT |
                                           VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
   CHECK(res == VK_SUCCESS && r[2] == 1, "%s: %s: query result %d, available %llu", e->dn, name,
         res, (unsigned long long)r[2]);
   CHECK(r[0] == written && r[1] == needed,
         "%s: %s: query: %llu written, %llu needed; expected %llu, %llu", e->dn, name,
         (unsigned long long)r[0], (unsigned long long)r[1], (unsigned long long)written,
         (unsigned long long)needed);
   /* The same through vkCmdCopyQueryPoolResults, 32-bit. */
   uint32_t *q = e->qres.map;
   CHECK(q[0] == written && q[1] == needed && q[2] == 1, "%s: %s: copied query %u %u %u", e->dn,
         name, q[0], q[1], q[2]);
}

/* One draw with transform feedback active, query around it. */
static void
run_case(struct env *e, const struct xcase *c)
{
   struct vkt *t = &e->t;
   struct draw_pipeline p;
   VkResult r = make_pipeline(e, c->topo, c->restart, c->discard, c->last, &p);
   CHECK(r == VK_SUCCESS, "%s: %s: pipeline", e->dn, c->name);
   if (r != VK_SUCCESS)
      return;
   reset_buffers(e);
   if (c->indices)
      memcpy(e->ib.map, c->indices, c->count * 2);
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdResetQueryPool(cb, e->qpool, 0, 1);
   vkt_compute_barrier(cb);
   VkClearValue clear = { .color = { { 0 } } };
   VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                 .renderPass = e->dt.render_pass,
                                 .framebuffer = e->dt.framebuffer,
                                 .renderArea = { { 0, 0 }, { W, H } },
                                 .clearValueCount = 1, .pClearValues = &clear };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
   VkDeviceSize zero = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &e->vb.buffer, &zero);
   if (c->indices)
      vkCmdBindIndexBuffer(cb, e->ib.buffer, 0, VK_INDEX_TYPE_UINT16);
   bind(e, cb, c->off, c->size);
   begin_qi(cb, e->qpool, 0, 0, 0);
   begin_xfb(cb, 0, 0, NULL, NULL);
   const uint32_t first_vertex = 3;
   if (c->indices)
      vkCmdDrawIndexed(cb, c->count, c->instances, 0, 0, c->first_instance);
   else
      vkCmdDraw(cb, c->count, c->instances, first_vertex, c->first_instance);
   VkBuffer cbufs[2] = { e->counters.buffer, e->counters.buffer };
   VkDeviceSize coffs[2] = { 0, 4 };
   end_xfb(cb, 0, 2, cbufs, coffs);
   end_qi(cb, e->qpool, 0, 0);
   vkCmdEndRenderPass(cb);
   vkCmdCopyQueryPoolResults(cb, e->qpool, 0, 1, e->qres.buffer, 0, 12,
                             VK_QUERY_RESULT_WAIT_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
   vkt_compute_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: %s: submit", e->dn, c->name);

   static struct prim pr[MAXP];
   uint32_t np = ref_prims(c, first_vertex, pr);
   uint64_t limit[2];
   for (int b = 0; b < 2; b++)
      limit[b] = c->size[b] && c->size[b] != VK_WHOLE_SIZE ? c->size[b] : BUF_SIZE - c->off[b];
   const uint32_t start[2] = { 0, 0 };
   uint32_t written = check_buffers(e, c->name, pr, np, c->off, limit, start);
   check_query(e, c->name, written, np);
   draw_pipeline_destroy(t, &p);
}

/* Two passes, the second resuming from the counters the first wrote (with
 * binding offsets). */
static void
run_resume(struct env *e)
{
   struct vkt *t = &e->t;
   struct draw_pipeline p;
   CHECK(make_pipeline(e, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, false, &p) == VK_SUCCESS,
         "%s: pipeline", e->dn);
   reset_buffers(e);
   const VkDeviceSize off[2] = { 8, 12 }, size[2] = { VK_WHOLE_SIZE, VK_WHOLE_SIZE };
   VkBuffer cbufs[2] = { e->counters.buffer, e->counters.buffer };
   VkDeviceSize coffs[2] = { 0, 4 };
   for (int pass = 0; pass < 2; pass++) {
      VkCommandBuffer cb = draw_begin(t, &e->dt, &p, e->vb.buffer);
      bind(e, cb, off, size);
      begin_xfb(cb, 0, pass ? 2 : 0, pass ? cbufs : NULL, pass ? coffs : NULL);
      vkCmdDraw(cb, 6, 1, pass ? 10 : 0, 0);
      end_xfb(cb, 0, 2, cbufs, coffs);
      CHECK(draw_end(t, &e->dt, cb) == VK_SUCCESS, "%s: resume pass %d", e->dn, pass);
   }
   static struct prim pr[MAXP];
   const struct xcase a = { "resume", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .count = 6,
                            .instances = 1 };
   uint32_t np = ref_prims(&a, 0, pr);
   np += ref_prims(&a, 10, pr + np);
   const uint64_t limit[2] = { BUF_SIZE - off[0], BUF_SIZE - off[1] };
   const uint32_t start[2] = { 0, 0 };
   CHECK(check_buffers(e, "two passes, resumed", pr, np, off, limit, start) == 4,
         "%s: resume: 4 triangles", e->dn);

   draw_pipeline_destroy(t, &p);
}

static void
run_bytecount(struct env *e)
{
   struct vkt *t = &e->t;
   struct draw_pipeline p;
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_NONE, .lineWidth = 1.0f,
   };
   struct draw_pipeline_info pi = {
      .vs = xfb_vert_spv, .vs_size = sizeof(xfb_vert_spv),
      .fs = xfb_frag_spv, .fs_size = sizeof(xfb_frag_spv),
      .stride = S0, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT },
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .rasterization = &rs,
   };
   CHECK(draw_pipeline_create(t, &e->dt, &pi, &p) == VK_SUCCESS, "%s: pipeline", e->dn);
   /* The source: 9 vertices of stride 20 in the vertex buffer's memory
    * (positions at offset 0); a counter of 9 * 20 + 40 bytes with
    * counterOffset 40 gives 9 vertices: 3 triangles. */
   float *src = e->vb.map;
   float saved[NV * 4];
   memcpy(saved, src, sizeof(saved));
   for (uint32_t i = 0; i < 9; i++)
      memcpy((uint8_t *)src + i * S0, vpos[i + 20], 16);
   reset_buffers(e);
   reset_query(e);
   uint32_t *cnt = e->counters.map;
   cnt[4] = 9 * S0 + 40;
   const VkDeviceSize off[2] = { 0, 0 }, size[2] = { 0, 0 };
   VkCommandBuffer cb = draw_begin(t, &e->dt, &p, e->vb.buffer);
   bind(e, cb, off, size);
   begin_qi(cb, e->qpool, 0, 0, 0);
   begin_xfb(cb, 0, 0, NULL, NULL);
   draw_bc(cb, 1, 2, e->counters.buffer, 16, 40, S0);
   VkBuffer cbufs[2] = { e->counters.buffer, e->counters.buffer };
   VkDeviceSize coffs[2] = { 0, 4 };
   end_xfb(cb, 0, 2, cbufs, coffs);
   end_qi(cb, e->qpool, 0, 0);
   CHECK(draw_end(t, &e->dt, cb) == VK_SUCCESS, "%s: bytecount", e->dn);
   /* Expected: vertices 0..8 with positions vpos[20..28], instance 2. */
   const uint8_t *m0 = e->xb[0].map;
   unsigned bad = 0;
   for (uint32_t i = 0; i < 9; i++) {
      uint32_t got[5];
      memcpy(got, m0 + i * S0, sizeof(got));
      if (memcmp(got, vpos[i + 20], 16) || got[4] != (i | 2u << 16))
         bad++;
   }
   CHECK(bad == 0, "%s: vkCmdDrawIndirectByteCountEXT: %u of 9 vertices wrong", e->dn, bad);
   CHECK(cnt[0] == 9 * S0 && cnt[1] == 9 * S1, "%s: bytecount counters %u %u", e->dn, cnt[0],
         cnt[1]);
   uint64_t r[2] = { 0 };
   vkGetQueryPoolResults(t->device, e->qpool, 0, 1, sizeof(r), r, sizeof(r),
                         VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   CHECK(r[0] == 3 && r[1] == 3, "%s: bytecount query %llu %llu", e->dn,
         (unsigned long long)r[0], (unsigned long long)r[1]);
   memcpy(src, saved, sizeof(saved));
   draw_pipeline_destroy(t, &p);
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceTransformFeedbackFeaturesEXT tf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT };
   VkPhysicalDeviceTransformFeedbackPropertiesEXT tp = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_PROPERTIES_EXT };
   struct vkt_options o;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME, &tf, &tp, NULL,
                             &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   struct env e = { .dn = vkt_driver_name(which) };
   VkPhysicalDeviceProvokingVertexFeaturesEXT pf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT };
   VkPhysicalDeviceProvokingVertexPropertiesEXT pp = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_PROPERTIES_EXT };
   struct vkt_options o2;
   bool has_pv = false;
   draw_probe_extension(which, &o2, VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME, &pf, &pp, NULL,
                        &has_pv);
   e.preserve = has_pv && pf.provokingVertexLast && pf.transformFeedbackPreservesProvokingVertex &&
                pp.transformFeedbackPreservesTriangleFanProvokingVertex;
   if (which == VKT_SHALE) {
      CHECK(e.preserve, "shale: transformFeedbackPreservesProvokingVertex (fans too) not offered");
      CHECK(has && tf.transformFeedback && !tf.geometryStreams, "shale: extension %u, features %u %u",
            has, tf.transformFeedback, tf.geometryStreams);
      CHECK(tp.maxTransformFeedbackStreams == 1 && tp.maxTransformFeedbackBuffers >= 2 &&
               tp.transformFeedbackQueries && tp.transformFeedbackDraw &&
               !tp.transformFeedbackStreamsLinesTriangles &&
               !tp.transformFeedbackRasterizationStreamSelect &&
               tp.maxTransformFeedbackStreamDataSize >= 512 &&
               tp.maxTransformFeedbackBufferDataStride >= 512 &&
               tp.maxTransformFeedbackBufferSize >= (1u << 27),
            "shale: properties");
   }
   if (!has || !tf.transformFeedback) {
      fprintf(stderr, "%s: no transform feedback, not run\n", e.dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME,
                                        VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME };
   VkPhysicalDeviceProvokingVertexFeaturesEXT enable_pv = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT,
      .provokingVertexLast = VK_TRUE,
      .transformFeedbackPreservesProvokingVertex = VK_TRUE,
   };
   VkPhysicalDeviceTransformFeedbackFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT,
      .pNext = e.preserve ? &enable_pv : NULL,
      .transformFeedback = VK_TRUE,
   };
   o.device_extensions = dexts;
   o.device_extension_count = e.preserve ? 2 : 1;
   if (!e.preserve)
      fprintf(stderr, "%s: provoking vertex not preserved: triangles compared up to rotation, "
                      "LAST cases not run\n", e.dn);
   o.device_pnext = &enable;
   if (!vkt_init(&e.t, &o)) {
      CHECK(0, "%s: device with VK_EXT_transform_feedback", e.dn);
      return;
   }
   struct vkt *t = &e.t;
   xfb_get_commands(t);
   draw_bc = (void *)vkGetDeviceProcAddr(t->device, "vkCmdDrawIndirectByteCountEXT");
   CHECK(draw_bc, "vkCmdDrawIndirectByteCountEXT");
   e.dt = (struct draw_target) { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H };
   CHECK(draw_target_create(t, &e.dt) == VK_SUCCESS, "%s: target", e.dn);
   CHECK(draw_upload(t, vpos, sizeof(vpos), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e.vb) == VK_SUCCESS,
         "%s: vertices", e.dn);
   CHECK(vkt_buffer_create(t, 256, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &e.ib) == VK_SUCCESS, "ib");
   for (int b = 0; b < 2; b++)
      CHECK(vkt_buffer_create(t, BUF_SIZE, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT |
                                              VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                              &e.xb[b]) == VK_SUCCESS, "xfb buffer");
   CHECK(vkt_buffer_create(t, 64, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_COUNTER_BUFFER_BIT_EXT |
                                     VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &e.counters) == VK_SUCCESS,
         "counters");
   CHECK(vkt_buffer_create(t, 64, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &e.qres) == VK_SUCCESS, "qres");
   xfb_query_pool(t, e.dn, &e.qpool);

   static const uint16_t restart_idx[] = { 0, 1, 2, 3, 0xffff, 4, 5, 6, 7, 8, 0xffff, 9, 10 };
   static const uint16_t fan_idx[] = { 30, 31, 32, 33, 0xffff, 34, 35, 36, 37 };
   const VkDeviceSize W0 = VK_WHOLE_SIZE;
   const struct xcase cases[] = {
      { "triangle list (an incomplete one at the end)", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
        false, false, 8, NULL, 1, 0, { 0, 0 }, { 0, 0 } },
      { "triangle strip", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, false, false, 7, NULL, 1, 0,
        { 0, 0 }, { 0, 0 } },
      { "triangle fan", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, false, false, 7, NULL, 1, 0,
        { 0, 0 }, { 0, 0 } },
      { "line list", VK_PRIMITIVE_TOPOLOGY_LINE_LIST, false, false, 7, NULL, 1, 0, { 0, 0 },
        { 0, 0 } },
      { "line strip", VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, false, false, 5, NULL, 1, 0, { 0, 0 },
        { 0, 0 } },
      { "point list", VK_PRIMITIVE_TOPOLOGY_POINT_LIST, false, false, 5, NULL, 1, 0, { 0, 0 },
        { 0, 0 } },
      { "indexed strip with restarts", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, true, false, 13,
        restart_idx, 1, 0, { 0, 0 }, { 0, 0 } },
      { "indexed fan with a restart, 2 instances", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, true,
        false, 9, fan_idx, 2, 5, { 0, 0 }, { 0, 0 } },
      { "instanced triangle list", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false, false, 6, NULL, 3,
        1, { 0, 0 }, { 0, 0 } },
      { "rasterizer discard, offsets, VK_WHOLE_SIZE", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
        false, true, 6, NULL, 2, 0, { 16, 40 }, { W0, W0 } },
      { "buffer 0 full after 2 of 4 triangles", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, false,
        false, 12, NULL, 1, 0, { 4, 0 }, { 2 * 3 * S0 + 50, W0 } },
      { "buffer 1 full after 1 of 3 lines (buffer 0 not written either)",
        VK_PRIMITIVE_TOPOLOGY_LINE_LIST, false, false, 6, NULL, 1, 0, { 0, 8 },
        { W0, 2 * S1 + 8 } },
      { "points after the buffers filled up", VK_PRIMITIVE_TOPOLOGY_POINT_LIST, false, true, 9,
        NULL, 1, 0, { 0, 0 }, { 4 * S0, 6 * S1 } },
   };
   const struct xcase last_cases[] = {
      { "triangle strip, LAST", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, .count = 7, .instances = 1,
        .last = true },
      { "triangle fan, LAST", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, .count = 7, .instances = 1,
        .last = true },
      { "indexed fan with a restart, LAST", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, true, .count = 9,
        .indices = fan_idx, .instances = 1, .last = true },
      { "triangle list, LAST", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .count = 9, .instances = 1,
        .last = true },
      { "line strip, LAST", VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, .count = 5, .instances = 1,
        .last = true },
   };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
      run_case(&e, &cases[i]);
   for (size_t i = 0; e.preserve && i < sizeof(last_cases) / sizeof(last_cases[0]); i++)
      run_case(&e, &last_cases[i]);
   run_resume(&e);
   run_bytecount(&e);

   vkDestroyQueryPool(t->device, e.qpool, NULL);
   vkt_buffer_destroy(t, &e.qres);
   vkt_buffer_destroy(t, &e.counters);
   vkt_buffer_destroy(t, &e.xb[1]);
   vkt_buffer_destroy(t, &e.xb[0]);
   vkt_buffer_destroy(t, &e.ib);
   vkt_buffer_destroy(t, &e.vb);
   draw_target_destroy(t, &e.dt);
   vkt_finish(t);
}

int
main(void)
{
   for (uint32_t i = 0; i < NV; i++) {
      vpos[i][0] = -0.9f + 0.028f * (float)i;
      vpos[i][1] = (i % 3) * 0.5f - 0.6f + 0.01f * (float)(i % 7);
      vpos[i][2] = 0.25f;
      vpos[i][3] = 1.0f;
   }
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
