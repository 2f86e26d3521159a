/* Fences, binary and timeline semaphores, events: creation, host waits and signals. */
#include "sd_sync.h"

#include "sd_alloc.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_queue.h"
#include "sd_exec.h"
#include "sd_util.h"

static void *
sd_object_zalloc(struct sd_device *device, const VkAllocationCallbacks *pAllocator, size_t size)
{
   return sd_zalloc(sd_choose_alloc(pAllocator, &device->alloc), size, SD_ALIGN_DEFAULT,
                    VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
}

static void
sd_object_free(struct sd_device *device, const VkAllocationCallbacks *pAllocator, void *obj)
{
   sd_free(sd_choose_alloc(pAllocator, &device->alloc), obj);
}

/* ---- host waits ---- */

VkResult
sd_sync_host_wait(struct sd_device *device, uint64_t timeout_ns, sd_sync_ready_fn ready,
                  const void *data)
{
   uint64_t deadline = timeout_ns ? sd_deadline_ns(timeout_ns) : 0;
   bool expired = false;
   VkResult result;
   pthread_mutex_lock(&device->sync_mutex);
   for (;;) {
      if (sd_device_is_lost(device)) {
         if (device->queue)
            sd_queue_drain_locked(device->queue);
         result = VK_ERROR_DEVICE_LOST;
         break;
      }
      if (ready(data)) {
         result = VK_SUCCESS;
         break;
      }
      if (expired || timeout_ns == 0) {
         result = VK_TIMEOUT;
         break;
      }
      /* After a timed-out wait the loop checks once more, then gives up. */
      expired = !sd_device_sync_wait(device, deadline);
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return result;
}

/* ---- fences ---- */

void
sd_fence_signal_locked(struct sd_device *device, struct sd_fence *fence)
{
   fence->signaled = true;
   sd_device_sync_broadcast(device);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateFence(VkDevice _device, const VkFenceCreateInfo *pCreateInfo,
               const VkAllocationCallbacks *pAllocator, VkFence *pFence)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_fence *fence = sd_object_zalloc(device, pAllocator, sizeof(*fence));
   if (!fence)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&fence->base, VK_OBJECT_TYPE_FENCE, device);
   fence->signaled = (pCreateInfo->flags & VK_FENCE_CREATE_SIGNALED_BIT) != 0;
   *pFence = sd_fence_to_handle(fence);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyFence(VkDevice _device, VkFence _fence, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_fence, fence, _fence);
   if (fence)
      sd_object_free(device, pAllocator, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetFences(VkDevice _device, uint32_t fenceCount, const VkFence *pFences)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < fenceCount; i++)
      sd_fence_from_handle(pFences[i])->signaled = false;
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetFenceStatus(VkDevice _device, VkFence _fence)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_fence, fence, _fence);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   pthread_mutex_lock(&device->sync_mutex);
   bool signaled = fence->signaled;
   pthread_mutex_unlock(&device->sync_mutex);
   return signaled ? VK_SUCCESS : VK_NOT_READY;
}

struct sd_fence_wait {
   uint32_t count;
   const VkFence *fences;
   bool all;
};

static bool
sd_fences_ready(const void *data)
{
   const struct sd_fence_wait *w = data;
   for (uint32_t i = 0; i < w->count; i++) {
      bool signaled = sd_fence_from_handle(w->fences[i])->signaled;
      if (signaled != w->all)
         return !w->all;   /* any: one is enough; all: one missing fails */
   }
   return w->all;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_WaitForFences(VkDevice _device, uint32_t fenceCount, const VkFence *pFences, VkBool32 waitAll,
                 uint64_t timeout)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_fence_wait w = { .count = fenceCount, .fences = pFences, .all = waitAll != VK_FALSE };
   return sd_sync_host_wait(device, timeout, sd_fences_ready, &w);
}

/* ---- semaphores ---- */

void
sd_semaphore_signal_locked(struct sd_device *device, struct sd_semaphore *sem, uint64_t value)
{
   if (sem->type == VK_SEMAPHORE_TYPE_TIMELINE) {
      if (value > sem->value)
         sem->value = value;
   } else {
      sem->binary_signaled = true;
   }
   sd_device_sync_broadcast(device);
}

bool
sd_semaphore_try_wait_locked(struct sd_semaphore *sem, uint64_t value)
{
   if (sem->type == VK_SEMAPHORE_TYPE_TIMELINE)
      return sem->value >= value;
   if (!sem->binary_signaled)
      return false;
   sem->binary_signaled = false;
   return true;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateSemaphore(VkDevice _device, const VkSemaphoreCreateInfo *pCreateInfo,
                   const VkAllocationCallbacks *pAllocator, VkSemaphore *pSemaphore)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkSemaphoreTypeCreateInfo *type =
      sd_find_struct(pCreateInfo, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
   struct sd_semaphore *sem = sd_object_zalloc(device, pAllocator, sizeof(*sem));
   if (!sem)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&sem->base, VK_OBJECT_TYPE_SEMAPHORE, device);
   sem->type = type ? type->semaphoreType : VK_SEMAPHORE_TYPE_BINARY;
   sem->value = type ? type->initialValue : 0;
   *pSemaphore = sd_semaphore_to_handle(sem);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroySemaphore(VkDevice _device, VkSemaphore _sem, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, _sem);
   if (sem)
      sd_object_free(device, pAllocator, sem);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSemaphoreCounterValue(VkDevice _device, VkSemaphore _sem, uint64_t *pValue)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, _sem);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   pthread_mutex_lock(&device->sync_mutex);
   *pValue = sem->value;
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

static bool
sd_semaphores_ready(const void *data)
{
   const VkSemaphoreWaitInfo *info = data;
   bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
   for (uint32_t i = 0; i < info->semaphoreCount; i++) {
      bool reached = sd_semaphore_from_handle(info->pSemaphores[i])->value >= info->pValues[i];
      if (reached == any)
         return any;
   }
   return !any || info->semaphoreCount == 0;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_WaitSemaphores(VkDevice _device, const VkSemaphoreWaitInfo *pWaitInfo, uint64_t timeout)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   return sd_sync_host_wait(device, timeout, sd_semaphores_ready, pWaitInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_SignalSemaphore(VkDevice _device, const VkSemaphoreSignalInfo *pSignalInfo)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, pSignalInfo->semaphore);
   pthread_mutex_lock(&device->sync_mutex);
   sd_semaphore_signal_locked(device, sem, pSignalInfo->value);
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

/* ---- events ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateEvent(VkDevice _device, const VkEventCreateInfo *pCreateInfo,
               const VkAllocationCallbacks *pAllocator, VkEvent *pEvent)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_event *event = sd_object_zalloc(device, pAllocator, sizeof(*event));
   if (!event)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&event->base, VK_OBJECT_TYPE_EVENT, device);
   *pEvent = sd_event_to_handle(event);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyEvent(VkDevice _device, VkEvent _event, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_event, event, _event);
   if (event)
      sd_object_free(device, pAllocator, event);
}

static VkResult
sd_event_set(struct sd_device *device, struct sd_event *event, bool set)
{
   pthread_mutex_lock(&device->sync_mutex);
   event->set = set;
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetEventStatus(VkDevice _device, VkEvent _event)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_event, event, _event);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   pthread_mutex_lock(&device->sync_mutex);
   bool set = event->set;
   pthread_mutex_unlock(&device->sync_mutex);
   return set ? VK_EVENT_SET : VK_EVENT_RESET;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_SetEvent(VkDevice _device, VkEvent _event)
{
   return sd_event_set(sd_device_from_handle(_device), sd_event_from_handle(_event), true);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetEvent(VkDevice _device, VkEvent _event)
{
   return sd_event_set(sd_device_from_handle(_device), sd_event_from_handle(_event), false);
}

/* ---- recorded synchronization commands ----
 * The queue thread runs every command in order and completes each before the
 * next, so execution and memory dependencies within a queue are already met;
 * barriers have nothing to do. Event waits block until the event is set (by
 * an earlier command or by the host), as the spec allows. */

void
sd_exec_PipelineBarrier(struct sd_exec_state *state, const struct sd_cmd_PipelineBarrier *cmd)
{
}

void
sd_exec_PipelineBarrier2(struct sd_exec_state *state, const struct sd_cmd_PipelineBarrier2 *cmd)
{
}

void
sd_exec_SetEvent(struct sd_exec_state *state, const struct sd_cmd_SetEvent *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), true);
}

void
sd_exec_ResetEvent(struct sd_exec_state *state, const struct sd_cmd_ResetEvent *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), false);
}

void
sd_exec_SetEvent2(struct sd_exec_state *state, const struct sd_cmd_SetEvent2 *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), true);
}

void
sd_exec_ResetEvent2(struct sd_exec_state *state, const struct sd_cmd_ResetEvent2 *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), false);
}

static void
sd_wait_events(struct sd_device *device, uint32_t count, const VkEvent *events)
{
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < count; i++) {
      while (!sd_event_from_handle(events[i])->set && !sd_device_is_lost(device))
         sd_device_sync_wait(device, UINT64_MAX);
   }
   pthread_mutex_unlock(&device->sync_mutex);
}

void
sd_exec_WaitEvents(struct sd_exec_state *state, const struct sd_cmd_WaitEvents *cmd)
{
   sd_wait_events(state->device, cmd->eventCount, cmd->pEvents);
}

void
sd_exec_WaitEvents2(struct sd_exec_state *state, const struct sd_cmd_WaitEvents2 *cmd)
{
   sd_wait_events(state->device, cmd->eventCount, cmd->pEvents);
}
