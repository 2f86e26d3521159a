/*
 * sd_sync: fences, semaphores (binary and timeline) and events.
 *
 * Owns: the payload of each object, and the one host-wait loop every
 * blocking host command uses (sd_sync_host_wait). All payloads are read and
 * written under the device's sync_mutex, and every change broadcasts
 * sync_cond; waiters re-check their condition, so "wait any", "wait all",
 * host waits on timelines, query-result waits and the queue thread's
 * semaphore and event waits share one mechanism and cannot miss a wakeup.
 *
 * Invariants: a binary semaphore has at most one pending signal (valid usage);
 * a queue wait on it consumes it. A timeline value only grows. A fence's
 * `signaled` is set by the queue thread after the submission's work, or by
 * vkCreateFence with SIGNALED_BIT; only vkResetFences clears it. Once the
 * device is lost every host wait returns VK_ERROR_DEVICE_LOST at once, and
 * queue-thread waits give up, so nothing blocks forever on a lost device.
 *
 * Threading: see above; the handles themselves follow Vulkan's external
 * synchronization rules.
 */
#ifndef SD_SYNC_H
#define SD_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "sd_object.h"

struct sd_device;

struct sd_fence {
   struct sd_object base;
   bool signaled;
};

struct sd_semaphore {
   struct sd_object base;
   VkSemaphoreType type;
   bool binary_signaled;   /* binary: a signal is pending */
   uint64_t value;         /* timeline: current counter value */
};

struct sd_event {
   struct sd_object base;
   bool set;
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_fence, base, VkFence, VK_OBJECT_TYPE_FENCE)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_semaphore, base, VkSemaphore, VK_OBJECT_TYPE_SEMAPHORE)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_event, base, VkEvent, VK_OBJECT_TYPE_EVENT)

/* Queue-thread side; call with the device's sync_mutex held. */
void sd_fence_signal_locked(struct sd_device *device, struct sd_fence *fence);
void sd_semaphore_signal_locked(struct sd_device *device, struct sd_semaphore *sem, uint64_t value);
/* Whether a queue wait on `sem` (for `value` on timelines) can proceed now;
 * consumes a binary signal when it returns true. */
bool sd_semaphore_try_wait_locked(struct sd_semaphore *sem, uint64_t value);

/* A host wait's condition, evaluated with sync_mutex held. */
typedef bool (*sd_sync_ready_fn)(const void *data);

/* Blocks the calling (application) thread until ready(data) holds, the
 * relative timeout passes, or the device is lost. timeout_ns 0 checks once;
 * UINT64_MAX (or any timeout that overflows the clock) waits forever. The
 * condition is checked once more after the deadline, so a change that lands
 * exactly at the deadline is not reported as a timeout. Returns VK_SUCCESS,
 * VK_TIMEOUT or VK_ERROR_DEVICE_LOST (loss is checked first). Takes and
 * releases sync_mutex; for waits on anything whose payload is written under
 * it (fences, timelines, events, query availability). */
VkResult sd_sync_host_wait(struct sd_device *device, uint64_t timeout_ns, sd_sync_ready_fn ready,
                           const void *data);

#endif
