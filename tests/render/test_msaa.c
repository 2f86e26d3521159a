/* 4x multisampling: coverage per sample, resolves, sample masks, alpha to coverage/one, sample shading, sample built-ins, MSAA depth. */
/*
 * Every case draws into a 4-sample R32G32B32A32_SFLOAT attachment (and a
 * 4-sample D32_SFLOAT one for depth) resolved by the subpass into a
 * one-sample attachment, which is read back. A resolve averages the
 * samples, so a float attachment gives exact quarters: with the pipeline's
 * sample mask 1 << s, a white triangle over black resolves to 0.25 exactly
 * where sample s is covered, which a CPU reference decides from Vulkan's
 * standard 4x positions and the top-left rule in 1/256-pixel fixed point
 * (samples exactly on an edge are left out of the comparison and counted).
 * Cases: coverage of each sample and of all four; vkCmdResolveImage of
 * the 4-sample image equals the resolve attachment; the pipeline's sample
 * mask with a shader SampleMask output; SampleMaskIn; SampleId and
 * SamplePosition (sampleRateShading: the shader runs per sample); a smooth
 * input at the pixel centre, and at each sample when decorated Sample (u^2
 * averaged, within 1e-5); minSampleShading 1.0 (SampleMaskIn holds one
 * sample per invocation); alpha to
 * coverage at alpha 0 and 1 (the mask for other values is the
 * implementation's); alpha to one (alphaToOne); a LESS depth test per sample
 * against a tilted triangle; an EQUAL stencil test per sample
 * (D32_SFLOAT_S8_UINT); a render pass without attachments at 4 samples,
 * whose fragment shader counts covered samples and fragments with atomics. The same cases run on lavapipe against the
 * same references when it is present. The framebuffer sample counts must
 * include 4.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "ms_const_frag_spv.h"
#include "ms_count_frag_spv.h"
#include "ms_mask_in_frag_spv.h"
#include "ms_mask_out_frag_spv.h"
#include "ms_sample_id_frag_spv.h"
#include "ms_sample_pos_frag_spv.h"
#include "ms_plain_vert_spv.h"
#include "ms_varying_frag_spv.h"
#include "ms_varying_sample_frag_spv.h"
#include "ms_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define SIZE 16
#define FMT VK_FORMAT_R32G32B32A32_SFLOAT

static const float sample_pos[4][2] = {
   { 0.375f, 0.125f }, { 0.875f, 0.375f }, { 0.125f, 0.625f }, { 0.625f, 0.875f },
};

/* ---- target: 4x colour (+ 4x depth) resolved into 1x ---- */

struct ms_target {
   bool depth;
   bool stencil;                /* the depth attachment is D32_SFLOAT_S8_UINT */
   struct vkt_image ms, resolved, depth_img, copy;
   VkImageView ms_view, resolved_view, depth_view;
   VkRenderPass render_pass;
   VkFramebuffer framebuffer;
   struct vkt_buffer readback, readback_copy;
};

static VkResult
image(struct vkt *t, VkFormat f, VkSampleCountFlagBits samples, VkImageUsageFlags usage,
      VkImageAspectFlags aspect, struct vkt_image *img, VkImageView *view)
{
   return draw_image_create(t, f, SIZE, SIZE, samples, usage, aspect, img, view);
}

static VkResult
ms_target_create(struct vkt *t, struct ms_target *mt)
{
   VkResult r;
   if ((r = image(t, FMT, VK_SAMPLE_COUNT_4_BIT,
                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                  VK_IMAGE_ASPECT_COLOR_BIT, &mt->ms, &mt->ms_view)) != VK_SUCCESS ||
       (r = image(t, FMT, VK_SAMPLE_COUNT_1_BIT,
                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                  VK_IMAGE_ASPECT_COLOR_BIT, &mt->resolved, &mt->resolved_view)) != VK_SUCCESS ||
       (r = image(t, FMT, VK_SAMPLE_COUNT_1_BIT,
                  VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                  VK_IMAGE_ASPECT_COLOR_BIT, &mt->copy, NULL)) != VK_SUCCESS)
      return r;
   const VkFormat dfmt = mt->stencil ? VK_FORMAT_D32_SFLOAT_S8_UINT : VK_FORMAT_D32_SFLOAT;
   if (mt->depth &&
       (r = image(t, dfmt, VK_SAMPLE_COUNT_4_BIT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                  VK_IMAGE_ASPECT_DEPTH_BIT |
                     (mt->stencil ? VK_IMAGE_ASPECT_STENCIL_BIT : 0),
                  &mt->depth_img, &mt->depth_view)) != VK_SUCCESS)
      return r;
   VkAttachmentDescription att[3] = {
      { .format = FMT, .samples = VK_SAMPLE_COUNT_4_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { .format = FMT, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { .format = dfmt, .samples = VK_SAMPLE_COUNT_4_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
   };
   VkAttachmentReference color = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference resolve = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference depth = { 2, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &color,
      .pResolveAttachments = &resolve,
      .pDepthStencilAttachment = mt->depth ? &depth : NULL,
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = mt->depth ? 3 : 2,
      .pAttachments = att,
      .subpassCount = 1,
      .pSubpasses = &sub,
      .dependencyCount = 1,
      .pDependencies = &draw_dep_color_to_transfer,
   };
   if ((r = vkCreateRenderPass(t->device, &rpci, NULL, &mt->render_pass)) != VK_SUCCESS)
      return r;
   VkImageView views[3] = { mt->ms_view, mt->resolved_view, mt->depth_view };
   if ((r = draw_framebuffer(t, mt->render_pass, views, mt->depth ? 3 : 2, SIZE, SIZE, 1,
                             &mt->framebuffer)) != VK_SUCCESS)
      return r;
   if ((r = vkt_buffer_create(t, SIZE * SIZE * 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              &mt->readback)) != VK_SUCCESS)
      return r;
   return vkt_buffer_create(t, SIZE * SIZE * 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            &mt->readback_copy);
}

static void
ms_target_destroy(struct vkt *t, struct ms_target *mt)
{
   vkDestroyFramebuffer(t->device, mt->framebuffer, NULL);
   vkDestroyRenderPass(t->device, mt->render_pass, NULL);
   vkDestroyImageView(t->device, mt->ms_view, NULL);
   vkDestroyImageView(t->device, mt->resolved_view, NULL);
   vkDestroyImageView(t->device, mt->depth_view, NULL);
   vkt_image_destroy(t, &mt->ms);
   vkt_image_destroy(t, &mt->resolved);
   vkt_image_destroy(t, &mt->copy);
   vkt_image_destroy(t, &mt->depth_img);
   vkt_buffer_destroy(t, &mt->readback);
   vkt_buffer_destroy(t, &mt->readback_copy);
}

/* ---- pipelines ---- */

static const VkViewport full_viewport = { 0, 0, SIZE, SIZE, 0, 1 };
static const VkRect2D full_scissor = { { 0, 0 }, { SIZE, SIZE } };

struct ms_pipe_info {
   const uint32_t *fs;
   size_t fs_size;
   uint32_t sample_mask;        /* 0: none given */
   bool sample_shading;
   float min_sample_shading;
   bool alpha_to_coverage, alpha_to_one;
   bool depth;                  /* LESS test and write */
   int stencil;                 /* 1: ALWAYS, REPLACE with 1; 2: EQUAL 1, KEEP */
   bool varying;                /* the vertex shader with the v_u output */
};

static VkResult
ms_pipe_create(struct vkt *t, const struct ms_target *mt, const struct ms_pipe_info *info,
               struct draw_pipeline *p)
{
   VkSampleMask mask = info->sample_mask;
   VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT,
      .sampleShadingEnable = info->sample_shading,
      .minSampleShading = info->min_sample_shading,
      .pSampleMask = info->sample_mask ? &mask : NULL,
      .alphaToCoverageEnable = info->alpha_to_coverage,
      .alphaToOneEnable = info->alpha_to_one,
   };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = info->depth,
      .depthWriteEnable = info->depth,
      .depthCompareOp = VK_COMPARE_OP_LESS,
      .stencilTestEnable = info->stencil != 0,
      .front = {
         .failOp = VK_STENCIL_OP_KEEP, .passOp = VK_STENCIL_OP_REPLACE,
         .depthFailOp = VK_STENCIL_OP_KEEP,
         .compareOp = info->stencil == 1 ? VK_COMPARE_OP_ALWAYS : VK_COMPARE_OP_EQUAL,
         .compareMask = 0xff, .writeMask = info->stencil == 1 ? 0xff : 0, .reference = 1,
      },
   };
   ds.back = ds.front;
   struct draw_pipeline_info di = {
      .vs = info->varying ? ms_vert_spv : ms_plain_vert_spv,
      .vs_size = info->varying ? sizeof(ms_vert_spv) : sizeof(ms_plain_vert_spv),
      .fs = info->fs,
      .fs_size = info->fs_size,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = VK_CULL_MODE_NONE,
      .push_size = 64,
      .depth_stencil = mt->depth ? &ds : NULL,
      .multisample = &ms,
      .viewport = &full_viewport,
      .scissor = &full_scissor,
      .render_pass = mt->render_pass,
      .color_count = 1,
   };
   return draw_pipeline_create(t, NULL, &di, p);
}

/* A triangle in window coordinates (z per vertex) and a colour. */
struct tri {
   float x[3], y[3], z[3];
   float color[4];
};

static void
push_tri(VkCommandBuffer cb, const struct draw_pipeline *p, const struct tri *tr)
{
   float push[16];
   for (int i = 0; i < 3; i++) {
      push[4 * i + 0] = tr->x[i] / SIZE * 2.0f - 1.0f;
      push[4 * i + 1] = tr->y[i] / SIZE * 2.0f - 1.0f;
      push[4 * i + 2] = tr->z[i];
      push[4 * i + 3] = 1.0f;
   }
   memcpy(push + 12, tr->color, 16);
   vkCmdPushConstants(cb, p->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                      0, 64, push);
}

/* Draws each (pipeline, triangle) pair in one render pass, then reads the
 * resolve attachment back into mt->readback and the vkCmdResolveImage of
 * the 4-sample image into mt->readback_copy. */
static bool
ms_draw(struct vkt *t, struct ms_target *mt, const struct draw_pipeline *const *pipes,
        const struct tri *tris, uint32_t n)
{
   VkCommandBuffer cb = vkt_begin(t);
   VkClearValue clears[3] = { { .color = { { 0, 0, 0, 0 } } }, { .color = { { 0 } } },
                              { .depthStencil = { 1.0f, 0 } } };
   VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = mt->render_pass,
      .framebuffer = mt->framebuffer,
      .renderArea = { { 0, 0 }, { SIZE, SIZE } },
      .clearValueCount = 3,
      .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   for (uint32_t i = 0; i < n; i++) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipes[i]->pipeline);
      push_tri(cb, pipes[i], &tris[i]);
      vkCmdDraw(cb, 3, 1, 0, 0);
   }
   vkCmdEndRenderPass(cb);
   vkt_image_barrier(cb, mt->copy.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkImageResolve res = {
      .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .extent = { SIZE, SIZE, 1 },
   };
   vkCmdResolveImage(cb, mt->ms.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, mt->copy.image,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &res);
   vkt_image_barrier(cb, mt->copy.image, VK_IMAGE_ASPECT_COLOR_BIT,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   draw_copy_to_buffer(cb, mt->resolved.image, VK_IMAGE_ASPECT_COLOR_BIT, SIZE, SIZE,
                       mt->readback.buffer, 0);
   draw_copy_to_buffer(cb, mt->copy.image, VK_IMAGE_ASPECT_COLOR_BIT, SIZE, SIZE,
                       mt->readback_copy.buffer, 0);
   draw_host_barrier(cb);
   return vkt_submit_wait(t, cb) == VK_SUCCESS;
}

/* ---- the CPU reference ---- */

/* Whether the sample at window (sx, sy) is inside the triangle (top-left
 * rule, vertices snapped to 1/256 pixel): 1 inside, 0 outside, -1 exactly
 * on an edge that the rule decides (left out of comparisons). */
static int
ref_inside(const struct tri *tr, double sx, double sy)
{
   int64_t X[3], Y[3];
   for (int i = 0; i < 3; i++) {
      X[i] = llround(tr->x[i] * 256.0);
      Y[i] = llround(tr->y[i] * 256.0);
   }
   int64_t px = llround(sx * 256.0), py = llround(sy * 256.0);
   int64_t area = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
   if (area == 0)
      return 0;
   for (int i = 0; i < 3; i++) {
      int j = (i + 1) % 3;
      int64_t e = (X[j] - X[i]) * (py - Y[i]) - (Y[j] - Y[i]) * (px - X[i]);
      if (area < 0)
         e = -e;
      if (e < 0)
         return 0;
      if (e == 0)
         return -1;
   }
   return 1;
}

/* Coverage of pixel (x, y): bit s for each covered sample; *tie set when a
 * sample lies on an edge. */
static uint32_t
ref_coverage(const struct tri *tr, int x, int y, bool *tie)
{
   uint32_t m = 0;
   for (int s = 0; s < 4; s++) {
      int in = ref_inside(tr, x + sample_pos[s][0], y + sample_pos[s][1]);
      if (in < 0)
         *tie = true;
      if (in > 0)
         m |= 1u << s;
   }
   return m;
}

static unsigned
popcount4(uint32_t m)
{
   return (m & 1) + ((m >> 1) & 1) + ((m >> 2) & 1) + ((m >> 3) & 1);
}

/* A triangle with edges of every orientation through the 16x16 target. */
static const struct tri big_tri = {
   .x = { 1.33203125f, 14.80078125f, 5.12109375f },
   .y = { 2.05078125f, 6.44140625f, 15.19140625f },
   .z = { 0.5f, 0.5f, 0.5f },
   .color = { 1.0f, 1.0f, 1.0f, 1.0f },
};

/* Compares the readback with want(x, y, c) over the pixels without ties.
 * Returns the number of wrong components. */
typedef float (*want_fn)(const void *ctx, int x, int y, int c, bool *skip);

static unsigned
compare_image(const char *driver, const char *what, const float *got, want_fn want,
              const void *ctx, float tol)
{
   unsigned bad = 0, skipped = 0;
   for (int y = 0; y < SIZE; y++) {
      for (int x = 0; x < SIZE; x++) {
         for (int c = 0; c < 4; c++) {
            bool skip = false;
            float w = want(ctx, x, y, c, &skip);
            if (skip) {
               skipped++;
               continue;
            }
            float g = got[(y * SIZE + x) * 4 + c];
            if (!(fabsf(g - w) <= tol)) {
               if (bad < 4)
                  fprintf(stderr, "%s: %s: pixel (%d, %d) component %d: %g, want %g\n", driver,
                          what, x, y, c, g, w);
               bad++;
            }
         }
      }
   }
   if (skipped)
      printf("%s: %s: %u components with a sample on an edge left out\n", driver, what, skipped);
   return bad;
}

struct cov_ctx {
   const struct tri *tr;
   uint32_t mask;              /* samples that may be written */
   const float *value;         /* per sample s: value[4 * s + c] when covered */
};

static float
want_coverage(const void *vctx, int x, int y, int c, bool *skip)
{
   const struct cov_ctx *ctx = vctx;
   uint32_t m = ref_coverage(ctx->tr, x, y, skip) & ctx->mask;
   float sum = 0.0f;
   for (int s = 0; s < 4; s++)
      if (m & (1u << s))
         sum += ctx->value[4 * s + c];
   return sum / 4.0f;
}

/* ---- the cases ---- */

static unsigned
run_case(struct vkt *t, struct ms_target *mt, const char *what, const struct ms_pipe_info *pi,
         const struct tri *tr, want_fn want, const void *ctx, float tol)
{
   struct draw_pipeline p;
   const struct draw_pipeline *pp = &p;
   unsigned bad = 0;
   bool ok = ms_pipe_create(t, mt, pi, &p) == VK_SUCCESS && ms_draw(t, mt, &pp, tr, 1);
   CHECK(ok, "%s: %s drawn", vkt_driver_name(t->driver), what);
   if (ok) {
      bad = compare_image(vkt_driver_name(t->driver), what, mt->readback.map, want, ctx, tol);
      CHECK(memcmp(mt->readback.map, mt->readback_copy.map, SIZE * SIZE * 16) == 0,
            "%s: %s: vkCmdResolveImage equals the resolve attachment", vkt_driver_name(t->driver),
            what);
   }
   draw_pipeline_destroy(t, &p);
   return bad;
}

static float
want_varying(const void *vctx, int x, int y, int c, bool *skip)
{
   (void)y;
   (void)skip;
   const bool *per_sample = vctx;
   if (c >= 2)
      return c == 3 ? 1.0f : 0.0f;
   float sum = 0.0f;
   for (int s = 0; s < 4; s++) {
      float u = (x + (*per_sample ? sample_pos[s][0] : 0.5f)) / SIZE;
      sum += c == 0 ? u * u : u;
   }
   return sum / 4.0f;
}

/* Depth: a full-screen triangle at z 0.5, then a tilted one whose depth
 * falls from 1 to 0 across x: its samples pass where their depth < 0.5. */
struct depth_ctx {
   const struct tri *near_tri;
};

static float
depth_plane(float x)
{
   return 1.0f - x / SIZE;
}

static float
want_depth(const void *vctx, int x, int y, int c, bool *skip)
{
   const struct depth_ctx *ctx = vctx;
   float sum = 0.0f;
   for (int s = 0; s < 4; s++) {
      float sx = x + sample_pos[s][0];
      int in = ref_inside(ctx->near_tri, sx, y + sample_pos[s][1]);
      if (in < 0 || fabsf(depth_plane(sx) - 0.5f) < 1e-3f)
         *skip = true;
      /* first triangle: colour (0, 0, 1, 1) everywhere; second (1, 0, 0, 1) */
      bool second = in > 0 && depth_plane(sx) < 0.5f;
      static const float first_c[4] = { 0, 0, 1, 1 }, second_c[4] = { 1, 0, 0, 1 };
      sum += second ? second_c[c] : first_c[c];
   }
   return sum / 4.0f;
}

/* A render pass without attachments at 4 samples: the fragment shader
 * counts the covered samples (SampleMaskIn) and the fragments of big_tri
 * with atomics. */
static void
test_no_attachments(struct vkt *t)
{
   const char *name = vkt_driver_name(t->driver);
   VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .subpassCount = 1,
      .pSubpasses = &sub,
   };
   VkRenderPass rp;
   CHECK_VK(vkCreateRenderPass(t->device, &rpci, NULL, &rp));
   VkFramebuffer fb;
   CHECK_VK(draw_framebuffer(t, rp, NULL, 0, SIZE, SIZE, 1, &fb));
   VkDescriptorSetLayout sl;
   VkDescriptorPool dpool;
   VkDescriptorSet set;
   CHECK_VK(draw_single_set(t, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_FRAGMENT_BIT,
                            &sl, &dpool, &set));
   struct vkt_buffer buf;
   CHECK_VK(vkt_buffer_create(t, 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &buf));
   memset(buf.map, 0, 8);
   vkt_bind_buffers(t, set, NULL, &buf.buffer, 1);
   VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = VK_SAMPLE_COUNT_4_BIT,
   };
   struct draw_pipeline_info di = {
      .vs = ms_plain_vert_spv,
      .vs_size = sizeof(ms_plain_vert_spv),
      .fs = ms_count_frag_spv,
      .fs_size = sizeof(ms_count_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = VK_CULL_MODE_NONE,
      .push_size = 64,
      .set_layout = sl,
      .multisample = &ms,
      .viewport = &full_viewport,
      .scissor = &full_scissor,
      .render_pass = rp,
      .color_count = 0,
   };
   struct draw_pipeline p;
   bool ok = draw_pipeline_create(t, NULL, &di, &p) == VK_SUCCESS;
   CHECK(ok, "%s: pipeline without attachments", name);
   if (ok) {
      VkCommandBuffer cmd = vkt_begin(t);
      VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .renderPass = rp, .framebuffer = fb, .renderArea = { { 0, 0 }, { SIZE, SIZE } },
      };
      vkCmdBeginRenderPass(cmd, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0, NULL);
      push_tri(cmd, &p, &big_tri);
      vkCmdDraw(cmd, 3, 1, 0, 0);
      vkCmdEndRenderPass(cmd);
      VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_ACCESS_HOST_READ_BIT };
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                           0, 1, &mb, 0, NULL, 0, NULL);
      CHECK_VK(vkt_submit_wait(t, cmd));
      uint32_t want_samples = 0, want_frags = 0;
      bool tie = false;
      for (int y = 0; y < SIZE; y++)
         for (int x = 0; x < SIZE; x++) {
            uint32_t m = ref_coverage(&big_tri, x, y, &tie);
            want_samples += popcount4(m);
            want_frags += m != 0;
         }
      const uint32_t *got = buf.map;
      CHECK(tie || (got[0] == want_samples && got[1] == want_frags),
            "%s: no attachments, 4 samples: %u samples in %u fragments, want %u in %u", name,
            got[0], got[1], want_samples, want_frags);
   }
   draw_pipeline_destroy(t, &p);
   vkt_buffer_destroy(t, &buf);
   vkDestroyDescriptorPool(t->device, dpool, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl, NULL);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
}

static void
run_all(enum vkt_driver driver)
{
   struct vkt probe;
   const char *name = vkt_driver_name(driver);
   if (!draw_probe(driver, &probe)) {
      if (driver != VKT_LAVAPIPE)
         CHECK(false, "Shale device");
      return;
   }
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(probe.pdev, &have);
   const VkPhysicalDeviceLimits *l = &probe.props.limits;
   CHECK(l->framebufferColorSampleCounts & VK_SAMPLE_COUNT_4_BIT,
         "%s: framebufferColorSampleCounts has 4", name);
   CHECK(l->framebufferDepthSampleCounts & VK_SAMPLE_COUNT_4_BIT,
         "%s: framebufferDepthSampleCounts has 4", name);
   CHECK(l->framebufferStencilSampleCounts & VK_SAMPLE_COUNT_4_BIT,
         "%s: framebufferStencilSampleCounts has 4", name);
   CHECK(l->framebufferNoAttachmentsSampleCounts & VK_SAMPLE_COUNT_4_BIT,
         "%s: framebufferNoAttachmentsSampleCounts has 4", name);
   CHECK(l->standardSampleLocations, "%s: standardSampleLocations", name);
   CHECK(have.sampleRateShading, "%s reports sampleRateShading", name);
   CHECK(have.alphaToOne, "%s reports alphaToOne", name);
   vkt_finish(&probe);
   VkPhysicalDeviceFeatures want_f = {
      .fragmentStoresAndAtomics = have.fragmentStoresAndAtomics,
      .sampleRateShading = have.sampleRateShading,
      .alphaToOne = have.alphaToOne,
   };
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = driver, .features = &want_f })) {
      CHECK(false, "%s device", name);
      return;
   }
   struct ms_target mt = { .depth = false };
   CHECK_VK(ms_target_create(&t, &mt));
   static const float white[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
   char what[96];
   unsigned bad;

   /* Coverage of every sample, one at a time, then all of them. */
   for (uint32_t s = 0; s <= 4; s++) {
      struct ms_pipe_info pi = {
         .fs = ms_const_frag_spv, .fs_size = sizeof(ms_const_frag_spv),
         .sample_mask = s < 4 ? 1u << s : 0,
      };
      struct cov_ctx ctx = { &big_tri, s < 4 ? 1u << s : 0xf, white };
      snprintf(what, sizeof(what), "coverage of sample mask %#x", ctx.mask);
      bad = run_case(&t, &mt, what, &pi, &big_tri, want_coverage, &ctx, 0.0f);
      CHECK(bad == 0, "%s: %s (%u wrong)", name, what, bad);
   }

   /* Pipeline sample mask 0xc and a shader SampleMask of 0x6. */
   {
      struct ms_pipe_info pi = {
         .fs = ms_mask_out_frag_spv, .fs_size = sizeof(ms_mask_out_frag_spv), .sample_mask = 0xc,
      };
      struct cov_ctx ctx = { &big_tri, 0x4, white };
      bad = run_case(&t, &mt, "SampleMask output", &pi, &big_tri, want_coverage, &ctx, 0.0f);
      CHECK(bad == 0, "%s: SampleMask output and pipeline mask (%u wrong)", name, bad);
   }

   /* SampleMaskIn without sample shading: the pixel's coverage (red = mask). */
   {
      struct ms_pipe_info pi = { .fs = ms_mask_in_frag_spv, .fs_size = sizeof(ms_mask_in_frag_spv) };
      unsigned wrong = 0, compared = 0;
      struct draw_pipeline p;
      const struct draw_pipeline *pp = &p;
      bool ok = ms_pipe_create(&t, &mt, &pi, &p) == VK_SUCCESS && ms_draw(&t, &mt, &pp, &big_tri, 1);
      CHECK(ok, "%s: SampleMaskIn drawn", name);
      for (int y = 0; ok && y < SIZE; y++) {
         for (int x = 0; x < SIZE; x++) {
            bool tie = false;
            uint32_t m = ref_coverage(&big_tri, x, y, &tie);
            if (tie)
               continue;
            compared++;
            float got = ((const float *)mt.readback.map)[(y * SIZE + x) * 4];
            if (got != popcount4(m) * (float)m / 4.0f) {
               if (wrong++ < 4)
                  fprintf(stderr, "%s: SampleMaskIn pixel (%d, %d): %g, coverage %#x\n", name, x,
                          y, got, m);
            }
         }
      }
      CHECK(wrong == 0 && compared > 0, "%s: SampleMaskIn is the coverage (%u wrong)", name,
            wrong);
      draw_pipeline_destroy(&t, &p);
   }

   /* SampleId: one channel per sample; with the pipeline mask 0x5 only
    * samples 0 and 2 write. */
   {
      static const float id_value[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
      struct ms_pipe_info pi = {
         .fs = ms_sample_id_frag_spv, .fs_size = sizeof(ms_sample_id_frag_spv),
         .sample_mask = 0x5,
      };
      struct cov_ctx ctx = { &big_tri, 0x5, id_value };
      bad = run_case(&t, &mt, "SampleId", &pi, &big_tri, want_coverage, &ctx, 0.0f);
      CHECK(bad == 0, "%s: SampleId per sample (%u wrong)", name, bad);
   }

   /* SamplePosition and SampleId together. */
   {
      float pos_value[16];
      for (int s = 0; s < 4; s++) {
         pos_value[4 * s + 0] = sample_pos[s][0];
         pos_value[4 * s + 1] = sample_pos[s][1];
         pos_value[4 * s + 2] = (float)s;
         pos_value[4 * s + 3] = 1.0f;
      }
      struct ms_pipe_info pi = {
         .fs = ms_sample_pos_frag_spv, .fs_size = sizeof(ms_sample_pos_frag_spv),
      };
      struct cov_ctx ctx = { &big_tri, 0xf, pos_value };
      bad = run_case(&t, &mt, "SamplePosition", &pi, &big_tri, want_coverage, &ctx, 0.0f);
      CHECK(bad == 0, "%s: SamplePosition at the standard locations (%u wrong)", name, bad);
   }

   /* A smooth input: at the pixel centre, then (Sample-decorated) at each
    * sample. A full-screen triangle. */
   {
      static const struct tri full = {
         .x = { -16.0f, 48.0f, -16.0f }, .y = { -16.0f, -16.0f, 48.0f },
         .z = { 0.5f, 0.5f, 0.5f }, .color = { 1, 1, 1, 1 },
      };
      for (int per_sample = 0; per_sample < 2; per_sample++) {
         struct ms_pipe_info pi = {
            .fs = per_sample ? ms_varying_sample_frag_spv : ms_varying_frag_spv,
            .fs_size = per_sample ? sizeof(ms_varying_sample_frag_spv)
                                  : sizeof(ms_varying_frag_spv),
            .varying = true,
         };
         bool ps = per_sample;
         snprintf(what, sizeof(what), "smooth input %s", ps ? "at each sample" : "at the centre");
         bad = run_case(&t, &mt, what, &pi, &full, want_varying, &ps, 1e-5f);
         CHECK(bad == 0, "%s: %s (%u wrong)", name, what, bad);
      }
   }

   /* sampleRateShading with minSampleShading 1.0: one invocation per
    * sample, each seeing only its sample in SampleMaskIn (red = the sum of
    * the covered samples' bits / 4 after the resolve). */
   {
      struct ms_pipe_info pi = {
         .fs = ms_mask_in_frag_spv, .fs_size = sizeof(ms_mask_in_frag_spv),
         .sample_shading = true, .min_sample_shading = 1.0f,
      };
      static const float bits[16] = { 1, 0, 0, 1, 2, 0, 0, 1, 4, 0, 0, 1, 8, 0, 0, 1 };
      struct cov_ctx ctx = { &big_tri, 0xf, bits };
      bad = run_case(&t, &mt, "minSampleShading 1.0", &pi, &big_tri, want_coverage, &ctx, 0.0f);
      CHECK(bad == 0, "%s: minSampleShading 1.0 shades each sample alone (%u wrong)", name, bad);
   }

   /* Alpha to coverage at 0 (nothing written) and 1 (every covered sample);
    * alpha to one. */
   for (int i = 0; i < 3; i++) {
      struct tri tr = big_tri;
      float a = i == 0 ? 0.0f : i == 1 ? 1.0f : 0.3f;
      tr.color[3] = a;
      struct ms_pipe_info pi = {
         .fs = ms_const_frag_spv, .fs_size = sizeof(ms_const_frag_spv),
         .alpha_to_coverage = i < 2, .alpha_to_one = i == 2,
      };
      float value[16];
      for (int s = 0; s < 4; s++) {
         value[4 * s + 0] = value[4 * s + 1] = value[4 * s + 2] = 1.0f;
         value[4 * s + 3] = i == 2 ? 1.0f : a;
      }
      struct cov_ctx ctx = { &big_tri, i == 0 ? 0u : 0xfu, value };
      snprintf(what, sizeof(what), i < 2 ? "alpha to coverage, alpha %g" : "alpha to one", a);
      bad = run_case(&t, &mt, what, &pi, &tr, want_coverage, &ctx, 0.0f);
      CHECK(bad == 0, "%s: %s (%u wrong)", name, what, bad);
   }
   ms_target_destroy(&t, &mt);

   /* Depth per sample. */
   {
      struct ms_target md = { .depth = true };
      CHECK_VK(ms_target_create(&t, &md));
      struct tri tris[2] = {
         { .x = { -16.0f, 48.0f, -16.0f }, .y = { -16.0f, -16.0f, 48.0f },
           .z = { 0.5f, 0.5f, 0.5f }, .color = { 0, 0, 1, 1 } },
         big_tri,
      };
      /* z falls from 1 at x = 0 to 0 at x = SIZE. */
      for (int i = 0; i < 3; i++)
         tris[1].z[i] = depth_plane(tris[1].x[i]);
      memcpy(tris[1].color, (float[4]) { 1, 0, 0, 1 }, 16);
      struct ms_pipe_info pi = {
         .fs = ms_const_frag_spv, .fs_size = sizeof(ms_const_frag_spv), .depth = true,
      };
      struct draw_pipeline p;
      const struct draw_pipeline *pp[2] = { &p, &p };
      bool ok = ms_pipe_create(&t, &md, &pi, &p) == VK_SUCCESS && ms_draw(&t, &md, pp, tris, 2);
      CHECK(ok, "%s: MSAA depth drawn", name);
      struct depth_ctx ctx = { &tris[1] };
      bad = ok ? compare_image(name, "MSAA depth", md.readback.map, want_depth, &ctx, 0.0f) : 1;
      CHECK(bad == 0, "%s: LESS depth test per sample (%u wrong)", name, bad);
      draw_pipeline_destroy(&t, &p);
      ms_target_destroy(&t, &md);
   }

   /* Stencil per sample: big_tri writes stencil 1 (colour blue), then a
    * full-screen red triangle passes EQUAL 1 where big_tri covered. */
   {
      struct ms_target md = { .depth = true, .stencil = true };
      CHECK_VK(ms_target_create(&t, &md));
      struct tri tris[2] = { big_tri, {
         .x = { -16.0f, 48.0f, -16.0f }, .y = { -16.0f, -16.0f, 48.0f },
         .z = { 0.5f, 0.5f, 0.5f }, .color = { 1, 0, 0, 1 } } };
      memcpy(tris[0].color, (float[4]) { 0, 0, 1, 1 }, 16);
      struct ms_pipe_info pw = {
         .fs = ms_const_frag_spv, .fs_size = sizeof(ms_const_frag_spv), .stencil = 1,
      };
      struct ms_pipe_info pt = pw;
      pt.stencil = 2;
      struct draw_pipeline p[2];
      const struct draw_pipeline *pp[2] = { &p[0], &p[1] };
      bool ok = ms_pipe_create(&t, &md, &pw, &p[0]) == VK_SUCCESS &&
                ms_pipe_create(&t, &md, &pt, &p[1]) == VK_SUCCESS && ms_draw(&t, &md, pp, tris, 2);
      CHECK(ok, "%s: MSAA stencil drawn", name);
      static const float red[16] = { 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1 };
      struct cov_ctx ctx = { &big_tri, 0xf, red };
      bad = ok ? compare_image(name, "MSAA stencil", md.readback.map, want_coverage, &ctx, 0.0f)
               : 1;
      CHECK(bad == 0, "%s: EQUAL stencil test per sample (%u wrong)", name, bad);
      draw_pipeline_destroy(&t, &p[0]);
      draw_pipeline_destroy(&t, &p[1]);
      ms_target_destroy(&t, &md);
   }
   test_no_attachments(&t);
   vkt_finish(&t);
}

int
main(void)
{
   run_all(VKT_SHALE);
   run_all(VKT_LAVAPIPE);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
