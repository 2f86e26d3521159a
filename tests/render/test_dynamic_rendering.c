/* Dynamic rendering (vkCmdBeginRendering / vkCmdEndRendering) on Shale's
 * render path, through the driver core: the test links it and calls its
 * entry points directly, like android/gralloc_usage, for what the
 * validation layer would not let through or what needs no loader
 * (render/ds_resolve renders with VK_KHR_dynamic_rendering through the
 * loader and the validation layer). Checked against values from the rules: colour
 * load op CLEAR over the render area on two layers, depth and stencil of
 * one D24S8 view cleared separately, LOAD keeps, vkCmdClearAttachments,
 * a suspended instance resumed without its load ops, a multiview instance
 * (view mask 0x1: its load op and vkCmdClearAttachments on view 0's layer
 * only), and a 4-sample
 * attachment resolved into resolveImageView at the end. Also
 * vkCreateRenderPass2 and its commands (test_render_pass2). The rendering
 * parts wait for the driver to report attachment formats. */
#include <stdint.h>
#include <string.h>

#include "driver/sd_entrypoints.h"

#include "check.h"

#define W 24
#define H 16

static VkDevice dev;
static VkPhysicalDevice pdev;
static VkQueue queue;
static VkCommandPool pool;
static VkPhysicalDeviceMemoryProperties mem_props;

static const VkRect2D area = { { 2, 3 }, { 15, 9 } };

static bool
in_area(uint32_t x, uint32_t y)
{
   return (int)x >= area.offset.x && x < area.offset.x + area.extent.width &&
          (int)y >= area.offset.y && y < area.offset.y + area.extent.height;
}

static VkDeviceMemory
bind_memory(VkMemoryRequirements req, void **map)
{
   uint32_t type = 0;
   for (uint32_t i = 0; i < mem_props.memoryTypeCount; i++) {
      if ((req.memoryTypeBits & (1u << i)) &&
          (mem_props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) {
         type = i;
         break;
      }
   }
   const VkMemoryAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req.size,
      .memoryTypeIndex = type,
   };
   VkDeviceMemory mem = VK_NULL_HANDLE;
   CHECK_EQ_INT(sd_AllocateMemory(dev, &ai, NULL, &mem), VK_SUCCESS);
   if (map)
      CHECK_EQ_INT(sd_MapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, map), VK_SUCCESS);
   return mem;
}

/* A host-visible transfer-destination buffer of `size` bytes, mapped. */
struct host_buf {
   VkBuffer buf;
   VkDeviceMemory mem;
   void *map;
};

static void
host_buf_create(VkDeviceSize size, struct host_buf *out)
{
   const VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
   };
   CHECK_EQ_INT(sd_CreateBuffer(dev, &bi, NULL, &out->buf), VK_SUCCESS);
   VkMemoryRequirements req;
   sd_GetBufferMemoryRequirements(dev, out->buf, &req);
   out->map = NULL;
   out->mem = bind_memory(req, &out->map);
   CHECK_EQ_INT(sd_BindBufferMemory(dev, out->buf, out->mem, 0), VK_SUCCESS);
}

static void
host_buf_destroy(struct host_buf *b)
{
   sd_DestroyBuffer(dev, b->buf, NULL);
   sd_FreeMemory(dev, b->mem, NULL);
}

/* A primary command buffer of the test's pool, begun. */
static VkCommandBuffer
begin_cb(void)
{
   const VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer cb = VK_NULL_HANDLE;
   CHECK_EQ_INT(sd_AllocateCommandBuffers(dev, &ai, &cb), VK_SUCCESS);
   const VkCommandBufferBeginInfo cbi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   CHECK_EQ_INT(sd_BeginCommandBuffer(cb, &cbi), VK_SUCCESS);
   return cb;
}

struct img {
   VkImage image;
   VkDeviceMemory mem;
   VkImageView view;
};

static bool
img_create(VkFormat f, VkImageAspectFlags aspects, VkSampleCountFlagBits samples,
           uint32_t layers, struct img *out)
{
   const bool ds = aspects != VK_IMAGE_ASPECT_COLOR_BIT;
   const VkImageCreateInfo ci = {
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
   if (sd_CreateImage(dev, &ci, NULL, &out->image) != VK_SUCCESS)
      return false;
   VkMemoryRequirements req;
   sd_GetImageMemoryRequirements(dev, out->image, &req);
   out->mem = bind_memory(req, NULL);
   CHECK_EQ_INT(sd_BindImageMemory(dev, out->image, out->mem, 0), VK_SUCCESS);
   const VkImageViewCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = out->image,
      .viewType = layers > 1 ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D,
      .format = f,
      .subresourceRange = { aspects, 0, 1, 0, layers },
   };
   CHECK_EQ_INT(sd_CreateImageView(dev, &vi, NULL, &out->view), VK_SUCCESS);
   return true;
}

static void
img_destroy(struct img *i)
{
   sd_DestroyImageView(dev, i->view, NULL);
   sd_DestroyImage(dev, i->image, NULL);
   sd_FreeMemory(dev, i->mem, NULL);
}

static void
copy_out(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, uint32_t layers,
         VkBuffer buf, VkDeviceSize offset)
{
   const VkBufferImageCopy r = {
      .bufferOffset = offset,
      .imageSubresource = { aspect, 0, 0, layers },
      .imageExtent = { W, H, 1 },
   };
   sd_CmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
}

/* vkCreateRenderPass2 (VK_KHR_create_renderpass2, also drawn through the
 * loader by render/multiview): creation, the refusals, and vkCmdBeginRenderPass2 /
 * NextSubpass2 / EndRenderPass2 clearing an attachment on the subpass that
 * uses it first (when attachment images exist: `col`, else NULL). */
static void
test_render_pass2(const struct img *col)
{
   const VkAttachmentDescription2 att = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
      .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
   };
   const VkAttachmentReference2 ref = {
      .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2,
      .attachment = 0,
      .layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
   };
   VkSubpassDescription2 sub[2] = {
      { .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS },
      { .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
        .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &ref },
   };
   VkRenderPassCreateInfo2 ci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
      .attachmentCount = 1,
      .pAttachments = &att,
      .subpassCount = 2,
      .pSubpasses = sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   /* View masks and correlated view masks (multiview) are accepted. */
   sub[0].viewMask = 1;
   sub[1].viewMask = 3;
   const uint32_t corr = 3;
   ci.correlatedViewMaskCount = 1;
   ci.pCorrelatedViewMasks = &corr;
   CHECK_EQ_INT(sd_CreateRenderPass2(dev, &ci, NULL, &rp), VK_SUCCESS);
   sd_DestroyRenderPass(dev, rp, NULL);
   rp = VK_NULL_HANDLE;
   sub[0].viewMask = 0;
   sub[1].viewMask = 0;
   ci.correlatedViewMaskCount = 0;
   ci.pCorrelatedViewMasks = NULL;
   /* Refused: a depth/stencil resolve mode the device does not report
    * (AVERAGE of stencil values; render/ds_resolve runs the others). */
   const VkSubpassDescriptionDepthStencilResolve dsr = {
      .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE,
      .depthResolveMode = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT,
      .stencilResolveMode = VK_RESOLVE_MODE_AVERAGE_BIT,
      .pDepthStencilResolveAttachment = &ref,
   };
   sub[1].pNext = &dsr;
   CHECK_EQ_INT(sd_CreateRenderPass2(dev, &ci, NULL, &rp), VK_ERROR_FEATURE_NOT_PRESENT);
   sub[1].pNext = NULL;
   CHECK(rp == VK_NULL_HANDLE, "a refused render pass has a handle");
   CHECK_EQ_INT(sd_CreateRenderPass2(dev, &ci, NULL, &rp), VK_SUCCESS);
   if (!col) {
      fprintf(stderr, "note: no attachment images: vkCmdBeginRenderPass2 not tested\n");
      sd_DestroyRenderPass(dev, rp, NULL);
      return;
   }
   /* A single-layer view of the two-layer image. */
   const VkImageViewCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = col->image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1, 1 },
   };
   VkImageView view;
   CHECK_EQ_INT(sd_CreateImageView(dev, &vi, NULL, &view), VK_SUCCESS);
   const VkFramebufferCreateInfo fbi = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp,
      .attachmentCount = 1,
      .pAttachments = &view,
      .width = W,
      .height = H,
      .layers = 1,
   };
   VkFramebuffer fb;
   CHECK_EQ_INT(sd_CreateFramebuffer(dev, &fbi, NULL, &fb), VK_SUCCESS);
   struct host_buf hb;
   host_buf_create(W * H * 4, &hb);
   VkBuffer buf = hb.buf;
   void *map = hb.map;
   VkCommandBuffer cb = begin_cb();
   const VkClearColorValue black = { .float32 = { 0, 0, 0, 0 } };
   const VkImageSubresourceRange cr = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 2 };
   sd_CmdClearColorImage(cb, col->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &cr);
   const VkClearValue cv = { .color.float32 = { 1, 1, 1, 1 } };
   const VkRenderPassBeginInfo begin = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp,
      .framebuffer = fb,
      .renderArea = area,
      .clearValueCount = 1,
      .pClearValues = &cv,
   };
   const VkSubpassBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
                                    .contents = VK_SUBPASS_CONTENTS_INLINE };
   const VkSubpassEndInfo sei = { .sType = VK_STRUCTURE_TYPE_SUBPASS_END_INFO };
   sd_CmdBeginRenderPass2(cb, &begin, &sbi);
   sd_CmdNextSubpass2(cb, &sbi, &sei);
   sd_CmdEndRenderPass2(cb, &sei);
   const VkBufferImageCopy r = {
      .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 1 },
      .imageExtent = { W, H, 1 },
   };
   sd_CmdCopyImageToBuffer(cb, col->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &r);
   CHECK_EQ_INT(sd_EndCommandBuffer(cb), VK_SUCCESS);
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
   };
   CHECK_EQ_INT(sd_QueueSubmit(queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(sd_QueueWaitIdle(queue), VK_SUCCESS);
   const uint8_t *p = map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         const uint8_t v = in_area(x, y) ? 255 : 0;
         const uint8_t want[4] = { v, v, v, v };
         if (memcmp(p + ((size_t)y * W + x) * 4, want, 4) && bad++ < 5)
            CHECK(0, "render pass 2: (%u, %u) differs", x, y);
      }
   }
   CHECK(bad == 0, "render pass 2: %u texels differ", bad);
   sd_FreeCommandBuffers(dev, pool, 1, &cb);
   host_buf_destroy(&hb);
   sd_DestroyFramebuffer(dev, fb, NULL);
   sd_DestroyImageView(dev, view, NULL);
   sd_DestroyRenderPass(dev, rp, NULL);
}

static bool
run(void)
{
   struct img col, ds, ms, res;
   if (!img_create(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_ASPECT_COLOR_BIT, VK_SAMPLE_COUNT_1_BIT, 2,
                   &col) ||
       !img_create(VK_FORMAT_D24_UNORM_S8_UINT,
                   VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
                   VK_SAMPLE_COUNT_1_BIT, 2, &ds) ||
       !img_create(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_ASPECT_COLOR_BIT, VK_SAMPLE_COUNT_4_BIT, 1,
                   &ms) ||
       !img_create(VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_ASPECT_COLOR_BIT, VK_SAMPLE_COUNT_1_BIT, 1,
                   &res)) {
      fprintf(stderr, "note: no attachment images (formats are not reported as attachments "
                      "yet): dynamic rendering not tested\n");
      return false;
   }

   struct host_buf hb;
   host_buf_create(W * H * 4 * 8, &hb);
   VkBuffer buf = hb.buf;
   void *map = hb.map;

   VkCommandBuffer cb = begin_cb();

   /* Backgrounds. */
   const VkClearColorValue black = { .float32 = { 0, 0, 0, 0 } };
   const VkImageSubresourceRange cr = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, VK_REMAINING_ARRAY_LAYERS };
   sd_CmdClearColorImage(cb, col.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &cr);
   sd_CmdClearColorImage(cb, ms.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &cr);
   sd_CmdClearColorImage(cb, res.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &cr);
   const VkClearDepthStencilValue ds0 = { 0.0f, 0 };
   const VkImageSubresourceRange dr = { VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT, 0,
                                        1, 0, VK_REMAINING_ARRAY_LAYERS };
   sd_CmdClearDepthStencilImage(cb, ds.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &ds0, 1, &dr);

   /* Instance 1 (suspends): colour CLEAR red, depth CLEAR 1.0, stencil
    * LOAD (kept 0); a clear of a rect of colour on layer 1. */
   VkRenderingAttachmentInfo ca = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
      .imageView = col.view,
      .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .clearValue = { .color.float32 = { 1, 0, 0, 1 } },
   };
   VkRenderingAttachmentInfo da = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
      .imageView = ds.view,
      .imageLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .clearValue = { .depthStencil = { 1.0f, 0x33 } },
   };
   VkRenderingAttachmentInfo sa = da;
   sa.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
   VkRenderingInfo ri = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
      .flags = VK_RENDERING_SUSPENDING_BIT,
      .renderArea = area,
      .layerCount = 2,
      .colorAttachmentCount = 1,
      .pColorAttachments = &ca,
      .pDepthAttachment = &da,
      .pStencilAttachment = &sa,
   };
   sd_CmdBeginRendering(cb, &ri);
   const VkClearAttachment clr = { VK_IMAGE_ASPECT_COLOR_BIT, 0,
                                   { .color.float32 = { 0, 0, 1, 1 } } };
   const VkClearRect rect = { { { 4, 4 }, { 3, 2 } }, 1, 1 };
   sd_CmdClearAttachments(cb, 1, &clr, 1, &rect);
   sd_CmdEndRendering(cb);
   /* Instance 2 resumes it: load ops not applied again (CLEAR would make
    * the rect red); a stencil clear of a rect on both layers. */
   ri.flags = VK_RENDERING_RESUMING_BIT;
   sa.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
   sd_CmdBeginRendering(cb, &ri);
   const VkClearAttachment sclr = { VK_IMAGE_ASPECT_STENCIL_BIT, 0,
                                    { .depthStencil = { 0.0f, 0x77 } } };
   const VkClearRect srect = { { { 10, 8 }, { 4, 3 } }, 0, 2 };
   sd_CmdClearAttachments(cb, 1, &sclr, 1, &srect);
   sd_CmdEndRendering(cb);

   /* Instance 3 (multiview, view mask 0x1; layerCount ignored): colour
    * CLEAR red again on view 0 only (layer 1 keeps its blue rect), and
    * vkCmdClearAttachments green on a rect of view 0. */
   const VkRenderingInfo vri = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
      .renderArea = area,
      .layerCount = 2,
      .viewMask = 0x1,
      .colorAttachmentCount = 1,
      .pColorAttachments = &ca,
   };
   sd_CmdBeginRendering(cb, &vri);
   const VkClearAttachment gclr = { VK_IMAGE_ASPECT_COLOR_BIT, 0,
                                    { .color.float32 = { 0, 1, 0, 1 } } };
   const VkClearRect grect = { { { 12, 5 }, { 2, 2 } }, 0, 1 };
   sd_CmdClearAttachments(cb, 1, &gclr, 1, &grect);
   sd_CmdEndRendering(cb);

   /* Instance 4: 4 samples cleared to green and resolved at the end. */
   VkRenderingAttachmentInfo ma = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
      .imageView = ms.view,
      .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .resolveMode = VK_RESOLVE_MODE_AVERAGE_BIT,
      .resolveImageView = res.view,
      .resolveImageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .clearValue = { .color.float32 = { 0, 1, 0, 1 } },
   };
   const VkRenderingInfo mri = {
      .sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
      .renderArea = area,
      .layerCount = 1,
      .colorAttachmentCount = 1,
      .pColorAttachments = &ma,
   };
   sd_CmdBeginRendering(cb, &mri);
   sd_CmdEndRendering(cb);

   const size_t plane = (size_t)W * H;
   copy_out(cb, col.image, VK_IMAGE_ASPECT_COLOR_BIT, 2, buf, 0);
   copy_out(cb, ds.image, VK_IMAGE_ASPECT_DEPTH_BIT, 2, buf, plane * 2 * 4);
   copy_out(cb, ds.image, VK_IMAGE_ASPECT_STENCIL_BIT, 2, buf, plane * 4 * 4);
   copy_out(cb, res.image, VK_IMAGE_ASPECT_COLOR_BIT, 1, buf, plane * 5 * 4);
   CHECK_EQ_INT(sd_EndCommandBuffer(cb), VK_SUCCESS);
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
   };
   CHECK_EQ_INT(sd_QueueSubmit(queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(sd_QueueWaitIdle(queue), VK_SUCCESS);

   const uint8_t *p = map;
   unsigned bad = 0;
   for (uint32_t l = 0; l < 2; l++) {
      for (uint32_t y = 0; y < H; y++) {
         for (uint32_t x = 0; x < W; x++) {
            const size_t i = (size_t)l * plane + (size_t)y * W + x;
            const bool in = in_area(x, y);
            const bool blue = l == 1 && x >= 4 && x < 7 && y >= 4 && y < 6;
            const bool green = l == 0 && x >= 12 && x < 14 && y >= 5 && y < 7;
            const uint8_t want_c[4] = { in && !blue && !green ? 255 : 0, in && green ? 255 : 0,
                                        in && blue ? 255 : 0, in ? 255 : 0 };
            uint32_t d;
            memcpy(&d, p + plane * 2 * 4 + i * 4, 4);
            const uint32_t want_d = in ? 0xffffff : 0;
            const bool srect2 = x >= 10 && x < 14 && y >= 8 && y < 11;
            const uint8_t want_s = in && srect2 ? 0x77 : 0;
            const uint8_t s = p[plane * 4 * 4 + i];
            if ((memcmp(p + i * 4, want_c, 4) || (d & 0xffffff) != want_d || s != want_s) &&
                bad++ < 5)
               CHECK(0, "layer %u (%u, %u): colour %u %u %u %u depth 0x%x stencil 0x%x", l, x, y,
                     p[i * 4], p[i * 4 + 1], p[i * 4 + 2], p[i * 4 + 3], d & 0xffffff, s);
         }
      }
   }
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         const bool in = in_area(x, y);
         const uint8_t want[4] = { 0, in ? 255 : 0, 0, in ? 255 : 0 };
         const uint8_t *got = p + plane * 5 * 4 + ((size_t)y * W + x) * 4;
         if (memcmp(got, want, 4) && bad++ < 10)
            CHECK(0, "resolve (%u, %u): %u %u %u %u", x, y, got[0], got[1], got[2], got[3]);
      }
   }
   CHECK(bad == 0, "%u texels differ", bad);
   test_render_pass2(&col);

   sd_FreeCommandBuffers(dev, pool, 1, &cb);
   host_buf_destroy(&hb);
   img_destroy(&col);
   img_destroy(&ds);
   img_destroy(&ms);
   img_destroy(&res);
   return true;
}

int
main(void)
{
   const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .apiVersion = VK_API_VERSION_1_0,
   };
   const VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
   };
   VkInstance instance;
   CHECK_EQ_INT(sd_CreateInstance(&ici, NULL, &instance), VK_SUCCESS);
   uint32_t count = 1;
   CHECK_EQ_INT(sd_EnumeratePhysicalDevices(instance, &count, &pdev), VK_SUCCESS);
   sd_GetPhysicalDeviceMemoryProperties(pdev, &mem_props);
   const float prio = 1.0f;
   const VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueCount = 1,
      .pQueuePriorities = &prio,
   };
   const VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
   };
   CHECK_EQ_INT(sd_CreateDevice(pdev, &dci, NULL, &dev), VK_SUCCESS);
   sd_GetDeviceQueue(dev, 0, 0, &queue);
   const VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO };
   CHECK_EQ_INT(sd_CreateCommandPool(dev, &pci, NULL, &pool), VK_SUCCESS);
   if (!run())
      test_render_pass2(NULL);
   sd_DestroyCommandPool(dev, pool, NULL);
   sd_DestroyDevice(dev, NULL);
   sd_DestroyInstance(instance, NULL);
   return check_finish();
}
