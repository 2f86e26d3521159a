/* Host gralloc backend: memfd-backed native handles, the platform allocator the tests play. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
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
   int prot = 0;
   if (usage & SH_AHB_USAGE_CPU_READ_MASK)
      prot |= PROT_READ;
   if (usage & SH_AHB_USAGE_CPU_WRITE_MASK)
      prot |= PROT_READ | PROT_WRITE;
   void *base = NULL;
   size_t length = (size_t)needed;
   if (prot != 0) {
      base = mmap(NULL, length, prot, MAP_SHARED, fd, 0);
      if (base == MAP_FAILED)
         return -errno;
   }

   out->backend = &sh_gralloc_host_backend;
   out->width = width;
   out->height = height;
   out->stride_pixels = stride;
   out->bytes_per_pixel = bpp;
   out->format = format;
   out->usage = usage;
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
   memset(buf, 0, sizeof(*buf));
}

const struct sh_gralloc_backend sh_gralloc_host_backend = {
   .name = "host-memfd",
   .import = host_import,
   .lock = host_lock,
   .unlock = host_unlock,
   .release = host_release,
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
