/*
 * The vertex fetch probe of render/vertex_input and render/vertex_divisor:
 * vi_layout.vert passes on attribute k (a push constant; 16 vec4 attributes)
 * of each vertex, flat, through vi_float.frag to a 16x16
 * R32G32B32A32_SFLOAT target, at row k and column (VertexIndex -
 * firstVertex) + verts * (InstanceIndex - firstInstance). Static inline
 * (it CHECKs: check.h's counters are per .c file); include after check.h.
 */
#ifndef VI_PROBE_H
#define VI_PROBE_H

#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "vi_float_frag_spv.h"
#include "vi_layout_vert_spv.h"

#define VI_PROBE_SIZE 16
#define VI_PROBE_MAX_BINDINGS 16

struct vi_probe {
   struct draw_target dt;
   struct draw_pipeline p;
   struct vkt_buffer vb;
};

/* Draws the probe with vertex input state vi: `size` bytes of `data` in one
 * vertex buffer, bound to each of vi's bindings at offsets[b]; one draw of
 * `verts` vertices x `instances` instances from first_vertex and
 * first_instance per attribute k < attribs. Checks the target, the
 * pipeline, the buffer and the submission (four checks). Returns the
 * target's texels (attribute k's value for column c at texels + (k * 16 +
 * c) * 4), NULL when no pipeline was made; vi_probe_destroy frees pr
 * either way. */
static inline const float *
vi_probe_draw(struct vkt *t, struct vi_probe *pr, const VkPipelineVertexInputStateCreateInfo *vi,
              const void *data, size_t size, const VkDeviceSize *offsets, uint32_t attribs,
              uint32_t verts, uint32_t instances, uint32_t first_vertex,
              uint32_t first_instance)
{
   const char *dn = vkt_driver_name(t->driver);
   memset(pr, 0, sizeof(*pr));
   pr->dt = (struct draw_target) { .color_format = VK_FORMAT_R32G32B32A32_SFLOAT,
                                   .width = VI_PROBE_SIZE, .height = VI_PROBE_SIZE };
   VkResult r = draw_target_create(t, &pr->dt);
   CHECK(r == VK_SUCCESS, "%s: probe target: %d", dn, r);
   struct draw_pipeline_info pi = {
      .vs = vi_layout_vert_spv, .vs_size = sizeof(vi_layout_vert_spv),
      .fs = vi_float_frag_spv, .fs_size = sizeof(vi_float_frag_spv),
      .vertex_input = vi,
      .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .push_size = 16,
   };
   r = draw_pipeline_create(t, &pr->dt, &pi, &pr->p);
   CHECK(r == VK_SUCCESS, "%s: probe pipeline: %d", dn, r);
   r = draw_upload(t, data, size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &pr->vb);
   CHECK(r == VK_SUCCESS, "%s: probe vertex buffer: %d", dn, r);
   if (!pr->p.pipeline)
      return NULL;
   VkCommandBuffer cb = draw_begin(t, &pr->dt, &pr->p, VK_NULL_HANDLE);
   const uint32_t nb = vi->vertexBindingDescriptionCount;
   VkBuffer bufs[VI_PROBE_MAX_BINDINGS];
   for (uint32_t b = 0; b < nb && b < VI_PROBE_MAX_BINDINGS; b++)
      bufs[b] = pr->vb.buffer;
   vkCmdBindVertexBuffers(cb, 0, nb, bufs, offsets);
   for (uint32_t k = 0; k < attribs; k++) {
      const int32_t push[4] = { (int32_t)k, (int32_t)first_vertex, (int32_t)first_instance,
                                (int32_t)verts };
      vkCmdPushConstants(cb, pr->p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 16, push);
      vkCmdDraw(cb, verts, instances, first_vertex, first_instance);
   }
   r = draw_end(t, &pr->dt, cb);
   CHECK(r == VK_SUCCESS, "%s: probe drawn: %d", dn, r);
   return pr->dt.readback.map;
}

static inline void
vi_probe_destroy(struct vkt *t, struct vi_probe *pr)
{
   vkt_buffer_destroy(t, &pr->vb);
   draw_pipeline_destroy(t, &pr->p);
   draw_target_destroy(t, &pr->dt);
}

#endif
