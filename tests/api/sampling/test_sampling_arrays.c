/* Arrays of sampled-image descriptors indexed dynamically
 * (shaderSampledImageArrayDynamicIndexing) and storage cube arrays
 * (imageCubeArray), on Shale and lavapipe, checked against a small C
 * reference written here from the spec's "Image Operations" chapter. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sampling_common.h"
#include "vkt.h"

#include "smp_cubestore_spv.h"
#include "smp_index_const_spv.h"
#include "smp_index_dyn_spv.h"

static uint32_t rng = 0x1d3a;

static uint32_t
rnd(void)
{
   rng = rng * 1664525u + 1013904223u;
   return rng >> 8;
}

/* ------------------------------------------------------------------------ */
/* Dynamically indexed arrays                                                */
/* ------------------------------------------------------------------------ */

#define NCOMB 4
#define NTEX 3
#define NSMP 2
#define NIMG (NCOMB + NTEX)
#define GROUPS 24      /* every (combined, image, sampler) index triple */
#define LOCAL 16
#define NINV (GROUPS * LOCAL)

struct simg {
   uint32_t w, h;
   uint8_t *texels;    /* RGBA8_UNORM, tightly packed */
};

struct ssmp {
   VkFilter filter;
   VkSamplerAddressMode mode;
};

/* The images: NCOMB for the combined array, then NTEX for the sampled one. */
static const uint32_t img_size[NIMG][2] = { { 5, 4 }, { 7, 3 }, { 4, 6 }, { 6, 6 },
                                           { 3, 5 }, { 8, 2 }, { 5, 7 } };
static const struct ssmp comb_smp[NCOMB] = {
   { VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_REPEAT },
   { VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE },
   { VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT },
   { VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_REPEAT },
};
static const struct ssmp sep_smp[NSMP] = {
   { VK_FILTER_NEAREST, VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE },
   { VK_FILTER_LINEAR, VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT },
};

static void
ref_texel(const struct simg *im, int64_t x, int64_t y, VkSamplerAddressMode m, double out[4])
{
   bool border = false;   /* no CLAMP_TO_BORDER here */
   x = smp_wrap(x, im->w, m, &border);
   y = smp_wrap(y, im->h, m, &border);
   const uint8_t *t = &im->texels[(y * im->w + x) * 4];
   for (int k = 0; k < 4; k++)
      out[k] = t[k] / 255.0;
}

/* Level 0 sampled at normalized (s, t): nearest or bilinear filtering. */
static void
ref_sample(const struct simg *im, const struct ssmp *s, double sc, double tc, double out[4])
{
   double u = sc * im->w, v = tc * im->h;
   if (s->filter == VK_FILTER_NEAREST) {
      ref_texel(im, (int64_t)floor(u), (int64_t)floor(v), s->mode, out);
      return;
   }
   double i0 = floor(u - 0.5), j0 = floor(v - 0.5);
   double a = u - 0.5 - i0, b = v - 0.5 - j0;
   double t[4][4];
   ref_texel(im, (int64_t)i0, (int64_t)j0, s->mode, t[0]);
   ref_texel(im, (int64_t)i0 + 1, (int64_t)j0, s->mode, t[1]);
   ref_texel(im, (int64_t)i0, (int64_t)j0 + 1, s->mode, t[2]);
   ref_texel(im, (int64_t)i0 + 1, (int64_t)j0 + 1, s->mode, t[3]);
   for (int k = 0; k < 4; k++)
      out[k] = (1 - a) * (1 - b) * t[0][k] + a * (1 - b) * t[1][k] + (1 - a) * b * t[2][k] +
               a * b * t[3][k];
}

/* Texel Gathering of component comp: (i0, j1), (i1, j1), (i1, j0), (i0, j0). */
static void
ref_gather(const struct simg *im, const struct ssmp *s, double sc, double tc, int comp,
           double out[4])
{
   int64_t i0 = (int64_t)floor(sc * im->w - 0.5), j0 = (int64_t)floor(tc * im->h - 0.5);
   static const int corner[4][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
   for (int n = 0; n < 4; n++) {
      double t[4];
      ref_texel(im, i0 + corner[n][0], j0 + corner[n][1], s->mode, t);
      out[n] = t[comp];
   }
}

/* A normalized coordinate for a size-n dimension: from -1 to 2 sizes, in
 * texel space an odd multiple of 1/16, so never on a texel edge nor between
 * two gather footprints, and exact in 8 sub-texel bits. */
static float
gen_coord(uint32_t n)
{
   int32_t k = (int32_t)(rnd() % (3 * n)) - (int32_t)n;
   return (float)((k + (2 * (rnd() % 8) + 1) / 16.0) / n);
}

/* Invocation i's query (sample.comp's c[2i], c[2i + 1]): coordinates for
 * its combined image and a texel of it to fetch, then coordinates for its
 * separate image. */
static void
gen_query(unsigned i, float q[8])
{
   unsigned g = i / LOCAL;
   const uint32_t *cs = img_size[g % 4], *ts = img_size[NCOMB + g / 4 % 3];
   q[0] = gen_coord(cs[0]);
   q[1] = gen_coord(cs[1]);
   q[2] = (float)(rnd() % cs[0]);
   q[3] = (float)(rnd() % cs[1]);
   q[4] = gen_coord(ts[0]);
   q[5] = gen_coord(ts[1]);
   q[6] = q[7] = 0.0f;
}

struct arrays_drv {
   struct vkt t;
   bool dyn;   /* shaderSampledImageArrayDynamicIndexing */
};

/* Dynamic indexing and cube arrays where offered (both parts of the test). */
static void
ar_choose(struct vkt *t, const VkPhysicalDeviceFeatures *have, VkPhysicalDeviceFeatures *want,
          struct vkt_options *o, void *ctx)
{
   want->shaderSampledImageArrayDynamicIndexing = have->shaderSampledImageArrayDynamicIndexing;
   want->imageCubeArray = have->imageCubeArray;
}

static bool
ar_init(struct arrays_drv *d, enum vkt_driver which)
{
   memset(d, 0, sizeof(*d));
   VkPhysicalDeviceFeatures f;
   bool ok = smp_open(&d->t, which, &f, ar_choose, NULL);
   d->dyn = f.shaderSampledImageArrayDynamicIndexing;
   return ok;
}

/* Runs the index shader (dynamic or constant indices) with written or
 * immutable samplers in the combined array; results[NINV * 4][4]. */
static bool
run_arrays(struct vkt *t, const uint32_t *spv, size_t spv_size, bool immutable,
           const struct simg *imgs, const float (*qs)[8], float (*results)[4])
{
   const char *dn = vkt_driver_name(t->driver);
   VkDevice dev = t->device;
   VkResult r;
   struct vkt_image images[NIMG];
   VkImageView views[NIMG];
   VkSampler csmp[NCOMB], ssmp[NSMP];
   size_t total = 0, offs[NIMG];
   for (int k = 0; k < NIMG; k++) {
      offs[k] = total;
      total += (size_t)imgs[k].w * imgs[k].h * 4;
   }
   struct vkt_buffer staging, in, out;
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging) == VK_SUCCESS,
         "staging");
   CHECK(vkt_buffer_create(t, NINV * 32, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in) == VK_SUCCESS,
         "in");
   CHECK(vkt_buffer_create(t, NINV * 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out) == VK_SUCCESS,
         "out");
   memcpy(in.map, qs, NINV * 32);
   memset(out.map, 0xcd, NINV * 64);
   for (int k = 0; k < NIMG; k++) {
      memcpy((uint8_t *)staging.map + offs[k], imgs[k].texels, (size_t)imgs[k].w * imgs[k].h * 4);
      VkImageCreateInfo ici = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
         .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { imgs[k].w, imgs[k].h, 1 },
         .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
         .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      };
      r = vkt_image_create(t, &ici, &images[k]);
      CHECK(r == VK_SUCCESS, "%s: image %d: %d", dn, k, r);
      VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = images[k].image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UNORM,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
      };
      CHECK(vkCreateImageView(dev, &vci, NULL, &views[k]) == VK_SUCCESS, "%s: view", dn);
   }
   for (int k = 0; k < NCOMB + NSMP; k++) {
      const struct ssmp *s = k < NCOMB ? &comb_smp[k] : &sep_smp[k - NCOMB];
      VkSamplerCreateInfo sci = {
         .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .magFilter = s->filter,
         .minFilter = s->filter, .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
         .addressModeU = s->mode, .addressModeV = s->mode, .addressModeW = s->mode,
         .maxLod = VK_LOD_CLAMP_NONE,
      };
      CHECK(vkCreateSampler(dev, &sci, NULL, k < NCOMB ? &csmp[k] : &ssmp[k - NCOMB]) ==
               VK_SUCCESS, "%s: sampler", dn);
   }

   VkDescriptorSetLayoutBinding b[5] = {
      { 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, NCOMB, VK_SHADER_STAGE_COMPUTE_BIT,
        immutable ? csmp : NULL },
      { 1, VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, NTEX, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 2, VK_DESCRIPTOR_TYPE_SAMPLER, NSMP, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   struct vkt_kernel_info ki = { .code = spv, .code_size = spv_size, .bindings = { b },
                                 .binding_counts = { 5 } };
   struct vkt_kernel kern;
   smp_kernel_create(t, &ki, &kern, dn);
   const VkDescriptorSetLayout sl = kern.set_layouts[0];

   VkDescriptorPoolSize sizes[4] = {
      { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, NCOMB }, { VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, NTEX },
      { VK_DESCRIPTOR_TYPE_SAMPLER, NSMP }, { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 },
   };
   VkDescriptorPoolCreateInfo poci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = 4, .pPoolSizes = sizes };
   VkDescriptorPool pool;
   CHECK(vkCreateDescriptorPool(dev, &poci, NULL, &pool) == VK_SUCCESS, "%s: pool", dn);
   VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, pool, 1,
                                      &sl };
   VkDescriptorSet set;
   CHECK(vkAllocateDescriptorSets(dev, &ai, &set) == VK_SUCCESS, "%s: set", dn);
   const VkImageLayout lay = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
   VkDescriptorImageInfo ci[NCOMB], ti[NTEX], si[NSMP];
   for (int k = 0; k < NCOMB; k++)
      ci[k] = (VkDescriptorImageInfo) { immutable ? VK_NULL_HANDLE : csmp[k], views[k], lay };
   for (int k = 0; k < NTEX; k++)
      ti[k] = (VkDescriptorImageInfo) { VK_NULL_HANDLE, views[NCOMB + k], lay };
   for (int k = 0; k < NSMP; k++)
      si[k] = (VkDescriptorImageInfo) { ssmp[k], VK_NULL_HANDLE, lay };
   VkDescriptorBufferInfo bin = { in.buffer, 0, VK_WHOLE_SIZE }, bout = { out.buffer, 0, VK_WHOLE_SIZE };
   /* The combined array in two writes (elements 2-3, then 0-1), so that
    * writes at an array element offset are covered. */
   VkWriteDescriptorSet w[6] = {
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 2, 2,
        VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &ci[2], NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 0, 2,
        VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, ci, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 1, 0, NTEX,
        VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, ti, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 2, 0, NSMP, VK_DESCRIPTOR_TYPE_SAMPLER,
        si, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 3, 0, 1,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bin, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 4, 0, 1,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bout, NULL },
   };
   vkUpdateDescriptorSets(dev, 6, w, 0, NULL);

   VkCommandBuffer cb = vkt_begin(t);
   for (int k = 0; k < NIMG; k++) {
      vkt_image_barrier(cb, images[k].image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      VkBufferImageCopy region = { .bufferOffset = offs[k],
                                   .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                                   .imageExtent = { imgs[k].w, imgs[k].h, 1 } };
      vkCmdCopyBufferToImage(cb, staging.buffer, images[k].image,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
      vkt_image_barrier(cb, images[k].image, VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, lay);
   }
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kern.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kern.layout, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, GROUPS, 1, 1);
   VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                        &mb, 0, NULL, 0, NULL);
   r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", dn, r);
   memcpy(results, out.map, NINV * 64);

   vkDestroyDescriptorPool(dev, pool, NULL);
   vkt_kernel_destroy(t, &kern);
   for (int k = 0; k < NCOMB; k++)
      vkDestroySampler(dev, csmp[k], NULL);
   for (int k = 0; k < NSMP; k++)
      vkDestroySampler(dev, ssmp[k], NULL);
   for (int k = 0; k < NIMG; k++) {
      vkDestroyImageView(dev, views[k], NULL);
      vkt_image_destroy(t, &images[k]);
   }
   vkt_buffer_destroy(t, &staging);
   vkt_buffer_destroy(t, &in);
   vkt_buffer_destroy(t, &out);
   return r == VK_SUCCESS;
}

/* Compares one run with the reference; returns the mismatches. */
static unsigned
check_arrays(const char *what, const struct simg *imgs, const float (*qs)[8],
             const float (*res)[4])
{
   unsigned bad = 0;
   for (unsigned i = 0; i < NINV; i++) {
      unsigned g = i / LOCAL;
      unsigned ck = g % 4, tk = g / 4 % 3, sk = g / 12 % 2;
      const float *q = qs[i];
      double ref[4][4];
      ref_sample(&imgs[ck], &comb_smp[ck], q[0], q[1], ref[0]);
      /* texelFetch: texel (x, y) unfiltered, no wrapping (in range). */
      const uint8_t *t = &imgs[ck].texels[((uint32_t)q[3] * imgs[ck].w + (uint32_t)q[2]) * 4];
      for (int k = 0; k < 4; k++)
         ref[1][k] = t[k] / 255.0;
      ref_gather(&imgs[ck], &comb_smp[ck], q[0], q[1], 1, ref[2]);
      ref_sample(&imgs[NCOMB + tk], &sep_smp[sk], q[4], q[5], ref[3]);
      for (int n = 0; n < 4; n++) {
         for (int k = 0; k < 4; k++) {
            double got = res[4 * i + n][k];
            if (fabs(got - ref[n][k]) <= 1.0 / 255 + 1e-6)
               continue;
            if (bad++ < 8)
               fprintf(stderr, "%s: invocation %u result %d comp %d: got %.6f, reference %.6f "
                       "(combined %u image %u sampler %u, coord %g %g)\n", what, i, n, k, got,
                       ref[n][k], ck, tk, sk, q[0], q[1]);
         }
      }
   }
   return bad;
}

static void
test_arrays(void)
{
   struct simg imgs[NIMG];
   for (int k = 0; k < NIMG; k++) {
      imgs[k].w = img_size[k][0];
      imgs[k].h = img_size[k][1];
      imgs[k].texels = malloc((size_t)imgs[k].w * imgs[k].h * 4);
      for (uint32_t b = 0; b < imgs[k].w * imgs[k].h * 4; b++)
         imgs[k].texels[b] = (uint8_t)rnd();
   }
   float (*qs)[8] = calloc(NINV, sizeof(*qs));
   float (*res)[4] = calloc(NINV * 4, sizeof(*res));
   for (unsigned i = 0; i < NINV; i++)
      gen_query(i, qs[i]);

   for (int which = 0; which < 2; which++) {
      struct arrays_drv d;
      if (!ar_init(&d, which ? VKT_LAVAPIPE : VKT_SHALE)) {
         CHECK(which == 1, "Shale device missing");
         continue;
      }
      const char *dn = vkt_driver_name(d.t.driver);
      if (which == 0)
         CHECK(d.dyn, "shale: shaderSampledImageArrayDynamicIndexing not claimed");
      for (int variant = 0; variant < 4; variant++) {
         bool dyn = variant & 1, immutable = variant & 2;
         if (dyn && !d.dyn)
            continue;   /* lavapipe (Mesa 22.3) lacks the feature */
         char what[96];
         snprintf(what, sizeof(what), "%s: %s indices, %s samplers", dn, dyn ? "dynamic" : "constant",
                  immutable ? "immutable" : "written");
         memset(res, 0, NINV * 4 * sizeof(*res));
         bool ok = run_arrays(&d.t, dyn ? smp_index_dyn_spv : smp_index_const_spv,
                              dyn ? sizeof(smp_index_dyn_spv) : sizeof(smp_index_const_spv),
                              immutable, imgs, (const float(*)[8])qs, res);
         CHECK(ok, "%s: ran", what);
         unsigned bad = check_arrays(what, imgs, (const float(*)[8])qs, (const float(*)[4])res);
         CHECK(bad == 0, "%s: %u results differ from the reference", what, bad);
      }
      vkt_finish(&d.t);
   }
   for (int k = 0; k < NIMG; k++)
      free(imgs[k].texels);
   free(qs);
   free(res);
}

/* ------------------------------------------------------------------------ */
/* Storage cube arrays                                                       */
/* ------------------------------------------------------------------------ */

#define CS_SIZE 6
#define CS_LAYERS 18    /* three cubes; the views take cubes 1 and 2 */
#define CS_BASE 6
#define CS_VIEW_LAYERS 12

static void
test_storage_cube_array(enum vkt_driver which)
{
   struct vkt t;
   VkPhysicalDeviceFeatures f;
   if (!smp_open(&t, which, &f, ar_choose, NULL)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   CHECK(f.imageCubeArray || which == VKT_LAVAPIPE, "%s: imageCubeArray not claimed", dn);
   if (!f.imageCubeArray) {
      vkt_finish(&t);
      return;
   }
   VkDevice dev = t.device;

   const size_t layer_bytes = CS_SIZE * CS_SIZE * 4, bytes = layer_bytes * CS_LAYERS;
   uint8_t *src = malloc(bytes);
   for (size_t b = 0; b < bytes; b++)
      src[b] = (uint8_t)rnd();
   struct vkt_image img[2];
   VkImageView views[2];
   for (int k = 0; k < 2; k++) {
      VkImageCreateInfo ici = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT,
         .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UNORM,
         .extent = { CS_SIZE, CS_SIZE, 1 }, .mipLevels = 1, .arrayLayers = CS_LAYERS,
         .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                  VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
      };
      CHECK(vkt_image_create(&t, &ici, &img[k]) == VK_SUCCESS, "%s: cube array image", dn);
      VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = img[k].image,
         .viewType = VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, .format = VK_FORMAT_R8G8B8A8_UNORM,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, CS_BASE, CS_VIEW_LAYERS },
      };
      CHECK(vkCreateImageView(dev, &vci, NULL, &views[k]) == VK_SUCCESS, "%s: cube array view", dn);
   }
   struct vkt_buffer up, down, out;
   const size_t out_bytes = 16 + layer_bytes * CS_VIEW_LAYERS * 4;
   CHECK(vkt_buffer_create(&t, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up) == VK_SUCCESS, "up");
   CHECK(vkt_buffer_create(&t, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &down) == VK_SUCCESS, "down");
   CHECK(vkt_buffer_create(&t, out_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out) == VK_SUCCESS,
         "out");
   memcpy(up.map, src, bytes);
   memset(down.map, 0x5a, bytes);
   memset(out.map, 0xcd, out_bytes);

   VkDescriptorSetLayoutBinding b[3] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   struct vkt_kernel_info ki = { .code = smp_cubestore_spv, .code_size = sizeof(smp_cubestore_spv),
                                 .bindings = { b }, .binding_counts = { 3 } };
   struct vkt_kernel kern;
   char what[64];
   snprintf(what, sizeof(what), "%s: cube store", dn);
   smp_kernel_create(&t, &ki, &kern, what);
   const VkDescriptorSetLayout sl = kern.set_layouts[0];
   VkDescriptorPoolSize sizes[2] = { { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 },
                                     { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 } };
   VkDescriptorPoolCreateInfo poci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = 2, .pPoolSizes = sizes };
   VkDescriptorPool pool;
   CHECK(vkCreateDescriptorPool(dev, &poci, NULL, &pool) == VK_SUCCESS, "pool");
   VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, pool, 1,
                                      &sl };
   VkDescriptorSet set;
   CHECK(vkAllocateDescriptorSets(dev, &ai, &set) == VK_SUCCESS, "set");
   VkDescriptorImageInfo ii[2] = { { VK_NULL_HANDLE, views[0], VK_IMAGE_LAYOUT_GENERAL },
                                   { VK_NULL_HANDLE, views[1], VK_IMAGE_LAYOUT_GENERAL } };
   VkDescriptorBufferInfo bi = { out.buffer, 0, VK_WHOLE_SIZE };
   VkWriteDescriptorSet w[2] = {
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 0, 2,
        VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, ii, NULL, NULL },
      { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 2, 0, 1,
        VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi, NULL },
   };
   vkUpdateDescriptorSets(dev, 2, w, 0, NULL);

   VkBufferImageCopy region = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, CS_LAYERS },
                                .imageExtent = { CS_SIZE, CS_SIZE, 1 } };
   VkCommandBuffer cb = vkt_begin(&t);
   for (int k = 0; k < 2; k++)
      vkt_image_barrier(cb, img[k].image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   /* Both images start as src; dst keeps it outside the view's layers. */
   vkCmdCopyBufferToImage(cb, up.buffer, img[0].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                          &region);
   vkCmdCopyBufferToImage(cb, up.buffer, img[1].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                          &region);
   for (int k = 0; k < 2; k++)
      vkt_image_barrier(cb, img[k].image, VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kern.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kern.layout, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, (CS_SIZE + 3) / 4, (CS_SIZE + 3) / 4, CS_VIEW_LAYERS);
   vkt_image_barrier(cb, img[1].image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_GENERAL,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   vkCmdCopyImageToBuffer(cb, img[1].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, down.buffer, 1,
                          &region);
   VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                          VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
   CHECK(vkt_submit_wait(&t, cb) == VK_SUCCESS, "%s: submit", dn);

   /* imageSize of a cube array: (width, height, cubes). */
   const int32_t *size = out.map;
   CHECK(size[0] == CS_SIZE && size[1] == CS_SIZE && size[2] == CS_VIEW_LAYERS / 6 &&
            size[3] == CS_VIEW_LAYERS / 6,
         "%s: imageSize (%d %d %d), dst cubes %d", dn, size[0], size[1], size[2], size[3]);
   const float *v = (const float *)((const uint8_t *)out.map + 16);
   unsigned bad_load = 0, bad_store = 0;
   const uint8_t *down_b = down.map;
   for (uint32_t layer = 0; layer < CS_LAYERS; layer++) {
      bool in_view = layer >= CS_BASE && layer < CS_BASE + CS_VIEW_LAYERS;
      for (uint32_t y = 0; y < CS_SIZE; y++)
         for (uint32_t x = 0; x < CS_SIZE; x++) {
            const uint8_t *s = &src[layer * layer_bytes + (y * CS_SIZE + x) * 4];
            const uint8_t *dv = &down_b[layer * layer_bytes + (y * CS_SIZE + x) * 4];
            for (int k = 0; k < 4; k++) {
               /* Loads: the view's layer z = cube * 6 + face. */
               if (in_view) {
                  size_t z = layer - CS_BASE;
                  float got = v[((z * CS_SIZE + y) * CS_SIZE + x) * 4 + k];
                  bad_load += fabs(got - s[k] / 255.0) > 1e-6;
               }
               /* Stores: reversed components inside the view, src outside. */
               uint8_t want_b = in_view ? s[3 - k] : s[k];
               bad_store += dv[k] != want_b;
            }
         }
   }
   CHECK(bad_load == 0, "%s: %u storage cube array loads differ", dn, bad_load);
   CHECK(bad_store == 0, "%s: %u storage cube array texels differ after stores", dn, bad_store);

   vkDestroyDescriptorPool(dev, pool, NULL);
   vkt_kernel_destroy(&t, &kern);
   for (int k = 0; k < 2; k++) {
      vkDestroyImageView(dev, views[k], NULL);
      vkt_image_destroy(&t, &img[k]);
   }
   vkt_buffer_destroy(&t, &up);
   vkt_buffer_destroy(&t, &down);
   vkt_buffer_destroy(&t, &out);
   free(src);
   vkt_finish(&t);
}

int
main(void)
{
   test_arrays();
   test_storage_cube_array(VKT_SHALE);
   test_storage_cube_array(VKT_LAVAPIPE);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
