/* Shared benchmark helpers: forked measurements, kernels, timing, table rows. */
#include "bench_util.h"

#include <errno.h>
#include <math.h>
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
