/* 16-bit storage (VK_KHR_16bit_storage, Vulkan 1.1's storageBuffer16BitAccess,
 * uniformAndStorageBuffer16BitAccess and storagePushConstant16) through the
 * loader with the validation layer, on Shale and (when present) lavapipe:
 * st16.comp reads 16-bit float, signed and unsigned members (scalars,
 * vectors, arrays, members of an array of structs) of a storage buffer, a
 * std140 uniform buffer and push constants, widens them to 32 bits, writes
 * them out as 32-bit words, and narrows computed 32-bit values back into
 * 16-bit stores: whole members, single vector components (the components
 * and padding it does not write must keep their sentinel), and adjacent
 * 16-bit elements written by adjacent lanes. Every word and half is
 * compared with a C reference computed from the same inputs. The float
 * inputs are normal halves in [2^-11, 2^13) so that every result the
 * shader narrows is a normal half, exactly representable: no rounding mode
 * or denormal handling is involved. The kernel runs twice: compiled for
 * Vulkan 1.0 (storage buffers as Uniform + BufferBlock) and for Vulkan 1.1
 * (the StorageBuffer storage class). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"
#include "xorshift.h"

#include "st16_spv.h"
#include "st16_v11_spv.h"

#define N 37            /* invocations: 3 workgroups of 16, the last partial */
#define NGROUPS 3
#define OUT32_WORDS 24  /* per invocation */
#define SENTINEL 0xA5

struct elem {          /* E of st16.comp, std430 */
   uint16_t a;
   int16_t b;
   uint16_t c;
   uint16_t pad0;
   uint16_t d[3];
   uint16_t pad1;
   int16_t e[2];
   uint16_t pad2[2];
   uint16_t f[4];
};

struct odd {
   uint16_t h[64];
   int16_t s[64];
   uint16_t v[64][4];
};

struct ubo {
   uint16_t uv[4];
   uint16_t uh;
   int16_t us;
   uint16_t uu;
   uint16_t pad;
   int16_t uarr[4][8];   /* i16vec4, std140 stride 16 */
};

struct push {
   uint16_t ph;
   int16_t ps;
   uint16_t pv[2];
   uint16_t pu[3];
   uint16_t pad;
   uint32_t n;
};

_Static_assert(sizeof(struct elem) == 32, "E is 32 bytes");
_Static_assert(sizeof(struct ubo) == 80, "U is 80 bytes");
_Static_assert(sizeof(struct push) == 20, "P is 20 bytes");

static float
half_to_float(uint16_t h)
{
   int e = (h >> 10) & 31, m = h & 1023;
   float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 1024), e - 25);
   return (h & 0x8000) ? -v : v;
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* The half holding f exactly (f normal in half range, or zero). */
static uint16_t
float_to_half_exact(float f)
{
   uint32_t u = fbits(f);
   uint16_t s = (uint16_t)((u >> 16) & 0x8000);
   if ((u & 0x7fffffff) == 0)
      return s;
   int e = (int)((u >> 23) & 255) - 127 + 15;
   return (uint16_t)(s | (e << 10) | ((u >> 13) & 1023));
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t
rnd(void)
{
   return xorshift64_u32(&rng);
}

/* A normal half in [2^-11, 2^13), either sign. */
static uint16_t
rnd_half(void)
{
   uint32_t r = rnd();
   return (uint16_t)((r & 0x8000) | ((4 + (r >> 16) % 24) << 10) | (r & 1023));
}

struct inputs {
   struct elem in[N];
   struct ubo u;
   struct push p;
};

static void
make_inputs(struct inputs *x)
{
   memset(x, 0, sizeof(*x));
   for (int i = 0; i < N; i++) {
      struct elem *e = &x->in[i];
      e->a = rnd_half();
      e->b = (int16_t)rnd();
      e->c = (uint16_t)rnd();
      for (int k = 0; k < 3; k++)
         e->d[k] = rnd_half();
      e->e[0] = (int16_t)rnd();
      e->e[1] = (int16_t)(i & 1 ? -32768 : 32767);
      for (int k = 0; k < 4; k++)
         e->f[k] = (uint16_t)rnd();
      e->pad0 = e->pad1 = 0x1111;
   }
   for (int k = 0; k < 4; k++)
      x->u.uv[k] = rnd_half();
   x->u.uh = 0xfbff;                 /* -65504 */
   x->u.us = -12345;
   x->u.uu = 54321;
   for (int k = 0; k < 4; k++)
      for (int c = 0; c < 4; c++)
         x->u.uarr[k][c] = (int16_t)(rnd() % 2001 - 1000);
   x->p.ph = 0x3c01;
   x->p.ps = -2;
   x->p.pv[0] = 0x7bff;              /* 65504 */
   x->p.pv[1] = 0x0400;              /* 2^-14, the smallest normal */
   x->p.pu[0] = 0;
   x->p.pu[1] = 0xffff;
   x->p.pu[2] = 0x8000;
   x->p.n = N;
}

static void
reference(const struct inputs *x, uint32_t out32[N][OUT32_WORDS], struct elem out16[N],
          struct odd *odd)
{
   memset(out16, 0, sizeof(struct elem) * N);
   memset(odd, SENTINEL, sizeof(*odd));
   for (uint32_t i = 0; i < N; i++) {
      const struct elem *s = &x->in[i];
      uint32_t *r = out32[i];
      float a = half_to_float(s->a);
      int b = s->b;
      uint32_t c = s->c;
      float d[3] = { half_to_float(s->d[0]), half_to_float(s->d[1]), half_to_float(s->d[2]) };
      int e[2] = { s->e[0], s->e[1] };
      uint32_t f[4] = { s->f[0], s->f[1], s->f[2], s->f[3] };
      r[0] = fbits(a);
      r[1] = (uint32_t)b;
      r[2] = c;
      for (int k = 0; k < 3; k++)
         r[3 + k] = fbits(d[k]);
      r[6] = (uint32_t)e[0];
      r[7] = (uint32_t)e[1];
      for (int k = 0; k < 4; k++)
         r[8 + k] = f[k];
      r[12] = fbits(d[i % 3]);
      r[13] = (uint32_t)(int)x->in[(i * 7) % N].b;
      r[14] = fbits(half_to_float(x->u.uv[i & 3]));
      r[15] = fbits(half_to_float(x->u.uh));
      r[16] = (uint32_t)(int)x->u.us;
      r[17] = x->u.uu;
      const int16_t *ua = x->u.uarr[i & 3];
      r[18] = (uint32_t)(ua[0] + ua[1] * 3 + ua[2] * 5 + ua[3] * 7);
      r[19] = fbits(half_to_float(x->p.ph));
      r[20] = (uint32_t)(int)x->p.ps;
      r[21] = fbits(half_to_float(x->p.pv[i & 1]));
      r[22] = x->p.pu[i % 3];
      r[23] = (uint32_t)e[i & 1] + f[(i + 1) & 3];
      struct elem *w = &out16[i];
      w->a = float_to_half_exact(a * 2.0f);
      w->b = (int16_t)(b - 3);
      w->c = (uint16_t)(c ^ 0x8001u);
      for (int k = 0; k < 3; k++)
         w->d[k] = float_to_half_exact(d[2 - k] * -0.5f);
      w->e[0] = (int16_t)(e[1] + 1);
      w->e[1] = (int16_t)(e[0] - 1);
      for (int k = 0; k < 4; k++)
         w->f[k] = (uint16_t)(f[3 - k] + 0x10000u);
      odd->h[i] = float_to_half_exact((float)i + 0.25f);
      odd->s[i] = (int16_t)(-(int)i * 3);
      odd->v[i][0] = (uint16_t)i;
      odd->v[i][2] = (uint16_t)(i * 5u + 0xfff0u);
   }
}

/* Compares n halves, printing the first few differences. */
static unsigned
compare16(const char *drv, const char *what, const uint16_t *got, const uint16_t *want, size_t n)
{
   unsigned bad = 0;
   for (size_t k = 0; k < n; k++)
      if (got[k] != want[k] && bad++ < 4)
         printf("%s: %s half %zu: 0x%04x, expected 0x%04x\n", drv, what, k, got[k], want[k]);
   return bad;
}

static void
run(struct vkt *t, const struct inputs *x, const uint32_t *code, size_t code_size,
    const char *variant)
{
   char drv[64];
   snprintf(drv, sizeof(drv), "%s (%s)", vkt_driver_name(t->driver), variant);
   static const VkDescriptorType types[6] = {
      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
   };
   VkDescriptorSetLayoutBinding b[6];
   for (uint32_t i = 0; i < 6; i++)
      b[i] = (VkDescriptorSetLayoutBinding) {
         .binding = i, .descriptorType = types[i], .descriptorCount = 1,
         .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
      };
   const struct vkt_kernel_info info = {
      .code = code, .code_size = code_size,
      .bindings = { b, NULL }, .binding_counts = { 6, 0 },
      .push_size = sizeof(struct push),
   };
   struct vkt_kernel k;
   VkResult r = vkt_kernel_create(t, &info, &k);
   CHECK(r == VK_SUCCESS, "%s: st16.comp's pipeline: %d", drv, r);
   static const VkDeviceSize sizes[6] = {
      sizeof(struct elem) * N, sizeof(struct elem) * N, 4 * OUT32_WORDS * N,
      sizeof(struct elem) * N, sizeof(struct odd), sizeof(struct ubo),
   };
   struct vkt_buffer bufs[6];
   memset(bufs, 0, sizeof(bufs));
   for (int i = 0; r == VK_SUCCESS && i < 6; i++) {
      r = vkt_buffer_create(t, sizes[i], i == 5 ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
                                                : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &bufs[i]);
      if (r == VK_SUCCESS)
         memset(bufs[i].map, SENTINEL, sizes[i]);
   }
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   if (r == VK_SUCCESS) {
      const VkDescriptorPoolSize ps[] = {
         { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 5 }, { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1 },
      };
      r = vkt_descriptor_pool(t, 1, ps, 2, 0, &pool);
      if (r == VK_SUCCESS)
         r = vkt_alloc_sets(t, pool, k.set_layouts, 1, &set);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      memcpy(bufs[0].map, x->in, sizeof(x->in));
      memcpy(bufs[5].map, &x->u, sizeof(x->u));
      VkBuffer handles[6];
      for (int i = 0; i < 6; i++)
         handles[i] = bufs[i].buffer;
      vkt_bind_buffers(t, set, types, handles, 6);
      r = vkt_dispatch(t, &k, &set, 1, &x->p, sizeof(x->p), NGROUPS, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      static uint32_t want32[N][OUT32_WORDS];
      static struct elem want16[N];
      static struct odd want_odd;
      reference(x, want32, want16, &want_odd);
      const uint32_t *got32 = bufs[2].map;
      unsigned bad = 0;
      for (int i = 0; i < N; i++)
         for (int w = 0; w < OUT32_WORDS; w++)
            if (got32[i * OUT32_WORDS + w] != want32[i][w] && bad++ < 6)
               printf("%s: invocation %d word %d: 0x%08x, expected 0x%08x\n", drv, i, w,
                      got32[i * OUT32_WORDS + w], want32[i][w]);
      CHECK(bad == 0, "%s: %u 32-bit words widened from 16-bit members differ", drv, bad);
      /* The narrowed stores: every member of E, padding untouched. */
      struct elem want_dst[N];
      memcpy(want_dst, want16, sizeof(want_dst));
      for (int i = 0; i < N; i++) {
         want_dst[i].pad0 = want_dst[i].pad1 = SENTINEL * 0x101;
         want_dst[i].pad2[0] = want_dst[i].pad2[1] = SENTINEL * 0x101;
      }
      bad = compare16(drv, "narrowed E", bufs[1].map, (const uint16_t *)want_dst,
                      sizeof(want_dst) / 2);
      CHECK(bad == 0, "%s: %u halves of 16-bit stores of narrowed values differ", drv, bad);
      /* The member-wise copy: every member, padding untouched. */
      struct elem want_cp[N];
      memcpy(want_cp, x->in, sizeof(want_cp));
      for (int i = 0; i < N; i++) {
         want_cp[i].pad0 = want_cp[i].pad1 = SENTINEL * 0x101;
         want_cp[i].pad2[0] = want_cp[i].pad2[1] = SENTINEL * 0x101;
      }
      bad = compare16(drv, "copied E", bufs[3].map, (const uint16_t *)want_cp,
                      sizeof(want_cp) / 2);
      CHECK(bad == 0, "%s: %u halves of 16-bit member copies differ", drv, bad);
      bad = compare16(drv, "adjacent and component stores", bufs[4].map,
                      (const uint16_t *)&want_odd, sizeof(want_odd) / 2);
      CHECK(bad == 0, "%s: %u halves of adjacent-element and single-component stores differ",
            drv, bad);
   }
   if (pool)
      vkDestroyDescriptorPool(t->device, pool, NULL);
   for (int i = 0; i < 6; i++)
      vkt_buffer_destroy(t, &bufs[i]);
   vkt_kernel_destroy(t, &k);
}

int
main(void)
{
   static struct inputs x;
   make_inputs(&x);
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      VkPhysicalDevice16BitStorageFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      if (!vkt_query_features(drv, &f2, VK_KHR_16BIT_STORAGE_EXTENSION_NAME, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool all = have.storageBuffer16BitAccess && have.uniformAndStorageBuffer16BitAccess &&
                 have.storagePushConstant16;
      if (drv == VKT_SHALE) {
         CHECK(all && has_ext, "Shale: 16-bit storage features %u %u %u, extension %u",
               have.storageBuffer16BitAccess, have.uniformAndStorageBuffer16BitAccess,
               have.storagePushConstant16, has_ext);
      } else if (!all) {
         printf("lavapipe lacks 16-bit storage: reference run skipped\n");
         continue;
      }
      if (!all)
         continue;
      VkPhysicalDevice16BitStorageFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
         .storageBuffer16BitAccess = VK_TRUE,
         .uniformAndStorageBuffer16BitAccess = VK_TRUE,
         .storagePushConstant16 = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with 16-bit storage", vkt_driver_name(drv));
         continue;
      }
      run(&t, &x, st16_spv, sizeof(st16_spv), "SPIR-V 1.0, Uniform + BufferBlock");
      run(&t, &x, st16_v11_spv, sizeof(st16_v11_spv), "SPIR-V 1.3, StorageBuffer");
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
