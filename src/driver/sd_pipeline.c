/* Pipeline layouts and compute pipelines; compiling one stage (specialization,
 * keys, cache lookup, tiers, dumps, feedback) for every kind of pipeline. */
#include "sd_pipeline.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libspirv.h defines (not declares) this constant in C; the compiler's
 * sc_spirv.c includes it too, so rename ours to keep one definition. */
#define kDefaultMaxIdBound sd_spirv_default_max_id_bound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound

#include "sd_alloc.h"
#include "sd_descriptor.h"
#include "sd_enum_str.h"
#include "sd_device.h"
#include "sd_pipeline_cache.h"
#include "sd_queue.h"
#include "sd_shader.h"
#include "sd_util.h"

/* ---- pipeline layouts ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreatePipelineLayout(VkDevice _device, const VkPipelineLayoutCreateInfo *pCreateInfo,
                        const VkAllocationCallbacks *pAllocator, VkPipelineLayout *pPipelineLayout)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   struct sd_pipeline_layout *layout = sd_zalloc(alloc, sizeof(*layout), SD_ALIGN_DEFAULT,
                                                 VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!layout)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&layout->base, VK_OBJECT_TYPE_PIPELINE_LAYOUT, device);
   atomic_init(&layout->refcount, 1);
   layout->alloc = *alloc;
   uint32_t n = pCreateInfo->setLayoutCount;
   layout->set_count = n < SHALE_MAX_DESCRIPTOR_SETS ? n : SHALE_MAX_DESCRIPTOR_SETS;
   for (uint32_t i = 0; i < layout->set_count; i++) {
      SD_FROM_HANDLE(sd_descriptor_set_layout, set, pCreateInfo->pSetLayouts[i]);
      layout->sets[i] = set;
      if (set) {
         sd_descriptor_set_layout_ref(set);
         layout->sc_sets[i] = sd_descriptor_set_layout_sc(set);
      }
   }
   for (uint32_t i = 0; i < pCreateInfo->pushConstantRangeCount; i++) {
      const VkPushConstantRange *r = &pCreateInfo->pPushConstantRanges[i];
      uint64_t end64 = (uint64_t)r->offset + r->size;
      uint32_t end = end64 > UINT32_MAX ? UINT32_MAX : (uint32_t)end64;
      if (end > layout->push_constant_size)
         layout->push_constant_size = end;
      for (uint32_t b = 0; b < 32; b++)
         if ((r->stageFlags & (1u << b)) && end > layout->push_stage_end[b])
            layout->push_stage_end[b] = end;
   }
   *pPipelineLayout = sd_pipeline_layout_to_handle(layout);
   return VK_SUCCESS;
}

static void
sd_pipeline_layout_unref(struct sd_pipeline_layout *layout)
{
   if (atomic_fetch_sub(&layout->refcount, 1) != 1)
      return;
   for (uint32_t i = 0; i < layout->set_count; i++)
      if (layout->sets[i])
         sd_descriptor_set_layout_unref(layout->sets[i]);
   VkAllocationCallbacks alloc = layout->alloc;
   sd_free(&alloc, layout);
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyPipelineLayout(VkDevice _device, VkPipelineLayout _layout,
                         const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_pipeline_layout, layout, _layout);
   if (layout)
      sd_pipeline_layout_unref(layout);
}

/* Whether a binding of layout type `have` serves a shader variable that
 * declares `want` (the spec's Shader Resource and Descriptor Type
 * Correspondence: dynamic buffers serve buffers, combined image samplers
 * also serve separate images and samplers). */
static bool
sd_descriptor_type_serves(VkDescriptorType have, VkDescriptorType want)
{
   if (have == want)
      return true;
   switch (want) {
   case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
      return have == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
   case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
      return have == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
   case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
   case VK_DESCRIPTOR_TYPE_SAMPLER:
      return have == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
   default:
      return false;
   }
}

VkResult
sd_pipeline_layout_check(const struct sd_pipeline_layout *layout, const struct sc_shader *shader,
                         const char *what)
{
   char why[400];
   for (uint32_t i = 0; i < shader->binding_count; i++) {
      const struct sc_binding_use *u = &shader->bindings[i];
      const struct sd_descriptor_set_layout *set =
         u->set < layout->set_count ? layout->sets[u->set] : NULL;
      const struct sd_descriptor_binding *b =
         set && u->binding < set->binding_count ? &set->bindings[u->binding] : NULL;
      if (!b || !b->count) {
         snprintf(why, sizeof(why), "%s uses set %u, binding %u, which the pipeline layout %s",
                  what, u->set, u->binding, !set ? "has no set for" : "lacks");
         return sd_errorf(VK_ERROR_UNKNOWN, why);
      }
      if (!sd_descriptor_type_serves(b->type, u->type)) {
         snprintf(why, sizeof(why), "%s uses set %u, binding %u as %s; the layout has %s", what,
                  u->set, u->binding, sd_enum_str_VkDescriptorType(u->type),
                  sd_enum_str_VkDescriptorType(b->type));
         return sd_errorf(VK_ERROR_UNKNOWN, why);
      }
      if (u->array_size > b->count) {
         snprintf(why, sizeof(why), "%s uses %u descriptors of set %u, binding %u; the layout "
                  "has %u", what, u->array_size, u->set, u->binding, b->count);
         return sd_errorf(VK_ERROR_UNKNOWN, why);
      }
   }
   if (shader->push_constant_size) {
      uint32_t bit = (uint32_t)__builtin_ctz((uint32_t)shader->stage);
      uint32_t end = layout->push_stage_end[bit];
      if (!end || shader->push_constant_size > end) {
         if (!end)
            snprintf(why, sizeof(why), "%s uses push constants; the pipeline layout has no "
                     "push-constant range for its stage", what);
         else
            snprintf(why, sizeof(why), "%s uses %u bytes of push constants; the pipeline "
                     "layout's range for its stage ends at %u", what,
                     shader->push_constant_size, end);
         return sd_errorf(VK_ERROR_UNKNOWN, why);
      }
   }
   return VK_SUCCESS;
}

/* ---- debugging output ---- */

enum sd_dump_flag {
   SD_DUMP_SPIRV = 1u << 0,
   SD_DUMP_TIME = 1u << 1,
   SD_DUMP_IR = 1u << 2,
   SD_DUMP_ASM = 1u << 3,
};

/* SHALE_SHADER_DUMP, read at each pipeline creation (a debugger or a test
 * may switch it on for one pipeline). */
static uint32_t
sd_dump(void)
{
   const char *env = getenv("SHALE_SHADER_DUMP");
   if (!env)
      return 0;
   uint32_t flags = 0;
   static const struct { const char *name; uint32_t flag; } names[] = {
      { "spirv", SD_DUMP_SPIRV }, { "time", SD_DUMP_TIME }, { "ir", SD_DUMP_IR },
      { "asm", SD_DUMP_ASM },     { "all", ~0u },
   };
   for (const char *p = env; *p;) {
      size_t len = strcspn(p, ",");
      for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
         if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len))
            flags |= names[i].flag;
      p += len;
      if (*p == ',')
         p++;
   }
   return flags;
}

/* SHALE_SHADER_DUMP_DIR, when set and files may be written here (once per
 * shader it says so when they may not); NULL otherwise. */
static const char *
sd_dump_dir(void)
{
   const char *dir = getenv("SHALE_SHADER_DUMP_DIR");
   if (!dir || !*dir)
      return NULL;
   if (!su_debug_files_allowed()) {
      su_log("shader dump: SHALE_SHADER_DUMP_DIR ignored (files not allowed here)");
      return NULL;
   }
   return dir;
}

static void
sd_dump_write_file(const char *dir, const char *name, const char *ext, const void *data,
                   size_t size)
{
   char path[4096];
   snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
   FILE *f = fopen(path, "wb");
   if (!f) {
      su_log("shader dump: cannot write %s: %s", path, strerror(errno));
      return;
   }
   bool ok = fwrite(data, 1, size, f) == size;
   if (fclose(f) != 0 || !ok)
      su_log("shader dump: cannot write %s: %s", path, strerror(errno));
}

/* One text of a compiled shader: to <dir>/<key>.<ext>, or to stderr when
 * there is no directory. */
static void
sd_dump_text(const char *dir, const char *key, const char *entry, const char *what,
             const char *ext, const char *text)
{
   if (!text)
      su_log("shader dump: shader %s: no %s", key, what);
   else if (dir)
      sd_dump_write_file(dir, key, ext, text, strlen(text));
   else
      fprintf(stderr, "shale: ---- shader %s, entry point \"%s\": %s ----\n%s", key, entry, what,
              text);
}

/* The SPIR-V of a compiled shader: its disassembly, and the binary. */
static void
sd_dump_spirv(const char *dir, const struct sd_shader_module *module, const char *entry,
              const char *key)
{
   spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
   spv_text text = NULL;
   spv_diagnostic diag = NULL;
   if (spvBinaryToText(ctx, module->words, module->word_count,
                       SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT,
                       &text, &diag) == SPV_SUCCESS) {
      sd_dump_text(dir, key, entry, "SPIR-V", "spvasm", text->str);
   } else {
      fprintf(stderr, "shale: shader %s: SPIR-V does not disassemble: %s\n", key,
              diag && diag->error ? diag->error : "?");
   }
   if (dir)
      sd_dump_write_file(dir, key, "spv", module->words, module->word_count * 4);
   spvTextDestroy(text);
   spvDiagnosticDestroy(diag);
   spvContextDestroy(ctx);
}

/* "validate 1.20, legalize 3.40, ..." (ms) of a compiled shader. */
static void
sd_phase_string(const struct sc_shader *shader, char *out, size_t size)
{
   size_t used = 0;
   out[0] = '\0';
   for (unsigned i = 0; i < SC_PHASE_COUNT && used < size; i++) {
      int n = snprintf(out + used, size - used, "%s%s %.2f", i ? ", " : "",
                       sc_phase_name((enum sc_phase)i), shader->phase_ms[i]);
      if (n < 0)
         break;
      used += (size_t)n;
   }
}

/* Everything SHALE_SHADER_DUMP asks for about a freshly compiled shader. */
static void
sd_dump_compiled(uint32_t flags, const struct sd_shader_module *module, const char *entry,
                 const char *key, const struct sc_shader *shader,
                 const struct sc_compile_dump *dump)
{
   const char *dir = sd_dump_dir();
   if (dir && (flags & (SD_DUMP_SPIRV | SD_DUMP_IR | SD_DUMP_ASM | SD_DUMP_TIME)))
      su_log("shader dump: shader %s (\"%s\") written to %s/%s.*", key, entry, dir, key);
   if (flags & SD_DUMP_SPIRV)
      sd_dump_spirv(dir, module, entry, key);
   if (flags & SD_DUMP_IR) {
      sd_dump_text(dir, key, entry, "LLVM IR (translated)", "ll", dump->ir);
      sd_dump_text(dir, key, entry, "LLVM IR (optimized)", "opt.ll", dump->ir_opt);
   }
   if (flags & SD_DUMP_ASM)
      sd_dump_text(dir, key, entry, "assembly", "s", dump->assembly);
   if ((flags & SD_DUMP_TIME) && dir) {
      char text[1024];
      int n = snprintf(text, sizeof(text), "shader %s, entry point \"%s\", SIMD width %u\n",
                       key, entry, shader->simd_width);
      for (unsigned i = 0; i < SC_PHASE_COUNT && n > 0 && (size_t)n < sizeof(text); i++)
         n += snprintf(text + n, sizeof(text) - (size_t)n, "%-10s %9.3f ms\n",
                       sc_phase_name((enum sc_phase)i), shader->phase_ms[i]);
      if (n > 0 && (size_t)n < sizeof(text))
         n += snprintf(text + n, sizeof(text) - (size_t)n, "%-10s %9.3f ms\n", "sc_compile",
                       shader->compile_ms);
      if (n > 0 && (size_t)n < sizeof(text))
         sd_dump_write_file(dir, key, "time", text, (size_t)n);
   }
}

/* ---- compute pipelines ---- */

static VkResult
sd_result_from_sc(enum sc_result r)
{
   switch (r) {
   case SC_SUCCESS:
      return VK_SUCCESS;
   case SC_ERROR_OUT_OF_MEMORY:
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   default:
      /* Invalid SPIR-V, a missing entry point, or something the compiler
       * cannot do yet. vkCreate*Pipelines list only out-of-memory codes
       * and VK_ERROR_INVALID_SHADER_NV (VK_NV_glsl_shader's, not exposed);
       * VK_ERROR_UNKNOWN is core Vulkan 1.0 (vk.xml's VkResult itself) and
       * "may be returned from any command returning a VkResult" when the
       * application's input is invalid or the implementation fails: the one
       * truthful code, also for a device that reports Vulkan 1.0. */
      return VK_ERROR_UNKNOWN;
   }
}

static void
sd_hash_u32(struct su_sha256 *h, uint32_t v)
{
   su_sha256_update(h, &v, sizeof(v));
}

/* The key of a compiled shader: everything that decides its machine code. */
static void
sd_compute_key(const struct sd_shader_module *module, const struct sc_compile_info *info,
               const struct sd_pipeline_layout *layout, uint8_t key[SD_KEY_SIZE])
{
   struct su_sha256 h;
   su_sha256_init(&h);
   static const char tag[] = "shale compute shader";
   su_sha256_update(&h, tag, sizeof(tag));
   sd_hash_u32(&h, SHALE_SHADER_ABI_VERSION);
   sd_hash_u32(&h, info->api_version);
   sd_hash_u32(&h, info->simd_width);
   sd_hash_u32(&h, info->flags);
   sd_hash_u32(&h, info->stage);
   sd_hash_u32(&h, info->fs_unused_outputs);
   sd_hash_u32(&h, info->tess_output_vertices);
   sd_hash_u32(&h, info->in_clip_distances);
   su_sha256_update(&h, module->sha256, sizeof(module->sha256));
   su_sha256_update(&h, info->entry_point, strlen(info->entry_point) + 1);
   sd_hash_u32(&h, info->spec_constant_count);
   for (uint32_t i = 0; i < info->spec_constant_count; i++) {
      const struct sc_spec_constant *c = &info->spec_constants[i];
      sd_hash_u32(&h, c->id);
      sd_hash_u32(&h, c->size);
      su_sha256_update(&h, &c->value, sizeof(c->value));
   }
   sd_hash_u32(&h, layout->set_count);
   for (uint32_t i = 0; i < layout->set_count; i++) {
      sd_hash_u32(&h, layout->sets[i] != NULL);
      if (layout->sets[i])
         su_sha256_update(&h, layout->sets[i]->sha256, sizeof(layout->sets[i]->sha256));
   }
   su_sha256_final(&h, key);
}

/* Resolves VkSpecializationInfo into the compiler's list (size = map size). */
static VkResult
sd_spec_constants(const VkSpecializationInfo *spec, const VkAllocationCallbacks *alloc,
                  struct sc_spec_constant **out)
{
   *out = NULL;
   if (!spec || !spec->mapEntryCount)
      return VK_SUCCESS;
   struct sc_spec_constant *c = sd_alloc(alloc, spec->mapEntryCount * sizeof(*c), SD_ALIGN_DEFAULT,
                                         VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
   if (!c)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   for (uint32_t i = 0; i < spec->mapEntryCount; i++) {
      const VkSpecializationMapEntry *e = &spec->pMapEntries[i];
      size_t size = e->size <= 8 ? e->size : 8;
      c[i].id = e->constantID;
      c[i].size = (uint32_t)e->size;
      c[i].value = 0;
      memcpy(&c[i].value, (const uint8_t *)spec->pData + e->offset, size);
   }
   *out = c;
   return VK_SUCCESS;
}

void
sd_pipeline_destroy(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                    struct sd_pipeline *pipeline)
{
   if (pipeline->bind_point == VK_PIPELINE_BIND_POINT_GRAPHICS)
      sd_graphics_pipeline_finish(device, pipeline);
   else
      sd_compiled_shader_unref(pipeline->compute);
   if (pipeline->layout)
      sd_pipeline_layout_unref(pipeline->layout);
   sd_runtime_release(pipeline->runtime);
   sd_device_object_free(device, pAllocator, pipeline);
}

static const char *const sd_stage_names[] = {
   [0] = "compute", [1] = "vertex", [2] = "fragment", [3] = "shader", [4] = "geometry",
   [5] = "tessellation control", [6] = "tessellation evaluation",
};

static const char *
sd_stage_name(VkShaderStageFlagBits stage)
{
   return sd_stage_names[stage == VK_SHADER_STAGE_COMPUTE_BIT    ? 0
                         : stage == VK_SHADER_STAGE_VERTEX_BIT   ? 1
                         : stage == VK_SHADER_STAGE_FRAGMENT_BIT ? 2
                         : stage == VK_SHADER_STAGE_GEOMETRY_BIT ? 4
                         : stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT    ? 5
                         : stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT ? 6
                                                                                : 3];
}

VkResult
sd_pipeline_compile_stage(struct sd_device *device, struct sd_pipeline_cache *cache,
                          struct sd_runtime *rt, const struct sd_pipeline_layout *layout,
                          const VkPipelineShaderStageCreateInfo *stage,
                          uint32_t fs_unused_outputs, uint32_t tess_output_vertices,
                          uint32_t in_clip_distances, const VkAllocationCallbacks *alloc,
                          struct sd_stage_result *out)
{
   uint64_t start = sd_now_ns();
   SD_FROM_HANDLE(sd_shader_module, module, stage->module);
   const char *stage_name = sd_stage_name(stage->stage);
   memset(out, 0, sizeof(*out));
   if (!module)
      return sd_errorf(VK_ERROR_UNKNOWN, "pipeline stage without a shader module");

   struct sc_spec_constant *spec;
   VkResult result = sd_spec_constants(stage->pSpecializationInfo, alloc, &spec);
   if (result != VK_SUCCESS)
      return result;
   /* VK_EXT_subgroup_size_control: a required subgroup size is the SIMD
    * width the stage is compiled at (compute only: the one stage with
    * subgroups; the compiler takes 4, 8 and 16, minSubgroupSize to
    * maxSubgroupSize). Workgroups are cut into subgroups in local
    * invocation order, so a local size X that is a multiple of the width
    * gives full subgroups, as REQUIRE_FULL_SUBGROUPS asks. */
   uint32_t width = rt->simd_width;
   const VkPipelineShaderStageRequiredSubgroupSizeCreateInfo *required = sd_find_struct(
      stage, VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO);
   if (required && stage->stage == VK_SHADER_STAGE_COMPUTE_BIT &&
       (required->requiredSubgroupSize == 4 || required->requiredSubgroupSize == 8 ||
        required->requiredSubgroupSize == 16))
      width = required->requiredSubgroupSize;
   struct sc_compile_info info = {
      .words = module->words,
      .word_count = module->word_count,
      .entry_point = stage->pName,
      .stage = stage->stage,
      .api_version = device->api_version,
      .spec_constants = spec,
      .spec_constant_count = stage->pSpecializationInfo ? stage->pSpecializationInfo->mapEntryCount
                                                        : 0,
      .set_layouts = layout->sc_sets,
      .set_layout_count = layout->set_count,
      .flags = device->enabled_features.robustBufferAccess ? SC_COMPILE_ROBUST_BUFFER_ACCESS : 0,
      .simd_width = width,
      .fs_unused_outputs = stage->stage == VK_SHADER_STAGE_FRAGMENT_BIT ? fs_unused_outputs : 0,
      .tess_output_vertices =
         stage->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT ? tess_output_vertices : 0,
      .in_clip_distances = stage->stage == VK_SHADER_STAGE_GEOMETRY_BIT ||
                                 stage->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT ||
                                 stage->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT
                              ? in_clip_distances
                              : 0,
   };
   /* With the watchdog off (SHALE_WATCHDOG_MS=0) nothing could cancel the
    * code: leave the polls out (sd_watchdog.h "Cost"). */
   if (!device->queue->watchdog_ns)
      info.flags |= SC_COMPILE_NO_CANCEL_POLLS;
   if (device->scalar_block_layout)
      info.flags |= SC_COMPILE_SCALAR_BLOCK_LAYOUT;
   if (device->ubo_standard_layout)
      info.flags |= SC_COMPILE_UBO_STANDARD_LAYOUT;
   uint8_t key[SD_KEY_SIZE];
   sd_compute_key(module, &info, layout, key);
   char key_str[17];
   sd_key_string(key, key_str);

   enum sd_cache_hit hit;
   uint64_t lookup_start = sd_now_ns();
   out->shader = sd_shader_cache_find(rt, cache, key, alloc, &hit, &result);
   uint64_t lookup_end = sd_now_ns();
   double compile_ms = 0.0;
   bool scalar = false;
   char phases[256] = "";
   uint32_t dump = sd_dump();
   if (!out->shader && result == VK_SUCCESS) {
      struct sc_shader *shader = NULL;
      char message[256];
      struct sc_compile_dump cdump = {
         .want_ir = (dump & SD_DUMP_IR) != 0,
         .want_asm = (dump & SD_DUMP_ASM) != 0,
      };
      if (cdump.want_ir || cdump.want_asm)
         info.dump = &cdump;
      /* Baseline code now and optimized code from the optimizer, unless
       * turned off or dumping (the dumps show the code that stays). */
      bool baseline = sd_optimizer_enabled() && !dump;
      enum sc_result r = SC_ERROR_UNSUPPORTED;
      if (baseline) {
         /* Scalar baseline code where the shader allows it (no subgroups,
          * no quads): LLVM generates it in a third of the time of vector
          * code. */
         info.flags |= SC_COMPILE_BASELINE;
         info.simd_width = 1;
         r = sc_compile(rt->compiler, &info, &shader, message, sizeof(message));
         info.simd_width = width;
         if ((r == SC_ERROR_UNSUPPORTED || r == SC_ERROR_INTERNAL) && su_debug(SU_DEBUG_INFO))
            su_log("pipeline: %s shader %s: no scalar baseline code (%s: %s)", stage_name,
                   key_str, sc_result_string(r), message);
      }
      if (r == SC_ERROR_UNSUPPORTED || r == SC_ERROR_INTERNAL)
         r = sc_compile(rt->compiler, &info, &shader, message, sizeof(message));
      if (r != SC_SUCCESS) {
         char why[400];
         snprintf(why, sizeof(why), "%s shader %s (\"%s\"): %s: %s", stage_name, key_str,
                  stage->pName, sc_result_string(r), message);
         result = sd_errorf(sd_result_from_sc(r), why);
      } else {
         compile_ms = shader->compile_ms;
         scalar = shader->simd_width == 1;
         sd_phase_string(shader, phases, sizeof(phases));
         /* Before the cache may drop it (another thread's won). */
         if (dump)
            sd_dump_compiled(dump, module, stage->pName, key_str, shader, &cdump);
         out->shader = sd_shader_cache_add(rt, cache, key, shader);
         if (!out->shader)
            result = sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
         else if (baseline && atomic_load(&out->shader->shader) == shader)
            sd_optimizer_queue(rt, out->shader, &info);   /* failure: stays baseline */
      }
      sc_compile_dump_finish(&cdump);
   }
   sd_free(alloc, spec);
   if (result == VK_SUCCESS) {
      /* Also for cached code: the cache key leaves push-constant ranges
       * out, and the layout may lack what an earlier one had. */
      char what[64];
      snprintf(what, sizeof(what), "%s shader %s", stage_name, key_str);
      result = sd_pipeline_layout_check(layout, atomic_load(&out->shader->shader), what);
      if (result != VK_SUCCESS) {
         sd_compiled_shader_unref(out->shader);
         out->shader = NULL;
      }
   }
   if (result != VK_SUCCESS)
      return result;

   uint64_t end = sd_now_ns();
   static const char *const hit_names[] = {
      [SD_CACHE_MISS] = "compiled",
      [SD_CACHE_HIT_APPLICATION] = "pipeline cache hit",
      [SD_CACHE_HIT_DATA] = "pipeline cache data hit (linked)",
      [SD_CACHE_HIT_MEMORY] = "memory cache hit",
   };
   if (su_debug(SU_DEBUG_INFO)) {
      if (hit == SD_CACHE_MISS)
         su_log("pipeline: %s shader %s (\"%s\"): LLVM compile %.2f ms (%s), "
                "compilation #%u%s", stage_name, key_str, stage->pName, compile_ms, phases,
                atomic_load(&rt->compilations),
                !(info.flags & SC_COMPILE_BASELINE) ? ""
                : scalar ? ", scalar baseline code (optimized code follows)"
                         : ", baseline code (optimized code follows)");
      else
         su_log("pipeline: %s shader %s (\"%s\"): %s in %.3f ms, no LLVM", stage_name, key_str,
                stage->pName, hit_names[hit], (lookup_end - lookup_start) / 1e6);
   }
   if (dump & SD_DUMP_TIME)
      fprintf(stderr,
              "shale: shader %s (\"%s\"): %s; key and lookup %.3f ms, sc_compile %.2f ms%s%s%s, "
              "stage total %.2f ms\n",
              key_str, stage->pName, hit_names[hit], (lookup_end - start) / 1e6, compile_ms,
              phases[0] ? " (" : "", phases, phases[0] ? ")" : "", (end - start) / 1e6);
   out->feedback.flags = VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT;
   if (hit == SD_CACHE_HIT_APPLICATION || hit == SD_CACHE_HIT_DATA)
      out->feedback.flags |= VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT;
   /* Everything but making the pipeline object. */
   out->feedback.duration = lookup_end - start + (uint64_t)(compile_ms * 1e6);
   return VK_SUCCESS;
}

void
sd_pipeline_feedback(const void *create_info, uint64_t start_ns,
                     const struct sd_stage_result *stages, uint32_t stage_count,
                     bool others_hit)
{
   const VkPipelineCreationFeedbackCreateInfo *fb =
      sd_find_struct(create_info, VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO);
   if (!fb)
      return;
   VkPipelineCreationFeedbackFlags flags = VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT;
   bool all_hit = stage_count > 0 && others_hit;
   for (uint32_t i = 0; i < stage_count; i++)
      all_hit &= (stages[i].feedback.flags &
                  VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT) != 0;
   if (all_hit)
      flags |= VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT;
   if (fb->pPipelineCreationFeedback)
      *fb->pPipelineCreationFeedback =
         (VkPipelineCreationFeedback) { flags, sd_now_ns() - start_ns };
   if (!fb->pPipelineStageCreationFeedbacks)
      return;
   for (uint32_t i = 0; i < stage_count && i < fb->pipelineStageCreationFeedbackCount; i++)
      fb->pPipelineStageCreationFeedbacks[i] = stages[i].feedback;
}

VkResult
sd_pipeline_alloc(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                  VkPipelineBindPoint bind_point, struct sd_pipeline_layout *layout,
                  struct sd_pipeline **out)
{
   struct sd_pipeline *pipeline = sd_device_object_alloc(device, pAllocator, sizeof(*pipeline),
                                                         VK_OBJECT_TYPE_PIPELINE);
   if (!pipeline)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   pipeline->bind_point = bind_point;
   VkResult result = sd_runtime_acquire(&pipeline->runtime);
   if (result != VK_SUCCESS) {
      sd_device_object_free(device, pAllocator, pipeline);
      return result;
   }
   atomic_fetch_add(&layout->refcount, 1);
   pipeline->layout = layout;
   *out = pipeline;
   return VK_SUCCESS;
}

static VkResult
sd_compute_pipeline_create(struct sd_device *device, struct sd_pipeline_cache *cache,
                           const VkComputePipelineCreateInfo *ci,
                           const VkAllocationCallbacks *pAllocator, struct sd_pipeline **out)
{
   uint64_t start = sd_now_ns();
   SD_FROM_HANDLE(sd_pipeline_layout, layout, ci->layout);
   struct sd_pipeline *pipeline = NULL;
   VkResult result = sd_pipeline_alloc(device, pAllocator, VK_PIPELINE_BIND_POINT_COMPUTE, layout,
                                       &pipeline);
   if (result != VK_SUCCESS)
      return result;

   struct sd_stage_result stage;
   result = sd_pipeline_compile_stage(device, cache, pipeline->runtime, layout, &ci->stage, 0, 0, 0,
                                      sd_choose_alloc(pAllocator, &device->alloc), &stage);
   pipeline->compute = stage.shader;
   if (result != VK_SUCCESS) {
      sd_pipeline_destroy(device, pAllocator, pipeline);
      return result;
   }
   sd_pipeline_feedback(ci, start, &stage, 1, true);
   *out = pipeline;
   return VK_SUCCESS;
}

VkResult
sd_create_pipelines(VkDevice _device, VkPipelineCache pipelineCache, uint32_t count,
                    const void *create_infos, size_t stride, sd_pipeline_create_fn create,
                    const VkAllocationCallbacks *pAllocator, VkPipeline *pPipelines)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_pipeline_cache, cache, pipelineCache);
   VkResult result = VK_SUCCESS;
   uint32_t i;
   for (i = 0; i < count; i++) {
      const void *ci = (const uint8_t *)create_infos + i * stride;
      struct sd_pipeline *pipeline = NULL;
      VkResult r = create(device, cache, ci, pAllocator, &pipeline);
      pPipelines[i] = sd_pipeline_to_handle(pipeline);
      if (r != VK_SUCCESS) {
         /* Every pipeline is attempted, unless the application asked to
          * stop at the first failure. Every create info starts with sType,
          * pNext and flags. */
         if (result == VK_SUCCESS)
            result = r;
         if (((const VkComputePipelineCreateInfo *)ci)->flags &
             VK_PIPELINE_CREATE_EARLY_RETURN_ON_FAILURE_BIT)
            break;
      }
   }
   for (i++; i < count; i++)
      pPipelines[i] = VK_NULL_HANDLE;
   return result;
}

static VkResult
sd_compute_pipeline_create_any(struct sd_device *device, struct sd_pipeline_cache *cache,
                               const void *ci, const VkAllocationCallbacks *pAllocator,
                               struct sd_pipeline **out)
{
   return sd_compute_pipeline_create(device, cache, ci, pAllocator, out);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateComputePipelines(VkDevice _device, VkPipelineCache pipelineCache, uint32_t count,
                          const VkComputePipelineCreateInfo *pCreateInfos,
                          const VkAllocationCallbacks *pAllocator, VkPipeline *pPipelines)
{
   return sd_create_pipelines(_device, pipelineCache, count, pCreateInfos, sizeof(*pCreateInfos),
                              sd_compute_pipeline_create_any, pAllocator, pPipelines);
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyPipeline(VkDevice _device, VkPipeline _pipeline, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_pipeline, pipeline, _pipeline);
   if (pipeline)
      sd_pipeline_destroy(device, pAllocator, pipeline);
}

const struct sc_shader *
sd_pipeline_compute_shader(const struct sd_pipeline *pipeline)
{
   return pipeline->compute->shader;
}
