/* Desktop ICD exports: the three symbols the Khronos loader looks up. */
#include "driver/sd_entrypoints.h"
#include "driver/sd_util.h"

#define SH_EXPORT __attribute__((visibility("default")))

/* Loader interface 5: the loader calls vk_icdGetPhysicalDeviceProcAddr for
 * unknown physical-device commands, and the application's apiVersion is
 * passed through (a 1.0 driver may reject higher versions). */
#define SH_ICD_INTERFACE_VERSION 5

SH_EXPORT VKAPI_ATTR VkResult VKAPI_CALL
vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pSupportedVersion);
SH_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vk_icdGetInstanceProcAddr(VkInstance instance, const char *pName);
SH_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vk_icdGetPhysicalDeviceProcAddr(VkInstance instance, const char *pName);

VKAPI_ATTR VkResult VKAPI_CALL
vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pSupportedVersion)
{
   if (*pSupportedVersion > SH_ICD_INTERFACE_VERSION)
      *pSupportedVersion = SH_ICD_INTERFACE_VERSION;
   return VK_SUCCESS;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vk_icdGetInstanceProcAddr(VkInstance instance, const char *pName)
{
   return sd_GetInstanceProcAddr(instance, pName);
}

/* Physical-device-level commands by name, for the loader's trampolines; NULL
 * for anything else or anything Shale does not implement. */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
vk_icdGetPhysicalDeviceProcAddr(VkInstance instance, const char *pName)
{
   int idx = sd_entrypoint_lookup(pName);
   if (idx < 0 || sd_entrypoint_level(idx) != SD_LEVEL_PHYSICAL_DEVICE)
      return NULL;
   return sd_entrypoint_impl(idx);
}
