/* Multi-planar images without sampling: plane-aspect copies (buffer <-> plane,
 * plane <-> single-plane image, plane <-> plane of another multi-planar
 * image, disjoint or not) against a CPU model of every plane; per-plane
 * subresource layouts of linear images, checked by writing the planes
 * through the layouts and copying them out; and, without the validation
 * layer, that bad input is refused (conversions, samplers, images, views,
 * plane bindings) and that conversions, images and views honour failing
 * allocation callbacks. */
#include <stdio.h>

#include "ycbcr_common.h"

/* ------------------------------------------------------------------------ */
/* A CPU model of images                                                     */
/* ------------------------------------------------------------------------ */

/* An image as the test sees it: its planes' bytes (a single-plane image
 * has one plane, addressed with the COLOR aspect). */
struct mimg {
   const char *name;
   VkFormat format;
   bool multiplanar, disjoint;
   uint32_t planes;
   uint32_t pw[3], ph[3], bytes[3];
   uint8_t *data[3];
   VkImage image;
   VkDeviceMemory memory[3];
};

static VkImageAspectFlags
mimg_aspect(const struct mimg *m, uint32_t p)
{
   return m->multiplanar ? (VkImageAspectFlags)plane_aspect(p) : VK_IMAGE_ASPECT_COLOR_BIT;
}

static size_t
mimg_size(const struct mimg *m, uint32_t p)
{
   return (size_t)m->pw[p] * m->ph[p] * m->bytes[p];
}

/* A multi-planar image of yfmt f, or (f NULL) a single-plane image of
 * `format` with `bytes` per texel; random contents in the model. */
static bool
mimg_create(struct ydev *d, struct mimg *m, const char *name, const struct yfmt *f,
            VkFormat format, uint32_t bytes, uint32_t w, uint32_t h, bool disjoint)
{
   VkDevice dev = d->t.device;
   memset(m, 0, sizeof(*m));
   m->name = name;
   m->format = f ? f->format : format;
   m->multiplanar = f != NULL;
   m->disjoint = disjoint;
   m->planes = f ? f->planes : 1;
   for (uint32_t p = 0; p < m->planes; p++) {
      m->pw[p] = f ? w / f->div[p] : w;
      m->ph[p] = f ? h / f->div[p] : h;
      m->bytes[p] = f ? f->bytes[p] : bytes;
      m->data[p] = malloc(mimg_size(m, p));
      for (size_t b = 0; b < mimg_size(m, p); b++)
         m->data[p][b] = (uint8_t)yrnd();
   }
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .flags = disjoint ? VK_IMAGE_CREATE_DISJOINT_BIT : 0,
      .imageType = VK_IMAGE_TYPE_2D, .format = m->format, .extent = { w, h, 1 }, .mipLevels = 1,
      .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   if (vkCreateImage(dev, &ici, NULL, &m->image) != VK_SUCCESS)
      return false;
   VkBindImageMemoryInfo bind[3];
   VkBindImagePlaneMemoryInfo pinfo[3];
   const uint32_t n = disjoint ? m->planes : 1;
   for (uint32_t p = 0; p < n; p++)
      if (ydev_plane_memory(d, m->image, disjoint, p, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, NULL,
                            NULL, &m->memory[p], NULL, &bind[p], &pinfo[p]) != VK_SUCCESS)
         return false;
   return d->bind_image_memory2(dev, n, bind) == VK_SUCCESS;
}

static void
mimg_destroy(struct ydev *d, struct mimg *m)
{
   vkDestroyImage(d->t.device, m->image, NULL);
   for (uint32_t p = 0; p < 3; p++) {
      vkFreeMemory(d->t.device, m->memory[p], NULL);
      free(m->data[p]);
   }
}

/* A rectangle copy between planes of the model. */
static void
model_copy(const struct mimg *src, uint32_t sp, int32_t sx, int32_t sy, struct mimg *dst,
           uint32_t dp, int32_t dx, int32_t dy, uint32_t w, uint32_t h)
{
   const uint32_t b = src->bytes[sp];
   for (uint32_t y = 0; y < h; y++)
      memcpy(dst->data[dp] + (((size_t)(dy + y)) * dst->pw[dp] + dx) * b,
             src->data[sp] + (((size_t)(sy + y)) * src->pw[sp] + sx) * b, (size_t)w * b);
}

/* Regions for every plane of m, plane p at buffer offset off[p],
 * tightly packed; returns how many. */
static uint32_t
mimg_regions(const struct mimg *m, const size_t off[3], VkBufferImageCopy r[3])
{
   for (uint32_t p = 0; p < m->planes; p++)
      r[p] = (VkBufferImageCopy) { .bufferOffset = off[p],
                                   .imageSubresource = { mimg_aspect(m, p), 0, 0, 1 },
                                   .imageExtent = { m->pw[p], m->ph[p], 1 } };
   return m->planes;
}

/* Moves the image to layout `to` (the whole image, each plane of a
 * disjoint one on its own), making earlier transfers visible. */
static void
mimg_layout(VkCommandBuffer cb, struct mimg *m, VkImageLayout *cur, VkImageLayout to)
{
   for (uint32_t p = 0; p < (m->disjoint ? m->planes : 1); p++)
      vkt_image_barrier(cb, m->image, m->disjoint ? (VkImageAspectFlags)plane_aspect(p)
                                                  : VK_IMAGE_ASPECT_COLOR_BIT,
                        *cur, to);
   *cur = to;
}

/* ------------------------------------------------------------------------ */
/* Copies                                                                    */
/* ------------------------------------------------------------------------ */

static void
test_copies(struct ydev *d)
{
   struct vkt *t = &d->t;
   enum { A, B, C, S8, S16, N };
   struct mimg m[N];
   bool ok = mimg_create(d, &m[A], "3-plane", &yfmts[0], 0, 0, 16, 12, false) &&
             mimg_create(d, &m[B], "3-plane disjoint", &yfmts[0], 0, 0, 16, 12, true) &&
             mimg_create(d, &m[C], "2-plane", &yfmts[1], 0, 0, 16, 12, false) &&
             mimg_create(d, &m[S8], "R8", NULL, VK_FORMAT_R8_UNORM, 1, 10, 7, false) &&
             mimg_create(d, &m[S16], "R8G8", NULL, VK_FORMAT_R8G8_UNORM, 2, 9, 6, false);
   CHECK(ok, "copies: images");
   if (!ok)
      return;

   /* Staging: every plane of every image, then a patch for a sub-region. */
   size_t total = 0, off[N][3];
   for (int i = 0; i < N; i++)
      for (uint32_t p = 0; p < m[i].planes; p++) {
         off[i][p] = total;
         total += (mimg_size(&m[i], p) + 15) / 16 * 16;
      }
   const size_t patch_off = total;
   const uint32_t patch_row = 7, patch_rows = 5;
   total += patch_row * patch_rows;
   struct vkt_buffer up, down;
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up) == VK_SUCCESS, "up");
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &down) == VK_SUCCESS, "down");
   uint8_t *upb = up.map;
   for (int i = 0; i < N; i++)
      for (uint32_t p = 0; p < m[i].planes; p++)
         memcpy(upb + off[i][p], m[i].data[p], mimg_size(&m[i], p));
   for (uint32_t b = 0; b < patch_row * patch_rows; b++)
      upb[patch_off + b] = (uint8_t)yrnd();
   memset(down.map, 0, total);

   VkCommandBuffer cb = vkt_begin(t);
   const VkImageLayout SRC = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, DST = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
   VkImageLayout cur[N];
   for (int i = 0; i < N; i++) {
      cur[i] = VK_IMAGE_LAYOUT_UNDEFINED;
      mimg_layout(cb, &m[i], &cur[i], DST);
   }
   for (int i = 0; i < N; i++) {
      VkBufferImageCopy r[3];
      vkCmdCopyBufferToImage(cb, up.buffer, m[i].image, DST, mimg_regions(&m[i], off[i], r), r);
   }
   /* A sub-region of A's plane 1 from a patch with its own row length and
    * image height. */
   VkBufferImageCopy patch = { .bufferOffset = patch_off, .bufferRowLength = patch_row,
                               .bufferImageHeight = patch_rows,
                               .imageSubresource = { VK_IMAGE_ASPECT_PLANE_1_BIT, 0, 0, 1 },
                               .imageOffset = { 2, 1, 0 }, .imageExtent = { 4, 3, 1 } };
   vkCmdCopyBufferToImage(cb, up.buffer, m[A].image, DST, 1, &patch);
   for (uint32_t y = 0; y < 3; y++)
      memcpy(m[A].data[1] + (1 + y) * m[A].pw[1] + 2, upb + patch_off + y * patch_row, 4);

   /* Image copies: plane -> single-plane image, single-plane image ->
    * plane, plane -> plane of another format and of a disjoint image. */
   struct { int s; uint32_t sp; int32_t sx, sy; int d; uint32_t dp; int32_t dx, dy; uint32_t w, h; } ops[] = {
      { A, 0, 3, 2, S8, 0, 1, 1, 5, 4 },
      { C, 1, 1, 1, S16, 0, 2, 2, 4, 3 },
      { S16, 0, 0, 0, C, 1, 5, 3, 3, 3 },
      { S8, 0, 4, 3, B, 2, 2, 2, 4, 3 },
      { A, 2, 0, 0, C, 0, 8, 6, 8, 6 },
      { B, 0, 5, 5, A, 0, 10, 8, 6, 4 },
      { B, 1, 0, 0, A, 2, 0, 0, 8, 6 },
   };
   for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
      VkImageCopy r = {
         .srcSubresource = { mimg_aspect(&m[ops[i].s], ops[i].sp), 0, 0, 1 },
         .srcOffset = { ops[i].sx, ops[i].sy, 0 },
         .dstSubresource = { mimg_aspect(&m[ops[i].d], ops[i].dp), 0, 0, 1 },
         .dstOffset = { ops[i].dx, ops[i].dy, 0 },
         .extent = { ops[i].w, ops[i].h, 1 },
      };
      /* Every copy waits for the one before (a barrier per image). */
      mimg_layout(cb, &m[ops[i].s], &cur[ops[i].s], SRC);
      mimg_layout(cb, &m[ops[i].d], &cur[ops[i].d], DST);
      vkCmdCopyImage(cb, m[ops[i].s].image, SRC, m[ops[i].d].image, DST, 1, &r);
      model_copy(&m[ops[i].s], ops[i].sp, ops[i].sx, ops[i].sy, &m[ops[i].d], ops[i].dp, ops[i].dx,
                 ops[i].dy, ops[i].w, ops[i].h);
   }
   /* Everything back out. */
   for (int i = 0; i < N; i++) {
      VkBufferImageCopy r[3];
      mimg_layout(cb, &m[i], &cur[i], SRC);
      vkCmdCopyImageToBuffer(cb, m[i].image, SRC, down.buffer, mimg_regions(&m[i], off[i], r), r);
   }
   VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0,
                        NULL, 0, NULL);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "copies: submit");
   for (int i = 0; i < N; i++)
      for (uint32_t p = 0; p < m[i].planes; p++) {
         const uint8_t *got = (const uint8_t *)down.map + off[i][p];
         size_t bad = 0;
         for (size_t b = 0; b < mimg_size(&m[i], p); b++)
            bad += got[b] != m[i].data[p][b];
         CHECK(bad == 0, "copies: %s plane %u: %zu of %zu bytes differ from the model", m[i].name, p,
               bad, mimg_size(&m[i], p));
      }
   vkt_buffer_destroy(t, &up);
   vkt_buffer_destroy(t, &down);
   for (int i = 0; i < N; i++)
      mimg_destroy(d, &m[i]);
}

/* ------------------------------------------------------------------------ */
/* Subresource layouts of linear images                                      */
/* ------------------------------------------------------------------------ */

static void
test_layouts(struct ydev *d, const struct yfmt *f, bool disjoint)
{
   struct vkt *t = &d->t;
   VkDevice dev = t->device;
   const uint32_t w = 22, h = 14;
   struct yimg im;
   yimg_init(&im, f, w, h);
   const char *what = disjoint ? "disjoint" : "non-disjoint";
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .flags = disjoint ? VK_IMAGE_CREATE_DISJOINT_BIT : 0, .imageType = VK_IMAGE_TYPE_2D,
      .format = f->format, .extent = { w, h, 1 }, .mipLevels = 1, .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_LINEAR,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT, .initialLayout = VK_IMAGE_LAYOUT_PREINITIALIZED,
   };
   VkImage image;
   CHECK(vkCreateImage(dev, &ici, NULL, &image) == VK_SUCCESS, "%s %s linear image", f->name, what);
   VkDeviceMemory mem[3] = { 0 };
   uint8_t *map[3] = { 0 };
   VkDeviceSize req_size[3] = { 0 };
   VkBindImageMemoryInfo bind[3];
   VkBindImagePlaneMemoryInfo pinfo[3];
   const uint32_t n = disjoint ? f->planes : 1;
   for (uint32_t p = 0; p < n; p++) {
      VkMemoryDedicatedRequirements ded = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS };
      CHECK(ydev_plane_memory(d, image, disjoint, p,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                              &ded, &req_size[p], &mem[p], (void **)&map[p], &bind[p],
                              &pinfo[p]) == VK_SUCCESS,
            "%s %s: host-visible memory", f->name, what);
   }
   /* A disjoint image's planes need less than the whole. */
   if (disjoint)
      for (uint32_t p = 0; p < n; p++)
         CHECK(req_size[p] >= im.size[p], "%s: plane %u requirements %llu", f->name, p,
               (unsigned long long)req_size[p]);
   CHECK(d->bind_image_memory2(dev, n, bind) == VK_SUCCESS, "%s %s: bind", f->name, what);

   VkSubresourceLayout lay[3];
   for (uint32_t p = 0; p < f->planes; p++) {
      VkImageSubresource sub = { plane_aspect(p), 0, 0 };
      vkGetImageSubresourceLayout(dev, image, &sub, &lay[p]);
      const uint32_t mi = disjoint ? p : 0;
      const VkDeviceSize row = (VkDeviceSize)im.pw[p] * f->bytes[p];
      CHECK(lay[p].rowPitch >= row &&
               lay[p].size >= lay[p].rowPitch * (im.ph[p] - 1) + row &&
               lay[p].offset + lay[p].size <= req_size[mi],
            "%s %s plane %u: offset %llu size %llu rowPitch %llu (memory %llu)", f->name, what, p,
            (unsigned long long)lay[p].offset, (unsigned long long)lay[p].size,
            (unsigned long long)lay[p].rowPitch, (unsigned long long)req_size[mi]);
      for (uint32_t q = 0; q < p && !disjoint; q++)
         CHECK(lay[p].offset >= lay[q].offset + lay[q].size ||
                  lay[q].offset >= lay[p].offset + lay[p].size,
               "%s: planes %u and %u overlap", f->name, q, p);
      /* The plane's rows through the layout. */
      for (uint32_t y = 0; y < im.ph[p]; y++)
         memcpy(map[mi] + lay[p].offset + y * lay[p].rowPitch,
                im.plane[p] + (size_t)y * im.pw[p] * f->bytes[p], im.pw[p] * f->bytes[p]);
   }
   struct vkt_buffer down;
   size_t total = 0, off[3];
   for (uint32_t p = 0; p < f->planes; p++) {
      off[p] = total;
      total += (im.size[p] + 15) / 16 * 16;
   }
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &down) == VK_SUCCESS, "down");
   VkCommandBuffer cb = vkt_begin(t);
   for (uint32_t p = 0; p < (disjoint ? f->planes : 1); p++) {
      VkImageMemoryBarrier b = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT, .oldLayout = VK_IMAGE_LAYOUT_PREINITIALIZED,
         .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
         .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .image = image,
         .subresourceRange = { disjoint ? (VkImageAspectFlags)plane_aspect(p) : VK_IMAGE_ASPECT_COLOR_BIT,
                               0, 1, 0, 1 },
      };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, NULL,
                           0, NULL, 1, &b);
   }
   VkBufferImageCopy r[3];
   for (uint32_t p = 0; p < f->planes; p++)
      r[p] = (VkBufferImageCopy) { .bufferOffset = off[p],
                                   .imageSubresource = { plane_aspect(p), 0, 0, 1 },
                                   .imageExtent = { im.pw[p], im.ph[p], 1 } };
   vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, down.buffer, f->planes, r);
   VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb, 0,
                        NULL, 0, NULL);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "layouts: submit");
   for (uint32_t p = 0; p < f->planes; p++)
      CHECK(!memcmp((const uint8_t *)down.map + off[p], im.plane[p], im.size[p]),
            "%s %s plane %u: written through the layout, copied out differently", f->name, what, p);
   vkt_buffer_destroy(t, &down);
   vkDestroyImage(dev, image, NULL);
   for (uint32_t p = 0; p < 3; p++)
      vkFreeMemory(dev, mem[p], NULL);
   yimg_free(&im);
}

/* ------------------------------------------------------------------------ */
/* Bad input and allocation failures (no validation layer)                   */
/* ------------------------------------------------------------------------ */

static const VkSamplerYcbcrConversionCreateInfo good_conversion = {
   .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO,
   .format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM,
   .ycbcrModel = VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709,
   .ycbcrRange = VK_SAMPLER_YCBCR_RANGE_ITU_NARROW,
   .xChromaOffset = VK_CHROMA_LOCATION_MIDPOINT,
   .yChromaOffset = VK_CHROMA_LOCATION_COSITED_EVEN,
   .chromaFilter = VK_FILTER_LINEAR,
};

static const VkImageCreateInfo good_image = {
   .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT,
   .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM,
   .extent = { 8, 6, 1 }, .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
   .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = VK_IMAGE_USAGE_SAMPLED_BIT,
};

static void
test_bad_input(struct ydev *d)
{
   VkDevice dev = d->t.device;
   VkSamplerYcbcrConversion conv;
   VkSamplerYcbcrConversionCreateInfo c;
   /* Conversions: a format without chroma locations, swizzles the spec
    * forbids for _420 formats, an unknown model. */
   c = good_conversion;
   c.format = VK_FORMAT_R8G8B8A8_UNORM;
   CHECK_EQ_INT(d->create_conversion(dev, &c, NULL, &conv), VK_ERROR_FORMAT_NOT_SUPPORTED);
   c = good_conversion;
   c.components.g = VK_COMPONENT_SWIZZLE_R;
   CHECK_EQ_INT(d->create_conversion(dev, &c, NULL, &conv), VK_ERROR_FORMAT_NOT_SUPPORTED);
   c = good_conversion;
   c.components.r = VK_COMPONENT_SWIZZLE_B;   /* b not swapped with it */
   CHECK_EQ_INT(d->create_conversion(dev, &c, NULL, &conv), VK_ERROR_FORMAT_NOT_SUPPORTED);
   c = good_conversion;
   c.components.a = VK_COMPONENT_SWIZZLE_R;
   CHECK_EQ_INT(d->create_conversion(dev, &c, NULL, &conv), VK_ERROR_FORMAT_NOT_SUPPORTED);
   c = good_conversion;
   c.ycbcrModel = (VkSamplerYcbcrModelConversion)7;
   CHECK_EQ_INT(d->create_conversion(dev, &c, NULL, &conv), VK_ERROR_FORMAT_NOT_SUPPORTED);

   /* Samplers with a conversion: clamp to edge, normalized coordinates,
    * no anisotropy, no comparison. */
   CHECK_EQ_INT(d->create_conversion(dev, &good_conversion, NULL, &conv), VK_SUCCESS);
   VkSamplerYcbcrConversionInfo info = { VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO, NULL, conv };
   const VkSamplerCreateInfo good_sampler = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .pNext = &info,
      .magFilter = VK_FILTER_LINEAR, .minFilter = VK_FILTER_LINEAR,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
   };
   VkSampler s;
   VkSamplerCreateInfo sc = good_sampler;
   sc.addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT;
   CHECK_EQ_INT(vkCreateSampler(dev, &sc, NULL, &s), VK_ERROR_FORMAT_NOT_SUPPORTED);
   sc = good_sampler;
   sc.unnormalizedCoordinates = VK_TRUE;
   CHECK_EQ_INT(vkCreateSampler(dev, &sc, NULL, &s), VK_ERROR_FORMAT_NOT_SUPPORTED);
   sc = good_sampler;
   sc.compareEnable = VK_TRUE;
   CHECK_EQ_INT(vkCreateSampler(dev, &sc, NULL, &s), VK_ERROR_FORMAT_NOT_SUPPORTED);
   CHECK_EQ_INT(vkCreateSampler(dev, &good_sampler, NULL, &s), VK_SUCCESS);
   vkDestroySampler(dev, s, NULL);
   d->destroy_conversion(dev, conv, NULL);

   /* Images: 2D, one level, one layer, extents the planes divide; no
    * DISJOINT on single-plane formats. */
   VkImage img;
   VkImageCreateInfo ic = good_image;
   ic.imageType = VK_IMAGE_TYPE_3D;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_ERROR_FORMAT_NOT_SUPPORTED);
   ic = good_image;
   ic.mipLevels = 2;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_ERROR_FORMAT_NOT_SUPPORTED);
   ic = good_image;
   ic.arrayLayers = 2;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_ERROR_FORMAT_NOT_SUPPORTED);
   ic = good_image;
   ic.extent.width = 7;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_ERROR_FORMAT_NOT_SUPPORTED);
   ic = good_image;
   ic.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_ERROR_FORMAT_NOT_SUPPORTED);
   ic = good_image;
   ic.format = VK_FORMAT_R8G8B8A8_UNORM;
   ic.flags = VK_IMAGE_CREATE_DISJOINT_BIT;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_ERROR_FORMAT_NOT_SUPPORTED);

   /* Views: a plane in a format of another size, a plane the format lacks. */
   VkImage good;
   CHECK_EQ_INT(vkCreateImage(dev, &good_image, NULL, &good), VK_SUCCESS);
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(dev, good, &req);
   VkDeviceMemory mem;
   CHECK_EQ_INT(ydev_alloc(d, req.size, req.memoryTypeBits, 0, &mem, NULL), VK_SUCCESS);
   CHECK_EQ_INT(vkBindImageMemory(dev, good, mem, 0), VK_SUCCESS);
   VkImageViewCreateInfo vc = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = good,
      .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = VK_FORMAT_R8G8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_PLANE_1_BIT, 0, 1, 0, 1 },
   };
   VkImageView view;
   CHECK_EQ_INT(vkCreateImageView(dev, &vc, NULL, &view), VK_ERROR_FORMAT_NOT_SUPPORTED);
   vc.format = VK_FORMAT_R8_UNORM;
   vc.subresourceRange.aspectMask = VK_IMAGE_ASPECT_PLANE_0_BIT | VK_IMAGE_ASPECT_PLANE_1_BIT;
   CHECK_EQ_INT(vkCreateImageView(dev, &vc, NULL, &view), VK_ERROR_FORMAT_NOT_SUPPORTED);
   vc.subresourceRange.aspectMask = VK_IMAGE_ASPECT_PLANE_2_BIT;
   CHECK_EQ_INT(vkCreateImageView(dev, &vc, NULL, &view), VK_SUCCESS);
   vkDestroyImageView(dev, view, NULL);
   vkDestroyImage(dev, good, NULL);
   vkFreeMemory(dev, mem, NULL);

   /* Binding a plane a disjoint 2-plane image lacks. */
   ic = good_image;
   ic.format = VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
   ic.flags = VK_IMAGE_CREATE_DISJOINT_BIT;
   CHECK_EQ_INT(vkCreateImage(dev, &ic, NULL, &img), VK_SUCCESS);
   CHECK_EQ_INT(ydev_alloc(d, 4096, ~0u, 0, &mem, NULL), VK_SUCCESS);
   VkBindImagePlaneMemoryInfo pi = { VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO, NULL,
                                     VK_IMAGE_ASPECT_PLANE_2_BIT };
   VkBindImageMemoryInfo bi = { VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO, &pi, img, mem, 0 };
   CHECK(d->bind_image_memory2(dev, 1, &bi) != VK_SUCCESS, "binding plane 2 of a 2-plane image");
   vkDestroyImage(dev, img, NULL);
   vkFreeMemory(dev, mem, NULL);
}

/* Allocation callbacks that count live blocks and fail from the n-th
 * allocation on (n < 0: never). */
struct counter {
   int live, calls, fail_at;
};

static void *VKAPI_PTR
c_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct counter *c = user;
   if (c->fail_at >= 0 && c->calls++ >= c->fail_at)
      return NULL;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size))
      return NULL;
   c->live++;
   return p;
}

static void *VKAPI_PTR
c_realloc(void *user, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   return NULL;   /* the objects tested never reallocate */
}

static void VKAPI_PTR
c_free(void *user, void *mem)
{
   struct counter *c = user;
   if (mem) {
      c->live--;
      free(mem);
   }
}

static void
test_alloc_failures(struct ydev *d)
{
   VkDevice dev = d->t.device;
   struct counter cnt = { 0, 0, 0 };
   VkAllocationCallbacks ac = { &cnt, c_alloc, c_realloc, c_free, NULL, NULL };
   /* Fail every allocation, then none: no leak either way. */
   VkSamplerYcbcrConversion conv = VK_NULL_HANDLE;
   CHECK_EQ_INT(d->create_conversion(dev, &good_conversion, &ac, &conv), VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK(cnt.live == 0, "failed conversion leaked %d blocks", cnt.live);
   VkImage img;
   CHECK_EQ_INT(vkCreateImage(dev, &good_image, &ac, &img), VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK(cnt.live == 0, "failed image leaked %d blocks", cnt.live);
   cnt.fail_at = -1;
   CHECK_EQ_INT(d->create_conversion(dev, &good_conversion, &ac, &conv), VK_SUCCESS);
   CHECK_EQ_INT(vkCreateImage(dev, &good_image, &ac, &img), VK_SUCCESS);
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(dev, img, &req);
   VkDeviceMemory mem;
   CHECK_EQ_INT(ydev_alloc(d, req.size, req.memoryTypeBits, 0, &mem, NULL), VK_SUCCESS);
   CHECK_EQ_INT(vkBindImageMemory(dev, img, mem, 0), VK_SUCCESS);
   VkSamplerYcbcrConversionInfo info = { VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO, NULL, conv };
   VkImageViewCreateInfo vc = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .pNext = &info, .image = img,
      .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   VkSamplerYcbcrConversionCreateInfo c3 = good_conversion;
   c3.format = VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM;
   VkSamplerYcbcrConversion conv3;
   CHECK_EQ_INT(d->create_conversion(dev, &c3, &ac, &conv3), VK_SUCCESS);
   info.conversion = conv3;
   int before = cnt.live;
   cnt.fail_at = cnt.calls;
   VkImageView view;
   CHECK_EQ_INT(vkCreateImageView(dev, &vc, &ac, &view), VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK(cnt.live == before, "failed view leaked %d blocks", cnt.live - before);
   cnt.fail_at = -1;
   CHECK_EQ_INT(vkCreateImageView(dev, &vc, &ac, &view), VK_SUCCESS);
   vkDestroyImageView(dev, view, &ac);
   vkDestroyImage(dev, img, &ac);
   vkFreeMemory(dev, mem, NULL);
   d->destroy_conversion(dev, conv, &ac);
   d->destroy_conversion(dev, conv3, &ac);
   CHECK(cnt.live == 0, "%d blocks left after destroying everything", cnt.live);
}

int
main(void)
{
   struct ydev d;
   if (!ydev_init(&d, VKT_SHALE, true, false, NULL, NULL) || !d.ycbcr) {
      CHECK(false, "Shale device with VK_KHR_sampler_ycbcr_conversion missing");
      return check_finish();
   }
   test_copies(&d);
   for (unsigned f = 0; f < NYFMTS; f++) {
      test_layouts(&d, &yfmts[f], false);
      test_layouts(&d, &yfmts[f], true);
   }
   vkt_finish(&d.t);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());

   /* Invalid usage on purpose: no validation layer from here on. */
   struct ydev nv;
   if (ydev_init(&nv, VKT_SHALE, true, true, NULL, NULL) && nv.ycbcr) {
      test_bad_input(&nv);
      test_alloc_failures(&nv);
      vkt_finish(&nv.t);
   } else {
      CHECK(false, "Shale device without the layer");
   }
   return check_finish();
}
