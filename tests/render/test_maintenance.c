/* Vulkan 1.1's maintenance behaviour in the rasterizer, through the loader
 * with the validation layer:
 *  - maintenance1: a negative viewport height (y = H, height = -H) flips
 *    the picture vertically: every pixel equals the pixel of the mirrored
 *    row drawn with the ordinary viewport;
 *  - maintenance2, pointClippingBehavior ALL_CLIP_PLANES: an 8-pixel point
 *    whose centre is one pixel left of the target is clipped whole (its
 *    square would reach 3 columns in), one whose centre is inside draws
 *    its 6x8 visible part. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"
#include "rs_vert_spv.h"

#define S 32

static uint32_t
texel(const struct draw_target *dt, uint32_t x, uint32_t y)
{
   uint32_t v;
   memcpy(&v, (const uint8_t *)dt->readback.map + ((size_t)y * S + x) * 4, 4);
   return v;
}

static void
test_negative_viewport(struct vkt *t)
{
   const float tri[3][8] = {
      { -0.8f, -0.8f, 0.5f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f },
      { 0.6f, -0.6f, 0.5f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f },
      { -0.4f, 0.2f, 0.5f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f },
   };
   struct vkt_buffer vb;
   CHECK_EQ_INT(draw_upload(t, tri, sizeof(tri), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb),
                VK_SUCCESS);
   uint32_t img[2][S * S];
   for (int flip = 0; flip < 2; flip++) {
      struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = S, .height = S };
      CHECK_EQ_INT(draw_target_create(t, &dt), VK_SUCCESS);
      const VkViewport vp = { 0, flip ? (float)S : 0.0f, S, flip ? -(float)S : (float)S, 0, 1 };
      struct draw_pipeline_info pi = {
         .vs = pos_color_vert_spv, .vs_size = sizeof(pos_color_vert_spv),
         .fs = flat_color_frag_spv, .fs_size = sizeof(flat_color_frag_spv),
         .stride = 32, .attrib_count = 2,
         .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
         .attrib_offset = { 0, 16 },
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .viewport = &vp,
      };
      struct draw_pipeline p;
      CHECK_EQ_INT(draw_pipeline_create(t, &dt, &pi, &p), VK_SUCCESS);
      VkCommandBuffer cb = draw_begin(t, &dt, &p, vb.buffer);
      vkCmdDraw(cb, 3, 1, 0, 0);
      CHECK_EQ_INT(draw_end(t, &dt, cb), VK_SUCCESS);
      for (uint32_t y = 0; y < S; y++)
         for (uint32_t x = 0; x < S; x++)
            img[flip][y * S + x] = texel(&dt, x, y);
      draw_pipeline_destroy(t, &p);
      draw_target_destroy(t, &dt);
   }
   unsigned lit = 0, asym = 0, bad = 0;
   for (uint32_t y = 0; y < S; y++) {
      for (uint32_t x = 0; x < S; x++) {
         const uint32_t a = img[0][y * S + x], m = img[0][(S - 1 - y) * S + x];
         lit += a != 0;
         asym += a != m;
         if (img[1][y * S + x] != m && bad++ < 4)
            fprintf(stderr, "negative height: (%u, %u) is %#x, mirrored row %#x\n", x, y,
                    img[1][y * S + x], m);
      }
   }
   CHECK(lit > 50 && asym > 50, "the triangle covers %u pixels, %u off its mirror", lit, asym);
   CHECK(bad == 0, "negative viewport height: %u pixels are not the mirrored picture", bad);
   vkt_buffer_destroy(t, &vb);
}

static void
test_point_clipping(struct vkt *t)
{
   /* pos, colour, per-vertex offset (zero); centres at pixels (-1, 24)
    * (outside) and (2, 8) (inside), in NDC of a 32x32 target. */
   const float pts[2][12] = {
      { -1.0f / 16 - 1, 24.0f / 16 - 1, 0.5f, 1, 0, 1, 0, 1, 0, 0, 0, 0 },
      { 2.0f / 16 - 1, 8.0f / 16 - 1, 0.5f, 1, 0, 1, 0, 1, 0, 0, 0, 0 },
   };
   struct vkt_buffer vb;
   CHECK_EQ_INT(draw_upload(t, pts, sizeof(pts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb),
                VK_SUCCESS);
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = S, .height = S };
   CHECK_EQ_INT(draw_target_create(t, &dt), VK_SUCCESS);
   struct draw_pipeline_info pi = {
      .vs = rs_vert_spv, .vs_size = sizeof(rs_vert_spv),
      .fs = flat_color_frag_spv, .fs_size = sizeof(flat_color_frag_spv),
      .stride = 48, .attrib_count = 3,
      .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
                         VK_FORMAT_R32G32B32A32_SFLOAT },
      .attrib_offset = { 0, 16, 32 },
      .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
      .push_size = 8,
   };
   struct draw_pipeline p;
   CHECK_EQ_INT(draw_pipeline_create(t, &dt, &pi, &p), VK_SUCCESS);
   VkCommandBuffer cb = draw_begin(t, &dt, &p, vb.buffer);
   const float push[2] = { 8.0f, 0.0f };
   vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                      sizeof(push), push);
   vkCmdDraw(cb, 2, 1, 0, 0);
   CHECK_EQ_INT(draw_end(t, &dt, cb), VK_SUCCESS);
   unsigned bad = 0;
   for (uint32_t y = 0; y < S; y++) {
      for (uint32_t x = 0; x < S; x++) {
         const bool in = x < 6 && y >= 4 && y < 12;   /* the inside point's square */
         const uint32_t v = texel(&dt, x, y);
         if ((in ? v != 0xff00ff00u : v != 0) && bad++ < 4)
            fprintf(stderr, "points: (%u, %u) is %#x, expected %#x\n", x, y, v,
                    in ? 0xff00ff00u : 0);
      }
   }
   CHECK(bad == 0, "point clipping: %u pixels differ (the outside point must be clipped whole)",
         bad);
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
   vkt_buffer_destroy(t, &vb);
}

int
main(void)
{
   struct vkt t;
   VkPhysicalDeviceFeatures f = { .largePoints = VK_TRUE };
   struct vkt_options opts = {
      .driver = VKT_SHALE, .api_version = VK_API_VERSION_1_1, .features = &f,
   };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return check_finish();
   }
   VkPhysicalDevicePointClippingProperties pc = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES,
   };
   VkPhysicalDeviceProperties2 p2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &pc };
   vkGetPhysicalDeviceProperties2(t.pdev, &p2);
   CHECK(pc.pointClippingBehavior == VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES,
         "pointClippingBehavior %d", pc.pointClippingBehavior);
   test_negative_viewport(&t);
   test_point_clipping(&t);
   vkt_finish(&t);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
