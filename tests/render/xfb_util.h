/*
 * Transform feedback helpers of the render tests (render/xfb, xfb64, xfb_clip,
 * geometry_xfb, geometry_limits): the VK_EXT_transform_feedback commands
 * (static function pointers, one set per test program), opening a device
 * with transformFeedback, the stream query pool, a capturing draw and the
 * comparison of a capture buffer with its expected bytes. Static inline
 * (they CHECK: check.h's counters are per .c file); include after check.h
 * and draw_util.h.
 */
#ifndef XFB_UTIL_H
#define XFB_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

static PFN_vkCmdBindTransformFeedbackBuffersEXT bind_xfb;
static PFN_vkCmdBeginTransformFeedbackEXT begin_xfb;
static PFN_vkCmdEndTransformFeedbackEXT end_xfb;
static PFN_vkCmdBeginQueryIndexedEXT begin_qi;
static PFN_vkCmdEndQueryIndexedEXT end_qi;

/* The start of a transform feedback test's run on driver `which`: sets
 * SHALE_THREADS to `threads` (NULL: left), probes the driver for
 * VK_EXT_transform_feedback (draw_probe_extension: *o the options, *core the
 * core features) and says in *xfb whether it offers the extension with
 * transformFeedback. False when the driver is not there (then one check:
 * that it is lavapipe, which may be missing; Shale must be there). */
static inline bool
xfb_probe(enum vkt_driver which, const char *threads, struct vkt_options *o,
          VkPhysicalDeviceFeatures *core, bool *xfb)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   VkPhysicalDeviceTransformFeedbackFeaturesEXT tf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT};
   bool has;
   if (!draw_probe_extension(which, o, VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME, &tf, NULL, core,
                             &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return false;
   }
   *xfb = has && tf.transformFeedback;
   return true;
}

/* Opens o->driver (options from draw_probe_extension) with
 * VK_EXT_transform_feedback and its transformFeedback feature enabled and
 * `core` as the core features (NULL: none). A check only when the device
 * could not be made (then false, nothing to vkt_finish). */
static inline bool
xfb_open(struct vkt *t, struct vkt_options *o, const VkPhysicalDeviceFeatures *core)
{
   static const char *const dexts[] = {VK_EXT_TRANSFORM_FEEDBACK_EXTENSION_NAME};
   VkPhysicalDeviceTransformFeedbackFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT,
      .transformFeedback = VK_TRUE,
   };
   o->device_extensions = dexts;
   o->device_extension_count = 1;
   o->device_pnext = &enable;
   o->features = core;
   if (vkt_init(t, o))
      return true;
   CHECK(0, "%s: device", vkt_driver_name(o->driver));
   return false;
}

/* A transform feedback test's opening: probes `which` (SHALE_THREADS =
 * threads when set), needs transformFeedback and every core feature `want`
 * sets (Shale must have them: one check; another driver without them is
 * "not run", named by `what`), then opens the device with `want` as its core
 * features (xfb_open). False where the test does not run (nothing to
 * vkt_finish). */
static inline bool
xfb_start(struct vkt *t, enum vkt_driver which, const char *threads,
          const VkPhysicalDeviceFeatures *want, const char *what)
{
   VkPhysicalDeviceFeatures core;
   struct vkt_options o;
   bool has;
   if (!xfb_probe(which, threads, &o, &core, &has))
      return false;
   const VkBool32 *w = (const VkBool32 *)want, *c = (const VkBool32 *)&core;
   bool ok = has;
   for (size_t i = 0; i < sizeof(core) / sizeof(VkBool32); i++)
      if (w[i] && !c[i])
         ok = false;
   if (which == VKT_SHALE)
      CHECK(ok, "shale: features");
   if (!ok) {
      fprintf(stderr, "%s: no transform feedback or %s, not run\n", vkt_driver_name(which), what);
      return false;
   }
   return xfb_open(t, &o, want);
}

/* Loads bind_xfb, begin_xfb, end_xfb, begin_qi and end_qi from t's device:
 * five checks. */
static inline void
xfb_get_commands(struct vkt *t)
{
#define XFB_GET(var, name) \
   var = (void *)vkGetDeviceProcAddr(t->device, name); \
   CHECK(var, "%s", name)
   XFB_GET(bind_xfb, "vkCmdBindTransformFeedbackBuffersEXT");
   XFB_GET(begin_xfb, "vkCmdBeginTransformFeedbackEXT");
   XFB_GET(end_xfb, "vkCmdEndTransformFeedbackEXT");
   XFB_GET(begin_qi, "vkCmdBeginQueryIndexedEXT");
   XFB_GET(end_qi, "vkCmdEndQueryIndexedEXT");
#undef XFB_GET
}

/* A one-query VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT pool: one check. */
static inline void
xfb_query_pool(struct vkt *t, const char *dn, VkQueryPool *pool)
{
   VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                               .queryType = VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT,
                               .queryCount = 1};
   CHECK(vkCreateQueryPool(t->device, &qi, NULL, pool) == VK_SUCCESS, "%s: query pool", dn);
}

/* p->pipeline (p->layout = layout): vs, gs and fs (gs, fs VK_NULL_HANDLE:
 * none) drawing topo into dt from one vec4 R32G32B32A32_SFLOAT attribute
 * (stride 16), with or without rasterizer discard. vkCreateGraphicsPipelines'
 * result; no check. */
static inline VkResult
xfb_pipeline(struct vkt *t, struct draw_target *dt, VkPipelineLayout layout, VkShaderModule vs,
             VkShaderModule gs, VkShaderModule fs, VkPrimitiveTopology topo, bool discard,
             struct draw_pipeline *p)
{
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .rasterizerDiscardEnable = (VkBool32)discard,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .lineWidth = 1.0f,
   };
   struct draw_pipeline_info pi = {
      .stride = 16, .attrib_count = 1, .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT},
      .topology = topo, .rasterization = &rs,
   };
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, dt, &pi, vs, fs, layout);
   const VkShaderModule modules[3] = {vs, gs, fs};
   const VkShaderStageFlagBits kinds[3] = {VK_SHADER_STAGE_VERTEX_BIT,
                                           VK_SHADER_STAGE_GEOMETRY_BIT,
                                           VK_SHADER_STAGE_FRAGMENT_BIT};
   VkPipelineShaderStageCreateInfo stages[3];
   uint32_t n = 0;
   for (int i = 0; i < 3; i++)
      if (modules[i] != VK_NULL_HANDLE)
         stages[n++] = (VkPipelineShaderStageCreateInfo) {
            .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
            .stage = kinds[i], .module = modules[i], .pName = "main"};
   st.info.stageCount = n;
   st.info.pStages = stages;
   *p = (struct draw_pipeline) {.layout = layout};
   return vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &st.info, NULL, &p->pipeline);
}

/* Resets query 0 of qpool, then draws `vertices` x `instances` with p into
 * dt (vertex buffer vb), capturing into the n buffers xb (whole, from offset
 * 0, bindings 0..n-1) with the stream query active: draw_end's result.
 * q[0] and q[1] get the query's primitives written and needed (zeros when
 * the results could not be read; *qr gets vkGetQueryPoolResults' result). */
static inline VkResult
xfb_capture_draw(struct vkt *t, struct draw_target *dt, const struct draw_pipeline *p, VkBuffer vb,
                 VkQueryPool qpool, uint32_t n, const struct vkt_buffer *xb, uint32_t vertices,
                 uint32_t instances, uint64_t q[2], VkResult *qr)
{
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdResetQueryPool(cb, qpool, 0, 1);
   vkt_submit_wait(t, cb);
   cb = draw_begin(t, dt, p, vb);
   VkBuffer bufs[8];
   VkDeviceSize offs[8], sizes[8];
   for (uint32_t b = 0; b < n && b < 8; b++)
      bufs[b] = xb[b].buffer, offs[b] = 0, sizes[b] = VK_WHOLE_SIZE;
   bind_xfb(cb, 0, n < 8 ? n : 8, bufs, offs, sizes);
   begin_qi(cb, qpool, 0, 0, 0);
   begin_xfb(cb, 0, 0, NULL, NULL);
   vkCmdDraw(cb, vertices, instances, 0, 0);
   end_xfb(cb, 0, 0, NULL, NULL);
   end_qi(cb, qpool, 0, 0);
   VkResult r = draw_end(t, dt, cb);
   q[0] = q[1] = 0;
   *qr = vkGetQueryPoolResults(t->device, qpool, 0, 1, 2 * sizeof(uint64_t), q,
                               2 * sizeof(uint64_t),
                               VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   return r;
}

/* The bytes of got[0..size) that differ from want's; the first four are
 * printed, each as "<what>: byte i: got, expected". No check. */
static inline unsigned
xfb_bytes_wrong(const void *got, const void *want, size_t size, const char *what)
{
   const uint8_t *g = got, *w = want;
   unsigned bad = 0;
   for (size_t i = 0; i < size; i++)
      if (g[i] != w[i] && bad++ < 4)
         fprintf(stderr, "%s: byte %zu: %02x, expected %02x\n", what, i, g[i], w[i]);
   return bad;
}

#endif
