/* X11 presentation through the loader under an Xvfb the test starts: pixels, resize, lost windows, leaks. */
/*
 * What is held here, for a VK_KHR_xcb_surface on each of Shale's ways to
 * the window: MIT-SHM images (B8G8R8A8: every swapchain image a segment the
 * server reads, no copy), the MIT-SHM staging copy (SHALE_WSI_X11_NO_SHM_IMAGES=1,
 * and the way R8G8B8A8 images take, their bytes swapped), the PutImage
 * fallback (SHALE_WSI_X11_NO_SHM=1); and for a VK_KHR_xlib_surface (an Xlib
 * window) with MIT-SHM images:
 *  - the surface reports the window's size as currentExtent;
 *  - frames cleared and copied into swapchain images reach the window: the
 *    window's pixels (xcb_get_image) are the last frame's, right way up,
 *    in the right colours;
 *  - resizing the window makes presents or acquires return
 *    VK_SUBOPTIMAL_KHR, the capabilities follow the new size, and a
 *    swapchain recreated with oldSwapchain fills the larger window (82
 *    pixels wide: rows of images are padded to 84, which the server must
 *    skip when it reads an image in place);
 *  - destroying the window makes acquire return VK_ERROR_SURFACE_LOST_KHR
 *    and the capability query too;
 *  - an IMMEDIATE swapchain (MIT-SHM images) makes one image more than the
 *    minImageCount asked for, so while the engine shows one image the
 *    application holds two, acquired with timeout 0, round after round of
 *    presents, and its frames reach the window;
 *  - after the swapchains and surfaces are destroyed, the process has as
 *    many open fds as before and no SysV shared-memory segment of its own,
 *    and the X server holds as many resources for the presenting client
 *    (the xcb connection, or the Xlib display's) as before the window was
 *    made (counted with the X-Resource extension, which also shows the
 *    swapchain's own while it lives, and so which way it took: its GC, and
 *    with MIT-SHM one segment per image or one staging segment);
 *  - vkCreateXcbSurfaceKHR, vkCreateXlibSurfaceKHR and vkCreateSwapchainKHR
 *    on an X window (each way) honour pAllocator: failing the N-th
 *    allocation, for every N the call makes, returns
 *    VK_ERROR_OUT_OF_HOST_MEMORY with nothing left allocated, no fd open and
 *    no X resource held (without the validation layer, which allocates
 *    through the same callbacks).
 * The test skips (77) where Xvfb is not installed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <X11/Xlib.h>
#include <sys/uio.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h>
#define VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_XLIB_KHR
#include <vulkan/vulkan.h>

#include "check.h"
#include "vkt.h"
#include "wsi_util.h"
#include "xvfb_util.h"


/* Starts Xvfb on a free display of :50 to :449 and connects to it. */
static xcb_connection_t *
xvfb_connect_or_skip(void)
{
   if (access("/usr/bin/Xvfb", X_OK) != 0)
      SKIP("Xvfb is not installed (ci/setup.sh installs xvfb)");
   xcb_connection_t *c = xvfb_connect(50, 400, "320x240x24");
   if (!c)
      CHECK(false, "Xvfb on a display of :50 to :449 did not come up");
   return c;
}

static xcb_window_t
window_create(xcb_connection_t *c, uint16_t w, uint16_t h)
{
   const xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
   xcb_window_t win = xcb_generate_id(c);
   const uint32_t values[] = { screen->black_pixel };
   xcb_create_window(c, XCB_COPY_FROM_PARENT, win, screen->root, 0, 0, w, h, 0,
                     XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_BACK_PIXEL,
                     values);
   xcb_map_window(c, win);
   free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));   /* round trip */
   return win;
}

/* The window's pixel (x, y) as 0xRRGGBB, or ~0 on error. */
static uint32_t
window_pixel(xcb_connection_t *c, xcb_window_t win, int16_t x, int16_t y)
{
   xcb_get_image_reply_t *r = xcb_get_image_reply(
      c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, win, x, y, 1, 1, ~0u), NULL);
   if (!r)
      return ~0u;
   uint32_t v = ~0u;
   if (xcb_get_image_data_length(r) >= 4) {
      const uint8_t *p = xcb_get_image_data(r);
      v = (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
   }
   free(r);
   return v;
}

/* SysV segments this process created that still exist. */
static int
own_shm_segments(void)
{
   FILE *f = fopen("/proc/sysvipc/shm", "r");
   if (!f)
      return -1;
   char line[512];
   int n = 0;
   fgets(line, sizeof(line), f);
   while (fgets(line, sizeof(line), f)) {
      long key, id, perms, size, cpid;
      if (sscanf(line, "%ld %ld %lo %ld %ld", &key, &id, &perms, &size, &cpid) == 5 &&
          cpid == getpid())
         n++;
   }
   fclose(f);
   return n;
}

/* X-Resource's QueryClientResources, sent by hand (no libxcb-res headers
 * here): the number of resources of every type the server holds for the
 * client that owns XID `client`; -1 where the server lacks the extension. */
static xcb_extension_t xres_ext = { "X-Resource", 0 };

static long
client_resources(xcb_connection_t *c, uint32_t client)
{
   const xcb_query_extension_reply_t *ext = xcb_get_extension_data(c, &xres_ext);
   if (!ext || !ext->present)
      return -1;
   struct {
      uint8_t major, minor;
      uint16_t length;
      uint32_t xid;
   } req = { 0, 2, 2, client };   /* X_XResQueryClientResources */
   struct iovec parts[4];
   parts[2].iov_base = &req;
   parts[2].iov_len = sizeof(req);
   parts[3].iov_base = NULL;
   parts[3].iov_len = 0;
   xcb_protocol_request_t pr = { .count = 2, .ext = &xres_ext, .opcode = 2, .isvoid = 0 };
   unsigned seq = xcb_send_request(c, XCB_REQUEST_CHECKED, parts + 2, &pr);
   xcb_generic_error_t *err = NULL;
   uint8_t *reply = xcb_wait_for_reply(c, seq, &err);
   free(err);
   if (!reply)
      return -2;
   uint32_t types, total = 0;
   memcpy(&types, reply + 8, 4);
   for (uint32_t i = 0; i < types; i++) {
      uint32_t n;
      memcpy(&n, reply + 32 + 8 * i + 4, 4);
      total += n;
   }
   free(reply);
   return total;
}

struct ctx {
   struct vkt t;
   xcb_connection_t *xc;
   Display *dpy;
   VkSemaphore acquired, rendered[8];
   VkFence done;
};

/* The ways to the window, as run() takes them. */
enum way { SHM_IMAGES, SHM_COPY, SHM_RGBA, PUT_IMAGE, XLIB };
static const char *const way_names[] = { "MIT-SHM images", "MIT-SHM copy", "MIT-SHM R8G8B8A8",
                                         "PutImage", "Xlib" };

/* Makes a swapchain of `format`; *count: its number of images. */
static VkResult
make_swapchain(struct ctx *c, VkSurfaceKHR surface, VkFormat format, VkExtent2D extent,
               VkSwapchainKHR old, VkSwapchainKHR *out, uint32_t *count)
{
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(surface, format, extent, 2, VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                         VK_PRESENT_MODE_FIFO_KHR, old);
   VkResult r = vkCreateSwapchainKHR(c->t.device, &ci, NULL, out);
   if (r == VK_SUCCESS) {
      uint32_t n = 0;
      CHECK_VK(vkGetSwapchainImagesKHR(c->t.device, *out, &n, NULL));
      CHECK(n >= 2 && n <= 8, "%u images", n);
      *count = n;
   }
   return r;
}

/* One frame of chain (wsi_frame) with the context's semaphores and fence. */
static VkResult
frame(struct ctx *c, VkSwapchainKHR chain, uint32_t color, uint32_t corner)
{
   return wsi_frame(&c->t, chain, c->acquired, c->rendered, c->done, color, corner);
}

/* Waits (up to 2 s) until the window shows `want` at (x, y). */
static bool
wait_pixel(struct ctx *c, xcb_window_t win, int16_t x, int16_t y, uint32_t want)
{
   uint32_t got = ~0u;
   for (int i = 0; i < 100; i++) {
      got = window_pixel(c->xc, win, x, y);
      if (got == want)
         return true;
      usleep(20000);
   }
   fprintf(stderr, "pixel (%d, %d) is %06x, expected %06x\n", x, y, got, want);
   return false;
}

static void
run(struct ctx *c, enum way way)
{
   const char *how = way_names[way];
   const bool xlib = way == XLIB, shm = way != PUT_IMAGE;
   const VkFormat format = way == SHM_RGBA ? VK_FORMAT_R8G8B8A8_UNORM : VK_FORMAT_B8G8R8A8_UNORM;
   setenv("SHALE_WSI_X11_NO_SHM", shm ? "0" : "1", 1);
   setenv("SHALE_WSI_X11_NO_SHM_IMAGES", way == SHM_COPY ? "1" : "0", 1);
   /* The presenting client: any XID of its range names it. */
   const uint32_t client = xlib ? (uint32_t)XAllocID(c->dpy) : xcb_get_setup(c->xc)->resource_id_base;
   const long res0 = client_resources(c->xc, client);
   CHECK(res0 >= 0, "%s: X-Resource query: %ld", how, res0);
   xcb_window_t win;
   VkSurfaceKHR surface = VK_NULL_HANDLE;
   if (xlib) {
      PFN_vkCreateXlibSurfaceKHR create = (PFN_vkCreateXlibSurfaceKHR)vkGetInstanceProcAddr(
         c->t.instance, "vkCreateXlibSurfaceKHR");
      CHECK(create != NULL, "vkCreateXlibSurfaceKHR");
      if (!create)
         return;
      Window w = XCreateSimpleWindow(c->dpy, DefaultRootWindow(c->dpy), 0, 0, 64, 48, 0, 0, 0);
      XMapWindow(c->dpy, w);
      XSync(c->dpy, False);
      win = (xcb_window_t)w;
      const VkXlibSurfaceCreateInfoKHR sci = {
         .sType = VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR,
         .dpy = c->dpy,
         .window = w,
      };
      CHECK_VK(create(c->t.instance, &sci, NULL, &surface));
   } else {
      PFN_vkCreateXcbSurfaceKHR create =
         (PFN_vkCreateXcbSurfaceKHR)vkGetInstanceProcAddr(c->t.instance, "vkCreateXcbSurfaceKHR");
      CHECK(create != NULL, "vkCreateXcbSurfaceKHR");
      if (!create)
         return;
      win = window_create(c->xc, 64, 48);
      const VkXcbSurfaceCreateInfoKHR sci = {
         .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
         .connection = c->xc,
         .window = win,
      };
      CHECK_VK(create(c->t.instance, &sci, NULL, &surface));
   }
   VkBool32 ok = VK_FALSE;
   CHECK_VK(vkGetPhysicalDeviceSurfaceSupportKHR(c->t.pdev, 0, surface, &ok));
   CHECK(ok, "%s: no presentation support", how);
   VkSurfaceCapabilitiesKHR caps;
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, surface, &caps));
   CHECK(caps.currentExtent.width == 64 && caps.currentExtent.height == 48,
         "%s: currentExtent %ux%u", how, caps.currentExtent.width, caps.currentExtent.height);

   if (xlib)
      XSync(c->dpy, False);
   const long res_window = client_resources(c->xc, client);
   VkSwapchainKHR chain;
   uint32_t count = 0;
   CHECK_VK(make_swapchain(c, surface, format, caps.currentExtent, VK_NULL_HANDLE, &chain, &count));
   const long res_chain = client_resources(c->xc, client);
   /* The GC, and with MIT-SHM a segment per image, or the staging one. */
   const long segments_made = !shm ? 0 : way == SHM_COPY || way == SHM_RGBA ? 1 : count;
   CHECK(res_chain == res_window + 1 + segments_made, "%s: %ld X resources with the window, %ld "
         "with its swapchain of %u images (expected %ld more)", how, res_window, res_chain, count,
         1 + segments_made);
   static const uint32_t colors[3] = { 0x336699, 0xcc8844, 0x20e040 };
   for (int k = 0; k < 3; k++)
      CHECK_VK(frame(c, chain, colors[k], 0xff00ff));
   vkQueueWaitIdle(c->t.queue);
   CHECK(wait_pixel(c, win, 63, 47, colors[2]), "%s: last frame not shown", how);
   CHECK(wait_pixel(c, win, 0, 0, 0xff00ff), "%s: top-left block missing", how);
   CHECK(wait_pixel(c, win, 7, 7, 0xff00ff) && wait_pixel(c, win, 8, 8, colors[2]),
         "%s: block edges", how);

   /* Resize: SUBOPTIMAL, then a new swapchain for the new size. */
   const uint32_t size[2] = { 82, 60 };
   xcb_configure_window(c->xc, win, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, size);
   free(xcb_get_input_focus_reply(c->xc, xcb_get_input_focus(c->xc), NULL));
   VkResult r = wsi_frames_while(&c->t, chain, c->acquired, c->rendered, c->done, 5, false,
                                 colors, 3, 0xff00ff);
   CHECK(r == VK_SUBOPTIMAL_KHR, "%s: after a resize: %d, expected VK_SUBOPTIMAL_KHR", how, r);
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, surface, &caps));
   CHECK(caps.currentExtent.width == 82 && caps.currentExtent.height == 60,
         "%s: currentExtent %ux%u after a resize", how, caps.currentExtent.width,
         caps.currentExtent.height);
   VkSwapchainKHR chain2;
   CHECK_VK(make_swapchain(c, surface, format, caps.currentExtent, chain, &chain2, &count));
   vkQueueWaitIdle(c->t.queue);
   vkDestroySwapchainKHR(c->t.device, chain, NULL);
   CHECK_VK(frame(c, chain2, 0x4080c0, 0x40c040));
   vkQueueWaitIdle(c->t.queue);
   CHECK(wait_pixel(c, win, 81, 59, 0x4080c0), "%s: the resized window is not filled", how);
   /* Rows where they belong: padded rows read as packed would shear the block. */
   CHECK(wait_pixel(c, win, 7, 7, 0x40c040) && wait_pixel(c, win, 8, 7, 0x4080c0) &&
         wait_pixel(c, win, 0, 8, 0x4080c0) && wait_pixel(c, win, 81, 0, 0x4080c0),
         "%s: the resized window's block is not where it was drawn", how);

   /* The window goes away. */
   xcb_destroy_window(c->xc, win);
   free(xcb_get_input_focus_reply(c->xc, xcb_get_input_focus(c->xc), NULL));
   static const uint32_t gray = 0x808080;
   r = wsi_frames_while(&c->t, chain2, c->acquired, c->rendered, c->done, 5, true, &gray, 1, 0);
   CHECK(r == VK_ERROR_SURFACE_LOST_KHR, "%s: window destroyed: %d, expected VK_ERROR_SURFACE_LOST_KHR",
         how, r);
   CHECK_EQ_INT(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, surface, &caps),
                VK_ERROR_SURFACE_LOST_KHR);
   vkQueueWaitIdle(c->t.queue);
   vkDestroySwapchainKHR(c->t.device, chain2, NULL);
   vkDestroySurfaceKHR(c->t.instance, surface, NULL);
   const int segments = own_shm_segments();
   CHECK(segments == 0, "%s: %d shared-memory segments left", how, segments);
   const long res1 = client_resources(c->xc, client);
   CHECK(res1 == res0, "%s: %ld X resources before the window, %ld after everything went", how,
         res0, res1);
   fprintf(stderr, "%s: X resources of the client: %ld, %ld with the window, %ld with a "
           "swapchain, %ld at the end\n", how, res0, res_window, res_chain, res1);
   fprintf(stderr, "%s: done\n", how);
}

/* IMMEDIATE (MIT-SHM images): the swapchain makes one image more than the
 * minImageCount asked for (sh_wsi.h: the shown image stays the engine's
 * until the next display), so while the engine shows one image the
 * application can hold two, acquired with timeout 0: six rounds of two
 * acquires, both images presented and the round's last frame waited for
 * in the window, every image acquired and presented at least twice (with
 * immediate_extra_images 0 the second acquire of the first round never
 * succeeds); frames reach the window; the swapchain's X resources (a GC,
 * a segment per image made) go with it. */
static void
test_immediate(struct ctx *c)
{
   setenv("SHALE_WSI_X11_NO_SHM", "0", 1);
   setenv("SHALE_WSI_X11_NO_SHM_IMAGES", "0", 1);
   VkDevice dev = c->t.device;
   const uint32_t client = xcb_get_setup(c->xc)->resource_id_base;
   const long res0 = client_resources(c->xc, client);
   xcb_window_t win = window_create(c->xc, 64, 48);
   PFN_vkCreateXcbSurfaceKHR create =
      (PFN_vkCreateXcbSurfaceKHR)vkGetInstanceProcAddr(c->t.instance, "vkCreateXcbSurfaceKHR");
   VkSurfaceKHR surface = VK_NULL_HANDLE;
   const VkXcbSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
      .connection = c->xc,
      .window = win,
   };
   CHECK(create != NULL, "vkCreateXcbSurfaceKHR");
   if (!create)
      return;
   CHECK_VK(create(c->t.instance, &sci, NULL, &surface));
   VkSurfaceCapabilitiesKHR caps;
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, surface, &caps));
   CHECK_EQ_INT(caps.minImageCount, 2);
   const long res_window = client_resources(c->xc, client);
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(surface, VK_FORMAT_B8G8R8A8_UNORM, (VkExtent2D){ 64, 48 }, 2,
                         VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_PRESENT_MODE_IMMEDIATE_KHR,
                         VK_NULL_HANDLE);
   VkSwapchainKHR chain;
   CHECK_VK(vkCreateSwapchainKHR(dev, &ci, NULL, &chain));
   VkImage images[8];
   uint32_t n = 8;
   CHECK_VK(vkGetSwapchainImagesKHR(dev, chain, &n, images));
   CHECK(n == 3, "IMMEDIATE, 2 images asked for: %u made, expected 3", n);
   const long res_chain = client_resources(c->xc, client);
   CHECK(res_chain == res_window + 1 + n, "IMMEDIATE: %ld X resources with the window, %ld with "
         "its swapchain of %u images (expected a GC and a segment per image)", res_window,
         res_chain, n);
   static const uint32_t colors[3] = { 0x336699, 0xcc8844, 0x20e040 };
   for (int k = 0; k < 3; k++)
      CHECK_VK(frame(c, chain, colors[k], 0xff00ff));
   vkQueueWaitIdle(c->t.queue);
   CHECK(wait_pixel(c, win, 63, 47, colors[2]), "IMMEDIATE: the third frame not shown");
   /* Two images held by the application (vkcube's two frames in flight)
    * while the engine shows a third: rounds of two acquires with timeout
    * 0, both presented, the round's last frame waited for in the window.
    * The image shown before the round's last was freed when the last's
    * display ended, which can come just after its pixels reach the
    * window: the second acquire polls (timeout 0, up to 2 s) for that.
    * With minImageCount images the engine's shown image leaves one. */
   VkSemaphore acquired2;
   wsi_semaphores_create(&c->t, &acquired2, 1);
   const VkSemaphore sems[2] = { c->acquired, acquired2 };
   uint32_t times[8] = { 0 };
   int rounds = 0, polls = 0;
   for (int round = 0; round < 6; round++) {
      uint32_t idx[2] = { UINT32_MAX, UINT32_MAX };
      VkResult r = vkAcquireNextImageKHR(dev, chain, 0, sems[0], VK_NULL_HANDLE, &idx[0]);
      CHECK(r == VK_SUCCESS && idx[0] < n, "IMMEDIATE round %d: first acquire %d, image %u",
            round, r, idx[0]);
      if (r != VK_SUCCESS || idx[0] >= n)
         break;
      const uint64_t until = wsi_now_ns() + 2000000000ull;
      while ((r = vkAcquireNextImageKHR(dev, chain, 0, sems[1], VK_NULL_HANDLE, &idx[1])) ==
                VK_NOT_READY && wsi_now_ns() < until) {
         polls++;
         usleep(1000);
      }
      CHECK(r == VK_SUCCESS && idx[1] < n && idx[1] != idx[0],
            "IMMEDIATE round %d: a second image not free while the engine shows a third "
            "(acquire %d, images %u and %u)", round, r, idx[0], idx[1]);
      const int held = r == VK_SUCCESS && idx[1] < n ? 2 : 1;
      const uint32_t color[2] = { 0x102030u * (uint32_t)(round + 1) & 0xffffff,
                                  0x405060u + 0x030201u * (uint32_t)round };
      for (int k = 0; k < held; k++) {
         CHECK_VK(wsi_fill_frame(&c->t, chain, idx[k], images[idx[k]], sems[k],
                                 c->rendered[idx[k]], c->done, color[k], 0xff00ff));
         times[idx[k]]++;
      }
      vkQueueWaitIdle(c->t.queue);
      CHECK(wait_pixel(c, win, 63, 47, color[held - 1]) && wait_pixel(c, win, 0, 0, 0xff00ff),
            "IMMEDIATE round %d: its last frame not shown", round);
      if (held < 2)
         break;
      rounds++;
   }
   for (uint32_t i = 0; i < n && i < 8; i++)
      CHECK(times[i] >= 2, "IMMEDIATE: image %u acquired with timeout 0 and presented %u times "
            "in %d rounds", i, times[i], rounds);
   fprintf(stderr, "IMMEDIATE: %d rounds of two images acquired with timeout 0 (%d polls of "
           "the second), each image %u, %u, %u times\n", rounds, polls, times[0], times[1],
           times[2]);
   vkDestroySwapchainKHR(dev, chain, NULL);
   vkDestroySurfaceKHR(c->t.instance, surface, NULL);
   wsi_semaphores_destroy(&c->t, &acquired2, 1);
   xcb_destroy_window(c->xc, win);
   const long res1 = client_resources(c->xc, client);
   CHECK(res1 == res0, "IMMEDIATE: %ld X resources before the window, %ld after everything "
         "went", res0, res1);
   CHECK_EQ_INT(own_shm_segments(), 0);
   fprintf(stderr, "IMMEDIATE: %u images for 2 asked for; done\n", n);
}

/* ---- allocation failures ---- */

struct fa_ctx {
   struct vkt t;
   Display *dpy;
   xcb_connection_t *xc;
   xcb_window_t win;
   VkSurfaceKHR surface, made_surface;
   VkSwapchainKHR made_chain;
   bool xlib;
};

/* What the X server holds for the presenting client (the xcb connection). */
static long
fa_x_resources(void *data)
{
   struct fa_ctx *f = data;
   return client_resources(f->xc, xcb_get_setup(f->xc)->resource_id_base);
}

static VkResult
fa_op_surface(void *data)
{
   struct fa_ctx *f = data;
   if (f->xlib) {
      PFN_vkCreateXlibSurfaceKHR create = (PFN_vkCreateXlibSurfaceKHR)vkGetInstanceProcAddr(
         f->t.instance, "vkCreateXlibSurfaceKHR");
      const VkXlibSurfaceCreateInfoKHR sci = {
         .sType = VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR,
         .dpy = f->dpy,
         .window = f->win,
      };
      return create(f->t.instance, &sci, wsi_fa_callbacks(), &f->made_surface);
   }
   PFN_vkCreateXcbSurfaceKHR create =
      (PFN_vkCreateXcbSurfaceKHR)vkGetInstanceProcAddr(f->t.instance, "vkCreateXcbSurfaceKHR");
   const VkXcbSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
      .connection = f->xc,
      .window = f->win,
   };
   return create(f->t.instance, &sci, wsi_fa_callbacks(), &f->made_surface);
}

static void
fa_undo_surface(void *data)
{
   struct fa_ctx *f = data;
   vkDestroySurfaceKHR(f->t.instance, f->made_surface, wsi_fa_callbacks());
}

static VkResult
fa_op_swapchain(void *data)
{
   struct fa_ctx *f = data;
   const VkSwapchainCreateInfoKHR ci = {
      .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
      .surface = f->surface,
      .minImageCount = 2,
      .imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
      .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
      .imageExtent = { 64, 48 },
      .imageArrayLayers = 1,
      .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
      .presentMode = VK_PRESENT_MODE_FIFO_KHR,
      .clipped = VK_TRUE,
   };
   return vkCreateSwapchainKHR(f->t.device, &ci, wsi_fa_callbacks(), &f->made_chain);
}

static void
fa_undo_swapchain(void *data)
{
   struct fa_ctx *f = data;
   vkDestroySwapchainKHR(f->t.device, f->made_chain, wsi_fa_callbacks());
}

static void
alloc_failures(xcb_connection_t *xc, Display *dpy)
{
   const char *inst[3] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_XCB_SURFACE_EXTENSION_NAME,
                           VK_KHR_XLIB_SURFACE_EXTENSION_NAME };
   const char *dev[1] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
   struct fa_ctx f = { .xc = xc, .dpy = dpy };
   const struct vkt_options opts = {
      .instance_extensions = inst,
      .instance_extension_count = 3,
      .device_extensions = dev,
      .device_extension_count = 1,
      .no_validation = true,
   };
   if (!vkt_init(&f.t, &opts)) {
      CHECK(false, "Shale without the layer");
      return;
   }
   f.win = window_create(xc, 64, 48);
   wsi_fa_sweep("vkCreateXcbSurfaceKHR", fa_op_surface, fa_undo_surface, &f, fa_x_resources);
   if (dpy) {
      f.xlib = true;
      wsi_fa_sweep("vkCreateXlibSurfaceKHR", fa_op_surface, fa_undo_surface, &f,
                   fa_x_resources);
      f.xlib = false;
   }
   PFN_vkCreateXcbSurfaceKHR create =
      (PFN_vkCreateXcbSurfaceKHR)vkGetInstanceProcAddr(f.t.instance, "vkCreateXcbSurfaceKHR");
   const VkXcbSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
      .connection = xc,
      .window = f.win,
   };
   CHECK_VK(create(f.t.instance, &sci, NULL, &f.surface));
   setenv("SHALE_WSI_X11_NO_SHM", "0", 1);
   setenv("SHALE_WSI_X11_NO_SHM_IMAGES", "0", 1);
   wsi_fa_sweep("vkCreateSwapchainKHR (xcb, MIT-SHM images)", fa_op_swapchain, fa_undo_swapchain, &f,
                fa_x_resources);
   setenv("SHALE_WSI_X11_NO_SHM_IMAGES", "1", 1);
   wsi_fa_sweep("vkCreateSwapchainKHR (xcb, MIT-SHM copy)", fa_op_swapchain, fa_undo_swapchain, &f,
                fa_x_resources);
   setenv("SHALE_WSI_X11_NO_SHM", "1", 1);
   wsi_fa_sweep("vkCreateSwapchainKHR (xcb, PutImage)", fa_op_swapchain, fa_undo_swapchain, &f,
                fa_x_resources);
   vkDestroySurfaceKHR(f.t.instance, f.surface, NULL);
   xcb_destroy_window(xc, f.win);
   vkt_finish(&f.t);
   const int segments = own_shm_segments();
   CHECK(segments == 0, "%d shared-memory segments left after the sweeps", segments);
}

int
main(void)
{
   xcb_connection_t *xc = xvfb_connect_or_skip();
   if (!xc)
      return check_finish();
   const int fds0 = check_open_fds();
   const char *x_exts[2] = { VK_KHR_XCB_SURFACE_EXTENSION_NAME, VK_KHR_XLIB_SURFACE_EXTENSION_NAME };
   struct ctx c = { .xc = xc, .dpy = XOpenDisplay(NULL) };
   CHECK(c.dpy != NULL, "XOpenDisplay");
   if (!wsi_vkt_init(&c.t, x_exts, 2)) {
      xvfb_stop();
      return check_finish();
   }
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   wsi_semaphores_create(&c.t, &c.acquired, 1);
   wsi_semaphores_create(&c.t, c.rendered, 8);
   CHECK_VK(vkCreateFence(c.t.device, &fci, NULL, &c.done));

   const int fds1 = check_open_fds();
   for (enum way w = SHM_IMAGES; w <= XLIB; w++) {
      if (w == XLIB && !c.dpy)
         continue;
      run(&c, w);
      CHECK_EQ_INT(check_open_fds(), fds1);
   }
   test_immediate(&c);
   CHECK_EQ_INT(check_open_fds(), fds1);
   alloc_failures(xc, c.dpy);
   CHECK_EQ_INT(check_open_fds(), fds1);

   wsi_semaphores_destroy(&c.t, &c.acquired, 1);
   wsi_semaphores_destroy(&c.t, c.rendered, 8);
   vkDestroyFence(c.t.device, c.done, NULL);
   vkt_finish(&c.t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   fprintf(stderr, "fds: %d before Vulkan, %d after\n", fds0, check_open_fds());
   if (c.dpy)
      XCloseDisplay(c.dpy);
   xcb_disconnect(xc);
   xvfb_stop();
   return check_finish();
}
