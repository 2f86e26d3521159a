/*
 * Shader compiler: SPIR-V words in, native SPMD code out (public API).
 *
 * Design note
 * -----------
 * Owns: struct sc_compiler (one LLVM ORC JIT session; create one per device
 * or per process) and the struct sc_shader objects it compiles (the machine
 * code lives until sc_shader_destroy). Knows no Vulkan objects: callers pass
 * plain descriptions (stage, specialization values, descriptor set layouts).
 *
 * Pipeline: validate (SPIRV-Tools, Vulkan target environment) -> legalize
 * (SPIRV-Tools optimizer: specialization constants frozen, everything inlined
 * into the entry point, locals in SSA form) -> translate to LLVM IR in SPMD
 * form (W lanes per call, execution masks for structured control flow; or
 * scalar code, W = 1, one invocation per call, for baseline code) ->
 * LLVM optimization (O2's function passes, trimmed for SPMD code: see
 * llvm_jit.c) -> relocatable object -> ORC JIT link. Each compile records
 * the wall time of its phases (enum sc_phase) and, when asked, its LLVM IR
 * and native assembly (struct sc_compile_dump). The compiled code obeys
 * include/shale/shader_abi.h (descriptor records for buffers, storage
 * images and texel buffers).
 *
 * Stages: a compute entry point becomes a shale_cs_fn (one workgroup per
 * call), a vertex one a shale_vs_fn (one batch of up to W vertices), a
 * geometry one a shale_gs_fn (up to W input primitives, one InvocationId;
 * OpEmitVertex appends the outputs per lane, llvm_geom.c), a tessellation
 * control one a shale_tcs_fn (one whole patch, a workgroup of
 * OutputVertices invocations, llvm_tess.c), a tessellation evaluation one
 * a shale_tes_fn (up to W domain points of one patch), a
 * fragment one a shale_fs_fn (W/4 quads of 2x2 pixels); the shader's `io`
 * says what the vertex or fragment code reads and writes (locations,
 * interpolation, built-ins, execution modes; with the Xfb execution mode,
 * which output components transform feedback captures where) so the
 * rasterizer links stages and captures without SPIR-V. Stage inputs and outputs live in per-lane variables like
 * Private ones: inputs are filled when the call starts (vertex: from the
 * batch's input arrays; fragment: plane equations evaluated per lane),
 * outputs are copied to their varying slots when it ends (llvm_stage.c;
 * a geometry shader's at each OpEmitVertex, llvm_geom.c).
 * Fragment code is always vector code (quads need their neighbours for
 * derivatives): simd_width 1 is refused for fragment shaders.
 *
 * The fragment back end (sc_compile_fragment_backend, llvm_backend.c): per
 * struct shale_fb_key, a routine doing a draw's colour writes (blending,
 * write masks, packing) on W lanes after the fragment shader, built as
 * LLVM IR from the key alone (no SPIR-V) and cached in the compiler by key;
 * per struct shale_fb_ds_key (sc_compile_fragment_ds), the depth/stencil
 * tests and writes of W lanes, built and cached the same way.
 *
 * Caching: sc_compile_key() hashes everything that decides a shader's
 * machine code; sc_shader_serialize() turns a shader into a blob (its
 * relocatable object plus metadata, checksummed) and sc_shader_deserialize()
 * links such a blob back into a callable shader without running LLVM's
 * optimizer or code generator; sc_backend_serialize() and
 * sc_backend_deserialize() do the same for fragment back-end routines
 * (keyed by sc_backend_cache_key()). Blobs are only valid on a host with the same
 * target, CPU features, compiler and ABI version; anything else, and any
 * truncated or corrupted blob, is rejected with an error.
 *
 * Invariants: a failed compile (or load) returns an error code, fills the
 * message, and leaves *out NULL; invalid SPIR-V or blobs never crash.
 * Shaders must be destroyed before their compiler.
 *
 * Threading: sc_compile may run on several threads at once with the same
 * compiler; the sc_shader results are immutable and may be used from any
 * thread.
 */
#ifndef SC_COMPILER_H
#define SC_COMPILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>

#include "shale/shader_abi.h"

enum sc_result {
   SC_SUCCESS = 0,
   SC_ERROR_INVALID_SPIRV = -1,   /* malformed or failed validation */
   SC_ERROR_UNSUPPORTED = -2,     /* valid SPIR-V we cannot compile (yet) */
   SC_ERROR_ENTRY_POINT = -3,     /* no entry point of that name and stage */
   SC_ERROR_OUT_OF_MEMORY = -4,
   SC_ERROR_INTERNAL = -5,        /* LLVM rejected our IR or failed to JIT */
   SC_ERROR_INVALID_BLOB = -6,    /* truncated or corrupted serialized shader */
   SC_ERROR_INCOMPATIBLE_BLOB = -7, /* serialized for another CPU, compiler or ABI */
   SC_ERROR_TOO_SMALL = -8,       /* the output buffer is too small */
};

const char *sc_result_string(enum sc_result result);

/* One specialization constant value (VkSpecializationMapEntry resolved by
 * the caller). size is 1, 2, 4 or 8 bytes; a boolean is a 4-byte VkBool32. */
struct sc_spec_constant {
   uint32_t id;
   uint32_t size;
   uint64_t value;
};

/* Where the records of binding b of one descriptor set start (see
 * shader_abi.h "Descriptors"). bindings[] is indexed by binding number. */
struct sc_binding_layout {
   uint32_t first_record;
   uint32_t array_size;   /* descriptorCount; 0: binding absent */
};

struct sc_set_layout {
   uint32_t binding_count;
   const struct sc_binding_layout *bindings;
};

enum sc_compile_flags {
   /* robustBufferAccess: out-of-range buffer loads return zero, stores and
    * atomics out of range are dropped. */
   SC_COMPILE_ROBUST_BUFFER_ACCESS = 1u << 0,
   /* Validator relaxations that follow enabled device features. */
   SC_COMPILE_SCALAR_BLOCK_LAYOUT = 1u << 1,
   SC_COMPILE_UBO_STANDARD_LAYOUT = 1u << 2,
   SC_COMPILE_LOCAL_SIZE_ID = 1u << 3,
   /* Baseline code: the same translation, with only SROA, EarlyCSE and
    * SimplifyCFG and LLVM's lowest code generation level, in about a third
    * of the time and slower to run (a sixth with simd_width 1). Made to be
    * replaced by the optimized code later; not part of sc_compile_key (both
    * are the same shader). */
   SC_COMPILE_BASELINE = 1u << 4,
   /* No watchdog polls on loop back edges (shader_abi.h "Cancellation"):
    * for devices whose watchdog is off (SHALE_WATCHDOG_MS=0), which then
    * pay nothing for it; such code cannot be cancelled. Part of the key. */
   SC_COMPILE_NO_CANCEL_POLLS = 1u << 5,
};

/* The phases of sc_compile, in order (sc_shader.phase_ms). */
enum sc_phase {
   SC_PHASE_VALIDATE,    /* SPIRV-Tools validator */
   SC_PHASE_LEGALIZE,    /* SPIRV-Tools optimizer (legalization, specialization) */
   SC_PHASE_PARSE,       /* our SPIR-V parser and control-flow analysis */
   SC_PHASE_TRANSLATE,   /* SPIR-V -> LLVM IR */
   SC_PHASE_OPTIMIZE,    /* IR verification and LLVM's pass pipeline */
   SC_PHASE_CODEGEN,     /* LLVM's code generator: the relocatable object */
   SC_PHASE_LINK,        /* ORC JIT link and entry point lookup */
   SC_PHASE_COUNT
};

/* "validate", "legalize", ... */
const char *sc_phase_name(enum sc_phase phase);

/* Debugging output of one sc_compile (requested through
 * sc_compile_info.dump; never part of the compile key: asking for it does
 * not change the generated code). The texts are malloc'ed, NUL-terminated,
 * NULL when not asked for or when the compile failed before producing them;
 * release them with sc_compile_dump_finish. */
struct sc_compile_dump {
   bool want_ir;         /* in: LLVM IR as translated and as optimized */
   bool want_asm;        /* in: native assembly of the optimized module */
   char *ir;             /* out: IR as translated, before any pass */
   char *ir_opt;         /* out: IR after the pass pipeline (the code generator's input) */
   char *assembly;       /* out: the object's code as assembly (SC_ENTRY_SYMBOL
                          * "shale_entry" is the entry point) */
};

void sc_compile_dump_finish(struct sc_compile_dump *dump);

struct sc_compile_info {
   const uint32_t *words;
   size_t word_count;
   const char *entry_point;
   VkShaderStageFlagBits stage;
   /* VK_API_VERSION_1_x the module is checked against; 0 means 1.3. The
    * SPIR-V version in the header may raise it (SPIR-V 1.4 needs 1.1 with
    * VK_KHR_spirv_1_4, 1.5 needs 1.2, 1.6 needs 1.3). */
   uint32_t api_version;
   const struct sc_spec_constant *spec_constants;
   uint32_t spec_constant_count;
   /* Descriptor set layouts, indexed by set number. NULL (or a set past
    * set_count) means record index = binding number + array element. */
   const struct sc_set_layout *set_layouts;
   uint32_t set_layout_count;
   uint32_t flags;          /* enum sc_compile_flags */
   /* 4, 8 or 16; 0 picks SHALE_SIMD_WIDTH from the environment if set, else
    * the CPU's vector width (16 with AVX-512, 8 with AVX2, 4 otherwise).
    * 1 asks for scalar code: one invocation per call, every value uniform,
    * no lane masks; LLVM's code generator takes its fast path on such code
    * (a third of the time of vector code at its lowest level), so baseline
    * code is scalar where it can be. Shaders that use subgroups are refused
    * with SC_ERROR_UNSUPPORTED (their subgroups would have one invocation),
    * and so are fragment shaders (quads need 4 lanes). */
   uint32_t simd_width;
   /* Fragment shaders: bit l set when nothing reads colour Location l
    * (Index 0): the pipeline has no colour attachment there (and no
    * alpha to coverage reads Location 0). The shader's writes to it are
    * left out of the code, and its bit of shale_fs_info.outputs_written
    * stays clear. GLES 2 shaders through zink write gl_FragColor to all
    * eight Locations (gl_FragData[0..7]), which drew 32 vector stores a
    * call where one attachment needs 4. 0: every Location kept. Part of
    * sc_compile_key; ignored for other stages. */
   uint32_t fs_unused_outputs;
   /* Tessellation control shaders: the OutputVertices that the pipeline's
    * evaluation shader declares (sc_tess_output_vertices; 0 when it
    * declares none). Vulkan lets either tessellation stage declare it; a
    * control shader that declares none takes this one (its workgroup
    * size). Part of sc_compile_key; ignored for other stages. */
   uint32_t tess_output_vertices;
   /* Tessellation and geometry shaders: how many ClipDistance components
    * the stage before writes per vertex (a vertex or evaluation shader's
    * shale_vs_info.clip_distance_count, a control shader's
    * shale_tcs_info.output_clip_distances), that is where its CullDistance
    * components start in the words it hands on (SHALE_SLOT_CLIP_CULL0:
    * clip distances, then cull distances); gl_in[].gl_CullDistance reads
    * from there. Part of sc_compile_key; ignored for other stages. */
   uint32_t in_clip_distances;
   /* Debugging output wanted, or NULL (not hashed by sc_compile_key). */
   struct sc_compile_dump *dump;
};

/* A descriptor binding the shader uses. */
struct sc_binding_use {
   uint32_t set;
   uint32_t binding;
   uint32_t array_size;
   VkDescriptorType type;   /* the kind the shader declares it as */
   bool written;            /* stores or atomics through it */
};

struct sc_shader {
   VkShaderStageFlagBits stage;
   uint32_t simd_width;
   union {
      shale_cs_fn cs;
      shale_vs_fn vs;
      shale_gs_fn gs;
      shale_fs_fn fs;
      shale_tcs_fn tcs;
      shale_tes_fn tes;
   } fn;
   uint32_t local_size[3];      /* compute: workgroup size */
   uint32_t subgroup_count;     /* compute: subgroups per workgroup */
   uint32_t shared_size;        /* bytes of Workgroup storage */
   uint32_t scratch_size;       /* bytes of per-workgroup scratch */
   uint32_t push_constant_size; /* end of the push-constant block used (its last
                                 * member's end), 0 if none */
   uint32_t binding_count;
   struct sc_binding_use *bindings;
   /* Vertex, geometry and fragment shaders: the stage interface
    * (shader_abi.h, "Stage interfaces", "Geometry"); all zero for compute. */
   union {
      struct shale_vs_info vs;
      struct shale_gs_info gs;
      struct shale_fs_info fs;
      struct shale_tcs_info tcs;
      struct shale_tes_info tes;
   } io;
   bool baseline;               /* compiled with SC_COMPILE_BASELINE */
   double compile_ms;           /* wall time of the sc_compile or sc_shader_deserialize
                                 * that made the shader */
   double phase_ms[SC_PHASE_COUNT];   /* sc_compile: its phases' wall times;
                                       * all zero for a deserialized shader */
   struct sc_jit_code *code;    /* private */
};

struct sc_compiler;

/* The OutputVertices execution mode of the TessellationEvaluation entry
 * point `entry_point` of a SPIR-V module, read from its words without
 * parsing the module (a module the compile then refuses may give any
 * value); 0 when it declares none or the module has no such entry point.
 * For sc_compile_info.tess_output_vertices. */
uint32_t sc_tess_output_vertices(const uint32_t *words, size_t word_count,
                                 const char *entry_point);

enum sc_result sc_compiler_create(struct sc_compiler **out);
void sc_compiler_destroy(struct sc_compiler *compiler);

/* True once the process has begun exiting (exit() or the compiler's
 * library being unloaded): from then on sc_compile and
 * sc_shader_deserialize fail with SC_ERROR_INTERNAL instead of running LLVM
 * while its static destructors run; exit waits (up to 10 s) for the
 * compiles already running on other threads. Background compilers stop
 * asking. See sc_exit.c. */
bool sc_process_exiting(void);

/* The SIMD width sc_compile would pick for simd_width == 0. */
uint32_t sc_default_simd_width(void);

/* Compiles one entry point. message (may be NULL) receives a one-line reason
 * on failure, e.g. "unsupported instruction OpImageRead". */
enum sc_result sc_compile(struct sc_compiler *compiler,
                          const struct sc_compile_info *info,
                          struct sc_shader **out,
                          char *message, size_t message_size);

void sc_shader_destroy(struct sc_shader *shader);

/* The fragment back end's routine for key (src/rasterizer/sr_raster.h, "The
 * fragment back end"): compiled on the first request for a key, then the
 * same routine for every later one; routines live until the compiler is
 * destroyed. SC_ERROR_UNSUPPORTED: state outside what is compiled yet (the
 * caller keeps the C back end). May run on several threads at once. */
enum sc_result sc_compile_fragment_backend(struct sc_compiler *compiler,
                                           const struct shale_fb_key *key,
                                           shale_fb_color_fn *out, char *message,
                                           size_t message_size);
/* Likewise the depth/stencil routine for a depth/stencil key (the same
 * cache, the same rules). */
enum sc_result sc_compile_fragment_ds(struct sc_compiler *compiler,
                                      const struct shale_fb_ds_key *key, shale_fb_ds_fn *out,
                                      char *message, size_t message_size);

/* ---- Images and texel buffers ---- */

enum sc_image_format_feature {
   /* Storage image and storage texel buffer reads and writes, uniform texel
    * buffer fetches, in shaders declaring the format or not (Unknown). */
   SC_IMAGE_FORMAT_LOAD_STORE = 1u << 0,
   /* Image atomics (storage images and storage texel buffers). */
   SC_IMAGE_FORMAT_ATOMIC = 1u << 1,
};

/* What compiled shaders can do with texels of a format (enum
 * sc_image_format_feature bits; 0 for formats they cannot convert). */
uint32_t sc_image_format_features(VkFormat format);

/* ---- Caching compiled code ---- */

#define SC_COMPILE_KEY_SIZE 32

/* A SHA-256 of everything that decides the machine code sc_compile would
 * produce for info: SPIR-V words, entry point, stage, API version,
 * specialization constants (in the given order), set layouts, flags, the
 * SIMD width (0 resolved as sc_compile resolves it), the host target and CPU
 * (name and features), the compiler, LLVM and shader ABI versions. Equal
 * keys mean interchangeable shaders. */
enum sc_result sc_compile_key(struct sc_compiler *compiler, const struct sc_compile_info *info,
                              uint8_t key[SC_COMPILE_KEY_SIZE]);

/* Serializes a shader (compiled or deserialized) into a blob. With data
 * NULL, *size receives the blob's size; otherwise the blob is written to
 * data when *size is large enough (SC_ERROR_TOO_SMALL if not, nothing
 * written) and *size receives the bytes written. The blob is position
 * independent and self-contained. */
enum sc_result sc_shader_serialize(const struct sc_shader *shader, void *data, size_t *size);

/* Makes a shader from a blob of sc_shader_serialize: checks it (version,
 * checksum, sizes, target, CPU features, SIMD width, metadata) and links its
 * object. SC_ERROR_INVALID_BLOB for truncated or corrupted data,
 * SC_ERROR_INCOMPATIBLE_BLOB for another host or compiler version (both mean
 * "compile instead"). data need not be aligned and is not kept. */
enum sc_result sc_shader_deserialize(struct sc_compiler *compiler, const void *data, size_t size,
                                     struct sc_shader **out, char *message, size_t message_size);

/* Back-end routines (sc_compile_fragment_backend, sc_compile_fragment_ds)
 * are cached the same way. Each call names one routine: a colour key
 * (ds_key NULL) or a depth/stencil key (key NULL). sc_backend_cache_key:
 * a SHA-256 of the key's bytes, its kind and what sc_compile_key hashes of
 * the host and compiler (never equal to a shader's key).
 * sc_backend_compiled: whether the compiler has the routine already (a
 * request for it runs no LLVM). sc_backend_serialize: a blob of the
 * compiled routine (the key, the host's identity, the relocatable object,
 * checksummed; the size protocol of sc_shader_serialize), SC_ERROR_INTERNAL
 * when it is not compiled. sc_backend_deserialize: checks a blob like
 * sc_shader_deserialize, also that it holds the routine of this key, and
 * links it into the compiler's routines, so that the next request for the
 * key finds it. */
enum sc_result sc_backend_cache_key(struct sc_compiler *compiler, const struct shale_fb_key *key,
                                    const struct shale_fb_ds_key *ds_key,
                                    uint8_t out[SC_COMPILE_KEY_SIZE]);
bool sc_backend_compiled(struct sc_compiler *compiler, const struct shale_fb_key *key,
                         const struct shale_fb_ds_key *ds_key);
/* Whether the compiler covers the routine's state (else a compile request
 * returns SC_ERROR_UNSUPPORTED at once): callers that compile later (in the
 * background) ask first. */
bool sc_backend_key_supported(const struct shale_fb_key *key, const struct shale_fb_ds_key *ds_key);
enum sc_result sc_backend_serialize(struct sc_compiler *compiler, const struct shale_fb_key *key,
                                    const struct shale_fb_ds_key *ds_key, void *data,
                                    size_t *size);
enum sc_result sc_backend_deserialize(struct sc_compiler *compiler,
                                      const struct shale_fb_key *key,
                                      const struct shale_fb_ds_key *ds_key, const void *data,
                                      size_t size, char *message, size_t message_size);

/* Runs a compute dispatch on the calling thread: every workgroup from base
 * to base + count - 1, subgroup after subgroup. ctx's num_workgroups,
 * base_workgroup and local_size are filled in here. Allocates the shared and
 * scratch memory the shader needs. */
enum sc_result sc_dispatch_compute(const struct sc_shader *shader,
                                   struct shale_cs_context *ctx,
                                   const uint32_t base[3],
                                   const uint32_t count[3]);

#endif
