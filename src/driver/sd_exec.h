/*
 * sd_exec: the state a command buffer's replay carries from one command to
 * the next on the queue thread (bound state, push constants, ...). Each
 * sd_exec_* function (one per recorded command, declared in the generated
 * sd_cmd_queue.h) reads its packet and this state.
 *
 * Invariants: one sd_exec_state per primary command buffer execution;
 * secondary command buffers run with their caller's state.
 *
 * Threading: used only by the queue thread.
 */
#ifndef SD_EXEC_H
#define SD_EXEC_H

#include <stdint.h>

struct sd_device;
struct sd_queue;
struct sd_cmd_buffer;

struct sd_exec_state {
   struct sd_device *device;
   struct sd_queue *queue;
   struct sd_cmd_buffer *cmd_buffer;
   uint8_t push_constants[256];
};

#endif
