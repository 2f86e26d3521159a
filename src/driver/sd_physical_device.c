/* The CPU as a VkPhysicalDevice: properties, limits, features, queues, memory. */
#include "sd_physical_device.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "compiler/sc_compiler.h"
#include "util/su_build_id.h"
#include "util/su_sha256.h"
#include "sd_alloc.h"
#include "sd_descriptor.h"
#include "rasterizer/sr_raster.h"
#include "sd_external.h"
#include "sd_image.h"
#include "sd_instance.h"
#include "sd_render_pass.h"
#include "sd_util.h"

struct sd_device_extension_table sd_device_extensions_supported = {
   .KHR_bind_memory2 = true,
   .KHR_multiview = true,
   .KHR_create_renderpass2 = true,
   .KHR_depth_stencil_resolve = true,
   .KHR_dynamic_rendering = true,
   .KHR_image_format_list = true,
   .KHR_imageless_framebuffer = true,
   .KHR_get_memory_requirements2 = true,
   .KHR_dedicated_allocation = true,
   .EXT_host_query_reset = true,
   .KHR_copy_commands2 = true,
   .KHR_timeline_semaphore = true,
   .KHR_synchronization2 = true,
   .KHR_external_memory = true,
   .KHR_external_memory_fd = true,
   .EXT_queue_family_foreign = true,
   .EXT_shader_subgroup_vote = true,
   .EXT_shader_subgroup_ballot = true,
   .EXT_device_memory_report = true,
   .KHR_external_semaphore = true,
   .KHR_external_semaphore_fd = true,
   .KHR_external_fence = true,
   .KHR_external_fence_fd = true,
   .KHR_descriptor_update_template = true,
   .EXT_pipeline_creation_feedback = true,
   .KHR_sampler_mirror_clamp_to_edge = true,
   .KHR_maintenance1 = true,
   .KHR_maintenance2 = true,
   .KHR_sampler_ycbcr_conversion = true,
   .EXT_custom_border_color = true,
   .EXT_provoking_vertex = true,
   .EXT_vertex_attribute_divisor = true,
   .EXT_scalar_block_layout = true,
   .EXT_line_rasterization = true,
   .EXT_conditional_rendering = true,
   .EXT_attachment_feedback_loop_layout = true,
   .EXT_transform_feedback = true,
   .EXT_depth_clip_enable = true,
   .EXT_shader_viewport_index_layer = true,
   .KHR_storage_buffer_storage_class = true,
   .KHR_16bit_storage = true,
   .KHR_shader_draw_parameters = true,
   .KHR_variable_pointers = true,
   .EXT_extended_dynamic_state3 = true,
   /* vkCmdDrawIndirectCountKHR, vkCmdDrawIndexedIndirectCountKHR
    * (render/indirect_count) */
   .KHR_draw_indirect_count = true,
   /* VK_INDEX_TYPE_UINT8_EXT, restart value 0xff (sr_vertex.c;
    * render/index_uint8) */
   .EXT_index_type_uint8 = true,
   /* Uniform blocks laid out by the storage-buffer rules: offsets and
    * strides come from the module's decorations (sc_layout), modules are
    * validated with those rules (api/ubo_std430) */
   .KHR_uniform_buffer_standard_layout = true,
   /* Layouts change nothing in memory (every layout is the same linear
    * texels), so each aspect may be in its own; barriers of one aspect of
    * a depth/stencil image are taken as they are (render/separate_ds_layouts) */
   .KHR_separate_depth_stencil_layouts = true,
   /* Subgroup operations on 8/16/64-bit integers and 16-bit floats are the
    * translator's (unit/subgroup); of those types the device has 16- and
    * 64-bit integers (api/subgroup_types) */
   .KHR_shader_subgroup_extended_types = true,
   /* VkImageStencilUsageCreateInfo: the stencil usage is checked with the
    * depth usage at creation and in the format query; an aspect's usage
    * changes nothing in memory (api/stencil_usage) */
   .EXT_separate_stencil_usage = true,
   /* Float controls: what compiled code always does, see
    * sd_float_controls_properties (api/float_controls) */
   .KHR_shader_float_controls = true,
   /* SPIR-V 1.4 modules: validated in SPIRV-Tools' Vulkan 1.1 + SPIR-V 1.4
    * environment (sc_spirv_target_env); OpCopyLogical, composite OpSelect,
    * OpPtrEqual / OpPtrNotEqual / OpPtrDiff of storage-buffer variable
    * pointers (api/spirv_1_4) */
   .KHR_spirv_1_4 = true,
   /* The Vulkan memory model: see the feature struct (api/memory_model) */
   .KHR_vulkan_memory_model = true,
   /* 8-bit integers in storage and uniform buffers and push constants,
    * loaded, stored and converted (api/storage8); no 8-bit arithmetic */
   .KHR_8bit_storage = true,
   /* shaderInt8 only (api/int8); shaderFloat16 is not offered */
   .KHR_shader_float16_int8 = true,
   /* OpDemoteToHelperInvocation, OpTerminateInvocation (llvm_stage.c,
    * llvm_translate.c) and NonSemantic.* instruction sets, ignored
    * (llvm_translate.c): render/demote_terminate */
   .EXT_shader_demote_to_helper_invocation = true,
   .KHR_shader_terminate_invocation = true,
   .KHR_shader_non_semantic_info = true,
   /* Compute stages compiled at a required subgroup size (sd_pipeline.c;
    * api/subgroup_size) */
   .EXT_subgroup_size_control = true,
   /* Null-initialized Workgroup variables, stored by each workgroup's
    * first subgroup before any invocation runs (llvm_memory.c;
    * api/zero_workgroup) */
   .KHR_zero_initialize_workgroup_memory = true,
   /* vkCreatePrivateDataSlot and friends (sd_private_data.c;
    * api/private_data) */
   .EXT_private_data = true,
   /* Shale has no tools of its own to list (sd_GetPhysicalDeviceToolProperties;
    * api/tooling_info) */
   .EXT_tooling_info = true,
};

void
sd_physical_device_offer_android_native_buffer(void)
{
   sd_device_extensions_supported.ANDROID_native_buffer = true;
}

static uint64_t
sd_system_memory(void)
{
   long pages = sysconf(_SC_PHYS_PAGES);
   long page = sysconf(_SC_PAGE_SIZE);
   if (pages <= 0 || page <= 0)
      return 1ull << 30;
   return (uint64_t)pages * (uint64_t)page;
}

static void
sd_fill_limits(VkPhysicalDeviceLimits *l)
{
   *l = (VkPhysicalDeviceLimits) {
      .maxImageDimension1D = 16384,
      .maxImageDimension2D = 16384,
      .maxImageDimension3D = 2048,
      .maxImageDimensionCube = 16384,
      .maxImageArrayLayers = 2048,
      .maxTexelBufferElements = 128 * 1024 * 1024,
      .maxUniformBufferRange = 65536,
      .maxStorageBufferRange = UINT32_MAX,
      .maxPushConstantsSize = 256,
      .maxMemoryAllocationCount = 32768,   /* one mmap each; well under vm.max_map_count */
      .maxSamplerAllocationCount = 65536,
      .bufferImageGranularity = 64,
      .sparseAddressSpaceSize = 0,
      .maxBoundDescriptorSets = 8,
      .maxPerStageDescriptorSamplers = 1024,
      .maxPerStageDescriptorUniformBuffers = 1024,
      .maxPerStageDescriptorStorageBuffers = 1024,
      .maxPerStageDescriptorSampledImages = 1024,
      .maxPerStageDescriptorStorageImages = 1024,
      .maxPerStageDescriptorInputAttachments = 1024,
      .maxPerStageResources = 4096,
      .maxDescriptorSetSamplers = 4096,
      .maxDescriptorSetUniformBuffers = 4096,
      .maxDescriptorSetUniformBuffersDynamic = 16,
      .maxDescriptorSetStorageBuffers = 4096,
      .maxDescriptorSetStorageBuffersDynamic = 16,
      .maxDescriptorSetSampledImages = 4096,
      .maxDescriptorSetStorageImages = 4096,
      .maxDescriptorSetInputAttachments = 4096,
      .maxVertexInputAttributes = 16,     /* SR_MAX_VERTEX_*; render/vertex_input */
      .maxVertexInputBindings = 16,
      .maxVertexInputAttributeOffset = 2047,
      .maxVertexInputBindingStride = 2048,
      .maxVertexOutputComponents = 128,
      /* Tessellation: the spec's minimums (render/tess draws through
       * the API; the shader ABI holds 32 Locations a vertex and a patch:
       * 128 components each, 32 vertices a patch). */
      .maxTessellationGenerationLevel = 64,
      .maxTessellationPatchSize = 32,
      .maxTessellationControlPerVertexInputComponents = 64,
      .maxTessellationControlPerVertexOutputComponents = 64,
      .maxTessellationControlPerPatchOutputComponents = 120,
      .maxTessellationControlTotalOutputComponents = 2048,
      .maxTessellationEvaluationInputComponents = 64,
      .maxTessellationEvaluationOutputComponents = 64,
      /* Geometry shaders: the spec's minimums (render/geometry). */
      .maxGeometryShaderInvocations = 32,
      .maxGeometryInputComponents = 64,
      .maxGeometryOutputComponents = 64,
      .maxGeometryOutputVertices = 256,
      .maxGeometryTotalOutputComponents = 1024,
      .maxFragmentInputComponents = 128,
      .maxFragmentOutputAttachments = 8,
      .maxFragmentDualSrcAttachments = 1,   /* render/fragment_state */
      .maxFragmentCombinedOutputResources = 4096,
      .maxComputeSharedMemorySize = 32768,
      .maxComputeWorkGroupCount = { 65535, 65535, 65535 },
      .maxComputeWorkGroupInvocations = 1024,
      .maxComputeWorkGroupSize = { 1024, 1024, 64 },
      .subPixelPrecisionBits = 8,
      .subTexelPrecisionBits = 8,
      .mipmapPrecisionBits = 8,
      .maxDrawIndexedIndexValue = UINT32_MAX,
      .maxDrawIndirectCount = UINT32_MAX,   /* a loop over the records; render/raster_state */
      .maxSamplerLodBias = 16.0f,
      .maxSamplerAnisotropy = 16.0f,   /* sr_sample.c's anisotropic filter; unit/aniso */
      .maxViewports = SR_MAX_VIEWPORTS,   /* 16; render/viewports */
      /* SR_MAX_FRAMEBUFFER_SIZE; render/raster_state draws 8192x4 and 4x8192 */
      .maxViewportDimensions = { 8192, 8192 },
      .viewportBoundsRange = { -16384.0f, 16383.0f },
      .viewportSubPixelBits = 8,
      .minMemoryMapAlignment = 64,
      .minTexelBufferOffsetAlignment = 16,
      .minUniformBufferOffsetAlignment = 16,
      .minStorageBufferOffsetAlignment = 16,
      .minTexelOffset = -8,
      .maxTexelOffset = 7,
      .minTexelGatherOffset = -8,
      .maxTexelGatherOffset = 7,
      .minInterpolationOffset = 0.0f,
      .maxInterpolationOffset = 0.0f,
      .subPixelInterpolationOffsetBits = 0,
      .maxFramebufferWidth = 8192,
      .maxFramebufferHeight = 8192,
      .maxFramebufferLayers = 2048,
      /* 4 samples: coverage, resolves, masks, sample shading, depth,
       * stencil, no attachments (render/msaa). */
      .framebufferColorSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .framebufferDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .framebufferStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .framebufferNoAttachmentsSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .maxColorAttachments = 8,
      /* Shaders read samples of 4-sample images by texelFetch and
       * subpassInputMS (render/msaa_sampled: colour, depth, stencil). */
      .sampledImageColorSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .sampledImageIntegerSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .sampledImageDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .sampledImageStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      /* Storage images of 4 samples: OpImageRead / OpImageWrite with a
       * Sample operand, atomics on samples (render/msaa_storage). */
      .storageImageSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT,
      .maxSampleMaskWords = 1,
      .timestampComputeAndGraphics = VK_TRUE,
      .timestampPeriod = 1.0f,
      .maxClipDistances = 8,   /* render/raster_state: 8 clip, 4 + 4 clip and cull */
      .maxCullDistances = 8,
      .maxCombinedClipAndCullDistances = 8,
      .discreteQueuePriorities = 2,
      /* render/raster_state draws sizes and widths 2.375, 5 and 64 */
      .pointSizeRange = { 1.0f, 64.0f },
      .lineWidthRange = { 1.0f, 64.0f },
      .pointSizeGranularity = 0.125f,
      .lineWidthGranularity = 0.125f,
      .strictLines = VK_FALSE,
      .standardSampleLocations = VK_TRUE,
      .optimalBufferCopyOffsetAlignment = 16,
      .optimalBufferCopyRowPitchAlignment = 16,
      .nonCoherentAtomSize = 64,
   };
}

/* The first 16 bytes of SHA-256("shale pipeline cache", the driver's build
 * ID): every build that changes the driver's code gets another UUID, so
 * pipeline cache data (the spec's header check) and caches keyed on the UUID
 * by applications and layers (zink's, say) never carry code or meaning from
 * another build. A build without a build ID note falls back to a fixed
 * string, bumped by hand. */
static void
sd_pipeline_cache_uuid(uint8_t uuid[VK_UUID_SIZE])
{
   uint8_t id[SU_BUILD_ID_MAX];
   size_t size = 0;
   struct su_sha256 h;
   su_sha256_init(&h);
   su_sha256_update(&h, "shale pipeline cache", 20);
   if (su_build_id((const void *)sd_pipeline_cache_uuid, id, &size))
      su_sha256_update(&h, id, size);
   else
      su_sha256_update(&h, "shale-cache-0001", 16);
   uint8_t digest[SU_SHA256_SIZE];
   su_sha256_final(&h, digest);
   memcpy(uuid, digest, VK_UUID_SIZE);
}

VkResult
sd_physical_device_create(struct sd_instance *instance, struct sd_physical_device **out)
{
   struct sd_physical_device *pdev = sd_zalloc(&instance->alloc, sizeof(*pdev), SD_ALIGN_DEFAULT,
                                               VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
   if (!pdev)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&pdev->base, VK_OBJECT_TYPE_PHYSICAL_DEVICE, NULL);
   pdev->instance = instance;
   pdev->api_version = SD_MAX_API_VERSION;

   VkPhysicalDeviceProperties *p = &pdev->properties;
   p->apiVersion = SD_MAX_API_VERSION;
   p->driverVersion = VK_MAKE_VERSION(0, 1, 0);
   p->vendorID = 0;   /* no PCI vendor and no registered Khronos vendor id */
   p->deviceID = 0;
   p->deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
   snprintf(p->deviceName, sizeof(p->deviceName), "Shale (CPU)");
   sd_pipeline_cache_uuid(p->pipelineCacheUUID);
   sd_fill_limits(&p->limits);
   /* No sparse resources. */
   memset(&p->sparseProperties, 0, sizeof(p->sparseProperties));

   VkPhysicalDeviceMemoryProperties *m = &pdev->memory;
   m->memoryHeapCount = 1;
   m->memoryHeaps[0].size = sd_system_memory() / 4 * 3;
   m->memoryHeaps[0].flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
   m->memoryTypeCount = SD_MEMORY_TYPE_COUNT;
   m->memoryTypes[0].propertyFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                     VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
   m->memoryTypes[0].heapIndex = 0;
   m->memoryTypes[1].propertyFlags = m->memoryTypes[0].propertyFlags |
                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
   m->memoryTypes[1].heapIndex = 0;

   *out = pdev;
   return VK_SUCCESS;
}

void
sd_physical_device_destroy(struct sd_physical_device *pdev)
{
   if (pdev)
      sd_free(&pdev->instance->alloc, pdev);
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties *pProperties)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   *pProperties = pdev->properties;
}

/* ---- Vulkan 1.1 properties: each struct filled from one place, so
 * VkPhysicalDeviceVulkan11Properties equals the individual structs
 * (api/version11 compares them). ---- */

/* Subgroups are the SIMD lanes of compiled code (W, SHALE_SIMD_WIDTH) in
 * compute shaders, the only stage whose subgroup operations are tested
 * (unit/subgroup: the eight classes at W 4, 8 and 16). */
static void
sd_subgroup_properties(VkPhysicalDeviceSubgroupProperties *p)
{
   p->subgroupSize = sc_default_simd_width();
   p->supportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
   p->supportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT |
                            VK_SUBGROUP_FEATURE_ARITHMETIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT |
                            VK_SUBGROUP_FEATURE_SHUFFLE_BIT |
                            VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT |
                            VK_SUBGROUP_FEATURE_CLUSTERED_BIT | VK_SUBGROUP_FEATURE_QUAD_BIT;
   p->quadOperationsInAllStages = VK_FALSE;
}

/* A point is kept only when its vertex is inside the clip volume
 * (sr_setup.c), as ALL_CLIP_PLANES says (render/raster_state draws points
 * across the target's edges against lavapipe, which clips the same way). */
static const VkPointClippingBehavior sd_point_clipping = VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;

static void
sd_maintenance3_properties(const struct sd_physical_device *pdev,
                           VkPhysicalDeviceMaintenance3Properties *p)
{
   p->maxPerSetDescriptors = SD_MAX_PER_SET_DESCRIPTORS;
   /* vkAllocateMemory refuses more than the heap (sd_memory.c). */
   p->maxMemoryAllocationSize = pdev->memory.memoryHeaps[0].size;
}

/* A view is a layer of the attachments and a draw is queued once per view,
 * so any of the 32 bits of a view mask works (render/multiview renders
 * view 31); instance indices are plain 32-bit values: the minimum the spec
 * asks for, 2^27 - 1, is what render/multiview draws at. */
static void
sd_multiview_properties(VkPhysicalDeviceMultiviewProperties *p)
{
   p->maxMultiviewViewCount = 32;
   p->maxMultiviewInstanceIndex = (1u << 27) - 1;
}

/* Float controls (VK_KHR_shader_float_controls, Vulkan 1.2): the
 * translator emits plain IEEE 754 LLVM operations (no fast-math flags) and
 * nothing changes the SSE/AVX control register from its default (round to
 * nearest even, denormals neither flushed nor treated as zero), so 32- and
 * 64-bit code always keeps denormals, signed zeros, infinities and NaNs and
 * rounds to nearest even: the execution modes asking for that need nothing
 * done, and being always on, each width's behaviour is independent of the
 * others'. Flush-to-zero and RTZ would need code of their own: not
 * offered; nor anything for 16-bit floats (no shaderFloat16).
 * api/float_controls holds add, sub, mul, div and conversions on denormal,
 * signed-zero, infinite, NaN and halfway inputs to the host's IEEE results. */
static void
sd_float_controls_properties(VkPhysicalDeviceFloatControlsProperties *p)
{
   p->denormBehaviorIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
   p->roundingModeIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
   p->shaderSignedZeroInfNanPreserveFloat16 = VK_FALSE;
   p->shaderSignedZeroInfNanPreserveFloat32 = VK_TRUE;
   p->shaderSignedZeroInfNanPreserveFloat64 = VK_TRUE;
   p->shaderDenormPreserveFloat16 = VK_FALSE;
   p->shaderDenormPreserveFloat32 = VK_TRUE;
   p->shaderDenormPreserveFloat64 = VK_TRUE;
   p->shaderDenormFlushToZeroFloat16 = VK_FALSE;
   p->shaderDenormFlushToZeroFloat32 = VK_FALSE;
   p->shaderDenormFlushToZeroFloat64 = VK_FALSE;
   p->shaderRoundingModeRTEFloat16 = VK_FALSE;
   p->shaderRoundingModeRTEFloat32 = VK_TRUE;
   p->shaderRoundingModeRTEFloat64 = VK_TRUE;
   p->shaderRoundingModeRTZFloat16 = VK_FALSE;
   p->shaderRoundingModeRTZFloat32 = VK_FALSE;
   p->shaderRoundingModeRTZFloat64 = VK_FALSE;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice, VkPhysicalDeviceProperties2 *pProperties)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   pProperties->properties = pdev->properties;
   sd_foreach_struct_out(s, pProperties->pNext) {
      switch ((int)s->sType) {
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID:
         if (sd_device_extensions_supported.ANDROID_native_buffer)
            sd_image_presentation_properties_android(
               (VkPhysicalDevicePresentationPropertiesANDROID *)s);
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES:
         sd_external_fill_id_properties((VkPhysicalDeviceIDProperties *)s);
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES:
         sd_multiview_properties((VkPhysicalDeviceMultiviewProperties *)s);
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_STENCIL_RESOLVE_PROPERTIES:
         /* The rasterizer's depth/stencil resolve (sr_resolve.c) takes each
          * aspect's mode on its own, NONE included (render/ds_resolve
          * checks every mode, and mixed and NONE pairs, on D32_SFLOAT and
          * D24_UNORM_S8_UINT, through render passes and dynamic
          * rendering). */
         if (sd_device_extensions_supported.KHR_depth_stencil_resolve) {
            VkPhysicalDeviceDepthStencilResolveProperties *d =
               (VkPhysicalDeviceDepthStencilResolveProperties *)s;
            d->supportedDepthResolveModes = SD_DEPTH_RESOLVE_MODES;
            d->supportedStencilResolveModes = SD_STENCIL_RESOLVE_MODES;
            d->independentResolveNone = VK_TRUE;
            d->independentResolve = VK_TRUE;
         }
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES:
         sd_subgroup_properties((VkPhysicalDeviceSubgroupProperties *)s);
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES:
         ((VkPhysicalDevicePointClippingProperties *)s)->pointClippingBehavior = sd_point_clipping;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_PROPERTIES:
         ((VkPhysicalDeviceProtectedMemoryProperties *)s)->protectedNoFault = VK_FALSE;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES:
         sd_maintenance3_properties(pdev, (VkPhysicalDeviceMaintenance3Properties *)s);
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES: {
         VkPhysicalDeviceVulkan11Properties *v = (VkPhysicalDeviceVulkan11Properties *)s;
         VkPhysicalDeviceIDProperties id = { 0 };
         sd_external_fill_id_properties(&id);
         memcpy(v->deviceUUID, id.deviceUUID, VK_UUID_SIZE);
         memcpy(v->driverUUID, id.driverUUID, VK_UUID_SIZE);
         memcpy(v->deviceLUID, id.deviceLUID, VK_LUID_SIZE);
         v->deviceNodeMask = id.deviceNodeMask;
         v->deviceLUIDValid = id.deviceLUIDValid;
         VkPhysicalDeviceSubgroupProperties sg = { 0 };
         sd_subgroup_properties(&sg);
         v->subgroupSize = sg.subgroupSize;
         v->subgroupSupportedStages = sg.supportedStages;
         v->subgroupSupportedOperations = sg.supportedOperations;
         v->subgroupQuadOperationsInAllStages = sg.quadOperationsInAllStages;
         v->pointClippingBehavior = sd_point_clipping;
         VkPhysicalDeviceMultiviewProperties mv = { 0 };
         sd_multiview_properties(&mv);
         v->maxMultiviewViewCount = mv.maxMultiviewViewCount;
         v->maxMultiviewInstanceIndex = mv.maxMultiviewInstanceIndex;
         v->protectedNoFault = VK_FALSE;
         VkPhysicalDeviceMaintenance3Properties m3 = { 0 };
         sd_maintenance3_properties(pdev, &m3);
         v->maxPerSetDescriptors = m3.maxPerSetDescriptors;
         v->maxMemoryAllocationSize = m3.maxMemoryAllocationSize;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES:
         /* The SIMD widths the compiler builds (4, 8, 16), in compute
          * shaders; subgroupSize (the default width) lies between. */
         if (sd_device_extensions_supported.EXT_subgroup_size_control) {
            VkPhysicalDeviceSubgroupSizeControlProperties *sc = (void *)s;
            sc->minSubgroupSize = 4;
            sc->maxSubgroupSize = 16;
            sc->maxComputeWorkgroupSubgroups =
               pdev->properties.limits.maxComputeWorkGroupInvocations / 4;
            sc->requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
         }
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES:
         if (sd_device_extensions_supported.KHR_shader_float_controls)
            sd_float_controls_properties((VkPhysicalDeviceFloatControlsProperties *)s);
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_PROPERTIES:
         if (sd_device_extensions_supported.KHR_timeline_semaphore)
            ((VkPhysicalDeviceTimelineSemaphoreProperties *)s)->maxTimelineSemaphoreValueDifference =
               UINT64_MAX;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_PROPERTIES_EXT:
         /* A custom colour is 16 bytes of the sampler's own state: any
          * sampler may have one. */
         if (sd_device_extensions_supported.EXT_custom_border_color)
            ((VkPhysicalDeviceCustomBorderColorPropertiesEXT *)s)->maxCustomBorderColorSamplers =
               pdev->properties.limits.maxSamplerAllocationCount;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_PROPERTIES_EXT:
         /* The element index is computed in 64 bits from any 32-bit divisor
          * (sr_vertex.c; render/vertex_divisor draws with UINT32_MAX). */
         if (sd_device_extensions_supported.EXT_vertex_attribute_divisor)
            ((VkPhysicalDeviceVertexAttributeDivisorPropertiesEXT *)s)->maxVertexAttribDivisor = UINT32_MAX;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_PROPERTIES_EXT:
         /* The mode is part of each draw's state: pipelines of either mode
          * mix in a render pass instance. Transform feedback writes each
          * triangle's provoking vertex first (FIRST) or last (LAST), fans
          * included (sr_xfb.c; render/xfb). */
         if (sd_device_extensions_supported.EXT_provoking_vertex) {
            VkPhysicalDeviceProvokingVertexPropertiesEXT *pv = (void *)s;
            pv->provokingVertexModePerPipeline = VK_TRUE;
            pv->transformFeedbackPreservesTriangleFanProvokingVertex =
               sd_device_extensions_supported.EXT_transform_feedback;
         }
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_PROPERTIES_EXT:
         /* The last stage before rasterization is captured, vertex or
          * geometry (render/xfb, render/geometry_xfb); one stream (no
          * geometryStreams); up to SHALE_MAX_XFB_COMPONENTS 32-bit
          * components a vertex; offsets and strides fit 16 bits, counters
          * 32. */
         if (sd_device_extensions_supported.EXT_transform_feedback) {
            VkPhysicalDeviceTransformFeedbackPropertiesEXT *x = (void *)s;
            x->maxTransformFeedbackStreams = 1;
            x->maxTransformFeedbackBuffers = SHALE_MAX_XFB_BUFFERS;
            x->maxTransformFeedbackBufferSize = UINT32_MAX;
            x->maxTransformFeedbackStreamDataSize = SHALE_MAX_XFB_COMPONENTS * 4;
            x->maxTransformFeedbackBufferDataSize = SHALE_MAX_XFB_COMPONENTS * 4;
            x->maxTransformFeedbackBufferDataStride = 2048;
            x->transformFeedbackQueries = VK_TRUE;
            x->transformFeedbackStreamsLinesTriangles = VK_FALSE;
            x->transformFeedbackRasterizationStreamSelect = VK_FALSE;
            x->transformFeedbackDraw = VK_TRUE;
         }
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_PROPERTIES_EXT:
         /* Only the depth clamp and clip enables and the polygon mode are dynamic. */
         if (sd_device_extensions_supported.EXT_extended_dynamic_state3)
            ((VkPhysicalDeviceExtendedDynamicState3PropertiesEXT *)s)
               ->dynamicPrimitiveTopologyUnrestricted = VK_FALSE;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_PROPERTIES_EXT:
         /* Line ends snap to SR_SUBPIXEL_BITS like every vertex. */
         if (sd_device_extensions_supported.EXT_line_rasterization)
            ((VkPhysicalDeviceLineRasterizationPropertiesEXT *)s)->lineSubPixelPrecisionBits =
               pdev->properties.limits.subPixelPrecisionBits;
         break;
      default:
         break; /* unknown or unsupported: left untouched */
      }
   }
}

void
sd_physical_device_get_features(struct sd_physical_device *pdev, VkPhysicalDeviceFeatures2 *f)
{
   /* Robust buffer access and dynamically indexed
    * buffer arrays are what compiled shaders honour (api/compute); 64-bit
    * integers and floats and 16-bit integers in shaders (api/types);
    * gathers with offsets and ConstOffsets, cube array views (sampled and
    * storage) and dynamically indexed arrays of samplers and sampled images
    * (api/sampling, api/sampling_arrays). */
   memset(&f->features, 0, sizeof(f->features));
   f->features.robustBufferAccess = VK_TRUE;
   f->features.shaderUniformBufferArrayDynamicIndexing = VK_TRUE;
   f->features.shaderStorageBufferArrayDynamicIndexing = VK_TRUE;
   f->features.shaderFloat64 = VK_TRUE;
   f->features.shaderInt64 = VK_TRUE;
   f->features.shaderInt16 = VK_TRUE;
   f->features.shaderImageGatherExtended = VK_TRUE;
   f->features.imageCubeArray = VK_TRUE;
   /* Reads, writes and atomics on samples of 4-sample storage images
    * (render/msaa_storage). */
   f->features.shaderStorageImageMultisample = VK_TRUE;
   /* STORAGE_IMAGE on every storage image extended format (sd_format.c);
    * loads and stores of images declared without a format convert the
    * bound view's format, which the descriptor record carries
    * (llvm_texel.c's run-time switch); api/storage_formats runs every
    * storage format both ways in compute and fragment shaders. */
   f->features.shaderStorageImageExtendedFormats = VK_TRUE;
   f->features.shaderStorageImageReadWithoutFormat = VK_TRUE;
   f->features.shaderStorageImageWriteWithoutFormat = VK_TRUE;
   f->features.shaderSampledImageArrayDynamicIndexing = VK_TRUE;
   /* Blending: every factor and op with per-attachment states, dual
    * source, logic ops (render/fragment_state). */
   f->features.independentBlend = VK_TRUE;
   f->features.dualSrcBlend = VK_TRUE;
   f->features.logicOp = VK_TRUE;
   /* Storage buffer writes and atomics from fragment and vertex shaders
    * (render/fragment_state). */
   f->features.fragmentStoresAndAtomics = VK_TRUE;
   f->features.vertexPipelineStoresAndAtomics = VK_TRUE;
   /* Exact occlusion counts, also over secondary command buffers that
    * inherit the query (render/passes). */
   f->features.occlusionQueryPrecise = VK_TRUE;
   f->features.inheritedQueries = VK_TRUE;
   /* Pipeline statistics queries, every counter (render/pstats; the
    * geometry shader ones: render/geometry). */
   f->features.pipelineStatisticsQuery = VK_TRUE;
   /* Geometry shaders: every input and output primitive, Invocations,
    * PrimitiveId, the adjacency topologies (render/geometry). */
   f->features.geometryShader = VK_TRUE;
   /* Tessellation: both stages, every domain, spacing, order and point
    * mode, both domain origins, a geometry shader after them
    * (render/tess; unit/tess, unit/tess_stages); PointSize from the
    * evaluation or the geometry shader (render/tess: point mode with sizes
    * 1 and 3, a geometry shader's points of size 3). */
   f->features.tessellationShader = VK_TRUE;
   f->features.shaderTessellationAndGeometryPointSize = VK_TRUE;
   /* Viewport and scissor arrays (firstViewport, dynamic or not), the
    * geometry shader's ViewportIndex picking each primitive's transform,
    * guard band, depth range and scissor, ViewportIndex read by fragment
    * shaders (render/viewports). */
   f->features.multiViewport = VK_TRUE;
   /* Sample shading and alpha to one (render/msaa). */
   f->features.sampleRateShading = VK_TRUE;
   f->features.alphaToOne = VK_TRUE;
   /* Rasterization and draws (render/raster_state). */
   f->features.fullDrawIndexUint32 = VK_TRUE;
   f->features.multiDrawIndirect = VK_TRUE;
   f->features.drawIndirectFirstInstance = VK_TRUE;
   f->features.depthClamp = VK_TRUE;
   f->features.depthBiasClamp = VK_TRUE;
   f->features.fillModeNonSolid = VK_TRUE;
   f->features.depthBounds = VK_TRUE;
   f->features.wideLines = VK_TRUE;
   f->features.largePoints = VK_TRUE;
   f->features.shaderClipDistance = VK_TRUE;
   f->features.shaderCullDistance = VK_TRUE;
   /* Anisotropic filtering in the generic sampler (sr_sample.c; unit/aniso). */
   f->features.samplerAnisotropy = VK_TRUE;
   const struct sd_device_extension_table *ext = &sd_device_extensions_supported;
   /* Vulkan 1.1's optional features, from which the individual structs are
    * filled: 16-bit storage in storage and uniform buffers and push
    * constants (api/storage16) and stage inputs and outputs
    * (render/stage_io), multiview (render/multiview) with geometry and
    * tessellation shaders (multiviewGeometryShader,
    * multiviewTessellationShader: each view's draw runs every stage with
    * that ViewIndex, render/multiview's stages pass), samplerYcbcrConversion (api/ycbcr),
    * shaderDrawParameters (render/draw_params),
    * variablePointersStorageBuffer (api/varptr); not claimed:
    * variablePointers (Workgroup variable pointers), protected memory. */
   const VkPhysicalDeviceVulkan11Features v11 = {
      .storageBuffer16BitAccess = ext->KHR_16bit_storage,
      .uniformAndStorageBuffer16BitAccess = ext->KHR_16bit_storage,
      .storagePushConstant16 = ext->KHR_16bit_storage,
      .storageInputOutput16 = ext->KHR_16bit_storage,
      .multiview = ext->KHR_multiview,
      .multiviewGeometryShader = ext->KHR_multiview,
      .multiviewTessellationShader = ext->KHR_multiview,
      .samplerYcbcrConversion = ext->KHR_sampler_ycbcr_conversion,
      .shaderDrawParameters = ext->KHR_shader_draw_parameters,
      .variablePointersStorageBuffer = ext->KHR_variable_pointers,
   };
   sd_foreach_struct_out(s, f->pNext) {
      switch ((int)s->sType) {
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES: {
         VkPhysicalDeviceVulkan11Features *v = (VkPhysicalDeviceVulkan11Features *)s;
         void *next = v->pNext;
         *v = v11;
         v->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
         v->pNext = next;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES: {
         VkPhysicalDevice16BitStorageFeatures *b = (VkPhysicalDevice16BitStorageFeatures *)s;
         b->storageBuffer16BitAccess = v11.storageBuffer16BitAccess;
         b->uniformAndStorageBuffer16BitAccess = v11.uniformAndStorageBuffer16BitAccess;
         b->storagePushConstant16 = v11.storagePushConstant16;
         b->storageInputOutput16 = v11.storageInputOutput16;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES: {
         VkPhysicalDeviceVariablePointersFeatures *vp =
            (VkPhysicalDeviceVariablePointersFeatures *)s;
         vp->variablePointersStorageBuffer = v11.variablePointersStorageBuffer;
         vp->variablePointers = v11.variablePointers;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES:
         ((VkPhysicalDeviceProtectedMemoryFeatures *)s)->protectedMemory = v11.protectedMemory;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES:
         ((VkPhysicalDeviceShaderDrawParametersFeatures *)s)->shaderDrawParameters =
            v11.shaderDrawParameters;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES:
         ((VkPhysicalDeviceTimelineSemaphoreFeatures *)s)->timelineSemaphore =
            ext->KHR_timeline_semaphore;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES:
         ((VkPhysicalDeviceSynchronization2Features *)s)->synchronization2 =
            ext->KHR_synchronization2;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEVICE_MEMORY_REPORT_FEATURES_EXT:
         ((VkPhysicalDeviceDeviceMemoryReportFeaturesEXT *)s)->deviceMemoryReport =
            ext->EXT_device_memory_report;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES:
         ((VkPhysicalDeviceHostQueryResetFeatures *)s)->hostQueryReset = ext->EXT_host_query_reset;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_FEATURES: {
         VkPhysicalDeviceMultiviewFeatures *mv = (VkPhysicalDeviceMultiviewFeatures *)s;
         mv->multiview = v11.multiview;
         mv->multiviewGeometryShader = v11.multiviewGeometryShader;
         mv->multiviewTessellationShader = v11.multiviewTessellationShader;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES:
         ((VkPhysicalDeviceSamplerYcbcrConversionFeatures *)s)->samplerYcbcrConversion =
            v11.samplerYcbcrConversion;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CUSTOM_BORDER_COLOR_FEATURES_EXT: {
         /* render/zink_border; the image view gives the colour's numeric
          * class, so no format is needed. */
         VkPhysicalDeviceCustomBorderColorFeaturesEXT *cb = (void *)s;
         cb->customBorderColors = ext->EXT_custom_border_color;
         cb->customBorderColorWithoutFormat = ext->EXT_custom_border_color;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_FEATURES_EXT: {
         /* render/vertex_divisor: divisors 0, 1, 3 and UINT32_MAX with a
          * nonzero firstInstance */
         VkPhysicalDeviceVertexAttributeDivisorFeaturesEXT *vd = (void *)s;
         vd->vertexAttributeInstanceRateDivisor = ext->EXT_vertex_attribute_divisor;
         vd->vertexAttributeInstanceRateZeroDivisor = ext->EXT_vertex_attribute_divisor;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_INDEX_TYPE_UINT8_FEATURES_EXT:
         /* render/index_uint8: lists, strips with restart 0xff, offsets,
          * vertexOffset, indirect draws */
         ((VkPhysicalDeviceIndexTypeUint8FeaturesEXT *)s)->indexTypeUint8 =
            ext->EXT_index_type_uint8;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DEPTH_CLIP_ENABLE_FEATURES_EXT:
         /* render/depth_clip: the four clamp x clip combinations. */
         ((VkPhysicalDeviceDepthClipEnableFeaturesEXT *)s)->depthClipEnable =
            ext->EXT_depth_clip_enable;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTENDED_DYNAMIC_STATE_3_FEATURES_EXT: {
         /* render/depth_clip: the combinations again with the clip enable,
          * and with clamp and clip enables, set by command against
          * pipelines whose values differ; render/raster_state: LINE and
          * POINT set by command on FILL pipelines; no other state of it. */
         VkPhysicalDeviceExtendedDynamicState3FeaturesEXT *e3 = (void *)s;
         const size_t first =
            offsetof(VkPhysicalDeviceExtendedDynamicState3FeaturesEXT,
                     extendedDynamicState3TessellationDomainOrigin);
         memset((char *)e3 + first, 0, sizeof(*e3) - first);
         e3->extendedDynamicState3DepthClampEnable = ext->EXT_extended_dynamic_state3;
         e3->extendedDynamicState3DepthClipEnable = ext->EXT_extended_dynamic_state3;
         e3->extendedDynamicState3PolygonMode = ext->EXT_extended_dynamic_state3;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROVOKING_VERTEX_FEATURES_EXT: {
         /* render/zink_provoking; transform feedback keeps the provoking
          * vertex first or last in every triangle (render/xfb) */
         VkPhysicalDeviceProvokingVertexFeaturesEXT *pv = (void *)s;
         pv->provokingVertexLast = ext->EXT_provoking_vertex;
         pv->transformFeedbackPreservesProvokingVertex =
            ext->EXT_provoking_vertex && ext->EXT_transform_feedback;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT: {
         /* render/line_raster: strict rectangles and diamond-exit lines;
          * no smooth (coverage) lines, no stippling. */
         VkPhysicalDeviceLineRasterizationFeaturesEXT *lr = (void *)s;
         lr->rectangularLines = ext->EXT_line_rasterization;
         lr->bresenhamLines = ext->EXT_line_rasterization;
         lr->smoothLines = VK_FALSE;
         lr->stippledRectangularLines = VK_FALSE;
         lr->stippledBresenhamLines = VK_FALSE;
         lr->stippledSmoothLines = VK_FALSE;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_CONDITIONAL_RENDERING_FEATURES_EXT: {
         /* The predicate is latched at the begin's replay; secondary
          * command buffers replay with their caller's state, so they
          * inherit it (render/conditional). */
         VkPhysicalDeviceConditionalRenderingFeaturesEXT *cr = (void *)s;
         cr->conditionalRendering = ext->EXT_conditional_rendering;
         cr->inheritedConditionalRendering = ext->EXT_conditional_rendering;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT: {
         /* Vertex outputs captured in primitive order (render/xfb); no
          * geometry shaders, so no streams past 0. */
         VkPhysicalDeviceTransformFeedbackFeaturesEXT *tf = (void *)s;
         tf->transformFeedback = ext->EXT_transform_feedback;
         tf->geometryStreams = VK_FALSE;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES:
         /* vkCmdBeginRendering lowers to the render pass path
          * (sd_cmd_render.c); render/dynamic_rendering, render/ds_resolve. */
         ((VkPhysicalDeviceDynamicRenderingFeatures *)s)->dynamicRendering =
            ext->KHR_dynamic_rendering;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGELESS_FRAMEBUFFER_FEATURES:
         /* Views come from the begin info (sd_cmd_render.c);
          * render/imageless. */
         ((VkPhysicalDeviceImagelessFramebufferFeatures *)s)->imagelessFramebuffer =
            ext->KHR_imageless_framebuffer;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ATTACHMENT_FEEDBACK_LOOP_LAYOUT_FEATURES_EXT:
         /* Layouts change nothing in memory; a barrier inside a render
          * pass flushes the scene (sd_sync.c), so sampled reads of an
          * attachment see the draws before it; render/feedback_loop. */
         ((VkPhysicalDeviceAttachmentFeedbackLoopLayoutFeaturesEXT *)s)
            ->attachmentFeedbackLoopLayout = ext->EXT_attachment_feedback_loop_layout;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_UNIFORM_BUFFER_STANDARD_LAYOUT_FEATURES:
         /* api/ubo_std430: std430 uniform blocks in compute shaders. */
         ((VkPhysicalDeviceUniformBufferStandardLayoutFeatures *)s)->uniformBufferStandardLayout =
            ext->KHR_uniform_buffer_standard_layout;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SEPARATE_DEPTH_STENCIL_LAYOUTS_FEATURES:
         /* render/separate_ds_layouts: per-aspect barriers, clears, a render
          * pass and dynamic rendering with the aspects in different layouts. */
         ((VkPhysicalDeviceSeparateDepthStencilLayoutsFeatures *)s)->separateDepthStencilLayouts =
            ext->KHR_separate_depth_stencil_layouts;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES:
         /* api/subgroup_types: 16- and 64-bit integer reductions, scans,
          * clustered reductions, shuffles, broadcasts, quad swaps. */
         ((VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures *)s)->shaderSubgroupExtendedTypes =
            ext->KHR_shader_subgroup_extended_types;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES: {
         /* Every atomic is a sequentially consistent LLVM atomic and every
          * barrier's memory part a sequentially consistent fence, whatever
          * its scope and semantics; memory is one coherent space for all
          * threads (the CPU's), so availability and visibility operations
          * need nothing more and device scope is no different from
          * workgroup scope. api/memory_model: workgroups running
          * concurrently pass sums through release / acquire atomics.
          * Availability/visibility chains are not claimed (untested). */
         VkPhysicalDeviceVulkanMemoryModelFeatures *mm = (void *)s;
         mm->vulkanMemoryModel = ext->KHR_vulkan_memory_model;
         mm->vulkanMemoryModelDeviceScope = ext->KHR_vulkan_memory_model;
         mm->vulkanMemoryModelAvailabilityVisibilityChains = VK_FALSE;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES: {
         /* api/storage8: members of all three kinds of block read and
          * widened, 8-bit stores by adjacent lanes. */
         VkPhysicalDevice8BitStorageFeatures *s8 = (void *)s;
         s8->storageBuffer8BitAccess = ext->KHR_8bit_storage;
         s8->uniformAndStorageBuffer8BitAccess = ext->KHR_8bit_storage;
         s8->storagePushConstant8 = ext->KHR_8bit_storage;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES: {
         /* api/int8: 8-bit arithmetic, division, shifts, comparisons,
          * conversions; no test holds 16-bit float arithmetic. */
         VkPhysicalDeviceShaderFloat16Int8Features *fi = (void *)s;
         fi->shaderFloat16 = VK_FALSE;
         fi->shaderInt8 = ext->KHR_shader_float16_int8;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_DEMOTE_TO_HELPER_INVOCATION_FEATURES_EXT:
         /* render/demote_terminate: demoted pixels go on as helpers for
          * their quad's derivatives and write nothing. */
         ((VkPhysicalDeviceShaderDemoteToHelperInvocationFeaturesEXT *)s)
            ->shaderDemoteToHelperInvocation = ext->EXT_shader_demote_to_helper_invocation;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_TERMINATE_INVOCATION_FEATURES:
         /* render/demote_terminate: terminated quads write nothing. */
         ((VkPhysicalDeviceShaderTerminateInvocationFeatures *)s)->shaderTerminateInvocation =
            ext->KHR_shader_terminate_invocation;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES: {
         /* api/subgroup_size: sizes 4, 8, 16 required per pipeline, full
          * subgroups with REQUIRE_FULL_SUBGROUPS. */
         VkPhysicalDeviceSubgroupSizeControlFeatures *sc = (void *)s;
         sc->subgroupSizeControl = ext->EXT_subgroup_size_control;
         sc->computeFullSubgroups = ext->EXT_subgroup_size_control;
         break;
      }
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ZERO_INITIALIZE_WORKGROUP_MEMORY_FEATURES:
         /* api/zero_workgroup: zero before any write, in every workgroup. */
         ((VkPhysicalDeviceZeroInitializeWorkgroupMemoryFeatures *)s)
            ->shaderZeroInitializeWorkgroupMemory = ext->KHR_zero_initialize_workgroup_memory;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRIVATE_DATA_FEATURES:
         /* api/private_data */
         ((VkPhysicalDevicePrivateDataFeatures *)s)->privateData = ext->EXT_private_data;
         break;
      case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES:
         /* Offsets and strides come from the module's decorations
          * (sc_layout); render/zink_scalar. */
         ((VkPhysicalDeviceScalarBlockLayoutFeatures *)s)->scalarBlockLayout =
            ext->EXT_scalar_block_layout;
         break;
      default:
         break;
      }
   }
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceFeatures(VkPhysicalDevice physicalDevice, VkPhysicalDeviceFeatures *pFeatures)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   VkPhysicalDeviceFeatures2 f = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
   sd_physical_device_get_features(pdev, &f);
   *pFeatures = f.features;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceFeatures2(VkPhysicalDevice physicalDevice, VkPhysicalDeviceFeatures2 *pFeatures)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   sd_physical_device_get_features(pdev, pFeatures);
}

static const VkQueueFamilyProperties sd_queue_family = {
   .queueFlags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT,
   .queueCount = 1,
   .timestampValidBits = 64,
   .minImageTransferGranularity = { 1, 1, 1 },
};

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physicalDevice, uint32_t *pCount,
                                          VkQueueFamilyProperties *pProps)
{
   struct sd_outarray out;
   sd_outarray_init(&out, pProps, sizeof(*pProps), pCount);
   VkQueueFamilyProperties *p = sd_outarray_append(&out);
   if (p)
      *p = sd_queue_family;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice physicalDevice, uint32_t *pCount,
                                           VkQueueFamilyProperties2 *pProps)
{
   struct sd_outarray out;
   sd_outarray_init(&out, pProps, sizeof(*pProps), pCount);
   VkQueueFamilyProperties2 *p = sd_outarray_append(&out);
   if (p)
      p->queueFamilyProperties = sd_queue_family;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice physicalDevice,
                                     VkPhysicalDeviceMemoryProperties *pProps)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   *pProps = pdev->memory;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice physicalDevice,
                                      VkPhysicalDeviceMemoryProperties2 *pProps)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   pProps->memoryProperties = pdev->memory;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice, const char *pLayerName,
                                      uint32_t *pPropertyCount, VkExtensionProperties *pProperties)
{
   if (pLayerName)
      return sd_error(VK_ERROR_LAYER_NOT_PRESENT);
   struct sd_outarray out;
   sd_outarray_init(&out, pProperties, sizeof(*pProperties), pPropertyCount);
   for (int i = 0; i < SD_DEVICE_EXTENSION_COUNT; i++) {
      if (!sd_device_extensions_supported.ext[i])
         continue;
      VkExtensionProperties *p = sd_outarray_append(&out);
      if (p)
         *p = sd_device_extension_props[i];
   }
   return sd_outarray_status(&out);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_EnumerateDeviceLayerProperties(VkPhysicalDevice physicalDevice, uint32_t *pPropertyCount,
                                  VkLayerProperties *pProperties)
{
   *pPropertyCount = 0;
   return VK_SUCCESS;
}

/* VK_EXT_tooling_info (core in Vulkan 1.3): the tools active in the driver.
 * Shale builds in none (no profiler, tracer or validation of its own), so
 * it lists none; layers add their own entries above it. */
VKAPI_ATTR VkResult VKAPI_CALL
sd_GetPhysicalDeviceToolProperties(VkPhysicalDevice physicalDevice, uint32_t *pToolCount,
                                   VkPhysicalDeviceToolProperties *pToolProperties)
{
   *pToolCount = 0;
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceSparseImageFormatProperties(VkPhysicalDevice physicalDevice, VkFormat format,
                                                VkImageType type, VkSampleCountFlagBits samples,
                                                VkImageUsageFlags usage, VkImageTiling tiling,
                                                uint32_t *pPropertyCount,
                                                VkSparseImageFormatProperties *pProperties)
{
   *pPropertyCount = 0;   /* no sparse residency */
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceSparseImageFormatProperties2(VkPhysicalDevice physicalDevice,
                                                 const VkPhysicalDeviceSparseImageFormatInfo2 *pInfo,
                                                 uint32_t *pPropertyCount,
                                                 VkSparseImageFormatProperties2 *pProperties)
{
   *pPropertyCount = 0;
}
