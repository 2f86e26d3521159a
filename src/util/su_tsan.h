/*
 * su_tsan: ThreadSanitizer annotations for synchronisation through sync fds
 * and eventfds, which TSan cannot see. Compiled only in TSan builds (gcc's
 * __SANITIZE_THREAD__, clang's thread_sanitizer feature); elsewhere the
 * functions are empty.
 *
 * Why: a payload is signalled by write() to an eventfd (OPAQUE_FD payloads,
 * the test builds' stand-in sync fds) or by a sw_sync ioctl, and waited for
 * by poll() seeing the fd ready. The kernel orders the two (the poll cannot
 * see readiness before the write), so everything the signalling thread did
 * before the signal happens before what the waiter does after the wait: the
 * work's buffer writes before the host's reads (api/external_sync), device
 * 1's work before device 2's work that waited on the shared semaphore.
 * TSan models write() -> read() on one fd (and its dup()s), but not
 * poll() readiness, not sw_sync, and not copies made with
 * fcntl(F_DUPFD_CLOEXEC) (not intercepted), which is how Shale and every
 * sync-fd user copy fds: it reported these orders as races.
 *
 * What: su_tsan_fd_signal() before each signal (a release),
 * su_tsan_fd_ready() after each wait or poll that saw an fd signalled (an
 * acquire). TSan keys its edges by address and the kernel file behind an fd
 * has none (every eventfd and sync_file shares one anonymous inode), so all
 * fds share one tag: the address of the TSan runtime's own __tsan_acquire,
 * the same in every module of the process, so that an application (a test)
 * that polls an exported fd itself can name the same edge. The edge is
 * coarser than the kernel's: it orders a signal of one fd before a wait
 * that saw another fd ready. It can hide a race only between two threads
 * that such an unrelated signal and wait happen to order.
 *
 * Threading: any thread.
 */
#ifndef SU_TSAN_H
#define SU_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define SU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SU_TSAN 1
#endif
#endif

#ifdef SU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define SU_TSAN_FD_TAG ((void *)&__tsan_acquire)
static inline void su_tsan_fd_signal(void) { __tsan_release(SU_TSAN_FD_TAG); }
static inline void su_tsan_fd_ready(void) { __tsan_acquire(SU_TSAN_FD_TAG); }
#else
static inline void su_tsan_fd_signal(void) {}
static inline void su_tsan_fd_ready(void) {}
#endif

#endif
