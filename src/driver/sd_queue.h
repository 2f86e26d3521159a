/*
 * sd_queue: VkQueue, its submission thread, and queue submission.
 *
 * Owns: a FIFO of submissions, each a list of semaphore waits, command
 * buffers and semaphore signals, plus an optional fence; one thread per queue
 * takes them in order, waits, replays the command buffers, then signals.
 *
 * Invariants: submissions complete in submission order; `completed` counts
 * finished submissions and is <= `submitted`. vkQueueWaitIdle returns when
 * completed == submitted (or the device is lost). A submission's signals and
 * fence are written only after all of its command buffers finished (or were
 * skipped because the device is lost), so an application that saw them may
 * free or reuse everything the submission used. Once the device is lost the
 * thread still drains its list (waits give up, command buffers are skipped,
 * signals and fences are still written) so destroying the device never hangs.
 *
 * Release fds (vkQueueSignalReleaseImageANDROID): a submission with only
 * semaphore waits and a sync fd (sd_sync.h) that the thread signals when the
 * submission is done, i.e. after its waits and everything queued before it.
 * Nothing blocks the caller while work is pending; the fd is made only when
 * something is pending.
 *
 * Callbacks (vkQueuePresentKHR): a submission with only semaphore waits
 * whose function the thread calls, without sync_mutex held, once its waits
 * are met and everything queued before it is done.
 *
 * Device loss: replay that meets an unrecoverable internal error calls
 * sd_queue_replay_failed(); the rest of that submission is skipped and the
 * device is lost. In builds with SHALE_ALLOC_FAIL_INJECTION, the environment
 * variable SHALE_DEBUG_LOSE_DEVICE=<n> loses the device when the n-th
 * submission of the process (1-based, counted over every queue: each
 * VkSubmitInfo / VkSubmitInfo2 / VkBindSparseInfo, and a submit of zero
 * batches with a fence counts as one) runs, after its semaphore waits.
 * The watchdog (sd_watchdog.h) cancels a replay that runs past
 * SHALE_WATCHDOG_MS: replay stops as after a failure, and the loss is
 * declared when that submission retires, like every other loss.
 *
 * Threading: the list and counters are guarded by the device's sync_mutex.
 * With its list empty the thread sleeps on its own condition (work_cond,
 * with sync_mutex), which only a submission to an idle queue and
 * destruction signal: sync objects' changes (an acquire's signals, a host
 * signal, another thread's fence) do not wake an idle queue thread, and a
 * submission wakes no fence waiter. A submission's retirement broadcasts
 * sync_cond only where it changed what a waiter there waits for: it
 * signalled semaphores or a fence (or a release fd), lost the device, was
 * waited for by the thread that queued it, or left the queue idle
 * (vkQueueWaitIdle and query waits wait for that); a present's callback
 * retiring with work queued behind it wakes nobody. While a submission's
 * semaphore waits are not met, and in replay's event waits, it sleeps on
 * sync_cond like every other waiter. Command buffers run only on this thread;
 * `replay_error` is read and written only by it.
 */
#ifndef SD_QUEUE_H
#define SD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

#include "sd_object.h"

struct sd_device;
struct sd_submit;

struct sd_queue {
   struct sd_object base;
   struct sd_device *device;
   pthread_t thread;
   struct sd_submit *head, *tail;
   uint64_t submitted, completed;
   bool stop;
   bool idle;                  /* the thread sleeps on work_cond: its list is empty */
   pthread_cond_t work_cond;
   const char *replay_error;   /* why the current submission's replay failed */
   /* Watchdog (sd_watchdog.h), under sync_mutex: when the replay of the
    * running submission began (0: none runs), and a count of replays. */
   uint64_t run_start_ns, run_serial;
   uint64_t watchdog_ns;       /* the limit; 0: no watchdog */
   bool watchdog_running, watchdog_stop;
   /* The watchdog sleeps on its own condition (with sync_mutex); idle: it
    * waits for a replay to start, and only then does a start signal it. */
   bool watchdog_idle;
   pthread_cond_t watchdog_cond;
   pthread_t watchdog;
};

SD_DEFINE_HANDLE_CASTS(sd_queue, base, VkQueue, VK_OBJECT_TYPE_QUEUE)

VkResult sd_queue_create(struct sd_device *device, struct sd_queue **out);
/* Finishes all submitted work, then joins the thread and frees the queue. */
void sd_queue_destroy(struct sd_queue *queue);

/* Replay side (queue thread): a command could not be carried out (an internal
 * allocation failed, ...). The remaining commands of the submission are
 * skipped and the device is lost with `why` (a static string) as the reason. */
void sd_queue_replay_failed(struct sd_queue *queue, const char *why);

/* Whether replay should stop: a command failed or the device is lost. */
bool sd_queue_replay_stopped(const struct sd_queue *queue);

/* Waits (device sync_mutex held) until every submission of the queue has
 * retired. After a device loss this still returns promptly, and any wait that
 * reports VK_ERROR_DEVICE_LOST drains first, so the app may then free what
 * the lost work referenced. */
void sd_queue_drain_locked(struct sd_queue *queue);

/* A sync fd that becomes ready once the binary semaphores `waits` are
 * signalled (the wait consumes them, as a submission's would) and all work
 * submitted to the queue before this call is done. *out_fd is -1 when that
 * holds already (the waits are consumed now), and also where the platform
 * can make no sync fd: then this call waits for the work on the CPU.
 * VK_ERROR_OUT_OF_HOST_MEMORY (nothing consumed, nothing queued) or
 * VK_ERROR_DEVICE_LOST (*out_fd -1). */
VkResult sd_queue_signal_release(struct sd_queue *queue, uint32_t wait_count,
                                 const VkSemaphore *waits, int *out_fd);

/* Queues a call of fn(data) on the queue thread, after the binary semaphores
 * `waits` are signalled (the wait consumes them, as a submission's would)
 * and after all work submitted to the queue before this call. The call
 * happens once, also when the device is lost meanwhile (waits then give
 * up), and counts as a submission for vkQueueWaitIdle: once that returns,
 * fn has returned. VK_ERROR_OUT_OF_HOST_MEMORY or VK_ERROR_DEVICE_LOST:
 * nothing is queued, fn is never called. */
VkResult sd_queue_submit_callback(struct sd_queue *queue, uint32_t wait_count,
                                  const VkSemaphore *waits, void (*fn)(void *data), void *data);

#endif
