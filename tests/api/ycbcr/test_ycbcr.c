/* Sampling through sampler Y'CbCr conversions (VK_KHR_sampler_ycbcr_conversion)
 * in a compute shader, on both multi-planar formats Shale claims, at many
 * coordinates, for every model, range, chroma location, chroma filter and
 * reconstruction kind, with the sampler's own filters and the conversion's
 * swizzles, checked against a C reference written from the spec's "Sampler
 * Y'CbCr Conversion" and "Chroma Reconstruction" sections; and views of one
 * plane sampled without a conversion, checked against the reference and
 * against lavapipe (which has no Y'CbCr conversion) sampling the same plane
 * data. */
#include <math.h>
#include <stdio.h>

#include "ycbcr_common.h"

#include "ycbcr_spv.h"

#define NQ 128

/* ycbcr.comp's Query (std430). */
struct query {
   float st[2];
   float lod;
   int32_t op;
   float dx[2];
   float dy[2];
};
_Static_assert(sizeof(struct query) == 32, "std430 Query");

/* A conversion and the sampler filters used with it. */
struct convp {
   VkSamplerYcbcrModelConversion model;
   VkSamplerYcbcrRange range;
   VkComponentSwizzle sw[4];   /* the conversion's components */
   VkChromaLocation xoff, yoff;
   VkFilter chroma_filter;
   bool explicit_rec;
   VkFilter mag, min;
};

/* ------------------------------------------------------------------------ */
/* The reference                                                             */
/* ------------------------------------------------------------------------ */

/* Component swizzle, range expansion and model conversion (n = 8 bits). */
static void
ref_convert(const struct convp *p, double t[4])
{
   double in[4] = { t[0], t[1], t[2], t[3] };
   for (int k = 0; k < 4; k++) {
      VkComponentSwizzle s = p->sw[k];
      if (s == VK_COMPONENT_SWIZZLE_IDENTITY)
         s = (VkComponentSwizzle)(VK_COMPONENT_SWIZZLE_R + k);
      t[k] = s == VK_COMPONENT_SWIZZLE_ZERO ? 0.0 : s == VK_COMPONENT_SWIZZLE_ONE ? 1.0
             : in[s - VK_COMPONENT_SWIZZLE_R];
   }
   if (p->model == VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY)
      return;
   const double n = 8;
   double y, cb, cr;
   if (p->range == VK_SAMPLER_YCBCR_RANGE_ITU_FULL) {
      y = t[1];
      cb = t[2] - pow(2, n - 1) / (pow(2, n) - 1);
      cr = t[0] - pow(2, n - 1) / (pow(2, n) - 1);
   } else {
      y = (t[1] * (pow(2, n) - 1) - 16 * pow(2, n - 8)) / (219 * pow(2, n - 8));
      cb = (t[2] * (pow(2, n) - 1) - 128 * pow(2, n - 8)) / (224 * pow(2, n - 8));
      cr = (t[0] * (pow(2, n) - 1) - 128 * pow(2, n - 8)) / (224 * pow(2, n - 8));
   }
   /* The Khronos Data Format Specification's BT.709, BT.601 and BT.2020
    * Y'CbCr to R'G'B' equations, from their Kr and Kb. */
   double kr, kb;
   switch (p->model) {
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709: kr = 0.2126; kb = 0.0722; break;
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601: kr = 0.299; kb = 0.114; break;
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020: kr = 0.2627; kb = 0.0593; break;
   default:
      t[0] = cr;
      t[1] = y;
      t[2] = cb;
      return;
   }
   double kg = 1 - kr - kb;
   t[0] = y + (2 - 2 * kr) * cr;
   t[1] = y - (2 * kb * (1 - kb) / kg) * cb - (2 * kr * (1 - kr) / kg) * cr;
   t[2] = y + (2 - 2 * kb) * cb;
}

/* Component c filtered at (u, v) of its plane's texel space. */
static double
ref_filter(const struct yimg *im, int c, VkFilter f, double u, double v)
{
   if (f == VK_FILTER_NEAREST)
      return yimg_comp(im, c, (int64_t)floor(u), (int64_t)floor(v));
   double i0 = floor(u - 0.5), j0 = floor(v - 0.5), a = u - 0.5 - i0, b = v - 0.5 - j0;
   int64_t i = (int64_t)i0, j = (int64_t)j0;
   return (1 - a) * (1 - b) * yimg_comp(im, c, i, j) + a * (1 - b) * yimg_comp(im, c, i + 1, j) +
          (1 - a) * b * yimg_comp(im, c, i, j + 1) + a * b * yimg_comp(im, c, i + 1, j + 1);
}

/* Implicit reconstruction: G with the sampler's filter, R and B with the
 * chroma filter at u'_RB = 0.5 (u + 0.5) (cosited even) or 0.5 u
 * (midpoint) when halved; then the conversion. */
static void
ref_implicit(const struct yimg *im, const struct convp *p, double u, double v, VkFilter filter,
             double out[4])
{
   out[1] = ref_filter(im, 1, filter, u, v);
   for (int c = 0; c <= 2; c += 2) {
      uint32_t div = im->f->div[im->f->plane_of[c]];
      double uc = div == 2 ? (p->xoff == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5 * (u + 0.5) : 0.5 * u) : u;
      double vc = div == 2 ? (p->yoff == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5 * (v + 0.5) : 0.5 * v) : v;
      out[c] = ref_filter(im, c, p->chroma_filter, uc, vc);
   }
   out[3] = 1.0;
   ref_convert(p, out);
}

/* tau'(i, j) of explicit reconstruction (420), converted. */
static void
ref_texel_explicit(const struct yimg *im, const struct convp *p, int64_t i, int64_t j,
                   double out[4])
{
   i = i < 0 ? 0 : i >= im->w ? im->w - 1 : i;
   j = j < 0 ? 0 : j >= im->h ? im->h - 1 : j;
   out[1] = yimg_comp(im, 1, i, j);
   for (int c = 0; c <= 2; c += 2) {
      if (p->chroma_filter == VK_FILTER_NEAREST) {
         out[c] = yimg_comp(im, c, (int64_t)floor(i * 0.5), (int64_t)floor(j * 0.5));
         continue;
      }
      double irb = p->xoff == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5 * i : 0.5 * (i - 0.5);
      double jrb = p->yoff == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5 * j : 0.5 * (j - 0.5);
      double fi = floor(irb), fj = floor(jrb), a = irb - fi, b = jrb - fj;
      int64_t ii = (int64_t)fi, jj = (int64_t)fj;
      out[c] = yimg_comp(im, c, ii, jj) * (1 - a) * (1 - b) + yimg_comp(im, c, ii + 1, jj) * a * (1 - b) +
               yimg_comp(im, c, ii, jj + 1) * (1 - a) * b + yimg_comp(im, c, ii + 1, jj + 1) * a * b;
   }
   out[3] = 1.0;
   ref_convert(p, out);
}

static void
ref_explicit(const struct yimg *im, const struct convp *p, double u, double v, VkFilter filter,
             double out[4])
{
   if (filter == VK_FILTER_NEAREST) {
      ref_texel_explicit(im, p, (int64_t)floor(u), (int64_t)floor(v), out);
      return;
   }
   double i0 = floor(u - 0.5), j0 = floor(v - 0.5), a = u - 0.5 - i0, b = v - 0.5 - j0;
   double t[4][4];
   ref_texel_explicit(im, p, (int64_t)i0, (int64_t)j0, t[0]);
   ref_texel_explicit(im, p, (int64_t)i0 + 1, (int64_t)j0, t[1]);
   ref_texel_explicit(im, p, (int64_t)i0, (int64_t)j0 + 1, t[2]);
   ref_texel_explicit(im, p, (int64_t)i0 + 1, (int64_t)j0 + 1, t[3]);
   for (int k = 0; k < 4; k++)
      out[k] = (1 - a) * (1 - b) * t[0][k] + a * (1 - b) * t[1][k] + (1 - a) * b * t[2][k] +
               a * b * t[3][k];
}

/* The LOD of a query on a w x h image: its Lod, or log2 of the longer
 * scaled gradient (minLod 0, so negative values clamp to 0: magnification). */
static double
ref_lambda(const struct query *q, uint32_t w, uint32_t h)
{
   if (q->op == 0)
      return q->lod;
   double rx = hypot(q->dx[0] * w, q->dx[1] * h), ry = hypot(q->dy[0] * w, q->dy[1] * h);
   return log2(fmax(rx, ry));
}

static void
ref_sample(const struct yimg *im, const struct convp *p, const struct query *q, double out[4])
{
   double lambda = fmax(ref_lambda(q, im->w, im->h), 0.0);
   VkFilter filter = lambda <= 0 ? p->mag : p->min;
   double u = (double)q->st[0] * im->w, v = (double)q->st[1] * im->h;
   if (p->explicit_rec)
      ref_explicit(im, p, u, v, filter, out);
   else
      ref_implicit(im, p, u, v, filter, out);
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                   */
/* ------------------------------------------------------------------------ */

/* A coordinate of a size-n dimension in its texel space: from -2 to n + 2
 * texels, never within 0.1 of a whole or half texel, so every filter and
 * chroma location picks its texels without ambiguity. */
static double
gen_texel_coord(uint32_t n)
{
   double f = yurand(0.1, 0.4) + (yrnd() & 1 ? 0.5 : 0.0);
   return (double)((int32_t)(yrnd() % (n + 4)) - 2) + f;
}

/* A LOD at least 0.15 from 0, the magnification / minification switch. */
static double
gen_lambda(void)
{
   double l = yurand(0.15, 2.0);
   return yrnd() & 1 ? l : -l;
}

/* Queries on a w x h image (the sampled view's level 0). */
static void
gen_queries(struct query *qs, uint32_t w, uint32_t h)
{
   for (unsigned i = 0; i < NQ; i++) {
      struct query *q = &qs[i];
      memset(q, 0, sizeof(*q));
      q->st[0] = (float)(gen_texel_coord(w) / w);
      q->st[1] = (float)(gen_texel_coord(h) / h);
      q->op = (int32_t)(i & 1);
      double lambda = gen_lambda();
      if (q->op == 0) {
         q->lod = (float)lambda;
      } else {
         /* One derivative per direction; the other no longer. */
         double other = lambda - yurand(0.0, 1.5);
         bool swap = yrnd() & 1;
         double lx = swap ? other : lambda, ly = swap ? lambda : other;
         q->dx[0] = (float)((yrnd() & 1 ? 1 : -1) * exp2(lx) / w);
         q->dy[1] = (float)((yrnd() & 1 ? 1 : -1) * exp2(ly) / h);
      }
   }
}

/* ------------------------------------------------------------------------ */
/* Running queries                                                           */
/* ------------------------------------------------------------------------ */

/* Runs the queries on `view` with `sampler` at binding 0, immutable or
 * written; results[NQ][4]. */
static bool
run_queries(struct ydev *d, VkImageView view, VkSampler sampler, bool immutable,
            const struct query *qs, float (*results)[4])
{
   struct vkt *t = &d->t;
   VkDevice dev = t->device;
   const char *dn = vkt_driver_name(t->driver);
   VkDescriptorSetLayoutBinding b[3] = {
      { 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT,
        immutable ? &sampler : NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   struct vkt_kernel_info ki = { .code = ycbcr_spv, .code_size = sizeof(ycbcr_spv),
                                 .bindings = { b }, .binding_counts = { 3 }, .push_size = 4 };
   struct vkt_kernel k;
   VkResult r = vkt_kernel_create(t, &ki, &k);
   const bool ok = r == VK_SUCCESS;
   CHECK(ok, "%s: layouts and pipeline: %d", dn, r);

   VkDescriptorPoolSize sizes[2] = { { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
                                     { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 } };
   VkDescriptorPool pool;
   CHECK(vkt_descriptor_pool(t, 1, sizes, 2, 0, &pool) == VK_SUCCESS, "%s: pool", dn);
   VkDescriptorSet set;
   CHECK(vkt_alloc_sets(t, pool, k.set_layouts, 1, &set) == VK_SUCCESS, "%s: set", dn);
   struct vkt_buffer in, out;
   CHECK(vkt_buffer_create(t, NQ * sizeof(struct query), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in) ==
            VK_SUCCESS, "in");
   CHECK(vkt_buffer_create(t, NQ * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out) == VK_SUCCESS, "out");
   memcpy(in.map, qs, NQ * sizeof(struct query));
   memset(out.map, 0xcd, NQ * 16);
   VkDescriptorImageInfo ii = { immutable ? VK_NULL_HANDLE : sampler, view,
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkDescriptorBufferInfo bi[2] = { { in.buffer, 0, VK_WHOLE_SIZE }, { out.buffer, 0, VK_WHOLE_SIZE } };
   VkWriteDescriptorSet w[2] = {
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 0, 1,
        VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &ii, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 1, 0, 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
        NULL, bi, NULL },
   };
   vkUpdateDescriptorSets(dev, 2, w, 0, NULL);
   const uint32_t count = NQ;
   r = vkt_dispatch(t, &k, &set, 1, &count, sizeof(count), (NQ + 63) / 64, 1, 1);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", dn, r);
   memcpy(results, out.map, NQ * 16);
   vkDestroyDescriptorPool(dev, pool, NULL);
   vkt_kernel_destroy(t, &k);
   vkt_buffer_destroy(t, &in);
   vkt_buffer_destroy(t, &out);
   return ok && r == VK_SUCCESS;
}

/* A disjoint image: every plane in its own allocation, bound with
 * VkBindImagePlaneMemoryInfo after VkImagePlaneMemoryRequirementsInfo. */
struct disjoint_image {
   VkImage image;
   VkDeviceMemory memory[3];
};

static bool
create_disjoint(struct ydev *d, const VkImageCreateInfo *ici, uint32_t planes,
                struct disjoint_image *out)
{
   VkDevice dev = d->t.device;
   memset(out, 0, sizeof(*out));
   if (vkCreateImage(dev, ici, NULL, &out->image) != VK_SUCCESS)
      return false;
   VkBindImageMemoryInfo bind[3];
   VkBindImagePlaneMemoryInfo plane[3];
   for (uint32_t p = 0; p < planes; p++)
      if (ydev_plane_memory(d, out->image, true, p, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, NULL, NULL,
                            &out->memory[p], NULL, &bind[p], &plane[p]) != VK_SUCCESS)
         return false;
   return d->bind_image_memory2(dev, planes, bind) == VK_SUCCESS;
}

static void
destroy_disjoint(struct ydev *d, struct disjoint_image *img)
{
   vkDestroyImage(d->t.device, img->image, NULL);
   for (int p = 0; p < 3; p++)
      vkFreeMemory(d->t.device, img->memory[p], NULL);
}

/* A multi-planar image with im's planes uploaded through plane-aspect
 * buffer copies; MUTABLE_FORMAT so that views of one plane exist. Disjoint
 * images go to *dj, others to *img. */
static bool
upload_image(struct ydev *d, const struct yimg *im, bool disjoint, struct vkt_image *img,
             struct disjoint_image *dj)
{
   struct vkt *t = &d->t;
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | (disjoint ? VK_IMAGE_CREATE_DISJOINT_BIT : 0),
      .imageType = VK_IMAGE_TYPE_2D, .format = im->f->format, .extent = { im->w, im->h, 1 },
      .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   if (disjoint ? !create_disjoint(d, &ici, im->f->planes, dj)
                : vkt_image_create(t, &ici, img) != VK_SUCCESS)
      return false;
   const VkImage image = disjoint ? dj->image : img->image;
   size_t total = 0, offs[3];
   for (uint32_t p = 0; p < im->f->planes; p++) {
      offs[p] = total;
      total += (im->size[p] + 15) / 16 * 16;
   }
   struct vkt_buffer st;
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &st) == VK_SUCCESS, "staging");
   VkBufferImageCopy regions[3];
   for (uint32_t p = 0; p < im->f->planes; p++) {
      memcpy((uint8_t *)st.map + offs[p], im->plane[p], im->size[p]);
      regions[p] = (VkBufferImageCopy) { .bufferOffset = offs[p],
                                         .imageSubresource = { plane_aspect(p), 0, 0, 1 },
                                         .imageExtent = { im->pw[p], im->ph[p], 1 } };
   }
   VkCommandBuffer cb = vkt_begin(t);
   /* Disjoint planes change layout plane by plane. */
   for (uint32_t p = 0; p < (disjoint ? im->f->planes : 1); p++)
      vkt_image_barrier(cb, image, disjoint ? plane_aspect(p) : VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   vkCmdCopyBufferToImage(cb, st.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          im->f->planes, regions);
   for (uint32_t p = 0; p < (disjoint ? im->f->planes : 1); p++)
      vkt_image_barrier(cb, image, disjoint ? plane_aspect(p) : VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
   VkResult r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "upload: %d", r);
   vkt_buffer_destroy(t, &st);
   return r == VK_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Conversions                                                               */
/* ------------------------------------------------------------------------ */

static const char *const model_names[] = { "rgb-identity", "ycbcr-identity", "709", "601", "2020" };

/* Combination c of the 160 (model, range, x and y chroma location, chroma
 * filter, reconstruction); the sampler filters and the swizzle cycle with it. */
static struct convp
conv_params(unsigned c)
{
   static const VkComponentSwizzle swz[4][4] = {
      { VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_IDENTITY,
        VK_COMPONENT_SWIZZLE_IDENTITY },
      { VK_COMPONENT_SWIZZLE_B, VK_COMPONENT_SWIZZLE_G, VK_COMPONENT_SWIZZLE_R, VK_COMPONENT_SWIZZLE_A },
      { VK_COMPONENT_SWIZZLE_R, VK_COMPONENT_SWIZZLE_IDENTITY, VK_COMPONENT_SWIZZLE_B,
        VK_COMPONENT_SWIZZLE_ONE },
      { VK_COMPONENT_SWIZZLE_B, VK_COMPONENT_SWIZZLE_G, VK_COMPONENT_SWIZZLE_R,
        VK_COMPONENT_SWIZZLE_ZERO },
   };
   struct convp p = {
      .model = (VkSamplerYcbcrModelConversion)(c % 5),
      .range = (VkSamplerYcbcrRange)(c / 5 % 2),
      .xoff = (VkChromaLocation)(c / 10 % 2),
      .yoff = (VkChromaLocation)(c / 20 % 2),
      .chroma_filter = (VkFilter)(c / 40 % 2),
      .explicit_rec = c / 80 % 2,
   };
   unsigned f = (c * 7 + c / 40) % 4;
   p.mag = (VkFilter)(f & 1);
   p.min = (VkFilter)(f >> 1);
   unsigned s = (c * 3 + c / 5) % 4;
   for (int k = 0; k < 4; k++)
      p.sw[k] = swz[s][k];
   return p;
}

/* Samples im through conversion c; returns the mismatches. */
static unsigned
test_conversion(struct ydev *d, const struct yimg *im, VkImage image, const struct convp *p,
                unsigned c)
{
   VkDevice dev = d->t.device;
   VkSamplerYcbcrConversionCreateInfo cci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO,
      .format = im->f->format, .ycbcrModel = p->model, .ycbcrRange = p->range,
      .components = { p->sw[0], p->sw[1], p->sw[2], p->sw[3] },
      .xChromaOffset = p->xoff, .yChromaOffset = p->yoff, .chromaFilter = p->chroma_filter,
      .forceExplicitReconstruction = p->explicit_rec,
   };
   VkSamplerYcbcrConversion conv;
   VkResult r = d->create_conversion(dev, &cci, NULL, &conv);
   CHECK(r == VK_SUCCESS, "%s conversion %u: %d", im->f->name, c, r);
   if (r != VK_SUCCESS)
      return 1;
   VkSamplerYcbcrConversionInfo info = { VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO, NULL, conv };
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .pNext = &info, .image = image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = im->f->format,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   VkImageView view;
   CHECK(vkCreateImageView(dev, &vci, NULL, &view) == VK_SUCCESS, "conversion view");
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .pNext = &info, .magFilter = p->mag,
      .minFilter = p->min, .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, .maxLod = VK_LOD_CLAMP_NONE,
   };
   VkSampler sampler;
   CHECK(vkCreateSampler(dev, &sci, NULL, &sampler) == VK_SUCCESS, "conversion sampler");
   /* The conversion object may go once the sampler and view exist. */
   d->destroy_conversion(dev, conv, NULL);

   struct query qs[NQ];
   float res[NQ][4];
   gen_queries(qs, im->w, im->h);
   memset(res, 0, sizeof(res));
   run_queries(d, view, sampler, true, qs, res);
   unsigned bad = 0;
   for (unsigned i = 0; i < NQ; i++) {
      double ref[4];
      ref_sample(im, p, &qs[i], ref);
      bool ok = true;
      for (int k = 0; k < 4; k++)
         ok &= fabs(res[i][k] - ref[k]) <= 2e-4 + 1e-5 * fabs(ref[k]);
      if (!ok && bad++ < 4)
         fprintf(stderr,
                 "%s conversion %u (%s, %s, x %s, y %s, chroma %s, %s, mag %s min %s, swizzle %d%d%d%d):\n"
                 "   query %u op %d st (%g %g) lod %g dx %g dy %g: got (%.6f %.6f %.6f %.6f), "
                 "reference (%.6f %.6f %.6f %.6f)\n",
                 im->f->name, c, model_names[p->model], p->range ? "narrow" : "full",
                 p->xoff ? "midpoint" : "cosited", p->yoff ? "midpoint" : "cosited",
                 p->chroma_filter ? "linear" : "nearest", p->explicit_rec ? "explicit" : "implicit",
                 p->mag ? "linear" : "nearest", p->min ? "linear" : "nearest", p->sw[0], p->sw[1],
                 p->sw[2], p->sw[3], i, qs[i].op, qs[i].st[0], qs[i].st[1], qs[i].lod, qs[i].dx[0],
                 qs[i].dy[1], res[i][0], res[i][1], res[i][2], res[i][3], ref[0], ref[1], ref[2],
                 ref[3]);
   }
   vkDestroySampler(dev, sampler, NULL);
   vkDestroyImageView(dev, view, NULL);
   return bad;
}

/* ------------------------------------------------------------------------ */
/* Views of one plane, cross-checked with lavapipe                          */
/* ------------------------------------------------------------------------ */

/* The plane texel (i, j, channel ch), with the address mode. */
static double
plane_texel(const struct yimg *im, uint32_t p, int64_t i, int64_t j, int ch,
            VkSamplerAddressMode am)
{
   int64_t w = im->pw[p], h = im->ph[p];
   if (am == VK_SAMPLER_ADDRESS_MODE_REPEAT) {
      i = ((i % w) + w) % w;
      j = ((j % h) + h) % h;
   } else {
      i = i < 0 ? 0 : i >= w ? w - 1 : i;
      j = j < 0 ? 0 : j >= h ? h - 1 : j;
   }
   return im->plane[p][((size_t)j * w + (size_t)i) * im->f->bytes[p] + ch] / 255.0;
}

/* A plane view sampled as its single-plane format: (R, G, 0, 1) for R8G8,
 * (R, 0, 0, 1) for R8. */
static void
ref_plane(const struct yimg *im, uint32_t p, VkFilter f, VkSamplerAddressMode am,
          const struct query *q, double out[4])
{
   double u = (double)q->st[0] * im->pw[p], v = (double)q->st[1] * im->ph[p];
   out[0] = out[1] = out[2] = 0.0;
   out[3] = 1.0;
   for (uint32_t ch = 0; ch < im->f->bytes[p]; ch++) {
      if (f == VK_FILTER_NEAREST) {
         out[ch] = plane_texel(im, p, (int64_t)floor(u), (int64_t)floor(v), (int)ch, am);
         continue;
      }
      double i0 = floor(u - 0.5), j0 = floor(v - 0.5), a = u - 0.5 - i0, b = v - 0.5 - j0;
      int64_t i = (int64_t)i0, j = (int64_t)j0;
      out[ch] = (1 - a) * (1 - b) * plane_texel(im, p, i, j, (int)ch, am) +
                a * (1 - b) * plane_texel(im, p, i + 1, j, (int)ch, am) +
                (1 - a) * b * plane_texel(im, p, i, j + 1, (int)ch, am) +
                a * b * plane_texel(im, p, i + 1, j + 1, (int)ch, am);
   }
}

/* Samples plane p of im: on Shale through a view of the plane of the
 * multi-planar image; on lavapipe (no multi-planar formats) through an
 * image of the plane's format holding the same bytes. results[NQ][4]. */
static bool
sample_plane(struct ydev *d, const struct yimg *im, VkImage mp_image, uint32_t p, VkFilter f,
             VkSamplerAddressMode am, const struct query *qs, float (*res)[4])
{
   struct vkt *t = &d->t;
   VkDevice dev = t->device;
   struct vkt_image own = { 0 };
   VkImage image = mp_image;
   VkImageAspectFlags aspect = plane_aspect(p);
   if (!mp_image) {
      VkImageCreateInfo ici = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
         .format = im->f->plane_format[p], .extent = { im->pw[p], im->ph[p], 1 }, .mipLevels = 1,
         .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      };
      if (vkt_image_create(t, &ici, &own) != VK_SUCCESS)
         return false;
      struct vkt_buffer st;
      CHECK(vkt_buffer_create(t, im->size[p], VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &st) == VK_SUCCESS,
            "staging");
      memcpy(st.map, im->plane[p], im->size[p]);
      VkBufferImageCopy region = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { im->pw[p], im->ph[p], 1 } };
      VkCommandBuffer cb = vkt_begin(t);
      vkt_image_barrier(cb, own.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      vkCmdCopyBufferToImage(cb, st.buffer, own.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
      vkt_image_barrier(cb, own.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
      CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "plane upload");
      vkt_buffer_destroy(t, &st);
      image = own.image;
      aspect = VK_IMAGE_ASPECT_COLOR_BIT;
   }
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = im->f->plane_format[p],
      .subresourceRange = { aspect, 0, 1, 0, 1 },
   };
   VkImageView view;
   VkResult r = vkCreateImageView(dev, &vci, NULL, &view);
   CHECK(r == VK_SUCCESS, "%s: plane %u view: %d", vkt_driver_name(t->driver), p, r);
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = f, .minFilter = f,
      .addressModeU = am, .addressModeV = am, .addressModeW = am, .maxLod = VK_LOD_CLAMP_NONE,
   };
   VkSampler sampler;
   CHECK(vkCreateSampler(dev, &sci, NULL, &sampler) == VK_SUCCESS, "plane sampler");
   bool ok = r == VK_SUCCESS && run_queries(d, view, sampler, false, qs, res);
   vkDestroySampler(dev, sampler, NULL);
   vkDestroyImageView(dev, view, NULL);
   if (own.image)
      vkt_image_destroy(t, &own);
   return ok;
}

/* Shale filters in float: to float rounding. lavapipe filters 8-bit data
 * with 8-bit weights: a few units of 1/255 when linear. */
#define TOL_SHALE 1e-4
#define TOL_LVP_LINEAR (3.0 / 255)

static unsigned
compare_plane(const char *what, const struct yimg *im, uint32_t p, VkFilter f,
              VkSamplerAddressMode am, const struct query *qs, const float (*res)[4], double tol)
{
   unsigned bad = 0;
   for (unsigned i = 0; i < NQ; i++) {
      double ref[4];
      ref_plane(im, p, f, am, &qs[i], ref);
      bool ok = true;
      for (int k = 0; k < 4; k++)
         ok &= fabs(res[i][k] - ref[k]) <= tol;
      if (!ok && bad++ < 4)
         fprintf(stderr, "%s: query %u st (%g %g): got (%.5f %.5f %.5f %.5f) reference (%.5f %.5f %.5f %.5f)\n",
                 what, i, qs[i].st[0], qs[i].st[1], res[i][0], res[i][1], res[i][2], res[i][3],
                 ref[0], ref[1], ref[2], ref[3]);
   }
   return bad;
}

/* ------------------------------------------------------------------------ */

static void
check_claims(struct ydev *d)
{
   VkPhysicalDeviceSamplerYcbcrConversionFeatures yf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &yf };
   d->features2(d->t.pdev, &f2);
   CHECK(yf.samplerYcbcrConversion, "shale: samplerYcbcrConversion");
   /* The spec's mandatory features for these formats when the feature is
    * supported, and the ones Shale claims beyond them (tested here). */
   const VkFormatFeatureFlags need =
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
      VK_FORMAT_FEATURE_TRANSFER_DST_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT |
      VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_SEPARATE_RECONSTRUCTION_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT | VK_FORMAT_FEATURE_DISJOINT_BIT;
   for (unsigned i = 0; i < NYFMTS; i++) {
      VkFormatProperties2 fp = { .sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2 };
      d->format_properties2(d->t.pdev, yfmts[i].format, &fp);
      CHECK((fp.formatProperties.optimalTilingFeatures & need) == need &&
               (fp.formatProperties.linearTilingFeatures & need) == need,
            "%s: features %#x / %#x", yfmts[i].name, fp.formatProperties.optimalTilingFeatures,
            fp.formatProperties.linearTilingFeatures);
      /* Implicit reconstruction unless forced; no blits, no storage. */
      CHECK(!(fp.formatProperties.optimalTilingFeatures &
              (VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_BIT |
               VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)),
            "%s: unexpected features %#x", yfmts[i].name, fp.formatProperties.optimalTilingFeatures);
      VkPhysicalDeviceImageFormatInfo2 ifi = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2, .format = yfmts[i].format,
         .type = VK_IMAGE_TYPE_2D, .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
         .flags = VK_IMAGE_CREATE_DISJOINT_BIT | VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT,
      };
      VkSamplerYcbcrConversionImageFormatProperties yp = {
         .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_IMAGE_FORMAT_PROPERTIES };
      VkImageFormatProperties2 ip = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, .pNext = &yp };
      CHECK_EQ_INT(d->image_format_properties2(d->t.pdev, &ifi, &ip), VK_SUCCESS);
      CHECK(yp.combinedImageSamplerDescriptorCount == 1, "%s: combinedImageSamplerDescriptorCount %u",
            yfmts[i].name, yp.combinedImageSamplerDescriptorCount);
      CHECK(ip.imageFormatProperties.maxMipLevels == 1 && ip.imageFormatProperties.maxArrayLayers == 1 &&
               ip.imageFormatProperties.sampleCounts == VK_SAMPLE_COUNT_1_BIT &&
               ip.imageFormatProperties.maxExtent.width >= 4096,
            "%s: image limits", yfmts[i].name);
      ifi.type = VK_IMAGE_TYPE_3D;
      CHECK_EQ_INT(d->image_format_properties2(d->t.pdev, &ifi, &ip), VK_ERROR_FORMAT_NOT_SUPPORTED);
      ifi.type = VK_IMAGE_TYPE_2D;
      ifi.usage = VK_IMAGE_USAGE_STORAGE_BIT;
      CHECK_EQ_INT(d->image_format_properties2(d->t.pdev, &ifi, &ip), VK_ERROR_FORMAT_NOT_SUPPORTED);
   }
}

int
main(void)
{
   struct ydev shale, lvp;
   if (!ydev_init(&shale, VKT_SHALE, true, false, NULL, NULL)) {
      CHECK(false, "Shale device missing");
      return check_finish();
   }
   CHECK(shale.ycbcr, "shale: VK_KHR_sampler_ycbcr_conversion with samplerYcbcrConversion");
   if (!shale.ycbcr) {
      vkt_finish(&shale.t);
      return check_finish();
   }
   bool have_lvp = ydev_init(&lvp, VKT_LAVAPIPE, false, false, NULL, NULL);
   check_claims(&shale);

   static const uint32_t sizes[NYFMTS][2] = { { 14, 10 }, { 12, 6 } };
   unsigned conversions = 0;
   for (unsigned fi = 0; fi < NYFMTS; fi++) {
      const struct yfmt *f = &yfmts[fi];
      struct yimg im;
      yimg_init(&im, f, sizes[fi][0], sizes[fi][1]);
      struct vkt_image img;
      bool up = upload_image(&shale, &im, false, &img, NULL);
      CHECK(up, "%s: image", f->name);
      if (!up) {
         yimg_free(&im);
         continue;
      }
      for (unsigned c = 0; c < 160; c++) {
         struct convp p = conv_params(c);
         unsigned bad = test_conversion(&shale, &im, img.image, &p, c);
         CHECK(bad == 0, "%s conversion %u: %u of %u queries differ from the reference", f->name, c,
               bad, NQ);
         conversions++;
      }
      /* Views of each plane, nearest and linear, clamp and repeat; lavapipe
       * samples the same bytes as plain images. */
      for (uint32_t p = 0; p < f->planes; p++) {
         for (int mode = 0; mode < 2; mode++) {
            VkFilter flt = (VkFilter)mode;
            VkSamplerAddressMode am = mode ? VK_SAMPLER_ADDRESS_MODE_REPEAT
                                           : VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
            struct query qs[NQ];
            float res[NQ][4];
            gen_queries(qs, im.pw[p], im.ph[p]);
            char what[96];
            snprintf(what, sizeof(what), "shale: %s plane %u view, %s", f->name, p,
                     mode ? "linear repeat" : "nearest clamp");
            CHECK(sample_plane(&shale, &im, img.image, p, flt, am, qs, res), "%s: ran", what);
            unsigned bad = compare_plane(what, &im, p, flt, am, qs, (const float(*)[4])res, TOL_SHALE);
            CHECK(bad == 0, "%s: %u queries differ from the reference", what, bad);
            if (!have_lvp)
               continue;
            float lres[NQ][4];
            snprintf(what, sizeof(what), "lavapipe: %s plane %u as an image, %s", f->name, p,
                     mode ? "linear repeat" : "nearest clamp");
            CHECK(sample_plane(&lvp, &im, VK_NULL_HANDLE, p, flt, am, qs, lres), "%s: ran", what);
            const double ltol = flt == VK_FILTER_LINEAR ? TOL_LVP_LINEAR : TOL_SHALE;
            bad = compare_plane(what, &im, p, flt, am, qs, (const float(*)[4])lres, ltol);
            CHECK(bad == 0, "%s: %u queries differ from the reference", what, bad);
            unsigned differ = 0;
            for (unsigned i = 0; i < NQ; i++)
               for (int k = 0; k < 4; k++)
                  differ += fabs(res[i][k] - lres[i][k]) > ltol;
            CHECK(differ == 0, "%s plane %u: %u components differ between Shale and lavapipe",
                  f->name, p, differ);
         }
      }
      vkt_image_destroy(&shale.t, &img);

      /* The same planes in a disjoint image: every seventh conversion
       * (each model, range, location, filter and reconstruction recurs). */
      struct disjoint_image dj;
      up = upload_image(&shale, &im, true, NULL, &dj);
      CHECK(up, "%s: disjoint image", f->name);
      for (unsigned c = 0; up && c < 160; c += 7) {
         struct convp p = conv_params(c);
         unsigned bad = test_conversion(&shale, &im, dj.image, &p, c);
         CHECK(bad == 0, "%s disjoint, conversion %u: %u of %u queries differ from the reference",
               f->name, c, bad, NQ);
         conversions++;
      }
      destroy_disjoint(&shale, &dj);
      yimg_free(&im);
   }
   fprintf(stderr, "%u conversions sampled, %u queries each\n", conversions, NQ);
   if (have_lvp)
      vkt_finish(&lvp.t);
   vkt_finish(&shale.t);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
