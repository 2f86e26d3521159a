/* VK_EXT_shader_viewport_index_layer: Layer and ViewportIndex written by a
 * vertex shader and by a tessellation evaluation shader (no geometry
 * shader) pick each primitive's layer and viewport. A 64x64 attachment of
 * two layers; viewport v is quadrant v (32x32, depth range [16v + 32, 255]
 * / 255), scissor v that quadrant less a pixel on each side. For each
 * layer l and viewport v: a rectangle of two triangles from the vertex
 * shader in the quadrant's upper half, and one tessellated quad patch (one
 * control point carrying the rectangle, levels 1) from the evaluation
 * shader in its lower half (layer 1's crossing the scissor's right edge).
 * Each of Layer and ViewportIndex also alone (sr_vertex.c's layer_off and
 * viewport_off): a vertex shader writing only Layer draws a rectangle in
 * each layer, which must land in viewport 0 of that layer (x 19-24 of
 * quadrant 0; its color names viewport 1, which it does not write), and
 * one writing only ViewportIndex a rectangle for each viewport, which must
 * land in layer 0 (x 25-30 of quadrant v; its color names layer 1).
 * Every fragment writes (64 stage, 16 (4 l + v) (+ 8 for those alone),
 * window z, ViewportIndex * 16) / 255 (render/viewports' fragment shader);
 * window z at normalized 0 is the depth range's minimum. Both layers are
 * compared exactly with a CPU reference (axis-aligned edges on pixel
 * boundaries), on Shale at SHALE_THREADS 1, 2 and 4; on lavapipe the
 * vertex shader's rectangles' pixels only: Mesa 22.3's lavapipe draws the
 * evaluation shader's rectangles wrong (misplaced triangles with varying
 * depth, some missing; not investigated). The Layer-alone and
 * ViewportIndex-alone rectangles are also checked apart (their pixels
 * only). On Shale only (the spec leaves it undefined; Shale drops such
 * primitives, sr_setup.c geom_prim): rectangles from each of the three
 * vertex shaders with Layer 2 (past the framebuffer's layers) or
 * ViewportIndex 4 (past viewportCount), in rows 13-16 of a quadrant, which
 * nothing else draws, must draw nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "geom_vert_spv.h"
#include "vp_frag_spv.h"
#include "vpl_tesc_spv.h"
#include "vpl_tese_spv.h"
#include "vpl_layer_only_vert_spv.h"
#include "vpl_vert_spv.h"
#include "vpl_viewport_only_vert_spv.h"

#define W 64
#define H 64
#define LAYERS 2
#define NVP 4

struct vtx {
   float pos[4];
   float color[4];   /* r, g, layer, viewport */
};

/* The vertex shaders' vertices, 6 a rectangle: vpl.vert's (LAYERS * NVP
 * rectangles, then its OOR dropped ones), the Layer-only shader's (LAYERS,
 * then 1 dropped), the ViewportIndex-only shader's (NVP, then 1 dropped). */
enum vs_kind { VS_BOTH, VS_LAYER, VS_VIEWPORT, VS_KINDS };
#define OOR_BOTH 2
static const int vs_rects[VS_KINDS] = {LAYERS * NVP, LAYERS, NVP};
static const int vs_oor[VS_KINDS] = {OOR_BOTH, 1, 1};
#define VS_VERTS (6 * (LAYERS * NVP + OOR_BOTH + LAYERS + 1 + NVP + 1))

static VkViewport vps[NVP];
static VkRect2D scs[NVP];
static struct vtx vs_verts[VS_VERTS], patch_verts[LAYERS * NVP];
static int vs_first[VS_KINDS];
static uint32_t ref[LAYERS][W * H];
/* 1: a pixel of a Layer-only or ViewportIndex-only rectangle. */
static uint8_t alone[LAYERS][W * H];

static float
ndc(double win, double o, double h)
{
   return (float)((win - (o + h * 0.5)) / (h * 0.5));
}

static void
fill(int l, int v, int x0, int y0, int x1, int y1, uint32_t px)
{
   const VkRect2D *s = &scs[v];
   for (int y = y0; y < y1; y++)
      for (int x = x0; x < x1; x++)
         if (x >= s->offset.x && x < s->offset.x + (int)s->extent.width && y >= s->offset.y &&
             y < s->offset.y + (int)s->extent.height)
            ref[l][y * W + x] = px;
}

/* Six vertices of the rectangle (x0, y0) - (x1, y1) in viewport p's
 * window coordinates, colour c. */
static void
rect(struct vtx *o, const VkViewport *p, int x0, int y0, int x1, int y1, const float c[4])
{
   const float X0 = ndc(x0, p->x, p->width), X1 = ndc(x1, p->x, p->width);
   const float Y0 = ndc(y0, p->y, p->height), Y1 = ndc(y1, p->y, p->height);
   const float corner[6][2] = {{X0, Y0}, {X1, Y0}, {X0, Y1}, {X1, Y0}, {X1, Y1}, {X0, Y1}};
   for (int k = 0; k < 6; k++)
      o[k] = (struct vtx){{corner[k][0], corner[k][1], 0, 1}, {c[0], c[1], c[2], c[3]}};
}

static void
build(void)
{
   memset(ref, 0, sizeof(ref));
   memset(alone, 0, sizeof(alone));
   for (int v = 0; v < NVP; v++) {
      const int qx = 32 * (v & 1), qy = 32 * (v >> 1);
      vps[v] = (VkViewport){(float)qx, (float)qy, 32, 32, (16.0f * v + 32.0f) / 255.0f, 1.0f};
      scs[v] = (VkRect2D){{qx + 1, qy + 1}, {30, 30}};
   }
   int nt = 0, np = 0;
   vs_first[VS_BOTH] = 0;
   for (int l = 0; l < LAYERS; l++) {
      for (int v = 0; v < NVP; v++) {
         const int qx = 32 * (v & 1), qy = 32 * (v >> 1);
         const VkViewport *p = &vps[v];
         for (int stage = 1; stage <= 2; stage++) {
            const float c[4] = {64.0f * stage / 255.0f, 16.0f * (4 * l + v) / 255.0f, (float)l, (float)v};
            const float want[4] = {c[0], c[1], (16.0f * v + 32.0f) / 255.0f, 16.0f * v / 255.0f};
            const uint32_t px = draw_pack_rgba8(want);
            if (stage == 1) {
               const int x0 = qx + 2 + 3 * l, x1 = qx + 14 + 3 * l, y0 = qy + 3, y1 = qy + 12;
               rect(&vs_verts[nt], p, x0, y0, x1, y1, c);
               nt += 6;
               fill(l, v, x0, y0, x1, y1, px);
            } else {
               const int x0 = qx + 4 + 3 * l, x1 = l ? qx + 40 : qx + 20, y0 = qy + 17, y1 = qy + 29;
               patch_verts[np++] = (struct vtx){{ndc(x0, p->x, p->width), ndc(y0, p->y, p->height),
                                                 ndc(x1, p->x, p->width), ndc(y1, p->y, p->height)},
                                                {c[0], c[1], c[2], c[3]}};
               fill(l, v, x0, y0, x1, y1, px);
            }
         }
      }
   }
   /* Dropped (Shale only): rows 13-16 of whichever quadrant a primitive
    * kept by mistake would land in; red 192. */
   const float oor_both[OOR_BOTH][4] = {{192 / 255.0f, 0.5f, 2, 0}, {192 / 255.0f, 0.5f, 0, 4}};
   for (int k = 0; k < OOR_BOTH; k++, nt += 6)
      rect(&vs_verts[nt], &vps[0], 2, 13, 30, 17, oor_both[k]);
   /* Layer only: viewport 0 of layer l (the colour's viewport 1 unused). */
   vs_first[VS_LAYER] = nt;
   for (int l = 0; l < LAYERS; l++, nt += 6) {
      const float c[4] = {64 / 255.0f, (16.0f * 4 * l + 8) / 255.0f, (float)l, 1};
      const float want[4] = {c[0], c[1], 32 / 255.0f, 0};
      rect(&vs_verts[nt], &vps[0], 19, 3, 25, 12, c);
      fill(l, 0, 19, 3, 25, 12, draw_pack_rgba8(want));
      for (int y = 3; y < 12; y++)
         memset(&alone[l][y * W + 19], 1, 6);
   }
   rect(&vs_verts[nt], &vps[0], 2, 13, 30, 17, (const float[4]){192 / 255.0f, 0.5f, 2, 0});
   nt += 6;
   /* ViewportIndex only: layer 0 of viewport v (the colour's layer 1
    * unused). */
   vs_first[VS_VIEWPORT] = nt;
   for (int v = 0; v < NVP; v++, nt += 6) {
      const int qx = 32 * (v & 1), qy = 32 * (v >> 1);
      const float c[4] = {64 / 255.0f, (16.0f * v + 8) / 255.0f, 1, (float)v};
      const float want[4] = {c[0], c[1], (16.0f * v + 32.0f) / 255.0f, 16.0f * v / 255.0f};
      rect(&vs_verts[nt], &vps[v], qx + 25, qy + 3, qx + 30, qy + 12, c);
      fill(0, v, qx + 25, qy + 3, qx + 30, qy + 12, draw_pack_rgba8(want));
      for (int y = qy + 3; y < qy + 12; y++)
         memset(&alone[0][y * W + qx + 25], 1, 5);
   }
   rect(&vs_verts[nt], &vps[0], 2, 13, 30, 17, (const float[4]){192 / 255.0f, 0.5f, 1, 4});
   nt += 6;
   if (nt != VS_VERTS)
      abort();
}

static VkResult
make_pipeline(struct vkt *t, VkRenderPass rp, VkPipelineLayout layout, const VkPipelineShaderStageCreateInfo *stages,
              uint32_t stage_count, VkPrimitiveTopology topology, VkPipeline *out)
{
   struct draw_pipeline_info pi = {
      .stride = sizeof(struct vtx), .attrib_count = 2,
      .attrib_format = {VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT},
      .attrib_offset = {0, 16}, .topology = topology,
      .cull_mode = VK_CULL_MODE_NONE, .polygon_mode = VK_POLYGON_MODE_FILL,
      .viewport = &vps[0], .scissor = &scs[0], .render_pass = rp, .color_count = 1,
   };
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, NULL, &pi, stages[0].module, stages[stage_count - 1].module, layout);
   st.vp.viewportCount = NVP;
   st.vp.scissorCount = NVP;
   st.vp.pViewports = vps;
   st.vp.pScissors = scs;
   const VkPipelineTessellationStateCreateInfo ts = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO, .patchControlPoints = 1,
   };
   if (topology == VK_PRIMITIVE_TOPOLOGY_PATCH_LIST)
      st.info.pTessellationState = &ts;
   st.info.stageCount = stage_count;
   st.info.pStages = stages;
   return vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &st.info, NULL, out);
}

static VkPipelineShaderStageCreateInfo
stage(VkShaderStageFlagBits s, VkShaderModule m)
{
   return (VkPipelineShaderStageCreateInfo){.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                            .stage = s, .module = m, .pName = "main"};
}

static void
run_driver(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   else
      unsetenv("SHALE_THREADS");
   const char *dn = vkt_driver_name(which);
   struct vkt_options o;
   VkPhysicalDeviceFeatures have;
   bool has = false;
   if (!draw_probe_extension(which, &o, VK_EXT_SHADER_VIEWPORT_INDEX_LAYER_EXTENSION_NAME, NULL, NULL, &have,
                             &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   CHECK(has && have.multiViewport && have.tessellationShader,
         "%s: VK_EXT_shader_viewport_index_layer %d, multiViewport %u, tessellationShader %u", dn, has,
         have.multiViewport, have.tessellationShader);
   if (!has || !have.multiViewport || !have.tessellationShader)
      return;
   static const char *const ext[] = {VK_EXT_SHADER_VIEWPORT_INDEX_LAYER_EXTENSION_NAME};
   VkPhysicalDeviceFeatures feats = {.multiViewport = VK_TRUE, .tessellationShader = VK_TRUE};
   o.device_extensions = ext;
   o.device_extension_count = 1;
   o.features = &feats;
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(0, "%s: device", dn);
      return;
   }
   struct vkt_image img = {0};
   VkImageView view = VK_NULL_HANDLE;
   VkRenderPass rp = VK_NULL_HANDLE;
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkResult r = draw_layered_color_target(&t, VK_FORMAT_R8G8B8A8_UNORM, W, H, LAYERS, &img, &view,
                                          &rp, &fb);
   CHECK(r == VK_SUCCESS, "%s: layered attachment: %d", dn, r);
   VkShaderModule vpl_vs[VS_KINDS] = {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE}, vs = VK_NULL_HANDLE, tcs = VK_NULL_HANDLE, tes = VK_NULL_HANDLE,
                  fs = VK_NULL_HANDLE;
   VkPipelineLayout layout = VK_NULL_HANDLE;
   /* pipe[VS_*]: the vertex shaders'; pipe[VS_KINDS]: tessellation. */
   VkPipeline pipe[VS_KINDS + 1] = {VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE};
   struct vkt_buffer vb[2] = {{0}}, rb = {0};
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vpl_vert_spv, sizeof(vpl_vert_spv), &vpl_vs[VS_BOTH]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vpl_layer_only_vert_spv, sizeof(vpl_layer_only_vert_spv), &vpl_vs[VS_LAYER]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vpl_viewport_only_vert_spv, sizeof(vpl_viewport_only_vert_spv),
                            &vpl_vs[VS_VIEWPORT]);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, geom_vert_spv, sizeof(geom_vert_spv), &vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vpl_tesc_spv, sizeof(vpl_tesc_spv), &tcs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vpl_tese_spv, sizeof(vpl_tese_spv), &tes);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(&t, vp_frag_spv, sizeof(vp_frag_spv), &fs);
   if (r == VK_SUCCESS)
      r = draw_pipeline_layout(&t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &layout);
   for (int k = 0; k < VS_KINDS && r == VK_SUCCESS; k++) {
      const VkPipelineShaderStageCreateInfo s[2] = {stage(VK_SHADER_STAGE_VERTEX_BIT, vpl_vs[k]),
                                                    stage(VK_SHADER_STAGE_FRAGMENT_BIT, fs)};
      r = make_pipeline(&t, rp, layout, s, 2, VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, &pipe[k]);
   }
   if (r == VK_SUCCESS) {
      const VkPipelineShaderStageCreateInfo s[4] = {
         stage(VK_SHADER_STAGE_VERTEX_BIT, vs), stage(VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT, tcs),
         stage(VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, tes), stage(VK_SHADER_STAGE_FRAGMENT_BIT, fs)};
      r = make_pipeline(&t, rp, layout, s, 4, VK_PRIMITIVE_TOPOLOGY_PATCH_LIST, &pipe[VS_KINDS]);
   }
   CHECK(r == VK_SUCCESS, "%s: pipelines: %d", dn, r);
   if (r == VK_SUCCESS)
      r = draw_upload(&t, vs_verts, sizeof(vs_verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb[0]);
   if (r == VK_SUCCESS)
      r = draw_upload(&t, patch_verts, sizeof(patch_verts), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb[1]);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, (VkDeviceSize)LAYERS * W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb);
   if (r == VK_SUCCESS) {
      VkCommandBuffer cb = vkt_begin(&t);
      VkClearValue clear = {.color = {{0, 0, 0, 0}}};
      VkRenderPassBeginInfo rbi = {
         .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO, .renderPass = rp, .framebuffer = fb,
         .renderArea = {{0, 0}, {W, H}}, .clearValueCount = 1, .pClearValues = &clear,
      };
      vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
      VkDeviceSize off = 0;
      /* The evaluation shader first: lavapipe's misplaced triangles
       * (above) land on some of the vertex shaders' pixels, which the
       * vertex shaders' rectangles then cover (no two rectangles
       * overlap: the order changes nothing on Shale). */
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe[VS_KINDS]);
      vkCmdBindVertexBuffers(cb, 0, 1, &vb[1].buffer, &off);
      vkCmdDraw(cb, LAYERS * NVP, 1, 0, 0);
      vkCmdBindVertexBuffers(cb, 0, 1, &vb[0].buffer, &off);
      for (int k = 0; k < VS_KINDS; k++) {
         /* The rectangles past the layers or viewports: Shale only. */
         const int n = vs_rects[k] + (which == VKT_SHALE ? vs_oor[k] : 0);
         vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipe[k]);
         vkCmdDraw(cb, 6 * (uint32_t)n, 1, (uint32_t)vs_first[k], 0);
      }
      vkCmdEndRenderPass(cb);
      const VkBufferImageCopy region = {
         .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, LAYERS},
         .imageExtent = {W, H, 1},
      };
      vkCmdCopyImageToBuffer(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1, &region);
      draw_host_barrier(cb);
      r = vkt_submit_wait(&t, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   }
   if (r == VK_SUCCESS) {
      const uint32_t *got = rb.map;
      unsigned oor = 0;
      for (int l = 0; l < LAYERS; l++) {
         unsigned bad = 0, drawn = 0, alone_bad = 0, alone_drawn = 0;
         for (int i = 0; i < W * H; i++) {
            /* lavapipe (Mesa 22.3) draws the evaluation shader's
             * rectangles wrong (elsewhere, with varying depth, or not at
             * all): its image is compared on the vertex shader's
             * rectangles (red 64) only. */
            if (which == VKT_LAVAPIPE && (ref[l][i] & 0xff) != 64)
               continue;
            drawn += ref[l][i] != 0;
            alone_drawn += alone[l][i];
            alone_bad += alone[l][i] && got[l * W * H + i] != ref[l][i];
            oor += (got[l * W * H + i] & 0xff) == 192;
            if (got[l * W * H + i] != ref[l][i] && bad++ < 6)
               fprintf(stderr, "%s (SHALE_THREADS %s): layer %d pixel (%d, %d): %08x, expected %08x\n", dn,
                       threads ? threads : "-", l, i % W, i / W, got[l * W * H + i], ref[l][i]);
         }
         CHECK(bad == 0 && drawn > (which == VKT_LAVAPIPE ? 300u : 1000u), "%s (SHALE_THREADS %s): layer %d: %u pixels differ (%u drawn)", dn,
               threads ? threads : "-", l, bad, drawn);
         /* Layer 0: 2 rectangles (Layer only, 6x9 in layer 0) + 4
          * (ViewportIndex only, 5x9); layer 1: 1 (Layer only). */
         CHECK(alone_bad == 0 && alone_drawn == (l ? 54u : 54u + 4 * 45u),
               "%s (SHALE_THREADS %s): layer %d: Layer-only / ViewportIndex-only rectangles: %u of %u pixels differ",
               dn, threads ? threads : "-", l, alone_bad, alone_drawn);
      }
      if (which == VKT_SHALE)
         CHECK(oor == 0, "%s (SHALE_THREADS %s): Layer 2 / ViewportIndex 4 rectangles drew %u pixels", dn,
               threads ? threads : "-", oor);
   }
   if (rb.buffer)
      vkt_buffer_destroy(&t, &rb);
   for (int i = 0; i < 2; i++)
      if (vb[i].buffer)
         vkt_buffer_destroy(&t, &vb[i]);
   for (int i = 0; i <= VS_KINDS; i++)
      vkDestroyPipeline(t.device, pipe[i], NULL);
   vkDestroyPipelineLayout(t.device, layout, NULL);
   for (int k = 0; k < VS_KINDS; k++)
      vkDestroyShaderModule(t.device, vpl_vs[k], NULL);
   vkDestroyShaderModule(t.device, vs, NULL);
   vkDestroyShaderModule(t.device, tcs, NULL);
   vkDestroyShaderModule(t.device, tes, NULL);
   vkDestroyShaderModule(t.device, fs, NULL);
   draw_color_target_destroy(&t, &img, view, rp, fb);
   vkt_finish(&t);
}

int
main(void)
{
   build();
   run_driver(VKT_SHALE, "1");
   run_driver(VKT_SHALE, "2");
   run_driver(VKT_SHALE, "4");
   run_driver(VKT_LAVAPIPE, NULL);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
