/*
 * Private to src/compiler/sc_*.c: the compiler object and small shared
 * helpers (no LLVM types).
 *
 * Design note
 * -----------
 * Owns: struct sc_compiler holds the JIT session (sc_llvm.h) that compiles
 * and loads every shader of this compiler. Threading: see sc_compiler.h.
 */
#ifndef SC_INTERNAL_H
#define SC_INTERNAL_H

#include <pthread.h>

#include "sc_compiler.h"

struct sc_jit;

struct sc_backend_entry;
struct sc_jit_code;

/* Back-end routines (sc_compiler.c) for sc_blob.c: the relocatable object
 * of the compiled routine of a key (colour or depth/stencil: `ds`, compared
 * as `size` bytes; valid while the compiler lives), false when none is
 * compiled; and the insertion of a routine linked from a blob (`code` is
 * taken: freed when the key is there already or memory ran out). */
bool sc_backend_object(struct sc_compiler *compiler, bool ds, const void *key, size_t size,
                       const void **object, size_t *object_size);
enum sc_result sc_backend_insert(struct sc_compiler *compiler, bool ds, const void *key,
                                 size_t size, struct sc_jit_code *code, void *fn);

struct sc_compiler {
   struct sc_jit *jit;
   /* Fragment back-end routines by key (sc_compile_fragment_backend). */
   pthread_mutex_t backend_lock;
   struct sc_backend_entry *backends;
};

/* CLOCK_MONOTONIC in milliseconds. */
double sc_now_ms(void);

/* Process exit (sc_exit.c): entries that run LLVM or SPIRV-Tools run
 * between sc_exit_enter (false once exit has begun: do not start) and
 * sc_exit_leave. sc_exit_watch registers the exit hook (again): call it once
 * LLVM's statics exist; sc_exit_watch_compile after each successful
 * compile. */
bool sc_exit_enter(void);
void sc_exit_leave(void);
void sc_exit_watch(void);
void sc_exit_watch_compile(const struct sc_compile_info *info);

#endif
