/* Command pools and command buffers: secondaries, the reset paths, one-time
 * and simultaneous use, many command buffers and batches in one submit,
 * thousands of commands, trimming, recording out of memory, and big updates
 * and whole-size fills, checked against results the test computes itself.
 * `api_cmdbuf lavapipe` runs the same checks on lavapipe (to check the test). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "vkt.h"

static enum vkt_driver driver;
/* vkTrimCommandPool is core 1.1 or VK_KHR_maintenance1; NULL without either. */
static PFN_vkTrimCommandPoolKHR trim_pool;

static void
sleep_ms(unsigned ms)
{
   struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
   nanosleep(&ts, NULL);
}

static VkCommandBuffer
cb_alloc(struct vkt *t, VkCommandPool pool, VkCommandBufferLevel level)
{
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = pool,
      .level = level,
      .commandBufferCount = 1,
   };
   VkCommandBuffer cb = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateCommandBuffers(t->device, &ai, &cb), VK_SUCCESS);
   return cb;
}

static void
cb_begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags)
{
   VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = flags };
   CHECK_EQ_INT(vkBeginCommandBuffer(cb, &bi), VK_SUCCESS);
}

static void
cb_begin_secondary(VkCommandBuffer cb, VkCommandBufferUsageFlags flags)
{
   VkCommandBufferInheritanceInfo inh = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
   };
   VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = flags, .pInheritanceInfo = &inh };
   CHECK_EQ_INT(vkBeginCommandBuffer(cb, &bi), VK_SUCCESS);
}

/* Transfer writes before, transfer reads and writes after. */
static void
barrier(VkCommandBuffer cb)
{
   VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT |
                                           VK_ACCESS_TRANSFER_WRITE_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                        1, &mb, 0, NULL, 0, NULL);
}

static void
copy(VkCommandBuffer cb, VkBuffer buf, VkDeviceSize src, VkDeviceSize dst, VkDeviceSize size)
{
   VkBufferCopy r = { .srcOffset = src, .dstOffset = dst, .size = size };
   vkCmdCopyBuffer(cb, buf, buf, 1, &r);
}

/* Submits command buffers as one batch and waits for the queue. */
static VkResult
run(struct vkt *t, uint32_t n, const VkCommandBuffer *cbs)
{
   VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = n,
                       .pCommandBuffers = cbs };
   VkResult r = vkQueueSubmit(t->queue, 1, &si, VK_NULL_HANDLE);
   if (r == VK_SUCCESS)
      r = vkQueueWaitIdle(t->queue);
   return r;
}

/* Compares a mapped buffer with the expected bytes; prints the first miss. */
static bool
same_bytes(const void *got, const void *want, size_t size, const char *what)
{
   const uint8_t *g = got, *w = want;
   for (size_t i = 0; i < size; i++) {
      if (g[i] != w[i]) {
         fprintf(stderr, "  %s: byte %zu is %#x, expected %#x\n", what, i, g[i], w[i]);
         return false;
      }
   }
   return true;
}

static void
ref_fill(uint8_t *ref, size_t offset, size_t size, uint32_t value)
{
   for (size_t i = 0; i < size; i += 4)
      memcpy(ref + offset + i, &value, 4);
}

/* ---- secondary command buffers ---- */

/* primary: fill; sec1: update X, fill; sec2 (simultaneous): copy X -> Y;
 * sec3: copy Y -> Z, update X again; ExecuteCommands(sec1, sec2, sec3, sec2),
 * then the primary copies Y -> W. Z proves the first run of sec2, Y the
 * second, W that the primary continues after the secondaries. */
static void
test_secondary(struct vkt *t)
{
   enum { SIZE = 2048, X = 0, Y = 256, Z = 512, W = 768, F = 1024 };
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, SIZE, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0xee, SIZE);
   uint8_t first[64], second[64];
   for (int i = 0; i < 64; i++) {
      first[i] = (uint8_t)(i * 3 + 1);
      second[i] = (uint8_t)(200 - i);
   }

   VkCommandBuffer sec1 = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
   VkCommandBuffer sec2 = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
   VkCommandBuffer sec3 = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
   cb_begin_secondary(sec1, 0);
   vkCmdUpdateBuffer(sec1, b.buffer, X, 64, first);
   vkCmdFillBuffer(sec1, b.buffer, F, 256, 0x01020304);
   barrier(sec1);
   CHECK_EQ_INT(vkEndCommandBuffer(sec1), VK_SUCCESS);
   cb_begin_secondary(sec2, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT);
   copy(sec2, b.buffer, X, Y, 64);
   barrier(sec2);
   CHECK_EQ_INT(vkEndCommandBuffer(sec2), VK_SUCCESS);
   cb_begin_secondary(sec3, 0);
   copy(sec3, b.buffer, Y, Z, 64);
   vkCmdUpdateBuffer(sec3, b.buffer, X, 64, second);
   barrier(sec3);
   CHECK_EQ_INT(vkEndCommandBuffer(sec3), VK_SUCCESS);

   VkCommandBuffer prim = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   cb_begin(prim, 0);
   vkCmdFillBuffer(prim, b.buffer, 0, SIZE, 0x5a5a5a5a);
   barrier(prim);
   VkCommandBuffer secs[4] = { sec1, sec2, sec3, sec2 };
   vkCmdExecuteCommands(prim, 4, secs);
   barrier(prim);
   copy(prim, b.buffer, Y, W, 64);
   CHECK_EQ_INT(vkEndCommandBuffer(prim), VK_SUCCESS);
   CHECK_EQ_INT(run(t, 1, &prim), VK_SUCCESS);

   uint8_t want[SIZE];
   memset(want, 0x5a, SIZE);
   memcpy(want + X, second, 64);
   memcpy(want + Y, second, 64);
   memcpy(want + Z, first, 64);
   memcpy(want + W, second, 64);
   ref_fill(want, F, 256, 0x01020304);
   CHECK(same_bytes(b.map, want, SIZE, "secondaries"), "secondary command buffers");

   /* The same primary again (not one-time): same result from a fresh start. */
   memset(b.map, 0, SIZE);
   CHECK_EQ_INT(run(t, 1, &prim), VK_SUCCESS);
   CHECK(same_bytes(b.map, want, SIZE, "resubmitted"), "resubmitted primary");

   VkCommandBuffer all[4] = { prim, sec1, sec2, sec3 };
   vkFreeCommandBuffers(t->device, t->pool, 4, all);
   vkt_buffer_destroy(t, &b);
}

/* ---- reset paths ---- */

static void
test_reset(struct vkt *t)
{
   enum { SIZE = 1024 };
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, SIZE, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   uint8_t want[SIZE];

   /* A pool with RESET_COMMAND_BUFFER_BIT (the harness's): explicit reset,
    * reset releasing resources, implicit reset by vkBeginCommandBuffer. */
   VkCommandBuffer cb = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   cb_begin(cb, 0);
   vkCmdFillBuffer(cb, b.buffer, 0, 64, 0x11111111);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   memset(b.map, 0, SIZE);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   memset(want, 0, SIZE);
   ref_fill(want, 0, 64, 0x11111111);
   CHECK(same_bytes(b.map, want, SIZE, "first recording"), "first recording");

   CHECK_EQ_INT(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
   cb_begin(cb, 0);
   vkCmdFillBuffer(cb, b.buffer, 128, 64, 0x22222222);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   memset(b.map, 0, SIZE);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   memset(want, 0, SIZE);
   ref_fill(want, 128, 64, 0x22222222);
   CHECK(same_bytes(b.map, want, SIZE, "after vkResetCommandBuffer"), "explicit reset");

   CHECK_EQ_INT(vkResetCommandBuffer(cb, VK_COMMAND_BUFFER_RESET_RELEASE_RESOURCES_BIT),
                VK_SUCCESS);
   cb_begin(cb, 0);
   vkCmdFillBuffer(cb, b.buffer, 256, 64, 0x33333333);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   /* Implicit reset: begin again without a reset. */
   cb_begin(cb, 0);
   vkCmdFillBuffer(cb, b.buffer, 384, 64, 0x44444444);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   memset(b.map, 0, SIZE);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   memset(want, 0, SIZE);
   ref_fill(want, 384, 64, 0x44444444);
   CHECK(same_bytes(b.map, want, SIZE, "implicit reset"), "implicit reset by begin");

   /* ONE_TIME_SUBMIT: runs once; begin again (implicit reset from the
    * invalid state) records anew. */
   cb_begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
   vkCmdFillBuffer(cb, b.buffer, 512, 64, 0x55555555);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   memset(b.map, 0, SIZE);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   memset(want, 0, SIZE);
   ref_fill(want, 512, 64, 0x55555555);
   CHECK(same_bytes(b.map, want, SIZE, "one-time submit"), "one-time submit");
   cb_begin(cb, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
   vkCmdFillBuffer(cb, b.buffer, 576, 64, 0x66666666);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   memset(b.map, 0, SIZE);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   memset(want, 0, SIZE);
   ref_fill(want, 576, 64, 0x66666666);
   CHECK(same_bytes(b.map, want, SIZE, "one-time again"), "one-time submit re-recorded");
   vkFreeCommandBuffers(t->device, t->pool, 1, &cb);

   /* A pool without the flag: only vkResetCommandPool resets. */
   VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = 0 };
   VkCommandPool pool;
   CHECK_EQ_INT(vkCreateCommandPool(t->device, &pci, NULL, &pool), VK_SUCCESS);
   VkCommandBuffer two[2];
   VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 2 };
   CHECK_EQ_INT(vkAllocateCommandBuffers(t->device, &ai, two), VK_SUCCESS);
   for (int round = 0; round < 3; round++) {
      for (uint32_t i = 0; i < 2; i++) {
         cb_begin(two[i], 0);
         uint32_t v = 0x01010101u * (round * 2 + i + 1);
         vkCmdFillBuffer(two[i], b.buffer, 64 * (2 * round + i), 64, v);
         CHECK_EQ_INT(vkEndCommandBuffer(two[i]), VK_SUCCESS);
      }
      memset(b.map, 0, SIZE);
      CHECK_EQ_INT(run(t, 2, two), VK_SUCCESS);
      memset(want, 0, SIZE);
      for (uint32_t i = 0; i < 2; i++)
         ref_fill(want, 64 * (2 * round + i), 64, 0x01010101u * (round * 2 + i + 1));
      CHECK(same_bytes(b.map, want, SIZE, "pool round"), "pool reset round %d", round);
      CHECK_EQ_INT(vkResetCommandPool(t->device, pool,
                                      round == 1 ? VK_COMMAND_POOL_RESET_RELEASE_RESOURCES_BIT : 0),
                   VK_SUCCESS);
   }
   vkFreeCommandBuffers(t->device, pool, 2, two);
   vkDestroyCommandPool(t->device, pool, NULL);
   vkDestroyCommandPool(t->device, VK_NULL_HANDLE, NULL);
   vkt_buffer_destroy(t, &b);
}

/* ---- simultaneous use ---- */

struct event_setter {
   VkDevice device;
   VkEvent event;
   pthread_t thread;
};

static void *
event_setter_main(void *arg)
{
   struct event_setter *s = arg;
   sleep_ms(20);
   vkSetEvent(s->device, s->event);
   return NULL;
}

/* S = [wait event, copy X -> Y] is pending twice: submitted, then M = [copy
 * Y -> Z, update X], then S again, all before the host sets the event. Z
 * holds X's first value only if the first S ran before M, Y its second only
 * if the second S ran after M. The same holds inside one batch {T, U, T}. */
static void
test_simultaneous(struct vkt *t)
{
   enum { SIZE = 1024, X = 0, Y = 128, Z = 256 };
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, SIZE, VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   uint8_t v1[64], v2[64];
   for (int i = 0; i < 64; i++) {
      v1[i] = (uint8_t)(i + 10);
      v2[i] = (uint8_t)(250 - 3 * i);
   }
   memset(b.map, 0, SIZE);
   memcpy((uint8_t *)b.map + X, v1, 64);

   VkEventCreateInfo eci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
   VkEvent e;
   CHECK_EQ_INT(vkCreateEvent(t->device, &eci, NULL, &e), VK_SUCCESS);
   VkCommandBuffer s = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   cb_begin(s, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT);
   VkMemoryBarrier hb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT };
   vkCmdWaitEvents(s, 1, &e, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 1, &hb,
                   0, NULL, 0, NULL);
   copy(s, b.buffer, X, Y, 64);
   barrier(s);
   CHECK_EQ_INT(vkEndCommandBuffer(s), VK_SUCCESS);
   VkCommandBuffer m = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   cb_begin(m, 0);
   copy(m, b.buffer, Y, Z, 64);
   vkCmdUpdateBuffer(m, b.buffer, X, 64, v2);
   barrier(m);
   CHECK_EQ_INT(vkEndCommandBuffer(m), VK_SUCCESS);

   VkCommandBuffer order[3] = { s, m, s };
   for (int i = 0; i < 3; i++) {
      VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                          .pCommandBuffers = &order[i] };
      CHECK_EQ_INT(vkQueueSubmit(t->queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
   }
   struct event_setter setter = { .device = t->device, .event = e };
   CHECK_EQ_INT(pthread_create(&setter.thread, NULL, event_setter_main, &setter), 0);
   CHECK_EQ_INT(vkQueueWaitIdle(t->queue), VK_SUCCESS);
   pthread_join(setter.thread, NULL);
   const uint8_t *map = b.map;
   CHECK(same_bytes(map + Z, v1, 64, "Z"), "first run of the simultaneous buffer");
   CHECK(same_bytes(map + Y, v2, 64, "Y"), "second run of the simultaneous buffer");
   CHECK(same_bytes(map + X, v2, 64, "X"), "update between the runs");

   /* One batch holding the same (simultaneous) buffer twice; the event stays
    * set. */
   memcpy((uint8_t *)b.map + X, v1, 64);
   memset((uint8_t *)b.map + Y, 0, 128);
   CHECK_EQ_INT(run(t, 3, order), VK_SUCCESS);
   CHECK(same_bytes(map + Z, v1, 64, "Z"), "first run in one batch");
   CHECK(same_bytes(map + Y, v2, 64, "Y"), "second run in one batch");

   VkCommandBuffer all[2] = { s, m };
   vkFreeCommandBuffers(t->device, t->pool, 2, all);
   vkDestroyEvent(t->device, e, NULL);
   vkt_buffer_destroy(t, &b);
}

/* ---- many command buffers, many batches, many commands ---- */

static uint32_t
hash32(uint32_t x)
{
   x ^= x >> 16;
   x *= 0x7feb352dU;
   x ^= x >> 15;
   x *= 0x846ca68bU;
   x ^= x >> 16;
   return x;
}

static void
test_many(struct vkt *t)
{
   enum { CBS = 64, BATCHES = 20, SIZE = 4096 };
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, SIZE, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   memset(b.map, 0, SIZE);
   uint32_t want[SIZE / 4];
   memset(want, 0, sizeof(want));

   /* 64 command buffers in one batch, and 20 batches (one command buffer
    * each) in one vkQueueSubmit. */
   VkCommandBuffer cbs[CBS + BATCHES];
   VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = t->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = CBS + BATCHES };
   CHECK_EQ_INT(vkAllocateCommandBuffers(t->device, &ai, cbs), VK_SUCCESS);
   for (uint32_t i = 0; i < CBS + BATCHES; i++) {
      uint32_t v = hash32(i + 1);
      cb_begin(cbs[i], 0);
      vkCmdUpdateBuffer(cbs[i], b.buffer, 4 * i, 4, &v);
      /* Every buffer also writes a shared word: the last one wins. */
      vkCmdUpdateBuffer(cbs[i], b.buffer, SIZE - 4, 4, &i);
      barrier(cbs[i]);
      CHECK_EQ_INT(vkEndCommandBuffer(cbs[i]), VK_SUCCESS);
      want[i] = v;
   }
   want[SIZE / 4 - 1] = CBS + BATCHES - 1;
   VkSubmitInfo si[1 + BATCHES];
   si[0] = (VkSubmitInfo) { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = CBS,
                            .pCommandBuffers = cbs };
   for (uint32_t i = 0; i < BATCHES; i++)
      si[1 + i] = (VkSubmitInfo) { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                   .commandBufferCount = 1, .pCommandBuffers = &cbs[CBS + i] };
   CHECK_EQ_INT(vkQueueSubmit(t->queue, 1 + BATCHES, si, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(vkQueueWaitIdle(t->queue), VK_SUCCESS);
   CHECK(same_bytes(b.map, want, SIZE, "many"), "many command buffers and batches");
   vkFreeCommandBuffers(t->device, t->pool, CBS + BATCHES, cbs);
   vkt_buffer_destroy(t, &b);
}

/* Records `n` words of updates and fills, plus `n` updates of one word (the
 * last value must win), into `cb`; fills `want` with the expected words. */
static void
record_thousands(VkCommandBuffer cb, VkBuffer buf, uint32_t n, uint32_t seed, uint32_t *want)
{
   cb_begin(cb, 0);
   for (uint32_t i = 0; i < n; i++) {
      uint32_t v = hash32(seed + i);
      vkCmdUpdateBuffer(cb, buf, 4 * i, 4, &v);
      want[i] = v;
      vkCmdFillBuffer(cb, buf, 4 * (n + i), 4, ~v);
      want[n + i] = ~v;
      uint32_t last = seed ^ i;
      vkCmdUpdateBuffer(cb, buf, 4 * (2 * n), 4, &last);
      want[2 * n] = last;
   }
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
}

static void
test_thousands(struct vkt *t)
{
   enum { N = 3000, SIZE = 4 * (2 * N + 1) };
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, SIZE, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   static uint32_t want[2 * N + 1];
   VkCommandBuffer cb = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   for (uint32_t round = 0; round < 3; round++) {
      if (round == 2)
         CHECK_EQ_INT(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
      record_thousands(cb, b.buffer, N, 1000 * round + 7, want);
      memset(b.map, 0, SIZE);
      CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
      CHECK(same_bytes(b.map, want, SIZE, "thousands"), "9000 commands, round %u", round);
   }
   vkFreeCommandBuffers(t->device, t->pool, 1, &cb);
   vkt_buffer_destroy(t, &b);
}

/* ---- pool memory: trimming, reuse, recording out of memory ---- */

struct counting {
   long live;          /* allocations not yet freed */
   long fail_after;    /* < 0: never fail; else fail once this many more succeeded */
};

struct counting_header {
   size_t size;
   size_t offset;
};

static void *VKAPI_PTR
counting_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct counting *c = user;
   if (c->fail_after == 0)
      return NULL;
   if (c->fail_after > 0)
      c->fail_after--;
   if (align < 16)
      align = 16;
   size_t offset = (sizeof(struct counting_header) + align - 1) & ~(align - 1);
   void *block = NULL;
   if (posix_memalign(&block, align, offset + size) != 0)
      return NULL;
   char *p = (char *)block + offset;
   struct counting_header *h = (struct counting_header *)p - 1;
   h->size = size;
   h->offset = offset;
   c->live++;
   return p;
}

static void VKAPI_PTR
counting_free(void *user, void *ptr)
{
   if (!ptr)
      return;
   struct counting *c = user;
   struct counting_header *h = (struct counting_header *)ptr - 1;
   c->live--;
   free((char *)ptr - h->offset);
}

static void *VKAPI_PTR
counting_realloc(void *user, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (!orig)
      return counting_alloc(user, size, align, scope);
   if (size == 0) {
      counting_free(user, orig);
      return NULL;
   }
   void *p = counting_alloc(user, size, align, scope);
   if (!p)
      return NULL;
   struct counting_header *h = (struct counting_header *)orig - 1;
   memcpy(p, orig, h->size < size ? h->size : size);
   counting_free(user, orig);
   return p;
}

static void
record_many_fills(VkCommandBuffer cb, VkBuffer buf, uint32_t n)
{
   cb_begin(cb, 0);
   for (uint32_t i = 0; i < n; i++)
      vkCmdFillBuffer(cb, buf, 4 * (i % 256), 4, i);
}

static void
test_pool_memory(struct vkt *t)
{
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, 1024, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   struct counting cnt = { .fail_after = -1 };
   VkAllocationCallbacks ac = { .pUserData = &cnt, .pfnAllocation = counting_alloc,
                                .pfnReallocation = counting_realloc, .pfnFree = counting_free };
   VkCommandPoolCreateInfo pci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = 0 };
   VkCommandPool pool;
   CHECK_EQ_INT(vkCreateCommandPool(t->device, &pci, &ac, &pool), VK_SUCCESS);
   long pool_only = cnt.live;
   CHECK(pool_only >= 1, "the pool came from its allocator");
   VkCommandBuffer cb = cb_alloc(t, pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   long with_cb = cnt.live;

   record_many_fills(cb, b.buffer, 4000);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   long recorded = cnt.live;
   CHECK(recorded > with_cb, "recording allocates from the pool's allocator");
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   const uint32_t *w = b.map;
   for (uint32_t i = 0; i < 256; i++) {
      uint32_t last = i + 256 * ((4000 - 1 - i) / 256);   /* the last fill of word i */
      if (w[i] != last) {
         CHECK_EQ_INT(w[i], last);
         break;
      }
   }

   /* Reset and record the same again: memory is reused, not grown. */
   CHECK_EQ_INT(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
   record_many_fills(cb, b.buffer, 4000);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   CHECK(cnt.live <= recorded, "re-recording grew from %ld to %ld allocations", recorded, cnt.live);

   if (driver == VKT_SHALE) {
      /* Shale keeps a reset buffer's blocks in the pool until trimmed, and
       * gives them back at once on RELEASE_RESOURCES. */
      CHECK_EQ_INT(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
      CHECK_EQ_INT(cnt.live, recorded);
      if (trim_pool) {
         trim_pool(t->device, pool, 0);
         CHECK_EQ_INT(cnt.live, with_cb);
      }
      record_many_fills(cb, b.buffer, 4000);
      CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
      CHECK_EQ_INT(vkResetCommandBuffer(cb, VK_COMMAND_BUFFER_RESET_RELEASE_RESOURCES_BIT),
                   VK_SUCCESS);
      CHECK_EQ_INT(cnt.live, with_cb);
      record_many_fills(cb, b.buffer, 4000);
      CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
      CHECK_EQ_INT(vkResetCommandPool(t->device, pool, VK_COMMAND_POOL_RESET_RELEASE_RESOURCES_BIT),
                   VK_SUCCESS);
      CHECK_EQ_INT(cnt.live, with_cb);
   }

   /* Recording runs out of memory (Shale's pool holds no spare block now):
    * vkEndCommandBuffer says so; after a reset the buffer records and runs
    * normally. */
   if (driver == VKT_SHALE) {
      cnt.fail_after = 3;
      record_many_fills(cb, b.buffer, 4000);
      CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_ERROR_OUT_OF_HOST_MEMORY);
      cnt.fail_after = -1;
      CHECK_EQ_INT(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
   }
   cb_begin(cb, 0);
   vkCmdFillBuffer(cb, b.buffer, 0, VK_WHOLE_SIZE, 0x0badf00d);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   bool all = true;
   for (uint32_t i = 0; i < 256; i++)
      all &= w[i] == 0x0badf00d;
   CHECK(all, "recording after an out-of-memory recording");

   /* Free and trim: back to the pool alone; destroy: nothing left. */
   vkFreeCommandBuffers(t->device, pool, 1, &cb);
   if (trim_pool) {
      trim_pool(t->device, pool, 0);
      if (driver == VKT_SHALE)
         CHECK_EQ_INT(cnt.live, pool_only);
   }
   vkDestroyCommandPool(t->device, pool, &ac);
   CHECK_EQ_INT(cnt.live, 0);
   vkt_buffer_destroy(t, &b);
}

/* vkFreeCommandBuffers ignores NULL entries; the others stay usable. */
static void
test_free_null(struct vkt *t)
{
   struct vkt_buffer b;
   CHECK_EQ_INT(vkt_buffer_create(t, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   VkCommandBuffer cbs[3];
   VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = t->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 3 };
   CHECK_EQ_INT(vkAllocateCommandBuffers(t->device, &ai, cbs), VK_SUCCESS);
   for (uint32_t i = 0; i < 3; i++) {
      cb_begin(cbs[i], 0);
      vkCmdFillBuffer(cbs[i], b.buffer, 64 * i, 64, 0x10101010u * (i + 1));
      CHECK_EQ_INT(vkEndCommandBuffer(cbs[i]), VK_SUCCESS);
   }
   VkCommandBuffer some[3] = { cbs[0], VK_NULL_HANDLE, cbs[2] };
   vkFreeCommandBuffers(t->device, t->pool, 3, some);
   VkCommandBuffer none = VK_NULL_HANDLE;
   vkFreeCommandBuffers(t->device, t->pool, 1, &none);
   memset(b.map, 0, 256);
   CHECK_EQ_INT(run(t, 1, &cbs[1]), VK_SUCCESS);
   uint8_t want[256];
   memset(want, 0, sizeof(want));
   ref_fill(want, 64, 64, 0x20202020);
   CHECK(same_bytes(b.map, want, 256, "survivor"), "the command buffer not freed still runs");
   vkFreeCommandBuffers(t->device, t->pool, 1, &cbs[1]);
   vkt_buffer_destroy(t, &b);
}

/* ---- big updates and whole-size fills ---- */

static void
test_update_fill(struct vkt *t)
{
   enum { UPD = 65536, SIZE = UPD + 256, ODD = 1030 };
   struct vkt_buffer b, odd;
   CHECK_EQ_INT(vkt_buffer_create(t, SIZE, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b), VK_SUCCESS);
   CHECK_EQ_INT(vkt_buffer_create(t, ODD, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &odd), VK_SUCCESS);
   static uint8_t data[UPD], want[SIZE];
   for (uint32_t i = 0; i < UPD; i++)
      data[i] = (uint8_t)(hash32(i) >> 11);

   memset(want, 0, SIZE);
   memcpy(want + 128, data, UPD);
   memcpy(want + SIZE - 4, data + 100, 4);

   VkCommandBuffer cb = cb_alloc(t, t->pool, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
   cb_begin(cb, 0);
   vkCmdUpdateBuffer(cb, b.buffer, 128, UPD, data);
   vkCmdUpdateBuffer(cb, b.buffer, SIZE - 4, 4, data + 100);
   /* Fills of the odd-sized buffer: VK_WHOLE_SIZE stops at the last whole
    * word (1028); the two bytes after it keep their value. */
   vkCmdFillBuffer(cb, odd.buffer, 8, VK_WHOLE_SIZE, 0x12345678);
   CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
   /* The data was copied at record time: changing it now changes nothing. */
   memset(data, 0, UPD);
   memset(b.map, 0, SIZE);
   memset(odd.map, 0xee, ODD);
   CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
   CHECK(same_bytes(b.map, want, SIZE, "65536-byte update"), "vkCmdUpdateBuffer of 65536 bytes");
   uint8_t odd_want[ODD];
   memset(odd_want, 0xee, ODD);
   ref_fill(odd_want, 8, 1020, 0x12345678);
   CHECK(same_bytes(odd.map, odd_want, ODD, "whole-size fill"), "fill with VK_WHOLE_SIZE");

   /* The byte-uniform values too, at offset 0, then a sized fill. */
   static const uint32_t values[3] = { 0xffffffffu, 0, 0x00ff00ffu };
   for (int i = 0; i < 3; i++) {
      CHECK_EQ_INT(vkResetCommandBuffer(cb, 0), VK_SUCCESS);
      cb_begin(cb, 0);
      vkCmdFillBuffer(cb, odd.buffer, 0, VK_WHOLE_SIZE, values[i]);
      vkCmdFillBuffer(cb, odd.buffer, 100, 8, 0xa5a5a5a5u);
      CHECK_EQ_INT(vkEndCommandBuffer(cb), VK_SUCCESS);
      memset(odd.map, 0x77, ODD);
      CHECK_EQ_INT(run(t, 1, &cb), VK_SUCCESS);
      memset(odd_want, 0x77, ODD);
      ref_fill(odd_want, 0, 1028, values[i]);
      ref_fill(odd_want, 100, 8, 0xa5a5a5a5u);
      CHECK(same_bytes(odd.map, odd_want, ODD, "whole-size fill"), "fill value %#x", values[i]);
   }
   vkFreeCommandBuffers(t->device, t->pool, 1, &cb);
   vkt_buffer_destroy(t, &b);
   vkt_buffer_destroy(t, &odd);
}

int
main(int argc, char **argv)
{
   driver = argc > 1 && strcmp(argv[1], "lavapipe") == 0 ? VKT_LAVAPIPE : VKT_SHALE;
   struct vkt t;
   struct vkt_options opts = { .driver = driver };
   if (!vkt_init(&t, &opts)) {
      CHECK(false, "no %s device", vkt_driver_name(driver));
      return check_finish();
   }
   /* With VK_KHR_maintenance1 listed, a device with it (for trimming). */
   if (vkt_has_device_extension(t.pdev, VK_KHR_MAINTENANCE_1_EXTENSION_NAME)) {
      static const char *const exts[] = { VK_KHR_MAINTENANCE_1_EXTENSION_NAME };
      vkt_finish(&t);
      opts.device_extensions = exts;
      opts.device_extension_count = 1;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "no %s device with VK_KHR_maintenance1", vkt_driver_name(driver));
         return check_finish();
      }
      trim_pool = (PFN_vkTrimCommandPoolKHR)vkGetDeviceProcAddr(t.device, "vkTrimCommandPoolKHR");
      CHECK(trim_pool != NULL, "vkTrimCommandPoolKHR");
   } else {
      fprintf(stderr, "note: VK_KHR_maintenance1 not listed: vkTrimCommandPool not tested\n");
   }
   test_secondary(&t);
   test_reset(&t);
   test_simultaneous(&t);
   test_many(&t);
   test_thousands(&t);
   test_pool_memory(&t);
   test_free_null(&t);
   test_update_fill(&t);
   vkt_finish(&t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
