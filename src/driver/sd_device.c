/* VkDevice: creation with feature/extension checks, queues, memory-report callbacks, vkGetDeviceProcAddr. */
#include "sd_device.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "sd_alloc.h"
#include "sd_instance.h"
#include "sd_memory.h"
#include "sd_physical_device.h"
#include "sd_pipeline_cache.h"
#include "sd_queue.h"
#include "sd_util.h"
#include "rasterizer/sr_raster.h"

uint64_t
sd_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
sd_deadline_ns(uint64_t timeout_ns)
{
   uint64_t now = sd_now_ns();
   return timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

void
sd_cond_init_monotonic(pthread_cond_t *cond)
{
   pthread_condattr_t attr;
   pthread_condattr_init(&attr);
   pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
   pthread_cond_init(cond, &attr);
   pthread_condattr_destroy(&attr);
}

bool
sd_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, uint64_t abs_deadline_ns)
{
   if (abs_deadline_ns == UINT64_MAX) {
      pthread_cond_wait(cond, mutex);
      return true;
   }
   if (sd_now_ns() >= abs_deadline_ns)
      return false;
   struct timespec ts = {
      .tv_sec = (time_t)(abs_deadline_ns / 1000000000ull),
      .tv_nsec = (long)(abs_deadline_ns % 1000000000ull),
   };
   int r = pthread_cond_timedwait(cond, mutex, &ts);
   return r != ETIMEDOUT || sd_now_ns() < abs_deadline_ns;
}

bool
sd_device_sync_wait(struct sd_device *device, uint64_t abs_deadline_ns)
{
   return sd_cond_wait_until(&device->sync_cond, &device->sync_mutex, abs_deadline_ns);
}

void *
sd_device_object_alloc(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                       size_t size, VkObjectType type)
{
   struct sd_object *obj = sd_zalloc(sd_choose_alloc(pAllocator, &device->alloc), size,
                                     SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (obj)
      sd_object_init(obj, type, device);
   return obj;
}

void
sd_device_object_free(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                      void *object)
{
   sd_free(sd_choose_alloc(pAllocator, &device->alloc), object);
}

VkResult
sd_device_set_lost(struct sd_device *device, const char *why)
{
   if (!atomic_exchange(&device->lost, true))
      su_log("device lost: %s", why);
   pthread_mutex_lock(&device->sync_mutex);
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_ERROR_DEVICE_LOST;
}

/* One allocation holds the device and its memory-report callbacks (their
 * number is known only at creation); the handle points at `device`, first. */
struct sd_device_storage {
   struct sd_device device;
   struct sd_memory_report memory_report;
   struct sd_memory_report_callback memory_report_callbacks[];
};

const struct sd_memory_report *
sd_device_memory_report(const struct sd_device *device)
{
   return &((const struct sd_device_storage *)device)->memory_report;
}

/* Every VkBool32 requested must be supported. Feature structs are a header
 * (sType, pNext) followed by VkBool32 members only. */
static bool
sd_features_supported(const VkBool32 *requested, const VkBool32 *supported, size_t count)
{
   for (size_t i = 0; i < count; i++) {
      if (requested[i] && !supported[i])
         return false;
   }
   return true;
}

static VkResult
sd_check_features(struct sd_physical_device *pdev, const VkDeviceCreateInfo *info,
                  VkPhysicalDeviceFeatures *enabled)
{
   VkPhysicalDeviceFeatures2 supported = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
   sd_physical_device_get_features(pdev, &supported);
   const VkPhysicalDeviceFeatures *req = info->pEnabledFeatures;
   const VkPhysicalDeviceFeatures2 *f2 =
      sd_find_struct(info, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
   if (f2)
      req = &f2->features;
   if (req) {
      if (!sd_features_supported((const VkBool32 *)req, (const VkBool32 *)&supported.features,
                                 sizeof(*req) / sizeof(VkBool32)))
         return sd_error(VK_ERROR_FEATURE_NOT_PRESENT);
      *enabled = *req;
   }
   sd_foreach_struct(s, info->pNext) {
      uint32_t bools = sd_feature_struct_bools(s->sType);
      if (!bools)
         continue;
      /* Ask for the same struct alone and compare member by member. */
      struct {
         VkBaseOutStructure header;
         VkBool32 member[256];
      } one;
      if (bools > 256)
         return sd_error(VK_ERROR_FEATURE_NOT_PRESENT);
      memset(&one, 0, sizeof(one));
      one.header.sType = s->sType;
      VkPhysicalDeviceFeatures2 query = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                          .pNext = &one.header };
      sd_physical_device_get_features(pdev, &query);
      if (!sd_features_supported((const VkBool32 *)(s + 1), one.member, bools))
         return sd_error(VK_ERROR_FEATURE_NOT_PRESENT);
   }
   return VK_SUCCESS;
}

/* Tears down what sd_CreateDevice set up (the queue, when there is one, the
 * rasterizer context, the runtime reference, the sync objects) and frees
 * the device: vkDestroyDevice, and vkCreateDevice's failure path. */
static void
sd_device_free(struct sd_device *device)
{
   if (device->queue)
      sd_queue_destroy(device->queue);
   sr_context_destroy(device->raster);
   sd_runtime_release(device->runtime);
   pthread_cond_destroy(&device->sync_cond);
   pthread_mutex_destroy(&device->sync_mutex);
   VkAllocationCallbacks alloc = device->alloc;
   sd_free(&alloc, device);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *pCreateInfo,
                const VkAllocationCallbacks *pAllocator, VkDevice *pDevice)
{
   SD_FROM_HANDLE(sd_physical_device, pdev, physicalDevice);
   struct sd_instance *instance = pdev->instance;
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &instance->alloc);

   struct sd_device_extension_table enabled = { 0 };
   for (uint32_t i = 0; i < pCreateInfo->enabledExtensionCount; i++) {
      int idx = sd_device_extension_index(pCreateInfo->ppEnabledExtensionNames[i]);
      if (idx < 0 || !sd_device_extensions_supported.ext[idx])
         return sd_error(VK_ERROR_EXTENSION_NOT_PRESENT);
      enabled.ext[idx] = true;
   }
   VkPhysicalDeviceFeatures features = { 0 };
   VkResult result = sd_check_features(pdev, pCreateInfo, &features);
   if (result != VK_SUCCESS)
      return result;
   for (uint32_t i = 0; i < pCreateInfo->queueCreateInfoCount; i++) {
      const VkDeviceQueueCreateInfo *q = &pCreateInfo->pQueueCreateInfos[i];
      if (q->queueFamilyIndex != 0 || q->queueCount != 1 || q->flags)
         return sd_error(VK_ERROR_INITIALIZATION_FAILED);
   }

   const bool report = enabled.EXT_device_memory_report;
   const uint32_t report_count = sd_memory_report_count(pCreateInfo, report);
   struct sd_device_storage *storage =
      sd_zalloc(alloc, sizeof(*storage) + report_count * sizeof(storage->memory_report_callbacks[0]),
                SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
   if (!storage)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   struct sd_device *device = &storage->device;
   sd_object_init(&device->base, VK_OBJECT_TYPE_DEVICE, device);
   sd_memory_report_init(&storage->memory_report, storage->memory_report_callbacks, pCreateInfo,
                         report);
   device->alloc = *alloc;
   device->physical_device = pdev;
   device->instance = instance;
   device->api_version = instance->api_version < pdev->api_version ? instance->api_version
                                                                   : pdev->api_version;
   device->enabled_extensions = enabled;
   device->enabled_features = features;
   const VkPhysicalDeviceScalarBlockLayoutFeatures *scalar =
      sd_find_struct(pCreateInfo, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SCALAR_BLOCK_LAYOUT_FEATURES);
   device->scalar_block_layout = scalar && scalar->scalarBlockLayout;
   const VkPhysicalDeviceUniformBufferStandardLayoutFeatures *ubo_std = sd_find_struct(
      pCreateInfo, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_UNIFORM_BUFFER_STANDARD_LAYOUT_FEATURES);
   device->ubo_standard_layout = ubo_std && ubo_std->uniformBufferStandardLayout;
   sd_dispatch_table_init(&device->dispatch, 1u << SD_LEVEL_DEVICE, device->api_version,
                          &instance->enabled_extensions, &device->enabled_extensions);

   sd_cond_init_monotonic(&device->sync_cond);
   pthread_mutex_init(&device->sync_mutex, NULL);

   /* Started here, not at the first pipeline: the memory cache of compiled
    * shaders lives as long as the device. */
   result = sd_runtime_acquire(&device->runtime);
   if (result == VK_SUCCESS)
      result = sr_context_create(device->runtime->pool, &device->alloc, &device->raster);
   if (result == VK_SUCCESS)
      sr_context_set_cancel(device->raster, &device->cancel);
   if (result == VK_SUCCESS && pCreateInfo->queueCreateInfoCount) {
      result = sd_queue_create(device, &device->queue);
      if (result == VK_SUCCESS)
         device->queue_count = 1;
   }
   if (result != VK_SUCCESS) {
      sd_device_free(device);
      return result;
   }
   *pDevice = sd_device_to_handle(device);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyDevice(VkDevice _device, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   if (device)
      sd_device_free(device);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL
sd_GetDeviceProcAddr(VkDevice _device, const char *pName)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   int idx = sd_entrypoint_lookup(pName);
   if (!device || idx < 0)
      return NULL;
   return device->dispatch.ep[idx];
}

VKAPI_ATTR void VKAPI_CALL
sd_GetDeviceQueue(VkDevice _device, uint32_t queueFamilyIndex, uint32_t queueIndex, VkQueue *pQueue)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   *pQueue = (queueFamilyIndex == 0 && queueIndex == 0 && device->queue)
                ? sd_queue_to_handle(device->queue)
                : VK_NULL_HANDLE;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetDeviceQueue2(VkDevice _device, const VkDeviceQueueInfo2 *pQueueInfo, VkQueue *pQueue)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   /* No queue is created with flags, so a request with flags matches none. */
   *pQueue = (pQueueInfo->flags == 0 && pQueueInfo->queueFamilyIndex == 0 &&
              pQueueInfo->queueIndex == 0 && device->queue)
                ? sd_queue_to_handle(device->queue)
                : VK_NULL_HANDLE;
}

/* Vulkan 1.1 device groups: a group of one device, whose memory is its own
 * (valid usage needs two different device indices, which one device
 * cannot give; every access works on the one device's memory). */
VKAPI_ATTR void VKAPI_CALL
sd_GetDeviceGroupPeerMemoryFeatures(VkDevice _device, uint32_t heapIndex,
                                    uint32_t localDeviceIndex, uint32_t remoteDeviceIndex,
                                    VkPeerMemoryFeatureFlags *pPeerMemoryFeatures)
{
   *pPeerMemoryFeatures = VK_PEER_MEMORY_FEATURE_COPY_SRC_BIT | VK_PEER_MEMORY_FEATURE_COPY_DST_BIT |
                          VK_PEER_MEMORY_FEATURE_GENERIC_SRC_BIT |
                          VK_PEER_MEMORY_FEATURE_GENERIC_DST_BIT;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_DeviceWaitIdle(VkDevice _device)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   if (device->queue)
      return sd_QueueWaitIdle(sd_queue_to_handle(device->queue));
   return sd_device_is_lost(device) ? VK_ERROR_DEVICE_LOST : VK_SUCCESS;
}
