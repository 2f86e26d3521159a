/* Texture sampling in compute shaders (explicit LOD and gradients, offsets,
 * fetches, gathers, depth comparison, queries) on Shale and lavapipe, each
 * checked against a C reference sampler written here from the spec's
 * "Image Operations" chapter, independent of the driver's sampler. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sampling_common.h"
#include "vkt.h"

#include "smp_1d_spv.h"
#include "smp_1da_spv.h"
#include "smp_1dun_spv.h"
#include "smp_2d_spv.h"
#include "smp_2da_spv.h"
#include "smp_2das_spv.h"
#include "smp_2dagx_spv.h"
#include "smp_2dau_spv.h"
#include "smp_2dgx_spv.h"
#include "smp_2di_spv.h"
#include "smp_2ds_spv.h"
#include "smp_2dsgx_spv.h"
#include "smp_2du_spv.h"
#include "smp_2dun_spv.h"
#include "smp_3d_spv.h"
#include "smp_cube_spv.h"
#include "smp_cubea_spv.h"
#include "smp_cubeas_spv.h"
#include "smp_cubes_spv.h"

/* ------------------------------------------------------------------------ */
/* Formats, decoded from the spec's format definitions                       */
/* ------------------------------------------------------------------------ */

enum fkind { K_UNORM, K_SNORM, K_UINT, K_SINT, K_SFLOAT, K_SRGB, K_UFLOAT, K_E5, K_DEPTH, K_STENCIL };
enum cls { C_FLOAT, C_SINT, C_UINT };

/* Channel c (R, G, B, A) is bits[c] wide at bit off[c] of the little-endian
 * texel (bytes 0..n-1; 32-bit channels at byte offsets). */
struct tfmt {
   VkFormat format;
   const char *name;
   uint8_t bytes;
   uint8_t kind;
   uint8_t bits[4];
   uint8_t off[4];
};

#define F(f, b, k, r, g, bl, a, ro, go, bo, ao) \
   { VK_FORMAT_##f, #f, b, k, { r, g, bl, a }, { ro, go, bo, ao } }
#define F8(n, b, nc, ro, go, bo, ao)                                                        \
   F(n##_UNORM, b, K_UNORM, 8, nc > 1 ? 8 : 0, nc > 2 ? 8 : 0, nc > 3 ? 8 : 0, ro, go, bo, ao), \
   F(n##_SNORM, b, K_SNORM, 8, nc > 1 ? 8 : 0, nc > 2 ? 8 : 0, nc > 3 ? 8 : 0, ro, go, bo, ao), \
   F(n##_UINT, b, K_UINT, 8, nc > 1 ? 8 : 0, nc > 2 ? 8 : 0, nc > 3 ? 8 : 0, ro, go, bo, ao),   \
   F(n##_SINT, b, K_SINT, 8, nc > 1 ? 8 : 0, nc > 2 ? 8 : 0, nc > 3 ? 8 : 0, ro, go, bo, ao)
#define F16(n, nc)                                                                          \
   F(n##_UNORM, 2 * nc, K_UNORM, 16, nc > 1 ? 16 : 0, nc > 2 ? 16 : 0, nc > 3 ? 16 : 0, 0, 16, 32, 48), \
   F(n##_SNORM, 2 * nc, K_SNORM, 16, nc > 1 ? 16 : 0, nc > 2 ? 16 : 0, nc > 3 ? 16 : 0, 0, 16, 32, 48), \
   F(n##_UINT, 2 * nc, K_UINT, 16, nc > 1 ? 16 : 0, nc > 2 ? 16 : 0, nc > 3 ? 16 : 0, 0, 16, 32, 48),   \
   F(n##_SINT, 2 * nc, K_SINT, 16, nc > 1 ? 16 : 0, nc > 2 ? 16 : 0, nc > 3 ? 16 : 0, 0, 16, 32, 48),   \
   F(n##_SFLOAT, 2 * nc, K_SFLOAT, 16, nc > 1 ? 16 : 0, nc > 2 ? 16 : 0, nc > 3 ? 16 : 0, 0, 16, 32, 48)
#define F32(n, nc)                                                                          \
   F(n##_UINT, 4 * nc, K_UINT, 32, nc > 1 ? 32 : 0, nc > 2 ? 32 : 0, nc > 3 ? 32 : 0, 0, 32, 64, 96),   \
   F(n##_SINT, 4 * nc, K_SINT, 32, nc > 1 ? 32 : 0, nc > 2 ? 32 : 0, nc > 3 ? 32 : 0, 0, 32, 64, 96),   \
   F(n##_SFLOAT, 4 * nc, K_SFLOAT, 32, nc > 1 ? 32 : 0, nc > 2 ? 32 : 0, nc > 3 ? 32 : 0, 0, 32, 64, 96)

/* Every format Shale claims SAMPLED_IMAGE on (the sweep samples each). */
static const struct tfmt tfmts[] = {
   /* Packed formats: the first-named component in the most significant bits. */
   F(B4G4R4A4_UNORM_PACK16, 2, K_UNORM, 4, 4, 4, 4, 4, 8, 12, 0),
   F(R5G6B5_UNORM_PACK16, 2, K_UNORM, 5, 6, 5, 0, 11, 5, 0, 0),
   F(B5G6R5_UNORM_PACK16, 2, K_UNORM, 5, 6, 5, 0, 0, 5, 11, 0),
   F(R5G5B5A1_UNORM_PACK16, 2, K_UNORM, 5, 5, 5, 1, 11, 6, 1, 0),
   F(B5G5R5A1_UNORM_PACK16, 2, K_UNORM, 5, 5, 5, 1, 1, 6, 11, 0),
   F(A1R5G5B5_UNORM_PACK16, 2, K_UNORM, 5, 5, 5, 1, 10, 5, 0, 15),
   F8(R8, 1, 1, 0, 0, 0, 0),
   F8(R8G8, 2, 2, 0, 8, 0, 0),
   F8(R8G8B8A8, 4, 4, 0, 8, 16, 24),
   F(R8G8B8A8_SRGB, 4, K_SRGB, 8, 8, 8, 8, 0, 8, 16, 24),
   F8(B8G8R8A8, 4, 4, 16, 8, 0, 24),
   F(B8G8R8A8_SRGB, 4, K_SRGB, 8, 8, 8, 8, 16, 8, 0, 24),
   F(A8B8G8R8_UNORM_PACK32, 4, K_UNORM, 8, 8, 8, 8, 0, 8, 16, 24),
   F(A8B8G8R8_SNORM_PACK32, 4, K_SNORM, 8, 8, 8, 8, 0, 8, 16, 24),
   F(A8B8G8R8_UINT_PACK32, 4, K_UINT, 8, 8, 8, 8, 0, 8, 16, 24),
   F(A8B8G8R8_SINT_PACK32, 4, K_SINT, 8, 8, 8, 8, 0, 8, 16, 24),
   F(A8B8G8R8_SRGB_PACK32, 4, K_SRGB, 8, 8, 8, 8, 0, 8, 16, 24),
   F(A2R10G10B10_UNORM_PACK32, 4, K_UNORM, 10, 10, 10, 2, 20, 10, 0, 30),
   F(A2R10G10B10_SNORM_PACK32, 4, K_SNORM, 10, 10, 10, 2, 20, 10, 0, 30),
   F(A2R10G10B10_UINT_PACK32, 4, K_UINT, 10, 10, 10, 2, 20, 10, 0, 30),
   F(A2B10G10R10_UNORM_PACK32, 4, K_UNORM, 10, 10, 10, 2, 0, 10, 20, 30),
   F(A2B10G10R10_SNORM_PACK32, 4, K_SNORM, 10, 10, 10, 2, 0, 10, 20, 30),
   F(A2B10G10R10_UINT_PACK32, 4, K_UINT, 10, 10, 10, 2, 0, 10, 20, 30),
   F16(R16, 1),
   F16(R16G16, 2),
   F16(R16G16B16A16, 4),
   F32(R32, 1),
   F32(R32G32, 2),
   F32(R32G32B32, 3),
   F32(R32G32B32A32, 4),
   F(B10G11R11_UFLOAT_PACK32, 4, K_UFLOAT, 11, 11, 10, 0, 0, 11, 22, 0),
   F(E5B9G9R9_UFLOAT_PACK32, 4, K_E5, 9, 9, 9, 0, 0, 9, 18, 0),
   /* Depth: bits of the depth value; stencil: 8. bytes: image texel size. */
   F(D16_UNORM, 2, K_DEPTH, 16, 0, 0, 0, 0, 0, 0, 0),
   F(X8_D24_UNORM_PACK32, 4, K_DEPTH, 24, 0, 0, 0, 0, 0, 0, 0),
   F(D32_SFLOAT, 4, K_DEPTH, 32, 0, 0, 0, 0, 0, 0, 0),
   F(S8_UINT, 1, K_STENCIL, 8, 0, 0, 0, 0, 0, 0, 0),
   F(D24_UNORM_S8_UINT, 4, K_DEPTH, 24, 0, 0, 0, 0, 0, 0, 0),
   F(D32_SFLOAT_S8_UINT, 8, K_DEPTH, 32, 0, 0, 0, 0, 0, 0, 0),
};
#define NTFMTS (sizeof(tfmts) / sizeof(tfmts[0]))

static const struct tfmt *
tfmt(VkFormat f)
{
   for (unsigned i = 0; i < NTFMTS; i++)
      if (tfmts[i].format == f)
         return &tfmts[i];
   return NULL;
}

static bool
has_stencil(VkFormat f)
{
   return f == VK_FORMAT_S8_UINT || f == VK_FORMAT_D24_UNORM_S8_UINT ||
          f == VK_FORMAT_D32_SFLOAT_S8_UINT;
}

static bool
has_depth(VkFormat f)
{
   return tfmt(f)->kind == K_DEPTH;
}

static unsigned
nchannels(const struct tfmt *f)
{
   unsigned n = 0;
   for (int c = 0; c < 4; c++)
      n += f->bits[c] != 0;
   return n;
}

/* ---- scalar decoders ---- */

static double
half_value(uint32_t h)
{
   int e = (h >> 10) & 31, m = h & 1023;
   double v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp(m / 1024.0, -14);
   return h & 0x8000 ? -v : v;
}

/* Unsigned float with a 5-bit exponent and mb mantissa bits (11/10-bit). */
static double
ufloat_value(uint32_t v, unsigned mb)
{
   unsigned e = v >> mb, m = v & ((1u << mb) - 1);
   return e ? ldexp(1.0 + m / (double)(1u << mb), (int)e - 15) : ldexp(m / (double)(1u << mb), -14);
}

static double
srgb_eotf(double c)
{
   return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static uint64_t
field(const uint8_t *t, unsigned off, unsigned bits)
{
   uint64_t v = 0;
   for (unsigned b = 0; b < bits; b++)
      v |= (uint64_t)((t[(off + b) / 8] >> ((off + b) % 8)) & 1) << b;
   return v;
}

/* A colour texel's (R, G, B, A) after conversion and component
 * substitution; integers as exact doubles. */
static void
decode_color(const struct tfmt *f, const uint8_t *t, double out[4])
{
   if (f->kind == K_E5) {
      uint32_t w = (uint32_t)field(t, 0, 32);
      int e = (int)(w >> 27) - 15 - 9;
      for (int c = 0; c < 3; c++)
         out[c] = ldexp((double)((w >> (9 * c)) & 511), e);
      out[3] = 1.0;
      return;
   }
   for (int c = 0; c < 4; c++) {
      unsigned b = f->bits[c];
      if (!b) {
         out[c] = c == 3 ? 1.0 : 0.0;
         continue;
      }
      uint64_t raw = field(t, f->off[c], b);
      int64_t sraw = raw & (1ull << (b - 1)) ? (int64_t)raw - (int64_t)(1ull << b) : (int64_t)raw;
      switch (f->kind) {
      case K_UNORM: out[c] = raw / (double)((1ull << b) - 1); break;
      case K_SRGB: out[c] = c < 3 ? srgb_eotf(raw / 255.0) : raw / 255.0; break;
      case K_SNORM: out[c] = fmax(sraw / (double)((1ull << (b - 1)) - 1), -1.0); break;
      case K_UINT: out[c] = (double)raw; break;
      case K_SINT: out[c] = (double)sraw; break;
      case K_UFLOAT: out[c] = ufloat_value((uint32_t)raw, b - 5); break;
      default: {
         if (b == 16) {
            out[c] = half_value((uint32_t)raw);
         } else {
            uint32_t u = (uint32_t)raw;
            float fl;
            memcpy(&fl, &u, 4);
            out[c] = fl;
         }
         break;
      }
      }
   }
}

static enum cls
fmt_class(const struct tfmt *f, bool stencil)
{
   if (stencil || f->kind == K_UINT || f->kind == K_STENCIL)
      return C_UINT;
   return f->kind == K_SINT ? C_SINT : C_FLOAT;
}

/* One unit in the last place of the format's channels, for tolerances. */
static double
fmt_unit(const struct tfmt *f)
{
   switch (f->kind) {
   case K_UNORM:
   case K_SNORM:
   case K_SRGB: {
      unsigned b = 32;
      for (int c = 0; c < 4; c++)
         if (f->bits[c] && f->bits[c] < b)
            b = f->bits[c];
      /* Alpha of 1- and 2-bit formats: colour bits decide. */
      if (b < 4)
         b = f->bits[0];
      return 1.0 / ((1u << (f->kind == K_SNORM ? b - 1 : b)) - 1);
   }
   case K_DEPTH:
      return f->bits[0] == 32 ? 1e-6 : 1.0 / ((1u << f->bits[0]) - 1);
   case K_SFLOAT:
      return f->bits[0] == 16 ? 1.0 / 1024 : 1e-6;
   case K_UFLOAT:
      return 1.0 / 32;
   case K_E5:
      return 1.0 / 256;
   default:
      return 0.0;
   }
}

/* ------------------------------------------------------------------------ */
/* Shader variants and queries                                               */
/* ------------------------------------------------------------------------ */

/* Query ops (sample.comp's `op`). */
enum op {
   OP_LOD, OP_GRAD, OP_LOD_OFF, OP_GRAD_OFF, OP_FETCH, OP_FETCH_OFF, OP_GATHER0, OP_GATHER1,
   OP_GATHER2, OP_GATHER3, OP_GATHER_OFF, OP_SIZE, OP_SEPARATE, OP_PROJ, OP_GATHER_OFFS,
   OP_GATHER_DOFF, OP_COUNT
};
#define M(op) (1u << (op))
#define M_GATHER (M(OP_GATHER0) | M(OP_GATHER1) | M(OP_GATHER2) | M(OP_GATHER3))
#define M_BASIC (M(OP_LOD) | M(OP_GRAD) | M(OP_SIZE) | M(OP_SEPARATE))
#define M_OFFSETS (M(OP_LOD_OFF) | M(OP_GRAD_OFF) | M(OP_FETCH) | M(OP_FETCH_OFF))

struct variant {
   const char *name;
   const uint32_t *spv;
   size_t size;
   VkImageViewType vt;
   enum cls cls;
   bool shadow, unnorm, gext;
   bool sep_grad;   /* op SEPARATE samples with gradients */
   uint32_t ops;    /* the ops the shader has */
};

#define V(n, vt, cls, sh, un, gx, sg, ops) { #n, n##_spv, sizeof(n##_spv), vt, cls, sh, un, gx, sg, ops }
enum {
   V_1D, V_1DA, V_2D, V_2DI, V_2DU, V_2DA, V_2DAU, V_3D, V_CUBE, V_2DS, V_2DAS, V_CUBES, V_2DUN,
   V_1DUN, V_2DGX, V_CUBEA, V_2DAGX, V_2DSGX, V_CUBEAS, NVARIANTS
};
static const struct variant variants[NVARIANTS] = {
   V(smp_1d, VK_IMAGE_VIEW_TYPE_1D, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M(OP_PROJ)),
   V(smp_1da, VK_IMAGE_VIEW_TYPE_1D_ARRAY, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_OFFSETS),
   V(smp_2d, VK_IMAGE_VIEW_TYPE_2D, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M(OP_PROJ) | M_GATHER),
   V(smp_2di, VK_IMAGE_VIEW_TYPE_2D, C_SINT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M(OP_PROJ) | M_GATHER),
   V(smp_2du, VK_IMAGE_VIEW_TYPE_2D, C_UINT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M(OP_PROJ) | M_GATHER),
   V(smp_2da, VK_IMAGE_VIEW_TYPE_2D_ARRAY, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M_GATHER),
   V(smp_2dau, VK_IMAGE_VIEW_TYPE_2D_ARRAY, C_UINT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M_GATHER),
   V(smp_3d, VK_IMAGE_VIEW_TYPE_3D, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_OFFSETS | M(OP_PROJ)),
   V(smp_cube, VK_IMAGE_VIEW_TYPE_CUBE, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_GATHER),
   V(smp_2ds, VK_IMAGE_VIEW_TYPE_2D, C_FLOAT, 1, 0, 0, 0,
     M_BASIC | M(OP_LOD_OFF) | M(OP_GRAD_OFF) | M(OP_GATHER0) | M(OP_PROJ)),
   V(smp_2das, VK_IMAGE_VIEW_TYPE_2D_ARRAY, C_FLOAT, 1, 0, 0, 1,
     M(OP_GRAD) | M(OP_GRAD_OFF) | M(OP_GATHER0) | M(OP_SIZE) | M(OP_SEPARATE)),
   V(smp_cubes, VK_IMAGE_VIEW_TYPE_CUBE, C_FLOAT, 1, 0, 0, 1,
     M(OP_GRAD) | M(OP_GATHER0) | M(OP_SIZE) | M(OP_SEPARATE)),
   V(smp_2dun, VK_IMAGE_VIEW_TYPE_2D, C_FLOAT, 0, 1, 0, 0, M_BASIC),
   V(smp_1dun, VK_IMAGE_VIEW_TYPE_1D, C_FLOAT, 0, 1, 0, 0, M_BASIC),
   V(smp_2dgx, VK_IMAGE_VIEW_TYPE_2D, C_FLOAT, 0, 0, 1, 0,
     M_BASIC | M_GATHER | M(OP_GATHER_OFF) | M(OP_GATHER_OFFS) | M(OP_GATHER_DOFF)),
   V(smp_cubea, VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, C_FLOAT, 0, 0, 0, 0, M_BASIC | M_GATHER),
   V(smp_2dagx, VK_IMAGE_VIEW_TYPE_2D_ARRAY, C_FLOAT, 0, 0, 1, 0,
     M_BASIC | M_GATHER | M(OP_GATHER_OFF) | M(OP_GATHER_OFFS) | M(OP_GATHER_DOFF)),
   V(smp_2dsgx, VK_IMAGE_VIEW_TYPE_2D, C_FLOAT, 1, 0, 1, 0,
     M_BASIC | M(OP_LOD_OFF) | M(OP_GRAD_OFF) | M(OP_GATHER0) | M(OP_PROJ) | M(OP_GATHER_OFFS) |
        M(OP_GATHER_DOFF)),
   V(smp_cubeas, VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, C_FLOAT, 1, 0, 0, 0, M(OP_GATHER0) | M(OP_SIZE)),
};

/* sample.comp's constant offsets: every component reaches the spec's
 * minimum limits (minTexelOffset / maxTexelOffset and minTexelGatherOffset /
 * maxTexelGatherOffset: -8 and 7); the dynamic gather offsets (dx.xy) cover
 * [-8, 7]. */
#define OFF_MIN (-8)
#define OFF_MAX 7
static const int32_t off_a[3] = { 7, -8, 7 }, off_b[3] = { -8, 7, -8 };
static const int32_t gather_off[2] = { -8, 7 };
static const int32_t gather_offs[4][2] = { { -8, 7 }, { 7, -8 }, { 0, 0 }, { -3, 5 } };

/* sample.comp's Query (std430). */
struct query {
   float c[4];
   float dx[4];
   float dy[4];
   float lod;
   float dref;
   int32_t op;
   int32_t pad;
};
_Static_assert(sizeof(struct query) == 64, "std430 Query");

/* ------------------------------------------------------------------------ */
/* Cases                                                                     */
/* ------------------------------------------------------------------------ */

struct tcase {
   const char *name;
   int variant;
   VkFormat format;
   uint32_t w, h, d, levels, layers;                          /* the image (0: 1) */
   uint32_t base_level, level_count, base_layer, layer_count;  /* the view (0 counts: all) */
   VkComponentSwizzle sw[4];                                   /* 0: identity */
   bool stencil;                                               /* view the stencil aspect */
   VkFilter mag, min;
   VkSamplerMipmapMode mip;
   VkSamplerAddressMode am[3];
   float bias;
   bool clamp_lod;                                             /* else minLod 0, maxLod 1000 */
   float min_lod, max_lod;
   VkCompareOp cmp;                                            /* shadow variants */
   VkBorderColor border;
   bool immutable;                                             /* immutable samplers */
   bool copy;                                                  /* descriptors reach the set by copy */
   uint32_t ops;                                               /* 0: all the variant has */
   float lo, hi;                                               /* coordinate range (0, 0: default) */
   bool shale_only;                                            /* lavapipe lacks the feature */
};

#define MAX_CASES 256
static struct tcase cases[MAX_CASES];
static unsigned ncases;

static void
add(struct tcase c)
{
   if (ncases < MAX_CASES)
      cases[ncases++] = c;
}

/* ------------------------------------------------------------------------ */
/* Host images                                                               */
/* ------------------------------------------------------------------------ */

static uint32_t rng;

static uint32_t
rnd(void)
{
   rng = rng * 1664525u + 1013904223u;
   return rng >> 8;
}

static double
urand(double lo, double hi)
{
   return lo + (hi - lo) * (rnd() & 0xffffff) / 16777216.0;
}

static uint32_t
mini(uint32_t v, uint32_t l)
{
   v >>= l;
   return v ? v : 1;
}

/* An image's contents: decoded texels for the reference ([0] depth and
 * [1] stencil for depth/stencil formats) and the bytes uploaded. */
struct himg {
   const struct tfmt *f;
   VkImageType type;
   uint32_t w, h, d, levels, layers;
   size_t toff[16];             /* first texel of each level in tex */
   double (*tex)[4];            /* [level][layer][z][y][x] */
   uint8_t *data;               /* colour texels, or depth as copied */
   uint8_t *sdata;              /* stencil bytes */
   size_t doff[16], soff[16];   /* of each level in data / sdata */
   size_t dsize, ssize;
   uint32_t copy_bytes;         /* bytes per texel in data */
};

static size_t
tindex(const struct himg *im, uint32_t level, uint32_t layer, uint32_t x, uint32_t y, uint32_t z)
{
   uint32_t w = mini(im->w, level), h = mini(im->h, level), d = mini(im->d, level);
   return im->toff[level] + (((size_t)layer * d + z) * h + y) * w + x;
}

/* Random texel bytes the format can hold without NaN, infinity or
 * denormals (flushed by some implementations). */
static void
gen_color(const struct tfmt *f, uint8_t *t)
{
   for (unsigned b = 0; b < f->bytes; b++)
      t[b] = (uint8_t)rnd();
   if (f->kind == K_SFLOAT && f->bits[0] == 16) {
      for (int c = 0; c < 4 && f->bits[c]; c++) {
         uint16_t h = (uint16_t)((rnd() & 0x83ff) | ((3 + rnd() % 25) << 10));
         memcpy(t + 2 * c, &h, 2);
      }
   } else if (f->kind == K_SFLOAT) {
      for (int c = 0; c < 4 && f->bits[c]; c++) {
         float v = (float)urand(-8.0, 8.0);
         memcpy(t + 4 * c, &v, 4);
      }
   } else if (f->kind == K_UFLOAT) {
      uint32_t w = 0;
      for (int c = 0; c < 3; c++) {
         uint32_t mb = f->bits[c] - 5;
         w |= (((4 + rnd() % 18) << mb) | (rnd() & ((1u << mb) - 1))) << f->off[c];
      }
      memcpy(t, &w, 4);
   }
}

static void
himg_build(struct himg *im, const struct tcase *tc)
{
   const struct variant *v = &variants[tc->variant];
   memset(im, 0, sizeof(*im));
   im->f = tfmt(tc->format);
   im->w = tc->w;
   im->h = tc->h ? tc->h : 1;
   im->d = tc->d ? tc->d : 1;
   im->levels = tc->levels ? tc->levels : 1;
   im->layers = tc->layers ? tc->layers : 1;
   im->type = v->vt == VK_IMAGE_VIEW_TYPE_3D ? VK_IMAGE_TYPE_3D
              : v->vt == VK_IMAGE_VIEW_TYPE_1D || v->vt == VK_IMAGE_VIEW_TYPE_1D_ARRAY
                 ? VK_IMAGE_TYPE_1D : VK_IMAGE_TYPE_2D;
   const struct tfmt *f = im->f;
   bool ds = f->kind == K_DEPTH || f->kind == K_STENCIL;
   im->copy_bytes = !ds ? f->bytes : f->kind == K_STENCIL ? 1 : f->bits[0] == 16 ? 2 : 4;
   size_t texels = 0, dbytes = 0, sbytes = 0;
   /* Buffer offsets: multiples of the texel size and of 4. */
   size_t align = (size_t)im->copy_bytes * 4;
   for (uint32_t l = 0; l < im->levels; l++) {
      size_t n = (size_t)mini(im->w, l) * mini(im->h, l) * mini(im->d, l) * im->layers;
      im->toff[l] = texels;
      im->doff[l] = dbytes;
      im->soff[l] = sbytes;
      texels += n;
      dbytes = (dbytes + n * im->copy_bytes + align - 1) / align * align;
      sbytes = (sbytes + n + 3) / 4 * 4;
   }
   im->tex = calloc(texels, sizeof(*im->tex));
   im->data = calloc(dbytes ? dbytes : 1, 1);
   im->sdata = calloc(sbytes ? sbytes : 1, 1);
   im->dsize = dbytes;
   im->ssize = has_stencil(tc->format) ? sbytes : 0;
   for (uint32_t l = 0; l < im->levels; l++) {
      size_t n = (size_t)mini(im->w, l) * mini(im->h, l) * mini(im->d, l) * im->layers;
      for (size_t k = 0; k < n; k++) {
         double *t = im->tex[im->toff[l] + k];
         uint8_t *p = im->data + im->doff[l] + k * im->copy_bytes;
         if (!ds) {
            gen_color(f, p);
            decode_color(f, p, t);
            continue;
         }
         if (f->kind == K_DEPTH) {
            if (f->bits[0] == 16) {
               uint16_t u = (uint16_t)rnd();
               memcpy(p, &u, 2);
               t[0] = (float)(u / 65535.0);
            } else if (f->bits[0] == 24) {
               uint32_t u = rnd() & 0xffffff;
               memcpy(p, &u, 4);
               t[0] = (float)(u / 16777215.0);
            } else {
               float fl = (float)urand(0.0, 1.0);
               memcpy(p, &fl, 4);
               t[0] = fl;
            }
         }
         if (has_stencil(tc->format)) {
            uint8_t s = (uint8_t)rnd();
            im->sdata[im->soff[l] + k] = s;
            t[1] = s;
         }
      }
   }
}

static void
himg_free(struct himg *im)
{
   free(im->tex);
   free(im->data);
   free(im->sdata);
}

/* ------------------------------------------------------------------------ */
/* The reference sampler                                                     */
/* ------------------------------------------------------------------------ */

/* Results an implementation may choose differently (cube corners). */
#define R_AMBIGUOUS 1u

struct rctx {
   const struct tcase *tc;
   const struct variant *v;
   const struct himg *im;
   enum cls cls;
   bool depth, stencil, shadow, unorm_depth;
   bool cube, arrayed;
   int dims;
   uint32_t nlevels, nlayers;   /* the view's levels, and layers (cube views: cubes) */
   uint32_t vw, vh, vd;         /* the view's base level */
};

static void
rctx_init(struct rctx *rc, const struct tcase *tc, const struct himg *im)
{
   memset(rc, 0, sizeof(*rc));
   rc->tc = tc;
   rc->v = &variants[tc->variant];
   rc->im = im;
   const struct tfmt *f = im->f;
   rc->stencil = tc->stencil || f->kind == K_STENCIL;
   rc->depth = !rc->stencil && f->kind == K_DEPTH;
   rc->cls = fmt_class(f, rc->stencil);
   rc->shadow = rc->v->shadow;
   rc->unorm_depth = rc->depth && f->bits[0] != 32;
   VkImageViewType vt = rc->v->vt;
   rc->cube = vt == VK_IMAGE_VIEW_TYPE_CUBE || vt == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY;
   rc->arrayed = vt == VK_IMAGE_VIEW_TYPE_1D_ARRAY || vt == VK_IMAGE_VIEW_TYPE_2D_ARRAY ||
                 vt == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY;
   rc->dims = vt == VK_IMAGE_VIEW_TYPE_1D || vt == VK_IMAGE_VIEW_TYPE_1D_ARRAY ? 1
              : vt == VK_IMAGE_VIEW_TYPE_3D ? 3 : 2;
   rc->nlevels = tc->level_count ? tc->level_count : im->levels - tc->base_level;
   uint32_t layers = tc->layer_count ? tc->layer_count : im->layers - tc->base_layer;
   rc->nlayers = rc->cube ? layers / 6 : layers;
   rc->vw = mini(im->w, tc->base_level);
   rc->vh = mini(im->h, tc->base_level);
   rc->vd = mini(im->d, tc->base_level);
}

/* A texel of the view (level and layer relative to it; cube views: layer
 * = cube * 6 + face) after component substitution. */
static void
rread(const struct rctx *rc, uint32_t level, uint32_t layer, int64_t x, int64_t y, int64_t z,
      double out[4])
{
   const struct himg *im = rc->im;
   uint32_t il = rc->tc->base_level + level;
   uint32_t ilayer = im->type == VK_IMAGE_TYPE_3D ? 0 : rc->tc->base_layer + layer;
   const double *t = im->tex[tindex(im, il, ilayer, (uint32_t)x, (uint32_t)y,
                                    im->type == VK_IMAGE_TYPE_3D ? (uint32_t)z : 0)];
   if (rc->depth || rc->stencil) {
      out[0] = rc->depth ? t[0] : t[1];
      out[1] = out[2] = 0.0;
      out[3] = 1.0;
   } else {
      memcpy(out, t, 4 * sizeof(double));
   }
}

/* Border Replacement: the components the format has; substitution for the
 * others. */
static void
rborder(const struct rctx *rc, double out[4])
{
   VkBorderColor b = rc->tc->border;
   double rgb = b == VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE || b == VK_BORDER_COLOR_INT_OPAQUE_WHITE;
   double a = b != VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK && b != VK_BORDER_COLOR_INT_TRANSPARENT_BLACK;
   unsigned n = rc->depth || rc->stencil ? 1 : nchannels(rc->im->f);
   for (unsigned k = 0; k < 4; k++)
      out[k] = k < n ? (k < 3 ? rgb : a) : k == 3 ? 1.0 : 0.0;
}

/* Cube Map Face Selection (ties to z, then y) and s_c, t_c, |r_c|. */
static int
rface(const double d[3], double *sc, double *tc, double *ma)
{
   double ax = fabs(d[0]), ay = fabs(d[1]), az = fabs(d[2]);
   if (az >= ax && az >= ay) {
      *ma = az;
      *tc = -d[1];
      *sc = d[2] >= 0 ? d[0] : -d[0];
      return d[2] >= 0 ? 4 : 5;
   }
   if (ay >= ax) {
      *ma = ay;
      *sc = d[0];
      *tc = d[1] >= 0 ? d[2] : -d[2];
      return d[1] >= 0 ? 2 : 3;
   }
   *ma = ax;
   *tc = -d[1];
   *sc = d[0] >= 0 ? -d[2] : d[2];
   return d[0] >= 0 ? 0 : 1;
}

/* The direction of face f's point (s_c, t_c) (the table read backwards). */
static void
rface_dir(int f, double sc, double tc, double d[3])
{
   switch (f) {
   case 0: d[0] = 1; d[1] = -tc; d[2] = -sc; break;
   case 1: d[0] = -1; d[1] = -tc; d[2] = sc; break;
   case 2: d[0] = sc; d[1] = 1; d[2] = tc; break;
   case 3: d[0] = sc; d[1] = -1; d[2] = -tc; break;
   case 4: d[0] = sc; d[1] = -tc; d[2] = 1; break;
   default: d[0] = -sc; d[1] = -tc; d[2] = -1; break;
   }
}

/* Cube Map Edge Handling, geometrically: a texel past an edge is the texel
 * its centre's direction falls in on the neighbouring face; a corner texel
 * is the average of its three neighbours. */
static void
rcube(const struct rctx *rc, uint32_t level, uint32_t cube, int face, int64_t i, int64_t j,
      double out[4], unsigned *flags)
{
   int64_t n = mini(rc->vw, level);
   bool oi = i < 0 || i >= n, oj = j < 0 || j >= n;
   if (!oi && !oj) {
      rread(rc, level, cube * 6 + face, i, j, 0, out);
      return;
   }
   if (oi && oj) {
      *flags |= R_AMBIGUOUS;
      int64_t ci = i < 0 ? 0 : n - 1, cj = j < 0 ? 0 : n - 1;
      double a[4], b[4], c[4];
      rread(rc, level, cube * 6 + face, ci, cj, 0, a);
      rcube(rc, level, cube, face, i, cj, b, flags);
      rcube(rc, level, cube, face, ci, j, c, flags);
      for (int k = 0; k < 4; k++)
         out[k] = (a[k] + b[k] + c[k]) / 3.0;
      return;
   }
   double d[3], sc, tc, ma;
   rface_dir(face, 2.0 * (i + 0.5) / n - 1.0, 2.0 * (j + 0.5) / n - 1.0, d);
   int f2 = rface(d, &sc, &tc, &ma);
   int64_t i2 = (int64_t)floor((0.5 * sc / ma + 0.5) * n), j2 = (int64_t)floor((0.5 * tc / ma + 0.5) * n);
   i2 = i2 < 0 ? 0 : i2 >= n ? n - 1 : i2;
   j2 = j2 < 0 ? 0 : j2 >= n ? n - 1 : j2;
   rread(rc, level, cube * 6 + f2, i2, j2, 0, out);
}

struct rlane {
   double s, t, r;     /* normalized, or cube face coordinates */
   uint32_t layer, cube;
   int face;
   double dref;
};

static bool
rcompare(VkCompareOp op, double ref, double test)
{
   switch (op) {
   case VK_COMPARE_OP_NEVER: return false;
   case VK_COMPARE_OP_LESS: return ref < test;
   case VK_COMPARE_OP_EQUAL: return ref == test;
   case VK_COMPARE_OP_LESS_OR_EQUAL: return ref <= test;
   case VK_COMPARE_OP_GREATER: return ref > test;
   case VK_COMPARE_OP_NOT_EQUAL: return ref != test;
   case VK_COMPARE_OP_GREATER_OR_EQUAL: return ref >= test;
   default: return true;
   }
}

static void
rswizzle(const struct rctx *rc, double t[4])
{
   double in[4];
   memcpy(in, t, sizeof(in));
   for (int k = 0; k < 4; k++) {
      VkComponentSwizzle s = rc->tc->sw[k];
      if (s == VK_COMPONENT_SWIZZLE_IDENTITY)
         t[k] = in[k];
      else if (s == VK_COMPONENT_SWIZZLE_ZERO)
         t[k] = 0.0;
      else if (s == VK_COMPONENT_SWIZZLE_ONE)
         t[k] = 1.0;
      else
         t[k] = in[s - VK_COMPONENT_SWIZZLE_R];
   }
}

/* A texel through wrapping or cube edges, border replacement, depth
 * comparison and swizzle. */
static void
rtexel(const struct rctx *rc, const struct rlane *ln, uint32_t level, int64_t i, int64_t j, int64_t k,
       double out[4], unsigned *flags)
{
   if (rc->cube) {
      rcube(rc, level, ln->cube, ln->face, i, j, out, flags);
   } else {
      bool border = false;
      const VkSamplerAddressMode *am = rc->tc->am;
      int64_t x = smp_wrap(i, mini(rc->vw, level), am[0], &border);
      int64_t y = rc->dims >= 2 ? smp_wrap(j, mini(rc->vh, level), am[1], &border) : 0;
      int64_t z = rc->dims >= 3 ? smp_wrap(k, mini(rc->vd, level), am[2], &border) : ln->layer;
      if (border)
         rborder(rc, out);
      else
         rread(rc, level, rc->dims >= 3 ? 0 : (uint32_t)z, x, y, z, out);
   }
   if (rc->shadow)
      out[0] = rcompare(rc->tc->cmp, ln->dref, out[0]) ? 1.0 : 0.0;
   rswizzle(rc, out);
}

/* Texel filtering of one level at unnormalized (u, v, w). */
static void
rfilter(const struct rctx *rc, const struct rlane *ln, uint32_t level, VkFilter filter, double u,
        double v, double w, double out[4], unsigned *flags)
{
   if (filter == VK_FILTER_NEAREST) {
      int64_t i = (int64_t)floor(u), j = (int64_t)floor(v), k = (int64_t)floor(w);
      if (rc->cube) {
         int64_t n = mini(rc->vw, level);
         i = i < 0 ? 0 : i >= n ? n - 1 : i;
         j = j < 0 ? 0 : j >= n ? n - 1 : j;
      }
      rtexel(rc, ln, level, i, j, k, out, flags);
      return;
   }
   double fu = floor(u - 0.5), fv = floor(v - 0.5), fw = floor(w - 0.5);
   double a = u - 0.5 - fu, b = v - 0.5 - fv, g = w - 0.5 - fw;
   int nj = rc->dims >= 2 ? 2 : 1, nk = rc->dims >= 3 ? 2 : 1;
   for (int c = 0; c < 4; c++)
      out[c] = 0.0;
   for (int dk = 0; dk < nk; dk++)
      for (int dj = 0; dj < nj; dj++)
         for (int di = 0; di < 2; di++) {
            double wt = (di ? a : 1 - a) * (nj == 1 ? 1 : dj ? b : 1 - b) * (nk == 1 ? 1 : dk ? g : 1 - g);
            double t[4];
            rtexel(rc, ln, level, (int64_t)fu + di, (int64_t)fv + dj, (int64_t)fw + dk, t, flags);
            for (int c = 0; c < 4; c++)
               out[c] += wt * t[c];
         }
}

/* The query's coordinates as the view type reads them. */
static void
rlane_init(const struct rctx *rc, const struct query *q, struct rlane *ln, double dir[3])
{
   double c[4] = { q->c[0], q->c[1], q->c[2], q->c[3] };
   double dref = q->dref;
   if (q->op == OP_PROJ) {
      int n = rc->dims;
      for (int k = 0; k < n; k++)
         c[k] /= q->dx[3];
      dref = (float)(q->dref * q->dx[3]) / (double)q->dx[3];
   }
   memset(ln, 0, sizeof(*ln));
   ln->s = c[0];
   ln->t = rc->dims >= 2 ? c[1] : 0.0;
   ln->r = rc->dims >= 3 || rc->cube ? c[2] : 0.0;
   if (rc->arrayed) {
      double a = c[rc->cube ? 3 : rc->dims];
      double l = nearbyint(a);
      ln->layer = l <= 0 ? 0 : l >= rc->nlayers - 1 ? rc->nlayers - 1 : (uint32_t)l;
      if (rc->cube) {
         ln->cube = ln->layer;
         ln->layer = 0;
      }
   }
   if (rc->unorm_depth)
      dref = dref < 0 ? 0 : dref > 1 ? 1 : dref;
   ln->dref = dref;
   if (rc->cube) {
      dir[0] = c[0];
      dir[1] = c[1];
      dir[2] = c[2];
      double sc, tc, ma;
      ln->face = rface(dir, &sc, &tc, &ma);
      ln->s = 0.5 * sc / ma + 0.5;
      ln->t = 0.5 * tc / ma + 0.5;
      ln->r = 0.0;
   }
}

/* Scale factor and LOD from gradients (rho: length of the scaled gradient). */
static double
rlambda_grad(const struct rctx *rc, const struct query *q, const double dir[3])
{
   double d[2][3] = { { 0 } };
   int n = rc->cube ? 3 : rc->dims;
   for (int k = 0; k < n; k++) {
      d[0][k] = q->dx[k];
      d[1][k] = q->dy[k];
   }
   if (rc->cube) {
      double sc, tc, ma;
      int f = rface(dir, &sc, &tc, &ma);
      for (int e = 0; e < 2; e++) {
         double x = d[e][0], y = d[e][1], z = d[e][2], ds, dt, dr;
         /* Cube Map Derivative Selection */
         switch (f) {
         case 0: ds = -z; dt = -y; dr = x; break;
         case 1: ds = z; dt = -y; dr = -x; break;
         case 2: ds = x; dt = z; dr = y; break;
         case 3: ds = x; dt = -z; dr = -y; break;
         case 4: ds = x; dt = -y; dr = z; break;
         default: ds = -x; dt = -y; dr = -z; break;
         }
         d[e][0] = 0.5 * (ma * ds - sc * dr) / (ma * ma);
         d[e][1] = 0.5 * (ma * dt - tc * dr) / (ma * ma);
         d[e][2] = 0.0;
      }
   }
   double size[3] = { rc->vw, rc->vh, rc->vd };
   double rho = 0.0;
   for (int e = 0; e < 2; e++) {
      double sum = 0.0;
      for (int k = 0; k < 3; k++)
         sum += d[e][k] * size[k] * d[e][k] * size[k];
      rho = fmax(rho, sqrt(sum));
   }
   return log2(rho);
}

/* One evaluation of the query, its unnormalized coordinates moved by
 * pert[0..2] texels and its LOD by pert[3]. With snap > 0, a clamped LOD
 * within snap of an integer becomes that integer (the kink of linear
 * mipmapping, where the result may peak between the perturbed LODs).
 * Returns false when the spec leaves the result undefined (fetches out of
 * range). */
static bool
rsample(const struct rctx *rc, const struct query *q, const double pert[4], double snap,
        double out[4], unsigned *flags)
{
   const struct tcase *tc = rc->tc;
   int op = q->op;
   for (int k = 0; k < 4; k++)
      out[k] = 0.0;
   if (op == OP_SIZE) {
      uint32_t l = (uint32_t)q->dy[3];
      double w = mini(rc->vw, l), h = mini(rc->vh, l), d = mini(rc->vd, l);
      VkImageViewType vt = rc->v->vt;
      out[0] = w;
      out[1] = vt == VK_IMAGE_VIEW_TYPE_1D ? 0 : vt == VK_IMAGE_VIEW_TYPE_1D_ARRAY ? rc->nlayers : h;
      out[2] = vt == VK_IMAGE_VIEW_TYPE_2D_ARRAY || vt == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY ? rc->nlayers
               : vt == VK_IMAGE_VIEW_TYPE_3D ? d : 0;
      out[3] = rc->nlevels;
      return true;
   }
   if (op == OP_FETCH || op == OP_FETCH_OFF) {
      int64_t c[3] = { (int32_t)q->c[0], (int32_t)q->c[1], (int32_t)q->c[2] };
      int32_t lod = (int32_t)q->lod;
      int64_t x = c[0], y = rc->dims >= 2 ? c[1] : 0, z = rc->dims >= 3 ? c[2] : 0;
      int64_t layer = rc->arrayed ? (rc->dims == 1 ? c[1] : c[2]) : 0;
      if (op == OP_FETCH_OFF) {
         x += off_b[0];
         y += rc->dims >= 2 ? off_b[1] : 0;
         z += rc->dims >= 3 ? off_b[2] : 0;
      }
      if (lod < 0 || (uint32_t)lod >= rc->nlevels || x < 0 || x >= mini(rc->vw, lod) || y < 0 ||
          y >= mini(rc->vh, lod) || z < 0 || z >= mini(rc->vd, lod) || layer < 0 ||
          layer >= rc->nlayers)
         return false;
      rread(rc, (uint32_t)lod, (uint32_t)layer, x, y, z, out);
      rswizzle(rc, out);
      return true;
   }
   struct rlane ln;
   double dir[3];
   rlane_init(rc, q, &ln, dir);
   bool gather = (op >= OP_GATHER0 && op <= OP_GATHER_OFF) || op >= OP_GATHER_OFFS;
   if (gather) {
      double u = ln.s * rc->vw + pert[0], v = ln.t * rc->vh + pert[1];
      if (op == OP_GATHER_OFF) {
         u += gather_off[0];
         v += gather_off[1];
      } else if (op == OP_GATHER_DOFF) {
         u += (int32_t)q->dx[0];
         v += (int32_t)q->dx[1];
      }
      int64_t i0 = (int64_t)floor(u - 0.5), j0 = (int64_t)floor(v - 0.5);
      static const int corner[4][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
      int comp = rc->shadow ? 0 : op == OP_GATHER_OFF ? 1 : op == OP_GATHER_OFFS ? 2
                 : op == OP_GATHER_DOFF ? 3 : op - OP_GATHER0;
      for (int n = 0; n < 4; n++) {
         int64_t i = i0 + corner[n][0], j = j0 + corner[n][1];
         if (op == OP_GATHER_OFFS) {
            i = i0 + gather_offs[n][0];
            j = j0 + gather_offs[n][1];
         }
         double t[4];
         rtexel(rc, &ln, 0, i, j, 0, t, flags);
         out[n] = t[comp];
      }
      return true;
   }
   bool grad = op == OP_GRAD || op == OP_GRAD_OFF || (op == OP_SEPARATE && rc->v->sep_grad);
   double lambda = grad ? rlambda_grad(rc, q, dir) : q->lod;
   lambda += pert[3];
   lambda += tc->bias;
   double min_lod = tc->clamp_lod ? tc->min_lod : 0.0;
   double max_lod = tc->clamp_lod || rc->v->unnorm ? tc->max_lod : 1000.0;
   lambda = lambda < min_lod ? min_lod : lambda > max_lod ? max_lod : lambda;
   VkFilter filter = lambda <= 0 ? tc->mag : tc->min;
   double qmax = rc->nlevels - 1;
   double dl = lambda < 0 ? 0 : lambda > qmax ? qmax : lambda;
   if (snap > 0 && fabs(dl - nearbyint(dl)) <= snap)
      dl = nearbyint(dl);
   uint32_t lv[2];
   double delta = 0.0;
   int nl = 1;
   if (tc->mip == VK_SAMPLER_MIPMAP_MODE_NEAREST) {
      lv[0] = (uint32_t)(ceil(dl + 0.5) - 1);
   } else {
      lv[0] = (uint32_t)floor(dl);
      lv[1] = lv[0] + 1 < rc->nlevels ? lv[0] + 1 : lv[0];
      delta = dl - lv[0];
      nl = 2;
   }
   const int32_t *off = op == OP_LOD_OFF ? off_a : op == OP_GRAD_OFF ? off_b : NULL;
   double tau[2][4];
   for (int n = 0; n < nl; n++) {
      uint32_t d = lv[n];
      double u, v, w;
      if (rc->v->unnorm) {
         u = ln.s;
         v = ln.t;
         w = 0.0;
      } else {
         u = ln.s * mini(rc->vw, d) + (off ? off[0] : 0);
         v = ln.t * mini(rc->vh, d) + (off && rc->dims >= 2 ? off[1] : 0);
         w = ln.r * mini(rc->vd, d) + (off && rc->dims >= 3 ? off[2] : 0);
      }
      rfilter(rc, &ln, d, filter, u + pert[0], v + pert[1], w + pert[2], tau[n], flags);
   }
   for (int k = 0; k < 4; k++)
      out[k] = nl == 1 ? tau[0][k] : (1 - delta) * tau[0][k] + delta * tau[1][k];
   if (rc->shadow && !gather)
      out[1] = out[2] = out[3] = 0.0;
   return true;
}

/* ---- checking a driver's results ---- */

/* Tolerance around the reference envelope: one unit of the format's
 * precision (the spec's conversions are exact to it), and float rounding. */
static double
tolerance(const struct rctx *rc, double v)
{
   const struct tfmt *f = rc->im->f;
   double a = fabs(v);
   if (rc->shadow)
      return 1e-5;
   switch (f->kind) {
   case K_SFLOAT:
      return f->bits[0] == 16 ? 1e-4 + a / 1024 : 1e-6 + a * 1e-5;
   case K_UFLOAT:
      return 1e-4 + a / 64;
   case K_E5:
      return 1e-6 + a / 256;
   default:
      return fmt_unit(f) + a * 1e-5;
   }
}

/* Per-query flags of the test (not the reference's). */
#define Q_NO_LAVAPIPE 1u   /* gradients whose scale factor implementations may approximate */

/* Checks n results of one driver against the reference envelope: the
 * results at every combination of +-1 sub-texel step in each coordinate
 * and +-1 mipmap step in the LOD (the precision the driver reports).
 * Returns the number of mismatches. */
static unsigned
check_results(const struct tcase *tc, const struct himg *im, const struct query *qs,
              const uint8_t *qflags, unsigned n, const uint32_t *res, bool lavapipe,
              unsigned subtexel_bits, unsigned mip_bits, const char *drv)
{
   struct rctx rc;
   rctx_init(&rc, tc, im);
   double eps = ldexp(1.0, -(int)subtexel_bits), elod = ldexp(1.0, -(int)mip_bits);
   unsigned bad = 0;
   for (unsigned i = 0; i < n; i++) {
      const struct query *q = &qs[i];
      if (lavapipe && (qflags[i] & Q_NO_LAVAPIPE))
         continue;
      bool gather = (q->op >= OP_GATHER0 && q->op <= OP_GATHER_OFF) || q->op >= OP_GATHER_OFFS;
      bool exact = q->op == OP_SIZE || q->op == OP_FETCH || q->op == OP_FETCH_OFF;
      int pd = exact ? 0 : gather || rc.cube ? 2 : rc.dims;
      bool plod = !exact && !gather;
      double lo[4], hi[4];
      unsigned flags = 0;
      bool defined = true, first = true;
      /* Coordinates at -1, 0, +1 sub-texel steps; the LOD at -1, 0, +1
       * mipmap steps, and snapped to an integer within a step. */
      int combos = 1;
      for (int k = 0; k < pd; k++)
         combos *= 3;
      if (plod)
         combos *= 4;
      for (int cmb = 0; cmb < combos && defined; cmb++) {
         double pert[4] = { 0, 0, 0, 0 };
         int c = cmb;
         for (int k = 0; k < pd; k++, c /= 3)
            pert[k] = (c % 3 - 1) * eps;
         double snap = 0.0;
         if (plod && c % 4 == 3)
            snap = elod;
         else if (plod)
            pert[3] = (c % 4 - 1) * elod;
         double out[4];
         defined = rsample(&rc, q, pert, snap, out, &flags);
         for (int k = 0; k < 4 && defined; k++) {
            lo[k] = first || out[k] < lo[k] ? out[k] : lo[k];
            hi[k] = first || out[k] > hi[k] ? out[k] : hi[k];
         }
         first = false;
      }
      if (!defined || (lavapipe && (flags & R_AMBIGUOUS)))
         continue;
      const uint32_t *g = &res[i * 4];
      bool ok = true;
      double gv[4];
      for (int k = 0; k < 4; k++) {
         if (variants[tc->variant].cls == C_FLOAT) {
            float fv;
            memcpy(&fv, &g[k], 4);
            gv[k] = fv;
            double t = q->op == OP_SIZE ? 0.0 : tolerance(&rc, fmax(fabs(lo[k]), fabs(hi[k])));
            ok &= gv[k] >= lo[k] - t && gv[k] <= hi[k] + t;
         } else {
            gv[k] = variants[tc->variant].cls == C_SINT ? (double)(int32_t)g[k] : (double)g[k];
            ok &= gv[k] >= lo[k] && gv[k] <= hi[k];
         }
      }
      if (!ok && bad++ < 6)
         fprintf(stderr,
                 "%s: %s: query %u op %d c (%g %g %g %g) lod %g dref %g dx (%g %g %g) dy (%g %g %g):\n"
                 "   got (%.7g %.7g %.7g %.7g), reference [%.7g %.7g] [%.7g %.7g] [%.7g %.7g] [%.7g %.7g]\n",
                 drv, tc->name, i, q->op, q->c[0], q->c[1], q->c[2], q->c[3], q->lod, q->dref,
                 q->dx[0], q->dx[1], q->dx[2], q->dy[0], q->dy[1], q->dy[2], gv[0], gv[1], gv[2],
                 gv[3], lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], lo[3], hi[3]);
   }
   return bad;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

#define NQ 192

static bool
uses_linear(const struct tcase *tc)
{
   return tc->mag == VK_FILTER_LINEAR || tc->min == VK_FILTER_LINEAR ||
          tc->mip == VK_SAMPLER_MIPMAP_MODE_LINEAR;
}

/* A random direction whose major axis is clear. */
static void
cube_dir(float d[3])
{
   for (;;) {
      double a[3], m[3];
      for (int k = 0; k < 3; k++) {
         a[k] = urand(-1.0, 1.0);
         m[k] = fabs(a[k]);
      }
      double top = fmax(m[0], fmax(m[1], m[2]));
      double second = m[0] == top ? fmax(m[1], m[2]) : m[1] == top ? fmax(m[0], m[2]) : fmax(m[0], m[1]);
      if (top < 0.2 || top - second < 1e-3 * top)
         continue;
      for (int k = 0; k < 3; k++)
         d[k] = (float)a[k];
      return;
   }
}

static void
gen_queries(const struct tcase *tc, const struct himg *im, struct query *qs, uint8_t *qflags)
{
   struct rctx rc;
   rctx_init(&rc, tc, im);
   const struct variant *v = rc.v;
   uint32_t ops = (tc->ops ? tc->ops : v->ops) & v->ops;
   int list[OP_COUNT], nops = 0;
   for (int op = 0; op < OP_COUNT; op++)
      if (ops & M(op))
         list[nops++] = op;
   double lo = tc->lo || tc->hi ? tc->lo : -0.25, hi = tc->lo || tc->hi ? tc->hi : 1.25;
   double size[3] = { rc.vw, rc.vh, rc.vd };
   for (unsigned i = 0; i < NQ; i++) {
      struct query *q = &qs[i];
      memset(q, 0, sizeof(*q));
      qflags[i] = 0;
      q->op = list[i % nops];
      q->lod = (float)urand(-1.25, rc.nlevels - 0.25);
      q->dref = (float)urand(-0.1, 1.1);
      if (rc.cube) {
         cube_dir(q->c);
      } else {
         for (int k = 0; k < rc.dims; k++)
            q->c[k] = (float)(v->unnorm ? urand(lo * size[k], hi * size[k]) : urand(lo, hi));
      }
      if (rc.arrayed)
         q->c[rc.cube ? 3 : rc.dims] = (float)urand(-0.9, rc.nlayers - 0.1);
      switch (q->op) {
      case OP_GRAD:
      case OP_GRAD_OFF:
      case OP_SEPARATE: {
         if (q->op == OP_SEPARATE && !v->sep_grad)
            break;
         int n = rc.cube ? 3 : rc.dims;
         double lx = urand(-1.5, rc.nlevels + 0.5), ly = urand(-1.5, rc.nlevels + 0.5);
         if (!rc.cube && rnd() % 3) {
            /* One non-zero derivative per direction: every allowed scale
             * factor approximation gives the same LOD. */
            q->dx[0] = (float)((rnd() & 1 ? 1 : -1) * exp2(lx) / size[0]);
            int k = rc.dims >= 2 ? 1 : 0;
            q->dy[k] = (float)((rnd() & 1 ? 1 : -1) * exp2(ly) / size[k]);
         } else {
            for (int k = 0; k < n; k++) {
               double sz = rc.cube ? size[0] / 2 : size[k];
               q->dx[k] = (float)(urand(-1, 1) * exp2(lx) / sz);
               q->dy[k] = (float)(urand(-1, 1) * exp2(ly) / sz);
            }
            qflags[i] |= Q_NO_LAVAPIPE;
         }
         break;
      }
      case OP_FETCH:
      case OP_FETCH_OFF: {
         uint32_t l = rnd() % rc.nlevels;
         q->lod = (float)l;
         uint32_t sz[3] = { mini(rc.vw, l), mini(rc.vh, l), mini(rc.vd, l) };
         for (int k = 0; k < rc.dims; k++) {
            int32_t c = (int32_t)(rnd() % sz[k]);
            if (q->op == OP_FETCH_OFF)
               c -= off_b[k];
            q->c[k] = (float)c;
         }
         if (rc.arrayed)
            q->c[rc.dims] = (float)(rnd() % rc.nlayers);
         /* A few out of range: their results are undefined, not checked,
          * but must not crash either driver. */
         if (rnd() % 16 == 0)
            q->c[0] = (float)(sz[0] + rnd() % 3);
         break;
      }
      case OP_SIZE:
         /* The LOD of sizes is dy.w. lavapipe (Mesa 22.3) answers a
          * non-constant LOD with some other lane's: not compared there. */
         q->dy[3] = (float)(rnd() % rc.nlevels);
         qflags[i] |= Q_NO_LAVAPIPE;
         break;
      case OP_GATHER_DOFF:
         q->dx[0] = (float)(OFF_MIN + (int)(rnd() % (OFF_MAX - OFF_MIN + 1)));
         q->dx[1] = (float)(OFF_MIN + (int)(rnd() % (OFF_MAX - OFF_MIN + 1)));
         break;
      case OP_PROJ: {
         float w = (float)urand(0.5, 2.0);
         for (int k = 0; k < rc.dims; k++)
            q->c[k] *= w;
         q->dx[3] = w;
         break;
      }
      default:
         break;
      }
   }
}

/* ------------------------------------------------------------------------ */
/* Running a case on a driver                                                */
/* ------------------------------------------------------------------------ */

struct drv {
   struct vkt t;
   VkDescriptorSetLayout sl;
   VkPipelineLayout pl;
   VkPipeline pipes[NVARIANTS];
   VkDescriptorPool pool;
   bool gext, cube_array, mirror_clamp;
   unsigned subtexel_bits, mip_bits;
};

static void
set_layout_bindings(VkDescriptorSetLayoutBinding b[5], const VkSampler *immutable)
{
   static const VkDescriptorType types[5] = {
      VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
      VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      VK_DESCRIPTOR_TYPE_SAMPLER,
   };
   for (uint32_t i = 0; i < 5; i++)
      b[i] = (VkDescriptorSetLayoutBinding) { i, types[i], 1, VK_SHADER_STAGE_COMPUTE_BIT,
                                              i == 0 || i == 4 ? immutable : NULL };
}

static bool
make_layouts(struct vkt *t, const VkSampler *immutable, VkDescriptorSetLayout *sl,
             VkPipelineLayout *pl)
{
   VkDescriptorSetLayoutBinding b[5];
   set_layout_bindings(b, immutable);
   VkDescriptorSetLayoutCreateInfo lci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                           .bindingCount = 5, .pBindings = b };
   VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, 4 };
   if (vkCreateDescriptorSetLayout(t->device, &lci, NULL, sl) != VK_SUCCESS)
      return false;
   VkPipelineLayoutCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .setLayoutCount = 1, .pSetLayouts = sl,
                                      .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr };
   return vkCreatePipelineLayout(t->device, &pci, NULL, pl) == VK_SUCCESS;
}

static VkPipeline
make_pipeline(struct vkt *t, const struct variant *v, VkPipelineLayout pl)
{
   VkShaderModuleCreateInfo mci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, v->size, v->spv };
   VkShaderModule m;
   if (vkCreateShaderModule(t->device, &mci, NULL, &m) != VK_SUCCESS)
      return VK_NULL_HANDLE;
   VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                 .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = m, .pName = "main" },
      .layout = pl,
   };
   VkPipeline p = VK_NULL_HANDLE;
   VkResult r = vkCreateComputePipelines(t->device, VK_NULL_HANDLE, 1, &ci, NULL, &p);
   CHECK(r == VK_SUCCESS, "%s: pipeline %s: %d", vkt_driver_name(t->driver), v->name, r);
   vkDestroyShaderModule(t->device, m, NULL);
   return p;
}

/* Gather offsets (where the limits allow them), cube arrays and
 * VK_KHR_sampler_mirror_clamp_to_edge, where offered; checks the offset
 * limits. */
static void
drv_choose(struct vkt *t, const VkPhysicalDeviceFeatures *f, VkPhysicalDeviceFeatures *want,
           struct vkt_options *o, void *ctx)
{
   struct drv *d = ctx;
   const char *dn = vkt_driver_name(t->driver);
   const VkPhysicalDeviceLimits *l = &t->props.limits;
   d->subtexel_bits = l->subTexelPrecisionBits;
   d->mip_bits = l->mipmapPrecisionBits;
   /* The spec's minimum limits: constant offsets of -8 .. 7 always, and
    * gather offsets of -8 .. 7 with shaderImageGatherExtended. */
   CHECK(l->minTexelOffset <= OFF_MIN && l->maxTexelOffset >= OFF_MAX,
         "%s: texel offsets %d .. %u", dn, l->minTexelOffset, l->maxTexelOffset);
   CHECK(!f->shaderImageGatherExtended ||
            (l->minTexelGatherOffset <= OFF_MIN && l->maxTexelGatherOffset >= OFF_MAX),
         "%s: gather offsets %d .. %u", dn, l->minTexelGatherOffset, l->maxTexelGatherOffset);
   d->gext = f->shaderImageGatherExtended && l->minTexelGatherOffset <= OFF_MIN &&
             l->maxTexelGatherOffset >= OFF_MAX;
   d->cube_array = f->imageCubeArray;
   d->mirror_clamp =
      vkt_has_device_extension(t->pdev, VK_KHR_SAMPLER_MIRROR_CLAMP_TO_EDGE_EXTENSION_NAME);
   static const char *const mirror_ext[] = { VK_KHR_SAMPLER_MIRROR_CLAMP_TO_EDGE_EXTENSION_NAME };
   want->shaderImageGatherExtended = d->gext;
   want->imageCubeArray = d->cube_array;
   o->device_extensions = d->mirror_clamp ? mirror_ext : NULL;
   o->device_extension_count = d->mirror_clamp ? 1 : 0;
}

static bool
drv_init(struct drv *d, enum vkt_driver which)
{
   memset(d, 0, sizeof(*d));
   VkPhysicalDeviceFeatures f;
   if (!smp_open(&d->t, which, &f, drv_choose, d))
      return false;
   /* Every format claimed sampled is one the sweep samples (and the other
    * way round, run_case checks). */
   for (int fmt = 1; fmt <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK && which == VKT_SHALE; fmt++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(d->t.pdev, (VkFormat)fmt, &fp);
      CHECK(!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) || tfmt((VkFormat)fmt),
            "shale: format %d claims SAMPLED_IMAGE but is not tested", fmt);
      CHECK((fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) ==
               (fp.linearTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT),
            "shale: format %d: linear and optimal tiling differ", fmt);
   }
   VkDescriptorPoolSize sizes[4] = {
      { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2 }, { VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, 2 },
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 }, { VK_DESCRIPTOR_TYPE_SAMPLER, 2 },
   };
   VkDescriptorPoolCreateInfo poci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 2, .poolSizeCount = 4, .pPoolSizes = sizes };
   bool ok = make_layouts(&d->t, NULL, &d->sl, &d->pl) &&
             vkCreateDescriptorPool(d->t.device, &poci, NULL, &d->pool) == VK_SUCCESS;
   CHECK(ok, "%s: layouts and pool", vkt_driver_name(which));
   return ok;
}

static void
drv_finish(struct drv *d)
{
   for (int i = 0; i < NVARIANTS; i++)
      if (d->pipes[i])
         vkDestroyPipeline(d->t.device, d->pipes[i], NULL);
   vkDestroyDescriptorPool(d->t.device, d->pool, NULL);
   vkDestroyPipelineLayout(d->t.device, d->pl, NULL);
   vkDestroyDescriptorSetLayout(d->t.device, d->sl, NULL);
   vkt_finish(&d->t);
}

static VkImageAspectFlags
format_aspects(VkFormat f)
{
   if (!has_depth(f) && !has_stencil(f))
      return VK_IMAGE_ASPECT_COLOR_BIT;
   return (has_depth(f) ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) |
          (has_stencil(f) ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
}

/* Runs the case's NQ queries; false when the driver cannot (lavapipe
 * lacking a feature); results in res[NQ * 4]. */
static bool
run_case(struct drv *d, const struct tcase *tc, const struct himg *im, const struct query *qs,
         uint32_t *res)
{
   struct vkt *t = &d->t;
   const char *dn = vkt_driver_name(t->driver);
   const struct variant *v = &variants[tc->variant];
   bool lavapipe = t->driver == VKT_LAVAPIPE;
   if (v->gext && !d->gext)
      return false;
   if (lavapipe && tc->shale_only)
      return false;
   for (int k = 0; k < 3; k++)
      if (tc->am[k] == VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE && !d->mirror_clamp)
         return false;

   /* Format support as claimed. */
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t->pdev, tc->format, &fp);
   VkFormatFeatureFlags need = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                               (uses_linear(tc) ? VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT : 0);
   if ((fp.optimalTilingFeatures & need) != need) {
      CHECK(lavapipe, "%s: %s: format features %#x lack %#x", dn, tc->name, fp.optimalTilingFeatures,
            need);
      return false;
   }
   bool cube = v->vt == VK_IMAGE_VIEW_TYPE_CUBE || v->vt == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY;
   if (v->vt == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY && !d->cube_array)
      return false;
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .flags = cube ? VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT : 0,
      .imageType = im->type, .format = tc->format,
      .extent = { im->w, im->h, im->d }, .mipLevels = im->levels, .arrayLayers = im->layers,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   VkImageFormatProperties ifp;
   VkResult r = vkGetPhysicalDeviceImageFormatProperties(t->pdev, tc->format, ici.imageType, ici.tiling,
                                                         ici.usage, ici.flags, &ifp);
   if (r != VK_SUCCESS) {
      CHECK(lavapipe, "%s: %s: image format properties: %d", dn, tc->name, r);
      return false;
   }
   struct vkt_image img;
   r = vkt_image_create(t, &ici, &img);
   CHECK(r == VK_SUCCESS, "%s: %s: image: %d", dn, tc->name, r);
   if (r != VK_SUCCESS)
      return false;

   /* Upload: colour or depth texels, then stencil bytes. */
   size_t soff = (im->dsize + 15) / 16 * 16;
   struct vkt_buffer staging, in, out;
   CHECK(vkt_buffer_create(t, soff + im->ssize + 16, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging) ==
         VK_SUCCESS, "staging");
   memcpy(staging.map, im->data, im->dsize);
   if (im->ssize)
      memcpy((uint8_t *)staging.map + soff, im->sdata, im->ssize);
   CHECK(vkt_buffer_create(t, NQ * sizeof(struct query), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in) ==
         VK_SUCCESS, "in");
   CHECK(vkt_buffer_create(t, NQ * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out) == VK_SUCCESS, "out");
   memcpy(in.map, qs, NQ * sizeof(struct query));
   memset(out.map, 0xcd, NQ * 16);

   VkImageAspectFlags all = format_aspects(tc->format);
   VkBufferImageCopy regions[32];
   uint32_t nreg = 0;
   for (uint32_t l = 0; l < im->levels; l++) {
      VkExtent3D e = { mini(im->w, l), mini(im->h, l), mini(im->d, l) };
      if (all & (VK_IMAGE_ASPECT_COLOR_BIT | VK_IMAGE_ASPECT_DEPTH_BIT))
         regions[nreg++] = (VkBufferImageCopy) {
            .bufferOffset = im->doff[l],
            .imageSubresource = { all & VK_IMAGE_ASPECT_COLOR_BIT ? VK_IMAGE_ASPECT_COLOR_BIT
                                                                  : VK_IMAGE_ASPECT_DEPTH_BIT,
                                  l, 0, im->layers },
            .imageExtent = e };
      if (all & VK_IMAGE_ASPECT_STENCIL_BIT)
         regions[nreg++] = (VkBufferImageCopy) {
            .bufferOffset = soff + im->soff[l],
            .imageSubresource = { VK_IMAGE_ASPECT_STENCIL_BIT, l, 0, im->layers },
            .imageExtent = e };
   }

   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = img.image, .viewType = v->vt,
      .format = tc->format,
      .components = { tc->sw[0], tc->sw[1], tc->sw[2], tc->sw[3] },
      .subresourceRange = { all == VK_IMAGE_ASPECT_COLOR_BIT ? all
                            : tc->stencil || !has_depth(tc->format) ? VK_IMAGE_ASPECT_STENCIL_BIT
                                                                    : VK_IMAGE_ASPECT_DEPTH_BIT,
                            tc->base_level, tc->level_count ? tc->level_count : VK_REMAINING_MIP_LEVELS,
                            tc->base_layer, tc->layer_count ? tc->layer_count : VK_REMAINING_ARRAY_LAYERS },
   };
   VkImageView view;
   CHECK(vkCreateImageView(t->device, &vci, NULL, &view) == VK_SUCCESS, "%s: %s: view", dn, tc->name);
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = tc->mag, .minFilter = tc->min, .mipmapMode = tc->mip,
      .addressModeU = tc->am[0], .addressModeV = tc->am[1], .addressModeW = tc->am[2],
      .mipLodBias = tc->bias,
      .compareEnable = v->shadow, .compareOp = tc->cmp,
      .minLod = tc->clamp_lod ? tc->min_lod : 0.0f,
      .maxLod = tc->clamp_lod || v->unnorm ? tc->max_lod : VK_LOD_CLAMP_NONE,
      .borderColor = tc->border,
      .unnormalizedCoordinates = v->unnorm,
   };
   VkSampler sampler;
   CHECK(vkCreateSampler(t->device, &sci, NULL, &sampler) == VK_SUCCESS, "%s: %s: sampler", dn, tc->name);

   /* Layouts: the shared one, or one with this sampler immutable. */
   VkDescriptorSetLayout sl = d->sl;
   VkPipelineLayout pl = d->pl;
   VkPipeline pipe;
   if (tc->immutable) {
      CHECK(make_layouts(t, &sampler, &sl, &pl), "%s: immutable layouts", dn);
      pipe = make_pipeline(t, v, pl);
   } else {
      if (!d->pipes[tc->variant])
         d->pipes[tc->variant] = make_pipeline(t, v, d->pl);
      pipe = d->pipes[tc->variant];
   }
   vkResetDescriptorPool(t->device, d->pool, 0);
   VkDescriptorSetLayout sls[2] = { sl, sl };
   VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, d->pool,
                                      tc->copy ? 2 : 1, sls };
   VkDescriptorSet sets[2];
   CHECK(vkAllocateDescriptorSets(t->device, &ai, sets) == VK_SUCCESS, "%s: sets", dn);
   VkImageLayout layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
   VkDescriptorImageInfo comb = { sampler, view, layout }, sampled = { VK_NULL_HANDLE, view, layout },
                         smp = { sampler, VK_NULL_HANDLE, layout };
   VkDescriptorBufferInfo bin = { in.buffer, 0, VK_WHOLE_SIZE }, bout = { out.buffer, 0, VK_WHOLE_SIZE };
   VkWriteDescriptorSet w[5];
   uint32_t nw = 0;
   VkDescriptorSet target = sets[0];
#define WR(b, ty, ii, bi)                                                                      \
   w[nw++] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,          \
                                      .dstSet = target, .dstBinding = b, .descriptorCount = 1, \
                                      .descriptorType = ty, .pImageInfo = ii, .pBufferInfo = bi }
   WR(0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &comb, NULL);
   WR(1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, &sampled, NULL);
   WR(2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bin);
   WR(3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bout);
   if (!tc->immutable)
      WR(4, VK_DESCRIPTOR_TYPE_SAMPLER, &smp, NULL);
#undef WR
   vkUpdateDescriptorSets(t->device, nw, w, 0, NULL);
   if (tc->copy) {
      VkCopyDescriptorSet c = { VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET, NULL, sets[0], 0, 0, sets[1],
                                0, 0, 5 };
      /* Bindings 0..4 hold one descriptor each: the copy rolls over them. */
      VkCopyDescriptorSet cs[5];
      for (uint32_t b = 0; b < 5; b++) {
         cs[b] = c;
         cs[b].srcBinding = cs[b].dstBinding = b;
         cs[b].descriptorCount = 1;
      }
      vkUpdateDescriptorSets(t->device, 0, NULL, tc->immutable ? 4 : 5, cs);
   }

   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, img.image, all, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   vkCmdCopyBufferToImage(cb, staging.buffer, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, nreg,
                          regions);
   vkt_image_barrier(cb, img.image, all, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, layout);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &sets[tc->copy ? 1 : 0], 0,
                           NULL);
   uint32_t count = NQ;
   vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &count);
   vkCmdDispatch(cb, (NQ + 63) / 64, 1, 1);
   VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                        0, NULL, 0, NULL);
   r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: %s: submit: %d", dn, tc->name, r);
   memcpy(res, out.map, NQ * 16);

   if (tc->immutable) {
      vkDestroyPipeline(t->device, pipe, NULL);
      vkDestroyPipelineLayout(t->device, pl, NULL);
      vkDestroyDescriptorSetLayout(t->device, sl, NULL);
   }
   vkDestroySampler(t->device, sampler, NULL);
   vkDestroyImageView(t->device, view, NULL);
   vkt_image_destroy(t, &img);
   vkt_buffer_destroy(t, &staging);
   vkt_buffer_destroy(t, &in);
   vkt_buffer_destroy(t, &out);
   return r == VK_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* The cases                                                                 */
/* ------------------------------------------------------------------------ */

#define AM3(m) { VK_SAMPLER_ADDRESS_MODE_##m, VK_SAMPLER_ADDRESS_MODE_##m, VK_SAMPLER_ADDRESS_MODE_##m }
#define LIN .mag = VK_FILTER_LINEAR, .min = VK_FILTER_LINEAR, .mip = VK_SAMPLER_MIPMAP_MODE_LINEAR
#define RGBA8 VK_FORMAT_R8G8B8A8_UNORM
#define SW(r, g, b, a) { VK_COMPONENT_SWIZZLE_##r, VK_COMPONENT_SWIZZLE_##g, VK_COMPONENT_SWIZZLE_##b, \
                         VK_COMPONENT_SWIZZLE_##a }

static const char *
compare_name(VkCompareOp op)
{
   static const char *names[] = { "never", "less", "equal", "less_or_equal", "greater",
                                  "not_equal", "greater_or_equal", "always" };
   return names[op & 7];
}

static void
build_cases(void)
{
   /* 2D: filters, mipmap modes, LOD bias and clamps, every address mode,
    * border colours, view levels, swizzles, immutable and copied
    * descriptors. */
   add((struct tcase) { .name = "2d nearest clamp", .variant = V_2D, .format = RGBA8, .w = 13, .h = 9,
                        .levels = 4, .am = AM3(CLAMP_TO_EDGE) });
   add((struct tcase) { .name = "2d linear repeat", .variant = V_2D, .format = RGBA8, .w = 13, .h = 9,
                        .levels = 4, LIN, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "2d mag linear min nearest mirrored bias lod clamp", .variant = V_2D,
                        .format = RGBA8, .w = 16, .h = 11, .levels = 5, .mag = VK_FILTER_LINEAR,
                        .mip = VK_SAMPLER_MIPMAP_MODE_LINEAR, .am = AM3(MIRRORED_REPEAT),
                        .bias = 0.7f, .clamp_lod = true, .min_lod = 0.5f, .max_lod = 2.3f,
                        .lo = -2.5f, .hi = 3.0f });
   add((struct tcase) { .name = "2d mag nearest min linear border mixed", .variant = V_2D,
                        .format = RGBA8, .w = 10, .h = 12, .levels = 3, .min = VK_FILTER_LINEAR,
                        .am = { VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER, VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE },
                        .border = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK });
   add((struct tcase) { .name = "2d linear border opaque black", .variant = V_2D, .format = RGBA8,
                        .w = 7, .h = 6, .levels = 3, LIN, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK });
   add((struct tcase) { .name = "2d nearest border opaque white", .variant = V_2D, .format = RGBA8,
                        .w = 7, .h = 6, .levels = 3, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE });
   add((struct tcase) { .name = "2d view levels 1-2", .variant = V_2D, .format = RGBA8, .w = 21, .h = 14,
                        .levels = 5, .base_level = 1, .level_count = 2, LIN, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "2d swizzle b1r0 border white", .variant = V_2D, .format = RGBA8,
                        .w = 9, .h = 8, .levels = 2, LIN, .sw = SW(B, ONE, R, ZERO),
                        .am = AM3(CLAMP_TO_BORDER), .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE });
   add((struct tcase) { .name = "2d swizzle abgr", .variant = V_2D, .format = RGBA8, .w = 9, .h = 8,
                        .levels = 2, .sw = SW(A, B, G, R), .am = AM3(MIRRORED_REPEAT) });
   add((struct tcase) { .name = "2d immutable sampler", .variant = V_2D, .format = RGBA8, .w = 12,
                        .h = 12, .levels = 4, LIN, .am = AM3(REPEAT), .immutable = true });
   add((struct tcase) { .name = "2d copied descriptors", .variant = V_2D, .format = RGBA8, .w = 12,
                        .h = 5, .levels = 3, .am = AM3(CLAMP_TO_EDGE), .copy = true });
   add((struct tcase) { .name = "2d copied immutable", .variant = V_2D, .format = RGBA8, .w = 5, .h = 12,
                        .levels = 3, LIN, .am = AM3(CLAMP_TO_EDGE), .copy = true, .immutable = true });
   add((struct tcase) { .name = "2d lod clamped to 1.3", .variant = V_2D, .format = RGBA8, .w = 16,
                        .h = 16, .levels = 5, .mag = VK_FILTER_LINEAR, .min = VK_FILTER_NEAREST,
                        .mip = VK_SAMPLER_MIPMAP_MODE_LINEAR, .clamp_lod = true, .min_lod = 1.3f,
                        .max_lod = 1.3f, .bias = -2.0f });
   /* Unnormalized coordinates: one level, one layer. */
   add((struct tcase) { .name = "2d unnormalized nearest", .variant = V_2DUN, .format = RGBA8, .w = 12,
                        .h = 10, .levels = 3, .base_level = 1, .level_count = 1,
                        .am = AM3(CLAMP_TO_EDGE), .lo = -0.2f, .hi = 1.2f });
   add((struct tcase) { .name = "2d unnormalized linear border", .variant = V_2DUN, .format = RGBA8,
                        .w = 12, .h = 10, .levels = 1, .mag = VK_FILTER_LINEAR, .min = VK_FILTER_LINEAR,
                        .am = AM3(CLAMP_TO_BORDER), .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE,
                        .lo = -0.2f, .hi = 1.2f });
   add((struct tcase) { .name = "1d unnormalized linear", .variant = V_1DUN, .format = RGBA8, .w = 19,
                        .levels = 1, .mag = VK_FILTER_LINEAR, .min = VK_FILTER_LINEAR,
                        .am = AM3(CLAMP_TO_EDGE), .lo = -0.2f, .hi = 1.2f });
   /* 1D, 1D arrays, 2D arrays, 3D. */
   add((struct tcase) { .name = "1d linear repeat", .variant = V_1D, .format = RGBA8, .w = 17, .levels = 5,
                        LIN, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "1d nearest mirrored", .variant = V_1D, .format = RGBA8, .w = 17,
                        .levels = 5, .am = AM3(MIRRORED_REPEAT), .lo = -2.0f, .hi = 2.5f });
   add((struct tcase) { .name = "1d array layers 1-3", .variant = V_1DA, .format = RGBA8, .w = 11,
                        .levels = 3, .layers = 5, .base_layer = 1, .layer_count = 3, LIN,
                        .am = AM3(CLAMP_TO_EDGE) });
   add((struct tcase) { .name = "2d array layers 2-5 border", .variant = V_2DA, .format = RGBA8, .w = 9,
                        .h = 7, .levels = 3, .layers = 6, .base_layer = 2, .layer_count = 4, LIN,
                        .am = AM3(CLAMP_TO_BORDER), .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE });
   add((struct tcase) { .name = "2d array nearest repeat", .variant = V_2DA, .format = RGBA8, .w = 9,
                        .h = 7, .levels = 3, .layers = 6, .base_level = 1, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "3d linear repeat", .variant = V_3D, .format = RGBA8, .w = 9, .h = 7,
                        .d = 5, .levels = 3, LIN, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "3d nearest border", .variant = V_3D, .format = RGBA8, .w = 6, .h = 7,
                        .d = 8, .levels = 4, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK });
   add((struct tcase) { .name = "3d linear mirrored view level 1", .variant = V_3D, .format = RGBA8,
                        .w = 12, .h = 10, .d = 9, .levels = 4, .base_level = 1, LIN,
                        .am = { VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT, VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE } });
   /* Cube maps: face selection, seamless edges and corners. */
   add((struct tcase) { .name = "cube nearest", .variant = V_CUBE, .format = RGBA8, .w = 8, .h = 8,
                        .levels = 4, .layers = 6 });
   add((struct tcase) { .name = "cube linear", .variant = V_CUBE, .format = RGBA8, .w = 8, .h = 8,
                        .levels = 4, .layers = 6, LIN });
   add((struct tcase) { .name = "cube linear view level 1, second cube", .variant = V_CUBE,
                        .format = RGBA8, .w = 10, .h = 10, .levels = 4, .layers = 12, .base_level = 1,
                        .base_layer = 6, .layer_count = 6, LIN });
   add((struct tcase) { .name = "cube array linear, cubes 1-2", .variant = V_CUBEA, .format = RGBA8,
                        .w = 6, .h = 6, .levels = 3, .layers = 18, .base_layer = 6, .layer_count = 12,
                        LIN });
   add((struct tcase) { .name = "cube array nearest", .variant = V_CUBEA, .format = RGBA8, .w = 5,
                        .h = 5, .levels = 3, .layers = 12 });
   /* Other formats. */
   add((struct tcase) { .name = "2d snorm linear", .variant = V_2D, .format = VK_FORMAT_R8G8B8A8_SNORM,
                        .w = 11, .h = 7, .levels = 3, LIN, .am = AM3(CLAMP_TO_EDGE) });
   add((struct tcase) { .name = "2d srgb linear", .variant = V_2D, .format = VK_FORMAT_R8G8B8A8_SRGB,
                        .w = 11, .h = 7, .levels = 3, LIN, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "2d rgba16f linear", .variant = V_2D,
                        .format = VK_FORMAT_R16G16B16A16_SFLOAT, .w = 11, .h = 7, .levels = 3, LIN,
                        .am = AM3(MIRRORED_REPEAT) });
   add((struct tcase) { .name = "2d array r32f linear", .variant = V_2DA, .format = VK_FORMAT_R32_SFLOAT,
                        .w = 8, .h = 9, .levels = 3, .layers = 3, LIN, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "cube b10g11r11 linear", .variant = V_CUBE,
                        .format = VK_FORMAT_B10G11R11_UFLOAT_PACK32, .w = 4, .h = 4, .levels = 3,
                        .layers = 6, LIN });
   add((struct tcase) { .name = "3d rgba16f nearest", .variant = V_3D,
                        .format = VK_FORMAT_R16G16B16A16_SFLOAT, .w = 5, .h = 4, .d = 6, .levels = 3,
                        .am = AM3(MIRRORED_REPEAT) });
   add((struct tcase) { .name = "2d rgba32ui border white", .variant = V_2DU,
                        .format = VK_FORMAT_R32G32B32A32_UINT, .w = 9, .h = 6, .levels = 3,
                        .am = AM3(CLAMP_TO_BORDER), .border = VK_BORDER_COLOR_INT_OPAQUE_WHITE });
   add((struct tcase) { .name = "2d r8i border black", .variant = V_2DI, .format = VK_FORMAT_R8_SINT,
                        .w = 9, .h = 6, .levels = 3, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_INT_OPAQUE_BLACK, .sw = SW(R, R, ONE, G) });
   add((struct tcase) { .name = "2d array rgba16ui", .variant = V_2DAU,
                        .format = VK_FORMAT_R16G16B16A16_UINT, .w = 7, .h = 6, .levels = 2, .layers = 4,
                        .am = AM3(REPEAT) });
   /* Depth and stencil: depth values, every compare op, compare with
    * borders, arrays and cubes, linear comparison, stencil aspects. */
   add((struct tcase) { .name = "d16 depth values", .variant = V_2D, .format = VK_FORMAT_D16_UNORM,
                        .w = 9, .h = 7, .levels = 3, .am = AM3(CLAMP_TO_EDGE) });
   add((struct tcase) { .name = "x8d24 depth values", .variant = V_2D,
                        .format = VK_FORMAT_X8_D24_UNORM_PACK32, .w = 9, .h = 7, .levels = 3,
                        .am = AM3(REPEAT) });
   for (int op = 0; op < 8; op++) {
      static char names[8][48];
      snprintf(names[op], sizeof(names[op]), "d32 compare %s", compare_name((VkCompareOp)op));
      add((struct tcase) { .name = names[op], .variant = V_2DS, .format = VK_FORMAT_D32_SFLOAT,
                           .w = 8, .h = 7, .levels = 3, .cmp = (VkCompareOp)op,
                           .am = AM3(CLAMP_TO_EDGE) });
   }
   add((struct tcase) { .name = "d24s8 compare border", .variant = V_2DS,
                        .format = VK_FORMAT_D24_UNORM_S8_UINT, .w = 8, .h = 7, .levels = 3,
                        .cmp = VK_COMPARE_OP_GREATER_OR_EQUAL, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE });
   add((struct tcase) { .name = "d16 compare (dref clamped)", .variant = V_2DS,
                        .format = VK_FORMAT_D16_UNORM, .w = 8, .h = 7, .levels = 3,
                        .cmp = VK_COMPARE_OP_LESS_OR_EQUAL, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "d32s8 compare array", .variant = V_2DAS,
                        .format = VK_FORMAT_D32_SFLOAT_S8_UINT, .w = 8, .h = 7, .levels = 3, .layers = 4,
                        .cmp = VK_COMPARE_OP_LESS, .am = AM3(MIRRORED_REPEAT) });
   add((struct tcase) { .name = "d32 compare cube", .variant = V_CUBES, .format = VK_FORMAT_D32_SFLOAT,
                        .w = 8, .h = 8, .levels = 3, .layers = 6, .cmp = VK_COMPARE_OP_GREATER });
   add((struct tcase) { .name = "d16 compare linear", .variant = V_2DS, .format = VK_FORMAT_D16_UNORM,
                        .w = 8, .h = 7, .levels = 3, LIN, .cmp = VK_COMPARE_OP_LESS,
                        .am = AM3(CLAMP_TO_BORDER), .border = VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK,
                        .shale_only = true });
   add((struct tcase) { .name = "d32 compare cube linear", .variant = V_CUBES,
                        .format = VK_FORMAT_D32_SFLOAT, .w = 8, .h = 8, .levels = 3, .layers = 6, LIN,
                        .cmp = VK_COMPARE_OP_GREATER_OR_EQUAL, .shale_only = true });
   add((struct tcase) { .name = "d32 depth linear", .variant = V_2D, .format = VK_FORMAT_D32_SFLOAT,
                        .w = 8, .h = 7, .levels = 3, LIN, .am = AM3(REPEAT), .shale_only = true });
   add((struct tcase) { .name = "d24s8 stencil", .variant = V_2DU, .format = VK_FORMAT_D24_UNORM_S8_UINT,
                        .w = 8, .h = 7, .levels = 3, .stencil = true, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_INT_OPAQUE_WHITE });
   add((struct tcase) { .name = "d32s8 stencil", .variant = V_2DU, .format = VK_FORMAT_D32_SFLOAT_S8_UINT,
                        .w = 8, .h = 7, .levels = 3, .stencil = true, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "s8 stencil array", .variant = V_2DAU, .format = VK_FORMAT_S8_UINT,
                        .w = 8, .h = 7, .levels = 2, .layers = 3, .am = AM3(CLAMP_TO_EDGE) });
   /* Gathers with offsets (needs shaderImageGatherExtended and offsets). */
   add((struct tcase) { .name = "2d gather offsets", .variant = V_2DGX, .format = RGBA8, .w = 9, .h = 7,
                        .levels = 2, LIN, .am = AM3(REPEAT) });
   /* Every claimed format: nearest with borders and linear where claimed. */
   for (unsigned i = 0; i < NTFMTS; i++) {
      const struct tfmt *f = &tfmts[i];
      enum cls cl = fmt_class(f, false);
      bool depth = f->kind == K_DEPTH;
      int var = cl == C_FLOAT ? V_2D : cl == C_SINT ? V_2DI : V_2DU;
      VkBorderColor white = cl == C_FLOAT ? VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE
                                          : VK_BORDER_COLOR_INT_OPAQUE_WHITE;
      add((struct tcase) { .name = f->name, .variant = var, .format = f->format, .w = 7, .h = 5,
                           .levels = 2, .am = AM3(CLAMP_TO_BORDER), .border = white });
      if (cl == C_FLOAT) {
         static char names[NTFMTS][64];
         snprintf(names[i], sizeof(names[i]), "%s linear", f->name);
         add((struct tcase) { .name = names[i], .variant = var, .format = f->format, .w = 6, .h = 5,
                              .levels = 3, LIN, .am = AM3(REPEAT), .shale_only = depth });
      }
      if (has_stencil(f->format) && depth) {
         static char snames[NTFMTS][64];
         snprintf(snames[i], sizeof(snames[i]), "%s stencil", f->name);
         add((struct tcase) { .name = snames[i], .variant = V_2DU, .format = f->format, .w = 7,
                              .h = 5, .levels = 2, .stencil = true, .am = AM3(CLAMP_TO_BORDER),
                              .border = VK_BORDER_COLOR_INT_TRANSPARENT_BLACK });
      }
   }
   /* Appended after the sweep so that the cases above keep their random
    * seeds (the case index). */
   add((struct tcase) { .name = "2d gather offsets border", .variant = V_2DGX, .format = RGBA8, .w = 12,
                        .h = 10, .levels = 1, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE });
   add((struct tcase) { .name = "2d array gather offsets", .variant = V_2DAGX, .format = RGBA8, .w = 11,
                        .h = 9, .levels = 2, .layers = 4, .base_layer = 1, .layer_count = 3,
                        .am = AM3(MIRRORED_REPEAT) });
   add((struct tcase) { .name = "2d rgba16 unorm gather offsets", .variant = V_2DGX,
                        .format = VK_FORMAT_R16G16B16A16_UNORM, .w = 10, .h = 6, .levels = 1,
                        .am = AM3(CLAMP_TO_EDGE) });
   add((struct tcase) { .name = "d32 compare gather offsets", .variant = V_2DSGX,
                        .format = VK_FORMAT_D32_SFLOAT, .w = 10, .h = 9, .levels = 2,
                        .cmp = VK_COMPARE_OP_LESS, .am = AM3(REPEAT) });
   add((struct tcase) { .name = "d16 compare gather offsets border", .variant = V_2DSGX,
                        .format = VK_FORMAT_D16_UNORM, .w = 9, .h = 9, .levels = 2,
                        .cmp = VK_COMPARE_OP_GREATER_OR_EQUAL, .am = AM3(CLAMP_TO_BORDER),
                        .border = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE });
   /* Cube arrays (imageCubeArray): levels, layers, gathers, comparisons. */
   add((struct tcase) { .name = "cube array view levels 1-2, cube 2", .variant = V_CUBEA,
                        .format = RGBA8, .w = 12, .h = 12, .levels = 4, .layers = 18, .base_level = 1,
                        .level_count = 2, .base_layer = 12, .layer_count = 6, LIN });
   add((struct tcase) { .name = "cube array r32f nearest mip linear", .variant = V_CUBEA,
                        .format = VK_FORMAT_R32_SFLOAT, .w = 8, .h = 8, .levels = 4, .layers = 24,
                        .mip = VK_SAMPLER_MIPMAP_MODE_LINEAR });
   add((struct tcase) { .name = "cube array d32 compare gather", .variant = V_CUBEAS,
                        .format = VK_FORMAT_D32_SFLOAT, .w = 6, .h = 6, .levels = 2, .layers = 12,
                        .cmp = VK_COMPARE_OP_LESS_OR_EQUAL });
   /* VK_KHR_sampler_mirror_clamp_to_edge. */
   add((struct tcase) { .name = "2d linear mirror clamp", .variant = V_2D, .format = RGBA8, .w = 13,
                        .h = 9, .levels = 4, LIN, .am = AM3(MIRROR_CLAMP_TO_EDGE), .lo = -2.5f,
                        .hi = 3.0f });
   add((struct tcase) { .name = "2d nearest mirror clamp offsets", .variant = V_2D, .format = RGBA8,
                        .w = 7, .h = 10, .levels = 3, .am = AM3(MIRROR_CLAMP_TO_EDGE), .lo = -1.5f,
                        .hi = 2.0f });
   add((struct tcase) { .name = "1d linear mirror clamp", .variant = V_1D, .format = RGBA8, .w = 17,
                        .levels = 5, LIN, .am = AM3(MIRROR_CLAMP_TO_EDGE), .lo = -2.0f, .hi = 2.5f });
   add((struct tcase) { .name = "3d linear mirror clamp mixed", .variant = V_3D, .format = RGBA8,
                        .w = 9, .h = 7, .d = 6, .levels = 3, LIN,
                        .am = { VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE,
                                VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
                                VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE },
                        .border = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK, .lo = -1.5f, .hi = 2.0f });
   add((struct tcase) { .name = "2d gather offsets mirror clamp", .variant = V_2DGX, .format = RGBA8,
                        .w = 9, .h = 7, .levels = 1, .am = AM3(MIRROR_CLAMP_TO_EDGE), .lo = -1.0f,
                        .hi = 2.0f });
   add((struct tcase) { .name = "2d array ui mirror clamp", .variant = V_2DAU,
                        .format = VK_FORMAT_R16G16B16A16_UINT, .w = 7, .h = 6, .levels = 2, .layers = 3,
                        .am = AM3(MIRROR_CLAMP_TO_EDGE), .lo = -1.5f, .hi = 2.0f });
   add((struct tcase) { .name = "d32 compare linear mirror clamp", .variant = V_2DS,
                        .format = VK_FORMAT_D32_SFLOAT, .w = 8, .h = 7, .levels = 3, LIN,
                        .cmp = VK_COMPARE_OP_LESS, .am = AM3(MIRROR_CLAMP_TO_EDGE), .lo = -1.5f,
                        .hi = 2.0f, .shale_only = true });

}

int
main(void)
{
   build_cases();
   struct himg *ims = calloc(ncases, sizeof(*ims));
   struct query *qs = calloc((size_t)ncases * NQ, sizeof(*qs));
   uint8_t *qflags = calloc((size_t)ncases * NQ, 1);
   uint32_t *res[2] = { calloc((size_t)ncases * NQ * 4, 4), calloc((size_t)ncases * NQ * 4, 4) };
   bool *ran[2] = { calloc(ncases, 1), calloc(ncases, 1) };
   unsigned bits[2][2] = { { 8, 8 }, { 8, 8 } };
   for (unsigned i = 0; i < ncases; i++) {
      rng = 0x5a17 + i * 7919u;
      himg_build(&ims[i], &cases[i]);
      gen_queries(&cases[i], &ims[i], &qs[i * NQ], &qflags[i * NQ]);
   }
   bool gext[2] = { false, false }, cube_array[2] = { false, false };
   bool mirror_clamp[2] = { false, false };
   for (int d = 0; d < 2; d++) {
      struct drv dv;
      if (!drv_init(&dv, d ? VKT_LAVAPIPE : VKT_SHALE)) {
         CHECK(d == 1, "Shale device missing");
         continue;
      }
      bits[d][0] = dv.subtexel_bits;
      bits[d][1] = dv.mip_bits;
      gext[d] = dv.gext;
      cube_array[d] = dv.cube_array;
      mirror_clamp[d] = dv.mirror_clamp;
      for (unsigned i = 0; i < ncases; i++)
         ran[d][i] = run_case(&dv, &cases[i], &ims[i], &qs[i * NQ], &res[d][(size_t)i * NQ * 4]);
      drv_finish(&dv);
   }
   unsigned checked[2] = { 0, 0 };
   for (unsigned i = 0; i < ncases; i++) {
      const struct tcase *tc = &cases[i];
      for (int d = 0; d < 2; d++) {
         if (!ran[d][i])
            continue;
         checked[d]++;
         unsigned bad = check_results(tc, &ims[i], &qs[i * NQ], &qflags[i * NQ], NQ,
                                      &res[d][(size_t)i * NQ * 4], d == 1, bits[d][0], bits[d][1],
                                      d ? "lavapipe" : "shale");
         CHECK(bad == 0, "%s: %s: %u of %d queries differ from the reference",
               d ? "lavapipe" : "shale", tc->name, bad, NQ);
      }
      CHECK(ran[0][i], "shale: %s did not run", tc->name);
   }
   /* Shale claims what these cases test: gathers with offsets
    * (shaderImageGatherExtended), cube arrays (imageCubeArray) and
    * VK_KHR_sampler_mirror_clamp_to_edge. */
   CHECK(gext[0] && cube_array[0] && mirror_clamp[0],
         "shale: gather offsets %d, cube arrays %d, mirror clamp to edge %d", gext[0],
         cube_array[0], mirror_clamp[0]);
   fprintf(stderr, "%u cases; checked %u on Shale, %u on lavapipe\n", ncases, checked[0],
           checked[1]);
   for (unsigned i = 0; i < ncases; i++)
      himg_free(&ims[i]);
   free(ims);
   free(qs);
   free(qflags);
   for (int d = 0; d < 2; d++) {
      free(res[d]);
      free(ran[d]);
   }
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
