/* Compiler entry points: validate -> legalize -> parse -> analyse -> JIT. */
#include "sc_compiler.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <spirv/unified1/spirv.h>

#include "sc_cfg.h"
#include "sc_internal.h"
#include "sc_llvm.h"
#include "sc_spirv.h"
#include "util/su_fp.h"

const char *
sc_result_string(enum sc_result result)
{
   switch (result) {
   case SC_SUCCESS: return "success";
   case SC_ERROR_INVALID_SPIRV: return "invalid SPIR-V";
   case SC_ERROR_UNSUPPORTED: return "unsupported SPIR-V feature";
   case SC_ERROR_ENTRY_POINT: return "entry point not found";
   case SC_ERROR_OUT_OF_MEMORY: return "out of memory";
   case SC_ERROR_INTERNAL: return "internal compiler error";
   case SC_ERROR_INVALID_BLOB: return "invalid shader blob";
   case SC_ERROR_INCOMPATIBLE_BLOB: return "shader blob for another host or compiler";
   case SC_ERROR_TOO_SMALL: return "buffer too small";
   }
   return "unknown result";
}

const char *
sc_phase_name(enum sc_phase phase)
{
   static const char *const names[SC_PHASE_COUNT] = {
      [SC_PHASE_VALIDATE] = "validate",   [SC_PHASE_LEGALIZE] = "legalize",
      [SC_PHASE_PARSE] = "parse",         [SC_PHASE_TRANSLATE] = "translate",
      [SC_PHASE_OPTIMIZE] = "optimize",   [SC_PHASE_CODEGEN] = "codegen",
      [SC_PHASE_LINK] = "link",
   };
   return (unsigned)phase < SC_PHASE_COUNT ? names[phase] : "?";
}

void
sc_compile_dump_finish(struct sc_compile_dump *dump)
{
   if (!dump)
      return;
   free(dump->ir);
   free(dump->ir_opt);
   free(dump->assembly);
   dump->ir = dump->ir_opt = dump->assembly = NULL;
}

static void set_message(char *message, size_t size, const char *text);

/* A cached back-end routine: a colour key (shale_fb_key) or a
 * depth/stencil key (shale_fb_ds_key), compared as bytes with its kind. */
struct sc_backend_entry {
   struct sc_backend_entry *next;
   bool ds;
   union {
      struct shale_fb_key color;
      struct shale_fb_ds_key ds;
   } key;
   struct sc_jit_code *code;
   void *fn;
};

static void *
find_backend(struct sc_compiler *compiler, bool ds, const void *key, size_t size)
{
   for (struct sc_backend_entry *e = compiler->backends; e; e = e->next)
      if (e->ds == ds && !memcmp(&e->key, key, size))
         return e->fn;
   return NULL;
}

/* Adds e, filled in, to the compiler's routines, unless another thread
 * added the same key meanwhile: then e goes and that one stays. Returns the
 * routine that stays. */
static void *
keep_backend(struct sc_compiler *compiler, struct sc_backend_entry *e, size_t size)
{
   pthread_mutex_lock(&compiler->backend_lock);
   void *fn = find_backend(compiler, e->ds, &e->key, size);
   if (!fn) {
      e->next = compiler->backends;
      compiler->backends = e;
      fn = e->fn;
      e = NULL;
   }
   pthread_mutex_unlock(&compiler->backend_lock);
   if (e) {
      sc_jit_code_free(e->code);
      free(e);
   }
   return fn;
}

static enum sc_result
compile_backend(struct sc_compiler *compiler, const struct shale_fb_key *key,
                const struct shale_fb_ds_key *ds_key, void **out, char *message,
                size_t message_size)
{
   const bool ds = ds_key != NULL;
   const void *k = ds ? (const void *)ds_key : (const void *)key;
   const size_t size = ds ? sizeof(*ds_key) : sizeof(*key);
   pthread_mutex_lock(&compiler->backend_lock);
   *out = find_backend(compiler, ds, k, size);
   pthread_mutex_unlock(&compiler->backend_lock);
   if (*out)
      return SC_SUCCESS;
   struct sc_backend_entry *e = calloc(1, sizeof(*e));
   if (!e)
      return SC_ERROR_OUT_OF_MEMORY;
   if (!sc_exit_enter()) {
      free(e);
      set_message(message, message_size, "the process is exiting");
      return SC_ERROR_INTERNAL;
   }
   void *entry = NULL;
   enum sc_result r = sc_jit_compile_backend(compiler->jit, key, ds_key, &e->code, &entry,
                                             message, message_size);
   if (r != SC_SUCCESS) {
      sc_exit_leave();
      free(e);
      return r;
   }
   e->ds = ds;
   memcpy(&e->key, k, size);
   e->fn = entry;
   /* Another thread may have compiled the same key meanwhile: keep one. */
   *out = keep_backend(compiler, e, size);
   sc_exit_leave();
   return SC_SUCCESS;
}

/* Back-end routines in caches (sc_blob.c): the object of a compiled
 * routine, and the insertion of one linked from a blob. */
bool
sc_backend_object(struct sc_compiler *compiler, bool ds, const void *key, size_t size,
                  const void **object, size_t *object_size)
{
   bool found = false;
   pthread_mutex_lock(&compiler->backend_lock);
   for (struct sc_backend_entry *e = compiler->backends; e; e = e->next) {
      if (e->ds == ds && !memcmp(&e->key, key, size)) {
         /* The code lives until the compiler goes: the pointer stays valid. */
         sc_jit_code_object(e->code, object, object_size);
         found = true;
         break;
      }
   }
   pthread_mutex_unlock(&compiler->backend_lock);
   return found;
}

enum sc_result
sc_backend_insert(struct sc_compiler *compiler, bool ds, const void *key, size_t size,
                  struct sc_jit_code *code, void *fn)
{
   struct sc_backend_entry *e = calloc(1, sizeof(*e));
   if (!e) {
      sc_jit_code_free(code);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   e->ds = ds;
   memcpy(&e->key, key, size);
   e->code = code;
   e->fn = fn;
   keep_backend(compiler, e, size);
   return SC_SUCCESS;
}

bool
sc_backend_compiled(struct sc_compiler *compiler, const struct shale_fb_key *key,
                    const struct shale_fb_ds_key *ds_key)
{
   const bool ds = ds_key != NULL;
   pthread_mutex_lock(&compiler->backend_lock);
   bool found = find_backend(compiler, ds, ds ? (const void *)ds_key : (const void *)key,
                             ds ? sizeof(*ds_key) : sizeof(*key)) != NULL;
   pthread_mutex_unlock(&compiler->backend_lock);
   return found;
}

enum sc_result
sc_compile_fragment_backend(struct sc_compiler *compiler, const struct shale_fb_key *key,
                            shale_fb_color_fn *out, char *message, size_t message_size)
{
   void *fn = NULL;
   enum sc_result r = compile_backend(compiler, key, NULL, &fn, message, message_size);
   *out = (shale_fb_color_fn)(uintptr_t)fn;
   return r;
}

enum sc_result
sc_compile_fragment_ds(struct sc_compiler *compiler, const struct shale_fb_ds_key *key,
                       shale_fb_ds_fn *out, char *message, size_t message_size)
{
   void *fn = NULL;
   enum sc_result r = compile_backend(compiler, NULL, key, &fn, message, message_size);
   *out = (shale_fb_ds_fn)(uintptr_t)fn;
   return r;
}

enum sc_result
sc_compiler_create(struct sc_compiler **out)
{
   *out = NULL;
   struct sc_compiler *c = calloc(1, sizeof(*c));
   if (!c)
      return SC_ERROR_OUT_OF_MEMORY;
   if (!sc_exit_enter()) {
      free(c);
      return SC_ERROR_INTERNAL;
   }
   enum sc_result r = sc_jit_create(&c->jit);
   sc_exit_leave();
   if (r != SC_SUCCESS) {
      free(c);
      return r;
   }
   pthread_mutex_init(&c->backend_lock, NULL);
   *out = c;
   return SC_SUCCESS;
}

void
sc_compiler_destroy(struct sc_compiler *compiler)
{
   if (!compiler)
      return;
   if (sc_exit_enter()) {
      for (struct sc_backend_entry *e = compiler->backends; e; e = e->next)
         sc_jit_code_free(e->code);
      sc_jit_destroy(compiler->jit);
      sc_exit_leave();
   }
   while (compiler->backends) {
      struct sc_backend_entry *e = compiler->backends;
      compiler->backends = e->next;
      free(e);
   }
   pthread_mutex_destroy(&compiler->backend_lock);
   free(compiler);
}

uint32_t
sc_default_simd_width(void)
{
   const char *env = getenv("SHALE_SIMD_WIDTH");
   if (env) {
      long w = strtol(env, NULL, 10);
      if (w == 4 || w == 8 || w == 16)
         return (uint32_t)w;
   }
   return sc_jit_host_simd_width();
}

static uint32_t
stage_model(VkShaderStageFlagBits stage)
{
   switch (stage) {
   case VK_SHADER_STAGE_VERTEX_BIT: return SpvExecutionModelVertex;
   case VK_SHADER_STAGE_FRAGMENT_BIT: return SpvExecutionModelFragment;
   case VK_SHADER_STAGE_COMPUTE_BIT: return SpvExecutionModelGLCompute;
   case VK_SHADER_STAGE_GEOMETRY_BIT: return SpvExecutionModelGeometry;
   case VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT: return SpvExecutionModelTessellationControl;
   case VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT:
      return SpvExecutionModelTessellationEvaluation;
   default: return UINT32_MAX;
   }
}

double
sc_now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void
set_message(char *message, size_t size, const char *text)
{
   if (message && size && !message[0])
      snprintf(message, size, "%s", text);
}

/* Finds the entry point of that name and stage; the name must be
 * NUL-terminated inside the instruction. */
static const struct sc_entry_point *
find_entry_point(const struct sc_module *m, const char *name, uint32_t model)
{
   for (uint32_t i = 0; i < m->nentry_points; i++) {
      const struct sc_entry_point *ep = &m->entry_points[i];
      const struct sc_inst *inst = &m->insts[ep->inst];
      size_t max = (inst->nwords - 3) * 4;
      if (ep->model == model && strnlen(ep->name, max) < max && !strcmp(ep->name, name))
         return ep;
   }
   return NULL;
}

static enum sc_result
compile(struct sc_compiler *compiler, const struct sc_compile_info *info,
        struct sc_shader **out, char *message, size_t message_size)
{
   double start = sc_now_ms();
   *out = NULL;
   if (message && message_size)
      message[0] = '\0';
   if (!compiler || !info || !info->entry_point) {
      set_message(message, message_size, "bad arguments");
      return SC_ERROR_INTERNAL;
   }
   uint32_t model = stage_model(info->stage);
   if (model == UINT32_MAX) {
      set_message(message, message_size, "unknown shader stage");
      return SC_ERROR_UNSUPPORTED;
   }
   uint32_t simd_width = info->simd_width ? info->simd_width : sc_default_simd_width();
   if (simd_width != 1 && simd_width != 4 && simd_width != 8 && simd_width != 16) {
      set_message(message, message_size, "SIMD width must be 1, 4, 8 or 16");
      return SC_ERROR_UNSUPPORTED;
   }

   if (simd_width == 1 && model == SpvExecutionModelFragment) {
      set_message(message, message_size, "scalar code: fragment shaders run on 2x2 quads");
      return SC_ERROR_UNSUPPORTED;
   }

   double phase_ms[SC_PHASE_COUNT] = { 0 };
   double t = sc_now_ms();
   int env = sc_spirv_target_env(info->words, info->word_count, info->api_version);
   enum sc_result r = sc_spirv_validate(env, info->words, info->word_count, info->flags,
                                        message, message_size);
   phase_ms[SC_PHASE_VALIDATE] = sc_now_ms() - t;
   if (r != SC_SUCCESS)
      return r;

   /* The workgroup size, from the module as given: legalization may drop
    * the WorkgroupSize constant once nothing else uses it. */
   uint32_t local_size[3] = { 1, 1, 1 };
   t = sc_now_ms();
   if (model == SpvExecutionModelGLCompute) {
      uint32_t *copy = malloc(info->word_count * sizeof(uint32_t));
      if (!copy)
         return SC_ERROR_OUT_OF_MEMORY;
      memcpy(copy, info->words, info->word_count * sizeof(uint32_t));
      struct sc_module orig;
      r = sc_module_parse(&orig, env, copy, info->word_count, message, message_size);
      const struct sc_entry_point *oep = r == SC_SUCCESS ?
         find_entry_point(&orig, info->entry_point, model) : NULL;
      if (r == SC_SUCCESS && !oep) {
         if (message && message_size)
            snprintf(message, message_size, "no entry point \"%s\" for this stage",
                     info->entry_point);
         r = SC_ERROR_ENTRY_POINT;
      }
      if (r == SC_SUCCESS) {
         r = sc_module_local_size(&orig, oep->function, info->spec_constants,
                                  info->spec_constant_count, local_size);
         if (r != SC_SUCCESS)
            set_message(message, message_size, "workgroup size missing or not constant");
      }
      sc_module_free(&orig);
      if (r != SC_SUCCESS)
         return r;
   }

   phase_ms[SC_PHASE_PARSE] = sc_now_ms() - t;

   t = sc_now_ms();
   uint32_t *words = NULL;
   size_t nwords = 0;
   int lr = sc_spirv_legalize(env, info->words, info->word_count, info->spec_constants,
                              info->spec_constant_count, &words, &nwords, message, message_size);
   if (lr == -2)
      return SC_ERROR_OUT_OF_MEMORY;
   if (lr != 0) {
      /* Specialization values of the wrong size fail here too. */
      return SC_ERROR_INVALID_SPIRV;
   }
   phase_ms[SC_PHASE_LEGALIZE] = sc_now_ms() - t;

   t = sc_now_ms();
   struct sc_module m;
   struct sc_cfg cfg;
   memset(&cfg, 0, sizeof(cfg));
   struct sc_shader *shader = NULL;
   r = sc_module_parse(&m, env, words, nwords, message, message_size);
   const struct sc_entry_point *ep = NULL;
   const struct sc_function *f = NULL;
   if (r == SC_SUCCESS) {
      ep = find_entry_point(&m, info->entry_point, model);
      for (uint32_t i = 0; ep && i < m.nfunctions; i++)
         if (m.functions[i].id == ep->function)
            f = &m.functions[i];
      if (!ep || !f) {
         if (message && message_size)
            snprintf(message, message_size, "no entry point \"%s\" for this stage",
                     info->entry_point);
         r = SC_ERROR_ENTRY_POINT;
      }
   }
   if (r == SC_SUCCESS)
      r = sc_cfg_build(&cfg, &m, f, simd_width == 1, message, message_size);
   phase_ms[SC_PHASE_PARSE] += sc_now_ms() - t;
   if (r == SC_SUCCESS) {
      shader = calloc(1, sizeof(*shader));
      if (!shader)
         r = SC_ERROR_OUT_OF_MEMORY;
   }
   if (r == SC_SUCCESS) {
      shader->stage = info->stage;
      shader->simd_width = simd_width;
      memcpy(shader->phase_ms, phase_ms, sizeof(phase_ms));
      r = sc_jit_compile(compiler->jit, &m, &cfg, ep, info, simd_width, local_size, shader,
                         message, message_size);
   }
   sc_cfg_free(&cfg);
   sc_module_free(&m);
   if (r != SC_SUCCESS) {
      if (shader)
         free(shader->bindings);
      free(shader);
      set_message(message, message_size, sc_result_string(r));
      return r;
   }
   shader->baseline = (info->flags & SC_COMPILE_BASELINE) != 0;
   shader->compile_ms = sc_now_ms() - start;
   *out = shader;
   return SC_SUCCESS;
}

enum sc_result
sc_compile(struct sc_compiler *compiler, const struct sc_compile_info *info,
           struct sc_shader **out, char *message, size_t message_size)
{
   if (!sc_exit_enter()) {
      *out = NULL;
      set_message(message, message_size, "the process is exiting");
      return SC_ERROR_INTERNAL;
   }
   /* On the application's thread: fold constants in IEEE 754's default
    * environment, whatever the application set (su_fp.h). */
   const su_fp_env fp = su_fp_enter_default();
   /* Zink's modules lacking the memory model's OpExtension (sc_spirv.h). */
   uint32_t *fixed = NULL;
   size_t nfixed = 0;
   enum sc_result r = SC_ERROR_OUT_OF_MEMORY;
   if (sc_spirv_add_vmm_extension(info->words, info->word_count, &fixed, &nfixed) == 0) {
      struct sc_compile_info fixed_info = *info;
      if (fixed) {
         fixed_info.words = fixed;
         fixed_info.word_count = nfixed;
      }
      r = compile(compiler, &fixed_info, out, message, message_size);
      free(fixed);
   }
   su_fp_leave(fp);
   sc_exit_leave();
   if (r == SC_SUCCESS)
      sc_exit_watch_compile(info);
   return r;
}

void
sc_shader_destroy(struct sc_shader *shader)
{
   if (!shader)
      return;
   /* At exit the code stays (LLVM may be going away under us). */
   if (sc_exit_enter()) {
      sc_jit_code_free(shader->code);
      sc_exit_leave();
   }
   free(shader->bindings);
   free(shader);
}
