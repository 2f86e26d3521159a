/*
 * Demote to helper invocation (shaderDemoteToHelperInvocation,
 * VK_EXT_shader_demote_to_helper_invocation), terminate invocation
 * (shaderTerminateInvocation, VK_KHR_shader_terminate_invocation), both
 * required by Vulkan 1.3, and NonSemantic instruction sets
 * (VK_KHR_shader_non_semantic_info, core in 1.3), through the loader and the
 * validation layer, on Shale at SHALE_THREADS 1 and 4 and on lavapipe: a
 * triangle over a 16x16 R32G32B32A32_SFLOAT target runs demote.frag, which
 * terminates whole 2x2 quads, demotes two pixels of other quads (they go
 * on as helpers) and writes the fine derivatives of x^2 and y^2 and
 * helperInvocationEXT() elsewhere, with a debugPrintfEXT call on the way.
 * Every texel is compared exactly with a CPU reference: terminated and
 * demoted pixels keep the clear value, the others hold 2 * x0 + 2 and
 * 2 * y0 + 2 (their quad's left column and top row), which only come out
 * if the demoted neighbours went on computing, and 0 for the helper flag.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "demote_frag_spv.h"
#include "fullscreen_vert_spv.h"

#define SIZE 16

static void
run(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const char *dn = vkt_driver_name(which);
   const char *th = threads ? threads : "-";
   VkPhysicalDeviceShaderDemoteToHelperInvocationFeaturesEXT demote = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DEMOTE_TO_HELPER_INVOCATION_FEATURES_EXT,
   };
   VkPhysicalDeviceShaderTerminateInvocationFeatures term = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_TERMINATE_INVOCATION_FEATURES,
      .pNext = &demote,
   };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &term };
   const char *exts[3] = { VK_EXT_SHADER_DEMOTE_TO_HELPER_INVOCATION_EXTENSION_NAME,
                           VK_KHR_SHADER_TERMINATE_INVOCATION_EXTENSION_NAME,
                           VK_KHR_SHADER_NON_SEMANTIC_INFO_EXTENSION_NAME };
   bool has[3];
   bool present = true;
   for (int i = 0; i < 3 && present; i++)
      present = vkt_query_features(which, &f2, exts[i], &has[i]);
   if (!present) {
      CHECK(which == VKT_LAVAPIPE, "%s not available", dn);
      return;
   }
   bool ok = has[0] && has[1] && has[2] && demote.shaderDemoteToHelperInvocation &&
             term.shaderTerminateInvocation;
   if (which == VKT_SHALE)
      CHECK(ok, "Shale: extensions %u %u %u, demote %u, terminate %u", has[0], has[1], has[2],
            demote.shaderDemoteToHelperInvocation, term.shaderTerminateInvocation);
   if (!ok) {
      printf("%s lacks demote, terminate or non-semantic info: skipped\n", dn);
      return;
   }
   demote.shaderDemoteToHelperInvocation = VK_TRUE;
   term.shaderTerminateInvocation = VK_TRUE;
   demote.pNext = NULL;
   struct vkt_options opts = { .driver = which, .api_version = VK_API_VERSION_1_1,
                               .device_extensions = exts, .device_extension_count = 3,
                               .device_pnext = &term };
   struct vkt t;
   if (!vkt_init(&t, &opts)) {
      CHECK(false, "%s: device with demote and terminate", dn);
      return;
   }
   struct draw_target dt = {
      .color_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = SIZE, .height = SIZE,
      .clear_color = { .float32 = { -1.0f, -1.0f, -1.0f, -1.0f } },
   };
   struct draw_pipeline_info pi = {
      .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
      .fs = demote_frag_spv, .fs_size = sizeof(demote_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .push_size = 20,
   };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   bool made = draw_target_create(&t, &dt) == VK_SUCCESS &&
               draw_pipeline_create(&t, &dt, &pi, &p) == VK_SUCCESS;
   CHECK(made, "%s: target and demote.frag's pipeline", dn);
   if (made) {
      VkCommandBuffer cmd = draw_begin(&t, &dt, &p, VK_NULL_HANDLE);
      const float push[5] = { 0, 0, 0, 0, 0.5f };
      vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, sizeof(push), push);
      vkCmdDraw(cmd, 3, 1, 0, 0);
      VkResult r = draw_end(&t, &dt, cmd);
      CHECK(r == VK_SUCCESS, "%s: draw: %d", dn, r);
      const float *got = dt.readback.map;
      unsigned bad = 0, written = 0;
      for (int y = 0; y < SIZE; y++)
         for (int x = 0; x < SIZE; x++) {
            int qx = x >> 1, qy = y >> 1, k = (qx + qy) % 3;
            bool off = k == 0 || (k == 1 && (x & 1) == (y & 1));
            float want[4] = { -1, -1, -1, -1 };
            if (!off) {
               want[0] = 2.0f * (float)(x & ~1) + 2.0f;
               want[1] = 2.0f * (float)(y & ~1) + 2.0f;
               want[2] = 0.0f;
               want[3] = 1.0f;
               written++;
            }
            const float *g = got + 4 * (y * SIZE + x);
            if (memcmp(g, want, sizeof(want)) != 0 && bad++ < 6)
               printf("%s (%s): pixel (%d,%d): %g %g %g %g, expected %g %g %g %g\n", dn, th, x,
                      y, g[0], g[1], g[2], g[3], want[0], want[1], want[2], want[3]);
         }
      CHECK(bad == 0, "%s (%s): %u of %d pixels differ (%u written)", dn, th, bad,
            SIZE * SIZE, written);
   }
   draw_pipeline_destroy(&t, &p);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
