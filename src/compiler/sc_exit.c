/* Process exit while the compiler runs: LLVM's and SPIRV-Tools' static
 * destructors must not run under a compile on another thread.
 *
 * exit() runs the handlers registered with atexit / __cxa_atexit in the
 * reverse order of their registration, and C++ libraries register the
 * destructor of each function-local static when it is first constructed,
 * inside a compile (LLVM's PassRegistry, for one). A compile still running
 * on another thread (the driver's background optimizer, an application
 * thread creating a pipeline) then uses objects exit() is destroying.
 *
 * So every entry of the compiler that runs LLVM or SPIRV-Tools is bracketed
 * by sc_exit_enter / sc_exit_leave, and sc_exit_hook, registered with
 * __cxa_atexit for this library after the libraries' statics exist (see
 * "Registration" below), closes the gate and waits
 * (boundedly) for the compiles in flight to leave: later calls fail with
 * SC_ERROR_INTERNAL ("the process is exiting"), or, for frees, leave the
 * memory to the ending process. The hook is registered when LLVM is
 * initialised (after LLVM's pass registry and passes are, llvm_jit.c) and
 * again after the first compiles of each kind (baseline or optimized,
 * scalar or vector: they construct different statics), so that it runs
 * before the destructors of whatever those compiles constructed. A static
 * first constructed by a later, rarer path could still be destroyed first.
 *
 * Registration: __cxa_atexit(hook, NULL, &__dso_handle), which binds the
 * handler to the shared object holding this file: it runs at exit() or
 * when the loader dlclose()s the driver, whichever comes first, and never
 * after the code is unmapped. Plain atexit() does the same in a normal
 * build (glibc's libc_nonshared.a turns it into that call), but a program
 * linked with -fsanitize=thread resolves atexit to the TSan runtime's
 * interceptor, which registers the handler for process exit (dso NULL):
 * once the loader had unloaded the ICD, exit() jumped into unmapped code
 * (SEGV in every api test under TSan). api/exit's "unload" children check
 * it: a pipeline compiled, the instance destroyed (the ICD unloaded), then
 * exit().
 *
 * Threading: any thread; the hook runs on the thread that calls exit() (or
 * dlclose()s this library).
 * A compile of the exiting thread itself (exit() from inside LLVM, e.g. a
 * fatal error) is not waited for.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "sc_internal.h"

/* The C++ ABI's registration (glibc, libc.so) and this object's handle
 * (crtbegin.o): a handler bound to this shared object. */
extern int __cxa_atexit(void (*fn)(void *), void *arg, void *dso);
extern void *__dso_handle __attribute__((visibility("hidden")));

/* Give up waiting after this: a stuck compile must not hang the exit. */
#define SC_EXIT_WAIT_MS 10000

static atomic_uint sc_exit_users;
static atomic_bool sc_exit_closed;
static _Thread_local unsigned sc_exit_depth;   /* this thread's part of users */

bool
sc_exit_enter(void)
{
   atomic_fetch_add(&sc_exit_users, 1);
   if (atomic_load(&sc_exit_closed)) {
      atomic_fetch_sub(&sc_exit_users, 1);
      return false;
   }
   sc_exit_depth++;
   return true;
}

void
sc_exit_leave(void)
{
   sc_exit_depth--;
   atomic_fetch_sub(&sc_exit_users, 1);
}

bool
sc_process_exiting(void)
{
   return atomic_load(&sc_exit_closed);
}

static void
sc_exit_hook(void *unused)
{
   (void)unused;
   atomic_store(&sc_exit_closed, true);
   struct timespec ms = { 0, 1000000 };
   for (int i = 0; i < SC_EXIT_WAIT_MS && atomic_load(&sc_exit_users) > sc_exit_depth; i++)
      nanosleep(&ms, NULL);
}

void
sc_exit_watch(void)
{
   __cxa_atexit(sc_exit_hook, NULL, &__dso_handle);   /* failure: no protection, nothing worse */
}

void
sc_exit_watch_compile(const struct sc_compile_info *info)
{
   /* The first two compiles of each kind. */
   static atomic_uint seen[4];
   unsigned kind = ((info->flags & SC_COMPILE_BASELINE) ? 2u : 0u) + (info->simd_width == 1);
   if (atomic_fetch_add(&seen[kind], 1) < 2)
      sc_exit_watch();
}
