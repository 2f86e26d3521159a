/*
 * sd_sync: fences, semaphores (binary and timeline) and events, and their
 * external payloads (sync fds, VK_KHR_external_{semaphore,fence}_fd).
 *
 * Owns: the payload of each object, and the one host-wait loop every
 * blocking host command uses (sd_sync_host_wait). All payloads are read and
 * written under the device's sync_mutex, and every change broadcasts
 * sync_cond (fence and semaphore signals, the commonest changes, right
 * after the critical section that made them, not inside it); waiters re-check their condition, so "wait any", "wait all",
 * host waits on timelines, query-result waits and the queue thread's
 * semaphore and event waits share one mechanism and cannot miss a wakeup.
 *
 * Payloads. A fence or binary semaphore has a permanent payload and may
 * carry a temporary one (struct sd_payload; `temp.kind` NONE when there is
 * none). Kinds:
 *  - LOCAL: a flag in the object (permanent payloads only).
 *  - SYNC_FD: an imported sync fd (temporary payloads only; copy
 *    transference): signalled once poll() reports it readable; fd -1 stands
 *    for "signalled" (an import of -1, or an fd seen ready, then closed).
 *  - OPAQUE_FD: an eventfd, shared by reference with every object (of any
 *    device or process) that imported it; signalled while its counter is
 *    nonzero: a signal writes 1, a semaphore wait or a fence reset reads it
 *    back to 0 (non-blocking: of two racing waiters one wins). An object
 *    exportable as OPAQUE_FD has one as its permanent payload from creation;
 *    a permanent import replaces the permanent payload (and drops a
 *    temporary one). Timeline semaphores have no external payloads.
 * Nothing in this device broadcasts sync_cond for an fd payload, so whoever
 * waits on one polls the fd itself, never holding sync_mutex while it
 * blocks (the queue thread's semaphore waits, host fence waits, in slices
 * so that device loss and local signals are still seen). Signals and waits
 * act on the payload in effect (the temporary one while there is one). A
 * semaphore's temporary payload is dropped (the permanent one restored) by the queue
 * wait that consumes it or by a sync-fd export; a fence's by vkResetFences
 * or a sync-fd export (the spec's temporary-import rules).
 *
 * Sync-fd export of a payload whose signal is still pending moves the
 * pending signal into the new fd (copy transference: the export has the
 * effect of a wait on the semaphore / a reset of the fence): the object
 * keeps a FIFO of "diverted" signals, and the next queue signal of the
 * object signals the fd at the head instead of the object. There is one
 * queue and it completes in order, so the FIFO pairs each export with the
 * signal that was pending when it was made. A pending signal on an
 * OPAQUE_FD payload may come from anywhere, so OPAQUE_FD and SYNC_FD are
 * not compatible handle types, and an imported OPAQUE_FD payload does not
 * export to SYNC_FD.
 *
 * Sync fds are made by the platform (sd_sync_fd_ops, registered by the HAL:
 * sw_sync sync_files on Android; on the host, eventfds, which poll() like
 * sync files but are not kernel sync_files). Without a maker,
 * sync-fd export is not offered and vkQueueSignalReleaseImageANDROID waits
 * on the CPU and returns -1.
 *
 * Invariants: a binary semaphore has at most one pending signal (valid usage);
 * a queue wait on it consumes it. A timeline value only grows. A fence's
 * payload is signalled by the queue thread after the submission's work, or
 * by vkCreateFence with SIGNALED_BIT (or by whoever shares an OPAQUE_FD
 * payload); only vkResetFences or a sync-fd export clears it. Every sync fd
 * made is signalled exactly once: diverted signals still queued when their
 * object is destroyed are signalled then. Once the device is lost every host wait returns
 * VK_ERROR_DEVICE_LOST at once, and queue-thread waits give up, so nothing
 * blocks forever on a lost device (a queue wait on a foreign sync fd
 * notices the loss within SD_SYNC_FD_SLICE_MS).
 *
 * Threading: see above; the handles themselves follow Vulkan's external
 * synchronization rules.
 */
#ifndef SD_SYNC_H
#define SD_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sd_object.h"

struct sd_device;
struct sd_sync_fd_pending;

/* The longest a blocked fd wait goes without checking for device loss. */
#define SD_SYNC_FD_SLICE_MS 50

enum sd_payload_kind {
   SD_PAYLOAD_NONE,        /* no temporary payload */
   SD_PAYLOAD_LOCAL,
   SD_PAYLOAD_SYNC_FD,
   SD_PAYLOAD_OPAQUE_FD,
};

struct sd_payload {
   enum sd_payload_kind kind;
   int fd;                 /* SYNC_FD: the fd or -1; OPAQUE_FD: the eventfd; else -1 */
   bool signaled;          /* LOCAL */
};

struct sd_fence {
   struct sd_object base;
   struct sd_payload perm, temp;
   struct sd_sync_fd_pending *diverted, *diverted_tail;
};

struct sd_semaphore {
   struct sd_object base;
   VkSemaphoreType type;
   uint64_t value;              /* timeline: current counter value */
   struct sd_payload perm, temp;   /* binary */
   struct sd_sync_fd_pending *diverted, *diverted_tail;
};

struct sd_event {
   struct sd_object base;
   bool set;
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_fence, base, VkFence, VK_OBJECT_TYPE_FENCE)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_semaphore, base, VkSemaphore, VK_OBJECT_TYPE_SEMAPHORE)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_event, base, VkEvent, VK_OBJECT_TYPE_EVENT)

/* Queue-thread side; call with the device's sync_mutex held. They do not
 * wake waiters: the caller broadcasts sync_cond once it has released
 * sync_mutex (sd_device_sync_broadcast after the unlock), so a woken
 * waiter does not block at once on the mutex the signaller still holds. */
void sd_fence_signal_locked(struct sd_device *device, struct sd_fence *fence);
void sd_semaphore_signal_locked(struct sd_device *device, struct sd_semaphore *sem, uint64_t value);
/* Whether a queue wait on `sem` (for `value` on timelines) can proceed now;
 * consumes a binary signal (and drops a temporary payload) when it returns
 * true. When it returns false, *poll_fd is a sync fd to wait for without
 * the lock (sd_sync_fd_poll), or -1: wait on sync_cond. */
bool sd_semaphore_try_wait_locked(struct sd_semaphore *sem, uint64_t value, int *poll_fd);
/* Like sd_semaphore_try_wait_locked but consumes nothing. */
bool sd_semaphore_ready_locked(struct sd_semaphore *sem, uint64_t value);

/* Waits up to timeout_ms (-1: forever) for a sync fd to be ready; true when
 * it is. Errors (a closed fd, POLLERR) count as ready, logged: a fence that
 * can never be waited for must not hang the queue. */
bool sd_sync_fd_poll(int fd, int timeout_ms);

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

/* ---- sync fds -------------------------------------------------------------
 * The platform's maker of sync fds. The HAL registers one when its library
 * loads; the driver core alone has none. */
struct sd_sync_fd_ops {
   size_t token_size;   /* bytes of caller-provided storage per pending fd */
   /* Whether this process can make fds at all (probed once, then fixed). */
   bool (*available)(void);
   /* A new sync fd that is not ready: *out_fd (O_CLOEXEC) belongs to the
    * caller; `token` (token_size bytes, the caller's) is what signal()
    * needs. 0 or a negative errno, then *out_fd is -1 and nothing needs
    * signalling. */
   int (*create)(void *token, int *out_fd);
   /* Makes the fd ready. Called exactly once per successful create(), from
    * any thread, possibly with sync_mutex held: it must not block. */
   void (*signal)(void *token);
   /* Whether the fds are kernel sync_files (sw_sync), which any API taking
    * a sync file accepts. Only then is SYNC_FD export offered to
    * applications; eventfds still serve vkQueueSignalReleaseImageANDROID on
    * the host, which asks only for an fd poll() reports readable. */
   bool (*kernel_sync_files)(void);
};

void sd_sync_fd_register(const struct sd_sync_fd_ops *ops);
/* Whether sync fds can be made in this process. */
bool sd_sync_fd_can_make(void);
/* Whether SYNC_FD export is offered (can make, and they are kernel sync_files). */
bool sd_sync_fd_exportable(void);

/* A sync fd that is not ready yet and the means to signal it. On success
 * *out_fd is the caller's and *out must be passed to sd_sync_fd_signal()
 * exactly once. VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_TOO_MANY_OBJECTS (the
 * platform could not make one), VK_ERROR_FEATURE_NOT_PRESENT (no maker). */
VkResult sd_sync_fd_create(struct sd_device *device, struct sd_sync_fd_pending **out, int *out_fd);
/* Signals and frees; any thread, sync_mutex held or not. */
void sd_sync_fd_signal(struct sd_device *device, struct sd_sync_fd_pending *pending);

/* Imports a sync fd as the temporary payload of a binary semaphore / a
 * fence (vkAcquireImageANDROID, vkImportSemaphoreFdKHR, vkImportFenceFdKHR).
 * fd -1 is a signalled payload. Takes ownership of fd on success only;
 * VK_ERROR_INVALID_EXTERNAL_HANDLE when fd is not an open file. */
VkResult sd_semaphore_import_sync_fd(struct sd_semaphore *sem, int fd);
VkResult sd_fence_import_sync_fd(struct sd_fence *fence, int fd);

#endif
