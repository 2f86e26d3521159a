/* The Vulkan memory model (vulkanMemoryModel, vulkanMemoryModelDeviceScope;
 * VK_KHR_vulkan_memory_model, promoted to Vulkan 1.2, required by 1.3)
 * through the loader with the validation layer, on Shale at SHALE_THREADS 1
 * and 4 (and lavapipe, shown only: Mesa 22.3.6 writes nothing with this
 * module): vmm.comp (OpMemoryModel Logical Vulkan) sums 512
 * workgroups of 64 inputs through shared memory behind a workgroup-scope
 * acquire-release barrier, stores each workgroup's sum with
 * MakePointerAvailable and takes a ticket with a device-scope acquire-release
 * atomic add; the workgroup with the last ticket reads every sum with
 * MakePointerVisible and writes the total, its id and how many sums it saw.
 * Twenty dispatches, each checked: the counter equals the number of
 * workgroups, the last workgroup saw all of them nonzero, the total equals
 * the C sum of the inputs, each stored sum equals its workgroup's. With more
 * than one thread the workgroups run concurrently, so the release / acquire
 * pairs are what makes the sums visible to the last one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"
#include "xorshift.h"

#include "vmm_spv.h"

#define GROUPS 512
#define LOCAL 64
#define ROUNDS 20

static uint32_t data[GROUPS * LOCAL];

static uint64_t rng = 0x1D8E4E27C47D124Full;

static uint32_t
rnd(void)
{
   return xorshift64_u32(&rng);
}

static void
run(enum vkt_driver drv, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   else
      unsetenv("SHALE_THREADS");
   const char *dn = vkt_driver_name(drv);
   const char *th = threads ? threads : "-";
   VkPhysicalDeviceVulkanMemoryModelFeatures have = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
   };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &have };
   bool has_ext;
   const char *ext = VK_KHR_VULKAN_MEMORY_MODEL_EXTENSION_NAME;
   if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
      CHECK(drv == VKT_LAVAPIPE, "shale not available");
      return;
   }
   bool ok = has_ext && have.vulkanMemoryModel && have.vulkanMemoryModelDeviceScope;
   if (drv == VKT_SHALE)
      CHECK(ok, "Shale: %s %u, vulkanMemoryModel %u, DeviceScope %u", ext, has_ext,
            have.vulkanMemoryModel, have.vulkanMemoryModelDeviceScope);
   if (!ok) {
      printf("%s lacks the Vulkan memory model: skipped\n", dn);
      return;
   }
   VkPhysicalDeviceVulkanMemoryModelFeatures want = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES,
      .vulkanMemoryModel = VK_TRUE, .vulkanMemoryModelDeviceScope = VK_TRUE,
   };
   struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                               .device_extensions = &ext, .device_extension_count = 1,
                               .device_pnext = &want };
   struct vkt t;
   if (!vkt_init(&t, &opts)) {
      CHECK(false, "%s: device with vulkanMemoryModel", dn);
      return;
   }
   const struct vkt_ssbo_info info = { .code = vmm_spv, .code_size = sizeof(vmm_spv), .n = 3 };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(&t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: vmm.comp's pipeline: %d", dn, r);
   const VkDeviceSize sizes[3] = { sizeof(data), 4 * GROUPS, 16 };
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(&t, &s, sizes);
   if (r == VK_SUCCESS)
      r = vkt_ssbo_set(&t, &s);
   CHECK(r == VK_SUCCESS, "%s: buffers and set: %d", dn, r);
   if (r == VK_SUCCESS)
      memcpy(s.bufs[0].map, data, sizeof(data));
   uint32_t want_total = 0, want_part[GROUPS];
   for (int g = 0; g < GROUPS; g++) {
      want_part[g] = 0;
      for (int l = 0; l < LOCAL; l++)
         want_part[g] += data[g * LOCAL + l];
      want_total += want_part[g];
   }
   unsigned bad_rounds = 0;
   for (int round = 0; r == VK_SUCCESS && round < ROUNDS; round++) {
      memset(s.bufs[1].map, 0, sizes[1]);
      memset(s.bufs[2].map, 0, sizes[2]);
      r = vkt_ssbo_dispatch(&t, &s, NULL, 0, GROUPS, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", dn, r);
      const uint32_t *ctl = s.bufs[2].map, *part = s.bufs[1].map;
      unsigned bad_part = 0;
      for (int g = 0; g < GROUPS; g++)
         bad_part += part[g] != want_part[g];
      bool good = ctl[0] == GROUPS && ctl[1] == want_total && ctl[2] < GROUPS &&
                  ctl[3] == GROUPS && bad_part == 0;
      if (!good && bad_rounds++ < 4)
         printf("%s (%s) round %d: counter %u, total 0x%08x (0x%08x), last %u, saw %u of %u, "
                "%u sums wrong\n",
                dn, th, round, ctl[0], ctl[1], want_total, ctl[2], ctl[3], GROUPS, bad_part);
   }
   /* lavapipe (Mesa 22.3.6) leaves every buffer untouched with this module
    * (counter 0): shown, not held against the test. */
   if (drv == VKT_SHALE)
      CHECK(bad_rounds == 0, "%s (%s): %u of %d rounds wrong", dn, th, bad_rounds, ROUNDS);
   else if (bad_rounds)
      printf("%s: %u of %d rounds wrong (not checked)\n", dn, bad_rounds, ROUNDS);
   vkt_ssbo_end(&t, &s);
   vkt_finish(&t);
}

int
main(void)
{
   for (int i = 0; i < GROUPS * LOCAL; i++)
      data[i] = 1 + rnd() % 1000;
   run(VKT_SHALE, "1");
   run(VKT_SHALE, "4");
   run(VKT_LAVAPIPE, NULL);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
