/*
 * su_thread_pool: one pool of worker threads that runs index ranges in
 * parallel (compute workgroups today, rasterizer tiles later).
 *
 * Design note
 * -----------
 * Owns: `size - 1` worker threads; the thread that calls su_thread_pool_run
 * is the remaining participant, so a pool of size 1 has no thread at all and
 * runs everything on the caller. A run hands out [begin, end) chunks of its
 * index space from one atomic counter; every participant takes chunks until
 * none are left, so uneven work balances itself.
 *
 * Invariants: su_thread_pool_run returns only after every index ran and no
 * worker still touches the run's data. `worker` passed to the callback is
 * unique among the participants running at the same time and is below
 * su_thread_pool_size(), so callers can index per-worker scratch memory with
 * it. Allocation uses malloc: the pool is process infrastructure, not an API
 * object.
 *
 * Idle workers sleep on a condition variable (no spinning, in a run or
 * between runs), and a run wakes only as many of them as it has chunks
 * beyond the caller's own (after releasing the pool's lock, so that a
 * woken worker does not block on it); a run of one chunk runs on the
 * caller alone. A caller that found no chunk left while workers still
 * run theirs spins for them for up to 20 us (an atomic count of the
 * workers inside the run's chunks) before it sleeps on the pool's idle
 * condition: their last chunks usually end sooner than a sleep and a
 * wake-up cost.
 *
 * Threading: runs from several threads on one pool are serialized (one run
 * at a time); a callback must not start a run on the same pool.
 */
#ifndef SU_THREAD_POOL_H
#define SU_THREAD_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct su_thread_pool;

/* Runs indices [begin, end) of a run on participant `worker`. */
typedef void (*su_thread_pool_fn)(void *data, uint64_t begin, uint64_t end, unsigned worker);

/* The default pool size: SHALE_THREADS when it is a number from 1 to 256,
 * else the number of CPUs this process may run on. */
unsigned su_thread_pool_default_size(void);

/* size 0 picks su_thread_pool_default_size(). Returns false (nothing
 * created) when memory or threads run out. */
bool su_thread_pool_create(unsigned size, struct su_thread_pool **out);

/* Joins the workers. No run may be in progress. */
void su_thread_pool_destroy(struct su_thread_pool *pool);

/* Participants of a run: the workers plus the caller. */
unsigned su_thread_pool_size(const struct su_thread_pool *pool);

/* Calls fn over [0, count) in chunks of at most `chunk` indices (0 picks a
 * chunk that gives each participant several), on the workers and the calling
 * thread, and returns when all are done. */
void su_thread_pool_run(struct su_thread_pool *pool, uint64_t count, uint64_t chunk,
                        su_thread_pool_fn fn, void *data);

#endif
