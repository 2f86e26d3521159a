/*
 * sd_exec: the state a command buffer's replay carries from one command to
 * the next on the queue thread (bound state, push constants, ...). Each
 * sd_exec_* function (one per recorded command, declared in the generated
 * sd_cmd_queue.h) reads its packet and this state.
 *
 * Invariants: one sd_exec_state per primary command buffer execution;
 * secondary command buffers run with their caller's state.
 * `active_occlusion` is the query between vkCmdBeginQuery and vkCmdEndQuery
 * of an occlusion pool, or NULL; draws add passed samples to it through
 * sd_query_count_samples() (sd_query.h).
 *
 * Threading: used only by the queue thread (the rasterizer's workers may
 * call sd_query_count_samples() with it during a draw).
 */
#ifndef SD_EXEC_H
#define SD_EXEC_H

#include <stdint.h>

struct sd_device;
struct sd_queue;
struct sd_cmd_buffer;
struct sd_query;

struct sd_exec_state {
   struct sd_device *device;
   struct sd_queue *queue;
   struct sd_cmd_buffer *cmd_buffer;
   uint8_t push_constants[256];
   struct sd_query *active_occlusion;
};

#endif
