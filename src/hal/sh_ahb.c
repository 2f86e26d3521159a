/* AHardwareBuffer memory for the driver (sd_ahb_ops) through the one gralloc interface. */
/*
 * The driver core knows no gralloc (dependencies point from hal to driver):
 * this file gives it AHardwareBuffers when the library loads, on whichever
 * backend sh_gralloc.h picks (Android: the NDK's AHardwareBuffer_*; host:
 * the memfd stand-in the tests use). A memory's buffer is imported (one
 * reference, ours) and locked once with the CPU access its own usage allows,
 * for the memory's whole life; release unlocks and drops the reference.
 * The driver decides which buffers it takes (sd_ahb.c); this file only
 * moves them.
 */
#include <errno.h>
#include <string.h>

#include "driver/sd_ahb.h"
#include "driver/sd_util.h"
#include "sh_gralloc.h"
#include "util/su_log.h"

static VkResult
sh_ahb_import_error(int err, const char *what)
{
   return sd_errorf(err == -ENOMEM ? VK_ERROR_OUT_OF_HOST_MEMORY
                                   : VK_ERROR_INVALID_EXTERNAL_HANDLE,
                    what);
}

/* Locks an imported buffer with exactly the CPU bits it was allocated with
 * (the driver takes only buffers with both read and write) and says where
 * its planes are, relative to the lowest of them. */
static int
sh_ahb_lock(struct sh_gralloc_buffer *buf, struct sd_ahb_mapping *out)
{
   memset(out, 0, sizeof(*out));
   const uint64_t lock_usage =
      buf->usage & (SHALE_AHB_USAGE_CPU_READ_MASK | SHALE_AHB_USAGE_CPU_WRITE_MASK);
   struct sh_gralloc_planes planes;
   int err = sh_gralloc_lock_planes(buf, lock_usage, &planes);
   if (err != 0)
      return err;
   uint8_t *base = planes.planes[0].data;
   for (uint32_t i = 1; i < planes.count; i++)
      base = planes.planes[i].data < base ? planes.planes[i].data : base;
   out->data = base;
   out->layout.plane_count = planes.count;
   for (uint32_t i = 0; i < planes.count; i++) {
      out->layout.planes[i] = (struct sd_ahb_plane) {
         .offset = (VkDeviceSize)(planes.planes[i].data - base),
         .row_pitch = planes.planes[i].row_stride,
         .pixel_stride = planes.planes[i].pixel_stride,
      };
   }
   return 0;
}

static VkResult
sh_ahb_describe(const struct AHardwareBuffer *ahb, struct sd_ahb_desc *out,
                struct sd_ahb_layout *layout)
{
   struct sh_ahb_desc d;
   memset(out, 0, sizeof(*out));
   if (layout)
      memset(layout, 0, sizeof(*layout));
   if (sh_gralloc_ahb_describe(ahb, &d) != 0)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "not an AHardwareBuffer");
   *out = (struct sd_ahb_desc) {
      .width = d.width,
      .height = d.height,
      .layers = d.layers,
      .format = d.format,
      .usage = d.usage,
      .stride = d.stride,
   };
   if (!layout)
      return VK_SUCCESS;
   /* Where the planes are is the lock's to say (Y'CbCr layouts are the
    * allocator's choice): lock once, and let go. Plain buffers need no
    * lock: one plane, the description's rows. */
   if (d.format != SHALE_AHB_FORMAT_Y8Cb8Cr8_420) {
      const uint32_t bpp = sh_gralloc_ahb_format_bpp(d.format);
      layout->plane_count = 1;
      layout->planes[0].row_pitch =
         d.format == SHALE_AHB_FORMAT_BLOB ? d.width : (VkDeviceSize)d.stride * bpp;
      layout->planes[0].pixel_stride = bpp;
      return VK_SUCCESS;
   }
   struct sh_gralloc_buffer buf;
   struct sd_ahb_mapping m;
   if (sh_gralloc_import_ahb((struct AHardwareBuffer *)ahb, &buf) != 0)
      return VK_SUCCESS;   /* no layout: the driver refuses the buffer */
   if (sh_ahb_lock(&buf, &m) == 0) {
      *layout = m.layout;
      sh_gralloc_unlock(&buf);
   }
   sh_gralloc_release(&buf);
   return VK_SUCCESS;
}

static VkResult
sh_ahb_import(struct AHardwareBuffer *ahb, void *storage, struct sd_ahb_mapping *out)
{
   struct sh_gralloc_buffer *buf = storage;
   int err = sh_gralloc_import_ahb(ahb, buf);
   if (err != 0)
      return sh_ahb_import_error(err, "cannot import the AHardwareBuffer");
   err = sh_ahb_lock(buf, out);
   if (err != 0) {
      sh_gralloc_release(buf);
      return sh_ahb_import_error(err, "cannot lock the AHardwareBuffer for the CPU");
   }
   return VK_SUCCESS;
}

static VkResult
sh_ahb_allocate(const struct sd_ahb_desc *desc, void *storage, struct sd_ahb_mapping *out)
{
   const struct sh_ahb_desc d = {
      .width = desc->width,
      .height = desc->height,
      .layers = desc->layers,
      .format = desc->format,
      .usage = desc->usage,
   };
   struct AHardwareBuffer *ahb = NULL;
   int err = sh_gralloc_ahb_allocate(&d, &ahb);
   if (err != 0)
      return sd_errorf(err == -ENOMEM ? VK_ERROR_OUT_OF_HOST_MEMORY
                                      : VK_ERROR_OUT_OF_DEVICE_MEMORY,
                       "AHardwareBuffer allocation failed");
   /* The import takes its own reference; the allocation's is dropped, so
    * the storage's is the only one (whatever the import's outcome). */
   VkResult r = sh_ahb_import(ahb, storage, out);
   sh_gralloc_ahb_release(ahb);
   return r;
}

static struct AHardwareBuffer *
sh_ahb_buffer(const void *storage)
{
   return sh_gralloc_buffer_ahb(storage);
}

static void
sh_ahb_acquire(struct AHardwareBuffer *ahb)
{
   sh_gralloc_ahb_acquire(ahb);
}

static void
sh_ahb_release(void *storage)
{
   struct sh_gralloc_buffer *buf = storage;
   if (sh_gralloc_unlock(buf) != 0)
      su_log("unlocking an AHardwareBuffer failed");
   sh_gralloc_release(buf);
}

static const struct sd_ahb_ops sh_ahb_ops = {
   .storage_size = sizeof(struct sh_gralloc_buffer),
   .describe = sh_ahb_describe,
   .import = sh_ahb_import,
   .allocate = sh_ahb_allocate,
   .buffer = sh_ahb_buffer,
   .acquire = sh_ahb_acquire,
   .release = sh_ahb_release,
};

/* In place before the loader can call anything. Registering offers
 * nothing: only the Android HAL module offers the extension
 * (sh_android_hal.c). */
__attribute__((constructor)) static void
sh_ahb_register(void)
{
   sd_ahb_register_ops(&sh_ahb_ops);
}
