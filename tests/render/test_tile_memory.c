/* Store ops and the rasterizer's tile memory, through the loader with the
 * validation layer. */
/*
 * Shale keeps a tile's pixels of an attachment in the worker's tile
 * memory when the tile clears it whole before its first primitive: for a
 * depth attachment with storeOp DONT_CARE (never written back, vkcube's
 * depth) and for stored attachments (written back at the tile's end,
 * vkcube's colour). On a 200 x 150 target (tiles cut at the right and
 * bottom edges), R8G8B8A8 colour and D16 depth, rectangles of whole
 * pixels (two triangles each, random integer edges), each of one depth
 * (1/8 .. 7/8 but 1/2: no D16 halfway rounding) and one flat colour,
 * drawn with LESS (written):
 *   DONT_CARE: colour CLEAR / STORE, depth CLEAR / DONT_CARE, set A drawn:
 *     the colour is the reference's (the depth read back is not looked at);
 *   STORE: the same with depth CLEAR / STORE: colour and depth (every D16
 *     texel) are the reference's, so the DONT_CARE pass's colour is
 *     bit-identical to the STORE pass's and the stored depth is there;
 *   LOAD: a second render pass after STORE with colour and depth LOAD /
 *     STORE draws set B over them: the colour and depth are the
 *     reference's for A then B (the stored depth is what B tests against).
 * A CPU reference runs the depth test pixel by pixel in primitive order;
 * everything is compared exactly. Runs: Shale at SHALE_THREADS 1, 2 and 4,
 * and lavapipe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"

#define W 200
#define H 150
#define NA 36
#define NB 12
#define NRECT (NA + NB)

struct rect {
   int x0, y0, x1, y1;   /* pixels [x0, x1) x [y0, y1) */
   float z;
   uint32_t color;
};

static void
make_rects(struct rect *r, uint64_t seed)
{
   static const float zs[6] = { 0.125f, 0.25f, 0.375f, 0.625f, 0.75f, 0.875f };
   for (int i = 0; i < NRECT; i++) {
      const int w = 4 + (int)(draw_rand_u32(&seed) % 90);
      const int h = 4 + (int)(draw_rand_u32(&seed) % 70);
      r[i].x0 = (int)(draw_rand_u32(&seed) % (W - w + 1));
      r[i].y0 = (int)(draw_rand_u32(&seed) % (H - h + 1));
      r[i].x1 = r[i].x0 + w;
      r[i].y1 = r[i].y0 + h;
      r[i].z = zs[draw_rand_u32(&seed) % 6];
      r[i].color = (draw_rand_u32(&seed) & 0xffffffu) | 0xffu << 24;
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

/* D16 of a depth that is no halfway case: round to nearest. */
static uint16_t
d16(float z)
{
   return (uint16_t)(z * 65535.0f + 0.5f);
}

struct reference {
   uint32_t color[W * H];
   uint16_t depth[W * H];
};

/* Rectangles [first, first + n) drawn over ref (LESS, written). */
static void
reference_draw(const struct rect *r, int first, int n, struct reference *ref)
{
   for (int i = first; i < first + n; i++)
      for (int y = r[i].y0; y < r[i].y1; y++)
         for (int x = r[i].x0; x < r[i].x1; x++) {
            const int p = y * W + x;
            if (d16(r[i].z) < ref->depth[p]) {
               ref->depth[p] = d16(r[i].z);
               ref->color[p] = r[i].color;
            }
         }
}

/* A render pass compatible with dt's (same formats, one subpass): colour
 * and depth with these load and store ops, from and to
 * TRANSFER_SRC_OPTIMAL after a LOAD (else from UNDEFINED). */
static VkResult
make_pass(struct vkt *t, VkAttachmentLoadOp load, VkAttachmentStoreOp depth_store,
          VkRenderPass *out)
{
   const VkImageLayout initial =
      load == VK_ATTACHMENT_LOAD_OP_LOAD ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                                         : VK_IMAGE_LAYOUT_UNDEFINED;
   const VkAttachmentDescription att[2] = {
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, load, VK_ATTACHMENT_STORE_OP_STORE,
        VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, initial,
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { 0, VK_FORMAT_D16_UNORM, VK_SAMPLE_COUNT_1_BIT, load, depth_store,
        VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE, initial,
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
   };
   const VkAttachmentReference color_ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference depth_ref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &color_ref,
      .pDepthStencilAttachment = &depth_ref,
   };
   /* The pass's writes before the copies after it: draw_target_create's
    * dependency (compatible passes have the same ones). */
   const VkSubpassDependency dep = {
      0, VK_SUBPASS_EXTERNAL,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
      VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      VK_ACCESS_TRANSFER_READ_BIT, 0,
   };
   const VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2, .pAttachments = att,
      .subpassCount = 1, .pSubpasses = &sub,
      .dependencyCount = 1, .pDependencies = &dep,
   };
   return vkCreateRenderPass(t->device, &rpci, NULL, out);
}

/* One render pass instance of rp on dt's framebuffer drawing rectangles
 * [first, first + n), then dt's read-back of colour and depth. */
static VkResult
draw_pass(struct vkt *t, struct draw_target *dt, VkRenderPass rp, const struct draw_pipeline *p,
          const struct vkt_buffer *vb, int first, int n)
{
   VkCommandBuffer cb = vkt_begin(t);
   /* The earlier read-back's copies before this pass's loads and writes. */
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                           VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
                        0, 0, NULL, 0, NULL, 0, NULL);
   const VkClearValue clears[2] = { { .color = { { 0.2f, 0.2f, 0.2f, 0.2f } } },
                                    { .depthStencil = { 1.0f, 0 } } };
   const VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp, .framebuffer = dt->framebuffer,
      .renderArea = { { 0, 0 }, { W, H } }, .clearValueCount = 2, .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   const VkDeviceSize zero = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &vb->buffer, &zero);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
   vkCmdDraw(cb, (uint32_t)n * 6, 1, (uint32_t)first * 6, 0);
   return draw_end(t, dt, cb);
}

/* The read-back against the reference: colour always, depth if asked.
 * threads: SHALE_THREADS's value, NULL for lavapipe. */
static void
compare(const char *dn, const char *threads, const char *what, const struct draw_target *dt,
        const struct reference *ref, bool depth)
{
   const uint8_t *rb = dt->readback.map;
   draw_compare_image(dn, threads, what, (const uint32_t *)rb, ref->color, NULL, W, H,
                      W * H / 3);
   if (!depth)
      return;
   unsigned bad = 0;
   for (int i = 0; i < W * H; i++) {
      uint16_t z;
      memcpy(&z, rb + (size_t)W * H * 4 + (size_t)i * 2, 2);
      bad += z != ref->depth[i];
   }
   CHECK(bad == 0, "%s (SHALE_THREADS %s): %s: %u of %d depth texels unlike the reference", dn,
         threads ? threads : "-", what, bad, W * H);
}

static void
run(enum vkt_driver which, const char *threads)
{
   const char *tn = threads ? threads : "-";
   const char *dn = vkt_driver_name(which);
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = which })) {
      CHECK(which == VKT_LAVAPIPE, "Shale device");
      return;
   }
   struct rect rects[NRECT];
   make_rects(rects, 0x711e3u);
   static struct reference ref_a, ref_ab;
   for (int i = 0; i < W * H; i++) {
      ref_a.color[i] = 0x33333333u;   /* 0.2 in every channel */
      ref_a.depth[i] = 0xffff;
   }
   reference_draw(rects, 0, NA, &ref_a);
   ref_ab = ref_a;
   reference_draw(rects, NA, NB, &ref_ab);
   static struct draw_vertex verts[NRECT * 6];
   for (int i = 0; i < NRECT; i++)
      rect_vertices(&rects[i], &verts[i * 6]);

   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM,
                             .depth_format = VK_FORMAT_D16_UNORM, .width = W, .height = H,
                             .clear_depth = 1.0f };
   struct draw_pipeline p = { 0 };
   struct vkt_buffer vb = { 0 };
   VkRenderPass dont_care = VK_NULL_HANDLE, store = VK_NULL_HANDLE, load = VK_NULL_HANDLE;
   const VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS,
   };
   bool ok = draw_target_create(&t, &dt) == VK_SUCCESS &&
             draw_upload(&t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) ==
                VK_SUCCESS &&
             make_pass(&t, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_DONT_CARE,
                       &dont_care) == VK_SUCCESS &&
             make_pass(&t, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE, &store) ==
                VK_SUCCESS &&
             make_pass(&t, VK_ATTACHMENT_LOAD_OP_LOAD, VK_ATTACHMENT_STORE_OP_STORE, &load) ==
                VK_SUCCESS;
   if (ok) {
      struct draw_pipeline_info pi;
      draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                       sizeof(flat_color_frag_spv));
      pi.cull_mode = VK_CULL_MODE_NONE;
      pi.depth_stencil = &ds;
      ok = draw_pipeline_create(&t, &dt, &pi, &p) == VK_SUCCESS;
   }
   CHECK(ok, "%s (SHALE_THREADS %s): target, buffer, render passes and pipeline", dn, tn);
   if (ok) {
      VkResult r = draw_pass(&t, &dt, dont_care, &p, &vb, 0, NA);
      CHECK(r == VK_SUCCESS, "%s (SHALE_THREADS %s): DONT_CARE pass: %d", dn, tn, r);
      if (r == VK_SUCCESS)
         compare(dn, threads, "depth DONT_CARE: colour", &dt, &ref_a, false);
      r = draw_pass(&t, &dt, store, &p, &vb, 0, NA);
      CHECK(r == VK_SUCCESS, "%s (SHALE_THREADS %s): STORE pass: %d", dn, tn, r);
      if (r == VK_SUCCESS)
         compare(dn, threads, "depth STORE: colour", &dt, &ref_a, true);
      r = r == VK_SUCCESS ? draw_pass(&t, &dt, load, &p, &vb, NA, NB) : r;
      CHECK(r == VK_SUCCESS, "%s (SHALE_THREADS %s): LOAD pass: %d", dn, tn, r);
      if (r == VK_SUCCESS)
         compare(dn, threads, "LOAD after STORE: colour", &dt, &ref_ab, true);
   }
   vkDestroyRenderPass(t.device, load, NULL);
   vkDestroyRenderPass(t.device, store, NULL);
   vkDestroyRenderPass(t.device, dont_care, NULL);
   vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &p);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   static const char *const threads[3] = { "1", "2", "4" };
   for (int i = 0; i < 3; i++) {
      setenv("SHALE_THREADS", threads[i], 1);
      run(VKT_SHALE, threads[i]);
   }
   unsetenv("SHALE_THREADS");
   run(VKT_LAVAPIPE, NULL);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
