/* exit() with work in flight: a child process creates pipelines (each
 * leaves an optimized compile to the background optimizer), submits a
 * dispatch without waiting for it, keeps another thread creating pipelines,
 * and calls exit() at once or after a short delay, without destroying
 * anything; the driver must let the process end cleanly (exit status 0, no
 * signal) while the optimizer thread, an application thread's compile, the
 * queue thread and the worker threads are busy. The parent runs the child many
 * times with delays spread over a compile, for at most about 15 s. Then
 * "unload" children compile a pipeline (which registers the compiler's exit
 * hook, src/compiler/sc_exit.c), destroy everything (the loader unloads the
 * ICD) and exit: the hook must have been bound to the driver's shared
 * object, not to the process, or exit() calls into unmapped code (it did
 * under ThreadSanitizer, whose runtime intercepts atexit). Shale
 * only; the children run without the validation layer (nothing they do is
 * invalid, and the layer's start-up would dominate each run). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "vkt.h"

#include "shaders/spec_spv.h"

enum { PIPELINES = 12, RUNS = 40, WIDTH = 64 };

static double
now_s(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The spec shader's specialization: its workgroup width and a multiplier
 * (distinct multipliers: distinct shaders, each compiled). */
struct spec {
   struct { uint32_t width; int32_t mul; } data;
   VkSpecializationMapEntry map[2];
   VkSpecializationInfo info;
};

static void
spec_init(struct spec *s, int32_t mul)
{
   s->data.width = WIDTH;
   s->data.mul = mul;
   s->map[0] = (VkSpecializationMapEntry){ 0, 0, 4 };
   s->map[1] = (VkSpecializationMapEntry){ 1, 4, 4 };
   s->info = (VkSpecializationInfo){ 2, s->map, sizeof(s->data), &s->data };
}

/* What every child sets up: Shale without the validation layer, the spec
 * shader's module, set layout (two storage buffers) and pipeline layout. */
struct child_env {
   struct vkt t;
   VkDescriptorSetLayout sl;
   VkShaderModule module;
   VkPipelineLayout layout;
};

static bool
child_setup(struct child_env *e)
{
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&e->t, &opts))
      return false;
   VkDescriptorSetLayoutBinding b[2] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   if (vkt_set_layout(&e->t, b, 2, &e->sl) != VK_SUCCESS ||
       vkt_shader_module(&e->t, spec_spv, sizeof(spec_spv), &e->module) != VK_SUCCESS)
      return false;
   VkPipelineLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &e->sl,
   };
   return vkCreatePipelineLayout(e->t.device, &lci, NULL, &e->layout) == VK_SUCCESS;
}

/* An application thread creating pipelines until the main thread is about
 * to exit: one of its compiles is usually running when exit() begins. */
struct creator {
   struct vkt *t;
   VkShaderModule module;
   VkPipelineLayout layout;
   atomic_bool stop;
};

static void *
creator_main(void *arg)
{
   struct creator *c = arg;
   struct spec spec;
   spec_init(&spec, 0);
   for (int32_t i = 0; !atomic_load(&c->stop); i++) {
      spec.data.mul = 5000000 + (int32_t)getpid() % 1000 * 1000 + i;
      VkPipeline p;
      VkComputePipelineCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
         .stage = { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                    VK_SHADER_STAGE_COMPUTE_BIT, c->module, "main", &spec.info },
         .layout = c->layout,
      };
      /* At exit the driver may refuse: any result will do. */
      vkCreateComputePipelines(c->t->device, VK_NULL_HANDLE, 1, &ci, NULL, &p);
   }
   return NULL;
}

/* The child: returns only on a setup failure (exit status 2). */
static int
child(unsigned delay_us)
{
   struct child_env e;
   if (!child_setup(&e))
      return 2;
   struct vkt *t = &e.t;
   /* Distinct specialization values: distinct shaders, each compiled. */
   struct spec spec;
   spec_init(&spec, 0);
   VkPipeline pipelines[PIPELINES];
   for (int i = 0; i < PIPELINES; i++) {
      spec.data.mul = 1000 + (int32_t)getpid() % 1000 * PIPELINES + i;
      if (vkt_compute_pipeline(t, VK_NULL_HANDLE, e.module, e.layout, &spec.info, 0, NULL,
                               &pipelines[i]) != VK_SUCCESS)
         return 2;
   }
   /* A dispatch in flight on the queue thread and the workers. */
   enum { GROUPS = 4096 };
   struct vkt_buffer o, info;
   if (vkt_buffer_create(t, GROUPS * WIDTH * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &o) ||
       vkt_buffer_create(t, GROUPS * WIDTH * 4 + 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &info))
      return 2;
   VkDescriptorPoolSize size = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 };
   VkDescriptorPool pool;
   VkDescriptorSet set;
   if (vkt_descriptor_pool(t, 1, &size, 1, 0, &pool) || vkt_alloc_sets(t, pool, &e.sl, 1, &set))
      return 2;
   VkBuffer bufs[2] = { o.buffer, info.buffer };
   vkt_bind_buffers(t, set, NULL, bufs, 2);
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[PIPELINES - 1]);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e.layout, 0, 1, &set, 0, NULL);
   for (int i = 0; i < 8; i++)
      vkCmdDispatch(cb, GROUPS, 1, 1);
   if (vkEndCommandBuffer(cb) != VK_SUCCESS)
      return 2;
   VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &cb };
   if (vkQueueSubmit(t->queue, 1, &si, VK_NULL_HANDLE) != VK_SUCCESS)
      return 2;
   static struct creator creator;
   creator.t = t;
   creator.module = e.module;
   creator.layout = e.layout;
   pthread_t thread;
   if (pthread_create(&thread, NULL, creator_main, &creator) != 0)
      return 2;
   if (delay_us)
      usleep(delay_us);
   /* The creator starts no compile after this, but the one it may be in
    * goes on while exit() runs. */
   atomic_store(&creator.stop, true);
   exit(0);
}

/* An "unload" child: a compile, everything destroyed, exit(0). */
static int
unload_child(void)
{
   struct child_env e;
   if (!child_setup(&e))
      return 2;
   struct spec spec;
   spec_init(&spec, 7);
   VkPipeline pipeline;
   if (vkt_compute_pipeline(&e.t, VK_NULL_HANDLE, e.module, e.layout, &spec.info, 0, NULL,
                            &pipeline) != VK_SUCCESS)
      return 2;
   vkDestroyPipeline(e.t.device, pipeline, NULL);
   vkDestroyPipelineLayout(e.t.device, e.layout, NULL);
   vkDestroyShaderModule(e.t.device, e.module, NULL);
   vkDestroyDescriptorSetLayout(e.t.device, e.sl, NULL);
   vkt_finish(&e.t);
   exit(0);
}

/* Runs `argv0 child arg` and checks it exits with status 0. */
static bool
run_child(const char *argv0, const char *mode, const char *arg, int i)
{
   pid_t pid = fork();
   if (pid == 0) {
      /* Exiting without destroying anything is what this tests: no leak
       * report from LeakSanitizer (sanitizer builds). */
      const char *asan = getenv("ASAN_OPTIONS");
      char opts[1024];
      snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", asan ? asan : "", asan ? ":" : "");
      setenv("ASAN_OPTIONS", opts, 1);
      execl("/proc/self/exe", argv0, mode, arg, (char *)NULL);
      _exit(3);
   }
   CHECK(pid > 0, "fork: %s", strerror(errno));
   if (pid <= 0)
      return false;
   int status = 0;
   while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
      ;
   bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
   if (!ok) {
      if (WIFSIGNALED(status))
         CHECK(0, "%s run %d (%s): killed by signal %d", mode, i, arg, WTERMSIG(status));
      else
         CHECK(0, "%s run %d (%s): exit status %d", mode, i, arg, WEXITSTATUS(status));
   }
   return ok;
}

int
main(int argc, char **argv)
{
   if (argc == 3 && strcmp(argv[1], "child") == 0)
      return child((unsigned)strtoul(argv[2], NULL, 10));
   if (argc == 3 && strcmp(argv[1], "unload") == 0)
      return unload_child();
   double start = now_s();
   int runs = 0, crashed = 0;
   for (int i = 0; i < RUNS && (runs < 5 || now_s() - start < 15.0); i++) {
      char delay[16];
      /* 0 .. 45 ms after the last pipeline: through the optimizer's
       * compiles of the twelve shaders. */
      snprintf(delay, sizeof(delay), "%u", (unsigned)(i % 10) * 5000u);
      runs++;
      crashed += !run_child(argv[0], "child", delay, i);
   }
   fprintf(stderr, "exit: %d runs in %.1f s, %d did not end cleanly\n", runs, now_s() - start,
           crashed);
   CHECK(runs >= 5, "only %d runs", runs);
   /* The exit hook after the driver was unloaded. */
   int unload_bad = 0;
   for (int i = 0; i < 3; i++)
      unload_bad += !run_child(argv[0], "unload", "-", i);
   fprintf(stderr, "exit: 3 unload runs, %d did not end cleanly\n", unload_bad);
   return check_finish();
}
