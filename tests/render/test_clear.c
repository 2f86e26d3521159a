/* Render pass clears through the loader with the validation layer: load op
 * CLEAR over the render area only (colour formats incl. integer and sRGB,
 * depth and stencil, several layers), a second subpass that first uses an
 * attachment, vkCmdClearAttachments rects and layers (one aspect of a
 * depth/stencil attachment), multisampled clears with resolve attachments
 * and vkCmdResolveImage, vkCmdCopyImage between multisampled images,
 * vkCmdClearAttachments from a secondary command buffer. Every image is first filled with a background by
 * vkCmdClear*Image and read back with copies; the clear colour's texel
 * comes from vkCmdClear*Image of the same value (so render passes and
 * transfers agree), and every read-back buffer is compared byte for byte
 * with lavapipe's for the same commands. Recorded pNext chains are deep
 * copies (test_pnext_copy). Formats a driver does not report
 * as attachments are skipped (and reported). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ref_format.h"
#include "vkt.h"

#define W 32
#define H 24
#define LAYERS 2
#define MAX_BYTES (W * H * LAYERS * 16 * 2)

static const VkRect2D area = { { 3, 5 }, { 20, 9 } };

struct result {
   bool ran;
   size_t size;
   uint8_t bytes[MAX_BYTES];
};

static VkImageAspectFlags
aspects_of(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D32_SFLOAT:
      return VK_IMAGE_ASPECT_DEPTH_BIT;
   case VK_FORMAT_S8_UINT:
      return VK_IMAGE_ASPECT_STENCIL_BIT;
   case VK_FORMAT_D16_UNORM_S8_UINT:
   case VK_FORMAT_D24_UNORM_S8_UINT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT;
   default:
      return VK_IMAGE_ASPECT_COLOR_BIT;
   }
}

/* Bytes per texel of an aspect as buffer copies write it. */
static uint32_t
copy_texel_size(VkFormat f, VkImageAspectFlags aspect)
{
   if (aspect == VK_IMAGE_ASPECT_STENCIL_BIT)
      return 1;
   if (aspect == VK_IMAGE_ASPECT_DEPTH_BIT)
      return f == VK_FORMAT_D16_UNORM || f == VK_FORMAT_D16_UNORM_S8_UINT ? 2 : 4;
   return ref_color_texel_size(f);
}

static bool
attachment_supported(struct vkt *t, VkFormat f, VkSampleCountFlagBits samples)
{
   const bool ds = aspects_of(f) != VK_IMAGE_ASPECT_COLOR_BIT;
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t->pdev, f, &fp);
   const VkFormatFeatureFlags need =
      (ds ? VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT) |
      VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
   if ((fp.optimalTilingFeatures & need) != need)
      return false;
   VkImageFormatProperties ip;
   const VkImageUsageFlags usage =
      (ds ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) |
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   if (vkGetPhysicalDeviceImageFormatProperties(t->pdev, f, VK_IMAGE_TYPE_2D,
                                                VK_IMAGE_TILING_OPTIMAL, usage, 0,
                                                &ip) != VK_SUCCESS)
      return false;
   return (ip.sampleCounts & samples) != 0;
}

struct target {
   struct vkt_image img;
   VkImageView view;
   VkFormat format;
   VkSampleCountFlagBits samples;
};

static bool
target_create(struct vkt *t, VkFormat f, VkSampleCountFlagBits samples, uint32_t layers,
              struct target *out)
{
   memset(out, 0, sizeof(*out));
   const VkImageAspectFlags aspects = aspects_of(f);
   const bool ds = aspects != VK_IMAGE_ASPECT_COLOR_BIT;
   VkImageCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = f,
      .extent = { W, H, 1 },
      .mipLevels = 1,
      .arrayLayers = layers,
      .samples = samples,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = (ds ? VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT
                   : VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) |
               VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   if (vkt_image_create(t, &ci, &out->img) != VK_SUCCESS)
      return false;
   VkImageViewCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = out->img.image,
      .viewType = layers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D,
      .format = f,
      .subresourceRange = { aspects, 0, 1, 0, layers },
   };
   out->format = f;
   out->samples = samples;
   return vkCreateImageView(t->device, &vi, NULL, &out->view) == VK_SUCCESS;
}

static void
target_destroy(struct vkt *t, struct target *tg)
{
   vkDestroyImageView(t->device, tg->view, NULL);
   vkt_image_destroy(t, &tg->img);
}

/* Fills every layer of a (transfer-dst layout) image with `v`. */
static void
fill(VkCommandBuffer cb, const struct target *tg, const VkClearValue *v)
{
   const VkImageAspectFlags aspects = aspects_of(tg->format);
   const VkImageSubresourceRange range = { aspects, 0, 1, 0, VK_REMAINING_ARRAY_LAYERS };
   if (aspects == VK_IMAGE_ASPECT_COLOR_BIT)
      vkCmdClearColorImage(cb, tg->img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &v->color, 1,
                           &range);
   else
      vkCmdClearDepthStencilImage(cb, tg->img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  &v->depthStencil, 1, &range);
}

/* Copies every aspect of every layer (transfer-src layout) into buf at
 * `offset`, aspect after aspect; returns the bytes written. */
static size_t
read_back(VkCommandBuffer cb, const struct target *tg, uint32_t layers, VkBuffer buf,
          size_t offset)
{
   const VkImageAspectFlags aspects = aspects_of(tg->format);
   size_t at = offset;
   for (uint32_t bit = 1; bit <= VK_IMAGE_ASPECT_STENCIL_BIT; bit <<= 1) {
      if (!(aspects & bit))
         continue;
      const VkBufferImageCopy r = {
         .bufferOffset = at,
         .imageSubresource = { bit, 0, 0, layers },
         .imageExtent = { W, H, 1 },
      };
      vkCmdCopyImageToBuffer(cb, tg->img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
      at += (size_t)W * H * layers * copy_texel_size(tg->format, bit);
   }
   return at - offset;
}

static void
barrier(VkCommandBuffer cb, const struct target *tg, VkImageLayout from, VkImageLayout to)
{
   vkt_image_barrier(cb, tg->img.image, aspects_of(tg->format), from, to);
}

/* A new target (UNDEFINED) into TRANSFER_DST_OPTIMAL, filled with `v`. */
static void
prepare(VkCommandBuffer cb, const struct target *tg, const VkClearValue *v)
{
   barrier(cb, tg, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   fill(cb, tg, v);
}

/* Begins rp on fb over `area` with `n` clear values. */
static void
begin_pass(VkCommandBuffer cb, VkRenderPass rp, VkFramebuffer fb, uint32_t n,
           const VkClearValue *clears, VkSubpassContents contents)
{
   const VkRenderPassBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp,
      .framebuffer = fb,
      .renderArea = area,
      .clearValueCount = n,
      .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &begin, contents);
}

static bool
in_area(uint32_t x, uint32_t y)
{
   return (int)x >= area.offset.x && x < area.offset.x + area.extent.width &&
          (int)y >= area.offset.y && y < area.offset.y + area.extent.height;
}

/* The case ran: its result is the first n bytes read back into buf. */
static void
keep(struct result *out, const struct vkt_buffer *buf, size_t n)
{
   out->size = n;
   memcpy(out->bytes, buf->map, n);
   out->ran = true;
}

static VkRenderPass
simple_pass(struct vkt *t, VkFormat f, VkSampleCountFlagBits samples, bool resolve)
{
   const bool ds = aspects_of(f) != VK_IMAGE_ASPECT_COLOR_BIT;
   const VkImageLayout layout = ds ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                   : VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
   const VkAttachmentDescription att[2] = {
      { 0, f, samples, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
        VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { 0, f, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_LOAD, VK_ATTACHMENT_STORE_OP_STORE,
        VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE,
        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
   };
   const VkAttachmentReference ref = { 0, layout };
   const VkAttachmentReference res = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = ds ? 0 : 1,
      .pColorAttachments = ds ? NULL : &ref,
      .pResolveAttachments = resolve ? &res : NULL,
      .pDepthStencilAttachment = ds ? &ref : NULL,
   };
   const VkRenderPassCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = resolve ? 2 : 1,
      .pAttachments = att,
      .subpassCount = 1,
      .pSubpasses = &sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t->device, &info, NULL, &rp), VK_SUCCESS);
   return rp;
}

static VkFramebuffer
framebuffer(struct vkt *t, VkRenderPass rp, const VkImageView *views, uint32_t n, uint32_t layers)
{
   const VkFramebufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp,
      .attachmentCount = n,
      .pAttachments = views,
      .width = W,
      .height = H,
      .layers = layers,
   };
   VkFramebuffer fb = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateFramebuffer(t->device, &info, NULL, &fb), VK_SUCCESS);
   return fb;
}

/* ---- the cases (each fills `out` with what it read back) ---- */

struct fmt_case {
   VkFormat format;
   VkClearValue background, clear;
};

static const struct fmt_case fmt_cases[] = {
   { VK_FORMAT_R8G8B8A8_UNORM, { .color.float32 = { 0, 0, 0, 0 } },
     { .color.float32 = { 0.2f, 0.4f, 0.6f, 1.0f } } },
   { VK_FORMAT_R8G8B8A8_SRGB, { .color.float32 = { 1, 1, 1, 1 } },
     { .color.float32 = { 0.2f, 0.5f, 0.8f, 0.4f } } },
   { VK_FORMAT_B8G8R8A8_UNORM, { .color.float32 = { 0, 1, 0, 1 } },
     { .color.float32 = { 1.0f, 0.0f, 0.6f, 0.2f } } },
   { VK_FORMAT_A2B10G10R10_UNORM_PACK32, { .color.float32 = { 0, 0, 0, 0 } },
     { .color.float32 = { 1.0f, 0.0f, 1.0f, 1.0f } } },
   { VK_FORMAT_R32G32B32A32_UINT, { .color.uint32 = { 1, 2, 3, 4 } },
     { .color.uint32 = { 0xdeadbeef, 7, 0, 0xffffffff } } },
   { VK_FORMAT_R16G16_SINT, { .color.int32 = { 0, 0, 0, 0 } },
     { .color.int32 = { -1234, 32767, 0, 0 } } },
   { VK_FORMAT_R8_UINT, { .color.uint32 = { 9 } }, { .color.uint32 = { 200 } } },
   { VK_FORMAT_R32_SFLOAT, { .color.float32 = { -1.0f } }, { .color.float32 = { 3.25f } } },
   { VK_FORMAT_R16G16B16A16_SFLOAT, { .color.float32 = { 0, 0, 0, 0 } },
     { .color.float32 = { 0.5f, -2.0f, 65504.0f, 1.0f } } },
   { VK_FORMAT_D16_UNORM, { .depthStencil = { 0.0f, 0 } }, { .depthStencil = { 1.0f, 0 } } },
   { VK_FORMAT_D32_SFLOAT, { .depthStencil = { 1.0f, 0 } }, { .depthStencil = { 0.375f, 0 } } },
   { VK_FORMAT_D24_UNORM_S8_UINT, { .depthStencil = { 0.0f, 3 } },
     { .depthStencil = { 1.0f, 0x5a } } },
   { VK_FORMAT_D32_SFLOAT_S8_UINT, { .depthStencil = { 1.0f, 0xff } },
     { .depthStencil = { 0.5f, 0x11 } } },
   { VK_FORMAT_S8_UINT, { .depthStencil = { 0.0f, 1 } }, { .depthStencil = { 0.0f, 0xc3 } } },
};
#define FMT_CASES (sizeof(fmt_cases) / sizeof(fmt_cases[0]))

/* Load op CLEAR over the render area, on both layers; then the same
 * clear value through vkCmdClear*Image on a second image (the reference
 * texel) appended to the read-back. */
static void
case_format(struct vkt *t, const struct fmt_case *k, struct result *out)
{
   out->ran = false;
   if (!attachment_supported(t, k->format, VK_SAMPLE_COUNT_1_BIT)) {
      fprintf(stderr, "note: [%s] format %d is not an attachment format: skipped\n",
              vkt_driver_name(t->driver), k->format);
      return;
   }
   struct target tg, ref;
   if (!target_create(t, k->format, VK_SAMPLE_COUNT_1_BIT, LAYERS, &tg) ||
       !target_create(t, k->format, VK_SAMPLE_COUNT_1_BIT, 1, &ref)) {
      CHECK(0, "[%s] format %d: image creation failed", vkt_driver_name(t->driver), k->format);
      return;
   }
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   VkRenderPass rp = simple_pass(t, k->format, VK_SAMPLE_COUNT_1_BIT, false);
   VkFramebuffer fb = framebuffer(t, rp, &tg.view, 1, LAYERS);

   VkCommandBuffer cb = vkt_begin(t);
   prepare(cb, &tg, &k->background);
   prepare(cb, &ref, &k->clear);
   begin_pass(cb, rp, fb, 1, &k->clear, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdEndRenderPass(cb);
   barrier(cb, &ref, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   size_t n = read_back(cb, &tg, LAYERS, buf.buffer, 0);
   size_t m = read_back(cb, &ref, 1, buf.buffer, n);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);

   /* Inside the area every texel of every layer is the reference's, outside
    * the background (the texel at (0, 0), which is outside). */
   const uint8_t *img = buf.map, *refb = (const uint8_t *)buf.map + n;
   const VkImageAspectFlags aspects = aspects_of(k->format);
   size_t at = 0, ref_at = 0;
   unsigned bad = 0;
   for (uint32_t bit = 1; bit <= VK_IMAGE_ASPECT_STENCIL_BIT; bit <<= 1) {
      if (!(aspects & bit))
         continue;
      const uint32_t ts = copy_texel_size(k->format, bit);
      const uint8_t *want_in = refb + ref_at;
      const uint8_t *want_out = img + at;
      for (uint32_t l = 0; l < LAYERS; l++) {
         for (uint32_t y = 0; y < H; y++) {
            for (uint32_t x = 0; x < W; x++) {
               const bool in = in_area(x, y);
               const uint8_t *p = img + at + (((size_t)l * H + y) * W + x) * ts;
               /* D24: the X8 byte of a depth copy is undefined. */
               const uint32_t cmp = ts == 4 && bit == VK_IMAGE_ASPECT_DEPTH_BIT &&
                                          k->format == VK_FORMAT_D24_UNORM_S8_UINT ? 3 : ts;
               if (memcmp(p, in ? want_in : want_out, cmp) && bad++ < 5)
                  CHECK(0, "[%s] format %d aspect %u layer %u (%u, %u): %s texel differs",
                        vkt_driver_name(t->driver), k->format, bit, l, x, y,
                        in ? "cleared" : "background");
            }
         }
      }
      at += (size_t)W * H * LAYERS * ts;
      ref_at += (size_t)W * H * ts;
   }
   CHECK(bad == 0, "[%s] format %d: %u texels differ", vkt_driver_name(t->driver), k->format, bad);
   /* The background texel really differs from the cleared one. */
   CHECK(memcmp(refb, img, copy_texel_size(k->format, aspects & -aspects)) != 0,
         "format %d: background and clear value pack alike", k->format);
   keep(out, &buf, n + m);
   if (k->format == VK_FORMAT_D24_UNORM_S8_UINT) {
      /* The X8 byte of D24 depth copies is undefined. */
      for (size_t i = 0; i < (size_t)W * H * LAYERS; i++)
         out->bytes[i * 4 + 3] = 0;
      for (size_t i = 0; i < (size_t)W * H; i++)
         out->bytes[n + i * 4 + 3] = 0;
   }

   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkt_buffer_destroy(t, &buf);
   target_destroy(t, &tg);
   target_destroy(t, &ref);
}

/* Two subpasses. Attachment 0 (cleared to A) is used by both; attachment
 * 1 (cleared to B) first by the second. vkCmdClearAttachments in subpass 0
 * writes C into a rect of attachment 0, layer 1 only; subpass 1 must not
 * clear attachment 0 again. Then a clear of attachment 1 in subpass 1 over
 * a rect on both layers. Read back both images. */
static void
case_subpasses(struct vkt *t, struct result *out)
{
   out->ran = false;
   const VkFormat f = VK_FORMAT_R8G8B8A8_UNORM;
   if (!attachment_supported(t, f, VK_SAMPLE_COUNT_1_BIT))
      return;
   struct target a, b;
   if (!target_create(t, f, VK_SAMPLE_COUNT_1_BIT, LAYERS, &a) ||
       !target_create(t, f, VK_SAMPLE_COUNT_1_BIT, LAYERS, &b)) {
      CHECK(0, "subpasses: image creation failed");
      return;
   }
   const VkAttachmentDescription att[2] = {
      { 0, f, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
        VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE,
        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
      { 0, f, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR, VK_ATTACHMENT_STORE_OP_STORE,
        VK_ATTACHMENT_LOAD_OP_DONT_CARE, VK_ATTACHMENT_STORE_OP_DONT_CARE,
        VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
   };
   const VkAttachmentReference r0 = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference r01[2] = { { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
                                          { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL } };
   const VkSubpassDescription sub[2] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &r0 },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 2,
        .pColorAttachments = r01 },
   };
   const VkSubpassDependency dep = {
      0, 1, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
      VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0,
   };
   const VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2,
      .pAttachments = att,
      .subpassCount = 2,
      .pSubpasses = sub,
      .dependencyCount = 1,
      .pDependencies = &dep,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t->device, &rpi, NULL, &rp), VK_SUCCESS);
   const VkImageView views[2] = { a.view, b.view };
   VkFramebuffer fb = framebuffer(t, rp, views, 2, LAYERS);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);

   const VkClearValue bg = { .color.float32 = { 0, 0, 0, 0 } };
   const VkClearValue cv[2] = { { .color.float32 = { 1, 0, 0, 1 } },
                                { .color.float32 = { 0, 1, 0, 1 } } };
   VkCommandBuffer cb = vkt_begin(t);
   prepare(cb, &a, &bg);
   prepare(cb, &b, &bg);
   begin_pass(cb, rp, fb, 2, cv, VK_SUBPASS_CONTENTS_INLINE);
   const VkClearAttachment ca = { VK_IMAGE_ASPECT_COLOR_BIT, 0,
                                  { .color.float32 = { 0, 0, 1, 1 } } };
   const VkClearRect rect = { { { 4, 6 }, { 5, 3 } }, 1, 1 };
   vkCmdClearAttachments(cb, 1, &ca, 1, &rect);
   vkCmdNextSubpass(cb, VK_SUBPASS_CONTENTS_INLINE);
   /* Colour attachment 0 of subpass 1 is attachment 1 (image b). */
   const VkClearAttachment cb1 = { VK_IMAGE_ASPECT_COLOR_BIT, 0,
                                   { .color.float32 = { 1, 1, 1, 1 } } };
   const VkClearRect rects[2] = { { { { 20, 10 }, { 3, 4 } }, 0, 2 },
                                  { { { 3, 5 }, { 1, 1 } }, 0, 1 } };
   vkCmdClearAttachments(cb, 1, &cb1, 2, rects);
   vkCmdEndRenderPass(cb);
   size_t n = read_back(cb, &a, LAYERS, buf.buffer, 0);
   n += read_back(cb, &b, LAYERS, buf.buffer, n);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);

   /* Expected, from the rules. */
   const uint8_t *p = buf.map;
   unsigned bad = 0;
   for (int img = 0; img < 2; img++) {
      for (uint32_t l = 0; l < LAYERS; l++) {
         for (uint32_t y = 0; y < H; y++) {
            for (uint32_t x = 0; x < W; x++) {
               const bool in = in_area(x, y);
               uint8_t want[4] = { 0, 0, 0, 0 };
               if (in && img == 0) {
                  const bool r = l == 1 && x >= 4 && x < 9 && y >= 6 && y < 9;
                  memcpy(want, r ? (uint8_t[4]) { 0, 0, 255, 255 } : (uint8_t[4]) { 255, 0, 0, 255 }, 4);
               } else if (in) {
                  const bool r = (x >= 20 && x < 23 && y >= 10 && y < 14) ||
                                 (l == 0 && x == 3 && y == 5);
                  memcpy(want, r ? (uint8_t[4]) { 255, 255, 255, 255 } : (uint8_t[4]) { 0, 255, 0, 255 }, 4);
               }
               const uint8_t *got = p + ((((size_t)img * LAYERS + l) * H + y) * W + x) * 4;
               if (memcmp(got, want, 4) && bad++ < 5)
                  CHECK(0, "[%s] subpasses: image %d layer %u (%u, %u) = %u %u %u %u, expected "
                        "%u %u %u %u", vkt_driver_name(t->driver), img, l, x, y, got[0], got[1],
                        got[2], got[3], want[0], want[1], want[2], want[3]);
            }
         }
      }
   }
   CHECK(bad == 0, "[%s] subpasses: %u texels differ", vkt_driver_name(t->driver), bad);
   keep(out, &buf, n);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkt_buffer_destroy(t, &buf);
   target_destroy(t, &a);
   target_destroy(t, &b);
}

/* vkCmdClearAttachments on one aspect of a combined depth/stencil
 * attachment (the other aspect kept), two rects on different layers. */
static void
case_clear_ds_aspect(struct vkt *t, struct result *out)
{
   out->ran = false;
   const VkFormat f = VK_FORMAT_D24_UNORM_S8_UINT;
   if (!attachment_supported(t, f, VK_SAMPLE_COUNT_1_BIT))
      return;
   struct target tg;
   if (!target_create(t, f, VK_SAMPLE_COUNT_1_BIT, LAYERS, &tg)) {
      CHECK(0, "ds aspect: image creation failed");
      return;
   }
   VkRenderPass rp = simple_pass(t, f, VK_SAMPLE_COUNT_1_BIT, false);
   VkFramebuffer fb = framebuffer(t, rp, &tg.view, 1, LAYERS);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   const VkClearValue bg = { .depthStencil = { 0.0f, 0 } };
   const VkClearValue cv = { .depthStencil = { 1.0f, 0x40 } };
   VkCommandBuffer cb = vkt_begin(t);
   prepare(cb, &tg, &bg);
   begin_pass(cb, rp, fb, 1, &cv, VK_SUBPASS_CONTENTS_INLINE);
   const VkClearAttachment ca[2] = {
      { VK_IMAGE_ASPECT_STENCIL_BIT, 0, { .depthStencil = { 0.25f, 0x99 } } },
      { VK_IMAGE_ASPECT_DEPTH_BIT, 0, { .depthStencil = { 0.0f, 0x77 } } },
   };
   const VkClearRect r0 = { { { 5, 6 }, { 4, 4 } }, 0, 1 };
   const VkClearRect r1 = { { { 10, 7 }, { 6, 2 } }, 1, 1 };
   vkCmdClearAttachments(cb, 1, &ca[0], 1, &r0);
   vkCmdClearAttachments(cb, 1, &ca[1], 1, &r1);
   vkCmdEndRenderPass(cb);
   size_t n = read_back(cb, &tg, LAYERS, buf.buffer, 0);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   const uint8_t *depth = buf.map, *stencil = depth + (size_t)W * H * LAYERS * 4;
   unsigned bad = 0;
   for (uint32_t l = 0; l < LAYERS; l++) {
      for (uint32_t y = 0; y < H; y++) {
         for (uint32_t x = 0; x < W; x++) {
            const bool in = in_area(x, y);
            const bool s_rect = l == 0 && x >= 5 && x < 9 && y >= 6 && y < 10;
            const bool d_rect = l == 1 && x >= 10 && x < 16 && y >= 7 && y < 9;
            const uint32_t want_d = !in ? 0 : d_rect ? 0 : 0xffffff;
            const uint8_t want_s = !in ? 0 : s_rect ? 0x99 : 0x40;
            const size_t i = ((size_t)l * H + y) * W + x;
            uint32_t got_d;
            memcpy(&got_d, depth + i * 4, 4);
            got_d &= 0xffffff;
            if ((got_d != want_d || stencil[i] != want_s) && bad++ < 5)
               CHECK(0, "[%s] ds aspect: layer %u (%u, %u) depth 0x%x stencil 0x%x, expected "
                     "0x%x 0x%x", vkt_driver_name(t->driver), l, x, y, got_d, stencil[i], want_d,
                     want_s);
         }
      }
   }
   CHECK(bad == 0, "[%s] ds aspect: %u texels differ", vkt_driver_name(t->driver), bad);
   /* The X8 byte of D24 depth copies is undefined: zero it for the
    * comparison with lavapipe. */
   uint8_t *m = buf.map;
   for (size_t i = 0; i < (size_t)W * H * LAYERS; i++)
      m[i * 4 + 3] = 0;
   keep(out, &buf, n);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkt_buffer_destroy(t, &buf);
   target_destroy(t, &tg);
}

/* 4 samples: the render pass clears the multisampled attachment over the
 * area and resolves it into a single-sample attachment; a second
 * multisampled image, cleared by vkCmdClearColorImage then partly by a
 * render pass, goes through vkCmdResolveImage (offsets differ). */
static void
case_msaa(struct vkt *t, VkFormat f, const VkClearValue *bgv, const VkClearValue *cv,
          struct result *out)
{
   out->ran = false;
   if (!attachment_supported(t, f, VK_SAMPLE_COUNT_4_BIT)) {
      fprintf(stderr, "note: [%s] format %d: no 4-sample attachments: skipped\n",
              vkt_driver_name(t->driver), f);
      return;
   }
   struct target ms, rs, ms2, dst;
   if (!target_create(t, f, VK_SAMPLE_COUNT_4_BIT, 1, &ms) ||
       !target_create(t, f, VK_SAMPLE_COUNT_1_BIT, 1, &rs) ||
       !target_create(t, f, VK_SAMPLE_COUNT_4_BIT, 1, &ms2) ||
       !target_create(t, f, VK_SAMPLE_COUNT_1_BIT, 1, &dst)) {
      CHECK(0, "msaa: image creation failed");
      return;
   }
   VkRenderPass rp = simple_pass(t, f, VK_SAMPLE_COUNT_4_BIT, true);
   const VkImageView views[2] = { ms.view, rs.view };
   VkFramebuffer fb = framebuffer(t, rp, views, 2, 1);
   VkRenderPass rp2 = simple_pass(t, f, VK_SAMPLE_COUNT_4_BIT, false);
   VkFramebuffer fb2 = framebuffer(t, rp2, &ms2.view, 1, 1);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   VkCommandBuffer cb = vkt_begin(t);
   prepare(cb, &ms, bgv);
   prepare(cb, &rs, bgv);
   prepare(cb, &ms2, bgv);
   prepare(cb, &dst, bgv);
   begin_pass(cb, rp, fb, 1, cv, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdEndRenderPass(cb);
   begin_pass(cb, rp2, fb2, 1, cv, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdEndRenderPass(cb);
   const VkImageResolve res = {
      .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .srcOffset = { 1, 2, 0 },
      .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .dstOffset = { 5, 1, 0 },
      .extent = { 16, 12, 1 },
   };
   vkCmdResolveImage(cb, ms2.img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.img.image,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &res);
   barrier(cb, &dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   size_t n = read_back(cb, &rs, 1, buf.buffer, 0);
   n += read_back(cb, &dst, 1, buf.buffer, n);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   /* Every sample of a cleared pixel holds the clear value: the resolve is
    * the clear value there (reference: the corner texels of the area), and
    * the background elsewhere. */
   const uint32_t ts = ref_color_texel_size(f);
   const uint8_t *p = buf.map;
   const uint8_t *in_texel = p + ((size_t)area.offset.y * W + area.offset.x) * ts;
   const uint8_t *out_texel = p;
   CHECK(memcmp(in_texel, out_texel, ts) != 0, "[%s] msaa: cleared and background texels agree",
         vkt_driver_name(t->driver));
   unsigned bad = 0;
   for (int img = 0; img < 2; img++) {
      for (uint32_t y = 0; y < H; y++) {
         for (uint32_t x = 0; x < W; x++) {
            bool in;
            if (img == 0) {
               in = in_area(x, y);
            } else {
               /* dst (x, y) came from ms2 (x - 4, y + 1) inside the region. */
               const bool region = x >= 5 && x < 21 && y >= 1 && y < 13;
               const int sx = (int)x - 4, sy = (int)y + 1;
               in = region && sx >= area.offset.x &&
                    sx < area.offset.x + (int)area.extent.width && sy >= area.offset.y &&
                    sy < area.offset.y + (int)area.extent.height;
            }
            const uint8_t *got = p + (((size_t)img * H + y) * W + x) * ts;
            if (memcmp(got, in ? in_texel : out_texel, ts) && bad++ < 5)
               CHECK(0, "[%s] msaa format %d: image %d (%u, %u) differs",
                     vkt_driver_name(t->driver), f, img, x, y);
         }
      }
   }
   CHECK(bad == 0, "[%s] msaa format %d: %u texels differ", vkt_driver_name(t->driver), f, bad);
   keep(out, &buf, n);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyFramebuffer(t->device, fb2, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkDestroyRenderPass(t->device, rp2, NULL);
   vkt_buffer_destroy(t, &buf);
   target_destroy(t, &ms);
   target_destroy(t, &rs);
   target_destroy(t, &ms2);
   target_destroy(t, &dst);
}

/* 4 samples through vkCmdCopyImage: a render pass clears the area of one
 * multisampled image, a copy moves a region of it (every sample) into a
 * second one at another offset, which is then resolved and read back. */
static void
case_msaa_copy(struct vkt *t, struct result *out)
{
   out->ran = false;
   const VkFormat f = VK_FORMAT_R8G8B8A8_UNORM;
   if (!attachment_supported(t, f, VK_SAMPLE_COUNT_4_BIT))
      return;
   struct target a, b, dst;
   if (!target_create(t, f, VK_SAMPLE_COUNT_4_BIT, 1, &a) ||
       !target_create(t, f, VK_SAMPLE_COUNT_4_BIT, 1, &b) ||
       !target_create(t, f, VK_SAMPLE_COUNT_1_BIT, 1, &dst)) {
      CHECK(0, "msaa copy: image creation failed");
      return;
   }
   VkRenderPass rp = simple_pass(t, f, VK_SAMPLE_COUNT_4_BIT, false);
   VkFramebuffer fb = framebuffer(t, rp, &a.view, 1, 1);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   const VkClearValue bg = { .color.float32 = { 0, 0, 1, 1 } };
   const VkClearValue cv = { .color.float32 = { 1, 0.6f, 0, 1 } };
   VkCommandBuffer cb = vkt_begin(t);
   prepare(cb, &a, &bg);
   prepare(cb, &b, &bg);
   barrier(cb, &dst, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   begin_pass(cb, rp, fb, 1, &cv, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdEndRenderPass(cb);
   const VkImageCopy copy = {
      .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .srcOffset = { 2, 3, 0 },
      .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .dstOffset = { 9, 1, 0 },
      .extent = { 10, 8, 1 },
   };
   vkCmdCopyImage(cb, a.img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b.img.image,
                  VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
   barrier(cb, &b, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   const VkImageResolve res = {
      .srcSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .dstSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .extent = { W, H, 1 },
   };
   vkCmdResolveImage(cb, b.img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst.img.image,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &res);
   barrier(cb, &dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   size_t n = read_back(cb, &dst, 1, buf.buffer, 0);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   const uint8_t *p = buf.map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         /* b (x, y) holds a (x - 7, y + 2) inside the copied region. */
         const bool region = x >= 9 && x < 19 && y >= 1 && y < 9;
         const int sx = (int)x - 7, sy = (int)y + 2;
         const bool in = region && sx >= area.offset.x &&
                         sx < area.offset.x + (int)area.extent.width && sy >= area.offset.y &&
                         sy < area.offset.y + (int)area.extent.height;
         const uint8_t want[4] = { in ? 255 : 0, in ? 153 : 0, in ? 0 : 255, 255 };
         const uint8_t *got = p + ((size_t)y * W + x) * 4;
         if (memcmp(got, want, 4) && bad++ < 5)
            CHECK(0, "[%s] msaa copy: (%u, %u) = %u %u %u %u, expected %u %u %u %u",
                  vkt_driver_name(t->driver), x, y, got[0], got[1], got[2], got[3], want[0],
                  want[1], want[2], want[3]);
      }
   }
   CHECK(bad == 0, "[%s] msaa copy: %u texels differ", vkt_driver_name(t->driver), bad);
   keep(out, &buf, n);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkt_buffer_destroy(t, &buf);
   target_destroy(t, &a);
   target_destroy(t, &b);
   target_destroy(t, &dst);
}

/* vkCmdClearAttachments recorded in a secondary command buffer that
 * continues the render pass (SECONDARY_COMMAND_BUFFERS contents). */
static void
case_secondary(struct vkt *t, struct result *out)
{
   out->ran = false;
   const VkFormat f = VK_FORMAT_R8G8B8A8_UNORM;
   if (!attachment_supported(t, f, VK_SAMPLE_COUNT_1_BIT))
      return;
   struct target tg;
   if (!target_create(t, f, VK_SAMPLE_COUNT_1_BIT, 1, &tg)) {
      CHECK(0, "secondary: image creation failed");
      return;
   }
   VkRenderPass rp = simple_pass(t, f, VK_SAMPLE_COUNT_1_BIT, false);
   VkFramebuffer fb = framebuffer(t, rp, &tg.view, 1, 1);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   const VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = t->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer sec = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateCommandBuffers(t->device, &ai, &sec), VK_SUCCESS);
   const VkCommandBufferInheritanceInfo inh = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
      .renderPass = rp,
      .subpass = 0,
      .framebuffer = fb,
   };
   const VkCommandBufferBeginInfo sbi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_RENDER_PASS_CONTINUE_BIT,
      .pInheritanceInfo = &inh,
   };
   CHECK_EQ_INT(vkBeginCommandBuffer(sec, &sbi), VK_SUCCESS);
   const VkClearAttachment ca = { VK_IMAGE_ASPECT_COLOR_BIT, 0,
                                  { .color.float32 = { 0, 1, 1, 1 } } };
   const VkClearRect rect = { { { 6, 7 }, { 8, 2 } }, 0, 1 };
   vkCmdClearAttachments(sec, 1, &ca, 1, &rect);
   CHECK_EQ_INT(vkEndCommandBuffer(sec), VK_SUCCESS);

   const VkClearValue bg = { .color.float32 = { 0, 0, 0, 0 } };
   const VkClearValue cv = { .color.float32 = { 1, 0, 1, 1 } };
   VkCommandBuffer cb = vkt_begin(t);
   prepare(cb, &tg, &bg);
   begin_pass(cb, rp, fb, 1, &cv, VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS);
   vkCmdExecuteCommands(cb, 1, &sec);
   vkCmdEndRenderPass(cb);
   size_t n = read_back(cb, &tg, 1, buf.buffer, 0);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   const uint8_t *p = buf.map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         const bool in = in_area(x, y);
         const bool r = x >= 6 && x < 14 && y >= 7 && y < 9;
         const uint8_t want[4] = { in && !r ? 255 : 0, in && r ? 255 : 0, in ? 255 : 0,
                                   in ? 255 : 0 };
         if (memcmp(p + ((size_t)y * W + x) * 4, want, 4) && bad++ < 5)
            CHECK(0, "[%s] secondary: (%u, %u) differs", vkt_driver_name(t->driver), x, y);
      }
   }
   CHECK(bad == 0, "[%s] secondary: %u texels differ", vkt_driver_name(t->driver), bad);
   keep(out, &buf, n);
   vkFreeCommandBuffers(t->device, t->pool, 1, &sec);
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkt_buffer_destroy(t, &buf);
   target_destroy(t, &tg);
}

/* Recorded pNext chains are deep copies: vkCmdBeginRenderPass chains an
 * unknown struct and a VkDeviceGroupRenderPassBeginInfo whose render area
 * (device 0's) replaces renderArea; the application's chain, rect array
 * and clear value are overwritten after recording and before submission.
 * The clear must cover the chained rect. Device groups are not offered, so
 * the struct is invalid usage here: this part runs without the validation
 * layer, on Shale only. */
static void
test_pnext_copy(void)
{
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return;
   }
   const VkFormat f = VK_FORMAT_R8G8B8A8_UNORM;
   struct target tg;
   if (!attachment_supported(&t, f, VK_SAMPLE_COUNT_1_BIT) ||
       !target_create(&t, f, VK_SAMPLE_COUNT_1_BIT, 1, &tg)) {
      fprintf(stderr, "note: no R8G8B8A8_UNORM attachments: pNext copy not tested\n");
      vkt_finish(&t);
      return;
   }
   VkRenderPass rp = simple_pass(&t, f, VK_SAMPLE_COUNT_1_BIT, false);
   VkFramebuffer fb = framebuffer(&t, rp, &tg.view, 1, 1);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(&t, MAX_BYTES, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   const VkClearValue bg = { .color.float32 = { 0, 0, 0, 0 } };
   VkClearValue *cv = malloc(sizeof(*cv));
   VkRect2D *rects = malloc(sizeof(*rects));
   VkDeviceGroupRenderPassBeginInfo *group = malloc(sizeof(*group));
   VkBaseInStructure *unknown = malloc(sizeof(*unknown));
   *cv = (VkClearValue) { .color.float32 = { 1, 1, 0, 1 } };
   *rects = (VkRect2D) { { 10, 2 }, { 7, 5 } };
   *group = (VkDeviceGroupRenderPassBeginInfo) {
      .sType = VK_STRUCTURE_TYPE_DEVICE_GROUP_RENDER_PASS_BEGIN_INFO,
      .deviceMask = 1,
      .deviceRenderAreaCount = 1,
      .pDeviceRenderAreas = rects,
   };
   *unknown = (VkBaseInStructure) { .sType = (VkStructureType)0x7ffff0f0,
                                    .pNext = (const VkBaseInStructure *)group };
   VkCommandBuffer cb = vkt_begin(&t);
   prepare(cb, &tg, &bg);
   const VkRenderPassBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .pNext = unknown,
      .renderPass = rp,
      .framebuffer = fb,
      .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 1,
      .pClearValues = cv,
   };
   vkCmdBeginRenderPass(cb, &begin, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdEndRenderPass(cb);
   read_back(cb, &tg, 1, buf.buffer, 0);
   memset(cv, 0x55, sizeof(*cv));
   memset(rects, 0x7f, sizeof(*rects));
   memset(group, 0xee, sizeof(*group));
   memset(unknown, 0xdd, sizeof(*unknown));
   free(cv);
   free(rects);
   free(group);
   free(unknown);
   CHECK_EQ_INT(vkt_submit_wait(&t, cb), VK_SUCCESS);
   const uint8_t *p = buf.map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         const bool in = x >= 10 && x < 17 && y >= 2 && y < 7;
         const uint8_t want[4] = { in ? 255 : 0, in ? 255 : 0, 0, in ? 255 : 0 };
         if (memcmp(p + ((size_t)y * W + x) * 4, want, 4) && bad++ < 5)
            CHECK(0, "pNext copy: (%u, %u) differs", x, y);
      }
   }
   CHECK(bad == 0, "pNext copy: %u texels differ (the chained render area was not recorded)",
         bad);
   vkDestroyFramebuffer(t.device, fb, NULL);
   vkDestroyRenderPass(t.device, rp, NULL);
   vkt_buffer_destroy(&t, &buf);
   target_destroy(&t, &tg);
   vkt_finish(&t);
}

#define CASES (FMT_CASES + 7)

static void
run_all(struct vkt *t, struct result *res)
{
   for (unsigned i = 0; i < FMT_CASES; i++)
      case_format(t, &fmt_cases[i], &res[i]);
   case_subpasses(t, &res[FMT_CASES]);
   case_clear_ds_aspect(t, &res[FMT_CASES + 1]);
   const VkClearValue bg = { .color.float32 = { 0, 0, 0, 0 } };
   const VkClearValue cv = { .color.float32 = { 0.2f, 0.4f, 0.6f, 1.0f } };
   case_msaa(t, VK_FORMAT_R8G8B8A8_UNORM, &bg, &cv, &res[FMT_CASES + 2]);
   const VkClearValue bgu = { .color.uint32 = { 1, 2, 3, 4 } };
   const VkClearValue cvu = { .color.uint32 = { 100, 200, 300, 400 } };
   case_msaa(t, VK_FORMAT_R32G32B32A32_UINT, &bgu, &cvu, &res[FMT_CASES + 3]);
   const VkClearValue cvs = { .color.float32 = { 0.25f, 0.5f, 0.75f, 1.0f } };
   case_msaa(t, VK_FORMAT_R8G8B8A8_SRGB, &bg, &cvs, &res[FMT_CASES + 4]);
   case_msaa_copy(t, &res[FMT_CASES + 5]);
   case_secondary(t, &res[FMT_CASES + 6]);
}

int
main(void)
{
   static struct result shale[CASES], lvp[CASES];
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return check_finish();
   }
   run_all(&t, shale);
   vkt_finish(&t);
   test_pnext_copy();
   unsigned ran = 0;
   for (unsigned i = 0; i < CASES; i++)
      ran += shale[i].ran;
   if (!ran)
      SKIP("Shale reports no attachment formats yet");

   opts.driver = VKT_LAVAPIPE;
   if (!vkt_init(&t, &opts)) {
      fprintf(stderr, "note: lavapipe not available, no cross-driver comparison\n");
   } else {
      run_all(&t, lvp);
      vkt_finish(&t);
      unsigned compared = 0;
      for (unsigned i = 0; i < CASES; i++) {
         if (!shale[i].ran || !lvp[i].ran)
            continue;
         compared++;
         CHECK(shale[i].size == lvp[i].size && !memcmp(shale[i].bytes, lvp[i].bytes, shale[i].size),
               "case %u: read-back differs from lavapipe's", i);
      }
      fprintf(stderr, "compared %u of %u cases with lavapipe\n", compared, ran);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
