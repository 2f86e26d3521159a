/* VK_KHR_xcb_surface and VK_KHR_xlib_surface: X11 windows through libxcb loaded at run time; MIT-SHM or PutImage (sh_wsi.h). */
#ifdef VK_USE_PLATFORM_XCB_KHR

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include "driver/sd_alloc.h"
#include "driver/sd_entrypoints.h"
#include "driver/sd_instance.h"
#include "driver/sd_util.h"
#include "sh_wsi.h"
#include "util/su_log.h"

/* MIT-SHM requests as libxcb-shm sends them (its headers are not needed). */
typedef uint32_t sh_xcb_shm_seg_t;

/* The libxcb (and libxcb-shm) functions Shale calls, from dlopen. */
static struct {
   bool loaded, shm;
   xcb_connection_t *(*get_xcb_connection)(Display *);   /* libX11-xcb, for Xlib surfaces */
   uint32_t (*generate_id)(xcb_connection_t *);
   int (*flush)(xcb_connection_t *);
   uint32_t (*get_maximum_request_length)(xcb_connection_t *);
   xcb_generic_error_t *(*request_check)(xcb_connection_t *, xcb_void_cookie_t);
   const xcb_query_extension_reply_t *(*get_extension_data)(xcb_connection_t *, xcb_extension_t *);
   xcb_get_geometry_cookie_t (*get_geometry)(xcb_connection_t *, xcb_drawable_t);
   xcb_get_geometry_reply_t *(*get_geometry_reply)(xcb_connection_t *, xcb_get_geometry_cookie_t,
                                                   xcb_generic_error_t **);
   xcb_void_cookie_t (*create_gc_checked)(xcb_connection_t *, xcb_gcontext_t, xcb_drawable_t,
                                          uint32_t, const void *);
   xcb_void_cookie_t (*free_gc)(xcb_connection_t *, xcb_gcontext_t);
   xcb_void_cookie_t (*put_image_checked)(xcb_connection_t *, uint8_t, xcb_drawable_t,
                                          xcb_gcontext_t, uint16_t, uint16_t, int16_t, int16_t,
                                          uint8_t, uint8_t, uint32_t, const uint8_t *);
   xcb_extension_t *shm_id;
   xcb_void_cookie_t (*shm_attach_checked)(xcb_connection_t *, sh_xcb_shm_seg_t, uint32_t, uint8_t);
   xcb_void_cookie_t (*shm_detach_checked)(xcb_connection_t *, sh_xcb_shm_seg_t);
   /* MIT-SHM 1.2 (libxcb-shm built with fd passing); NULL where absent. */
   xcb_void_cookie_t (*shm_attach_fd_checked)(xcb_connection_t *, sh_xcb_shm_seg_t, int32_t,
                                              uint8_t);
   xcb_void_cookie_t (*shm_put_image_checked)(xcb_connection_t *, xcb_drawable_t, xcb_gcontext_t,
                                              uint16_t, uint16_t, uint16_t, uint16_t, uint16_t,
                                              uint16_t, int16_t, int16_t, uint8_t, uint8_t,
                                              uint8_t, sh_xcb_shm_seg_t, uint32_t);
} sh_xcb;

static pthread_once_t sh_xcb_once = PTHREAD_ONCE_INIT;

/* The application has libxcb loaded already (it made the connection); the
 * libraries stay loaded for the life of the process. */
static void
sh_xcb_load_once(void)
{
   void *xcb = dlopen("libxcb.so.1", RTLD_NOW | RTLD_LOCAL);
   if (!xcb) {
      su_log("cannot load libxcb.so.1: %s", dlerror());
      return;
   }
#define L(lib, field, name)                                                     \
   do {                                                                         \
      *(void **)&sh_xcb.field = dlsym(lib, name);                               \
      ok &= sh_xcb.field != NULL;                                               \
   } while (0)
   bool ok = true;
   L(xcb, generate_id, "xcb_generate_id");
   L(xcb, flush, "xcb_flush");
   L(xcb, get_maximum_request_length, "xcb_get_maximum_request_length");
   L(xcb, request_check, "xcb_request_check");
   L(xcb, get_extension_data, "xcb_get_extension_data");
   L(xcb, get_geometry, "xcb_get_geometry");
   L(xcb, get_geometry_reply, "xcb_get_geometry_reply");
   L(xcb, create_gc_checked, "xcb_create_gc_checked");
   L(xcb, free_gc, "xcb_free_gc");
   L(xcb, put_image_checked, "xcb_put_image_checked");
   if (!ok) {
      su_log("libxcb.so.1 lacks a function Shale needs");
      return;
   }
   sh_xcb.loaded = true;
   void *shm = dlopen("libxcb-shm.so.0", RTLD_NOW | RTLD_LOCAL);
   if (shm) {
      L(shm, shm_id, "xcb_shm_id");
      L(shm, shm_attach_checked, "xcb_shm_attach_checked");
      L(shm, shm_detach_checked, "xcb_shm_detach_checked");
      L(shm, shm_put_image_checked, "xcb_shm_put_image_checked");
      sh_xcb.shm = ok;
      *(void **)&sh_xcb.shm_attach_fd_checked = dlsym(shm, "xcb_shm_attach_fd_checked");
   }
#ifdef VK_USE_PLATFORM_XLIB_KHR
   /* An Xlib application has libX11 (and so libX11-xcb's library) at hand. */
   void *x11xcb = dlopen("libX11-xcb.so.1", RTLD_NOW | RTLD_LOCAL);
   if (x11xcb)
      *(void **)&sh_xcb.get_xcb_connection = dlsym(x11xcb, "XGetXCBConnection");
#endif
#undef L
}

static bool
sh_xcb_load(void)
{
   pthread_once(&sh_xcb_once, sh_xcb_load_once);
   return sh_xcb.loaded;
}

__attribute__((constructor)) static void
sh_wsi_x11_register(void)
{
   sd_instance_extensions_supported.KHR_xcb_surface = true;
#ifdef VK_USE_PLATFORM_XLIB_KHR
   sd_instance_extensions_supported.KHR_xlib_surface = true;
#endif
}

/* The surface's window on an xcb connection (an Xlib display's own); false
 * when there is none to be had. */
static bool
sh_x11_target(const struct sh_surface *s, xcb_connection_t **conn, xcb_window_t *window)
{
   if (!sh_xcb_load())
      return false;
#ifdef VK_USE_PLATFORM_XLIB_KHR
   if (s->base.platform == VK_ICD_WSI_PLATFORM_XLIB) {
      if (!sh_xcb.get_xcb_connection)
         return false;
      *conn = sh_xcb.get_xcb_connection(s->xlib.dpy);
      *window = (xcb_window_t)s->xlib.window;
      return *conn != NULL;
   }
#endif
   *conn = s->xcb.connection;
   *window = s->xcb.window;
   return true;
}

#ifdef VK_USE_PLATFORM_XLIB_KHR
VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateXlibSurfaceKHR(VkInstance _instance, const VkXlibSurfaceCreateInfoKHR *pCreateInfo,
                        const VkAllocationCallbacks *pAllocator, VkSurfaceKHR *pSurface)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   struct sh_surface *s = sh_surface_alloc(instance, pAllocator, VK_ICD_WSI_PLATFORM_XLIB);
   if (!s)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   s->xlib.dpy = pCreateInfo->dpy;
   s->xlib.window = pCreateInfo->window;
   *pSurface = (VkSurfaceKHR)(uintptr_t)s;
   return VK_SUCCESS;
}

VKAPI_ATTR VkBool32 VKAPI_CALL
sd_GetPhysicalDeviceXlibPresentationSupportKHR(VkPhysicalDevice physicalDevice,
                                               uint32_t queueFamilyIndex, Display *dpy,
                                               VisualID visualID)
{
   return queueFamilyIndex == 0 && sh_xcb_load() && sh_xcb.get_xcb_connection;
}
#endif

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateXcbSurfaceKHR(VkInstance _instance, const VkXcbSurfaceCreateInfoKHR *pCreateInfo,
                       const VkAllocationCallbacks *pAllocator, VkSurfaceKHR *pSurface)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   struct sh_surface *s = sh_surface_alloc(instance, pAllocator, VK_ICD_WSI_PLATFORM_XCB);
   if (!s)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   s->xcb.connection = pCreateInfo->connection;
   s->xcb.window = pCreateInfo->window;
   *pSurface = (VkSurfaceKHR)(uintptr_t)s;
   return VK_SUCCESS;
}

/* One queue family, and it presents to any TrueColor visual of depth 24 or
 * 32 (what X servers give windows). */
VKAPI_ATTR VkBool32 VKAPI_CALL
sd_GetPhysicalDeviceXcbPresentationSupportKHR(VkPhysicalDevice physicalDevice,
                                              uint32_t queueFamilyIndex,
                                              xcb_connection_t *connection,
                                              xcb_visualid_t visual_id)
{
   return queueFamilyIndex == 0 && sh_xcb_load();
}

/* The window's geometry, or NULL when the window is gone. */
static xcb_get_geometry_reply_t *
sh_xcb_geometry(xcb_connection_t *conn, xcb_window_t window)
{
   xcb_generic_error_t *err = NULL;
   xcb_get_geometry_reply_t *g =
      sh_xcb.get_geometry_reply(conn, sh_xcb.get_geometry(conn, window), &err);
   free(err);
   return g;
}

/* The window decides the extent: currentExtent is its size, and only that. */
static VkResult
sh_xcb_capabilities(struct sh_surface *surface, VkSurfaceCapabilitiesKHR *caps)
{
   xcb_connection_t *conn;
   xcb_window_t window;
   if (!sh_x11_target(surface, &conn, &window))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "libxcb (or libX11-xcb) could not be loaded");
   xcb_get_geometry_reply_t *g = sh_xcb_geometry(conn, window);
   if (!g)
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "the X window is gone");
   caps->currentExtent = (VkExtent2D) { g->width, g->height };
   caps->minImageExtent = caps->currentExtent;
   caps->maxImageExtent = caps->currentExtent;
   free(g);
   return VK_SUCCESS;
}

/* How a swapchain's images reach the window, cheapest first. */
enum sh_xcb_path {
   SH_XCB_NONE,        /* before images_ready: nothing made but the GC */
   SH_XCB_SHM_IMAGES,  /* each image's memfd is an MIT-SHM segment: ShmPutImage from it */
   SH_XCB_SHM_COPY,    /* one SysV segment the image is copied into: ShmPutImage */
   SH_XCB_PUT_IMAGE,   /* host memory the image is copied into: PutImage requests */
};

/* A swapchain's window, GC, and what the server reads the pixels from. */
struct sh_xcb_chain {
   xcb_connection_t *conn;
   xcb_window_t window;
   xcb_gcontext_t gc;
   uint8_t depth;
   bool swap_rb;              /* R8G8B8A8 images on a BGRX visual */
   bool want_shm;             /* MIT-SHM offered and not turned off */
   uint32_t width, height;
   enum sh_xcb_path path;
   uint8_t *staging;          /* SHM_COPY, PUT_IMAGE: width * height * 4 bytes, rows packed */
   sh_xcb_shm_seg_t seg;      /* SHM_COPY */
   uint32_t image_count;      /* SHM_IMAGES: image_segs[i] is image i's segment, */
   sh_xcb_shm_seg_t *image_segs;
   uint64_t *image_offsets;   /* its texel (0, 0) at this offset in it */
   /* The last display's put and geometry request, whose reply has not been
    * read yet (sh_xcb_settle). */
   bool in_flight;
   xcb_void_cookie_t put;
   xcb_get_geometry_cookie_t geometry;
};

static bool
sh_env_set(const char *name)
{
   const char *env = getenv(name);
   return env && *env && strcmp(env, "0");
}

/* SHALE_WSI_X11_NO_SHM=1 sends every image with PutImage. */
static bool
sh_xcb_shm_wanted(xcb_connection_t *conn)
{
   if (sh_env_set("SHALE_WSI_X11_NO_SHM") || !sh_xcb.shm)
      return false;
   const xcb_query_extension_reply_t *ext = sh_xcb.get_extension_data(conn, sh_xcb.shm_id);
   return ext && ext->present;
}

/* Attaches a SysV segment of width * height * 4 bytes as the staging image;
 * false (nothing left behind) when the server cannot use it (a remote
 * server, no SysV shm). */
static bool
sh_xcb_shm_attach_staging(struct sh_xcb_chain *xc)
{
   const size_t size = (size_t)xc->width * xc->height * 4;
   int shmid = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);
   if (shmid < 0)
      return false;
   void *addr = shmat(shmid, NULL, 0);
   if (addr == (void *)-1) {
      shmctl(shmid, IPC_RMID, NULL);
      return false;
   }
   xc->seg = sh_xcb.generate_id(xc->conn);
   xcb_generic_error_t *err =
      sh_xcb.request_check(xc->conn, sh_xcb.shm_attach_checked(xc->conn, xc->seg, shmid, 1));
   /* Attached or not, the id goes once both sides detach. */
   shmctl(shmid, IPC_RMID, NULL);
   if (err) {
      free(err);
      shmdt(addr);
      return false;
   }
   xc->staging = addr;
   return true;
}

/* Detaches the first n image segments; waits for the server to have done
 * so (the last detach is checked), so they are gone on return. */
static void
sh_xcb_detach_images(struct sh_xcb_chain *xc, uint32_t n)
{
   for (uint32_t i = 0; i < n; i++) {
      xcb_void_cookie_t c = sh_xcb.shm_detach_checked(xc->conn, xc->image_segs[i]);
      free(sh_xcb.request_check(xc->conn, c));
   }
}

/* Attaches every image's memfd as a segment (MIT-SHM 1.2, ShmAttachFd);
 * false (nothing left behind) when the server refuses one. A round trip
 * each, at creation only. */
static bool
sh_xcb_shm_attach_images(struct sh_swapchain *chain, struct sh_xcb_chain *xc)
{
   for (uint32_t i = 0; i < xc->image_count; i++) {
      int fd = sh_swapchain_image_fd(chain, i, &xc->image_offsets[i]);
      xcb_generic_error_t *err = NULL;
      if (fd >= 0) {
         xc->image_segs[i] = sh_xcb.generate_id(xc->conn);
         /* libxcb closes the fd once it is sent. */
         err = sh_xcb.request_check(
            xc->conn, sh_xcb.shm_attach_fd_checked(xc->conn, xc->image_segs[i], fd, 1));
      }
      if (fd < 0 || err) {
         free(err);
         sh_xcb_detach_images(xc, i);
         return false;
      }
   }
   return true;
}

static VkResult
sh_xcb_init(struct sh_swapchain *chain, struct sh_surface *surface)
{
   xcb_connection_t *conn;
   xcb_window_t window;
   if (!sh_x11_target(surface, &conn, &window))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "libxcb (or libX11-xcb) could not be loaded");
   const VkAllocationCallbacks *alloc = sh_swapchain_alloc(chain);
   const uint32_t count = sh_swapchain_image_count(chain);
   struct sh_xcb_chain *xc = sd_zalloc(alloc, sizeof(*xc) + count * (sizeof(sh_xcb_shm_seg_t) +
                                                                     sizeof(uint64_t)),
                                       SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!xc)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   xc->conn = conn;
   xc->window = window;
   xc->image_count = count;
   xc->image_offsets = (uint64_t *)(xc + 1);
   xc->image_segs = (sh_xcb_shm_seg_t *)(xc->image_offsets + count);
   const VkExtent2D extent = sh_swapchain_extent(chain);
   xc->width = extent.width;
   xc->height = extent.height;
   const VkFormat format = sh_swapchain_format(chain);
   xc->swap_rb = format == VK_FORMAT_R8G8B8A8_UNORM || format == VK_FORMAT_R8G8B8A8_SRGB;

   xcb_get_geometry_reply_t *g = sh_xcb_geometry(xc->conn, xc->window);
   if (!g) {
      sd_free(alloc, xc);
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "the X window is gone");
   }
   xc->depth = g->depth;
   free(g);
   xc->gc = sh_xcb.generate_id(xc->conn);
   xcb_generic_error_t *err =
      sh_xcb.request_check(xc->conn, sh_xcb.create_gc_checked(xc->conn, xc->gc, xc->window, 0, NULL));
   if (err) {
      free(err);
      sd_free(alloc, xc);
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "cannot make a GC for the X window");
   }
   xc->want_shm = sh_xcb_shm_wanted(xc->conn);
   /* Images the server reads where they were rendered, unless their bytes
    * need swapping first (or SHALE_WSI_X11_NO_SHM_IMAGES=1). R8G8B8A8
    * images keep the copy: ShmPutImage takes the pixels in the layout of
    * the window's own visual (the application chose it), and X servers'
    * 24- and 32-bit TrueColor visuals put red at 0xff0000 (all 390 of
    * Xvfb's, xdpyinfo: masks 0xff0000, 0xff00, 0xff), so R8G8B8A8's bytes
    * would need a window whose visual has red at 0xff; no server here
    * offers one to test such a path with, so Shale does not take it. */
   if (xc->want_shm && !xc->swap_rb && sh_xcb.shm_attach_fd_checked &&
       !sh_env_set("SHALE_WSI_X11_NO_SHM_IMAGES"))
      sh_swapchain_share_images(chain);
   sh_swapchain_set_platform_data(chain, xc);
   return VK_SUCCESS;
}

/* The images exist: attach them, or else make the staging image. */
static VkResult
sh_xcb_images_ready(struct sh_swapchain *chain)
{
   struct sh_xcb_chain *xc = sh_swapchain_platform_data(chain);
   if (sh_swapchain_images_shared(chain) && sh_xcb_shm_attach_images(chain, xc))
      xc->path = SH_XCB_SHM_IMAGES;
   else if (xc->want_shm && sh_xcb_shm_attach_staging(xc))
      xc->path = SH_XCB_SHM_COPY;
   else {
      xc->staging = sd_alloc(sh_swapchain_alloc(chain), (size_t)xc->width * xc->height * 4,
                             SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!xc->staging)
         return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      xc->path = SH_XCB_PUT_IMAGE;
   }
   if (su_debug(SU_DEBUG_INFO))
      su_log("xcb swapchain %ux%u, depth %u, %s", xc->width, xc->height, xc->depth,
             xc->path == SH_XCB_SHM_IMAGES ? "MIT-SHM images (no copy)"
             : xc->path == SH_XCB_SHM_COPY ? "MIT-SHM staging copy" : "PutImage");
   return VK_SUCCESS;
}

/* Reads the reply of the last display's geometry request, which comes
 * after the server has done that display's requests; what that display
 * returns: VK_SUBOPTIMAL_KHR where the window no longer fits the swapchain,
 * VK_ERROR_SURFACE_LOST_KHR where the window or the put failed. */
static VkResult
sh_xcb_settle_chain(struct sh_xcb_chain *xc)
{
   if (!xc->in_flight)
      return VK_SUCCESS;
   xc->in_flight = false;
   xcb_generic_error_t *err = NULL;
   xcb_get_geometry_reply_t *g = sh_xcb.get_geometry_reply(xc->conn, xc->geometry, &err);
   free(err);
   /* Answered without a round trip: the later reply is in. */
   err = sh_xcb.request_check(xc->conn, xc->put);
   if (err || !g) {
      free(err);
      free(g);
      return VK_ERROR_SURFACE_LOST_KHR;
   }
   const bool resized = g->width != xc->width || g->height != xc->height;
   free(g);
   /* The image still shows (clipped or padded), but no longer fits. */
   return resized ? VK_SUBOPTIMAL_KHR : VK_SUCCESS;
}

static VkResult
sh_xcb_settle(struct sh_swapchain *chain)
{
   return sh_xcb_settle_chain(sh_swapchain_platform_data(chain));
}

static void
sh_xcb_finish(struct sh_swapchain *chain)
{
   struct sh_xcb_chain *xc = sh_swapchain_platform_data(chain);
   const VkAllocationCallbacks *alloc = sh_swapchain_alloc(chain);
   /* The present thread settled before it stopped; nothing is in flight. */
   sh_xcb_settle_chain(xc);
   sh_xcb.free_gc(xc->conn, xc->gc);
   switch (xc->path) {
   case SH_XCB_SHM_IMAGES:
      sh_xcb_detach_images(xc, xc->image_count);
      break;
   case SH_XCB_SHM_COPY:
      /* Waits for the server's detach: the segment is gone on return. */
      free(sh_xcb.request_check(xc->conn, sh_xcb.shm_detach_checked(xc->conn, xc->seg)));
      shmdt(xc->staging);
      break;
   case SH_XCB_PUT_IMAGE:
   case SH_XCB_NONE:
      sh_xcb.flush(xc->conn);
      sd_free(alloc, xc->staging);
      break;
   }
   sd_free(alloc, xc);
}

static uint64_t
sh_xcb_refresh_ns(struct sh_swapchain *chain)
{
   return 1000000000ull / 60;   /* X tells nothing of vertical blanks: a 60 Hz clock */
}

/* Image `index` copied into the staging image (rows packed, R and B
 * swapped where the format needs it). */
static void
sh_xcb_copy_to_staging(struct sh_swapchain *chain, struct sh_xcb_chain *xc, uint32_t index)
{
   uint64_t pitch;
   const uint8_t *src = sh_swapchain_pixels(chain, index, &pitch);
   const size_t row = (size_t)xc->width * 4;
   for (uint32_t y = 0; y < xc->height; y++) {
      uint8_t *d = xc->staging + y * row;
      memcpy(d, src + y * pitch, row);
      if (xc->swap_rb) {
         for (uint32_t x = 0; x < xc->width; x++) {
            uint8_t t = d[4 * x];
            d[4 * x] = d[4 * x + 2];
            d[4 * x + 2] = t;
         }
      }
   }
}

/* Sends the staging image with PutImage requests of whole rows, within the
 * server's request length; the last request's cookie, or an error. */
static xcb_generic_error_t *
sh_xcb_put_staging(struct sh_xcb_chain *xc, xcb_void_cookie_t *last)
{
   const size_t row = (size_t)xc->width * 4;
   const size_t max_bytes = (size_t)sh_xcb.get_maximum_request_length(xc->conn) * 4 - 64;
   uint32_t rows = (uint32_t)(max_bytes / row);
   if (rows == 0)
      rows = 1;
   for (uint32_t y = 0; y < xc->height; y += rows) {
      uint32_t n = xc->height - y < rows ? xc->height - y : rows;
      *last = sh_xcb.put_image_checked(xc->conn, XCB_IMAGE_FORMAT_Z_PIXMAP, xc->window, xc->gc,
                                       (uint16_t)xc->width, (uint16_t)n, 0, (int16_t)y, 0,
                                       xc->depth, (uint32_t)(n * row), xc->staging + y * row);
      if (y + n < xc->height) {
         xcb_generic_error_t *e = sh_xcb.request_check(xc->conn, *last);
         if (e)
            return e;
      }
   }
   return NULL;
}

/* Present thread: the image to the window. Its requests and a geometry
 * request are sent and left in flight; the previous display's reply is
 * read before this one's requests go (the staging copy is rewritten) or
 * after (the image shown before is freed once this returns), so the
 * result is the previous display's (sh_xcb_settle_chain). */
static VkResult
sh_xcb_display(struct sh_swapchain *chain, uint32_t index)
{
   struct sh_xcb_chain *xc = sh_swapchain_platform_data(chain);
   VkResult r = VK_SUCCESS;
   xcb_void_cookie_t put = { 0 };
   if (xc->path == SH_XCB_SHM_IMAGES) {
      /* Straight from the image: its rows are row_pitch apart. */
      uint64_t pitch;
      sh_swapchain_pixels(chain, index, &pitch);
      put = sh_xcb.shm_put_image_checked(xc->conn, xc->window, xc->gc, (uint16_t)(pitch / 4),
                                         (uint16_t)xc->height, 0, 0, (uint16_t)xc->width,
                                         (uint16_t)xc->height, 0, 0, xc->depth,
                                         XCB_IMAGE_FORMAT_Z_PIXMAP, 0, xc->image_segs[index],
                                         (uint32_t)xc->image_offsets[index]);
   } else {
      /* The server must be done with the staging copy first. */
      r = sh_xcb_settle_chain(xc);
      sh_xcb_copy_to_staging(chain, xc, index);
      if (xc->path == SH_XCB_SHM_COPY) {
         put = sh_xcb.shm_put_image_checked(xc->conn, xc->window, xc->gc, xc->width, xc->height,
                                            0, 0, xc->width, xc->height, 0, 0, xc->depth,
                                            XCB_IMAGE_FORMAT_Z_PIXMAP, 0, xc->seg, 0);
      } else {
         xcb_generic_error_t *err = sh_xcb_put_staging(xc, &put);
         if (err) {
            /* A request before the last failed (and was checked). */
            free(err);
            return VK_ERROR_SURFACE_LOST_KHR;
         }
      }
   }
   xcb_get_geometry_cookie_t geometry = sh_xcb.get_geometry(xc->conn, xc->window);
   sh_xcb.flush(xc->conn);
   if (xc->path == SH_XCB_SHM_IMAGES)
      r = sh_xcb_settle_chain(xc);   /* the image shown before is read */
   xc->in_flight = true;
   xc->put = put;
   xc->geometry = geometry;
   return r;
}

const struct sh_wsi_platform sh_wsi_xcb = {
   .id = VK_ICD_WSI_PLATFORM_XCB,
   .get_capabilities = sh_xcb_capabilities,
   .init = sh_xcb_init,
   .images_ready = sh_xcb_images_ready,
   .finish = sh_xcb_finish,
   .refresh_ns = sh_xcb_refresh_ns,
   .display = sh_xcb_display,
   .settle = sh_xcb_settle,
   /* The shown image is freed by the next display() only (its put's reply
    * is read there): one more image, so that the application need not
    * wait for that in IMMEDIATE. */
   .immediate_extra_images = 1,
};

#endif
