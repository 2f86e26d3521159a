/*
 * A small drawing harness for the render tests: one colour attachment (and
 * an optional depth/stencil one) in a one-subpass render pass, a graphics
 * pipeline from SPIR-V vertex and fragment shaders with one interleaved
 * vertex buffer, a draw, and the attachments read back to host memory.
 * Works on any driver (Shale or lavapipe) through the loader.
 */
#ifndef DRAW_UTIL_H
#define DRAW_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "vkt.h"

#define DRAW_MAX_ATTRIBS 4

struct draw_target {
   VkFormat color_format;             /* VK_FORMAT_UNDEFINED: none */
   VkFormat depth_format;             /* VK_FORMAT_UNDEFINED: none */
   uint32_t width, height;
   VkClearColorValue clear_color;
   float clear_depth;
   uint32_t clear_stencil;
   /* made by draw_target_create */
   struct vkt_image color, depth;
   VkImageView color_view, depth_view;
   VkRenderPass render_pass;
   VkFramebuffer framebuffer;
   struct vkt_buffer readback;        /* colour, depth, stencil texels, tightly packed */
   uint32_t color_texel, depth_texel; /* bytes */
};

struct draw_pipeline_info {
   const uint32_t *vs;
   size_t vs_size;
   const uint32_t *fs;                /* NULL: no fragment shader */
   size_t fs_size;
   uint32_t stride;                   /* of binding 0 */
   uint32_t attrib_count;
   VkFormat attrib_format[DRAW_MAX_ATTRIBS];   /* location i */
   uint32_t attrib_offset[DRAW_MAX_ATTRIBS];
   VkPrimitiveTopology topology;
   bool primitive_restart;
   VkCullModeFlags cull_mode;
   VkFrontFace front_face;
   VkPolygonMode polygon_mode;
   const VkPipelineDepthStencilStateCreateInfo *depth_stencil;   /* NULL: no tests */
   const VkPipelineColorBlendAttachmentState *blend;            /* NULL: no blending */
   uint32_t push_size;                /* push constants for both stages */
   bool dynamic_viewport_scissor;
   VkDescriptorSetLayout set_layout;  /* set 0; VK_NULL_HANDLE: no sets */
   /* Optional overrides (NULL / 0: the defaults above). */
   const VkPipelineVertexInputStateCreateInfo *vertex_input;    /* replaces stride/attribs */
   const VkPipelineRasterizationStateCreateInfo *rasterization; /* replaces the modes above */
   const VkViewport *viewport;        /* static viewport; NULL: the whole target */
   const VkRect2D *scissor;           /* static scissor; NULL: the whole target */
   const VkDynamicState *dynamic_states;   /* more dynamic states */
   uint32_t dynamic_state_count;
};

struct draw_pipeline {
   VkShaderModule vs, fs;
   VkPipelineLayout layout;
   VkPipeline pipeline;
   bool dynamic_viewport_scissor;
};

VkResult draw_target_create(struct vkt *t, struct draw_target *dt);
void draw_target_destroy(struct vkt *t, struct draw_target *dt);

VkResult draw_pipeline_create(struct vkt *t, const struct draw_target *dt,
                              const struct draw_pipeline_info *info, struct draw_pipeline *p);
void draw_pipeline_destroy(struct vkt *t, struct draw_pipeline *p);

/* Begins the render pass (clearing both attachments) in a new command
 * buffer, binds p, the vertex buffer and the full-target viewport and
 * scissor. */
VkCommandBuffer draw_begin(struct vkt *t, const struct draw_target *dt,
                           const struct draw_pipeline *p, VkBuffer vertices);
/* Ends the render pass, copies the attachments into dt->readback, submits
 * and waits. */
VkResult draw_end(struct vkt *t, struct draw_target *dt, VkCommandBuffer cb);

/* Whether a depth/stencil format has a stencil aspect. */
bool draw_has_stencil(VkFormat f);

/* A host-visible buffer holding `size` bytes of `data`. */
VkResult draw_upload(struct vkt *t, const void *data, size_t size, VkBufferUsageFlags usage,
                     struct vkt_buffer *out);

#endif
