/* Android Vulkan HAL module: HMI, the only symbol vulkan.shale.so exports. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <hardware/hwvulkan.h>

#include "driver/sd_ahb.h"
#include "driver/sd_entrypoints.h"
#include "driver/sd_physical_device.h"

#define SH_EXPORT __attribute__((visibility("default")))

static int sh_hal_open(const struct hw_module_t *module, const char *id,
                       struct hw_device_t **device);
static int sh_hal_close(struct hw_device_t *device);

static struct hw_module_methods_t sh_hal_methods = {
   .open = sh_hal_open,
};

/* Not const: Android's hw_get_module() stores the dlopen() handle in
 * HMI.common.dso. */
SH_EXPORT hwvulkan_module_t HAL_MODULE_INFO_SYM;

hwvulkan_module_t HAL_MODULE_INFO_SYM = {
   .common = {
      .tag = HARDWARE_MODULE_TAG,
      .module_api_version = HWVULKAN_MODULE_API_VERSION_0_1,
      .hal_api_version = HARDWARE_HAL_API_VERSION,
      .id = HWVULKAN_HARDWARE_MODULE_ID,
      .name = "Shale Vulkan driver (CPU)",
      .author = "The Shale authors",
      .methods = &sh_hal_methods,
   },
};

/* One device for the whole process: open() is called once, and the device
 * owns nothing; everything real is allocated by vkCreateInstance. */
static hwvulkan_device_t sh_hal_device = {
   .common = {
      .tag = HARDWARE_DEVICE_TAG,
      .version = HWVULKAN_DEVICE_API_VERSION_0_1,
      .module = &HAL_MODULE_INFO_SYM.common,
      .close = sh_hal_close,
   },
   .EnumerateInstanceExtensionProperties = sd_EnumerateInstanceExtensionProperties,
   .CreateInstance = sd_CreateInstance,
   .GetInstanceProcAddr = sd_GetInstanceProcAddr,
};

static int
sh_hal_open(const struct hw_module_t *module, const char *id,
            struct hw_device_t **device)
{
   if (device == NULL)
      return -EINVAL;
   if (module != &HAL_MODULE_INFO_SYM.common || id == NULL ||
       strcmp(id, HWVULKAN_DEVICE_0) != 0) {
      *device = NULL;
      return -EINVAL;
   }
   *device = &sh_hal_device.common;
   return 0;
}

static int
sh_hal_close(struct hw_device_t *device)
{
   /* Nothing to free: the device is static. */
   return device == &sh_hal_device.common ? 0 : -EINVAL;
}

/* The Android loader builds VK_KHR_swapchain on VK_ANDROID_native_buffer,
 * and AHardwareBuffers exist only on Android: this module, and only this
 * one, offers both extensions. Runs when the module loads, before any
 * instance exists. */
__attribute__((constructor)) static void
sh_hal_offer_native_buffer(void)
{
   sd_physical_device_offer_android_native_buffer();
   sd_ahb_offer();
}
