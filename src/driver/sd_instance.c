/* VkInstance: global commands, instance creation, vkGetInstanceProcAddr. */
#include "sd_instance.h"

#include <string.h>

#include "sd_alloc.h"
#include "sd_physical_device.h"
#include "sd_util.h"

struct sd_instance_extension_table sd_instance_extensions_supported = {
   .KHR_get_physical_device_properties2 = true,
   .KHR_external_memory_capabilities = true,
   .KHR_external_semaphore_capabilities = true,
   .KHR_external_fence_capabilities = true,
};

void
sd_instance_offer_desktop_wsi(void)
{
   sd_instance_extensions_supported.KHR_surface = true;
   sd_instance_extensions_supported.EXT_headless_surface = true;
   sd_instance_extensions_supported.KHR_get_surface_capabilities2 = true;
   sd_instance_extensions_supported.EXT_swapchain_colorspace = true;
   sd_device_extensions_supported.KHR_swapchain = true;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumerateInstanceExtensionProperties(const char *pLayerName, uint32_t *pPropertyCount,
                                        VkExtensionProperties *pProperties)
{
   if (pLayerName)
      return sd_error(VK_ERROR_LAYER_NOT_PRESENT);
   struct sd_outarray out;
   sd_outarray_init(&out, pProperties, sizeof(*pProperties), pPropertyCount);
   for (int i = 0; i < SD_INSTANCE_EXTENSION_COUNT; i++) {
      if (!sd_instance_extensions_supported.ext[i])
         continue;
      VkExtensionProperties *p = sd_outarray_append(&out);
      if (p)
         *p = sd_instance_extension_props[i];
   }
   return sd_outarray_status(&out);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumerateInstanceLayerProperties(uint32_t *pPropertyCount, VkLayerProperties *pProperties)
{
   *pPropertyCount = 0;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumerateInstanceVersion(uint32_t *pApiVersion)
{
   *pApiVersion = SD_MAX_API_VERSION;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateInstance(const VkInstanceCreateInfo *pCreateInfo, const VkAllocationCallbacks *pAllocator,
                  VkInstance *pInstance)
{
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, NULL);
   uint32_t app_version = VK_API_VERSION_1_0;
   if (pCreateInfo->pApplicationInfo && pCreateInfo->pApplicationInfo->apiVersion)
      app_version = pCreateInfo->pApplicationInfo->apiVersion;
   /* Any apiVersion is accepted (loader-ICD interface 5 requires it, and so
    * does the spec for 1.1+ implementations); the instance runs at
    * min(requested, SD_MAX_API_VERSION). */
   if (pCreateInfo->enabledLayerCount)
      return sd_error(VK_ERROR_LAYER_NOT_PRESENT);

   struct sd_instance_extension_table enabled = { 0 };
   for (uint32_t i = 0; i < pCreateInfo->enabledExtensionCount; i++) {
      int idx = sd_instance_extension_index(pCreateInfo->ppEnabledExtensionNames[i]);
      if (idx < 0 || !sd_instance_extensions_supported.ext[idx])
         return sd_error(VK_ERROR_EXTENSION_NOT_PRESENT);
      enabled.ext[idx] = true;
   }

   struct sd_instance *instance = sd_zalloc(alloc, sizeof(*instance), SD_ALIGN_DEFAULT,
                                            VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
   if (!instance)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&instance->base, VK_OBJECT_TYPE_INSTANCE, NULL);
   instance->alloc = *alloc;
   instance->api_version = app_version < SD_MAX_API_VERSION ? app_version : SD_MAX_API_VERSION;
   instance->enabled_extensions = enabled;
   sd_dispatch_table_init(&instance->dispatch,
                          (1u << SD_LEVEL_INSTANCE) | (1u << SD_LEVEL_PHYSICAL_DEVICE) |
                             (1u << SD_LEVEL_DEVICE),
                          instance->api_version, &instance->enabled_extensions,
                          &sd_device_extensions_supported);

   VkResult result = sd_physical_device_create(instance, &instance->physical_device);
   if (result != VK_SUCCESS) {
      sd_free(&instance->alloc, instance);
      return result;
   }
   *pInstance = sd_instance_to_handle(instance);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyInstance(VkInstance _instance, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   if (!instance)
      return;
   sd_physical_device_destroy(instance->physical_device);
   VkAllocationCallbacks alloc = instance->alloc;
   sd_free(&alloc, instance);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumeratePhysicalDevices(VkInstance _instance, uint32_t *pPhysicalDeviceCount,
                            VkPhysicalDevice *pPhysicalDevices)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   struct sd_outarray out;
   sd_outarray_init(&out, pPhysicalDevices, sizeof(*pPhysicalDevices), pPhysicalDeviceCount);
   VkPhysicalDevice *p = sd_outarray_append(&out);
   if (p)
      *p = sd_physical_device_to_handle(instance->physical_device);
   return sd_outarray_status(&out);
}

/* Vulkan 1.1: one group holding the one physical device; a single device
 * cannot allocate subsets of a group. */
VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumeratePhysicalDeviceGroups(VkInstance _instance, uint32_t *pPhysicalDeviceGroupCount,
                                 VkPhysicalDeviceGroupProperties *pPhysicalDeviceGroupProperties)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   struct sd_outarray out;
   sd_outarray_init(&out, pPhysicalDeviceGroupProperties, sizeof(*pPhysicalDeviceGroupProperties),
                    pPhysicalDeviceGroupCount);
   VkPhysicalDeviceGroupProperties *p = sd_outarray_append(&out);
   if (p) {
      p->physicalDeviceCount = 1;
      memset(p->physicalDevices, 0, sizeof(p->physicalDevices));
      p->physicalDevices[0] = sd_physical_device_to_handle(instance->physical_device);
      p->subsetAllocation = VK_FALSE;
   }
   return sd_outarray_status(&out);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
sd_GetInstanceProcAddr(VkInstance _instance, const char *pName)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   /* vkGetInstanceProcAddr itself is valid with or without an instance. */
   if (pName && strcmp(pName, "vkGetInstanceProcAddr") == 0)
      return (PFN_vkVoidFunction)sd_GetInstanceProcAddr;
   int idx = sd_entrypoint_lookup(pName);
   if (idx < 0)
      return NULL;
   if (!instance) {
      /* Without an instance only the global commands exist; the implementation's
       * own version gates vkEnumerateInstanceVersion. */
      if (sd_entrypoint_level(idx) != SD_LEVEL_GLOBAL ||
          !sd_entrypoint_enabled(idx, SD_MAX_API_VERSION, NULL, NULL))
         return NULL;
      return sd_entrypoint_impl(idx);
   }
   /* Global commands are not returned for an instance (the spec's table). */
   return instance->dispatch.ep[idx];
}
