/* Image transfer commands through the loader: buffer <-> image copies, image
 * copies, blits and clears, each scenario checked against a CPU reference
 * written here (byte copies; the spec's blit sampling; the spec's format
 * conversions) and against lavapipe running the same commands.
 *
 * Tolerances (only where the spec leaves a choice), per scenario:
 *   - conversions to UNORM/SNORM/sRGB (colour or depth) from a float value
 *     (blits between formats, linear filtering, clears): 1 unit of the
 *     destination (the spec's float -> normalized conversion may return
 *     either of the two nearest values);
 *   - float results of linear filtering: 64 ulps of max(|value|, 1) for
 *     float32 (filtering precision is implementation-defined); float32 ->
 *     half conversion: 1 ulp;
 *   - everything else (copies, integer and same-format nearest blits,
 *     stencil, D32 depth, integer and float clears): exact.
 * Against lavapipe, additionally: linear filtering may quantize its weights
 * to subTexelPrecisionBits (lavapipe: 8), an error of up to the filtered
 * texels' spread times 2^-bits; lavapipe's sRGB encoding is approximate (one
 * more unit). Single-aspect copies and blits of combined depth/stencil
 * formats are not compared with lavapipe, which (Mesa 22.3) overwrites the
 * other aspect. The D24 depth word's top byte in buffers is undefined after
 * an image -> buffer copy and is not compared. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ref_format.h"
#include "vkt.h"

#define LSRC VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
#define LDST VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL

/* ------------------------------------------------------------------------ */
/* Reference formats: the spec's definitions of the formats the test uses.  */

enum tkind { T_UNORM, T_SNORM, T_SRGB, T_UINT, T_SINT, T_SFLOAT };

struct tfmt {
   VkFormat vk;
   enum tkind kind;
   uint8_t nc;        /* components stored */
   uint8_t bits;      /* bits per component: 8, 16 or 32 */
   uint8_t comp[4];   /* which of R, G, B, A (0..3) position i stores */
};

static const struct tfmt tfmts[] = {
   { VK_FORMAT_R8_UNORM, T_UNORM, 1, 8, { 0 } },
   { VK_FORMAT_R8G8B8_UNORM, T_UNORM, 3, 8, { 0, 1, 2 } },
   { VK_FORMAT_R8G8B8A8_UNORM, T_UNORM, 4, 8, { 0, 1, 2, 3 } },
   { VK_FORMAT_R8G8B8A8_SRGB, T_SRGB, 4, 8, { 0, 1, 2, 3 } },
   { VK_FORMAT_R8G8B8A8_SNORM, T_SNORM, 4, 8, { 0, 1, 2, 3 } },
   { VK_FORMAT_R8G8B8A8_UINT, T_UINT, 4, 8, { 0, 1, 2, 3 } },
   { VK_FORMAT_R8G8B8A8_SINT, T_SINT, 4, 8, { 0, 1, 2, 3 } },
   { VK_FORMAT_B8G8R8A8_UNORM, T_UNORM, 4, 8, { 2, 1, 0, 3 } },
   { VK_FORMAT_B8G8R8A8_SRGB, T_SRGB, 4, 8, { 2, 1, 0, 3 } },
   { VK_FORMAT_R16G16_UINT, T_UINT, 2, 16, { 0, 1 } },
   { VK_FORMAT_R16G16B16A16_UNORM, T_UNORM, 4, 16, { 0, 1, 2, 3 } },
   { VK_FORMAT_R16G16B16A16_UINT, T_UINT, 4, 16, { 0, 1, 2, 3 } },
   { VK_FORMAT_R16G16B16A16_SINT, T_SINT, 4, 16, { 0, 1, 2, 3 } },
   { VK_FORMAT_R16G16B16A16_SFLOAT, T_SFLOAT, 4, 16, { 0, 1, 2, 3 } },
   { VK_FORMAT_R32_UINT, T_UINT, 1, 32, { 0 } },
   { VK_FORMAT_R32_SINT, T_SINT, 1, 32, { 0 } },
   { VK_FORMAT_R32_SFLOAT, T_SFLOAT, 1, 32, { 0 } },
   { VK_FORMAT_R32G32B32A32_UINT, T_UINT, 4, 32, { 0, 1, 2, 3 } },
   { VK_FORMAT_R32G32B32A32_SINT, T_SINT, 4, 32, { 0, 1, 2, 3 } },
   { VK_FORMAT_R32G32B32A32_SFLOAT, T_SFLOAT, 4, 32, { 0, 1, 2, 3 } },
};

static const struct tfmt *
tfmt(VkFormat f)
{
   for (unsigned i = 0; i < sizeof(tfmts) / sizeof(tfmts[0]); i++)
      if (tfmts[i].vk == f)
         return &tfmts[i];
   return NULL;
}

static VkImageAspectFlags
format_aspects(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D32_SFLOAT:
      return VK_IMAGE_ASPECT_DEPTH_BIT;
   case VK_FORMAT_S8_UINT:
      return VK_IMAGE_ASPECT_STENCIL_BIT;
   case VK_FORMAT_D16_UNORM_S8_UINT:
   case VK_FORMAT_D24_UNORM_S8_UINT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
   default:
      return VK_IMAGE_ASPECT_COLOR_BIT;
   }
}

static bool
is_d24(VkFormat f)
{
   return f == VK_FORMAT_X8_D24_UNORM_PACK32 || f == VK_FORMAT_D24_UNORM_S8_UINT;
}

/* The numeric class a colour format reads and writes as. */
enum tclass { C_FLOAT, C_UINT, C_SINT };

static enum tclass
color_class(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_R8_UINT: case VK_FORMAT_R8G8_UINT: case VK_FORMAT_R8G8B8_UINT:
   case VK_FORMAT_B8G8R8_UINT: case VK_FORMAT_R8G8B8A8_UINT: case VK_FORMAT_B8G8R8A8_UINT:
   case VK_FORMAT_A8B8G8R8_UINT_PACK32: case VK_FORMAT_A2R10G10B10_UINT_PACK32:
   case VK_FORMAT_A2B10G10R10_UINT_PACK32: case VK_FORMAT_R16_UINT: case VK_FORMAT_R16G16_UINT:
   case VK_FORMAT_R16G16B16_UINT: case VK_FORMAT_R16G16B16A16_UINT: case VK_FORMAT_R32_UINT:
   case VK_FORMAT_R32G32_UINT: case VK_FORMAT_R32G32B32_UINT: case VK_FORMAT_R32G32B32A32_UINT:
   case VK_FORMAT_R64_UINT: case VK_FORMAT_R64G64_UINT: case VK_FORMAT_R64G64B64_UINT:
   case VK_FORMAT_R64G64B64A64_UINT:
      return C_UINT;
   case VK_FORMAT_R8_SINT: case VK_FORMAT_R8G8_SINT: case VK_FORMAT_R8G8B8_SINT:
   case VK_FORMAT_B8G8R8_SINT: case VK_FORMAT_R8G8B8A8_SINT: case VK_FORMAT_B8G8R8A8_SINT:
   case VK_FORMAT_A8B8G8R8_SINT_PACK32: case VK_FORMAT_A2R10G10B10_SINT_PACK32:
   case VK_FORMAT_A2B10G10R10_SINT_PACK32: case VK_FORMAT_R16_SINT: case VK_FORMAT_R16G16_SINT:
   case VK_FORMAT_R16G16B16_SINT: case VK_FORMAT_R16G16B16A16_SINT: case VK_FORMAT_R32_SINT:
   case VK_FORMAT_R32G32_SINT: case VK_FORMAT_R32G32B32_SINT: case VK_FORMAT_R32G32B32A32_SINT:
   case VK_FORMAT_R64_SINT: case VK_FORMAT_R64G64_SINT: case VK_FORMAT_R64G64B64_SINT:
   case VK_FORMAT_R64G64B64A64_SINT:
      return C_SINT;
   default:
      return C_FLOAT;
   }
}

/* Bytes per texel of one aspect in buffer memory (the spec's rules). */
static uint32_t
aspect_texel_size(VkFormat f, VkImageAspectFlags aspect)
{
   if (aspect == VK_IMAGE_ASPECT_STENCIL_BIT)
      return 1;
   if (aspect == VK_IMAGE_ASPECT_DEPTH_BIT)
      return f == VK_FORMAT_D16_UNORM || f == VK_FORMAT_D16_UNORM_S8_UINT ? 2 : 4;
   return ref_color_texel_size(f);
}

static uint16_t
float_to_half(float f)
{
   uint32_t x;
   memcpy(&x, &f, 4);
   const uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
   if (exp == 0xff)
      return (uint16_t)(sign | 0x7c00 | (man ? 0x200 : 0));
   const int e = (int)exp - 127 + 15;
   if (e >= 31)
      return (uint16_t)(sign | 0x7c00);
   if (e <= 0) {
      if (e < -10)
         return (uint16_t)sign;
      const uint32_t m = man | 0x800000;
      const int shift = 14 - e;
      uint32_t h = m >> shift;
      const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
      if (rem > half || (rem == half && (h & 1)))
         h++;
      return (uint16_t)(sign | h);
   }
   uint32_t h = ((uint32_t)e << 10) | (man >> 13);
   const uint32_t rem = man & 0x1fff;
   if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
      h++;
   return (uint16_t)(sign | h);
}

static double
half_to_double(uint16_t h)
{
   const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
   double v;
   if (e == 0)
      v = ldexp(m, -24);
   else if (e == 31)
      v = m ? NAN : INFINITY;
   else
      v = ldexp(m + 1024, e - 25);
   return (h & 0x8000) ? -v : v;
}

static double
srgb_to_linear(double c)
{
   return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double
linear_to_srgb(double l)
{
   if (!(l > 0.0))
      return 0.0;
   if (l >= 1.0)
      return 1.0;
   return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

static uint64_t
get_raw(const struct tfmt *t, const uint8_t *texel, unsigned pos)
{
   uint64_t v = 0;
   memcpy(&v, texel + pos * (t->bits / 8), t->bits / 8);
   return v;
}

static void
put_raw(const struct tfmt *t, uint8_t *texel, unsigned pos, uint64_t v)
{
   memcpy(texel + pos * (t->bits / 8), &v, t->bits / 8);
}

static int64_t
sign_extend(uint64_t v, unsigned bits)
{
   if (bits == 64)
      return (int64_t)v;
   const uint64_t m = 1ull << (bits - 1);
   return (int64_t)((v ^ m) - m);
}

/* Texel -> RGBA (missing components 0, 0, 0, 1). Float class in double
 * (sRGB decoded to linear), integers as integers. */
static void
decode_f(const struct tfmt *t, const uint8_t *texel, double out[4])
{
   out[0] = out[1] = out[2] = 0.0;
   out[3] = 1.0;
   const double max_u = (double)((1ull << t->bits) - 1);
   const double max_s = (double)((1ull << (t->bits - 1)) - 1);
   for (unsigned p = 0; p < t->nc; p++) {
      const uint64_t raw = get_raw(t, texel, p);
      const unsigned c = t->comp[p];
      double v;
      switch (t->kind) {
      case T_UNORM:
         v = raw / max_u;
         break;
      case T_SRGB:
         v = raw / max_u;
         if (c != 3)
            v = srgb_to_linear(v);
         break;
      case T_SNORM:
         v = sign_extend(raw, t->bits) / max_s;
         if (v < -1.0)
            v = -1.0;
         break;
      case T_SFLOAT:
         if (t->bits == 16) {
            v = half_to_double((uint16_t)raw);
         } else {
            float f;
            uint32_t r32 = (uint32_t)raw;
            memcpy(&f, &r32, 4);
            v = f;
         }
         break;
      default:
         v = 0.0;
         break;
      }
      out[c] = v;
   }
}

static void
decode_i(const struct tfmt *t, const uint8_t *texel, int64_t out[4])
{
   out[0] = out[1] = out[2] = 0;
   out[3] = 1;
   for (unsigned p = 0; p < t->nc; p++) {
      const uint64_t raw = get_raw(t, texel, p);
      out[t->comp[p]] = t->kind == T_SINT ? sign_extend(raw, t->bits) : (int64_t)raw;
   }
}

static uint64_t
round_clamp_u(double v, double max)
{
   if (!(v > 0.0))
      return 0;
   v = v * max;
   if (v >= max)
      return (uint64_t)max;
   return (uint64_t)floor(v + 0.5);
}

/* RGBA -> texel: normalized values clamped and rounded to nearest, sRGB
 * encoded (RGB only), floats rounded to nearest even. */
static void
encode_f(const struct tfmt *t, const double in[4], uint8_t *texel)
{
   const double max_u = (double)((1ull << t->bits) - 1);
   const double max_s = (double)((1ull << (t->bits - 1)) - 1);
   for (unsigned p = 0; p < t->nc; p++) {
      const unsigned c = t->comp[p];
      const double v = in[c];
      uint64_t raw = 0;
      switch (t->kind) {
      case T_UNORM:
         raw = round_clamp_u(v, max_u);
         break;
      case T_SRGB:
         raw = round_clamp_u(c == 3 ? v : linear_to_srgb(v), max_u);
         break;
      case T_SNORM: {
         double s = v != v ? 0.0 : (v < -1.0 ? -1.0 : (v > 1.0 ? 1.0 : v));
         s *= max_s;
         raw = (uint64_t)(int64_t)(s < 0 ? ceil(s - 0.5) : floor(s + 0.5));
         break;
      }
      case T_SFLOAT:
         if (t->bits == 16) {
            raw = float_to_half((float)v);
         } else {
            const float f = (float)v;
            uint32_t r32;
            memcpy(&r32, &f, 4);
            raw = r32;
         }
         break;
      default:
         break;
      }
      put_raw(t, texel, p, raw);
   }
}

/* Integers: blits clamp to the destination's range (the test keeps values
 * in range where the spec does not define it); clears cast (truncate). */
static void
encode_i(const struct tfmt *t, const int64_t in[4], uint8_t *texel)
{
   for (unsigned p = 0; p < t->nc; p++) {
      int64_t v = in[t->comp[p]];
      if (t->bits < 64) {
         const int64_t lo = t->kind == T_SINT ? -(1ll << (t->bits - 1)) : 0;
         const int64_t hi = t->kind == T_SINT ? (1ll << (t->bits - 1)) - 1 : (1ll << t->bits) - 1;
         v = v < lo ? lo : (v > hi ? hi : v);
      }
      put_raw(t, texel, p, (uint64_t)v);
   }
}

/* ------------------------------------------------------------------------ */
/* Models: the expected content of one aspect of an image, laid out as a    */
/* tight buffer copy of each whole level (layers, then slices, rows, texels) */

struct imgdesc {
   VkImageType type;
   VkFormat format;
   VkExtent3D extent;
   uint32_t mips, layers;
};

#define MAX_LEVELS 8

struct model {
   struct imgdesc d;
   VkImageAspectFlags aspect;   /* one aspect */
   uint32_t ts;
   size_t level_off[MAX_LEVELS];
   size_t size;
   uint8_t *data;
};

static VkExtent3D
lvl_extent(const struct imgdesc *d, uint32_t level)
{
   VkExtent3D e = { d->extent.width >> level, d->extent.height >> level, d->extent.depth >> level };
   e.width = e.width ? e.width : 1;
   e.height = e.height ? e.height : 1;
   e.depth = e.depth ? e.depth : 1;
   return e;
}

static size_t
align_up(size_t v, size_t a)
{
   return (v + a - 1) / a * a;
}

static void
model_init(struct model *m, const struct imgdesc *d, VkImageAspectFlags aspect)
{
   memset(m, 0, sizeof(*m));
   m->d = *d;
   m->aspect = aspect;
   m->ts = aspect_texel_size(d->format, aspect);
   size_t off = 0;
   for (uint32_t l = 0; l < d->mips; l++) {
      const VkExtent3D e = lvl_extent(d, l);
      m->level_off[l] = off;
      off = align_up(off + (size_t)e.width * e.height * e.depth * d->layers * m->ts, 4 * m->ts);
   }
   m->size = off;
   m->data = calloc(1, off);
}

static void
model_free(struct model *m)
{
   free(m->data);
   m->data = NULL;
}

static uint8_t *
mtex(const struct model *m, uint32_t level, uint32_t layer, int32_t x, int32_t y, int32_t z)
{
   const VkExtent3D e = lvl_extent(&m->d, level);
   if (level >= m->d.mips || layer >= m->d.layers || x < 0 || y < 0 || z < 0 ||
       (uint32_t)x >= e.width || (uint32_t)y >= e.height || (uint32_t)z >= e.depth) {
      CHECK(0, "test bug: texel (%d,%d,%d) level %u layer %u outside the image", x, y, z, level,
            layer);
      abort();
   }
   return m->data + m->level_off[level] +
          ((((size_t)layer * e.depth + (uint32_t)z) * e.height + (uint32_t)y) * e.width +
           (uint32_t)x) * m->ts;
}

static uint32_t
hash32(uint32_t x)
{
   x ^= x >> 16;
   x *= 0x7feb352du;
   x ^= x >> 15;
   x *= 0x846ca68bu;
   x ^= x >> 16;
   return x;
}

/* A valid texel of `format`'s `aspect` from a seed: any bits for normalized
 * and integer formats, floats in [-2, 2], depth in [0, 1]. */
static void
gen_texel(VkFormat format, VkImageAspectFlags aspect, uint32_t seed, uint8_t *out)
{
   const uint32_t ts = aspect_texel_size(format, aspect);
   if (aspect == VK_IMAGE_ASPECT_DEPTH_BIT) {
      const uint32_t h = hash32(seed);
      if (format == VK_FORMAT_D32_SFLOAT || format == VK_FORMAT_D32_SFLOAT_S8_UINT) {
         const float f = (float)(h & 0xffffff) / (float)(1 << 24);
         memcpy(out, &f, 4);
      } else {
         memcpy(out, &h, ts);
         if (ts == 4)
            out[3] = 0;   /* D24: the model holds the 24-bit value */
      }
      return;
   }
   const struct tfmt *t = aspect == VK_IMAGE_ASPECT_COLOR_BIT ? tfmt(format) : NULL;
   if (t && t->kind == T_SFLOAT) {
      double v[4];
      for (int c = 0; c < 4; c++)
         v[c] = (double)(hash32(seed * 4 + (uint32_t)c) % 4001) / 1000.0 - 2.0;
      encode_f(t, v, out);
      return;
   }
   for (uint32_t i = 0; i < ts; i++)
      out[i] = (uint8_t)hash32(seed * 16 + i);
}

/* Components 0 or 1 only (exact in every format, for blits into them). */
static void
model_fill01(struct model *m, uint32_t seed)
{
   const struct tfmt *t = tfmt(m->d.format);
   for (size_t i = 0; i * m->ts < m->size; i++) {
      int64_t iv[4];
      double fv[4];
      for (int c = 0; c < 4; c++) {
         iv[c] = hash32(seed * 4 + (uint32_t)(i * 4 + c)) & 1;
         fv[c] = (double)iv[c];
      }
      if (t->kind == T_UINT || t->kind == T_SINT)
         encode_i(t, iv, m->data + i * m->ts);
      else
         encode_f(t, fv, m->data + i * m->ts);
   }
}

static void
model_fill(struct model *m, uint32_t seed)
{
   for (size_t i = 0; i * m->ts < m->size; i++)
      gen_texel(m->d.format, m->aspect, seed * 1000003u + (uint32_t)i, m->data + i * m->ts);
}

/* ------------------------------------------------------------------------ */
/* Scenarios: images, buffers and a list of operations, run on the CPU      */
/* reference and on each device.                                            */

enum op_kind { OP_B2I, OP_I2B, OP_COPY, OP_BLIT, OP_CLEAR_COLOR, OP_CLEAR_DS };

struct op {
   enum op_kind kind;
   int src, dst;              /* image or buffer indices (by kind) */
   uint32_t n;
   const void *regions;       /* VkBufferImageCopy, VkImageCopy, VkImageBlit or
                               * VkImageSubresourceRange, by kind */
   VkFilter filter;
   VkClearColorValue color;
   VkClearDepthStencilValue ds;
};

struct state;

struct bufdesc {
   size_t size;
   VkFormat fill_format;      /* UNDEFINED: filled with 0xCD (read-back target) */
   VkImageAspectFlags fill_aspect;
};

#define MAX_IMAGES 4
#define MAX_BUFS 3
#define MAX_OPS 6

struct scenario {
   const char *name;
   unsigned nimg, nbuf, nop;
   struct imgdesc img[MAX_IMAGES];
   struct bufdesc buf[MAX_BUFS];
   struct op ops[MAX_OPS];
   int tol_norm;              /* units of a UNORM/SNORM/sRGB destination */
   int tol_float;             /* ulps of max(|value|, 1) of a float destination */
   /* Linear blits: the largest difference between the texels one
    * destination texel filters, in units of a normalized destination and
    * in value for float destinations (widens the lavapipe comparison). */
   double lin_norm_spread, lin_float_spread;
   int lvp_norm;              /* extra units accepted from lavapipe (its approximate sRGB
                               * encoding; UNORM depth blits through float) */
   const char *lvp_skip;      /* why lavapipe is not compared, if it is not */
   double lvp_float_abs;      /* extra absolute difference accepted from lavapipe */
   uint8_t fill01;            /* images (bit i) filled with components 0 and 1 */
   /* A CPU reference of its own: fills the expected content of the images
    * in ref_images (bit i); the others are compared with lavapipe only. */
   void (*ref_fn)(const struct scenario *sc, struct state *ref);
   uint8_t ref_images;
};

#define REGIONS(type, ...)                                                   \
   .n = sizeof((type[]){ __VA_ARGS__ }) / sizeof(type), .regions = (type[]) { __VA_ARGS__ }

#define COLOR VK_IMAGE_ASPECT_COLOR_BIT
#define DEPTH VK_IMAGE_ASPECT_DEPTH_BIT
#define STENCIL VK_IMAGE_ASPECT_STENCIL_BIT

/* The state of a scenario's images (one model per aspect) and buffers. */
struct state {
   struct model img[MAX_IMAGES][2];
   unsigned naspects[MAX_IMAGES];
   uint8_t *buf[MAX_BUFS];
   uint8_t *buf_care[MAX_BUFS];   /* 0: byte not compared (undefined) */
};

static struct model *
state_model(struct state *s, int image, VkImageAspectFlags aspect)
{
   for (unsigned a = 0; a < s->naspects[image]; a++)
      if (s->img[image][a].aspect == aspect)
         return &s->img[image][a];
   CHECK(0, "test bug: image %d has no aspect %#x", image, aspect);
   abort();
}

static void
state_init(struct state *s, const struct scenario *sc)
{
   memset(s, 0, sizeof(*s));
   for (unsigned i = 0; i < sc->nimg; i++) {
      const VkImageAspectFlags all = format_aspects(sc->img[i].format);
      for (VkImageAspectFlags a = 1; a <= STENCIL; a <<= 1) {
         if (!(all & a))
            continue;
         struct model *m = &s->img[i][s->naspects[i]++];
         model_init(m, &sc->img[i], a);
         if (sc->fill01 & (1u << i))
            model_fill01(m, i * 7 + a + 1);
         else
            model_fill(m, i * 7 + a + 1);
      }
   }
   for (unsigned b = 0; b < sc->nbuf; b++) {
      const struct bufdesc *bd = &sc->buf[b];
      s->buf[b] = malloc(bd->size);
      s->buf_care[b] = malloc(bd->size);
      memset(s->buf_care[b], 1, bd->size);
      if (bd->fill_format == VK_FORMAT_UNDEFINED) {
         memset(s->buf[b], 0xCD, bd->size);
         continue;
      }
      const uint32_t ts = aspect_texel_size(bd->fill_format, bd->fill_aspect);
      for (size_t i = 0; i + ts <= bd->size; i += ts)
         gen_texel(bd->fill_format, bd->fill_aspect, 77 + b * 13 + (uint32_t)i, s->buf[b] + i);
      /* D24 words carry garbage in their top byte: copies must ignore it. */
      if (is_d24(bd->fill_format) && bd->fill_aspect == DEPTH)
         for (size_t i = 3; i < bd->size; i += 4)
            s->buf[b][i] = (uint8_t)hash32((uint32_t)i);
   }
}

static void
state_free(struct state *s)
{
   for (unsigned i = 0; i < MAX_IMAGES; i++)
      for (unsigned a = 0; a < s->naspects[i]; a++)
         model_free(&s->img[i][a]);
   for (unsigned b = 0; b < MAX_BUFS; b++) {
      free(s->buf[b]);
      free(s->buf_care[b]);
   }
}

/* ---- the CPU reference of each command ---- */

/* Layers and slices a region covers: 3D images have one layer and
 * extent.depth slices, arrays layerCount layers of one slice. */
static void
region_span(const struct imgdesc *d, uint32_t layer_count, uint32_t depth, uint32_t *layers,
            uint32_t *slices)
{
   if (d->type == VK_IMAGE_TYPE_3D) {
      *layers = 1;
      *slices = depth;
   } else {
      *layers = layer_count;
      *slices = 1;
   }
}

static void
ref_buffer_image(struct state *s, int image, int buffer, const VkBufferImageCopy *r, bool to_image)
{
   struct model *m = state_model(s, image, r->imageSubresource.aspectMask);
   const uint32_t rl = r->bufferRowLength ? r->bufferRowLength : r->imageExtent.width;
   const uint32_t ih = r->bufferImageHeight ? r->bufferImageHeight : r->imageExtent.height;
   const bool d24 = is_d24(m->d.format) && m->aspect == DEPTH;
   uint32_t layers, slices;
   region_span(&m->d, r->imageSubresource.layerCount, r->imageExtent.depth, &layers, &slices);
   for (uint32_t l = 0; l < layers; l++)
      for (uint32_t z = 0; z < slices; z++)
         for (uint32_t y = 0; y < r->imageExtent.height; y++)
            for (uint32_t x = 0; x < r->imageExtent.width; x++) {
               const size_t bo = r->bufferOffset +
                                 ((((size_t)l * slices + z) * ih + y) * rl + x) * m->ts;
               uint8_t *t = mtex(m, r->imageSubresource.mipLevel,
                                 r->imageSubresource.baseArrayLayer + l, r->imageOffset.x + (int)x,
                                 r->imageOffset.y + (int)y, r->imageOffset.z + (int)z);
               if (to_image) {
                  memcpy(t, s->buf[buffer] + bo, m->ts);
                  if (d24)
                     t[3] = 0;
               } else {
                  memcpy(s->buf[buffer] + bo, t, m->ts);
                  if (d24)
                     s->buf_care[buffer][bo + 3] = 0;
               }
            }
}

static void
ref_copy(struct state *s, int src, int dst, const VkImageCopy *r)
{
   for (VkImageAspectFlags a = 1; a <= STENCIL; a <<= 1) {
      if (!(r->srcSubresource.aspectMask & a))
         continue;
      struct model *ms = state_model(s, src, a), *md = state_model(s, dst, a);
      uint32_t layers, slices;
      region_span(&ms->d, r->srcSubresource.layerCount, r->extent.depth, &layers, &slices);
      for (uint32_t l = 0; l < layers; l++)
         for (uint32_t z = 0; z < slices; z++)
            for (uint32_t y = 0; y < r->extent.height; y++)
               for (uint32_t x = 0; x < r->extent.width; x++)
                  memcpy(mtex(md, r->dstSubresource.mipLevel, r->dstSubresource.baseArrayLayer + l,
                              r->dstOffset.x + (int)x, r->dstOffset.y + (int)y,
                              r->dstOffset.z + (int)z),
                         mtex(ms, r->srcSubresource.mipLevel, r->srcSubresource.baseArrayLayer + l,
                              r->srcOffset.x + (int)x, r->srcOffset.y + (int)y,
                              r->srcOffset.z + (int)z),
                         ms->ts);
   }
}

static int64_t
floor_div(int64_t n, int64_t q)
{
   if (q < 0) {
      n = -n;
      q = -q;
   }
   const int64_t r = n / q;
   return (n % q != 0 && n < 0) ? r - 1 : r;
}

static int32_t
clampi(int64_t v, int32_t size)
{
   return v < 0 ? 0 : (v >= size ? size - 1 : (int32_t)v);
}

/* The spec's blit: each destination texel center (i + 1/2) maps to
 * u = (i + 1/2 - dst0) * (src1 - src0) / (dst1 - dst0) + src0 in the
 * source; NEAREST takes floor(u) (computed exactly here), LINEAR weighs
 * floor(u - 1/2) and the next texel by frac(u - 1/2); coordinates clamp
 * to the source level's edge. */
static void
ref_blit_aspect(struct state *s, int src, int dst, const VkImageBlit *r, VkFilter filter,
                VkImageAspectFlags aspect)
{
   struct model *ms = state_model(s, src, aspect), *md = state_model(s, dst, aspect);
   const VkExtent3D se = lvl_extent(&ms->d, r->srcSubresource.mipLevel);
   const int32_t ssize[3] = { (int32_t)se.width, (int32_t)se.height, (int32_t)se.depth };
   const int32_t s0[3] = { r->srcOffsets[0].x, r->srcOffsets[0].y, r->srcOffsets[0].z };
   const int32_t s1[3] = { r->srcOffsets[1].x, r->srcOffsets[1].y, r->srcOffsets[1].z };
   const int32_t d0[3] = { r->dstOffsets[0].x, r->dstOffsets[0].y, r->dstOffsets[0].z };
   const int32_t d1[3] = { r->dstOffsets[1].x, r->dstOffsets[1].y, r->dstOffsets[1].z };
   const struct tfmt *sf = tfmt(ms->d.format), *df = tfmt(md->d.format);
   const bool integer = sf && (sf->kind == T_UINT || sf->kind == T_SINT);
   const bool linear = filter == VK_FILTER_LINEAR;

   for (uint32_t l = 0; l < r->srcSubresource.layerCount; l++) {
      int32_t lo[3], hi[3];
      for (int a = 0; a < 3; a++) {
         lo[a] = d0[a] < d1[a] ? d0[a] : d1[a];
         hi[a] = d0[a] < d1[a] ? d1[a] : d0[a];
      }
      for (int32_t k = lo[2]; k < hi[2]; k++)
         for (int32_t j = lo[1]; j < hi[1]; j++)
            for (int32_t i = lo[0]; i < hi[0]; i++) {
               const int32_t p[3] = { i, j, k };
               uint8_t *t = mtex(md, r->dstSubresource.mipLevel,
                                 r->dstSubresource.baseArrayLayer + l, i, j, k);
               if (!linear) {
                  int32_t c[3];
                  for (int a = 0; a < 3; a++)
                     c[a] = clampi(floor_div((2ll * (p[a] - d0[a]) + 1) * (s1[a] - s0[a]),
                                             2ll * (d1[a] - d0[a])) + s0[a], ssize[a]);
                  const uint8_t *st = mtex(ms, r->srcSubresource.mipLevel,
                                           r->srcSubresource.baseArrayLayer + l, c[0], c[1], c[2]);
                  if (!sf) {            /* depth or stencil: same format, same bytes */
                     memcpy(t, st, ms->ts);
                  } else if (integer) {
                     int64_t v[4];
                     decode_i(sf, st, v);
                     encode_i(df, v, t);
                  } else {
                     double v[4];
                     decode_f(sf, st, v);
                     encode_f(df, v, t);
                  }
                  continue;
               }
               int32_t c0[3], c1[3];
               double w[3];
               for (int a = 0; a < 3; a++) {
                  const double u = (p[a] + 0.5 - d0[a]) * (double)(s1[a] - s0[a]) /
                                   (double)(d1[a] - d0[a]) + s0[a] - 0.5;
                  const double f = floor(u);
                  w[a] = u - f;
                  c0[a] = clampi((int64_t)f, ssize[a]);
                  c1[a] = clampi((int64_t)f + 1, ssize[a]);
               }
               double acc[4] = { 0, 0, 0, 0 };
               for (int n = 0; n < 8; n++) {
                  double wt = 1.0;
                  int32_t c[3];
                  for (int a = 0; a < 3; a++) {
                     const bool hi_side = (n >> a) & 1;
                     wt *= hi_side ? w[a] : 1.0 - w[a];
                     c[a] = hi_side ? c1[a] : c0[a];
                  }
                  if (wt == 0.0)
                     continue;
                  double v[4];
                  decode_f(sf, mtex(ms, r->srcSubresource.mipLevel,
                                    r->srcSubresource.baseArrayLayer + l, c[0], c[1], c[2]), v);
                  for (int q = 0; q < 4; q++)
                     acc[q] += wt * v[q];
               }
               encode_f(df, acc, t);
            }
   }
}

static void
ref_blit(struct state *s, int src, int dst, const VkImageBlit *r, VkFilter filter)
{
   for (VkImageAspectFlags a = 1; a <= STENCIL; a <<= 1)
      if (r->srcSubresource.aspectMask & a)
         ref_blit_aspect(s, src, dst, r, filter, a);
}

static uint32_t
range_count(uint32_t count, uint32_t total, uint32_t base)
{
   return count == VK_REMAINING_MIP_LEVELS ? total - base : count;
}

static void
ref_clear(struct state *s, int image, const struct op *op)
{
   const VkImageSubresourceRange *ranges = op->regions;
   for (uint32_t i = 0; i < op->n; i++) {
      const VkImageSubresourceRange *r = &ranges[i];
      for (VkImageAspectFlags a = 1; a <= STENCIL; a <<= 1) {
         if (!(r->aspectMask & a))
            continue;
         struct model *m = state_model(s, image, a);
         uint8_t texel[16] = { 0 };
         if (a == COLOR) {
            const struct tfmt *t = tfmt(m->d.format);
            if (t->kind == T_UINT || t->kind == T_SINT) {
               /* Cast to the smaller type (values are kept representable). */
               for (unsigned p = 0; p < t->nc; p++)
                  put_raw(t, texel, p, op->color.uint32[t->comp[p]]);
            } else {
               const double v[4] = { op->color.float32[0], op->color.float32[1],
                                     op->color.float32[2], op->color.float32[3] };
               encode_f(t, v, texel);
            }
         } else if (a == DEPTH) {
            const float dv = op->ds.depth;
            const VkFormat f = m->d.format;
            if (f == VK_FORMAT_D32_SFLOAT || f == VK_FORMAT_D32_SFLOAT_S8_UINT) {
               memcpy(texel, &dv, 4);
            } else {
               const uint32_t v = (uint32_t)round_clamp_u(dv, m->ts == 2 ? 65535.0 : 16777215.0);
               memcpy(texel, &v, m->ts);
            }
         } else {
            texel[0] = (uint8_t)op->ds.stencil;
         }
         const uint32_t levels = range_count(r->levelCount, m->d.mips, r->baseMipLevel);
         const uint32_t layers = range_count(r->layerCount, m->d.layers, r->baseArrayLayer);
         for (uint32_t l = r->baseMipLevel; l < r->baseMipLevel + levels; l++) {
            const VkExtent3D e = lvl_extent(&m->d, l);
            for (uint32_t y = r->baseArrayLayer; y < r->baseArrayLayer + layers; y++)
               for (uint32_t z = 0; z < e.depth; z++)
                  for (uint32_t j = 0; j < e.height; j++)
                     for (uint32_t x = 0; x < e.width; x++)
                        memcpy(mtex(m, l, y, (int)x, (int)j, (int)z), texel, m->ts);
         }
      }
   }
}

static void
ref_run(struct state *s, const struct scenario *sc)
{
   for (unsigned o = 0; o < sc->nop; o++) {
      const struct op *op = &sc->ops[o];
      const VkBufferImageCopy *bic = op->regions;
      for (uint32_t i = 0; i < op->n; i++) {
         switch (op->kind) {
         case OP_B2I:
            ref_buffer_image(s, op->dst, op->src, &bic[i], true);
            break;
         case OP_I2B:
            ref_buffer_image(s, op->src, op->dst, &bic[i], false);
            break;
         case OP_COPY:
            ref_copy(s, op->src, op->dst, &((const VkImageCopy *)op->regions)[i]);
            break;
         case OP_BLIT:
            ref_blit(s, op->src, op->dst, &((const VkImageBlit *)op->regions)[i], op->filter);
            break;
         default:
            break;
         }
      }
      if (op->kind == OP_CLEAR_COLOR || op->kind == OP_CLEAR_DS)
         ref_clear(s, op->dst, op);
   }
}

/* ------------------------------------------------------------------------ */
/* Devices                                                                  */

enum { DEV_SHALE, DEV_LVP, DEV_SHALE_COPY2, NDEV };

struct dev {
   struct vkt t;
   bool ok;
   bool copy2;          /* record through the VK_KHR_copy_commands2 entry points */
   const char *name;
   PFN_vkCmdCopyImage2KHR CopyImage2;
   PFN_vkCmdCopyBufferToImage2KHR CopyBufferToImage2;
   PFN_vkCmdCopyImageToBuffer2KHR CopyImageToBuffer2;
   PFN_vkCmdBlitImage2KHR BlitImage2;
};

static struct dev devs[NDEV];

#define MAX_REGIONS 8

static void
cmd_buffer_image(struct dev *d, VkCommandBuffer cb, VkBuffer buf, VkImage img, bool to_image,
                 uint32_t n, const VkBufferImageCopy *r)
{
   if (!d->copy2) {
      if (to_image)
         vkCmdCopyBufferToImage(cb, buf, img, LDST, n, r);
      else
         vkCmdCopyImageToBuffer(cb, img, LSRC, buf, n, r);
      return;
   }
   VkBufferImageCopy2 r2[MAX_REGIONS];
   for (uint32_t i = 0; i < n && i < MAX_REGIONS; i++)
      r2[i] = (VkBufferImageCopy2) {
         .sType = VK_STRUCTURE_TYPE_BUFFER_IMAGE_COPY_2,
         .bufferOffset = r[i].bufferOffset, .bufferRowLength = r[i].bufferRowLength,
         .bufferImageHeight = r[i].bufferImageHeight, .imageSubresource = r[i].imageSubresource,
         .imageOffset = r[i].imageOffset, .imageExtent = r[i].imageExtent,
      };
   if (to_image) {
      const VkCopyBufferToImageInfo2 info = {
         .sType = VK_STRUCTURE_TYPE_COPY_BUFFER_TO_IMAGE_INFO_2, .srcBuffer = buf, .dstImage = img,
         .dstImageLayout = LDST, .regionCount = n, .pRegions = r2,
      };
      d->CopyBufferToImage2(cb, &info);
   } else {
      const VkCopyImageToBufferInfo2 info = {
         .sType = VK_STRUCTURE_TYPE_COPY_IMAGE_TO_BUFFER_INFO_2, .srcImage = img,
         .srcImageLayout = LSRC, .dstBuffer = buf, .regionCount = n,
         .pRegions = r2,
      };
      d->CopyImageToBuffer2(cb, &info);
   }
}

static void
cmd_copy(struct dev *d, VkCommandBuffer cb, VkImage src, VkImage dst, uint32_t n,
         const VkImageCopy *r)
{
   if (!d->copy2) {
      vkCmdCopyImage(cb, src, LSRC, dst, LDST, n, r);
      return;
   }
   VkImageCopy2 r2[MAX_REGIONS];
   for (uint32_t i = 0; i < n && i < MAX_REGIONS; i++)
      r2[i] = (VkImageCopy2) {
         .sType = VK_STRUCTURE_TYPE_IMAGE_COPY_2, .srcSubresource = r[i].srcSubresource,
         .srcOffset = r[i].srcOffset, .dstSubresource = r[i].dstSubresource,
         .dstOffset = r[i].dstOffset, .extent = r[i].extent,
      };
   const VkCopyImageInfo2 info = {
      .sType = VK_STRUCTURE_TYPE_COPY_IMAGE_INFO_2, .srcImage = src,
      .srcImageLayout = LSRC, .dstImage = dst,
      .dstImageLayout = LDST, .regionCount = n, .pRegions = r2,
   };
   d->CopyImage2(cb, &info);
}

static void
cmd_blit(struct dev *d, VkCommandBuffer cb, VkImage src, VkImage dst, uint32_t n,
         const VkImageBlit *r, VkFilter filter)
{
   if (!d->copy2) {
      vkCmdBlitImage(cb, src, LSRC, dst, LDST, n, r, filter);
      return;
   }
   VkImageBlit2 r2[MAX_REGIONS];
   for (uint32_t i = 0; i < n && i < MAX_REGIONS; i++) {
      r2[i] = (VkImageBlit2) {
         .sType = VK_STRUCTURE_TYPE_IMAGE_BLIT_2, .srcSubresource = r[i].srcSubresource,
         .dstSubresource = r[i].dstSubresource,
      };
      memcpy(r2[i].srcOffsets, r[i].srcOffsets, sizeof(r[i].srcOffsets));
      memcpy(r2[i].dstOffsets, r[i].dstOffsets, sizeof(r[i].dstOffsets));
   }
   const VkBlitImageInfo2 info = {
      .sType = VK_STRUCTURE_TYPE_BLIT_IMAGE_INFO_2, .srcImage = src,
      .srcImageLayout = LSRC, .dstImage = dst,
      .dstImageLayout = LDST, .regionCount = n, .pRegions = r2, .filter = filter,
   };
   d->BlitImage2(cb, &info);
}

static void
xfer_barrier(VkCommandBuffer cb)
{
   const VkMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       VK_ACCESS_HOST_READ_BIT,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0,
                        NULL, 0, NULL);
}

static VkImageCreateInfo
image_info(const struct imgdesc *d)
{
   return (VkImageCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = d->type,
      .format = d->format,
      .extent = d->extent,
      .mipLevels = d->mips,
      .arrayLayers = d->layers,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
}

/* Whether a device supports a scenario's images and the format features its
 * blits need; explains why not. */
static bool
dev_supports(struct dev *d, const struct scenario *sc, char *why, size_t why_size)
{
   for (unsigned i = 0; i < sc->nimg; i++) {
      const struct imgdesc *im = &sc->img[i];
      VkImageFormatProperties p;
      const VkImageCreateInfo ci = image_info(im);
      if (vkGetPhysicalDeviceImageFormatProperties(d->t.pdev, ci.format, ci.imageType, ci.tiling,
                                                   ci.usage, 0, &p) != VK_SUCCESS ||
          p.maxMipLevels < im->mips || p.maxArrayLayers < im->layers) {
         snprintf(why, why_size, "image %u (format %d type %d) unsupported", i, im->format,
                  im->type);
         return false;
      }
   }
   for (unsigned o = 0; o < sc->nop; o++) {
      const struct op *op = &sc->ops[o];
      if (op->kind != OP_BLIT)
         continue;
      VkFormatProperties sp, dp;
      vkGetPhysicalDeviceFormatProperties(d->t.pdev, sc->img[op->src].format, &sp);
      vkGetPhysicalDeviceFormatProperties(d->t.pdev, sc->img[op->dst].format, &dp);
      VkFormatFeatureFlags need = VK_FORMAT_FEATURE_BLIT_SRC_BIT;
      if (op->filter == VK_FILTER_LINEAR)
         need |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
      if ((sp.optimalTilingFeatures & need) != need ||
          !(dp.optimalTilingFeatures & VK_FORMAT_FEATURE_BLIT_DST_BIT)) {
         snprintf(why, why_size, "blit features of formats %d -> %d", sc->img[op->src].format,
                  sc->img[op->dst].format);
         return false;
      }
   }
   return true;
}

/* A device image and the layout of each of its subresources (level, layer),
 * moved between TRANSFER_SRC_OPTIMAL and TRANSFER_DST_OPTIMAL as each command
 * needs (the same subresource is never both source and destination). */
#define MAX_LAYERS 8

struct gimg {
   struct vkt_image vi;
   VkImage image;
   struct imgdesc d;
   VkImageLayout layout[MAX_LEVELS][MAX_LAYERS];
};

static void
gimg_transition(VkCommandBuffer cb, struct gimg *g, uint32_t level, uint32_t base, uint32_t count,
                VkImageLayout to)
{
   if (count == VK_REMAINING_ARRAY_LAYERS)
      count = g->d.layers - base;
   for (uint32_t l = base; l < base + count; l++) {
      if (g->layout[level][l] == to)
         continue;
      const VkImageMemoryBarrier b = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
         .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
         .oldLayout = g->layout[level][l],
         .newLayout = to,
         .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .image = g->image,
         .subresourceRange = { format_aspects(g->d.format), level, 1, l, 1 },
      };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                           NULL, 0, NULL, 1, &b);
      g->layout[level][l] = to;
   }
}

static void
gimg_transition_all(VkCommandBuffer cb, struct gimg *g, VkImageLayout to)
{
   for (uint32_t level = 0; level < g->d.mips; level++)
      gimg_transition(cb, g, level, 0, g->d.layers, to);
}

static void
gimg_transition_sub(VkCommandBuffer cb, struct gimg *g, const VkImageSubresourceLayers *s,
                    VkImageLayout to)
{
   gimg_transition(cb, g, s->mipLevel, s->baseArrayLayer, s->layerCount, to);
}

/* Whole-image transfers between the models and a device image, one region
 * per level and aspect (all layers), through a staging buffer. */
static bool
transfer_models(struct dev *d, struct gimg *img, struct model *models, unsigned n, bool upload)
{
   size_t off[2], total = 0;
   for (unsigned a = 0; a < n; a++) {
      total = align_up(total, 4 * models[a].ts);
      off[a] = total;
      total += models[a].size;
   }
   struct vkt_buffer sb;
   if (vkt_buffer_create(&d->t, total,
                         VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         &sb) != VK_SUCCESS) {
      CHECK(0, "%s: staging buffer", d->name);
      return false;
   }
   VkBufferImageCopy regions[2 * MAX_LEVELS];
   uint32_t nr = 0;
   for (unsigned a = 0; a < n; a++) {
      const struct model *m = &models[a];
      if (upload) {
         memcpy((uint8_t *)sb.map + off[a], m->data, m->size);
         if (is_d24(m->d.format) && m->aspect == DEPTH)   /* top byte: ignored by copies */
            for (size_t i = 3; i < m->size; i += 4)
               ((uint8_t *)sb.map)[off[a] + i] = (uint8_t)(0x5A ^ i);
      }
      for (uint32_t l = 0; l < m->d.mips; l++)
         regions[nr++] = (VkBufferImageCopy) {
            .bufferOffset = off[a] + m->level_off[l],
            .imageSubresource = { m->aspect, l, 0, m->d.layers },
            .imageExtent = lvl_extent(&m->d, l),
         };
   }
   VkCommandBuffer cb = vkt_begin(&d->t);
   gimg_transition_all(cb, img, upload ? LDST : LSRC);
   if (upload)
      vkCmdCopyBufferToImage(cb, sb.buffer, img->image, LDST, nr, regions);
   else
      vkCmdCopyImageToBuffer(cb, img->image, LSRC, sb.buffer, nr, regions);
   xfer_barrier(cb);
   const VkResult r = vkt_submit_wait(&d->t, cb);
   CHECK(r == VK_SUCCESS, "%s: staging submit %d", d->name, r);
   if (!upload) {
      for (unsigned a = 0; a < n; a++) {
         struct model *m = &models[a];
         memcpy(m->data, (uint8_t *)sb.map + off[a], m->size);
         if (is_d24(m->d.format) && m->aspect == DEPTH)
            for (size_t i = 3; i < m->size; i += 4)
               m->data[i] = 0;
      }
   }
   vkt_buffer_destroy(&d->t, &sb);
   return r == VK_SUCCESS;
}

/* Runs a scenario on a device, starting from the initial state `in`; the
 * final images and buffers land in `out` (initialised like `in`). */
static bool
dev_run(struct dev *d, const struct scenario *sc, struct state *in, struct state *out)
{
   struct gimg imgs[MAX_IMAGES];
   struct vkt_buffer bufs[MAX_BUFS] = { 0 };
   memset(imgs, 0, sizeof(imgs));
   bool ok = true;
   for (unsigned i = 0; i < sc->nimg && ok; i++) {
      const VkImageCreateInfo ci = image_info(&sc->img[i]);
      ok = vkt_image_create(&d->t, &ci, &imgs[i].vi) == VK_SUCCESS;
      CHECK(ok, "%s/%s: image %u", sc->name, d->name, i);
      if (!ok)
         break;
      imgs[i].image = imgs[i].vi.image;
      imgs[i].d = sc->img[i];   /* layouts start UNDEFINED (0) */
      ok = transfer_models(d, &imgs[i], in->img[i], in->naspects[i], true);
   }
   for (unsigned b = 0; b < sc->nbuf && ok; b++) {
      ok = vkt_buffer_create(&d->t, sc->buf[b].size,
                             VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             &bufs[b]) == VK_SUCCESS;
      CHECK(ok, "%s/%s: buffer %u", sc->name, d->name, b);
      if (ok)
         memcpy(bufs[b].map, in->buf[b], sc->buf[b].size);
   }
   if (ok) {
      VkCommandBuffer cb = vkt_begin(&d->t);
      for (unsigned o = 0; o < sc->nop; o++) {
         const struct op *op = &sc->ops[o];
         const VkBufferImageCopy *bic = op->regions;
         for (uint32_t r = 0; r < op->n; r++) {
            switch (op->kind) {
            case OP_B2I:
               gimg_transition_sub(cb, &imgs[op->dst], &bic[r].imageSubresource, LDST);
               break;
            case OP_I2B:
               gimg_transition_sub(cb, &imgs[op->src], &bic[r].imageSubresource, LSRC);
               break;
            case OP_COPY: {
               const VkImageCopy *c = &((const VkImageCopy *)op->regions)[r];
               gimg_transition_sub(cb, &imgs[op->src], &c->srcSubresource, LSRC);
               gimg_transition_sub(cb, &imgs[op->dst], &c->dstSubresource, LDST);
               break;
            }
            case OP_BLIT: {
               const VkImageBlit *c = &((const VkImageBlit *)op->regions)[r];
               gimg_transition_sub(cb, &imgs[op->src], &c->srcSubresource, LSRC);
               gimg_transition_sub(cb, &imgs[op->dst], &c->dstSubresource, LDST);
               break;
            }
            case OP_CLEAR_COLOR:
            case OP_CLEAR_DS: {
               const VkImageSubresourceRange *c =
                  &((const VkImageSubresourceRange *)op->regions)[r];
               const uint32_t levels =
                  range_count(c->levelCount, imgs[op->dst].d.mips, c->baseMipLevel);
               for (uint32_t l = c->baseMipLevel; l < c->baseMipLevel + levels; l++)
                  gimg_transition(cb, &imgs[op->dst], l, c->baseArrayLayer, c->layerCount, LDST);
               break;
            }
            }
         }
         switch (op->kind) {
         case OP_B2I:
            cmd_buffer_image(d, cb, bufs[op->src].buffer, imgs[op->dst].image, true, op->n,
                             op->regions);
            break;
         case OP_I2B:
            cmd_buffer_image(d, cb, bufs[op->dst].buffer, imgs[op->src].image, false, op->n,
                             op->regions);
            break;
         case OP_COPY:
            cmd_copy(d, cb, imgs[op->src].image, imgs[op->dst].image, op->n, op->regions);
            break;
         case OP_BLIT:
            cmd_blit(d, cb, imgs[op->src].image, imgs[op->dst].image, op->n, op->regions,
                     op->filter);
            break;
         case OP_CLEAR_COLOR:
            vkCmdClearColorImage(cb, imgs[op->dst].image, LDST, &op->color, op->n, op->regions);
            break;
         case OP_CLEAR_DS:
            vkCmdClearDepthStencilImage(cb, imgs[op->dst].image, LDST, &op->ds, op->n, op->regions);
            break;
         }
         xfer_barrier(cb);
      }
      const VkResult r = vkt_submit_wait(&d->t, cb);
      CHECK(r == VK_SUCCESS, "%s/%s: submit %d", sc->name, d->name, r);
      ok = r == VK_SUCCESS;
   }
   for (unsigned i = 0; i < sc->nimg && ok; i++)
      ok = transfer_models(d, &imgs[i], out->img[i], out->naspects[i], false);
   for (unsigned b = 0; b < sc->nbuf && ok; b++)
      memcpy(out->buf[b], bufs[b].map, sc->buf[b].size);
   for (unsigned i = 0; i < MAX_IMAGES; i++)
      vkt_image_destroy(&d->t, &imgs[i].vi);
   for (unsigned b = 0; b < MAX_BUFS; b++)
      vkt_buffer_destroy(&d->t, &bufs[b]);
   return ok;
}

/* ---- comparison ---- */

/* What a comparison accepts beyond equal bytes (see the file comment). */
struct tol {
   int norm;           /* units of a UNORM/SNORM/sRGB destination (and UNORM depth) */
   int float_ulps;     /* ulps of max(|value|, 1.0) of a float destination */
   double float_abs;   /* absolute difference accepted for floats */
};

static int64_t
float_ordered(uint64_t bits, unsigned width)
{
   const uint64_t sign = 1ull << (width - 1);
   return (bits & sign) ? -(int64_t)(bits & (sign - 1)) : (int64_t)bits;
}

static double
float_value(uint64_t raw, unsigned width)
{
   if (width == 16)
      return half_to_double((uint16_t)raw);
   float f;
   uint32_t r32 = (uint32_t)raw;
   memcpy(&f, &r32, 4);
   return f;
}

/* Whether two texels of a colour format agree within `tol`. */
static bool
texel_close(const struct tfmt *t, const uint8_t *a, const uint8_t *b, const struct tol *tol)
{
   for (unsigned p = 0; p < t->nc; p++) {
      const uint64_t ra = get_raw(t, a, p), rb = get_raw(t, b, p);
      if (ra == rb)
         continue;
      switch (t->kind) {
      case T_UNORM:
      case T_SRGB:
         if (llabs((int64_t)ra - (int64_t)rb) > tol->norm)
            return false;
         break;
      case T_SNORM:
         if (llabs(sign_extend(ra, t->bits) - sign_extend(rb, t->bits)) > tol->norm)
            return false;
         break;
      case T_SFLOAT: {
         const double fa = float_value(ra, t->bits), fb = float_value(rb, t->bits);
         const double ulp1 = t->bits == 16 ? ldexp(1.0, -10) : ldexp(1.0, -23);
         const double diff = fabs(fa - fb);
         if (fa != fa && fb != fb)
            break;   /* any NaN for a NaN */
         if (llabs(float_ordered(ra, t->bits) - float_ordered(rb, t->bits)) > tol->float_ulps &&
             !(diff <= tol->float_ulps * ulp1) && !(diff <= tol->float_abs))
            return false;
         break;
      }
      default:
         return false;
      }
   }
   return true;
}

/* Compares every image and buffer of two states; buffer bytes the reference
 * marks undefined are skipped. Returns the number of mismatches. */
static unsigned
compare_states(const struct scenario *sc, const struct state *got, const struct state *want,
               const struct state *ref, const struct tol *tol, uint32_t img_mask,
               const char *what)
{
   unsigned bad = 0;
   for (unsigned i = 0; i < sc->nimg; i++) {
      if (!(img_mask & (1u << i)))
         continue;
      for (unsigned a = 0; a < got->naspects[i]; a++) {
         const struct model *g = &got->img[i][a], *w = &want->img[i][a];
         const struct tfmt *t = g->aspect == COLOR ? tfmt(g->d.format) : NULL;
         const bool unorm_depth = g->aspect == DEPTH && (g->ts == 2 || is_d24(g->d.format));
         for (uint32_t l = 0; l < g->d.mips; l++) {
            const VkExtent3D e = lvl_extent(&g->d, l);
            for (uint32_t y = 0; y < g->d.layers; y++)
               for (uint32_t z = 0; z < e.depth; z++)
                  for (uint32_t j = 0; j < e.height; j++)
                     for (uint32_t k = 0; k < e.width; k++) {
                        const uint8_t *tg = mtex(g, l, y, (int)k, (int)j, (int)z);
                        const uint8_t *tw = mtex(w, l, y, (int)k, (int)j, (int)z);
                        if (!memcmp(tg, tw, g->ts))
                           continue;
                        if (t && texel_close(t, tg, tw, tol))
                           continue;
                        if (unorm_depth) {
                           uint32_t vg = 0, vw = 0;
                           memcpy(&vg, tg, g->ts);
                           memcpy(&vw, tw, g->ts);
                           if ((vg > vw ? vg - vw : vw - vg) <= (uint32_t)tol->norm)
                              continue;
                        }
                        if (bad++ < 6) {
                           char hg[40] = "", hw[40] = "";
                           for (uint32_t q = 0; q < g->ts && q < 16; q++) {
                              snprintf(hg + 2 * q, 3, "%02x", tg[q]);
                              snprintf(hw + 2 * q, 3, "%02x", tw[q]);
                           }
                           fprintf(stderr, "  %s: %s image %u aspect %#x level %u layer %u "
                                   "(%u,%u,%u): %s, want %s\n", sc->name, what, i, g->aspect, l, y,
                                   k, j, z, hg, hw);
                        }
                     }
         }
      }
   }
   for (unsigned b = 0; b < sc->nbuf; b++) {
      for (size_t i = 0; i < sc->buf[b].size; i++) {
         if (!ref->buf_care[b][i] || got->buf[b][i] == want->buf[b][i])
            continue;
         if (bad++ < 6)
            fprintf(stderr, "  %s: %s buffer %u byte %zu: %#x, want %#x\n", sc->name, what, b, i,
                    got->buf[b][i], want->buf[b][i]);
      }
   }
   return bad;
}

/* The format sweep's notes, summarized instead of one line per scenario. */
static bool sweep_quiet;
static unsigned sweep_no_lvp;

#define NOTE(...)                                                            \
   do {                                                                      \
      if (!sweep_quiet)                                                      \
         fprintf(stderr, __VA_ARGS__);                                       \
   } while (0)

static void
run_scenario(const struct scenario *sc)
{
   struct state init, ref, out[NDEV];
   state_init(&init, sc);
   state_init(&ref, sc);
   uint32_t ref_mask = (1u << sc->nimg) - 1;
   if (sc->ref_fn) {
      sc->ref_fn(sc, &ref);
      ref_mask = sc->ref_images;
   } else {
      ref_run(&ref, sc);
   }
   const uint32_t all = (1u << sc->nimg) - 1;
   bool ran[NDEV] = { false };
   /* Against the exact reference: the scenario's tolerance. Against
    * lavapipe, also what the spec lets it do differently: quantize linear
    * filtering weights to subTexelPrecisionBits (an error of up to the
    * filtered values' spread times 2^-bits), and approximate sRGB encoding. */
   const struct tol tref = { sc->tol_norm, sc->tol_float, 0.0 };
   struct tol tlvp = tref;
   if (devs[DEV_LVP].ok) {
      const double q = ldexp(1.0, -(int)devs[DEV_LVP].t.props.limits.subTexelPrecisionBits);
      tlvp.norm += (int)ceil(sc->lin_norm_spread * q) + sc->lvp_norm;
      tlvp.float_abs = sc->lin_float_spread * q + sc->lvp_float_abs;
   }
   for (int di = 0; di < NDEV; di++) {
      struct dev *d = &devs[di];
      if (!d->ok)
         continue;
      char why[128];
      if (di == DEV_LVP && sc->lvp_skip) {
         NOTE("note: %s: not compared with lavapipe: %s\n", sc->name, sc->lvp_skip);
         continue;
      }
      if (!dev_supports(d, sc, why, sizeof(why))) {
         CHECK(di == DEV_LVP, "%s: %s on %s", sc->name, why, d->name);
         NOTE("note: %s: not compared with %s (%s)\n", sc->name, d->name, why);
         continue;
      }
      state_init(&out[di], sc);
      ran[di] = dev_run(d, sc, &init, &out[di]);
      if (!ran[di]) {
         state_free(&out[di]);
         continue;
      }
      if (di != DEV_LVP) {
         const unsigned bad = compare_states(sc, &out[di], &ref, &ref, &tref, ref_mask, d->name);
         CHECK(bad == 0, "%s on %s: %u texels/bytes differ from the reference", sc->name, d->name,
               bad);
      } else if (compare_states(sc, &out[di], &ref, &ref, &tlvp, ref_mask, "lavapipe-vs-ref")) {
         NOTE("note: %s: lavapipe differs from the CPU reference (above)\n", sc->name);
      }
      /* Images without a CPU reference: the copy2 path must match Shale's. */
      if (di == DEV_SHALE_COPY2 && ran[DEV_SHALE] && (all & ~ref_mask)) {
         const unsigned bad = compare_states(sc, &out[di], &out[DEV_SHALE], &ref, &tref,
                                             all & ~ref_mask, "copy2-vs-shale");
         CHECK(bad == 0, "%s: %u texels differ between the copy2 path and Shale", sc->name, bad);
      }
   }
   if (!ran[DEV_LVP])
      sweep_no_lvp++;
   if ((all & ~ref_mask) && ran[DEV_SHALE] && !ran[DEV_LVP])
      NOTE("note: %s: images without a CPU reference not compared (no lavapipe)\n", sc->name);
   if (ran[DEV_SHALE] && ran[DEV_LVP]) {
      const unsigned bad = compare_states(sc, &out[DEV_SHALE], &out[DEV_LVP], &ref, &tlvp, all,
                                          "shale-vs-lavapipe");
      CHECK(bad == 0, "%s: %u texels/bytes differ between shale and lavapipe", sc->name, bad);
   }
   for (int di = 0; di < NDEV; di++)
      if (ran[di])
         state_free(&out[di]);
   state_free(&init);
   state_free(&ref);
}

/* ------------------------------------------------------------------------ */
/* The scenarios                                                            */

#define IMG2D(f, w, h, m, l) { VK_IMAGE_TYPE_2D, f, { w, h, 1 }, m, l }
#define IMG3D(f, w, h, d, m) { VK_IMAGE_TYPE_3D, f, { w, h, d }, m, 1 }
#define IMG1D(f, w, m, l) { VK_IMAGE_TYPE_1D, f, { w, 1, 1 }, m, l }
#define SUB(a, m, b, c) { a, m, b, c }
#define ALL VK_REMAINING_MIP_LEVELS
#define ALL_LAYERS VK_REMAINING_ARRAY_LAYERS

static const struct scenario scenarios[] = {
   /* ---- buffer <-> image ---- */
   {
      .name = "buffer-image rgba8 2d array mips, rowLength/imageHeight/offsets",
      .nimg = 1, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 37, 23, 3, 4) },
      .nbuf = 2, .buf = { { 64 * 1024, VK_FORMAT_R8G8B8A8_UNORM, COLOR }, { 16 * 1024 } },
      .nop = 2,
      .ops = {
         { OP_B2I, 0, 0, REGIONS(VkBufferImageCopy,
            { 20, 41, 27, SUB(COLOR, 0, 1, 2), { 3, 5, 0 }, { 10, 7, 1 } },
            { 9000, 0, 0, SUB(COLOR, 2, 0, 4), { 0, 0, 0 }, { 9, 5, 1 } },
            { 12004, 0, 0, SUB(COLOR, 1, 3, 1), { 1, 2, 0 }, { 17, 9, 1 } },
            { 30000, 18, 0, SUB(COLOR, 0, 0, 1), { 36, 0, 0 }, { 1, 23, 1 } }) },
         { OP_I2B, 0, 1, REGIONS(VkBufferImageCopy,
            { 8, 50, 9, SUB(COLOR, 1, 0, 4), { 2, 1, 0 }, { 8, 6, 1 } },
            { 8000, 0, 0, SUB(COLOR, 0, 1, 2), { 30, 20, 0 }, { 7, 3, 1 } }) },
      },
   },
   {
      .name = "buffer-image 3d rg16ui mips, box with z",
      .nimg = 1, .img = { IMG3D(VK_FORMAT_R16G16_UINT, 13, 9, 7, 3) },
      .nbuf = 2, .buf = { { 8192, VK_FORMAT_R16G16_UINT, COLOR }, { 8192 } },
      .nop = 2,
      .ops = {
         { OP_B2I, 0, 0, REGIONS(VkBufferImageCopy,
            { 4, 11, 6, SUB(COLOR, 0, 0, 1), { 2, 1, 3 }, { 7, 5, 4 } },
            { 4000, 0, 0, SUB(COLOR, 1, 0, 1), { 0, 0, 0 }, { 6, 4, 3 } },
            { 6000, 3, 2, SUB(COLOR, 2, 0, 1), { 1, 1, 0 }, { 2, 1, 1 } }) },
         { OP_I2B, 0, 1, REGIONS(VkBufferImageCopy,
            { 16, 9, 7, SUB(COLOR, 0, 0, 1), { 4, 2, 1 }, { 8, 6, 5 } }) },
      },
   },
   {
      .name = "buffer-image 1d array r32f and rgb8 (3-byte texels)",
      .nimg = 2, .img = { IMG1D(VK_FORMAT_R32_SFLOAT, 61, 2, 3),
                          IMG2D(VK_FORMAT_R8G8B8_UNORM, 11, 7, 2, 1) },
      .nbuf = 2, .buf = { { 4096, VK_FORMAT_R32_SFLOAT, COLOR }, { 4096 } },
      .nop = 4,
      .ops = {
         { OP_B2I, 0, 0, REGIONS(VkBufferImageCopy,
            { 12, 70, 0, SUB(COLOR, 0, 1, 2), { 5, 0, 0 }, { 50, 1, 1 } },
            { 1000, 0, 0, SUB(COLOR, 1, 0, 3), { 0, 0, 0 }, { 30, 1, 1 } }) },
         { OP_I2B, 0, 1, REGIONS(VkBufferImageCopy,
            { 40, 64, 0, SUB(COLOR, 0, 0, 3), { 0, 0, 0 }, { 61, 1, 1 } }) },
         { OP_B2I, 0, 1, REGIONS(VkBufferImageCopy,
            { 9, 13, 8, SUB(COLOR, 0, 0, 1), { 2, 1, 0 }, { 8, 5, 1 } }) },
         { OP_I2B, 1, 1, REGIONS(VkBufferImageCopy,
            { 3000, 0, 0, SUB(COLOR, 1, 0, 1), { 0, 0, 0 }, { 5, 3, 1 } }) },
      },
   },
   {
      .name = "buffer-image depth d16/d32 and stencil s8",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D16_UNORM, 19, 13, 2, 2),
                          IMG2D(VK_FORMAT_D32_SFLOAT, 17, 9, 2, 1),
                          IMG2D(VK_FORMAT_S8_UINT, 15, 11, 1, 2) },
      .nbuf = 3, .buf = { { 4096, VK_FORMAT_D32_SFLOAT, DEPTH }, { 8192 },
                          { 1024, VK_FORMAT_S8_UINT, STENCIL } },
      .nop = 5,
      .ops = {
         { OP_B2I, 0, 0, REGIONS(VkBufferImageCopy,   /* D16 from 16-bit words */
            { 8, 21, 0, SUB(DEPTH, 0, 1, 1), { 2, 3, 0 }, { 15, 8, 1 } }) },
         { OP_B2I, 0, 1, REGIONS(VkBufferImageCopy,
            { 0, 0, 0, SUB(DEPTH, 1, 0, 1), { 0, 0, 0 }, { 8, 4, 1 } },
            { 200, 20, 10, SUB(DEPTH, 0, 0, 1), { 1, 1, 0 }, { 16, 8, 1 } }) },
         { OP_B2I, 2, 2, REGIONS(VkBufferImageCopy,
            { 4, 16, 0, SUB(STENCIL, 0, 0, 2), { 0, 2, 0 }, { 15, 9, 1 } }) },
         { OP_I2B, 0, 1, REGIONS(VkBufferImageCopy,
            { 4, 0, 0, SUB(DEPTH, 0, 0, 2), { 0, 0, 0 }, { 19, 13, 1 } },
            { 2000, 0, 0, SUB(DEPTH, 0, 0, 1), { 0, 0, 0 }, { 17, 9, 1 } }) },
         { OP_I2B, 2, 1, REGIONS(VkBufferImageCopy,
            { 5004, 20, 12, SUB(STENCIL, 0, 1, 1), { 3, 2, 0 }, { 10, 9, 1 } }) },
      },
   },
   {
      .name = "buffer-image combined d24s8 / d32s8 / x8d24 aspects",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 21, 11, 2, 2),
                          IMG2D(VK_FORMAT_D32_SFLOAT_S8_UINT, 13, 7, 1, 1),
                          IMG2D(VK_FORMAT_X8_D24_UNORM_PACK32, 9, 9, 1, 1) },
      .nbuf = 3, .buf = { { 4096, VK_FORMAT_D24_UNORM_S8_UINT, DEPTH }, { 8192 },
                          { 4096, VK_FORMAT_D32_SFLOAT, DEPTH } },
      .nop = 6,
      .ops = {
         { OP_B2I, 0, 0, REGIONS(VkBufferImageCopy,
            { 16, 24, 0, SUB(DEPTH, 0, 1, 1), { 1, 1, 0 }, { 20, 9, 1 } },
            { 2000, 0, 0, SUB(STENCIL, 0, 0, 2), { 4, 3, 0 }, { 12, 6, 1 } }) },
         { OP_B2I, 2, 1, REGIONS(VkBufferImageCopy,
            { 0, 0, 0, SUB(DEPTH, 0, 0, 1), { 2, 1, 0 }, { 11, 6, 1 } },
            { 1004, 0, 0, SUB(STENCIL, 0, 0, 1), { 0, 0, 0 }, { 13, 7, 1 } }) },
         { OP_B2I, 0, 2, REGIONS(VkBufferImageCopy,
            { 400, 0, 0, SUB(DEPTH, 0, 0, 1), { 0, 0, 0 }, { 9, 9, 1 } }) },
         { OP_I2B, 0, 1, REGIONS(VkBufferImageCopy,
            { 0, 0, 0, SUB(DEPTH, 1, 0, 2), { 0, 0, 0 }, { 10, 5, 1 } },
            { 1000, 0, 0, SUB(STENCIL, 0, 1, 1), { 0, 0, 0 }, { 21, 11, 1 } }) },
         { OP_I2B, 1, 1, REGIONS(VkBufferImageCopy,
            { 3000, 15, 0, SUB(DEPTH, 0, 0, 1), { 0, 0, 0 }, { 13, 7, 1 } },
            { 2500, 0, 0, SUB(STENCIL, 0, 0, 1), { 1, 1, 0 }, { 12, 6, 1 } }) },
         { OP_I2B, 2, 1, REGIONS(VkBufferImageCopy,
            { 4000, 0, 0, SUB(DEPTH, 0, 0, 1), { 0, 0, 0 }, { 9, 9, 1 } }) },
      },
   },
   /* ---- image -> image ---- */
   {
      .name = "copy rgba8 levels and layers",
      .nimg = 2, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 19, 17, 3, 3),
                          IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 23, 21, 2, 4) },
      .nop = 2,
      .ops = {
         { OP_COPY, 0, 1, REGIONS(VkImageCopy,
            { SUB(COLOR, 0, 0, 2), { 1, 2, 0 }, SUB(COLOR, 1, 2, 2), { 3, 1, 0 }, { 7, 5, 1 } },
            { SUB(COLOR, 2, 1, 2), { 0, 0, 0 }, SUB(COLOR, 0, 0, 2), { 18, 17, 0 }, { 4, 4, 1 } },
            { SUB(COLOR, 0, 0, 2), { 0, 0, 0 },
              SUB(COLOR, 0, 2, 2), { 4, 4, 0 }, { 19, 17, 1 } }) },
         /* Within one image, between disjoint subresources. */
         { OP_COPY, 1, 1, REGIONS(VkImageCopy,
            { SUB(COLOR, 0, 0, 1), { 5, 5, 0 },
              SUB(COLOR, 1, 0, 1), { 0, 0, 0 }, { 11, 10, 1 } }) },
      },
   },
   {
      .name = "copy between compatible formats r32ui <-> rgba8, rgba32f 1d",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R32_UINT, 16, 12, 1, 1),
                          IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 20, 10, 1, 2),
                          IMG1D(VK_FORMAT_R32G32B32A32_SFLOAT, 40, 2, 2) },
      .nop = 3,
      .ops = {
         { OP_COPY, 0, 1, REGIONS(VkImageCopy,
            { SUB(COLOR, 0, 0, 1), { 2, 3, 0 }, SUB(COLOR, 0, 1, 1), { 5, 1, 0 }, { 14, 9, 1 } }) },
         { OP_COPY, 1, 0, REGIONS(VkImageCopy,
            { SUB(COLOR, 0, 0, 1), { 10, 0, 0 },
              SUB(COLOR, 0, 0, 1), { 0, 0, 0 }, { 10, 4, 1 } }) },
         { OP_COPY, 2, 2, REGIONS(VkImageCopy,
            { SUB(COLOR, 0, 1, 1), { 3, 0, 0 }, SUB(COLOR, 1, 0, 1), { 1, 0, 0 }, { 18, 1, 1 } }) },
      },
   },
   {
      .name = "copy 3d rg16ui boxes with z, all levels",
      .nimg = 2, .img = { IMG3D(VK_FORMAT_R16G16_UINT, 9, 8, 7, 2),
                          IMG3D(VK_FORMAT_R16G16_UINT, 10, 10, 10, 3) },
      .nop = 1,
      .ops = {
         { OP_COPY, 0, 1, REGIONS(VkImageCopy,
            { SUB(COLOR, 0, 0, 1), { 1, 2, 3 }, SUB(COLOR, 0, 0, 1), { 4, 5, 6 }, { 5, 4, 3 } },
            { SUB(COLOR, 1, 0, 1), { 0, 0, 0 }, SUB(COLOR, 1, 0, 1), { 1, 0, 2 }, { 4, 4, 3 } },
            { SUB(COLOR, 0, 0, 1), { 0, 0, 6 }, SUB(COLOR, 2, 0, 1), { 0, 0, 0 }, { 2, 2, 1 } }) },
      },
   },
   {
      .name = "copy d24s8 / d32s8 single aspects",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 16, 16, 2, 2),
                          IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 16, 16, 1, 2),
                          IMG2D(VK_FORMAT_D32_SFLOAT_S8_UINT, 8, 8, 1, 2) },
      .nop = 3,
      .ops = {
         { OP_COPY, 0, 1, REGIONS(VkImageCopy,
            { SUB(DEPTH, 0, 0, 1), { 1, 1, 0 }, SUB(DEPTH, 0, 1, 1), { 3, 2, 0 }, { 10, 5, 1 } },
            { SUB(STENCIL, 0, 1, 1), { 4, 0, 0 },
              SUB(STENCIL, 0, 0, 1), { 0, 5, 0 }, { 12, 11, 1 } }) },
         { OP_COPY, 2, 2, REGIONS(VkImageCopy,
            { SUB(STENCIL, 0, 1, 1), { 0, 0, 0 },
              SUB(STENCIL, 0, 0, 1), { 0, 4, 0 }, { 8, 4, 1 } }) },
         { OP_COPY, 2, 2, REGIONS(VkImageCopy,
            { SUB(DEPTH, 0, 0, 1), { 2, 2, 0 }, SUB(DEPTH, 0, 1, 1), { 0, 0, 0 }, { 5, 6, 1 } }) },
      },
      .lvp_skip = "lavapipe (Mesa 22.3) copies whole texels of combined depth/stencil formats "
                  "in single-aspect copies and blits, overwriting the other aspect",
   },
   {
      .name = "copy depth/stencil both aspects d24s8 d32s8",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 16, 16, 2, 2),
                          IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 16, 16, 1, 2),
                          IMG2D(VK_FORMAT_D32_SFLOAT_S8_UINT, 8, 8, 1, 2) },
      .nop = 2,
      .ops = {
         { OP_COPY, 0, 1, REGIONS(VkImageCopy,
            { SUB(DEPTH | STENCIL, 1, 1, 1), { 0, 0, 0 }, SUB(DEPTH | STENCIL, 0, 1, 1),
              { 8, 8, 0 }, { 8, 8, 1 } },
            { SUB(DEPTH | STENCIL, 0, 0, 1), { 2, 3, 0 }, SUB(DEPTH | STENCIL, 0, 0, 1),
              { 1, 1, 0 }, { 14, 13, 1 } }) },
         { OP_COPY, 2, 2, REGIONS(VkImageCopy,
            { SUB(DEPTH | STENCIL, 0, 0, 1), { 0, 0, 0 }, SUB(DEPTH | STENCIL, 0, 1, 1),
              { 4, 0, 0 }, { 4, 8, 1 } }) },
      },
   },
   {
      .name = "copy depth d32 and d16",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D32_SFLOAT, 12, 12, 2, 1),
                          IMG2D(VK_FORMAT_D32_SFLOAT, 12, 12, 1, 1),
                          IMG2D(VK_FORMAT_D16_UNORM, 12, 12, 1, 2) },
      .nop = 2,
      .ops = {
         { OP_COPY, 0, 1, REGIONS(VkImageCopy,
            { SUB(DEPTH, 0, 0, 1), { 2, 2, 0 }, SUB(DEPTH, 0, 0, 1), { 0, 3, 0 }, { 9, 9, 1 } },
            { SUB(DEPTH, 1, 0, 1), { 0, 0, 0 }, SUB(DEPTH, 0, 0, 1), { 6, 0, 0 }, { 6, 3, 1 } }) },
         { OP_COPY, 2, 2, REGIONS(VkImageCopy,
            { SUB(DEPTH, 0, 0, 1), { 1, 0, 0 },
              SUB(DEPTH, 0, 1, 1), { 0, 2, 0 }, { 11, 10, 1 } }) },
      },
   },
   /* ---- blits ---- (ratios with odd reduced numerators keep NEAREST sample
    * points off texel edges, where float-based blits may round either way) */
   {
      .name = "blit rgba8 nearest upscale 15->32, 11->25 and mirrored",
      .nimg = 2, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 16, 12, 1, 1),
                          IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 37, 29, 1, 1) },
      .nop = 2,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 1, 0, 0 }, { 16, 11, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 3, 2, 0 }, { 35, 27, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 15, 0, 0 }, { 0, 9, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 28, 0 }, { 7, 1, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
      .tol_norm = 0,
   },
   {
      .name = "blit rgba8 linear downscale, mirrored, 1:1",
      .nimg = 2, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 64, 48, 1, 1),
                          IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 40, 30, 1, 1) },
      .nop = 3,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 64, 48, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 1, 1, 0 }, { 22, 14, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 30, 0, 0 }, { 3, 40, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 23, 0, 0 }, { 40, 29, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 10, 10, 0 }, { 20, 20, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 16, 0 }, { 10, 26, 1 } } }), .filter = VK_FILTER_LINEAR },
      },
      .tol_norm = 1, .lin_norm_spread = 255,
   },
   {
      .name = "blit srgb <-> unorm, bgra",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R8G8B8A8_SRGB, 32, 32, 1, 1),
                          IMG2D(VK_FORMAT_B8G8R8A8_UNORM, 33, 33, 1, 1),
                          IMG2D(VK_FORMAT_B8G8R8A8_SRGB, 21, 21, 1, 1) },
      .nop = 3,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 32, 32, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 16, 16, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 1, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 7, 7, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 21, 21, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 15, 15, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 17, 17, 0 }, { 32, 32, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
      .tol_norm = 1, .lin_norm_spread = 255, .lvp_norm = 1,
   },
   {
      .name = "blit float -> unorm (clamping), float -> half, snorm -> float",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R32G32B32A32_SFLOAT, 24, 20, 1, 1),
                          IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 30, 30, 1, 1),
                          IMG2D(VK_FORMAT_R16G16B16A16_SFLOAT, 24, 20, 1, 1) },
      .nop = 3,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 24, 20, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 17, 13, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 0, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 24, 20, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 24, 20, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 3, 3, 0 }, { 6, 6, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 20, 20, 0 }, { 30, 30, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
      .tol_norm = 1, .tol_float = 1, .lin_norm_spread = 4 * 255,
   },
   {
      .name = "blit linear to float32 and snorm",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R8G8B8A8_SNORM, 16, 16, 1, 1),
                          IMG2D(VK_FORMAT_R32G32B32A32_SFLOAT, 23, 11, 1, 1),
                          IMG2D(VK_FORMAT_R16G16B16A16_UNORM, 16, 16, 1, 1) },
      .nop = 2,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 16, 16, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 23, 11, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 2, 0, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 16, 16, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 9, 7, 1 } } }), .filter = VK_FILTER_LINEAR },
      },
      .tol_norm = 1, .tol_float = 64, .lin_norm_spread = 127, .lin_float_spread = 2,
   },
   {
      .name = "blit integer formats nearest (uint widen, sint, mirrored)",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UINT, 15, 9, 1, 1),
                          IMG2D(VK_FORMAT_R16G16B16A16_UINT, 32, 18, 1, 2),
                          IMG2D(VK_FORMAT_R32_SINT, 20, 20, 1, 2) },
      .nop = 3,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 15, 9, 1 } }, SUB(COLOR, 0, 0, 1),
              { { 1, 0, 0 }, { 31, 18, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 2, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 9, 9, 1 } }, SUB(COLOR, 0, 1, 1),
              { { 19, 19, 0 }, { 10, 10, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 1, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 3, 3, 1 } }, SUB(COLOR, 0, 1, 1),
              { { 31, 17, 0 }, { 32, 18, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
   },
   {
      .name = "blit 3d linear downscale, 3d slice -> 2d, layers, mip generation",
      .nimg = 3, .img = { IMG3D(VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 8, 1),
                          IMG3D(VK_FORMAT_R8G8B8A8_UNORM, 4, 4, 3, 1),
                          IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 32, 32, 3, 4) },
      .nop = 5,
      .ops = {
         { OP_BLIT, 0, 1, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 8, 8, 8 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 4, 4, 3 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 0, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 3 }, { 8, 8, 4 } }, SUB(COLOR, 0, 0, 1),
              { { 0, 0, 0 }, { 24, 24, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 2, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 1, 2), { { 0, 0, 0 }, { 32, 32, 1 } }, SUB(COLOR, 1, 1, 2),
              { { 0, 0, 0 }, { 16, 16, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 2, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 1, 2), { { 0, 0, 0 }, { 32, 32, 1 } }, SUB(COLOR, 2, 1, 2),
              { { 0, 0, 0 }, { 8, 8, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 2, 2, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 9, 9, 1 } }, SUB(COLOR, 0, 2, 1),
              { { 0, 0, 0 }, { 32, 32, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
      .tol_norm = 1, .lin_norm_spread = 255,
   },
   {
      .name = "blit d24s8 single aspects nearest",
      .nimg = 1, .img = { IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 16, 16, 1, 2) },
      .nop = 3,
      .ops = {
         { OP_BLIT, 0, 0, REGIONS(VkImageBlit,
            { SUB(STENCIL, 0, 0, 1), { { 0, 0, 0 }, { 7, 7, 1 } }, SUB(STENCIL, 0, 1, 1),
              { { 16, 16, 0 }, { 8, 8, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 0, 0, REGIONS(VkImageBlit,
            { SUB(DEPTH, 0, 0, 1), { { 9, 0, 0 }, { 16, 7, 1 } }, SUB(DEPTH, 0, 1, 1),
              { { 0, 8, 0 }, { 3, 15, 1 } } }), .filter = VK_FILTER_NEAREST },
         { OP_BLIT, 0, 0, REGIONS(VkImageBlit,
            { SUB(DEPTH | STENCIL, 0, 0, 1), { { 0, 0, 0 }, { 3, 5, 1 } },
              SUB(DEPTH | STENCIL, 0, 1, 1),
              { { 0, 0, 0 }, { 9, 5, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
      .lvp_skip = "lavapipe (Mesa 22.3) copies whole texels of combined depth/stencil formats "
                  "in single-aspect copies and blits, overwriting the other aspect",
   },
   {
      .name = "blit 1d r32f linear, depth d32 nearest",
      .nimg = 2, .img = { IMG1D(VK_FORMAT_R32_SFLOAT, 64, 1, 2),
                          IMG2D(VK_FORMAT_D32_SFLOAT, 16, 16, 1, 2) },
      .nop = 2,
      .ops = {
         { OP_BLIT, 0, 0, REGIONS(VkImageBlit,
            { SUB(COLOR, 0, 0, 1), { { 0, 0, 0 }, { 64, 1, 1 } }, SUB(COLOR, 0, 1, 1),
              { { 5, 0, 0 }, { 28, 1, 1 } } }), .filter = VK_FILTER_LINEAR },
         { OP_BLIT, 1, 1, REGIONS(VkImageBlit,
            { SUB(DEPTH, 0, 0, 1), { { 0, 0, 0 }, { 5, 3, 1 } }, SUB(DEPTH, 0, 1, 1),
              { { 6, 6, 0 }, { 16, 15, 1 } } }), .filter = VK_FILTER_NEAREST },
      },
      .tol_float = 64, .lin_float_spread = 4,
   },
   /* ---- clears ---- (values exactly representable: exact, except sRGB) */
   {
      .name = "clear color unorm/bgra ranges with VK_REMAINING_*, 3d",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UNORM, 17, 13, 3, 4),
                          IMG2D(VK_FORMAT_B8G8R8A8_UNORM, 8, 8, 4, 1),
                          IMG3D(VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 4, 3) },
      .nop = 4,
      .ops = {
         { OP_CLEAR_COLOR, 0, 0, REGIONS(VkImageSubresourceRange,
            { COLOR, 1, ALL, 1, 2 }, { COLOR, 0, 1, 3, ALL_LAYERS }),
           .color = { .float32 = { 51.0f / 255, 1.0f, 0.0f, 128.0f / 255 } } },
         { OP_CLEAR_COLOR, 0, 1, REGIONS(VkImageSubresourceRange, { COLOR, 1, 2, 0, 1 }),
           .color = { .float32 = { 1.0f, 0.0f, 64.0f / 255, 2.0f } } },
         { OP_CLEAR_COLOR, 0, 2, REGIONS(VkImageSubresourceRange, { COLOR, 1, ALL, 0, ALL_LAYERS }),
           .color = { .float32 = { -1.0f, 64.0f / 255, 7.0f / 255, 1.0f } } },
         { OP_CLEAR_COLOR, 0, 0, REGIONS(VkImageSubresourceRange, { COLOR, 2, 1, 0, 1 }),
           .color = { .float32 = { 0.0f, 0.0f, 0.0f, 0.0f } } },
      },
      .tol_norm = 1,
   },
   {
      .name = "clear color srgb",
      .nimg = 1, .img = { IMG2D(VK_FORMAT_R8G8B8A8_SRGB, 9, 9, 2, 2) },
      .nop = 1,
      .ops = {
         { OP_CLEAR_COLOR, 0, 0, REGIONS(VkImageSubresourceRange, { COLOR, 0, ALL, 1, 1 }),
           .color = { .float32 = { 0.5f, 0.2f, 0.9f, 0.25f } } },
      },
      .tol_norm = 1,
   },
   {
      .name = "clear color uint/sint/float32/half",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R32G32B32A32_UINT, 7, 5, 2, 2),
                          IMG2D(VK_FORMAT_R16G16B16A16_SINT, 7, 5, 1, 1),
                          IMG2D(VK_FORMAT_R16G16B16A16_SFLOAT, 7, 5, 1, 1) },
      .nop = 4,
      .ops = {
         { OP_CLEAR_COLOR, 0, 0, REGIONS(VkImageSubresourceRange, { COLOR, 0, ALL, 1, ALL_LAYERS }),
           .color = { .uint32 = { 1, 0xFFFFFFFFu, 12345678, 0 } } },
         { OP_CLEAR_COLOR, 0, 1, REGIONS(VkImageSubresourceRange, { COLOR, 0, 1, 0, 1 }),
           .color = { .int32 = { -32768, 32767, -1, 5 } } },
         { OP_CLEAR_COLOR, 0, 2, REGIONS(VkImageSubresourceRange, { COLOR, 0, 1, 0, 1 }),
           .color = { .float32 = { 0.5f, -2.0f, 65504.0f, 0.099975586f } } },
         { OP_CLEAR_COLOR, 0, 0, REGIONS(VkImageSubresourceRange, { COLOR, 1, 1, 0, 1 }),
           .color = { .uint32 = { 7, 8, 9, 10 } } },
      },
   },
   {
      .name = "clear color rgba8 uint/sint, rgba32f",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_R8G8B8A8_UINT, 6, 6, 1, 1),
                          IMG2D(VK_FORMAT_R8G8B8A8_SINT, 6, 6, 1, 1),
                          IMG1D(VK_FORMAT_R32G32B32A32_SFLOAT, 10, 2, 3) },
      .nop = 3,
      .ops = {
         { OP_CLEAR_COLOR, 0, 0, REGIONS(VkImageSubresourceRange, { COLOR, 0, 1, 0, 1 }),
           .color = { .uint32 = { 0, 255, 7, 128 } } },
         { OP_CLEAR_COLOR, 0, 1, REGIONS(VkImageSubresourceRange, { COLOR, 0, 1, 0, 1 }),
           .color = { .int32 = { -128, 127, -1, 0 } } },
         { OP_CLEAR_COLOR, 0, 2, REGIONS(VkImageSubresourceRange, { COLOR, 0, ALL, 1, ALL_LAYERS }),
           .color = { .float32 = { -1.5f, 1e30f, 0.1f, -0.0f } } },
      },
   },
   {
      .name = "clear depth/stencil: one or both aspects",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D24_UNORM_S8_UINT, 11, 9, 2, 3),
                          IMG2D(VK_FORMAT_D32_SFLOAT_S8_UINT, 8, 8, 1, 2),
                          IMG2D(VK_FORMAT_D16_UNORM, 8, 8, 2, 1) },
      .nop = 6,
      .ops = {
         { OP_CLEAR_DS, 0, 0, REGIONS(VkImageSubresourceRange, { DEPTH, 0, 1, 0, ALL_LAYERS }),
           .ds = { 0.75f, 0 } },
         { OP_CLEAR_DS, 0, 0, REGIONS(VkImageSubresourceRange, { STENCIL, 0, ALL, 1, 1 }),
           .ds = { 0.0f, 0xA5 } },
         { OP_CLEAR_DS, 0, 0, REGIONS(VkImageSubresourceRange, { DEPTH | STENCIL, 1, 1, 2, 1 }),
           .ds = { 0.125f, 0x3C7 } },
         { OP_CLEAR_DS, 0, 1, REGIONS(VkImageSubresourceRange, { DEPTH | STENCIL, 0, 1, 0, 1 },
                                       { STENCIL, 0, 1, 1, 1 }),
           .ds = { 0.375f, 17 } },
         { OP_CLEAR_DS, 0, 2, REGIONS(VkImageSubresourceRange, { DEPTH, 1, ALL, 0, 1 }),
           .ds = { 0.25f, 0 } },
         { OP_CLEAR_DS, 0, 2, REGIONS(VkImageSubresourceRange, { DEPTH, 0, 1, 0, 1 }),
           .ds = { 1.0f, 0 } },
      },
      .tol_norm = 1,
   },
   {
      .name = "clear depth d32 / stencil s8 / x8d24",
      .nimg = 3, .img = { IMG2D(VK_FORMAT_D32_SFLOAT, 5, 7, 1, 2),
                          IMG2D(VK_FORMAT_S8_UINT, 5, 7, 1, 2),
                          IMG2D(VK_FORMAT_X8_D24_UNORM_PACK32, 5, 7, 1, 1) },
      .nop = 3,
      .ops = {
         { OP_CLEAR_DS, 0, 0, REGIONS(VkImageSubresourceRange, { DEPTH, 0, 1, 1, 1 }),
           .ds = { 0.0625f, 0 } },
         { OP_CLEAR_DS, 0, 1, REGIONS(VkImageSubresourceRange, { STENCIL, 0, 1, 0, ALL_LAYERS }),
           .ds = { 0.0f, 255 } },
         { OP_CLEAR_DS, 0, 2, REGIONS(VkImageSubresourceRange, { DEPTH, 0, 1, 0, 1 }),
           .ds = { 0.25f, 0 } },
      },
      .tol_norm = 1,
   },
};

/* ---- every claimed format ----
 * Copies of every claimed format (CPU reference, and lavapipe). Clears of
 * every claimed colour format with values exact in every format (0, 1 and
 * small integers), checked by decoding them with a blit into the 32-bit RGBA
 * format of the format's class (the CPU reference knows which components a
 * format has, and the defaults 0, 0, 0, 1 of the others) and byte for byte
 * against lavapipe. Nearest blits of random texels into that RGBA format
 * (decoding; lavapipe is the reference) and of components 0 and 1 back into
 * the format and out again (encoding; CPU reference). Same-format
 * depth/stencil blits (CPU reference). */

/* Which of R, G, B, A (bits 0..3) an uncompressed colour format has. */
static unsigned
color_components(VkFormat f)
{
   if (f == VK_FORMAT_R4G4_UNORM_PACK8 || (f >= VK_FORMAT_R8G8_UNORM && f <= VK_FORMAT_R8G8_SRGB) ||
       (f >= VK_FORMAT_R16G16_UNORM && f <= VK_FORMAT_R16G16_SFLOAT) ||
       (f >= VK_FORMAT_R32G32_UINT && f <= VK_FORMAT_R32G32_SFLOAT) ||
       (f >= VK_FORMAT_R64G64_UINT && f <= VK_FORMAT_R64G64_SFLOAT))
      return 0x3;
   if ((f >= VK_FORMAT_R8_UNORM && f <= VK_FORMAT_R8_SRGB) ||
       (f >= VK_FORMAT_R16_UNORM && f <= VK_FORMAT_R16_SFLOAT) ||
       (f >= VK_FORMAT_R32_UINT && f <= VK_FORMAT_R32_SFLOAT) ||
       (f >= VK_FORMAT_R64_UINT && f <= VK_FORMAT_R64_SFLOAT))
      return 0x1;
   if (f == VK_FORMAT_R5G6B5_UNORM_PACK16 || f == VK_FORMAT_B5G6R5_UNORM_PACK16 ||
       (f >= VK_FORMAT_R8G8B8_UNORM && f <= VK_FORMAT_B8G8R8_SRGB) ||
       (f >= VK_FORMAT_R16G16B16_UNORM && f <= VK_FORMAT_R16G16B16_SFLOAT) ||
       (f >= VK_FORMAT_R32G32B32_UINT && f <= VK_FORMAT_R32G32B32_SFLOAT) ||
       (f >= VK_FORMAT_R64G64B64_UINT && f <= VK_FORMAT_R64G64B64_SFLOAT) ||
       f == VK_FORMAT_B10G11R11_UFLOAT_PACK32 || f == VK_FORMAT_E5B9G9R9_UFLOAT_PACK32)
      return 0x7;
   return 0xf;
}

static bool
is_srgb(VkFormat f)
{
   return f == VK_FORMAT_R8_SRGB || f == VK_FORMAT_R8G8_SRGB || f == VK_FORMAT_R8G8B8_SRGB ||
          f == VK_FORMAT_B8G8R8_SRGB || f == VK_FORMAT_R8G8B8A8_SRGB ||
          f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_A8B8G8R8_SRGB_PACK32;
}

static bool
is_64bit(VkFormat f)
{
   return f >= VK_FORMAT_R64_UINT && f <= VK_FORMAT_R64G64B64A64_SFLOAT;
}

/* The 32-bit RGBA format a format's class decodes into. */
static VkFormat
wide_format(VkFormat f)
{
   const enum tclass cl = color_class(f);
   return cl == C_UINT ? VK_FORMAT_R32G32B32A32_UINT
          : cl == C_SINT ? VK_FORMAT_R32G32B32A32_SINT : VK_FORMAT_R32G32B32A32_SFLOAT;
}

/* RGBA of `v` as a texel of wide_format(f) after going through format f:
 * components f lacks read as 0, 0, 0, 1. */
static void
decoded_texel(VkFormat f, const VkClearColorValue *v, uint8_t out[16])
{
   const unsigned comps = color_components(f);
   const bool fl = color_class(f) == C_FLOAT;
   for (unsigned c = 0; c < 4; c++) {
      uint32_t bits = v->uint32[c];
      if (!(comps & (1u << c))) {
         const float one = 1.0f;
         bits = c < 3 ? 0 : (fl ? 0 : 1);
         if (c == 3 && fl)
            memcpy(&bits, &one, 4);
      }
      memcpy(out + 4 * c, &bits, 4);
   }
}

/* R64 texels of a clear value, as the spec's VkClearColorValue defines them
 * for 64-bit components: elements 0-1 are R as one 64-bit value (the same
 * bits for uint, int and double), elements 2-3 G; B and A, which the union
 * does not reach, Shale writes 0. dEQP-VK.api.image_clearing.core.
 * clear_color_image.*.r64*_{uint,sint}_* check R and G. */
static void
r64_texel(VkFormat f, const VkClearColorValue *v, uint8_t *out)
{
   const unsigned n = ref_color_texel_size(f);
   memset(out, 0, n);
   memcpy(out, v->uint32, n < 16 ? n : 16);
}

static void
fill_model(struct model *m, uint32_t layer, const uint8_t *texel)
{
   const VkExtent3D e = lvl_extent(&m->d, 0);
   for (uint32_t y = 0; y < e.height; y++)
      for (uint32_t x = 0; x < e.width; x++)
         memcpy(mtex(m, 0, layer, (int)x, (int)y, 0), texel, m->ts);
}

/* Reference of the clear sweep: image 0 (R64 formats) or image 1 (the
 * decoded layers). */
static void
ref_sweep_clear(const struct scenario *sc, struct state *ref)
{
   const VkFormat f = sc->img[0].format;
   for (uint32_t l = 0; l < 2; l++) {
      uint8_t texel[32];
      if (is_64bit(f)) {
         r64_texel(f, &sc->ops[l].color, texel);
         fill_model(&ref->img[0][0], l, texel);
      } else {
         decoded_texel(f, &sc->ops[l].color, texel);
         fill_model(&ref->img[1][0], l, texel);
      }
   }
}

/* Reference of the blit sweep: image 3 is image 2 (components 0 and 1)
 * after the trip through the format. */
static void
ref_sweep_blit(const struct scenario *sc, struct state *ref)
{
   const VkFormat f = sc->img[0].format;
   const struct model *in = &ref->img[2][0];
   struct model *out = &ref->img[3][0];
   for (size_t i = 0; i * 16 < in->size; i++) {
      VkClearColorValue v;
      memcpy(&v, in->data + i * 16, 16);
      decoded_texel(f, &v, out->data + i * 16);
   }
}

static void
sweep_format(VkFormat f, VkFormatFeatureFlags feats)
{
   char name[96];
   const VkImageAspectFlags aspects = format_aspects(f);
   const bool ds = aspects != COLOR;

   /* Copies: level 0 of layer 0 into level 1 of layer 1, then a read-back
    * with a row length, one region per aspect. */
   {
      VkImageCopy copy = {
         { aspects, 0, 0, 1 }, { 2, 1, 0 }, { aspects, 1, 1, 1 }, { 0, 1, 0 }, { 4, 2, 1 },
      };
      VkBufferImageCopy rb[2];
      uint32_t nrb = 0;
      size_t off = 4;
      for (VkImageAspectFlags a = 1; a <= STENCIL; a <<= 1) {
         if (!(aspects & a))
            continue;
         const uint32_t ts = aspect_texel_size(f, a);
         off = align_up(off, 4 * ts);
         rb[nrb++] = (VkBufferImageCopy) { off, 11, 0, { a, 0, 0, 2 }, { 1, 2, 0 }, { 8, 4, 1 } };
         off += 2 * 4 * 11 * ts;   /* layers * rows * row length */
      }
      struct scenario sc = {
         .name = name, .nimg = 1, .img = { IMG2D(f, 9, 7, 2, 2) },
         .nbuf = 1, .buf = { { off + 16 } }, .nop = 2,
         .ops = { { OP_COPY, 0, 0, .n = 1, .regions = &copy },
                  { OP_I2B, 0, 0, .n = nrb, .regions = rb } },
      };
      snprintf(name, sizeof(name), "sweep copy format %d", f);
      run_scenario(&sc);
   }

   /* Depth/stencil: a same-format blit, nearest, 7:13 and 5:9. */
   if (ds) {
      if (!(feats & VK_FORMAT_FEATURE_BLIT_SRC_BIT))
         return;
      VkImageBlit b = { { aspects, 0, 0, 1 }, { { 0, 0, 0 }, { 7, 5, 1 } },
                        { aspects, 0, 1, 1 }, { { 0, 0, 0 }, { 13, 9, 1 } } };
      struct scenario sc = {
         .name = name, .nimg = 1, .img = { IMG2D(f, 13, 9, 1, 2) }, .nop = 1,
         .ops = { { OP_BLIT, 0, 0, .n = 1, .regions = &b, .filter = VK_FILTER_NEAREST } },
         /* lavapipe blits UNORM depth through float, which may round a D24
          * value to its neighbour (float -> normalized picks either). */
         .lvp_norm = 1,
      };
      snprintf(name, sizeof(name), "sweep blit format %d", f);
      run_scenario(&sc);
      return;
   }

   const enum tclass cl = color_class(f);
   const VkFormat wide = wide_format(f);
   const bool blit_src = feats & VK_FORMAT_FEATURE_BLIT_SRC_BIT;
   const bool blit_dst = feats & VK_FORMAT_FEATURE_BLIT_DST_BIT;
   /* lavapipe decodes sRGB and channels narrower than 8 bits approximately. */
   const double lvp_approx = (is_srgb(f) || f <= VK_FORMAT_A1R5G5B5_UNORM_PACK16) ? 1.0 / 255 : 0;

   /* Clears of two layers, decoded by a blit when the format has one. */
   {
      VkImageSubresourceRange r0 = { COLOR, 0, 1, 0, 1 }, r1 = { COLOR, 0, 1, 1, 1 };
      VkImageBlit dec = { { COLOR, 0, 0, 2 }, { { 0, 0, 0 }, { 5, 3, 1 } },
                          { COLOR, 0, 0, 2 }, { { 0, 0, 0 }, { 5, 3, 1 } } };
      VkClearColorValue v0, v1;
      if (cl == C_FLOAT) {
         v0 = (VkClearColorValue) { .float32 = { 1.0f, 0.0f, 0.0f, 1.0f } };
         v1 = (VkClearColorValue) { .float32 = { 0.0f, 1.0f, 1.0f, 0.0f } };
      } else if (cl == C_UINT) {
         v0 = (VkClearColorValue) { .uint32 = { 1, 0, 3, 1 } };
         v1 = (VkClearColorValue) { .uint32 = { 0, 2, 1, 0 } };
      } else {
         v0 = (VkClearColorValue) { .int32 = { -1, 1, 0, -2 } };
         v1 = (VkClearColorValue) { .int32 = { 1, -2, -1, 1 } };
      }
      if (is_64bit(f)) {   /* dEQP's values: R = 0xFFFFFFFF7FFFFFFF, G = 0xFFFFFFFF7FFFFFF7 */
         v0 = (VkClearColorValue) { .uint32 = { 0x7fffffffu, 0xffffffffu, 0x7ffffff7u, 0xffffffffu } };
         v1 = (VkClearColorValue) { .uint32 = { 3, 0x80000000u, 0xfffffffeu, 1 } };
      }
      struct scenario sc = {
         .name = name, .nimg = blit_src ? 2 : 1,
         .img = { IMG2D(f, 5, 3, 1, 2), IMG2D(wide, 5, 3, 1, 2) },
         .nop = blit_src ? 3 : 2,
         .ops = { { OP_CLEAR_COLOR, 0, 0, .n = 1, .regions = &r0, .color = v0 },
                  { OP_CLEAR_COLOR, 0, 0, .n = 1, .regions = &r1, .color = v1 },
                  { OP_BLIT, 0, 1, .n = 1, .regions = &dec, .filter = VK_FILTER_NEAREST } },
         .ref_fn = ref_sweep_clear,
         .ref_images = is_64bit(f) ? 1 : (blit_src ? 2 : 0),
         .lvp_float_abs = lvp_approx,
      };
      snprintf(name, sizeof(name), "sweep clear format %d", f);
      run_scenario(&sc);
   }

   /* Blits: random texels decoded at 7:13 and 5:9 (lavapipe reference);
    * components 0 and 1 encoded and decoded again (CPU reference). */
   if (!blit_src)
      return;
   VkImageBlit dec = { { COLOR, 0, 0, 1 }, { { 0, 0, 0 }, { 7, 5, 1 } },
                       { COLOR, 0, 0, 1 }, { { 0, 0, 0 }, { 13, 9, 1 } } };
   VkImageBlit same = { { COLOR, 0, 0, 1 }, { { 0, 0, 0 }, { 8, 6, 1 } },
                        { COLOR, 0, 0, 1 }, { { 0, 0, 0 }, { 8, 6, 1 } } };
   struct scenario sc = {
      .name = name, .nimg = blit_dst ? 4 : 2,
      .img = { IMG2D(f, 8, 6, 1, 1), IMG2D(wide, 13, 9, 1, 1), IMG2D(wide, 8, 6, 1, 1),
               IMG2D(wide, 8, 6, 1, 1) },
      .nop = blit_dst ? 3 : 1,
      .ops = { { OP_BLIT, 0, 1, .n = 1, .regions = &dec, .filter = VK_FILTER_NEAREST },
               { OP_BLIT, 2, 0, .n = 1, .regions = &same, .filter = VK_FILTER_NEAREST },
               { OP_BLIT, 0, 3, .n = 1, .regions = &same, .filter = VK_FILTER_NEAREST } },
      .tol_float = 4,   /* k / (2^b - 1) and sRGB decoding in float */
      .lvp_float_abs = lvp_approx,
      .fill01 = 1u << 2,
      .ref_fn = ref_sweep_blit,
      .ref_images = blit_dst ? 1u << 3 : 0,
   };
   snprintf(name, sizeof(name), "sweep blit format %d", f);
   run_scenario(&sc);
}

static bool
is_scaled(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_R8_USCALED: case VK_FORMAT_R8_SSCALED:
   case VK_FORMAT_R8G8_USCALED: case VK_FORMAT_R8G8_SSCALED:
   case VK_FORMAT_R8G8B8_USCALED: case VK_FORMAT_R8G8B8_SSCALED:
   case VK_FORMAT_B8G8R8_USCALED: case VK_FORMAT_B8G8R8_SSCALED:
   case VK_FORMAT_R8G8B8A8_USCALED: case VK_FORMAT_R8G8B8A8_SSCALED:
   case VK_FORMAT_B8G8R8A8_USCALED: case VK_FORMAT_B8G8R8A8_SSCALED:
   case VK_FORMAT_A8B8G8R8_USCALED_PACK32: case VK_FORMAT_A8B8G8R8_SSCALED_PACK32:
   case VK_FORMAT_A2R10G10B10_USCALED_PACK32: case VK_FORMAT_A2R10G10B10_SSCALED_PACK32:
   case VK_FORMAT_A2B10G10R10_USCALED_PACK32: case VK_FORMAT_A2B10G10R10_SSCALED_PACK32:
   case VK_FORMAT_R16_USCALED: case VK_FORMAT_R16_SSCALED:
   case VK_FORMAT_R16G16_USCALED: case VK_FORMAT_R16G16_SSCALED:
   case VK_FORMAT_R16G16B16_USCALED: case VK_FORMAT_R16G16B16_SSCALED:
   case VK_FORMAT_R16G16B16A16_USCALED: case VK_FORMAT_R16G16B16A16_SSCALED:
      return true;
   default:
      return false;
   }
}

static void
sweep_formats(void)
{
   unsigned n = 0;
   sweep_quiet = true;
   sweep_no_lvp = 0;
   for (int fi = VK_FORMAT_R4G4_UNORM_PACK8; fi <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK; fi++) {
      const VkFormat f = (VkFormat)fi;
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(devs[DEV_SHALE].t.pdev, f, &fp);
      if (!fp.optimalTilingFeatures)
         continue;
      /* USCALED / SSCALED: no image features. The spec converts their clear
       * colours (float32) and blits through float, while dEQP reads both as
       * integers (its clear values are uint32/int32, and it fails any blit
       * between them and UNORM/float formats), so no implementation passes
       * dEQP-VK.api.image_clearing.core.clear_color_image.*.r8_uscaled_* (and
       * every other scaled format) or api.copy_and_blit.core.blit_image.
       * all_formats.color.*.*_uscaled.* / *_sscaled.* while claiming them;
       * Vulkan requires none of them (lavapipe claims none either). */
      CHECK(!is_scaled(f), "scaled format %d claims image features %#x", fi,
            fp.optimalTilingFeatures);
      const VkImageAspectFlags a = format_aspects(f);
      CHECK(a != COLOR || ref_color_texel_size(f), "format %d claimed but unknown to the test", fi);
      if (a == COLOR && !ref_color_texel_size(f))
         continue;
      sweep_format(f, fp.optimalTilingFeatures);
      n++;
   }
   sweep_quiet = false;
   fprintf(stderr, "format sweep: %u formats; %u of its scenarios not run on lavapipe (formats "
           "or features it lacks: those rely on the CPU reference alone)\n", n, sweep_no_lvp);
}

static bool
dev_init(struct dev *d, enum vkt_driver driver, bool copy2, const char *name)
{
   memset(d, 0, sizeof(*d));
   d->name = name;
   d->copy2 = copy2;
   const char *exts[] = { VK_KHR_COPY_COMMANDS_2_EXTENSION_NAME };
   const char *iexts[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   struct vkt_options o = { .driver = driver };
   if (copy2) {   /* the extension requires get_physical_device_properties2 */
      o.device_extensions = exts;
      o.device_extension_count = 1;
      o.instance_extensions = iexts;
      o.instance_extension_count = 1;
   }
   if (!vkt_init(&d->t, &o))
      return false;
   if (copy2) {
      d->CopyImage2 =
         (PFN_vkCmdCopyImage2KHR)vkGetDeviceProcAddr(d->t.device, "vkCmdCopyImage2KHR");
      d->CopyBufferToImage2 = (PFN_vkCmdCopyBufferToImage2KHR)vkGetDeviceProcAddr(
         d->t.device, "vkCmdCopyBufferToImage2KHR");
      d->CopyImageToBuffer2 = (PFN_vkCmdCopyImageToBuffer2KHR)vkGetDeviceProcAddr(
         d->t.device, "vkCmdCopyImageToBuffer2KHR");
      d->BlitImage2 =
         (PFN_vkCmdBlitImage2KHR)vkGetDeviceProcAddr(d->t.device, "vkCmdBlitImage2KHR");
      CHECK(d->CopyImage2 && d->CopyBufferToImage2 && d->CopyImageToBuffer2 && d->BlitImage2,
            "%s: copy_commands2 entry points missing", name);
      if (!d->CopyImage2 || !d->CopyBufferToImage2 || !d->CopyImageToBuffer2 || !d->BlitImage2) {
         vkt_finish(&d->t);
         return false;
      }
   }
   d->ok = true;
   return true;
}

static bool
has_device_extension(VkPhysicalDevice pdev, const char *name)
{
   uint32_t n = 0;
   vkEnumerateDeviceExtensionProperties(pdev, NULL, &n, NULL);
   VkExtensionProperties props[256];
   n = n > 256 ? 256 : n;
   vkEnumerateDeviceExtensionProperties(pdev, NULL, &n, props);
   for (uint32_t i = 0; i < n; i++)
      if (!strcmp(props[i].extensionName, name))
         return true;
   return false;
}

int
main(void)
{
   if (!dev_init(&devs[DEV_SHALE], VKT_SHALE, false, "shale")) {
      CHECK(0, "shale device not available");
      return check_finish();
   }
   if (!dev_init(&devs[DEV_LVP], VKT_LAVAPIPE, false, "lavapipe"))
      fprintf(stderr, "note: lavapipe not available, no cross-driver comparison\n");
   /* The *2 commands, on a second Shale device, once the extension is claimed. */
   if (has_device_extension(devs[DEV_SHALE].t.pdev, VK_KHR_COPY_COMMANDS_2_EXTENSION_NAME))
      dev_init(&devs[DEV_SHALE_COPY2], VKT_SHALE, true, "shale-copy2");
   else
      fprintf(stderr, "note: VK_KHR_copy_commands2 not exposed: *2 commands not tested\n");

   for (unsigned i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
      run_scenario(&scenarios[i]);
   sweep_formats();
   fprintf(stderr, "%u scenarios\n", (unsigned)(sizeof(scenarios) / sizeof(scenarios[0])));

   for (int i = 0; i < NDEV; i++)
      if (devs[i].ok)
         vkt_finish(&devs[i].t);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
