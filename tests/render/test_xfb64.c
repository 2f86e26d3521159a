/* Transform feedback of 64-bit outputs (VK_EXT_transform_feedback with
 * shaderFloat64 and shaderInt64): the spec ("Transform Feedback") writes a
 * 64-bit component as 8 bytes at an offset aligned to 8, arrays, vectors
 * and block members tightly packed in order. A vertex shader
 * (xfb/xfb64.vert, points) captures double, dvec3 (two Locations), uint64,
 * int64 and a block's double[2] and dvec2 into three buffers, with
 * 32-bit words and never-written gaps between them; a geometry shader
 * (xfb/xfb64.geom, two lines per input point) captures dvec2, double[2]
 * and a uint. Every value is an exact bit pattern with different low and
 * high words, so the buffers are compared byte for byte with a CPU
 * reference (gaps and the rest of the buffer keep their fill), with
 * rasterization on and discarded, and the stream query's primitives
 * written and needed. On Shale (SHALE_THREADS 1 and 4) and on lavapipe. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"
#include "xfb_util.h"

#include "xfb64_frag_spv.h"
#include "xfb64_geom_spv.h"
#include "xfb64_gs_frag_spv.h"
#include "xfb64_pass_vert_spv.h"
#include "xfb64_vert_spv.h"

#define NV 6                   /* points drawn */
#define NINST 2                /* vertex shader case: instances */
#define BUF_SIZE 2048
#define FILL 0xab
#define NBUF 3


static float vpos[NV][4];

static void
put32(uint8_t *at, uint32_t v)
{
   memcpy(at, &v, 4);
}

/* A 64-bit value (low word lo, high word hi) as the spec stores it: 8
 * little-endian bytes. */
static void
put64(uint8_t *at, uint32_t lo, uint32_t hi)
{
   put32(at, lo);
   put32(at + 4, hi);
}

/* The vertex shader case: buffers 0 (stride 56), 1 (24) and 2 (40). */
static void
reference_vs(uint8_t out[NBUF][BUF_SIZE])
{
   memset(out, FILL, (size_t)NBUF * BUF_SIZE);
   uint32_t n = 0;
   for (uint32_t inst = 0; inst < NINST; inst++) {
      for (uint32_t vi = 0; vi < NV; vi++, n++) {
         uint32_t v = vi + 16 * inst;
         uint8_t *b0 = out[0] + n * 56, *b1 = out[1] + n * 24, *b2 = out[2] + n * 40;
         put64(b0 + 8, 0x01020304u * (v + 1), 0x3ff00000u + v);
         put64(b0 + 16, 0xdeadbeefu ^ v, 0xc0100000u + (v << 8));
         put64(b0 + 24, v, 0x7fe00000u - v);
         put32(b0 + 32, v | 0xabc00000u);
         put64(b0 + 40, ~v, 0x40000000u | (v << 4));
         put64(b1 + 0, 0x11111111u * v, 0x80000000u | v);
         put64(b1 + 8, 0xffffffffu - v, v * 3);
         put64(b1 + 16, (uint32_t)(-(int32_t)v - 7), (uint32_t)(-((int32_t)v << 12)));
         put64(b2 + 0, v * 7 + 1, 0x3fe00000u + v);
         put64(b2 + 8, v * 9 + 2, 0xbfe00000u + v);
         put64(b2 + 16, 0x5555u * v, 0x41000000u + v);
         put64(b2 + 24, 0xaaaa0000u | v, 0x42000000u + v);
      }
   }
}

/* The geometry shader case: buffer 0 (stride 48); the lines (k 0, 1) and
 * (k 2, 3) of each point, in order. */
static void
reference_gs(uint8_t out[NBUF][BUF_SIZE])
{
   memset(out, FILL, (size_t)NBUF * BUF_SIZE);
   uint32_t n = 0;
   for (uint32_t p = 0; p < NV; p++) {
      for (uint32_t k = 0; k < 4; k++, n++) {
         uint32_t v = p * 4 + k;
         uint8_t *b0 = out[0] + n * 48;
         put64(b0 + 0, 0x01020304u * (v + 1), 0x3ff00000u + v);
         put64(b0 + 8, 0xdeadbeefu ^ v, 0xc0100000u + (v << 8));
         put32(b0 + 16, v | 0xabc00000u);
         put64(b0 + 24, ~v, 0x40000000u | (v << 4));
         put64(b0 + 32, v * 9 + 2, 0xbfe00000u + v);
      }
   }
}

struct env {
   struct vkt t;
   const char *dn, *threads;
   struct draw_target dt;
   struct vkt_buffer vb, xb[NBUF];
   VkQueryPool qpool;
   VkPipelineLayout layout;
};

/* One pipeline (vs, optional gs, fs), drawn NV points times `instances`
 * with every buffer bound, compared with `want`; `prims` primitives
 * expected written and needed. */
static void
run_case(struct env *e, const char *name, VkShaderModule vs, VkShaderModule gs, VkShaderModule fs,
         uint32_t instances, uint64_t prims, uint8_t want[NBUF][BUF_SIZE])
{
   for (int discard = 0; discard < 2; discard++) {
      struct draw_pipeline p;
      VkResult r = xfb_pipeline(&e->t, &e->dt, e->layout, vs, gs, fs,
                                VK_PRIMITIVE_TOPOLOGY_POINT_LIST, discard, &p);
      CHECK(r == VK_SUCCESS, "%s %s: pipeline: %d", e->dn, name, r);
      if (r != VK_SUCCESS)
         continue;
      for (int b = 0; b < NBUF; b++)
         memset(e->xb[b].map, FILL, BUF_SIZE);
      uint64_t q[2];
      VkResult qr;
      r = xfb_capture_draw(&e->t, &e->dt, &p, e->vb.buffer, e->qpool, NBUF, e->xb, NV, instances,
                           q, &qr);
      CHECK(r == VK_SUCCESS, "%s %s: drawn: %d", e->dn, name, r);
      CHECK(qr == VK_SUCCESS && q[0] == prims && q[1] == prims,
            "%s %s (discard %d): primitives written %llu, needed %llu (want %llu)", e->dn, name,
            discard, (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)prims);
      for (int b = 0; b < NBUF; b++) {
         char what[160];
         snprintf(what, sizeof(what), "%s %s (discard %d, SHALE_THREADS %s): buffer %d", e->dn,
                  name, discard, e->threads ? e->threads : "-", b);
         unsigned bad = xfb_bytes_wrong(e->xb[b].map, want[b], BUF_SIZE, what);
         CHECK(bad == 0, "%s %s (discard %d): buffer %d: %u bytes wrong", e->dn, name, discard, b,
               bad);
      }
      vkDestroyPipeline(e->t.device, p.pipeline, NULL);
   }
}

static void
run_driver(enum vkt_driver which, const char *threads)
{
   VkPhysicalDeviceFeatures core;
   struct vkt_options o;
   bool has;
   if (!xfb_probe(which, threads, &o, &core, &has))
      return;
   struct env e = {.dn = vkt_driver_name(which), .threads = threads};
   bool ok = has && core.shaderFloat64 && core.shaderInt64;
   if (which == VKT_SHALE)
      CHECK(ok && core.geometryShader, "shale: features");
   if (!ok) {
      fprintf(stderr, "%s: no transform feedback or 64-bit shader types, not run\n", e.dn);
      return;
   }
   VkPhysicalDeviceFeatures feats = {.geometryShader = core.geometryShader,
                                     .shaderFloat64 = VK_TRUE, .shaderInt64 = VK_TRUE};
   if (!xfb_open(&e.t, &o, &feats))
      return;
   struct vkt *t = &e.t;
   xfb_get_commands(t);
   e.dt = (struct draw_target) {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 32,
                                .height = 32};
   CHECK(draw_target_create(t, &e.dt) == VK_SUCCESS, "%s: target", e.dn);
   CHECK(draw_upload(t, vpos, sizeof(vpos), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e.vb) == VK_SUCCESS,
         "%s: vertices", e.dn);
   for (int b = 0; b < NBUF; b++)
      CHECK(vkt_buffer_create(t, BUF_SIZE, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
                              &e.xb[b]) == VK_SUCCESS, "%s: xfb buffer", e.dn);
   xfb_query_pool(t, e.dn, &e.qpool);
   CHECK(draw_pipeline_layout(t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &e.layout) ==
            VK_SUCCESS, "%s: layout", e.dn);
   VkShaderModule vs, pass, gs = VK_NULL_HANDLE, fs, gs_fs = VK_NULL_HANDLE;
   CHECK(vkt_shader_module(t, xfb64_vert_spv, sizeof(xfb64_vert_spv), &vs) == VK_SUCCESS &&
            vkt_shader_module(t, xfb64_pass_vert_spv, sizeof(xfb64_pass_vert_spv), &pass) ==
               VK_SUCCESS &&
            vkt_shader_module(t, xfb64_frag_spv, sizeof(xfb64_frag_spv), &fs) == VK_SUCCESS,
         "%s: modules", e.dn);
   static uint8_t want[NBUF][BUF_SIZE];
   reference_vs(want);
   run_case(&e, "vertex", vs, VK_NULL_HANDLE, fs, NINST, NV * NINST, want);
   if (core.geometryShader) {
      CHECK(vkt_shader_module(t, xfb64_geom_spv, sizeof(xfb64_geom_spv), &gs) == VK_SUCCESS &&
               vkt_shader_module(t, xfb64_gs_frag_spv, sizeof(xfb64_gs_frag_spv), &gs_fs) ==
                  VK_SUCCESS, "%s: geometry modules", e.dn);
      reference_gs(want);
      run_case(&e, "geometry", pass, gs, gs_fs, 1, 2 * NV, want);
      vkDestroyShaderModule(t->device, gs, NULL);
      vkDestroyShaderModule(t->device, gs_fs, NULL);
   } else {
      fprintf(stderr, "%s: no geometry shaders, geometry case not run\n", e.dn);
   }
   vkDestroyShaderModule(t->device, vs, NULL);
   vkDestroyShaderModule(t->device, pass, NULL);
   vkDestroyShaderModule(t->device, fs, NULL);
   vkDestroyPipelineLayout(t->device, e.layout, NULL);
   vkDestroyQueryPool(t->device, e.qpool, NULL);
   for (int b = 0; b < NBUF; b++)
      vkt_buffer_destroy(t, &e.xb[b]);
   vkt_buffer_destroy(t, &e.vb);
   draw_target_destroy(t, &e.dt);
   vkt_finish(t);
}

int
main(void)
{
   for (int p = 0; p < NV; p++) {
      vpos[p][0] = -0.75f + 0.25f * (float)p;
      vpos[p][1] = 0.5f - 0.125f * (float)p;
      vpos[p][2] = 0.25f;
      vpos[p][3] = 1.0f;
   }
   return draw_run_threads_and_lavapipe(run_driver);
}
