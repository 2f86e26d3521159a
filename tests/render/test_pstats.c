/* Pipeline statistics queries (pipelineStatisticsQuery): a query over two
 * dispatches (direct and indirect) and a render pass with a 96x64-pixel
 * rectangle drawn twice (instancing) and 1500 tiny triangles covering no
 * sample (more than one setup chunk: Shale sets them up on several workers),
 * of which every fifth lies wholly outside the view volume and every fifth
 * crosses the near plane; a second query over an indexed triangle strip with
 * primitive restarts, three instances; a pool of three counters (vertex,
 * fragment, compute: results in bit order) over the rectangle alone; a
 * secondary command buffer inheriting the statistics (Shale: inheritedQueries);
 * a query over a draw with rasterizer discard and a line list; the rectangle
 * into 4 samples with sample shading (Shale: 4 invocations a pixel).
 * Results read on the host (64 and 32 bits, availability, WAIT; PARTIAL of
 * a query never begun), copied with vkCmdCopyQueryPoolResults, and reset by
 * the host (VK_EXT_host_query_reset). Input
 * assembly, vertex shader (non-indexed) and compute counts are exact on both
 * drivers; clipping and fragment counts are exact on Shale (sr_raster.h says
 * what each counts) and within bounds on lavapipe. The first two queries'
 * results are the same at SHALE_THREADS 1, 2 and 4 (the test runs itself). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"
#include "pstats_comp_spv.h"

#define W 256
#define H 128
#define NT 1500
#define NSTAT 11
#define ALL_STATS 0x7ffu
#define SUBSET_STATS (VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT | \
                      VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT | \
                      VK_QUERY_PIPELINE_STATISTIC_COMPUTE_SHADER_INVOCATIONS_BIT)

enum { IA_V, IA_P, VS, GS_I, GS_P, CL_I, CL_P, FS, TCS, TES, CS };
static const char *const stat_names[NSTAT] = {
   "input assembly vertices", "input assembly primitives", "vertex shader invocations",
   "geometry shader invocations", "geometry shader primitives", "clipping invocations",
   "clipping primitives", "fragment shader invocations", "tessellation control patches",
   "tessellation evaluation invocations", "compute shader invocations",
};

#define RECT_FIRST 0
#define TINY_FIRST 6
#define STRIP_FIRST (TINY_FIRST + 3 * NT)
#define NV (STRIP_FIRST + 12)
#define RECT_PIXELS (96 * 64)

static struct draw_vertex verts[NV];
static const uint16_t strip_idx[] = { 0, 1, 2, 3, 0xffff, 4, 5, 6, 0xffff, 7, 8, 9, 10, 11 };

static void
set_v(struct draw_vertex *v, float px, float py, float z)
{
   *v = (struct draw_vertex) { { -1.0f + 2.0f * px / W, -1.0f + 2.0f * py / H, z, 1.0f },
                          { 1.0f, 0.5f, 0.25f, 1.0f } };
}

static void
make_vertices(void)
{
   /* The rectangle [16, 112) x [16, 80): pixel centres never on an edge. */
   set_v(&verts[0], 16, 16, 0.5f);
   set_v(&verts[1], 112, 16, 0.5f);
   set_v(&verts[2], 112, 80, 0.5f);
   set_v(&verts[3], 16, 16, 0.5f);
   set_v(&verts[4], 112, 80, 0.5f);
   set_v(&verts[5], 16, 80, 0.5f);
   /* Tiny triangles between pixel centres (x.6 to x.9). */
   for (int i = 0; i < NT; i++) {
      struct draw_vertex *v = &verts[TINY_FIRST + 3 * i];
      float px = 20.0f + (float)(i % 200), py = 84.0f + (float)(i / 200);
      float z01 = i % 5 == 1 ? -0.5f : 0.5f;   /* two vertices behind the near plane */
      set_v(&v[0], px + 0.6f, py + 0.6f, z01);
      set_v(&v[1], px + 0.9f, py + 0.6f, z01);
      set_v(&v[2], px + 0.6f, py + 0.9f, 0.5f);
      if (i % 5 == 0)   /* wholly right of the view volume */
         for (int k = 0; k < 3; k++)
            v[k].pos[0] = 1.5f + 0.1f * (float)k;
   }
   for (int k = 0; k < 12; k++)
      set_v(&verts[STRIP_FIRST + k], 200.6f + 0.1f * (float)(k % 3), 100.6f + 0.1f * (float)(k % 2),
            0.5f);
}

struct env {
   struct vkt t;
   const char *dn;
   bool shale, inherited, host_reset, sample_shading;
   struct draw_target dt;
   struct draw_pipeline list, strip, discard, lines;
   struct vkt_kernel kernel;
   struct vkt_buffer vb, ib, indirect, copy;
   VkQueryPool all, subset;
};

static VkRenderPassBeginInfo
pass_begin(const struct env *e)
{
   static VkClearValue clear;
   return (VkRenderPassBeginInfo) {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = e->dt.render_pass,
      .framebuffer = e->dt.framebuffer,
      .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 1,
      .pClearValues = &clear,
   };
}

/* Records and runs the main work: queries 0 and 1 of `all`, 0 of `subset`,
 * the copy of all's two queries (64-bit with availability) and subset's
 * (32-bit with availability). */
static bool
run_main(struct env *e)
{
   struct vkt *t = &e->t;
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdResetQueryPool(cb, e->all, 0, 5);
   vkCmdResetQueryPool(cb, e->subset, 0, 1);
   vkCmdBeginQuery(cb, e->all, 0, 0);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e->kernel.pipeline);
   vkCmdDispatch(cb, 3, 2, 1);
   vkCmdDispatchIndirect(cb, e->indirect.buffer, 0);
   VkRenderPassBeginInfo rbi = pass_begin(e);
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   VkDeviceSize zero = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &e->vb.buffer, &zero);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, e->list.pipeline);
   vkCmdDraw(cb, 6, 2, RECT_FIRST, 0);
   vkCmdDraw(cb, 3 * NT, 1, TINY_FIRST, 0);
   vkCmdEndQuery(cb, e->all, 0);
   vkCmdBeginQuery(cb, e->subset, 0, 0);
   vkCmdDraw(cb, 6, 1, RECT_FIRST, 0);
   vkCmdEndQuery(cb, e->subset, 0);
   vkCmdBeginQuery(cb, e->all, 1, 0);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, e->strip.pipeline);
   vkCmdBindIndexBuffer(cb, e->ib.buffer, 0, VK_INDEX_TYPE_UINT16);
   vkCmdDrawIndexed(cb, sizeof(strip_idx) / sizeof(strip_idx[0]), 3, 0, STRIP_FIRST, 0);
   vkCmdEndQuery(cb, e->all, 1);
   vkCmdBeginQuery(cb, e->all, 4, 0);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, e->discard.pipeline);
   vkCmdDraw(cb, 6, 1, RECT_FIRST, 0);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, e->lines.pipeline);
   vkCmdDraw(cb, 12, 1, STRIP_FIRST, 0);
   vkCmdEndQuery(cb, e->all, 4);
   vkCmdEndRenderPass(cb);
   memset(e->copy.map, 0xcd, e->copy.size);
   vkCmdCopyQueryPoolResults(cb, e->all, 0, 2, e->copy.buffer, 0, 12 * 8,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT |
                                VK_QUERY_RESULT_WAIT_BIT);
   vkCmdCopyQueryPoolResults(cb, e->subset, 0, 1, e->copy.buffer, 256, 16,
                             VK_QUERY_RESULT_WITH_AVAILABILITY_BIT | VK_QUERY_RESULT_WAIT_BIT);
   draw_host_barrier(cb);
   VkResult r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: submit %d", e->dn, r);
   return r == VK_SUCCESS;
}

static void
check_bounds(const struct env *e, const char *what, int stat, uint64_t v, uint64_t lo, uint64_t hi)
{
   CHECK(v >= lo && v <= hi, "%s: %s %s = %llu, expected %llu..%llu", e->dn, what,
         stat_names[stat], (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
}

static void
check_results(struct env *e)
{
   struct vkt *t = &e->t;
   uint64_t r64[2][NSTAT];
   VkResult r = vkGetQueryPoolResults(t->device, e->all, 0, 2, sizeof(r64), r64, sizeof(r64[0]),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   CHECK(r == VK_SUCCESS, "%s: results %d", e->dn, r);
   for (int q = 0; q < 2; q++) {
      printf("%s: query %d:", e->dn, q);
      for (int s = 0; s < NSTAT; s++)
         printf(" %llu", (unsigned long long)r64[q][s]);
      printf("\n");
   }

   /* Query 0: exact input assembly, vertex and compute counts. */
   const uint64_t *a = r64[0];
   const uint64_t ia_v = 6 * 2 + 3 * NT, ia_p = 2 * 2 + NT;
   const uint64_t outside = NT / 5, inside = 2 * 2 + NT - outside;
   check_bounds(e, "query 0", IA_V, a[IA_V], ia_v, ia_v);
   check_bounds(e, "query 0", IA_P, a[IA_P], ia_p, ia_p);
   check_bounds(e, "query 0", VS, a[VS], ia_v, ia_v);
   check_bounds(e, "query 0", CS, a[CS], 6 * 64 + 2 * 64, 6 * 64 + 2 * 64);
   for (int s = GS_I; s <= GS_P; s++)
      check_bounds(e, "query 0", s, a[s], 0, 0);
   for (int s = TCS; s <= TES; s++)
      check_bounds(e, "query 0", s, a[s], 0, 0);
   if (e->shale) {
      /* Every primitive enters clipping; the wholly outside ones are not
       * output, a near-clipped triangle stays one triangle. */
      check_bounds(e, "query 0", CL_I, a[CL_I], ia_p, ia_p);
      check_bounds(e, "query 0", CL_P, a[CL_P], inside, inside);
      check_bounds(e, "query 0", FS, a[FS], 2 * RECT_PIXELS, 2 * RECT_PIXELS);
   } else {
      check_bounds(e, "query 0", CL_I, a[CL_I], inside, ia_p);
      check_bounds(e, "query 0", CL_P, a[CL_P], 4, ia_p + NT / 5);
      check_bounds(e, "query 0", FS, a[FS], 2 * RECT_PIXELS, 2 * 4 * RECT_PIXELS);
   }

   /* Query 1: three runs of 4, 3 and 5 indices (2 + 1 + 3 triangles, none
    * incomplete), 3 instances; 12 distinct indices. */
   const uint64_t *b = r64[1];
   check_bounds(e, "query 1", IA_P, b[IA_P], 18, 18);
   check_bounds(e, "query 1", CS, b[CS], 0, 0);
   if (e->shale) {
      check_bounds(e, "query 1", IA_V, b[IA_V], 36, 36);
      check_bounds(e, "query 1", VS, b[VS], 36, 36);
      check_bounds(e, "query 1", CL_I, b[CL_I], 18, 18);
      check_bounds(e, "query 1", CL_P, b[CL_P], 18, 18);
      check_bounds(e, "query 1", FS, b[FS], 0, 0);
   } else {
      check_bounds(e, "query 1", IA_V, b[IA_V], 36, 42);
      check_bounds(e, "query 1", VS, b[VS], 12, 42);
      check_bounds(e, "query 1", CL_I, b[CL_I], 0, 18);
      check_bounds(e, "query 1", CL_P, b[CL_P], 0, 18);
   }

   /* 32-bit results with availability: the same values. */
   uint32_t r32[2][NSTAT + 1];
   r = vkGetQueryPoolResults(t->device, e->all, 0, 2, sizeof(r32), r32, sizeof(r32[0]),
                             VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
   CHECK(r == VK_SUCCESS, "%s: 32-bit results %d", e->dn, r);
   for (int q = 0; q < 2; q++) {
      /* (lavapipe 22.3 reads another fragment count back in 32 bits) */
      bool same = r32[q][NSTAT] == 1;
      for (int s = 0; s < NSTAT; s++)
         same &= r32[q][s] == r64[q][s] || (!e->shale && s == FS);
      CHECK(same, "%s: query %d 32-bit results with availability (%u %u .. %u, %u)", e->dn, q,
            r32[q][0], r32[q][1], r32[q][FS], r32[q][NSTAT]);
   }

   /* The copies: 12 64-bit words a query (the availability last), and the
    * subset pool's three counters in bit order, 32-bit. */
   const uint8_t *m = e->copy.map;
   for (int q = 0; q < 2; q++) {
      uint64_t c[NSTAT + 1];
      memcpy(c, m + q * 96, sizeof(c));
      CHECK(memcmp(c, r64[q], sizeof(r64[q])) == 0 && c[NSTAT] == 1,
            "%s: vkCmdCopyQueryPoolResults of query %d", e->dn, q);
   }
   uint32_t sub[4];
   memcpy(sub, m + 256, sizeof(sub));
   printf("%s: subset: %u %u %u %u\n", e->dn, sub[0], sub[1], sub[2], sub[3]);
   CHECK(sub[0] == 6 && sub[2] == 0 && sub[3] == 1, "%s: subset pool's vertex, compute, availability",
         e->dn);
   if (e->shale)
      CHECK(sub[1] == RECT_PIXELS, "%s: subset pool's fragment count %u", e->dn, sub[1]);
   else
      CHECK(sub[1] >= RECT_PIXELS && sub[1] <= 4 * RECT_PIXELS, "%s: subset pool's fragment count",
            e->dn);
   uint64_t sub64[4];
   r = vkGetQueryPoolResults(t->device, e->subset, 0, 1, sizeof(sub64), sub64, sizeof(sub64),
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
   CHECK(r == VK_SUCCESS && sub64[0] == sub[0] && sub64[1] == sub[1] && sub64[2] == sub[2] &&
            sub64[3] == 1, "%s: subset pool's 64-bit host results", e->dn);

   /* Query 2 was reset and never begun: not ready, unavailable. */
   uint64_t p[NSTAT + 1];
   memset(p, 0xcd, sizeof(p));
   r = vkGetQueryPoolResults(t->device, e->all, 2, 1, sizeof(p), p, sizeof(p),
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT |
                                VK_QUERY_RESULT_PARTIAL_BIT);
   /* (lavapipe 22.3 returns VK_SUCCESS here) */
   CHECK((r == VK_NOT_READY || !e->shale) && p[NSTAT] == 0,
         "%s: unavailable query: %d, availability %llu", e->dn, r, (unsigned long long)p[NSTAT]);
   uint64_t untouched[NSTAT + 1];
   memset(untouched, 0xcd, sizeof(untouched));
   memset(p, 0xcd, sizeof(p));
   r = vkGetQueryPoolResults(t->device, e->all, 2, 1, sizeof(p), p, sizeof(p),
                             VK_QUERY_RESULT_64_BIT);
   CHECK((r == VK_NOT_READY || !e->shale) && memcmp(p, untouched, sizeof(p)) == 0,
         "%s: unavailable query without PARTIAL writes nothing", e->dn);

   /* Query 4: the rectangle with rasterizer discard (input assembly and
    * vertex shader run; Shale counts no clipping, as the spec allows), then
    * 6 lines. */
   uint64_t d[NSTAT];
   r = vkGetQueryPoolResults(t->device, e->all, 4, 1, sizeof(d), d, sizeof(d),
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   CHECK(r == VK_SUCCESS, "%s: query 4 results %d", e->dn, r);
   printf("%s: query 4:", e->dn);
   for (int k = 0; k < NSTAT; k++)
      printf(" %llu", (unsigned long long)d[k]);
   printf("\n");
   check_bounds(e, "query 4", IA_V, d[IA_V], 18, 18);
   check_bounds(e, "query 4", IA_P, d[IA_P], 8, 8);
   check_bounds(e, "query 4", VS, d[VS], 18, 18);
   check_bounds(e, "query 4", CL_I, d[CL_I], 6, e->shale ? 6 : 8);
   check_bounds(e, "query 4", CL_P, d[CL_P], e->shale ? 6 : 0, e->shale ? 6 : 8);
   check_bounds(e, "query 4", FS, d[FS], 0, 4 * 12);
   check_bounds(e, "query 4", CS, d[CS], 0, 0);

   /* Host reset: unavailable again, and nothing written without PARTIAL. */
   if (e->host_reset) {
      PFN_vkResetQueryPoolEXT reset =
         (PFN_vkResetQueryPoolEXT)vkGetDeviceProcAddr(t->device, "vkResetQueryPoolEXT");
      CHECK(reset != NULL, "%s: vkResetQueryPoolEXT", e->dn);
      if (reset) {
         reset(t->device, e->all, 0, 2);
         memset(p, 0xcd, sizeof(p));
         r = vkGetQueryPoolResults(t->device, e->all, 0, 1, sizeof(p), p, sizeof(p),
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
         /* (lavapipe 22.3 writes no availability word here) */
         CHECK(r == VK_NOT_READY && (!e->shale || (p[NSTAT] == 0 &&
                                                   p[0] == 0xcdcdcdcdcdcdcdcdull)),
               "%s: host-reset query unavailable (%d, %llu)", e->dn, r,
               (unsigned long long)p[NSTAT]);
      }
   }
}

/* A secondary command buffer inheriting the statistics draws the rectangle
 * once inside a query of the primary. */
static void
run_secondary(struct env *e)
{
   struct vkt *t = &e->t;
   VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = t->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
                                      .commandBufferCount = 1 };
   VkCommandBuffer sec;
   CHECK(vkAllocateCommandBuffers(t->device, &ai, &sec) == VK_SUCCESS, "secondary");
   VkCommandBufferInheritanceInfo inh = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
      .renderPass = e->dt.render_pass,
      .subpass = 0,
      .framebuffer = e->dt.framebuffer,
      .pipelineStatistics = ALL_STATS,
   };
   VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT,
                                   .pInheritanceInfo = &inh };
   vkBeginCommandBuffer(sec, &bi);
   VkDeviceSize zero = 0;
   vkCmdBindPipeline(sec, VK_PIPELINE_BIND_POINT_GRAPHICS, e->list.pipeline);
   vkCmdBindVertexBuffers(sec, 0, 1, &e->vb.buffer, &zero);
   vkCmdDraw(sec, 6, 1, RECT_FIRST, 0);
   vkEndCommandBuffer(sec);

   VkCommandBuffer cb = vkt_begin(t);
   vkCmdResetQueryPool(cb, e->all, 3, 1);
   vkCmdBeginQuery(cb, e->all, 3, 0);
   VkRenderPassBeginInfo rbi = pass_begin(e);
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
   vkCmdExecuteCommands(cb, 1, &sec);
   vkCmdEndRenderPass(cb);
   vkCmdEndQuery(cb, e->all, 3);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: secondary submit", e->dn);
   uint64_t v[NSTAT];
   VkResult r = vkGetQueryPoolResults(t->device, e->all, 3, 1, sizeof(v), v, sizeof(v),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   const uint64_t want[NSTAT] = { 6, 2, 6, 0, 0, 2, 2, RECT_PIXELS, 0, 0, 0 };
   CHECK(r == VK_SUCCESS && memcmp(v, want, sizeof(v)) == 0,
         "%s: inherited statistics %llu %llu %llu .. %llu", e->dn, (unsigned long long)v[0],
         (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[FS]);
   vkFreeCommandBuffers(t->device, t->pool, 1, &sec);
}

/* Sample shading: the rectangle drawn once into a 4-sample attachment with
 * minSampleShading 1.0 runs the fragment shader once per covered sample
 * (query 2, reset again). */
static void
run_sample_shading(struct env *e)
{
   struct vkt *t = &e->t;
   struct vkt_image img = { 0 };
   VkImageView view = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   struct draw_pipeline pl = { 0 };
   CHECK(draw_image_create(t, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_SAMPLE_COUNT_4_BIT,
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT, &img,
                           &view) == VK_SUCCESS, "%s: 4-sample image", e->dn);
   const VkAttachmentDescription att = {
      .format = VK_FORMAT_R8G8B8A8_UNORM, .samples = VK_SAMPLE_COUNT_4_BIT,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
                                      .colorAttachmentCount = 1, .pColorAttachments = &ref };
   const VkRenderPassCreateInfo rpci = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
                                         .attachmentCount = 1, .pAttachments = &att,
                                         .subpassCount = 1, .pSubpasses = &sub };
   CHECK(vkCreateRenderPass(t->device, &rpci, NULL, &rp) == VK_SUCCESS, "%s: render pass", e->dn);
   CHECK(draw_framebuffer(t, rp, &view, 1, W, H, 1, &fb) == VK_SUCCESS, "%s: framebuffer", e->dn);
   const VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT, .sampleShadingEnable = VK_TRUE,
      .minSampleShading = 1.0f };
   const VkViewport vp = { 0, 0, W, H, 0, 1 };
   const VkRect2D sc = { { 0, 0 }, { W, H } };
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                    sizeof(flat_color_frag_spv));
   pi.multisample = &ms;
   pi.viewport = &vp;
   pi.scissor = &sc;
   pi.render_pass = rp;
   pi.color_count = 1;
   VkResult r = draw_pipeline_create(t, NULL, &pi, &pl);
   CHECK(r == VK_SUCCESS, "%s: sample shading pipeline", e->dn);
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = vkt_begin(t);
      vkCmdResetQueryPool(cb, e->all, 2, 1);
      static VkClearValue clear;
      const VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                          .renderPass = rp, .framebuffer = fb,
                                          .renderArea = { { 0, 0 }, { W, H } },
                                          .clearValueCount = 1, .pClearValues = &clear };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      VkDeviceSize zero = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &e->vb.buffer, &zero);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pl.pipeline);
      vkCmdBeginQuery(cb, e->all, 2, 0);
      vkCmdDraw(cb, 6, 1, RECT_FIRST, 0);
      vkCmdEndQuery(cb, e->all, 2);
      vkCmdEndRenderPass(cb);
      CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: sample shading submit", e->dn);
      uint64_t v[NSTAT];
      r = vkGetQueryPoolResults(t->device, e->all, 2, 1, sizeof(v), v, sizeof(v),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      printf("%s: sample shading: %llu fragment shader invocations\n", e->dn,
             (unsigned long long)v[FS]);
      CHECK(r == VK_SUCCESS && v[VS] == 6, "%s: sample shading query", e->dn);
      /* Every sample of the rectangle's pixels is covered, no other
       * (lavapipe 22.3 counts its pixels, 6656, as with one sample). */
      check_bounds(e, "sample shading", FS, v[FS], e->shale ? 4 * RECT_PIXELS : RECT_PIXELS,
                   e->shale ? 4 * RECT_PIXELS : 4 * 4 * RECT_PIXELS);
   }
   draw_pipeline_destroy(t, &pl);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkDestroyImageView(t->device, view, NULL);
   vkt_image_destroy(t, &img);
}

/* Sets up driver `which`; false when it is missing or lacks the feature. */
static bool
env_init(struct env *e, enum vkt_driver which)
{
   memset(e, 0, sizeof(*e));
   e->dn = vkt_driver_name(which);
   e->shale = which == VKT_SHALE;
   struct vkt probe;
   if (!draw_probe(which, &probe)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return false;
   }
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(probe.pdev, &have);
   e->host_reset = vkt_has_device_extension(probe.pdev, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
   vkt_finish(&probe);
   if (e->shale)
      CHECK(e->host_reset, "shale: VK_EXT_host_query_reset");
   if (e->shale)
      CHECK(have.pipelineStatisticsQuery && have.inheritedQueries && have.tessellationShader,
            "shale: features");
   if (!have.pipelineStatisticsQuery) {
      printf("%s: no pipelineStatisticsQuery, not run\n", e->dn);
      return false;
   }
   e->inherited = have.inheritedQueries;
   e->sample_shading = have.sampleRateShading;
   VkPhysicalDeviceFeatures f = { .pipelineStatisticsQuery = VK_TRUE,
                                  .inheritedQueries = have.inheritedQueries,
                                  .sampleRateShading = have.sampleRateShading };
   static const char *const iext = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;
   static const char *const dext = VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME;
   VkPhysicalDeviceHostQueryResetFeaturesEXT hr = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES_EXT,
      .hostQueryReset = VK_TRUE };
   struct vkt_options o = { .driver = which, .features = &f };
   if (e->host_reset) {
      o.instance_extensions = &iext;
      o.instance_extension_count = 1;
      o.device_extensions = &dext;
      o.device_extension_count = 1;
      o.device_pnext = &hr;
   }
   if (!vkt_init(&e->t, &o)) {
      CHECK(0, "%s: device", e->dn);
      return false;
   }
   struct vkt *t = &e->t;
   e->dt = (struct draw_target) { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H };
   CHECK(draw_target_create(t, &e->dt) == VK_SUCCESS, "%s: target", e->dn);
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                    sizeof(flat_color_frag_spv));
   CHECK(draw_pipeline_create(t, &e->dt, &pi, &e->list) == VK_SUCCESS, "%s: list pipeline", e->dn);
   pi.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
   pi.primitive_restart = true;
   CHECK(draw_pipeline_create(t, &e->dt, &pi, &e->strip) == VK_SUCCESS, "%s: strip pipeline", e->dn);
   pi.primitive_restart = false;
   pi.topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST;
   CHECK(draw_pipeline_create(t, &e->dt, &pi, &e->lines) == VK_SUCCESS, "%s: line pipeline", e->dn);
   const VkPipelineRasterizationStateCreateInfo discard = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .rasterizerDiscardEnable = VK_TRUE, .polygonMode = VK_POLYGON_MODE_FILL,
      .cullMode = VK_CULL_MODE_NONE, .frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
      .lineWidth = 1.0f };
   pi.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
   pi.rasterization = &discard;
   CHECK(draw_pipeline_create(t, &e->dt, &pi, &e->discard) == VK_SUCCESS, "%s: discard pipeline",
         e->dn);
   struct vkt_kernel_info ki = { .code = pstats_comp_spv, .code_size = sizeof(pstats_comp_spv) };
   CHECK(vkt_kernel_create(t, &ki, &e->kernel) == VK_SUCCESS, "%s: kernel", e->dn);
   CHECK(draw_upload(t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e->vb) == VK_SUCCESS,
         "%s: vertices", e->dn);
   CHECK(draw_upload(t, strip_idx, sizeof(strip_idx), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &e->ib) ==
            VK_SUCCESS, "%s: indices", e->dn);
   const VkDispatchIndirectCommand ind = { 2, 1, 1 };
   CHECK(draw_upload(t, &ind, sizeof(ind), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &e->indirect) ==
            VK_SUCCESS, "%s: indirect", e->dn);
   CHECK(vkt_buffer_create(t, 512, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &e->copy) == VK_SUCCESS,
         "%s: copy buffer", e->dn);
   VkQueryPoolCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS,
                                .queryCount = 5, .pipelineStatistics = ALL_STATS };
   CHECK(vkCreateQueryPool(t->device, &qi, NULL, &e->all) == VK_SUCCESS, "%s: pool", e->dn);
   qi.queryCount = 1;
   qi.pipelineStatistics = SUBSET_STATS;
   CHECK(vkCreateQueryPool(t->device, &qi, NULL, &e->subset) == VK_SUCCESS, "%s: subset pool",
         e->dn);
   return true;
}

static void
env_finish(struct env *e)
{
   struct vkt *t = &e->t;
   vkDestroyQueryPool(t->device, e->subset, NULL);
   vkDestroyQueryPool(t->device, e->all, NULL);
   vkt_buffer_destroy(t, &e->copy);
   vkt_buffer_destroy(t, &e->indirect);
   vkt_buffer_destroy(t, &e->ib);
   vkt_buffer_destroy(t, &e->vb);
   vkt_kernel_destroy(t, &e->kernel);
   draw_pipeline_destroy(t, &e->discard);
   draw_pipeline_destroy(t, &e->lines);
   draw_pipeline_destroy(t, &e->strip);
   draw_pipeline_destroy(t, &e->list);
   draw_target_destroy(t, &e->dt);
   vkt_finish(t);
}

static void
run_driver(enum vkt_driver which)
{
   struct env e;
   if (!env_init(&e, which))
      return;
   if (run_main(&e))
      check_results(&e);
   if (e.inherited)
      run_secondary(&e);
   if (e.sample_shading)
      run_sample_shading(&e);
   else
      CHECK(!e.shale, "shale: sampleRateShading");
   env_finish(&e);
}

/* The child of test_threads: queries 0 and 1 of the main run, 64-bit. */
static int
dump(const char *path)
{
   struct env e;
   if (!env_init(&e, VKT_SHALE) || !run_main(&e))
      return 1;
   uint64_t r64[2][NSTAT];
   VkResult r = vkGetQueryPoolResults(e.t.device, e.all, 0, 2, sizeof(r64), r64, sizeof(r64[0]),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   env_finish(&e);
   FILE *f = fopen(path, "wb");
   if (r != VK_SUCCESS || !f || fwrite(r64, sizeof(r64), 1, f) != 1)
      return 1;
   fclose(f);
   return vkt_validation_messages() || check_finish() ? 1 : 0;
}

static void
test_threads(const char *self)
{
   static uint64_t res[3][2][NSTAT];
   if (draw_thread_runs(self, "statistics", sizeof(res[0]), res))
      CHECK(res[0][0][IA_V] == 6 * 2 + 3 * NT, "thread runs counted");
}

int
main(int argc, char **argv)
{
   make_vertices();
   if (argc == 3 && !strcmp(argv[1], "--dump"))
      return dump(argv[2]);
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   test_threads(argv[0]);
   return draw_finish();
}
