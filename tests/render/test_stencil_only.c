/*
 * S8_UINT as a stencil-only depth/stencil attachment, through the loader
 * and the validation layer (Shale; skipped with a failure when Shale does
 * not claim the format's DEPTH_STENCIL_ATTACHMENT feature):
 *  - render pass 1 (colour R8G8B8A8 cleared to 0, stencil loadOp CLEAR to
 *    0x10, storeOp STORE): five draws, each scissored to its own rectangle,
 *    with different compare ops, references, compare and write masks and
 *    every stencil op (KEEP, ZERO, REPLACE, INCREMENT_AND_CLAMP,
 *    DECREMENT_AND_CLAMP, INVERT, INCREMENT_AND_WRAP, DECREMENT_AND_WRAP),
 *    and a vkCmdClearAttachments of the stencil aspect between them; each
 *    draw writes its own colour where its stencil test passes;
 *  - render pass 2 (stencil loadOp LOAD, colour cleared): a draw with
 *    compare LESS_OR_EQUAL against the stored values and KEEP, so its
 *    colour shows which stored values pass, and the stencil stays.
 * Both passes' stencil bytes (vkCmdCopyImageToBuffer of the stencil
 * aspect) and colours are compared with a CPU model of the ops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "fullscreen_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define W 16
#define H 16
#define CLEAR_STENCIL 0x10u

struct sdraw {
   VkRect2D rect;
   VkCompareOp compare;
   VkStencilOp fail, pass;
   uint32_t reference, compare_mask, write_mask;
};

/* The draws of pass 1, in order (the stencil clear comes after draw 1). */
static const struct sdraw draws[] = {
   { { { 0, 0 }, { 8, 16 } }, VK_COMPARE_OP_ALWAYS, VK_STENCIL_OP_KEEP,
     VK_STENCIL_OP_INCREMENT_AND_CLAMP, 0, 0xff, 0xff },
   { { { 4, 0 }, { 8, 16 } }, VK_COMPARE_OP_ALWAYS, VK_STENCIL_OP_KEEP, VK_STENCIL_OP_INVERT, 0,
     0xff, 0x0f },
   { { { 0, 0 }, { 16, 8 } }, VK_COMPARE_OP_EQUAL, VK_STENCIL_OP_DECREMENT_AND_WRAP,
     VK_STENCIL_OP_ZERO, 0x11, 0xff, 0xff },
   { { { 8, 8 }, { 8, 8 } }, VK_COMPARE_OP_GREATER, VK_STENCIL_OP_REPLACE,
     VK_STENCIL_OP_INCREMENT_AND_WRAP, 0x80, 0xff, 0xff },
   { { { 0, 0 }, { 16, 16 } }, VK_COMPARE_OP_NOT_EQUAL, VK_STENCIL_OP_INVERT,
     VK_STENCIL_OP_DECREMENT_AND_CLAMP, 0x00, 0x01, 0xff },
};
#define NDRAWS (sizeof(draws) / sizeof(draws[0]))
static const VkClearRect clear_rect = { { { 2, 2 }, { 4, 12 } }, 0, 1 };
#define CLEAR_RECT_VALUE 0x7eu
/* Pass 2: colour where ref <= stored, stencil kept. */
static const struct sdraw check_draw = { { { 0, 0 }, { 16, 16 } }, VK_COMPARE_OP_LESS_OR_EQUAL,
                                         VK_STENCIL_OP_KEEP, VK_STENCIL_OP_KEEP, 0x20, 0xff,
                                         0xff };

static bool
compare(VkCompareOp op, uint32_t a, uint32_t b)
{
   switch (op) {
   case VK_COMPARE_OP_NEVER: return false;
   case VK_COMPARE_OP_LESS: return a < b;
   case VK_COMPARE_OP_EQUAL: return a == b;
   case VK_COMPARE_OP_LESS_OR_EQUAL: return a <= b;
   case VK_COMPARE_OP_GREATER: return a > b;
   case VK_COMPARE_OP_NOT_EQUAL: return a != b;
   case VK_COMPARE_OP_GREATER_OR_EQUAL: return a >= b;
   default: return true;
   }
}

static uint8_t
stencil_op(VkStencilOp op, uint8_t s, uint8_t ref)
{
   switch (op) {
   case VK_STENCIL_OP_ZERO: return 0;
   case VK_STENCIL_OP_REPLACE: return ref;
   case VK_STENCIL_OP_INCREMENT_AND_CLAMP: return s == 0xff ? s : (uint8_t)(s + 1);
   case VK_STENCIL_OP_DECREMENT_AND_CLAMP: return s == 0 ? s : (uint8_t)(s - 1);
   case VK_STENCIL_OP_INVERT: return (uint8_t)~s;
   case VK_STENCIL_OP_INCREMENT_AND_WRAP: return (uint8_t)(s + 1);
   case VK_STENCIL_OP_DECREMENT_AND_WRAP: return (uint8_t)(s - 1);
   default: return s;
   }
}

static bool
in_rect(const VkRect2D *r, uint32_t x, uint32_t y)
{
   return (int32_t)x >= r->offset.x && x < r->offset.x + r->extent.width &&
          (int32_t)y >= r->offset.y && y < r->offset.y + r->extent.height;
}

/* Applies d to the model: the stencil s and the colour index c (d's index
 * + 1 where the test passes). */
static void
model_draw(const struct sdraw *d, uint32_t index, uint8_t *s, uint8_t *c)
{
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         if (!in_rect(&d->rect, x, y))
            continue;
         uint8_t *p = &s[y * W + x];
         bool pass = compare(d->compare, d->reference & d->compare_mask, *p & d->compare_mask);
         uint8_t v = stencil_op(pass ? d->pass : d->fail, *p, (uint8_t)d->reference);
         *p = (uint8_t)((v & d->write_mask) | (*p & ~d->write_mask));
         if (pass)
            c[y * W + x] = (uint8_t)(index + 1);
      }
   }
}

/* Colour of draw index i (1-based; 0: the clear). */
static void
color_of(uint32_t i, float out[4])
{
   out[0] = (float)i / 8.0f;
   out[1] = 0.25f;
   out[2] = (float)(i & 1);
   out[3] = 1.0f;
}

static VkRenderPass
make_pass(struct vkt *t, VkAttachmentLoadOp stencil_load)
{
   VkAttachmentDescription att[2] = {
      { .format = VK_FORMAT_R8G8B8A8_UNORM, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR, .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
        .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { .format = VK_FORMAT_S8_UINT, .samples = VK_SAMPLE_COUNT_1_BIT,
        .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE, .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
        .stencilLoadOp = stencil_load, .stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE,
        .initialLayout = stencil_load == VK_ATTACHMENT_LOAD_OP_LOAD
                            ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                            : VK_IMAGE_LAYOUT_UNDEFINED,
        .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
   };
   VkAttachmentReference color_ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference ds_ref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1, .pColorAttachments = &color_ref,
      .pDepthStencilAttachment = &ds_ref,
   };
   VkSubpassDependency deps[2] = {
      { .srcSubpass = VK_SUBPASS_EXTERNAL, .dstSubpass = 0,
        .srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                        VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        .srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                         VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT },
      { .srcSubpass = 0, .dstSubpass = VK_SUBPASS_EXTERNAL,
        .srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
        .srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT },
   };
   VkRenderPassCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2, .pAttachments = att,
      .subpassCount = 1, .pSubpasses = &sub,
      .dependencyCount = 2, .pDependencies = deps,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_VK(vkCreateRenderPass(t->device, &ci, NULL, &rp));
   return rp;
}

static VkPipeline
make_pipeline(struct vkt *t, VkRenderPass rp, VkPipelineLayout layout, VkShaderModule vs,
              VkShaderModule fs, const struct sdraw *d)
{
   VkStencilOpState so = {
      .failOp = d->fail, .passOp = d->pass, .depthFailOp = VK_STENCIL_OP_KEEP,
      .compareOp = d->compare, .compareMask = d->compare_mask, .writeMask = d->write_mask,
      .reference = d->reference,
   };
   VkPipelineDepthStencilStateCreateInfo dss = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .stencilTestEnable = VK_TRUE, .front = so, .back = so,
   };
   VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
   };
   struct draw_pipeline_info pi = {
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .cull_mode = VK_CULL_MODE_NONE, .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .depth_stencil = &dss, .dynamic_viewport_scissor = true, .vertex_input = &vi,
      .vs_module = vs, .fs_module = fs, .layout = layout, .render_pass = rp, .color_count = 1,
   };
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, NULL, &pi, vs, fs, layout);
   VkPipeline p = VK_NULL_HANDLE;
   CHECK_VK(vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &st.info, NULL, &p));
   return p;
}

static void
record_draw(VkCommandBuffer cb, VkPipelineLayout layout, VkPipeline p, const struct sdraw *d,
            uint32_t index)
{
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
   vkCmdSetScissor(cb, 0, 1, &d->rect);
   float pc[5];
   color_of(index + 1, pc);
   pc[4] = 0.5f;
   vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
                      sizeof(pc), pc);
   vkCmdDraw(cb, 3, 1, 0, 0);
}

/* Compares the read-back stencil and colour with the model. */
static void
check_result(const char *what, const uint8_t *map, const uint8_t *s, const uint8_t *c)
{
   unsigned bad = 0;
   for (uint32_t i = 0; i < W * H; i++) {
      const uint8_t *got = map + W * H + i * 4;
      float want[4] = { 0, 0, 0, 0 };
      if (c[i])
         color_of(c[i], want);
      uint32_t wc = draw_pack_rgba8(want), gc;
      memcpy(&gc, got, 4);
      if ((map[i] != s[i] || gc != wc) && bad++ < 6)
         fprintf(stderr, "%s: (%u,%u) stencil 0x%02x colour 0x%08x, expected 0x%02x 0x%08x\n",
                 what, i % W, i / W, map[i], gc, s[i], wc);
   }
   CHECK(bad == 0, "%s: %u pixels differ from the model", what, bad);
}

int
main(void)
{
   struct vkt t;
   if (!draw_open_shale(&t))
      return check_finish();
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t.pdev, VK_FORMAT_S8_UINT, &fp);
   CHECK(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT,
         "S8_UINT is a depth/stencil attachment format");
   VkImageFormatProperties ifp;
   CHECK_VK(vkGetPhysicalDeviceImageFormatProperties(
      t.pdev, VK_FORMAT_S8_UINT, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
      VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, 0, &ifp));
   CHECK(ifp.sampleCounts == (VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT),
         "S8_UINT attachment sample counts 0x%x", ifp.sampleCounts);
   if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT)) {
      vkt_finish(&t);
      return check_finish();
   }

   struct vkt_image color = { 0 }, sten = { 0 };
   VkImageView color_view = VK_NULL_HANDLE, sten_view = VK_NULL_HANDLE;
   CHECK_VK(draw_image_create(&t, VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_SAMPLE_COUNT_1_BIT,
                              VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                              VK_IMAGE_ASPECT_COLOR_BIT, &color, &color_view));
   CHECK_VK(draw_image_create(&t, VK_FORMAT_S8_UINT, W, H, VK_SAMPLE_COUNT_1_BIT,
                              VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                              VK_IMAGE_ASPECT_STENCIL_BIT, &sten, &sten_view));
   VkRenderPass rp_clear = make_pass(&t, VK_ATTACHMENT_LOAD_OP_CLEAR);
   VkRenderPass rp_load = make_pass(&t, VK_ATTACHMENT_LOAD_OP_LOAD);
   VkImageView views[2] = { color_view, sten_view };
   VkFramebuffer fb = VK_NULL_HANDLE;
   CHECK_VK(draw_framebuffer(&t, rp_clear, views, 2, W, H, 1, &fb));
   VkPipelineLayout layout = VK_NULL_HANDLE;
   CHECK_VK(draw_pipeline_layout(&t, VK_NULL_HANDLE,
                                 VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 20,
                                 &layout));
   VkShaderModule vs = VK_NULL_HANDLE, fs = VK_NULL_HANDLE;
   CHECK_VK(vkt_shader_module(&t, fullscreen_vert_spv, sizeof(fullscreen_vert_spv), &vs));
   CHECK_VK(vkt_shader_module(&t, const_float_frag_spv, sizeof(const_float_frag_spv), &fs));
   VkPipeline pipes[NDRAWS + 1];
   for (uint32_t i = 0; i < NDRAWS; i++)
      pipes[i] = make_pipeline(&t, rp_clear, layout, vs, fs, &draws[i]);
   pipes[NDRAWS] = make_pipeline(&t, rp_load, layout, vs, fs, &check_draw);
   struct vkt_buffer rb = { 0 };
   CHECK_VK(vkt_buffer_create(&t, W * H * 5, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb));

   /* The model. */
   uint8_t s[W * H], c[W * H];
   memset(s, CLEAR_STENCIL, sizeof(s));
   memset(c, 0, sizeof(c));
   for (uint32_t i = 0; i < NDRAWS; i++) {
      model_draw(&draws[i], i, s, c);
      if (i == 0)
         for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++)
               if (in_rect(&clear_rect.rect, x, y))
                  s[y * W + x] = CLEAR_RECT_VALUE;
   }

   const VkViewport vp = { 0, 0, W, H, 0, 1 };
   const VkRect2D area = { { 0, 0 }, { W, H } };
   VkClearValue clears[2] = { { .color = { .float32 = { 0, 0, 0, 0 } } },
                              { .depthStencil = { 0.0f, CLEAR_STENCIL } } };
   VkRenderPassBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp_clear, .framebuffer = fb, .renderArea = area,
      .clearValueCount = 2, .pClearValues = clears,
   };
   VkCommandBuffer cb = vkt_begin(&t);
   vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdSetViewport(cb, 0, 1, &vp);
   for (uint32_t i = 0; i < NDRAWS; i++) {
      record_draw(cb, layout, pipes[i], &draws[i], i);
      if (i == 0) {
         VkClearAttachment ca = { VK_IMAGE_ASPECT_STENCIL_BIT, 0,
                                  { .depthStencil = { 0.0f, CLEAR_RECT_VALUE } } };
         vkCmdClearAttachments(cb, 1, &ca, 1, &clear_rect);
      }
   }
   vkCmdEndRenderPass(cb);
   draw_copy_to_buffer(cb, sten.image, VK_IMAGE_ASPECT_STENCIL_BIT, W, H, rb.buffer, 0);
   draw_copy_to_buffer(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, rb.buffer, W * H);
   draw_host_barrier(cb);
   CHECK_VK(vkt_submit_wait(&t, cb));
   check_result("pass 1 (clear, ops, stencil clear)", rb.map, s, c);

   /* Pass 2: the stored stencil loaded; colour where 0x20 <= stored. */
   memset(c, 0, sizeof(c));
   model_draw(&check_draw, NDRAWS, s, c);
   unsigned passing = 0;
   for (uint32_t i = 0; i < W * H; i++)
      passing += c[i] != 0;
   CHECK(passing > 0 && passing < W * H, "pass 2 passes in %u of %u pixels", passing, W * H);
   bi.renderPass = rp_load;
   cb = vkt_begin(&t);
   vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdSetViewport(cb, 0, 1, &vp);
   record_draw(cb, layout, pipes[NDRAWS], &check_draw, NDRAWS);
   vkCmdEndRenderPass(cb);
   draw_copy_to_buffer(cb, sten.image, VK_IMAGE_ASPECT_STENCIL_BIT, W, H, rb.buffer, 0);
   draw_copy_to_buffer(cb, color.image, VK_IMAGE_ASPECT_COLOR_BIT, W, H, rb.buffer, W * H);
   draw_host_barrier(cb);
   CHECK_VK(vkt_submit_wait(&t, cb));
   check_result("pass 2 (loaded stencil)", rb.map, s, c);

   for (uint32_t i = 0; i <= NDRAWS; i++)
      vkDestroyPipeline(t.device, pipes[i], NULL);
   vkt_buffer_destroy(&t, &rb);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   vkDestroyPipelineLayout(t.device, layout, NULL);
   vkDestroyFramebuffer(t.device, fb, NULL);
   vkDestroyRenderPass(t.device, rp_clear, NULL);
   vkDestroyRenderPass(t.device, rp_load, NULL);
   vkDestroyImageView(t.device, color_view, NULL);
   vkDestroyImageView(t.device, sten_view, NULL);
   vkt_image_destroy(&t, &color);
   vkt_image_destroy(&t, &sten);
   return draw_close_shale(&t);
}
