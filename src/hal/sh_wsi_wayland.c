/* VK_KHR_wayland_surface: Wayland surfaces through libwayland-client loaded at run time; wl_shm buffers (sh_wsi.h). */
#ifdef VK_USE_PLATFORM_WAYLAND_KHR

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "driver/sd_alloc.h"
#include "driver/sd_entrypoints.h"
#include "driver/sd_instance.h"
#include "driver/sd_device.h"
#include "driver/sd_util.h"
#include "sh_wsi.h"
#include "util/su_log.h"

/* Opcodes of the core protocol's requests (wayland.xml's order). */
enum {
   SH_WL_DISPLAY_GET_REGISTRY = 1,
   SH_WL_REGISTRY_BIND = 0,
   SH_WL_SHM_CREATE_POOL = 0,
   SH_WL_SHM_POOL_CREATE_BUFFER = 0,
   SH_WL_SHM_POOL_DESTROY = 1,
   SH_WL_BUFFER_DESTROY = 0,
   SH_WL_SURFACE_ATTACH = 1,
   SH_WL_SURFACE_DAMAGE = 2,
   SH_WL_SURFACE_FRAME = 3,
   SH_WL_SURFACE_COMMIT = 6,
   SH_WL_SURFACE_DAMAGE_BUFFER = 9,   /* wl_surface version 4 */
   SH_WL_SHM_FORMAT_XRGB8888 = 1,
   SH_WL_SHM_FORMAT_XBGR8888 = 0x34324258,   /* 'XB24': bytes R, G, B, X */
};

/* Hidden surfaces get no frame callbacks: wait this long at most (from
 * the commit that asked for one). */
#define SH_WL_FRAME_WAIT_NS 100000000ull

/* The libwayland-client functions and interfaces Shale uses, from dlopen
 * (declared by wayland-client-core.h, never linked). */
static struct {
   bool loaded;
   __typeof__(wl_proxy_marshal_flags) *marshal_flags;
   __typeof__(wl_proxy_add_listener) *add_listener;
   __typeof__(wl_proxy_destroy) *proxy_destroy;
   __typeof__(wl_proxy_get_version) *get_version;
   __typeof__(wl_proxy_create_wrapper) *create_wrapper;
   __typeof__(wl_proxy_wrapper_destroy) *wrapper_destroy;
   __typeof__(wl_proxy_set_queue) *set_queue;
   __typeof__(wl_display_create_queue) *create_queue;
   __typeof__(wl_event_queue_destroy) *queue_destroy;
   __typeof__(wl_display_prepare_read_queue) *prepare_read_queue;
   __typeof__(wl_display_read_events) *read_events;
   __typeof__(wl_display_cancel_read) *cancel_read;
   __typeof__(wl_display_dispatch_queue_pending) *dispatch_queue_pending;
   __typeof__(wl_display_roundtrip_queue) *roundtrip_queue;
   __typeof__(wl_display_flush) *flush;
   __typeof__(wl_display_get_fd) *get_fd;
   __typeof__(wl_display_get_error) *get_error;
   const struct wl_interface *registry_if, *shm_if, *shm_pool_if, *buffer_if, *callback_if;
} sh_wl;

static pthread_once_t sh_wl_once = PTHREAD_ONCE_INIT;

/* The application has libwayland-client loaded already (it made the
 * display); the library stays loaded for the life of the process.
 * wl_proxy_marshal_flags needs libwayland 1.20 or later. */
static void
sh_wl_load_once(void)
{
   void *lib = dlopen("libwayland-client.so.0", RTLD_NOW | RTLD_LOCAL);
   if (!lib) {
      su_log("cannot load libwayland-client.so.0: %s", dlerror());
      return;
   }
#define L(field, name)                                                          \
   do {                                                                         \
      *(void **)&sh_wl.field = dlsym(lib, name);                                \
      ok &= sh_wl.field != NULL;                                                \
   } while (0)
   bool ok = true;
   L(marshal_flags, "wl_proxy_marshal_flags");
   L(add_listener, "wl_proxy_add_listener");
   L(proxy_destroy, "wl_proxy_destroy");
   L(get_version, "wl_proxy_get_version");
   L(create_wrapper, "wl_proxy_create_wrapper");
   L(wrapper_destroy, "wl_proxy_wrapper_destroy");
   L(set_queue, "wl_proxy_set_queue");
   L(create_queue, "wl_display_create_queue");
   L(queue_destroy, "wl_event_queue_destroy");
   L(prepare_read_queue, "wl_display_prepare_read_queue");
   L(read_events, "wl_display_read_events");
   L(cancel_read, "wl_display_cancel_read");
   L(dispatch_queue_pending, "wl_display_dispatch_queue_pending");
   L(roundtrip_queue, "wl_display_roundtrip_queue");
   L(flush, "wl_display_flush");
   L(get_fd, "wl_display_get_fd");
   L(get_error, "wl_display_get_error");
   L(registry_if, "wl_registry_interface");
   L(shm_if, "wl_shm_interface");
   L(shm_pool_if, "wl_shm_pool_interface");
   L(buffer_if, "wl_buffer_interface");
   L(callback_if, "wl_callback_interface");
#undef L
   if (!ok) {
      su_log("libwayland-client.so.0 lacks a function Shale needs (1.20 or later)");
      return;
   }
   sh_wl.loaded = true;
}

static bool
sh_wl_load(void)
{
   pthread_once(&sh_wl_once, sh_wl_load_once);
   return sh_wl.loaded;
}

__attribute__((constructor)) static void
sh_wsi_wayland_register(void)
{
   sd_instance_extensions_supported.KHR_wayland_surface = true;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateWaylandSurfaceKHR(VkInstance _instance, const VkWaylandSurfaceCreateInfoKHR *pCreateInfo,
                           const VkAllocationCallbacks *pAllocator, VkSurfaceKHR *pSurface)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   struct sh_surface *s = sh_surface_alloc(instance, pAllocator, VK_ICD_WSI_PLATFORM_WAYLAND);
   if (!s)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   s->wayland.display = pCreateInfo->display;
   s->wayland.surface = pCreateInfo->surface;
   *pSurface = (VkSurfaceKHR)(uintptr_t)s;
   return VK_SUCCESS;
}

/* One queue family; any compositor with wl_shm takes its images. */
VKAPI_ATTR VkBool32 VKAPI_CALL
sd_GetPhysicalDeviceWaylandPresentationSupportKHR(VkPhysicalDevice physicalDevice,
                                                  uint32_t queueFamilyIndex,
                                                  struct wl_display *display)
{
   return queueFamilyIndex == 0 && sh_wl_load();
}

/* The client decides the size: currentExtent stays 0xFFFFFFFF; a side is
 * at most 8192 so that a buffer's pool fits wl_shm's int32 size. */
static VkResult
sh_wl_capabilities(struct sh_surface *surface, VkSurfaceCapabilitiesKHR *caps)
{
   if (!sh_wl_load())
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "libwayland-client could not be loaded");
   if (sh_wl.get_error(surface->wayland.display))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "the Wayland display connection failed");
   if (caps->maxImageExtent.width > 8192)
      caps->maxImageExtent.width = 8192;
   if (caps->maxImageExtent.height > 8192)
      caps->maxImageExtent.height = 8192;
   return VK_SUCCESS;
}

/* A swapchain's objects, all on its own event queue. */
struct sh_wl_chain {
   struct wl_display *display;
   struct wl_event_queue *queue;
   /* The image buffers' release events: read by acquires (wait_release),
    * never by the present thread. */
   struct wl_event_queue *release_queue;
   struct wl_proxy *surface;   /* a wrapper of the application's, on queue */
   struct wl_proxy *registry, *shm;
   uint32_t shm_name;          /* wl_shm's global, 0 until seen */
   struct wl_proxy *frame;     /* the last commit's frame callback, until done */
   uint64_t frame_ns;          /* when that commit was made */
   uint32_t width, height, stride;
   bool rgba;                  /* R8G8B8A8 images */
   bool xbgr;                  /* wl_shm offers XBGR8888 */
   bool swap_rb;               /* the copy swaps R and B (R8G8B8A8 into XRGB8888) */
   /* No copy: image i's memory is its own pool and buffer image_bufs[i],
    * of this wl_shm format. Else image i is copied into image_bufs[i],
    * XRGB8888 in a memfd of Shale's mapped at its map. */
   bool images;
   uint32_t image_format;
   uint32_t image_count;
   struct sh_wl_buffer {
      struct wl_proxy *buffer;
      struct sh_swapchain *chain;   /* the swapchain, and which image */
      uint32_t index;
      uint8_t *map;                 /* the copy's: its bytes (size bytes) */
      size_t size;
   } *image_bufs;
};

static void
sh_wl_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
             uint32_t version)
{
   struct sh_wl_chain *wc = data;
   if (!strcmp(interface, "wl_shm") && !wc->shm_name)
      wc->shm_name = name;
}

static void
sh_wl_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static void (*const sh_wl_registry_listener[])(void) = {
   (void (*)(void))sh_wl_global,
   (void (*)(void))sh_wl_global_remove,
};

/* An image's buffer (its own memory or its copy's): the compositor no
 * longer reads it, so the image may be acquired again. */
static void
sh_wl_image_release(void *data, struct wl_buffer *buffer)
{
   struct sh_wl_buffer *b = data;
   sh_swapchain_hold_image(b->chain, b->index, false);
}

static void (*const sh_wl_image_buffer_listener[])(void) = {
   (void (*)(void))sh_wl_image_release,
};

static void
sh_wl_shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
   struct sh_wl_chain *wc = data;
   if (format == SH_WL_SHM_FORMAT_XBGR8888)
      wc->xbgr = true;
}

static void (*const sh_wl_shm_listener[])(void) = { (void (*)(void))sh_wl_shm_format };

static void
sh_wl_frame_done(void *data, struct wl_callback *callback, uint32_t time)
{
   struct sh_wl_chain *wc = data;
   sh_wl.proxy_destroy((struct wl_proxy *)callback);
   wc->frame = NULL;
}

static void (*const sh_wl_callback_listener[])(void) = { (void (*)(void))sh_wl_frame_done };

/* Sends what is buffered; false once the connection failed. */
static bool
sh_wl_flush(struct sh_wl_chain *wc)
{
   while (sh_wl.flush(wc->display) < 0) {
      if (errno != EAGAIN)
         return false;
      struct pollfd p = { .fd = sh_wl.get_fd(wc->display), .events = POLLOUT };
      if (poll(&p, 1, 1000) <= 0)
         return false;
   }
   return true;
}

/* Dispatches the swapchain's queue until done(wc) or the deadline: 1 when
 * done, 0 at the deadline, -1 when the connection failed. */
static int
sh_wl_wait(struct sh_wl_chain *wc, bool (*done)(struct sh_wl_chain *), uint64_t deadline_ns)
{
   for (;;) {
      if (sh_wl.dispatch_queue_pending(wc->display, wc->queue) < 0)
         return -1;
      if (done(wc))
         return 1;
      const uint64_t now = sd_now_ns();
      if (now >= deadline_ns)
         return 0;
      if (sh_wl.prepare_read_queue(wc->display, wc->queue) != 0)
         continue;   /* events queued meanwhile: dispatch them first */
      if (sh_wl.flush(wc->display) < 0 && errno != EAGAIN) {
         sh_wl.cancel_read(wc->display);
         return -1;
      }
      struct pollfd p = { .fd = sh_wl.get_fd(wc->display), .events = POLLIN };
      const uint64_t left_ms = (deadline_ns - now + 999999) / 1000000;
      int n = poll(&p, 1, left_ms > 1000 ? 1000 : (int)left_ms);
      if (n > 0) {
         if (sh_wl.read_events(wc->display) < 0)
            return -1;
      } else {
         sh_wl.cancel_read(wc->display);
         if (n < 0 && errno != EINTR)
            return -1;
      }
   }
}

static bool
sh_wl_frame_done_or_none(struct sh_wl_chain *wc)
{
   return wc->frame == NULL;
}

/* Destroys the buffers and unmaps the copy's memory. */
static void
sh_wl_destroy_buffers(struct sh_wl_buffer *bufs, uint32_t n)
{
   for (uint32_t i = 0; i < n; i++) {
      if (bufs[i].buffer)
         sh_wl.marshal_flags(bufs[i].buffer, SH_WL_BUFFER_DESTROY, NULL,
                             sh_wl.get_version(bufs[i].buffer), WL_MARSHAL_FLAG_DESTROY);
      bufs[i].buffer = NULL;
      if (bufs[i].map)
         munmap(bufs[i].map, bufs[i].size);
      bufs[i].map = NULL;
   }
}

/* Destroys what init and images_ready made (whatever part of it exists). */
static void
sh_wl_teardown(struct sh_wl_chain *wc)
{
   if (wc->frame)
      sh_wl.proxy_destroy(wc->frame);
   sh_wl_destroy_buffers(wc->image_bufs, wc->image_count);
   if (wc->shm)
      sh_wl.proxy_destroy(wc->shm);   /* version 1 has no release request */
   if (wc->registry)
      sh_wl.proxy_destroy(wc->registry);
   if (wc->surface)
      sh_wl.wrapper_destroy(wc->surface);
   sh_wl_flush(wc);
   if (wc->release_queue)
      sh_wl.queue_destroy(wc->release_queue);
   if (wc->queue)
      sh_wl.queue_destroy(wc->queue);
}

static VkResult
sh_wl_init(struct sh_swapchain *chain, struct sh_surface *surface)
{
   if (!sh_wl_load())
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "libwayland-client could not be loaded");
   struct wl_display *display = surface->wayland.display;
   if (sh_wl.get_error(display))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "the Wayland display connection failed");
   const VkAllocationCallbacks *alloc = sh_swapchain_alloc(chain);
   struct sh_wl_chain *wc =
      sd_zalloc(alloc, sizeof(*wc) + sh_swapchain_image_count(chain) * sizeof(struct sh_wl_buffer),
                SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!wc)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   wc->display = display;
   const VkExtent2D extent = sh_swapchain_extent(chain);
   wc->width = extent.width;
   wc->height = extent.height;
   wc->stride = wc->width * 4;
   const VkFormat format = sh_swapchain_format(chain);
   wc->rgba = format == VK_FORMAT_R8G8B8A8_UNORM || format == VK_FORMAT_R8G8B8A8_SRGB;
   wc->image_count = sh_swapchain_image_count(chain);
   wc->image_bufs = (struct sh_wl_buffer *)(wc + 1);
   VkResult r = VK_ERROR_SURFACE_LOST_KHR;
   const char *why = "the Wayland display connection failed";

   wc->queue = sh_wl.create_queue(display);
   wc->release_queue = wc->queue ? sh_wl.create_queue(display) : NULL;
   if (!wc->release_queue) {
      r = VK_ERROR_OUT_OF_HOST_MEMORY;
      why = NULL;
      goto fail;
   }
   struct wl_proxy *dpy = sh_wl.create_wrapper(display);
   if (!dpy) {
      r = VK_ERROR_OUT_OF_HOST_MEMORY;
      why = NULL;
      goto fail;
   }
   sh_wl.set_queue(dpy, wc->queue);
   wc->registry = sh_wl.marshal_flags(dpy, SH_WL_DISPLAY_GET_REGISTRY, sh_wl.registry_if,
                                      sh_wl.get_version(dpy), 0, NULL);
   sh_wl.wrapper_destroy(dpy);
   if (!wc->registry)
      goto fail;
   sh_wl.add_listener(wc->registry, (void (**)(void))sh_wl_registry_listener, wc);
   if (sh_wl.roundtrip_queue(display, wc->queue) < 0)
      goto fail;
   if (!wc->shm_name) {
      why = "the compositor offers no wl_shm";
      goto fail;
   }
   wc->shm = sh_wl.marshal_flags(wc->registry, SH_WL_REGISTRY_BIND, sh_wl.shm_if, 1, 0,
                                 wc->shm_name, sh_wl.shm_if->name, 1u, NULL);
   if (!wc->shm)
      goto fail;
   /* The formats it takes besides ARGB8888 and XRGB8888 come now. */
   sh_wl.add_listener(wc->shm, (void (**)(void))sh_wl_shm_listener, wc);
   if (sh_wl.roundtrip_queue(display, wc->queue) < 0)
      goto fail;

   wc->surface = sh_wl.create_wrapper(surface->wayland.surface);
   if (!wc->surface) {
      r = VK_ERROR_OUT_OF_HOST_MEMORY;
      why = NULL;
      goto fail;
   }
   sh_wl.set_queue(wc->surface, wc->queue);
   if (!sh_wl_flush(wc))
      goto fail;
   /* Buffers in the images themselves, in a format whose bytes are the
    * images' (XRGB8888 for B8G8R8A8, XBGR8888 for R8G8B8A8 where the
    * compositor takes it), unless SHALE_WSI_WAYLAND_NO_SHM_IMAGES=1; else
    * the copy into XRGB8888, R and B swapped for R8G8B8A8. */
   const char *env = getenv("SHALE_WSI_WAYLAND_NO_SHM_IMAGES");
   wc->image_format = wc->rgba ? SH_WL_SHM_FORMAT_XBGR8888 : SH_WL_SHM_FORMAT_XRGB8888;
   if ((!wc->rgba || wc->xbgr) && !(env && *env && strcmp(env, "0")))
      sh_swapchain_share_images(chain);
   sh_swapchain_set_platform_data(chain, wc);
   return VK_SUCCESS;

fail:
   sh_wl_teardown(wc);
   sd_free(alloc, wc);
   return why ? sd_errorf(r, why) : sd_error(r);
}

/* Buffer i: a pool over fd (size bytes, which sends a duplicate of fd)
 * holding one buffer at offset, rows pitch apart, in the given wl_shm
 * format; its release events go to the release queue and unhold image i.
 * false when a request cannot be made. */
static bool
sh_wl_make_buffer(struct sh_swapchain *chain, struct sh_wl_chain *wc, uint32_t i, int fd,
                  uint64_t size, uint64_t offset, uint64_t pitch, uint32_t format)
{
   if (size > INT32_MAX)
      return false;
   struct wl_proxy *pool = sh_wl.marshal_flags(wc->shm, SH_WL_SHM_CREATE_POOL, sh_wl.shm_pool_if,
                                               sh_wl.get_version(wc->shm), 0, NULL, fd,
                                               (int32_t)size);
   if (!pool)
      return false;
   struct sh_wl_buffer *b = &wc->image_bufs[i];
   b->buffer = sh_wl.marshal_flags(pool, SH_WL_SHM_POOL_CREATE_BUFFER, sh_wl.buffer_if,
                                   sh_wl.get_version(pool), 0, NULL, (int32_t)offset,
                                   (int32_t)wc->width, (int32_t)wc->height, (int32_t)pitch,
                                   format);
   /* The buffer keeps the pool's memory. */
   sh_wl.marshal_flags(pool, SH_WL_SHM_POOL_DESTROY, NULL, sh_wl.get_version(pool),
                       WL_MARSHAL_FLAG_DESTROY);
   if (!b->buffer)
      return false;
   b->chain = chain;
   b->index = i;
   sh_wl.set_queue(b->buffer, wc->release_queue);
   sh_wl.add_listener(b->buffer, (void (**)(void))sh_wl_image_buffer_listener, b);
   return true;
}

/* The copy: a buffer per image, XRGB8888 in a memfd of its own, mapped. */
static VkResult
sh_wl_make_copy_buffers(struct sh_swapchain *chain, struct sh_wl_chain *wc)
{
   const size_t size = (size_t)wc->stride * wc->height;
   for (uint32_t i = 0; i < wc->image_count; i++) {
      int fd = memfd_create("shale-wayland", MFD_CLOEXEC);
      if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
         if (fd >= 0)
            close(fd);
         return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "cannot make a wl_shm buffer's memfd");
      }
      void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (map == MAP_FAILED) {
         close(fd);
         return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "cannot map a wl_shm buffer");
      }
      wc->image_bufs[i].map = map;
      wc->image_bufs[i].size = size;
      const bool made = sh_wl_make_buffer(chain, wc, i, fd, size, 0, wc->stride,
                                          SH_WL_SHM_FORMAT_XRGB8888);
      close(fd);   /* libwayland sent a duplicate */
      if (!made)
         return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "the Wayland display connection failed");
   }
   if (!sh_wl_flush(wc))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "the Wayland display connection failed");
   return VK_SUCCESS;
}

/* Image i's memory as a pool of its own holding one buffer, its rows
 * row_pitch apart; false when a request cannot be made. */
static bool
sh_wl_make_image_buffers(struct sh_swapchain *chain, struct sh_wl_chain *wc)
{
   for (uint32_t i = 0; i < wc->image_count; i++) {
      uint64_t offset, pitch;
      sh_swapchain_pixels(chain, i, &pitch);
      int fd = sh_swapchain_image_fd(chain, i, &offset);
      if (fd < 0)
         return false;
      const bool made = sh_wl_make_buffer(chain, wc, i, fd, offset + pitch * wc->height, offset,
                                          pitch, wc->image_format);
      close(fd);   /* libwayland sent a duplicate */
      if (!made)
         return false;
   }
   return sh_wl_flush(wc);
}

/* The images exist: a buffer in each, or else the copy's buffers. */
static VkResult
sh_wl_images_ready(struct sh_swapchain *chain)
{
   struct sh_wl_chain *wc = sh_swapchain_platform_data(chain);
   if (sh_swapchain_images_shared(chain)) {
      if (sh_wl_make_image_buffers(chain, wc))
         wc->images = true;
      else
         sh_wl_destroy_buffers(wc->image_bufs, wc->image_count);
   }
   if (!wc->images) {
      wc->swap_rb = wc->rgba;
      VkResult r = sh_wl_make_copy_buffers(chain, wc);
      if (r != VK_SUCCESS)
         return r;
   }
   if (su_debug(SU_DEBUG_INFO))
      su_log("wayland swapchain %ux%u, %s", wc->width, wc->height,
             !wc->images ? "an XRGB8888 wl_shm buffer per image, copied into"
             : wc->rgba  ? "an XBGR8888 wl_shm buffer in each image (no copy)"
                         : "an XRGB8888 wl_shm buffer in each image (no copy)");
   return VK_SUCCESS;
}

static void
sh_wl_finish(struct sh_swapchain *chain)
{
   struct sh_wl_chain *wc = sh_swapchain_platform_data(chain);
   sh_wl_teardown(wc);
   sd_free(sh_swapchain_alloc(chain), wc);
}

static uint64_t
sh_wl_refresh_ns(struct sh_swapchain *chain)
{
   return 1000000000ull / 60;   /* the engine's clock; frame callbacks pace on top */
}

/* Present thread, not in IMMEDIATE, while the next image is still queued
 * (a MAILBOX present may replace it meanwhile): waits for the last
 * commit's frame callback, SH_WL_FRAME_WAIT_NS after that commit at most. */
static VkResult
sh_wl_wait_ready(struct sh_swapchain *chain)
{
   struct sh_wl_chain *wc = sh_swapchain_platform_data(chain);
   if (sh_wl.get_error(wc->display))
      return VK_ERROR_SURFACE_LOST_KHR;
   if (wc->frame &&
       sh_wl_wait(wc, sh_wl_frame_done_or_none, wc->frame_ns + SH_WL_FRAME_WAIT_NS) < 0)
      return VK_ERROR_SURFACE_LOST_KHR;
   return VK_SUCCESS;
}

/* Present thread: copies the image into its buffer where there is a copy,
 * marks the image held, and commits its buffer; returns once the commit
 * is sent, waiting for nothing (acquires wait for the release). */
static VkResult
sh_wl_display(struct sh_swapchain *chain, uint32_t index)
{
   struct sh_wl_chain *wc = sh_swapchain_platform_data(chain);
   if (sh_wl.get_error(wc->display))
      return VK_ERROR_SURFACE_LOST_KHR;
   struct sh_wl_buffer *buf = &wc->image_bufs[index];
   if (!wc->images) {
      /* Not held, so the compositor released this buffer already. */
      uint64_t pitch;
      const uint8_t *src = sh_swapchain_pixels(chain, index, &pitch);
      for (uint32_t y = 0; y < wc->height; y++) {
         uint8_t *d = buf->map + (size_t)y * wc->stride;
         memcpy(d, src + y * pitch, wc->stride);
         if (wc->swap_rb) {
            for (uint32_t x = 0; x < wc->width; x++) {
               uint8_t t = d[4 * x];
               d[4 * x] = d[4 * x + 2];
               d[4 * x + 2] = t;
            }
         }
      }
   }

   /* Held before the commit: its release may be read at once. */
   sh_swapchain_hold_image(chain, index, true);
   const uint32_t sv = sh_wl.get_version(wc->surface);
   sh_wl.marshal_flags(wc->surface, SH_WL_SURFACE_ATTACH, NULL, sv, 0, buf->buffer, 0, 0);
   sh_wl.marshal_flags(wc->surface, sv >= 4 ? SH_WL_SURFACE_DAMAGE_BUFFER : SH_WL_SURFACE_DAMAGE,
                       NULL, sv, 0, 0, 0, INT32_MAX, INT32_MAX);
   if (wc->frame) {
      /* The previous frame's callback never came (hidden): forget it. */
      sh_wl.proxy_destroy(wc->frame);
      wc->frame = NULL;
   }
   if (sh_swapchain_present_mode(chain) != VK_PRESENT_MODE_IMMEDIATE_KHR) {
      wc->frame = sh_wl.marshal_flags(wc->surface, SH_WL_SURFACE_FRAME, sh_wl.callback_if, sv, 0,
                                      NULL);
      if (wc->frame)
         sh_wl.add_listener(wc->frame, (void (**)(void))sh_wl_callback_listener, wc);
      wc->frame_ns = sd_now_ns();
   }
   sh_wl.marshal_flags(wc->surface, SH_WL_SURFACE_COMMIT, NULL, sv, 0);
   if (!sh_wl_flush(wc) || sh_wl.get_error(wc->display))
      return VK_ERROR_SURFACE_LOST_KHR;
   return VK_SUCCESS;
}

/* vkAcquireNextImageKHR: every free image is still the compositor's.
 * Reads the release queue until an event came (a release) or the
 * deadline passed. */
static VkResult
sh_wl_wait_release(struct sh_swapchain *chain, uint64_t deadline_ns)
{
   struct sh_wl_chain *wc = sh_swapchain_platform_data(chain);
   for (;;) {
      const int n = sh_wl.dispatch_queue_pending(wc->display, wc->release_queue);
      if (n < 0 || sh_wl.get_error(wc->display))
         return VK_ERROR_SURFACE_LOST_KHR;
      if (n > 0)
         return VK_SUCCESS;
      const uint64_t now = sd_now_ns();
      if (now >= deadline_ns)
         return VK_TIMEOUT;
      if (sh_wl.prepare_read_queue(wc->display, wc->release_queue) != 0)
         continue;   /* events queued meanwhile: dispatch them first */
      if (sh_wl.flush(wc->display) < 0 && errno != EAGAIN) {
         sh_wl.cancel_read(wc->display);
         return VK_ERROR_SURFACE_LOST_KHR;
      }
      struct pollfd p = { .fd = sh_wl.get_fd(wc->display), .events = POLLIN };
      const uint64_t left_ms = (deadline_ns - now + 999999) / 1000000;
      const int n_ready = poll(&p, 1, left_ms > 1000 ? 1000 : (int)left_ms);
      if (n_ready > 0) {
         if (sh_wl.read_events(wc->display) < 0)
            return VK_ERROR_SURFACE_LOST_KHR;
      } else {
         sh_wl.cancel_read(wc->display);
         if (n_ready < 0 && errno != EINTR)
            return VK_ERROR_SURFACE_LOST_KHR;
      }
   }
}

const struct sh_wsi_platform sh_wsi_wayland = {
   .id = VK_ICD_WSI_PLATFORM_WAYLAND,
   .get_capabilities = sh_wl_capabilities,
   .init = sh_wl_init,
   .images_ready = sh_wl_images_ready,
   .finish = sh_wl_finish,
   .refresh_ns = sh_wl_refresh_ns,
   .wait_ready = sh_wl_wait_ready,
   .display = sh_wl_display,
   .wait_release = sh_wl_wait_release,
};

#endif
