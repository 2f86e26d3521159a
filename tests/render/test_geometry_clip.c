/* A geometry shader reading clip and cull distances through gl_in[]
 * (gl_in[i].gl_ClipDistance / gl_CullDistance), through the loader with
 * the validation layer: dist.vert writes ClipDistance[2] (x - 10.25 and
 * 24.25 - y, in pixels) and CullDistance[1] (the vertex's z: -1 on the
 * culled rectangle, 1 elsewhere), dist.geom passes every triangle on with
 * the distances it read. The vertex shader packs its cull distance after
 * its two clip distances, so the geometry shader finds it only where its
 * compile was told so (sc_compile_info.gs_in_clip_distances); a wrong
 * place would read a clip distance instead and draw the culled rectangle.
 * Two rectangles of a 32x32 target, edges and clip lines a quarter pixel
 * off the grid: every pixel compared exactly with a CPU reference on Shale
 * (SHALE_THREADS 1 and 4) and lavapipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "geom_dist_geom_spv.h"
#include "geom_dist_vert_spv.h"

#define SIZE 32

/* (x0, y0, x1, y1, cull) of each rectangle, in pixels. */
static const float rects[2][5] = {
   { 2.25f, 2.25f, 15.25f, 29.25f, 1.0f },   /* clipped at x 10.25 and y 24.25 */
   { 17.25f, 2.25f, 30.25f, 29.25f, -1.0f }, /* culled */
};
static const float color[4] = { 0.2f, 0.8f, 0.4f, 1.0f };

static void
run(enum vkt_driver which, const char *threads)
{
   const char *dn = vkt_driver_name(which);
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const VkPhysicalDeviceFeatures feats = { .geometryShader = VK_TRUE,
                                            .shaderClipDistance = VK_TRUE,
                                            .shaderCullDistance = VK_TRUE };
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options){ .driver = which, .features = &feats })) {
      CHECK(which != VKT_SHALE, "Shale device with geometryShader and clip/cull distances");
      return;
   }
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = SIZE,
                             .height = SIZE };
   VkResult r = draw_target_create(&t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   VkShaderModule vs = VK_NULL_HANDLE, gs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_dist_vert_spv, sizeof(geom_dist_vert_spv), &vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_dist_geom_spv, sizeof(geom_dist_geom_spv), &gs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, const_float_frag_spv, sizeof(const_float_frag_spv), &fs);
   struct draw_pipeline p = { 0 };
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&t, VK_NULL_HANDLE, VK_SHADER_STAGE_FRAGMENT_BIT, 16, &p.layout);
   p.own_layout = p.layout != VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      struct draw_pipeline_info pi = {
         .stride = 16, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT },
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .cull_mode = VK_CULL_MODE_NONE,
         .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE, .polygon_mode = VK_POLYGON_MODE_FILL,
         .push_size = 16,
      };
      struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, &dt, &pi, vs, fs, p.layout);
      r = draw_pipeline_create_geometry(&t, &st, gs, &p.pipeline);
   }
   CHECK(r == VK_SUCCESS, "%s: modules, layout and pipeline: %d", dn, r);
   float v[12][4];
   static const int corner[6][2] = { { 0, 1 }, { 2, 1 }, { 2, 3 }, { 0, 1 }, { 2, 3 }, { 0, 3 } };
   for (int k = 0; k < 2; k++)
      for (int i = 0; i < 6; i++) {
         v[k * 6 + i][0] = rects[k][corner[i][0]];
         v[k * 6 + i][1] = rects[k][corner[i][1]];
         v[k * 6 + i][2] = rects[k][4];
         v[k * 6 + i][3] = 1.0f;
      }
   struct vkt_buffer vb = { 0 };
   if (r == VK_SUCCESS)
      r = draw_upload(&t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = draw_begin(&t, &dt, &p, vb.buffer);
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, color);
      vkCmdDraw(cb, 12, 1, 0, 0);
      r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   }
   if (r == VK_SUCCESS) {
      uint32_t want[SIZE * SIZE];
      for (int i = 0; i < SIZE * SIZE; i++) {
         const float cx = i % SIZE + 0.5f, cy = i / SIZE + 0.5f;
         const float *q = rects[0];
         const bool in = cx > q[0] && cx < q[2] && cy > q[1] && cy < q[3] && cx > 10.25f &&
                         cy < 24.25f;
         want[i] = in ? draw_pack_rgba8(color) : 0;
      }
      draw_compare_image(dn, threads, "clip and cull distances through gl_in[]",
                         dt.readback.map, want, NULL, SIZE, SIZE, 5 * 22);
   }
   if (vb.buffer)
      vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &p);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, gs, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
