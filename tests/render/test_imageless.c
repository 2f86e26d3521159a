/* VK_KHR_imageless_framebuffer and VK_KHR_image_format_list, through the
 * loader with the validation layer, on Shale and (when present) lavapipe.
 * Four 16x16 R8G8B8A8_UNORM images are created MUTABLE_FORMAT with a
 * VkImageFormatListCreateInfo of {UNORM, SRGB} (the query
 * vkGetPhysicalDeviceImageFormatProperties2 with that list must answer as
 * without it). One command buffer records two instances of one render pass
 * on one imageless framebuffer: the first (vkCmdBeginRenderPass) with image
 * A's view, clear red and a green triangle; the second
 * (vkCmdBeginRenderPass2KHR) with image B's view, clear blue and a yellow
 * triangle of another shape. The view array handed to the first begin is
 * overwritten before the second is recorded (begin info is copied at
 * record time). The same two scenes are drawn into C and D through normal
 * framebuffers; A must equal C and B equal D texel for texel, and each
 * must hold its own clear colour in a corner and its triangle's colour at
 * a covered texel. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"

#define SIZE 16
#define IMAGES 4

static const VkFormat view_formats[2] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB };
static const VkImageUsageFlags usage =
   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;

static const float verts[6][8] = {
   /* green: lower-left half */
   { -1, -1, 0.5f, 1, 0, 1, 0, 1 }, { 1, -1, 0.5f, 1, 0, 1, 0, 1 }, { -1, 1, 0.5f, 1, 0, 1, 0, 1 },
   /* yellow: a thin triangle on the right */
   { 0.25f, -0.75f, 0.5f, 1, 1, 1, 0, 1 }, { 0.9f, 0.9f, 0.5f, 1, 1, 1, 0, 1 },
   { 0.5f, 0.9f, 0.5f, 1, 1, 1, 0, 1 },
};

static void
record_scene(VkCommandBuffer cb, const struct draw_pipeline *p, VkBuffer vb, int scene)
{
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
   VkDeviceSize off = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &vb, &off);
   const VkViewport vp = { 0, 0, SIZE, SIZE, 0, 1 };
   const VkRect2D sc = { { 0, 0 }, { SIZE, SIZE } };
   vkCmdSetViewport(cb, 0, 1, &vp);
   vkCmdSetScissor(cb, 0, 1, &sc);
   vkCmdDraw(cb, 3, 1, scene * 3, 0);
}

static void
run(struct vkt *t)
{
   const char *drv = vkt_driver_name(t->driver);
   PFN_vkCmdBeginRenderPass2KHR begin2 =
      (PFN_vkCmdBeginRenderPass2KHR)vkGetDeviceProcAddr(t->device, "vkCmdBeginRenderPass2KHR");
   CHECK(begin2 != NULL, "%s: vkCmdBeginRenderPass2KHR", drv);
   if (!begin2)
      return;

   /* The format list changes nothing the query answers. */
   VkImageFormatListCreateInfo list = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO,
      .viewFormatCount = 2,
      .pViewFormats = view_formats,
   };
   VkPhysicalDeviceImageFormatInfo2 qi = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .type = VK_IMAGE_TYPE_2D,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT,
   };
   VkImageFormatProperties2 plain = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
   VkImageFormatProperties2 listed = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
   VkResult r1 = vkGetPhysicalDeviceImageFormatProperties2(t->pdev, &qi, &plain);
   qi.pNext = &list;
   VkResult r2 = vkGetPhysicalDeviceImageFormatProperties2(t->pdev, &qi, &listed);
   CHECK(r1 == VK_SUCCESS && r2 == VK_SUCCESS &&
            !memcmp(&plain.imageFormatProperties, &listed.imageFormatProperties,
                    sizeof(plain.imageFormatProperties)),
         "%s: image format query with a format list: %d %d, same answer", drv, r1, r2);

   struct vkt_image img[IMAGES];
   VkImageView view[IMAGES];
   memset(img, 0, sizeof(img));
   memset(view, 0, sizeof(view));
   bool ok = true;
   for (int i = 0; ok && i < IMAGES; i++) {
      VkImageCreateInfo ici = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
         .pNext = &list,
         .flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT,
         .imageType = VK_IMAGE_TYPE_2D,
         .format = VK_FORMAT_R8G8B8A8_UNORM,
         .extent = { SIZE, SIZE, 1 },
         .mipLevels = 1,
         .arrayLayers = 1,
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = usage,
      };
      ok = vkt_image_create(t, &ici, &img[i]) == VK_SUCCESS;
      VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
         .image = img[i].image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D,
         .format = VK_FORMAT_R8G8B8A8_UNORM,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
      };
      ok = ok && vkCreateImageView(t->device, &vci, NULL, &view[i]) == VK_SUCCESS;
   }
   CHECK(ok, "%s: MUTABLE_FORMAT images with a view format list, and views", drv);

   VkRenderPass rp = VK_NULL_HANDLE;
   ok = ok && draw_color_pass(t, VK_FORMAT_R8G8B8A8_UNORM, &draw_dep_color_to_transfer, 1,
                              &rp) == VK_SUCCESS;

   const VkFramebufferAttachmentImageInfo aii = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENT_IMAGE_INFO,
      .flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT,
      .usage = usage,
      .width = SIZE,
      .height = SIZE,
      .layerCount = 1,
      .viewFormatCount = 2,
      .pViewFormats = view_formats,
   };
   const VkFramebufferAttachmentsCreateInfo faci = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_ATTACHMENTS_CREATE_INFO,
      .attachmentImageInfoCount = 1,
      .pAttachmentImageInfos = &aii,
   };
   const VkFramebufferCreateInfo fci = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .pNext = &faci,
      .flags = VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT,
      .renderPass = rp,
      .attachmentCount = 1,
      .width = SIZE,
      .height = SIZE,
      .layers = 1,
   };
   VkFramebuffer imageless = VK_NULL_HANDLE, fb_c = VK_NULL_HANDLE, fb_d = VK_NULL_HANDLE;
   VkResult r = ok ? vkCreateFramebuffer(t->device, &fci, NULL, &imageless) : VK_ERROR_UNKNOWN;
   CHECK(r == VK_SUCCESS, "%s: imageless framebuffer: %d", drv, r);
   ok = ok && r == VK_SUCCESS &&
        draw_framebuffer(t, rp, &view[2], 1, SIZE, SIZE, 1, &fb_c) == VK_SUCCESS &&
        draw_framebuffer(t, rp, &view[3], 1, SIZE, SIZE, 1, &fb_d) == VK_SUCCESS;

   struct draw_pipeline_info pi = {
      .vs = pos_color_vert_spv, .vs_size = sizeof(pos_color_vert_spv),
      .fs = flat_color_frag_spv, .fs_size = sizeof(flat_color_frag_spv),
      .stride = 32,
      .attrib_count = 2,
      .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
      .attrib_offset = { 0, 16 },
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .dynamic_viewport_scissor = true,
      .render_pass = rp,
      .color_count = 1,
   };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   struct vkt_buffer vb = { 0 }, rb = { 0 };
   ok = ok && draw_pipeline_create(t, NULL, &pi, &p) == VK_SUCCESS &&
        draw_upload(t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb) ==
           VK_SUCCESS &&
        vkt_buffer_create(t, (VkDeviceSize)IMAGES * SIZE * SIZE * 4,
                          VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb) == VK_SUCCESS;
   CHECK(ok, "%s: render pass, framebuffers, pipeline, buffers", drv);
   if (ok) {
      static const VkClearValue clears[2] = { { .color = { .float32 = { 1, 0, 0, 1 } } },
                                              { .color = { .float32 = { 0, 0, 1, 1 } } } };
      VkCommandBuffer cb = vkt_begin(t);
      /* Instance 1: A through the imageless framebuffer, vkCmdBeginRenderPass. */
      VkImageView given[1] = { view[0] };
      VkRenderPassAttachmentBeginInfo abi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_ATTACHMENT_BEGIN_INFO,
         .attachmentCount = 1,
         .pAttachments = given,
      };
      VkRenderPassBeginInfo bi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
         .pNext = &abi,
         .renderPass = rp,
         .framebuffer = imageless,
         .renderArea = { { 0, 0 }, { SIZE, SIZE } },
         .clearValueCount = 1,
         .pClearValues = &clears[0],
      };
      vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
      record_scene(cb, &p, vb.buffer, 0);
      vkCmdEndRenderPass(cb);
      /* Instance 2: B, vkCmdBeginRenderPass2KHR; the array is reused. */
      given[0] = view[1];
      bi.pClearValues = &clears[1];
      const VkSubpassBeginInfo sbi = { .sType = VK_STRUCTURE_TYPE_SUBPASS_BEGIN_INFO,
                                       .contents = VK_SUBPASS_CONTENTS_INLINE };
      begin2(cb, &bi, &sbi);
      record_scene(cb, &p, vb.buffer, 1);
      vkCmdEndRenderPass(cb);
      given[0] = VK_NULL_HANDLE;
      /* The same scenes through normal framebuffers. */
      bi.pNext = NULL;
      for (int s = 0; s < 2; s++) {
         bi.framebuffer = s ? fb_d : fb_c;
         bi.pClearValues = &clears[s];
         vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
         record_scene(cb, &p, vb.buffer, s);
         vkCmdEndRenderPass(cb);
      }
      for (int i = 0; i < IMAGES; i++)
         draw_copy_to_buffer(cb, img[i].image, VK_IMAGE_ASPECT_COLOR_BIT, SIZE, SIZE, rb.buffer,
                             (VkDeviceSize)i * SIZE * SIZE * 4);
      draw_host_barrier(cb);
      r = vkt_submit_wait(t, cb);
      CHECK(r == VK_SUCCESS, "%s: submit: %d", drv, r);
      const uint32_t *px = rb.map;
      static const uint32_t clear_px[2] = { 0xff0000ffu, 0xffff0000u };
      static const uint32_t tri_px[2] = { 0xff00ff00u, 0xff00ffffu };
      /* A covered texel of each triangle: (2, 2) and (12, 12). */
      static const int at[2][2] = { { 2, 2 }, { 12, 12 } };
      for (int s = 0; s < 2; s++) {
         const uint32_t *got = px + s * SIZE * SIZE, *want = px + (2 + s) * SIZE * SIZE;
         unsigned diff = 0, first = SIZE * SIZE, tri = 0;
         for (unsigned i = 0; i < SIZE * SIZE; i++) {
            if (got[i] != want[i] && !diff++)
               first = i;
            tri += got[i] == tri_px[s];
         }
         CHECK(diff == 0, "%s: imageless instance %d: %u texels differ from the normal "
               "framebuffer's (first (%u,%u): %08x, expected %08x)", drv, s, diff, first % SIZE,
               first / SIZE, diff ? got[first] : 0, diff ? want[first] : 0);
         CHECK(got[SIZE * SIZE - 1] == clear_px[s] && want[SIZE * SIZE - 1] == clear_px[s],
               "%s: instance %d: corner %08x / %08x, clear colour %08x", drv, s,
               got[SIZE * SIZE - 1], want[SIZE * SIZE - 1], clear_px[s]);
         const uint32_t c = got[at[s][1] * SIZE + at[s][0]];
         CHECK(c == tri_px[s], "%s: instance %d: texel (%d,%d) %08x, triangle %08x", drv, s,
               at[s][0], at[s][1], c, tri_px[s]);
         CHECK(tri > 8 && tri < SIZE * SIZE - 8, "%s: instance %d: %u triangle texels", drv, s,
               tri);
      }
   }
   vkt_buffer_destroy(t, &rb);
   vkt_buffer_destroy(t, &vb);
   draw_pipeline_destroy(t, &p);
   vkDestroyFramebuffer(t->device, imageless, NULL);
   vkDestroyFramebuffer(t->device, fb_c, NULL);
   vkDestroyFramebuffer(t->device, fb_d, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   for (int i = 0; i < IMAGES; i++) {
      vkDestroyImageView(t->device, view[i], NULL);
      vkt_image_destroy(t, &img[i]);
   }
}

int
main(void)
{
   static const char *const exts[] = { "VK_KHR_image_format_list", "VK_KHR_imageless_framebuffer",
                                       "VK_KHR_create_renderpass2",
                                       "VK_KHR_multiview" };
   static const VkPhysicalDeviceImagelessFramebufferFeatures feat = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES,
      .imagelessFramebuffer = VK_TRUE,
   };
   for (int d = 0; d < 2; d++) {
      struct vkt_options opts = {
         .driver = d ? VKT_LAVAPIPE : VKT_SHALE,
         .api_version = VK_API_VERSION_1_1,
         .device_extensions = exts,
         .device_extension_count = sizeof(exts) / sizeof(exts[0]),
         .device_pnext = &feat,
      };
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
