/*
 * hardware/hwvulkan.h: the Android Vulkan HAL ABI (module id "vulkan",
 * device "vk0", dispatch magic), written for Shale from the ABI facts.
 *
 * Owns: types and constants only. Android's loader dlopens
 * vulkan.<ro.hardware.vulkan>.so, reads HMI (a hwvulkan_module_t), calls
 * methods->open(&HMI.common, HWVULKAN_DEVICE_0, &dev) once per process and
 * then reaches the driver only through the three functions of the returned
 * hwvulkan_device_t and the GetInstanceProcAddr/GetDeviceProcAddr they lead to.
 *
 * Invariants: every dispatchable object the driver returns (VkInstance,
 * VkPhysicalDevice, VkDevice, VkQueue, VkCommandBuffer) begins with a
 * hwvulkan_dispatch_t whose `magic` is HWVULKAN_DISPATCH_MAGIC when the
 * creating call returns; the loader then overwrites it with its own table
 * pointer and the driver never reads or writes that word again. The value is
 * the desktop loader's ICD_LOADER_MAGIC, so one object layout serves both.
 *
 * Threading: plain data.
 */
#ifndef SHALE_HARDWARE_HWVULKAN_H
#define SHALE_HARDWARE_HWVULKAN_H

#include <stdint.h>
#include <hardware/hardware.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HWVULKAN_HARDWARE_MODULE_ID "vulkan"
#define HWVULKAN_DEVICE_0 "vk0"

#define HWVULKAN_MODULE_API_VERSION_0_1 HARDWARE_MODULE_API_VERSION(0, 1) /* 0x0001 */
#define HWVULKAN_DEVICE_API_VERSION_0_1 HARDWARE_DEVICE_API_VERSION_2(0, 1, 0) /* 0x00010000 */

#define HWVULKAN_DISPATCH_MAGIC 0x01CDC0DEu

/* The first word of every dispatchable object. */
typedef union {
   uintptr_t magic;   /* HWVULKAN_DISPATCH_MAGIC until the loader takes over */
   const void *vtbl;  /* the loader's table afterwards */
} hwvulkan_dispatch_t;

typedef struct hwvulkan_module_t {
   struct hw_module_t common;
} hwvulkan_module_t;

typedef struct hwvulkan_device_t {
   struct hw_device_t common;
   PFN_vkEnumerateInstanceExtensionProperties EnumerateInstanceExtensionProperties;
   PFN_vkCreateInstance CreateInstance;
   PFN_vkGetInstanceProcAddr GetInstanceProcAddr;
} hwvulkan_device_t;

SH_ABI_ASSERT(sizeof(hwvulkan_dispatch_t) == sizeof(void *), "dispatch slot is one word");
SH_ABI_ASSERT(sizeof(hwvulkan_module_t) == sizeof(hw_module_t), "hwvulkan_module_t ABI");
SH_ABI_ASSERT(offsetof(hwvulkan_device_t, EnumerateInstanceExtensionProperties) ==
              sizeof(hw_device_t), "hwvulkan_device_t ABI");
SH_ABI_ASSERT(offsetof(hwvulkan_device_t, CreateInstance) ==
              sizeof(hw_device_t) + sizeof(void *), "hwvulkan_device_t ABI");
SH_ABI_ASSERT(offsetof(hwvulkan_device_t, GetInstanceProcAddr) ==
              sizeof(hw_device_t) + 2 * sizeof(void *), "hwvulkan_device_t ABI");
SH_ABI_ASSERT(sizeof(hwvulkan_device_t) == sizeof(hw_device_t) + 3 * sizeof(void *),
              "hwvulkan_device_t ABI");
SH_ABI_ASSERT(HWVULKAN_MODULE_API_VERSION_0_1 == 0x0001, "module API 0.1");
SH_ABI_ASSERT(HWVULKAN_DEVICE_API_VERSION_0_1 == 0x00010000u, "device API 0.1.0");

#ifdef __cplusplus
}
#endif

#endif
