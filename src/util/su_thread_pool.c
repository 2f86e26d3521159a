/* A small thread pool that runs index ranges on workers plus the caller. */
#include "su_thread_pool.h"
#include "su_fp.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct su_thread_pool {
   unsigned size;              /* participants: workers + the caller */
   unsigned started;           /* worker threads created */
   pthread_t *threads;

   pthread_mutex_t run_lock;   /* one run at a time */
   pthread_mutex_t lock;       /* everything below except `next` */
   pthread_cond_t wake;        /* workers: a new run, or stop */
   pthread_cond_t idle;        /* the caller: the last joined worker left */
   uint64_t generation;        /* bumped by every run */
   bool active;                /* workers may still join the current run */
   bool stop;
   unsigned joined;            /* workers inside the current run */
   unsigned ids;               /* worker ids handed out in this run */
   bool waiting;               /* the caller sleeps on `idle` */
   /* Workers of the current run that still take or run chunks: raised
    * with `joined` under the lock, lowered without it once a worker
    * found nothing left, so the caller can spin on it. */
   atomic_uint working;

   /* The current run; stable while any worker is joined. */
   su_thread_pool_fn fn;
   void *data;
   uint64_t count, chunk;
   atomic_uint_fast64_t next;
};

unsigned
su_thread_pool_default_size(void)
{
   const char *env = getenv("SHALE_THREADS");
   if (env && *env) {
      char *end;
      long n = strtol(env, &end, 10);
      if (*end == '\0' && n >= 1 && n <= 256)
         return (unsigned)n;
   }
   cpu_set_t set;
   if (sched_getaffinity(0, sizeof(set), &set) == 0) {
      int n = CPU_COUNT(&set);
      if (n >= 1)
         return n > 256 ? 256 : (unsigned)n;
   }
   long n = sysconf(_SC_NPROCESSORS_ONLN);
   return n >= 1 ? (n > 256 ? 256 : (unsigned)n) : 1;
}

/* Takes chunks of the current run until none are left. */
static void
su_thread_pool_work(struct su_thread_pool *pool, unsigned worker)
{
   const uint64_t count = pool->count, chunk = pool->chunk;
   for (;;) {
      uint64_t begin = atomic_fetch_add_explicit(&pool->next, chunk, memory_order_relaxed);
      if (begin >= count)
         return;
      uint64_t end = count - begin > chunk ? begin + chunk : count;
      pool->fn(pool->data, begin, end, worker);
   }
}

static void *
su_thread_pool_main(void *arg)
{
   struct su_thread_pool *pool = arg;
   uint64_t seen = 0;
   su_fp_set_default();   /* shaders run here: su_fp.h */
   pthread_mutex_lock(&pool->lock);
   for (;;) {
      while (!pool->stop && pool->generation == seen)
         pthread_cond_wait(&pool->wake, &pool->lock);
      if (pool->stop)
         break;
      seen = pool->generation;
      if (!pool->active)
         continue;   /* woke after the run was over: nothing to touch */
      unsigned id = ++pool->ids;
      pool->joined++;
      atomic_fetch_add_explicit(&pool->working, 1, memory_order_relaxed);
      pthread_mutex_unlock(&pool->lock);
      su_thread_pool_work(pool, id);
      /* Release: the run's writes are visible to a caller that sees the
       * count drop (it may return without the lock). */
      atomic_fetch_sub_explicit(&pool->working, 1, memory_order_release);
      pthread_mutex_lock(&pool->lock);
      if (--pool->joined == 0 && pool->waiting)
         pthread_cond_signal(&pool->idle);
   }
   pthread_mutex_unlock(&pool->lock);
   return NULL;
}

static void
su_thread_pool_stop(struct su_thread_pool *pool)
{
   pthread_mutex_lock(&pool->lock);
   pool->stop = true;
   pthread_cond_broadcast(&pool->wake);
   pthread_mutex_unlock(&pool->lock);
   for (unsigned i = 0; i < pool->started; i++)
      pthread_join(pool->threads[i], NULL);
   pool->started = 0;
}

bool
su_thread_pool_create(unsigned size, struct su_thread_pool **out)
{
   *out = NULL;
   if (size == 0)
      size = su_thread_pool_default_size();
   struct su_thread_pool *pool = calloc(1, sizeof(*pool));
   if (!pool)
      return false;
   pool->size = size;
   if (size > 1) {
      pool->threads = calloc(size - 1, sizeof(pthread_t));
      if (!pool->threads) {
         free(pool);
         return false;
      }
   }
   pthread_mutex_init(&pool->run_lock, NULL);
   pthread_mutex_init(&pool->lock, NULL);
   pthread_cond_init(&pool->wake, NULL);
   pthread_cond_init(&pool->idle, NULL);
   atomic_init(&pool->next, 0);
   atomic_init(&pool->working, 0);
   for (unsigned i = 0; i + 1 < size; i++) {
      if (pthread_create(&pool->threads[i], NULL, su_thread_pool_main, pool) != 0) {
         su_thread_pool_destroy(pool);
         return false;
      }
      pool->started++;
      char name[32];
      snprintf(name, sizeof(name), "shale-worker%u", i + 1);
      name[15] = '\0';   /* the kernel's limit */
      pthread_setname_np(pool->threads[i], name);
   }
   *out = pool;
   return true;
}

void
su_thread_pool_destroy(struct su_thread_pool *pool)
{
   if (!pool)
      return;
   su_thread_pool_stop(pool);
   pthread_cond_destroy(&pool->idle);
   pthread_cond_destroy(&pool->wake);
   pthread_mutex_destroy(&pool->lock);
   pthread_mutex_destroy(&pool->run_lock);
   free(pool->threads);
   free(pool);
}

unsigned
su_thread_pool_size(const struct su_thread_pool *pool)
{
   return pool->size;
}

/* How long the caller of a run spins for the workers' last chunks. */
#define SU_POOL_SPIN_NS 20000

static uint64_t
su_now_ns(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spins until no worker runs a chunk of the current run, or for
 * SU_POOL_SPIN_NS. */
static void
su_thread_pool_spin(struct su_thread_pool *pool)
{
   const uint64_t until = su_now_ns() + SU_POOL_SPIN_NS;
   for (;;) {
      for (unsigned i = 0; i < 64; i++) {
         if (!atomic_load_explicit(&pool->working, memory_order_acquire))
            return;
#if defined(__x86_64__) || defined(__i386__)
         __builtin_ia32_pause();
#endif
      }
      if (su_now_ns() >= until)
         return;
   }
}

void
su_thread_pool_run(struct su_thread_pool *pool, uint64_t count, uint64_t chunk,
                   su_thread_pool_fn fn, void *data)
{
   if (count == 0)
      return;
   if (chunk == 0) {
      chunk = count / ((uint64_t)pool->size * 8);
      if (chunk == 0)
         chunk = 1;
   }
   pthread_mutex_lock(&pool->run_lock);
   if (pool->size == 1 || count <= chunk) {
      /* One chunk: waking workers would only cost. */
      for (uint64_t begin = 0; begin < count; begin += chunk)
         fn(data, begin, count - begin > chunk ? begin + chunk : count, 0);
      pthread_mutex_unlock(&pool->run_lock);
      return;
   }
   pthread_mutex_lock(&pool->lock);
   pool->fn = fn;
   pool->data = data;
   pool->count = count;
   pool->chunk = chunk;
   atomic_store(&pool->next, 0);
   pool->ids = 0;
   pool->active = true;
   pool->generation++;
   /* Wake only as many workers as there are chunks besides the caller's
    * first: a run of 3 chunks on a pool of 16 wakes 2, not 15 that would
    * find nothing left (a worker still awake from the last run may join
    * too; it takes chunks like the others). */
   uint64_t chunks = (count + chunk - 1) / chunk;
   unsigned wake = chunks - 1 < pool->size - 1 ? (unsigned)(chunks - 1) : pool->size - 1;
   pthread_mutex_unlock(&pool->lock);
   /* Woken after the lock is released, so a woken worker does not go back
    * to sleep at once on the lock this thread still holds. (The run is set
    * up already; run_lock keeps the next one from starting meanwhile.) */
   if (wake == pool->size - 1) {
      pthread_cond_broadcast(&pool->wake);
   } else {
      for (unsigned i = 0; i < wake; i++)
         pthread_cond_signal(&pool->wake);
   }

   su_thread_pool_work(pool, 0);

   /* The workers still running a chunk finish it: spin for up to
    * SU_POOL_SPIN_NS first, since sleeping and being woken costs the
    * caller and the worker more CPU than a short wait (a futex wait and
    * wake, two context switches, and the wake-up of an idle CPU). */
   if (atomic_load_explicit(&pool->working, memory_order_acquire))
      su_thread_pool_spin(pool);
   pthread_mutex_lock(&pool->lock);
   pool->active = false;
   /* A worker that joined after the spin took no chunk, or the last. */
   while (pool->joined) {
      pool->waiting = true;
      pthread_cond_wait(&pool->idle, &pool->lock);
   }
   pool->waiting = false;
   pthread_mutex_unlock(&pool->lock);
   pthread_mutex_unlock(&pool->run_lock);
}
