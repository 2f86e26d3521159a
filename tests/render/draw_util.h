/*
 * A small drawing harness for the render tests: one colour attachment (and
 * an optional depth/stencil one) in a one-subpass render pass, a graphics
 * pipeline from SPIR-V vertex and fragment shaders with one interleaved
 * vertex buffer, a draw, and the attachments read back to host memory.
 * Works on any driver (Shale or lavapipe) through the loader.
 *
 * Tests with render passes of their own (several subpasses or colour
 * attachments, multisampling) use the parts: draw_image_create for
 * attachments (draw_layered_color_target for a layered colour target with
 * its view, pass and framebuffer; draw_color_target_destroy undoes
 * either), draw_pipeline_create with a NULL target and the render pass,
 * layout, shader modules and states given in draw_pipeline_info (or
 * draw_pipeline_state_init, and draw_pipeline_create_geometry to add a
 * geometry shader), draw_begin_pass_cleared, draw_copy_to_buffer /
 * draw_host_barrier for the readback, and draw_compare_image against a
 * CPU reference.
 */
#ifndef DRAW_UTIL_H
#define DRAW_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

#include "check.h"
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

/* A vertex of pos_color.vert (shaders/): clip-space position at location 0,
 * colour at location 1. */
struct draw_vertex {
   float pos[4], color[4];
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
   const VkPipelineMultisampleStateCreateInfo *multisample;     /* NULL: one sample */
   const VkPipelineColorBlendStateCreateInfo *color_blend;      /* replaces blend */
   /* Borrowed objects (VK_NULL_HANDLE: made from the fields above and owned
    * by the draw_pipeline): shader modules replace vs/fs code, a layout
    * replaces push_size/set_layout. */
   VkShaderModule vs_module, fs_module;
   VkPipelineLayout layout;
   /* With a NULL target: the render pass and subpass, and how many colour
    * attachments it has (blend applies to each, up to DRAW_MAX_COLORS);
    * depth_stencil is used as given; the viewport and scissor must be
    * dynamic or given. */
   VkRenderPass render_pass;
   uint32_t subpass;
   uint32_t color_count;
   VkPipelineCache cache;             /* for draw_pipeline_create; VK_NULL_HANDLE: none */
};

#define DRAW_MAX_COLORS 8
#define DRAW_MAX_DYNAMIC 16

/* What a VkGraphicsPipelineCreateInfo from draw_pipeline_state_init points
 * at (it points into the struct itself: do not copy or move one). */
struct draw_pipeline_state {
   VkPipelineShaderStageCreateInfo stages[2];
   VkVertexInputBindingDescription binding;
   VkVertexInputAttributeDescription attribs[DRAW_MAX_ATTRIBS];
   VkPipelineVertexInputStateCreateInfo vi;
   VkPipelineInputAssemblyStateCreateInfo ia;
   VkViewport viewport;
   VkRect2D scissor;
   VkPipelineViewportStateCreateInfo vp;
   VkPipelineRasterizationStateCreateInfo rs;
   VkPipelineMultisampleStateCreateInfo ms;
   VkPipelineColorBlendAttachmentState blend[DRAW_MAX_COLORS];
   VkPipelineColorBlendStateCreateInfo cb;
   VkPipelineDepthStencilStateCreateInfo no_ds;
   VkDynamicState dyn[DRAW_MAX_DYNAMIC];
   VkPipelineDynamicStateCreateInfo ds;
   VkGraphicsPipelineCreateInfo info;   /* what draw_pipeline_create passes */
};

struct draw_pipeline {
   VkShaderModule vs, fs;             /* owned ones (VK_NULL_HANDLE when borrowed) */
   VkPipelineLayout layout;           /* the layout used, owned or borrowed */
   bool own_layout;
   VkPipeline pipeline;
   bool dynamic_viewport_scissor;
};

VkResult draw_target_create(struct vkt *t, struct draw_target *dt);
void draw_target_destroy(struct vkt *t, struct draw_target *dt);

/* dt may be NULL (see draw_pipeline_info). On failure the driver's result
 * is printed and returned; what was made is left in p for
 * draw_pipeline_destroy. */
VkResult draw_pipeline_create(struct vkt *t, const struct draw_target *dt,
                              const struct draw_pipeline_info *info, struct draw_pipeline *p);
/* The create info draw_pipeline_create would pass for these shader modules
 * (fs may be VK_NULL_HANDLE) and layout, in st->info, for callers that
 * change it (flags, pNext, stage order) or create several pipelines in one
 * call or with a pipeline cache. */
void draw_pipeline_state_init(struct draw_pipeline_state *st, const struct draw_target *dt,
                              const struct draw_pipeline_info *info, VkShaderModule vs,
                              VkShaderModule fs, VkPipelineLayout layout);
/* Creates the pipeline of st (from draw_pipeline_state_init) with a
 * geometry stage of module gs (entry point main) after its stages
 * (VK_NULL_HANDLE: none), without a pipeline cache. */
VkResult draw_pipeline_create_geometry(struct vkt *t, struct draw_pipeline_state *st,
                                       VkShaderModule gs, VkPipeline *out);

/* Sets *pi for shaders vs and fs (fs may be NULL) reading struct
 * draw_vertex from binding 0 and drawing triangle lists; every other field
 * zero (draw_pipeline_info's defaults) for the caller to set. */
void draw_vertex_info(struct draw_pipeline_info *pi, const uint32_t *vs, size_t vs_size,
                      const uint32_t *fs, size_t fs_size);

/* Destroys what p owns (never borrowed modules or layouts). */
void draw_pipeline_destroy(struct vkt *t, struct draw_pipeline *p);

/* A pipeline layout with set 0 (VK_NULL_HANDLE: no sets) and push_size
 * bytes of push constants (0: none) for `stages`. */
VkResult draw_pipeline_layout(struct vkt *t, VkDescriptorSetLayout set, VkShaderStageFlags stages,
                              uint32_t push_size, VkPipelineLayout *out);

/* A w x h 2D image of one mip level and layer with `samples` samples, in
 * optimal tiling, and when view is not NULL a 2D view of `aspect`. */
VkResult draw_image_create(struct vkt *t, VkFormat format, uint32_t w, uint32_t h,
                           VkSampleCountFlagBits samples, VkImageUsageFlags usage,
                           VkImageAspectFlags aspect, struct vkt_image *img, VkImageView *view);

/* A layered colour target: a w x h 2D image of `format` with `layers`
 * layers (one sample, optimal tiling, colour attachment and transfer
 * source), a 2D_ARRAY view of all its layers, draw_color_pass's render pass
 * (with draw_dep_color_to_transfer) and a framebuffer of `layers` layers.
 * On failure what was made is left in the outputs for the caller to
 * destroy (the others VK_NULL_HANDLE as the caller set them). */
VkResult draw_layered_color_target(struct vkt *t, VkFormat format, uint32_t w, uint32_t h,
                                   uint32_t layers, struct vkt_image *img, VkImageView *view,
                                   VkRenderPass *rp, VkFramebuffer *fb);

/* Destroys what draw_layered_color_target (or draw_image_create,
 * draw_color_pass and draw_framebuffer) made: fb, rp, view and img, each
 * skipped where VK_NULL_HANDLE. */
void draw_color_target_destroy(struct vkt *t, struct vkt_image *img, VkImageView view,
                               VkRenderPass rp, VkFramebuffer fb);

/* A w x h framebuffer of `layers` layers with n attachments (views may be
 * NULL when n is 0). */
VkResult draw_framebuffer(struct vkt *t, VkRenderPass rp, const VkImageView *views, uint32_t n,
                          uint32_t w, uint32_t h, uint32_t layers, VkFramebuffer *out);

/* Subpass 0's colour attachment writes come before the transfers (the
 * read-back copies) after the render pass. */
extern const VkSubpassDependency draw_dep_color_to_transfer;

/* A render pass of one subpass writing one colour attachment of `format`
 * (one sample, cleared and stored, UNDEFINED to TRANSFER_SRC_OPTIMAL) with
 * the n dependencies deps; the subpass uses the attachment in `layout`
 * (draw_color_pass: COLOR_ATTACHMENT_OPTIMAL). */
VkResult draw_color_pass_in(struct vkt *t, VkFormat format, VkImageLayout layout,
                            const VkSubpassDependency *deps, uint32_t n, VkRenderPass *out);
VkResult draw_color_pass(struct vkt *t, VkFormat format, const VkSubpassDependency *deps,
                         uint32_t n, VkRenderPass *out);

/* A sampler with NEAREST filters and mip mode and CLAMP_TO_EDGE on every
 * axis: texel reads at exact coordinates. */
VkResult draw_nearest_sampler(struct vkt *t, VkSampler *out);

/* Records a copy of `aspect` of mip 0, layer 0 of a w x h image in
 * TRANSFER_SRC_OPTIMAL layout to buf at offset, tightly packed. */
void draw_copy_to_buffer(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, uint32_t w,
                         uint32_t h, VkBuffer buf, VkDeviceSize offset);

/* Makes the transfers recorded before it visible to the host. */
void draw_host_barrier(VkCommandBuffer cb);

/* Begins render pass rp on framebuffer fb over (0, 0) - (w, h), its one
 * attachment cleared to zero, contents inline. */
void draw_begin_pass_cleared(VkCommandBuffer cb, VkRenderPass rp, VkFramebuffer fb, uint32_t w,
                             uint32_t h);

/* Begins the render pass (clearing both attachments) in a new command
 * buffer, binds p, the vertex buffer and the full-target viewport and
 * scissor. */
VkCommandBuffer draw_begin(struct vkt *t, const struct draw_target *dt,
                           const struct draw_pipeline *p, VkBuffer vertices);
/* Ends the render pass, copies the attachments into dt->readback, submits
 * and waits. */
VkResult draw_end(struct vkt *t, struct draw_target *dt, VkCommandBuffer cb);

/* One descriptor set with one binding (0) of `type` for `stages`: its
 * layout, a pool for it and the set (each VK_NULL_HANDLE until made). */
VkResult draw_single_set(struct vkt *t, VkDescriptorType type, VkShaderStageFlags stages,
                         VkDescriptorSetLayout *layout, VkDescriptorPool *pool,
                         VkDescriptorSet *set);

/* Opens driver d (no extra features) to read its features and limits; the
 * caller vkt_finishes it. False when d is not there: for lavapipe after
 * printing that the reference check is skipped. */
bool draw_probe(enum vkt_driver d, struct vkt *probe);

/* Opens driver d with VK_KHR_get_physical_device_properties2 (sets *o to
 * those options, for the caller to add device extensions and features to and
 * vkt_init again), says in *has whether the device offers extension `ext`
 * and, when it does, reads the feature structures chained from
 * feature_chain (with the core features into *core unless NULL) and the
 * property ones chained from property_chain (NULL: none wanted); left as
 * the caller zeroed them (*core zeroed) when not read. The device is
 * vkt_finished before return. False when d is not there. */
bool draw_probe_extension(enum vkt_driver d, struct vkt_options *o, const char *ext,
                          void *feature_chain, void *property_chain,
                          VkPhysicalDeviceFeatures *core, bool *has);

/* An RGBA colour in [0, 1] as an R8G8B8A8_UNORM texel (R in the low byte),
 * each channel rounded to nearest. */
uint32_t draw_pack_rgba8(const float c[4]);

/* The tests' pseudo-random numbers: advances a xorshift64 state (the
 * caller's, so each test keeps its own seed and sequence) and returns bits
 * 16..47 of it. */
uint32_t draw_rand_u32(uint64_t *state);

/* Whether a depth/stencil format has a stencil aspect. */
bool draw_has_stencil(VkFormat f);

/* A host-visible buffer holding `size` bytes of `data`. */
VkResult draw_upload(struct vkt *t, const void *data, size_t size, VkBufferUsageFlags usage,
                     struct vkt_buffer *out);

/* The opening and end of a render test's main() on Shale alone (check.h's
 * counters are the calling file's, hence static inline): draw_open_shale
 * opens Shale's default device into t and CHECKs that it did;
 * draw_close_shale closes t, CHECKs that the validation layer stayed
 * silent, and returns check_finish()'s exit status. */
static inline bool
draw_open_shale(struct vkt *t)
{
   bool ok = vkt_init(t, &(struct vkt_options) { .driver = VKT_SHALE });
   CHECK(ok, "Shale device");
   return ok;
}

static inline int
draw_close_shale(struct vkt *t)
{
   vkt_finish(t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}

/* The main() of a test that compares Shale with lavapipe: run(driver,
 * threads) on Shale with threads "1" and "4" (run sets SHALE_THREADS from
 * it), then on lavapipe with SHALE_THREADS unset; then the
 * validation-message CHECK, and check_finish()'s exit status. */
static inline int
draw_run_threads_and_lavapipe(void (*run)(enum vkt_driver which, const char *threads))
{
   run(VKT_SHALE, "1");
   run(VKT_SHALE, "4");
   unsetenv("SHALE_THREADS");
   run(VKT_LAVAPIPE, NULL);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}

/* Compares a w x h image of 32-bit texels `got` with `want` but where skip
 * (NULL: nowhere) is nonzero: prints the first six differing pixels, then
 * one CHECK that none differ and that want has at least min_drawn nonzero
 * texels there. dn, threads (NULL: "-", the SHALE_THREADS of the run) and
 * what name the image in the messages; static inline for check.h's
 * counters, as above. */
static inline void
draw_compare_image(const char *dn, const char *threads, const char *what, const uint32_t *got,
                   const uint32_t *want, const uint8_t *skip, uint32_t w, uint32_t h,
                   unsigned min_drawn)
{
   unsigned bad = 0, drawn = 0;
   for (uint32_t i = 0; i < w * h; i++) {
      if (skip && skip[i])
         continue;
      drawn += want[i] != 0;
      if (got[i] != want[i] && bad++ < 6)
         fprintf(stderr, "%s (SHALE_THREADS %s): %s: pixel (%u, %u): %08x, expected %08x\n", dn,
                 threads ? threads : "-", what, i % w, i / w, got[i], want[i]);
   }
   CHECK(bad == 0 && drawn >= min_drawn, "%s (SHALE_THREADS %s): %s: %u pixels differ (%u drawn)",
         dn, threads ? threads : "-", what, bad, drawn);
}

/* A pipeline cache on t's device from size bytes of initial data (none
 * when size is 0), CHECKing that it was created (VK_NULL_HANDLE when not);
 * static inline for check.h's counters, as above. */
static inline VkPipelineCache
draw_make_cache(struct vkt *t, const void *data, size_t size)
{
   VkPipelineCacheCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
      .initialDataSize = size,
      .pInitialData = data,
   };
   VkPipelineCache cache = VK_NULL_HANDLE;
   VkResult r = vkCreatePipelineCache(t->device, &ci, NULL, &cache);
   CHECK(r == VK_SUCCESS, "%s", "vkCreatePipelineCache(t->device, &ci, NULL, &cache)");
   return cache;
}

#endif
