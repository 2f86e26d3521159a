/* Shared benchmark helpers: forked measurements, kernels, timing, table rows. */
#include "bench_util.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void
bench_setup(void)
{
   /* llvmpipe keeps compiled shaders on disk; a warm disk cache would turn
    * lavapipe's "cold" creations into cache hits from an earlier run. */
   setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
   /* Keep Mesa's implicit device-select layer out, as the API tests do. */
   setenv("NODEVICE_SELECT", "1", 0);
   setvbuf(stdout, NULL, _IOLBF, 0);
}

double
bench_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool
bench_device_init(struct vkt *t, enum vkt_driver driver)
{
   struct vkt_options opts = { .driver = driver, .no_validation = true };
   return vkt_init(t, &opts);
}

bool
bench_in_child(bool (*fn)(void *arg, double *out), void *arg, double *out, unsigned count)
{
   for (unsigned i = 0; i < count; i++)
      out[i] = NAN;
   int fds[2];
   if (pipe(fds) != 0) {
      perror("pipe");
      return false;
   }
   fflush(stdout);
   fflush(stderr);
   pid_t pid = fork();
   if (pid < 0) {
      perror("fork");
      close(fds[0]);
      close(fds[1]);
      return false;
   }
   if (pid == 0) {
      close(fds[0]);
      bool ok = fn(arg, out);
      size_t size = count * sizeof(double);
      const char *p = (const char *)out;
      while (size > 0) {
         ssize_t w = write(fds[1], p, size);
         if (w <= 0)
            break;
         p += w;
         size -= (size_t)w;
      }
      close(fds[1]);
      fflush(stdout);
      fflush(stderr);
      _exit(ok ? 0 : 1);
   }
   close(fds[1]);
   size_t got = 0, size = count * sizeof(double);
   char *p = (char *)out;
   while (got < size) {
      ssize_t r = read(fds[0], p + got, size - got);
      if (r < 0 && errno == EINTR)
         continue;
      if (r <= 0)
         break;
      got += (size_t)r;
   }
   close(fds[0]);
   if (got < size) {
      for (unsigned i = 0; i < count; i++)
         out[i] = NAN;
   }
   int status = 0;
   while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
   return got == size && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

VkShaderModule
bench_module(struct vkt *t, const uint32_t *code, size_t size)
{
   VkShaderModule m;
   vkt_shader_module(t, code, size, &m);   /* prints a failure */
   return m;
}

bool
bench_kernel_init(struct vkt *t, struct bench_kernel *k, const uint32_t *code, size_t size,
                  uint32_t buffers, uint32_t push_size)
{
   memset(k, 0, sizeof(*k));
   VkDescriptorSetLayoutBinding b[8];
   if (buffers > BENCH_ARRAY_SIZE(b))
      return false;
   for (uint32_t i = 0; i < buffers; i++)
      b[i] = (VkDescriptorSetLayoutBinding) {
         i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL,
      };
   const struct vkt_kernel_info info = {
      .code = code,
      .code_size = size,
      .bindings = { b },
      .binding_counts = { buffers },
      .push_size = push_size,
      .no_pipeline = true,
   };
   struct vkt_kernel vk;
   VkResult r = vkt_kernel_create(t, &info, &vk);
   k->module = vk.module;
   k->set_layout = vk.set_layouts[0];
   k->layout = vk.layout;
   if (r != VK_SUCCESS)
      return false;
   VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers };
   if (vkt_descriptor_pool(t, 1, &ps, 1, 0, &k->pool) != VK_SUCCESS)
      return false;
   return vkt_alloc_sets(t, k->pool, &k->set_layout, 1, &k->set) == VK_SUCCESS;
}

VkPipeline
bench_pipeline(struct vkt *t, const struct bench_kernel *k, VkPipelineCache cache,
               const VkSpecializationInfo *spec)
{
   VkPipeline p;
   vkt_compute_pipeline(t, cache, k->module, k->layout, spec, 0, NULL, &p);   /* prints */
   return p;
}

void
bench_kernel_bind(struct vkt *t, struct bench_kernel *k, const VkBuffer *buffers, uint32_t count)
{
   vkt_bind_buffers(t, k->set, NULL, buffers, count);
}

void
bench_kernel_finish(struct vkt *t, struct bench_kernel *k)
{
   if (k->pipeline)
      vkDestroyPipeline(t->device, k->pipeline, NULL);
   if (k->pool)
      vkDestroyDescriptorPool(t->device, k->pool, NULL);
   if (k->layout)
      vkDestroyPipelineLayout(t->device, k->layout, NULL);
   if (k->set_layout)
      vkDestroyDescriptorSetLayout(t->device, k->set_layout, NULL);
   if (k->module)
      vkDestroyShaderModule(t->device, k->module, NULL);
   memset(k, 0, sizeof(*k));
}

double
bench_submit_wait(struct vkt *t, VkCommandBuffer cb, VkFence fence)
{
   VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
   };
   if (vkResetFences(t->device, 1, &fence) != VK_SUCCESS)
      return -1.0;
   double start = bench_now();
   if (vkQueueSubmit(t->queue, 1, &si, fence) != VK_SUCCESS)
      return -1.0;
   if (vkWaitForFences(t->device, 1, &fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS)
      return -1.0;
   return bench_now() - start;
}

#define BENCH_HOST_THREADS_MAX 256

/* Runs fn(args[i]) on `threads` threads (the caller's is the first); the
 * best wall time of three runs, or NAN. */
static double
bench_host_run(void *(*fn)(void *), void *args, size_t arg_size, unsigned threads)
{
   double best = INFINITY;
   for (int run = 0; run < 3; run++) {
      pthread_t thread[BENCH_HOST_THREADS_MAX];
      unsigned started = 1;
      double t0 = bench_now();
      for (; started < threads; started++)
         if (pthread_create(&thread[started], NULL, fn, (char *)args + started * arg_size) != 0)
            break;
      fn(args);
      for (unsigned i = 1; i < started; i++)
         pthread_join(thread[i], NULL);
      double t = bench_now() - t0;
      if (started < threads)
         return NAN;
      if (t < best)
         best = t;
   }
   return best;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

struct host_fma {
   uint64_t iterations;
   float init[16];   /* distinct starting values: chains the compiler cannot merge */
   float sink;
};

#define FMA4(i) \
   a##i = _mm512_fmadd_ps(a##i, m, c); \
   b##i = _mm512_fmadd_ps(b##i, m, c); \
   d##i = _mm512_fmadd_ps(d##i, m, c); \
   e##i = _mm512_fmadd_ps(e##i, m, c)

/* 16 independent chains of 512-bit FMAs: 512 FLOP per iteration. */
__attribute__((target("avx512f"))) static void *
host_fma512(void *arg)
{
   struct host_fma *f = arg;
   const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
   const float *v = f->init;
   __m512 a0 = _mm512_set1_ps(v[0]), a1 = _mm512_set1_ps(v[1]), a2 = _mm512_set1_ps(v[2]),
          a3 = _mm512_set1_ps(v[3]), b0 = _mm512_set1_ps(v[4]), b1 = _mm512_set1_ps(v[5]),
          b2 = _mm512_set1_ps(v[6]), b3 = _mm512_set1_ps(v[7]), d0 = _mm512_set1_ps(v[8]),
          d1 = _mm512_set1_ps(v[9]), d2 = _mm512_set1_ps(v[10]), d3 = _mm512_set1_ps(v[11]),
          e0 = _mm512_set1_ps(v[12]), e1 = _mm512_set1_ps(v[13]), e2 = _mm512_set1_ps(v[14]),
          e3 = _mm512_set1_ps(v[15]);
   for (uint64_t it = 0; it < f->iterations; it++) {
      FMA4(0);
      FMA4(1);
      FMA4(2);
      FMA4(3);
   }
   __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                            _mm512_add_ps(_mm512_add_ps(b0, b1), _mm512_add_ps(b2, b3)));
   s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(d0, d1), _mm512_add_ps(d2, d3)));
   s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(e0, e1), _mm512_add_ps(e2, e3)));
   f->sink = _mm512_reduce_add_ps(s);
   return NULL;
}

#define FMA4_256(i) \
   a##i = _mm256_fmadd_ps(a##i, m, c); \
   b##i = _mm256_fmadd_ps(b##i, m, c); \
   d##i = _mm256_fmadd_ps(d##i, m, c); \
   e##i = _mm256_fmadd_ps(e##i, m, c)

/* The same with 256-bit FMAs (hosts without AVX-512): 256 FLOP per
 * iteration. */
__attribute__((target("avx2,fma"))) static void *
host_fma256(void *arg)
{
   struct host_fma *f = arg;
   const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
   const float *v = f->init;
   __m256 a0 = _mm256_set1_ps(v[0]), a1 = _mm256_set1_ps(v[1]), a2 = _mm256_set1_ps(v[2]),
          a3 = _mm256_set1_ps(v[3]), b0 = _mm256_set1_ps(v[4]), b1 = _mm256_set1_ps(v[5]),
          b2 = _mm256_set1_ps(v[6]), b3 = _mm256_set1_ps(v[7]), d0 = _mm256_set1_ps(v[8]),
          d1 = _mm256_set1_ps(v[9]), d2 = _mm256_set1_ps(v[10]), d3 = _mm256_set1_ps(v[11]),
          e0 = _mm256_set1_ps(v[12]), e1 = _mm256_set1_ps(v[13]), e2 = _mm256_set1_ps(v[14]),
          e3 = _mm256_set1_ps(v[15]);
   for (uint64_t it = 0; it < f->iterations; it++) {
      FMA4_256(0);
      FMA4_256(1);
      FMA4_256(2);
      FMA4_256(3);
   }
   __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                            _mm256_add_ps(_mm256_add_ps(b0, b1), _mm256_add_ps(b2, b3)));
   s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(d0, d1), _mm256_add_ps(d2, d3)));
   s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(e0, e1), _mm256_add_ps(e2, e3)));
   float lanes[8];
   _mm256_storeu_ps(lanes, s);
   f->sink = lanes[0] + lanes[1] + lanes[2] + lanes[3] + lanes[4] + lanes[5] + lanes[6] + lanes[7];
   return NULL;
}

double
bench_host_fma_gflops(unsigned threads)
{
   if (!__builtin_cpu_supports("avx512f") && !__builtin_cpu_supports("avx2"))
      return NAN;
   if (!__builtin_cpu_supports("fma") || threads < 1 || threads > BENCH_HOST_THREADS_MAX)
      return NAN;
   const uint64_t iterations = 20u << 20;
   struct host_fma *f = calloc(threads, sizeof(*f));
   if (!f)
      return NAN;
   for (unsigned t = 0; t < threads; t++) {
      f[t].iterations = iterations;
      for (int i = 0; i < 16; i++)
         f[t].init[i] = 1.0f + 0.01f * (float)(i + 16 * t);
   }
   bool wide = __builtin_cpu_supports("avx512f");
   double best = bench_host_run(wide ? host_fma512 : host_fma256, f, sizeof(*f), threads);
   free(f);
   return threads * (wide ? 512.0 : 256.0) * (double)iterations / best / 1e9;
}
#else
double
bench_host_fma_gflops(unsigned threads)
{
   (void)threads;
   return NAN;
}
#endif

const char *
bench_host_fma_isa(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
   if (__builtin_cpu_supports("avx512f"))
      return "AVX-512";
   if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return "AVX2";
#endif
   return "no";
}

struct host_fill {
   char *p;
   size_t size;
};

static void *
host_fill(void *arg)
{
   struct host_fill *f = arg;
   memset(f->p, 0x5a, f->size);
   return NULL;
}

double
bench_host_fill_gbs(unsigned threads)
{
   const size_t size = 64u << 20;
   if (threads < 1 || threads > BENCH_HOST_THREADS_MAX)
      return NAN;
   char *buf = malloc(size);
   struct host_fill *f = calloc(threads, sizeof(*f));
   double gbs = NAN;
   if (buf && f) {
      memset(buf, 0, size);   /* first touch: page faults are not measured */
      size_t part = size / threads / 64 * 64;
      for (unsigned t = 0; t < threads; t++) {
         f[t].p = buf + t * part;
         f[t].size = t + 1 == threads ? size - t * part : part;
      }
      gbs = (double)size / bench_host_run(host_fill, f, sizeof(*f), threads) / 1e9;
   }
   free(f);
   free(buf);
   return gbs;
}

static int
bench_cmp_double(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return x < y ? -1 : x > y;
}

double
bench_median(double *v, unsigned n)
{
   if (!n)
      return NAN;
   qsort(v, n, sizeof(*v), bench_cmp_double);
   return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double
bench_min(const double *v, unsigned n)
{
   double m = INFINITY;
   for (unsigned i = 0; i < n; i++)
      if (v[i] < m)
         m = v[i];
   return n ? m : NAN;
}

void
bench_print_header(void)
{
   printf("| benchmark | unit | Shale | lavapipe | Shale vs lavapipe | "
          "of machine limit (Shale / lavapipe) | target |\n");
   printf("|---|---|---|---|---|---|---|\n");
}

static void
bench_format(char *buf, size_t size, double v)
{
   if (isnan(v))
      snprintf(buf, size, "n/a");
   else if (fabs(v) >= 100.0)
      snprintf(buf, size, "%.0f", v);
   else if (fabs(v) >= 10.0)
      snprintf(buf, size, "%.1f", v);
   else if (fabs(v) >= 1.0)
      snprintf(buf, size, "%.2f", v);
   else
      snprintf(buf, size, "%.3f", v);
}

void
bench_print_row(const char *name, const char *unit, double shale, double lavapipe,
                bool lower_is_better, double limit, const char *limit_name, const char *target)
{
   char s[32], l[32], ratio[48], share[96];
   bench_format(s, sizeof(s), shale);
   bench_format(l, sizeof(l), lavapipe);
   double r = lower_is_better ? lavapipe / shale : shale / lavapipe;
   if (isnan(r))
      snprintf(ratio, sizeof(ratio), "n/a");
   else
      snprintf(ratio, sizeof(ratio), "%.2fx %s", r, r >= 1.0 ? "better" : "worse");
   if (limit > 0.0) {
      char ps[16], pl[16];
      snprintf(ps, sizeof(ps), isnan(shale) ? "n/a" : "%.1f%%", 100.0 * shale / limit);
      snprintf(pl, sizeof(pl), isnan(lavapipe) ? "n/a" : "%.1f%%", 100.0 * lavapipe / limit);
      snprintf(share, sizeof(share), "%s / %s of %s", ps, pl, limit_name);
   } else
      snprintf(share, sizeof(share), "-");
   printf("| %s | %s | %s | %s | %s | %s | %s |\n", name, unit, s, l, ratio, share,
          target ? target : "-");
}
