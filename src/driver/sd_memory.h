/*
 * sd_memory: VkDeviceMemory. Device memory is host memory: an allocation is
 * one page-aligned block that buffers and images bind into, and that
 * vkMapMemory returns a pointer into.
 *
 * Invariants: `data` stays valid for the allocation's whole life (mapping
 * never moves it). The device's allocation count never exceeds
 * maxMemoryAllocationCount; the heap's size bounds a single allocation.
 *
 * Threading: immutable after creation except the map state, which the app
 * synchronizes (vkMapMemory/vkUnmapMemory on one allocation are externally
 * synchronized).
 */
#ifndef SD_MEMORY_H
#define SD_MEMORY_H

#include "sd_object.h"

struct sd_device_memory {
   struct sd_object base;
   uint8_t *data;
   VkDeviceSize size;
   size_t mapped_size;      /* bytes of the anonymous mapping behind data */
   uint32_t type_index;
   void *map;               /* non-NULL while mapped */
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_device_memory, base, VkDeviceMemory, VK_OBJECT_TYPE_DEVICE_MEMORY)

/* Fills VkMemoryDedicatedRequirements in a VkMemoryRequirements2 chain:
 * dedicated allocations are never needed or preferred (all memory is the same
 * host memory). */
void sd_fill_dedicated_requirements(void *pNext);

#endif
