/* Desktop WSI: surface queries, swapchains, acquire and present (design in sh_wsi.h). */
#include "sh_wsi.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/sd_alloc.h"
#include "driver/sd_device.h"
#include "driver/sd_entrypoints.h"
#include "driver/sd_image.h"
#include "driver/sd_instance.h"
#include "driver/sd_memory.h"
#include "driver/sd_physical_device.h"
#include "driver/sd_queue.h"
#include "driver/sd_sync.h"
#include "driver/sd_util.h"
#include "util/su_log.h"

#define SH_MIN_IMAGES 2
#define SH_MAX_IMAGES 8
/* An acquire waiting for the window system to release an image looks at
 * the engine's free list at least this often. */
#define SH_RELEASE_SLICE_NS 4000000ull
/* The present thread finishes a display (the platform's settle) once no
 * image came for this long after it, or when its next display() does. */
#define SH_SETTLE_DELAY_NS 16000000ull

enum sh_image_state {
   SH_IMAGE_FREE,
   SH_IMAGE_ACQUIRED,
   SH_IMAGE_SUBMITTED,
   SH_IMAGE_QUEUED,
   SH_IMAGE_SHOWN,
};

struct sh_swapchain_image {
   VkImage image;
   VkDeviceMemory memory;
   enum sh_image_state state;
   uint64_t freed;        /* FREE: when it was freed (a serial), for acquire order */
   uint64_t queued_ns;    /* QUEUED: when the queue thread handed it over */
   bool held;             /* the window system may still read it (sh_swapchain_hold_image) */
};

struct sh_swapchain {
   struct sd_object base;
   struct sd_device *device;
   VkAllocationCallbacks alloc;   /* the swapchain's, for itself, its images and memory */
   const struct sh_wsi_platform *platform;
   void *platform_data;
   VkPresentModeKHR mode;
   VkExtent2D extent;
   VkFormat format;
   uint32_t image_count;
   bool share_images;             /* memfd-backed image memory (sh_swapchain_share_images) */
   struct sh_swapchain_image *images;

   pthread_mutex_t mutex;
   /* Both CLOCK_MONOTONIC. cond: the present thread's (an image queued,
    * stop) and vkDestroySwapchainKHR's (pending presents done); freed:
    * vkAcquireNextImageKHR's (an image freed or released, retired, a new
    * status), so neither side is woken for the other's events. */
   pthread_cond_t cond;
   pthread_cond_t freed;
   pthread_t thread;
   bool stop;
   bool retired;
   VkResult status;               /* VK_SUCCESS, or what the platform last reported */
   uint32_t *queue;               /* QUEUED images in present order, a ring of image_count */
   uint32_t queue_head, queue_len;
   int32_t shown;                 /* the SHOWN image, or -1 */
   uint32_t pending;              /* presents whose queue callback has not run yet */
   bool destroying;               /* vkDestroySwapchainKHR waits for pending to reach 0 */
   uint64_t free_serial;
   /* Refresh k of the (virtual) display happens at epoch + k * refresh_ns. */
   uint64_t refresh_ns, epoch_ns;
   uint64_t last_refresh;         /* the refresh that showed the shown image */
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sh_swapchain, base, VkSwapchainKHR, VK_OBJECT_TYPE_SWAPCHAIN_KHR)

/* The desktop ICD offers the window-system extensions; the HAL module, which
 * does not carry this file, never does. */
__attribute__((constructor)) static void
sh_wsi_register(void)
{
   sd_instance_offer_desktop_wsi();
}

/* ---- surfaces ---- */

static struct sh_surface *
sh_surface_from_handle(VkSurfaceKHR h)
{
   return (struct sh_surface *)(uintptr_t)h;
}

static const struct sh_wsi_platform *
sh_surface_platform(const struct sh_surface *s)
{
   if (!s)
      return NULL;
   switch (s->base.platform) {
   case VK_ICD_WSI_PLATFORM_HEADLESS:
      return &sh_wsi_headless;
#ifdef VK_USE_PLATFORM_XCB_KHR
   case VK_ICD_WSI_PLATFORM_XCB:
#ifdef VK_USE_PLATFORM_XLIB_KHR
   case VK_ICD_WSI_PLATFORM_XLIB:
#endif
      return &sh_wsi_xcb;
#endif
#ifdef VK_USE_PLATFORM_WAYLAND_KHR
   case VK_ICD_WSI_PLATFORM_WAYLAND:
      return &sh_wsi_wayland;
#endif
   default:
      return NULL;
   }
}

struct sh_surface *
sh_surface_alloc(struct sd_instance *instance, const VkAllocationCallbacks *pAllocator,
                 VkIcdWsiPlatform platform)
{
   struct sh_surface *s = sd_zalloc(sd_choose_alloc(pAllocator, &instance->alloc), sizeof(*s),
                                    SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (s)
      s->base.platform = platform;
   return s;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroySurfaceKHR(VkInstance _instance, VkSurfaceKHR surface,
                     const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   sd_free(sd_choose_alloc(pAllocator, &instance->alloc), sh_surface_from_handle(surface));
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physicalDevice, uint32_t queueFamilyIndex,
                                      VkSurfaceKHR surface, VkBool32 *pSupported)
{
   const struct sh_wsi_platform *p = sh_surface_platform(sh_surface_from_handle(surface));
   if (!p)
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "surface of an unknown platform");
   /* One queue family, and it presents to every surface Shale knows. */
   *pSupported = queueFamilyIndex == 0;
   return VK_SUCCESS;
}

/* The formats swapchains offer, as far as the device can render to them. */
static const VkFormat sh_formats[] = {
   VK_FORMAT_B8G8R8A8_UNORM,
   VK_FORMAT_B8G8R8A8_SRGB,
   VK_FORMAT_R8G8B8A8_UNORM,
   VK_FORMAT_R8G8B8A8_SRGB,
};

/* Image usages every offered format allows (optimal tiling). */
static VkImageUsageFlags
sh_supported_usage(VkPhysicalDevice pdev)
{
   VkFormatFeatureFlags common = ~(VkFormatFeatureFlags)0;
   for (unsigned i = 0; i < sizeof(sh_formats) / sizeof(sh_formats[0]); i++) {
      VkFormatProperties fp;
      sd_GetPhysicalDeviceFormatProperties(pdev, sh_formats[i], &fp);
      if (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)
         common &= fp.optimalTilingFeatures;
   }
   VkImageUsageFlags usage = 0;
   if (common & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)
      usage |= VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT;
   if (common & VK_FORMAT_FEATURE_TRANSFER_SRC_BIT)
      usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
   if (common & VK_FORMAT_FEATURE_TRANSFER_DST_BIT)
      usage |= VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   if (common & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
      usage |= VK_IMAGE_USAGE_SAMPLED_BIT;
   if (common & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)
      usage |= VK_IMAGE_USAGE_STORAGE_BIT;
   return usage;
}

static VkResult
sh_surface_capabilities(VkPhysicalDevice pdev, VkSurfaceKHR surface, VkSurfaceCapabilitiesKHR *caps)
{
   struct sh_surface *s = sh_surface_from_handle(surface);
   const struct sh_wsi_platform *p = sh_surface_platform(s);
   if (!p)
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "surface of an unknown platform");
   VkPhysicalDeviceProperties props;
   sd_GetPhysicalDeviceProperties(pdev, &props);
   const uint32_t max_dim = props.limits.maxImageDimension2D;
   *caps = (VkSurfaceCapabilitiesKHR) {
      .minImageCount = SH_MIN_IMAGES,
      .maxImageCount = SH_MAX_IMAGES,
      .currentExtent = { UINT32_MAX, UINT32_MAX },
      .minImageExtent = { 1, 1 },
      .maxImageExtent = { max_dim, max_dim },
      .maxImageArrayLayers = 1,
      .supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      .currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      .supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
      .supportedUsageFlags = sh_supported_usage(pdev),
   };
   return p->get_capabilities(s, caps);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physicalDevice, VkSurfaceKHR surface,
                                           VkSurfaceCapabilitiesKHR *pSurfaceCapabilities)
{
   return sh_surface_capabilities(physicalDevice, surface, pSurfaceCapabilities);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceSurfaceCapabilities2KHR(VkPhysicalDevice physicalDevice,
                                            const VkPhysicalDeviceSurfaceInfo2KHR *pSurfaceInfo,
                                            VkSurfaceCapabilities2KHR *pSurfaceCapabilities)
{
   /* Nothing Shale offers extends either structure. */
   return sh_surface_capabilities(physicalDevice, pSurfaceInfo->surface,
                                  &pSurfaceCapabilities->surfaceCapabilities);
}

/* Calls emit(i, format) for every (format, colour space) pair offered.
 * Presentation never converts pixels: the bytes of an image reach the
 * window system as they are, which is what PASS_THROUGH_EXT promises, and
 * what an sRGB display shows as SRGB_NONLINEAR. */
static VkResult
sh_surface_formats(VkPhysicalDevice physicalDevice, VkSurfaceKHR surface, struct sd_outarray *out,
                   void (*emit)(void *elem, VkSurfaceFormatKHR f))
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   if (!sh_surface_platform(sh_surface_from_handle(surface)))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "surface of an unknown platform");
   const bool pass_through = pdev->instance->enabled_extensions.EXT_swapchain_colorspace;
   static const VkColorSpaceKHR spaces[] = { VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
                                             VK_COLOR_SPACE_PASS_THROUGH_EXT };
   for (unsigned s = 0; s < (pass_through ? 2u : 1u); s++) {
      for (unsigned i = 0; i < sizeof(sh_formats) / sizeof(sh_formats[0]); i++) {
         VkFormatProperties fp;
         sd_GetPhysicalDeviceFormatProperties(physicalDevice, sh_formats[i], &fp);
         if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
            continue;
         void *elem = sd_outarray_append(out);
         if (elem)
            emit(elem, (VkSurfaceFormatKHR) { sh_formats[i], spaces[s] });
      }
   }
   return sd_outarray_status(out);
}

static void
sh_emit_format(void *elem, VkSurfaceFormatKHR f)
{
   *(VkSurfaceFormatKHR *)elem = f;
}

static void
sh_emit_format2(void *elem, VkSurfaceFormatKHR f)
{
   ((VkSurfaceFormat2KHR *)elem)->surfaceFormat = f;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physicalDevice, VkSurfaceKHR surface,
                                      uint32_t *pSurfaceFormatCount,
                                      VkSurfaceFormatKHR *pSurfaceFormats)
{
   struct sd_outarray out;
   sd_outarray_init(&out, pSurfaceFormats, sizeof(*pSurfaceFormats), pSurfaceFormatCount);
   return sh_surface_formats(physicalDevice, surface, &out, sh_emit_format);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceSurfaceFormats2KHR(VkPhysicalDevice physicalDevice,
                                       const VkPhysicalDeviceSurfaceInfo2KHR *pSurfaceInfo,
                                       uint32_t *pSurfaceFormatCount,
                                       VkSurfaceFormat2KHR *pSurfaceFormats)
{
   struct sd_outarray out;
   sd_outarray_init(&out, pSurfaceFormats, sizeof(*pSurfaceFormats), pSurfaceFormatCount);
   return sh_surface_formats(physicalDevice, pSurfaceInfo->surface, &out, sh_emit_format2);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physicalDevice, VkSurfaceKHR surface,
                                           uint32_t *pPresentModeCount,
                                           VkPresentModeKHR *pPresentModes)
{
   if (!sh_surface_platform(sh_surface_from_handle(surface)))
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "surface of an unknown platform");
   static const VkPresentModeKHR modes[] = {
      VK_PRESENT_MODE_FIFO_KHR,
      VK_PRESENT_MODE_FIFO_RELAXED_KHR,
      VK_PRESENT_MODE_MAILBOX_KHR,
      VK_PRESENT_MODE_IMMEDIATE_KHR,
   };
   struct sd_outarray out;
   sd_outarray_init(&out, pPresentModes, sizeof(*pPresentModes), pPresentModeCount);
   for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
      VkPresentModeKHR *m = sd_outarray_append(&out);
      if (m)
         *m = modes[i];
   }
   return sd_outarray_status(&out);
}

/* ---- the presentation engine ---- */

static void
sh_cond_init_monotonic(pthread_cond_t *cond)
{
   pthread_condattr_t attr;
   pthread_condattr_init(&attr);
   pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
   pthread_cond_init(cond, &attr);
   pthread_condattr_destroy(&attr);
}

/* Waits on one of the swapchain's conditions (mutex held) until an
 * absolute CLOCK_MONOTONIC deadline (UINT64_MAX: forever); false once it
 * passed. */
static bool
sh_chain_wait(struct sh_swapchain *chain, pthread_cond_t *cond, uint64_t deadline_ns)
{
   if (deadline_ns == UINT64_MAX) {
      pthread_cond_wait(cond, &chain->mutex);
      return true;
   }
   struct timespec ts = { .tv_sec = (time_t)(deadline_ns / 1000000000u),
                          .tv_nsec = (long)(deadline_ns % 1000000000u) };
   return pthread_cond_timedwait(cond, &chain->mutex, &ts) == 0;
}

/* Mutex held: image i goes back to the engine's free list. The caller
 * wakes the acquirers (chain->freed). */
static void
sh_image_free_locked(struct sh_swapchain *chain, uint32_t i)
{
   chain->images[i].state = SH_IMAGE_FREE;
   chain->images[i].freed = ++chain->free_serial;
}

/* Mutex held: the first refresh at or after t. */
static uint64_t
sh_refresh_at_or_after(const struct sh_swapchain *chain, uint64_t t)
{
   return (t - chain->epoch_ns + chain->refresh_ns - 1) / chain->refresh_ns;
}

/* Mutex held, queue not empty: 0 when the head may be shown now, else the
 * time (ns) to wait for. Sets *refresh to the refresh that shows it. */
static uint64_t
sh_head_due(struct sh_swapchain *chain, uint64_t now, uint64_t *refresh)
{
   const uint64_t period = chain->refresh_ns;
   if (chain->mode == VK_PRESENT_MODE_IMMEDIATE_KHR || !period) {
      *refresh = period ? (now - chain->epoch_ns) / period : 0;
      return 0;
   }
   const struct sh_swapchain_image *head = &chain->images[chain->queue[chain->queue_head]];
   /* The first refresh after the one that showed the previous image, and
    * not before the image arrived. */
   uint64_t due = sh_refresh_at_or_after(chain, head->queued_ns);
   const uint64_t next = chain->shown >= 0 ? chain->last_refresh + 1 : 0;
   if (chain->mode == VK_PRESENT_MODE_FIFO_RELAXED_KHR && chain->shown >= 0 && due > next) {
      /* Refresh `next` came and found nothing to show: this late image is
       * shown at once (tearing), as part of the refresh in progress. */
      *refresh = (now - chain->epoch_ns) / period;
      return 0;
   }
   if (due < next)
      due = next;
   const uint64_t when = chain->epoch_ns + due * period;
   *refresh = due;
   return when <= now ? 0 : when;
}

static void *
sh_present_thread(void *arg)
{
   struct sh_swapchain *chain = arg;
   pthread_setname_np(pthread_self(), "shale-present");   /* for profilers */
   pthread_mutex_lock(&chain->mutex);
   /* The platform's wait_ready was met for the next display. */
   bool ready = !chain->platform->wait_ready || chain->mode == VK_PRESENT_MODE_IMMEDIATE_KHR;
   /* A display() left work in flight that settle() has not finished;
    * with the queue empty, it is finished at settle_by at the latest. */
   bool unsettled = false;
   uint64_t settle_by = 0;
   for (;;) {
      uint64_t refresh = 0, when = 0;
      if (chain->queue_len) {
         when = sh_head_due(chain, sd_now_ns(), &refresh);
         if (chain->stop)
            when = 0;   /* destruction: show what was presented, without waiting */
      }
      if (!chain->queue_len && unsettled && !chain->stop &&
          sh_chain_wait(chain, &chain->cond, settle_by)) {
         /* Waiting a while for the next image before finishing the last
          * display: a display() reads the previous one's reply after
          * sending its own requests, by when it has come, so an
          * application presenting faster than SH_SETTLE_DELAY_NS costs
          * no wait for the server's reply (and no wake-up by it) a
          * frame. Woken (an image, stop, or spuriously): look again. */
         continue;
      }
      if ((!chain->queue_len || when) && unsettled) {
         /* About to sleep (or idle since settle_by): first finish the
          * last display, so its status is known before the engine idles
          * (and nothing is in flight when it stops). Then look again. */
         unsettled = false;
         pthread_mutex_unlock(&chain->mutex);
         VkResult r = chain->platform->settle(chain);
         pthread_mutex_lock(&chain->mutex);
         if (r != VK_SUCCESS && chain->status >= 0) {
            chain->status = r;
            pthread_cond_broadcast(&chain->freed);
         }
         continue;
      }
      if (!chain->queue_len) {
         if (chain->stop)
            break;
         sh_chain_wait(chain, &chain->cond, UINT64_MAX);
         continue;
      }
      if (when) {
         /* A newer image may replace the head meanwhile (MAILBOX). */
         sh_chain_wait(chain, &chain->cond, when);
         continue;
      }
      if (!ready && !chain->stop) {
         /* The head stays queued (a MAILBOX present may replace it) while
          * the window system is not ready for it; then look again. */
         pthread_mutex_unlock(&chain->mutex);
         VkResult r = chain->platform->wait_ready(chain);
         pthread_mutex_lock(&chain->mutex);
         if (r != VK_SUCCESS && chain->status >= 0)
            chain->status = r;
         ready = true;
         continue;
      }
      ready = !chain->platform->wait_ready || chain->mode == VK_PRESENT_MODE_IMMEDIATE_KHR;
      uint32_t index = chain->queue[chain->queue_head];
      chain->queue_head = (chain->queue_head + 1) % chain->image_count;
      chain->queue_len--;
      chain->images[index].state = SH_IMAGE_SHOWN;
      pthread_mutex_unlock(&chain->mutex);
      VkResult r = chain->platform->display(chain, index);
      pthread_mutex_lock(&chain->mutex);
      unsettled = chain->platform->settle != NULL;
      settle_by = sd_now_ns() + SH_SETTLE_DELAY_NS;
      if (r != VK_SUCCESS && chain->status >= 0)
         chain->status = r;
      if (chain->shown >= 0)
         sh_image_free_locked(chain, (uint32_t)chain->shown);
      chain->shown = (int32_t)index;
      chain->last_refresh = refresh;
      /* Woken outside the mutex, so an acquirer does not wake only to wait
       * for it (this thread keeps the swapchain alive: destruction joins
       * it first). */
      pthread_mutex_unlock(&chain->mutex);
      pthread_cond_broadcast(&chain->freed);
      pthread_mutex_lock(&chain->mutex);
   }
   pthread_mutex_unlock(&chain->mutex);
   return NULL;
}

/* Mutex held: the queue thread hands a presented image to the engine.
 * The caller wakes the present thread (chain->cond), and the acquirers
 * (chain->freed) where this returns true: a queued MAILBOX image was
 * replaced, and freed. */
static bool
sh_engine_push_locked(struct sh_swapchain *chain, uint32_t index)
{
   struct sh_swapchain_image *img = &chain->images[index];
   img->state = SH_IMAGE_QUEUED;
   img->queued_ns = sd_now_ns();
   if (chain->mode == VK_PRESENT_MODE_MAILBOX_KHR && chain->queue_len) {
      /* Replace the image waiting for the refresh; it is never shown. */
      sh_image_free_locked(chain, chain->queue[chain->queue_head]);
      chain->queue[chain->queue_head] = index;
      return true;
   }
   chain->queue[(chain->queue_head + chain->queue_len) % chain->image_count] = index;
   chain->queue_len++;
   return false;
}

/* ---- swapchains ---- */

const uint8_t *
sh_swapchain_pixels(struct sh_swapchain *chain, uint32_t index, uint64_t *row_pitch)
{
   struct sd_image *img = sd_image_from_handle(chain->images[index].image);
   *row_pitch = img->levels[0].row_pitch;
   return img->data;
}

VkExtent2D
sh_swapchain_extent(const struct sh_swapchain *chain)
{
   return chain->extent;
}

VkFormat
sh_swapchain_format(const struct sh_swapchain *chain)
{
   return chain->format;
}

VkPresentModeKHR
sh_swapchain_present_mode(const struct sh_swapchain *chain)
{
   return chain->mode;
}

void *
sh_swapchain_platform_data(struct sh_swapchain *chain)
{
   return chain->platform_data;
}

void
sh_swapchain_set_platform_data(struct sh_swapchain *chain, void *data)
{
   chain->platform_data = data;
}

const VkAllocationCallbacks *
sh_swapchain_alloc(const struct sh_swapchain *chain)
{
   return &chain->alloc;
}

uint32_t
sh_swapchain_image_count(const struct sh_swapchain *chain)
{
   return chain->image_count;
}

void
sh_swapchain_hold_image(struct sh_swapchain *chain, uint32_t index, bool held)
{
   pthread_mutex_lock(&chain->mutex);
   chain->images[index].held = held;
   if (!held)
      pthread_cond_broadcast(&chain->freed);
   pthread_mutex_unlock(&chain->mutex);
}

void
sh_swapchain_share_images(struct sh_swapchain *chain)
{
   chain->share_images = true;
}

bool
sh_swapchain_images_shared(const struct sh_swapchain *chain)
{
   return chain->share_images;
}

int
sh_swapchain_image_fd(struct sh_swapchain *chain, uint32_t index, uint64_t *offset)
{
   struct sd_device_memory *mem = sd_device_memory_from_handle(chain->images[index].memory);
   const struct sd_image *img = sd_image_from_handle(chain->images[index].image);
   assert(chain->share_images && mem->fd >= 0);
   /* An exportable allocation's file is [header page][payload] (sd_memory.h). */
   const long page = sysconf(_SC_PAGESIZE);
   *offset = (uint64_t)(page > 0 ? page : 4096) + (uint64_t)(img->data - mem->data);
   return fcntl(mem->fd, F_DUPFD_CLOEXEC, 0);
}

static void
sh_swapchain_images_destroy(struct sh_swapchain *chain)
{
   VkDevice dev = sd_device_to_handle(chain->device);
   for (uint32_t i = 0; i < chain->image_count; i++) {
      sd_DestroyImage(dev, chain->images[i].image, &chain->alloc);
      sd_FreeMemory(dev, chain->images[i].memory, &chain->alloc);
   }
}

static VkResult
sh_swapchain_images_create(struct sh_swapchain *chain, const VkSwapchainCreateInfoKHR *ci)
{
   VkDevice dev = sd_device_to_handle(chain->device);
   const VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = ci->imageFormat,
      .extent = { ci->imageExtent.width, ci->imageExtent.height, 1 },
      .mipLevels = 1,
      .arrayLayers = ci->imageArrayLayers,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = ci->imageUsage,
      .sharingMode = ci->imageSharingMode,
      .queueFamilyIndexCount = ci->queueFamilyIndexCount,
      .pQueueFamilyIndices = ci->pQueueFamilyIndices,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   /* Shared images: a memfd each, which the window system maps. */
   const VkExportMemoryAllocateInfo export = {
      .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
      .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
   };
   for (uint32_t i = 0; i < chain->image_count; i++) {
      struct sh_swapchain_image *img = &chain->images[i];
      VkResult r = sd_CreateImage(dev, &ici, &chain->alloc, &img->image);
      if (r == VK_SUCCESS) {
         VkMemoryRequirements req;
         sd_GetImageMemoryRequirements(dev, img->image, &req);
         const VkMemoryAllocateInfo mai = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
            .pNext = chain->share_images ? &export : NULL,
            .allocationSize = req.size,
            .memoryTypeIndex = (uint32_t)__builtin_ctz(req.memoryTypeBits),
         };
         r = sd_AllocateMemory(dev, &mai, &chain->alloc, &img->memory);
         if (r == VK_SUCCESS)
            r = sd_BindImageMemory(dev, img->image, img->memory, 0);
      }
      if (r != VK_SUCCESS) {
         /* Unmade handles are VK_NULL_HANDLE: destroying them does nothing. */
         chain->image_count = i + 1;
         sh_swapchain_images_destroy(chain);
         return r;
      }
      img->state = SH_IMAGE_FREE;
      img->freed = ++chain->free_serial;
   }
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateSwapchainKHR(VkDevice _device, const VkSwapchainCreateInfoKHR *pCreateInfo,
                      const VkAllocationCallbacks *pAllocator, VkSwapchainKHR *pSwapchain)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sh_swapchain, old, pCreateInfo->oldSwapchain);
   struct sh_surface *surface = sh_surface_from_handle(pCreateInfo->surface);
   const struct sh_wsi_platform *platform = sh_surface_platform(surface);
   if (!platform)
      return sd_errorf(VK_ERROR_SURFACE_LOST_KHR, "surface of an unknown platform");
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   uint32_t count = pCreateInfo->minImageCount;
   if (pCreateInfo->presentMode == VK_PRESENT_MODE_IMMEDIATE_KHR) {
      /* Valid usage keeps minImageCount within SH_MAX_IMAGES. */
      count += platform->immediate_extra_images;
      if (count > SH_MAX_IMAGES)
         count = SH_MAX_IMAGES > pCreateInfo->minImageCount ? SH_MAX_IMAGES
                                                             : pCreateInfo->minImageCount;
   }
   size_t size = sizeof(struct sh_swapchain) + count * (sizeof(struct sh_swapchain_image) +
                                                        sizeof(uint32_t));
   struct sh_swapchain *chain =
      sd_device_object_alloc(device, pAllocator, size, VK_OBJECT_TYPE_SWAPCHAIN_KHR);
   if (!chain)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   chain->device = device;
   chain->alloc = *sd_choose_alloc(pAllocator, &device->alloc);
   chain->platform = platform;
   chain->mode = pCreateInfo->presentMode;
   chain->extent = pCreateInfo->imageExtent;
   chain->format = pCreateInfo->imageFormat;
   chain->image_count = count;
   chain->images = (struct sh_swapchain_image *)(chain + 1);
   chain->queue = (uint32_t *)(chain->images + count);
   chain->shown = -1;

   VkResult r = platform->init(chain, surface);
   if (r != VK_SUCCESS) {
      sd_device_object_free(device, pAllocator, chain);
      return r;
   }
   r = sh_swapchain_images_create(chain, pCreateInfo);
   if (r == VK_SUCCESS && platform->images_ready) {
      r = platform->images_ready(chain);
      if (r != VK_SUCCESS)
         sh_swapchain_images_destroy(chain);
   }
   if (r != VK_SUCCESS) {
      platform->finish(chain);
      sd_device_object_free(device, pAllocator, chain);
      return r;
   }
   chain->refresh_ns = platform->refresh_ns(chain);
   chain->epoch_ns = sd_now_ns();
   pthread_mutex_init(&chain->mutex, NULL);
   sh_cond_init_monotonic(&chain->cond);
   sh_cond_init_monotonic(&chain->freed);
   if (pthread_create(&chain->thread, NULL, sh_present_thread, chain) != 0) {
      pthread_cond_destroy(&chain->freed);
      pthread_cond_destroy(&chain->cond);
      pthread_mutex_destroy(&chain->mutex);
      platform->finish(chain);
      sh_swapchain_images_destroy(chain);
      sd_device_object_free(device, pAllocator, chain);
      return sd_errorf(VK_ERROR_INITIALIZATION_FAILED, "cannot start a present thread");
   }

   /* Only a swapchain that was made retires the old one. */
   if (old) {
      pthread_mutex_lock(&old->mutex);
      old->retired = true;
      pthread_cond_broadcast(&old->freed);
      pthread_mutex_unlock(&old->mutex);
   }
   *pSwapchain = sh_swapchain_to_handle(chain);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroySwapchainKHR(VkDevice _device, VkSwapchainKHR swapchain,
                       const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sh_swapchain, chain, swapchain);
   if (!chain)
      return;
   /* Presents still queued reference the swapchain: let their callbacks
    * run (the queue thread waits their semaphores), then stop the engine. */
   pthread_mutex_lock(&chain->mutex);
   chain->destroying = true;
   while (chain->pending)
      sh_chain_wait(chain, &chain->cond, UINT64_MAX);
   chain->stop = true;
   pthread_cond_broadcast(&chain->cond);
   pthread_mutex_unlock(&chain->mutex);
   pthread_join(chain->thread, NULL);
   pthread_cond_destroy(&chain->freed);
   pthread_cond_destroy(&chain->cond);
   pthread_mutex_destroy(&chain->mutex);
   chain->platform->finish(chain);
   sh_swapchain_images_destroy(chain);
   sd_device_object_free(device, pAllocator, chain);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSwapchainImagesKHR(VkDevice device, VkSwapchainKHR swapchain, uint32_t *pSwapchainImageCount,
                         VkImage *pSwapchainImages)
{
   SD_FROM_HANDLE(sh_swapchain, chain, swapchain);
   struct sd_outarray out;
   sd_outarray_init(&out, pSwapchainImages, sizeof(*pSwapchainImages), pSwapchainImageCount);
   for (uint32_t i = 0; i < chain->image_count; i++) {
      VkImage *p = sd_outarray_append(&out);
      if (p)
         *p = chain->images[i].image;
   }
   return sd_outarray_status(&out);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_AcquireNextImageKHR(VkDevice _device, VkSwapchainKHR swapchain, uint64_t timeout,
                       VkSemaphore semaphore, VkFence fence, uint32_t *pImageIndex)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sh_swapchain, chain, swapchain);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   const uint64_t deadline = sd_deadline_ns(timeout);
   VkResult r;
   pthread_mutex_lock(&chain->mutex);
   bool polled = false;
   for (bool timed_out = false;;) {
      if (chain->retired) {
         r = VK_ERROR_OUT_OF_DATE_KHR;
         break;
      }
      if (chain->status < 0) {
         r = chain->status;
         break;
      }
      int32_t best = -1;
      bool held = false;
      for (uint32_t i = 0; i < chain->image_count; i++) {
         if (chain->images[i].state != SH_IMAGE_FREE)
            continue;
         if (chain->images[i].held)
            held = true;
         else if (best < 0 || chain->images[i].freed < chain->images[best].freed)
            best = (int32_t)i;
      }
      if (best >= 0) {
         chain->images[best].state = SH_IMAGE_ACQUIRED;
         *pImageIndex = (uint32_t)best;
         r = chain->status;   /* VK_SUCCESS or VK_SUBOPTIMAL_KHR */
         break;
      }
      if (held && chain->platform->wait_release) {
         /* Free images the window system still reads: its release events
          * come through the platform, which this thread reads (once for a
          * timeout of 0, else in short slices, since the engine may free
          * an image that is not held meanwhile: a replaced MAILBOX one). */
         if (timeout == 0 ? polled : timed_out) {
            r = timeout == 0 ? VK_NOT_READY : VK_TIMEOUT;
            break;
         }
         pthread_mutex_unlock(&chain->mutex);
         const uint64_t now = sd_now_ns();
         uint64_t until = timeout == 0 ? now : now + SH_RELEASE_SLICE_NS;
         if (until > deadline)
            until = deadline;
         VkResult w = chain->platform->wait_release(chain, until);
         pthread_mutex_lock(&chain->mutex);
         polled = true;
         if (w < 0) {
            if (chain->status >= 0)
               chain->status = w;
            continue;
         }
         timed_out = timeout != 0 && sd_now_ns() >= deadline;
         continue;
      }
      if (timeout == 0) {
         r = VK_NOT_READY;
         break;
      }
      if (timed_out) {
         r = VK_TIMEOUT;
         break;
      }
      /* Look once more after the deadline, as sd_sync_host_wait does. */
      timed_out = !sh_chain_wait(chain, &chain->freed, deadline);
   }
   pthread_mutex_unlock(&chain->mutex);
   if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR)
      return r;

   /* The engine is done with a FREE image: signal at once. */
   SD_FROM_HANDLE(sd_semaphore, sem, semaphore);
   SD_FROM_HANDLE(sd_fence, f, fence);
   pthread_mutex_lock(&device->sync_mutex);
   if (sem)
      sd_semaphore_signal_locked(device, sem, 0);
   if (f)
      sd_fence_signal_locked(device, f);
   pthread_mutex_unlock(&device->sync_mutex);
   sd_device_sync_broadcast(device);   /* after the unlock (sd_sync.h) */
   return r;
}

/* One vkQueuePresentKHR, for its callback on the queue thread. */
struct sh_present {
   struct sd_device *device;
   uint32_t count;
   struct sh_present_item {
      struct sh_swapchain *chain;
      uint32_t index;
   } items[];
};

/* Queue thread: the present's waits are met and earlier work is done. */
static void
sh_present_run(void *data)
{
   struct sh_present *p = data;
   for (uint32_t i = 0; i < p->count; i++) {
      struct sh_swapchain *chain = p->items[i].chain;
      pthread_mutex_lock(&chain->mutex);
      const bool replaced = sh_engine_push_locked(chain, p->items[i].index);
      pthread_mutex_unlock(&chain->mutex);
      /* Woken once the mutex is free, so the present thread does not wake
       * only to block on it; the swapchain is alive meanwhile, since this
       * present is still pending (vkDestroySwapchainKHR waits for it). */
      pthread_cond_broadcast(&chain->cond);
      if (replaced)
         pthread_cond_broadcast(&chain->freed);
      /* The last touch of the swapchain: a destroyer waiting for it is
       * woken before the mutex is released. */
      pthread_mutex_lock(&chain->mutex);
      if (--chain->pending == 0 && chain->destroying)
         pthread_cond_broadcast(&chain->cond);
      pthread_mutex_unlock(&chain->mutex);
   }
   sd_free(&p->device->alloc, p);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_QueuePresentKHR(VkQueue _queue, const VkPresentInfoKHR *pPresentInfo)
{
   SD_FROM_HANDLE(sd_queue, queue, _queue);
   struct sd_device *device = queue->device;
   const uint32_t n = pPresentInfo->swapchainCount;
   struct sh_present *p = sd_alloc(&device->alloc, sizeof(*p) + n * sizeof(p->items[0]),
                                   SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
   if (!p)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   p->device = device;
   p->count = n;
   for (uint32_t i = 0; i < n; i++) {
      struct sh_swapchain *chain = sh_swapchain_from_handle(pPresentInfo->pSwapchains[i]);
      const uint32_t index = pPresentInfo->pImageIndices[i];
      p->items[i].chain = chain;
      p->items[i].index = index;
      pthread_mutex_lock(&chain->mutex);
      assert(chain->images[index].state == SH_IMAGE_ACQUIRED);
      chain->images[index].state = SH_IMAGE_SUBMITTED;
      chain->pending++;
      pthread_mutex_unlock(&chain->mutex);
   }
   VkResult r = sd_queue_submit_callback(queue, pPresentInfo->waitSemaphoreCount,
                                         pPresentInfo->pWaitSemaphores, sh_present_run, p);
   if (r != VK_SUCCESS) {
      /* Nothing was queued: the images stay the application's. */
      for (uint32_t i = 0; i < n; i++) {
         struct sh_swapchain *chain = p->items[i].chain;
         pthread_mutex_lock(&chain->mutex);
         chain->images[p->items[i].index].state = SH_IMAGE_ACQUIRED;
         chain->pending--;
         pthread_cond_broadcast(&chain->cond);
         pthread_mutex_unlock(&chain->mutex);
      }
      sd_free(&device->alloc, p);
      if (pPresentInfo->pResults) {
         for (uint32_t i = 0; i < n; i++)
            pPresentInfo->pResults[i] = r;
      }
      return r;
   }

   /* What each swapchain's platform last reported. */
   VkResult overall = VK_SUCCESS;
   for (uint32_t i = 0; i < n; i++) {
      struct sh_swapchain *chain = sh_swapchain_from_handle(pPresentInfo->pSwapchains[i]);
      pthread_mutex_lock(&chain->mutex);
      VkResult ri = chain->status;
      pthread_mutex_unlock(&chain->mutex);
      if (pPresentInfo->pResults)
         pPresentInfo->pResults[i] = ri;
      if (ri < 0 && overall >= 0)
         overall = ri;
      else if (ri == VK_SUBOPTIMAL_KHR && overall == VK_SUCCESS)
         overall = ri;
   }
   return overall;
}
