/* Subgroup operations on 16- and 64-bit integers (shaderSubgroupExtendedTypes,
 * VK_KHR_shader_subgroup_extended_types, required by Vulkan 1.2, with
 * shaderInt16 and shaderInt64) through the loader with the validation layer,
 * on Shale at SIMD widths 4, 8 and 16 (SHALE_SIMD_WIDTH: subgroups of that
 * many lanes) and (when present) lavapipe: sg_types.comp runs 4 workgroups of
 * 64 invocations; each writes its subgroup id and lane, then the results of
 * 16-bit reductions (add, min, max, xor), an inclusive scan, clustered add,
 * shuffle xor, broadcast and quad swap, and of 64-bit reductions (add, min,
 * unsigned max, or), an exclusive scan, shuffle, broadcast-first and
 * clustered max, all lanes active; then a 16-bit add and a 64-bit multiply
 * over the lanes whose invocation index is not a multiple of 3. The C
 * reference groups the invocations by the subgroup and lane each reported
 * (so it holds whatever the subgroup size), with 16-bit results wrapping at
 * 16 bits and 64-bit ones at 64; every word is compared. Then, with
 * shaderInt8, sg_types8.comp does the same for 8-bit integers: add, signed
 * and unsigned min and max, mul, and, or, xor reductions, inclusive and
 * exclusive scans, broadcast (lane 2), broadcast-first, shuffle (lane ^ 3),
 * shuffle xor, clustered add (4) and min (2), quad swap and quad broadcast
 * (lane 1), and an add over the divergent lanes, wrapping at 8 bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"
#include "xorshift.h"

#include "sg_types8_spv.h"
#include "sg_types_spv.h"

#define LOCAL 64
#define GROUPS 4
#define N (LOCAL * GROUPS)
#define WORDS 28
#define WORDS8 21
#define MAX_SG 128

static uint32_t in[2 * N];

static uint64_t rng = 0x2545F4914F6CDD1Dull;

static uint32_t
rnd(void)
{
   return xorshift64_u32(&rng);
}

static int16_t
s16(uint32_t i)
{
   return (int16_t)(uint16_t)in[2 * i];
}

static uint16_t
u16(uint32_t i)
{
   return (uint16_t)in[2 * i + 1];
}

static int64_t
s64(uint32_t i)
{
   return (int64_t)(((uint64_t)in[2 * i] << 32) | in[2 * i + 1]);
}

static uint32_t
sx16(uint32_t v)
{
   return (uint32_t)(int32_t)(int16_t)(uint16_t)v;
}

static void
put64(uint32_t *o, uint64_t v)
{
   o[0] = (uint32_t)v;
   o[1] = (uint32_t)(v >> 32);
}

/* want[] from the layout the shader reported in got[] (word 0s); false
 * when that layout is not a partition of each workgroup into subgroups. */
static bool
reference(const uint32_t *got, uint32_t *want)
{
   memset(want, 0, sizeof(uint32_t) * N * WORDS);
   for (uint32_t wg = 0; wg < GROUPS; wg++) {
      /* members[sg][lane] = global invocation, or -1 */
      static int members[MAX_SG][MAX_SG];
      memset(members, 0xff, sizeof(members));
      for (uint32_t l = 0; l < LOCAL; l++) {
         uint32_t g = wg * LOCAL + l, w0 = got[g * WORDS];
         uint32_t sg = w0 >> 16, lane = w0 & 0xffff;
         if (sg >= MAX_SG || lane >= MAX_SG || members[sg][lane] >= 0)
            return false;
         members[sg][lane] = (int)g;
      }
      for (uint32_t sg = 0; sg < MAX_SG; sg++) {
         int *m = members[sg];
         uint32_t size = 0;
         while (size < MAX_SG && m[size] >= 0)
            size++;
         for (uint32_t l = size; l < MAX_SG; l++)
            if (m[l] >= 0)
               return false;   /* lanes not contiguous from 0 */
         if (!size)
            continue;
         uint16_t add16 = 0, xor16 = 0;
         int16_t min16 = INT16_MAX, max16 = INT16_MIN;
         uint64_t add64 = 0, or64 = 0, umax64 = 0;
         int64_t min64 = INT64_MAX;
         uint16_t dadd16 = 0;
         uint64_t dmul64 = 1;
         for (uint32_t l = 0; l < size; l++) {
            uint32_t g = (uint32_t)m[l];
            add16 = (uint16_t)(add16 + (uint16_t)s16(g));
            xor16 ^= u16(g);
            min16 = s16(g) < min16 ? s16(g) : min16;
            max16 = s16(g) > max16 ? s16(g) : max16;
            add64 += (uint64_t)s64(g);
            or64 |= (uint64_t)s64(g);
            umax64 = (uint64_t)s64(g) > umax64 ? (uint64_t)s64(g) : umax64;
            min64 = s64(g) < min64 ? s64(g) : min64;
            if (g % 3 != 0) {
               dadd16 = (uint16_t)(dadd16 + (uint16_t)s16(g));
               dmul64 *= (uint64_t)u16(g) + 1;
            }
         }
         uint16_t incl16 = 0;
         uint64_t excl64 = 0;
         for (uint32_t l = 0; l < size; l++) {
            uint32_t g = (uint32_t)m[l];
            uint32_t *o = want + g * WORDS;
            o[0] = got[g * WORDS];
            o[1] = sx16(add16);
            o[2] = (uint32_t)(int32_t)min16;
            o[3] = (uint32_t)(int32_t)max16;
            incl16 = (uint16_t)(incl16 + u16(g));
            o[4] = incl16;
            o[5] = xor16;
            o[6] = (uint32_t)(int32_t)s16((uint32_t)m[l ^ 1]);
            o[7] = (uint32_t)(int32_t)s16((uint32_t)m[2]);
            o[8] = u16((uint32_t)m[l ^ 1]);
            uint16_t c4 = 0;
            for (uint32_t k = l & ~3u; k < (l & ~3u) + 4; k++)
               c4 = (uint16_t)(c4 + u16((uint32_t)m[k]));
            o[9] = c4;
            put64(o + 10, add64);
            put64(o + 12, (uint64_t)min64);
            put64(o + 14, umax64);
            put64(o + 16, excl64);
            excl64 += (uint64_t)s64(g);
            put64(o + 18, or64);
            put64(o + 20, (uint64_t)s64((uint32_t)m[l ^ 3]));
            put64(o + 22, (uint64_t)s64((uint32_t)m[0]));
            int64_t c2a = s64((uint32_t)m[l & ~1u]), c2b = s64((uint32_t)m[l | 1u]);
            put64(o + 24, (uint64_t)(c2a > c2b ? c2a : c2b));
            if (g % 3 != 0) {
               o[26] = sx16(dadd16);
               o[27] = (uint32_t)(dmul64 >> 3);
            }
         }
      }
   }
   return true;
}

static uint32_t
sx8(uint32_t v)
{
   return (uint32_t)(int32_t)(int8_t)(uint8_t)v;
}

/* sg_types8.comp's want[] (WORDS8 words an invocation), as reference(). */
static bool
reference8(const uint32_t *got, uint32_t *want)
{
   memset(want, 0, sizeof(uint32_t) * N * WORDS8);
   for (uint32_t wg = 0; wg < GROUPS; wg++) {
      static int members[MAX_SG][MAX_SG];
      memset(members, 0xff, sizeof(members));
      for (uint32_t l = 0; l < LOCAL; l++) {
         uint32_t g = wg * LOCAL + l, w0 = got[g * WORDS8];
         uint32_t sg = w0 >> 16, lane = w0 & 0xffff;
         if (sg >= MAX_SG || lane >= MAX_SG || members[sg][lane] >= 0)
            return false;
         members[sg][lane] = (int)g;
      }
      for (uint32_t sg = 0; sg < MAX_SG; sg++) {
         int *m = members[sg];
         uint32_t size = 0;
         while (size < MAX_SG && m[size] >= 0)
            size++;
         for (uint32_t l = size; l < MAX_SG; l++)
            if (m[l] >= 0)
               return false;
         if (!size)
            continue;
         uint8_t add = 0, umin = UINT8_MAX, umax = 0, mul = 1, and = UINT8_MAX, or = 0, xor = 0;
         int8_t smin = INT8_MAX, smax = INT8_MIN;
         uint8_t dadd = 0;
         for (uint32_t l = 0; l < size; l++) {
            uint32_t g = (uint32_t)m[l];
            int8_t sv = (int8_t)(uint8_t)in[2 * g];
            uint8_t uv = (uint8_t)in[2 * g + 1];
            add = (uint8_t)(add + (uint8_t)sv);
            smin = sv < smin ? sv : smin;
            smax = sv > smax ? sv : smax;
            umin = uv < umin ? uv : umin;
            umax = uv > umax ? uv : umax;
            mul = (uint8_t)(mul * uv);
            and &= uv;
            or |= uv;
            xor ^= uv;
            if (g % 3 != 0)
               dadd = (uint8_t)(dadd + (uint8_t)sv);
         }
         uint8_t incl = 0, excl = 0;
         for (uint32_t l = 0; l < size; l++) {
            uint32_t g = (uint32_t)m[l];
            uint32_t *o = want + g * WORDS8;
#define S8(i) ((uint32_t)(int32_t)(int8_t)(uint8_t)in[2 * (uint32_t)(i)])
#define U8(i) ((uint32_t)(uint8_t)in[2 * (uint32_t)(i) + 1])
            o[0] = got[g * WORDS8];
            o[1] = sx8(add);
            o[2] = (uint32_t)(int32_t)smin;
            o[3] = (uint32_t)(int32_t)smax;
            o[4] = umin;
            o[5] = umax;
            o[6] = mul;
            o[7] = and;
            o[8] = or;
            o[9] = xor;
            incl = (uint8_t)(incl + U8(g));
            o[10] = incl;
            o[11] = sx8(excl);
            excl = (uint8_t)(excl + S8(g));
            o[12] = S8(m[2]);
            o[13] = S8(m[0]);
            o[14] = U8(m[l ^ 3]);
            o[15] = S8(m[l ^ 1]);
            uint8_t c4 = 0;
            for (uint32_t k = l & ~3u; k < (l & ~3u) + 4; k++)
               c4 = (uint8_t)(c4 + U8(m[k]));
            o[16] = c4;
            int32_t c2a = (int32_t)S8(m[l & ~1u]), c2b = (int32_t)S8(m[l | 1u]);
            o[17] = (uint32_t)(c2a < c2b ? c2a : c2b);
            o[18] = U8(m[l ^ 1]);
            o[19] = S8(m[(l & ~3u) + 1]);
            if (g % 3 != 0)
               o[20] = sx8(dadd);
#undef S8
#undef U8
         }
      }
   }
   return true;
}

/* One kernel (sg_types.comp, or with `eight` sg_types8.comp) against its
 * reference. */
static void
run(struct vkt *t, bool eight)
{
   const char *drv = vkt_driver_name(t->driver);
   const unsigned words = eight ? WORDS8 : WORDS;
   const struct vkt_ssbo_info info = {
      .code = eight ? sg_types8_spv : sg_types_spv,
      .code_size = eight ? sizeof(sg_types8_spv) : sizeof(sg_types_spv),
      .n = 2,
   };
   struct vkt_ssbo_run s;
   VkResult r = vkt_ssbo_kernel(t, &info, &s);
   CHECK(r == VK_SUCCESS, "%s: %s's pipeline: %d", drv, eight ? "sg_types8.comp" : "sg_types.comp",
         r);
   const VkDeviceSize sizes[2] = { sizeof(in), 4 * N * words };
   if (r == VK_SUCCESS)
      r = vkt_ssbo_buffers(t, &s, sizes);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", drv, r);
   if (r == VK_SUCCESS) {
      r = vkt_ssbo_set(t, &s);
      CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      memcpy(s.bufs[0].map, in, sizeof(in));
      memset(s.bufs[1].map, 0, sizes[1]);
      r = vkt_ssbo_dispatch(t, &s, NULL, 0, GROUPS, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: dispatch: %d", drv, r);
   }
   if (r == VK_SUCCESS) {
      static uint32_t want[N * WORDS];
      const uint32_t *got = s.bufs[1].map;
      bool layout_ok = eight ? reference8(got, want) : reference(got, want);
      CHECK(layout_ok, "%s: the subgroup ids and lanes reported are not a partition", drv);
      unsigned bad = 0;
      for (int i = 0; layout_ok && i < N * (int)words; i++)
         if (got[i] != want[i] && bad++ < 8)
            printf("%s: invocation %d word %d: 0x%08x, expected 0x%08x\n", drv, i / words,
                   i % words, got[i], want[i]);
      CHECK(bad == 0, "%s: %u words of %s subgroup results differ", drv, bad,
            eight ? "8-bit" : "16- and 64-bit");
   }
   vkt_ssbo_end(t, &s);
}

int
main(void)
{
   for (int i = 0; i < 2 * N; i++)
      in[i] = rnd();
   in[0] = 0x8000;      /* INT16_MIN and INT64 values of every sign */
   in[3] = 0x7fff;
   in[4] = 0x80000000u;
   in[5] = 0;
   /* Shale at each SIMD width (subgroups of 4, 8 and 16 lanes), then
    * lavapipe. */
   static const char *const widths[4] = { "4", "8", "16", NULL };
   for (int d = 0; d < 4; d++) {
      enum vkt_driver drv = widths[d] ? VKT_SHALE : VKT_LAVAPIPE;
      if (widths[d])
         setenv("SHALE_SIMD_WIDTH", widths[d], 1);
      else
         unsetenv("SHALE_SIMD_WIDTH");
      VkPhysicalDeviceShaderFloat16Int8Features have8 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
      };
      VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES,
         .pNext = &have8,
      };
      VkPhysicalDeviceFeatures2 f2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &have,
      };
      bool has_ext;
      const char *ext = VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(drv == VKT_LAVAPIPE, "shale not available");
         continue;
      }
      bool ok = has_ext && have.shaderSubgroupExtendedTypes && f2.features.shaderInt16 &&
                f2.features.shaderInt64;
      if (drv == VKT_SHALE)
         CHECK(ok, "Shale: extension %u, shaderSubgroupExtendedTypes %u, shaderInt16 %u, "
                   "shaderInt64 %u",
               has_ext, have.shaderSubgroupExtendedTypes, f2.features.shaderInt16,
               f2.features.shaderInt64);
      else if (!ok)
         printf("lavapipe lacks 16/64-bit subgroup operations: reference run skipped\n");
      if (!ok)
         continue;
      VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES,
         .shaderSubgroupExtendedTypes = VK_TRUE,
      };
      /* 8-bit integers too where the device has them (shaderInt8, from
       * VK_KHR_shader_float16_int8): Shale must. */
      const bool int8 = have8.shaderInt8;
      if (drv == VKT_SHALE)
         CHECK(int8, "Shale: shaderInt8 %u", have8.shaderInt8);
      VkPhysicalDeviceShaderFloat16Int8Features want8 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES,
         .shaderInt8 = VK_TRUE,
      };
      if (int8)
         want.pNext = &want8;
      const char *exts[2] = { ext, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME };
      const VkPhysicalDeviceFeatures core = { .shaderInt16 = VK_TRUE, .shaderInt64 = VK_TRUE };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = exts,
                                  .device_extension_count = int8 ? 2 : 1,
                                  .features = &core, .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with shaderSubgroupExtendedTypes", vkt_driver_name(drv));
         continue;
      }
      VkPhysicalDeviceSubgroupProperties sg = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
      };
      VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                         .pNext = &sg };
      vkGetPhysicalDeviceProperties2(t.pdev, &p2);
      const VkSubgroupFeatureFlags ops =
         VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
         VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
         VK_SUBGROUP_FEATURE_CLUSTERED_BIT | VK_SUBGROUP_FEATURE_QUAD_BIT;
      bool all = (sg.supportedOperations & ops) == ops &&
                 (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) && sg.subgroupSize >= 4;
      if (drv == VKT_SHALE)
         CHECK(all, "Shale: subgroup operations 0x%x, stages 0x%x, size %u",
               sg.supportedOperations, sg.supportedStages, sg.subgroupSize);
      else if (!all)
         printf("lavapipe lacks clustered or quad subgroup operations (0x%x): reference run "
                "skipped\n", sg.supportedOperations);
      if (all) {
         printf("%s: subgroup size %u\n", vkt_driver_name(drv), sg.subgroupSize);
         run(&t, false);
         if (int8)
            run(&t, true);
      }
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
