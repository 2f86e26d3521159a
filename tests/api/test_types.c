/* 64-bit integers, 64-bit floats and 16-bit integers in compute shaders, through the loader; vs C and lavapipe. */
/*
 * The features shaderInt64, shaderFloat64 and shaderInt16, enabled through
 * VkDeviceCreateInfo::pEnabledFeatures (and once through
 * VkPhysicalDeviceFeatures2), exercised by GLSL compute shaders
 * (tests/api/shaders/ty_*.comp) and one SPIR-V assembly shader for what
 * GLSL cannot express (OpSwitch on 64- and 16-bit selectors,
 * OpSpecConstantOp on 64- and 16-bit specialization constants). Every
 * result is checked against a C reference computed here. lavapipe runs the
 * same work: Shale's and lavapipe's results must agree bit for bit
 * wherever the result is defined exactly, except where lavapipe departed
 * from the reference: its departures are printed (its frexp of denormals
 * is one; on some machines its round, roundEven and trunc of doubles are
 * others), not asserted, and left out of the comparison (counted). Shale
 * runs at SIMD widths 4, 8 (with robustBufferAccess) and 16
 * (SHALE_SIMD_WIDTH, a new device each time; the width in use is read back
 * from SHALE_DEBUG=info). findLSB of 64-bit values runs on Shale alone:
 * lavapipe's SPIR-V front end rejects it.
 *
 * Operations are applied to values that differ per lane, to uniform values
 * (the workgroup's operands, from a buffer indexed by gl_WorkGroupID, and
 * push constants) and to a mix of the two, so both the vector and the
 * scalar forms of the translation run.
 *
 * Precision (Vulkan's "Precision and Operation of SPIR-V Instructions":
 * double-precision instructions are at least as precise as single
 * precision ones): + - * are correctly rounded, comparisons and
 * conversions exact, fma is a fused or an unfused multiply-add, mix, mod,
 * smoothstep and the geometric and matrix functions inherit the errors of
 * their definitions. For division, sqrt and inversesqrt the spec's bounds
 * are in single-precision ULPs; the test holds both drivers to tighter
 * double-precision bounds (3, 5 and 3 ULPs), which IEEE arithmetic meets.
 * Denormal inputs and results may be flushed to zero; NaN and infinite
 * results are not checked except where they are defined (comparisons,
 * isnan, isinf, bit reinterpretation). Results GLSL leaves undefined
 * (shift amounts of the operand's width or more, % with negative
 * operands, division by zero, out-of-range conversions) are not produced
 * or not compared; the over-wide shifts still run.
 *
 * 64-bit atomics need shaderBufferInt64Atomics (not claimed) and 16-bit
 * buffer members need 16-bit storage (not claimed): neither is used here.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "capture.h"
#include "outputs.h"
#include "vkt.h"

#include "ty_ctl_spv.h"
#include "ty_f64_spv.h"
#include "ty_i16_spv.h"
#include "ty_i64_spv.h"
#include "ty_layout_spv.h"
#include "ty_lsb_spv.h"
#include "ty_switch_spv.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Failures printed per check before going quiet. */
#define MAX_REPORTS 8

/* ---- devices and kernels ---- */

struct dev {
   struct vkt t;
   const char *name;
   VkDescriptorPool pool;
};

/* A device with the three features (and robustBufferAccess when robust). */
static bool
dev_init(struct dev *d, enum vkt_driver driver, bool robust)
{
   memset(d, 0, sizeof(*d));
   d->name = vkt_driver_name(driver);
   struct vkt_options probe = { .driver = driver, .no_validation = true };
   if (!vkt_init(&d->t, &probe))
      return false;
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(d->t.pdev, &have);
   vkt_finish(&d->t);
   bool all = have.shaderInt64 && have.shaderFloat64 && have.shaderInt16;
   if (driver == VKT_SHALE)
      CHECK(all, "Shale: shaderInt64 %u, shaderFloat64 %u, shaderInt16 %u", have.shaderInt64,
            have.shaderFloat64, have.shaderInt16);
   if (!all || (robust && !have.robustBufferAccess))
      return false;
   VkPhysicalDeviceFeatures want = {
      .robustBufferAccess = robust,
      .shaderInt64 = VK_TRUE,
      .shaderFloat64 = VK_TRUE,
      .shaderInt16 = VK_TRUE,
   };
   struct vkt_options opts = { .driver = driver, .features = &want };
   if (!vkt_init(&d->t, &opts)) {
      CHECK(false, "%s: device with shaderInt64, shaderFloat64, shaderInt16", d->name);
      return false;
   }
   const VkDescriptorPoolSize sizes[] = {
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 64 },
      { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 8 },
   };
   VkResult r = vkt_descriptor_pool(&d->t, 16, sizes, ARRAY_SIZE(sizes),
                                    VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, &d->pool);
   CHECK(r == VK_SUCCESS, "%s: vkCreateDescriptorPool: %d", d->name, r);
   return r == VK_SUCCESS;
}

static void
dev_finish(struct dev *d)
{
   if (d->pool)
      vkDestroyDescriptorPool(d->t.device, d->pool, NULL);
   vkt_finish(&d->t);
}

#define MAX_BINDINGS 8

struct kernel {
   struct vkt_kernel vk;
   VkDescriptorSet set;   /* from the device's pool */
   uint32_t push_size;
};

/* A compute kernel whose bindings 0..n-1 have types[], with push constants
 * of push_size bytes. */
static bool
kernel_create(struct dev *d, struct kernel *k, const uint32_t *code, size_t size,
              const VkDescriptorType *types, uint32_t n, uint32_t push_size,
              const VkSpecializationInfo *spec)
{
   memset(k, 0, sizeof(*k));
   k->push_size = push_size;
   VkDescriptorSetLayoutBinding b[MAX_BINDINGS];
   for (uint32_t i = 0; i < n; i++)
      b[i] = (VkDescriptorSetLayoutBinding){ i, types[i], 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   const struct vkt_kernel_info info = {
      .code = code,
      .code_size = size,
      .bindings = { b },
      .binding_counts = { n },
      .push_size = push_size,
      .spec = spec,
   };
   VkResult r = vkt_kernel_create(&d->t, &info, &k->vk);
   CHECK(r == VK_SUCCESS, "%s: kernel: %d", d->name, r);
   if (r != VK_SUCCESS)
      return false;
   r = vkt_alloc_sets(&d->t, d->pool, k->vk.set_layouts, 1, &k->set);
   CHECK(r == VK_SUCCESS, "%s: vkAllocateDescriptorSets: %d", d->name, r);
   return r == VK_SUCCESS;
}

static void
kernel_destroy(struct dev *d, struct kernel *k)
{
   if (k->set)
      vkFreeDescriptorSets(d->t.device, d->pool, 1, &k->set);
   vkt_kernel_destroy(&d->t, &k->vk);
}

/* Binds buffer bufs[i] (whole) to binding i as types[i]. */
static void
kernel_bind(struct dev *d, struct kernel *k, const VkDescriptorType *types,
            const struct vkt_buffer *const *bufs, uint32_t n)
{
   VkBuffer buffers[MAX_BINDINGS];
   for (uint32_t i = 0; i < n; i++)
      buffers[i] = bufs[i]->buffer;
   if (k->set)
      vkt_bind_buffers(&d->t, k->set, types, buffers, n);
}

/* Dispatches `groups` workgroups with the push constants, waits. */
static void
kernel_run(struct dev *d, const struct kernel *k, const void *push, uint32_t groups)
{
   if (!k->vk.pipeline || !k->set)
      return;
   VkResult r = vkt_dispatch(&d->t, &k->vk, &k->set, 1, push, k->push_size, groups, 1, 1);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", d->name, r);
}

static struct vkt_buffer
make_buffer(struct dev *d, VkDeviceSize size)
{
   struct vkt_buffer b;
   VkResult r = vkt_buffer_create(&d->t, size,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                     VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
                                  &b);
   CHECK(r == VK_SUCCESS, "%s: buffer of %llu bytes: %d", d->name, (unsigned long long)size, r);
   if (r == VK_SUCCESS)
      memset(b.map, 0xa5, size);
   return b;
}

#define STORAGE VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
#define UNIFORM VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER


/* Counts failures of one check; prints the first few. */
struct report {
   const char *drv, *what;
   unsigned failures;
};

static bool
report_fail(struct report *r)
{
   r->failures++;
   return r->failures <= MAX_REPORTS;
}

/* Shale's results must match; lavapipe's are the reference driver's, so
 * a mismatch there is reported (it points at a reference or at lavapipe),
 * not asserted, and the result is left out of the comparison with
 * Shale's (struct departures). */
static void
report_end(struct report *r, unsigned checked)
{
   if (strcmp(r->drv, vkt_driver_name(VKT_SHALE))) {
      if (r->failures)
         fprintf(stderr, "note: %s: %s: %u of %u results differ from the C reference\n", r->drv,
                 r->what, r->failures, checked);
      return;
   }
   CHECK(r->failures == 0, "%s: %s: %u of %u results wrong", r->drv, r->what, r->failures,
         checked);
}

/* The words of one kept result buffer where the driver's results departed
 * from the C reference, a flag per 32-bit word, for outputs_keep_departed:
 * the comparison between drivers leaves out lavapipe's. */
struct departures {
   const uint8_t *base;
   bool *word;
};

static void
departures_init(struct departures *dp, const void *base, size_t size)
{
   dp->base = base;
   dp->word = calloc(size / 4, sizeof(bool));
   if (!dp->word) {
      fprintf(stderr, "out of memory\n");
      abort();
   }
}

/* Marks the words that hold the result of `bytes` bytes at `at`. */
static void
depart(struct departures *dp, const void *at, size_t bytes)
{
   size_t off = (size_t)((const uint8_t *)at - dp->base);
   for (size_t w = off / 4; w < (off + bytes + 3) / 4; w++)
      dp->word[w] = true;
}

/* Counts a result (`bytes` at `at`) that departed from the reference,
 * marks it in dp and says whether to print it (report_fail). */
static bool
report_departure(struct report *r, struct departures *dp, const void *at, size_t bytes)
{
   depart(dp, at, bytes);
   return report_fail(r);
}

/* Keeps size bytes of the buffer under `what`, with its departures. */
static void
keep(struct outputs *out, const char *what, struct departures *dp, size_t size)
{
   outputs_keep_departed(out, what, dp->base, size, dp->word);
   free(dp->word);
   dp->word = NULL;
}

static uint64_t
splitmix64(uint64_t *s)
{
   uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
   z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
   z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
   return z ^ (z >> 31);
}

static uint64_t
bits_of(double v)
{
   uint64_t u;
   memcpy(&u, &v, 8);
   return u;
}

static double
double_of(uint64_t u)
{
   double v;
   memcpy(&v, &u, 8);
   return v;
}

static uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* Operand pair of invocation i in form f (0 per lane, 1 the workgroup's,
 * 2 mixed, 3 push constants). */
#define FORMS 4
static const char *const form_names[FORMS] = { "per lane", "uniform", "mixed", "push constants" };

/* ---- 64-bit integers (ty_i64.comp) ---- */

#define I64_NR 51
#define I64_LOCAL 32

static const uint64_t i64_edges[] = {
   0, 1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
   0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, 0x100000001ull,
   0x123456789abcdef0ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
   0x8000000000000001ull, 0xffffffffffffffffull, 0xfffffffffffffffeull,
   0xffffffff00000000ull, 0xfffffffffffffff9ull, 0x20000000000001ull, 0x1fffffffffffffull,
};

static uint64_t
i64_min_s(int64_t x, int64_t y)
{
   return (uint64_t)(x < y ? x : y);
}

static uint64_t
i64_max_s(int64_t x, int64_t y)
{
   return (uint64_t)(x > y ? x : y);
}

/* Slot op of ty_i64.comp for operands a, b; *defined is false where GLSL
 * leaves the result undefined (shift amounts of 64 or more). */
static uint64_t
i64_ref(unsigned op, uint64_t a, uint64_t b, bool *defined)
{
   int64_t sa = (int64_t)a, sb = (int64_t)b;
   uint64_t ub = b ? b : 7;
   int64_t sd = (sb == 0 || (sa == INT64_MIN && sb == -1)) ? 3 : sb;
   unsigned s6 = (unsigned)(b & 63), s7 = (unsigned)(b & 127);
   *defined = true;
   switch (op) {
   case 0: return a + b;
   case 1: return a - b;
   case 2: return a * b;
   case 3: return a / ub;
   case 4: return a % ub;
   case 5: return (uint64_t)(sa / sd);
   case 6: return (uint64_t)((sa & INT64_MAX) % ((sd & INT64_MAX) | 1));
   case 7:
   case 10: return a << s6;
   case 8:
   case 11: return a >> s6;
   case 9:
   case 12: return (uint64_t)(sa >> s6);
   case 13: return a & b;
   case 14: return a | b;
   case 15: return a ^ b;
   case 16: return ~a;
   case 17: return 0 - a;
   case 18:
      return (uint64_t)((a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 |
                        (a >= b) << 5 | (sa < sb) << 6 | (sa <= sb) << 7 | (sa > sb) << 8 |
                        (sa >= sb) << 9 | (sa == sb) << 10 | (sa != sb) << 11);
   case 19: return (uint64_t)((int64_t)(uint32_t)a - (int64_t)(int32_t)(uint32_t)b);
   case 20: return (a >> 1) + (b >> 1) + (a & b & 1);
   case 21: return (uint32_t)a;
   case 22: return (uint64_t)(int64_t)(int32_t)(uint32_t)a;
   case 23: return (uint32_t)((uint32_t)a * (uint32_t)b);
   case 24: return bits_of((double)sa);
   case 25: return bits_of((double)a);
   case 26: return fbits((float)sa);
   case 27: return fbits((float)a);
   case 28: return (uint64_t)(int64_t)((double)sa / 1024.0);
   case 29: return (uint64_t)((double)a * 0.25);
   case 30: return (uint64_t)(int64_t)((float)sa * 0.25f);
   case 31: return sa < 0 ? 0 - a : a;
   case 32: return sa > 0 ? 1 : sa < 0 ? UINT64_MAX : 0;
   case 33: return i64_min_s(sa, sb);
   case 34: return i64_max_s(sa, sb);
   case 35: return a < b ? a : b;
   case 36: return a > b ? a : b;
   case 37: return i64_min_s((int64_t)i64_max_s(sa, -1000), 1000000);
   case 38: {
      const uint64_t k = 0x1000000000ull;
      uint64_t lo = b < k ? b : k, hi = b > k ? b : k;
      uint64_t v = a > lo ? a : lo;
      return v < hi ? v : hi;
   }
   case 39:
   case 47: return a >> 32 | a << 32;
   case 40: return (uint64_t)(uint32_t)a << 32 | (uint32_t)b;
   case 41: return a * 0x9E3779B97F4A7C15ull + 0x0123456789ABCDEFull;
   case 42: return (uint32_t)a >> (b & 31);
   case 43: return sa < sb ? a : b;
   case 44: {
      const uint64_t v[4] = { a, b, a ^ b, a + b };
      return v[(uint32_t)b & 3];
   }
   case 45: return (uint64_t)(int64_t)(int16_t)(uint16_t)a;
   case 46: return (uint16_t)a;
   case 48: *defined = s7 < 64; return *defined ? a << s7 : 0;
   case 49: *defined = s7 < 64; return *defined ? a >> s7 : 0;
   case 50: *defined = s7 < 64; return *defined ? (uint64_t)(sa >> s7) : 0;
   default: *defined = false; return 0;
   }
}

struct i64_push {
   uint64_t a, b;
   uint32_t n, pad;
};

static void
i64_operands(const uint64_t (*lane)[2], const uint64_t (*group)[2], const struct i64_push *pc,
             uint32_t i, unsigned form, uint64_t *a, uint64_t *b)
{
   const uint64_t *g = group[i / I64_LOCAL];
   switch (form) {
   case 0: *a = lane[i][0], *b = lane[i][1]; break;
   case 1: *a = g[0], *b = g[1]; break;
   case 2: *a = lane[i][0], *b = g[1]; break;
   default: *a = pc->a, *b = pc->b; break;
   }
}

static void
test_i64(struct dev *d, struct outputs *out)
{
   const uint32_t ne = ARRAY_SIZE(i64_edges);
   const uint32_t n = ne * ne + 1024 - 33;   /* all edge pairs, random ones, a partial group */
   const uint32_t groups = (n + I64_LOCAL - 1) / I64_LOCAL;
   const VkDescriptorType types[] = { STORAGE, STORAGE, STORAGE };
   struct kernel k;
   kernel_create(d, &k, ty_i64_spv, sizeof(ty_i64_spv), types, 3, sizeof(struct i64_push), NULL);
   size_t out_size = (size_t)n * FORMS * I64_NR * 8;
   struct vkt_buffer lanes = make_buffer(d, (size_t)n * 16), grp = make_buffer(d, groups * 16);
   struct vkt_buffer res = make_buffer(d, out_size);
   const struct vkt_buffer *bufs[] = { &lanes, &grp, &res };
   kernel_bind(d, &k, types, bufs, 3);

   uint64_t (*lane)[2] = lanes.map, (*group)[2] = grp.map;
   uint64_t seed = 64;
   for (uint32_t i = 0; i < n; i++) {
      if (i < ne * ne) {
         lane[i][0] = i64_edges[i % ne];
         lane[i][1] = i64_edges[i / ne];
      } else {
         lane[i][0] = splitmix64(&seed) >> (splitmix64(&seed) & 63);
         lane[i][1] = splitmix64(&seed) >> (splitmix64(&seed) & 63);
      }
   }
   for (uint32_t g = 0; g < groups; g++) {
      group[g][0] = i64_edges[(g * 7 + 3) % ne];
      group[g][1] = i64_edges[(g * 13 + 1) % ne];
   }
   static const struct i64_push pushes[] = {
      { 0x8000000000000000ull, 0xffffffffffffffffull, 0, 0 },
      { 0xfedcba9876543210ull, 37, 0, 0 },
   };
   for (unsigned p = 0; p < ARRAY_SIZE(pushes); p++) {
      struct i64_push pc = pushes[p];
      pc.n = n;
      memset(res.map, 0xa5, out_size);
      kernel_run(d, &k, &pc, groups);
      uint64_t *r = res.map;
      struct departures dp;
      departures_init(&dp, res.map, out_size);
      for (unsigned form = 0; form < FORMS; form++) {
         struct report rep = { d->name, "64-bit integers", 0 };
         unsigned checked = 0;
         for (uint32_t i = 0; i < n; i++) {
            uint64_t a, b;
            i64_operands(lane, group, &pc, i, form, &a, &b);
            uint64_t *slot = r + ((size_t)i * FORMS + form) * I64_NR;
            for (unsigned op = 0; op < I64_NR; op++) {
               bool defined;
               uint64_t want = i64_ref(op, a, b, &defined);
               if (!defined) {
                  slot[op] = 0;   /* not compared between drivers either */
                  continue;
               }
               checked++;
               if (slot[op] != want && report_departure(&rep, &dp, &slot[op], 8))
                  fprintf(stderr, "%s: i64 slot %u (%s), a %#llx b %#llx: %#llx, expected %#llx\n",
                          d->name, op, form_names[form], (unsigned long long)a,
                          (unsigned long long)b, (unsigned long long)slot[op],
                          (unsigned long long)want);
            }
         }
         report_end(&rep, checked);
      }
      keep(out, p ? "i64 (second push constants)" : "i64", &dp, out_size);
   }
   vkt_buffer_destroy(&d->t, &lanes);
   vkt_buffer_destroy(&d->t, &grp);
   vkt_buffer_destroy(&d->t, &res);
   kernel_destroy(d, &k);
}

/* ---- 16-bit integers (ty_i16.comp) ---- */

#define I16_NR 48
#define I16_LOCAL 32

static const uint32_t i16_edges[] = {
   0, 1, 2, 3, 7, 15, 16, 17, 0x7f, 0x80, 0xff, 0x100, 0x3fff, 0x7ffe, 0x7fff, 0x8000,
   0x8001, 0xabcd, 0xfff9, 0xfffe, 0xffff, 0x10000, 0x1ffff, 0x12345678, 0xdeadbeef,
   0x80007fff, 0xffff8000, 0x7fffffff,
};

static uint32_t
sx16(int v)
{
   return (uint32_t)(int32_t)(int16_t)(uint16_t)v;
}

static uint32_t
i16_ref(unsigned op, uint32_t a32, uint32_t b32)
{
   uint16_t a = (uint16_t)a32, b = (uint16_t)b32;
   int16_t sa = (int16_t)a, sb = (int16_t)b;
   uint16_t ub = b ? b : 7;
   int16_t sd = (sb == 0 || (sa == -32768 && sb == -1)) ? 3 : sb;
   switch (op) {
   case 0: return (uint16_t)(a + b);
   case 1: return sx16(sa + sb);
   case 2: return (uint16_t)(a - b);
   case 3: return sx16(sa - sb);
   case 4: return (uint16_t)((uint32_t)a * b);
   case 5: return sx16((int)(uint16_t)((uint32_t)a * b));
   case 6: return a / ub;
   case 7: return a % ub;
   case 8: return sx16(sa / sd);
   case 9: return sx16((sa & 0x7fff) % ((sd & 0x7fff) | 1));
   case 10: return (uint16_t)(a << (b & 15));
   case 11: return a >> (b & 15);
   case 12: return sx16(sa >> (sb & 15));
   case 13: return (uint16_t)(a << (b32 & 15));
   case 14: return sx16(sa >> (b32 & 15));
   case 15: return a & b;
   case 16: return a | b;
   case 17: return a ^ b;
   case 18: return (uint16_t)~a;
   case 19: return sx16(-sa);
   case 20:
      return (a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 |
             (a >= b) << 5 | (sa < sb) << 6 | (sa <= sb) << 7 | (sa > sb) << 8 | (sa >= sb) << 9;
   case 21: return (uint32_t)(int32_t)sa;
   case 22:
   case 23: return a;
   case 24: return fbits((float)sa);
   case 25: return fbits((float)a);
   case 26: return sx16((int16_t)((float)(int)(a32 & 0xffff) - 32768.5f));
   case 27: return (uint16_t)((float)(b32 & 0xffff) * 0.75f);
   case 28: return sx16(sa < 0 ? -sa : sa);
   case 29: return sx16(sa > 0 ? 1 : sa < 0 ? -1 : 0);
   case 30: return sx16(sa < sb ? sa : sb);
   case 31: return sx16(sa > sb ? sa : sb);
   case 32: return a < b ? a : b;
   case 33: return a > b ? a : b;
   case 34: return sx16(sa < -100 ? -100 : sa > 300 ? 300 : sa);
   case 35: {
      uint16_t lo = b < 1000 ? b : 1000, hi = b > 1000 ? b : 1000;
      uint16_t v = a > lo ? a : lo;
      return v < hi ? v : hi;
   }
   case 36: return (uint16_t)((a >> 8) | (uint16_t)(b << 8));
   case 37: return sx16((int)(uint16_t)((uint32_t)(uint16_t)sb * (uint16_t)-7));
   case 38: return a | (uint32_t)b << 16;
   case 39: return b | (uint32_t)a << 16;
   case 40: {
      uint32_t u = a32 ^ b32;
      return (u & 0xffff) * 65536u + (u >> 16);
   }
   case 41: {
      uint64_t p = a | (uint64_t)b << 16 | (uint64_t)(uint16_t)~a << 32 | (uint64_t)(a ^ b) << 48;
      return (uint32_t)(p >> 24);
   }
   case 42: {
      uint64_t v = (uint64_t)a32 * 0x10001ull + ((uint64_t)b32 << 40);
      uint16_t x = (uint16_t)v, y = (uint16_t)(v >> 16), z = (uint16_t)(v >> 32),
               w = (uint16_t)(v >> 48);
      return sx16((uint16_t)(x + (uint16_t)((uint32_t)y * z) - w));
   }
   case 43: return (uint16_t)((uint32_t)a * 0xABCD + 0x1234);
   case 44: {
      const uint16_t v[4] = { a, b, (uint16_t)(a + b), (uint16_t)((uint32_t)a * b) };
      return v[b32 & 3];
   }
   case 45: return sa < sb ? a : b;
   case 46: return (uint32_t)(int32_t)sa;
   case 47: return (uint32_t)((uint64_t)((int64_t)sa * sb) + b);
   default: return 0;
   }
}

struct i16_push {
   uint32_t a, b, n;
};

static void
test_i16(struct dev *d, struct outputs *out)
{
   const uint32_t ne = ARRAY_SIZE(i16_edges);
   const uint32_t n = ne * ne + 512 + 5;
   const uint32_t groups = (n + I16_LOCAL - 1) / I16_LOCAL;
   const VkDescriptorType types[] = { STORAGE, STORAGE, STORAGE };
   struct kernel k;
   kernel_create(d, &k, ty_i16_spv, sizeof(ty_i16_spv), types, 3, sizeof(struct i16_push), NULL);
   size_t out_size = (size_t)n * FORMS * I16_NR * 4;
   struct vkt_buffer lanes = make_buffer(d, (size_t)n * 8), grp = make_buffer(d, groups * 8);
   struct vkt_buffer res = make_buffer(d, out_size);
   const struct vkt_buffer *bufs[] = { &lanes, &grp, &res };
   kernel_bind(d, &k, types, bufs, 3);

   uint32_t (*lane)[2] = lanes.map, (*group)[2] = grp.map;
   uint64_t seed = 16;
   for (uint32_t i = 0; i < n; i++) {
      lane[i][0] = i < ne * ne ? i16_edges[i % ne] : (uint32_t)splitmix64(&seed);
      lane[i][1] = i < ne * ne ? i16_edges[i / ne] : (uint32_t)splitmix64(&seed);
   }
   for (uint32_t g = 0; g < groups; g++) {
      group[g][0] = i16_edges[(g * 5 + 2) % ne];
      group[g][1] = i16_edges[(g * 11 + 7) % ne];
   }
   struct i16_push pc = { 0xffff8000u, 0x0001ffffu, n };
   kernel_run(d, &k, &pc, groups);
   uint32_t *r = res.map;
   struct departures dp;
   departures_init(&dp, res.map, out_size);
   for (unsigned form = 0; form < FORMS; form++) {
      struct report rep = { d->name, "16-bit integers", 0 };
      unsigned checked = 0;
      for (uint32_t i = 0; i < n; i++) {
         const uint32_t *g = group[i / I16_LOCAL];
         uint32_t a = form == 1 ? g[0] : form == 3 ? pc.a : lane[i][0];
         uint32_t b = form == 0 ? lane[i][1] : form == 3 ? pc.b : g[1];
         const uint32_t *slot = r + ((size_t)i * FORMS + form) * I16_NR;
         for (unsigned op = 0; op < I16_NR; op++) {
            uint32_t want = i16_ref(op, a, b);
            checked++;
            if (slot[op] != want && report_departure(&rep, &dp, &slot[op], 4))
               fprintf(stderr, "%s: i16 slot %u (%s), a %#x b %#x: %#x, expected %#x\n", d->name,
                       op, form_names[form], a, b, slot[op], want);
         }
      }
      report_end(&rep, checked);
   }
   keep(out, "i16", &dp, out_size);
   vkt_buffer_destroy(&d->t, &lanes);
   vkt_buffer_destroy(&d->t, &grp);
   vkt_buffer_destroy(&d->t, &res);
   kernel_destroy(d, &k);
}

/* ---- 64-bit floats (ty_f64.comp) ---- */

#define F64_ND 72
#define F64_NI 8
#define F64_LOCAL 32

struct triple {
   double a, b, c;
   int32_t e;
   uint32_t pad;
};

struct f64_push {
   double a, b, c;
   int32_t e;
   uint32_t n;
};

static const double f64_edges[] = {
   0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.75, -7.25, 0.1, 1.0 / 3.0,
   2.0 / 3.0, 3.141592653589793, 1e10, -1e10, 123456789.987654321, 4503599627370496.0,
   4503599627370495.5, 9007199254740993.0, 1e300, -1e300, 1e-300, DBL_MIN, 4.9e-324, -1e-310,
   DBL_MAX, -DBL_MAX, INFINITY, -INFINITY, NAN, 2e9, -2e9, 4294967295.0, 0.49999999999999994,
   1e-5, -3e-7, 65504.0,
};

enum f64_kind {
   FK_SKIP,      /* undefined here */
   FK_EXACT,     /* correctly rounded / exact (zeros of either sign equal) */
   FK_EXACT2,    /* exact, one of two results (fma fused or not, round's tie) */
   FK_ULP,       /* within ulps of v[0] */
   FK_BOUND,     /* |got - ref| <= bound */
};

struct f64_expect {
   enum f64_kind kind;
   double v[2];
   unsigned ulps;
   long double ref, bound;
};

static bool
is_denormal(double v)
{
   return v != 0.0 && fabs(v) < DBL_MIN;
}

static double
flush(double v)
{
   return is_denormal(v) ? copysign(0.0, v) : v;
}

/* Inputs for which the inherited-precision bounds are computed (no
 * overflow or underflow in the intermediate terms). */
static bool
moderate(double v)
{
   return v == 0.0 || (isfinite(v) && fabs(v) <= 1e150 && fabs(v) >= 1e-150);
}

static int64_t
ordered(double v)
{
   int64_t i = (int64_t)bits_of(v);
   return i < 0 ? INT64_MIN - i : i;
}

static uint64_t
ulp_distance(double x, double y)
{
   int64_t a = ordered(x), b = ordered(y);
   return a > b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

static double
mul_add_unfused(double a, double b, double c)
{
   volatile double p = a * b;
   return p + c;
}

/* Row r, column c of the matrix of slots 41-56: dmat3 columns
 * (4 + |c|, a, b), (b, 5 + |a|, c), (c, a, 6 + |b|). */
static void
f64_matrix(double a, double b, double c, double m[3][3])
{
   const double col[3][3] = {
      { 4.0 + fabs(c), a, b },
      { b, 5.0 + fabs(a), c },
      { c, a, 6.0 + fabs(b) },
   };
   for (int r = 0; r < 3; r++)
      for (int k = 0; k < 3; k++)
         m[r][k] = col[k][r];
}

static long double
det3(long double m[3][3], bool absolute)
{
   long double s = 0;
   for (int j = 0; j < 3; j++) {
      int p = (j + 1) % 3, q = (j + 2) % 3;
      long double t1 = m[1][p] * m[2][q], t2 = m[1][q] * m[2][p];
      if (absolute)
         s += fabsl(m[0][j]) * (fabsl(t1) + fabsl(t2));
      else
         s += m[0][j] * (t1 - t2);
   }
   return s;
}

/* Expected value of double slot `slot` (rd) of ty_f64.comp. */
static void
f64_expect_d(unsigned slot, double a, double b, double c, int e, struct f64_expect *x)
{
   const long double eps = DBL_EPSILON;
   memset(x, 0, sizeof(*x));
   x->kind = FK_EXACT;
   if (isnan(a) || isnan(b) || isnan(c)) {
      x->kind = FK_SKIP;
      return;
   }
   bool mod3 = moderate(a) && moderate(b) && moderate(c);
   switch (slot) {
   case 0: x->v[0] = a + b; break;
   case 1: x->v[0] = a - b; break;
   case 2: x->v[0] = a * b; break;
   case 3:
      x->kind = fabs(b) >= 0x1p-126 && fabs(b) <= 0x1p126 ? FK_ULP : FK_SKIP;
      x->v[0] = a / b;
      x->ulps = 3;
      break;
   case 4:
      x->kind = FK_EXACT2;
      x->v[0] = fma(a, b, c);
      x->v[1] = mul_add_unfused(a, b, c);
      break;
   case 5: x->kind = FK_ULP; x->v[0] = sqrt(fabs(a)); x->ulps = 5; break;
   case 6:
      x->kind = FK_ULP;
      x->v[0] = (double)(1.0L / sqrtl(fabsl(a)));
      x->ulps = 3;
      break;
   case 7: x->v[0] = floor(a); break;
   case 8: x->v[0] = ceil(a); break;
   case 9: x->v[0] = a - floor(a); break;
   case 10: x->kind = FK_EXACT2; x->v[0] = round(a); x->v[1] = rint(a); break;
   case 11: x->v[0] = rint(a); break;
   case 12: x->v[0] = trunc(a); break;
   case 13: x->v[0] = fmin(a, b); break;
   case 14: x->v[0] = fmax(a, b); break;
   case 15: x->v[0] = fmin(fmax(a, fmin(b, c)), fmax(b, c)); break;
   case 16:
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      x->ref = (long double)a * (1.0L - c) + (long double)b * c;
      x->bound = 4 * eps * (fabsl(a) + fabsl(b)) * (1 + fabsl(c));
      break;
   case 17: x->v[0] = fabs(a); break;
   case 18: x->v[0] = a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0; break;
   case 19: x->v[0] = -a; break;
   case 20: {
      float f = (float)b;
      x->v[0] = f;
      if (f != 0.0f && fabsf(f) < FLT_MIN) {
         x->kind = FK_EXACT2;   /* a denormal float may be flushed */
         x->v[1] = copysign(0.0, b);
      }
      break;
   }
   case 21:
   case 22: {
      double w, f = modf(a, &w);
      x->kind = isfinite(a) ? FK_EXACT : FK_SKIP;
      x->v[0] = slot == 21 ? f : w;
      break;
   }
   case 23: {
      int ex;
      x->kind = isfinite(a) ? FK_EXACT : FK_SKIP;
      x->v[0] = frexp(a, &ex);
      break;
   }
   case 24:
      x->v[0] = ldexp(b, e);
      if (!isfinite(b) || !isfinite(x->v[0]))
         x->kind = FK_SKIP;   /* overflow: undefined */
      break;
   case 25: {
      double q = floor(a / b);
      x->kind = FK_EXACT2;
      x->v[0] = a - mul_add_unfused(b, q, 0.0);
      x->v[1] = fma(-b, q, a);
      break;
   }
   case 26: x->v[0] = b < a ? 0.0 : 1.0; break;
   case 27: x->v[0] = a * 0.1; break;
   case 28: x->v[0] = a + 3.141592653589793; break;
   case 29: x->v[0] = (double)(int32_t)fmin(fmax(a, -2.0e9), 2.0e9); break;
   case 30: x->v[0] = (double)(uint32_t)fmin(fmax(a, 0.0), 4.0e9); break;
   case 31: {
      uint64_t u = bits_of(a);
      x->v[0] = double_of(u >> 32 | u << 32);
      break;
   }
   case 32:
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      x->ref = (long double)a * c + (long double)b * a + (long double)c * b;
      x->bound = 4 * eps * (fabsl((long double)a * c) + fabsl((long double)b * a) +
                            fabsl((long double)c * b));
      break;
   case 33:
   case 34: {
      long double d[3] = { a, b, c };
      if (slot == 34)
         d[0] = (long double)a - c, d[1] = (long double)b - a, d[2] = (long double)c - b;
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      x->ref = sqrtl(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      x->bound = 10 * eps * x->ref;
      break;
   }
   case 35:
   case 36:
   case 37: {
      long double u[3] = { a, b, c };
      long double len = sqrtl(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
      x->kind = mod3 && len != 0 ? FK_BOUND : FK_SKIP;
      x->ref = len != 0 ? u[slot - 35] / len : 0;
      x->bound = 10 * eps * fabsl(x->ref);
      break;
   }
   case 38:
   case 39:
   case 40: {
      long double u[3] = { a, b, c }, v[3] = { c, a, b };
      int i = (int)slot - 38, j = (i + 1) % 3, k = (i + 2) % 3;
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      x->ref = u[j] * v[k] - u[k] * v[j];
      x->bound = 4 * eps * (fabsl(u[j] * v[k]) + fabsl(u[k] * v[j]));
      break;
   }
   case 41 ... 56: {
      double md[3][3];
      long double m[3][3];
      f64_matrix(a, b, c, md);
      for (int r = 0; r < 3; r++)
         for (int k = 0; k < 3; k++)
            m[r][k] = md[r][k];
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      long double det = det3(m, false), perm = det3(m, true);
      if (slot == 41) {
         x->ref = det;
         x->bound = 16 * eps * perm;
      } else if (slot <= 50) {
         /* inverse[j][i] (column j, row i) = cofactor(j, i) / det */
         int j = (int)(slot - 42) / 3, i = (int)(slot - 42) % 3;
         int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3, c1 = (i + 2) % 3;
         long double t1 = m[r0][c0] * m[r1][c1], t2 = m[r0][c1] * m[r1][c0];
         if (det == 0 || fabsl(det) < 1e-3L * perm)
            x->kind = FK_SKIP;   /* ill-conditioned */
         x->ref = det != 0 ? (t1 - t2) / det : 0;
         x->bound = 16 * eps * ((fabsl(t1) + fabsl(t2)) / fabsl(det) +
                                fabsl(x->ref) * (perm / fabsl(det) + 1));
      } else {
         /* m * u (51-53), u * m (54-56) */
         long double u[3] = { a, b, c }, s = 0, mag = 0;
         int i = (int)(slot - 51) % 3;
         for (int k = 0; k < 3; k++) {
            long double p = slot <= 53 ? m[i][k] * u[k] : u[k] * m[k][i];
            s += p;
            mag += fabsl(p);
         }
         x->ref = s;
         x->bound = 4 * eps * mag;
      }
      break;
   }
   case 57 ... 60: {
      /* dmat2(a, b, c, a) * transpose(dmat2(b, c, a, b)); slot 57 + col * 2 + row */
      const long double A[2][2] = { { a, c }, { b, a } };   /* [row][col] */
      const long double B[2][2] = { { b, a }, { c, b } };
      int col = (int)(slot - 57) / 2, row = (int)(slot - 57) % 2;
      long double s = 0, mag = 0;
      for (int k = 0; k < 2; k++) {
         long double p = A[row][k] * B[col][k];   /* transpose: T[k][col] = B[col][k] */
         s += p;
         mag += fabsl(p);
      }
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      x->ref = s;
      x->bound = 4 * eps * mag;
      break;
   }
   case 61: {
      double e0 = fmin(b, c), e1 = fmax(b, c) + 1.0;
      long double t = ((long double)a - e0) / ((long double)e1 - e0);
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      x->kind = mod3 && e1 > e0 ? FK_BOUND : FK_SKIP;
      x->ref = t * t * (3 - 2 * t);
      x->bound = 32 * eps;
      break;
   }
   case 62: {
      const double v[4] = { a, b, c, a + b };
      x->v[0] = v[(uint32_t)e & 3];
      break;
   }
   case 63: x->v[0] = a > b ? c : -c; break;
   case 64 ... 67: {
      /* outerProduct(dvec2(a, b), dvec2(c, a)): column j, row i */
      const double col[2] = { c, a }, row[2] = { a, b };
      x->v[0] = row[(slot - 64) % 2] * col[(slot - 64) / 2];
      break;
   }
   case 68 ... 70: {
      /* reflect(u, v) = u - 2 dot(v, u) v */
      long double u[3] = { a, b, c }, v[3] = { c, a, b }, dt = 0, mag = 0;
      for (int k = 0; k < 3; k++) {
         dt += v[k] * u[k];
         mag += fabsl(v[k] * u[k]);
      }
      int i = (int)slot - 68;
      x->kind = mod3 ? FK_BOUND : FK_SKIP;
      x->ref = u[i] - 2 * dt * v[i];
      x->bound = 8 * eps * (fabsl(u[i]) + 2 * mag * fabsl(v[i]));
      break;
   }
   case 71: x->kind = isfinite(a) ? FK_EXACT : FK_SKIP; x->v[0] = a; break;
   default: x->kind = FK_SKIP; break;
   }
   /* An undefined (NaN) result: NaNs need not be generated. */
   if ((x->kind == FK_EXACT || x->kind == FK_ULP || x->kind == FK_EXACT2) &&
       (isnan(x->v[0]) || (x->kind == FK_EXACT2 && isnan(x->v[1]))))
      x->kind = FK_SKIP;
}

static bool
same_value(double got, double want)
{
   if (got == want)
      return true;   /* zeros of either sign too */
   return isnan(got) && isnan(want);
}

/* got matches an expected value: exactly, or flushed when that value is a
 * denormal. */
static bool
exact_ok(double got, double want)
{
   return same_value(got, want) || (is_denormal(want) && got == 0.0);
}

static bool
f64_ok(double got, const struct f64_expect *x)
{
   switch (x->kind) {
   case FK_SKIP:
      return true;
   case FK_EXACT:
      return exact_ok(got, x->v[0]);
   case FK_EXACT2:
      return exact_ok(got, x->v[0]) || exact_ok(got, x->v[1]);
   case FK_ULP:
      if (isinf(x->v[0]) || isinf(got))
         return got == x->v[0] || (isinf(got) && fabs(x->v[0]) == DBL_MAX) ||
                (isinf(x->v[0]) && fabs(got) == DBL_MAX);
      return ulp_distance(got, x->v[0]) <= x->ulps || (is_denormal(x->v[0]) && got == 0.0);
   case FK_BOUND:
      return isfinite(got) && fabsl((long double)got - x->ref) <= x->bound + 1e-300L;
   }
   return false;
}

static uint32_t
f64_mask(double a, double b)
{
   return (a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 |
          (a >= b) << 5 | (isnan(a) != 0) << 6 | (isinf(a) != 0) << 7 | !(a < b) << 8 |
          !(a >= b) << 9 | (a < b && !(b < a)) << 10;
}

/* Whether integer slot `slot` (ri) of ty_f64.comp is defined exactly for
 * these inputs (no denormal, NaN or infinity rules apply). */
static bool
f64_ri_exact(unsigned slot, double a, double b)
{
   if (is_denormal(a) || (slot == 0 && is_denormal(b)))
      return false;
   switch (slot) {
   case 1: {
      float f = (float)a;
      return !isnan(a) && !(f != 0.0f && fabsf(f) < FLT_MIN);
   }
   case 2:
   case 3: return !isnan(a);
   case 4: return isfinite(a);
   default: return true;
   }
}

/* Integer slot `slot` (ri) of ty_f64.comp. */
static bool
f64_ri_ok(unsigned slot, double a, double b, int e, uint32_t got)
{
   switch (slot) {
   case 0: return got == f64_mask(a, b);
   case 1: {
      if (isnan(a))
         return true;
      float f = (float)a;
      return got == fbits(f) || (f != 0.0f && fabsf(f) < FLT_MIN && (got & 0x7fffffffu) == 0);
   }
   case 2: return isnan(a) || got == (uint32_t)(int32_t)fmin(fmax(a, -2.0e9), 2.0e9);
   case 3: return isnan(a) || got == (uint32_t)fmin(fmax(a, 0.0), 4.0e9);
   case 4: {
      int ex;
      if (!isfinite(a))
         return true;
      frexp(a, &ex);
      return got == (uint32_t)ex || (is_denormal(a) && got == 0);
   }
   case 5: return got == (uint32_t)bits_of(a);
   case 6: return got == (uint32_t)(bits_of(a) >> 32);
   case 7: return got == (uint32_t)(int32_t)((double)e * 0.5);
   default: return true;
   }
}

static void
f64_operands(const struct triple *lane, const struct triple *group, const struct f64_push *pc,
             uint32_t i, unsigned form, double v[3], int *e)
{
   const struct triple *g = &group[i / F64_LOCAL];
   switch (form) {
   case 0: v[0] = lane[i].a, v[1] = lane[i].b, v[2] = lane[i].c, *e = lane[i].e; break;
   case 1: v[0] = g->a, v[1] = g->b, v[2] = g->c, *e = g->e; break;
   case 2: v[0] = lane[i].a, v[1] = g->b, v[2] = g->c, *e = g->e; break;
   default: v[0] = pc->a, v[1] = pc->b, v[2] = pc->c, *e = pc->e; break;
   }
}

/* A double from a random sign, mantissa and exponent in [-lo, hi]. */
static double
random_double(uint64_t *seed, int range)
{
   uint64_t r = splitmix64(seed);
   double m = (double)(r >> 11) * 0x1p-53 + 0.5;
   int ex = (int)(splitmix64(seed) % (uint64_t)(2 * range + 1)) - range;
   return ldexp((r & 1) ? -m : m, ex);
}

static void
test_f64(struct dev *d, struct outputs *out)
{
   const uint32_t ne = ARRAY_SIZE(f64_edges);
   const uint32_t n = ne * ne + 512 + 17;
   const uint32_t groups = (n + F64_LOCAL - 1) / F64_LOCAL;
   const VkDescriptorType types[] = { STORAGE, STORAGE, STORAGE, STORAGE };
   struct kernel k;
   kernel_create(d, &k, ty_f64_spv, sizeof(ty_f64_spv), types, 4, sizeof(struct f64_push), NULL);
   size_t dsize = (size_t)n * FORMS * F64_ND * 8, isize = (size_t)n * FORMS * F64_NI * 4;
   struct vkt_buffer lanes = make_buffer(d, (size_t)n * sizeof(struct triple));
   struct vkt_buffer grp = make_buffer(d, groups * sizeof(struct triple));
   struct vkt_buffer rd = make_buffer(d, dsize), ri = make_buffer(d, isize);
   const struct vkt_buffer *bufs[] = { &lanes, &grp, &rd, &ri };
   kernel_bind(d, &k, types, bufs, 4);

   struct triple *lane = lanes.map, *group = grp.map;
   uint64_t seed = 1064;
   for (uint32_t i = 0; i < n; i++) {
      struct triple *t = &lane[i];
      memset(t, 0, sizeof(*t));
      if (i < ne * ne) {
         t->a = f64_edges[i % ne];
         t->b = f64_edges[i / ne];
         t->c = (i % 3) ? f64_edges[(i * 7 + 3) % ne] : random_double(&seed, 2);
      } else {
         t->a = random_double(&seed, 40);
         t->b = random_double(&seed, 40);
         t->c = (i & 1) ? random_double(&seed, 1) : random_double(&seed, 40);
      }
      t->e = (int32_t)(splitmix64(&seed) % 2201) - 1100;
      if (i % 4 == 0)
         t->e = (int32_t)(splitmix64(&seed) % 61) - 30;
   }
   for (uint32_t g = 0; g < groups; g++) {
      memset(&group[g], 0, sizeof(group[g]));
      group[g].a = f64_edges[(g * 7 + 5) % ne];
      group[g].b = (g & 1) ? f64_edges[(g * 3 + 1) % ne] : random_double(&seed, 20);
      group[g].c = random_double(&seed, 3);
      group[g].e = (int32_t)(g * 37 % 200) - 100;
   }
   struct f64_push pc = { 2.5, -0.75, 0.3, 7, n };
   kernel_run(d, &k, &pc, groups);
   double *od = rd.map;
   uint32_t *oi = ri.map;
   struct departures dd, di;
   departures_init(&dd, rd.map, dsize);
   departures_init(&di, ri.map, isize);
   for (unsigned form = 0; form < FORMS; form++) {
      struct report rep = { d->name, "64-bit floats", 0 };
      unsigned checked = 0;
      for (uint32_t i = 0; i < n; i++) {
         double v[3];
         int e;
         f64_operands(lane, group, &pc, i, form, v, &e);
         double *slot = od + ((size_t)i * FORMS + form) * F64_ND;
         uint32_t *islot = oi + ((size_t)i * FORMS + form) * F64_NI;
         bool denorm_in = is_denormal(v[0]) || is_denormal(v[1]) || is_denormal(v[2]);
         for (unsigned s = 0; s < F64_ND; s++) {
            struct f64_expect x, xf;
            f64_expect_d(s, v[0], v[1], v[2], e, &x);
            bool ok = f64_ok(slot[s], &x);
            if (!ok && denorm_in) {
               /* Denormal inputs may be flushed to zero. */
               f64_expect_d(s, flush(v[0]), flush(v[1]), flush(v[2]), e, &xf);
               ok = f64_ok(slot[s], &xf);
            }
            checked += x.kind != FK_SKIP;
            if (!ok && report_fail(&rep))
               fprintf(stderr, "%s: f64 slot %u (%s), a %.17g b %.17g c %.17g e %d: %.17g, "
                       "expected %.17g (kind %d)\n", d->name, s, form_names[form], v[0], v[1],
                       v[2], e, slot[s], x.kind == FK_BOUND ? (double)x.ref : x.v[0], x.kind);
            /* Between drivers: exactly defined results only, NaNs and zeros
             * made canonical. */
            if (x.kind != FK_EXACT || denorm_in || is_denormal(x.v[0]))
               slot[s] = 0.0;
            else if (!ok)
               depart(&dd, &slot[s], 8);
            else if (isnan(slot[s]))
               slot[s] = NAN;
            else if (slot[s] == 0.0)
               slot[s] = 0.0;
         }
         for (unsigned s = 0; s < F64_NI; s++) {
            bool ok = f64_ri_ok(s, v[0], v[1], e, islot[s]) ||
                      (denorm_in && f64_ri_ok(s, flush(v[0]), flush(v[1]), e, islot[s]));
            checked++;
            if (!ok && report_fail(&rep))
               fprintf(stderr, "%s: f64 integer slot %u (%s), a %.17g b %.17g: %#x\n", d->name,
                       s, form_names[form], v[0], v[1], islot[s]);
            if (!f64_ri_exact(s, v[0], v[1]))
               islot[s] = 0;
            else if (!ok)
               depart(&di, &islot[s], 4);
         }
      }
      report_end(&rep, checked);
   }
   keep(out, "f64", &dd, dsize);
   keep(out, "f64 integers", &di, isize);
   vkt_buffer_destroy(&d->t, &lanes);
   vkt_buffer_destroy(&d->t, &grp);
   vkt_buffer_destroy(&d->t, &rd);
   vkt_buffer_destroy(&d->t, &ri);
   kernel_destroy(d, &k);
}

/* ---- layouts (ty_layout.comp) ---- */

/* Members of struct S, in order, with their std140 and std430 offsets as
 * the GLSL rules give them (written out by hand: scalars at their size,
 * dvec2 at 16, dvec3 and dvec4 at 32; std140 rounds array strides and
 * matrix column strides up to 16, std430 does not). kind: 'f' float,
 * 'd' double, 'q' 64-bit integer, 'u' uint. */
struct member {
   const char *name;
   char kind;
   uint32_t count;           /* scalars */
   uint32_t off140, off430;
   uint32_t stride140, stride430;   /* between scalars (arrays, matrix columns) */
   uint32_t per_col;         /* matrices: scalars per column */
};

static const struct member s_members[] = {
   { "f0", 'f', 1, 0, 0, 0, 0, 0 },
   { "d0", 'd', 1, 8, 8, 0, 0, 0 },
   { "v2", 'd', 2, 16, 16, 8, 8, 0 },
   { "f1", 'f', 1, 32, 32, 0, 0, 0 },
   { "v3", 'd', 3, 64, 64, 8, 8, 0 },
   { "d1", 'd', 1, 88, 88, 0, 0, 0 },
   { "v4", 'd', 4, 96, 96, 8, 8, 0 },
   { "arr", 'd', 3, 128, 128, 16, 8, 0 },
   { "m2", 'd', 4, 176, 160, 16, 16, 2 },
   { "m3", 'd', 9, 224, 192, 32, 32, 3 },
   { "q", 'q', 1, 320, 288, 0, 0, 0 },
   { "u", 'u', 1, 328, 296, 0, 0, 0 },
   { "qv", 'q', 2, 336, 304, 8, 8, 0 },
};
#define S_SIZE140 352
#define S_SIZE430 320
/* Block members after S: row-major dmat2x3 (rows are dvec2, stride 16),
 * then a double. */
#define RM_OFF140 352
#define TAIL_OFF140 400
#define RM_OFF430 320
#define TAIL_OFF430 368
#define LAYOUT_NO 98
#define LAYOUT_N 64

/* Byte offset of scalar j of member m. */
static uint32_t
member_offset(const struct member *m, uint32_t j, bool std140)
{
   uint32_t off = std140 ? m->off140 : m->off430;
   uint32_t stride = std140 ? m->stride140 : m->stride430;
   if (m->per_col)
      return off + (j / m->per_col) * stride + (j % m->per_col) * 8;
   return off + j * stride;
}

/* Value of scalar j of member m in block `blk` (0 std140, 1 std430): small
 * dyadic numbers, so the shader's arithmetic on them is exact. */
static double
member_value(unsigned blk, unsigned mi, uint32_t j)
{
   return (double)((int)(blk * 400 + mi * 23 + j * 5) - 150) * 0.0625;
}

static uint64_t
member_int(unsigned blk, unsigned mi, uint32_t j)
{
   if (s_members[mi].kind != 'q' && s_members[mi].kind != 'u')
      return 0;
   const uint64_t q[2][3] = { { 0x8123456789abcdefull, 0xffffffffffffffffull, 0x0123456789abcdefull },
                              { 0x7edcba9876543210ull, 0x8000000000000000ull, 0x00000000fffffffeull } };
   if (s_members[mi].kind == 'u')
      return blk ? 0xdeadbeefu : 0x80000001u;
   return q[blk][mi == 10 ? 0 : 1 + j];
}

static void
put_scalar(uint8_t *base, uint32_t off, char kind, double v, uint64_t iv)
{
   if (kind == 'f') {
      float f = (float)v;
      memcpy(base + off, &f, 4);
   } else if (kind == 'd') {
      memcpy(base + off, &v, 8);
   } else if (kind == 'q') {
      memcpy(base + off, &iv, 8);
   } else {
      uint32_t u = (uint32_t)iv;
      memcpy(base + off, &u, 4);
   }
}

/* The 64-bit word the shader's copy() writes for a scalar. */
static uint64_t
copied_word(char kind, double v, uint64_t iv)
{
   if (kind == 'f')
      return fbits((float)v);
   if (kind == 'd')
      return bits_of(v);
   return kind == 'u' ? (uint32_t)iv : iv;
}

/* rm[c][r] of block blk, stored at rm_off + r * 16 + c * 8 (row-major). */
static double
rm_value(unsigned blk, int c, int r)
{
   return (double)(blk * 100 + c * 10 + r + 1) * 0.5;
}

struct layout_push {
   uint32_t pu, pad0;
   double pd;
   int64_t pq;
   uint64_t pad1;
   double pv[2];
   uint64_t pq2;
   float pf;
   uint32_t n;
   double pv3[3];
};

static void
mark(uint8_t *used, uint32_t off, uint32_t size)
{
   memset(used + off, 1, size);
}

static void
test_layout(struct dev *d, struct outputs *out)
{
   const VkDescriptorType types[] = { UNIFORM, STORAGE, STORAGE, STORAGE, STORAGE, STORAGE };
   struct kernel k;
   _Static_assert(offsetof(struct layout_push, pv) == 32 && offsetof(struct layout_push, pq2) == 48 &&
                     offsetof(struct layout_push, pf) == 56 && offsetof(struct layout_push, pv3) == 64,
                  "push constant offsets");
   kernel_create(d, &k, ty_layout_spv, sizeof(ty_layout_spv), types, 6, sizeof(struct layout_push),
                 NULL);
   const uint32_t n = LAYOUT_N;
   struct vkt_buffer ubo = make_buffer(d, 416), ssbo = make_buffer(d, 384);
   struct vkt_buffer res = make_buffer(d, (size_t)n * LAYOUT_NO * 8);
   struct vkt_buffer w140 = make_buffer(d, (size_t)n * S_SIZE140);
   struct vkt_buffer w430 = make_buffer(d, (size_t)n * S_SIZE430);
   struct vkt_buffer wr = make_buffer(d, (size_t)n * 48);
   const struct vkt_buffer *bufs[] = { &ubo, &ssbo, &res, &w140, &w430, &wr };
   kernel_bind(d, &k, types, bufs, 6);

   /* The blocks, member by member at the hand-computed offsets. */
   uint8_t *blocks[2] = { ubo.map, ssbo.map };
   for (unsigned blk = 0; blk < 2; blk++) {
      for (unsigned mi = 0; mi < ARRAY_SIZE(s_members); mi++) {
         const struct member *m = &s_members[mi];
         for (uint32_t j = 0; j < m->count; j++)
            put_scalar(blocks[blk], member_offset(m, j, blk == 0), m->kind,
                       member_value(blk, mi, j), member_int(blk, mi, j));
      }
      uint32_t rm_off = blk ? RM_OFF430 : RM_OFF140;
      for (int c = 0; c < 2; c++)
         for (int r = 0; r < 3; r++)
            put_scalar(blocks[blk], rm_off + (uint32_t)r * 16 + (uint32_t)c * 8, 'd',
                       rm_value(blk, c, r), 0);
      put_scalar(blocks[blk], blk ? TAIL_OFF430 : TAIL_OFF140, 'd', blk ? -1e300 : 1e-300, 0);
   }
   struct layout_push pc;
   memset(&pc, 0, sizeof(pc));
   pc.pu = 0xcafef00d;
   pc.pd = -1.0 / 3.0;
   pc.pq = INT64_MIN + 12345;
   pc.pv[0] = 6.02214076e23;
   pc.pv[1] = -0.0;
   pc.pq2 = 0xfedcba9876543210ull;
   pc.pf = 0.15625f;
   pc.n = n;
   pc.pv3[0] = 1e-310;
   pc.pv3[1] = DBL_MAX;
   pc.pv3[2] = -2.5;
   kernel_run(d, &k, &pc, 1);

   /* The flat copies. */
   struct report rep = { d->name, "64-bit values read from std140, std430, push constants", 0 };
   const uint64_t *o = res.map;
   struct departures dr, d140, d430, drm;
   departures_init(&dr, res.map, (size_t)n * LAYOUT_NO * 8);
   departures_init(&d140, w140.map, (size_t)n * S_SIZE140);
   departures_init(&d430, w430.map, (size_t)n * S_SIZE430);
   departures_init(&drm, wr.map, (size_t)n * 48);
   unsigned checked = 0;
   for (uint32_t i = 0; i < n; i++) {
      uint64_t want[LAYOUT_NO];
      unsigned w = 0;
      for (unsigned blk = 0; blk < 2; blk++) {
         for (unsigned mi = 0; mi < ARRAY_SIZE(s_members); mi++) {
            const struct member *m = &s_members[mi];
            for (uint32_t j = 0; j < m->count; j++)
               want[w++] = copied_word(m->kind, member_value(blk, mi, j), member_int(blk, mi, j));
         }
         for (int c = 0; c < 2; c++)
            for (int r = 0; r < 3; r++)
               want[w++] = bits_of(rm_value(blk, c, r));
         want[w++] = bits_of(blk ? -1e300 : 1e-300);
         want[w++] = bits_of(member_value(blk, 7, i % 3));               /* arr[i % 3] */
         want[w++] = bits_of(member_value(blk, 9, (i % 3) * 3 + (i / 3) % 3));   /* m3 */
         want[w++] = bits_of(member_value(blk, 6, i & 3));               /* v4[i & 3] */
         want[w++] = bits_of(rm_value(blk, (int)(i & 1), (int)((i >> 1) % 3)));
      }
      want[w++] = pc.pu;
      want[w++] = bits_of(pc.pd);
      want[w++] = (uint64_t)pc.pq;
      want[w++] = bits_of(pc.pv[0]);
      want[w++] = bits_of(pc.pv[1]);
      want[w++] = pc.pq2;
      want[w++] = fbits(pc.pf);
      for (int j = 0; j < 3; j++)
         want[w++] = bits_of(pc.pv3[j]);
      CHECK(w == LAYOUT_NO, "layout reference has %u words", w);
      for (unsigned j = 0; j < LAYOUT_NO; j++) {
         checked++;
         uint64_t got = o[(size_t)i * LAYOUT_NO + j];
         /* A denormal push constant may be flushed to zero. */
         bool ok = got == want[j] || (j == LAYOUT_NO - 3 && (got << 1) == 0);
         if (!ok && report_departure(&rep, &dr, &o[(size_t)i * LAYOUT_NO + j], 8))
            fprintf(stderr, "%s: layout word %u of invocation %u: %#llx, expected %#llx\n",
                    d->name, j, i, (unsigned long long)got, (unsigned long long)want[j]);
      }
   }
   report_end(&rep, checked);

   /* The stores: every member where the rules put it, padding untouched. */
   struct report srep = { d->name, "64-bit values stored to std140 and std430", 0 };
   checked = 0;
   for (unsigned blk = 0; blk < 2; blk++) {
      uint32_t stride = blk ? S_SIZE430 : S_SIZE140;
      uint8_t *base = blk ? w430.map : w140.map;
      struct departures *dp = blk ? &d430 : &d140;
      uint8_t *used = calloc(n, stride);
      for (uint32_t i = 0; i < n; i++) {
         uint8_t *s = base + (size_t)i * stride;
         double di = i;
         for (unsigned mi = 0; mi < ARRAY_SIZE(s_members); mi++) {
            const struct member *m = &s_members[mi];
            for (uint32_t j = 0; j < m->count; j++) {
               uint32_t off = member_offset(m, j, blk == 0);
               double v = 0;
               uint64_t iv = 0;
               switch (mi) {
               case 0: v = (float)member_value(0, 0, 0) + (float)i; break;
               case 1: v = member_value(0, 1, 0) * (di + 1.0); break;
               case 2: v = member_value(0, 2, j) + di; break;
               case 3: v = (float)i; break;
               case 4: v = member_value(1, 4, j) - di; break;
               case 5: v = di * 0.5; break;
               case 6: v = di + j; break;
               case 7: v = member_value(0, 7, j) + di; break;
               case 8: v = member_value(0, 8, j) * (di + 1.0); break;
               case 9: v = member_value(1, 9, j) + (j % 4 == 0 ? di : 0.0); break;
               case 10: iv = member_int(1, 10, 0) + i; break;
               case 11: iv = i * 3u; break;
               case 12: iv = j ? ~(uint64_t)i : i; break;
               }
               uint32_t size = m->kind == 'f' || m->kind == 'u' ? 4 : 8;
               uint64_t got = 0, want = copied_word(m->kind, v, iv);
               memcpy(&got, s + off, size);
               mark(used + (size_t)i * stride, off, size);
               checked++;
               if (got != want && report_departure(&srep, dp, s + off, size))
                  fprintf(stderr, "%s: %s store of %s[%u] in element %u: %#llx, expected %#llx\n",
                          d->name, blk ? "std430" : "std140", m->name, j, i,
                          (unsigned long long)got, (unsigned long long)want);
            }
         }
      }
      size_t untouched = 0;
      for (size_t b = 0; b < (size_t)n * stride; b++) {
         if (!used[b] && base[b] != 0xa5) {
            untouched++;
            depart(dp, base + b, 1);
         }
      }
      checked++;
      if (untouched && report_fail(&srep))
         fprintf(stderr, "%s: %s stores wrote %zu padding bytes\n", d->name,
                 blk ? "std430" : "std140", untouched);
      free(used);
   }
   /* Row-major dmat2x3 array: element i = b.rm * (i + 1), rows of 16 bytes. */
   for (uint32_t i = 0; i < n; i++) {
      const uint8_t *m = (const uint8_t *)wr.map + (size_t)i * 48;
      for (int c = 0; c < 2; c++) {
         for (int r = 0; r < 3; r++) {
            double got;
            memcpy(&got, m + r * 16 + c * 8, 8);
            double want = rm_value(1, c, r) * (double)(i + 1);
            checked++;
            if (got != want && report_departure(&srep, &drm, m + r * 16 + c * 8, 8))
               fprintf(stderr, "%s: row-major store [%d][%d] of element %u: %g, expected %g\n",
                       d->name, c, r, i, got, want);
         }
      }
   }
   report_end(&srep, checked);
   keep(out, "layout reads", &dr, (size_t)n * LAYOUT_NO * 8);
   keep(out, "layout std140 stores", &d140, (size_t)n * S_SIZE140);
   keep(out, "layout std430 stores", &d430, (size_t)n * S_SIZE430);
   keep(out, "layout row-major stores", &drm, (size_t)n * 48);
   vkt_buffer_destroy(&d->t, &ubo);
   vkt_buffer_destroy(&d->t, &ssbo);
   vkt_buffer_destroy(&d->t, &res);
   vkt_buffer_destroy(&d->t, &w140);
   vkt_buffer_destroy(&d->t, &w430);
   vkt_buffer_destroy(&d->t, &wr);
   kernel_destroy(d, &k);
}

/* ---- control flow and memory (ty_ctl.comp) ---- */

#define CTL_NO 32
#define CTL_LOCAL 64

struct ctl_spec {
   int64_t k64;
   double kd;
   uint64_t ku;
   int16_t k16;
};

/* Slots 0..30 of invocation gi (local index li) for input a; slots 9-11
 * (the workgroup's reductions) are filled by the caller. Returns false
 * when the invocation leaves before slot 24. */
static bool
ctl_ref(uint64_t a, uint32_t li, const struct ctl_spec *sp, uint64_t o[CTL_NO])
{
   int64_t sa = (int64_t)a;
   uint64_t acc = a;
   for (uint64_t j = 0; j < (a & 15) + 3; j++)
      acc = (acc * 31 + j) ^ (acc >> 7);
   o[0] = acc;

   uint64_t v = (a & 0xffffff) | 1;
   uint32_t n = 0;
   while (v != 1 && n < 1000) {
      v = (v & 1) ? 3 * v + 1 : v >> 1;
      n++;
   }
   o[1] = n;

   uint64_t x;
   if (sa < 0)
      x = (uint64_t)(-(sa / 3));
   else if (sa > 1000000)
      x = a * 5;
   else
      x = a + 9;
   o[2] = x;

   uint64_t loc[8];
   double dl[8];
   int16_t hl[8];
   for (int j = 0; j < 8; j++) {
      loc[j] = a >> (j * 8);
      dl[j] = (double)j * 0.5 + (double)li;
      hl[j] = (int16_t)(uint16_t)(a >> (j * 4));
   }
   uint32_t idx = (uint32_t)a & 7;
   loc[(idx + 3) & 7] = ~loc[idx];
   hl[idx] = (int16_t)(uint16_t)((uint32_t)(uint16_t)hl[idx] * 3);
   dl[(idx + 1) & 7] = -dl[idx];
   int hs = 0;
   double ds = 0;
   uint64_t lx = 0;
   for (int j = 0; j < 8; j++) {
      hs += hl[j];
      ds += dl[j] * (double)(j + 1);
      lx = lx * 3 + loc[j];
   }
   o[3] = loc[idx];
   o[4] = lx;
   o[5] = (uint64_t)(int64_t)hs;
   o[6] = bits_of(ds);
   o[7] = (uint64_t)(int64_t)hl[(idx + 5) & 7];

   switch ((uint32_t)(a >> 60)) {
   case 0: o[8] = a * 3; break;
   case 1:
   case 2: o[8] = a ^ 0x5555555555555555ull; break;
   case 15: o[8] = 0 - a; break;
   default: o[8] = a >> 3; break;
   }
   o[12] = acc ^ x;
   int16_t h0 = (int16_t)(uint16_t)(a * 3);
   uint16_t hx = (uint16_t)(a >> 16), hy = (uint16_t)(a >> 32);
   o[25] = (uint64_t)(int64_t)h0;
   o[26] = bits_of((double)(sa >> 20) * 0.125);
   o[27] = hx | (uint64_t)hy << 16 | (uint64_t)(uint16_t)(hy - hx) << 32;
   o[28] = (uint64_t)(int64_t)(int16_t)((double)(sa >> 48) * 0.5);
   o[29] = (uint16_t)((double)(a >> 48) * 0.75);
   o[30] = bits_of((double)(int16_t)(uint16_t)a / 4.0 + (double)(uint16_t)(a >> 8));

   o[13] = (uint64_t)sp->k64;
   o[14] = (uint64_t)sp->k64 * 3 + 1;
   o[15] = bits_of(sp->kd);
   o[16] = sp->ku;
   o[17] = sp->ku >> 4;
   o[18] = (uint64_t)(int64_t)sp->k16;
   o[19] = a * (uint64_t)sp->k64 + (uint64_t)(int64_t)sp->k16;
   o[20] = bits_of((double)(sa >> 12) * sp->kd);

   uint32_t steps = 0;
   for (uint16_t j = (uint16_t)a; j != 3; j = (uint16_t)(j + 4099)) {
      steps++;
      if (steps > 70000)
         break;
   }
   o[21] = steps;

   if ((a & 3) == 0) {
      o[22] = a + 1;
      o[23] = bits_of((double)li);
   } else if ((a & 3) == 1) {
      o[22] = a * a;
      o[23] = bits_of(-(double)li);
   } else {
      o[22] = ~a;
      o[23] = bits_of(0.5);
   }
   if ((a & 7) == 5)
      return false;
   o[24] = a - 1;
   return true;
}

static void
test_ctl(struct dev *d, struct outputs *out)
{
   const uint32_t groups = 4, n = groups * CTL_LOCAL;
   const VkDescriptorType types[] = { STORAGE, STORAGE };
   /* Defaults, then every constant specialized (K16 with 2 bytes). */
   static const struct ctl_spec defaults = { 5, 1.5, 0xffffffffffffffffull, -2 };
   static const struct ctl_spec special = { -123456789012345ll, -2.75, 0x8000000000000001ull,
                                            -1234 };
   const VkSpecializationMapEntry entries[] = {
      { 0, offsetof(struct ctl_spec, k64), 8 },
      { 1, offsetof(struct ctl_spec, kd), 8 },
      { 2, offsetof(struct ctl_spec, ku), 8 },
      { 3, offsetof(struct ctl_spec, k16), 2 },
   };
   const VkSpecializationInfo spec = { 4, entries, sizeof(special), &special };
   struct vkt_buffer in = make_buffer(d, n * 8), res = make_buffer(d, (size_t)n * CTL_NO * 8);
   uint64_t *a = in.map;
   uint64_t seed = 99;
   for (uint32_t i = 0; i < n; i++) {
      uint64_t r = splitmix64(&seed);
      a[i] = i < ARRAY_SIZE(i64_edges) ? i64_edges[i] : (i & 1) ? r : r >> (r & 63);
   }
   for (unsigned pass = 0; pass < 2; pass++) {
      const struct ctl_spec *sp = pass ? &special : &defaults;
      struct kernel k;
      kernel_create(d, &k, ty_ctl_spv, sizeof(ty_ctl_spv), types, 2, 0, pass ? &spec : NULL);
      const struct vkt_buffer *bufs[] = { &in, &res };
      kernel_bind(d, &k, types, bufs, 2);
      memset(res.map, 0xa5, (size_t)n * CTL_NO * 8);
      kernel_run(d, &k, NULL, groups);
      struct report rep = { d->name, pass ? "control flow and memory (specialized)"
                                          : "control flow and memory", 0 };
      const uint64_t *o = res.map;
      struct departures dp;
      departures_init(&dp, res.map, (size_t)n * CTL_NO * 8);
      unsigned checked = 0;
      for (uint32_t g = 0; g < groups; g++) {
         uint64_t sum = 0;
         double dsum = 0;
         int16_t hmax = INT16_MIN;
         for (uint32_t li = 0; li < CTL_LOCAL; li++) {
            uint64_t v = a[g * CTL_LOCAL + li];
            sum += v;
            dsum += (double)((int64_t)v >> 40) * 0.25;
            int16_t h = (int16_t)(uint16_t)v;
            hmax = h > hmax ? h : hmax;
         }
         for (uint32_t li = 0; li < CTL_LOCAL; li++) {
            uint32_t gi = g * CTL_LOCAL + li;
            uint64_t want[CTL_NO];
            memset(want, 0xa5, sizeof(want));
            ctl_ref(a[gi], li, sp, want);
            want[9] = sum;
            want[10] = bits_of(dsum);
            want[11] = (uint64_t)(int64_t)hmax;
            for (unsigned s = 0; s < CTL_NO; s++) {
               uint64_t got = o[(size_t)gi * CTL_NO + s];
               checked++;
               if (got != want[s] &&
                   report_departure(&rep, &dp, &o[(size_t)gi * CTL_NO + s], 8))
                  fprintf(stderr, "%s: ctl slot %u, invocation %u, a %#llx: %#llx, expected %#llx\n",
                          d->name, s, gi, (unsigned long long)a[gi], (unsigned long long)got,
                          (unsigned long long)want[s]);
            }
         }
      }
      report_end(&rep, checked);
      keep(out, pass ? "ctl specialized" : "ctl", &dp, (size_t)n * CTL_NO * 8);
      kernel_destroy(d, &k);
   }
   vkt_buffer_destroy(&d->t, &in);
   vkt_buffer_destroy(&d->t, &res);
}

/* ---- OpSwitch and OpSpecConstantOp on 64- and 16-bit values (ty_switch.spvasm) ---- */

#define SW_NO 32

struct sw_spec {
   int64_t s64;
   uint64_t u64;
   int16_t s16;
};

static uint64_t
sx64(int64_t v)
{
   return (uint64_t)v;
}

/* Words 4..27 of every invocation: the specialization-constant results. */
static void
sw_spec_ref(const struct sw_spec *sp, uint64_t o[24])
{
   int64_t s64 = sp->s64;
   uint64_t s64u = (uint64_t)s64, u64 = sp->u64, udiv = s64u / 7;
   int16_t s16 = sp->s16;
   int64_t rem = s64 % 7;
   bool ugt = u64 > s64u, ne16 = s16 != -300;
   o[0] = sx64(s64 / 7);
   o[1] = sx64(rem);
   o[2] = sx64(rem != 0 && rem < 0 ? rem + 7 : rem);
   o[3] = udiv;
   o[4] = u64 % 1000;
   o[5] = sx64(s64 >> 4);
   o[6] = s64u >> 60;
   o[7] = u64 << 40;
   o[8] = 0 - s64u;
   o[9] = ~s64u;
   o[10] = sx64(s64 < -3 ? 7 : -3);
   o[11] = !(ugt && ne16) ? u64 : 7;
   o[12] = sx64(s16);
   o[13] = sx64(s16) & 0xffff;
   o[14] = sx64((int16_t)(uint16_t)s64u);
   o[15] = sx64((int16_t)(uint16_t)((uint32_t)(uint16_t)s16 * 3));
   o[16] = sx64((int16_t)(s16 / 3));
   o[17] = sx64((int16_t)(uint16_t)((uint16_t)u64 >> 9));
   o[18] = u64;
   o[19] = u64;
   o[20] = udiv;
   o[21] = u64 ^ s64u;
   o[22] = u64 - udiv;
   o[23] = s64u;
}

static void
sw_ref(uint64_t a, const struct sw_spec *sp, uint64_t o[SW_NO])
{
   int64_t sa = (int64_t)a;
   uint16_t h = (uint16_t)a;
   int16_t sh = (int16_t)h;
   memset(o, 0xa5, SW_NO * 8);
   o[0] = a == 0 ? 7 : a == 1 || a == 5 ? 40 : a == 4294967296ull ? 60
        : a == UINT64_MAX ? 1000 : a == 1ull << 63 ? sp->u64 : 0;
   o[1] = sa == -1 ? 7 : sa == INT64_MIN ? 40 : sa == -4294967296ll ? 60 : sa == 7 ? 1000 : 0;
   o[2] = h == 0 ? 7 : h == 65535 ? 40 : h == 32768 ? 60 : h == 255 ? 1000 : 0;
   o[3] = sh == -1 ? 7 : sh == -32768 ? 40 : sh == 300 ? 60 : sh == 1 ? 1000 : 0;
   sw_spec_ref(sp, o + 4);
}

static void
test_switch(struct dev *d, struct outputs *out)
{
   const uint32_t groups = 4, n = groups * 32;
   const VkDescriptorType types[] = { STORAGE, STORAGE };
   static const struct sw_spec specs[] = {
      { -5, 0x8000000000000001ull, -300 },   /* the module's defaults */
      { 0x7ffffffffffffff0ll, 12345, 32767 },
      { INT64_MIN, 0, -32768 },
   };
   const VkSpecializationMapEntry entries[] = {
      { 0, offsetof(struct sw_spec, s64), 8 },
      { 1, offsetof(struct sw_spec, s16), 2 },
      { 2, offsetof(struct sw_spec, u64), 8 },
   };
   struct vkt_buffer in = make_buffer(d, n * 8), res = make_buffer(d, (size_t)n * SW_NO * 8);
   uint64_t *a = in.map;
   static const uint64_t extra[] = {
      0xffffffff00000000ull, 0x10000 + 300, 0x12340001, 0xabcd00ff, 0xffff, 0x18000,
      0x8000000000000000ull, 7, 0xfffffffffffeffffull, 5,
   };
   uint64_t seed = 5;
   for (uint32_t i = 0; i < n; i++) {
      uint64_t r = splitmix64(&seed);
      a[i] = i < ARRAY_SIZE(i64_edges) ? i64_edges[i]
             : i - ARRAY_SIZE(i64_edges) < ARRAY_SIZE(extra) ? extra[i - ARRAY_SIZE(i64_edges)]
             : r >> (r & 63);
   }
   for (unsigned pass = 0; pass < ARRAY_SIZE(specs); pass++) {
      const VkSpecializationInfo spec = { 3, entries, sizeof(specs[pass]), &specs[pass] };
      struct kernel k;
      kernel_create(d, &k, ty_switch_spv, sizeof(ty_switch_spv), types, 2, 0,
                    pass ? &spec : NULL);
      const struct vkt_buffer *bufs[] = { &in, &res };
      kernel_bind(d, &k, types, bufs, 2);
      memset(res.map, 0xa5, (size_t)n * SW_NO * 8);
      kernel_run(d, &k, NULL, groups);
      struct report rep = { d->name, "OpSwitch and OpSpecConstantOp on 64- and 16-bit values", 0 };
      const uint64_t *o = res.map;
      struct departures dp;
      departures_init(&dp, res.map, (size_t)n * SW_NO * 8);
      for (uint32_t i = 0; i < n; i++) {
         uint64_t want[SW_NO];
         sw_ref(a[i], &specs[pass], want);
         for (unsigned s = 0; s < SW_NO; s++)
            if (o[i * SW_NO + s] != want[s] &&
                report_departure(&rep, &dp, &o[i * SW_NO + s], 8))
               fprintf(stderr, "%s: switch/spec word %u (specialization %u), a %#llx: %#llx, "
                       "expected %#llx\n", d->name, s, pass, (unsigned long long)a[i],
                       (unsigned long long)o[i * SW_NO + s], (unsigned long long)want[s]);
      }
      report_end(&rep, n * SW_NO);
      static const char *const names[] = { "switch", "switch (specialized)",
                                           "switch (specialized again)" };
      keep(out, names[pass], &dp, (size_t)n * SW_NO * 8);
      kernel_destroy(d, &k);
   }
   vkt_buffer_destroy(&d->t, &in);
   vkt_buffer_destroy(&d->t, &res);
}

/* ---- findLSB on 64- and 16-bit values (ty_lsb.comp, Shale only) ---- */

static int64_t
lsb(uint64_t v)
{
   return v ? __builtin_ctzll(v) : -1;
}

static void
test_lsb(struct dev *d)
{
   const uint32_t groups = 8, n = groups * 32;
   const VkDescriptorType types[] = { STORAGE, STORAGE };
   struct kernel k;
   kernel_create(d, &k, ty_lsb_spv, sizeof(ty_lsb_spv), types, 2, 0, NULL);
   struct vkt_buffer in = make_buffer(d, n * 8), res = make_buffer(d, (size_t)n * 8 * 8);
   const struct vkt_buffer *bufs[] = { &in, &res };
   kernel_bind(d, &k, types, bufs, 2);
   uint64_t *a = in.map;
   uint64_t seed = 7;
   for (uint32_t i = 0; i < n; i++) {
      uint64_t r = splitmix64(&seed);
      a[i] = i < ARRAY_SIZE(i64_edges) ? i64_edges[i] : r << (r >> 58) & ~(r >> 7 & 0xffff);
   }
   a[40] = 1ull << 63;
   a[41] = 1ull << 31;
   a[42] = 0x10000;
   kernel_run(d, &k, NULL, groups);
   struct report rep = { d->name, "findLSB of 64- and 16-bit values", 0 };
   const int64_t *r = res.map;
   for (uint32_t i = 0; i < n; i++) {
      uint64_t v = a[i], g = a[(i / 32) * 5];
      const int64_t want[8] = {
         lsb(v), lsb(v), lsb((uint16_t)v), lsb((uint16_t)(v >> 16)), lsb(g), lsb((uint16_t)g),
         lsb(v) + lsb(~v) * 100, lsb((uint32_t)v),
      };
      for (unsigned s = 0; s < 8; s++)
         if (r[i * 8 + s] != want[s] && report_fail(&rep))
            fprintf(stderr, "%s: findLSB slot %u, value %#llx: %lld, expected %lld\n", d->name, s,
                    (unsigned long long)v, (long long)r[i * 8 + s], (long long)want[s]);
   }
   report_end(&rep, n * 8);
   vkt_buffer_destroy(&d->t, &in);
   vkt_buffer_destroy(&d->t, &res);
   kernel_destroy(d, &k);
}

/* ---- the features through VkPhysicalDeviceFeatures2 ---- */

static void
test_features2(void)
{
   struct vkt t;
   const char *iext[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   VkPhysicalDeviceFeatures2 f2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
      .features = { .shaderInt64 = VK_TRUE, .shaderFloat64 = VK_TRUE, .shaderInt16 = VK_TRUE },
   };
   struct vkt_options o = {
      .instance_extensions = iext,
      .instance_extension_count = 1,
      .device_pnext = &f2,
   };
   CHECK(vkt_init(&t, &o), "Shale device with the features in VkPhysicalDeviceFeatures2");
   if (!t.device)
      return;
   PFN_vkGetPhysicalDeviceFeatures2KHR get = (PFN_vkGetPhysicalDeviceFeatures2KHR)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceFeatures2KHR");
   CHECK(get != NULL, "vkGetPhysicalDeviceFeatures2KHR");
   if (get) {
      VkPhysicalDeviceFeatures2 q = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
      get(t.pdev, &q);
      CHECK(q.features.shaderInt64 && q.features.shaderFloat64 && q.features.shaderInt16,
            "features reported through vkGetPhysicalDeviceFeatures2KHR");
   }
   vkt_finish(&t);
}

/* ---- drivers and widths ---- */

static void
run_suite(struct dev *d, struct outputs *out)
{
   test_i64(d, out);
   test_i16(d, out);
   test_f64(d, out);
   test_layout(d, out);
   test_ctl(d, out);
   test_switch(d, out);
}

static void
compare(const char *label, const struct outputs *a, const struct outputs *b)
{
   unsigned compared = outputs_compare(label, a, b);
   CHECK(compared == a->count && compared == b->count, "%s: %u of %u results compared", label,
         compared, a->count);
}

int
main(void)
{
   const char *dbg = getenv("SHALE_DEBUG");
   char flags[256];
   snprintf(flags, sizeof(flags), "%s%sinfo", dbg ? dbg : "", dbg && *dbg ? "," : "");
   setenv("SHALE_DEBUG", flags, 1);

   /* Every width; one of them with robustBufferAccess (range checks on
    * every access). */
   static const char *const widths[] = { "4", "8", "16" };
   static const bool robust[] = { false, true, false };
   struct outputs shale[ARRAY_SIZE(widths)], lvp = { 0 };
   memset(shale, 0, sizeof(shale));
   for (unsigned w = 0; w < ARRAY_SIZE(widths); w++) {
      setenv("SHALE_SIMD_WIDTH", widths[w], 1);
      /* The shader runtime logs its width when it starts: with the device
       * or with the first pipeline. */
      struct dev d;
      struct capture cap;
      capture_begin(&cap);
      bool ok = dev_init(&d, VKT_SHALE, robust[w]);
      if (ok)
         test_lsb(&d);
      char *log = capture_end(&cap);
      CHECK(ok, "Shale device at SIMD width %s", widths[w]);
      char want[64];
      snprintf(want, sizeof(want), "SIMD width %s\n", widths[w]);
      CHECK(!ok || strstr(log, want) != NULL, "SIMD width %s not in use", widths[w]);
      free(log);
      if (!ok)
         continue;
      run_suite(&d, &shale[w]);
      dev_finish(&d);
   }
   unsetenv("SHALE_SIMD_WIDTH");
   test_features2();

   struct dev d;
   if (dev_init(&d, VKT_LAVAPIPE, false)) {
      run_suite(&d, &lvp);
      dev_finish(&d);
      for (unsigned w = 0; w < ARRAY_SIZE(widths); w++) {
         char label[64];
         snprintf(label, sizeof(label), "SIMD width %s%s vs lavapipe", widths[w],
                  robust[w] ? " (robustBufferAccess)" : "");
         compare(label, &shale[w], &lvp);
      }
   } else {
      fprintf(stderr, "lavapipe (with the three features) not available: comparison skipped\n");
   }
   for (unsigned w = 0; w < ARRAY_SIZE(widths); w++)
      outputs_free(&shale[w]);
   outputs_free(&lvp);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
