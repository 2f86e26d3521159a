/* VkDeviceMemory: allocation (anonymous, memfd or AHardwareBuffer), opaque-fd export and import, mapping, memory reports. */
#include "sd_memory.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifndef MFD_CLOEXEC
#include <linux/memfd.h>
#endif

#include "sd_ahb.h"
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_external.h"
#include "sd_physical_device.h"
#include "sd_util.h"

/* ---- memory reports ---- */

uint32_t
sd_memory_report_count(const VkDeviceCreateInfo *info, bool enabled)
{
   uint32_t n = 0;
   if (!enabled)
      return 0;
   sd_foreach_struct(s, info->pNext) {
      if (s->sType == VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT)
         n++;
   }
   return n;
}

void
sd_memory_report_init(struct sd_memory_report *report, struct sd_memory_report_callback *storage,
                      const VkDeviceCreateInfo *info, bool enabled)
{
   uint32_t n = 0;
   if (enabled) {
      sd_foreach_struct(s, info->pNext) {
         if (s->sType != VK_STRUCTURE_TYPE_DEVICE_DEVICE_MEMORY_REPORT_CREATE_INFO_EXT)
            continue;
         const VkDeviceDeviceMemoryReportCreateInfoEXT *r =
            (const VkDeviceDeviceMemoryReportCreateInfoEXT *)s;
         storage[n].callback = r->pfnUserCallback;
         storage[n].user_data = r->pUserData;
         n++;
      }
   }
   report->count = n;
   report->callbacks = storage;
}

static void
sd_memory_report_event(struct sd_device *device, VkDeviceMemoryReportEventTypeEXT type,
                       uint64_t id, VkDeviceSize size, const struct sd_device_memory *mem,
                       uint32_t heap)
{
   const struct sd_memory_report *report = sd_device_memory_report(device);
   if (report->count == 0)
      return;
   const VkDeviceMemoryReportCallbackDataEXT data = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_MEMORY_REPORT_CALLBACK_DATA_EXT,
      .flags = 0,
      .type = type,
      .memoryObjectId = id,
      .size = size,
      .objectType = VK_OBJECT_TYPE_DEVICE_MEMORY,
      .objectHandle = (uint64_t)(uintptr_t)mem,
      .heapIndex = heap,
   };
   for (uint32_t i = 0; i < report->count; i++)
      report->callbacks[i].callback(&data, report->callbacks[i].user_data);
}

/* Ids of memory that no other process sees: bit 63 set (never an inode
 * number), unique in the process and so in every device. */
static atomic_uint_fast64_t sd_memory_next_id = 1;

static uint64_t
sd_memory_private_id(void)
{
   return (UINT64_C(1) << 63) | atomic_fetch_add(&sd_memory_next_id, 1);
}

/* ---- memfd payloads (opaque fds) ---- */

#define SD_MEMFD_VERSION 1
static const char sd_memfd_magic[8] = { 'S', 'h', 'a', 'l', 'e', 'M', 'e', 'm' };

struct sd_memfd_header {
   char magic[8];
   uint32_t version;
   uint32_t header_bytes;          /* the page size; the payload starts here */
   uint8_t driver_uuid[VK_UUID_SIZE];
   uint8_t device_uuid[VK_UUID_SIZE];
   uint64_t allocation_size;
   uint32_t memory_type_index;
   uint32_t reserved;              /* 0 */
};

#define SD_MEMFD_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

static size_t
sd_page_size(void)
{
   long page = sysconf(_SC_PAGESIZE);
   return page > 0 ? (size_t)page : 4096;
}

/* Bytes of the mapping behind an allocation: whole pages, at least one. */
static size_t
sd_payload_bytes(VkDeviceSize size, size_t page)
{
   return (size_t)sd_align64(size ? size : 1, page);
}

static void
sd_memfd_header_init(struct sd_memfd_header *h, size_t page, VkDeviceSize size, uint32_t type)
{
   memset(h, 0, sizeof(*h));
   memcpy(h->magic, sd_memfd_magic, sizeof(h->magic));
   h->version = SD_MEMFD_VERSION;
   h->header_bytes = (uint32_t)page;
   sd_external_driver_uuid(h->driver_uuid);
   sd_external_device_uuid(h->device_uuid);
   h->allocation_size = size;
   h->memory_type_index = type;
}

static int
sd_memfd_create(void)
{
   /* The raw system call: bionic has no memfd_create() before API 30. */
   return (int)syscall(SYS_memfd_create, "shale-device-memory", MFD_CLOEXEC | MFD_ALLOW_SEALING);
}

/* A new exportable payload: a sealed memfd with its header, mapped. */
static VkResult
sd_memory_create_memfd(struct sd_device_memory *mem)
{
   const size_t page = sd_page_size();
   const size_t payload = sd_payload_bytes(mem->size, page);
   int fd = sd_memfd_create();
   if (fd < 0)
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "memfd_create failed");
   struct sd_memfd_header h;
   sd_memfd_header_init(&h, page, mem->size, mem->type_index);
   if (ftruncate(fd, (off_t)(page + payload)) != 0) {
      close(fd);
      return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY, "memfd: ftruncate failed");
   }
   if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
       fcntl(fd, F_ADD_SEALS, SD_MEMFD_SEALS) != 0) {
      close(fd);
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "memfd: header or seals failed");
   }
   void *data = mmap(NULL, payload, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)page);
   if (data == MAP_FAILED) {
      close(fd);
      return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY, "memfd: mmap failed");
   }
   struct stat st;
   if (fstat(fd, &st) != 0) {
      munmap(data, payload);
      close(fd);
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "memfd: fstat failed");
   }
   mem->fd = fd;
   mem->data = data;
   mem->mapped_size = payload;
   mem->report_id = (uint64_t)st.st_ino;
   return VK_SUCCESS;
}

/* Maps an opaque fd made by sd_memory_create_memfd (here or in another
 * process) after checking that it is one and matches the request. Takes the
 * fd only on success. */
static VkResult
sd_memory_import_memfd(struct sd_device_memory *mem, int fd)
{
   const size_t page = sd_page_size();
   struct stat st;
   int fl = fcntl(fd, F_GETFL);
   if (fl < 0 || (fl & O_ACCMODE) != O_RDWR || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "import: not a read-write file");
   /* Sealed against resizing (and not against writes): only then can the
    * size checked below not change under the mapping. */
   int seals = fcntl(fd, F_GET_SEALS);
   int forbidden = F_SEAL_WRITE;
#ifdef F_SEAL_FUTURE_WRITE
   forbidden |= F_SEAL_FUTURE_WRITE;
#endif
   if (seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW) ||
       (seals & forbidden))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "import: not a sealed Shale memfd");

   struct sd_memfd_header h, want;
   sd_memfd_header_init(&want, page, mem->size, mem->type_index);
   if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
       memcmp(h.magic, want.magic, sizeof(h.magic)) != 0 || h.version != want.version ||
       h.header_bytes != want.header_bytes ||
       memcmp(h.driver_uuid, want.driver_uuid, VK_UUID_SIZE) != 0 ||
       memcmp(h.device_uuid, want.device_uuid, VK_UUID_SIZE) != 0)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "import: not Shale memory of this layout");
   if (h.allocation_size != want.allocation_size || h.memory_type_index != want.memory_type_index)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE,
                       "import: allocationSize or memoryTypeIndex differ from the export's");
   const size_t payload = sd_payload_bytes(mem->size, page);
   if (st.st_size < 0 || (uint64_t)st.st_size != (uint64_t)page + payload)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "import: file size does not match");

   void *data = mmap(NULL, payload, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)page);
   if (data == MAP_FAILED)
      return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY, "import: mmap failed");
   mem->fd = fd;
   mem->imported = true;
   mem->data = data;
   mem->mapped_size = payload;
   mem->report_id = (uint64_t)st.st_ino;
   return VK_SUCCESS;
}

/* Zeroed anonymous pages for a payload of `bytes` (a page multiple). Large
 * payloads start on a 2 MiB boundary and ask for transparent huge pages:
 * shaders walk big buffers and images with strides of many pages (a matrix
 * column, an image column), and with 4 KiB pages a 2048x2048 float matrix
 * alone outgrows the TLB. The kernel may still use small pages; that costs
 * speed, never correctness. */
static void *
sd_map_anonymous(size_t bytes)
{
   const size_t huge = (size_t)2 << 20;
   if (bytes < huge) {
      void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      return p == MAP_FAILED ? NULL : p;
   }
   /* Map one huge page more, then trim both ends to an aligned range. */
   uint8_t *p = mmap(NULL, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
   if (p == MAP_FAILED)
      return NULL;
   uint8_t *aligned = (uint8_t *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
   if (aligned > p)
      munmap(p, (size_t)(aligned - p));
   size_t tail = (size_t)(p + bytes + huge - (aligned + bytes));
   if (tail)
      munmap(aligned + bytes, tail);
#ifdef MADV_HUGEPAGE
   madvise(aligned, bytes, MADV_HUGEPAGE);
#endif
   return aligned;
}

/* A private payload: zeroed anonymous pages (untouched pages cost nothing). */
static VkResult
sd_memory_create_anonymous(struct sd_device_memory *mem)
{
   size_t bytes = sd_payload_bytes(mem->size, sd_page_size());
   void *data = sd_map_anonymous(bytes);
   if (!data)
      return sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);
   mem->data = data;
   mem->mapped_size = bytes;
   mem->report_id = sd_memory_private_id();
   return VK_SUCCESS;
}

/* ---- entry points ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_AllocateMemory(VkDevice _device, const VkMemoryAllocateInfo *pAllocateInfo,
                  const VkAllocationCallbacks *pAllocator, VkDeviceMemory *pMemory)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_physical_device *pdev = device->physical_device;
   const VkMemoryAllocateInfo *info = pAllocateInfo;
   if (info->memoryTypeIndex >= pdev->memory.memoryTypeCount)
      return sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);
   const uint32_t heap = pdev->memory.memoryTypes[info->memoryTypeIndex].heapIndex;

   /* AHardwareBuffers only where the device enabled their extension. */
   const bool ahb_enabled =
      device->enabled_extensions.ANDROID_external_memory_android_hardware_buffer;
   const VkExternalMemoryHandleTypeFlags ahb_type =
      VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID;
   VkExternalMemoryHandleTypeFlags export_types = 0;
   const VkImportMemoryFdInfoKHR *import = NULL;
   struct AHardwareBuffer *ahb_import = NULL;
   sd_foreach_struct(s, info->pNext) {
      switch ((int)s->sType) {
      case VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO:
         export_types |= ((const VkExportMemoryAllocateInfo *)s)->handleTypes;
         break;
      case VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR:
         /* handleType 0: not an import, per the spec. */
         if (((const VkImportMemoryFdInfoKHR *)s)->handleType)
            import = (const VkImportMemoryFdInfoKHR *)s;
         break;
      case VK_STRUCTURE_TYPE_IMPORT_ANDROID_HARDWARE_BUFFER_INFO_ANDROID:
         /* buffer NULL: not an import, per the spec. */
         if (ahb_enabled)
            ahb_import = ((const VkImportAndroidHardwareBufferInfoANDROID *)s)->buffer;
         break;
      default:
         break; /* dedicated allocation info: only AHBs (sd_ahb.c) use it */
      }
   }
   /* All of these are invalid usage (the capability queries say what is
    * supported); refuse them rather than hand out memory that cannot do what
    * was asked. An AHB is never exported together with another type (its
    * compatibleHandleTypes is itself alone). */
   const VkExternalMemoryHandleTypeFlags exportable =
      SD_EXTERNAL_MEMORY_HANDLE_TYPES | (ahb_enabled ? ahb_type : 0);
   if ((export_types & ~exportable) || ((export_types & ahb_type) && export_types != ahb_type))
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "export of an unsupported handle type");
   if (import && import->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "import of an unsupported handle type");
   if (import && ahb_import)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "two imports in one allocation");
   const bool imported = import || ahb_import;
   const bool ahb = ahb_import || (export_types & ahb_type);

   /* From here on every failure of an allocation (not of an import) is
    * reported as ALLOCATION_FAILED. */
   VkResult result;
   if (info->allocationSize > pdev->memory.memoryHeaps[heap].size) {
      result = sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);
      goto fail;
   }
   /* maxMemoryAllocationCount: reserve a slot first, give it back on failure. */
   unsigned count = atomic_fetch_add(&device->memory_allocation_count, 1);
   if (count >= pdev->properties.limits.maxMemoryAllocationCount) {
      result = sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "maxMemoryAllocationCount reached");
      goto fail_count;
   }

   /* An AHardwareBuffer's state follows the struct, in the same allocation. */
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   const size_t mem_bytes = sd_align64(sizeof(struct sd_device_memory), SD_ALIGN_DEFAULT);
   struct sd_device_memory *mem =
      sd_zalloc(alloc, mem_bytes + (ahb ? sd_ahb_memory_bytes() : 0), SD_ALIGN_DEFAULT,
                VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!mem) {
      result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      goto fail_count;
   }
   sd_object_init(&mem->base, VK_OBJECT_TYPE_DEVICE_MEMORY, device);
   mem->size = info->allocationSize;
   mem->type_index = info->memoryTypeIndex;
   mem->fd = -1;
   mem->export_types = export_types;
   /* Device memory is not host memory of the object: pAllocator is for the
    * latter only, so the payload comes from the system (or the platform's
    * gralloc). */
   if (ahb)
      result = sd_ahb_memory_init(device, mem, info, ahb_import, (char *)mem + mem_bytes);
   else if (import)
      result = sd_memory_import_memfd(mem, import->fd);
   else if (export_types)
      result = sd_memory_create_memfd(mem);
   else
      result = sd_memory_create_anonymous(mem);
   if (result != VK_SUCCESS) {
      sd_free(alloc, mem);
      goto fail_count;
   }
   if (ahb)
      mem->report_id = sd_memory_private_id();   /* nothing names an AHB for reports */
   sd_memory_report_event(device,
                          imported ? VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_IMPORT_EXT
                                   : VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATE_EXT,
                          mem->report_id, mem->size, mem, heap);
   *pMemory = sd_device_memory_to_handle(mem);
   return VK_SUCCESS;

fail_count:
   atomic_fetch_sub(&device->memory_allocation_count, 1);
fail:
   if (!imported)
      sd_memory_report_event(device, VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_ALLOCATION_FAILED_EXT, 0,
                             info->allocationSize, NULL, heap);
   return result;
}

VKAPI_ATTR void VKAPI_CALL
sd_FreeMemory(VkDevice _device, VkDeviceMemory _mem, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_device_memory, mem, _mem);
   if (!mem)
      return;
   sd_memory_report_event(device,
                          mem->imported ? VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_UNIMPORT_EXT
                                        : VK_DEVICE_MEMORY_REPORT_EVENT_TYPE_FREE_EXT,
                          mem->report_id, mem->size, mem,
                          device->physical_device->memory.memoryTypes[mem->type_index].heapIndex);
   if (mem->ahb)
      sd_ahb_memory_finish(mem);
   else
      munmap(mem->data, mem->mapped_size);
   if (mem->fd >= 0)
      close(mem->fd);
   sd_free(sd_choose_alloc(pAllocator, &device->alloc), mem);
   atomic_fetch_sub(&device->memory_allocation_count, 1);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetMemoryFdKHR(VkDevice _device, const VkMemoryGetFdInfoKHR *pGetFdInfo, int *pFd)
{
   SD_FROM_HANDLE(sd_device_memory, mem, pGetFdInfo->memory);
   /* Valid usage: the type was among the export types at allocation. */
   if (pGetFdInfo->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT ||
       !(mem->export_types & pGetFdInfo->handleType) || mem->fd < 0)
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "vkGetMemoryFdKHR: memory is not exportable");
   /* Each call a new fd for the same file; the caller owns it. */
   int fd = fcntl(mem->fd, F_DUPFD_CLOEXEC, 0);
   if (fd < 0)
      return sd_error(errno == EMFILE || errno == ENFILE ? VK_ERROR_TOO_MANY_OBJECTS
                                                         : VK_ERROR_OUT_OF_HOST_MEMORY);
   *pFd = fd;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetMemoryFdPropertiesKHR(VkDevice _device, VkExternalMemoryHandleTypeFlagBits handleType, int fd,
                            VkMemoryFdPropertiesKHR *pProps)
{
   /* The spec forbids OPAQUE_FD here (its memory type comes from the
    * export), and Shale imports no other fd type: no fd is importable. */
   pProps->memoryTypeBits = 0;
   return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "no non-opaque fd handle type is supported");
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_MapMemory(VkDevice _device, VkDeviceMemory _mem, VkDeviceSize offset, VkDeviceSize size,
             VkMemoryMapFlags flags, void **ppData)
{
   SD_FROM_HANDLE(sd_device_memory, mem, _mem);
   mem->map = mem->data + offset;
   *ppData = mem->map;
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_UnmapMemory(VkDevice _device, VkDeviceMemory _mem)
{
   SD_FROM_HANDLE(sd_device_memory, mem, _mem);
   mem->map = NULL;
}

/* The "device" reads and writes the same cache-coherent memory the host maps,
 * so flushes and invalidates have nothing to do on any memory type. */
VKAPI_ATTR VkResult VKAPI_CALL
sd_FlushMappedMemoryRanges(VkDevice _device, uint32_t count, const VkMappedMemoryRange *pRanges)
{
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_InvalidateMappedMemoryRanges(VkDevice _device, uint32_t count, const VkMappedMemoryRange *pRanges)
{
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetDeviceMemoryCommitment(VkDevice _device, VkDeviceMemory _mem, VkDeviceSize *pCommitted)
{
   /* No memory type is lazily allocated; the whole size is committed. */
   SD_FROM_HANDLE(sd_device_memory, mem, _mem);
   *pCommitted = mem->size;
}
