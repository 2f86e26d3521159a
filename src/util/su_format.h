/*
 * su_format: format descriptions and texel pack/unpack for every VkFormat
 * Shale knows.
 *
 * Owns: one static table of struct su_format_desc, indexed by VkFormat (core
 * formats only), a small table of multi-planar formats (struct
 * su_multiplanar_desc: their planes and where each component lives), and
 * scalar texel conversion to and from 4-channel float, uint32 and int32
 * values, plus depth and stencil.
 *
 * Invariants: a format is "known" when su_format_desc() returns non-NULL; the
 * driver decides separately which known formats it claims (sd_format.c). Image
 * memory stores texels exactly as the format's byte layout in the spec, except
 * combined depth/stencil formats, whose in-memory layout is described by
 * block_size/depth_offset/stencil_offset below. Conversions follow the spec's
 * "Fixed-Point Data Conversions", sRGB transfer functions and the
 * 16/11/10-bit float and shared-exponent rules exactly (round to nearest even
 * for floats, round to nearest for normalized, clamping to the representable
 * range on pack).
 *
 * Threading: the table is read-only; every function is thread-safe (the
 * 8-bit UNORM/sRGB decode tables are filled once, on first use).
 */
#ifndef SU_FORMAT_H
#define SU_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

enum su_format_kind {
   SU_KIND_UNORM,    /* also USCALED is distinguished by `scaled` */
   SU_KIND_SNORM,
   SU_KIND_UINT,
   SU_KIND_SINT,
   SU_KIND_UFLOAT,   /* B10G11R11, E5B9G9R9 */
   SU_KIND_SFLOAT,
   SU_KIND_SRGB,
   SU_KIND_DEPTH_STENCIL,
   SU_KIND_COMPRESSED,
};

/* Which of the three numeric classes a format reads and writes as. */
enum su_numeric_class {
   SU_CLASS_FLOAT,   /* UNORM, SNORM, SCALED, float, sRGB: float values */
   SU_CLASS_UINT,
   SU_CLASS_SINT,
};

struct su_format_desc {
   VkFormat format;
   const char *name;             /* "R8G8B8A8_UNORM" */
   enum su_format_kind kind;
   bool scaled;                  /* USCALED / SSCALED */
   uint8_t block_width;          /* texels per block; 1 for uncompressed */
   uint8_t block_height;
   uint8_t block_size;           /* bytes per texel (or block) in image memory */
   uint8_t num_channels;         /* colour channels present (0 for depth/stencil) */
   uint8_t bits[4];              /* bits of R, G, B, A (0 when absent) */
   VkImageAspectFlags aspects;   /* COLOR, or DEPTH and/or STENCIL */
   /* Depth/stencil only. In image memory a texel is block_size bytes: depth at
    * depth_offset, stencil (one byte) at stencil_offset. Buffer copies of the
    * depth aspect use depth_copy_size bytes per texel (2 for D16, 4 for
    * X8_D24 / D24S8 / D32), of the stencil aspect 1 byte. */
   uint8_t depth_offset;
   uint8_t stencil_offset;
   uint8_t depth_copy_size;
   /* Size class for vkCmdCopyImage compatibility: formats are compatible when
    * their compat_class matches (the spec's "format compatibility classes"). */
   uint16_t compat_class;
};

/* Known formats: every core format from VK_FORMAT_R4G4_UNORM_PACK8 to
 * VK_FORMAT_ASTC_12x12_SRGB_BLOCK, plus A4R4G4B4/A4B4G4R4_UNORM_PACK16.
 * Compressed formats (BC, ETC2/EAC, ASTC LDR) are described (block extent and
 * size, compat_class) but have no pack/unpack.
 *
 * compat_class values: texel size in bits for uncompressed colour formats
 * (so B10G11R11 and E5B9G9R9 share the 32-bit class); one distinct opaque
 * value per compressed block type (BC1_RGB, BC1_RGBA, ..., ASTC_12x12) and
 * per depth/stencil format.
 *
 * Depth/stencil image memory (little-endian):
 *   D16_UNORM            2 bytes
 *   X8_D24_UNORM_PACK32  32-bit word, depth in bits 0..23, bits 24..31 unused
 *   D24_UNORM_S8_UINT    32-bit word, depth in bits 0..23, stencil byte 3
 *   D32_SFLOAT           4 bytes
 *   S8_UINT              1 byte
 *   D16_UNORM_S8_UINT    4 bytes: u16 depth at 0, stencil at 2, 1 pad byte
 *   D32_SFLOAT_S8_UINT   8 bytes: float depth at 0, stencil at 4, 3 pad bytes
 */

/* NULL when the format is unknown (or VK_FORMAT_UNDEFINED). */
const struct su_format_desc *su_format_desc(VkFormat format);

/* Every known format in VkFormat order; *count receives the number. */
const struct su_format_desc *su_format_table(uint32_t *count);

/* Depth/stencil formats report the class of their depth aspect (FLOAT), except
 * S8_UINT (UINT). Compressed formats report FLOAT. */
enum su_numeric_class su_format_class(const struct su_format_desc *desc);

/* True for sRGB-encoded formats, compressed ones included. */
bool su_format_is_srgb(const struct su_format_desc *desc);

/* Bits of the depth aspect: 16, 24 or 32; 0 for formats without depth. */
uint8_t su_format_depth_bits(const struct su_format_desc *desc);

static inline bool su_format_is_depth_stencil(const struct su_format_desc *d)
{
   return d->kind == SU_KIND_DEPTH_STENCIL;
}

/* Colour texels. Missing channels unpack as (0, 0, 0, 1). unpack_float decodes
 * sRGB to linear, SNORM to [-1, 1] (with -MAX mapping to -1), SCALED to the
 * integer value. Each call handles exactly one texel of an uncompressed colour
 * format; calling the wrong class (e.g. unpack_uint on UNORM) is undefined.
 *
 * 64-bit channels (R64*) are converted to and from 32-bit values: SFLOAT
 * unpacks as the double rounded to float and packs the float exactly; UINT
 * and SINT unpack saturated to the 32-bit range and pack zero- or
 * sign-extended. B10G11R11 channels unpack as unsigned 11/10-bit floats;
 * E5B9G9R9 follows the spec's shared-exponent conversion. */
void su_unpack_float(const struct su_format_desc *desc, const void *texel, float rgba[4]);
void su_unpack_uint(const struct su_format_desc *desc, const void *texel, uint32_t rgba[4]);
/* The layout walk every float-class colour format can take; su_unpack_float
 * reads 8-bit UNORM/SRGB texels directly and gives the same bits (unit
 * tests compare the two). */
void su_unpack_float_generic(const struct su_format_desc *desc, const void *texel,
                             float rgba[4]);
void su_unpack_sint(const struct su_format_desc *desc, const void *texel, int32_t rgba[4]);

/* pack_float clamps to the representable range (NaN packs as 0 for normalized
 * formats), encodes sRGB, rounds normalized values to nearest (SNORM and
 * SSCALED halves away from zero) and floats to nearest even. Float overflow
 * follows IEEE round-to-nearest: values beyond the largest finite value plus
 * half an ulp become Inf (half, 11/10-bit); the spec allows Inf or the
 * largest finite value. Unsigned floats take negative values and -Inf to 0;
 * NaN stays a (quiet) NaN. pack_uint/pack_sint clamp to the channel's range.
 * Every byte of the texel is written. */
void su_pack_float(const struct su_format_desc *desc, const float rgba[4], void *texel);
void su_pack_uint(const struct su_format_desc *desc, const uint32_t rgba[4], void *texel);
void su_pack_sint(const struct su_format_desc *desc, const int32_t rgba[4], void *texel);

/* Depth/stencil texels in image memory layout (see depth_offset). UNORM depth
 * packs clamped to [0, 1] (NaN to 0) and rounded to nearest; D32_SFLOAT
 * stores the float unchanged. pack_depth writes only the depth bytes of a
 * combined format (X8_D24 gets its unused byte zeroed), pack_stencil only the
 * stencil byte, so the other aspect is preserved. */
float su_unpack_depth(const struct su_format_desc *desc, const void *texel);
void su_pack_depth(const struct su_format_desc *desc, float depth, void *texel);
uint8_t su_unpack_stencil(const struct su_format_desc *desc, const void *texel);
void su_pack_stencil(const struct su_format_desc *desc, uint8_t stencil, void *texel);

/* Multi-planar formats (Vulkan 1.1 / VK_KHR_sampler_ycbcr_conversion) are
 * not in the table above: su_format_desc() returns NULL for them. Each plane
 * is a single-plane format of the table (the spec's "compatible format for
 * the plane") at width / width_divisor x height / height_divisor texels.
 * The format's G, B and R components (luma and the two chroma components in
 * Y'CbCr terms) live in channel `channel` (0: the plane format's R, 1: its
 * G) of plane `plane`. Known: G8_B8_R8_3PLANE_420_UNORM (R8 / R8 / R8, the
 * last two halved in both dimensions) and G8_B8R8_2PLANE_420_UNORM (R8, then
 * R8G8 halved, B in its R channel, R in its G channel). */
struct su_plane_desc {
   VkFormat format;              /* the plane's compatible format */
   uint8_t width_divisor;
   uint8_t height_divisor;
};

struct su_component_location {
   uint8_t plane;
   uint8_t channel;
};

struct su_multiplanar_desc {
   VkFormat format;
   const char *name;             /* "G8_B8R8_2PLANE_420_UNORM" */
   uint8_t plane_count;          /* 2 or 3 */
   uint8_t bits;                 /* bits of each component */
   struct su_plane_desc planes[3];
   struct su_component_location r, g, b;
};

/* NULL unless `format` is a known multi-planar format. */
const struct su_multiplanar_desc *su_format_multiplanar(VkFormat format);

/* Every known multi-planar format; *count receives the number. */
const struct su_multiplanar_desc *su_format_multiplanar_table(uint32_t *count);

/* The plane a VK_IMAGE_ASPECT_PLANE_n_BIT names (0, 1, 2), or -1 for any
 * other aspect mask. */
static inline int su_plane_of_aspect(VkImageAspectFlags aspect)
{
   return aspect == VK_IMAGE_ASPECT_PLANE_0_BIT   ? 0
          : aspect == VK_IMAGE_ASPECT_PLANE_1_BIT ? 1
          : aspect == VK_IMAGE_ASPECT_PLANE_2_BIT ? 2
                                                  : -1;
}

/* Scalar helpers, also used by the rasterizer and tests. The sRGB functions
 * are the spec's exact piecewise curves (computed in double);
 * su_linear_to_srgb clamps its result to [0, 1] (NaN to 0). */
float su_srgb_to_linear(float v);
float su_linear_to_srgb(float v);
uint16_t su_float_to_half(float f);   /* round to nearest even, Inf/NaN kept */
float su_half_to_float(uint16_t h);

#endif
