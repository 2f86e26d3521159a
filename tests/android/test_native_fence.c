/* Native fence fds: signal from another thread, poll readiness, timeouts, closing, no fd leaks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/sync_file.h>

#include "hal/sh_native_fence.h"

#include "check.h"

#define MS 1000000ll

static int64_t
now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Readiness as poll() itself reports it, independent of sh_sync_fd_wait. */
static bool
raw_readable(int fd)
{
   struct pollfd p = { .fd = fd, .events = POLLIN };
   return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static bool
is_cloexec(int fd)
{
   int flags = fcntl(fd, F_GETFD);
   return flags >= 0 && (flags & FD_CLOEXEC);
}

struct signaller {
   struct sh_fence_timeline *tl;
   struct sh_fence_pending *pending;
   int count;
   int64_t delay_ns;
   _Atomic int64_t signaled_at[16];   /* read by the waiting thread */
   int results[16];
};

/* Signals the fences in order, each after `delay_ns`. */
static void *
signal_thread(void *data)
{
   struct signaller *s = data;
   for (int i = 0; i < s->count; i++) {
      struct timespec d = { (time_t)(s->delay_ns / 1000000000), (long)(s->delay_ns % 1000000000) };
      nanosleep(&d, NULL);
      s->signaled_at[i] = now_ns();
      s->results[i] = sh_fence_signal(s->tl, &s->pending[i]);
   }
   return NULL;
}

/* What every backend that makes fds must do. */
static void
check_timeline(enum sh_fence_kind kind, struct sh_fence_timeline *tl)
{
   const char *name = sh_fence_kind_name(kind);
   CHECK_EQ_INT(tl->kind, kind);

   /* One fence: not ready, times out, then ready once another thread signals. */
   struct sh_fence_pending pending[4];
   int fd = -1;
   CHECK_EQ_INT(sh_fence_create(tl, &pending[0], &fd), 0);
   CHECK(fd >= 0, "%s: no fd", name);
   if (fd < 0)
      return;
   CHECK(is_cloexec(fd), "%s: fence fd is not O_CLOEXEC", name);
   CHECK(!raw_readable(fd), "%s: a new fence is already readable", name);
   CHECK_EQ_INT(sh_sync_fd_wait(fd, 0), -ETIME);
   CHECK(!sh_sync_fd_is_signaled(fd), "%s: new fence signalled", name);
   int64_t t0 = now_ns();
   CHECK_EQ_INT(sh_sync_fd_wait(fd, 20 * MS), -ETIME);
   int64_t waited = now_ns() - t0;
   CHECK(waited >= 20 * MS, "%s: a 20 ms wait returned after %lld ns", name, (long long)waited);
   CHECK(waited < 2000 * MS, "%s: a 20 ms wait took %lld ns", name, (long long)waited);

   struct signaller s = { .tl = tl, .pending = pending, .count = 1, .delay_ns = 50 * MS };
   pthread_t thread;
   t0 = now_ns();
   CHECK_EQ_INT(pthread_create(&thread, NULL, signal_thread, &s), 0);
   CHECK_EQ_INT(sh_sync_fd_wait(fd, -1), 0);
   int64_t woke = now_ns();
   pthread_join(thread, NULL);
   CHECK_EQ_INT(s.results[0], 0);
   CHECK(woke >= s.signaled_at[0], "%s: the wait returned before the signal", name);
   CHECK(woke - t0 >= 50 * MS, "%s: woke after %lld ns, the signal came at 50 ms", name,
         (long long)(woke - t0));
   CHECK(raw_readable(fd), "%s: poll() does not see the signalled fence", name);
   CHECK_EQ_INT(sh_sync_fd_wait(fd, 0), 0);
   CHECK_EQ_INT(sh_sync_fd_wait(fd, 10 * MS), 0);
   /* A spent pending cannot signal again. */
   CHECK_EQ_INT(sh_fence_signal(tl, &pending[0]), -EINVAL);

   /* A dup is the same fence, and outlives the original. */
   int copy = -1;
   CHECK_EQ_INT(sh_sync_fd_dup(fd, &copy), 0);
   CHECK(copy >= 0 && copy != fd && is_cloexec(copy), "%s: dup gave %d", name, copy);
   sh_sync_fd_close(fd);
   CHECK(raw_readable(copy), "%s: the dup is not readable", name);
   sh_sync_fd_close(copy);

   /* The consumer may close its fd before the fence is signalled. */
   CHECK_EQ_INT(sh_fence_create(tl, &pending[0], &fd), 0);
   sh_sync_fd_close(fd);
   CHECK_EQ_INT(sh_fence_signal(tl, &pending[0]), 0);

   /* Several fences signalled in creation order (a FIFO queue): each becomes
    * ready with its own signal, not before. */
   int fds[3];
   for (int i = 0; i < 3; i++) {
      fds[i] = -1;
      CHECK_EQ_INT(sh_fence_create(tl, &pending[i], &fds[i]), 0);
   }
   for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++)
         CHECK(raw_readable(fds[j]) == (j < i), "%s: fence %d before signal %d", name, j, i);
      CHECK_EQ_INT(sh_fence_signal(tl, &pending[i]), 0);
   }
   for (int j = 0; j < 3; j++) {
      CHECK(raw_readable(fds[j]), "%s: fence %d after every signal", name, j);
      sh_sync_fd_close(fds[j]);
   }

   /* Signals from another thread while this one waits on each in turn. */
   int more[4];
   for (int i = 0; i < 4; i++) {
      more[i] = -1;
      CHECK_EQ_INT(sh_fence_create(tl, &pending[i], &more[i]), 0);
   }
   s = (struct signaller) { .tl = tl, .pending = pending, .count = 4, .delay_ns = 5 * MS };
   CHECK_EQ_INT(pthread_create(&thread, NULL, signal_thread, &s), 0);
   for (int i = 0; i < 4; i++) {
      CHECK_EQ_INT(sh_sync_fd_wait(more[i], 5000 * MS), 0);
      CHECK(now_ns() >= s.signaled_at[i] && s.signaled_at[i] != 0,
            "%s: fence %d ready before its signal", name, i);
   }
   pthread_join(thread, NULL);
   for (int i = 0; i < 4; i++) {
      CHECK_EQ_INT(s.results[i], 0);
      sh_sync_fd_close(more[i]);
   }
}

/* sw_sync fences are real sync_files: the kernel reports their state, and a
 * later point signals the earlier ones. */
static void
check_sw_sync_specifics(struct sh_fence_timeline *tl)
{
   struct sh_fence_pending a, b;
   int fa = -1, fb = -1;
   CHECK_EQ_INT(sh_fence_create(tl, &a, &fa), 0);
   CHECK_EQ_INT(sh_fence_create(tl, &b, &fb), 0);
   struct sync_file_info info;
   memset(&info, 0, sizeof(info));
   CHECK(ioctl(fa, SYNC_IOC_FILE_INFO, &info) == 0, "SYNC_IOC_FILE_INFO: %s", strerror(errno));
   CHECK_EQ_INT(info.status, 0);
   CHECK_EQ_INT(sh_fence_signal(tl, &b), 0);
   CHECK(raw_readable(fa) && raw_readable(fb), "signalling point 2 did not signal point 1");
   memset(&info, 0, sizeof(info));
   CHECK(ioctl(fa, SYNC_IOC_FILE_INFO, &info) == 0 && info.status == 1,
         "kernel status of a signalled sw_sync fence: %d", info.status);
   CHECK_EQ_INT(sh_fence_signal(tl, &a), 0);   /* already passed: nothing to do */
   sh_sync_fd_close(fa);
   sh_sync_fd_close(fb);

   /* Finishing the timeline signals what is left. */
   int fc = -1;
   struct sh_fence_pending c;
   CHECK_EQ_INT(sh_fence_create(tl, &c, &fc), 0);
   sh_fence_timeline_finish(tl);
   CHECK_EQ_INT(sh_sync_fd_wait(fc, 1000 * MS), 0);
   sh_sync_fd_close(fc);
}

static void
on_alarm(int sig)
{
   (void)sig;
}

struct interrupter {
   pthread_t target;
   int count;
};

static void *
interrupt_thread(void *data)
{
   struct interrupter *it = data;
   for (int i = 0; i < it->count; i++) {
      struct timespec d = { 0, 10 * MS };
      nanosleep(&d, NULL);
      pthread_kill(it->target, SIGUSR1);
   }
   return NULL;
}

/* Waits survive signals: they neither return early nor forget the deadline. */
static void
check_eintr(struct sh_fence_timeline *tl)
{
   struct sigaction sa;
   memset(&sa, 0, sizeof(sa));
   sa.sa_handler = on_alarm;   /* no SA_RESTART: ppoll fails with EINTR */
   sigemptyset(&sa.sa_mask);
   CHECK_EQ_INT(sigaction(SIGUSR1, &sa, NULL), 0);

   struct sh_fence_pending p;
   int fd = -1;
   CHECK_EQ_INT(sh_fence_create(tl, &p, &fd), 0);
   struct interrupter it = { .target = pthread_self(), .count = 5 };
   pthread_t thread;
   int64_t t0 = now_ns();
   CHECK_EQ_INT(pthread_create(&thread, NULL, interrupt_thread, &it), 0);
   CHECK_EQ_INT(sh_sync_fd_wait(fd, 120 * MS), -ETIME);
   int64_t waited = now_ns() - t0;
   pthread_join(thread, NULL);
   CHECK(waited >= 120 * MS, "interrupted wait returned after %lld ns", (long long)waited);
   CHECK(waited < 1000 * MS, "interrupted wait overran: %lld ns", (long long)waited);
   CHECK_EQ_INT(sh_fence_signal(tl, &p), 0);
   sh_sync_fd_close(fd);
   signal(SIGUSR1, SIG_DFL);
}

static void
check_fd_helpers(void)
{
   /* -1 is "already signalled". */
   CHECK_EQ_INT(sh_sync_fd_wait(-1, 0), 0);
   CHECK_EQ_INT(sh_sync_fd_wait(-1, -1), 0);
   CHECK(sh_sync_fd_is_signaled(-1), "-1 is signalled");
   int copy = 7;
   CHECK_EQ_INT(sh_sync_fd_dup(-1, &copy), 0);
   CHECK_EQ_INT(copy, -1);
   sh_sync_fd_close(-1);

   /* Not an fd. */
   int p[2];
   CHECK_EQ_INT(pipe(p), 0);
   close(p[0]);
   close(p[1]);
   CHECK_EQ_INT(sh_sync_fd_wait(p[0], 0), -EBADF);
   CHECK_EQ_INT(sh_sync_fd_dup(p[0], &copy), -EBADF);
   CHECK_EQ_INT(copy, -1);
   CHECK_EQ_INT(sh_sync_fd_wait(-5, 0), -EBADF);

   /* Any pollable fd works: a pipe is ready once written. */
   CHECK_EQ_INT(pipe(p), 0);
   CHECK_EQ_INT(sh_sync_fd_wait(p[0], 5 * MS), -ETIME);
   CHECK_EQ_INT(write(p[1], "x", 1), 1);
   CHECK_EQ_INT(sh_sync_fd_wait(p[0], 5 * MS), 0);
   close(p[0]);
   close(p[1]);

   /* A timeout too large for the clock waits (here: returns at once, as the
    * fd is ready) rather than overflowing into the past. */
   CHECK_EQ_INT(pipe(p), 0);
   CHECK_EQ_INT(write(p[1], "x", 1), 1);
   CHECK_EQ_INT(sh_sync_fd_wait(p[0], INT64_MAX), 0);
   close(p[0]);
   close(p[1]);
}

int
main(void)
{
   const int fds_before = check_open_fds();
   CHECK(fds_before > 0, "cannot read /proc/self/fd");

   check_fd_helpers();

   /* The host's default backend. */
   CHECK_EQ_INT(sh_fence_platform_kind(), SH_FENCE_KIND_EVENTFD);
   struct sh_fence_timeline tl;
   CHECK_EQ_INT(sh_fence_timeline_init_platform(&tl), 0);
   check_timeline(SH_FENCE_KIND_EVENTFD, &tl);
   check_eintr(&tl);
   /* An eventfd fence still signals after its timeline is gone. */
   struct sh_fence_pending late;
   int late_fd = -1;
   CHECK_EQ_INT(sh_fence_create(&tl, &late, &late_fd), 0);
   sh_fence_timeline_finish(&tl);
   CHECK_EQ_INT(sh_fence_signal(&tl, &late), 0);
   CHECK(raw_readable(late_fd), "late eventfd fence not signalled");
   sh_sync_fd_close(late_fd);

   /* No backend: no fds, so the caller waits and returns -1. */
   CHECK_EQ_INT(sh_fence_timeline_init(&tl, SH_FENCE_KIND_NONE), 0);
   struct sh_fence_pending none;
   int none_fd = 5;
   CHECK_EQ_INT(sh_fence_create(&tl, &none, &none_fd), -ENODEV);
   CHECK_EQ_INT(none_fd, -1);
   sh_fence_timeline_finish(&tl);

   /* sw_sync where this machine has it (a kernel with CONFIG_SW_SYNC and
    * access to its device); otherwise the timeline must say so. */
   int r = sh_fence_timeline_init(&tl, SH_FENCE_KIND_SW_SYNC);
   if (r == 0) {
      fprintf(stderr, "sw_sync available: testing real sync_file fences\n");
      check_timeline(SH_FENCE_KIND_SW_SYNC, &tl);
      check_sw_sync_specifics(&tl);   /* finishes the timeline */
   } else {
      fprintf(stderr, "sw_sync unavailable here (%s): only its refusal is tested\n",
              strerror(-r));
      CHECK(r == -ENOENT || r == -EACCES || r == -EPERM || r == -ENODEV,
            "unexpected sw_sync error %d", r);
      CHECK_EQ_INT(tl.kind, SH_FENCE_KIND_NONE);
      int fd = 5;
      struct sh_fence_pending p;
      CHECK_EQ_INT(sh_fence_create(&tl, &p, &fd), -ENODEV);
      sh_fence_timeline_finish(&tl);
   }

   CHECK_EQ_INT(check_open_fds(), fds_before);
   return check_finish();
}
