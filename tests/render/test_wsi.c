/* Headless surfaces and swapchains through the loader: queries, present modes, acquire timeouts, recreation, rendering. */
/*
 * What is held here (Shale; the queries and the rendering also on lavapipe):
 *  - queries: the surface is supported by queue family 0, its capabilities
 *    (headless: currentExtent 0xFFFFFFFF), formats and present modes, the
 *    same through VK_KHR_get_surface_capabilities2, and PASS_THROUGH only
 *    with VK_EXT_swapchain_colorspace enabled;
 *  - rendering: a render pass clears a swapchain image and draws a
 *    smooth-shaded triangle into it; the image is copied out and presented;
 *    the picture matches lavapipe's within 1/255 per channel;
 *  - present modes, on a virtual display refreshing SHALE_WSI_HEADLESS_HZ
 *    times a second: FIFO shows one image per refresh and never drops one
 *    (N frames take at least N - images refreshes, images come back in
 *    present order); FIFO_RELAXED behaves so too while frames are on time,
 *    and shows a late frame at once (FIFO does not); MAILBOX replaces the
 *    waiting image (frames never wait for refreshes, and a replaced image
 *    comes back before the shown one); IMMEDIATE never waits;
 *  - acquire: timeout 0 gives VK_NOT_READY, a finite one VK_TIMEOUT after
 *    at least that long, UINT64_MAX waits until an image is freed; fences
 *    and semaphores passed to acquire are signalled;
 *  - recreation: oldSwapchain retires the old swapchain, its acquired
 *    image can still be presented, and the new one works (acquiring from
 *    the retired one is invalid usage, so not tried under the layer);
 *  - destruction right after a present whose queue callback has not run
 *    (the image's submission done, buffer fills still running before the
 *    present), 16 times: it returns, and a swapchain made afterwards
 *    acquires and presents.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"
#include "wsi_util.h"

#include "pos_color_vert_spv.h"
#include "smooth_color_frag_spv.h"


#define W 64
#define H 48
#define SLOTS 4

static void
sleep_until(uint64_t t)
{
   uint64_t n = wsi_now_ns();
   if (t > n)
      usleep((useconds_t)((t - n) / 1000));
}

struct wsi {
   struct vkt t;
   bool colorspace;   /* VK_EXT_swapchain_colorspace enabled */
   VkSurfaceKHR surface;
   PFN_vkCreateHeadlessSurfaceEXT CreateHeadlessSurface;
   PFN_vkGetPhysicalDeviceSurfaceCapabilities2KHR GetCaps2;
   PFN_vkGetPhysicalDeviceSurfaceFormats2KHR GetFormats2;
};

static bool
wsi_init(struct wsi *w, enum vkt_driver driver, bool colorspace)
{
   memset(w, 0, sizeof(*w));
   const char *inst[4] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME,
                           VK_KHR_GET_SURFACE_CAPABILITIES_2_EXTENSION_NAME,
                           VK_EXT_SWAPCHAIN_COLOR_SPACE_EXTENSION_NAME };
   const char *dev[1] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
   struct vkt_options opts = {
      .driver = driver,
      .instance_extensions = inst,
      .instance_extension_count = colorspace ? 4 : 3,
      .device_extensions = dev,
      .device_extension_count = 1,
   };
   if (!vkt_init(&w->t, &opts))
      return false;
   w->colorspace = colorspace;
   w->CreateHeadlessSurface = (PFN_vkCreateHeadlessSurfaceEXT)vkGetInstanceProcAddr(
      w->t.instance, "vkCreateHeadlessSurfaceEXT");
   w->GetCaps2 = (PFN_vkGetPhysicalDeviceSurfaceCapabilities2KHR)vkGetInstanceProcAddr(
      w->t.instance, "vkGetPhysicalDeviceSurfaceCapabilities2KHR");
   w->GetFormats2 = (PFN_vkGetPhysicalDeviceSurfaceFormats2KHR)vkGetInstanceProcAddr(
      w->t.instance, "vkGetPhysicalDeviceSurfaceFormats2KHR");
   CHECK(w->CreateHeadlessSurface && w->GetCaps2 && w->GetFormats2, "%s: WSI entry points",
         vkt_driver_name(driver));
   if (!w->CreateHeadlessSurface)
      return false;
   const VkHeadlessSurfaceCreateInfoEXT sci = {
      .sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT,
   };
   CHECK_VK(w->CreateHeadlessSurface(w->t.instance, &sci, NULL, &w->surface));
   return true;
}

static void
wsi_finish(struct wsi *w)
{
   vkDestroySurfaceKHR(w->t.instance, w->surface, NULL);
   vkt_finish(&w->t);
}

static VkResult
make_swapchain(struct wsi *w, VkPresentModeKHR mode, uint32_t images, VkSwapchainKHR old,
               VkSwapchainKHR *out)
{
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(w->surface, VK_FORMAT_B8G8R8A8_UNORM, (VkExtent2D){ W, H }, images,
                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT, mode, old);
   return vkCreateSwapchainKHR(w->t.device, &ci, NULL, out);
}

/* ---- queries ---- */

static void
test_queries(struct wsi *w)
{
   const char *drv = vkt_driver_name(w->t.driver);
   VkBool32 supported = VK_FALSE;
   CHECK_VK(vkGetPhysicalDeviceSurfaceSupportKHR(w->t.pdev, 0, w->surface, &supported));
   CHECK(supported, "%s: queue family 0 cannot present", drv);

   VkSurfaceCapabilitiesKHR caps;
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(w->t.pdev, w->surface, &caps));
   CHECK(caps.minImageCount >= 1 && (!caps.maxImageCount || caps.maxImageCount >= caps.minImageCount),
         "%s: image counts %u..%u", drv, caps.minImageCount, caps.maxImageCount);
   CHECK(caps.currentExtent.width == UINT32_MAX && caps.currentExtent.height == UINT32_MAX,
         "%s: a headless surface has no extent of its own (%ux%u)", drv, caps.currentExtent.width,
         caps.currentExtent.height);
   CHECK(caps.supportedUsageFlags & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, "%s: usage %#x", drv,
         caps.supportedUsageFlags);
   CHECK(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT, "%s: usage %#x", drv,
         caps.supportedUsageFlags);
   CHECK(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR, "%s: alpha", drv);
   CHECK(caps.supportedTransforms & VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR, "%s: transform", drv);

   const VkPhysicalDeviceSurfaceInfo2KHR si = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
      .surface = w->surface,
   };
   VkSurfaceCapabilities2KHR caps2 = { .sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR };
   CHECK_VK(w->GetCaps2(w->t.pdev, &si, &caps2));
   CHECK(!memcmp(&caps2.surfaceCapabilities, &caps, sizeof(caps)),
         "%s: capabilities differ through VK_KHR_get_surface_capabilities2", drv);

   uint32_t n = 0;
   CHECK_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(w->t.pdev, w->surface, &n, NULL));
   VkSurfaceFormatKHR formats[32];
   CHECK(n > 0 && n <= 32, "%s: %u formats", drv, n);
   if (n > 32)
      n = 32;
   CHECK_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(w->t.pdev, w->surface, &n, formats));
   bool bgra = false, pass_through = false;
   for (uint32_t i = 0; i < n; i++) {
      bgra |= formats[i].format == VK_FORMAT_B8G8R8A8_UNORM &&
              formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
      pass_through |= formats[i].colorSpace == VK_COLOR_SPACE_PASS_THROUGH_EXT;
   }
   CHECK(bgra, "%s: B8G8R8A8_UNORM / SRGB_NONLINEAR missing", drv);
   if (!w->colorspace)
      CHECK(!pass_through, "%s: PASS_THROUGH listed without VK_EXT_swapchain_colorspace", drv);
   else if (w->t.driver == VKT_SHALE)
      CHECK(pass_through, "%s: PASS_THROUGH missing with VK_EXT_swapchain_colorspace", drv);

   uint32_t n2 = 0;
   CHECK_VK(w->GetFormats2(w->t.pdev, &si, &n2, NULL));
   CHECK_EQ_INT(n2, n);
   VkSurfaceFormat2KHR formats2[32];
   for (uint32_t i = 0; i < 32; i++)
      formats2[i] = (VkSurfaceFormat2KHR) { .sType = VK_STRUCTURE_TYPE_SURFACE_FORMAT_2_KHR };
   if (n2 > 32)
      n2 = 32;
   CHECK_VK(w->GetFormats2(w->t.pdev, &si, &n2, formats2));
   for (uint32_t i = 0; i < n2 && i < n; i++)
      CHECK(formats2[i].surfaceFormat.format == formats[i].format &&
               formats2[i].surfaceFormat.colorSpace == formats[i].colorSpace,
            "%s: format %u differs through VK_KHR_get_surface_capabilities2", drv, i);
   /* A short array: VK_INCOMPLETE. */
   uint32_t one = 1;
   CHECK_EQ_INT(vkGetPhysicalDeviceSurfaceFormatsKHR(w->t.pdev, w->surface, &one, formats),
                VK_INCOMPLETE);

   VkPresentModeKHR modes[8];
   uint32_t nm = 8;
   CHECK_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(w->t.pdev, w->surface, &nm, modes));
   unsigned seen = 0;
   for (uint32_t i = 0; i < nm; i++)
      if (modes[i] <= VK_PRESENT_MODE_FIFO_RELAXED_KHR)
         seen |= 1u << modes[i];
   CHECK(seen & (1u << VK_PRESENT_MODE_FIFO_KHR), "%s: FIFO missing", drv);
   if (w->t.driver == VKT_SHALE)
      CHECK_EQ_INT(seen, 0xf);
}

/* ---- frames ---- */

/* Per-frame objects, reused round robin: an acquire semaphore, the
 * command buffer that waits it, and a fence that says both are done. The
 * semaphores the presents wait are per image. */
struct frames {
   struct wsi *w;
   VkSwapchainKHR chain;
   uint32_t count;
   VkImage images[16];
   VkSemaphore acquired[SLOTS], rendered[16];
   VkCommandBuffer cb[SLOTS];
   VkFence done[SLOTS];
   bool used[SLOTS];
   uint32_t next;
};

static void
frames_init(struct frames *f, struct wsi *w, VkSwapchainKHR chain)
{
   memset(f, 0, sizeof(*f));
   f->w = w;
   f->chain = chain;
   f->count = 16;
   CHECK_VK(vkGetSwapchainImagesKHR(w->t.device, chain, &f->count, f->images));
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   wsi_semaphores_create(&w->t, f->rendered, f->count);
   wsi_semaphores_create(&w->t, f->acquired, SLOTS);
   const VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = w->t.pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = SLOTS,
   };
   CHECK_VK(vkAllocateCommandBuffers(w->t.device, &cai, f->cb));
   for (uint32_t i = 0; i < SLOTS; i++)
      CHECK_VK(vkCreateFence(w->t.device, &fci, NULL, &f->done[i]));
}

static void
frames_finish(struct frames *f)
{
   VkDevice dev = f->w->t.device;
   vkQueueWaitIdle(f->w->t.queue);
   wsi_semaphores_destroy(&f->w->t, f->rendered, f->count);
   wsi_semaphores_destroy(&f->w->t, f->acquired, SLOTS);
   for (uint32_t i = 0; i < SLOTS; i++)
      vkDestroyFence(dev, f->done[i], NULL);
   vkFreeCommandBuffers(dev, f->w->t.pool, SLOTS, f->cb);
}

/* The slot of the next frame, its previous use finished. */
static uint32_t
frames_slot(struct frames *f)
{
   uint32_t s = f->next++ % SLOTS;
   if (f->used[s]) {
      CHECK_VK(vkWaitForFences(f->w->t.device, 1, &f->done[s], VK_TRUE, UINT64_MAX));
      CHECK_VK(vkResetFences(f->w->t.device, 1, &f->done[s]));
   }
   f->used[s] = true;
   return s;
}

/* Acquires with a slot's semaphore. */
static VkResult
frames_acquire(struct frames *f, uint64_t timeout, uint32_t *slot, uint32_t *index)
{
   *slot = frames_slot(f);
   VkResult r = vkAcquireNextImageKHR(f->w->t.device, f->chain, timeout, f->acquired[*slot],
                                      VK_NULL_HANDLE, index);
   if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
      f->used[*slot] = false;   /* the fence was reset and nothing uses it */
   return r;
}

/* Makes image `index` presentable (waiting the slot's acquire semaphore)
 * and presents it. */
static VkResult
frames_present(struct frames *f, uint32_t slot, uint32_t index)
{
   struct vkt *t = &f->w->t;
   VkCommandBuffer cb = f->cb[slot];
   const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   CHECK_VK(vkResetCommandBuffer(cb, 0));
   CHECK_VK(vkBeginCommandBuffer(cb, &bi));
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = 0,
      .dstAccessMask = 0,
      .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = f->images[index],
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                        VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, 0, NULL, 0, NULL, 1, &b);
   CHECK_VK(vkEndCommandBuffer(cb));
   VkResult result = VK_RESULT_MAX_ENUM;
   VkResult r = wsi_submit_present(t, cb, f->acquired[slot],
                                   VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                   f->rendered[index], f->done[slot], f->chain, index, &result);
   CHECK(r == result, "pResults[0] %d, vkQueuePresentKHR %d", result, r);
   return r;
}

/* ---- present modes ---- */

static const char *
mode_name(VkPresentModeKHR m)
{
   switch (m) {
   case VK_PRESENT_MODE_IMMEDIATE_KHR: return "IMMEDIATE";
   case VK_PRESENT_MODE_MAILBOX_KHR: return "MAILBOX";
   case VK_PRESENT_MODE_FIFO_KHR: return "FIFO";
   case VK_PRESENT_MODE_FIFO_RELAXED_KHR: return "FIFO_RELAXED";
   default: return "?";
   }
}

/* N frames as fast as acquire allows, on a display of `hz`. */
static void
test_mode_throughput(struct wsi *w, VkPresentModeKHR mode, unsigned hz)
{
   const char *name = mode_name(mode);
   char env[16];
   snprintf(env, sizeof(env), "%u", hz);
   setenv("SHALE_WSI_HEADLESS_HZ", env, 1);
   const uint32_t images = 3, n = 12;
   VkSwapchainKHR chain;
   CHECK_VK(make_swapchain(w, mode, images, VK_NULL_HANDLE, &chain));
   struct frames f;
   frames_init(&f, w, chain);
   CHECK_EQ_INT(f.count, images);
   uint32_t order[32];
   uint64_t t0 = wsi_now_ns();
   for (uint32_t k = 0; k < n; k++) {
      uint32_t slot, index = UINT32_MAX;
      VkResult r = frames_acquire(&f, UINT64_MAX, &slot, &index);
      CHECK(r == VK_SUCCESS, "%s frame %u: acquire %d", name, k, r);
      if (r != VK_SUCCESS)
         break;
      order[k] = index;
      CHECK_VK(frames_present(&f, slot, index));
   }
   const double ms = (double)(wsi_now_ns() - t0) / 1e6;
   const double period = 1000.0 / hz;
   /* Images come back in present order unless one was replaced. */
   bool cyclic = true;
   for (uint32_t k = images; k < n; k++)
      cyclic &= order[k] == order[k - images];
   fprintf(stderr, "%s at %u Hz: %u frames, %u images: %.1f ms (%s order)\n", name, hz, n, images,
           ms, cyclic ? "present" : "changed");
   switch (mode) {
   case VK_PRESENT_MODE_FIFO_KHR:
   case VK_PRESENT_MODE_FIFO_RELAXED_KHR:
      /* Frame k >= images needs k - images + 1 images shown, one per refresh
       * (FIFO_RELAXED may show the first one at once). */
      CHECK(ms >= (n - images - (mode == VK_PRESENT_MODE_FIFO_KHR ? 0 : 1)) * period - 2.0,
            "%s: %u frames in %.1f ms, faster than one per refresh (%.1f ms)", name, n, ms,
            period);
      CHECK(cyclic, "%s: images did not come back in present order", name);
      break;
   case VK_PRESENT_MODE_MAILBOX_KHR:
   case VK_PRESENT_MODE_IMMEDIATE_KHR:
      CHECK(ms < (n - images) * period / 2, "%s: %u frames took %.1f ms: waited for refreshes",
            name, n, ms);
      break;
   default:
      break;
   }
   frames_finish(&f);
   vkDestroySwapchainKHR(w->t.device, chain, NULL);
}

/* A frame that misses a refresh: FIFO_RELAXED shows it at once, FIFO at the
 * next refresh. Two images on a 1 Hz display: A is shown by refresh 1; B is
 * presented after refresh 2 found nothing new; A comes back at once only
 * when B is shown at once. */
static void
test_mode_late(struct wsi *w, VkPresentModeKHR mode)
{
   const char *name = mode_name(mode);
   setenv("SHALE_WSI_HEADLESS_HZ", "1", 1);
   VkSwapchainKHR chain;
   CHECK_VK(make_swapchain(w, mode, 2, VK_NULL_HANDLE, &chain));
   const uint64_t t0 = wsi_now_ns();
   struct frames f;
   frames_init(&f, w, chain);
   uint32_t slot, a, b, c;
   CHECK_VK(frames_acquire(&f, 0, &slot, &a));
   CHECK_VK(frames_present(&f, slot, a));
   CHECK_VK(frames_acquire(&f, 0, &slot, &b));
   sleep_until(t0 + 2300000000ull);
   CHECK_VK(frames_present(&f, slot, b));
   uint32_t s2;
   VkResult r = frames_acquire(&f, 400000000ull, &s2, &c);
   if (mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR) {
      CHECK(r == VK_SUCCESS && c == a, "%s: late frame not shown at once (acquire %d)", name, r);
   } else {
      CHECK(r == VK_TIMEOUT, "%s: late frame shown before the next refresh (acquire %d)", name,
            r);
   }
   if (r == VK_SUCCESS)
      CHECK_VK(frames_present(&f, s2, c));
   frames_finish(&f);
   vkDestroySwapchainKHR(w->t.device, chain, NULL);
}

/* vkDestroySwapchainKHR right after a present whose queue callback has
 * not run yet (sh_wsi.h: destruction waits for it; the callback touches
 * the swapchain last): the image's own submission is done (its fence
 * waited), then a submission of buffer fills that touches no swapchain
 * image keeps the queue busy while the present is queued behind it and the
 * swapchain destroyed. 16 rounds; checked: each acquire and present
 * succeeds, destruction returns, and a swapchain made afterwards acquires
 * and presents. */
static void
test_destroy_after_present(struct wsi *w)
{
   struct vkt *t = &w->t;
   setenv("SHALE_WSI_HEADLESS_HZ", "1000", 1);
   const VkDeviceSize size = 16u << 20;
   struct vkt_buffer busy;
   CHECK_VK(vkt_buffer_create(t, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &busy));
   const VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = t->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer fill;
   CHECK_VK(vkAllocateCommandBuffers(t->device, &cai, &fill));
   const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   CHECK_VK(vkBeginCommandBuffer(fill, &bi));
   for (uint32_t i = 0; i < 8; i++)
      vkCmdFillBuffer(fill, busy.buffer, 0, VK_WHOLE_SIZE, i);
   CHECK_VK(vkEndCommandBuffer(fill));
   const VkSubmitInfo fsi = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &fill,
   };
   for (unsigned round = 0; round < 16; round++) {
      VkSwapchainKHR chain;
      CHECK_VK(make_swapchain(w, VK_PRESENT_MODE_IMMEDIATE_KHR, 2, VK_NULL_HANDLE, &chain));
      struct frames f;
      frames_init(&f, w, chain);
      uint32_t slot, index;
      CHECK_VK(frames_acquire(&f, UINT64_MAX, &slot, &index));
      /* The image to PRESENT_SRC, as frames_present does, but presented
       * only after its fence and the fills. */
      VkCommandBuffer cb = f.cb[slot];
      CHECK_VK(vkResetCommandBuffer(cb, 0));
      CHECK_VK(vkBeginCommandBuffer(cb, &bi));
      vkt_image_barrier(cb, f.images[index], VK_IMAGE_ASPECT_COLOR_BIT,
                        VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
      CHECK_VK(vkEndCommandBuffer(cb));
      const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
      const VkSubmitInfo si = {
         .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
         .waitSemaphoreCount = 1,
         .pWaitSemaphores = &f.acquired[slot],
         .pWaitDstStageMask = &stage,
         .commandBufferCount = 1,
         .pCommandBuffers = &cb,
         .signalSemaphoreCount = 1,
         .pSignalSemaphores = &f.rendered[index],
      };
      CHECK_VK(vkQueueSubmit(t->queue, 1, &si, f.done[slot]));
      CHECK_VK(vkWaitForFences(t->device, 1, &f.done[slot], VK_TRUE, UINT64_MAX));
      CHECK_VK(vkQueueSubmit(t->queue, 1, &fsi, VK_NULL_HANDLE));
      const VkPresentInfoKHR pi = {
         .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
         .waitSemaphoreCount = 1,
         .pWaitSemaphores = &f.rendered[index],
         .swapchainCount = 1,
         .pSwapchains = &chain,
         .pImageIndices = &index,
      };
      CHECK_VK(vkQueuePresentKHR(t->queue, &pi));
      vkDestroySwapchainKHR(t->device, chain, NULL);
      frames_finish(&f);
   }
   vkFreeCommandBuffers(t->device, t->pool, 1, &fill);
   vkt_buffer_destroy(t, &busy);
   VkSwapchainKHR chain;
   CHECK_VK(make_swapchain(w, VK_PRESENT_MODE_IMMEDIATE_KHR, 2, VK_NULL_HANDLE, &chain));
   struct frames f;
   frames_init(&f, w, chain);
   for (unsigned i = 0; i < 4; i++) {
      uint32_t slot, index;
      CHECK_VK(frames_acquire(&f, 1000000000ull, &slot, &index));
      CHECK_VK(frames_present(&f, slot, index));
   }
   frames_finish(&f);
   vkDestroySwapchainKHR(t->device, chain, NULL);
}

/* Two images on a 1 Hz display, both presented before the first refresh:
 * MAILBOX frees the first at once (replaced, never shown), IMMEDIATE frees
 * it at once (shown, then replaced on the display); FIFO and FIFO_RELAXED
 * keep both until refreshes show them, so a 300 ms acquire times out. */
static void
test_mode_replace(struct wsi *w, VkPresentModeKHR mode)
{
   const char *name = mode_name(mode);
   setenv("SHALE_WSI_HEADLESS_HZ", "1", 1);
   VkSwapchainKHR chain;
   CHECK_VK(make_swapchain(w, mode, 2, VK_NULL_HANDLE, &chain));
   struct frames f;
   frames_init(&f, w, chain);
   uint32_t slot, a, b, c;
   CHECK_VK(frames_acquire(&f, 0, &slot, &a));
   CHECK_VK(frames_present(&f, slot, a));
   CHECK_VK(frames_acquire(&f, 0, &slot, &b));
   CHECK_VK(frames_present(&f, slot, b));
   VkResult r = frames_acquire(&f, 300000000ull, &slot, &c);
   if (mode == VK_PRESENT_MODE_MAILBOX_KHR || mode == VK_PRESENT_MODE_IMMEDIATE_KHR) {
      CHECK(r == VK_SUCCESS && c == a, "%s: first image not freed by the second present (%d)",
            name, r);
      if (r == VK_SUCCESS)
         CHECK_VK(frames_present(&f, slot, c));
   } else {
      CHECK(r == VK_TIMEOUT, "%s: an image came back before any refresh (%d)", name, r);
   }
   frames_finish(&f);
   vkDestroySwapchainKHR(w->t.device, chain, NULL);
}

/* ---- acquire ---- */

static void
test_acquire(struct wsi *w)
{
   setenv("SHALE_WSI_HEADLESS_HZ", "20", 1);
   VkDevice dev = w->t.device;
   VkSwapchainKHR chain;
   CHECK_VK(make_swapchain(w, VK_PRESENT_MODE_FIFO_KHR, 2, VK_NULL_HANDLE, &chain));
   struct frames f;
   frames_init(&f, w, chain);
   CHECK_EQ_INT(f.count, 2);

   /* A fence alone. */
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   VkFence fence;
   CHECK_VK(vkCreateFence(dev, &fci, NULL, &fence));
   uint32_t a = UINT32_MAX, b = UINT32_MAX, c;
   CHECK_VK(vkAcquireNextImageKHR(dev, chain, 0, VK_NULL_HANDLE, fence, &a));
   CHECK_VK(vkWaitForFences(dev, 1, &fence, VK_TRUE, 1000000000ull));

   /* More acquires than images: 0 gives NOT_READY, finite gives TIMEOUT. */
   uint32_t sb;
   CHECK_VK(frames_acquire(&f, 0, &sb, &b));
   CHECK(a != b && a < 2 && b < 2, "acquired %u and %u", a, b);
   uint32_t s;
   CHECK_EQ_INT(frames_acquire(&f, 0, &s, &c), VK_NOT_READY);
   uint64_t t0 = wsi_now_ns();
   CHECK_EQ_INT(frames_acquire(&f, 30000000ull, &s, &c), VK_TIMEOUT);
   uint64_t waited = wsi_now_ns() - t0;
   CHECK(waited >= 30000000ull, "VK_TIMEOUT after %llu ns of a 30 ms timeout",
         (unsigned long long)waited);

   /* Present both (a waits nothing but needs its layout: use b's slot for
    * b, and a fresh slot whose semaphore the fence stands in for). */
   CHECK_VK(frames_present(&f, sb, b));
   {
      /* Image a was acquired with the fence only: present it through a
       * submit that waits nothing. */
      VkCommandBuffer cb = vkt_begin(&w->t);
      vkt_image_barrier(cb, f.images[a], VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                        VK_IMAGE_LAYOUT_PRESENT_SRC_KHR);
      CHECK_VK(vkt_submit_wait(&w->t, cb));
      const VkPresentInfoKHR pi = {
         .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
         .swapchainCount = 1,
         .pSwapchains = &chain,
         .pImageIndices = &a,
      };
      CHECK_VK(vkQueuePresentKHR(w->t.queue, &pi));
   }
   /* b is shown at a refresh, then a at the next one, which frees b:
    * UINT64_MAX waits for that. */
   t0 = wsi_now_ns();
   uint32_t sc;
   CHECK_VK(frames_acquire(&f, UINT64_MAX, &sc, &c));
   CHECK_EQ_INT(c, b);
   fprintf(stderr, "acquire with UINT64_MAX waited %.1f ms\n", (double)(wsi_now_ns() - t0) / 1e6);
   CHECK_VK(frames_present(&f, sc, c));

   frames_finish(&f);
   vkDestroyFence(dev, fence, NULL);
   vkDestroySwapchainKHR(dev, chain, NULL);
}

/* ---- recreation ---- */

static void
test_recreate(struct wsi *w)
{
   setenv("SHALE_WSI_HEADLESS_HZ", "200", 1);
   VkDevice dev = w->t.device;
   VkSwapchainKHR old, chain;
   CHECK_VK(make_swapchain(w, VK_PRESENT_MODE_FIFO_KHR, 3, VK_NULL_HANDLE, &old));
   struct frames fo;
   frames_init(&fo, w, old);
   uint32_t slot, index;
   CHECK_VK(frames_acquire(&fo, UINT64_MAX, &slot, &index));

   CHECK_VK(make_swapchain(w, VK_PRESENT_MODE_MAILBOX_KHR, 3, old, &chain));
   /* Acquiring from the retired swapchain is invalid usage (the validation
    * layer says so); its acquired image may still be presented. */
   VkResult r = frames_present(&fo, slot, index);
   CHECK(r == VK_SUCCESS || r == VK_ERROR_OUT_OF_DATE_KHR, "present on a retired swapchain: %d",
         r);
   frames_finish(&fo);
   vkDestroySwapchainKHR(dev, old, NULL);

   struct frames f;
   frames_init(&f, w, chain);
   for (int k = 0; k < 6; k++) {
      CHECK_VK(frames_acquire(&f, UINT64_MAX, &slot, &index));
      CHECK_VK(frames_present(&f, slot, index));
   }
   frames_finish(&f);
   vkDestroySwapchainKHR(dev, chain, NULL);
}

/* ---- rendering into a swapchain image ---- */

struct vertex {
   float pos[4];
   float color[4];
};

/* Ends the frame's commands, submits them after the acquire and presents
 * the image; waits for the commands. */
static void
render_submit_present(struct wsi *w, const struct frames *f, VkCommandBuffer cb, uint32_t slot,
                      uint32_t index)
{
   struct vkt *t = &w->t;
   CHECK_VK(vkEndCommandBuffer(cb));
   const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphoreCount = 1,
      .pWaitSemaphores = &f->acquired[slot],
      .pWaitDstStageMask = &stage,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
      .signalSemaphoreCount = 1,
      .pSignalSemaphores = &f->rendered[index],
   };
   CHECK_VK(vkQueueSubmit(t->queue, 1, &si, f->done[slot]));
   const VkPresentInfoKHR pi = {
      .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
      .waitSemaphoreCount = 1,
      .pWaitSemaphores = &f->rendered[index],
      .swapchainCount = 1,
      .pSwapchains = &f->chain,
      .pImageIndices = &index,
   };
   CHECK_VK(vkQueuePresentKHR(t->queue, &pi));
   CHECK_VK(vkWaitForFences(t->device, 1, &f->done[slot], VK_TRUE, UINT64_MAX));
}

/* Clears a swapchain image, draws a triangle, copies the image out into
 * `out` (W x H BGRA8) and presents it. Without a surface (lavapipe has no
 * VK_EXT_headless_surface) the same into an ordinary image. */
static void
render_frame(struct wsi *w, uint8_t *out)
{
   struct vkt *t = &w->t;
   const char *drv = vkt_driver_name(t->driver);
   VkDevice dev = t->device;
   const bool present = w->surface != VK_NULL_HANDLE;
   VkSwapchainKHR chain = VK_NULL_HANDLE;
   struct frames f;
   struct vkt_image plain = { 0 };
   if (present) {
      CHECK_VK(make_swapchain(w, VK_PRESENT_MODE_FIFO_KHR, 2, VK_NULL_HANDLE, &chain));
      frames_init(&f, w, chain);
   } else {
      const VkImageCreateInfo ici = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
         .imageType = VK_IMAGE_TYPE_2D,
         .format = VK_FORMAT_B8G8R8A8_UNORM,
         .extent = { W, H, 1 },
         .mipLevels = 1,
         .arrayLayers = 1,
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
      };
      CHECK_VK(vkt_image_create(t, &ici, &plain));
   }

   const VkSubpassDependency deps[2] = {
      { VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0 },
      { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        VK_ACCESS_TRANSFER_READ_BIT, 0 },
   };
   struct draw_target dt = { .color_format = VK_FORMAT_B8G8R8A8_UNORM, .width = W, .height = H };
   CHECK_VK(draw_color_pass(t, VK_FORMAT_B8G8R8A8_UNORM, deps, 2, &dt.render_pass));
   const struct draw_pipeline_info pinfo = {
      .vs = pos_color_vert_spv,
      .vs_size = sizeof(pos_color_vert_spv),
      .fs = smooth_color_frag_spv,
      .fs_size = sizeof(smooth_color_frag_spv),
      .stride = sizeof(struct vertex),
      .attrib_count = 2,
      .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
      .attrib_offset = { 0, 16 },
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .cull_mode = VK_CULL_MODE_NONE,
      .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
      .polygon_mode = VK_POLYGON_MODE_FILL,
   };
   struct draw_pipeline p;
   CHECK_VK(draw_pipeline_create(t, &dt, &pinfo, &p));
   static const struct vertex tri[3] = {
      { { -0.8f, -0.9f, 0.5f, 1 }, { 1, 0, 0, 1 } },
      { { 0.9f, -0.2f, 0.5f, 1 }, { 0, 1, 0, 1 } },
      { { -0.3f, 0.85f, 0.5f, 1 }, { 0, 0, 1, 1 } },
   };
   struct vkt_buffer vb, rb;
   CHECK_VK(vkt_buffer_create(t, sizeof(tri), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb));
   memcpy(vb.map, tri, sizeof(tri));
   CHECK_VK(vkt_buffer_create(t, W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rb));

   uint32_t slot = 0, index = 0;
   VkImage image = plain.image;
   VkCommandBuffer cb;
   if (present) {
      CHECK_VK(frames_acquire(&f, UINT64_MAX, &slot, &index));
      image = f.images[index];
      cb = f.cb[slot];
   } else {
      cb = vkt_begin(t);
   }
   const VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_B8G8R8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   VkImageView view;
   CHECK_VK(vkCreateImageView(dev, &vci, NULL, &view));
   const VkFramebufferCreateInfo fbci = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = dt.render_pass,
      .attachmentCount = 1,
      .pAttachments = &view,
      .width = W,
      .height = H,
      .layers = 1,
   };
   VkFramebuffer fb;
   CHECK_VK(vkCreateFramebuffer(dev, &fbci, NULL, &fb));

   const VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   if (present)
      CHECK_VK(vkBeginCommandBuffer(cb, &bi));
   const VkClearValue clear = { .color = { .float32 = { 0.25f, 0.5f, 0.75f, 1.0f } } };
   const VkRenderPassBeginInfo rpbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = dt.render_pass,
      .framebuffer = fb,
      .renderArea = { { 0, 0 }, { W, H } },
      .clearValueCount = 1,
      .pClearValues = &clear,
   };
   vkCmdBeginRenderPass(cb, &rpbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.pipeline);
   VkDeviceSize zero = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &vb.buffer, &zero);
   vkCmdDraw(cb, 3, 1, 0, 0);
   vkCmdEndRenderPass(cb);
   const VkBufferImageCopy region = {
      .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .imageExtent = { W, H, 1 },
   };
   vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb.buffer, 1,
                          &region);
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
      .dstAccessMask = 0,
      .oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      .newLayout = present ? VK_IMAGE_LAYOUT_PRESENT_SRC_KHR : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   const VkBufferMemoryBarrier hb = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .buffer = rb.buffer,
      .size = VK_WHOLE_SIZE,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
                        NULL, 1, &hb, 1, &b);
   if (present)
      render_submit_present(w, &f, cb, slot, index);
   else
      CHECK_VK(vkt_submit_wait(t, cb));
   memcpy(out, rb.map, W * H * 4);

   /* The clear colour at a corner the triangle misses, in BGRA order. */
   const uint8_t *px = out + ((H - 1) * W + (W - 1)) * 4;
   CHECK(px[0] == 191 && px[1] == 128 && px[2] == 64 && px[3] == 255,
         "%s: corner %u %u %u %u, expected the clear colour 191 128 64 255", drv, px[0], px[1],
         px[2], px[3]);

   if (present) {
      frames_finish(&f);
      vkDestroySwapchainKHR(dev, chain, NULL);
   } else {
      vkt_image_destroy(t, &plain);
   }
   vkDestroyFramebuffer(dev, fb, NULL);
   vkDestroyImageView(dev, view, NULL);
   vkt_buffer_destroy(t, &vb);
   vkt_buffer_destroy(t, &rb);
   draw_pipeline_destroy(t, &p);
   vkDestroyRenderPass(dev, dt.render_pass, NULL);
}

int
main(void)
{
   static uint8_t shale_px[W * H * 4], lvp_px[W * H * 4];
   struct wsi w;
   if (!wsi_init(&w, VKT_SHALE, true)) {
      CHECK(false, "Shale with VK_KHR_surface, VK_EXT_headless_surface and VK_KHR_swapchain");
      return 1;
   }
   test_queries(&w);
   render_frame(&w, shale_px);
   test_acquire(&w);
   test_recreate(&w);
   test_mode_throughput(&w, VK_PRESENT_MODE_FIFO_KHR, 20);
   test_mode_throughput(&w, VK_PRESENT_MODE_FIFO_RELAXED_KHR, 20);
   test_mode_throughput(&w, VK_PRESENT_MODE_MAILBOX_KHR, 2);
   test_mode_throughput(&w, VK_PRESENT_MODE_IMMEDIATE_KHR, 2);
   for (VkPresentModeKHR m = VK_PRESENT_MODE_IMMEDIATE_KHR; m <= VK_PRESENT_MODE_FIFO_RELAXED_KHR;
        m++)
      test_mode_replace(&w, m);
   test_mode_late(&w, VK_PRESENT_MODE_FIFO_RELAXED_KHR);
   test_mode_late(&w, VK_PRESENT_MODE_FIFO_KHR);
   test_destroy_after_present(&w);
   wsi_finish(&w);

   /* Without VK_EXT_swapchain_colorspace: no PASS_THROUGH. */
   if (wsi_init(&w, VKT_SHALE, false)) {
      test_queries(&w);
      wsi_finish(&w);
   }

   /* Lavapipe (Mesa 22.3) has no VK_EXT_headless_surface: the same picture
    * drawn into an ordinary image. */
   memset(&w, 0, sizeof(w));
   if (vkt_init(&w.t, &(struct vkt_options) { .driver = VKT_LAVAPIPE })) {
      render_frame(&w, lvp_px);
      vkt_finish(&w.t);
      unsigned worst = 0, where = 0;
      for (unsigned i = 0; i < W * H * 4; i++) {
         unsigned d = (unsigned)abs((int)shale_px[i] - (int)lvp_px[i]);
         if (d > worst) {
            worst = d;
            where = i;
         }
      }
      fprintf(stderr, "swapchain picture vs lavapipe: largest difference %u (pixel %u, %u)\n",
              worst, where / 4 % W, where / 4 / W);
      CHECK(worst <= 1, "swapchain picture differs from lavapipe's by %u at pixel (%u, %u)", worst,
            where / 4 % W, where / 4 / W);
   } else {
      fprintf(stderr, "note: lavapipe not available; no comparison\n");
   }
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   printf("%d checks, %d failed\n", check_count, check_failures);
   return check_failures ? 1 : 0;
}
