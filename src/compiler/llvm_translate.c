/* SPIR-V -> LLVM IR in SPMD form: values, constants, lane masks and
 * structured control flow (see llvm_private.h). */
#include "llvm_private.h"

#include <llvm-c/Target.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

/* Largest flattened value we translate. */
#define SC_MAX_VALUE_COMPONENTS 4096

struct sc_arena_chunk {
   struct sc_arena_chunk *next;
   size_t used, cap;
   _Alignas(16) unsigned char data[];
};

void *
sc_alloc(struct sc_xlate *x, size_t size)
{
   size = (size + 15) & ~(size_t)15;
   struct sc_arena_chunk *c = x->arena;
   if (!c || c->cap - c->used < size) {
      size_t cap = size > 65536 ? size : 65536;
      c = malloc(sizeof(*c) + cap);
      if (!c) {
         sc_fail(x, SC_ERROR_OUT_OF_MEMORY, "out of memory");
         return NULL;
      }
      c->next = x->arena;
      c->used = 0;
      c->cap = cap;
      x->arena = c;
   }
   void *p = c->data + c->used;
   c->used += size;
   memset(p, 0, size);
   return p;
}

void
sc_arena_free(struct sc_xlate *x)
{
   while (x->arena) {
      struct sc_arena_chunk *c = x->arena;
      x->arena = c->next;
      free(c);
   }
}

bool
sc_fail(struct sc_xlate *x, enum sc_result r, const char *fmt, ...)
{
   if (x->err == SC_SUCCESS) {
      x->err = r;
      if (x->message && x->message_size) {
         va_list ap;
         va_start(ap, fmt);
         vsnprintf(x->message, x->message_size, fmt, ap);
         va_end(ap);
      }
   }
   return false;
}

struct sc_val
sc_new_val(struct sc_xlate *x, uint32_t n, bool uniform)
{
   struct sc_val v = { NULL, n, uniform };
   if (n > SC_MAX_VALUE_COMPONENTS) {
      sc_fail(x, SC_ERROR_UNSUPPORTED, "value of %u components is too large", n);
      return v;
   }
   v.c = sc_alloc(x, (n ? n : 1) * sizeof(LLVMValueRef));
   return v;
}

LLVMTypeRef
sc_vec_type(struct sc_xlate *x, LLVMTypeRef scalar)
{
   return LLVMVectorType(scalar, x->W);
}

LLVMValueRef
sc_const_i32(struct sc_xlate *x, uint32_t v)
{
   return LLVMConstInt(x->t_i32, v, false);
}

LLVMValueRef
sc_splat(struct sc_xlate *x, LLVMValueRef scalar)
{
   return sc_splat_with(x, x->b, scalar);
}

LLVMValueRef
sc_splat_with(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef scalar)
{
   LLVMTypeRef t = LLVMTypeOf(scalar);
   if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      return scalar;
   if (LLVMIsConstant(scalar)) {
      LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
      for (uint32_t i = 0; i < x->W; i++)
         e[i] = scalar;
      return LLVMConstVector(e, x->W);
   }
   LLVMTypeRef vt = sc_vec_type(x, t);
   LLVMValueRef v = LLVMBuildInsertElement(b, LLVMGetPoison(vt), scalar, sc_const_i32(x, 0), "");
   LLVMValueRef zeros = LLVMConstNull(LLVMVectorType(x->t_i32, x->W));
   return LLVMBuildShuffleVector(b, v, LLVMGetPoison(vt), zeros, "");
}

LLVMValueRef
sc_comp(struct sc_xlate *x, const struct sc_val *v, uint32_t i, bool vec)
{
   LLVMValueRef c = v->c[i];
   return vec && v->uniform ? sc_splat(x, c) : c;
}

bool
sc_lin_of(const struct sc_val *v, uint32_t i, struct sc_lin *out)
{
   if (v->uniform) {
      if (LLVMGetTypeKind(LLVMTypeOf(v->c[i])) != LLVMIntegerTypeKind)
         return false;
      out->base = v->c[i];
      out->stride = 0;
      return true;
   }
   if (!v->lin || !v->lin[i].base)
      return false;
   *out = v->lin[i];
   return true;
}

void
sc_set_lin(struct sc_xlate *x, struct sc_val *v, uint32_t i, LLVMValueRef base, int64_t stride)
{
   if (v->uniform || !base)
      return;
   if (!v->lin) {
      v->lin = sc_alloc(x, v->n * sizeof(*v->lin));
      if (!v->lin)
         return;
   }
   v->lin[i].base = base;
   v->lin[i].stride = stride;
}

void
sc_make_varying(struct sc_xlate *x, struct sc_val *v)
{
   if (!v->uniform)
      return;
   LLVMValueRef *scalars = sc_alloc(x, v->n * sizeof(LLVMValueRef));
   for (uint32_t i = 0; i < v->n; i++) {
      if (scalars)
         scalars[i] = v->c[i];
      v->c[i] = sc_splat(x, v->c[i]);
   }
   v->uniform = false;
   /* Uniform integers stay known: base + lane * 0. */
   for (uint32_t i = 0; scalars && i < v->n; i++)
      if (LLVMGetTypeKind(LLVMTypeOf(scalars[i])) == LLVMIntegerTypeKind)
         sc_set_lin(x, v, i, scalars[i], 0);
}

LLVMTypeRef
sc_llvm_scalar(struct sc_xlate *x, uint32_t scalar_type_id)
{
   const struct sc_type *t = sc_module_type(x->m, scalar_type_id);
   if (!t)
      return x->t_i32;
   switch (t->kind) {
   case SC_T_BOOL:
      return x->t_i1;
   case SC_T_INT:
      return LLVMIntTypeInContext(x->ctx, t->width);
   case SC_T_FLOAT:
      return t->width == 16 ? x->t_f16 : t->width == 64 ? x->t_f64 : x->t_f32;
   case SC_T_IMAGE:
   case SC_T_SAMPLER:
   case SC_T_SAMPLED_IMAGE:
      return x->t_ptr;   /* the descriptor record */
   default:
      return x->t_i32;
   }
}

uint32_t
sc_ncomp(struct sc_xlate *x, uint32_t type_id)
{
   const struct sc_type *t = sc_module_type(x->m, type_id);
   return t ? t->ncomp : 0;
}

uint32_t
sc_scalar_at(struct sc_xlate *x, uint32_t type_id, uint32_t index)
{
   for (;;) {
      const struct sc_type *t = sc_module_type(x->m, type_id);
      if (!t)
         return type_id;
      switch (t->kind) {
      case SC_T_VECTOR:
      case SC_T_MATRIX:
      case SC_T_ARRAY: {
         uint32_t n = sc_ncomp(x, t->elem);
         index = n ? index % n : 0;
         type_id = t->elem;
         break;
      }
      case SC_T_STRUCT: {
         uint32_t i;
         for (i = 0; i < t->count; i++) {
            uint32_t n = sc_ncomp(x, t->members[i]);
            if (index < n)
               break;
            index -= n;
         }
         if (i == t->count)
            return type_id;
         type_id = t->members[i];
         break;
      }
      default:
         return type_id;
      }
   }
}

LLVMValueRef
sc_intrinsic(struct sc_xlate *x, const char *name, LLVMTypeRef *overload, unsigned noverload,
             LLVMValueRef *args, unsigned nargs)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMValueRef decl = LLVMGetIntrinsicDeclaration(x->mod, id, overload, noverload);
   LLVMTypeRef fnty = LLVMIntrinsicGetType(x->ctx, id, overload, noverload);
   return LLVMBuildCall2(x->b, fnty, decl, args, nargs, "");
}

LLVMValueRef
sc_any(struct sc_xlate *x, LLVMValueRef mask)
{
   LLVMTypeRef t = LLVMTypeOf(mask);
   if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
      return mask;
   return sc_intrinsic(x, "llvm.vector.reduce.or", &t, 1, &mask, 1);
}

void
sc_lane_loop_begin(struct sc_xlate *x, struct sc_lane_loop *l, LLVMValueRef mask)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   LLVMTypeRef bits_t = LLVMIntTypeInContext(x->ctx, x->W);
   l->slot = sc_entry_alloca(x, mt, 1);
   LLVMBuildStore(b, mask, l->slot);
   l->head = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "lanes");
   LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "lane");
   l->done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "lanes_done");
   LLVMBuildBr(b, l->head);
   LLVMPositionBuilderAtEnd(b, l->head);
   l->pending = LLVMBuildLoad2(b, mt, l->slot, "");
   LLVMBuildCondBr(b, sc_any(x, l->pending), body, l->done);
   LLVMPositionBuilderAtEnd(b, body);
   LLVMValueRef args[2] = { LLVMBuildBitCast(b, l->pending, bits_t, ""),
                            LLVMConstInt(x->t_i1, 1, false) };
   l->lane = LLVMBuildZExtOrBitCast(b, sc_intrinsic(x, "llvm.cttz", &bits_t, 1, args, 2),
                                    x->t_i32, "");
}

LLVMValueRef
sc_lane_loop_same(struct sc_xlate *x, const struct sc_lane_loop *l, LLVMValueRef v,
                  LLVMValueRef *value)
{
   LLVMBuilderRef b = x->b;
   *value = LLVMBuildExtractElement(b, v, l->lane, "");
   return LLVMBuildAnd(b, l->pending, LLVMBuildICmp(b, LLVMIntEQ, v, sc_splat(x, *value), ""), "");
}

void
sc_lane_loop_end(struct sc_xlate *x, struct sc_lane_loop *l, LLVMValueRef group)
{
   LLVMBuilderRef b = x->b;
   LLVMBuildStore(b, LLVMBuildAnd(b, l->pending, LLVMBuildNot(b, group, ""), ""), l->slot);
   LLVMBuildBr(b, l->head);
   LLVMPositionBuilderAtEnd(b, l->done);
}

LLVMValueRef
sc_entry_alloca(struct sc_xlate *x, LLVMTypeRef type, uint32_t align)
{
   LLVMValueRef a = LLVMBuildAlloca(x->eb, type, "");
   /* Loads and stores of the slot assume the type's own alignment. */
   uint32_t abi = LLVMABIAlignmentOfType(LLVMGetModuleDataLayout(x->mod), type);
   LLVMSetAlignment(a, align > abi ? align : abi);
   return a;
}

LLVMValueRef
sc_persistent_alloca(struct sc_xlate *x, LLVMTypeRef type, uint32_t align)
{
   LLVMValueRef a = sc_entry_alloca(x, type, align);
   /* Defined contents: inactive lanes read it, and undefined values must not
    * reach operations whose undefined inputs are undefined behaviour. Arrays
    * (per-lane variables) are cleared with memset: SROA would split a zero
    * array store into one store per element. */
   if (LLVMGetTypeKind(type) == LLVMArrayTypeKind) {
      uint64_t size = LLVMABISizeOfType(LLVMGetModuleDataLayout(x->mod), type);
      LLVMBuildMemSet(x->ib, a, LLVMConstInt(x->t_i8, 0, false),
                      LLVMConstInt(x->t_i64, size, false), LLVMGetAlignment(a));
   } else {
      LLVMBuildStore(x->ib, LLVMConstNull(type), a);
   }
   if (!x->barrier_mode)
      return a;
   if (x->npersist == x->cap_persist) {
      uint32_t cap = x->cap_persist ? x->cap_persist * 2 : 64;
      void *p = realloc(x->persist, cap * sizeof(*x->persist));
      if (!p) {
         sc_fail(x, SC_ERROR_OUT_OF_MEMORY, "out of memory");
         return a;
      }
      x->persist = p;
      x->cap_persist = cap;
   }
   x->persist[x->npersist++] = a;
   return a;
}

/* Loads a field of a context struct at a byte offset, in the entry block. */
LLVMValueRef
sc_ctx_field(struct sc_xlate *x, LLVMValueRef base, uint32_t offset, LLVMTypeRef type)
{
   LLVMValueRef idx = LLVMConstInt(x->t_i64, offset, false);
   LLVMValueRef p = LLVMBuildGEP2(x->eb, x->t_i8, base, &idx, 1, "");
   LLVMValueRef v = LLVMBuildLoad2(x->eb, type, p, "");
   LLVMSetAlignment(v, 4);
   return v;
}

/* ------------------------------------------------------------------------ */
/* Constants and values                                                      */
/* ------------------------------------------------------------------------ */

static bool
const_components(struct sc_xlate *x, uint32_t id, LLVMValueRef *out, uint32_t n, unsigned depth)
{
   const struct sc_inst *d = sc_module_def(x->m, id);
   if (!d || depth > 32)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad constant %%%u", id);
   uint32_t tn = sc_ncomp(x, d->type_id);
   if (tn != n)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "constant %%%u has the wrong size", id);
   switch (d->opcode) {
   case SpvOpConstantTrue:
   case SpvOpSpecConstantTrue:
      out[0] = LLVMConstInt(x->t_i1, 1, false);
      return true;
   case SpvOpConstantFalse:
   case SpvOpSpecConstantFalse:
      out[0] = LLVMConstInt(x->t_i1, 0, false);
      return true;
   case SpvOpConstant:
   case SpvOpSpecConstant: {
      const struct sc_type *t = sc_module_type(x->m, d->type_id);
      if (!t || (t->kind != SC_T_INT && t->kind != SC_T_FLOAT))
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad constant type");
      uint64_t bits = d->w[3];
      if (t->width > 32 && d->nwords > 4)
         bits |= (uint64_t)d->w[4] << 32;
      LLVMTypeRef it = LLVMIntTypeInContext(x->ctx, t->width);
      LLVMValueRef c = LLVMConstInt(it, bits, false);
      if (t->kind == SC_T_FLOAT)
         c = LLVMConstBitCast(c, sc_llvm_scalar(x, d->type_id));
      out[0] = c;
      return true;
   }
   case SpvOpConstantComposite:
   case SpvOpSpecConstantComposite: {
      uint32_t k = 0;
      for (uint32_t i = 3; i < d->nwords; i++) {
         uint32_t cn = 0;
         const struct sc_inst *cd = sc_module_def(x->m, d->w[i]);
         if (cd)
            cn = sc_ncomp(x, cd->type_id);
         if (cn > n - k)   /* k <= n */
            return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad composite constant");
         if (!const_components(x, d->w[i], out + k, cn, depth + 1))
            return false;
         k += cn;
      }
      return true;
   }
   case SpvOpSpecConstantOp:
      return sc_const_spec_op(x, d, out, n);
   case SpvOpConstantNull:
   case SpvOpUndef:
      for (uint32_t i = 0; i < n; i++)
         out[i] = LLVMConstNull(sc_llvm_scalar(x, sc_scalar_at(x, d->type_id, i)));
      return true;
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported constant %s",
                     sc_opcode_name(d->opcode));
   }
}

const struct sc_val *
sc_get(struct sc_xlate *x, uint32_t id)
{
   if (id >= x->m->bound) {
      sc_fail(x, SC_ERROR_INVALID_SPIRV, "id %u out of range", id);
      return NULL;
   }
   struct sc_idinfo *ii = &x->ids[id];
   if (ii->cache_seg == x->seg || ii->cache_seg == SC_EVERYWHERE)
      return &ii->val;
   const struct sc_inst *d = sc_module_def(x->m, id);
   if (!d || !d->type_id) {
      sc_fail(x, SC_ERROR_INVALID_SPIRV, "%%%u is not a value", id);
      return NULL;
   }
   uint32_t n = sc_ncomp(x, d->type_id);
   if (x->cfg->def_block[id] != SC_NONE) {
      if (!ii->slots) {
         sc_fail(x, SC_ERROR_INTERNAL, "%%%u (%s) used where it is not available", id,
                 sc_opcode_name(d->opcode));
         return NULL;
      }
      struct sc_val v = sc_new_val(x, n, !x->cfg->varying[id]);
      if (!v.c)
         return NULL;
      for (uint32_t i = 0; i < n; i++) {
         v.c[i] = LLVMBuildLoad2(x->b, LLVMGetAllocatedType(ii->slots[i]), ii->slots[i], "");
         if (ii->lin_slots && ii->lin_slots[i] && !v.uniform) {
            LLVMValueRef base = LLVMBuildLoad2(x->b, LLVMGetAllocatedType(ii->lin_slots[i]),
                                               ii->lin_slots[i], "");
            sc_set_lin(x, &v, i, base, ii->lin_strides[i]);
         }
      }
      ii->val = v;
      ii->cache_seg = x->seg;
      return &ii->val;
   }
   if (d->opcode == SpvOpVariable || sc_module_type(x->m, d->type_id) == NULL ||
       sc_module_type(x->m, d->type_id)->kind == SC_T_POINTER) {
      sc_fail(x, SC_ERROR_UNSUPPORTED, "pointer %%%u used as a value", id);
      return NULL;
   }
   struct sc_val v = sc_new_val(x, n, true);
   if (!v.c || !const_components(x, id, v.c, n, 0))
      return NULL;
   ii->val = v;
   ii->cache_seg = SC_EVERYWHERE;
   return &ii->val;
}

static const struct sc_val *
shape_fail(struct sc_xlate *x, uint32_t id, const struct sc_val *v, const char *want)
{
   sc_fail(x, SC_ERROR_INVALID_SPIRV, "operand %%%u has %u components, expected %s", id, v->n,
           want);
   return NULL;
}

const struct sc_val *
sc_operand(struct sc_xlate *x, uint32_t id, uint32_t min, uint32_t max)
{
   const struct sc_val *v = sc_get(x, id);
   if (!v || (v->n >= min && v->n <= max))
      return v;
   char want[48];
   if (max == SC_ANY)
      snprintf(want, sizeof(want), "at least %u", min);
   else if (min == max)
      snprintf(want, sizeof(want), "%u", min);
   else
      snprintf(want, sizeof(want), "%u to %u", min, max);
   return shape_fail(x, id, v, want);
}

const struct sc_val *
sc_operand_like(struct sc_xlate *x, uint32_t id, uint32_t n)
{
   const struct sc_val *v = sc_get(x, id);
   if (!v || v->n == 1 || (v->n == n && n))
      return v;
   char want[32];
   snprintf(want, sizeof(want), "1 or %u", n);
   return shape_fail(x, id, v, want);
}

/* Scalar code (W == 1): a per-lane result of code shared with vector code
 * (a lane loop, a gather) is its one lane. */
static void
sc_make_scalar(struct sc_xlate *x, struct sc_val *v)
{
   for (uint32_t i = 0; i < v->n; i++)
      if (LLVMGetTypeKind(LLVMTypeOf(v->c[i])) == LLVMVectorTypeKind)
         v->c[i] = LLVMBuildExtractElement(x->b, v->c[i], sc_const_i32(x, 0), "");
   v->uniform = true;
   v->lin = NULL;
}

bool
sc_set(struct sc_xlate *x, uint32_t id, struct sc_val v)
{
   if (!v.c)
      return false;
   const struct sc_inst *d = sc_module_def(x->m, id);
   if (!d || v.n != sc_ncomp(x, d->type_id))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%%%u computed with %u components, its type has %u",
                     id, v.n, d ? sc_ncomp(x, d->type_id) : 0);
   struct sc_idinfo *ii = &x->ids[id];
   if (x->cfg->varying[id])
      sc_make_varying(x, &v);
   else if (!v.uniform && x->W == 1)
      sc_make_scalar(x, &v);
   else if (!v.uniform)
      return sc_fail(x, SC_ERROR_INTERNAL, "%%%u computed varying but analysed uniform", id);
   ii->val = v;
   ii->cache_seg = x->seg;
   uint8_t slot = x->cfg->slot[id];
   if (!slot)
      return true;
   if (!ii->slots) {
      ii->slots = sc_alloc(x, v.n * sizeof(LLVMValueRef));
      if (!ii->slots)
         return false;
      for (uint32_t i = 0; i < v.n; i++)
         ii->slots[i] = sc_persistent_alloca(x, LLVMTypeOf(v.c[i]), 4);
   }
   /* Linear forms survive plain slots (the value is defined once per use). */
   if (slot == 1 && v.lin && !ii->lin_slots) {
      ii->lin_slots = sc_alloc(x, v.n * sizeof(LLVMValueRef));
      ii->lin_strides = sc_alloc(x, v.n * sizeof(int64_t));
      for (uint32_t i = 0; ii->lin_slots && ii->lin_strides && i < v.n; i++) {
         if (!v.lin[i].base)
            continue;
         ii->lin_slots[i] = sc_persistent_alloca(x, LLVMTypeOf(v.lin[i].base), 4);
         ii->lin_strides[i] = v.lin[i].stride;
      }
   }
   for (uint32_t i = 0; ii->lin_slots && ii->lin_strides && i < v.n; i++)
      if (ii->lin_slots[i])
         LLVMBuildStore(x->b, v.lin[i].base, ii->lin_slots[i]);
   for (uint32_t i = 0; i < v.n; i++) {
      LLVMValueRef c = v.c[i];
      if (slot == 2 && !v.uniform) {
         LLVMValueRef old = LLVMBuildLoad2(x->b, LLVMTypeOf(c), ii->slots[i], "");
         c = LLVMBuildSelect(x->b, x->mask, c, old, "");
      }
      LLVMBuildStore(x->b, c, ii->slots[i]);
   }
   return true;
}

/* ------------------------------------------------------------------------ */
/* Control flow                                                              */
/* ------------------------------------------------------------------------ */

static void
or_into(struct sc_xlate *x, uint32_t block, LLVMValueRef edge)
{
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   LLVMValueRef old = LLVMBuildLoad2(x->b, mt, x->inmask[block], "");
   LLVMBuildStore(x->b, LLVMBuildOr(x->b, old, edge, ""), x->inmask[block]);
}

/* Phi incoming storage of a phi, created on first use. */
static LLVMValueRef *
phi_slots(struct sc_xlate *x, const struct sc_inst *phi)
{
   struct sc_idinfo *ii = &x->ids[phi->result_id];
   if (ii->phi_in)
      return ii->phi_in;
   if (sc_cfg_is_pointer(x->m, phi->result_id)) {
      /* A variable pointer: base, offset, range. */
      bool lanes = x->cfg->varying[phi->result_id];
      LLVMTypeRef t[3] = { x->t_ptr, x->t_i32, x->t_i32 };
      ii->phi_in = sc_alloc(x, 3 * sizeof(LLVMValueRef));
      if (!ii->phi_in)
         return NULL;
      for (int i = 0; i < 3; i++)
         ii->phi_in[i] = sc_persistent_alloca(x, lanes ? sc_vec_type(x, t[i]) : t[i], 8);
      return ii->phi_in;
   }
   uint32_t n = sc_ncomp(x, phi->type_id);
   if (n > SC_MAX_VALUE_COMPONENTS || !n) {
      sc_fail(x, SC_ERROR_UNSUPPORTED, "phi of %u components", n);
      return NULL;
   }
   ii->phi_in = sc_alloc(x, n * sizeof(LLVMValueRef));
   if (!ii->phi_in)
      return NULL;
   bool varying = x->cfg->varying[phi->result_id];
   for (uint32_t i = 0; i < n; i++) {
      LLVMTypeRef t = sc_llvm_scalar(x, sc_scalar_at(x, phi->type_id, i));
      if (varying)
         t = sc_vec_type(x, t);
      ii->phi_in[i] = sc_persistent_alloca(x, t, 4);
   }
   return ii->phi_in;
}

bool
sc_phi_ptr(struct sc_xlate *x, const struct sc_inst *phi, struct sc_ptr *p)
{
   LLVMValueRef *slots = phi_slots(x, phi);
   if (!slots)
      return false;
   const struct sc_type *t = sc_module_type(x->m, phi->type_id);
   if (!t || t->kind != SC_T_POINTER || t->storage != SpvStorageClassStorageBuffer)
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "variable pointer outside the StorageBuffer storage class");
   LLVMValueRef parts[3];
   for (int i = 0; i < 3; i++)
      parts[i] = LLVMBuildLoad2(x->b, LLVMGetAllocatedType(slots[i]), slots[i], "");
   sc_ptr_from_parts(x, p, t->elem, x->cfg->varying[phi->result_id], parts);
   return true;
}

/* The parts of the pointer a pointer phi takes on an edge, for phi_edge
 * (computed before any of the edge's stores: a phi of the target may be
 * an incoming value of another). */
static bool
phi_ptr_parts(struct sc_xlate *x, const struct sc_inst *phi, uint32_t value, LLVMValueRef out[3])
{
   const struct sc_ptr *p = sc_get_ptr(x, value);
   if (!p || !sc_ptr_is_variable(x, p))
      return false;
   bool lanes = x->cfg->varying[phi->result_id];
   if (!lanes && (p->base_varying || p->offset_varying))
      return sc_fail(x, SC_ERROR_INTERNAL, "uniform phi %%%u with a varying input",
                     phi->result_id);
   sc_ptr_mark_written(x, p);   /* stores through the phi may reach p's binding */
   sc_ptr_parts(x, p, lanes, out);
   return true;
}

/* Stores the values block x->block passes to target's phis on an edge taken
 * by the lanes in edge, or by every lane (all: from a full block). */
static bool
phi_edge(struct sc_xlate *x, uint32_t target, LLVMValueRef edge, bool all)
{
   const struct sc_block *tb = &x->f->blocks[target];
   uint32_t label = x->f->blocks[x->block].label;
   LLVMValueRef any = NULL;
   /* Pointer phis' incoming parts first (see phi_ptr_parts). */
   uint32_t nptr = 0;
   for (uint32_t i = tb->first; i < tb->term && x->m->insts[i].opcode == SpvOpPhi; i++)
      nptr += sc_cfg_is_pointer(x->m, x->m->insts[i].result_id);
   LLVMValueRef *ptr_parts = nptr ? sc_alloc(x, 3 * nptr * sizeof(LLVMValueRef)) : NULL;
   if (nptr && !ptr_parts)
      return false;
   nptr = 0;
   for (uint32_t i = tb->first; i < tb->term && x->m->insts[i].opcode == SpvOpPhi; i++) {
      const struct sc_inst *phi = &x->m->insts[i];
      if (!sc_cfg_is_pointer(x->m, phi->result_id))
         continue;
      LLVMValueRef *out = ptr_parts + 3 * nptr++;
      out[0] = NULL;
      for (uint32_t k = 3; k + 1 < phi->nwords; k += 2)
         if (phi->w[k + 1] == label && !phi_ptr_parts(x, phi, phi->w[k], out))
            return false;
   }
   nptr = 0;
   for (uint32_t i = tb->first; i < tb->term; i++) {
      const struct sc_inst *phi = &x->m->insts[i];
      if (phi->opcode != SpvOpPhi)
         break;
      if (sc_cfg_is_pointer(x->m, phi->result_id)) {
         LLVMValueRef *parts = ptr_parts + 3 * nptr++;
         LLVMValueRef *slots = phi_slots(x, phi);
         if (!slots)
            return false;
         if (!parts[0])
            continue;   /* not an incoming edge of this phi */
         bool lanes = x->cfg->varying[phi->result_id];
         LLVMValueRef cond = all ? NULL : lanes ? edge : any ? any : (any = sc_any(x, edge));
         for (int c = 0; c < 3; c++) {
            LLVMValueRef nv = parts[c];
            if (cond) {
               LLVMValueRef old = LLVMBuildLoad2(x->b, LLVMTypeOf(nv), slots[c], "");
               nv = LLVMBuildSelect(x->b, cond, nv, old, "");
            }
            LLVMBuildStore(x->b, nv, slots[c]);
         }
         continue;
      }
      uint32_t value = 0;
      for (uint32_t k = 3; k + 1 < phi->nwords; k += 2)
         if (phi->w[k + 1] == label)
            value = phi->w[k];
      if (!value)
         continue;
      LLVMValueRef *slots = phi_slots(x, phi);
      uint32_t pn = sc_ncomp(x, phi->type_id);   /* the phi's slots */
      const struct sc_val *v = sc_operand(x, value, pn, pn);
      if (!slots || !v)
         return false;
      bool varying = x->cfg->varying[phi->result_id];
      if (!varying && !v->uniform)
         return sc_fail(x, SC_ERROR_INTERNAL, "uniform phi %%%u with a varying input",
                        phi->result_id);
      LLVMValueRef cond = NULL;
      if (!all)
         cond = varying ? edge : any ? any : (any = sc_any(x, edge));
      for (uint32_t c = 0; c < v->n; c++) {
         LLVMValueRef nv = sc_comp(x, v, c, varying);
         if (cond) {
            LLVMValueRef old = LLVMBuildLoad2(x->b, LLVMTypeOf(nv), slots[c], "");
            nv = LLVMBuildSelect(x->b, cond, nv, old, "");
         }
         LLVMBuildStore(x->b, nv, slots[c]);
      }
   }
   return true;
}

/* Takes the edge to label for the lanes in edge (from a block that is not
 * full, or a divergent branch of one that is). */
static bool
take_edge(struct sc_xlate *x, uint32_t label, LLVMValueRef edge)
{
   uint32_t target = label < x->m->bound ? x->m->label_block[label] : SC_NONE;
   if (target == SC_NONE || target >= x->f->nblocks)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "branch to a bad label");
   if (x->cfg->full[target]) {
      if (!x->reach[target])
         return sc_fail(x, SC_ERROR_INTERNAL, "block %u has no reached flag", target);
      LLVMValueRef old = LLVMBuildLoad2(x->b, x->t_i1, x->reach[target], "");
      LLVMBuildStore(x->b, LLVMBuildOr(x->b, old, sc_any(x, edge), ""), x->reach[target]);
   } else {
      or_into(x, target, edge);
   }
   return phi_edge(x, target, edge, false);
}

static LLVMValueRef
cond_mask(struct sc_xlate *x, uint32_t id)
{
   const struct sc_val *c = sc_operand(x, id, 1, 1);
   if (!c)
      return NULL;
   return LLVMBuildAnd(x->b, x->mask, sc_comp(x, c, 0, true), "");
}

static bool
emit_switch(struct sc_xlate *x, const struct sc_inst *t)
{
   const struct sc_val *sel = sc_operand(x, t->w[1], 1, 1);
   if (!sel)
      return false;
   LLVMValueRef s = sc_comp(x, sel, 0, true);
   LLVMTypeRef st = LLVMGetElementType(LLVMTypeOf(s));
   unsigned width = LLVMGetIntTypeWidth(st);
   unsigned lit_words = width > 32 ? 2 : 1;
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   LLVMValueRef matched = LLVMConstNull(mt);
   /* Distinct targets with their accumulated masks. */
   uint32_t ncase = (t->nwords - 3) / (lit_words + 1);
   uint32_t *labels = sc_alloc(x, (ncase + 1) * sizeof(uint32_t));
   LLVMValueRef *masks = sc_alloc(x, (ncase + 1) * sizeof(LLVMValueRef));
   if (!labels || !masks)
      return false;
   uint32_t nt = 0;
   for (uint32_t k = 3; k + lit_words < t->nwords; k += lit_words + 1) {
      uint64_t lit = t->w[k];
      if (lit_words == 2)
         lit |= (uint64_t)t->w[k + 1] << 32;
      uint32_t label = t->w[k + lit_words];
      LLVMValueRef eq = LLVMBuildICmp(x->b, LLVMIntEQ, s,
                                      sc_splat(x, LLVMConstInt(st, lit, false)), "");
      matched = LLVMBuildOr(x->b, matched, eq, "");
      uint32_t j;
      for (j = 0; j < nt && labels[j] != label; j++)
         ;
      if (j == nt) {
         labels[nt] = label;
         masks[nt++] = LLVMConstNull(mt);
      }
      masks[j] = LLVMBuildOr(x->b, masks[j], eq, "");
   }
   LLVMValueRef def = LLVMBuildNot(x->b, matched, "");
   uint32_t j;
   for (j = 0; j < nt && labels[j] != t->w[2]; j++)
      ;
   if (j == nt) {
      labels[nt] = t->w[2];
      masks[nt++] = LLVMConstNull(mt);
   }
   masks[j] = LLVMBuildOr(x->b, masks[j], def, "");
   for (j = 0; j < nt; j++)
      if (!take_edge(x, labels[j], LLVMBuildAnd(x->b, x->mask, masks[j], "")))
         return false;
   return true;
}

static bool
emit_terminator(struct sc_xlate *x, const struct sc_inst *t)
{
   switch (t->opcode) {
   case SpvOpBranch:
      return take_edge(x, t->w[1], x->mask);
   case SpvOpBranchConditional: {
      if (t->w[2] == t->w[3])
         return take_edge(x, t->w[2], x->mask);
      LLVMValueRef tm = cond_mask(x, t->w[1]);
      if (!tm)
         return false;
      LLVMValueRef fm = LLVMBuildXor(x->b, x->mask, tm, "");
      return take_edge(x, t->w[2], tm) && take_edge(x, t->w[3], fm);
   }
   case SpvOpSwitch:
      return emit_switch(x, t);
   case SpvOpReturn:
   case SpvOpUnreachable:
      return true;
   case SpvOpKill:
   case SpvOpTerminateInvocation:
      return sc_stage_kill(x);
   case SpvOpReturnValue:
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "entry point returns a value");
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported instruction %s",
                     sc_opcode_name(t->opcode));
   }
}

/* Takes the edge to label for every lane, from a full block: a full target
 * runs next (a direct jump to its code: every other block until it has no
 * lanes); another target gets the lanes in its mask and waits its turn. */
static bool
take_full_edge(struct sc_xlate *x, uint32_t label, LLVMBasicBlockRef end)
{
   uint32_t target = label < x->m->bound ? x->m->label_block[label] : SC_NONE;
   if (target == SC_NONE || target >= x->f->nblocks)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "branch to a bad label");
   if (!x->cfg->full[target])
      or_into(x, target, x->mask);
   bool ok = phi_edge(x, target, x->mask, true);
   LLVMBuildBr(x->b, x->cfg->full[target] ? x->bb_body[target] : end);
   return ok;
}

/* The terminator of a full block: uniform branches become LLVM branches. */
static bool
emit_full_terminator(struct sc_xlate *x, const struct sc_inst *t, LLVMBasicBlockRef end)
{
   LLVMBasicBlockRef edge_bb[2];
   switch (t->opcode) {
   case SpvOpBranch:
      if (!take_full_edge(x, t->w[1], end))
         return false;
      break;
   case SpvOpBranchConditional: {
      const struct sc_val *c = sc_operand(x, t->w[1], 1, 1);
      if (!c)
         return false;
      if (!c->uniform && t->w[2] != t->w[3])
         return emit_terminator(x, t);
      if (t->w[2] == t->w[3]) {
         if (!take_full_edge(x, t->w[2], end))
            return false;
         break;
      }
      for (int k = 0; k < 2; k++)
         edge_bb[k] = LLVMAppendBasicBlockInContext(x->ctx, x->fn, k ? "else" : "then");
      LLVMBuildCondBr(x->b, c->c[0], edge_bb[0], edge_bb[1]);
      for (int k = 0; k < 2; k++) {
         LLVMPositionBuilderAtEnd(x->b, edge_bb[k]);
         if (!take_full_edge(x, t->w[2 + k], end))
            return false;
      }
      break;
   }
   case SpvOpSwitch: {
      const struct sc_val *sel = sc_operand(x, t->w[1], 1, 1);
      if (!sel)
         return false;
      if (!sel->uniform)
         return emit_terminator(x, t);
      LLVMValueRef s = sel->c[0];
      LLVMTypeRef st = LLVMTypeOf(s);
      unsigned lit_words = LLVMGetIntTypeWidth(st) > 32 ? 2 : 1;
      uint32_t ncase = (t->nwords - 3) / (lit_words + 1);
      LLVMBasicBlockRef def = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "default");
      LLVMValueRef sw = LLVMBuildSwitch(x->b, s, def, ncase);
      LLVMPositionBuilderAtEnd(x->b, def);
      if (!take_full_edge(x, t->w[2], end))
         return false;
      for (uint32_t k = 3; k + lit_words < t->nwords; k += lit_words + 1) {
         uint64_t lit = t->w[k];
         if (lit_words == 2)
            lit |= (uint64_t)t->w[k + 1] << 32;
         LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "case");
         LLVMAddCase(sw, LLVMConstInt(st, lit, false), bb);
         LLVMPositionBuilderAtEnd(x->b, bb);
         if (!take_full_edge(x, t->w[k + lit_words], end))
            return false;
      }
      break;
   }
   default:
      return emit_terminator(x, t);
   }
   /* Every path above ended in a branch: continue in a dead block, for the
    * caller's closing branch. */
   LLVMPositionBuilderAtEnd(x->b, LLVMAppendBasicBlockInContext(x->ctx, x->fn, "dead"));
   return true;
}

static bool emit_dispatch(struct sc_xlate *x, const struct sc_inst *inst);

/* A memory write of a fragment shader, kept from helper lanes (see
 * sc_stage_guard). Operands are evaluated first, outside the branch, so
 * that what they cache dominates later uses. */
static bool
emit_guarded(struct sc_xlate *x, const struct sc_inst *inst, int guard)
{
   for (unsigned k = 0; k < inst->noperands; k++) {
      const struct sc_operand *op = &x->m->operands[inst->first_operand + k];
      uint32_t id = inst->w[op->offset];
      if (op->kind != SC_OPERAND_ID)
         continue;
      if (sc_cfg_is_pointer(x->m, id) ? !sc_get_ptr(x, id) : !sc_get(x, id))
         return false;
   }
   LLVMValueRef saved = x->mask;
   x->mask = sc_stage_live_mask(x);
   bool ok;
   if (guard == 1) {
      ok = emit_dispatch(x, inst);
   } else {
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "live_write");
      LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "live_done");
      LLVMBuildCondBr(x->b, sc_any(x, x->mask), yes, done);
      LLVMPositionBuilderAtEnd(x->b, yes);
      ok = emit_dispatch(x, inst);
      LLVMBuildBr(x->b, done);
      LLVMPositionBuilderAtEnd(x->b, done);
   }
   x->mask = saved;
   return ok;
}

static bool
emit_instruction(struct sc_xlate *x, const struct sc_inst *inst)
{
   switch (inst->opcode) {
   case SpvOpNop:
   case SpvOpLine:
   case SpvOpNoLine:
   case SpvOpSelectionMerge:
   case SpvOpLoopMerge:
   case SpvOpPhi:
   case SpvOpAssumeTrueKHR:
      return true;
   case SpvOpUndef: {
      uint32_t n = sc_ncomp(x, inst->type_id);
      struct sc_val v = sc_new_val(x, n, true);
      if (!v.c)
         return false;
      for (uint32_t i = 0; i < n; i++)
         v.c[i] = LLVMConstNull(sc_llvm_scalar(x, sc_scalar_at(x, inst->type_id, i)));
      return sc_set(x, inst->result_id, v);
   }
   case SpvOpExtInst:
      if (inst->w[3] == x->m->glsl450 && x->m->glsl450)
         return sc_emit_glsl(x, inst);
      {
         const struct sc_inst *set = sc_module_def(x->m, inst->w[3]);
         if (set && !strncmp((const char *)&set->w[2], "NonSemantic.", 12)) {
            /* Non-semantic: may be dropped; its result may not be used. */
            return true;
         }
      }
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported extended instruction set");
   case SpvOpFunctionCall:
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "unsupported instruction OpFunctionCall (not inlined)");
   default:
      break;
   }
   int guard = x->live_slot ? sc_stage_guard(x, inst) : 0;
   if (guard)
      return emit_guarded(x, inst, guard);
   return emit_dispatch(x, inst);
}

static bool
emit_dispatch(struct sc_xlate *x, const struct sc_inst *inst)
{
   bool handled = false;
   if (!sc_emit_stage(x, inst, &handled))
      return false;
   if (handled)
      return true;
   if (!sc_emit_memory(x, inst, &handled))
      return false;
   if (handled)
      return true;
   if (!sc_emit_image(x, inst, &handled))
      return false;
   if (handled)
      return true;
   if (!sc_emit_subgroup(x, inst, &handled))
      return false;
   if (handled)
      return true;
   if (!sc_emit_op(x, inst, &handled))
      return false;
   if (handled)
      return true;
   return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported instruction %s",
                  sc_opcode_name(inst->opcode));
}

/* At a loop header's body (shader_abi.h "Cancellation"): every
 * SHALE_CANCEL_POLL_INTERVAL-th time, a relaxed load of *ctx->cancel; when
 * it is set, return at once. Rare, so the pointer is loaded in the poll. */
static void
emit_cancel_poll(struct sc_xlate *x)
{
   _Static_assert((SHALE_CANCEL_POLL_INTERVAL & (SHALE_CANCEL_POLL_INTERVAL - 1)) == 0,
                  "poll interval: a power of two");
   _Static_assert(offsetof(struct shale_vs_context, cancel) ==
                  offsetof(struct shale_cs_context, cancel), "vertex cancel");
   _Static_assert(offsetof(struct shale_fs_context, cancel) ==
                  offsetof(struct shale_cs_context, cancel), "fragment cancel");
   LLVMValueRef n = LLVMBuildLoad2(x->b, x->t_i32, x->poll_count, "polls");
   LLVMBuildStore(x->b, LLVMBuildAdd(x->b, n, sc_const_i32(x, 1), ""), x->poll_count);
   LLVMValueRef due = LLVMBuildICmp(x->b, LLVMIntEQ,
                                    LLVMBuildAnd(x->b, n, sc_const_i32(x, SHALE_CANCEL_POLL_INTERVAL - 1), ""),
                                    sc_const_i32(x, 0), "poll_due");
   LLVMValueRef expect_args[2] = { due, LLVMConstInt(x->t_i1, 0, false) };
   LLVMTypeRef i1 = x->t_i1;
   due = sc_intrinsic(x, "llvm.expect", &i1, 1, expect_args, 2);
   LLVMBasicBlockRef poll = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "poll");
   LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "poll_check");
   LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "poll_done");
   LLVMBuildCondBr(x->b, due, poll, cont);
   LLVMPositionBuilderAtEnd(x->b, poll);
   LLVMValueRef idx = LLVMConstInt(x->t_i64, offsetof(struct shale_cs_context, cancel), false);
   LLVMValueRef word = LLVMBuildLoad2(x->b, x->t_ptr,
                                      LLVMBuildGEP2(x->b, x->t_i8, x->arg_ctx, &idx, 1, ""), "cancel");
   LLVMSetAlignment(word, 8);
   LLVMBuildCondBr(x->b, LLVMBuildIsNull(x->b, word, ""), cont, check);
   LLVMPositionBuilderAtEnd(x->b, check);
   LLVMValueRef flag = LLVMBuildLoad2(x->b, x->t_i32, word, "cancelled");
   LLVMSetAlignment(flag, 4);
   LLVMSetOrdering(flag, LLVMAtomicOrderingMonotonic);
   LLVMBuildCondBr(x->b, LLVMBuildICmp(x->b, LLVMIntNE, flag, sc_const_i32(x, 0), ""),
                   x->cancelled, cont);
   LLVMPositionBuilderAtEnd(x->b, cont);
}

/* A 32-bit integer OpConstant's value. */
static bool
const_u32(const struct sc_xlate *x, uint32_t id, uint32_t *out)
{
   const struct sc_inst *c = sc_module_def(x->m, id);
   if (!c || c->opcode != SpvOpConstant || c->nwords != 4)
      return false;
   *out = c->w[3];
   return true;
}

/* The iteration count of loop l when it is a counted loop that ends by
 * itself, else 0 (an upper bound where it says so): its header (or the
 * header's only successor) leaves for the merge block unless
 * - `i < bound` (OpSLessThan / OpULessThan), where i is a phi of the header
 *   starting at a constant outside the loop and stepped by a positive
 *   constant inside it, and bound + step does not wrap; or
 * - `i > 0u` / `i != 0` (OpUGreaterThan / OpINotEqual with the constant 0),
 *   where i is a 32-bit phi of the header shifted right logically by a
 *   constant c in [1, 31] inside it (`for (s = n; s > 0u; s >>= 1)`, a
 *   tree reduction's loop): whatever it starts at, it is 0 after at most
 *   ceil(32 / c) steps. */
static uint64_t
loop_trip_count(const struct sc_xlate *x, uint32_t l)
{
   const struct sc_loop *loop = &x->cfg->loops[l];
   const struct sc_block *hb = &x->f->blocks[loop->header];
   const struct sc_block *cb = hb;
   const struct sc_inst *t = &x->m->insts[cb->term];
   if (t->opcode == SpvOpBranch) {
      uint32_t next = t->w[1] < x->m->bound ? x->m->label_block[t->w[1]] : SC_NONE;
      if (next == SC_NONE || next >= x->f->nblocks || next == loop->merge)
         return 0;
      cb = &x->f->blocks[next];
      t = &x->m->insts[cb->term];
   }
   if (t->opcode != SpvOpBranchConditional || t->nwords < 4)
      return 0;
   uint32_t merge_label = x->f->blocks[loop->merge].label;
   if (t->w[3] != merge_label || t->w[2] == merge_label)
      return 0;   /* stays while the condition holds, leaves otherwise */
   const struct sc_inst *cmp = sc_module_def(x->m, t->w[1]);
   if (!cmp || (cmp->opcode != SpvOpSLessThan && cmp->opcode != SpvOpULessThan &&
                cmp->opcode != SpvOpUGreaterThan && cmp->opcode != SpvOpINotEqual))
      return 0;
   bool is_signed = cmp->opcode == SpvOpSLessThan;
   bool shifted = cmp->opcode == SpvOpUGreaterThan || cmp->opcode == SpvOpINotEqual;
   uint32_t bound;
   if (!const_u32(x, cmp->w[4], &bound) || (shifted && bound != 0))
      return 0;
   const struct sc_inst *phi = sc_module_def(x->m, cmp->w[3]);
   if (!phi || phi->opcode != SpvOpPhi || phi->nwords != 7)
      return 0;
   /* The phi must be the header's: look for it there. */
   bool in_header = false;
   for (uint32_t i = hb->first; i < hb->term; i++)
      in_header |= &x->m->insts[i] == phi;
   if (!in_header)
      return 0;
   uint32_t start = 0, step = 0;
   bool have_start = false, have_step = false;
   for (int k = 3; k < 7; k += 2) {
      uint32_t value = phi->w[k], from = phi->w[k + 1];
      uint32_t fb = from < x->m->bound ? x->m->label_block[from] : SC_NONE;
      if (fb == SC_NONE || fb >= x->f->nblocks || x->cfg->pos[fb] == SC_NONE)
         return 0;
      uint32_t p = x->cfg->pos[fb];
      bool inside = p >= loop->first && p <= loop->last;
      if (!inside) {
         have_start = shifted || const_u32(x, value, &start);
      } else if (shifted) {
         const struct sc_inst *shr = sc_module_def(x->m, value);
         if (!shr || shr->opcode != SpvOpShiftRightLogical || shr->w[3] != phi->result_id)
            return 0;
         have_step = const_u32(x, shr->w[4], &step) && step >= 1 && step <= 31;
      } else {
         const struct sc_inst *add = sc_module_def(x->m, value);
         if (!add || add->opcode != SpvOpIAdd)
            return 0;
         uint32_t other = add->w[3] == phi->result_id ? add->w[4]
                        : add->w[4] == phi->result_id ? add->w[3] : 0;
         have_step = other && const_u32(x, other, &step);
      }
   }
   if (!have_start || !have_step || step == 0)
      return 0;
   if (shifted)
      return (32 + step - 1) / step;
   int64_t from, to, by;
   if (is_signed) {
      from = (int32_t)start, to = (int32_t)bound, by = (int32_t)step;
      if (by <= 0 || to + by > INT32_MAX)
         return 0;
   } else {
      from = start, to = bound, by = step;
      if (to + by > (int64_t)UINT32_MAX)
         return 0;
   }
   return to > from ? (uint64_t)((to - from + by - 1) / by) : 1;
}

/* Iterations a loop nest may run without a poll: SGEMM's 64 x 4 x 4 inner
 * loops fit, so they stay fully unrollable. */
#define SC_UNPOLLED_ITERATIONS 65536u

/* The iterations of loop l times those of the enclosing loops that do not
 * poll, when that stays within SC_UNPOLLED_ITERATIONS (l then needs no
 * poll: it ends by itself, soon); 0 when l polls. Between two polls of a
 * loop, or in a call without one, the unpolled loops run at most that many
 * iterations each: a loop that may not end (or ends late) always polls. */
static uint64_t
loop_unpolled(const struct sc_xlate *x, uint32_t l)
{
   uint64_t n = loop_trip_count(x, l);
   if (!n)
      return 0;
   uint32_t parent = x->cfg->loops[l].parent;
   uint64_t outer = parent == SC_NONE ? 0 : loop_unpolled(x, parent);
   if (outer)
      n *= outer;
   return n <= SC_UNPOLLED_ITERATIONS ? n : 0;
}

bool
sc_emit_block(struct sc_xlate *x, uint32_t pos, LLVMBasicBlockRef next)
{
   uint32_t b = x->cfg->order[pos];
   const struct sc_block *blk = &x->f->blocks[b];
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   x->block = b;
   x->seg = x->nseg++;
   LLVMPositionBuilderAtEnd(x->b, x->bb_head[b]);
   LLVMBasicBlockRef body = x->bb_body[b];
   LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "end");
   LLVMValueRef mask;
   if (x->cfg->full[b] && !x->reach[b]) {
      LLVMBuildBr(x->b, end);   /* only entered by direct jumps */
      mask = x->entry_mask;
   } else if (x->cfg->full[b]) {
      LLVMValueRef reached = LLVMBuildLoad2(x->b, x->t_i1, x->reach[b], "reached");
      LLVMBuildStore(x->b, LLVMConstNull(x->t_i1), x->reach[b]);
      LLVMBuildCondBr(x->b, reached, body, end);
      mask = x->entry_mask;
   } else {
      mask = LLVMBuildLoad2(x->b, mt, x->inmask[b], "mask");
      LLVMBuildStore(x->b, LLVMConstNull(mt), x->inmask[b]);
      LLVMBuildCondBr(x->b, sc_any(x, mask), body, end);
   }
   LLVMPositionBuilderAtEnd(x->b, body);
   x->mask = mask;
   if (x->cfg->header_loop[b] != SC_NONE && !(x->info->flags & SC_COMPILE_NO_CANCEL_POLLS) &&
       !loop_unpolled(x, x->cfg->header_loop[b]))
      emit_cancel_poll(x);

   /* Phis read their incoming storage first, all of them. */
   uint32_t i = blk->first;
   for (; i < blk->term && x->m->insts[i].opcode == SpvOpPhi; i++) {
      const struct sc_inst *phi = &x->m->insts[i];
      if (sc_cfg_is_pointer(x->m, phi->result_id)) {
         /* Read now, before this block's edges may store the next value;
          * later segments read the storage again (sc_get_ptr). */
         struct sc_idinfo *ii = &x->ids[phi->result_id];
         struct sc_ptr *p = ii->ptr ? ii->ptr : sc_alloc(x, sizeof(*p));
         if (!p || !sc_phi_ptr(x, phi, p))
            return false;
         ii->ptr = p;
         ii->cache_seg = x->seg;
         continue;
      }
      LLVMValueRef *slots = phi_slots(x, phi);
      if (!slots)
         return false;
      uint32_t n = sc_ncomp(x, phi->type_id);
      struct sc_val v = sc_new_val(x, n, !x->cfg->varying[phi->result_id]);
      if (!v.c)
         return false;
      for (uint32_t c = 0; c < n; c++)
         v.c[c] = LLVMBuildLoad2(x->b, LLVMGetAllocatedType(slots[c]), slots[c], "");
      if (!sc_set(x, phi->result_id, v))
         return false;
   }
   for (; i < blk->term; i++)
      if (!emit_instruction(x, &x->m->insts[i]))
         return false;
   if (x->cfg->full[b] ? !emit_full_terminator(x, &x->m->insts[blk->term], end)
                       : !emit_terminator(x, &x->m->insts[blk->term]))
      return false;
   LLVMBuildBr(x->b, end);

   /* Close the loops whose range ends here, innermost first. */
   LLVMPositionBuilderAtEnd(x->b, end);
   for (uint32_t l = x->cfg->loop_ending[pos]; l != SC_NONE; l = x->cfg->loop_next_ending[l]) {
      uint32_t h = x->cfg->loops[l].header;
      LLVMValueRef again = x->cfg->full[h] && !x->reach[h] ? LLVMConstInt(x->t_i1, 0, false)
         : x->cfg->full[h] ? LLVMBuildLoad2(x->b, x->t_i1, x->reach[h], "")
         : sc_any(x, LLVMBuildLoad2(x->b, mt, x->inmask[h], ""));
      LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "loop_exit");
      LLVMBuildCondBr(x->b, again, x->bb_head[h], out);
      LLVMPositionBuilderAtEnd(x->b, out);
   }
   LLVMBuildBr(x->b, next);
   return x->err == SC_SUCCESS;
}
