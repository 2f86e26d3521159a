/* Graphics pipelines: stages compiled like compute, fixed-function state
 * translated once into the rasterizer's struct sr_draw_state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/sc_compiler.h"
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_format.h"
#include "sd_pipeline.h"
#include "sd_pipeline_cache.h"
#include "sd_render_pass.h"
#include "sd_shader.h"
#include "sd_util.h"
#include "rasterizer/sr_tess.h"
#include "util/su_log.h"

void
sd_graphics_pipeline_finish(struct sd_device *device, struct sd_pipeline *pipeline)
{
   (void)device;
   sd_compiled_shader_unref(pipeline->graphics.vs);
   sd_compiled_shader_unref(pipeline->graphics.gs);
   sd_compiled_shader_unref(pipeline->graphics.tcs);
   sd_compiled_shader_unref(pipeline->graphics.tes);
   sd_compiled_shader_unref(pipeline->graphics.fs);
   sd_fb_slot_unref(pipeline->graphics.fb_slot);
}

static void
sd_translate_stencil(const VkStencilOpState *s, struct sr_stencil_face *f)
{
   f->fail_op = s->failOp;
   f->pass_op = s->passOp;
   f->depth_fail_op = s->depthFailOp;
   f->compare_op = s->compareOp;
   f->compare_mask = s->compareMask;
   f->write_mask = s->writeMask;
   f->reference = s->reference;
}

/* Translates everything but the shaders. Returns a reason for state the
 * rasterizer cannot draw, NULL when all of it is supported. */
static const char *
sd_translate_state(const VkGraphicsPipelineCreateInfo *ci, struct sd_graphics_state *g)
{
   struct sr_draw_state *s = &g->state;
   memset(s, 0, sizeof(*s));

   if (ci->pDynamicState) {
      for (uint32_t i = 0; i < ci->pDynamicState->dynamicStateCount; i++) {
         VkDynamicState d = ci->pDynamicState->pDynamicStates[i];
         /* VK_EXT_extended_dynamic_state3 (render/depth_clip, render/raster_state). */
         if (d == VK_DYNAMIC_STATE_DEPTH_CLAMP_ENABLE_EXT)
            g->dynamic |= SD_DYNAMIC_DEPTH_CLAMP_ENABLE;
         else if (d == VK_DYNAMIC_STATE_DEPTH_CLIP_ENABLE_EXT)
            g->dynamic |= SD_DYNAMIC_DEPTH_CLIP_ENABLE;
         else if (d == VK_DYNAMIC_STATE_POLYGON_MODE_EXT)
            g->dynamic |= SD_DYNAMIC_POLYGON_MODE;
         else if ((uint32_t)d >= SD_DYNAMIC_VULKAN10_COUNT)
            return "dynamic state beyond Vulkan 1.0's, depth clamp and clip enables and polygon mode";
         else
            g->dynamic |= 1u << d;
      }
   }

   const VkPipelineVertexInputStateCreateInfo *vi = ci->pVertexInputState;
   if (vi) {
      for (uint32_t i = 0; i < vi->vertexBindingDescriptionCount; i++) {
         const VkVertexInputBindingDescription *b = &vi->pVertexBindingDescriptions[i];
         if (b->binding >= SR_MAX_VERTEX_BINDINGS)
            return "vertex binding number too large";
         s->binding_mask |= 1u << b->binding;
         s->bindings[b->binding] = (struct sr_vertex_binding) {
            .stride = b->stride, .input_rate = b->inputRate, .divisor = 1,
         };
      }
      /* VK_EXT_vertex_attribute_divisor: instance-rate bindings read element
       * firstInstance + (InstanceIndex - firstInstance) / divisor, divisor 0
       * element firstInstance for every instance (sr_vertex.c; render/vertex_divisor). */
      const VkPipelineVertexInputDivisorStateCreateInfoEXT *dv =
         sd_find_struct(vi, VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_DIVISOR_STATE_CREATE_INFO_EXT);
      for (uint32_t i = 0; dv && i < dv->vertexBindingDivisorCount; i++) {
         const VkVertexInputBindingDivisorDescriptionEXT *d = &dv->pVertexBindingDivisors[i];
         if (d->binding >= SR_MAX_VERTEX_BINDINGS)
            return "vertex binding divisor for a binding number too large";
         s->bindings[d->binding].divisor = d->divisor;
      }
      if (vi->vertexAttributeDescriptionCount > SR_MAX_VERTEX_ATTRIBUTES)
         return "too many vertex attributes";
      for (uint32_t i = 0; i < vi->vertexAttributeDescriptionCount; i++) {
         const VkVertexInputAttributeDescription *a = &vi->pVertexAttributeDescriptions[i];
         if (!sd_format_vertex_input(a->format))
            return "vertex attribute format without VERTEX_BUFFER";
         s->attributes[s->attribute_count++] = (struct sr_vertex_attribute) {
            .location = a->location, .binding = a->binding, .format = a->format,
            .offset = a->offset,
         };
      }
   }

   const VkPipelineInputAssemblyStateCreateInfo *ia = ci->pInputAssemblyState;
   s->topology = ia ? ia->topology : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
   if (s->topology > VK_PRIMITIVE_TOPOLOGY_PATCH_LIST)
      return "topology";
   /* Restart applies to strips and fans only (Vulkan 1.1 forbids it on
    * lists; patch-list restart is an extension not offered). */
   s->primitive_restart = ia && ia->primitiveRestartEnable &&
                          s->topology != VK_PRIMITIVE_TOPOLOGY_PATCH_LIST;

   const VkPipelineRasterizationStateCreateInfo *rs = ci->pRasterizationState;
   s->rasterizer_discard = rs->rasterizerDiscardEnable;
   s->depth_clamp = rs->depthClampEnable;
   /* VK_EXT_depth_clip_enable (render/depth_clip): z clipping apart from
    * clamping; without the struct, clipping is off exactly when clamping is on. */
   const VkPipelineRasterizationDepthClipStateCreateInfoEXT *dc =
      sd_find_struct(rs, VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT);
   s->no_depth_clip = dc ? !dc->depthClipEnable : rs->depthClampEnable;
   g->depth_clip_follows_clamp = !dc;
   s->polygon_mode = rs->polygonMode;
   s->cull_mode = rs->cullMode;
   s->front_face = rs->frontFace;
   s->depth_bias_enable = rs->depthBiasEnable;
   s->depth_bias_constant = rs->depthBiasConstantFactor;
   s->depth_bias_clamp = rs->depthBiasClamp;
   s->depth_bias_slope = rs->depthBiasSlopeFactor;
   s->line_width = rs->lineWidth;
   /* VK_EXT_provoking_vertex (render/zink_provoking); FIRST without it. */
   const VkPipelineRasterizationProvokingVertexStateCreateInfoEXT *pv =
      sd_find_struct(rs, VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_PROVOKING_VERTEX_STATE_CREATE_INFO_EXT);
   s->provoking_last = pv && pv->provokingVertexMode == VK_PROVOKING_VERTEX_MODE_LAST_VERTEX_EXT;
   /* VK_EXT_line_rasterization (render/zink_lines): DEFAULT, RECTANGULAR,
    * BRESENHAM; no stippling (not offered). */
   const VkPipelineRasterizationLineStateCreateInfoEXT *ls =
      sd_find_struct(rs, VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT);
   s->line_mode = ls ? ls->lineRasterizationMode : VK_LINE_RASTERIZATION_MODE_DEFAULT_EXT;
   if (s->polygon_mode > VK_POLYGON_MODE_POINT && !(g->dynamic & SD_DYNAMIC_POLYGON_MODE))
      return "polygon mode";

   /* The states below are ignored when rasterization is discarded. */
   s->samples = 1;
   s->sample_mask = ~0u;
   if (s->rasterizer_discard)
      return NULL;

   const VkPipelineViewportStateCreateInfo *vp = ci->pViewportState;
   if (vp) {
      if (vp->viewportCount > SR_MAX_VIEWPORTS || vp->scissorCount > SR_MAX_VIEWPORTS)
         return "more viewports than maxViewports";
      /* viewportCount == scissorCount (valid usage); multiViewport. */
      s->viewport_count = vp->viewportCount;
      if (vp->pViewports && !(g->dynamic & (1u << VK_DYNAMIC_STATE_VIEWPORT)))
         memcpy(s->viewports, vp->pViewports, vp->viewportCount * sizeof(VkViewport));
      if (vp->pScissors && !(g->dynamic & (1u << VK_DYNAMIC_STATE_SCISSOR)))
         memcpy(s->scissors, vp->pScissors, vp->scissorCount * sizeof(VkRect2D));
   }

   const VkPipelineMultisampleStateCreateInfo *ms = ci->pMultisampleState;
   if (ms) {
      s->samples = ms->rasterizationSamples;
      s->sample_shading = ms->sampleShadingEnable;
      s->min_sample_shading = ms->minSampleShading;
      if (ms->pSampleMask)
         s->sample_mask = ms->pSampleMask[0];
      s->alpha_to_coverage = ms->alphaToCoverageEnable;
      s->alpha_to_one = ms->alphaToOneEnable;
   }
   if (s->samples != 1 && s->samples != 4)
      return "sample count";

   const VkPipelineDepthStencilStateCreateInfo *ds = ci->pDepthStencilState;
   if (ds) {
      s->depth_test = ds->depthTestEnable;
      s->depth_write = ds->depthWriteEnable;
      s->depth_compare = ds->depthCompareOp;
      s->depth_bounds_test = ds->depthBoundsTestEnable;
      s->min_depth_bounds = ds->minDepthBounds;
      s->max_depth_bounds = ds->maxDepthBounds;
      s->stencil_test = ds->stencilTestEnable;
      sd_translate_stencil(&ds->front, &s->stencil[0]);
      sd_translate_stencil(&ds->back, &s->stencil[1]);
   }

   const VkPipelineColorBlendStateCreateInfo *cb = ci->pColorBlendState;
   if (cb) {
      s->logic_op_enable = cb->logicOpEnable;
      s->logic_op = cb->logicOp;
      memcpy(s->blend_constants, cb->blendConstants, sizeof(s->blend_constants));
      if (cb->attachmentCount > SR_MAX_COLOR_ATTACHMENTS)
         return "too many colour attachments";
      for (uint32_t i = 0; i < cb->attachmentCount; i++) {
         const VkPipelineColorBlendAttachmentState *a = &cb->pAttachments[i];
         s->blend[i] = (struct sr_blend_attachment) {
            .blend_enable = a->blendEnable,
            .src_color = a->srcColorBlendFactor, .dst_color = a->dstColorBlendFactor,
            .src_alpha = a->srcAlphaBlendFactor, .dst_alpha = a->dstAlphaBlendFactor,
            .color_op = a->colorBlendOp, .alpha_op = a->alphaBlendOp,
            .write_mask = a->colorWriteMask,
         };
      }
   }
   return NULL;
}

/* One back-end routine (a colour key, or a depth/stencil key when ds_key
 * is set): found in the compiler (compiled or linked before: no LLVM),
 * linked from the application's cache data (no LLVM), or compiled; then
 * recorded in `cache` (may be NULL) as a blob, so that its data carries
 * the routine. *hit: whether `cache` had the routine (an application cache
 * hit, pipeline creation feedback's sense). With `background`, a routine
 * that needs LLVM is not compiled here: *fn stays NULL (SC_SUCCESS) and
 * `cache` records it pending (sd_pipeline_cache.h), for the caller to
 * queue on the optimizer thread. */
static enum sc_result
sd_backend_routine(struct sd_runtime *rt, struct sd_pipeline_cache *cache,
                   const VkAllocationCallbacks *alloc, const struct shale_fb_key *key,
                   const struct shale_fb_ds_key *ds_key, bool background, void **fn, bool *hit,
                   char *msg, size_t msg_size)
{
   const char *what = ds_key ? "depth/stencil" : "colour";
   uint64_t start = sd_now_ns();
   *hit = false;
   *fn = NULL;
   uint8_t ck[SD_KEY_SIZE];
   _Static_assert(SD_KEY_SIZE == SC_COMPILE_KEY_SIZE, "key sizes");
   bool keyed = sc_backend_cache_key(rt->compiler, key, ds_key, ck) == SC_SUCCESS;
   char key_str[17] = "?";
   if (keyed)
      sd_key_string(ck, key_str);
   bool in_cache = false, linked = false;
   bool compiled_before = sc_backend_compiled(rt->compiler, key, ds_key);
   if (cache && keyed) {
      size_t size = 0;
      void *blob = sd_backend_cache_get(cache, ck, alloc, &size, &in_cache);
      if (blob && !compiled_before) {
         char why[160];
         enum sc_result r = sc_backend_deserialize(rt->compiler, key, ds_key, blob, size, why,
                                                   sizeof(why));
         linked = r == SC_SUCCESS;
         if (!linked && r != SC_ERROR_OUT_OF_MEMORY) {
            if (su_debug(SU_DEBUG_INFO))
               su_log("pipeline cache: a %s back-end blob does not load (%s: %s); compiling",
                      what, sc_result_string(r), why);
            sd_backend_cache_drop(cache, ck);
            in_cache = false;
         }
      }
      sd_free(alloc, blob);
   }
   bool found = compiled_before || linked;
   if (!found && background) {
      if (!sc_backend_key_supported(key, ds_key)) {
         snprintf(msg, msg_size, "fragment back end: state not compiled yet");
         return SC_ERROR_UNSUPPORTED;
      }
      /* A pending entry found in the cache is a hit: the cache carries
       * the routine (vkGetPipelineCacheData takes it from the compiler). */
      *hit = in_cache;
      if (cache && keyed && !in_cache)
         sd_backend_cache_put_pending(cache, ck, ds_key ? NULL : key, ds_key);   /* best effort */
      if (su_debug(SU_DEBUG_INFO)) {
         double ms = (sd_now_ns() - start) / 1e6;
         if (in_cache)
            su_log("pipeline: %s back end %s: pipeline cache hit in %.3f ms, compiling in the "
                   "background (or for the first draw before it is in place)", what, key_str, ms);
         else
            su_log("pipeline: %s back end %s: LLVM compile queued for the background in %.3f "
                   "ms (or for the first draw before it is in place)", what, key_str, ms);
      }
      return SC_SUCCESS;
   }
   enum sc_result r;
   if (ds_key) {
      shale_fb_ds_fn f = NULL;
      r = sc_compile_fragment_ds(rt->compiler, ds_key, &f, msg, msg_size);
      *fn = (void *)(uintptr_t)f;
   } else {
      shale_fb_color_fn f = NULL;
      r = sc_compile_fragment_backend(rt->compiler, key, &f, msg, msg_size);
      *fn = (void *)(uintptr_t)f;
   }
   if (r != SC_SUCCESS)
      return r;
   /* A blob that was there but could not be copied or loaded for lack of
    * memory left the routine to LLVM: not a hit. */
   *hit = in_cache && found;
   if (cache && keyed && !(in_cache && found)) {
      /* Best effort: without memory the cache data only lacks the routine. */
      size_t size = 0;
      if (sc_backend_serialize(rt->compiler, key, ds_key, NULL, &size) == SC_SUCCESS) {
         void *blob = sd_alloc(alloc, size ? size : 1, SD_ALIGN_DEFAULT,
                               VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
         if (blob && sc_backend_serialize(rt->compiler, key, ds_key, blob, &size) == SC_SUCCESS)
            sd_backend_cache_put(cache, ck, blob, size);
         sd_free(alloc, blob);
      }
   }
   if (su_debug(SU_DEBUG_INFO)) {
      double ms = (sd_now_ns() - start) / 1e6;
      if (!found)
         su_log("pipeline: %s back end %s: LLVM compile %.2f ms", what, key_str, ms);
      else
         su_log("pipeline: %s back end %s: %s in %.3f ms, no LLVM", what, key_str,
                linked ? "pipeline cache data hit (linked)"
                : in_cache ? "pipeline cache hit" : "memory cache hit", ms);
   }
   return SC_SUCCESS;
}

/* The compiled fragment back end for the pipeline's colour attachments
 * and for its depth/stencil tests (sr_raster.h, "The fragment back end"),
 * from the subpass or the VkPipelineRenderingCreateInfo. State outside
 * what the compiler covers (SC_ERROR_UNSUPPORTED) or a failed compile
 * leaves none: draws then run the C back end, which gives the same pixels.
 *
 * Routines the compiler has (or links from the cache data) are set in the
 * pipeline's state now. One that needs LLVM (23 to 180 ms each, measured
 * through zink) is not compiled at creation, which stays fast: it is queued
 * on the optimizer thread (sd_optimizer.c, struct sd_fb_slot), and the
 * pipeline's first draw replayed before it is in place compiles it on the
 * queue thread (taking the job off the optimizer's queue) or waits for the
 * compile under way (sd_fb_slot_need), so frames do not run the C back end,
 * about three times slower per fragment, for as long as the background
 * takes. With SHALE_FRAGMENT_BACKEND=background draws run the C back end
 * until the routine is in place instead, which unit/fragment_backend holds
 * bit-identical to every compiled routine on every key the compiler covers,
 * and each draw made after that picks it up (sd_cmd_draw.c reads the slot
 * once per draw), so no frame depends on when the compile ends.
 * SHALE_FRAGMENT_BACKEND=sync, SHALE_JIT_BASELINE=0 (no background tier at
 * all) or a queue that fails compile at creation. */
static void
sd_graphics_backend(struct sd_pipeline *pipeline, struct sd_pipeline_cache *cache,
                    const VkAllocationCallbacks *alloc, const VkGraphicsPipelineCreateInfo *ci,
                    bool *all_hit)
{
   struct sd_graphics_state *g = &pipeline->graphics;
   *all_hit = true;
   if (g->state.rasterizer_discard)
      return;
   /* SHALE_FRAGMENT_BACKEND=c keeps the C back end, =color compiles only
    * the colour part (comparisons, debugging), =sync compiles at creation,
    * =background leaves draws on the C back end until the background has
    * compiled the routines (no compile for a draw: render/backend_swap). */
   const char *env = getenv("SHALE_FRAGMENT_BACKEND");
   if (env && !strcmp(env, "c"))
      return;
   const bool ds_c = env && !strcmp(env, "color");
   const bool background = sd_optimizer_enabled() && !(env && !strcmp(env, "sync"));
   VkFormat formats[SR_MAX_COLOR_ATTACHMENTS];
   VkFormat depth_format = VK_FORMAT_UNDEFINED, stencil_format = VK_FORMAT_UNDEFINED;
   uint32_t count = 0;
   if (ci->renderPass != VK_NULL_HANDLE) {
      SD_FROM_HANDLE(sd_render_pass, rp, ci->renderPass);
      if (ci->subpass >= rp->subpass_count)
         return;
      const struct sd_subpass *sp = &rp->subpasses[ci->subpass];
      count = sp->color_count < SR_MAX_COLOR_ATTACHMENTS ? sp->color_count
                                                          : SR_MAX_COLOR_ATTACHMENTS;
      for (uint32_t i = 0; i < count; i++) {
         uint32_t a = sp->colors[i].attachment;
         formats[i] = a == VK_ATTACHMENT_UNUSED ? VK_FORMAT_UNDEFINED : rp->attachments[a].format;
      }
      uint32_t ds = sp->depth_stencil.attachment;
      if (ds != VK_ATTACHMENT_UNUSED) {
         const struct sd_rp_attachment *att = &rp->attachments[ds];
         if (att->aspects & VK_IMAGE_ASPECT_DEPTH_BIT)
            depth_format = att->format;
         if (att->aspects & VK_IMAGE_ASPECT_STENCIL_BIT)
            stencil_format = att->format;
      }
   } else {
      const VkPipelineRenderingCreateInfo *ri =
         sd_find_struct(ci, VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO);
      if (!ri)
         return;
      count = ri->colorAttachmentCount < SR_MAX_COLOR_ATTACHMENTS ? ri->colorAttachmentCount
                                                                   : SR_MAX_COLOR_ATTACHMENTS;
      for (uint32_t i = 0; i < count; i++)
         formats[i] = ri->pColorAttachmentFormats[i];
      depth_format = ri->depthAttachmentFormat;
      stencil_format = ri->stencilAttachmentFormat;
   }
   const struct sc_shader *fs = g->fs ? atomic_load(&g->fs->shader) : NULL;
   char msg[160] = "";
   struct shale_fb_ds_key ds_key;
   struct shale_fb_key key;
   bool want_ds = ci->pDepthStencilState && !ds_c &&
                  sr_fragment_backend_ds_key(&g->state, fs ? fs->simd_width : 0, depth_format,
                                             stencil_format, g->state.samples, &ds_key);
   bool want_color = fs && ci->pColorBlendState &&
                     sr_fragment_backend_key(&g->state, fs->simd_width, count, formats,
                                             g->state.samples, &key);
   /* What the background is to compile (allocated only when needed). */
   bool queue_ds = false, queue_color = false;
   if (want_ds) {
      void *ds_fn = NULL;
      bool hit = false;
      enum sc_result r = sd_backend_routine(pipeline->runtime, cache, alloc, NULL, &ds_key,
                                            background, &ds_fn, &hit, msg, sizeof(msg));
      *all_hit &= hit || r != SC_SUCCESS;   /* the C back end needs no cache */
      if (r == SC_SUCCESS) {
         g->state.fb_ds = (shale_fb_ds_fn)(uintptr_t)ds_fn;
         g->state.fb_ds_key = ds_key;
         queue_ds = !ds_fn;
         if (su_debug(SU_DEBUG_INFO) && ds_fn)
            su_log("pipeline: compiled depth/stencil back end (%u samples)", ds_key.samples);
      } else if (su_debug(SU_DEBUG_INFO)) {
         su_log("pipeline: depth/stencil back end not compiled (%s): the C one runs", msg);
      }
   }
   if (want_color) {
      void *fn = NULL;
      bool hit = false;
      enum sc_result r = sd_backend_routine(pipeline->runtime, cache, alloc, &key, NULL,
                                            background, &fn, &hit, msg, sizeof(msg));
      *all_hit &= hit || r != SC_SUCCESS;
      if (r == SC_SUCCESS) {
         g->state.fb_color = (shale_fb_color_fn)(uintptr_t)fn;
         g->state.fb_key = key;
         queue_color = !fn;
         if (su_debug(SU_DEBUG_INFO) && fn)
            su_log("pipeline: compiled fragment back end (%u colour attachments, %u samples)",
                   key.color_count, key.samples);
      } else if (su_debug(SU_DEBUG_INFO)) {
         su_log("pipeline: fragment back end not compiled (%s): the C one runs", msg);
      }
   }
   if (!queue_ds && !queue_color)
      return;
   struct sd_fb_slot *slot = sd_fb_slot_create();
   if (slot) {
      slot->want_ds = queue_ds;
      slot->ds_key = ds_key;
      slot->want_color = queue_color;
      slot->key = key;
      slot->at_draw = !(env && !strcmp(env, "background"));
      /* A draw takes both routines from the slot: the one already in
       * hand (compiled before, or found in a cache) starts there, or
       * that part would run the C back end for good. */
      if (!queue_ds)
         atomic_init(&slot->ds, (void *)(uintptr_t)g->state.fb_ds);
      if (!queue_color)
         atomic_init(&slot->color, (void *)(uintptr_t)g->state.fb_color);
      if (sd_optimizer_queue_backend(pipeline->runtime, slot) == VK_SUCCESS) {
         g->fb_slot = slot;
         return;
      }
      sd_fb_slot_unref(slot);
   }
   /* No background: compile them now (a failure leaves the C back end). */
   for (int part = 0; part < 2; part++) {
      const bool ds = part == 1;
      if (ds ? !queue_ds : !queue_color)
         continue;
      void *fn = NULL;
      bool hit = false;
      if (sd_backend_routine(pipeline->runtime, cache, alloc, ds ? NULL : &key,
                             ds ? &ds_key : NULL, false, &fn, &hit, msg, sizeof(msg)) != SC_SUCCESS)
         continue;
      if (ds)
         g->state.fb_ds = (shale_fb_ds_fn)(uintptr_t)fn;
      else
         g->state.fb_color = (shale_fb_color_fn)(uintptr_t)fn;
   }
}

/* The tessellation stages (sr_tess.h): both or neither; with them the
 * PATCH_LIST topology, patchControlPoints in 1 ..
 * SHALE_TESS_MAX_PATCH_VERTICES (maxTessellationPatchSize) and the domain
 * origin (upper-left without VkPipelineTessellationDomainOriginStateCreateInfo);
 * the two stages' execution modes must merge (a domain and a spacing
 * declared, none contradicting the other stage). Returns why not, NULL
 * when the state is filled in. */
static const char *
sd_graphics_tess(const VkGraphicsPipelineCreateInfo *ci, struct sd_graphics_state *g)
{
   struct sr_draw_state *s = &g->state;
   if (!g->tcs && !g->tes)
      return s->topology == VK_PRIMITIVE_TOPOLOGY_PATCH_LIST
                ? "graphics pipeline: the patch-list topology without tessellation shaders"
                : NULL;
   if (!g->tcs || !g->tes)
      return "graphics pipeline: a tessellation control shader without an evaluation shader "
             "or the reverse";
   if (s->topology != VK_PRIMITIVE_TOPOLOGY_PATCH_LIST)
      return "graphics pipeline: tessellation shaders without the patch-list topology";
   const VkPipelineTessellationStateCreateInfo *ts = ci->pTessellationState;
   if (!ts || ts->patchControlPoints < 1 ||
       ts->patchControlPoints > SHALE_TESS_MAX_PATCH_VERTICES)
      return "graphics pipeline: patchControlPoints missing or beyond maxTessellationPatchSize";
   const VkPipelineTessellationDomainOriginStateCreateInfo *origin =
      sd_find_struct(ts, VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO);
   s->patch_control_points = ts->patchControlPoints;
   s->tess_lower_left = origin && origin->domainOrigin == VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT;
   s->tcs_io = atomic_load(&g->tcs->shader)->io.tcs;
   s->tes_io = atomic_load(&g->tes->shader)->io.tes;
   struct sr_tess_params mode;
   if (!sr_tess_merge_modes(&s->tcs_io.modes, &s->tes_io.modes, s->tess_lower_left != 0, &mode))
      return "graphics pipeline: the tessellation shaders' execution modes lack a domain or a "
             "spacing, or disagree";
   return NULL;
}

/* The colour Locations (bits 0-7) of the fragment shader's outputs that
 * nothing reads: no colour attachment of the subpass (or of dynamic
 * rendering's formats) at that index, Location 0 kept when alpha to
 * coverage reads its alpha. The compiler leaves their stores out
 * (sc_compile_info.fs_unused_outputs): GLES 2 shaders through zink write
 * gl_FragColor to all eight Locations. 0 (keep all) where the attachments
 * are not known. Correct only while the attachments' use is fixed at
 * pipeline creation: Shale offers no dynamicRenderingUnusedAttachments,
 * graphics pipeline libraries, dynamic alpha to coverage (extended dynamic
 * state 3) or dynamic_rendering_local_read; whoever adds one revisits
 * this. */
static uint32_t
sd_fs_unused_outputs(const VkGraphicsPipelineCreateInfo *ci, const struct sd_graphics_state *g)
{
   uint32_t used = 0;
   if (ci->renderPass != VK_NULL_HANDLE) {
      SD_FROM_HANDLE(sd_render_pass, rp, ci->renderPass);
      if (ci->subpass >= rp->subpass_count)
         return 0;
      const struct sd_subpass *sp = &rp->subpasses[ci->subpass];
      for (uint32_t i = 0; i < sp->color_count && i < 8; i++)
         if (sp->colors[i].attachment != VK_ATTACHMENT_UNUSED)
            used |= 1u << i;
   } else {
      const VkPipelineRenderingCreateInfo *ri =
         sd_find_struct(ci, VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO);
      if (!ri)
         return 0;
      for (uint32_t i = 0; i < ri->colorAttachmentCount && i < 8; i++)
         if (ri->pColorAttachmentFormats[i] != VK_FORMAT_UNDEFINED)
            used |= 1u << i;
   }
   if (g->state.alpha_to_coverage)
      used |= 1u;
   return ~used & 0xffu;
}

static VkResult
sd_graphics_pipeline_create(struct sd_device *device, struct sd_pipeline_cache *cache,
                            const void *create_info, const VkAllocationCallbacks *pAllocator,
                            struct sd_pipeline **out)
{
   const VkGraphicsPipelineCreateInfo *ci = create_info;
   uint64_t start = sd_now_ns();
   SD_FROM_HANDLE(sd_pipeline_layout, layout, ci->layout);
   struct sd_pipeline *pipeline = NULL;
   VkResult result = sd_pipeline_alloc(device, pAllocator, VK_PIPELINE_BIND_POINT_GRAPHICS, layout,
                                       &pipeline);
   if (result != VK_SUCCESS)
      return result;
   struct sd_graphics_state *g = &pipeline->graphics;

   const char *why = sd_translate_state(ci, g);
   if (why) {
      char msg[160];
      snprintf(msg, sizeof(msg), "graphics pipeline: unsupported %s", why);
      sd_pipeline_destroy(device, pAllocator, pipeline);
      return sd_errorf(VK_ERROR_UNKNOWN, msg);
   }

   struct sd_stage_result stages[5];
   const uint32_t fs_unused = sd_fs_unused_outputs(ci, g);
   /* OutputVertices may be declared by the evaluation shader alone: the
    * control shader's compile takes it from there (llvm_tess.c). */
   uint32_t tes_output_vertices = 0;
   for (uint32_t i = 0; i < ci->stageCount; i++) {
      const VkPipelineShaderStageCreateInfo *st = &ci->pStages[i];
      SD_FROM_HANDLE(sd_shader_module, module, st->module);
      if (st->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT && module && st->pName)
         tes_output_vertices = sc_tess_output_vertices(module->words, module->word_count,
                                                       st->pName);
   }
   /* Compiled in pipeline order (the stage bits' order) whatever the order
    * of pStages: a tessellation or geometry shader's compile takes the
    * clip distance count of the stage before it. stages[] stays in pStages order (creation
    * feedback); five stages at most, each once. */
   if (ci->stageCount > 5) {
      sd_pipeline_destroy(device, pAllocator, pipeline);
      return sd_errorf(VK_ERROR_UNKNOWN, "graphics pipeline: a stage given twice");
   }
   memset(stages, 0, sizeof(stages));
   uint32_t order[5];
   for (uint32_t i = 0; i < ci->stageCount; i++) {
      uint32_t k = i;
      for (; k > 0 && ci->pStages[order[k - 1]].stage > ci->pStages[i].stage; k--)
         order[k] = order[k - 1];
      order[k] = i;
   }
   for (uint32_t n = 0; n < ci->stageCount; n++) {
      const uint32_t i = order[n];
      const VkPipelineShaderStageCreateInfo *st = &ci->pStages[i];
      struct sd_compiled_shader **slot = NULL;
      if (st->stage == VK_SHADER_STAGE_VERTEX_BIT)
         slot = &g->vs;
      else if (st->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT)
         slot = &g->tcs;
      else if (st->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT)
         slot = &g->tes;
      else if (st->stage == VK_SHADER_STAGE_GEOMETRY_BIT)
         slot = &g->gs;
      else if (st->stage == VK_SHADER_STAGE_FRAGMENT_BIT)
         slot = &g->fs;
      else
         result = sd_errorf(VK_ERROR_UNKNOWN, "graphics pipeline: a stage other than vertex, "
                                              "tessellation, geometry and fragment");
      if (result == VK_SUCCESS && *slot)
         result = sd_errorf(VK_ERROR_UNKNOWN, "graphics pipeline: a stage given twice");
      /* Where the stage before a tessellation or geometry shader puts its
       * cull distances (after its clip distances: llvm_stage.c,
       * describe_arrayed). */
      uint32_t in_clip = 0;
      if (st->stage == VK_SHADER_STAGE_GEOMETRY_BIT && g->tes)
         in_clip = atomic_load(&g->tes->shader)->io.tes.out.clip_distance_count;
      else if (st->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT && g->tcs)
         in_clip = atomic_load(&g->tcs->shader)->io.tcs.output_clip_distances;
      else if ((st->stage == VK_SHADER_STAGE_GEOMETRY_BIT ||
                st->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT) && g->vs)
         in_clip = atomic_load(&g->vs->shader)->io.vs.clip_distance_count;
      if (result == VK_SUCCESS) {
         result = sd_pipeline_compile_stage(device, cache, pipeline->runtime, layout, st,
                                            fs_unused, tes_output_vertices, in_clip,
                                            sd_choose_alloc(pAllocator, &device->alloc),
                                            &stages[i]);
         if (result == VK_SUCCESS)
            *slot = stages[i].shader;
      }
      if (result != VK_SUCCESS) {
         sd_pipeline_destroy(device, pAllocator, pipeline);
         return result;
      }
   }
   if (!g->vs) {
      sd_pipeline_destroy(device, pAllocator, pipeline);
      return sd_errorf(VK_ERROR_UNKNOWN, "graphics pipeline without a vertex shader");
   }
   /* A discarding pipeline runs no fragment shader. */
   if (g->state.rasterizer_discard && g->fs) {
      sd_compiled_shader_unref(g->fs);
      g->fs = NULL;
   }
   g->state.vs_io = atomic_load(&g->vs->shader)->io.vs;
   const char *tess_why = sd_graphics_tess(ci, g);
   if (tess_why) {
      sd_pipeline_destroy(device, pAllocator, pipeline);
      return sd_errorf(VK_ERROR_UNKNOWN, tess_why);
   }
   if (g->gs) {
      g->state.gs_io = atomic_load(&g->gs->shader)->io.gs;
      /* Its input primitive must be the topology's, or the tessellation
       * stages' output primitive (valid usage). */
      static const uint8_t vertices[] = {1, 2, 2, 3, 3, 3, 4, 4, 6, 6};
      uint32_t in = g->state.topology < sizeof(vertices) ? vertices[g->state.topology] : 0;
      if (g->tes) {
         struct sr_tess_params mode;
         sr_tess_merge_modes(&g->state.tcs_io.modes, &g->state.tes_io.modes, false, &mode);
         in = mode.point_mode ? 1 : mode.domain == SR_TESS_ISOLINES ? 2 : 3;
      }
      if (in != g->state.gs_io.vertices_in) {
         sd_pipeline_destroy(device, pAllocator, pipeline);
         return sd_errorf(VK_ERROR_UNKNOWN,
                          "graphics pipeline: geometry shader input primitive not the topology's");
      }
   }
   if (g->fs)
      g->state.fs_io = atomic_load(&g->fs->shader)->io.fs;
   bool backend_hit = true;
   sd_graphics_backend(pipeline, cache, sd_choose_alloc(pAllocator, &device->alloc), ci,
                       &backend_hit);
   sd_pipeline_feedback(ci, start, stages, ci->stageCount, backend_hit);
   if (su_debug(SU_DEBUG_INFO))
      su_log("pipeline: graphics pipeline created in %.2f ms%s", (sd_now_ns() - start) / 1e6,
             g->fb_slot ? " (back-end routines compiling in the background)" : "");
   *out = pipeline;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateGraphicsPipelines(VkDevice _device, VkPipelineCache pipelineCache, uint32_t count,
                           const VkGraphicsPipelineCreateInfo *pCreateInfos,
                           const VkAllocationCallbacks *pAllocator, VkPipeline *pPipelines)
{
   return sd_create_pipelines(_device, pipelineCache, count, pCreateInfos, sizeof(*pCreateInfos),
                              sd_graphics_pipeline_create, pAllocator, pPipelines);
}
