/* Every storage image format (the Vulkan 1.0 set and the storage image
 * extended formats) loaded and stored by compute and fragment shaders, with
 * the format declared and without it, on Shale and lavapipe, against a C
 * reference.
 *
 * What is held here: every format below reports STORAGE_IMAGE (optimal
 * tiling) and Shale reports shaderStorageImageExtendedFormats,
 * shaderStorageImageWriteWithoutFormat and
 * shaderStorageImageReadWithoutFormat. For each format, in a compute
 * shader and in a fragment shader (sf.glsl), on a 13x5 image: imageLoad of
 * the declared format returns the C decoding of each texel (random bits,
 * no NaN or infinity), imageStore of that value with the declared format
 * writes the C encoding of it, and imageStore through an image declared
 * with format Unknown writes the C encoding of values from a buffer into a
 * view of the format (per class: normalized values in and out of [0, 1] /
 * [-1, 1], floats the format can hold, integers of the channel's range).
 * Texels outside the image keep their contents. Where the driver reports
 * shaderStorageImageReadWithoutFormat (Shale; lavapipe 22.3 does not),
 * the loads also go through an image of format Unknown (and the stores
 * too) with the same results.
 *
 * Shale must match the reference exactly: normalized values as the exact
 * quotient, conversions to normalized, 16-bit and 11/10-bit floats rounded
 * to nearest even, denormals kept. Other drivers may take either neighbour
 * when rounding and flush denormals (as the spec allows): their decoded
 * normalized values within 2 ulp and their rounded codes within 1 of the
 * reference, or 0 for a denormal.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "float_bits.h"
#include "vkt.h"
#include "../render/draw_util.h"

#include "sf_vert_spv.h"
#include "sf_r8_c_spv.h"
#include "sf_r8_f_spv.h"
#include "sf_r8sn_c_spv.h"
#include "sf_r8sn_f_spv.h"
#include "sf_rg8_c_spv.h"
#include "sf_rg8_f_spv.h"
#include "sf_rg8sn_c_spv.h"
#include "sf_rg8sn_f_spv.h"
#include "sf_rgba8_c_spv.h"
#include "sf_rgba8_f_spv.h"
#include "sf_rgba8sn_c_spv.h"
#include "sf_rgba8sn_f_spv.h"
#include "sf_r16_c_spv.h"
#include "sf_r16_f_spv.h"
#include "sf_r16sn_c_spv.h"
#include "sf_r16sn_f_spv.h"
#include "sf_rg16_c_spv.h"
#include "sf_rg16_f_spv.h"
#include "sf_rg16sn_c_spv.h"
#include "sf_rg16sn_f_spv.h"
#include "sf_rgba16_c_spv.h"
#include "sf_rgba16_f_spv.h"
#include "sf_rgba16sn_c_spv.h"
#include "sf_rgba16sn_f_spv.h"
#include "sf_rgb10a2_c_spv.h"
#include "sf_rgb10a2_f_spv.h"
#include "sf_r16f_c_spv.h"
#include "sf_r16f_f_spv.h"
#include "sf_rg16f_c_spv.h"
#include "sf_rg16f_f_spv.h"
#include "sf_rgba16f_c_spv.h"
#include "sf_rgba16f_f_spv.h"
#include "sf_r11g11b10f_c_spv.h"
#include "sf_r11g11b10f_f_spv.h"
#include "sf_r32f_c_spv.h"
#include "sf_r32f_f_spv.h"
#include "sf_rg32f_c_spv.h"
#include "sf_rg32f_f_spv.h"
#include "sf_rgba32f_c_spv.h"
#include "sf_rgba32f_f_spv.h"
#include "sf_r8ui_c_spv.h"
#include "sf_r8ui_f_spv.h"
#include "sf_rg8ui_c_spv.h"
#include "sf_rg8ui_f_spv.h"
#include "sf_rgba8ui_c_spv.h"
#include "sf_rgba8ui_f_spv.h"
#include "sf_r16ui_c_spv.h"
#include "sf_r16ui_f_spv.h"
#include "sf_rg16ui_c_spv.h"
#include "sf_rg16ui_f_spv.h"
#include "sf_rgba16ui_c_spv.h"
#include "sf_rgba16ui_f_spv.h"
#include "sf_rgb10a2ui_c_spv.h"
#include "sf_rgb10a2ui_f_spv.h"
#include "sf_r32ui_c_spv.h"
#include "sf_r32ui_f_spv.h"
#include "sf_rg32ui_c_spv.h"
#include "sf_rg32ui_f_spv.h"
#include "sf_rgba32ui_c_spv.h"
#include "sf_rgba32ui_f_spv.h"
#include "sf_r8i_c_spv.h"
#include "sf_r8i_f_spv.h"
#include "sf_rg8i_c_spv.h"
#include "sf_rg8i_f_spv.h"
#include "sf_rgba8i_c_spv.h"
#include "sf_rgba8i_f_spv.h"
#include "sf_r16i_c_spv.h"
#include "sf_r16i_f_spv.h"
#include "sf_rg16i_c_spv.h"
#include "sf_rg16i_f_spv.h"
#include "sf_rgba16i_c_spv.h"
#include "sf_rgba16i_f_spv.h"
#include "sf_r32i_c_spv.h"
#include "sf_r32i_f_spv.h"
#include "sf_rg32i_c_spv.h"
#include "sf_rg32i_f_spv.h"
#include "sf_rgba32i_c_spv.h"
#include "sf_rgba32i_f_spv.h"
#include "sf_nf_f_c_spv.h"
#include "sf_nf_f_f_spv.h"
#include "sf_nf_u_c_spv.h"
#include "sf_nf_u_f_spv.h"
#include "sf_nf_i_c_spv.h"
#include "sf_nf_i_f_spv.h"

enum kind { UNORM, SNORM, UINT, SINT, SFLOAT, UFLOAT };

struct sfmt {
   VkFormat vk;
   const char *name;
   enum kind kind;
   bool extended;            /* one of shaderStorageImageExtendedFormats' formats */
   unsigned n;               /* channels: component i is channel i */
   unsigned bits[4], shift[4];
   const uint32_t *spv[2];   /* compute, fragment */
   size_t spv_size[2];
};

#define SPV(n) { sf_##n##_c_spv, sf_##n##_f_spv }, { sizeof(sf_##n##_c_spv), sizeof(sf_##n##_f_spv) }
#define F1(vk, n, k, ext, b) { VK_FORMAT_##vk, #n, k, ext, 1, { b }, { 0 }, SPV(n) }
#define F2(vk, n, k, ext, b) { VK_FORMAT_##vk, #n, k, ext, 2, { b, b }, { 0, b }, SPV(n) }
#define F4(vk, n, k, ext, b) \
   { VK_FORMAT_##vk, #n, k, ext, 4, { b, b, b, b }, { 0, b, 2 * b, 3 * b }, SPV(n) }
static const struct sfmt fmts[] = {
   F1(R8_UNORM, r8, UNORM, true, 8),
   F1(R8_SNORM, r8sn, SNORM, true, 8),
   F2(R8G8_UNORM, rg8, UNORM, true, 8),
   F2(R8G8_SNORM, rg8sn, SNORM, true, 8),
   F4(R8G8B8A8_UNORM, rgba8, UNORM, false, 8),
   F4(R8G8B8A8_SNORM, rgba8sn, SNORM, false, 8),
   F1(R16_UNORM, r16, UNORM, true, 16),
   F1(R16_SNORM, r16sn, SNORM, true, 16),
   F2(R16G16_UNORM, rg16, UNORM, true, 16),
   F2(R16G16_SNORM, rg16sn, SNORM, true, 16),
   F4(R16G16B16A16_UNORM, rgba16, UNORM, true, 16),
   F4(R16G16B16A16_SNORM, rgba16sn, SNORM, true, 16),
   { VK_FORMAT_A2B10G10R10_UNORM_PACK32, "rgb10a2", UNORM, true, 4, { 10, 10, 10, 2 },
     { 0, 10, 20, 30 }, SPV(rgb10a2) },
   F1(R16_SFLOAT, r16f, SFLOAT, true, 16),
   F2(R16G16_SFLOAT, rg16f, SFLOAT, true, 16),
   F4(R16G16B16A16_SFLOAT, rgba16f, SFLOAT, false, 16),
   { VK_FORMAT_B10G11R11_UFLOAT_PACK32, "r11g11b10f", UFLOAT, true, 3, { 11, 11, 10 },
     { 0, 11, 22 }, SPV(r11g11b10f) },
   F1(R32_SFLOAT, r32f, SFLOAT, false, 32),
   F2(R32G32_SFLOAT, rg32f, SFLOAT, false, 32),
   F4(R32G32B32A32_SFLOAT, rgba32f, SFLOAT, false, 32),
   F1(R8_UINT, r8ui, UINT, true, 8),
   F2(R8G8_UINT, rg8ui, UINT, true, 8),
   F4(R8G8B8A8_UINT, rgba8ui, UINT, false, 8),
   F1(R16_UINT, r16ui, UINT, true, 16),
   F2(R16G16_UINT, rg16ui, UINT, true, 16),
   F4(R16G16B16A16_UINT, rgba16ui, UINT, false, 16),
   { VK_FORMAT_A2B10G10R10_UINT_PACK32, "rgb10a2ui", UINT, true, 4, { 10, 10, 10, 2 },
     { 0, 10, 20, 30 }, SPV(rgb10a2ui) },
   F1(R32_UINT, r32ui, UINT, false, 32),
   F2(R32G32_UINT, rg32ui, UINT, false, 32),
   F4(R32G32B32A32_UINT, rgba32ui, UINT, false, 32),
   F1(R8_SINT, r8i, SINT, true, 8),
   F2(R8G8_SINT, rg8i, SINT, true, 8),
   F4(R8G8B8A8_SINT, rgba8i, SINT, false, 8),
   F1(R16_SINT, r16i, SINT, true, 16),
   F2(R16G16_SINT, rg16i, SINT, true, 16),
   F4(R16G16B16A16_SINT, rgba16i, SINT, false, 16),
   F1(R32_SINT, r32i, SINT, false, 32),
   F2(R32G32_SINT, rg32i, SINT, false, 32),
   F4(R32G32B32A32_SINT, rgba32i, SINT, false, 32),
};
#define NFMTS (sizeof(fmts) / sizeof(fmts[0]))

/* The format-less load shaders of each class (READ_NF). */
static const uint32_t *const nf_spv[3][2] = { { sf_nf_f_c_spv, sf_nf_f_f_spv },
                                              { sf_nf_u_c_spv, sf_nf_u_f_spv },
                                              { sf_nf_i_c_spv, sf_nf_i_f_spv } };
static const size_t nf_size[3][2] = { { sizeof(sf_nf_f_c_spv), sizeof(sf_nf_f_f_spv) },
                                      { sizeof(sf_nf_u_c_spv), sizeof(sf_nf_u_f_spv) },
                                      { sizeof(sf_nf_i_c_spv), sizeof(sf_nf_i_f_spv) } };

#define W 13
#define H 5
#define ROW 16   /* the shader's index: y * 16 + x */

static unsigned
texel_size(const struct sfmt *f)
{
   return (f->shift[f->n - 1] + f->bits[f->n - 1] + 7) / 8;
}

static bool
is_float_class(const struct sfmt *f)
{
   return f->kind != UINT && f->kind != SINT;
}

static unsigned
class_index(const struct sfmt *f)
{
   return is_float_class(f) ? 0 : f->kind == UINT ? 1 : 2;
}

static uint32_t
get_bits(const uint8_t *t, unsigned shift, unsigned bits)
{
   uint32_t v = 0;
   for (unsigned b = 0; b < bits; b++)
      v |= (uint32_t)((t[(shift + b) / 8] >> ((shift + b) % 8)) & 1) << b;
   return v;
}

static void
put_bits(uint8_t *t, unsigned shift, unsigned bits, uint32_t v)
{
   for (unsigned b = 0; b < bits; b++) {
      uint8_t m = (uint8_t)(1u << ((shift + b) % 8));
      t[(shift + b) / 8] = (uint8_t)((t[(shift + b) / 8] & ~m) | (((v >> b) & 1) ? m : 0));
   }
}

static uint32_t
max_code(unsigned bits)
{
   return bits == 32 ? 0xffffffffu : (1u << bits) - 1;
}

/* A small float (5-bit exponent, m-bit mantissa, sign bit when sgn) to
 * float, from the spec's definition. No infinities or NaNs here. */
static float
small_decode(uint32_t v, unsigned m, bool sgn)
{
   uint32_t e = (v >> m) & 31, mant = v & ((1u << m) - 1);
   double d = e ? ldexp(1.0 + ldexp((double)mant, -(int)m), (int)e - 15)
                : ldexp((double)mant, -14 - (int)m);
   return (float)(sgn && (v >> (m + 5)) & 1 ? -d : d);
}

/* Float to the small float, rounded to nearest even (the value rounded in
 * double to the format's quantum at its exponent, then encoded). Values
 * are finite and below the format's largest finite value; unsigned
 * formats give 0 for negative values. */
static uint32_t
small_encode(float f, unsigned m, bool sgn)
{
   uint32_t sign = 0;
   double d = f;
   if (d < 0) {
      if (!sgn)
         return 0;
      sign = 1u << (m + 5);
      d = -d;
   }
   if (d == 0)
      return sign;
   int e;
   frexp(d, &e);
   int ex = e - 1 < -14 ? -14 : e - 1;
   double r = nearbyint(ldexp(d, (int)m - ex));   /* in units of the quantum */
   double q = ldexp(r, ex - (int)m);
   if (q == 0)
      return sign;
   frexp(q, &e);
   ex = e - 1;
   if (ex < -14)
      return sign | (uint32_t)ldexp(q, 14 + (int)m);
   uint32_t mant = (uint32_t)(ldexp(q, (int)m - ex) - ldexp(1.0, (int)m));
   return sign | (uint32_t)(ex + 15) << m | mant;
}

/* The 32 bits a shader reads for component c (0..3) of texel t. */
static uint32_t
decode(const struct sfmt *f, const uint8_t *t, unsigned c)
{
   if (c >= f->n)
      return c < 3 ? 0 : is_float_class(f) ? fbits(1.0f) : 1;
   const unsigned bits = f->bits[c];
   uint32_t v = get_bits(t, f->shift[c], bits);
   int32_t s = bits == 32 ? (int32_t)v : (int32_t)(v << (32 - bits)) >> (32 - bits);
   switch (f->kind) {
   case UNORM: return fbits((float)v / (float)max_code(bits));
   case SNORM: return fbits(fmaxf((float)s / (float)max_code(bits - 1), -1.0f));
   case UINT: return v;
   case SINT: return (uint32_t)s;
   case SFLOAT: return bits == 32 ? v : fbits(small_decode(v, 10, true));
   default: return fbits(small_decode(v, bits - 5, false));
   }
}

/* The channel code a shader's 32-bit component value is stored as. */
static uint32_t
encode(const struct sfmt *f, unsigned c, uint32_t value)
{
   const unsigned bits = f->bits[c];
   float v = bitsf(value);
   switch (f->kind) {
   case UNORM:
      v = isnan(v) ? 0.0f : fminf(fmaxf(v, 0.0f), 1.0f);
      return (uint32_t)nearbyintf(v * (float)max_code(bits));
   case SNORM:
      v = isnan(v) ? 0.0f : fminf(fmaxf(v, -1.0f), 1.0f);
      return (uint32_t)(int32_t)nearbyintf(v * (float)max_code(bits - 1)) & max_code(bits);
   case UINT:
   case SINT:
      return value & max_code(bits);
   case SFLOAT:
      return bits == 32 ? value : small_encode(v, 10, true);
   default:
      return small_encode(v, bits - 5, false);
   }
}

static uint32_t rng_state;
static uint32_t
rnd(void)
{
   rng_state = rng_state * 1664525u + 1013904223u;
   return rng_state >> 8;
}

static uint32_t
rnd32(void)
{
   return rnd() << 16 ^ rnd();
}

/* A random channel code; floats finite (no all-ones exponent). */
static uint32_t
gen_code(const struct sfmt *f, unsigned c)
{
   const unsigned bits = f->bits[c];
   for (;;) {
      uint32_t v = rnd32() & max_code(bits);
      if (f->kind == SFLOAT && bits == 32 && ((v >> 23) & 0xff) == 0xff)
         continue;
      if (f->kind == SFLOAT && bits == 16 && ((v >> 10) & 31) == 31)
         continue;
      if (f->kind == UFLOAT && ((v >> (bits - 5)) & 31) == 31)
         continue;
      return v;
   }
}

/* A value a shader stores into a component of format f: normalized ones
 * in and around the range (some exact codes), floats the format holds
 * finitely, integers of the channel's range. */
static uint32_t
gen_value(const struct sfmt *f, unsigned c)
{
   if (c >= f->n)
      return rnd32();
   const unsigned bits = f->bits[c];
   uint32_t r = rnd();
   switch (f->kind) {
   case UNORM:
   case SNORM: {
      if (r % 4 == 0) {
         uint32_t m = max_code(f->kind == SNORM ? bits - 1 : bits);
         return fbits((float)(rnd() % (m + 1)) / (float)m * (r & 8 ? -1.0f : 1.0f));
      }
      return fbits((float)((double)rnd() / (1 << 24) * 2.6 - 1.3));
   }
   case SFLOAT:
      if (bits == 32)
         return gen_code(f, c);
      /* Magnitudes 2^-20 .. 2^15 (half denormals included), either sign. */
      return fbits(ldexpf(1.0f + (float)(rnd() % 4096) / 4096.0f, (int)(rnd() % 35) - 20) *
                   (r & 1 ? -1.0f : 1.0f));
   case UFLOAT:
      return fbits(ldexpf(1.0f + (float)(rnd() % 4096) / 4096.0f, (int)(rnd() % 35) - 20) *
                   (r % 8 == 0 ? -1.0f : 1.0f));
   case UINT:
      return rnd32() & max_code(bits);
   default: {
      uint32_t v = rnd32() & max_code(bits);
      return bits == 32 ? v : (uint32_t)((int32_t)(v << (32 - bits)) >> (32 - bits));
   }
   }
}

struct ctx {
   struct vkt t;
   const char *name;
   bool exact;          /* Shale: the reference's exact results */
   bool read_nf;        /* shaderStorageImageReadWithoutFormat */
   VkDescriptorSetLayout sl;
   VkPipelineLayout pl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkShaderModule vs;
};

/* A loaded component: exact, or (other drivers, normalized formats)
 * within 2 ulp. */
static bool
load_ok(const struct ctx *c, const struct sfmt *f, uint32_t got, uint32_t want)
{
   if (got == want)
      return true;
   if (c->exact || (f->kind != UNORM && f->kind != SNORM))
      return false;
   float g = bitsf(got), w = bitsf(want);
   return fabsf(g - w) <= 2.0f * ldexpf(1.0f, -23) * fmaxf(fabsf(w), 0.5f);
}

/* A stored channel code: exact, or (other drivers, rounded kinds) within 1. */
static bool
code_ok(const struct ctx *c, const struct sfmt *f, unsigned ch, uint32_t got, uint32_t want)
{
   if (got == want)
      return true;
   if (c->exact || f->kind == UINT || f->kind == SINT || (f->kind == SFLOAT && f->bits[ch] == 32))
      return false;
   uint32_t m = max_code(f->bits[ch]);
   /* A denormal small float flushed to zero (lavapipe's fragment shaders
    * do for 11- and 10-bit floats). */
   unsigned mant = f->kind == UFLOAT ? f->bits[ch] - 5 : 10;
   bool denormal = (f->kind == UFLOAT || f->kind == SFLOAT) && !((want >> mant) & 31);
   if (denormal && (got & ((1u << (mant + 5)) - 1)) == 0)
      return true;
   return ((got - want) & m) == 1 || ((want - got) & m) == 1;
}

static void
layout_create(struct ctx *c)
{
   struct vkt *t = &c->t;
   VkDescriptorSetLayoutBinding b[5];
   for (uint32_t i = 0; i < 5; i++)
      b[i] = (VkDescriptorSetLayoutBinding) {
         i, i < 4 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
         VK_SHADER_STAGE_COMPUTE_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, NULL };
   CHECK(vkt_set_layout(t, b, 5, &c->sl) == VK_SUCCESS, "%s: set layout", c->name);
   VkPipelineLayoutCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1, .pSetLayouts = &c->sl };
   CHECK(vkCreatePipelineLayout(t->device, &pci, NULL, &c->pl) == VK_SUCCESS, "%s: layout",
         c->name);
   VkDescriptorPoolSize sizes[2] = { { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 4 },
                                     { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
   CHECK(vkt_descriptor_pool(t, 1, sizes, 2, 0, &c->pool) == VK_SUCCESS, "%s: pool", c->name);
   CHECK(vkt_alloc_sets(t, c->pool, &c->sl, 1, &c->set) == VK_SUCCESS, "%s: set", c->name);
   CHECK(vkt_shader_module(t, sf_vert_spv, sizeof(sf_vert_spv), &c->vs) == VK_SUCCESS,
         "%s: vertex module", c->name);
}

static void
layout_destroy(struct ctx *c)
{
   vkDestroyShaderModule(c->t.device, c->vs, NULL);
   vkDestroyDescriptorPool(c->t.device, c->pool, NULL);
   vkDestroyPipelineLayout(c->t.device, c->pl, NULL);
   vkDestroyDescriptorSetLayout(c->t.device, c->sl, NULL);
}

/* Runs the shader (stage 0 compute, 1 fragment) over the images bound to
 * c->set; the images are in GENERAL layout before and after. */
static bool
run_shader(struct ctx *c, const uint32_t *spv, size_t size, int stage)
{
   struct vkt *t = &c->t;
   VkShaderModule m;
   if (vkt_shader_module(t, spv, size, &m) != VK_SUCCESS)
      return false;
   bool ok = false;
   if (stage == 0) {
      VkPipeline p;
      if (vkt_compute_pipeline(t, VK_NULL_HANDLE, m, c->pl, NULL, 0, NULL, &p) == VK_SUCCESS) {
         VkCommandBuffer cb = vkt_begin(t);
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, p);
         vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, c->pl, 0, 1, &c->set, 0,
                                 NULL);
         vkCmdDispatch(cb, 2, 1, 1);
         vkt_compute_barrier(cb);
         ok = vkt_submit_wait(t, cb) == VK_SUCCESS;
         vkDestroyPipeline(t->device, p, NULL);
      }
   } else {
      struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H };
      struct draw_pipeline p = { 0 };
      struct draw_pipeline_info pi = {
         .vs_module = c->vs, .fs_module = m, .layout = c->pl,
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .cull_mode = VK_CULL_MODE_NONE,
         .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE, .polygon_mode = VK_POLYGON_MODE_FILL,
      };
      if (draw_target_create(t, &dt) == VK_SUCCESS &&
          draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS) {
         VkCommandBuffer cb = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
         vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, c->pl, 0, 1, &c->set, 0,
                                 NULL);
         vkCmdDraw(cb, 3, 1, 0, 0);
         ok = draw_end(t, &dt, cb) == VK_SUCCESS;
      }
      draw_pipeline_destroy(t, &p);
      draw_target_destroy(t, &dt);
   }
   vkDestroyShaderModule(t->device, m, NULL);
   return ok;
}

static void
copy_image(VkCommandBuffer cb, VkImage img, VkBuffer buf, bool to_image)
{
   VkBufferImageCopy r = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                           .imageExtent = { W, H, 1 } };
   if (to_image) {
      vkt_image_barrier(cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      vkCmdCopyBufferToImage(cb, buf, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
      vkt_image_barrier(cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        VK_IMAGE_LAYOUT_GENERAL);
   } else {
      vkt_image_barrier(cb, img, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_GENERAL,
                        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      vkCmdCopyImageToBuffer(cb, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
      draw_host_barrier(cb);
   }
}

enum { SRC, DST, DST_NF, NIMG };

/* One format, one stage, one variant (read_nf: the format-less load
 * shader of the class). */
static void
run_case(struct ctx *c, const struct sfmt *f, int stage, bool read_nf)
{
   struct vkt *t = &c->t;
   const char *sn = stage ? "fragment" : "compute";
   const char *vn = read_nf ? " (format-less load)" : "";
   const unsigned ts = texel_size(f);
   const size_t bytes = (size_t)W * H * ts;
   struct vkt_buffer bufs[NIMG], io;
   for (int i = 0; i < NIMG; i++)
      CHECK(vkt_buffer_create(t, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                              VK_BUFFER_USAGE_TRANSFER_DST_BIT, &bufs[i]) == VK_SUCCESS, "buf");
   CHECK(vkt_buffer_create(t, 2 * 128 * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &io) ==
         VK_SUCCESS, "buf");
   rng_state = (uint32_t)f->vk * 7919u + (uint32_t)stage * 31u + read_nf;
   uint8_t *src = bufs[SRC].map;
   memset(src, 0, bytes);
   for (unsigned i = 0; i < W * H; i++)
      for (unsigned ch = 0; ch < f->n; ch++)
         put_bits(src + (size_t)i * ts, f->shift[ch], f->bits[ch], gen_code(f, ch));
   /* Texels nothing should write keep this pattern (the whole image here:
    * every texel is written; the pattern shows which were not). */
   uint8_t *before[NIMG];
   for (int i = DST; i < NIMG; i++) {
      for (size_t k = 0; k < bytes; k++)
         ((uint8_t *)bufs[i].map)[k] = (uint8_t)(k * 37 + 5 + i);
      before[i] = malloc(bytes);
      memcpy(before[i], bufs[i].map, bytes);
   }
   uint32_t *vals = io.map, *loaded = vals + 128 * 4;
   for (unsigned i = 0; i < 128; i++)
      for (unsigned ch = 0; ch < 4; ch++)
         vals[i * 4 + ch] = gen_value(f, ch);
   memset(loaded, 0xcd, 128 * 16);

   struct vkt_image imgs[NIMG];
   VkImageView views[NIMG];
   VkCommandBuffer cb = vkt_begin(t);
   for (int i = 0; i < NIMG; i++) {
      VkImageCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
         .format = f->vk, .extent = { W, H, 1 }, .mipLevels = 1, .arrayLayers = 1,
         .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      };
      VkResult r = vkt_image_create(t, &ci, &imgs[i]);
      CHECK(r == VK_SUCCESS, "%s: %s image: %d", c->name, f->name, r);
      VkImageViewCreateInfo vi = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = imgs[i].image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = f->vk,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
      };
      CHECK(vkCreateImageView(t->device, &vi, NULL, &views[i]) == VK_SUCCESS, "view");
      copy_image(cb, imgs[i].image, bufs[i].buffer, true);
   }
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: upload", c->name);

   /* Bindings: 0 src, 1 dst, 2 dst_nf, 3 src_nf (src's view), 4 io. */
   const VkImageView bound[4] = { views[SRC], views[DST], views[DST_NF], views[SRC] };
   VkDescriptorImageInfo ii[4];
   VkWriteDescriptorSet w[5];
   for (uint32_t i = 0; i < 4; i++) {
      ii[i] = (VkDescriptorImageInfo) { VK_NULL_HANDLE, bound[i], VK_IMAGE_LAYOUT_GENERAL };
      w[i] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                      .dstSet = c->set, .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                      .pImageInfo = &ii[i] };
   }
   VkDescriptorBufferInfo bi = { io.buffer, 0, VK_WHOLE_SIZE };
   w[4] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                   .dstSet = c->set, .dstBinding = 4, .descriptorCount = 1,
                                   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                   .pBufferInfo = &bi };
   vkUpdateDescriptorSets(t->device, 5, w, 0, NULL);

   const unsigned ci = class_index(f);
   bool ran = read_nf ? run_shader(c, nf_spv[ci][stage], nf_size[ci][stage], stage)
                      : run_shader(c, f->spv[stage], f->spv_size[stage], stage);
   CHECK(ran, "%s: %s %s%s: pipeline and run", c->name, f->name, sn, vn);
   cb = vkt_begin(t);
   for (int i = DST; i < NIMG; i++)
      copy_image(cb, imgs[i].image, bufs[i].buffer, false);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: readback", c->name);

   unsigned bad_load = 0, bad_dst = 0, bad_nf = 0;
   for (unsigned y = 0; y < H && ran; y++)
      for (unsigned x = 0; x < W; x++) {
         const unsigned i = y * ROW + x;
         const uint8_t *s = src + ((size_t)y * W + (W - 1 - x)) * ts;
         for (unsigned ch = 0; ch < 4; ch++) {
            uint32_t want = decode(f, s, ch);
            if (!load_ok(c, f, loaded[i * 4 + ch], want) && bad_load++ < 4)
               fprintf(stderr, "%s: %s %s%s: loaded (%u,%u).%u = %#x, want %#x\n", c->name,
                       f->name, sn, vn, x, y, ch, loaded[i * 4 + ch], want);
         }
         const size_t off = ((size_t)y * W + x) * ts;
         for (unsigned ch = 0; ch < f->n; ch++) {
            /* The loaded value stored again (to dst, or dst_nf for read_nf);
             * the buffer's values to dst_nf. */
            uint32_t copy = encode(f, ch, decode(f, s, ch));
            uint32_t nf = read_nf ? copy : encode(f, ch, vals[i * 4 + ch]);
            uint32_t got_nf = get_bits((uint8_t *)bufs[DST_NF].map + off, f->shift[ch], f->bits[ch]);
            if (!code_ok(c, f, ch, got_nf, nf) && bad_nf++ < 4)
               fprintf(stderr, "%s: %s %s%s: format-less store (%u,%u).%u = %#x, want %#x "
                       "(from %#x)\n", c->name, f->name, sn, vn, x, y, ch, got_nf, nf,
                       read_nf ? decode(f, s, ch) : vals[i * 4 + ch]);
            if (read_nf)
               continue;
            uint32_t got = get_bits((uint8_t *)bufs[DST].map + off, f->shift[ch], f->bits[ch]);
            if (!code_ok(c, f, ch, got, copy) && bad_dst++ < 4)
               fprintf(stderr, "%s: %s %s: store (%u,%u).%u = %#x, want %#x\n", c->name, f->name,
                       sn, x, y, ch, got, copy);
         }
      }
   CHECK(bad_load == 0, "%s: %s %s%s: %u loaded components differ from the reference", c->name,
         f->name, sn, vn, bad_load);
   CHECK(bad_nf == 0, "%s: %s %s%s: %u texels stored without a format differ from the reference",
         c->name, f->name, sn, vn, bad_nf);
   if (read_nf)
      CHECK(!memcmp(bufs[DST].map, before[DST], bytes), "%s: %s %s%s: dst written", c->name,
            f->name, sn, vn);
   else
      CHECK(bad_dst == 0, "%s: %s %s: %u stored texels differ from the reference", c->name,
            f->name, sn, bad_dst);

   for (int i = 0; i < NIMG; i++) {
      vkDestroyImageView(t->device, views[i], NULL);
      vkt_image_destroy(t, &imgs[i]);
      vkt_buffer_destroy(t, &bufs[i]);
      if (i != SRC)
         free(before[i]);
   }
   vkt_buffer_destroy(t, &io);
}

/* The C reference's conversions on values whose codes are known. */
static void
check_reference(void)
{
   const struct sfmt h = F1(R16_SFLOAT, r16f, SFLOAT, true, 16);
   const struct sfmt u = { VK_FORMAT_B10G11R11_UFLOAT_PACK32, "r11g11b10f", UFLOAT, true, 3,
                           { 11, 11, 10 }, { 0, 11, 22 }, SPV(r11g11b10f) };
   CHECK(encode(&h, 0, fbits(1.0f)) == 0x3c00 && encode(&h, 0, fbits(-2.0f)) == 0xc000 &&
         encode(&h, 0, fbits(65504.0f)) == 0x7bff && encode(&h, 0, fbits(ldexpf(1, -24))) == 1 &&
         encode(&h, 0, fbits(1.0f + ldexpf(1, -11))) == 0x3c00 &&
         encode(&h, 0, fbits(1.0f + 3 * ldexpf(1, -11))) == 0x3c02,
         "reference: half encoding");
   CHECK(encode(&u, 0, fbits(1.0f)) == 0x3c0 && encode(&u, 2, fbits(1.0f)) == 0x1e0 &&
         encode(&u, 0, fbits(-1.0f)) == 0 && encode(&u, 0, fbits(65024.0f)) == 0x7bf &&
         encode(&u, 0, fbits(ldexpf(1, -20))) == 1, "reference: 11-bit float encoding");
   uint8_t t[4] = { 0 };
   put_bits(t, 0, 11, 0x3c0);
   CHECK(decode(&u, t, 0) == fbits(1.0f) && decode(&u, t, 3) == fbits(1.0f),
         "reference: 11-bit float decoding");
}

static void
run_driver(enum vkt_driver d)
{
   struct ctx c = { .name = vkt_driver_name(d), .exact = d == VKT_SHALE };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
   if (!vkt_query_features(d, &f2, NULL, NULL)) {
      CHECK(d != VKT_SHALE, "Shale device missing");
      printf("%s: not present, its comparison skipped\n", c.name);
      return;
   }
   const VkPhysicalDeviceFeatures *pf = &f2.features;
   if (d == VKT_SHALE)
      CHECK(pf->shaderStorageImageExtendedFormats && pf->shaderStorageImageWriteWithoutFormat &&
            pf->shaderStorageImageReadWithoutFormat && pf->fragmentStoresAndAtomics,
            "shale: features extended formats %u, write without format %u, read without "
            "format %u, fragment stores %u", pf->shaderStorageImageExtendedFormats,
            pf->shaderStorageImageWriteWithoutFormat, pf->shaderStorageImageReadWithoutFormat,
            pf->fragmentStoresAndAtomics);
   if (!pf->shaderStorageImageExtendedFormats || !pf->shaderStorageImageWriteWithoutFormat ||
       !pf->fragmentStoresAndAtomics) {
      printf("%s: lacks a feature the shaders need, not run\n", c.name);
      return;
   }
   c.read_nf = pf->shaderStorageImageReadWithoutFormat;
   VkPhysicalDeviceFeatures enable = {
      .shaderStorageImageExtendedFormats = VK_TRUE,
      .shaderStorageImageWriteWithoutFormat = VK_TRUE,
      .shaderStorageImageReadWithoutFormat = c.read_nf,
      .fragmentStoresAndAtomics = VK_TRUE,
   };
   struct vkt_options o = { .driver = d, .features = &enable };
   if (!vkt_init(&c.t, &o)) {
      CHECK(false, "%s: device with the storage image features", c.name);
      return;
   }
   layout_create(&c);
   unsigned missing = 0;
   for (unsigned i = 0; i < NFMTS; i++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(c.t.pdev, fmts[i].vk, &fp);
      if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
         fprintf(stderr, "%s: %s (%s format) without STORAGE_IMAGE\n", c.name, fmts[i].name,
                 fmts[i].extended ? "extended" : "required");
         missing++;
         continue;
      }
      for (int stage = 0; stage < 2; stage++) {
         run_case(&c, &fmts[i], stage, false);
         if (c.read_nf)
            run_case(&c, &fmts[i], stage, true);
      }
   }
   CHECK(missing == 0, "%s: %u storage formats without STORAGE_IMAGE", c.name, missing);
   if (!c.read_nf)
      printf("%s: no shaderStorageImageReadWithoutFormat, format-less loads not run\n", c.name);
   layout_destroy(&c);
   vkt_finish(&c.t);
}

int
main(void)
{
   check_reference();
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
