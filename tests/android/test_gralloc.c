/* Host gralloc backend: allocation, handle layout, import, zero-copy lock/unlock, no fd leaks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hal/sh_gralloc.h"

#include "check.h"

/* The ABI values, spelled out from AOSP's graphics-base headers and the NDK's
 * hardware_buffer.h rather than taken from sh_gralloc.h. */
struct format_ref {
   int hal;
   uint32_t bpp;
   VkFormat vk;
};
static const struct format_ref formats[] = {
   { 1, 4, VK_FORMAT_R8G8B8A8_UNORM },           /* RGBA_8888 */
   { 2, 4, VK_FORMAT_R8G8B8A8_UNORM },           /* RGBX_8888 */
   { 5, 4, VK_FORMAT_B8G8R8A8_UNORM },           /* BGRA_8888 */
   { 4, 2, VK_FORMAT_R5G6B5_UNORM_PACK16 },      /* RGB_565 */
   { 0x16, 8, VK_FORMAT_R16G16B16A16_SFLOAT },   /* RGBA_FP16 */
   { 0x2B, 4, VK_FORMAT_A2B10G10R10_UNORM_PACK32 }, /* RGBA_1010102 */
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))
#define ABI_CPU_READ_OFTEN UINT64_C(0x3)
#define ABI_CPU_WRITE_OFTEN UINT64_C(0x30)
#define ABI_GPU_SAMPLED_IMAGE UINT64_C(0x100)

/* A byte pattern that differs for every (buffer, byte) pair. */
static uint8_t
pattern(uint32_t seed, uint64_t offset)
{
   uint64_t x = (offset + 1) * 0x9E3779B97F4A7C15ull ^ seed;
   return (uint8_t)(x >> 29);
}

static void
check_formats_table(void)
{
   for (size_t i = 0; i < NFORMATS; i++) {
      CHECK_EQ_INT(sh_gralloc_format_bpp(formats[i].hal), formats[i].bpp);
      CHECK_EQ_INT(sh_gralloc_format_to_vk(formats[i].hal), formats[i].vk);
      CHECK(sh_gralloc_format_compatible(formats[i].hal, formats[i].vk),
            "format 0x%x and VkFormat %d should be compatible", formats[i].hal, formats[i].vk);
   }
   /* VkFormat -> the format a swapchain allocates. */
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_R8G8B8A8_UNORM), 1);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_R8G8B8A8_SRGB), 1);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_B8G8R8A8_UNORM), 5);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_B8G8R8A8_SRGB), 5);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_R5G6B5_UNORM_PACK16), 4);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_R16G16B16A16_SFLOAT), 0x16);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_A2B10G10R10_UNORM_PACK32), 0x2B);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_R8_UNORM), 0);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_B5G6R5_UNORM_PACK16), 0);
   CHECK_EQ_INT(sh_gralloc_format_from_vk(VK_FORMAT_R32G32B32A32_SFLOAT), 0);
   /* Formats Shale does not take. */
   CHECK_EQ_INT(sh_gralloc_format_bpp(3), 0);      /* RGB_888 */
   CHECK_EQ_INT(sh_gralloc_format_bpp(0x21), 0);   /* BLOB */
   CHECK_EQ_INT(sh_gralloc_format_to_vk(0x32315659), VK_FORMAT_UNDEFINED); /* YV12 */
   /* sRGB images live in their UNORM twin's buffers; RGBX takes RGBA images. */
   CHECK(sh_gralloc_format_compatible(1, VK_FORMAT_R8G8B8A8_SRGB), "RGBA_8888 / sRGB");
   CHECK(sh_gralloc_format_compatible(2, VK_FORMAT_R8G8B8A8_SRGB), "RGBX_8888 / sRGB");
   CHECK(!sh_gralloc_format_compatible(1, VK_FORMAT_B8G8R8A8_UNORM), "RGBA_8888 / BGRA");
   CHECK(!sh_gralloc_format_compatible(5, VK_FORMAT_R8G8B8A8_UNORM), "BGRA_8888 / RGBA");
   CHECK(!sh_gralloc_format_compatible(4, VK_FORMAT_R8G8B8A8_UNORM), "RGB_565 / RGBA");
}

static void
check_one(const struct format_ref *f, uint32_t width, uint32_t height, uint32_t seed)
{
   const uint64_t usage = ABI_CPU_READ_OFTEN | ABI_CPU_WRITE_OFTEN | ABI_GPU_SAMPLED_IMAGE;
   native_handle_t *h = NULL;
   int r = sh_gralloc_host_allocate(width, height, f->hal, usage, &h);
   CHECK(r == 0 && h != NULL, "allocate %ux%u format 0x%x: %d", width, height, f->hal, r);
   if (r != 0 || h == NULL)
      return;

   /* The documented handle layout. */
   CHECK_EQ_INT(h->version, 3 * (int)sizeof(int));
   CHECK_EQ_INT(h->numFds, 1);
   CHECK_EQ_INT(h->numInts, 7);
   const int fd = h->data[0];
   const int *ints = &h->data[1];
   int fdflags = fcntl(fd, F_GETFD);
   CHECK(fdflags >= 0 && (fdflags & FD_CLOEXEC), "handle fd %d is not an O_CLOEXEC fd", fd);
   CHECK_EQ_INT((uint32_t)ints[0], 0x53484752u);
   CHECK_EQ_INT(ints[1], width);
   CHECK_EQ_INT(ints[2], height);
   const uint32_t stride = (uint32_t)ints[3];
   CHECK_EQ_INT(ints[4], f->hal);
   CHECK_EQ_INT((uint32_t)ints[5], (uint32_t)usage);
   CHECK_EQ_INT((uint32_t)ints[6], (uint32_t)(usage >> 32));
   /* Rows are 64-byte aligned and no longer than that needs. */
   const uint64_t pitch = (uint64_t)stride * f->bpp;
   CHECK(stride >= width, "stride %u < width %u", stride, width);
   CHECK_EQ_INT(pitch % 64, 0);
   CHECK(pitch < (uint64_t)width * f->bpp + 64, "stride %u pads more than 64 bytes", stride);
   struct stat st;
   CHECK(fstat(fd, &st) == 0 && (uint64_t)st.st_size >= pitch * height,
         "memfd holds %lld bytes, needs %llu", (long long)st.st_size,
         (unsigned long long)(pitch * height));

   /* Import as the platform would describe it. */
   struct sh_gralloc_import_info info = {
      .handle = h, .width = width, .height = height, .format = f->hal,
      .stride = (int)stride, .usage = usage,
   };
   struct sh_gralloc_buffer buf;
   r = sh_gralloc_import(&info, &buf);
   CHECK_EQ_INT(r, 0);
   if (r != 0) {
      sh_gralloc_host_free(h);
      return;
   }
   CHECK_EQ_INT(buf.width, width);
   CHECK_EQ_INT(buf.height, height);
   CHECK_EQ_INT(buf.stride_pixels, stride);
   CHECK_EQ_INT(buf.bytes_per_pixel, f->bpp);
   CHECK_EQ_INT(buf.format, f->hal);
   CHECK(buf.usage == usage, "usage 0x%llx", (unsigned long long)buf.usage);
   CHECK(buf.map == NULL, "mapped before the first lock");
   CHECK_EQ_INT(buf.lock_count, 0);
   CHECK_EQ_INT(sh_gralloc_buffer_extent_bytes(&buf),
                (uint64_t)stride * f->bpp * (height - 1) + (uint64_t)width * f->bpp);

   /* Write every pixel through a write lock, with the buffer's stride. */
   void *map = NULL;
   CHECK_EQ_INT(sh_gralloc_lock(&buf, ABI_CPU_WRITE_OFTEN, &map), 0);
   CHECK(map != NULL && map == buf.map, "lock returned %p, buffer says %p", map, buf.map);
   if (map) {
      for (uint32_t y = 0; y < height; y++) {
         uint8_t *row = (uint8_t *)map + (uint64_t)y * pitch;
         for (uint64_t x = 0; x < (uint64_t)width * f->bpp; x++)
            row[x] = pattern(seed, (uint64_t)y * pitch + x);
      }
   }
   CHECK_EQ_INT(sh_gralloc_unlock(&buf), 0);
   CHECK(buf.map == NULL, "still mapped after the last unlock");

   /* Zero copy: the bytes are in the buffer's own memory, where the handle's
    * layout puts them, as anyone else holding the handle reads them. */
   uint8_t *row = malloc(pitch);
   int mismatches = 0;
   for (uint32_t y = 0; row && y < height; y++) {
      ssize_t n = pread(fd, row, pitch, (off_t)(y * pitch));
      if (n != (ssize_t)pitch) {
         mismatches++;
         continue;
      }
      for (uint64_t x = 0; x < (uint64_t)width * f->bpp; x++)
         mismatches += row[x] != pattern(seed, (uint64_t)y * pitch + x);
   }
   CHECK(row != NULL && mismatches == 0, "%d bytes differ in the buffer's memory", mismatches);

   /* And the other way: a write by another holder shows through a read lock. */
   uint8_t marker[3] = { 0xA5, 0x5A, 0xC3 };
   uint64_t last = (uint64_t)(height - 1) * pitch + (uint64_t)(width - 1) * f->bpp;
   CHECK(pwrite(fd, marker, 1, (off_t)last) == 1, "pwrite");
   CHECK_EQ_INT(sh_gralloc_lock(&buf, ABI_CPU_READ_OFTEN, &map), 0);
   /* Locks nest. */
   void *map2 = NULL;
   CHECK_EQ_INT(sh_gralloc_lock(&buf, ABI_CPU_READ_OFTEN | ABI_CPU_WRITE_OFTEN, &map2), 0);
   CHECK_EQ_INT(buf.lock_count, 2);
   if (map) {
      CHECK_EQ_INT(((uint8_t *)map)[last], marker[0]);
      if (last != 0)
         CHECK_EQ_INT(((uint8_t *)map)[0], pattern(seed, 0));
   }
   CHECK_EQ_INT(sh_gralloc_unlock(&buf), 0);
   CHECK(buf.map != NULL, "the outer lock lost its mapping");
   CHECK_EQ_INT(sh_gralloc_unlock(&buf), 0);
   CHECK_EQ_INT(sh_gralloc_unlock(&buf), -EINVAL);
   free(row);

   sh_gralloc_release(&buf);
   sh_gralloc_host_free(h);
}

static void
check_import_errors(void)
{
   native_handle_t *h = NULL;
   const uint64_t usage = ABI_CPU_READ_OFTEN;   /* read-only */
   CHECK_EQ_INT(sh_gralloc_host_allocate(31, 9, 1, usage, &h), 0);
   if (h == NULL)
      return;
   const int stride = h->data[1 + 3];
   struct sh_gralloc_import_info good = {
      .handle = h, .width = 31, .height = 9, .format = 1, .stride = stride, .usage = usage,
   };
   struct sh_gralloc_buffer buf;
   struct sh_gralloc_import_info bad;

   bad = good;
   bad.stride = stride + 1;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), -EINVAL);
   bad = good;
   bad.format = 5;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), -EINVAL);
   bad = good;
   bad.width = 32;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), -EINVAL);
   bad = good;
   bad.height = 10;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), -EINVAL);
   bad = good;
   bad.width = 0;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), -EINVAL);
   bad = good;
   bad.handle = NULL;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), -EINVAL);
   int saved = h->data[1];
   h->data[1] = 0x12345678;     /* wrong magic */
   CHECK_EQ_INT(sh_gralloc_import(&good, &buf), -EINVAL);
   h->data[1] = saved;
   h->version = 16;
   CHECK_EQ_INT(sh_gralloc_import(&good, &buf), -EINVAL);
   h->version = 3 * (int)sizeof(int);

   /* A smaller image in a larger buffer is fine. */
   bad = good;
   bad.width = 7;
   bad.height = 2;
   CHECK_EQ_INT(sh_gralloc_import(&bad, &buf), 0);
   sh_gralloc_release(&buf);

   /* Lock usage must be CPU usage the buffer was allocated with. */
   CHECK_EQ_INT(sh_gralloc_import(&good, &buf), 0);
   void *map = (void *)&buf;
   CHECK_EQ_INT(sh_gralloc_lock(&buf, ABI_CPU_WRITE_OFTEN, &map), -EINVAL);
   CHECK(map == NULL, "a failed lock left *out_map set");
   CHECK_EQ_INT(sh_gralloc_lock(&buf, 0, &map), -EINVAL);
   CHECK_EQ_INT(sh_gralloc_lock(&buf, ABI_CPU_READ_OFTEN | ABI_GPU_SAMPLED_IMAGE, &map), -EINVAL);
   CHECK_EQ_INT(buf.lock_count, 0);
   CHECK_EQ_INT(sh_gralloc_unlock(&buf), -EINVAL);
   CHECK_EQ_INT(sh_gralloc_lock(&buf, ABI_CPU_READ_OFTEN, &map), 0);
   CHECK(map != NULL, "read lock gave no mapping");
   CHECK_EQ_INT(sh_gralloc_unlock(&buf), 0);
   sh_gralloc_release(&buf);
   CHECK(buf.backend == NULL, "release left the buffer looking imported");
   sh_gralloc_host_free(h);

   /* The allocator refuses what it cannot make. */
   h = (native_handle_t *)&buf;
   CHECK_EQ_INT(sh_gralloc_host_allocate(16, 16, 3, usage, &h), -ENOTSUP);   /* RGB_888 */
   CHECK(h == NULL, "a failed allocation left *out set");
   CHECK_EQ_INT(sh_gralloc_host_allocate(0, 16, 1, usage, &h), -EINVAL);
   CHECK_EQ_INT(sh_gralloc_host_allocate(16, 0, 1, usage, &h), -EINVAL);
   CHECK_EQ_INT(sh_gralloc_host_allocate(1u << 20, 1u << 20, 1, usage, &h), -EINVAL);
}

int
main(void)
{
   const int fds_before = check_open_fds();
   CHECK(fds_before > 0, "cannot read /proc/self/fd");

   check_formats_table();
   static const uint32_t sizes[][2] = { { 1, 1 }, { 17, 5 }, { 64, 3 }, { 333, 7 }, { 640, 480 } };
   uint32_t seed = 1;
   for (size_t i = 0; i < NFORMATS; i++)
      for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
         check_one(&formats[i], sizes[s][0], sizes[s][1], seed++);
   check_import_errors();

   /* Many live buffers at once, then all freed. */
   native_handle_t *many[32];
   struct sh_gralloc_buffer bufs[32];
   int live = 0;
   for (int i = 0; i < 32; i++) {
      many[i] = NULL;
      if (sh_gralloc_host_allocate(8 + i, 8, 1, ABI_CPU_READ_OFTEN, &many[i]) != 0)
         continue;
      struct sh_gralloc_import_info info = {
         .handle = many[i], .width = 8 + i, .height = 8, .format = 1,
         .stride = many[i]->data[4], .usage = ABI_CPU_READ_OFTEN,
      };
      if (sh_gralloc_import(&info, &bufs[i]) == 0)
         live++;
      else
         bufs[i].backend = NULL;
   }
   CHECK_EQ_INT(live, 32);
   CHECK_EQ_INT(check_open_fds(), fds_before + 32);
   for (int i = 0; i < 32; i++) {
      sh_gralloc_release(&bufs[i]);
      sh_gralloc_host_free(many[i]);
   }

   CHECK_EQ_INT(check_open_fds(), fds_before);
   return check_finish();
}
