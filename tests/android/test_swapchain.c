/* Android's loader, emulated on the host: swapchain images on VK_ANDROID_native_buffer with fence fds. */
/*
 * What Android's loader (frameworks/native/vulkan/libvulkan) does with a
 * driver, played against vulkan.shale.so: dlopen + HMI + open("vk0"), the
 * dispatch magic on every dispatchable object (then overwritten, as the
 * loader does), VK_ANDROID_native_buffer enabled at device creation, gralloc
 * usage asked in the loader's order of preference, buffers from the host
 * gralloc (memfd native handles), swapchain images made both ways
 * (VkNativeBufferANDROID in vkCreateImage; VkImageSwapchainCreateInfoKHR then
 * vkBindImageMemory2 with VkNativeBufferANDROID, spec version 8), and a
 * present loop: acquire with a fence fd that another thread signals late,
 * clear or copy into the image, release, wait for the returned fd, and read
 * the pixels straight from the gralloc buffer. Then every swapchain format,
 * a shared presentable image, and the error paths, with open fds, gralloc
 * mappings and driver allocations counted before and after.
 *
 * References are independent of the driver: expected texels are written out
 * by hand from the format definitions, copies from a byte pattern.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <hardware/hwvulkan.h>
#include <vulkan/vk_android_native_buffer.h>

#include "hal/sh_gralloc.h"
#include "hal/sh_native_fence.h"

#include "check.h"
#include "loader_emu.h"

/* ABI values spelled out rather than taken from the driver's headers. */
#define ST_NATIVE_BUFFER ((VkStructureType)1000010000)
#define ST_SWAPCHAIN_IMAGE_CREATE ((VkStructureType)1000010001)
#define ST_PRESENTATION_PROPERTIES ((VkStructureType)1000010002)
#define ST_GRALLOC_USAGE_INFO ((VkStructureType)1000010003)
#define ST_GRALLOC_USAGE_INFO_2 ((VkStructureType)1000010004)
#define SHARED_BIT 0x1u
#define AHB_CPU_READ_OFTEN UINT64_C(0x3)
#define AHB_CPU_WRITE_OFTEN UINT64_C(0x30)
#define AHB_FRONT_BUFFER (UINT64_C(1) << 32)
#define HAL_RGBA_8888 0x1
#define HAL_RGBX_8888 0x2
#define HAL_RGB_565 0x4
#define HAL_BGRA_8888 0x5
#define HAL_RGBA_FP16 0x16
#define HAL_RGBA_1010102 0x2B

#define W 37          /* odd: the gralloc stride (48 pixels at 4 bytes) is wider */
#define H 23
#define NIMAGES 3
#define FRAMES 60
#define SENTINEL 0x5A /* every byte of a fresh buffer, padding included */
#define WAIT_MS 5000

/* ---- the driver, as the loader sees it ---- */

struct vk {
   union {
      struct emu_vk emu;
      struct { EMU_VK_FIELDS };
   };
   PFN_vkGetPhysicalDeviceProperties2KHR GetPhysicalDeviceProperties2KHR;
   PFN_vkBindImageMemory2KHR BindImageMemory2KHR;
   PFN_vkCreateSemaphore CreateSemaphore;
   PFN_vkDestroySemaphore DestroySemaphore;
   PFN_vkCreateFence CreateFence;
   PFN_vkDestroyFence DestroyFence;
   PFN_vkWaitForFences WaitForFences;
   PFN_vkResetFences ResetFences;
   PFN_vkGetFenceStatus GetFenceStatus;
   PFN_vkGetSwapchainGrallocUsageANDROID GetSwapchainGrallocUsageANDROID;
   PFN_vkGetSwapchainGrallocUsage2ANDROID GetSwapchainGrallocUsage2ANDROID;
   PFN_vkGetSwapchainGrallocUsage3ANDROID GetSwapchainGrallocUsage3ANDROID;
   PFN_vkGetSwapchainGrallocUsage4ANDROID GetSwapchainGrallocUsage4ANDROID;
   PFN_vkAcquireImageANDROID AcquireImageANDROID;
   PFN_vkQueueSignalReleaseImageANDROID QueueSignalReleaseImageANDROID;
};

/* ---- fence fds signalled late from another thread ---- */

static struct sh_fence_timeline timeline;

struct late_signal {
   pthread_t thread;
   struct sh_fence_pending pending;
   pthread_mutex_t mutex;
   pthread_cond_t cond;
   bool go;
   int delay_us;        /* wait this long, or until go */
   bool by_timeout;     /* the delay passed without go */
};

static void *
late_signal_thread(void *arg)
{
   struct late_signal *s = arg;
   struct timespec until;
   clock_gettime(CLOCK_REALTIME, &until);
   until.tv_sec += s->delay_us / 1000000;
   until.tv_nsec += (long)(s->delay_us % 1000000) * 1000;
   if (until.tv_nsec >= 1000000000) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000;
   }
   pthread_mutex_lock(&s->mutex);
   int r = 0;
   while (!s->go && r != ETIMEDOUT)
      r = pthread_cond_timedwait(&s->cond, &s->mutex, &until);
   s->by_timeout = !s->go;
   pthread_mutex_unlock(&s->mutex);
   sh_fence_signal(&timeline, &s->pending);
   return NULL;
}

/* A new fence fd; a thread signals it after delay_us, or when told to. */
static int
late_signal_start(struct late_signal *s, int delay_us)
{
   memset(s, 0, sizeof(*s));
   pthread_mutex_init(&s->mutex, NULL);
   pthread_cond_init(&s->cond, NULL);
   s->delay_us = delay_us;
   int fd = -1;
   int r = sh_fence_create(&timeline, &s->pending, &fd);
   CHECK(r == 0, "sh_fence_create: %d", r);
   if (r == 0)
      pthread_create(&s->thread, NULL, late_signal_thread, s);
   return fd;
}

static void
late_signal_go(struct late_signal *s)
{
   pthread_mutex_lock(&s->mutex);
   s->go = true;
   pthread_cond_signal(&s->cond);
   pthread_mutex_unlock(&s->mutex);
}

static void
late_signal_join(struct late_signal *s)
{
   pthread_join(s->thread, NULL);
   pthread_cond_destroy(&s->cond);
   pthread_mutex_destroy(&s->mutex);
}

static bool
fd_ready(int fd, int timeout_ms)
{
   struct pollfd p = { .fd = fd, .events = POLLIN };
   return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* ---- gralloc buffers and swapchain images ---- */

struct swap_image {
   native_handle_t *handle;
   uint32_t stride;          /* pixels, from the handle */
   uint32_t bpp;
   uint8_t *pixels;          /* the test's own mapping of the buffer */
   size_t bytes;
   VkImage image;
   VkFormat format;
   int hal_format;
   VkSemaphore render_done;
   VkCommandBuffer cmd;
};

static bool
buffer_alloc(struct swap_image *s, int hal_format, uint32_t bpp, uint64_t usage)
{
   int r = sh_gralloc_host_allocate(W, H, hal_format, usage, &s->handle);
   CHECK(r == 0, "host gralloc allocate: %d", r);
   if (r != 0)
      return false;
   s->stride = (uint32_t)s->handle->data[1 + 3];
   s->bpp = bpp;
   s->hal_format = hal_format;
   s->bytes = (size_t)s->stride * bpp * H;
   s->pixels = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, s->handle->data[0], 0);
   CHECK(s->pixels != MAP_FAILED, "mmap of the gralloc buffer: %d", errno);
   if (s->pixels == MAP_FAILED)
      return false;
   memset(s->pixels, SENTINEL, s->bytes);
   return true;
}

static void
buffer_free(struct swap_image *s)
{
   if (s->pixels && s->pixels != MAP_FAILED)
      munmap(s->pixels, s->bytes);
   sh_gralloc_host_free(s->handle);
   s->handle = NULL;
   s->pixels = NULL;
}

static VkNativeBufferANDROID
native_buffer(const struct swap_image *s, uint64_t usage)
{
   VkNativeBufferANDROID nb;
   memset(&nb, 0, sizeof(nb));
   nb.sType = ST_NATIVE_BUFFER;
   nb.handle = s->handle;
   nb.stride = (int)s->stride;
   nb.format = s->hal_format;
   nb.usage = (int)(uint32_t)usage;
   nb.usage2.producer = 0;   /* as a loader on gralloc 4: usage3 carries it all */
   nb.usage3 = usage;
   return nb;
}

static VkImageCreateInfo
image_info(VkFormat format, VkImageUsageFlags usage, const void *pnext)
{
   return (VkImageCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .pNext = pnext,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = { W, H, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
}

#define IMAGE_USAGE (VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT)

/* The two ways the loader wraps a buffer in an image. */
static VkResult
image_create(struct vk *v, struct swap_image *s, bool bind_path, uint32_t swapchain_usage,
             uint64_t usage, const VkAllocationCallbacks *alloc)
{
   VkNativeBufferANDROID nb = native_buffer(s, usage);
   VkSwapchainImageCreateInfoANDROID sic = {
      .sType = ST_SWAPCHAIN_IMAGE_CREATE,
      .usage = swapchain_usage,
   };
   s->image = VK_NULL_HANDLE;
   if (!bind_path) {
      nb.pNext = &sic;
      VkImageCreateInfo ci = image_info(s->format, IMAGE_USAGE, &nb);
      return v->CreateImage(v->device, &ci, alloc, &s->image);
   }
   VkImageSwapchainCreateInfoKHR isc = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
      .pNext = &sic,
      .swapchain = VK_NULL_HANDLE,   /* the loader's own object; the driver never sees one */
   };
   VkImageCreateInfo ci = image_info(s->format, IMAGE_USAGE, &isc);
   VkResult r = v->CreateImage(v->device, &ci, alloc, &s->image);
   if (r != VK_SUCCESS)
      return r;
   VkBindImageMemorySwapchainInfoKHR bsc = {
      .sType = VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR,
      .pNext = &nb,
      .swapchain = VK_NULL_HANDLE,
      .imageIndex = 0,
   };
   VkBindImageMemoryInfo bind = {
      .sType = VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO,
      .pNext = &bsc,
      .image = s->image,
      .memory = VK_NULL_HANDLE,
   };
   r = v->BindImageMemory2KHR(v->device, 1, &bind);
   if (r != VK_SUCCESS) {
      v->DestroyImage(v->device, s->image, alloc);
      s->image = VK_NULL_HANDLE;
   }
   return r;
}

/* The bytes every texel of a clear to `texel` must hold, every padding
 * byte still SENTINEL. */
static bool
check_clear(const struct swap_image *s, const uint8_t *texel, const char *what)
{
   int bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      const uint8_t *row = s->pixels + (size_t)y * s->stride * s->bpp;
      for (uint32_t x = 0; x < s->stride; x++) {
         for (uint32_t b = 0; b < s->bpp; b++) {
            uint8_t want = x < W ? texel[b] : SENTINEL;
            if (row[x * s->bpp + b] != want && bad++ < 4)
               fprintf(stderr, "%s: (%u,%u) byte %u = 0x%02x, expected 0x%02x\n", what, x, y, b,
                       row[x * s->bpp + b], want);
         }
      }
   }
   CHECK(bad == 0, "%s: %d wrong bytes", what, bad);
   return bad == 0;
}

/* Texel (x,y) of a tightly packed W-wide copy source holds pattern bytes. */
static bool
check_copy(const struct swap_image *s, uint32_t seed, const char *what)
{
   int bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      const uint8_t *row = s->pixels + (size_t)y * s->stride * s->bpp;
      for (uint32_t x = 0; x < s->stride * s->bpp; x++) {
         uint8_t want = x < W * s->bpp ? pattern(seed, (size_t)y * W * s->bpp + x) : SENTINEL;
         if (row[x] != want && bad++ < 4)
            fprintf(stderr, "%s: row %u byte %u = 0x%02x, expected 0x%02x\n", what, y, x, row[x],
                    want);
      }
   }
   CHECK(bad == 0, "%s: %d wrong bytes", what, bad);
   return bad == 0;
}

/* ---- recording ---- */

static VkCommandBuffer
cmd_alloc(struct vk *v)
{
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = v->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer cb = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->AllocateCommandBuffers(v->device, &ai, &cb), VK_SUCCESS);
   take_dispatchable(cb, "command buffer");
   return cb;
}

static const VkImageSubresourceRange color_range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };

static void
record_begin(struct vk *v, VkCommandBuffer cb, VkImage image)
{
   const VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
   };
   CHECK_EQ_INT(v->BeginCommandBuffer(cb, &bi), VK_SUCCESS);
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = color_range,
   };
   v->CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         0, NULL, 0, NULL, 1, &b);
}

static void
record_clear(struct vk *v, VkCommandBuffer cb, VkImage image, const float color[4])
{
   record_begin(v, cb, image);
   VkClearColorValue c;
   memcpy(c.float32, color, sizeof(c.float32));
   v->CmdClearColorImage(cb, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1, &color_range);
   CHECK_EQ_INT(v->EndCommandBuffer(cb), VK_SUCCESS);
}

static void
record_copy(struct vk *v, VkCommandBuffer cb, const struct staging *st, VkImage image)
{
   record_begin(v, cb, image);
   const VkBufferImageCopy region = {
      .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .imageExtent = { W, H, 1 },
   };
   v->CmdCopyBufferToImage(cb, st->buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &region);
   CHECK_EQ_INT(v->EndCommandBuffer(cb), VK_SUCCESS);
}

static VkResult
submit(struct vk *v, VkCommandBuffer cb, VkSemaphore wait, VkSemaphore signal)
{
   const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphoreCount = wait ? 1 : 0,
      .pWaitSemaphores = &wait,
      .pWaitDstStageMask = &stage,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
      .signalSemaphoreCount = signal ? 1 : 0,
      .pSignalSemaphores = &signal,
   };
   return v->QueueSubmit(v->queue, 1, &si, VK_NULL_HANDLE);
}

static VkSemaphore
semaphore(struct vk *v)
{
   const VkSemaphoreCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
   VkSemaphore s = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateSemaphore(v->device, &ci, NULL, &s), VK_SUCCESS);
   return s;
}

static VkFence
fence(struct vk *v)
{
   const VkFenceCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   VkFence f = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateFence(v->device, &ci, NULL, &f), VK_SUCCESS);
   return f;
}

/* Waits for a release fd and closes it; -1 is "done already". */
static bool
release_wait(int fd, const char *what)
{
   if (fd == -1)
      return true;
   bool ready = fd_ready(fd, WAIT_MS);
   CHECK(ready, "%s: release fd %d not ready after %d ms", what, fd, WAIT_MS);
   close(fd);
   return ready;
}

/* ---- loader setup ---- */

static bool
setup(struct vk *v, const hwvulkan_device_t *hal, const VkAllocationCallbacks *device_alloc)
{
   memset(v, 0, sizeof(*v));
   uint32_t n = 0;
   CHECK_EQ_INT(hal->EnumerateInstanceExtensionProperties(NULL, &n, NULL), VK_SUCCESS);
   VkExtensionProperties iprops[64];
   n = n > 64 ? 64 : n;
   hal->EnumerateInstanceExtensionProperties(NULL, &n, iprops);
   const char *iexts[] = { "VK_KHR_get_physical_device_properties2" };
   const bool props2 = emu_has_extension(iprops, n, iexts[0], NULL);
   if (!emu_instance_create(&v->emu, hal, "test_swapchain", iexts, props2 ? 1 : 0))
      return false;
   IPROC(v, GetPhysicalDeviceProperties2KHR);

   /* The loader builds its swapchain on VK_ANDROID_native_buffer; without
    * it there is nothing to test. */
   VkExtensionProperties dprops[128];
   n = 128;
   v->EnumerateDeviceExtensionProperties(v->pdev, NULL, &n, dprops);
   uint32_t spec = 0;
   if (!emu_has_extension(dprops, n, "VK_ANDROID_native_buffer", &spec)) {
      v->DestroyInstance(v->instance, NULL);
      SKIP("VK_ANDROID_native_buffer is not listed by the driver");
   }
   CHECK_EQ_INT(spec, 11);
   CHECK(emu_has_extension(dprops, n, "VK_KHR_bind_memory2", NULL),
         "native-buffer spec 8 binds through vkBindImageMemory2: VK_KHR_bind_memory2 missing");

   /* What the loader asks before offering shared presentable images. */
   CHECK(props2 && v->GetPhysicalDeviceProperties2KHR,
         "vkGetPhysicalDeviceProperties2 is needed for the presentation properties");
   if (v->GetPhysicalDeviceProperties2KHR) {
      VkPhysicalDevicePresentationPropertiesANDROID pp = {
         .sType = ST_PRESENTATION_PROPERTIES,
         .sharedImage = 0x5A5A,
      };
      VkPhysicalDeviceProperties2 p2 = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
         .pNext = &pp,
      };
      v->GetPhysicalDeviceProperties2KHR(v->pdev, &p2);
      CHECK(pp.sharedImage == VK_TRUE, "sharedImage = %u, expected VK_TRUE", pp.sharedImage);
   }

   /* The loader enables VK_ANDROID_native_buffer itself. */
   const char *dexts[] = { "VK_ANDROID_native_buffer", "VK_KHR_bind_memory2" };
   if (!emu_device_create(&v->emu, dexts, 2, NULL, device_alloc))
      return false;
   bool all_found = true;
   DPROC(v, BindImageMemory2KHR);
   DPROC(v, CreateSemaphore);
   DPROC(v, DestroySemaphore);
   DPROC(v, CreateFence);
   DPROC(v, DestroyFence);
   DPROC(v, WaitForFences);
   DPROC(v, ResetFences);
   DPROC(v, GetFenceStatus);
   DPROC(v, GetSwapchainGrallocUsageANDROID);
   DPROC(v, GetSwapchainGrallocUsage2ANDROID);
   DPROC(v, GetSwapchainGrallocUsage3ANDROID);
   DPROC(v, GetSwapchainGrallocUsage4ANDROID);
   DPROC(v, AcquireImageANDROID);
   DPROC(v, QueueSignalReleaseImageANDROID);
   return all_found;
}

static void
teardown(struct vk *v)
{
   emu_teardown(&v->emu);
}

/* The loader's preference: the newest usage query the driver has. Returns
 * the AHARDWAREBUFFER_USAGE_* bits to allocate with. */
static uint64_t
gralloc_usage(struct vk *v, VkFormat format, bool shared)
{
   const VkGrallocUsageInfo2ANDROID info4 = {
      .sType = ST_GRALLOC_USAGE_INFO_2,
      .format = format,
      .imageUsage = IMAGE_USAGE,
      .swapchainImageUsage = shared ? SHARED_BIT : 0,
   };
   uint64_t u4 = 0;
   CHECK_EQ_INT(v->GetSwapchainGrallocUsage4ANDROID(v->device, &info4, &u4), VK_SUCCESS);
   /* Transfers read and write the pixels: a CPU renderer needs both. */
   CHECK((u4 & AHB_CPU_READ_OFTEN) == AHB_CPU_READ_OFTEN &&
            (u4 & AHB_CPU_WRITE_OFTEN) == AHB_CPU_WRITE_OFTEN,
         "Usage4 0x%llx lacks CPU read/write", (unsigned long long)u4);
   CHECK(((u4 & AHB_FRONT_BUFFER) != 0) == shared, "Usage4 0x%llx, shared %d",
         (unsigned long long)u4, shared);
   /* The older queries agree on the CPU bits (the loader falls back to them). */
   const VkGrallocUsageInfoANDROID info3 = {
      .sType = ST_GRALLOC_USAGE_INFO,
      .format = format,
      .imageUsage = IMAGE_USAGE,
   };
   uint64_t u3 = 0, consumer = 0, producer = 0;
   int u0 = 0;
   CHECK_EQ_INT(v->GetSwapchainGrallocUsage3ANDROID(v->device, &info3, &u3), VK_SUCCESS);
   CHECK_EQ_INT(u3, u4 & ~AHB_FRONT_BUFFER);
   CHECK_EQ_INT(v->GetSwapchainGrallocUsage2ANDROID(v->device, format, IMAGE_USAGE,
                                                    shared ? SHARED_BIT : 0, &consumer,
                                                    &producer),
                VK_SUCCESS);
   CHECK(producer != 0, "Usage2 producer bits are 0");
   CHECK_EQ_INT(v->GetSwapchainGrallocUsageANDROID(v->device, format, IMAGE_USAGE, &u0),
                VK_SUCCESS);
   CHECK_EQ_INT((uint64_t)(uint32_t)u0, u4 & (AHB_CPU_READ_OFTEN | AHB_CPU_WRITE_OFTEN));
   return u4;
}

/* ---- phase 1: the queue waits for the acquire fd; calls never block ---- */

static void
check_ordering(struct vk *v, struct swap_image *s)
{
   static const float red[4] = { 1.0f, 0.0f, 0.0f, 1.0f };
   static const uint8_t red_texel[4] = { 0xFF, 0x00, 0x00, 0xFF };
   for (int round = 0; round < 3; round++) {
      /* A fence only this test signals: 5 s without "go" is a failure. */
      struct late_signal late;
      int fd = late_signal_start(&late, WAIT_MS * 1000);
      VkSemaphore acquire_sem = semaphore(v);
      VkFence acquire_fence = round == 1 ? fence(v) : VK_NULL_HANDLE;
      CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s->image, fd, acquire_sem, acquire_fence),
                   VK_SUCCESS);
      if (acquire_fence)
         CHECK_EQ_INT(v->GetFenceStatus(v->device, acquire_fence), VK_NOT_READY);

      memset(s->pixels, SENTINEL, s->bytes);
      record_clear(v, s->cmd, s->image, red);
      CHECK_EQ_INT(submit(v, s->cmd, acquire_sem, s->render_done), VK_SUCCESS);
      int release_fd = -1;
      /* Round 2 leaves the semaphore out: the fd must still follow the work
       * queued before it. */
      VkResult r = round == 2 ? v->QueueSignalReleaseImageANDROID(v->queue, 0, NULL, s->image,
                                                                 &release_fd)
                              : v->QueueSignalReleaseImageANDROID(v->queue, 1, &s->render_done,
                                                                 s->image, &release_fd);
      CHECK_EQ_INT(r, VK_SUCCESS);
      CHECK(release_fd >= 0, "round %d: work is pending, yet the release fd is %d", round,
            release_fd);

      /* Nothing may run before the acquire fd is signalled. */
      usleep(20000);
      CHECK(release_fd < 0 || !fd_ready(release_fd, 0),
            "round %d: release fd ready before the acquire fd was signalled", round);
      CHECK(s->pixels[0] == SENTINEL && s->pixels[s->bytes - 1] == SENTINEL,
            "round %d: the image was written before the acquire fd was signalled", round);

      late_signal_go(&late);
      late_signal_join(&late);
      CHECK(!late.by_timeout, "round %d: a call blocked until the acquire fd timed out", round);
      if (release_fd >= 0)
         release_wait(release_fd, "ordering");
      check_clear(s, red_texel, "ordering clear");
      if (acquire_fence) {
         CHECK_EQ_INT(v->WaitForFences(v->device, 1, &acquire_fence, VK_TRUE,
                                       WAIT_MS * 1000000ull),
                      VK_SUCCESS);
         CHECK_EQ_INT(v->GetFenceStatus(v->device, acquire_fence), VK_SUCCESS);
         v->DestroyFence(v->device, acquire_fence, NULL);
      }
      if (round == 2) {
         /* render_done is still signalled: consume it in an idle release,
          * which needs no fd. */
         CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
         release_fd = 0x7FFF;
         CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 1, &s->render_done, s->image,
                                                        &release_fd),
                      VK_SUCCESS);
         CHECK_EQ_INT(release_fd, -1);
      }
      v->DestroySemaphore(v->device, acquire_sem, NULL);
   }

   /* A present with nothing rendered: the release waits on the acquire
    * semaphore itself, so its fd must follow the acquire fd. */
   struct late_signal late;
   int fd = late_signal_start(&late, WAIT_MS * 1000);
   VkSemaphore acquire_sem = semaphore(v);
   CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s->image, fd, acquire_sem, VK_NULL_HANDLE),
                VK_SUCCESS);
   int release_fd = -2;
   CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 1, &acquire_sem, s->image,
                                                  &release_fd),
                VK_SUCCESS);
   CHECK(release_fd >= 0, "the acquire fd is pending, yet the release fd is %d", release_fd);
   usleep(20000);
   CHECK(release_fd < 0 || !fd_ready(release_fd, 0),
         "release fd ready before the acquire fd it waits for");
   late_signal_go(&late);
   late_signal_join(&late);
   CHECK(!late.by_timeout, "a call blocked until the acquire fd timed out");
   if (release_fd >= 0)
      release_wait(release_fd, "release of an acquired image");
   CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
   v->DestroySemaphore(v->device, acquire_sem, NULL);
}

/* ---- phase 2: the present loop ---- */

static void
present_loop(struct vk *v, struct swap_image *imgs, struct staging *st)
{
   int release_fds[FRAMES];
   uint32_t seeds[FRAMES];
   bool cleared[FRAMES];
   uint8_t texels[FRAMES][4];
   VkSemaphore acquire_sems[NIMAGES];
   for (int i = 0; i < NIMAGES; i++)
      acquire_sems[i] = semaphore(v);
   VkFence acquire_fence = fence(v);
   struct late_signal late[NIMAGES];
   bool late_live[NIMAGES] = { false };
   unsigned rng = 12345;
   int checked = 0;

   for (int f = 0; f < FRAMES + 2; f++) {
      /* Two frames in flight: frame f-2's buffer is checked before its
       * image is used again (three images). */
      if (f >= 2) {
         int g = f - 2;
         struct swap_image *s = &imgs[g % NIMAGES];
         if (release_wait(release_fds[g], "present loop")) {
            char what[64];
            snprintf(what, sizeof(what), "frame %d (%s)", g, cleared[g] ? "clear" : "copy");
            if (cleared[g] ? check_clear(s, texels[g], what) : check_copy(s, seeds[g], what))
               checked++;
         }
         if (late_live[g % NIMAGES]) {
            late_signal_join(&late[g % NIMAGES]);
            late_live[g % NIMAGES] = false;
         }
      }
      if (f >= FRAMES)
         continue;
      struct swap_image *s = &imgs[f % NIMAGES];
      rng = rng * 1103515245u + 12345u;
      /* Every fourth frame's buffer is free already (fd -1); others are
       * signalled 0-3 ms later from another thread. */
      int fd = -1;
      if (f % 4 != 3) {
         fd = late_signal_start(&late[f % NIMAGES], (int)((rng >> 8) % 3000));
         late_live[f % NIMAGES] = true;
      }
      const bool with_fence = f % 5 == 0;
      CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s->image, fd, acquire_sems[f % NIMAGES],
                                          with_fence ? acquire_fence : VK_NULL_HANDLE),
                   VK_SUCCESS);
      if (with_fence) {
         /* A loader's vkAcquireNextImageKHR with a fence: the app waits for it. */
         CHECK_EQ_INT(v->WaitForFences(v->device, 1, &acquire_fence, VK_TRUE,
                                       WAIT_MS * 1000000ull),
                      VK_SUCCESS);
         CHECK_EQ_INT(v->ResetFences(v->device, 1, &acquire_fence), VK_SUCCESS);
      }
      cleared[f] = f % 2 == 0;
      if (cleared[f]) {
         texels[f][0] = (uint8_t)(f * 37);
         texels[f][1] = (uint8_t)(255 - f);
         texels[f][2] = (uint8_t)(f * 11 + 5);
         texels[f][3] = (uint8_t)(128 + f);
         const float color[4] = { texels[f][0] / 255.0f, texels[f][1] / 255.0f,
                                  texels[f][2] / 255.0f, texels[f][3] / 255.0f };
         record_clear(v, s->cmd, s->image, color);
      } else {
         /* The staging buffer is rewritten only once the previous copy
          * (two frames ago at most) is done: wait for the queue first. */
         CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
         seeds[f] = (uint32_t)f * 7919u;
         for (size_t i = 0; i < (size_t)W * H * 4; i++)
            st->map[i] = pattern(seeds[f], i);
         record_copy(v, s->cmd, st, s->image);
      }
      CHECK_EQ_INT(submit(v, s->cmd, acquire_sems[f % NIMAGES], s->render_done), VK_SUCCESS);
      release_fds[f] = -2;
      CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 1, &s->render_done, s->image,
                                                     &release_fds[f]),
                   VK_SUCCESS);
      CHECK(release_fds[f] >= -1, "frame %d: release fd %d", f, release_fds[f]);
   }
   CHECK_EQ_INT(checked, FRAMES);
   CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
   for (int i = 0; i < NIMAGES; i++)
      v->DestroySemaphore(v->device, acquire_sems[i], NULL);
   v->DestroyFence(v->device, acquire_fence, NULL);
}

/* ---- phase 3: every swapchain format, both creation paths ---- */

struct format_case {
   int hal;
   VkFormat vk;
   uint32_t bpp;
   float clear[4];
   uint8_t texel[8];   /* the clear's bytes, from the format's definition */
};

static const struct format_case format_cases[] = {
   { HAL_RGBA_8888, VK_FORMAT_R8G8B8A8_UNORM, 4,
     { 0x11 / 255.0f, 0x80 / 255.0f, 0xEE / 255.0f, 1.0f }, { 0x11, 0x80, 0xEE, 0xFF } },
   { HAL_RGBX_8888, VK_FORMAT_R8G8B8A8_UNORM, 4,
     { 0x11 / 255.0f, 0x80 / 255.0f, 0xEE / 255.0f, 1.0f }, { 0x11, 0x80, 0xEE, 0xFF } },
   { HAL_BGRA_8888, VK_FORMAT_B8G8R8A8_UNORM, 4,
     { 0x11 / 255.0f, 0x80 / 255.0f, 0xEE / 255.0f, 1.0f }, { 0xEE, 0x80, 0x11, 0xFF } },
   /* (20 << 11) | (40 << 5) | 10 = 0xA50A */
   { HAL_RGB_565, VK_FORMAT_R5G6B5_UNORM_PACK16, 2,
     { 20 / 31.0f, 40 / 63.0f, 10 / 31.0f, 1.0f }, { 0x0A, 0xA5 } },
   /* half 0.5 = 0x3800, 0.25 = 0x3400, 1.0 = 0x3C00, 0 */
   { HAL_RGBA_FP16, VK_FORMAT_R16G16B16A16_SFLOAT, 8,
     { 0.5f, 0.25f, 1.0f, 0.0f }, { 0x00, 0x38, 0x00, 0x34, 0x00, 0x3C, 0x00, 0x00 } },
   /* R 100 | G 512 << 10 | B 1023 << 20 | A 2 << 30 = 0xBFF80064 */
   { HAL_RGBA_1010102, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4,
     { 100 / 1023.0f, 512 / 1023.0f, 1.0f, 2 / 3.0f }, { 0x64, 0x00, 0xF8, 0xBF } },
};

static void
check_formats(struct vk *v, struct staging *st)
{
   for (size_t i = 0; i < sizeof(format_cases) / sizeof(format_cases[0]); i++) {
      const struct format_case *fc = &format_cases[i];
      for (int path = 0; path < 2; path++) {
         struct swap_image s;
         memset(&s, 0, sizeof(s));
         s.format = fc->vk;
         uint64_t usage = gralloc_usage(v, fc->vk, false);
         if (!buffer_alloc(&s, fc->hal, fc->bpp, usage))
            continue;
         VkResult r = image_create(v, &s, path == 1, 0, usage, NULL);
         CHECK(r == VK_SUCCESS, "format 0x%x, %s path: %d", fc->hal, path ? "bind" : "create", r);
         if (r == VK_SUCCESS) {
            /* The image's rows are the buffer's rows. */
            VkSubresourceLayout layout;
            const VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
            v->GetImageSubresourceLayout(v->device, s.image, &sub, &layout);
            CHECK_EQ_INT(layout.offset, 0);
            CHECK_EQ_INT(layout.rowPitch, (uint64_t)s.stride * fc->bpp);

            s.cmd = cmd_alloc(v);
            VkSemaphore sem = semaphore(v);
            char what[64];
            snprintf(what, sizeof(what), "format 0x%x %s clear", fc->hal, path ? "bind" : "create");
            CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s.image, -1, sem, VK_NULL_HANDLE),
                         VK_SUCCESS);
            record_clear(v, s.cmd, s.image, fc->clear);
            CHECK_EQ_INT(submit(v, s.cmd, sem, VK_NULL_HANDLE), VK_SUCCESS);
            int fd = -2;
            CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 0, NULL, s.image, &fd),
                         VK_SUCCESS);
            CHECK(fd >= -1, "release fd %d", fd);
            if (release_wait(fd, what))
               check_clear(&s, fc->texel, what);

            CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s.image, -1, sem, VK_NULL_HANDLE),
                         VK_SUCCESS);
            uint32_t seed = 1000 + (uint32_t)i * 2 + (uint32_t)path;
            for (size_t b = 0; b < (size_t)W * H * fc->bpp; b++)
               st->map[b] = pattern(seed, b);
            memset(s.pixels, SENTINEL, s.bytes);
            record_copy(v, s.cmd, st, s.image);
            CHECK_EQ_INT(submit(v, s.cmd, sem, VK_NULL_HANDLE), VK_SUCCESS);
            fd = -2;
            CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 0, NULL, s.image, &fd),
                         VK_SUCCESS);
            snprintf(what, sizeof(what), "format 0x%x %s copy", fc->hal, path ? "bind" : "create");
            if (release_wait(fd, what))
               check_copy(&s, seed, what);
            CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
            v->DestroySemaphore(v->device, sem, NULL);
            v->DestroyImage(v->device, s.image, NULL);
         }
         buffer_free(&s);
      }
   }
}

/* ---- phase 4: a shared presentable image ---- */

static void
check_shared(struct vk *v)
{
   struct swap_image s;
   memset(&s, 0, sizeof(s));
   s.format = VK_FORMAT_R8G8B8A8_UNORM;
   uint64_t usage = gralloc_usage(v, s.format, true);
   if (!buffer_alloc(&s, HAL_RGBA_8888, 4, usage))
      return;
   CHECK_EQ_INT(image_create(v, &s, true, SHARED_BIT, usage, NULL), VK_SUCCESS);
   if (!s.image) {
      buffer_free(&s);
      return;
   }
   s.cmd = cmd_alloc(v);
   VkSemaphore acquire_sem = semaphore(v);
   VkSemaphore render_done = semaphore(v);

   /* One acquire, then presents with no acquire in between. */
   struct late_signal late;
   int fd = late_signal_start(&late, 3000);
   CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s.image, fd, acquire_sem, VK_NULL_HANDLE),
                VK_SUCCESS);
   for (int k = 0; k < 12; k++) {
      const uint8_t texel[4] = { (uint8_t)(k * 20), (uint8_t)(200 - k), 7, 255 };
      const float color[4] = { texel[0] / 255.0f, texel[1] / 255.0f, texel[2] / 255.0f, 1.0f };
      record_clear(v, s.cmd, s.image, color);
      CHECK_EQ_INT(submit(v, s.cmd, k == 0 ? acquire_sem : VK_NULL_HANDLE, render_done),
                   VK_SUCCESS);
      int release_fd = -2;
      CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 1, &render_done, s.image,
                                                     &release_fd),
                   VK_SUCCESS);
      CHECK(release_fd >= -1, "shared present %d: release fd %d", k, release_fd);
      char what[48];
      snprintf(what, sizeof(what), "shared present %d", k);
      if (release_wait(release_fd, what))
         check_clear(&s, texel, what);
   }
   late_signal_join(&late);
   /* Nothing pending: the release has nothing to wait for. */
   CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
   int idle_fd = 0x7FFF;
   CHECK_EQ_INT(v->QueueSignalReleaseImageANDROID(v->queue, 0, NULL, s.image, &idle_fd),
                VK_SUCCESS);
   CHECK_EQ_INT(idle_fd, -1);

   v->DestroySemaphore(v->device, acquire_sem, NULL);
   v->DestroySemaphore(v->device, render_done, NULL);
   v->DestroyImage(v->device, s.image, NULL);
   buffer_free(&s);
}

/* ---- phase 5: error paths ---- */

static void
check_errors(struct vk *v, const hwvulkan_device_t *hal)
{
   struct swap_image s;
   memset(&s, 0, sizeof(s));
   s.format = VK_FORMAT_R8G8B8A8_UNORM;
   uint64_t usage = gralloc_usage(v, s.format, false);
   if (!buffer_alloc(&s, HAL_RGBA_8888, 4, usage))
      return;
   const int maps = count_maps("shale-gralloc");

   /* A handle that is not a gralloc buffer, a stride that is not the
    * buffer's, a format that is not the image's: refused, nothing mapped. */
   native_handle_t *real = s.handle;
   size_t hsize = sizeof(*real) + (real->numFds + real->numInts) * sizeof(int);
   native_handle_t *bad = malloc(hsize);
   memcpy(bad, real, hsize);
   bad->data[1] ^= 0x1;   /* the magic */
   s.handle = bad;
   CHECK(image_create(v, &s, false, 0, usage, NULL) != VK_SUCCESS, "bad handle accepted");
   CHECK(image_create(v, &s, true, 0, usage, NULL) != VK_SUCCESS, "bad handle accepted (bind)");
   s.handle = real;
   free(bad);
   s.stride += 16;
   CHECK(image_create(v, &s, false, 0, usage, NULL) != VK_SUCCESS, "wrong stride accepted");
   s.stride -= 16;
   s.format = VK_FORMAT_B8G8R8A8_UNORM;
   CHECK(image_create(v, &s, false, 0, usage, NULL) != VK_SUCCESS, "BGRA image on RGBA accepted");
   s.format = VK_FORMAT_R8G8B8A8_UNORM;
   CHECK_EQ_INT(count_maps("shale-gralloc"), maps);

   /* An allocator that fails: no image, nothing imported. */
   struct alloc_ctl ctl = { 0, 0 };
   const VkAllocationCallbacks failing = ctl_callbacks(&ctl);
   CHECK_EQ_INT(image_create(v, &s, false, 0, usage, &failing), VK_ERROR_OUT_OF_HOST_MEMORY);
   atomic_store(&ctl.fail_in, 0);
   CHECK_EQ_INT(image_create(v, &s, true, 0, usage, &failing), VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK_EQ_INT(atomic_load(&ctl.live), 0);
   CHECK_EQ_INT(count_maps("shale-gralloc"), maps);

   /* The real image, then the acquire's error paths. */
   CHECK_EQ_INT(image_create(v, &s, false, 0, usage, NULL), VK_SUCCESS);
   CHECK_EQ_INT(count_maps("shale-gralloc"), maps + 1);
   VkSemaphore sem = semaphore(v);
   VkFence fnc = fence(v);
   int closed = eventfd(0, EFD_CLOEXEC);
   close(closed);
   CHECK(v->AcquireImageANDROID(v->device, s.image, closed, sem, fnc) != VK_SUCCESS,
         "acquire with a closed fd succeeded");
   CHECK(v->AcquireImageANDROID(v->device, s.image, -7, sem, fnc) != VK_SUCCESS,
         "acquire with fd -7 succeeded");
   /* The failed acquires left the fence unsignalled and without a payload. */
   CHECK_EQ_INT(v->GetFenceStatus(v->device, fnc), VK_NOT_READY);

   /* Ownership: the driver closes the fd, with or without objects to hold it. */
   int efd = eventfd(1, EFD_CLOEXEC);
   CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s.image, efd, VK_NULL_HANDLE, VK_NULL_HANDLE),
                VK_SUCCESS);
   CHECK(fcntl(efd, F_GETFD) < 0 && errno == EBADF, "the driver kept fd %d open", efd);
   efd = eventfd(1, EFD_CLOEXEC);   /* readable: signalled */
   CHECK_EQ_INT(v->AcquireImageANDROID(v->device, s.image, efd, sem, fnc), VK_SUCCESS);
   CHECK_EQ_INT(v->WaitForFences(v->device, 1, &fnc, VK_TRUE, WAIT_MS * 1000000ull), VK_SUCCESS);
   s.cmd = cmd_alloc(v);
   static const float green[4] = { 0.0f, 1.0f, 0.0f, 1.0f };
   static const uint8_t green_texel[4] = { 0x00, 0xFF, 0x00, 0xFF };
   record_clear(v, s.cmd, s.image, green);
   CHECK_EQ_INT(submit(v, s.cmd, sem, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
   check_clear(&s, green_texel, "acquire with semaphore and fence");
   v->DestroyFence(v->device, fnc, NULL);   /* still holding a signalled payload */
   v->DestroySemaphore(v->device, sem, NULL);
   v->DestroyImage(v->device, s.image, NULL);
   CHECK_EQ_INT(count_maps("shale-gralloc"), maps);
   buffer_free(&s);

   /* A release whose allocations fail, on a device whose allocator fails on
    * demand: an error, no fd, nothing consumed or leaked. */
   struct alloc_ctl dctl = { 0, -1 };
   const VkAllocationCallbacks dalloc = ctl_callbacks(&dctl);
   struct vk v2;
   if (setup(&v2, hal, &dalloc)) {
      struct swap_image s2;
      memset(&s2, 0, sizeof(s2));
      s2.format = VK_FORMAT_R8G8B8A8_UNORM;
      if (buffer_alloc(&s2, HAL_RGBA_8888, 4, usage)) {
         CHECK_EQ_INT(image_create(&v2, &s2, false, 0, usage, NULL), VK_SUCCESS);
         s2.cmd = cmd_alloc(&v2);
         VkSemaphore acq = semaphore(&v2), done = semaphore(&v2);
         struct late_signal late;
         int fd = late_signal_start(&late, WAIT_MS * 1000);
         CHECK_EQ_INT(v2.AcquireImageANDROID(v2.device, s2.image, fd, acq, VK_NULL_HANDLE),
                      VK_SUCCESS);
         record_clear(&v2, s2.cmd, s2.image, green);
         CHECK_EQ_INT(submit(&v2, s2.cmd, acq, done), VK_SUCCESS);
         const int fds = check_open_fds();
         for (int fail = 0; fail < 2; fail++) {
            atomic_store(&dctl.fail_in, fail);
            int release_fd = 0x7FFF;
            CHECK_EQ_INT(v2.QueueSignalReleaseImageANDROID(v2.queue, 1, &done, s2.image,
                                                           &release_fd),
                         VK_ERROR_OUT_OF_HOST_MEMORY);
            CHECK_EQ_INT(release_fd, -1);
            CHECK_EQ_INT(check_open_fds(), fds);
         }
         atomic_store(&dctl.fail_in, -1);
         int release_fd = -2;
         CHECK_EQ_INT(v2.QueueSignalReleaseImageANDROID(v2.queue, 1, &done, s2.image,
                                                        &release_fd),
                      VK_SUCCESS);
         CHECK(release_fd >= 0, "pending work, release fd %d", release_fd);
         late_signal_go(&late);
         late_signal_join(&late);
         if (release_wait(release_fd, "release after failed releases"))
            check_clear(&s2, green_texel, "release after failed releases");
         CHECK_EQ_INT(v2.QueueWaitIdle(v2.queue), VK_SUCCESS);
         v2.DestroySemaphore(v2.device, acq, NULL);
         v2.DestroySemaphore(v2.device, done, NULL);
         v2.DestroyImage(v2.device, s2.image, NULL);
         buffer_free(&s2);
      }
   }
   teardown(&v2);
   CHECK_EQ_INT(atomic_load(&dctl.live), 0);
}

int
main(int argc, char **argv)
{
   if (argc < 2) {
      fprintf(stderr, "usage: %s path/to/vulkan.shale.so\n", argv[0]);
      return 1;
   }
   struct hw_device_t *common = emu_hal_open(argv[1]);
   if (!common)
      return check_finish();
   const hwvulkan_device_t *hal = (const hwvulkan_device_t *)common;

   CHECK_EQ_INT(sh_fence_timeline_init(&timeline, SH_FENCE_KIND_EVENTFD), 0);
   const int fds_before = check_open_fds();
   const int maps_before = count_maps("shale-gralloc");

   struct vk v;
   if (setup(&v, hal, NULL)) {
      /* Three swapchain images, made both ways. */
      struct swap_image imgs[NIMAGES];
      memset(imgs, 0, sizeof(imgs));
      uint64_t usage = gralloc_usage(&v, VK_FORMAT_R8G8B8A8_UNORM, false);
      bool ok = true;
      for (int i = 0; i < NIMAGES && ok; i++) {
         imgs[i].format = VK_FORMAT_R8G8B8A8_UNORM;
         ok = buffer_alloc(&imgs[i], HAL_RGBA_8888, 4, usage);
         CHECK(imgs[i].stride > W, "the test wants a stride wider than the image (%u)",
               imgs[i].stride);
         if (ok)
            ok = image_create(&v, &imgs[i], i == 2, 0, usage, NULL) == VK_SUCCESS;
         CHECK(ok, "swapchain image %d", i);
         if (ok) {
            imgs[i].render_done = semaphore(&v);
            imgs[i].cmd = cmd_alloc(&v);
         }
      }
      struct staging st;
      if (ok && staging_create(&v.emu, &st, (VkDeviceSize)W * H * 8, VK_BUFFER_USAGE_TRANSFER_SRC_BIT)) {
         check_ordering(&v, &imgs[0]);
         present_loop(&v, imgs, &st);
         check_formats(&v, &st);
         staging_destroy(&v.emu, &st);
      }
      for (int i = 0; i < NIMAGES; i++) {
         if (imgs[i].image)
            v.DestroyImage(v.device, imgs[i].image, NULL);
         if (imgs[i].render_done)
            v.DestroySemaphore(v.device, imgs[i].render_done, NULL);
         if (imgs[i].handle)
            buffer_free(&imgs[i]);
      }
      check_shared(&v);
      check_errors(&v, hal);
   }
   teardown(&v);

   CHECK_EQ_INT(count_maps("shale-gralloc"), maps_before);
   CHECK_EQ_INT(check_open_fds(), fds_before);
   sh_fence_timeline_finish(&timeline);
   CHECK_EQ_INT(common->close(common), 0);
   return check_finish();
}
