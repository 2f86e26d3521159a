/*
 * Shader ABI: the contract between JIT-compiled shader code (src/compiler)
 * and the code that calls it (src/driver for compute, src/rasterizer for
 * vertex, geometry and fragment work).
 *
 * Design note
 * -----------
 * Owns: nothing at run time; this header only fixes memory layouts and entry
 * point signatures. Both sides compile against it; the compiler reads the
 * structs below with offsetof(), so a field change here is an ABI change
 * (bump SHALE_SHADER_ABI_VERSION).
 *
 * SPMD: one call of a vertex, geometry, tessellation evaluation or fragment
 * entry point runs W invocations,
 * W = the shader's simd_width (4, 8 or 16, chosen when compiling). Values
 * the compiler proves uniform stay scalar; everything else is a W-lane vector.
 * A compute entry point runs one whole workgroup: the compiled code loops
 * over the workgroup's ceil(invocations / W) subgroups of W lanes itself, so
 * that barriers stay inside the compiled code (see "Barriers" below); a
 * tessellation control entry point runs one whole patch the same way.
 * Lanes past the last invocation of a workgroup start inactive.
 *
 * Descriptors: a descriptor set is an array of fixed-size records of
 * SHALE_DESCRIPTOR_SIZE bytes (union shale_descriptor). Binding b, array
 * element i of a set is record first_record(b) + i, where first_record()
 * comes from the set layout handed to the compiler (src/compiler/sc_compiler.h,
 * struct sc_set_layout); the compiled code indexes the set's record array
 * directly. Records are written by the driver at vkUpdateDescriptorSets time,
 * already resolved: buffer records hold base = memory + offset and the
 * effective range (VK_WHOLE_SIZE resolved). Dynamic buffers are resolved at
 * bind time: the driver hands the shader a copy of the set whose dynamic
 * records have the dynamic offset added. Inline uniform blocks occupy
 * ceil(size / SHALE_DESCRIPTOR_SIZE) consecutive records holding the bytes.
 * Buffer offsets computed by compiled code are 32-bit: ranges must stay
 * below 4 GiB (the driver's maxStorageBufferRange).
 *
 * Invariants:
 *  - Every pointer in a context is valid for the whole call; sets[s] is only
 *    read for sets the shader statically uses (sc_shader's binding list).
 *  - push_constants points at SHALE_MAX_PUSH_CONSTANTS_SIZE readable bytes.
 *  - shared_memory and scratch of struct shale_cs_workgroup are
 *    SHALE_MEMORY_ALIGN-aligned, hold at least the sizes the compiler reported
 *    (sc_shader.shared_size / scratch_size), belong to one workgroup call at a
 *    time, and have undefined contents on entry.
 *  - Compiled code keeps at most 16 KiB of private variables on the caller's
 *    stack (larger ones live in scratch memory), plus its spill slots.
 *  - Out-of-range buffer accesses: with robustBufferAccess compiled in, loads
 *    return zero and stores / atomics are dropped; private and Workgroup
 *    accesses are always kept inside their variable.
 *
 * Cancellation (watchdog, src/driver/sd_watchdog.h): every context has
 * `cancel`, NULL or a word another thread may set at any time. Compiled code
 * polls it (a relaxed load) at loop headers: on the first header it reaches
 * in a call, then every SHALE_CANCEL_POLL_INTERVAL-th header (short counted
 * loops, which end by themselves, have no poll). Once it reads
 * nonzero the call returns promptly (a resumable body returns "finished"),
 * leaving outputs, shared memory and buffers it was writing undefined. Every
 * unbounded run of a shader goes through a loop header (SPIR-V has no
 * recursion). Version 7 added the field.
 *
 * Threading: compiled entry points are reentrant; different workgroups (or
 * vertex batches, fragment quads) may run on different threads at once with
 * the same const context. Nothing in compiled code blocks or allocates.
 *
 * Barriers (compute): OpControlBarrier must run in workgroup-uniform control
 * flow, so every subgroup reaches the same barrier. A workgroup with more
 * than one subgroup and a barrier gets a resumable body: the compiled
 * workgroup function is a small scheduler that runs subgroup 0 until its
 * next barrier, then subgroup 1, ..., then resumes subgroup 0 after the
 * barrier, and so on until every subgroup has finished. A subgroup
 * "suspends" by returning from its body with the barrier's resume index
 * after spilling what lives across it (values that cross blocks, lane masks,
 * private variables) into its frame in the workgroup's scratch memory;
 * resuming jumps to the matching point and reloads them. This is plain code
 * (no ucontext, no stack switching, no threads), so it runs the same on
 * glibc, bionic, x86-64 and aarch64. Scratch memory (subgroup states, frames,
 * private arrays too large for the stack) is laid out by the compiled code;
 * the caller only provides sc_shader.scratch_size bytes of it.
 */
#ifndef SHALE_SHADER_ABI_H
#define SHALE_SHADER_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHALE_SHADER_ABI_VERSION 19

/* Widest SPMD call: 16 lanes (AVX-512). */
#define SHALE_MAX_SIMD_WIDTH 16
#define SHALE_MAX_DESCRIPTOR_SETS 8
#define SHALE_MAX_PUSH_CONSTANTS_SIZE 256
#define SHALE_DESCRIPTOR_SIZE 64
/* Alignment of shared memory, scratch and vertex/fragment I/O arrays. */
#define SHALE_MEMORY_ALIGN 64
/* Loop headers between two polls of a context's cancel word. */
#define SHALE_CANCEL_POLL_INTERVAL 1024

/* ------------------------------------------------------------------------ */
/* Descriptor records                                                        */
/* ------------------------------------------------------------------------ */

/* Uniform and storage buffers (also the dynamic kinds, offset applied). */
struct shale_buffer_descriptor {
   uint8_t *base;    /* first byte of the bound range */
   uint64_t range;   /* bytes readable from base; < 4 GiB */
};

/* Uniform and storage texel buffers. Texel i is at base + i * element_size
 * for i < element_count; compiled code reads (OpImageFetch, OpImageRead),
 * writes and does atomics only there, converting texels by format (see
 * sc_image_format_features()). OpImageQuerySize returns element_count. */
struct shale_texel_buffer_descriptor {
   uint8_t *base;
   uint64_t range;          /* bytes */
   uint32_t format;         /* VkFormat of the view */
   uint32_t element_size;   /* bytes per texel: the format's texel size */
   uint32_t element_count;  /* range / element_size, as the shader sees it */
};

/* One plane of a multi-planar view: texel (x, y) at base + x * texel_size +
 * y * row_pitch, for x < width and y < height (in the plane's texels). */
struct shale_plane_desc {
   uint8_t *base;
   uint64_t row_pitch;
   uint32_t width, height;
   uint32_t format;            /* VkFormat: the plane's compatible format */
   uint32_t texel_size;
};

/* Image view as the sampling and image load/store routines see it. Owned by
 * the driver's image view object; records point at it. Level i of the view
 * (its image's level baseMipLevel + i) is max(1, width >> i) x
 * max(1, height >> i) x max(1, depth >> i) texels; texel (x, y, z) of it is
 * at base + level_offset[i] + x * texel_size + y * row_pitch[i] +
 * z * slice_pitch[i], z being the depth slice (3D) or the view's layer
 * (cube views: layer * 6 + face).
 * Views of a whole multi-planar format (sampled through a Y'CbCr
 * conversion; one level, one layer) have plane_count 2 or 3 and describe
 * each plane in planes[] (format is the multi-planar VkFormat, width and
 * height the image's, base the first plane's); plane_count is 0 otherwise
 * (a view of one plane of a multi-planar image is an ordinary view). */
struct shale_image_view_desc {
   uint8_t *base;              /* texel (0,0,0) of the view's base level/layer */
   uint32_t format;            /* VkFormat */
   uint32_t view_type;         /* VkImageViewType */
   uint32_t width, height, depth;   /* of the base level */
   uint32_t level_count, layer_count;
   uint32_t samples;           /* > 1: one level; texel x is x * samples (+ sample) */
   uint32_t texel_size;        /* bytes per texel (block for compressed) */
   uint32_t aspect;            /* VkImageAspectFlagBits read: COLOR, DEPTH or STENCIL */
   uint32_t swizzle[4];        /* VkComponentSwizzle of R, G, B, A; never IDENTITY */
   uint64_t row_pitch[16];     /* per level, bytes */
   uint64_t slice_pitch[16];   /* per level: z slice or array layer, bytes */
   uint64_t level_offset[16];  /* per level, from base */
   uint32_t plane_count;
   uint32_t reserved;
   struct shale_plane_desc planes[3];
};

/* Sampler Y'CbCr conversion state (VkSamplerYcbcrConversionCreateInfo):
 * `swizzle` is components with IDENTITY resolved (R, G, B, A). */
struct shale_ycbcr_desc {
   uint32_t format;                                 /* VkFormat */
   uint32_t model;                                  /* VkSamplerYcbcrModelConversion */
   uint32_t range;                                  /* VkSamplerYcbcrRange */
   uint32_t swizzle[4];                             /* VkComponentSwizzle */
   uint32_t chroma_offset[2];                       /* VkChromaLocation, x then y */
   uint32_t chroma_filter;                          /* VkFilter */
   uint32_t explicit_reconstruction;                /* forceExplicitReconstruction */
};

/* Sampler state as the sampling routines see it. Owned by the driver (the
 * sampler object, or the set layout for immutable samplers). Members the
 * spec says are ignored are normalised: max_anisotropy is 1 without
 * anisotropy, compare_op ALWAYS without comparison. With `ycbcr` set the
 * sampler carries a Y'CbCr conversion (`conversion`); such samplers only
 * reach shaders as immutable samplers of combined image samplers. */
struct shale_sampler_desc {
   uint32_t mag_filter, min_filter, mipmap_mode;    /* VkFilter / VkSamplerMipmapMode */
   uint32_t address_mode[3];                        /* VkSamplerAddressMode */
   float mip_lod_bias, min_lod, max_lod, max_anisotropy;
   uint32_t compare_enable, compare_op;             /* VkCompareOp */
   uint32_t border_color;                           /* VkBorderColor */
   uint32_t unnormalized_coordinates;
   uint32_t custom_border[4];
   uint32_t ycbcr;
   struct shale_ycbcr_desc conversion;
};

/* ------------------------------------------------------------------------ */
/* Sampling                                                                  */
/* ------------------------------------------------------------------------ */

/* One sampling instruction for up to SHALE_MAX_SIMD_WIDTH lanes. Compiled
 * code fills a struct shale_sample_args (lane i of an array at index i),
 * calls the image record's sample_fn with the record's view and the
 * sampler record's sampler, and reads result[][] for the lanes it asked
 * for. Everything is per lane except the header. */
enum shale_sample_op {
   SHALE_SAMPLE_LOD = 0,      /* OpImageSample*ExplicitLod with Lod (lod[]) */
   SHALE_SAMPLE_GRAD = 1,     /* OpImageSample*ExplicitLod with Grad (grad[][]) */
   SHALE_SAMPLE_FETCH = 2,    /* OpImageFetch: integer coord and lod; sampler unused */
   SHALE_SAMPLE_GATHER = 3,   /* OpImageGather (component) / OpImageDrefGather */
   /* OpImageQueryLod (fragment shaders): grad[][] as for implicit-LOD
    * sampling. result[0]: the level accessed relative to the view's base,
    * clamp(lambda, 0, levels - 1) with lambda clamped to the sampler's
    * [minLod, maxLod] (NEAREST mipmap mode: rounded to the level it
    * selects); result[1]: lambda' (log2 of rho plus the sampler's bias,
    * unclamped); floats. */
   SHALE_SAMPLE_QUERY_LOD = 4,
};
#define SHALE_SAMPLE_OP_MASK 0xffu
#define SHALE_SAMPLE_DREF (1u << 8)             /* depth comparison against dref[] */
#define SHALE_SAMPLE_OFFSET (1u << 9)           /* offset[][] is added (ConstOffset, Offset) */
#define SHALE_SAMPLE_GATHER_OFFSETS (1u << 10)  /* gather_offsets (ConstOffsets) */
/* GRAD only: lod[] holds a Bias operand (implicit-LOD sampling in fragment
 * shaders, whose gradients the compiled code takes from the quad, coarse:
 * the same on the four lanes 4k .. 4k + 3 of each 2x2 quad): lambda
 * is log2(rho) + clamp(sampler bias + lod[], -maxSamplerLodBias, +max). */
#define SHALE_SAMPLE_BIAS (1u << 11)
/* FETCH only: lod[] holds the Sample operand (an integer) of a fetch from a
 * multisampled view, whose one level is read. Sample s of texel (x, y) of a
 * view with `samples` samples is where texel x * samples + s of a
 * one-sample view would be (a pixel's samples are adjacent; row_pitch
 * covers all of them); s >= samples reads as out of range. Version 8 added
 * the flag. */
#define SHALE_SAMPLE_SAMPLE (1u << 12)

struct shale_sample_args {
   uint32_t op;                      /* enum shale_sample_op | SHALE_SAMPLE_* flags */
   uint32_t lanes;                   /* bit i set: compute lane i; others untouched */
   uint32_t component;               /* OpImageGather's Component */
   uint32_t reserved;
   int32_t gather_offsets[4][2];     /* ConstOffsets: (i, j) of each gathered texel */
   uint32_t pad[4];
   /* The Coordinate operand's components in order (s, t, r, array layer as
    * the view type has them; cube: the direction x, y, z, then the cube
    * index), floats; FETCH: integers. Proj is already divided out. */
   float coord[4][SHALE_MAX_SIMD_WIDTH];
   float lod[SHALE_MAX_SIMD_WIDTH];  /* FETCH: an integer */
   float dref[SHALE_MAX_SIMD_WIDTH];
   float grad[2][3][SHALE_MAX_SIMD_WIDTH];   /* d/dx then d/dy of (s, t, r) */
   int32_t offset[3][SHALE_MAX_SIMD_WIDTH];
   /* Out: the texel's R, G, B, A as 32-bit float or integer bits by the
    * view's format (Dref: the filtered comparison result in result[0]). */
   uint32_t result[4][SHALE_MAX_SIMD_WIDTH];
};

/* Reentrant; reads only the view's memory; never allocates or blocks. A
 * NULL sampler (or view) gives zeros for sampling operations. */
typedef void (*shale_sample_fn)(const struct shale_image_view_desc *view,
                                const struct shale_sampler_desc *sampler,
                                struct shale_sample_args *args);

/* Sampled image, storage image, combined image sampler, input attachment,
 * sampler. The storage image fields (base .. samples) describe the view's
 * base level so image load/store need no second pointer. sample_fn samples
 * the view (Sampling above); it is set in sampled-image and combined
 * records, NULL elsewhere. `sampler` is set in sampler and combined
 * records (immutable samplers included), NULL elsewhere.
 *
 * Storage images: texel (x, y, z) of the view is at
 *    base + x * texel_size + y * row_pitch + z * slice_pitch
 * where base is texel (0, 0) of the view's base level and first layer, and
 * z is the depth slice (3D), the array layer (1D and 2D arrays; a 1D
 * array's layer is its coordinate's second component, and y is 0), the
 * face (cube) or layer * 6 + face (cube arrays): slice_pitch is the depth
 * pitch of 3D images, the layer pitch otherwise.
 * Compiled code accesses texels only for x < width, y < height,
 * z < depth_or_layers (depth for 3D, the view's layer count otherwise: 6
 * per cube), dropping writes and atomics and reading (0, 0, 0, 1) outside;
 * it converts texels by format (sc_image_format_features()) and, when the
 * shader declares a format, only touches views whose texel_size is that
 * format's. OpImageQuerySize(Lod) is computed from width, height and
 * depth_or_layers (cube arrays: depth_or_layers / 6), OpImageQueryLevels
 * returns level_count, OpImageQuerySamples samples.
 * Multisampled storage images and input attachments: sample s of texel
 * (x, y, z) is at the address of texel (x * samples + s, y, z) above
 * (row_pitch covers every sample of a row); s < samples is checked like
 * the coordinates. */
struct shale_image_descriptor {
   const struct shale_image_view_desc *view;
   const struct shale_sampler_desc *sampler;
   shale_sample_fn sample_fn;
   uint8_t *base;
   uint32_t row_pitch, slice_pitch;
   uint32_t width, height, depth_or_layers;   /* of the view's base level */
   uint32_t format;                           /* VkFormat of the view */
   uint32_t texel_size;                       /* bytes per texel of the format */
   uint16_t level_count;                      /* the view's levelCount */
   uint16_t samples;                          /* VkSampleCountFlagBits value: 1, 2, 4 ... */
};

union shale_descriptor {
   struct shale_buffer_descriptor buffer;
   struct shale_texel_buffer_descriptor texel_buffer;
   struct shale_image_descriptor image;
   uint8_t bytes[SHALE_DESCRIPTOR_SIZE];   /* inline uniform block data */
};

#ifdef __cplusplus
static_assert(sizeof(union shale_descriptor) == SHALE_DESCRIPTOR_SIZE,
              "descriptor records are fixed-size");
#else
_Static_assert(sizeof(union shale_descriptor) == SHALE_DESCRIPTOR_SIZE,
               "descriptor records are fixed-size");
#endif

/* ------------------------------------------------------------------------ */
/* Compute                                                                   */
/* ------------------------------------------------------------------------ */

/* Per dispatch, shared by every workgroup (and every thread) of it. */
struct shale_cs_context {
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
   const void *push_constants;
   const uint32_t *cancel;       /* watchdog: nonzero stops the call; may be NULL */
   uint32_t num_workgroups[3];   /* NumWorkgroups: the dispatch's groupCount */
   uint32_t base_workgroup[3];   /* vkCmdDispatchBase's base; WorkgroupId starts here */
   /* The workgroup size is compiled in (sc_shader.local_size): the compiled
    * code needs it to lay out subgroups. Copied here for tools and asserts. */
   uint32_t local_size[3];
   uint32_t reserved;
};

/* Per workgroup call. */
struct shale_cs_workgroup {
   uint32_t workgroup_id[3];     /* WorkgroupId: base_workgroup included */
   uint32_t reserved;
   void *shared_memory;          /* Workgroup storage: sc_shader.shared_size bytes */
   void *scratch;                /* subgroup frames: sc_shader.scratch_size bytes */
};

/* Runs every invocation of one workgroup, barriers included. */
typedef void (*shale_cs_fn)(const struct shale_cs_context *ctx,
                            const struct shale_cs_workgroup *wg);

/* ------------------------------------------------------------------------ */
/* Stage interfaces (vertex, geometry and fragment)                          */
/* ------------------------------------------------------------------------ */

/* Varying slots, four 32-bit components each, in vertex outputs. Built-ins
 * first, user Locations from SHALE_SLOT_USER. A 64-bit or matrix output
 * takes consecutive Locations as SPIR-V assigns them. */
enum shale_varying_slot {
   SHALE_SLOT_POSITION = 0,       /* Position xyzw (clip coordinates) */
   SHALE_SLOT_POINT_SIZE = 1,     /* x: PointSize */
   SHALE_SLOT_CLIP_CULL0 = 2,     /* ClipDistance[0..n-1] then CullDistance[0..m-1], */
   SHALE_SLOT_CLIP_CULL1 = 3,     /* packed, n + m <= 8 (shale_vs_info says n, m) */
   SHALE_SLOT_LAYER_VIEWPORT = 4, /* x: Layer, y: ViewportIndex, z: PrimitiveId (geometry
                                   * shaders), integers */
   SHALE_SLOT_USER = 5,           /* Location l is slot SHALE_SLOT_USER + l */
   SHALE_MAX_LOCATIONS = 32,
   SHALE_SLOT_COUNT = SHALE_SLOT_USER + SHALE_MAX_LOCATIONS,
};

/* Fragment input components: (Location l, Component c) is l * 4 + c; the
 * built-in inputs ClipDistance[i] and CullDistance[j] follow at
 * SHALE_FS_CLIP_INPUT + i and SHALE_FS_CLIP_INPUT + 8 + j (always SMOOTH:
 * the rasterizer interpolates the last vertex stage's distances (the
 * geometry shader's where there is one), its CullDistance[j] being packed
 * after its clip distances).
 * Version 9 added them. */
#define SHALE_FS_CLIP_INPUT (SHALE_MAX_LOCATIONS * 4)
#define SHALE_FS_INPUT_COMPONENTS (SHALE_FS_CLIP_INPUT + 16)

/* Interpolation of one fragment input component (shale_fs_info.interp). */
enum shale_interp {
   SHALE_INTERP_NONE = 0,          /* not read */
   SHALE_INTERP_SMOOTH = 1,        /* perspective-correct */
   SHALE_INTERP_FLAT = 2,          /* the provoking vertex's value */
   SHALE_INTERP_NOPERSPECTIVE = 3, /* linear in window space */
};
/* Or-ed into enum shale_interp: where SMOOTH / NOPERSPECTIVE evaluate. */
#define SHALE_INTERP_CENTROID 0x10u
#define SHALE_INTERP_SAMPLE 0x20u
#define SHALE_INTERP_KIND_MASK 0x0fu

/* One captured 32-bit word of a vertex output (transform feedback): varying
 * slot word (slot * 4 + component; ClipDistance / CullDistance as packed in
 * SHALE_SLOT_CLIP_CULL0/1), its XfbBuffer and its byte offset in the
 * vertex's XfbStride bytes of that buffer (Offset plus 4 per 32-bit and 8
 * per 64-bit component before it in the variable or member). A 64-bit
 * component is two entries: its low word (slot word w) at its offset, its
 * high word (w + 1) 4 bytes after. Captured components are 32 or 64 bits
 * (the spec allows no 16-bit ones). */
#define SHALE_MAX_XFB_BUFFERS 4
#define SHALE_MAX_XFB_COMPONENTS 128
struct shale_xfb_component {
   uint8_t word;
   uint8_t buffer;
   uint16_t offset;
};

/* What a compiled vertex shader reads and writes (sc_shader.io.vs). The
 * rasterizer links the stages from this and from shale_fs_info; it never
 * parses SPIR-V. */
struct shale_vs_info {
   uint64_t outputs_written;     /* bit s: varying slot s written */
   uint32_t inputs_read;         /* bit l: input Location l read */
   /* Per input Location: 0 float, 1 signed, 2 unsigned (the type the shader
    * declares; the fetch converts the attribute's format to it). */
   uint8_t input_type[SHALE_MAX_LOCATIONS];
   uint8_t clip_distance_count;  /* ClipDistance array size (0..8) */
   uint8_t cull_distance_count;  /* CullDistance array size */
   uint8_t writes_point_size;
   /* Built-in outputs at SHALE_SLOT_LAYER_VIEWPORT (version 16): bit 0
    * Layer, bit 1 ViewportIndex written (any stage; the rasterizer reads
    * them from vertex and evaluation shaders, VK_EXT_shader_viewport_index_layer). */
   uint8_t writes_layer_viewport;
   /* Transform feedback (version 10): with the Xfb execution mode, the
    * output components that have an XfbBuffer and Offset, in no particular
    * order; xfb_stride[b] is XfbBuffer b's XfbStride (0: no output of that
    * buffer). All zero without Xfb. */
   uint16_t xfb_count;
   uint16_t xfb_stride[SHALE_MAX_XFB_BUFFERS];
   struct shale_xfb_component xfb[SHALE_MAX_XFB_COMPONENTS];
};

/* What a compiled fragment shader reads and writes (sc_shader.io.fs). */
struct shale_fs_info {
   /* Per input component k (SHALE_FS_INPUT_COMPONENTS above): interp[k],
    * an enum shale_interp with SHALE_INTERP_CENTROID / _SAMPLE or-ed in. */
   uint8_t interp[SHALE_FS_INPUT_COMPONENTS];
   uint32_t outputs_written;     /* bit l: colour Location l written (Index 0) */
   uint32_t dual_source;         /* Location 0 Index 1 written (dual-source blending) */
   /* Per colour Location: 0 float, 1 signed, 2 unsigned. */
   uint8_t output_type[8];
   uint8_t reads_frag_coord, reads_front_facing, reads_point_coord;
   uint8_t reads_sample_id;      /* SampleId or SamplePosition: runs per sample */
   uint8_t reads_sample_mask;    /* SampleMask input */
   uint8_t reads_primitive_id, reads_layer;
   uint8_t writes_frag_depth;    /* FragDepth */
   uint8_t writes_sample_mask;   /* SampleMask output */
   uint8_t writes_stencil;       /* FragStencilRefEXT (not claimed yet) */
   uint8_t can_discard;          /* OpKill / OpTerminateInvocation / demote */
   uint8_t early_fragment_tests; /* EarlyFragmentTests execution mode */
   uint8_t depth_mode;           /* 0 any, 1 DepthGreater, 2 DepthLess, 3 DepthUnchanged */
   uint8_t has_side_effects;     /* stores or atomics to buffers or images */
   uint8_t uses_derivatives;     /* derivatives or implicit-LOD sampling */
   uint8_t reserved;
};

/* ------------------------------------------------------------------------ */
/* Vertex                                                                    */
/* ------------------------------------------------------------------------ */

struct shale_vs_context {
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
   const void *push_constants;
   const uint32_t *cancel;       /* watchdog: nonzero stops the call; may be NULL */
   int32_t base_vertex;          /* BaseVertex (vertexOffset or firstVertex) */
   uint32_t base_instance;       /* BaseInstance */
   uint32_t draw_index;          /* DrawIndex */
   uint32_t view_index;          /* ViewIndex */
};

/* One batch of up to W vertices of one instance. Arrays are structure of
 * arrays with the lane as the fastest index: component c of input Location l
 * for lane i is inputs[(l * 4 + c) * W + i]; the rasterizer's vertex fetch
 * has already converted each attribute to the 32-bit type the shader
 * declares (float, int or uint bits; missing components are 0, 0, 0 and 1).
 * A 64-bit component is two words of its Location, low then high, copied
 * from an R64* format as they are (components 0-1 and 2-3 of a Location);
 * a three- or four-component 64-bit input continues in the next Location,
 * which its attribute also fills. Outputs
 * use the same layout over varying slots: outputs[(slot * 4 + c) * W + i];
 * slots the shader does not write (shale_vs_info.outputs_written) are left
 * as they were. inputs and outputs are SHALE_MEMORY_ALIGN-aligned. Lanes
 * count .. W-1 run with undefined inputs and their outputs are ignored;
 * their stores and atomics are dropped. */
struct shale_vs_batch {
   uint32_t count;               /* lanes 0 .. count-1 hold vertices */
   uint32_t instance_index;      /* InstanceIndex (base_instance included) */
   uint32_t vertex_index[SHALE_MAX_SIMD_WIDTH];   /* VertexIndex per lane */
   const uint32_t *inputs;
   uint32_t *outputs;
};

typedef void (*shale_vs_fn)(const struct shale_vs_context *ctx,
                            struct shale_vs_batch *batch);

/* ------------------------------------------------------------------------ */
/* Geometry (version 11)                                                     */
/* ------------------------------------------------------------------------ */

/* A geometry shader call runs W invocations: lane i is input primitive i
 * of the batch (up to W consecutive primitives of a draw), all with the
 * same InvocationId (a shader with Invocations n is called n times per
 * batch, invocation_id 0 .. n-1). The rasterizer's use of it: sr_raster.h,
 * "Geometry shading".
 *
 * Inputs: vertex v (0 .. vertices per primitive - 1, the spec's order:
 * adjacency included) of lane i, varying slot s (the vertex shader's
 * output slots, enum shale_varying_slot; Location l is SHALE_SLOT_USER +
 * l), component c at inputs[((v * SHALE_SLOT_COUNT + s) * 4 + c) * W + i];
 * only the slots of shale_gs_info.inputs_read are filled (0 where the
 * vertex shader does not write them). The input arrays of the shader (an
 * arrayed Location variable or block, gl_in[].gl_Position and
 * gl_PointSize) index v. PrimitiveIdIn is primitive_id[i].
 *
 * Outputs: the shader's Output variables live in per-lane storage as a
 * vertex shader's do; OpEmitVertex appends, for each active lane i whose
 * count emitted[i] is below OutputVertices, the current values of the
 * written output words (shale_gs_info.out_word[j], j < out_words, each a
 * varying slot word slot * 4 + c as a vertex shader writes it) as vertex
 * k = emitted[i]: outputs[(k * out_words + j) * W + i], and
 * cut[k * W + i] = 1 when the vertex starts a new strip (the lane's first
 * vertex, or the first after an OpEndPrimitive), else 0; then
 * emitted[i] = k + 1. Output variables keep their values after
 * OpEmitVertex (the spec leaves them undefined; keeping is allowed).
 * Vertices emitted past OutputVertices are dropped. The caller sets
 * emitted[] to 0 before the call; outputs holds output_vertices *
 * out_words * W words and cut output_vertices * W, SHALE_MEMORY_ALIGN-
 * aligned. Lanes count .. W-1 start inactive (they emit nothing; their
 * stores and atomics are dropped). Built-in outputs: Position, PointSize,
 * ClipDistance, CullDistance in their vertex-shader slots; Layer at
 * SHALE_SLOT_LAYER_VIEWPORT x, ViewportIndex at its y and PrimitiveId at
 * its z (integers). */
#define SHALE_GS_MAX_VERTICES_IN 6       /* triangles with adjacency */
#define SHALE_GS_PRIMITIVE_ID_WORD (SHALE_SLOT_LAYER_VIEWPORT * 4 + 2)

struct shale_gs_context {
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
   const void *push_constants;
   const uint32_t *cancel;       /* watchdog: nonzero stops the call; may be NULL */
   uint32_t view_index;          /* ViewIndex */
   uint32_t reserved;
};

struct shale_gs_batch {
   uint32_t count;               /* lanes 0 .. count-1 hold primitives */
   uint32_t invocation_id;       /* InvocationId of the whole call */
   uint32_t primitive_id[SHALE_MAX_SIMD_WIDTH];   /* PrimitiveIdIn per lane */
   uint32_t emitted[SHALE_MAX_SIMD_WIDTH];        /* in 0, out: vertices per lane */
   const uint32_t *inputs;
   uint32_t *outputs;
   uint32_t *cut;
};

typedef void (*shale_gs_fn)(const struct shale_gs_context *ctx,
                            struct shale_gs_batch *batch);

/* What a compiled geometry shader reads and writes (sc_shader.io.gs). */
struct shale_gs_info {
   /* Its outputs, described as a vertex shader's are (outputs_written,
    * clip and cull distance counts, writes_point_size, transform
    * feedback); inputs_read and input_type are 0. */
   struct shale_vs_info out;
   uint64_t inputs_read;         /* bit s: input slot s read (any vertex) */
   uint8_t vertices_in;          /* 1 InputPoints, 2 InputLines, 4 InputLinesAdjacency,
                                  * 3 Triangles, 6 InputTrianglesAdjacency */
   uint8_t invocations;          /* Invocations (1 .. 32) */
   uint16_t output_vertices;     /* OutputVertices (1 .. 256) */
   uint32_t output_topology;     /* VkPrimitiveTopology: POINT_LIST (OutputPoints),
                                  * LINE_STRIP, TRIANGLE_STRIP */
   uint32_t out_words;           /* words per emitted vertex */
   uint8_t writes_primitive_id;  /* PrimitiveId output */
   uint8_t writes_layer;         /* Layer output */
   uint8_t reserved[2];
   uint16_t out_word[SHALE_SLOT_COUNT * 4];   /* [out_words]: slot * 4 + c */
};

/* ------------------------------------------------------------------------ */
/* Tessellation (version 13)                                                 */
/* ------------------------------------------------------------------------ */

/* The two programmable stages around the primitive generator (the
 * rasterizer's plan: src/rasterizer/sr_tess.h). Both exchange vertices and
 * patch values in one layout, uniform over a patch (one copy, not one per
 * lane):
 *  - per-vertex words: component c of varying slot s (enum
 *    shale_varying_slot: Position, PointSize, Locations from
 *    SHALE_SLOT_USER) of vertex v at words[(v * SHALE_SLOT_COUNT + s) * 4
 *    + c]; the TCS reads its input patch so (the vertex shader's outputs)
 *    and writes its output patch so, which the TES reads as it is;
 *  - per-patch words: component c of patch slot p at patch[p * 4 + c];
 *    TessLevelOuter[0..3] is patch slot 0, TessLevelInner[0..1] the x and
 *    y of patch slot 1, a Patch output (input) at Location l is patch slot
 *    SHALE_PATCH_SLOT_USER + l.
 * Input arrays (gl_in[], arrayed Location variables and blocks) index the
 * vertex; only the slots the info structs say are read need be filled.
 * Per-vertex input words span SHALE_TESS_MAX_PATCH_VERTICES vertices (an
 * input array is gl_MaxPatchVertices long whatever the patch's size):
 * vertices past the patch's are read, their values unused. */
enum shale_patch_slot {
   SHALE_PATCH_SLOT_TESS_OUTER = 0,
   SHALE_PATCH_SLOT_TESS_INNER = 1,
   SHALE_PATCH_SLOT_USER = 2,
   SHALE_PATCH_SLOT_COUNT = SHALE_PATCH_SLOT_USER + SHALE_MAX_LOCATIONS,
};
/* maxTessellationPatchSize: input and output patches of 1 .. 32 vertices. */
#define SHALE_TESS_MAX_PATCH_VERTICES 32

/* The execution modes that shape the primitive generator; either stage may
 * declare them (0: not declared by this stage), pipeline creation merges
 * the two. */
enum shale_tess_domain {
   SHALE_TESS_DOMAIN_NONE = 0,
   SHALE_TESS_DOMAIN_TRIANGLES = 1,   /* Triangles */
   SHALE_TESS_DOMAIN_QUADS = 2,       /* Quads */
   SHALE_TESS_DOMAIN_ISOLINES = 3,    /* Isolines */
};
enum shale_tess_spacing {
   SHALE_TESS_SPACING_NONE = 0,
   SHALE_TESS_SPACING_EQUAL = 1,            /* SpacingEqual */
   SHALE_TESS_SPACING_FRACTIONAL_EVEN = 2,  /* SpacingFractionalEven */
   SHALE_TESS_SPACING_FRACTIONAL_ODD = 3,   /* SpacingFractionalOdd */
};
enum shale_tess_order {
   SHALE_TESS_ORDER_NONE = 0,
   SHALE_TESS_ORDER_CW = 1,           /* VertexOrderCw */
   SHALE_TESS_ORDER_CCW = 2,          /* VertexOrderCcw */
};
struct shale_tess_modes {
   uint8_t domain;                    /* enum shale_tess_domain */
   uint8_t spacing;                   /* enum shale_tess_spacing */
   uint8_t vertex_order;              /* enum shale_tess_order */
   uint8_t point_mode;                /* PointMode */
};

/* Both stages' context (per draw). */
struct shale_tess_context {
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
   const void *push_constants;
   const uint32_t *cancel;       /* watchdog: nonzero stops the call; may be NULL */
   uint32_t view_index;          /* ViewIndex */
   uint32_t reserved;
};

/* Tessellation control: one call runs one whole patch, its OutputVertices
 * invocations (InvocationId 0 .. OutputVertices - 1) the lanes of
 * ceil(OutputVertices / W) subgroups, exactly as a compute workgroup of
 * OutputVertices x 1 x 1 invocations (sc_shader.local_size says so):
 * OpControlBarrier is the compute barrier ("Barriers" above). The shader's
 * Output variables (per-vertex gl_out[] and the Patch ones) live in the
 * patch block, laid out by the compiled code (sc_shader.shared_size bytes,
 * SHALE_MEMORY_ALIGN-aligned), so that every invocation reads what the
 * others wrote; the caller zeroes it before the call (an output nobody
 * writes reads 0, and leaves 0 in outputs). When the whole patch has run,
 * the compiled code copies the written outputs out: per-vertex words to
 * outputs (v < OutputVertices) and patch words to patch_outputs, in the
 * layouts above; words not written (shale_tcs_info) are left as they were.
 * The first fields are struct shale_cs_workgroup's (workgroup_id is 0). */
struct shale_tcs_patch {
   uint32_t workgroup_id[3];     /* 0 */
   uint32_t reserved;
   void *patch_block;            /* sc_shader.shared_size bytes, zeroed */
   void *scratch;                /* sc_shader.scratch_size bytes */
   uint32_t primitive_id;        /* PrimitiveId: the patch's index in the instance */
   uint32_t patch_vertices;      /* PatchVertices: patchControlPoints */
   const uint32_t *inputs;       /* per-vertex words of the input patch */
   uint32_t *outputs;            /* per-vertex words of the output patch */
   uint32_t *patch_outputs;      /* SHALE_PATCH_SLOT_COUNT * 4 words */
};

typedef void (*shale_tcs_fn)(const struct shale_tess_context *ctx,
                             const struct shale_tcs_patch *patch);

/* What a compiled tessellation control shader reads and writes
 * (sc_shader.io.tcs). */
struct shale_tcs_info {
   uint64_t inputs_read;         /* bit s: input slot s read (any vertex) */
   uint64_t outputs_written;     /* bit s: per-vertex output slot s written */
   uint64_t patch_written;       /* bit p: patch slot p written */
   struct shale_tess_modes modes;
   uint8_t output_vertices;      /* OutputVertices (1 .. 32) */
   /* gl_out[].gl_ClipDistance's size where the shader declares it (0
    * otherwise): per-vertex output words SHALE_SLOT_CLIP_CULL0 * 4 + i
    * hold ClipDistance[i], the CullDistance components follow them. */
   uint8_t output_clip_distances;
   uint8_t reserved[2];
};

/* Tessellation evaluation: a call runs up to W domain points of one patch,
 * lane i the point tess_coord[0..2][i] (u, v, w; w = 0 for quads and
 * isolines); PrimitiveId, PatchVertices and the patch's words (inputs,
 * patch_inputs: the TCS's outputs, layouts above; TessLevelOuter and
 * TessLevelInner are read from patch slots 0 and 1) are the same for
 * every lane. Outputs as a vertex shader's (shale_vs_batch.outputs:
 * outputs[(slot * 4 + c) * W + i], slots not written left as they were;
 * SHALE_MEMORY_ALIGN-aligned). Lanes count .. W-1 run with undefined
 * TessCoord and their outputs are ignored; their stores and atomics are
 * dropped. */
struct shale_tes_batch {
   uint32_t count;               /* lanes 0 .. count-1 hold points */
   uint32_t primitive_id;        /* PrimitiveId: the patch's */
   uint32_t patch_vertices;      /* PatchVertices: the TCS's OutputVertices */
   uint32_t reserved;
   float tess_coord[3][SHALE_MAX_SIMD_WIDTH];   /* TessCoord per lane */
   const uint32_t *inputs;       /* per-vertex words of the patch */
   const uint32_t *patch_inputs; /* patch words */
   uint32_t *outputs;
};

typedef void (*shale_tes_fn)(const struct shale_tess_context *ctx,
                             struct shale_tes_batch *batch);

/* What a compiled tessellation evaluation shader reads and writes
 * (sc_shader.io.tes). */
struct shale_tes_info {
   /* Its outputs, described as a vertex shader's are (inputs_read and
    * input_type are 0). */
   struct shale_vs_info out;
   uint64_t inputs_read;         /* bit s: per-vertex input slot s read (any vertex) */
   uint64_t patch_read;          /* bit p: patch slot p read (the levels included) */
   struct shale_tess_modes modes;
   uint8_t reserved[4];
};

/* ------------------------------------------------------------------------ */
/* Fragment                                                                  */
/* ------------------------------------------------------------------------ */

/* A linear function of window coordinates: v(x, y) = a * x + b * y + c,
 * with (x, y) in pixels of the framebuffer (pixel centres at .5). */
struct shale_fs_plane {
   float a, b, c;
};

struct shale_fs_context {
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
   const void *push_constants;
   const uint32_t *cancel;       /* watchdog: nonzero stops the call; may be NULL */
   uint32_t view_index;
   uint32_t sample_count;            /* rasterizationSamples */
   float sample_positions[32][2];    /* in [0,1) within the pixel */
};

/* W/4 quads of 2x2 pixels, all of one primitive. Lane i belongs to quad
 * i / 4 and covers pixel (x[q] + (i & 1), y[q] + ((i >> 1) & 1)).
 * Derivatives come from lane neighbours: fine dFdx(v)[i] = v[i | 1] -
 * v[i & ~1], fine dFdy(v)[i] = v[i | 2] - v[i & ~2]; coarse ones use the
 * quad's lanes 0, 1 and 2 for all four lanes. A lane whose coverage is 0 is
 * a helper lane (HelperInvocation true): it runs so that derivatives exist,
 * but its stores and atomics are dropped and its outputs are ignored.
 * Quads past quad_count run as helpers.
 *
 * Per-sample shading (sample_id != ~0u): the call shades sample sample_id
 * of each pixel; coverage[i] has at most that sample's bit; SampleId is
 * sample_id, SamplePosition and FragCoord.xy use that sample's position, and
 * every SMOOTH / NOPERSPECTIVE input is evaluated there. Otherwise inputs
 * are evaluated at the pixel centre (x + .5, y + .5), or with
 * SHALE_INTERP_CENTROID at centroid[i] (the rasterizer's choice of a point
 * inside both pixel and primitive), or with SHALE_INTERP_SAMPLE (which
 * forces per-sample shading) at the sample.
 *
 * Inputs: planes[0] is window z (FragCoord.z, before depth bias), planes[1]
 * is 1/w (FragCoord.w); for input component k (Location l, Component c:
 * k = l * 4 + c; ClipDistance, CullDistance: SHALE_FS_CLIP_INPUT + ...)
 * planes[2 + k] is, by shale_fs_info.interp: SMOOTH: attr/w (the
 * compiled code multiplies by the reciprocal of planes[1] at the same
 * point, one reciprocal for every SMOOTH input); NOPERSPECTIVE: the
 * attribute; FLAT: a = b = 0, c = the provoking vertex's value bits
 * (reinterpret as the input's type). Components not read need no plane.
 * PointCoord is point_coord[2]'s planes (points only).
 *
 * Outputs: colour Location l component c for lane i at
 * outputs[(l * 4 + c) * W + i] as 32-bit bits of the output's type (float,
 * int or uint: integer attachments keep every bit); Location 0 Index 1
 * (dual-source blending) at Location 8, i.e. outputs[(32 + c) * W + i].
 * frag_depth[i] (FragDepth, when written) and sample_mask[i] (SampleMask
 * output, when written). On return, kill_mask has a bit set for each lane
 * that was discarded (OpKill, OpTerminateInvocation, demote).
 *
 * Speed only, not layout: the compiled shader loads x[0 .. W/4 - 1] with
 * one vector load, and y likewise, so a caller that has just written them
 * should write each array with one store (sr_tile.c); a load that spans
 * several narrower stores waits for them to reach the cache. */
#define SHALE_FS_OUTPUT_LOCATIONS 9
struct shale_fs_quads {
   uint32_t quad_count;              /* 1 .. W/4 */
   uint32_t front_facing;            /* FrontFacing, whole call */
   uint32_t primitive_id;            /* PrimitiveId */
   uint32_t layer;                   /* Layer */
   uint32_t viewport_index;          /* ViewportIndex */
   uint32_t sample_id;               /* ~0u unless shading per sample */
   uint32_t kill_mask;               /* out */
   int32_t x[SHALE_MAX_SIMD_WIDTH / 4], y[SHALE_MAX_SIMD_WIDTH / 4];
   uint32_t coverage[SHALE_MAX_SIMD_WIDTH];      /* SampleMaskIn per lane; 0: helper */
   float centroid[2][SHALE_MAX_SIMD_WIDTH];      /* window x, y per lane (CENTROID inputs) */
   const struct shale_fs_plane *planes;
   const struct shale_fs_plane *point_coord;     /* [2]: s, t; NULL unless points */
   uint32_t *outputs;                /* SHALE_FS_OUTPUT_LOCATIONS * 4 * W words */
   float *frag_depth;                /* W floats */
   uint32_t *sample_mask;            /* W words */
};

typedef void (*shale_fs_fn)(const struct shale_fs_context *ctx,
                            struct shale_fs_quads *quads);

/* ------------------------------------------------------------------------ */
/* Fragment back end (src/rasterizer/sr_raster.h, "The fragment back end")  */
/* ------------------------------------------------------------------------ */

/* The static state a compiled back-end routine is made for; filled by
 * sr_fragment_backend_key (memset first: compared and hashed as bytes).
 * An attachment with format 0 is not written. */
#define SHALE_FB_MAX_COLOR 8
struct shale_fb_attachment {
   uint32_t format;                  /* VkFormat; 0: not written */
   uint32_t blend;                   /* blending applies */
   uint32_t src_color, dst_color, src_alpha, dst_alpha;   /* VkBlendFactor */
   uint32_t color_op, alpha_op;      /* VkBlendOp */
   uint32_t write_mask;              /* VkColorComponentFlags */
   uint32_t logic_op;                /* VkLogicOp + 1 when a logic op applies, else 0 */
};

struct shale_fb_key {
   uint32_t width;                   /* W: lanes per call (the fragment shader's) */
   uint32_t samples;                 /* per pixel in the attachments */
   uint32_t alpha_to_one;
   uint32_t color_count;
   struct shale_fb_attachment color[SHALE_FB_MAX_COLOR];
};

/* The depth/stencil part, a routine of its own (shale_fb_ds_fn) keyed by
 * struct shale_fb_ds_key: formats (VkFormat, 0: no depth access / no
 * stencil test), the static depth and stencil state (per face: front,
 * back) and whether the call passes FragDepth. The stencil reference,
 * masks and depth bounds are dynamic: read from shale_fb_context. */
struct shale_fb_stencil_ops {
   uint32_t compare_op, fail_op, pass_op, depth_fail_op;   /* VkCompareOp, VkStencilOp */
};

struct shale_fb_ds_key {
   uint32_t width;                   /* W: lanes per call */
   uint32_t samples;
   uint32_t depth_format;            /* VkFormat of the depth attachment; 0: none */
   uint32_t stencil_format;          /* VkFormat of the stencil attachment; 0: no stencil test */
   uint32_t depth_test, depth_write, depth_compare, depth_bounds;
   uint32_t frag_depth;              /* the call's frag_depth is the depth tested */
   uint32_t depth_clamp;             /* FragDepth clamped to the primitive's range */
   struct shale_fb_stencil_ops stencil[2];
};

/* Run-time inputs of a back-end call: attachment memory (sample s of pixel
 * (x, y) of layer l at base + l * layer_pitch + y * row_pitch +
 * (x * samples + s) * texel size) and the dynamic state. */
struct shale_fb_target {
   uint8_t *base;
   uint64_t row_pitch, layer_pitch;
   float constants[4];               /* blend constants, clamped for the format */
};

/* A depth or stencil attachment (same addressing; a combined format's two
 * targets are the same memory). */
struct shale_fb_ds_target {
   uint8_t *base;
   uint64_t row_pitch, layer_pitch;
};

/* 8-bit sRGB encoding by buckets of floats sharing their 16 high bits:
 * from 2^-13 (below every threshold) to 1.0 (above all). */
#define SHALE_SRGB8_BUCKET_FIRST 0x3900u
#define SHALE_SRGB8_BUCKETS (0x3f80u - SHALE_SRGB8_BUCKET_FIRST)

struct shale_fb_context {
   struct shale_fb_target color[SHALE_FB_MAX_COLOR];
   const float *srgb_thresholds;     /* [255]: smallest float encoding to k + 1 */
   const float *srgb_decode;         /* [256]: 8-bit sRGB to linear */
   /* [SHALE_SRGB8_BUCKETS]: for the positive floats whose bits >> 16 are
    * SHALE_SRGB8_BUCKET_FIRST + i, how many thresholds are at or below the
    * first of them; at most one more threshold lies among them. */
   const uint32_t *srgb_buckets;
   /* Depth/stencil routines (shale_fb_ds_fn) only. */
   struct shale_fb_ds_target depth, stencil;
   const float (*sample_positions)[2];   /* [samples]: x, y within the pixel */
   float depth_bounds[2];            /* min, max (dynamic state) */
   uint32_t stencil_reference[2];    /* front, back (dynamic state) */
   uint32_t stencil_compare_mask[2];
   uint32_t stencil_write_mask[2];
};

/* Colour writes of W lanes: lane i's samples cov[i] at pixel (x[i], y[i])
 * of `layer` get the fragment shader's outputs (the layout of
 * shale_fs_quads.outputs, W lanes) blended, masked and packed. Covered
 * lanes are distinct pixels; a lane with cov[i] == 0 writes nothing, and
 * its (x[i], y[i]) may be any pixel, or none. Speed only, not layout: this
 * routine and the depth/stencil one (below) load the lane arrays x, y
 * and cov four lanes (16 bytes) at a time, so a caller that has just
 * written them should write them 16 bytes at a time too (sr_tile.c's
 * quad_lanes); a load that spans several narrower stores waits for them
 * to reach the cache.
 *
 * rows: the caller's promise that lane i is at (x[0] + 2 ((i / 4) & 1) +
 * (i & 1), y[0] + 2 (i / 8) + ((i >> 1) & 1)) (the quads of a block side
 * by side: W 4 one quad, W 8 two in a row, W 16 the whole block, quads in
 * the order (0, 0), (2, 0), (0, 2), (2, 2)) and covers every sample; the
 * routine then reads only x[0] and y[0] of the arrays (and writes the
 * same pixels as with rows 0). Version 18 added W 16. */
typedef void (*shale_fb_color_fn)(const struct shale_fb_context *ctx, uint32_t layer,
                                  const int32_t *x, const int32_t *y, const uint32_t *cov,
                                  const uint32_t *outputs, uint32_t rows);

/* The primitive a depth/stencil call tests: z(x, y) = a * x + b * y + c
 * at sample positions (computed in double, rounded to float, clamped to
 * [depth_min, depth_max]), and its facing (selects the stencil face). */
struct shale_fb_prim {
   struct shale_fs_plane z;
   float depth_min, depth_max;
   uint32_t front_facing;
};

/* Depth bounds, stencil and depth tests with their writes (the order and
 * arithmetic of the C reference, sr_fragment_depth_stencil) for W lanes:
 * lane i's samples cov[i] at pixel (x[i], y[i]) of `layer` (covered lanes
 * distinct pixels; a lane with cov[i] == 0 is not read or written, and its
 * (x[i], y[i]) may be any pixel, or none). cov[i] is replaced by the
 * samples that passed; returns how many samples passed in all (occlusion
 * queries). frag_depth: W floats (the key's frag_depth) or ignored.
 *
 * rows (0 or 1): the caller's promise that lane i is at (x[0] + (i & 3),
 * y[0] + (i >> 2)) (W / 4 rows of a 4x4 block, in the block's pixel
 * order); the routine then reads only x[0] and y[0] of the arrays (x and
 * y may point at one int32_t each). cov is read and written as with rows
 * 0. Version 17 added the argument. */
typedef uint32_t (*shale_fb_ds_fn)(const struct shale_fb_context *ctx,
                                   const struct shale_fb_prim *prim, uint32_t layer,
                                   const int32_t *x, const int32_t *y, uint32_t *cov,
                                   const float *frag_depth, uint32_t rows);

#ifdef __cplusplus
}
#endif

#endif
