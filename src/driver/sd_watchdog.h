/*
 * sd_watchdog: a GPU-like watchdog for shaders that never finish (issue 11,
 * item 4).
 *
 * Problem
 * -------
 * A compute, vertex or fragment shader with a loop that never ends keeps the
 * queue thread and the workers busy for ever. A fence wait with a timeout
 * returns, but vkQueueWaitIdle, vkDeviceWaitIdle and vkDestroyDevice would
 * never do, so the application could not recover. A GPU resets the engine
 * after a timeout (Windows' TDR: 2 s) and reports VK_ERROR_DEVICE_LOST;
 * Shale does the same.
 *
 * Limit
 * -----
 * SHALE_WATCHDOG_MS: milliseconds the replay of one submission may run
 * (default 30000; 0 turns the watchdog thread off). The plan said 5000,
 * but the limit is wall time and a CPU is shared with the application and
 * everything else: on this 2-core machine at a load average of 11, the
 * first SGEMM 1024 dispatch of bench_compute (baseline code, then waiting
 * for the optimized code) took 9.3 s and a 5 s watchdog lost the device in
 * the middle of legitimate work. 30 s still ends a hang, and tests or
 * impatient users set a shorter limit (api/watchdog runs at 500 ms). Read once per queue, at vkCreateDevice. What is timed: a
 * submission's replay on the queue thread, from its first command to its
 * last, semaphore waits excluded (they wait for other work, which has its
 * own clock); vkCmdWaitEvents inside it counts (a GPU hangs on an event
 * nobody sets, too).
 *
 * Watching
 * --------
 * The queue thread stores the start of the replay it runs (ns, 0 while
 * none runs) and a replay count under the device's sync_mutex. A watchdog
 * thread per queue, started with the queue (vkCreateDevice) when the limit
 * is nonzero, sleeps on its own condition variable (with sync_mutex) until
 * start + limit; if the same replay still runs then, it sets the device's
 * cancel word and logs "watchdog: a submission ran for more than N ms
 * (SHALE_WATCHDOG_MS)". With no replay running it sleeps until one starts:
 * only then does a start signal it. Replays that start while it sleeps to a
 * deadline do not wake it (it moves to the running one's deadline when it
 * wakes), so a busy queue pays a store and a count a submission, nothing
 * more. It exits at vkDestroyDevice, after the queue thread.
 * Changed from the first plan: the watchdog slept on the device's
 * sync_cond and every replay start broadcast it, which also woke every
 * fence waiter of the device; on a 16-core machine that made short
 * submissions (SAXPY, a 0.9 ms dispatch) 7-8% slower with the watchdog on
 * (see Cost).
 * Changed from the first plan: the watchdog does not declare the loss
 * itself. The queue thread does, when the cancelled submission retires
 * (sd_queue.c), because sd_queue.h promises that whoever sees the loss may
 * free everything the lost work used; the cancelled code returns within a
 * poll interval, so the loss still comes promptly.
 *
 * Stopping the work
 * -----------------
 * - Compiled code (shader_abi.h "Cancellation"): every loop header counts
 *   its visits in a per-call i32 (SSA after mem2reg) and on the first visit
 *   and every SHALE_CANCEL_POLL_INTERVAL-th (1024) loads the cancel word
 *   through the context's `cancel` pointer (NULL: never cancelled; shader
 *   ABI version 7); when it is set the call returns at once, and a
 *   resumable (barrier) body returns its "finished" index, so the
 *   workgroup's scheduler ends: a subgroup waiting at a barrier is resumed,
 *   polls at its next loop header and finishes too. A resumed call counts
 *   from zero, so a loop whose iterations each cross a barrier polls on
 *   every resume. SPIR-V has no recursion, so every unbounded run goes
 *   through a loop header.
 *   Changed from the first plan: short counted loops have no poll
 *   (llvm_translate.c, loop_unpolled: `for (i = c0; i < c1; i += c2)` as a
 *   header phi, at most 65536 iterations together with the enclosing loops
 *   that have none). Polling every header kept LLVM from unrolling SGEMM's
 *   constant inner loops (16 FMAs left of 128 in the machine code, 287
 *   branches instead of 14) and made bench_compute's SGEMM about 4x slower;
 *   "uniform loops that LLVM unrolls fold the increments" did not hold.
 *   Changed twice: the polls were first always compiled (one machine code
 *   whatever the environment); now a device whose watchdog is off
 *   (SHALE_WATCHDOG_MS=0) compiles its shaders without them
 *   (SC_COMPILE_NO_CANCEL_POLLS, part of the compile key, so pipeline
 *   cache data of one kind never serves the other): turning the watchdog
 *   off then costs nothing, and the same binary measures the polls' cost
 *   (bench_compute with the limit 0 against the default).
 * - The workers' workgroup loop (sd_cmd_compute.c) reads the word before
 *   each workgroup and stops; the rasterizer's calls poll through their
 *   vertex and fragment contexts, so each remaining batch or quad returns
 *   at its first loop header, and the rasterizer's own loops read it too
 *   (sr_raster.h, sr_context_set_cancel): a draw of millions of instances
 *   or primitives, or a flush of many tiles, whose shaders have no loop
 *   stops at its next instance, vertex window or batch, or tile.
 * - Replay stops at a cancel like at a device loss (sd_queue_replay_stopped);
 *   event waits inside command buffers end too.
 * What cancelled work wrote to memory is undefined, as after a GPU reset.
 *
 * What the application sees
 * -------------------------
 * Within about the limit plus one poll interval, vkQueueWaitIdle,
 * vkDeviceWaitIdle, fence waits and later submissions return
 * VK_ERROR_DEVICE_LOST, and vkDestroyDevice returns; the process lives on
 * and may create a new device. stderr (or logcat) says why.
 *
 * Cost and tests
 * --------------
 * api/watchdog (tests/api/test_watchdog.c): infinite loops in compute
 * shaders (with and without a barrier in the loop, several subgroups) and
 * in a fragment shader, and a draw of 2^30 culled instances with shaders
 * that have no loop, under SHALE_WATCHDOG_MS=500; unit/raster (test_cancel)
 * checks each of the rasterizer's stops.
 * Cost, 2026-11-26 on this 2-core AVX2 machine, shared (release builds of
 * a897451 and of a897451 plus the watchdog, alternating runs of
 * bench_compute --driver shale, each figure its run's best time):
 * - machine code (SHALE_SHADER_DUMP=asm): SAXPY has no loop and the same
 *   43 instructions; SGEMM keeps its 128 FMAs, 1162 instructions against
 *   1152 (one poll, in the k0 loop, once per 64-wide k step and resume);
 *   the reduction 369 against 391 instructions (one poll).
 * - rates with the watchdog over rates without (medians), in two batches
 *   of 5 pairs (A first), load average 4.1 to 4.5, then 3.3 to 3.7:
 *   SAXPY 1.11 and 0.99, reduction 1.00 and 0.12 (in 3 of those 5 B runs
 *   and 1 A run the optimized code had not taken over from the baseline
 *   code within the run: about 0.9 GB/s against 8), SGEMM 1024 1.04 and
 *   0.95, SGEMM 2048 0.99 and 0.91. Run-to-run spread was 20-50%.
 * - 6 pairs of SGEMM alone (B first) at load 1.9 to 3, median best times:
 *   1024 74.2 ms against 68.6 (+8%, A's runs 58-83 ms, B's 70-83), 2048
 *   618 against 623 ms (-1%).
 * The 2% bound was not proven by timing on that machine.
 * Cost, 2026-11-26 on a quiet 16-core Xeon (the device machine, load
 * average under 5 from the runs themselves; release build of main at
 * 6068697 plus the watchdog's own condition, the same binary run with
 * SHALE_WATCHDOG_MS=0, which compiles no polls, and with the default;
 * bench_compute --only <kernel> per process, 60 pairs, half in each order;
 * the figure is the median of each run's last six of eight dispatches):
 * with over without, medians of the runs: SGEMM 2048 (21 ms a dispatch)
 * 0.986, SGEMM 1024 (2.7 ms) 1.018, reduction 64 MiB (0.39 ms) 1.000,
 * SAXPY 64 MiB (0.86 ms) 1.034. SAXPY has no loop, so the same machine
 * code either way: its 3.4% is the noise floor of these short dispatches
 * (the order of a pair alone moved it by 4-8%). So the polls cost less
 * than the measurements can see, within 2% on the kernels long enough to
 * time (SGEMM). Two costs this found and removed first: a broadcast of the
 * device's condition at every replay start (Watching), 7-8% on SAXPY, and
 * a poll at every resume of a tree reduction's barrier loop (now a loop
 * that ends by itself), 3-6% on the reduction.
 *
 * Threading: everything above is under the device's sync_mutex, except the
 * cancel word (atomic, relaxed: a poll that misses it sees it next time).
 */
#ifndef SD_WATCHDOG_H
#define SD_WATCHDOG_H

#include <stdint.h>

#include "sd_object.h"

struct sd_queue;

/* The reason the queue thread gives the loss. */
#define SD_WATCHDOG_LOST "watchdog: a submission ran past SHALE_WATCHDOG_MS"

/* SHALE_WATCHDOG_MS in ns (default 30 s; 0: off). */
uint64_t sd_watchdog_limit_ns(void);

/* Starts queue's watchdog thread (queue->watchdog_ns nonzero). */
VkResult sd_watchdog_start(struct sd_queue *queue);
/* Joins it, when it runs; after the queue thread was joined. */
void sd_watchdog_stop(struct sd_queue *queue);

#endif
