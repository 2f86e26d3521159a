/* libFuzzer target: the gralloc and AHardwareBuffer descriptions the HAL
 * imports, through the host gralloc backend (sh_gralloc_host.c), the one
 * every host test and the Android emulation use.
 *
 * The input's first byte picks the path:
 *  - a native_handle_t (version, fd count, ints: magic, width, height,
 *    stride, format, usage) over a real memfd of a fuzzed size, imported
 *    with a fuzzed VkNativeBufferANDROID-like description (extent, format,
 *    stride, usage) as sh_native_buffer.c imports it; then locked with fuzzed
 *    CPU usage, and every page of what the buffer says it holds
 *    (sh_gralloc_buffer_extent_bytes, each plane's last sample) touched, so
 *    an import that maps less than it describes faults here;
 *  - an AHardwareBuffer description (width, height, layers, format, usage)
 *    allocated, described, imported, locked plane by plane and touched the
 *    same way (buffers over 64 MiB are not allocated: it is the checks that
 *    are fuzzed, not the page cache).
 * Reads and writes follow the lock's usage (a write through a read-only
 * mapping would be a fault of this program, not of the driver). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hal/sh_gralloc.h"

#define MAX_FILE (16u << 20)
#define MAX_AHB_BYTES (UINT64_C(64) << 20)

struct reader {
   const uint8_t *p;
   size_t left;
};

static uint32_t
take32(struct reader *r)
{
   uint32_t v = 0;
   size_t n = r->left < 4 ? r->left : 4;
   memcpy(&v, r->p, n);
   r->p += n;
   r->left -= n;
   return v;
}

static uint8_t
take8(struct reader *r)
{
   if (!r->left)
      return 0;
   r->left--;
   return *r->p++;
}

static volatile uint8_t sink;

/* Touches [p, p + bytes): every page and the last byte. */
static void
touch(uint8_t *p, uint64_t bytes, bool write)
{
   if (bytes == 0)
      return;
   for (uint64_t at = 0;; at += 4096) {
      if (at >= bytes)
         at = bytes - 1;
      if (write)
         p[at] = (uint8_t)at;
      else
         sink = p[at];
      if (at == bytes - 1)
         break;
   }
}

static void
touch_planes(struct sh_gralloc_buffer *buf, uint64_t usage)
{
   struct sh_gralloc_planes planes;
   if (sh_gralloc_lock_planes(buf, usage, &planes) != 0)
      return;
   const bool write = usage & SHALE_AHB_USAGE_CPU_WRITE_MASK;
   if (planes.count < 1 || planes.count > 3)
      abort();
   for (uint32_t i = 0; i < planes.count; i++) {
      const struct sh_gralloc_plane *pl = &planes.planes[i];
      uint32_t w = buf->width, h = buf->height;
      if (i > 0) {
         w = (w + 1) / 2;
         h = (h + 1) / 2;
      }
      if (w == 0 || h == 0)
         continue;
      uint8_t *first = pl->data, *last = first + (uint64_t)(h - 1) * pl->row_stride +
                                             (uint64_t)(w - 1) * pl->pixel_stride;
      if (write)
         *first = *last = 1;
      else
         sink = *first + *last;
   }
   if (sh_gralloc_unlock(buf) != 0)
      abort();
}

static void
native_handle_case(struct reader *r)
{
   uint8_t shape = take8(r);
   int fd = memfd_create("fuzz-gralloc", MFD_CLOEXEC);
   if (fd < 0)
      abort();
   uint32_t file_size = take32(r) % MAX_FILE;
   if (ftruncate(fd, file_size))
      abort();
   uint32_t num_ints = take8(r) % 12;
   const int num_fds = (shape & 2) ? 2 : 1;
   native_handle_t *h = calloc(1, sizeof(*h) + sizeof(int) * (num_fds + num_ints));
   if (!h)
      abort();
   h->version = (shape & 1) ? (int)take32(r) : (int)sizeof(native_handle_t);
   h->numFds = num_fds;
   h->numInts = (int)num_ints;
   for (int i = 0; i < num_fds; i++)
      h->data[i] = fd;
   for (uint32_t i = 0; i < num_ints; i++)
      h->data[num_fds + i] = (int)take32(r);
   if ((shape & 4) && num_ints > SH_GRALLOC_HOST_INT_MAGIC)
      h->data[num_fds + SH_GRALLOC_HOST_INT_MAGIC] = (int)SH_GRALLOC_HOST_MAGIC;

   struct sh_gralloc_import_info info = {
      .handle = h,
      .width = take32(r),
      .height = take32(r),
      .format = (int)take32(r),
      .stride = (int)take32(r),
   };
   info.usage = take32(r);
   info.usage |= (uint64_t)take32(r) << 32;
   if (shape & 8) {   /* the description the handle has, as a loader passes it */
      if (num_ints >= SH_GRALLOC_HOST_NUM_INTS) {
         info.format = h->data[num_fds + SH_GRALLOC_HOST_INT_FORMAT];
         info.stride = h->data[num_fds + SH_GRALLOC_HOST_INT_STRIDE];
      }
   }
   uint64_t lock_usage = take32(r);

   struct sh_gralloc_buffer buf;
   int err = sh_gralloc_import(&info, &buf);
   if (err == 0) {
      if (buf.width < info.width || buf.height < info.height || buf.stride_pixels < buf.width)
         abort();
      void *map;
      if (sh_gralloc_lock(&buf, lock_usage, &map) == 0) {
         uint64_t extent = sh_gralloc_buffer_extent_bytes(&buf);
         if (extent > buf.priv.host.length || extent > file_size) {
            fprintf(stderr, "fuzz_gralloc: a %llu-byte buffer in a %llu-byte mapping\n",
                    (unsigned long long)extent, (unsigned long long)buf.priv.host.length);
            abort();
         }
         touch(map, extent, lock_usage & SHALE_AHB_USAGE_CPU_WRITE_MASK);
         if (sh_gralloc_unlock(&buf) != 0)
            abort();
      }
      touch_planes(&buf, lock_usage);
      sh_gralloc_release(&buf);
   }
   free(h);
   close(fd);
}

static void
ahb_case(struct reader *r)
{
   struct sh_ahb_desc d = {
      .width = take32(r) % 70000,
      .height = take32(r) % 70000,
      .layers = take8(r) % 4,
      .format = take32(r),
   };
   d.usage = take32(r);
   d.usage |= (uint64_t)take32(r) << 32;
   uint32_t bpp = sh_gralloc_ahb_format_bpp(d.format);
   if ((uint64_t)d.width * d.height * (bpp ? bpp : 8) * (d.layers ? d.layers : 1) * 2 >
       MAX_AHB_BYTES)
      return;
   struct AHardwareBuffer *ahb = NULL;
   if (sh_gralloc_ahb_allocate(&d, &ahb) != 0)
      return;
   struct sh_ahb_desc got;
   if (sh_gralloc_ahb_describe(ahb, &got) != 0 || got.width != d.width ||
       got.height != d.height || got.format != d.format)
      abort();
   struct sh_gralloc_buffer buf;
   if (sh_gralloc_import_ahb(ahb, &buf) == 0) {
      uint64_t cpu = buf.usage & (SHALE_AHB_USAGE_CPU_READ_MASK | SHALE_AHB_USAGE_CPU_WRITE_MASK);
      void *map;
      if (sh_gralloc_lock(&buf, cpu, &map) == 0) {
         touch(map, sh_gralloc_buffer_extent_bytes(&buf), cpu & SHALE_AHB_USAGE_CPU_WRITE_MASK);
         if (sh_gralloc_unlock(&buf) != 0)
            abort();
      }
      touch_planes(&buf, cpu);
      sh_gralloc_release(&buf);
   }
   sh_gralloc_ahb_release(ahb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   struct reader r = { data, size };
   if (take8(&r) & 1)
      ahb_case(&r);
   else
      native_handle_case(&r);
   return 0;
}
