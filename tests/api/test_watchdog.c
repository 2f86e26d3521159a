/*
 * api/watchdog: a shader that never finishes must not hang the process
 * (issue 11, item 4; design note in src/driver/sd_watchdog.h). Under
 * SHALE_WATCHDOG_MS=500, a compute dispatch that loops for ever (a uniform
 * loop, a divergent loop, a loop with barriers in a workgroup of several
 * subgroups), a draw whose fragment shader loops for ever and a draw of
 * 2^30 instances with shaders that have no loop make the fence wait or vkQueueWaitIdle return
 * VK_ERROR_DEVICE_LOST within a bound; vkQueueWaitIdle, vkDeviceWaitIdle
 * and a later submission then report the loss, and everything is destroyed
 * (LeakSanitizer sees no leak in the ASan build). The process then makes
 * new devices, with the validation layer: work that ends gives the right
 * results with the watchdog at 500 ms, with the default and with 0 (off).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../render/draw_util.h"
#include "check.h"
#include "vkt.h"

#include "wd_barrier_spv.h"
#include "wd_full_vert_spv.h"
#include "wd_spin_spv.h"
#include "wd_spin_frag_spv.h"

#define GROUPS 4u
#define INVOCATIONS (GROUPS * 64u)
/* The loss must come within this many seconds of the submission (the limit
 * is 0.5 s; the margin is for a loaded 2-core machine). */
#define LOST_BOUND_S 5.0

struct wd {
   struct vkt t;
   struct vkt_kernel k;
   struct vkt_buffer buf;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkFence fence;
};

static double
now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A Shale device, the kernel, its buffer (stop, limit, count[]), a set and
 * a fence. `watchdog_ms` NULL: the default. */
static bool
wd_init(struct wd *w, const char *watchdog_ms, bool validation, const uint32_t *code,
        size_t size, uint32_t stop, uint32_t limit)
{
   memset(w, 0, sizeof(*w));
   if (watchdog_ms)
      setenv("SHALE_WATCHDOG_MS", watchdog_ms, 1);
   else
      unsetenv("SHALE_WATCHDOG_MS");
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = !validation };
   if (!vkt_init(&w->t, &opts)) {
      CHECK(false, "no Shale device");
      return false;
   }
   VkDescriptorSetLayoutBinding b = {
      .binding = 0,
      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
      .descriptorCount = 1,
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
   };
   struct vkt_kernel_info info = {
      .code = code, .code_size = size, .bindings = { &b }, .binding_counts = { 1 }, .push_size = 4,
   };
   VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 };
   VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   bool ok = vkt_kernel_create(&w->t, &info, &w->k) == VK_SUCCESS &&
             vkt_buffer_create(&w->t, 8 + 4 * INVOCATIONS, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                               &w->buf) == VK_SUCCESS &&
             vkt_descriptor_pool(&w->t, 1, &ps, 1, 0, &w->pool) == VK_SUCCESS &&
             vkt_alloc_sets(&w->t, w->pool, w->k.set_layouts, 1, &w->set) == VK_SUCCESS &&
             vkCreateFence(w->t.device, &fi, NULL, &w->fence) == VK_SUCCESS;
   CHECK(ok, "creating the kernel, buffer, set and fence");
   if (!ok)
      return false;
   vkt_bind_buffers(&w->t, w->set, NULL, &w->buf.buffer, 1);
   uint32_t *m = w->buf.map;
   m[0] = stop;
   m[1] = limit;
   memset(m + 2, 0xff, 4 * INVOCATIONS);
   return true;
}

static void
wd_finish(struct wd *w)
{
   if (w->fence)
      vkDestroyFence(w->t.device, w->fence, NULL);
   if (w->pool)
      vkDestroyDescriptorPool(w->t.device, w->pool, NULL);
   if (w->buf.buffer)
      vkt_buffer_destroy(&w->t, &w->buf);
   vkt_kernel_destroy(&w->t, &w->k);
   vkt_finish(&w->t);
}

/* Records the dispatch (mode as the push constant) and submits it with the
 * fence. */
static VkResult
wd_submit(struct wd *w, uint32_t mode)
{
   VkCommandBuffer cb = vkt_begin(&w->t);
   if (!cb)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, w->k.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, w->k.layout, 0, 1, &w->set, 0, NULL);
   vkCmdPushConstants(cb, w->k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &mode);
   vkCmdDispatch(cb, GROUPS, 1, 1);
   vkt_compute_barrier(cb);
   VkResult r = vkEndCommandBuffer(cb);
   VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
   };
   if (r == VK_SUCCESS)
      r = vkQueueSubmit(w->t.queue, 1, &si, w->fence);
   /* Freed once the submission has retired (the caller waits first). */
   VkResult idle = vkQueueWaitIdle(w->t.queue);
   (void)idle;
   vkFreeCommandBuffers(w->t.device, w->t.pool, 1, &cb);
   return r;
}

/* A dispatch that never ends: the wait (fence or queue) returns
 * VK_ERROR_DEVICE_LOST within LOST_BOUND_S, everything after reports it. */
static void
lost_case(const char *name, const uint32_t *code, size_t size, uint32_t mode, uint32_t limit,
          bool fence_wait)
{
   struct wd w;
   /* No validation layer on a device that will be lost: it cannot know
    * that a lost device retired its submissions, and reports every later
    * free as "in use" (as in api/sync's device-loss children). */
   if (!wd_init(&w, "500", false, code, size, 0, limit)) {
      wd_finish(&w);
      return;
   }
   VkCommandBuffer cb = vkt_begin(&w.t);
   CHECK(cb != VK_NULL_HANDLE, "%s: command buffer", name);
   if (!cb) {
      wd_finish(&w);
      return;
   }
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, w.k.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, w.k.layout, 0, 1, &w.set, 0, NULL);
   vkCmdPushConstants(cb, w.k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &mode);
   vkCmdDispatch(cb, GROUPS, 1, 1);
   vkt_compute_barrier(cb);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
   };
   double t0 = now_s();
   CHECK_EQ_INT(vkQueueSubmit(w.t.queue, 1, &si, w.fence), VK_SUCCESS);
   VkResult r = fence_wait ? vkWaitForFences(w.t.device, 1, &w.fence, VK_TRUE, 60ull * 1000000000ull)
                           : vkQueueWaitIdle(w.t.queue);
   double dt = now_s() - t0;
   printf("%s: %s returned %d after %.3f s\n", name, fence_wait ? "vkWaitForFences" : "vkQueueWaitIdle",
          r, dt);
   CHECK(r == VK_ERROR_DEVICE_LOST, "%s: the wait returned %d, expected VK_ERROR_DEVICE_LOST", name, r);
   CHECK(dt >= 0.45 && dt < LOST_BOUND_S, "%s: lost after %.3f s (limit 0.5 s)", name, dt);
   CHECK_EQ_INT(vkQueueWaitIdle(w.t.queue), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkDeviceWaitIdle(w.t.device), VK_ERROR_DEVICE_LOST);
   VkResult again = vkWaitForFences(w.t.device, 1, &w.fence, VK_TRUE, 1000000000ull);
   CHECK(again == VK_ERROR_DEVICE_LOST, "%s: a second fence wait returned %d", name, again);
   VkSubmitInfo empty = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
   CHECK_EQ_INT(vkQueueSubmit(w.t.queue, 1, &empty, VK_NULL_HANDLE), VK_ERROR_DEVICE_LOST);
   vkFreeCommandBuffers(w.t.device, w.t.pool, 1, &cb);
   double t1 = now_s();
   wd_finish(&w);
   printf("%s: everything destroyed in %.3f s\n", name, now_s() - t1);
}

/* Work that ends: the right counts, and no loss. */
static void
ok_case(const char *name, const char *watchdog_ms, const uint32_t *code, size_t size,
        uint32_t mode, uint32_t limit)
{
   struct wd w;
   if (!wd_init(&w, watchdog_ms, true, code, size, 0, limit)) {
      wd_finish(&w);
      return;
   }
   double t0 = now_s();
   VkResult r = wd_submit(&w, mode);
   CHECK(r == VK_SUCCESS, "%s: submit returned %d", name, r);
   r = vkWaitForFences(w.t.device, 1, &w.fence, VK_TRUE, 60ull * 1000000000ull);
   CHECK(r == VK_SUCCESS, "%s: the fence wait returned %d", name, r);
   printf("%s (SHALE_WATCHDOG_MS=%s): %.3f s\n", name, watchdog_ms ? watchdog_ms : "default",
          now_s() - t0);
   const uint32_t *count = (const uint32_t *)w.buf.map + 2;
   unsigned bad = 0;
   for (uint32_t i = 0; i < INVOCATIONS; i++)
      bad += count[i] != limit;
   CHECK(bad == 0, "%s: %u of %u invocations counted wrong (first: %u, expected %u)", name, bad,
         INVOCATIONS, count[0], limit);
   CHECK_EQ_INT(vkDeviceWaitIdle(w.t.device), VK_SUCCESS);
   wd_finish(&w);
}

/* A 64x64 draw whose fragments count to `limit`: 2^32 - 1 (hours) must
 * lose the device within the bound under SHALE_WATCHDOG_MS=500; a small
 * limit (with the default watchdog) gives every pixel the count.
 * `instances` > 1: a draw of that many culled triangles whose shaders have
 * no loop at all (limit 0), so nothing compiled polls the cancel word: 2^30
 * instances take hours, and only the rasterizer's own loops (sr_vertex.c,
 * sr_raster.c) can stop it within the bound. */
static void
draw_case(uint32_t limit, const char *watchdog_ms, uint32_t instances)
{
   bool lose = limit == 0xffffffffu || instances > 1;
   if (watchdog_ms)
      setenv("SHALE_WATCHDOG_MS", watchdog_ms, 1);
   else
      unsetenv("SHALE_WATCHDOG_MS");
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = lose };
   if (!vkt_init(&t, &opts)) {
      CHECK(false, "no Shale device");
      return;
   }
   struct draw_target dt = {
      .color_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = 64, .height = 64,
   };
   struct draw_pipeline p = { 0 };
   struct draw_pipeline_info pi = {
      .vs = wd_full_vert_spv, .vs_size = sizeof(wd_full_vert_spv),
      .fs = wd_spin_frag_spv, .fs_size = sizeof(wd_spin_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .cull_mode = instances > 1 ? VK_CULL_MODE_FRONT_AND_BACK : VK_CULL_MODE_NONE,
      .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .push_size = 4,
   };
   bool ok = draw_target_create(&t, &dt) == VK_SUCCESS &&
             draw_pipeline_create(&t, &dt, &pi, &p) == VK_SUCCESS;
   CHECK(ok, "draw: target and pipeline");
   VkCommandBuffer cb = ok ? draw_begin(&t, &dt, &p, VK_NULL_HANDLE) : VK_NULL_HANDLE;
   if (cb) {
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 4, &limit);
      vkCmdDraw(cb, 3, instances, 0, 0);
      double t0 = now_s();
      VkResult r = draw_end(&t, &dt, cb);
      double dt_s = now_s() - t0;
      printf("draw of %u instances, fragments counting to %u (SHALE_WATCHDOG_MS=%s): %d after "
             "%.3f s\n", instances, limit, watchdog_ms ? watchdog_ms : "default", r, dt_s);
      if (lose) {
         CHECK(r == VK_ERROR_DEVICE_LOST, "draw: vkQueueWaitIdle returned %d", r);
         CHECK(dt_s >= 0.45 && dt_s < LOST_BOUND_S, "draw: lost after %.3f s (limit 0.5 s)", dt_s);
         CHECK_EQ_INT(vkDeviceWaitIdle(t.device), VK_ERROR_DEVICE_LOST);
         VkSubmitInfo empty = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO };
         CHECK_EQ_INT(vkQueueSubmit(t.queue, 1, &empty, VK_NULL_HANDLE), VK_ERROR_DEVICE_LOST);
      } else {
         CHECK(r == VK_SUCCESS, "draw: %d", r);
         const float *px = dt.readback.map;
         unsigned bad = 0;
         for (uint32_t i = 0; i < 64u * 64u; i++)
            bad += px[4 * i] != (float)limit;
         CHECK(bad == 0, "draw: %u of 4096 pixels wrong (first %g, expected %u)", bad, px[0],
               limit);
      }
   }
   draw_pipeline_destroy(&t, &p);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   lost_case("uniform loop", wd_spin_spv, sizeof(wd_spin_spv), 0, 0xffffffffu, true);
   lost_case("divergent loop", wd_spin_spv, sizeof(wd_spin_spv), 1, 1001, false);
   lost_case("loop with barriers", wd_barrier_spv, sizeof(wd_barrier_spv), 0, 0xffffffffu, true);
   draw_case(0xffffffffu, "500", 1);
   draw_case(0, "500", 1u << 30);
   /* The process recovers: new devices run work that ends. */
   ok_case("uniform loop", "500", wd_spin_spv, sizeof(wd_spin_spv), 0, 100000);
   ok_case("divergent loop", NULL, wd_spin_spv, sizeof(wd_spin_spv), 1, 100000);
   ok_case("loop with barriers", NULL, wd_barrier_spv, sizeof(wd_barrier_spv), 0, 1000);
   ok_case("loop with barriers", "0", wd_barrier_spv, sizeof(wd_barrier_spv), 0, 1000);
   draw_case(1000, NULL, 1);
   return check_finish();
}
