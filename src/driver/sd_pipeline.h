/*
 * sd_pipeline: pipeline layouts, compute and graphics pipelines.
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
 * A graphics pipeline's fragment back-end routines (colour, depth/stencil;
 * sc_compile_fragment_backend / _ds) are looked up the same way: the
 * compiler's own routines, then the VkPipelineCache's back-end entries
 * (linked with sc_backend_deserialize), and each lands in the given cache
 * as a blob; one that needs LLVM is queued on the optimizer thread
 * (struct sd_fb_slot), compiled by the pipeline's first draw replayed
 * before the background got to it (or, with SHALE_FRAGMENT_BACKEND=
 * background, left to the background while draws run the C back end, the
 * same pixels), and lands in the cache as a pending entry whose blob
 * vkGetPipelineCacheData takes from the compiler. The pipeline's feedback
 * is an application cache hit only when its stages and its compiled
 * routines all came from the cache (state the C back end runs needs none).
 * A graphics pipeline compiles its stages in pipeline order (vertex,
 * control, evaluation, geometry, fragment) whatever pStages' order: a
 * control shader's compile takes the evaluation shader's OutputVertices
 * (read from that module's words), and a tessellation or geometry
 * shader's the clip distance count of the stage before it (compiled
 * first); both are part of the stage's key.
 *
 * Errors: SPIR-V that fails validation, names no such entry point, or uses
 * what the compiler does not support yet, and a shader using a descriptor
 * or push constants its layout lacks (sd_pipeline_layout_check), make
 * vkCreate*Pipelines return VK_ERROR_UNKNOWN (Vulkan has no dedicated
 * code; the reason is logged with SHALE_DEBUG=errors); that pipeline's
 * handle is VK_NULL_HANDLE and the others are still created, as the spec
 * requires.
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
 * A graphics pipeline (sd_graphics_pipeline.c) is a vertex shader, an
 * optional pair of tessellation control and evaluation shaders (with the
 * PATCH_LIST topology, VkPipelineTessellationStateCreateInfo's
 * patchControlPoints and the domain origin; their execution modes merged
 * at creation, sr_tess.h), an optional geometry and an optional fragment
 * shader compiled the same way (each stage its own cache entry),
 * plus the fixed-function state translated once into the rasterizer's
 * plain-C struct sr_draw_state, and the set of states left dynamic; replay
 * patches the dynamic parts in (sd_cmd_draw.c) and reads every stage's
 * code pointer (with the tessellation stages' block, scratch and width,
 * which the optimizer's code may change) once per draw.
 *
 * Owns: layouts hold references to their set layouts; pipelines hold a
 * reference to their layout (so the application may destroy the layout
 * first), to their compiled shader, to the runtime and to their back-end
 * slot (shared with its queued job, so destroying the pipeline while the
 * job waits or runs is safe).
 *
 * Threading: layouts and pipelines are immutable after creation; reference
 * counts are atomic. Creation may run on several threads at once.
 */
#ifndef SD_PIPELINE_H
#define SD_PIPELINE_H

#include <stdatomic.h>

#include "compiler/sc_compiler.h"
#include "rasterizer/sr_raster.h"
#include "sd_object.h"
#include "shale/shader_abi.h"

struct sd_descriptor_set_layout;
struct sd_fb_slot;
struct sd_compiled_shader;
struct sd_runtime;

struct sd_pipeline_layout {
   struct sd_object base;
   atomic_uint refcount;
   VkAllocationCallbacks alloc;
   uint32_t set_count;
   struct sd_descriptor_set_layout *sets[SHALE_MAX_DESCRIPTOR_SETS];   /* may be NULL */
   uint32_t push_constant_size;    /* end of the highest range */
   uint32_t push_stage_end[32];    /* per stage bit: end of its range, 0 if none */
   struct sc_set_layout sc_sets[SHALE_MAX_DESCRIPTOR_SETS];
};

/* Vulkan 1.0's dynamic states, as bits (enum value = bit index), then
 * VK_EXT_extended_dynamic_state3's that Shale takes. */
#define SD_DYNAMIC_VULKAN10_COUNT 9
#define SD_DYNAMIC_DEPTH_CLAMP_ENABLE (1u << SD_DYNAMIC_VULKAN10_COUNT)
#define SD_DYNAMIC_DEPTH_CLIP_ENABLE (1u << (SD_DYNAMIC_VULKAN10_COUNT + 1))
#define SD_DYNAMIC_POLYGON_MODE (1u << (SD_DYNAMIC_VULKAN10_COUNT + 2))

struct sd_graphics_state {
   struct sd_compiled_shader *vs, *fs;   /* fs NULL: no fragment shader */
   struct sd_compiled_shader *gs;        /* NULL: no geometry shader */
   struct sd_compiled_shader *tcs, *tes; /* both or neither (tessellation) */
   /* The static state, with the dynamic parts as the pipeline gave them
    * (ignored); vs/fs code pointers are read at each draw. */
   struct sr_draw_state state;
   uint32_t dynamic;                     /* bit s: VkDynamicState s is dynamic */
   /* No VkPipelineRasterizationDepthClipStateCreateInfoEXT: depth clipping
    * is off exactly when clamping is on, a dynamic clamp included. */
   bool depth_clip_follows_clamp;
   /* Back-end routines being compiled in the background (NULL: none; a
    * reference): state.fb_key / fb_ds_key hold their keys, and each draw
    * gets the routines (sd_fb_slot_need), then takes the pointers from here. */
   struct sd_fb_slot *fb_slot;
};

struct sd_pipeline {
   struct sd_object base;
   VkPipelineBindPoint bind_point;
   struct sd_pipeline_layout *layout;
   struct sd_runtime *runtime;
   struct sd_compiled_shader *compute;
   struct sd_graphics_state graphics;
};

struct sd_device;
struct sd_pipeline_cache;
struct sd_compiled_shader;

/* One stage compiled (or found in a cache), for any kind of pipeline. */
struct sd_stage_result {
   struct sd_compiled_shader *shader;    /* a reference */
   VkPipelineCreationFeedback feedback;
};

/* Compiles (or finds) one stage: specialization, cache key, lookups in the
 * application's cache and the runtime's, baseline code with the optimizer
 * queued, dumps and logs. fs_unused_outputs: for a fragment stage, the
 * colour Locations nothing reads (sc_compile_info.fs_unused_outputs; 0
 * elsewhere). tess_output_vertices: for a tessellation control stage, the
 * evaluation shader's OutputVertices (sc_compile_info.tess_output_vertices;
 * 0 elsewhere). in_clip_distances: for a tessellation or geometry stage,
 * the previous stage's ClipDistance count per vertex
 * (sc_compile_info.in_clip_distances; 0 elsewhere). Its temporaries (the
 * specialization, the copy of a blob from cache data it links) are
 * COMMAND-scope allocations of
 * `alloc`, the creating command's allocator (pAllocator, else the
 * device's). On failure nothing is held. */
VkResult sd_pipeline_compile_stage(struct sd_device *device, struct sd_pipeline_cache *cache,
                                   struct sd_runtime *rt, const struct sd_pipeline_layout *layout,
                                   const VkPipelineShaderStageCreateInfo *stage,
                                   uint32_t fs_unused_outputs, uint32_t tess_output_vertices,
                                   uint32_t in_clip_distances,
                                   const VkAllocationCallbacks *alloc,
                                   struct sd_stage_result *out);

typedef VkResult (*sd_pipeline_create_fn)(struct sd_device *device,
                                          struct sd_pipeline_cache *cache, const void *create_info,
                                          const VkAllocationCallbacks *pAllocator,
                                          struct sd_pipeline **out);

/* vkCreate*Pipelines around one create function: every pipeline attempted
 * (unless EARLY_RETURN_ON_FAILURE), failures VK_NULL_HANDLE. */
VkResult sd_create_pipelines(VkDevice device, VkPipelineCache cache, uint32_t count,
                             const void *create_infos, size_t stride, sd_pipeline_create_fn create,
                             const VkAllocationCallbacks *pAllocator, VkPipeline *pPipelines);

/* Writes VkPipelineCreationFeedbackCreateInfo, if chained to create_info;
 * the pipeline is an application cache hit when every stage is and
 * others_hit (what else it needs came from the cache too: a graphics
 * pipeline's back-end routines). */
void sd_pipeline_feedback(const void *create_info, uint64_t start_ns,
                          const struct sd_stage_result *stages, uint32_t stage_count,
                          bool others_hit);

/* A pipeline object holding the runtime and a reference to layout. */
VkResult sd_pipeline_alloc(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                           VkPipelineBindPoint bind_point, struct sd_pipeline_layout *layout,
                           struct sd_pipeline **out);

/* Frees any pipeline (its graphics state through the next one). */
void sd_pipeline_destroy(struct sd_device *device, const VkAllocationCallbacks *pAllocator,
                         struct sd_pipeline *pipeline);
void sd_graphics_pipeline_finish(struct sd_device *device, struct sd_pipeline *pipeline);

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_pipeline_layout, base, VkPipelineLayout,
                               VK_OBJECT_TYPE_PIPELINE_LAYOUT)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_pipeline, base, VkPipeline, VK_OBJECT_TYPE_PIPELINE)

/* VK_SUCCESS when layout provides what shader uses (VUID-...-layout-07988,
 * 07990, 07991, 10069): every set and binding it declares, of a matching
 * descriptor type and at least its array size, and a push-constant range of
 * its stage covering its push-constant block. Otherwise (invalid usage,
 * which would make compiled code read a missing set) an error naming the
 * set and binding, logged with SHALE_DEBUG=errors. what names the shader. */
VkResult sd_pipeline_layout_check(const struct sd_pipeline_layout *layout,
                                  const struct sc_shader *shader, const char *what);

/* The compute shader of a compute pipeline. */
const struct sc_shader *sd_pipeline_compute_shader(const struct sd_pipeline *pipeline);

#endif
