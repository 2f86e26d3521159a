/* Storage images, storage texel buffers and uniform texel buffers in compute
 * shaders, on Shale and lavapipe, against a C reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "st_atomic_spv.h"
#include "st_r32f_spv.h"
#include "st_r32i_spv.h"
#include "st_r32ui_spv.h"
#include "st_rg32f_spv.h"
#include "st_rg32i_spv.h"
#include "st_rg32ui_spv.h"
#include "st_rgba16f_spv.h"
#include "st_rgba16i_spv.h"
#include "st_rgba16ui_spv.h"
#include "st_rgba32f_spv.h"
#include "st_rgba32i_spv.h"
#include "st_rgba32ui_spv.h"
#include "st_rgba8_spv.h"
#include "st_rgba8i_spv.h"
#include "st_rgba8sn_spv.h"
#include "st_rgba8ui_spv.h"
#include "st_texbuf_spv.h"
#include "st_tbfmt_f_spv.h"
#include "st_tbfmt_i_spv.h"
#include "st_tbfmt_u_spv.h"
#include "st_tbfmt_rgba8_spv.h"
#include "st_tbfmt_rgba8sn_spv.h"
#include "st_tbfmt_rgba8ui_spv.h"
#include "st_tbfmt_rgba8i_spv.h"
#include "st_tbfmt_rgba16ui_spv.h"
#include "st_tbfmt_rgba16i_spv.h"
#include "st_tbfmt_rgba16f_spv.h"
#include "st_tbfmt_r32ui_spv.h"
#include "st_tbfmt_r32i_spv.h"
#include "st_tbfmt_r32f_spv.h"
#include "st_tbfmt_rg32ui_spv.h"
#include "st_tbfmt_rg32i_spv.h"
#include "st_tbfmt_rg32f_spv.h"
#include "st_tbfmt_rgba32ui_spv.h"
#include "st_tbfmt_rgba32i_spv.h"
#include "st_tbfmt_rgba32f_spv.h"

enum kind { K_F32, K_U32, K_S32, K_UNORM8, K_SNORM8, K_U8, K_S8, K_U16, K_S16, K_F16 };

struct fmt {
   VkFormat format;
   const char *name;
   const uint32_t *spv;
   size_t spv_size;
   enum kind kind;
   unsigned comps, comp_bytes;
};

#define FMT(f, n, k, c, b) { f, #n, n##_spv, sizeof(n##_spv), k, c, b }
static const struct fmt fmts[] = {
   FMT(VK_FORMAT_R32_UINT, st_r32ui, K_U32, 1, 4),
   FMT(VK_FORMAT_R32_SINT, st_r32i, K_S32, 1, 4),
   FMT(VK_FORMAT_R32_SFLOAT, st_r32f, K_F32, 1, 4),
   FMT(VK_FORMAT_R32G32_UINT, st_rg32ui, K_U32, 2, 4),
   FMT(VK_FORMAT_R32G32_SINT, st_rg32i, K_S32, 2, 4),
   FMT(VK_FORMAT_R32G32_SFLOAT, st_rg32f, K_F32, 2, 4),
   FMT(VK_FORMAT_R32G32B32A32_UINT, st_rgba32ui, K_U32, 4, 4),
   FMT(VK_FORMAT_R32G32B32A32_SINT, st_rgba32i, K_S32, 4, 4),
   FMT(VK_FORMAT_R32G32B32A32_SFLOAT, st_rgba32f, K_F32, 4, 4),
   FMT(VK_FORMAT_R8G8B8A8_UNORM, st_rgba8, K_UNORM8, 4, 1),
   FMT(VK_FORMAT_R8G8B8A8_SNORM, st_rgba8sn, K_SNORM8, 4, 1),
   FMT(VK_FORMAT_R8G8B8A8_UINT, st_rgba8ui, K_U8, 4, 1),
   FMT(VK_FORMAT_R8G8B8A8_SINT, st_rgba8i, K_S8, 4, 1),
   FMT(VK_FORMAT_R16G16B16A16_UINT, st_rgba16ui, K_U16, 4, 2),
   FMT(VK_FORMAT_R16G16B16A16_SINT, st_rgba16i, K_S16, 4, 2),
   FMT(VK_FORMAT_R16G16B16A16_SFLOAT, st_rgba16f, K_F16, 4, 2),
};
#define NFMTS (sizeof(fmts) / sizeof(fmts[0]))

static uint32_t rng_state;
static uint32_t
rnd(void)
{
   rng_state = rng_state * 1664525u + 1013904223u;
   return rng_state >> 8;
}

/* Image geometry: 0 = 2D 9x7 (3 levels), 1 = 2D array 9x7 x 4 layers (2
 * levels), 2 = 3D 9x7x6 (2 levels). Views: level 1; the array view takes
 * layers 1 and 2. */
static const VkImageType img_types[3] = { VK_IMAGE_TYPE_2D, VK_IMAGE_TYPE_2D, VK_IMAGE_TYPE_3D };
static const VkImageViewType view_types[3] = { VK_IMAGE_VIEW_TYPE_2D, VK_IMAGE_VIEW_TYPE_2D_ARRAY,
                                               VK_IMAGE_VIEW_TYPE_3D };
static const uint32_t img_levels[3] = { 3, 2, 2 }, img_layers[3] = { 1, 4, 1 },
                      img_depth[3] = { 1, 1, 6 };

static uint32_t
dim(uint32_t v, uint32_t level)
{
   return v >> level ? v >> level : 1;
}

/* Packed buffer layout: levels after each other; in a level, the layers or
 * z slices, then rows, then texels. */
static size_t
level_offset(unsigned g, uint32_t level, size_t texel)
{
   size_t off = 0;
   for (uint32_t l = 0; l < level; l++)
      off += (size_t)dim(9, l) * dim(7, l) * dim(img_depth[g], l) * img_layers[g] * texel;
   return off;
}

static size_t
image_bytes(unsigned g, size_t texel)
{
   return level_offset(g, img_levels[g], texel);
}

static size_t
texel_at(unsigned g, uint32_t level, uint32_t x, uint32_t y, uint32_t z, size_t texel)
{
   return level_offset(g, level, texel) + (((size_t)z * dim(7, level) + y) * dim(9, level) + x) * texel;
}

static void
gen_component(const struct fmt *f, uint8_t *p)
{
   uint32_t r = rnd();
   switch (f->kind) {
   case K_F32: {
      uint32_t bits = (r & 0x807fffffu) | ((100u + rnd() % 50u) << 23);
      memcpy(p, &bits, 4);
      break;
   }
   case K_F16: {
      uint16_t bits = (uint16_t)((r & 0x83ffu) | ((1u + rnd() % 30u) << 10));
      memcpy(p, &bits, 2);
      break;
   }
   case K_SNORM8:
      p[0] = (uint8_t)(r & 0xff) == 0x80 ? 0x81 : (uint8_t)r;
      break;
   default:
      for (unsigned i = 0; i < f->comp_bytes; i++)
         p[i] = (uint8_t)(rnd() >> 4);
   }
}

static float
half_to_float(uint16_t h)
{
   int e = (h >> 10) & 31, m = h & 1023;
   float v = e ? ldexpf(1.0f + m / 1024.0f, e - 15) : ldexpf(m / 1024.0f, -14);
   return h & 0x8000 ? -v : v;
}

/* The value a shader sees for component c of a texel, as 32 bits. */
static uint32_t
decode(const struct fmt *f, const uint8_t *t, unsigned c)
{
   const bool is_float = f->kind == K_F32 || f->kind == K_F16 || f->kind == K_UNORM8 ||
                         f->kind == K_SNORM8;
   uint32_t out;
   float fv = 0.0f;
   if (c >= f->comps) {
      fv = 1.0f;
      out = c == 3 ? 1 : 0;
      if (is_float) {
         fv = c == 3 ? 1.0f : 0.0f;
         memcpy(&out, &fv, 4);
      }
      return out;
   }
   const uint8_t *p = t + c * f->comp_bytes;
   uint16_t h;
   switch (f->kind) {
   case K_F32: case K_U32: case K_S32: memcpy(&out, p, 4); return out;
   case K_U8: return p[0];
   case K_S8: return (uint32_t)(int32_t)(int8_t)p[0];
   case K_U16: memcpy(&h, p, 2); return h;
   case K_S16: memcpy(&h, p, 2); return (uint32_t)(int32_t)(int16_t)h;
   case K_F16: memcpy(&h, p, 2); fv = half_to_float(h); break;
   case K_UNORM8: fv = p[0] / 255.0f; break;
   case K_SNORM8: fv = fmaxf((int8_t)p[0] / 127.0f, -1.0f); break;
   }
   memcpy(&out, &fv, 4);
   return out;
}

static bool
close_enough(const struct fmt *f, uint32_t got, uint32_t want)
{
   if (got == want)
      return true;
   if (f->kind != K_UNORM8 && f->kind != K_SNORM8)
      return false;
   float a, b;
   memcpy(&a, &got, 4);
   memcpy(&b, &want, 4);
   return fabsf(a - b) <= 1e-6f;
}

struct ctx {
   struct vkt t;
   const char *name;
};

static VkPipeline
make_kernel(struct vkt *t, const uint32_t *spv, size_t size, const VkDescriptorSetLayoutBinding *b,
            uint32_t n, VkDescriptorSetLayout *sl, VkPipelineLayout *pl, VkDescriptorPool *pool,
            VkDescriptorSet *set)
{
   VkShaderModuleCreateInfo mci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0, size, spv };
   VkShaderModule m;
   CHECK(vkCreateShaderModule(t->device, &mci, NULL, &m) == VK_SUCCESS, "module");
   VkDescriptorSetLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = n, .pBindings = b };
   CHECK(vkCreateDescriptorSetLayout(t->device, &lci, NULL, sl) == VK_SUCCESS, "set layout");
   VkPipelineLayoutCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1, .pSetLayouts = sl };
   CHECK(vkCreatePipelineLayout(t->device, &pci, NULL, pl) == VK_SUCCESS, "pipeline layout");
   VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                 .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = m, .pName = "main" },
      .layout = *pl,
   };
   VkPipeline p = VK_NULL_HANDLE;
   VkResult r = vkCreateComputePipelines(t->device, VK_NULL_HANDLE, 1, &ci, NULL, &p);
   CHECK(r == VK_SUCCESS, "vkCreateComputePipelines: %d", r);
   vkDestroyShaderModule(t->device, m, NULL);
   VkDescriptorPoolSize sizes[24];
   for (uint32_t i = 0; i < n; i++)
      sizes[i] = (VkDescriptorPoolSize) { b[i].descriptorType, 1 };
   VkDescriptorPoolCreateInfo poci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = n, .pPoolSizes = sizes };
   CHECK(vkCreateDescriptorPool(t->device, &poci, NULL, pool) == VK_SUCCESS, "pool");
   VkDescriptorSetAllocateInfo ai = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, NULL, *pool, 1, sl };
   CHECK(vkAllocateDescriptorSets(t->device, &ai, set) == VK_SUCCESS, "set");
   return p;
}

static void
destroy_kernel(struct vkt *t, VkPipeline p, VkDescriptorSetLayout sl, VkPipelineLayout pl,
               VkDescriptorPool pool)
{
   vkDestroyPipeline(t->device, p, NULL);
   vkDestroyPipelineLayout(t->device, pl, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl, NULL);
   vkDestroyDescriptorPool(t->device, pool, NULL);
}

static void
barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from, VkImageLayout to)
{
   VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT,
      .oldLayout = from, .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = img,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, VK_REMAINING_MIP_LEVELS, 0,
                            VK_REMAINING_ARRAY_LAYERS },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                        0, 0, NULL, 0, NULL, 1, &b);
}

static void
copy_regions(unsigned g, size_t texel, VkBufferImageCopy *r)
{
   for (uint32_t l = 0; l < img_levels[g]; l++)
      r[l] = (VkBufferImageCopy) {
         .bufferOffset = level_offset(g, l, texel),
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, l, 0, img_layers[g] },
         .imageExtent = { dim(9, l), dim(7, l), dim(img_depth[g], l) },
      };
}

/* One format: returns the dst images' contents (3 blobs, concatenated) in *out. */
static void
run_format(struct ctx *c, const struct fmt *f, uint8_t **out, size_t *out_size)
{
   struct vkt *t = &c->t;
   const size_t texel = (size_t)f->comps * f->comp_bytes;
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t->pdev, f->format, &fp);
   CHECK(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT, "%s: %s STORAGE_IMAGE",
         c->name, f->name);
   size_t total = 0, offs[3];
   for (unsigned g = 0; g < 3; g++) {
      offs[g] = total;
      total += image_bytes(g, texel);
   }
   struct vkt_buffer src_buf, dst_buf, out_buf;
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &src_buf) == VK_SUCCESS, "buf");
   CHECK(vkt_buffer_create(t, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           &dst_buf) == VK_SUCCESS, "buf");
   CHECK(vkt_buffer_create(t, 1024, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out_buf) == VK_SUCCESS, "buf");
   rng_state = (uint32_t)f->format * 7919u;
   uint8_t *src = src_buf.map, *dst = dst_buf.map;
   for (size_t i = 0; i < total; i += f->comp_bytes)
      gen_component(f, src + i);
   for (size_t i = 0; i < total; i++)
      dst[i] = (uint8_t)(i * 37 + 5);
   uint8_t *expect = malloc(total);
   memcpy(expect, dst, total);
   memset(out_buf.map, 0, 1024);

   struct vkt_image imgs[6];
   VkImageView views[6];
   for (unsigned i = 0; i < 6; i++) {
      unsigned g = i / 2;
      VkImageCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
         .imageType = img_types[g], .format = f->format,
         .extent = { 9, 7, img_depth[g] }, .mipLevels = img_levels[g], .arrayLayers = img_layers[g],
         .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      };
      VkResult r = vkt_image_create(t, &ci, &imgs[i]);
      CHECK(r == VK_SUCCESS, "%s: %s image %u: %d", c->name, f->name, i, r);
      VkImageViewCreateInfo vi = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = imgs[i].image,
         .viewType = view_types[g], .format = f->format,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 1, 1, g == 1 ? 1 : 0, g == 1 ? 2 : 1 },
      };
      r = vkCreateImageView(t->device, &vi, NULL, &views[i]);
      CHECK(r == VK_SUCCESS, "%s: view: %d", c->name, r);
   }
   VkDescriptorSetLayoutBinding b[7];
   for (uint32_t i = 0; i < 7; i++)
      b[i] = (VkDescriptorSetLayoutBinding) { i, i < 6 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                                                       : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              1, VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   VkDescriptorSetLayout sl;
   VkPipelineLayout pl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipeline pipe = make_kernel(t, f->spv, f->spv_size, b, 7, &sl, &pl, &pool, &set);
   VkDescriptorImageInfo ii[6];
   VkWriteDescriptorSet w[7];
   for (unsigned i = 0; i < 6; i++) {
      ii[i] = (VkDescriptorImageInfo) { VK_NULL_HANDLE, views[i], VK_IMAGE_LAYOUT_GENERAL };
      w[i] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                      .pImageInfo = &ii[i] };
   }
   VkDescriptorBufferInfo bi = { out_buf.buffer, 0, VK_WHOLE_SIZE };
   w[6] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                   .dstBinding = 6, .descriptorCount = 1,
                                   .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                   .pBufferInfo = &bi };
   vkUpdateDescriptorSets(t->device, 7, w, 0, NULL);

   VkCommandBuffer cb = vkt_begin(t);
   for (unsigned i = 0; i < 6; i++) {
      unsigned g = i / 2;
      VkBufferImageCopy regions[3];
      copy_regions(g, texel, regions);
      for (uint32_t l = 0; l < img_levels[g]; l++)
         regions[l].bufferOffset += offs[g];
      barrier(cb, imgs[i].image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      vkCmdCopyBufferToImage(cb, i % 2 ? dst_buf.buffer : src_buf.buffer, imgs[i].image,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, img_levels[g], regions);
      barrier(cb, imgs[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
   }
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, 1, 1, 2);
   for (unsigned i = 1; i < 6; i += 2) {
      unsigned g = i / 2;
      VkBufferImageCopy regions[3];
      copy_regions(g, texel, regions);
      for (uint32_t l = 0; l < img_levels[g]; l++)
         regions[l].bufferOffset += offs[g];
      barrier(cb, imgs[i].image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      vkCmdCopyImageToBuffer(cb, imgs[i].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst_buf.buffer,
                             img_levels[g], regions);
   }
   VkResult r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", c->name, r);

   /* Reference: the mirrored copies at level 1 of each view's range. */
   for (uint32_t z = 0; z < 3; z++)
      for (uint32_t y = 0; y < 3; y++)
         for (uint32_t x = 0; x < 4; x++) {
            if (z == 0)
               memcpy(expect + offs[0] + texel_at(0, 1, x, y, 0, texel),
                      src + offs[0] + texel_at(0, 1, 3 - x, y, 0, texel), texel);
            if (z < 2)
               memcpy(expect + offs[1] + texel_at(1, 1, x, y, z + 1, texel),
                      src + offs[1] + texel_at(1, 1, x, 2 - y, z + 1, texel), texel);
            memcpy(expect + offs[2] + texel_at(2, 1, x, y, z, texel),
                   src + offs[2] + texel_at(2, 1, x, y, 2 - z, texel), texel);
         }
   for (unsigned g = 0; g < 3; g++)
      CHECK(!memcmp(expect + offs[g], dst + offs[g], image_bytes(g, texel)),
            "%s: %s %s view: stored texels differ from the reference", c->name, f->name,
            g == 0 ? "2D" : g == 1 ? "2D array" : "3D");
   const int32_t *sz = out_buf.map;
   static const int32_t want_sizes[6][4] = { { 4, 3, 0, 0 }, { 4, 3, 0, 0 }, { 4, 3, 2, 0 },
                                             { 4, 3, 2, 0 }, { 4, 3, 3, 0 }, { 4, 3, 3, 0 } };
   CHECK(!memcmp(sz, want_sizes, sizeof(want_sizes)), "%s: %s imageSize: (%d %d) (%d %d %d) (%d %d %d)",
         c->name, f->name, sz[0], sz[1], sz[8], sz[9], sz[10], sz[16], sz[17], sz[18]);
   const uint32_t *loaded = (const uint32_t *)((const uint8_t *)out_buf.map + 96);
   unsigned bad = 0;
   for (uint32_t y = 0; y < 3; y++)
      for (uint32_t x = 0; x < 4; x++)
         for (unsigned k = 0; k < 4; k++) {
            uint32_t want = decode(f, src + offs[0] + texel_at(0, 1, 3 - x, y, 0, texel), k);
            if (!close_enough(f, loaded[(y * 4 + x) * 4 + k], want) && bad++ < 4)
               fprintf(stderr, "%s: %s loaded (%u,%u).%u = %#x, want %#x\n", c->name, f->name, x, y,
                       k, loaded[(y * 4 + x) * 4 + k], want);
         }
   CHECK(bad == 0, "%s: %s: %u loaded components differ from the reference", c->name, f->name, bad);

   *out_size = total;
   *out = malloc(total);
   memcpy(*out, dst, total);
   free(expect);
   destroy_kernel(t, pipe, sl, pl, pool);
   for (unsigned i = 0; i < 6; i++) {
      vkDestroyImageView(t->device, views[i], NULL);
      vkt_image_destroy(t, &imgs[i]);
   }
   vkt_buffer_destroy(t, &src_buf);
   vkt_buffer_destroy(t, &dst_buf);
   vkt_buffer_destroy(t, &out_buf);
}

static uint32_t
rnd32(void)
{
   return rnd() << 8 ^ rnd();
}

static void
host_barrier(VkCommandBuffer cb)
{
   VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_MEMORY_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                        &mb, 0, NULL, 0, NULL);
}

/* One atomic op of st_atomic.comp's rows 1-7 on a 32-bit texel, signed or not. */
static uint32_t
atomic_ref(int row, bool is_signed, uint32_t old, uint32_t a, uint32_t cmp)
{
   switch (row) {
   case 1: return old == cmp ? a : old;
   case 2: return a;
   case 3: return is_signed ? ((int32_t)a < (int32_t)old ? a : old) : (a < old ? a : old);
   case 4: return is_signed ? ((int32_t)a > (int32_t)old ? a : old) : (a > old ? a : old);
   case 5: return old & a;
   case 6: return old | a;
   default: return old ^ a;
   }
}

/* Image atomics on 16x8 R32_UINT and R32_SINT images (st_atomic.comp). */
static void
run_atomics(struct ctx *c)
{
   struct vkt *t = &c->t;
   static const VkFormat formats[2] = { VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT };
   for (unsigned i = 0; i < 2; i++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, formats[i], &fp);
      CHECK(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_ATOMIC_BIT,
            "%s: format %d STORAGE_IMAGE_ATOMIC", c->name, formats[i]);
   }
   const size_t texels = 16 * 8;
   struct vkt_buffer init_buf, in_buf, out_buf;
   CHECK(vkt_buffer_create(t, texels * 8, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                           VK_BUFFER_USAGE_TRANSFER_DST_BIT, &init_buf) == VK_SUCCESS, "buf");
   CHECK(vkt_buffer_create(t, (texels + 16) * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in_buf) ==
         VK_SUCCESS, "buf");
   CHECK(vkt_buffer_create(t, texels * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out_buf) ==
         VK_SUCCESS, "buf");
   rng_state = 4242;
   uint32_t *init = init_buf.map, *operand = in_buf.map, *compare = operand + texels;
   uint32_t ref[2][16 * 8], ret_ref[2][16 * 8];
   for (size_t i = 0; i < texels * 2; i++)
      init[i] = rnd32();
   for (size_t i = 0; i < texels; i++)
      operand[i] = rnd32();
   /* Comp-swap: even texels compare equal (in both images), odd ones not. */
   for (uint32_t x = 0; x < 16; x++) {
      init[texels + 16 + x] = init[16 + x];
      compare[x] = x % 2 ? init[16 + x] ^ (1u << x) : init[16 + x];
   }
   memset(out_buf.map, 0, texels * 8);
   for (unsigned s = 0; s < 2; s++) {
      memcpy(ref[s], init + s * texels, texels * 4);
      memset(ret_ref[s], 0, sizeof(ret_ref[s]));
      for (uint32_t g = 0; g < 256; g++)
         ref[s][g % 4] += s ? (uint32_t)(7 - 3 * (int32_t)g) : g + 1;
      for (int row = 1; row < 8; row++)
         for (uint32_t x = 0; x < 16; x++) {
            uint32_t *v = &ref[s][row * 16 + x];
            ret_ref[s][row * 16 + x] = *v;
            *v = atomic_ref(row, s, *v, operand[row * 16 + x], compare[x]);
         }
   }

   struct vkt_image imgs[2];
   VkImageView views[2];
   for (unsigned i = 0; i < 2; i++) {
      VkImageCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
         .format = formats[i], .extent = { 16, 8, 1 }, .mipLevels = 1, .arrayLayers = 1,
         .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                  VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      };
      CHECK(vkt_image_create(t, &ci, &imgs[i]) == VK_SUCCESS, "%s: atomic image", c->name);
      VkImageViewCreateInfo vi = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = imgs[i].image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = formats[i],
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
      };
      CHECK(vkCreateImageView(t->device, &vi, NULL, &views[i]) == VK_SUCCESS, "view");
   }
   VkDescriptorSetLayoutBinding b[4];
   for (uint32_t i = 0; i < 4; i++)
      b[i] = (VkDescriptorSetLayoutBinding) { i, i < 2 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE
                                                       : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                              1, VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   VkDescriptorSetLayout sl;
   VkPipelineLayout pl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipeline pipe = make_kernel(t, st_atomic_spv, sizeof(st_atomic_spv), b, 4, &sl, &pl, &pool, &set);
   VkDescriptorImageInfo ii[2] = { { VK_NULL_HANDLE, views[0], VK_IMAGE_LAYOUT_GENERAL },
                                   { VK_NULL_HANDLE, views[1], VK_IMAGE_LAYOUT_GENERAL } };
   VkDescriptorBufferInfo bi[2] = { { in_buf.buffer, 0, VK_WHOLE_SIZE },
                                    { out_buf.buffer, 0, VK_WHOLE_SIZE } };
   VkWriteDescriptorSet w[4];
   for (uint32_t i = 0; i < 4; i++)
      w[i] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = b[i].descriptorType,
                                      .pImageInfo = i < 2 ? &ii[i] : NULL,
                                      .pBufferInfo = i < 2 ? NULL : &bi[i - 2] };
   vkUpdateDescriptorSets(t->device, 4, w, 0, NULL);

   VkCommandBuffer cb = vkt_begin(t);
   for (unsigned i = 0; i < 2; i++) {
      VkBufferImageCopy r = { .bufferOffset = i * texels * 4,
                              .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                              .imageExtent = { 16, 8, 1 } };
      barrier(cb, imgs[i].image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
      vkCmdCopyBufferToImage(cb, init_buf.buffer, imgs[i].image,
                             VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &r);
      barrier(cb, imgs[i].image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL);
   }
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, 16, 1, 1);
   for (unsigned i = 0; i < 2; i++) {
      VkBufferImageCopy r = { .bufferOffset = i * texels * 4,
                              .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                              .imageExtent = { 16, 8, 1 } };
      barrier(cb, imgs[i].image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
      vkCmdCopyImageToBuffer(cb, imgs[i].image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                             init_buf.buffer, 1, &r);
   }
   host_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: atomics submit", c->name);

   const uint32_t *ret = out_buf.map;
   for (unsigned s = 0; s < 2; s++) {
      unsigned bad = 0, bad_ret = 0;
      for (size_t i = 0; i < texels; i++) {
         /* Texels past x = 15 of rows 1-7 and past x = 3 of row 0 are untouched. */
         if (init[s * texels + i] != ref[s][i] && bad++ < 4)
            fprintf(stderr, "%s: %s atomic texel (%zu,%zu) = %#x, want %#x\n", c->name,
                    s ? "r32i" : "r32ui", i % 16, i / 16, init[s * texels + i], ref[s][i]);
         if (i >= 16 && ret[s * texels + i] != ret_ref[s][i] && bad_ret++ < 4)
            fprintf(stderr, "%s: %s atomic returned (%zu,%zu) = %#x, want %#x\n", c->name,
                    s ? "r32i" : "r32ui", i % 16, i / 16, ret[s * texels + i], ret_ref[s][i]);
      }
      CHECK(bad == 0 && bad_ret == 0, "%s: %s image atomics: %u texels, %u returned values differ",
            c->name, s ? "r32i" : "r32ui", bad, bad_ret);
   }
   destroy_kernel(t, pipe, sl, pl, pool);
   for (unsigned i = 0; i < 2; i++) {
      vkDestroyImageView(t->device, views[i], NULL);
      vkt_image_destroy(t, &imgs[i]);
   }
   vkt_buffer_destroy(t, &init_buf);
   vkt_buffer_destroy(t, &in_buf);
   vkt_buffer_destroy(t, &out_buf);
}

/* Texel buffers (st_texbuf.comp): views of TB_N texels at a non-zero offset,
 * with bytes of the buffer before and after them. */
#define TB_N 20
#define TB_F 5
/* R32_UINT, R32_SINT, R32_SFLOAT, RGBA8_UNORM, RGBA32_SFLOAT */
static const unsigned tb_fmts[TB_F] = { 0, 1, 2, 9, 8 };

static void
run_texel_buffers(struct ctx *c)
{
   struct vkt *t = &c->t;
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(t->pdev, &props);
   VkDeviceSize align = props.limits.minTexelBufferOffsetAlignment;
   const VkDeviceSize off = (align > 16 ? align : 16) * 3, tail = 64;
   const VkBufferUsageFlags usage = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                    VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT;
   /* Buffers 0-4: sources, 5-9: destinations, 10-11: R32_UINT / R32_SINT
    * atomics. */
   struct vkt_buffer bufs[12], out_buf;
   VkBufferView views[12];
   uint8_t *expect[12];
   VkFormat vformat[12];
   size_t tsize[12];
   rng_state = 777;
   for (unsigned i = 0; i < 12; i++) {
      const struct fmt *f = &fmts[i < 2 * TB_F ? tb_fmts[i % TB_F] : i - 2 * TB_F];
      vformat[i] = f->format;
      tsize[i] = (size_t)f->comps * f->comp_bytes;
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, f->format, &fp);
      VkFormatFeatureFlags need = i < 2 * TB_F ? VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT |
                                          VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT
                                        : VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_ATOMIC_BIT;
      CHECK((fp.bufferFeatures & need) == need, "%s: %s buffer features %#x", c->name, f->name,
            fp.bufferFeatures);
      const VkDeviceSize size = off + TB_N * tsize[i] + tail;
      CHECK(vkt_buffer_create(t, size, usage, &bufs[i]) == VK_SUCCESS, "buf");
      uint8_t *m = bufs[i].map;
      if (i < TB_F) {
         for (size_t k = 0; k < size; k += f->comp_bytes)
            gen_component(f, m + k);
      } else if (i < 2 * TB_F) {
         for (size_t k = 0; k < size; k++)
            m[k] = (uint8_t)(k * 37 + 5);
      } else {
         for (size_t k = 0; k < size; k += 4) {
            uint32_t v = rnd32();
            memcpy(m + k, &v, 4);
         }
      }
      expect[i] = malloc(size);
      memcpy(expect[i], m, size);
      VkBufferViewCreateInfo vi = { VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, NULL, 0,
                                    bufs[i].buffer, f->format, off, TB_N * tsize[i] };
      CHECK(vkCreateBufferView(t->device, &vi, NULL, &views[i]) == VK_SUCCESS, "%s: buffer view",
            c->name);
   }
   const size_t out_size = 20 * 4 + TB_F * 32 * 16 + 2 * 32 * 4;
   CHECK(vkt_buffer_create(t, out_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out_buf) == VK_SUCCESS,
         "buf");
   memset(out_buf.map, 0, out_size);

   /* Reference: mirrored copies into the destinations' views; atomics. */
   for (unsigned i = 0; i < TB_F; i++)
      for (unsigned k = 0; k < TB_N; k++)
         memcpy(expect[TB_F + i] + off + k * tsize[i],
                (uint8_t *)bufs[i].map + off + (TB_N - 1 - k) * tsize[i], tsize[i]);
   uint32_t ret_ref[2][32];
   memset(ret_ref, 0, sizeof(ret_ref));
   for (unsigned s = 0; s < 2; s++) {
      uint32_t *e = (uint32_t *)(expect[2 * TB_F + s] + off);
      for (uint32_t g = 0; g < 32; g++)
         e[g % 4] += s ? (uint32_t)(3 - 7 * (int32_t)g) : g * 5 + 1;
      for (uint32_t g = 4; g < TB_N; g++) {
         ret_ref[s][g] = e[g];
         e[g] = s ? (uint32_t)(-(int32_t)g * 1000) : g * 0x01010101u;
      }
   }

   VkDescriptorSetLayoutBinding b[18];
   for (uint32_t i = 0; i < 18; i++)
      b[i] = (VkDescriptorSetLayoutBinding) {
         i, i < TB_F ? VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
            : i < 17 ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
         1, VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   VkDescriptorSetLayout sl;
   VkPipelineLayout pl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipeline pipe = make_kernel(t, st_texbuf_spv, sizeof(st_texbuf_spv), b, 18, &sl, &pl, &pool, &set);
   VkWriteDescriptorSet w[18];
   VkDescriptorBufferInfo bi = { out_buf.buffer, 0, VK_WHOLE_SIZE };
   for (uint32_t i = 0; i < 18; i++)
      w[i] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                      .dstBinding = i, .descriptorCount = 1,
                                      .descriptorType = b[i].descriptorType,
                                      .pBufferInfo = i == 17 ? &bi : NULL,
                                      .pTexelBufferView = i == 17 ? NULL
                                                          : &views[i < TB_F ? i : i - TB_F] };
   vkUpdateDescriptorSets(t->device, 18, w, 0, NULL);
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, 1, 1, 1);
   host_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: texel buffer submit", c->name);

   const int32_t *sizes = out_buf.map;
   for (unsigned i = 0; i < 17; i++)
      CHECK(sizes[i] == TB_N, "%s: texel buffer size %u = %d", c->name, i, sizes[i]);
   const uint32_t *fetched = (const uint32_t *)(sizes + 20);
   for (unsigned i = 0; i < TB_F; i++) {
      const struct fmt *f = &fmts[tb_fmts[i]];
      unsigned bad = 0;
      for (unsigned k = 0; k < 32; k++)
         for (unsigned ch = 0; ch < 4; ch++) {
            uint32_t got = fetched[(i * 32 + k) * 4 + ch];
            uint32_t want = k < TB_N ? decode(f, (uint8_t *)bufs[i].map + off + k * tsize[i], ch) : 0;
            if (!close_enough(f, got, want) && bad++ < 4)
               fprintf(stderr, "%s: %s texelFetch %u.%u = %#x, want %#x\n", c->name, f->name, k, ch,
                       got, want);
         }
      CHECK(bad == 0, "%s: %s: %u fetched components differ", c->name, f->name, bad);
   }
   for (unsigned i = TB_F; i < 12; i++)
      CHECK(!memcmp(bufs[i].map, expect[i], off + TB_N * tsize[i] + tail),
            "%s: texel buffer %u (format %d) differs from the reference", c->name, i, vformat[i]);
   const uint32_t *ret = fetched + TB_F * 32 * 4;
   for (unsigned s = 0; s < 2; s++)
      CHECK(!memcmp(ret + s * 32, ret_ref[s], sizeof(ret_ref[s])),
            "%s: texel buffer atomic exchange returned values differ (%s)", c->name,
            s ? "r32i" : "r32ui");

   destroy_kernel(t, pipe, sl, pl, pool);
   for (unsigned i = 0; i < 12; i++) {
      vkDestroyBufferView(t->device, views[i], NULL);
      vkt_buffer_destroy(t, &bufs[i]);
      free(expect[i]);
   }
   vkt_buffer_destroy(t, &out_buf);
}

/* ---- The mandatory texel buffer formats ---------------------------------
 * Vulkan 1.0's mandatory format tables require UNIFORM_TEXEL_BUFFER on 31
 * formats, STORAGE_TEXEL_BUFFER on 20 of them and STORAGE_TEXEL_BUFFER_ATOMIC
 * on R32_UINT/SINT (dEQP-VK.api.info.format_properties.* found them
 * missing: r8_snorm, r8g8_snorm, r8g8b8a8_snorm, a8b8g8r8_snorm_pack32,
 * b10g11r11_ufloat_pack32, ...). Each format, on Shale (which must claim
 * them) and on lavapipe (where it claims them): texelFetch of every texel of
 * a uniform texel buffer against a decoder written from the spec's format
 * definitions and "Fixed-Point Data Conversions"; for the storage formats a
 * mirrored imageLoad/imageStore copy, byte-exact, the buffer's bytes around
 * the view untouched. Atomics: run_texel_buffers. */
enum tbk { TB_UNORM, TB_SNORM, TB_UINT, TB_SINT, TB_SFLOAT, TB_UFLOAT };

struct tbfmt {
   VkFormat format;
   const char *name;
   enum tbk kind;
   uint8_t size;            /* bytes per texel */
   uint8_t off[4], bits[4]; /* R, G, B, A bit offsets in the texel; bits 0: absent */
   const uint32_t *spv;     /* the class kernel, or the storage kernel of the format */
   size_t spv_size;
   bool storage;            /* STORAGE_TEXEL_BUFFER required */
};

#define TBS(n) st_tbfmt_##n##_spv, sizeof(st_tbfmt_##n##_spv)
#define C1(b) { 0 }, { b }
#define C2(b) { 0, b }, { b, b }
#define C3(b) { 0, b, 2 * (b), 0 }, { b, b, b, 0 }
#define C4(b) { 0, b, 2 * (b), 3 * (b) }, { b, b, b, b }
static const struct tbfmt tbfmts[] = {
   { VK_FORMAT_R8_UNORM, "R8_UNORM", TB_UNORM, 1, C1(8), TBS(f), false },
   { VK_FORMAT_R8_SNORM, "R8_SNORM", TB_SNORM, 1, C1(8), TBS(f), false },
   { VK_FORMAT_R8_UINT, "R8_UINT", TB_UINT, 1, C1(8), TBS(u), false },
   { VK_FORMAT_R8_SINT, "R8_SINT", TB_SINT, 1, C1(8), TBS(i), false },
   { VK_FORMAT_R8G8_UNORM, "R8G8_UNORM", TB_UNORM, 2, C2(8), TBS(f), false },
   { VK_FORMAT_R8G8_SNORM, "R8G8_SNORM", TB_SNORM, 2, C2(8), TBS(f), false },
   { VK_FORMAT_R8G8_UINT, "R8G8_UINT", TB_UINT, 2, C2(8), TBS(u), false },
   { VK_FORMAT_R8G8_SINT, "R8G8_SINT", TB_SINT, 2, C2(8), TBS(i), false },
   { VK_FORMAT_R8G8B8A8_UNORM, "R8G8B8A8_UNORM", TB_UNORM, 4, C4(8), TBS(rgba8), true },
   { VK_FORMAT_R8G8B8A8_SNORM, "R8G8B8A8_SNORM", TB_SNORM, 4, C4(8), TBS(rgba8sn), true },
   { VK_FORMAT_R8G8B8A8_UINT, "R8G8B8A8_UINT", TB_UINT, 4, C4(8), TBS(rgba8ui), true },
   { VK_FORMAT_R8G8B8A8_SINT, "R8G8B8A8_SINT", TB_SINT, 4, C4(8), TBS(rgba8i), true },
   { VK_FORMAT_B8G8R8A8_UNORM, "B8G8R8A8_UNORM", TB_UNORM, 4, { 16, 8, 0, 24 }, { 8, 8, 8, 8 },
     TBS(f), false },
   /* A8B8G8R8 packed in a little-endian word is R8G8B8A8 in memory; the
    * storage kernels declare rgba8*, whose texels are laid out alike. */
   { VK_FORMAT_A8B8G8R8_UNORM_PACK32, "A8B8G8R8_UNORM_PACK32", TB_UNORM, 4, C4(8), TBS(rgba8), true },
   { VK_FORMAT_A8B8G8R8_SNORM_PACK32, "A8B8G8R8_SNORM_PACK32", TB_SNORM, 4, C4(8), TBS(rgba8sn), true },
   { VK_FORMAT_A8B8G8R8_UINT_PACK32, "A8B8G8R8_UINT_PACK32", TB_UINT, 4, C4(8), TBS(rgba8ui), true },
   { VK_FORMAT_A8B8G8R8_SINT_PACK32, "A8B8G8R8_SINT_PACK32", TB_SINT, 4, C4(8), TBS(rgba8i), true },
   { VK_FORMAT_A2B10G10R10_UNORM_PACK32, "A2B10G10R10_UNORM_PACK32", TB_UNORM, 4, { 0, 10, 20, 30 },
     { 10, 10, 10, 2 }, TBS(f), false },
   { VK_FORMAT_A2B10G10R10_UINT_PACK32, "A2B10G10R10_UINT_PACK32", TB_UINT, 4, { 0, 10, 20, 30 },
     { 10, 10, 10, 2 }, TBS(u), false },
   { VK_FORMAT_R16_UINT, "R16_UINT", TB_UINT, 2, C1(16), TBS(u), false },
   { VK_FORMAT_R16_SINT, "R16_SINT", TB_SINT, 2, C1(16), TBS(i), false },
   { VK_FORMAT_R16_SFLOAT, "R16_SFLOAT", TB_SFLOAT, 2, C1(16), TBS(f), false },
   { VK_FORMAT_R16G16_UINT, "R16G16_UINT", TB_UINT, 4, C2(16), TBS(u), false },
   { VK_FORMAT_R16G16_SINT, "R16G16_SINT", TB_SINT, 4, C2(16), TBS(i), false },
   { VK_FORMAT_R16G16_SFLOAT, "R16G16_SFLOAT", TB_SFLOAT, 4, C2(16), TBS(f), false },
   { VK_FORMAT_R16G16B16A16_UINT, "R16G16B16A16_UINT", TB_UINT, 8, C4(16), TBS(rgba16ui), true },
   { VK_FORMAT_R16G16B16A16_SINT, "R16G16B16A16_SINT", TB_SINT, 8, C4(16), TBS(rgba16i), true },
   { VK_FORMAT_R16G16B16A16_SFLOAT, "R16G16B16A16_SFLOAT", TB_SFLOAT, 8, C4(16), TBS(rgba16f), true },
   { VK_FORMAT_R32_UINT, "R32_UINT", TB_UINT, 4, C1(32), TBS(r32ui), true },
   { VK_FORMAT_R32_SINT, "R32_SINT", TB_SINT, 4, C1(32), TBS(r32i), true },
   { VK_FORMAT_R32_SFLOAT, "R32_SFLOAT", TB_SFLOAT, 4, C1(32), TBS(r32f), true },
   { VK_FORMAT_R32G32_UINT, "R32G32_UINT", TB_UINT, 8, C2(32), TBS(rg32ui), true },
   { VK_FORMAT_R32G32_SINT, "R32G32_SINT", TB_SINT, 8, C2(32), TBS(rg32i), true },
   { VK_FORMAT_R32G32_SFLOAT, "R32G32_SFLOAT", TB_SFLOAT, 8, C2(32), TBS(rg32f), true },
   { VK_FORMAT_R32G32B32A32_UINT, "R32G32B32A32_UINT", TB_UINT, 16, C4(32), TBS(rgba32ui), true },
   { VK_FORMAT_R32G32B32A32_SINT, "R32G32B32A32_SINT", TB_SINT, 16, C4(32), TBS(rgba32i), true },
   { VK_FORMAT_R32G32B32A32_SFLOAT, "R32G32B32A32_SFLOAT", TB_SFLOAT, 16, C4(32), TBS(rgba32f), true },
   { VK_FORMAT_B10G11R11_UFLOAT_PACK32, "B10G11R11_UFLOAT_PACK32", TB_UFLOAT, 4, { 0, 11, 22, 0 },
     { 11, 11, 10, 0 }, TBS(f), false },
   /* Not in Vulkan's mandatory table, but Shale claims them (12-byte
    * texels; zink's GL_ARB_texture_buffer_object_rgb32): held like the
    * others on Shale, and on lavapipe where it claims them. */
   { VK_FORMAT_R32G32B32_UINT, "R32G32B32_UINT", TB_UINT, 12, C3(32), TBS(u), false },
   { VK_FORMAT_R32G32B32_SINT, "R32G32B32_SINT", TB_SINT, 12, C3(32), TBS(i), false },
   { VK_FORMAT_R32G32B32_SFLOAT, "R32G32B32_SFLOAT", TB_SFLOAT, 12, C3(32), TBS(f), false },
};
#define NTBFMTS (sizeof(tbfmts) / sizeof(tbfmts[0]))

/* `bits` bits (at most 32) at bit `off` of a little-endian texel. */
static uint32_t
tb_field(const uint8_t *t, unsigned off, unsigned bits)
{
   uint64_t v = 0;
   for (unsigned i = 0; i < 5 && off / 8 + i < 16; i++)
      v |= (uint64_t)t[off / 8 + i] << (8 * i);
   v >>= off % 8;
   return (uint32_t)(bits == 32 ? v : v & ((1ull << bits) - 1));
}

/* An unsigned float with a 5-bit exponent and m mantissa bits (no sign). */
static float
tb_ufloat(uint32_t v, unsigned m)
{
   const uint32_t e = v >> m, f = v & ((1u << m) - 1);
   return e ? ldexpf(1.0f + (float)f / (float)(1u << m), (int)e - 15)
            : ldexpf((float)f / (float)(1u << m), -14);
}

/* The fetched component c of a texel, as the bits of a float, int or uint. */
static uint32_t
tb_decode(const struct tbfmt *f, const uint8_t *t, unsigned c, bool *inexact)
{
   const unsigned bits = f->bits[c];
   const bool fl = f->kind == TB_UNORM || f->kind == TB_SNORM || f->kind == TB_SFLOAT ||
                   f->kind == TB_UFLOAT;
   *inexact = false;
   float v;
   if (!bits) {
      if (c < 3)
         return 0;
      v = 1.0f;
      uint32_t one;
      memcpy(&one, &v, 4);
      return fl ? one : 1;
   }
   const uint32_t raw = tb_field(t, f->off[c], bits);
   switch (f->kind) {
   case TB_UINT:
      return raw;
   case TB_SINT:
      return bits == 32 ? raw : (uint32_t)((int32_t)(raw << (32 - bits)) >> (32 - bits));
   case TB_UNORM:
      *inexact = true;
      v = (float)((double)raw / (double)((1u << bits) - 1));
      break;
   case TB_SNORM: {
      *inexact = true;
      const int32_t sv = (int32_t)(raw << (32 - bits)) >> (32 - bits);
      const double q = (double)sv / (double)((1u << (bits - 1)) - 1);
      v = (float)(q < -1.0 ? -1.0 : q);
      break;
   }
   case TB_SFLOAT:
      if (bits == 32)
         return raw;
      v = (raw & 0x8000 ? -1.0f : 1.0f) * tb_ufloat(raw & 0x7fff, 10);
      break;
   default:   /* TB_UFLOAT: 11 bits (6 of mantissa) or 10 (5) */
      v = tb_ufloat(raw, bits - 5);
      break;
   }
   uint32_t out;
   memcpy(&out, &v, 4);
   return out;
}

/* Random texel bytes every conversion round-trips: no SNORM most-negative
 * value, floats finite and normal (or zero). */
static void
tb_gen(const struct tbfmt *f, uint8_t *t)
{
   for (unsigned i = 0; i < f->size; i++)
      t[i] = (uint8_t)(rnd() >> 5);
   for (unsigned c = 0; c < 4; c++) {
      const unsigned b = f->bits[c], o = f->off[c];
      if (!b)
         continue;
      if (f->kind == TB_SNORM && tb_field(t, o, b) == 1u << (b - 1))
         t[o / 8] ^= 1;   /* -128 -> -127 */
      if (f->kind == TB_SFLOAT && b == 16) {
         uint16_t h = (uint16_t)((rnd() & 0x83ffu) | ((1u + rnd() % 30u) << 10));
         memcpy(t + o / 8, &h, 2);
      }
      if (f->kind == TB_SFLOAT && b == 32) {
         uint32_t w = (rnd() & 0x807fffffu) | ((100u + rnd() % 50u) << 23);
         memcpy(t + o / 8, &w, 4);
      }
   }
   if (f->kind == TB_UFLOAT) {   /* exponents below 31 (no Inf/NaN) */
      uint32_t w = 0;
      for (unsigned c = 0; c < 3; c++) {
         const unsigned m = f->bits[c] - 5;
         w |= (((rnd() % 31u) << m) | (rnd() & ((1u << m) - 1))) << f->off[c];
      }
      memcpy(t, &w, 4);
   }
}

static void
run_texel_buffer_format(struct ctx *c, const struct tbfmt *f)
{
   struct vkt *t = &c->t;
   const bool shale = !strcmp(c->name, vkt_driver_name(VKT_SHALE));
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t->pdev, f->format, &fp);
   VkFormatFeatureFlags need = VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT;
   if (f->storage)
      need |= VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_BIT;
   if (f->format == VK_FORMAT_R32_UINT || f->format == VK_FORMAT_R32_SINT)
      need |= VK_FORMAT_FEATURE_STORAGE_TEXEL_BUFFER_ATOMIC_BIT;
   if ((fp.bufferFeatures & need) != need) {
      CHECK(!shale, "%s: %s: mandatory buffer features %#x, claimed %#x", c->name, f->name, need,
            fp.bufferFeatures);
      return;
   }
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(t->pdev, &props);
   const VkDeviceSize align = props.limits.minTexelBufferOffsetAlignment;
   const VkDeviceSize off = (align > 16 ? align : 16) * 2, tail = 48;
   const VkDeviceSize size = off + TB_N * f->size + tail;
   const unsigned nbuf = f->storage ? 2 : 1;
   struct vkt_buffer bufs[2], out_buf;
   VkBufferView views[2];
   uint8_t *expect = malloc(size);
   for (unsigned i = 0; i < nbuf; i++) {
      CHECK(vkt_buffer_create(t, size, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT |
                                 (f->storage ? VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT : 0),
                              &bufs[i]) == VK_SUCCESS, "buf");
      uint8_t *m = bufs[i].map;
      for (VkDeviceSize k = 0; k < size; k++)
         m[k] = (uint8_t)(k * 29 + 11 * i + 3);
      if (i == 0)
         for (unsigned k = 0; k < TB_N; k++)
            tb_gen(f, m + off + (size_t)k * f->size);
      VkBufferViewCreateInfo vi = { VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO, NULL, 0,
                                    bufs[i].buffer, f->format, off, TB_N * f->size };
      CHECK(vkCreateBufferView(t->device, &vi, NULL, &views[i]) == VK_SUCCESS, "%s: %s view",
            c->name, f->name);
   }
   if (f->storage) {
      memcpy(expect, bufs[1].map, size);
      for (unsigned k = 0; k < TB_N; k++)
         memcpy(expect + off + (size_t)k * f->size,
                (uint8_t *)bufs[0].map + off + (size_t)(TB_N - 1 - k) * f->size, f->size);
   }
   const size_t out_size = 16 + 32 * 16;   /* std430: fetched[] at offset 16 */
   CHECK(vkt_buffer_create(t, out_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out_buf) == VK_SUCCESS,
         "buf");
   memset(out_buf.map, 0, out_size);

   VkDescriptorSetLayoutBinding b[4];
   uint32_t nb = 0;
   b[nb++] = (VkDescriptorSetLayoutBinding) { 0, VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   if (f->storage)
      for (uint32_t i = 1; i < 3; i++)
         b[nb++] = (VkDescriptorSetLayoutBinding) { i, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER, 1,
                                                    VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   b[nb++] = (VkDescriptorSetLayoutBinding) { 3, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                              VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   VkDescriptorSetLayout sl;
   VkPipelineLayout pl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipeline pipe = make_kernel(t, f->spv, f->spv_size, b, nb, &sl, &pl, &pool, &set);
   VkWriteDescriptorSet w[4];
   const VkDescriptorBufferInfo bi = { out_buf.buffer, 0, VK_WHOLE_SIZE };
   for (uint32_t i = 0; i < nb; i++) {
      const uint32_t bind = b[i].binding;
      w[i] = (VkWriteDescriptorSet) { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                                      .dstBinding = bind, .descriptorCount = 1,
                                      .descriptorType = b[i].descriptorType,
                                      .pBufferInfo = bind == 3 ? &bi : NULL,
                                      .pTexelBufferView = bind == 3 ? NULL
                                                          : &views[bind == 2 ? 1 : 0] };
   }
   vkUpdateDescriptorSets(t->device, nb, w, 0, NULL);
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cb, 1, 1, 1);
   host_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: %s submit", c->name, f->name);

   const int32_t *sizes = out_buf.map;
   CHECK(sizes[0] == TB_N && (!f->storage || sizes[1] == TB_N), "%s: %s sizes %d %d", c->name,
         f->name, sizes[0], sizes[1]);
   const uint32_t *fetched = (const uint32_t *)(sizes + 4);
   unsigned bad = 0;
   for (unsigned k = 0; k < 32; k++) {
      for (unsigned ch = 0; ch < 4; ch++) {
         const uint32_t got = fetched[k * 4 + ch];
         bool inexact = false;
         const uint32_t want =
            k < TB_N ? tb_decode(f, (uint8_t *)bufs[0].map + off + (size_t)k * f->size, ch, &inexact)
                     : 0;
         float gf, wf;
         memcpy(&gf, &got, 4);
         memcpy(&wf, &want, 4);
         /* Normalized values: within 2 ulp of the exactly rounded value. */
         const bool ok = got == want || (inexact && fabsf(gf - wf) <= 2.0f * ldexpf(1.0f, -23) *
                                                                            fmaxf(fabsf(wf), 0.5f));
         if (!ok && bad++ < 4)
            fprintf(stderr, "%s: %s texelFetch %u.%u = %#x, want %#x\n", c->name, f->name, k, ch,
                    got, want);
      }
   }
   CHECK(bad == 0, "%s: %s: %u fetched components differ from the reference", c->name, f->name,
         bad);
   if (f->storage)
      CHECK(!memcmp(bufs[1].map, expect, size),
            "%s: %s: storage texel buffer copy differs from the reference", c->name, f->name);

   destroy_kernel(t, pipe, sl, pl, pool);
   for (unsigned i = 0; i < nbuf; i++) {
      vkDestroyBufferView(t->device, views[i], NULL);
      vkt_buffer_destroy(t, &bufs[i]);
   }
   vkt_buffer_destroy(t, &out_buf);
   free(expect);
}

static void
run_texel_buffer_formats(struct ctx *c)
{
   rng_state = 4242;
   for (unsigned i = 0; i < NTBFMTS; i++)
      run_texel_buffer_format(c, &tbfmts[i]);
}

int
main(void)
{
   uint8_t *blobs[2][NFMTS] = { { 0 } };
   size_t sizes[2][NFMTS] = { { 0 } };
   bool ran[2] = { false, false };
   for (int d = 0; d < 2; d++) {
      struct ctx c = { .name = vkt_driver_name(d ? VKT_LAVAPIPE : VKT_SHALE) };
      struct vkt_options o = { .driver = d ? VKT_LAVAPIPE : VKT_SHALE };
      if (!vkt_init(&c.t, &o)) {
         CHECK(d == 1, "Shale device missing");
         continue;
      }
      ran[d] = true;
      for (unsigned i = 0; i < NFMTS; i++)
         run_format(&c, &fmts[i], &blobs[d][i], &sizes[d][i]);
      run_atomics(&c);
      run_texel_buffers(&c);
      run_texel_buffer_formats(&c);
      vkt_finish(&c.t);
   }
   if (ran[0] && ran[1])
      for (unsigned i = 0; i < NFMTS; i++)
         CHECK(sizes[0][i] == sizes[1][i] && !memcmp(blobs[0][i], blobs[1][i], sizes[0][i]),
               "%s: Shale and lavapipe stored different texels", fmts[i].name);
   for (int d = 0; d < 2; d++)
      for (unsigned i = 0; i < NFMTS; i++)
         free(blobs[d][i]);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
