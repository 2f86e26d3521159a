/* sr_transfer: texel loops for image copies, buffer <-> image copies, blits and clears. */
#include "rasterizer/sr_transfer.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* Buffer copies of the D24 depth aspect put the 24-bit value in the low bits
 * of a 32-bit word; image memory holds it as 3 little-endian bytes. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sr_transfer assumes a little-endian host"
#endif

/* Largest texel of any format a clear or blit packs (R64G64B64A64). */
#define SR_MAX_TEXEL 32

static inline uint32_t
div_round_up(uint32_t v, uint32_t d)
{
   return (v + d - 1) / d;
}

/* Bytes the depth value occupies in image memory, starting at depth_offset. */
static uint32_t
depth_bytes(const struct su_format_desc *f)
{
   switch (f->format) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_D16_UNORM_S8_UINT:
      return 2;
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D24_UNORM_S8_UINT:
      return 3;
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return 4;
   default:
      return 0;
   }
}

static bool
depth_is_float(const struct su_format_desc *f)
{
   return f->format == VK_FORMAT_D32_SFLOAT || f->format == VK_FORMAT_D32_SFLOAT_S8_UINT;
}

/* A byte range inside one texel (or block). */
struct sr_bytes {
   uint32_t off, len;
};

/* The bytes of a texel that `aspects` selects: the whole texel for colour
 * formats and when every aspect of the format is selected, else the depth
 * bytes or the stencil byte. */
static struct sr_bytes
aspect_bytes(const struct su_format_desc *f, VkImageAspectFlags aspects)
{
   if (!su_format_is_depth_stencil(f) || (aspects & f->aspects) == f->aspects)
      return (struct sr_bytes){0, f->block_size};
   if (aspects & VK_IMAGE_ASPECT_DEPTH_BIT)
      return (struct sr_bytes){f->depth_offset, depth_bytes(f)};
   assert(aspects & VK_IMAGE_ASPECT_STENCIL_BIT);
   return (struct sr_bytes){f->stencil_offset, 1};
}

/* Like aspect_bytes, for one aspect of a buffer copy: exactly the bytes of
 * that aspect (a D24 format's padding byte is never part of it). */
static struct sr_bytes
buffer_aspect_bytes(const struct su_format_desc *f, VkImageAspectFlags aspect)
{
   if (!su_format_is_depth_stencil(f))
      return (struct sr_bytes){0, f->block_size};
   if (aspect & VK_IMAGE_ASPECT_DEPTH_BIT)
      return (struct sr_bytes){f->depth_offset, depth_bytes(f)};
   return (struct sr_bytes){f->stencil_offset, 1};
}

/* Bytes per texel (block) of one aspect in buffer memory. */
static uint32_t
buffer_texel_size(const struct su_format_desc *f, VkImageAspectFlags aspect)
{
   if (!su_format_is_depth_stencil(f))
      return f->block_size;
   if (aspect & VK_IMAGE_ASPECT_DEPTH_BIT)
      return f->depth_copy_size;
   return 1;
}

/* How one row of elements moves: `len` bytes at src_off of every
 * src_stride-byte source element go to dst_off of every dst_stride-byte
 * destination element. zero_dst clears the rest of each destination element
 * first (buffer words wider than the aspect). */
struct sr_elem {
   uint32_t src_stride, dst_stride;
   uint32_t src_off, dst_off;
   uint32_t len;
   bool zero_dst;
};

static inline bool
elem_is_whole(const struct sr_elem *e)
{
   return e->len == e->src_stride && e->len == e->dst_stride;
}

static void
copy_row(uint8_t *dst, const uint8_t *src, uint32_t count, const struct sr_elem *e)
{
   if (elem_is_whole(e)) {
      memcpy(dst, src, (size_t)count * e->len);
      return;
   }
   if (e->zero_dst)
      memset(dst, 0, (size_t)count * e->dst_stride);
   dst += e->dst_off;
   src += e->src_off;
   const size_t ds = e->dst_stride, ss = e->src_stride;
   switch (e->len) {
   case 1:
      for (uint32_t i = 0; i < count; i++)
         dst[i * ds] = src[i * ss];
      break;
   case 2:
      for (uint32_t i = 0; i < count; i++)
         memcpy(dst + i * ds, src + i * ss, 2);
      break;
   case 3:
      for (uint32_t i = 0; i < count; i++)
         memcpy(dst + i * ds, src + i * ss, 3);
      break;
   case 4:
      for (uint32_t i = 0; i < count; i++)
         memcpy(dst + i * ds, src + i * ss, 4);
      break;
   default:
      for (uint32_t i = 0; i < count; i++)
         memcpy(dst + i * ds, src + i * ss, e->len);
      break;
   }
}

/* `rows` rows of `count` elements; one memcpy when both sides are dense. */
static void
copy_rows(uint8_t *dst, size_t dst_pitch, const uint8_t *src, size_t src_pitch,
          uint32_t rows, uint32_t count, const struct sr_elem *e)
{
   const size_t row_bytes = (size_t)count * e->len;
   if (elem_is_whole(e) && src_pitch == row_bytes && dst_pitch == row_bytes) {
      memcpy(dst, src, row_bytes * rows);
      return;
   }
   for (uint32_t y = 0; y < rows; y++)
      copy_row(dst + y * dst_pitch, src + y * src_pitch, count, e);
}

/* Start of plane (l, k) of a box: array layer `layer + l`, z slice `z + k`.
 * A level of depth 1 addressed with d > 1 slices (the 2D-array side of a
 * copy with a 3D image) takes slice k from layer `layer + k` instead. */
static uint8_t *
level_plane(const struct sr_image_level *lvl, uint32_t layer, int32_t z, uint32_t d,
            uint32_t l, uint32_t k)
{
   if (lvl->depth == 1 && d > 1) {
      assert(l == 0 && z == 0);
      assert(layer + k < lvl->layers);
      return lvl->base + (size_t)(layer + k) * lvl->layer_pitch;
   }
   assert(layer + l < lvl->layers);
   assert((uint32_t)z + k < lvl->depth);
   return lvl->base + (size_t)(layer + l) * lvl->layer_pitch +
          (size_t)((uint32_t)z + k) * lvl->depth_pitch;
}

/* Byte offset of the block holding texel (x, y) inside a plane. */
static inline size_t
block_offset(const struct sr_image_level *lvl, int32_t x, int32_t y)
{
   const struct su_format_desc *f = lvl->format;
   return (size_t)((uint32_t)y / f->block_height) * lvl->row_pitch +
          (size_t)((uint32_t)x / f->block_width) * f->block_size;
}

/* Checks (debug builds) that `nbx` x `nby` blocks starting at texel (x, y)
 * lie inside the level; a partial block at the level's edge counts whole. */
static inline void
assert_blocks_in_level(const struct sr_image_level *lvl, int32_t x, int32_t y,
                       uint32_t nbx, uint32_t nby)
{
   const struct su_format_desc *f = lvl->format;
   (void)f; (void)x; (void)y; (void)nbx; (void)nby;
   assert(x >= 0 && y >= 0);
   assert(x % f->block_width == 0 && y % f->block_height == 0);
   assert((uint64_t)x / f->block_width + nbx <= div_round_up(lvl->width, f->block_width));
   assert((uint64_t)y / f->block_height + nby <= div_round_up(lvl->height, f->block_height));
}

void
sr_copy_image(const struct sr_image_level *src, uint32_t src_layer,
              const struct sr_box *src_box,
              const struct sr_image_level *dst, uint32_t dst_layer,
              int32_t dst_x, int32_t dst_y, int32_t dst_z,
              uint32_t layer_count, VkImageAspectFlags aspects)
{
   const struct su_format_desc *sf = src->format, *df = dst->format;
   assert(sf->block_size == df->block_size);

   const uint32_t nbx = div_round_up(src_box->w, sf->block_width);
   const uint32_t nby = div_round_up(src_box->h, sf->block_height);
   const uint32_t d = src_box->d;
   if (nbx == 0 || nby == 0 || d == 0 || layer_count == 0)
      return;

   assert_blocks_in_level(src, src_box->x, src_box->y, nbx, nby);
   assert_blocks_in_level(dst, dst_x, dst_y, nbx, nby);

   const struct sr_bytes sb = aspect_bytes(sf, aspects);
   const struct sr_bytes db = aspect_bytes(df, aspects);
   assert(sb.len == db.len);
   const struct sr_elem e = {
      .src_stride = sf->block_size, .dst_stride = df->block_size,
      .src_off = sb.off, .dst_off = db.off, .len = sb.len,
   };
   const size_t src_off = block_offset(src, src_box->x, src_box->y);
   const size_t dst_off = block_offset(dst, dst_x, dst_y);

   for (uint32_t l = 0; l < layer_count; l++) {
      for (uint32_t k = 0; k < d; k++) {
         const uint8_t *s = level_plane(src, src_layer, src_box->z, d, l, k) + src_off;
         uint8_t *t = level_plane(dst, dst_layer, dst_z, d, l, k) + dst_off;
         copy_rows(t, dst->row_pitch, s, src->row_pitch, nby, nbx, &e);
      }
   }
}

/* Shared body of both buffer directions; to_image picks the direction. */
static void
copy_buffer_image(uint8_t *buffer, uint32_t row_length, uint32_t image_height,
                  const struct sr_image_level *img, uint32_t base_layer,
                  uint32_t layer_count, const struct sr_box *box,
                  VkImageAspectFlags aspect, bool to_image)
{
   const struct su_format_desc *f = img->format;
   const uint32_t nbx = div_round_up(box->w, f->block_width);
   const uint32_t nby = div_round_up(box->h, f->block_height);
   const uint32_t d = box->d;
   if (nbx == 0 || nby == 0 || d == 0 || layer_count == 0)
      return;
   assert(row_length >= box->w && image_height >= box->h);
   assert_blocks_in_level(img, box->x, box->y, nbx, nby);

   const uint32_t buf_texel = buffer_texel_size(f, aspect);
   const size_t buf_row_pitch = (size_t)div_round_up(row_length, f->block_width) * buf_texel;
   const size_t buf_plane_pitch =
      (size_t)div_round_up(image_height, f->block_height) * buf_row_pitch;
   const struct sr_bytes ib = buffer_aspect_bytes(f, aspect);
   assert(ib.len <= buf_texel);

   struct sr_elem e;
   if (to_image) {
      e = (struct sr_elem){ .src_stride = buf_texel, .dst_stride = f->block_size,
                            .src_off = 0, .dst_off = ib.off, .len = ib.len };
   } else {
      e = (struct sr_elem){ .src_stride = f->block_size, .dst_stride = buf_texel,
                            .src_off = ib.off, .dst_off = 0, .len = ib.len,
                            .zero_dst = ib.len < buf_texel };
   }
   const size_t img_off = block_offset(img, box->x, box->y);

   for (uint32_t l = 0; l < layer_count; l++) {
      for (uint32_t k = 0; k < d; k++) {
         uint8_t *b = buffer + ((size_t)l * d + k) * buf_plane_pitch;
         uint8_t *p = level_plane(img, base_layer, box->z, d, l, k) + img_off;
         if (to_image)
            copy_rows(p, img->row_pitch, b, buf_row_pitch, nby, nbx, &e);
         else
            copy_rows(b, buf_row_pitch, p, img->row_pitch, nby, nbx, &e);
      }
   }
}

void
sr_copy_buffer_to_image(const uint8_t *buffer, uint32_t row_length,
                        uint32_t image_height,
                        const struct sr_image_level *dst, uint32_t base_layer,
                        uint32_t layer_count, const struct sr_box *box,
                        VkImageAspectFlags aspect)
{
   /* The buffer is only read in this direction. */
   copy_buffer_image((uint8_t *)buffer, row_length, image_height, dst, base_layer,
                     layer_count, box, aspect, true);
}

void
sr_copy_image_to_buffer(const struct sr_image_level *src, uint32_t base_layer,
                        uint32_t layer_count, const struct sr_box *box,
                        VkImageAspectFlags aspect,
                        uint8_t *buffer, uint32_t row_length, uint32_t image_height)
{
   copy_buffer_image(buffer, row_length, image_height, src,
                     base_layer, layer_count, box, aspect, false);
}

/* ---- blits ---- */

/* Where destination texel centers land on one source axis. The spec's
 * u = (i + 1/2 - dst0) * (src1 - src0) / (dst1 - dst0) + src0 is evaluated in
 * exact integer arithmetic as u = src0 + num / den, so texel boundaries and
 * centers are hit exactly whatever the scale (and mirroring: den < 0 or
 * src1 < src0). */
struct sr_axis {
   int64_t d0, s0;         /* first destination / source offset */
   int64_t s_extent;       /* src1 - src0 */
   int64_t d_extent;       /* dst1 - dst0 */
   int32_t size;           /* source level size on this axis (clamp to edge) */
};

/* floor(n / q) for q > 0 */
static inline int64_t
floor_div(int64_t n, int64_t q)
{
   const int64_t r = n / q;
   return (n % q != 0 && n < 0) ? r - 1 : r;
}

static inline int32_t
axis_nearest(const struct sr_axis *a, int32_t i)
{
   /* u - src0 = (2 (i - d0) + 1) * s_extent / (2 d_extent) */
   int64_t n = (2 * (i - a->d0) + 1) * a->s_extent, q = 2 * a->d_extent;
   if (q < 0) {
      n = -n;
      q = -q;
   }
   const int64_t u = floor_div(n, q) + a->s0;
   return u < 0 ? 0 : (u >= a->size ? a->size - 1 : (int32_t)u);
}

/* Linear filtering on one axis: texels i0 and i1 with weights 1 - frac and
 * frac, where u - 1/2 = i0 + frac. A zero weight (texel center hit exactly,
 * or both clamped to one edge texel) collapses to one texel, so Inf/NaN
 * neighbours never leak in through a zero weight. */
static inline void
axis_linear(const struct sr_axis *a, int32_t i, int32_t *i0, int32_t *i1, float *frac)
{
   /* u - 1/2 - src0 = ((2 (i - d0) + 1) * s_extent - d_extent) / (2 d_extent) */
   int64_t n = (2 * (i - a->d0) + 1) * a->s_extent - a->d_extent, q = 2 * a->d_extent;
   if (q < 0) {
      n = -n;
      q = -q;
   }
   const int64_t fl = floor_div(n, q);
   const int64_t base = fl + a->s0;
   const int64_t rem = n - fl * q;
   *i0 = (int32_t)(base < 0 ? 0 : (base >= a->size ? a->size - 1 : base));
   *i1 = (int32_t)(base + 1 < 0 ? 0 : (base + 1 >= a->size ? a->size - 1 : base + 1));
   *frac = (float)((double)rem / (double)q);
   if (rem == 0 || *i0 == *i1) {
      *i1 = *i0;
      *frac = 0.0f;
   }
}

static inline const uint8_t *
texel_ptr(const struct sr_image_level *lvl, uint32_t layer, int32_t x, int32_t y, int32_t z)
{
   return lvl->base + (size_t)layer * lvl->layer_pitch + (size_t)z * lvl->depth_pitch +
          (size_t)y * lvl->row_pitch + (size_t)x * lvl->format->block_size;
}

/* Same-format copies whose per-texel conversion is the identity may move the
 * texel bytes instead: UNORM/USCALED (k / MAX round-trips), integers, floats
 * (NaN payloads aside), depth/stencil. Not SNORM (-MAX-1 reads as -1 and
 * writes back as -MAX) nor sRGB (round trip depends on transfer precision). */
static bool
raw_copy_is_exact(const struct su_format_desc *f)
{
   switch (f->kind) {
   case SU_KIND_UNORM:
   case SU_KIND_UINT:
   case SU_KIND_SINT:
   case SU_KIND_UFLOAT:
   case SU_KIND_SFLOAT:
   case SU_KIND_DEPTH_STENCIL:
      return true;
   default:
      return false;
   }
}

/* Converting depth/stencil write of one aspect (only for differing formats,
 * which valid usage rules out; kept so such a call still does the right
 * thing). The other aspect of dst is preserved. */
static void
blit_ds_convert(const struct su_format_desc *sf, const uint8_t *s,
                const struct su_format_desc *df, uint8_t *t, VkImageAspectFlags aspect)
{
   uint8_t tmp[SR_MAX_TEXEL];
   memcpy(tmp, t, df->block_size);
   if ((aspect & VK_IMAGE_ASPECT_DEPTH_BIT) && (sf->aspects & VK_IMAGE_ASPECT_DEPTH_BIT) &&
       (df->aspects & VK_IMAGE_ASPECT_DEPTH_BIT)) {
      su_pack_depth(df, su_unpack_depth(sf, s), tmp);
      memcpy(t + df->depth_offset, tmp + df->depth_offset, depth_bytes(df));
   }
   if ((aspect & VK_IMAGE_ASPECT_STENCIL_BIT) && (sf->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) &&
       (df->aspects & VK_IMAGE_ASPECT_STENCIL_BIT)) {
      su_pack_stencil(df, su_unpack_stencil(sf, s), tmp);
      t[df->stencil_offset] = tmp[df->stencil_offset];
   }
}

static void
blit_linear_float(const struct sr_image_level *src, uint32_t layer,
                  int32_t x0, int32_t x1, float fx, int32_t y0, int32_t y1, float fy,
                  int32_t z0, int32_t z1, float fz, float out[4])
{
   const int32_t xs[2] = {x0, x1}, ys[2] = {y0, y1}, zs[2] = {z0, z1};
   const float wx[2] = {1.0f - fx, fx}, wy[2] = {1.0f - fy, fy}, wz[2] = {1.0f - fz, fz};
   const int nx = x0 == x1 ? 1 : 2, ny = y0 == y1 ? 1 : 2, nz = z0 == z1 ? 1 : 2;

   out[0] = out[1] = out[2] = out[3] = 0.0f;
   for (int c = 0; c < nz; c++) {
      for (int b = 0; b < ny; b++) {
         for (int a = 0; a < nx; a++) {
            const float w = (nx == 1 ? 1.0f : wx[a]) * (ny == 1 ? 1.0f : wy[b]) *
                            (nz == 1 ? 1.0f : wz[c]);
            float t[4];
            su_unpack_float(src->format, texel_ptr(src, layer, xs[a], ys[b], zs[c]), t);
            for (int i = 0; i < 4; i++)
               out[i] += w * t[i];
         }
      }
   }
}

void
sr_blit(const struct sr_image_level *src, uint32_t src_layer,
        const int32_t src_offsets[2][3],
        const struct sr_image_level *dst, uint32_t dst_layer,
        const int32_t dst_offsets[2][3],
        uint32_t layer_count, VkImageAspectFlags aspect, VkFilter filter)
{
   const struct su_format_desc *sf = src->format, *df = dst->format;
   assert(sf->block_width == 1 && sf->block_height == 1);
   assert(df->block_width == 1 && df->block_height == 1);

   int32_t lo[3], hi[3];
   struct sr_axis ax[3];
   bool unscaled = true;
   const int32_t src_size[3] = {(int32_t)src->width, (int32_t)src->height, (int32_t)src->depth};
   for (int a = 0; a < 3; a++) {
      const int32_t d0 = dst_offsets[0][a], d1 = dst_offsets[1][a];
      const int32_t s0 = src_offsets[0][a], s1 = src_offsets[1][a];
      lo[a] = d0 < d1 ? d0 : d1;
      hi[a] = d0 < d1 ? d1 : d0;
      if (lo[a] == hi[a] || s0 == s1)
         return;
      ax[a] = (struct sr_axis){ .d0 = d0, .s0 = s0, .s_extent = (int64_t)s1 - s0,
                                .d_extent = (int64_t)d1 - d0, .size = src_size[a] };
      if (s1 - s0 != d1 - d0)
         unscaled = false;
   }
   if (layer_count == 0)
      return;
   assert(lo[0] >= 0 && (uint32_t)hi[0] <= dst->width);
   assert(lo[1] >= 0 && (uint32_t)hi[1] <= dst->height);
   assert(lo[2] >= 0 && (uint32_t)hi[2] <= dst->depth);
   assert((uint64_t)src_layer + layer_count <= src->layers);
   assert((uint64_t)dst_layer + layer_count <= dst->layers);

   /* Same format, 1:1, same orientation: a plain copy. */
   if (unscaled && sf->format == df->format) {
      const struct sr_box box = {
         src_offsets[0][0] < src_offsets[1][0] ? src_offsets[0][0] : src_offsets[1][0],
         src_offsets[0][1] < src_offsets[1][1] ? src_offsets[0][1] : src_offsets[1][1],
         src_offsets[0][2] < src_offsets[1][2] ? src_offsets[0][2] : src_offsets[1][2],
         (uint32_t)(hi[0] - lo[0]), (uint32_t)(hi[1] - lo[1]), (uint32_t)(hi[2] - lo[2]),
      };
      if (box.d == 1 || (src->depth > 1 && dst->depth > 1)) {
         sr_copy_image(src, src_layer, &box, dst, dst_layer, lo[0], lo[1], lo[2],
                       layer_count, aspect);
         return;
      }
   }

   const bool ds = su_format_is_depth_stencil(sf);
   const enum su_numeric_class cls = ds ? SU_CLASS_FLOAT : su_format_class(sf);
   assert(ds == su_format_is_depth_stencil(df));
   assert(ds || cls == su_format_class(df));
   /* Depth/stencil and integer blits are NEAREST only (valid usage). */
   const bool linear = filter == VK_FILTER_LINEAR && !ds && cls == SU_CLASS_FLOAT;
   const bool raw = !linear && sf->format == df->format && raw_copy_is_exact(sf);
   const struct sr_bytes rb = aspect_bytes(sf, aspect);

   for (uint32_t l = 0; l < layer_count; l++) {
      for (int32_t k = lo[2]; k < hi[2]; k++) {
         int32_t z0, z1 = 0;
         float fz = 0.0f;
         if (linear)
            axis_linear(&ax[2], k, &z0, &z1, &fz);
         else
            z0 = axis_nearest(&ax[2], k);
         for (int32_t j = lo[1]; j < hi[1]; j++) {
            int32_t y0, y1 = 0;
            float fy = 0.0f;
            if (linear)
               axis_linear(&ax[1], j, &y0, &y1, &fy);
            else
               y0 = axis_nearest(&ax[1], j);
            uint8_t *t = (uint8_t *)texel_ptr(dst, dst_layer + l, lo[0], j, k);
            for (int32_t i = lo[0]; i < hi[0]; i++, t += df->block_size) {
               if (linear) {
                  int32_t x0, x1;
                  float fx, rgba[4];
                  axis_linear(&ax[0], i, &x0, &x1, &fx);
                  blit_linear_float(src, src_layer + l, x0, x1, fx, y0, y1, fy,
                                    z0, z1, fz, rgba);
                  su_pack_float(df, rgba, t);
                  continue;
               }
               const uint8_t *s = texel_ptr(src, src_layer + l, axis_nearest(&ax[0], i), y0, z0);
               if (raw) {
                  memcpy(t + rb.off, s + rb.off, rb.len);
               } else if (ds) {
                  blit_ds_convert(sf, s, df, t, aspect);
               } else if (cls == SU_CLASS_FLOAT) {
                  float v[4];
                  su_unpack_float(sf, s, v);
                  su_pack_float(df, v, t);
               } else if (cls == SU_CLASS_UINT) {
                  uint32_t v[4];
                  su_unpack_uint(sf, s, v);
                  su_pack_uint(df, v, t);
               } else {
                  int32_t v[4];
                  su_unpack_sint(sf, s, v);
                  su_pack_sint(df, v, t);
               }
            }
         }
      }
   }
}

/* ---- clears ---- */

#if defined(__SSE2__)
#include <emmintrin.h>
#define SR_FILL_STREAM 1
#else
#define SR_FILL_STREAM 0
#endif

/* n bytes of the texel pattern `rep` (the texel repeated over 128 bytes)
 * from a texel boundary, plain stores. */
static void
fill_row_plain(uint8_t *row, size_t n, const uint8_t *rep)
{
   for (size_t off = 0; off < n; off += 128)
      memcpy(row + off, rep, n - off < 128 ? n - off : 128);
}

#if SR_FILL_STREAM
/* fill_row_plain with non-temporal stores: the bytes before the row's
 * first 64-byte line and after its last whole one are plain stores, every
 * whole line four 16-byte streaming stores (no read for ownership, no
 * cache line taken). The texel size divides 64, so every line starts at
 * the same place in the texel: the pattern from that byte on. */
static void
fill_row_stream(uint8_t *row, size_t n, const uint8_t *rep, uint32_t bs)
{
   const size_t head = (size_t)(-(uintptr_t)row & 63);
   if (n < head + 64) {
      fill_row_plain(row, n, rep);
      return;
   }
   memcpy(row, rep, head);
   const uint8_t *pat = rep + head % bs;   /* at most 31 + 64 bytes in */
   const __m128i p0 = _mm_loadu_si128((const __m128i *)pat);
   const __m128i p1 = _mm_loadu_si128((const __m128i *)(pat + 16));
   const __m128i p2 = _mm_loadu_si128((const __m128i *)(pat + 32));
   const __m128i p3 = _mm_loadu_si128((const __m128i *)(pat + 48));
   size_t off = head;
   for (; off + 64 <= n; off += 64) {
      __m128i *line = (__m128i *)(row + off);
      _mm_stream_si128(line, p0);
      _mm_stream_si128(line + 1, p1);
      _mm_stream_si128(line + 2, p2);
      _mm_stream_si128(line + 3, p3);
   }
   memcpy(row + off, pat, n - off);
}
#endif

/* Writes `bytes` of `texel` into every texel of the box: whole texels are
 * a memset where the texel is one byte repeated, else replicated with
 * doubling memcpys into the first row, which then seeds every other row
 * (rows with no gap between them count as one). stream: whole texels of a size dividing 64 go with
 * non-temporal stores (fill_row_stream; for memory nothing reads back
 * soon: the tile loop's clears after a tile's last primitive), an sfence
 * at the end. */
static void
fill_box(const struct sr_image_level *dst, uint32_t base_layer, uint32_t layer_count,
         const struct sr_box *box, const uint8_t *texel, struct sr_bytes bytes, bool stream)
{
   const struct su_format_desc *f = dst->format;
   const uint32_t bs = f->block_size;
   assert(f->block_width == 1 && f->block_height == 1);
   if (box->w == 0 || box->h == 0 || box->d == 0 || layer_count == 0)
      return;
   assert_blocks_in_level(dst, box->x, box->y, box->w, box->h);
   assert(box->z >= 0 && (uint64_t)box->z + box->d <= dst->depth);
   assert((uint64_t)base_layer + layer_count <= dst->layers);

   const size_t row_bytes = (size_t)box->w * bs;
#if SR_FILL_STREAM
   if (stream && bytes.len == bs && bs <= 32 && 64 % bs == 0) {
      uint8_t rep[128];
      for (uint32_t i = 0; i < 128; i += bs)
         memcpy(rep + i, texel, bs);
      for (uint32_t l = 0; l < layer_count; l++) {
         for (uint32_t k = 0; k < box->d; k++) {
            uint8_t *row = (uint8_t *)texel_ptr(dst, base_layer + l, box->x, box->y,
                                                box->z + (int32_t)k);
            for (uint32_t y = 0; y < box->h; y++, row += dst->row_pitch)
               fill_row_stream(row, row_bytes, rep, bs);
         }
      }
      _mm_sfence();
      return;
   }
#else
   (void)stream;
#endif
   /* Rows with no gap between them (tile memory, sr_tile.c; a box as
    * wide as the level) are filled as one; a texel of one byte repeated
    * (0, all ones, vkcube's grey) is a memset. */
   size_t fill_bytes = row_bytes;
   uint32_t rows = box->h;
   if (dst->row_pitch == row_bytes) {
      fill_bytes *= rows;
      rows = 1;
   }
   bool one_byte = bytes.len == bs;
   for (uint32_t i = 1; i < bs && one_byte; i++)
      one_byte = texel[i] == texel[0];
   const uint8_t *seed = NULL;
   for (uint32_t l = 0; l < layer_count; l++) {
      for (uint32_t k = 0; k < box->d; k++) {
         uint8_t *row = (uint8_t *)texel_ptr(dst, base_layer + l, box->x, box->y,
                                             box->z + (int32_t)k);
         for (uint32_t y = 0; y < rows; y++, row += dst->row_pitch) {
            if (one_byte) {
               memset(row, texel[0], fill_bytes);
            } else if (bytes.len != bs) {
               for (size_t x = 0; x < fill_bytes / bs; x++)
                  memcpy(row + x * bs + bytes.off, texel + bytes.off, bytes.len);
            } else if (seed) {
               memcpy(row, seed, fill_bytes);
            } else {
               size_t filled = bs;
               memcpy(row, texel, bs);
               while (filled < fill_bytes) {
                  const size_t n = filled < fill_bytes - filled ? filled : fill_bytes - filled;
                  memcpy(row + filled, row, n);
                  filled += n;
               }
               seed = row;
            }
         }
      }
   }
}

void
sr_copy_rows_stream(uint8_t *dst, size_t dst_pitch, const uint8_t *src, size_t src_pitch,
                    size_t row_bytes, uint32_t rows)
{
   for (uint32_t y = 0; y < rows; y++, dst += dst_pitch, src += src_pitch) {
#if SR_FILL_STREAM
      const size_t head = (size_t)(-(uintptr_t)dst & 63);
      if (row_bytes >= head + 64) {
         memcpy(dst, src, head);
         size_t off = head;
         for (; off + 64 <= row_bytes; off += 64) {
            const __m128i *s = (const __m128i *)(src + off);
            __m128i *line = (__m128i *)(dst + off);
            const __m128i p0 = _mm_loadu_si128(s), p1 = _mm_loadu_si128(s + 1);
            const __m128i p2 = _mm_loadu_si128(s + 2), p3 = _mm_loadu_si128(s + 3);
            _mm_stream_si128(line, p0);
            _mm_stream_si128(line + 1, p1);
            _mm_stream_si128(line + 2, p2);
            _mm_stream_si128(line + 3, p3);
         }
         memcpy(dst + off, src + off, row_bytes - off);
         continue;
      }
#endif
      memcpy(dst, src, row_bytes);
   }
#if SR_FILL_STREAM
   _mm_sfence();
#endif
}

void
sr_clear_color_texel(const struct su_format_desc *f, const VkClearColorValue *value,
                     uint8_t texel[SR_CLEAR_TEXEL_MAX])
{
   assert(!su_format_is_depth_stencil(f) && f->block_size <= SR_MAX_TEXEL);
   memset(texel, 0, SR_CLEAR_TEXEL_MAX);
   if (f->bits[0] == 64) {
      /* 64-bit components: the spec reads elements 0-1 of the value as R
       * (one 64-bit uint, int or double, the same bits for each class) and
       * elements 2-3 as G; B and A are out of the union's reach: 0. */
      const uint32_t n = f->block_size < 16 ? f->block_size : 16;
      memcpy(texel, value->uint32, n);
      return;
   }
   switch (su_format_class(f)) {
   case SU_CLASS_FLOAT:
      su_pack_float(f, value->float32, texel);
      break;
   case SU_CLASS_UINT:
      su_pack_uint(f, value->uint32, texel);
      break;
   case SU_CLASS_SINT:
      su_pack_sint(f, value->int32, texel);
      break;
   }
}

void
sr_fill_texel_box(const struct sr_image_level *dst, uint32_t base_layer, uint32_t layer_count,
                  const struct sr_box *box, const uint8_t *texel, bool stream)
{
   fill_box(dst, base_layer, layer_count, box, texel,
            (struct sr_bytes){0, dst->format->block_size}, stream);
}

void
sr_clear_color_box_stream(const struct sr_image_level *dst, uint32_t base_layer,
                          uint32_t layer_count, const struct sr_box *box,
                          const VkClearColorValue *value, bool stream)
{
   uint8_t texel[SR_CLEAR_TEXEL_MAX];
   sr_clear_color_texel(dst->format, value, texel);
   sr_fill_texel_box(dst, base_layer, layer_count, box, texel, stream);
}

void
sr_clear_color_box(const struct sr_image_level *dst, uint32_t base_layer,
                   uint32_t layer_count, const struct sr_box *box,
                   const VkClearColorValue *value)
{
   sr_clear_color_box_stream(dst, base_layer, layer_count, box, value, false);
}

void
sr_clear_color(const struct sr_image_level *dst, uint32_t base_layer,
               uint32_t layer_count, const VkClearColorValue *value)
{
   const struct sr_box box = {0, 0, 0, dst->width, dst->height, dst->depth};
   sr_clear_color_box(dst, base_layer, layer_count, &box, value);
}

void
sr_clear_depth_stencil(const struct sr_image_level *dst, uint32_t base_layer,
                       uint32_t layer_count, const struct sr_box *box,
                       VkImageAspectFlags aspects, float depth, uint32_t stencil)
{
   sr_clear_depth_stencil_stream(dst, base_layer, layer_count, box, aspects, depth, stencil,
                                 false);
}

void
sr_clear_depth_stencil_stream(const struct sr_image_level *dst, uint32_t base_layer,
                              uint32_t layer_count, const struct sr_box *box,
                              VkImageAspectFlags aspects, float depth, uint32_t stencil,
                              bool stream)
{
   const struct su_format_desc *f = dst->format;
   assert(su_format_is_depth_stencil(f) && f->block_size <= SR_MAX_TEXEL);
   aspects &= f->aspects;
   if (!aspects)
      return;

   const struct sr_box whole = {0, 0, 0, dst->width, dst->height, dst->depth};
   if (!box)
      box = &whole;

   /* Pack each aspect into its own scratch texel so neither packer can
    * disturb the other's bytes, then assemble the texel to replicate. */
   uint8_t texel[SR_MAX_TEXEL] = {0};
   if (aspects & VK_IMAGE_ASPECT_DEPTH_BIT) {
      uint8_t tmp[SR_MAX_TEXEL] = {0};
      if (!depth_is_float(f))
         depth = fminf(fmaxf(depth, 0.0f), 1.0f);   /* NaN -> 0 */
      su_pack_depth(f, depth, tmp);
      memcpy(texel + f->depth_offset, tmp + f->depth_offset, depth_bytes(f));
   }
   if (aspects & VK_IMAGE_ASPECT_STENCIL_BIT) {
      uint8_t tmp[SR_MAX_TEXEL] = {0};
      su_pack_stencil(f, (uint8_t)(stencil & 0xff), tmp);
      texel[f->stencil_offset] = tmp[f->stencil_offset];
   }
   fill_box(dst, base_layer, layer_count, box, texel, aspect_bytes(f, aspects), stream);
}
