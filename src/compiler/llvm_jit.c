/* LLVM ORC LLJIT session: optimizes translated modules (new pass manager,
 * host CPU and features) into relocatable objects, and links objects (fresh
 * or from shader blobs) into callable code, one JITDylib per shader. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Initialization.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#include "llvm_private.h"
#include "sc_internal.h"
#include "util/su_log.h"

#define SC_JIT_MAX_IDLE_TMS 16

struct sc_jit {
   /* Code is generated per compile, in parallel, outside the lock; only
    * object linking, lookups and the dylib pool are serialized. */
   pthread_mutex_t lock;
   LLVMOrcLLJITRef lljit;
   LLVMOrcExecutionSessionRef session;
   LLVMTargetRef target;
   char *triple;
   char *cpu;
   char *features;
   char *identity;           /* what compiled code depends on (sc_jit_identity) */
   /* Each shader's object is linked into a JITDylib of its own, so every
    * object can define the same entry symbol (SC_ENTRY_SYMBOL); dylibs of
    * destroyed shaders are emptied and reused. */
   LLVMOrcJITDylibRef *free_dylibs;
   uint32_t nfree, cap_free;
   uint32_t ndylibs;
   /* Target machines of finished compiles, for the next ones: a target
    * machine serves one compile at a time, and making one (with its
    * subtarget, built at its first use) is work every compile would
    * repeat. */
   LLVMTargetMachineRef free_tms[2][SC_JIT_MAX_IDLE_TMS];   /* [baseline] */
   uint32_t ntms[2];
};

struct sc_jit_code {
   struct sc_jit *jit;
   LLVMOrcJITDylibRef dylib;
   LLVMOrcResourceTrackerRef tracker;
   void *object;             /* the relocatable object, kept for sc_shader_serialize */
   size_t object_size;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool init_ok;

static void
init_llvm(void)
{
   init_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
   /* Construct LLVM's pass registry and register its passes now, so that
    * their statics are destroyed after the exit hook registered next has
    * waited for the compiles in flight (sc_exit.c); code generation would
    * otherwise construct them in the first compile. */
   LLVMPassRegistryRef reg = LLVMGetGlobalPassRegistry();
   LLVMInitializeCore(reg);
   LLVMInitializeTransformUtils(reg);
   LLVMInitializeScalarOpts(reg);
   LLVMInitializeVectorization(reg);
   LLVMInitializeInstCombine(reg);
   LLVMInitializeIPO(reg);
   LLVMInitializeAnalysis(reg);
   LLVMInitializeIPA(reg);
   LLVMInitializeCodeGen(reg);
   LLVMInitializeTarget(reg);
   sc_exit_watch();
}

static void
error_message(LLVMErrorRef err, char *message, size_t size, const char *what)
{
   char *text = LLVMGetErrorMessage(err);
   if (message && size)
      snprintf(message, size, "%s: %s", what, text ? text : "unknown LLVM error");
   LLVMDisposeErrorMessage(text);
}

uint32_t
sc_jit_host_simd_width(void)
{
   pthread_once(&init_once, init_llvm);
   char *features = LLVMGetHostCPUFeatures();
   uint32_t w = 4;
   if (features) {
      if (strstr(features, "+avx512f"))
         w = 16;
      else if (strstr(features, "+avx2"))
         w = 8;
      LLVMDisposeMessage(features);
   }
   return w;
}

/* C library functions compiled code may call (lane-wise math, memset). */
static const struct {
   const char *name;
   void *addr;
} runtime_symbols[] = {
   { "sinf", (void *)sinf }, { "cosf", (void *)cosf }, { "tanf", (void *)tanf },
   { "asinf", (void *)asinf }, { "acosf", (void *)acosf }, { "atanf", (void *)atanf },
   { "atan2f", (void *)atan2f }, { "sinhf", (void *)sinhf }, { "coshf", (void *)coshf },
   { "tanhf", (void *)tanhf }, { "asinhf", (void *)asinhf }, { "acoshf", (void *)acoshf },
   { "atanhf", (void *)atanhf }, { "expf", (void *)expf }, { "exp2f", (void *)exp2f },
   { "logf", (void *)logf }, { "log2f", (void *)log2f }, { "powf", (void *)powf },
   { "fmodf", (void *)fmodf }, { "fmaf", (void *)fmaf }, { "roundevenf", (void *)roundevenf },
   { "sincosf", (void *)sincosf }, { "sin", (void *)sin }, { "cos", (void *)cos },
   { "tan", (void *)tan }, { "asin", (void *)asin }, { "acos", (void *)acos },
   { "atan", (void *)atan }, { "atan2", (void *)atan2 }, { "sinh", (void *)sinh },
   { "cosh", (void *)cosh }, { "tanh", (void *)tanh }, { "asinh", (void *)asinh },
   { "acosh", (void *)acosh }, { "atanh", (void *)atanh }, { "exp", (void *)exp },
   { "exp2", (void *)exp2 }, { "log", (void *)log }, { "log2", (void *)log2 },
   { "pow", (void *)pow }, { "fmod", (void *)fmod }, { "fma", (void *)fma },
   { "roundeven", (void *)roundeven }, { "sincos", (void *)sincos },
   { "memset", (void *)memset }, { "memcpy", (void *)memcpy }, { "memmove", (void *)memmove },
};

/* Defines the runtime symbols in a fresh dylib. */
static LLVMErrorRef
define_runtime_symbols(struct sc_jit *jit, LLVMOrcJITDylibRef dylib)
{
   size_t n = sizeof(runtime_symbols) / sizeof(runtime_symbols[0]);
   LLVMOrcCSymbolMapPair pairs[sizeof(runtime_symbols) / sizeof(runtime_symbols[0])];
   for (size_t i = 0; i < n; i++) {
      pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, runtime_symbols[i].name);
      pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)runtime_symbols[i].addr;
      pairs[i].Sym.Flags.GenericFlags =
         LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
      pairs[i].Sym.Flags.TargetFlags = 0;
   }
   return LLVMOrcJITDylibDefine(dylib, LLVMOrcAbsoluteSymbols(pairs, n));
}

enum sc_result
sc_jit_create(struct sc_jit **out)
{
   *out = NULL;
   pthread_once(&init_once, init_llvm);
   if (!init_ok)
      return SC_ERROR_INTERNAL;
   struct sc_jit *jit = calloc(1, sizeof(*jit));
   if (!jit)
      return SC_ERROR_OUT_OF_MEMORY;
   pthread_mutex_init(&jit->lock, NULL);

   LLVMOrcJITTargetMachineBuilderRef jtmb;
   LLVMErrorRef err = LLVMOrcJITTargetMachineBuilderDetectHost(&jtmb);
   if (err) {
      LLVMConsumeError(err);
      pthread_mutex_destroy(&jit->lock);
      free(jit);
      return SC_ERROR_INTERNAL;
   }
   LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
   LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
   err = LLVMOrcCreateLLJIT(&jit->lljit, builder);
   if (err) {
      LLVMConsumeError(err);
      pthread_mutex_destroy(&jit->lock);
      free(jit);
      return SC_ERROR_INTERNAL;
   }
   jit->session = LLVMOrcLLJITGetExecutionSession(jit->lljit);

   const char *triple = LLVMOrcLLJITGetTripleString(jit->lljit);
   char *errmsg = NULL;
   jit->triple = strdup(triple);
   jit->cpu = LLVMGetHostCPUName();
   jit->features = LLVMGetHostCPUFeatures();
   if (!jit->triple || !jit->cpu || !jit->features ||
       LLVMGetTargetFromTriple(jit->triple, &jit->target, &errmsg)) {
      LLVMDisposeMessage(errmsg);
      sc_jit_destroy(jit);
      return SC_ERROR_INTERNAL;
   }
   /* Machine code depends on the target, the CPU features and the code
    * generator; the CPU name only tunes scheduling. */
   size_t len = strlen(jit->triple) + strlen(jit->features) + 64;
   jit->identity = malloc(len);
   if (!jit->identity) {
      sc_jit_destroy(jit);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   snprintf(jit->identity, len, "%s;%s;LLVM %s", jit->triple, jit->features, LLVM_VERSION_STRING);
   *out = jit;
   return SC_SUCCESS;
}

void
sc_jit_destroy(struct sc_jit *jit)
{
   if (!jit)
      return;
   if (jit->lljit) {
      LLVMErrorRef err = LLVMOrcDisposeLLJIT(jit->lljit);
      if (err)
         LLVMConsumeError(err);
   }
   for (uint32_t l = 0; l < 2; l++)
      for (uint32_t i = 0; i < jit->ntms[l]; i++)
         LLVMDisposeTargetMachine(jit->free_tms[l][i]);
   free(jit->free_dylibs);
   free(jit->triple);
   free(jit->identity);
   LLVMDisposeMessage(jit->cpu);
   LLVMDisposeMessage(jit->features);
   pthread_mutex_destroy(&jit->lock);
   free(jit);
}

const char *
sc_jit_identity(const struct sc_jit *jit)
{
   return jit->identity;
}

const char *
sc_jit_cpu_name(const struct sc_jit *jit)
{
   return jit->cpu;
}

void
sc_jit_code_free(struct sc_jit_code *code)
{
   if (!code)
      return;
   struct sc_jit *jit = code->jit;
   pthread_mutex_lock(&jit->lock);
   if (code->tracker) {
      LLVMErrorRef err = LLVMOrcResourceTrackerRemove(code->tracker);
      if (err)
         LLVMConsumeError(err);
      LLVMOrcReleaseResourceTracker(code->tracker);
   }
   if (code->dylib) {
      /* Empty again: back to the pool (growing it cannot fail the caller;
       * a dylib that finds no room is simply not reused). */
      if (jit->nfree == jit->cap_free) {
         uint32_t cap = jit->cap_free ? jit->cap_free * 2 : 16;
         void *p = realloc(jit->free_dylibs, cap * sizeof(*jit->free_dylibs));
         if (p) {
            jit->free_dylibs = p;
            jit->cap_free = cap;
         }
      }
      if (jit->nfree < jit->cap_free)
         jit->free_dylibs[jit->nfree++] = code->dylib;
   }
   pthread_mutex_unlock(&jit->lock);
   free(code->object);
   free(code);
}

void
sc_jit_code_object(const struct sc_jit_code *code, const void **data, size_t *size)
{
   *data = code->object;
   *size = code->object_size;
}

const struct sc_jit *
sc_jit_code_owner(const struct sc_jit_code *code)
{
   return code->jit;
}

/* An empty dylib with the runtime symbols; jit->lock held. */
static LLVMOrcJITDylibRef
take_dylib(struct sc_jit *jit, char *message, size_t message_size)
{
   if (jit->nfree)
      return jit->free_dylibs[--jit->nfree];
   char name[32];
   snprintf(name, sizeof(name), "shale_%u", jit->ndylibs++);
   LLVMOrcJITDylibRef dylib = LLVMOrcExecutionSessionCreateBareJITDylib(jit->session, name);
   if (!dylib)
      return NULL;
   LLVMErrorRef err = define_runtime_symbols(jit, dylib);
   if (err) {
      error_message(err, message, message_size, "JIT runtime symbols");
      /* The dylib stays with the session, unused. */
      return NULL;
   }
   return dylib;
}

struct lookup_wait {
   pthread_mutex_t lock;
   pthread_cond_t cond;
   bool done;
   LLVMErrorRef err;
   LLVMOrcExecutorAddress addr;
};

static void
lookup_done(LLVMErrorRef err, LLVMOrcCSymbolMapPairs result, size_t npairs, void *ctx)
{
   struct lookup_wait *w = ctx;
   pthread_mutex_lock(&w->lock);
   w->err = err;
   if (!err && npairs >= 1)
      w->addr = result[0].Sym.Address;
   w->done = true;
   pthread_cond_signal(&w->cond);
   pthread_mutex_unlock(&w->lock);
}

/* SHALE_PERF_MAP (profiling, sc_llvm.h): the symbols of object's entry
 * section, loaded with SC_ENTRY_SYMBOL at entry, as lines "START SIZE
 * NAME" (hex) appended to /tmp/perf-<pid>.map, which perf report reads to
 * name JIT code; with the value "objects" also the object itself, as
 * /tmp/shale-jit-<pid>-<n>-<section start>.o (for objdump). Only where
 * su_debug_files_allowed() (on Android, debuggable processes). Best effort:
 * nothing is reported when a file cannot be written. */
static void
perf_map(const void *object, size_t size, uintptr_t entry)
{
   const char *mode = getenv("SHALE_PERF_MAP");
   if (!mode || !*mode || !strcmp(mode, "0"))
      return;
   /* Files only where debug files may be written (su_log.h: on Android,
    * debuggable processes only), as the shader dumps. */
   static atomic_bool refused;
   if (!su_debug_files_allowed()) {
      if (!atomic_exchange(&refused, true))
         su_log("SHALE_PERF_MAP ignored (files not allowed here)");
      return;
   }
   LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(object, size, "perf_map", false);
   char *err = NULL;
   LLVMBinaryRef bin = mb ? LLVMCreateBinary(mb, NULL, &err) : NULL;
   LLVMDisposeMessage(err);
   if (!bin) {
      if (mb)
         LLVMDisposeMemoryBuffer(mb);
      return;
   }
   enum { MAX_SYMS = 64 };
   struct { uint64_t off, size; char name[64]; char section[32]; } syms[MAX_SYMS];
   unsigned n = 0;
   uint64_t entry_off = 0;
   char entry_section[32] = "";
   LLVMSymbolIteratorRef it = LLVMObjectFileCopySymbolIterator(bin);
   LLVMSectionIteratorRef sec = LLVMObjectFileCopySectionIterator(bin);
   for (; it && sec && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, it); LLVMMoveToNextSymbol(it)) {
      const char *name = LLVMGetSymbolName(it);
      if (!name || !*name || !LLVMGetSymbolSize(it) || n == MAX_SYMS)
         continue;
      LLVMMoveToContainingSection(sec, it);
      const char *sname =
         LLVMObjectFileIsSectionIteratorAtEnd(bin, sec) ? NULL : LLVMGetSectionName(sec);
      if (!sname)
         continue;
      syms[n].off = LLVMGetSymbolAddress(it);
      syms[n].size = LLVMGetSymbolSize(it);
      snprintf(syms[n].name, sizeof(syms[n].name), "%s", name);
      snprintf(syms[n].section, sizeof(syms[n].section), "%s", sname);
      if (!strcmp(name, SC_ENTRY_SYMBOL)) {
         entry_off = syms[n].off;
         memcpy(entry_section, syms[n].section, sizeof(entry_section));
      }
      n++;
   }
   if (sec)
      LLVMDisposeSectionIterator(sec);
   if (it)
      LLVMDisposeSymbolIterator(it);
   LLVMDisposeBinary(bin);
   LLVMDisposeMemoryBuffer(mb);
   if (!entry_section[0])
      return;

   static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
   static unsigned count;
   const uintptr_t base = entry - (uintptr_t)entry_off;
   char path[64];
   pthread_mutex_lock(&lock);
   const unsigned id = count++;
   snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
   FILE *f = fopen(path, "a");
   if (f) {
      for (unsigned i = 0; i < n; i++)
         if (!strcmp(syms[i].section, entry_section))
            fprintf(f, "%llx %llx shale_jit%u_%s\n", (unsigned long long)(base + syms[i].off),
                    (unsigned long long)syms[i].size, id, syms[i].name);
      fclose(f);
   }
   pthread_mutex_unlock(&lock);
   if (!strcmp(mode, "objects")) {
      snprintf(path, sizeof(path), "/tmp/shale-jit-%d-%u-%llx.o", (int)getpid(), id,
               (unsigned long long)base);
      f = fopen(path, "wb");
      if (f) {
         fwrite(object, 1, size, f);
         fclose(f);
      }
   }
}

/* Links object (not consumed) into a dylib of its own and finds the entry
 * point; no IR pass or code generation runs here. */
enum sc_result
sc_jit_load(struct sc_jit *jit, const void *object, size_t size, struct sc_jit_code **out,
            void **entry, char *message, size_t message_size)
{
   *out = NULL;
   *entry = NULL;
   struct sc_jit_code *code = calloc(1, sizeof(*code));
   if (!code)
      return SC_ERROR_OUT_OF_MEMORY;
   code->jit = jit;
   code->object = malloc(size ? size : 1);
   if (!code->object) {
      free(code);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   memcpy(code->object, object, size);
   code->object_size = size;
   LLVMMemoryBufferRef buffer =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, "shale_shader");
   if (!buffer) {
      sc_jit_code_free(code);
      return SC_ERROR_OUT_OF_MEMORY;
   }

   pthread_mutex_lock(&jit->lock);
   code->dylib = take_dylib(jit, message, message_size);
   if (!code->dylib) {
      pthread_mutex_unlock(&jit->lock);
      LLVMDisposeMemoryBuffer(buffer);
      sc_jit_code_free(code);
      return SC_ERROR_INTERNAL;
   }
   code->tracker = LLVMOrcJITDylibCreateResourceTracker(code->dylib);
   LLVMErrorRef err = LLVMOrcLLJITAddObjectFileWithRT(jit->lljit, code->tracker, buffer);
   struct lookup_wait w = { .done = false };
   if (!err) {
      pthread_mutex_init(&w.lock, NULL);
      pthread_cond_init(&w.cond, NULL);
      LLVMOrcCJITDylibSearchOrderElement order = {
         code->dylib, LLVMOrcJITDylibLookupFlagsMatchExportedSymbolsOnly
      };
      LLVMOrcCLookupSetElement sym = {
         LLVMOrcLLJITMangleAndIntern(jit->lljit, SC_ENTRY_SYMBOL),
         LLVMOrcSymbolLookupFlagsRequiredSymbol
      };
      LLVMOrcExecutionSessionLookup(jit->session, LLVMOrcLookupKindStatic, &order, 1, &sym, 1,
                                    lookup_done, &w);
      pthread_mutex_lock(&w.lock);
      while (!w.done)
         pthread_cond_wait(&w.cond, &w.lock);
      pthread_mutex_unlock(&w.lock);
      pthread_cond_destroy(&w.cond);
      pthread_mutex_destroy(&w.lock);
      err = w.err;
   }
   pthread_mutex_unlock(&jit->lock);
   if (err || !w.addr) {
      if (err)
         error_message(err, message, message_size, "JIT link");
      else if (message && message_size)
         snprintf(message, message_size, "JIT link: no entry point in the object");
      sc_jit_code_free(code);
      return SC_ERROR_INTERNAL;
   }
   *entry = (void *)(uintptr_t)w.addr;
   perf_map(object, size, (uintptr_t)w.addr);
   *out = code;
   return SC_SUCCESS;
}

/* A target machine for one compile (give it back with put_tm): LLVM's
 * default code generation level, or its lowest for baseline code. */
static LLVMTargetMachineRef
take_tm(struct sc_jit *jit, bool baseline)
{
   LLVMTargetMachineRef tm = NULL;
   pthread_mutex_lock(&jit->lock);
   if (jit->ntms[baseline])
      tm = jit->free_tms[baseline][--jit->ntms[baseline]];
   pthread_mutex_unlock(&jit->lock);
   if (!tm)
      tm = LLVMCreateTargetMachine(jit->target, jit->triple, jit->cpu, jit->features,
                                   baseline ? LLVMCodeGenLevelNone : LLVMCodeGenLevelDefault,
                                   LLVMRelocDefault, LLVMCodeModelJITDefault);
   return tm;
}

static void
put_tm(struct sc_jit *jit, LLVMTargetMachineRef tm, bool baseline)
{
   pthread_mutex_lock(&jit->lock);
   if (jit->ntms[baseline] < SC_JIT_MAX_IDLE_TMS) {
      jit->free_tms[baseline][jit->ntms[baseline]++] = tm;
      tm = NULL;
   }
   pthread_mutex_unlock(&jit->lock);
   if (tm)
      LLVMDisposeTargetMachine(tm);
}

/* A malloc'ed, NUL-terminated copy of an LLVM string (disposed). */
static char *
take_llvm_string(char *text)
{
   char *copy = text ? strdup(text) : NULL;
   LLVMDisposeMessage(text);
   return copy;
}

/* The optimization pipeline. LLVM's default<O2> runs its whole function
 * simplification pipeline on the subgroup body, then again on the entry
 * point once the body is inlined there, and adds passes SPMD code gets
 * nothing from (the loop vectorizer, loop unswitching, interprocedural
 * passes). Here the simplification runs once per function (the body is
 * simplified alone: its resume switch and frame accesses come out as O2
 * makes them), the body is inlined into the entry point's subgroup loop,
 * and a short cleanup follows (LICM hoists what is uniform across
 * subgroups). Kept from O2: SROA, EarlyCSE, InstCombine, SimplifyCFG,
 * JumpThreading and CorrelatedValuePropagation, Reassociate, LICM (with
 * scalar promotion), LoopRotate, IndVars, full unrolling of constant-trip
 * loops, GVN, SCCP, ADCE, MemCpyOpt, DSE, O2's partial unrolling and the
 * SLP vectorizer (it merges the scalar stores and loads that save and
 * restore state at barriers). On tests/bench's kernels: the same inner
 * loops as default<O2> in about half its time. */
static const char sc_passes[] =
   "function("
   "sroa,early-cse<memssa>,simplifycfg,instcombine,"
   "jump-threading,correlated-propagation,simplifycfg,reassociate,"
   "loop-mssa(licm,loop-rotate,licm),simplifycfg,instcombine,"
   "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full),"
   "sroa,gvn,sccp,instcombine,jump-threading,correlated-propagation,adce,memcpyopt,dse,"
   "loop-mssa(licm),simplifycfg,"
   "loop-unroll<O2>,sroa,instcombine,"
   "slp-vectorizer,vector-combine,instcombine,simplifycfg),"
   "always-inline,"
   "function(sroa,early-cse<memssa>,instcombine,loop-mssa(licm),simplifycfg),"
   "globaldce";

/* Baseline code (SC_COMPILE_BASELINE): the translator's stack slots become
 * registers, and EarlyCSE and SimplifyCFG drop the repeated mask and address
 * computations and the empty blocks of the translation, which costs less
 * than code generation spends on them at its lowest level. The body stays a
 * function of its own, called once per subgroup: inlining it costs more
 * compile time (about 2 ms for tests/bench's pipeline.comp) than the call
 * costs at run time. */
static const char sc_baseline_passes[] = "function(sroa,early-cse,simplifycfg)";

/* Internal functions called once (the subgroup body) are marked to be
 * inlined by the pipeline's always-inline step, unless marked noinline
 * (the colour routine's lanes copy, llvm_backend.c). */
static void
inline_single_calls(LLVMModuleRef mod)
{
   LLVMContextRef ctx = LLVMGetModuleContext(mod);
   unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", strlen("alwaysinline"));
   unsigned never = LLVMGetEnumAttributeKindForName("noinline", strlen("noinline"));
   for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
      if (LLVMIsDeclaration(fn) || LLVMGetLinkage(fn) != LLVMInternalLinkage ||
          LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, never))
         continue;
      LLVMUseRef use = LLVMGetFirstUse(fn);
      if (!use || LLVMGetNextUse(use) || !LLVMIsACallInst(LLVMGetUser(use)))
         continue;
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(ctx, kind, 0));
   }
}

/* Sinking invariant loads past calls (after the pipeline, before code
 * generation). A fragment shader's plane loads (llvm_stage.c plane_load,
 * marked !invariant.load: the planes do not change during a call) sit
 * where the shader loads its input, often before a sampler call, while
 * the optimizer has sunk their arithmetic below it: each loaded float then
 * lives across the call, and every caller-saved register dies there, so
 * each was spilled and reloaded around it (vkcube's fragment shader: nine
 * 16-byte spills and reloads a call). An invariant load all of whose users
 * are in one later block U (no PHI among them) moves to U's top: the
 * block holding it dominates U, so its pointer does too, and the load
 * reads the same value there; U must not reach itself (a loop the load was
 * outside of would repeat it). Only functions with an indirect call (the
 * sampler's) are touched, and only when they have at most SINK_MAX_BLOCKS
 * blocks (the reachability test is quadratic). */
#define SINK_MAX_BLOCKS 256

static int
block_index(LLVMBasicBlockRef *blocks, unsigned n, LLVMBasicBlockRef bb)
{
   for (unsigned i = 0; i < n; i++)
      if (blocks[i] == bb)
         return (int)i;
   return -1;
}

/* Whether block u (index ui) of the n blocks reaches itself. */
static bool
block_in_cycle(LLVMBasicBlockRef *blocks, unsigned n, unsigned ui)
{
   uint8_t seen[SINK_MAX_BLOCKS] = {0};
   unsigned stack[SINK_MAX_BLOCKS], top = 0;
   stack[top++] = ui;
   bool first = true;
   while (top) {
      unsigned i = stack[--top];
      if (!first && i == ui)
         return true;
      if (!first) {
         if (seen[i])
            continue;
         seen[i] = 1;
      }
      first = false;
      LLVMValueRef term = LLVMGetBasicBlockTerminator(blocks[i]);
      if (!term)
         continue;
      for (unsigned k = 0, ns = LLVMGetNumSuccessors(term); k < ns; k++) {
         int j = block_index(blocks, n, LLVMGetSuccessor(term, k));
         if (j < 0)
            return true;   /* unknown: treat as a cycle */
         if ((unsigned)j == ui)
            return true;
         if (!seen[j] && top < SINK_MAX_BLOCKS)
            stack[top++] = (unsigned)j;
         else if (!seen[j])
            return true;   /* out of stack: treat as a cycle */
      }
   }
   return false;
}

static void
sink_invariant_loads(LLVMModuleRef mod)
{
   LLVMContextRef ctx = LLVMGetModuleContext(mod);
   const unsigned inv = LLVMGetMDKindIDInContext(ctx, "invariant.load", 14);
   LLVMBuilderRef b = NULL;
   for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
      unsigned n = LLVMCountBasicBlocks(fn);
      if (LLVMIsDeclaration(fn) || n < 2 || n > SINK_MAX_BLOCKS)
         continue;
      LLVMBasicBlockRef blocks[SINK_MAX_BLOCKS];
      LLVMGetBasicBlocks(fn, blocks);
      bool indirect = false;
      for (unsigned i = 0; i < n && !indirect; i++)
         for (LLVMValueRef in = LLVMGetFirstInstruction(blocks[i]); in && !indirect;
              in = LLVMGetNextInstruction(in))
            indirect = LLVMIsACallInst(in) && !LLVMIsAFunction(LLVMGetCalledValue(in));
      if (!indirect)
         continue;
      for (unsigned i = 0; i < n; i++) {
         LLVMValueRef next;
         for (LLVMValueRef in = LLVMGetFirstInstruction(blocks[i]); in; in = next) {
            next = LLVMGetNextInstruction(in);
            if (!LLVMIsALoadInst(in) || !LLVMGetMetadata(in, inv) || LLVMGetVolatile(in))
               continue;
            LLVMBasicBlockRef u = NULL;
            bool ok = true;
            for (LLVMUseRef use = LLVMGetFirstUse(in); use && ok; use = LLVMGetNextUse(use)) {
               LLVMValueRef user = LLVMGetUser(use);
               LLVMBasicBlockRef ub = LLVMIsAInstruction(user) ? LLVMGetInstructionParent(user) : NULL;
               ok = ub && !LLVMIsAPHINode(user) && (!u || ub == u);
               u = ub;
            }
            if (!ok || !u || u == blocks[i])
               continue;
            int ui = block_index(blocks, n, u);
            if (ui < 0 || block_in_cycle(blocks, n, (unsigned)ui))
               continue;
            LLVMValueRef at = LLVMGetFirstInstruction(u);
            while (at && LLVMIsAPHINode(at))
               at = LLVMGetNextInstruction(at);
            if (!at)
               continue;
            if (!b)
               b = LLVMCreateBuilderInContext(ctx);
            LLVMPositionBuilderBefore(b, at);
            LLVMInstructionRemoveFromParent(in);
            LLVMInsertIntoBuilder(b, in);
         }
      }
   }
   if (b)
      LLVMDisposeBuilder(b);
}

/* Native assembly of mod as the code generator would emit it. Code
 * generation rewrites the IR it runs on, so it runs on a copy: the object
 * made afterwards from mod is the one a compile without the dump makes. */
static char *
emit_assembly(LLVMTargetMachineRef tm, LLVMModuleRef mod)
{
   LLVMModuleRef clone = LLVMCloneModule(mod);
   if (!clone)
      return NULL;
   char *errmsg = NULL;
   LLVMMemoryBufferRef buffer = NULL;
   char *text = NULL;
   if (!LLVMTargetMachineEmitToMemoryBuffer(tm, clone, LLVMAssemblyFile, &errmsg, &buffer)) {
      size_t size = LLVMGetBufferSize(buffer);
      text = malloc(size + 1);
      if (text) {
         memcpy(text, LLVMGetBufferStart(buffer), size);
         text[size] = '\0';
      }
      LLVMDisposeMemoryBuffer(buffer);
   } else {
      char *why = NULL;
      if (asprintf(&why, "; code generation failed: %s\n", errmsg ? errmsg : "?") > 0)
         text = why;
   }
   LLVMDisposeMessage(errmsg);
   LLVMDisposeModule(clone);
   return text;
}

/* Verifies, optimizes and generates an object file for the host; records
 * the optimize and codegen phases, and the dump's optimized IR and
 * assembly when asked for. */
static enum sc_result
optimize(struct sc_jit *jit, LLVMModuleRef mod, bool baseline, struct sc_compile_dump *dump,
         double phase_ms[SC_PHASE_COUNT], LLVMMemoryBufferRef *object, char *message,
         size_t message_size)
{
   double t = sc_now_ms();
   char *errmsg = NULL;
   if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &errmsg)) {
      if (message && message_size)
         snprintf(message, message_size, "internal: bad LLVM IR: %.200s", errmsg ? errmsg : "");
      if (getenv("SHALE_DUMP_IR"))
         LLVMDumpModule(mod);
      LLVMDisposeMessage(errmsg);
      return SC_ERROR_INTERNAL;
   }
   LLVMDisposeMessage(errmsg);
   LLVMTargetMachineRef tm = take_tm(jit, baseline);
   if (!tm)
      return SC_ERROR_INTERNAL;
   inline_single_calls(mod);
   LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
   LLVMErrorRef err = LLVMRunPasses(mod, baseline ? sc_baseline_passes : sc_passes, tm, opts);
   LLVMDisposePassBuilderOptions(opts);
   if (err) {
      put_tm(jit, tm, baseline);
      error_message(err, message, message_size, "LLVM passes");
      return SC_ERROR_INTERNAL;
   }
   sink_invariant_loads(mod);
   phase_ms[SC_PHASE_OPTIMIZE] = sc_now_ms() - t;
   if (getenv("SHALE_DUMP_IR"))
      LLVMDumpModule(mod);
   /* Debugging output is not part of any phase's time. */
   if (dump && dump->want_ir)
      dump->ir_opt = take_llvm_string(LLVMPrintModuleToString(mod));
   if (dump && dump->want_asm)
      dump->assembly = emit_assembly(tm, mod);

   t = sc_now_ms();
   errmsg = NULL;
   LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &errmsg, object);
   put_tm(jit, tm, baseline);
   phase_ms[SC_PHASE_CODEGEN] = sc_now_ms() - t;
   if (failed) {
      if (message && message_size)
         snprintf(message, message_size, "internal: code generation: %.200s", errmsg ? errmsg : "");
      LLVMDisposeMessage(errmsg);
      return SC_ERROR_INTERNAL;
   }
   return SC_SUCCESS;
}

enum sc_result
sc_jit_compile(struct sc_jit *jit, const struct sc_module *m, const struct sc_cfg *cfg,
               const struct sc_entry_point *ep, const struct sc_compile_info *info,
               uint32_t simd_width, const uint32_t local_size[3], struct sc_shader *shader,
               char *message, size_t message_size)
{
   double t = sc_now_ms();
   LLVMContextRef ctx = LLVMContextCreate();
   LLVMContextSetOpaquePointers(ctx, 1);
   LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("shale_shader", ctx);
   LLVMSetTarget(mod, jit->triple);
   LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(jit->lljit));

   struct sc_xlate x = {
      .m = m,
      .cfg = cfg,
      .f = cfg->f,
      .info = info,
      .model = ep->model,
      .W = simd_width,
      .local_size = { local_size[0], local_size[1], local_size[2] },
      .ctx = ctx,
      .mod = mod,
      .message = message,
      .message_size = message_size,
   };
   enum sc_result r = sc_translate(&x, ep, SC_ENTRY_SYMBOL);
   shader->phase_ms[SC_PHASE_TRANSLATE] = sc_now_ms() - t;
   if (getenv("SHALE_DUMP_IR") && r == SC_SUCCESS)
      LLVMDumpModule(mod);
   if (info->dump && info->dump->want_ir && r == SC_SUCCESS)
      info->dump->ir = take_llvm_string(LLVMPrintModuleToString(mod));
   LLVMMemoryBufferRef object = NULL;
   if (r == SC_SUCCESS)
      r = optimize(jit, mod, (info->flags & SC_COMPILE_BASELINE) != 0, info->dump,
                   shader->phase_ms, &object, message, message_size);
   LLVMDisposeModule(mod);
   LLVMContextDispose(ctx);
   if (r != SC_SUCCESS) {
      sc_xlate_finish(&x);
      return r;
   }

   /* Metadata. */
   memcpy(shader->local_size, x.local_size, sizeof(x.local_size));
   shader->subgroup_count = x.subgroups;
   shader->shared_size = x.shared_size;
   shader->scratch_size = x.barrier_mode ?
      ((x.subgroups * 4 + 63) & ~63u) + x.subgroups * x.frame_size :
      (x.lane_frame_size + 63) & ~63u;
   shader->push_constant_size = x.push_size;
   shader->binding_count = x.nbindings;
   memcpy(&shader->io, &x.io, sizeof(shader->io));
   shader->bindings = x.bindings;
   x.bindings = NULL;
   sc_xlate_finish(&x);

   void *entry = NULL;
   t = sc_now_ms();
   r = sc_jit_load(jit, LLVMGetBufferStart(object), LLVMGetBufferSize(object), &shader->code,
                   &entry, message, message_size);
   LLVMDisposeMemoryBuffer(object);
   shader->phase_ms[SC_PHASE_LINK] = sc_now_ms() - t;
   if (r != SC_SUCCESS)
      return r;
   shader->fn.cs = (shale_cs_fn)(uintptr_t)entry;
   return SC_SUCCESS;
}

enum sc_result
sc_jit_compile_backend(struct sc_jit *jit, const struct shale_fb_key *key,
                       const struct shale_fb_ds_key *ds_key,
                       struct sc_jit_code **out, void **entry, char *message,
                       size_t message_size)
{
   *out = NULL;
   *entry = NULL;
   LLVMContextRef ctx = LLVMContextCreate();
   LLVMContextSetOpaquePointers(ctx, 1);
   LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("shale_backend", ctx);
   LLVMSetTarget(mod, jit->triple);
   LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(jit->lljit));
   double phase_ms[SC_PHASE_COUNT];
   LLVMMemoryBufferRef object = NULL;
   enum sc_result r =
      ds_key ? sc_backend_build_ds(ctx, mod, ds_key, SC_ENTRY_SYMBOL, message, message_size)
             : sc_backend_build(ctx, mod, key, SC_ENTRY_SYMBOL, message, message_size);
   if (r == SC_SUCCESS)
      r = optimize(jit, mod, false, NULL, phase_ms, &object, message, message_size);
   LLVMDisposeModule(mod);
   LLVMContextDispose(ctx);
   if (r != SC_SUCCESS)
      return r;
   r = sc_jit_load(jit, LLVMGetBufferStart(object), LLVMGetBufferSize(object), out, entry,
                   message, message_size);
   LLVMDisposeMemoryBuffer(object);
   return r;
}
