/* Android gralloc backend: swapchain buffers and AHardwareBuffers, locked for CPU access. */
/*
 * Built only for Android (src/hal/meson.build and Android.bp add it there);
 * it has never been compiled or run in this repository's CI, which has no
 * NDK. What it relies on, all public:
 *  - NDK <android/hardware_buffer.h> (API 26): AHardwareBuffer_allocate,
 *    _acquire, _release, _describe, _lock, _unlock; and (API 29, where the
 *    module is built for it) _lockPlanes, the only way to Y'CbCr planes.
 *  - VNDK <vndk/hardware_buffer.h> (libnativewindow, an LL-NDK library a
 *    vendor HAL may link): AHardwareBuffer_createFromHandle with
 *    AHARDWAREBUFFER_CREATE_FROM_HANDLE_METHOD_CLONE (3), which clones and
 *    imports the handle, so the platform keeps ownership of its own handle.
 *    Referenced weakly: where it is missing, only VkNativeBufferANDROID::ahb
 *    (spec version 11) can be imported.
 * Unverified here: that every gralloc mapper returns the same address on
 * every lock (the interface does not assume it), that AHardwareBuffer_lock
 * accepts CPU_*_OFTEN on buffers the loader allocated with the usage
 * sd_GetSwapchainGralloc*ANDROID asked for, and the weak-symbol fallback on
 * devices older than the VNDK function.
 */
#ifdef __ANDROID__

#include <assert.h>
#include <errno.h>
#include <string.h>

#include <android/hardware_buffer.h>

#include "sh_gralloc.h"

#if defined(__has_include) && __has_include(<vndk/hardware_buffer.h>)
#include <vndk/hardware_buffer.h>
#pragma weak AHardwareBuffer_createFromHandle
#define SH_CREATE_FROM_HANDLE_METHOD_CLONE AHARDWAREBUFFER_CREATE_FROM_HANDLE_METHOD_CLONE
#else
/* The VNDK declaration (frameworks/native libs/nativewindow
 * include/vndk/hardware_buffer.h), for NDK builds that lack the header. */
int AHardwareBuffer_createFromHandle(const AHardwareBuffer_Desc *desc,
                                     const native_handle_t *handle, int32_t method,
                                     AHardwareBuffer **outBuffer) __attribute__((weak));
#define SH_CREATE_FROM_HANDLE_METHOD_CLONE 3
#endif

/* status_t values are negative errnos; anything else becomes -EIO. */
static int
android_status(int status)
{
   return status < 0 ? status : -EIO;
}

static int
android_ahb_describe(const struct AHardwareBuffer *ahb, struct sh_ahb_desc *out)
{
   memset(out, 0, sizeof(*out));
   if (ahb == NULL)
      return -EINVAL;
   AHardwareBuffer_Desc d;
   memset(&d, 0, sizeof(d));
   AHardwareBuffer_describe(ahb, &d);
   out->width = d.width;
   out->height = d.height;
   out->layers = d.layers;
   out->format = d.format;
   out->usage = d.usage;
   out->stride = d.stride;
   return 0;
}

static int
android_import(const struct sh_gralloc_import_info *info, struct sh_gralloc_buffer *out)
{
   memset(out, 0, sizeof(*out));
   AHardwareBuffer *ahb = NULL;

   if (info->ahb != NULL) {
      ahb = info->ahb;
      AHardwareBuffer_acquire(ahb);
   } else if (info->handle != NULL) {
      if (AHardwareBuffer_createFromHandle == NULL)
         return -ENOTSUP;
      if (info->stride <= 0)
         return -EINVAL;
      const AHardwareBuffer_Desc desc = {
         .width = info->width,
         .height = info->height,
         .layers = 1,
         .format = (uint32_t)info->format,
         .usage = info->usage,
         .stride = (uint32_t)info->stride,
      };
      int status = AHardwareBuffer_createFromHandle(&desc, info->handle,
                                                    SH_CREATE_FROM_HANDLE_METHOD_CLONE, &ahb);
      if (status != 0 || ahb == NULL)
         return android_status(status);
   } else {
      return -EINVAL;
   }

   struct sh_ahb_desc d;
   android_ahb_describe(ahb, &d);
   uint32_t bpp = sh_gralloc_format_bpp((int)d.format);
   int err = 0;
   if (bpp == 0)
      err = -ENOTSUP;
   else if ((int)d.format != info->format || d.layers != 1 || d.stride < d.width ||
            (info->stride > 0 && d.stride != (uint32_t)info->stride) ||
            info->width == 0 || info->height == 0 || info->width > d.width ||
            info->height > d.height)
      err = -EINVAL;
   if (err != 0) {
      AHardwareBuffer_release(ahb);
      return err;
   }

   sh_gralloc_buffer_init(out, &sh_gralloc_android_backend, &d, bpp);
   out->priv.android.ahb = ahb;
   return 0;
}

static int
android_lock(struct sh_gralloc_buffer *buf, uint64_t usage, void **out_map)
{
   *out_map = NULL;
   if (!sh_gralloc_lock_usage_ok(usage, buf->usage))
      return -EINVAL;
   if (buf->lock_count == UINT32_MAX)
      return -EBUSY;
   void *addr = NULL;
   /* No fence: the driver waited for the buffer's acquire fence already. */
   int status = AHardwareBuffer_lock(buf->priv.android.ahb, usage, -1, NULL, &addr);
   if (status != 0 || addr == NULL)
      return android_status(status);
   buf->lock_count++;
   buf->map = addr;
   *out_map = addr;
   return 0;
}

/* AHardwareBuffer_lockPlanes (API 29); before it, one plane through
 * AHardwareBuffer_lock (Y'CbCr buffers cannot be reached then). */
static int
android_lock_planes(struct sh_gralloc_buffer *buf, uint64_t usage, struct sh_gralloc_planes *out)
{
   memset(out, 0, sizeof(*out));
   if (!sh_gralloc_lock_usage_ok(usage, buf->usage))
      return -EINVAL;
   if (buf->lock_count == UINT32_MAX)
      return -EBUSY;
#if __ANDROID_API__ >= 29
   AHardwareBuffer_Planes planes;
   memset(&planes, 0, sizeof(planes));
   int status = AHardwareBuffer_lockPlanes(buf->priv.android.ahb, usage, -1, NULL, &planes);
   if (status != 0)
      return android_status(status);
   if (planes.planeCount != 1 && planes.planeCount != 3) {
      AHardwareBuffer_unlock(buf->priv.android.ahb, NULL);
      return -ENOTSUP;
   }
   out->count = planes.planeCount;
   for (uint32_t i = 0; i < planes.planeCount; i++) {
      out->planes[i].data = planes.planes[i].data;
      out->planes[i].pixel_stride = planes.planes[i].pixelStride;
      out->planes[i].row_stride = planes.planes[i].rowStride;
   }
   buf->lock_count++;
   buf->map = out->planes[0].data;
   return 0;
#else
   if (buf->format == SHALE_AHB_FORMAT_Y8Cb8Cr8_420)
      return -ENOTSUP;
   void *map = NULL;
   int err = android_lock(buf, usage, &map);
   if (err != 0)
      return err;
   out->count = 1;
   out->planes[0].data = map;
   out->planes[0].pixel_stride = buf->bytes_per_pixel;
   out->planes[0].row_stride = buf->stride_pixels * buf->bytes_per_pixel;
   return 0;
#endif
}

static int
android_unlock(struct sh_gralloc_buffer *buf)
{
   if (buf->lock_count == 0)
      return -EINVAL;
   /* A NULL fence makes the unlock (cache maintenance included) finish
    * before it returns, so the release fence signalled after it is honest. */
   int status = AHardwareBuffer_unlock(buf->priv.android.ahb, NULL);
   if (status != 0)
      return android_status(status);
   if (--buf->lock_count == 0)
      buf->map = NULL;
   return 0;
}

static void
android_release(struct sh_gralloc_buffer *buf)
{
   assert(buf->lock_count == 0);
   if (buf->priv.android.ahb)
      AHardwareBuffer_release(buf->priv.android.ahb);
   memset(buf, 0, sizeof(*buf));
}

/* ---- AHardwareBuffers (VK_ANDROID_external_memory_android_hardware_buffer) ---- */

static int
android_ahb_allocate(const struct sh_ahb_desc *desc, struct AHardwareBuffer **out)
{
   *out = NULL;
   AHardwareBuffer_Desc d;
   memset(&d, 0, sizeof(d));   /* stride and the rfu members: 0 when allocating */
   d.width = desc->width;
   d.height = desc->height;
   d.layers = desc->layers;
   d.format = desc->format;
   d.usage = desc->usage;
   AHardwareBuffer *ahb = NULL;
   int status = AHardwareBuffer_allocate(&d, &ahb);
   if (status != 0 || ahb == NULL)
      return status == -EINVAL ? -ENOTSUP : android_status(status);
   *out = ahb;
   return 0;
}

static void
android_ahb_acquire(struct AHardwareBuffer *ahb)
{
   AHardwareBuffer_acquire(ahb);
}

static void
android_ahb_release(struct AHardwareBuffer *ahb)
{
   AHardwareBuffer_release(ahb);
}

static int
android_import_ahb(struct AHardwareBuffer *ahb, struct sh_gralloc_buffer *out)
{
   memset(out, 0, sizeof(*out));
   struct sh_ahb_desc d;
   int err = android_ahb_describe(ahb, &d);
   if (err != 0)
      return err;
   const uint32_t bpp = sh_gralloc_ahb_format_bpp(d.format);
   if (bpp == 0)
      return -ENOTSUP;
   /* A BLOB's stride is meaningless (its width counts bytes, one row), and
    * a Y'CbCr buffer's planes come from AHardwareBuffer_lockPlanes. */
   if (d.format == SHALE_AHB_FORMAT_BLOB ||
       (d.format == SHALE_AHB_FORMAT_Y8Cb8Cr8_420 && d.stride < d.width))
      d.stride = d.width;
   if (d.layers != 1 || d.width == 0 || d.height == 0 || d.stride < d.width ||
       (d.format == SHALE_AHB_FORMAT_BLOB && d.height != 1))
      return -EINVAL;
   AHardwareBuffer_acquire(ahb);
   sh_gralloc_buffer_init(out, &sh_gralloc_android_backend, &d, bpp);
   out->priv.android.ahb = ahb;
   return 0;
}

const struct sh_gralloc_backend sh_gralloc_android_backend = {
   .name = "android-ahardwarebuffer",
   .import = android_import,
   .lock = android_lock,
   .lock_planes = android_lock_planes,
   .unlock = android_unlock,
   .release = android_release,
   .ahb_allocate = android_ahb_allocate,
   .ahb_describe = android_ahb_describe,
   .ahb_acquire = android_ahb_acquire,
   .ahb_release = android_ahb_release,
   .import_ahb = android_import_ahb,
};

#else
/* Not Android: nothing here (ISO C wants a declaration in every unit). */
typedef int sh_gralloc_android_unused;
#endif
