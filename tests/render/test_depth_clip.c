/* VK_EXT_depth_clip_enable (zink needs it for GL_ARB_depth_clamp): with
 * VkPipelineRasterizationDepthClipStateCreateInfoEXT, depthClipEnable alone
 * decides whether primitives are clipped against z = 0 and z = w, whatever
 * depthClampEnable; without it, clipping is !depthClampEnable. A quad whose
 * depth z = 0.5 + 0.9x + 0.3y (NDC) crosses both the near and the far plane
 * (one triangle with w = 1, the other with w = 2) is drawn with depth test
 * ALWAYS and writes into a D32_SFLOAT target for the four clamp x clip
 * combinations and both no-struct cases, on Shale and lavapipe. Expected,
 * per pixel centre inside the quad: with clipping, covered only where
 * 0 <= z <= 1 (pixels within 0.02 of a plane not checked) with depth z;
 * without clipping, covered everywhere, with depth clamp(z, 0, 1) when
 * clamping; without either, depth is checked only where 0 <= z <= 1 (the
 * spec leaves the stored value of a float depth outside the depth range to
 * the implementation).
 * VK_EXT_extended_dynamic_state3 (where offered): the same expectations
 * with the clip enable dynamic (four combinations), the clamp enable
 * dynamic without the struct (clipping follows the dynamic clamp), and
 * both dynamic (four), set by vkCmdSetDepthClipEnableEXT /
 * vkCmdSetDepthClampEnableEXT against pipelines whose own values are the
 * opposite (which must be ignored). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"

#define W 64
#define H 64
#define Q 0.875f
#define CLEAR_DEPTH 0.25f

static float
depth_at(double x, double y)
{
   return (float)(0.5 + 0.9 * x + 0.3 * y);
}

enum { DYN_CLAMP = 1, DYN_CLIP = 2 };

struct variant {
   const char *name;
   bool with_struct, clamp, clip;
   unsigned dyn;   /* DYN_*: set by command, the pipeline's value the opposite */
};

static const struct variant variants[] = {
   { "no struct, clamp off (clipped)", false, false, true },
   { "no struct, clamp on (not clipped)", false, true, false },
   { "clamp off, clip on", true, false, true },
   { "clamp off, clip off", true, false, false },
   { "clamp on, clip on", true, true, true },
   { "clamp on, clip off", true, true, false },
   { "dynamic clip on, clamp off", true, false, true, DYN_CLIP },
   { "dynamic clip off, clamp off", true, false, false, DYN_CLIP },
   { "dynamic clip on, clamp on", true, true, true, DYN_CLIP },
   { "dynamic clip off, clamp on", true, true, false, DYN_CLIP },
   { "no struct, dynamic clamp off (clipped)", false, false, true, DYN_CLAMP },
   { "no struct, dynamic clamp on (not clipped)", false, true, false, DYN_CLAMP },
   { "dynamic clamp off, dynamic clip on", true, false, true, DYN_CLAMP | DYN_CLIP },
   { "dynamic clamp off, dynamic clip off", true, false, false, DYN_CLAMP | DYN_CLIP },
   { "dynamic clamp on, dynamic clip on", true, true, true, DYN_CLAMP | DYN_CLIP },
   { "dynamic clamp on, dynamic clip off", true, true, false, DYN_CLAMP | DYN_CLIP },
};

static unsigned
run_variant(struct vkt *t, const struct variant *v, struct vkt_buffer *vb)
{
   const char *dn = vkt_driver_name(t->driver);
   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM,
                             .depth_format = VK_FORMAT_D32_SFLOAT, .width = W, .height = H,
                             .clear_depth = CLEAR_DEPTH };
   VkResult r = draw_target_create(t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   if (r != VK_SUCCESS)
      return 1;
   VkPipelineRasterizationDepthClipStateCreateInfoEXT dc = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_DEPTH_CLIP_STATE_CREATE_INFO_EXT,
      .depthClipEnable = (v->dyn & DYN_CLIP) ? !v->clip : v->clip,
   };
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .pNext = v->with_struct ? &dc : NULL,
      .depthClampEnable = (v->dyn & DYN_CLAMP) ? !v->clamp : v->clamp,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .cullMode = VK_CULL_MODE_NONE,
      .lineWidth = 1.0f,
   };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_ALWAYS,
   };
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                    sizeof(flat_color_frag_spv));
   pi.rasterization = &rs;
   pi.depth_stencil = &ds;
   VkDynamicState dyn[2];
   for (unsigned b = DYN_CLAMP; b <= DYN_CLIP; b <<= 1)
      if (v->dyn & b)
         dyn[pi.dynamic_state_count++] = b == DYN_CLAMP ? VK_DYNAMIC_STATE_DEPTH_CLAMP_ENABLE_EXT
                                                        : VK_DYNAMIC_STATE_DEPTH_CLIP_ENABLE_EXT;
   pi.dynamic_states = dyn;
   struct draw_pipeline p;
   r = draw_pipeline_create(t, &dt, &pi, &p);
   CHECK(r == VK_SUCCESS, "%s: %s: pipeline: %d", dn, v->name, r);
   unsigned bad = 0;
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = draw_begin(t, &dt, &p, vb->buffer);
      if (v->dyn & DYN_CLAMP) {
         PFN_vkCmdSetDepthClampEnableEXT set = (PFN_vkCmdSetDepthClampEnableEXT)
            vkGetDeviceProcAddr(t->device, "vkCmdSetDepthClampEnableEXT");
         CHECK(set != NULL, "%s: vkCmdSetDepthClampEnableEXT", dn);
         if (set)
            set(cb, v->clamp);
      }
      if (v->dyn & DYN_CLIP) {
         PFN_vkCmdSetDepthClipEnableEXT set = (PFN_vkCmdSetDepthClipEnableEXT)
            vkGetDeviceProcAddr(t->device, "vkCmdSetDepthClipEnableEXT");
         CHECK(set != NULL, "%s: vkCmdSetDepthClipEnableEXT", dn);
         if (set)
            set(cb, v->clip);
      }
      vkCmdDraw(cb, 6, 1, 0, 0);
      r = draw_end(t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: %s: drawn: %d", dn, v->name, r);
      const uint32_t *color = dt.readback.map;
      const float *depth = (const float *)(color + W * H);
      unsigned covered = 0, checked = 0;
      for (int j = 0; j < H; j++) {
         for (int i = 0; i < W; i++) {
            double x = (i + 0.5) / (W / 2) - 1.0, y = (j + 0.5) / (H / 2) - 1.0;
            bool in = fabs(x) < Q && fabs(y) < Q;
            float z = depth_at(x, y);
            bool near_plane = fabsf(z) < 0.02f || fabsf(z - 1.0f) < 0.02f;
            bool inside_z = z >= 0.0f && z <= 1.0f;
            uint32_t c = color[j * W + i];
            float d = depth[j * W + i];
            covered += c != 0;
            if (v->clip && near_plane && in)
               continue;
            checked++;
            bool want = in && (!v->clip || inside_z);
            float want_d = CLEAR_DEPTH;
            bool check_d = true;
            if (want) {
               want_d = z < 0.0f ? 0.0f : z > 1.0f ? 1.0f : z;
               check_d = inside_z || v->clamp;
            }
            bool ok = (c == 0xffffffffu) == want && (c == 0 || c == 0xffffffffu) &&
                      (!check_d || fabsf(d - want_d) <= 1e-4f);
            if (!ok && bad++ < 4)
               fprintf(stderr,
                       "%s: %s: pixel (%d, %d), z %.4f: colour %08x depth %.5f, expected %s, "
                       "depth %.5f\n", dn, v->name, i, j, z, c, d,
                       want ? "covered" : "not covered", want_d);
         }
      }
      /* Something was drawn and enough was checked for the test to mean it. */
      CHECK(covered > 1000 && checked > 3000, "%s: %s: %u pixels covered, %u checked", dn,
            v->name, covered, checked);
   }
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
   return bad;
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceExtendedDynamicState3FeaturesEXT e3f = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT };
   VkPhysicalDeviceDepthClipEnableFeaturesEXT df = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT };
   VkPhysicalDeviceFeatures core;
   struct vkt_options o;
   struct vkt t;
   bool has, has_e3 = false;
   if (!draw_probe_extension(which, &o, VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME, NULL,
                             NULL, NULL, &has_e3) ||
       !draw_probe_extension(which, &o, VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME, &df, NULL,
                             &core, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (has && has_e3) {
      /* The EDS3 features, read with the depth clip ones. */
      df.pNext = &e3f;
      VkPhysicalDeviceFeatures core2;
      bool has2;
      draw_probe_extension(which, &o, VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME, &df, NULL, &core2,
                           &has2);
      df.pNext = NULL;
   }
   const bool dyn_ok = has_e3 && e3f.extendedDynamicState3DepthClipEnable &&
                       e3f.extendedDynamicState3DepthClampEnable;
   if (which == VKT_SHALE)
      CHECK(dyn_ok, "shale: VK_EXT_extended_dynamic_state3 %d, DepthClipEnable %u, "
                    "DepthClampEnable %u", has_e3, e3f.extendedDynamicState3DepthClipEnable,
            e3f.extendedDynamicState3DepthClampEnable);
   fprintf(stderr, "%s: dynamic depth clamp and clip enables %s\n", dn,
           dyn_ok ? "tested" : "not offered, not run");
   if (which == VKT_SHALE) {
      CHECK(has, "shale: VK_EXT_depth_clip_enable not offered");
      CHECK(df.depthClipEnable && core.depthClamp, "shale: depthClipEnable %u depthClamp %u",
            df.depthClipEnable, core.depthClamp);
   }
   if (!has || !df.depthClipEnable || !core.depthClamp) {
      fprintf(stderr, "%s: no depth clip enable or depth clamp, not run\n", dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_DEPTH_CLIP_ENABLE_EXTENSION_NAME,
                                        VK_EXT_EXTENDED_DYNAMIC_STATE_3_EXTENSION_NAME };
   VkPhysicalDeviceExtendedDynamicState3FeaturesEXT e3_enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT,
      .extendedDynamicState3DepthClampEnable = VK_TRUE,
      .extendedDynamicState3DepthClipEnable = VK_TRUE,
   };
   VkPhysicalDeviceDepthClipEnableFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT,
      .pNext = dyn_ok ? &e3_enable : NULL,
      .depthClipEnable = VK_TRUE,
   };
   VkPhysicalDeviceFeatures feats = { .depthClamp = VK_TRUE };
   o.device_extensions = dexts;
   o.device_extension_count = dyn_ok ? 2 : 1;
   o.device_pnext = &enable;
   o.features = &feats;
   CHECK(vkt_init(&t, &o), "%s: device with VK_EXT_depth_clip_enable", dn);
   /* Two triangles: the first in w = 1, the second's clip coordinates
    * scaled by w = 2 (same NDC). Colour white. */
   struct draw_vertex verts[6];
   const float xy[6][2] = { { -Q, -Q }, { Q, -Q }, { -Q, Q }, { Q, -Q }, { Q, Q }, { -Q, Q } };
   for (int k = 0; k < 6; k++) {
      float w = k < 3 ? 1.0f : 2.0f;
      verts[k] = (struct draw_vertex) {
         { xy[k][0] * w, xy[k][1] * w, depth_at(xy[k][0], xy[k][1]) * w, w },
         { 1.0f, 1.0f, 1.0f, 1.0f } };
   }
   struct vkt_buffer vb;
   VkResult r = draw_upload(&t, verts, sizeof(verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   CHECK(r == VK_SUCCESS, "%s: vertex buffer", dn);
   if (r == VK_SUCCESS) {
      for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++) {
         if (variants[i].dyn && !dyn_ok)
            continue;
         unsigned bad = run_variant(&t, &variants[i], &vb);
         CHECK(bad == 0, "%s: %s: %u pixels wrong", dn, variants[i].name, bad);
      }
      vkt_buffer_destroy(&t, &vb);
   }
   vkt_finish(&t);
}

int
main(void)
{
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   return draw_finish();
}
