/* Presentation helpers shared by the WSI render tests (render/wsi,
 * wsi_x11, wsi_wayland): a clock, the swapchain create info they all use,
 * their semaphores, one submission followed by its present, the filled test
 * frame that the X11 and Wayland tests read back from the window system
 * (acquired and presented, once or until a result changes), and the
 * allocation-failure sweep of their surface and swapchain creation.
 * Static inline, like check.h: the CHECKs count in the test program that
 * includes it. */
#ifndef WSI_UTIL_H
#define WSI_UTIL_H

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "vkt.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)

/* CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t
wsi_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One array layer, colour attachment usage plus `usage`, exclusive,
 * identity transform, opaque, clipped, sRGB non-linear colour space. */
static inline VkSwapchainCreateInfoKHR
wsi_swapchain_info(VkSurfaceKHR surface, VkFormat format, VkExtent2D extent,
                   uint32_t min_images, VkImageUsageFlags usage, VkPresentModeKHR mode,
                   VkSwapchainKHR old)
{
   return (VkSwapchainCreateInfoKHR){
      .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
      .surface = surface,
      .minImageCount = min_images,
      .imageFormat = format,
      .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
      .imageExtent = extent,
      .imageArrayLayers = 1,
      .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | usage,
      .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
      .presentMode = mode,
      .clipped = VK_TRUE,
      .oldSwapchain = old,
   };
}

/* Shale (validation layer on) with VK_KHR_surface and the n (at most 3)
 * surface extensions exts on the instance and VK_KHR_swapchain on the
 * device, into t; a failure is CHECKed, naming exts[0]. */
static inline bool
wsi_vkt_init(struct vkt *t, const char *const *exts, uint32_t n)
{
   const char *inst[4] = { VK_KHR_SURFACE_EXTENSION_NAME };
   for (uint32_t i = 0; i < n && i < 3; i++)
      inst[1 + i] = exts[i];
   const char *dev[1] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
   const struct vkt_options opts = {
      .instance_extensions = inst,
      .instance_extension_count = 1 + (n < 3 ? n : 3),
      .device_extensions = dev,
      .device_extension_count = 1,
   };
   bool ok = vkt_init(t, &opts);
   CHECK(ok, "Shale with %s and VK_KHR_swapchain", exts[0]);
   return ok;
}

/* n semaphores into s, each creation CHECKed; wsi_semaphores_destroy
 * destroys them. */
static inline void
wsi_semaphores_create(struct vkt *t, VkSemaphore *s, uint32_t n)
{
   const VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
   for (uint32_t i = 0; i < n; i++)
      CHECK_VK(vkCreateSemaphore(t->device, &sci, NULL, &s[i]));
}

static inline void
wsi_semaphores_destroy(struct vkt *t, const VkSemaphore *s, uint32_t n)
{
   for (uint32_t i = 0; i < n; i++)
      vkDestroySemaphore(t->device, s[i], NULL);
}

/* Submits cb waiting on `acquired` at `stage`, signalling `rendered` and
 * `done`, then presents image `index` of chain waiting on `rendered`, with
 * pResults pointing at `result` unless it is NULL. Returns
 * vkQueuePresentKHR's result (the submission is CHECKed). */
static inline VkResult
wsi_submit_present(struct vkt *t, VkCommandBuffer cb, VkSemaphore acquired,
                   VkPipelineStageFlags stage, VkSemaphore rendered, VkFence done,
                   VkSwapchainKHR chain, uint32_t index, VkResult *result)
{
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphoreCount = 1,
      .pWaitSemaphores = &acquired,
      .pWaitDstStageMask = &stage,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
      .signalSemaphoreCount = 1,
      .pSignalSemaphores = &rendered,
   };
   CHECK_VK(vkQueueSubmit(t->queue, 1, &si, done));
   const VkPresentInfoKHR pi = {
      .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
      .waitSemaphoreCount = 1,
      .pWaitSemaphores = &rendered,
      .swapchainCount = 1,
      .pSwapchains = &chain,
      .pImageIndices = &index,
      .pResults = result,
   };
   return vkQueuePresentKHR(t->queue, &pi);
}

/* The frame the window-system tests check: swapchain image `image`
 * (index `index` of chain, just acquired with `acquired`) cleared to
 * `color` (0xRRGGBB) with an 8x8 block of `corner` at the top left, left
 * in PRESENT_SRC and presented through wsi_submit_present; then waits for
 * and resets `done`. Returns vkQueuePresentKHR's result. */
static inline VkResult
wsi_fill_frame(struct vkt *t, VkSwapchainKHR chain, uint32_t index, VkImage image,
               VkSemaphore acquired, VkSemaphore rendered, VkFence done, uint32_t color,
               uint32_t corner)
{
   struct vkt_buffer block;
   CHECK_VK(vkt_buffer_create(t, 8 * 8 * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &block));
   for (int i = 0; i < 64; i++)
      ((uint32_t *)block.map)[i] = 0xff000000u | corner;   /* BGRA bytes */
   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   const VkClearColorValue cv = { .float32 = { ((color >> 16) & 255) / 255.0f,
                                               ((color >> 8) & 255) / 255.0f,
                                               (color & 255) / 255.0f, 1.0f } };
   const VkImageSubresourceRange range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };
   vkCmdClearColorImage(cb, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &cv, 1, &range);
   vkt_image_barrier(cb, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   const VkBufferImageCopy region = {
      .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .imageExtent = { 8, 8, 1 },
   };
   vkCmdCopyBufferToImage(cb, block.buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                          &region);
   vkt_image_barrier(cb, image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
   CHECK_VK(vkEndCommandBuffer(cb));
   VkResult rp = wsi_submit_present(t, cb, acquired, VK_PIPELINE_STAGE_TRANSFER_BIT, rendered,
                                    done, chain, index, NULL);
   CHECK_VK(vkWaitForFences(t->device, 1, &done, VK_TRUE, UINT64_MAX));
   CHECK_VK(vkResetFences(t->device, 1, &done));
   vkFreeCommandBuffers(t->device, t->pool, 1, &cb);
   vkt_buffer_destroy(t, &block);
   return rp;
}

/* One frame: acquires an image of chain (2 s at most) with `acquired` and
 * fills and presents it with wsi_fill_frame (rendered[index] signalled
 * between the two). Returns the first result that is not VK_SUCCESS
 * (acquire's, then present's; a VK_SUBOPTIMAL_KHR acquire still
 * presents), or VK_SUCCESS. */
static inline VkResult
wsi_frame(struct vkt *t, VkSwapchainKHR chain, VkSemaphore acquired, const VkSemaphore *rendered,
          VkFence done, uint32_t color, uint32_t corner)
{
   uint32_t index;
   VkResult ra = vkAcquireNextImageKHR(t->device, chain, 2000000000ull, acquired, VK_NULL_HANDLE,
                                       &index);
   if (ra != VK_SUCCESS && ra != VK_SUBOPTIMAL_KHR)
      return ra;
   VkImage images[8];
   uint32_t n = 8;
   /* The layer tracks acquires from the first vkGetSwapchainImagesKHR on. */
   CHECK_VK(vkGetSwapchainImagesKHR(t->device, chain, &n, images));
   if (index >= n)
      return VK_ERROR_UNKNOWN;
   VkResult rp = wsi_fill_frame(t, chain, index, images[index], acquired, rendered[index], done,
                                color, corner);
   return ra != VK_SUCCESS ? ra : rp;
}

/* Frames through wsi_frame, frame k cleared to colors[k % ncolors], up to
 * n of them while they return VK_SUCCESS (or VK_SUBOPTIMAL_KHR where
 * suboptimal_ok), each followed by a queue wait and 40 ms (the present
 * thread shows a frame within a refresh; what the window system did since
 * comes back from a later present or acquire). Returns the last result:
 * how the tests wait for a resize or a lost window to be reported. */
static inline VkResult
wsi_frames_while(struct vkt *t, VkSwapchainKHR chain, VkSemaphore acquired,
                 const VkSemaphore *rendered, VkFence done, int n, bool suboptimal_ok,
                 const uint32_t *colors, int ncolors, uint32_t corner)
{
   VkResult r = VK_SUCCESS;
   for (int k = 0; k < n && (r == VK_SUCCESS || (suboptimal_ok && r == VK_SUBOPTIMAL_KHR)); k++) {
      r = wsi_frame(t, chain, acquired, rendered, done, colors[k % ncolors], corner);
      vkQueueWaitIdle(t->queue);
      usleep(40000);
   }
   return r;
}

/* ---- allocation failures ---- */

/* The failing allocator's state: live allocations, calls since the sweep
 * step began, and the call that fails (1-based; 0: none). */
struct wsi_fa {
   int live;
   int calls;
   int fail_at;
};

static inline struct wsi_fa *
wsi_fa_state(void)
{
   static struct wsi_fa fa;
   return &fa;
}

static inline void *VKAPI_PTR
wsi_fa_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct wsi_fa *fa = wsi_fa_state();
   if (fa->fail_at && ++fa->calls == fa->fail_at)
      return NULL;
   if (align < sizeof(void *))
      align = sizeof(void *);
   void *p = NULL;
   if (posix_memalign(&p, align, size ? size : 1) != 0)
      return NULL;
   fa->live++;
   return p;
}

static inline void VKAPI_PTR
wsi_fa_free(void *user, void *p)
{
   if (p) {
      wsi_fa_state()->live--;
      free(p);
   }
}

static inline void *VKAPI_PTR
wsi_fa_realloc(void *user, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (!orig)
      return wsi_fa_alloc(user, size, align, scope);
   if (!size) {
      wsi_fa_free(user, orig);
      return NULL;
   }
   void *p = wsi_fa_alloc(user, size, align, scope);
   if (p) {
      size_t old = malloc_usable_size(orig);
      memcpy(p, orig, old < size ? old : size);
      wsi_fa_free(user, orig);
   }
   return p;
}

/* Callbacks whose allocation number wsi_fa_state()->fail_at fails. */
static inline const VkAllocationCallbacks *
wsi_fa_callbacks(void)
{
   static const VkAllocationCallbacks callbacks = {
      .pfnAllocation = wsi_fa_alloc,
      .pfnReallocation = wsi_fa_realloc,
      .pfnFree = wsi_fa_free,
   };
   return &callbacks;
}

/* Runs op with the N-th allocation failing, N = 1, 2, ... until it no
 * longer reaches the failure; undo destroys what a successful op made.
 * Each step must leave as many allocations live and fds open as before,
 * and (where `resources` is not NULL) as many window-system resources as
 * it counts; a failing op must return VK_ERROR_OUT_OF_HOST_MEMORY. */
static inline void
wsi_fa_sweep(const char *what, VkResult (*op)(void *), void (*undo)(void *), void *data,
             long (*resources)(void *))
{
   struct wsi_fa *fa = wsi_fa_state();
   int failures = 0;
   const int fds0 = check_open_fds();
   const long res0 = resources ? resources(data) : 0;
   for (int n = 1; n < 200; n++) {
      fa->calls = 0;
      fa->fail_at = n;
      const int live0 = fa->live;
      VkResult r = op(data);
      const bool reached = fa->calls >= n;
      fa->fail_at = 0;
      if (r == VK_SUCCESS) {
         undo(data);
         CHECK(fa->live == live0, "%s: %d allocations left after destruction", what,
               fa->live - live0);
      } else {
         failures++;
         CHECK(r == VK_ERROR_OUT_OF_HOST_MEMORY, "%s, N=%d: %d", what, n, r);
         CHECK(fa->live == live0, "%s, N=%d: %d allocations of the failed call left", what, n,
               fa->live - live0);
      }
      CHECK(check_open_fds() == fds0, "%s, N=%d: %d fds open, %d before", what, n,
            check_open_fds(), fds0);
      if (resources) {
         const long res = resources(data);
         CHECK(res == res0, "%s, N=%d: %ld window-system resources, %ld before", what, n, res,
               res0);
      }
      if (r == VK_SUCCESS && !reached)
         break;
   }
   CHECK(failures > 0, "%s never allocated through pAllocator", what);
   fprintf(stderr, "%s: %d injected failures unwound\n", what, failures);
}

#endif
