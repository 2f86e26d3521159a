/*
 * Private data (VK_EXT_private_data, core in Vulkan 1.3): a
 * VkPrivateDataSlot is a table of (object type, handle) -> 64-bit value.
 *
 * Owns: struct sd_private_data_slot and its table, allocated with the
 * callbacks the slot was created with (else the device's).
 *
 * Invariants: the table is open addressing with linear probing over a power
 * of two of entries, at most half full; an entry is free when its handle is
 * 0 (no valid handle is 0). Entries are never removed (a value of 0 is what
 * an unset pair reads anyway); the table goes with the slot.
 *
 * Threading: vkSetPrivateData and vkGetPrivateData may run on any threads at
 * once for one slot (the spec synchronizes neither), so the slot's mutex
 * covers every table access.
 */
#include <pthread.h>
#include <string.h>

#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_entrypoints.h"
#include "sd_object.h"
#include "sd_util.h"

struct sd_private_entry {
   uint64_t handle;
   uint64_t value;
   VkObjectType type;
};

struct sd_private_data_slot {
   struct sd_object base;
   VkAllocationCallbacks alloc;
   pthread_mutex_t lock;
   struct sd_private_entry *entries;
   uint32_t capacity;   /* 0 or a power of two */
   uint32_t count;
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_private_data_slot, base, VkPrivateDataSlot,
                               VK_OBJECT_TYPE_PRIVATE_DATA_SLOT)

static uint32_t
sd_private_hash(uint64_t handle, VkObjectType type)
{
   uint64_t h = (handle ^ ((uint64_t)type << 56)) * 0x9E3779B97F4A7C15ull;
   return (uint32_t)(h >> 32);
}

/* The entry of (type, handle), or the free entry where it would go. */
static struct sd_private_entry *
sd_private_find(struct sd_private_entry *entries, uint32_t capacity, uint64_t handle,
                VkObjectType type)
{
   uint32_t mask = capacity - 1;
   for (uint32_t i = sd_private_hash(handle, type) & mask;; i = (i + 1) & mask) {
      struct sd_private_entry *e = &entries[i];
      if (!e->handle || (e->handle == handle && e->type == type))
         return e;
   }
}

/* Doubles the table (or makes the first one); false when out of memory. */
static bool
sd_private_grow(struct sd_private_data_slot *slot)
{
   uint32_t capacity = slot->capacity ? slot->capacity * 2 : 64;
   struct sd_private_entry *entries =
      sd_zalloc(&slot->alloc, (size_t)capacity * sizeof(*entries), SD_ALIGN_DEFAULT,
                VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!entries)
      return false;
   for (uint32_t i = 0; i < slot->capacity; i++) {
      const struct sd_private_entry *e = &slot->entries[i];
      if (e->handle)
         *sd_private_find(entries, capacity, e->handle, e->type) = *e;
   }
   sd_free(&slot->alloc, slot->entries);
   slot->entries = entries;
   slot->capacity = capacity;
   return true;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreatePrivateDataSlot(VkDevice _device, const VkPrivateDataSlotCreateInfo *pCreateInfo,
                         const VkAllocationCallbacks *pAllocator,
                         VkPrivateDataSlot *pPrivateDataSlot)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_private_data_slot *slot = sd_device_object_alloc(
      device, pAllocator, sizeof(*slot), VK_OBJECT_TYPE_PRIVATE_DATA_SLOT);
   if (!slot)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   slot->alloc = *sd_choose_alloc(pAllocator, &device->alloc);
   pthread_mutex_init(&slot->lock, NULL);
   *pPrivateDataSlot = sd_private_data_slot_to_handle(slot);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyPrivateDataSlot(VkDevice _device, VkPrivateDataSlot privateDataSlot,
                          const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_private_data_slot, slot, privateDataSlot);
   if (!slot)
      return;
   sd_free(&slot->alloc, slot->entries);
   pthread_mutex_destroy(&slot->lock);
   sd_device_object_free(device, pAllocator, slot);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_SetPrivateData(VkDevice _device, VkObjectType objectType, uint64_t objectHandle,
                  VkPrivateDataSlot privateDataSlot, uint64_t data)
{
   SD_FROM_HANDLE(sd_private_data_slot, slot, privateDataSlot);
   VkResult result = VK_SUCCESS;
   pthread_mutex_lock(&slot->lock);
   if ((slot->count + 1) * 2 > slot->capacity && !sd_private_grow(slot)) {
      result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   } else {
      struct sd_private_entry *e =
         sd_private_find(slot->entries, slot->capacity, objectHandle, objectType);
      if (!e->handle) {
         e->handle = objectHandle;
         e->type = objectType;
         slot->count++;
      }
      e->value = data;
   }
   pthread_mutex_unlock(&slot->lock);
   return result;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPrivateData(VkDevice _device, VkObjectType objectType, uint64_t objectHandle,
                  VkPrivateDataSlot privateDataSlot, uint64_t *pData)
{
   SD_FROM_HANDLE(sd_private_data_slot, slot, privateDataSlot);
   *pData = 0;
   pthread_mutex_lock(&slot->lock);
   if (slot->capacity) {
      const struct sd_private_entry *e =
         sd_private_find(slot->entries, slot->capacity, objectHandle, objectType);
      if (e->handle)
         *pData = e->value;
   }
   pthread_mutex_unlock(&slot->lock);
}
