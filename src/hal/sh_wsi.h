/*
 * sh_wsi: desktop window-system integration: surfaces, their queries, and
 * swapchains with a presentation engine per swapchain.
 *
 * Owns: VkSurfaceKHR objects, VkSwapchainKHR objects (their images, memory
 * and present thread), and the entry points of VK_KHR_surface,
 * VK_EXT_headless_surface, VK_KHR_get_surface_capabilities2,
 * VK_EXT_swapchain_colorspace and VK_KHR_swapchain. Only the desktop ICD
 * (libvulkan_shale.so) carries this code; Android's loader has its own
 * swapchain over VK_ANDROID_native_buffer (sh_native_buffer.c).
 *
 * Surfaces. The Khronos loader (driver interface 3 and later) calls a
 * driver's vkCreateXXXSurfaceKHR when vk_icdGetInstanceProcAddr returns one,
 * keeps the driver's handle in its own container, and passes that handle to
 * every driver command that takes the surface (LoaderDriverInterface.md,
 * "Handling KHR Surface Objects in WSI Extensions"). Shale does that: it
 * creates and destroys its surfaces itself. Its surface is laid out as the
 * loader's VkIcdSurfaceXXX (vk_icd.h: a VkIcdSurfaceBase naming the
 * platform first), so a surface the loader made for a driver that does not
 * create its own would be read the same way. Surfaces hold no state beyond
 * what the application passed.
 *
 * Platforms. A surface's platform (struct sh_wsi_platform) answers the
 * queries (extent, image counts) and displays images. Headless
 * (sh_wsi_headless.c) has no window: its extent is whatever the swapchain
 * says, and "displaying" an image only records it; it paces itself by a
 * virtual display refreshing SHALE_WSI_HEADLESS_HZ times a second (default
 * 60).
 *
 * X11 (sh_wsi_x11.c, VK_KHR_xcb_surface and VK_KHR_xlib_surface, built
 * where libxcb's headers are; an Xlib surface is presented through its
 * display's xcb connection, from libX11-xcb's XGetXCBConnection):
 * libxcb, libxcb-shm and libX11-xcb are loaded with dlopen when first needed, so the
 * driver has no link-time dependency on X. currentExtent is the window's
 * size. Each swapchain has a GC and takes the first of these ways to the
 * window that works:
 *   MIT-SHM images (no copy): B8G8R8A8 images whose memory is a memfd each
 *     (sh_swapchain_share_images), attached with ShmAttachFd (MIT-SHM 1.2)
 *     as one segment per image; the present thread's ShmPutImage names the
 *     image's segment, offset and row pitch, so the server reads the pixels
 *     where they were rendered;
 *   MIT-SHM copy: one SysV segment (ShmAttach) the present thread copies
 *     the image into (R and B swapped for R8G8B8A8, whose bytes the server
 *     cannot take as they are; SHALE_WSI_X11_NO_SHM_IMAGES=1 forces it);
 *   PutImage: host memory the image is copied into, sent by PutImage
 *     requests of whole rows (a remote server, no SysV shm, or
 *     SHALE_WSI_X11_NO_SHM=1).
 * The present thread then asks for the window's geometry: its reply says
 * the image's requests are done, so the image (or staging copy) can be
 * written again, and whether the window still fits; the queue never waits
 * for X. The present thread does not wait for that reply before it takes
 * the next image: it reads it when it displays the next image (after
 * sending that image's requests, or before rewriting the staging copy),
 * or when no image came for 16 ms after it (SH_SETTLE_DELAY_NS: the
 * platform's settle, also before the thread stops or waits for a
 * refresh), so a frame costs no round trip, and no wake-up by the
 * server's reply, while images keep coming, and the image shown before is
 * freed only once the server has read it. X gives no vertical blanks: FIFO paces to a
 * 60 Hz clock. A window whose size no longer matches the swapchain makes
 * presents and acquires return VK_SUBOPTIMAL_KHR (the image is still shown,
 * clipped or padded), from the first image displayed after the resize on;
 * never VK_ERROR_OUT_OF_DATE_KHR, since X still shows such an image
 * (OUT_OF_DATE comes from retired swapchains only). A window that is gone
 * makes them return VK_ERROR_SURFACE_LOST_KHR. After vkDestroySwapchainKHR
 * the swapchain leaves no X resource (GC, MIT-SHM segments) and no fd.
 * Checked requests keep X errors out of the application's event queue.
 *
 * Wayland (sh_wsi_wayland.c, VK_KHR_wayland_surface, built where
 * wayland-client.h is, since vulkan.h includes it): libwayland-client is
 * loaded with dlopen when first needed (its protocol wrappers are static
 * inline over exported wl_proxy_* functions and interface tables, which
 * Shale resolves with dlsym), so the driver has no link-time dependency on
 * it. The client decides a Wayland surface's size: currentExtent is
 * 0xFFFFFFFF and the swapchain's extent is the buffer size (at most 8192
 * on a side, so a pool stays within wl_shm's int32 size). Each swapchain
 * has its own wl_event_queue (the application's queues are never
 * dispatched by Shale), a wl_shm binding, and a wl_buffer per image:
 * for B8G8R8A8 images an XRGB8888 one in the image's own memory, for
 * R8G8B8A8 ones an XBGR8888 one where the compositor's wl_shm offers that
 * format (no copy: each image's memfd is a wl_shm_pool of its own, the
 * buffer at the image's offset and row pitch); else (R8G8B8A8 without
 * XBGR8888, or SHALE_WSI_WAYLAND_NO_SHM_IMAGES=1) an XRGB8888 one in a
 * memfd of Shale's that the present thread copies the image into (R and B
 * swapped for R8G8B8A8). The present thread makes the copy (if any),
 * attaches the image's buffer, damages it whole, asks for a frame callback (not in
 * IMMEDIATE) and commits, and returns: it never waits for a release. An
 * image is marked held (sh_swapchain_hold_image) before its commit, and
 * its buffer's release events go to a second event queue that only
 * vkAcquireNextImageKHR reads (wait_release), which unmarks it; an
 * acquire never returns an image whose buffer the compositor may still
 * read (so the copy never overwrites one), and waits for its release
 * within the acquire's timeout. Pacing: the engine's 60 Hz clock, and,
 * except in IMMEDIATE, the previous commit's frame callback
 * (wl_surface.frame), awaited by the platform's wait_ready for at most
 * 100 ms after that commit (a compositor sends none to a hidden surface)
 * while the next image is still queued: a MAILBOX present replaces it
 * meanwhile, so in MAILBOX the application never waits for a frame
 * callback (with three images or more; like every mode, it waits for a
 * release when the buffer of every free image is still the compositor's).
 * A display connection in error makes presents and acquires return VK_ERROR_SURFACE_LOST_KHR.
 * After vkDestroySwapchainKHR the swapchain leaves no Wayland object, no
 * mapping and no fd.
 *
 * Swapchains. Images are ordinary sd_image objects, each with its own
 * VkDeviceMemory (host memory like any other; an exportable memfd where the
 * platform's init asked for shared images), made through the driver's own
 * entry points with the swapchain's allocator, after the platform's init
 * and before its images_ready; an application renders into them like into
 * any image. Each image is in one state:
 *   FREE      owned by the presentation engine, acquirable;
 *   ACQUIRED  owned by the application (vkAcquireNextImageKHR);
 *   SUBMITTED given to vkQueuePresentKHR, whose semaphore waits and earlier
 *             queue work are still pending;
 *   QUEUED    handed to the presentation engine (the queue's thread did so
 *             once the waits were met), waiting for a refresh;
 *   SHOWN     on the (virtual) display; freed when another image replaces it.
 * vkQueuePresentKHR turns ACQUIRED into SUBMITTED and queues a callback on
 * the queue's submission thread (sd_queue_submit_callback), which waits the
 * present's semaphores there, in queue order, and then hands the image to
 * the engine (QUEUED). Each swapchain has a present thread that takes
 * QUEUED images to the display according to the present mode:
 *   IMMEDIATE     at once, the shown image freed at once;
 *   MAILBOX       at the next refresh; a newer present replaces a queued
 *                 one, which is freed without being shown;
 *   FIFO          one image per refresh, in present order, never dropped;
 *   FIFO_RELAXED  like FIFO, but an image that arrives after a refresh that
 *                 found the queue empty is shown at once.
 * The SHOWN image stays the engine's until another one replaces it, so an
 * application cycling through minImageCount images at full speed would
 * wait in every acquire for the present thread's next display: an
 * IMMEDIATE swapchain on X11 makes one image more than asked for
 * (immediate_extra_images; an X server copies the pixels of a put, so the
 * shown image only waits for the server's reply), and vkcube's acquires
 * (3 images asked for, 2 frames in flight) then find a FREE image without
 * waiting. vkGetSwapchainImagesKHR reports the images made.
 * vkAcquireNextImageKHR returns a FREE image that the window system does
 * not hold (the one freed first): the engine and the window system are
 * done with it, so its semaphore and fence are signalled at once. With
 * none it waits on the swapchain's condition for up to its timeout
 * (VK_NOT_READY for 0, VK_TIMEOUT after a finite one); where FREE images
 * are held, it reads the platform's release events meanwhile
 * (wait_release), in slices of 4 ms between looks at the free list. A swapchain
 * passed as oldSwapchain is retired: acquires return
 * VK_ERROR_OUT_OF_DATE_KHR, images already acquired may still be presented.
 *
 * Not taken: VK_KHR_swapchain's device-group parts (they need 1.1 or
 * VK_KHR_device_group), VK_KHR_incremental_present, present ids and waits,
 * shared presentable images, protected capabilities.
 *
 * Threading: a swapchain's image states, its queue of presented images and
 * its flags are guarded by its mutex; the present thread (for queued
 * images) and vkDestroySwapchainKHR (for pending presents) wait on one of
 * its conditions, acquirers (for freed images, status changes) on the
 * other, so neither is woken for the other's events; the present thread
 * wakes acquirers, and a present's queue callback the present thread,
 * after releasing the mutex, not while holding it (the callback, whose
 * present is still pending then, takes the mutex once more to count it
 * done, and wakes a vkDestroySwapchainKHR waiting for that under it).
 * Device sync objects are signalled under the device's sync_mutex, never
 * while holding the swapchain's; their waiters are woken after it.
 * vkDestroySwapchainKHR waits for the presents still pending on the queue
 * (their callbacks reference the swapchain), then stops the present thread,
 * which first shows the images still queued, without waiting for refreshes
 * (the window keeps the last frame presented). The present thread is named
 * "shale-present" (for profilers).
 */
#ifndef SH_WSI_H
#define SH_WSI_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>
#ifdef VK_USE_PLATFORM_XLIB_KHR
#include "driver/sd_xlib_types.h"
#endif
#include <vulkan/vk_icd.h>

struct sh_swapchain;

/* A surface: exactly the loader's layout for its platform. */
struct sh_surface {
   union {
      VkIcdSurfaceBase base;
      VkIcdSurfaceHeadless headless;
#ifdef VK_USE_PLATFORM_XCB_KHR
      VkIcdSurfaceXcb xcb;
#endif
#ifdef VK_USE_PLATFORM_XLIB_KHR
      VkIcdSurfaceXlib xlib;
#endif
#ifdef VK_USE_PLATFORM_WAYLAND_KHR
      VkIcdSurfaceWayland wayland;
#endif
   };
};

/* A zeroed surface of the given platform from pAllocator (or the
 * instance's), freed by vkDestroySurfaceKHR; NULL when out of memory. */
struct sd_instance;
struct sh_surface *sh_surface_alloc(struct sd_instance *instance,
                                    const VkAllocationCallbacks *pAllocator,
                                    VkIcdWsiPlatform platform);

/* What a surface's platform does. */
struct sh_wsi_platform {
   VkIcdWsiPlatform id;
   /* Fills what depends on the window (currentExtent, image extents and
    * counts); the caller fills the rest. VK_ERROR_SURFACE_LOST_KHR when the
    * window is gone. */
   VkResult (*get_capabilities)(struct sh_surface *surface, VkSurfaceCapabilitiesKHR *caps);
   /* Per-swapchain state (may stay NULL); called at creation, before the
    * images are made (it may ask for shareable ones:
    * sh_swapchain_share_images), unwound by finish. */
   VkResult (*init)(struct sh_swapchain *chain, struct sh_surface *surface);
   /* May be NULL: called once the images exist (and their memory is bound),
    * before the swapchain is returned; a failure unwinds init too. */
   VkResult (*images_ready)(struct sh_swapchain *chain);
   void (*finish)(struct sh_swapchain *chain);
   /* The refresh period in ns (0: no refreshes, only IMMEDIATE pacing). */
   uint64_t (*refresh_ns)(struct sh_swapchain *chain);
   /* May be NULL (the refresh clock is all the pacing): from the present
    * thread, without the swapchain's mutex, in every mode but IMMEDIATE,
    * before the image at the head of the queue is taken off it for
    * display(): returns once the window system is ready for another image
    * (Wayland: the last commit's frame callback came, or a bounded wait
    * for it ended). The head stays QUEUED meanwhile, so a MAILBOX present
    * still replaces it. VK_SUCCESS, or an error that the next acquire and
    * present report (the image is still displayed). */
   VkResult (*wait_ready)(struct sh_swapchain *chain);
   /* Puts image `index` on the display, from the present thread, without
    * the swapchain's mutex. VK_SUCCESS, VK_SUBOPTIMAL_KHR, or an error that
    * the next acquire and present report (VK_ERROR_OUT_OF_DATE_KHR,
    * VK_ERROR_SURFACE_LOST_KHR). The engine frees the image shown before
    * once it returns, so by then the window system must be done reading
    * that one; where settle is not NULL, `index`'s own requests may still
    * be in flight on return, and the result may be an earlier display's
    * (the one display() or settle() finished). */
   VkResult (*display)(struct sh_swapchain *chain, uint32_t index);
   /* May be NULL (display() finishes its work): from the present thread,
    * without the swapchain's mutex, after a display() and before the
    * thread sleeps (its head waiting for a refresh, or its queue empty
    * SH_SETTLE_DELAY_NS after that display) or stops: finishes what the
    * last display() left in flight; returns what display() would have. */
   VkResult (*settle)(struct sh_swapchain *chain);
   /* May be NULL (a platform that never holds images): from
    * vkAcquireNextImageKHR, without the swapchain's mutex, when every FREE
    * image is still held (sh_swapchain_hold_image): reads the window
    * system's events until it released one (VK_SUCCESS; a look without
    * waiting when deadline_ns has passed), VK_TIMEOUT at deadline_ns, or
    * VK_ERROR_SURFACE_LOST_KHR. */
   VkResult (*wait_release)(struct sh_swapchain *chain, uint64_t deadline_ns);
   /* Images an IMMEDIATE swapchain makes beyond the minImageCount asked
    * for (the spec allows more; at most SH_MAX_IMAGES in all). */
   uint32_t immediate_extra_images;
};

extern const struct sh_wsi_platform sh_wsi_headless;
#ifdef VK_USE_PLATFORM_XCB_KHR
extern const struct sh_wsi_platform sh_wsi_xcb;
#endif
#ifdef VK_USE_PLATFORM_WAYLAND_KHR
extern const struct sh_wsi_platform sh_wsi_wayland;
#endif

/* Image `index` of the swapchain: its pixels (row pitch in bytes) and
 * format, for a platform's display(). Valid for the swapchain's life. */
const uint8_t *sh_swapchain_pixels(struct sh_swapchain *chain, uint32_t index,
                                   uint64_t *row_pitch);
VkExtent2D sh_swapchain_extent(const struct sh_swapchain *chain);
VkFormat sh_swapchain_format(const struct sh_swapchain *chain);
VkPresentModeKHR sh_swapchain_present_mode(const struct sh_swapchain *chain);
uint32_t sh_swapchain_image_count(const struct sh_swapchain *chain);
/* The window system may still read image `index` (held) or no longer
 * does: acquires skip FREE images that are held. Takes the swapchain's
 * mutex. */
void sh_swapchain_hold_image(struct sh_swapchain *chain, uint32_t index, bool held);
/* From init: the images' memory is to be a memfd each (exportable
 * VkDeviceMemory) that another process can map, so a window system can read
 * an image where it was rendered. */
void sh_swapchain_share_images(struct sh_swapchain *chain);
bool sh_swapchain_images_shared(const struct sh_swapchain *chain);
/* For a swapchain whose images are shared: a new file descriptor (the
 * caller's to close) of image `index`'s memory, and where in that file its
 * texel (0, 0) lies; -1 (errno set) when the descriptor cannot be had. */
int sh_swapchain_image_fd(struct sh_swapchain *chain, uint32_t index, uint64_t *offset);
/* The platform's per-swapchain state. */
void *sh_swapchain_platform_data(struct sh_swapchain *chain);
void sh_swapchain_set_platform_data(struct sh_swapchain *chain, void *data);
const VkAllocationCallbacks *sh_swapchain_alloc(const struct sh_swapchain *chain);

#endif
