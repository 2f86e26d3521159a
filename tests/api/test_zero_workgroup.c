/* Zero-initialized workgroup memory (shaderZeroInitializeWorkgroupMemory,
 * VK_KHR_zero_initialize_workgroup_memory; core in Vulkan 1.3 and required
 * by it) through the loader with the validation layer, on Shale at
 * SHALE_THREADS 1 and 4 and on lavapipe: zero_wg.comp, 256 workgroups of
 * 64, reads a null-initialized shared array and struct before any
 * invocation writes them (every word must be 0), then overwrites them
 * behind a barrier and reads them again (each element must be the value
 * its writer stored): a workgroup that saw the previous workgroup's values
 * on the same thread, or an invocation that saw another's, fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "zero_wg_spv.h"

#define GROUPS 256
#define N (GROUPS * 64)

static void
run(enum vkt_driver drv, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   else
      unsetenv("SHALE_THREADS");
   const char *dn = vkt_driver_name(drv);
   const char *th = threads ? threads : "-";
   VkPhysicalDeviceZeroInitializeWorkgroupMemoryFeatures have = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ZERO_INITIALIZE_WORKGROUP_MEMORY_FEATURES,
   };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &have };
   bool has_ext;
   const char *ext = VK_KHR_ZERO_INITIALIZE_WORKGROUP_MEMORY_EXTENSION_NAME;
   if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
      CHECK(drv == VKT_LAVAPIPE, "shale not available");
      return;
   }
   bool ok = has_ext && have.shaderZeroInitializeWorkgroupMemory;
   if (drv == VKT_SHALE)
      CHECK(ok, "Shale: %s %u, shaderZeroInitializeWorkgroupMemory %u", ext, has_ext,
            have.shaderZeroInitializeWorkgroupMemory);
   if (!ok) {
      printf("%s lacks zero-initialized workgroup memory: skipped\n", dn);
      return;
   }
   have.pNext = NULL;
   struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                               .device_extensions = &ext, .device_extension_count = 1,
                               .device_pnext = &have };
   struct vkt t;
   if (!vkt_init(&t, &opts)) {
      CHECK(false, "%s: device with zero-initialized workgroup memory", dn);
      return;
   }
   const struct vkt_ssbo_info info = {
      .code = zero_wg_spv, .code_size = sizeof(zero_wg_spv), .n = 1,
   };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(&t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: zero_wg.comp's pipeline: %d", dn, r);
   const VkDeviceSize size = 8 * N;
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(&t, &s, &size);
   if (r == VK_SUCCESS)
      r = vkt_ssbo_set(&t, &s);
   CHECK(r == VK_SUCCESS, "%s: buffer and set: %d", dn, r);
   /* Twice: the second dispatch finds the memory the first left behind. */
   for (int round = 0; r == VK_SUCCESS && round < 2; round++) {
      memset(s.bufs[0].map, 0xff, 8 * N);
      r = vkt_ssbo_dispatch(&t, &s, NULL, 0, GROUPS, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", dn, r);
      const uint32_t *o = s.bufs[0].map;
      unsigned bad = 0;
      for (uint32_t g = 0; r == VK_SUCCESS && g < N; g++) {
         uint32_t l = g % 64, base = g - l;
         uint32_t after = base + ((l + 17) & 63) + 1 + 7;
         if (o[2 * g] != 0 && bad++ < 6)
            printf("%s (%s): invocation %u read 0x%x before any write, expected 0\n", dn, th, g,
                   o[2 * g]);
         if (o[2 * g + 1] != after && bad++ < 6)
            printf("%s (%s): invocation %u read %u after the writes, expected %u\n", dn, th, g,
                   o[2 * g + 1], after);
      }
      CHECK(bad == 0, "%s (%s) round %d: %u words differ", dn, th, round, bad);
   }
   vkt_ssbo_end(&t, &s);
   vkt_finish(&t);
}

int
main(void)
{
   run(VKT_SHALE, "1");
   run(VKT_SHALE, "4");
   run(VKT_LAVAPIPE, NULL);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
