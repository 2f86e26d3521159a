/* Output variables with initializers that the shader never stores (SPIR-V:
 * the variable holds its initializer from the start), through the loader
 * with the validation layer: a vertex shader's flat output
 * (init_out.vert.spvasm, read by flat_color.frag) and a fragment shader's
 * colour output (init_out.frag.spvasm, after pos_color.vert), each drawn
 * as a rectangle whose edges sit a quarter pixel off the grid, on Shale at
 * SHALE_THREADS 1 and 4 and on lavapipe, every pixel compared exactly with
 * a CPU reference (the initializers' channels are multiples of 0.2, exact
 * in UNORM8: 51 k). Control shader outputs are render/tess's
 * (init.tesc.spvasm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "init_out_frag_spv.h"
#include "init_out_vert_spv.h"
#include "pos_color_vert_spv.h"

#define SIZE 16

struct vtx {
   float pos[4];
   float color[4];
};

static float
ndc(float p)
{
   return p / (SIZE / 2.0f) - 1.0f;
}

/* Pipeline k's rectangle: (x0, y0) - (x1, y1) in pixels. */
static const float rects[2][4] = {
   { 1.25f, 1.25f, 7.25f, 14.25f }, { 8.25f, 2.25f, 15.25f, 13.25f },
};
/* What each pipeline's pixels read: A (the vertex shader's initializer),
 * B (the fragment shader's). */
static const float colors[2][4] = { { 0.2f, 0.4f, 0.6f, 1.0f }, { 0.8f, 0.6f, 0.2f, 1.0f } };

static void
run(enum vkt_driver which, const char *threads)
{
   const char *dn = vkt_driver_name(which);
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options){ .driver = which })) {
      CHECK(which != VKT_SHALE, "Shale device");
      return;
   }
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = SIZE,
                             .height = SIZE };
   VkResult r = draw_target_create(&t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   struct draw_pipeline p[2] = { 0 };
   for (int k = 0; r == VK_SUCCESS && k < 2; k++) {
      struct draw_pipeline_info pi = {
         .vs = k ? pos_color_vert_spv : init_out_vert_spv,
         .vs_size = k ? sizeof(pos_color_vert_spv) : sizeof(init_out_vert_spv),
         .fs = k ? init_out_frag_spv : flat_color_frag_spv,
         .fs_size = k ? sizeof(init_out_frag_spv) : sizeof(flat_color_frag_spv),
         .stride = sizeof(struct vtx), .attrib_count = 2,
         .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
         .attrib_offset = { 0, 16 },
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .cull_mode = VK_CULL_MODE_NONE,
         .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE, .polygon_mode = VK_POLYGON_MODE_FILL,
      };
      r = draw_pipeline_create(&t, &dt, &pi, &p[k]);
      CHECK(r == VK_SUCCESS, "%s: pipeline %d: %d", dn, k, r);
   }
   /* Two triangles a rectangle; the vertex colour (attribute) is a grey
    * that neither initializer equals. */
   struct vtx v[12];
   static const int corner[6][2] = { { 0, 1 }, { 2, 1 }, { 2, 3 }, { 0, 1 }, { 2, 3 }, { 0, 3 } };
   for (int k = 0; k < 2; k++)
      for (int i = 0; i < 6; i++)
         v[k * 6 + i] = (struct vtx){ { ndc(rects[k][corner[i][0]]), ndc(rects[k][corner[i][1]]),
                                        0.5f, 1.0f },
                                      { 0.4f, 0.4f, 0.4f, 0.4f } };
   struct vkt_buffer vb = { 0 };
   if (r == VK_SUCCESS)
      r = draw_upload(&t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = draw_begin(&t, &dt, &p[0], vb.buffer);
      vkCmdDraw(cb, 6, 1, 0, 0);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p[1].pipeline);
      vkCmdDraw(cb, 6, 1, 6, 0);
      r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   }
   if (r == VK_SUCCESS) {
      uint32_t want[SIZE * SIZE];
      for (int i = 0; i < SIZE * SIZE; i++) {
         const float cx = i % SIZE + 0.5f, cy = i / SIZE + 0.5f;
         want[i] = 0;
         for (int k = 0; k < 2; k++)
            if (cx > rects[k][0] && cx < rects[k][2] && cy > rects[k][1] && cy < rects[k][3])
               want[i] = draw_pack_rgba8(colors[k]);
      }
      draw_compare_image(dn, threads, "initialized outputs", dt.readback.map, want, NULL, SIZE,
                         SIZE, 6 * 13 + 7 * 11);
   }
   if (vb.buffer)
      vkt_buffer_destroy(&t, &vb);
   for (int k = 0; k < 2; k++)
      draw_pipeline_destroy(&t, &p[k]);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
