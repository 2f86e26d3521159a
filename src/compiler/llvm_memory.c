/* Variables, descriptors, access chains, loads and stores for the SPMD
 * translator (per-lane, contiguous, uniform or gathered accesses). */
#include "llvm_private.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

/* Limits on memory we lay out: private variables of one subgroup (on the
 * stack or in its frame) and Workgroup memory. */
#define SC_MAX_LANE_BYTES (512u * 1024u)
#define SC_MAX_SHARED_SIZE (1024u * 1024u)
/* Per-lane variables beyond this many bytes go to scratch memory rather
 * than the stack. */
#define SC_MAX_STACK_LANE_BYTES (16u * 1024u)
/* With barriers: largest per-lane variable (all lanes) copied at each barrier. */
#define SC_MAX_PERSIST_LANE_BYTES 2048u

static uint32_t
scalar_bytes(struct sc_xlate *x, uint32_t scalar_type)
{
   const struct sc_type *t = sc_module_type(x->m, scalar_type);
   if (!t || t->kind == SC_T_BOOL)
      return 4;
   return t->width / 8;
}

static LLVMValueRef
gep8(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef base, LLVMValueRef offset)
{
   return LLVMBuildGEP2(b, x->t_i8, base, &offset, 1, "");
}

static LLVMValueRef
to_i32(struct sc_xlate *x, LLVMValueRef v)
{
   LLVMTypeRef t = LLVMTypeOf(v);
   LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
   unsigned w = LLVMGetIntTypeWidth(et);
   if (w == 32)
      return v;
   LLVMTypeRef dt = et == t ? x->t_i32 : sc_vec_type(x, x->t_i32);
   return w > 32 ? LLVMBuildTrunc(x->b, v, dt, "") : LLVMBuildSExt(x->b, v, dt, "");
}

static LLVMValueRef
zext64(struct sc_xlate *x, LLVMValueRef v)
{
   LLVMTypeRef t = LLVMTypeOf(v);
   bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
   return LLVMBuildZExt(x->b, v, vec ? sc_vec_type(x, x->t_i64) : x->t_i64, "");
}

/* ------------------------------------------------------------------------ */
/* Variables                                                                 */
/* ------------------------------------------------------------------------ */

static uint32_t
add_binding(struct sc_xlate *x, uint32_t set, uint32_t binding, uint32_t array_size,
            VkDescriptorType type)
{
   for (uint32_t i = 0; i < x->nbindings; i++)
      if (x->bindings[i].set == set && x->bindings[i].binding == binding)
         return i;
   if (x->nbindings == x->cap_bindings) {
      uint32_t cap = x->cap_bindings ? x->cap_bindings * 2 : 8;
      void *p = realloc(x->bindings, cap * sizeof(*x->bindings));
      if (!p) {
         sc_fail(x, SC_ERROR_OUT_OF_MEMORY, "out of memory");
         return SC_NONE;
      }
      x->bindings = p;
      x->cap_bindings = cap;
   }
   struct sc_binding_use *u = &x->bindings[x->nbindings];
   memset(u, 0, sizeof(*u));
   u->set = set;
   u->binding = binding;
   u->array_size = array_size;
   u->type = type;
   return x->nbindings++;
}

static uint32_t
first_record(struct sc_xlate *x, uint32_t set, uint32_t binding)
{
   const struct sc_compile_info *info = x->info;
   if (info->set_layouts && set < info->set_layout_count) {
      const struct sc_set_layout *l = &info->set_layouts[set];
      if (l->bindings && binding < l->binding_count)
         return l->bindings[binding].first_record;
   }
   return binding;
}

/* Loads base and range of a buffer record at rec (entry block or current). */
static void
load_buffer_record(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef rec, LLVMValueRef *base,
                   LLVMValueRef *range)
{
   *base = LLVMBuildLoad2(b, x->t_ptr, rec, "");
   LLVMSetAlignment(*base, 8);
   LLVMValueRef off = LLVMConstInt(x->t_i64, offsetof(struct shale_buffer_descriptor, range), false);
   LLVMValueRef rp = LLVMBuildGEP2(b, x->t_i8, rec, &off, 1, "");
   LLVMValueRef r = LLVMBuildLoad2(b, x->t_i64, rp, "");
   LLVMSetAlignment(r, 8);
   LLVMValueRef max = LLVMConstInt(x->t_i64, UINT32_MAX, false);
   LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, r, max, "");
   r = LLVMBuildSelect(b, big, max, r, "");
   *range = LLVMBuildTrunc(b, r, x->t_i32, "");
}

/* Records a descriptor variable's binding (its set and binding
 * decorations, array size, kind) in p and sets *rec to the address of its
 * first record in the set, or to NULL for a descriptor array, which p then
 * points at as a whole (SC_PTR_BINDINGS; access chains pick the record). */
static bool
bind_descriptor(struct sc_xlate *x, struct sc_ptr *p, uint32_t id, VkDescriptorType type,
                LLVMValueRef *rec)
{
   const struct sc_module *m = x->m;
   uint32_t set, binding;
   *rec = NULL;
   if (!sc_module_decoration(m, id, SC_NONE, SpvDecorationDescriptorSet, &set) ||
       !sc_module_decoration(m, id, SC_NONE, SpvDecorationBinding, &binding))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "descriptor without set/binding");
   if (set >= SHALE_MAX_DESCRIPTOR_SETS)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "descriptor set %u", set);
   const struct sc_type *t = sc_module_type(m, p->type);
   bool arrayed = t && (t->kind == SC_T_ARRAY || t->kind == SC_T_RUNTIME_ARRAY);
   uint32_t count = !arrayed ? 1 : t->kind == SC_T_ARRAY ? t->count : 0;
   p->binding_use = add_binding(x, set, binding, count, type);
   if (p->binding_use == SC_NONE)
      return false;
   p->set = set;
   p->binding = binding;
   p->first_record = first_record(x, set, binding);
   LLVMValueRef setp = sc_ctx_field(x, x->arg_ctx, 8 * set, x->t_ptr);
   LLVMSetAlignment(setp, 8);
   if (arrayed) {
      p->kind = SC_PTR_BINDINGS;
      p->base = setp;
      return true;
   }
   *rec = gep8(x, x->eb, setp,
               LLVMConstInt(x->t_i64, (uint64_t)p->first_record * SHALE_DESCRIPTOR_SIZE, false));
   return true;
}

static bool
var_ptr(struct sc_xlate *x, const struct sc_inst *var, struct sc_ptr *p)
{
   const struct sc_module *m = x->m;
   const struct sc_type *pt = sc_module_type(m, var->type_id);
   if (!pt || pt->kind != SC_T_POINTER)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "variable without a pointer type");
   memset(p, 0, sizeof(*p));
   p->storage = var->w[3];
   p->type = pt->elem;
   p->var = var->result_id;
   p->binding_use = SC_NONE;
   p->offset = sc_const_i32(x, 0);
   uint32_t id = var->result_id;
   uint32_t size, align;
   sc_layout_size_align(m, p->type, &size, &align);

   if (x->ids[id].patch_input) {
      /* A tessellation input (sc_memory_init): memory shared by all lanes. */
      p->kind = SC_PTR_MEM;
      p->limit = size;
      if (x->ids[id].lane_var) {
         p->base = x->ids[id].lane_var;
      } else {
         LLVMValueRef shared = sc_ctx_field(x, x->arg_wg,
                                            offsetof(struct shale_cs_workgroup, shared_memory),
                                            x->t_ptr);
         LLVMSetAlignment(shared, 8);
         p->base = gep8(x, x->eb, shared, LLVMConstInt(x->t_i64, x->shared_offset[id], false));
      }
      return true;
   }
   if ((p->storage == SpvStorageClassInput || p->storage == SpvStorageClassOutput) &&
       x->ids[id].lane_var) {
      /* A vertex or fragment input or output (llvm_stage.c). */
      p->kind = SC_PTR_LANE;
      p->base = x->ids[id].lane_var;
      p->limit = size;
      return true;
   }
   switch (p->storage) {
   case SpvStorageClassStorageBuffer:
   case SpvStorageClassUniform: {
      const struct sc_type *t = sc_module_type(m, p->type);
      bool arrayed = t && (t->kind == SC_T_ARRAY || t->kind == SC_T_RUNTIME_ARRAY);
      uint32_t block_type = arrayed ? t->elem : p->type;
      bool ssbo = p->storage == SpvStorageClassStorageBuffer ||
                  sc_module_decoration(m, block_type, SC_NONE, SpvDecorationBufferBlock, NULL);
      LLVMValueRef rec;
      if (!bind_descriptor(x, p, id,
                           ssbo ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                : VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &rec))
         return false;
      if (!rec)
         return true;   /* an array of buffers */
      p->kind = SC_PTR_MEM;
      load_buffer_record(x, x->eb, rec, &p->base, &p->range);
      return true;
   }
   case SpvStorageClassUniformConstant: {
      /* Images, samplers, texel buffers: records of the set. */
      VkDescriptorType type = sc_image_descriptor_type(x, p->type);
      if (type == VK_DESCRIPTOR_TYPE_MAX_ENUM)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported UniformConstant variable");
      LLVMValueRef rec;
      if (!bind_descriptor(x, p, id, type, &rec))
         return false;
      if (!rec)
         return true;   /* an array of descriptors */
      p->kind = SC_PTR_DESCRIPTOR;
      p->base = rec;
      return true;
   }
   case SpvStorageClassPushConstant:
      p->kind = SC_PTR_MEM;
      p->base = sc_ctx_field(x, x->arg_ctx, offsetof(struct shale_cs_context, push_constants),
                             x->t_ptr);
      LLVMSetAlignment(p->base, 8);
      p->limit = SHALE_MAX_PUSH_CONSTANTS_SIZE;
      /* The block's extent: its last member's end, without the padding to
       * the block's alignment that the size includes (a push-constant
       * range need not cover it). */
      if (sc_module_type(m, p->type) && sc_module_type(m, p->type)->kind == SC_T_STRUCT) {
         const struct sc_type *st = sc_module_type(m, p->type);
         size = 0;
         for (uint32_t i = 0; i < st->count; i++) {
            uint32_t ms, ma;
            sc_layout_size_align(m, st->members[i], &ms, &ma);
            uint64_t end = (uint64_t)sc_layout_member_offset(m, p->type, i) + ms;
            if (end > size)
               size = end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
         }
      }
      if (size > x->push_size)
         x->push_size = size;
      return true;
   case SpvStorageClassOutput:
      if (!x->ids[id].patch_output)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported storage class %u", p->storage);
      /* A tessellation control output (sc_memory_init): in workgroup
       * memory. */
      __attribute__((fallthrough));
   case SpvStorageClassWorkgroup: {
      p->kind = SC_PTR_MEM;
      LLVMValueRef shared = sc_ctx_field(x, x->arg_wg,
                                         offsetof(struct shale_cs_workgroup, shared_memory), x->t_ptr);
      LLVMSetAlignment(shared, 8);
      p->base = gep8(x, x->eb, shared, LLVMConstInt(x->t_i64, x->shared_offset[id], false));
      p->limit = size;
      return true;
   }
   case SpvStorageClassFunction:
   case SpvStorageClassPrivate:
      if (!x->ids[id].lane_var)
         return sc_fail(x, SC_ERROR_INTERNAL, "variable %%%u has no storage", id);
      p->kind = SC_PTR_LANE;
      p->base = x->ids[id].lane_var;
      p->limit = size;
      return true;
   case SpvStorageClassInput: {
      uint32_t builtin;
      if (!sc_module_decoration(m, id, SC_NONE, SpvDecorationBuiltIn, &builtin))
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "compute input that is not a built-in");
      p->kind = SC_PTR_BUILTIN;
      p->builtin = builtin;
      p->offset = NULL;
      return true;
   }
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported storage class %u", p->storage);
   }
}

/* A tessellation control output's initializer (an OpVariable's fourth
 * operand), in the patch block, or a Workgroup variable's (OpConstantNull:
 * VK_KHR_zero_initialize_workgroup_memory), in the workgroup's memory:
 * stored once per patch or workgroup, before any invocation runs, by the
 * first subgroup's first call. Every subgroup's
 * first call (resume 0) runs the init block, subgroup 0's before any
 * other's (llvm_entry.c, build_compute_entry), so a later subgroup's init
 * never overwrites what an earlier one stored; the caller zeroes the
 * block before the patch. sc_stage_patch_variable recorded the variable
 * (an initialized output counts as written: llvm_stage.c, members_used),
 * so tcs_epilogue copies it out even where the shader never stores it. */
static bool
init_once_per_group(struct sc_xlate *x, const struct sc_inst *var)
{
   const struct sc_val *init = sc_get(x, var->w[4]);
   if (!init)
      return false;
   struct sc_ptr p;
   if (!var_ptr(x, var, &p))
      return false;
   LLVMBuilderRef saved = x->b;
   LLVMValueRef saved_mask = x->mask;
   LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "tcs_init");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "tcs_init_done");
   LLVMValueRef first = LLVMBuildICmp(x->ib, LLVMIntEQ, x->arg_sg, sc_const_i32(x, 0), "");
   LLVMBuildCondBr(x->ib, first, store, done);
   LLVMPositionBuilderAtEnd(x->ib, store);
   x->b = x->ib;
   x->mask = LLVMConstAllOnes(sc_vec_type(x, x->t_i1));
   struct sc_val v = *init;
   bool ok = sc_store_value(x, &p, &v);
   LLVMBuildBr(x->ib, done);
   LLVMPositionBuilderAtEnd(x->ib, done);
   x->b = saved;
   x->mask = saved_mask;
   return ok;
}

bool
sc_memory_init(struct sc_xlate *x)
{
   const struct sc_module *m = x->m;
   x->shared_offset = calloc(m->bound, sizeof(uint32_t));
   if (!x->shared_offset)
      return sc_fail(x, SC_ERROR_OUT_OF_MEMORY, "out of memory");
   x->zero_page = LLVMAddGlobal(x->mod, LLVMArrayType(x->t_i8, 64), "sc_zero_page");
   LLVMSetInitializer(x->zero_page, LLVMConstNull(LLVMArrayType(x->t_i8, 64)));
   LLVMSetGlobalConstant(x->zero_page, true);
   LLVMSetLinkage(x->zero_page, LLVMInternalLinkage);
   LLVMSetAlignment(x->zero_page, 16);

   /* Workgroup memory: variables one after the other, 16-byte aligned. */
   uint32_t shared = 0;
   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      if (inst->opcode != SpvOpVariable)
         continue;
      uint32_t storage = inst->w[3];
      const struct sc_type *pt = sc_module_type(m, inst->type_id);
      if (!pt)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "variable without a type");
      uint32_t size, align;
      sc_layout_size_align(m, pt->elem, &size, &align);
      if (storage == SpvStorageClassWorkgroup) {
         shared = (shared + 15) & ~15u;
         x->shared_offset[inst->result_id] = shared;
         if (size > SC_MAX_SHARED_SIZE - shared)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than %u bytes of Workgroup memory",
                           SC_MAX_SHARED_SIZE);
         shared += size;
         if (inst->nwords > 4 && !init_once_per_group(x, inst))
            return false;
         continue;
      }
      if (storage == SpvStorageClassOutput && sc_stage_patch_variable(x, inst)) {
         /* A tessellation control output: in the patch block, which is
          * this call's workgroup memory (llvm_tess.c). */
         shared = (shared + 15) & ~15u;
         x->shared_offset[inst->result_id] = shared;
         x->ids[inst->result_id].patch_output = true;
         if (size > SC_MAX_SHARED_SIZE - shared)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than %u bytes of Workgroup memory",
                           SC_MAX_SHARED_SIZE);
         shared += size;
         if (inst->nwords > 4 && !init_once_per_group(x, inst))
            return false;
         continue;
      }
      if (x->err)
         return false;
      if (storage != SpvStorageClassPrivate && storage != SpvStorageClassFunction &&
          !sc_stage_lane_variable(x, inst))
         continue;
      if (storage == SpvStorageClassInput && (x->model == SpvExecutionModelTessellationControl ||
                                              x->model == SpvExecutionModelTessellationEvaluation)) {
         /* The patch's inputs, the same for every lane: one copy (an
          * array of 32 vertices per lane would not fit the stack), in the
          * patch block for the control shader (it lives across barriers;
          * every subgroup fills it with the same words), else on the
          * stack. */
         x->ids[inst->result_id].patch_input = true;
         if (x->model == SpvExecutionModelTessellationControl) {
            shared = (shared + 15) & ~15u;
            x->shared_offset[inst->result_id] = shared;
            if (size > SC_MAX_SHARED_SIZE - shared)
               return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than %u bytes of Workgroup memory",
                              SC_MAX_SHARED_SIZE);
            shared += size;
         } else {
            x->ids[inst->result_id].lane_var =
               sc_entry_alloca(x, LLVMArrayType(x->t_i8, size ? size : 4), 16);
         }
         continue;
      }
      if (storage == SpvStorageClassFunction &&
          x->cfg->def_block[inst->result_id] == SC_NONE)
         continue;   /* another function's */
      /* Per-lane storage: byte o of lane l at o * W + l * scalar size. */
      if (size > SC_MAX_LANE_BYTES / x->W || x->lane_bytes > SC_MAX_LANE_BYTES - size * x->W)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than %u bytes of private variables",
                        SC_MAX_LANE_BYTES / x->W);
      uint32_t bytes = (size ? size : 4) * x->W;
      x->lane_bytes += bytes;
      LLVMValueRef a;
      if ((x->barrier_mode && bytes > SC_MAX_PERSIST_LANE_BYTES) ||
          bytes > SC_MAX_STACK_LANE_BYTES - x->lane_stack_bytes) {
         /* In the subgroup's frame (scratch memory): it lives across
          * barriers and is too large to copy at each, or is too large for
          * the stack. */
         uint32_t off = (x->lane_frame_size + 63) & ~63u;
         x->lane_frame_size = off + bytes;
         LLVMValueRef o = LLVMConstInt(x->t_i64, off, false);
         a = LLVMBuildGEP2(x->eb, x->t_i8, x->arg_frame, &o, 1, "");
      } else if (x->barrier_mode) {
         /* A small variable stays on the stack, where LLVM can keep it in
          * registers, and is saved to the frame at barriers. */
         a = sc_persistent_alloca(x, LLVMArrayType(x->t_i8, bytes), 64);
         x->lane_stack_bytes += bytes;
      } else {
         a = sc_entry_alloca(x, LLVMArrayType(x->t_i8, bytes), 64);
         x->lane_stack_bytes += bytes;
      }
      x->ids[inst->result_id].lane_var = a;
      if (inst->nwords > 4) {
         /* Initializer: stored for every lane on entry. */
         const struct sc_val *init = sc_get(x, inst->w[4]);
         if (!init)
            return false;
         struct sc_ptr p;
         if (!var_ptr(x, inst, &p))
            return false;
         LLVMBuilderRef saved = x->b;
         LLVMValueRef saved_mask = x->mask;
         x->b = x->ib;
         x->mask = LLVMConstAllOnes(sc_vec_type(x, x->t_i1));
         struct sc_val v = *init;
         bool ok = sc_store_value(x, &p, &v);
         x->b = saved;
         x->mask = saved_mask;
         if (!ok)
            return false;
      }
   }
   /* Slack after the last variable: a contiguous access clamped to a
    * variable's end (sc_address) may run one vector past it. */
   x->shared_size = shared ? shared + SHALE_MAX_SIMD_WIDTH * 8 : 0;
   return true;
}

/* ------------------------------------------------------------------------ */
/* Access chains                                                             */
/* ------------------------------------------------------------------------ */

/* p->offset += delta; dl (may be NULL) is delta's linear form when varying. */
static void
add_offset_lin(struct sc_xlate *x, struct sc_ptr *p, LLVMValueRef delta, bool delta_varying,
               const struct sc_lin *dl)
{
   LLVMValueRef pbase = p->offset_varying ? p->lin_base : p->offset;
   int64_t pstride = p->offset_varying ? p->lin_stride : 0;
   LLVMValueRef dbase = delta_varying ? (dl ? dl->base : NULL) : delta;
   int64_t dstride = delta_varying && dl ? dl->stride : 0;
   if (delta_varying && !p->offset_varying) {
      p->offset = sc_splat(x, p->offset);
      p->offset_varying = true;
   } else if (!delta_varying && p->offset_varying) {
      delta = sc_splat(x, delta);
   }
   p->offset = LLVMBuildAdd(x->b, p->offset, delta, "");
   if (p->offset_varying) {
      p->lin_base = pbase && dbase ? LLVMBuildAdd(x->b, pbase, dbase, "") : NULL;
      p->lin_stride = pstride + dstride;
   }
}

static LLVMValueRef
add_offset(struct sc_xlate *x, struct sc_ptr *p, LLVMValueRef delta, bool delta_varying)
{
   add_offset_lin(x, p, delta, delta_varying, NULL);
   return p->offset;
}

static bool
index_value(struct sc_xlate *x, uint32_t id, LLVMValueRef *v, bool *varying, bool *is_const,
            uint32_t *cval, struct sc_lin *lin, bool *has_lin)
{
   const struct sc_val *iv = sc_operand(x, id, 1, 1);
   if (!iv)
      return false;
   *varying = !iv->uniform;
   *v = to_i32(x, iv->c[0]);
   *has_lin = !iv->uniform && sc_lin_of(iv, 0, lin);
   if (*has_lin)
      lin->base = to_i32(x, lin->base);
   *is_const = LLVMIsAConstantInt(*v) != NULL;
   if (*is_const)
      *cval = (uint32_t)LLVMConstIntGetZExtValue(*v);
   return true;
}

/* p->offset += idx * stride, keeping the linear form. */
static void
scaled_offset(struct sc_xlate *x, struct sc_ptr *p, LLVMValueRef idx, bool varying,
              const struct sc_lin *lin, uint32_t stride)
{
   LLVMValueRef s = sc_const_i32(x, stride);
   LLVMValueRef delta = LLVMBuildMul(x->b, idx, varying ? sc_splat(x, s) : s, "");
   struct sc_lin dl;
   if (lin) {
      dl.base = LLVMBuildMul(x->b, lin->base, s, "");
      dl.stride = lin->stride * (int64_t)stride;
   }
   add_offset_lin(x, p, delta, varying, lin ? &dl : NULL);
}

/* Selects descriptor element idx of a binding array: loads base and range. */
static bool
index_bindings(struct sc_xlate *x, struct sc_ptr *p, LLVMValueRef idx, bool varying)
{
   const struct sc_type *t = sc_module_type(x->m, p->type);
   LLVMValueRef recidx = LLVMBuildAdd(x->b, idx,
                                      varying ? sc_splat(x, sc_const_i32(x, p->first_record))
                                              : sc_const_i32(x, p->first_record), "");
   LLVMValueRef byte = LLVMBuildMul(x->b, zext64(x, recidx),
                                    varying ? sc_splat(x, LLVMConstInt(x->t_i64, SHALE_DESCRIPTOR_SIZE, 0))
                                            : LLVMConstInt(x->t_i64, SHALE_DESCRIPTOR_SIZE, 0), "");
   LLVMValueRef rec = gep8(x, x->b, p->base, byte);
   if (p->storage == SpvStorageClassUniformConstant) {
      /* An image or sampler: the record itself. */
      p->kind = SC_PTR_DESCRIPTOR;
      p->base = rec;
      p->base_varying = varying;
      p->type = t->elem;
      return true;
   }
   if (!varying) {
      load_buffer_record(x, x->b, rec, &p->base, &p->range);
   } else {
      /* Per-lane descriptors (non-uniform indexing). */
      LLVMTypeRef pv = sc_vec_type(x, x->t_ptr);
      LLVMTypeRef iv = sc_vec_type(x, x->t_i64);
      LLVMValueRef args[4] = { rec, sc_const_i32(x, 8), x->mask, LLVMConstNull(pv) };
      LLVMTypeRef ov[2] = { pv, pv };
      p->base = sc_intrinsic(x, "llvm.masked.gather", ov, 2, args, 4);
      LLVMValueRef roff = sc_splat(x, LLVMConstInt(x->t_i64, 8, false));
      LLVMValueRef rrec = LLVMBuildGEP2(x->b, x->t_i8, rec, &roff, 1, "");
      LLVMValueRef rargs[4] = { rrec, sc_const_i32(x, 8), x->mask, LLVMConstNull(iv) };
      LLVMTypeRef rov[2] = { iv, pv };
      LLVMValueRef r = sc_intrinsic(x, "llvm.masked.gather", rov, 2, rargs, 4);
      LLVMValueRef max = sc_splat(x, LLVMConstInt(x->t_i64, UINT32_MAX, false));
      r = LLVMBuildSelect(x->b, LLVMBuildICmp(x->b, LLVMIntUGT, r, max, ""), max, r, "");
      p->range = LLVMBuildTrunc(x->b, r, sc_vec_type(x, x->t_i32), "");
      p->base_varying = true;
   }
   p->kind = SC_PTR_MEM;
   p->type = t->elem;
   p->offset = sc_const_i32(x, 0);
   p->offset_varying = false;
   p->lin_base = NULL;
   return true;
}

/* Applies the indexes of an access chain from word `first` on. */
static bool
access_chain(struct sc_xlate *x, const struct sc_inst *inst, struct sc_ptr *p, uint32_t first)
{
   const struct sc_module *m = x->m;
   for (uint32_t k = first; k < inst->nwords; k++) {
      const struct sc_type *t = sc_module_type(m, p->type);
      LLVMValueRef idx;
      bool varying, is_const, has_lin;
      struct sc_lin lin;
      uint32_t c = 0;
      if (!t)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad access chain");
      if (!index_value(x, inst->w[k], &idx, &varying, &is_const, &c, &lin, &has_lin))
         return false;
      if (p->kind == SC_PTR_BUILTIN) {
         if (!is_const || (t->kind != SC_T_VECTOR && t->kind != SC_T_ARRAY) || p->offset)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "dynamic built-in index");
         p->offset = sc_const_i32(x, c);
         p->type = t->elem;
         continue;
      }
      if (p->kind == SC_PTR_BINDINGS) {
         /* A constant index past a descriptor array would read another
          * binding's records or memory past the set: refused. */
         if (is_const && t->kind == SC_T_ARRAY && c >= t->count)
            return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                           "descriptor index %u past the array of %u (set %u, binding %u)", c,
                           t->count, p->set, p->binding);
         if (!index_bindings(x, p, idx, varying))
            return false;
         continue;
      }
      switch (t->kind) {
      case SC_T_STRUCT: {
         if (!is_const || c >= t->count)
            return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad struct index");
         uint32_t off = sc_layout_member_offset(m, p->type, c);
         sc_layout_matrix(m, p->type, c, t->members[c], &p->mat_stride, &p->row_major);
         p->in_row_major = false;
         add_offset(x, p, sc_const_i32(x, off), false);
         p->type = t->members[c];
         break;
      }
      case SC_T_ARRAY:
      case SC_T_RUNTIME_ARRAY: {
         uint32_t stride = sc_layout_array_stride(m, p->type);
         scaled_offset(x, p, idx, varying, has_lin ? &lin : NULL, stride);
         p->type = t->elem;
         break;
      }
      case SC_T_MATRIX: {
         const struct sc_type *col = sc_module_type(m, t->elem);
         uint32_t sb = scalar_bytes(x, col->elem);
         if (!p->mat_stride) {
            uint32_t cs, ca;
            sc_layout_size_align(m, t->elem, &cs, &ca);
            p->mat_stride = cs;
         }
         uint32_t stride = p->row_major ? sb : p->mat_stride;
         scaled_offset(x, p, idx, varying, has_lin ? &lin : NULL, stride);
         p->in_row_major = p->row_major;
         p->type = t->elem;
         break;
      }
      case SC_T_VECTOR: {
         uint32_t stride = p->in_row_major ? p->mat_stride : scalar_bytes(x, t->elem);
         scaled_offset(x, p, idx, varying, has_lin ? &lin : NULL, stride);
         p->in_row_major = false;
         p->type = t->elem;
         break;
      }
      default:
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "access chain into a scalar");
      }
   }
   return true;
}

/* ------------------------------------------------------------------------ */
/* Variable pointers (VariablePointersStorageBuffer)                         */
/* ------------------------------------------------------------------------ */

/* Whether p can be a variable pointer: one into a storage buffer (memory
 * with a known range), which is all variablePointersStorageBuffer asks. */
bool
sc_ptr_is_variable(struct sc_xlate *x, const struct sc_ptr *p)
{
   if (p->kind != SC_PTR_MEM || !p->range || p->storage != SpvStorageClassStorageBuffer)
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "variable pointer outside the StorageBuffer storage class");
   return true;
}

/* Stores through a pointer merged from p count as stores to p's binding. */
void
sc_ptr_mark_written(struct sc_xlate *x, const struct sc_ptr *p)
{
   if (p->binding_use != SC_NONE)
      x->bindings[p->binding_use].written = true;
}

/* Base, offset and range of a variable pointer as W lanes each when
 * `lanes`, else as the scalars they are (p uniform). */
void
sc_ptr_parts(struct sc_xlate *x, const struct sc_ptr *p, bool lanes, LLVMValueRef out[3])
{
   out[0] = lanes && !p->base_varying ? sc_splat(x, p->base) : p->base;
   out[1] = lanes && !p->offset_varying ? sc_splat(x, p->offset) : p->offset;
   out[2] = lanes && !p->base_varying ? sc_splat(x, p->range) : p->range;
}

/* A variable pointer to `type` in storage buffers from its parts (W lanes
 * each when `lanes`). */
void
sc_ptr_from_parts(struct sc_xlate *x, struct sc_ptr *p, uint32_t type, bool lanes,
                  LLVMValueRef parts[3])
{
   memset(p, 0, sizeof(*p));
   p->kind = SC_PTR_MEM;
   p->storage = SpvStorageClassStorageBuffer;
   p->type = type;
   p->base_varying = p->offset_varying = lanes;
   p->base = parts[0];
   p->offset = parts[1];
   p->range = parts[2];
   p->binding_use = SC_NONE;
}

static uint32_t
pointee(struct sc_xlate *x, uint32_t ptr_type)
{
   const struct sc_type *t = sc_module_type(x->m, ptr_type);
   return t && t->kind == SC_T_POINTER ? t->elem : SC_NONE;
}

/* OpSelect of two pointers: base, offset and range selected per lane (or
 * once, when the condition and both pointers are uniform). */
static bool
select_ptr(struct sc_xlate *x, const struct sc_inst *d, struct sc_ptr *p)
{
   if (d->nwords != 6)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad OpSelect");
   const struct sc_val *c = sc_operand(x, d->w[3], 1, 1);
   if (!c)
      return false;
   const struct sc_ptr *pa = sc_get_ptr(x, d->w[4]);
   if (!pa)
      return false;
   struct sc_ptr a = *pa;
   const struct sc_ptr *pb = sc_get_ptr(x, d->w[5]);
   if (!pb || !sc_ptr_is_variable(x, &a) || !sc_ptr_is_variable(x, pb))
      return false;
   LLVMValueRef cond = c->c[0];
   if (LLVMTypeOf(cond) != x->t_i1 &&
       LLVMTypeOf(cond) != sc_vec_type(x, x->t_i1))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpSelect of pointers on a non-boolean");
   bool lanes = !c->uniform || a.base_varying || a.offset_varying || pb->base_varying ||
                pb->offset_varying;
   if (!c->uniform && LLVMTypeOf(cond) == x->t_i1)
      cond = sc_splat(x, cond);
   LLVMValueRef pa3[3], pb3[3], r[3];
   sc_ptr_parts(x, &a, lanes, pa3);
   sc_ptr_parts(x, pb, lanes, pb3);
   for (int i = 0; i < 3; i++)
      r[i] = LLVMBuildSelect(x->b, cond, pa3[i], pb3[i], "");
   uint32_t use = a.binding_use == pb->binding_use ? a.binding_use : SC_NONE;
   if (use == SC_NONE) {
      sc_ptr_mark_written(x, &a);
      sc_ptr_mark_written(x, pb);
   }
   sc_ptr_from_parts(x, p, pointee(x, d->type_id), lanes, r);
   p->binding_use = use;
   p->row_major = a.row_major;
   p->in_row_major = a.in_row_major;
   p->mat_stride = a.mat_stride;
   return p->type != SC_NONE || sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpSelect of a non-pointer");
}

/* OpPtrAccessChain: the Element index steps by the base pointer type's
 * ArrayStride, then the indexes apply as in an access chain. */
static bool
ptr_access_chain(struct sc_xlate *x, const struct sc_inst *d, struct sc_ptr *p)
{
   if (d->nwords < 5)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad OpPtrAccessChain");
   if (!sc_ptr_is_variable(x, p))
      return false;
   const struct sc_inst *bd = sc_module_def(x->m, d->w[3]);
   uint32_t stride;
   if (!bd || !sc_module_decoration(x->m, bd->type_id, SC_NONE, SpvDecorationArrayStride, &stride))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpPtrAccessChain base without an ArrayStride");
   LLVMValueRef idx;
   bool varying, is_const, has_lin;
   struct sc_lin lin;
   uint32_t c = 0;
   if (!index_value(x, d->w[4], &idx, &varying, &is_const, &c, &lin, &has_lin))
      return false;
   scaled_offset(x, p, idx, varying, has_lin ? &lin : NULL, stride);
   return access_chain(x, d, p, 5);
}

/* A null pointer into storage buffers: no memory (range 0). */
static bool
null_ptr(struct sc_xlate *x, const struct sc_inst *d, struct sc_ptr *p)
{
   const struct sc_type *t = sc_module_type(x->m, d->type_id);
   if (!t || t->kind != SC_T_POINTER || t->storage != SpvStorageClassStorageBuffer)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "null pointer outside the StorageBuffer storage class");
   LLVMValueRef parts[3] = { LLVMConstNull(x->t_ptr), sc_const_i32(x, 0), sc_const_i32(x, 0) };
   sc_ptr_from_parts(x, p, t->elem, false, parts);
   return true;
}

/* Function and Private variables holding variable pointers (the inliner
 * makes one for the result of a function returning a pointer), and the
 * pointers loaded from them: base, offset and range in slots of their own
 * (W lanes each unless the id is uniform). A load copies the variable's
 * slots into its own where it runs, so a later store to the variable does
 * not change what was loaded. */
static LLVMValueRef *
ptr_slots(struct sc_xlate *x, uint32_t id)
{
   struct sc_idinfo *ii = &x->ids[id];
   if (ii->ptr_slots)
      return ii->ptr_slots;
   bool lanes = x->cfg->varying[id];
   LLVMTypeRef t[3] = { x->t_ptr, x->t_i32, x->t_i32 };
   ii->ptr_slots = sc_alloc(x, 3 * sizeof(LLVMValueRef));
   if (!ii->ptr_slots)
      return NULL;
   for (int i = 0; i < 3; i++) {
      ii->ptr_slots[i] = sc_persistent_alloca(x, lanes ? sc_vec_type(x, t[i]) : t[i], 8);
      /* Never-stored slots read as a null pointer of no range. */
      LLVMBuilderRef saved = x->b;
      x->b = x->ib;
      LLVMBuildStore(x->b, LLVMConstNull(LLVMGetAllocatedType(ii->ptr_slots[i])),
                     ii->ptr_slots[i]);
      x->b = saved;
   }
   return ii->ptr_slots;
}

/* Whether var is a Function / Private variable holding a pointer. */
static bool
is_ptr_var(struct sc_xlate *x, uint32_t var)
{
   const struct sc_inst *d = sc_module_def(x->m, var);
   if (!d || d->opcode != SpvOpVariable || d->nwords < 4 ||
       (d->w[3] != SpvStorageClassFunction && d->w[3] != SpvStorageClassPrivate))
      return false;
   const struct sc_type *t = sc_module_type(x->m, d->type_id);
   const struct sc_type *e = t && t->kind == SC_T_POINTER ? sc_module_type(x->m, t->elem) : NULL;
   return e && e->kind == SC_T_POINTER;
}

/* Stores parts (of uniformity `lanes`) into slots for the active lanes. */
static bool
store_parts(struct sc_xlate *x, LLVMValueRef *slots, uint32_t id, LLVMValueRef parts[3],
            bool parts_vary)
{
   bool lanes = x->cfg->varying[id];
   if (!lanes && parts_vary)
      return sc_fail(x, SC_ERROR_INTERNAL, "uniform %%%u holding a varying pointer", id);
   for (int i = 0; i < 3; i++) {
      LLVMValueRef nv = parts[i];
      if (lanes) {
         LLVMValueRef old = LLVMBuildLoad2(x->b, LLVMTypeOf(nv), slots[i], "");
         nv = LLVMBuildSelect(x->b, x->mask, nv, old, "");
      }
      LLVMBuildStore(x->b, nv, slots[i]);
   }
   return true;
}

static bool
store_ptr_var(struct sc_xlate *x, uint32_t var, uint32_t value)
{
   const struct sc_ptr *p = sc_get_ptr(x, value);
   LLVMValueRef *slots = p ? ptr_slots(x, var) : NULL;
   if (!slots || !sc_ptr_is_variable(x, p))
      return false;
   sc_ptr_mark_written(x, p);   /* stores through what is loaded may reach p's binding */
   bool lanes = x->cfg->varying[var];
   LLVMValueRef parts[3];
   sc_ptr_parts(x, p, lanes, parts);
   return store_parts(x, slots, var, parts, p->base_varying || p->offset_varying);
}

static bool
read_ptr_slots(struct sc_xlate *x, uint32_t id, struct sc_ptr *p)
{
   LLVMValueRef *slots = ptr_slots(x, id);
   const struct sc_inst *d = sc_module_def(x->m, id);
   const struct sc_type *t = d ? sc_module_type(x->m, d->type_id) : NULL;
   if (!slots || !t || t->kind != SC_T_POINTER || t->storage != SpvStorageClassStorageBuffer)
      return slots && sc_fail(x, SC_ERROR_UNSUPPORTED,
                              "variable pointer outside the StorageBuffer storage class");
   LLVMValueRef parts[3];
   for (int i = 0; i < 3; i++)
      parts[i] = LLVMBuildLoad2(x->b, LLVMGetAllocatedType(slots[i]), slots[i], "");
   sc_ptr_from_parts(x, p, t->elem, x->cfg->varying[id], parts);
   return true;
}

/* OpLoad of a pointer from a variable holding one. */
static bool
load_ptr_var(struct sc_xlate *x, const struct sc_inst *inst)
{
   uint32_t var = inst->w[3];
   if (!is_ptr_var(x, var))
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "pointer loaded from %%%u", var);
   LLVMValueRef *from = ptr_slots(x, var), *to = ptr_slots(x, inst->result_id);
   if (!from || !to)
      return false;
   LLVMValueRef parts[3];
   for (int i = 0; i < 3; i++)
      parts[i] = LLVMBuildLoad2(x->b, LLVMGetAllocatedType(from[i]), from[i], "");
   bool vary = x->cfg->varying[var];
   if (!vary && x->cfg->varying[inst->result_id])
      for (int i = 0; i < 3; i++)
         parts[i] = sc_splat(x, parts[i]);
   if (!store_parts(x, to, inst->result_id, parts, vary && x->cfg->varying[inst->result_id]))
      return false;
   struct sc_idinfo *ii = &x->ids[inst->result_id];
   struct sc_ptr *p = ii->ptr ? ii->ptr : sc_alloc(x, sizeof(*p));
   if (!p || !read_ptr_slots(x, inst->result_id, p))
      return false;
   ii->ptr = p;
   ii->cache_seg = x->seg;
   return true;
}

const struct sc_ptr *
sc_get_ptr(struct sc_xlate *x, uint32_t id)
{
   if (id >= x->m->bound) {
      sc_fail(x, SC_ERROR_INVALID_SPIRV, "id out of range");
      return NULL;
   }
   struct sc_idinfo *ii = &x->ids[id];
   if (ii->ptr && (ii->cache_seg == x->seg || ii->cache_seg == SC_EVERYWHERE))
      return ii->ptr;
   const struct sc_inst *d = sc_module_def(x->m, id);
   if (!d) {
      sc_fail(x, SC_ERROR_INVALID_SPIRV, "undefined pointer %%%u", id);
      return NULL;
   }
   struct sc_ptr *p = ii->ptr ? ii->ptr : sc_alloc(x, sizeof(*p));
   if (!p)
      return NULL;
   switch (d->opcode) {
   case SpvOpVariable:
      if (!var_ptr(x, d, p))
         return NULL;
      ii->ptr = p;
      ii->cache_seg = SC_EVERYWHERE;
      return p;
   case SpvOpAccessChain:
   case SpvOpInBoundsAccessChain: {
      const struct sc_ptr *base = sc_get_ptr(x, d->w[3]);
      if (!base)
         return NULL;
      *p = *base;
      if (!access_chain(x, d, p, 4))
         return NULL;
      break;
   }
   case SpvOpPtrAccessChain:
   case SpvOpInBoundsPtrAccessChain: {
      const struct sc_ptr *base = sc_get_ptr(x, d->w[3]);
      if (!base)
         return NULL;
      *p = *base;
      if (!ptr_access_chain(x, d, p))
         return NULL;
      break;
   }
   case SpvOpSelect:
      if (!select_ptr(x, d, p))
         return NULL;
      break;
   case SpvOpConstantNull:
      if (!null_ptr(x, d, p))
         return NULL;
      ii->ptr = p;
      ii->cache_seg = SC_EVERYWHERE;
      return p;
   case SpvOpPhi:
      if (!sc_phi_ptr(x, d, p))
         return NULL;
      break;
   case SpvOpLoad:
      if (!read_ptr_slots(x, id, p))
         return NULL;
      break;
   case SpvOpCopyObject: {
      const struct sc_ptr *base = sc_get_ptr(x, d->w[3]);
      if (!base)
         return NULL;
      *p = *base;
      break;
   }
   case SpvOpImageTexelPointer:
      if (!sc_image_texel_pointer(x, d, p))
         return NULL;
      break;
   default:
      sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported pointer from %s", sc_opcode_name(d->opcode));
      return NULL;
   }
   ii->ptr = p;
   ii->cache_seg = x->seg;
   return p;
}

/* ------------------------------------------------------------------------ */
/* Loads and stores                                                          */
/* ------------------------------------------------------------------------ */

/* Byte offsets and scalar types of the flattened components of type. */
static void
walk_layout(struct sc_xlate *x, uint32_t type, uint32_t off, bool row_major, uint32_t ms,
            bool in_rm, uint32_t *offs, uint32_t *types, uint32_t *k, uint32_t n)
{
   const struct sc_module *m = x->m;
   const struct sc_type *t = sc_module_type(m, type);
   if (!t || *k >= n)
      return;
   switch (t->kind) {
   case SC_T_BOOL:
   case SC_T_INT:
   case SC_T_FLOAT:
      offs[*k] = off;
      types[(*k)++] = type;
      break;
   case SC_T_VECTOR: {
      uint32_t cs = in_rm ? ms : scalar_bytes(x, t->elem);
      for (uint32_t i = 0; i < t->count && *k < n; i++) {
         offs[*k] = off + i * cs;
         types[(*k)++] = t->elem;
      }
      break;
   }
   case SC_T_MATRIX: {
      const struct sc_type *col = sc_module_type(m, t->elem);
      if (!ms) {
         uint32_t cs, ca;
         sc_layout_size_align(m, t->elem, &cs, &ca);
         ms = cs;
      }
      for (uint32_t c = 0; c < t->count; c++) {
         if (row_major)
            walk_layout(x, t->elem, off + c * scalar_bytes(x, col->elem), false, ms, true,
                        offs, types, k, n);
         else
            walk_layout(x, t->elem, off + c * ms, false, ms, false, offs, types, k, n);
      }
      break;
   }
   case SC_T_ARRAY: {
      uint32_t stride = sc_layout_array_stride(m, type);
      for (uint32_t i = 0; i < t->count && *k < n; i++)
         walk_layout(x, t->elem, off + i * stride, row_major, ms, false, offs, types, k, n);
      break;
   }
   case SC_T_STRUCT:
      for (uint32_t i = 0; i < t->count; i++) {
         uint32_t mo = sc_layout_member_offset(m, type, i);
         uint32_t mms;
         bool mrm;
         sc_layout_matrix(m, type, i, t->members[i], &mms, &mrm);
         walk_layout(x, t->members[i], off + mo, mrm, mms, false, offs, types, k, n);
      }
      break;
   default:
      break;
   }
}

struct sc_access
sc_address(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel, uint32_t bytes, bool vector_ok)
{
   struct sc_access a = { 0 };
   LLVMBuilderRef b = x->b;
   bool vary = p->base_varying || p->offset_varying;
   LLVMValueRef off = p->offset;
   LLVMValueRef relc = sc_const_i32(x, rel);
   off = LLVMBuildAdd(b, off, p->offset_varying ? sc_splat(x, relc) : relc, "");
   if (vector_ok && p->offset_varying && !p->base_varying && p->lin_base &&
       (p->lin_stride == 0 || (p->lin_stride == bytes && p->kind == SC_PTR_MEM))) {
      /* Offsets base + lane * stride: one vector access (stride = size) or
       * one address (stride 0). Lanes outside the variable are masked off. */
      LLVMValueRef lo = LLVMBuildAdd(b, p->lin_base, relc, "");
      LLVMValueRef ok = x->mask;
      if (p->kind == SC_PTR_MEM && p->limit) {
         /* Workgroup memory: out-of-range accesses are undefined but must
          * stay inside it. Clamping the first lane's offset keeps a vector
          * within the variable plus the slack after the last variable, and
          * needs no per-lane test. */
         uint32_t last = p->limit >= bytes ? p->limit - bytes : 0;
         LLVMValueRef lc = sc_const_i32(x, p->lin_stride == 0 ? last : p->limit);
         lo = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, lo, lc, ""), lc, lo, "");
      } else if (p->kind == SC_PTR_LANE || p->limit) {
         uint32_t last = p->limit >= bytes ? p->limit - bytes : 0;
         ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntULE, off,
                                                sc_splat(x, sc_const_i32(x, last)), ""), "");
         if (p->lin_stride == 0) {
            LLVMValueRef lc = sc_const_i32(x, last);
            lo = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, lo, lc, ""), lc, lo, "");
         }
      }
      if (p->range && (x->info->flags & SC_COMPILE_ROBUST_BUFFER_ACCESS)) {
         LLVMValueRef end = LLVMBuildAdd(b, zext64(x, off),
                                         sc_splat(x, LLVMConstInt(x->t_i64, bytes, 0)), "");
         ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntULE, end,
                                                sc_splat(x, zext64(x, p->range)), ""), "");
      }
      if (p->kind == SC_PTR_LANE) {
         /* stride 0: the same element of every lane, lane-interleaved. */
         a.scalar = true;
         a.addr = gep8(x, b, p->base, zext64(x, LLVMBuildMul(b, lo, sc_const_i32(x, x->W), "")));
         a.mask = ok;
         return a;
      }
      a.addr = gep8(x, b, p->base, zext64(x, lo));
      a.mask = ok;
      if (p->lin_stride == 0)
         a.scalar = true;   /* mask is per lane here */
      else
         a.contiguous = true;
      return a;
   }
   if (p->kind == SC_PTR_LANE || p->limit) {
      /* Clamp into the variable: out-of-range indices are undefined but must
       * not touch other memory. */
      uint32_t last = p->limit >= bytes ? p->limit - bytes : 0;
      LLVMValueRef lc = sc_const_i32(x, last);
      if (p->offset_varying)
         lc = sc_splat(x, lc);
      LLVMValueRef over = LLVMBuildICmp(b, LLVMIntUGT, off, lc, "");
      off = LLVMBuildSelect(b, over, lc, off, "");
   }
   if (p->kind == SC_PTR_LANE) {
      LLVMValueRef w = sc_const_i32(x, x->W);
      if (!p->offset_varying) {
         a.scalar = true;   /* a vector access at base + off * W */
         a.addr = gep8(x, b, p->base, zext64(x, LLVMBuildMul(b, off, w, "")));
         a.mask = x->mask;
         return a;
      }
      LLVMValueRef lanes = LLVMBuildMul(b, x->lane_ids, sc_splat(x, sc_const_i32(x, bytes)), "");
      LLVMValueRef o = LLVMBuildAdd(b, LLVMBuildMul(b, off, sc_splat(x, w), ""), lanes, "");
      a.addr = gep8(x, b, p->base, zext64(x, o));
      a.mask = x->mask;
      return a;
   }
   LLVMValueRef inb = NULL;
   if (p->range && (x->info->flags & SC_COMPILE_ROBUST_BUFFER_ACCESS)) {
      LLVMValueRef end = LLVMBuildAdd(b, zext64(x, off),
                                      p->offset_varying ? sc_splat(x, LLVMConstInt(x->t_i64, bytes, 0))
                                                        : LLVMConstInt(x->t_i64, bytes, 0), "");
      LLVMValueRef range = zext64(x, p->range);
      if (vary && !p->offset_varying)
         end = sc_splat(x, end);
      if (vary && !p->base_varying)
         range = sc_splat(x, range);
      inb = LLVMBuildICmp(b, LLVMIntULE, end, range, "");
   }
   if (!vary) {
      a.scalar = true;
      a.addr = gep8(x, b, p->base, zext64(x, off));
      a.mask = inb ? inb : LLVMConstInt(x->t_i1, 1, false);
      return a;
   }
   LLVMValueRef offv = p->offset_varying ? off : sc_splat(x, off);
   a.addr = gep8(x, b, p->base, zext64(x, offv));
   a.mask = x->mask;
   if (inb)
      a.mask = LLVMBuildAnd(b, a.mask, inb, "");
   if (p->valid)
      a.mask = LLVMBuildAnd(b, a.mask, p->valid, "");
   return a;
}

static LLVMValueRef
gather(struct sc_xlate *x, LLVMTypeRef et, LLVMValueRef addr, uint32_t align, LLVMValueRef mask)
{
   LLVMTypeRef vt = sc_vec_type(x, et);
   LLVMTypeRef ov[2] = { vt, sc_vec_type(x, x->t_ptr) };
   LLVMValueRef args[4] = { addr, sc_const_i32(x, align), mask, LLVMConstNull(vt) };
   return sc_intrinsic(x, "llvm.masked.gather", ov, 2, args, 4);
}

static void
scatter(struct sc_xlate *x, LLVMValueRef val, LLVMValueRef addr, uint32_t align, LLVMValueRef mask)
{
   LLVMTypeRef ov[2] = { LLVMTypeOf(val), sc_vec_type(x, x->t_ptr) };
   LLVMValueRef args[4] = { val, addr, sc_const_i32(x, align), mask };
   sc_intrinsic(x, "llvm.masked.scatter", ov, 2, args, 4);
}

static LLVMValueRef
load_component(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel, uint32_t stype,
               bool *uniform)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef st = sc_llvm_scalar(x, stype);
   bool is_bool = st == x->t_i1;
   LLVMTypeRef mt = is_bool ? x->t_i32 : st;   /* bools are 32-bit in memory */
   uint32_t bytes = scalar_bytes(x, stype);
   struct sc_access a = sc_address(x, p, rel, bytes, true);
   LLVMValueRef v;
   *uniform = false;
   if (p->kind == SC_PTR_LANE && a.scalar) {
      v = LLVMBuildLoad2(b, sc_vec_type(x, mt), a.addr, "");
      LLVMSetAlignment(v, bytes);
   } else if (a.contiguous) {
      LLVMTypeRef vt = sc_vec_type(x, mt);
      LLVMTypeRef ov[2] = { vt, x->t_ptr };
      LLVMValueRef args[4] = { a.addr, sc_const_i32(x, bytes), a.mask, LLVMConstNull(vt) };
      v = sc_intrinsic(x, "llvm.masked.load", ov, 2, args, 4);
   } else if (a.scalar && LLVMGetTypeKind(LLVMTypeOf(a.mask)) == LLVMVectorTypeKind) {
      /* One address for every lane (a varying value that is uniform). */
      LLVMValueRef addr = LLVMBuildSelect(b, sc_any(x, a.mask), a.addr, x->zero_page, "");
      v = LLVMBuildLoad2(b, mt, addr, "");
      LLVMSetAlignment(v, bytes);
      v = sc_splat(x, v);
   } else if (a.scalar) {
      LLVMValueRef addr = a.addr;
      if (!LLVMIsAConstantInt(a.mask) || !LLVMConstIntGetZExtValue(a.mask))
         addr = LLVMBuildSelect(b, a.mask, addr, x->zero_page, "");
      v = LLVMBuildLoad2(b, mt, addr, "");
      LLVMSetAlignment(v, bytes);
      *uniform = true;
   } else {
      v = gather(x, mt, a.addr, bytes, a.mask);
   }
   if (is_bool)
      v = LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
   return v;
}

static void
store_component(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel, uint32_t stype,
                LLVMValueRef v, bool v_uniform)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef st = sc_llvm_scalar(x, stype);
   uint32_t bytes = scalar_bytes(x, stype);
   if (st == x->t_i1) {
      LLVMTypeRef it = v_uniform ? x->t_i32 : sc_vec_type(x, x->t_i32);
      v = LLVMBuildZExt(b, v, it, "");
   }
   struct sc_access a = sc_address(x, p, rel, bytes, true);
   if ((p->kind == SC_PTR_LANE && a.scalar) || a.contiguous) {
      LLVMValueRef vec = v_uniform ? sc_splat(x, v) : v;
      LLVMTypeRef ov[2] = { LLVMTypeOf(vec), x->t_ptr };
      LLVMValueRef args[4] = { vec, a.addr, sc_const_i32(x, bytes), a.mask };
      sc_intrinsic(x, "llvm.masked.store", ov, 2, args, 4);
      return;
   }
   if (a.scalar && v_uniform) {
      if (LLVMGetTypeKind(LLVMTypeOf(a.mask)) == LLVMVectorTypeKind)
         a.mask = sc_any(x, a.mask);
      if (LLVMIsAConstantInt(a.mask) && LLVMConstIntGetZExtValue(a.mask)) {
         LLVMValueRef s = LLVMBuildStore(b, v, a.addr);
         LLVMSetAlignment(s, bytes);
         return;
      }
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "store");
      LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "stored");
      LLVMBuildCondBr(b, a.mask, yes, done);
      LLVMPositionBuilderAtEnd(b, yes);
      LLVMValueRef s = LLVMBuildStore(b, v, a.addr);
      LLVMSetAlignment(s, bytes);
      LLVMBuildBr(b, done);
      LLVMPositionBuilderAtEnd(b, done);
      return;
   }
   /* Lanes to one address or to many: scatter; the last active lane wins. */
   LLVMValueRef addr = a.scalar ? sc_splat(x, a.addr) : a.addr;
   LLVMValueRef mask = a.mask;
   if (a.scalar && LLVMGetTypeKind(LLVMTypeOf(a.mask)) != LLVMVectorTypeKind)
      mask = LLVMBuildAnd(b, x->mask, sc_splat(x, a.mask), "");
   scatter(x, v_uniform ? sc_splat(x, v) : v, addr, bytes, mask);
}

/* ------------------------------------------------------------------------ */
/* Interleaved accesses                                                      */
/* ------------------------------------------------------------------------ */

/* A vector per lane in a buffer whose lanes' elements follow each other
 * (a[gl_GlobalInvocationID.x] with a vec4 or vec3 a: lane offsets base +
 * lane * stride, stride a small multiple of the component size) is one
 * block of W * s components: masked vector loads and stores of the block
 * plus shuffles between it and one vector per component, instead of one
 * gather or scatter per component. s (the stride in components, at most
 * 4) is returned in *per_lane. Buffers only: workgroup and per-lane memory
 * keep their own clamping. */
static bool
interleaved_shape(struct sc_xlate *x, const struct sc_ptr *p, const uint32_t *offs,
                  const uint32_t *types, uint32_t n, uint32_t *per_lane)
{
   if (n < 2 || p->kind != SC_PTR_MEM || p->base_varying || !p->offset_varying ||
       !p->lin_base || p->limit || p->valid)
      return false;
   if (sc_llvm_scalar(x, types[0]) == x->t_i1)
      return false;   /* bools are converted component by component */
   uint32_t bytes = scalar_bytes(x, types[0]);
   for (uint32_t i = 1; i < n; i++)
      if (types[i] != types[0] || offs[i] != offs[0] + i * bytes)
         return false;
   if (p->lin_stride <= 0 || p->lin_stride % bytes)
      return false;
   int64_t s = p->lin_stride / bytes;
   if (s < n || s > 4)
      return false;
   *per_lane = (uint32_t)s;
   return true;
}

/* <count x i32> constants. */
static LLVMValueRef
const_indices(struct sc_xlate *x, const uint32_t *v, uint32_t count)
{
   LLVMValueRef e[4 * SHALE_MAX_SIMD_WIDTH];
   for (uint32_t i = 0; i < count; i++)
      e[i] = sc_const_i32(x, v[i]);
   return LLVMConstVector(e, count);
}

/* The block's element mask: element j belongs to lane j / s and is
 * component j % s of it; components past n are never touched; lanes out of
 * the mask, and (robust buffer access) components past the buffer's range,
 * are off. */
static LLVMValueRef
interleaved_mask(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel, uint32_t bytes,
                 uint32_t n, uint32_t s)
{
   LLVMBuilderRef b = x->b;
   uint32_t total = x->W * s;
   uint32_t lane_of[4 * SHALE_MAX_SIMD_WIDTH];
   LLVMValueRef comp_ok[4 * SHALE_MAX_SIMD_WIDTH];
   for (uint32_t j = 0; j < total; j++) {
      lane_of[j] = j / s;
      comp_ok[j] = LLVMConstInt(x->t_i1, j % s < n, false);
   }
   LLVMValueRef spread = const_indices(x, lane_of, total);
   LLVMValueRef mask = LLVMBuildShuffleVector(b, x->mask, LLVMGetPoison(LLVMTypeOf(x->mask)),
                                              spread, "");
   mask = LLVMBuildAnd(b, mask, LLVMConstVector(comp_ok, total), "");
   if (p->range && (x->info->flags & SC_COMPILE_ROBUST_BUFFER_ACCESS)) {
      LLVMValueRef off = LLVMBuildShuffleVector(b, zext64(x, p->offset),
                                                LLVMGetPoison(LLVMVectorType(x->t_i64, x->W)),
                                                spread, "");
      LLVMValueRef ends[4 * SHALE_MAX_SIMD_WIDTH];
      for (uint32_t j = 0; j < total; j++)
         ends[j] = LLVMConstInt(x->t_i64, rel + (j % s) * bytes + bytes, false);
      LLVMValueRef end = LLVMBuildAdd(b, off, LLVMConstVector(ends, total), "");
      LLVMTypeRef rt = LLVMVectorType(x->t_i64, total);
      LLVMValueRef range = LLVMBuildInsertElement(b, LLVMGetPoison(rt), zext64(x, p->range),
                                                  sc_const_i32(x, 0), "");
      range = LLVMBuildShuffleVector(b, range, LLVMGetPoison(rt),
                                     LLVMConstNull(LLVMVectorType(x->t_i32, total)), "");
      mask = LLVMBuildAnd(b, mask, LLVMBuildICmp(b, LLVMIntULE, end, range, ""), "");
   }
   return mask;
}

/* Loads n components at rel of every lane's element (interleaved_shape). */
static void
load_interleaved(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel, uint32_t stype,
                 uint32_t n, uint32_t s, LLVMValueRef *out)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef st = sc_llvm_scalar(x, stype);
   uint32_t bytes = scalar_bytes(x, stype);
   uint32_t total = x->W * s;
   LLVMValueRef lo = LLVMBuildAdd(b, p->lin_base, sc_const_i32(x, rel), "");
   LLVMValueRef addr = gep8(x, b, p->base, zext64(x, lo));
   LLVMTypeRef bt = LLVMVectorType(st, total);
   LLVMTypeRef ov[2] = { bt, x->t_ptr };
   LLVMValueRef args[4] = { addr, sc_const_i32(x, bytes), interleaved_mask(x, p, rel, bytes, n, s),
                            LLVMConstNull(bt) };
   LLVMValueRef block = sc_intrinsic(x, "llvm.masked.load", ov, 2, args, 4);
   for (uint32_t i = 0; i < n; i++) {
      uint32_t pick[SHALE_MAX_SIMD_WIDTH];
      for (uint32_t l = 0; l < x->W; l++)
         pick[l] = l * s + i;
      out[i] = LLVMBuildShuffleVector(b, block, LLVMGetPoison(bt), const_indices(x, pick, x->W), "");
   }
}

/* Stores n components (vectors, or scalars when uniform) at rel of every
 * lane's element. */
static void
store_interleaved(struct sc_xlate *x, const struct sc_ptr *p, uint32_t rel, uint32_t stype,
                  uint32_t n, uint32_t s, LLVMValueRef const *c, bool uniform)
{
   LLVMBuilderRef b = x->b;
   uint32_t bytes = scalar_bytes(x, stype);
   uint32_t W = x->W, total = W * s;
   LLVMTypeRef vt = sc_vec_type(x, sc_llvm_scalar(x, stype));
   LLVMValueRef comp[4];
   for (uint32_t i = 0; i < 4; i++)
      comp[i] = i < n ? (uniform ? sc_splat(x, c[i]) : c[i]) : LLVMGetPoison(vt);
   /* Components side by side (component i at i * W), then interleaved. */
   uint32_t cat[2 * SHALE_MAX_SIMD_WIDTH];
   for (uint32_t j = 0; j < 2 * W; j++)
      cat[j] = j;
   LLVMValueRef cat2 = const_indices(x, cat, 2 * W);
   LLVMValueRef wide = LLVMBuildShuffleVector(b, comp[0], comp[1], cat2, "");
   if (s > 2) {
      LLVMValueRef hi = LLVMBuildShuffleVector(b, comp[2], comp[3], cat2, "");
      uint32_t cat4[4 * SHALE_MAX_SIMD_WIDTH];
      for (uint32_t j = 0; j < 4 * W; j++)
         cat4[j] = j;
      wide = LLVMBuildShuffleVector(b, wide, hi, const_indices(x, cat4, 4 * W), "");
   }
   uint32_t pick[4 * SHALE_MAX_SIMD_WIDTH];
   for (uint32_t j = 0; j < total; j++)
      pick[j] = (j % s) * W + j / s;
   LLVMValueRef block = LLVMBuildShuffleVector(b, wide, LLVMGetPoison(LLVMTypeOf(wide)),
                                               const_indices(x, pick, total), "");
   LLVMValueRef lo = LLVMBuildAdd(b, p->lin_base, sc_const_i32(x, rel), "");
   LLVMValueRef addr = gep8(x, b, p->base, zext64(x, lo));
   LLVMTypeRef ov[2] = { LLVMTypeOf(block), x->t_ptr };
   LLVMValueRef args[4] = { block, addr, sc_const_i32(x, bytes),
                            interleaved_mask(x, p, rel, bytes, n, s) };
   sc_intrinsic(x, "llvm.masked.store", ov, 2, args, 4);
}

static bool
load_value(struct sc_xlate *x, const struct sc_ptr *p, uint32_t type, struct sc_val *out)
{
   uint32_t n = sc_ncomp(x, type);
   if (p->kind == SC_PTR_BUILTIN) {
      /* Cache slots: built-ins 0 .. 43, then SubgroupEqMask .. LtMask (SPIR-V
       * numbers no built-in between 44 and 63). */
      uint32_t slot = p->builtin;
      if (slot >= SpvBuiltInSubgroupEqMask && slot <= SpvBuiltInSubgroupLtMask)
         slot = 44 + slot - SpvBuiltInSubgroupEqMask;
      else if (slot >= SpvBuiltInBaseVertex && slot <= SpvBuiltInDrawIndex)
         slot = 49 + slot - SpvBuiltInBaseVertex;
      else if (slot == SpvBuiltInViewIndex)
         slot = 52;
      else if (slot >= 44)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported built-in %u", p->builtin);
      /* HelperInvocation changes with demotion: read where it is used. */
      if (slot == SpvBuiltInHelperInvocation && x->builtin_cache[slot])
         x->builtin_cache[slot] = NULL;
      if (!x->builtin_cache[slot]) {
         struct sc_val *keep = sc_alloc(x, sizeof(*keep));
         if (!keep || !sc_builtin_value(x, p->builtin, keep))
            return false;
         x->builtin_cache[slot] = keep;
      }
      struct sc_val bv = *x->builtin_cache[slot];
      uint32_t first = p->offset ? (uint32_t)LLVMConstIntGetZExtValue(p->offset) : 0;
      if (first >= bv.n || n > bv.n - first) {
         /* A constant index past the built-in's end (spirv-val accepts
          * gl_GlobalInvocationID[0xffffffff]): an undefined value, zero. */
         struct sc_val z = sc_new_val(x, n, true);
         if (!z.c)
            return false;
         for (uint32_t i = 0; i < n; i++)
            z.c[i] = LLVMConstNull(sc_llvm_scalar(x, sc_scalar_at(x, type, i)));
         *out = z;
         return true;
      }
      struct sc_val v = sc_new_val(x, n, bv.uniform);
      if (!v.c)
         return false;
      for (uint32_t i = 0; i < n; i++) {
         v.c[i] = bv.c[first + i];
         if (bv.lin && bv.lin[first + i].base)
            sc_set_lin(x, &v, i, bv.lin[first + i].base, bv.lin[first + i].stride);
         /* Built-ins may be narrower in the shader's view (e.g. a vector). */
         LLVMTypeRef want = sc_llvm_scalar(x, sc_scalar_at(x, type, i));
         LLVMTypeRef have = LLVMTypeOf(v.c[i]);
         if (LLVMGetTypeKind(have) == LLVMVectorTypeKind)
            have = LLVMGetElementType(have);
         if (want != have)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "built-in of an unexpected type");
      }
      *out = v;
      return true;
   }
   if (p->kind == SC_PTR_BINDINGS)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "load of a whole descriptor array");
   if (p->kind == SC_PTR_DESCRIPTOR) {
      /* An image, sampler or sampled image value is its record's address. */
      struct sc_val v = sc_new_val(x, 1, !p->base_varying);
      if (!v.c)
         return false;
      v.c[0] = p->base;
      *out = v;
      return true;
   }
   uint32_t *offs = sc_alloc(x, (n ? n : 1) * sizeof(uint32_t));
   uint32_t *types = sc_alloc(x, (n ? n : 1) * sizeof(uint32_t));
   struct sc_val v = sc_new_val(x, n, true);
   if (!offs || !types || !v.c)
      return false;
   uint32_t k = 0;
   walk_layout(x, type, 0, p->row_major, p->mat_stride, p->in_row_major, offs, types, &k, n);
   if (k != n)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "load of an unsized type");
   uint32_t per_lane;
   if (interleaved_shape(x, p, offs, types, n, &per_lane)) {
      load_interleaved(x, p, offs[0], types[0], n, per_lane, v.c);
      v.uniform = false;
      *out = v;
      return true;
   }
   for (uint32_t i = 0; i < n; i++) {
      bool u;
      v.c[i] = load_component(x, p, offs[i], types[i], &u);
      if (!u)
         v.uniform = false;
   }
   if (!v.uniform) {
      for (uint32_t i = 0; i < n; i++)
         if (LLVMGetTypeKind(LLVMTypeOf(v.c[i])) != LLVMVectorTypeKind)
            v.c[i] = sc_splat(x, v.c[i]);
   }
   *out = v;
   return true;
}

bool
sc_load_value(struct sc_xlate *x, const struct sc_ptr *p, uint32_t type, struct sc_val *out)
{
   return load_value(x, p, type, out);
}

bool
sc_store_value(struct sc_xlate *x, const struct sc_ptr *p, const struct sc_val *v)
{
   if (p->kind == SC_PTR_BUILTIN || p->kind == SC_PTR_BINDINGS || p->kind == SC_PTR_DESCRIPTOR)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "store to a built-in or descriptor");
   if (p->storage == SpvStorageClassUniform && p->binding_use != SC_NONE &&
       x->bindings[p->binding_use].type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "store to a uniform buffer");
   if (p->storage == SpvStorageClassPushConstant)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "store to push constants");
   uint32_t n = v->n;
   uint32_t *offs = sc_alloc(x, (n ? n : 1) * sizeof(uint32_t));
   uint32_t *types = sc_alloc(x, (n ? n : 1) * sizeof(uint32_t));
   if (!offs || !types)
      return false;
   uint32_t k = 0;
   walk_layout(x, p->type, 0, p->row_major, p->mat_stride, p->in_row_major, offs, types, &k, n);
   if (k != n)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "store of a mismatched value");
   if (p->binding_use != SC_NONE)
      x->bindings[p->binding_use].written = true;
   uint32_t per_lane;
   if (interleaved_shape(x, p, offs, types, n, &per_lane)) {
      store_interleaved(x, p, offs[0], types[0], n, per_lane, v->c, v->uniform);
      return true;
   }
   for (uint32_t i = 0; i < n; i++)
      store_component(x, p, offs[i], types[i], v->c[i], v->uniform);
   return true;
}

/* ------------------------------------------------------------------------ */
/* Instructions                                                              */
/* ------------------------------------------------------------------------ */

static bool
emit_array_length(struct sc_xlate *x, const struct sc_inst *inst)
{
   const struct sc_ptr *p = sc_get_ptr(x, inst->w[3]);
   if (!p)
      return false;
   uint32_t member = inst->w[4];
   const struct sc_type *st = sc_module_type(x->m, p->type);
   if (p->kind != SC_PTR_MEM || !p->range || !st || st->kind != SC_T_STRUCT ||
       member >= st->count)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpArrayLength on a bad pointer");
   uint32_t arr = st->members[member];
   uint32_t moff = sc_layout_member_offset(x->m, p->type, member);
   uint32_t stride = sc_layout_array_stride(x->m, arr);
   if (!stride)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "runtime array without a stride");
   LLVMBuilderRef b = x->b;
   bool vary = p->base_varying || p->offset_varying;
   LLVMValueRef range = p->range, off = p->offset;
   if (vary && !p->base_varying)
      range = sc_splat(x, range);
   if (vary && !p->offset_varying)
      off = sc_splat(x, off);
   LLVMValueRef start = LLVMBuildAdd(b, off, vary ? sc_splat(x, sc_const_i32(x, moff))
                                                  : sc_const_i32(x, moff), "");
   LLVMValueRef avail = LLVMBuildSub(b, range, start, "");
   LLVMValueRef under = LLVMBuildICmp(b, LLVMIntULT, range, start, "");
   avail = LLVMBuildSelect(b, under, LLVMConstNull(LLVMTypeOf(avail)), avail, "");
   LLVMValueRef s = sc_const_i32(x, stride);
   struct sc_val v = sc_new_val(x, 1, !vary);
   if (!v.c)
      return false;
   v.c[0] = LLVMBuildUDiv(b, avail, vary ? sc_splat(x, s) : s, "");
   return sc_set(x, inst->result_id, v);
}

/* Whether an OpLoad / OpStore's memory operands (from word mask_word on)
 * include Volatile. */
static bool
access_is_volatile(const struct sc_inst *inst, uint32_t mask_word)
{
   return inst->nwords > mask_word && (inst->w[mask_word] & SpvMemoryAccessVolatileMask);
}

/* A Volatile access "cannot be eliminated, duplicated, or combined with
 * other accesses" (the Vulkan memory model): compiler-only fences on both
 * sides keep LLVM from merging it with, or moving it across, any other
 * memory access (a fence clobbers all memory for its alias analysis); the
 * hardware needs nothing more, every thread seeing one coherent memory. */
static void
compiler_fence(struct sc_xlate *x)
{
   LLVMBuildFence(x->b, LLVMAtomicOrderingSequentiallyConsistent, true, "");
}

/* The element size OpPtrDiff counts in: the pointer type's ArrayStride,
 * else the stride of the array the pointer's access chain indexes last
 * (followed back through copies, selects and phis, whose operands point
 * into the same array, as OpPtrDiff's operands must); 0 when neither is
 * known (a pointer to a struct member or a vector component). */
static uint32_t
ptr_diff_stride(struct sc_xlate *x, uint32_t ptr_type, uint32_t id)
{
   const struct sc_module *m = x->m;
   uint32_t stride;
   if (sc_module_decoration(m, ptr_type, SC_NONE, SpvDecorationArrayStride, &stride))
      return stride;
   for (int depth = 0; depth < 32; depth++) {
      const struct sc_inst *d = sc_module_def(m, id);
      if (!d)
         return 0;
      switch (d->opcode) {
      case SpvOpCopyObject:
         id = d->w[3];
         continue;
      case SpvOpSelect:
         id = d->w[4];
         continue;
      case SpvOpPhi:
         id = d->w[3];
         continue;
      case SpvOpAccessChain:
      case SpvOpInBoundsAccessChain:
      case SpvOpPtrAccessChain:
      case SpvOpInBoundsPtrAccessChain: {
         bool ptr_chain =
            d->opcode == SpvOpPtrAccessChain || d->opcode == SpvOpInBoundsPtrAccessChain;
         uint32_t first = ptr_chain ? 5 : 4;
         const struct sc_inst *bd = sc_module_def(m, d->w[3]);
         if (!bd || d->nwords < first)
            return 0;
         if (d->nwords == first) {
            /* No indexes: the base's array (an OpPtrAccessChain's Element
             * steps by its base pointer type's ArrayStride). */
            if (!ptr_chain) {
               id = d->w[3];
               continue;
            }
            return sc_module_decoration(m, bd->type_id, SC_NONE, SpvDecorationArrayStride,
                                        &stride)
                      ? stride
                      : 0;
         }
         uint32_t type = pointee(x, bd->type_id);
         for (uint32_t k = first; k + 1 < d->nwords; k++) {
            const struct sc_type *t = sc_module_type(m, type);
            if (!t)
               return 0;
            if (t->kind == SC_T_STRUCT) {
               const struct sc_inst *c = sc_module_def(m, d->w[k]);
               if (!c || c->opcode != SpvOpConstant || c->w[3] >= t->count)
                  return 0;
               type = t->members[c->w[3]];
            } else {
               type = t->elem;
            }
         }
         const struct sc_type *t = sc_module_type(m, type);
         if (t && (t->kind == SC_T_ARRAY || t->kind == SC_T_RUNTIME_ARRAY))
            return sc_layout_array_stride(m, type);
         return 0;
      }
      default:
         return 0;
      }
   }
   return 0;
}

/* OpPtrEqual, OpPtrNotEqual and OpPtrDiff (SPIR-V 1.4) of variable pointers
 * into storage buffers: each lane's address (base + offset) compared or
 * subtracted; OpPtrDiff's byte difference divided by the element stride. */
static bool
emit_ptr_compare(struct sc_xlate *x, const struct sc_inst *d)
{
   if (d->nwords != 5)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad %s", sc_opcode_name(d->opcode));
   const struct sc_ptr *pa = sc_get_ptr(x, d->w[3]);
   if (!pa)
      return false;
   struct sc_ptr a = *pa;
   const struct sc_ptr *pb = sc_get_ptr(x, d->w[4]);
   if (!pb || !sc_ptr_is_variable(x, &a) || !sc_ptr_is_variable(x, pb))
      return false;
   LLVMBuilderRef b = x->b;
   bool lanes = a.base_varying || a.offset_varying || pb->base_varying || pb->offset_varying;
   LLVMValueRef pa3[3], pb3[3];
   sc_ptr_parts(x, &a, lanes, pa3);
   sc_ptr_parts(x, pb, lanes, pb3);
   LLVMTypeRef i64 = lanes ? sc_vec_type(x, x->t_i64) : x->t_i64;
   LLVMValueRef addr_a = LLVMBuildAdd(b, LLVMBuildPtrToInt(b, pa3[0], i64, ""),
                                      LLVMBuildZExt(b, pa3[1], i64, ""), "");
   LLVMValueRef addr_b = LLVMBuildAdd(b, LLVMBuildPtrToInt(b, pb3[0], i64, ""),
                                      LLVMBuildZExt(b, pb3[1], i64, ""), "");
   struct sc_val v = sc_new_val(x, 1, !lanes);
   if (!v.c)
      return false;
   if (d->opcode != SpvOpPtrDiff) {
      v.c[0] = LLVMBuildICmp(b, d->opcode == SpvOpPtrEqual ? LLVMIntEQ : LLVMIntNE, addr_a,
                             addr_b, "");
      return sc_set(x, d->result_id, v);
   }
   const struct sc_inst *ad = sc_module_def(x->m, d->w[3]);
   uint32_t stride = ad ? ptr_diff_stride(x, ad->type_id, d->w[3]) : 0;
   if (!stride)
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "OpPtrDiff of pointers that do not index an array of known stride");
   const struct sc_type *rt = sc_module_type(x->m, d->type_id);
   if (!rt || rt->kind != SC_T_INT || (rt->width != 16 && rt->width != 32 && rt->width != 64))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpPtrDiff result is not an integer");
   LLVMValueRef s = LLVMConstInt(x->t_i64, stride, false);
   LLVMValueRef n = LLVMBuildSDiv(b, LLVMBuildSub(b, addr_a, addr_b, ""),
                                  lanes ? sc_splat(x, s) : s, "");
   if (rt->width != 64) {
      LLVMTypeRef it = rt->width == 16 ? x->t_i16 : x->t_i32;
      n = LLVMBuildTrunc(b, n, lanes ? sc_vec_type(x, it) : it, "");
   }
   v.c[0] = n;
   return sc_set(x, d->result_id, v);
}

bool
sc_emit_memory(struct sc_xlate *x, const struct sc_inst *inst, bool *handled)
{
   *handled = true;
   if (sc_opcode_is_atomic(inst->opcode))
      return sc_emit_atomic(x, inst);
   switch (inst->opcode) {
   case SpvOpVariable:
      return true;   /* storage made by sc_memory_init */
   case SpvOpAccessChain:
   case SpvOpInBoundsAccessChain:
      /* Computed where used (sc_get_ptr). */
      return true;
   case SpvOpPtrAccessChain:
   case SpvOpInBoundsPtrAccessChain:
      /* Computed where used (sc_get_ptr). */
      return true;
   case SpvOpSelect:
      if (sc_cfg_is_pointer(x->m, inst->result_id))
         return true;   /* computed where used */
      *handled = false;
      return true;
   case SpvOpLoad: {
      if (sc_cfg_is_pointer(x->m, inst->result_id))
         return load_ptr_var(x, inst);
      const struct sc_ptr *p = sc_get_ptr(x, inst->w[3]);
      struct sc_val v;
      bool vol = access_is_volatile(inst, 4);
      if (vol)
         compiler_fence(x);
      if (!p || !load_value(x, p, inst->type_id, &v))
         return false;
      if (vol)
         compiler_fence(x);
      return sc_set(x, inst->result_id, v);
   }
   case SpvOpStore: {
      if (is_ptr_var(x, inst->w[1]))
         return store_ptr_var(x, inst->w[1], inst->w[2]);
      const struct sc_ptr *p = sc_get_ptr(x, inst->w[1]);
      const struct sc_val *v = sc_get(x, inst->w[2]);
      if (!p || !v)
         return false;
      if (!access_is_volatile(inst, 3))
         return sc_store_value(x, p, v);
      compiler_fence(x);
      bool ok = sc_store_value(x, p, v);
      compiler_fence(x);
      return ok;
   }
   case SpvOpCopyMemory: {
      const struct sc_ptr *dst = sc_get_ptr(x, inst->w[1]);
      const struct sc_ptr *src = sc_get_ptr(x, inst->w[2]);
      struct sc_val v;
      if (!dst || !src || !load_value(x, src, src->type, &v))
         return false;
      return sc_store_value(x, dst, &v);
   }
   case SpvOpArrayLength:
      return emit_array_length(x, inst);
   case SpvOpPtrEqual:
   case SpvOpPtrNotEqual:
   case SpvOpPtrDiff:
      return emit_ptr_compare(x, inst);
   case SpvOpCopyObject:
   case SpvOpCopyLogical:
      if (sc_cfg_is_pointer(x->m, inst->result_id))
         return true;   /* computed where used */
      *handled = false;
      return true;
   case SpvOpMemoryBarrier:
      LLVMBuildFence(x->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
      return true;
   case SpvOpControlBarrier: {
      /* Lanes of a subgroup run in lockstep: a barrier of subgroup scope,
       * or of a workgroup that is one subgroup, only orders memory. */
      const struct sc_inst *scope = sc_module_def(x->m, inst->w[1]);
      if (!scope || scope->opcode != SpvOpConstant)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "barrier scope is not a constant");
      if (scope->w[3] == SpvScopeSubgroup || scope->w[3] == SpvScopeInvocation) {
         LLVMBuildFence(x->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
         return true;
      }
      return sc_emit_barrier(x);
   }
   default:
      *handled = false;
      return true;
   }
}
