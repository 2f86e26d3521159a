/*
 * Texel formats compiled shaders convert inline: storage images, storage
 * texel buffers and uniform texel buffers (no LLVM here).
 *
 * Design note
 * -----------
 * Owns: one static table of struct sc_texel_format, the memory layout of
 * every format the generated code reads and writes (little-endian texels
 * of 1, 2, 4, 8, 12 or 16 bytes; each stored channel a bit field of one
 * component). Conversions follow the spec's fixed-point and float rules;
 * llvm_texel.c turns a table entry into IR.
 * Threading: read-only data.
 */
#ifndef SC_FORMAT_H
#define SC_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>

enum sc_texel_kind {
   SC_TEXEL_UNORM,
   SC_TEXEL_SNORM,
   SC_TEXEL_UINT,
   SC_TEXEL_SINT,
   SC_TEXEL_SFLOAT,
   SC_TEXEL_UFLOAT,   /* unsigned 11- and 10-bit floats (B10G11R11) */
};

struct sc_texel_format {
   VkFormat format;
   uint8_t size;       /* bytes per texel */
   uint8_t kind;       /* enum sc_texel_kind, the same for every channel */
   uint8_t channels;   /* stored channels, 1..4 */
   uint8_t comp[4];    /* component (0 = R .. 3 = A) of stored channel i */
   uint8_t shift[4];   /* bit offset of channel i in the texel */
   uint8_t bits[4];
};

/* NULL when generated code cannot convert the format. */
const struct sc_texel_format *sc_texel_format(VkFormat format);

/* The whole table; *count receives its length. */
const struct sc_texel_format *sc_texel_formats(uint32_t *count);

/* The VkFormat of a SPIR-V Image Format (VK_FORMAT_UNDEFINED for Unknown
 * or one we do not convert). */
VkFormat sc_texel_format_from_spirv(uint32_t image_format);

static inline bool
sc_texel_is_integer(const struct sc_texel_format *f)
{
   return f->kind == SC_TEXEL_UINT || f->kind == SC_TEXEL_SINT;
}

#endif
