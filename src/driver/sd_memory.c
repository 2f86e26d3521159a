/* VkDeviceMemory: allocation, mapping, flush/invalidate, commitment. */
#include "sd_memory.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_physical_device.h"
#include "sd_util.h"

#define SD_MEMORY_ALIGN 4096 /* the page size; allocations are whole pages */

VKAPI_ATTR VkResult VKAPI_CALL
sd_AllocateMemory(VkDevice _device, const VkMemoryAllocateInfo *pAllocateInfo,
                  const VkAllocationCallbacks *pAllocator, VkDeviceMemory *pMemory)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_physical_device *pdev = device->physical_device;
   if (pAllocateInfo->memoryTypeIndex >= pdev->memory.memoryTypeCount)
      return sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);
   if (pAllocateInfo->allocationSize > pdev->memory.memoryHeaps[0].size)
      return sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);

   /* maxMemoryAllocationCount: reserve a slot first, give it back on failure. */
   unsigned count = atomic_fetch_add(&device->memory_allocation_count, 1);
   if (count >= pdev->properties.limits.maxMemoryAllocationCount) {
      atomic_fetch_sub(&device->memory_allocation_count, 1);
      return sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "maxMemoryAllocationCount reached");
   }

   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   struct sd_device_memory *mem = sd_zalloc(alloc, sizeof(*mem), SD_ALIGN_DEFAULT,
                                            VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!mem) {
      atomic_fetch_sub(&device->memory_allocation_count, 1);
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   }
   sd_object_init(&mem->base, VK_OBJECT_TYPE_DEVICE_MEMORY, device);
   mem->size = pAllocateInfo->allocationSize;
   mem->type_index = pAllocateInfo->memoryTypeIndex;
   /* Device memory is not host memory of the object: pAllocator is for the
    * latter only, so the payload comes from the system, as zeroed anonymous
    * pages (reads before writes are deterministic, untouched pages cost
    * nothing). */
   size_t bytes = (size_t)sd_align64(mem->size ? mem->size : 1, SD_MEMORY_ALIGN);
   void *data = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (data == MAP_FAILED) {
      sd_free(alloc, mem);
      atomic_fetch_sub(&device->memory_allocation_count, 1);
      return sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);
   }
   mem->data = data;
   mem->mapped_size = bytes;
   *pMemory = sd_device_memory_to_handle(mem);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_FreeMemory(VkDevice _device, VkDeviceMemory _mem, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_device_memory, mem, _mem);
   if (!mem)
      return;
   munmap(mem->data, mem->mapped_size);
   sd_free(sd_choose_alloc(pAllocator, &device->alloc), mem);
   atomic_fetch_sub(&device->memory_allocation_count, 1);
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
