/* Fences, binary and timeline semaphores, events: creation, host waits, signals, external payloads. */
#include "sd_sync.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "sd_alloc.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_queue.h"
#include "sd_exec.h"
#include "sd_util.h"
#include "util/su_tsan.h"

/* ---- sync fds ---- */

/* A sync fd handed out and not yet signalled; the maker's token follows. */
struct sd_sync_fd_pending {
   struct sd_sync_fd_pending *next;   /* diverted-signal FIFO */
};

#define SD_SYNC_FD_TOKEN_OFFSET \
   ((sizeof(struct sd_sync_fd_pending) + SD_ALIGN_DEFAULT - 1) & ~(size_t)(SD_ALIGN_DEFAULT - 1))

/* Set once, when the HAL's library loads, before any device exists. */
static const struct sd_sync_fd_ops *sd_fd_ops;

void
sd_sync_fd_register(const struct sd_sync_fd_ops *ops)
{
   sd_fd_ops = ops;
}

bool
sd_sync_fd_can_make(void)
{
   return sd_fd_ops && sd_fd_ops->available();
}

bool
sd_sync_fd_exportable(void)
{
   return sd_sync_fd_can_make() && sd_fd_ops->kernel_sync_files();
}

VkResult
sd_sync_fd_create(struct sd_device *device, struct sd_sync_fd_pending **out, int *out_fd)
{
   *out = NULL;
   *out_fd = -1;
   if (!sd_sync_fd_can_make())
      return VK_ERROR_FEATURE_NOT_PRESENT;
   struct sd_sync_fd_pending *p =
      sd_zalloc(&device->alloc, SD_SYNC_FD_TOKEN_OFFSET + sd_fd_ops->token_size,
                SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!p)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   int err = sd_fd_ops->create((char *)p + SD_SYNC_FD_TOKEN_OFFSET, out_fd);
   if (err != 0) {
      sd_free(&device->alloc, p);
      *out_fd = -1;
      return err == -ENOMEM ? sd_error(VK_ERROR_OUT_OF_HOST_MEMORY)
                            : sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "cannot make a sync fd");
   }
   *out = p;
   return VK_SUCCESS;
}

void
sd_sync_fd_signal(struct sd_device *device, struct sd_sync_fd_pending *pending)
{
   sd_fd_ops->signal((char *)pending + SD_SYNC_FD_TOKEN_OFFSET);
   sd_free(&device->alloc, pending);
}

/* A sync fd that is ready already (exports of signalled payloads). */
static VkResult
sd_sync_fd_create_signaled(struct sd_device *device, int *out_fd)
{
   struct sd_sync_fd_pending *p;
   VkResult r = sd_sync_fd_create(device, &p, out_fd);
   if (r == VK_SUCCESS)
      sd_sync_fd_signal(device, p);
   return r;
}

static void
sd_diverted_push(struct sd_sync_fd_pending **head, struct sd_sync_fd_pending **tail,
                 struct sd_sync_fd_pending *p)
{
   p->next = NULL;
   if (*tail)
      (*tail)->next = p;
   else
      *head = p;
   *tail = p;
}

/* Signals the oldest diverted signal, if any; true when there was one. */
static bool
sd_diverted_fire(struct sd_device *device, struct sd_sync_fd_pending **head,
                 struct sd_sync_fd_pending **tail)
{
   struct sd_sync_fd_pending *p = *head;
   if (!p)
      return false;
   *head = p->next;
   if (!*head)
      *tail = NULL;
   sd_sync_fd_signal(device, p);
   return true;
}

/* ---- payloads ---- */

enum sd_fd_state { SD_FD_PENDING, SD_FD_READY, SD_FD_INVALID };

static enum sd_fd_state
sd_fd_poll_state(int fd, int timeout_ms)
{
   struct pollfd p = { .fd = fd, .events = POLLIN };
   int n = poll(&p, 1, timeout_ms);
   if (n <= 0)
      return SD_FD_PENDING;   /* timed out, or EINTR: the caller looks again */
   su_tsan_fd_ready();
   if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
      su_log("sync fd %d polled with error (revents 0x%x): treated as signalled", fd,
             (unsigned)p.revents);
   return (p.revents & POLLNVAL) ? SD_FD_INVALID : SD_FD_READY;
}

bool
sd_sync_fd_poll(int fd, int timeout_ms)
{
   return sd_fd_poll_state(fd, timeout_ms) != SD_FD_PENDING;
}

/* A new OPAQUE_FD payload: an eventfd whose counter is nonzero while
 * signalled. Non-blocking, so a wait that loses a race reads EAGAIN. */
static VkResult
sd_payload_init_opaque(struct sd_payload *p, bool signaled)
{
   int fd = eventfd(signaled ? 1 : 0, EFD_CLOEXEC | EFD_NONBLOCK);
   if (fd < 0)
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "cannot make an eventfd payload");
   *p = (struct sd_payload) { .kind = SD_PAYLOAD_OPAQUE_FD, .fd = fd };
   return VK_SUCCESS;
}

static void
sd_payload_init_local(struct sd_payload *p, bool signaled)
{
   *p = (struct sd_payload) { .kind = SD_PAYLOAD_LOCAL, .fd = -1, .signaled = signaled };
}

static void
sd_payload_init_none(struct sd_payload *p)
{
   *p = (struct sd_payload) { .kind = SD_PAYLOAD_NONE, .fd = -1 };
}

/* Drops a payload's fd; a temporary payload becomes "none". */
static void
sd_payload_finish(struct sd_payload *p)
{
   if ((p->kind == SD_PAYLOAD_SYNC_FD || p->kind == SD_PAYLOAD_OPAQUE_FD) && p->fd >= 0)
      close(p->fd);
   sd_payload_init_none(p);
}

/* The payload in effect: the temporary one while there is one. */
static struct sd_payload *
sd_payload_active(struct sd_payload *perm, struct sd_payload *temp)
{
   return temp->kind != SD_PAYLOAD_NONE ? temp : perm;
}

/* Whether the payload is signalled, consuming nothing. A sync fd seen ready
 * is closed (unless it is no longer an open fd: never close a number that
 * may have been reused) and becomes -1. The polls do not block. */
static bool
sd_payload_signaled(struct sd_payload *p)
{
   switch (p->kind) {
   case SD_PAYLOAD_LOCAL:
      return p->signaled;
   case SD_PAYLOAD_SYNC_FD: {
      if (p->fd == -1)
         return true;
      enum sd_fd_state state = sd_fd_poll_state(p->fd, 0);
      if (state == SD_FD_PENDING)
         return false;
      if (state == SD_FD_READY)
         close(p->fd);
      p->fd = -1;
      return true;
   }
   case SD_PAYLOAD_OPAQUE_FD:
      return sd_fd_poll_state(p->fd, 0) != SD_FD_PENDING;
   default:
      return false;
   }
}

/* Sets or clears an eventfd payload (whatever it held). */
static void
sd_eventfd_set(int fd, bool signaled)
{
   uint64_t v;
   ssize_t n;
   if (signaled) {
      v = 1;
      su_tsan_fd_signal();
      do {
         n = write(fd, &v, sizeof(v));
      } while (n < 0 && errno == EINTR);
   } else {
      do {
         n = read(fd, &v, sizeof(v));
      } while (n < 0 && errno == EINTR);
   }
}

/* A signal operation on the payload. A sync fd is read-only to us (valid
 * usage never signals one); should it happen, the payload just reads as
 * signalled from then on. */
static void
sd_payload_signal(struct sd_payload *p)
{
   switch (p->kind) {
   case SD_PAYLOAD_LOCAL:
      p->signaled = true;
      break;
   case SD_PAYLOAD_OPAQUE_FD:
      sd_eventfd_set(p->fd, true);
      break;
   case SD_PAYLOAD_SYNC_FD:
      if (p->fd >= 0)
         close(p->fd);
      p->fd = -1;
      break;
   default:
      break;
   }
}

/* A wait operation (or the side effect of one) on a signalled payload:
 * unsignals it. True when it was signalled and now is not; for a shared
 * payload another waiter may have won the race (false). */
static bool
sd_payload_consume(struct sd_payload *p)
{
   switch (p->kind) {
   case SD_PAYLOAD_LOCAL:
      if (!p->signaled)
         return false;
      p->signaled = false;
      return true;
   case SD_PAYLOAD_OPAQUE_FD: {
      uint64_t v;
      ssize_t n;
      do {
         n = read(p->fd, &v, sizeof(v));
      } while (n < 0 && errno == EINTR);
      if (n != (ssize_t)sizeof(v))
         return false;
      su_tsan_fd_ready();
      return true;
   }
   case SD_PAYLOAD_SYNC_FD:
      return sd_payload_signaled(p);
   default:
      return false;
   }
}

/* The fd to poll while the payload is not signalled, or -1 (sync_cond). */
static int
sd_payload_poll_fd(const struct sd_payload *p)
{
   return p->kind == SD_PAYLOAD_SYNC_FD || p->kind == SD_PAYLOAD_OPAQUE_FD ? p->fd : -1;
}

/* Checks an fd offered for import: a sync fd (or -1) for SYNC_FD, an
 * eventfd for OPAQUE_FD (what this driver exports; made non-blocking). */
static VkResult
sd_payload_check_import(bool sync_fd, int fd)
{
   if (sync_fd) {
      if (fd < -1 || (fd >= 0 && fcntl(fd, F_GETFD) < 0))
         return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "not an open sync fd");
      return VK_SUCCESS;
   }
   char path[64], target[64];
   snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
   ssize_t n = fd >= 0 ? readlink(path, target, sizeof(target) - 1) : -1;
   if (n < 0)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "not an open fd");
   target[n] = '\0';
   int fl = fcntl(fd, F_GETFL);
   if (strcmp(target, "anon_inode:[eventfd]") != 0 || fl < 0 ||
       fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "not an OPAQUE_FD payload of Shale");
   return VK_SUCCESS;
}

/* Imports fd (ownership taken; checked already) as the temporary or the
 * permanent payload. A permanent import replaces the object's payload as if
 * it were created anew with it, so a temporary one goes too. */
static void
sd_payload_import_locked(struct sd_payload *perm, struct sd_payload *temp, bool temporary,
                         enum sd_payload_kind kind, int fd)
{
   sd_payload_finish(temp);
   struct sd_payload *dst = temp;
   if (!temporary) {
      sd_payload_finish(perm);
      dst = perm;
   }
   *dst = (struct sd_payload) { .kind = kind, .fd = fd };
}

/* A new close-on-exec fd for an export. */
static VkResult
sd_dup_for_export(int fd, int *out_fd)
{
   *out_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
   return *out_fd >= 0 ? VK_SUCCESS : sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "cannot dup an fd");
}

/* Export to a sync fd (copy transference) of the payload in effect: the fd
 * takes its state, signalled or pending, and the payload gets the effect of
 * a wait (`consume`: semaphores) or of nothing (fences: the caller resets).
 * A temporary payload is dropped either way. A pending local signal is
 * diverted into the new fd; a pending signal on a shared payload would come
 * from elsewhere, which is why OPAQUE_FD payloads do not export to SYNC_FD
 * (exportFromImportedHandleTypes) and a signalled one is all this handles. */
static VkResult
sd_payload_export_sync_fd_locked(struct sd_device *device, struct sd_payload *perm,
                                 struct sd_payload *temp, struct sd_sync_fd_pending **div_head,
                                 struct sd_sync_fd_pending **div_tail, bool consume, int *out_fd)
{
   struct sd_payload *p = sd_payload_active(perm, temp);
   VkResult r;
   if (p->kind == SD_PAYLOAD_SYNC_FD && p->fd >= 0) {
      r = sd_dup_for_export(p->fd, out_fd);   /* the imported fd's state moves out */
   } else if (sd_payload_signaled(p)) {
      r = sd_sync_fd_create_signaled(device, out_fd);
      if (r == VK_SUCCESS && consume && p != temp)
         sd_payload_consume(p);
   } else {
      struct sd_sync_fd_pending *pending;
      r = sd_sync_fd_create(device, &pending, out_fd);
      if (r == VK_SUCCESS)
         sd_diverted_push(div_head, div_tail, pending);
   }
   if (r == VK_SUCCESS)
      sd_payload_finish(temp);
   return r;
}

/* ---- host waits ---- */

#define SD_WAIT_MAX_FDS 16
#define SD_WAIT_MIXED_SLICE_NS 1000000ull   /* 1 ms */

/* What a condition that is not met yet is waiting for: sync fds nobody will
 * broadcast sync_cond for, and whether anything else (sync_cond) matters. */
struct sd_wait_fds {
   struct pollfd fds[SD_WAIT_MAX_FDS];
   uint32_t count;
   bool more;   /* local payloads or fds beyond the array also matter */
};

static void
sd_wait_fds_add(struct sd_wait_fds *w, int fd)
{
   if (w->count < SD_WAIT_MAX_FDS)
      w->fds[w->count++] = (struct pollfd) { .fd = fd, .events = POLLIN };
   else
      w->more = true;
}

typedef bool (*sd_sync_ready_fds_fn)(const void *data, struct sd_wait_fds *w);

/* The host-wait loop. While the condition depends only on objects that
 * sync_cond announces, it sleeps on sync_cond; while it waits for sync fds,
 * it polls them without the lock, in slices (short when other objects also
 * matter, SD_SYNC_FD_SLICE_MS otherwise) so loss and local signals are seen. */
static VkResult
sd_sync_host_wait_fds(struct sd_device *device, uint64_t timeout_ns, sd_sync_ready_fds_fn ready,
                      const void *data)
{
   uint64_t deadline = timeout_ns ? sd_deadline_ns(timeout_ns) : 0;
   bool expired = false;
   VkResult result;
   struct sd_wait_fds w;
   pthread_mutex_lock(&device->sync_mutex);
   for (;;) {
      if (sd_device_is_lost(device)) {
         if (device->queue)
            sd_queue_drain_locked(device->queue);
         result = VK_ERROR_DEVICE_LOST;
         break;
      }
      w.count = 0;
      w.more = false;
      if (ready(data, &w)) {
         result = VK_SUCCESS;
         break;
      }
      if (expired || timeout_ns == 0) {
         result = VK_TIMEOUT;
         break;
      }
      if (w.count == 0) {
         /* After a timed-out wait the loop checks once more, then gives up. */
         expired = !sd_device_sync_wait(device, deadline);
         continue;
      }
      uint64_t slice = w.more ? SD_WAIT_MIXED_SLICE_NS : SD_SYNC_FD_SLICE_MS * 1000000ull;
      uint64_t now = sd_now_ns();
      uint64_t left = deadline > now ? deadline - now : 0;
      if (left > slice)
         left = slice;
      struct timespec ts = { .tv_sec = (time_t)(left / 1000000000ull),
                             .tv_nsec = (long)(left % 1000000000ull) };
      pthread_mutex_unlock(&device->sync_mutex);
      ppoll(w.fds, w.count, &ts, NULL);
      pthread_mutex_lock(&device->sync_mutex);
      if (deadline != UINT64_MAX && sd_now_ns() >= deadline)
         expired = true;
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return result;
}

struct sd_plain_wait {
   sd_sync_ready_fn ready;
   const void *data;
};

static bool
sd_plain_ready(const void *data, struct sd_wait_fds *w)
{
   const struct sd_plain_wait *p = data;
   return p->ready(p->data);
}

VkResult
sd_sync_host_wait(struct sd_device *device, uint64_t timeout_ns, sd_sync_ready_fn ready,
                  const void *data)
{
   const struct sd_plain_wait p = { ready, data };
   return sd_sync_host_wait_fds(device, timeout_ns, sd_plain_ready, &p);
}

/* ---- fences ---- */

void
sd_fence_signal_locked(struct sd_device *device, struct sd_fence *fence)
{
   /* A signal that was exported while pending goes to its sync fd; any
    * other goes to the payload in effect, the temporary one while there is
    * one (a submission made after a temporary import signals what was
    * imported; imports need an idle fence, so no signal pending then can
    * land on the wrong payload). */
   if (!sd_diverted_fire(device, &fence->diverted, &fence->diverted_tail))
      sd_payload_signal(sd_payload_active(&fence->perm, &fence->temp));
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateFence(VkDevice _device, const VkFenceCreateInfo *pCreateInfo,
               const VkAllocationCallbacks *pAllocator, VkFence *pFence)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   /* VkExportFenceCreateInfo: OPAQUE_FD shares the payload by reference, so
    * it must be an eventfd from the start; SYNC_FD exports copy whatever the
    * payload is. (The two are not compatible with each other.) */
   const VkExportFenceCreateInfo *ex =
      sd_find_struct(pCreateInfo, VK_STRUCTURE_TYPE_EXPORT_FENCE_CREATE_INFO);
   const bool signaled = (pCreateInfo->flags & VK_FENCE_CREATE_SIGNALED_BIT) != 0;
   struct sd_fence *fence =
      sd_device_object_alloc(device, pAllocator, sizeof(*fence), VK_OBJECT_TYPE_FENCE);
   if (!fence)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_payload_init_local(&fence->perm, signaled);
   sd_payload_init_none(&fence->temp);
   if (ex && (ex->handleTypes & VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT)) {
      VkResult r = sd_payload_init_opaque(&fence->perm, signaled);
      if (r != VK_SUCCESS) {
         sd_device_object_free(device, pAllocator, fence);
         return r;
      }
   }
   *pFence = sd_fence_to_handle(fence);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyFence(VkDevice _device, VkFence _fence, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_fence, fence, _fence);
   if (!fence)
      return;
   /* Diverted signals left here were exported from a payload that had no
    * signal pending after all: signal them so no waiter hangs. */
   while (sd_diverted_fire(device, &fence->diverted, &fence->diverted_tail))
      ;
   sd_payload_finish(&fence->temp);
   sd_payload_finish(&fence->perm);
   sd_device_object_free(device, pAllocator, fence);
}

/* vkResetFences: the permanent payload is restored first, then unsignalled. */
static void
sd_fence_reset_locked(struct sd_fence *fence)
{
   sd_payload_finish(&fence->temp);
   if (fence->perm.kind == SD_PAYLOAD_OPAQUE_FD)
      sd_eventfd_set(fence->perm.fd, false);
   else
      fence->perm.signaled = false;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetFences(VkDevice _device, uint32_t fenceCount, const VkFence *pFences)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < fenceCount; i++)
      sd_fence_reset_locked(sd_fence_from_handle(pFences[i]));
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

static bool
sd_fence_is_signaled_locked(struct sd_fence *fence)
{
   return sd_payload_signaled(sd_payload_active(&fence->perm, &fence->temp));
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetFenceStatus(VkDevice _device, VkFence _fence)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_fence, fence, _fence);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   pthread_mutex_lock(&device->sync_mutex);
   bool signaled = sd_fence_is_signaled_locked(fence);
   pthread_mutex_unlock(&device->sync_mutex);
   return signaled ? VK_SUCCESS : VK_NOT_READY;
}

struct sd_fence_wait {
   uint32_t count;
   const VkFence *fences;
   bool all;
};

/* "All" sleeps on sync_cond while a fence with a local payload is missing
 * (each is needed anyway), then polls the fds; "any" watches both. */
static bool
sd_fences_ready(const void *data, struct sd_wait_fds *w)
{
   const struct sd_fence_wait *fw = data;
   bool local_missing = false;
   for (uint32_t i = 0; i < fw->count; i++) {
      struct sd_fence *fence = sd_fence_from_handle(fw->fences[i]);
      struct sd_payload *p = sd_payload_active(&fence->perm, &fence->temp);
      if (sd_payload_signaled(p)) {
         if (!fw->all)
            return true;
      } else if (sd_payload_poll_fd(p) >= 0) {
         sd_wait_fds_add(w, sd_payload_poll_fd(p));
      } else {
         local_missing = true;
      }
   }
   if (!fw->all) {
      w->more = w->more || local_missing;
      return false;
   }
   if (!local_missing && w->count == 0 && !w->more)
      return true;
   if (local_missing) {
      w->count = 0;
      w->more = false;
   }
   return false;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_WaitForFences(VkDevice _device, uint32_t fenceCount, const VkFence *pFences, VkBool32 waitAll,
                 uint64_t timeout)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_fence_wait w = { .count = fenceCount, .fences = pFences, .all = waitAll != VK_FALSE };
   return sd_sync_host_wait_fds(device, timeout, sd_fences_ready, &w);
}

/* Imports `fd` (ownership taken on success only). */
static VkResult
sd_fence_import(struct sd_fence *fence, bool sync_fd, bool temporary, int fd)
{
   VkResult r = sd_payload_check_import(sync_fd, fd);
   if (r != VK_SUCCESS)
      return r;
   struct sd_device *device = fence->base.device;
   pthread_mutex_lock(&device->sync_mutex);
   sd_payload_import_locked(&fence->perm, &fence->temp, temporary,
                            sync_fd ? SD_PAYLOAD_SYNC_FD : SD_PAYLOAD_OPAQUE_FD, fd);
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

VkResult
sd_fence_import_sync_fd(struct sd_fence *fence, int fd)
{
   return sd_fence_import(fence, true, true, fd);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ImportFenceFdKHR(VkDevice _device, const VkImportFenceFdInfoKHR *pInfo)
{
   SD_FROM_HANDLE(sd_fence, fence, pInfo->fence);
   /* SYNC_FD: copy transference, temporary only (valid usage requires the
    * TEMPORARY bit). OPAQUE_FD: reference transference, either. */
   const bool sync_fd = pInfo->handleType == VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT;
   if (!sync_fd && pInfo->handleType != VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "fence handle type not supported");
   return sd_fence_import(fence, sync_fd,
                          sync_fd || (pInfo->flags & VK_FENCE_IMPORT_TEMPORARY_BIT), pInfo->fd);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetFenceFdKHR(VkDevice _device, const VkFenceGetFdInfoKHR *pInfo, int *pFd)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_fence, fence, pInfo->fence);
   *pFd = -1;
   VkResult r;
   pthread_mutex_lock(&device->sync_mutex);
   struct sd_payload *p = sd_payload_active(&fence->perm, &fence->temp);
   if (pInfo->handleType == VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT &&
       p->kind == SD_PAYLOAD_OPAQUE_FD) {
      /* Reference transference: the payload itself, no side effects. */
      r = sd_dup_for_export(p->fd, pFd);
   } else if (pInfo->handleType == VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT &&
              sd_sync_fd_can_make()) {
      /* Copy transference: the fd takes the payload (signalled, or the
       * pending signal), and the fence is reset, its permanent payload
       * restored. */
      r = sd_payload_export_sync_fd_locked(device, &fence->perm, &fence->temp, &fence->diverted,
                                           &fence->diverted_tail, false, pFd);
      if (r == VK_SUCCESS)
         sd_fence_reset_locked(fence);
   } else {
      r = sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "fence handle type not exportable");
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return r;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceExternalFenceProperties(VkPhysicalDevice physicalDevice,
                                            const VkPhysicalDeviceExternalFenceInfo *pInfo,
                                            VkExternalFenceProperties *pProps)
{
   pProps->exportFromImportedHandleTypes = 0;
   pProps->compatibleHandleTypes = 0;
   pProps->externalFenceFeatures = 0;
   switch (pInfo->handleType) {
   case VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT:
      pProps->compatibleHandleTypes = VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT;
      pProps->exportFromImportedHandleTypes = VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT;
      pProps->externalFenceFeatures =
         VK_EXTERNAL_FENCE_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_FENCE_FEATURE_IMPORTABLE_BIT;
      break;
   case VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT:
      pProps->compatibleHandleTypes = VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT;
      pProps->externalFenceFeatures = VK_EXTERNAL_FENCE_FEATURE_IMPORTABLE_BIT;
      if (sd_sync_fd_exportable()) {
         pProps->exportFromImportedHandleTypes = VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT;
         pProps->externalFenceFeatures |= VK_EXTERNAL_FENCE_FEATURE_EXPORTABLE_BIT;
      }
      break;
   default:
      break;
   }
}

/* ---- semaphores ---- */

void
sd_semaphore_signal_locked(struct sd_device *device, struct sd_semaphore *sem, uint64_t value)
{
   if (sem->type == VK_SEMAPHORE_TYPE_TIMELINE) {
      if (value > sem->value)
         sem->value = value;
   } else if (!sd_diverted_fire(device, &sem->diverted, &sem->diverted_tail)) {
      /* Not exported while pending: the signal goes to the payload in
       * effect, the temporary one while there is one (imports need no
       * pending signal or wait, so the one signalled is the one that was
       * in effect when the signal was submitted). */
      sd_payload_signal(sd_payload_active(&sem->perm, &sem->temp));
   }
}

bool
sd_semaphore_ready_locked(struct sd_semaphore *sem, uint64_t value)
{
   if (sem->type == VK_SEMAPHORE_TYPE_TIMELINE)
      return sem->value >= value;
   return sd_payload_signaled(sd_payload_active(&sem->perm, &sem->temp));
}

bool
sd_semaphore_try_wait_locked(struct sd_semaphore *sem, uint64_t value, int *poll_fd)
{
   *poll_fd = -1;
   if (sem->type == VK_SEMAPHORE_TYPE_TIMELINE)
      return sem->value >= value;
   /* The wait consumes the payload; a temporary one is then dropped, which
    * restores the permanent payload. */
   struct sd_payload *p = sd_payload_active(&sem->perm, &sem->temp);
   if (!sd_payload_consume(p)) {
      *poll_fd = sd_payload_poll_fd(p);
      return false;
   }
   if (p == &sem->temp)
      sd_payload_finish(&sem->temp);
   return true;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateSemaphore(VkDevice _device, const VkSemaphoreCreateInfo *pCreateInfo,
                   const VkAllocationCallbacks *pAllocator, VkSemaphore *pSemaphore)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkSemaphoreTypeCreateInfo *type =
      sd_find_struct(pCreateInfo, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
   /* VkExportSemaphoreCreateInfo: as for fences; both types are binary only. */
   const VkExportSemaphoreCreateInfo *ex =
      sd_find_struct(pCreateInfo, VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO);
   struct sd_semaphore *sem =
      sd_device_object_alloc(device, pAllocator, sizeof(*sem), VK_OBJECT_TYPE_SEMAPHORE);
   if (!sem)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sem->type = type ? type->semaphoreType : VK_SEMAPHORE_TYPE_BINARY;
   sem->value = type ? type->initialValue : 0;
   sd_payload_init_local(&sem->perm, false);
   sd_payload_init_none(&sem->temp);
   if (sem->type == VK_SEMAPHORE_TYPE_BINARY && ex &&
       (ex->handleTypes & VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT)) {
      VkResult r = sd_payload_init_opaque(&sem->perm, false);
      if (r != VK_SUCCESS) {
         sd_device_object_free(device, pAllocator, sem);
         return r;
      }
   }
   *pSemaphore = sd_semaphore_to_handle(sem);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroySemaphore(VkDevice _device, VkSemaphore _sem, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, _sem);
   if (!sem)
      return;
   while (sd_diverted_fire(device, &sem->diverted, &sem->diverted_tail))
      ;
   /* The queue thread consumes payloads under sync_mutex; the application
    * may know that wait is over only through a kernel object (a release or
    * sync fd it polled), so the lock orders this with it explicitly
    * (ThreadSanitizer saw the two writes unordered). */
   pthread_mutex_lock(&device->sync_mutex);
   sd_payload_finish(&sem->temp);
   sd_payload_finish(&sem->perm);
   pthread_mutex_unlock(&device->sync_mutex);
   sd_device_object_free(device, pAllocator, sem);
}

/* Imports `fd` (ownership taken on success only). */
static VkResult
sd_semaphore_import(struct sd_semaphore *sem, bool sync_fd, bool temporary, int fd)
{
   if (sem->type != VK_SEMAPHORE_TYPE_BINARY)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "imports into timelines: none supported");
   VkResult r = sd_payload_check_import(sync_fd, fd);
   if (r != VK_SUCCESS)
      return r;
   struct sd_device *device = sem->base.device;
   pthread_mutex_lock(&device->sync_mutex);
   sd_payload_import_locked(&sem->perm, &sem->temp, temporary,
                            sync_fd ? SD_PAYLOAD_SYNC_FD : SD_PAYLOAD_OPAQUE_FD, fd);
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

VkResult
sd_semaphore_import_sync_fd(struct sd_semaphore *sem, int fd)
{
   return sd_semaphore_import(sem, true, true, fd);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ImportSemaphoreFdKHR(VkDevice _device, const VkImportSemaphoreFdInfoKHR *pInfo)
{
   SD_FROM_HANDLE(sd_semaphore, sem, pInfo->semaphore);
   /* SYNC_FD: copy transference, temporary only (valid usage requires the
    * TEMPORARY bit). OPAQUE_FD: reference transference, either. */
   const bool sync_fd = pInfo->handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
   if (!sync_fd && pInfo->handleType != VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT)
      return sd_errorf(VK_ERROR_INVALID_EXTERNAL_HANDLE, "semaphore handle type not supported");
   return sd_semaphore_import(sem, sync_fd,
                              sync_fd || (pInfo->flags & VK_SEMAPHORE_IMPORT_TEMPORARY_BIT),
                              pInfo->fd);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSemaphoreFdKHR(VkDevice _device, const VkSemaphoreGetFdInfoKHR *pInfo, int *pFd)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, pInfo->semaphore);
   *pFd = -1;
   VkResult r;
   pthread_mutex_lock(&device->sync_mutex);
   struct sd_payload *p = sd_payload_active(&sem->perm, &sem->temp);
   if (sem->type != VK_SEMAPHORE_TYPE_BINARY) {
      r = sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "timeline semaphores are not exportable");
   } else if (pInfo->handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT &&
              p->kind == SD_PAYLOAD_OPAQUE_FD) {
      r = sd_dup_for_export(p->fd, pFd);   /* reference transference */
   } else if (pInfo->handleType == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT &&
              sd_sync_fd_can_make()) {
      /* Copy transference: the fd takes the payload (signalled, or the
       * pending signal), and the export acts as a wait: the semaphore is
       * left unsignalled with its permanent payload restored. Each export
       * is a new fd, also for a signalled payload. */
      r = sd_payload_export_sync_fd_locked(device, &sem->perm, &sem->temp, &sem->diverted,
                                           &sem->diverted_tail, true, pFd);
   } else {
      r = sd_errorf(VK_ERROR_TOO_MANY_OBJECTS, "semaphore handle type not exportable");
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return r;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceExternalSemaphoreProperties(VkPhysicalDevice physicalDevice,
                                                const VkPhysicalDeviceExternalSemaphoreInfo *pInfo,
                                                VkExternalSemaphoreProperties *pProps)
{
   const VkSemaphoreTypeCreateInfo *type =
      sd_find_struct(pInfo, VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
   pProps->exportFromImportedHandleTypes = 0;
   pProps->compatibleHandleTypes = 0;
   pProps->externalSemaphoreFeatures = 0;
   /* Both fd types carry binary payloads only: an eventfd cannot count, a
    * sync file is a single fence. */
   if (type && type->semaphoreType == VK_SEMAPHORE_TYPE_TIMELINE)
      return;
   switch (pInfo->handleType) {
   case VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT:
      pProps->compatibleHandleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
      pProps->exportFromImportedHandleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
      pProps->externalSemaphoreFeatures = VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT |
                                          VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
      break;
   case VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT:
      pProps->compatibleHandleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
      pProps->externalSemaphoreFeatures = VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT;
      if (sd_sync_fd_exportable()) {
         pProps->exportFromImportedHandleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT;
         pProps->externalSemaphoreFeatures |= VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT;
      }
      break;
   default:
      break;
   }
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetSemaphoreCounterValue(VkDevice _device, VkSemaphore _sem, uint64_t *pValue)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, _sem);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   pthread_mutex_lock(&device->sync_mutex);
   *pValue = sem->value;
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

static bool
sd_semaphores_ready(const void *data)
{
   const VkSemaphoreWaitInfo *info = data;
   bool any = (info->flags & VK_SEMAPHORE_WAIT_ANY_BIT) != 0;
   for (uint32_t i = 0; i < info->semaphoreCount; i++) {
      bool reached = sd_semaphore_from_handle(info->pSemaphores[i])->value >= info->pValues[i];
      if (reached == any)
         return any;
   }
   return !any || info->semaphoreCount == 0;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_WaitSemaphores(VkDevice _device, const VkSemaphoreWaitInfo *pWaitInfo, uint64_t timeout)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   return sd_sync_host_wait(device, timeout, sd_semaphores_ready, pWaitInfo);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_SignalSemaphore(VkDevice _device, const VkSemaphoreSignalInfo *pSignalInfo)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_semaphore, sem, pSignalInfo->semaphore);
   pthread_mutex_lock(&device->sync_mutex);
   sd_semaphore_signal_locked(device, sem, pSignalInfo->value);
   pthread_mutex_unlock(&device->sync_mutex);
   sd_device_sync_broadcast(device);   /* after the unlock (sd_sync.h) */
   return VK_SUCCESS;
}

/* ---- events ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateEvent(VkDevice _device, const VkEventCreateInfo *pCreateInfo,
               const VkAllocationCallbacks *pAllocator, VkEvent *pEvent)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   struct sd_event *event =
      sd_device_object_alloc(device, pAllocator, sizeof(*event), VK_OBJECT_TYPE_EVENT);
   if (!event)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   *pEvent = sd_event_to_handle(event);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyEvent(VkDevice _device, VkEvent _event, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_event, event, _event);
   if (event)
      sd_device_object_free(device, pAllocator, event);
}

static VkResult
sd_event_set(struct sd_device *device, struct sd_event *event, bool set)
{
   pthread_mutex_lock(&device->sync_mutex);
   event->set = set;
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetEventStatus(VkDevice _device, VkEvent _event)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_event, event, _event);
   if (sd_device_is_lost(device))
      return VK_ERROR_DEVICE_LOST;
   pthread_mutex_lock(&device->sync_mutex);
   bool set = event->set;
   pthread_mutex_unlock(&device->sync_mutex);
   return set ? VK_EVENT_SET : VK_EVENT_RESET;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_SetEvent(VkDevice _device, VkEvent _event)
{
   return sd_event_set(sd_device_from_handle(_device), sd_event_from_handle(_event), true);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetEvent(VkDevice _device, VkEvent _event)
{
   return sd_event_set(sd_device_from_handle(_device), sd_event_from_handle(_event), false);
}

/* ---- recorded synchronization commands ----
 * The queue thread runs every command in order and completes each before the
 * next, so execution and memory dependencies within a queue are already met;
 * barriers have nothing to do outside rendering. Inside a render pass
 * instance (a self-dependency) a barrier or an event wait is a flush point:
 * binned draws reach memory before later commands read it, whether they read
 * it as attachments or, in a feedback loop (VK_DEPENDENCY_FEEDBACK_LOOP_BIT_EXT,
 * VK_IMAGE_LAYOUT_ATTACHMENT_FEEDBACK_LOOP_OPTIMAL_EXT), through samplers;
 * the flush covers the whole render area, not only the framebuffer-local
 * region BY_REGION would ask for. Event waits
 * block until the event is set (by an earlier command or by the host), as
 * the spec allows. */

void
sd_exec_PipelineBarrier(struct sd_exec_state *state, const struct sd_cmd_PipelineBarrier *cmd)
{
   sd_exec_render_flush(state);
}

void
sd_exec_PipelineBarrier2(struct sd_exec_state *state, const struct sd_cmd_PipelineBarrier2 *cmd)
{
   sd_exec_render_flush(state);
}

void
sd_exec_SetEvent(struct sd_exec_state *state, const struct sd_cmd_SetEvent *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), true);
}

void
sd_exec_ResetEvent(struct sd_exec_state *state, const struct sd_cmd_ResetEvent *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), false);
}

void
sd_exec_SetEvent2(struct sd_exec_state *state, const struct sd_cmd_SetEvent2 *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), true);
}

void
sd_exec_ResetEvent2(struct sd_exec_state *state, const struct sd_cmd_ResetEvent2 *cmd)
{
   sd_event_set(state->device, sd_event_from_handle(cmd->event), false);
}

static void
sd_wait_events(struct sd_device *device, uint32_t count, const VkEvent *events)
{
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < count; i++) {
      while (!sd_event_from_handle(events[i])->set && !sd_device_is_lost(device) &&
             !sd_device_cancelled(device))
         sd_device_sync_wait(device, UINT64_MAX);
   }
   pthread_mutex_unlock(&device->sync_mutex);
}

void
sd_exec_WaitEvents(struct sd_exec_state *state, const struct sd_cmd_WaitEvents *cmd)
{
   sd_exec_render_flush(state);
   sd_wait_events(state->device, cmd->eventCount, cmd->pEvents);
}

void
sd_exec_WaitEvents2(struct sd_exec_state *state, const struct sd_cmd_WaitEvents2 *cmd)
{
   sd_exec_render_flush(state);
   sd_wait_events(state->device, cmd->eventCount, cmd->pEvents);
}
