/*
 * sd_sync: fences, semaphores (binary and timeline) and events.
 *
 * Owns: the payload of each object. All payloads are read and written under
 * the device's sync_mutex, and every change broadcasts sync_cond; waiters
 * re-check their condition, so "wait any", "wait all", host waits on timelines
 * and the queue thread's semaphore waits share one mechanism.
 *
 * Invariants: a binary semaphore has at most one pending signal (valid usage);
 * a queue wait on it consumes it. A timeline value only grows. A fence's
 * `signaled` is set by the queue thread after the submission's work, or by
 * vkCreateFence with SIGNALED_BIT; only vkResetFences clears it.
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

#endif
