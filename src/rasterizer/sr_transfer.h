/*
 * sr_transfer: copies, blits and clears on image memory described in plain C.
 *
 * Owns: the texel loops behind vkCmdCopyImage, vkCmdCopyBufferToImage,
 * vkCmdCopyImageToBuffer, vkCmdBlitImage, vkCmdClearColorImage and
 * vkCmdClearDepthStencilImage, and the byte loops of the tile loop's
 * attachment clears (sr_tile.c; its resolves of cleared pixels fill with
 * sr_fill_texel_box) and of its tile memory's write-back
 * (sr_copy_rows_stream).
 * The driver translates Vulkan commands into these calls once, at replay.
 *
 * Invariants: callers have validated regions against the spec's valid usage
 * (the validation layer does the rest); functions never read or write
 * outside the described level. Offsets and extents are in texels; for
 * block-compressed formats copies work on whole blocks (offsets and extents
 * are still given in texels, multiples of the block size or reaching the
 * level's edge). Results are exact to the bit wherever the spec defines them.
 *
 * Threading: functions are reentrant; the caller splits work across threads
 * if it wants (they touch only the memory they are given).
 */
#ifndef SR_TRANSFER_H
#define SR_TRANSFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "util/su_format.h"

/* One mip level of an image, all its array layers, as laid out in memory. */
struct sr_image_level {
   uint8_t *base;                        /* texel (0,0,0) of layer 0 */
   const struct su_format_desc *format;
   uint32_t width, height, depth;        /* in texels (depth 1 unless 3D) */
   uint32_t layers;
   size_t row_pitch;                     /* bytes between rows of blocks */
   size_t depth_pitch;                   /* bytes between z slices */
   size_t layer_pitch;                   /* bytes between array layers */
};

struct sr_box {
   int32_t x, y, z;
   uint32_t w, h, d;
};

/* vkCmdCopyImage: raw block copy (no conversion) between compatible formats.
 * For combined depth/stencil formats, `aspects` selects which bytes move (the
 * other aspect's bytes in dst are left alone). src_box is in source texels;
 * ceil(w / block_width) x ceil(h / block_height) blocks move, landing at the
 * block holding (dst_x, dst_y) (so compressed <-> uncompressed size-compatible
 * copies work). For 3D <-> 2D-array copies the caller maps layers to z
 * itself: call with layer_count = 1 and src_box->d = the number of slices;
 * on the side whose level has depth 1 (the 2D array), slice k is array layer
 * (that side's layer + k) and its z must be 0. */
void sr_copy_image(const struct sr_image_level *src, uint32_t src_layer,
                   const struct sr_box *src_box,
                   const struct sr_image_level *dst, uint32_t dst_layer,
                   int32_t dst_x, int32_t dst_y, int32_t dst_z,
                   uint32_t layer_count, VkImageAspectFlags aspects);

/* vkCmdCopyBufferToImage / vkCmdCopyImageToBuffer for one region.
 * buffer points at bufferOffset; row_length/image_height are in texels and
 * already defaulted by the caller (0 -> extent); for compressed formats they
 * are rounded up to whole blocks. `aspect` is exactly one aspect. Depth
 * aspect copies use depth_copy_size bytes per texel (D24: the value in the
 * low 24 bits of a 32-bit word; image->buffer writes the high byte as 0,
 * buffer->image ignores it); stencil 1 byte; the other aspect of a combined
 * format is preserved. Layers follow each other in the buffer after
 * image_height rows of each depth slice. */
void sr_copy_buffer_to_image(const uint8_t *buffer, uint32_t row_length,
                             uint32_t image_height,
                             const struct sr_image_level *dst, uint32_t base_layer,
                             uint32_t layer_count, const struct sr_box *box,
                             VkImageAspectFlags aspect);
void sr_copy_image_to_buffer(const struct sr_image_level *src, uint32_t base_layer,
                             uint32_t layer_count, const struct sr_box *box,
                             VkImageAspectFlags aspect,
                             uint8_t *buffer, uint32_t row_length, uint32_t image_height);

/* vkCmdBlitImage for one region and its layers. src/dst offsets are the
 * region's two corners (may be mirrored: offsets[1] < offsets[0]). Filter
 * NEAREST or LINEAR; conversion between any two formats of the same numeric
 * class (float/uint/sint), sRGB decoded on read and encoded on write; depth or
 * stencil blits copy the same aspect with NEAREST. Sample positions and
 * clamping follow the spec's "Image Blits" (texel centers, clamp to the
 * source level's edge), computed exactly in integer arithmetic. Integer
 * formats are always NEAREST. Same format at 1:1 without mirroring is a row
 * copy; same-format NEAREST moves texel bytes where that equals the
 * conversion (not SNORM or sRGB). Uncompressed formats only. */
void sr_blit(const struct sr_image_level *src, uint32_t src_layer,
             const int32_t src_offsets[2][3],
             const struct sr_image_level *dst, uint32_t dst_layer,
             const int32_t dst_offsets[2][3],
             uint32_t layer_count, VkImageAspectFlags aspect, VkFilter filter);

/* vkCmdClearColorImage for one level: the whole extent (every z slice of a
 * 3D level) of layers [base_layer, base_layer + layer_count); the caller
 * resolves VK_REMAINING_ARRAY_LAYERS. The value is interpreted by the
 * format's numeric class (float32 / uint32 / int32) and packed once; for
 * 64-bit components (R64*) elements 0-1 are R as one 64-bit value and
 * elements 2-3 G, as the spec's VkClearColorValue says (B and A, which it
 * leaves out, are written 0). Uncompressed colour formats only. */
void sr_clear_color(const struct sr_image_level *dst, uint32_t base_layer,
                    uint32_t layer_count, const VkClearColorValue *value);

/* Like sr_clear_color but limited to a box (attachment clears): box->z/d
 * select z slices of a 3D level, 0/1 otherwise. */
void sr_clear_color_box(const struct sr_image_level *dst, uint32_t base_layer,
                        uint32_t layer_count, const struct sr_box *box,
                        const VkClearColorValue *value);

/* vkCmdClearDepthStencilImage for one level; `aspects` says which of depth
 * and stencil are written (the other is preserved in combined formats).
 * box NULL means the whole level. Depth is clamped to [0, 1] for UNORM depth
 * formats; stencil writes its low 8 bits. */
void sr_clear_depth_stencil(const struct sr_image_level *dst, uint32_t base_layer,
                            uint32_t layer_count, const struct sr_box *box,
                            VkImageAspectFlags aspects, float depth, uint32_t stencil);

/* The largest texel a clear packs (R64G64B64A64). */
#define SR_CLEAR_TEXEL_MAX 32

/* The texel sr_clear_color* writes for `value` in colour format f (the
 * bytes past the format's block size 0). */
void sr_clear_color_texel(const struct su_format_desc *f, const VkClearColorValue *value,
                          uint8_t texel[SR_CLEAR_TEXEL_MAX]);

/* The tile loop's clears and fills (attachment clears, resolves of cleared
 * pixels): the same bytes as sr_clear_color_box, sr_clear_depth_stencil,
 * and for sr_fill_texel_box `texel` (block_size bytes) in every texel of
 * the box. stream: written with non-temporal stores where the texel size
 * divides 64 and the whole texel is written (an sfence before returning),
 * for memory nothing reads again soon; the same bytes either way. */
void sr_clear_color_box_stream(const struct sr_image_level *dst, uint32_t base_layer,
                               uint32_t layer_count, const struct sr_box *box,
                               const VkClearColorValue *value, bool stream);
void sr_clear_depth_stencil_stream(const struct sr_image_level *dst, uint32_t base_layer,
                                   uint32_t layer_count, const struct sr_box *box,
                                   VkImageAspectFlags aspects, float depth, uint32_t stencil,
                                   bool stream);
void sr_fill_texel_box(const struct sr_image_level *dst, uint32_t base_layer,
                       uint32_t layer_count, const struct sr_box *box, const uint8_t *texel,
                       bool stream);

/* `rows` rows of `row_bytes` bytes from src (rows src_pitch apart) to dst
 * (rows dst_pitch apart), the regions not overlapping: the tile loop's
 * write-back of a stored attachment's tile from tile memory (sr_tile.c).
 * dst's whole 64-byte lines are written with non-temporal stores (no read
 * for ownership; an sfence before returning), the rest with plain ones. */
void sr_copy_rows_stream(uint8_t *dst, size_t dst_pitch, const uint8_t *src, size_t src_pitch,
                         size_t row_bytes, uint32_t rows);

#endif
