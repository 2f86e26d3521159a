/*
 * sd_watchdog: a GPU-like watchdog for shaders that never finish (issue 11,
 * item 4). DESIGN NOTE ONLY: nothing below is implemented yet; this header
 * declares nothing and no code includes it. It is the plan the
 * implementation follows, kept true as it lands.
 *
 * Problem
 * -------
 * A compute (later: vertex or fragment) shader with a loop that never ends
 * keeps the queue thread and the workers busy for ever. A fence wait with a
 * timeout returns, but vkQueueWaitIdle, vkDeviceWaitIdle and vkDestroyDevice
 * never do, so the application cannot recover. A GPU resets the engine after
 * a timeout (Windows' TDR: 2 s) and reports VK_ERROR_DEVICE_LOST; Shale does
 * the same.
 *
 * Limit
 * -----
 * SHALE_WATCHDOG_MS: milliseconds one submission may run (default 5000, a
 * CPU also runs the application; 0 turns the watchdog off, and with it the
 * polls in compiled code). Read once per device, at vkCreateDevice. What is
 * timed: a submission's replay on the queue thread, from its first command
 * to its last, semaphore waits excluded (they wait for other work, which has
 * its own clock); vkCmdWaitEvents inside it counts (a GPU hangs on an event
 * nobody sets, too).
 *
 * Watching
 * --------
 * The queue thread stores the start of the submission it replays (ns,
 * 0 while idle) under the device's sync_mutex. A watchdog thread per device,
 * started at the first submission when the limit is nonzero, sleeps on the
 * device's sync_cond until start + limit; if the same submission still runs
 * then, it sets the device's cancel word (an atomic uint32) and loses the
 * device ("watchdog: a submission ran for more than N ms
 * (SHALE_WATCHDOG_MS)", logged like every device loss). It exits at
 * vkDestroyDevice.
 *
 * Stopping the work
 * -----------------
 * - Compiled code (SC_COMPILE_WATCHDOG, part of the compile key; set when
 *   the limit is nonzero): every loop back edge increments a per-call i32
 *   counter (SSA, in a register); when (counter & 1023) == 0 it loads the
 *   cancel word through a pointer in the call's context (a new field
 *   `const uint32_t *cancel` of shale_cs_context and of the vertex and
 *   fragment contexts: shader ABI version bump) and, when it is nonzero,
 *   returns at once; a resumable (barrier) body returns its "finished"
 *   index. Uniform loops that LLVM unrolls fold the increments into one add.
 *   SPIR-V has no recursion, so every unbounded run goes through a back
 *   edge or a barrier.
 * - The dispatch loops (the workers' workgroup loop in sd_cmd_compute.c,
 *   the rasterizer's tile loops) read the cancel word before each workgroup
 *   or tile and stop.
 * - Replay already stops at device loss (sd_queue_replay_stopped); event
 *   waits inside command buffers end when the device is lost.
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
 * Proven by the compute benchmarks (tests/bench: SAXPY, reduction, SGEMM)
 * with the watchdog on and off: under 2%. api/watchdog: `while (true) {}`
 * and a loop counting to a push constant of 2^40 under SHALE_WATCHDOG_MS=200
 * (vkQueueWaitIdle returns VK_ERROR_DEVICE_LOST within a second, destroying
 * the device works), a loop that finishes under the limit still gives the
 * right result, and SHALE_WATCHDOG_MS=0 compiles no polls (the IR dump has no
 * cancel load). unit/compiler: a looping shader returns when its cancel word
 * is set from another thread.
 */
#ifndef SD_WATCHDOG_H
#define SD_WATCHDOG_H
#endif
