/* External memory: opaque-fd export and import (one device, two instances, two processes), the capability queries, ownership transfers to EXTERNAL/FOREIGN, and device memory reports. */
/*
 * Parts run only for what Shale's physical device lists: the opaque-fd parts
 * need VK_KHR_external_memory_fd (with VK_KHR_external_memory_capabilities on
 * the instance, which that extension requires), the FOREIGN transfer
 * VK_EXT_queue_family_foreign, the report parts VK_EXT_device_memory_report.
 * A part that is not listed prints a note; nothing listed at all is a SKIP.
 * Anything listed but broken fails.
 *
 * References: data written by the test (host or queue) and read back through
 * another import, instance or process; the kernel's fstat() for "same file"
 * and for the memoryObjectId of shared memory; the plain (non-external)
 * image-format query for the limits of the external one; the spec's rules
 * for unsupported handle types. Deliberately invalid calls (bad fds,
 * mismatched imports, allocations over the heap) run without the validation
 * layer; everything else runs with it and must draw no message.
 *
 * The cross-process part re-executes this program (/proc/self/exe --child)
 * with an fd it inherits.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "vkt.h"

static const VkExternalMemoryHandleTypeFlagBits OPAQUE_FD = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

struct caps {
   bool fd, foreign, report;
};

struct fns {
   PFN_vkGetMemoryFdKHR GetMemoryFd;
   PFN_vkGetMemoryFdPropertiesKHR GetMemoryFdProperties;
   PFN_vkGetPhysicalDeviceExternalBufferPropertiesKHR GetExternalBufferProperties;
   PFN_vkGetPhysicalDeviceImageFormatProperties2KHR GetImageFormatProperties2;
   PFN_vkGetPhysicalDeviceProperties2KHR GetProperties2;
   PFN_vkGetPhysicalDeviceFeatures2KHR GetFeatures2;
};

static uint32_t
pattern(uint32_t i, uint32_t seed)
{
   return (i * 2654435761u) ^ seed;
}

static bool
load_fns(struct vkt *t, struct fns *f)
{
   memset(f, 0, sizeof(*f));
   f->GetMemoryFd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(t->device, "vkGetMemoryFdKHR");
   f->GetMemoryFdProperties =
      (PFN_vkGetMemoryFdPropertiesKHR)vkGetDeviceProcAddr(t->device, "vkGetMemoryFdPropertiesKHR");
   f->GetExternalBufferProperties = (PFN_vkGetPhysicalDeviceExternalBufferPropertiesKHR)
      vkGetInstanceProcAddr(t->instance, "vkGetPhysicalDeviceExternalBufferPropertiesKHR");
   f->GetImageFormatProperties2 = (PFN_vkGetPhysicalDeviceImageFormatProperties2KHR)
      vkGetInstanceProcAddr(t->instance, "vkGetPhysicalDeviceImageFormatProperties2KHR");
   f->GetProperties2 = (PFN_vkGetPhysicalDeviceProperties2KHR)
      vkGetInstanceProcAddr(t->instance, "vkGetPhysicalDeviceProperties2KHR");
   f->GetFeatures2 = (PFN_vkGetPhysicalDeviceFeatures2KHR)
      vkGetInstanceProcAddr(t->instance, "vkGetPhysicalDeviceFeatures2KHR");
   CHECK(f->GetMemoryFd && f->GetMemoryFdProperties && f->GetExternalBufferProperties &&
            f->GetImageFormatProperties2 && f->GetProperties2 && f->GetFeatures2,
         "entry points of the enabled extensions");
   return f->GetMemoryFd && f->GetMemoryFdProperties && f->GetExternalBufferProperties &&
          f->GetImageFormatProperties2 && f->GetProperties2 && f->GetFeatures2;
}

/* ---- contexts ---- */

static const char *const fd_instance_exts[] = {
   VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME,
   VK_KHR_EXTERNAL_MEMORY_CAPABILITIES_EXTENSION_NAME,
};

/* Instance and device with the opaque-fd extensions (and FOREIGN when
 * listed, and whatever `extra` adds). */
static bool
init_fd_context(struct vkt *t, const struct caps *caps, bool validation, const void *device_pnext,
                const char *extra)
{
   const char *dev_exts[5];
   uint32_t n = 0;
   dev_exts[n++] = VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME;
   dev_exts[n++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
   if (caps->foreign)
      dev_exts[n++] = VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME;
   if (extra)
      dev_exts[n++] = extra;
   struct vkt_options o = {
      .instance_extensions = fd_instance_exts,
      .instance_extension_count = 2,
      .device_extensions = dev_exts,
      .device_extension_count = n,
      .device_pnext = device_pnext,
      .no_validation = !validation,
   };
   return vkt_init(t, &o);
}

/* ---- buffers in external memory ---- */

struct xbuf {
   VkBuffer buffer;
   VkDeviceMemory memory;
   VkDeviceSize alloc_size;
   uint32_t type;
   uint32_t *map;
};

static VkBuffer
create_ext_buffer(struct vkt *t, VkDeviceSize size)
{
   VkExternalMemoryBufferCreateInfo ext = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
                                            .handleTypes = OPAQUE_FD };
   VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .pNext = &ext,
                              .size = size,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT };
   VkBuffer b = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateBuffer(t->device, &bci, NULL, &b), VK_SUCCESS);
   return b;
}

/* An exportable buffer (import_fd < 0) or one importing import_fd with the
 * given size and type, bound at 0 and mapped. */
static bool
xbuf_create(struct vkt *t, VkDeviceSize size, int import_fd, VkDeviceSize alloc_size, int type,
            struct xbuf *out)
{
   memset(out, 0, sizeof(*out));
   out->buffer = create_ext_buffer(t, size);
   if (!out->buffer)
      return false;
   VkMemoryRequirements req;
   vkGetBufferMemoryRequirements(t->device, out->buffer, &req);
   if (import_fd < 0) {
      alloc_size = req.size;
      type = vkt_memory_type(t, req.memoryTypeBits,
                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
   }
   CHECK(type >= 0 && (req.memoryTypeBits & (1u << type)), "a host-visible coherent type for the buffer");
   VkExportMemoryAllocateInfo exp = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = OPAQUE_FD };
   /* An import is exportable again (exportFromImportedHandleTypes). */
   VkImportMemoryFdInfoKHR imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                   .pNext = &exp, .handleType = OPAQUE_FD, .fd = import_fd };
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .pNext = import_fd < 0 ? (const void *)&exp : (const void *)&imp,
                               .allocationSize = alloc_size, .memoryTypeIndex = (uint32_t)type };
   VkResult r = vkAllocateMemory(t->device, &ai, NULL, &out->memory);
   CHECK_EQ_INT(r, VK_SUCCESS);
   if (r != VK_SUCCESS) {
      vkDestroyBuffer(t->device, out->buffer, NULL);
      out->buffer = VK_NULL_HANDLE;
      return false;
   }
   out->alloc_size = alloc_size;
   out->type = (uint32_t)type;
   CHECK_EQ_INT(vkBindBufferMemory(t->device, out->buffer, out->memory, 0), VK_SUCCESS);
   CHECK_EQ_INT(vkMapMemory(t->device, out->memory, 0, VK_WHOLE_SIZE, 0, (void **)&out->map), VK_SUCCESS);
   return true;
}

static void
xbuf_destroy(struct vkt *t, struct xbuf *b)
{
   if (b->buffer)
      vkDestroyBuffer(t->device, b->buffer, NULL);
   if (b->memory)
      vkFreeMemory(t->device, b->memory, NULL);
   memset(b, 0, sizeof(*b));
}

static int
export_fd(struct vkt *t, const struct fns *f, VkDeviceMemory mem)
{
   VkMemoryGetFdInfoKHR gi = { .sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR, .memory = mem,
                               .handleType = OPAQUE_FD };
   int fd = -1;
   CHECK_EQ_INT(f->GetMemoryFd(t->device, &gi, &fd), VK_SUCCESS);
   CHECK(fd >= 0, "vkGetMemoryFdKHR gave fd %d", fd);
   return fd;
}

static bool
same_file(int a, int b)
{
   struct stat sa, sb;
   return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static uint64_t
inode_of(int fd)
{
   struct stat st;
   return fstat(fd, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static uint32_t
count_mismatches(const uint32_t *p, uint32_t n, uint32_t seed)
{
   uint32_t bad = 0;
   for (uint32_t i = 0; i < n; i++)
      bad += p[i] != pattern(i, seed);
   return bad;
}

static void
buffer_barrier(VkCommandBuffer cb, VkBuffer buf, uint32_t src_family, uint32_t dst_family,
               VkAccessFlags src_access, VkAccessFlags dst_access)
{
   VkBufferMemoryBarrier b = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
                               .srcAccessMask = src_access, .dstAccessMask = dst_access,
                               .srcQueueFamilyIndex = src_family, .dstQueueFamilyIndex = dst_family,
                               .buffer = buf, .offset = 0, .size = VK_WHOLE_SIZE };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                        0, NULL, 1, &b, 0, NULL);
}

/* ---- capability queries ---- */

static const VkExternalMemoryHandleTypeFlagBits core_other_types[] = {
   VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT,
   VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT,
   VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_TEXTURE_BIT,
   VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_TEXTURE_KMT_BIT,
   VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP_BIT,
   VK_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE_BIT,
};

static void
check_opaque_props(const VkExternalMemoryProperties *p, const char *what)
{
   CHECK(p->externalMemoryFeatures ==
            (VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT),
         "%s: opaque fd exportable and importable, not dedicated-only (0x%x)", what,
         p->externalMemoryFeatures);
   CHECK(p->compatibleHandleTypes & OPAQUE_FD, "%s: opaque fd compatible with itself", what);
   CHECK(p->exportFromImportedHandleTypes & OPAQUE_FD, "%s: re-export of an import", what);
}

static void
test_buffer_caps(struct vkt *t, const struct fns *f)
{
   const VkBufferUsageFlags usages[] = {
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
      VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT,
      VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
   };
   for (unsigned u = 0; u < sizeof(usages) / sizeof(usages[0]); u++) {
      VkPhysicalDeviceExternalBufferInfo bi = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
                                                .usage = usages[u], .handleType = OPAQUE_FD };
      VkExternalBufferProperties p = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };
      f->GetExternalBufferProperties(t->pdev, &bi, &p);
      check_opaque_props(&p.externalMemoryProperties, "buffer");
      /* The spec: an unsupported type reports no features at all. */
      for (unsigned i = 0; i < sizeof(core_other_types) / sizeof(core_other_types[0]); i++) {
         bi.handleType = core_other_types[i];
         memset(&p.externalMemoryProperties, 0x5a, sizeof(p.externalMemoryProperties));
         f->GetExternalBufferProperties(t->pdev, &bi, &p);
         CHECK_EQ_INT(p.externalMemoryProperties.externalMemoryFeatures, 0);
      }
   }
}

/* The external image query agrees with the plain one on every core format,
 * type and tiling, with the opaque-fd properties on success; an unsupported
 * handle type is VK_ERROR_FORMAT_NOT_SUPPORTED. */
static void
test_image_caps(struct vkt *t, const struct fns *f)
{
   const VkImageType types[] = { VK_IMAGE_TYPE_1D, VK_IMAGE_TYPE_2D, VK_IMAGE_TYPE_3D };
   const VkImageTiling tilings[] = { VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_TILING_LINEAR };
   const VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   uint32_t supported = 0, disagree = 0, wrong_props = 0, other_ok = 0;
   for (int fmt = VK_FORMAT_R4G4_UNORM_PACK8; fmt <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK; fmt++) {
      for (unsigned ty = 0; ty < 3; ty++) {
         for (unsigned ti = 0; ti < 2; ti++) {
            VkImageFormatProperties plain;
            VkResult pr = vkGetPhysicalDeviceImageFormatProperties(t->pdev, (VkFormat)fmt, types[ty],
                                                                   tilings[ti], usage, 0, &plain);
            VkPhysicalDeviceExternalImageFormatInfo ei = {
               .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
               .handleType = OPAQUE_FD };
            VkPhysicalDeviceImageFormatInfo2 info = {
               .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2, .pNext = &ei,
               .format = (VkFormat)fmt, .type = types[ty], .tiling = tilings[ti], .usage = usage };
            VkExternalImageFormatProperties ep = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES };
            VkImageFormatProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, .pNext = &ep };
            VkResult er = f->GetImageFormatProperties2(t->pdev, &info, &p2);
            if (er != pr) {
               disagree++;
               continue;
            }
            if (pr != VK_SUCCESS)
               continue;
            supported++;
            if (memcmp(&plain, &p2.imageFormatProperties, sizeof(plain)) != 0)
               disagree++;
            const VkExternalMemoryProperties *m = &ep.externalMemoryProperties;
            if (m->externalMemoryFeatures != (VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
                                              VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) ||
                !(m->compatibleHandleTypes & OPAQUE_FD) || !(m->exportFromImportedHandleTypes & OPAQUE_FD))
               wrong_props++;
            /* A type Shale does not share: not supported at all. */
            ei.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT;
            other_ok += f->GetImageFormatProperties2(t->pdev, &info, &p2) != VK_ERROR_FORMAT_NOT_SUPPORTED;
            /* handleType 0: not external, the plain answer. */
            ei.handleType = 0;
            if (f->GetImageFormatProperties2(t->pdev, &info, &p2) != VK_SUCCESS ||
                memcmp(&plain, &p2.imageFormatProperties, sizeof(plain)) != 0)
               disagree++;
         }
      }
   }
   CHECK(supported > 50, "%u supported external image combinations", supported);
   CHECK_EQ_INT(disagree, 0);
   CHECK_EQ_INT(wrong_props, 0);
   CHECK_EQ_INT(other_ok, 0);
}

static void
get_ids(struct vkt *t, const struct fns *f, VkPhysicalDeviceIDProperties *id)
{
   memset(id, 0, sizeof(*id));
   id->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
   VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = id };
   f->GetProperties2(t->pdev, &p2);
}

static bool
all_zero(const uint8_t *p, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      if (p[i])
         return false;
   }
   return true;
}

/* deviceUUID/driverUUID: set, stable across instances, no LUID, and not
 * lavapipe's (the two cannot share memory). */
static void
test_ids(struct vkt *t, const struct fns *f, struct vkt *t2, const struct fns *f2)
{
   VkPhysicalDeviceIDProperties a, b;
   get_ids(t, f, &a);
   get_ids(t2, f2, &b);
   CHECK(!all_zero(a.deviceUUID, VK_UUID_SIZE), "deviceUUID is set");
   CHECK(!all_zero(a.driverUUID, VK_UUID_SIZE), "driverUUID is set");
   CHECK(memcmp(a.deviceUUID, a.driverUUID, VK_UUID_SIZE) != 0, "device and driver UUIDs differ");
   CHECK(a.deviceLUIDValid == VK_FALSE, "no LUID on this platform");
   CHECK(memcmp(a.deviceUUID, b.deviceUUID, VK_UUID_SIZE) == 0 &&
            memcmp(a.driverUUID, b.driverUUID, VK_UUID_SIZE) == 0,
         "UUIDs are the same in a second instance");

   struct vkt l;
   const char *inst[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   struct vkt_options o = { .driver = VKT_LAVAPIPE, .instance_extensions = inst,
                            .instance_extension_count = 1 };
   if (!vkt_init(&l, &o)) {
      fprintf(stderr, "note: lavapipe not present, UUIDs not compared with it\n");
      return;
   }
   struct fns lf = { 0 };
   lf.GetProperties2 = (PFN_vkGetPhysicalDeviceProperties2KHR)
      vkGetInstanceProcAddr(l.instance, "vkGetPhysicalDeviceProperties2KHR");
   VkPhysicalDeviceIDProperties c;
   get_ids(&l, &lf, &c);
   CHECK(memcmp(a.deviceUUID, c.deviceUUID, VK_UUID_SIZE) != 0, "deviceUUID is not lavapipe's");
   CHECK(memcmp(a.driverUUID, c.driverUUID, VK_UUID_SIZE) != 0, "driverUUID is not lavapipe's");
   vkt_finish(&l);
}

/* ---- sharing within one device ---- */

static void
test_same_device(struct vkt *t, const struct fns *f)
{
   const VkDeviceSize size = 65536 + 100;   /* not a whole number of pages */
   const uint32_t n = (uint32_t)(size / 4);
   struct xbuf a;
   if (!xbuf_create(t, size, -1, 0, -1, &a))
      return;
   for (uint32_t i = 0; i < n; i++)
      a.map[i] = pattern(i, 1);

   int fd1 = export_fd(t, f, a.memory);
   int fd2 = export_fd(t, f, a.memory);
   CHECK(fd1 != fd2, "each vkGetMemoryFdKHR is a new fd");
   CHECK(same_file(fd1, fd2), "both fds name the same memory");

   /* Import into a second allocation of the same device: same bytes, both
    * ways. fd1 now belongs to the driver. */
   struct xbuf b;
   if (xbuf_create(t, size, fd1, a.alloc_size, (int)a.type, &b)) {
      CHECK_EQ_INT(count_mismatches(b.map, n, 1), 0);
      for (uint32_t i = 0; i < n; i++)
         b.map[i] = pattern(i, 2);
      CHECK_EQ_INT(count_mismatches(a.map, n, 2), 0);
      int fd3 = export_fd(t, f, b.memory);
      CHECK(same_file(fd3, fd2), "an import exports the same memory again");
      close(fd3);

      /* The queue reads the shared bytes too. */
      struct vkt_buffer plain;
      CHECK_EQ_INT(vkt_buffer_create(t, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT, &plain), VK_SUCCESS);
      VkCommandBuffer cb = vkt_begin(t);
      VkBufferCopy region = { 0, 0, size };
      vkCmdCopyBuffer(cb, b.buffer, plain.buffer, 1, &region);
      VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                           0, NULL, 0, NULL);
      CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
      CHECK_EQ_INT(count_mismatches(plain.map, n, 2), 0);
      vkt_buffer_destroy(t, &plain);
      xbuf_destroy(t, &b);
   } else {
      close(fd1);
   }

   /* The payload outlives the exporting allocation while an fd holds it. */
   const VkDeviceSize alloc_size = a.alloc_size;
   const int type = (int)a.type;
   xbuf_destroy(t, &a);
   struct xbuf c;
   if (xbuf_create(t, size, fd2, alloc_size, type, &c)) {
      CHECK_EQ_INT(count_mismatches(c.map, n, 2), 0);
      xbuf_destroy(t, &c);
   } else {
      close(fd2);
   }
}

/* ---- an image shared by two instances, with an ownership transfer through
 * VK_QUEUE_FAMILY_EXTERNAL ---- */

static const VkExtent3D img_extent = { 37, 19, 1 };
#define IMG_LEVELS 3
#define IMG_LAYERS 2

static VkImage
create_ext_image(struct vkt *t)
{
   VkExternalMemoryImageCreateInfo ext = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                           .handleTypes = OPAQUE_FD };
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .pNext = &ext,
      .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = img_extent,
      .mipLevels = IMG_LEVELS, .arrayLayers = IMG_LAYERS, .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE, .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   VkImage img = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateImage(t->device, &ici, NULL, &img), VK_SUCCESS);
   return img;
}

/* Buffer <-> image regions for every level (both layers), packed. Returns
 * the bytes they cover. */
static VkDeviceSize
image_regions(VkBufferImageCopy regions[IMG_LEVELS])
{
   VkDeviceSize offset = 0;
   for (uint32_t l = 0; l < IMG_LEVELS; l++) {
      uint32_t w = img_extent.width >> l ? img_extent.width >> l : 1;
      uint32_t h = img_extent.height >> l ? img_extent.height >> l : 1;
      regions[l] = (VkBufferImageCopy) {
         .bufferOffset = offset,
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, l, 0, IMG_LAYERS },
         .imageExtent = { w, h, 1 },
      };
      offset += (VkDeviceSize)w * h * 4 * IMG_LAYERS;
   }
   return offset;
}

static void
image_transfer_barrier(VkCommandBuffer cb, VkImage img, VkImageLayout from, VkImageLayout to,
                       uint32_t src_family, uint32_t dst_family, VkAccessFlags src_access,
                       VkAccessFlags dst_access)
{
   VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = src_access,
      .dstAccessMask = dst_access, .oldLayout = from, .newLayout = to,
      .srcQueueFamilyIndex = src_family, .dstQueueFamilyIndex = dst_family, .image = img,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, IMG_LEVELS, 0, IMG_LAYERS },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                        0, NULL, 0, NULL, 1, &b);
}

static void
test_cross_instance_image(struct vkt *t, const struct fns *f, struct vkt *t2)
{
   VkBufferImageCopy regions[IMG_LEVELS];
   const VkDeviceSize bytes = image_regions(regions);
   const uint32_t n = (uint32_t)(bytes / 4);

   /* Instance 1: fill every level and layer, release to EXTERNAL. */
   VkImage img1 = create_ext_image(t);
   VkMemoryRequirements req1;
   vkGetImageMemoryRequirements(t->device, img1, &req1);
   int type = vkt_memory_type(t, req1.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
   VkExportMemoryAllocateInfo exp = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = OPAQUE_FD };
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &exp,
                               .allocationSize = req1.size, .memoryTypeIndex = (uint32_t)type };
   VkDeviceMemory mem1 = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateMemory(t->device, &ai, NULL, &mem1), VK_SUCCESS);
   CHECK_EQ_INT(vkBindImageMemory(t->device, img1, mem1, 0), VK_SUCCESS);
   struct vkt_buffer up;
   CHECK_EQ_INT(vkt_buffer_create(t, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &up), VK_SUCCESS);
   for (uint32_t i = 0; i < n; i++)
      ((uint32_t *)up.map)[i] = pattern(i, 7);
   VkCommandBuffer cb = vkt_begin(t);
   image_transfer_barrier(cb, img1, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, 0,
                          VK_ACCESS_TRANSFER_WRITE_BIT);
   vkCmdCopyBufferToImage(cb, up.buffer, img1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, IMG_LEVELS, regions);
   image_transfer_barrier(cb, img1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, 0, VK_QUEUE_FAMILY_EXTERNAL,
                          VK_ACCESS_TRANSFER_WRITE_BIT, 0);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   int fd = export_fd(t, f, mem1);

   /* Instance 2: the same image over the imported memory, acquired from
    * EXTERNAL, read back by a copy. */
   VkImage img2 = create_ext_image(t2);
   VkMemoryRequirements req2;
   vkGetImageMemoryRequirements(t2->device, img2, &req2);
   CHECK(req2.size == req1.size && req2.alignment == req1.alignment,
         "the same image needs the same memory in both instances");
   VkImportMemoryFdInfoKHR imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                   .handleType = OPAQUE_FD, .fd = fd };
   ai.pNext = &imp;
   VkDeviceMemory mem2 = VK_NULL_HANDLE;
   VkResult r = vkAllocateMemory(t2->device, &ai, NULL, &mem2);
   CHECK_EQ_INT(r, VK_SUCCESS);
   if (r != VK_SUCCESS)
      close(fd);
   struct vkt_buffer down;
   CHECK_EQ_INT(vkt_buffer_create(t2, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &down), VK_SUCCESS);
   if (r == VK_SUCCESS) {
      CHECK_EQ_INT(vkBindImageMemory(t2->device, img2, mem2, 0), VK_SUCCESS);
      cb = vkt_begin(t2);
      image_transfer_barrier(cb, img2, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_QUEUE_FAMILY_EXTERNAL, 0, 0,
                             VK_ACCESS_TRANSFER_READ_BIT);
      vkCmdCopyImageToBuffer(cb, img2, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, down.buffer, IMG_LEVELS,
                             regions);
      VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                           0, NULL, 0, NULL);
      CHECK_EQ_INT(vkt_submit_wait(t2, cb), VK_SUCCESS);
      CHECK_EQ_INT(count_mismatches(down.map, n, 7), 0);
   }
   vkt_buffer_destroy(t2, &down);
   vkDestroyImage(t2->device, img2, NULL);
   vkFreeMemory(t2->device, mem2, NULL);
   vkt_buffer_destroy(t, &up);
   vkDestroyImage(t->device, img1, NULL);
   vkFreeMemory(t->device, mem1, NULL);
}

/* ---- ownership transfers with a non-Vulkan user (FOREIGN) ---- */

static void
test_foreign(struct vkt *t)
{
   const VkDeviceSize size = 8192;
   const uint32_t n = (uint32_t)(size / 4);
   struct xbuf x;
   if (!xbuf_create(t, size, -1, 0, -1, &x))
      return;
   /* The foreign user wrote these (the host plays it). */
   for (uint32_t i = 0; i < n; i++)
      x.map[i] = pattern(i, 5);
   struct vkt_buffer plain, src;
   CHECK_EQ_INT(vkt_buffer_create(t, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &plain), VK_SUCCESS);
   CHECK_EQ_INT(vkt_buffer_create(t, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &src), VK_SUCCESS);
   for (uint32_t i = 0; i < n; i++)
      ((uint32_t *)src.map)[i] = pattern(i, 6);
   VkCommandBuffer cb = vkt_begin(t);
   VkBufferCopy region = { 0, 0, size };
   /* Acquire what the foreign user wrote, read it... */
   buffer_barrier(cb, x.buffer, VK_QUEUE_FAMILY_FOREIGN_EXT, 0, 0, VK_ACCESS_TRANSFER_READ_BIT);
   vkCmdCopyBuffer(cb, x.buffer, plain.buffer, 1, &region);
   /* ...then overwrite it and hand it back. */
   buffer_barrier(cb, x.buffer, VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED,
                  VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
   vkCmdCopyBuffer(cb, src.buffer, x.buffer, 1, &region);
   buffer_barrier(cb, x.buffer, 0, VK_QUEUE_FAMILY_FOREIGN_EXT, VK_ACCESS_TRANSFER_WRITE_BIT, 0);
   VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                        NULL, 0, NULL);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   CHECK_EQ_INT(count_mismatches(plain.map, n, 5), 0);
   CHECK_EQ_INT(count_mismatches(x.map, n, 6), 0);
   vkt_buffer_destroy(t, &plain);
   vkt_buffer_destroy(t, &src);
   xbuf_destroy(t, &x);
}

/* ---- another process ---- */

/* The child: imports the fd, checks the parent's pattern on the host, then
 * overwrites it with a queue copy. */
static int
child_main(int argc, char **argv)
{
   if (argc < 5)
      return 2;
   int fd = atoi(argv[2]);
   VkDeviceSize alloc_size = strtoull(argv[3], NULL, 10);
   int type = atoi(argv[4]);
   const VkDeviceSize size = 65536;
   const uint32_t n = (uint32_t)(size / 4);
   struct caps caps = { .fd = true };
   struct vkt t;
   CHECK(init_fd_context(&t, &caps, true, NULL, NULL), "child: vkt_init");
   if (!t.device)
      return check_finish();
   struct xbuf x;
   if (xbuf_create(&t, size, fd, alloc_size, type, &x)) {
      CHECK_EQ_INT(count_mismatches(x.map, n, 3), 0);
      struct vkt_buffer src;
      CHECK_EQ_INT(vkt_buffer_create(&t, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &src), VK_SUCCESS);
      for (uint32_t i = 0; i < n; i++)
         ((uint32_t *)src.map)[i] = pattern(i, 4);
      VkCommandBuffer cb = vkt_begin(&t);
      VkBufferCopy region = { 0, 0, size };
      vkCmdCopyBuffer(cb, src.buffer, x.buffer, 1, &region);
      CHECK_EQ_INT(vkt_submit_wait(&t, cb), VK_SUCCESS);
      vkt_buffer_destroy(&t, &src);
      xbuf_destroy(&t, &x);
   } else {
      close(fd);
   }
   vkt_finish(&t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}

static void
test_cross_process(struct vkt *t, const struct fns *f)
{
   const VkDeviceSize size = 65536;
   const uint32_t n = (uint32_t)(size / 4);
   struct xbuf x;
   if (!xbuf_create(t, size, -1, 0, -1, &x))
      return;
   for (uint32_t i = 0; i < n; i++)
      x.map[i] = pattern(i, 3);
   int fd = export_fd(t, f, x.memory);
   int inherit = dup(fd);   /* without FD_CLOEXEC, so the child gets it */
   CHECK(inherit >= 0, "dup");
   char arg_fd[16], arg_size[32], arg_type[16];
   snprintf(arg_fd, sizeof(arg_fd), "%d", inherit);
   snprintf(arg_size, sizeof(arg_size), "%llu", (unsigned long long)x.alloc_size);
   snprintf(arg_type, sizeof(arg_type), "%u", x.type);
   fflush(NULL);
   pid_t pid = fork();
   if (pid == 0) {
      execl("/proc/self/exe", "api_external_memory", "--child", arg_fd, arg_size, arg_type,
            (char *)NULL);
      _exit(127);
   }
   close(inherit);
   close(fd);
   CHECK(pid > 0, "fork");
   int status = 0;
   if (pid > 0)
      CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
   CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child imported and wrote (status 0x%x)",
         status);
   CHECK_EQ_INT(count_mismatches(x.map, n, 4), 0);
   xbuf_destroy(t, &x);
}

/* ---- invalid imports (no validation layer: these are invalid usage) ---- */

static VkResult
try_import(struct vkt *t, int fd, VkDeviceSize size, uint32_t type)
{
   VkImportMemoryFdInfoKHR imp = { .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                   .handleType = OPAQUE_FD, .fd = fd };
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &imp,
                               .allocationSize = size, .memoryTypeIndex = type };
   VkDeviceMemory mem = VK_NULL_HANDLE;
   VkResult r = vkAllocateMemory(t->device, &ai, NULL, &mem);
   if (r == VK_SUCCESS)
      vkFreeMemory(t->device, mem, NULL);
   return r;
}

static bool
fd_open(int fd)
{
   return fcntl(fd, F_GETFD) != -1;
}

static void
test_bad_imports(const struct caps *caps)
{
   struct vkt t;
   CHECK(init_fd_context(&t, caps, false, NULL, NULL), "vkt_init (no validation)");
   if (!t.device)
      return;
   struct fns f;
   if (!load_fns(&t, &f)) {
      vkt_finish(&t);
      return;
   }
   const long page = sysconf(_SC_PAGESIZE);
   const VkDeviceSize size = 65536;

   /* A memfd that is not Shale's, sized and sealed like one. */
   int fd = (int)syscall(SYS_memfd_create, "not-shale", MFD_CLOEXEC | MFD_ALLOW_SEALING);
   CHECK(fd >= 0 && ftruncate(fd, page + (off_t)size) == 0 &&
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0,
         "a foreign memfd");
   CHECK_EQ_INT(try_import(&t, fd, size, 0), VK_ERROR_INVALID_EXTERNAL_HANDLE);
   CHECK(fd_open(fd), "a failed import leaves the fd with the application");
   close(fd);

   int pipefd[2];
   CHECK(pipe(pipefd) == 0, "pipe");
   CHECK_EQ_INT(try_import(&t, pipefd[0], size, 0), VK_ERROR_INVALID_EXTERNAL_HANDLE);
   close(pipefd[0]);
   close(pipefd[1]);

   /* A real export, imported with the wrong size, the wrong type, read-only
    * and unsealed: each refused, and the fd still good afterwards. */
   struct xbuf x;
   if (xbuf_create(&t, size, -1, 0, -1, &x)) {
      fd = export_fd(&t, &f, x.memory);
      uint32_t other_type = x.type == 0 ? 1 : 0;
      CHECK_EQ_INT(try_import(&t, fd, x.alloc_size + 4096, x.type), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      CHECK_EQ_INT(try_import(&t, fd, x.alloc_size - 64, x.type), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      if (t.mem_props.memoryTypeCount > 1)
         CHECK_EQ_INT(try_import(&t, fd, x.alloc_size, other_type), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      char path[64];
      snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
      int ro = open(path, O_RDONLY | O_CLOEXEC);
      if (ro >= 0) {
         CHECK_EQ_INT(try_import(&t, ro, x.alloc_size, x.type), VK_ERROR_INVALID_EXTERNAL_HANDLE);
         close(ro);
      } else {
         fprintf(stderr, "note: cannot reopen %s (%s): read-only import not tried\n", path,
                 strerror(errno));
      }
      /* The same bytes in a memfd without seals. */
      struct stat st;
      int copy = (int)syscall(SYS_memfd_create, "unsealed", MFD_CLOEXEC);
      CHECK(fstat(fd, &st) == 0 && copy >= 0 && ftruncate(copy, st.st_size) == 0, "copy");
      char *buf = malloc((size_t)st.st_size);
      CHECK(buf && pread(fd, buf, (size_t)st.st_size, 0) == st.st_size &&
               pwrite(copy, buf, (size_t)st.st_size, 0) == st.st_size,
            "copied");
      free(buf);
      CHECK_EQ_INT(try_import(&t, copy, x.alloc_size, x.type), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      close(copy);
      CHECK(fd_open(fd), "fd kept through failed imports");
      CHECK_EQ_INT(try_import(&t, fd, x.alloc_size, x.type), VK_SUCCESS);   /* takes fd */
      xbuf_destroy(&t, &x);
   }

   /* No handle type other than opaque fd is importable or exportable. */
   VkMemoryFdPropertiesKHR props = { .sType = VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR,
                                     .memoryTypeBits = 0x5a };
   int any = open("/dev/null", O_RDWR | O_CLOEXEC);
   CHECK_EQ_INT(f.GetMemoryFdProperties(t.device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT, any,
                                        &props),
                VK_ERROR_INVALID_EXTERNAL_HANDLE);
   close(any);
   VkExportMemoryAllocateInfo exp = { .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT };
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &exp,
                               .allocationSize = 4096, .memoryTypeIndex = 0 };
   VkDeviceMemory mem = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, NULL, &mem), VK_ERROR_INVALID_EXTERNAL_HANDLE);
   /* ...and the capability queries say so. */
   const VkExternalMemoryHandleTypeFlagBits others[] = {
      VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
      VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID,
      VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
      VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_MAPPED_FOREIGN_MEMORY_BIT_EXT,
   };
   for (unsigned i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
      VkPhysicalDeviceExternalBufferInfo bi = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
                                                .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                .handleType = others[i] };
      VkExternalBufferProperties p = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };
      memset(&p.externalMemoryProperties, 0x5a, sizeof(p.externalMemoryProperties));
      f.GetExternalBufferProperties(t.pdev, &bi, &p);
      CHECK(p.externalMemoryProperties.externalMemoryFeatures == 0, "handle type 0x%x not offered",
            others[i]);
   }
   vkt_finish(&t);
}

/* ---- device memory reports ---- */

#define LOG_MAX 64
struct report_log {
   pthread_mutex_t lock;
   VkDeviceMemoryReportCallbackDataEXT ev[LOG_MAX];
   unsigned count;
};
static struct report_log logs[2] = { { .lock = PTHREAD_MUTEX_INITIALIZER },
                                     { .lock = PTHREAD_MUTEX_INITIALIZER } };

static void VKAPI_PTR
report_cb(const VkDeviceMemoryReportCallbackDataEXT *d, void *user)
{
   struct report_log *l = user;
   pthread_mutex_lock(&l->lock);
   if (l->count < LOG_MAX)
      l->ev[l->count] = *d;
   l->count++;
   pthread_mutex_unlock(&l->lock);
}

static void
logs_clear(void)
{
   for (int i = 0; i < 2; i++)
      logs[i].count = 0;
}

/* Both callbacks saw the same `count` events (each with the right sType,
 * flags and object type); returns the first log's events. */
static const VkDeviceMemoryReportCallbackDataEXT *
logs_expect(unsigned count, const char *what)
{
   CHECK(logs[0].count == count && logs[1].count == count, "%s: %u and %u events, expected %u", what,
         logs[0].count, logs[1].count, count);
   if (logs[0].count != count || logs[1].count != count)
      return NULL;
   for (unsigned i = 0; i < count; i++) {
      const VkDeviceMemoryReportCallbackDataEXT *a = &logs[0].ev[i], *b = &logs[1].ev[i];
      CHECK(a->type == b->type && a->memoryObjectId == b->memoryObjectId && a->size == b->size &&
               a->objectType == b->objectType && a->objectHandle == b->objectHandle &&
               a->heapIndex == b->heapIndex,
            "%s: both callbacks saw event %u alike", what, i);
      CHECK(a->sType == VK_STRUCTURE_TYPE_DEVICE_MEMORY_REPORT_CALLBACK_DATA_EXT && a->flags == 0 &&
               a->objectType == VK_OBJECT_TYPE_DEVICE_MEMORY,
            "%s: event %u: sType, flags, object type", what, i);
   }
   return logs[0].ev;
}

/* The validation layer hands the application its own handles for
 * non-dispatchable objects, and the driver reports its own: handles are
 * compared only where the layer is off. */
static bool exact_handles;

static void
check_event(const VkDeviceMemoryReportCallbackDataEXT *e, VkDeviceMemoryReportEventTypeEXT type,
            VkDeviceMemory mem, VkDeviceSize size, uint32_t heap, const char *what)
{
   CHECK_EQ_INT(e->type, type);
   if (mem && exact_handles)
      CHECK(e->objectHandle == (uint64_t)mem, "%s: objectHandle is the memory", what);
   if (mem)
      CHECK(e->objectHandle != 0, "%s: objectHandle is set", what);
   if (type != VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT &&
       type != VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_UNIMPORT_EXT)
      CHECK(e->size == size, "%s: size %llu, expected %llu", what, (unsigned long long)e->size,
            (unsigned long long)size);
   CHECK(e->heapIndex == heap, "%s: heap %u, expected %u", what, e->heapIndex, heap);
}

static void *VKAPI_PTR
null_alloc(void *u, size_t size, size_t align, VkSystemAllocationScope scope)
{
   return NULL;
}
static void *VKAPI_PTR
null_realloc(void *u, void *o, size_t size, size_t align, VkSystemAllocationScope scope)
{
   return NULL;
}
static void VKAPI_PTR
null_free(void *u, void *p)
{
}

struct report_chain {
   VkPhysicalDeviceDeviceMemoryReportFeaturesEXT feat;
   VkDeviceDeviceMemoryReportCreateInfoEXT r[2];
};

static void
report_chain_init(struct report_chain *c)
{
   for (int i = 0; i < 2; i++)
      c->r[i] = (VkDeviceDeviceMemoryReportCreateInfoEXT) {
         .sType = VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT,
         .pNext = i == 0 ? &c->r[1] : NULL, .pfnUserCallback = report_cb, .pUserData = &logs[i] };
   c->feat = (VkPhysicalDeviceDeviceMemoryReportFeaturesEXT) {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT,
      .pNext = &c->r[0], .deviceMemoryReport = VK_TRUE };
}

static bool
init_report_context(struct vkt *t, const struct caps *caps, bool validation, struct report_chain *c)
{
   report_chain_init(c);
   if (caps->fd)
      return init_fd_context(t, caps, validation, &c->feat, VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME);
   const char *inst[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   const char *dev[] = { VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME };
   struct vkt_options o = { .instance_extensions = inst, .instance_extension_count = 1,
                            .device_extensions = dev, .device_extension_count = 1,
                            .device_pnext = &c->feat, .no_validation = !validation };
   return vkt_init(t, &o);
}

static void
test_report(const struct caps *caps, bool validation)
{
   struct vkt t;
   struct report_chain chain;
   logs_clear();
   CHECK(init_report_context(&t, caps, validation, &chain), "vkt_init with memory reports");
   if (!t.device)
      return;
   exact_handles = !validation;
   PFN_vkGetPhysicalDeviceFeatures2KHR get_features2 = (PFN_vkGetPhysicalDeviceFeatures2KHR)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceFeatures2KHR");
   VkPhysicalDeviceDeviceMemoryReportFeaturesEXT feat = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &feat };
   CHECK(get_features2 != NULL, "vkGetPhysicalDeviceFeatures2KHR");
   if (get_features2)
      get_features2(t.pdev, &f2);
   CHECK(feat.deviceMemoryReport == VK_TRUE, "deviceMemoryReport feature");

   /* Creating the device allocated no device memory. */
   logs_expect(0, "device creation");

   /* Every type: allocate three, free them; ids unique, events exact. */
   const VkDeviceSize sizes[3] = { 4096, 12345, 1 << 20 };
   for (uint32_t type = 0; type < t.mem_props.memoryTypeCount; type++) {
      const uint32_t heap = t.mem_props.memoryTypes[type].heapIndex;
      VkDeviceMemory mem[3];
      uint64_t ids[3];
      logs_clear();
      for (int i = 0; i < 3; i++) {
         VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                     .allocationSize = sizes[i], .memoryTypeIndex = type };
         CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, NULL, &mem[i]), VK_SUCCESS);
      }
      const VkDeviceMemoryReportCallbackDataEXT *ev = logs_expect(3, "allocate");
      for (int i = 0; ev && i < 3; i++) {
         check_event(&ev[i], VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATE_EXT, mem[i], sizes[i], heap,
                     "allocate");
         ids[i] = ev[i].memoryObjectId;
      }
      if (ev)
         CHECK(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2], "memoryObjectIds unique");
      logs_clear();
      for (int i = 0; i < 3; i++)
         vkFreeMemory(t.device, mem[i], NULL);
      const VkDeviceMemoryReportCallbackDataEXT *fe = logs_expect(3, "free");
      for (int i = 0; fe && ev && i < 3; i++) {
         check_event(&fe[i], VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT, mem[i], 0, heap, "free");
         CHECK(fe[i].memoryObjectId == ids[i], "free: the allocation's id");
         CHECK(fe[i].objectHandle == ev[i].objectHandle, "free: the allocation's handle");
      }
   }

   /* Objects that are not device memory: no events. */
   logs_clear();
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&t, 1000, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &b), VK_SUCCESS);
   logs_clear();
   VkCommandBuffer cb = vkt_begin(&t);
   CHECK_EQ_INT(vkt_submit_wait(&t, cb), VK_SUCCESS);
   logs_expect(0, "a command buffer and a submission");
   vkt_buffer_destroy(&t, &b);

   /* A failed allocation (the host allocator refuses): ALLOCATION_FAILED. */
   const VkAllocationCallbacks refuse = { .pfnAllocation = null_alloc,
                                          .pfnReallocation = null_realloc, .pfnFree = null_free };
   logs_clear();
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = 3 * 4096, .memoryTypeIndex = 0 };
   VkDeviceMemory m = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, &refuse, &m), VK_ERROR_OUT_OF_HOST_MEMORY);
   const VkDeviceMemoryReportCallbackDataEXT *ev = logs_expect(1, "failed allocation");
   if (ev)
      check_event(ev, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATION_FAILED_EXT, 0, ai.allocationSize,
                  t.mem_props.memoryTypes[0].heapIndex, "failed allocation");

   /* Shared memory: the id is the memfd's inode, the same for the export and
    * every import; imports report IMPORT and UNIMPORT. */
   if (caps->fd) {
      struct fns f;
      if (load_fns(&t, &f)) {
         logs_clear();
         struct xbuf x;
         if (xbuf_create(&t, 5000, -1, 0, -1, &x)) {
            const uint32_t heap = t.mem_props.memoryTypes[x.type].heapIndex;
            int fd = export_fd(&t, &f, x.memory);
            uint64_t ino = inode_of(fd);
            ev = logs_expect(1, "exportable allocation");
            uint64_t export_handle = ev ? ev->objectHandle : 0;
            if (ev) {
               check_event(ev, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATE_EXT, x.memory, x.alloc_size,
                           heap, "exportable allocation");
               CHECK(ev->memoryObjectId == ino, "exportable: id %llu is the inode %llu",
                     (unsigned long long)ev->memoryObjectId, (unsigned long long)ino);
            }
            logs_clear();
            struct xbuf y;
            if (xbuf_create(&t, 5000, fd, x.alloc_size, (int)x.type, &y)) {
               ev = logs_expect(1, "import");
               uint64_t import_handle = ev ? ev->objectHandle : 0;
               if (ev) {
                  check_event(ev, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_IMPORT_EXT, y.memory, x.alloc_size,
                              heap, "import");
                  CHECK(ev->memoryObjectId == ino, "import: the exporter's id");
               }
               logs_clear();
               VkDeviceMemory ym = y.memory;
               xbuf_destroy(&t, &y);
               ev = logs_expect(1, "unimport");
               if (ev) {
                  check_event(ev, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_UNIMPORT_EXT, ym, 0, heap, "unimport");
                  CHECK(ev->memoryObjectId == ino, "unimport: the same id");
                  CHECK(ev->objectHandle == import_handle && import_handle != export_handle,
                        "unimport: the import's handle");
               }
            } else {
               close(fd);
            }
            logs_clear();
            VkDeviceMemory xm = x.memory;
            xbuf_destroy(&t, &x);
            ev = logs_expect(1, "free of the export");
            if (ev) {
               check_event(ev, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT, xm, 0, heap, "free export");
               CHECK(ev->memoryObjectId == ino, "free: the same id");
               CHECK(ev->objectHandle == export_handle, "free: the export's handle");
            }
         }
      }
   }

   /* Over the heap (invalid usage: only without the layer): ALLOCATION_FAILED too. */
   if (!validation) {
      logs_clear();
      ai.allocationSize = t.mem_props.memoryHeaps[t.mem_props.memoryTypes[0].heapIndex].size + 4096;
      CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, NULL, &m), VK_ERROR_OUT_OF_DEVICE_MEMORY);
      ev = logs_expect(1, "allocation over the heap");
      if (ev)
         check_event(ev, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATION_FAILED_EXT, 0, ai.allocationSize,
                     t.mem_props.memoryTypes[0].heapIndex, "over the heap");
   }
   vkt_finish(&t);
}

/* vkCreateDevice with report callbacks unwinds completely when any of its
 * host allocations fails (no layer: it allocates through the same callbacks). */
static struct {
   unsigned calls, fail_at, live;
   bool sticky;   /* fail every call from fail_at on, not just that one */
} ta;

static void *VKAPI_PTR
ta_alloc(void *u, size_t size, size_t align, VkSystemAllocationScope scope)
{
   unsigned call = __atomic_add_fetch(&ta.calls, 1, __ATOMIC_SEQ_CST);
   if (ta.fail_at && (call == ta.fail_at || (ta.sticky && call > ta.fail_at)))
      return NULL;
   if (align < 16)
      align = 16;
   char *raw;
   if (posix_memalign((void **)&raw, align, align + size) != 0)
      return NULL;
   char *p = raw + align;
   ((size_t *)p)[-1] = align;
   ((size_t *)p)[-2] = size;
   __atomic_add_fetch(&ta.live, 1, __ATOMIC_SEQ_CST);
   return p;
}

static void VKAPI_PTR
ta_free(void *u, void *p)
{
   if (!p)
      return;
   __atomic_sub_fetch(&ta.live, 1, __ATOMIC_SEQ_CST);
   free((char *)p - ((size_t *)p)[-1]);
}

static void *VKAPI_PTR
ta_realloc(void *u, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (!orig)
      return ta_alloc(u, size, align, scope);
   if (size == 0) {
      ta_free(u, orig);
      return NULL;
   }
   void *p = ta_alloc(u, size, align, scope);
   if (!p)
      return NULL;
   size_t old = ((size_t *)orig)[-2];
   memcpy(p, orig, old < size ? old : size);
   ta_free(u, orig);
   return p;
}

static void
test_report_device_unwind(const struct caps *caps)
{
   struct vkt t;
   struct report_chain chain;
   CHECK(init_report_context(&t, caps, false, &chain), "vkt_init for the unwind sweep");
   if (!t.device)
      return;
   const VkAllocationCallbacks alloc = { .pfnAllocation = ta_alloc, .pfnReallocation = ta_realloc,
                                         .pfnFree = ta_free };
   const char *dev[] = { VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME };
   float prio = 1.0f;
   VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = 0, .queueCount = 1, .pQueuePriorities = &prio };
   VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &chain.feat,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = 1, .ppEnabledExtensionNames = dev };
   bool done = false;
   unsigned failures = 0, leaks = 0;
   for (unsigned n = 1; n < 200 && !done; n++) {
      for (int sticky = 0; sticky < 2; sticky++) {
         ta.calls = 0;
         ta.fail_at = n;
         ta.live = 0;
         ta.sticky = sticky;
         VkDevice dev_handle = VK_NULL_HANDLE;
         VkResult r = vkCreateDevice(t.pdev, &dci, &alloc, &dev_handle);
         ta.fail_at = 0;
         if (r == VK_SUCCESS) {
            /* The callbacks registered in this device work. */
            logs_clear();
            PFN_vkAllocateMemory am = (PFN_vkAllocateMemory)vkGetDeviceProcAddr(dev_handle, "vkAllocateMemory");
            PFN_vkFreeMemory fm = (PFN_vkFreeMemory)vkGetDeviceProcAddr(dev_handle, "vkFreeMemory");
            VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                        .allocationSize = 4096, .memoryTypeIndex = 0 };
            VkDeviceMemory m = VK_NULL_HANDLE;
            CHECK_EQ_INT(am(dev_handle, &ai, NULL, &m), VK_SUCCESS);
            fm(dev_handle, m, NULL);
            logs_expect(2, "device from the sweep");
            vkDestroyDevice(dev_handle, &alloc);
            leaks += ta.live != 0;
            done = true;
            break;
         }
         failures += r != VK_ERROR_OUT_OF_HOST_MEMORY;
         leaks += ta.live != 0;
      }
   }
   CHECK(done, "vkCreateDevice succeeded once allocations stopped failing");
   CHECK_EQ_INT(failures, 0);
   CHECK_EQ_INT(leaks, 0);
   vkt_finish(&t);
}

/* ---- main ---- */

int
main(int argc, char **argv)
{
   if (argc > 1 && strcmp(argv[1], "--child") == 0)
      return child_main(argc, argv);

   /* What Shale lists. */
   struct caps caps = { 0 };
   struct vkt probe;
   struct vkt_options po = { .no_validation = true };
   if (!vkt_init(&probe, &po)) {
      CHECK(false, "vkt_init");
      return check_finish();
   }
   caps.fd = vkt_has_device_extension(probe.pdev, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
   caps.foreign = vkt_has_device_extension(probe.pdev, VK_EXT_QUEUE_FAMILY_FOREIGN_EXTENSION_NAME);
   caps.report = vkt_has_device_extension(probe.pdev, VK_EXT_DEVICE_MEMORY_REPORT_EXTENSION_NAME);
   if (caps.fd)
      CHECK(vkt_has_device_extension(probe.pdev, VK_KHR_EXTERNAL_MEMORY_EXTENSION_NAME),
            "VK_KHR_external_memory_fd comes with VK_KHR_external_memory");
   vkt_finish(&probe);
   if (!caps.fd && !caps.report)
      SKIP("Shale lists neither VK_KHR_external_memory_fd nor VK_EXT_device_memory_report");
   const int fds_before = check_open_fds();

   if (caps.fd) {
      struct vkt t, t2;
      CHECK(init_fd_context(&t, &caps, true, NULL, NULL), "vkt_init with external memory");
      CHECK(init_fd_context(&t2, &caps, true, NULL, NULL), "a second instance");
      struct fns f, f2;
      if (t.device && t2.device && load_fns(&t, &f) && load_fns(&t2, &f2)) {
         test_buffer_caps(&t, &f);
         test_image_caps(&t, &f);
         test_ids(&t, &f, &t2, &f2);
         test_same_device(&t, &f);
         test_cross_instance_image(&t, &f, &t2);
         if (caps.foreign)
            test_foreign(&t);
         else
            fprintf(stderr, "note: VK_EXT_queue_family_foreign not listed: FOREIGN not tested\n");
         test_cross_process(&t, &f);
      }
      vkt_finish(&t2);
      vkt_finish(&t);
      test_bad_imports(&caps);
   } else {
      fprintf(stderr, "note: VK_KHR_external_memory_fd not listed: opaque fds not tested\n");
   }

   if (caps.report) {
      test_report(&caps, true);
      test_report(&caps, false);
      test_report_device_unwind(&caps);
   } else {
      fprintf(stderr, "note: VK_EXT_device_memory_report not listed: reports not tested\n");
   }
   /* Every memfd the driver made or took is closed with its memory. */
   if (fds_before >= 0)
      CHECK_EQ_INT(check_open_fds(), fds_before);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
