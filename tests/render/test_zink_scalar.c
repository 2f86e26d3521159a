/* VK_EXT_scalar_block_layout (zink lays out every GL block with scalar
 * alignment): a kernel reads and writes storage buffers whose struct array
 * has the scalar layout (vec3s at 4-byte offsets, across 16-byte
 * boundaries, mat3 columns 12 bytes apart, a 120-byte array stride, a
 * double at 104), reads a scalar-layout uniform buffer (with a row-major
 * mat3) and push constants, on Shale and lavapipe. The C side writes and reads every
 * member at the offsets the spec's scalar alignment rules give (computed by
 * hand below) and checks that padding and bytes past the blocks keep their
 * fill. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "zink_scalar_spv.h"

#define N 16          /* elements, two workgroups of 8 */
#define STRIDE 120    /* scalar size of S: 116 rounded up to the double's alignment 8 */

/* Offsets of S's members in the scalar layout. */
enum {
   OFF_A = 0,      /* float */
   OFF_B = 4,      /* vec3: alignment 4 */
   OFF_C = 16,     /* vec2 */
   OFF_D = 24,     /* float */
   OFF_M = 28,     /* mat3, column-major: columns at 28, 40, 52 */
   OFF_ARR = 64,   /* vec3[3]: stride 12 */
   OFF_E = 104,    /* double: alignment 8 (100..104 is padding) */
   OFF_F = 112,    /* uint (116..120 is padding) */
};
/* Misc: vec3 0, float 12, vec3 16, vec2 28, float 36, vec3 40, row-major
 * mat3 52 (rows 12 bytes apart). U: vec3 0, float 12, vec3 16, vec2 28,
 * row-major mat3 36. */
#define MISC_MR 52
#define MISC_SIZE 88
#define MISC_BUF 96
#define U_UR 36
#define U_SIZE 72

static float
getf(const uint8_t *p, uint32_t off)
{
   float f;
   memcpy(&f, p + off, 4);
   return f;
}

static void
setf(uint8_t *p, uint32_t off, float f)
{
   memcpy(p + off, &f, 4);
}

/* Element (column c, row r) of a mat3 at `off`. */
static uint32_t
mat_off(uint32_t off, bool row_major, int c, int r)
{
   return row_major ? off + 12 * r + 4 * c : off + 12 * c + 4 * r;
}

static void
fill_src(uint8_t *src)
{
   for (uint32_t i = 0; i < N; i++) {
      uint8_t *e = src + i * STRIDE;
      float base = 0.25f * i;
      setf(e, OFF_A, base + 1.0f);
      for (int k = 0; k < 3; k++)
         setf(e, OFF_B + 4 * k, base + 2.0f + k);
      for (int k = 0; k < 2; k++)
         setf(e, OFF_C + 4 * k, base - 5.0f - k);
      setf(e, OFF_D, base * 3.0f);
      for (int c = 0; c < 3; c++)
         for (int r = 0; r < 3; r++)
            setf(e, mat_off(OFF_M, false, c, r), base + 10.0f * c + r);
      for (int k = 0; k < 9; k++)
         setf(e, OFF_ARR + 4 * k, base + 100.0f + k);
      double d = 1.5 * i - 7.0;
      memcpy(e + OFF_E, &d, 8);
      uint32_t f = 0x1234500u + i;
      memcpy(e + OFF_F, &f, 4);
   }
}

static unsigned
check_dst(const char *dn, const uint8_t *src, const uint8_t *dst)
{
   unsigned bad = 0;
#define EXPECT(cond, ...)                                                    \
   do {                                                                      \
      if (!(cond) && bad++ < 6) {                                            \
         fprintf(stderr, "%s: element %u: ", dn, i);                         \
         fprintf(stderr, __VA_ARGS__);                                       \
         fputc('\n', stderr);                                                \
      }                                                                      \
   } while (0)
   for (uint32_t i = 0; i < N; i++) {
      const uint8_t *s = src + i * STRIDE, *d = dst + i * STRIDE;
      EXPECT(getf(d, OFF_A) == 2.0f * getf(s, OFF_A), "a %g", getf(d, OFF_A));
      for (int k = 0; k < 3; k++)
         EXPECT(getf(d, OFF_B + 4 * k) == getf(s, OFF_B + 4 * k) + 1.0f + k, "b[%d] %g", k,
                getf(d, OFF_B + 4 * k));
      EXPECT(getf(d, OFF_C) == getf(s, OFF_C + 4) && getf(d, OFF_C + 4) == getf(s, OFF_C),
             "c %g %g", getf(d, OFF_C), getf(d, OFF_C + 4));
      EXPECT(getf(d, OFF_D) == getf(s, OFF_D) + getf(s, OFF_B + 8), "d %g", getf(d, OFF_D));
      for (int c = 0; c < 3; c++)
         for (int r = 0; r < 3; r++) {
            float got = getf(d, mat_off(OFF_M, false, c, r));
            EXPECT(got == getf(s, mat_off(OFF_M, false, r, c)), "m[%d][%d] %g", c, r, got);
         }
      for (int k = 0; k < 3; k++)
         for (int j = 0; j < 3; j++) {
            float got = getf(d, OFF_ARR + 12 * k + 4 * j);
            EXPECT(got == 2.0f * getf(s, OFF_ARR + 12 * (2 - k) + 4 * j), "arr[%d][%d] %g", k, j,
                   got);
         }
      double de, se;
      memcpy(&de, d + OFF_E, 8);
      memcpy(&se, s + OFF_E, 8);
      EXPECT(de == 3.0 * se, "e %g", de);
      uint32_t df, sf;
      memcpy(&df, d + OFF_F, 4);
      memcpy(&sf, s + OFF_F, 4);
      EXPECT(df == (sf ^ 0xffu), "f %#x", df);
      for (uint32_t b = OFF_ARR + 36; b < OFF_E; b++)
         EXPECT(d[b] == 0xcd, "padding byte %u written (%#x)", b, d[b]);
      for (uint32_t b = OFF_F + 4; b < STRIDE; b++)
         EXPECT(d[b] == 0xcd, "padding byte %u written (%#x)", b, d[b]);
   }
#undef EXPECT
   return bad;
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceScalarBlockLayoutFeaturesEXT sf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES_EXT };
   VkPhysicalDeviceFeatures core;
   struct vkt_options o;
   struct vkt t;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_SCALAR_BLOCK_LAYOUT_EXTENSION_NAME,
                             &sf, NULL, &core, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE)
      CHECK(has && sf.scalarBlockLayout, "shale: VK_EXT_scalar_block_layout not offered (%d %u)",
            has, sf.scalarBlockLayout);
   if (!has || !sf.scalarBlockLayout || !core.shaderFloat64) {
      fprintf(stderr, "%s: no scalar block layout or no doubles, not run\n", dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_SCALAR_BLOCK_LAYOUT_EXTENSION_NAME };
   VkPhysicalDeviceScalarBlockLayoutFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES_EXT,
      .scalarBlockLayout = VK_TRUE,
   };
   VkPhysicalDeviceFeatures feats = { .shaderFloat64 = VK_TRUE };
   if (!draw_open_extension(&t, &o, dexts, &enable, &feats))
      return;

   struct vkt_buffer src, dst, ubo, misc;
   CHECK(vkt_buffer_create(&t, N * STRIDE, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &src) == VK_SUCCESS,
         "src");
   CHECK(vkt_buffer_create(&t, N * STRIDE, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &dst) == VK_SUCCESS,
         "dst");
   CHECK(vkt_buffer_create(&t, U_SIZE, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, &ubo) == VK_SUCCESS,
         "ubo");
   CHECK(vkt_buffer_create(&t, MISC_BUF, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &misc) == VK_SUCCESS,
         "misc");
   fill_src(src.map);
   memset(dst.map, 0xcd, N * STRIDE);
   memset(misc.map, 0xcd, MISC_BUF);
   /* U: vec3 u0 at 0, float u1 at 12, vec3 u2 at 16, vec2 u3 at 28. */
   const float uv[9] = { 1.5f, -2.5f, 3.5f, 4.25f, 5.0f, 6.0f, 7.0f, -8.0f, 9.5f };
   memcpy(ubo.map, uv, sizeof(uv));
   for (int col = 0; col < 3; col++)
      for (int row = 0; row < 3; row++)
         setf(ubo.map, mat_off(U_UR, true, col, row), 0.5f * col - 3.0f * row + 1.0f);
   /* P: float p at 0, vec3 q at 4. */
   const float pv[4] = { 0.75f, 11.0f, -12.0f, 13.25f };

   VkDescriptorSetLayoutBinding b[4] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 2, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   struct vkt_kernel_info ki = { .code = zink_scalar_spv, .code_size = sizeof(zink_scalar_spv),
                                 .bindings = { b }, .binding_counts = { 4 }, .push_size = 16 };
   struct vkt_kernel kern;
   VkResult r = vkt_kernel_create(&t, &ki, &kern);
   CHECK(r == VK_SUCCESS, "%s: kernel: %d", dn, r);
   VkDescriptorPoolSize sizes[2] = { { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3 },
                                     { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1 } };
   VkDescriptorPool pool;
   CHECK(vkt_descriptor_pool(&t, 1, sizes, 2, 0, &pool) == VK_SUCCESS, "%s: pool", dn);
   VkDescriptorSet set;
   CHECK(vkt_alloc_sets(&t, pool, kern.set_layouts, 1, &set) == VK_SUCCESS, "%s: set", dn);
   const VkDescriptorType types[4] = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                       VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER,
                                       VK_DESCRIPTOR_TYPE_STORAGE_BUFFER };
   const VkBuffer bufs[4] = { src.buffer, dst.buffer, ubo.buffer, misc.buffer };
   vkt_bind_buffers(&t, set, types, bufs, 4);
   r = vkt_dispatch(&t, &kern, &set, 1, pv, sizeof(pv), N / 8, 1, 1);
   CHECK(r == VK_SUCCESS, "%s: dispatch: %d", dn, r);

   unsigned bad = check_dst(dn, src.map, dst.map);
   CHECK(bad == 0, "%s: %u members of the scalar-layout array differ", dn, bad);
   const uint8_t *m = misc.map;
   float want[13];
   memcpy(want, uv, sizeof(uv));
   want[9] = pv[0];
   memcpy(&want[10], &pv[1], 12);
   for (int k = 0; k < 13; k++)
      CHECK(getf(m, 4 * k) == want[k], "%s: misc word %d: %g, expected %g", dn, k, getf(m, 4 * k),
            want[k]);
   for (int col = 0; col < 3; col++)
      for (int row = 0; row < 3; row++) {
         float u = getf(ubo.map, mat_off(U_UR, true, col, row));
         float w = col == 1 && row == 2 ? getf(ubo.map, mat_off(U_UR, true, 2, 1)) : 2.0f * u;
         float got = getf(m, mat_off(MISC_MR, true, col, row));
         CHECK(got == w, "%s: row-major mr[%d][%d]: %g, expected %g", dn, col, row, got, w);
      }
   for (uint32_t k = MISC_SIZE; k < MISC_BUF; k++)
      CHECK(m[k] == 0xcd, "%s: misc byte %u past the block written (%#x)", dn, k, m[k]);

   vkDestroyDescriptorPool(t.device, pool, NULL);
   vkt_kernel_destroy(&t, &kern);
   vkt_buffer_destroy(&t, &src);
   vkt_buffer_destroy(&t, &dst);
   vkt_buffer_destroy(&t, &ubo);
   vkt_buffer_destroy(&t, &misc);
   vkt_finish(&t);
}

int
main(void)
{
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   return draw_finish();
}
