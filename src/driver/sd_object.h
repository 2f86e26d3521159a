/*
 * sd_object: the base every Vulkan object embeds first, and typed handle casts.
 *
 * Owns: struct sd_object (loader dispatch slot, VkObjectType, debug name) and
 * the SD_DEFINE_*_HANDLE_CASTS macros.
 *
 * Invariants: the loader slot is the first word of every dispatchable object
 * (VkInstance, VkPhysicalDevice, VkDevice, VkQueue, VkCommandBuffer). Creation
 * sets it to SD_LOADER_MAGIC (0x01CDC0DE), the value both the Khronos loader
 * (ICD_LOADER_MAGIC) and Android's loader (HWVULKAN_DISPATCH_MAGIC) check and
 * then overwrite with their own dispatch table. Non-dispatchable handles are
 * the object pointer as a uint64_t. Debug builds assert the object type on
 * every cast.
 *
 * Threading: objects follow Vulkan's external synchronization rules; the base
 * has no locks. The debug name is set by vkSetDebugUtilsObjectNameEXT (not yet
 * exposed) and freed with the object.
 */
#ifndef SD_OBJECT_H
#define SD_OBJECT_H

#include <assert.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#define SD_LOADER_MAGIC 0x01CDC0DEu

struct sd_device;

struct sd_object {
   uintptr_t loader_data;      /* first word: the loaders' dispatch slot */
   VkObjectType type;
   struct sd_device *device;   /* owning device, NULL for instance-level objects */
   char *name;                 /* debug-utils name, or NULL */
};

static inline void
sd_object_init(struct sd_object *obj, VkObjectType type, struct sd_device *device)
{
   obj->loader_data = SD_LOADER_MAGIC;
   obj->type = type;
   obj->device = device;
   obj->name = NULL;
}

#define SD_DEFINE_HANDLE_CASTS(__sd_type, __base, __VkType, __VK_TYPE)              \
   static inline struct __sd_type *__sd_type##_from_handle(__VkType h)               \
   {                                                                                 \
      struct __sd_type *o = (struct __sd_type *)h;                                   \
      assert(!o || o->__base.type == __VK_TYPE);                                     \
      return o;                                                                      \
   }                                                                                 \
   static inline __VkType __sd_type##_to_handle(struct __sd_type *o)                 \
   {                                                                                 \
      return (__VkType)o;                                                            \
   }

#define SD_DEFINE_NONDISP_HANDLE_CASTS(__sd_type, __base, __VkType, __VK_TYPE)      \
   static inline struct __sd_type *__sd_type##_from_handle(__VkType h)               \
   {                                                                                 \
      struct __sd_type *o = (struct __sd_type *)(uintptr_t)h;                        \
      assert(!o || o->__base.type == __VK_TYPE);                                     \
      return o;                                                                      \
   }                                                                                 \
   static inline __VkType __sd_type##_to_handle(struct __sd_type *o)                 \
   {                                                                                 \
      return (__VkType)(uintptr_t)o;                                                 \
   }

#define SD_FROM_HANDLE(__sd_type, __name, __handle)                                  \
   struct __sd_type *__name = __sd_type##_from_handle(__handle)

#endif
