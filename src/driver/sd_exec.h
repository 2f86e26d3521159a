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
 * Bound state, per bind point (compute; graphics is kept apart for later):
 * the pipeline from vkCmdBindPipeline, and per set number the records a
 * shader reads (sd_descriptor_set_bind(): the set's own records, or a bind
 * copy with the dynamic offsets of that vkCmdBindDescriptorSets applied).
 * Nothing here points at a pipeline layout: the application may destroy one
 * once recording ended. A dispatch runs all of its workgroups (over the
 * runtime's thread pool) before the next command replays, so later commands
 * see every write of earlier ones.
 *
 * Threading: used only by the queue thread (the rasterizer's workers may
 * call sd_query_count_samples() with it during a draw; compute workers read
 * the bound sets and push constants during a dispatch).
 */
#ifndef SD_EXEC_H
#define SD_EXEC_H

#include <stdint.h>

#include "shale/shader_abi.h"

struct sd_device;
struct sd_queue;
struct sd_cmd_buffer;
struct sd_query;
struct sd_pipeline;

struct sd_exec_bind_point {
   struct sd_pipeline *pipeline;
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
};

struct sd_exec_state {
   struct sd_device *device;
   struct sd_queue *queue;
   struct sd_cmd_buffer *cmd_buffer;
   _Alignas(16) uint8_t push_constants[SHALE_MAX_PUSH_CONSTANTS_SIZE];
   struct sd_query *active_occlusion;
   struct sd_exec_bind_point compute;
   struct sd_exec_bind_point graphics;
};

#endif
