/*
 * sd_pipeline: pipeline layouts and compute pipelines.
 *
 * A compute pipeline is one compiled shader (struct sd_compiled_shader,
 * shared through the caches of sd_pipeline_cache.h) plus its layout. Its
 * creation resolves the specialization constants, builds the cache key
 * (SHA-256 of the module's SPIR-V hash, entry point, stage, API version,
 * specialization values, each set layout's record layout, compile flags,
 * SIMD width and ABI version) and looks it up: the VkPipelineCache given
 * (whose entries read from cache data are linked from their machine code),
 * then the process's memory cache; only a miss runs the compiler
 * (sc_compile: SPIRV-Tools validation and legalization, translation, LLVM,
 * ORC JIT). Compile flags: robustBufferAccess when the device enabled it.
 *
 * Errors: SPIR-V that fails validation, names no such entry point, or uses
 * what the compiler does not support yet makes vkCreateComputePipelines
 * return VK_ERROR_UNKNOWN (Vulkan has no dedicated code; the reason is
 * logged with SHALE_DEBUG=errors); that pipeline's handle is
 * VK_NULL_HANDLE and the others are still created, as the spec requires.
 *
 * Debugging: SHALE_DEBUG=info logs each compilation, with its phase timings
 * (validate, legalize, parse, translate, optimize, codegen, link), and each
 * cache hit (with a running count of LLVM compilations, which the tests
 * read). SHALE_SHADER_DUMP (comma-separated: spirv, ir, asm, time, all) dumps
 * per compiled shader its SPIR-V disassembly, LLVM IR (translated and
 * optimized), native assembly (entry symbol shale_entry) and timings, to
 * stderr; with SHALE_SHADER_DUMP_DIR set, and only where
 * su_debug_files_allowed() says so, to files <key>.spv / .spvasm / .ll /
 * .opt.ll / .s / .time instead. Dumping does not change the code.
 *
 * Owns: layouts hold references to their set layouts; pipelines hold a
 * reference to their layout (so the application may destroy the layout
 * first), to their compiled shader and to the runtime.
 *
 * Threading: layouts and pipelines are immutable after creation; reference
 * counts are atomic. Creation may run on several threads at once.
 */
#ifndef SD_PIPELINE_H
#define SD_PIPELINE_H

#include <stdatomic.h>

#include "compiler/sc_compiler.h"
#include "sd_object.h"
#include "shale/shader_abi.h"

struct sd_descriptor_set_layout;
struct sd_compiled_shader;
struct sd_runtime;

struct sd_pipeline_layout {
   struct sd_object base;
   atomic_uint refcount;
   VkAllocationCallbacks alloc;
   uint32_t set_count;
   struct sd_descriptor_set_layout *sets[SHALE_MAX_DESCRIPTOR_SETS];   /* may be NULL */
   uint32_t push_constant_size;    /* end of the highest range */
   struct sc_set_layout sc_sets[SHALE_MAX_DESCRIPTOR_SETS];
};

struct sd_pipeline {
   struct sd_object base;
   VkPipelineBindPoint bind_point;
   struct sd_pipeline_layout *layout;
   struct sd_runtime *runtime;
   struct sd_compiled_shader *compute;
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_pipeline_layout, base, VkPipelineLayout,
                               VK_OBJECT_TYPE_PIPELINE_LAYOUT)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_pipeline, base, VkPipeline, VK_OBJECT_TYPE_PIPELINE)

/* The compute shader of a compute pipeline. */
const struct sc_shader *sd_pipeline_compute_shader(const struct sd_pipeline *pipeline);

#endif
