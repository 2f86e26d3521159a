/* External semaphores and fences (sync fds): capability queries, export and import, their semantics. */
/*
 * Through the Khronos loader with the validation layer. Work is held back
 * by an event the host sets later, so a payload can be exported while its
 * signal is still pending; results are buffer fills the test checks word by
 * word. What the spec says, checked here:
 *  - capability queries: SYNC_FD for binary semaphores and for fences;
 *    nothing for timeline semaphores; nothing for handle types not reported;
 *  - export to a sync fd (copy transference): the fd is ready exactly when
 *    the payload's signal happens (or at once when signalled already); the
 *    export acts as a wait on the semaphore / a reset of the fence, so the
 *    object's later signals are its own again;
 *  - import of a sync fd (temporary): queue waits and host waits follow the
 *    fd; -1 is a signalled payload; the permanent payload comes back after
 *    the semaphore's next wait / the fence's reset;
 *  - OPAQUE_FD (reference transference): one payload shared by objects of
 *    two devices, and of two processes (fds passed over a socket): signals
 *    on one side release waits on the other, resets reset both;
 *  - no fd leaked.
 * The export side effects on the semaphore itself run without the layer
 * (see check_semaphore_transference). SKIP only when
 * VK_KHR_external_semaphore_fd and VK_KHR_external_fence_fd are not listed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../src/util/su_tsan.h"
#include "check.h"
#include "vkt.h"

#define MS 1000000ull
#define WORDS 256

struct ctx {
   struct vkt t;
   bool sem_fd, fence_fd;
   PFN_vkGetPhysicalDeviceExternalSemaphorePropertiesKHR sem_props;
   PFN_vkGetPhysicalDeviceExternalFencePropertiesKHR fence_props;
   PFN_vkGetSemaphoreFdKHR get_sem_fd;
   PFN_vkImportSemaphoreFdKHR import_sem_fd;
   PFN_vkGetFenceFdKHR get_fence_fd;
   PFN_vkImportFenceFdKHR import_fence_fd;
   struct vkt_buffer buf;
};

/* An exported fd seen ready orders the work before what follows (the
 * buffer reads); TSan cannot see that edge: su_tsan.h. */
static bool
fd_ready(int fd, int timeout_ms)
{
   struct pollfd p = { .fd = fd, .events = POLLIN };
   bool ready = poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
   if (ready)
      su_tsan_fd_ready();
   return ready;
}

static void
sleep_ms(unsigned ms)
{
   struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
   nanosleep(&ts, NULL);
}

static bool
ctx_init(struct ctx *c, bool validation)
{
   memset(c, 0, sizeof(*c));
   /* Probe which extensions the device lists, then make the real device. */
   static const char *const inst_exts[] = {
      VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME,
      VK_KHR_EXTERNAL_SEMAPHORE_CAPABILITIES_EXTENSION_NAME,
      VK_KHR_EXTERNAL_FENCE_CAPABILITIES_EXTENSION_NAME,
   };
   bool inst_ok = vkt_has_instance_extension(inst_exts[1]) &&
                  vkt_has_instance_extension(inst_exts[2]);
   /* The capability extensions only where some driver lists them (the
    * loader refuses the instance otherwise); their absence fails below
    * when the device lists the fd extensions. */
   struct vkt_options opts = {
      .instance_extensions = inst_exts,
      .instance_extension_count = inst_ok ? 3 : 1,
      .no_validation = !validation,
   };
   if (!vkt_init(&c->t, &opts)) {
      CHECK(false, "no Shale device");
      return false;
   }
   VkPhysicalDevice pdev = c->t.pdev;
   c->sem_fd = vkt_has_device_extension(pdev, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
   c->fence_fd = vkt_has_device_extension(pdev, VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME);
   if (c->sem_fd)
      CHECK(vkt_has_device_extension(pdev, VK_KHR_EXTERNAL_SEMAPHORE_EXTENSION_NAME),
            "VK_KHR_external_semaphore_fd without VK_KHR_external_semaphore");
   if (c->fence_fd)
      CHECK(vkt_has_device_extension(pdev, VK_KHR_EXTERNAL_FENCE_EXTENSION_NAME),
            "VK_KHR_external_fence_fd without VK_KHR_external_fence");
   vkt_finish(&c->t);
   if (!c->sem_fd && !c->fence_fd)
      SKIP("VK_KHR_external_semaphore_fd and VK_KHR_external_fence_fd are not listed");
   CHECK(inst_ok, "the device has external sync fds, the instance lacks their capability "
                  "extensions");

   const char *dev_exts[4];
   uint32_t nd = 0;
   if (c->sem_fd) {
      dev_exts[nd++] = VK_KHR_EXTERNAL_SEMAPHORE_EXTENSION_NAME;
      dev_exts[nd++] = VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
   }
   if (c->fence_fd) {
      dev_exts[nd++] = VK_KHR_EXTERNAL_FENCE_EXTENSION_NAME;
      dev_exts[nd++] = VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME;
   }
   opts.device_extensions = dev_exts;
   opts.device_extension_count = nd;
   if (!vkt_init(&c->t, &opts)) {
      CHECK(false, "device creation with the external sync extensions failed");
      return false;
   }
   VkInstance in = c->t.instance;
   VkDevice d = c->t.device;
   c->sem_props = (PFN_vkGetPhysicalDeviceExternalSemaphorePropertiesKHR)vkGetInstanceProcAddr(
      in, "vkGetPhysicalDeviceExternalSemaphorePropertiesKHR");
   c->fence_props = (PFN_vkGetPhysicalDeviceExternalFencePropertiesKHR)vkGetInstanceProcAddr(
      in, "vkGetPhysicalDeviceExternalFencePropertiesKHR");
   c->get_sem_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(d, "vkGetSemaphoreFdKHR");
   c->import_sem_fd = (PFN_vkImportSemaphoreFdKHR)vkGetDeviceProcAddr(d, "vkImportSemaphoreFdKHR");
   c->get_fence_fd = (PFN_vkGetFenceFdKHR)vkGetDeviceProcAddr(d, "vkGetFenceFdKHR");
   c->import_fence_fd = (PFN_vkImportFenceFdKHR)vkGetDeviceProcAddr(d, "vkImportFenceFdKHR");
   CHECK(c->sem_props && c->fence_props, "capability queries missing");
   if (c->sem_fd)
      CHECK(c->get_sem_fd && c->import_sem_fd, "semaphore fd entry points missing");
   if (c->fence_fd)
      CHECK(c->get_fence_fd && c->import_fence_fd, "fence fd entry points missing");
   CHECK_EQ_INT(vkt_buffer_create(&c->t, WORDS * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &c->buf),
                VK_SUCCESS);
   return c->sem_props && c->fence_props && (!c->sem_fd || (c->get_sem_fd && c->import_sem_fd)) &&
          (!c->fence_fd || (c->get_fence_fd && c->import_fence_fd)) && c->buf.map;
}

static void
ctx_finish(struct ctx *c)
{
   vkDeviceWaitIdle(c->t.device);
   vkt_buffer_destroy(&c->t, &c->buf);
   vkt_finish(&c->t);
}

/* ---- work: optionally held back by an event, then a fill ---- */

static VkEvent
event_create(struct ctx *c)
{
   const VkEventCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
   VkEvent e = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateEvent(c->t.device, &ci, NULL, &e), VK_SUCCESS);
   return e;
}

static VkCommandBuffer
fill_cb(struct ctx *c, VkEvent gate, uint32_t value)
{
   VkCommandBuffer cb = vkt_begin(&c->t);
   if (gate)
      vkCmdWaitEvents(cb, 1, &gate, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                      NULL, 0, NULL, 0, NULL);
   vkCmdFillBuffer(cb, c->buf.buffer, 0, WORDS * 4, value);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   return cb;
}

static VkResult
submit(struct ctx *c, VkCommandBuffer cb, VkSemaphore wait, VkSemaphore signal, VkFence fence)
{
   const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .waitSemaphoreCount = wait ? 1 : 0,
      .pWaitSemaphores = &wait,
      .pWaitDstStageMask = &stage,
      .commandBufferCount = cb ? 1 : 0,
      .pCommandBuffers = &cb,
      .signalSemaphoreCount = signal ? 1 : 0,
      .pSignalSemaphores = &signal,
   };
   return vkQueueSubmit(c->t.queue, 1, &si, fence);
}

static bool
filled_with(struct ctx *c, uint32_t value)
{
   const uint32_t *w = c->buf.map;
   for (uint32_t i = 0; i < WORDS; i++)
      if (w[i] != value)
         return false;
   return true;
}

#define SEM_SYNC_FD VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT
#define SEM_OPAQUE_FD VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT
#define FENCE_SYNC_FD VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT
#define FENCE_OPAQUE_FD VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT

/* A semaphore exportable as `types` (0: not exportable). */
static VkSemaphore
sem_create_as(struct ctx *c, VkExternalSemaphoreHandleTypeFlags types)
{
   const VkExportSemaphoreCreateInfo ex = {
      .sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
      .handleTypes = types,
   };
   const VkSemaphoreCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
      .pNext = types ? &ex : NULL,
   };
   VkSemaphore s = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateSemaphore(c->t.device, &ci, NULL, &s), VK_SUCCESS);
   return s;
}

/* A fence exportable as `types` (0: not exportable). */
static VkFence
fence_create_as(struct ctx *c, VkExternalFenceHandleTypeFlags types, bool signaled)
{
   const VkExportFenceCreateInfo ex = {
      .sType = VK_STRUCTURE_TYPE_EXPORT_FENCE_CREATE_INFO,
      .handleTypes = types,
   };
   const VkFenceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
      .pNext = types ? &ex : NULL,
      .flags = signaled ? VK_FENCE_CREATE_SIGNALED_BIT : 0,
   };
   VkFence f = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateFence(c->t.device, &ci, NULL, &f), VK_SUCCESS);
   return f;
}

/* Exports s as `type`: a close-on-exec fd. */
static int
sem_export_as(struct ctx *c, VkSemaphore s, VkExternalSemaphoreHandleTypeFlagBits type)
{
   const VkSemaphoreGetFdInfoKHR gi = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
      .semaphore = s,
      .handleType = type,
   };
   int fd = -2;
   CHECK_EQ_INT(c->get_sem_fd(c->t.device, &gi, &fd), VK_SUCCESS);
   const char *what = type == SEM_SYNC_FD ? "SYNC_FD" : "OPAQUE_FD";
   CHECK(fd >= 0, "exported semaphore %s %d", what, fd);
   if (fd >= 0)
      CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC, "exported %s %d is not close-on-exec", what, fd);
   return fd;
}

static VkResult
sem_import_as(struct ctx *c, VkSemaphore s, int fd, VkExternalSemaphoreHandleTypeFlagBits type,
              VkSemaphoreImportFlags flags)
{
   const VkImportSemaphoreFdInfoKHR ii = {
      .sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR,
      .semaphore = s,
      .flags = flags,
      .handleType = type,
      .fd = fd,
   };
   return c->import_sem_fd(c->t.device, &ii);
}

/* Exports f as `type`. A SYNC_FD may be -1 (already signaled); an
 * OPAQUE_FD is a close-on-exec fd. */
static int
fence_export_as(struct ctx *c, VkFence f, VkExternalFenceHandleTypeFlagBits type)
{
   const VkFenceGetFdInfoKHR gi = {
      .sType = VK_STRUCTURE_TYPE_FENCE_GET_FD_INFO_KHR,
      .fence = f,
      .handleType = type,
   };
   int fd = -2;
   CHECK_EQ_INT(c->get_fence_fd(c->t.device, &gi, &fd), VK_SUCCESS);
   if (type == FENCE_SYNC_FD)
      CHECK(fd >= -1, "exported fence fd %d", fd);
   else
      CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "exported OPAQUE_FD %d", fd);
   return fd;
}

static VkResult
fence_import_as(struct ctx *c, VkFence f, int fd, VkExternalFenceHandleTypeFlagBits type,
                VkFenceImportFlags flags)
{
   const VkImportFenceFdInfoKHR ii = {
      .sType = VK_STRUCTURE_TYPE_IMPORT_FENCE_FD_INFO_KHR,
      .fence = f,
      .flags = flags,
      .handleType = type,
      .fd = fd,
   };
   return c->import_fence_fd(c->t.device, &ii);
}

/* SYNC_FD: copy transference, always temporary imports. */
static VkSemaphore
sem_create(struct ctx *c, bool exportable)
{
   return sem_create_as(c, exportable ? SEM_SYNC_FD : 0);
}

static VkFence
fence_create(struct ctx *c, bool exportable, bool signaled)
{
   return fence_create_as(c, exportable ? FENCE_SYNC_FD : 0, signaled);
}

static int
sem_export(struct ctx *c, VkSemaphore s)
{
   return sem_export_as(c, s, SEM_SYNC_FD);
}

static VkResult
sem_import(struct ctx *c, VkSemaphore s, int fd)
{
   return sem_import_as(c, s, fd, SEM_SYNC_FD, VK_SEMAPHORE_IMPORT_TEMPORARY_BIT);
}

static int
fence_export(struct ctx *c, VkFence f)
{
   return fence_export_as(c, f, FENCE_SYNC_FD);
}

static VkResult
fence_import(struct ctx *c, VkFence f, int fd)
{
   return fence_import_as(c, f, fd, FENCE_SYNC_FD, VK_FENCE_IMPORT_TEMPORARY_BIT);
}

/* OPAQUE_FD: objects that share their payload by reference. */
static VkSemaphore
sem_create_opaque(struct ctx *c)
{
   return sem_create_as(c, SEM_OPAQUE_FD);
}

static VkFence
fence_create_opaque(struct ctx *c)
{
   return fence_create_as(c, FENCE_OPAQUE_FD, false);
}

static int
sem_export_opaque(struct ctx *c, VkSemaphore s)
{
   return sem_export_as(c, s, SEM_OPAQUE_FD);
}

static VkResult
sem_import_opaque(struct ctx *c, VkSemaphore s, int fd, bool temporary)
{
   return sem_import_as(c, s, fd, SEM_OPAQUE_FD,
                        temporary ? VK_SEMAPHORE_IMPORT_TEMPORARY_BIT : 0);
}

static int
fence_export_opaque(struct ctx *c, VkFence f)
{
   return fence_export_as(c, f, FENCE_OPAQUE_FD);
}

static VkResult
fence_import_opaque(struct ctx *c, VkFence f, int fd)
{
   return fence_import_as(c, f, fd, FENCE_OPAQUE_FD, 0);
}

/* ---- capability queries ---- */

static void
check_capabilities(struct ctx *c)
{
   static const VkExternalSemaphoreHandleTypeFlagBits sem_types[] = {
      VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT,
      VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_BIT,
      VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT,
      VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_D3D12_FENCE_BIT,
      VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
   };
   for (int timeline = 0; timeline < 2; timeline++) {
      for (size_t i = 0; i < sizeof(sem_types) / sizeof(sem_types[0]); i++) {
         const VkSemaphoreTypeCreateInfo type = {
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
            .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
         };
         const VkPhysicalDeviceExternalSemaphoreInfo info = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
            .pNext = timeline ? &type : NULL,
            .handleType = sem_types[i],
         };
         VkExternalSemaphoreProperties p = {
            .sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES,
            .exportFromImportedHandleTypes = 0xdead,
            .compatibleHandleTypes = 0xdead,
            .externalSemaphoreFeatures = 0xdead,
         };
         c->sem_props(c->t.pdev, &info, &p);
         /* Both fd types, binary only, each compatible with itself alone
          * (an OPAQUE_FD payload is shared, its pending signals may come
          * from anywhere: no sync fd can be made for one). Android needs
          * both directions of SYNC_FD. Windows and D3D types do not exist. */
         const bool fd_type = sem_types[i] == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT ||
                              sem_types[i] == VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
         if (fd_type && !timeline && c->sem_fd) {
            CHECK(p.externalSemaphoreFeatures == (VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT |
                                                  VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT),
                  "semaphore type 0x%x: features 0x%x", sem_types[i], p.externalSemaphoreFeatures);
            CHECK_EQ_INT(p.compatibleHandleTypes, sem_types[i]);
            CHECK_EQ_INT(p.exportFromImportedHandleTypes, sem_types[i]);
         } else {
            CHECK(p.externalSemaphoreFeatures == 0 && p.compatibleHandleTypes == 0 &&
                     p.exportFromImportedHandleTypes == 0,
                  "semaphore type 0x%x (timeline %d): features 0x%x compatible 0x%x",
                  sem_types[i], timeline, p.externalSemaphoreFeatures, p.compatibleHandleTypes);
         }
      }
   }

   static const VkExternalFenceHandleTypeFlagBits fence_types[] = {
      VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT,
      VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_WIN32_BIT,
      VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_WIN32_KMT_BIT,
      VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT,
   };
   for (size_t i = 0; i < sizeof(fence_types) / sizeof(fence_types[0]); i++) {
      const VkPhysicalDeviceExternalFenceInfo info = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_FENCE_INFO,
         .handleType = fence_types[i],
      };
      VkExternalFenceProperties p = {
         .sType = VK_STRUCTURE_TYPE_EXTERNAL_FENCE_PROPERTIES,
         .exportFromImportedHandleTypes = 0xdead,
         .compatibleHandleTypes = 0xdead,
         .externalFenceFeatures = 0xdead,
      };
      c->fence_props(c->t.pdev, &info, &p);
      const bool fd_type = fence_types[i] == VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT ||
                           fence_types[i] == VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT;
      if (fd_type && c->fence_fd) {
         CHECK(p.externalFenceFeatures == (VK_EXTERNAL_FENCE_FEATURE_EXPORTABLE_BIT |
                                           VK_EXTERNAL_FENCE_FEATURE_IMPORTABLE_BIT),
               "fence type 0x%x: features 0x%x", fence_types[i], p.externalFenceFeatures);
         CHECK_EQ_INT(p.compatibleHandleTypes, fence_types[i]);
         CHECK_EQ_INT(p.exportFromImportedHandleTypes, fence_types[i]);
      } else {
         CHECK(p.externalFenceFeatures == 0 && p.compatibleHandleTypes == 0 &&
                  p.exportFromImportedHandleTypes == 0,
               "fence type 0x%x: features 0x%x", fence_types[i], p.externalFenceFeatures);
      }
   }
}

/* ---- semaphores ---- */

static void
check_semaphores(struct ctx *c)
{
   VkDevice d = c->t.device;
   VkEvent gate = event_create(c);
   VkFence f = fence_create(c, false, false);

   /* 1. Export while the signal is pending: the fd follows the work. */
   VkSemaphore s = sem_create(c, true);
   VkCommandBuffer held = fill_cb(c, gate, 0x1111);
   CHECK_EQ_INT(submit(c, held, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   int fd = sem_export(c, s);
   sleep_ms(20);
   CHECK(fd < 0 || !fd_ready(fd, 0), "exported fd ready while the work is held");
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK(fd >= 0 && fd_ready(fd, 5000), "exported fd not ready after the work");
   CHECK(filled_with(c, 0x1111), "held work did not run");
   if (fd >= 0)
      close(fd);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   vkDestroySemaphore(d, s, NULL);

   /* 2. Import a pending fd (temporarily): the queue waits for it. */
   CHECK_EQ_INT(vkResetEvent(d, gate), VK_SUCCESS);
   s = sem_create(c, true);
   VkCommandBuffer held2 = fill_cb(c, gate, 0x3333);
   CHECK_EQ_INT(submit(c, held2, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   fd = sem_export(c, s);
   VkSemaphore imp = sem_create(c, false);
   CHECK_EQ_INT(sem_import(c, imp, fd), VK_SUCCESS);
   VkCommandBuffer waiter = fill_cb(c, VK_NULL_HANDLE, 0x4444);
   CHECK_EQ_INT(submit(c, waiter, imp, VK_NULL_HANDLE, f), VK_SUCCESS);
   sleep_ms(20);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);
   CHECK(!filled_with(c, 0x4444), "work ran before the imported fd was signalled");
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0x4444), "the waiter did not run last");
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   vkDestroySemaphore(d, s, NULL);

   /* The wait restored the permanent payload: signal and wait as usual. */
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   VkCommandBuffer again = fill_cb(c, VK_NULL_HANDLE, 0x5555);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, imp, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, again, imp, VK_NULL_HANDLE, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0x5555), "work after the restored payload did not run");

   /* 3. -1 is a signalled payload. */
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   CHECK_EQ_INT(sem_import(c, imp, -1), VK_SUCCESS);
   VkCommandBuffer after_minus1 = fill_cb(c, VK_NULL_HANDLE, 0x6666);
   CHECK_EQ_INT(submit(c, after_minus1, imp, VK_NULL_HANDLE, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0x6666), "work waiting on an imported -1 did not run");

   /* 4. Export of a signalled payload: ready at once. */
   s = sem_create(c, true);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   fd = sem_export(c, s);
   CHECK(fd >= 0 && fd_ready(fd, 0), "export of a signalled semaphore is not ready");
   if (fd >= 0)
      close(fd);
   vkDestroySemaphore(d, s, NULL);

   /* 5. A bad fd is refused. */
   int closed = eventfd(0, EFD_CLOEXEC);
   close(closed);
   CHECK_EQ_INT(sem_import(c, imp, closed), VK_ERROR_INVALID_EXTERNAL_HANDLE);

   VkCommandBuffer cbs[] = { held, held2, waiter, again, after_minus1 };
   vkFreeCommandBuffers(d, c->t.pool, sizeof(cbs) / sizeof(cbs[0]), cbs);
   vkDestroyFence(d, f, NULL);
   vkDestroySemaphore(d, imp, NULL);
   vkDestroyEvent(d, gate, NULL);
}

/* The side effects of a sync-fd export on the semaphore itself. Run without
 * the validation layer: its state tracking (1.3.239) does not model an
 * export as the wait the spec says it is (it reports the next signal as a
 * signal of a signalled semaphore), nor an imported payload as signalled or
 * pending (it reports the export from an imported payload). */
static void
check_semaphore_transference(struct ctx *c)
{
   VkDevice d = c->t.device;
   VkEvent gate = event_create(c);
   VkFence f = fence_create(c, false, false);

   /* 1. Export while pending: the pending signal moves into the fd, so the
    * semaphore's next signal is its own, and a wait on it works as usual. */
   VkSemaphore s = sem_create(c, true);
   VkCommandBuffer held = fill_cb(c, gate, 0x1111);
   CHECK_EQ_INT(submit(c, held, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   int fd = sem_export(c, s);
   VkCommandBuffer after = fill_cb(c, VK_NULL_HANDLE, 0x2222);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, after, s, VK_NULL_HANDLE, f), VK_SUCCESS);
   sleep_ms(20);
   CHECK(fd < 0 || !fd_ready(fd, 0), "exported fd ready while the work is held");
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK(fd >= 0 && fd_ready(fd, 5000), "exported fd not ready after the work");
   if (fd >= 0)
      close(fd);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0x2222), "work after the re-signalled semaphore did not run");

   /* 2. Export of a signalled payload leaves the semaphore unsignalled: it
    * can be signalled again and waited once. */
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   fd = sem_export(c, s);
   CHECK(fd >= 0 && fd_ready(fd, 0), "export of a signalled semaphore is not ready");
   if (fd >= 0)
      close(fd);
   VkCommandBuffer third = fill_cb(c, VK_NULL_HANDLE, 0x3333);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, third, s, VK_NULL_HANDLE, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0x3333), "work after the signalled export did not run");

   /* 3. Export from an imported payload (exportFromImportedHandleTypes):
    * the same pending state moves on, and the importer gets its permanent
    * payload back. */
   CHECK_EQ_INT(vkResetEvent(d, gate), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   VkCommandBuffer held2 = fill_cb(c, gate, 0x7777);
   CHECK_EQ_INT(submit(c, held2, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
   VkSemaphore relay = sem_create(c, true);
   CHECK_EQ_INT(sem_import(c, relay, sem_export(c, s)), VK_SUCCESS);
   fd = sem_export(c, relay);
   sleep_ms(10);
   CHECK(fd < 0 || !fd_ready(fd, 0), "re-exported fd ready while the work is held");
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK(fd >= 0 && fd_ready(fd, 5000), "re-exported fd not ready after the work");
   if (fd >= 0)
      close(fd);
   VkCommandBuffer fourth = fill_cb(c, VK_NULL_HANDLE, 0x4444);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, relay, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, fourth, relay, VK_NULL_HANDLE, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0x4444), "work waiting on the restored relay did not run");

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   VkCommandBuffer cbs[] = { held, after, third, held2, fourth };
   vkFreeCommandBuffers(d, c->t.pool, sizeof(cbs) / sizeof(cbs[0]), cbs);
   vkDestroyFence(d, f, NULL);
   vkDestroySemaphore(d, s, NULL);
   vkDestroySemaphore(d, relay, NULL);
   vkDestroyEvent(d, gate, NULL);
}

/* ---- fences ---- */

static void
check_fences(struct ctx *c)
{
   VkDevice d = c->t.device;
   VkEvent gate = event_create(c);

   /* 1. Export while the fence's signal is pending: the fd gets the signal,
    * the fence is reset and stays unsignalled after the work. */
   VkFence f = fence_create(c, true, false);
   VkCommandBuffer held = fill_cb(c, gate, 0xaaaa);
   CHECK_EQ_INT(submit(c, held, VK_NULL_HANDLE, VK_NULL_HANDLE, f), VK_SUCCESS);
   int fd = fence_export(c, f);
   CHECK(fd >= 0, "a pending fence exported as %d", fd);
   sleep_ms(20);
   CHECK(fd < 0 || !fd_ready(fd, 0), "fence fd ready while the work is held");
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK(fd >= 0 && fd_ready(fd, 5000), "fence fd not ready after the work");
   if (fd >= 0)
      close(fd);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   CHECK(filled_with(c, 0xaaaa), "held work did not run");
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);
   /* ... and its next submission signals it. */
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);

   /* 2. Export of a signalled fence: ready at once (or -1), and a reset. */
   fd = fence_export(c, f);
   CHECK(fd == -1 || fd_ready(fd, 0), "export of a signalled fence is not ready");
   if (fd >= 0)
      close(fd);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);

   /* 3. Import a pending fd: host waits follow it; a reset restores the
    * permanent payload. */
   CHECK_EQ_INT(vkResetEvent(d, gate), VK_SUCCESS);
   VkFence src = fence_create(c, true, false);
   VkCommandBuffer held2 = fill_cb(c, gate, 0xbbbb);
   CHECK_EQ_INT(submit(c, held2, VK_NULL_HANDLE, VK_NULL_HANDLE, src), VK_SUCCESS);
   VkFence g = fence_create(c, false, true);   /* signalled permanent payload */
   CHECK_EQ_INT(fence_import(c, g, fence_export(c, src)), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, g), VK_NOT_READY);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &g, VK_TRUE, 10 * MS), VK_TIMEOUT);
   /* "Any" over the imported fence and an unsignalled local one: the fd wakes it. */
   VkFence local = fence_create(c, false, false);
   VkFence pair[2] = { local, g };
   CHECK_EQ_INT(vkWaitForFences(d, 2, pair, VK_FALSE, 10 * MS), VK_TIMEOUT);
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 2, pair, VK_FALSE, 5000 * MS), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, g), VK_SUCCESS);
   CHECK(filled_with(c, 0xbbbb), "held work did not run");
   CHECK_EQ_INT(vkResetFences(d, 1, &g), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, g), VK_NOT_READY);   /* permanent, and reset */
   /* "All" over an imported fd fence and a local one signalled later. */
   CHECK_EQ_INT(vkResetEvent(d, gate), VK_SUCCESS);
   VkCommandBuffer held3 = fill_cb(c, gate, 0xcccc);
   CHECK_EQ_INT(submit(c, held3, VK_NULL_HANDLE, VK_NULL_HANDLE, src), VK_SUCCESS);
   CHECK_EQ_INT(fence_import(c, g, fence_export(c, src)), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, local), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 2, pair, VK_TRUE, 10 * MS), VK_TIMEOUT);
   CHECK_EQ_INT(vkSetEvent(d, gate), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 2, pair, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c, 0xcccc), "held work did not run");

   /* 4. -1 is signalled; the reset brings back the permanent payload. */
   CHECK_EQ_INT(vkResetFences(d, 1, &g), VK_SUCCESS);
   CHECK_EQ_INT(fence_import(c, g, -1), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, g), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d, 1, &g), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, g), VK_NOT_READY);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, g), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &g, VK_TRUE, 5000 * MS), VK_SUCCESS);

   /* 5. A bad fd is refused. */
   int closed = eventfd(0, EFD_CLOEXEC);
   close(closed);
   CHECK_EQ_INT(fence_import(c, g, closed), VK_ERROR_INVALID_EXTERNAL_HANDLE);

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   VkCommandBuffer cbs[] = { held, held2, held3 };
   vkFreeCommandBuffers(d, c->t.pool, 3, cbs);
   vkDestroyFence(d, f, NULL);
   vkDestroyFence(d, src, NULL);
   vkDestroyFence(d, g, NULL);
   vkDestroyFence(d, local, NULL);
   vkDestroyEvent(d, gate, NULL);
}

/* ---- OPAQUE_FD: one payload, two devices ---- */

/* Temporary OPAQUE_FD imports that are signalled: a signal operation on an
 * object with a temporary payload signals that payload (the shared one),
 * not the object's permanent payload. dEQP-VK.api.external.semaphore.
 * opaque_fd.import_twice_temporary / send_over_socket_temporary and
 * api.external.fence.opaque_fd.import_twice_temporary /
 * send_over_socket_temporary: one exported payload imported temporarily
 * into A and B; a queue signal of A must release a wait on B (they hung).
 * Then the temporary rules: B's wait consumed the payload and restored B's
 * own; a fence's reset restores its own payload, then resets that one. */
static void
check_opaque_temporary(struct ctx *c)
{
   VkDevice d = c->t.device;
   VkSemaphore s = sem_create_opaque(c);
   VkSemaphore a = sem_create(c, false), b = sem_create(c, false);
   const int fd = sem_export_opaque(c, s);
   /* A way out should the wait never end (Shale's OPAQUE_FD payload is an
    * eventfd): the test must fail, not hang. */
   const int rescue = fcntl(fd, F_DUPFD_CLOEXEC, 0);
   CHECK_EQ_INT(sem_import_opaque(c, a, fcntl(fd, F_DUPFD_CLOEXEC, 0), true), VK_SUCCESS);
   CHECK_EQ_INT(sem_import_opaque(c, b, fd, true), VK_SUCCESS);
   VkFence f = fence_create(c, false, false);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, a, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, b, VK_NULL_HANDLE, f), VK_SUCCESS);
   VkResult r = vkWaitForFences(d, 1, &f, VK_TRUE, 2000 * MS);
   CHECK(r == VK_SUCCESS, "a wait on B does not see the signal of A (temporary imports of one "
                          "payload): %d", r);
   if (r == VK_TIMEOUT) {
      const uint64_t one = 1;
      CHECK(write(rescue, &one, sizeof(one)) == sizeof(one), "rescue write");
      CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   }
   close(rescue);
   /* B's wait consumed the temporary payload: B's own payload is back. */
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, b, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, b, VK_NULL_HANDLE, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   /* (A's signal, which the validation layer still counts as pending on A,
    * is not followed by another: the layer would flag it.) */

   /* Fences: a submission's signal of fa (temporary import) is seen by fb
    * (temporary import of the same payload) and by the exporter. */
   VkFence fs = fence_create_opaque(c);
   VkFence fa = fence_create(c, false, false), fb = fence_create(c, false, false);
   const int ffd = fence_export_opaque(c, fs);
   CHECK_EQ_INT(fence_import_as(c, fa, fcntl(ffd, F_DUPFD_CLOEXEC, 0), FENCE_OPAQUE_FD,
                                VK_FENCE_IMPORT_TEMPORARY_BIT), VK_SUCCESS);
   CHECK_EQ_INT(fence_import_as(c, fb, ffd, FENCE_OPAQUE_FD, VK_FENCE_IMPORT_TEMPORARY_BIT),
                VK_SUCCESS);
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, fa), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &fb, VK_TRUE, 2000 * MS), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, fs), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   /* fb's reset restores its own (unsignalled) payload and leaves the
    * shared one signalled; fa's reset does the same. */
   CHECK_EQ_INT(vkResetFences(d, 1, &fb), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, fb), VK_NOT_READY);
   CHECK_EQ_INT(vkGetFenceStatus(d, fs), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, fa), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d, 1, &fa), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, fa), VK_NOT_READY);
   CHECK_EQ_INT(vkGetFenceStatus(d, fs), VK_SUCCESS);
   /* Their own payloads are theirs again. */
   CHECK_EQ_INT(submit(c, VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE, fb), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &fb, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, fa), VK_NOT_READY);

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   vkDestroySemaphore(d, s, NULL);
   vkDestroySemaphore(d, a, NULL);
   vkDestroySemaphore(d, b, NULL);
   vkDestroyFence(d, f, NULL);
   vkDestroyFence(d, fs, NULL);
   vkDestroyFence(d, fa, NULL);
   vkDestroyFence(d, fb, NULL);
}

static void
check_opaque_devices(struct ctx *c1, struct ctx *c2)
{
   VkDevice d1 = c1->t.device, d2 = c2->t.device;
   VkEvent gate = event_create(c1);

   /* A semaphore of device 1 imported (permanently) into device 2: a
    * signal on either side is seen by a wait on the other. */
   VkSemaphore a = sem_create_opaque(c1);
   VkSemaphore b = sem_create_opaque(c2);   /* exportable, so it may export what it imports */
   CHECK_EQ_INT(sem_import_opaque(c2, b, sem_export_opaque(c1, a), false), VK_SUCCESS);
   VkCommandBuffer held = fill_cb(c1, gate, 0x1234);
   CHECK_EQ_INT(submit(c1, held, VK_NULL_HANDLE, a, VK_NULL_HANDLE), VK_SUCCESS);
   VkFence f2 = fence_create(c2, false, false);
   VkCommandBuffer w2 = fill_cb(c2, VK_NULL_HANDLE, 0x5678);
   CHECK_EQ_INT(submit(c2, w2, b, VK_NULL_HANDLE, f2), VK_SUCCESS);
   sleep_ms(20);
   CHECK_EQ_INT(vkGetFenceStatus(d2, f2), VK_NOT_READY);
   CHECK(!filled_with(c2, 0x5678), "device 2 ran before device 1 signalled");
   CHECK_EQ_INT(vkSetEvent(d1, gate), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d2, 1, &f2, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c1, 0x1234) && filled_with(c2, 0x5678), "cross-device order");

   VkFence f1 = fence_create(c1, false, false);
   VkCommandBuffer w1 = fill_cb(c1, VK_NULL_HANDLE, 0x9abc);
   CHECK_EQ_INT(submit(c2, VK_NULL_HANDLE, VK_NULL_HANDLE, b, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c1, w1, a, VK_NULL_HANDLE, f1), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d1, 1, &f1, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c1, 0x9abc), "device 1's wait on device 2's signal");

   /* Export from the imported payload: a third semaphore on the same
    * payload. */
   VkSemaphore third = sem_create(c1, false);
   CHECK_EQ_INT(sem_import_opaque(c1, third, sem_export_opaque(c2, b), false), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d2, 1, &f2), VK_SUCCESS);
   CHECK_EQ_INT(submit(c1, VK_NULL_HANDLE, VK_NULL_HANDLE, third, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c2, VK_NULL_HANDLE, b, VK_NULL_HANDLE, f2), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d2, 1, &f2, VK_TRUE, 5000 * MS), VK_SUCCESS);

   /* A temporary import: one wait consumes the shared payload, then the
    * semaphore's own payload is back. */
   VkSemaphore t = sem_create(c2, false);
   CHECK_EQ_INT(sem_import_opaque(c2, t, sem_export_opaque(c1, a), true), VK_SUCCESS);
   CHECK_EQ_INT(submit(c1, VK_NULL_HANDLE, VK_NULL_HANDLE, a, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d2, 1, &f2), VK_SUCCESS);
   CHECK_EQ_INT(submit(c2, VK_NULL_HANDLE, t, VK_NULL_HANDLE, f2), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d2, 1, &f2, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d2, 1, &f2), VK_SUCCESS);
   CHECK_EQ_INT(submit(c2, VK_NULL_HANDLE, VK_NULL_HANDLE, t, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(submit(c2, VK_NULL_HANDLE, t, VK_NULL_HANDLE, f2), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d2, 1, &f2, VK_TRUE, 5000 * MS), VK_SUCCESS);

   /* A fence of device 1 imported into device 2: host waits on device 2
    * follow device 1's work; a reset on either side resets both. */
   VkFence fa = fence_create_opaque(c1);
   VkFence fb = fence_create(c2, false, true);
   CHECK_EQ_INT(fence_import_opaque(c2, fb, fence_export_opaque(c1, fa)), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d2, fb), VK_NOT_READY);   /* the imported payload is */
   CHECK_EQ_INT(vkResetEvent(d1, gate), VK_SUCCESS);
   VkCommandBuffer held2 = fill_cb(c1, gate, 0x4321);
   CHECK_EQ_INT(submit(c1, held2, VK_NULL_HANDLE, VK_NULL_HANDLE, fa), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d2, 1, &fb, VK_TRUE, 10 * MS), VK_TIMEOUT);
   CHECK_EQ_INT(vkSetEvent(d1, gate), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d2, 1, &fb, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(filled_with(c1, 0x4321), "held work did not run");
   CHECK_EQ_INT(vkGetFenceStatus(d1, fa), VK_SUCCESS);
   CHECK_EQ_INT(vkResetFences(d2, 1, &fb), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d1, fa), VK_NOT_READY);

   CHECK_EQ_INT(vkQueueWaitIdle(c1->t.queue), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueWaitIdle(c2->t.queue), VK_SUCCESS);
   VkCommandBuffer cbs1[] = { held, w1, held2 };
   vkFreeCommandBuffers(d1, c1->t.pool, 3, cbs1);
   vkFreeCommandBuffers(d2, c2->t.pool, 1, &w2);
   vkDestroySemaphore(d1, a, NULL);
   vkDestroySemaphore(d1, third, NULL);
   vkDestroySemaphore(d2, b, NULL);
   vkDestroySemaphore(d2, t, NULL);
   vkDestroyFence(d1, f1, NULL);
   vkDestroyFence(d1, fa, NULL);
   vkDestroyFence(d2, f2, NULL);
   vkDestroyFence(d2, fb, NULL);
   vkDestroyEvent(d1, gate, NULL);
}

/* ---- OPAQUE_FD: one payload, two processes ---- */

static bool
send_fds(int sock, const int *fds, int n)
{
   char byte = 0;
   struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
   char ctl[CMSG_SPACE(sizeof(int) * 4)];
   memset(ctl, 0, sizeof(ctl));
   struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                         .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
   struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
   cm->cmsg_level = SOL_SOCKET;
   cm->cmsg_type = SCM_RIGHTS;
   cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
   memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
   return sendmsg(sock, &msg, 0) == 1;
}

static bool
recv_fds(int sock, int *fds, int n)
{
   char byte;
   struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
   char ctl[CMSG_SPACE(sizeof(int) * 4)];
   struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                         .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
   if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
      return false;
   struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
   if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int) * (size_t)n))
      return false;
   memcpy(fds, CMSG_DATA(cm), sizeof(int) * (size_t)n);
   return true;
}

/* The child: waits on the parent's semaphore, then signals the parent's
 * fence, through payloads it imported. */
static int
opaque_child(int sock)
{
   const unsigned messages = vkt_validation_messages();   /* the parent's, inherited */
   int fds[2] = { -1, -1 };
   CHECK(recv_fds(sock, fds, 2), "child: no fds received");
   struct ctx c;
   if (fds[0] >= 0 && ctx_init(&c, true)) {
      VkSemaphore s = sem_create(&c, false);
      VkFence f = fence_create(&c, false, false);
      CHECK_EQ_INT(sem_import_opaque(&c, s, fds[0], false), VK_SUCCESS);
      CHECK_EQ_INT(fence_import_opaque(&c, f, fds[1]), VK_SUCCESS);
      VkCommandBuffer cb = fill_cb(&c, VK_NULL_HANDLE, 0xc0ffee);
      CHECK_EQ_INT(submit(&c, cb, s, VK_NULL_HANDLE, f), VK_SUCCESS);
      CHECK_EQ_INT(vkWaitForFences(c.t.device, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
      CHECK(filled_with(&c, 0xc0ffee), "child: work after the parent's signal");
      vkFreeCommandBuffers(c.t.device, c.t.pool, 1, &cb);
      vkDestroySemaphore(c.t.device, s, NULL);
      vkDestroyFence(c.t.device, f, NULL);
      ctx_finish(&c);
   }
   CHECK_EQ_INT(vkt_validation_messages(), messages);
   return check_finish();
}

/* Forked with no Vulkan instance alive in this process (no driver threads
 * to lose in the child). */
static void
check_opaque_processes(void)
{
   int sv[2];
   CHECK_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
   fflush(stderr);
   pid_t pid = fork();
   CHECK(pid >= 0, "fork failed");
   if (pid == 0) {
      close(sv[0]);
      _exit(opaque_child(sv[1]));
   }
   close(sv[1]);
   struct ctx c;
   if (ctx_init(&c, true)) {
      VkSemaphore s = sem_create_opaque(&c);
      VkFence f = fence_create_opaque(&c);
      int fds[2] = { sem_export_opaque(&c, s), fence_export_opaque(&c, f) };
      CHECK(send_fds(sv[0], fds, 2), "sending the fds failed");
      close(fds[0]);
      close(fds[1]);
      sleep_ms(30);
      /* The child waits for this process's signal before it signals back. */
      CHECK_EQ_INT(vkGetFenceStatus(c.t.device, f), VK_NOT_READY);
      CHECK_EQ_INT(submit(&c, VK_NULL_HANDLE, VK_NULL_HANDLE, s, VK_NULL_HANDLE), VK_SUCCESS);
      CHECK_EQ_INT(vkWaitForFences(c.t.device, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
      CHECK_EQ_INT(vkQueueWaitIdle(c.t.queue), VK_SUCCESS);
      vkDestroySemaphore(c.t.device, s, NULL);
      vkDestroyFence(c.t.device, f, NULL);
      ctx_finish(&c);
   }
   close(sv[0]);
   int status = 0;
   CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "waitpid");
   CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child process failed (status 0x%x)",
         status);
}

int
main(void)
{
   const int fds_before = check_open_fds();
   struct ctx c;
   if (ctx_init(&c, true)) {
      check_capabilities(&c);
      if (c.sem_fd)
         check_semaphores(&c);
      else
         fprintf(stderr, "note: VK_KHR_external_semaphore_fd not listed\n");
      if (c.fence_fd)
         check_fences(&c);
      else
         fprintf(stderr, "note: VK_KHR_external_fence_fd not listed\n");
      if (c.sem_fd && c.fence_fd)
         check_opaque_temporary(&c);
      struct ctx c2;
      if (c.sem_fd && c.fence_fd && ctx_init(&c2, true)) {
         check_opaque_devices(&c, &c2);
         ctx_finish(&c2);
      }
      ctx_finish(&c);
   }
   bool both = false;
   if (ctx_init(&c, false)) {
      if (c.sem_fd)
         check_semaphore_transference(&c);
      both = c.sem_fd && c.fence_fd;
      ctx_finish(&c);
   }
   if (both)
      check_opaque_processes();
   CHECK_EQ_INT(check_open_fds(), fds_before);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
