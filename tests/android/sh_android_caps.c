/* Loads vulkan.shale.so as Android's loader does and prints what the Android feature XMLs need. */
/*
 * Usage: sh_android_caps path/to/vulkan.shale.so
 * Prints key=value lines (ci/android/gen_feature_xml.py reads them):
 *   device_type, device_name, api_version (decimal VkPhysicalDeviceProperties
 *   ::apiVersion), version_feature (android.hardware.vulkan.version, 0 when
 *   none can be declared), vulkan_level (-1, 0 or 1), and feature.<name>=0|1
 *   for every VkPhysicalDeviceFeatures member a hardware level requires.
 * The encodings come from src/hal/sh_android_levels.c, the same code the unit
 * test checks; the generator recomputes them in Python and refuses to write
 * anything when the two disagree. Exit status 0, or 1 with a message.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <hardware/hwvulkan.h>

#include "hal/sh_android_levels.h"

static int
fail(const char *what)
{
   fprintf(stderr, "sh_android_caps: %s\n", what);
   return 1;
}

int
main(int argc, char **argv)
{
   if (argc != 2) {
      fprintf(stderr, "usage: %s path/to/vulkan.shale.so\n", argv[0]);
      return 2;
   }
   void *dso = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
   if (dso == NULL)
      return fail(dlerror());
   hwvulkan_module_t *hmi = dlsym(dso, HAL_MODULE_INFO_SYM_AS_STR);
   if (hmi == NULL || hmi->common.methods == NULL || hmi->common.methods->open == NULL)
      return fail("no usable HMI");
   hmi->common.dso = dso;
   struct hw_device_t *common = NULL;
   if (hmi->common.methods->open(&hmi->common, HWVULKAN_DEVICE_0, &common) != 0 || !common)
      return fail("open(\"vk0\") failed");
   hwvulkan_device_t *hal = (hwvulkan_device_t *)common;

   const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "sh_android_caps",
      .apiVersion = VK_API_VERSION_1_0,
   };
   const VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
   };
   VkInstance instance = VK_NULL_HANDLE;
   if (hal->CreateInstance(&ici, NULL, &instance) != VK_SUCCESS)
      return fail("vkCreateInstance failed");

   PFN_vkEnumeratePhysicalDevices enumerate = (PFN_vkEnumeratePhysicalDevices)
      hal->GetInstanceProcAddr(instance, "vkEnumeratePhysicalDevices");
   PFN_vkGetPhysicalDeviceProperties get_props = (PFN_vkGetPhysicalDeviceProperties)
      hal->GetInstanceProcAddr(instance, "vkGetPhysicalDeviceProperties");
   PFN_vkGetPhysicalDeviceFeatures get_features = (PFN_vkGetPhysicalDeviceFeatures)
      hal->GetInstanceProcAddr(instance, "vkGetPhysicalDeviceFeatures");
   PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)
      hal->GetInstanceProcAddr(instance, "vkDestroyInstance");
   if (!enumerate || !get_props || !get_features || !destroy)
      return fail("missing a core instance command");

   /* Shale has one physical device; Android's feature XMLs describe the
    * best one, so take the first. */
   uint32_t count = 1;
   VkPhysicalDevice pdev = VK_NULL_HANDLE;
   VkResult r = enumerate(instance, &count, &pdev);
   if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0 || pdev == VK_NULL_HANDLE)
      return fail("no physical device");

   VkPhysicalDeviceProperties props;
   VkPhysicalDeviceFeatures features;
   memset(&props, 0, sizeof(props));
   memset(&features, 0, sizeof(features));
   get_props(pdev, &props);
   get_features(pdev, &features);

   printf("device_type=%d\n", (int)props.deviceType);
   printf("device_name=%.*s\n", VK_MAX_PHYSICAL_DEVICE_NAME_SIZE, props.deviceName);
   printf("api_version=%u\n", props.apiVersion);
   printf("version_feature=%u\n", sh_android_vulkan_version_feature(props.apiVersion));
   printf("vulkan_level=%d\n", sh_android_vulkan_level(&features));
   for (size_t i = 0; i < sh_android_level_requirement_count; i++) {
      const struct sh_android_level_requirement *req = &sh_android_level_requirements[i];
      const VkBool32 *v = (const VkBool32 *)((const char *)&features + req->offset);
      printf("feature.%s=%d\n", req->name, *v ? 1 : 0);
   }

   destroy(instance, NULL);
   hal->common.close(&hal->common);
   /* Android never unloads the HAL; neither do we. */
   return fflush(stdout) == 0 ? 0 : 1;
}
