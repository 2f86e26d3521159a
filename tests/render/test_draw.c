/* Triangles through the loader: exact coverage, depth, threads; vs a CPU reference and lavapipe. */
/*
 * What is held here:
 *  - coverage: random triangles (both windings, shared edges, slivers) with
 *    a flat colour each are drawn into an RGBA8 target larger than one
 *    64x64 tile; every pixel must equal a CPU reference written from the
 *    spec's rules (8 sub-pixel bits, pixel centres at .5, the top-left
 *    rule, later primitives over earlier ones), on Shale exactly, and on
 *    lavapipe exactly as well (the rules leave no freedom here);
 *  - depth: overlapping triangles at constant depths with a D32_SFLOAT
 *    attachment and LESS; the nearest triangle's colour wins per pixel and
 *    the stored depth is its z, exactly;
 *  - smooth interpolation: a colour-gradient mesh compared with lavapipe
 *    within 1/255 per channel;
 *  - threads: the same scene drawn by this program re-run with
 *    SHALE_THREADS=1, 2 and 4 gives bit-identical images.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"
#include "smooth_color_frag_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)

#define W 150
#define H 100
#define NTRI 60


static uint64_t rng = 0x243f6a8885a308d3ull;

/* A value on a 1/64-pixel grid within [-0.2, 1.2] of the target, as NDC. */
static float
rand_ndc(uint32_t size)
{
   int32_t sub = (int32_t)(draw_rand_u32(&rng) % (uint32_t)(size * 64 * 14 / 10)) -
                 (int32_t)(size * 64 / 5);
   return (float)sub / 64.0f / (float)size * 2.0f - 1.0f;
}

/* Random triangles, each with one colour; a few share edges with the
 * previous one (fans), a few are slivers. */
static void
make_triangles(struct draw_vertex *v, uint32_t count, bool depth)
{
   for (uint32_t i = 0; i < count; i++) {
      struct draw_vertex *t = &v[i * 3];
      for (int k = 0; k < 3; k++) {
         t[k].pos[0] = rand_ndc(W);
         t[k].pos[1] = rand_ndc(H);
         t[k].pos[2] = 0.5f;
         t[k].pos[3] = 1.0f;
      }
      if (i > 0 && i % 3 == 1) {   /* shares the edge 1-2 of the previous one */
         memcpy(t[0].pos, v[i * 3 - 2].pos, sizeof(t[0].pos));
         memcpy(t[1].pos, v[i * 3 - 1].pos, sizeof(t[1].pos));
      }
      if (i % 7 == 5) {            /* a sliver */
         t[2].pos[0] = t[0].pos[0] + (t[1].pos[0] - t[0].pos[0]) * 0.5f + 1.0f / W;
         t[2].pos[1] = t[0].pos[1] + (t[1].pos[1] - t[0].pos[1]) * 0.5f;
      }
      float z = depth ? (float)(draw_rand_u32(&rng) % 1000) / 1000.0f : 0.5f;
      float c[4] = { (float)(draw_rand_u32(&rng) % 256) / 255.0f,
                     (float)(draw_rand_u32(&rng) % 256) / 255.0f,
                     (float)(draw_rand_u32(&rng) % 256) / 255.0f, 1.0f };
      for (int k = 0; k < 3; k++) {
         t[k].pos[2] = z;
         memcpy(t[k].color, c, sizeof(c));
      }
   }
}

/* Window coordinates in 1/256 pixels, as Vulkan's viewport transform and
 * 8 sub-pixel bits give them (round to nearest). */
static int64_t
snap(float ndc, uint32_t size)
{
   double win = ((double)ndc + 1.0) * 0.5 * size;
   return llround(win * 256.0);
}

/* The spec's coverage of pixel (px, py) by triangle t: inside every edge,
 * or on an edge that is a top or left edge (framebuffer y points down). */
static bool
covers(const struct draw_vertex *t, int px, int py)
{
   int64_t x[3], y[3];
   for (int k = 0; k < 3; k++) {
      x[k] = snap(t[k].pos[0], W);
      y[k] = snap(t[k].pos[1], H);
   }
   int64_t area = (x[1] - x[0]) * (y[2] - y[0]) - (y[1] - y[0]) * (x[2] - x[0]);
   if (area == 0)
      return false;
   int64_t sx = (int64_t)px * 256 + 128, sy = (int64_t)py * 256 + 128;
   for (int k = 0; k < 3; k++) {
      int a = k, b = (k + 1) % 3;
      if (area < 0) {   /* walk the other way round: inside is positive */
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

struct scene_result {
   uint32_t *color;
   float *depth;
};

/* Draws `count` triangles of v with the given fragment shader; depth adds
 * a D32_SFLOAT attachment tested with LESS. */
static bool
draw_scene(enum vkt_driver drv, const struct draw_vertex *v, uint32_t count, bool smooth, bool depth,
           struct scene_result *out)
{
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = drv }))
      return false;
   struct draw_target dt = {
      .color_format = VK_FORMAT_R8G8B8A8_UNORM,
      .depth_format = depth ? VK_FORMAT_D32_SFLOAT : VK_FORMAT_UNDEFINED,
      .width = W, .height = H,
      .clear_color = { .float32 = { 0.0f, 0.0f, 0.0f, 0.0f } },
      .clear_depth = 1.0f,
   };
   CHECK_VK(draw_target_create(&t, &dt));
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS,
   };
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv),
                    smooth ? smooth_color_frag_spv : flat_color_frag_spv,
                    smooth ? sizeof(smooth_color_frag_spv) : sizeof(flat_color_frag_spv));
   pi.depth_stencil = depth ? &ds : NULL;
   pi.dynamic_viewport_scissor = true;
   struct draw_pipeline p;
   CHECK_VK(draw_pipeline_create(&t, &dt, &pi, &p));
   struct vkt_buffer vb;
   CHECK_VK(draw_upload(&t, v, count * 3 * sizeof(*v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb));
   bool ok = p.pipeline != VK_NULL_HANDLE;
   if (ok) {
      VkCommandBuffer cb = draw_begin(&t, &dt, &p, vb.buffer);
      vkCmdDraw(cb, count * 3, 1, 0, 0);
      ok = draw_end(&t, &dt, cb) == VK_SUCCESS;
      CHECK(ok, "%s: draw submitted", vkt_driver_name(drv));
   }
   if (ok) {
      size_t pixels = (size_t)W * H;
      out->color = malloc(pixels * 4);
      memcpy(out->color, dt.readback.map, pixels * 4);
      out->depth = NULL;
      if (depth) {
         out->depth = malloc(pixels * 4);
         memcpy(out->depth, (uint8_t *)dt.readback.map + pixels * 4, pixels * 4);
      }
   }
   vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &p);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
   return ok;
}

/* Expected image of flat triangles: later ones over earlier ones, or the
 * nearest one (LESS) with depth. */
static void
reference(const struct draw_vertex *v, uint32_t count, bool depth, uint32_t *color, float *zbuf)
{
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         uint32_t c = 0;
         float z = 1.0f;
         for (uint32_t i = 0; i < count; i++) {
            const struct draw_vertex *t = &v[i * 3];
            if (!covers(t, x, y))
               continue;
            if (depth && !(t[0].pos[2] < z))
               continue;
            z = t[0].pos[2];
            c = draw_pack_rgba8(t[0].color);
         }
         color[y * W + x] = c;
         if (zbuf)
            zbuf[y * W + x] = z;
      }
}

static unsigned
compare_exact(const char *what, const uint32_t *got, const uint32_t *want)
{
   unsigned bad = 0;
   for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
         uint32_t g = got[y * W + x], w = want[y * W + x];
         if (g != w && bad++ < 8)
            fprintf(stderr, "%s: pixel (%d, %d): 0x%08x, expected 0x%08x\n", what, x, y, g, w);
      }
   return bad;
}

static void
test_coverage(void)
{
   static struct draw_vertex v[NTRI * 3];
   make_triangles(v, NTRI, false);
   static uint32_t want[W * H];
   reference(v, NTRI, false, want, NULL);
   unsigned covered = 0;
   for (int i = 0; i < W * H; i++)
      covered += want[i] != 0;
   CHECK(covered > W * H / 4, "the scene covers a good part of the target (%u pixels)", covered);

   struct scene_result shale;
   if (draw_scene(VKT_SHALE, v, NTRI, false, false, &shale)) {
      CHECK_EQ_INT(compare_exact("coverage (Shale)", shale.color, want), 0);
      free(shale.color);
   } else {
      CHECK(false, "Shale drew the coverage scene");
   }
   struct scene_result lvp;
   if (draw_scene(VKT_LAVAPIPE, v, NTRI, false, false, &lvp)) {
      CHECK_EQ_INT(compare_exact("coverage (lavapipe vs the reference)", lvp.color, want), 0);
      free(lvp.color);
   }
}

/* The pipeline is bound once, outside two render pass instances with
 * different render areas: the second instance's draws are scissored to its
 * own (full) area, not to the first one's left half. */
static void
test_render_areas(void)
{
   static struct draw_vertex v[NTRI * 3];
   rng = 777;
   make_triangles(v, NTRI, false);
   static uint32_t want[W * H];
   reference(v, NTRI, false, want, NULL);
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = VKT_SHALE })) {
      CHECK(false, "Shale device");
      return;
   }
   struct draw_target dt = {
      .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H,
   };
   CHECK_VK(draw_target_create(&t, &dt));
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                    sizeof(flat_color_frag_spv));
   pi.dynamic_viewport_scissor = true;
   struct draw_pipeline p;
   CHECK_VK(draw_pipeline_create(&t, &dt, &pi, &p));
   struct vkt_buffer vb;
   CHECK_VK(draw_upload(&t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb));
   VkCommandBuffer cb = vkt_begin(&t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
   VkViewport viewport = { 0, 0, (float)W, (float)H, 0, 1 };
   VkRect2D full = { { 0, 0 }, { W, H } }, half = { { 0, 0 }, { W / 2, H } };
   vkCmdSetViewport(cb, 0, 1, &viewport);
   vkCmdSetScissor(cb, 0, 1, &full);
   VkDeviceSize offset = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &offset);
   VkClearValue clear = { .color = { .float32 = { 0, 0, 0, 0 } } };
   VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = dt.render_pass, .framebuffer = dt.framebuffer,
      .renderArea = half, .clearValueCount = 1, .pClearValues = &clear,
   };
   /* No state changes between the instances: only the render area changes. */
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdDraw(cb, NTRI * 3, 1, 0, 0);
   vkCmdEndRenderPass(cb);
   rbi.renderArea = full;
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdDraw(cb, NTRI * 3, 1, 0, 0);
   CHECK_VK(draw_end(&t, &dt, cb));
   CHECK_EQ_INT(compare_exact("second render area", dt.readback.map, want), 0);
   vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &p);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

static void
test_depth(void)
{
   static struct draw_vertex v[NTRI * 3];
   make_triangles(v, NTRI, true);
   static uint32_t want[W * H];
   static float zwant[W * H];
   reference(v, NTRI, true, want, zwant);
   struct scene_result shale;
   if (!draw_scene(VKT_SHALE, v, NTRI, false, true, &shale)) {
      CHECK(false, "Shale drew the depth scene");
      return;
   }
   CHECK_EQ_INT(compare_exact("depth colour (Shale)", shale.color, want), 0);
   unsigned bad = 0;
   for (int i = 0; i < W * H; i++)
      if (shale.depth[i] != zwant[i] && bad++ < 8)
         fprintf(stderr, "depth: pixel %d: %g, expected %g\n", i, shale.depth[i], zwant[i]);
   CHECK_EQ_INT(bad, 0);
   free(shale.color);
   free(shale.depth);
}

/* A gradient mesh: a grid of triangles with a colour per vertex. */
static uint32_t
make_gradient(struct draw_vertex *v)
{
   uint32_t n = 0;
   const int g = 6;
   for (int j = 0; j < g; j++)
      for (int i = 0; i < g; i++) {
         float x0 = -1.0f + 2.0f * i / g, x1 = -1.0f + 2.0f * (i + 1) / g;
         float y0 = -1.0f + 2.0f * j / g, y1 = -1.0f + 2.0f * (j + 1) / g;
         float xs[6] = { x0, x1, x0, x1, x1, x0 }, ys[6] = { y0, y0, y1, y0, y1, y1 };
         for (int k = 0; k < 6; k++) {
            struct draw_vertex *p = &v[n * 3 + k];
            p->pos[0] = xs[k];
            p->pos[1] = ys[k];
            p->pos[2] = 0.5f;
            /* Different w per vertex: perspective-correct interpolation matters. */
            p->pos[3] = 1.0f + 0.5f * (float)((i + j + k) % 3);
            p->pos[0] *= p->pos[3];
            p->pos[1] *= p->pos[3];
            p->pos[2] *= p->pos[3];
            p->color[0] = (xs[k] + 1.0f) * 0.5f;
            p->color[1] = (ys[k] + 1.0f) * 0.5f;
            p->color[2] = (float)((i * 7 + j * 3 + k) % 5) / 4.0f;
            p->color[3] = 1.0f;
         }
         n += 2;
      }
   return n;
}

static void
test_smooth(void)
{
   static struct draw_vertex v[6 * 6 * 6];
   uint32_t n = make_gradient(v);
   struct scene_result shale, lvp;
   if (!draw_scene(VKT_SHALE, v, n, true, false, &shale)) {
      CHECK(false, "Shale drew the gradient");
      return;
   }
   if (draw_scene(VKT_LAVAPIPE, v, n, true, false, &lvp)) {
      unsigned bad = 0, maxd = 0;
      for (int i = 0; i < W * H; i++)
         for (int c = 0; c < 4; c++) {
            int a = (shale.color[i] >> (8 * c)) & 0xff, b = (lvp.color[i] >> (8 * c)) & 0xff;
            unsigned d = (unsigned)abs(a - b);
            maxd = d > maxd ? d : maxd;
            if (d > 1 && bad++ < 8)
               fprintf(stderr, "gradient: pixel %d channel %d: %d, lavapipe %d\n", i, c, a, b);
         }
      printf("gradient vs lavapipe: largest difference %u/255\n", maxd);
      CHECK_EQ_INT(bad, 0);
      free(lvp.color);
   }
   free(shale.color);
}

/* The scene the thread test compares: depth, smooth colours, many tiles. */
static bool
thread_scene(struct scene_result *out)
{
   static struct draw_vertex v[NTRI * 3 + 6 * 6 * 6];
   rng = 12345;
   make_triangles(v, NTRI, true);
   uint32_t n = make_gradient(v + NTRI * 3);
   return draw_scene(VKT_SHALE, v, NTRI + n, true, true, out);
}

static void
test_threads(const char *self)
{
   static uint32_t images[3][W * H];
   draw_thread_runs(self, "image", sizeof(images[0]), images);
}

int
main(int argc, char **argv)
{
   if (argc == 3 && !strcmp(argv[1], "--dump")) {
      struct scene_result r;
      if (!thread_scene(&r))
         return 1;
      FILE *f = fopen(argv[2], "wb");
      if (!f || fwrite(r.color, 4, (size_t)W * H, f) != (size_t)W * H)
         return 1;
      fclose(f);
      free(r.color);
      free(r.depth);
      return vkt_validation_messages() ? 1 : 0;
   }
   test_coverage();
   test_depth();
   test_render_areas();
   test_smooth();
   test_threads(argv[0]);
   return draw_finish();
}
