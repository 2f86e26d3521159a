/*
 * sd_queue: VkQueue, its submission thread, and queue submission.
 *
 * Owns: a FIFO of submissions, each a list of semaphore waits, command
 * buffers and semaphore signals, plus an optional fence; one thread per queue
 * takes them in order, waits, replays the command buffers, then signals.
 *
 * Invariants: submissions complete in submission order; `completed` counts
 * finished submissions and is <= `submitted`. vkQueueWaitIdle returns when
 * completed == submitted (or the device is lost).
 *
 * Threading: the list and counters are guarded by the device's sync_mutex;
 * the thread sleeps on sync_cond. Command buffers run only on this thread.
 */
#ifndef SD_QUEUE_H
#define SD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>

#include "sd_object.h"

struct sd_device;
struct sd_submit;

struct sd_queue {
   struct sd_object base;
   struct sd_device *device;
   pthread_t thread;
   struct sd_submit *head, *tail;
   uint64_t submitted, completed;
   bool stop;
};

SD_DEFINE_HANDLE_CASTS(sd_queue, base, VkQueue, VK_OBJECT_TYPE_QUEUE)

VkResult sd_queue_create(struct sd_device *device, struct sd_queue **out);
/* Finishes all submitted work, then joins the thread and frees the queue. */
void sd_queue_destroy(struct sd_queue *queue);

#endif
