/* Clipping records much longer than the words clipping needs: a vertex
 * shader (xfb/xfb_clip.vert) captures 16 vec4s into buffer 0 and
 * gl_Position plus 11 more vec4s into buffer 1, passes all 27 vec4s to the
 * fragment shader (xfb/xfb_clip.frag, a colour from every component) and
 * writes eight clip distances (an octagon). Lines and triangles cross the
 * near plane (the triangles the far plane too) and the octagon's edges, so
 * every one of them is clipped, the triangles into polygons of up to a
 * dozen vertices. Shale's records then hold 112 captured words after the
 * 126 that clipping interpolates; the clipped copies once took them all
 * into stack buffers sized for the latter (a stack overflow). Each
 * topology is drawn without and then with transform feedback: the two
 * images must be the same bytes (capture must not change what is drawn)
 * and cover pixels, and the captured buffers must match a CPU reference
 * of the shader's products byte for byte (the unclipped vertices, in
 * order), with the stream query's primitives written and needed. On Shale
 * (SHALE_THREADS 1 and 4) and on lavapipe. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"
#include "xfb_util.h"

#include "xfb_clip_frag_spv.h"
#include "xfb_clip_vert_spv.h"

#define W 64
#define H 64
#define NLINE 8                /* lines: 2 * NLINE vertices */
#define NTRI 4                 /* triangles: 3 * NTRI vertices */
#define S0 256                 /* buffer strides */
#define S1 192
#define BUF_SIZE 8192
#define FILL 0xab

static float lines[2 * NLINE][4], tris[3 * NTRI][4];

struct env {
   struct vkt t;
   const char *dn, *threads;
   struct draw_target dt;
   struct vkt_buffer vb[2], xb[2];
   VkQueryPool qpool;
   VkPipelineLayout layout;
   VkShaderModule vs, fs;
};

/* What the vertex shader captures for the n vertices v. */
static void
reference(const float (*v)[4], uint32_t n, uint8_t out[2][BUF_SIZE])
{
   memset(out, FILL, (size_t)2 * BUF_SIZE);
   for (uint32_t j = 0; j < n; j++) {
      float *b0 = (float *)(out[0] + j * S0), *b1 = (float *)(out[1] + j * S1);
      for (int i = 0; i < 16; i++)
         for (int c = 0; c < 4; c++)
            b0[i * 4 + c] = v[j][c] * (float)(i + 1);
      memcpy(b1, v[j], 16);
      for (int i = 0; i < 11; i++) {
         const float yxwz[4] = {v[j][1], v[j][0], v[j][3], v[j][2]};
         for (int c = 0; c < 4; c++)
            b1[4 + i * 4 + c] = yxwz[c] * (float)(i + 2);
      }
   }
}

static void
run_case(struct env *e, const char *name, VkPrimitiveTopology topo, int which, const float (*v)[4],
         uint32_t n, uint64_t prims)
{
   struct vkt *t = &e->t;
   struct draw_pipeline p;
   VkResult r = xfb_pipeline(t, &e->dt, e->layout, e->vs, VK_NULL_HANDLE, e->fs, topo, false, &p);
   CHECK(r == VK_SUCCESS, "%s %s: pipeline: %d", e->dn, name, r);
   if (r != VK_SUCCESS)
      return;
   const size_t isize = (size_t)W * H * 4;
   static uint8_t plain[W * H * 4];
   VkCommandBuffer cb = draw_begin(t, &e->dt, &p, e->vb[which].buffer);
   vkCmdDraw(cb, n, 1, 0, 0);
   CHECK(draw_end(t, &e->dt, cb) == VK_SUCCESS, "%s %s: drawn without capture", e->dn, name);
   memcpy(plain, e->dt.readback.map, isize);
   unsigned covered = 0;
   for (size_t i = 0; i < (size_t)W * H; i++)
      covered += plain[i * 4] || plain[i * 4 + 1] || plain[i * 4 + 2];
   CHECK(covered >= 20, "%s %s: %u pixels covered", e->dn, name, covered);

   for (int b = 0; b < 2; b++)
      memset(e->xb[b].map, FILL, BUF_SIZE);
   uint64_t q[2];
   VkResult qr;
   r = xfb_capture_draw(t, &e->dt, &p, e->vb[which].buffer, e->qpool, 2, e->xb, n, 1, q, &qr);
   CHECK(r == VK_SUCCESS, "%s %s: drawn with capture: %d", e->dn, name, r);
   CHECK(qr == VK_SUCCESS && q[0] == prims && q[1] == prims,
         "%s %s: primitives written %llu, needed %llu (want %llu)", e->dn, name,
         (unsigned long long)q[0], (unsigned long long)q[1], (unsigned long long)prims);
   char what[160];
   snprintf(what, sizeof(what), "%s %s (SHALE_THREADS %s): image", e->dn, name,
            e->threads ? e->threads : "-");
   unsigned bad = xfb_bytes_wrong(e->dt.readback.map, plain, isize, what);
   CHECK(bad == 0, "%s %s: image with capture: %u bytes differ from the one without", e->dn, name,
         bad);
   static uint8_t want[2][BUF_SIZE];
   reference(v, n, want);
   for (int b = 0; b < 2; b++) {
      snprintf(what, sizeof(what), "%s %s (SHALE_THREADS %s): buffer %d", e->dn, name,
               e->threads ? e->threads : "-", b);
      bad = xfb_bytes_wrong(e->xb[b].map, want[b], BUF_SIZE, what);
      CHECK(bad == 0, "%s %s: buffer %d: %u bytes wrong", e->dn, name, b, bad);
   }
   vkDestroyPipeline(t->device, p.pipeline, NULL);
}

static void
run_driver(enum vkt_driver which, const char *threads)
{
   struct env e = {.dn = vkt_driver_name(which), .threads = threads};
   const VkPhysicalDeviceFeatures feats = {.shaderClipDistance = VK_TRUE};
   if (!xfb_start(&e.t, which, threads, &feats, "clip distances"))
      return;
   struct vkt *t = &e.t;
   xfb_get_commands(t);
   e.dt = (struct draw_target) {.color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = W, .height = H};
   CHECK(draw_target_create(t, &e.dt) == VK_SUCCESS, "%s: target", e.dn);
   CHECK(draw_upload(t, lines, sizeof(lines), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e.vb[0]) ==
            VK_SUCCESS &&
            draw_upload(t, tris, sizeof(tris), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &e.vb[1]) ==
               VK_SUCCESS, "%s: vertices", e.dn);
   for (int b = 0; b < 2; b++)
      CHECK(vkt_buffer_create(t, BUF_SIZE, VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT,
                              &e.xb[b]) == VK_SUCCESS, "%s: xfb buffer", e.dn);
   xfb_query_pool(t, e.dn, &e.qpool);
   CHECK(draw_pipeline_layout(t, VK_NULL_HANDLE, VK_SHADER_STAGE_ALL_GRAPHICS, 0, &e.layout) ==
            VK_SUCCESS, "%s: layout", e.dn);
   CHECK(vkt_shader_module(t, xfb_clip_vert_spv, sizeof(xfb_clip_vert_spv), &e.vs) == VK_SUCCESS &&
            vkt_shader_module(t, xfb_clip_frag_spv, sizeof(xfb_clip_frag_spv), &e.fs) ==
               VK_SUCCESS, "%s: modules", e.dn);
   run_case(&e, "lines", VK_PRIMITIVE_TOPOLOGY_LINE_LIST, 0, (const float (*)[4])lines,
            2 * NLINE, NLINE);
   run_case(&e, "triangles", VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, 1, (const float (*)[4])tris,
            3 * NTRI, NTRI);
   vkDestroyShaderModule(t->device, e.vs, NULL);
   vkDestroyShaderModule(t->device, e.fs, NULL);
   vkDestroyPipelineLayout(t->device, e.layout, NULL);
   vkDestroyQueryPool(t->device, e.qpool, NULL);
   for (int b = 0; b < 2; b++)
      vkt_buffer_destroy(t, &e.xb[b]);
   vkt_buffer_destroy(t, &e.vb[0]);
   vkt_buffer_destroy(t, &e.vb[1]);
   draw_target_destroy(t, &e.dt);
   vkt_finish(t);
}

static void
put(float *v, double x, double y, double z, double w)
{
   v[0] = (float)(x * w);
   v[1] = (float)(y * w);
   v[2] = (float)(z * w);
   v[3] = (float)w;
}

int
main(void)
{
   /* Lines from inside the octagon to behind the near plane, past the
    * octagon's edges (normalized device radius 0.9). */
   for (int i = 0; i < NLINE; i++) {
      const double a = 0.785 * i + 0.3;
      put(lines[2 * i], 0.2 * cos(a), 0.2 * sin(a), 0.5, 1.0 + 0.1 * i);
      put(lines[2 * i + 1], 0.9 * cos(a + 0.5), 0.9 * sin(a + 0.5), -0.5, 1.5);
   }
   /* Triangles of radius 1.2 around the centre (cut by the octagon), one
    * vertex behind the near plane and one past the far plane. */
   for (int i = 0; i < NTRI; i++) {
      const double a = 0.5 * i + 0.1;
      put(tris[3 * i], 1.2 * cos(a), 1.2 * sin(a), -0.5, 1.0 + 0.2 * i);
      put(tris[3 * i + 1], 1.2 * cos(a + 2.1), 1.2 * sin(a + 2.1), 0.5, 1.5);
      put(tris[3 * i + 2], 1.2 * cos(a + 4.2), 1.2 * sin(a + 4.2), 1.5, 2.0 - 0.1 * i);
   }
   return draw_run_threads_and_lavapipe(run_driver);
}
