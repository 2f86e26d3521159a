/* Wayland presentation through the loader to a headless weston the test starts: frames, pixels, timeouts, leaks. */
/*
 * What is held here, for a VK_KHR_wayland_surface on an xdg_toplevel of a
 * weston 10 headless compositor (640x480 output, pixman renderer,
 * desktop-shell without animations or panel, the debug protocol on so that
 * weston_screenshooter may read the output):
 *  - vkGetPhysicalDeviceWaylandPresentationSupportKHR and
 *    vkGetPhysicalDeviceSurfaceSupportKHR say yes; currentExtent is
 *    0xFFFFFFFF (the client decides); B8G8R8A8 UNORM and SRGB and FIFO are
 *    offered;
 *  - 320x240 frames (B8G8R8A8_UNORM, R8G8B8A8_UNORM and B8G8R8A8_SRGB in
 *    FIFO, B8G8R8A8_UNORM again through the copy (SHALE_WSI_WAYLAND_NO_SHM_IMAGES=1),
 *    then MAILBOX, IMMEDIATE and FIFO_RELAXED) cleared to known
 *    colours (the last with an 8x8 block of another at its top left) and
 *    presented reach the compositor:
 *    a screenshot of the output shows the last frame's block, its edges and
 *    the window's four corners in its colour (for the sRGB images, the
 *    colour's sRGB encoding, within 1 in a channel: the compositor shows
 *    the stored bytes as they are); FIFO frames are paced (the 8th
 *    acquire from N images comes at least 7 - N refreshes of 60 Hz after
 *    the first);
 *  - with every image but the shown one acquired, acquire with timeout 0
 *    gives VK_NOT_READY and a 30 ms one VK_TIMEOUT after at least 30 ms;
 *  - B8G8R8A8 images are the compositor's buffers themselves (each image's
 *    memfd is open while the swapchain lives), and so are R8G8B8A8 ones
 *    where weston's wl_shm offers XBGR8888; other R8G8B8A8 ones and those
 *    under SHALE_WSI_WAYLAND_NO_SHM_IMAGES=1 are copied into a pool of
 *    Shale's (no fd kept);
 *  - after the swapchain and surface are destroyed the process has as many
 *    open fds as before the swapchain (its memfds are gone);
 *  - vkCreateWaylandSurfaceKHR and vkCreateSwapchainKHR honour pAllocator:
 *    failing the N-th allocation, for every N the call makes, returns
 *    VK_ERROR_OUT_OF_HOST_MEMORY with nothing left allocated and no fd
 *    open (without the validation layer, which allocates through the same
 *    callbacks);
 *  - once weston is killed, presents and then acquires return
 *    VK_ERROR_SURFACE_LOST_KHR;
 *  - no validation message.
 * xdg-shell rather than a bare wl_surface: weston maps (sends frame
 * callbacks to, and shows) only surfaces with a role, and wl_shell is not
 * built in Debian's weston 10. desktop-shell rather than kiosk-shell: under
 * kiosk-shell the headless output sent no frame callbacks to the toplevel.
 * The client code comes from wayland-scanner and wayland-protocols'
 * xdg-shell.xml at build time. The test skips (77) where weston is not
 * installed.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vulkan.h>

#include "check.h"
#include "vkt.h"
#include "wsi_util.h"


#define W 320
#define H 240
#define OW 640   /* the output */
#define OH 480

static pid_t weston_pid;
static char runtime_dir[64];

static void
weston_stop(void)
{
   if (weston_pid > 0) {
      kill(weston_pid, SIGTERM);
      waitpid(weston_pid, NULL, 0);
      weston_pid = 0;
   }
   if (runtime_dir[0]) {
      char cmd[160];
      if (check_failures) {
         snprintf(cmd, sizeof(cmd), "tail -n 30 '%s/weston.log' >&2", runtime_dir);
         if (system(cmd) != 0)
            fprintf(stderr, "no weston log\n");
      }
      snprintf(cmd, sizeof(cmd), "rm -rf '%s'", runtime_dir);
      if (system(cmd) != 0)
         fprintf(stderr, "could not remove %s\n", runtime_dir);
      runtime_dir[0] = 0;
   }
}

/* Starts weston headless on a socket of its own, in a private runtime
 * directory, and connects to it. */
static struct wl_display *
weston_start(void)
{
   if (access("/usr/bin/weston", X_OK) != 0)
      SKIP("weston is not installed (ci/setup.sh installs weston)");
   snprintf(runtime_dir, sizeof(runtime_dir), "/tmp/shale-wayland-XXXXXX");
   if (!mkdtemp(runtime_dir)) {
      runtime_dir[0] = 0;
      CHECK(false, "mkdtemp: %s", strerror(errno));
      return NULL;
   }
   setenv("XDG_RUNTIME_DIR", runtime_dir, 1);
   const char *socket = "shale-test";
   char log[128], ini[128], config[160];
   snprintf(log, sizeof(log), "%s/weston.log", runtime_dir);
   /* No animations (a fading window shows blended pixels), no panel. */
   snprintf(ini, sizeof(ini), "%s/weston.ini", runtime_dir);
   FILE *f = fopen(ini, "w");
   if (f) {
      fputs("[shell]\nanimation=none\nstartup-animation=none\nclose-animation=none\n"
            "focus-animation=none\npanel-position=none\nbackground-color=0xff000000\n", f);
      fclose(f);
   }
   snprintf(config, sizeof(config), "--config=%s", ini);
   weston_pid = fork();
   if (weston_pid == 0) {
      freopen("/dev/null", "w", stdout);
      freopen(log, "w", stderr);
      unsetenv("LD_PRELOAD");   /* the compositor is not ours (ci/sanitize.sh preloads ASan) */
      unsetenv("WAYLAND_DISPLAY");
      execl("/usr/bin/weston", "weston", "--backend=headless-backend.so", "--socket=shale-test",
            "--idle-time=3600", "--shell=desktop-shell.so", "--width=640", "--height=480", "--use-pixman", "--debug",
            config, (char *)NULL);
      _exit(127);
   }
   for (int i = 0; i < 200; i++) {
      struct wl_display *d = wl_display_connect(socket);
      if (d)
         return d;
      int status;
      if (waitpid(weston_pid, &status, WNOHANG) == weston_pid) {
         weston_pid = 0;
         break;
      }
      usleep(25000);
   }
   CHECK(false, "weston did not come up (see its log in %s)", log);
   weston_stop();
   return NULL;
}

/* ---- the window ---- */

struct win {
   struct wl_display *display;
   struct wl_registry *registry;
   struct wl_compositor *compositor;
   struct wl_shm *shm;
   struct wl_output *output;
   struct xdg_wm_base *wm;
   struct wl_proxy *shooter;   /* weston_screenshooter, when offered */
   struct wl_surface *surface;
   struct xdg_surface *xsurface;
   struct xdg_toplevel *toplevel;
   bool configured, shot;
   bool xbgr;                  /* weston's wl_shm offers XBGR8888 */
   int32_t cfg_w, cfg_h;
};

/* weston_screenshooter (weston's protocol/weston-screenshooter.xml):
 * shoot(output, buffer) fills an shm buffer with the output's pixels and
 * sends done. */
static const struct wl_interface *shooter_types[] = { &wl_output_interface, &wl_buffer_interface };
static const struct wl_message shooter_requests[] = { { "shoot", "oo", shooter_types } };
static const struct wl_message shooter_events[] = { { "done", "", NULL } };
static const struct wl_interface shooter_interface = {
   "weston_screenshooter", 1, 1, shooter_requests, 1, shooter_events,
};

static void
shooter_done(void *data, struct wl_proxy *shooter)
{
   ((struct win *)data)->shot = true;
}

static void (*const shooter_listener[])(void) = { (void (*)(void))shooter_done };

static void
wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
   xdg_wm_base_pong(wm, serial);
}

static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void
shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
   if (format == WL_SHM_FORMAT_XBGR8888)
      ((struct win *)data)->xbgr = true;
}

static const struct wl_shm_listener shm_listener = { shm_format };

static void
global(void *data, struct wl_registry *reg, uint32_t name, const char *iface, uint32_t version)
{
   struct win *w = data;
   if (!strcmp(iface, "wl_compositor")) {
      w->compositor = wl_registry_bind(reg, name, &wl_compositor_interface, 4);
   } else if (!strcmp(iface, "wl_shm")) {
      w->shm = wl_registry_bind(reg, name, &wl_shm_interface, 1);
      wl_shm_add_listener(w->shm, &shm_listener, w);
   } else if (!strcmp(iface, "wl_output") && !w->output)
      w->output = wl_registry_bind(reg, name, &wl_output_interface, 1);
   else if (!strcmp(iface, "xdg_wm_base")) {
      w->wm = wl_registry_bind(reg, name, &xdg_wm_base_interface, 1);
      xdg_wm_base_add_listener(w->wm, &wm_listener, w);
   } else if (!strcmp(iface, "weston_screenshooter")) {
      w->shooter = wl_registry_bind(reg, name, &shooter_interface, 1);
      wl_proxy_add_listener(w->shooter, (void (**)(void))shooter_listener, w);
   }
}

static void
global_remove(void *data, struct wl_registry *reg, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

static void
xsurface_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
   xdg_surface_ack_configure(xs, serial);
   ((struct win *)data)->configured = true;
}

static const struct xdg_surface_listener xsurface_listener = { xsurface_configure };

static void
toplevel_configure(void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *st)
{
   struct win *win = data;
   win->cfg_w = w;
   win->cfg_h = h;
}

static void
toplevel_close(void *data, struct xdg_toplevel *t)
{
}

static const struct xdg_toplevel_listener toplevel_listener = { toplevel_configure,
                                                                toplevel_close };

static bool
win_create(struct win *w, struct wl_display *d)
{
   w->display = d;
   w->registry = wl_display_get_registry(d);
   wl_registry_add_listener(w->registry, &registry_listener, w);
   wl_display_roundtrip(d);
   CHECK(w->compositor && w->shm && w->output && w->wm, "weston lacks a global the test needs");
   if (!(w->compositor && w->shm && w->output && w->wm))
      return false;
   w->surface = wl_compositor_create_surface(w->compositor);
   w->xsurface = xdg_wm_base_get_xdg_surface(w->wm, w->surface);
   xdg_surface_add_listener(w->xsurface, &xsurface_listener, w);
   w->toplevel = xdg_surface_get_toplevel(w->xsurface);
   xdg_toplevel_add_listener(w->toplevel, &toplevel_listener, w);
   xdg_toplevel_set_title(w->toplevel, "shale wsi_wayland");
   wl_surface_commit(w->surface);
   for (int i = 0; i < 100 && !w->configured; i++)
      wl_display_roundtrip(d);
   CHECK(w->configured, "no xdg_surface.configure");
   fprintf(stderr, "toplevel configured to %dx%d; wl_shm %s XBGR8888\n", w->cfg_w, w->cfg_h,
           w->xbgr ? "offers" : "does not offer");
   return w->configured;
}

static void
win_destroy(struct win *w)
{
   if (w->toplevel)
      xdg_toplevel_destroy(w->toplevel);
   if (w->xsurface)
      xdg_surface_destroy(w->xsurface);
   if (w->surface)
      wl_surface_destroy(w->surface);
   if (w->shooter)
      wl_proxy_destroy(w->shooter);
   if (w->wm)
      xdg_wm_base_destroy(w->wm);
   if (w->output)
      wl_output_destroy(w->output);
   if (w->shm)
      wl_shm_destroy(w->shm);
   if (w->compositor)
      wl_compositor_destroy(w->compositor);
   if (w->registry)
      wl_registry_destroy(w->registry);
   wl_display_roundtrip(w->display);
}

/* The output's pixels (W x H, 0xAARRGGBB words) through weston_screenshooter
 * into `out`; false where weston offers no screenshooter or it failed. */
static bool
screenshot(struct win *w, uint32_t *out, void (*kick)(void *), void *arg)
{
   if (!w->shooter)
      return false;
   const size_t size = (size_t)OW * OH * 4;
   int fd = memfd_create("shale-test-shot", MFD_CLOEXEC);
   if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
      if (fd >= 0)
         close(fd);
      return false;
   }
   void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
   struct wl_shm_pool *pool = wl_shm_create_pool(w->shm, fd, (int32_t)size);
   close(fd);
   struct wl_buffer *buf =
      wl_shm_pool_create_buffer(pool, 0, OW, OH, OW * 4, WL_SHM_FORMAT_ARGB8888);
   w->shot = false;
   wl_proxy_marshal_flags(w->shooter, 0, NULL, wl_proxy_get_version(w->shooter), 0, w->output,
                          buf);
   wl_display_flush(w->display);
   kick(arg);   /* a repaint takes the shot */
   for (int i = 0; i < 200 && !w->shot; i++) {   /* taken at the next repaint */
      if (wl_display_roundtrip(w->display) < 0)
         break;
      if (!w->shot)
         usleep(10000);
   }
   const bool ok = w->shot;
   if (ok)
      memcpy(out, map, size);
   wl_buffer_destroy(buf);
   wl_shm_pool_destroy(pool);
   munmap(map, size);
   return ok;
}

/* ---- Vulkan ---- */

struct ctx {
   struct vkt t;
   VkSemaphore acquired[8], rendered[8];
   VkFence done;
   VkImage images[8];
   uint32_t image_count;
};

/* One frame of chain (wsi_frame), acquired with c->acquired[slot]. */
static VkResult
frame(struct ctx *c, VkSwapchainKHR chain, uint32_t slot, uint32_t color, uint32_t corner)
{
   return wsi_frame(&c->t, chain, c->acquired[slot], c->rendered, c->done, color, corner);
}

static uint32_t
px(const uint32_t *shot, int x, int y)
{
   return shot[y * OW + x] & 0xffffff;
}

/* 0xRRGGBB's channels as a clear of an sRGB image stores them (the sRGB
 * encoding of c / 255, rounded). */
static uint32_t
srgb_bytes(uint32_t rgb)
{
   uint32_t out = 0;
   for (int sh = 0; sh < 24; sh += 8) {
      const double c = ((rgb >> sh) & 255) / 255.0;
      const double e = c <= 0.0031308 ? 12.92 * c : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
      out |= (uint32_t)lround(e * 255.0) << sh;
   }
   return out;
}

/* a and b (0xRRGGBB) differ by at most tol in every channel. */
static bool
near(uint32_t a, uint32_t b, int tol)
{
   for (int sh = 0; sh < 24; sh += 8) {
      if (abs((int)((a >> sh) & 255) - (int)((b >> sh) & 255)) > tol)
         return false;
   }
   return true;
}

struct kick {
   struct ctx *c;
   VkSwapchainKHR chain;
   uint32_t color;
};

/* The last frame again: damage that makes weston repaint. */
static void
kick_frame(void *arg)
{
   struct kick *k = arg;
   CHECK_VK(frame(k->c, k->chain, 0, k->color, 0xff00ff));
   CHECK_VK(vkQueueWaitIdle(k->c->t.queue));
}

static void
run(struct ctx *c, struct win *w, VkFormat format, VkPresentModeKHR mode)
{
   VkInstance inst = c->t.instance;
   PFN_vkGetPhysicalDeviceWaylandPresentationSupportKHR support =
      (PFN_vkGetPhysicalDeviceWaylandPresentationSupportKHR)vkGetInstanceProcAddr(
         inst, "vkGetPhysicalDeviceWaylandPresentationSupportKHR");
   PFN_vkCreateWaylandSurfaceKHR create =
      (PFN_vkCreateWaylandSurfaceKHR)vkGetInstanceProcAddr(inst, "vkCreateWaylandSurfaceKHR");
   CHECK(support && create, "Wayland entry points");
   if (!support || !create)
      return;
   CHECK(support(c->t.pdev, 0, w->display), "no Wayland presentation support");

   const VkWaylandSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
      .display = w->display,
      .surface = w->surface,
   };
   VkSurfaceKHR surface;
   CHECK_VK(create(inst, &sci, NULL, &surface));
   VkBool32 ok = VK_FALSE;
   CHECK_VK(vkGetPhysicalDeviceSurfaceSupportKHR(c->t.pdev, 0, surface, &ok));
   CHECK(ok, "no presentation support for the surface");
   VkSurfaceCapabilitiesKHR caps;
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, surface, &caps));
   CHECK(caps.currentExtent.width == 0xFFFFFFFFu && caps.currentExtent.height == 0xFFFFFFFFu,
         "currentExtent %ux%u", caps.currentExtent.width, caps.currentExtent.height);
   CHECK(caps.maxImageExtent.width >= W && caps.maxImageExtent.height >= H, "maxImageExtent");
   VkSurfaceFormatKHR formats[16];
   uint32_t nf = 16;
   CHECK_VK(vkGetPhysicalDeviceSurfaceFormatsKHR(c->t.pdev, surface, &nf, formats));
   bool unorm = false, srgb = false, asked = false;
   for (uint32_t i = 0; i < nf; i++) {
      unorm |= formats[i].format == VK_FORMAT_B8G8R8A8_UNORM;
      srgb |= formats[i].format == VK_FORMAT_B8G8R8A8_SRGB;
      asked |= formats[i].format == format;
   }
   CHECK(unorm && srgb && asked, "B8G8R8A8 UNORM and SRGB offered, and format %d", format);
   VkPresentModeKHR modes[8];
   uint32_t nm = 8;
   bool fifo = false, asked_mode = false;
   CHECK_VK(vkGetPhysicalDeviceSurfacePresentModesKHR(c->t.pdev, surface, &nm, modes));
   for (uint32_t i = 0; i < nm; i++) {
      fifo |= modes[i] == VK_PRESENT_MODE_FIFO_KHR;
      asked_mode |= modes[i] == mode;
   }
   CHECK(fifo && asked_mode, "FIFO and mode %d offered", mode);

   const int fds0 = check_open_fds();
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(surface, format, (VkExtent2D){ W, H }, caps.minImageCount,
                         VK_IMAGE_USAGE_TRANSFER_DST_BIT, mode, VK_NULL_HANDLE);
   fprintf(stderr, "format %d, present mode %d\n", format, mode);
   VkSwapchainKHR chain;
   CHECK_VK(vkCreateSwapchainKHR(c->t.device, &ci, NULL, &chain));
   c->image_count = 8;
   CHECK_VK(vkGetSwapchainImagesKHR(c->t.device, chain, &c->image_count, c->images));
   CHECK(c->image_count >= 2 && c->image_count <= 6, "%u images", c->image_count);
   /* Which way the pixels go: a buffer in each image keeps each image's
    * memfd open; the copy's pool keeps none (its fd went once sent). */
   const char *no_images = getenv("SHALE_WSI_WAYLAND_NO_SHM_IMAGES");
   const bool copy = (format == VK_FORMAT_R8G8B8A8_UNORM && !w->xbgr) ||
                     (no_images && !strcmp(no_images, "1"));
   CHECK(check_open_fds() == fds0 + (copy ? 0 : (int)c->image_count),
         "%d fds with the swapchain of %u images, %d before (%s)", check_open_fds(),
         c->image_count, fds0, copy ? "a copy into wl_shm buffers" : "wl_shm buffers in the images");
   if (c->image_count < 2 || c->image_count > 6) {
      vkDestroySwapchainKHR(c->t.device, chain, NULL);
      vkDestroySurfaceKHR(inst, surface, NULL);
      return;
   }

   /* FIFO frames, paced. */
   static const uint32_t colors[4] = { 0x336699, 0xcc8844, 0x20e040, 0x4080c0 };
   /* Each run ends on another colour: a run's shot never shows the last. */
   static int runs;
   const int shift = runs++;
   const uint64_t t0 = wsi_now_ns();
   for (int k = 0; k < 8; k++)
      CHECK_VK(frame(c, chain, 0, colors[(k + shift) % 4], k == 7 ? 0xff00ff : 0x000000));
   /* The 8th acquire of N images needed 8 - N images shown, one a
    * refresh (60 Hz, and the frame callbacks). */
   const uint64_t took = wsi_now_ns() - t0;
   const uint64_t periods = 7 - c->image_count;
   if (mode == VK_PRESENT_MODE_FIFO_KHR)
      CHECK(took >= periods * 1000000000ull / 60 - 2000000ull, "8 FIFO frames in %.1f ms",
            took / 1e6);
   fprintf(stderr, "8 frames (%u images) in %.1f ms\n", c->image_count, took / 1e6);

   /* The output's pixels: the last frame, found by its top-left block
    * (desktop-shell places the toplevel). The shot is taken at weston's
    * next repaint, which presenting the last frame again brings. */
   static uint32_t shot[OW * OH];
   const uint32_t cleared = colors[(7 + shift) % 4];
   struct kick k = { c, chain, cleared };
   /* What the output shows: the stored bytes (sRGB images: the encoding). */
   const bool srgb_image = format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_R8G8B8A8_SRGB;
   const uint32_t want = srgb_image ? srgb_bytes(cleared) : cleared;
   const int tol = srgb_image ? 1 : 0;
   usleep(200000);   /* FIFO shows the last frame within a few refreshes */
   bool shot_ok = screenshot(w, shot, kick_frame, &k);
   if (shot_ok) {
      int bx = -1, by = -1;
      for (int y = 0; y < OH && bx < 0; y++)
         for (int x = 0; x < OW; x++)
            if (px(shot, x, y) == 0xff00ff) {
               bx = x;
               by = y;
               break;
            }
      fprintf(stderr, "the window's top-left block at (%d, %d) of the output\n", bx, by);
      if (bx < 0) {
         for (int y = 0; y < OH; y += 40) {
            for (int x = 0; x < OW; x += 40)
               fprintf(stderr, " %06x", px(shot, x, y));
            fprintf(stderr, "\n");
         }
      }
      CHECK(bx >= 0 && bx + W <= OW && by + H <= OH, "window not (wholly) on the output");
      if (bx >= 0 && bx + W <= OW && by + H <= OH) {
         CHECK(px(shot, bx + 7, by + 7) == 0xff00ff, "block %06x", px(shot, bx + 7, by + 7));
         CHECK(near(px(shot, bx + 8, by + 8), want, tol) && near(px(shot, bx + 8, by), want, tol) &&
                  near(px(shot, bx, by + 8), want, tol),
               "block edges %06x %06x %06x, expected %06x", px(shot, bx + 8, by + 8),
               px(shot, bx + 8, by), px(shot, bx, by + 8), want);
         CHECK(near(px(shot, bx + W - 1, by + H - 1), want, tol),
               "bottom-right %06x, expected %06x", px(shot, bx + W - 1, by + H - 1), want);
         CHECK(near(px(shot, bx + W - 1, by), want, tol), "top-right %06x",
               px(shot, bx + W - 1, by));
         CHECK(near(px(shot, bx, by + H - 1), want, tol), "bottom-left %06x",
               px(shot, bx, by + H - 1));
      }
   } else {
      CHECK(false, "weston_screenshooter gave no screenshot");
   }

   /* Every image but the shown one acquired: NOT_READY, then TIMEOUT. */
   uint32_t idx, held = 0;
   for (;;) {
      /* The last frame may still wait for its refresh. */
      VkResult r = vkAcquireNextImageKHR(c->t.device, chain,
                                         held < c->image_count - 1 ? 1000000000ull : 0,
                                         c->acquired[1 + held], VK_NULL_HANDLE, &idx);
      if (r != VK_SUCCESS) {
         CHECK_EQ_INT(r, VK_NOT_READY);
         break;
      }
      held++;
   }
   CHECK(held == c->image_count - 1, "%u of %u images acquired", held, c->image_count);
   CHECK_EQ_INT(vkAcquireNextImageKHR(c->t.device, chain, 0, c->acquired[7], VK_NULL_HANDLE,
                                      &idx),
                VK_NOT_READY);
   const uint64_t t1 = wsi_now_ns();
   CHECK_EQ_INT(vkAcquireNextImageKHR(c->t.device, chain, 30000000ull, c->acquired[7],
                                      VK_NULL_HANDLE, &idx),
                VK_TIMEOUT);
   const uint64_t waited = wsi_now_ns() - t1;
   CHECK(waited >= 30000000ull, "VK_TIMEOUT after %llu ns", (unsigned long long)waited);

   /* The acquire semaphores were signalled and never waited: a submit
    * waiting them all leaves them unsignalled before destruction. */
   VkPipelineStageFlags stages[8];
   for (int i = 0; i < 8; i++)
      stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
   const VkSubmitInfo drain = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphoreCount = held,
      .pWaitSemaphores = &c->acquired[1],
      .pWaitDstStageMask = stages,
   };
   CHECK_VK(vkQueueSubmit(c->t.queue, 1, &drain, VK_NULL_HANDLE));
   CHECK_VK(vkQueueWaitIdle(c->t.queue));
   vkDestroySwapchainKHR(c->t.device, chain, NULL);
   vkDestroySurfaceKHR(inst, surface, NULL);
   wl_display_roundtrip(w->display);
   CHECK_EQ_INT(check_open_fds(), fds0);
}

/* ---- allocation failures ---- */

struct fa_ctx {
   struct vkt t;
   struct win *w;
   VkSurfaceKHR surface, made_surface;
   VkSwapchainKHR made_chain;
};

static VkResult
fa_op_surface(void *data)
{
   struct fa_ctx *f = data;
   PFN_vkCreateWaylandSurfaceKHR create = (PFN_vkCreateWaylandSurfaceKHR)vkGetInstanceProcAddr(
      f->t.instance, "vkCreateWaylandSurfaceKHR");
   const VkWaylandSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
      .display = f->w->display,
      .surface = f->w->surface,
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
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(f->surface, VK_FORMAT_B8G8R8A8_UNORM, (VkExtent2D){ W, H }, 2, 0,
                         VK_PRESENT_MODE_FIFO_KHR, VK_NULL_HANDLE);
   return vkCreateSwapchainKHR(f->t.device, &ci, wsi_fa_callbacks(), &f->made_chain);
}

static void
fa_undo_swapchain(void *data)
{
   struct fa_ctx *f = data;
   vkDestroySwapchainKHR(f->t.device, f->made_chain, wsi_fa_callbacks());
   /* The compositor's answers to the swapchain's last requests. */
   wl_display_roundtrip(f->w->display);
}

/* Surface and swapchain creation under allocation failures, on a device
 * without the validation layer. */
static void
alloc_failures(struct win *w)
{
   const char *inst[2] = { VK_KHR_SURFACE_EXTENSION_NAME, VK_KHR_WAYLAND_SURFACE_EXTENSION_NAME };
   const char *dev[1] = { VK_KHR_SWAPCHAIN_EXTENSION_NAME };
   struct fa_ctx f = { .w = w };
   const struct vkt_options opts = {
      .instance_extensions = inst,
      .instance_extension_count = 2,
      .device_extensions = dev,
      .device_extension_count = 1,
      .no_validation = true,
   };
   if (!vkt_init(&f.t, &opts)) {
      CHECK(false, "Shale without the layer");
      return;
   }
   wsi_fa_sweep("vkCreateWaylandSurfaceKHR", fa_op_surface, fa_undo_surface, &f, NULL);
   PFN_vkCreateWaylandSurfaceKHR create = (PFN_vkCreateWaylandSurfaceKHR)vkGetInstanceProcAddr(
      f.t.instance, "vkCreateWaylandSurfaceKHR");
   const VkWaylandSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
      .display = w->display,
      .surface = w->surface,
   };
   CHECK_VK(create(f.t.instance, &sci, NULL, &f.surface));
   wsi_fa_sweep("vkCreateSwapchainKHR (Wayland)", fa_op_swapchain, fa_undo_swapchain, &f, NULL);
   vkDestroySurfaceKHR(f.t.instance, f.surface, NULL);
   vkt_finish(&f.t);
}

/* The compositor goes away: presents and acquires report
 * VK_ERROR_SURFACE_LOST_KHR. */
static void
lost(struct ctx *c, struct win *w)
{
   PFN_vkCreateWaylandSurfaceKHR create = (PFN_vkCreateWaylandSurfaceKHR)vkGetInstanceProcAddr(
      c->t.instance, "vkCreateWaylandSurfaceKHR");
   if (!create)
      return;
   const VkWaylandSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
      .display = w->display,
      .surface = w->surface,
   };
   VkSurfaceKHR surface;
   CHECK_VK(create(c->t.instance, &sci, NULL, &surface));
   VkSurfaceCapabilitiesKHR caps;
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, surface, &caps));
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(surface, VK_FORMAT_B8G8R8A8_UNORM, (VkExtent2D){ W, H }, caps.minImageCount,
                         VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_PRESENT_MODE_FIFO_KHR, VK_NULL_HANDLE);
   VkSwapchainKHR chain;
   CHECK_VK(vkCreateSwapchainKHR(c->t.device, &ci, NULL, &chain));
   c->image_count = 8;
   CHECK_VK(vkGetSwapchainImagesKHR(c->t.device, chain, &c->image_count, c->images));
   CHECK_VK(frame(c, chain, 0, 0x102030, 0));
   CHECK_VK(vkQueueWaitIdle(c->t.queue));
   kill(weston_pid, SIGKILL);
   waitpid(weston_pid, NULL, 0);
   weston_pid = 0;
   static const uint32_t gray = 0x808080;
   VkResult r = wsi_frames_while(&c->t, chain, c->acquired[0], c->rendered, c->done, 10, false,
                                 &gray, 1, 0);
   CHECK(r == VK_ERROR_SURFACE_LOST_KHR, "compositor gone: %d, expected VK_ERROR_SURFACE_LOST_KHR",
         r);
   uint32_t idx;
   CHECK_EQ_INT(vkAcquireNextImageKHR(c->t.device, chain, 0, c->acquired[1], VK_NULL_HANDLE, &idx),
                VK_ERROR_SURFACE_LOST_KHR);
   vkQueueWaitIdle(c->t.queue);
   vkDestroySwapchainKHR(c->t.device, chain, NULL);
   vkDestroySurfaceKHR(c->t.instance, surface, NULL);
}

int
main(void)
{
   struct wl_display *display = weston_start();
   if (!display)
      return check_finish();
   struct win w = { 0 };
   if (!win_create(&w, display)) {
      win_destroy(&w);
      wl_display_disconnect(display);
      weston_stop();
      return check_finish();
   }
   const char *wl_ext = VK_KHR_WAYLAND_SURFACE_EXTENSION_NAME;
   struct ctx c = { 0 };
   if (!wsi_vkt_init(&c.t, &wl_ext, 1)) {
      weston_stop();
      return check_finish();
   }
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   wsi_semaphores_create(&c.t, c.acquired, 8);
   wsi_semaphores_create(&c.t, c.rendered, 8);
   CHECK_VK(vkCreateFence(c.t.device, &fci, NULL, &c.done));

   const int fds0 = check_open_fds();
   run(&c, &w, VK_FORMAT_B8G8R8A8_UNORM, VK_PRESENT_MODE_FIFO_KHR);
   run(&c, &w, VK_FORMAT_R8G8B8A8_UNORM, VK_PRESENT_MODE_FIFO_KHR);   /* XBGR8888 where offered */
   run(&c, &w, VK_FORMAT_B8G8R8A8_SRGB, VK_PRESENT_MODE_FIFO_KHR);
   setenv("SHALE_WSI_WAYLAND_NO_SHM_IMAGES", "1", 1);   /* the copy for B8G8R8A8 too */
   run(&c, &w, VK_FORMAT_B8G8R8A8_UNORM, VK_PRESENT_MODE_FIFO_KHR);
   unsetenv("SHALE_WSI_WAYLAND_NO_SHM_IMAGES");
   run(&c, &w, VK_FORMAT_B8G8R8A8_UNORM, VK_PRESENT_MODE_MAILBOX_KHR);
   run(&c, &w, VK_FORMAT_B8G8R8A8_UNORM, VK_PRESENT_MODE_IMMEDIATE_KHR);
   run(&c, &w, VK_FORMAT_B8G8R8A8_UNORM, VK_PRESENT_MODE_FIFO_RELAXED_KHR);
   alloc_failures(&w);
   CHECK_EQ_INT(check_open_fds(), fds0);
   lost(&c, &w);
   CHECK_EQ_INT(check_open_fds(), fds0);

   wsi_semaphores_destroy(&c.t, c.acquired, 8);
   wsi_semaphores_destroy(&c.t, c.rendered, 8);
   vkDestroyFence(c.t.device, c.done, NULL);
   vkt_finish(&c.t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   win_destroy(&w);
   wl_display_disconnect(display);
   weston_stop();
   return check_finish();
}
