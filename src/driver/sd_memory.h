/*
 * sd_memory: VkDeviceMemory. Device memory is host memory: an allocation is
 * one page-aligned block that buffers and images bind into, and that
 * vkMapMemory returns a pointer into.
 *
 * Backing: an allocation that nobody outside the device will see is
 * anonymous private memory (no file descriptor: maxMemoryAllocationCount is
 * 32768, far above a process's usual fd limit of 1024). One created with
 * VkExportMemoryAllocateInfo (OPAQUE_FD) is a memfd, kept open for the
 * allocation's life so vkGetMemoryFdKHR can hand out a dup of it each call;
 * the payload is a MAP_SHARED mapping of it, so every process and device that
 * imports it sees the same bytes. Both read as zero until written.
 *
 * Opaque fd (a memfd made by sd_memory.c): the file is
 *   [header page][payload: allocationSize rounded up to whole pages]
 * where the header page (the system page size; the payload mapping's offset)
 * starts with struct sd_memfd_header: magic "ShaleMem", version 1, the page
 * size, driverUUID, deviceUUID, allocationSize, memoryTypeIndex (native byte
 * order; both UUIDs pin it). The file is sealed against growing and
 * shrinking (and against more seals) before its first export, so an importer
 * that checked the size can never fault on a truncated file. An import checks
 * every field against the request (the spec requires the same allocationSize
 * and memoryTypeIndex as the export) and the seals, the file size and the
 * access mode, and returns VK_ERROR_INVALID_EXTERNAL_HANDLE (leaving the fd
 * with the application) on any mismatch; on success the driver owns the fd
 * and closes it when the memory is freed.
 *
 * AHardwareBuffers (VK_ANDROID_external_memory_android_hardware_buffer,
 * sd_ahb.h): memory imported from an AHB, or allocated with the AHB type in
 * VkExportMemoryAllocateInfo, is the buffer's CPU mapping (zero copy); its
 * state lives after the struct in the memory's own allocation (`ahb`), and
 * vkFreeMemory releases the memory's one reference to the buffer. Its
 * payload is not a mapping of ours (mapped_size 0, fd -1).
 *
 * Memory report (VK_EXT_device_memory_report): every vkAllocateMemory reports
 * ALLOCATE or IMPORT on success and ALLOCATION_FAILED on a failed allocation
 * (not on a failed import: there is no event for it); vkFreeMemory reports
 * FREE or UNIMPORT. objectType VK_OBJECT_TYPE_DEVICE_MEMORY, objectHandle the
 * VkDeviceMemory (0 when it failed), size the allocationSize, heapIndex the
 * type's heap. memoryObjectId: for a memfd (exportable or imported) its inode
 * number, unique system-wide while it lives and the same in every process
 * and device that shares it (so nobody counts it twice); otherwise bit 63 set
 * over a process-wide counter (inode numbers never set bit 63). Nothing else
 * in Shale is device memory: every other object lives in host memory that
 * VkAllocationCallbacks already accounts for.
 *
 * Invariants: `data` stays valid for the allocation's whole life (mapping
 * never moves it). The device's allocation count never exceeds
 * maxMemoryAllocationCount; the heap's size bounds a single allocation.
 * fd >= 0 exactly when the allocation is a memfd; ahb != NULL exactly when
 * it is an AHardwareBuffer (then fd is -1).
 *
 * Threading: immutable after creation except the map state, which the app
 * synchronizes (vkMapMemory/vkUnmapMemory on one allocation are externally
 * synchronized). Report callbacks are immutable after device creation and
 * are called on the thread of the vkAllocateMemory/vkFreeMemory call.
 */
#ifndef SD_MEMORY_H
#define SD_MEMORY_H

#include <stdbool.h>

#include "sd_object.h"

struct sd_ahb_memory;

struct sd_device_memory {
   struct sd_object base;
   uint8_t *data;
   VkDeviceSize size;
   size_t mapped_size;      /* bytes of the mapping behind data */
   uint32_t type_index;
   void *map;               /* non-NULL while mapped */
   int fd;                  /* the memfd (exportable or imported), or -1 */
   bool imported;
   VkExternalMemoryHandleTypeFlags export_types;
   uint64_t report_id;      /* memoryObjectId of the memory report */
   struct sd_ahb_memory *ahb;   /* AHardwareBuffer state (sd_ahb.h), or NULL */
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_device_memory, base, VkDeviceMemory, VK_OBJECT_TYPE_DEVICE_MEMORY)

/* Fills VkMemoryDedicatedRequirements in a VkMemoryRequirements2 chain:
 * dedicated allocations are never needed or preferred (all memory is the same
 * host memory). */
void sd_fill_dedicated_requirements(void *pNext);

/* The device's VK_EXT_device_memory_report callbacks, in the order of the
 * VkDeviceDeviceMemoryReportCreateInfoEXT structs in VkDeviceCreateInfo's
 * chain (empty unless the extension is enabled). */
struct sd_memory_report_callback {
   PFN_vkDeviceMemoryReportCallbackEXT callback;
   void *user_data;
};

struct sd_memory_report {
   uint32_t count;
   const struct sd_memory_report_callback *callbacks;
};

/* How many callbacks VkDeviceCreateInfo registers (0 unless the extension is
 * among the enabled ones, as the caller tells). */
uint32_t sd_memory_report_count(const VkDeviceCreateInfo *info, bool enabled);
/* Copies them into `storage` (room for sd_memory_report_count) and points
 * `report` at it. */
void sd_memory_report_init(struct sd_memory_report *report,
                           struct sd_memory_report_callback *storage,
                           const VkDeviceCreateInfo *info, bool enabled);

/* The device's callbacks: sd_device.c keeps them in the device's own
 * allocation. */
const struct sd_memory_report *sd_device_memory_report(const struct sd_device *device);

#endif
