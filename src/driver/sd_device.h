/*
 * sd_device: VkDevice, its queues, and vkGetDeviceProcAddr.
 *
 * Owns: the device's allocator, enabled extensions and features, dispatch
 * table, its one queue (with the queue's submission thread), the memory
 * allocation counter behind maxMemoryAllocationCount, the device-wide
 * sync lock every fence, semaphore and event signals under, and a
 * reference to the process's shader runtime (sd_pipeline_cache.h) for the
 * device's whole life: the compiler, the worker threads and the memory
 * cache of compiled shaders start with the first device and stay while
 * any device exists, whatever pipelines come and go; the rasterizer's
 * context (sr_raster.h: per-worker scratch on the runtime's thread pool),
 * created and destroyed with the device.
 *
 * Invariants: `lost` is set once and never cleared; after it, every wait and
 * submit returns VK_ERROR_DEVICE_LOST. Destroying the device joins the queue
 * thread after it finished all submitted work.
 *
 * Threading: sync_mutex guards every sync object's payload; sync_cond is
 * broadcast whenever any payload changes (waiters re-check their condition).
 */
#ifndef SD_DEVICE_H
#define SD_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "sd_entrypoints.h"
#include "sd_extensions.h"
#include "sd_object.h"

struct sd_physical_device;
struct sd_instance;
struct sd_queue;
struct sd_runtime;
struct sr_context;

struct sd_device {
   struct sd_object base;
   VkAllocationCallbacks alloc;
   struct sd_physical_device *physical_device;
   struct sd_instance *instance;
   uint32_t api_version;
   struct sd_device_extension_table enabled_extensions;
   VkPhysicalDeviceFeatures enabled_features;
   /* scalarBlockLayout enabled (VK_EXT_scalar_block_layout): shader modules
    * are validated with the scalar layout rules. */
   bool scalar_block_layout;
   /* uniformBufferStandardLayout enabled
    * (VK_KHR_uniform_buffer_standard_layout): uniform blocks are validated
    * with the storage-buffer (std430) rules. */
   bool ubo_standard_layout;
   struct sd_dispatch_table dispatch;
   struct sd_queue *queue;
   uint32_t queue_count;
   struct sd_runtime *runtime;
   struct sr_context *raster;   /* the rasterizer's context, on the runtime's pool */

   atomic_uint memory_allocation_count;
   atomic_bool lost;
   /* Watchdog (sd_watchdog.h): set once a submission ran past the limit;
    * compiled code polls it through its context's `cancel`. Accessed with
    * __atomic builtins (the shader ABI sees a plain uint32_t). */
   uint32_t cancel;

   pthread_mutex_t sync_mutex;
   pthread_cond_t sync_cond;   /* CLOCK_MONOTONIC */
};

SD_DEFINE_HANDLE_CASTS(sd_device, base, VkDevice, VK_OBJECT_TYPE_DEVICE)

/* Host memory for an object of this device (its struct sd_object first):
 * pAllocator if given, else the device's callbacks; zeroed, with the base
 * initialised for `type`. NULL when the allocation fails. Free it with
 * sd_device_object_free and the same pAllocator. */
void *sd_device_object_alloc(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                             size_t size, VkObjectType type);
void sd_device_object_free(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                           void *object);

/* Marks the device lost (logs why) and wakes every waiter. Returns
 * VK_ERROR_DEVICE_LOST for convenience. */
VkResult sd_device_set_lost(struct sd_device *device, const char *why);

static inline bool
sd_device_is_lost(struct sd_device *device)
{
   return atomic_load(&device->lost);
}

/* Whether the watchdog cancelled the running work (the device is lost, or
 * about to be once that submission retires). */
static inline bool
sd_device_cancelled(const struct sd_device *device)
{
   return __atomic_load_n(&device->cancel, __ATOMIC_RELAXED) != 0;
}

/* Wakes everything waiting on a sync object: with sync_mutex held, or
 * right after releasing it, the change it announces made under it (a
 * waiter checks its condition under the mutex before it sleeps, so it
 * either sees the change or is asleep when this wakes it). */
static inline void
sd_device_sync_broadcast(struct sd_device *device)
{
   pthread_cond_broadcast(&device->sync_cond);
}

/* CLOCK_MONOTONIC now, and an absolute deadline for a relative timeout
 * (UINT64_MAX, "forever", when it would overflow). */
uint64_t sd_now_ns(void);
uint64_t sd_deadline_ns(uint64_t timeout_ns);

/* A condition variable on CLOCK_MONOTONIC (the clock of sd_now_ns). */
void sd_cond_init_monotonic(pthread_cond_t *cond);
/* Waits on cond (mutex held) until the absolute deadline; returns false on
 * timeout. A deadline of UINT64_MAX waits forever. */
bool sd_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, uint64_t abs_deadline_ns);

/* Waits on sync_cond (held) until the deadline; returns false on timeout.
 * timeout UINT64_MAX waits forever. */
bool sd_device_sync_wait(struct sd_device *device, uint64_t abs_deadline_ns);

#endif
