/* The runtime's optimizer: optimized code, compiled in the background, for
 * shaders that run baseline code meanwhile (see sd_pipeline_cache.h), and
 * graphics pipelines' fragment back-end routines, whose draws run the C
 * back end meanwhile (struct sd_fb_slot; sd_graphics_pipeline.c) unless a
 * draw claims the job first (sd_fb_slot_need: the queue thread compiles it,
 * or waits for the compile under way). One thread, one queue: back-end jobs
 * go ahead of the shader jobs, in the order they came. */
#include "sd_pipeline_cache.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "compiler/sc_compiler.h"
#include "sd_device.h"
#include "sd_util.h"
#include "util/su_fp.h"
#include "util/su_log.h"

/* One optimized compile to do: the compiled shader (a reference) and its
 * compile info, copied into the job's own allocation; or (cs NULL) a
 * pipeline's back-end routines to compile (slot, a reference). */
struct sd_optimize_job {
   struct sd_optimize_job *next;
   struct sd_compiled_shader *cs;
   struct sd_fb_slot *slot;
   struct sc_compile_info info;
};

/* Marks the job's subject done (under the runtime's lock). A slot a
 * draw claimed is the draw's to mark (sd_fb_slot_need). */
static void
sd_optimize_job_done_locked(struct sd_optimize_job *job)
{
   if (job->cs) {
      job->cs->optimizing = false;
   } else if (!job->slot->claimed) {
      job->slot->pending = false;
      atomic_store_explicit(&job->slot->settled, true, memory_order_release);
   }
}

/* Drops the job's reference and the job. */
static void
sd_optimize_job_free(struct sd_optimize_job *job)
{
   if (job->cs)
      sd_compiled_shader_unref(job->cs);
   else
      sd_fb_slot_unref(job->slot);
   free(job);
}

struct sd_fb_slot *
sd_fb_slot_create(void)
{
   struct sd_fb_slot *slot = calloc(1, sizeof(*slot));
   if (slot)
      atomic_init(&slot->refcount, 1);
   return slot;
}

void
sd_fb_slot_unref(struct sd_fb_slot *slot)
{
   if (slot && atomic_fetch_sub(&slot->refcount, 1) == 1)
      free(slot);
}

/* SHALE_BACKEND_DELAY_MS (a test hook): milliseconds a back-end job
 * sleeps before compiling, so that tests see draws before and after the
 * routines arrive. */
static unsigned
sd_backend_delay_ms(void)
{
   static int delay = -1;
   if (delay < 0) {
      const char *v = getenv("SHALE_BACKEND_DELAY_MS");
      long ms = v ? strtol(v, NULL, 10) : 0;
      delay = ms > 0 && ms < 60000 ? (int)ms : 0;
   }
   return (unsigned)delay;
}

/* Compiles the slot's wanted routines and publishes each as it is ready;
 * `where` names the thread in the log ("in the background", "for a
 * draw"). */
static void
sd_backend_compile(struct sd_runtime *rt, struct sd_fb_slot *slot, bool background,
                   const char *where)
{
   for (int part = 0; part < 2; part++) {
      /* Nobody but the background job holds the slot: its pipeline is gone. */
      if ((background && atomic_load(&slot->refcount) == 1) || sc_process_exiting())
         return;
      const bool ds = part == 1;
      if (ds ? !slot->want_ds : !slot->want_color)
         continue;
      uint64_t start = sd_now_ns();
      char msg[160] = "";
      enum sc_result r;
      void *fn = NULL;
      if (ds) {
         shale_fb_ds_fn f = NULL;
         r = sc_compile_fragment_ds(rt->compiler, &slot->ds_key, &f, msg, sizeof(msg));
         fn = (void *)(uintptr_t)f;
      } else {
         shale_fb_color_fn f = NULL;
         r = sc_compile_fragment_backend(rt->compiler, &slot->key, &f, msg, sizeof(msg));
         fn = (void *)(uintptr_t)f;
      }
      const char *what = ds ? "depth/stencil" : "colour";
      if (r != SC_SUCCESS) {
         if (!sc_process_exiting())
            su_log("pipeline: %s back end: compile %s failed (%s: %s); the C one stays", what,
                   where, sc_result_string(r), msg);
         continue;
      }
      atomic_store_explicit(ds ? &slot->ds : &slot->color, fn, memory_order_release);
      if (su_debug(SU_DEBUG_INFO)) {
         uint8_t ck[SC_COMPILE_KEY_SIZE];
         char key_str[17] = "?";
         if (sc_backend_cache_key(rt->compiler, ds ? NULL : &slot->key, ds ? &slot->ds_key : NULL,
                                  ck) == SC_SUCCESS)
            sd_key_string(ck, key_str);
         su_log("pipeline: %s back end %s: routine in place, compiled %s in %.2f ms", what,
                key_str, where, (sd_now_ns() - start) / 1e6);
      }
   }
}

/* The optimizer thread's part of a slot's job: the test delay (a draw may
 * claim the job meanwhile), then the compile unless a draw took it. */
static void
sd_backend_run(struct sd_runtime *rt, struct sd_fb_slot *slot)
{
   unsigned delay = sd_backend_delay_ms();
   pthread_mutex_lock(&rt->lock);
   if (delay) {
      /* A wait the runtime's teardown or a draw's claim cuts short. */
      struct timespec deadline;
      clock_gettime(CLOCK_REALTIME, &deadline);
      long long ns = deadline.tv_nsec + (long long)delay * 1000000LL;
      deadline.tv_sec += (time_t)(ns / 1000000000);
      deadline.tv_nsec = (long)(ns % 1000000000);
      int err = 0;
      while (!rt->optimizer_stop && !slot->claimed && !sc_process_exiting() && err != ETIMEDOUT)
         err = pthread_cond_timedwait(&rt->optimized, &rt->lock, &deadline);
   }
   const bool mine = !slot->claimed;
   slot->compiling = mine;
   pthread_mutex_unlock(&rt->lock);
   if (mine)
      sd_backend_compile(rt, slot, true, "in the background");
}

bool
sd_optimizer_enabled(void)
{
   static int enabled = -1;
   if (enabled < 0) {
      const char *v = getenv("SHALE_JIT_BASELINE");
      enabled = !(v && strcmp(v, "0") == 0);
   }
   return enabled;
}

/* A copy of info in one malloc'ed block after the job (the caller frees the
 * job only). */
static struct sd_optimize_job *
sd_optimize_job_create(struct sd_compiled_shader *cs, const struct sc_compile_info *info)
{
   size_t words = info->word_count * sizeof(uint32_t);
   size_t name = strlen(info->entry_point) + 1;
   size_t spec = info->spec_constant_count * sizeof(struct sc_spec_constant);
   size_t sets = info->set_layout_count * sizeof(struct sc_set_layout);
   size_t bindings = 0;
   for (uint32_t i = 0; i < info->set_layout_count; i++)
      bindings += info->set_layouts[i].binding_count * sizeof(struct sc_binding_layout);
   /* Every part is a multiple of 4 bytes but the name: it goes last. */
   struct sd_optimize_job *job = malloc(sizeof(*job) + spec + sets + bindings + words + name);
   if (!job)
      return NULL;
   memset(job, 0, sizeof(*job));
   job->cs = cs;
   job->info = *info;
   job->info.dump = NULL;
   job->info.flags &= ~(uint32_t)SC_COMPILE_BASELINE;
   uint8_t *p = (uint8_t *)(job + 1);
   struct sc_spec_constant *sp = (void *)p;
   if (spec)
      memcpy(sp, info->spec_constants, spec);
   job->info.spec_constants = spec ? sp : NULL;
   p += spec;
   struct sc_set_layout *sl = (void *)p;
   p += sets;
   for (uint32_t i = 0; i < info->set_layout_count; i++) {
      size_t n = info->set_layouts[i].binding_count * sizeof(struct sc_binding_layout);
      sl[i] = info->set_layouts[i];
      if (n) {
         memcpy(p, info->set_layouts[i].bindings, n);
         sl[i].bindings = (const struct sc_binding_layout *)p;
         p += n;
      }
   }
   job->info.set_layouts = sets ? sl : NULL;
   if (words)
      memcpy(p, info->words, words);
   job->info.words = (const uint32_t *)p;
   p += words;
   memcpy(p, info->entry_point, name);
   job->info.entry_point = (const char *)p;
   return job;
}

/* Compiles one job's optimized code and puts it in place. */
static void
sd_optimizer_run(struct sd_runtime *rt, struct sd_optimize_job *job)
{
   struct sd_compiled_shader *cs = job->cs;
   struct sc_shader *optimized = NULL;
   char message[256] = "";
   char key_str[17];
   sd_key_string(cs->key, key_str);
   const char *stage = job->info.stage == VK_SHADER_STAGE_VERTEX_BIT     ? "vertex"
                       : job->info.stage == VK_SHADER_STAGE_FRAGMENT_BIT ? "fragment"
                                                                         : "compute";
   /* Nobody but this job uses the shader any more: nothing to improve. */
   if (atomic_load(&cs->refcount) == 1)
      return;
   enum sc_result r = sc_compile(rt->compiler, &job->info, &optimized, message, sizeof(message));
   if (r != SC_SUCCESS && sc_process_exiting())
      return;   /* the compiler refuses at exit: nothing to say */
   if (r != SC_SUCCESS) {
      /* The baseline code is the same shader: it stays. */
      su_log("pipeline: %s shader %s: optimized compile failed (%s: %s); baseline code "
             "stays", stage, key_str, sc_result_string(r), message);
      return;
   }
   atomic_fetch_add(&rt->compilations, 1);
   pthread_mutex_lock(&rt->lock);
   cs->baseline = atomic_exchange(&cs->shader, optimized);
   pthread_mutex_unlock(&rt->lock);
   if (su_debug(SU_DEBUG_INFO))
      su_log("pipeline: %s shader %s: optimized code in place, compiled in the "
             "background in %.2f ms", stage, key_str, optimized->compile_ms);
}

static void *
sd_optimizer_main(void *data)
{
   struct sd_runtime *rt = data;
   su_fp_set_default();   /* compiles (and folds constants) here: su_fp.h */
#if defined(__linux__)
   /* Background work: the application's threads (and the compiles of the
    * pipelines it is creating) come first. Linux niceness is per thread. */
   setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
   pthread_setname_np(pthread_self(), "shale-optimize");
#endif
   pthread_mutex_lock(&rt->lock);
   for (;;) {
      struct sd_optimize_job *job = rt->jobs_first;
      /* At process exit the compiler refuses to start (sc_exit.c). The
       * jobs left will not run: whoever waits for one (a pipeline cache
       * read from an atexit handler, say) takes the baseline code now. */
      if (rt->optimizer_stop || sc_process_exiting()) {
         for (struct sd_optimize_job *j = rt->jobs_first; j; j = j->next)
            sd_optimize_job_done_locked(j);
         pthread_cond_broadcast(&rt->optimized);
         break;
      }
      if (!job) {
         pthread_cond_wait(&rt->optimized, &rt->lock);
         continue;
      }
      rt->jobs_first = job->next;
      if (!rt->jobs_first)
         rt->jobs_last = NULL;
      pthread_mutex_unlock(&rt->lock);
      if (job->cs)
         sd_optimizer_run(rt, job);
      else
         sd_backend_run(rt, job->slot);
      pthread_mutex_lock(&rt->lock);
      sd_optimize_job_done_locked(job);
      pthread_cond_broadcast(&rt->optimized);
      pthread_mutex_unlock(&rt->lock);
      sd_optimize_job_free(job);
      pthread_mutex_lock(&rt->lock);
   }
   pthread_mutex_unlock(&rt->lock);
   return NULL;
}

/* Starts the thread if needed; false when it cannot run (under the lock). */
static bool
sd_optimizer_start_locked(struct sd_runtime *rt)
{
   if (!rt->optimizer_started && !rt->optimizer_stop) {
      if (pthread_create(&rt->optimizer, NULL, sd_optimizer_main, rt) == 0)
         rt->optimizer_started = true;
   }
   return rt->optimizer_started && !rt->optimizer_stop;
}

VkResult
sd_optimizer_queue(struct sd_runtime *rt, struct sd_compiled_shader *cs,
                   const struct sc_compile_info *info)
{
   struct sd_optimize_job *job = sd_optimize_job_create(cs, info);
   if (!job)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_compiled_shader_ref(cs);
   pthread_mutex_lock(&rt->lock);
   if (!sd_optimizer_start_locked(rt)) {
      pthread_mutex_unlock(&rt->lock);
      sd_optimize_job_free(job);
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "optimizer thread unavailable");
   }
   cs->optimizing = true;
   if (rt->jobs_last)
      rt->jobs_last->next = job;
   else
      rt->jobs_first = job;
   rt->jobs_last = job;
   pthread_cond_broadcast(&rt->optimized);
   pthread_mutex_unlock(&rt->lock);
   return VK_SUCCESS;
}

VkResult
sd_optimizer_queue_backend(struct sd_runtime *rt, struct sd_fb_slot *slot)
{
   struct sd_optimize_job *job = calloc(1, sizeof(*job));
   if (!job)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   job->slot = slot;
   atomic_fetch_add(&slot->refcount, 1);
   pthread_mutex_lock(&rt->lock);
   if (!sd_optimizer_start_locked(rt)) {
      pthread_mutex_unlock(&rt->lock);
      sd_optimize_job_free(job);
      return sd_errorf(VK_ERROR_OUT_OF_HOST_MEMORY, "optimizer thread unavailable");
   }
   slot->pending = true;
   /* After the back-end jobs already queued, before the first shader job. */
   struct sd_optimize_job **link = &rt->jobs_first;
   while (*link && !(*link)->cs)
      link = &(*link)->next;
   job->next = *link;
   *link = job;
   if (!job->next)
      rt->jobs_last = job;
   pthread_cond_broadcast(&rt->optimized);
   pthread_mutex_unlock(&rt->lock);
   return VK_SUCCESS;
}

void
sd_fb_slot_need(struct sd_runtime *rt, struct sd_fb_slot *slot)
{
   if (!slot->at_draw || atomic_load_explicit(&slot->settled, memory_order_acquire))
      return;
   pthread_mutex_lock(&rt->lock);
   struct sd_optimize_job *job = NULL;
   const bool mine = slot->pending && !slot->claimed && !slot->compiling;
   if (mine) {
      slot->claimed = true;
      /* Still queued: off the queue (else the optimizer thread holds it
       * in its delay and drops it when it sees the claim). */
      struct sd_optimize_job **link = &rt->jobs_first, *prev = NULL;
      while (*link && (*link)->slot != slot) {
         prev = *link;
         link = &(*link)->next;
      }
      job = *link;
      if (job) {
         *link = job->next;
         if (rt->jobs_last == job)
            rt->jobs_last = prev;
      }
      pthread_cond_broadcast(&rt->optimized);   /* ends the delay */
   }
   /* Compiling on the optimizer thread, or claimed by another draw. */
   while (!mine && slot->pending)
      pthread_cond_wait(&rt->optimized, &rt->lock);
   pthread_mutex_unlock(&rt->lock);
   if (!mine)
      return;
   sd_backend_compile(rt, slot, false, "for a draw");
   pthread_mutex_lock(&rt->lock);
   slot->pending = false;
   atomic_store_explicit(&slot->settled, true, memory_order_release);
   pthread_cond_broadcast(&rt->optimized);
   pthread_mutex_unlock(&rt->lock);
   if (job)
      sd_optimize_job_free(job);
}

void
sd_fb_slot_settle(struct sd_runtime *rt, struct sd_fb_slot *slot)
{
   pthread_mutex_lock(&rt->lock);
   while (slot->pending)
      pthread_cond_wait(&rt->optimized, &rt->lock);
   pthread_mutex_unlock(&rt->lock);
}

void
sd_optimizer_hurry(struct sd_runtime *rt, struct sd_compiled_shader *cs)
{
   pthread_mutex_lock(&rt->lock);
   struct sd_optimize_job **link = &rt->jobs_first, *prev = NULL;
   while (*link && (*link)->cs != cs) {
      prev = *link;
      link = &(*link)->next;
   }
   struct sd_optimize_job *job = *link;
   if (job && job != rt->jobs_first) {
      *link = job->next;
      if (rt->jobs_last == job)
         rt->jobs_last = prev;
      job->next = rt->jobs_first;
      rt->jobs_first = job;
   }
   pthread_mutex_unlock(&rt->lock);
}

bool
sd_compiled_shader_settle_for(struct sd_runtime *rt, struct sd_compiled_shader *cs, double ms)
{
   struct timespec deadline;
   clock_gettime(CLOCK_REALTIME, &deadline);
   long long ns = deadline.tv_nsec + (long long)(ms * 1e6);
   deadline.tv_sec += (time_t)(ns / 1000000000);
   deadline.tv_nsec = (long)(ns % 1000000000);
   pthread_mutex_lock(&rt->lock);
   int err = 0;
   while (cs->optimizing && err != ETIMEDOUT)
      err = pthread_cond_timedwait(&rt->optimized, &rt->lock, &deadline);
   bool settled = !cs->optimizing;
   pthread_mutex_unlock(&rt->lock);
   return settled;
}

void
sd_compiled_shader_settle(struct sd_runtime *rt, struct sd_compiled_shader *cs)
{
   pthread_mutex_lock(&rt->lock);
   while (cs->optimizing)
      pthread_cond_wait(&rt->optimized, &rt->lock);
   pthread_mutex_unlock(&rt->lock);
}

void
sd_optimizer_stop(struct sd_runtime *rt)
{
   pthread_mutex_lock(&rt->lock);
   rt->optimizer_stop = true;
   pthread_cond_broadcast(&rt->optimized);
   bool started = rt->optimizer_started;
   pthread_mutex_unlock(&rt->lock);
   if (started)
      pthread_join(rt->optimizer, NULL);
   /* The thread is gone: drop what it did not get to. */
   struct sd_optimize_job *job = rt->jobs_first;
   rt->jobs_first = rt->jobs_last = NULL;
   while (job) {
      struct sd_optimize_job *next = job->next;
      sd_optimize_job_done_locked(job);
      sd_optimize_job_free(job);
      job = next;
   }
}
