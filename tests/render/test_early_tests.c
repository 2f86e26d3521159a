/* Early depth/stencil tests on partly covered 4x4 blocks, through the
 * loader with the validation layer: the tile loop's early tests with the
 * compiled depth/stencil routine (sr_tile.c block_early_tests), whose
 * returned count of passing samples decides, for a single-sample block,
 * whether the block's coverage masks are read back (some sample failed) or
 * kept as they were (every covered pixel passed: 0248837's shortcut for
 * partly covered blocks, 6a53298's for full ones), and adds to the
 * occlusion query.
 *
 * Rectangles of whole pixels (two triangles each, edges at random integer
 * pixel coordinates, so they cut 4x4 blocks anywhere and the shared
 * diagonal splits blocks again), each of one depth and one flat colour
 * (flat_color.frag: no side effects, so the tests run early), on a 96 x 64
 * R8G8B8A8 target:
 *   A, D32_SFLOAT: occluders at depths 1/4, 1/2, 3/4 (LESS, written), then
 *     inside a PRECISE occlusion query rectangles at depths 1/8 .. 7/8
 *     that overlap them and each other (LESS, written);
 *   B, D32_SFLOAT_S8_UINT: occluders also write stencil 1 (ALWAYS,
 *     REPLACE) with depth, and the queried rectangles test stencil EQUAL 0
 *     with INCREMENT_AND_CLAMP on pass, so a pixel passes its stencil test
 *     once at most: a rectangle's later neighbours fail where it drew.
 * A CPU reference runs the same tests pixel by pixel in primitive order;
 * colour, depth (exact floats), stencil and the query's count are compared
 * exactly. The reference also classifies every partly covered block of
 * every queried rectangle (its pixels in one 4x4 block, fewer than 16) by
 * how many passed: all, some or none; each class must occur at least 20
 * times, so the shortcut, the read-back and the rejected blocks all run.
 * Runs: Shale at SHALE_THREADS 1 and 4 with the compiled routines (the
 * default), Shale with the C back end (SHALE_FRAGMENT_BACKEND=c: the C
 * early tests), and lavapipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"

#define W 96
#define H 64
#define NOCC 12
#define NTEST 28
#define NRECT (NOCC + NTEST)

struct rect {
   int x0, y0, x1, y1;   /* pixels [x0, x1) x [y0, y1) */
   float z;
   uint32_t color;
};

static void
make_rects(struct rect *r, uint64_t seed)
{
   static const float zo[3] = { 0.25f, 0.5f, 0.75f };
   static const float zt[5] = { 0.375f, 0.5f, 0.625f, 0.875f, 0.125f };
   for (int i = 0; i < NRECT; i++) {
      const bool occ = i < NOCC;
      const int w = 3 + (int)(draw_rand_u32(&seed) % (occ ? 30 : 40));
      const int h = 3 + (int)(draw_rand_u32(&seed) % (occ ? 22 : 30));
      r[i].x0 = (int)(draw_rand_u32(&seed) % (W - w + 1));
      r[i].y0 = (int)(draw_rand_u32(&seed) % (H - h + 1));
      r[i].x1 = r[i].x0 + w;
      r[i].y1 = r[i].y0 + h;
      r[i].z = occ ? zo[i % 3] : zt[i % 5];
      r[i].color = (uint32_t)(i * 6 + 7) | (uint32_t)(250 - i * 5) << 8 |
                   (occ ? 40u : 200u) << 16 | 0xffu << 24;
   }
}

static void
rect_vertices(const struct rect *r, struct draw_vertex *v)
{
   const float x0 = 2.0f * (float)r->x0 / W - 1, x1 = 2.0f * (float)r->x1 / W - 1;
   const float y0 = 2.0f * (float)r->y0 / H - 1, y1 = 2.0f * (float)r->y1 / H - 1;
   const float c[6][2] = { { x0, y0 }, { x1, y0 }, { x0, y1 }, { x1, y0 }, { x1, y1 }, { x0, y1 } };
   for (int k = 0; k < 6; k++) {
      v[k].pos[0] = c[k][0];
      v[k].pos[1] = c[k][1];
      v[k].pos[2] = r->z;
      v[k].pos[3] = 1;
      for (int ch = 0; ch < 4; ch++)
         v[k].color[ch] = (float)(r->color >> (8 * ch) & 0xff) / 255.0f;
   }
}

/* The reference: colour, depth and stencil after the occluders and the
 * queried rectangles, the query's count, and the classes of the queried
 * rectangles' partly covered blocks (all, some, none passed). */
struct reference {
   uint32_t color[W * H];
   float depth[W * H];
   uint8_t stencil[W * H];
   uint64_t passed;
   unsigned classes[3];
};

static void
reference(const struct rect *r, bool stencil, struct reference *ref)
{
   memset(ref, 0, sizeof(*ref));
   for (int i = 0; i < W * H; i++)
      ref->depth[i] = 1.0f;
   for (int i = 0; i < NRECT; i++) {
      const bool occ = i < NOCC;
      /* Passed pixels of each 4x4 block (16 x 16 blocks at most). */
      int cov[16][24], pass[16][24];
      memset(cov, 0, sizeof(cov));
      memset(pass, 0, sizeof(pass));
      for (int y = r[i].y0; y < r[i].y1; y++)
         for (int x = r[i].x0; x < r[i].x1; x++) {
            const int p = y * W + x;
            bool ok = r[i].z < ref->depth[p];
            if (!occ && stencil)
               ok = ok && ref->stencil[p] == 0;
            cov[y / 4][x / 4]++;
            if (!ok)
               continue;
            pass[y / 4][x / 4]++;
            ref->depth[p] = r[i].z;
            ref->color[p] = r[i].color;
            if (stencil)
               ref->stencil[p] = occ ? 1 : (uint8_t)(ref->stencil[p] + 1);
            ref->passed += !occ;
         }
      for (int by = 0; by < H / 4 && !occ; by++)
         for (int bx = 0; bx < W / 4; bx++)
            if (cov[by][bx] && cov[by][bx] < 16)
               ref->classes[pass[by][bx] == cov[by][bx] ? 0 : pass[by][bx] ? 1 : 2]++;
   }
}

static void
run_variant(enum vkt_driver which, const char *what, bool stencil)
{
   const char *dn = vkt_driver_name(which);
   static const VkPhysicalDeviceFeatures features = { .occlusionQueryPrecise = VK_TRUE };
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = which, .features = &features })) {
      CHECK(which == VKT_LAVAPIPE, "Shale device");
      return;
   }
   struct rect rects[NRECT];
   make_rects(rects, stencil ? 0x5eed2u : 0x5eed1u);
   static struct reference ref;
   reference(rects, stencil, &ref);
   static struct draw_vertex verts[NRECT * 6];
   for (int i = 0; i < NRECT; i++)
      rect_vertices(&rects[i], &verts[i * 6]);

   const VkFormat dsf = stencil ? VK_FORMAT_D32_SFLOAT_S8_UINT : VK_FORMAT_D32_SFLOAT;
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .depth_format = dsf,
                             .width = W, .height = H, .clear_depth = 1.0f };
   struct draw_pipeline occ = { 0 }, tst = { 0 };
   struct vkt_buffer vb = { 0 };
   VkQueryPool pool = VK_NULL_HANDLE;
   const VkStencilOpState s_occ = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_REPLACE, VK_STENCIL_OP_KEEP,
                                    VK_COMPARE_OP_ALWAYS, 0xff, 0xff, 1 };
   const VkStencilOpState s_tst = { VK_STENCIL_OP_KEEP, VK_STENCIL_OP_INCREMENT_AND_CLAMP,
                                    VK_STENCIL_OP_KEEP, VK_COMPARE_OP_EQUAL, 0xff, 0xff, 0 };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS, .stencilTestEnable = stencil,
      .front = s_occ, .back = s_occ,
   };
   const VkQueryPoolCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_OCCLUSION, .queryCount = 1,
   };
   bool ok = draw_target_create(&t, &dt) == VK_SUCCESS &&
             draw_upload(&t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) ==
                VK_SUCCESS &&
             vkCreateQueryPool(t.device, &qci, NULL, &pool) == VK_SUCCESS;
   if (ok) {
      struct draw_pipeline_info pi;
      draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                       sizeof(flat_color_frag_spv));
      pi.cull_mode = VK_CULL_MODE_NONE;
      pi.depth_stencil = &ds;
      ok = draw_pipeline_create(&t, &dt, &pi, &occ) == VK_SUCCESS;
      ds.front = ds.back = s_tst;
      ok = ok && draw_pipeline_create(&t, &dt, &pi, &tst) == VK_SUCCESS;
   }
   CHECK(ok, "%s: %s: target, buffer, query pool and pipelines", dn, what);
   if (ok) {
      VkCommandBuffer cb = vkt_begin(&t);
      vkCmdResetQueryPool(cb, pool, 0, 1);
      const VkClearValue clears[2] = { { .color = { { 0, 0, 0, 0 } } },
                                       { .depthStencil = { 1.0f, 0 } } };
      const VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = dt.render_pass, .framebuffer = dt.framebuffer,
         .renderArea = { { 0, 0 }, { W, H } }, .clearValueCount = 2, .pClearValues = clears,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      const VkDeviceSize zero = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &zero);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, occ.pipeline);
      vkCmdDraw(cb, NOCC * 6, 1, 0, 0);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, tst.pipeline);
      vkCmdBeginQuery(cb, pool, 0, VK_QUERY_CONTROL_PRECISE_BIT);
      vkCmdDraw(cb, NTEST * 6, 1, NOCC * 6, 0);
      vkCmdEndQuery(cb, pool, 0);
      VkResult r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: draws: %d", dn, what, r);
      uint64_t passed = 0;
      VkResult qr = vkGetQueryPoolResults(t.device, pool, 0, 1, sizeof(passed), &passed,
                                          sizeof(passed),
                                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      CHECK(qr == VK_SUCCESS && passed == ref.passed, "%s: %s: the query counted %llu samples, "
            "the reference %llu (%d)", dn, what, (unsigned long long)passed,
            (unsigned long long)ref.passed, qr);
      if (r == VK_SUCCESS) {
         const uint8_t *rb = dt.readback.map;
         char name[96];
         snprintf(name, sizeof(name), "%s: colour", what);
         draw_compare_image(dn, NULL, name, (const uint32_t *)rb, ref.color, NULL, W, H,
                            W * H / 3);
         const float *depth = (const float *)(rb + W * H * 4);
         unsigned bad_z = 0, bad_s = 0;
         for (int i = 0; i < W * H; i++)
            bad_z += memcmp(&depth[i], &ref.depth[i], 4) != 0;
         if (stencil) {
            const uint8_t *st = rb + W * H * 4 + W * H * dt.depth_texel;
            for (int i = 0; i < W * H; i++)
               bad_s += st[i] != ref.stencil[i];
         }
         CHECK(bad_z == 0 && bad_s == 0, "%s: %s: %u depth and %u stencil texels differ", dn,
               what, bad_z, bad_s);
      }
   }
   if (pool)
      vkDestroyQueryPool(t.device, pool, NULL);
   vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &tst);
   draw_pipeline_destroy(&t, &occ);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

static void
run(enum vkt_driver which, const char *what)
{
   run_variant(which, what, false);
   run_variant(which, what, true);
}

int
main(void)
{
   /* The reference's blocks: every class of partly covered block occurs. */
   for (int v = 0; v < 2; v++) {
      struct rect rects[NRECT];
      make_rects(rects, v ? 0x5eed2u : 0x5eed1u);
      static struct reference ref;
      reference(rects, v, &ref);
      CHECK(ref.classes[0] >= 20 && ref.classes[1] >= 20 && ref.classes[2] >= 20,
            "variant %c: partly covered blocks all passed %u, some %u, none %u", 'A' + v,
            ref.classes[0], ref.classes[1], ref.classes[2]);
      printf("variant %c: partly covered blocks: all passed %u, some %u, none %u; %llu samples "
             "passed\n", 'A' + v, ref.classes[0], ref.classes[1], ref.classes[2],
             (unsigned long long)ref.passed);
   }
   setenv("SHALE_THREADS", "1", 1);
   run(VKT_SHALE, "compiled, SHALE_THREADS 1");
   setenv("SHALE_THREADS", "4", 1);
   run(VKT_SHALE, "compiled, SHALE_THREADS 4");
   setenv("SHALE_FRAGMENT_BACKEND", "c", 1);
   run(VKT_SHALE, "C back end, SHALE_THREADS 4");
   unsetenv("SHALE_FRAGMENT_BACKEND");
   unsetenv("SHALE_THREADS");
   run(VKT_LAVAPIPE, "lavapipe");
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
