/* Query pools through the loader: occlusion and timestamp queries, every
 * result-flag combination (host read-back and vkCmdCopyQueryPoolResults),
 * WAIT blocking on a later submission, host reset; the same sequences run on
 * lavapipe and both drivers must agree on everything the spec defines. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "vkt.h"

#define SENTINEL 0xA5
#define OBS_MAX 8192
#define NO_VALUE UINT64_MAX

/* Host CLOCK_MONOTONIC in nanoseconds. Shale's timestamps are this same
 * clock (timestampPeriod 1.0): a timestamp written by a submission lies
 * between a host reading taken before vkQueueSubmit and one taken after the
 * wait. Checked for Shale only; the spec does not tie lavapipe's clock to
 * the host's. */
static uint64_t
host_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct ctx {
   struct vkt t;
   const char *name;
   /* Shale: also check what Shale promises where the spec leaves a choice
    * (unavailable results untouched, 32-bit timestamps wrap, one clock with
    * the host, timestamps non-decreasing across submissions). */
   bool strict;
   /* What the spec defines, in order, for the cross-driver comparison. */
   uint64_t obs[OBS_MAX];
   const char *obs_what[OBS_MAX];
   unsigned n_obs;
   unsigned n_obs_core;     /* observations before the host-reset part */
   bool host_reset_ran;
};

static void
obs(struct ctx *c, const char *what, uint64_t v)
{
   if (c->n_obs < OBS_MAX) {
      c->obs_what[c->n_obs] = what;
      c->obs[c->n_obs++] = v;
   }
}

/* The expected state of one query, known to the test. */
struct qexp {
   bool avail;
   uint64_t value;   /* final value when available; the count so far otherwise */
};

static bool
all_sentinel(const uint8_t *p, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      if (p[i] != SENTINEL)
         return false;
   }
   return true;
}

static uint64_t
load_word(const uint8_t *p, size_t word)
{
   if (word == 8) {
      uint64_t v;
      memcpy(&v, p, 8);
      return v;
   }
   uint32_t v;
   memcpy(&v, p, 4);
   return v;
}

static size_t
word_size(VkQueryResultFlags flags)
{
   return (flags & VK_QUERY_RESULT_64_BIT) ? 8 : 4;
}

static size_t
result_size(VkQueryResultFlags flags)
{
   return word_size(flags) * ((flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) ? 2 : 1);
}

static uint64_t
sat32(uint64_t v)
{
   return v > UINT32_MAX ? UINT32_MAX : v;
}

/* Checks results written at `buf` (`size` bytes up to where the sentinel
 * fill ends) for `count` queries against `exp`, per the memory layout of
 * the spec: per query the value (when available or PARTIAL), then the
 * availability word; nothing written in a stride's padding or past the end.
 * The value of an unavailable query is undefined without PARTIAL; with
 * PARTIAL it lies between 0 and the final count, which for a query reset and
 * never begun is undefined too. Shale writes nothing in the first case and
 * the count so far (0) in the second; lavapipe is only held to the
 * availability word there (its copies zero the whole stride of a query never
 * begun, and skip PARTIAL values). */
static void
check_results(struct ctx *c, const char *what, VkQueryType type, const uint8_t *buf, size_t size,
              uint32_t count, VkDeviceSize stride, VkQueryResultFlags flags,
              const struct qexp *exp)
{
   size_t word = word_size(flags), rsize = result_size(flags);
   for (uint32_t i = 0; i < count; i++) {
      const uint8_t *r = buf + i * stride;
      bool defined = exp[i].avail || (c->strict && (flags & VK_QUERY_RESULT_PARTIAL_BIT));
      if (defined) {
         uint64_t got = load_word(r, word);
         bool ok;
         if (word == 8)
            ok = got == exp[i].value;
         else if (type == VK_QUERY_TYPE_TIMESTAMP)
            /* 32-bit overflow may wrap or saturate; Shale wraps. */
            ok = got == (uint32_t)exp[i].value || (!c->strict && got == sat32(exp[i].value));
         else
            /* Occlusion: Shale saturates (the spec allows wrapping too). */
            ok = got == sat32(exp[i].value) || (!c->strict && got == (uint32_t)exp[i].value);
         CHECK(ok, "[%s] %s: query %u value %llu, expected %llu (flags 0x%x, stride %llu)",
               c->name, what, i, (unsigned long long)got, (unsigned long long)exp[i].value,
               flags, (unsigned long long)stride);
         if (type == VK_QUERY_TYPE_OCCLUSION && exp[i].avail)
            obs(c, what, got);
      } else if (c->strict) {
         CHECK(all_sentinel(r, word),
               "[%s] %s: query %u is unavailable, yet its value was written (flags 0x%x)",
               c->name, what, i, flags);
      }
      if (flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) {
         uint64_t a = load_word(r + word, word);
         CHECK((a != 0) == exp[i].avail, "[%s] %s: query %u availability %llu, expected %s "
               "(flags 0x%x, stride %llu)", c->name, what, i, (unsigned long long)a,
               exp[i].avail ? "nonzero" : "0", flags, (unsigned long long)stride);
         obs(c, what, a != 0);
      }
      if (i + 1 < count && stride > rsize && (c->strict || exp[i].avail))
         CHECK(all_sentinel(r + rsize, stride - rsize),
               "[%s] %s: query %u: bytes between results written (flags 0x%x, stride %llu)",
               c->name, what, i, flags, (unsigned long long)stride);
   }
   size_t end = (count - 1) * stride + rsize;
   if (c->strict || exp[count - 1].avail)
      CHECK(all_sentinel(buf + end, size - end), "[%s] %s: bytes past the last result written "
         "(flags 0x%x, stride %llu)", c->name, what, flags, (unsigned long long)stride);
}

static bool
any_unavailable(const struct qexp *exp, uint32_t count)
{
   for (uint32_t i = 0; i < count; i++) {
      if (!exp[i].avail)
         return true;
   }
   return false;
}

/* vkGetQueryPoolResults of [first, first + count) with exactly the data
 * size the layout needs, checked against exp[first...]. */
static void
get_and_check(struct ctx *c, const char *what, VkQueryPool pool, VkQueryType type,
              uint32_t first, uint32_t count, VkDeviceSize stride, VkQueryResultFlags flags,
              const struct qexp *exp)
{
   uint8_t buf[512];
   size_t data_size = (count - 1) * stride + result_size(flags);
   if (data_size + 32 > sizeof(buf)) {
      CHECK(0, "test bug: buffer too small");
      return;
   }
   memset(buf, SENTINEL, sizeof(buf));
   VkResult r = vkGetQueryPoolResults(c->t.device, pool, first, count, data_size, buf, stride,
                                      flags);
   VkResult want = !(flags & VK_QUERY_RESULT_WAIT_BIT) && any_unavailable(exp + first, count)
                      ? VK_NOT_READY : VK_SUCCESS;
   /* The spec says "may return VK_NOT_READY" when a query is unavailable:
    * Shale always does; lavapipe does unless PARTIAL is set. */
   bool ok = r == want || (!c->strict && (flags & VK_QUERY_RESULT_PARTIAL_BIT) &&
                           want == VK_NOT_READY && r == VK_SUCCESS);
   CHECK(ok, "[%s] %s: vkGetQueryPoolResults(first %u, count %u, flags 0x%x) = %d, "
         "expected %d", c->name, what, first, count, flags, r, want);
   if (!(flags & VK_QUERY_RESULT_PARTIAL_BIT))
      obs(c, what, (uint64_t)r);
   check_results(c, what, type, buf, sizeof(buf), count, stride, flags, exp + first);
}

/* vkCmdCopyQueryPoolResults of [first, first + count) into dst at `offset`,
 * in a submission of its own, checked like get_and_check. */
static void
copy_and_check(struct ctx *c, const char *what, VkQueryPool pool, VkQueryType type,
               uint32_t first, uint32_t count, VkDeviceSize offset, VkDeviceSize stride,
               VkQueryResultFlags flags, const struct qexp *exp, struct vkt_buffer *dst)
{
   memset(dst->map, SENTINEL, dst->size);
   VkCommandBuffer cb = vkt_begin(&c->t);
   vkCmdCopyQueryPoolResults(cb, pool, first, count, dst->buffer, offset, stride, flags);
   VkResult r = vkt_submit_wait(&c->t, cb);
   CHECK(r == VK_SUCCESS, "[%s] %s: copy submission %d", c->name, what, r);
   const uint8_t *map = dst->map;
   CHECK(all_sentinel(map, offset), "[%s] %s: bytes before dstOffset written", c->name, what);
   check_results(c, what, type, map + offset, dst->size - offset, count, stride, flags,
                 exp + first);
}

struct range {
   uint32_t first, count;
};

/* Every flag combination the spec allows for `type` (PARTIAL is invalid for
 * timestamps; WAIT only where every query is available, or it would never
 * return), on each range, with a tight and a padded stride, read back on
 * the host and copied at two buffer offsets. */
static void
flag_matrix(struct ctx *c, const char *what_host, const char *what_copy, VkQueryPool pool,
            VkQueryType type,
            const struct qexp *exp, const struct range *ranges, unsigned n_ranges,
            struct vkt_buffer *dst)
{
   for (VkQueryResultFlags flags = 0; flags < 16; flags++) {
      if ((flags & VK_QUERY_RESULT_PARTIAL_BIT) && type == VK_QUERY_TYPE_TIMESTAMP)
         continue;
      for (unsigned r = 0; r < n_ranges; r++) {
         const struct range *rg = &ranges[r];
         if ((flags & VK_QUERY_RESULT_WAIT_BIT) && any_unavailable(exp + rg->first, rg->count))
            continue;
         for (unsigned s = 0; s < 2; s++) {
            VkDeviceSize stride = result_size(flags) + 8 * s;
            get_and_check(c, what_host, pool, type, rg->first, rg->count, stride, flags, exp);
            for (VkDeviceSize offset = 0; offset <= 8; offset += 8)
               copy_and_check(c, what_copy, pool, type, rg->first, rg->count, offset, stride, flags,
                              exp, dst);
         }
      }
   }
}

static VkQueryPool
create_pool(struct ctx *c, VkQueryType type, uint32_t count)
{
   VkQueryPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = type,
      .queryCount = count,
   };
   VkQueryPool pool = VK_NULL_HANDLE;
   VkResult r = vkCreateQueryPool(c->t.device, &info, NULL, &pool);
   CHECK(r == VK_SUCCESS, "[%s] vkCreateQueryPool(type %d, %u) = %d", c->name, type, count, r);
   return pool;
}

/* Reads [0, count) with 64-bit values and availability, without waiting:
 * the test's own view of each query, whose availability must match what the
 * test knows. */
static void
read_state(struct ctx *c, const char *what, VkQueryPool pool, uint32_t count,
           const bool *want_avail, struct qexp *out)
{
   uint64_t data[2 * 16];
   VkQueryResultFlags flags = VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT;
   VkResult r = vkGetQueryPoolResults(c->t.device, pool, 0, count, sizeof(data), data,
                                      2 * sizeof(uint64_t), flags);
   bool all = true;
   for (uint32_t i = 0; i < count; i++) {
      out[i].avail = data[2 * i + 1] != 0;
      out[i].value = out[i].avail ? data[2 * i] : 0;
      CHECK(out[i].avail == want_avail[i], "[%s] %s: query %u availability %d, expected %d",
            c->name, what, i, out[i].avail, want_avail[i]);
      obs(c, what, out[i].avail);
      all = all && want_avail[i];
   }
   CHECK(r == (all ? VK_SUCCESS : VK_NOT_READY), "[%s] %s: read = %d", c->name, what, r);
   obs(c, what, (uint64_t)r);
}

static void
write_timestamp_secondary(struct ctx *c, VkCommandBuffer primary, VkQueryPool pool, uint32_t q)
{
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = c->t.pool,
      .level = VK_COMMAND_BUFFER_LEVEL_SECONDARY,
      .commandBufferCount = 1,
   };
   VkCommandBuffer sec;
   CHECK(vkAllocateCommandBuffers(c->t.device, &ai, &sec) == VK_SUCCESS, "secondary");
   VkCommandBufferInheritanceInfo inh = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO,
   };
   VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
      .pInheritanceInfo = &inh,
   };
   vkBeginCommandBuffer(sec, &bi);
   vkCmdWriteTimestamp(sec, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, pool, q);
   vkEndCommandBuffer(sec);
   vkCmdExecuteCommands(primary, 1, &sec);
   /* Freed with the pool (vkt_finish); it stays valid while pending. */
}

/* ---- timestamps ---- */

#define TS_COUNT 6

static void
test_timestamps(struct ctx *c, struct vkt_buffer *dst)
{
   VkQueryPool pool = create_pool(c, VK_QUERY_TYPE_TIMESTAMP, TS_COUNT);
   uint32_t valid_bits = 0;
   {
      uint32_t n = 1;
      VkQueueFamilyProperties qf;
      vkGetPhysicalDeviceQueueFamilyProperties(c->t.pdev, &n, &qf);
      valid_bits = qf.timestampValidBits;
      CHECK(valid_bits > 0, "[%s] timestampValidBits 0", c->name);
      if (c->strict) {
         CHECK_EQ_INT(valid_bits, 64);
         CHECK(c->t.props.limits.timestampPeriod == 1.0f, "timestampPeriod %f",
               c->t.props.limits.timestampPeriod);
      }
   }

   /* Submission 1: q0, q1 in the primary, q2 in a secondary; submission 2: q3.
    * q4 and q5 are reset and never written. */
   uint64_t t0 = host_now_ns();
   VkCommandBuffer cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 0, TS_COUNT);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, pool, 0);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
   write_timestamp_secondary(c, cb, pool, 2);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "submit 1");
   uint64_t t1 = host_now_ns();
   cb = vkt_begin(&c->t);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, pool, 3);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "submit 2");
   uint64_t t2 = host_now_ns();

   static const bool want[TS_COUNT] = { true, true, true, true, false, false };
   struct qexp exp[TS_COUNT];
   read_state(c, "timestamps", pool, TS_COUNT, want, exp);

   /* The same queries through a 64-bit WAIT read must give the same values. */
   uint64_t waited[4];
   VkResult r = vkGetQueryPoolResults(c->t.device, pool, 0, 4, sizeof(waited), waited, 8,
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   CHECK(r == VK_SUCCESS, "[%s] WAIT read %d", c->name, r);
   for (int i = 0; i < 4; i++)
      CHECK(waited[i] == exp[i].value, "[%s] q%d: %llu vs %llu", c->name, i,
            (unsigned long long)waited[i], (unsigned long long)exp[i].value);

   if (valid_bits < 64) {
      for (int i = 0; i < 4; i++)
         CHECK(exp[i].value >> valid_bits == 0, "[%s] q%d has bits above timestampValidBits",
               c->name, i);
   }
   /* Within one submission, later timestamps are not lower (spec). */
   CHECK(exp[0].value <= exp[1].value && exp[1].value <= exp[2].value,
         "[%s] timestamps decrease within a submission: %llu %llu %llu", c->name,
         (unsigned long long)exp[0].value, (unsigned long long)exp[1].value,
         (unsigned long long)exp[2].value);
   obs(c, "timestamps ordered", exp[0].value <= exp[1].value && exp[1].value <= exp[2].value);
   if (c->strict) {
      /* Across submissions (Shale: one monotonic clock), and the host's clock. */
      CHECK(exp[2].value <= exp[3].value, "timestamps decrease across submissions: %llu %llu",
            (unsigned long long)exp[2].value, (unsigned long long)exp[3].value);
      CHECK(t0 <= exp[0].value && exp[2].value <= t1,
            "submission 1 timestamps %llu..%llu outside host [%llu, %llu]",
            (unsigned long long)exp[0].value, (unsigned long long)exp[2].value,
            (unsigned long long)t0, (unsigned long long)t1);
      CHECK(t1 <= exp[3].value && exp[3].value <= t2,
            "submission 2 timestamp %llu outside host [%llu, %llu]",
            (unsigned long long)exp[3].value, (unsigned long long)t1, (unsigned long long)t2);
   }

   static const struct range ranges[] = { { 0, TS_COUNT }, { 1, 3 }, { 3, 3 }, { 5, 1 } };
   flag_matrix(c, "timestamp matrix (host)", "timestamp matrix (copy)", pool,
               VK_QUERY_TYPE_TIMESTAMP, exp, ranges, 4, dst);

   /* One command buffer: write q4 then copy it with WAIT (sees it available);
    * reset q5 then copy it (sees it unavailable: the reset happens-before). */
   memset(dst->map, SENTINEL, dst->size);
   cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 4, 2);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 4);
   vkCmdCopyQueryPoolResults(cb, pool, 4, 1, dst->buffer, 0, 16,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT |
                                VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
   vkCmdCopyQueryPoolResults(cb, pool, 5, 1, dst->buffer, 16, 16,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "submit 3");
   static const bool want2[TS_COUNT] = { true, true, true, true, true, false };
   read_state(c, "timestamps after q4", pool, TS_COUNT, want2, exp);
   const uint64_t *m = dst->map;
   CHECK(m[0] == exp[4].value && m[1] != 0, "[%s] same-cb WAIT copy: %llu avail %llu, want %llu",
         c->name, (unsigned long long)m[0], (unsigned long long)m[1],
         (unsigned long long)exp[4].value);
   CHECK(m[3] == 0, "[%s] copy after reset: availability %llu", c->name, (unsigned long long)m[3]);
   obs(c, "same-cb copy availability", (m[1] != 0) | (m[3] != 0) << 1);
   if (c->strict)
      CHECK(m[2] == 0xA5A5A5A5A5A5A5A5ull, "unavailable q5 value was copied");

   /* Reset an available query again: it is unavailable (NOT_READY). */
   cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 0, 1);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "submit 4");
   static const bool want3[TS_COUNT] = { false, true, true, true, true, false };
   read_state(c, "timestamps after re-reset", pool, TS_COUNT, want3, exp);
   get_and_check(c, "re-reset q0", pool, VK_QUERY_TYPE_TIMESTAMP, 0, 1, 4, 0, exp);

   vkDestroyQueryPool(c->t.device, pool, NULL);
}

/* ---- occlusion ---- */

#define OCC_COUNT 5

static void
test_occlusion(struct ctx *c, struct vkt_buffer *dst)
{
   VkQueryPool pool = create_pool(c, VK_QUERY_TYPE_OCCLUSION, OCC_COUNT);
   /* q0, q1, q3 begin and end with no draw in between (0 samples); q2, q4 are
    * reset only. */
   VkCommandBuffer cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 0, OCC_COUNT);
   vkCmdBeginQuery(cb, pool, 0, 0);
   vkCmdEndQuery(cb, pool, 0);
   vkCmdBeginQuery(cb, pool, 1, 0);
   vkCmdEndQuery(cb, pool, 1);
   vkCmdBeginQuery(cb, pool, 3, 0);
   vkCmdEndQuery(cb, pool, 3);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "occlusion submit");

   static const bool want[OCC_COUNT] = { true, true, false, true, false };
   struct qexp exp[OCC_COUNT];
   read_state(c, "occlusion", pool, OCC_COUNT, want, exp);
   for (int i = 0; i < OCC_COUNT; i++) {
      CHECK(exp[i].value == 0, "[%s] occlusion q%d with no draws = %llu", c->name, i,
            (unsigned long long)exp[i].value);
      exp[i].value = 0;   /* no draws: the count so far (PARTIAL) and final are 0 */
   }
   static const struct range ranges[] = { { 0, OCC_COUNT }, { 0, 2 }, { 1, 3 }, { 3, 1 } };
   flag_matrix(c, "occlusion matrix (host)", "occlusion matrix (copy)", pool,
               VK_QUERY_TYPE_OCCLUSION, exp, ranges, 4, dst);
   vkDestroyQueryPool(c->t.device, pool, NULL);
}

/* ---- WAIT blocks until a later submission completes ---- */

struct setter {
   VkDevice device;
   VkEvent event;
   uint64_t set_at;
};

static void *
set_event_later(void *arg)
{
   struct setter *s = arg;
   usleep(150 * 1000);
   s->set_at = host_now_ns();
   vkSetEvent(s->device, s->event);
   return NULL;
}

static void
test_wait(struct ctx *c)
{
   VkQueryPool pool = create_pool(c, VK_QUERY_TYPE_TIMESTAMP, 1);
   VkCommandBuffer cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 0, 1);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "reset submit");

   VkEventCreateInfo eci = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
   VkEvent event;
   CHECK(vkCreateEvent(c->t.device, &eci, NULL, &event) == VK_SUCCESS, "event");
   VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   VkFence fence;
   CHECK(vkCreateFence(c->t.device, &fci, NULL, &fence) == VK_SUCCESS, "fence");

   cb = vkt_begin(&c->t);
   vkCmdWaitEvents(cb, 1, &event, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                   0, NULL, 0, NULL, 0, NULL);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, pool, 0);
   vkEndCommandBuffer(cb);
   VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
   };
   CHECK(vkQueueSubmit(c->t.queue, 1, &si, fence) == VK_SUCCESS, "submit");

   /* The event is not set yet, so the timestamp cannot have been written.
    * Shale only: lavapipe's vkGetQueryPoolResults first waits for the device
    * to go idle, which here waits for the event: it would never return. */
   VkResult r;
   if (c->strict) {
      uint64_t v[2] = { 0, 0 };
      r = vkGetQueryPoolResults(c->t.device, pool, 0, 1, 16, v, 16,
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
      CHECK(r == VK_NOT_READY && v[1] == 0, "[%s] before the event: %d, availability %llu",
            c->name, r, (unsigned long long)v[1]);
   }

   struct setter s = { c->t.device, event, 0 };
   pthread_t thread;
   CHECK(pthread_create(&thread, NULL, set_event_later, &s) == 0, "thread");
   uint64_t value = 0, called_at = host_now_ns();
   r = vkGetQueryPoolResults(c->t.device, pool, 0, 1, sizeof(value), &value, 8,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   uint64_t returned_at = host_now_ns();
   pthread_join(thread, NULL);
   CHECK(r == VK_SUCCESS, "[%s] WAIT read = %d", c->name, r);
   obs(c, "wait: WAIT read", (uint64_t)r);
   CHECK(returned_at >= s.set_at, "[%s] WAIT returned before the event was set", c->name);
   CHECK(returned_at - called_at >= 100 * 1000000ull, "[%s] WAIT returned after %llu ns",
         c->name, (unsigned long long)(returned_at - called_at));
   if (c->strict)
      CHECK(value >= s.set_at && value <= returned_at,
            "timestamp %llu not between the event set (%llu) and the return (%llu)",
            (unsigned long long)value, (unsigned long long)s.set_at,
            (unsigned long long)returned_at);
   CHECK(vkWaitForFences(c->t.device, 1, &fence, VK_TRUE, UINT64_MAX) == VK_SUCCESS, "fence");

   vkFreeCommandBuffers(c->t.device, c->t.pool, 1, &cb);
   vkDestroyFence(c->t.device, fence, NULL);
   vkDestroyEvent(c->t.device, event, NULL);
   vkDestroyQueryPool(c->t.device, pool, NULL);
}

/* ---- host reset (VK_EXT_host_query_reset) ---- */

static void
test_host_reset(struct ctx *c)
{
   if (!vkt_has_device_extension(c->t.pdev, VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME)) {
      fprintf(stderr, "SKIP host reset part on %s: %s not exposed\n", c->name,
              VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME);
      return;
   }
   /* A device of its own, with the extension and hostQueryReset enabled. */
   struct ctx *h = calloc(1, sizeof(*h));
   h->name = c->name;
   h->strict = c->strict;
   const char *ext = VK_EXT_HOST_QUERY_RESET_EXTENSION_NAME;
   const char *inst_ext = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;
   VkPhysicalDeviceHostQueryResetFeaturesEXT feat = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_HOST_QUERY_RESET_FEATURES_EXT,
      .hostQueryReset = VK_TRUE,
   };
   struct vkt_options opts = {
      .driver = c->t.driver,
      .instance_extensions = &inst_ext,   /* VK_EXT_host_query_reset requires it */
      .instance_extension_count = 1,
      .device_extensions = &ext,
      .device_extension_count = 1,
      .device_pnext = &feat,
   };
   if (!vkt_init(&h->t, &opts)) {
      CHECK(0, "[%s] device with %s and hostQueryReset", c->name, ext);
      free(h);
      return;
   }
   PFN_vkResetQueryPoolEXT reset =
      (PFN_vkResetQueryPoolEXT)vkGetDeviceProcAddr(h->t.device, "vkResetQueryPoolEXT");
   CHECK(reset != NULL, "[%s] vkResetQueryPoolEXT missing", c->name);
   if (reset) {
      VkQueryPool ts = create_pool(h, VK_QUERY_TYPE_TIMESTAMP, 3);
      VkQueryPool occ = create_pool(h, VK_QUERY_TYPE_OCCLUSION, 2);
      /* Reset on the host before first use, instead of vkCmdResetQueryPool. */
      reset(h->t.device, ts, 0, 3);
      reset(h->t.device, occ, 0, 2);
      struct qexp exp[3];
      static const bool none[3] = { false, false, false };
      read_state(h, "host reset: fresh", ts, 3, none, exp);

      VkCommandBuffer cb = vkt_begin(&h->t);
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts, 0);
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts, 1);
      vkCmdBeginQuery(cb, occ, 0, 0);
      vkCmdEndQuery(cb, occ, 0);
      CHECK(vkt_submit_wait(&h->t, cb) == VK_SUCCESS, "host reset submit 1");
      static const bool two[3] = { true, true, false };
      read_state(h, "host reset: written", ts, 3, two, exp);
      static const bool occ_want[2] = { true, false };
      struct qexp oexp[2];
      read_state(h, "host reset: occlusion", occ, 2, occ_want, oexp);
      CHECK(oexp[0].value == 0, "[%s] occlusion with no draws %llu", c->name,
            (unsigned long long)oexp[0].value);

      /* Host reset of an available query makes it unavailable. */
      reset(h->t.device, ts, 1, 1);
      static const bool one[3] = { true, false, false };
      read_state(h, "host reset: q1 reset", ts, 3, one, exp);
      get_and_check(h, "host reset: q1 alone", ts, VK_QUERY_TYPE_TIMESTAMP, 1, 1, 4, 0, exp);

      /* And it can be written again. */
      cb = vkt_begin(&h->t);
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts, 1);
      CHECK(vkt_submit_wait(&h->t, cb) == VK_SUCCESS, "host reset submit 2");
      read_state(h, "host reset: rewritten", ts, 3, two, exp);
      if (h->strict)
         CHECK(exp[0].value <= exp[1].value, "timestamps decrease across submissions");
      vkDestroyQueryPool(h->t.device, ts, NULL);
      vkDestroyQueryPool(h->t.device, occ, NULL);
   }
   vkt_finish(&h->t);
   for (unsigned i = 0; i < h->n_obs; i++)
      obs(c, h->obs_what[i], h->obs[i]);
   c->host_reset_ran = true;
   free(h);
}

/* ---- one driver ---- */

static bool
run_driver(struct ctx *c, enum vkt_driver driver)
{
   struct vkt_options opts = { .driver = driver };
   c->name = vkt_driver_name(driver);
   c->strict = driver == VKT_SHALE;
   if (!vkt_init(&c->t, &opts))
      return false;
   struct vkt_buffer dst;
   CHECK(vkt_buffer_create(&c->t, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &dst) == VK_SUCCESS,
         "[%s] buffer", c->name);
   test_timestamps(c, &dst);
   test_occlusion(c, &dst);
   test_wait(c);
   vkt_buffer_destroy(&c->t, &dst);
   c->n_obs_core = c->n_obs;
   test_host_reset(c);
   vkt_finish(&c->t);
   return true;
}

/* Query types of extensions Shale does not offer (primitives generated):
 * creating such a pool is invalid usage, so this runs without the
 * validation layer and only asks that Shale refuse it. */
static void
test_unsupported_type(void)
{
   struct vkt t;
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale without validation");
      return;
   }
   VkPhysicalDeviceFeatures f;
   vkGetPhysicalDeviceFeatures(t.pdev, &f);
   /* occlusionQueryPrecise is claimed and held by render/passes,
    * pipelineStatisticsQuery by render/pstats. */
   CHECK(f.pipelineStatisticsQuery, "shale: pipelineStatisticsQuery (render/pstats)");
   CHECK(!vkt_has_device_extension(t.pdev, "VK_EXT_primitives_generated_query"),
         "shale offers VK_EXT_primitives_generated_query: test it");
   VkQueryPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_PRIMITIVES_GENERATED_EXT,
      .queryCount = 1,
   };
   VkQueryPool pool = VK_NULL_HANDLE;
   VkResult r = vkCreateQueryPool(t.device, &info, NULL, &pool);
   CHECK(r < 0, "primitives generated pool created (%d)", r);
   if (r == VK_SUCCESS)
      vkDestroyQueryPool(t.device, pool, NULL);
   vkt_finish(&t);
}

/* A copy with WAIT of a query that nothing will make available can never
 * finish: Shale loses the device (the spec allows it, and newer versions of
 * the spec make such a copy invalid usage, hence no validation layer here).
 * Then a host WAIT on an unavailable query must return
 * VK_ERROR_DEVICE_LOST instead of blocking forever. Shale only. */
static void
test_device_lost(void)
{
   struct ctx *c = calloc(1, sizeof(*c));
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   c->name = "shale";
   if (!vkt_init(&c->t, &opts)) {
      CHECK(0, "shale without validation");
      free(c);
      return;
   }
   VkQueryPool pool = create_pool(c, VK_QUERY_TYPE_TIMESTAMP, 2);
   struct vkt_buffer dst;
   CHECK(vkt_buffer_create(&c->t, 64, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &dst) == VK_SUCCESS,
         "buffer");
   VkCommandBuffer cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 0, 2);
   vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 1);
   vkCmdCopyQueryPoolResults(cb, pool, 0, 1, dst.buffer, 0, 8,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   VkResult r = vkt_submit_wait(&c->t, cb);
   CHECK(r == VK_ERROR_DEVICE_LOST, "copy with WAIT of a never-written query: %d", r);
   uint64_t v = 0;
   r = vkGetQueryPoolResults(c->t.device, pool, 0, 1, sizeof(v), &v, 8,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   CHECK(r == VK_ERROR_DEVICE_LOST, "WAIT read on a lost device: %d", r);
   vkt_buffer_destroy(&c->t, &dst);
   vkDestroyQueryPool(c->t.device, pool, NULL);
   vkt_finish(&c->t);
   free(c);
}

/* A host read with WAIT of a query that was reset and that nothing will
 * write (the queue idle, nothing pending) returns VK_ERROR_DEVICE_LOST
 * after a bounded wait (about 2 s) instead of blocking for ever, like the
 * device-side copy above: the spec allows device loss for such a wait; the
 * device is lost for later calls too. A submission arriving during the wait
 * would still have made it available (test_wait). Shale only; no validation
 * layer (device loss). The read runs on a thread so that a hang fails the
 * test instead of stalling it. */
struct never_read {
   VkDevice device;
   VkQueryPool pool;
   VkResult result;
   uint64_t took_ns;
};

static void *
never_read_main(void *arg)
{
   struct never_read *n = arg;
   uint64_t v = 0, t0 = host_now_ns();
   n->result = vkGetQueryPoolResults(n->device, n->pool, 0, 1, sizeof(v), &v, 8,
                                     VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
   n->took_ns = host_now_ns() - t0;
   return NULL;
}

static void
test_wait_never_written(void)
{
   struct ctx *c = calloc(1, sizeof(*c));
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   c->name = "shale";
   if (!vkt_init(&c->t, &opts)) {
      CHECK(0, "shale without validation");
      free(c);
      return;
   }
   VkQueryPool pool = create_pool(c, VK_QUERY_TYPE_TIMESTAMP, 1);
   VkCommandBuffer cb = vkt_begin(&c->t);
   vkCmdResetQueryPool(cb, pool, 0, 1);
   CHECK(vkt_submit_wait(&c->t, cb) == VK_SUCCESS, "reset submit");
   struct never_read n = { c->t.device, pool, VK_SUCCESS, 0 };
   pthread_t thread;
   CHECK(pthread_create(&thread, NULL, never_read_main, &n) == 0, "thread");
   struct timespec deadline;
   clock_gettime(CLOCK_REALTIME, &deadline);
   deadline.tv_sec += 20;
   if (pthread_timedjoin_np(thread, NULL, &deadline) != 0) {
      CHECK(0, "WAIT read of a query nothing will write still blocked after 20 s");
      exit(check_finish());   /* the device cannot be destroyed under the reader */
   }
   CHECK(n.result == VK_ERROR_DEVICE_LOST, "WAIT read of a query nothing will write: %d",
         n.result);
   CHECK(n.took_ns >= 1000000000ull && n.took_ns < 10000000000ull,
         "WAIT read gave up after %.2f s", n.took_ns / 1e9);
   uint64_t v = 0;
   VkResult r = vkGetQueryPoolResults(c->t.device, pool, 0, 1, sizeof(v), &v, 8,
                                      VK_QUERY_RESULT_64_BIT);
   CHECK(r == VK_ERROR_DEVICE_LOST, "read after the loss: %d", r);
   CHECK(vkDeviceWaitIdle(c->t.device) == VK_ERROR_DEVICE_LOST, "the device is lost");
   vkDestroyQueryPool(c->t.device, pool, NULL);
   vkt_finish(&c->t);
   free(c);
}

static struct ctx shale, lvp;

int
main(void)
{
   if (!run_driver(&shale, VKT_SHALE)) {
      CHECK(0, "shale device not available");
      return check_finish();
   }
   test_unsupported_type();
   test_device_lost();
   test_wait_never_written();

   if (!run_driver(&lvp, VKT_LAVAPIPE)) {
      fprintf(stderr, "note: lavapipe not available, no cross-driver comparison\n");
   } else {
      unsigned n = shale.n_obs, m = lvp.n_obs;
      if (!shale.host_reset_ran || !lvp.host_reset_ran) {
         n = shale.n_obs_core;
         m = lvp.n_obs_core;
         fprintf(stderr, "note: host reset part compared only where both drivers ran it\n");
      }
      CHECK(n == m, "observation counts differ: shale %u, lavapipe %u", n, m);
      unsigned diffs = 0;
      for (unsigned i = 0; i < n && i < m; i++) {
         if (shale.obs[i] != lvp.obs[i] && diffs++ < 20)
            CHECK(0, "observation %u (%s): shale %llu, lavapipe %llu (%s)", i, shale.obs_what[i],
                  (unsigned long long)shale.obs[i], (unsigned long long)lvp.obs[i],
                  lvp.obs_what[i]);
      }
      CHECK(diffs == 0, "%u observations differ", diffs);
      fprintf(stderr, "compared %u observations with lavapipe\n", n < m ? n : m);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
