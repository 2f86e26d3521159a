/* VkRenderPass (1.0 lowered to the create_renderpass2 form) and VkFramebuffer. */
#include "sd_render_pass.h"

#include <string.h>

#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_image.h"
#include "sd_util.h"
#include "util/su_format.h"

/* ---- render passes ---- */

static VkImageAspectFlags
sd_format_aspects(VkFormat format)
{
   const struct su_format_desc *d = su_format_desc(format);
   return d ? d->aspects : VK_IMAGE_ASPECT_COLOR_BIT;
}

/* Carves `size` bytes (a multiple of 8 keeps later arrays aligned) from *p. */
static void *
sd_rp_carve(char **p, size_t size)
{
   void *r = *p;
   *p += (size + 7) & ~(size_t)7;
   return r;
}

static size_t
sd_rp_array(size_t elem, uint32_t n)
{
   return ((elem * n) + 7) & ~(size_t)7;
}

static void
sd_rp_use(struct sd_render_pass *rp, uint32_t attachment, uint32_t subpass)
{
   if (attachment == VK_ATTACHMENT_UNUSED)
      return;
   struct sd_rp_attachment *a = &rp->attachments[attachment];
   if (a->first_subpass == UINT32_MAX)
      a->first_subpass = subpass;
   a->last_subpass = subpass;
}

static struct sd_rp_ref *
sd_rp_copy_refs(struct sd_rp_ref *dst, const VkAttachmentReference2 *src, uint32_t n,
                const struct sd_render_pass *rp, bool input)
{
   for (uint32_t i = 0; i < n; i++) {
      dst[i].attachment = src[i].attachment;
      dst[i].layout = src[i].layout;
      const VkAttachmentReferenceStencilLayout *sl =
         sd_find_struct(&src[i], VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_STENCIL_LAYOUT);
      dst[i].stencil_layout = sl ? sl->stencilLayout : src[i].layout;
      dst[i].aspects = 0;
      if (src[i].attachment != VK_ATTACHMENT_UNUSED) {
         const VkImageAspectFlags all = rp->attachments[src[i].attachment].aspects;
         /* Input attachments read the aspects they name (all of them when
          * nothing narrowed them); other references use every aspect. */
         dst[i].aspects = input && src[i].aspectMask ? (src[i].aspectMask & all) : all;
      }
   }
   return dst + n;
}

/* Whether a subpass needs something this driver refuses (logs which): a
 * depth/stencil resolve mode the driver does not report. */
static VkResult
sd_rp_check_subpass(const VkSubpassDescription2 *sp)
{
   const VkSubpassDescriptionDepthStencilResolve *dsr =
      sd_find_struct(sp, VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE);
   if (dsr && dsr->pDepthStencilResolveAttachment &&
       dsr->pDepthStencilResolveAttachment->attachment != VK_ATTACHMENT_UNUSED &&
       ((dsr->depthResolveMode & ~SD_DEPTH_RESOLVE_MODES) ||
        (dsr->stencilResolveMode & ~SD_STENCIL_RESOLVE_MODES)))
      return sd_errorf(VK_ERROR_FEATURE_NOT_PRESENT,
                       "render pass: a depth/stencil resolve mode that is not supported");
   return VK_SUCCESS;
}

bool
sd_subpass_uses(const struct sd_subpass *sp, uint32_t a)
{
   for (uint32_t i = 0; i < sp->input_count; i++) {
      if (sp->inputs[i].attachment == a)
         return true;
   }
   for (uint32_t i = 0; i < sp->color_count; i++) {
      if (sp->colors[i].attachment == a || (sp->resolves && sp->resolves[i].attachment == a))
         return true;
   }
   return sp->depth_stencil.attachment == a || sp->ds_resolve.attachment == a;
}

static VkResult
sd_render_pass_create(struct sd_device *device, const VkRenderPassCreateInfo2 *ci,
                      const VkAllocationCallbacks *pAllocator, VkRenderPass *out)
{
   /* pNext of VkRenderPassCreateInfo2: nothing this driver claims extends
    * it (fragment density maps, creation feedback and control are not
    * offered); ignored. Correlated view masks are a hint that views may be
    * rendered together: every view is rendered on its own anyway. */
   uint32_t ref_count = 0, preserve_count = 0;
   for (uint32_t s = 0; s < ci->subpassCount; s++) {
      const VkSubpassDescription2 *sp = &ci->pSubpasses[s];
      VkResult r = sd_rp_check_subpass(sp);
      if (r != VK_SUCCESS)
         return r;
      ref_count += sp->inputAttachmentCount + sp->colorAttachmentCount * 2;
      preserve_count += sp->preserveAttachmentCount;
   }
   const size_t size = sd_rp_array(sizeof(struct sd_render_pass), 1) +
                       sd_rp_array(sizeof(VkSubpassDependency2), ci->dependencyCount) +
                       sd_rp_array(sizeof(struct sd_subpass), ci->subpassCount) +
                       sd_rp_array(sizeof(struct sd_rp_attachment), ci->attachmentCount) +
                       sd_rp_array(sizeof(struct sd_rp_ref), ref_count) +
                       sd_rp_array(sizeof(uint32_t), preserve_count);
   struct sd_render_pass *rp =
      sd_device_object_alloc(device, pAllocator, size, VK_OBJECT_TYPE_RENDER_PASS);
   if (!rp)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   char *p = (char *)rp + sd_rp_array(sizeof(*rp), 1);
   rp->view_layers = 0;
   rp->dependency_count = ci->dependencyCount;
   rp->dependencies = sd_rp_carve(&p, sizeof(VkSubpassDependency2) * ci->dependencyCount);
   rp->subpass_count = ci->subpassCount;
   rp->subpasses = sd_rp_carve(&p, sizeof(struct sd_subpass) * ci->subpassCount);
   rp->attachment_count = ci->attachmentCount;
   rp->attachments = sd_rp_carve(&p, sizeof(struct sd_rp_attachment) * ci->attachmentCount);
   struct sd_rp_ref *refs = sd_rp_carve(&p, sizeof(struct sd_rp_ref) * ref_count);
   uint32_t *preserves = sd_rp_carve(&p, sizeof(uint32_t) * preserve_count);

   for (uint32_t i = 0; i < ci->attachmentCount; i++) {
      const VkAttachmentDescription2 *a = &ci->pAttachments[i];
      rp->attachments[i] = (struct sd_rp_attachment) {
         .format = a->format,
         .samples = a->samples,
         .load_op = a->loadOp,
         .store_op = a->storeOp,
         .stencil_load_op = a->stencilLoadOp,
         .stencil_store_op = a->stencilStoreOp,
         .initial_layout = a->initialLayout,
         .final_layout = a->finalLayout,
         .aspects = sd_format_aspects(a->format),
         .first_subpass = UINT32_MAX,
         .last_subpass = UINT32_MAX,
      };
   }
   for (uint32_t i = 0; i < ci->dependencyCount; i++) {
      rp->dependencies[i] = ci->pDependencies[i];
      rp->dependencies[i].pNext = NULL;
      /* A dependency of a subpass on itself: barriers inside it flush. */
      const VkSubpassDependency2 *d = &ci->pDependencies[i];
      if (d->srcSubpass == d->dstSubpass && d->srcSubpass < ci->subpassCount)
         rp->subpasses[d->srcSubpass].self_dependency = true;
   }
   for (uint32_t s = 0; s < ci->subpassCount; s++) {
      const VkSubpassDescription2 *src = &ci->pSubpasses[s];
      struct sd_subpass *sp = &rp->subpasses[s];
      const bool self = sp->self_dependency;
      memset(sp, 0, sizeof(*sp));
      sp->self_dependency = self;
      sp->view_mask = src->viewMask;
      for (uint32_t m = src->viewMask; m; m &= m - 1) {
         const uint32_t layers = (uint32_t)__builtin_ctz(m) + 1;
         if (layers > rp->view_layers)
            rp->view_layers = layers;
      }
      sp->input_count = src->inputAttachmentCount;
      sp->inputs = refs;
      refs = sd_rp_copy_refs(refs, src->pInputAttachments, src->inputAttachmentCount, rp, true);
      sp->color_count = src->colorAttachmentCount;
      sp->colors = refs;
      refs = sd_rp_copy_refs(refs, src->pColorAttachments, src->colorAttachmentCount, rp, false);
      if (src->pResolveAttachments) {
         sp->resolves = refs;
         refs = sd_rp_copy_refs(refs, src->pResolveAttachments, src->colorAttachmentCount, rp,
                                false);
      }
      sp->depth_stencil.attachment = VK_ATTACHMENT_UNUSED;
      if (src->pDepthStencilAttachment)
         sd_rp_copy_refs(&sp->depth_stencil, src->pDepthStencilAttachment, 1, rp, false);
      sp->ds_resolve.attachment = VK_ATTACHMENT_UNUSED;
      const VkSubpassDescriptionDepthStencilResolve *dsr =
         sd_find_struct(src, VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_DEPTH_STENCIL_RESOLVE);
      if (dsr && dsr->pDepthStencilResolveAttachment &&
          sp->depth_stencil.attachment != VK_ATTACHMENT_UNUSED) {
         sd_rp_copy_refs(&sp->ds_resolve, dsr->pDepthStencilResolveAttachment, 1, rp, false);
         sp->depth_resolve_mode = dsr->depthResolveMode;
         sp->stencil_resolve_mode = dsr->stencilResolveMode;
      }
      sp->preserve_count = src->preserveAttachmentCount;
      sp->preserves = preserves;
      if (src->preserveAttachmentCount)
         memcpy(preserves, src->pPreserveAttachments,
                sizeof(uint32_t) * src->preserveAttachmentCount);
      preserves += src->preserveAttachmentCount;

      for (uint32_t i = 0; i < sp->input_count; i++)
         sd_rp_use(rp, sp->inputs[i].attachment, s);
      for (uint32_t i = 0; i < sp->color_count; i++) {
         const uint32_t a = sp->colors[i].attachment;
         sd_rp_use(rp, a, s);
         if (a != VK_ATTACHMENT_UNUSED && !sp->samples)
            sp->samples = rp->attachments[a].samples;
         if (sp->resolves)
            sd_rp_use(rp, sp->resolves[i].attachment, s);
      }
      const uint32_t ds = sp->depth_stencil.attachment;
      sd_rp_use(rp, ds, s);
      sd_rp_use(rp, sp->ds_resolve.attachment, s);
      if (ds != VK_ATTACHMENT_UNUSED && !sp->samples)
         sp->samples = rp->attachments[ds].samples;
   }
   *out = sd_render_pass_to_handle(rp);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateRenderPass2(VkDevice _device, const VkRenderPassCreateInfo2 *pCreateInfo,
                     const VkAllocationCallbacks *pAllocator, VkRenderPass *pRenderPass)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   return sd_render_pass_create(device, pCreateInfo, pAllocator, pRenderPass);
}

/* The 1.0 create info in the 2 form. Everything lives in one temporary
 * allocation (command scope), freed before returning. */
VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateRenderPass(VkDevice _device, const VkRenderPassCreateInfo *ci,
                    const VkAllocationCallbacks *pAllocator, VkRenderPass *pRenderPass)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   /* pNext: VkRenderPassMultiviewCreateInfo (view masks, view offsets,
    * correlation masks), VkRenderPassInputAttachmentAspectCreateInfo (the aspects
    * input attachments read); others ignored. */
   const VkRenderPassMultiviewCreateInfo *mv =
      sd_find_struct(ci, VK_STRUCTURE_TYPE_RENDER_PASS_MULTIVIEW_CREATE_INFO);
   const VkRenderPassInputAttachmentAspectCreateInfo *ia =
      sd_find_struct(ci, VK_STRUCTURE_TYPE_RENDER_PASS_INPUT_ATTACHMENT_ASPECT_CREATE_INFO);

   uint32_t ref_count = 0;
   for (uint32_t s = 0; s < ci->subpassCount; s++) {
      const VkSubpassDescription *sp = &ci->pSubpasses[s];
      ref_count += sp->inputAttachmentCount + sp->colorAttachmentCount * 2 + 1;
   }
   const size_t size = sd_rp_array(sizeof(VkAttachmentDescription2), ci->attachmentCount) +
                       sd_rp_array(sizeof(VkSubpassDescription2), ci->subpassCount) +
                       sd_rp_array(sizeof(VkSubpassDependency2), ci->dependencyCount) +
                       sd_rp_array(sizeof(VkAttachmentReference2), ref_count);
   char *mem = sd_alloc(alloc, size ? size : 1, SD_ALIGN_DEFAULT,
                        VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
   if (!mem)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   char *p = mem;
   VkSubpassDescription2 *subpasses =
      sd_rp_carve(&p, sizeof(VkSubpassDescription2) * ci->subpassCount);
   VkSubpassDependency2 *deps = sd_rp_carve(&p, sizeof(VkSubpassDependency2) * ci->dependencyCount);
   VkAttachmentDescription2 *atts =
      sd_rp_carve(&p, sizeof(VkAttachmentDescription2) * ci->attachmentCount);
   VkAttachmentReference2 *refs = sd_rp_carve(&p, sizeof(VkAttachmentReference2) * ref_count);

   for (uint32_t i = 0; i < ci->attachmentCount; i++) {
      const VkAttachmentDescription *a = &ci->pAttachments[i];
      atts[i] = (VkAttachmentDescription2) {
         .sType = VK_STRUCTURE_TYPE_ATTACHMENT_DESCRIPTION_2,
         .flags = a->flags,
         .format = a->format,
         .samples = a->samples,
         .loadOp = a->loadOp,
         .storeOp = a->storeOp,
         .stencilLoadOp = a->stencilLoadOp,
         .stencilStoreOp = a->stencilStoreOp,
         .initialLayout = a->initialLayout,
         .finalLayout = a->finalLayout,
      };
   }
#define SD_REFS(dst, src, n)                                                              \
   do {                                                                                   \
      dst = refs;                                                                         \
      for (uint32_t k = 0; k < (n); k++)                                                  \
         *refs++ = (VkAttachmentReference2) { .sType = VK_STRUCTURE_TYPE_ATTACHMENT_REFERENCE_2, \
                                              .attachment = (src)[k].attachment,          \
                                              .layout = (src)[k].layout };                \
   } while (0)
   for (uint32_t s = 0; s < ci->subpassCount; s++) {
      const VkSubpassDescription *sp = &ci->pSubpasses[s];
      VkSubpassDescription2 *d = &subpasses[s];
      *d = (VkSubpassDescription2) {
         .sType = VK_STRUCTURE_TYPE_SUBPASS_DESCRIPTION_2,
         .flags = sp->flags,
         .pipelineBindPoint = sp->pipelineBindPoint,
         .viewMask = mv && s < mv->subpassCount ? mv->pViewMasks[s] : 0,
         .inputAttachmentCount = sp->inputAttachmentCount,
         .colorAttachmentCount = sp->colorAttachmentCount,
         .preserveAttachmentCount = sp->preserveAttachmentCount,
         .pPreserveAttachments = sp->pPreserveAttachments,
      };
      const VkAttachmentReference2 *in, *col, *res = NULL, *ds = NULL;
      SD_REFS(in, sp->pInputAttachments, sp->inputAttachmentCount);
      SD_REFS(col, sp->pColorAttachments, sp->colorAttachmentCount);
      if (sp->pResolveAttachments)
         SD_REFS(res, sp->pResolveAttachments, sp->colorAttachmentCount);
      if (sp->pDepthStencilAttachment)
         SD_REFS(ds, sp->pDepthStencilAttachment, 1);
      d->pInputAttachments = in;
      d->pColorAttachments = col;
      d->pResolveAttachments = res;
      d->pDepthStencilAttachment = ds;
   }
#undef SD_REFS
   /* Input attachment aspects (VK_KHR_maintenance2's struct, core 1.1). */
   for (uint32_t i = 0; ia && i < ia->aspectReferenceCount; i++) {
      const VkInputAttachmentAspectReference *r = &ia->pAspectReferences[i];
      if (r->subpass < ci->subpassCount &&
          r->inputAttachmentIndex < subpasses[r->subpass].inputAttachmentCount)
         ((VkAttachmentReference2 *)subpasses[r->subpass].pInputAttachments)[r->inputAttachmentIndex]
            .aspectMask = r->aspectMask;
   }
   for (uint32_t i = 0; i < ci->dependencyCount; i++) {
      const VkSubpassDependency *d = &ci->pDependencies[i];
      deps[i] = (VkSubpassDependency2) {
         .sType = VK_STRUCTURE_TYPE_SUBPASS_DEPENDENCY_2,
         .srcSubpass = d->srcSubpass,
         .dstSubpass = d->dstSubpass,
         .srcStageMask = d->srcStageMask,
         .dstStageMask = d->dstStageMask,
         .srcAccessMask = d->srcAccessMask,
         .dstAccessMask = d->dstAccessMask,
         .dependencyFlags = d->dependencyFlags,
         .viewOffset = mv && i < mv->dependencyCount ? mv->pViewOffsets[i] : 0,
      };
   }
   const VkRenderPassCreateInfo2 ci2 = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO_2,
      .flags = ci->flags,
      .attachmentCount = ci->attachmentCount,
      .pAttachments = atts,
      .subpassCount = ci->subpassCount,
      .pSubpasses = subpasses,
      .dependencyCount = ci->dependencyCount,
      .pDependencies = deps,
      .correlatedViewMaskCount = mv ? mv->correlationMaskCount : 0,
      .pCorrelatedViewMasks = mv ? mv->pCorrelationMasks : NULL,
   };
   VkResult r = sd_render_pass_create(device, &ci2, pAllocator, pRenderPass);
   sd_free(alloc, mem);
   return r;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyRenderPass(VkDevice _device, VkRenderPass _pass, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_render_pass, rp, _pass);
   if (rp)
      sd_device_object_free(device, pAllocator, rp);
}

VKAPI_ATTR void VKAPI_CALL
sd_GetRenderAreaGranularity(VkDevice _device, VkRenderPass renderPass, VkExtent2D *pGranularity)
{
   /* Tiles are the rasterizer's business: any render area is as cheap as
    * another, so the granularity is one pixel. */
   *pGranularity = (VkExtent2D) { 1, 1 };
}

/* ---- framebuffers ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateFramebuffer(VkDevice _device, const VkFramebufferCreateInfo *pCreateInfo,
                     const VkAllocationCallbacks *pAllocator, VkFramebuffer *pFramebuffer)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   /* pNext: VkFramebufferAttachmentsCreateInfo (imageless framebuffers)
    * describes the images whose views each begin will give: nothing here
    * depends on them, so only the flag matters; unknown structs are
    * ignored. */
   const bool imageless = pCreateInfo->flags & VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT;
   const uint32_t n = pCreateInfo->attachmentCount;
   struct sd_framebuffer *fb = sd_device_object_alloc(
      device, pAllocator, sizeof(*fb) + sizeof(fb->attachments[0]) * n, VK_OBJECT_TYPE_FRAMEBUFFER);
   if (!fb)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   fb->width = pCreateInfo->width;
   fb->height = pCreateInfo->height;
   fb->layers = pCreateInfo->layers;
   fb->attachment_count = n;
   fb->imageless = imageless;
   for (uint32_t i = 0; i < n; i++)
      fb->attachments[i] =
         imageless ? NULL : sd_image_view_from_handle(pCreateInfo->pAttachments[i]);
   *pFramebuffer = sd_framebuffer_to_handle(fb);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyFramebuffer(VkDevice _device, VkFramebuffer _fb, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_framebuffer, fb, _fb);
   if (fb)
      sd_device_object_free(device, pAllocator, fb);
}
