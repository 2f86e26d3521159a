/* Geometry shaders at the limits Shale reports: maxGeometryOutputVertices
 * 256, maxGeometryShaderInvocations 32, maxGeometryTotalOutputComponents
 * 1024, maxGeometryOutputComponents 64 and maxGeometryInputComponents 64
 * (the test CHECKs Shale reports exactly these, so it follows them).
 *  - geom/lim_vert.geom: per input point 32 invocations, each a line strip
 *    of 256 vertices (gl_Position only: 1024 components), 2 points drawn:
 *    16320 lines, with rasterization on and discarded;
 *  - geom/lim_comp.geom: per input triangle 16 points of 16 uvec4 outputs
 *    (64 components, 1024 in all), computed from every one of the 3 x 16
 *    uvec4 inputs (64 components a vertex) the vertex shader
 *    (geom/lim.vert) wrote; 2 triangles drawn, rasterization discarded (no
 *    position is written) and no fragment shader.
 * Every emitted vertex is captured with transform feedback and the
 * buffers compared byte for byte with a CPU reference (the spec orders an
 * input primitive's output by invocation, then as emitted), as are the
 * stream query's primitives written and needed. On Shale (SHALE_THREADS 1
 * and 4) and on lavapipe where its limits reach these. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"
#include "xfb_util.h"

#include "geom_lim_comp_geom_spv.h"
#include "geom_lim_frag_spv.h"
#include "geom_lim_pos_vert_spv.h"
#include "geom_lim_vert_geom_spv.h"
#include "geom_lim_vert_spv.h"

#define MAX_VERTICES 256
#define MAX_INVOCATIONS 32
#define MAX_TOTAL 1024
#define MAX_OUT 64
#define MAX_IN 64

#define NPOINTS 2
#define NTRIS 2
#define LINES_SIZE (NPOINTS * MAX_INVOCATIONS * (MAX_VERTICES - 1) * 2 * 16)
#define COMP_SIZE (NTRIS * 16 * 256)
#define BUF_SIZE (LINES_SIZE + 4096)
#define FILL 0xab


static float vpos[NTRIS * 3][4];
static uint8_t want[BUF_SIZE];

/* lim.vert's output a[i] of vertex v. */
static void
vs_out(uint32_t v, uint32_t i, uint32_t out[4])
{
   for (uint32_t c = 0; c < 4; c++)
      out[c] = 0x9e3779b9u * (v * 64 + i * 4 + c) + 0x01000000u * i;
}

/* lim_vert.geom: per point, per invocation, the lines (k, k + 1). */
static uint64_t
reference_lines(uint8_t *out)
{
   memset(out, FILL, BUF_SIZE);
   uint64_t n = 0, lines = 0;
   for (uint32_t p = 0; p < NPOINTS; p++)
      for (uint32_t inv = 0; inv < MAX_INVOCATIONS; inv++)
         for (uint32_t k = 0; k + 1 < MAX_VERTICES; k++, lines++)
            for (uint32_t e = 0; e < 2; e++, n++) {
               float pos[4] = {(float)(k + e) * 0.0078125f - 1.0f,
                               (float)inv * 0.0625f - 1.0f + (float)p * 0.03125f, 0.5f, 1.0f};
               memcpy(out + n * 16, pos, 16);
            }
   return lines;
}

/* lim_comp.geom: per triangle 16 points of 16 uvec4. */
static uint64_t
reference_comp(uint8_t *out)
{
   memset(out, FILL, BUF_SIZE);
   uint64_t n = 0;
   for (uint32_t t = 0; t < NTRIS; t++)
      for (uint32_t j = 0; j < 16; j++, n++)
         for (uint32_t i = 0; i < 16; i++) {
            uint32_t a[4], b[4], c[4], tag[4] = {0x5a5a0000u, 7, 0x0000a5a5u, 0x70000000u};
            vs_out(3 * t, i, a);
            vs_out(3 * t + 1, (i + j) % 16, b);
            vs_out(3 * t + 2, (i + 2 * j) % 16, c);
            for (uint32_t k = 0; k < 4; k++) {
               uint32_t o = a[k] + b[k] * 3 + c[k] * 5 + tag[k] * (j + 1);
               memcpy(out + n * 256 + i * 16 + k * 4, &o, 4);
            }
         }
   return n;
}

struct env {
   struct vkt t;
   const char *dn, *threads;
   struct draw_target dt;
   struct vkt_buffer vb, xb;
   VkQueryPool qpool;
   VkPipelineLayout layout;
};

/* vs, gs and fs (VK_NULL_HANDLE: none) drawing `vertices` of topo. */
static void
run_case(struct env *e, const char *name, VkShaderModule vs, VkShaderModule gs, VkShaderModule fs,
         VkPrimitiveTopology topo, uint32_t vertices, bool discard, uint64_t prims)
{
   struct draw_pipeline p;
   VkResult r = xfb_pipeline(&e->t, &e->dt, e->layout, vs, gs, fs, topo, discard, &p);
   CHECK(r == VK_SUCCESS, "%s %s: pipeline: %d", e->dn, name, r);
   if (r != VK_SUCCESS)
      return;
   memset(e->xb.map, FILL, BUF_SIZE);
   uint64_t q[2];
   VkResult qr;
   r = xfb_capture_draw(&e->t, &e->dt, &p, e->vb.buffer, e->qpool, 1, &e->xb, vertices, 1, q, &qr);
   CHECK(r == VK_SUCCESS, "%s %s: drawn: %d", e->dn, name, r);
   CHECK(qr == VK_SUCCESS && q[0] == prims && q[1] == prims,
         "%s %s: primitives written %llu, needed %llu (want %llu)", e->dn, name,
         (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)prims);
   char what[160];
   snprintf(what, sizeof(what), "%s %s (SHALE_THREADS %s)", e->dn, name,
            e->threads ? e->threads : "-");
   unsigned bad = xfb_bytes_wrong(e->xb.map, want, BUF_SIZE, what);
   CHECK(bad == 0, "%s %s: %u bytes wrong", e->dn, name, bad);
   vkDestroyPipeline(e->t.device, p.pipeline, NULL);
}

static void
run_driver(enum vkt_driver which, const char *threads)
{
   struct env e = {.dn = vkt_driver_name(which), .threads = threads};
   const VkPhysicalDeviceFeatures feats = {.geometryShader = VK_TRUE};
   if (!xfb_start(&e.t, which, threads, &feats, "geometry shaders"))
      return;
   struct vkt *t = &e.t;
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(t->pdev, &props);
   const VkPhysicalDeviceLimits *l = &props.limits;
   bool exact = l->maxGeometryOutputVertices == MAX_VERTICES &&
                l->maxGeometryShaderInvocations == MAX_INVOCATIONS &&
                l->maxGeometryTotalOutputComponents == MAX_TOTAL &&
                l->maxGeometryOutputComponents == MAX_OUT &&
                l->maxGeometryInputComponents == MAX_IN;
   bool reach = l->maxGeometryOutputVertices >= MAX_VERTICES &&
                l->maxGeometryShaderInvocations >= MAX_INVOCATIONS &&
                l->maxGeometryTotalOutputComponents >= MAX_TOTAL &&
                l->maxGeometryOutputComponents >= MAX_OUT &&
                l->maxGeometryInputComponents >= MAX_IN &&
                l->maxVertexOutputComponents >= MAX_IN + 4;
   if (which == VKT_SHALE)
      CHECK(exact, "shale: geometry limits %u %u %u %u %u (the test is written for 256 32 1024 64 "
            "64)", l->maxGeometryOutputVertices, l->maxGeometryShaderInvocations,
            l->maxGeometryTotalOutputComponents, l->maxGeometryOutputComponents,
            l->maxGeometryInputComponents);
   if (!reach) {
      fprintf(stderr, "%s: geometry limits below the test's, not run\n", e.dn);
      vkt_finish(t);
      return;
   }
   xfb_get_commands(t);
   e.dt = (struct draw_target) {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 32,
                                .height = 32};
   CHECK(draw_target_create(t, &e.dt) == VK_SUCCESS, "%s: target", e.dn);
   CHECK(draw_upload(t, vpos, sizeof(vpos), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e.vb) == VK_SUCCESS,
         "%s: vertices", e.dn);
   CHECK(vkt_buffer_create(t, BUF_SIZE, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT, &e.xb) ==
            VK_SUCCESS, "%s: xfb buffer", e.dn);
   xfb_query_pool(t, e.dn, &e.qpool);
   CHECK(draw_pipeline_layout(t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &e.layout) ==
            VK_SUCCESS, "%s: layout", e.dn);
   VkShaderModule vs_pos, vs_comp, fs, gs_lines, gs_comp;
   CHECK(vkt_shader_module(t, geom_lim_pos_vert_spv, sizeof(geom_lim_pos_vert_spv), &vs_pos) ==
            VK_SUCCESS &&
            vkt_shader_module(t, geom_lim_vert_spv, sizeof(geom_lim_vert_spv), &vs_comp) ==
               VK_SUCCESS &&
            vkt_shader_module(t, geom_lim_frag_spv, sizeof(geom_lim_frag_spv), &fs) == VK_SUCCESS &&
            vkt_shader_module(t, geom_lim_vert_geom_spv, sizeof(geom_lim_vert_geom_spv),
                              &gs_lines) == VK_SUCCESS &&
            vkt_shader_module(t, geom_lim_comp_geom_spv, sizeof(geom_lim_comp_geom_spv),
                              &gs_comp) == VK_SUCCESS,
         "%s: modules", e.dn);
   uint64_t lines = reference_lines(want);
   run_case(&e, "256 vertices x 32 invocations", vs_pos, gs_lines, fs,
            VK_PRIMITIVE_TOPOLOGY_POINT_LIST, NPOINTS, false, lines);
   run_case(&e, "256 vertices x 32 invocations, discarded", vs_pos, gs_lines, fs,
            VK_PRIMITIVE_TOPOLOGY_POINT_LIST, NPOINTS, true, lines);
   uint64_t points = reference_comp(want);
   run_case(&e, "64 input and output components", vs_comp, gs_comp, VK_NULL_HANDLE,
            VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, NTRIS * 3, true, points);
   vkDestroyShaderModule(t->device, gs_lines, NULL);
   vkDestroyShaderModule(t->device, gs_comp, NULL);
   vkDestroyShaderModule(t->device, vs_pos, NULL);
   vkDestroyShaderModule(t->device, vs_comp, NULL);
   vkDestroyShaderModule(t->device, fs, NULL);
   vkDestroyPipelineLayout(t->device, e.layout, NULL);
   vkDestroyQueryPool(t->device, e.qpool, NULL);
   vkt_buffer_destroy(t, &e.xb);
   vkt_buffer_destroy(t, &e.vb);
   draw_target_destroy(t, &e.dt);
   vkt_finish(t);
}

int
main(void)
{
   _Static_assert(COMP_SIZE <= BUF_SIZE, "buffer");
   for (int p = 0; p < NTRIS * 3; p++) {
      vpos[p][0] = -0.75f + 0.25f * (float)p;
      vpos[p][1] = 0.5f - 0.125f * (float)(p % 3);
      vpos[p][2] = 0.25f;
      vpos[p][3] = 1.0f;
   }
   return draw_run_threads_and_lavapipe(run_driver);
}
