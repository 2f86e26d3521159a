/* Layered rendering from a geometry shader: Layer written per invocation
 * (Invocations 2: invocation i into layer i of a two-layer colour
 * attachment, at a shift of its own); both layers read back and compared
 * exactly with a CPU reference, on Shale at SHALE_THREADS 1 and 4 and on
 * lavapipe. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "geom_frag_spv.h"
#include "geom_layer_geom_spv.h"
#include "geom_vert_spv.h"

#define W 64
#define H 64
#define LAYERS 2
#define NP 3

struct vtx {
   float pos[4];
   float color[4];
};

static const int pts[NP][4] = {{12, 14, 6, 20}, {40, 40, 9, -16}, {30, 22, 4, 12}};
static uint32_t ref[LAYERS][W * H];
static struct vtx verts[NP];

static void
build_reference(void)
{
   memset(ref, 0, sizeof(ref));
   for (int p = 0; p < NP; p++) {
      float r = 0.2f * (float)(p + 1), g = 1.0f - 0.2f * (float)p;
      verts[p] = (struct vtx){{pts[p][0] / 32.0f - 1.0f, pts[p][1] / 32.0f - 1.0f, pts[p][2] / 32.0f,
                               pts[p][3] / 32.0f},
                              {r, g, 0, 1}};
      for (int l = 0; l < LAYERS; l++) {
         const float c[4] = {r, g, (float)(l + 1) * 0.25f, 1};
         uint32_t px = draw_pack_rgba8(c);
         int cx = pts[p][0] + l * pts[p][3], cy = pts[p][1], h = pts[p][2];
         for (int y = cy - h; y < cy + h; y++)
            for (int x = cx - h; x < cx + h; x++)
               if (x >= 0 && x < W && y >= 0 && y < H)
                  ref[l][y * W + x] = px;
      }
   }
}

static void
run_driver(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   struct vkt probe;
   if (!draw_probe(which, &probe)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(probe.pdev, &have);
   vkt_finish(&probe);
   const char *dn = vkt_driver_name(which);
   CHECK(have.geometryShader, "%s: geometryShader", dn);
   if (!have.geometryShader)
      return;
   VkPhysicalDeviceFeatures feats = {.geometryShader = VK_TRUE};
   struct vkt_options o = {.driver = which, .features = &feats};
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(0, "%s: device", dn);
      return;
   }
   /* A two-layer attachment, its view, pass and framebuffer. */
   struct vkt_image img = {0};
   VkImageView view = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkResult r = draw_layered_color_target(&t, VK_FORMAT_R8G8B8A8_UNORM, W, H, LAYERS, &img, &view,
                                          &rp, &fb);
   CHECK(r == VK_SUCCESS, "%s: layered attachment: %d", dn, r);
   VkShaderModule vs = VK_NULL_HANDLE, gs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
   VkPipelineLayout layout = VK_NULL_HANDLE;
   VkPipeline pipe = VK_NULL_HANDLE;
   struct vkt_buffer vb = {0}, rb = {0};
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_vert_spv, sizeof(geom_vert_spv), &vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_layer_geom_spv, sizeof(geom_layer_geom_spv), &gs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_frag_spv, sizeof(geom_frag_spv), &fs);
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &layout);
   if (r == VK_SUCCESS) {
      const VkViewport vp = {0, 0, W, H, 0, 1};
      const VkRect2D sc = {{0, 0}, {W, H}};
      struct draw_pipeline_info pi = {
         .stride = sizeof(struct vtx), .attrib_count = 2,
         .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
         .attrib_offset = {0, 16}, .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
         .cull_mode = VK_CULL_MODE_NONE, .polygon_mode = VK_POLYGON_MODE_FILL,
         .viewport = &vp, .scissor = &sc, .render_pass = rp, .color_count = 1,
      };
      struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, NULL, &pi, vs, fs, layout);
      r = draw_pipeline_create_geometry(&t, &st, gs, &pipe);
      CHECK(r == VK_SUCCESS, "%s: pipeline: %d", dn, r);
   }
   if (r == VK_SUCCESS)
      r = draw_upload(&t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, (VkDeviceSize)LAYERS * W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb);
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = vkt_begin(&t);
      draw_begin_pass_cleared(cb, rp, fb, W, H);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
      VkDeviceSize off = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &off);
      vkCmdDraw(cb, NP, 1, 0, 0);
      vkCmdEndRenderPass(cb);
      const VkBufferImageCopy region = {
         .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, LAYERS},
         .imageExtent = {W, H, 1},
      };
      vkCmdCopyImageToBuffer(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1,
                             &region);
      draw_host_barrier(cb);
      r = vkt_submit_wait(&t, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   }
   if (r == VK_SUCCESS) {
      const uint32_t *got = rb.map;
      for (int l = 0; l < LAYERS; l++) {
         char what[16];
         snprintf(what, sizeof(what), "layer %d", l);
         draw_compare_image(dn, threads, what, got + l * W * H, ref[l], NULL, W, H, 201);
      }
   }
   if (rb.buffer)
      vkt_buffer_destroy(&t, &rb);
   if (vb.buffer)
      vkt_buffer_destroy(&t, &vb);
   vkDestroyPipeline(t.device, pipe, NULL);
   vkDestroyPipelineLayout(t.device, layout, NULL);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, gs, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   draw_color_target_destroy(&t, &img, view, rp, fb);
   vkt_finish(&t);
}

int
main(void)
{
   build_reference();
   return draw_run_threads_and_lavapipe(run_driver);
}
