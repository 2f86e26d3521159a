/*
 * sh_gralloc: the one interface through which the driver reaches gralloc
 * buffers, the gralloc formats Shale takes, and the usage bits it asks for.
 *
 * Owns: struct sh_gralloc_buffer, an imported gralloc buffer whose CPU
 * mapping (with the buffer's own stride) is the memory of a swapchain image
 * or of a VkDeviceMemory made from an AHardwareBuffer: zero copy, the
 * renderer reads and writes the pixels in place. Two backends fill it:
 * Android (sh_gralloc_android.c: AHardwareBuffer, from the
 * VkNativeBufferANDROID's `ahb` or, for older loaders, from its native
 * handle, or an application's AHardwareBuffer) and the host
 * (sh_gralloc_host.c: a memfd inside a native_handle_t, or inside a host
 * stand-in for AHardwareBuffer, the platform's allocator as the tests play
 * it). Both also allocate, describe and count references of
 * AHardwareBuffers (VK_ANDROID_external_memory_android_hardware_buffer:
 * src/hal/sh_ahb.c). Everything else in the driver calls only the inline
 * functions below.
 *
 * Invariants: a buffer is imported once and released once. Pixels may be
 * touched only between sh_gralloc_lock() and sh_gralloc_unlock(); the lock
 * returns where pixel (0,0) is for that lock (the Android backend does not
 * promise the same address every time, so the caller takes the address from
 * each lock). Lock usage must be a subset of the buffer's usage. Locks nest
 * (a count); unlock makes CPU writes visible to the other users of the buffer.
 * The driver waits for a buffer's acquire fence itself (sh_native_fence.h)
 * and locks with no fence.
 *
 * Host handle layout (sh_gralloc_host_allocate): version = sizeof(native_handle_t),
 * numFds = 1, numInts = SH_GRALLOC_HOST_NUM_INTS; data[0] = a memfd holding
 * the pixels from offset 0, rows stride_pixels * bytes-per-pixel apart (a
 * multiple of 64 bytes), sealed against growing and shrinking; then the ints
 * magic ('SHGR'), width, height, stride_pixels, format (HAL_PIXEL_FORMAT_*),
 * usage bits 0-31, usage bits 32-63 (AHARDWAREBUFFER_USAGE_*).
 *
 * Threading: formats and usage helpers are pure. One buffer is used by one
 * thread at a time (the caller serializes lock/unlock/release per buffer);
 * different buffers are independent.
 */
#ifndef SH_GRALLOC_H
#define SH_GRALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>
#include <vulkan/vk_android_native_buffer.h>

#include "shale/ahb.h"

/* HAL_PIXEL_FORMAT_* (AOSP system/core libsystem
 * include/system/graphics-base-v1.0.h, v1.1.h); the NDK's
 * AHARDWAREBUFFER_FORMAT_* (android/hardware_buffer.h) use the same values.
 * Prefixed because Android's headers define the plain names as enumerators. */
#define SH_HAL_PIXEL_FORMAT_RGBA_8888 0x1
#define SH_HAL_PIXEL_FORMAT_RGBX_8888 0x2
#define SH_HAL_PIXEL_FORMAT_RGB_565 0x4
#define SH_HAL_PIXEL_FORMAT_BGRA_8888 0x5
#define SH_HAL_PIXEL_FORMAT_RGBA_FP16 0x16
#define SH_HAL_PIXEL_FORMAT_RGBA_1010102 0x2B

/* gralloc0 usage, an int (AOSP hardware/libhardware include/hardware/gralloc.h). */
#define SH_GRALLOC0_USAGE_SW_READ_OFTEN 0x00000003
#define SH_GRALLOC0_USAGE_SW_WRITE_OFTEN 0x00000030

/* gralloc1 producer/consumer usage (AOSP hardware/libhardware
 * include/hardware/gralloc1.h). Note OFTEN is two bits here: 1<<2 | 1<<1. */
#define SH_GRALLOC1_USAGE_CPU_READ (UINT64_C(1) << 1)
#define SH_GRALLOC1_USAGE_CPU_READ_OFTEN ((UINT64_C(1) << 2) | SH_GRALLOC1_USAGE_CPU_READ)
#define SH_GRALLOC1_USAGE_CPU_WRITE (UINT64_C(1) << 5)
#define SH_GRALLOC1_USAGE_CPU_WRITE_OFTEN ((UINT64_C(1) << 6) | SH_GRALLOC1_USAGE_CPU_WRITE)

/* AHARDWAREBUFFER_USAGE_* and _FORMAT_*: shale/ahb.h (the same bits as
 * android.hardware.graphics.common BufferUsage, which usage3/usage4 carry). */

/* --- formats ------------------------------------------------------------- */

/* Bytes per pixel of a gralloc format Shale takes; 0 for any other. */
static inline uint32_t
sh_gralloc_format_bpp(int hal_format)
{
   switch (hal_format) {
   case SH_HAL_PIXEL_FORMAT_RGBA_8888:
   case SH_HAL_PIXEL_FORMAT_RGBX_8888:
   case SH_HAL_PIXEL_FORMAT_BGRA_8888:
   case SH_HAL_PIXEL_FORMAT_RGBA_1010102:
      return 4;
   case SH_HAL_PIXEL_FORMAT_RGB_565:
      return 2;
   case SH_HAL_PIXEL_FORMAT_RGBA_FP16:
      return 8;
   default:
      return 0;
   }
}

/* The VkFormat whose texel layout is the gralloc format's memory layout
 * (RGBX reads as R8G8B8A8 with the X byte in alpha: the image view swizzles
 * alpha to one); VK_FORMAT_UNDEFINED for a format Shale does not take. */
static inline VkFormat
sh_gralloc_format_to_vk(int hal_format)
{
   switch (hal_format) {
   case SH_HAL_PIXEL_FORMAT_RGBA_8888:
   case SH_HAL_PIXEL_FORMAT_RGBX_8888:
      return VK_FORMAT_R8G8B8A8_UNORM;
   case SH_HAL_PIXEL_FORMAT_BGRA_8888:
      return VK_FORMAT_B8G8R8A8_UNORM;
   case SH_HAL_PIXEL_FORMAT_RGB_565:
      return VK_FORMAT_R5G6B5_UNORM_PACK16;
   case SH_HAL_PIXEL_FORMAT_RGBA_FP16:
      return VK_FORMAT_R16G16B16A16_SFLOAT;
   case SH_HAL_PIXEL_FORMAT_RGBA_1010102:
      return VK_FORMAT_A2B10G10R10_UNORM_PACK32;
   default:
      return VK_FORMAT_UNDEFINED;
   }
}

/* The gralloc format a swapchain of `format` allocates (the sRGB formats
 * share their UNORM twin's buffers); 0 when there is none. */
static inline int
sh_gralloc_format_from_vk(VkFormat format)
{
   switch (format) {
   case VK_FORMAT_R8G8B8A8_UNORM:
   case VK_FORMAT_R8G8B8A8_SRGB:
      return SH_HAL_PIXEL_FORMAT_RGBA_8888;
   case VK_FORMAT_B8G8R8A8_UNORM:
   case VK_FORMAT_B8G8R8A8_SRGB:
      return SH_HAL_PIXEL_FORMAT_BGRA_8888;
   case VK_FORMAT_R5G6B5_UNORM_PACK16:
      return SH_HAL_PIXEL_FORMAT_RGB_565;
   case VK_FORMAT_R16G16B16A16_SFLOAT:
      return SH_HAL_PIXEL_FORMAT_RGBA_FP16;
   case VK_FORMAT_A2B10G10R10_UNORM_PACK32:
      return SH_HAL_PIXEL_FORMAT_RGBA_1010102;
   default:
      return 0;
   }
}

/* Whether an image of `format` may live in a buffer of `hal_format`. */
static inline bool
sh_gralloc_format_compatible(int hal_format, VkFormat format)
{
   int own = sh_gralloc_format_from_vk(format);
   if (own == 0)
      return false;
   if (own == hal_format)
      return true;
   return hal_format == SH_HAL_PIXEL_FORMAT_RGBX_8888 &&
          own == SH_HAL_PIXEL_FORMAT_RGBA_8888;
}

/* --- buffers ------------------------------------------------------------- */

struct sh_gralloc_buffer;
struct sh_gralloc_planes;
struct AHardwareBuffer;

/* What the platform told the driver about a buffer: VkNativeBufferANDROID
 * plus the image's extent. */
struct sh_gralloc_import_info {
   buffer_handle_t handle;       /* may be NULL when `ahb` is set */
   struct AHardwareBuffer *ahb;  /* VkNativeBufferANDROID::ahb (spec 11), or NULL */
   uint32_t width, height;       /* VkImageCreateInfo::extent */
   int format;                   /* HAL_PIXEL_FORMAT_* */
   int stride;                   /* pixels */
   uint64_t usage;               /* AHARDWAREBUFFER_USAGE_* (usage3, or converted) */
};

/* Where a locked buffer's samples are (AHardwareBuffer_Planes): one plane
 * for RGB and BLOB buffers; Y, Cb, Cr for Y'CbCr ones (Cb and Cr may
 * interleave: pixel_stride 2, one byte apart). */
struct sh_gralloc_plane {
   uint8_t *data;                /* sample (0,0) of the plane, while locked */
   uint32_t pixel_stride;        /* bytes between horizontally adjacent samples */
   uint32_t row_stride;          /* bytes between rows */
};

struct sh_gralloc_planes {
   uint32_t count;               /* 1 or 3 */
   struct sh_gralloc_plane planes[3];
};

/* AHardwareBuffer_Desc's members (VK_ANDROID_external_memory_android_hardware_buffer). */
struct sh_ahb_desc {
   uint32_t width, height, layers;
   uint32_t format;              /* AHARDWAREBUFFER_FORMAT_* (SHALE_AHB_FORMAT_*) */
   uint64_t usage;               /* AHARDWAREBUFFER_USAGE_* */
   uint32_t stride;              /* pixels between rows (the allocator's); 0 when asking */
};

struct sh_gralloc_backend {
   const char *name;
   int (*import)(const struct sh_gralloc_import_info *info, struct sh_gralloc_buffer *out);
   int (*lock)(struct sh_gralloc_buffer *buf, uint64_t usage, void **out_map);
   int (*lock_planes)(struct sh_gralloc_buffer *buf, uint64_t usage,
                      struct sh_gralloc_planes *out);
   int (*unlock)(struct sh_gralloc_buffer *buf);
   void (*release)(struct sh_gralloc_buffer *buf);
   /* AHardwareBuffers: AHardwareBuffer_allocate/_describe/_acquire/_release,
    * and an import that takes a reference (the buffer then locks, unlocks
    * and releases like any other). */
   int (*ahb_allocate)(const struct sh_ahb_desc *desc, struct AHardwareBuffer **out);
   int (*ahb_describe)(const struct AHardwareBuffer *ahb, struct sh_ahb_desc *out);
   void (*ahb_acquire)(struct AHardwareBuffer *ahb);
   void (*ahb_release)(struct AHardwareBuffer *ahb);
   int (*import_ahb)(struct AHardwareBuffer *ahb, struct sh_gralloc_buffer *out);
};

struct sh_gralloc_buffer {
   const struct sh_gralloc_backend *backend;
   void *map;                 /* pixel (0,0) while locked, else NULL */
   uint32_t width, height;
   uint32_t stride_pixels;    /* row pitch in pixels; >= width */
   uint32_t bytes_per_pixel;
   int format;                /* HAL_PIXEL_FORMAT_* */
   uint64_t usage;            /* AHARDWAREBUFFER_USAGE_* */
   uint32_t lock_count;
   union {
      struct {
         void *base;          /* the whole memfd mapping */
         size_t length;
         struct AHardwareBuffer *ahb;   /* one reference, ours, or NULL (a native handle) */
      } host;
      struct {
         struct AHardwareBuffer *ahb;   /* one reference, ours */
      } android;
   } priv;
};

/* What every backend's import records of a buffer `d` describes (width,
 * height, stride in pixels, format, usage) at `bpp` bytes per pixel; the
 * backend's own part (priv) is the backend's to fill. */
static inline void
sh_gralloc_buffer_init(struct sh_gralloc_buffer *out, const struct sh_gralloc_backend *backend,
                       const struct sh_ahb_desc *d, uint32_t bpp)
{
   out->backend = backend;
   out->width = d->width;
   out->height = d->height;
   out->stride_pixels = d->stride;
   out->bytes_per_pixel = bpp;
   out->format = (int)d->format;
   out->usage = d->usage;
}

/* Bytes from pixel (0,0) to the end of the last pixel of the last row. */
static inline uint64_t
sh_gralloc_buffer_extent_bytes(const struct sh_gralloc_buffer *buf)
{
   if (buf->height == 0)
      return 0;
   return ((uint64_t)buf->stride_pixels * (buf->height - 1) + buf->width) *
          buf->bytes_per_pixel;
}

/* The CPU access an image with `usage` needs, the one policy of the
 * gralloc usage queries and of native-buffer images: reads for usages that
 * read its pixels, writes for usages that write them, both for bits this
 * driver does not know. */
static inline void
sh_gralloc_usage_cpu_access(VkImageUsageFlags usage, bool *read, bool *write)
{
   const VkImageUsageFlags reads =
      VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
      VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
      VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
   const VkImageUsageFlags writes =
      VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_STORAGE_BIT |
      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT;
   const bool unknown = (usage & ~(reads | writes)) != 0;
   *read = unknown || (usage & reads) != 0;
   *write = unknown || (usage & writes) != 0;
}

/* Whether a lock with `usage` is allowed on a buffer allocated with
 * `allowed`: CPU bits only, at least one, each direction allowed. */
static inline bool
sh_gralloc_lock_usage_ok(uint64_t usage, uint64_t allowed)
{
   const uint64_t cpu = SHALE_AHB_USAGE_CPU_READ_MASK | SHALE_AHB_USAGE_CPU_WRITE_MASK;
   if (usage == 0 || (usage & ~cpu))
      return false;
   if ((usage & SHALE_AHB_USAGE_CPU_READ_MASK) && !(allowed & SHALE_AHB_USAGE_CPU_READ_MASK))
      return false;
   if ((usage & SHALE_AHB_USAGE_CPU_WRITE_MASK) && !(allowed & SHALE_AHB_USAGE_CPU_WRITE_MASK))
      return false;
   return true;
}

extern const struct sh_gralloc_backend sh_gralloc_host_backend;
#ifdef __ANDROID__
extern const struct sh_gralloc_backend sh_gralloc_android_backend;
#define SH_GRALLOC_PLATFORM_BACKEND (&sh_gralloc_android_backend)
#else
#define SH_GRALLOC_PLATFORM_BACKEND (&sh_gralloc_host_backend)
#endif

/* Imports the platform's buffer; 0, or a negative errno (-EINVAL for a handle
 * or description that does not match, -ENOTSUP for a format Shale does not
 * take, -ENOMEM ...). On failure `out` holds nothing to release. */
static inline int
sh_gralloc_import(const struct sh_gralloc_import_info *info, struct sh_gralloc_buffer *out)
{
   return SH_GRALLOC_PLATFORM_BACKEND->import(info, out);
}

/* Maps the pixels for CPU access with `usage` (AHARDWAREBUFFER_USAGE_CPU_*,
 * a subset of the buffer's usage); *out_map = pixel (0,0). 0 or -errno. */
static inline int
sh_gralloc_lock(struct sh_gralloc_buffer *buf, uint64_t usage, void **out_map)
{
   return buf->backend->lock(buf, usage, out_map);
}

/* As sh_gralloc_lock, but says where every plane is (AHardwareBuffer_lockPlanes);
 * the one way to reach a Y'CbCr buffer's samples. Unlock as for any lock. */
static inline int
sh_gralloc_lock_planes(struct sh_gralloc_buffer *buf, uint64_t usage,
                       struct sh_gralloc_planes *out)
{
   return buf->backend->lock_planes(buf, usage, out);
}

/* Ends one lock; the last one publishes CPU writes. 0 or -errno. */
static inline int
sh_gralloc_unlock(struct sh_gralloc_buffer *buf)
{
   return buf->backend->unlock(buf);
}

/* Drops the import (the platform's handle stays the platform's). Asserts in
 * debug builds that no lock is held. */
static inline void
sh_gralloc_release(struct sh_gralloc_buffer *buf)
{
   if (buf->backend)
      buf->backend->release(buf);
}

/* --- AHardwareBuffers ------------------------------------------------------ */

/* Bytes per pixel of an AHardwareBuffer format Shale maps for the CPU (BLOB:
 * 1, its width counts bytes; Y8Cb8Cr8_420: 1, the luma plane's, whose
 * stride is the buffer's); 0 for any other. R8G8B8 is here because the
 * host allocator makes it (whether Vulkan takes it is the driver's call). */
static inline uint32_t
sh_gralloc_ahb_format_bpp(uint32_t ahb_format)
{
   switch (ahb_format) {
   case SHALE_AHB_FORMAT_Y8Cb8Cr8_420:
      return 1;
   case SHALE_AHB_FORMAT_R8G8B8A8_UNORM:
   case SHALE_AHB_FORMAT_R8G8B8X8_UNORM:
   case SHALE_AHB_FORMAT_R10G10B10A2_UNORM:
      return 4;
   case SHALE_AHB_FORMAT_R8G8B8_UNORM:
      return 3;
   case SHALE_AHB_FORMAT_R5G6B5_UNORM:
      return 2;
   case SHALE_AHB_FORMAT_R16G16B16A16_FLOAT:
      return 8;
   case SHALE_AHB_FORMAT_BLOB:
      return 1;
   default:
      return 0;
   }
}

/* AHardwareBuffer_allocate: a new buffer holding one reference, the
 * caller's. 0 or -errno (-ENOTSUP: a description the allocator cannot make). */
static inline int
sh_gralloc_ahb_allocate(const struct sh_ahb_desc *desc, struct AHardwareBuffer **out)
{
   return SH_GRALLOC_PLATFORM_BACKEND->ahb_allocate(desc, out);
}

/* AHardwareBuffer_describe. 0, or -EINVAL where the backend can tell that
 * `ahb` is not a buffer (the host backend; Android's cannot, and trusts it). */
static inline int
sh_gralloc_ahb_describe(const struct AHardwareBuffer *ahb, struct sh_ahb_desc *out)
{
   return SH_GRALLOC_PLATFORM_BACKEND->ahb_describe(ahb, out);
}

/* AHardwareBuffer_acquire / AHardwareBuffer_release: one reference more or less. */
static inline void
sh_gralloc_ahb_acquire(struct AHardwareBuffer *ahb)
{
   SH_GRALLOC_PLATFORM_BACKEND->ahb_acquire(ahb);
}

static inline void
sh_gralloc_ahb_release(struct AHardwareBuffer *ahb)
{
   SH_GRALLOC_PLATFORM_BACKEND->ahb_release(ahb);
}

/* Imports an AHardwareBuffer as a gralloc buffer: takes a reference (dropped
 * by sh_gralloc_release) and describes it into `out` (a BLOB is `width`
 * bytes: bytes_per_pixel 1, one row). 0, or -EINVAL (not a buffer, or one of
 * more than one layer), -ENOTSUP (a format Shale does not map). On failure
 * no reference is kept. */
static inline int
sh_gralloc_import_ahb(struct AHardwareBuffer *ahb, struct sh_gralloc_buffer *out)
{
   return SH_GRALLOC_PLATFORM_BACKEND->import_ahb(ahb, out);
}

/* The AHardwareBuffer behind a buffer imported with sh_gralloc_import_ahb
 * (no new reference). */
static inline struct AHardwareBuffer *
sh_gralloc_buffer_ahb(const struct sh_gralloc_buffer *buf)
{
#ifdef __ANDROID__
   return buf->priv.android.ahb;
#else
   return buf->priv.host.ahb;
#endif
}

/* --- host allocator (tests; not built for Android) ------------------------ */

#define SH_GRALLOC_HOST_MAGIC 0x53484752 /* 'SHGR' */
#define SH_GRALLOC_HOST_NUM_INTS 7
enum {
   SH_GRALLOC_HOST_INT_MAGIC,
   SH_GRALLOC_HOST_INT_WIDTH,
   SH_GRALLOC_HOST_INT_HEIGHT,
   SH_GRALLOC_HOST_INT_STRIDE,
   SH_GRALLOC_HOST_INT_FORMAT,
   SH_GRALLOC_HOST_INT_USAGE_LO,
   SH_GRALLOC_HOST_INT_USAGE_HI,
};
#define SH_GRALLOC_HOST_ROW_ALIGN 64 /* bytes */

/* Plays the platform's allocator: a zero-filled buffer in a new handle laid
 * out as described at the top. 0 or -errno (-ENOTSUP: format; -EINVAL: zero
 * or too large extent). */
int sh_gralloc_host_allocate(uint32_t width, uint32_t height, int format, uint64_t usage,
                             native_handle_t **out);
/* Closes the handle's fds and frees it (native_handle_close + _delete). */
void sh_gralloc_host_free(native_handle_t *handle);

/* Host AHardwareBuffers, the platform's AHardwareBuffer_* as the tests play
 * them: a reference-counted object around a memfd named
 * SH_GRALLOC_HOST_AHB_NAME holding the bytes from offset 0, rows stride *
 * bytes-per-pixel apart (a multiple of 64 bytes and of the pixel size); a
 * BLOB is exactly `width` bytes (stride = width, height = layers = 1); a
 * Y8Cb8Cr8_420 buffer is NV12: `height` rows of luma, then ceil(height / 2)
 * rows of Cb,Cr pairs (Cb first), both planes' rows `stride` bytes apart
 * (a multiple of 64); with the vendor usage bit SH_GRALLOC_HOST_AHB_USAGE_NV21
 * the pairs are Cr,Cb, with SH_GRALLOC_HOST_AHB_USAGE_I420 the chroma is
 * two planes (Cb, then Cr) of rows stride / 2 bytes apart, the layouts a
 * real allocator may pick by usage (AHardwareBuffer_lockPlanes says which).
 * Every copy of sh_gralloc_host.c in a process (the driver's, a test's) works on
 * the same objects: struct AHardwareBuffer's layout and its atomic
 * reference count are the contract; the last release closes the memfd and
 * frees the object. One layer only. Descriptions are checked, so a pointer
 * that is not a live buffer fails with -EINVAL instead of being used. */
#define SH_GRALLOC_HOST_AHB_NAME "shale-ahb"
#define SH_GRALLOC_HOST_AHB_USAGE_NV21 (UINT64_C(1) << 28)   /* AHARDWAREBUFFER_USAGE_VENDOR_0 */
#define SH_GRALLOC_HOST_AHB_USAGE_I420 (UINT64_C(1) << 29)   /* AHARDWAREBUFFER_USAGE_VENDOR_1 */
#define SH_GRALLOC_HOST_AHB_MAGIC 0x53484142 /* 'SHAB' */

/* AHardwareBuffer_allocate: 0, -ENOTSUP (format, or more than one layer),
 * -EINVAL (zero or too large extent, a BLOB taller than one row), -ENOMEM,
 * or the system's -errno. */
int sh_gralloc_host_ahb_allocate(const struct sh_ahb_desc *desc, struct AHardwareBuffer **out);
int sh_gralloc_host_ahb_describe(const struct AHardwareBuffer *ahb, struct sh_ahb_desc *out);
void sh_gralloc_host_ahb_acquire(struct AHardwareBuffer *ahb);
void sh_gralloc_host_ahb_release(struct AHardwareBuffer *ahb);
/* AHardwareBuffer_lock / _unlock (no fences, no rectangle): *out = byte 0.
 * Locks nest; the usage must be CPU bits the buffer allows. 0 or -errno. */
int sh_gralloc_host_ahb_lock(struct AHardwareBuffer *ahb, uint64_t usage, void **out);
int sh_gralloc_host_ahb_unlock(struct AHardwareBuffer *ahb);
/* References held now (tests: who acquired and released what). */
uint32_t sh_gralloc_host_ahb_refs(const struct AHardwareBuffer *ahb);

#endif
