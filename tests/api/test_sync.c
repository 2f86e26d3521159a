/* Fences, binary and timeline semaphores, events, queue waits and device loss,
 * observed through buffer transfers whose results the test computes itself.
 * `api_sync lavapipe` runs the same checks on lavapipe (to check the test). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "vkt.h"

#define MS 1000000ull   /* nanoseconds */

struct ctx {
   struct vkt t;
   bool timeline, sync2;
   PFN_vkWaitSemaphoresKHR wait_semaphores;
   PFN_vkSignalSemaphoreKHR signal_semaphore;
   PFN_vkGetSemaphoreCounterValueKHR counter_value;
   PFN_vkQueueSubmit2KHR queue_submit2;
   PFN_vkCmdPipelineBarrier2KHR barrier2;
   PFN_vkCmdSetEvent2KHR set_event2;
   PFN_vkCmdWaitEvents2KHR wait_events2;
   PFN_vkCmdResetEvent2KHR reset_event2;
   PFN_vkCmdWriteTimestamp2KHR write_timestamp2;
};

static double
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
sleep_ms(unsigned ms)
{
   struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
   nanosleep(&ts, NULL);
}

/* Creates the device, with VK_KHR_timeline_semaphore and
 * VK_KHR_synchronization2 (and their features) when the driver lists them. */
static bool
ctx_init(struct ctx *c, enum vkt_driver driver, bool validation)
{
   memset(c, 0, sizeof(*c));
   static const char *const inst_exts[] = {
      VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME,
   };
   struct vkt_options opts = {
      .driver = driver,
      .instance_extensions = inst_exts,
      .instance_extension_count = 1,
      .no_validation = !validation,
   };
   if (!vkt_init(&c->t, &opts))
      return false;
   PFN_vkGetPhysicalDeviceFeatures2KHR get_features2 = (PFN_vkGetPhysicalDeviceFeatures2KHR)
      vkGetInstanceProcAddr(c->t.instance, "vkGetPhysicalDeviceFeatures2KHR");
   VkPhysicalDeviceTimelineSemaphoreFeatures tl_supported = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
   };
   VkPhysicalDeviceSynchronization2Features s2_supported = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
      .pNext = &tl_supported,
   };
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &s2_supported };
   bool tl = vkt_has_device_extension(c->t.pdev, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
   bool s2 = vkt_has_device_extension(c->t.pdev, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME);
   if (get_features2)
      get_features2(c->t.pdev, &f2);
   if (tl)
      CHECK(tl_supported.timelineSemaphore, "VK_KHR_timeline_semaphore listed without the feature");
   if (s2)
      CHECK(s2_supported.synchronization2, "VK_KHR_synchronization2 listed without the feature");
   tl = tl && tl_supported.timelineSemaphore;
   s2 = s2 && s2_supported.synchronization2;
   if (!tl)
      fprintf(stderr, "note: VK_KHR_timeline_semaphore not listed: timeline tests skipped\n");
   if (!s2)
      fprintf(stderr, "note: VK_KHR_synchronization2 not listed: submit2 tests skipped\n");
   if (!tl && !s2)
      return true;

   vkt_finish(&c->t);
   const char *dev_exts[2];
   uint32_t n = 0;
   VkPhysicalDeviceTimelineSemaphoreFeatures tl_on = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
      .timelineSemaphore = VK_TRUE,
   };
   VkPhysicalDeviceSynchronization2Features s2_on = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
      .synchronization2 = VK_TRUE,
   };
   const void *chain = NULL;
   if (tl) {
      dev_exts[n++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
      tl_on.pNext = (void *)chain;
      chain = &tl_on;
   }
   if (s2) {
      dev_exts[n++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
      s2_on.pNext = (void *)chain;
      chain = &s2_on;
   }
   opts.device_extensions = dev_exts;
   opts.device_extension_count = n;
   opts.device_pnext = chain;
   if (!vkt_init(&c->t, &opts))
      return false;
   VkDevice d = c->t.device;
   c->timeline = tl;
   c->sync2 = s2;
   if (tl) {
      c->wait_semaphores = (PFN_vkWaitSemaphoresKHR)vkGetDeviceProcAddr(d, "vkWaitSemaphoresKHR");
      c->signal_semaphore = (PFN_vkSignalSemaphoreKHR)
         vkGetDeviceProcAddr(d, "vkSignalSemaphoreKHR");
      c->counter_value = (PFN_vkGetSemaphoreCounterValueKHR)
         vkGetDeviceProcAddr(d, "vkGetSemaphoreCounterValueKHR");
      CHECK(c->wait_semaphores && c->signal_semaphore && c->counter_value, "timeline entry points");
      c->timeline = c->wait_semaphores && c->signal_semaphore && c->counter_value;
   }
   if (s2) {
      c->queue_submit2 = (PFN_vkQueueSubmit2KHR)vkGetDeviceProcAddr(d, "vkQueueSubmit2KHR");
      c->barrier2 = (PFN_vkCmdPipelineBarrier2KHR)
         vkGetDeviceProcAddr(d, "vkCmdPipelineBarrier2KHR");
      c->set_event2 = (PFN_vkCmdSetEvent2KHR)vkGetDeviceProcAddr(d, "vkCmdSetEvent2KHR");
      c->wait_events2 = (PFN_vkCmdWaitEvents2KHR)vkGetDeviceProcAddr(d, "vkCmdWaitEvents2KHR");
      c->reset_event2 = (PFN_vkCmdResetEvent2KHR)vkGetDeviceProcAddr(d, "vkCmdResetEvent2KHR");
      c->write_timestamp2 = (PFN_vkCmdWriteTimestamp2KHR)
         vkGetDeviceProcAddr(d, "vkCmdWriteTimestamp2KHR");
      c->sync2 = c->queue_submit2 && c->barrier2 && c->set_event2 && c->wait_events2 &&
                 c->reset_event2 && c->write_timestamp2;
      CHECK(c->sync2, "synchronization2 entry points");
   }
   return true;
}

/* ---- small helpers ---- */

static VkFence
fence_create(struct ctx *c, bool signaled)
{
   VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
                             .flags = signaled ? VK_FENCE_CREATE_SIGNALED_BIT : 0 };
   VkFence f = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateFence(c->t.device, &fci, NULL, &f), VK_SUCCESS);
   return f;
}

static VkEvent
event_create(struct ctx *c)
{
   VkEventCreateInfo eci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
   VkEvent e = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateEvent(c->t.device, &eci, NULL, &e), VK_SUCCESS);
   return e;
}

static VkSemaphore
semaphore_create(struct ctx *c, bool timeline, uint64_t initial)
{
   VkSemaphoreTypeCreateInfo type = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
      .initialValue = initial,
   };
   VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                 .pNext = timeline ? &type : NULL };
   VkSemaphore s = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateSemaphore(c->t.device, &sci, NULL, &s), VK_SUCCESS);
   return s;
}

static VkCommandBuffer
cb_begin(struct ctx *c)
{
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = c->t.pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer cb = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateCommandBuffers(c->t.device, &ai, &cb), VK_SUCCESS);
   VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   CHECK_EQ_INT(vkBeginCommandBuffer(cb, &bi), VK_SUCCESS);
   return cb;
}

static VkCommandBuffer
cb_end(VkCommandBuffer cb)
{
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   return cb;
}

/* A command buffer that fills `size` bytes of `buf` at `offset` with `value`. */
static VkCommandBuffer
cb_fill(struct ctx *c, VkBuffer buf, VkDeviceSize offset, VkDeviceSize size, uint32_t value)
{
   VkCommandBuffer cb = cb_begin(c);
   vkCmdFillBuffer(cb, buf, offset, size, value);
   return cb_end(cb);
}

/* Waits on `event` set by the host (HOST -> TRANSFER), then fills. */
static VkCommandBuffer
cb_wait_event_fill(struct ctx *c, VkEvent event, VkBuffer buf, VkDeviceSize offset,
                   VkDeviceSize size, uint32_t value)
{
   VkCommandBuffer cb = cb_begin(c);
   VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT };
   vkCmdWaitEvents(cb, 1, &event, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   1, &mb, 0, NULL, 0, NULL);
   vkCmdFillBuffer(cb, buf, offset, size, value);
   return cb_end(cb);
}

struct submit_desc {
   const VkCommandBuffer *cbs;
   uint32_t cb_count;
   const VkSemaphore *waits;
   const uint64_t *wait_values;     /* NULL: binary waits */
   uint32_t wait_count;
   const VkSemaphore *signals;
   const uint64_t *signal_values;   /* NULL: binary signals */
   uint32_t signal_count;
};

static VkResult
submit(struct ctx *c, const struct submit_desc *d, VkFence fence)
{
   VkPipelineStageFlags stages[8];
   for (unsigned i = 0; i < 8; i++)
      stages[i] = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
   VkTimelineSemaphoreSubmitInfo tl = {
      .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
      .waitSemaphoreValueCount = d->wait_values ? d->wait_count : 0,
      .pWaitSemaphoreValues = d->wait_values,
      .signalSemaphoreValueCount = d->signal_values ? d->signal_count : 0,
      .pSignalSemaphoreValues = d->signal_values,
   };
   VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .pNext = d->wait_values || d->signal_values ? &tl : NULL,
      .waitSemaphoreCount = d->wait_count,
      .pWaitSemaphores = d->waits,
      .pWaitDstStageMask = stages,
      .commandBufferCount = d->cb_count,
      .pCommandBuffers = d->cbs,
      .signalSemaphoreCount = d->signal_count,
      .pSignalSemaphores = d->signals,
   };
   return vkQueueSubmit(c->t.queue, 1, &si, fence);
}

static VkResult
submit_cb(struct ctx *c, VkCommandBuffer cb, VkFence fence)
{
   struct submit_desc d = { .cbs = &cb, .cb_count = 1 };
   return submit(c, &d, fence);
}

/* Whether `count` words at byte `offset` of a mapped buffer all equal `value`. */
static bool
words_equal(const struct vkt_buffer *b, VkDeviceSize offset, uint32_t count, uint32_t value)
{
   const uint32_t *w = (const uint32_t *)((const char *)b->map + offset);
   for (uint32_t i = 0; i < count; i++) {
      if (w[i] != value) {
         fprintf(stderr, "  word %u at %llu: %#x, expected %#x\n", i,
                 (unsigned long long)offset, w[i], value);
         return false;
      }
   }
   return true;
}

/* ---- background threads ---- */

enum action { ACT_SET_EVENT, ACT_SIGNAL_SEMAPHORE };

/* Does one host action after a delay. */
struct delayed {
   struct ctx *c;
   enum action action;
   unsigned delay_ms;
   VkEvent event;
   VkSemaphore sem;
   uint64_t value;
   pthread_t thread;
};

static void *
delayed_main(void *arg)
{
   struct delayed *d = arg;
   sleep_ms(d->delay_ms);
   if (d->action == ACT_SET_EVENT) {
      vkSetEvent(d->c->t.device, d->event);
   } else {
      VkSemaphoreSignalInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                   .semaphore = d->sem, .value = d->value };
      d->c->signal_semaphore(d->c->t.device, &si);
   }
   return NULL;
}

static void
delayed_start(struct delayed *d)
{
   CHECK_EQ_INT(pthread_create(&d->thread, NULL, delayed_main, d), 0);
}

enum wait_kind { WAIT_FENCES, WAIT_SEMAPHORES };

/* Blocks in a host wait; records the result, and optionally a word of a
 * buffer as seen right after the wait returned. */
struct waiter {
   struct ctx *c;
   enum wait_kind kind;
   uint32_t count;
   const VkFence *fences;
   bool wait_all;
   const VkSemaphore *sems;
   const uint64_t *values;
   bool wait_any;
   uint64_t timeout;
   const uint32_t *watch;
   uint32_t seen;
   VkResult result;
   atomic_bool done;
   pthread_t thread;
};

static void *
waiter_main(void *arg)
{
   struct waiter *w = arg;
   if (w->kind == WAIT_FENCES) {
      w->result = vkWaitForFences(w->c->t.device, w->count, w->fences, w->wait_all, w->timeout);
   } else {
      VkSemaphoreWaitInfo wi = {
         .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
         .flags = w->wait_any ? VK_SEMAPHORE_WAIT_ANY_BIT : 0,
         .semaphoreCount = w->count,
         .pSemaphores = w->sems,
         .pValues = w->values,
      };
      w->result = w->c->wait_semaphores(w->c->t.device, &wi, w->timeout);
   }
   if (w->watch)
      w->seen = *(volatile const uint32_t *)w->watch;
   atomic_store(&w->done, true);
   return NULL;
}

static void
waiter_start(struct waiter *w)
{
   atomic_init(&w->done, false);
   CHECK_EQ_INT(pthread_create(&w->thread, NULL, waiter_main, w), 0);
}

static VkResult
wait_semaphores(struct ctx *c, uint32_t n, const VkSemaphore *sems, const uint64_t *values,
                bool any, uint64_t timeout)
{
   VkSemaphoreWaitInfo wi = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
      .flags = any ? VK_SEMAPHORE_WAIT_ANY_BIT : 0,
      .semaphoreCount = n,
      .pSemaphores = sems,
      .pValues = values,
   };
   return c->wait_semaphores(c->t.device, &wi, timeout);
}

static uint64_t
counter(struct ctx *c, VkSemaphore s)
{
   uint64_t v = UINT64_MAX;
   CHECK_EQ_INT(c->counter_value(c->t.device, s, &v), VK_SUCCESS);
   return v;
}

static void
host_signal(struct ctx *c, VkSemaphore s, uint64_t value)
{
   VkSemaphoreSignalInfo si = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO,
                                .semaphore = s, .value = value };
   CHECK_EQ_INT(c->signal_semaphore(c->t.device, &si), VK_SUCCESS);
}

/* ---- fences ---- */

static void
test_fence_host(struct ctx *c)
{
   VkDevice d = c->t.device;
   VkFence on = fence_create(c, true), off = fence_create(c, false);
   CHECK_EQ_INT(vkGetFenceStatus(d, on), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, off), VK_NOT_READY);
   VkFence both[2] = { on, off };

   /* Timeout 0 never blocks; any/all over one signaled and one not. */
   CHECK_EQ_INT(vkWaitForFences(d, 1, &on, VK_TRUE, 0), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &off, VK_TRUE, 0), VK_TIMEOUT);
   CHECK_EQ_INT(vkWaitForFences(d, 2, both, VK_FALSE, 0), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 2, both, VK_TRUE, 0), VK_TIMEOUT);
   CHECK_EQ_INT(vkWaitForFences(d, 2, both, VK_FALSE, UINT64_MAX), VK_SUCCESS);

   /* A small timeout really waits about that long, then times out. */
   double t0 = now_ms();
   CHECK_EQ_INT(vkWaitForFences(d, 2, both, VK_TRUE, 20 * MS), VK_TIMEOUT);
   double dt = now_ms() - t0;
   CHECK(dt >= 19.0 && dt < 5000.0, "20 ms timeout took %.1f ms", dt);

   /* Reset: both unsignaled, any with a timeout times out too. */
   CHECK_EQ_INT(vkResetFences(d, 2, both), VK_SUCCESS);
   CHECK_EQ_INT(vkGetFenceStatus(d, on), VK_NOT_READY);
   CHECK_EQ_INT(vkWaitForFences(d, 2, both, VK_FALSE, 0), VK_TIMEOUT);
   CHECK_EQ_INT(vkWaitForFences(d, 2, both, VK_FALSE, 5 * MS), VK_TIMEOUT);
   /* Resetting an unsignaled fence is fine. */
   CHECK_EQ_INT(vkResetFences(d, 1, &off), VK_SUCCESS);
   vkDestroyFence(d, on, NULL);
   vkDestroyFence(d, off, NULL);
   vkDestroyFence(d, VK_NULL_HANDLE, NULL);
}

/* Fences of queue work: several batches in one submit signal the fence after
 * all of them; an empty submit signals only after earlier work; any/all over
 * fences of blocked and unblocked work; a thread blocked forever on a fence
 * wakes when the work completes. */
static void
test_fence_queue(struct ctx *c)
{
   VkDevice d = c->t.device;
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0, 4096);

   /* Three batches, one fence. */
   VkCommandBuffer cbs[3];
   VkSubmitInfo si[3];
   for (uint32_t i = 0; i < 3; i++) {
      cbs[i] = cb_fill(c, b.buffer, i * 256, 256, 0x01010101u * (i + 1));
      si[i] = (VkSubmitInfo) { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                               .commandBufferCount = 1, .pCommandBuffers = &cbs[i] };
   }
   VkFence f = fence_create(c, false);
   CHECK_EQ_INT(vkQueueSubmit(c->t.queue, 3, si, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   for (uint32_t i = 0; i < 3; i++)
      CHECK(words_equal(&b, i * 256, 64, 0x01010101u * (i + 1)), "batch %u", i);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_SUCCESS);

   /* Work blocked on an event; an empty submit with a fence behind it. */
   VkEvent e = event_create(c);
   VkCommandBuffer blocked = cb_wait_event_fill(c, e, b.buffer, 1024, 512, 0xabcdef01u);
   VkFence f_blocked = fence_create(c, false), f_empty = fence_create(c, false);
   CHECK_EQ_INT(submit_cb(c, blocked, f_blocked), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueSubmit(c->t.queue, 0, NULL, f_empty), VK_SUCCESS);
   VkFence pair[2] = { f_blocked, f_empty };
   CHECK_EQ_INT(vkWaitForFences(d, 2, pair, VK_FALSE, 20 * MS), VK_TIMEOUT);
   CHECK_EQ_INT(vkGetFenceStatus(d, f_empty), VK_NOT_READY);
   /* Any over a signaled fence and the blocked ones succeeds at once. */
   VkFence three[3] = { f_blocked, f, f_empty };
   CHECK_EQ_INT(vkWaitForFences(d, 3, three, VK_FALSE, 0), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 3, three, VK_TRUE, 0), VK_TIMEOUT);
   CHECK(words_equal(&b, 1024, 128, 0), "blocked work has not run");

   struct waiter w = { .c = c, .kind = WAIT_FENCES, .count = 1, .fences = &f_empty,
                       .wait_all = true, .timeout = UINT64_MAX,
                       .watch = (const uint32_t *)((char *)b.map + 1024) };
   waiter_start(&w);
   sleep_ms(20);
   CHECK(!atomic_load(&w.done), "waiter returned before the work could run");
   CHECK_EQ_INT(vkSetEvent(d, e), VK_SUCCESS);
   pthread_join(w.thread, NULL);
   CHECK_EQ_INT(w.result, VK_SUCCESS);
   CHECK_EQ_INT(w.seen, 0xabcdef01u);
   CHECK_EQ_INT(vkWaitForFences(d, 3, three, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   CHECK(words_equal(&b, 1024, 128, 0xabcdef01u), "released work ran");

   /* Reuse after reset. */
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   VkCommandBuffer again = cb_fill(c, b.buffer, 2048, 64, 77);
   CHECK_EQ_INT(submit_cb(c, again, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, 5000 * MS), VK_SUCCESS);
   CHECK(words_equal(&b, 2048, 16, 77), "after fence reuse");

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   VkCommandBuffer all[5] = { cbs[0], cbs[1], cbs[2], blocked, again };
   vkFreeCommandBuffers(d, c->t.pool, 5, all);
   vkDestroyFence(d, f, NULL);
   vkDestroyFence(d, f_blocked, NULL);
   vkDestroyFence(d, f_empty, NULL);
   vkDestroyEvent(d, e, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* ---- binary semaphores ---- */

/* A chain of submissions linked by binary semaphores: submission i copies
 * slot i-1 to slot i; the first one is held back by an event, so every later
 * one really waits. Also a signal and its wait in two batches of one submit. */
static void
test_binary_semaphores(struct ctx *c)
{
   enum { N = 6 };
   VkDevice d = c->t.device;
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   uint32_t *w = b.map;
   for (uint32_t i = 0; i < 1024; i++)
      w[i] = 1000 + i;
   VkEvent e = event_create(c);
   VkSemaphore sems[N];
   VkCommandBuffer cbs[N];
   for (uint32_t i = 0; i < N; i++)
      sems[i] = semaphore_create(c, false, 0);
   cbs[0] = cb_wait_event_fill(c, e, b.buffer, 0, 4, 0x5eed);
   for (uint32_t i = 1; i < N; i++) {
      cbs[i] = cb_begin(c);
      VkBufferCopy region = { .srcOffset = (i - 1) * 4, .dstOffset = i * 4, .size = 4 };
      vkCmdCopyBuffer(cbs[i], b.buffer, b.buffer, 1, &region);
      cb_end(cbs[i]);
   }
   VkFence f = fence_create(c, false);
   /* Another thread sets the event: some drivers (lavapipe) block in
    * vkQueueSubmit until a binary semaphore's signal is on its way. */
   struct delayed set = { .c = c, .action = ACT_SET_EVENT, .delay_ms = 50, .event = e };
   double t0 = now_ms();
   delayed_start(&set);
   for (uint32_t i = 0; i < N; i++) {
      struct submit_desc sd = {
         .cbs = &cbs[i], .cb_count = 1,
         .waits = i ? &sems[i - 1] : NULL, .wait_count = i ? 1 : 0,
         .signals = i < N - 1 ? &sems[i] : NULL, .signal_count = i < N - 1 ? 1 : 0,
      };
      CHECK_EQ_INT(submit(c, &sd, i == N - 1 ? f : VK_NULL_HANDLE), VK_SUCCESS);
   }
   VkResult early = vkGetFenceStatus(d, f);
   uint32_t early_slots = 0;
   for (uint32_t i = 0; i < N; i++)
      early_slots += w[i] == 1000 + i;
   /* What was read before the event could be set must show nothing done. */
   if (now_ms() - t0 < 45.0) {
      CHECK_EQ_INT(early, VK_NOT_READY);
      CHECK_EQ_INT(early_slots, N);
   }
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   pthread_join(set.thread, NULL);
   for (uint32_t i = 0; i < N; i++)
      CHECK_EQ_INT(w[i], 0x5eed);
   CHECK_EQ_INT(w[N], 1000 + N);

   /* Two batches of one vkQueueSubmit: the second waits for the first's
    * signal (semaphores are reusable once their wait completed). */
   VkCommandBuffer fill = cb_fill(c, b.buffer, 512, 64, 0x600d);
   VkCommandBuffer copy = cb_begin(c);
   VkBufferCopy region = { .srcOffset = 512, .dstOffset = 1024, .size = 64 };
   vkCmdCopyBuffer(copy, b.buffer, b.buffer, 1, &region);
   cb_end(copy);
   VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
   VkSubmitInfo si[2] = {
      { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &fill,
        .signalSemaphoreCount = 1, .pSignalSemaphores = &sems[0] },
      { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .waitSemaphoreCount = 1,
        .pWaitSemaphores = &sems[0], .pWaitDstStageMask = &stage, .commandBufferCount = 1,
        .pCommandBuffers = &copy },
   };
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueSubmit(c->t.queue, 2, si, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   CHECK(words_equal(&b, 1024, 16, 0x600d), "copy after semaphore wait");

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   vkFreeCommandBuffers(d, c->t.pool, N, cbs);
   vkFreeCommandBuffers(d, c->t.pool, 1, &fill);
   vkFreeCommandBuffers(d, c->t.pool, 1, &copy);
   for (uint32_t i = 0; i < N; i++)
      vkDestroySemaphore(d, sems[i], NULL);
   vkDestroyFence(d, f, NULL);
   vkDestroyEvent(d, e, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* ---- timeline semaphores ---- */

static void
test_timeline_host(struct ctx *c)
{
   VkSemaphore a = semaphore_create(c, true, 5), b = semaphore_create(c, true, 0);
   CHECK_EQ_INT(counter(c, a), 5);
   CHECK_EQ_INT(counter(c, b), 0);
   host_signal(c, a, 7);
   CHECK_EQ_INT(counter(c, a), 7);

   uint64_t v7 = 7, v8 = 8;
   CHECK_EQ_INT(wait_semaphores(c, 1, &a, &v7, false, 0), VK_SUCCESS);
   CHECK_EQ_INT(wait_semaphores(c, 1, &a, &v8, false, 0), VK_TIMEOUT);
   double t0 = now_ms();
   CHECK_EQ_INT(wait_semaphores(c, 1, &a, &v8, false, 20 * MS), VK_TIMEOUT);
   double dt = now_ms() - t0;
   CHECK(dt >= 19.0 && dt < 5000.0, "20 ms timeout took %.1f ms", dt);

   /* Any / all over one reached value and one not. */
   VkSemaphore ab[2] = { a, b };
   uint64_t vals[2] = { 6, 100 };
   CHECK_EQ_INT(wait_semaphores(c, 2, ab, vals, true, 0), VK_SUCCESS);
   CHECK_EQ_INT(wait_semaphores(c, 2, ab, vals, false, 0), VK_TIMEOUT);
   CHECK_EQ_INT(wait_semaphores(c, 2, ab, vals, true, UINT64_MAX), VK_SUCCESS);
   CHECK_EQ_INT(wait_semaphores(c, 2, ab, vals, false, 5 * MS), VK_TIMEOUT);

   /* Blocked waits woken by another thread's host signal: any, then all,
    * then a finite timeout that is met. */
   uint64_t want[2] = { 50, 60 };
   struct waiter w_any = { .c = c, .kind = WAIT_SEMAPHORES, .count = 2, .sems = ab,
                           .values = want, .wait_any = true, .timeout = UINT64_MAX };
   struct waiter w_all = w_any;
   w_all.wait_any = false;
   waiter_start(&w_any);
   waiter_start(&w_all);
   sleep_ms(20);
   CHECK(!atomic_load(&w_any.done) && !atomic_load(&w_all.done), "waiters did not block");
   host_signal(c, b, 60);
   pthread_join(w_any.thread, NULL);
   CHECK_EQ_INT(w_any.result, VK_SUCCESS);
   sleep_ms(10);
   CHECK(!atomic_load(&w_all.done), "wait-all returned with one value missing");
   struct delayed sig = { .c = c, .action = ACT_SIGNAL_SEMAPHORE, .delay_ms = 20, .sem = a,
                          .value = 50 };
   delayed_start(&sig);
   pthread_join(w_all.thread, NULL);
   CHECK_EQ_INT(w_all.result, VK_SUCCESS);
   pthread_join(sig.thread, NULL);

   CHECK_EQ_INT(counter(c, a), 50);
   CHECK_EQ_INT(counter(c, b), 60);

   /* A finite timeout that is met. */
   VkSemaphore late = semaphore_create(c, true, 0);
   uint64_t one = 1;
   struct delayed sig1 = { .c = c, .action = ACT_SIGNAL_SEMAPHORE, .delay_ms = 20, .sem = late,
                           .value = 1 };
   delayed_start(&sig1);
   t0 = now_ms();
   CHECK_EQ_INT(wait_semaphores(c, 1, &late, &one, false, 10000 * MS), VK_SUCCESS);
   CHECK(now_ms() - t0 < 5000.0, "finite wait took %.1f ms", now_ms() - t0);
   pthread_join(sig1.thread, NULL);
   CHECK_EQ_INT(counter(c, late), 1);
   vkDestroySemaphore(c->t.device, late, NULL);

   vkDestroySemaphore(c->t.device, a, NULL);
   vkDestroySemaphore(c->t.device, b, NULL);
}

/* Timelines with the queue: a submission waiting on a value the host signals
 * later from another thread (wait before signal), a host thread waiting on a
 * value that a later submission signals, and binary and timeline semaphores
 * in the same batch. */
static void
test_timeline_queue(struct ctx *c)
{
   VkDevice d = c->t.device;
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0, 4096);
   VkSemaphore gate = semaphore_create(c, true, 0), done = semaphore_create(c, true, 0);

   /* 1. The queue waits for gate >= 10, then fills and signals done = 3. */
   VkCommandBuffer cb1 = cb_fill(c, b.buffer, 0, 256, 0x7117);
   uint64_t ten = 10, three = 3;
   VkFence f = fence_create(c, false);
   struct submit_desc sd1 = { .cbs = &cb1, .cb_count = 1, .waits = &gate, .wait_values = &ten,
                              .wait_count = 1, .signals = &done, .signal_values = &three,
                              .signal_count = 1 };
   CHECK_EQ_INT(submit(c, &sd1, f), VK_SUCCESS);
   /* A host thread waits for done >= 3 and reads the buffer when woken. */
   struct waiter w = { .c = c, .kind = WAIT_SEMAPHORES, .count = 1, .sems = &done,
                       .values = &three, .timeout = UINT64_MAX, .watch = b.map };
   waiter_start(&w);
   sleep_ms(20);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);
   CHECK(!atomic_load(&w.done), "host wait returned before the signal");
   CHECK(words_equal(&b, 0, 64, 0), "work ran before its wait was met");
   CHECK_EQ_INT(counter(c, done), 0);
   /* Signalling below the waited value releases nothing. */
   host_signal(c, gate, 9);
   sleep_ms(10);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);
   struct delayed sig = { .c = c, .action = ACT_SIGNAL_SEMAPHORE, .delay_ms = 10, .sem = gate,
                          .value = 10 };
   delayed_start(&sig);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   pthread_join(sig.thread, NULL);
   pthread_join(w.thread, NULL);
   CHECK_EQ_INT(w.result, VK_SUCCESS);
   CHECK_EQ_INT(w.seen, 0x7117);
   CHECK(words_equal(&b, 0, 64, 0x7117), "work after the host signal");
   CHECK_EQ_INT(counter(c, done), 3);

   /* 2. A host wait on a value that a submission made afterwards signals. */
   uint64_t eight = 8;
   struct waiter w2 = { .c = c, .kind = WAIT_SEMAPHORES, .count = 1, .sems = &done,
                        .values = &eight, .timeout = UINT64_MAX,
                        .watch = (const uint32_t *)((char *)b.map + 512) };
   waiter_start(&w2);
   sleep_ms(20);
   CHECK(!atomic_load(&w2.done), "host wait returned before the submission");
   VkCommandBuffer cb2 = cb_fill(c, b.buffer, 512, 256, 0x2222);
   struct submit_desc sd2 = { .cbs = &cb2, .cb_count = 1, .signals = &done,
                              .signal_values = &eight, .signal_count = 1 };
   CHECK_EQ_INT(submit(c, &sd2, VK_NULL_HANDLE), VK_SUCCESS);
   pthread_join(w2.thread, NULL);
   CHECK_EQ_INT(w2.result, VK_SUCCESS);
   CHECK_EQ_INT(w2.seen, 0x2222);

   /* 3. Binary and timeline together: values for binary entries are ignored. */
   VkSemaphore bin = semaphore_create(c, false, 0);
   VkCommandBuffer cb3 = cb_fill(c, b.buffer, 1024, 64, 0x3333);
   VkCommandBuffer cb4 = cb_begin(c);
   VkBufferCopy region = { .srcOffset = 1024, .dstOffset = 2048, .size = 64 };
   vkCmdCopyBuffer(cb4, b.buffer, b.buffer, 1, &region);
   cb_end(cb4);
   VkSemaphore sig3[2] = { bin, done };
   uint64_t sig3_values[2] = { 0, 9 };
   struct submit_desc sd3 = { .cbs = &cb3, .cb_count = 1, .signals = sig3,
                              .signal_values = sig3_values, .signal_count = 2 };
   CHECK_EQ_INT(submit(c, &sd3, VK_NULL_HANDLE), VK_SUCCESS);
   VkSemaphore wait4[2] = { done, bin };
   uint64_t wait4_values[2] = { 9, 12345 };
   uint64_t eleven = 11;
   struct submit_desc sd4 = { .cbs = &cb4, .cb_count = 1, .waits = wait4,
                              .wait_values = wait4_values, .wait_count = 2, .signals = &gate,
                              .signal_values = &eleven, .signal_count = 1 };
   CHECK_EQ_INT(submit(c, &sd4, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(wait_semaphores(c, 1, &gate, &eleven, false, UINT64_MAX), VK_SUCCESS);
   CHECK(words_equal(&b, 2048, 16, 0x3333), "copy after mixed waits");
   CHECK_EQ_INT(counter(c, gate), 11);
   CHECK_EQ_INT(counter(c, done), 9);

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   VkCommandBuffer all[4] = { cb1, cb2, cb3, cb4 };
   vkFreeCommandBuffers(d, c->t.pool, 4, all);
   vkDestroyFence(d, f, NULL);
   vkDestroySemaphore(d, gate, NULL);
   vkDestroySemaphore(d, done, NULL);
   vkDestroySemaphore(d, bin, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* ---- events ---- */

static void
test_events(struct ctx *c)
{
   VkDevice d = c->t.device;
   VkEvent e1 = event_create(c), e2 = event_create(c), host = event_create(c);
   CHECK_EQ_INT(vkGetEventStatus(d, e1), VK_EVENT_RESET);
   CHECK_EQ_INT(vkSetEvent(d, e1), VK_SUCCESS);
   CHECK_EQ_INT(vkGetEventStatus(d, e1), VK_EVENT_SET);
   CHECK_EQ_INT(vkSetEvent(d, e1), VK_SUCCESS);
   CHECK_EQ_INT(vkGetEventStatus(d, e1), VK_EVENT_SET);
   CHECK_EQ_INT(vkResetEvent(d, e1), VK_SUCCESS);
   CHECK_EQ_INT(vkGetEventStatus(d, e1), VK_EVENT_RESET);

   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0, 4096);

   /* Set and waited in one command buffer, then one event set and one reset
    * by the device: the host sees both. */
   CHECK_EQ_INT(vkSetEvent(d, e2), VK_SUCCESS);
   VkCommandBuffer cb = cb_begin(c);
   vkCmdFillBuffer(cb, b.buffer, 0, 64, 0x1111);
   vkCmdSetEvent(cb, e1, VK_PIPELINE_STAGE_TRANSFER_BIT);
   VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT };
   vkCmdWaitEvents(cb, 1, &e1, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   1, &mb, 0, NULL, 0, NULL);
   VkBufferCopy region = { .srcOffset = 0, .dstOffset = 256, .size = 64 };
   vkCmdCopyBuffer(cb, b.buffer, b.buffer, 1, &region);
   vkCmdResetEvent(cb, e2, VK_PIPELINE_STAGE_TRANSFER_BIT);
   cb_end(cb);
   VkFence f = fence_create(c, false);
   CHECK_EQ_INT(submit_cb(c, cb, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   CHECK(words_equal(&b, 256, 16, 0x1111), "copy after set+wait");
   CHECK_EQ_INT(vkGetEventStatus(d, e1), VK_EVENT_SET);
   CHECK_EQ_INT(vkGetEventStatus(d, e2), VK_EVENT_RESET);

   /* A command buffer waiting on an event the host sets later: commands
    * before the wait run (the device tells the host through another event),
    * nothing after it does until the host sets the event. */
   VkCommandBuffer cbw = cb_begin(c);
   vkCmdFillBuffer(cbw, b.buffer, 512, 64, 0xbefe);
   vkCmdSetEvent(cbw, e2, VK_PIPELINE_STAGE_TRANSFER_BIT);
   VkMemoryBarrier hb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT |
                                           VK_ACCESS_TRANSFER_WRITE_BIT };
   vkCmdWaitEvents(cbw, 1, &host, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   1, &hb, 0, NULL, 0, NULL);
   VkBufferCopy after = { .srcOffset = 768, .dstOffset = 1024, .size = 64 };
   vkCmdCopyBuffer(cbw, b.buffer, b.buffer, 1, &after);
   cb_end(cbw);
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   CHECK_EQ_INT(submit_cb(c, cbw, f), VK_SUCCESS);
   VkResult st = VK_EVENT_RESET;
   for (int i = 0; i < 5000 && (st = vkGetEventStatus(d, e2)) == VK_EVENT_RESET; i++)
      sleep_ms(1);
   CHECK_EQ_INT(st, VK_EVENT_SET);
   CHECK(words_equal(&b, 512, 16, 0xbefe), "fill before the wait");
   sleep_ms(10);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_NOT_READY);
   CHECK(words_equal(&b, 1024, 16, 0), "copy after the wait has not run");
   /* The host writes the source now; the copy after the wait must see it. */
   uint32_t *src = (uint32_t *)((char *)b.map + 768);
   for (uint32_t i = 0; i < 16; i++)
      src[i] = 0xc0de0000u + i;
   CHECK_EQ_INT(vkSetEvent(d, host), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   const uint32_t *dst = (const uint32_t *)((char *)b.map + 1024);
   for (uint32_t i = 0; i < 16; i++)
      CHECK_EQ_INT(dst[i], 0xc0de0000u + i);

   /* vkQueueWaitIdle and vkDeviceWaitIdle return only after held work. */
   CHECK_EQ_INT(vkResetEvent(d, host), VK_SUCCESS);
   VkCommandBuffer cbi = cb_wait_event_fill(c, host, b.buffer, 2048, 64, 0x1d1e);
   CHECK_EQ_INT(submit_cb(c, cbi, VK_NULL_HANDLE), VK_SUCCESS);
   struct delayed set = { .c = c, .action = ACT_SET_EVENT, .delay_ms = 20, .event = host };
   delayed_start(&set);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   CHECK(words_equal(&b, 2048, 16, 0x1d1e), "queue idle after the event");
   pthread_join(set.thread, NULL);
   CHECK_EQ_INT(vkResetEvent(d, host), VK_SUCCESS);
   CHECK_EQ_INT(submit_cb(c, cbi, VK_NULL_HANDLE), VK_SUCCESS);
   memset((char *)b.map + 2048, 0, 64);
   delayed_start(&set);
   CHECK_EQ_INT(vkDeviceWaitIdle(d), VK_SUCCESS);
   CHECK(words_equal(&b, 2048, 16, 0x1d1e), "device idle after the event");
   pthread_join(set.thread, NULL);

   VkCommandBuffer all[3] = { cb, cbw, cbi };
   vkFreeCommandBuffers(d, c->t.pool, 3, all);
   vkDestroyFence(d, f, NULL);
   vkDestroyEvent(d, e1, NULL);
   vkDestroyEvent(d, e2, NULL);
   vkDestroyEvent(d, host, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* ---- synchronization2 ---- */

static void
test_submit2(struct ctx *c)
{
   VkDevice d = c->t.device;
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0, 4096);
   VkEvent e = event_create(c);
   VkMemoryBarrier2 mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
      .srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_CLEAR_BIT,
      .srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT,
      .dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT,
      .dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT,
   };
   VkDependencyInfo dep = { .sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                            .memoryBarrierCount = 1, .pMemoryBarriers = &mb };

   /* Batch 1: fill, barrier2, copy, set event2; batch 2 waits on the binary
    * semaphore, waits the event, copies again and resets the event. */
   VkCommandBuffer cb1 = cb_begin(c);
   vkCmdFillBuffer(cb1, b.buffer, 0, 64, 0x5252);
   c->barrier2(cb1, &dep);
   VkBufferCopy r1 = { .srcOffset = 0, .dstOffset = 256, .size = 64 };
   vkCmdCopyBuffer(cb1, b.buffer, b.buffer, 1, &r1);
   c->set_event2(cb1, e, &dep);
   cb_end(cb1);
   VkCommandBuffer cb2 = cb_begin(c);
   c->wait_events2(cb2, 1, &e, &dep);
   VkBufferCopy r2 = { .srcOffset = 256, .dstOffset = 512, .size = 64 };
   vkCmdCopyBuffer(cb2, b.buffer, b.buffer, 1, &r2);
   c->reset_event2(cb2, e, VK_PIPELINE_STAGE_2_COPY_BIT);
   cb_end(cb2);

   VkSemaphore bin = semaphore_create(c, false, 0);
   VkSemaphore tl = c->timeline ? semaphore_create(c, true, 0) : VK_NULL_HANDLE;
   VkCommandBufferSubmitInfo ci1 = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = cb1 };
   VkCommandBufferSubmitInfo ci2 = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = cb2 };
   VkSemaphoreSubmitInfo sig1[2] = {
      { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = bin,
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT },
      { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = tl, .value = 4,
        .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT },
   };
   VkSemaphoreSubmitInfo wait2[2] = {
      { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = bin,
        .stageMask = VK_PIPELINE_STAGE_2_COPY_BIT },
      { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO, .semaphore = tl, .value = 4,
        .stageMask = VK_PIPELINE_STAGE_2_COPY_BIT },
   };
   uint32_t nsem = c->timeline ? 2 : 1;
   VkSubmitInfo2 si[2] = {
      { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &ci1, .signalSemaphoreInfoCount = nsem,
        .pSignalSemaphoreInfos = sig1 },
      { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .waitSemaphoreInfoCount = nsem,
        .pWaitSemaphoreInfos = wait2, .commandBufferInfoCount = 1, .pCommandBufferInfos = &ci2 },
   };
   VkFence f = fence_create(c, false);
   CHECK_EQ_INT(c->queue_submit2(c->t.queue, 2, si, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);
   CHECK(words_equal(&b, 512, 16, 0x5252), "submit2 chain");
   CHECK_EQ_INT(vkGetEventStatus(d, e), VK_EVENT_RESET);
   if (c->timeline)
      CHECK_EQ_INT(counter(c, tl), 4);
   /* Zero batches with a fence. */
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   CHECK_EQ_INT(c->queue_submit2(c->t.queue, 0, NULL, f), VK_SUCCESS);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_SUCCESS);

   /* vkCmdWriteTimestamp2: two timestamps around a copy, in order, available. */
   VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2 };
   VkQueryPool qp;
   CHECK_EQ_INT(vkCreateQueryPool(d, &qci, NULL, &qp), VK_SUCCESS);
   VkCommandBuffer cb3 = cb_begin(c);
   vkCmdResetQueryPool(cb3, qp, 0, 2);
   c->write_timestamp2(cb3, VK_PIPELINE_STAGE_2_TOP_OF_PIPE_BIT, qp, 0);
   vkCmdCopyBuffer(cb3, b.buffer, b.buffer, 1, &r2);
   c->write_timestamp2(cb3, VK_PIPELINE_STAGE_2_COPY_BIT, qp, 1);
   cb_end(cb3);
   VkCommandBufferSubmitInfo ci3 = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = cb3 };
   VkSubmitInfo2 si3 = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1,
                         .pCommandBufferInfos = &ci3 };
   CHECK_EQ_INT(c->queue_submit2(c->t.queue, 1, &si3, VK_NULL_HANDLE), VK_SUCCESS);
   uint64_t ts[4] = { 0 };
   CHECK_EQ_INT(vkGetQueryPoolResults(d, qp, 0, 2, sizeof(ts), ts, 2 * sizeof(uint64_t),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT |
                                         VK_QUERY_RESULT_WITH_AVAILABILITY_BIT),
                VK_SUCCESS);
   CHECK(ts[1] == 1 && ts[3] == 1, "timestamps available");
   CHECK(ts[0] != 0 && ts[2] >= ts[0], "timestamp2 values in order: %llu %llu",
         (unsigned long long)ts[0], (unsigned long long)ts[2]);

   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_SUCCESS);
   vkDestroyQueryPool(d, qp, NULL);
   vkFreeCommandBuffers(d, c->t.pool, 1, &cb3);
   VkCommandBuffer all[2] = { cb1, cb2 };
   vkFreeCommandBuffers(d, c->t.pool, 2, all);
   vkDestroyFence(d, f, NULL);
   vkDestroySemaphore(d, bin, NULL);
   if (tl)
      vkDestroySemaphore(d, tl, NULL);
   vkDestroyEvent(d, e, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* ---- device loss (in a child process) ---- */

#ifdef SHALE_ALLOC_FAIL_INJECTION
/* SHALE_DEBUG_LOSE_DEVICE=1: the first submission loses the device; every
 * wait and submit says so afterwards, and nothing blocks. */
static void
lost_first_submission(struct ctx *c)
{
   VkDevice d = c->t.device;
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   VkFence f = fence_create(c, false), signaled = fence_create(c, true);
   VkEvent e = event_create(c);
   CHECK_EQ_INT(vkSetEvent(d, e), VK_SUCCESS);
   VkSemaphore tl = c->timeline ? semaphore_create(c, true, 1) : VK_NULL_HANDLE;
   VkQueryPoolCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 1 };
   VkQueryPool qp = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateQueryPool(d, &qci, NULL, &qp), VK_SUCCESS);

   VkCommandBuffer cb = cb_begin(c);
   vkCmdResetQueryPool(cb, qp, 0, 1);
   vkCmdFillBuffer(cb, b.buffer, 0, 256, 0x1234);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 0);
   cb_end(cb);
   CHECK_EQ_INT(submit_cb(c, cb, f), VK_SUCCESS);
   double t0 = now_ms();
   CHECK_EQ_INT(vkWaitForFences(d, 1, &f, VK_TRUE, UINT64_MAX), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkGetFenceStatus(d, f), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &signaled, VK_TRUE, 0), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkWaitForFences(d, 1, &signaled, VK_TRUE, UINT64_MAX), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkDeviceWaitIdle(d), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkGetEventStatus(d, e), VK_ERROR_DEVICE_LOST);
   uint64_t ts[2] = { 0, 0 };
   CHECK_EQ_INT(vkGetQueryPoolResults(d, qp, 0, 1, sizeof(ts), ts, sizeof(ts),
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                VK_ERROR_DEVICE_LOST);
   if (c->timeline) {
      uint64_t one = 1, two = 2, v = 0;
      CHECK_EQ_INT(wait_semaphores(c, 1, &tl, &one, false, 0), VK_ERROR_DEVICE_LOST);
      CHECK_EQ_INT(wait_semaphores(c, 1, &tl, &two, false, UINT64_MAX), VK_ERROR_DEVICE_LOST);
      CHECK_EQ_INT(c->counter_value(d, tl, &v), VK_ERROR_DEVICE_LOST);
   }
   CHECK_EQ_INT(vkResetFences(d, 1, &f), VK_SUCCESS);
   VkCommandBuffer cb2 = cb_fill(c, b.buffer, 0, 256, 0x5678);
   CHECK_EQ_INT(submit_cb(c, cb2, f), VK_ERROR_DEVICE_LOST);
   CHECK_EQ_INT(vkQueueSubmit(c->t.queue, 0, NULL, f), VK_ERROR_DEVICE_LOST);
   CHECK(now_ms() - t0 < 5000.0, "calls after loss took %.0f ms", now_ms() - t0);

   vkFreeCommandBuffers(d, c->t.pool, 1, &cb);
   vkFreeCommandBuffers(d, c->t.pool, 1, &cb2);
   vkDestroyQueryPool(d, qp, NULL);
   vkDestroyFence(d, f, NULL);
   vkDestroyFence(d, signaled, NULL);
   vkDestroyEvent(d, e, NULL);
   if (tl)
      vkDestroySemaphore(d, tl, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* SHALE_DEBUG_LOSE_DEVICE=2: submission 1 is held by an event while host
 * threads block forever on submission 2's fence (and on a timeline value
 * nothing will signal); losing the device wakes them. Submission 1 ran in
 * full, submission 2's command buffer never did. */
static void
lost_second_submission(struct ctx *c)
{
   VkDevice d = c->t.device;
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(&c->t, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0, 4096);
   VkEvent e = event_create(c);
   VkCommandBuffer cb1 = cb_wait_event_fill(c, e, b.buffer, 0, 256, 0x1111);
   VkCommandBuffer cb2 = cb_fill(c, b.buffer, 1024, 256, 0x2222);
   VkFence f1 = fence_create(c, false), f2 = fence_create(c, false);
   CHECK_EQ_INT(submit_cb(c, cb1, f1), VK_SUCCESS);
   CHECK_EQ_INT(submit_cb(c, cb2, f2), VK_SUCCESS);
   VkSemaphore tl = c->timeline ? semaphore_create(c, true, 0) : VK_NULL_HANDLE;

   struct waiter wf = { .c = c, .kind = WAIT_FENCES, .count = 1, .fences = &f2,
                        .wait_all = true, .timeout = UINT64_MAX };
   uint64_t never = 1000;
   struct waiter ws = { .c = c, .kind = WAIT_SEMAPHORES, .count = 1, .sems = &tl,
                        .values = &never, .timeout = UINT64_MAX };
   waiter_start(&wf);
   if (tl)
      waiter_start(&ws);
   sleep_ms(30);
   CHECK(!atomic_load(&wf.done), "fence waiter returned early");
   CHECK_EQ_INT(vkSetEvent(d, e), VK_SUCCESS);
   pthread_join(wf.thread, NULL);
   CHECK_EQ_INT(wf.result, VK_ERROR_DEVICE_LOST);
   if (tl) {
      pthread_join(ws.thread, NULL);
      CHECK_EQ_INT(ws.result, VK_ERROR_DEVICE_LOST);
   }
   CHECK(words_equal(&b, 0, 64, 0x1111), "submission 1 ran");
   CHECK(words_equal(&b, 1024, 64, 0), "submission 2 did not run");
   CHECK_EQ_INT(vkQueueWaitIdle(c->t.queue), VK_ERROR_DEVICE_LOST);

   VkCommandBuffer all[2] = { cb1, cb2 };
   vkFreeCommandBuffers(d, c->t.pool, 2, all);
   vkDestroyFence(d, f1, NULL);
   vkDestroyFence(d, f2, NULL);
   vkDestroyEvent(d, e, NULL);
   if (tl)
      vkDestroySemaphore(d, tl, NULL);
   vkt_buffer_destroy(&c->t, &b);
}

/* Runs one loss scenario in a child process, so this process keeps a healthy
 * device; the child has 20 s before SIGALRM ends it (a hang fails). */
static void
run_lost_child(int n)
{
   fflush(stdout);
   fflush(stderr);
   pid_t pid = fork();
   CHECK(pid >= 0, "fork");
   if (pid == 0) {
      alarm(20);
      char value[16];
      snprintf(value, sizeof(value), "%d", n);
      setenv("SHALE_DEBUG_LOSE_DEVICE", value, 1);
      check_failures = check_count = 0;   /* the parent's counts are not ours */
      /* No validation layer here: it cannot know that a lost device retired
       * its submissions, and reports every later free as "in use". */
      struct ctx c;
      if (!ctx_init(&c, VKT_SHALE, false)) {
         fprintf(stderr, "lost-device child: no device\n");
         exit(1);
      }
      if (n == 1)
         lost_first_submission(&c);
      else
         lost_second_submission(&c);
      vkt_finish(&c.t);   /* vkDestroyDevice after loss */
      exit(check_finish());
   }
   int status = 0;
   CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
   CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "device-loss child %d: %s %d", n, WIFEXITED(status) ? "exit" : "signal",
         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}
#endif

int
main(int argc, char **argv)
{
   enum vkt_driver driver = argc > 1 && strcmp(argv[1], "lavapipe") == 0 ? VKT_LAVAPIPE
                                                                         : VKT_SHALE;
#ifdef SHALE_ALLOC_FAIL_INJECTION
   /* Before this process loads any driver: the children start clean. */
   if (driver == VKT_SHALE) {
      run_lost_child(1);
      run_lost_child(2);
   }
#else
   fprintf(stderr, "note: built without SHALE_ALLOC_FAIL_INJECTION: device-loss tests skipped\n");
#endif
   struct ctx c;
   if (!ctx_init(&c, driver, true)) {
      CHECK(false, "no %s device", vkt_driver_name(driver));
      return check_finish();
   }
   test_fence_host(&c);
   test_fence_queue(&c);
   test_binary_semaphores(&c);
   test_events(&c);
   if (c.timeline) {
      test_timeline_host(&c);
      test_timeline_queue(&c);
   }
   if (c.sync2)
      test_submit2(&c);
   vkt_finish(&c.t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
