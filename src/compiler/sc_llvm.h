/*
 * The LLVM half of the compiler as the rest of src/compiler sees it: no LLVM
 * types here (LLVM headers stay inside src/compiler/llvm_*).
 *
 * Design note
 * -----------
 * Owns: struct sc_jit (the ORC LLJIT session, llvm_jit.c) and each shader's
 * struct sc_jit_code (its JIT resources and a copy of its relocatable
 * object, released with the shader).
 * Objects: each compiled shader is one relocatable object for the host that
 * defines SC_ENTRY_SYMBOL; sc_jit_load links such an object (freshly
 * generated or from a blob) without running any IR pass or code generator.
 * Target machines: one per compile in flight; finished compiles leave theirs
 * to the next (a target machine is never used by two compiles at once).
 * Threading: sc_jit_compile may be called from several threads; the session
 * serializes what LLVM needs serialized.
 * Profiling: with SHALE_PERF_MAP set (not "0"), sc_jit_load appends the
 * linked code's symbols to /tmp/perf-<pid>.map (perf's JIT map format:
 * "START SIZE NAME", named shale_jit<n>_<symbol>); with
 * SHALE_PERF_MAP=objects it also writes each object to
 * /tmp/shale-jit-<pid>-<n>-<start>.o, for objdump and per-instruction
 * counts from perf script. Neither is written where
 * su_debug_files_allowed() refuses (a non-debuggable Android process).
 */
#ifndef SC_LLVM_H
#define SC_LLVM_H

#include "sc_cfg.h"

struct sc_jit;
struct sc_jit_code;

/* The entry point every shader object defines. */
#define SC_ENTRY_SYMBOL "shale_entry"

enum sc_result sc_jit_create(struct sc_jit **out);
void sc_jit_destroy(struct sc_jit *jit);

/* CPU vector width: 16 with AVX-512, 8 with AVX2, else 4. */
uint32_t sc_jit_host_simd_width(void);

/* Translates entry point ep of m (already analysed in cfg) and JITs it;
 * fills shader's function pointer, metadata and the phase_ms of the
 * translate, optimize, codegen and link phases, and info->dump's texts
 * when it asks for them. */
enum sc_result sc_jit_compile(struct sc_jit *jit, const struct sc_module *m,
                              const struct sc_cfg *cfg, const struct sc_entry_point *ep,
                              const struct sc_compile_info *info, uint32_t simd_width,
                              const uint32_t local_size[3], struct sc_shader *shader,
                              char *message, size_t message_size);

void sc_jit_code_free(struct sc_jit_code *code);

/* Links a relocatable object (copied; the caller keeps object) and returns
 * the address of its SC_ENTRY_SYMBOL. */
enum sc_result sc_jit_load(struct sc_jit *jit, const void *object, size_t size,
                           struct sc_jit_code **out, void **entry,
                           char *message, size_t message_size);

struct shale_fb_key;
struct shale_fb_ds_key;
/* The fragment back end's routine for key, or for ds_key when it is not
 * NULL (llvm_backend.c), optimized and linked like a shader's code. */
enum sc_result sc_jit_compile_backend(struct sc_jit *jit, const struct shale_fb_key *key,
                                      const struct shale_fb_ds_key *ds_key,
                                      struct sc_jit_code **out, void **entry,
                                      char *message, size_t message_size);

/* The object bytes of a shader's code (valid while the code lives). */
void sc_jit_code_object(const struct sc_jit_code *code, const void **data, size_t *size);
/* The session that linked it. */
const struct sc_jit *sc_jit_code_owner(const struct sc_jit_code *code);

/* What generated code depends on: "triple;cpu features;LLVM version". Two
 * sessions with the same identity produce interchangeable objects. */
const char *sc_jit_identity(const struct sc_jit *jit);
/* The host CPU name (tunes scheduling only). */
const char *sc_jit_cpu_name(const struct sc_jit *jit);

#endif
