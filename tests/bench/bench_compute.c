/* Benchmark: SAXPY and reduction bandwidth, SGEMM GFLOP/s, on Shale and lavapipe. */
/*
 * Kernels (shaders/): SAXPY y = a*x + y on 64 MiB buffers (16 Mi floats,
 * one element per invocation, 256 per workgroup); a sum of 64 MiB of uints
 * (256 invocations a workgroup, 64 coalesced loads each, a shared-memory
 * tree with barriers, one atomicAdd per workgroup); SGEMM C = A*B for
 * n = 1024 and 2048 with 64x64 shared-memory tiles, 4x4 per invocation.
 *
 * Each driver runs in a forked child (bench_util.h). Every kernel's first
 * run checks its result against a C reference (SAXPY: every element, to
 * Vulkan's precision for a multiply and an add; the sum: exactly, and again
 * after every timed run; SGEMM: whole rows and columns at tile edges plus
 * random elements, against double-precision dot products with a tolerance
 * far below what an indexing error gives) and is the warm-up; then a
 * recorded command buffer with the one dispatch is submitted again and
 * again, and the best wall time from vkQueueSubmit to the fence is kept.
 *
 * Figures: SAXPY counts 12 bytes per element (x and y read, y written),
 * quoted against MACHINE.md's memcpy figure (read + written bytes); the sum
 * counts 4 bytes per element, against the read figure; SGEMM counts 2n^3
 * FLOP, against the AVX-512 FMA peak. GB = 1e9 bytes. The parent also
 * times plain C loops (2 threads) over the same buffers and 2 threads of
 * independent AVX-512 FMAs, so the limits can be checked against this
 * machine as it is now.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "reduce_spv.h"
#include "saxpy_spv.h"
#include "sgemm_spv.h"

#define STREAM_ELEMS (16u << 20)      /* 64 MiB of 4-byte elements */
#define REDUCE_PER_INVOCATION 64u
#define TIMED_RUNS_MAX 8
#define TIMED_RUNS_MIN 2
#define BUDGET_S 2.5

enum { C_SAXPY, C_REDUCE, C_SGEMM_1024, C_SGEMM_2048, C_COUNT };

struct ctx {
   struct vkt t;
   VkFence fence;
};

static uint32_t
hash32(uint32_t x)
{
   x ^= x >> 16;
   x *= 0x7feb352du;
   x ^= x >> 15;
   x *= 0x846ca68bu;
   x ^= x >> 16;
   return x;
}

/* Submits cb until TIMED_RUNS_MAX runs or BUDGET_S, at least
 * TIMED_RUNS_MIN runs, or one when the warm-up run alone took longer than
 * the budget; calls `after` (may be NULL) after each run, which may fail
 * the measurement. The best time in seconds, or NAN. */
static double
time_best(struct ctx *c, VkCommandBuffer cb, double warm_up, const char *what,
          bool (*after)(void *arg), void *arg)
{
   double runs[TIMED_RUNS_MAX];
   unsigned n = 0, min_runs = warm_up > BUDGET_S ? 1 : TIMED_RUNS_MIN;
   double begin = bench_now();
   while (n < TIMED_RUNS_MAX && (n < min_runs || bench_now() - begin < BUDGET_S)) {
      double t = bench_submit_wait(&c->t, cb, c->fence);
      if (t < 0.0 || (after && !after(arg)))
         return NAN;
      runs[n++] = t;
   }
   printf("# %s: %s: warm-up %.2f ms, runs (ms):", vkt_driver_name(c->t.driver), what,
          warm_up * 1e3);
   for (unsigned i = 0; i < n; i++)
      printf(" %.2f", runs[i] * 1e3);
   printf("\n");
   return bench_min(runs, n);
}

/* A command buffer with one dispatch of k. */
static VkCommandBuffer
record(struct ctx *c, struct bench_kernel *k, const void *push, uint32_t push_size, uint32_t gx,
       uint32_t gy)
{
   VkCommandBuffer cb = vkt_begin_flags(&c->t, 0);
   if (!cb)
      return VK_NULL_HANDLE;
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, 1, &k->set, 0, NULL);
   if (push_size)
      vkCmdPushConstants(cb, k->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_size, push);
   vkCmdDispatch(cb, gx, gy, 1);
   if (vkEndCommandBuffer(cb) != VK_SUCCESS) {
      vkFreeCommandBuffers(c->t.device, c->t.pool, 1, &cb);
      return VK_NULL_HANDLE;
   }
   return cb;
}

/* ---- SAXPY ---- */

static double
bench_saxpy(struct ctx *c)
{
   const uint32_t n = STREAM_ELEMS;
   const float a = 0.75f;
   struct bench_kernel k = { 0 };
   struct vkt_buffer x = { 0 }, y = { 0 };
   double best = NAN;
   VkCommandBuffer cb = VK_NULL_HANDLE;
   float *ref = malloc((size_t)n * sizeof(float));
   if (!ref || !bench_kernel_init(&c->t, &k, saxpy_spv, sizeof(saxpy_spv), 2, 8) ||
       !(k.pipeline = bench_pipeline(&c->t, &k, VK_NULL_HANDLE, NULL)) ||
       vkt_buffer_create(&c->t, (VkDeviceSize)n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &x) ||
       vkt_buffer_create(&c->t, (VkDeviceSize)n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &y))
      goto out;
   float *xs = x.map, *ys = y.map;
   for (uint32_t i = 0; i < n; i++) {
      xs[i] = (float)(hash32(i) % 2000u) * 0.001f - 1.0f;
      ys[i] = (float)(i % 977u) * 0.5f;
   }
   memcpy(ref, ys, (size_t)n * sizeof(float));
   VkBuffer handles[2] = { x.buffer, y.buffer };
   bench_kernel_bind(&c->t, &k, handles, 2);
   struct { float a; uint32_t n; } push = { a, n };
   cb = record(c, &k, &push, sizeof(push), 1024, n / (1024 * 256));
   double warm_up = cb ? bench_submit_wait(&c->t, cb, c->fence) : -1.0;
   if (warm_up < 0.0)
      goto out;
   /* Each of the multiply and the add correctly rounded, or one fused op. */
   for (uint32_t i = 0; i < n; i++) {
      double want = (double)a * xs[i] + ref[i];
      double tol = 3.0 * 0x1p-24 * (fabs((double)a * xs[i]) + fabs(ref[i])) + 1e-30;
      if (fabs(ys[i] - want) > tol) {
         fprintf(stderr, "%s: saxpy y[%u] = %.9g, expected %.9g\n",
                 vkt_driver_name(c->t.driver), i, ys[i], want);
         goto out;
      }
   }
   double t = time_best(c, cb, warm_up, "saxpy 64 MiB", NULL, NULL);
   best = 3.0 * 4.0 * n / t / 1e9;
out:
   if (cb)
      vkFreeCommandBuffers(c->t.device, c->t.pool, 1, &cb);
   vkt_buffer_destroy(&c->t, &x);
   vkt_buffer_destroy(&c->t, &y);
   bench_kernel_finish(&c->t, &k);
   free(ref);
   return best;
}

/* ---- reduction ---- */

struct reduce_check {
   uint32_t *total;
   uint32_t want;
   const char *driver;
};

/* Checks the sum, then zeroes it for the next run. */
static bool
reduce_after(void *arg)
{
   struct reduce_check *rc = arg;
   bool ok = *rc->total == rc->want;
   if (!ok)
      fprintf(stderr, "%s: reduction gave %u, expected %u\n", rc->driver, *rc->total, rc->want);
   *rc->total = 0;
   return ok;
}

static double
bench_reduce(struct ctx *c)
{
   const uint32_t n = STREAM_ELEMS;
   struct bench_kernel k = { 0 };
   struct vkt_buffer in = { 0 }, out = { 0 };
   double best = NAN;
   VkCommandBuffer cb = VK_NULL_HANDLE;
   uint32_t per = REDUCE_PER_INVOCATION;
   VkSpecializationMapEntry entry = { 0, 0, 4 };
   VkSpecializationInfo spec = { 1, &entry, 4, &per };
   if (!bench_kernel_init(&c->t, &k, reduce_spv, sizeof(reduce_spv), 2, 0) ||
       !(k.pipeline = bench_pipeline(&c->t, &k, VK_NULL_HANDLE, &spec)) ||
       vkt_buffer_create(&c->t, (VkDeviceSize)n * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &in) ||
       vkt_buffer_create(&c->t, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out))
      goto done;
   uint32_t *v = in.map, want = 0;
   for (uint32_t i = 0; i < n; i++) {
      v[i] = hash32(i ^ 0x5bd1e995u) & 0xffffu;
      want += v[i];
   }
   memset(out.map, 0, 64);
   VkBuffer handles[2] = { in.buffer, out.buffer };
   bench_kernel_bind(&c->t, &k, handles, 2);
   cb = record(c, &k, NULL, 0, n / (256 * per), 1);
   struct reduce_check rc = { out.map, want, vkt_driver_name(c->t.driver) };
   double warm_up = cb ? bench_submit_wait(&c->t, cb, c->fence) : -1.0;
   if (warm_up < 0.0 || !reduce_after(&rc))
      goto done;
   double t = time_best(c, cb, warm_up, "sum 64 MiB", reduce_after, &rc);
   best = 4.0 * n / t / 1e9;
done:
   if (cb)
      vkFreeCommandBuffers(c->t.device, c->t.pool, 1, &cb);
   vkt_buffer_destroy(&c->t, &in);
   vkt_buffer_destroy(&c->t, &out);
   bench_kernel_finish(&c->t, &k);
   return best;
}

/* ---- SGEMM ---- */

/* C[i][j] against a double-precision dot product. */
static bool
sgemm_check_one(const float *a, const float *b, const float *cm, uint32_t n, uint32_t i,
                uint32_t j, const char *driver)
{
   double sum = 0.0, mag = 0.0;
   for (uint32_t k = 0; k < n; k++) {
      double p = (double)a[(size_t)i * n + k] * b[(size_t)k * n + j];
      sum += p;
      mag += fabs(p);
   }
   double got = cm[(size_t)i * n + j];
   if (fabs(got - sum) <= 1e-5 * mag + 1e-6)
      return true;
   fprintf(stderr, "%s: sgemm %u: C[%u][%u] = %.7g, expected %.7g\n", driver, n, i, j, got, sum);
   return false;
}

static bool
sgemm_check(const float *a, const float *b, const float *cm, uint32_t n, const char *driver)
{
   const uint32_t lines[] = { 0, 1, 15, 16, 63, 64, n / 2 + 5, n - 1 };
   for (unsigned l = 0; l < BENCH_ARRAY_SIZE(lines); l++) {
      for (uint32_t m = 0; m < n; m++) {
         if (!sgemm_check_one(a, b, cm, n, lines[l], m, driver) ||
             !sgemm_check_one(a, b, cm, n, m, lines[l], driver))
            return false;
      }
   }
   for (uint32_t s = 0; s < 2000; s++) {
      uint32_t h = hash32(s * 2u + 1u);
      if (!sgemm_check_one(a, b, cm, n, h % n, (h >> 16) % n, driver))
         return false;
   }
   return true;
}

static double
bench_sgemm(struct ctx *c, uint32_t n)
{
   struct bench_kernel k = { 0 };
   struct vkt_buffer bufs[3] = { 0 };
   double best = NAN;
   VkCommandBuffer cb = VK_NULL_HANDLE;
   VkDeviceSize size = (VkDeviceSize)n * n * 4;
   if (!bench_kernel_init(&c->t, &k, sgemm_spv, sizeof(sgemm_spv), 3, 4) ||
       !(k.pipeline = bench_pipeline(&c->t, &k, VK_NULL_HANDLE, NULL)))
      goto out;
   for (int i = 0; i < 3; i++)
      if (vkt_buffer_create(&c->t, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &bufs[i]))
         goto out;
   float *a = bufs[0].map, *b = bufs[1].map, *cm = bufs[2].map;
   for (size_t i = 0; i < (size_t)n * n; i++) {
      a[i] = (float)(hash32((uint32_t)i) % 20001u) * 1e-4f - 1.0f;
      b[i] = (float)(hash32((uint32_t)i + 0x9e3779b9u) % 20001u) * 1e-4f - 1.0f;
   }
   memset(cm, 0, size);
   VkBuffer handles[3] = { bufs[0].buffer, bufs[1].buffer, bufs[2].buffer };
   bench_kernel_bind(&c->t, &k, handles, 3);
   cb = record(c, &k, &n, 4, n / 64, n / 64);
   double warm_up = cb ? bench_submit_wait(&c->t, cb, c->fence) : -1.0;
   if (warm_up < 0.0 || !sgemm_check(a, b, cm, n, vkt_driver_name(c->t.driver)))
      goto out;
   char what[32];
   snprintf(what, sizeof(what), "sgemm %u", n);
   double t = time_best(c, cb, warm_up, what, NULL, NULL);
   best = 2.0 * n * n * (double)n / t / 1e9;
out:
   if (cb)
      vkFreeCommandBuffers(c->t.device, c->t.pool, 1, &cb);
   for (int i = 0; i < 3; i++)
      vkt_buffer_destroy(&c->t, &bufs[i]);
   bench_kernel_finish(&c->t, &k);
   return best;
}

/* --only: the one kernel to run (NULL: all). */
static const char *bench_only;
static const char *const bench_names[C_COUNT] = { "saxpy", "reduce", "sgemm1024", "sgemm2048" };

static bool
wanted(int which)
{
   return !bench_only || !strcmp(bench_only, bench_names[which]);
}

static bool
run_driver(void *arg, double *out)
{
   struct ctx c;
   memset(&c, 0, sizeof(c));
   if (!bench_device_init(&c.t, *(const enum vkt_driver *)arg))
      return false;
   VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   bool ok = vkCreateFence(c.t.device, &fci, NULL, &c.fence) == VK_SUCCESS;
   if (ok) {
      if (wanted(C_SAXPY))
         out[C_SAXPY] = bench_saxpy(&c);
      if (wanted(C_REDUCE))
         out[C_REDUCE] = bench_reduce(&c);
      if (wanted(C_SGEMM_1024))
         out[C_SGEMM_1024] = bench_sgemm(&c, 1024);
      if (wanted(C_SGEMM_2048))
         out[C_SGEMM_2048] = bench_sgemm(&c, 2048);
      for (int i = 0; i < C_COUNT; i++)
         ok &= !wanted(i) || !isnan(out[i]);
      vkDestroyFence(c.t.device, c.fence, NULL);
   }
   vkt_finish(&c.t);
   return ok;
}

/* ---- the same loops in C on the host, 2 threads ---- */

struct host_part {
   float *x, *y;
   const uint32_t *v;
   size_t begin, end;
   uint32_t sum;
};

static void *
host_saxpy(void *arg)
{
   struct host_part *p = arg;
   for (size_t i = p->begin; i < p->end; i++)
      p->y[i] = 0.75f * p->x[i] + p->y[i];
   return NULL;
}

static void *
host_sum(void *arg)
{
   struct host_part *p = arg;
   uint32_t s = 0;
   for (size_t i = p->begin; i < p->end; i++)
      s += p->v[i];
   p->sum = s;
   return NULL;
}

/* Best of five, in seconds, of fn over n elements on two threads. */
static double
host_time(void *(*fn)(void *), float *x, float *y, size_t n)
{
   double best = INFINITY;
   for (int run = 0; run < 5; run++) {
      struct host_part parts[2] = {
         { x, y, (const uint32_t *)x, 0, n / 2, 0 },
         { x, y, (const uint32_t *)x, n / 2, n, 0 },
      };
      pthread_t thread;
      double t0 = bench_now();
      if (pthread_create(&thread, NULL, fn, &parts[1]) != 0)
         return NAN;
      fn(&parts[0]);
      pthread_join(thread, NULL);
      double t = bench_now() - t0;
      if (t < best)
         best = t;
   }
   return best;
}

static void
host_reference(void)
{
   size_t n = STREAM_ELEMS;
   float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
   if (!x || !y) {
      free(x);
      free(y);
      return;
   }
   for (size_t i = 0; i < n; i++) {
      x[i] = (float)(i % 1000) * 0.001f;
      y[i] = 1.0f;
   }
   double saxpy = host_time(host_saxpy, x, y, n);
   double sum = host_time(host_sum, x, y, n);
   double fma = bench_host_fma_gflops(2);
   printf("# host C loops now, 2 threads, same 64 MiB buffers: SAXPY %.1f GB/s, "
          "sum %.1f GB/s (MACHINE.md: memcpy %.1f, read %.1f); %s FMA %.0f GFLOP/s "
          "(MACHINE.md: AVX-512 %.0f)\n",
          12.0 * n / saxpy / 1e9, 4.0 * n / sum / 1e9, BENCH_MEMCPY_GBS, BENCH_READ_GBS,
          bench_host_fma_isa(), fma,
          BENCH_FMA_PEAK_GFLOPS);
   free(x);
   free(y);
}

static void
usage(void)
{
   fprintf(stderr, "usage: bench_compute [--no-header] [--driver shale|lavapipe] "
                   "[--only saxpy|reduce|sgemm1024|sgemm2048]\n"
                   "(--driver and --only select work for profiling, e.g. under perf)\n");
   exit(2);
}

int
main(int argc, char **argv)
{
   bench_setup();
   bool header = true, run_sh = true, run_lvp = true;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--no-header")) {
         header = false;
      } else if (!strcmp(argv[i], "--driver") && i + 1 < argc) {
         i++;
         run_sh = !strcmp(argv[i], "shale");
         run_lvp = !strcmp(argv[i], "lavapipe");
         if (!run_sh && !run_lvp)
            usage();
      } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
         bench_only = argv[++i];
         bool known = false;
         for (int k = 0; k < C_COUNT; k++)
            known |= !strcmp(bench_only, bench_names[k]);
         if (!known)
            usage();
      } else {
         usage();
      }
   }
   double sh[C_COUNT], lvp[C_COUNT];
   for (int i = 0; i < C_COUNT; i++)
      sh[i] = lvp[i] = NAN;
   enum vkt_driver d_sh = VKT_SHALE, d_lvp = VKT_LAVAPIPE;
   bool ok_sh = !run_sh || bench_in_child(run_driver, &d_sh, sh, C_COUNT);
   bool ok_lvp = !run_lvp || bench_in_child(run_driver, &d_lvp, lvp, C_COUNT);
   if (!bench_only)
      host_reference();

   char t1[80], t2[80];
   const double half = 0.5 * BENCH_FMA_PEAK_GFLOPS;
   snprintf(t1, sizeof(t1), ">= 50%% of FMA peak: %s",
            isnan(sh[C_SGEMM_1024]) ? "n/a" : sh[C_SGEMM_1024] >= half ? "MET" : "NOT MET");
   snprintf(t2, sizeof(t2), ">= 50%% of FMA peak: %s",
            isnan(sh[C_SGEMM_2048]) ? "n/a" : sh[C_SGEMM_2048] >= half ? "MET" : "NOT MET");
   if (header)
      bench_print_header();
   bench_print_row("SAXPY, 64 MiB buffers", "GB/s", sh[C_SAXPY], lvp[C_SAXPY], false,
                   BENCH_MEMCPY_GBS, "memcpy 26 GB/s", NULL);
   bench_print_row("reduction (sum), 64 MiB", "GB/s", sh[C_REDUCE], lvp[C_REDUCE], false,
                   BENCH_READ_GBS, "read 24.6 GB/s", NULL);
   bench_print_row("SGEMM 1024x1024", "GFLOP/s", sh[C_SGEMM_1024], lvp[C_SGEMM_1024], false,
                   BENCH_FMA_PEAK_GFLOPS, "FMA peak 425", t1);
   bench_print_row("SGEMM 2048x2048", "GFLOP/s", sh[C_SGEMM_2048], lvp[C_SGEMM_2048], false,
                   BENCH_FMA_PEAK_GFLOPS, "FMA peak 425", t2);
   if (!ok_sh || !ok_lvp) {
      fprintf(stderr, "bench_compute: %s failed\n",
              !ok_sh ? (!ok_lvp ? "both drivers" : "shale") : "lavapipe");
      return 1;
   }
   return 0;
}
