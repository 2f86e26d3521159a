/* The device watchdog: a thread per queue that cancels a submission whose
 * replay runs past SHALE_WATCHDOG_MS (design note: sd_watchdog.h). */
#include "sd_watchdog.h"

#include <stdlib.h>

#include "sd_device.h"
#include "sd_queue.h"
#include "sd_util.h"
#include "util/su_log.h"

#define SD_WATCHDOG_DEFAULT_MS 30000ull   /* why not 5000: sd_watchdog.h "Limit" */

uint64_t
sd_watchdog_limit_ns(void)
{
   const char *env = getenv("SHALE_WATCHDOG_MS");
   if (!env || !*env)
      return SD_WATCHDOG_DEFAULT_MS * 1000000ull;
   char *end;
   unsigned long long ms = strtoull(env, &end, 10);
   if (*end != '\0' || ms > UINT64_MAX / 1000000ull) {
      su_log("SHALE_WATCHDOG_MS=%s is not a number of milliseconds; using %llu", env,
             SD_WATCHDOG_DEFAULT_MS);
      return SD_WATCHDOG_DEFAULT_MS * 1000000ull;
   }
   return ms * 1000000ull;
}

static void *
sd_watchdog_thread(void *arg)
{
   struct sd_queue *queue = arg;
   struct sd_device *device = queue->device;
   pthread_mutex_lock(&device->sync_mutex);
   while (!queue->watchdog_stop) {
      if (!queue->run_start_ns || sd_device_cancelled(device) || sd_device_is_lost(device)) {
         /* Nothing to time: sleep until a replay starts (its start signals
          * us only while we are idle) or the queue stops. */
         queue->watchdog_idle = true;
         sd_cond_wait_until(&queue->watchdog_cond, &device->sync_mutex, UINT64_MAX);
         queue->watchdog_idle = false;
         continue;
      }
      /* Replays that start while we sleep do not wake us: at the deadline
       * of the one we saw, a later one has a later deadline to sleep to. */
      uint64_t serial = queue->run_serial;
      uint64_t deadline = queue->run_start_ns + queue->watchdog_ns;
      if (deadline < queue->run_start_ns)
         deadline = UINT64_MAX;
      if (sd_cond_wait_until(&queue->watchdog_cond, &device->sync_mutex, deadline) ||
          queue->watchdog_stop)
         continue;   /* woken: the state may have changed */
      if (queue->run_start_ns && queue->run_serial == serial && sd_now_ns() >= deadline) {
         /* The queue thread declares the loss when the cancelled
          * submission retires (sd_queue.c): whoever sees the loss may free
          * what it used. */
         __atomic_store_n(&device->cancel, 1, __ATOMIC_RELAXED);
         su_log("watchdog: a submission ran for more than %llu ms (SHALE_WATCHDOG_MS); "
                "cancelling it", (unsigned long long)(queue->watchdog_ns / 1000000ull));
         sd_device_sync_broadcast(device);   /* event waits in the replay end */
      }
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return NULL;
}

VkResult
sd_watchdog_start(struct sd_queue *queue)
{
   sd_cond_init_monotonic(&queue->watchdog_cond);
   if (pthread_create(&queue->watchdog, NULL, sd_watchdog_thread, queue) != 0) {
      pthread_cond_destroy(&queue->watchdog_cond);
      return sd_errorf(VK_ERROR_INITIALIZATION_FAILED, "cannot start the watchdog thread");
   }
   queue->watchdog_running = true;
   return VK_SUCCESS;
}

void
sd_watchdog_stop(struct sd_queue *queue)
{
   if (!queue->watchdog_running)
      return;
   struct sd_device *device = queue->device;
   pthread_mutex_lock(&device->sync_mutex);
   queue->watchdog_stop = true;
   pthread_cond_signal(&queue->watchdog_cond);
   pthread_mutex_unlock(&device->sync_mutex);
   pthread_join(queue->watchdog, NULL);
   pthread_cond_destroy(&queue->watchdog_cond);
   queue->watchdog_running = false;
}
