/* VkQueryPool: occlusion, timestamp, pipeline statistics and transform feedback queries,
 * their commands and result read-back. */
#include "sd_query.h"

#include <string.h>

#include "sd_alloc.h"
#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_queue.h"
#include "sd_util.h"
#include "util/su_log.h"

/* How long a host read with WAIT waits for a query while the queue is idle
 * (nothing submitted can make it available, but another thread may still
 * submit the work that does) before it gives up and loses the device. */
#define SD_QUERY_IDLE_WAIT_NS 2000000000ull

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateQueryPool(VkDevice _device, const VkQueryPoolCreateInfo *pCreateInfo,
                   const VkAllocationCallbacks *pAllocator, VkQueryPool *pQueryPool)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   uint32_t stat_count = 0;
   switch (pCreateInfo->queryType) {
   case VK_QUERY_TYPE_OCCLUSION:
   case VK_QUERY_TYPE_TIMESTAMP:
   case VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT:
      break;
   case VK_QUERY_TYPE_PIPELINE_STATISTICS:
      stat_count = (uint32_t)__builtin_popcount(pCreateInfo->pipelineStatistics &
                                                SD_QUERY_STATISTICS_ALL);
      break;
   default:
      /* Every other type needs an extension: none is claimed, so this is
       * invalid usage. */
      return sd_errorf(VK_ERROR_FEATURE_NOT_PRESENT, "unsupported query type");
   }
   size_t size = sizeof(struct sd_query_pool) +
                 (size_t)pCreateInfo->queryCount * sizeof(struct sd_query) +
                 (size_t)pCreateInfo->queryCount * stat_count * sizeof(uint64_t);
   struct sd_query_pool *pool = sd_device_object_alloc(device, pAllocator, size,
                                                       VK_OBJECT_TYPE_QUERY_POOL);
   if (!pool)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   pool->type = pCreateInfo->queryType;
   pool->count = pCreateInfo->queryCount;
   pool->statistics = stat_count ? pCreateInfo->pipelineStatistics & SD_QUERY_STATISTICS_ALL : 0;
   pool->stat_count = stat_count;
   pool->stat_values = stat_count ? (uint64_t *)&pool->queries[pool->count] : NULL;
   for (size_t i = 0; i < (size_t)pool->count * stat_count; i++)
      pool->stat_values[i] = 0;
   for (uint32_t i = 0; i < pool->count; i++) {
      atomic_init(&pool->queries[i].value, 0);
      pool->queries[i].value2 = 0;
      pool->queries[i].available = false;
   }
   *pQueryPool = sd_query_pool_to_handle(pool);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyQueryPool(VkDevice _device, VkQueryPool _pool, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_query_pool, pool, _pool);
   if (pool)
      sd_device_object_free(device, pAllocator, pool);
}

/* ---- results ---- */

static bool
sd_query_result_is64(VkQueryResultFlags flags)
{
   return (flags & VK_QUERY_RESULT_64_BIT) != 0;
}

/* Results of one query: two for transform feedback, one per counter for
 * pipeline statistics, else one. */
static unsigned
sd_query_values(const struct sd_query_pool *pool)
{
   switch (pool->type) {
   case VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT: return 2;
   case VK_QUERY_TYPE_PIPELINE_STATISTICS: return pool->stat_count;
   default: return 1;
   }
}

/* Pipeline statistics results of query q of the pool. */
static uint64_t *
sd_query_stats_of(const struct sd_query_pool *pool, const struct sd_query *q)
{
   return pool->stat_values + (size_t)(q - pool->queries) * pool->stat_count;
}

/* Bytes one query's results take: the values, then the availability word
 * (used by assertions only). */
static inline size_t
sd_query_result_size(const struct sd_query_pool *pool, VkQueryResultFlags flags)
{
   size_t word = sd_query_result_is64(flags) ? 8 : 4;
   unsigned n = sd_query_values(pool);
   return (flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT) ? (n + 1) * word : n * word;
}

static void
sd_query_store(uint8_t *dst, unsigned index, uint64_t value, VkQueryResultFlags flags)
{
   if (sd_query_result_is64(flags)) {
      memcpy(dst + 8 * index, &value, sizeof(value));
   } else {
      uint32_t v32 = (uint32_t)value;
      memcpy(dst + 4 * index, &v32, sizeof(v32));
   }
}

/* A query's value as 32 bits: see the header for the choice per type. */
static uint64_t
sd_query_narrow(const struct sd_query_pool *pool, uint64_t value, VkQueryResultFlags flags)
{
   if (sd_query_result_is64(flags) || pool->type == VK_QUERY_TYPE_TIMESTAMP)
      return value; /* sd_query_store keeps the low 32 bits */
   return value > UINT32_MAX ? UINT32_MAX : value;
}

/* Writes one query's result to dst as `flags` ask: the value when the query
 * is available (or PARTIAL: an occlusion count so far, between 0 and the
 * final count), nothing in its place otherwise; then the availability word
 * when asked. Call with sync_mutex held. */
static void
sd_query_write_locked(const struct sd_query_pool *pool, const struct sd_query *q,
                      VkQueryResultFlags flags, uint8_t *dst)
{
   const unsigned n = sd_query_values(pool);
   if (pool->type == VK_QUERY_TYPE_PIPELINE_STATISTICS) {
      if (q->available || (flags & VK_QUERY_RESULT_PARTIAL_BIT)) {
         const uint64_t *v = sd_query_stats_of(pool, q);
         for (unsigned i = 0; i < n; i++)
            sd_query_store(dst, i, sd_query_narrow(pool, v[i], flags), flags);
      }
   } else if (q->available || (flags & VK_QUERY_RESULT_PARTIAL_BIT)) {
      uint64_t value = atomic_load_explicit(&q->value, memory_order_relaxed);
      sd_query_store(dst, 0, sd_query_narrow(pool, value, flags), flags);
      if (n == 2)
         sd_query_store(dst, 1, sd_query_narrow(pool, q->value2, flags), flags);
   }
   if (flags & VK_QUERY_RESULT_WITH_AVAILABILITY_BIT)
      sd_query_store(dst, n, q->available ? 1 : 0, flags);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_GetQueryPoolResults(VkDevice _device, VkQueryPool _pool, uint32_t firstQuery,
                       uint32_t queryCount, size_t dataSize, void *pData, VkDeviceSize stride,
                       VkQueryResultFlags flags)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_query_pool, pool, _pool);
   assert(firstQuery + queryCount <= pool->count);
   assert(queryCount == 0 ||
          (uint64_t)(queryCount - 1) * stride + sd_query_result_size(pool, flags) <= dataSize);
   (void)dataSize;
   VkResult result = VK_SUCCESS;
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < queryCount; i++) {
      const struct sd_query *q = &pool->queries[firstQuery + i];
      if (flags & VK_QUERY_RESULT_WAIT_BIT) {
         /* Queries become available as the queue thread runs: wait while
          * it has work. With the queue idle only a later submission can
          * end the query: wait SD_QUERY_IDLE_WAIT_NS for one, then lose
          * the device, as a vkCmdCopyQueryPoolResults with WAIT of such a
          * query does (the spec allows device loss when a query does not
          * become available in finite time). */
         uint64_t idle_since = 0;
         uint64_t seen = device->queue ? device->queue->submitted : 0;
         while (!q->available && !sd_device_is_lost(device)) {
            const struct sd_queue *queue = device->queue;
            /* A submission does not wake this wait (sd_queue.h), its
             * retirement does: one made meanwhile restarts the clock too. */
            if (queue && (queue->completed < queue->submitted || queue->submitted != seen)) {
               seen = queue->submitted;
               idle_since = 0;
               if (queue->completed == queue->submitted)
                  continue;
               sd_device_sync_wait(device, UINT64_MAX);
               continue;
            }
            uint64_t now = sd_now_ns();
            if (!idle_since)
               idle_since = now;
            if (now - idle_since >= SD_QUERY_IDLE_WAIT_NS) {
               if (!atomic_exchange(&device->lost, true))
                  su_log("device lost: vkGetQueryPoolResults waits for a query that nothing "
                         "will make available");
               sd_device_sync_broadcast(device);
               break;
            }
            sd_device_sync_wait(device, idle_since + SD_QUERY_IDLE_WAIT_NS);
         }
      }
      if (sd_device_is_lost(device)) {
         if (device->queue)
            sd_queue_drain_locked(device->queue);
         result = VK_ERROR_DEVICE_LOST;
         break;
      }
      if (!q->available)
         result = VK_NOT_READY;
      sd_query_write_locked(pool, q, flags, (uint8_t *)pData + i * stride);
   }
   pthread_mutex_unlock(&device->sync_mutex);
   return result;
}

static void
sd_query_reset(struct sd_device *device, struct sd_query_pool *pool, uint32_t first,
               uint32_t count)
{
   assert(first + count <= pool->count);
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = first; i < first + count; i++) {
      pool->queries[i].available = false;
      atomic_store_explicit(&pool->queries[i].value, 0, memory_order_relaxed);
      pool->queries[i].value2 = 0;
      for (uint32_t k = 0; k < pool->stat_count; k++)
         pool->stat_values[(size_t)i * pool->stat_count + k] = 0;
   }
   pthread_mutex_unlock(&device->sync_mutex);
}

/* Host reset: core 1.2 and VK_EXT_host_query_reset (hostQueryReset). */
VKAPI_ATTR void VKAPI_CALL
sd_ResetQueryPool(VkDevice _device, VkQueryPool _pool, uint32_t firstQuery, uint32_t queryCount)
{
   sd_query_reset(sd_device_from_handle(_device), sd_query_pool_from_handle(_pool), firstQuery,
                  queryCount);
}

/* ---- recorded commands (queue thread) ---- */

/* Makes a query available with `value` as its final result (the value is
 * stored first, in the same critical section) and wakes host waiters. */
static void
sd_query_end2(struct sd_device *device, struct sd_query *q, uint64_t value, uint64_t value2)
{
   pthread_mutex_lock(&device->sync_mutex);
   atomic_store_explicit(&q->value, value, memory_order_relaxed);
   q->value2 = value2;
   q->available = true;
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
}

static void
sd_query_end(struct sd_device *device, struct sd_query *q, uint64_t value)
{
   sd_query_end2(device, q, value, 0);
}

/* Pipeline statistics: makes query q of the pool available with the
 * enabled ones of counts[] (indexed by bit number; NULL: all 0). */
static void
sd_query_end_stats(struct sd_device *device, struct sd_query_pool *pool, struct sd_query *q,
                   const uint64_t counts[SD_QUERY_STATISTICS_COUNT])
{
   pthread_mutex_lock(&device->sync_mutex);
   uint64_t *v = sd_query_stats_of(pool, q);
   unsigned k = 0;
   for (unsigned bit = 0; bit < SD_QUERY_STATISTICS_COUNT; bit++)
      if (pool->statistics & (1u << bit))
         v[k++] = counts ? counts[bit] : 0;
   q->available = true;
   sd_device_sync_broadcast(device);
   pthread_mutex_unlock(&device->sync_mutex);
}

/* Multiview: a query inside a multiview subpass uses one query per view
 * (queries query .. query + N - 1 for N views); the first holds the result
 * of all views (occlusion counts and pipeline statistics summed, the
 * timestamp), the others `value` (0), as the spec allows. */
static void
sd_query_end_other_views(struct sd_exec_state *state, struct sd_query_pool *pool, uint32_t query,
                         uint64_t value)
{
   const uint32_t views = (uint32_t)__builtin_popcount(state->render.view_mask);
   for (uint32_t v = 1; v < views && query + v < pool->count; v++) {
      if (pool->type == VK_QUERY_TYPE_PIPELINE_STATISTICS)
         sd_query_end_stats(state->device, pool, &pool->queries[query + v], NULL);
      else
         sd_query_end(state->device, &pool->queries[query + v], value);
   }
}

void
sd_query_count_samples(struct sd_exec_state *state, uint64_t samples)
{
   struct sd_query *q = state->active_occlusion;
   if (q && samples)
      atomic_fetch_add_explicit(&q->value, samples, memory_order_relaxed);
}

void
sd_exec_ResetQueryPool(struct sd_exec_state *state, const struct sd_cmd_ResetQueryPool *cmd)
{
   sd_query_reset(state->device, sd_query_pool_from_handle(cmd->queryPool), cmd->firstQuery,
                  cmd->queryCount);
}

static void
sd_query_begin(struct sd_exec_state *state, VkQueryPool _pool, uint32_t query)
{
   SD_FROM_HANDLE(sd_query_pool, pool, _pool);
   assert(query < pool->count);
   struct sd_query *q = &pool->queries[query];
   if (pool->type == VK_QUERY_TYPE_PIPELINE_STATISTICS) {
      /* Draws and dispatches count from here (sd_exec_stats). */
      assert(!state->stats.query);
      memset(&state->stats, 0, sizeof(state->stats));
      state->stats.query = q;
      return;
   }
   if (pool->type == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT) {
      /* Counted by the draws' capture: the counts at the begin. */
      assert(!state->xfb.query);
      state->xfb.query = q;
      state->xfb.query_written = state->xfb.cap.primitives_written;
      state->xfb.query_needed = state->xfb.cap.primitives_needed;
      return;
   }
   /* Occlusion: the count is exact with or without PRECISE
    * (occlusionQueryPrecise, render/passes). */
   assert(pool->type == VK_QUERY_TYPE_OCCLUSION);
   assert(!state->active_occlusion);
   atomic_store_explicit(&q->value, 0, memory_order_relaxed);
   state->active_occlusion = q;
}

void
sd_exec_BeginQuery(struct sd_exec_state *state, const struct sd_cmd_BeginQuery *cmd)
{
   sd_query_begin(state, cmd->queryPool, cmd->query);
}

/* Stream 0 is the only one (maxTransformFeedbackStreams 1); occlusion
 * pools take index 0 too. */
void
sd_exec_BeginQueryIndexedEXT(struct sd_exec_state *state,
                             const struct sd_cmd_BeginQueryIndexedEXT *cmd)
{
   assert(cmd->index == 0);
   sd_query_begin(state, cmd->queryPool, cmd->query);
}

static void
sd_query_finish(struct sd_exec_state *state, VkQueryPool _pool, uint32_t query)
{
   SD_FROM_HANDLE(sd_query_pool, pool, _pool);
   assert(query < pool->count);
   struct sd_query *q = &pool->queries[query];
   if (pool->type == VK_QUERY_TYPE_PIPELINE_STATISTICS) {
      assert(state->stats.query == q);
      /* The binned draws' fragment shaders run first (a flush point). */
      sd_exec_render_flush(state);
      state->stats.query = NULL;
      const struct sr_stats *r = &state->stats.raster;
      const uint64_t counts[SD_QUERY_STATISTICS_COUNT] = {
         r->ia_vertices, r->ia_primitives, r->vs_invocations,
         r->gs_invocations, r->gs_primitives,
         r->clip_invocations, r->clip_primitives,
         __atomic_load_n(&r->fs_invocations, __ATOMIC_RELAXED),
         r->tcs_patches, r->tes_invocations,
         state->stats.cs_invocations,
      };
      sd_query_end_stats(state->device, pool, q, counts);
      sd_query_end_other_views(state, pool, query, 0);
      return;
   }
   if (pool->type == VK_QUERY_TYPE_TRANSFORM_FEEDBACK_STREAM_EXT) {
      /* Draws capture when they replay: the counts are final. */
      assert(state->xfb.query == q);
      state->xfb.query = NULL;
      sd_query_end2(state->device, q,
                    state->xfb.cap.primitives_written - state->xfb.query_written,
                    state->xfb.cap.primitives_needed - state->xfb.query_needed);
      sd_query_end_other_views(state, pool, query, 0);
      return;
   }
   assert(state->active_occlusion == q);
   state->active_occlusion = NULL;
   /* Inside rendering, the binned draws run first (a flush point). Every
    * draw finished before this command: the count is final. */
   sd_exec_render_flush(state);
   sd_query_end(state->device, q, atomic_load_explicit(&q->value, memory_order_relaxed));
   sd_query_end_other_views(state, pool, query, 0);
}

void
sd_exec_EndQuery(struct sd_exec_state *state, const struct sd_cmd_EndQuery *cmd)
{
   sd_query_finish(state, cmd->queryPool, cmd->query);
}

void
sd_exec_EndQueryIndexedEXT(struct sd_exec_state *state,
                           const struct sd_cmd_EndQueryIndexedEXT *cmd)
{
   assert(cmd->index == 0);
   sd_query_finish(state, cmd->queryPool, cmd->query);
}

/* Commands run in order, each finished before the next starts, so "now" is
 * after every earlier command completed whatever stage is named. */
static void
sd_query_write_timestamp(struct sd_exec_state *state, VkQueryPool _pool, uint32_t query)
{
   SD_FROM_HANDLE(sd_query_pool, pool, _pool);
   assert(pool->type == VK_QUERY_TYPE_TIMESTAMP && query < pool->count);
   sd_exec_render_flush(state);   /* binned draws are earlier commands */
   sd_query_end(state->device, &pool->queries[query], sd_now_ns());
   sd_query_end_other_views(state, pool, query, 0);
}

void
sd_exec_WriteTimestamp(struct sd_exec_state *state, const struct sd_cmd_WriteTimestamp *cmd)
{
   sd_query_write_timestamp(state, cmd->queryPool, cmd->query);
}

void
sd_exec_WriteTimestamp2(struct sd_exec_state *state, const struct sd_cmd_WriteTimestamp2 *cmd)
{
   sd_query_write_timestamp(state, cmd->queryPool, cmd->query);
}

void
sd_exec_CopyQueryPoolResults(struct sd_exec_state *state,
                             const struct sd_cmd_CopyQueryPoolResults *cmd)
{
   struct sd_device *device = state->device;
   SD_FROM_HANDLE(sd_query_pool, pool, cmd->queryPool);
   SD_FROM_HANDLE(sd_buffer, buffer, cmd->dstBuffer);
   assert(cmd->firstQuery + cmd->queryCount <= pool->count);
   assert(cmd->queryCount == 0 ||
          cmd->dstOffset + (uint64_t)(cmd->queryCount - 1) * cmd->stride +
                sd_query_result_size(pool, cmd->flags) <= buffer->size);
   uint8_t *dst = buffer->data + cmd->dstOffset;
   pthread_mutex_lock(&device->sync_mutex);
   for (uint32_t i = 0; i < cmd->queryCount; i++) {
      const struct sd_query *q = &pool->queries[cmd->firstQuery + i];
      if (!q->available && (cmd->flags & VK_QUERY_RESULT_WAIT_BIT)) {
         /* Every earlier command on the device's one queue has finished and
          * later ones wait for this one: the query can never become
          * available. The spec allows device loss for such a wait. */
         sd_queue_replay_failed(state->queue, "vkCmdCopyQueryPoolResults waits for a query "
                                              "that nothing will make available");
         break;
      }
      sd_query_write_locked(pool, q, cmd->flags, dst + i * cmd->stride);
   }
   pthread_mutex_unlock(&device->sync_mutex);
}
