/* Tessellation (the tessellationShader feature) through the API: patch
 * lists of four control points, a control shader writing the levels from
 * the patch's vertex data (TessLevelOuter/Inner) and a per-patch colour,
 * evaluation shaders of each domain (triangles, quads, isolines), spacing
 * (equal, fractional odd, fractional even), vertex order (cw, ccw) and
 * point mode, both domain origins (VkPipelineTessellationDomainOriginStateCreateInfo),
 * a depth-tested mesh of two patches, an indexed draw of two instances
 * with the viewport and scissor set by command, a geometry shader after
 * the evaluation shader (PrimitiveIdIn, PointSize), point mode with
 * PointSize, the fragment shader's PrimitiveId without a geometry shader,
 * one patch of 32 control points reading back every component it
 * passes, and OutputVertices declared by the evaluation shader alone or
 * by both stages (SPIR-V allows either; the test moves glslang's
 * OpExecutionMode between the modules' words), and
 * control shader Output variables with initializers (init.tesc.spvasm:
 * a per-vertex array some of whose vertices are written over, one
 * invocation reading another's after a barrier, a patch output never
 * stored, gl_out[]'s gl_PointSize set by the initializer alone). Patches map the domain linearly onto rectangles and
 * right triangles whose edges sit a quarter pixel off the pixel grid, so
 * no pixel centre lies on a patch edge: whatever the triangulation (the
 * spec leaves it to the implementation, and fractional spacing's short
 * segments too), the covered pixels are exactly those inside the patch
 * and the colour (u, v, patch blue) is the linear function of the pixel
 * centre a CPU reference computes; colours are compared within 1/255 a
 * channel (the interpolation's rounding), coverage and the clear colour
 * exactly. Back-face culling shows the generated winding: a patch is
 * drawn only when its triangles are counter-clockwise on screen, which
 * the spec ties to VertexOrderCcw with the upper-left origin and to
 * VertexOrderCw with the lower-left one. Point mode with equal spacing
 * puts every point on a pixel centre (exact positions); isolines' lines
 * lie a quarter pixel below pixel centres. Each image is compared with the
 * CPU reference on Shale at SHALE_THREADS 1, 2 and 4 (so also with each
 * other: bit-identical) and on lavapipe, and Shale's with lavapipe's
 * (within 1/255). Every pipeline goes through a VkPipelineCache; the
 * runs at 2 and 4 threads make theirs from the first run's cache data,
 * so on their fresh devices the tessellation shaders are linked from its
 * blobs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "init_tesc_spv.h"
#include "init_tese_spv.h"
#include "init_vert_spv.h"
#include "tess_frag_spv.h"
#include "tess_pass_geom_spv.h"
#include "tess_primid_frag_spv.h"
#include "tess_primid_geom_spv.h"
#include "tess_tesc_spv.h"
#include "tess_vert_spv.h"
#include "lim_vert_spv.h"
#include "tesc_lim_spv.h"
#include "tesc_lim_pm_spv.h"
#include "tese_lim_spv.h"
#include "tese_lim_pm_spv.h"
#include "tese_iso_eq_spv.h"
#include "tese_iso_odd_spv.h"
#include "tese_quad_eq_ccw_spv.h"
#include "tese_quad_eq_cw_spv.h"
#include "tese_quad_even_ccw_spv.h"
#include "tese_quad_odd_ccw_spv.h"
#include "tese_quad_pts3_spv.h"
#include "tese_quad_pts_spv.h"
#include "tess_points_geom_spv.h"
#include "tese_tri_eq_ccw_spv.h"
#include "tese_tri_eq_cw_spv.h"
#include "tese_tri_even_cw_spv.h"
#include "tese_tri_odd_ccw_spv.h"

#define W 64
#define H 64
#define MAX_PATCHES 4
#define CLEAR 0xff402010u

struct vtx {
   float pos[4];
   float data[4];
};

enum shape { TRI, QUAD, ISO, POINTS };

struct tese {
   const char *name;
   const uint32_t *code;
   size_t size;
   enum shape shape;
   bool ccw;
};

#define TESE(n, s, c) {#n, n##_spv, sizeof(n##_spv), s, c}
static const struct tese teses[] = {
   TESE(tese_tri_eq_ccw, TRI, true),     TESE(tese_tri_eq_cw, TRI, false),
   TESE(tese_tri_odd_ccw, TRI, true),    TESE(tese_tri_even_cw, TRI, false),
   TESE(tese_quad_eq_ccw, QUAD, true),   TESE(tese_quad_eq_cw, QUAD, false),
   TESE(tese_quad_odd_ccw, QUAD, true),  TESE(tese_quad_even_ccw, QUAD, true),
   TESE(tese_iso_eq, ISO, true),         TESE(tese_iso_odd, ISO, true),
   TESE(tese_quad_pts, POINTS, true),     TESE(tese_quad_pts3, POINTS, true),
};
enum {
   T_TRI_EQ_CCW, T_TRI_EQ_CW, T_TRI_ODD_CCW, T_TRI_EVEN_CW, T_QUAD_EQ_CCW, T_QUAD_EQ_CW,
   T_QUAD_ODD_CCW, T_QUAD_EVEN_CCW, T_ISO_EQ, T_ISO_ODD, T_QUAD_PTS, T_QUAD_PTS3,
   T_COUNT
};

/* One patch: its rectangle (pixels; triangles take the corners (x0, y0),
 * (x1, y0), (x0, y1)), depth at u = 0 and u = 1, levels and blue. */
struct patch {
   float x0, y0, x1, y1;
   float z0, z1;
   float outer[4], inner[2];
   float blue;
};

struct tcase {
   const char *name;
   unsigned tese;
   bool lower_left, origin_struct;   /* the domain origin, and whether the struct is chained */
   bool gs, primid, depth, cull;
   bool gs_points;                   /* the geometry shader: points of PointSize 3 */
   bool indexed;                     /* indices, patches in reverse, two instances,
                                      * dynamic viewport and scissor */
   uint32_t npatches;
   struct patch p[MAX_PATCHES];
   /* OutputVertices (SPIR-V lets either stage declare it): 0 in the
    * control shader only (as glslang writes it), 1 in the evaluation
    * shader only, 2 in both (equal). */
   int ov_where;
   bool loose;                       /* no full CPU reference (lines): checked by parts */
   uint32_t ref[W * H];
};

#define MAX_CASES 32
static struct tcase cases[MAX_CASES];
static uint32_t ncases;

static float
ndc(float p)
{
   return p / 32.0f - 1.0f;
}

static uint32_t
pack(float r, float g, float b)
{
   const float c[4] = {r, g, b, 1.0f};
   return draw_pack_rgba8(c);
}

/* The patch's domain coordinate (u, v) at pixel centre (cx, cy); false
 * outside it. */
static bool
domain_at(enum shape s, const struct patch *p, float cx, float cy, float *u, float *v)
{
   const float a = (cx - p->x0) / (p->x1 - p->x0), b = (cy - p->y0) / (p->y1 - p->y0);
   if (s == TRI) {
      /* x = x0 + v dx, y = y0 + w dy, u = 1 - v - w */
      *u = 1.0f - a - b;
      *v = a;
      return a > 0 && b > 0 && *u > 0;
   }
   *u = a;
   *v = b;
   return a > 0 && a < 1 && b > 0 && b < 1;
}

static struct tcase *
add_case(const char *name, unsigned tese)
{
   struct tcase *c = &cases[ncases++];
   memset(c, 0, sizeof(*c));
   c->name = name;
   c->tese = tese;
   c->cull = true;
   return c;
}

static void
add_patch(struct tcase *c, float x0, float y0, float x1, float y1, const float outer[4],
          const float inner[2], float blue)
{
   struct patch *p = &c->p[c->npatches++];
   *p = (struct patch){x0, y0, x1, y1, 0.5f, 0.5f, {0}, {0}, blue};
   memcpy(p->outer, outer, sizeof(p->outer));
   memcpy(p->inner, inner, sizeof(p->inner));
}

/* The filled patches' reference: patches in order, each pixel centre
 * inside a visible patch takes its colour (the depth test LESS when the
 * case has depth: z linear in u). */
static void
fill_ref(struct tcase *c)
{
   const enum shape s = teses[c->tese].shape;
   /* Counter-clockwise on screen (the mapping keeps the domain's
    * orientation) exactly when ccw with the upper-left origin or cw with
    * the lower-left; back faces are culled. */
   const bool visible = !c->cull || (teses[c->tese].ccw != c->lower_left);
   for (int i = 0; i < W * H; i++) {
      const float cx = (float)(i % W) + 0.5f, cy = (float)(i / W) + 0.5f;
      uint32_t col = CLEAR;
      float depth = 1.0f;
      for (uint32_t k = 0; visible && k < c->npatches; k++) {
         const struct patch *p = &c->p[k];
         float u, v;
         if (!domain_at(s, p, cx, cy, &u, &v))
            continue;
         const float z = p->z0 + (p->z1 - p->z0) * u;
         if (c->depth && !(z < depth))
            continue;
         depth = z;
         col = pack(u, v, p->blue);
      }
      c->ref[i] = col;
   }
}

static void
build_cases(void)
{
   static const float o3[4] = {3, 3, 3, 3}, i3[2] = {3, 3};
   static const float o5[4] = {5, 2, 4, 7}, i4[2] = {4, 6};
   static const float of[4] = {2.5f, 3.25f, 5.75f, 1.5f}, ifr[2] = {3.5f, 4.75f};
   static const float ob[4] = {7.9f, 1.1f, 12.3f, 4.4f}, ib[2] = {6.6f, 2.2f};
   static const float o2[4] = {2, 2, 2, 2}, i2[2] = {2, 2};
   struct tcase *c;

   /* Each domain, spacing and order; two patches each, different levels
    * and blues (per-patch outputs of the control shader). */
   const struct { const char *name; unsigned t; } filled[] = {
      {"triangles equal ccw", T_TRI_EQ_CCW},      {"triangles equal cw", T_TRI_EQ_CW},
      {"triangles fractional_odd ccw", T_TRI_ODD_CCW},
      {"triangles fractional_even cw", T_TRI_EVEN_CW},
      {"quads equal ccw", T_QUAD_EQ_CCW},         {"quads equal cw", T_QUAD_EQ_CW},
      {"quads fractional_odd ccw", T_QUAD_ODD_CCW},
      {"quads fractional_even ccw", T_QUAD_EVEN_CCW},
   };
   for (unsigned k = 0; k < sizeof(filled) / sizeof(filled[0]); k++) {
      for (int origin = 0; origin < 2; origin++) {
         /* The lower-left origin with the equal-spacing ones (and
          * fractional even, cw: drawn only with it). */
         if (origin && (k & 2) && k != 3)
            continue;
         static char names[16][96];
         char *name = names[k * 2 + origin];
         snprintf(name, 96, "%s%s", filled[k].name, origin ? ", lower-left origin" : "");
         c = add_case(name, filled[k].t);
         c->lower_left = origin;
         c->origin_struct = origin || (k & 1);   /* upper-left given or left out */
         add_patch(c, 4.25f, 6.25f, 36.25f, 58.25f, k & 2 ? of : o5, k & 2 ? ifr : i4, 0.2f);
         add_patch(c, 38.25f, 2.25f, 62.25f, 30.25f, k & 4 ? ob : o3, k & 4 ? ib : i3, 0.8f);
         fill_ref(c);
      }
   }
   /* The same through an index buffer naming the patches in reverse
    * order, two instances drawing over each other, the viewport and
    * scissor set by command. */
   cases[ncases] = cases[ncases - 1];
   c = &cases[ncases++];
   c->name = "quads fractional_even ccw, indexed, two instances, dynamic viewport";
   c->indexed = true;
   /* Without culling every patch is drawn whatever its winding. */
   c = add_case("triangles equal cw, no culling", T_TRI_EQ_CW);
   c->cull = false;
   add_patch(c, 4.25f, 6.25f, 60.25f, 58.25f, o5, i4, 0.4f);
   fill_ref(c);

   /* OutputVertices declared by the evaluation shader alone, and by both
    * stages: the quads equal ccw case's patches and image. */
   for (int k = 1; k <= 2; k++) {
      c = add_case(k == 1 ? "quads equal ccw, OutputVertices in the evaluation shader only"
                          : "quads equal ccw, OutputVertices in both stages",
                   T_QUAD_EQ_CCW);
      c->ov_where = k;
      add_patch(c, 4.25f, 6.25f, 36.25f, 58.25f, o5, i4, 0.2f);
      add_patch(c, 38.25f, 2.25f, 62.25f, 30.25f, o3, i3, 0.8f);
      fill_ref(c);
   }

   /* A depth-tested mesh: a constant-depth quad (z 0.5) and, after it, a
    * fractional-odd one whose depth goes from 0.25 to 0.75 across u,
    * crossing it at x = 32.25. */
   c = add_case("depth", T_QUAD_ODD_CCW);
   c->depth = true;
   add_patch(c, 16.25f, 20.25f, 48.25f, 60.25f, o3, i3, 0.6f);
   add_patch(c, 8.25f, 4.25f, 56.25f, 44.25f, ob, ib, 0.1f);
   c->p[1].z0 = 0.25f, c->p[1].z1 = 0.75f;
   fill_ref(c);

   /* A geometry shader passing the generated triangles on. */
   c = add_case("geometry shader after tessellation", T_TRI_ODD_CCW);
   c->gs = true;
   add_patch(c, 4.25f, 6.25f, 36.25f, 58.25f, of, ifr, 0.2f);
   add_patch(c, 38.25f, 2.25f, 62.25f, 30.25f, o5, i4, 0.8f);
   fill_ref(c);

   /* Point mode, equal spacing: u in quarters over 48 pixels, v in thirds,
    * every point on a pixel centre; PointSize 1 and 3 from the evaluation
    * shader, and 3 from a geometry shader after it
    * (shaderTessellationAndGeometryPointSize): the point's pixel, or the
    * 3 x 3 pixels around it. */
   for (int k = 0; k < 3; k++) {
      static const char *const names[3] = {
         "quads point_mode, PointSize 1", "quads point_mode, PointSize 3",
         "quads point_mode, a geometry shader's PointSize 3"};
      static const float op[4] = {3, 4, 3, 4}, ip[2] = {4, 3};
      c = add_case(names[k], k == 1 ? T_QUAD_PTS3 : T_QUAD_PTS);
      c->gs = c->gs_points = k == 2;
      add_patch(c, 8.5f, 8.5f, 56.5f, 56.5f, op, ip, 0.4f);
      for (int i = 0; i < W * H; i++)
         c->ref[i] = CLEAR;
      const int r = k ? 1 : 0;
      for (int i = 0; i <= 4; i++)
         for (int j = 0; j <= 3; j++)
            for (int dy = -r; dy <= r; dy++)
               for (int dx = -r; dx <= r; dx++)
                  c->ref[(8 + 16 * j + dy) * W + 8 + 12 * i + dx] =
                     pack(i / 4.0f, j / 3.0f, 0.4f);
   }

   /* Isolines: outer level 0 lines at v = k / 4 (rows 8, 20, 32, 44: a
    * quarter pixel below their centres), outer level 1 segments along u. */
   for (int k = 0; k < 2; k++) {
      c = add_case(k ? "isolines fractional_odd" : "isolines equal", k ? T_ISO_ODD : T_ISO_EQ);
      c->loose = true;
      const float ol[4] = {4, k ? 3.5f : 3.0f, 1, 1};
      add_patch(c, 8.25f, 8.25f, 56.25f, 56.25f, ol, i2, 0.7f);
   }

   /* PrimitiveId in the fragment shader without a geometry shader, two
    * patches of 8 triangles each: compared with lavapipe (below). */
   c = add_case("fragment PrimitiveId", T_QUAD_EQ_CCW);
   c->primid = true;
   c->loose = true;
   add_patch(c, 4.25f, 6.25f, 30.25f, 58.25f, o2, i2, 0.2f);
   add_patch(c, 34.25f, 6.25f, 60.25f, 58.25f, o2, i2, 0.8f);
   /* The same through a geometry shader writing PrimitiveIdIn. */
   cases[ncases] = *c;
   c = &cases[ncases++];
   c->name = "geometry shader PrimitiveIdIn";
   c->gs = true;
}

/* The SPIR-V words of `code` without its OpExecutionMode OutputVertices
 * (drop) or with `OpExecutionMode <entry point> OutputVertices 4` added
 * after its last execution mode (!drop), in out (room for size + 16
 * bytes); returns the new size in bytes, 0 when the module has no such
 * place. glslang puts OutputVertices in the control shader only. */
static size_t
move_output_vertices(const uint32_t *code, size_t size, bool drop, uint32_t *out)
{
   const size_t n = size / 4;
   size_t o = 5;
   uint32_t target = 0;
   bool done = false;
   memcpy(out, code, 20);
   for (size_t i = 5; i < n;) {
      const uint32_t len = code[i] >> 16, op = code[i] & 0xffff;
      if (!len || len > n - i)
         return 0;
      if (!drop && target && op != 16 /* OpExecutionMode */ && !done) {
         /* Past the last execution mode: the new one, on the same entry point. */
         out[o++] = 4u << 16 | 16;
         out[o++] = target;
         out[o++] = 26;   /* OutputVertices */
         out[o++] = 4;
         done = true;
      }
      if (op == 16)
         target = code[i + 1];
      if (drop && op == 16 && code[i + 2] == 26) {
         done = true;
      } else {
         memcpy(&out[o], &code[i], len * 4);
         o += len;
      }
      i += len;
   }
   return done ? o * 4 : 0;
}

struct ctx {
   struct vkt t;
   VkShaderModule vs, tcs, fs, fs_primid, gs, gs_primid, gs_points, tes[T_COUNT];
   VkShaderModule tcs_no_ov, tes_ov;   /* OutputVertices moved (tcase.ov_where) */
   VkShaderModule init_vs, init_tcs, init_tes;  /* initialized control shader outputs */
   VkShaderModule lim_vs, lim_tcs[2], lim_tes[2];
   VkPipelineLayout layout;
   VkPipelineCache cache;   /* every pipeline's (see run_driver) */
};

/* The pipeline cache data of Shale's first run (SHALE_THREADS 1), from
 * which the later runs' devices, each with a fresh shader runtime, make
 * their pipeline caches: their pipelines' shaders come from its blobs. */
static void *cache_data;
static size_t cache_size;

static bool
run_case(struct ctx *x, const struct tcase *c, uint32_t *out)
{
   struct vkt *t = &x->t;
   const char *dn = vkt_driver_name(t->driver);
   struct draw_target dt = {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H,
                            .clear_color = {.float32 = {0x10 / 255.0f, 0x20 / 255.0f,
                                                        0x40 / 255.0f, 1.0f}},
                            .clear_depth = 1.0f};
   if (c->depth)
      dt.depth_format = VK_FORMAT_D32_SFLOAT;
   VkResult r = draw_target_create(t, &dt);
   CHECK(r == VK_SUCCESS, "%s: %s: target: %d", dn, c->name, r);
   if (r != VK_SUCCESS)
      return false;
   const VkPipelineDepthStencilStateCreateInfo dss = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS, .maxDepthBounds = 1.0f,
   };
   struct draw_pipeline_info pi = {
      .stride = sizeof(struct vtx), .attrib_count = 2,
      .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
      .attrib_offset = {0, 16},
      .topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST,
      .cull_mode = c->cull ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE,
      .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .depth_stencil = c->depth ? &dss : NULL,
      .dynamic_viewport_scissor = c->indexed,
   };
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, &dt, &pi, x->vs, c->primid ? x->fs_primid : x->fs, x->layout);
   VkPipelineShaderStageCreateInfo stages[5] = {st.stages[0], st.stages[1]};
   const VkShaderStageFlagBits more[3] = {VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
                                          VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
                                          VK_SHADER_STAGE_GEOMETRY_BIT};
   const VkShaderModule mods[3] = {c->ov_where == 1 ? x->tcs_no_ov : x->tcs,
                                   c->ov_where ? x->tes_ov : x->tes[c->tese],
                                   c->primid      ? x->gs_primid
                                   : c->gs_points ? x->gs_points
                                                  : x->gs};
   for (int k = 0; k < (c->gs ? 3 : 2); k++)
      stages[2 + k] = (VkPipelineShaderStageCreateInfo){
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = more[k], .module = mods[k], .pName = "main"};
   st.info.stageCount = c->gs ? 5 : 4;
   st.info.pStages = stages;
   const VkPipelineTessellationDomainOriginStateCreateInfo origin = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO,
      .domainOrigin = c->lower_left ? VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT
                                    : VK_TESSELLATION_DOMAIN_ORIGIN_UPPER_LEFT,
   };
   const VkPipelineTessellationStateCreateInfo ts = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
      .pNext = c->origin_struct ? &origin : NULL,
      .patchControlPoints = 4,
   };
   st.info.pTessellationState = &ts;
   struct draw_pipeline p = {.layout = x->layout, .dynamic_viewport_scissor = c->indexed};
   r = vkCreateGraphicsPipelines(t->device, x->cache, 1, &st.info, NULL, &p.pipeline);
   CHECK(r == VK_SUCCESS, "%s: %s: pipeline: %d", dn, c->name, r);
   struct vtx verts[MAX_PATCHES * 4 + 2];
   memset(verts, 0, sizeof(verts));
   for (uint32_t k = 0; k < c->npatches; k++) {
      const struct patch *q = &c->p[k];
      const bool tri = teses[c->tese].shape == TRI;
      const float px[4] = {q->x0, q->x1, tri ? q->x0 : q->x1, q->x0};
      const float py[4] = {q->y0, q->y0, q->y1, q->y1};
      const float pz[4] = {q->z0, q->z1, tri ? q->z0 : q->z1, q->z0};
      for (int v = 0; v < 4; v++) {
         struct vtx *o = &verts[k * 4 + v];
         o->pos[0] = ndc(px[v]), o->pos[1] = ndc(py[v]), o->pos[2] = pz[v], o->pos[3] = 1.0f;
      }
      memcpy(verts[k * 4].data, q->outer, 16);
      memcpy(verts[k * 4 + 1].data, q->inner, 8);
      verts[k * 4 + 2].data[2] = q->blue;
   }
   struct vkt_buffer vb = {0};
   if (r == VK_SUCCESS)
      r = draw_upload(t, verts, (c->npatches * 4 + 2) * sizeof(struct vtx),
                      VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   /* Patches in reverse order, each one's vertices in order, then the
    * two extra vertices. */
   uint32_t idx[MAX_PATCHES * 4 + 2];
   const uint32_t nidx = c->npatches * 4 + 2;
   for (uint32_t k = 0; k < c->npatches; k++)
      for (uint32_t v = 0; v < 4; v++)
         idx[k * 4 + v] = (c->npatches - 1 - k) * 4 + v;
   idx[nidx - 2] = nidx - 2, idx[nidx - 1] = nidx - 1;
   struct vkt_buffer ib = {0};
   if (r == VK_SUCCESS && c->indexed)
      r = draw_upload(t, idx, sizeof(idx), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ib);
   bool ok = r == VK_SUCCESS;
   if (ok) {
      VkCommandBuffer cb = draw_begin(t, &dt, &p, vb.buffer);
      /* Two vertices more than the patches: a partial patch draws nothing. */
      if (c->indexed) {
         vkCmdBindIndexBuffer(cb, ib.buffer, 0, VK_INDEX_TYPE_UINT32);
         vkCmdDrawIndexed(cb, nidx, 2, 0, 0, 0);
      } else {
         vkCmdDraw(cb, nidx, 1, 0, 0);
      }
      r = draw_end(t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: drawn: %d", dn, c->name, r);
      ok = r == VK_SUCCESS;
      if (ok)
         memcpy(out, dt.readback.map, W * H * 4);
   }
   if (vb.buffer)
      vkt_buffer_destroy(t, &vb);
   if (ib.buffer)
      vkt_buffer_destroy(t, &ib);
   vkDestroyPipeline(t->device, p.pipeline, NULL);
   draw_target_destroy(t, &dt);
   return ok;
}

/* Pixels differing by more than 1 in a channel, or at all where either is
 * the clear colour. */
static unsigned
compare(const char *what, const char *name, const uint32_t *got, const uint32_t *want)
{
   unsigned bad = 0;
   for (int i = 0; i < W * H; i++) {
      bool differ = got[i] != want[i];
      if (differ && got[i] != CLEAR && want[i] != CLEAR) {
         differ = false;
         for (int s = 0; s < 32; s += 8) {
            int d = (int)(got[i] >> s & 255) - (int)(want[i] >> s & 255);
            differ |= d > 1 || d < -1;
         }
      }
      if (differ && bad++ < 4)
         fprintf(stderr, "%s: %s: pixel (%d, %d): %08x, expected %08x\n", what, name, i % W,
                 i / W, got[i], want[i]);
   }
   return bad;
}

/* The isolines' checks: lit pixels only on rows 8, 20, 32, 44 between
 * columns 8 and 56, every one of columns 10 .. 53 lit there, each within
 * 1/255 of (u, v, 0.7) at its centre. */
static unsigned
check_lines(const char *dn, const struct tcase *c, const uint32_t *img)
{
   unsigned bad = 0;
   for (int i = 0; i < W * H; i++) {
      const int x = i % W, y = i / W;
      const bool row = (y - 8) % 12 == 0 && y >= 8 && y <= 44;
      const bool must = row && x >= 10 && x <= 53, may = row && x >= 8 && x <= 56;
      bool wrong = (img[i] == CLEAR) ? must : !may;
      if (!wrong && img[i] != CLEAR) {
         const uint32_t want = pack((x + 0.5f - 8.25f) / 48.0f, (y - 8) / 48.0f, 0.7f);
         for (int s = 0; s < 32; s += 8) {
            int d = (int)(img[i] >> s & 255) - (int)(want >> s & 255);
            wrong |= d > 1 || d < -1;
         }
      }
      if (wrong && bad++ < 4)
         fprintf(stderr, "%s: %s: pixel (%d, %d): %08x\n", dn, c->name, x, y, img[i]);
   }
   return bad;
}

/* The limits (lim.vert, lim.tesc, lim.tese): one patch of 32 control
 * points (maxTessellationPatchSize) whose control shader reads every
 * component of every input vertex (12 vec4 and the position) and writes
 * 8 vec4 a vertex and 4 patch vec4 (variant 0) or 12 patch vec4 and no
 * per-vertex user output (variant 1): about as many Locations as the
 * validation layer lets through at 64 per-vertex components (it counts
 * patch Locations and the built-ins against that limit too),
 * which the evaluation shader reads back at every point: green where
 * every component was as written, red otherwise, over the patch's
 * rectangle (8.25, 8.25) - (56.25, 56.25). The same drawing checks
 * init.tesc.spvasm's initialized outputs (a patch of 4: init.tese, green
 * where they read back as initialized and written). Returns the number of
 * wrong pixels, or -1 when something failed. */
static int
run_green(struct ctx *x, const char *what, VkShaderModule vs, VkShaderModule tcs,
          VkShaderModule tes, uint32_t points)
{
   struct vkt *t = &x->t;
   const char *dn = vkt_driver_name(t->driver);
   struct draw_target dt = {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H,
                            .clear_color = {.float32 = {0x10 / 255.0f, 0x20 / 255.0f,
                                                        0x40 / 255.0f, 1.0f}}};
   VkResult r = draw_target_create(t, &dt);
   if (r != VK_SUCCESS)
      return -1;
   struct draw_pipeline_info pi = {
      .stride = 16, .attrib_count = 1, .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT},
      .topology = VK_PRIMITIVE_TOPOLOGY_PATCH_LIST, .cull_mode = VK_CULL_MODE_NONE,
      .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE, .polygon_mode = VK_POLYGON_MODE_FILL,
   };
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, &dt, &pi, vs, x->fs, x->layout);
   VkPipelineShaderStageCreateInfo stages[4] = {st.stages[0], st.stages[1]};
   stages[2] = (VkPipelineShaderStageCreateInfo){
      .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
      .stage = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, .module = tcs,
      .pName = "main"};
   stages[3] = (VkPipelineShaderStageCreateInfo){
      .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
      .stage = VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, .module = tes,
      .pName = "main"};
   st.info.stageCount = 4;
   st.info.pStages = stages;
   const VkPipelineTessellationStateCreateInfo ts = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
      .patchControlPoints = points,
   };
   st.info.pTessellationState = &ts;
   struct draw_pipeline p = {.layout = x->layout};
   r = vkCreateGraphicsPipelines(t->device, x->cache, 1, &st.info, NULL, &p.pipeline);
   CHECK(r == VK_SUCCESS, "%s: %s: pipeline: %d", dn, what, r);
   float pos[32][4];
   const float px[4] = {8.25f, 56.25f, 56.25f, 8.25f}, py[4] = {8.25f, 8.25f, 56.25f, 56.25f};
   for (int v = 0; v < 32; v++) {
      pos[v][0] = ndc(px[v & 3]), pos[v][1] = ndc(py[v & 3]);
      pos[v][2] = 0.5f, pos[v][3] = 1.0f;
   }
   struct vkt_buffer vb = {0};
   if (r == VK_SUCCESS)
      r = draw_upload(t, pos, sizeof(pos), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   int bad = -1;
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = draw_begin(t, &dt, &p, vb.buffer);
      vkCmdDraw(cb, points, 1, 0, 0);
      r = draw_end(t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: drawn: %d", dn, what, r);
   }
   if (r == VK_SUCCESS) {
      const uint32_t *img = dt.readback.map;
      bad = 0;
      for (int i = 0; i < W * H; i++) {
         const int x0 = i % W, y0 = i / W;
         const bool in = x0 >= 8 && x0 <= 55 && y0 >= 8 && y0 <= 55;
         const uint32_t want = in ? 0xff00ff00u : CLEAR;
         if (img[i] != want && bad++ < 4)
            fprintf(stderr, "%s: %s: pixel (%d, %d): %08x, expected %08x\n", dn, what,
                    x0, y0, img[i], want);
      }
   }
   if (vb.buffer)
      vkt_buffer_destroy(t, &vb);
   vkDestroyPipeline(t->device, p.pipeline, NULL);
   draw_target_destroy(t, &dt);
   return bad;
}

static uint32_t images[4][MAX_CASES][W * H];

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
   CHECK(core.tessellationShader && core.geometryShader &&
            core.shaderTessellationAndGeometryPointSize,
         "%s: tessellationShader, geometryShader or shaderTessellationAndGeometryPointSize not "
         "offered", dn);
   if (!core.tessellationShader || !core.geometryShader ||
       !core.shaderTessellationAndGeometryPointSize)
      return false;
   VkPhysicalDeviceFeatures feats = {.tessellationShader = VK_TRUE, .geometryShader = VK_TRUE,
                                     .shaderTessellationAndGeometryPointSize = VK_TRUE};
   o.features = &feats;
   o.api_version = VK_API_VERSION_1_1;
   struct ctx x;
   memset(&x, 0, sizeof(x));
   if (!vkt_init(&x.t, &o)) {
      CHECK(false, "%s: device with tessellationShader", dn);
      return false;
   }
   const VkPhysicalDeviceLimits *lim = &x.t.props.limits;
   CHECK(lim->maxTessellationGenerationLevel >= 64 && lim->maxTessellationPatchSize >= 32 &&
            lim->maxTessellationControlPerVertexInputComponents >= 64 &&
            lim->maxTessellationControlPerVertexOutputComponents >= 64 &&
            lim->maxTessellationControlPerPatchOutputComponents >= 120 &&
            lim->maxTessellationControlTotalOutputComponents >= 2048 &&
            lim->maxTessellationEvaluationInputComponents >= 64 &&
            lim->maxTessellationEvaluationOutputComponents >= 64,
         "%s: tessellation limits %u %u %u %u %u %u %u %u", dn,
         lim->maxTessellationGenerationLevel, lim->maxTessellationPatchSize,
         lim->maxTessellationControlPerVertexInputComponents,
         lim->maxTessellationControlPerVertexOutputComponents,
         lim->maxTessellationControlPerPatchOutputComponents,
         lim->maxTessellationControlTotalOutputComponents,
         lim->maxTessellationEvaluationInputComponents,
         lim->maxTessellationEvaluationOutputComponents);
   VkResult r = vkt_shader_module(&x.t, tess_vert_spv, sizeof(tess_vert_spv), &x.vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tess_tesc_spv, sizeof(tess_tesc_spv), &x.tcs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tess_frag_spv, sizeof(tess_frag_spv), &x.fs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tess_primid_frag_spv, sizeof(tess_primid_frag_spv),
                            &x.fs_primid);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tess_pass_geom_spv, sizeof(tess_pass_geom_spv), &x.gs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tess_primid_geom_spv, sizeof(tess_primid_geom_spv),
                            &x.gs_primid);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tess_points_geom_spv, sizeof(tess_points_geom_spv),
                            &x.gs_points);
   for (unsigned k = 0; r == VK_SUCCESS && k < T_COUNT; k++)
      r = vkt_shader_module(&x.t, teses[k].code, teses[k].size, &x.tes[k]);
   static uint32_t moved[2][4096];
   size_t moved_size[2] = {
      move_output_vertices(tess_tesc_spv, sizeof(tess_tesc_spv), true, moved[0]),
      move_output_vertices(tese_quad_eq_ccw_spv, sizeof(tese_quad_eq_ccw_spv), false, moved[1]),
   };
   CHECK(sizeof(tess_tesc_spv) + 16 <= sizeof(moved[0]) &&
            sizeof(tese_quad_eq_ccw_spv) + 16 <= sizeof(moved[1]) &&
            moved_size[0] == sizeof(tess_tesc_spv) - 16 &&
            moved_size[1] == sizeof(tese_quad_eq_ccw_spv) + 16,
         "%s: OutputVertices moved: %zu, %zu bytes", dn, moved_size[0], moved_size[1]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, init_vert_spv, sizeof(init_vert_spv), &x.init_vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, init_tesc_spv, sizeof(init_tesc_spv), &x.init_tcs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, init_tese_spv, sizeof(init_tese_spv), &x.init_tes);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, moved[0], moved_size[0], &x.tcs_no_ov);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, moved[1], moved_size[1], &x.tes_ov);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, lim_vert_spv, sizeof(lim_vert_spv), &x.lim_vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tesc_lim_spv, sizeof(tesc_lim_spv), &x.lim_tcs[0]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tesc_lim_pm_spv, sizeof(tesc_lim_pm_spv), &x.lim_tcs[1]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tese_lim_spv, sizeof(tese_lim_spv), &x.lim_tes[0]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&x.t, tese_lim_pm_spv, sizeof(tese_lim_pm_spv), &x.lim_tes[1]);
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&x.t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &x.layout);
   if (r == VK_SUCCESS) {
      const bool reuse = d == VKT_SHALE && cache_data;
      const VkPipelineCacheCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
         .initialDataSize = reuse ? cache_size : 0, .pInitialData = reuse ? cache_data : NULL,
      };
      r = vkCreatePipelineCache(x.t.device, &ci, NULL, &x.cache);
   }
   CHECK(r == VK_SUCCESS, "%s: shader modules, layout and pipeline cache: %d", dn, r);
   for (uint32_t i = 0; r == VK_SUCCESS && i < ncases; i++) {
      const struct tcase *c = &cases[i];
      /* Mesa 22.3's lavapipe crashes (SIGSEGV in a thread of its own)
       * drawing with OutputVertices in the evaluation shader only. */
      if (d == VKT_LAVAPIPE && c->ov_where == 1)
         continue;
      if (!run_case(&x, c, img[i]))
         continue;
      if (c->primid) {
         /* Each fragment's PrimitiveId (red, green; blue the patch's).
          * Without a geometry shader, every fragment of patch p reads p
          * (lavapipe's value too; see sr_tess.h on the spec's wording);
          * a geometry shader's PrimitiveIdIn counts the generated
          * triangles, 8 a patch here, whose order within the patch is the
          * implementation's: patch p's fragments read each of 8p .. 8p + 7
          * and nothing else. */
         uint32_t ids[2] = {0, 0};
         unsigned bad = 0, lit = 0;
         for (int k = 0; k < W * H; k++) {
            const uint32_t px = img[i][k], id = px & 0xffff;
            if (px == CLEAR)
               continue;
            const unsigned side = (k % W) < 32 ? 0 : 1;
            const uint32_t first = c->gs ? 8 * side : side, n = c->gs ? 8 : 1;
            lit++;
            if (id >= first && id < first + n)
               ids[side] |= 1u << (id - first);
            else if (bad++ < 4)
               fprintf(stderr, "%s: %s: pixel (%d, %d): %08x\n", dn, c->name, k % W, k / W, px);
         }
         const uint32_t all = c->gs ? 0xff : 1;
         CHECK(bad == 0 && lit == 2 * 1352 && ids[0] == all && ids[1] == all,
               "%s (SHALE_THREADS %s): %s: %u of %u fragments with a wrong PrimitiveId, ids seen "
               "%x %x", dn, threads ? threads : "-", c->name, bad, lit, ids[0], ids[1]);
         continue;
      }
      unsigned bad = c->loose ? check_lines(dn, c, img[i]) : compare(dn, c->name, img[i], c->ref);
      CHECK(bad == 0, "%s (SHALE_THREADS %s): %s: %u pixels differ from the reference", dn,
            threads ? threads : "-", c->name, bad);
   }
   /* The limits once a driver (their shaders' compiles are the slow part). */
   for (int v = 0; r == VK_SUCCESS && v < 2 && (!threads || !strcmp(threads, "1")); v++) {
      int bad = run_green(&x, v ? "limits 1" : "limits 0", x.lim_vs, x.lim_tcs[v], x.lim_tes[v],
                          32);
      CHECK(bad == 0, "%s (SHALE_THREADS %s): limits %d: %d pixels wrong", dn,
            threads ? threads : "-", v, bad);
   }
   /* Initialized control shader outputs: with the scalar baseline code
    * (render/tess) the patch's 4 invocations are 4 subgroups, which meet
    * at the barrier; with vector code (render/tess_vector) one. */
   if (r == VK_SUCCESS) {
      int bad = run_green(&x, "initialized control shader outputs", x.init_vs, x.init_tcs,
                          x.init_tes, 4);
      CHECK(bad == 0, "%s (SHALE_THREADS %s): initialized control shader outputs: %d pixels "
            "wrong", dn, threads ? threads : "-", bad);
   }
   if (r == VK_SUCCESS && d == VKT_SHALE && !cache_data) {
      r = vkGetPipelineCacheData(x.t.device, x.cache, &cache_size, NULL);
      cache_data = r == VK_SUCCESS ? malloc(cache_size) : NULL;
      if (cache_data)
         r = vkGetPipelineCacheData(x.t.device, x.cache, &cache_size, cache_data);
      CHECK(r == VK_SUCCESS && cache_data && cache_size > 1024, "%s: pipeline cache data: %d, %zu bytes",
            dn, r, cache_size);
   }
   vkDestroyPipelineCache(x.t.device, x.cache, NULL);
   vkDestroyPipelineLayout(x.t.device, x.layout, NULL);
   VkShaderModule all[12] = {x.vs, x.tcs, x.fs, x.fs_primid, x.gs, x.gs_primid, x.gs_points,
                             x.lim_vs, x.lim_tcs[0], x.lim_tcs[1], x.lim_tes[0], x.lim_tes[1]};
   for (int k = 0; k < 12; k++)
      vkDestroyShaderModule(x.t.device, all[k], NULL);
   for (unsigned k = 0; k < T_COUNT; k++)
      vkDestroyShaderModule(x.t.device, x.tes[k], NULL);
   vkDestroyShaderModule(x.t.device, x.tcs_no_ov, NULL);
   vkDestroyShaderModule(x.t.device, x.init_vs, NULL);
   vkDestroyShaderModule(x.t.device, x.init_tcs, NULL);
   vkDestroyShaderModule(x.t.device, x.init_tes, NULL);
   vkDestroyShaderModule(x.t.device, x.tes_ov, NULL);
   vkt_finish(&x.t);
   return true;
}

int
main(void)
{
   build_cases();
   static const char *const threads[3] = {"1", "2", "4"};
   bool shale = true;
   for (int k = 0; k < 3 && shale; k++) {
      shale = run_driver(VKT_SHALE, threads[k], images[k]);
      if (shale && k)
         for (uint32_t i = 0; i < ncases; i++)
            CHECK(!memcmp(images[k][i], images[0][i], W * H * 4),
                  "shale: %s: SHALE_THREADS %s differs from SHALE_THREADS 1", cases[i].name,
                  threads[k]);
   }
   unsetenv("SHALE_THREADS");
   free(cache_data);
   if (run_driver(VKT_LAVAPIPE, NULL, images[3]) && shale) {
      for (uint32_t i = 0; i < ncases; i++) {
         /* PrimitiveId exactly (a tolerance would hide 0 against 1). */
         unsigned bad = 0;
         if (cases[i].primid && cases[i].gs) {
            continue;   /* the order within a patch is the implementation's (above) */
         } else if (cases[i].ov_where == 1) {
            continue;   /* not drawn on lavapipe (above) */
         } else if (cases[i].primid) {
            for (int k = 0; k < W * H; k++)
               if (images[0][i][k] != images[3][i][k] && bad++ < 4)
                  fprintf(stderr, "%s: pixel (%d, %d): Shale %08x, lavapipe %08x\n",
                          cases[i].name, k % W, k / W, images[0][i][k], images[3][i][k]);
         } else {
            bad = compare("shale vs lavapipe", cases[i].name, images[0][i], images[3][i]);
         }
         CHECK(bad == 0, "%s: %u pixels differ between Shale and lavapipe", cases[i].name, bad);
      }
   }
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
