/* Variable pointers into storage buffers (Vulkan 1.1's
 * variablePointersStorageBuffer, VK_KHR_variable_pointers) through the
 * loader with the validation layer, on Shale and (when present) lavapipe:
 * vp.spvasm selects between pointers to elements and to whole buffers
 * with OpSelect (per lane and uniform), merges them with OpPhi after an
 * if / else and around a divergent loop that steps the pointer with
 * OpPtrAccessChain, passes them to and returns them from functions, stores
 * through a selected pointer and selects against OpConstantNull; see the
 * shader for the twelve words each of 32 invocations writes. Every word of
 * the output buffer is compared with a C reference. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "vp_spv.h"

#define N 32
#define WORDS 12
#define ELEMS 64

static uint32_t
a_of(uint32_t k)
{
   return 1000 + k * 3;
}

static uint32_t
b_of(uint32_t k)
{
   return 5000 + k * 7;
}

static void
reference(uint32_t out[N * WORDS])
{
   memset(out, 0, N * WORDS * 4);
   for (uint32_t i = 0; i < N; i++) {
      uint32_t *o = out + i * WORDS;
      bool even = (i & 1) == 0;
      o[0] = even ? a_of(i) : b_of(i);
      o[1] = i < 8 ? a_of(i + 1) : b_of(i + 1);
      o[2] = a_of(3 + i);
      uint32_t sum = 0;
      for (uint32_t k = 0; k < i % 4 + 1; k++)
         sum += even ? a_of(i + k) : b_of(i + k);
      o[3] = sum;
      o[4] = i % 3 == 0 ? a_of(2 * i) : b_of(i / 2);
      o[even ? 5 : 6] = i + 100;
      o[7] = (i < 16 ? a_of(i) : b_of(63 - i)) + 7;
      o[8] = a_of(i);
      o[9] = (i & 2) ? a_of(i) : b_of(i);
      o[10] = b_of(i);
      o[11] = i < 16 ? a_of(5) : b_of(6);
   }
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   const struct vkt_ssbo_info info = { .code = vp_spv, .code_size = sizeof(vp_spv), .n = 3 };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: vp.spvasm's pipeline: %d", drv, r);
   const VkDeviceSize sizes[3] = { 4 * ELEMS, 4 * ELEMS, 4 * N * WORDS };
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(t, &s, sizes);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   if (r == VK_SUCCESS) {
      r = vkt_ssbo_set(t, &s);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      uint32_t *a = s.bufs[0].map, *bb = s.bufs[1].map;
      for (uint32_t i = 0; i < ELEMS; i++) {
         a[i] = a_of(i);
         bb[i] = b_of(i);
      }
      memset(s.bufs[2].map, 0, sizes[2]);
      r = vkt_ssbo_dispatch(t, &s, NULL, 0, N / 16, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      static uint32_t want[N * WORDS];
      reference(want);
      const uint32_t *got = s.bufs[2].map;
      unsigned bad = 0;
      for (int i = 0; i < N * WORDS; i++)
         if (got[i] != want[i] && bad++ < 8)
            printf("%s: invocation %d word %d: %u, expected %u\n", drv, i / WORDS, i % WORDS,
                   got[i], want[i]);
      CHECK(bad == 0, "%s: %u words written through variable pointers differ", drv, bad);
   }
   vkt_ssbo_end(t, &s);
}

int
main(void)
{
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      VkPhysicalDeviceVariablePointersFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      if (!vkt_query_features(drv, &f2, VK_KHR_VARIABLE_POINTERS_EXTENSION_NAME, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      if (drv == VKT_SHALE)
         CHECK(have.variablePointersStorageBuffer && has_ext,
               "Shale: variablePointersStorageBuffer %u, extension %u",
               have.variablePointersStorageBuffer, has_ext);
      else if (!have.variablePointersStorageBuffer)
         printf("lavapipe lacks variablePointersStorageBuffer: reference run skipped\n");
      if (!have.variablePointersStorageBuffer)
         continue;
      VkPhysicalDeviceVariablePointersFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES,
         .variablePointersStorageBuffer = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with variablePointersStorageBuffer", vkt_driver_name(drv));
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
