/* OpImageQueryLod (textureQueryLod) in a fragment shader, through the loader
 * with the validation layer, on Shale and (when present) lavapipe: a 64x64
 * image of 7 levels sampled at uv = window position / 16 * (sx, sy), so
 * the implicit LOD is lambda = log2(64 / 16 * max(sx, sy)) at every pixel
 * (the spec's rho_x, rho_y with the quad's derivatives); each result is
 * compared with a CPU reference of the spec's formulas: the level accessed
 * (clamp of lambda to the sampler's [minLod, maxLod], then to [0, q]) and
 * lambda' (with the sampler's bias, unclamped), within 1/256 on Shale;
 * lavapipe approximates log2 (0.04 off at log2(6)), which the spec's LOD
 * approximations allow, and is held to 1/16. Cases:
 * magnification (negative lambda), levels inside the chain, past the last
 * level, anisotropic scales, a sampler LOD range, a sampler bias. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "fullscreen_vert_spv.h"
#include "query_lod_frag_spv.h"

#define SIZE 8
#define LEVELS 7

struct qcase {
   float sx, sy;
   int sampler;   /* 0: [0, none], 1: [1, 3], 2: bias 1 */
};

static const struct {
   float min_lod, max_lod, bias;
} samplers[3] = { { 0.0f, VK_LOD_CLAMP_NONE, 0.0f }, { 1.0f, 3.0f, 0.0f }, { 0.0f, 100.0f, 1.0f } };

static void
reference(const struct qcase *c, double out[2])
{
   double lambda = log2(64.0 / 16.0 * (c->sx > c->sy ? c->sx : c->sy)) + samplers[c->sampler].bias;
   out[1] = lambda;
   double l = fmin(fmax(lambda, samplers[c->sampler].min_lod), samplers[c->sampler].max_lod);
   out[0] = fmin(fmax(l, 0.0), LEVELS - 1);
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { 64, 64, 1 },
      .mipLevels = LEVELS,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   struct vkt_image img = { 0 };
   VkResult r = vkt_image_create(t, &ici, &img);
   CHECK(r == VK_SUCCESS, "%s: image: %d", drv, r);
   if (r != VK_SUCCESS)
      return;
   /* Contents do not matter to the query; cleared so they are defined. */
   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkClearColorValue cc = { { 0.5f, 0.5f, 0.5f, 1.0f } };
   VkImageSubresourceRange all = { VK_IMAGE_ASPECT_COLOR_BIT, 0, LEVELS, 0, 1 };
   vkCmdClearColorImage(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cc, 1, &all);
   vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
   r = vkt_submit_wait(t, cb);
   CHECK(r == VK_SUCCESS, "%s: clear: %d", drv, r);
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = all,
   };
   VkImageView view = VK_NULL_HANDLE;
   vkCreateImageView(t->device, &vci, NULL, &view);
   VkSampler smp[3] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
   for (int i = 0; i < 3; i++) {
      VkSamplerCreateInfo sci = {
         .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
         .magFilter = VK_FILTER_LINEAR,
         .minFilter = VK_FILTER_LINEAR,
         .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
         .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
         .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
         .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
         .mipLodBias = samplers[i].bias,
         .minLod = samplers[i].min_lod,
         .maxLod = samplers[i].max_lod,
      };
      vkCreateSampler(t->device, &sci, NULL, &smp[i]);
   }
   VkDescriptorSetLayout sl = VK_NULL_HANDLE;
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   r = draw_single_set(t, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_SHADER_STAGE_FRAGMENT_BIT,
                       &sl, &pool, &set);
   CHECK(r == VK_SUCCESS, "%s: set: %d", drv, r);
   struct draw_target dt = {
      .color_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = SIZE, .height = SIZE,
   };
   struct draw_pipeline_info pi = {
      .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
      .fs = query_lod_frag_spv, .fs_size = sizeof(query_lod_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .push_size = 20,
      .set_layout = sl,
   };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   bool ok = r == VK_SUCCESS && draw_target_create(t, &dt) == VK_SUCCESS &&
             draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
   CHECK(ok, "%s: target and textureQueryLod pipeline", drv);
   static const struct qcase cases[] = {
      { 1.0f / 64.0f, 1.0f / 64.0f, 0 },   /* lambda -4: magnified */
      { 0.25f, 0.25f, 0 },                 /* 0 */
      { 1.0f, 1.0f, 0 },                   /* 2 */
      { 1.5f, 1.5f, 0 },                   /* log2(6) */
      { 3.0f, 0.5f, 0 },                   /* anisotropic: x decides */
      { 0.5f, 5.0f, 0 },                   /* anisotropic: y decides */
      { 64.0f, 64.0f, 0 },                 /* 8: past the last level */
      { 1.0f / 64.0f, 1.0f / 64.0f, 1 },   /* minLod 1 */
      { 1.5f, 1.5f, 1 },                   /* inside [1, 3] */
      { 64.0f, 64.0f, 1 },                 /* maxLod 3 */
      { 1.0f, 1.0f, 2 },                   /* bias 1: 3 */
      { 1.0f / 32.0f, 1.0f / 32.0f, 2 },   /* bias 1: -2 */
   };
   for (unsigned c = 0; ok && c < sizeof(cases) / sizeof(cases[0]); c++) {
      VkDescriptorImageInfo ii = { smp[cases[c].sampler], view,
                                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
      VkWriteDescriptorSet w = {
         .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0,
         .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
         .pImageInfo = &ii,
      };
      vkUpdateDescriptorSets(t->device, 1, &w, 0, NULL);
      VkCommandBuffer cmd = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
      float push[5] = { cases[c].sx, cases[c].sy, 0, 0, 0.5f };
      vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 20, push);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0, NULL);
      vkCmdDraw(cmd, 3, 1, 0, 0);
      r = draw_end(t, &dt, cmd);
      CHECK(r == VK_SUCCESS, "%s: case %u draw: %d", drv, c, r);
      double ref[2];
      reference(&cases[c], ref);
      const float *got = dt.readback.map;
      unsigned wrong = 0;
      const double tol = t->driver == VKT_SHALE ? 1.0 / 256.0 : 1.0 / 16.0;
      for (int i = 0; i < SIZE * SIZE; i++)
         for (int k = 0; k < 2; k++)
            if (!(fabs(got[4 * i + k] - ref[k]) <= tol) && wrong++ < 2)
               printf("%s: case %u (scale %g, %g, sampler %d) pixel %d: (%g, %g), expected "
                      "(%g, %g)\n", drv, c, cases[c].sx, cases[c].sy, cases[c].sampler, i,
                      got[4 * i], got[4 * i + 1], ref[0], ref[1]);
      CHECK(wrong == 0, "%s: textureQueryLod case %u: %u components differ", drv, c, wrong);
   }
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl, NULL);
   for (int i = 0; i < 3; i++)
      vkDestroySampler(t->device, smp[i], NULL);
   vkDestroyImageView(t->device, view, NULL);
   vkt_image_destroy(t, &img);
}

int
main(void)
{
   for (int d = 0; d < 2; d++) {
      struct vkt_options opts = { .driver = d ? VKT_LAVAPIPE : VKT_SHALE };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
