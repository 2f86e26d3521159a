/* Uniform blocks laid out by the std430 rules (uniformBufferStandardLayout,
 * VK_KHR_uniform_buffer_standard_layout, required by Vulkan 1.2) through the
 * loader with the validation layer, on Shale and (when present) lavapipe:
 * ubo_std430.comp reads a uniform block whose float and struct arrays, ivec2
 * array and mat2 columns have strides of 4 and 8 bytes (std140 would give
 * 16), each element picked by the invocation's index, and writes ten words
 * an invocation. The block's bytes are written by hand at the offsets the
 * std430 rules give (the module's Offset, ArrayStride and MatrixStride
 * decorations); every output word is compared with a C reference that
 * reads those bytes. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "ubo_std430_spv.h"

#define N 48      /* invocations: 3 workgroups of 16 */
#define WORDS 10
#define UBO_SIZE 124

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float
rd_f(const uint8_t *ubo, uint32_t off)
{
   float f;
   memcpy(&f, ubo + off, 4);
   return f;
}

static uint32_t
rd_u(const uint8_t *ubo, uint32_t off)
{
   uint32_t u;
   memcpy(&u, ubo + off, 4);
   return u;
}

/* Distinct values in every word of the block, so a wrong stride reads a
 * value of another member or element. */
static void
fill_ubo(uint8_t ubo[UBO_SIZE])
{
   for (uint32_t w = 0; w < UBO_SIZE / 4; w++) {
      float f = 1.5f + (float)w * 3.25f;
      uint32_t u = fbits(f);
      if (w >= 12 && w < 18)      /* p[3]: ivec2 at 48, stride 8 */
         u = (uint32_t)(int32_t)(-1000 + (int32_t)w * 77);
      if (w == 30)                /* tail at 120 */
         u = 0xC0FFEE00u;
      memcpy(ubo + w * 4, &u, 4);
   }
}

static void
reference(const uint8_t *ubo, uint32_t out[N * WORDS])
{
   for (uint32_t i = 0; i < N; i++) {
      uint32_t *o = out + i * WORDS;
      o[0] = rd_u(ubo, 0 + (i & 7) * 4);
      o[1] = rd_u(ubo, 32 + (i % 3) * 4);
      o[2] = rd_u(ubo, 44);
      o[3] = rd_u(ubo, 48 + (i % 3) * 8);
      o[4] = rd_u(ubo, 48 + (i % 3) * 8 + 4);
      o[5] = rd_u(ubo, 72 + ((i >> 1) & 1) * 8 + (i & 1) * 4);
      o[6] = rd_u(ubo, 88 + (i & 3) * 8);
      o[7] = rd_u(ubo, 88 + ((i + 1) & 3) * 8 + 4);
      o[8] = rd_u(ubo, 120);
      o[9] = fbits(rd_f(ubo, (7 - (i & 7)) * 4) + rd_f(ubo, 88 + (i & 3) * 8 + 4));
   }
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   const VkDescriptorSetLayoutBinding b[2] = {
      { .binding = 0, .descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
      { .binding = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1,
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT },
   };
   const struct vkt_kernel_info info = {
      .code = ubo_std430_spv, .code_size = sizeof(ubo_std430_spv),
      .bindings = { b, NULL }, .binding_counts = { 2, 0 },
   };
   struct vkt_kernel k;
   VkResult r = vkt_kernel_create(t, &info, &k);
   CHECK(r == VK_SUCCESS, "%s: ubo_std430.comp's pipeline: %d", drv, r);
   struct vkt_buffer ubo = { 0 }, out = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 128, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &ubo);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 4 * N * WORDS, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkDescriptorPoolSize ps[2] = { { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1 },
                                           { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
      r = vkt_descriptor_pool(t, 1, ps, 2, 0, &pool);
      if (r == VK_SUCCESS)
         r = vkt_alloc_sets(t, pool, k.set_layouts, 1, &set);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   static uint8_t bytes[UBO_SIZE];
   fill_ubo(bytes);
   if (r == VK_SUCCESS) {
      memset(ubo.map, 0, 128);
      memcpy(ubo.map, bytes, UBO_SIZE);
      memset(out.map, 0, 4 * N * WORDS);
      const VkDescriptorType types[2] = { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                          VK_DESCRIPTOR_TYPE_STORAGE_BUFFER };
      const VkBuffer handles[2] = { ubo.buffer, out.buffer };
      vkt_bind_buffers(t, set, types, handles, 2);
      r = vkt_dispatch(t, &k, &set, 1, NULL, 0, N / 16, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      static uint32_t want[N * WORDS];
      reference(bytes, want);
      const uint32_t *got = out.map;
      unsigned bad = 0;
      for (int i = 0; i < N * WORDS; i++)
         if (got[i] != want[i] && bad++ < 8)
            printf("%s: invocation %d word %d: 0x%08x, expected 0x%08x\n", drv, i / WORDS,
                   i % WORDS, got[i], want[i]);
      CHECK(bad == 0, "%s: %u words read from the std430 uniform block differ", drv, bad);
   }
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_buffer_destroy(t, &ubo);
   vkt_buffer_destroy(t, &out);
   vkt_kernel_destroy(t, &k);
}

int
main(void)
{
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      VkPhysicalDeviceUniformBufferStandardLayoutFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_UNIFORM_BUFFER_STANDARD_LAYOUT_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      const char *ext = VK_KHR_UNIFORM_BUFFER_STANDARD_LAYOUT_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      if (drv == VKT_SHALE)
         CHECK(have.uniformBufferStandardLayout && has_ext,
               "Shale: uniformBufferStandardLayout %u, extension %u",
               have.uniformBufferStandardLayout, has_ext);
      else if (!have.uniformBufferStandardLayout || !has_ext)
         printf("lavapipe lacks uniformBufferStandardLayout: reference run skipped\n");
      if (!have.uniformBufferStandardLayout || !has_ext)
         continue;
      VkPhysicalDeviceUniformBufferStandardLayoutFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_UNIFORM_BUFFER_STANDARD_LAYOUT_FEATURES,
         .uniformBufferStandardLayout = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = &ext, .device_extension_count = 1,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with uniformBufferStandardLayout", vkt_driver_name(drv));
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
