/* VK_EXT_custom_border_color (zink needs it for GL_CLAMP_TO_BORDER): a
 * compute kernel samples 2x2 images through CLAMP_TO_BORDER samplers with
 * custom colours, inside and outside the image, nearest and linear, for
 * float, normalized, integer and depth formats, with the colour's format
 * given and left undefined (customBorderColorWithoutFormat), on Shale and
 * lavapipe, checked against a reference written from the spec's "Texel
 * Replacement" and component substitution rules. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "zink_border_f_spv.h"
#include "zink_border_i_spv.h"
#include "zink_border_u_spv.h"

#define NQ 16   /* queries per case, two workgroups of 8 */

enum ty { TY_F, TY_I, TY_U };

struct bcase {
   const char *name;
   VkFormat format;
   VkImageAspectFlags aspect;
   enum ty ty;
   unsigned channels;        /* the format's components */
   unsigned texel_size;
   VkBorderColor border;
   VkClearColorValue color;
   bool with_format;         /* VkSamplerCustomBorderColorCreateInfoEXT::format set */
   VkFilter filter;
   uint8_t texels[4][16];    /* (0,0) (1,0) (0,1) (1,1), as the format stores them */
};

/* A texel's components as the shader sees them (before substitution). */
static void
decode(const struct bcase *c, const uint8_t *p, double out[4])
{
   for (unsigned k = 0; k < 4; k++)
      out[k] = k == 3 ? 1.0 : 0.0;
   for (unsigned k = 0; k < c->channels; k++) {
      switch (c->format) {
      case VK_FORMAT_R8G8B8A8_UNORM:
      case VK_FORMAT_R8G8_UNORM:
         out[k] = p[k] / 255.0;
         break;
      case VK_FORMAT_R32G32B32A32_SFLOAT:
      case VK_FORMAT_D32_SFLOAT: {
         float f;
         memcpy(&f, p + 4 * k, 4);
         out[k] = f;
         break;
      }
      case VK_FORMAT_R32G32B32A32_UINT: {
         uint32_t u;
         memcpy(&u, p + 4 * k, 4);
         out[k] = u;
         break;
      }
      case VK_FORMAT_R32G32_SINT: {
         int32_t i;
         memcpy(&i, p + 4 * k, 4);
         out[k] = i;
         break;
      }
      default:
         break;
      }
   }
}

/* The border colour: the custom colour's components the format has, then
 * component substitution (0, 0, 0, 1) for the others. */
static void
border(const struct bcase *c, double out[4])
{
   for (unsigned k = 0; k < 4; k++) {
      if (k >= c->channels)
         out[k] = k == 3 ? 1.0 : 0.0;
      else if (c->ty == TY_F)
         out[k] = c->color.float32[k];
      else if (c->ty == TY_I)
         out[k] = c->color.int32[k];
      else
         out[k] = c->color.uint32[k];
   }
}

static void
texel(const struct bcase *c, int x, int y, double out[4])
{
   if (x < 0 || y < 0 || x > 1 || y > 1)
      border(c, out);
   else
      decode(c, c->texels[y * 2 + x], out);
}

static void
reference(const struct bcase *c, float s, float t, double out[4])
{
   double u = s * 2.0, v = t * 2.0;
   if (c->filter == VK_FILTER_NEAREST) {
      texel(c, (int)floor(u), (int)floor(v), out);
      return;
   }
   double fu = u - 0.5, fv = v - 0.5;
   int i0 = (int)floor(fu), j0 = (int)floor(fv);
   double a = fu - i0, b = fv - j0;
   double t00[4], t10[4], t01[4], t11[4];
   texel(c, i0, j0, t00);
   texel(c, i0 + 1, j0, t10);
   texel(c, i0, j0 + 1, t01);
   texel(c, i0 + 1, j0 + 1, t11);
   for (int k = 0; k < 4; k++)
      out[k] = (1 - a) * (1 - b) * t00[k] + a * (1 - b) * t10[k] + (1 - a) * b * t01[k] +
               a * b * t11[k];
}

/* Inside, on the edges, outside on every side and far away. */
static const float queries[NQ][2] = {
   { 0.25f, 0.25f }, { 0.75f, 0.25f },  { 0.25f, 0.75f }, { 0.75f, 0.75f },
   { -0.25f, 0.25f }, { 1.25f, 0.75f }, { 0.25f, -0.5f }, { 0.75f, 1.75f },
   { -3.0f, 5.0f },  { 0.0f, 0.25f },   { 1.0f, 0.75f },  { 0.5f, 0.0f },
   { 0.0f, 0.0f },   { 1.0f, 1.0f },    { 0.6f, -0.2f },  { 0.4f, 0.5f },
};

static void
put_f32(uint8_t *p, float a, float b, float c, float d)
{
   float v[4] = { a, b, c, d };
   memcpy(p, v, 16);
}

static void
put_u32(uint8_t *p, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
   uint32_t v[4] = { a, b, c, d };
   memcpy(p, v, 16);
}

static unsigned
make_cases(struct bcase *cs)
{
   unsigned n = 0;
   struct bcase c;

   c = (struct bcase) { "rgba8 unorm, nearest", VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_ASPECT_COLOR_BIT,
                        TY_F, 4, 4, VK_BORDER_COLOR_FLOAT_CUSTOM_EXT,
                        { .float32 = { 0.25f, 0.5f, 0.75f, 0.125f } }, true, VK_FILTER_NEAREST };
   for (int i = 0; i < 4; i++)
      for (int k = 0; k < 4; k++)
         c.texels[i][k] = (uint8_t)(17 + 60 * i + 40 * k);
   cs[n++] = c;

   c.name = "rgba8 unorm, linear, no format";
   c.with_format = false;
   c.filter = VK_FILTER_LINEAR;
   cs[n++] = c;

   c = (struct bcase) { "rg8 unorm, nearest", VK_FORMAT_R8G8_UNORM, VK_IMAGE_ASPECT_COLOR_BIT, TY_F,
                        2, 2, VK_BORDER_COLOR_FLOAT_CUSTOM_EXT,
                        { .float32 = { 0.75f, 0.25f, 0.5f, 0.5f } }, true, VK_FILTER_NEAREST };
   for (int i = 0; i < 4; i++)
      for (int k = 0; k < 2; k++)
         c.texels[i][k] = (uint8_t)(200 - 50 * i + 3 * k);
   cs[n++] = c;

   c = (struct bcase) { "rgba32 sfloat, linear", VK_FORMAT_R32G32B32A32_SFLOAT,
                        VK_IMAGE_ASPECT_COLOR_BIT, TY_F, 4, 16, VK_BORDER_COLOR_FLOAT_CUSTOM_EXT,
                        { .float32 = { -2.5f, 3.0f, 100.0f, 0.5f } }, true, VK_FILTER_LINEAR };
   for (int i = 0; i < 4; i++)
      put_f32(c.texels[i], 1.0f + i, -0.5f * i, 8.0f - i, 0.25f * i);
   cs[n++] = c;

   c.name = "rgba32 sfloat, nearest, no format";
   c.filter = VK_FILTER_NEAREST;
   c.with_format = false;
   cs[n++] = c;

   c = (struct bcase) { "rgba32 uint, nearest", VK_FORMAT_R32G32B32A32_UINT,
                        VK_IMAGE_ASPECT_COLOR_BIT, TY_U, 4, 16, VK_BORDER_COLOR_INT_CUSTOM_EXT,
                        { .uint32 = { 7, 300000, 0, 0x80000001u } }, true, VK_FILTER_NEAREST };
   for (int i = 0; i < 4; i++)
      put_u32(c.texels[i], 10 + i, 20 + i, 1000 * i, 5);
   cs[n++] = c;

   c = (struct bcase) { "rg32 sint, nearest, no format", VK_FORMAT_R32G32_SINT,
                        VK_IMAGE_ASPECT_COLOR_BIT, TY_I, 2, 8, VK_BORDER_COLOR_INT_CUSTOM_EXT,
                        { .int32 = { -5, 12, 99, 98 } }, false, VK_FILTER_NEAREST };
   for (int i = 0; i < 4; i++)
      put_u32(c.texels[i], (uint32_t)(-100 * i), (uint32_t)i, 0, 0);
   cs[n++] = c;

   c = (struct bcase) { "d32 sfloat, linear", VK_FORMAT_D32_SFLOAT, VK_IMAGE_ASPECT_DEPTH_BIT, TY_F,
                        1, 4, VK_BORDER_COLOR_FLOAT_CUSTOM_EXT,
                        { .float32 = { 0.625f, 0.5f, 0.5f, 0.5f } }, true, VK_FILTER_LINEAR };
   for (int i = 0; i < 4; i++)
      put_f32(c.texels[i], 0.125f * (i + 1), 0, 0, 0);
   cs[n++] = c;
   return n;
}

/* Runs one case; results[NQ][4] as the shader wrote them (as 32-bit words). */
static bool
run_case(struct vkt *t, const struct bcase *c, uint32_t (*results)[4])
{
   const char *dn = vkt_driver_name(t->driver);
   VkDevice dev = t->device;
   VkResult r;
   struct vkt_buffer staging, in, out;
   CHECK(vkt_buffer_create(t, 4 * c->texel_size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging) ==
            VK_SUCCESS, "staging");
   CHECK(vkt_buffer_create(t, NQ * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in) == VK_SUCCESS, "in");
   CHECK(vkt_buffer_create(t, NQ * 16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out) == VK_SUCCESS,
         "out");
   for (int i = 0; i < 4; i++)
      memcpy((uint8_t *)staging.map + i * c->texel_size, c->texels[i], c->texel_size);
   for (int i = 0; i < NQ; i++) {
      float q[4] = { queries[i][0], queries[i][1], 0, 0 };
      memcpy((uint8_t *)in.map + 16 * i, q, 16);
   }
   memset(out.map, 0xcd, NQ * 16);

   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
      .format = c->format, .extent = { 2, 2, 1 }, .mipLevels = 1, .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   struct vkt_image img;
   r = vkt_image_create(t, &ici, &img);
   CHECK(r == VK_SUCCESS, "%s: %s: image: %d", dn, c->name, r);
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .image = img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = c->format,
      .subresourceRange = { c->aspect, 0, 1, 0, 1 },
   };
   VkImageView view;
   CHECK(vkCreateImageView(dev, &vci, NULL, &view) == VK_SUCCESS, "%s: view", dn);
   VkSamplerCustomBorderColorCreateInfoEXT cb = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CUSTOM_BORDER_COLOR_CREATE_INFO_EXT,
      .customBorderColor = c->color,
      .format = c->with_format ? c->format : VK_FORMAT_UNDEFINED,
   };
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO, .pNext = &cb, .magFilter = c->filter,
      .minFilter = c->filter, .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER, .maxLod = VK_LOD_CLAMP_NONE,
      .borderColor = c->border,
   };
   VkSampler smp;
   CHECK(vkCreateSampler(dev, &sci, NULL, &smp) == VK_SUCCESS, "%s: sampler", dn);

   VkDescriptorSetLayoutBinding b[3] = {
      { 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 2, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   struct vkt_kernel_info ki = { .bindings = { b }, .binding_counts = { 3 } };
   if (c->ty == TY_F) {
      ki.code = zink_border_f_spv;
      ki.code_size = sizeof(zink_border_f_spv);
   } else if (c->ty == TY_I) {
      ki.code = zink_border_i_spv;
      ki.code_size = sizeof(zink_border_i_spv);
   } else {
      ki.code = zink_border_u_spv;
      ki.code_size = sizeof(zink_border_u_spv);
   }
   struct vkt_kernel kern;
   r = vkt_kernel_create(t, &ki, &kern);
   CHECK(r == VK_SUCCESS, "%s: kernel: %d", dn, r);

   VkDescriptorPoolSize sizes[2] = { { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
                                     { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 } };
   VkDescriptorPool pool;
   CHECK(vkt_descriptor_pool(t, 1, sizes, 2, 0, &pool) == VK_SUCCESS, "%s: pool", dn);
   VkDescriptorSet set;
   CHECK(vkt_alloc_sets(t, pool, kern.set_layouts, 1, &set) == VK_SUCCESS, "%s: set", dn);
   const VkImageLayout lay = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
   VkDescriptorImageInfo ii = { smp, view, lay };
   VkWriteDescriptorSet w = { VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, NULL, set, 0, 0, 1,
                              VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, &ii, NULL, NULL };
   vkUpdateDescriptorSets(dev, 1, &w, 0, NULL);
   VkDescriptorBufferInfo bi[2] = { { in.buffer, 0, VK_WHOLE_SIZE }, { out.buffer, 0, VK_WHOLE_SIZE } };
   vkt_write_buffers(t, set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bi[0], 1);
   vkt_write_buffers(t, set, 2, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &bi[1], 1);

   VkCommandBuffer cmd = vkt_begin(t);
   vkt_image_barrier(cmd, img.image, c->aspect, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkBufferImageCopy region = { .imageSubresource = { c->aspect, 0, 0, 1 },
                                .imageExtent = { 2, 2, 1 } };
   vkCmdCopyBufferToImage(cmd, staging.buffer, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                          &region);
   vkt_image_barrier(cmd, img.image, c->aspect, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, lay);
   vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kern.pipeline);
   vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kern.layout, 0, 1, &set, 0, NULL);
   vkCmdDispatch(cmd, NQ / 8, 1, 1);
   vkt_compute_barrier(cmd);
   r = vkt_submit_wait(t, cmd);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", dn, r);
   memcpy(results, out.map, NQ * 16);

   vkDestroyDescriptorPool(dev, pool, NULL);
   vkt_kernel_destroy(t, &kern);
   vkDestroySampler(dev, smp, NULL);
   vkDestroyImageView(dev, view, NULL);
   vkt_image_destroy(t, &img);
   vkt_buffer_destroy(t, &staging);
   vkt_buffer_destroy(t, &in);
   vkt_buffer_destroy(t, &out);
   return r == VK_SUCCESS;
}

static unsigned
check_case(const char *dn, const struct bcase *c, const uint32_t (*res)[4])
{
   unsigned bad = 0;
   for (unsigned i = 0; i < NQ; i++) {
      double ref[4], got[4];
      reference(c, queries[i][0], queries[i][1], ref);
      for (int k = 0; k < 4; k++) {
         if (c->ty == TY_F) {
            float f;
            memcpy(&f, &res[i][k], 4);
            got[k] = f;
         } else if (c->ty == TY_I) {
            got[k] = (int32_t)res[i][k];
         } else {
            got[k] = res[i][k];
         }
      }
      bool ok = true;
      for (int k = 0; k < 4; k++)
         ok &= fabs(got[k] - ref[k]) <= (c->ty == TY_F ? 1e-5 * (1 + fabs(ref[k])) : 0);
      if (!ok && bad++ < 4)
         fprintf(stderr, "%s: %s: (%g, %g): got (%g %g %g %g), reference (%g %g %g %g)\n", dn,
                 c->name, queries[i][0], queries[i][1], got[0], got[1], got[2], got[3], ref[0],
                 ref[1], ref[2], ref[3]);
   }
   return bad;
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceCustomBorderColorFeaturesEXT cf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT };
   VkPhysicalDeviceCustomBorderColorPropertiesEXT cp = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_PROPERTIES_EXT };
   struct vkt_options o;
   struct vkt t;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME,
                             &cf, &cp, NULL, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE) {
      CHECK(has, "shale: VK_EXT_custom_border_color not offered");
      CHECK(cf.customBorderColors && cf.customBorderColorWithoutFormat,
            "shale: features %u %u", cf.customBorderColors, cf.customBorderColorWithoutFormat);
      /* The spec's minimum is 32; every sampler may have a custom colour. */
      CHECK(cp.maxCustomBorderColorSamplers >= 32, "shale: maxCustomBorderColorSamplers %u",
            cp.maxCustomBorderColorSamplers);
   }
   if (!has || !cf.customBorderColors) {
      fprintf(stderr, "%s: no custom border colours, not run\n", dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_CUSTOM_BORDER_COLOR_EXTENSION_NAME };
   VkPhysicalDeviceCustomBorderColorFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT,
      .customBorderColors = VK_TRUE,
      .customBorderColorWithoutFormat = cf.customBorderColorWithoutFormat,
   };
   if (!draw_open_extension(&t, &o, dexts, &enable, NULL))
      return;
   struct bcase cs[16];
   unsigned n = make_cases(cs);
   for (unsigned i = 0; i < n; i++) {
      if (!cs[i].with_format && !cf.customBorderColorWithoutFormat)
         continue;
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t.pdev, cs[i].format, &fp);
      if (cs[i].filter == VK_FILTER_LINEAR &&
          !(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT)) {
         CHECK(which == VKT_LAVAPIPE, "shale: %s: no linear filtering", cs[i].name);
         continue;
      }
      uint32_t res[NQ][4];
      bool ok = run_case(&t, &cs[i], res);
      CHECK(ok, "%s: %s: ran", dn, cs[i].name);
      unsigned bad = check_case(dn, &cs[i], (const uint32_t(*)[4])res);
      CHECK(bad == 0, "%s: %s: %u of %u results differ from the reference", dn, cs[i].name, bad,
            NQ);
   }
   vkt_finish(&t);
}

int
main(void)
{
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   return draw_finish();
}
