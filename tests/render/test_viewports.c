/* Viewport arrays (multiViewport): 16 viewports and scissors, a geometry
 * shader writing ViewportIndex per primitive, the fragment shader reading
 * it. A 128x128 target of 4x4 cells of 32x32 pixels; viewport i is 64x64
 * around cell i (cell origin - 16; viewport 5 flipped, negative height),
 * with depth range [8i, 8i + 64] / 255 (viewport 9 reversed) and scissor
 * i inside cell i (cell + (2, 1), 28x30; scissor 0 the whole cell,
 * scissor 15 past the framebuffer). Each input point of the geometry
 * shader carries a window rectangle in its viewport's normalized
 * coordinates and the viewport index; per viewport:
 *  1. a rectangle (strip of two triangles) that crosses the scissor's left
 *     edge (viewport 7's reaches x = 40000, past the guard band: clipped),
 *     static viewports and scissors;
 *  2. a rectangle in polygon mode POINT with its corners at pixel centres
 *     (four pixels);
 *  3. two line segments, horizontal and vertical, between pixel centres;
 *  4. two points at pixel centres;
 *  5. a rectangle in polygon mode LINE (its diagonal too).
 * 2-5 take their viewports and scissors from vkCmdSetViewport /
 * vkCmdSetScissor in two calls each with different split points
 * (firstViewport 0 and 9, firstScissor 0 and 5). Every fragment writes
 * (32 kind, 16 i, window z, ViewportIndex * 16) / 255: the window z at
 * normalized z 0.5 is the middle of the viewport's depth range. The
 * image is compared exactly with a CPU reference for 1-4 (coverage there
 * is fixed by the rules: axis-aligned edges on pixel boundaries, points
 * and lines on pixel centres), 5's region excepted, and whole (5
 * included) between SHALE_THREADS 1, 2 and 4 and lavapipe. A second pass
 * draws rectangles whose ViewportIndex is 16, 1000 and -1 (out of range:
 * undefined viewport; Shale drops them) besides viewport 3's: on Shale
 * only viewport 3's is drawn, on lavapipe viewport 3's is there. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "geom_vert_spv.h"
#include "vp_frag_spv.h"
#include "vp_line_geom_spv.h"
#include "vp_point_geom_spv.h"
#include "vp_tri_geom_spv.h"

#define W 128
#define H 128
#define NVP 16
#define CELL 32

struct vtx {
   float pos[4];     /* x0, y0, x1, y1 (normalized) */
   float color[4];   /* r, g, z (normalized), viewport index */
};

/* Kinds (draw order): their input points' ranges in verts[]. */
enum { K_FILL, K_POINTS_MODE, K_LINES, K_POINTS, K_LINE_MODE, K_BAD, K_COUNT };
static uint32_t first[K_COUNT], count[K_COUNT];
static struct vtx verts[NVP * 8 + 8];
static uint32_t nverts;

static VkViewport vps[NVP];
static VkRect2D scs[NVP];
static uint32_t ref[W * H], ref_bad[W * H];
static uint8_t dont_care[W * H];

/* Images kept for the comparison between runs: Shale at 1, 2, 4 threads, lavapipe. */
#define RUNS 4
static uint32_t runs[RUNS][W * H];
static bool have_run[RUNS];

static void
setup_viewports(void)
{
   for (int i = 0; i < NVP; i++) {
      const int cx = CELL * (i % 4), cy = CELL * (i / 4);
      vps[i] = (VkViewport){(float)(cx - 16), (float)(cy - 16), 64, 64, 8.0f * i / 255.0f,
                            (8.0f * i + 64.0f) / 255.0f};
      if (i == 5) {
         vps[i].y = (float)(cy + 48);
         vps[i].height = -64;
      }
      if (i == 9) {
         float t = vps[i].minDepth;
         vps[i].minDepth = vps[i].maxDepth;
         vps[i].maxDepth = t;
      }
      scs[i] = (VkRect2D){{cx + 2, cy + 1}, {28, 30}};
   }
   scs[0] = (VkRect2D){{0, 0}, {CELL, CELL}};
   scs[15].extent = (VkExtent2D){1000, 1000};
}

/* Window coordinates to viewport v's normalized ones (exact: the
 * viewports' halves are 32 pixels). */
static float
ndc_x(int v, double x)
{
   return (float)((x - (vps[v].x + vps[v].width * 0.5)) / (vps[v].width * 0.5));
}

static float
ndc_y(int v, double y)
{
   return (float)((y - (vps[v].y + vps[v].height * 0.5)) / (vps[v].height * 0.5));
}

static uint32_t
texel(int kind, int v)
{
   const float c[4] = {32.0f * (float)(kind + 1) / 255.0f, 16.0f * (float)v / 255.0f,
                       (8.0f * (float)v + 32.0f) / 255.0f, 16.0f * (float)v / 255.0f};
   return draw_pack_rgba8(c);
}

/* A point of the geometry shader's input: window (x0, y0) - (x1, y1) of
 * viewport v (its rectangle, segment or point), drawn with index `index`. */
static void
add(int v, int kind, double x0, double y0, double x1, double y1, float index)
{
   verts[nverts++] = (struct vtx){
      {ndc_x(v, x0), ndc_y(v, y0), ndc_x(v, x1), ndc_y(v, y1)},
      {32.0f * (float)(kind + 1) / 255.0f, 16.0f * (float)v / 255.0f, 0.5f, index}};
}

/* Pixels [x0, x1) x [y0, y1) of viewport v's scissor (and the image). */
static void
fill(uint32_t *img, int v, int x0, int y0, int x1, int y1, uint32_t value)
{
   const VkRect2D *s = &scs[v];
   for (int y = y0; y < y1; y++)
      for (int x = x0; x < x1; x++)
         if (x >= s->offset.x && x < s->offset.x + (int)s->extent.width && y >= s->offset.y &&
             y < s->offset.y + (int)s->extent.height && x >= 0 && x < W && y >= 0 && y < H)
            img[y * W + x] = value;
}

static void
build(void)
{
   setup_viewports();
   memset(ref, 0, sizeof(ref));
   memset(ref_bad, 0, sizeof(ref_bad));
   memset(dont_care, 0, sizeof(dont_care));
   for (int k = 0; k < K_COUNT; k++) {
      first[k] = nverts;
      for (int v = 0; v < NVP; v++) {
         const int cx = CELL * (v % 4), cy = CELL * (v / 4);
         const uint32_t px = texel(k, v);
         switch (k) {
         case K_FILL:
            if (v == 7) {
               add(v, k, cx + 20, cy + 3, 40000, cy + 9, (float)v);
               fill(ref, v, cx + 20, cy + 3, W, cy + 9, px);
            } else {
               add(v, k, cx - 6, cy + 3, cx + 12, cy + 9, (float)v);
               fill(ref, v, cx - 6, cy + 3, cx + 12, cy + 9, px);
            }
            break;
         case K_POINTS_MODE:
            add(v, k, cx + 22.5, cy + 12.5, cx + 26.5, cy + 15.5, (float)v);
            fill(ref, v, cx + 22, cy + 12, cx + 23, cy + 13, px);
            fill(ref, v, cx + 26, cy + 12, cx + 27, cy + 13, px);
            fill(ref, v, cx + 22, cy + 15, cx + 23, cy + 16, px);
            fill(ref, v, cx + 26, cy + 15, cx + 27, cy + 16, px);
            break;
         case K_LINES:
            add(v, k, cx + 4.5, cy + 18.5, cx + 12.5, cy + 18.5, (float)v);
            add(v, k, cx + 14.5, cy + 12.5, cx + 14.5, cy + 20.5, (float)v);
            fill(ref, v, cx + 4, cy + 18, cx + 12, cy + 19, px);
            fill(ref, v, cx + 14, cy + 12, cx + 15, cy + 20, px);
            break;
         case K_POINTS:
            add(v, k, cx + 18.5, cy + 14.5, 0, 0, (float)v);
            add(v, k, cx + 24.5, cy + 24.5, 0, 0, (float)v);
            fill(ref, v, cx + 18, cy + 14, cx + 19, cy + 15, px);
            fill(ref, v, cx + 24, cy + 24, cx + 25, cy + 25, px);
            break;
         case K_LINE_MODE:
            /* The outline of (4.5, 22.5) - (12.5, 28.5) and the strip's
             * diagonal (12.5, 22.5) - (4.5, 28.5), whose pixels (within
             * 1.5 of it) and the corners' (within one pixel) the rules
             * leave to the implementation (non-strict lines). */
            add(v, k, cx + 4.5, cy + 22.5, cx + 12.5, cy + 28.5, (float)v);
            for (int y = 21; y < 30; y++) {
               for (int x = 2; x < 15; x++) {
                  const double d = fabs(6.0 * (x + 0.5 - 12.5) + 8.0 * (y + 0.5 - 22.5)) / 10.0;
                  const bool corner = (abs(x - 4) <= 1 || abs(x - 12) <= 1) && (abs(y - 22) <= 1 || abs(y - 28) <= 1);
                  if (corner || (d < 1.5 && y >= 21 && y <= 29 && x >= 3 && x <= 13)) {
                     dont_care[(cy + y) * W + cx + x] = 1;
                     continue;
                  }
                  if (((y == 22 || y == 28) && x >= 4 && x <= 12) || ((x == 4 || x == 12) && y >= 22 && y <= 28))
                     fill(ref, v, cx + x, cy + y, cx + x + 1, cy + y + 1, px);
               }
            }
            break;
         case K_BAD:
            if (v == 3) {
               add(v, K_FILL, cx - 6, cy + 3, cx + 12, cy + 9, (float)v);
               fill(ref_bad, v, cx - 6, cy + 3, cx + 12, cy + 9, texel(K_FILL, v));
            } else if (v < 3) {
               static const float bad[3] = {16.0f, 1000.0f, -1.0f};
               add(0, K_FILL, 2, 2, 30, 30, bad[v]);
            }
            break;
         }
      }
      count[k] = nverts - first[k];
   }
}

/* A pipeline of geometry shader gs and polygon mode pm; static viewports
 * and scissors (all 16) or dynamic ones. */
static VkResult
make_pipeline(struct vkt *t, VkRenderPass rp, VkPipelineLayout layout, VkShaderModule vs, VkShaderModule gs,
              VkShaderModule fs, VkPolygonMode pm, bool dynamic, VkPipeline *out)
{
   struct draw_pipeline_info pi = {
      .stride = sizeof(struct vtx), .attrib_count = 2,
      .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
      .attrib_offset = {0, 16}, .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
      .cull_mode = VK_CULL_MODE_NONE, .polygon_mode = pm,
      .viewport = &vps[0], .scissor = &scs[0], .dynamic_viewport_scissor = dynamic,
      .render_pass = rp, .color_count = 1,
   };
   if (dynamic)
      pi.viewport = NULL, pi.scissor = NULL;
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, NULL, &pi, vs, fs, layout);
   st.vp.viewportCount = NVP;
   st.vp.scissorCount = NVP;
   st.vp.pViewports = dynamic ? NULL : vps;
   st.vp.pScissors = dynamic ? NULL : scs;
   return draw_pipeline_create_geometry(t, &st, gs, out);
}

static void
run_driver(enum vkt_driver which, const char *threads, int run)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   else
      unsetenv("SHALE_THREADS");
   struct vkt probe;
   if (!draw_probe(which, &probe)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(probe.pdev, &have);
   const uint32_t max_viewports = probe.props.limits.maxViewports;
   vkt_finish(&probe);
   const char *dn = vkt_driver_name(which);
   CHECK(have.geometryShader && have.multiViewport && have.fillModeNonSolid && max_viewports >= NVP,
         "%s: geometryShader %u, multiViewport %u, fillModeNonSolid %u, maxViewports %u", dn,
         have.geometryShader, have.multiViewport, have.fillModeNonSolid, max_viewports);
   if (!have.geometryShader || !have.multiViewport || !have.fillModeNonSolid || max_viewports < NVP)
      return;
   VkPhysicalDeviceFeatures feats = {.geometryShader = VK_TRUE, .multiViewport = VK_TRUE,
                                     .fillModeNonSolid = VK_TRUE};
   /* Vulkan 1.1: negative viewport heights. */
   struct vkt_options o = {.driver = which, .api_version = VK_API_VERSION_1_1, .features = &feats};
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(0, "%s: device", dn);
      return;
   }
   struct vkt_image img = {0};
   VkImageView view = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkResult r = draw_image_create(&t, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_SAMPLE_COUNT_1_BIT,
                                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                  VK_IMAGE_ASPECT_COLOR_BIT, &img, &view);
   if (r == VK_SUCCESS)
      r = draw_color_pass(&t, VK_FORMAT_R8G8B8A8_UNORM, &draw_dep_color_to_transfer, 1, &rp);
   if (r == VK_SUCCESS)
      r = draw_framebuffer(&t, rp, &view, 1, W, H, 1, &fb);
   CHECK(r == VK_SUCCESS, "%s: attachment: %d", dn, r);
   VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE, gs[3] = {VK_NULL_HANDLE};
   VkPipelineLayout layout = VK_NULL_HANDLE;
   enum { P_FILL, P_POINTS_MODE, P_LINES, P_POINTS, P_LINE_MODE, P_COUNT };
   VkPipeline pipe[P_COUNT] = {VK_NULL_HANDLE};
   struct vkt_buffer vb = {0}, rb = {0};
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_vert_spv, sizeof(geom_vert_spv), &vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vp_frag_spv, sizeof(vp_frag_spv), &fs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vp_tri_geom_spv, sizeof(vp_tri_geom_spv), &gs[0]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vp_line_geom_spv, sizeof(vp_line_geom_spv), &gs[1]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vp_point_geom_spv, sizeof(vp_point_geom_spv), &gs[2]);
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &layout);
   if (r == VK_SUCCESS)
      r = make_pipeline(&t, rp, layout, vs, gs[0], fs, VK_POLYGON_MODE_FILL, false, &pipe[P_FILL]);
   if (r == VK_SUCCESS)
      r = make_pipeline(&t, rp, layout, vs, gs[0], fs, VK_POLYGON_MODE_POINT, true, &pipe[P_POINTS_MODE]);
   if (r == VK_SUCCESS)
      r = make_pipeline(&t, rp, layout, vs, gs[1], fs, VK_POLYGON_MODE_FILL, true, &pipe[P_LINES]);
   if (r == VK_SUCCESS)
      r = make_pipeline(&t, rp, layout, vs, gs[2], fs, VK_POLYGON_MODE_FILL, true, &pipe[P_POINTS]);
   if (r == VK_SUCCESS)
      r = make_pipeline(&t, rp, layout, vs, gs[0], fs, VK_POLYGON_MODE_LINE, true, &pipe[P_LINE_MODE]);
   CHECK(r == VK_SUCCESS, "%s: pipelines: %d", dn, r);
   if (r == VK_SUCCESS)
      r = draw_upload(&t, verts, nverts * sizeof(struct vtx), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, 2ull * W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb);
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = vkt_begin(&t);
      VkDeviceSize off = 0;
      /* Pass 1: every kind. */
      draw_begin_pass_cleared(cb, rp, fb, W, H);
      vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &off);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe[P_FILL]);
      vkCmdDraw(cb, count[K_FILL], 1, first[K_FILL], 0);
      vkCmdSetViewport(cb, 0, 9, vps);
      vkCmdSetViewport(cb, 9, NVP - 9, vps + 9);
      vkCmdSetScissor(cb, 5, NVP - 5, scs + 5);
      vkCmdSetScissor(cb, 0, 5, scs);
      for (int p = P_POINTS_MODE; p < P_COUNT; p++) {
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe[p]);
         vkCmdDraw(cb, count[p], 1, first[p], 0);
      }
      vkCmdEndRenderPass(cb);
      draw_copy_to_buffer(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, rb.buffer, 0);
      /* Pass 2: out-of-range indices besides viewport 3's rectangle. */
      draw_begin_pass_cleared(cb, rp, fb, W, H);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe[P_FILL]);
      vkCmdDraw(cb, count[K_BAD], 1, first[K_BAD], 0);
      vkCmdEndRenderPass(cb);
      draw_copy_to_buffer(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, rb.buffer, (VkDeviceSize)W * H * 4);
      draw_host_barrier(cb);
      r = vkt_submit_wait(&t, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   }
   if (r == VK_SUCCESS) {
      const uint32_t *got = rb.map;
      draw_compare_image(dn, threads, "viewports", got, ref, dont_care, W, H, 1500);
      memcpy(runs[run], got, sizeof(runs[run]));
      have_run[run] = true;
      if (which == VKT_SHALE) {
         draw_compare_image(dn, threads, "out-of-range indices", got + W * H, ref_bad, NULL, W, H, 60);
      } else {
         /* Undefined viewport for the others: viewport 3's rectangle only. */
         uint32_t masked[W * H];
         for (int i = 0; i < W * H; i++)
            masked[i] = ref_bad[i] ? got[W * H + i] : 0;
         draw_compare_image(dn, threads, "viewport 3 among out-of-range indices", masked, ref_bad,
                            NULL, W, H, 60);
      }
   }
   if (rb.buffer)
      vkt_buffer_destroy(&t, &rb);
   if (vb.buffer)
      vkt_buffer_destroy(&t, &vb);
   for (int p = 0; p < P_COUNT; p++)
      vkDestroyPipeline(t.device, pipe[p], NULL);
   vkDestroyPipelineLayout(t.device, layout, NULL);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   for (int g = 0; g < 3; g++)
      vkDestroyShaderModule(t.device, gs[g], NULL);
   draw_color_target_destroy(&t, &img, view, rp, fb);
   vkt_finish(&t);
}

int
main(void)
{
   build();
   static const char *const threads[3] = {"1", "2", "4"};
   for (int i = 0; i < 3; i++)
      run_driver(VKT_SHALE, threads[i], i);
   run_driver(VKT_LAVAPIPE, NULL, 3);
   /* Whole images: the same at every SHALE_THREADS; lavapipe's too but
    * for the pixels the rules leave open (polygon mode LINE's diagonals
    * and corners). */
   CHECK(have_run[0], "Shale ran");
   for (int i = 1; i < RUNS; i++) {
      if (!have_run[0] || !have_run[i])
         continue;
      unsigned bad = 0;
      for (int p = 0; p < W * H; p++)
         if (runs[i][p] != runs[0][p] && (i < 3 || !dont_care[p]) && bad++ < 6)
            fprintf(stderr, "run %d against SHALE_THREADS 1: pixel (%d, %d): %08x, %08x\n", i, p % W,
                    p / W, runs[i][p], runs[0][p]);
      CHECK(bad == 0, "%s: %u pixels differ from Shale at SHALE_THREADS 1", i < 3 ? threads[i] : "lavapipe",
            bad);
   }
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
