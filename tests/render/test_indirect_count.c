/* VK_KHR_draw_indirect_count through the loader with the validation layer,
 * on Shale at SHALE_THREADS 1 and 4 and on lavapipe (when it offers the
 * extension): vkCmdDrawIndirectCountKHR and vkCmdDrawIndexedIndirectCountKHR
 * with count buffer values 0, below, equal to and above maxDrawCount (2^32-1
 * too), maxDrawCount 0, nonzero count buffer offsets with other values
 * around them, nonzero record offsets, tight and padded strides (garbage in
 * the padding), indexed records with positive, zero and negative
 * vertexOffset, instances and firstInstance. The counts are written by the
 * host after the commands are recorded (before the submit), so they must be
 * read when the commands execute. Every record, drawn or not, points at a
 * cell of its own; ic.vert colours a quad with its DrawIndex and
 * InstanceIndex, and the image is compared exactly with a CPU reference of
 * the spec's rule (draws 0 .. min(count, maxDrawCount) - 1, draw i from
 * offset + i * stride with DrawIndex i). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "ic_vert_spv.h"

#define W 64
#define H 32
#define CELL 4
#define COLS (W / CELL)
#define CELLS (COLS * (H / CELL))
#define VERTS (CELLS * 6)

/* One count command. */
struct ic_case {
   bool indexed;
   uint32_t count;          /* written at count_offset after recording */
   uint32_t max_draw_count;
   uint32_t count_offset;   /* bytes into the count buffer */
   uint32_t offset;         /* bytes into the indirect buffer (set by the test) */
   uint32_t stride;
   uint32_t instances;      /* of every record */
};

static const struct ic_case cases[] = {
   { false, 0, 3, 0, 0, 16, 1 },
   { false, 2, 4, 4, 0, 16, 1 },
   { false, 3, 3, 8, 0, 20, 2 },
   { false, 9, 5, 12, 0, 32, 1 },
   { false, 0xffffffffu, 2, 20, 0, 16, 1 },
   { false, 4, 0, 24, 0, 16, 1 },
   { true, 0, 2, 28, 0, 20, 1 },
   { true, 1, 3, 36, 0, 24, 1 },
   { true, 4, 4, 40, 0, 20, 2 },
   { true, 7, 3, 48, 0, 36, 1 },
   { true, 0xffffffffu, 2, 52, 0, 20, 1 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))
#define COUNT_WORDS 16
#define IND_BYTES 4096

/* Clip-space quads, one a cell, six vertices each. */
static void
make_vertices(float (*v)[4])
{
   for (int q = 0; q < CELLS; q++) {
      float x0 = (float)(q % COLS * CELL) / W * 2 - 1, x1 = x0 + 2.0f * CELL / W;
      float y0 = (float)(q / COLS * CELL) / H * 2 - 1, y1 = y0 + 2.0f * CELL / H;
      const float c[6][2] = { { x0, y0 }, { x1, y0 }, { x0, y1 },
                              { x1, y0 }, { x1, y1 }, { x0, y1 } };
      for (int k = 0; k < 6; k++) {
         float *p = v[q * 6 + k];
         p[0] = c[k][0];
         p[1] = c[k][1];
         p[2] = 0.5f;
         p[3] = 1;
      }
   }
}

static uint32_t
cell_color(uint32_t draw_index, uint32_t instance)
{
   return (draw_index + 1) | (instance + 1) << 8 | 200u << 16 | 0xffu << 24;
}

/* Fills the indirect buffer (records of every case at its offset, the
 * padding of each stride garbage), the offsets of the cases, and the
 * reference image. Record r of case c draws cell next++ as (indexed)
 * firstIndex / vertexOffset pairs of three kinds. */
static void
build(uint8_t *ind, struct ic_case *cs, uint32_t *ref)
{
   memset(ind, 0xa5, IND_BYTES);
   memset(ref, 0, W * H * 4);
   uint32_t at = 12, cell = 0;
   for (size_t c = 0; c < NCASES; c++) {
      cs[c] = cases[c];
      cs[c].offset = at;
      uint32_t n = cs[c].count < cs[c].max_draw_count ? cs[c].count : cs[c].max_draw_count;
      for (uint32_t r = 0; r < cs[c].max_draw_count; r++, cell++) {
         uint8_t *p = ind + at + r * cs[c].stride;
         uint32_t first_instance = (cell * 7) % 40;
         if (cs[c].indexed) {
            int32_t vo = (int32_t)(r % 3) - 1;   /* -1, 0, 1 cells */
            VkDrawIndexedIndirectCommand d = {
               .indexCount = 6, .instanceCount = cs[c].instances,
               .firstIndex = (uint32_t)((int32_t)cell - vo) * 6, .vertexOffset = vo * 6,
               .firstInstance = first_instance,
            };
            memcpy(p, &d, sizeof(d));
         } else {
            VkDrawIndirectCommand d = {
               .vertexCount = 6, .instanceCount = cs[c].instances, .firstVertex = cell * 6,
               .firstInstance = first_instance,
            };
            memcpy(p, &d, sizeof(d));
         }
         if (r >= n)
            continue;
         /* The last instance is drawn last (primitive order). */
         uint32_t px = cell_color(r, first_instance + cs[c].instances - 1);
         int cx = cell % COLS * CELL, cy = cell / COLS * CELL;
         for (int y = cy; y < cy + CELL; y++)
            for (int x = cx; x < cx + CELL; x++)
               ref[y * W + x] = px;
      }
      at += cs[c].max_draw_count * cs[c].stride + 8;
   }
}

static void
run(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const char *dn = vkt_driver_name(which);
   VkPhysicalDeviceShaderDrawParametersFeatures have = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES,
   };
   VkPhysicalDeviceFeatures2 f2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
   };
   bool has_ext = false;
   if (!vkt_query_features(which, &f2, VK_KHR_DRAW_INDIRECT_COUNT_EXTENSION_NAME, &has_ext)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   bool all = has_ext && have.shaderDrawParameters && f2.features.multiDrawIndirect &&
              f2.features.drawIndirectFirstInstance;
   if (which == VKT_SHALE)
      CHECK(all, "Shale: VK_KHR_draw_indirect_count %u, shaderDrawParameters %u", has_ext,
            have.shaderDrawParameters);
   else if (!all)
      printf("lavapipe lacks VK_KHR_draw_indirect_count or a feature: reference run skipped\n");
   if (!all)
      return;
   static const VkPhysicalDeviceFeatures features = {
      .multiDrawIndirect = VK_TRUE,
      .drawIndirectFirstInstance = VK_TRUE,
   };
   VkPhysicalDeviceShaderDrawParametersFeatures want = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES,
      .shaderDrawParameters = VK_TRUE,
   };
   const char *exts[] = { VK_KHR_DRAW_INDIRECT_COUNT_EXTENSION_NAME };
   struct vkt_options o = { .driver = which, .api_version = VK_API_VERSION_1_1,
                            .device_extensions = exts, .device_extension_count = 1,
                            .features = &features, .device_pnext = &want };
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(false, "%s: device with VK_KHR_draw_indirect_count", dn);
      return;
   }
   PFN_vkCmdDrawIndirectCountKHR draw_count =
      (PFN_vkCmdDrawIndirectCountKHR)vkGetDeviceProcAddr(t.device, "vkCmdDrawIndirectCountKHR");
   PFN_vkCmdDrawIndexedIndirectCountKHR draw_indexed_count =
      (PFN_vkCmdDrawIndexedIndirectCountKHR)vkGetDeviceProcAddr(
         t.device, "vkCmdDrawIndexedIndirectCountKHR");
   CHECK(draw_count && draw_indexed_count, "%s: the extension's commands", dn);

   static float verts[VERTS][4];
   static uint32_t indices[VERTS];
   static uint8_t ind_data[IND_BYTES];
   static uint32_t ref[W * H];
   struct ic_case cs[NCASES];
   make_vertices(verts);
   for (uint32_t i = 0; i < VERTS; i++)
      indices[i] = i;
   build(ind_data, cs, ref);

   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   struct vkt_buffer vb = { 0 }, ib = { 0 }, ind = { 0 }, cnt = { 0 };
   uint32_t garbage[COUNT_WORDS];
   for (int i = 0; i < COUNT_WORDS; i++)
      garbage[i] = 1000 + i;
   bool ok = draw_target_create(&t, &dt) == VK_SUCCESS &&
             draw_upload(&t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) ==
                VK_SUCCESS &&
             draw_upload(&t, indices, sizeof(indices), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ib) ==
                VK_SUCCESS &&
             draw_upload(&t, ind_data, sizeof(ind_data), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                         &ind) == VK_SUCCESS &&
             draw_upload(&t, garbage, sizeof(garbage), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &cnt) ==
                VK_SUCCESS;
   if (ok) {
      struct draw_pipeline_info pi = {
         .vs = ic_vert_spv, .vs_size = sizeof(ic_vert_spv),
         .fs = flat_color_frag_spv, .fs_size = sizeof(flat_color_frag_spv),
         .stride = 16, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT },
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .cull_mode = VK_CULL_MODE_NONE, .polygon_mode = VK_POLYGON_MODE_FILL,
      };
      ok = draw_pipeline_create(&t, &dt, &pi, &p) == VK_SUCCESS;
   }
   CHECK(ok, "%s: target, buffers and pipeline", dn);
   if (ok && draw_count && draw_indexed_count) {
      VkCommandBuffer cb = draw_begin(&t, &dt, &p, vb.buffer);
      vkCmdBindIndexBuffer(cb, ib.buffer, 0, VK_INDEX_TYPE_UINT32);
      for (size_t c = 0; c < NCASES; c++) {
         if (cs[c].indexed)
            draw_indexed_count(cb, ind.buffer, cs[c].offset, cnt.buffer, cs[c].count_offset,
                               cs[c].max_draw_count, cs[c].stride);
         else
            draw_count(cb, ind.buffer, cs[c].offset, cnt.buffer, cs[c].count_offset,
                       cs[c].max_draw_count, cs[c].stride);
      }
      /* The counts, after recording: the replay must read these. */
      uint32_t *words = cnt.map;
      for (size_t c = 0; c < NCASES; c++)
         words[cs[c].count_offset / 4] = cs[c].count;
      VkResult r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: draws: %d", dn, r);
      if (r == VK_SUCCESS)
         draw_compare_image(dn, threads, "count draws", dt.readback.map, ref, NULL, W, H,
                            20 * CELL * CELL);
   }
   vkt_buffer_destroy(&t, &cnt);
   vkt_buffer_destroy(&t, &ind);
   vkt_buffer_destroy(&t, &ib);
   vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &p);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
