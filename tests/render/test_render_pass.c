/* Render passes and framebuffers through the loader: creation (1.0 form,
 * lowered to the create_renderpass2 form inside the driver), the render
 * area granularity, framebuffers, and what the driver refuses honestly. */
#include <string.h>

#include "check.h"
#include "vkt.h"

/* Two subpasses with no attachments and a dependency between them; a
 * framebuffer with no attachments. Valid usage whatever format features
 * the driver reports, so it runs with the validation layer. */
static void
test_objects(void)
{
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return;
   }
   const VkSubpassDescription sub[2] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS },
   };
   const VkSubpassDependency dep = {
      0, 1, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, 0,
   };
   const VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .subpassCount = 2,
      .pSubpasses = sub,
      .dependencyCount = 1,
      .pDependencies = &dep,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t.device, &rpi, NULL, &rp), VK_SUCCESS);
   VkExtent2D g = { 0, 0 };
   vkGetRenderAreaGranularity(t.device, rp, &g);
   CHECK(g.width == 1 && g.height == 1, "render area granularity %ux%u, expected 1x1", g.width,
         g.height);
   const VkFramebufferCreateInfo fbi = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp,
      .width = 32,
      .height = 16,
      .layers = 2,
   };
   VkFramebuffer fb = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateFramebuffer(t.device, &fbi, NULL, &fb), VK_SUCCESS);
   CHECK(fb != VK_NULL_HANDLE, "no framebuffer handle");
   vkDestroyFramebuffer(t.device, fb, NULL);
   vkDestroyRenderPass(t.device, rp, NULL);
   /* Destroying VK_NULL_HANDLE is a no-op. */
   vkDestroyRenderPass(t.device, VK_NULL_HANDLE, NULL);
   vkDestroyFramebuffer(t.device, VK_NULL_HANDLE, NULL);
   vkt_finish(&t);
}

/* What is not claimed is refused, not half done. These create infos use
 * structs of extensions the device does not offer (imageless
 * framebuffers), which is invalid usage: this part runs without the
 * validation layer. Also: a render pass using every kind of reference
 * (colour, resolve, input with an aspect, depth/stencil, preserve) is
 * created and destroyed. */
static void
test_refusals(void)
{
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return;
   }
   const VkAttachmentDescription att[4] = {
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_4_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL },
      { 0, VK_FORMAT_D24_UNORM_S8_UINT, VK_SAMPLE_COUNT_4_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_LOAD,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL },
   };
   const VkAttachmentReference col = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference res = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference ds = { 2, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference in = { 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   const VkAttachmentReference out = { 3, VK_IMAGE_LAYOUT_GENERAL };
   const uint32_t preserve = 2;
   const VkSubpassDescription sub[2] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &col, .pResolveAttachments = &res, .pDepthStencilAttachment = &ds },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .inputAttachmentCount = 1,
        .pInputAttachments = &in, .colorAttachmentCount = 1, .pColorAttachments = &out,
        .preserveAttachmentCount = 1, .pPreserveAttachments = &preserve },
   };
   const VkInputAttachmentAspectReference aspect = { 1, 0, VK_IMAGE_ASPECT_COLOR_BIT };
   const VkRenderPassInputAttachmentAspectCreateInfo aspects = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_INPUT_ATTACHMENT_ASPECT_CREATE_INFO,
      .aspectReferenceCount = 1,
      .pAspectReferences = &aspect,
   };
   VkRenderPassCreateInfo rpi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .pNext = &aspects,
      .attachmentCount = 4,
      .pAttachments = att,
      .subpassCount = 2,
      .pSubpasses = sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t.device, &rpi, NULL, &rp), VK_SUCCESS);
   vkDestroyRenderPass(t.device, rp, NULL);

   /* Zero view masks are a render pass without multiview (nonzero ones:
    * render/multiview). */
   const uint32_t zero[2] = { 0, 0 };
   const VkRenderPassMultiviewCreateInfo mv0 = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO,
      .subpassCount = 2,
      .pViewMasks = zero,
   };
   rpi.pNext = &mv0;
   CHECK_EQ_INT(vkCreateRenderPass(t.device, &rpi, NULL, &rp), VK_SUCCESS);

   /* (Imageless framebuffers are offered: render/imageless.) */
   vkDestroyRenderPass(t.device, rp, NULL);
   vkt_finish(&t);
}

int
main(void)
{
   test_objects();
   test_refusals();
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
