/*
 * sd_query: VkQueryPool (occlusion, timestamp, pipeline statistics and
 * transform feedback stream queries), query commands and
 * result read-back (vkGetQueryPoolResults, vkCmdCopyQueryPoolResults).
 *
 * Owns: each query's value and availability. A timestamp is CLOCK_MONOTONIC
 * in nanoseconds (sd_now_ns(): timestampPeriod 1.0, timestampValidBits 64),
 * so it never decreases, within or across submissions. An occlusion query
 * counts passed samples between vkCmdBeginQuery and vkCmdEndQuery: draw
 * replay reports them with sd_query_count_samples().
 *
 * Invariants: a query is unavailable after creation, after vkCmdResetQueryPool
 * and vkResetQueryPool (value 0 then), and becomes available at
 * vkCmdEndQuery / vkCmdWriteTimestamp(2); its value is final when it is
 * available. 32-bit results: occlusion counts saturate at UINT32_MAX (a
 * nonzero count never reads as 0); timestamps wrap (keep the low 32 bits, so
 * differences stay right modulo 2^32). Both are allowed by the spec.
 * A transform feedback stream query (VK_EXT_transform_feedback, stream 0:
 * no geometry shaders) has two results, the primitives written to the
 * transform feedback buffers and those that reached transform feedback
 * (written or not for want of space) while it was active: the difference
 * of sd_exec_xfb's counts between its begin and end (32-bit results
 * saturate like occlusion counts).
 * A pipeline statistics query (pipelineStatisticsQuery) has one result per
 * bit of the pool's pipelineStatistics, in bit order: the counts of the
 * draws and dispatches replayed between its begin and end (sd_exec_stats,
 * sr_stats; sr_raster.h's design note says what each counts; the two
 * tessellation counters as sr_tess.h's note says). 32-bit results
 * saturate like occlusion counts; a PARTIAL result of an active query
 * reads 0 (its counts are stored at the end), which lies between 0 and the
 * final count as the spec asks.
 * Multiview: a query inside a multiview subpass takes one query per view;
 * the first gets the result of all views, the others 0 (both available).
 *
 * Threading: values are written by the queue thread (occlusion counts by any
 * thread the rasterizer uses during a draw, atomically) and read by the host.
 * `available` is guarded by the device's sync_mutex and set after the value
 * is final, in the same critical section, with a broadcast of sync_cond;
 * readers hold sync_mutex, so an available query's value is the final one.
 * vkGetQueryPoolResults with WAIT sleeps on sync_cond (and returns
 * VK_ERROR_DEVICE_LOST when the device is lost).
 *
 * Queries that never become available: a vkCmdCopyQueryPoolResults with
 * WAIT of an unavailable query loses the device at once (everything before
 * it on the one queue has run); a host read with WAIT waits while the queue
 * has work, then at most 2 s of an idle queue for a submission that could
 * still end the query, then loses the device too. Both report
 * VK_ERROR_DEVICE_LOST; neither blocks for ever.
 */
#ifndef SD_QUERY_H
#define SD_QUERY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "sd_object.h"

struct sd_exec_state;

struct sd_query {
   _Atomic uint64_t value;   /* samples passed, the timestamp, or primitives written */
   uint64_t value2;          /* transform feedback: primitives needed */
   bool available;           /* guarded by the device's sync_mutex */
};

/* VkQueryPipelineStatisticFlagBits of Vulkan 1.0: 11 counters, bits 0-10. */
#define SD_QUERY_STATISTICS_COUNT 11
#define SD_QUERY_STATISTICS_ALL ((1u << SD_QUERY_STATISTICS_COUNT) - 1)

struct sd_query_pool {
   struct sd_object base;
   VkQueryType type;
   uint32_t count;
   /* Pipeline statistics: the counters asked for, and their results
    * (stat_count a query, query i's at stat_values + i * stat_count;
    * written with sync_mutex held). */
   VkQueryPipelineStatisticFlags statistics;
   uint32_t stat_count;
   uint64_t *stat_values;
   struct sd_query queries[];
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_query_pool, base, VkQueryPool, VK_OBJECT_TYPE_QUERY_POOL)

/* Adds passed samples to the occlusion query active in this command buffer
 * execution, if any. Thread-safe (an atomic add): the rasterizer's workers
 * may report their counts directly while a draw of `state` runs. */
void sd_query_count_samples(struct sd_exec_state *state, uint64_t samples);

#endif
