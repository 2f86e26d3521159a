/* Transform feedback of a geometry shader's output (VK_EXT_transform_feedback
 * with geometryShader): the vertex shader (geom/xfb_tag.vert) declares a
 * capture of its own into buffer 1, the geometry shader (geom/xfb.geom) emits per
 * input point a line strip of three vertices, a strip of two and a strip of
 * one, and captures gl_Position and a tag into buffer 0. Expected: buffer 0
 * holds, point by point, the lines (v0, v1), (v1, v2), (v3, v4) as separate
 * primitives (the one-vertex strip makes none) with the geometry shader's
 * values; buffer 1, bound too, is not written (only the last stage before
 * rasterization is captured); the stream query counts 3 primitives per
 * point written and needed. Also with rasterizer discard. Exact, on Shale
 * at SHALE_THREADS 1 and 4 and on lavapipe. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "geom_xfb_geom_spv.h"
#include "geom_xfb_tag_frag_spv.h"
#include "geom_xfb_tag_vert_spv.h"

#define NP 5
#define BUF_SIZE 1024
#define FILL 0xab
#define S0 20

static PFN_vkCmdBindTransformFeedbackBuffersEXT bind_xfb;
static PFN_vkCmdBeginTransformFeedbackEXT begin_xfb;
static PFN_vkCmdEndTransformFeedbackEXT end_xfb;
static PFN_vkCmdBeginQueryIndexedEXT begin_qi;
static PFN_vkCmdEndQueryIndexedEXT end_qi;

static float vpos[NP][4];

/* Buffer 0 as the spec says it must be. */
static void
reference(uint8_t *out)
{
   memset(out, FILL, BUF_SIZE);
   static const int order[6] = {0, 1, 1, 2, 3, 4};
   uint32_t n = 0;
   for (uint32_t p = 0; p < NP; p++) {
      for (int i = 0; i < 6; i++, n++) {
         int k = order[i];
         float pos[4] = {vpos[p][0] + 0.125f * (float)k, vpos[p][1] + 0.0625f * (float)(k & 1),
                         vpos[p][2], vpos[p][3]};
         uint32_t tag = p * 16 + (uint32_t)k + (p << 8);
         memcpy(out + n * S0, pos, 16);
         memcpy(out + n * S0 + 16, &tag, 4);
      }
   }
}

static void
run_driver(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   VkPhysicalDeviceTransformFeedbackFeaturesEXT tf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT};
   VkPhysicalDeviceFeatures core;
   struct vkt_options o;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME, &tf, NULL, &core,
                             &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE)
      CHECK(has && tf.transformFeedback && core.geometryShader, "shale: features");
   if (!has || !tf.transformFeedback || !core.geometryShader) {
      fprintf(stderr, "%s: no transform feedback or geometry shaders, not run\n", dn);
      return;
   }
   static const char *const dexts[] = {VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME};
   VkPhysicalDeviceTransformFeedbackFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT,
      .transformFeedback = VK_TRUE,
   };
   VkPhysicalDeviceFeatures feats = {.geometryShader = VK_TRUE};
   o.device_extensions = dexts;
   o.device_extension_count = 1;
   o.device_pnext = &enable;
   o.features = &feats;
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(0, "%s: device", dn);
      return;
   }
#define GET(var, name) var = (void *)vkGetDeviceProcAddr(t.device, name); CHECK(var, "%s", name)
   GET(bind_xfb, "vkCmdBindTransformFeedbackBuffersEXT");
   GET(begin_xfb, "vkCmdBeginTransformFeedbackEXT");
   GET(end_xfb, "vkCmdEndTransformFeedbackEXT");
   GET(begin_qi, "vkCmdBeginQueryIndexedEXT");
   GET(end_qi, "vkCmdEndQueryIndexedEXT");
   struct draw_target dt = {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 32, .height = 32};
   struct vkt_buffer vb, xb[2];
   CHECK(draw_target_create(&t, &dt) == VK_SUCCESS, "%s: target", dn);
   CHECK(draw_upload(&t, vpos, sizeof(vpos), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) == VK_SUCCESS,
         "%s: vertices", dn);
   for (int b = 0; b < 2; b++)
      CHECK(vkt_buffer_create(&t, BUF_SIZE, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
                              &xb[b]) == VK_SUCCESS, "%s: xfb buffer", dn);
   VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT,
                               .queryCount = 1};
   VkQueryPool qpool;
   CHECK(vkCreateQueryPool(t.device, &qi, NULL, &qpool) == VK_SUCCESS, "%s: query pool", dn);
   VkShaderModule vs, gs, fs;
   CHECK(vkt_shader_module(&t, geom_xfb_tag_vert_spv, sizeof(geom_xfb_tag_vert_spv), &vs) == VK_SUCCESS &&
            vkt_shader_module(&t, geom_xfb_geom_spv, sizeof(geom_xfb_geom_spv), &gs) == VK_SUCCESS &&
            vkt_shader_module(&t, geom_xfb_tag_frag_spv, sizeof(geom_xfb_tag_frag_spv), &fs) == VK_SUCCESS,
         "%s: modules", dn);
   VkPipelineLayout layout;
   CHECK(draw_pipeline_layout(&t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &layout) ==
            VK_SUCCESS, "%s: layout", dn);
   uint8_t want[BUF_SIZE];
   reference(want);
   for (int discard = 0; discard < 2; discard++) {
      VkPipelineRasterizationStateCreateInfo rs = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
         .rasterizerDiscardEnable = (VkBool32)discard,
         .polygonMode = VK_POLYGON_MODE_FILL,
         .lineWidth = 1.0f,
      };
      struct draw_pipeline_info pi = {
         .stride = 16, .attrib_count = 1, .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT},
         .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST, .rasterization = &rs,
      };
      struct draw_pipeline_state st;
      draw_pipeline_state_init(&st, &dt, &pi, vs, fs, layout);
      VkPipelineShaderStageCreateInfo stages[3] = {st.stages[0], st.stages[1],
         {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
          .stage = VK_SHADER_STAGE_GEOMETRY_BIT, .module = gs, .pName = "main"}};
      st.info.stageCount = 3;
      st.info.pStages = stages;
      struct draw_pipeline p = {.layout = layout};
      VkResult r = vkCreateGraphicsPipelines(t.device, VK_NULL_HANDLE, 1, &st.info, NULL, &p.pipeline);
      CHECK(r == VK_SUCCESS, "%s: pipeline: %d", dn, r);
      if (r != VK_SUCCESS)
         continue;
      for (int b = 0; b < 2; b++)
         memset(xb[b].map, FILL, BUF_SIZE);
      VkCommandBuffer cb = vkt_begin(&t);
      vkCmdResetQueryPool(cb, qpool, 0, 1);
      vkt_submit_wait(&t, cb);
      cb = draw_begin(&t, &dt, &p, vb.buffer);
      VkBuffer bufs[2] = {xb[0].buffer, xb[1].buffer};
      VkDeviceSize offs[2] = {0, 0}, sizes[2] = {VK_WHOLE_SIZE, VK_WHOLE_SIZE};
      bind_xfb(cb, 0, 2, bufs, offs, sizes);
      begin_qi(cb, qpool, 0, 0, 0);
      begin_xfb(cb, 0, 0, NULL, NULL);
      vkCmdDraw(cb, NP, 1, 0, 0);
      end_xfb(cb, 0, 0, NULL, NULL);
      end_qi(cb, qpool, 0, 0);
      r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
      uint64_t q[2] = {0, 0};
      r = vkGetQueryPoolResults(t.device, qpool, 0, 1, sizeof(q), q, sizeof(q),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
      CHECK(r == VK_SUCCESS && q[0] == 3 * NP && q[1] == 3 * NP,
            "%s (discard %d): primitives written %llu, needed %llu (want %d)", dn, discard,
            (unsigned long long)q[0], (unsigned long long)q[1], 3 * NP);
      unsigned bad0 = 0, bad1 = 0;
      for (int i = 0; i < BUF_SIZE; i++) {
         if (((const uint8_t *)xb[0].map)[i] != want[i] && bad0++ < 4)
            fprintf(stderr, "%s (discard %d, SHALE_THREADS %s): buffer 0 byte %d (vertex %d): %02x, "
                            "expected %02x\n", dn, discard, threads ? threads : "-", i, i / S0,
                    ((const uint8_t *)xb[0].map)[i], want[i]);
         bad1 += ((const uint8_t *)xb[1].map)[i] != FILL;
      }
      CHECK(bad0 == 0, "%s (discard %d): buffer 0: %u bytes wrong", dn, discard, bad0);
      CHECK(bad1 == 0, "%s (discard %d): buffer 1 (the vertex shader's): %u bytes written", dn,
            discard, bad1);
      vkDestroyPipeline(t.device, p.pipeline, NULL);
   }
   vkDestroyPipelineLayout(t.device, layout, NULL);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, gs, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   vkDestroyQueryPool(t.device, qpool, NULL);
   for (int b = 0; b < 2; b++)
      vkt_buffer_destroy(&t, &xb[b]);
   vkt_buffer_destroy(&t, &vb);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   for (int p = 0; p < NP; p++) {
      vpos[p][0] = -0.75f + 0.25f * (float)p;
      vpos[p][1] = 0.5f - 0.125f * (float)p;
      vpos[p][2] = 0.25f;
      vpos[p][3] = 1.0f;
   }
   return draw_run_threads_and_lavapipe(run_driver);
}
