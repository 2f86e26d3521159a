/* Native fence fds: sw_sync timelines, host eventfds, and waits on any sync fd. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "sh_native_fence.h"
#include "util/su_tsan.h"

/* The sw_sync ABI (Linux drivers/dma-buf/sw_sync.c; not in the exported
 * UAPI headers). Each open of the device is a new timeline whose value starts
 * at 0; CREATE_FENCE returns a sync_file fd that signals when the value
 * reaches `value`; INC adds to the value. */
struct sh_sw_sync_create_fence_data {
   uint32_t value;
   char name[32];
   int32_t fence;
};
#define SH_SW_SYNC_IOC_MAGIC 'W'
#define SH_SW_SYNC_IOC_CREATE_FENCE \
   _IOWR(SH_SW_SYNC_IOC_MAGIC, 0, struct sh_sw_sync_create_fence_data)
#define SH_SW_SYNC_IOC_INC _IOW(SH_SW_SYNC_IOC_MAGIC, 1, uint32_t)

static const char *const sh_sw_sync_paths[] = {
   "/dev/sw_sync",
   "/sys/kernel/debug/sync/sw_sync",
};

enum sh_fence_kind
sh_fence_platform_kind(void)
{
#ifdef __ANDROID__
   return SH_FENCE_KIND_SW_SYNC;
#else
   return SH_FENCE_KIND_EVENTFD;
#endif
}

const char *
sh_fence_kind_name(enum sh_fence_kind kind)
{
   switch (kind) {
   case SH_FENCE_KIND_NONE:
      return "none";
   case SH_FENCE_KIND_EVENTFD:
      return "eventfd";
   case SH_FENCE_KIND_SW_SYNC:
      return "sw_sync";
   }
   return "?";
}

static int
sw_sync_open(void)
{
   int err = -ENOENT;
   for (size_t i = 0; i < sizeof(sh_sw_sync_paths) / sizeof(sh_sw_sync_paths[0]); i++) {
      int fd = open(sh_sw_sync_paths[i], O_RDWR | O_CLOEXEC);
      if (fd >= 0)
         return fd;
      /* Report the most telling failure: a device that exists but is
       * forbidden says more than one that does not exist. */
      if (errno != ENOENT)
         err = -errno;
   }
   return err;
}

int
sh_fence_timeline_init(struct sh_fence_timeline *tl, enum sh_fence_kind kind)
{
   memset(tl, 0, sizeof(*tl));
   tl->kind = SH_FENCE_KIND_NONE;
   tl->timeline_fd = -1;
   /* The static initializer cannot fail, so the timeline is always usable. */
   const pthread_mutex_t init = PTHREAD_MUTEX_INITIALIZER;
   tl->mutex = init;

   switch (kind) {
   case SH_FENCE_KIND_NONE:
      return 0;
   case SH_FENCE_KIND_EVENTFD:
      tl->kind = kind;
      return 0;
   case SH_FENCE_KIND_SW_SYNC: {
      int fd = sw_sync_open();
      if (fd < 0)
         return fd;
      tl->timeline_fd = fd;
      tl->kind = kind;
      return 0;
   }
   }
   return -EINVAL;
}

int
sh_fence_timeline_init_platform(struct sh_fence_timeline *tl)
{
   return sh_fence_timeline_init(tl, sh_fence_platform_kind());
}

void
sh_fence_timeline_finish(struct sh_fence_timeline *tl)
{
   /* Closing a sw_sync timeline signals its remaining fences. */
   sh_sync_fd_close(tl->timeline_fd);
   tl->timeline_fd = -1;
   tl->kind = SH_FENCE_KIND_NONE;
   pthread_mutex_destroy(&tl->mutex);
}

/* Whether timeline point `a` comes after `b`, across the 32-bit wrap (the
 * kernel compares sw_sync points the same way). */
static bool
point_after(uint32_t a, uint32_t b)
{
   return (int32_t)(a - b) > 0;
}

int
sh_fence_create(struct sh_fence_timeline *tl, struct sh_fence_pending *pending, int *out_fd)
{
   *out_fd = -1;
   pending->kind = SH_FENCE_KIND_NONE;
   pending->signal_fd = -1;
   pending->point = 0;

   switch (tl->kind) {
   case SH_FENCE_KIND_NONE:
      return -ENODEV;
   case SH_FENCE_KIND_EVENTFD: {
      int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
      if (fd < 0)
         return -errno;
      int keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
      if (keep < 0) {
         int err = -errno;
         close(fd);
         return err;
      }
      pending->kind = SH_FENCE_KIND_EVENTFD;
      pending->signal_fd = keep;
      *out_fd = fd;
      return 0;
   }
   case SH_FENCE_KIND_SW_SYNC: {
      pthread_mutex_lock(&tl->mutex);
      struct sh_sw_sync_create_fence_data data;
      memset(&data, 0, sizeof(data));
      data.value = tl->last_point + 1;
      memcpy(data.name, "shale-release", sizeof("shale-release"));
      int err = 0;
      if (ioctl(tl->timeline_fd, SH_SW_SYNC_IOC_CREATE_FENCE, &data) != 0)
         err = -errno;
      else if (data.fence < 0)
         err = -EIO;
      if (err == 0) {
         tl->last_point = data.value;
         pending->kind = SH_FENCE_KIND_SW_SYNC;
         pending->point = data.value;
         *out_fd = data.fence;
      }
      pthread_mutex_unlock(&tl->mutex);
      return err;
   }
   }
   return -EINVAL;
}

int
sh_fence_signal(struct sh_fence_timeline *tl, struct sh_fence_pending *pending)
{
   int err = 0;
   su_tsan_fd_signal();
   switch (pending->kind) {
   case SH_FENCE_KIND_NONE:
      err = -EINVAL;   /* never created, or signalled already */
      break;
   case SH_FENCE_KIND_EVENTFD: {
      /* Independent of the timeline: works even after it was finished. */
      const uint64_t one = 1;
      ssize_t n;
      do {
         n = write(pending->signal_fd, &one, sizeof(one));
      } while (n < 0 && errno == EINTR);
      if (n != (ssize_t)sizeof(one))
         err = n < 0 ? -errno : -EIO;
      break;
   }
   case SH_FENCE_KIND_SW_SYNC:
      pthread_mutex_lock(&tl->mutex);
      if (tl->kind != SH_FENCE_KIND_SW_SYNC) {
         err = -EINVAL;   /* finished: closing it signalled the fence */
      } else if (point_after(pending->point, tl->signaled_point)) {
         uint32_t inc = pending->point - tl->signaled_point;
         if (ioctl(tl->timeline_fd, SH_SW_SYNC_IOC_INC, &inc) != 0)
            err = -errno;
         else
            tl->signaled_point = pending->point;
      }
      pthread_mutex_unlock(&tl->mutex);
      break;
   }
   sh_sync_fd_close(pending->signal_fd);
   pending->kind = SH_FENCE_KIND_NONE;
   pending->signal_fd = -1;
   pending->point = 0;
   return err;
}

/* --- any sync fd --------------------------------------------------------- */

static int64_t
monotonic_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
sh_sync_fd_wait(int fd, int64_t timeout_ns)
{
   if (fd == -1)
      return 0;
   if (fd < 0)
      return -EBADF;

   /* A deadline past the clock's range is "forever". */
   int64_t now = monotonic_ns();
   bool forever = timeout_ns < 0 || timeout_ns > INT64_MAX - now;
   int64_t deadline = forever ? 0 : now + timeout_ns;

   for (;;) {
      struct pollfd p = { .fd = fd, .events = POLLIN };
      struct timespec ts, *tsp = NULL;
      if (!forever) {
         int64_t left = deadline - monotonic_ns();
         if (left < 0)
            left = 0;
         ts.tv_sec = (time_t)(left / 1000000000);
         ts.tv_nsec = (long)(left % 1000000000);
         tsp = &ts;
      }
      int n = ppoll(&p, 1, tsp, NULL);
      if (n < 0) {
         if (errno == EINTR || errno == EAGAIN)
            continue;
         return -errno;
      }
      if (n == 0)
         return -ETIME;
      if (p.revents & POLLIN) {
         su_tsan_fd_ready();
         return 0;
      }
      if (p.revents & POLLNVAL)
         return -EBADF;
      return -EIO;   /* POLLERR / POLLHUP without readiness */
   }
}

int
sh_sync_fd_dup(int fd, int *out_fd)
{
   *out_fd = -1;
   if (fd == -1)
      return 0;
   int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
   if (copy < 0)
      return -errno;
   *out_fd = copy;
   return 0;
}

void
sh_sync_fd_close(int fd)
{
   if (fd < 0)
      return;
   int saved = errno;
   close(fd);
   errno = saved;
}
