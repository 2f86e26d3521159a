/* LLVM ORC LLJIT session: optimizes translated modules (new pass manager,
 * host CPU and features) and turns them into callable code. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "llvm_private.h"

struct sc_jit {
   /* LLJIT's own compiler (used when a lookup materializes IR) shares one
    * TargetMachine, so code is generated here per compile, in parallel, and
    * only object linking and lookups are serialized. */
   pthread_mutex_t lock;
   LLVMOrcLLJITRef lljit;
   LLVMOrcJITDylibRef dylib;
   LLVMTargetRef target;
   char *triple;
   char *cpu;
   char *features;
   atomic_uint counter;
};

struct sc_jit_code {
   struct sc_jit *jit;
   LLVMOrcResourceTrackerRef tracker;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static bool init_ok;

static void
init_llvm(void)
{
   init_ok = !LLVMInitializeNativeTarget() && !LLVMInitializeNativeAsmPrinter();
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
      free(jit);
      return SC_ERROR_INTERNAL;
   }
   LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
   LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
   err = LLVMOrcCreateLLJIT(&jit->lljit, builder);
   if (err) {
      LLVMConsumeError(err);
      free(jit);
      return SC_ERROR_INTERNAL;
   }
   jit->dylib = LLVMOrcLLJITGetMainJITDylib(jit->lljit);

   size_t n = sizeof(runtime_symbols) / sizeof(runtime_symbols[0]);
   LLVMOrcCSymbolMapPair pairs[sizeof(runtime_symbols) / sizeof(runtime_symbols[0])];
   for (size_t i = 0; i < n; i++) {
      pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit->lljit, runtime_symbols[i].name);
      pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)runtime_symbols[i].addr;
      pairs[i].Sym.Flags.GenericFlags =
         LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
      pairs[i].Sym.Flags.TargetFlags = 0;
   }
   err = LLVMOrcJITDylibDefine(jit->dylib, LLVMOrcAbsoluteSymbols(pairs, n));
   if (err) {
      LLVMConsumeError(err);
      sc_jit_destroy(jit);
      return SC_ERROR_INTERNAL;
   }

   const char *triple = LLVMOrcLLJITGetTripleString(jit->lljit);
   char *errmsg = NULL;
   jit->triple = strdup(triple);
   jit->cpu = LLVMGetHostCPUName();
   jit->features = LLVMGetHostCPUFeatures();
   if (!jit->triple || LLVMGetTargetFromTriple(jit->triple, &jit->target, &errmsg)) {
      LLVMDisposeMessage(errmsg);
      sc_jit_destroy(jit);
      return SC_ERROR_INTERNAL;
   }
   atomic_init(&jit->counter, 0);
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
   free(jit->triple);
   LLVMDisposeMessage(jit->cpu);
   LLVMDisposeMessage(jit->features);
   pthread_mutex_destroy(&jit->lock);
   free(jit);
}

void
sc_jit_code_free(struct sc_jit_code *code)
{
   if (!code)
      return;
   pthread_mutex_lock(&code->jit->lock);
   LLVMErrorRef err = LLVMOrcResourceTrackerRemove(code->tracker);
   if (err)
      LLVMConsumeError(err);
   LLVMOrcReleaseResourceTracker(code->tracker);
   pthread_mutex_unlock(&code->jit->lock);
   free(code);
}

/* Verifies, optimizes (O2) and generates an object file for the host. */
static enum sc_result
optimize(struct sc_jit *jit, LLVMModuleRef mod, LLVMMemoryBufferRef *object, char *message,
         size_t message_size)
{
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
   LLVMTargetMachineRef tm =
      LLVMCreateTargetMachine(jit->target, jit->triple, jit->cpu, jit->features,
                              LLVMCodeGenLevelDefault, LLVMRelocDefault, LLVMCodeModelJITDefault);
   if (!tm)
      return SC_ERROR_INTERNAL;
   LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
   LLVMErrorRef err = LLVMRunPasses(mod, "default<O2>", tm, opts);
   LLVMDisposePassBuilderOptions(opts);
   if (err) {
      LLVMDisposeTargetMachine(tm);
      error_message(err, message, message_size, "LLVM passes");
      return SC_ERROR_INTERNAL;
   }
   if (getenv("SHALE_DUMP_IR"))
      LLVMDumpModule(mod);
   errmsg = NULL;
   LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMObjectFile, &errmsg, object);
   LLVMDisposeTargetMachine(tm);
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
   char name[32];
   snprintf(name, sizeof(name), "shale_shader_%u", atomic_fetch_add(&jit->counter, 1));

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
   enum sc_result r = sc_translate(&x, ep, name);
   if (getenv("SHALE_DUMP_IR") && r == SC_SUCCESS)
      LLVMDumpModule(mod);
   LLVMMemoryBufferRef object = NULL;
   if (r == SC_SUCCESS)
      r = optimize(jit, mod, &object, message, message_size);
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
   shader->bindings = x.bindings;
   x.bindings = NULL;
   sc_xlate_finish(&x);

   struct sc_jit_code *code = calloc(1, sizeof(*code));
   if (!code) {
      LLVMDisposeMemoryBuffer(object);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   code->jit = jit;
   pthread_mutex_lock(&jit->lock);
   code->tracker = LLVMOrcJITDylibCreateResourceTracker(jit->dylib);
   LLVMErrorRef err = LLVMOrcLLJITAddObjectFileWithRT(jit->lljit, code->tracker, object);
   LLVMOrcExecutorAddress addr = 0;
   if (!err)
      err = LLVMOrcLLJITLookup(jit->lljit, &addr, name);
   pthread_mutex_unlock(&jit->lock);
   if (err || !addr) {
      if (err)
         error_message(err, message, message_size, "JIT lookup");
      sc_jit_code_free(code);
      return SC_ERROR_INTERNAL;
   }
   shader->fn.cs = (shale_cs_fn)(uintptr_t)addr;
   shader->code = code;
   return SC_SUCCESS;
}
