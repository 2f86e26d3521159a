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
#include "xfb_util.h"

#include "geom_xfb_geom_spv.h"
#include "geom_xfb_tag_frag_spv.h"
#include "geom_xfb_tag_vert_spv.h"

#define NP 5
#define BUF_SIZE 1024
#define FILL 0xab
#define S0 20


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
   const char *dn = vkt_driver_name(which);
   const VkPhysicalDeviceFeatures feats = {.geometryShader = VK_TRUE};
   struct vkt t;
   if (!xfb_start(&t, which, threads, &feats, "geometry shaders"))
      return;
   xfb_get_commands(&t);
   struct draw_target dt = {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 32, .height = 32};
   struct vkt_buffer vb, xb[2];
   CHECK(draw_target_create(&t, &dt) == VK_SUCCESS, "%s: target", dn);
   CHECK(draw_upload(&t, vpos, sizeof(vpos), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) == VK_SUCCESS,
         "%s: vertices", dn);
   for (int b = 0; b < 2; b++)
      CHECK(vkt_buffer_create(&t, BUF_SIZE, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
                              &xb[b]) == VK_SUCCESS, "%s: xfb buffer", dn);
   VkQueryPool qpool;
   xfb_query_pool(&t, dn, &qpool);
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
      struct draw_pipeline p;
      VkResult r = xfb_pipeline(&t, &dt, layout, vs, gs, fs, VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
                                discard, &p);
      CHECK(r == VK_SUCCESS, "%s: pipeline: %d", dn, r);
      if (r != VK_SUCCESS)
         continue;
      for (int b = 0; b < 2; b++)
         memset(xb[b].map, FILL, BUF_SIZE);
      uint64_t q[2];
      VkResult qr;
      r = xfb_capture_draw(&t, &dt, &p, vb.buffer, qpool, 2, xb, NP, 1, q, &qr);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
      CHECK(qr == VK_SUCCESS && q[0] == 3 * NP && q[1] == 3 * NP,
            "%s (discard %d): primitives written %llu, needed %llu (want %d)", dn, discard,
            (unsigned long long)q[0], (unsigned long long)q[1], 3 * NP);
      char what[160];
      snprintf(what, sizeof(what), "%s (discard %d, SHALE_THREADS %s): buffer 0 (%d bytes a "
               "vertex)", dn, discard, threads ? threads : "-", S0);
      unsigned bad0 = xfb_bytes_wrong(xb[0].map, want, BUF_SIZE, what);
      uint8_t fill[BUF_SIZE];
      memset(fill, FILL, BUF_SIZE);
      snprintf(what, sizeof(what), "%s (discard %d, SHALE_THREADS %s): buffer 1", dn, discard,
               threads ? threads : "-");
      unsigned bad1 = xfb_bytes_wrong(xb[1].map, fill, BUF_SIZE, what);
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
