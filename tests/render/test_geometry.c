/* Geometry shaders (the geometryShader feature): pass-through of triangles
 * (a list, and an indexed strip with a restart), amplification with strip
 * cuts (two quads per point), ClipDistance and CullDistance written by
 * the geometry shader, Invocations (three overlapping quads per
 * point, later invocations on top) with PrimitiveId written by the
 * geometry shader and read by the fragment shader, line-strip and point
 * outputs (and a one-vertex strip that draws nothing), the input vertex
 * order of every topology the spec lists (lists, strips, fans and the four
 * adjacency ones: each input vertex drawn as a quad in its own cell, so the
 * image says which vertex the assembly put where), an adjacency topology
 * drawn without a geometry shader, and a large draw of 1500 points (many
 * chunks of batches, overlapping quads in API order). Every image is
 * compared exactly with a CPU reference (quads and lines on the pixel grid:
 * no pixel centre on an edge), on Shale at SHALE_THREADS 1, 2 and 4 (so
 * also with each other: bit-identical) and on lavapipe. Pipeline
 * statistics: GS invocations and primitives (each triangle of a strip)
 * of the Invocations case. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "geom_adj2_geom_spv.h"
#include "geom_adj3_geom_spv.h"
#include "geom_adj4_geom_spv.h"
#include "geom_adj6_geom_spv.h"
#include "geom_clip_geom_spv.h"
#include "geom_cull_geom_spv.h"
#include "geom_frag_spv.h"
#include "geom_inv_geom_spv.h"
#include "geom_lines_geom_spv.h"
#include "geom_pass_geom_spv.h"
#include "geom_points_geom_spv.h"
#include "geom_primid_frag_spv.h"
#include "geom_quads_geom_spv.h"
#include "geom_vert_spv.h"

#define W 64
#define H 64
#define MAX_VERTS 4096

struct vtx {
   float pos[4];
   float color[4];
};

/* A case: shaders, topology, vertices (and indices), the reference. */
struct gcase {
   const char *name;
   const uint32_t *gs;       /* NULL: no geometry shader */
   size_t gs_size;
   bool primid_fs;
   VkPrimitiveTopology topology;
   bool restart;
   uint32_t nverts, nindices;
   struct vtx *verts;
   uint32_t *indices;
   uint32_t *ref;            /* W x H RGBA8 */
};

#define MAX_CASES 24
static uint32_t img_ref[MAX_CASES][W * H];
static struct vtx vbuf[MAX_CASES][MAX_VERTS];
static uint32_t ibuf[MAX_CASES][64];

/* NDC of pixel coordinate p (0 .. 64). */
static float
ndc(float p)
{
   return p / 32.0f - 1.0f;
}

static void
fill(uint32_t *img, int x0, int y0, int x1, int y1, uint32_t c)
{
   for (int y = y0 < 0 ? 0 : y0; y < y1 && y < H; y++)
      for (int x = x0 < 0 ? 0 : x0; x < x1 && x < W; x++)
         img[y * W + x] = c;
}

static uint32_t
pack(float r, float g, float b, float a)
{
   const float c[4] = {r, g, b, a};
   return draw_pack_rgba8(c);
}

static void
vset(struct vtx *v, float x, float y, float z, float w, float r, float g, float b)
{
   *v = (struct vtx){{x, y, z, w}, {r, g, b, 1.0f}};
}

/* A distinct colour per vertex k (exact in 8 bits: multiples of 1/15). */
static void
vcolor(uint32_t k, float c[3])
{
   c[0] = (float)((k + 1) % 16) / 15.0f;
   c[1] = (float)((14 + 15 - k % 15) % 15) / 15.0f;
   c[2] = (float)((k * 7) % 15) / 15.0f;
}

/* The input vertices of primitive p of n (of a run starting at 0) as the
 * spec's assembly tables give them to a geometry shader. */
static unsigned
spec_prim(VkPrimitiveTopology t, uint32_t p, uint32_t n, uint32_t *o)
{
   uint32_t i = 2 * p;
   switch (t) {
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP: o[0] = p, o[1] = p + 1; return 2;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST: o[0] = 2 * p, o[1] = 2 * p + 1; return 2;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      o[0] = 3 * p, o[1] = 3 * p + 1, o[2] = 3 * p + 2;
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
      o[0] = p, o[1] = p + 1 + (p & 1), o[2] = p + 2 - (p & 1);
      return 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN: o[0] = p + 1, o[1] = p + 2, o[2] = 0; return 3;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY:
      for (unsigned v = 0; v < 4; v++)
         o[v] = 4 * p + v;
      return 4;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY:
      for (unsigned v = 0; v < 4; v++)
         o[v] = p + v;
      return 4;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY:
      for (unsigned v = 0; v < 6; v++)
         o[v] = 6 * p + v;
      return 6;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY: {
      /* Vulkan's "Triangle Strips With Adjacency" equations. */
      static const int32_t eq[6][6] = {
         {0, 1, 2, 5, 4, 3},      /* n = 1 */
         {0, 1, 2, 6, 4, 3},      /* i = 0 */
         {0, 3, 4, 6, 2, -2},     /* 0 < i < n - 1, odd */
         {0, -2, 2, 6, 4, 3},     /* 0 < i < n - 1, even */
         {0, 3, 4, 5, 2, -2},     /* i = n - 1, odd */
         {0, -2, 2, 5, 4, 3},     /* i = n - 1, even */
      };
      unsigned row = n == 1 ? 0 : p == 0 ? 1 : p < n - 1 ? (p & 1 ? 2 : 3) : (p & 1 ? 4 : 5);
      for (unsigned v = 0; v < 6; v++)
         o[v] = (uint32_t)((int32_t)i + eq[row][v]);
      return 6;
   }
   default: return 0;
   }
}

static uint32_t
prim_count(VkPrimitiveTopology t, uint32_t n)
{
   switch (t) {
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP: return n - 1;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST: return n / 2;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST: return n / 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN: return n - 2;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY: return n / 4;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY: return n - 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY: return n / 6;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY: return (n - 4) / 2;
   default: return 0;
   }
}

/* A rectangle [x0, x1) x [y0, y1) of pixels as two triangles. */
static uint32_t
rect_tris(struct vtx *v, int x0, int y0, int x1, int y1, float r, float g, float b)
{
   float X0 = ndc((float)x0), Y0 = ndc((float)y0), X1 = ndc((float)x1), Y1 = ndc((float)y1);
   vset(&v[0], X0, Y0, 0, 1, r, g, b);
   vset(&v[1], X1, Y0, 0, 1, r, g, b);
   vset(&v[2], X0, Y1, 0, 1, r, g, b);
   vset(&v[3], X1, Y0, 0, 1, r, g, b);
   vset(&v[4], X1, Y1, 0, 1, r, g, b);
   vset(&v[5], X0, Y1, 0, 1, r, g, b);
   return 6;
}

/* The quads of quads.geom for a point at pixel (cx, cy), half-size h and
 * shift s (pixels). */
static void
quads_ref(uint32_t *img, struct vtx *v, int cx, int cy, int h, int s, float r, float g, float b)
{
   vset(v, ndc((float)cx), ndc((float)cy), h / 32.0f, s / 32.0f, r, g, b);
   fill(img, cx - h, cy - h, cx + h, cy + h, pack(r, g, b, 1));
   fill(img, cx + s - h, cy - h, cx + s + h, cy + h, pack(b, g, r, 1));
}

static uint32_t ncases;
static struct gcase cases[MAX_CASES];

static struct gcase *
add_case(const char *name, const uint32_t *gs, size_t gs_size, VkPrimitiveTopology t)
{
   struct gcase *c = &cases[ncases];
   *c = (struct gcase){.name = name, .gs = gs, .gs_size = gs_size, .topology = t,
                       .verts = vbuf[ncases], .indices = ibuf[ncases], .ref = img_ref[ncases]};
   ncases++;
   return c;
}

/* The input-order cases: n vertices of topology t drawn through adjN.geom. */
static void
order_case(const char *name, const uint32_t *gs, size_t gs_size, VkPrimitiveTopology t, uint32_t n)
{
   struct gcase *c = add_case(name, gs, gs_size, t);
   c->nverts = n;
   for (uint32_t k = 0; k < n; k++) {
      float col[3];
      vcolor(k, col);
      vset(&c->verts[k], 0, 0, 0, 1, col[0], col[1], col[2]);
   }
   uint32_t np = prim_count(t, n);
   for (uint32_t p = 0; p < np; p++) {
      uint32_t o[6];
      unsigned nv = spec_prim(t, p, np, o);
      for (unsigned i = 0; i < nv; i++) {
         float col[3];
         vcolor(o[i], col);
         fill(c->ref, 8 * (int)i, 4 * (int)p, 8 * (int)i + 8, 4 * (int)p + 4,
              pack(col[0], col[1], col[2], 1));
      }
   }
}

static void
build_cases(void)
{
   struct gcase *c;
   /* Pass-through of a triangle list: two overlapping rectangles. */
   c = add_case("pass", geom_pass_geom_spv, sizeof(geom_pass_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST);
   c->nverts = rect_tris(c->verts, 8, 8, 24, 40, 1, 0, 0);
   c->nverts += rect_tris(c->verts + 6, 20, 30, 50, 60, 0, 0.6f, 1);
   fill(c->ref, 8, 8, 24, 40, pack(1, 0, 0, 1));
   fill(c->ref, 20, 30, 50, 60, pack(0, 0.6f, 1, 1));

   /* The same with ClipDistance[0] = x - 0.25 written by the geometry
    * shader: only pixel columns 40 and up of the second rectangle. */
   c = add_case("clip distance", geom_clip_geom_spv, sizeof(geom_clip_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST);
   c->nverts = rect_tris(c->verts, 8, 8, 24, 40, 1, 0, 0);
   c->nverts += rect_tris(c->verts + 6, 20, 30, 50, 60, 0, 0.6f, 1);
   fill(c->ref, 40, 30, 50, 60, pack(0, 0.6f, 1, 1));

   /* And with CullDistance[0] negative from the third triangle on: only
    * the first rectangle. */
   c = add_case("cull distance", geom_cull_geom_spv, sizeof(geom_cull_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST);
   c->nverts = rect_tris(c->verts, 8, 8, 24, 40, 1, 0, 0);
   c->nverts += rect_tris(c->verts + 6, 20, 30, 50, 60, 0, 0.6f, 1);
   fill(c->ref, 8, 8, 24, 40, pack(1, 0, 0, 1));

   /* An indexed triangle strip with a restart: two rectangles. */
   c = add_case("pass strip restart", geom_pass_geom_spv, sizeof(geom_pass_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP);
   c->restart = true;
   const int rr[2][4] = {{4, 40, 30, 60}, {34, 2, 60, 50}};
   for (int q = 0; q < 2; q++) {
      float g = q ? 1.0f : 0.2f;
      float X0 = ndc((float)rr[q][0]), Y0 = ndc((float)rr[q][1]);
      float X1 = ndc((float)rr[q][2]), Y1 = ndc((float)rr[q][3]);
      vset(&c->verts[4 * q + 0], X0, Y0, 0, 1, 0.4f, g, 0);
      vset(&c->verts[4 * q + 1], X1, Y0, 0, 1, 0.4f, g, 0);
      vset(&c->verts[4 * q + 2], X0, Y1, 0, 1, 0.4f, g, 0);
      vset(&c->verts[4 * q + 3], X1, Y1, 0, 1, 0.4f, g, 0);
      fill(c->ref, rr[q][0], rr[q][1], rr[q][2], rr[q][3], pack(0.4f, g, 0, 1));
   }
   c->nverts = 8;
   const uint32_t idx[] = {0, 1, 2, 3, 0xffffffffu, 4, 5, 6, 7};
   memcpy(c->indices, idx, sizeof(idx));
   c->nindices = 9;

   /* Amplification: two quads per point, cut by EndPrimitive. */
   c = add_case("quads", geom_quads_geom_spv, sizeof(geom_quads_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_POINT_LIST);
   quads_ref(c->ref, &c->verts[0], 12, 12, 6, 10, 1, 0.2f, 0);
   quads_ref(c->ref, &c->verts[1], 30, 20, 8, -12, 0, 0.8f, 0.4f);
   quads_ref(c->ref, &c->verts[2], 40, 44, 10, 14, 0.6f, 0.6f, 1);
   c->nverts = 3;

   /* Invocations: three quads per point, PrimitiveId = id * 4 + i. */
   c = add_case("invocations", geom_inv_geom_spv, sizeof(geom_inv_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_POINT_LIST);
   c->primid_fs = true;
   const int ip[2][4] = {{14, 16, 6, 7}, {20, 44, 8, 9}};
   for (int p = 0; p < 2; p++) {
      vset(&c->verts[p], ndc((float)ip[p][0]), ndc((float)ip[p][1]), ip[p][2] / 32.0f,
           ip[p][3] / 32.0f, 0.2f, 0.4f, 0);
      for (int i = 0; i < 3; i++) {
         int cx = ip[p][0] + i * ip[p][3], h = ip[p][2];
         uint32_t id = (uint32_t)(p * 4 + i);
         fill(c->ref, cx - h, ip[p][1] - h, cx + h, ip[p][1] + h,
              pack((float)id / 255.0f, 0, (float)(i + 1) * 0.25f, 1));
      }
   }
   c->nverts = 2;

   /* Line strips: two segments per point, then a one-vertex strip. */
   c = add_case("line strips", geom_lines_geom_spv, sizeof(geom_lines_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_POINT_LIST);
   const int lp[3][3] = {{4, 5, 10}, {20, 30, 7}, {2, 60, 25}};
   for (int p = 0; p < 3; p++) {
      float col[3];
      vcolor((uint32_t)p + 3, col);
      /* x from pixel lp[0] + 0.25, two segments of lp[2] pixels, y the
       * centre of row lp[1]: pixels lp[0] .. lp[0] + 2 * lp[2] - 1. */
      vset(&c->verts[p], ndc(lp[p][0] + 0.25f), ndc(lp[p][1] + 0.5f), lp[p][2] / 32.0f, 1, col[0],
           col[1], col[2]);
      fill(c->ref, lp[p][0], lp[p][1], lp[p][0] + 2 * lp[p][2], lp[p][1] + 1,
           pack(col[0], col[1], col[2], 1));
   }
   c->nverts = 3;

   /* Points: the ends and middle of each input line. */
   c = add_case("points", geom_points_geom_spv, sizeof(geom_points_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_LINE_LIST);
   const int pp[2][4] = {{3, 3, 41, 21}, {60, 10, 10, 58}};
   for (int l = 0; l < 2; l++) {
      float ca[3], cb[3];
      vcolor((uint32_t)(2 * l), ca);
      vcolor((uint32_t)(2 * l + 1), cb);
      vset(&c->verts[2 * l], ndc(pp[l][0] + 0.5f), ndc(pp[l][1] + 0.5f), 0, 1, ca[0], ca[1], ca[2]);
      vset(&c->verts[2 * l + 1], ndc(pp[l][2] + 0.5f), ndc(pp[l][3] + 0.5f), 0, 1, cb[0], cb[1],
           cb[2]);
      fill(c->ref, pp[l][0], pp[l][1], pp[l][0] + 1, pp[l][1] + 1, pack(ca[0], ca[1], ca[2], 1));
      int mx = (pp[l][0] + pp[l][2]) / 2, my = (pp[l][1] + pp[l][3]) / 2;
      fill(c->ref, mx, my, mx + 1, my + 1, pack(ca[0], ca[1], ca[2], 1));
      fill(c->ref, pp[l][2], pp[l][3], pp[l][2] + 1, pp[l][3] + 1, pack(cb[0], cb[1], cb[2], 1));
   }
   c->nverts = 4;

   /* Input vertex order of every topology. */
   order_case("order line list", geom_adj2_geom_spv, sizeof(geom_adj2_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_LINE_LIST, 6);
   order_case("order line strip", geom_adj2_geom_spv, sizeof(geom_adj2_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, 5);
   order_case("order triangle strip", geom_adj3_geom_spv, sizeof(geom_adj3_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, 7);
   order_case("order triangle fan", geom_adj3_geom_spv, sizeof(geom_adj3_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN, 6);
   order_case("order line list adjacency", geom_adj4_geom_spv, sizeof(geom_adj4_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY, 8);
   order_case("order line strip adjacency", geom_adj4_geom_spv, sizeof(geom_adj4_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY, 7);
   order_case("order triangle list adjacency", geom_adj6_geom_spv, sizeof(geom_adj6_geom_spv),
              VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY, 12);
   order_case("order triangle strip adjacency (1)", geom_adj6_geom_spv,
              sizeof(geom_adj6_geom_spv), VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY, 7);
   order_case("order triangle strip adjacency (6)", geom_adj6_geom_spv,
              sizeof(geom_adj6_geom_spv), VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY, 16);

   /* A triangle list with adjacency and no geometry shader: the triangles
    * of vertices 0, 2, 4 (the adjacent ones far off, unused). */
   c = add_case("adjacency without a geometry shader", NULL, 0,
                VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY);
   struct vtx t[6];
   rect_tris(t, 10, 6, 54, 30, 0.2f, 1, 0.6f);
   for (int k = 0; k < 6; k++) {
      c->verts[2 * k] = t[k];
      vset(&c->verts[2 * k + 1], -0.9f + 0.3f * k, 0.9f, 0, 1, 1, 1, 1);
   }
   c->nverts = 12;
   fill(c->ref, 10, 6, 54, 30, pack(0.2f, 1, 0.6f, 1));

   /* Many points: overlapping quad pairs in API order over many chunks. */
   c = add_case("many points", geom_quads_geom_spv, sizeof(geom_quads_geom_spv),
                VK_PRIMITIVE_TOPOLOGY_POINT_LIST);
   uint64_t seed = 0x9e3779b97f4a7c15ull;
   for (uint32_t p = 0; p < 1500; p++) {
      int cx = (int)(draw_rand_u32(&seed) % 60) + 2, cy = (int)(draw_rand_u32(&seed) % 60) + 2;
      int h = (int)(draw_rand_u32(&seed) % 3) + 1, s = (int)(draw_rand_u32(&seed) % 9) - 4;
      float col[3];
      vcolor(p % 15, col);
      quads_ref(c->ref, &c->verts[p], cx, cy, h, s, col[0], col[1], col[2]);
   }
   c->nverts = 1500;
}

struct ctx {
   struct vkt t;
   VkShaderModule vs, fs, fs_primid;
   VkPipelineLayout layout;
   VkQueryPool stats;
};

/* Draws case c; the image into out. Returns false when something failed. */
static bool
run_case(struct ctx *x, const struct gcase *c, uint32_t *out, uint64_t stats[2])
{
   struct vkt *t = &x->t;
   const char *dn = vkt_driver_name(t->driver);
   struct draw_target dt = {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H};
   VkResult r = draw_target_create(t, &dt);
   CHECK(r == VK_SUCCESS, "%s: %s: target: %d", dn, c->name, r);
   if (r != VK_SUCCESS)
      return false;
   VkShaderModule gs = VK_NULL_HANDLE;
   if (c->gs) {
      r = vkt_shader_module(t, c->gs, c->gs_size, &gs);
      CHECK(r == VK_SUCCESS, "%s: %s: geometry module: %d", dn, c->name, r);
   }
   struct draw_pipeline_info pi = {
      .stride = sizeof(struct vtx), .attrib_count = 2,
      .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
      .attrib_offset = {0, 16},
      .topology = c->topology, .primitive_restart = c->restart,
      .cull_mode = VK_CULL_MODE_NONE, .polygon_mode = VK_POLYGON_MODE_FILL,
   };
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, &dt, &pi, x->vs, c->primid_fs ? x->fs_primid : x->fs, x->layout);
   struct draw_pipeline p = {.layout = x->layout};
   if (r == VK_SUCCESS) {
      r = draw_pipeline_create_geometry(t, &st, gs, &p.pipeline);
      CHECK(r == VK_SUCCESS, "%s: %s: pipeline: %d", dn, c->name, r);
   }
   struct vkt_buffer vb = {0}, ib = {0};
   if (r == VK_SUCCESS)
      r = draw_upload(t, c->verts, c->nverts * sizeof(struct vtx), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                      &vb);
   if (r == VK_SUCCESS && c->nindices)
      r = draw_upload(t, c->indices, c->nindices * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ib);
   bool ok = r == VK_SUCCESS;
   if (ok) {
      VkCommandBuffer cb = vkt_begin(t);
      if (stats)
         vkCmdResetQueryPool(cb, x->stats, 0, 1);
      vkt_submit_wait(t, cb);
      cb = draw_begin(t, &dt, &p, vb.buffer);
      if (stats)
         vkCmdBeginQuery(cb, x->stats, 0, 0);
      if (c->nindices) {
         vkCmdBindIndexBuffer(cb, ib.buffer, 0, VK_INDEX_TYPE_UINT32);
         vkCmdDrawIndexed(cb, c->nindices, 1, 0, 0, 0);
      } else {
         vkCmdDraw(cb, c->nverts, 1, 0, 0);
      }
      if (stats)
         vkCmdEndQuery(cb, x->stats, 0);
      r = draw_end(t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: drawn: %d", dn, c->name, r);
      ok = r == VK_SUCCESS;
      if (ok)
         memcpy(out, dt.readback.map, W * H * 4);
      if (ok && stats) {
         r = vkGetQueryPoolResults(t->device, x->stats, 0, 1, 2 * sizeof(uint64_t), stats,
                                   sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
         CHECK(r == VK_SUCCESS, "%s: %s: statistics: %d", dn, c->name, r);
      }
   }
   if (vb.buffer)
      vkt_buffer_destroy(t, &vb);
   if (ib.buffer)
      vkt_buffer_destroy(t, &ib);
   vkDestroyPipeline(t->device, p.pipeline, NULL);
   vkDestroyShaderModule(t->device, gs, NULL);
   draw_target_destroy(t, &dt);
   return ok;
}

static unsigned
compare(const char *what, const char *name, const uint32_t *got, const uint32_t *want)
{
   unsigned bad = 0;
   for (int i = 0; i < W * H; i++) {
      if (got[i] != want[i] && bad++ < 4)
         fprintf(stderr, "%s: %s: pixel (%d, %d): %08x, expected %08x\n", what, name, i % W, i / W,
                 got[i], want[i]);
   }
   return bad;
}

static uint32_t images[3][MAX_CASES][W * H];

/* Runs every case on driver d; false when the driver is not there. */
static bool
run_driver(enum vkt_driver d, const char *threads, uint32_t (*img)[W * H])
{
   struct vkt_options o;
   VkPhysicalDeviceFeatures core;
   bool has;
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   if (!draw_probe_extension(d, &o, VK_KHR_MAINTENANCE1_EXTENSION_NAME, NULL, NULL, &core, &has)) {
      CHECK(d == VKT_LAVAPIPE, "Shale device missing");
      return false;
   }
   const char *dn = vkt_driver_name(d);
   CHECK(core.geometryShader, "%s: geometryShader not offered", dn);
   if (!core.geometryShader)
      return false;
   CHECK(core.shaderClipDistance && core.shaderCullDistance,
         "%s: shaderClipDistance or shaderCullDistance not offered", dn);
   VkPhysicalDeviceFeatures feats = {.geometryShader = VK_TRUE,
                                     .shaderClipDistance = core.shaderClipDistance,
                                     .shaderCullDistance = core.shaderCullDistance,
                                     .pipelineStatisticsQuery = core.pipelineStatisticsQuery};
   o.features = &feats;
   struct ctx x;
   memset(&x, 0, sizeof(x));
   CHECK(vkt_init(&x.t, &o), "%s: device with geometryShader", dn);
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(x.t.pdev, &props);
   const VkPhysicalDeviceLimits *lim = &props.limits;
   CHECK(lim->maxGeometryShaderInvocations >= 32 && lim->maxGeometryInputComponents >= 64 &&
            lim->maxGeometryOutputComponents >= 64 && lim->maxGeometryOutputVertices >= 256 &&
            lim->maxGeometryTotalOutputComponents >= 1024,
         "%s: geometry limits %u %u %u %u %u", dn, lim->maxGeometryShaderInvocations,
         lim->maxGeometryInputComponents, lim->maxGeometryOutputComponents,
         lim->maxGeometryOutputVertices, lim->maxGeometryTotalOutputComponents);
   VkResult r = vkt_shader_module(&x.t, geom_vert_spv, sizeof(geom_vert_spv), &x.vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, geom_frag_spv, sizeof(geom_frag_spv), &x.fs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, geom_primid_frag_spv, sizeof(geom_primid_frag_spv), &x.fs_primid);
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&x.t, VK_NULL_HANDLE,
                               VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_GEOMETRY_BIT |
                                  VK_SHADER_STAGE_FRAGMENT_BIT,
                               0, &x.layout);
   if (r == VK_SUCCESS && core.pipelineStatisticsQuery) {
      VkQueryPoolCreateInfo qi = {
         .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
         .queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS, .queryCount = 1,
         .pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_GEOMETRY_SHADER_INVOCATIONS_BIT |
                               VK_QUERY_PIPELINE_STATISTIC_GEOMETRY_SHADER_PRIMITIVES_BIT,
      };
      r = vkCreateQueryPool(x.t.device, &qi, NULL, &x.stats);
   }
   CHECK(r == VK_SUCCESS, "%s: shader modules, layout and query pool: %d", dn, r);
   for (uint32_t i = 0; r == VK_SUCCESS && i < ncases; i++) {
      uint64_t stats[2] = {0, 0};
      bool want_stats = x.stats && !strcmp(cases[i].name, "invocations");
      if (!run_case(&x, &cases[i], img[i], want_stats ? stats : NULL))
         continue;
      unsigned bad = compare(dn, cases[i].name, img[i], cases[i].ref);
      CHECK(bad == 0, "%s (SHALE_THREADS %s): %s: %u pixels differ from the reference", dn,
            threads ? threads : "-", cases[i].name, bad);
      /* (lavapipe of Mesa 22.3 counts invocations per input primitive,
       * not per instanced invocation as the spec says: Shale only.) */
      if (want_stats && d == VKT_LAVAPIPE)
         fprintf(stderr, "lavapipe: GS invocations %llu, GS primitives %llu\n",
                 (unsigned long long)stats[0], (unsigned long long)stats[1]);
      else if (want_stats)
         CHECK(stats[0] == 6 && stats[1] == 12,
               "%s: %s: GS invocations %llu (want 6), GS primitives %llu (want 12)", dn,
               cases[i].name, (unsigned long long)stats[0], (unsigned long long)stats[1]);
   }
   vkDestroyQueryPool(x.t.device, x.stats, NULL);
   vkDestroyPipelineLayout(x.t.device, x.layout, NULL);
   vkDestroyShaderModule(x.t.device, x.vs, NULL);
   vkDestroyShaderModule(x.t.device, x.fs, NULL);
   vkDestroyShaderModule(x.t.device, x.fs_primid, NULL);
   vkt_finish(&x.t);
   return true;
}

int
main(void)
{
   build_cases();
   static const char *const threads[3] = {"1", "2", "4"};
   for (int k = 0; k < 3; k++) {
      if (!run_driver(VKT_SHALE, threads[k], images[k]))
         break;
      if (k)
         for (uint32_t i = 0; i < ncases; i++)
            CHECK(!memcmp(images[k][i], images[0][i], W * H * 4),
                  "shale: %s: SHALE_THREADS %s differs from SHALE_THREADS 1", cases[i].name,
                  threads[k]);
   }
   unsetenv("SHALE_THREADS");
   run_driver(VKT_LAVAPIPE, NULL, images[0]);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
