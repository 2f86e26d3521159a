/*
 * sd_instance: VkInstance, the global commands, and vkGetInstanceProcAddr.
 *
 * Owns: the instance-level extension list Shale supports, the instance's
 * allocator, its enabled extensions and API version, its dispatch table, and
 * the one physical device (a CPU), created with the instance.
 *
 * Invariants: SD_MAX_API_VERSION is the highest version whose whole core is
 * implemented; vkGet*ProcAddr never return a command above the effective
 * version or of a disabled extension. No layers.
 *
 * Threading: immutable after creation, except through the physical device.
 */
#ifndef SD_INSTANCE_H
#define SD_INSTANCE_H

#include "sd_entrypoints.h"
#include "sd_extensions.h"
#include "sd_object.h"

/* Vulkan 1.1: every 1.1 command and struct (api/version11, api/entrypoints),
 * multiview (render/multiview), subgroups in compute (unit/subgroup).
 * Raised as each version's whole core lands; 1.2 needs the rest of its
 * core (imageless framebuffers are offered as VK_KHR_imageless_framebuffer)
 * offered and tested. */
#define SD_MAX_API_VERSION VK_MAKE_API_VERSION(0, 1, 1, VK_HEADER_VERSION)

struct sd_physical_device;

struct sd_instance {
   struct sd_object base;
   VkAllocationCallbacks alloc;
   uint32_t api_version;        /* min(app's apiVersion, SD_MAX_API_VERSION) */
   struct sd_instance_extension_table enabled_extensions;
   struct sd_dispatch_table dispatch;
   struct sd_physical_device *physical_device;
};

SD_DEFINE_HANDLE_CASTS(sd_instance, base, VkInstance, VK_OBJECT_TYPE_INSTANCE)

/* The instance extensions Shale implements. Read-only after the library
 * loads: the desktop window-system extensions (VK_KHR_surface and the
 * surfaces, swapchains and queries of src/hal/sh_wsi.h) exist only in the
 * desktop ICD, whose load-time constructor calls
 * sd_instance_offer_desktop_wsi(); the Android HAL module never lists them
 * (Android's loader implements surfaces and swapchains itself). */
extern struct sd_instance_extension_table sd_instance_extensions_supported;

/* Offers VK_KHR_surface, VK_EXT_headless_surface,
 * VK_KHR_get_surface_capabilities2, VK_EXT_swapchain_colorspace and the
 * device extension VK_KHR_swapchain. */
void sd_instance_offer_desktop_wsi(void);

#endif
