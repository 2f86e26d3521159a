/*
 * Private to src/compiler/llvm_*.c: the SPIR-V -> LLVM IR translator state.
 *
 * Design note
 * -----------
 * Value model: a SPIR-V value is flattened into its scalar components
 * (vectors, matrix columns, array elements and struct members in order);
 * each component is an LLVM scalar when the value is uniform, or a W-lane
 * LLVM vector when it varies. Composite instructions only shuffle component
 * arrays. Pointers are not LLVM values: struct sc_ptr describes one (base,
 * byte offset, pointee type, layout) and is recomputed in each block that
 * uses it.
 *
 * Shapes: spirv-val leaves gaps (group operations take any operand type,
 * OpSpecConstantOp's operand sizes go unchecked), so the translator checks
 * what it reads. A value has exactly its type's component count (sc_set
 * refuses any other), and an instruction that reads components of an
 * operand gets it through sc_operand / sc_operand_like, which refuse a
 * value of too few components (a pointer or an empty struct has none) with
 * SC_ERROR_INVALID_SPIRV; no reader indexes past n.
 *
 * Control flow: blocks are emitted in sc_cfg order, each guarded by its lane
 * mask (OR of the masks of the edges into it, kept in a per-block stack
 * slot); a block none of whose lanes is active is skipped; each loop range
 * ends with "go back to the header while any lane took a back edge". Full
 * blocks (sc_cfg: only uniform branches decide whether they run) use the
 * entry mask and a scalar "reached" flag instead, and their uniform branches
 * pass scalar conditions, so uniform loops reach LLVM as ordinary counted
 * loops (unrolled, values in registers). Values
 * crossing blocks go through stack slots (sc_cfg.slot), which LLVM's SROA
 * turns back into SSA.
 *
 * Scalar code (W == 1, sc_cfg.scalar): nothing is varying, so every value
 * is an LLVM scalar and every block of a function with an exit is full;
 * code shared with the vector paths that still builds a one-lane vector (a
 * lane loop, a gather) has its result scalarised by sc_set. The invocation
 * ids are scalars of the call's index. LLVM's FastISel then selects most of
 * the code instead of SelectionDAG, which is what baseline code is for.
 *
 * Addresses: integer components may carry a linear form (base + lane *
 * stride, struct sc_lin) from the invocation ids through adds, multiplies
 * and access chains, so a[gl_GlobalInvocationID.x] becomes one masked vector
 * load instead of a gather, and a per-lane index that is the same for the
 * whole subgroup becomes one scalar access. A vector per lane whose lanes'
 * elements follow each other in a buffer (vec4 a[] indexed by the
 * invocation id) is loaded and stored as one block plus shuffles.
 *
 * Descriptors: an image, sampler or sampled-image value is one component,
 * the address of its descriptor record (a pointer, or W pointers when the
 * descriptor array is indexed per lane); image instructions load the
 * record's fields where they are used (llvm_image.c) and convert texels by
 * format (llvm_texel.c); sampling calls the record's sample_fn (llvm_sample.c).
 *
 * Math: 32-bit transcendentals are IR of their own (llvm_math.c), so they
 * run on whole vectors instead of one libm call per lane.
 *
 * Stages (llvm_stage.c): vertex, geometry, tessellation evaluation and
 * fragment entry points call the same body as compute (one "subgroup", no
 * barriers) with the batch or quads in place of the workgroup argument. A
 * geometry shader's lanes are primitives: its inputs are arrays over their
 * vertices, and OpEmitVertex stores the current outputs at each lane's own
 * vertex count (llvm_geom.c). A tessellation control shader is a compute
 * workgroup per patch whose outputs live in workgroup memory (llvm_tess.c). Stage inputs and outputs are per-lane
 * variables like Private ones, so access chains, dynamic indexing and
 * whole-value copies need nothing new: the init block fills the inputs and
 * the body's exit copies the outputs to their slots (SROA keeps them in
 * registers). Variables the function never touches are left out (no
 * slot written, no input read). Vertex lanes past the batch's count start
 * inactive. Fragment calls start with every lane active, helpers included
 * (derivatives need the whole quad): a "live" lane mask (covered, in a quad
 * of the call, not discarded or demoted) guards buffer and image writes and
 * atomics, discarding removes lanes from the control flow like a return
 * and records them in kill_mask, and derivatives shuffle lanes within
 * quads. Fragment inputs read their plane equations with loads marked
 * !invariant.load (the planes do not change during a call); after the
 * pass pipeline llvm_jit.c's sink_invariant_loads moves such a load whose
 * users all sit in one later block there, so a value used only after a
 * sampler call is loaded after it instead of spilled around it.
 *
 * Barriers: with more than one subgroup per workgroup the body is resumable
 * (llvm_entry.c): each barrier saves every persistent slot to the
 * subgroup's frame and returns; the entry switch resumes after it.
 *
 * Owns: everything in struct sc_xlate is freed by sc_xlate_finish; LLVM
 * objects belong to the LLVM module being built.
 * Threading: one translation per thread; LLVM contexts are not shared.
 */
#ifndef SC_LLVM_PRIVATE_H
#define SC_LLVM_PRIVATE_H

#include <stdarg.h>

#include <llvm-c/Core.h>

#include "sc_cfg.h"
#include "sc_layout.h"
#include "sc_llvm.h"

/* A varying integer component known to be base + lane * stride (base a
 * uniform scalar of the component's type): addresses built from it are
 * contiguous (or uniform when stride is 0). */
struct sc_lin {
   LLVMValueRef base;   /* NULL: not linear */
   int64_t stride;
};

struct sc_val {
   LLVMValueRef *c;
   uint32_t n;
   bool uniform;
   struct sc_lin *lin;  /* [n] for varying values, or NULL */
};

enum sc_ptr_kind {
   SC_PTR_MEM,         /* memory shared by all lanes (buffers, push constants, shared) */
   SC_PTR_LANE,        /* per-lane memory: Function / Private, lane-interleaved */
   SC_PTR_BUILTIN,     /* an input built-in */
   SC_PTR_BINDINGS,    /* an array of descriptors not indexed yet */
   SC_PTR_DESCRIPTOR,  /* an image / sampler descriptor: base is its record */
};

struct sc_ptr {
   uint8_t kind;
   bool base_varying;
   bool offset_varying;
   bool row_major;        /* matrix layout inherited from a struct member */
   bool in_row_major;     /* a vector that is a row-major matrix column */
   uint32_t storage;      /* SpvStorageClass */
   uint32_t type;         /* pointee type id */
   uint32_t mat_stride;
   LLVMValueRef base;     /* ptr, or <W x ptr> when base_varying */
   LLVMValueRef offset;   /* i32, or <W x i32> when offset_varying */
   LLVMValueRef range;    /* i32 bytes valid from base (MEM), NULL if unchecked */
   LLVMValueRef valid;    /* <W x i1> lanes whose base is valid (image texels), or NULL */
   uint32_t limit;        /* LANE/shared: bytes per lane of the variable, clamps offsets */
   LLVMValueRef lin_base; /* varying offset = lin_base + lane * lin_stride, if set */
   int64_t lin_stride;
   uint32_t builtin;      /* BUILTIN */
   uint32_t var;          /* variable id */
   uint32_t set, binding, first_record;   /* BINDINGS */
   uint32_t binding_use;  /* index into x->bindings or SC_NONE */
};

/* cache_seg of things valid in every segment (constants, variables). */
#define SC_EVERYWHERE (UINT32_MAX - 1)

struct sc_idinfo {
   uint32_t cache_seg;    /* segment whose emission cached val/ptr; SC_NONE if none */
   struct sc_val val;
   struct sc_ptr *ptr;
   LLVMValueRef *slots;   /* cross-block storage, per component */
   LLVMValueRef *lin_slots; /* linear bases of the components, or NULL */
   int64_t *lin_strides;
   LLVMValueRef *phi_in;  /* incoming-value storage of a phi, per component */
   LLVMValueRef *ptr_slots; /* a variable pointer's parts held by a Function / Private
                             * variable or read from one (OpLoad) */
   LLVMValueRef lane_var; /* Function/Private variable storage */
   /* A tessellation shader's input: one copy for all lanes (the patch's),
    * in the patch block at shared_offset (control) or at lane_var, a
    * stack slot of its size (evaluation). */
   bool patch_input;
   /* A tessellation control shader's output: in the patch block at
    * shared_offset. */
   bool patch_output;
};

struct sc_arena_chunk;
struct sc_stage_var;

/* A barrier's suspend and resume points (filled in when translation ends,
 * once every persistent slot is known). */
struct sc_resume {
   LLVMBasicBlockRef save;     /* spills the slots, returns the resume index */
   LLVMBasicBlockRef resume;   /* reloads the slots, continues at cont */
   LLVMBasicBlockRef cont;
};

struct sc_xlate {
   const struct sc_module *m;
   const struct sc_cfg *cfg;
   const struct sc_function *f;
   const struct sc_compile_info *info;
   uint32_t model;          /* SpvExecutionModel */
   uint32_t W;

   LLVMContextRef ctx;
   LLVMModuleRef mod;
   LLVMBuilderRef b;
   LLVMBuilderRef eb;       /* positioned before the entry block's terminator */
   LLVMValueRef fn;
   LLVMBasicBlockRef entry;
   LLVMValueRef arg_ctx, arg_wg, arg_sg;

   LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_f32, t_f64, t_ptr;
   LLVMValueRef lane_ids;   /* <W x i32> 0 .. W-1 */
   LLVMValueRef mask;       /* <W x i1> active lanes of the current block */
   uint32_t block;          /* block being emitted */
   uint32_t seg;            /* cache key of the segment being emitted */
   uint32_t nseg;

   /* Barriers (more than one subgroup): the body is resumable. */
   bool barrier_mode;
   LLVMValueRef arg_frame, arg_resume;
   /* Watchdog polls (shader_abi.h "Cancellation"): an i32 count of loop
    * headers reached in this call, and the block that returns at once. */
   LLVMValueRef poll_count;
   LLVMBasicBlockRef cancelled;
   LLVMBuilderRef ib;       /* the init block: runs on first entry only */
   LLVMBasicBlockRef init;
   LLVMValueRef *persist;   /* stack slots saved and restored at barriers */
   uint32_t npersist, cap_persist;
   struct sc_resume *resumes;
   uint32_t nresumes, cap_resumes;
   LLVMValueRef cur_mask;   /* slot holding the mask across a barrier */
   uint32_t lane_frame_size;   /* bytes of per-lane variables at the frame start */
   uint32_t lane_bytes;     /* bytes of per-lane variables in all */
   uint32_t lane_stack_bytes;  /* of which on the stack */
   uint32_t frame_size;

   struct sc_idinfo *ids;   /* [bound] */
   LLVMValueRef *inmask;    /* [nblocks] <W x i1> slots (blocks that are not full) */
   LLVMValueRef *reach;     /* [nblocks] i1 "reached" slots of full blocks (sc_cfg), NULL
                             * for those only ever jumped to directly (uniform edges) */
   LLVMValueRef entry_mask; /* <W x i1> lanes that entered: the mask of full blocks */
   LLVMBasicBlockRef *bb_head;   /* [nblocks] mask check of each block */
   LLVMBasicBlockRef *bb_body;   /* [nblocks] its code; full blocks jump here directly */
   struct sc_val *builtin_cache[64];
   LLVMValueRef zero_page;  /* global of zeros for out-of-range loads */
   LLVMValueRef atomic_tmp; /* <W x i64> slot for per-lane atomic results */

   uint32_t local_size[3];
   uint32_t subgroups;
   uint32_t shared_size;
   uint32_t push_size;
   struct sc_binding_use *bindings;
   uint32_t nbindings, cap_bindings;
   uint32_t *shared_offset; /* [bound] Workgroup variable offsets */

   /* Vertex and fragment stages (llvm_stage.c). */
   const struct sc_entry_point *ep;
   union {
      struct shale_vs_info vs;
      struct shale_gs_info gs;   /* its `out` is vs */
      struct shale_fs_info fs;
      struct shale_tcs_info tcs;
      struct shale_tes_info tes; /* its `out` is vs */
   } io;
   struct sc_stage_var *stage_vars;   /* inputs and outputs in per-lane variables */
   uint32_t nstage_vars;
   LLVMValueRef live_slot;  /* fragment: <W x i1> lanes whose stores count (not helpers) */
   LLVMValueRef kill_slot;  /* fragment: <W x i1> lanes discarded or demoted */
   LLVMValueRef frag_pos[2];   /* fragment: per-lane x, y where inputs are evaluated */
   LLVMValueRef frag_centroid[2];   /* ... and where CENTROID inputs are */
   LLVMValueRef frag_sample[2];     /* SamplePosition (uniform) */
   LLVMValueRef frag_w[2];   /* 1 / the 1/w plane at frag_pos, at frag_centroid (entry
                              * block, built at the first SMOOTH input of each) */
   /* Geometry (llvm_geom.c): output word (slot * 4 + c) -> index + 1 in
    * io.gs.out_word (0: not written), and the <W x i1> lanes whose next
    * emitted vertex starts a strip. */
   uint16_t *gs_word;
   LLVMValueRef gs_cut_slot;

   struct sc_arena_chunk *arena;
   enum sc_result err;
   char *message;
   size_t message_size;
};

/* llvm_translate.c: values, constants, lane masks, structured control flow. */
/* Zeroed memory that lives until sc_xlate_finish (sc_arena_free). */
void *sc_alloc(struct sc_xlate *x, size_t size);
void sc_arena_free(struct sc_xlate *x);
bool sc_fail(struct sc_xlate *x, enum sc_result r, const char *fmt, ...)
   __attribute__((format(printf, 3, 4)));
struct sc_val sc_new_val(struct sc_xlate *x, uint32_t n, bool uniform);
const struct sc_val *sc_get(struct sc_xlate *x, uint32_t id);
/* The one shape check of an operand whose components an instruction reads:
 * sc_get's value when it has between min and max components (max SC_ANY:
 * no bound), else NULL with SC_ERROR_INVALID_SPIRV. spirv-val leaves gaps
 * (a pointer or an empty struct where a group operation's predicate goes,
 * say: no components at all), so every reader of c[0], or of c[i] for i
 * bounded by another operand's or the result's size, takes its operands
 * through this or sc_operand_like rather than through sc_get. */
#define SC_ANY UINT32_MAX
const struct sc_val *sc_operand(struct sc_xlate *x, uint32_t id, uint32_t min, uint32_t max);
/* An operand applied component by component to a value of n components,
 * or a scalar broadcast to all of them: 1 or n components. */
const struct sc_val *sc_operand_like(struct sc_xlate *x, uint32_t id, uint32_t n);
/* Sets id's value; refuses (SC_ERROR_INVALID_SPIRV) one whose component
 * count is not its type's, so a reader may trust a value's shape to be its
 * type's. */
bool sc_set(struct sc_xlate *x, uint32_t id, struct sc_val v);
LLVMTypeRef sc_vec_type(struct sc_xlate *x, LLVMTypeRef scalar);
LLVMValueRef sc_splat(struct sc_xlate *x, LLVMValueRef scalar);
/* Whether v is a vector (per-lane) value, and the type of one lane of it
 * (its own type when scalar). */
static inline bool
sc_is_vec(LLVMValueRef v)
{
   return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind;
}
static inline LLVMTypeRef
sc_scalar_of(LLVMValueRef v)
{
   LLVMTypeRef t = LLVMTypeOf(v);
   return sc_is_vec(v) ? LLVMGetElementType(t) : t;
}
LLVMValueRef sc_comp(struct sc_xlate *x, const struct sc_val *v, uint32_t i, bool vec);
void sc_make_varying(struct sc_xlate *x, struct sc_val *v);
/* Linear form of component i of v (uniform values: stride 0), or false. */
bool sc_lin_of(const struct sc_val *v, uint32_t i, struct sc_lin *out);
/* Records a linear form for component i of the varying value v. */
void sc_set_lin(struct sc_xlate *x, struct sc_val *v, uint32_t i, LLVMValueRef base,
                int64_t stride);
LLVMTypeRef sc_llvm_scalar(struct sc_xlate *x, uint32_t scalar_type_id);
uint32_t sc_scalar_at(struct sc_xlate *x, uint32_t type_id, uint32_t index);
uint32_t sc_ncomp(struct sc_xlate *x, uint32_t type_id);
LLVMValueRef sc_intrinsic(struct sc_xlate *x, const char *name, LLVMTypeRef *overload,
                          unsigned noverload, LLVMValueRef *args, unsigned nargs);
LLVMValueRef sc_any(struct sc_xlate *x, LLVMValueRef mask);

/* A loop over the lanes of a mask, lowest lane first, for work that takes
 * one scalar per call (per-lane atomics, calls per distinct descriptor or
 * format). sc_lane_loop_begin leaves the builder in the body with `lane`
 * (i32) the lowest pending lane and `pending` the lanes not handled yet;
 * the body handles a group of lanes that includes `lane` and ends with
 * sc_lane_loop_end(group), which retires the group and leaves the builder
 * after the loop. */
struct sc_lane_loop {
   LLVMValueRef slot;        /* <W x i1>: lanes not handled yet */
   LLVMValueRef pending;     /* its value in this iteration */
   LLVMValueRef lane;
   LLVMBasicBlockRef head, done;
};
void sc_lane_loop_begin(struct sc_xlate *x, struct sc_lane_loop *l, LLVMValueRef mask);
/* The pending lanes whose component of v equals lane's (returned in *value). */
LLVMValueRef sc_lane_loop_same(struct sc_xlate *x, const struct sc_lane_loop *l, LLVMValueRef v,
                               LLVMValueRef *value);
void sc_lane_loop_end(struct sc_xlate *x, struct sc_lane_loop *l, LLVMValueRef group);
LLVMValueRef sc_const_i32(struct sc_xlate *x, uint32_t v);
LLVMValueRef sc_entry_alloca(struct sc_xlate *x, LLVMTypeRef type, uint32_t align);
/* A zero-initialized stack slot whose contents live across barriers. */
LLVMValueRef sc_persistent_alloca(struct sc_xlate *x, LLVMTypeRef type, uint32_t align);
/* OpControlBarrier with workgroup execution scope (llvm_entry.c). */
bool sc_emit_barrier(struct sc_xlate *x);
LLVMValueRef sc_ctx_field(struct sc_xlate *x, LLVMValueRef base, uint32_t offset,
                          LLVMTypeRef type);

/* Emits block order[pos] (then branches to next). */
bool sc_emit_block(struct sc_xlate *x, uint32_t pos, LLVMBasicBlockRef next);

/* llvm_entry.c: the body function, the compute entry point, barriers. */
enum sc_result sc_translate(struct sc_xlate *x, const struct sc_entry_point *ep,
                            const char *name);
void sc_xlate_finish(struct sc_xlate *x);
/* Attributes of every function we generate (vector width, nounwind). */
void sc_set_function_attrs(struct sc_xlate *x, LLVMValueRef fn);
/* Broadcast with an explicit builder (entry-block code uses x->eb). */
LLVMValueRef sc_splat_with(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef scalar);

/* llvm_ops.c: arithmetic, logic, conversions, composites. */
bool sc_emit_op(struct sc_xlate *x, const struct sc_inst *inst, bool *handled);
/* The value of an OpSpecConstantOp from its constant operands (n components). */
bool sc_const_spec_op(struct sc_xlate *x, const struct sc_inst *d, LLVMValueRef *out, uint32_t n);
/* Lane-wise call of a scalar libm function (e.g. "tanf"). */
LLVMValueRef sc_libm(struct sc_xlate *x, const char *name, LLVMValueRef *args,
                     unsigned nargs, LLVMTypeRef type);

/* llvm_math.c: GLSL.std.450 transcendental op (Sin ... Pow; b is Atan2's
 * x or Pow's y) on 32-bit float a, scalar or W lanes, in IR; NULL when a is
 * not 32-bit float or op is not one of them. */
LLVMValueRef sc_math_f32(struct sc_xlate *x, uint32_t op, LLVMValueRef a, LLVMValueRef b);

/* llvm_glsl.c: GLSL.std.450. */
bool sc_emit_glsl(struct sc_xlate *x, const struct sc_inst *inst);
/* llvm_glsl_float.c: Modf, Frexp (and Struct forms), Ldexp, Determinant,
 * MatrixInverse, PackDouble2x32, UnpackDouble2x32. */
bool sc_emit_glsl_float(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op);

/* Lane addresses of a component at rel bytes past a pointer, and the lanes
 * allowed to access it (active, in range). */
struct sc_access {
   bool scalar;           /* one address for all lanes */
   bool contiguous;       /* lane i at addr + i * size: a vector access */
   LLVMValueRef addr;     /* ptr or <W x ptr> */
   LLVMValueRef mask;     /* <W x i1> lanes that may access, or i1 for scalar */
};

/* llvm_memory.c: variables, pointers, loads, stores. */
bool sc_memory_init(struct sc_xlate *x);
bool sc_emit_memory(struct sc_xlate *x, const struct sc_inst *inst, bool *handled);
const struct sc_ptr *sc_get_ptr(struct sc_xlate *x, uint32_t id);
/* Variable pointers: storage-buffer pointers that OpSelect and OpPhi merge,
 * kept as base, offset and range (W lanes each when `lanes`). */
bool sc_ptr_is_variable(struct sc_xlate *x, const struct sc_ptr *p);
void sc_ptr_mark_written(struct sc_xlate *x, const struct sc_ptr *p);
void sc_ptr_parts(struct sc_xlate *x, const struct sc_ptr *p, bool lanes, LLVMValueRef out[3]);
void sc_ptr_from_parts(struct sc_xlate *x, struct sc_ptr *p, uint32_t type, bool lanes,
                       LLVMValueRef parts[3]);
/* llvm_translate.c: a pointer OpPhi's value read from its incoming storage. */
bool sc_phi_ptr(struct sc_xlate *x, const struct sc_inst *phi, struct sc_ptr *p);
bool sc_store_value(struct sc_xlate *x, const struct sc_ptr *p, const struct sc_val *v);
struct sc_access sc_address(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel,
                            uint32_t bytes, bool vector_ok);

/* llvm_subgroup.c: subgroup instructions; *handled false for others. */
bool sc_emit_subgroup(struct sc_xlate *x, const struct sc_inst *inst, bool *handled);

/* llvm_atomic.c */
bool sc_emit_atomic(struct sc_xlate *x, const struct sc_inst *inst);

/* llvm_image.c: image and texel buffer instructions (storage images, texel
 * buffers, queries) on descriptor records (shader_abi.h). */
bool sc_emit_image(struct sc_xlate *x, const struct sc_inst *inst, bool *handled);
/* The descriptor type a variable of (array of) type_id binds to, or
 * VK_DESCRIPTOR_TYPE_MAX_ENUM when it is not an image or sampler. */
VkDescriptorType sc_image_descriptor_type(struct sc_xlate *x, uint32_t type_id);
/* OpImageTexelPointer: a per-lane pointer to a texel of a storage image or
 * texel buffer (for atomics); lanes out of bounds are cleared in p->valid. */
bool sc_image_texel_pointer(struct sc_xlate *x, const struct sc_inst *inst, struct sc_ptr *p);

/* llvm_sample.c: sampled-image instructions (explicit LOD, fetch, gather;
 * implicit LOD in fragment shaders, as gradients from the quad), each one
 * call through the descriptor record's sample_fn (sr_sample). */
bool sc_emit_sample(struct sc_xlate *x, const struct sc_inst *inst);

/* llvm_texel.c: texel format conversion. Texels at addr (ptr, or <W x ptr>
 * with the lane mask <W x i1>; mask is i1 for a single address) in format f,
 * or, with f NULL, in the run-time VkFormat fmt (i32 or <W x i32>) among the
 * formats of sc_format.h of the same class (integer or not). Components are
 * 32-bit integers: float bits for float formats. extend: 0 by the format,
 * 1 sign-extend, 2 zero-extend (SPIR-V SignExtend / ZeroExtend). */
struct sc_texel_format;
void sc_texel_load(struct sc_xlate *x, const struct sc_texel_format *f, LLVMValueRef fmt,
                   bool integer, int extend, LLVMValueRef addr, LLVMValueRef mask,
                   LLVMValueRef out[4]);
void sc_texel_store(struct sc_xlate *x, const struct sc_texel_format *f, LLVMValueRef fmt,
                    bool integer, LLVMValueRef addr, LLVMValueRef mask, LLVMValueRef in[4]);

/* llvm_stage.c: the window pixel (x, y) of each fragment lane and the
 * layer (ViewIndex), <W x i32>, computed in the entry block; where a
 * subpass input (SubpassData) reads. */
bool sc_fragment_pixel(struct sc_xlate *x, LLVMValueRef out[3]);

/* llvm_builtin.c: the value of an input built-in (entry block). */
bool sc_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out);

/* llvm_memory.c: loads a whole value of type through p. */
bool sc_load_value(struct sc_xlate *x, const struct sc_ptr *p, uint32_t type, struct sc_val *out);

/* The entry point's OpExecutionMode instructions (those with a mode word),
 * one at a time: the next at or after instruction *i, *i moved past it;
 * NULL after the last. inst->w[2] is the mode, w[3] its first operand
 * where nwords > 3. */
static inline const struct sc_inst *
sc_next_exec_mode(const struct sc_xlate *x, uint32_t *i)
{
   const struct sc_module *m = x->m;
   while (*i < m->ninsts) {
      const struct sc_inst *inst = &m->insts[(*i)++];
      if (inst->opcode == 16 /* SpvOpExecutionMode */ && inst->nwords >= 3 &&
          inst->w[1] == x->ep->function)
         return inst;
   }
   return NULL;
}

/* llvm_stage.c: vertex and fragment stages. */
static inline bool
sc_is_graphics(const struct sc_xlate *x)
{
   return x->model == 0 /* Vertex */ || x->model == 2 /* TessellationEvaluation */ ||
          x->model == 3 /* Geometry */ || x->model == 4 /* Fragment */;
}
/* Stages with stage inputs and outputs: the graphics ones and the
 * tessellation control shader (a compute-like workgroup per patch). */
static inline bool
sc_has_stage_io(const struct sc_xlate *x)
{
   return sc_is_graphics(x) || x->model == 1 /* TessellationControl */;
}
/* Whether id is in the entry point's interface list (OpEntryPoint's ids
 * after the name: its Input and Output variables, and from SPIR-V 1.4 every
 * global it uses). */
bool sc_stage_in_interface(struct sc_xlate *x, uint32_t id);
/* Whether a global variable lives in per-lane storage as a stage input or
 * output (user Locations; outputs, built-in ones included). */
bool sc_stage_lane_variable(struct sc_xlate *x, const struct sc_inst *var);
/* Whether a global variable is a tessellation control shader's output,
 * kept in the patch block (workgroup memory); records it. */
bool sc_stage_patch_variable(struct sc_xlate *x, const struct sc_inst *var);
/* A pointer to the byte at offset in the struct at base, and a load of a
 * field there (context and batch fields; the geometry stage uses them too). */
LLVMValueRef sc_field_ptr(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef base, size_t offset);
LLVMValueRef sc_load_field(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef base, size_t offset,
                           LLVMTypeRef type, unsigned align);
/* The lanes a vertex or fragment call starts with (entry block). */
LLVMValueRef sc_stage_entry_mask(struct sc_xlate *x);
/* Fills the input variables (init block); copies the outputs out (at the
 * body's exit, x->b positioned there). */
bool sc_stage_prologue(struct sc_xlate *x);
bool sc_stage_epilogue(struct sc_xlate *x);
/* void name(ctx, batch or quads): calls the body. */
bool sc_stage_build_entry(struct sc_xlate *x, const char *name);
/* Built-ins of the vertex and fragment stages (entry block). */
bool sc_stage_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out);
/* Fragment instructions (demote, derivatives); *handled false for others. */
bool sc_emit_stage(struct sc_xlate *x, const struct sc_inst *inst, bool *handled);
/* Geometry shaders: calls fn for each output component that goes to a
 * varying slot word d (slot * 4 + c), with its transform feedback place
 * (xfb_offset 0xffff: not captured) and, when load is set, its current
 * value as W lanes of 32-bit bits (else NULL). */
typedef bool (*sc_output_fn)(struct sc_xlate *x, uint32_t d, LLVMValueRef bits,
                             uint32_t xfb_buffer, uint32_t xfb_offset, void *data);
bool sc_stage_for_outputs(struct sc_xlate *x, bool load, sc_output_fn fn, void *data);
/* llvm_geom.c: the geometry stage. Execution modes and the output word
 * table (end of the prologue), the built-ins InvocationId and
 * PrimitiveId, OpEmitVertex / OpEndPrimitive, the end of the body. */
bool sc_geom_prologue(struct sc_xlate *x);
bool sc_geom_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out);
bool sc_geom_emit(struct sc_xlate *x, const struct sc_inst *inst);
bool sc_geom_epilogue(struct sc_xlate *x);
/* llvm_tess.c: the tessellation stages' execution modes (before the body:
 * OutputVertices sizes the control shader's workgroup) and built-ins. */
bool sc_tess_modes(struct sc_xlate *x);
bool sc_tess_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out);
/* OpKill / OpTerminateInvocation: the block's lanes are discarded. */
bool sc_stage_kill(struct sc_xlate *x);
/* Fragment shaders: how an instruction that writes memory is kept from
 * helper lanes: 0 it writes none (or not a fragment shader), 1 through the
 * lane mask (atomics), 2 only when some active lane is not a helper (the
 * caller branches around it: uniform stores ignore the lane mask). */
int sc_stage_guard(struct sc_xlate *x, const struct sc_inst *inst);
/* The active lanes that are not helpers. */
LLVMValueRef sc_stage_live_mask(struct sc_xlate *x);
/* d/dx (or d/dy) of a W-lane float vector from the quads' lanes, for
 * implicit-LOD image instructions: coarse, as OpDPdxCoarse / OpDPdyCoarse
 * take it (lane 1 - lane 0, lane 2 - lane 0 of the quad, the same on its
 * four lanes), so a quad samples with one LOD (the spec's Derivative Image
 * Operations take them as OpDPdx / OpDPdy, which may be either fine or
 * coarse); marks the shader as using derivatives. */
LLVMValueRef sc_stage_derivative(struct sc_xlate *x, LLVMValueRef v, bool dy);

/* The fragment back end (llvm_backend.c): whether key is within what is
 * compiled, and its routine built into mod as function `symbol`. */
bool sc_backend_supported(const struct shale_fb_key *key);
enum sc_result sc_backend_build(LLVMContextRef ctx, LLVMModuleRef mod,
                                const struct shale_fb_key *key, const char *symbol,
                                char *message, size_t message_size);
/* Likewise the depth/stencil routine of a depth/stencil key. */
bool sc_backend_ds_supported(const struct shale_fb_ds_key *key);
enum sc_result sc_backend_build_ds(LLVMContextRef ctx, LLVMModuleRef mod,
                                   const struct shale_fb_ds_key *key, const char *symbol,
                                   char *message, size_t message_size);

#endif
