/* VK_EXT_provoking_vertex (zink needs it for GL's glProvokingVertex, whose
 * default is the last vertex): flat outputs take the first or the last
 * vertex of each primitive as the spec's "Primitive Topologies" table says,
 * for triangle lists, strips and fans, line lists and strips, with the mode
 * FIRST, LAST and without the struct (FIRST), in one render pass mixing
 * both (provokingVertexModePerPipeline), on Shale and lavapipe. Each vertex
 * writes its index as a flat output; the pixel at each primitive's centroid
 * (midpoint for lines) must hold the expected vertex's index. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "zink_pv_frag_spv.h"
#include "zink_pv_vert_spv.h"

#define W 64
#define H 64
#define MAXV 16

struct topo {
   const char *name;
   VkPrimitiveTopology topology;
   uint32_t n;                  /* vertices */
   float xy[MAXV][2];           /* framebuffer coordinates */
};

static struct topo topos[5];

static void
make_topos(void)
{
   struct topo *t = &topos[0];
   *t = (struct topo) { "triangle list", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, 12 };
   for (int k = 0; k < 4; k++) {
      float ox = (float)(k % 2) * 32, oy = (float)(k / 2) * 32;
      const float v[3][2] = { { ox + 2, oy + 2 }, { ox + 30, oy + 4 }, { ox + 6, oy + 28 } };
      memcpy(t->xy[3 * k], v, sizeof(v));
   }
   t = &topos[1];
   *t = (struct topo) { "triangle strip", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, 8 };
   for (int j = 0; j < 8; j++) {
      t->xy[j][0] = 4.0f + 8.0f * j;
      t->xy[j][1] = j % 2 ? 56.0f : 8.0f;
   }
   t = &topos[2];
   *t = (struct topo) { "triangle fan", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, 8 };
   t->xy[0][0] = t->xy[0][1] = 32.0f;
   for (int j = 1; j < 8; j++) {
      double a = (j - 1) * 3.14159265358979 / 4.0;
      t->xy[j][0] = (float)(32.0 + 28.0 * cos(a));
      t->xy[j][1] = (float)(32.0 + 28.0 * sin(a));
   }
   t = &topos[3];
   *t = (struct topo) { "line list", VK_PRIMITIVE_TOPOLOGY_LINE_LIST, 8 };
   for (int k = 0; k < 4; k++) {
      t->xy[2 * k][0] = 4.0f;
      t->xy[2 * k + 1][0] = 60.0f;
      t->xy[2 * k][1] = t->xy[2 * k + 1][1] = 8.5f + 12.0f * k;
   }
   t = &topos[4];
   *t = (struct topo) { "line strip", VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, 6,
                        { { 4.5f, 4.5f }, { 60.5f, 4.5f }, { 60.5f, 20.5f }, { 4.5f, 20.5f },
                          { 4.5f, 36.5f }, { 60.5f, 36.5f } } };
}

/* Vertices of primitive p in the spec's order, and how many. */
static uint32_t
prim_vertices(const struct topo *t, uint32_t p, uint32_t v[3])
{
   switch (t->topology) {
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      v[0] = 3 * p, v[1] = 3 * p + 1, v[2] = 3 * p + 2;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
      v[0] = p, v[1] = p + 1, v[2] = p + 2;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN:
      v[0] = p + 1, v[1] = p + 2, v[2] = 0;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST:
      v[0] = 2 * p, v[1] = 2 * p + 1;
      return 2;
   default:
      v[0] = p, v[1] = p + 1;
      return 2;
   }
}

static uint32_t
prim_count(const struct topo *t)
{
   switch (t->topology) {
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST: return t->n / 3;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST: return t->n / 2;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP: return t->n - 1;
   default: return t->n - 2;
   }
}

/* The provoking vertex: the spec's table for FIRST and LAST. */
static uint32_t
provoking(const struct topo *t, uint32_t p, bool last)
{
   switch (t->topology) {
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST: return last ? 3 * p + 2 : 3 * p;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP: return last ? p + 2 : p;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN: return last ? p + 2 : p + 1;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST: return last ? 2 * p + 1 : 2 * p;
   default: return last ? p + 1 : p;
   }
}

enum mode { MODE_NONE, MODE_FIRST, MODE_LAST };
static const char *const mode_names[] = { "no struct", "FIRST", "LAST" };

static VkResult
make_pipeline(struct vkt *t, const struct draw_target *dt, const struct topo *tp, enum mode m,
              struct draw_pipeline *p)
{
   VkPipelineRasterizationProvokingVertexStateCreateInfoEXT pv = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT,
      .provokingVertexMode = m == MODE_LAST ? VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT
                                            : VK_PROVOKING_VERTEX_MODE_FIRST_VERTEX_EXT,
   };
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .pNext = m == MODE_NONE ? NULL : &pv,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .cullMode = VK_CULL_MODE_NONE,
      .lineWidth = 1.0f,
   };
   struct draw_pipeline_info pi = {
      .vs = zink_pv_vert_spv, .vs_size = sizeof(zink_pv_vert_spv),
      .fs = zink_pv_frag_spv, .fs_size = sizeof(zink_pv_frag_spv),
      .stride = 8, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32_SFLOAT },
      .topology = tp->topology, .rasterization = &rs,
   };
   return draw_pipeline_create(t, dt, &pi, p);
}

/* Draws topology tp with a pipeline of mode m; with split > 0, vertices
 * [0, split) with mode m and [split, n) with mode m2 in the same render
 * pass instance. Reads back. */
static bool
draw(struct vkt *t, const struct topo *tp, enum mode m, enum mode m2, uint32_t split,
     uint32_t *pixels)
{
   const char *dn = vkt_driver_name(t->driver);
   struct draw_target dt = { .color_format = VK_FORMAT_R32_UINT, .width = W, .height = H };
   VkResult r = draw_target_create(t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   if (r != VK_SUCCESS)
      return false;
   struct draw_pipeline p, p2 = { 0 };
   r = make_pipeline(t, &dt, tp, m, &p);
   CHECK(r == VK_SUCCESS, "%s: pipeline: %d", dn, r);
   if (split) {
      r = make_pipeline(t, &dt, tp, m2, &p2);
      CHECK(r == VK_SUCCESS, "%s: second pipeline: %d", dn, r);
   }
   float v[MAXV][2];
   for (uint32_t i = 0; i < tp->n; i++) {
      v[i][0] = tp->xy[i][0] / W * 2.0f - 1.0f;
      v[i][1] = tp->xy[i][1] / H * 2.0f - 1.0f;
   }
   struct vkt_buffer vb;
   r = draw_upload(t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   CHECK(r == VK_SUCCESS, "%s: vertex buffer", dn);
   VkCommandBuffer cb = draw_begin(t, &dt, &p, vb.buffer);
   if (split) {
      vkCmdDraw(cb, split, 1, 0, 0);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p2.pipeline);
      vkCmdDraw(cb, tp->n - split, 1, split, 0);
   } else {
      vkCmdDraw(cb, tp->n, 1, 0, 0);
   }
   r = draw_end(t, &dt, cb);
   CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   memcpy(pixels, dt.readback.map, W * H * 4);
   vkt_buffer_destroy(t, &vb);
   draw_pipeline_destroy(t, &p);
   if (split)
      draw_pipeline_destroy(t, &p2);
   draw_target_destroy(t, &dt);
   return r == VK_SUCCESS;
}

/* Primitives from `split_prim` on were drawn with mode m2. */
static unsigned
check_draw(const char *dn, const struct topo *tp, enum mode m, enum mode m2, uint32_t split_prim,
           const uint32_t *px)
{
   unsigned bad = 0;
   for (uint32_t p = 0; p < prim_count(tp); p++) {
      uint32_t v[3], n = prim_vertices(tp, p, v);
      double x = 0, y = 0;
      for (uint32_t k = 0; k < n; k++) {
         x += tp->xy[v[k]][0] / n;
         y += tp->xy[v[k]][1] / n;
      }
      enum mode pm = p >= split_prim ? m2 : m;
      uint32_t want = provoking(tp, p, pm == MODE_LAST) + 1;
      uint32_t got = px[(uint32_t)y * W + (uint32_t)x];
      if (got != want && bad++ < 4)
         fprintf(stderr, "%s: %s, %s: primitive %u at (%d, %d): vertex %d, expected %u\n", dn,
                 tp->name, mode_names[pm], p, (int)x, (int)y, (int)got - 1, want - 1);
   }
   return bad;
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceProvokingVertexFeaturesEXT pf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT };
   VkPhysicalDeviceProvokingVertexPropertiesEXT pp = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_PROPERTIES_EXT };
   struct vkt_options o;
   struct vkt t;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME,
                             &pf, &pp, NULL, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE) {
      CHECK(has, "shale: VK_EXT_provoking_vertex not offered");
      CHECK(pf.provokingVertexLast && pf.transformFeedbackPreservesProvokingVertex,
            "shale: features %u %u", pf.provokingVertexLast,
            pf.transformFeedbackPreservesProvokingVertex);
      CHECK(pp.provokingVertexModePerPipeline &&
               pp.transformFeedbackPreservesTriangleFanProvokingVertex,
            "shale: properties %u %u", pp.provokingVertexModePerPipeline,
            pp.transformFeedbackPreservesTriangleFanProvokingVertex);
   }
   if (!has || !pf.provokingVertexLast) {
      fprintf(stderr, "%s: no provoking vertex modes, not run\n", dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_PROVOKING_VERTEX_EXTENSION_NAME };
   VkPhysicalDeviceProvokingVertexFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT,
      .provokingVertexLast = VK_TRUE,
   };
   if (!draw_open_extension(&t, &o, dexts, &enable, NULL))
      return;
   static uint32_t px[W * H];
   for (unsigned i = 0; i < 5; i++) {
      for (int m = MODE_NONE; m <= MODE_LAST; m++) {
         bool ok = draw(&t, &topos[i], (enum mode)m, (enum mode)m, 0, px);
         CHECK(ok, "%s: %s, %s: drawn", dn, topos[i].name, mode_names[m]);
         unsigned bad = check_draw(dn, &topos[i], (enum mode)m, (enum mode)m, ~0u, px);
         CHECK(bad == 0, "%s: %s, %s: %u of %u primitives flat-shaded from another vertex", dn,
               topos[i].name, mode_names[m], bad, prim_count(&topos[i]));
      }
   }
   /* Both modes in one render pass instance: triangles 0-1 LAST then 2-3
    * FIRST, lines 0-1 FIRST then 2-3 LAST. */
   bool ok = draw(&t, &topos[0], MODE_LAST, MODE_FIRST, 6, px);
   CHECK(ok && check_draw(dn, &topos[0], MODE_LAST, MODE_FIRST, 2, px) == 0,
         "%s: LAST then FIRST in one render pass", dn);
   ok = draw(&t, &topos[3], MODE_FIRST, MODE_LAST, 4, px);
   CHECK(ok && check_draw(dn, &topos[3], MODE_FIRST, MODE_LAST, 2, px) == 0,
         "%s: FIRST then LAST in one render pass", dn);
   vkt_finish(&t);
}

int
main(void)
{
   make_topos();
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   return draw_finish();
}
