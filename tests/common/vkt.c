/* The API-test harness: loader, validation layer, driver selection, helpers. */
#include "vkt.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned vkt_messages;

unsigned
vkt_validation_messages(void)
{
   return vkt_messages;
}

const char *
vkt_driver_name(enum vkt_driver d)
{
   return d == VKT_SHALE ? "shale" : "lavapipe";
}

static VKAPI_ATTR VkBool32 VKAPI_CALL
vkt_debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                   VkDebugUtilsMessageTypeFlagsEXT types,
                   const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
   if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
      vkt_messages++;
      fprintf(stderr, "VALIDATION [%s]: %s\n", (const char *)user, data->pMessage);
   }
   return VK_FALSE;
}

static bool
vkt_name_matches(enum vkt_driver d, const char *name)
{
   if (d == VKT_SHALE)
      return strstr(name, "Shale") != NULL;
   return strstr(name, "llvmpipe") != NULL;
}

bool
vkt_init(struct vkt *t, const struct vkt_options *opts)
{
   static const struct vkt_options defaults;
   if (!opts)
      opts = &defaults;
   memset(t, 0, sizeof(*t));
   t->driver = opts->driver;
   t->alloc = opts->alloc;

   const char *exts[16];
   uint32_t n_exts = 0;
   if (!opts->no_validation)
      exts[n_exts++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
   for (uint32_t i = 0; i < opts->instance_extension_count && n_exts < 16; i++)
      exts[n_exts++] = opts->instance_extensions[i];
   const char *layers[] = { "VK_LAYER_KHRONOS_validation" };

   VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "shale-tests",
      .apiVersion = opts->api_version ? opts->api_version : VK_API_VERSION_1_0,
   };
   VkDebugUtilsMessengerCreateInfoEXT dbg = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
      .pfnUserCallback = vkt_debug_callback,
      .pUserData = (void *)vkt_driver_name(opts->driver),
   };
   VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pNext = opts->no_validation ? NULL : &dbg,
      .pApplicationInfo = &app,
      .enabledLayerCount = opts->no_validation ? 0 : 1,
      .ppEnabledLayerNames = layers,
      .enabledExtensionCount = n_exts,
      .ppEnabledExtensionNames = exts,
   };
   VkResult r = vkCreateInstance(&ici, opts->alloc, &t->instance);
   if (r != VK_SUCCESS) {
      fprintf(stderr, "vkCreateInstance: %d (is VK_DRIVER_FILES set, the layer installed?)\n", r);
      return false;
   }
   if (!opts->no_validation) {
      PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
         vkGetInstanceProcAddr(t->instance, "vkCreateDebugUtilsMessengerEXT");
      if (create)
         create(t->instance, &dbg, NULL, &t->messenger);
   }

   uint32_t count = 0;
   vkEnumeratePhysicalDevices(t->instance, &count, NULL);
   VkPhysicalDevice devs[8];
   if (count > 8)
      count = 8;
   vkEnumeratePhysicalDevices(t->instance, &count, devs);
   for (uint32_t i = 0; i < count; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devs[i], &p);
      if (vkt_name_matches(opts->driver, p.deviceName)) {
         t->pdev = devs[i];
         t->props = p;
         break;
      }
   }
   if (!t->pdev) {
      fprintf(stderr, "no %s physical device among %u\n", vkt_driver_name(opts->driver), count);
      vkt_finish(t);
      return false;
   }
   vkGetPhysicalDeviceMemoryProperties(t->pdev, &t->mem_props);

   float prio = 1.0f;
   VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = 0,
      .queueCount = 1,
      .pQueuePriorities = &prio,
   };
   VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = opts->device_pnext,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
      .enabledExtensionCount = opts->device_extension_count,
      .ppEnabledExtensionNames = opts->device_extensions,
      .pEnabledFeatures = opts->features,
   };
   r = vkCreateDevice(t->pdev, &dci, opts->alloc, &t->device);
   if (r != VK_SUCCESS) {
      fprintf(stderr, "vkCreateDevice: %d\n", r);
      vkt_finish(t);
      return false;
   }
   vkGetDeviceQueue(t->device, 0, 0, &t->queue);
   VkCommandPoolCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = 0,
   };
   r = vkCreateCommandPool(t->device, &pci, opts->alloc, &t->pool);
   if (r != VK_SUCCESS) {
      fprintf(stderr, "vkCreateCommandPool: %d\n", r);
      vkt_finish(t);
      return false;
   }
   return true;
}

void
vkt_finish(struct vkt *t)
{
   if (t->device) {
      vkDeviceWaitIdle(t->device);
      if (t->pool)
         vkDestroyCommandPool(t->device, t->pool, t->alloc);
      vkDestroyDevice(t->device, t->alloc);
   }
   if (t->instance) {
      if (t->messenger) {
         PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
            vkGetInstanceProcAddr(t->instance, "vkDestroyDebugUtilsMessengerEXT");
         if (destroy)
            destroy(t->instance, t->messenger, NULL);
      }
      vkDestroyInstance(t->instance, t->alloc);
   }
   memset(t, 0, sizeof(*t));
}

int
vkt_memory_type(struct vkt *t, uint32_t type_bits, VkMemoryPropertyFlags flags)
{
   for (uint32_t i = 0; i < t->mem_props.memoryTypeCount; i++) {
      if ((type_bits & (1u << i)) &&
          (t->mem_props.memoryTypes[i].propertyFlags & flags) == flags)
         return (int)i;
   }
   return -1;
}

/* Memory for `req` of a type with `flags`. */
static VkResult
vkt_allocate(struct vkt *t, const VkMemoryRequirements *req, VkMemoryPropertyFlags flags,
             VkDeviceMemory *out)
{
   int type = vkt_memory_type(t, req->memoryTypeBits, flags);
   if (type < 0)
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
   VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req->size,
      .memoryTypeIndex = (uint32_t)type,
   };
   return vkAllocateMemory(t->device, &mai, NULL, out);
}

VkResult
vkt_buffer_create(struct vkt *t, VkDeviceSize size, VkBufferUsageFlags usage, struct vkt_buffer *out)
{
   memset(out, 0, sizeof(*out));
   VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
   };
   VkResult r = vkCreateBuffer(t->device, &bci, NULL, &out->buffer);
   if (r != VK_SUCCESS)
      return r;
   VkMemoryRequirements req;
   vkGetBufferMemoryRequirements(t->device, out->buffer, &req);
   r = vkt_allocate(t, &req,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                    &out->memory);
   if (r != VK_SUCCESS)
      return r;
   r = vkBindBufferMemory(t->device, out->buffer, out->memory, 0);
   if (r != VK_SUCCESS)
      return r;
   out->size = size;
   return vkMapMemory(t->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map);
}

void
vkt_buffer_destroy(struct vkt *t, struct vkt_buffer *b)
{
   if (b->buffer)
      vkDestroyBuffer(t->device, b->buffer, NULL);
   if (b->memory)
      vkFreeMemory(t->device, b->memory, NULL);
   memset(b, 0, sizeof(*b));
}

VkResult
vkt_image_create(struct vkt *t, const VkImageCreateInfo *info, struct vkt_image *out)
{
   memset(out, 0, sizeof(*out));
   VkResult r = vkCreateImage(t->device, info, NULL, &out->image);
   if (r != VK_SUCCESS)
      return r;
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(t->device, out->image, &req);
   VkMemoryPropertyFlags want = info->tiling == VK_IMAGE_TILING_LINEAR
                                   ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                        VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                   : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
   r = vkt_allocate(t, &req, want, &out->memory);
   if (r != VK_SUCCESS)
      return r;
   return vkBindImageMemory(t->device, out->image, out->memory, 0);
}

void
vkt_image_destroy(struct vkt *t, struct vkt_image *img)
{
   if (img->image)
      vkDestroyImage(t->device, img->image, NULL);
   if (img->memory)
      vkFreeMemory(t->device, img->memory, NULL);
   memset(img, 0, sizeof(*img));
}

VkCommandBuffer
vkt_begin(struct vkt *t)
{
   return vkt_begin_flags(t, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
}

VkCommandBuffer
vkt_begin_flags(struct vkt *t, VkCommandBufferUsageFlags flags)
{
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = t->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer cb = VK_NULL_HANDLE;
   if (vkAllocateCommandBuffers(t->device, &ai, &cb) != VK_SUCCESS)
      return VK_NULL_HANDLE;
   VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = flags,
   };
   vkBeginCommandBuffer(cb, &bi);
   return cb;
}

VkResult
vkt_submit_wait(struct vkt *t, VkCommandBuffer cb)
{
   VkResult r = vkEndCommandBuffer(cb);
   if (r == VK_SUCCESS) {
      VkSubmitInfo si = {
         .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
         .commandBufferCount = 1,
         .pCommandBuffers = &cb,
      };
      r = vkQueueSubmit(t->queue, 1, &si, VK_NULL_HANDLE);
   }
   if (r == VK_SUCCESS)
      r = vkQueueWaitIdle(t->queue);
   vkFreeCommandBuffers(t->device, t->pool, 1, &cb);
   return r;
}

void
vkt_image_barrier(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, VkImageLayout from,
                  VkImageLayout to)
{
   VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       VK_ACCESS_HOST_READ_BIT,
      .oldLayout = from,
      .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = { aspect, 0, VK_REMAINING_MIP_LEVELS, 0, VK_REMAINING_ARRAY_LAYERS },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                        0, 0, NULL, 0, NULL, 1, &b);
}

bool
vkt_has_device_extension(VkPhysicalDevice pdev, const char *name)
{
   uint32_t n = 0;
   vkEnumerateDeviceExtensionProperties(pdev, NULL, &n, NULL);
   VkExtensionProperties *props = calloc(n ? n : 1, sizeof(*props));
   vkEnumerateDeviceExtensionProperties(pdev, NULL, &n, props);
   bool found = false;
   for (uint32_t i = 0; i < n && !found; i++)
      found = strcmp(props[i].extensionName, name) == 0;
   free(props);
   return found;
}

bool
vkt_query_features(enum vkt_driver drv, VkPhysicalDeviceFeatures2 *f2, const char *ext,
                   bool *has_ext)
{
   const struct vkt_options probe = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                      .no_validation = true };
   struct vkt t;
   if (!vkt_init(&t, &probe))
      return false;
   vkGetPhysicalDeviceFeatures2(t.pdev, f2);
   if (ext)
      *has_ext = vkt_has_device_extension(t.pdev, ext);
   vkt_finish(&t);
   return true;
}

bool
vkt_has_instance_extension(const char *name)
{
   uint32_t n = 0;
   vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
   VkExtensionProperties *props = calloc(n ? n : 1, sizeof(*props));
   vkEnumerateInstanceExtensionProperties(NULL, &n, props);
   bool found = false;
   for (uint32_t i = 0; i < n && !found; i++)
      found = strcmp(props[i].extensionName, name) == 0;
   free(props);
   return found;
}

/* ---- compute ---- */

/* Prints a failed creation; returns r. */
static VkResult
vkt_report(struct vkt *t, const char *call, VkResult r)
{
   if (r != VK_SUCCESS)
      fprintf(stderr, "%s: %s: %d\n", vkt_driver_name(t->driver), call, r);
   return r;
}

VkResult
vkt_shader_module(struct vkt *t, const uint32_t *code, size_t size, VkShaderModule *out)
{
   VkShaderModuleCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = size,
      .pCode = code,
   };
   *out = VK_NULL_HANDLE;
   return vkt_report(t, "vkCreateShaderModule", vkCreateShaderModule(t->device, &ci, NULL, out));
}

VkResult
vkt_set_layout(struct vkt *t, const VkDescriptorSetLayoutBinding *b, uint32_t n,
               VkDescriptorSetLayout *out)
{
   VkDescriptorSetLayoutCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = n,
      .pBindings = b,
   };
   *out = VK_NULL_HANDLE;
   return vkt_report(t, "vkCreateDescriptorSetLayout",
                     vkCreateDescriptorSetLayout(t->device, &ci, NULL, out));
}

VkResult
vkt_compute_pipeline(struct vkt *t, VkPipelineCache cache, VkShaderModule module,
                     VkPipelineLayout layout, const VkSpecializationInfo *spec,
                     VkPipelineCreateFlags flags, const void *pnext, VkPipeline *out)
{
   VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .pNext = pnext,
      .flags = flags,
      .stage = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_COMPUTE_BIT,
         .module = module,
         .pName = "main",
         .pSpecializationInfo = spec,
      },
      .layout = layout,
   };
   *out = VK_NULL_HANDLE;
   VkResult r = vkCreateComputePipelines(t->device, cache, 1, &ci, NULL, out);
   if (r != VK_SUCCESS)
      *out = VK_NULL_HANDLE;
   return vkt_report(t, "vkCreateComputePipelines", r);
}

VkResult
vkt_kernel_create(struct vkt *t, const struct vkt_kernel_info *info, struct vkt_kernel *k)
{
   memset(k, 0, sizeof(*k));
   VkResult r = vkt_shader_module(t, info->code, info->code_size, &k->module);
   for (uint32_t i = 0; i < 2 && r == VK_SUCCESS; i++) {
      if (i > 0 && !info->bindings[i])
         break;
      r = vkt_set_layout(t, info->bindings[i], info->binding_counts[i], &k->set_layouts[i]);
      k->set_count += r == VK_SUCCESS;
   }
   if (r != VK_SUCCESS)
      return r;
   VkPushConstantRange range = { VK_SHADER_STAGE_COMPUTE_BIT, 0, info->push_size };
   VkPipelineLayoutCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = k->set_count,
      .pSetLayouts = k->set_layouts,
      .pushConstantRangeCount = info->push_size ? 1 : 0,
      .pPushConstantRanges = &range,
   };
   r = vkt_report(t, "vkCreatePipelineLayout",
                  vkCreatePipelineLayout(t->device, &ci, NULL, &k->layout));
   if (r != VK_SUCCESS || info->no_pipeline)
      return r;
   return vkt_compute_pipeline(t, VK_NULL_HANDLE, k->module, k->layout, info->spec, info->flags,
                               NULL, &k->pipeline);
}

void
vkt_kernel_destroy(struct vkt *t, struct vkt_kernel *k)
{
   vkDestroyPipeline(t->device, k->pipeline, NULL);
   vkDestroyPipelineLayout(t->device, k->layout, NULL);
   for (uint32_t i = 0; i < k->set_count; i++)
      vkDestroyDescriptorSetLayout(t->device, k->set_layouts[i], NULL);
   vkDestroyShaderModule(t->device, k->module, NULL);
   memset(k, 0, sizeof(*k));
}

VkResult
vkt_pipeline_cache(struct vkt *t, const void *data, size_t size, VkPipelineCache *out)
{
   VkPipelineCacheCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
      .initialDataSize = size,
      .pInitialData = data,
   };
   *out = VK_NULL_HANDLE;
   return vkt_report(t, "vkCreatePipelineCache", vkCreatePipelineCache(t->device, &ci, NULL, out));
}

VkResult
vkt_descriptor_pool(struct vkt *t, uint32_t max_sets, const VkDescriptorPoolSize *sizes, uint32_t n,
                    VkDescriptorPoolCreateFlags flags, VkDescriptorPool *out)
{
   VkDescriptorPoolCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .flags = flags,
      .maxSets = max_sets,
      .poolSizeCount = n,
      .pPoolSizes = sizes,
   };
   *out = VK_NULL_HANDLE;
   return vkt_report(t, "vkCreateDescriptorPool",
                     vkCreateDescriptorPool(t->device, &ci, NULL, out));
}

VkResult
vkt_alloc_sets(struct vkt *t, VkDescriptorPool pool, const VkDescriptorSetLayout *layouts,
               uint32_t n, VkDescriptorSet *out)
{
   VkDescriptorSetAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = pool,
      .descriptorSetCount = n,
      .pSetLayouts = layouts,
   };
   return vkAllocateDescriptorSets(t->device, &ai, out);
}

void
vkt_write_buffers(struct vkt *t, VkDescriptorSet set, uint32_t binding, uint32_t element,
                  VkDescriptorType type, const VkDescriptorBufferInfo *infos, uint32_t n)
{
   VkWriteDescriptorSet w = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
      .dstSet = set,
      .dstBinding = binding,
      .dstArrayElement = element,
      .descriptorCount = n,
      .descriptorType = type,
      .pBufferInfo = infos,
   };
   vkUpdateDescriptorSets(t->device, 1, &w, 0, NULL);
}

void
vkt_bind_buffers(struct vkt *t, VkDescriptorSet set, const VkDescriptorType *types,
                 const VkBuffer *buffers, uint32_t n)
{
   for (uint32_t i = 0; i < n; i++) {
      VkDescriptorBufferInfo info = { buffers[i], 0, VK_WHOLE_SIZE };
      vkt_write_buffers(t, set, i, 0, types ? types[i] : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                        &info, 1);
   }
}

void
vkt_compute_barrier(VkCommandBuffer cb)
{
   VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_HOST_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT |
                           VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                        0, 1, &mb, 0, NULL, 0, NULL);
}

VkResult
vkt_dispatch(struct vkt *t, const struct vkt_kernel *k, const VkDescriptorSet *sets, uint32_t nsets,
             const void *push, uint32_t push_size, uint32_t x, uint32_t y, uint32_t z)
{
   VkCommandBuffer cb = vkt_begin(t);
   if (!cb)
      return vkt_report(t, "vkAllocateCommandBuffers", VK_ERROR_OUT_OF_HOST_MEMORY);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, nsets, sets, 0, NULL);
   if (push_size)
      vkCmdPushConstants(cb, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
   vkCmdDispatch(cb, x, y, z);
   vkt_compute_barrier(cb);
   return vkt_report(t, "submit", vkt_submit_wait(t, cb));
}

VkResult
vkt_ssbo_kernel(struct vkt *t, const struct vkt_ssbo_info *info, struct vkt_ssbo_run *s)
{
   memset(s, 0, sizeof(*s));
   assert(info->n <= VKT_SSBO_MAX);
   s->n = info->n;
   VkDescriptorSetLayoutBinding b[VKT_SSBO_MAX];
   for (uint32_t i = 0; i < s->n; i++) {
      s->types[i] = info->types ? info->types[i] : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      b[i] = (VkDescriptorSetLayoutBinding) {
         .binding = i, .descriptorType = s->types[i], .descriptorCount = 1,
         .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
      };
   }
   const struct vkt_kernel_info ki = {
      .code = info->code, .code_size = info->code_size,
      .bindings = { b, NULL }, .binding_counts = { s->n, 0 },
      .push_size = info->push_size, .spec = info->spec,
   };
   return vkt_kernel_create(t, &ki, &s->kernel);
}

VkResult
vkt_ssbo_buffers(struct vkt *t, struct vkt_ssbo_run *s, const VkDeviceSize *sizes)
{
   VkResult r = VK_SUCCESS;
   for (uint32_t i = 0; r == VK_SUCCESS && i < s->n; i++) {
      VkBufferUsageFlags usage = s->types[i] == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
                                    ? VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT
                                    : VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
      r = vkt_buffer_create(t, sizes[i], usage, &s->bufs[i]);
   }
   return r;
}

VkResult
vkt_ssbo_set(struct vkt *t, struct vkt_ssbo_run *s)
{
   /* One pool size a type, in the order the types first appear. */
   VkDescriptorPoolSize ps[VKT_SSBO_MAX];
   uint32_t nps = 0;
   for (uint32_t i = 0; i < s->n; i++) {
      uint32_t j = 0;
      while (j < nps && ps[j].type != s->types[i])
         j++;
      if (j == nps)
         ps[nps++] = (VkDescriptorPoolSize) { s->types[i], 0 };
      ps[j].descriptorCount++;
   }
   VkResult r = vkt_descriptor_pool(t, 1, ps, nps, 0, &s->pool);
   if (r == VK_SUCCESS)
      r = vkt_alloc_sets(t, s->pool, s->kernel.set_layouts, 1, &s->set);
   if (r != VK_SUCCESS)
      return r;
   VkBuffer handles[VKT_SSBO_MAX];
   for (uint32_t i = 0; i < s->n; i++)
      handles[i] = s->bufs[i].buffer;
   vkt_bind_buffers(t, s->set, s->types, handles, s->n);
   return VK_SUCCESS;
}

VkResult
vkt_ssbo_dispatch(struct vkt *t, const struct vkt_ssbo_run *s, const void *push,
                  uint32_t push_size, uint32_t x, uint32_t y, uint32_t z)
{
   return vkt_dispatch(t, &s->kernel, &s->set, 1, push, push_size, x, y, z);
}

void
vkt_ssbo_end(struct vkt *t, struct vkt_ssbo_run *s)
{
   if (s->pool)
      vkDestroyDescriptorPool(t->device, s->pool, NULL);
   for (uint32_t i = 0; i < s->n; i++)
      vkt_buffer_destroy(t, &s->bufs[i]);
   vkt_kernel_destroy(t, &s->kernel);
}
