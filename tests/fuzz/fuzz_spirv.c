/* libFuzzer target: mutated SPIR-V through the whole compiler (validation,
 * legalization, parsing, translation, LLVM, JIT link: sc_compile) and, for a
 * compute shader that compiles, one workgroup run on this thread.
 *
 * The input is a SPIR-V module as is (seeds are the test suite's shaders,
 * ci/fuzz.sh), so every corpus file disassembles with spirv-dis. The first
 * OpEntryPoint picks the stage (its execution model) and the entry point
 * name. The header's generator word, which no consumer interprets, picks
 * the compile options from its low bits: SIMD width, baseline or optimized
 * code, the validator relaxations and the API version.
 *
 * The run: one workgroup of at most 1024 invocations, compiled with
 * robustBufferAccess (an out-of-range buffer access is then defined, so any
 * crash in the run is Shale's), every set's records 0..63 pointing at small
 * zeroed buffers (buffers and texel buffers; a shader using any other
 * descriptor kind, or records past 63, is compiled but not run). A shader may
 * legitimately loop for a very long time: after SHALE_FUZZ_RUN_MS (default
 * 200) milliseconds a timer signal sets the context's cancel word, as the
 * device watchdog does (shader_abi.h "Cancellation"), and the compiled code
 * must return at its next loop poll; so every run also checks that a
 * mutated shader cannot escape the polls. Short counted loops have no poll
 * but a bounded trip count, so a cancelled run may still take a while: only
 * when it has not returned SHALE_FUZZ_STOP_MS (default 5000) after the
 * cancel is it abandoned, by a second signal that jumps out of the compiled
 * code, which keeps no state and never blocks or allocates (shader_abi.h),
 * so abandoning it leaks nothing. Such runs are counted and printed
 * (a poll the translator failed to place, or a very long unpolled nest;
 * not a failure: the input may be legitimate). Hangs
 * anywhere else (the compiler) are libFuzzer's -timeout. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "compiler/sc_compiler.h"

#define RECORDS 64              /* records per set */
#define BUFFER_BYTES 256        /* bytes behind each buffer record */
#define MAX_SCRATCH (64u << 20)

static struct sc_compiler *compiler;
static uint8_t *buffers;        /* SHALE_MAX_DESCRIPTOR_SETS * RECORDS * BUFFER_BYTES */
static union shale_descriptor sets[SHALE_MAX_DESCRIPTOR_SETS][RECORDS];
static uint8_t push_constants[SHALE_MAX_PUSH_CONSTANTS_SIZE];
static timer_t run_timer;
static long run_ms = 200, stop_ms = 5000;
static sigjmp_buf run_jump;
static volatile sig_atomic_t run_armed;
static uint32_t run_cancel;     /* the run's cancel word (shader_abi.h) */
static unsigned long runs, runs_cancelled, runs_abandoned;

/* First expiry: cancel the run (the compiled code returns at its next
 * poll) and wait stop_ms more; second: jump out. */
static void
on_run_timer(int sig)
{
   (void)sig;
   if (!run_armed)
      return;
   if (!__atomic_load_n(&run_cancel, __ATOMIC_RELAXED)) {
      __atomic_store_n(&run_cancel, 1, __ATOMIC_RELAXED);
      struct itimerspec stop = { .it_value = { stop_ms / 1000, (stop_ms % 1000) * 1000000 } };
      timer_settime(run_timer, 0, &stop, NULL);
      return;
   }
   run_armed = 0;
   siglongjmp(run_jump, 1);
}

static void
print_stats(void)
{
   fprintf(stderr, "fuzz_spirv: %lu compute runs, %lu cancelled after %ld ms (returned at a "
           "poll), %lu abandoned %ld ms after the cancel\n",
           runs, runs_cancelled, run_ms, runs_abandoned, stop_ms);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
   (void)argc;
   (void)argv;
   if (sc_compiler_create(&compiler) != SC_SUCCESS) {
      fprintf(stderr, "fuzz_spirv: no compiler\n");
      abort();
   }
   buffers = calloc((size_t)SHALE_MAX_DESCRIPTOR_SETS * RECORDS, BUFFER_BYTES);
   if (!buffers)
      abort();
   const char *ms = getenv("SHALE_FUZZ_RUN_MS");
   if (ms && atol(ms) > 0)
      run_ms = atol(ms);
   ms = getenv("SHALE_FUZZ_STOP_MS");
   if (ms && atol(ms) > 0)
      stop_ms = atol(ms);

   /* The run's timer: a real-time signal sent to this thread only
    * (libFuzzer owns SIGALRM for -timeout, and SIGUSR1/2). */
   struct sigaction sa;
   memset(&sa, 0, sizeof(sa));
   sa.sa_handler = on_run_timer;
   sigemptyset(&sa.sa_mask);
   if (sigaction(SIGRTMIN + 3, &sa, NULL))
      abort();
   struct sigevent sev;
   memset(&sev, 0, sizeof(sev));
   sev.sigev_notify = SIGEV_THREAD_ID;
   sev.sigev_signo = SIGRTMIN + 3;
   sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
   if (timer_create(CLOCK_MONOTONIC, &sev, &run_timer))
      abort();
   atexit(print_stats);
   return 0;
}

/* The first OpEntryPoint's execution model and name, or false. */
static bool
find_entry_point(const uint32_t *words, size_t count, uint32_t *model, char *name, size_t name_size)
{
   size_t i = 5;
   while (i < count) {
      uint32_t op = words[i] & 0xffffu, wc = words[i] >> 16;
      if (wc == 0 || i + wc > count)
         return false;
      if (op == 15 /* OpEntryPoint */ && wc >= 4) {
         *model = words[i + 1];
         const char *s = (const char *)&words[i + 3];
         size_t max = (wc - 3) * 4;
         size_t n = strnlen(s, max);
         if (n == max || n >= name_size)
            return false;
         memcpy(name, s, n + 1);
         return true;
      }
      i += wc;
   }
   return false;
}

static bool
is_buffer_type(VkDescriptorType t)
{
   return t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER || t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER ||
          t == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
          t == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

static bool
is_texel_buffer_type(VkDescriptorType t)
{
   return t == VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER ||
          t == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
}

/* Fills the records the shader uses; false when it uses something the
 * run cannot provide. */
static bool
bind(const struct sc_shader *s)
{
   memset(sets, 0, sizeof(sets));
   memset(buffers, 0, (size_t)SHALE_MAX_DESCRIPTOR_SETS * RECORDS * BUFFER_BYTES);
   for (uint32_t i = 0; i < s->binding_count; i++) {
      const struct sc_binding_use *b = &s->bindings[i];
      if (b->set >= SHALE_MAX_DESCRIPTOR_SETS || b->binding >= RECORDS ||
          b->array_size > RECORDS - b->binding)
         return false;
      bool texel = is_texel_buffer_type(b->type);
      if (!texel && !is_buffer_type(b->type))
         return false;
      for (uint32_t e = 0; e < b->array_size; e++) {
         uint32_t r = b->binding + e;
         uint8_t *mem = buffers + ((size_t)b->set * RECORDS + r) * BUFFER_BYTES;
         union shale_descriptor *d = &sets[b->set][r];
         if (texel) {
            d->texel_buffer.base = mem;
            d->texel_buffer.range = BUFFER_BYTES;
            d->texel_buffer.format = VK_FORMAT_R32_UINT;
            d->texel_buffer.element_size = 4;
            d->texel_buffer.element_count = BUFFER_BYTES / 4;
         } else {
            d->buffer.base = mem;
            d->buffer.range = BUFFER_BYTES;
         }
      }
   }
   return true;
}

static void *
aligned_block(uint32_t size)
{
   size_t bytes = ((size_t)(size ? size : 1) + SHALE_MEMORY_ALIGN - 1) &
                  ~(size_t)(SHALE_MEMORY_ALIGN - 1);
   return aligned_alloc(SHALE_MEMORY_ALIGN, bytes);
}

static void
run(const struct sc_shader *s)
{
   uint64_t invocations = (uint64_t)s->local_size[0] * s->local_size[1] * s->local_size[2];
   if (!s->fn.cs || invocations == 0 || invocations > 1024 || s->scratch_size > MAX_SCRATCH ||
       !bind(s))
      return;
   struct shale_cs_context ctx;
   memset(&ctx, 0, sizeof(ctx));
   for (int i = 0; i < SHALE_MAX_DESCRIPTOR_SETS; i++)
      ctx.sets[i] = sets[i];
   ctx.push_constants = push_constants;
   ctx.cancel = &run_cancel;
   for (int k = 0; k < 3; k++) {
      ctx.num_workgroups[k] = 1;
      ctx.local_size[k] = s->local_size[k];
   }
   struct shale_cs_workgroup wg;
   memset(&wg, 0, sizeof(wg));
   void *volatile shared = aligned_block(s->shared_size);
   void *volatile scratch = aligned_block(s->scratch_size);
   if (!shared || !scratch)
      goto out;
   wg.shared_memory = shared;
   wg.scratch = scratch;
   runs++;
   struct itimerspec arm = { .it_value = { run_ms / 1000, (run_ms % 1000) * 1000000 } };
   struct itimerspec disarm = { 0 };
   __atomic_store_n(&run_cancel, 0, __ATOMIC_RELAXED);
   if (sigsetjmp(run_jump, 1) == 0) {
      run_armed = 1;
      timer_settime(run_timer, 0, &arm, NULL);
      s->fn.cs(&ctx, &wg);
      run_armed = 0;
      timer_settime(run_timer, 0, &disarm, NULL);
      runs_cancelled += __atomic_load_n(&run_cancel, __ATOMIC_RELAXED) != 0;
   } else {
      timer_settime(run_timer, 0, &disarm, NULL);
      runs_abandoned++;
   }
out:
   free(shared);
   free(scratch);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   size_t count = size / 4;
   if (count < 5 || count > (1u << 20))
      return -1;
   uint32_t *words = malloc(count * 4);
   if (!words)
      return 0;
   memcpy(words, data, count * 4);

   uint32_t model = 5;   /* GLCompute */
   char name[64] = "main";
   find_entry_point(words, count, &model, name, sizeof(name));
   VkShaderStageFlagBits stage;
   switch (model) {
   case 0: stage = VK_SHADER_STAGE_VERTEX_BIT; break;
   case 1: stage = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT; break;
   case 2: stage = VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT; break;
   case 3: stage = VK_SHADER_STAGE_GEOMETRY_BIT; break;
   case 4: stage = VK_SHADER_STAGE_FRAGMENT_BIT; break;
   default: stage = VK_SHADER_STAGE_COMPUTE_BIT; break;
   }

   /* Options from the generator word (glslang's 0x8000b gives 4 lanes,
    * baseline code, Vulkan 1.3 rules). */
   uint32_t g = words[2] ^ 0xbu;
   static const uint32_t widths[4] = { 4, 1, 8, 16 };
   static const uint32_t apis[4] = { 0, VK_API_VERSION_1_0, VK_API_VERSION_1_1,
                                     VK_API_VERSION_1_2 };
   uint32_t flags = SC_COMPILE_ROBUST_BUFFER_ACCESS;
   if (!(g & 4))
      flags |= SC_COMPILE_BASELINE;
   if (g & 0x10)
      flags |= SC_COMPILE_SCALAR_BLOCK_LAYOUT;
   if (g & 0x20)
      flags |= SC_COMPILE_UBO_STANDARD_LAYOUT;
   if (g & 0x40)
      flags |= SC_COMPILE_LOCAL_SIZE_ID;
   struct sc_compile_info info = {
      .words = words,
      .word_count = count,
      .entry_point = name,
      .stage = stage,
      .api_version = apis[(g >> 8) & 3],
      .flags = flags,
      .simd_width = widths[g & 3],
   };
   char msg[256] = "";
   struct sc_shader *s = NULL;
   enum sc_result res = sc_compile(compiler, &info, &s, msg, sizeof(msg));
   if ((res == SC_SUCCESS) != (s != NULL)) {
      fprintf(stderr, "fuzz_spirv: sc_compile returned %s with shader %p\n",
              sc_result_string(res), (void *)s);
      abort();
   }
   if (s) {
      if (s->stage != stage) {
         fprintf(stderr, "fuzz_spirv: compiled stage %#x, asked %#x\n", s->stage, stage);
         abort();
      }
      if (stage == VK_SHADER_STAGE_COMPUTE_BIT)
         run(s);
      sc_shader_destroy(s);
   }
   free(words);
   return 0;
}
