/*
 * sh_native_fence: native fence fds, the currency of vkAcquireImageANDROID
 * and vkQueueSignalReleaseImageANDROID.
 *
 * Owns: fence timelines that hand out fds which become ready (poll() reports
 * POLLIN) when the driver signals them, and helpers for any sync fd (wait
 * with a timeout, dup, close). Backends:
 *  - SH_FENCE_KIND_SW_SYNC: the kernel's software sync timeline
 *    (/dev/sw_sync or /sys/kernel/debug/sync/sw_sync: emulators and
 *    debuggable builds). Its fds are real sync_files, so anything on Android
 *    (SurfaceFlinger, sync_wait, SYNC_IOC_MERGE) takes them. The default on
 *    Android; where it cannot be opened the timeline is SH_FENCE_KIND_NONE.
 *  - SH_FENCE_KIND_EVENTFD: one eventfd per fence, readable once signalled.
 *    The host default (the tests' emulation of Android's loader); not a
 *    sync_file, so never handed to Android itself.
 *  - SH_FENCE_KIND_NONE: no fds can be made; a release must wait for its work
 *    on the CPU and return -1.
 *
 * Invariants: every fence created is signalled exactly once by
 * sh_fence_signal(), also on error paths and on a lost device, so no waiter
 * hangs; finishing a sw_sync timeline signals whatever is left (the kernel
 * marks those fences with an error). On a sw_sync timeline points are handed
 * out in creation order and signalling a point signals every earlier point
 * too, which matches a FIFO queue; the EVENTFD backend signals just the one.
 * The fd returned by sh_fence_create() belongs to the caller (O_CLOEXEC); the
 * timeline keeps what it needs to signal.
 *
 * Threading: a timeline may be used from several threads (creation on the
 * application thread, signalling on the queue thread); it locks internally.
 * The sync fd helpers are thread-safe.
 */
#ifndef SH_NATIVE_FENCE_H
#define SH_NATIVE_FENCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

enum sh_fence_kind {
   SH_FENCE_KIND_NONE,
   SH_FENCE_KIND_EVENTFD,
   SH_FENCE_KIND_SW_SYNC,
};

struct sh_fence_timeline {
   enum sh_fence_kind kind;
   pthread_mutex_t mutex;
   int timeline_fd;          /* SW_SYNC: the timeline; -1 otherwise */
   uint32_t last_point;      /* SW_SYNC: the last point handed out */
   uint32_t signaled_point;  /* SW_SYNC: the timeline's value */
};

/* A fence handed out and not yet signalled: what the signaller keeps. */
struct sh_fence_pending {
   enum sh_fence_kind kind;  /* what made it; NONE once spent */
   int signal_fd;            /* EVENTFD: the timeline's own reference; else -1 */
   uint32_t point;           /* SW_SYNC: the point that signals it */
};

/* The kind a timeline gets by default on this platform. */
enum sh_fence_kind sh_fence_platform_kind(void);
const char *sh_fence_kind_name(enum sh_fence_kind kind);

/* Makes a timeline of `kind`. 0, or a negative errno with the timeline left
 * usable as SH_FENCE_KIND_NONE (-ENOENT/-EACCES/-EPERM: no sw_sync device
 * this process may open). */
int sh_fence_timeline_init(struct sh_fence_timeline *tl, enum sh_fence_kind kind);
/* sh_fence_timeline_init(tl, sh_fence_platform_kind()). */
int sh_fence_timeline_init_platform(struct sh_fence_timeline *tl);
/* Closes the timeline. Signal sw_sync fences before this (closing signals
 * any straggler, with an error status, and its pending may no longer be
 * passed to sh_fence_signal); an eventfd fence may still be signalled after
 * it, and only sh_fence_signal ever signals one. */
void sh_fence_timeline_finish(struct sh_fence_timeline *tl);

/* A new fence fd, not yet signalled: *out_fd is the caller's, `pending` is
 * what sh_fence_signal() needs. 0 or -errno (-ENODEV for SH_FENCE_KIND_NONE);
 * on failure *out_fd is -1 and nothing needs signalling. */
int sh_fence_create(struct sh_fence_timeline *tl, struct sh_fence_pending *pending, int *out_fd);
/* Signals the fence (and, on sw_sync, every earlier point) and drops the
 * timeline's reference to it. 0 or -errno; `pending` is spent either way. */
int sh_fence_signal(struct sh_fence_timeline *tl, struct sh_fence_pending *pending);

/* --- any sync fd --------------------------------------------------------- */

/* Waits until `fd` is ready (POLLIN). timeout_ns < 0 waits forever, 0 checks
 * once. fd -1 means already signalled. 0 ready, -ETIME timed out, -EBADF not
 * an fd, -EIO error/hang-up without readiness, or another -errno. Restarts
 * after signals with the remaining time. */
int sh_sync_fd_wait(int fd, int64_t timeout_ns);
/* Whether `fd` is ready now (-1 is). */
static inline bool
sh_sync_fd_is_signaled(int fd)
{
   return sh_sync_fd_wait(fd, 0) == 0;
}
/* *out_fd = a new O_CLOEXEC fd for the same file (-1 for -1). 0 or -errno
 * (then *out_fd is -1). */
int sh_sync_fd_dup(int fd, int *out_fd);
/* Closes `fd` unless it is -1; errno is preserved. */
void sh_sync_fd_close(int fd);

#endif
