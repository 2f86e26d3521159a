/* Host gralloc backend: memfd-backed native handles and AHardwareBuffers, the platform allocator the tests play. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sh_gralloc.h"

/* No buffer larger than this (a 16384 x 16384 FP16 buffer is 2 GiB); it
 * keeps every size computation far from overflowing and strides in an int. */
#define SH_GRALLOC_HOST_MAX_BYTES (UINT64_C(1) << 32)
#define SH_GRALLOC_HOST_MAX_DIM 32768u

static uint32_t
host_int(const native_handle_t *h, int index)
{
   return (uint32_t)h->data[h->numFds + index];
}

/* The mapping protection the buffer's CPU usage allows; 0 for none. */
static int
host_prot(uint64_t usage)
{
   int prot = 0;
   if (usage & SHALE_AHB_USAGE_CPU_READ_MASK)
      prot |= PROT_READ;
   if (usage & SHALE_AHB_USAGE_CPU_WRITE_MASK)
      prot |= PROT_READ | PROT_WRITE;
   return prot;
}

static int
host_import(const struct sh_gralloc_import_info *info, struct sh_gralloc_buffer *out)
{
   memset(out, 0, sizeof(*out));
   const native_handle_t *h = info->handle;
   if (h == NULL || h->version != (int)sizeof(native_handle_t) || h->numFds < 1 ||
       h->numInts < SH_GRALLOC_HOST_NUM_INTS ||
       host_int(h, SH_GRALLOC_HOST_INT_MAGIC) != SH_GRALLOC_HOST_MAGIC)
      return -EINVAL;

   uint32_t width = host_int(h, SH_GRALLOC_HOST_INT_WIDTH);
   uint32_t height = host_int(h, SH_GRALLOC_HOST_INT_HEIGHT);
   uint32_t stride = host_int(h, SH_GRALLOC_HOST_INT_STRIDE);
   int format = (int)host_int(h, SH_GRALLOC_HOST_INT_FORMAT);
   uint64_t usage = host_int(h, SH_GRALLOC_HOST_INT_USAGE_LO) |
                    (uint64_t)host_int(h, SH_GRALLOC_HOST_INT_USAGE_HI) << 32;
   uint32_t bpp = sh_gralloc_format_bpp(format);
   if (bpp == 0)
      return -ENOTSUP;
   /* The platform's description must be this buffer's, and the image must
    * fit in it. */
   if (info->format != format || info->stride < 0 || (uint32_t)info->stride != stride ||
       info->width == 0 || info->height == 0 || info->width > width || info->height > height ||
       stride < width || width > SH_GRALLOC_HOST_MAX_DIM || height > SH_GRALLOC_HOST_MAX_DIM)
      return -EINVAL;

   int fd = h->data[0];
   struct stat st;
   if (fstat(fd, &st) != 0)
      return -errno;
   uint64_t needed = (uint64_t)stride * bpp * height;
   if (st.st_size < 0 || (uint64_t)st.st_size < needed || needed > SH_GRALLOC_HOST_MAX_BYTES)
      return -EINVAL;

   /* Map only what the usage allows, so a write through a read-only
    * allocation faults instead of passing silently. */
   const int prot = host_prot(usage);
   void *base = NULL;
   size_t length = (size_t)needed;
   if (prot != 0) {
      base = mmap(NULL, length, prot, MAP_SHARED, fd, 0);
      if (base == MAP_FAILED)
         return -errno;
   }

   const struct sh_ahb_desc d = {
      .width = width, .height = height, .layers = 1,
      .format = (uint32_t)format, .usage = usage, .stride = stride,
   };
   sh_gralloc_buffer_init(out, &sh_gralloc_host_backend, &d, bpp);
   out->priv.host.base = base;
   out->priv.host.length = length;
   return 0;
}

static int
host_lock(struct sh_gralloc_buffer *buf, uint64_t usage, void **out_map)
{
   *out_map = NULL;
   if (!sh_gralloc_lock_usage_ok(usage, buf->usage) || buf->priv.host.base == NULL)
      return -EINVAL;
   if (buf->lock_count == UINT32_MAX)
      return -EBUSY;
   buf->lock_count++;
   buf->map = buf->priv.host.base;
   *out_map = buf->map;
   return 0;
}

/* Host buffers' planes: one, but for Y8Cb8Cr8_420 (NV12, sh_gralloc.h). */
static int
host_lock_planes(struct sh_gralloc_buffer *buf, uint64_t usage, struct sh_gralloc_planes *out)
{
   memset(out, 0, sizeof(*out));
   void *map = NULL;
   int err = host_lock(buf, usage, &map);
   if (err != 0)
      return err;
   uint8_t *base = map;
   const uint32_t row = buf->stride_pixels * buf->bytes_per_pixel;
   if (buf->format == SHALE_AHB_FORMAT_Y8Cb8Cr8_420 && buf->priv.host.ahb) {
      uint8_t *chroma = base + (size_t)row * buf->height;
      const uint32_t chroma_rows = (buf->height + 1) / 2;
      out->count = 3;
      out->planes[0] = (struct sh_gralloc_plane) { base, 1, row };
      if (buf->usage & SH_GRALLOC_HOST_AHB_USAGE_I420) {
         out->planes[1] = (struct sh_gralloc_plane) { chroma, 1, row / 2 };
         out->planes[2] = (struct sh_gralloc_plane) { chroma + (size_t)row / 2 * chroma_rows, 1,
                                                      row / 2 };
      } else {
         const bool nv21 = buf->usage & SH_GRALLOC_HOST_AHB_USAGE_NV21;
         out->planes[1] = (struct sh_gralloc_plane) { chroma + nv21, 2, row };
         out->planes[2] = (struct sh_gralloc_plane) { chroma + !nv21, 2, row };
      }
   } else {
      out->count = 1;
      out->planes[0] = (struct sh_gralloc_plane) { base, buf->bytes_per_pixel, row };
   }
   return 0;
}

static int
host_unlock(struct sh_gralloc_buffer *buf)
{
   if (buf->lock_count == 0)
      return -EINVAL;
   /* A shared file mapping is coherent with every other mapping of the
    * memfd: there is nothing to flush. */
   if (--buf->lock_count == 0)
      buf->map = NULL;
   return 0;
}

static void
host_release(struct sh_gralloc_buffer *buf)
{
   assert(buf->lock_count == 0);
   if (buf->priv.host.base)
      munmap(buf->priv.host.base, buf->priv.host.length);
   sh_gralloc_host_ahb_release(buf->priv.host.ahb);
   memset(buf, 0, sizeof(*buf));
}

/* ---- AHardwareBuffers ---- */

/* The object every copy of this file shares (see sh_gralloc.h). */
struct AHardwareBuffer {
   uint32_t magic;               /* SH_GRALLOC_HOST_AHB_MAGIC while alive, 0 after */
   atomic_uint refs;
   struct sh_ahb_desc desc;
   uint64_t bytes;               /* the memfd's size */
   int fd;
   pthread_mutex_t mutex;        /* guards the lock state */
   uint32_t lock_count;
   void *lock_map;
};

/* Bytes per row and in all of a buffer of this description; false when the
 * description is not one the host allocator makes. */
static bool
host_ahb_layout(const struct sh_ahb_desc *d, uint64_t *row, uint64_t *bytes)
{
   const uint32_t bpp = sh_gralloc_ahb_format_bpp(d->format);
   if (bpp == 0 || d->layers != 1 || d->width == 0 || d->height == 0)
      return false;
   if (d->format == SHALE_AHB_FORMAT_BLOB) {
      if (d->height != 1 || d->stride != d->width)
         return false;
      *row = d->width;
   } else if (d->format == SHALE_AHB_FORMAT_Y8Cb8Cr8_420) {
      /* NV12: the luma rows, then half as many (rounded up) chroma rows. */
      if (d->width > SH_GRALLOC_HOST_MAX_DIM || d->height > SH_GRALLOC_HOST_MAX_DIM ||
          d->stride < d->width + (d->width & 1))
         return false;
      *row = d->stride;
      *bytes = *row * (d->height + (d->height + 1) / 2);
      return *bytes <= SH_GRALLOC_HOST_MAX_BYTES;
   } else {
      if (d->width > SH_GRALLOC_HOST_MAX_DIM || d->height > SH_GRALLOC_HOST_MAX_DIM ||
          d->stride < d->width)
         return false;
      *row = (uint64_t)d->stride * bpp;
   }
   *bytes = *row * d->height;
   return *bytes <= SH_GRALLOC_HOST_MAX_BYTES;
}

static bool
host_ahb_alive(const struct AHardwareBuffer *ahb)
{
   return ahb != NULL && ahb->magic == SH_GRALLOC_HOST_AHB_MAGIC && atomic_load(&ahb->refs) > 0;
}

int
sh_gralloc_host_ahb_describe(const struct AHardwareBuffer *ahb, struct sh_ahb_desc *out)
{
   memset(out, 0, sizeof(*out));
   if (!host_ahb_alive(ahb))
      return -EINVAL;
   *out = ahb->desc;
   return 0;
}

int
sh_gralloc_host_ahb_allocate(const struct sh_ahb_desc *desc, struct AHardwareBuffer **out)
{
   *out = NULL;
   const uint32_t bpp = sh_gralloc_ahb_format_bpp(desc->format);
   if (bpp == 0 || desc->layers != 1)
      return -ENOTSUP;
   struct sh_ahb_desc d = *desc;
   if (d.format == SHALE_AHB_FORMAT_BLOB) {
      d.stride = d.width;
   } else {
      /* Rows a multiple of 64 bytes and of the pixel size (192 for 3; 64
       * for Y'CbCr, whose chroma pairs then fit a row too). */
      const uint32_t align = bpp == 3 ? 64 : SH_GRALLOC_HOST_ROW_ALIGN / bpp;
      d.stride = d.width > SH_GRALLOC_HOST_MAX_DIM ? 0 : (d.width + align - 1) / align * align;
   }
   uint64_t row, bytes;
   if (!host_ahb_layout(&d, &row, &bytes))
      return -EINVAL;

   struct AHardwareBuffer *ahb = calloc(1, sizeof(*ahb));
   if (ahb == NULL)
      return -ENOMEM;
   int fd = memfd_create(SH_GRALLOC_HOST_AHB_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
   if (fd < 0) {
      int err = -errno;
      free(ahb);
      return err;
   }
   if (ftruncate(fd, (off_t)bytes) != 0 ||
       fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
      int err = -errno;
      close(fd);
      free(ahb);
      return err;
   }
   pthread_mutex_init(&ahb->mutex, NULL);
   ahb->desc = d;
   ahb->bytes = bytes;
   ahb->fd = fd;
   atomic_init(&ahb->refs, 1);
   ahb->magic = SH_GRALLOC_HOST_AHB_MAGIC;
   *out = ahb;
   return 0;
}

void
sh_gralloc_host_ahb_acquire(struct AHardwareBuffer *ahb)
{
   assert(host_ahb_alive(ahb));
   atomic_fetch_add(&ahb->refs, 1);
}

void
sh_gralloc_host_ahb_release(struct AHardwareBuffer *ahb)
{
   if (ahb == NULL)
      return;
   assert(host_ahb_alive(ahb));
   if (atomic_fetch_sub(&ahb->refs, 1) != 1)
      return;
   assert(ahb->lock_count == 0);
   if (ahb->lock_map)
      munmap(ahb->lock_map, (size_t)ahb->bytes);
   close(ahb->fd);
   pthread_mutex_destroy(&ahb->mutex);
   ahb->magic = 0;
   free(ahb);
}

uint32_t
sh_gralloc_host_ahb_refs(const struct AHardwareBuffer *ahb)
{
   return ahb && ahb->magic == SH_GRALLOC_HOST_AHB_MAGIC ? atomic_load(&ahb->refs) : 0;
}

int
sh_gralloc_host_ahb_lock(struct AHardwareBuffer *ahb, uint64_t usage, void **out)
{
   *out = NULL;
   if (!host_ahb_alive(ahb) || !sh_gralloc_lock_usage_ok(usage, ahb->desc.usage))
      return -EINVAL;
   int err = 0;
   pthread_mutex_lock(&ahb->mutex);
   if (ahb->lock_count == 0) {
      void *map =
         mmap(NULL, (size_t)ahb->bytes, host_prot(ahb->desc.usage), MAP_SHARED, ahb->fd, 0);
      if (map == MAP_FAILED)
         err = -errno;
      else
         ahb->lock_map = map;
   } else if (ahb->lock_count == UINT32_MAX) {
      err = -EBUSY;
   }
   if (err == 0) {
      ahb->lock_count++;
      *out = ahb->lock_map;
   }
   pthread_mutex_unlock(&ahb->mutex);
   return err;
}

int
sh_gralloc_host_ahb_unlock(struct AHardwareBuffer *ahb)
{
   if (!host_ahb_alive(ahb))
      return -EINVAL;
   int err = 0;
   pthread_mutex_lock(&ahb->mutex);
   if (ahb->lock_count == 0) {
      err = -EINVAL;
   } else if (--ahb->lock_count == 0) {
      munmap(ahb->lock_map, (size_t)ahb->bytes);
      ahb->lock_map = NULL;
   }
   pthread_mutex_unlock(&ahb->mutex);
   return err;
}

/* The driver's view of an AHardwareBuffer: its own mapping of the memfd for
 * the import's life (locks then just count, as for native handles). */
static int
host_import_ahb(struct AHardwareBuffer *ahb, struct sh_gralloc_buffer *out)
{
   memset(out, 0, sizeof(*out));
   struct sh_ahb_desc d;
   int err = sh_gralloc_host_ahb_describe(ahb, &d);
   if (err != 0)
      return err;
   const uint32_t bpp = sh_gralloc_ahb_format_bpp(d.format);
   uint64_t row, bytes;
   if (bpp == 0)
      return -ENOTSUP;
   if (!host_ahb_layout(&d, &row, &bytes) || bytes != ahb->bytes)
      return -EINVAL;
   void *base = NULL;
   const int prot = host_prot(d.usage);
   if (prot != 0) {
      base = mmap(NULL, (size_t)bytes, prot, MAP_SHARED, ahb->fd, 0);
      if (base == MAP_FAILED)
         return -errno;
   }
   sh_gralloc_host_ahb_acquire(ahb);
   sh_gralloc_buffer_init(out, &sh_gralloc_host_backend, &d, bpp);
   out->priv.host.base = base;
   out->priv.host.length = (size_t)bytes;
   out->priv.host.ahb = ahb;
   return 0;
}

const struct sh_gralloc_backend sh_gralloc_host_backend = {
   .name = "host-memfd",
   .import = host_import,
   .lock = host_lock,
   .lock_planes = host_lock_planes,
   .unlock = host_unlock,
   .release = host_release,
   .ahb_allocate = sh_gralloc_host_ahb_allocate,
   .ahb_describe = sh_gralloc_host_ahb_describe,
   .ahb_acquire = sh_gralloc_host_ahb_acquire,
   .ahb_release = sh_gralloc_host_ahb_release,
   .import_ahb = host_import_ahb,
};

int
sh_gralloc_host_allocate(uint32_t width, uint32_t height, int format, uint64_t usage,
                         native_handle_t **out)
{
   *out = NULL;
   uint32_t bpp = sh_gralloc_format_bpp(format);
   if (bpp == 0)
      return -ENOTSUP;
   if (width == 0 || height == 0 || width > SH_GRALLOC_HOST_MAX_DIM ||
       height > SH_GRALLOC_HOST_MAX_DIM)
      return -EINVAL;
   uint64_t row = ((uint64_t)width * bpp + SH_GRALLOC_HOST_ROW_ALIGN - 1) /
                  SH_GRALLOC_HOST_ROW_ALIGN * SH_GRALLOC_HOST_ROW_ALIGN;
   uint64_t size = row * height;
   if (size > SH_GRALLOC_HOST_MAX_BYTES)
      return -EINVAL;

   int fd = memfd_create("shale-gralloc", MFD_CLOEXEC | MFD_ALLOW_SEALING);
   if (fd < 0)
      return -errno;
   if (ftruncate(fd, (off_t)size) != 0 ||
       fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
      int err = -errno;
      close(fd);
      return err;
   }

   native_handle_t *h = malloc(sizeof(*h) + (1 + SH_GRALLOC_HOST_NUM_INTS) * sizeof(int));
   if (h == NULL) {
      close(fd);
      return -ENOMEM;
   }
   h->version = (int)sizeof(native_handle_t);
   h->numFds = 1;
   h->numInts = SH_GRALLOC_HOST_NUM_INTS;
   h->data[0] = fd;
   int *ints = &h->data[1];
   ints[SH_GRALLOC_HOST_INT_MAGIC] = SH_GRALLOC_HOST_MAGIC;
   ints[SH_GRALLOC_HOST_INT_WIDTH] = (int)width;
   ints[SH_GRALLOC_HOST_INT_HEIGHT] = (int)height;
   ints[SH_GRALLOC_HOST_INT_STRIDE] = (int)(row / bpp);
   ints[SH_GRALLOC_HOST_INT_FORMAT] = format;
   ints[SH_GRALLOC_HOST_INT_USAGE_LO] = (int)(uint32_t)usage;
   ints[SH_GRALLOC_HOST_INT_USAGE_HI] = (int)(uint32_t)(usage >> 32);
   *out = h;
   return 0;
}

void
sh_gralloc_host_free(native_handle_t *handle)
{
   if (handle == NULL)
      return;
   for (int i = 0; i < handle->numFds; i++)
      close(handle->data[i]);
   free(handle);
}
