/* Geometry and tessellation shaders reading clip and cull distances
 * through gl_in[] (gl_in[i].gl_ClipDistance / gl_CullDistance) and a
 * control shader writing them to gl_out[], through the loader with the
 * validation layer: dist.vert writes ClipDistance[2] (x - 10.25 and
 * 24.25 - y, in pixels) and CullDistance[1] (the vertex's z: -1 on the
 * culled rectangle, 1 elsewhere); dist.geom passes every triangle on with
 * the distances it read, dist.tesc passes them on per control point and
 * dist.tese interpolates them (three pipelines, below; the position goes
 * through dist.tesc's user output extra[], described after gl_out[], which
 * must not undo the control shader's clip distance count). Each stage packs
 * its cull distance after its two clip distances, so the next finds it
 * only where its compile was told so (sc_compile_info.in_clip_distances);
 * a wrong place would read a clip distance instead and draw the culled
 * rectangle.
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
#include "geom_dist_tesc_spv.h"
#include "geom_dist_tese_spv.h"
#include "geom_dist_vert_spv.h"

#define SIZE 32

/* (x0, y0, x1, y1, cull) of each rectangle, in pixels. */
static const float rects[2][5] = {
   { 2.25f, 2.25f, 15.25f, 29.25f, 1.0f },   /* clipped at x 10.25 and y 24.25 */
   { 17.25f, 2.25f, 30.25f, 29.25f, -1.0f }, /* culled */
};
static const float color[4] = { 0.2f, 0.8f, 0.4f, 1.0f };

/* The three pipelines: vertex + geometry shader; vertex + control +
 * evaluation shader (dist.tesc passes the distances on through gl_out[],
 * dist.tese interpolates them from gl_in[] and writes its own); both
 * tessellation shaders and the geometry shader, which then reads the
 * evaluation shader's. */
enum { P_GEOM, P_TESS, P_TESS_GEOM, P_COUNT };
static const char *const pnames[P_COUNT] = {
   "vertex + geometry shader", "vertex + tessellation shaders",
   "vertex + tessellation + geometry shaders",
};

static void
run(enum vkt_driver which, const char *threads)
{
   const char *dn = vkt_driver_name(which);
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const VkPhysicalDeviceFeatures feats = { .geometryShader = VK_TRUE,
                                            .tessellationShader = VK_TRUE,
                                            .shaderClipDistance = VK_TRUE,
                                            .shaderCullDistance = VK_TRUE };
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options){ .driver = which, .features = &feats })) {
      CHECK(which != VKT_SHALE, "Shale device with geometry and tessellation shaders and clip "
            "and cull distances");
      return;
   }
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = SIZE,
                             .height = SIZE };
   VkResult r = draw_target_create(&t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   VkShaderModule vs = VK_NULL_HANDLE, gs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
   VkShaderModule tcs = VK_NULL_HANDLE, tes = VK_NULL_HANDLE;
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_dist_vert_spv, sizeof(geom_dist_vert_spv), &vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_dist_geom_spv, sizeof(geom_dist_geom_spv), &gs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_dist_tesc_spv, sizeof(geom_dist_tesc_spv), &tcs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_dist_tese_spv, sizeof(geom_dist_tese_spv), &tes);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, const_float_frag_spv, sizeof(const_float_frag_spv), &fs);
   VkPipelineLayout layout = VK_NULL_HANDLE;
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&t, VK_NULL_HANDLE, VK_SHADER_STAGE_FRAGMENT_BIT, 16, &layout);
   CHECK(r == VK_SUCCESS, "%s: modules and layout: %d", dn, r);
   /* Each rectangle as two triangles (vertices 0-11) and as a patch of
    * its corners in the quad domain's order (12-19). */
   float v[20][4];
   static const int corner[6][2] = { { 0, 1 }, { 2, 1 }, { 2, 3 }, { 0, 1 }, { 2, 3 }, { 0, 3 } };
   static const int patch[4][2] = { { 0, 1 }, { 2, 1 }, { 2, 3 }, { 0, 3 } };
   for (int k = 0; k < 2; k++) {
      for (int i = 0; i < 10; i++) {
         const int *c = i < 6 ? corner[i] : patch[i - 6];
         float *o = i < 6 ? v[k * 6 + i] : v[12 + k * 4 + i - 6];
         o[0] = rects[k][c[0]];
         o[1] = rects[k][c[1]];
         o[2] = rects[k][4];
         o[3] = 1.0f;
      }
   }
   struct vkt_buffer vb = { 0 };
   if (r == VK_SUCCESS)
      r = draw_upload(&t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   uint32_t want[SIZE * SIZE];
   for (int i = 0; i < SIZE * SIZE; i++) {
      const float cx = i % SIZE + 0.5f, cy = i / SIZE + 0.5f;
      const float *q = rects[0];
      const bool in = cx > q[0] && cx < q[2] && cy > q[1] && cy < q[3] && cx > 10.25f &&
                      cy < 24.25f;
      want[i] = in ? draw_pack_rgba8(color) : 0;
   }
   for (int k = 0; r == VK_SUCCESS && k < P_COUNT; k++) {
      const bool tess = k != P_GEOM;
      struct draw_pipeline p = { .layout = layout };
      struct draw_pipeline_info pi = {
         .stride = 16, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT },
         .topology = tess ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .cull_mode = VK_CULL_MODE_NONE, .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
         .polygon_mode = VK_POLYGON_MODE_FILL, .push_size = 16,
      };
      struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, &dt, &pi, vs, fs, layout);
      VkPipelineShaderStageCreateInfo stages[5] = { st.stages[0], st.stages[1] };
      uint32_t n = 2;
      const VkShaderStageFlagBits bits[3] = { VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT,
                                              VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT,
                                              VK_SHADER_STAGE_GEOMETRY_BIT };
      const VkShaderModule mods[3] = { tcs, tes, gs };
      for (int j = 0; j < 3; j++)
         if (j == 2 ? k != P_TESS : tess)
            stages[n++] = (VkPipelineShaderStageCreateInfo){
               .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
               .stage = bits[j], .module = mods[j], .pName = "main" };
      const VkPipelineTessellationStateCreateInfo ts = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
         .patchControlPoints = 4,
      };
      st.info.stageCount = n;
      st.info.pStages = stages;
      st.info.pTessellationState = tess ? &ts : NULL;
      r = vkCreateGraphicsPipelines(t.device, VK_NULL_HANDLE, 1, &st.info, NULL, &p.pipeline);
      CHECK(r == VK_SUCCESS, "%s: %s: pipeline: %d", dn, pnames[k], r);
      if (r == VK_SUCCESS) {
         VkCommandBuffer cb = draw_begin(&t, &dt, &p, vb.buffer);
         vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, color);
         if (tess)
            vkCmdDraw(cb, 8, 1, 12, 0);
         else
            vkCmdDraw(cb, 12, 1, 0, 0);
         r = draw_end(&t, &dt, cb);
         CHECK(r == VK_SUCCESS, "%s: %s: drawn: %d", dn, pnames[k], r);
      }
      if (r == VK_SUCCESS)
         draw_compare_image(dn, threads, pnames[k], dt.readback.map, want, NULL, SIZE, SIZE,
                            5 * 22);
      vkDestroyPipeline(t.device, p.pipeline, NULL);
   }
   if (vb.buffer)
      vkt_buffer_destroy(&t, &vb);
   vkDestroyPipelineLayout(t.device, layout, NULL);
   VkShaderModule all[5] = { vs, gs, tcs, tes, fs };
   for (int k = 0; k < 5; k++)
      vkDestroyShaderModule(t.device, all[k], NULL);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
