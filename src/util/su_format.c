/* su_format: the table of known VkFormats and scalar texel pack/unpack. */
#include "util/su_format.h"

#include <assert.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "su_format assumes a little-endian host (texel words are loaded with memcpy)"
#endif

/*
 * Table layout
 *
 * Every core format from VK_FORMAT_R4G4_UNORM_PACK8 (1) to
 * VK_FORMAT_ASTC_12x12_SRGB_BLOCK (184) is known, so a core format's index is
 * format - 1; the two Vulkan 1.3 A4 formats follow. Two parallel arrays share
 * that index: the public descriptions and a private per-channel layout.
 *
 * A colour channel is `bits` wide at bit offset `off` of the texel, counting
 * from bit 0 of byte 0. On a little-endian host this covers both the spec's
 * packed formats (first-named component in the most significant bits of the
 * word) and its array formats (first-named component in the first bytes).
 */
#define NUM_CORE 184
#define IDX_A4R4G4B4 184
#define IDX_A4B4G4R4 185
#define NUM_FORMATS 186

_Static_assert(VK_FORMAT_ASTC_12x12_SRGB_BLOCK == NUM_CORE, "core VkFormat range");

#define IDX(f)                                                               \
   ((f) == VK_FORMAT_A4R4G4B4_UNORM_PACK16   ? IDX_A4R4G4B4                  \
    : (f) == VK_FORMAT_A4B4G4R4_UNORM_PACK16 ? IDX_A4B4G4R4                  \
                                             : (f) - 1)

struct fmt_layout {
   uint8_t off[4];   /* bit offset of R, G, B, A in the texel */
   bool srgb;        /* sRGB encoded (also set for compressed sRGB formats) */
   bool unorm8;      /* every channel 8-bit UNORM or SRGB (not scaled): byte reads */
};

/* An F() format whose channels are all absent or 8-bit normalized. */
#define IS_UNORM8(k, sc, bR, bG, bB, bA)                                     \
   ((SU_KIND_##k == SU_KIND_UNORM || SU_KIND_##k == SU_KIND_SRGB) && !(sc) && \
    (bR) == 8 && ((bG) == 0 || (bG) == 8) && ((bB) == 0 || (bB) == 8) &&     \
    ((bA) == 0 || (bA) == 8))

/* Compatibility classes that are not "texel size in bits". */
enum {
   CLASS_DEPTH_BASE = 0x100,   /* + VkFormat: every depth/stencil format alone */
   CLASS_BC1_RGB = 0x200,
   CLASS_BC1_RGBA,
   CLASS_BC2,
   CLASS_BC3,
   CLASS_BC4,
   CLASS_BC5,
   CLASS_BC6H,
   CLASS_BC7,
   CLASS_ETC2_RGB,
   CLASS_ETC2_RGBA,
   CLASS_ETC2_EAC_RGBA,
   CLASS_EAC_R,
   CLASS_EAC_RG,
   CLASS_ASTC_4x4,
   CLASS_ASTC_5x4,
   CLASS_ASTC_5x5,
   CLASS_ASTC_6x5,
   CLASS_ASTC_6x6,
   CLASS_ASTC_8x5,
   CLASS_ASTC_8x6,
   CLASS_ASTC_8x8,
   CLASS_ASTC_10x5,
   CLASS_ASTC_10x6,
   CLASS_ASTC_10x8,
   CLASS_ASTC_10x10,
   CLASS_ASTC_12x10,
   CLASS_ASTC_12x12,
};

/*
 * Uncompressed colour formats:
 *   F(name, kind, scaled, bytes, channels, bits R G B A, bit offset R G B A)
 * Families expand to one F per numeric suffix. `s` is the name's suffix
 * after the numeric format ("" or _PACK32).
 */
#define FAM8(n, s, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)                   \
   F(n##_UNORM##s, UNORM, 0, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)         \
   F(n##_SNORM##s, SNORM, 0, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)         \
   F(n##_USCALED##s, UNORM, 1, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)       \
   F(n##_SSCALED##s, SNORM, 1, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)       \
   F(n##_UINT##s, UINT, 0, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)           \
   F(n##_SINT##s, SINT, 0, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)           \
   F(n##_SRGB##s, SRGB, 0, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)
#define FAM10(n, oR, oG, oB)                                                 \
   F(n##_UNORM_PACK32, UNORM, 0, 4, 4, 10, 10, 10, 2, oR, oG, oB, 30)        \
   F(n##_SNORM_PACK32, SNORM, 0, 4, 4, 10, 10, 10, 2, oR, oG, oB, 30)        \
   F(n##_USCALED_PACK32, UNORM, 1, 4, 4, 10, 10, 10, 2, oR, oG, oB, 30)      \
   F(n##_SSCALED_PACK32, SNORM, 1, 4, 4, 10, 10, 10, 2, oR, oG, oB, 30)      \
   F(n##_UINT_PACK32, UINT, 0, 4, 4, 10, 10, 10, 2, oR, oG, oB, 30)          \
   F(n##_SINT_PACK32, SINT, 0, 4, 4, 10, 10, 10, 2, oR, oG, oB, 30)
#define FAM16(n, nc, bG, bB, bA)                                             \
   F(n##_UNORM, UNORM, 0, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)         \
   F(n##_SNORM, SNORM, 0, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)         \
   F(n##_USCALED, UNORM, 1, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)       \
   F(n##_SSCALED, SNORM, 1, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)       \
   F(n##_UINT, UINT, 0, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)           \
   F(n##_SINT, SINT, 0, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)           \
   F(n##_SFLOAT, SFLOAT, 0, 2 * nc, nc, 16, bG, bB, bA, 0, 16, 32, 48)
/* 32- and 64-bit channels: `w` bits each, `nc` of them (G, B, A zero when absent). */
#define FAMW(n, w, nc, bG, bB, bA)                                           \
   F(n##_UINT, UINT, 0, (w) / 8 * nc, nc, w, bG, bB, bA, 0, w, 2 * w, 3 * w) \
   F(n##_SINT, SINT, 0, (w) / 8 * nc, nc, w, bG, bB, bA, 0, w, 2 * w, 3 * w) \
   F(n##_SFLOAT, SFLOAT, 0, (w) / 8 * nc, nc, w, bG, bB, bA, 0, w, 2 * w, 3 * w)

#define COLOR_FORMATS                                                        \
   F(R4G4_UNORM_PACK8, UNORM, 0, 1, 2, 4, 4, 0, 0, 4, 0, 0, 0)               \
   F(R4G4B4A4_UNORM_PACK16, UNORM, 0, 2, 4, 4, 4, 4, 4, 12, 8, 4, 0)         \
   F(B4G4R4A4_UNORM_PACK16, UNORM, 0, 2, 4, 4, 4, 4, 4, 4, 8, 12, 0)         \
   F(R5G6B5_UNORM_PACK16, UNORM, 0, 2, 3, 5, 6, 5, 0, 11, 5, 0, 0)           \
   F(B5G6R5_UNORM_PACK16, UNORM, 0, 2, 3, 5, 6, 5, 0, 0, 5, 11, 0)           \
   F(R5G5B5A1_UNORM_PACK16, UNORM, 0, 2, 4, 5, 5, 5, 1, 11, 6, 1, 0)         \
   F(B5G5R5A1_UNORM_PACK16, UNORM, 0, 2, 4, 5, 5, 5, 1, 1, 6, 11, 0)         \
   F(A1R5G5B5_UNORM_PACK16, UNORM, 0, 2, 4, 5, 5, 5, 1, 10, 5, 0, 15)        \
   FAM8(R8, , 1, 1, 8, 0, 0, 0, 0, 0, 0, 0)                                  \
   FAM8(R8G8, , 2, 2, 8, 8, 0, 0, 0, 8, 0, 0)                                \
   FAM8(R8G8B8, , 3, 3, 8, 8, 8, 0, 0, 8, 16, 0)                             \
   FAM8(B8G8R8, , 3, 3, 8, 8, 8, 0, 16, 8, 0, 0)                             \
   FAM8(R8G8B8A8, , 4, 4, 8, 8, 8, 8, 0, 8, 16, 24)                          \
   FAM8(B8G8R8A8, , 4, 4, 8, 8, 8, 8, 16, 8, 0, 24)                          \
   FAM8(A8B8G8R8, _PACK32, 4, 4, 8, 8, 8, 8, 0, 8, 16, 24)                   \
   FAM10(A2R10G10B10, 20, 10, 0)                                             \
   FAM10(A2B10G10R10, 0, 10, 20)                                             \
   FAM16(R16, 1, 0, 0, 0)                                                    \
   FAM16(R16G16, 2, 16, 0, 0)                                                \
   FAM16(R16G16B16, 3, 16, 16, 0)                                            \
   FAM16(R16G16B16A16, 4, 16, 16, 16)                                        \
   FAMW(R32, 32, 1, 0, 0, 0)                                                 \
   FAMW(R32G32, 32, 2, 32, 0, 0)                                             \
   FAMW(R32G32B32, 32, 3, 32, 32, 0)                                         \
   FAMW(R32G32B32A32, 32, 4, 32, 32, 32)                                     \
   FAMW(R64, 64, 1, 0, 0, 0)                                                 \
   FAMW(R64G64, 64, 2, 64, 0, 0)                                             \
   FAMW(R64G64B64, 64, 3, 64, 64, 0)                                         \
   FAMW(R64G64B64A64, 64, 4, 64, 64, 64)                                     \
   F(B10G11R11_UFLOAT_PACK32, UFLOAT, 0, 4, 3, 11, 11, 10, 0, 0, 11, 22, 0)  \
   F(E5B9G9R9_UFLOAT_PACK32, UFLOAT, 0, 4, 3, 9, 9, 9, 0, 0, 9, 18, 0)       \
   F(A4R4G4B4_UNORM_PACK16, UNORM, 0, 2, 4, 4, 4, 4, 4, 8, 4, 0, 12)         \
   F(A4B4G4R4_UNORM_PACK16, UNORM, 0, 2, 4, 4, 4, 4, 4, 0, 4, 8, 12)

/* D(name, bytes, aspects, depth_offset, stencil_offset, depth_copy_size) */
#define DS_FORMATS                                                           \
   D(D16_UNORM, 2, DEPTH, 0, 0, 2)                                           \
   D(X8_D24_UNORM_PACK32, 4, DEPTH, 0, 0, 4)                                 \
   D(D32_SFLOAT, 4, DEPTH, 0, 0, 4)                                          \
   D(S8_UINT, 1, STENCIL, 0, 0, 0)                                           \
   D(D16_UNORM_S8_UINT, 4, DEPTH_STENCIL, 0, 2, 2)                           \
   D(D24_UNORM_S8_UINT, 4, DEPTH_STENCIL, 0, 3, 4)                           \
   D(D32_SFLOAT_S8_UINT, 8, DEPTH_STENCIL, 0, 4, 4)

#define ASPECT_DEPTH VK_IMAGE_ASPECT_DEPTH_BIT
#define ASPECT_STENCIL VK_IMAGE_ASPECT_STENCIL_BIT
#define ASPECT_DEPTH_STENCIL (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT)

/* C(name, block w, block h, bytes per block, channels, class, srgb) */
#define ASTC(w, h)                                                           \
   C(ASTC_##w##x##h##_UNORM_BLOCK, w, h, 16, 4, ASTC_##w##x##h, 0)           \
   C(ASTC_##w##x##h##_SRGB_BLOCK, w, h, 16, 4, ASTC_##w##x##h, 1)
#define COMPRESSED_FORMATS                                                   \
   C(BC1_RGB_UNORM_BLOCK, 4, 4, 8, 3, BC1_RGB, 0)                            \
   C(BC1_RGB_SRGB_BLOCK, 4, 4, 8, 3, BC1_RGB, 1)                             \
   C(BC1_RGBA_UNORM_BLOCK, 4, 4, 8, 4, BC1_RGBA, 0)                          \
   C(BC1_RGBA_SRGB_BLOCK, 4, 4, 8, 4, BC1_RGBA, 1)                           \
   C(BC2_UNORM_BLOCK, 4, 4, 16, 4, BC2, 0)                                   \
   C(BC2_SRGB_BLOCK, 4, 4, 16, 4, BC2, 1)                                    \
   C(BC3_UNORM_BLOCK, 4, 4, 16, 4, BC3, 0)                                   \
   C(BC3_SRGB_BLOCK, 4, 4, 16, 4, BC3, 1)                                    \
   C(BC4_UNORM_BLOCK, 4, 4, 8, 1, BC4, 0)                                    \
   C(BC4_SNORM_BLOCK, 4, 4, 8, 1, BC4, 0)                                    \
   C(BC5_UNORM_BLOCK, 4, 4, 16, 2, BC5, 0)                                   \
   C(BC5_SNORM_BLOCK, 4, 4, 16, 2, BC5, 0)                                   \
   C(BC6H_UFLOAT_BLOCK, 4, 4, 16, 3, BC6H, 0)                                \
   C(BC6H_SFLOAT_BLOCK, 4, 4, 16, 3, BC6H, 0)                                \
   C(BC7_UNORM_BLOCK, 4, 4, 16, 4, BC7, 0)                                   \
   C(BC7_SRGB_BLOCK, 4, 4, 16, 4, BC7, 1)                                    \
   C(ETC2_R8G8B8_UNORM_BLOCK, 4, 4, 8, 3, ETC2_RGB, 0)                       \
   C(ETC2_R8G8B8_SRGB_BLOCK, 4, 4, 8, 3, ETC2_RGB, 1)                        \
   C(ETC2_R8G8B8A1_UNORM_BLOCK, 4, 4, 8, 4, ETC2_RGBA, 0)                    \
   C(ETC2_R8G8B8A1_SRGB_BLOCK, 4, 4, 8, 4, ETC2_RGBA, 1)                     \
   C(ETC2_R8G8B8A8_UNORM_BLOCK, 4, 4, 16, 4, ETC2_EAC_RGBA, 0)               \
   C(ETC2_R8G8B8A8_SRGB_BLOCK, 4, 4, 16, 4, ETC2_EAC_RGBA, 1)                \
   C(EAC_R11_UNORM_BLOCK, 4, 4, 8, 1, EAC_R, 0)                              \
   C(EAC_R11_SNORM_BLOCK, 4, 4, 8, 1, EAC_R, 0)                              \
   C(EAC_R11G11_UNORM_BLOCK, 4, 4, 16, 2, EAC_RG, 0)                         \
   C(EAC_R11G11_SNORM_BLOCK, 4, 4, 16, 2, EAC_RG, 0)                         \
   ASTC(4, 4) ASTC(5, 4) ASTC(5, 5) ASTC(6, 5) ASTC(6, 6) ASTC(8, 5)         \
   ASTC(8, 6) ASTC(8, 8) ASTC(10, 5) ASTC(10, 6) ASTC(10, 8) ASTC(10, 10)    \
   ASTC(12, 10) ASTC(12, 12)

static const struct su_format_desc formats[NUM_FORMATS] = {
#define F(n, k, sc, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)                  \
   [IDX(VK_FORMAT_##n)] = {                                                  \
      .format = VK_FORMAT_##n,                                               \
      .name = #n,                                                            \
      .kind = SU_KIND_##k,                                                   \
      .scaled = sc,                                                          \
      .block_width = 1,                                                      \
      .block_height = 1,                                                     \
      .block_size = sz,                                                      \
      .num_channels = nc,                                                    \
      .bits = { bR, bG, bB, bA },                                            \
      .aspects = VK_IMAGE_ASPECT_COLOR_BIT,                                  \
      .compat_class = (sz) * 8,                                              \
   },
#define D(n, sz, asp, doff, soff, dcopy)                                     \
   [IDX(VK_FORMAT_##n)] = {                                                  \
      .format = VK_FORMAT_##n,                                               \
      .name = #n,                                                            \
      .kind = SU_KIND_DEPTH_STENCIL,                                         \
      .block_width = 1,                                                      \
      .block_height = 1,                                                     \
      .block_size = sz,                                                      \
      .aspects = ASPECT_##asp,                                               \
      .depth_offset = doff,                                                  \
      .stencil_offset = soff,                                                \
      .depth_copy_size = dcopy,                                              \
      .compat_class = CLASS_DEPTH_BASE + VK_FORMAT_##n,                      \
   },
#define C(n, bw, bh, sz, nc, cls, is_srgb)                                   \
   [IDX(VK_FORMAT_##n)] = {                                                  \
      .format = VK_FORMAT_##n,                                               \
      .name = #n,                                                            \
      .kind = SU_KIND_COMPRESSED,                                            \
      .block_width = bw,                                                     \
      .block_height = bh,                                                    \
      .block_size = sz,                                                      \
      .num_channels = nc,                                                    \
      .aspects = VK_IMAGE_ASPECT_COLOR_BIT,                                  \
      .compat_class = CLASS_##cls,                                           \
   },
   COLOR_FORMATS
   DS_FORMATS
   COMPRESSED_FORMATS
#undef F
#undef D
#undef C
};

static const struct fmt_layout layouts[NUM_FORMATS] = {
#define F(n, k, sc, sz, nc, bR, bG, bB, bA, oR, oG, oB, oA)                  \
   [IDX(VK_FORMAT_##n)] = { .off = { oR, oG, oB, oA },                       \
                            .srgb = SU_KIND_##k == SU_KIND_SRGB,            \
                            .unorm8 = IS_UNORM8(k, sc, bR, bG, bB, bA) },
#define C(n, bw, bh, sz, nc, cls, is_srgb) [IDX(VK_FORMAT_##n)] = { .srgb = is_srgb },
   COLOR_FORMATS
   COMPRESSED_FORMATS
#undef F
#undef C
};

const struct su_format_desc *su_format_desc(VkFormat format)
{
   uint32_t i;
   if (format >= 1 && format <= NUM_CORE)
      i = (uint32_t)format - 1;
   else if (format == VK_FORMAT_A4R4G4B4_UNORM_PACK16)
      i = IDX_A4R4G4B4;
   else if (format == VK_FORMAT_A4B4G4R4_UNORM_PACK16)
      i = IDX_A4B4G4R4;
   else
      return NULL;
   assert(formats[i].format == format);
   return &formats[i];
}

const struct su_format_desc *su_format_table(uint32_t *count)
{
   *count = NUM_FORMATS;
   return formats;
}

static const struct fmt_layout *layout_of(const struct su_format_desc *desc)
{
   assert(desc >= formats && desc < formats + NUM_FORMATS);
   return &layouts[desc - formats];
}

enum su_numeric_class su_format_class(const struct su_format_desc *desc)
{
   switch (desc->kind) {
   case SU_KIND_UINT:
      return SU_CLASS_UINT;
   case SU_KIND_SINT:
      return SU_CLASS_SINT;
   case SU_KIND_DEPTH_STENCIL:
      return desc->format == VK_FORMAT_S8_UINT ? SU_CLASS_UINT : SU_CLASS_FLOAT;
   default:
      return SU_CLASS_FLOAT;
   }
}

bool su_format_is_srgb(const struct su_format_desc *desc)
{
   return layout_of(desc)->srgb;
}

uint8_t su_format_depth_bits(const struct su_format_desc *desc)
{
   switch (desc->format) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_D16_UNORM_S8_UINT:
      return 16;
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D24_UNORM_S8_UINT:
      return 24;
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return 32;
   default:
      return 0;
   }
}

/* ---- scalar conversions ------------------------------------------------ */

static inline uint32_t float_bits(float f)
{
   uint32_t u;
   memcpy(&u, &f, sizeof(u));
   return u;
}

static inline float bits_float(uint32_t u)
{
   float f;
   memcpy(&f, &u, sizeof(f));
   return f;
}

static inline uint64_t field_mask(unsigned bits)
{
   return bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
}

/*
 * Encodes a non-negative float, given as its bits with the sign cleared, as a
 * float with a 5-bit exponent (bias 15) and `mbits` mantissa bits: half (10),
 * the 11-bit (6) and 10-bit (5) unsigned floats. Rounds to nearest even,
 * produces denormals, and overflows to Inf as IEEE 754 round-to-nearest does
 * (the spec allows Inf or the largest finite value). NaN stays a quiet NaN
 * carrying the top bits of its payload.
 */
static uint32_t encode_e5(uint32_t abs, unsigned mbits)
{
   const uint32_t inf = 0x1fu << mbits;
   if (abs > 0x7f800000u)
      return inf | (1u << (mbits - 1)) | ((abs & 0x7fffffu) >> (23 - mbits));
   if (abs == 0x7f800000u)
      return inf;

   const int e = (int)(abs >> 23) - 127;
   if (e > 15)
      return inf;

   uint32_t mant, shift, v;
   if (e >= -14) {
      /* Normal: keep the exponent and the top mantissa bits; a carry out of
       * the mantissa correctly bumps the exponent (up to Inf). */
      mant = abs & 0x7fffffu;
      shift = 23 - mbits;
      v = ((uint32_t)(e + 15) << mbits) | (mant >> shift);
   } else {
      /* Denormal (or zero): value / 2^(-14 - mbits), with the implicit 1. */
      shift = 23 - mbits + (uint32_t)(-14 - e);
      if (shift > 24)
         return 0;   /* below half the smallest denormal */
      mant = (abs & 0x7fffffu) | 0x800000u;
      v = mant >> shift;
   }
   const uint32_t rem = mant & ((1u << shift) - 1);
   const uint32_t half = 1u << (shift - 1);
   if (rem > half || (rem == half && (v & 1)))
      v++;
   return v;
}

/* Inverse of encode_e5 for an unsigned `5 + mbits`-bit value. */
static float decode_e5(uint32_t v, unsigned mbits)
{
   const uint32_t e = v >> mbits;
   const uint32_t m = v & ((1u << mbits) - 1);
   if (e == 0)
      return ldexpf((float)m, -14 - (int)mbits);
   if (e == 0x1f)   /* Inf, or a NaN made quiet */
      return bits_float(0x7f800000u | (m << (23 - mbits)) | (m ? 0x400000u : 0));
   return bits_float(((e + 112) << 23) | (m << (23 - mbits)));
}

uint16_t su_float_to_half(float f)
{
   const uint32_t x = float_bits(f);
   return (uint16_t)(((x >> 16) & 0x8000u) | encode_e5(x & 0x7fffffffu, 10));
}

float su_half_to_float(uint16_t h)
{
   const float f = decode_e5(h & 0x7fffu, 10);
   return bits_float(float_bits(f) | ((uint32_t)(h & 0x8000u) << 16));
}

/* Unsigned 11- and 10-bit floats: negative (and -Inf) become 0, NaN stays NaN. */
static uint32_t float_to_ufloat(float f, unsigned mbits)
{
   const uint32_t x = float_bits(f);
   if ((x & 0x7fffffffu) > 0x7f800000u)
      return encode_e5(x & 0x7fffffffu, mbits);
   if (x & 0x80000000u)
      return 0;
   return encode_e5(x, mbits);
}

static double srgb_decode(double s)
{
   return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

/* Linear to sRGB with the output clamped to [0, 1] (NaN to 0). */
static double srgb_encode(double l)
{
   if (!(l > 0.0))
      return 0.0;
   if (l >= 1.0)
      return 1.0;
   return l <= 0.0031308 ? l * 12.92 : 1.055 * pow(l, 1.0 / 2.4) - 0.055;
}

float su_srgb_to_linear(float v)
{
   return (float)srgb_decode(v);
}

float su_linear_to_srgb(float v)
{
   return (float)srgb_encode(v);
}

/* Every 8-bit sRGB code decoded and every 8-bit UNORM code divided by 255
 * (the generic path's own expressions, so the tables hold the same bits),
 * filled once. */
static float srgb8_table[256];
static float unorm8_table[256];
static pthread_once_t tables8_once = PTHREAD_ONCE_INIT;
static atomic_bool tables8_ready;

static void tables8_init(void)
{
   for (unsigned i = 0; i < 256; i++) {
      srgb8_table[i] = (float)srgb_decode(i / 255.0);
      unorm8_table[i] = (float)(uint64_t)i / (float)field_mask(8);
   }
   atomic_store_explicit(&tables8_ready, true, memory_order_release);
}

static inline void tables8_once_init(void)
{
   if (!atomic_load_explicit(&tables8_ready, memory_order_acquire))
      pthread_once(&tables8_once, tables8_init);
}

static uint64_t float_to_unorm(float f, unsigned bits)
{
   const double max = (double)field_mask(bits);
   if (!(f > 0.0f))
      return 0;   /* also NaN */
   if (f >= 1.0f)
      return (uint64_t)max;
   return (uint64_t)floor((double)f * max + 0.5);
}

/* Rounds half away from zero, so pack(-x) == -pack(x). */
static uint64_t float_to_snorm(float f, unsigned bits)
{
   const double max = (double)field_mask(bits - 1);
   double v;
   if (f != f)
      v = 0.0;
   else if (f >= 1.0f)
      v = max;
   else if (f <= -1.0f)
      v = -max;
   else
      v = (f < 0 ? -1.0 : 1.0) * floor(fabs((double)f) * max + 0.5);
   return (uint64_t)(int64_t)v & field_mask(bits);
}

static uint64_t float_to_uscaled(float f, unsigned bits)
{
   const double max = (double)field_mask(bits);
   if (!(f > 0.0f))
      return 0;
   return (uint64_t)fmin(floor((double)f + 0.5), max);
}

static uint64_t float_to_sscaled(float f, unsigned bits)
{
   const double max = (double)field_mask(bits - 1);
   if (f != f)
      return 0;
   double v = (f < 0 ? -1.0 : 1.0) * floor(fabs((double)f) + 0.5);
   v = fmax(fmin(v, max), -max - 1.0);
   return (uint64_t)(int64_t)v & field_mask(bits);
}

static int64_t sign_extend(uint64_t raw, unsigned bits)
{
   if (bits >= 64) {
      int64_t s;
      memcpy(&s, &raw, sizeof(s));
      return s;
   }
   if (raw & ((uint64_t)1 << (bits - 1)))
      return (int64_t)raw - ((int64_t)1 << bits);
   return (int64_t)raw;
}

/* ---- texel access ------------------------------------------------------ */

/* Texels of up to 8 bytes are handled as one little-endian word; larger ones
 * (32/64-bit channels) have byte-aligned channels, read one by one. */
static void read_raw(const struct su_format_desc *desc, const struct fmt_layout *l,
                     const void *texel, uint64_t raw[4])
{
   if (desc->block_size <= 8) {
      uint64_t word = 0;
      memcpy(&word, texel, desc->block_size);
      for (unsigned c = 0; c < 4; c++)
         raw[c] = desc->bits[c] ? (word >> l->off[c]) & field_mask(desc->bits[c]) : 0;
   } else {
      const uint8_t *t = texel;
      for (unsigned c = 0; c < 4; c++) {
         raw[c] = 0;
         if (desc->bits[c])
            memcpy(&raw[c], t + l->off[c] / 8, desc->bits[c] / 8);
      }
   }
}

static void write_raw(const struct su_format_desc *desc, const struct fmt_layout *l,
                      const uint64_t raw[4], void *texel)
{
   if (desc->block_size <= 8) {
      uint64_t word = 0;
      for (unsigned c = 0; c < 4; c++) {
         if (desc->bits[c])
            word |= (raw[c] & field_mask(desc->bits[c])) << l->off[c];
      }
      memcpy(texel, &word, desc->block_size);
   } else {
      uint8_t *t = texel;
      for (unsigned c = 0; c < 4; c++) {
         if (desc->bits[c])
            memcpy(t + l->off[c] / 8, &raw[c], desc->bits[c] / 8);
      }
   }
}

static inline bool is_colour(const struct su_format_desc *desc)
{
   return desc->kind != SU_KIND_DEPTH_STENCIL && desc->kind != SU_KIND_COMPRESSED;
}

/* ---- E5B9G9R9 (the spec's shared-exponent conversions, N=9, B=15) -------- */

static void unpack_e5b9g9r9(uint32_t w, float rgba[4])
{
   const int exp = (int)(w >> 27) - 15 - 9;
   for (unsigned c = 0; c < 3; c++)
      rgba[c] = ldexpf((float)((w >> (9 * c)) & 0x1ff), exp);
   rgba[3] = 1.0f;
}

static uint32_t pack_e5b9g9r9(const float rgba[4])
{
   /* sharedexp_max = (2^9 - 1) / 2^9 * 2^(31 - 15) */
   const double sharedexp_max = 511.0 / 512.0 * 65536.0;
   double cl[3], max_c = 0.0;
   for (unsigned c = 0; c < 3; c++) {
      const double v = rgba[c];
      cl[c] = v > 0.0 ? fmin(v, sharedexp_max) : 0.0;   /* NaN -> 0 */
      max_c = fmax(max_c, cl[c]);
   }
   /* exp' = max(-B - 1, floor(log2(max_c))) + 1 + B, floor(log2) taken
    * exactly from the binary exponent. */
   int e2 = -16;
   if (max_c > 0.0) {
      int fe;
      frexp(max_c, &fe);   /* max_c = m * 2^fe, m in [0.5, 1) */
      if (fe - 1 > e2)
         e2 = fe - 1;
   }
   int exp_shared = e2 + 1 + 15;
   const double max_s = floor(ldexp(max_c, -(exp_shared - 15 - 9)) + 0.5);
   if (max_s == 512.0)
      exp_shared++;
   uint32_t w = (uint32_t)exp_shared << 27;
   for (unsigned c = 0; c < 3; c++) {
      const uint32_t s = (uint32_t)floor(ldexp(cl[c], -(exp_shared - 15 - 9)) + 0.5);
      w |= s << (9 * c);
   }
   return w;
}

/* ---- colour texels ----------------------------------------------------- */

void su_unpack_float(const struct su_format_desc *desc, const void *texel, float rgba[4])
{
   const struct fmt_layout *l = layout_of(desc);
   if (l->unorm8) {
      /* The common case: one byte per channel, looked up. */
      assert(is_colour(desc));
      tables8_once_init();
      const uint8_t *t = texel;
      const float *rgb = l->srgb ? srgb8_table : unorm8_table;
      for (unsigned c = 0; c < 3; c++)
         rgba[c] = desc->bits[c] ? rgb[t[l->off[c] / 8]] : 0.0f;
      rgba[3] = desc->bits[3] ? unorm8_table[t[l->off[3] / 8]] : 1.0f;
      return;
   }
   su_unpack_float_generic(desc, texel, rgba);
}

void su_unpack_float_generic(const struct su_format_desc *desc, const void *texel, float rgba[4])
{
   assert(is_colour(desc) && su_format_class(desc) == SU_CLASS_FLOAT);
   if (desc->format == VK_FORMAT_E5B9G9R9_UFLOAT_PACK32) {
      uint32_t w;
      memcpy(&w, texel, 4);
      unpack_e5b9g9r9(w, rgba);
      return;
   }

   const struct fmt_layout *l = layout_of(desc);
   uint64_t raw[4];
   read_raw(desc, l, texel, raw);

   for (unsigned c = 0; c < 4; c++) {
      const unsigned bits = desc->bits[c];
      if (!bits) {
         rgba[c] = c == 3 ? 1.0f : 0.0f;
         continue;
      }
      switch (desc->kind) {
      case SU_KIND_SRGB:   /* alpha is linear UNORM */
      case SU_KIND_UNORM:
         if (desc->kind == SU_KIND_SRGB && c < 3) {
            tables8_once_init();
            rgba[c] = srgb8_table[raw[c] & 0xff];
         } else {
            rgba[c] = desc->scaled ? (float)raw[c] : (float)raw[c] / (float)field_mask(bits);
         }
         break;
      case SU_KIND_SNORM: {
         const float s = (float)sign_extend(raw[c], bits);
         rgba[c] = desc->scaled ? s : fmaxf(s / (float)field_mask(bits - 1), -1.0f);
         break;
      }
      case SU_KIND_SFLOAT:
         if (bits == 16) {
            rgba[c] = su_half_to_float((uint16_t)raw[c]);
         } else if (bits == 32) {
            rgba[c] = bits_float((uint32_t)raw[c]);
         } else {
            double d;
            memcpy(&d, &raw[c], sizeof(d));
            rgba[c] = (float)d;
         }
         break;
      case SU_KIND_UFLOAT:   /* B10G11R11 */
         rgba[c] = decode_e5((uint32_t)raw[c], bits - 5);
         break;
      default:
         assert(!"not a float-class colour format");
         rgba[c] = 0.0f;
         break;
      }
   }
}

void su_pack_float(const struct su_format_desc *desc, const float rgba[4], void *texel)
{
   assert(is_colour(desc) && su_format_class(desc) == SU_CLASS_FLOAT);
   if (desc->format == VK_FORMAT_E5B9G9R9_UFLOAT_PACK32) {
      const uint32_t w = pack_e5b9g9r9(rgba);
      memcpy(texel, &w, 4);
      return;
   }

   const struct fmt_layout *l = layout_of(desc);
   uint64_t raw[4] = { 0, 0, 0, 0 };

   for (unsigned c = 0; c < 4; c++) {
      const unsigned bits = desc->bits[c];
      const float f = rgba[c];
      if (!bits)
         continue;
      switch (desc->kind) {
      case SU_KIND_SRGB:   /* alpha is linear UNORM */
      case SU_KIND_UNORM:
         if (desc->kind == SU_KIND_SRGB && c < 3)
            raw[c] = (uint64_t)floor(srgb_encode(f) * 255.0 + 0.5);
         else if (desc->scaled)
            raw[c] = float_to_uscaled(f, bits);
         else
            raw[c] = float_to_unorm(f, bits);
         break;
      case SU_KIND_SNORM:
         raw[c] = desc->scaled ? float_to_sscaled(f, bits) : float_to_snorm(f, bits);
         break;
      case SU_KIND_SFLOAT:
         if (bits == 16) {
            raw[c] = su_float_to_half(f);
         } else if (bits == 32) {
            raw[c] = float_bits(f);
         } else {
            const double d = f;
            memcpy(&raw[c], &d, sizeof(d));
         }
         break;
      case SU_KIND_UFLOAT:   /* B10G11R11 */
         raw[c] = float_to_ufloat(f, bits - 5);
         break;
      default:
         assert(!"not a float-class colour format");
         break;
      }
   }
   write_raw(desc, l, raw, texel);
}

void su_unpack_uint(const struct su_format_desc *desc, const void *texel, uint32_t rgba[4])
{
   assert(is_colour(desc) && desc->kind == SU_KIND_UINT);
   uint64_t raw[4];
   read_raw(desc, layout_of(desc), texel, raw);
   for (unsigned c = 0; c < 4; c++) {
      if (!desc->bits[c])
         rgba[c] = c == 3 ? 1 : 0;
      else
         rgba[c] = raw[c] > UINT32_MAX ? UINT32_MAX : (uint32_t)raw[c];
   }
}

void su_unpack_sint(const struct su_format_desc *desc, const void *texel, int32_t rgba[4])
{
   assert(is_colour(desc) && desc->kind == SU_KIND_SINT);
   uint64_t raw[4];
   read_raw(desc, layout_of(desc), texel, raw);
   for (unsigned c = 0; c < 4; c++) {
      if (!desc->bits[c]) {
         rgba[c] = c == 3 ? 1 : 0;
      } else {
         const int64_t s = sign_extend(raw[c], desc->bits[c]);
         rgba[c] = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : (int32_t)s;
      }
   }
}

void su_pack_uint(const struct su_format_desc *desc, const uint32_t rgba[4], void *texel)
{
   assert(is_colour(desc) && desc->kind == SU_KIND_UINT);
   uint64_t raw[4] = { 0, 0, 0, 0 };
   for (unsigned c = 0; c < 4; c++) {
      if (desc->bits[c]) {
         const uint64_t max = field_mask(desc->bits[c]);
         raw[c] = rgba[c] > max ? max : rgba[c];
      }
   }
   write_raw(desc, layout_of(desc), raw, texel);
}

void su_pack_sint(const struct su_format_desc *desc, const int32_t rgba[4], void *texel)
{
   assert(is_colour(desc) && desc->kind == SU_KIND_SINT);
   uint64_t raw[4] = { 0, 0, 0, 0 };
   for (unsigned c = 0; c < 4; c++) {
      const unsigned bits = desc->bits[c];
      if (!bits)
         continue;
      const int64_t max = (int64_t)field_mask(bits - 1);
      int64_t v = rgba[c];
      v = v > max ? max : v < -max - 1 ? -max - 1 : v;
      raw[c] = (uint64_t)v & field_mask(bits);
   }
   write_raw(desc, layout_of(desc), raw, texel);
}

/* ---- depth / stencil --------------------------------------------------- */

float su_unpack_depth(const struct su_format_desc *desc, const void *texel)
{
   assert(desc->aspects & VK_IMAGE_ASPECT_DEPTH_BIT);
   const uint8_t *t = (const uint8_t *)texel + desc->depth_offset;
   switch (desc->format) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_D16_UNORM_S8_UINT: {
      uint16_t v;
      memcpy(&v, t, 2);
      return (float)v / 65535.0f;
   }
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D24_UNORM_S8_UINT: {
      uint32_t v;
      memcpy(&v, t, 4);
      return (float)(v & 0xffffffu) / 16777215.0f;
   }
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT: {
      float v;
      memcpy(&v, t, 4);
      return v;
   }
   default:
      assert(!"not a depth format");
      return 0.0f;
   }
}

void su_pack_depth(const struct su_format_desc *desc, float depth, void *texel)
{
   assert(desc->aspects & VK_IMAGE_ASPECT_DEPTH_BIT);
   uint8_t *t = (uint8_t *)texel + desc->depth_offset;
   switch (desc->format) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_D16_UNORM_S8_UINT: {
      const uint16_t v = (uint16_t)float_to_unorm(depth, 16);
      memcpy(t, &v, 2);
      break;
   }
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D24_UNORM_S8_UINT: {
      /* Bytes 0..2 of the little-endian word; byte 3 is the X8 padding
       * (written as 0) or the stencil (left alone). */
      const uint32_t v = (uint32_t)float_to_unorm(depth, 24);
      memcpy(t, &v, desc->format == VK_FORMAT_X8_D24_UNORM_PACK32 ? 4 : 3);
      break;
   }
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      memcpy(t, &depth, 4);
      break;
   default:
      assert(!"not a depth format");
      break;
   }
}

uint8_t su_unpack_stencil(const struct su_format_desc *desc, const void *texel)
{
   assert(desc->aspects & VK_IMAGE_ASPECT_STENCIL_BIT);
   return ((const uint8_t *)texel)[desc->stencil_offset];
}

void su_pack_stencil(const struct su_format_desc *desc, uint8_t stencil, void *texel)
{
   assert(desc->aspects & VK_IMAGE_ASPECT_STENCIL_BIT);
   ((uint8_t *)texel)[desc->stencil_offset] = stencil;
}

/* ---- multi-planar formats ---- */

static const struct su_multiplanar_desc multiplanar[] = {
   {
      .format = VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM,
      .name = "G8_B8_R8_3PLANE_420_UNORM",
      .plane_count = 3,
      .bits = 8,
      .planes = { { VK_FORMAT_R8_UNORM, 1, 1 }, { VK_FORMAT_R8_UNORM, 2, 2 },
                  { VK_FORMAT_R8_UNORM, 2, 2 } },
      .r = { 2, 0 },
      .g = { 0, 0 },
      .b = { 1, 0 },
   },
   {
      .format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM,
      .name = "G8_B8R8_2PLANE_420_UNORM",
      .plane_count = 2,
      .bits = 8,
      .planes = { { VK_FORMAT_R8_UNORM, 1, 1 }, { VK_FORMAT_R8G8_UNORM, 2, 2 } },
      .r = { 1, 1 },
      .g = { 0, 0 },
      .b = { 1, 0 },
   },
};

const struct su_multiplanar_desc *su_format_multiplanar(VkFormat format)
{
   for (size_t i = 0; i < sizeof(multiplanar) / sizeof(multiplanar[0]); i++) {
      if (multiplanar[i].format == format)
         return &multiplanar[i];
   }
   return NULL;
}

const struct su_multiplanar_desc *su_format_multiplanar_table(uint32_t *count)
{
   *count = sizeof(multiplanar) / sizeof(multiplanar[0]);
   return multiplanar;
}
