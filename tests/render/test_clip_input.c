/* ClipDistance and CullDistance as fragment shader inputs, through the
 * loader with the validation layer, on Shale and (when present) lavapipe:
 * a vertex shader writes two clip distances and one cull distance (all
 * positive, linear in NDC) and the same values into a smooth varying; the
 * fragment shader reads gl_ClipDistance[0..1] and gl_CullDistance[0].
 * With w = 1 at every vertex the distances at each pixel centre are
 * compared with a CPU reference of the linear functions (within 1e-5);
 * with w = 1, 2 and 4 (perspective-correct interpolation) they must equal
 * the varying bit for bit, as both are interpolated alike. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "clip_in_frag_spv.h"
#include "clip_in_vert_spv.h"

#define SIZE 8

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   struct draw_target dt = {
      .color_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = SIZE, .height = SIZE,
   };
   struct draw_pipeline_info pi = {
      .vs = clip_in_vert_spv, .vs_size = sizeof(clip_in_vert_spv),
      .fs = clip_in_frag_spv, .fs_size = sizeof(clip_in_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .push_size = 16,
   };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   bool ok = draw_target_create(t, &dt) == VK_SUCCESS &&
             draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
   CHECK(ok, "%s: target and pipeline reading ClipDistance / CullDistance", drv);
   static const float ws[2][4] = { { 1, 1, 1, 0 }, { 1, 2, 4, 0 } };
   for (int c = 0; ok && c < 2; c++) {
      VkCommandBuffer cmd = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
      vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 16, ws[c]);
      vkCmdDraw(cmd, 3, 1, 0, 0);
      VkResult r = draw_end(t, &dt, cmd);
      CHECK(r == VK_SUCCESS, "%s: draw %d: %d", drv, c, r);
      const float *got = dt.readback.map;
      unsigned wrong = 0, unequal = 0;
      for (int y = 0; y < SIZE; y++)
         for (int x = 0; x < SIZE; x++) {
            const float *g = got + 4 * (y * SIZE + x);
            if (g[3] != 1.0f && unequal++ < 2)
               printf("%s: w set %d pixel (%d,%d): distances %g %g %g differ from the varying\n",
                      drv, c, x, y, g[0], g[1], g[2]);
            if (c != 0)
               continue;
            double nx = (x + 0.5) / (SIZE / 2.0) - 1.0, ny = (y + 0.5) / (SIZE / 2.0) - 1.0;
            const double ref[3] = { 2.0 + nx, 4.0 - ny, 5.0 + 0.5 * nx + 0.25 * ny };
            for (int k = 0; k < 3; k++)
               if (!(fabs(g[k] - ref[k]) <= 1e-5) && wrong++ < 2)
                  printf("%s: pixel (%d,%d) distance %d: %.7g, expected %.7g\n", drv, x, y, k,
                         g[k], ref[k]);
         }
      CHECK(unequal == 0, "%s: w set %d: %u pixels whose distances differ from the varying", drv,
            c, unequal);
      CHECK(wrong == 0, "%s: %u distances differ from the reference", drv, wrong);
   }
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
}

int
main(void)
{
   static const VkPhysicalDeviceFeatures features = {
      .shaderClipDistance = VK_TRUE,
      .shaderCullDistance = VK_TRUE,
   };
   for (int d = 0; d < 2; d++) {
      struct vkt_options opts = { .driver = d ? VKT_LAVAPIPE : VKT_SHALE, .features = &features };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
