/* VK_EXT_index_type_uint8 through the loader with the validation layer, on
 * Shale at SHALE_THREADS 1 and 4 and on lavapipe (when it offers the
 * extension): 8-bit indices (VK_INDEX_TYPE_UINT8_EXT) in vkCmdDrawIndexed
 * and vkCmdDrawIndexedIndirect.
 *
 * A 128 x 40 target of 8 x 8-pixel cells (80 cells); vertex 4c + j is
 * corner j of cell c (top-left, bottom-left, top-right, bottom-right), every
 * corner of a cell with the cell's own colour (flat_color.frag), so a
 * triangle made of one cell's corners fills exactly its half of the cell and
 * a quad the whole cell, whatever the provoking vertex; any index read
 * wrong (another width, offset, restart value) takes corners of other cells
 * and paints pixels outside the cells the reference expects. Each case is a
 * render of its own, compared exactly (every pixel) with a CPU reference:
 *   lists with the value 0xff as an ordinary index (vertex 255, cell 63's
 *     last corner: restart is off), index 0 too;
 *   strips with primitive restart on: 0xff restarts (leading, doubled,
 *     trailing, after an incomplete strip), bound at an odd offset with a
 *     nonzero firstIndex, garbage bytes before it that would draw cells;
 *   positive and negative vertexOffset (cells 64 .. 79 reached only so),
 *     and a strip with vertexOffset where 0xff still restarts (the value
 *     before the offset is compared);
 *   vkCmdDrawIndexedIndirect: two records with stride 24 at an offset (lists
 *     with firstIndex and vertexOffset), one on the strip pipeline;
 *   a UINT16 draw and a UINT8 draw of the same buffer in one pass, rebinding
 *     the buffer's type between them.
 * The feature bit is checked on Shale. lavapipe (Mesa 22.3.6) gets the
 * indirect case wrong (it draws cells no record names) and passes the
 * others: its indirect image is not compared. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"

#define W 128
#define H 40
#define CELL 8
#define COLS (W / CELL)
#define CELLS (COLS * (H / CELL))
#define VERTS (CELLS * 4)
#define R 0xff   /* the 8-bit restart value */

static uint32_t
cell_color(uint32_t c)
{
   return (c * 3 + 10) | (255 - 2 * c) << 8 | ((c * 37) & 0xff) << 16 | 0xffu << 24;
}

static void
make_vertices(struct draw_vertex *v)
{
   for (uint32_t c = 0; c < CELLS; c++) {
      float x0 = (float)(c % COLS * CELL) / W * 2 - 1, x1 = x0 + 2.0f * CELL / W;
      float y0 = (float)(c / COLS * CELL) / H * 2 - 1, y1 = y0 + 2.0f * CELL / H;
      const float xy[4][2] = { { x0, y0 }, { x0, y1 }, { x1, y0 }, { x1, y1 } };
      uint32_t col = cell_color(c);
      for (int j = 0; j < 4; j++) {
         struct draw_vertex *p = &v[4 * c + j];
         p->pos[0] = xy[j][0];
         p->pos[1] = xy[j][1];
         p->pos[2] = 0.5f;
         p->pos[3] = 1;
         for (int k = 0; k < 4; k++)
            p->color[k] = (float)(col >> (8 * k) & 0xff) / 255.0f;
      }
   }
}

static void
ref_cell(uint32_t *ref, uint32_t c)
{
   int cx = c % COLS * CELL, cy = c / COLS * CELL;
   for (int y = cy; y < cy + CELL; y++)
      for (int x = cx; x < cx + CELL; x++)
         ref[y * W + x] = cell_color(c);
}

/* The six list indices of cell c's quad (as 8-bit values: c < 64). */
static uint32_t
put_list(uint8_t *ib, uint32_t at, uint32_t c)
{
   static const uint8_t q[6] = { 0, 1, 2, 2, 1, 3 };
   for (int k = 0; k < 6; k++)
      ib[at + k] = (uint8_t)(4 * c + q[k]);
   return at + 6;
}

/* The four strip indices of cell c's quad. */
static uint32_t
put_strip(uint8_t *ib, uint32_t at, uint32_t c)
{
   for (int k = 0; k < 4; k++)
      ib[at + k] = (uint8_t)(4 * c + k);
   return at + 4;
}

/* Index buffer layout (bytes): the offsets each case binds or starts at. */
enum {
   LIST_AT = 0,        /* case 1: lists, 0xff an ordinary index */
   STRIP_AT = 200,     /* case 2: bound at STRIP_AT + 3, firstIndex 5 */
   OFFS_AT = 300,      /* case 3: lists drawn with vertexOffset */
   STRIP_VO_AT = 400,  /* case 4: strips with vertexOffset, restarts */
   IND_AT = 500,       /* case 5: indexed indirect */
   U16_AT = 600,       /* case 6: 16-bit indices (2-aligned) */
   IB_BYTES = 1024,
};

static const uint32_t list_cells[] = { 63, 0, 5, 17, 40, 62, 31, 48 };
#define NLIST (sizeof(list_cells) / sizeof(list_cells[0]))

static void
run(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const char *dn = vkt_driver_name(which);
   VkPhysicalDeviceIndexTypeUint8FeaturesEXT have = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT,
   };
   VkPhysicalDeviceFeatures2 f2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
   };
   bool has_ext = false;
   if (!vkt_query_features(which, &f2, VK_EXT_INDEX_TYPE_UINT8_EXTENSION_NAME, &has_ext)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   bool all = has_ext && have.indexTypeUint8 && f2.features.multiDrawIndirect;
   if (which == VKT_SHALE)
      CHECK(all, "Shale: VK_EXT_index_type_uint8 %u, indexTypeUint8 %u, multiDrawIndirect %u",
            has_ext, have.indexTypeUint8, f2.features.multiDrawIndirect);
   else if (!all)
      printf("lavapipe lacks VK_EXT_index_type_uint8: reference run skipped\n");
   if (!all)
      return;
   static const VkPhysicalDeviceFeatures features = { .multiDrawIndirect = VK_TRUE };
   VkPhysicalDeviceIndexTypeUint8FeaturesEXT want = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT,
      .indexTypeUint8 = VK_TRUE,
   };
   const char *exts[] = { VK_EXT_INDEX_TYPE_UINT8_EXTENSION_NAME };
   struct vkt_options o = { .driver = which, .api_version = VK_API_VERSION_1_1,
                            .device_extensions = exts, .device_extension_count = 1,
                            .features = &features, .device_pnext = &want };
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(false, "%s: device with VK_EXT_index_type_uint8", dn);
      return;
   }

   static struct draw_vertex verts[VERTS];
   make_vertices(verts);
   static uint8_t ib[IB_BYTES];
   /* Garbage everywhere no case reads: indices of cells no reference has. */
   for (uint32_t i = 0; i < IB_BYTES; i++)
      ib[i] = (uint8_t)(4 * 7 + i % 4);   /* cell 7 is drawn by no case */

   static uint32_t ref[6][W * H];
   memset(ref, 0, sizeof(ref));
   uint32_t counts[6] = { 0 };

   /* Case 1: lists; cell 63's corner 3 is index 0xff, cell 0's corner 0
    * index 0. */
   uint32_t at = LIST_AT;
   for (uint32_t i = 0; i < NLIST; i++) {
      at = put_list(ib, at, list_cells[i]);
      ref_cell(ref[0], list_cells[i]);
   }
   counts[0] = at - LIST_AT;

   /* Case 2: strips with restarts, bound at STRIP_AT + 3, firstIndex 5 (the
    * five bytes before the first index are cell 9's strip and a restart:
    * not drawn). */
   at = STRIP_AT + 3;
   at = put_strip(ib, at, 9);
   ib[at++] = R;
   const uint32_t strip_first = at;
   ib[at++] = R;                       /* leading */
   static const uint32_t strip_cells[] = { 1, 20, 33, 50, 61 };
   for (uint32_t i = 0; i < 5; i++) {
      at = put_strip(ib, at, strip_cells[i]);
      ref_cell(ref[1], strip_cells[i]);
      ib[at++] = R;
      if (i == 1)
         ib[at++] = R;                 /* doubled */
      if (i == 2) {                    /* an incomplete strip: nothing */
         ib[at++] = 4 * 44;
         ib[at++] = 4 * 44 + 1;
         ib[at++] = R;
      }
   }
   at = put_strip(ib, at, 14);         /* the last strip, then a trailing restart */
   ref_cell(ref[1], 14);
   ib[at++] = R;
   counts[1] = at - strip_first;

   /* Case 3: lists of cells 2, 12, 60 and 63 drawn with vertexOffset 64
    * (cells 18, 28, 76, 79) and of cells 6, 11 with vertexOffset -4 (cells
    * 5, 10): two draws, firstIndex 2 of a binding at OFFS_AT + 1. */
   at = OFFS_AT + 3;
   static const uint32_t up_cells[] = { 2, 12, 60, 63 }, down_cells[] = { 6, 11 };
   for (uint32_t i = 0; i < 4; i++) {
      at = put_list(ib, at, up_cells[i]);
      ref_cell(ref[2], up_cells[i] + 16);
   }
   const uint32_t down_first = at - (OFFS_AT + 1);
   for (uint32_t i = 0; i < 2; i++) {
      at = put_list(ib, at, down_cells[i]);
      ref_cell(ref[2], down_cells[i] - 1);
   }

   /* Case 4: strips with vertexOffset 8 (two cells on): 0xff restarts
    * though 0xff + 8 is a vertex (cell 65's). */
   at = STRIP_VO_AT;
   static const uint32_t svo_cells[] = { 3, 40, 57, 62 };
   for (uint32_t i = 0; i < 4; i++) {
      at = put_strip(ib, at, svo_cells[i]);
      ref_cell(ref[3], svo_cells[i] + 2);
      ib[at++] = R;
   }
   counts[3] = at - STRIP_VO_AT;

   /* Case 5: indexed indirect from IND_AT: lists of cells 13, 26, 39 and
    * 52, two records (firstIndex 0 with vertexOffset 0, firstIndex 12 with
    * vertexOffset 4: cells 40 and 53), and one record on the strip pipeline
    * (firstIndex 24: strips of cells 19 and 22, restart between,
    * vertexOffset 0). */
   at = IND_AT;
   static const uint32_t ind_cells[] = { 13, 26, 39, 52 };
   for (uint32_t i = 0; i < 4; i++)
      at = put_list(ib, at, ind_cells[i]);
   at = put_strip(ib, at, 19);
   ib[at++] = R;
   at = put_strip(ib, at, 22);
   ref_cell(ref[4], 13);
   ref_cell(ref[4], 26);
   ref_cell(ref[4], 40);
   ref_cell(ref[4], 53);
   ref_cell(ref[4], 19);
   ref_cell(ref[4], 22);

   /* Case 6: the same bytes read as 16-bit indices, then as 8-bit ones, in
    * one pass: 16-bit list indices of cells 66 and 70 (beyond 8-bit reach),
    * then case 1's 8-bit lists again. */
   at = U16_AT;
   static const uint32_t u16_cells[] = { 66, 70 };
   for (uint32_t i = 0; i < 2; i++) {
      static const uint16_t q[6] = { 0, 1, 2, 2, 1, 3 };
      for (int k = 0; k < 6; k++) {
         uint16_t v = (uint16_t)(4 * u16_cells[i] + q[k]);
         memcpy(ib + at, &v, 2);
         at += 2;
      }
      ref_cell(ref[5], u16_cells[i]);
   }
   for (uint32_t i = 0; i < NLIST; i++)
      ref_cell(ref[5], list_cells[i]);

   /* Indirect records: stride 24 (4 bytes of padding, garbage), at 8. */
   enum { IND_OFF = 8, IND_STRIDE = 24 };
   static uint8_t ind_data[128];
   memset(ind_data, 0xa5, sizeof(ind_data));
   const VkDrawIndexedIndirectCommand recs[3] = {
      { .indexCount = 12, .instanceCount = 1, .firstIndex = 0, .vertexOffset = 0 },
      { .indexCount = 12, .instanceCount = 1, .firstIndex = 12, .vertexOffset = 4 },
      { .indexCount = 9, .instanceCount = 1, .firstIndex = 24, .vertexOffset = 0 },
   };
   for (int i = 0; i < 3; i++)
      memcpy(ind_data + IND_OFF + i * IND_STRIDE, &recs[i], sizeof(recs[i]));

   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H };
   struct draw_pipeline list = { 0 }, strip = { 0 };
   struct vkt_buffer vb = { 0 }, ibuf = { 0 }, ind = { 0 };
   bool ok = draw_target_create(&t, &dt) == VK_SUCCESS &&
             draw_upload(&t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) ==
                VK_SUCCESS &&
             draw_upload(&t, ib, sizeof(ib), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ibuf) ==
                VK_SUCCESS &&
             draw_upload(&t, ind_data, sizeof(ind_data), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                         &ind) == VK_SUCCESS;
   if (ok) {
      struct draw_pipeline_info pi;
      draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                       sizeof(flat_color_frag_spv));
      pi.cull_mode = VK_CULL_MODE_NONE;
      ok = draw_pipeline_create(&t, &dt, &pi, &list) == VK_SUCCESS;
      pi.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
      pi.primitive_restart = true;
      ok = ok && draw_pipeline_create(&t, &dt, &pi, &strip) == VK_SUCCESS;
   }
   CHECK(ok, "%s: target, buffers and pipelines", dn);
   static const char *const names[6] = {
      "lists, 0xff an index", "strips, restarts, odd offset", "lists, vertexOffset +-",
      "strips, vertexOffset, restarts", "indexed indirect", "16-bit then 8-bit indices",
   };
   for (int c = 0; c < 6 && ok; c++) {
      VkCommandBuffer cb = draw_begin(&t, &dt, c == 1 || c == 3 ? &strip : &list, vb.buffer);
      switch (c) {
      case 0:
         vkCmdBindIndexBuffer(cb, ibuf.buffer, LIST_AT, VK_INDEX_TYPE_UINT8_EXT);
         vkCmdDrawIndexed(cb, counts[0], 1, 0, 0, 0);
         break;
      case 1:
         vkCmdBindIndexBuffer(cb, ibuf.buffer, STRIP_AT + 3, VK_INDEX_TYPE_UINT8_EXT);
         vkCmdDrawIndexed(cb, counts[1], 1, strip_first - (STRIP_AT + 3), 0, 0);
         break;
      case 2:
         vkCmdBindIndexBuffer(cb, ibuf.buffer, OFFS_AT + 1, VK_INDEX_TYPE_UINT8_EXT);
         vkCmdDrawIndexed(cb, 24, 1, 2, 64, 0);
         vkCmdDrawIndexed(cb, 12, 1, down_first, -4, 0);
         break;
      case 3:
         vkCmdBindIndexBuffer(cb, ibuf.buffer, STRIP_VO_AT, VK_INDEX_TYPE_UINT8_EXT);
         vkCmdDrawIndexed(cb, counts[3], 1, 0, 8, 0);
         break;
      case 4:
         vkCmdBindIndexBuffer(cb, ibuf.buffer, IND_AT, VK_INDEX_TYPE_UINT8_EXT);
         vkCmdDrawIndexedIndirect(cb, ind.buffer, IND_OFF, 2, IND_STRIDE);
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, strip.pipeline);
         vkCmdDrawIndexedIndirect(cb, ind.buffer, IND_OFF + 2 * IND_STRIDE, 1, IND_STRIDE);
         break;
      case 5:
         vkCmdBindIndexBuffer(cb, ibuf.buffer, U16_AT, VK_INDEX_TYPE_UINT16);
         vkCmdDrawIndexed(cb, 12, 1, 0, 0, 0);
         vkCmdBindIndexBuffer(cb, ibuf.buffer, LIST_AT, VK_INDEX_TYPE_UINT8_EXT);
         vkCmdDrawIndexed(cb, counts[0], 1, 0, 0, 0);
         break;
      }
      VkResult r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: %d", dn, names[c], r);
      /* lavapipe (Mesa 22.3.6) draws other cells (0, 6, 18, 63, ...) for
       * 8-bit indexed indirect draws, where its direct draws of the same
       * indices agree with the reference: its bug, not compared. */
      if (r == VK_SUCCESS && which == VKT_LAVAPIPE && c == 4) {
         printf("lavapipe: %s not compared (its 8-bit indirect draws are wrong)\n", names[c]);
         continue;
      }
      if (r == VK_SUCCESS)
         draw_compare_image(dn, threads, names[c], dt.readback.map, ref[c], NULL, W, H,
                            2 * CELL * CELL);
   }
   vkt_buffer_destroy(&t, &ind);
   vkt_buffer_destroy(&t, &ibuf);
   vkt_buffer_destroy(&t, &vb);
   draw_pipeline_destroy(&t, &strip);
   draw_pipeline_destroy(&t, &list);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
