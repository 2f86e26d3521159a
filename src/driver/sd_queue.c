/* VkQueue: submissions, the queue thread, vkQueueSubmit/Submit2/WaitIdle/BindSparse, release fds. */
#include "sd_queue.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sd_alloc.h"
#include "sd_cmd_buffer.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_sync.h"
#include "sd_util.h"
#include "sd_watchdog.h"
#include "util/su_fp.h"

struct sd_sem_op {
   struct sd_semaphore *sem;
   uint64_t value;
};

/* One batch; its arrays live in the same allocation, after the struct. */
struct sd_submit {
   struct sd_submit *next;
   uint32_t wait_count, cmd_count, signal_count;
   struct sd_sem_op *waits;
   struct sd_cmd_buffer **cmds;
   struct sd_sem_op *signals;
   struct sd_fence *fence;
   struct sd_sync_fd_pending *release;   /* signalled once this submission is done */
   void (*callback)(void *data);         /* run once this submission is done */
   void *callback_data;
   bool lose_device;   /* SHALE_DEBUG_LOSE_DEVICE picked this one */
   bool wake;          /* a thread waits for this one to retire (completed) */
};

#ifdef SHALE_ALLOC_FAIL_INJECTION
/* SHALE_DEBUG_LOSE_DEVICE=<n>: the n-th submission of the process loses the
 * device when it runs (0 or unset: never). Tests only. */
static uint64_t sd_lose_device_at;
static pthread_once_t sd_lose_device_once = PTHREAD_ONCE_INIT;
static atomic_uint_fast64_t sd_submission_serial;

static void
sd_lose_device_parse(void)
{
   const char *env = getenv("SHALE_DEBUG_LOSE_DEVICE");
   if (env && *env) {
      char *end;
      unsigned long long n = strtoull(env, &end, 10);
      if (*end == '\0')
         sd_lose_device_at = n;
      else
         su_log("SHALE_DEBUG_LOSE_DEVICE=%s is not a number; ignored", env);
   }
}

/* Numbers the batches of one submit call (in order) and marks the one that
 * must lose the device. */
static void
sd_lose_device_mark(struct sd_submit *first, uint32_t n)
{
   pthread_once(&sd_lose_device_once, sd_lose_device_parse);
   uint64_t serial = atomic_fetch_add(&sd_submission_serial, n) + 1;
   if (!sd_lose_device_at)
      return;
   for (struct sd_submit *s = first; s; s = s->next, serial++)
      s->lose_device = serial == sd_lose_device_at;
}
#endif

void
sd_queue_replay_failed(struct sd_queue *queue, const char *why)
{
   if (!queue->replay_error)
      queue->replay_error = why;
}

bool
sd_queue_replay_stopped(const struct sd_queue *queue)
{
   return queue->replay_error != NULL || sd_device_is_lost(queue->device) ||
          sd_device_cancelled(queue->device);
}

/* Runs one submission and frees it. */
static void
sd_queue_run(struct sd_queue *queue, struct sd_submit *submit)
{
   struct sd_device *device = queue->device;
   /* Waits: a timeline value may be signalled later by the host or another
    * thread (wait before signal); binary signals were queued earlier. A
    * semaphore holding an imported sync fd is waited for by polling the fd
    * without the lock (nobody broadcasts for it); valid usage keeps the
    * payload in place while this wait is pending. A lost device ends every
    * wait (an fd wait notices within SD_SYNC_FD_SLICE_MS). */
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < submit->wait_count; i++) {
      int fd;
      while (!sd_device_is_lost(device) &&
             !sd_semaphore_try_wait_locked(submit->waits[i].sem, submit->waits[i].value, &fd)) {
         if (fd >= 0) {
            pthread_mutex_unlock(&device->sync_mutex);
            sd_sync_fd_poll(fd, SD_SYNC_FD_SLICE_MS);
            pthread_mutex_lock(&device->sync_mutex);
         } else {
            sd_device_sync_wait(device, UINT64_MAX);
         }
      }
   }
   /* The watchdog times the replay only: semaphore waits wait for other
    * work, which has its own clock. */
   if (queue->watchdog_ns) {
      queue->run_start_ns = sd_now_ns();
      queue->run_serial++;
      if (queue->watchdog_idle)
         pthread_cond_signal(&queue->watchdog_cond);
   }
   pthread_mutex_unlock(&device->sync_mutex);

   /* The debug hook takes the same path as a replay that fails. */
   queue->replay_error = NULL;
   if (submit->lose_device)
      sd_queue_replay_failed(queue, "SHALE_DEBUG_LOSE_DEVICE");
   for (uint32_t i = 0; i < submit->cmd_count && !sd_queue_replay_stopped(queue); i++) {
      struct sd_exec_state state = {
         .device = device,
         .queue = queue,
         .cmd_buffer = submit->cmds[i],
      };
      sd_cmd_buffer_execute(submit->cmds[i], &state);
      sd_exec_render_finish(&state);
   }
   const char *lost = queue->replay_error;
   for (uint32_t i = 0; i < submit->cmd_count; i++)
      sd_cmd_buffer_end_pending(submit->cmds[i]);
   /* A release fd: everything before it is done. Signalled before the
    * submission retires, so vkQueueWaitIdle also covers it. */
   if (submit->release)
      sd_sync_fd_signal(device, submit->release);
   if (submit->callback)
      submit->callback(submit->callback_data);

   /* Signals last: whoever sees them may free what the submission used. The
    * submission itself is freed before the mutex is released, so nobody who
    * waited for it can see its memory still allocated. */
   pthread_mutex_lock(&device->sync_mutex);
   queue->run_start_ns = 0;
   if (!lost && sd_device_cancelled(device))
      lost = SD_WATCHDOG_LOST;
   for (uint32_t i = 0; i < submit->signal_count; i++)
      sd_semaphore_signal_locked(device, submit->signals[i].sem, submit->signals[i].value);
   if (submit->fence)
      sd_fence_signal_locked(device, submit->fence);
   queue->completed++;
   /* Loss is declared in the critical section that retires the submission,
    * after the last touch of anything it referenced: whoever sees the loss
    * may free all of it, and a waiter woken here sees the loss together
    * with the signals, never the signals alone. (sd_device_set_lost would
    * take sync_mutex again.) */
   if (lost && !atomic_exchange(&device->lost, true))
      su_log("device lost: %s", lost);
   /* Only a retirement that changed what a sync_cond waiter waits for
    * wakes them: signals, a fence, a loss, a submission someone waits for,
    * or the queue going idle (vkQueueWaitIdle, query waits). A present's
    * callback in the middle of a busy queue wakes nobody: it used to wake
    * every fence waiter for nothing (vkcube's, once a frame). */
   const bool wake = submit->signal_count || submit->fence || submit->release || submit->wake ||
                     lost || queue->completed == queue->submitted;
   sd_free(&device->alloc, submit);
   pthread_mutex_unlock(&device->sync_mutex);
   /* Waiters (a vkWaitForFences, the present's callback wait) are woken
    * once the mutex is free, so they do not wake only to block on it; the
    * device outlives this thread (vkDestroyDevice joins it). */
   if (wake)
      sd_device_sync_broadcast(device);
}

void
sd_queue_drain_locked(struct sd_queue *queue)
{
   while (queue->completed < queue->submitted)
      sd_device_sync_wait(queue->device, UINT64_MAX);
}

static void *
sd_queue_thread(void *arg)
{
   struct sd_queue *queue = arg;
   struct sd_device *device = queue->device;
   su_fp_set_default();   /* commands and shaders run here: su_fp.h */
   pthread_mutex_lock(&device->sync_mutex);
   for (;;) {
      while (!queue->head && !queue->stop) {
         queue->idle = true;
         pthread_cond_wait(&queue->work_cond, &device->sync_mutex);
      }
      queue->idle = false;
      if (!queue->head)
         break; /* stop requested and nothing left */
      struct sd_submit *submit = queue->head;
      queue->head = submit->next;
      if (!queue->head)
         queue->tail = NULL;
      pthread_mutex_unlock(&device->sync_mutex);
      sd_queue_run(queue, submit);
      pthread_mutex_lock(&device->sync_mutex);
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return NULL;
}

VkResult
sd_queue_create(struct sd_device *device, struct sd_queue **out)
{
   struct sd_queue *queue = sd_zalloc(&device->alloc, sizeof(*queue), SD_ALIGN_DEFAULT,
                                      VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
   if (!queue)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&queue->base, VK_OBJECT_TYPE_QUEUE, device);
   queue->device = device;
   queue->watchdog_ns = sd_watchdog_limit_ns();
   pthread_cond_init(&queue->work_cond, NULL);
   if (pthread_create(&queue->thread, NULL, sd_queue_thread, queue) != 0) {
      pthread_cond_destroy(&queue->work_cond);
      sd_free(&device->alloc, queue);
      return sd_errorf(VK_ERROR_INITIALIZATION_FAILED, "cannot start the queue thread");
   }
   if (queue->watchdog_ns) {
      VkResult result = sd_watchdog_start(queue);
      if (result != VK_SUCCESS) {
         sd_queue_destroy(queue);
         return result;
      }
   }
   *out = queue;
   return VK_SUCCESS;
}

void
sd_queue_destroy(struct sd_queue *queue)
{
   struct sd_device *device = queue->device;
   pthread_mutex_lock(&device->sync_mutex);
   queue->stop = true;
   pthread_cond_signal(&queue->work_cond);
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
   pthread_join(queue->thread, NULL);
   sd_watchdog_stop(queue);
   pthread_cond_destroy(&queue->work_cond);
   sd_free(&device->alloc, queue);
}

/* A submission described independently of VkSubmitInfo / VkSubmitInfo2. */
struct sd_submit_desc {
   uint32_t wait_count, cmd_count, signal_count;
   const VkSemaphore *wait_sems;
   const uint64_t *wait_values;          /* may be NULL */
   const VkCommandBuffer *cmds;
   const VkSemaphore *signal_sems;
   const uint64_t *signal_values;        /* may be NULL */
   /* submit2 gives infos instead of arrays */
   const VkSemaphoreSubmitInfo *wait_infos;
   const VkCommandBufferSubmitInfo *cmd_infos;
   const VkSemaphoreSubmitInfo *signal_infos;
};

/* The semaphore operations of one side of a submission: from submit2's
 * infos when given, else from the semaphore and (optional) value arrays. */
static void
sd_sem_ops_fill(struct sd_sem_op *ops, uint32_t count, const VkSemaphoreSubmitInfo *infos,
                const VkSemaphore *sems, const uint64_t *values)
{
   for (uint32_t i = 0; i < count; i++) {
      if (infos) {
         ops[i].sem = sd_semaphore_from_handle(infos[i].semaphore);
         ops[i].value = infos[i].value;
      } else {
         ops[i].sem = sd_semaphore_from_handle(sems[i]);
         ops[i].value = values ? values[i] : 0;
      }
   }
}

static struct sd_submit *
sd_submit_create(struct sd_device *device, const struct sd_submit_desc *d, struct sd_fence *fence)
{
   size_t size = sizeof(struct sd_submit) +
                 sizeof(struct sd_sem_op) * (d->wait_count + d->signal_count) +
                 sizeof(struct sd_cmd_buffer *) * d->cmd_count;
   struct sd_submit *s = sd_zalloc(&device->alloc, size, SD_ALIGN_DEFAULT,
                                   VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
   if (!s)
      return NULL;
   s->waits = (struct sd_sem_op *)(s + 1);
   s->signals = s->waits + d->wait_count;
   s->cmds = (struct sd_cmd_buffer **)(s->signals + d->signal_count);
   s->wait_count = d->wait_count;
   s->signal_count = d->signal_count;
   s->cmd_count = d->cmd_count;
   sd_sem_ops_fill(s->waits, d->wait_count, d->wait_infos, d->wait_sems, d->wait_values);
   sd_sem_ops_fill(s->signals, d->signal_count, d->signal_infos, d->signal_sems,
                   d->signal_values);
   for (uint32_t i = 0; i < d->cmd_count; i++) {
      VkCommandBuffer h = d->cmd_infos ? d->cmd_infos[i].commandBuffer : d->cmds[i];
      s->cmds[i] = sd_cmd_buffer_from_handle(h);
   }
   s->fence = fence;
   return s;
}

/* Appends the built list first..last (n submissions) to the queue; returns
 * the serial of the last one (it has retired once completed >= serial). */
static uint64_t
sd_queue_enqueue(struct sd_queue *queue, struct sd_submit *first, struct sd_submit *last,
                 uint32_t n)
{
   struct sd_device *device = queue->device;
   for (struct sd_submit *s = first; s; s = s->next) {
      for (uint32_t i = 0; i < s->cmd_count; i++)
         sd_cmd_buffer_begin_pending(s->cmds[i]);
   }
   pthread_mutex_lock(&device->sync_mutex);
   if (queue->tail)
      queue->tail->next = first;
   else
      queue->head = first;
   queue->tail = last;
   queue->submitted += n;
   uint64_t serial = queue->submitted;
   const bool wake = queue->idle;
   queue->idle = false;   /* one wake is enough */
   pthread_mutex_unlock(&device->sync_mutex);
   /* Only an idle thread needs waking (a busy one looks at its list
    * before it sleeps), and after the unlock, so it does not wake only to
    * wait for the mutex; the queue outlives this call (vkDestroyDevice may
    * not run while a submission is being made). Nothing else waits for a
    * submission: sync_cond's waiters wait for signals, which come when it
    * retires. */
   if (wake)
      pthread_cond_signal(&queue->work_cond);
   return serial;
}

/* Builds every batch first, then queues them all at once, so an allocation
 * failure leaves nothing submitted. */
static VkResult
sd_queue_submit(struct sd_queue *queue, uint32_t count, const struct sd_submit_desc *descs,
                VkFence _fence)
{
   struct sd_device *device = queue->device;
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   struct sd_fence *fence = sd_fence_from_handle(_fence);
   struct sd_submit *first = NULL, *last = NULL;
   /* An empty submission with a fence still signals it after prior work. */
   uint32_t n = count ? count : (fence ? 1 : 0);
   static const struct sd_submit_desc empty;
   for (uint32_t i = 0; i < n; i++) {
      struct sd_submit *s = sd_submit_create(device, count ? &descs[i] : &empty,
                                             i == n - 1 ? fence : NULL);
      if (!s) {
         while (first) {
            struct sd_submit *next = first->next;
            sd_free(&device->alloc, first);
            first = next;
         }
         return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      }
      if (last)
         last->next = s;
      else
         first = s;
      last = s;
   }
   if (!first)
      return VK_SUCCESS;
#ifdef SHALE_ALLOC_FAIL_INJECTION
   sd_lose_device_mark(first, n);
#endif
   sd_queue_enqueue(queue, first, last, n);
   return VK_SUCCESS;
}

#define SD_SUBMIT_STACK 8

/* Room for `count` descriptions: the caller's stack array when it fits. */
static struct sd_submit_desc *
sd_submit_descs_get(struct sd_queue *queue, uint32_t count, struct sd_submit_desc *stack)
{
   if (count <= SD_SUBMIT_STACK) {
      memset(stack, 0, sizeof(*stack) * SD_SUBMIT_STACK);
      return stack;
   }
   return sd_alloc(&queue->device->alloc, sizeof(*stack) * count, SD_ALIGN_DEFAULT,
                   VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
}

static void
sd_submit_descs_put(struct sd_queue *queue, struct sd_submit_desc *descs,
                    struct sd_submit_desc *stack)
{
   if (descs != stack)
      sd_free(&queue->device->alloc, descs);
}

/* A batch given as arrays of handles (VkSubmitInfo, VkBindSparseInfo), with
 * timeline values from a VkTimelineSemaphoreSubmitInfo in `info`'s chain. */
static struct sd_submit_desc
sd_submit_desc_arrays(const void *info, uint32_t wait_count, const VkSemaphore *waits,
                      uint32_t cmd_count, const VkCommandBuffer *cmds, uint32_t signal_count,
                      const VkSemaphore *signals)
{
   const VkTimelineSemaphoreSubmitInfo *tl =
      sd_find_struct(info, VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
   return (struct sd_submit_desc) {
      .wait_count = wait_count,
      .wait_sems = waits,
      .wait_values = tl && tl->waitSemaphoreValueCount ? tl->pWaitSemaphoreValues : NULL,
      .cmd_count = cmd_count,
      .cmds = cmds,
      .signal_count = signal_count,
      .signal_sems = signals,
      .signal_values = tl && tl->signalSemaphoreValueCount ? tl->pSignalSemaphoreValues : NULL,
   };
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_QueueSubmit(VkQueue _queue, uint32_t submitCount, const VkSubmitInfo *pSubmits, VkFence fence)
{
   SD_FROM_HANDLE(sd_queue, queue, _queue);
   struct sd_submit_desc stack[SD_SUBMIT_STACK];
   struct sd_submit_desc *descs = sd_submit_descs_get(queue, submitCount, stack);
   if (!descs)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   for (uint32_t i = 0; i < submitCount; i++) {
      const VkSubmitInfo *si = &pSubmits[i];
      descs[i] = sd_submit_desc_arrays(si, si->waitSemaphoreCount, si->pWaitSemaphores,
                                       si->commandBufferCount, si->pCommandBuffers,
                                       si->signalSemaphoreCount, si->pSignalSemaphores);
   }
   VkResult result = sd_queue_submit(queue, submitCount, descs, fence);
   sd_submit_descs_put(queue, descs, stack);
   return result;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_QueueSubmit2(VkQueue _queue, uint32_t submitCount, const VkSubmitInfo2 *pSubmits, VkFence fence)
{
   SD_FROM_HANDLE(sd_queue, queue, _queue);
   struct sd_submit_desc stack[SD_SUBMIT_STACK];
   struct sd_submit_desc *descs = sd_submit_descs_get(queue, submitCount, stack);
   if (!descs)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   for (uint32_t i = 0; i < submitCount; i++) {
      const VkSubmitInfo2 *si = &pSubmits[i];
      descs[i] = (struct sd_submit_desc) {
         .wait_count = si->waitSemaphoreInfoCount,
         .wait_infos = si->pWaitSemaphoreInfos,
         .cmd_count = si->commandBufferInfoCount,
         .cmd_infos = si->pCommandBufferInfos,
         .signal_count = si->signalSemaphoreInfoCount,
         .signal_infos = si->pSignalSemaphoreInfos,
      };
   }
   VkResult result = sd_queue_submit(queue, submitCount, descs, fence);
   sd_submit_descs_put(queue, descs, stack);
   return result;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_QueueBindSparse(VkQueue _queue, uint32_t bindInfoCount, const VkBindSparseInfo *pBindInfo,
                   VkFence fence)
{
   SD_FROM_HANDLE(sd_queue, queue, _queue);
   /* No sparse resources exist (no sparse features, no SPARSE_BINDING queue),
    * so a valid call carries only semaphore waits and signals. */
   struct sd_submit_desc stack[SD_SUBMIT_STACK];
   struct sd_submit_desc *descs = sd_submit_descs_get(queue, bindInfoCount, stack);
   if (!descs)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   for (uint32_t i = 0; i < bindInfoCount; i++) {
      const VkBindSparseInfo *bi = &pBindInfo[i];
      descs[i] = sd_submit_desc_arrays(bi, bi->waitSemaphoreCount, bi->pWaitSemaphores, 0, NULL,
                                       bi->signalSemaphoreCount, bi->pSignalSemaphores);
   }
   VkResult result = sd_queue_submit(queue, bindInfoCount, descs, fence);
   sd_submit_descs_put(queue, descs, stack);
   return result;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_QueueWaitIdle(VkQueue _queue)
{
   SD_FROM_HANDLE(sd_queue, queue, _queue);
   struct sd_device *device = queue->device;
   /* Also after a loss: the queue thread drains promptly (every wait gives
    * up), and returning earlier would let the app free what it still uses. */
   pthread_mutex_lock(&device->sync_mutex);
   sd_queue_drain_locked(queue);
   pthread_mutex_unlock(&device->sync_mutex);
   return sd_device_is_lost(device) ? VK_ERROR_DEVICE_LOST : VK_SUCCESS;
}

/* ---- release fds (vkQueueSignalReleaseImageANDROID) ---- */

VkResult
sd_queue_signal_release(struct sd_queue *queue, uint32_t wait_count, const VkSemaphore *waits,
                        int *out_fd)
{
   struct sd_device *device = queue->device;
   *out_fd = -1;
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;

   /* Nothing pending: the queue is idle and every wait is met already, so
    * the waits are consumed here and there is no fd to make. */
   pthread_mutex_lock(&device->sync_mutex);
   bool done = queue->completed == queue->submitted;
   for (uint32_t i = 0; i < wait_count && done; i++)
      done = sd_semaphore_ready_locked(sd_semaphore_from_handle(waits[i]), 0);
   for (uint32_t i = 0; i < wait_count && done; i++) {
      int fd;
      sd_semaphore_try_wait_locked(sd_semaphore_from_handle(waits[i]), 0, &fd);
   }
   pthread_mutex_unlock(&device->sync_mutex);
   if (done)
      return VK_SUCCESS;

   /* Work is pending: an fd the queue thread signals after it. Where the
    * platform makes none, wait for the work here and return -1. */
   struct sd_sync_fd_pending *pending = NULL;
   int fd = -1;
   VkResult r = sd_sync_fd_create(device, &pending, &fd);
   if (r == VK_ERROR_OUT_OF_HOST_MEMORY)
      return r;
   const struct sd_submit_desc d = { .wait_count = wait_count, .wait_sems = waits };
   struct sd_submit *s = sd_submit_create(device, &d, NULL);
   if (!s) {
      if (pending) {
         sd_sync_fd_signal(device, pending);
         close(fd);
      }
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   }
   s->release = pending;
   s->wake = !pending;   /* this thread waits for it below */
   uint64_t serial = sd_queue_enqueue(queue, s, s, 1);
   if (pending) {
      *out_fd = fd;
      return VK_SUCCESS;
   }
   pthread_mutex_lock(&device->sync_mutex);
   while (queue->completed < serial)
      sd_device_sync_wait(device, UINT64_MAX);
   pthread_mutex_unlock(&device->sync_mutex);
   return sd_device_is_lost(device) ? VK_ERROR_DEVICE_LOST : VK_SUCCESS;
}

/* ---- callbacks (vkQueuePresentKHR) ---- */

VkResult
sd_queue_submit_callback(struct sd_queue *queue, uint32_t wait_count, const VkSemaphore *waits,
                         void (*fn)(void *data), void *data)
{
   struct sd_device *device = queue->device;
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   const struct sd_submit_desc d = { .wait_count = wait_count, .wait_sems = waits };
   struct sd_submit *s = sd_submit_create(device, &d, NULL);
   if (!s)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   s->callback = fn;
   s->callback_data = data;
   sd_queue_enqueue(queue, s, s, 1);
   return VK_SUCCESS;
}
