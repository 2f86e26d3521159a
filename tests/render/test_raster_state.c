/* Rasterization state and draws through the loader, vs CPU references and lavapipe. */
/*
 * What is held here (each scene is drawn by Shale and by lavapipe through
 * the loader with the validation layer; "exact" means every byte of the
 * image equals lavapipe's, which follows the same spec rules as the CPU
 * reference of render/draw; "edges" means a pixel only one image covers
 * must have a covered neighbour in the other, and at most one pixel in 8
 * of those either image covers may differ (coverage, or which line is on
 * top where lines cross): Vulkan's non-strict lines and points leave this
 * freedom):
 *  - every Vulkan 1.0 topology (point/line/triangle lists and strips,
 *    triangle fans), flat colours from the provoking vertex;
 *  - primitive restart with 16- and 32-bit indices (strips and fans);
 *    indexed draws with firstIndex and vertexOffset, instancing with
 *    firstInstance and a per-instance attribute; vkCmdDrawIndirect and
 *    vkCmdDrawIndexedIndirect with drawCount 3 and strides 20 / 28
 *    (multiDrawIndirect, drawIndirectFirstInstance), also equal to the same
 *    draws made directly on Shale; index values near 2^32
 *    (fullDrawIndexUint32) with a vertexOffset;
 *  - cull modes x front faces (exact; culling front faces with CCW front
 *    equals culling back faces with CW front), polygon modes LINE and
 *    POINT (fillModeNonSolid, edges; one colour a triangle), also set by
 *    vkCmdSetPolygonModeEXT on FILL pipelines (VK_EXT_extended_dynamic_state3:
 *    exactly the static mode's pixels on Shale, edges against lavapipe's); line widths
 *    2.375 and 5, static and dynamic (wideLines, edges), and 64: against
 *    the spec's non-strict parallelogram (a pixel of slack on its
 *    boundary; lavapipe draws wide lines as rectangles: printed only);
 *    point sizes 2.375, 5 and 64 (largePoints, edges; all three equal
 *    lavapipe's in practice); Vulkan's default non-strict lines with width
 *    1 (strictLines VK_FALSE, edges);
 *  - depth clamp (depthClamp): geometry beyond the near and far planes
 *    drawn unclipped, depths clamped to the viewport's [0.2, 0.8] (checked
 *    on the CPU), colour exact and depth within 1e-5 of lavapipe (interpolation order);
 *  - depth bias with clamp (depthBiasClamp), static and dynamic, on D16:
 *    within one unit of lavapipe's depth, and the bias (vs the same draw
 *    unbiased) never beyond the clamp;
 *  - depth bounds (depthBounds), static and dynamic: colour written exactly
 *    where the stored depth lies in the bounds (CPU reference from the
 *    read-back depth);
 *  - stencil: every compare op and every stencil op, as fail, pass and
 *    depth-fail ops, front and back faces with their own state, dynamic
 *    reference, compare and write masks and one static set, on D24S8: the
 *    stencil and colour equal a CPU reference of the spec's rules;
 *  - clip distances (8, maxClipDistances) and 4 clip + 4 cull distances
 *    (shaderClipDistance, shaderCullDistance): edges;
 *  - viewports (fractional offsets) and scissors, static and dynamic, a
 *    negative-height viewport (VK_KHR_maintenance1), 8192x4 and 4x8192
 *    targets (maxFramebufferWidth/Height, maxViewportDimensions 8192) with
 *    vertices beyond the viewport: Shale equal to a CPU reference of the
 *    spec's rules (8 sub-pixel bits, top-left rule, no change from
 *    clipping inside the viewport), static equal to dynamic; lavapipe
 *    equal where it agrees with the reference (it departs on a few edge
 *    pixels: its clipping rounds the clipped vertices; printed);
 *  - the limits and features reported are the ones tested here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "rs_clip_vert_spv.h"
#include "rs_cull_vert_spv.h"
#include "rs_vert_spv.h"
#include "rs_vid_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct vertex {
   float pos[4];
   float color[4];
};

static uint64_t rng = 0x243f6a8885a308d3ull;
/* A value on a 1/64 grid of NDC in [-lim, lim]. */
static float
rand_ndc(float lim)
{
   int n = (int)(lim * 64);
   return (float)((int)(draw_rand_u32(&rng) % (uint32_t)(2 * n + 1)) - n) / 64.0f;
}

static void
random_vertices(struct vertex *v, uint32_t n, float lim)
{
   for (uint32_t i = 0; i < n; i++) {
      v[i] = (struct vertex) {
         { rand_ndc(lim), rand_ndc(lim), 0.5f, 1.0f },
         { (float)(draw_rand_u32(&rng) % 255 + 1) / 255.0f,
           (float)(draw_rand_u32(&rng) % 256) / 255.0f,
           (float)(draw_rand_u32(&rng) % 256) / 255.0f, 1.0f },
      };
   }
}

/* ---- one driver, the features both drivers offer ---- */

static struct vkt drivers[2];
static bool have[2];
static VkPhysicalDeviceFeatures enabled[2];
/* VK_EXT_extended_dynamic_state3's extendedDynamicState3PolygonMode, enabled. */
static bool dyn_mode[2];

static bool
driver_init(enum vkt_driver d)
{
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = d }))
      return false;
   VkPhysicalDeviceFeatures f;
   vkGetPhysicalDeviceFeatures(t.pdev, &f);
   vkt_finish(&t);
   VkPhysicalDeviceFeatures want = {
      .fillModeNonSolid = f.fillModeNonSolid,
      .wideLines = f.wideLines,
      .largePoints = f.largePoints,
      .depthClamp = f.depthClamp,
      .depthBiasClamp = f.depthBiasClamp,
      .depthBounds = f.depthBounds,
      .multiDrawIndirect = f.multiDrawIndirect,
      .drawIndirectFirstInstance = f.drawIndirectFirstInstance,
      .fullDrawIndexUint32 = f.fullDrawIndexUint32,
      .shaderClipDistance = f.shaderClipDistance,
      .shaderCullDistance = f.shaderCullDistance,
   };
   enabled[d] = want;
   VkPhysicalDeviceExtendedDynamicState3FeaturesEXT e3 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT };
   struct vkt_options po;
   bool has_e3 = false;
   if (!draw_probe_extension(d, &po, VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME, &e3, NULL,
                             NULL, &has_e3))
      return false;
   dyn_mode[d] = has_e3 && e3.extendedDynamicState3PolygonMode && f.fillModeNonSolid;
   static VkPhysicalDeviceExtendedDynamicState3FeaturesEXT e3_on[2];
   e3_on[d] = (VkPhysicalDeviceExtendedDynamicState3FeaturesEXT) {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT,
      .extendedDynamicState3PolygonMode = VK_TRUE,
   };
   /* Negative viewport heights: VK_KHR_maintenance1 (Vulkan 1.0 devices). */
   static const char *const ext[] = { "VK_KHR_maintenance1",
                                      VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME };
   have[d] = vkt_init(&drivers[d], &(struct vkt_options) {
      .driver = d, .features = &want, .device_extensions = ext,
      .device_extension_count = dyn_mode[d] ? 2 : 1,
      .instance_extensions = po.instance_extensions,
      .instance_extension_count = po.instance_extension_count,
      .device_pnext = dyn_mode[d] ? &e3_on[d] : NULL });
   return have[d];
}

/* ---- a scene: a target, pipelines and buffers, one command buffer ---- */

struct ctx {
   struct vkt *t;
   enum vkt_driver drv;
   struct draw_target dt;
   struct draw_pipeline pipes[16];
   uint32_t npipes;
   struct vkt_buffer bufs[8];
   uint32_t nbufs;
   VkBuffer zero_instance;
   bool failed;
};

static const struct draw_pipeline *
ctx_pipeline(struct ctx *c, struct draw_pipeline_info *pi)
{
   static const VkVertexInputBindingDescription bindings[2] = {
      { 0, sizeof(struct vertex), VK_VERTEX_INPUT_RATE_VERTEX },
      { 1, 16, VK_VERTEX_INPUT_RATE_INSTANCE },
   };
   static const VkVertexInputAttributeDescription attribs[3] = {
      { 0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
      { 1, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16 },
      { 2, 1, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
   };
   static const VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
      .vertexBindingDescriptionCount = 2,
      .pVertexBindingDescriptions = bindings,
      .vertexAttributeDescriptionCount = 3,
      .pVertexAttributeDescriptions = attribs,
   };
   static const VkPipelineVertexInputStateCreateInfo vi_none = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
   };
   static const VkPipelineVertexInputStateCreateInfo vi_two = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
      .vertexBindingDescriptionCount = 1,
      .pVertexBindingDescriptions = bindings,
      .vertexAttributeDescriptionCount = 2,
      .pVertexAttributeDescriptions = attribs,
   };
   if (!pi->vs) {
      pi->vs = rs_vert_spv;
      pi->vs_size = sizeof(rs_vert_spv);
   }
   if (!pi->vertex_input)
      pi->vertex_input = pi->vs == rs_vert_spv ? &vi : pi->vs == rs_vid_vert_spv ? &vi_none : &vi_two;
   if (!pi->fs) {
      pi->fs = flat_color_frag_spv;
      pi->fs_size = sizeof(flat_color_frag_spv);
   }
   if (!pi->push_size)
      pi->push_size = 8;
   pi->dynamic_viewport_scissor = !pi->viewport;
   struct draw_pipeline *p = &c->pipes[c->npipes++];
   VkResult r = draw_pipeline_create(c->t, &c->dt, pi, p);
   CHECK(r == VK_SUCCESS, "%s: pipeline created (%d)", vkt_driver_name(c->drv), r);
   if (r != VK_SUCCESS)
      c->failed = true;
   return p;
}

static VkBuffer
ctx_buffer(struct ctx *c, const void *data, size_t size, VkBufferUsageFlags usage)
{
   struct vkt_buffer *b = &c->bufs[c->nbufs++];
   if (draw_upload(c->t, data, size, usage, b) != VK_SUCCESS) {
      c->failed = true;
      return VK_NULL_HANDLE;
   }
   return b->buffer;
}

static void
bind(struct ctx *c, VkCommandBuffer cb, const struct draw_pipeline *p, VkBuffer vertices)
{
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
   if (vertices) {
      VkBuffer bufs[2] = { vertices, c->zero_instance };
      VkDeviceSize offs[2] = { 0, 0 };
      vkCmdBindVertexBuffers(cb, 0, 2, bufs, offs);
   }
}

static void
push(struct ctx *c, VkCommandBuffer cb, const struct draw_pipeline *p, float point_size, float dx)
{
   (void)c;
   float v[2] = { point_size, dx };
   vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                      8, v);
}

struct image {
   uint32_t w, h;
   uint32_t *color;
   uint8_t *depth;     /* depth_texel bytes a pixel */
   uint8_t *stencil;
   uint32_t depth_texel;
};

struct scene {
   const char *name;
   uint32_t w, h;
   VkFormat depth;
   void (*setup)(struct ctx *c, const void *arg);
   void (*record)(struct ctx *c, VkCommandBuffer cb, const void *arg);
   const void *arg;
};

static void
image_free(struct image *im)
{
   free(im->color);
   free(im->depth);
   free(im->stencil);
   memset(im, 0, sizeof(*im));
}

/* Draws the scene on one driver; false when it could not. */
static bool
run(enum vkt_driver drv, const struct scene *s, struct image *out)
{
   memset(out, 0, sizeof(*out));
   if (!have[drv])
      return false;
   struct ctx c = { .t = &drivers[drv], .drv = drv };
   c.dt = (struct draw_target) {
      .color_format = VK_FORMAT_R8G8B8A8_UNORM,
      .depth_format = s->depth,
      .width = s->w, .height = s->h,
      .clear_depth = 1.0f,
   };
   if (draw_target_create(c.t, &c.dt) != VK_SUCCESS) {
      CHECK(false, "%s: %s: target created", s->name, vkt_driver_name(drv));
      draw_target_destroy(c.t, &c.dt);
      return false;
   }
   static const float zero[16 * 64];
   c.zero_instance = ctx_buffer(&c, zero, sizeof(zero), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
   s->setup(&c, s->arg);
   bool ok = !c.failed;
   if (ok) {
      VkCommandBuffer cb = draw_begin(c.t, &c.dt, NULL, VK_NULL_HANDLE);
      VkViewport viewport = { 0, 0, (float)s->w, (float)s->h, 0, 1 };
      VkRect2D scissor = { { 0, 0 }, { s->w, s->h } };
      vkCmdSetViewport(cb, 0, 1, &viewport);
      vkCmdSetScissor(cb, 0, 1, &scissor);
      s->record(&c, cb, s->arg);
      ok = draw_end(c.t, &c.dt, cb) == VK_SUCCESS;
      CHECK(ok, "%s: %s: drawn", s->name, vkt_driver_name(drv));
   }
   if (ok) {
      size_t px = (size_t)s->w * s->h;
      const uint8_t *rb = c.dt.readback.map;
      out->w = s->w;
      out->h = s->h;
      out->color = malloc(px * 4);
      memcpy(out->color, rb, px * 4);
      rb += px * 4;
      if (s->depth) {
         out->depth_texel = c.dt.depth_texel;
         out->depth = malloc(px * c.dt.depth_texel);
         memcpy(out->depth, rb, px * c.dt.depth_texel);
         rb += px * c.dt.depth_texel;
         if (draw_has_stencil(s->depth)) {
            out->stencil = malloc(px);
            memcpy(out->stencil, rb, px);
         }
      }
   }
   for (uint32_t i = 0; i < c.npipes; i++)
      draw_pipeline_destroy(c.t, &c.pipes[i]);
   for (uint32_t i = 0; i < c.nbufs; i++)
      vkt_buffer_destroy(c.t, &c.bufs[i]);
   draw_target_destroy(c.t, &c.dt);
   return ok;
}

/* ---- comparisons ---- */

static unsigned
covered(const struct image *a)
{
   unsigned n = 0;
   for (size_t i = 0; i < (size_t)a->w * a->h; i++)
      n += a->color[i] != 0;
   return n;
}

static unsigned
compare_exact(const char *what, const struct image *a, const struct image *b)
{
   unsigned bad = 0;
   for (uint32_t y = 0; y < a->h; y++)
      for (uint32_t x = 0; x < a->w; x++) {
         uint32_t g = a->color[y * a->w + x], w = b->color[y * a->w + x];
         if (g != w && bad++ < 6)
            fprintf(stderr, "%s: pixel (%u, %u): 0x%08x, other 0x%08x\n", what, x, y, g, w);
      }
   return bad;
}

static bool
near_covered(const struct image *a, uint32_t x, uint32_t y, bool want)
{
   for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
         int64_t xx = (int64_t)x + dx, yy = (int64_t)y + dy;
         if (xx >= 0 && yy >= 0 && xx < a->w && yy < a->h &&
             (a->color[yy * a->w + xx] != 0) == want)
            return true;
      }
   return false;
}

/* Coverage may differ only next to a pixel the image lacking it covers
 * (a line or point edge one pixel off); differing pixels (coverage or, where lines cross, which
 * primitive's colour is on top) at most one in 8 of those covered. */
static bool
compare_edges(const char *what, const struct image *a, const struct image *b)
{
   unsigned diff = 0, far = 0;
   for (uint32_t y = 0; y < a->h; y++)
      for (uint32_t x = 0; x < a->w; x++) {
         uint32_t g = a->color[y * a->w + x], w = b->color[y * a->w + x];
         if (g == w)
            continue;
         diff++;
         /* A pixel one image lacks: that image covers one next to it. */
         if ((g != 0) != (w != 0) && !near_covered(g ? b : a, x, y, true)) {
            if (far++ < 6)
               fprintf(stderr, "%s: pixel (%u, %u): 0x%08x, lavapipe 0x%08x, not an edge\n",
                       what, x, y, g, w);
         }
      }
   unsigned cov = covered(a) > covered(b) ? covered(a) : covered(b);
   printf("%s: %u pixels covered, %u differ from lavapipe\n", what, cov, diff);
   CHECK(far == 0, "%s: %u differences off edges", what, far);
   CHECK(diff * 8 <= cov, "%s: %u of %u pixels differ", what, diff, cov);
   return far == 0 && diff * 8 <= cov;
}

enum cmp { EXACT, EDGES };

/* Draws s on both drivers and compares; returns Shale's image (to free). */
static struct image
both(const struct scene *s, enum cmp how)
{
   struct image a, b;
   if (!run(VKT_SHALE, s, &a)) {
      CHECK(false, "%s: Shale drew", s->name);
      return a;
   }
   CHECK(covered(&a) > 0, "%s: something drawn", s->name);
   if (run(VKT_LAVAPIPE, s, &b)) {
      if (how == EXACT)
         CHECK(compare_exact(s->name, &a, &b) == 0, "%s: equal to lavapipe", s->name);
      else
         compare_edges(s->name, &a, &b);
      image_free(&b);
   }
   return a;
}

/* ---- CPU references from the spec's rules ---- */

#define W 150
#define H 100

/* A window coordinate in 1/256 pixels: the viewport transform, then
 * subPixelPrecisionBits 8 (round to nearest). */
static int64_t
snapv(float ndc, float offset, float size)
{
   return llround((((double)ndc + 1.0) * 0.5 * size + offset) * 256.0);
}

/* Whether pixel (px, py)'s centre is covered by triangle t: inside every
 * edge, or on a top or left edge (framebuffer y points down). Clipping
 * changes nothing inside the viewport (a guard band as large as the
 * coordinates used), so t is taken unclipped. */
static bool
covers(const struct vertex *t, const VkViewport *vp, int px, int py)
{
   int64_t x[3], y[3];
   for (int k = 0; k < 3; k++) {
      x[k] = snapv(t[k].pos[0], vp->x, vp->width);
      y[k] = snapv(t[k].pos[1], vp->y, vp->height);
   }
   int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
   if (area == 0)
      return false;
   int64_t sx = (int64_t)px * 256 + 128, sy = (int64_t)py * 256 + 128;
   for (int k = 0; k < 3; k++) {
      int a = k, b = (k + 1) % 3;
      if (area < 0) {
         a = (k + 1) % 3;
         b = k;
      }
      int64_t dx = x[b] - x[a], dy = y[b] - y[a];
      int64_t e = dx * (sy - y[a]) - dy * (sx - x[a]);
      bool top_left = (dy == 0 && dx > 0) || dy < 0;
      if (e < 0 || (e == 0 && !top_left))
         return false;
   }
   return true;
}

/* Flat triangles, later over earlier, within the viewport and scissor. */
static void
reference_triangles(const struct vertex *v, uint32_t n, const VkViewport *vp,
                    const VkRect2D *sc, struct image *out)
{
   double vx0 = fmin(vp->x, vp->x + vp->width), vx1 = fmax(vp->x, vp->x + vp->width);
   double vy0 = fmin(vp->y, vp->y + vp->height), vy1 = fmax(vp->y, vp->y + vp->height);
   for (uint32_t py = 0; py < out->h; py++)
      for (uint32_t px = 0; px < out->w; px++) {
         uint32_t c = 0;
         double cx = px + 0.5, cy = py + 0.5;
         bool in = cx > vx0 && cx < vx1 && cy > vy0 && cy < vy1 &&
                   (int64_t)px >= sc->offset.x && (int64_t)px < (int64_t)sc->offset.x + sc->extent.width &&
                   (int64_t)py >= sc->offset.y && (int64_t)py < (int64_t)sc->offset.y + sc->extent.height;
         for (uint32_t i = 0; in && i + 2 < n; i += 3)
            if (covers(&v[i], vp, (int)px, (int)py))
               c = draw_pack_rgba8(v[i].color);
         out->color[py * out->w + px] = c;
      }
}

/* A non-strict wide line (Vulkan's default): the parallelogram between
 * the endpoints' perpendiculars to the major axis, w wide along the minor
 * axis. 1 inside, 0 outside, -1 within a pixel of its boundary (either). */
static int
wide_line_covers(const struct vertex *v, float w, int px, int py)
{
   double x0 = (v[0].pos[0] + 1.0) * 0.5 * W, y0 = (v[0].pos[1] + 1.0) * 0.5 * H;
   double x1 = (v[1].pos[0] + 1.0) * 0.5 * W, y1 = (v[1].pos[1] + 1.0) * 0.5 * H;
   double cx = px + 0.5, cy = py + 0.5;
   if (fabs(x1 - x0) < fabs(y1 - y0)) {   /* y-major: swap the axes */
      double t;
      t = x0, x0 = y0, y0 = t;
      t = x1, x1 = y1, y1 = t;
      t = cx, cx = cy, cy = t;
   }
   double along = fmin(cx - fmin(x0, x1), fmax(x0, x1) - cx);
   double yl = y0 + (cx - x0) * (y1 - y0) / (x1 - x0);
   double d = fmin(along, w * 0.5 - fabs(cy - yl));
   return d > 1.0 ? 1 : d < -1.0 ? 0 : -1;
}

/* ---- scenes ---- */

struct prim_arg {
   VkPrimitiveTopology topo;
   VkPolygonMode mode;
   VkCullModeFlags cull;
   VkFrontFace front;
   float line_width;     /* 0: 1.0 */
   bool dynamic_width;
   bool dynamic_mode;    /* FILL in the pipeline, `mode` by vkCmdSetPolygonModeEXT */
   float point_size;     /* 0: 1.0 */
   const void *vs;       /* NULL: rs.vert */
   size_t vs_size;
   const struct vertex *v;
   uint32_t n;
};

static void
prim_setup(struct ctx *c, const void *arg)
{
   const struct prim_arg *a = arg;
   VkDynamicState dyn[2];
   uint32_t ndyn = 0;
   if (a->dynamic_width)
      dyn[ndyn++] = VK_DYNAMIC_STATE_LINE_WIDTH;
   if (a->dynamic_mode)
      dyn[ndyn++] = VK_DYNAMIC_STATE_POLYGON_MODE_EXT;
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .polygonMode = a->dynamic_mode ? VK_POLYGON_MODE_FILL : a->mode,
      .cullMode = a->cull,
      .frontFace = a->front,
      .lineWidth = a->line_width && !a->dynamic_width ? a->line_width : 1.0f,
   };
   struct draw_pipeline_info pi = {
      .vs = a->vs, .vs_size = a->vs_size,
      .topology = a->topo,
      .rasterization = &rs,
      .dynamic_states = dyn,
      .dynamic_state_count = ndyn,
   };
   ctx_pipeline(c, &pi);
   ctx_buffer(c, a->v, a->n * sizeof(struct vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
}

static void
prim_record(struct ctx *c, VkCommandBuffer cb, const void *arg)
{
   const struct prim_arg *a = arg;
   bind(c, cb, &c->pipes[0], c->bufs[1].buffer);
   if (a->vs == NULL)
      push(c, cb, &c->pipes[0], a->point_size ? a->point_size : 1.0f, 0.0f);
   if (a->dynamic_width)
      vkCmdSetLineWidth(cb, a->line_width);
   if (a->dynamic_mode) {
      PFN_vkCmdSetPolygonModeEXT set =
         (PFN_vkCmdSetPolygonModeEXT)vkGetDeviceProcAddr(c->t->device, "vkCmdSetPolygonModeEXT");
      CHECK(set != NULL, "%s: vkCmdSetPolygonModeEXT", vkt_driver_name(c->drv));
      if (set)
         set(cb, a->mode);
   }
   vkCmdDraw(cb, a->n, 1, 0, 0);
}

static const char *const topo_names[] = {
   "point_list", "line_list", "line_strip", "triangle_list", "triangle_strip", "triangle_fan",
};

static void
test_topologies(void)
{
   static struct vertex v[30];
   random_vertices(v, 30, 0.95f);
   for (int t = 0; t <= VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN; t++) {
      struct prim_arg a = { .topo = (VkPrimitiveTopology)t, .v = v, .n = 30 };
      struct scene s = { topo_names[t], W, H, 0, prim_setup, prim_record, &a };
      struct image im = both(&s, t >= VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST ? EXACT : EDGES);
      image_free(&im);
   }
}

static void
test_cull(void)
{
   static struct vertex v[60];
   random_vertices(v, 60, 1.0f);
   static const VkCullModeFlags culls[] = {
      VK_CULL_MODE_NONE, VK_CULL_MODE_FRONT_BIT, VK_CULL_MODE_BACK_BIT, VK_CULL_MODE_FRONT_AND_BACK,
   };
   unsigned counts[2][4];
   for (int f = 0; f < 2; f++)
      for (int m = 0; m < 4; m++) {
         char name[64];
         snprintf(name, sizeof(name), "cull %d front %d", m, f);
         struct prim_arg a = {
            .topo = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .cull = culls[m],
            .front = (VkFrontFace)f, .v = v, .n = 60,
         };
         struct scene s = { name, W, H, 0, prim_setup, prim_record, &a };
         struct image im;
         if (!run(VKT_SHALE, &s, &im)) {
            CHECK(false, "%s drawn", name);
            continue;
         }
         counts[f][m] = covered(&im);
         struct image b;
         if (run(VKT_LAVAPIPE, &s, &b)) {
            CHECK(compare_exact(name, &im, &b) == 0, "%s: equal to lavapipe", name);
            image_free(&b);
         }
         image_free(&im);
      }
   for (int f = 0; f < 2; f++) {
      CHECK(counts[f][3] == 0, "FRONT_AND_BACK draws nothing");
      CHECK(counts[f][1] > 0 && counts[f][2] > 0 && counts[f][0] >= counts[f][1] &&
               counts[f][0] >= counts[f][2], "front and back culling each keep some");
   }
   /* Culling front faces when CCW is front culls what culling back faces
    * when CW is front does. */
   CHECK(counts[0][1] == counts[1][2] && counts[0][2] == counts[1][1], "cull / front face pairs agree");
}

static void
test_polygon_modes(void)
{
   static struct vertex v[24];
   random_vertices(v, 24, 0.95f);
   /* One colour a triangle: which vertex gives LINE and POINT mode
    * primitives their flat values is not what is tested here. */
   for (int i = 0; i < 24; i++)
      memcpy(v[i].color, v[i - i % 3].color, 16);
   for (int m = VK_POLYGON_MODE_LINE; m <= VK_POLYGON_MODE_POINT; m++) {
      struct prim_arg a = { .topo = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                            .mode = (VkPolygonMode)m, .v = v, .n = 24 };
      struct scene s = { m == VK_POLYGON_MODE_LINE ? "polygon mode LINE" : "polygon mode POINT",
                         W, H, 0, prim_setup, prim_record, &a };
      struct image im = both(&s, EDGES);
      /* VK_EXT_extended_dynamic_state3: the same mode set by command on a
       * FILL pipeline draws the same pixels (Shale) and lavapipe's. */
      CHECK(dyn_mode[VKT_SHALE], "Shale: extendedDynamicState3PolygonMode");
      if (dyn_mode[VKT_SHALE]) {
         struct prim_arg ad = a;
         ad.dynamic_mode = true;
         struct scene sd = { m == VK_POLYGON_MODE_LINE ? "dynamic polygon mode LINE"
                                                       : "dynamic polygon mode POINT",
                             W, H, 0, prim_setup, prim_record, &ad };
         struct image id;
         if (run(VKT_SHALE, &sd, &id)) {
            CHECK(compare_exact(sd.name, &id, &im) == 0, "%s: equal to the static mode's",
                  sd.name);
            image_free(&id);
         } else {
            CHECK(false, "%s: Shale drew", sd.name);
         }
         if (dyn_mode[VKT_LAVAPIPE]) {
            id = both(&sd, EDGES);
            image_free(&id);
         }
      }
      image_free(&im);
   }
}

static void
test_wide(void)
{
   static struct vertex v[12];
   random_vertices(v, 12, 0.8f);
   static const float sizes[] = { 2.375f, 5.0f, 64.0f };
   for (int i = 0; i < 3; i++)
      for (int dyn = 0; dyn < 2; dyn++) {
         char name[64];
         snprintf(name, sizeof(name), "line width %g%s", sizes[i], dyn ? " (dynamic)" : "");
         struct prim_arg a = { .topo = VK_PRIMITIVE_TOPOLOGY_LINE_LIST, .line_width = sizes[i],
                               .dynamic_width = dyn, .v = v, .n = i == 2 ? 2 : 12 };
         struct scene s = { name, W, H, 0, prim_setup, prim_record, &a };
         if (i < 2) {
            struct image im = both(&s, EDGES);
            image_free(&im);
            continue;
         }
         /* 64 pixels wide: lavapipe (Mesa 22.3.6) draws wide lines as
          * rectangles (perpendicular ends), so Shale is checked against the
          * spec's parallelogram, a pixel of slack on its boundary. */
         struct image im, lv;
         if (!run(VKT_SHALE, &s, &im)) {
            CHECK(false, "%s drawn", name);
            continue;
         }
         unsigned bad = 0, inside = 0;
         uint32_t col = draw_pack_rgba8(v[0].color);
         for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
               int want = wide_line_covers(v, sizes[i], x, y);
               uint32_t got = im.color[y * W + x];
               inside += want == 1;
               if (want >= 0 && got != (want ? col : 0u) && bad++ < 6)
                  fprintf(stderr, "%s: pixel (%d, %d): 0x%08x, expected %s\n", name, x, y, got,
                          want ? "covered" : "not covered");
            }
         CHECK(bad == 0 && inside > 1000, "%s: %u pixels off the parallelogram (%u inside)", name,
               bad, inside);
         if (run(VKT_LAVAPIPE, &s, &lv)) {
            printf("%s: %u pixels differ from lavapipe's (not asserted)\n", name,
                   compare_exact(name, &im, &lv));
            image_free(&lv);
         }
         image_free(&im);
      }
   for (int i = 0; i < 3; i++) {
      char name[64];
      snprintf(name, sizeof(name), "point size %g", sizes[i]);
      struct prim_arg a = { .topo = VK_PRIMITIVE_TOPOLOGY_POINT_LIST, .point_size = sizes[i],
                            .v = v, .n = i == 2 ? 2 : 12 };
      struct scene s = { name, W, H, 0, prim_setup, prim_record, &a };
      struct image im = both(&s, EDGES);
      image_free(&im);
   }
}

static void
test_clip_cull(void)
{
   static struct vertex v[18];
   random_vertices(v, 18, 1.2f);
   struct prim_arg a = { .topo = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .vs = rs_clip_vert_spv,
                         .vs_size = sizeof(rs_clip_vert_spv), .v = v, .n = 18 };
   struct scene s = { "8 clip distances", W, H, 0, prim_setup, prim_record, &a };
   struct image im = both(&s, EDGES);
   image_free(&im);
   a.vs = rs_cull_vert_spv;
   a.vs_size = sizeof(rs_cull_vert_spv);
   s.name = "4 clip and 4 cull distances";
   im = both(&s, EDGES);
   image_free(&im);
}

/* Indexed draws: restart, offsets, instancing, indirect, huge index values. */
struct index_arg {
   VkPrimitiveTopology topo;
   VkIndexType type;
   bool restart;
   int kind;            /* 0: restart scene, 1: offsets+instances, 2: indirect, 3: direct twin */
   const struct vertex *v;
   uint32_t n;
};

static const uint32_t restart_indices[] = { 0, 1, 2, 3, ~0u, 4, 5, 6, 7, 8, ~0u, ~0u, 9, 10, 11, 12, 13 };
static const float instance_offsets[4][4] = {
   { 9, 9, 9, 0 }, { 0.0f, 0.0f, 0, 0 }, { -0.25f, 0.125f, 0, 0 }, { 0.25f, -0.375f, 0, 0 },
};

static VkBuffer
index_buffer(struct ctx *c, VkIndexType type, const uint32_t *idx, uint32_t n)
{
   if (type == VK_INDEX_TYPE_UINT32)
      return ctx_buffer(c, idx, n * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
   uint16_t s[64];
   for (uint32_t i = 0; i < n; i++)
      s[i] = (uint16_t)idx[i];
   return ctx_buffer(c, s, n * 2, VK_BUFFER_USAGE_INDEX_BUFFER_BIT);
}

static const VkDrawIndirectCommand indirect_draws[3] = {
   { 6, 2, 0, 0 }, { 9, 1, 6, 2 }, { 3, 3, 15, 1 },
};
static const VkDrawIndexedIndirectCommand indirect_indexed[3] = {
   { 6, 2, 0, 1, 0 }, { 3, 1, 6, -2, 3 }, { 6, 2, 9, 4, 1 },
};
static const uint32_t plain_indices[15] = { 0, 2, 4, 1, 3, 5, 7, 6, 8, 10, 12, 11, 13, 9, 14 };

static void
index_setup(struct ctx *c, const void *arg)
{
   const struct index_arg *a = arg;
   struct draw_pipeline_info pi = { .topology = a->topo, .primitive_restart = a->restart };
   ctx_pipeline(c, &pi);
   ctx_buffer(c, a->v, a->n * sizeof(struct vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT); /* 1 */
   if (a->kind == 0) {
      uint32_t idx[ARRAY_LEN(restart_indices)];
      for (uint32_t i = 0; i < ARRAY_LEN(idx); i++)
         idx[i] = restart_indices[i] == ~0u && a->type == VK_INDEX_TYPE_UINT16 ? 0xffff
                                                                             : restart_indices[i];
      index_buffer(c, a->type, idx, ARRAY_LEN(idx));                            /* 2 */
   } else {
      index_buffer(c, a->type, plain_indices, ARRAY_LEN(plain_indices));        /* 2 */
   }
   ctx_buffer(c, instance_offsets, sizeof(instance_offsets), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT); /* 3 */
   uint8_t ind[128] = { 0 };
   for (int i = 0; i < 3; i++)
      memcpy(ind + 4 + 20 * i, &indirect_draws[i], sizeof(indirect_draws[i]));
   ctx_buffer(c, ind, sizeof(ind), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);        /* 4 */
   memset(ind, 0, sizeof(ind));
   for (int i = 0; i < 3; i++)
      memcpy(ind + 8 + 28 * i, &indirect_indexed[i], sizeof(indirect_indexed[i]));
   ctx_buffer(c, ind, sizeof(ind), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);        /* 5 */
}

static void
index_record(struct ctx *c, VkCommandBuffer cb, const void *arg)
{
   const struct index_arg *a = arg;
   const struct draw_pipeline *p = &c->pipes[0];
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
   VkBuffer bufs[2] = { c->bufs[1].buffer, c->bufs[3].buffer };
   VkDeviceSize offs[2] = { 0, 0 };
   vkCmdBindVertexBuffers(cb, 0, 2, bufs, offs);
   vkCmdBindIndexBuffer(cb, c->bufs[2].buffer, 0, a->type);
   push(c, cb, p, 1.0f, 0.03125f);
   switch (a->kind) {
   case 0:
      vkCmdDrawIndexed(cb, ARRAY_LEN(restart_indices), 1, 0, 0, 1);
      break;
   case 1:
      vkCmdDrawIndexed(cb, 9, 3, 3, 2, 1);
      break;
   case 2:
      vkCmdDrawIndirect(cb, c->bufs[4].buffer, 4, 3, 20);
      vkCmdDrawIndexedIndirect(cb, c->bufs[5].buffer, 8, 3, 28);
      break;
   case 3:
      for (int i = 0; i < 3; i++) {
         const VkDrawIndirectCommand *d = &indirect_draws[i];
         vkCmdDraw(cb, d->vertexCount, d->instanceCount, d->firstVertex, d->firstInstance);
      }
      for (int i = 0; i < 3; i++) {
         const VkDrawIndexedIndirectCommand *d = &indirect_indexed[i];
         vkCmdDrawIndexed(cb, d->indexCount, d->instanceCount, d->firstIndex, d->vertexOffset,
                          d->firstInstance);
      }
      break;
   }
}

static void
test_indexed(void)
{
   static struct vertex v[24];
   random_vertices(v, 24, 0.7f);
   static const VkPrimitiveTopology restart_topos[] = {
      VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
      VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN,
   };
   for (int t = 0; t < 3; t++)
      for (int it = 0; it < 2; it++) {
         char name[64];
         snprintf(name, sizeof(name), "restart %s %d-bit", topo_names[restart_topos[t]],
                  it ? 32 : 16);
         struct index_arg a = { restart_topos[t], it ? VK_INDEX_TYPE_UINT32 : VK_INDEX_TYPE_UINT16,
                                true, 0, v, 24 };
         struct scene s = { name, W, H, 0, index_setup, index_record, &a };
         struct image im = both(&s, t == 0 ? EDGES : EXACT);
         image_free(&im);
      }
   for (int it = 0; it < 2; it++) {
      struct index_arg a = { VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                             it ? VK_INDEX_TYPE_UINT32 : VK_INDEX_TYPE_UINT16, false, 1, v, 24 };
      struct scene s = { it ? "indexed 32-bit, offsets, instances" : "indexed 16-bit, offsets, instances",
                         W, H, 0, index_setup, index_record, &a };
      struct image im = both(&s, EXACT);
      image_free(&im);
   }
   struct index_arg a = { VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_INDEX_TYPE_UINT32, false, 2, v, 24 };
   struct scene s = { "indirect, drawCount 3, strides 20 and 28", W, H, 0, index_setup,
                      index_record, &a };
   struct image ind = both(&s, EXACT);
   struct index_arg d = a;
   d.kind = 3;
   struct scene sd = { "the same draws made directly", W, H, 0, index_setup, index_record, &d };
   struct image direct;
   if (ind.color && run(VKT_SHALE, &sd, &direct)) {
      CHECK(compare_exact("indirect vs direct", &ind, &direct) == 0,
            "indirect draws equal the same direct draws");
      image_free(&direct);
   }
   image_free(&ind);
}

/* Index values near 2^32 with a vertexOffset (fullDrawIndexUint32). */
static void
fullindex_setup(struct ctx *c, const void *arg)
{
   (void)arg;
   struct draw_pipeline_info pi = {
      .vs = rs_vid_vert_spv, .vs_size = sizeof(rs_vid_vert_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
   };
   ctx_pipeline(c, &pi);
   static const uint32_t idx[4] = { 0xfffffff0u, 0xfffffff1u, 0xfffffff2u, 0xfffffff3u };
   index_buffer(c, VK_INDEX_TYPE_UINT32, idx, 4);
}

static void
fullindex_record(struct ctx *c, VkCommandBuffer cb, const void *arg)
{
   (void)arg;
   const struct draw_pipeline *p = &c->pipes[0];
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
   vkCmdBindIndexBuffer(cb, c->bufs[1].buffer, 0, VK_INDEX_TYPE_UINT32);
   uint32_t base[2] = { 0xfffffff5u, 0 };   /* index + vertexOffset 5 */
   vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                      8, base);
   vkCmdDrawIndexed(cb, 4, 1, 0, 5, 0);
}

static void
test_full_index(void)
{
   struct scene s = { "index values near 2^32", W, H, 0, fullindex_setup, fullindex_record, NULL };
   struct image im = both(&s, EXACT);
   if (im.color)
      CHECK(covered(&im) > W * H / 3, "the quad covers most of the target (%u)", covered(&im));
   image_free(&im);
}

/* ---- depth: clamp, bias, bounds ---- */

struct depth_arg {
   int kind;              /* 0 clamp, 1 bias off, 2 bias static, 3 bias dynamic, 4 bounds static, 5 bounds dynamic */
   const struct vertex *v;
   uint32_t n;
};

static const float bias_static[3] = { 40.0f, 0.004f, 1.5f };     /* constant, clamp, slope */
static const float bias_dynamic[3] = { -60.0f, -0.003f, -2.0f };
static const float bounds_static[2] = { 0.3f, 0.6f };
static const float bounds_dynamic[2] = { 0.45f, 0.9f };

static void
depth_setup(struct ctx *c, const void *arg)
{
   const struct depth_arg *a = arg;
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .depthClampEnable = a->kind == 0,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .depthBiasEnable = a->kind == 2 || a->kind == 3,
      .depthBiasConstantFactor = bias_static[0],
      .depthBiasClamp = bias_static[1],
      .depthBiasSlopeFactor = bias_static[2],
      .lineWidth = 1.0f,
   };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = a->kind == 0 ? VK_COMPARE_OP_LESS : VK_COMPARE_OP_ALWAYS,
   };
   VkDynamicState dyn = a->kind == 3 ? VK_DYNAMIC_STATE_DEPTH_BIAS : VK_DYNAMIC_STATE_DEPTH_BOUNDS;
   struct draw_pipeline_info pi = {
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .rasterization = &rs,
      .depth_stencil = &ds,
      .dynamic_states = &dyn,
      .dynamic_state_count = a->kind == 3 || a->kind == 5,
   };
   if (a->kind >= 4) {
      /* The first draw writes depths; the second tests the bounds. */
      pi.dynamic_state_count = 0;
      ctx_pipeline(c, &pi);
      ds.depthTestEnable = VK_FALSE;
      ds.depthWriteEnable = VK_FALSE;
      ds.depthBoundsTestEnable = VK_TRUE;
      ds.minDepthBounds = bounds_static[0];
      ds.maxDepthBounds = bounds_static[1];
      pi.dynamic_state_count = a->kind == 5;
   }
   ctx_pipeline(c, &pi);
   ctx_buffer(c, a->v, a->n * sizeof(struct vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
}

static void
depth_record(struct ctx *c, VkCommandBuffer cb, const void *arg)
{
   const struct depth_arg *a = arg;
   VkBuffer vb = c->bufs[1].buffer;
   if (a->kind == 0) {
      VkViewport vp = { 0, 0, W, H, 0.2f, 0.8f };
      vkCmdSetViewport(cb, 0, 1, &vp);
   }
   bind(c, cb, &c->pipes[0], vb);
   push(c, cb, &c->pipes[0], 1.0f, 0.0f);
   if (a->kind == 3)
      vkCmdSetDepthBias(cb, bias_dynamic[0], bias_dynamic[1], bias_dynamic[2]);
   if (a->kind < 4) {
      vkCmdDraw(cb, a->n, 1, 0, 0);
      return;
   }
   vkCmdDraw(cb, 6, 1, 0, 0);            /* the depth ramp */
   bind(c, cb, &c->pipes[1], vb);
   if (a->kind == 5)
      vkCmdSetDepthBounds(cb, bounds_dynamic[0], bounds_dynamic[1]);
   vkCmdDraw(cb, 6, 1, 6, 0);            /* a full-target quad */
}

static float
depth_at(const struct image *im, size_t i)
{
   if (im->depth_texel == 2)
      return (float)(((const uint16_t *)im->depth)[i] / 65535.0);
   return ((const float *)im->depth)[i];
}

static unsigned
compare_depth(const char *what, const struct image *a, const struct image *b, float tol)
{
   unsigned bad = 0;
   for (size_t i = 0; i < (size_t)a->w * a->h; i++) {
      float x = depth_at(a, i), y = depth_at(b, i);
      if (fabsf(x - y) > tol && bad++ < 6)
         fprintf(stderr, "%s: depth at pixel %zu: %.9g, lavapipe %.9g\n", what, i, x, y);
   }
   return bad;
}

static void
quad(struct vertex *v, float x0, float y0, float x1, float y1, float zl, float zr, const float c[4])
{
   const float xs[6] = { x0, x1, x0, x1, x1, x0 }, ys[6] = { y0, y0, y1, y0, y1, y1 };
   for (int k = 0; k < 6; k++) {
      v[k] = (struct vertex) { { xs[k], ys[k], xs[k] == x0 ? zl : zr, 1.0f }, { 0 } };
      memcpy(v[k].color, c, 16);
   }
}

static void
test_depth(void)
{
   /* Depth clamp: triangles reaching z = -0.5 and 1.5. */
   static struct vertex v[12];
   random_vertices(v, 12, 0.9f);
   for (int i = 0; i < 12; i++)
      v[i].pos[2] = -0.5f + 2.0f * (float)(draw_rand_u32(&rng) % 1024) / 1023.0f;
   struct depth_arg a = { 0, v, 12 };
   struct scene s = { "depth clamp", W, H, VK_FORMAT_D32_SFLOAT, depth_setup, depth_record, &a };
   struct image im, lv;
   if (run(VKT_SHALE, &s, &im)) {
      unsigned lo = 0, hi = 0, out = 0;
      for (size_t i = 0; i < (size_t)W * H; i++) {
         float z = depth_at(&im, i);
         if (im.color[i] == 0)
            continue;
         lo += z == 0.2f;
         hi += z == 0.8f;
         out += z < 0.2f || z > 0.8f;
      }
      printf("depth clamp: %u pixels at 0.2, %u at 0.8\n", lo, hi);
      CHECK(lo > 0 && hi > 0 && out == 0, "depths clamped to [0.2, 0.8]: %u low, %u high, %u out",
            lo, hi, out);
      CHECK(covered(&im) > 0, "depth clamp: something drawn");
      if (run(VKT_LAVAPIPE, &s, &lv)) {
         CHECK(compare_exact("depth clamp", &im, &lv) == 0, "depth clamp: colour equal to lavapipe");
         CHECK(compare_depth("depth clamp", &im, &lv, 1e-5f) == 0, "depth clamp: depth within 1e-5");
         image_free(&lv);
      }
      image_free(&im);
   } else {
      CHECK(false, "depth clamp drawn");
   }

   /* Depth bias: a sloped triangle on D16. */
   static struct vertex t[3] = {
      { { -0.9f, -0.8f, 0.2f, 1 }, { 1, 0, 0, 1 } },
      { { 0.95f, -0.3f, 0.7f, 1 }, { 1, 0, 0, 1 } },
      { { -0.2f, 0.9f, 0.45f, 1 }, { 1, 0, 0, 1 } },
   };
   struct image off;
   struct depth_arg b = { 1, t, 3 };
   struct scene sb = { "no depth bias", W, H, VK_FORMAT_D16_UNORM, depth_setup, depth_record, &b };
   if (!run(VKT_SHALE, &sb, &off)) {
      CHECK(false, "unbiased triangle drawn");
      return;
   }
   for (int k = 2; k <= 3; k++) {
      b.kind = k;
      sb.name = k == 2 ? "depth bias" : "dynamic depth bias";
      const float *bias = k == 2 ? bias_static : bias_dynamic;
      if (!run(VKT_SHALE, &sb, &im)) {
         CHECK(false, "%s drawn", sb.name);
         continue;
      }
      unsigned beyond = 0, moved = 0;
      for (size_t i = 0; i < (size_t)W * H; i++) {
         if (!im.color[i])
            continue;
         float d = depth_at(&im, i) - depth_at(&off, i);
         moved += d != 0.0f;
         if (fabsf(d) > fabsf(bias[1]) + 1.0f / 65535.0f || d * bias[1] < 0)
            beyond++;
      }
      CHECK(moved > 0 && beyond == 0, "%s: %u depths moved, %u beyond the clamp", sb.name, moved,
            beyond);
      if (run(VKT_LAVAPIPE, &sb, &lv)) {
         CHECK(compare_exact(sb.name, &im, &lv) == 0, "%s: colour equal to lavapipe", sb.name);
         CHECK(compare_depth(sb.name, &im, &lv, 1.5f / 65535.0f) == 0,
               "%s: depth within one unit of lavapipe's", sb.name);
         image_free(&lv);
      }
      image_free(&im);
   }
   image_free(&off);

   /* Depth bounds: a ramp from 0 to 1 across x, then a quad tested against the bounds. */
   static struct vertex r[12];
   static const float grey[4] = { 0.5f, 0.5f, 0.5f, 1 }, green[4] = { 0, 1, 0, 1 };
   quad(r, -1, -1, 1, 1, 0.0f, 1.0f, grey);
   quad(r + 6, -1, -1, 1, 1, 0.5f, 0.5f, green);
   for (int k = 4; k <= 5; k++) {
      struct depth_arg d = { k, r, 12 };
      struct scene sd = { k == 4 ? "depth bounds" : "dynamic depth bounds", W, H,
                          VK_FORMAT_D32_SFLOAT, depth_setup, depth_record, &d };
      const float *bounds = k == 4 ? bounds_static : bounds_dynamic;
      if (!run(VKT_SHALE, &sd, &im)) {
         CHECK(false, "%s drawn", sd.name);
         continue;
      }
      unsigned bad = 0, in = 0;
      for (size_t i = 0; i < (size_t)W * H; i++) {
         float z = depth_at(&im, i);
         bool inside = z >= bounds[0] && z <= bounds[1];
         uint32_t want = inside ? 0xff00ff00u : 0xff808080u;
         in += inside;
         if (im.color[i] != want && bad++ < 6)
            fprintf(stderr, "%s: pixel %zu depth %g: 0x%08x, expected 0x%08x\n", sd.name, i, z,
                    im.color[i], want);
      }
      CHECK(bad == 0 && in > 0 && in < W * H, "%s: %u pixels wrong, %u inside", sd.name, bad, in);
      if (enabled[VKT_LAVAPIPE].depthBounds && run(VKT_LAVAPIPE, &sd, &lv)) {
         CHECK(compare_exact(sd.name, &im, &lv) == 0, "%s: equal to lavapipe", sd.name);
         image_free(&lv);
      }
      image_free(&im);
   }
}

/* ---- stencil ---- */

#define SCELLS 8              /* 8x8 cells of 8x8 pixels */
#define SSIZE (SCELLS * 8)
#define NPIPE 9               /* 8 with dynamic reference and masks, one static */

struct stencil_cell {
   uint8_t init, ref[2], cmask[2], wmask[2];
   bool mirrored;             /* drawn with the other winding: front-facing */
   bool depth_pass;           /* its z passes LESS against the 0.5 stored */
   int pipe;
};
static struct stencil_cell cells[SCELLS * SCELLS];
static VkStencilOpState faces[NPIPE][2];

static const VkStencilOpState static_front = {
   VK_STENCIL_OP_INCREMENT_AND_WRAP, VK_STENCIL_OP_INVERT, VK_STENCIL_OP_DECREMENT_AND_CLAMP,
   VK_COMPARE_OP_EQUAL, 0xf0, 0x3c, 0x35,
};
static const VkStencilOpState static_back = {
   VK_STENCIL_OP_REPLACE, VK_STENCIL_OP_INCREMENT_AND_CLAMP, VK_STENCIL_OP_ZERO,
   VK_COMPARE_OP_GREATER_OR_EQUAL, 0x7e, 0xa5, 0x41,
};

static void
stencil_make_state(void)
{
   for (int i = 0; i < 8; i++) {
      faces[i][0] = (VkStencilOpState) {
         (VkStencilOp)i, (VkStencilOp)((i + 3) % 8), (VkStencilOp)((i + 5) % 8),
         (VkCompareOp)i, 0, 0, 0,
      };
      faces[i][1] = (VkStencilOpState) {
         (VkStencilOp)((i + 2) % 8), (VkStencilOp)((i + 6) % 8), (VkStencilOp)((i + 1) % 8),
         (VkCompareOp)((i + 4) % 8), 0, 0, 0,
      };
   }
   faces[8][0] = static_front;
   faces[8][1] = static_back;
   for (int c = 0; c < SCELLS * SCELLS; c++) {
      struct stencil_cell *s = &cells[c];
      s->pipe = c % NPIPE;
      s->mirrored = (c / NPIPE) & 1;
      s->depth_pass = (c / 2) & 1;
      /* Values near each other half of the time: equality and wrapping matter. */
      s->init = (uint8_t)(c % 5 == 0 ? 0 : c % 5 == 1 ? 255 : draw_rand_u32(&rng));
      for (int f = 0; f < 2; f++) {
         s->ref[f] = (uint8_t)(c % 3 == 0 ? s->init : draw_rand_u32(&rng));
         s->cmask[f] = (uint8_t)(c % 4 == 0 ? 0xff : draw_rand_u32(&rng));
         s->wmask[f] = (uint8_t)(c % 4 == 1 ? 0xff : draw_rand_u32(&rng));
      }
   }
}

static uint8_t
stencil_op(VkStencilOp op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case VK_STENCIL_OP_KEEP: return s;
   case VK_STENCIL_OP_ZERO: return 0;
   case VK_STENCIL_OP_REPLACE: return ref;
   case VK_STENCIL_OP_INCREMENT_AND_CLAMP: return s == 255 ? 255 : s + 1;
   case VK_STENCIL_OP_DECREMENT_AND_CLAMP: return s == 0 ? 0 : s - 1;
   case VK_STENCIL_OP_INVERT: return (uint8_t)~s;
   case VK_STENCIL_OP_INCREMENT_AND_WRAP: return (uint8_t)(s + 1);
   case VK_STENCIL_OP_DECREMENT_AND_WRAP: return (uint8_t)(s - 1);
   default: return s;
   }
}

static bool
compare(VkCompareOp op, uint32_t r, uint32_t s)
{
   switch (op) {
   case VK_COMPARE_OP_NEVER: return false;
   case VK_COMPARE_OP_LESS: return r < s;
   case VK_COMPARE_OP_EQUAL: return r == s;
   case VK_COMPARE_OP_LESS_OR_EQUAL: return r <= s;
   case VK_COMPARE_OP_GREATER: return r > s;
   case VK_COMPARE_OP_NOT_EQUAL: return r != s;
   case VK_COMPARE_OP_GREATER_OR_EQUAL: return r >= s;
   default: return true;
   }
}

/* The spec's result for a cell: stencil value and whether colour is written. */
static uint8_t
stencil_expect(const struct stencil_cell *s, bool *written)
{
   /* quad() winds clockwise on screen (y down): negative area, back-facing
    * with VK_FRONT_FACE_COUNTER_CLOCKWISE; mirrored quads face front. */
   int f = !s->mirrored;
   const VkStencilOpState *st = &faces[s->pipe][f];
   uint8_t ref = s->pipe == 8 ? (uint8_t)st->reference : s->ref[f];
   uint8_t cm = s->pipe == 8 ? (uint8_t)st->compareMask : s->cmask[f];
   uint8_t wm = s->pipe == 8 ? (uint8_t)st->writeMask : s->wmask[f];
   bool pass = compare(st->compareOp, ref & cm, s->init & cm);
   VkStencilOp op = !pass ? st->failOp : !s->depth_pass ? st->depthFailOp : st->passOp;
   *written = pass && s->depth_pass;
   uint8_t v = stencil_op(op, s->init, ref);
   return (uint8_t)((s->init & ~wm) | (v & wm));
}

static struct vertex stencil_vertices[SCELLS * SCELLS * 12];

static void
stencil_setup(struct ctx *c, const void *arg)
{
   (void)arg;
   static const VkDynamicState dyn[3] = {
      VK_DYNAMIC_STATE_STENCIL_REFERENCE, VK_DYNAMIC_STATE_STENCIL_COMPARE_MASK,
      VK_DYNAMIC_STATE_STENCIL_WRITE_MASK,
   };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_FALSE,
      .depthCompareOp = VK_COMPARE_OP_LESS,
      .stencilTestEnable = VK_TRUE,
   };
   struct draw_pipeline_info pi = {
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .depth_stencil = &ds,
      .dynamic_states = dyn,
      .dynamic_state_count = 3,
   };
   for (int i = 0; i < NPIPE; i++) {
      ds.front = faces[i][0];
      ds.back = faces[i][1];
      pi.dynamic_state_count = i == 8 ? 0 : 3;
      ctx_pipeline(c, &pi);
   }
   /* Pipeline 9 lays down depth 0.5 and the cell's initial stencil. */
   ds.depthCompareOp = VK_COMPARE_OP_ALWAYS;
   ds.depthWriteEnable = VK_TRUE;
   ds.front = ds.back = (VkStencilOpState) {
      VK_STENCIL_OP_REPLACE, VK_STENCIL_OP_REPLACE, VK_STENCIL_OP_REPLACE, VK_COMPARE_OP_ALWAYS,
      0xff, 0xff, 0,
   };
   pi.dynamic_state_count = 3;
   ctx_pipeline(c, &pi);
   for (int k = 0; k < SCELLS * SCELLS; k++) {
      const struct stencil_cell *s = &cells[k];
      float x0 = -1.0f + 2.0f * (float)(k % SCELLS) / SCELLS, x1 = x0 + 2.0f / SCELLS;
      float y0 = -1.0f + 2.0f * (float)(k / SCELLS) / SCELLS, y1 = y0 + 2.0f / SCELLS;
      static const float black[4] = { 0, 0, 0, 1 }, white[4] = { 1, 1, 1, 1 };
      struct vertex *v = &stencil_vertices[k * 12];
      quad(v, x0, y0, x1, y1, 0.5f, 0.5f, black);
      float z = s->depth_pass ? 0.25f : 0.75f;
      if (s->mirrored)
         quad(v + 6, x1, y0, x0, y1, z, z, white);    /* mirrored: the other winding */
      else
         quad(v + 6, x0, y0, x1, y1, z, z, white);
   }
   ctx_buffer(c, stencil_vertices, sizeof(stencil_vertices), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
}

static void
stencil_record(struct ctx *c, VkCommandBuffer cb, const void *arg)
{
   (void)arg;
   VkBuffer vb = c->bufs[1].buffer;
   for (int k = 0; k < SCELLS * SCELLS; k++) {
      const struct stencil_cell *s = &cells[k];
      bind(c, cb, &c->pipes[NPIPE], vb);
      push(c, cb, &c->pipes[NPIPE], 1.0f, 0.0f);
      vkCmdSetStencilReference(cb, VK_STENCIL_FACE_FRONT_AND_BACK, s->init);
      vkCmdSetStencilCompareMask(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 0xff);
      vkCmdSetStencilWriteMask(cb, VK_STENCIL_FACE_FRONT_AND_BACK, 0xff);
      vkCmdDraw(cb, 6, 1, k * 12, 0);
      bind(c, cb, &c->pipes[s->pipe], vb);
      if (s->pipe != 8) {
         for (int f = 0; f < 2; f++) {
            VkStencilFaceFlags face = f ? VK_STENCIL_FACE_BACK_BIT : VK_STENCIL_FACE_FRONT_BIT;
            vkCmdSetStencilReference(cb, face, s->ref[f]);
            vkCmdSetStencilCompareMask(cb, face, s->cmask[f]);
            vkCmdSetStencilWriteMask(cb, face, s->wmask[f]);
         }
      }
      vkCmdDraw(cb, 6, 1, k * 12 + 6, 0);
   }
}

static void
test_stencil(void)
{
   stencil_make_state();
   struct scene s = { "stencil", SSIZE, SSIZE, VK_FORMAT_D32_SFLOAT_S8_UINT, stencil_setup,
                      stencil_record, NULL };
   struct image im[2];
   for (int d = 0; d < 2; d++) {
      if (!run((enum vkt_driver)d, &s, &im[d])) {
         CHECK(d == VKT_LAVAPIPE, "Shale drew the stencil scene");
         continue;
      }
      unsigned bad = 0, written = 0;
      for (uint32_t y = 0; y < SSIZE; y++)
         for (uint32_t x = 0; x < SSIZE; x++) {
            const struct stencil_cell *cell = &cells[(y / 8) * SCELLS + x / 8];
            bool w;
            uint8_t want = stencil_expect(cell, &w);
            uint8_t got = im[d].stencil[y * SSIZE + x];
            uint32_t col = im[d].color[y * SSIZE + x], wcol = w ? 0xffffffffu : 0xff000000u;
            written += w;
            if ((got != want || col != wcol) && bad++ < 6)
               fprintf(stderr, "%s stencil: cell %u (pipe %d, %s, depth %s, init 0x%02x): stencil 0x%02x colour 0x%08x, expected 0x%02x 0x%08x\n",
                       vkt_driver_name((enum vkt_driver)d), (y / 8) * SCELLS + x / 8, cell->pipe,
                       cell->mirrored ? "front" : "back", cell->depth_pass ? "pass" : "fail",
                       cell->init, got, col, want, wcol);
         }
      CHECK(bad == 0, "%s: stencil and colour as the spec says (%u wrong)",
            vkt_driver_name((enum vkt_driver)d), bad);
      CHECK(written > 0 && written < SSIZE * SSIZE, "some cells pass, some fail");
      image_free(&im[d]);
   }
}

/* ---- viewports and scissors, large targets ---- */

struct vp_arg {
   bool dynamic;
   VkViewport vp;
   VkRect2D scissor;
   const struct vertex *v;
   uint32_t n;
};

static void
vp_setup(struct ctx *c, const void *arg)
{
   const struct vp_arg *a = arg;
   struct draw_pipeline_info pi = { .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
   if (!a->dynamic) {
      pi.viewport = &a->vp;
      pi.scissor = &a->scissor;
   }
   ctx_pipeline(c, &pi);
   ctx_buffer(c, a->v, a->n * sizeof(struct vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT);
}

static void
vp_record(struct ctx *c, VkCommandBuffer cb, const void *arg)
{
   const struct vp_arg *a = arg;
   bind(c, cb, &c->pipes[0], c->bufs[1].buffer);
   push(c, cb, &c->pipes[0], 1.0f, 0.0f);
   if (a->dynamic) {
      vkCmdSetViewport(cb, 0, 1, &a->vp);
      vkCmdSetScissor(cb, 0, 1, &a->scissor);
   }
   vkCmdDraw(cb, a->n, 1, 0, 0);
}

/* Shale must equal the CPU reference; lavapipe (whose clipping moves
 * edges by rounding the clipped vertices) must equal Shale, or where it
 * departs from the reference, is printed. */
static void
viewport_scene(const struct scene *s, const struct vp_arg *a, struct image *out)
{
   struct image ref = { .w = s->w, .h = s->h, .color = calloc((size_t)s->w * s->h, 4) };
   reference_triangles(a->v, a->n, &a->vp, &a->scissor, &ref);
   memset(out, 0, sizeof(*out));
   if (!run(VKT_SHALE, s, out)) {
      CHECK(false, "%s drawn", s->name);
   } else {
      CHECK(covered(out) > 0, "%s: something drawn", s->name);
      CHECK(compare_exact(s->name, out, &ref) == 0, "%s: equal to the CPU reference", s->name);
      struct image lv;
      if (run(VKT_LAVAPIPE, s, &lv)) {
         unsigned d = compare_exact("lavapipe vs the reference", &lv, &ref);
         if (d)
            printf("%s: lavapipe departs from the reference on %u pixels\n", s->name, d);
         else
            CHECK(compare_exact(s->name, out, &lv) == 0, "%s: equal to lavapipe", s->name);
         image_free(&lv);
      }
   }
   image_free(&ref);
}

static void
test_viewports(void)
{
   static struct vertex v[60];
   random_vertices(v, 60, 1.1f);
   struct vp_arg a = { false, { 10.5f, 5.25f, 100.0f, 80.0f, 0, 1 }, { { 20, 10 }, { 90, 60 } },
                       v, 60 };
   struct scene s = { "static viewport and scissor", W, H, 0, vp_setup, vp_record, &a };
   struct image st, dy;
   viewport_scene(&s, &a, &st);
   a.dynamic = true;
   s.name = "dynamic viewport and scissor";
   viewport_scene(&s, &a, &dy);
   if (st.color && dy.color)
      CHECK(compare_exact("static vs dynamic viewport", &st, &dy) == 0,
            "static and dynamic viewports draw the same");
   image_free(&st);
   image_free(&dy);
   /* Negative height: y flipped. */
   a.vp = (VkViewport) { 0, H, W, -(float)H, 0, 1 };
   a.scissor = (VkRect2D) { { 0, 0 }, { W, H } };
   s.name = "negative-height viewport";
   struct image neg;
   viewport_scene(&s, &a, &neg);
   image_free(&neg);
   /* Large targets: 8192x4 and 4x8192. */
   for (int i = 0; i < 2; i++) {
      a.dynamic = true;
      a.vp = (VkViewport) { 0, 0, i ? 4 : 8192, i ? 8192 : 4, 0, 1 };
      a.scissor = (VkRect2D) { { 0, 0 }, { i ? 4 : 8192, i ? 8192 : 4 } };
      struct scene l = { i ? "4x8192" : "8192x4", i ? 4 : 8192, i ? 8192 : 4, 0, vp_setup,
                         vp_record, &a };
      struct image im;
      viewport_scene(&l, &a, &im);
      image_free(&im);
   }
}

/* ---- what is reported ---- */

static void
test_reported(void)
{
   const VkPhysicalDeviceFeatures *f = &enabled[VKT_SHALE];
   CHECK(f->fillModeNonSolid && f->wideLines && f->largePoints && f->depthClamp &&
            f->depthBiasClamp && f->depthBounds && f->multiDrawIndirect &&
            f->drawIndirectFirstInstance && f->fullDrawIndexUint32 && f->shaderClipDistance &&
            f->shaderCullDistance,
         "Shale reports every feature tested here");
   const VkPhysicalDeviceLimits *l = &drivers[VKT_SHALE].props.limits;
   CHECK_EQ_INT(l->maxDrawIndirectCount, UINT32_MAX);
   CHECK_EQ_INT(l->maxDrawIndexedIndexValue, UINT32_MAX);
   CHECK_EQ_INT(l->maxFramebufferWidth, 8192);
   CHECK_EQ_INT(l->maxFramebufferHeight, 8192);
   CHECK_EQ_INT(l->maxViewportDimensions[0], 8192);
   CHECK_EQ_INT(l->maxViewportDimensions[1], 8192);
   CHECK(l->viewportBoundsRange[0] == -16384.0f && l->viewportBoundsRange[1] == 16383.0f,
         "viewportBoundsRange [-16384, 16383]");
   CHECK(l->lineWidthRange[0] == 1.0f && l->lineWidthRange[1] == 64.0f &&
            l->lineWidthGranularity == 0.125f, "lines: [1, 64] by 0.125");
   CHECK(l->pointSizeRange[0] == 1.0f && l->pointSizeRange[1] == 64.0f &&
            l->pointSizeGranularity == 0.125f, "points: [1, 64] by 0.125");
   CHECK(!l->strictLines, "strictLines VK_FALSE");
   CHECK_EQ_INT(l->maxClipDistances, 8);
   CHECK_EQ_INT(l->maxCullDistances, 8);
   CHECK_EQ_INT(l->maxCombinedClipAndCullDistances, 8);
}

int
main(void)
{
   if (!driver_init(VKT_SHALE)) {
      CHECK(false, "Shale present");
      return check_finish();
   }
   if (!driver_init(VKT_LAVAPIPE))
      printf("lavapipe missing: Shale's images are checked against CPU references only\n");
   test_reported();
   test_topologies();
   test_indexed();
   test_full_index();
   test_cull();
   test_polygon_modes();
   test_wide();
   test_clip_cull();
   test_depth();
   test_stencil();
   test_viewports();
   for (int d = 0; d < 2; d++)
      if (have[d])
         vkt_finish(&drivers[d]);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
