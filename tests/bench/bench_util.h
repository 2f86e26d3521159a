/*
 * bench_util: what the benchmarks in tests/bench share.
 *
 * Every benchmark runs the same work on Shale and on lavapipe in one run and
 * prints one Markdown table row per figure: Shale's figure, lavapipe's, the
 * ratio (always "how many times better Shale is": lavapipe's time / Shale's,
 * or Shale's rate / lavapipe's) and, where the figure has one, the share of
 * this machine's limit (../shared/MACHINE.md). run.sh gathers the rows.
 *
 * Each driver's measurement runs in a forked child (bench_in_child) that
 * has loaded no Vulkan driver yet: one driver's threads, LLVM options and
 * caches cannot disturb the other's, and "first use in a fresh process" is
 * what it says. The parent never touches Vulkan.
 *
 * Devices are created without the validation layer (timing runs). Mesa's
 * on-disk shader cache is switched off (MESA_SHADER_CACHE_DISABLE) by
 * bench_setup(), so lavapipe compiles as often as Shale does.
 *
 * Threading: single-threaded programs; nothing here is thread-safe.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkt.h"

#define BENCH_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* This machine's limits, from ../shared/MACHINE.md (2 threads). */
#define BENCH_FMA_PEAK_GFLOPS 425.0   /* FP32 FMA, AVX-512 */
#define BENCH_READ_GBS 24.6           /* read (vector sum) */
#define BENCH_MEMCPY_GBS 26.0         /* memcpy, read + written bytes */

/* Environment every benchmark needs; call first in main(). */
void bench_setup(void);

/* Seconds on CLOCK_MONOTONIC. */
double bench_now(void);

/* A device of `driver` without the validation layer; false (printed) when
 * the driver is absent. */
bool bench_device_init(struct vkt *t, enum vkt_driver driver);

/* Runs fn(arg, out) in a forked child and copies its `count` results back
 * into out; a result the child did not produce (it failed or crashed) is
 * NAN. Returns false when the child failed. */
bool bench_in_child(bool (*fn)(void *arg, double *out), void *arg, double *out,
                    unsigned count);

/* A compute kernel: module, one set of `buffers` storage buffers at
 * bindings 0..buffers-1, push constants of `push_size` bytes, its
 * pipeline, a descriptor set. */
struct bench_kernel {
   VkShaderModule module;
   VkDescriptorSetLayout set_layout;
   VkPipelineLayout layout;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipeline pipeline;
};

VkShaderModule bench_module(struct vkt *t, const uint32_t *code, size_t size);
/* Everything but the pipeline; false (printed) on failure. */
bool bench_kernel_init(struct vkt *t, struct bench_kernel *k, const uint32_t *code,
                       size_t size, uint32_t buffers, uint32_t push_size);
/* A compute pipeline of k's module and layout ("main"), or VK_NULL_HANDLE. */
VkPipeline bench_pipeline(struct vkt *t, const struct bench_kernel *k, VkPipelineCache cache,
                          const VkSpecializationInfo *spec);
/* Points the set's bindings 0..count-1 at whole buffers. */
void bench_kernel_bind(struct vkt *t, struct bench_kernel *k, const VkBuffer *buffers,
                       uint32_t count);
void bench_kernel_finish(struct vkt *t, struct bench_kernel *k);

/* Submits cb (recorded, reusable) and waits on `fence`; the wall time of
 * submission to completion in seconds, or a negative value on error. */
double bench_submit_wait(struct vkt *t, VkCommandBuffer cb, VkFence fence);

/* The host as it is now, for quoting figures and thread scaling against:
 * the FP32 FMA rate of `threads` threads of independent FMA chains in
 * GFLOP/s (AVX-512, or AVX2 where the host lacks it; NAN without either), and the memset rate of `threads`
 * threads each filling its share of a 64 MiB buffer, in GB/s. Best of
 * three runs each; a fraction of a second. */
double bench_host_fma_gflops(unsigned threads);
/* "AVX-512", "AVX2" or "no" FMA: what bench_host_fma_gflops measures. */
const char *bench_host_fma_isa(void);
double bench_host_fill_gbs(unsigned threads);

/* Sorting helpers for timings. */
double bench_median(double *v, unsigned n);
double bench_min(const double *v, unsigned n);

/* Table output. Ratio: lavapipe / Shale when lower_is_better, else
 * Shale / lavapipe. limit: the machine's limit in `unit` (0: none);
 * limit_name says which. target: the target and whether it is met
 * (NULL: none). */
void bench_print_header(void);
void bench_print_row(const char *name, const char *unit, double shale, double lavapipe,
                     bool lower_is_better, double limit, const char *limit_name,
                     const char *target);

#endif
