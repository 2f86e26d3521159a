/* Stage inputs and outputs of 16 and 64 bits through the loader with the
 * validation layer, on Shale and (when it has the features) lavapipe.
 *
 * 16-bit (storageInputOutput16): io16.vert reads R16G16_SFLOAT,
 * R16G16_SINT and R16G16B16A16_UINT vertex attributes into 16-bit inputs
 * and writes flat 16-bit float, signed and unsigned outputs (one copied
 * from an input, others narrowed from 32-bit values, one truncated) and a
 * smooth 16-bit float sharing a Location; io16.frag stores what it
 * receives per pixel as 32-bit words and copies the flat float vector to a
 * 16-bit output into an R16G16B16A16_SFLOAT attachment. Flat values and the
 * attachment are compared exactly with the provoking vertex's values, the
 * smooth one with the interpolated NDC x within 1e-3.
 *
 * 64-bit (shaderFloat64, shaderInt64): io64.vert writes flat double,
 * dvec3 (two Locations), dvec4, u64vec2 and int64_t outputs, two of them
 * sharing a Location with a float (at Component 2 and at Component 0);
 * io64.frag stores every word it receives, compared bit for bit with the
 * same expressions computed in C. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "io16_frag_spv.h"
#include "io16_vert_spv.h"
#include "io64_frag_spv.h"
#include "io64_vert_spv.h"

#define SIZE 8
#define REC16 12
#define REC64 28

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static void
dwords(double d, uint32_t *w)
{
   uint64_t u;
   memcpy(&u, &d, 8);
   w[0] = (uint32_t)u;
   w[1] = (uint32_t)(u >> 32);
}

static void
qwords(uint64_t u, uint32_t *w)
{
   w[0] = (uint32_t)u;
   w[1] = (uint32_t)(u >> 32);
}

struct vtx16 {
   uint16_t pos[2];
   int16_t ival[2];
   uint16_t uval[4];
};

/* Draws a full-screen triangle with (vs, fs), the fragment shader storing
 * `words` words per pixel into set 0's buffer; returns false if it could
 * not. The stored words are left in out->map. */
static bool
draw(struct vkt *t, const char *what, const uint32_t *vs, size_t vs_size, const uint32_t *fs,
     size_t fs_size, VkFormat color, const struct draw_pipeline_info *vi, const void *verts,
     size_t verts_size, uint32_t words, struct draw_target *dt, struct vkt_buffer *out)
{
   const char *drv = vkt_driver_name(t->driver);
   *dt = (struct draw_target) { .color_format = color, .width = SIZE, .height = SIZE };
   VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   struct vkt_buffer vb;
   memset(&vb, 0, sizeof(vb));
   memset(out, 0, sizeof(*out));
   bool ok = draw_target_create(t, dt) == VK_SUCCESS &&
             draw_single_set(t, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT,
                             &set_layout, &pool, &set) == VK_SUCCESS &&
             vkt_buffer_create(t, 4ull * words * SIZE * SIZE, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               out) == VK_SUCCESS &&
             (!verts || draw_upload(t, verts, verts_size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) ==
                           VK_SUCCESS);
   if (ok) {
      struct draw_pipeline_info pi = *vi;
      pi.vs = vs;
      pi.vs_size = vs_size;
      pi.fs = fs;
      pi.fs_size = fs_size;
      pi.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
      pi.polygon_mode = VK_POLYGON_MODE_FILL;
      pi.set_layout = set_layout;
      ok = draw_pipeline_create(t, dt, &pi, &p) == VK_SUCCESS;
   }
   CHECK(ok, "%s: %s: target, buffers and pipeline", drv, what);
   if (ok) {
      memset(out->map, 0, 4ull * words * SIZE * SIZE);
      VkBuffer bufs[1] = { out->buffer };
      vkt_bind_buffers(t, set, NULL, bufs, 1);
      VkCommandBuffer cb = draw_begin(t, dt, &p, vb.buffer);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0, NULL);
      vkCmdDraw(cb, 3, 1, 0, 0);
      VkResult r = draw_end(t, dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: draw: %d", drv, what, r);
      ok = r == VK_SUCCESS;
   }
   vkt_buffer_destroy(t, &vb);
   draw_pipeline_destroy(t, &p);
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   if (set_layout)
      vkDestroyDescriptorSetLayout(t->device, set_layout, NULL);
   return ok;
}

static void
run16(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   /* Halves: -1, 3 for positions; the provoking vertex is vertex 0. */
   const struct vtx16 v[3] = {
      { { 0xbc00, 0xbc00 }, { -1234, 32767 }, { 65535, 7, 40000, 2048 } },
      { { 0x4200, 0xbc00 }, { 5, 6 }, { 1, 2, 3, 4 } },
      { { 0xbc00, 0x4200 }, { -7, -8 }, { 9, 10, 11, 12 } },
   };
   struct draw_pipeline_info pi = {
      .stride = sizeof(struct vtx16), .attrib_count = 3,
      .attrib_format = { VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_R16G16_SINT,
                         VK_FORMAT_R16G16B16A16_UINT },
      .attrib_offset = { 0, 4, 8 },
   };
   struct draw_target dt;
   struct vkt_buffer out;
   if (draw(t, "16-bit", io16_vert_spv, sizeof(io16_vert_spv), io16_frag_spv,
            sizeof(io16_frag_spv), VK_FORMAT_R16G16B16A16_SFLOAT, &pi, v, sizeof(v), REC16, &dt,
            &out)) {
      const uint32_t want[11] = {
         fbits(-1.0f), fbits(-1.0f), fbits(-308.5f), fbits(2048.0f),
         (uint32_t)-1234, 32767, 0, 8, 40001, 0, 1,
      };
      static const uint16_t want_color[4] = { 0xbc00, 0xbc00, 0xdcd2, 0x6800 };   /* -308.5 */
      const uint32_t *got = out.map;
      const uint16_t *color = dt.readback.map;
      unsigned bad = 0, far = 0, bad_color = 0;
      for (int i = 0; i < SIZE * SIZE; i++) {
         const uint32_t *g = got + i * REC16;
         for (int k = 0; k < 11; k++)
            if (k != 9 && g[k] != want[k] && bad++ < 6)
               printf("%s: pixel %d word %d: 0x%08x, expected 0x%08x\n", drv, i, k, g[k], want[k]);
         float sh;
         memcpy(&sh, &g[9], 4);
         double ndc_x = (i % SIZE + 0.5) / (SIZE / 2.0) - 1.0;
         if (!(fabs(sh - ndc_x) <= 1e-3) && far++ < 4)
            printf("%s: pixel %d: smooth 16-bit input %g, expected %g\n", drv, i, sh, ndc_x);
         for (int c = 0; c < 4; c++)
            if (color[i * 4 + c] != want_color[c] && bad_color++ < 4)
               printf("%s: pixel %d: 16-bit output channel %d 0x%04x, expected 0x%04x\n", drv, i,
                      c, color[i * 4 + c], want_color[c]);
      }
      CHECK(bad == 0, "%s: %u flat 16-bit input words differ", drv, bad);
      CHECK(far == 0, "%s: %u smooth 16-bit inputs off", drv, far);
      CHECK(bad_color == 0, "%s: %u 16-bit fragment output channels differ", drv, bad_color);
   }
   vkt_buffer_destroy(t, &out);
   draw_target_destroy(t, &dt);
}

static void
run64(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   struct draw_pipeline_info pi = { .attrib_count = 0 };
   struct draw_target dt;
   struct vkt_buffer out;
   if (draw(t, "64-bit", io64_vert_spv, sizeof(io64_vert_spv), io64_frag_spv,
            sizeof(io64_frag_spv), VK_FORMAT_R8G8B8A8_UNORM, &pi, NULL, 0, REC64, &dt, &out)) {
      /* The provoking vertex: vid 0. */
      volatile double three = 3.0, seven = 7.0;
      double d = 1.0 / three;
      uint32_t want[25];
      dwords(d, want + 0);
      want[2] = fbits(0.5f);
      dwords(d * 1.0e10, want + 3);
      dwords(-d, want + 5);
      dwords(1.0e300 * d, want + 7);
      qwords(0x123456789abcdef0ull, want + 9);
      qwords(~0ull, want + 11);
      dwords(-d, want + 13);
      dwords(d / seven, want + 15);
      dwords(2.5e-300, want + 17);
      dwords(-0.125, want + 19);
      want[21] = fbits(-3.0f);
      qwords((uint64_t)(-0x100000000ll * 3 + 5), want + 22);
      want[24] = 1;
      const uint32_t *got = out.map;
      unsigned bad = 0;
      for (int i = 0; i < SIZE * SIZE; i++)
         for (int k = 0; k < 25; k++)
            if (got[i * REC64 + k] != want[k] && bad++ < 6)
               printf("%s: pixel %d word %d: 0x%08x, expected 0x%08x\n", drv, i, k,
                      got[i * REC64 + k], want[k]);
      CHECK(bad == 0, "%s: %u words of 64-bit inputs differ", drv, bad);
   }
   vkt_buffer_destroy(t, &out);
   draw_target_destroy(t, &dt);
}

int
main(void)
{
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      VkPhysicalDevice16BitStorageFeatures have16 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have16,
      };
      if (!vkt_query_features(drv, &f2, NULL, NULL)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool io16 = have16.storageInputOutput16 && f2.features.fragmentStoresAndAtomics;
      bool io64 = f2.features.shaderFloat64 && f2.features.shaderInt64 &&
                  f2.features.fragmentStoresAndAtomics;
      if (drv == VKT_SHALE)
         CHECK(io16 && io64, "Shale: storageInputOutput16 %u, shaderFloat64 %u, shaderInt64 %u",
               have16.storageInputOutput16, f2.features.shaderFloat64, f2.features.shaderInt64);
      else if (!io16 || !io64)
         printf("lavapipe: storageInputOutput16 %u, 64-bit %u: those reference runs skipped\n",
                io16, io64);
      VkPhysicalDevice16BitStorageFeatures want16 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
         .storageInputOutput16 = io16,
      };
      VkPhysicalDeviceFeatures features = {
         .shaderFloat64 = io64, .shaderInt64 = io64, .fragmentStoresAndAtomics = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .features = &features, .device_pnext = &want16 };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device", vkt_driver_name(drv));
         continue;
      }
      if (io16)
         run16(&t);
      if (io64)
         run64(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
