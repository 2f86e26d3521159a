/* VK_EXT_conditional_rendering (zink needs it for GL's conditional
 * rendering): with the 32-bit predicate zero (or, INVERTED, nonzero) the
 * draws (vkCmdDraw, DrawIndexed, DrawIndirect, DrawIndexedIndirect, and
 * VK_KHR_draw_indirect_count's DrawIndirectCount and
 * DrawIndexedIndirectCount where the driver offers it),
 * dispatches (vkCmdDispatch, DispatchIndirect) and vkCmdClearAttachments of
 * the block do nothing, while a copy command in the block (vkCmdFillBuffer)
 * and everything after vkCmdEndConditionalRenderingEXT run. The predicate
 * is read when the commands execute: it is written by the host after
 * recording, or by a vkCmdFillBuffer earlier in the same command buffer;
 * only its 32 bits count (a zero word followed by a nonzero one is zero).
 * Secondary command buffers: one executed inside the primary's block with
 * VkCommandBufferInheritanceConditionalRenderingInfoEXT (where
 * inheritedConditionalRendering is offered), and one with a block of its
 * own. On Shale and on lavapipe, against the expected results. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"
#include "xfb_cond_comp_spv.h"

/* Six columns of 4x8 pixels: 0 vkCmdClearAttachments, 1 vkCmdDraw, 2
 * vkCmdDrawIndexed, 3 vkCmdDrawIndirect (top) and DrawIndexedIndirect
 * (bottom), 4 a draw after the block (always drawn), 5
 * vkCmdDrawIndirectCountKHR (top) and DrawIndexedIndirectCountKHR (bottom)
 * with a count of 1. */
#define W 24
#define H 8
#define QUADS 7
#define AFTER 4   /* the quad drawn after the block */


static const float quad_rect[QUADS][4] = {   /* x0, y0, x1, y1 in pixels */
   { 4, 0, 8, 8 }, { 8, 0, 12, 8 }, { 12, 0, 16, 4 }, { 12, 4, 16, 8 }, { 16, 0, 20, 8 },
   { 20, 0, 24, 4 }, { 20, 4, 24, 8 },
};
static const float quad_color[QUADS][4] = {
   { 1, 0, 0, 1 }, { 0, 1, 0, 1 }, { 1, 1, 0, 1 }, { 1, 0, 1, 1 }, { 0, 1, 1, 1 },
   { 1, 1, 1, 1 }, { 0.5f, 0, 1, 1 },
};
static const float clear_color[4] = { 0, 0, 1, 1 };

/* Storage counters the dispatches add to. */
enum { C_DISPATCH, C_INDIRECT, C_FILL, C_SECONDARY, C_OWN_BLOCK, C_COUNT };

static PFN_vkCmdBeginConditionalRenderingEXT begin_cr;
static PFN_vkCmdEndConditionalRenderingEXT end_cr;
static PFN_vkCmdDrawIndirectCountKHR draw_count;                 /* NULL: not offered */
static PFN_vkCmdDrawIndexedIndirectCountKHR draw_indexed_count;

struct env {
   struct vkt t;
   const char *dn;
   bool inherited;
   struct draw_target dt;
   struct draw_pipeline p;
   struct vkt_kernel k;
   VkDescriptorPool dpool;
   VkDescriptorSet set;
   struct vkt_buffer vb, ib, indirect, pred, counters;
};

/* A case: the predicate word at `offset` (its neighbour word after it set
 * to `next`), the INVERTED flag, and where the value comes from. */
struct cond_case {
   const char *name;
   uint32_t offset, value, next;
   bool inverted;
   bool by_fill;   /* written by vkCmdFillBuffer in the command buffer */
};

static const struct cond_case cases[] = {
   { "zero", 0, 0, 0, false, false },
   { "one", 0, 1, 0, false, false },
   { "high bit", 0, 0x80000000u, 0, false, false },
   { "zero, inverted", 0, 0, 0, true, false },
   { "0xffffffff, inverted", 0, 0xffffffffu, 0, true, false },
   { "zero word before a nonzero one", 8, 0, 1, false, false },
   { "zero word before a nonzero one, inverted", 8, 0, 0x100, true, false },
   { "filled zero", 4, 0, 0, false, true },
   { "filled 5", 4, 5, 0, false, true },
   { "filled 5, inverted", 4, 5, 0, true, true },
};

static bool
setup(struct env *e)
{
   struct vkt *t = &e->t;
   e->dt = (struct draw_target) { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H };
   CHECK(draw_target_create(t, &e->dt) == VK_SUCCESS, "%s: target", e->dn);
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), flat_color_frag_spv,
                    sizeof(flat_color_frag_spv));
   CHECK(draw_pipeline_create(t, &e->dt, &pi, &e->p) == VK_SUCCESS, "%s: pipeline", e->dn);

   /* Six vertices (two triangles) per quad; the indexed draws use the
    * same vertices through indices. */
   struct draw_vertex v[QUADS * 6];
   static const int corner[6][2] = { { 0, 1 }, { 2, 1 }, { 0, 3 }, { 2, 1 }, { 2, 3 }, { 0, 3 } };
   for (int q = 0; q < QUADS; q++)
      for (int k = 0; k < 6; k++) {
         struct draw_vertex *x = &v[q * 6 + k];
         x->pos[0] = quad_rect[q][corner[k][0]] / W * 2.0f - 1.0f;
         x->pos[1] = quad_rect[q][corner[k][1]] / H * 2.0f - 1.0f;
         x->pos[2] = 0.0f;
         x->pos[3] = 1.0f;
         memcpy(x->color, quad_color[q], sizeof(x->color));
      }
   uint16_t idx[QUADS * 6];
   for (int i = 0; i < QUADS * 6; i++)
      idx[i] = (uint16_t)i;
   CHECK(draw_upload(t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e->vb) == VK_SUCCESS,
         "%s: vertices", e->dn);
   CHECK(draw_upload(t, idx, sizeof(idx), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &e->ib) == VK_SUCCESS,
         "%s: indices", e->dn);
   /* Words 0 - 3 and 4 - 8: the indirect draws; 12 - 14: the indirect
    * dispatch; 16 - 19 and 20 - 24: the count draws' records; 28: their
    * count (1). */
   uint32_t ind[32] = { 0 };
   VkDrawIndirectCommand di = { 6, 1, 12, 0 }, dic = { 6, 1, 30, 0 };
   VkDrawIndexedIndirectCommand dii = { 6, 1, 18, 0, 0 }, diic = { 6, 1, 36, 0, 0 };
   VkDispatchIndirectCommand dsi = { 1, 1, 1 };
   memcpy(&ind[0], &di, sizeof(di));
   memcpy(&ind[4], &dii, sizeof(dii));
   memcpy(&ind[12], &dsi, sizeof(dsi));
   memcpy(&ind[16], &dic, sizeof(dic));
   memcpy(&ind[20], &diic, sizeof(diic));
   ind[28] = 1;
   CHECK(draw_upload(t, ind, sizeof(ind), VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, &e->indirect) ==
            VK_SUCCESS, "%s: indirect", e->dn);
   CHECK(vkt_buffer_create(t, 64, VK_BUFFER_USAGE_CONDITIONAL_RENDERING_BIT_EXT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT, &e->pred) == VK_SUCCESS,
         "%s: predicate buffer", e->dn);
   CHECK(vkt_buffer_create(t, C_COUNT * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                              VK_BUFFER_USAGE_TRANSFER_DST_BIT, &e->counters) ==
            VK_SUCCESS, "%s: counters", e->dn);

   static const VkDescriptorSetLayoutBinding b = { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                   VK_SHADER_STAGE_COMPUTE_BIT, NULL };
   struct vkt_kernel_info ki = { .code = xfb_cond_comp_spv, .code_size = sizeof(xfb_cond_comp_spv),
                                 .bindings = { &b }, .binding_counts = { 1 }, .push_size = 4 };
   CHECK(vkt_kernel_create(t, &ki, &e->k) == VK_SUCCESS, "%s: kernel", e->dn);
   VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
   CHECK(vkt_descriptor_pool(t, 1, &ps, 1, 0, &e->dpool) == VK_SUCCESS, "%s: pool", e->dn);
   CHECK(vkt_alloc_sets(t, e->dpool, e->k.set_layouts, 1, &e->set) == VK_SUCCESS, "%s: set",
         e->dn);
   vkt_bind_buffers(t, e->set, NULL, &e->counters.buffer, 1);
   return check_failures == 0;
}

static void
teardown(struct env *e)
{
   struct vkt *t = &e->t;
   vkDestroyDescriptorPool(t->device, e->dpool, NULL);
   vkt_kernel_destroy(t, &e->k);
   vkt_buffer_destroy(t, &e->counters);
   vkt_buffer_destroy(t, &e->pred);
   vkt_buffer_destroy(t, &e->indirect);
   vkt_buffer_destroy(t, &e->ib);
   vkt_buffer_destroy(t, &e->vb);
   draw_pipeline_destroy(t, &e->p);
   draw_target_destroy(t, &e->dt);
}

static void
begin_cond(VkCommandBuffer cb, VkBuffer buf, uint32_t offset, bool inverted)
{
   VkConditionalRenderingBeginInfoEXT ci = {
      .sType = VK_STRUCTURE_TYPE_CONDITIONAL_RENDERING_BEGIN_INFO_EXT,
      .buffer = buf, .offset = offset,
      .flags = inverted ? VK_CONDITIONAL_RENDERING_INVERTED_BIT_EXT : 0,
   };
   begin_cr(cb, &ci);
}

static void
push_idx(struct env *e, VkCommandBuffer cb, uint32_t idx)
{
   vkCmdPushConstants(cb, e->k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &idx);
}

static void
bind_kernel(struct env *e, VkCommandBuffer cb)
{
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e->k.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e->k.layout, 0, 1, &e->set, 0,
                           NULL);
}

/* Compute and copies in a block. */
static void
run_compute(struct env *e, const struct cond_case *c, bool expect)
{
   struct vkt *t = &e->t;
   uint32_t *pred = e->pred.map;
   memset(e->counters.map, 0, C_COUNT * 4);
   pred[c->offset / 4] = c->by_fill ? !c->value : c->value ^ 0x1234u;   /* not the value yet */
   pred[c->offset / 4 + 1] = c->next;
   VkCommandBuffer cb = vkt_begin(t);
   if (c->by_fill) {
      vkCmdFillBuffer(cb, e->pred.buffer, c->offset, 4, c->value);
      VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_CONDITIONAL_RENDERING_READ_BIT_EXT };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_CONDITIONAL_RENDERING_BIT_EXT, 0, 1, &mb, 0, NULL, 0,
                           NULL);
   }
   bind_kernel(e, cb);
   begin_cond(cb, e->pred.buffer, c->offset, c->inverted);
   push_idx(e, cb, C_DISPATCH);
   vkCmdDispatch(cb, 1, 1, 1);
   push_idx(e, cb, C_INDIRECT);
   vkCmdDispatchIndirect(cb, e->indirect.buffer, 48);
   vkCmdFillBuffer(cb, e->counters.buffer, C_FILL * 4, 4, 7);   /* not affected */
   end_cr(cb);
   vkt_compute_barrier(cb);
   if (!c->by_fill)
      pred[c->offset / 4] = c->value;   /* after recording, before execution */
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: %s: compute submit", e->dn, c->name);
   const uint32_t *n = e->counters.map;
   CHECK(n[C_DISPATCH] == (uint32_t)expect && n[C_INDIRECT] == (uint32_t)expect,
         "%s: %s: dispatch %u, dispatch indirect %u, expected %u", e->dn, c->name, n[C_DISPATCH],
         n[C_INDIRECT], expect);
   CHECK(n[C_FILL] == 7, "%s: %s: vkCmdFillBuffer in the block: %u", e->dn, c->name, n[C_FILL]);
}

static uint32_t
pixel(const struct env *e, int x, int y)
{
   return ((const uint32_t *)e->dt.readback.map)[y * W + x];
}

/* Clears and draws in a block inside a render pass. */
static void
run_render(struct env *e, const struct cond_case *c, bool expect)
{
   struct vkt *t = &e->t;
   uint32_t *pred = e->pred.map;
   pred[c->offset / 4] = c->by_fill ? c->value : c->value ^ 0x1234u;
   pred[c->offset / 4 + 1] = c->next;
   e->dt.clear_color = (VkClearColorValue) { { 0, 0, 0, 0 } };
   VkCommandBuffer cb = draw_begin(t, &e->dt, &e->p, e->vb.buffer);
   vkCmdBindIndexBuffer(cb, e->ib.buffer, 0, VK_INDEX_TYPE_UINT16);
   begin_cond(cb, e->pred.buffer, c->offset, c->inverted);
   VkClearAttachment ca = { .aspectMask = VK_IMAGE_ASPECT_COLOR_BIT, .colorAttachment = 0 };
   memcpy(ca.clearValue.color.float32, clear_color, sizeof(clear_color));
   VkClearRect cr = { { { 0, 0 }, { 4, H } }, 0, 1 };
   vkCmdClearAttachments(cb, 1, &ca, 1, &cr);
   vkCmdDraw(cb, 6, 1, 0, 0);
   vkCmdDrawIndexed(cb, 6, 1, 6, 0, 0);
   vkCmdDrawIndirect(cb, e->indirect.buffer, 0, 1, sizeof(VkDrawIndirectCommand));
   vkCmdDrawIndexedIndirect(cb, e->indirect.buffer, 16, 1, sizeof(VkDrawIndexedIndirectCommand));
   if (draw_count) {
      draw_count(cb, e->indirect.buffer, 64, e->indirect.buffer, 112, 1,
                 sizeof(VkDrawIndirectCommand));
      draw_indexed_count(cb, e->indirect.buffer, 80, e->indirect.buffer, 112, 1,
                         sizeof(VkDrawIndexedIndirectCommand));
   }
   end_cr(cb);
   vkCmdDraw(cb, 6, 1, AFTER * 6, 0);
   if (!c->by_fill)
      pred[c->offset / 4] = c->value;   /* after recording, before execution */
   CHECK(draw_end(t, &e->dt, cb) == VK_SUCCESS, "%s: %s: render submit", e->dn, c->name);
   uint32_t want_clear = draw_pack_rgba8(clear_color);
   uint32_t got = pixel(e, 2, 4);
   CHECK(got == (expect ? want_clear : 0u), "%s: %s: vkCmdClearAttachments: %08x, %s", e->dn,
         c->name, got, expect ? "expected the clear" : "expected nothing");
   static const char *const what[QUADS] = { "vkCmdDraw", "vkCmdDrawIndexed", "vkCmdDrawIndirect",
                                            "vkCmdDrawIndexedIndirect", "draw after the block",
                                            "vkCmdDrawIndirectCountKHR",
                                            "vkCmdDrawIndexedIndirectCountKHR" };
   for (int q = 0; q < QUADS; q++) {
      if (q > AFTER && !draw_count)
         break;
      int x = (int)(quad_rect[q][0] + quad_rect[q][2]) / 2;
      int y = (int)(quad_rect[q][1] + quad_rect[q][3]) / 2;
      bool drawn = q == AFTER || expect;
      uint32_t want = drawn ? draw_pack_rgba8(quad_color[q]) : 0u;
      got = pixel(e, x, y);
      CHECK(got == want, "%s: %s: %s: %08x, expected %08x", e->dn, c->name, what[q], got, want);
   }
}

/* Dispatches in secondary command buffers: one inheriting the primary's
 * block (with the feature), one with a block of its own. */
static void
run_secondary(struct env *e, uint32_t value, bool inverted)
{
   struct vkt *t = &e->t;
   uint32_t *pred = e->pred.map;
   memset(e->counters.map, 0, C_COUNT * 4);
   pred[0] = value;
   bool expect = (value != 0) != inverted;
   VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = t->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
                                      .commandBufferCount = 2 };
   VkCommandBuffer sec[2];
   CHECK(vkAllocateCommandBuffers(t->device, &ai, sec) == VK_SUCCESS, "%s: secondaries", e->dn);
   VkCommandBufferInheritanceConditionalRenderingInfoEXT inh_cr = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_CONDITIONAL_RENDERING_INFO_EXT,
      .conditionalRenderingEnable = VK_TRUE,
   };
   uint32_t n = e->inherited ? 2 : 1;
   for (uint32_t i = 0; i < n; i++) {
      bool inherits = i == 1;
      VkCommandBufferInheritanceInfo inh = {
         .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
         .pNext = inherits ? &inh_cr : NULL,
      };
      VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .pInheritanceInfo = &inh };
      vkBeginCommandBuffer(sec[i], &bi);
      bind_kernel(e, sec[i]);
      if (inherits) {
         push_idx(e, sec[i], C_SECONDARY);
         vkCmdDispatch(sec[i], 1, 1, 1);
      } else {
         begin_cond(sec[i], e->pred.buffer, 0, inverted);
         push_idx(e, sec[i], C_OWN_BLOCK);
         vkCmdDispatch(sec[i], 1, 1, 1);
         end_cr(sec[i]);
      }
      vkEndCommandBuffer(sec[i]);
   }
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdExecuteCommands(cb, 1, &sec[0]);
   if (e->inherited) {
      begin_cond(cb, e->pred.buffer, 0, inverted);
      vkCmdExecuteCommands(cb, 1, &sec[1]);
      end_cr(cb);
   }
   vkt_compute_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "%s: secondary submit", e->dn);
   vkFreeCommandBuffers(t->device, t->pool, 2, sec);
   const uint32_t *c = e->counters.map;
   CHECK(c[C_OWN_BLOCK] == (uint32_t)expect,
         "%s: predicate %u%s: secondary's own block: %u, expected %u", e->dn, value,
         inverted ? " inverted" : "", c[C_OWN_BLOCK], expect);
   if (e->inherited)
      CHECK(c[C_SECONDARY] == (uint32_t)expect,
            "%s: predicate %u%s: inherited by a secondary: %u, expected %u", e->dn, value,
            inverted ? " inverted" : "", c[C_SECONDARY], expect);
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceConditionalRenderingFeaturesEXT cf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT };
   struct vkt_options o;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME, &cf, NULL,
                             NULL, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   struct env e = { .dn = vkt_driver_name(which) };
   if (which == VKT_SHALE)
      CHECK(has && cf.conditionalRendering && cf.inheritedConditionalRendering,
            "shale: extension %u, features %u %u", has, cf.conditionalRendering,
            cf.inheritedConditionalRendering);
   if (!has || !cf.conditionalRendering) {
      fprintf(stderr, "%s: no conditional rendering, not run\n", e.dn);
      return;
   }
   e.inherited = cf.inheritedConditionalRendering;
   /* VK_KHR_draw_indirect_count too, where offered (Shale must). */
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
   bool has_count = false;
   vkt_query_features(which, &f2, VK_KHR_DRAW_INDIRECT_COUNT_EXTENSION_NAME, &has_count);
   if (which == VKT_SHALE)
      CHECK(has_count, "shale: VK_KHR_draw_indirect_count not offered");
   static const char *const dexts[] = { VK_EXT_CONDITIONAL_RENDERING_EXTENSION_NAME,
                                        VK_KHR_DRAW_INDIRECT_COUNT_EXTENSION_NAME };
   VkPhysicalDeviceConditionalRenderingFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT,
      .conditionalRendering = VK_TRUE,
      .inheritedConditionalRendering = cf.inheritedConditionalRendering,
   };
   o.device_extensions = dexts;
   o.device_extension_count = has_count ? 2 : 1;
   o.device_pnext = &enable;
   bool opened = vkt_init(&e.t, &o);
   CHECK(opened, "%s: device with %s%s", e.dn, dexts[0], has_count ? " and the count draws" : "");
   if (!opened)
      return;
   draw_count = NULL;
   draw_indexed_count = NULL;
   if (has_count) {
      draw_count = (PFN_vkCmdDrawIndirectCountKHR)vkGetDeviceProcAddr(e.t.device,
                                                                       "vkCmdDrawIndirectCountKHR");
      draw_indexed_count = (PFN_vkCmdDrawIndexedIndirectCountKHR)vkGetDeviceProcAddr(
         e.t.device, "vkCmdDrawIndexedIndirectCountKHR");
      CHECK(draw_count && draw_indexed_count, "%s: the count draws' entry points", e.dn);
      if (!draw_indexed_count)
         draw_count = NULL;
   } else {
      fprintf(stderr, "%s: no VK_KHR_draw_indirect_count: the count draws not run\n", e.dn);
   }
   begin_cr = (PFN_vkCmdBeginConditionalRenderingEXT)vkGetDeviceProcAddr(
      e.t.device, "vkCmdBeginConditionalRenderingEXT");
   end_cr = (PFN_vkCmdEndConditionalRenderingEXT)vkGetDeviceProcAddr(
      e.t.device, "vkCmdEndConditionalRenderingEXT");
   CHECK(begin_cr && end_cr, "%s: entry points", e.dn);
   if (begin_cr && end_cr && setup(&e)) {
      for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
         const struct cond_case *c = &cases[i];
         bool expect = (c->value != 0) != c->inverted;
         run_compute(&e, c, expect);
         run_render(&e, c, expect);
      }
      run_secondary(&e, 0, false);
      run_secondary(&e, 3, false);
      run_secondary(&e, 0, true);
      if (!e.inherited)
         fprintf(stderr, "%s: no inheritedConditionalRendering: that part not run\n", e.dn);
   }
   teardown(&e);
   vkt_finish(&e.t);
}

int
main(void)
{
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   return draw_finish();
}
