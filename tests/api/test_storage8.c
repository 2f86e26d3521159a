/* 8-bit storage (VK_KHR_8bit_storage, promoted to Vulkan 1.2:
 * storageBuffer8BitAccess, uniformAndStorageBuffer8BitAccess,
 * storagePushConstant8) through the loader with the validation layer, on
 * Shale and (when present) lavapipe: st8.comp reads 8-bit signed and
 * unsigned members (scalars, vectors, an array with a per-lane index) of a
 * std430 storage buffer of 12-byte structs, of a std140 uniform buffer and
 * of push constants, widens them to 32 bits and writes eight words an
 * invocation, and narrows a computed value into an 8-bit array, adjacent
 * lanes writing adjacent bytes (the byte past the last lane must keep its
 * sentinel). Every word and byte is compared with a C reference. No 8-bit
 * arithmetic (shaderInt8 is not offered). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"
#include "xorshift.h"

#include "st8_spv.h"

#define N 48
#define WORDS 8

struct elem {
   uint8_t a;
   int8_t b;
   uint8_t c[2];
   int8_t d[4];
   uint8_t e[3];
   uint8_t pad;
};
_Static_assert(sizeof(struct elem) == 12, "E is 12 bytes");

struct ubo {
   uint8_t uv[4];
   int8_t us;
   uint8_t pad[11];
   uint8_t uarr[4][16];
};
_Static_assert(sizeof(struct ubo) == 80, "U is 80 bytes");

struct push {
   uint8_t pa;
   int8_t pb;
   uint8_t pc[2];
   uint32_t n;
};

static struct elem in[N];
static struct ubo u;
static struct push pc;

static uint64_t rng = 0xC2B2AE3D27D4EB4Full;

static uint32_t
rnd(void)
{
   return xorshift64_u32(&rng);
}

static void
reference(uint32_t *o32, uint8_t *o8)
{
   for (uint32_t i = 0; i < N; i++) {
      uint32_t *o = o32 + i * WORDS;
      const struct elem *e = &in[i];
      o[0] = e->a;
      o[1] = (uint32_t)(int32_t)e->b;
      o[2] = e->c[0] | ((uint32_t)e->c[1] << 8);
      o[3] = (uint32_t)((int32_t)e->d[0] + (int32_t)e->d[3]);
      o[4] = e->e[i % 3];
      o[5] = u.uv[i & 3] + (uint32_t)(int32_t)u.us * 1000u;
      o[6] = u.uarr[i & 3][0];
      o[7] = pc.pa + (uint32_t)(int32_t)pc.pb * 256u + (uint32_t)pc.pc[1] * 65536u;
      o8[i] = (uint8_t)(e->a + i);
   }
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   const VkDescriptorType types[4] = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER };
   const struct vkt_ssbo_info info = {
      .code = st8_spv, .code_size = sizeof(st8_spv),
      .n = 4, .types = types, .push_size = sizeof(pc),
   };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: st8.comp's pipeline: %d", drv, r);
   /* Binding 1 (the uniform buffer) gets UNIFORM_BUFFER usage, the rest STORAGE_BUFFER. */
   const VkDeviceSize sizes[4] = { sizeof(in), sizeof(u), 4 * N * WORDS, N + 16 };
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(t, &s, sizes);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   if (r == VK_SUCCESS) {
      r = vkt_ssbo_set(t, &s);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      memcpy(s.bufs[0].map, in, sizeof(in));
      memcpy(s.bufs[1].map, &u, sizeof(u));
      memset(s.bufs[2].map, 0, sizes[2]);
      memset(s.bufs[3].map, 0xA5, sizes[3]);
      r = vkt_ssbo_dispatch(t, &s, &pc, sizeof(pc), N / 16, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      static uint32_t want32[N * WORDS];
      static uint8_t want8[N];
      reference(want32, want8);
      const uint32_t *got = s.bufs[2].map;
      const uint8_t *got8 = s.bufs[3].map;
      unsigned bad = 0;
      for (int i = 0; i < N * WORDS; i++)
         if (got[i] != want32[i] && bad++ < 8)
            printf("%s: invocation %d word %d: 0x%08x, expected 0x%08x\n", drv, i / WORDS,
                   i % WORDS, got[i], want32[i]);
      for (int i = 0; i < N + 16; i++) {
         uint8_t w = i < N ? want8[i] : 0xA5;
         if (got8[i] != w && bad++ < 8)
            printf("%s: byte %d: 0x%02x, expected 0x%02x\n", drv, i, got8[i], w);
      }
      CHECK(bad == 0, "%s: %u words or bytes of 8-bit storage differ", drv, bad);
   }
   vkt_ssbo_end(t, &s);
}

int
main(void)
{
   for (int i = 0; i < N; i++) {
      uint32_t r = rnd(), s = rnd();
      in[i].a = (uint8_t)r;
      in[i].b = (int8_t)(r >> 8);
      in[i].c[0] = (uint8_t)(r >> 16);
      in[i].c[1] = (uint8_t)(r >> 24);
      for (int j = 0; j < 4; j++)
         in[i].d[j] = (int8_t)(s >> (8 * j));
      for (int j = 0; j < 3; j++)
         in[i].e[j] = (uint8_t)rnd();
      in[i].pad = 0x77;
   }
   in[0].b = -128;
   in[1].d[0] = -128;
   in[1].d[3] = -128;
   for (int j = 0; j < 4; j++) {
      u.uv[j] = (uint8_t)(200 + j);
      u.uarr[j][0] = (uint8_t)(17 * j + 3);
      for (int k = 1; k < 16; k++)
         u.uarr[j][k] = 0xEE;
   }
   u.us = -77;
   memset(u.pad, 0xEE, sizeof(u.pad));
   pc = (struct push) { 0xFE, -2, { 9, 0xAB }, N };
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      const char *dn = vkt_driver_name(drv);
      VkPhysicalDevice8BitStorageFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      const char *ext = VK_KHR_8BIT_STORAGE_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool ok = has_ext && have.storageBuffer8BitAccess &&
                have.uniformAndStorageBuffer8BitAccess && have.storagePushConstant8;
      if (drv == VKT_SHALE)
         CHECK(ok, "Shale: %s %u, features %u %u %u", ext, has_ext, have.storageBuffer8BitAccess,
               have.uniformAndStorageBuffer8BitAccess, have.storagePushConstant8);
      if (!ok) {
         printf("%s lacks 8-bit storage: skipped\n", dn);
         continue;
      }
      VkPhysicalDevice8BitStorageFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES,
         .storageBuffer8BitAccess = VK_TRUE, .uniformAndStorageBuffer8BitAccess = VK_TRUE,
         .storagePushConstant8 = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = &ext, .device_extension_count = 1,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with 8-bit storage", dn);
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
