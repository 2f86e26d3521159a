/* Vulkan 1.1 through the loader with the validation layer: the reported
 * version, the 1.1 feature and property structs in one Features2 /
 * Properties2 chain each (every member written, the claimed values and the
 * spec's minimums), the other *2 queries equal to their 1.0 forms, device
 * groups (one group of the one device), vkGetDeviceQueue2,
 * vkGetDescriptorSetLayoutSupport at maxPerSetDescriptors (such a set is
 * created and allocated) and above it. Without the layer (the structs are
 * Vulkan 1.2's): VkPhysicalDeviceVulkan11Features and Properties equal the
 * individual structs member by member. VK_KHR_maintenance2 listed, and its
 * structs and layouts through their KHR names on a 1.0 instance. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#define UNSET 0x7eu   /* no VkBool32 or enum value: a member the driver left alone */

static bool
is_bool(VkBool32 b)
{
   return b == VK_TRUE || b == VK_FALSE;
}

/* One struct of a chain: where it lies in its holder, and its sType. */
struct link {
   size_t offset;
   VkStructureType type;
};

/* Fills holder (size bytes) with UNSET, then links head (a Features2 or
 * Properties2, zeroed but for its sType) to the n structs of links in
 * order and the last of them to tail. */
static void
chain(void *head, size_t head_size, VkStructureType head_type, void *holder, size_t size,
      const struct link *links, unsigned n, void *tail)
{
   memset(holder, UNSET, size);
   memset(head, 0, head_size);
   VkBaseOutStructure *prev = head;
   prev->sType = head_type;
   for (unsigned i = 0; i < n; i++) {
      VkBaseOutStructure *s = (VkBaseOutStructure *)((char *)holder + links[i].offset);
      s->sType = links[i].type;
      prev->pNext = s;
      prev = s;
   }
   prev->pNext = tail;
}

#define LINK(holder, member, type) { offsetof(holder, member), VK_STRUCTURE_TYPE_##type }
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

struct v11_features {
   VkPhysicalDevice16BitStorageFeatures storage16;
   VkPhysicalDeviceMultiviewFeatures multiview;
   VkPhysicalDeviceVariablePointersFeatures varptr;
   VkPhysicalDeviceProtectedMemoryFeatures protected_memory;
   VkPhysicalDeviceSamplerYcbcrConversionFeatures ycbcr;
   VkPhysicalDeviceShaderDrawParametersFeatures draw_params;
};

static const struct link feature_links[] = {
   LINK(struct v11_features, storage16, PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES),
   LINK(struct v11_features, multiview, PHYSICAL_DEVICE_MULTIVIEW_FEATURES),
   LINK(struct v11_features, varptr, PHYSICAL_DEVICE_VARIABLE_POINTERS_FEATURES),
   LINK(struct v11_features, protected_memory, PHYSICAL_DEVICE_PROTECTED_MEMORY_FEATURES),
   LINK(struct v11_features, ycbcr, PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES),
   LINK(struct v11_features, draw_params, PHYSICAL_DEVICE_SHADER_DRAW_PARAMETERS_FEATURES),
};

static void
chain_features(struct v11_features *f, VkPhysicalDeviceFeatures2 *f2, void *tail)
{
   chain(f2, sizeof(*f2), VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, f, sizeof(*f),
         feature_links, COUNT(feature_links), tail);
}

struct v11_props {
   VkPhysicalDeviceIDProperties id;
   VkPhysicalDeviceMaintenance3Properties m3;
   VkPhysicalDeviceMultiviewProperties multiview;
   VkPhysicalDevicePointClippingProperties point;
   VkPhysicalDeviceProtectedMemoryProperties protected_memory;
   VkPhysicalDeviceSubgroupProperties subgroup;
};

static const struct link prop_links[] = {
   LINK(struct v11_props, id, PHYSICAL_DEVICE_ID_PROPERTIES),
   LINK(struct v11_props, m3, PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES),
   LINK(struct v11_props, multiview, PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES),
   LINK(struct v11_props, point, PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES),
   LINK(struct v11_props, protected_memory, PHYSICAL_DEVICE_PROTECTED_MEMORY_PROPERTIES),
   LINK(struct v11_props, subgroup, PHYSICAL_DEVICE_SUBGROUP_PROPERTIES),
};

static void
chain_props(struct v11_props *p, VkPhysicalDeviceProperties2 *p2, void *tail)
{
   chain(p2, sizeof(*p2), VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, p, sizeof(*p),
         prop_links, COUNT(prop_links), tail);
}

static void
test_queries(struct vkt *t)
{
   CHECK(VK_API_VERSION_MAJOR(t->props.apiVersion) == 1 &&
            VK_API_VERSION_MINOR(t->props.apiVersion) == 1,
         "apiVersion %u.%u", VK_API_VERSION_MAJOR(t->props.apiVersion),
         VK_API_VERSION_MINOR(t->props.apiVersion));
   uint32_t inst_version = 0;
   CHECK_EQ_INT(vkEnumerateInstanceVersion(&inst_version), VK_SUCCESS);
   CHECK(VK_API_VERSION_MINOR(inst_version) >= 1, "instance version 1.%u",
         VK_API_VERSION_MINOR(inst_version));

   /* Features: every member written; what is claimed. */
   struct v11_features f;
   VkPhysicalDeviceFeatures2 f2;
   chain_features(&f, &f2, NULL);
   vkGetPhysicalDeviceFeatures2(t->pdev, &f2);
   const VkBool32 *bools[] = {
      &f.storage16.storageBuffer16BitAccess, &f.storage16.uniformAndStorageBuffer16BitAccess,
      &f.storage16.storagePushConstant16, &f.storage16.storageInputOutput16,
      &f.multiview.multiview, &f.multiview.multiviewGeometryShader,
      &f.multiview.multiviewTessellationShader, &f.varptr.variablePointersStorageBuffer,
      &f.varptr.variablePointers, &f.protected_memory.protectedMemory,
      &f.ycbcr.samplerYcbcrConversion, &f.draw_params.shaderDrawParameters,
   };
   for (unsigned i = 0; i < sizeof(bools) / sizeof(bools[0]); i++)
      CHECK(is_bool(*bools[i]), "feature member %u left as %#x", i, *bools[i]);
   CHECK(f.multiview.multiview && f.multiview.multiviewGeometryShader &&
            f.multiview.multiviewTessellationShader,
         "multiview features");
   CHECK(!f.protected_memory.protectedMemory, "protectedMemory claimed");
   VkPhysicalDeviceFeatures f10;
   vkGetPhysicalDeviceFeatures(t->pdev, &f10);
   CHECK(memcmp(&f10, &f2.features, sizeof(f10)) == 0, "Features2 differs from Features");

   /* Properties: written, within the spec's required limits. */
   struct v11_props p;
   VkPhysicalDeviceProperties2 p2;
   chain_props(&p, &p2, NULL);
   vkGetPhysicalDeviceProperties2(t->pdev, &p2);
   CHECK(memcmp(&p2.properties, &t->props, sizeof(t->props)) == 0,
         "Properties2 differs from Properties");
   CHECK(is_bool(p.id.deviceLUIDValid), "deviceLUIDValid %#x", p.id.deviceLUIDValid);
   CHECK(p.m3.maxPerSetDescriptors >= 1024 && p.m3.maxPerSetDescriptors != 0x7e7e7e7eu,
         "maxPerSetDescriptors %u", p.m3.maxPerSetDescriptors);
   CHECK(p.m3.maxMemoryAllocationSize >= (1ull << 30) &&
            p.m3.maxMemoryAllocationSize != 0x7e7e7e7e7e7e7e7eull,
         "maxMemoryAllocationSize %llu", (unsigned long long)p.m3.maxMemoryAllocationSize);
   CHECK(p.multiview.maxMultiviewViewCount == 32 &&
            p.multiview.maxMultiviewInstanceIndex == (1u << 27) - 1,
         "multiview limits %u %u", p.multiview.maxMultiviewViewCount,
         p.multiview.maxMultiviewInstanceIndex);
   CHECK(p.point.pointClippingBehavior == VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES,
         "pointClippingBehavior %d", p.point.pointClippingBehavior);
   CHECK(p.protected_memory.protectedNoFault == VK_FALSE, "protectedNoFault %#x",
         p.protected_memory.protectedNoFault);
   const uint32_t sg = p.subgroup.subgroupSize;
   CHECK(sg >= 4 && sg <= 16 && (sg & (sg - 1)) == 0, "subgroupSize %u", sg);
   CHECK(p.subgroup.supportedStages == VK_SHADER_STAGE_COMPUTE_BIT, "subgroup stages %#x",
         p.subgroup.supportedStages);
   CHECK(p.subgroup.supportedOperations == 0xffu, "subgroup operations %#x",
         p.subgroup.supportedOperations);
   CHECK(p.subgroup.quadOperationsInAllStages == VK_FALSE, "quadOperationsInAllStages");

   /* The other *2 queries equal their 1.0 forms. */
   VkFormatProperties fp;
   VkFormatProperties2 fp2 = { VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2 };
   vkGetPhysicalDeviceFormatProperties(t->pdev, VK_FORMAT_R8G8B8A8_UNORM, &fp);
   vkGetPhysicalDeviceFormatProperties2(t->pdev, VK_FORMAT_R8G8B8A8_UNORM, &fp2);
   CHECK(memcmp(&fp, &fp2.formatProperties, sizeof(fp)) == 0, "FormatProperties2");
   VkImageFormatProperties ifp;
   VkImageFormatProperties2 ifp2 = { VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
   const VkPhysicalDeviceImageFormatInfo2 ifi = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
      .format = VK_FORMAT_R8G8B8A8_UNORM, .type = VK_IMAGE_TYPE_2D,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
   };
   CHECK_EQ_INT(vkGetPhysicalDeviceImageFormatProperties(t->pdev, ifi.format, ifi.type,
                                                         ifi.tiling, ifi.usage, 0, &ifp),
                VK_SUCCESS);
   CHECK_EQ_INT(vkGetPhysicalDeviceImageFormatProperties2(t->pdev, &ifi, &ifp2), VK_SUCCESS);
   CHECK(memcmp(&ifp, &ifp2.imageFormatProperties, sizeof(ifp)) == 0,
         "ImageFormatProperties2");
   /* maintenance2: EXTENDED_USAGE is accepted (this format's own usage). */
   VkPhysicalDeviceImageFormatInfo2 ext_info = ifi;
   ext_info.flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT;
   CHECK_EQ_INT(vkGetPhysicalDeviceImageFormatProperties2(t->pdev, &ext_info, &ifp2), VK_SUCCESS);
   const VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = ext_info.flags,
      .imageType = VK_IMAGE_TYPE_2D, .format = ifi.format, .extent = { 4, 4, 1 },
      .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL, .usage = ifi.usage,
   };
   struct vkt_image ext_img;
   CHECK_EQ_INT(vkt_image_create(t, &ici, &ext_img), VK_SUCCESS);
   vkt_image_destroy(t, &ext_img);
   uint32_t n = 0;
   vkGetPhysicalDeviceQueueFamilyProperties2(t->pdev, &n, NULL);
   CHECK(n == 1, "%u queue families", n);
   VkQueueFamilyProperties qf;
   VkQueueFamilyProperties2 qf2 = { VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2 };
   uint32_t one = 1;
   vkGetPhysicalDeviceQueueFamilyProperties(t->pdev, &one, &qf);
   n = 1;
   vkGetPhysicalDeviceQueueFamilyProperties2(t->pdev, &n, &qf2);
   CHECK(n == 1 && memcmp(&qf, &qf2.queueFamilyProperties, sizeof(qf)) == 0,
         "QueueFamilyProperties2");
   CHECK(!(qf.queueFlags & VK_QUEUE_PROTECTED_BIT), "a protected queue family");
   VkPhysicalDeviceMemoryProperties2 mp2 = { VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2 };
   vkGetPhysicalDeviceMemoryProperties2(t->pdev, &mp2);
   CHECK(memcmp(&mp2.memoryProperties, &t->mem_props, sizeof(t->mem_props)) == 0,
         "MemoryProperties2");
   for (uint32_t i = 0; i < t->mem_props.memoryTypeCount; i++)
      CHECK(!(t->mem_props.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_PROTECTED_BIT),
            "protected memory type %u", i);
   const VkPhysicalDeviceSparseImageFormatInfo2 sfi = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_INFO_2,
      .format = VK_FORMAT_R8G8B8A8_UNORM, .type = VK_IMAGE_TYPE_2D,
      .samples = VK_SAMPLE_COUNT_1_BIT, .usage = VK_IMAGE_USAGE_SAMPLED_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
   };
   n = 5;
   vkGetPhysicalDeviceSparseImageFormatProperties2(t->pdev, &sfi, &n, NULL);
   CHECK(n == 0, "%u sparse image format properties without sparse residency", n);

   /* Device groups: one group of the one physical device. */
   n = 0;
   CHECK_EQ_INT(vkEnumeratePhysicalDeviceGroups(t->instance, &n, NULL), VK_SUCCESS);
   VkPhysicalDeviceGroupProperties groups[4];
   for (int i = 0; i < 4; i++)
      groups[i] = (VkPhysicalDeviceGroupProperties) {
         VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES };
   uint32_t count = n < 4 ? n : 4;
   CHECK_EQ_INT(vkEnumeratePhysicalDeviceGroups(t->instance, &count, groups), VK_SUCCESS);
   bool found = false;
   for (uint32_t i = 0; i < count; i++) {
      if (groups[i].physicalDevices[0] != t->pdev)
         continue;
      found = true;
      CHECK(groups[i].physicalDeviceCount == 1 && !groups[i].subsetAllocation,
            "group of %u devices, subsetAllocation %u", groups[i].physicalDeviceCount,
            groups[i].subsetAllocation);
   }
   CHECK(found, "Shale's physical device is in no group (of %u)", count);

   /* vkGetDeviceQueue2: the queue made without flags. */
   const VkDeviceQueueInfo2 qi = { VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2, NULL, 0, 0, 0 };
   VkQueue q = VK_NULL_HANDLE;
   vkGetDeviceQueue2(t->device, &qi, &q);
   CHECK(q == t->queue, "vkGetDeviceQueue2 gave another queue");

   /* vkGetDescriptorSetLayoutSupport at and above maxPerSetDescriptors. */
   VkDescriptorSetLayoutBinding b = {
      0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, p.m3.maxPerSetDescriptors, VK_SHADER_STAGE_COMPUTE_BIT,
      NULL,
   };
   VkDescriptorSetLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 1, .pBindings = &b,
   };
   VkDescriptorSetLayoutSupport sup = { VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_SUPPORT };
   sup.supported = UNSET;
   vkGetDescriptorSetLayoutSupport(t->device, &lci, &sup);
   CHECK(sup.supported == VK_TRUE, "a layout of maxPerSetDescriptors: supported %#x",
         sup.supported);
   VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateDescriptorSetLayout(t->device, &lci, NULL, &dsl), VK_SUCCESS);
   const VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, b.descriptorCount };
   VkDescriptorPool pool = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkt_descriptor_pool(t, 1, &ps, 1, 0, &pool), VK_SUCCESS);
   VkDescriptorSet set = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, &dsl, 1, &set), VK_SUCCESS);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, dsl, NULL);
   b.descriptorCount = p.m3.maxPerSetDescriptors + 1;
   sup.supported = UNSET;
   vkGetDescriptorSetLayoutSupport(t->device, &lci, &sup);
   CHECK(sup.supported == VK_FALSE, "a layout above maxPerSetDescriptors: supported %#x",
         sup.supported);
}

/* VkPhysicalDeviceVulkan11Features/Properties (Vulkan 1.2 structs: no layer)
 * against the individual structs. */
static void
test_vulkan11_structs(void)
{
   struct vkt t;
   struct vkt_options opts = {
      .driver = VKT_SHALE, .api_version = VK_API_VERSION_1_2, .no_validation = true,
   };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return;
   }
   VkPhysicalDeviceVulkan11Features v;
   memset(&v, UNSET, sizeof(v));
   v.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
   v.pNext = NULL;
   struct v11_features f;
   VkPhysicalDeviceFeatures2 f2;
   chain_features(&f, &f2, &v);
   vkGetPhysicalDeviceFeatures2(t.pdev, &f2);
   CHECK(v.pNext == NULL, "Vulkan11Features pNext rewritten");
   CHECK(v.storageBuffer16BitAccess == f.storage16.storageBuffer16BitAccess &&
            v.uniformAndStorageBuffer16BitAccess == f.storage16.uniformAndStorageBuffer16BitAccess &&
            v.storagePushConstant16 == f.storage16.storagePushConstant16 &&
            v.storageInputOutput16 == f.storage16.storageInputOutput16,
         "16-bit storage features differ");
   CHECK(v.multiview == f.multiview.multiview &&
            v.multiviewGeometryShader == f.multiview.multiviewGeometryShader &&
            v.multiviewTessellationShader == f.multiview.multiviewTessellationShader,
         "multiview features differ");
   CHECK(v.variablePointersStorageBuffer == f.varptr.variablePointersStorageBuffer &&
            v.variablePointers == f.varptr.variablePointers,
         "variable pointer features differ");
   CHECK(v.protectedMemory == f.protected_memory.protectedMemory, "protectedMemory differs");
   CHECK(v.samplerYcbcrConversion == f.ycbcr.samplerYcbcrConversion,
         "samplerYcbcrConversion differs");
   CHECK(v.shaderDrawParameters == f.draw_params.shaderDrawParameters,
         "shaderDrawParameters differs");

   VkPhysicalDeviceVulkan11Properties vp;
   memset(&vp, UNSET, sizeof(vp));
   vp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
   vp.pNext = NULL;
   struct v11_props p;
   VkPhysicalDeviceProperties2 p2;
   chain_props(&p, &p2, &vp);
   vkGetPhysicalDeviceProperties2(t.pdev, &p2);
   CHECK(memcmp(vp.deviceUUID, p.id.deviceUUID, VK_UUID_SIZE) == 0 &&
            memcmp(vp.driverUUID, p.id.driverUUID, VK_UUID_SIZE) == 0 &&
            memcmp(vp.deviceLUID, p.id.deviceLUID, VK_LUID_SIZE) == 0 &&
            vp.deviceNodeMask == p.id.deviceNodeMask && vp.deviceLUIDValid == p.id.deviceLUIDValid,
         "ID properties differ");
   CHECK(vp.subgroupSize == p.subgroup.subgroupSize &&
            vp.subgroupSupportedStages == p.subgroup.supportedStages &&
            vp.subgroupSupportedOperations == p.subgroup.supportedOperations &&
            vp.subgroupQuadOperationsInAllStages == p.subgroup.quadOperationsInAllStages,
         "subgroup properties differ");
   CHECK(vp.pointClippingBehavior == p.point.pointClippingBehavior, "point clipping differs");
   CHECK(vp.maxMultiviewViewCount == p.multiview.maxMultiviewViewCount &&
            vp.maxMultiviewInstanceIndex == p.multiview.maxMultiviewInstanceIndex,
         "multiview properties differ");
   CHECK(vp.protectedNoFault == p.protected_memory.protectedNoFault, "protectedNoFault differs");
   CHECK(vp.maxPerSetDescriptors == p.m3.maxPerSetDescriptors &&
            vp.maxMemoryAllocationSize == p.m3.maxMemoryAllocationSize,
         "maintenance3 properties differ");

   /* A device made with the Vulkan 1.1 features struct asking for what is
    * claimed; one asking for protected memory is refused. */
   VkPhysicalDeviceVulkan11Features want = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
      .multiview = VK_TRUE,
   };
   const float prio = 1.0f;
   const VkDeviceQueueCreateInfo qci = {
      VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio,
   };
   VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &want,
      .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
   };
   VkDevice dev = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateDevice(t.pdev, &dci, NULL, &dev), VK_SUCCESS);
   vkDestroyDevice(dev, NULL);
   want.protectedMemory = VK_TRUE;
   dev = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateDevice(t.pdev, &dci, NULL, &dev), VK_ERROR_FEATURE_NOT_PRESENT);
   vkt_finish(&t);
}

/* VK_KHR_maintenance2 as an extension (zink 22.3 asks for its name before it
 * offers tessellation): listed, and on a Vulkan 1.0 instance with only the
 * extension enabled, under the validation layer, its pieces through their
 * KHR names: an EXTENDED_USAGE image and a view whose usage
 * VkImageViewUsageCreateInfoKHR narrows to SAMPLED, a depth/stencil image's
 * DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL_KHR transition, and a render
 * pass with VkRenderPassInputAttachmentAspectCreateInfoKHR and the
 * attachment in DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL_KHR. What they
 * do is core 1.1's (this file's EXTENDED_USAGE check, render/render_pass,
 * render/maintenance, render/tess); the extension adds no behaviour. */
static void
test_maintenance2_extension(void)
{
   struct vkt t;
   static const char *const ext[] = { "VK_KHR_maintenance2" };
   struct vkt_options probe = { .driver = VKT_SHALE };
   if (!vkt_init(&t, &probe)) {
      CHECK(0, "shale device not available");
      return;
   }
   const bool listed = vkt_has_device_extension(t.pdev, ext[0]);
   vkt_finish(&t);
   CHECK(listed, "VK_KHR_maintenance2 not listed");
   if (!listed)
      return;
   struct vkt_options opts = { .driver = VKT_SHALE, .device_extensions = ext,
                               .device_extension_count = 1 };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "no device with VK_KHR_maintenance2 enabled");
      return;
   }
   /* EXTENDED_USAGE image, view narrowed to SAMPLED. */
   const VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .flags = VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT | VK_IMAGE_CREATE_EXTENDED_USAGE_BIT_KHR,
      .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UNORM, .extent = { 4, 4, 1 },
      .mipLevels = 1, .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
   };
   struct vkt_image img;
   CHECK_EQ_INT(vkt_image_create(&t, &ici, &img), VK_SUCCESS);
   const VkImageViewUsageCreateInfoKHR vu = {
      VK_STRUCTURE_TYPE_IMAGE_VIEW_USAGE_CREATE_INFO_KHR, NULL, VK_IMAGE_USAGE_SAMPLED_BIT,
   };
   const VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO, .pNext = &vu, .image = img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   VkImageView view = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateImageView(t.device, &vci, NULL, &view), VK_SUCCESS);
   vkDestroyImageView(t.device, view, NULL);
   vkt_image_destroy(&t, &img);

   /* A depth/stencil image moved to DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL. */
   const VkImageCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_D32_SFLOAT_S8_UINT, .extent = { 4, 4, 1 }, .mipLevels = 1,
      .arrayLayers = 1, .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT,
   };
   struct vkt_image ds;
   CHECK_EQ_INT(vkt_image_create(&t, &dci, &ds), VK_SUCCESS);
   VkCommandBuffer cb = vkt_begin(&t);
   vkt_image_barrier(cb, ds.image, VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT,
                     VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL_KHR);
   CHECK_EQ_INT(vkt_submit_wait(&t, cb), VK_SUCCESS);
   vkt_image_destroy(&t, &ds);

   /* A render pass: the depth/stencil attachment written in stencil, read
    * as the depth input attachment (its aspect given by the KHR struct). */
   const VkAttachmentDescription att = {
      0, VK_FORMAT_D32_SFLOAT_S8_UINT, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_LOAD,
      VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_LOAD, VK_ATTACHMENT_STORE_OP_STORE,
      VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL_KHR,
      VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL_KHR,
   };
   const VkAttachmentReference ds_ref = {
      0, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL_KHR,
   };
   const VkAttachmentReference in_ref = {
      0, VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL_KHR,
   };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .inputAttachmentCount = 1,
      .pInputAttachments = &in_ref, .pDepthStencilAttachment = &ds_ref,
   };
   const VkInputAttachmentAspectReferenceKHR aref = { 0, 0, VK_IMAGE_ASPECT_DEPTH_BIT };
   const VkRenderPassInputAttachmentAspectCreateInfoKHR aspects = {
      VK_STRUCTURE_TYPE_RENDER_PASS_INPUT_ATTACHMENT_ASPECT_CREATE_INFO_KHR, NULL, 1, &aref,
   };
   const VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO, .pNext = &aspects,
      .attachmentCount = 1, .pAttachments = &att, .subpassCount = 1, .pSubpasses = &sub,
   };
   VkRenderPass rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t.device, &rpci, NULL, &rp), VK_SUCCESS);
   vkDestroyRenderPass(t.device, rp, NULL);
   /* The other new layout, for the attachment only. */
   VkAttachmentDescription att2 = att;
   att2.initialLayout = att2.finalLayout =
      VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL_KHR;
   const VkAttachmentReference ds_ref2 = {
      0, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL_KHR,
   };
   const VkSubpassDescription sub2 = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .pDepthStencilAttachment = &ds_ref2,
   };
   VkRenderPassCreateInfo rpci2 = rpci;
   rpci2.pNext = NULL;
   rpci2.pAttachments = &att2;
   rpci2.pSubpasses = &sub2;
   rp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateRenderPass(t.device, &rpci2, NULL, &rp), VK_SUCCESS);
   vkDestroyRenderPass(t.device, rp, NULL);
   vkt_finish(&t);
}

int
main(void)
{
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE, .api_version = VK_API_VERSION_1_1 };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale device not available");
      return check_finish();
   }
   test_queries(&t);
   vkt_finish(&t);
   test_vulkan11_structs();
   test_maintenance2_extension();
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
