/* Multisampled storage images (shaderStorageImageMultisample) through the loader. */
/*
 * What is held here: Shale reports shaderStorageImageMultisample and
 * storageImageSampleCounts 1 | 4, and every format with STORAGE_IMAGE has
 * 4 samples for STORAGE usage (2D, optimal) in
 * vkGetPhysicalDeviceImageFormatProperties, as the limit says, when it is a
 * colour or depth/stencil attachment format, and exactly 1 sample otherwise
 * (the spec's rule for sampleCounts; every Shale storage format is a colour
 * attachment format today, so the test counts both kinds). A compute
 * shader (mst_write.comp), then in a second pass a fragment shader
 * (mst_write.frag, the one fragment of each pixel of an 8x8 one-sample
 * target), writes every sample of 8x8 4-sample rgba32ui, r32ui and rgba8
 * storage images with its own value (imageStore with a sample) and adds to
 * each r32ui sample with imageAtomicAdd; after each pass a compute shader
 * (mst_read.comp) reads every sample back with imageLoad, the rgba32ui one
 * also through a sampled view (texelFetch of usampler2DMS), with imageSize
 * and imageSamples. Every word must equal the CPU's value: exactly for the
 * integers (the atomics' old values the stored ones, the r32ui samples
 * those plus the addend), the rgba8 ones k / 255 within one ulp. The same
 * for image2DMSArray (SPIR-V ImageMSArray, which the feature also enables):
 * 8x8 2-layer 4-sample rgba32ui and r32ui images through 2D_ARRAY views,
 * every sample of each layer written (mst_array_write.comp), added to with
 * imageAtomicAdd and read back with imageLoad (mst_array_read.comp), exactly,
 * with imageSize (8, 8, 2) and imageSamples. Runs with
 * SHALE_THREADS 1 and 4, then on lavapipe where it reports the features
 * and the sample count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "mst_array_read_comp_spv.h"
#include "mst_array_write_comp_spv.h"
#include "mst_read_comp_spv.h"
#include "fullscreen_vert_spv.h"
#include "mst_write_comp_spv.h"
#include "mst_write_frag_spv.h"

#define N 256   /* 8 x 8 pixels x 4 samples */

struct out_read {
   uint32_t u[N][4];
   uint32_t t[N][4];
   uint32_t a[N];
   float f[N][4];
   int32_t q[4];
};

/* UNORM to float is c / 255 within the spec's precision: one ulp here
 * (lavapipe multiplies by 1 / 255), as render/vertex_input allows. */
static bool
within_ulp(float got, float want)
{
   int32_t g, w;
   memcpy(&g, &got, 4);
   memcpy(&w, &want, 4);
   return g == w || g == w + 1 || g == w - 1;
}

static void
image_info(VkDescriptorImageInfo *ii, VkImageView view, VkSampler sampler)
{
   *ii = (VkDescriptorImageInfo) { sampler, view, VK_IMAGE_LAYOUT_GENERAL };
}

static void
check_formats(struct vkt *t)
{
   unsigned storage = 0, bad = 0, attachment = 0;
   for (VkFormat f = VK_FORMAT_R4G4_UNORM_PACK8; f <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK; f++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, f, &fp);
      if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT))
         continue;
      storage++;
      VkImageFormatProperties ip;
      VkResult r = vkGetPhysicalDeviceImageFormatProperties(t->pdev, f, VK_IMAGE_TYPE_2D,
                                                            VK_IMAGE_TILING_OPTIMAL,
                                                            VK_IMAGE_USAGE_STORAGE_BIT, 0, &ip);
      /* Neither colour nor depth/stencil attachment: 1 sample only. */
      const bool att = fp.optimalTilingFeatures & (VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                                   VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT);
      attachment += att;
      if (r != VK_SUCCESS || (att ? !(ip.sampleCounts & VK_SAMPLE_COUNT_4_BIT)
                                  : ip.sampleCounts != VK_SAMPLE_COUNT_1_BIT)) {
         bad++;
         fprintf(stderr, "shale: STORAGE_IMAGE format %d (%s): %d, sample counts %#x\n", f,
                 att ? "attachment" : "not an attachment", r, r == VK_SUCCESS ? ip.sampleCounts : 0);
      }
   }
   CHECK(storage > 0 && bad == 0,
         "shale: %u of %u storage formats (%u attachment formats) with wrong sample counts", bad,
         storage, attachment);
}

#define NA 512   /* 8 x 8 pixels x 2 layers x 4 samples */

struct out_array {
   uint32_t u[NA][4];
   uint32_t a[NA];
   int32_t q[4];
};

/* image2DMSArray: 2-layer 4-sample rgba32ui and r32ui storage images through
 * 2D_ARRAY views, each sample of each layer stored, added to and loaded. */
static void
array_case(struct vkt *t, const char *dn, const char *th)
{
   static const VkFormat fmts[2] = { VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32_UINT };
   struct vkt_image img[2] = { 0 };
   VkImageView views[2] = { 0 };
   VkResult r = VK_SUCCESS;
   for (int i = 0; i < 2 && r == VK_SUCCESS; i++) {
      const VkImageCreateInfo ici = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
         .imageType = VK_IMAGE_TYPE_2D,
         .format = fmts[i],
         .extent = { 8, 8, 1 },
         .mipLevels = 1,
         .arrayLayers = 2,
         .samples = VK_SAMPLE_COUNT_4_BIT,
         .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_STORAGE_BIT,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      };
      r = vkt_image_create(t, &ici, &img[i]);
      if (r == VK_SUCCESS)
         r = vkCreateImageView(t->device, &(VkImageViewCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = img[i].image,
            .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY,
            .format = fmts[i],
            .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 2 } }, NULL, &views[i]);
   }
   struct vkt_buffer old = { 0 }, out = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, NA * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &old);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, sizeof(struct out_array), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out);
   CHECK(r == VK_SUCCESS, "%s: 2-layer 4-sample storage images and buffers: %d", dn, r);

   const VkShaderStageFlags cs = VK_SHADER_STAGE_COMPUTE_BIT;
   const VkDescriptorSetLayoutBinding b[3] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, cs, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, cs, NULL },
      { 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, cs, NULL },
   };
   struct vkt_kernel kw = { 0 }, kr = { 0 };
   VkResult rk = vkt_kernel_create(t, &(struct vkt_kernel_info) {
      .code = mst_array_write_comp_spv, .code_size = sizeof(mst_array_write_comp_spv),
      .bindings = { b }, .binding_counts = { 3 } }, &kw);
   CHECK(rk == VK_SUCCESS, "%s: array write kernel: %d", dn, rk);
   rk = vkt_kernel_create(t, &(struct vkt_kernel_info) {
      .code = mst_array_read_comp_spv, .code_size = sizeof(mst_array_read_comp_spv),
      .bindings = { b }, .binding_counts = { 3 } }, &kr);
   CHECK(rk == VK_SUCCESS, "%s: array read kernel: %d", dn, rk);
   const VkDescriptorPoolSize sizes[2] = {
      { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 4 },
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 },
   };
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet sets[2] = { 0 };
   rk = vkt_descriptor_pool(t, 2, sizes, 2, 0, &pool);
   if (rk == VK_SUCCESS && kw.pipeline && kr.pipeline) {
      const VkDescriptorSetLayout layouts[2] = { kw.set_layouts[0], kr.set_layouts[0] };
      rk = vkt_alloc_sets(t, pool, layouts, 2, sets);
   }
   CHECK(rk == VK_SUCCESS, "%s: array descriptor sets: %d", dn, rk);

   if (r == VK_SUCCESS && sets[1]) {
      VkDescriptorImageInfo ii[2];
      for (int i = 0; i < 2; i++)
         image_info(&ii[i], views[i], VK_NULL_HANDLE);
      const VkDescriptorBufferInfo bo = { old.buffer, 0, VK_WHOLE_SIZE };
      const VkDescriptorBufferInfo bi = { out.buffer, 0, VK_WHOLE_SIZE };
      const VkWriteDescriptorSet w[4] = {
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[0], 0, 0, 2,
           VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, ii, NULL, NULL },
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[0], 2, 0, 1,
           VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bo, NULL },
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 0, 0, 2,
           VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, ii, NULL, NULL },
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 2, 0, 1,
           VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi, NULL },
      };
      vkUpdateDescriptorSets(t->device, 4, w, 0, NULL);
      VkCommandBuffer cb = vkt_begin(t);
      for (int i = 0; i < 2; i++)
         vkt_image_barrier(cb, img[i].image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_GENERAL);
      r = vkt_submit_wait(t, cb);
      CHECK(r == VK_SUCCESS, "%s: array layouts: %d", dn, r);
      memset(old.map, 0xa5, NA * 4);
      memset(out.map, 0xa5, sizeof(struct out_array));
      r = vkt_dispatch(t, &kw, &sets[0], 1, NULL, 0, 1, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: array write dispatch: %d", dn, r);
      r = vkt_dispatch(t, &kr, &sets[1], 1, NULL, 0, 1, 1, 1);
      CHECK(r == VK_SUCCESS, "%s: array read dispatch: %d", dn, r);

      const uint32_t *o = old.map;
      const struct out_array *rd = out.map;
      unsigned bad = 0;
#define BAD(...) do { if (bad++ < 8) fprintf(stderr, __VA_ARGS__); } while (0)
      for (uint32_t k = 0; k < NA; k++) {
         uint32_t i = k / 4, s = k % 4, x = i % 8, y = i / 8 % 8, l = i / 64;
         const uint32_t want_u[4] = { x, y, l * 4 + s, 0x20000u + k * 613u };
         const uint32_t want_a = 1000u * i + s, add = l * 4 + s + 11u;
         for (int c = 0; c < 4; c++)
            if (rd->u[k][c] != want_u[c])
               BAD("%s (threads %s): rgba32ui array layer %u (%u, %u) sample %u [%d]: %u, expected %u\n",
                   dn, th, l, x, y, s, c, rd->u[k][c], want_u[c]);
         if (o[k] != want_a)
            BAD("%s (threads %s): r32ui array layer %u (%u, %u) sample %u: atomic returned %u, expected "
                "%u\n", dn, th, l, x, y, s, o[k], want_a);
         if (rd->a[k] != want_a + add)
            BAD("%s (threads %s): r32ui array layer %u (%u, %u) sample %u: %u after the add, expected "
                "%u\n", dn, th, l, x, y, s, rd->a[k], want_a + add);
      }
#undef BAD
      CHECK(bad == 0, "%s (threads %s): image2DMSArray: %u wrong values", dn, th, bad);
      CHECK(rd->q[0] == 8 && rd->q[1] == 8 && rd->q[2] == 2 && rd->q[3] == 4,
            "%s: image2DMSArray imageSize / imageSamples %d %d %d %d", dn, rd->q[0], rd->q[1],
            rd->q[2], rd->q[3]);
   }
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_kernel_destroy(t, &kr);
   vkt_kernel_destroy(t, &kw);
   vkt_buffer_destroy(t, &out);
   vkt_buffer_destroy(t, &old);
   for (int i = 0; i < 2; i++) {
      vkDestroyImageView(t->device, views[i], NULL);
      vkt_image_destroy(t, &img[i]);
   }
}

static void
run(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const char *dn = vkt_driver_name(which);
   const char *th = threads ? threads : "-";
   struct vkt t;
   if (!draw_probe(which, &t)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   VkPhysicalDeviceFeatures f;
   vkGetPhysicalDeviceFeatures(t.pdev, &f);
   VkSampleCountFlags counts = t.props.limits.storageImageSampleCounts;
   if (which == VKT_SHALE) {
      CHECK(f.shaderStorageImageMultisample, "shale: shaderStorageImageMultisample");
      CHECK_EQ_INT(counts, VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT);
      check_formats(&t);
   }
   vkt_finish(&t);
   if (!f.shaderStorageImageMultisample || !(counts & VK_SAMPLE_COUNT_4_BIT)) {
      fprintf(stderr, "%s: no 4-sample storage images (%u, %#x), not run\n", dn,
              f.shaderStorageImageMultisample, counts);
      return;
   }
   if (!f.fragmentStoresAndAtomics) {
      fprintf(stderr, "%s: no fragmentStoresAndAtomics, not run\n", dn);
      return;
   }
   const VkPhysicalDeviceFeatures enable = { .shaderStorageImageMultisample = VK_TRUE,
                                             .fragmentStoresAndAtomics = VK_TRUE };
   if (!vkt_init(&t, &(struct vkt_options) { .driver = which, .features = &enable })) {
      CHECK(false, "%s: device with shaderStorageImageMultisample", dn);
      return;
   }

   static const VkFormat fmts[3] = { VK_FORMAT_R32G32B32A32_UINT, VK_FORMAT_R32_UINT,
                                     VK_FORMAT_R8G8B8A8_UNORM };
   struct vkt_image img[3] = { 0 };
   VkImageView views[3] = { 0 };
   VkResult r = VK_SUCCESS;
   for (int i = 0; i < 3 && r == VK_SUCCESS; i++)
      r = draw_image_create(&t, fmts[i], 8, 8, VK_SAMPLE_COUNT_4_BIT,
                            VK_IMAGE_USAGE_STORAGE_BIT | (i == 0 ? VK_IMAGE_USAGE_SAMPLED_BIT : 0),
                            VK_IMAGE_ASPECT_COLOR_BIT, &img[i], &views[i]);
   CHECK(r == VK_SUCCESS, "%s: 4-sample storage images: %d", dn, r);
   VkSampler sampler = VK_NULL_HANDLE;
   if (r == VK_SUCCESS)
      r = draw_nearest_sampler(&t, &sampler);
   struct vkt_buffer old = { 0 }, out = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, N * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &old);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, sizeof(struct out_read), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out);
   CHECK(r == VK_SUCCESS, "%s: sampler and buffers: %d", dn, r);

   const VkShaderStageFlags cs = VK_SHADER_STAGE_COMPUTE_BIT;
   const VkShaderStageFlags csf = cs | VK_SHADER_STAGE_FRAGMENT_BIT;
   const VkDescriptorSetLayoutBinding wb[4] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, csf, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, csf, NULL },
      { 2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, csf, NULL },
      { 3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, csf, NULL },
   };
   const VkDescriptorSetLayoutBinding rb[5] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, cs, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, cs, NULL },
      { 2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, cs, NULL },
      { 3, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, cs, NULL },
      { 4, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, cs, NULL },
   };
   struct vkt_kernel kw = { 0 }, kr = { 0 };
   VkResult rk = vkt_kernel_create(&t, &(struct vkt_kernel_info) {
      .code = mst_write_comp_spv, .code_size = sizeof(mst_write_comp_spv),
      .bindings = { wb }, .binding_counts = { 4 } }, &kw);
   CHECK(rk == VK_SUCCESS, "%s: write kernel: %d", dn, rk);
   rk = vkt_kernel_create(&t, &(struct vkt_kernel_info) {
      .code = mst_read_comp_spv, .code_size = sizeof(mst_read_comp_spv),
      .bindings = { rb }, .binding_counts = { 5 } }, &kr);
   CHECK(rk == VK_SUCCESS, "%s: read kernel: %d", dn, rk);
   /* The fragment writer: a full-screen triangle over an 8x8 one-sample
    * target, with the write kernel's set layout. */
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 8, .height = 8 };
   struct draw_pipeline fp = { 0 };
   rk = draw_target_create(&t, &dt);
   if (rk == VK_SUCCESS && kw.set_layouts[0])
      rk = draw_pipeline_create(&t, &dt, &(struct draw_pipeline_info) {
         .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
         .fs = mst_write_frag_spv, .fs_size = sizeof(mst_write_frag_spv),
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, .polygon_mode = VK_POLYGON_MODE_FILL,
         .push_size = 20, .set_layout = kw.set_layouts[0] }, &fp);
   CHECK(rk == VK_SUCCESS && fp.pipeline, "%s: fragment writer: %d", dn, rk);
   const VkDescriptorPoolSize sizes[3] = {
      { VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 6 },
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 },
      { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
   };
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet sets[2] = { 0 };
   rk = vkt_descriptor_pool(&t, 2, sizes, 3, 0, &pool);
   if (rk == VK_SUCCESS && kw.pipeline && kr.pipeline) {
      const VkDescriptorSetLayout layouts[2] = { kw.set_layouts[0], kr.set_layouts[0] };
      rk = vkt_alloc_sets(&t, pool, layouts, 2, sets);
   }
   CHECK(rk == VK_SUCCESS, "%s: descriptor sets: %d", dn, rk);

   if (r == VK_SUCCESS && sets[1]) {
      VkDescriptorImageInfo ii[4];
      for (int i = 0; i < 3; i++)
         image_info(&ii[i], views[i], VK_NULL_HANDLE);
      image_info(&ii[3], views[0], sampler);
      const VkDescriptorBufferInfo bo = { old.buffer, 0, VK_WHOLE_SIZE };
      const VkDescriptorBufferInfo bi = { out.buffer, 0, VK_WHOLE_SIZE };
      VkWriteDescriptorSet w[4] = {
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[0], 0, 0, 3,
           VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, ii, NULL, NULL },
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[0], 3, 0, 1,
           VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bo, NULL },
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 0, 0, 3,
           VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, ii, NULL, NULL },
         { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 4, 0, 1,
           VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, NULL, &bi, NULL },
      };
      vkUpdateDescriptorSets(t.device, 4, w, 0, NULL);
      VkWriteDescriptorSet ws = { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, sets[1], 3, 0, 1,
                                  VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &ii[3], NULL, NULL };
      vkUpdateDescriptorSets(t.device, 1, &ws, 0, NULL);
      VkCommandBuffer cb = vkt_begin(&t);
      for (int i = 0; i < 3; i++)
         vkt_image_barrier(cb, img[i].image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                           VK_IMAGE_LAYOUT_GENERAL);
      r = vkt_submit_wait(&t, cb);
      CHECK(r == VK_SUCCESS, "%s: layouts: %d", dn, r);
      /* Pass 0 writes from the compute shader, pass 1 from the fragment
       * shader; each stores every sample before its atomics. */
      for (int pass = 0; pass < 2 && fp.pipeline; pass++) {
         const char *wr = pass ? "fragment" : "compute";
         memset(old.map, 0xa5, N * 4);
         memset(out.map, 0xa5, sizeof(struct out_read));
         if (pass == 0) {
            r = vkt_dispatch(&t, &kw, &sets[0], 1, NULL, 0, 1, 1, 1);
         } else {
            cb = draw_begin(&t, &dt, &fp, VK_NULL_HANDLE);
            vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, fp.layout, 0, 1, &sets[0], 0,
                                    NULL);
            const float pc[5] = { 0 };
            vkCmdPushConstants(cb, fp.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                               0, 20, pc);
            vkCmdDraw(cb, 3, 1, 0, 0);
            r = draw_end(&t, &dt, cb);
         }
         CHECK(r == VK_SUCCESS, "%s: %s writer: %d", dn, wr, r);
         r = vkt_dispatch(&t, &kr, &sets[1], 1, NULL, 0, 1, 1, 1);
         CHECK(r == VK_SUCCESS, "%s: read dispatch: %d", dn, r);

         const uint32_t *o = old.map;
         const struct out_read *rd = out.map;
         unsigned bad = 0;
#define BAD(...) do { if (bad++ < 8) fprintf(stderr, __VA_ARGS__); } while (0)
         for (uint32_t k = 0; k < N; k++) {
            uint32_t i = k / 4, s = k % 4, x = i % 8, y = i / 8;
            const uint32_t want_u[4] = { x, y, s, 0x10000u + k * 977u };
            const uint32_t want_a = 100u * i + s;
            for (int c = 0; c < 4; c++) {
               if (rd->u[k][c] != want_u[c])
                  BAD("%s (threads %s, %s): rgba32ui (%u, %u) sample %u [%d]: imageLoad %u, expected %u\n",
                      dn, th, wr, x, y, s, c, rd->u[k][c], want_u[c]);
               if (rd->t[k][c] != want_u[c])
                  BAD("%s (threads %s, %s): rgba32ui (%u, %u) sample %u [%d]: texelFetch %u, expected %u\n",
                      dn, th, wr, x, y, s, c, rd->t[k][c], want_u[c]);
               const float want_f = (float)(c == 0 ? x : c == 1 ? y : c == 2 ? s : k) / 255.0f;
               if (!within_ulp(rd->f[k][c], want_f))
                  BAD("%s (threads %s, %s): rgba8 (%u, %u) sample %u [%d]: %.9g, expected %.9g\n", dn,
                      th, wr, x, y, s, c, rd->f[k][c], want_f);
            }
            if (o[k] != want_a)
               BAD("%s (threads %s, %s): r32ui (%u, %u) sample %u: atomic returned %u, expected %u\n",
                   dn, th, wr, x, y, s, o[k], want_a);
            if (rd->a[k] != want_a + s + 7u)
               BAD("%s (threads %s, %s): r32ui (%u, %u) sample %u: %u after the add, expected %u\n",
                   dn, th, wr, x, y, s, rd->a[k], want_a + s + 7u);
         }
#undef BAD
         CHECK(bad == 0, "%s (threads %s, %s writer): %u wrong values", dn, th, wr, bad);
         CHECK(rd->q[0] == 8 && rd->q[1] == 8 && rd->q[2] == 4 && rd->q[3] == 4,
               "%s: imageSize / imageSamples %d %d %d %d", dn, rd->q[0], rd->q[1], rd->q[2], rd->q[3]);
      }
   }
   array_case(&t, dn, th);
   draw_pipeline_destroy(&t, &fp);
   draw_target_destroy(&t, &dt);
   vkDestroyDescriptorPool(t.device, pool, NULL);
   vkt_kernel_destroy(&t, &kr);
   vkt_kernel_destroy(&t, &kw);
   vkt_buffer_destroy(&t, &out);
   vkt_buffer_destroy(&t, &old);
   vkDestroySampler(t.device, sampler, NULL);
   for (int i = 0; i < 3; i++) {
      vkDestroyImageView(t.device, views[i], NULL);
      vkt_image_destroy(&t, &img[i]);
   }
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
