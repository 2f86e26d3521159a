/* Unit test of sr_transfer: copies, buffer copies, blits and clears against naive references. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rasterizer/sr_transfer.h"

/* Bytes of random filler before and after every allocation. */
#define GUARD 64

static uint32_t rng_state = 0x12345678u;

static uint32_t
rng(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 17;
   rng_state ^= rng_state << 5;
   return rng_state;
}

static void
fill_random(uint8_t *p, size_t n)
{
   for (size_t i = 0; i < n; i++)
      p[i] = (uint8_t)rng();
}

static const struct su_format_desc *
fmt(VkFormat f)
{
   const struct su_format_desc *d = su_format_desc(f);
   if (!d) {
      fprintf(stderr, "format %d unknown to su_format\n", (int)f);
      exit(1);
   }
   return d;
}

/* A test image: one level with padded pitches, every byte (padding and guard
 * bytes included) random, so a stray write shows up in a whole-buffer compare. */
struct timg {
   uint8_t *mem;
   size_t size;
   struct sr_image_level lvl;
};

static void
timg_init(struct timg *t, VkFormat format, uint32_t w, uint32_t h, uint32_t d, uint32_t layers)
{
   const struct su_format_desc *f = fmt(format);
   const size_t bw = (w + f->block_width - 1) / f->block_width;
   const size_t bh = (h + f->block_height - 1) / f->block_height;
   memset(t, 0, sizeof(*t));
   t->lvl.format = f;
   t->lvl.width = w;
   t->lvl.height = h;
   t->lvl.depth = d;
   t->lvl.layers = layers;
   t->lvl.row_pitch = (bw * f->block_size + 16 + 15) & ~(size_t)15;
   t->lvl.depth_pitch = t->lvl.row_pitch * (bh + 1);
   t->lvl.layer_pitch = t->lvl.depth_pitch * d + 48;
   t->size = t->lvl.layer_pitch * layers + 2 * GUARD;
   t->mem = malloc(t->size);
   fill_random(t->mem, t->size);
   t->lvl.base = t->mem + GUARD;
}

static void
timg_finish(struct timg *t)
{
   free(t->mem);
}

static uint8_t *
dup_mem(const uint8_t *p, size_t n)
{
   uint8_t *q = malloc(n);
   memcpy(q, p, n);
   return q;
}

/* Offset in t->mem of the block holding texel (x, y, z) of `layer`. */
static size_t
toff(const struct timg *t, uint32_t layer, uint32_t x, uint32_t y, uint32_t z)
{
   const struct su_format_desc *f = t->lvl.format;
   return GUARD + layer * t->lvl.layer_pitch + z * t->lvl.depth_pitch +
          (y / f->block_height) * t->lvl.row_pitch + (x / f->block_width) * f->block_size;
}

static bool
check_mem(const uint8_t *got, const uint8_t *exp, size_t n, const char *what)
{
   size_t i = 0;
   while (i < n && got[i] == exp[i])
      i++;
   CHECK(i == n, "%s: first difference at byte %zu of %zu (got 0x%02x, expected 0x%02x)",
         what, i, n, i < n ? got[i] : 0, i < n ? exp[i] : 0);
   return i == n;
}

/* ---- vkCmdCopyImage ---- */

/* Reference: block by block, with texel coordinates; 3D <-> 2D-array copies
 * take the 2D side's slices from layers. */
static void
ref_copy(const struct timg *src, const uint8_t *smem, uint32_t sl, const struct sr_box *b,
         const struct timg *dst, uint8_t *dmem, uint32_t dl, int32_t dx, int32_t dy, int32_t dz,
         uint32_t layer_count, uint32_t off, uint32_t len)
{
   const struct su_format_desc *f = src->lvl.format;
   for (uint32_t l = 0; l < layer_count; l++)
      for (uint32_t z = 0; z < b->d; z++)
         for (uint32_t y = 0; y < b->h; y += f->block_height)
            for (uint32_t x = 0; x < b->w; x += f->block_width) {
               uint32_t s_layer = sl + l, s_z = b->z + z, d_layer = dl + l, d_z = dz + z;
               if (src->lvl.depth == 1 && b->d > 1) {
                  s_layer = sl + z;
                  s_z = 0;
               }
               if (dst->lvl.depth == 1 && b->d > 1) {
                  d_layer = dl + z;
                  d_z = 0;
               }
               memcpy(dmem + toff(dst, d_layer, dx + x, dy + y, d_z) + off,
                      smem + toff(src, s_layer, b->x + x, b->y + y, s_z) + off, len);
            }
}

static void
test_copy_one(const char *what, VkFormat format, uint32_t sw, uint32_t sh, uint32_t sd, uint32_t sls,
              uint32_t dw, uint32_t dh, uint32_t dd, uint32_t dls,
              uint32_t sl, struct sr_box box, uint32_t dl, int32_t dx, int32_t dy, int32_t dz,
              uint32_t layer_count)
{
   struct timg s, d;
   timg_init(&s, format, sw, sh, sd, sls);
   timg_init(&d, format, dw, dh, dd, dls);
   uint8_t *s_before = dup_mem(s.mem, s.size);
   uint8_t *exp = dup_mem(d.mem, d.size);
   ref_copy(&s, s.mem, sl, &box, &d, exp, dl, dx, dy, dz, layer_count, 0, s.lvl.format->block_size);
   sr_copy_image(&s.lvl, sl, &box, &d.lvl, dl, dx, dy, dz, layer_count, VK_IMAGE_ASPECT_COLOR_BIT);
   check_mem(d.mem, exp, d.size, what);
   check_mem(s.mem, s_before, s.size, "copy source untouched");
   free(s_before);
   free(exp);
   timg_finish(&s);
   timg_finish(&d);
}

static void
test_copy_image(void)
{
   /* 2D arrays with offsets and a layer range. */
   test_copy_one("copy 2D array", VK_FORMAT_R8G8B8A8_UNORM, 10, 7, 1, 3, 12, 9, 1, 4,
                 1, (struct sr_box){2, 1, 0, 5, 4, 1}, 2, 4, 3, 0, 2);
   /* Whole dense rows (the one-memcpy-per-plane path). */
   test_copy_one("copy full rows", VK_FORMAT_R16_UINT, 8, 4, 1, 2, 8, 6, 1, 2,
                 0, (struct sr_box){0, 0, 0, 8, 4, 1}, 1, 0, 2, 0, 1);
   /* 3D with z offsets. */
   test_copy_one("copy 3D", VK_FORMAT_R32_SFLOAT, 6, 5, 4, 1, 7, 6, 5, 1,
                 0, (struct sr_box){1, 2, 1, 4, 3, 2}, 0, 2, 0, 2, 1);
   /* 3D slices -> 2D array layers and back. */
   test_copy_one("copy 3D->2D array", VK_FORMAT_R8G8B8A8_UNORM, 5, 5, 4, 1, 6, 6, 1, 5,
                 0, (struct sr_box){1, 0, 1, 3, 4, 3}, 2, 0, 1, 0, 1);
   test_copy_one("copy 2D array->3D", VK_FORMAT_R8G8B8A8_UNORM, 6, 6, 1, 5, 5, 5, 4, 1,
                 1, (struct sr_box){0, 1, 0, 3, 4, 3}, 0, 2, 0, 1, 1);
   /* BC1 (8-byte 4x4 blocks): level 10x7 is 3x2 blocks; the box reaches the
    * level's edge with partial blocks (w 6 -> 2 blocks, h 3 -> 1 block). */
   test_copy_one("copy BC1 edge blocks", VK_FORMAT_BC1_RGB_UNORM_BLOCK, 10, 7, 1, 2, 12, 8, 1, 1,
                 1, (struct sr_box){4, 4, 0, 6, 3, 1}, 0, 0, 4, 0, 1);
   test_copy_one("copy BC1 interior", VK_FORMAT_BC1_RGB_UNORM_BLOCK, 16, 16, 1, 1, 16, 12, 1, 1,
                 0, (struct sr_box){4, 8, 0, 8, 8, 1}, 0, 8, 0, 0, 1);
}

/* ---- buffer <-> image ---- */

struct tbuf {
   uint8_t *mem;   /* GUARD | data | GUARD */
   size_t size;
};

static void
tbuf_init(struct tbuf *b, size_t n)
{
   b->size = n + 2 * GUARD;
   b->mem = malloc(b->size);
   fill_random(b->mem, b->size);
}

/* Offset in b->mem of texel (x, y) of plane p (layer * d + z), with
 * row_length/image_height in texels and blocks of the format. */
static size_t
boff(const struct su_format_desc *f, uint32_t texel_size, uint32_t rl, uint32_t ih,
     uint32_t p, uint32_t x, uint32_t y)
{
   const size_t rlb = (rl + f->block_width - 1) / f->block_width;
   const size_t ihb = (ih + f->block_height - 1) / f->block_height;
   return GUARD + (((p * ihb) + y / f->block_height) * rlb + x / f->block_width) * texel_size;
}

static void
test_buffer_one(const char *what, VkFormat format, uint32_t w, uint32_t h, uint32_t d,
                uint32_t layers, uint32_t base_layer, uint32_t layer_count, struct sr_box box,
                uint32_t rl, uint32_t ih)
{
   const struct su_format_desc *f = fmt(format);
   const uint32_t bs = f->block_size;
   char msg[128];
   struct timg img;
   struct tbuf buf;
   const size_t planes = (size_t)layer_count * box.d;
   tbuf_init(&buf, boff(f, bs, rl, ih, planes, 0, 0) - GUARD);
   timg_init(&img, format, w, h, d, layers);

   /* buffer -> image */
   uint8_t *exp = dup_mem(img.mem, img.size);
   uint8_t *buf_before = dup_mem(buf.mem, buf.size);
   for (uint32_t l = 0; l < layer_count; l++)
      for (uint32_t z = 0; z < box.d; z++)
         for (uint32_t y = 0; y < box.h; y += f->block_height)
            for (uint32_t x = 0; x < box.w; x += f->block_width)
               memcpy(exp + toff(&img, base_layer + l, box.x + x, box.y + y, box.z + z),
                      buf.mem + boff(f, bs, rl, ih, l * box.d + z, x, y), bs);
   sr_copy_buffer_to_image(buf.mem + GUARD, rl, ih, &img.lvl, base_layer, layer_count, &box,
                           VK_IMAGE_ASPECT_COLOR_BIT);
   snprintf(msg, sizeof(msg), "%s: buffer->image", what);
   check_mem(img.mem, exp, img.size, msg);
   check_mem(buf.mem, buf_before, buf.size, "buffer->image leaves the buffer alone");

   /* image -> buffer, from fresh image contents */
   fill_random(img.mem, img.size);
   free(exp);
   exp = dup_mem(buf.mem, buf.size);
   for (uint32_t l = 0; l < layer_count; l++)
      for (uint32_t z = 0; z < box.d; z++)
         for (uint32_t y = 0; y < box.h; y += f->block_height)
            for (uint32_t x = 0; x < box.w; x += f->block_width)
               memcpy(exp + boff(f, bs, rl, ih, l * box.d + z, x, y),
                      img.mem + toff(&img, base_layer + l, box.x + x, box.y + y, box.z + z), bs);
   sr_copy_image_to_buffer(&img.lvl, base_layer, layer_count, &box, VK_IMAGE_ASPECT_COLOR_BIT,
                           buf.mem + GUARD, rl, ih);
   snprintf(msg, sizeof(msg), "%s: image->buffer", what);
   check_mem(buf.mem, exp, buf.size, msg);

   free(exp);
   free(buf_before);
   free(buf.mem);
   timg_finish(&img);
}

static void
test_buffer_copies(void)
{
   test_buffer_one("2D array, padded rows", VK_FORMAT_R8G8B8A8_UNORM, 9, 8, 1, 4, 1, 2,
                   (struct sr_box){2, 3, 0, 5, 4, 1}, 7, 6);
   test_buffer_one("tight", VK_FORMAT_R16G16_SINT, 9, 8, 1, 1, 0, 1,
                   (struct sr_box){0, 0, 0, 9, 8, 1}, 9, 8);
   test_buffer_one("3D, padded", VK_FORMAT_R16_UINT, 6, 5, 5, 1, 0, 1,
                   (struct sr_box){1, 1, 2, 4, 3, 3}, 5, 4);
   /* BC1: row_length 14 texels -> 4 blocks, image_height 9 -> 3 block rows;
    * the box ends at the level's edge with partial blocks. */
   test_buffer_one("BC1 edge blocks", VK_FORMAT_BC1_RGB_UNORM_BLOCK, 10, 7, 1, 2, 0, 2,
                   (struct sr_box){4, 0, 0, 6, 7, 1}, 14, 9);
}

/* ---- depth/stencil aspects ---- */

static uint32_t
d24_of(const struct su_format_desc *f, const uint8_t *texel)
{
   return (uint32_t)lrint(su_unpack_depth(f, texel) * 16777215.0);
}

static uint32_t
f32_bits(float v)
{
   uint32_t u;
   memcpy(&u, &v, 4);
   return u;
}

/* Depth value of a texel as the integer a buffer copy carries: D24 in the
 * low 24 bits, D32 as float bits, D16 as 16 bits. */
static uint32_t
depth_word(const struct su_format_desc *f, const uint8_t *texel)
{
   switch (f->format) {
   case VK_FORMAT_D24_UNORM_S8_UINT:
   case VK_FORMAT_X8_D24_UNORM_PACK32:
      return d24_of(f, texel);
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return f32_bits(su_unpack_depth(f, texel));
   default:
      return (uint32_t)lrint(su_unpack_depth(f, texel) * 65535.0);
   }
}

/* Checks every texel of img against its state `before`: texels inside box
 * (layers base..+count) have the selected aspect equal to want_depth/want_st
 * (given per texel by the callback-free arrays) and the other aspect
 * unchanged; texels outside are unchanged in both; padding and guards are
 * byte-identical. */
struct ds_expect {
   const uint32_t *depth;    /* per box texel, or NULL: depth must be unchanged */
   const uint8_t *stencil;   /* per box texel, or NULL: stencil must be unchanged */
};

static void
check_ds(const char *what, const struct timg *img, const uint8_t *before, uint32_t base,
         uint32_t count, const struct sr_box *b, const struct ds_expect *e)
{
   const struct su_format_desc *f = img->lvl.format;
   uint8_t *mask = calloc(img->size, 1);
   int bad = 0;
   for (uint32_t l = 0; l < img->lvl.layers; l++)
      for (uint32_t z = 0; z < img->lvl.depth; z++)
         for (uint32_t y = 0; y < img->lvl.height; y++)
            for (uint32_t x = 0; x < img->lvl.width; x++) {
               const size_t o = toff(img, l, x, y, z);
               memset(mask + o, 1, f->block_size);
               const bool in = l >= base && l < base + count && (int32_t)x >= b->x &&
                               x < b->x + b->w && (int32_t)y >= b->y && y < b->y + b->h &&
                               (int32_t)z >= b->z && z < b->z + b->d;
               const size_t i = in ? ((((size_t)(l - base) * b->d + (z - b->z)) * b->h +
                                       (y - b->y)) * b->w + (x - b->x)) : 0;
               if (f->aspects & VK_IMAGE_ASPECT_DEPTH_BIT) {
                  const uint32_t want = in && e->depth ? e->depth[i] : depth_word(f, before + o);
                  if (depth_word(f, img->mem + o) != want && bad++ < 5)
                     fprintf(stderr, "%s: depth at layer %u (%u,%u,%u): 0x%x, expected 0x%x\n",
                             what, l, x, y, z, depth_word(f, img->mem + o), want);
               }
               if (f->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) {
                  const uint8_t want = in && e->stencil ? e->stencil[i]
                                                        : su_unpack_stencil(f, before + o);
                  if (su_unpack_stencil(f, img->mem + o) != want && bad++ < 5)
                     fprintf(stderr, "%s: stencil at layer %u (%u,%u,%u): %u, expected %u\n",
                             what, l, x, y, z, su_unpack_stencil(f, img->mem + o), want);
               }
            }
   CHECK(bad == 0, "%s: %d depth/stencil texels wrong", what, bad);
   /* Bytes that belong to no texel (padding, guards) never change. */
   size_t i = 0;
   while (i < img->size && (mask[i] || img->mem[i] == before[i]))
      i++;
   CHECK(i == img->size, "%s: byte %zu outside every texel changed", what, i);
   free(mask);
}

static uint32_t
box_texels(const struct sr_box *b, uint32_t layers)
{
   return b->w * b->h * b->d * layers;
}

/* Buffer <-> image for one aspect of a combined format. */
static void
test_ds_buffer(VkFormat format, VkImageAspectFlags aspect)
{
   const struct su_format_desc *f = fmt(format);
   const bool depth = aspect == VK_IMAGE_ASPECT_DEPTH_BIT;
   const uint32_t ts = depth ? f->depth_copy_size : 1;
   const struct sr_box box = {1, 2, 0, 4, 3, 1};
   const uint32_t rl = 6, ih = 4, layers = 2, n = box_texels(&box, layers);
   char what[96];
   snprintf(what, sizeof(what), "%s %s buffer->image", f->name, depth ? "depth" : "stencil");

   struct timg img;
   struct tbuf buf;
   timg_init(&img, format, 7, 6, 1, 3);
   tbuf_init(&buf, (size_t)rl * ih * layers * ts);
   uint8_t *data = buf.mem + GUARD;
   /* Valid depth values in the buffer: D24 in the low 24 bits (random high
    * byte, which must be ignored), D32 floats in [0, 1]. */
   const bool is_f32 = format == VK_FORMAT_D32_SFLOAT || format == VK_FORMAT_D32_SFLOAT_S8_UINT;
   for (uint32_t i = 0; depth && is_f32 && i < rl * ih * layers; i++) {
      const float v = (float)(rng() & 0xffffff) / 16777216.0f;
      memcpy(data + i * 4, &v, 4);
   }
   uint32_t *want_d = calloc(n, sizeof(uint32_t));
   uint8_t *want_s = calloc(n, 1);
   for (uint32_t l = 0; l < layers; l++)
      for (uint32_t y = 0; y < box.h; y++)
         for (uint32_t x = 0; x < box.w; x++) {
            const uint32_t i = (l * box.h + y) * box.w + x;
            const uint8_t *src = data + (((size_t)l * ih + y) * rl + x) * ts;
            uint32_t word = 0;
            memcpy(&word, src, ts);
            if (depth)
               want_d[i] = ts == 2 ? word & 0xffff
                           : is_f32 ? word : word & 0xffffff;
            else
               want_s[i] = src[0];
         }
   uint8_t *before = dup_mem(img.mem, img.size);
   sr_copy_buffer_to_image(data, rl, ih, &img.lvl, 1, layers, &box, aspect);
   const struct ds_expect e = {depth ? want_d : NULL, depth ? NULL : want_s};
   check_ds(what, &img, before, 1, layers, &box, &e);

   /* image -> buffer: the aspect's bytes land in the buffer, other buffer
    * bytes (row padding, guards) stay. */
   snprintf(what, sizeof(what), "%s %s image->buffer", f->name, depth ? "depth" : "stencil");
   fill_random(buf.mem, buf.size);
   uint8_t *buf_before = dup_mem(buf.mem, buf.size);
   sr_copy_image_to_buffer(&img.lvl, 1, layers, &box, aspect, data, rl, ih);
   int bad = 0;
   for (uint32_t l = 0; l < layers; l++)
      for (uint32_t y = 0; y < box.h; y++)
         for (uint32_t x = 0; x < box.w; x++) {
            const size_t bo = (((size_t)l * ih + y) * rl + x) * ts;
            const uint8_t *t = img.mem + toff(&img, 1 + l, box.x + x, box.y + y, 0);
            uint32_t word = 0;
            memcpy(&word, data + bo, ts);
            if (depth && ts == 4 && f->format == VK_FORMAT_D24_UNORM_S8_UINT)
               word &= 0xffffff;   /* the high byte is undefined */
            const uint32_t want = depth ? depth_word(f, t) : su_unpack_stencil(f, t);
            if (word != want && bad++ < 5)
               fprintf(stderr, "%s: (%u,%u) layer %u: 0x%x, expected 0x%x\n", what, x, y, l,
                       word, want);
            /* The texel's bytes are accounted for: mark them equal. */
            memcpy(buf_before + GUARD + bo, data + bo, ts);
         }
   CHECK(bad == 0, "%s: %d texels wrong", what, bad);
   check_mem(buf.mem, buf_before, buf.size, "image->buffer writes only the region");

   free(buf_before);
   free(before);
   free(want_d);
   free(want_s);
   free(buf.mem);
   timg_finish(&img);
}

/* vkCmdCopyImage of one aspect of a combined format. */
static void
test_ds_copy_image(VkFormat format, VkImageAspectFlags aspect)
{
   const struct su_format_desc *f = fmt(format);
   const bool depth = aspect == VK_IMAGE_ASPECT_DEPTH_BIT;
   const struct sr_box sbox = {2, 1, 0, 3, 4, 1};
   const struct sr_box dbox = {0, 2, 0, 3, 4, 1};
   const uint32_t n = box_texels(&dbox, 1);
   char what[96];
   snprintf(what, sizeof(what), "%s copy_image %s", f->name, depth ? "depth" : "stencil");
   struct timg s, d;
   timg_init(&s, format, 6, 6, 1, 2);
   timg_init(&d, format, 5, 7, 1, 1);
   /* D32 texels must hold valid floats for su_unpack_depth comparisons to be
    * meaningful; write depth values through su_pack_depth. */
   for (uint32_t l = 0; l < 2; l++)
      for (uint32_t y = 0; y < 6; y++)
         for (uint32_t x = 0; x < 6; x++) {
            uint8_t *t = s.mem + toff(&s, l, x, y, 0);
            const uint8_t st = su_unpack_stencil(f, t);
            su_pack_depth(f, (float)(rng() & 0xffff) / 65536.0f, t);
            su_pack_stencil(f, st, t);
         }
   uint32_t *want_d = calloc(n, sizeof(uint32_t));
   uint8_t *want_s = calloc(n, 1);
   for (uint32_t y = 0; y < sbox.h; y++)
      for (uint32_t x = 0; x < sbox.w; x++) {
         const uint8_t *t = s.mem + toff(&s, 1, sbox.x + x, sbox.y + y, 0);
         want_d[y * sbox.w + x] = depth_word(f, t);
         want_s[y * sbox.w + x] = su_unpack_stencil(f, t);
      }
   uint8_t *before = dup_mem(d.mem, d.size);
   sr_copy_image(&s.lvl, 1, &sbox, &d.lvl, 0, dbox.x, dbox.y, 0, 1, aspect);
   const struct ds_expect e = {depth ? want_d : NULL, depth ? NULL : want_s};
   check_ds(what, &d, before, 0, 1, &dbox, &e);
   free(before);
   free(want_d);
   free(want_s);
   timg_finish(&s);
   timg_finish(&d);
}

static void
test_depth_stencil_copies(void)
{
   const VkFormat formats[] = {VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT};
   for (unsigned i = 0; i < 2; i++) {
      test_ds_buffer(formats[i], VK_IMAGE_ASPECT_DEPTH_BIT);
      test_ds_buffer(formats[i], VK_IMAGE_ASPECT_STENCIL_BIT);
      test_ds_copy_image(formats[i], VK_IMAGE_ASPECT_DEPTH_BIT);
      test_ds_copy_image(formats[i], VK_IMAGE_ASPECT_STENCIL_BIT);
   }
}

/* ---- blits ---- */

/* The spec's blit, written out plainly: for each destination texel center,
 * the source coordinate, then NEAREST (floor) or LINEAR (weights from the
 * texel-center-relative fraction, clamp to edge), through float or integers. */
static void
ref_blit(const struct timg *src, const struct timg *dst, uint8_t *out, uint32_t sl,
         const int32_t so[2][3], uint32_t dl, const int32_t dof[2][3], uint32_t layers,
         VkFilter filter)
{
   const struct su_format_desc *sf = src->lvl.format, *df = dst->lvl.format;
   const int32_t size[3] = {(int32_t)src->lvl.width, (int32_t)src->lvl.height,
                            (int32_t)src->lvl.depth};
   int32_t lo[3], hi[3];
   for (int a = 0; a < 3; a++) {
      lo[a] = dof[0][a] < dof[1][a] ? dof[0][a] : dof[1][a];
      hi[a] = dof[0][a] < dof[1][a] ? dof[1][a] : dof[0][a];
   }
   for (uint32_t l = 0; l < layers; l++)
      for (int32_t k = lo[2]; k < hi[2]; k++)
         for (int32_t j = lo[1]; j < hi[1]; j++)
            for (int32_t i = lo[0]; i < hi[0]; i++) {
               const int32_t dc[3] = {i, j, k};
               double c[3];
               for (int a = 0; a < 3; a++)
                  c[a] = (dc[a] + 0.5 - dof[0][a]) * (double)(so[1][a] - so[0][a]) /
                         (double)(dof[1][a] - dof[0][a]) + so[0][a];
               uint8_t *t = out + toff(dst, dl + l, i, j, k);
               if (filter == VK_FILTER_NEAREST) {
                  int32_t p[3];
                  for (int a = 0; a < 3; a++) {
                     p[a] = (int32_t)floor(c[a]);
                     p[a] = p[a] < 0 ? 0 : p[a] >= size[a] ? size[a] - 1 : p[a];
                  }
                  const uint8_t *s = src->mem + toff(src, sl + l, p[0], p[1], p[2]);
                  if (su_format_class(sf) == SU_CLASS_UINT) {
                     uint32_t v[4];
                     su_unpack_uint(sf, s, v);
                     su_pack_uint(df, v, t);
                  } else if (su_format_class(sf) == SU_CLASS_SINT) {
                     int32_t v[4];
                     su_unpack_sint(sf, s, v);
                     su_pack_sint(df, v, t);
                  } else {
                     float v[4];
                     su_unpack_float(sf, s, v);
                     su_pack_float(df, v, t);
                  }
                  continue;
               }
               int32_t p0[3], p1[3];
               double w[3];
               for (int a = 0; a < 3; a++) {
                  const double x = c[a] - 0.5;
                  p0[a] = (int32_t)floor(x);
                  w[a] = x - floor(x);
                  p1[a] = p0[a] + 1;
                  p0[a] = p0[a] < 0 ? 0 : p0[a] >= size[a] ? size[a] - 1 : p0[a];
                  p1[a] = p1[a] < 0 ? 0 : p1[a] >= size[a] ? size[a] - 1 : p1[a];
               }
               double acc[4] = {0, 0, 0, 0};
               for (int corner = 0; corner < 8; corner++) {
                  double wt = 1.0;
                  int32_t p[3];
                  for (int a = 0; a < 3; a++) {
                     const int hi_side = (corner >> a) & 1;
                     p[a] = hi_side ? p1[a] : p0[a];
                     wt *= hi_side ? w[a] : 1.0 - w[a];
                  }
                  float v[4];
                  su_unpack_float(sf, src->mem + toff(src, sl + l, p[0], p[1], p[2]), v);
                  for (int ch = 0; ch < 4; ch++)
                     acc[ch] += wt * v[ch];
               }
               const float r[4] = {(float)acc[0], (float)acc[1], (float)acc[2], (float)acc[3]};
               su_pack_float(df, r, t);
            }
}

/* Runs sr_blit and the reference; texels whose unpacked float values are
 * within `tol` per channel count as equal (0: bytes must match exactly);
 * every other byte of the destination allocation must match. */
static void
blit_case(const char *what, const struct timg *src, struct timg *dst, uint32_t sl,
          const int32_t so[2][3], uint32_t dl, const int32_t dof[2][3], uint32_t layers,
          VkFilter filter, float tol)
{
   uint8_t *exp = dup_mem(dst->mem, dst->size);
   uint8_t *src_before = dup_mem(src->mem, src->size);
   ref_blit(src, dst, exp, sl, so, dl, dof, layers, filter);
   sr_blit(&src->lvl, sl, so, &dst->lvl, dl, dof, layers, VK_IMAGE_ASPECT_COLOR_BIT, filter);
   const struct su_format_desc *df = dst->lvl.format;
   if (tol > 0.0f) {
      int near = 0;
      for (uint32_t l = 0; l < dst->lvl.layers; l++)
         for (uint32_t z = 0; z < dst->lvl.depth; z++)
            for (uint32_t y = 0; y < dst->lvl.height; y++)
               for (uint32_t x = 0; x < dst->lvl.width; x++) {
                  const size_t o = toff(dst, l, x, y, z);
                  if (!memcmp(dst->mem + o, exp + o, df->block_size))
                     continue;
                  float g[4], e[4];
                  su_unpack_float(df, dst->mem + o, g);
                  su_unpack_float(df, exp + o, e);
                  bool close = true;
                  for (int c = 0; c < 4; c++)
                     close = close && fabsf(g[c] - e[c]) <= tol;
                  if (close) {
                     memcpy(exp + o, dst->mem + o, df->block_size);
                     near++;
                  }
               }
      if (near)
         fprintf(stderr, "%s: %d texels within tolerance, not exact\n", what, near);
   }
   check_mem(dst->mem, exp, dst->size, what);
   check_mem(src->mem, src_before, src->size, "blit source untouched");
   free(exp);
   free(src_before);
}

#define OFFS(x0, y0, z0, x1, y1, z1) {{x0, y0, z0}, {x1, y1, z1}}

static void
test_blits(void)
{
   struct timg s, d;
   const float tol8 = 1.0f / 255.0f + 1e-6f;

   /* 2D RGBA8, several layers. */
   timg_init(&s, VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 3);
   timg_init(&d, VK_FORMAT_R8G8B8A8_UNORM, 20, 18, 1, 3);
   {
      const int32_t so[2][3] = OFFS(1, 2, 0, 7, 7, 1), dof[2][3] = OFFS(3, 4, 0, 9, 9, 1);
      blit_case("blit 1:1", &s, &d, 1, so, 0, dof, 2, VK_FILTER_NEAREST, 0);
      blit_case("blit 1:1 linear", &s, &d, 0, so, 1, dof, 2, VK_FILTER_LINEAR, 0);
   }
   {
      const int32_t so[2][3] = OFFS(0, 0, 0, 8, 8, 1), dof[2][3] = OFFS(2, 1, 0, 18, 17, 1);
      blit_case("blit 2x nearest", &s, &d, 0, so, 0, dof, 3, VK_FILTER_NEAREST, 0);
      blit_case("blit 2x linear", &s, &d, 0, so, 0, dof, 3, VK_FILTER_LINEAR, tol8);
   }
   {
      const int32_t so[2][3] = OFFS(1, 0, 0, 8, 8, 1), dof[2][3] = OFFS(0, 0, 0, 3, 5, 1);
      blit_case("blit downscale nearest", &s, &d, 2, so, 0, dof, 1, VK_FILTER_NEAREST, 0);
      blit_case("blit downscale linear", &s, &d, 2, so, 0, dof, 1, VK_FILTER_LINEAR, tol8);
   }
   {
      /* Mirrored X (destination reversed), Y (source reversed), both, 1:1 and scaled. */
      const int32_t so[2][3] = OFFS(0, 0, 0, 8, 8, 1);
      const int32_t sy[2][3] = OFFS(0, 8, 0, 8, 0, 1);
      const int32_t dx[2][3] = OFFS(8, 0, 0, 0, 8, 1);
      const int32_t dxs[2][3] = OFFS(17, 1, 0, 3, 13, 1);
      const int32_t dxy[2][3] = OFFS(12, 15, 0, 4, 3, 1);
      blit_case("blit mirror x", &s, &d, 0, so, 0, dx, 1, VK_FILTER_NEAREST, 0);
      blit_case("blit mirror y", &s, &d, 1, sy, 1, so, 1, VK_FILTER_NEAREST, 0);
      blit_case("blit mirror x scaled", &s, &d, 0, so, 2, dxs, 1, VK_FILTER_NEAREST, 0);
      blit_case("blit mirror x scaled linear", &s, &d, 0, so, 2, dxs, 1, VK_FILTER_LINEAR, tol8);
      blit_case("blit mirror xy both sides", &s, &d, 0, sy, 0, dxy, 1, VK_FILTER_LINEAR, tol8);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* sRGB -> UNORM: decode on read, filter in linear. Hand-checked texel:
    * sRGB 188 decodes to ((188/255 + 0.055) / 1.055)^2.4 = 0.5029 -> 128. */
   timg_init(&s, VK_FORMAT_R8G8B8A8_SRGB, 4, 4, 1, 1);
   timg_init(&d, VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1);
   {
      const uint8_t texel[4] = {188, 0, 255, 77};
      memcpy(s.mem + toff(&s, 0, 0, 0, 0), texel, 4);
      const int32_t so[2][3] = OFFS(0, 0, 0, 4, 4, 1), dof[2][3] = OFFS(0, 0, 0, 4, 4, 1);
      blit_case("blit sRGB->UNORM", &s, &d, 0, so, 0, dof, 1, VK_FILTER_NEAREST, 0);
      const uint8_t *got = d.mem + toff(&d, 0, 0, 0, 0);
      const double lin = pow((188 / 255.0 + 0.055) / 1.055, 2.4);
      CHECK_EQ_INT(got[0], lround(lin * 255.0));
      CHECK_EQ_INT(got[0], 128);
      CHECK_EQ_INT(got[1], 0);
      CHECK_EQ_INT(got[2], 255);
      CHECK_EQ_INT(got[3], 77);
      const int32_t up[2][3] = OFFS(0, 0, 0, 8, 8, 1);
      blit_case("blit sRGB->UNORM linear 2x", &s, &d, 0, so, 0, up, 1, VK_FILTER_LINEAR, tol8);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* UNORM -> sRGB (encode on write). */
   timg_init(&s, VK_FORMAT_R8G8B8A8_UNORM, 5, 3, 1, 1);
   timg_init(&d, VK_FORMAT_R8G8B8A8_SRGB, 5, 3, 1, 1);
   {
      const int32_t so[2][3] = OFFS(0, 0, 0, 5, 3, 1);
      blit_case("blit UNORM->sRGB", &s, &d, 0, so, 0, so, 1, VK_FILTER_NEAREST, 0);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* RGBA32F -> RGBA8 UNORM, values out of range clamp. */
   timg_init(&s, VK_FORMAT_R32G32B32A32_SFLOAT, 3, 2, 1, 1);
   timg_init(&d, VK_FORMAT_R8G8B8A8_UNORM, 4, 4, 1, 1);
   {
      const float vals[6][4] = {{0.25f, -1.0f, 2.0f, 1.0f}, {0.0f, 0.6f, 1.0f, 0.2f},
                                {-0.5f, 0.5f, 0.75f, 3.0f}, {1.0f, 1.0f, 1.0f, 1.0f},
                                {0.1f, 0.3f, 0.9f, 0.0f}, {100.0f, -100.0f, 0.4f, 0.8f}};
      for (int i = 0; i < 6; i++)
         memcpy(s.mem + toff(&s, 0, i % 3, i / 3, 0), vals[i], 16);
      const int32_t so[2][3] = OFFS(0, 0, 0, 3, 2, 1), dof[2][3] = OFFS(1, 1, 0, 4, 3, 1);
      blit_case("blit RGBA32F->RGBA8", &s, &d, 0, so, 0, dof, 1, VK_FILTER_NEAREST, 0);
      const uint8_t *t0 = d.mem + toff(&d, 0, 1, 1, 0);
      CHECK(t0[0] == 64 && t0[1] == 0 && t0[2] == 255 && t0[3] == 255,
            "RGBA32F (0.25,-1,2,1) -> %u %u %u %u", t0[0], t0[1], t0[2], t0[3]);
      const uint8_t *t1 = d.mem + toff(&d, 0, 2, 1, 0);
      CHECK(t1[0] == 0 && t1[1] == 153 && t1[2] == 255 && t1[3] == 51,
            "RGBA32F (0,0.6,1,0.2) -> %u %u %u %u", t1[0], t1[1], t1[2], t1[3]);
      const int32_t big[2][3] = OFFS(4, 4, 0, 0, 0, 1);
      blit_case("blit RGBA32F->RGBA8 linear mirrored", &s, &d, 0, so, 0, big, 1,
                VK_FILTER_LINEAR, tol8);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* 3:1 LINEAR lands exactly on source texel centers (u - 1/2 = 1 and 4):
    * the result is exactly those texels, and a neighbour with zero weight
    * (here +Inf) contributes nothing. */
   timg_init(&s, VK_FORMAT_R32_SFLOAT, 6, 1, 1, 1);
   timg_init(&d, VK_FORMAT_R32_SFLOAT, 2, 1, 1, 1);
   {
      const float vals[6] = {1.0f, 0.125f, INFINITY, 3.0f, -2.5f, INFINITY};
      memcpy(s.mem + toff(&s, 0, 0, 0, 0), vals, sizeof(vals));
      const int32_t so[2][3] = OFFS(0, 0, 0, 6, 1, 1), dof[2][3] = OFFS(0, 0, 0, 2, 1, 1);
      sr_blit(&s.lvl, 0, so, &d.lvl, 0, dof, 1, VK_IMAGE_ASPECT_COLOR_BIT, VK_FILTER_LINEAR);
      float got[2];
      memcpy(got, d.mem + toff(&d, 0, 0, 0, 0), sizeof(got));
      CHECK(got[0] == 0.125f && got[1] == -2.5f, "3:1 linear at centers: %g %g", got[0], got[1]);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* R16_UINT -> R8_UINT clamps. */
   timg_init(&s, VK_FORMAT_R16_UINT, 4, 1, 1, 1);
   timg_init(&d, VK_FORMAT_R8_UINT, 6, 3, 1, 1);
   {
      const uint16_t vals[4] = {17, 255, 256, 65535};
      memcpy(s.mem + toff(&s, 0, 0, 0, 0), vals, sizeof(vals));
      const int32_t so[2][3] = OFFS(0, 0, 0, 4, 1, 1), dof[2][3] = OFFS(1, 2, 0, 5, 3, 1);
      blit_case("blit R16_UINT->R8_UINT", &s, &d, 0, so, 0, dof, 1, VK_FILTER_NEAREST, 0);
      const uint8_t *t = d.mem + toff(&d, 0, 1, 2, 0);
      CHECK(t[0] == 17 && t[1] == 255 && t[2] == 255 && t[3] == 255,
            "R16_UINT -> R8_UINT: %u %u %u %u", t[0], t[1], t[2], t[3]);
      const int32_t up[2][3] = OFFS(6, 0, 0, 0, 3, 1);
      blit_case("blit R16_UINT->R8_UINT scaled mirrored", &s, &d, 0, so, 0, up, 1,
                VK_FILTER_NEAREST, 0);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* Same-format integer and SNORM blits with scaling. */
   timg_init(&s, VK_FORMAT_R16G16_SINT, 5, 4, 1, 1);
   timg_init(&d, VK_FORMAT_R16G16_SINT, 9, 9, 1, 1);
   {
      const int32_t so[2][3] = OFFS(0, 0, 0, 5, 4, 1), dof[2][3] = OFFS(0, 9, 0, 9, 1, 1);
      blit_case("blit R16G16_SINT scaled", &s, &d, 0, so, 0, dof, 1, VK_FILTER_NEAREST, 0);
   }
   timg_finish(&s);
   timg_finish(&d);
   timg_init(&s, VK_FORMAT_R8G8B8A8_SNORM, 5, 4, 1, 1);
   timg_init(&d, VK_FORMAT_R8G8B8A8_SNORM, 9, 9, 1, 1);
   {
      const int32_t so[2][3] = OFFS(0, 0, 0, 5, 4, 1), dof[2][3] = OFFS(0, 0, 0, 9, 7, 1);
      blit_case("blit SNORM scaled", &s, &d, 0, so, 0, dof, 1, VK_FILTER_NEAREST, 0);
   }
   timg_finish(&s);
   timg_finish(&d);

   /* 3D: trilinear downscale, upscale, mirrored z nearest, 1:1 slices. */
   timg_init(&s, VK_FORMAT_R8G8B8A8_UNORM, 4, 4, 4, 1);
   timg_init(&d, VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 6, 1);
   {
      const int32_t so[2][3] = OFFS(0, 0, 0, 4, 4, 4);
      const int32_t down[2][3] = OFFS(1, 1, 1, 3, 3, 3);
      const int32_t up[2][3] = OFFS(0, 0, 0, 8, 7, 6);
      const int32_t mz[2][3] = OFFS(2, 0, 5, 6, 4, 1);
      const int32_t part[2][3] = OFFS(1, 1, 1, 3, 4, 3);
      blit_case("blit 3D linear down", &s, &d, 0, so, 0, down, 1, VK_FILTER_LINEAR, tol8);
      blit_case("blit 3D linear up", &s, &d, 0, so, 0, up, 1, VK_FILTER_LINEAR, tol8);
      blit_case("blit 3D nearest mirrored z", &s, &d, 0, so, 0, mz, 1, VK_FILTER_NEAREST, 0);
      const int32_t dp[2][3] = OFFS(4, 3, 2, 6, 6, 4);
      blit_case("blit 3D 1:1 slices", &s, &d, 0, part, 0, dp, 1, VK_FILTER_NEAREST, 0);
   }
   timg_finish(&s);
   timg_finish(&d);
}

/* Depth blit: nearest texel's depth, stencil of the destination preserved. */
static void
test_depth_blit(void)
{
   const struct su_format_desc *f = fmt(VK_FORMAT_D24_UNORM_S8_UINT);
   struct timg s, d;
   timg_init(&s, VK_FORMAT_D24_UNORM_S8_UINT, 4, 4, 1, 1);
   timg_init(&d, VK_FORMAT_D24_UNORM_S8_UINT, 9, 9, 1, 1);
   const int32_t so[2][3] = OFFS(0, 0, 0, 4, 4, 1), dof[2][3] = OFFS(9, 1, 0, 1, 9, 1);
   const struct sr_box box = {1, 1, 0, 8, 8, 1};
   uint32_t want_d[64];
   uint8_t want_s[64];
   for (uint32_t y = 0; y < 8; y++)
      for (uint32_t x = 0; x < 8; x++) {
         /* Destination x runs 9 -> 1 (mirrored) over source 0 -> 4. */
         const uint32_t sx = (uint32_t)floor((x + 1 + 0.5 - 9) * (4.0 / -8.0));
         const uint32_t sy = (uint32_t)floor((y + 1 + 0.5 - 1) * 0.5);
         want_d[y * 8 + x] = d24_of(f, s.mem + toff(&s, 0, sx, sy, 0));
         want_s[y * 8 + x] = su_unpack_stencil(f, s.mem + toff(&s, 0, sx, sy, 0));
      }
   uint8_t *before = dup_mem(d.mem, d.size);
   sr_blit(&s.lvl, 0, so, &d.lvl, 0, dof, 1, VK_IMAGE_ASPECT_DEPTH_BIT, VK_FILTER_NEAREST);
   check_ds("D24S8 depth blit", &d, before, 0, 1, &box, &(struct ds_expect){want_d, NULL});
   memcpy(before, d.mem, d.size);
   sr_blit(&s.lvl, 0, so, &d.lvl, 0, dof, 1, VK_IMAGE_ASPECT_STENCIL_BIT, VK_FILTER_NEAREST);
   check_ds("D24S8 stencil blit", &d, before, 0, 1, &box, &(struct ds_expect){NULL, want_s});
   free(before);
   timg_finish(&s);
   timg_finish(&d);
}

/* ---- clears ---- */

/* Clears a box of layers and checks every texel in it holds `bytes` and
 * nothing else changed. */
static void
clear_case(const char *what, VkFormat format, uint32_t w, uint32_t h, uint32_t d, uint32_t layers,
           uint32_t base, uint32_t count, const struct sr_box *box, const VkClearColorValue *v,
           const uint8_t *bytes)
{
   struct timg img;
   timg_init(&img, format, w, h, d, layers);
   const struct su_format_desc *f = img.lvl.format;
   uint8_t *exp = dup_mem(img.mem, img.size);
   const struct sr_box whole = {0, 0, 0, w, h, d};
   const struct sr_box *b = box ? box : &whole;
   for (uint32_t l = base; l < base + count; l++)
      for (uint32_t z = 0; z < b->d; z++)
         for (uint32_t y = 0; y < b->h; y++)
            for (uint32_t x = 0; x < b->w; x++)
               memcpy(exp + toff(&img, l, b->x + x, b->y + y, b->z + z), bytes, f->block_size);
   if (box)
      sr_clear_color_box(&img.lvl, base, count, box, v);
   else
      sr_clear_color(&img.lvl, base, count, v);
   check_mem(img.mem, exp, img.size, what);
   free(exp);
   timg_finish(&img);
}

static void
test_clears(void)
{
   {
      /* (1, 0.2, 0, 0.6) -> 255, 51, 0, 153 */
      const VkClearColorValue v = {.float32 = {1.0f, 0.2f, 0.0f, 0.6f}};
      const uint8_t b[4] = {255, 51, 0, 153};
      const struct sr_box box = {1, 2, 0, 5, 3, 1};
      clear_case("clear RGBA8", VK_FORMAT_R8G8B8A8_UNORM, 7, 6, 1, 3, 1, 2, NULL, &v, b);
      clear_case("clear RGBA8 box", VK_FORMAT_R8G8B8A8_UNORM, 7, 6, 1, 3, 0, 3, &box, &v, b);
      clear_case("clear RGBA8 3D", VK_FORMAT_R8G8B8A8_UNORM, 5, 4, 3, 1, 0, 1, NULL, &v, b);
      const struct sr_box box3 = {1, 1, 1, 3, 2, 2};
      clear_case("clear RGBA8 3D box", VK_FORMAT_R8G8B8A8_UNORM, 5, 4, 4, 1, 0, 1, &box3, &v, b);
      const struct sr_box one = {4, 5, 0, 1, 1, 1};
      clear_case("clear RGBA8 one texel", VK_FORMAT_R8G8B8A8_UNORM, 7, 6, 1, 1, 0, 1, &one, &v, b);
   }
   {
      /* sRGB encodes: linear 0.5 -> 1.055 * 0.5^(1/2.4) - 0.055 = 0.7354 -> 188. */
      const VkClearColorValue v = {.float32 = {0.5f, 0.0f, 1.0f, 0.6f}};
      const uint8_t b[4] = {188, 0, 255, 153};
      clear_case("clear sRGB", VK_FORMAT_R8G8B8A8_SRGB, 3, 3, 1, 1, 0, 1, NULL, &v, b);
   }
   {
      /* R5G6B5: R 1.0 -> 31, G 0.25 -> 15.75 -> 16, B 0.6 -> 18.6 -> 19;
       * 31 << 11 | 16 << 5 | 19 = 0xfa13. */
      const VkClearColorValue v = {.float32 = {1.0f, 0.25f, 0.6f, 0.0f}};
      const uint8_t b[2] = {0x13, 0xfa};
      clear_case("clear R5G6B5", VK_FORMAT_R5G6B5_UNORM_PACK16, 13, 5, 1, 2, 0, 2, NULL, &v, b);
   }
   {
      /* 3.5f = 0x40600000 */
      const VkClearColorValue v = {.float32 = {3.5f, 9.0f, 9.0f, 9.0f}};
      const uint8_t b[4] = {0x00, 0x00, 0x60, 0x40};
      const struct sr_box box = {0, 1, 0, 33, 2, 1};
      clear_case("clear R32_SFLOAT", VK_FORMAT_R32_SFLOAT, 33, 4, 1, 1, 0, 1, &box, &v, b);
   }
   {
      /* (-5, 1234) -> 0xfffb, 0x04d2 */
      const VkClearColorValue v = {.int32 = {-5, 1234, 7, 7}};
      const uint8_t b[4] = {0xfb, 0xff, 0xd2, 0x04};
      clear_case("clear R16G16_SINT", VK_FORMAT_R16G16_SINT, 6, 6, 1, 2, 1, 1, NULL, &v, b);
   }
   {
      /* 64-bit components (the spec's VkClearColorValue: elements 0-1 are R
       * as one 64-bit value, elements 2-3 G; B and A, which the union does
       * not reach, are written 0). dEQP-VK.api.image_clearing.core.
       * clear_color_image.*.r64_uint_*, r64_sint_*, r64g64_uint_*,
       * r64g64_sint_* clear with 0xFFFFFFFF7FFFFFFF / 0xFFFFFFFF7FFFFFF7. */
      const uint64_t r = 0xffffffff7fffffffull, g = 0xffffffff7ffffff7ull;
      VkClearColorValue v;
      memcpy(&v.uint32[0], &r, 8);
      memcpy(&v.uint32[2], &g, 8);
      uint8_t b[32] = {0};
      memcpy(b, &r, 8);
      memcpy(b + 8, &g, 8);
      clear_case("clear R64_UINT", VK_FORMAT_R64_UINT, 5, 3, 1, 2, 0, 2, NULL, &v, b);
      clear_case("clear R64_SINT", VK_FORMAT_R64_SINT, 5, 3, 1, 1, 0, 1, NULL, &v, b);
      clear_case("clear R64G64_UINT", VK_FORMAT_R64G64_UINT, 4, 3, 2, 1, 0, 1, NULL, &v, b);
      const struct sr_box box = {1, 0, 0, 2, 2, 1};
      clear_case("clear R64G64_SINT box", VK_FORMAT_R64G64_SINT, 4, 3, 1, 2, 1, 1, &box, &v, b);
      clear_case("clear R64G64B64A64_SINT", VK_FORMAT_R64G64B64A64_SINT, 3, 2, 1, 1, 0, 1, NULL,
                 &v, b);
      /* SFLOAT: the doubles' bits. */
      const double dr = -1.0e300, dg = 0.1;
      memcpy(&v.uint32[0], &dr, 8);
      memcpy(&v.uint32[2], &dg, 8);
      memcpy(b, &dr, 8);
      memcpy(b + 8, &dg, 8);
      clear_case("clear R64G64B64_SFLOAT", VK_FORMAT_R64G64B64_SFLOAT, 3, 2, 1, 1, 0, 1, NULL,
                 &v, b);
      clear_case("clear R64_SFLOAT", VK_FORMAT_R64_SFLOAT, 3, 2, 1, 1, 0, 1, NULL, &v, b);
   }
}

static void
ds_clear_case(const char *what, VkFormat format, const struct sr_box *box,
              VkImageAspectFlags aspects, float depth, uint32_t stencil, uint32_t want_depth,
              uint8_t want_stencil)
{
   struct timg img;
   timg_init(&img, format, 7, 5, 1, 3);
   const struct sr_box whole = {0, 0, 0, 7, 5, 1};
   const struct sr_box *b = box ? box : &whole;
   const uint32_t n = box_texels(b, 2);
   uint32_t *wd = malloc(n * sizeof(uint32_t));
   uint8_t *ws = malloc(n);
   for (uint32_t i = 0; i < n; i++) {
      wd[i] = want_depth;
      ws[i] = want_stencil;
   }
   uint8_t *before = dup_mem(img.mem, img.size);
   sr_clear_depth_stencil(&img.lvl, 1, 2, box, aspects, depth, stencil);
   const struct ds_expect e = {
      aspects & VK_IMAGE_ASPECT_DEPTH_BIT ? wd : NULL,
      aspects & VK_IMAGE_ASPECT_STENCIL_BIT ? ws : NULL,
   };
   check_ds(what, &img, before, 1, 2, b, &e);
   free(before);
   free(wd);
   free(ws);
   timg_finish(&img);
}

static void
test_ds_clears(void)
{
   const struct sr_box box = {2, 1, 0, 4, 3, 1};
   /* 0.25 * (2^24 - 1) = 4194303.75 -> 0x400000 */
   ds_clear_case("clear D24S8 depth", VK_FORMAT_D24_UNORM_S8_UINT, &box,
                 VK_IMAGE_ASPECT_DEPTH_BIT, 0.25f, 0, 0x400000, 0);
   ds_clear_case("clear D24S8 depth clamped", VK_FORMAT_D24_UNORM_S8_UINT, NULL,
                 VK_IMAGE_ASPECT_DEPTH_BIT, 1.5f, 0, 0xffffff, 0);
   ds_clear_case("clear D24S8 depth clamped low", VK_FORMAT_D24_UNORM_S8_UINT, &box,
                 VK_IMAGE_ASPECT_DEPTH_BIT, -0.5f, 0, 0, 0);
   /* The stencil value's low 8 bits. */
   ds_clear_case("clear D24S8 stencil", VK_FORMAT_D24_UNORM_S8_UINT, &box,
                 VK_IMAGE_ASPECT_STENCIL_BIT, 0.0f, 0x1ab, 0, 0xab);
   ds_clear_case("clear D24S8 both", VK_FORMAT_D24_UNORM_S8_UINT, &box,
                 VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, 1.0f, 7, 0xffffff, 7);
   ds_clear_case("clear D32S8 depth", VK_FORMAT_D32_SFLOAT_S8_UINT, &box,
                 VK_IMAGE_ASPECT_DEPTH_BIT, 0.375f, 0, f32_bits(0.375f), 0);
   ds_clear_case("clear D32S8 stencil", VK_FORMAT_D32_SFLOAT_S8_UINT, NULL,
                 VK_IMAGE_ASPECT_STENCIL_BIT, 0.0f, 200, 0, 200);
}

/* test_stream_clears()' pair of images: a, 131x6 with two layers, its base
 * moved by shift bytes from timg_init()'s; bl, the same level on b_mem, a
 * copy of a's memory. */
struct twin {
   struct timg a;
   uint8_t *b_mem;
   struct sr_image_level bl;
};

static void
twin_init(struct twin *t, VkFormat format, uint32_t shift)
{
   timg_init(&t->a, format, 131, 6, 1, 2);
   t->a.lvl.base += shift;
   t->b_mem = dup_mem(t->a.mem, t->a.size);
   t->bl = t->a.lvl;
   t->bl.base = t->b_mem + (t->a.lvl.base - t->a.mem);
}

/* Whether the two memories differ anywhere (padding and guards included);
 * frees both. */
static bool
twin_finish(struct twin *t)
{
   bool differ = memcmp(t->a.mem, t->b_mem, t->a.size) != 0;
   free(t->b_mem);
   timg_finish(&t->a);
   return differ;
}

/* The tile loop's streaming clears (sr_clear_color_box_stream,
 * sr_clear_depth_stencil_stream, sr_fill_texel_box with stream set: plain
 * stores before a row's first 64-byte line and after its last, non-temporal
 * ones between) write exactly the bytes of the plain clears: every texel
 * size, rows shorter and longer than a line, boxes starting at every
 * alignment (the base moved by 0 .. 63 bytes), the whole memory compared. */
static void
test_stream_clears(void)
{
   static const VkFormat formats[] = {
      VK_FORMAT_R8_UNORM,           VK_FORMAT_R5G6B5_UNORM_PACK16, VK_FORMAT_R8G8B8_UNORM,
      VK_FORMAT_R8G8B8A8_UNORM,     VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32_SFLOAT,
      VK_FORMAT_R32G32B32A32_UINT,  VK_FORMAT_R64G64B64A64_SINT,
   };
   static const struct sr_box boxes[] = {
      {0, 0, 0, 1, 1, 1},  {3, 1, 0, 17, 3, 1}, {0, 2, 0, 130, 4, 1},
      {5, 0, 0, 64, 5, 1}, {1, 3, 0, 129, 2, 1}, {70, 1, 0, 61, 3, 1},
   };
   const VkClearColorValue v = {.uint32 = {0x3f2a1b0cu, 0x81f00e47u, 0x5a5a0123u, 0xfedcba98u}};
   uint32_t bad = 0, runs = 0;
   for (size_t fi = 0; fi < sizeof(formats) / sizeof(formats[0]); fi++) {
      for (uint32_t shift = 0; shift < 64; shift += 7) {
         for (size_t bi = 0; bi < sizeof(boxes) / sizeof(boxes[0]); bi++) {
            struct twin tw;
            twin_init(&tw, formats[fi], shift);
            const struct su_format_desc *f = tw.a.lvl.format;
            if (bi % 2) {
               uint8_t texel[SR_CLEAR_TEXEL_MAX];
               sr_clear_color_texel(f, &v, texel);
               sr_fill_texel_box(&tw.a.lvl, 1, 1, &boxes[bi], texel, true);
               sr_fill_texel_box(&tw.bl, 1, 1, &boxes[bi], texel, false);
            } else {
               sr_clear_color_box_stream(&tw.a.lvl, 0, 2, &boxes[bi], &v, true);
               sr_clear_color_box(&tw.bl, 0, 2, &boxes[bi], &v);
            }
            bad += twin_finish(&tw);
            runs++;
         }
      }
   }
   static const VkFormat ds_formats[] = {VK_FORMAT_D16_UNORM, VK_FORMAT_D32_SFLOAT,
                                         VK_FORMAT_D24_UNORM_S8_UINT, VK_FORMAT_D32_SFLOAT_S8_UINT};
   static const VkImageAspectFlags aspects[] = {
      VK_IMAGE_ASPECT_DEPTH_BIT, VK_IMAGE_ASPECT_STENCIL_BIT,
      VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT};
   for (size_t fi = 0; fi < sizeof(ds_formats) / sizeof(ds_formats[0]); fi++) {
      for (size_t ai = 0; ai < 3; ai++) {
         for (uint32_t shift = 0; shift < 64; shift += 13) {
            struct twin tw;
            twin_init(&tw, ds_formats[fi], shift);
            const struct sr_box *box = &boxes[2 + shift % 4];
            sr_clear_depth_stencil_stream(&tw.a.lvl, 0, 2, box, aspects[ai], 0.3f, 0x5c, true);
            sr_clear_depth_stencil(&tw.bl, 0, 2, box, aspects[ai], 0.3f, 0x5c);
            bad += twin_finish(&tw);
            runs++;
         }
      }
   }
   CHECK(bad == 0, "streaming clears and fills: %u of %u runs differ from the plain ones", bad,
         runs);
}

int
main(void)
{
   test_copy_image();
   test_buffer_copies();
   test_depth_stencil_copies();
   test_blits();
   test_depth_blit();
   test_clears();
   test_ds_clears();
   test_stream_clears();
   return check_finish();
}
