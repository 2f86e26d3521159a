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

#include "sc_compiler.h"

struct sc_jit;

struct sc_compiler {
   struct sc_jit *jit;
};

/* CLOCK_MONOTONIC in milliseconds. */
double sc_now_ms(void);

#endif
