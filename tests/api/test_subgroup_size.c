/* Subgroup size control (VK_EXT_subgroup_size_control: subgroupSizeControl,
 * computeFullSubgroups; core in Vulkan 1.3, both required by it) through the
 * loader with the validation layer, on Shale and (when it offers it)
 * lavapipe: the properties (minSubgroupSize 4, maxSubgroupSize 16, compute
 * stages; subgroupSize between them), then sg_size.comp (workgroups of
 * 32x2) in pipelines with REQUIRE_FULL_SUBGROUPS and each required size
 * from minSubgroupSize to maxSubgroupSize, and in one with neither: every
 * invocation's gl_SubgroupSize must be the required size (the default
 * subgroupSize without one), gl_NumSubgroups 64 / size, subgroup ids and
 * lanes a partition of the workgroup in local invocation order with every
 * subgroup full (ballot count = size), and each subgroup sum equal to the C
 * sum over its lanes. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "sg_size_spv.h"

#define GROUPS 4
#define N (GROUPS * 64)
#define WORDS 6

static uint32_t in[N];

static void
check_run(const char *drv, uint32_t size, const uint32_t *o, bool full_required)
{
   unsigned bad = 0;
   for (uint32_t g = 0; g < N; g++) {
      const uint32_t *w = o + g * WORDS;
      uint32_t local = g % 64, sg = local / size, lane = local % size;
      uint32_t sum = 0;
      for (uint32_t l = 0; l < size; l++)
         sum += in[g - lane + l];
      const uint32_t want[WORDS] = { size, 64 / size, sg, lane, size, sum };
      for (int k = 0; k < WORDS; k++)
         if (w[k] != want[k] && bad++ < 6)
            printf("%s size %u%s: invocation %u word %d: %u, expected %u\n", drv, size,
                   full_required ? " (full)" : "", g, k, w[k], want[k]);
   }
   CHECK(bad == 0, "%s: subgroup size %u: %u words differ", drv, size, bad);
}

static void
run(struct vkt *t, const VkPhysicalDeviceSubgroupSizeControlProperties *sc,
    uint32_t default_size)
{
   const char *drv = vkt_driver_name(t->driver);
   VkDescriptorSetLayoutBinding b[2];
   for (uint32_t i = 0; i < 2; i++)
      b[i] = (VkDescriptorSetLayoutBinding) {
         .binding = i, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1,
         .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
      };
   const struct vkt_kernel_info info = {
      .code = sg_size_spv, .code_size = sizeof(sg_size_spv),
      .bindings = { b, NULL }, .binding_counts = { 2, 0 }, .no_pipeline = true,
   };
   struct vkt_kernel k;
   VkResult r = vkt_kernel_create(t, &info, &k);
   CHECK(r == VK_SUCCESS, "%s: sg_size.comp's module and layout: %d", drv, r);
   struct vkt_buffer bufs[2];
   memset(bufs, 0, sizeof(bufs));
   for (int i = 0; r == VK_SUCCESS && i < 2; i++)
      r = vkt_buffer_create(t, i ? 4 * N * WORDS : sizeof(in), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                            &bufs[i]);
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 };
      r = vkt_descriptor_pool(t, 1, &ps, 1, 0, &pool);
      if (r == VK_SUCCESS)
         r = vkt_alloc_sets(t, pool, k.set_layouts, 1, &set);
   }
   CHECK(r == VK_SUCCESS, "%s: buffers and set: %d", drv, r);
   if (r == VK_SUCCESS) {
      memcpy(bufs[0].map, in, sizeof(in));
      VkBuffer handles[2] = { bufs[0].buffer, bufs[1].buffer };
      vkt_bind_buffers(t, set, NULL, handles, 2);
   }
   /* size 0: no required size, no flags */
   for (uint32_t size = sc->minSubgroupSize; r == VK_SUCCESS; size *= 2) {
      bool none = size > sc->maxSubgroupSize;
      VkPipelineShaderStageRequiredSubgroupSizeCreateInfo req = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
         .requiredSubgroupSize = size,
      };
      const VkComputePipelineCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
         .stage = {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .pNext = none ? NULL : &req,
            .flags = none ? 0 : VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT,
            .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = k.module, .pName = "main",
         },
         .layout = k.layout,
      };
      VkPipeline pipe = VK_NULL_HANDLE;
      r = vkCreateComputePipelines(t->device, VK_NULL_HANDLE, 1, &ci, NULL, &pipe);
      CHECK(r == VK_SUCCESS, "%s: pipeline of subgroup size %u: %d", drv, size, r);
      if (r != VK_SUCCESS)
         break;
      k.pipeline = pipe;
      memset(bufs[1].map, 0xff, 4 * N * WORDS);
      r = vkt_dispatch(t, &k, &set, 1, NULL, 0, GROUPS, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
      if (r == VK_SUCCESS)
         check_run(drv, none ? default_size : size, bufs[1].map, !none);
      vkDestroyPipeline(t->device, pipe, NULL);
      k.pipeline = VK_NULL_HANDLE;
      if (none)
         break;
   }
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   for (int i = 0; i < 2; i++)
      vkt_buffer_destroy(t, &bufs[i]);
   vkt_kernel_destroy(t, &k);
}

int
main(void)
{
   for (uint32_t i = 0; i < N; i++)
      in[i] = i * 2654435761u;
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      const char *dn = vkt_driver_name(drv);
      VkPhysicalDeviceSubgroupSizeControlFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &have };
      bool has_ext;
      const char *ext = VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool ok = has_ext && have.subgroupSizeControl && have.computeFullSubgroups;
      if (drv == VKT_SHALE)
         CHECK(ok, "Shale: %s %u, subgroupSizeControl %u, computeFullSubgroups %u", ext, has_ext,
               have.subgroupSizeControl, have.computeFullSubgroups);
      if (!ok) {
         printf("%s lacks subgroup size control: skipped\n", dn);
         continue;
      }
      VkPhysicalDeviceSubgroupSizeControlFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
         .subgroupSizeControl = VK_TRUE, .computeFullSubgroups = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = &ext, .device_extension_count = 1,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with subgroup size control", dn);
         continue;
      }
      VkPhysicalDeviceSubgroupSizeControlProperties sc = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES,
      };
      VkPhysicalDeviceSubgroupProperties sg = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = &sc,
      };
      VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &sg };
      vkGetPhysicalDeviceProperties2(t.pdev, &p2);
      printf("%s: subgroup sizes %u..%u, default %u, stages 0x%x, %u subgroups a workgroup\n", dn,
             sc.minSubgroupSize, sc.maxSubgroupSize, sg.subgroupSize,
             sc.requiredSubgroupSizeStages, sc.maxComputeWorkgroupSubgroups);
      if (drv == VKT_SHALE)
         CHECK(sc.minSubgroupSize == 4 && sc.maxSubgroupSize == 16 &&
                  (sc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                  sg.subgroupSize >= sc.minSubgroupSize && sg.subgroupSize <= sc.maxSubgroupSize &&
                  sc.maxComputeWorkgroupSubgroups * sc.minSubgroupSize >=
                     t.props.limits.maxComputeWorkGroupInvocations,
               "Shale: subgroup size control properties");
      bool usable = (sc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                    sc.minSubgroupSize >= 1 && sc.maxSubgroupSize <= 64 &&
                    (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                    (sg.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
      if (usable)
         run(&t, &sc, sg.subgroupSize);
      else
         printf("%s: no compute subgroup sizes to require: skipped\n", dn);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
