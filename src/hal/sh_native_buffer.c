/* VK_ANDROID_native_buffer: gralloc-backed images, vkAcquireImageANDROID, vkQueueSignalReleaseImageANDROID. */
/*
 * The driver core knows neither gralloc nor native fences (dependencies
 * point from hal to driver), so this file gives it both when the library
 * loads: sd_native_buffer_ops (sd_image.h) imports a VkNativeBufferANDROID
 * through sh_gralloc.h and maps it for the image's whole life, and
 * sd_sync_fd_ops (sd_sync.h) makes sync fds with sh_native_fence.h, one
 * single-fence timeline per fd (so fds may be signalled in any order: a
 * sw_sync timeline signals every earlier point with a later one).
 *  - Android: sw_sync sync_files, where this process may open sw_sync;
 *    otherwise none, and the driver falls back to CPU waits (release returns
 *    -1, sync-fd export is not offered).
 *  - Host: eventfds (the tests' emulation of Android's loader).
 *
 * Acquire: the fence fd becomes the temporary payload of the semaphore and/or
 * the fence (a dup for the second), so queue work that waits on the semaphore
 * waits for the fd and the call does not block. The fd is always the
 * driver's, success or failure.
 * Release: sd_queue_signal_release (sd_queue.h): an fd that is ready once the
 * waits and the queue's earlier work are done; -1 when nothing is pending.
 * Nothing is copied: the image's memory is the buffer, so once the fd is
 * ready the pixels are in the buffer. Shared presentable images need nothing
 * more (a release may follow a release).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "driver/sd_device.h"
#include "driver/sd_image.h"
#include "driver/sd_queue.h"
#include "driver/sd_sync.h"
#include "driver/sd_util.h"
#include "sh_gralloc.h"
#include "sh_native_fence.h"
#include "util/su_format.h"

/* ---- sync fds: one single-fence timeline each ---- */

struct sh_sync_token {
   struct sh_fence_timeline timeline;
   struct sh_fence_pending pending;
};

static pthread_once_t sh_sync_probe_once = PTHREAD_ONCE_INIT;
static bool sh_sync_can_make;

static void
sh_sync_probe(void)
{
   struct sh_fence_timeline tl;
   int err = sh_fence_timeline_init_platform(&tl);
   sh_sync_can_make = err == 0 && tl.kind != SH_FENCE_KIND_NONE;
   if (!sh_sync_can_make)
      su_log("no native fence timeline (%s: %d): releases wait on the CPU",
             sh_fence_kind_name(sh_fence_platform_kind()), err);
   sh_fence_timeline_finish(&tl);
}

static bool
sh_sync_available(void)
{
   pthread_once(&sh_sync_probe_once, sh_sync_probe);
   return sh_sync_can_make;
}

static int
sh_sync_create(void *storage, int *out_fd)
{
   struct sh_sync_token *t = storage;
   *out_fd = -1;
   int err = sh_fence_timeline_init_platform(&t->timeline);
   if (err == 0)
      err = sh_fence_create(&t->timeline, &t->pending, out_fd);
   if (err != 0)
      sh_fence_timeline_finish(&t->timeline);
   return err;
}

static void
sh_sync_signal(void *storage)
{
   struct sh_sync_token *t = storage;
   int err = sh_fence_signal(&t->timeline, &t->pending);
   if (err != 0)
      su_log("signalling a native fence failed (%d); closing its timeline", err);
   /* Closing a sw_sync timeline also signals whatever is left on it. */
   sh_fence_timeline_finish(&t->timeline);
}

/* Kernel sync_files only from sw_sync. Test builds may let host eventfds
 * stand in (SHALE_TEST_EVENTFD_AS_SYNC_FD=1), so the export path is tested
 * on machines without sw_sync; production builds never do. */
static bool
sh_sync_kernel_files(void)
{
   if (sh_fence_platform_kind() == SH_FENCE_KIND_SW_SYNC)
      return true;
#ifdef SHALE_ALLOC_FAIL_INJECTION
   const char *env = getenv("SHALE_TEST_EVENTFD_AS_SYNC_FD");
   return env && strcmp(env, "1") == 0;
#else
   return false;
#endif
}

static const struct sd_sync_fd_ops sh_sync_fd_ops = {
   .token_size = sizeof(struct sh_sync_token),
   .available = sh_sync_available,
   .create = sh_sync_create,
   .signal = sh_sync_signal,
   .kernel_sync_files = sh_sync_kernel_files,
};

/* ---- native-buffer images ---- */

/* The buffer's usage as AHARDWAREBUFFER_USAGE_* bits from whichever member
 * the loader filled: usage3 (spec 9+), else the gralloc1 pair (spec 6+),
 * else the gralloc0 int (whose CPU bits are the AHB ones). */
static uint64_t
sh_native_buffer_usage(const VkNativeBufferANDROID *nb)
{
   if (nb->usage3)
      return nb->usage3;
   uint64_t g1 = nb->usage2.consumer | nb->usage2.producer;
   if (g1) {
      return ((g1 & SH_GRALLOC1_USAGE_CPU_READ_OFTEN) ? SHALE_AHB_USAGE_CPU_READ_OFTEN : 0) |
             ((g1 & SH_GRALLOC1_USAGE_CPU_WRITE_OFTEN) ? SHALE_AHB_USAGE_CPU_WRITE_OFTEN : 0) |
             (g1 & SHALE_AHB_USAGE_FRONT_BUFFER);
   }
   return (uint32_t)nb->usage;
}

static VkResult
sh_gralloc_error(int err, const char *what)
{
   switch (err) {
   case -ENOMEM:
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, what);
   case -ENOTSUP:
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, what);
   default:
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, what);
   }
}

static VkResult
sh_native_import(const struct sd_image *img, const VkNativeBufferANDROID *nb, void *storage,
                 struct sd_native_mapping *out)
{
   struct sh_gralloc_buffer *buf = storage;
   if (!sh_gralloc_format_compatible(nb->format, img->format) ||
       sh_gralloc_format_bpp(nb->format) != img->desc->block_size)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "native buffer format does not match the image format");
   const struct sh_gralloc_import_info info = {
      .handle = nb->handle,
      .ahb = nb->ahb,
      .width = img->extent.width,
      .height = img->extent.height,
      .format = nb->format,
      .stride = nb->stride,
      .usage = sh_native_buffer_usage(nb),
   };
   int err = sh_gralloc_import(&info, buf);
   if (err != 0)
      return sh_gralloc_error(err, "cannot import the native buffer");

   /* Map for exactly the CPU access the image's usage needs; the buffer
    * must allow it (a read-only buffer behind a transfer destination would
    * fault in the renderer instead of failing here). */
   bool read, write;
   sh_gralloc_usage_cpu_access(img->usage, &read, &write);
   const uint64_t lock_usage = (read ? SHALE_AHB_USAGE_CPU_READ_OFTEN : 0) |
                               (write ? SHALE_AHB_USAGE_CPU_WRITE_OFTEN : 0);
   void *map = NULL;
   err = sh_gralloc_lock_usage_ok(lock_usage, buf->usage) ? sh_gralloc_lock(buf, lock_usage, &map)
                                                          : -EINVAL;
   if (err != 0) {
      sh_gralloc_release(buf);
      return sh_gralloc_error(err, "the native buffer's usage does not allow the image's "
                                   "CPU access");
   }
   out->data = map;
   out->row_pitch = (VkDeviceSize)buf->stride_pixels * buf->bytes_per_pixel;
   return VK_SUCCESS;
}

static void
sh_native_release(void *storage)
{
   struct sh_gralloc_buffer *buf = storage;
   if (sh_gralloc_unlock(buf) != 0)
      su_log("unlocking a native buffer failed");
   sh_gralloc_release(buf);
}

static const struct sd_native_buffer_ops sh_native_buffer_ops = {
   .storage_size = sizeof(struct sh_gralloc_buffer),
   .import = sh_native_import,
   .release = sh_native_release,
};

/* Both hooks are in place before the loader can call anything. */
__attribute__((constructor)) static void
sh_native_buffer_register(void)
{
   sd_sync_fd_register(&sh_sync_fd_ops);
   sd_image_register_native_buffer_ops(&sh_native_buffer_ops);
}

/* ---- acquire and release ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_AcquireImageANDROID(VkDevice device, VkImage image, int nativeFenceFd, VkSemaphore semaphore,
                       VkFence fence)
{
   SD_FROM_HANDLE(sd_semaphore, sem, semaphore);
   SD_FROM_HANDLE(sd_fence, f, fence);
   int fd = nativeFenceFd;
   /* An fd that is not open is refused (closing it would close someone
    * else's file should the number be reused); anything else is ours. */
   if (fd < -1 || (fd >= 0 && fcntl(fd, F_GETFD) < 0))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "vkAcquireImageANDROID: bad fence fd");

   /* Both objects need the payload: the fence gets a dup. Without a spare
    * fd, wait here instead; both are then simply signalled. */
   int fence_fd = -1;
   if (sem && f) {
      if (sh_sync_fd_dup(fd, &fence_fd) != 0) {
         su_log("vkAcquireImageANDROID: cannot dup the fence fd; waiting on the CPU");
         sh_sync_fd_wait(fd, -1);
         sh_sync_fd_close(fd);
         fd = -1;
      }
   } else if (f) {
      fence_fd = fd;
      fd = -1;
   }

   VkResult result = VK_SUCCESS;
   if (sem) {
      result = sd_semaphore_import_sync_fd(sem, fd);
      if (result != VK_SUCCESS)
         sh_sync_fd_close(fd);
   } else {
      sh_sync_fd_close(fd);   /* nothing waits for it */
   }
   if (f) {
      VkResult r = sd_fence_import_sync_fd(f, fence_fd);
      if (r != VK_SUCCESS) {
         sh_sync_fd_close(fence_fd);
         result = r;
      }
   }
   return result;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_QueueSignalReleaseImageANDROID(VkQueue queue, uint32_t waitSemaphoreCount,
                                  const VkSemaphore *pWaitSemaphores, VkImage image,
                                  int *pNativeFenceFd)
{
   SD_FROM_HANDLE(sd_queue, q, queue);
   SD_FROM_HANDLE(sd_image, img, image);
   /* Zero copy: there is nothing to do for the image itself, shared or not. */
   if (img && !img->native_bound)
      su_log("vkQueueSignalReleaseImageANDROID: image %p has no native buffer", (void *)img);
   VkResult r = sd_queue_signal_release(q, waitSemaphoreCount, pWaitSemaphores, pNativeFenceFd);
   if (su_debug(SU_DEBUG_INFO))
      su_log("release of image %p (%s): %d, fd %d", (void *)img,
             img && (img->swapchain_usage & VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID)
                ? "shared"
                : "not shared",
             r, *pNativeFenceFd);
   return r;
}
