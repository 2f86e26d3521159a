/*
 * sd_render_pass: VkRenderPass and VkFramebuffer.
 *
 * Owns: a render pass's attachments, subpasses (their colour, input,
 * resolve, depth/stencil and preserve references) and dependencies, in the
 * VK_KHR_create_renderpass2 form: vkCreateRenderPass lowers its 1.0 create
 * info to that form first (VkRenderPassInputAttachmentAspectCreateInfo's
 * aspects go into the input references, VkRenderPassMultiviewCreateInfo's
 * view masks into the subpasses), so everything after creation sees one
 * shape. A framebuffer's extent, layers and attachment views.
 *
 * What creation derives for replay: per attachment the first and last
 * subpass that use it (a LOAD_OP_CLEAR happens at its first subpass, as the
 * spec says, and only there), its aspects and whether it is an integer
 * format; per subpass its sample count and whether a dependency of the
 * subpass on itself exists. VkSubpassDescriptionDepthStencilResolve
 * (VK_KHR_depth_stencil_resolve): a subpass's depth/stencil resolve
 * attachment and each aspect's mode, resolved at the subpass's end.
 *
 * Multiview: a subpass's view mask is kept; replay renders each draw once
 * per view into the layer of that index, and an attachment's load op
 * clears each view at the first subpass whose view mask has it (the
 * spec's per-view first use). Correlation masks are hints, ignored.
 *
 * Imageless framebuffers (VK_KHR_imageless_framebuffer): a framebuffer
 * created with VK_FRAMEBUFFER_CREATE_IMAGELESS_BIT has no views (its
 * VkFramebufferAttachmentsCreateInfo describes images the driver needs
 * nothing from); each render pass instance takes them from the
 * VkRenderPassAttachmentBeginInfo of its begin (sd_cmd_render.c).
 *
 * Layouts, including VK_IMAGE_LAYOUT_ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT
 * (VK_EXT_attachment_feedback_loop_layout), are kept but change nothing:
 * every layout is the same linear memory. A dependency with
 * VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT is a dependency like any other: one
 * between subpasses is met by the flush at every subpass end, a
 * self-dependency allows the in-subpass barriers, which flush the scene
 * (sd_sync.c), so a later draw's sampled reads of an attachment see the
 * earlier draws' writes.
 *
 * Refused honestly (VK_ERROR_FEATURE_NOT_PRESENT with a log line):
 * depth/stencil resolve modes outside SD_DEPTH_RESOLVE_MODES /
 * SD_STENCIL_RESOLVE_MODES. Other pNext structs (fragment density maps, shading-rate
 * attachments: extensions not offered) are ignored like unknown ones.
 * vkCreateRenderPass2 is VK_KHR_create_renderpass2's (render/multiview
 * draws through it); Vulkan 1.2 would make it core.
 *
 * Invariants: each object is one host allocation (arrays carved from it),
 * so creation fails cleanly with nothing to unwind. Attachment indices in
 * references are VK_ATTACHMENT_UNUSED or below attachment_count. A
 * framebuffer points at its views; the application keeps them alive while
 * the framebuffer is used.
 *
 * Threading: immutable after creation.
 */
#ifndef SD_RENDER_PASS_H
#define SD_RENDER_PASS_H

#include <stdbool.h>

#include "sd_object.h"

struct sd_image_view;

struct sd_rp_attachment {
   VkFormat format;
   VkSampleCountFlagBits samples;
   VkAttachmentLoadOp load_op, stencil_load_op;
   VkAttachmentStoreOp store_op, stencil_store_op;
   VkImageLayout initial_layout, final_layout;
   VkImageAspectFlags aspects;       /* every aspect of the format */
   uint32_t first_subpass;           /* UINT32_MAX: no subpass uses it */
   uint32_t last_subpass;
};

struct sd_rp_ref {
   uint32_t attachment;              /* VK_ATTACHMENT_UNUSED or an index */
   VkImageLayout layout;
   VkImageLayout stencil_layout;     /* VkAttachmentReferenceStencilLayout's, else layout */
   VkImageAspectFlags aspects;       /* input attachments: the aspects read */
};

/* The depth/stencil resolve modes VkPhysicalDeviceDepthStencilResolveProperties
 * reports (sd_physical_device.c; render passes refuse others): the ones the
 * rasterizer's depth/stencil resolve implements and render/ds_resolve checks. */
#define SD_DEPTH_RESOLVE_MODES                                                             \
   (VK_RESOLVE_MODE_SAMPLE_ZERO_BIT | VK_RESOLVE_MODE_AVERAGE_BIT | VK_RESOLVE_MODE_MIN_BIT | \
    VK_RESOLVE_MODE_MAX_BIT)
#define SD_STENCIL_RESOLVE_MODES                                                           \
   (VK_RESOLVE_MODE_SAMPLE_ZERO_BIT | VK_RESOLVE_MODE_MIN_BIT | VK_RESOLVE_MODE_MAX_BIT)

struct sd_subpass {
   uint32_t input_count;
   const struct sd_rp_ref *inputs;
   uint32_t color_count;
   const struct sd_rp_ref *colors;
   const struct sd_rp_ref *resolves;   /* color_count entries, or NULL */
   struct sd_rp_ref depth_stencil;     /* attachment VK_ATTACHMENT_UNUSED: none */
   /* VkSubpassDescriptionDepthStencilResolve: the single-sample attachment
    * the depth/stencil attachment resolves into at the subpass's end
    * (VK_ATTACHMENT_UNUSED: none) and each aspect's mode (NONE: kept). */
   struct sd_rp_ref ds_resolve;
   VkResolveModeFlagBits depth_resolve_mode, stencil_resolve_mode;
   uint32_t preserve_count;
   const uint32_t *preserves;
   VkSampleCountFlagBits samples;      /* of its colour/depth attachments; 0: none */
   bool self_dependency;
   uint32_t view_mask;                 /* multiview: the views (layers) it renders; 0: none */
};

struct sd_render_pass {
   struct sd_object base;
   uint32_t attachment_count;
   struct sd_rp_attachment *attachments;
   uint32_t subpass_count;
   struct sd_subpass *subpasses;
   uint32_t dependency_count;
   VkSubpassDependency2 *dependencies;   /* pNext NULL */
   /* Multiview (every subpass has a nonzero view mask, as the spec
    * requires): the highest view index used, plus one; 0 without. */
   uint32_t view_layers;
};

/* Whether subpass `s` references attachment `a` (any kind of reference). */
bool sd_subpass_uses(const struct sd_subpass *sp, uint32_t a);

struct sd_framebuffer {
   struct sd_object base;
   uint32_t width, height, layers;
   uint32_t attachment_count;
   bool imageless;   /* attachments[] all NULL: views come at begin time */
   struct sd_image_view *attachments[];
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_render_pass, base, VkRenderPass, VK_OBJECT_TYPE_RENDER_PASS)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_framebuffer, base, VkFramebuffer, VK_OBJECT_TYPE_FRAMEBUFFER)

#endif
