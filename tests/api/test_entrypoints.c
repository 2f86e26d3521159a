/* The ICD's vkGet*ProcAddr tables, from libvulkan_shale.so directly: spec rules, completeness. */
/*
 * The driver is dlopen'ed directly (no loader, no layer): argv[1], else
 * $SHALE_ICD_PATH, else the build tree's src/hal/libvulkan_shale.so found
 * from this program's own path. Checked:
 *  - the loader-ICD interface: the three exports and version negotiation;
 *  - vkGetInstanceProcAddr, the spec's table: NULL instance gives the global
 *    commands and vkGetInstanceProcAddr, nothing else; an instance gives its
 *    version's core commands, its enabled instance extensions' commands and
 *    available device extensions' commands, never global commands;
 *  - vkGetDeviceProcAddr: device-level commands of the device's version and
 *    of enabled extensions only;
 *  - vk_icdGetPhysicalDeviceProcAddr: physical-device commands only;
 *  - dispatchable handles carry the loader magic in their first word;
 *  - completeness: every core command of the reported version is non-NULL,
 *    except the committed list of known gaps, which must stay true (a listed
 *    command that is now implemented fails the test until it is removed).
 * Commands of versions above the instance's or device's are NULL on both
 * lookups (the spec for vkGetDeviceProcAddr; the driver's design for
 * vkGetInstanceProcAddr).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include "check.h"

#define EP_LOADER_MAGIC 0x01CDC0DEu

enum ep_level { EP_GLOBAL, EP_INSTANCE, EP_PHYSICAL, EP_DEVICE };

struct ep_core {
   const char *name;
   enum ep_level level;
};

/* Core commands by version, from vk.xml (<feature name="VK_VERSION_1_x">),
 * level from the first parameter (global: no dispatchable parameter). */
/* VK_VERSION_1_0: 137 commands */
static const struct ep_core ep_core_1_0[] = {
   { "vkCreateInstance", EP_GLOBAL },
   { "vkDestroyInstance", EP_INSTANCE },
   { "vkEnumeratePhysicalDevices", EP_INSTANCE },
   { "vkGetPhysicalDeviceFeatures", EP_PHYSICAL },
   { "vkGetPhysicalDeviceFormatProperties", EP_PHYSICAL },
   { "vkGetPhysicalDeviceImageFormatProperties", EP_PHYSICAL },
   { "vkGetPhysicalDeviceProperties", EP_PHYSICAL },
   { "vkGetPhysicalDeviceQueueFamilyProperties", EP_PHYSICAL },
   { "vkGetPhysicalDeviceMemoryProperties", EP_PHYSICAL },
   { "vkGetInstanceProcAddr", EP_INSTANCE },
   { "vkGetDeviceProcAddr", EP_DEVICE },
   { "vkCreateDevice", EP_PHYSICAL },
   { "vkDestroyDevice", EP_DEVICE },
   { "vkEnumerateInstanceExtensionProperties", EP_GLOBAL },
   { "vkEnumerateDeviceExtensionProperties", EP_PHYSICAL },
   { "vkEnumerateInstanceLayerProperties", EP_GLOBAL },
   { "vkEnumerateDeviceLayerProperties", EP_PHYSICAL },
   { "vkGetDeviceQueue", EP_DEVICE },
   { "vkQueueSubmit", EP_DEVICE },
   { "vkQueueWaitIdle", EP_DEVICE },
   { "vkDeviceWaitIdle", EP_DEVICE },
   { "vkAllocateMemory", EP_DEVICE },
   { "vkFreeMemory", EP_DEVICE },
   { "vkMapMemory", EP_DEVICE },
   { "vkUnmapMemory", EP_DEVICE },
   { "vkFlushMappedMemoryRanges", EP_DEVICE },
   { "vkInvalidateMappedMemoryRanges", EP_DEVICE },
   { "vkGetDeviceMemoryCommitment", EP_DEVICE },
   { "vkBindBufferMemory", EP_DEVICE },
   { "vkBindImageMemory", EP_DEVICE },
   { "vkGetBufferMemoryRequirements", EP_DEVICE },
   { "vkGetImageMemoryRequirements", EP_DEVICE },
   { "vkGetImageSparseMemoryRequirements", EP_DEVICE },
   { "vkGetPhysicalDeviceSparseImageFormatProperties", EP_PHYSICAL },
   { "vkQueueBindSparse", EP_DEVICE },
   { "vkCreateFence", EP_DEVICE },
   { "vkDestroyFence", EP_DEVICE },
   { "vkResetFences", EP_DEVICE },
   { "vkGetFenceStatus", EP_DEVICE },
   { "vkWaitForFences", EP_DEVICE },
   { "vkCreateSemaphore", EP_DEVICE },
   { "vkDestroySemaphore", EP_DEVICE },
   { "vkCreateEvent", EP_DEVICE },
   { "vkDestroyEvent", EP_DEVICE },
   { "vkGetEventStatus", EP_DEVICE },
   { "vkSetEvent", EP_DEVICE },
   { "vkResetEvent", EP_DEVICE },
   { "vkCreateQueryPool", EP_DEVICE },
   { "vkDestroyQueryPool", EP_DEVICE },
   { "vkGetQueryPoolResults", EP_DEVICE },
   { "vkCreateBuffer", EP_DEVICE },
   { "vkDestroyBuffer", EP_DEVICE },
   { "vkCreateBufferView", EP_DEVICE },
   { "vkDestroyBufferView", EP_DEVICE },
   { "vkCreateImage", EP_DEVICE },
   { "vkDestroyImage", EP_DEVICE },
   { "vkGetImageSubresourceLayout", EP_DEVICE },
   { "vkCreateImageView", EP_DEVICE },
   { "vkDestroyImageView", EP_DEVICE },
   { "vkCreateShaderModule", EP_DEVICE },
   { "vkDestroyShaderModule", EP_DEVICE },
   { "vkCreatePipelineCache", EP_DEVICE },
   { "vkDestroyPipelineCache", EP_DEVICE },
   { "vkGetPipelineCacheData", EP_DEVICE },
   { "vkMergePipelineCaches", EP_DEVICE },
   { "vkCreateGraphicsPipelines", EP_DEVICE },
   { "vkCreateComputePipelines", EP_DEVICE },
   { "vkDestroyPipeline", EP_DEVICE },
   { "vkCreatePipelineLayout", EP_DEVICE },
   { "vkDestroyPipelineLayout", EP_DEVICE },
   { "vkCreateSampler", EP_DEVICE },
   { "vkDestroySampler", EP_DEVICE },
   { "vkCreateDescriptorSetLayout", EP_DEVICE },
   { "vkDestroyDescriptorSetLayout", EP_DEVICE },
   { "vkCreateDescriptorPool", EP_DEVICE },
   { "vkDestroyDescriptorPool", EP_DEVICE },
   { "vkResetDescriptorPool", EP_DEVICE },
   { "vkAllocateDescriptorSets", EP_DEVICE },
   { "vkFreeDescriptorSets", EP_DEVICE },
   { "vkUpdateDescriptorSets", EP_DEVICE },
   { "vkCreateFramebuffer", EP_DEVICE },
   { "vkDestroyFramebuffer", EP_DEVICE },
   { "vkCreateRenderPass", EP_DEVICE },
   { "vkDestroyRenderPass", EP_DEVICE },
   { "vkGetRenderAreaGranularity", EP_DEVICE },
   { "vkCreateCommandPool", EP_DEVICE },
   { "vkDestroyCommandPool", EP_DEVICE },
   { "vkResetCommandPool", EP_DEVICE },
   { "vkAllocateCommandBuffers", EP_DEVICE },
   { "vkFreeCommandBuffers", EP_DEVICE },
   { "vkBeginCommandBuffer", EP_DEVICE },
   { "vkEndCommandBuffer", EP_DEVICE },
   { "vkResetCommandBuffer", EP_DEVICE },
   { "vkCmdBindPipeline", EP_DEVICE },
   { "vkCmdSetViewport", EP_DEVICE },
   { "vkCmdSetScissor", EP_DEVICE },
   { "vkCmdSetLineWidth", EP_DEVICE },
   { "vkCmdSetDepthBias", EP_DEVICE },
   { "vkCmdSetBlendConstants", EP_DEVICE },
   { "vkCmdSetDepthBounds", EP_DEVICE },
   { "vkCmdSetStencilCompareMask", EP_DEVICE },
   { "vkCmdSetStencilWriteMask", EP_DEVICE },
   { "vkCmdSetStencilReference", EP_DEVICE },
   { "vkCmdBindDescriptorSets", EP_DEVICE },
   { "vkCmdBindIndexBuffer", EP_DEVICE },
   { "vkCmdBindVertexBuffers", EP_DEVICE },
   { "vkCmdDraw", EP_DEVICE },
   { "vkCmdDrawIndexed", EP_DEVICE },
   { "vkCmdDrawIndirect", EP_DEVICE },
   { "vkCmdDrawIndexedIndirect", EP_DEVICE },
   { "vkCmdDispatch", EP_DEVICE },
   { "vkCmdDispatchIndirect", EP_DEVICE },
   { "vkCmdCopyBuffer", EP_DEVICE },
   { "vkCmdCopyImage", EP_DEVICE },
   { "vkCmdBlitImage", EP_DEVICE },
   { "vkCmdCopyBufferToImage", EP_DEVICE },
   { "vkCmdCopyImageToBuffer", EP_DEVICE },
   { "vkCmdUpdateBuffer", EP_DEVICE },
   { "vkCmdFillBuffer", EP_DEVICE },
   { "vkCmdClearColorImage", EP_DEVICE },
   { "vkCmdClearDepthStencilImage", EP_DEVICE },
   { "vkCmdClearAttachments", EP_DEVICE },
   { "vkCmdResolveImage", EP_DEVICE },
   { "vkCmdSetEvent", EP_DEVICE },
   { "vkCmdResetEvent", EP_DEVICE },
   { "vkCmdWaitEvents", EP_DEVICE },
   { "vkCmdPipelineBarrier", EP_DEVICE },
   { "vkCmdBeginQuery", EP_DEVICE },
   { "vkCmdEndQuery", EP_DEVICE },
   { "vkCmdResetQueryPool", EP_DEVICE },
   { "vkCmdWriteTimestamp", EP_DEVICE },
   { "vkCmdCopyQueryPoolResults", EP_DEVICE },
   { "vkCmdPushConstants", EP_DEVICE },
   { "vkCmdBeginRenderPass", EP_DEVICE },
   { "vkCmdNextSubpass", EP_DEVICE },
   { "vkCmdEndRenderPass", EP_DEVICE },
   { "vkCmdExecuteCommands", EP_DEVICE },
};

/* VK_VERSION_1_1: 28 commands */
static const struct ep_core ep_core_1_1[] = {
   { "vkEnumerateInstanceVersion", EP_GLOBAL },
   { "vkBindBufferMemory2", EP_DEVICE },
   { "vkBindImageMemory2", EP_DEVICE },
   { "vkGetDeviceGroupPeerMemoryFeatures", EP_DEVICE },
   { "vkCmdSetDeviceMask", EP_DEVICE },
   { "vkCmdDispatchBase", EP_DEVICE },
   { "vkEnumeratePhysicalDeviceGroups", EP_INSTANCE },
   { "vkGetImageMemoryRequirements2", EP_DEVICE },
   { "vkGetBufferMemoryRequirements2", EP_DEVICE },
   { "vkGetImageSparseMemoryRequirements2", EP_DEVICE },
   { "vkGetPhysicalDeviceFeatures2", EP_PHYSICAL },
   { "vkGetPhysicalDeviceProperties2", EP_PHYSICAL },
   { "vkGetPhysicalDeviceFormatProperties2", EP_PHYSICAL },
   { "vkGetPhysicalDeviceImageFormatProperties2", EP_PHYSICAL },
   { "vkGetPhysicalDeviceQueueFamilyProperties2", EP_PHYSICAL },
   { "vkGetPhysicalDeviceMemoryProperties2", EP_PHYSICAL },
   { "vkGetPhysicalDeviceSparseImageFormatProperties2", EP_PHYSICAL },
   { "vkTrimCommandPool", EP_DEVICE },
   { "vkGetDeviceQueue2", EP_DEVICE },
   { "vkCreateSamplerYcbcrConversion", EP_DEVICE },
   { "vkDestroySamplerYcbcrConversion", EP_DEVICE },
   { "vkCreateDescriptorUpdateTemplate", EP_DEVICE },
   { "vkDestroyDescriptorUpdateTemplate", EP_DEVICE },
   { "vkUpdateDescriptorSetWithTemplate", EP_DEVICE },
   { "vkGetPhysicalDeviceExternalBufferProperties", EP_PHYSICAL },
   { "vkGetPhysicalDeviceExternalFenceProperties", EP_PHYSICAL },
   { "vkGetPhysicalDeviceExternalSemaphoreProperties", EP_PHYSICAL },
   { "vkGetDescriptorSetLayoutSupport", EP_DEVICE },
};

/* VK_VERSION_1_2: 13 commands */
static const struct ep_core ep_core_1_2[] = {
   { "vkCmdDrawIndirectCount", EP_DEVICE },
   { "vkCmdDrawIndexedIndirectCount", EP_DEVICE },
   { "vkCreateRenderPass2", EP_DEVICE },
   { "vkCmdBeginRenderPass2", EP_DEVICE },
   { "vkCmdNextSubpass2", EP_DEVICE },
   { "vkCmdEndRenderPass2", EP_DEVICE },
   { "vkResetQueryPool", EP_DEVICE },
   { "vkGetSemaphoreCounterValue", EP_DEVICE },
   { "vkWaitSemaphores", EP_DEVICE },
   { "vkSignalSemaphore", EP_DEVICE },
   { "vkGetBufferDeviceAddress", EP_DEVICE },
   { "vkGetBufferOpaqueCaptureAddress", EP_DEVICE },
   { "vkGetDeviceMemoryOpaqueCaptureAddress", EP_DEVICE },
};

/* VK_VERSION_1_3: 37 commands */
static const struct ep_core ep_core_1_3[] = {
   { "vkGetPhysicalDeviceToolProperties", EP_PHYSICAL },
   { "vkCreatePrivateDataSlot", EP_DEVICE },
   { "vkDestroyPrivateDataSlot", EP_DEVICE },
   { "vkSetPrivateData", EP_DEVICE },
   { "vkGetPrivateData", EP_DEVICE },
   { "vkCmdSetEvent2", EP_DEVICE },
   { "vkCmdResetEvent2", EP_DEVICE },
   { "vkCmdWaitEvents2", EP_DEVICE },
   { "vkCmdPipelineBarrier2", EP_DEVICE },
   { "vkCmdWriteTimestamp2", EP_DEVICE },
   { "vkQueueSubmit2", EP_DEVICE },
   { "vkCmdCopyBuffer2", EP_DEVICE },
   { "vkCmdCopyImage2", EP_DEVICE },
   { "vkCmdCopyBufferToImage2", EP_DEVICE },
   { "vkCmdCopyImageToBuffer2", EP_DEVICE },
   { "vkCmdBlitImage2", EP_DEVICE },
   { "vkCmdResolveImage2", EP_DEVICE },
   { "vkCmdBeginRendering", EP_DEVICE },
   { "vkCmdEndRendering", EP_DEVICE },
   { "vkCmdSetCullMode", EP_DEVICE },
   { "vkCmdSetFrontFace", EP_DEVICE },
   { "vkCmdSetPrimitiveTopology", EP_DEVICE },
   { "vkCmdSetViewportWithCount", EP_DEVICE },
   { "vkCmdSetScissorWithCount", EP_DEVICE },
   { "vkCmdBindVertexBuffers2", EP_DEVICE },
   { "vkCmdSetDepthTestEnable", EP_DEVICE },
   { "vkCmdSetDepthWriteEnable", EP_DEVICE },
   { "vkCmdSetDepthCompareOp", EP_DEVICE },
   { "vkCmdSetDepthBoundsTestEnable", EP_DEVICE },
   { "vkCmdSetStencilTestEnable", EP_DEVICE },
   { "vkCmdSetStencilOp", EP_DEVICE },
   { "vkCmdSetRasterizerDiscardEnable", EP_DEVICE },
   { "vkCmdSetDepthBiasEnable", EP_DEVICE },
   { "vkCmdSetPrimitiveRestartEnable", EP_DEVICE },
   { "vkGetDeviceBufferMemoryRequirements", EP_DEVICE },
   { "vkGetDeviceImageMemoryRequirements", EP_DEVICE },
   { "vkGetDeviceImageSparseMemoryRequirements", EP_DEVICE },
};


static const struct {
   uint32_t minor;
   const struct ep_core *cmds;
   unsigned count;
} ep_versions[] = {
#define EP_VERSION(minor, list) { minor, list, sizeof(list) / sizeof(list[0]) }
   EP_VERSION(0, ep_core_1_0),
   EP_VERSION(1, ep_core_1_1),
   EP_VERSION(2, ep_core_1_2),
   EP_VERSION(3, ep_core_1_3),
#undef EP_VERSION
};

/* Known gaps: core commands of the reported version that belong to later
 * issues (graphics pipelines, render passes and framebuffers, draws, clears
 * and blits that need the rasterizer). Each must still be NULL: remove a
 * command from here when it lands. */
static const char *const ep_known_gaps[] = {
   NULL,   /* none left; the list ends at NULL */
};

/* Extension commands (unconditional <require> blocks of vk.xml) for the
 * extensions Shale has or is likely to have. An advertised extension that is
 * missing here is reported, not failed: add it when it lands. */
struct ep_ext {
   const char *name;
   const char *cmds[32];   /* NULL-terminated */
};

static const struct ep_ext ep_instance_exts[] = {
   { "VK_KHR_get_physical_device_properties2", { "vkGetPhysicalDeviceFeatures2KHR",
        "vkGetPhysicalDeviceProperties2KHR", "vkGetPhysicalDeviceFormatProperties2KHR",
        "vkGetPhysicalDeviceImageFormatProperties2KHR",
        "vkGetPhysicalDeviceQueueFamilyProperties2KHR", "vkGetPhysicalDeviceMemoryProperties2KHR",
        "vkGetPhysicalDeviceSparseImageFormatProperties2KHR", NULL } },
   { "VK_KHR_surface", { "vkDestroySurfaceKHR", "vkGetPhysicalDeviceSurfaceSupportKHR",
        "vkGetPhysicalDeviceSurfaceCapabilitiesKHR", "vkGetPhysicalDeviceSurfaceFormatsKHR",
        "vkGetPhysicalDeviceSurfacePresentModesKHR", NULL } },
   { "VK_EXT_headless_surface", { "vkCreateHeadlessSurfaceEXT", NULL } },
   { "VK_KHR_xcb_surface", { "vkCreateXcbSurfaceKHR",
        "vkGetPhysicalDeviceXcbPresentationSupportKHR", NULL } },
   { "VK_KHR_xlib_surface", { "vkCreateXlibSurfaceKHR",
        "vkGetPhysicalDeviceXlibPresentationSupportKHR", NULL } },
   { "VK_KHR_wayland_surface", { "vkCreateWaylandSurfaceKHR",
        "vkGetPhysicalDeviceWaylandPresentationSupportKHR", NULL } },
   { "VK_KHR_android_surface", { "vkCreateAndroidSurfaceKHR", NULL } },
   { "VK_EXT_debug_utils", { "vkSetDebugUtilsObjectNameEXT", "vkSetDebugUtilsObjectTagEXT",
        "vkQueueBeginDebugUtilsLabelEXT", "vkQueueEndDebugUtilsLabelEXT",
        "vkQueueInsertDebugUtilsLabelEXT", "vkCmdBeginDebugUtilsLabelEXT",
        "vkCmdEndDebugUtilsLabelEXT", "vkCmdInsertDebugUtilsLabelEXT",
        "vkCreateDebugUtilsMessengerEXT", "vkDestroyDebugUtilsMessengerEXT",
        "vkSubmitDebugUtilsMessageEXT", NULL } },
   { "VK_EXT_debug_report", { "vkCreateDebugReportCallbackEXT", "vkDestroyDebugReportCallbackEXT",
        "vkDebugReportMessageEXT", NULL } },
   { "VK_KHR_get_surface_capabilities2", { "vkGetPhysicalDeviceSurfaceCapabilities2KHR",
        "vkGetPhysicalDeviceSurfaceFormats2KHR", NULL } },
   { "VK_KHR_device_group_creation", { "vkEnumeratePhysicalDeviceGroupsKHR", NULL } },
   { "VK_KHR_external_memory_capabilities", { "vkGetPhysicalDeviceExternalBufferPropertiesKHR",
        NULL } },
   { "VK_KHR_external_semaphore_capabilities", {
        "vkGetPhysicalDeviceExternalSemaphorePropertiesKHR", NULL } },
   { "VK_KHR_external_fence_capabilities", { "vkGetPhysicalDeviceExternalFencePropertiesKHR",
        NULL } },
   { "VK_KHR_portability_enumeration", { NULL } },
   { "VK_EXT_swapchain_colorspace", { NULL } },
   { "VK_KHR_surface_protected_capabilities", { NULL } },
   { "VK_EXT_surface_maintenance1", { NULL } },
};

static const struct ep_ext ep_device_exts[] = {
   { "VK_KHR_bind_memory2", { "vkBindBufferMemory2KHR", "vkBindImageMemory2KHR", NULL } },
   { "VK_KHR_get_memory_requirements2", { "vkGetImageMemoryRequirements2KHR",
        "vkGetBufferMemoryRequirements2KHR", "vkGetImageSparseMemoryRequirements2KHR", NULL } },
   { "VK_KHR_dedicated_allocation", { NULL } },
   { "VK_KHR_maintenance1", { "vkTrimCommandPoolKHR", NULL } },
   { "VK_KHR_maintenance2", { NULL } },
   { "VK_KHR_maintenance3", { "vkGetDescriptorSetLayoutSupportKHR", NULL } },
   { "VK_KHR_maintenance4", { "vkGetDeviceBufferMemoryRequirementsKHR",
        "vkGetDeviceImageMemoryRequirementsKHR", "vkGetDeviceImageSparseMemoryRequirementsKHR",
        NULL } },
   { "VK_KHR_timeline_semaphore", { "vkGetSemaphoreCounterValueKHR", "vkWaitSemaphoresKHR",
        "vkSignalSemaphoreKHR", NULL } },
   { "VK_KHR_copy_commands2", { "vkCmdCopyBuffer2KHR", "vkCmdCopyImage2KHR",
        "vkCmdCopyBufferToImage2KHR", "vkCmdCopyImageToBuffer2KHR", "vkCmdBlitImage2KHR",
        "vkCmdResolveImage2KHR", NULL } },
   { "VK_KHR_synchronization2", { "vkCmdSetEvent2KHR", "vkCmdResetEvent2KHR",
        "vkCmdWaitEvents2KHR", "vkCmdPipelineBarrier2KHR", "vkCmdWriteTimestamp2KHR",
        "vkQueueSubmit2KHR", NULL } },
   { "VK_KHR_create_renderpass2", { "vkCreateRenderPass2KHR", "vkCmdBeginRenderPass2KHR",
        "vkCmdNextSubpass2KHR", "vkCmdEndRenderPass2KHR", NULL } },
   { "VK_KHR_dynamic_rendering", { "vkCmdBeginRenderingKHR", "vkCmdEndRenderingKHR", NULL } },
   { "VK_KHR_swapchain", { "vkCreateSwapchainKHR", "vkDestroySwapchainKHR",
        "vkGetSwapchainImagesKHR", "vkAcquireNextImageKHR", "vkQueuePresentKHR", NULL } },
   { "VK_KHR_draw_indirect_count", { "vkCmdDrawIndirectCountKHR",
        "vkCmdDrawIndexedIndirectCountKHR", NULL } },
   { "VK_EXT_host_query_reset", { "vkResetQueryPoolEXT", NULL } },
   { "VK_KHR_buffer_device_address", { "vkGetBufferDeviceAddressKHR",
        "vkGetBufferOpaqueCaptureAddressKHR", "vkGetDeviceMemoryOpaqueCaptureAddressKHR", NULL } },
   { "VK_KHR_descriptor_update_template", { "vkCreateDescriptorUpdateTemplateKHR",
        "vkDestroyDescriptorUpdateTemplateKHR", "vkUpdateDescriptorSetWithTemplateKHR", NULL } },
   { "VK_KHR_push_descriptor", { "vkCmdPushDescriptorSetKHR", NULL } },
   { "VK_KHR_external_memory", { NULL } },
   { "VK_KHR_external_memory_fd", { "vkGetMemoryFdKHR", "vkGetMemoryFdPropertiesKHR", NULL } },
   { "VK_KHR_external_semaphore", { NULL } },
   { "VK_KHR_external_semaphore_fd", { "vkImportSemaphoreFdKHR", "vkGetSemaphoreFdKHR", NULL } },
   { "VK_KHR_external_fence", { NULL } },
   { "VK_KHR_external_fence_fd", { "vkImportFenceFdKHR", "vkGetFenceFdKHR", NULL } },
   { "VK_EXT_extended_dynamic_state", { "vkCmdSetCullModeEXT", "vkCmdSetFrontFaceEXT",
        "vkCmdSetPrimitiveTopologyEXT", "vkCmdSetViewportWithCountEXT",
        "vkCmdSetScissorWithCountEXT", "vkCmdBindVertexBuffers2EXT", "vkCmdSetDepthTestEnableEXT",
        "vkCmdSetDepthWriteEnableEXT", "vkCmdSetDepthCompareOpEXT",
        "vkCmdSetDepthBoundsTestEnableEXT", "vkCmdSetStencilTestEnableEXT",
        "vkCmdSetStencilOpEXT", NULL } },
   { "VK_EXT_extended_dynamic_state2", { "vkCmdSetPatchControlPointsEXT",
        "vkCmdSetRasterizerDiscardEnableEXT", "vkCmdSetDepthBiasEnableEXT", "vkCmdSetLogicOpEXT",
        "vkCmdSetPrimitiveRestartEnableEXT", NULL } },
   { "VK_EXT_extended_dynamic_state3", { "vkCmdSetTessellationDomainOriginEXT",
        "vkCmdSetDepthClampEnableEXT", "vkCmdSetPolygonModeEXT", "vkCmdSetRasterizationSamplesEXT",
        "vkCmdSetSampleMaskEXT", "vkCmdSetAlphaToCoverageEnableEXT", "vkCmdSetAlphaToOneEnableEXT",
        "vkCmdSetLogicOpEnableEXT", "vkCmdSetColorBlendEnableEXT", "vkCmdSetColorBlendEquationEXT",
        "vkCmdSetColorWriteMaskEXT", "vkCmdSetRasterizationStreamEXT",
        "vkCmdSetConservativeRasterizationModeEXT", "vkCmdSetExtraPrimitiveOverestimationSizeEXT",
        "vkCmdSetDepthClipEnableEXT", "vkCmdSetSampleLocationsEnableEXT",
        "vkCmdSetColorBlendAdvancedEXT", "vkCmdSetProvokingVertexModeEXT",
        "vkCmdSetLineRasterizationModeEXT", "vkCmdSetLineStippleEnableEXT",
        "vkCmdSetDepthClipNegativeOneToOneEXT", "vkCmdSetViewportWScalingEnableNV",
        "vkCmdSetViewportSwizzleNV", "vkCmdSetCoverageToColorEnableNV",
        "vkCmdSetCoverageToColorLocationNV", "vkCmdSetCoverageModulationModeNV",
        "vkCmdSetCoverageModulationTableEnableNV", "vkCmdSetCoverageModulationTableNV",
        "vkCmdSetShadingRateImageEnableNV", "vkCmdSetRepresentativeFragmentTestEnableNV",
        "vkCmdSetCoverageReductionModeNV", NULL } },
   { "VK_KHR_sampler_ycbcr_conversion", { "vkCreateSamplerYcbcrConversionKHR",
        "vkDestroySamplerYcbcrConversionKHR", NULL } },
   { "VK_KHR_device_group", { "vkGetDeviceGroupPeerMemoryFeaturesKHR", "vkCmdSetDeviceMaskKHR",
        "vkCmdDispatchBaseKHR", NULL } },
   { "VK_KHR_multiview", { NULL } },
   { "VK_KHR_image_format_list", { NULL } },
   { "VK_KHR_imageless_framebuffer", { NULL } },
   { "VK_KHR_driver_properties", { NULL } },
   { "VK_KHR_format_feature_flags2", { NULL } },
   { "VK_EXT_private_data", { "vkCreatePrivateDataSlotEXT", "vkDestroyPrivateDataSlotEXT",
        "vkSetPrivateDataEXT", "vkGetPrivateDataEXT", NULL } },
   { "VK_EXT_tooling_info", { "vkGetPhysicalDeviceToolPropertiesEXT", NULL } },
   { "VK_EXT_line_rasterization", { "vkCmdSetLineStippleEXT", NULL } },
   { "VK_EXT_conditional_rendering", { "vkCmdBeginConditionalRenderingEXT",
        "vkCmdEndConditionalRenderingEXT", NULL } },
   { "VK_EXT_transform_feedback", { "vkCmdBindTransformFeedbackBuffersEXT",
        "vkCmdBeginTransformFeedbackEXT", "vkCmdEndTransformFeedbackEXT",
        "vkCmdBeginQueryIndexedEXT", "vkCmdEndQueryIndexedEXT", "vkCmdDrawIndirectByteCountEXT",
        NULL } },
   { "VK_EXT_index_type_uint8", { NULL } },
   { "VK_EXT_custom_border_color", { NULL } },
   { "VK_EXT_attachment_feedback_loop_layout", { NULL } },
   { "VK_EXT_robustness2", { NULL } },
   { "VK_EXT_debug_marker", { "vkDebugMarkerSetObjectTagEXT", "vkDebugMarkerSetObjectNameEXT",
        "vkCmdDebugMarkerBeginEXT", "vkCmdDebugMarkerEndEXT", "vkCmdDebugMarkerInsertEXT", NULL } },
   { "VK_EXT_external_memory_host", { "vkGetMemoryHostPointerPropertiesEXT", NULL } },
   { "VK_EXT_memory_budget", { NULL } },
   { "VK_EXT_color_write_enable", { "vkCmdSetColorWriteEnableEXT", NULL } },
   { "VK_EXT_vertex_input_dynamic_state", { "vkCmdSetVertexInputEXT", NULL } },
   { "VK_EXT_multi_draw", { "vkCmdDrawMultiEXT", "vkCmdDrawMultiIndexedEXT", NULL } },
   { "VK_ANDROID_external_memory_android_hardware_buffer", {
        "vkGetAndroidHardwareBufferPropertiesANDROID", "vkGetMemoryAndroidHardwareBufferANDROID",
        NULL } },
   { "VK_KHR_shader_draw_parameters", { NULL } },
   { "VK_KHR_storage_buffer_storage_class", { NULL } },
   { "VK_KHR_incremental_present", { NULL } },
   { "VK_KHR_swapchain_mutable_format", { NULL } },
};

static PFN_vkGetInstanceProcAddr gipa;
static PFN_vkGetInstanceProcAddr gpdpa;   /* vk_icdGetPhysicalDeviceProcAddr, same signature */

static const char *const ep_unknown[] = {
   "", "vk", "vkNotACommand", "vkcreateinstance", "vkCreateInstanceKHR", "vkCreateDevic",
   "vkCreateDeviceX", "vkCmdDrawX", "VkCreateInstance", "vkGetInstanceProcAddr ",
};

static bool
ep_is_gap(const char *name)
{
   for (unsigned i = 0; ep_known_gaps[i]; i++) {
      if (!strcmp(ep_known_gaps[i], name))
         return true;
   }
   return false;
}

static bool
ep_has(const char *const *list, uint32_t count, const char *name)
{
   for (uint32_t i = 0; i < count; i++) {
      if (!strcmp(list[i], name))
         return true;
   }
   return false;
}

static const char *
ep_icd_path(int argc, char **argv, char *buf, size_t size)
{
   if (argc > 1)
      return argv[1];
   const char *env = getenv("SHALE_ICD_PATH");
   if (env && *env)
      return env;
   /* build/tests/api/api_entrypoints -> build/src/hal/libvulkan_shale.so */
   char exe[PATH_MAX];
   ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
   if (n <= 0)
      return NULL;
   exe[n] = '\0';
   snprintf(buf, size, "%s/../../src/hal/libvulkan_shale.so", dirname(exe));
   return buf;
}

/* -- loader-ICD interface -- */

static void *
ep_load(const char *path)
{
   void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
   CHECK(lib != NULL, "dlopen(%s): %s", path, dlerror());
   if (!lib)
      return NULL;
   PFN_vkNegotiateLoaderICDInterfaceVersion negotiate = (PFN_vkNegotiateLoaderICDInterfaceVersion)
      dlsym(lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
   gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vk_icdGetInstanceProcAddr");
   gpdpa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vk_icdGetPhysicalDeviceProcAddr");
   CHECK(negotiate && gipa && gpdpa, "the three loader-ICD exports");
   if (!negotiate || !gipa || !gpdpa)
      return lib;
   /* The driver answers min(loader's, its own); interface 4 or later is what
    * exporting vk_icdGetPhysicalDeviceProcAddr promises. */
   uint32_t v = 100;
   CHECK_EQ_INT(negotiate(&v), VK_SUCCESS);
   CHECK(v >= 4 && v <= 100, "negotiated interface version %u", v);
   uint32_t v2 = v;
   CHECK_EQ_INT(negotiate(&v2), VK_SUCCESS);
   CHECK_EQ_INT(v2, v);
   /* A loader that offers less gets at most what it offered. */
   uint32_t v4 = 4;
   VkResult r = negotiate(&v4);
   CHECK(r == VK_ERROR_INCOMPATIBLE_DRIVER || (r == VK_SUCCESS && v4 <= 4),
         "negotiate(4): %d, %u", r, v4);
   return lib;
}

static void
ep_check_magic(const void *handle, const char *what)
{
   uintptr_t first;
   memcpy(&first, handle, sizeof(first));
   CHECK(first == EP_LOADER_MAGIC, "%s: first word %#lx, not the loader magic", what,
         (unsigned long)first);
}

/* -- NULL instance -- */

/* The instance-level API version the implementation offers, from
 * vkEnumerateInstanceVersion when it exists (1.0 when it does not). */
static uint32_t
test_null_instance(void)
{
   CHECK(gipa(NULL, "vkGetInstanceProcAddr") != NULL, "NULL instance + vkGetInstanceProcAddr");
   for (unsigned v = 0; v < sizeof(ep_versions) / sizeof(ep_versions[0]); v++) {
      for (unsigned i = 0; i < ep_versions[v].count; i++) {
         const struct ep_core *c = &ep_versions[v].cmds[i];
         PFN_vkVoidFunction f = gipa(NULL, c->name);
         if (c->level != EP_GLOBAL && strcmp(c->name, "vkGetInstanceProcAddr") != 0)
            CHECK(f == NULL, "NULL instance + %s (not a global command) is not NULL", c->name);
         else if (v == 0)
            CHECK(f != NULL, "NULL instance + global %s is NULL", c->name);
      }
   }
   for (unsigned i = 0; i < sizeof(ep_unknown) / sizeof(ep_unknown[0]); i++)
      CHECK(gipa(NULL, ep_unknown[i]) == NULL, "NULL instance + unknown \"%s\"", ep_unknown[i]);
   CHECK(gipa(NULL, "vkBindBufferMemory2KHR") == NULL, "NULL instance + device-extension command");
   CHECK(gipa(NULL, "vkGetPhysicalDeviceProperties2KHR") == NULL,
         "NULL instance + instance-extension command");

   PFN_vkEnumerateInstanceVersion eiv =
      (PFN_vkEnumerateInstanceVersion)gipa(NULL, "vkEnumerateInstanceVersion");
   if (!eiv)
      return VK_API_VERSION_1_0;
   uint32_t version = 0;
   CHECK_EQ_INT(eiv(&version), VK_SUCCESS);
   /* A 1.0 implementation has no vkEnumerateInstanceVersion. */
   CHECK(VK_API_VERSION_MAJOR(version) == 1 && VK_API_VERSION_MINOR(version) >= 1,
         "vkEnumerateInstanceVersion exists but reports %#x", version);
   return version;
}

/* -- instances -- */

static VkInstance
ep_create_instance(uint32_t api_version, const char *const *exts, uint32_t n_exts)
{
   PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");
   if (!create)
      return VK_NULL_HANDLE;
   VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "shale-entrypoints",
      .apiVersion = api_version,
   };
   VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
      .enabledExtensionCount = n_exts,
      .ppEnabledExtensionNames = exts,
   };
   VkInstance instance = VK_NULL_HANDLE;
   VkResult r = create(&ici, NULL, &instance);
   CHECK_EQ_INT(r, VK_SUCCESS);
   if (r != VK_SUCCESS)
      return VK_NULL_HANDLE;
   ep_check_magic(instance, "VkInstance");
   return instance;
}

static void
ep_destroy_instance(VkInstance instance)
{
   PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(instance, "vkDestroyInstance");
   CHECK(destroy != NULL, "vkDestroyInstance");
   if (destroy)
      destroy(instance, NULL);
}

static VkPhysicalDevice
ep_physical_device(VkInstance instance, VkPhysicalDeviceProperties *props)
{
   PFN_vkEnumeratePhysicalDevices enumerate =
      (PFN_vkEnumeratePhysicalDevices)gipa(instance, "vkEnumeratePhysicalDevices");
   PFN_vkGetPhysicalDeviceProperties get =
      (PFN_vkGetPhysicalDeviceProperties)gipa(instance, "vkGetPhysicalDeviceProperties");
   if (!enumerate || !get)
      return VK_NULL_HANDLE;
   uint32_t count = 1;
   VkPhysicalDevice pdev = VK_NULL_HANDLE;
   VkResult r = enumerate(instance, &count, &pdev);
   CHECK(r == VK_SUCCESS || r == VK_INCOMPLETE, "vkEnumeratePhysicalDevices: %d", r);
   CHECK(count == 1 && pdev, "a physical device");
   if (!pdev)
      return VK_NULL_HANDLE;
   ep_check_magic(pdev, "VkPhysicalDevice");
   get(pdev, props);
   return pdev;
}

/* Names of the extensions the implementation advertises. */
struct ep_names {
   uint32_t count;
   const char *names[256];
   VkExtensionProperties props[256];
};

static void
ep_instance_extensions(struct ep_names *out)
{
   PFN_vkEnumerateInstanceExtensionProperties e = (PFN_vkEnumerateInstanceExtensionProperties)
      gipa(NULL, "vkEnumerateInstanceExtensionProperties");
   out->count = 256;
   CHECK(e && e(NULL, &out->count, out->props) == VK_SUCCESS, "instance extensions");
   if (!e)
      out->count = 0;
   for (uint32_t i = 0; i < out->count; i++)
      out->names[i] = out->props[i].extensionName;
}

static void
ep_device_extensions(VkInstance instance, VkPhysicalDevice pdev, struct ep_names *out)
{
   PFN_vkEnumerateDeviceExtensionProperties e = (PFN_vkEnumerateDeviceExtensionProperties)
      gipa(instance, "vkEnumerateDeviceExtensionProperties");
   out->count = 256;
   CHECK(e && e(pdev, NULL, &out->count, out->props) == VK_SUCCESS, "device extensions");
   if (!e)
      out->count = 0;
   for (uint32_t i = 0; i < out->count; i++)
      out->names[i] = out->props[i].extensionName;
}

static const struct ep_ext *
ep_find_ext(const struct ep_ext *table, unsigned n, const char *name)
{
   for (unsigned i = 0; i < n; i++) {
      if (!strcmp(table[i].name, name))
         return &table[i];
   }
   return NULL;
}

#define EP_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Core commands of each version on an instance of `version`: the instance's
 * version's present (or a known gap), higher versions' absent, global ones
 * absent. Counts what is missing for the summary. */
static void
test_instance_core(VkInstance instance, uint32_t version, unsigned *gaps_seen)
{
   CHECK(gipa(instance, "vkGetInstanceProcAddr") != NULL, "instance + vkGetInstanceProcAddr");
   for (unsigned v = 0; v < EP_COUNT(ep_versions); v++) {
      bool in_version = ep_versions[v].minor <= VK_API_VERSION_MINOR(version);
      for (unsigned i = 0; i < ep_versions[v].count; i++) {
         const struct ep_core *c = &ep_versions[v].cmds[i];
         PFN_vkVoidFunction f = gipa(instance, c->name);
         if (c->level == EP_GLOBAL) {
            CHECK(f == NULL, "instance + global %s must be NULL", c->name);
         } else if (!in_version) {
            CHECK(f == NULL, "instance (1.%u) + 1.%u command %s must be NULL",
                  VK_API_VERSION_MINOR(version), ep_versions[v].minor, c->name);
         } else if (ep_is_gap(c->name)) {
            CHECK(f == NULL, "%s is implemented now: remove it from ep_known_gaps", c->name);
            (*gaps_seen)++;
         } else {
            CHECK(f != NULL, "core 1.%u %s is NULL (not in ep_known_gaps)", ep_versions[v].minor,
                  c->name);
         }
      }
   }
   for (unsigned i = 0; i < EP_COUNT(ep_unknown); i++)
      CHECK(gipa(instance, ep_unknown[i]) == NULL, "instance + unknown \"%s\"", ep_unknown[i]);
}

/* Instance-extension commands: present exactly when the extension is enabled. */
static void
test_instance_ext_commands(VkInstance instance, const char *const *enabled, uint32_t n_enabled)
{
   for (unsigned e = 0; e < EP_COUNT(ep_instance_exts); e++) {
      bool on = ep_has(enabled, n_enabled, ep_instance_exts[e].name);
      for (const char *const *c = ep_instance_exts[e].cmds; *c; c++) {
         PFN_vkVoidFunction f = gipa(instance, *c);
         if (on)
            CHECK(f != NULL, "%s enabled but %s is NULL", ep_instance_exts[e].name, *c);
         else
            CHECK(f == NULL, "%s not enabled but %s is not NULL", ep_instance_exts[e].name, *c);
      }
   }
}

/* Device-extension commands on an instance: present exactly when some
 * physical device supports the extension ("available"). */
static void
test_instance_device_ext_commands(VkInstance instance, const struct ep_names *dev_exts)
{
   for (unsigned e = 0; e < EP_COUNT(ep_device_exts); e++) {
      bool avail = ep_has(dev_exts->names, dev_exts->count, ep_device_exts[e].name);
      for (const char *const *c = ep_device_exts[e].cmds; *c; c++) {
         PFN_vkVoidFunction f = gipa(instance, *c);
         if (avail)
            CHECK(f != NULL, "%s available but instance + %s is NULL", ep_device_exts[e].name, *c);
         else
            CHECK(f == NULL, "%s not available but instance + %s is not NULL",
                  ep_device_exts[e].name, *c);
      }
   }
}

/* vk_icdGetPhysicalDeviceProcAddr: physical-device commands, nothing else. */
static void
test_physical_device_proc_addr(VkInstance instance)
{
   for (unsigned v = 0; v < EP_COUNT(ep_versions); v++) {
      for (unsigned i = 0; i < ep_versions[v].count; i++) {
         const struct ep_core *c = &ep_versions[v].cmds[i];
         PFN_vkVoidFunction f = gpdpa(instance, c->name);
         if (c->level != EP_PHYSICAL)
            CHECK(f == NULL, "vk_icdGetPhysicalDeviceProcAddr(%s) is not NULL", c->name);
         else if (v == 0 && !ep_is_gap(c->name))
            CHECK(f != NULL, "vk_icdGetPhysicalDeviceProcAddr(%s) is NULL", c->name);
      }
   }
   for (unsigned e = 0; e < EP_COUNT(ep_device_exts); e++) {
      for (const char *const *c = ep_device_exts[e].cmds; *c; c++) {
         if (strncmp(*c, "vkGetPhysicalDevice", 19) != 0)
            CHECK(gpdpa(instance, *c) == NULL, "vk_icdGetPhysicalDeviceProcAddr(%s)", *c);
      }
   }
   for (unsigned i = 0; i < EP_COUNT(ep_unknown); i++)
      CHECK(gpdpa(instance, ep_unknown[i]) == NULL, "vk_icdGetPhysicalDeviceProcAddr(\"%s\")",
            ep_unknown[i]);
}

/* -- devices -- */

static VkDevice
ep_create_device(VkInstance instance, VkPhysicalDevice pdev, const char *const *exts,
                 uint32_t n_exts)
{
   PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(instance, "vkCreateDevice");
   if (!create)
      return VK_NULL_HANDLE;
   float prio = 1.0f;
   VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = 0,
      .queueCount = 1,
      .pQueuePriorities = &prio,
   };
   VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
      .enabledExtensionCount = n_exts,
      .ppEnabledExtensionNames = exts,
   };
   VkDevice device = VK_NULL_HANDLE;
   VkResult r = create(pdev, &dci, NULL, &device);
   CHECK_EQ_INT(r, VK_SUCCESS);
   if (r != VK_SUCCESS)
      return VK_NULL_HANDLE;
   ep_check_magic(device, "VkDevice");
   return device;
}

/* vkGetDeviceProcAddr on a device of `version` with `exts` enabled. */
static void
test_device(VkInstance instance, VkDevice device, uint32_t version, const char *const *exts,
            uint32_t n_exts)
{
   PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)gipa(instance, "vkGetDeviceProcAddr");
   CHECK(gdpa != NULL, "vkGetDeviceProcAddr");
   if (!gdpa)
      return;
   CHECK(gdpa(device, "vkGetDeviceProcAddr") != NULL, "device + vkGetDeviceProcAddr");

   PFN_vkGetDeviceQueue get_queue = (PFN_vkGetDeviceQueue)gdpa(device, "vkGetDeviceQueue");
   if (get_queue) {
      VkQueue queue = VK_NULL_HANDLE;
      get_queue(device, 0, 0, &queue);
      CHECK(queue != VK_NULL_HANDLE, "queue 0");
      if (queue)
         ep_check_magic(queue, "VkQueue");
   }

   for (unsigned v = 0; v < EP_COUNT(ep_versions); v++) {
      bool in_version = ep_versions[v].minor <= VK_API_VERSION_MINOR(version);
      for (unsigned i = 0; i < ep_versions[v].count; i++) {
         const struct ep_core *c = &ep_versions[v].cmds[i];
         PFN_vkVoidFunction f = gdpa(device, c->name);
         if (c->level != EP_DEVICE) {
            CHECK(f == NULL, "device + non-device-level %s must be NULL", c->name);
         } else if (!in_version) {
            CHECK(f == NULL, "device (1.%u) + 1.%u command %s must be NULL",
                  VK_API_VERSION_MINOR(version), ep_versions[v].minor, c->name);
         } else if (ep_is_gap(c->name)) {
            CHECK(f == NULL, "device + %s is implemented now: remove it from ep_known_gaps",
                  c->name);
         } else {
            CHECK(f != NULL, "device + core 1.%u %s is NULL (not in ep_known_gaps)",
                  ep_versions[v].minor, c->name);
         }
      }
   }
   for (unsigned e = 0; e < EP_COUNT(ep_device_exts); e++) {
      bool on = ep_has(exts, n_exts, ep_device_exts[e].name);
      for (const char *const *c = ep_device_exts[e].cmds; *c; c++) {
         PFN_vkVoidFunction f = gdpa(device, *c);
         if (on && strncmp(*c, "vkGetPhysicalDevice", 19) != 0)
            CHECK(f != NULL, "%s enabled but device + %s is NULL", ep_device_exts[e].name, *c);
         else
            CHECK(f == NULL, "%s %s but device + %s is not NULL", ep_device_exts[e].name,
                  on ? "is enabled (physical-device command)" : "not enabled", *c);
      }
   }
   /* Instance-extension commands are never device-level here except for the
    * ones the table lists with a device parameter; none is enabled. */
   CHECK(gdpa(device, "vkGetPhysicalDeviceProperties2KHR") == NULL,
         "device + instance-extension physical-device command");
   for (unsigned i = 0; i < EP_COUNT(ep_unknown); i++)
      CHECK(gdpa(device, ep_unknown[i]) == NULL, "device + unknown \"%s\"", ep_unknown[i]);
}

static void
ep_destroy_device(VkDevice device, PFN_vkGetDeviceProcAddr gdpa)
{
   PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)gdpa(device, "vkDestroyDevice");
   CHECK(destroy != NULL, "vkDestroyDevice");
   if (destroy)
      destroy(device, NULL);
}

int
main(int argc, char **argv)
{
   char buf[PATH_MAX + 64];
   const char *path = ep_icd_path(argc, argv, buf, sizeof(buf));
   CHECK(path != NULL, "no ICD path");
   void *lib = path ? ep_load(path) : NULL;
   if (!lib || !gipa || !gpdpa)
      return check_finish();

   uint32_t inst_version = test_null_instance();

   struct ep_names inst_exts, dev_exts;
   ep_instance_extensions(&inst_exts);
   for (uint32_t i = 0; i < inst_exts.count; i++) {
      if (!ep_find_ext(ep_instance_exts, EP_COUNT(ep_instance_exts), inst_exts.names[i]))
         fprintf(stderr, "note: instance extension %s is not in ep_instance_exts: its commands "
                         "are not checked\n", inst_exts.names[i]);
   }

   /* Instance A: the highest version an application may ask for, no
    * extensions; it runs at min(1.3, the implementation's). */
   VkInstance a = ep_create_instance(VK_API_VERSION_1_3, NULL, 0);
   if (!a)
      return check_finish();
   VkPhysicalDeviceProperties props;
   VkPhysicalDevice pdev = ep_physical_device(a, &props);
   if (!pdev) {
      ep_destroy_instance(a);
      return check_finish();
   }
   uint32_t dev_version = props.apiVersion;
   fprintf(stderr, "instance version 1.%u, physical device version 1.%u\n",
           VK_API_VERSION_MINOR(inst_version), VK_API_VERSION_MINOR(dev_version));
   CHECK(VK_API_VERSION_MINOR(dev_version) < EP_COUNT(ep_versions),
         "device version 1.%u has no command list here: add it", VK_API_VERSION_MINOR(dev_version));
   /* vkEnumerateInstanceVersion exists exactly when the driver is above 1.0. */
   CHECK((VK_API_VERSION_MINOR(inst_version) >= 1) == (VK_API_VERSION_MINOR(dev_version) >= 1),
         "instance version 1.%u with a 1.%u physical device", VK_API_VERSION_MINOR(inst_version),
         VK_API_VERSION_MINOR(dev_version));

   unsigned gaps_seen = 0;
   test_instance_core(a, inst_version, &gaps_seen);
   test_instance_ext_commands(a, NULL, 0);
   ep_device_extensions(a, pdev, &dev_exts);
   for (uint32_t i = 0; i < dev_exts.count; i++) {
      if (!ep_find_ext(ep_device_exts, EP_COUNT(ep_device_exts), dev_exts.names[i]))
         fprintf(stderr, "note: device extension %s is not in ep_device_exts: its commands are "
                         "not checked\n", dev_exts.names[i]);
   }
   test_instance_device_ext_commands(a, &dev_exts);
   test_physical_device_proc_addr(a);

   /* Device on A: no extensions; its version is min(instance, device). */
   uint32_t version = VK_API_VERSION_MINOR(inst_version) < VK_API_VERSION_MINOR(dev_version)
                         ? inst_version : dev_version;
   PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)gipa(a, "vkGetDeviceProcAddr");
   VkDevice d0 = ep_create_device(a, pdev, NULL, 0);
   if (d0 && gdpa) {
      test_device(a, d0, version, NULL, 0);
      ep_destroy_device(d0, gdpa);
   }

   /* Instance B with every advertised instance extension, and a device on
    * it with every advertised device extension. */
   VkInstance b = ep_create_instance(VK_API_VERSION_1_3, inst_exts.names, inst_exts.count);
   if (b) {
      /* Enabled extensions add their commands, never core ones of later versions. */
      unsigned gaps_b = 0;
      test_instance_core(b, inst_version, &gaps_b);
      test_instance_ext_commands(b, inst_exts.names, inst_exts.count);
      VkPhysicalDeviceProperties props_b;
      VkPhysicalDevice pdev_b = ep_physical_device(b, &props_b);
      PFN_vkGetDeviceProcAddr gdpa_b = (PFN_vkGetDeviceProcAddr)gipa(b, "vkGetDeviceProcAddr");
      VkDevice d1 = pdev_b ? ep_create_device(b, pdev_b, dev_exts.names, dev_exts.count) : NULL;
      if (d1 && gdpa_b) {
         test_device(b, d1, version, dev_exts.names, dev_exts.count);
         CHECK(gdpa_b(d1, "vkBindBufferMemory2KHR") != NULL ||
                  !ep_has(dev_exts.names, dev_exts.count, "VK_KHR_bind_memory2"),
               "vkBindBufferMemory2KHR with VK_KHR_bind_memory2 enabled");
         ep_destroy_device(d1, gdpa_b);
      }
      ep_destroy_instance(b);
   }
   ep_destroy_instance(a);

   fprintf(stderr, "%u known gaps of %zu listed are in the reported version\n", gaps_seen,
           EP_COUNT(ep_known_gaps) - 1);
   dlclose(lib);
   return check_finish();
}
