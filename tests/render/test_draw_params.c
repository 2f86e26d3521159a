/* Shader draw parameters (Vulkan 1.1's shaderDrawParameters; BaseVertex,
 * BaseInstance and DrawIndex, SPV_KHR_shader_draw_parameters) through the
 * loader with the validation layer, on Shale and (when present) lavapipe:
 * dp.vert stores VertexIndex, InstanceIndex, BaseVertex, BaseInstance and
 * DrawIndex of every vertex invocation into a slot found from them (see the
 * shader), for vkCmdDraw with a nonzero firstVertex and firstInstance,
 * vkCmdDrawIndexed with positive and negative vertexOffset and a nonzero
 * firstIndex and firstInstance, and multi-draw vkCmdDrawIndirect and
 * vkCmdDrawIndexedIndirect (DrawIndex 0, 1, 2). The whole buffer is
 * compared with what the draws must write, untouched slots included. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "dp_vert_spv.h"

#define SLOTS 256

struct out {
   uint32_t rec[SLOTS][4];
   uint32_t did[SLOTS];
};

/* One draw as the shader sees it. */
struct one_draw {
   bool indexed;
   uint32_t count, instances, first;
   int32_t vertex_offset;
   uint32_t first_instance, draw_index, group;
};

static const uint32_t indices[] = { 7, 7, 0, 1, 2, 5, 6, 7, 3, 4, 5, 2, 0 };

static void
expect(struct out *o, const struct one_draw *d)
{
   for (uint32_t i = 0; i < d->instances; i++)
      for (uint32_t k = 0; k < d->count; k++) {
         uint32_t local = d->indexed ? indices[d->first + k] : k;
         uint32_t vi = d->indexed ? indices[d->first + k] + (uint32_t)d->vertex_offset
                                  : d->first + k;
         uint32_t base_vertex = d->indexed ? (uint32_t)d->vertex_offset : d->first;
         uint32_t slot = (d->group + d->draw_index) * 32 + i * 8 + local;
         uint32_t *r = o->rec[slot];
         r[0] = vi;
         r[1] = d->first_instance + i;
         r[2] = base_vertex;
         r[3] = d->first_instance;
         o->did[slot] = d->draw_index + 1;
      }
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   struct draw_target dt = {
      .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 4, .height = 4,
   };
   VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   struct vkt_buffer out, ib, ind, indexed_ind;
   memset(&out, 0, sizeof(out));
   memset(&ib, 0, sizeof(ib));
   memset(&ind, 0, sizeof(ind));
   memset(&indexed_ind, 0, sizeof(indexed_ind));
   const VkDrawIndirectCommand ic[3] = {
      { 3, 1, 10, 0 }, { 6, 2, 0, 1 }, { 3, 4, 1000, 9 },
   };
   const VkDrawIndexedIndirectCommand iic[2] = {
      { 3, 2, 2, 50, 11 }, { 3, 1, 5, -1, 0 },
   };
   bool ok = draw_target_create(t, &dt) == VK_SUCCESS &&
             draw_single_set(t, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT,
                             &set_layout, &pool, &set) == VK_SUCCESS &&
             vkt_buffer_create(t, sizeof(struct out), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               &out) == VK_SUCCESS &&
             draw_upload(t, indices, sizeof(indices), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &ib) ==
                VK_SUCCESS &&
             draw_upload(t, ic, sizeof(ic), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &ind) ==
                VK_SUCCESS &&
             draw_upload(t, iic, sizeof(iic), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT,
                         &indexed_ind) == VK_SUCCESS;
   if (ok) {
      struct draw_pipeline_info pi = {
         .vs = dp_vert_spv, .vs_size = sizeof(dp_vert_spv),
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .polygon_mode = VK_POLYGON_MODE_FILL,
         .push_size = 4,
         .set_layout = set_layout,
      };
      ok = draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
   }
   CHECK(ok, "%s: target, buffers and the pipeline of dp.vert", drv);
   if (ok) {
      memset(out.map, 0, sizeof(struct out));
      VkBuffer bufs[1] = { out.buffer };
      vkt_bind_buffers(t, set, NULL, bufs, 1);
      VkCommandBuffer cb = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0, NULL);
      vkCmdBindIndexBuffer(cb, ib.buffer, 0, VK_INDEX_TYPE_UINT32);
      const VkShaderStageFlags stages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
      uint32_t group = 0;
      vkCmdPushConstants(cb, p.layout, stages, 0, 4, &group);
      vkCmdDraw(cb, 3, 2, 5, 7);
      group = 1;
      vkCmdPushConstants(cb, p.layout, stages, 0, 4, &group);
      vkCmdDrawIndexed(cb, 6, 3, 2, 100, 3);
      group = 2;
      vkCmdPushConstants(cb, p.layout, stages, 0, 4, &group);
      vkCmdDrawIndexed(cb, 3, 1, 8, -3, 0);
      group = 3;
      vkCmdPushConstants(cb, p.layout, stages, 0, 4, &group);
      vkCmdDrawIndirect(cb, ind.buffer, 0, 3, sizeof(VkDrawIndirectCommand));
      group = 6;
      vkCmdPushConstants(cb, p.layout, stages, 0, 4, &group);
      vkCmdDrawIndexedIndirect(cb, indexed_ind.buffer, 0, 2, sizeof(VkDrawIndexedIndirectCommand));
      VkResult r = draw_end(t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: draws: %d", drv, r);

      static struct out want;
      memset(&want, 0, sizeof(want));
      const struct one_draw draws[] = {
         { false, 3, 2, 5, 0, 7, 0, 0 },
         { true, 6, 3, 2, 100, 3, 0, 1 },
         { true, 3, 1, 8, -3, 0, 0, 2 },
         { false, 3, 1, 10, 0, 0, 0, 3 },
         { false, 6, 2, 0, 0, 1, 1, 3 },
         { false, 3, 4, 1000, 0, 9, 2, 3 },
         { true, 3, 2, 2, 50, 11, 0, 6 },
         { true, 3, 1, 5, -1, 0, 1, 6 },
      };
      for (size_t i = 0; i < sizeof(draws) / sizeof(draws[0]); i++)
         expect(&want, &draws[i]);
      const struct out *got = out.map;
      unsigned bad = 0, used = 0;
      static const char *const names[4] = { "VertexIndex", "InstanceIndex", "BaseVertex",
                                            "BaseInstance" };
      for (int s = 0; s < SLOTS; s++) {
         used += want.did[s] != 0;
         if (got->did[s] != want.did[s] && bad++ < 6)
            printf("%s: slot %d: DrawIndex + 1 = %u, expected %u\n", drv, s, got->did[s],
                   want.did[s]);
         for (int c = 0; c < 4; c++)
            if (got->rec[s][c] != want.rec[s][c] && bad++ < 6)
               printf("%s: slot %d: %s %d, expected %d\n", drv, s, names[c],
                      (int)got->rec[s][c], (int)want.rec[s][c]);
      }
      CHECK(used > 40, "%s: only %u slots expected (the test's draws are wrong)", drv, used);
      CHECK(bad == 0, "%s: %u draw parameter values differ (of %u slots written)", drv, bad, used);
   }
   vkt_buffer_destroy(t, &indexed_ind);
   vkt_buffer_destroy(t, &ind);
   vkt_buffer_destroy(t, &ib);
   vkt_buffer_destroy(t, &out);
   draw_pipeline_destroy(t, &p);
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   if (set_layout)
      vkDestroyDescriptorSetLayout(t->device, set_layout, NULL);
   draw_target_destroy(t, &dt);
}

int
main(void)
{
   static const VkPhysicalDeviceFeatures features = {
      .multiDrawIndirect = VK_TRUE,
      .drawIndirectFirstInstance = VK_TRUE,
      .vertexPipelineStoresAndAtomics = VK_TRUE,
   };
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      VkPhysicalDeviceShaderDrawParametersFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      if (!vkt_query_features(drv, &f2, VK_KHR_SHADER_DRAW_PARAMETERS_EXTENSION_NAME, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool all = have.shaderDrawParameters && f2.features.multiDrawIndirect &&
                 f2.features.drawIndirectFirstInstance &&
                 f2.features.vertexPipelineStoresAndAtomics;
      if (drv == VKT_SHALE)
         CHECK(all && has_ext, "Shale: shaderDrawParameters %u, extension %u",
               have.shaderDrawParameters, has_ext);
      else if (!all)
         printf("lavapipe lacks a feature: reference run skipped\n");
      if (!all)
         continue;
      VkPhysicalDeviceShaderDrawParametersFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES,
         .shaderDrawParameters = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .features = &features, .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with shaderDrawParameters", vkt_driver_name(drv));
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
