/* SPIR-V 1.4 modules (VK_KHR_spirv_1_4, core in Vulkan 1.2) through the
 * loader with the validation layer, on Shale and (when it offers the
 * extension) lavapipe: s14.spvasm, glslang's SPIR-V 1.4 output with
 * pointer comparisons added by hand, runs 4 workgroups of 16 with
 * variablePointersStorageBuffer: OpCopyLogical of buffer structs into
 * Function structs, OpSelect of whole structs, an entry point listing every
 * global, OpPtrEqual and OpPtrNotEqual of per-lane variable pointers (one
 * from an OpSelect of pointers), OpPtrDiff in elements of a 16-byte-stride
 * struct array and of a uint array, also of a selected pointer (see the
 * module for the eight words each invocation writes). Every word is
 * compared with a C reference. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"
#include "xorshift.h"

#include "s14_spv.h"

#define N 64
#define WORDS 8

struct s_elem {
   uint32_t a, b[3];
};

static uint32_t a_in[N];
static struct s_elem s_in[N];

static uint64_t rng = 0x9FB21C651E98DF25ull;

static uint32_t
rnd(void)
{
   return xorshift64_u32(&rng);
}

static void
reference(uint32_t out[N * WORDS])
{
   for (uint32_t i = 0; i < N; i++) {
      uint32_t *o = out + i * WORDS;
      bool cond = (a_in[i] & 1) != 0;
      const struct s_elem *x = &s_in[i], *y = &s_in[i ^ 5], *z = cond ? x : y;
      o[0] = z->a + z->b[0] * 3 + z->b[2] * 7;
      o[1] = (i & ~3u) == i;
      o[2] = !cond;
      o[3] = (uint32_t)((int32_t)(i ^ 5) - (int32_t)i);
      o[4] = i;
      o[5] = cond ? 0 : (uint32_t)((int32_t)(i ^ 5) - (int32_t)i);
      o[6] = a_in[i];
      o[7] = x->b[1];
   }
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   const struct vkt_ssbo_info info = { .code = s14_spv, .code_size = sizeof(s14_spv), .n = 3 };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: s14.spvasm's pipeline: %d", drv, r);
   const VkDeviceSize sizes[3] = { sizeof(a_in), sizeof(s_in), 4 * N * WORDS };
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(t, &s, sizes);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   if (r == VK_SUCCESS) {
      r = vkt_ssbo_set(t, &s);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      memcpy(s.bufs[0].map, a_in, sizeof(a_in));
      memcpy(s.bufs[1].map, s_in, sizeof(s_in));
      memset(s.bufs[2].map, 0xee, sizes[2]);
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
            printf("%s: invocation %d word %d: 0x%08x, expected 0x%08x\n", drv, i / WORDS,
                   i % WORDS, got[i], want[i]);
      CHECK(bad == 0, "%s: %u words of the SPIR-V 1.4 kernel differ", drv, bad);
   }
   vkt_ssbo_end(t, &s);
}

int
main(void)
{
   for (int i = 0; i < N; i++) {
      a_in[i] = rnd();
      s_in[i].a = rnd();
      for (int j = 0; j < 3; j++)
         s_in[i].b[j] = rnd();
   }
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      const char *dn = vkt_driver_name(drv);
      VkPhysicalDeviceVariablePointersFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      const char *exts[2] = { VK_KHR_SPIRV_1_4_EXTENSION_NAME,
                              VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME };
      if (!vkt_query_features(drv, &f2, exts[0], &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool ok = has_ext && have.variablePointersStorageBuffer;
      if (drv == VKT_SHALE)
         CHECK(ok, "Shale: %s %u, variablePointersStorageBuffer %u", exts[0], has_ext,
               have.variablePointersStorageBuffer);
      if (!ok) {
         printf("%s lacks %s or variablePointersStorageBuffer: skipped\n", dn, exts[0]);
         continue;
      }
      VkPhysicalDeviceVariablePointersFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES,
         .variablePointersStorageBuffer = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = exts, .device_extension_count = 2,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with %s", dn, exts[0]);
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
