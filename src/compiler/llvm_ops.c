/* Arithmetic, logic, comparisons, conversions and composites for the SPMD
 * translator: component-wise on flattened values (see llvm_private.h). */
#include "llvm_private.h"

#include <string.h>

#include <spirv/unified1/spirv.h>

static bool
is_vector_type(LLVMTypeRef t)
{
   return LLVMGetTypeKind(t) == LLVMVectorTypeKind;
}

static LLVMTypeRef
elem_type(LLVMTypeRef t)
{
   return is_vector_type(t) ? LLVMGetElementType(t) : t;
}

/* A constant of scalar type st, splatted when like is a vector. */
static LLVMValueRef
const_like(struct sc_xlate *x, LLVMValueRef like, LLVMValueRef scalar_const)
{
   return is_vector_type(LLVMTypeOf(like)) ? sc_splat(x, scalar_const) : scalar_const;
}

static LLVMValueRef
int_const_like(struct sc_xlate *x, LLVMValueRef like, uint64_t v)
{
   return const_like(x, like, LLVMConstInt(elem_type(LLVMTypeOf(like)), v, false));
}

static LLVMValueRef
float_const_like(struct sc_xlate *x, LLVMValueRef like, double v)
{
   return const_like(x, like, LLVMConstReal(elem_type(LLVMTypeOf(like)), v));
}

/* The LLVM type of a component of result type id, uniform or per lane. */
static LLVMTypeRef
result_comp_type(struct sc_xlate *x, uint32_t type_id, uint32_t i, bool uniform)
{
   LLVMTypeRef t = sc_llvm_scalar(x, sc_scalar_at(x, type_id, i));
   return uniform ? t : sc_vec_type(x, t);
}

LLVMValueRef
sc_libm(struct sc_xlate *x, const char *name, LLVMValueRef *args, unsigned nargs,
        LLVMTypeRef type)
{
   LLVMTypeRef st = elem_type(type);
   LLVMTypeRef params[3] = { st, st, st };
   LLVMTypeRef fty = LLVMFunctionType(st, params, nargs, false);
   LLVMValueRef fn = LLVMGetNamedFunction(x->mod, name);
   if (!fn) {
      fn = LLVMAddFunction(x->mod, name, fty);
      const char *attr = "nounwind";
      unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(x->ctx, kind, 0));
   }
   if (!is_vector_type(type))
      return LLVMBuildCall2(x->b, fty, fn, args, nargs, "");
   LLVMValueRef r = LLVMGetPoison(type);
   for (uint32_t l = 0; l < x->W; l++) {
      LLVMValueRef li = sc_const_i32(x, l);
      LLVMValueRef a[3];
      for (unsigned k = 0; k < nargs; k++)
         a[k] = LLVMBuildExtractElement(x->b, args[k], li, "");
      LLVMValueRef c = LLVMBuildCall2(x->b, fty, fn, a, nargs, "");
      r = LLVMBuildInsertElement(x->b, r, c, li, "");
   }
   return r;
}

/* ------------------------------------------------------------------------ */
/* Component operations                                                      */
/* ------------------------------------------------------------------------ */

static LLVMValueRef
safe_divisor(struct sc_xlate *x, LLVMValueRef *pa, LLVMValueRef d, bool is_signed)
{
   /* Division by zero and INT_MIN / -1 are undefined in SPIR-V but trap on
    * CPUs: divide by 1 instead. */
   LLVMBuilderRef b = x->b;
   /* Inactive lanes may hold undefined values: fix them before testing. */
   d = LLVMBuildFreeze(b, d, "");
   LLVMValueRef a = *pa = LLVMBuildFreeze(b, *pa, "");
   LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntEQ, d, int_const_like(x, d, 0), "");
   if (is_signed) {
      unsigned w = LLVMGetIntTypeWidth(elem_type(LLVMTypeOf(d)));
      LLVMValueRef min = int_const_like(x, a, 1ull << (w - 1));
      LLVMValueRef ovf = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, a, min, ""),
                                      LLVMBuildICmp(b, LLVMIntEQ, d, int_const_like(x, d, ~0ull), ""), "");
      bad = LLVMBuildOr(b, bad, ovf, "");
   }
   return LLVMBuildSelect(b, bad, int_const_like(x, d, 1), d, "");
}

/* Shift amount in the base's width, reduced modulo the width. */
static LLVMValueRef
shift_amount(struct sc_xlate *x, LLVMValueRef base, LLVMValueRef s)
{
   LLVMTypeRef bt = LLVMTypeOf(base);
   unsigned bw = LLVMGetIntTypeWidth(elem_type(bt));
   unsigned sw = LLVMGetIntTypeWidth(elem_type(LLVMTypeOf(s)));
   if (sw > bw)
      s = LLVMBuildTrunc(x->b, s, bt, "");
   else if (sw < bw)
      s = LLVMBuildZExt(x->b, s, bt, "");
   return LLVMBuildAnd(x->b, s, int_const_like(x, s, bw - 1), "");
}

static LLVMValueRef
fabs_of(struct sc_xlate *x, LLVMValueRef a)
{
   LLVMTypeRef t = LLVMTypeOf(a);
   return sc_intrinsic(x, "llvm.fabs", &t, 1, &a, 1);
}

static LLVMValueRef
emit_binary(struct sc_xlate *x, uint32_t op, LLVMValueRef a, LLVMValueRef c)
{
   LLVMBuilderRef b = x->b;
   switch (op) {
   case SpvOpIAdd: return LLVMBuildAdd(b, a, c, "");
   case SpvOpISub: return LLVMBuildSub(b, a, c, "");
   case SpvOpIMul: return LLVMBuildMul(b, a, c, "");
   case SpvOpUDiv: c = safe_divisor(x, &a, c, false); return LLVMBuildUDiv(b, a, c, "");
   case SpvOpUMod: c = safe_divisor(x, &a, c, false); return LLVMBuildURem(b, a, c, "");
   case SpvOpSDiv: c = safe_divisor(x, &a, c, true); return LLVMBuildSDiv(b, a, c, "");
   case SpvOpSRem: c = safe_divisor(x, &a, c, true); return LLVMBuildSRem(b, a, c, "");
   case SpvOpSMod: {
      LLVMValueRef d = safe_divisor(x, &a, c, true);
      LLVMValueRef r = LLVMBuildSRem(b, a, d, "");
      LLVMValueRef zero = int_const_like(x, r, 0);
      LLVMValueRef nz = LLVMBuildICmp(b, LLVMIntNE, r, zero, "");
      LLVMValueRef diff = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildXor(b, r, d, ""), zero, "");
      LLVMValueRef fix = LLVMBuildAnd(b, nz, diff, "");
      return LLVMBuildSelect(b, fix, LLVMBuildAdd(b, r, d, ""), r, "");
   }
   case SpvOpFAdd: return LLVMBuildFAdd(b, a, c, "");
   case SpvOpFSub: return LLVMBuildFSub(b, a, c, "");
   case SpvOpFMul: return LLVMBuildFMul(b, a, c, "");
   case SpvOpFDiv: return LLVMBuildFDiv(b, a, c, "");
   case SpvOpFRem: return LLVMBuildFRem(b, a, c, "");
   case SpvOpFMod: {
      LLVMValueRef q = LLVMBuildFDiv(b, a, c, "");
      LLVMTypeRef t = LLVMTypeOf(q);
      LLVMValueRef fl = sc_intrinsic(x, "llvm.floor", &t, 1, &q, 1);
      return LLVMBuildFSub(b, a, LLVMBuildFMul(b, c, fl, ""), "");
   }
   case SpvOpShiftLeftLogical: return LLVMBuildShl(b, a, shift_amount(x, a, c), "");
   case SpvOpShiftRightLogical: return LLVMBuildLShr(b, a, shift_amount(x, a, c), "");
   case SpvOpShiftRightArithmetic: return LLVMBuildAShr(b, a, shift_amount(x, a, c), "");
   case SpvOpBitwiseOr:
   case SpvOpLogicalOr: return LLVMBuildOr(b, a, c, "");
   case SpvOpBitwiseXor:
   case SpvOpLogicalNotEqual: return LLVMBuildXor(b, a, c, "");
   case SpvOpBitwiseAnd:
   case SpvOpLogicalAnd: return LLVMBuildAnd(b, a, c, "");
   case SpvOpLogicalEqual:
   case SpvOpIEqual: return LLVMBuildICmp(b, LLVMIntEQ, a, c, "");
   case SpvOpINotEqual: return LLVMBuildICmp(b, LLVMIntNE, a, c, "");
   case SpvOpUGreaterThan: return LLVMBuildICmp(b, LLVMIntUGT, a, c, "");
   case SpvOpSGreaterThan: return LLVMBuildICmp(b, LLVMIntSGT, a, c, "");
   case SpvOpUGreaterThanEqual: return LLVMBuildICmp(b, LLVMIntUGE, a, c, "");
   case SpvOpSGreaterThanEqual: return LLVMBuildICmp(b, LLVMIntSGE, a, c, "");
   case SpvOpULessThan: return LLVMBuildICmp(b, LLVMIntULT, a, c, "");
   case SpvOpSLessThan: return LLVMBuildICmp(b, LLVMIntSLT, a, c, "");
   case SpvOpULessThanEqual: return LLVMBuildICmp(b, LLVMIntULE, a, c, "");
   case SpvOpSLessThanEqual: return LLVMBuildICmp(b, LLVMIntSLE, a, c, "");
   case SpvOpFOrdEqual: return LLVMBuildFCmp(b, LLVMRealOEQ, a, c, "");
   case SpvOpFUnordEqual: return LLVMBuildFCmp(b, LLVMRealUEQ, a, c, "");
   case SpvOpFOrdNotEqual: return LLVMBuildFCmp(b, LLVMRealONE, a, c, "");
   case SpvOpFUnordNotEqual: return LLVMBuildFCmp(b, LLVMRealUNE, a, c, "");
   case SpvOpFOrdLessThan: return LLVMBuildFCmp(b, LLVMRealOLT, a, c, "");
   case SpvOpFUnordLessThan: return LLVMBuildFCmp(b, LLVMRealULT, a, c, "");
   case SpvOpFOrdGreaterThan: return LLVMBuildFCmp(b, LLVMRealOGT, a, c, "");
   case SpvOpFUnordGreaterThan: return LLVMBuildFCmp(b, LLVMRealUGT, a, c, "");
   case SpvOpFOrdLessThanEqual: return LLVMBuildFCmp(b, LLVMRealOLE, a, c, "");
   case SpvOpFUnordLessThanEqual: return LLVMBuildFCmp(b, LLVMRealULE, a, c, "");
   case SpvOpFOrdGreaterThanEqual: return LLVMBuildFCmp(b, LLVMRealOGE, a, c, "");
   case SpvOpFUnordGreaterThanEqual: return LLVMBuildFCmp(b, LLVMRealUGE, a, c, "");
   default: return NULL;
   }
}

static LLVMValueRef
emit_unary(struct sc_xlate *x, uint32_t op, LLVMValueRef a, LLVMTypeRef rt)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef at = LLVMTypeOf(a);
   switch (op) {
   case SpvOpSNegate: return LLVMBuildNeg(b, a, "");
   case SpvOpFNegate: return LLVMBuildFNeg(b, a, "");
   case SpvOpNot:
   case SpvOpLogicalNot: return LLVMBuildNot(b, a, "");
   case SpvOpIsNan: return LLVMBuildFCmp(b, LLVMRealUNO, a, a, "");
   case SpvOpIsInf:
      return LLVMBuildFCmp(b, LLVMRealOEQ, fabs_of(x, a), float_const_like(x, a, __builtin_inf()), "");
   /* Out-of-range values and NaN convert to undefined values (the spec's
    * conversion rules): the native conversion's result, frozen so that it is
    * one fixed value rather than LLVM poison. Saturating intrinsics would be
    * scalarised lane by lane on x86. */
   case SpvOpConvertFToU: return LLVMBuildFreeze(b, LLVMBuildFPToUI(b, a, rt, ""), "");
   case SpvOpConvertFToS: return LLVMBuildFreeze(b, LLVMBuildFPToSI(b, a, rt, ""), "");
   case SpvOpConvertSToF: return LLVMBuildSIToFP(b, a, rt, "");
   case SpvOpConvertUToF: return LLVMBuildUIToFP(b, a, rt, "");
   case SpvOpUConvert:
   case SpvOpSConvert: {
      unsigned aw = LLVMGetIntTypeWidth(elem_type(at)), rw = LLVMGetIntTypeWidth(elem_type(rt));
      if (aw == rw)
         return a;
      if (aw > rw)
         return LLVMBuildTrunc(b, a, rt, "");
      return op == SpvOpUConvert ? LLVMBuildZExt(b, a, rt, "") : LLVMBuildSExt(b, a, rt, "");
   }
   case SpvOpFConvert: {
      LLVMTypeKind ak = LLVMGetTypeKind(elem_type(at)), rk = LLVMGetTypeKind(elem_type(rt));
      if (ak == rk)
         return a;
      bool widen = (ak == LLVMHalfTypeKind) || (ak == LLVMFloatTypeKind && rk == LLVMDoubleTypeKind);
      return widen ? LLVMBuildFPExt(b, a, rt, "") : LLVMBuildFPTrunc(b, a, rt, "");
   }
   case SpvOpQuantizeToF16: {
      LLVMTypeRef ht = is_vector_type(at) ? sc_vec_type(x, x->t_f16) : x->t_f16;
      LLVMValueRef q = LLVMBuildFPExt(b, LLVMBuildFPTrunc(b, a, ht, ""), at, "");
      /* Too small for a normalized half: a zero of the same sign. */
      LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, fabs_of(x, q),
                                        float_const_like(x, a, 0x1p-14), "");
      LLVMValueRef args[2] = { float_const_like(x, a, 0.0), a };
      LLVMValueRef zero = sc_intrinsic(x, "llvm.copysign", &at, 1, args, 2);
      return LLVMBuildSelect(b, tiny, zero, q, "");
   }
   case SpvOpBitReverse: return sc_intrinsic(x, "llvm.bitreverse", &at, 1, &a, 1);
   case SpvOpBitCount: {
      LLVMValueRef c = sc_intrinsic(x, "llvm.ctpop", &at, 1, &a, 1);
      unsigned aw = LLVMGetIntTypeWidth(elem_type(at)), rw = LLVMGetIntTypeWidth(elem_type(rt));
      if (aw > rw)
         c = LLVMBuildTrunc(b, c, rt, "");
      else if (aw < rw)
         c = LLVMBuildZExt(b, c, rt, "");
      return c;
   }
   default: return NULL;
   }
}

/* ------------------------------------------------------------------------ */
/* Instruction forms                                                         */
/* ------------------------------------------------------------------------ */

static bool
unary(struct sc_xlate *x, const struct sc_inst *inst)
{
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   if (!a)
      return false;
   struct sc_val r = sc_new_val(x, a->n, a->uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < a->n; i++) {
      r.c[i] = emit_unary(x, inst->opcode, a->c[i], result_comp_type(x, inst->type_id, i, a->uniform));
      if (!r.c[i])
         return sc_fail(x, SC_ERROR_INTERNAL, "unary %s", sc_opcode_name(inst->opcode));
   }
   return sc_set(x, inst->result_id, r);
}

/* Linear form of a + b, a - b, a * k, a << k from the operands' forms. */
static void
binary_lin(struct sc_xlate *x, uint32_t op, const struct sc_val *a, const struct sc_val *c,
           struct sc_val *r, uint32_t i)
{
   struct sc_lin la, lc;
   if (!sc_lin_of(a, i, &la) || !sc_lin_of(c, i, &lc))
      return;
   LLVMBuilderRef b = x->b;
   switch (op) {
   case SpvOpIAdd:
      sc_set_lin(x, r, i, LLVMBuildAdd(b, la.base, lc.base, ""), la.stride + lc.stride);
      break;
   case SpvOpISub:
      sc_set_lin(x, r, i, LLVMBuildSub(b, la.base, lc.base, ""), la.stride - lc.stride);
      break;
   case SpvOpIMul:
      if (la.stride == 0 && lc.stride == 0)
         sc_set_lin(x, r, i, LLVMBuildMul(b, la.base, lc.base, ""), 0);
      else if (lc.stride == 0 && LLVMIsAConstantInt(lc.base))
         sc_set_lin(x, r, i, LLVMBuildMul(b, la.base, lc.base, ""),
                    la.stride * LLVMConstIntGetSExtValue(lc.base));
      else if (la.stride == 0 && LLVMIsAConstantInt(la.base))
         sc_set_lin(x, r, i, LLVMBuildMul(b, la.base, lc.base, ""),
                    lc.stride * LLVMConstIntGetSExtValue(la.base));
      break;
   case SpvOpShiftLeftLogical:
      if (lc.stride == 0 && LLVMIsAConstantInt(lc.base) &&
          LLVMTypeOf(la.base) == LLVMTypeOf(lc.base)) {
         unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(la.base));
         uint64_t k = LLVMConstIntGetZExtValue(lc.base) & (w - 1);
         sc_set_lin(x, r, i, LLVMBuildShl(b, la.base, lc.base, ""), la.stride << k);
      }
      break;
   default:
      break;
   }
}

/* Carries component si of src (its linear form) to component di of dst. */
static void
carry_lin(struct sc_xlate *x, struct sc_val *dst, uint32_t di, const struct sc_val *src,
          uint32_t si)
{
   struct sc_lin l;
   if (!dst->uniform && sc_lin_of(src, si, &l))
      sc_set_lin(x, dst, di, l.base, l.stride);
}

static bool
binary(struct sc_xlate *x, const struct sc_inst *inst)
{
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   const struct sc_val *c = a ? sc_operand(x, inst->w[4], a->n, a->n) : NULL;
   if (!c)
      return false;
   bool uniform = a->uniform && c->uniform;
   struct sc_val r = sc_new_val(x, a->n, uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < a->n; i++) {
      r.c[i] = emit_binary(x, inst->opcode, sc_comp(x, a, i, !uniform), sc_comp(x, c, i, !uniform));
      if (!r.c[i])
         return sc_fail(x, SC_ERROR_INTERNAL, "binary %s", sc_opcode_name(inst->opcode));
      if (!uniform)
         binary_lin(x, inst->opcode, a, c, &r, i);
   }
   return sc_set(x, inst->result_id, r);
}

static bool
vector_reduce_bool(struct sc_xlate *x, const struct sc_inst *inst)
{
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   if (!a)
      return false;
   struct sc_val r = sc_new_val(x, 1, a->uniform);
   if (!r.c)
      return false;
   r.c[0] = a->c[0];
   for (uint32_t i = 1; i < a->n; i++)
      r.c[0] = inst->opcode == SpvOpAny ? LLVMBuildOr(x->b, r.c[0], a->c[i], "")
                                        : LLVMBuildAnd(x->b, r.c[0], a->c[i], "");
   return sc_set(x, inst->result_id, r);
}

static bool
select_op(struct sc_xlate *x, const struct sc_inst *inst)
{
   const struct sc_val *a = sc_operand(x, inst->w[4], 1, SC_ANY);
   const struct sc_val *d = a ? sc_operand(x, inst->w[5], a->n, a->n) : NULL;
   const struct sc_val *c = d ? sc_operand_like(x, inst->w[3], a->n) : NULL;
   if (!c)
      return false;
   bool uniform = c->uniform && a->uniform && d->uniform;
   struct sc_val r = sc_new_val(x, a->n, uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < a->n; i++)
      r.c[i] = LLVMBuildSelect(x->b, sc_comp(x, c, c->n == 1 ? 0 : i, !uniform),
                               sc_comp(x, a, i, !uniform), sc_comp(x, d, i, !uniform), "");
   return sc_set(x, inst->result_id, r);
}

static bool
bitcast(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   if (!a)
      return false;
   const struct sc_inst *src_def = sc_module_def(x->m, inst->w[3]);
   if (!src_def)
      return false;
   uint32_t n = sc_ncomp(x, inst->type_id);
   struct sc_val r = sc_new_val(x, n, a->uniform);
   if (!r.c || !n)
      return r.c ? sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad OpBitcast") : false;
   LLVMTypeRef st0 = sc_llvm_scalar(x, sc_scalar_at(x, src_def->type_id, 0));
   LLVMTypeRef rt0 = sc_llvm_scalar(x, sc_scalar_at(x, inst->type_id, 0));
   unsigned sw = LLVMGetTypeKind(st0) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(st0)
                 : LLVMGetTypeKind(st0) == LLVMHalfTypeKind ? 16
                 : LLVMGetTypeKind(st0) == LLVMDoubleTypeKind ? 64 : 32;
   unsigned rw = LLVMGetTypeKind(rt0) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(rt0)
                 : LLVMGetTypeKind(rt0) == LLVMHalfTypeKind ? 16
                 : LLVMGetTypeKind(rt0) == LLVMDoubleTypeKind ? 64 : 32;
   if (sw * a->n != rw * n)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpBitcast size mismatch");
   bool vec = !a->uniform;
   LLVMTypeRef si = LLVMIntTypeInContext(x->ctx, sw), ri = LLVMIntTypeInContext(x->ctx, rw);
   LLVMTypeRef siv = vec ? sc_vec_type(x, si) : si, riv = vec ? sc_vec_type(x, ri) : ri;
   LLVMTypeRef rtv = vec ? sc_vec_type(x, rt0) : rt0;
   for (uint32_t i = 0; i < n; i++) {
      LLVMValueRef v;
      if (sw == rw) {
         v = a->c[i];
      } else if (sw < rw) {
         uint32_t k = rw / sw;
         v = LLVMConstNull(riv);
         for (uint32_t j = 0; j < k; j++) {
            LLVMValueRef part = LLVMBuildZExt(b, LLVMBuildBitCast(b, a->c[i * k + j], siv, ""), riv, "");
            part = LLVMBuildShl(b, part, int_const_like(x, part, j * sw), "");
            v = LLVMBuildOr(b, v, part, "");
         }
      } else {
         uint32_t k = sw / rw;
         LLVMValueRef whole = LLVMBuildBitCast(b, a->c[i / k], siv, "");
         whole = LLVMBuildLShr(b, whole, int_const_like(x, whole, (i % k) * rw), "");
         v = LLVMBuildTrunc(b, whole, riv, "");
      }
      r.c[i] = LLVMBuildBitCast(b, v, rtv, "");
      if (sw == rw && LLVMGetTypeKind(rt0) == LLVMIntegerTypeKind &&
          LLVMGetTypeKind(st0) == LLVMIntegerTypeKind)
         carry_lin(x, &r, i, a, i);
   }
   return sc_set(x, inst->result_id, r);
}

/* OpIAddCarry, OpISubBorrow, OpUMulExtended, OpSMulExtended: a struct of
 * two values of the operands' type, flattened low part first. */
static bool
extended_op(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   const struct sc_val *c = a ? sc_operand(x, inst->w[4], a->n, a->n) : NULL;
   if (!c)
      return false;
   bool uniform = a->uniform && c->uniform;
   uint32_t n = a->n;
   struct sc_val r = sc_new_val(x, 2 * n, uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < n; i++) {
      LLVMValueRef p = sc_comp(x, a, i, !uniform), q = sc_comp(x, c, i, !uniform);
      LLVMTypeRef t = LLVMTypeOf(p);
      switch (inst->opcode) {
      case SpvOpIAddCarry:
         r.c[i] = LLVMBuildAdd(b, p, q, "");
         r.c[n + i] = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntULT, r.c[i], p, ""), t, "");
         break;
      case SpvOpISubBorrow:
         r.c[i] = LLVMBuildSub(b, p, q, "");
         r.c[n + i] = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntULT, p, q, ""), t, "");
         break;
      default: {
         unsigned w = LLVMGetIntTypeWidth(elem_type(t));
         LLVMTypeRef wt = LLVMIntTypeInContext(x->ctx, 2 * w);
         if (is_vector_type(t))
            wt = sc_vec_type(x, wt);
         bool s = inst->opcode == SpvOpSMulExtended;
         LLVMValueRef pw = s ? LLVMBuildSExt(b, p, wt, "") : LLVMBuildZExt(b, p, wt, "");
         LLVMValueRef qw = s ? LLVMBuildSExt(b, q, wt, "") : LLVMBuildZExt(b, q, wt, "");
         LLVMValueRef prod = LLVMBuildMul(b, pw, qw, "");
         r.c[i] = LLVMBuildTrunc(b, prod, t, "");
         r.c[n + i] = LLVMBuildTrunc(b, LLVMBuildLShr(b, prod, int_const_like(x, prod, w), ""), t, "");
         break;
      }
      }
   }
   return sc_set(x, inst->result_id, r);
}

/* All-ones in the low count bits (count may be the full width). */
static LLVMValueRef
low_mask(struct sc_xlate *x, LLVMValueRef count, unsigned w)
{
   LLVMBuilderRef b = x->b;
   LLVMValueRef full = LLVMBuildICmp(b, LLVMIntUGE, count, int_const_like(x, count, w), "");
   LLVMValueRef sh = LLVMBuildAnd(b, count, int_const_like(x, count, w - 1), "");
   LLVMValueRef m = LLVMBuildSub(b, LLVMBuildShl(b, int_const_like(x, count, 1), sh, ""),
                                 int_const_like(x, count, 1), "");
   return LLVMBuildSelect(b, full, int_const_like(x, count, ~0ull), m, "");
}

static bool
bitfield(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   bool insert = inst->opcode == SpvOpBitFieldInsert;
   const struct sc_val *base = sc_operand(x, inst->w[3], 1, SC_ANY);
   const struct sc_val *ins = base && insert ? sc_operand(x, inst->w[4], base->n, base->n) : NULL;
   const struct sc_val *off = base ? sc_operand(x, inst->w[insert ? 5 : 4], 1, SC_ANY) : NULL;
   const struct sc_val *cnt = off ? sc_operand(x, inst->w[insert ? 6 : 5], 1, SC_ANY) : NULL;
   if (!cnt || (insert && !ins))
      return false;
   bool uniform = base->uniform && off->uniform && cnt->uniform && (!ins || ins->uniform);
   struct sc_val r = sc_new_val(x, base->n, uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < base->n; i++) {
      LLVMValueRef v = sc_comp(x, base, i, !uniform);
      unsigned w = LLVMGetIntTypeWidth(elem_type(LLVMTypeOf(v)));
      LLVMValueRef o = shift_amount(x, v, sc_comp(x, off, 0, !uniform));
      LLVMValueRef cn = sc_comp(x, cnt, 0, !uniform);
      unsigned cw = LLVMGetIntTypeWidth(elem_type(LLVMTypeOf(cn)));
      if (cw != w)
         cn = cw > w ? LLVMBuildTrunc(b, cn, LLVMTypeOf(v), "") : LLVMBuildZExt(b, cn, LLVMTypeOf(v), "");
      LLVMValueRef mask = low_mask(x, cn, w);
      if (insert) {
         LLVMValueRef mo = LLVMBuildShl(b, mask, o, "");
         LLVMValueRef iv = LLVMBuildShl(b, sc_comp(x, ins, i, !uniform), o, "");
         r.c[i] = LLVMBuildOr(b, LLVMBuildAnd(b, v, LLVMBuildNot(b, mo, ""), ""),
                              LLVMBuildAnd(b, iv, mo, ""), "");
      } else {
         LLVMValueRef f = LLVMBuildAnd(b, LLVMBuildLShr(b, v, o, ""), mask, "");
         if (inst->opcode == SpvOpBitFieldSExtract) {
            /* Sign-extend from bit count - 1: (f ^ s) - s with s = top bit. */
            LLVMValueRef top = LLVMBuildSub(b, cn, int_const_like(x, cn, 1), "");
            top = LLVMBuildAnd(b, top, int_const_like(x, top, w - 1), "");
            LLVMValueRef s = LLVMBuildShl(b, int_const_like(x, cn, 1), top, "");
            s = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, cn, int_const_like(x, cn, 0), ""),
                                int_const_like(x, cn, 0), s, "");
            f = LLVMBuildSub(b, LLVMBuildXor(b, f, s, ""), s, "");
         }
         r.c[i] = f;
      }
   }
   return sc_set(x, inst->result_id, r);
}

/* ------------------------------------------------------------------------ */
/* Vectors and matrices                                                      */
/* ------------------------------------------------------------------------ */

static bool
times_scalar(struct sc_xlate *x, const struct sc_inst *inst)
{
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   const struct sc_val *s = a ? sc_operand(x, inst->w[4], 1, SC_ANY) : NULL;
   if (!s)
      return false;
   bool uniform = a->uniform && s->uniform;
   struct sc_val r = sc_new_val(x, a->n, uniform);
   if (!r.c)
      return false;
   LLVMValueRef sv = sc_comp(x, s, 0, !uniform);
   for (uint32_t i = 0; i < a->n; i++)
      r.c[i] = LLVMBuildFMul(x->b, sc_comp(x, a, i, !uniform), sv, "");
   return sc_set(x, inst->result_id, r);
}

/* Sum of products a[ai + k * as] * b[bi + k * bs] for k < n. */
static LLVMValueRef
dot(struct sc_xlate *x, const struct sc_val *a, uint32_t ai, uint32_t as,
    const struct sc_val *c, uint32_t ci, uint32_t cs, uint32_t n, bool vec)
{
   LLVMValueRef sum = NULL;
   for (uint32_t k = 0; k < n; k++) {
      LLVMValueRef p = LLVMBuildFMul(x->b, sc_comp(x, a, ai + k * as, vec),
                                     sc_comp(x, c, ci + k * cs, vec), "");
      sum = sum ? LLVMBuildFAdd(x->b, sum, p, "") : p;
   }
   return sum;
}

static bool
matrix_op(struct sc_xlate *x, const struct sc_inst *inst)
{
   if (inst->opcode == SpvOpMatrixTimesScalar)
      return times_scalar(x, inst);
   const struct sc_type *rt = sc_module_type(x->m, inst->type_id);
   const struct sc_inst *ad = sc_module_def(x->m, inst->w[3]);
   const struct sc_type *at = ad ? sc_module_type(x->m, ad->type_id) : NULL;
   if (!rt || !at)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "matrix operand types");
   /* The operands' sizes each form reads: a matrix is its columns one after
    * the other; sizes the types do not fix come from the other operand. */
   uint32_t n = rt->ncomp, an = 0, cn = 0, rows = 0, cols = 0, k = 0;
   const struct sc_type *col = NULL;
   switch (inst->opcode) {
   case SpvOpDot:
   case SpvOpOuterProduct:
      an = at->ncomp;
      break;
   case SpvOpMatrixTimesVector:   /* a: C columns of R rows; c: C. Result R. */
      rows = n;
      cols = at->count;
      an = rows * cols;
      cn = cols;
      break;
   case SpvOpVectorTimesMatrix:   /* a: R; c: C columns of R rows. Result C. */
      rows = at->ncomp;
      an = rows;
      cn = n * rows;
      break;
   case SpvOpMatrixTimesMatrix:   /* a: K columns of R rows; c: C columns of K rows. */
      col = sc_module_type(x->m, rt->elem);
      rows = col ? col->count : 0;
      cols = rt->count;
      k = at->count;
      an = rows * k;
      cn = cols * k;
      break;
   case SpvOpTranspose:
      col = sc_module_type(x->m, at->elem);
      rows = col ? col->count : 0;
      cols = at->count;
      an = rows * cols;
      break;
   default:
      return sc_fail(x, SC_ERROR_INTERNAL, "matrix op");
   }
   if (!an)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s of an empty operand", sc_opcode_name(inst->opcode));
   const struct sc_val *a = sc_operand(x, inst->w[3], an, an);
   if (!a)
      return false;
   if (inst->opcode == SpvOpDot)
      cn = a->n;
   const struct sc_val *c = inst->opcode == SpvOpTranspose ? a
                            : sc_operand(x, inst->w[4], cn ? cn : 1, cn ? cn : SC_ANY);
   if (!c)
      return false;
   uint32_t want = inst->opcode == SpvOpDot ? 1
                   : inst->opcode == SpvOpOuterProduct ? a->n * c->n
                   : inst->opcode == SpvOpMatrixTimesMatrix ? rows * cols
                   : inst->opcode == SpvOpTranspose ? an : n;
   if (n != want)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s result of %u components, expected %u",
                     sc_opcode_name(inst->opcode), n, want);
   bool uniform = a->uniform && c->uniform;
   bool vec = !uniform;
   struct sc_val r = sc_new_val(x, n, uniform);
   if (!r.c)
      return false;
   switch (inst->opcode) {
   case SpvOpDot:
      r.c[0] = dot(x, a, 0, 1, c, 0, 1, a->n, vec);
      break;
   case SpvOpMatrixTimesVector:
      for (uint32_t i = 0; i < rows; i++)
         r.c[i] = dot(x, a, i, rows, c, 0, 1, cols, vec);
      break;
   case SpvOpVectorTimesMatrix:
      for (uint32_t j = 0; j < n; j++)
         r.c[j] = dot(x, a, 0, 1, c, j * rows, 1, rows, vec);
      break;
   case SpvOpMatrixTimesMatrix:
      for (uint32_t j = 0; j < cols; j++)
         for (uint32_t i = 0; i < rows; i++)
            r.c[j * rows + i] = dot(x, a, i, rows, c, j * k, 1, k, vec);
      break;
   case SpvOpOuterProduct:   /* a: R, c: C. Result C columns of R rows. */
      for (uint32_t j = 0; j < c->n; j++)
         for (uint32_t i = 0; i < a->n; i++)
            r.c[j * a->n + i] = LLVMBuildFMul(x->b, sc_comp(x, a, i, vec), sc_comp(x, c, j, vec), "");
      break;
   default:   /* SpvOpTranspose */
      for (uint32_t j = 0; j < cols; j++)
         for (uint32_t i = 0; i < rows; i++)
            r.c[i * cols + j] = a->c[j * rows + i];
      break;
   }
   return sc_set(x, inst->result_id, r);
}

/* ------------------------------------------------------------------------ */
/* Composites                                                                */
/* ------------------------------------------------------------------------ */

/* First flattened component addressed by literal indices w[k0 .. end).
 * Callers check the range first .. first + n against their value's size as
 * first > size || n > size - first, which cannot wrap. */
static bool
composite_index(struct sc_xlate *x, uint32_t type_id, const uint32_t *w, uint32_t count,
                uint32_t *first, uint32_t *elem_type)
{
   uint64_t start = 0;   /* 64 bits: index * size of a huge array does not wrap */
   for (uint32_t k = 0; k < count; k++) {
      const struct sc_type *t = sc_module_type(x->m, type_id);
      uint32_t idx = w[k];
      if (!t)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "bad composite index");
      switch (t->kind) {
      case SC_T_VECTOR:
      case SC_T_MATRIX:
      case SC_T_ARRAY:
         if (idx >= t->count)
            return sc_fail(x, SC_ERROR_INVALID_SPIRV, "composite index out of range");
         start += (uint64_t)idx * sc_ncomp(x, t->elem);
         type_id = t->elem;
         break;
      case SC_T_STRUCT:
         if (idx >= t->count)
            return sc_fail(x, SC_ERROR_INVALID_SPIRV, "composite index out of range");
         for (uint32_t i = 0; i < idx; i++)
            start += sc_ncomp(x, t->members[i]);
         type_id = t->members[idx];
         break;
      default:
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "index into a scalar");
      }
   }
   if (start > UINT32_MAX)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "composite index out of range");
   *first = (uint32_t)start;
   *elem_type = type_id;
   return true;
}

static bool
composite_op(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   uint32_t n = sc_ncomp(x, inst->type_id);
   switch (inst->opcode) {
   case SpvOpCompositeConstruct: {
      bool uniform = true;
      uint32_t total = 0;
      for (uint32_t k = 3; k < inst->nwords; k++) {
         const struct sc_val *v = sc_get(x, inst->w[k]);
         if (!v)
            return false;
         uniform &= v->uniform;
         total += v->n;
      }
      if (total != n)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpCompositeConstruct size");
      struct sc_val r = sc_new_val(x, n, uniform);
      if (!r.c)
         return false;
      uint32_t j = 0;
      for (uint32_t k = 3; k < inst->nwords; k++) {
         const struct sc_val *v = sc_get(x, inst->w[k]);
         for (uint32_t i = 0; i < v->n; i++) {
            carry_lin(x, &r, j, v, i);
            r.c[j++] = sc_comp(x, v, i, !uniform);
         }
      }
      return sc_set(x, inst->result_id, r);
   }
   case SpvOpCompositeExtract: {
      const struct sc_val *v = sc_get(x, inst->w[3]);
      const struct sc_inst *d = sc_module_def(x->m, inst->w[3]);
      uint32_t first, et;
      if (!v || !d || !composite_index(x, d->type_id, &inst->w[4], inst->nwords - 4, &first, &et))
         return false;
      if (first > v->n || n > v->n - first)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpCompositeExtract size");
      struct sc_val r = sc_new_val(x, n, v->uniform);
      if (!r.c)
         return false;
      memcpy(r.c, v->c + first, n * sizeof(LLVMValueRef));
      for (uint32_t i = 0; i < n; i++)
         carry_lin(x, &r, i, v, first + i);
      return sc_set(x, inst->result_id, r);
   }
   case SpvOpCompositeInsert: {
      const struct sc_val *obj = sc_get(x, inst->w[3]);
      const struct sc_val *v = sc_get(x, inst->w[4]);
      uint32_t first, et;
      if (!obj || !v || !composite_index(x, inst->type_id, &inst->w[5], inst->nwords - 5, &first, &et))
         return false;
      if (first > n || obj->n > n - first || v->n != n)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpCompositeInsert size");
      bool uniform = obj->uniform && v->uniform;
      struct sc_val r = sc_new_val(x, n, uniform);
      if (!r.c)
         return false;
      for (uint32_t i = 0; i < n; i++) {
         bool in_obj = i >= first && i < first + obj->n;
         r.c[i] = in_obj ? sc_comp(x, obj, i - first, !uniform) : sc_comp(x, v, i, !uniform);
         if (in_obj)
            carry_lin(x, &r, i, obj, i - first);
         else
            carry_lin(x, &r, i, v, i);
      }
      return sc_set(x, inst->result_id, r);
   }
   case SpvOpVectorShuffle: {
      const struct sc_val *a = sc_get(x, inst->w[3]);
      const struct sc_val *c = sc_get(x, inst->w[4]);
      if (!a || !c)
         return false;
      bool uniform = a->uniform && c->uniform;
      struct sc_val r = sc_new_val(x, n, uniform);
      if (!r.c)
         return false;
      for (uint32_t i = 0; i < n; i++) {
         uint32_t s = 5 + i < inst->nwords ? inst->w[5 + i] : UINT32_MAX;
         if (s < a->n) {
            r.c[i] = sc_comp(x, a, s, !uniform);
            carry_lin(x, &r, i, a, s);
         } else if (s - a->n < c->n) {
            r.c[i] = sc_comp(x, c, s - a->n, !uniform);
            carry_lin(x, &r, i, c, s - a->n);
         }
         else /* 0xFFFFFFFF: undefined component */
            r.c[i] = LLVMConstNull(result_comp_type(x, inst->type_id, i, uniform));
      }
      return sc_set(x, inst->result_id, r);
   }
   case SpvOpVectorExtractDynamic:
   case SpvOpVectorInsertDynamic: {
      bool ins = inst->opcode == SpvOpVectorInsertDynamic;
      /* Insert: the vector has the result's n components; extract: any. */
      const struct sc_val *v = sc_operand(x, inst->w[3], ins ? n : 1, ins ? n : SC_ANY);
      const struct sc_val *comp = v && ins ? sc_operand(x, inst->w[4], 1, SC_ANY) : NULL;
      const struct sc_val *idx = v ? sc_operand(x, inst->w[ins ? 5 : 4], 1, SC_ANY) : NULL;
      if (!idx || (ins && !comp))
         return false;
      bool uniform = v->uniform && idx->uniform && (!comp || comp->uniform);
      struct sc_val r = sc_new_val(x, n, uniform);
      if (!r.c)
         return false;
      LLVMValueRef iv = sc_comp(x, idx, 0, !uniform);
      if (ins) {
         for (uint32_t i = 0; i < n; i++) {
            LLVMValueRef eq = LLVMBuildICmp(b, LLVMIntEQ, iv, int_const_like(x, iv, i), "");
            r.c[i] = LLVMBuildSelect(b, eq, sc_comp(x, comp, 0, !uniform), sc_comp(x, v, i, !uniform), "");
         }
      } else {
         r.c[0] = sc_comp(x, v, 0, !uniform);
         for (uint32_t i = 1; i < v->n; i++) {
            LLVMValueRef eq = LLVMBuildICmp(b, LLVMIntEQ, iv, int_const_like(x, iv, i), "");
            r.c[0] = LLVMBuildSelect(b, eq, sc_comp(x, v, i, !uniform), r.c[0], "");
         }
      }
      return sc_set(x, inst->result_id, r);
   }
   case SpvOpCopyObject:
   case SpvOpCopyLogical: {
      const struct sc_val *v = sc_get(x, inst->w[3]);
      if (!v)
         return false;
      struct sc_val r = sc_new_val(x, v->n, v->uniform);
      if (!r.c)
         return false;
      memcpy(r.c, v->c, v->n * sizeof(LLVMValueRef));
      for (uint32_t i = 0; i < v->n; i++)
         carry_lin(x, &r, i, v, i);
      return sc_set(x, inst->result_id, r);
   }
   default:
      return sc_fail(x, SC_ERROR_INTERNAL, "composite op");
   }
}

/* ------------------------------------------------------------------------ */
/* OpSpecConstantOp                                                          */
/* ------------------------------------------------------------------------ */

/* Two's complement helpers on values of w <= 64 bits held in uint64_t. */
static uint64_t
width_mask(unsigned w)
{
   return w >= 64 ? ~0ull : (1ull << w) - 1;
}

static int64_t
sign_extend(uint64_t v, unsigned w)
{
   return w >= 64 ? (int64_t)v : (int64_t)((v ^ (1ull << (w - 1))) & width_mask(w)) -
                                     (int64_t)(1ull << (w - 1));
}

/* One component of an integer or logical OpSpecConstantOp: a, c of width
 * w (c is the shift amount, of its own width cw, for shifts). Results the
 * SPIR-V leaves undefined (division by zero, over-wide shifts) are chosen
 * as the translated instructions choose them. */
static bool
spec_int_op(uint32_t op, uint64_t a, uint64_t c, unsigned w, unsigned cw, uint64_t *r)
{
   int64_t sa = sign_extend(a, w), sc = sign_extend(c, w);
   uint64_t m = width_mask(w);
   bool bad = (c & m) == 0 || (sa == sign_extend(1ull << (w - 1), w) && sc == -1);
   switch (op) {
   case SpvOpSNegate: *r = 0 - a; break;
   case SpvOpNot:
   case SpvOpLogicalNot: *r = ~a; break;
   case SpvOpIAdd: *r = a + c; break;
   case SpvOpISub: *r = a - c; break;
   case SpvOpIMul: *r = a * c; break;
   case SpvOpUDiv: *r = (c & m) ? (a & m) / (c & m) : a; break;
   case SpvOpUMod: *r = (c & m) ? (a & m) % (c & m) : 0; break;
   case SpvOpSDiv: *r = bad ? (uint64_t)sa : (uint64_t)(sa / sc); break;
   case SpvOpSRem: *r = bad ? 0 : (uint64_t)(sa % sc); break;
   case SpvOpSMod: {
      int64_t rem = bad ? 0 : sa % sc;
      *r = (uint64_t)(rem != 0 && (rem < 0) != (sc < 0) ? rem + sc : rem);
      break;
   }
   case SpvOpShiftLeftLogical: *r = a << ((c & width_mask(cw)) % w); break;
   case SpvOpShiftRightLogical: *r = (a & m) >> ((c & width_mask(cw)) % w); break;
   case SpvOpShiftRightArithmetic: *r = (uint64_t)(sa >> ((c & width_mask(cw)) % w)); break;
   case SpvOpBitwiseOr:
   case SpvOpLogicalOr: *r = a | c; break;
   case SpvOpBitwiseXor:
   case SpvOpLogicalNotEqual: *r = a ^ c; break;
   case SpvOpBitwiseAnd:
   case SpvOpLogicalAnd: *r = a & c; break;
   case SpvOpLogicalEqual: *r = ((a ^ c) & 1) == 0; break;
   case SpvOpIEqual: *r = (a & m) == (c & m); break;
   case SpvOpINotEqual: *r = (a & m) != (c & m); break;
   case SpvOpULessThan: *r = (a & m) < (c & m); break;
   case SpvOpUGreaterThan: *r = (a & m) > (c & m); break;
   case SpvOpULessThanEqual: *r = (a & m) <= (c & m); break;
   case SpvOpUGreaterThanEqual: *r = (a & m) >= (c & m); break;
   case SpvOpSLessThan: *r = sa < sc; break;
   case SpvOpSGreaterThan: *r = sa > sc; break;
   case SpvOpSLessThanEqual: *r = sa <= sc; break;
   case SpvOpSGreaterThanEqual: *r = sa >= sc; break;
   default: return false;
   }
   return true;
}

static bool
is_const_int(LLVMValueRef v)
{
   return v && LLVMIsAConstantInt(v);
}

/* The n components of OpSpecConstantOp d after specialization. The
 * legalizer (SPIRV-Tools 2023.1) folds those on 32-bit integers but leaves
 * 16- and 64-bit ones and conversions between widths; operands are
 * constants (or other such operations), so everything is computed here. */
bool
sc_const_spec_op(struct sc_xlate *x, const struct sc_inst *d, LLVMValueRef *out, uint32_t n)
{
   if (d->nwords < 5)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpSpecConstantOp without an opcode");
   uint32_t op = d->w[3];
   const uint32_t *ops = &d->w[4];
   uint32_t nops = d->nwords - 4u;
   const struct sc_val *v[3] = { NULL, NULL, NULL };
   for (uint32_t k = 0; k < nops && k < 3; k++) {
      /* Composite instructions take literal indices after the first ids. */
      if ((op == SpvOpCompositeExtract && k >= 1) || (op == SpvOpCompositeInsert && k >= 2) ||
          (op == SpvOpVectorShuffle && k >= 2))
         break;
      if (!(v[k] = sc_get(x, ops[k])))
         return false;
   }
   switch (op) {
   case SpvOpCompositeExtract: {
      const struct sc_inst *cd = sc_module_def(x->m, ops[0]);
      uint32_t first, et;
      if (!cd || nops < 2 || !composite_index(x, cd->type_id, &ops[1], nops - 1, &first, &et))
         return false;
      if (first > v[0]->n || n > v[0]->n - first)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpSpecConstantOp CompositeExtract size");
      memcpy(out, v[0]->c + first, n * sizeof(LLVMValueRef));
      return true;
   }
   case SpvOpCompositeInsert: {
      uint32_t first, et;
      if (nops < 3 || !v[1] || !composite_index(x, d->type_id, &ops[2], nops - 2, &first, &et))
         return false;
      if (v[1]->n != n || first > n || v[0]->n > n - first)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpSpecConstantOp CompositeInsert size");
      memcpy(out, v[1]->c, n * sizeof(LLVMValueRef));
      memcpy(out + first, v[0]->c, v[0]->n * sizeof(LLVMValueRef));
      return true;
   }
   case SpvOpVectorShuffle:
      if (nops < 2 + n || !v[1])
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpSpecConstantOp VectorShuffle operands");
      for (uint32_t i = 0; i < n; i++) {
         uint32_t s = ops[2 + i];
         out[i] = s < v[0]->n ? v[0]->c[s]
                  : s - v[0]->n < v[1]->n ? v[1]->c[s - v[0]->n]
                  : LLVMConstNull(sc_llvm_scalar(x, sc_scalar_at(x, d->type_id, i)));
      }
      return true;
   default:
      break;
   }
   /* Component by component: each operand has the result's n components
    * or one. */
   for (uint32_t k = 0; k < 3; k++)
      if (v[k] && !sc_operand_like(x, ops[k], n))
         return false;
   for (uint32_t i = 0; i < n; i++) {
      LLVMTypeRef rt = sc_llvm_scalar(x, sc_scalar_at(x, d->type_id, i));
      LLVMValueRef a = v[0] && i < v[0]->n ? v[0]->c[i] : NULL;
      LLVMValueRef c = v[1] ? v[1]->c[v[1]->n == 1 ? 0 : i] : NULL;
      switch (op) {
      case SpvOpSConvert:
      case SpvOpUConvert:
         if (!is_const_int(a))
            goto unsupported;
         out[i] = op == SpvOpSConvert
                     ? LLVMConstInt(rt, (uint64_t)sign_extend(LLVMConstIntGetZExtValue(a),
                                                              LLVMGetIntTypeWidth(LLVMTypeOf(a))),
                                    false)
                     : LLVMConstInt(rt, LLVMConstIntGetZExtValue(a), false);
         continue;
      case SpvOpFConvert:
      case SpvOpQuantizeToF16: {
         if (!a || !LLVMIsAConstantFP(a))
            goto unsupported;
         LLVMBool lossy;
         double f = LLVMConstRealGetDouble(a, &lossy);
         if (op == SpvOpQuantizeToF16) {
            /* Through half: rounded, too small for a normal half gives a
             * zero of the same sign, too large an infinity. */
            LLVMValueRef h = LLVMConstFPCast(a, x->t_f16);
            f = LLVMConstRealGetDouble(h, &lossy);
            if (f != 0.0 && f > -0x1p-14 && f < 0x1p-14)
               f = f < 0 ? -0.0 : 0.0;
         }
         out[i] = LLVMConstReal(rt, f);
         continue;
      }
      case SpvOpSelect: {
         const struct sc_val *e = v[2];
         if (!e || !c || i >= e->n)
            goto unsupported;
         LLVMValueRef cond = v[0]->c[v[0]->n == 1 ? 0 : i];
         if (!is_const_int(cond))
            goto unsupported;
         out[i] = LLVMConstIntGetZExtValue(cond) ? c : e->c[i];
         continue;
      }
      default:
         break;
      }
      if (!is_const_int(a) || (c && !is_const_int(c)))
         goto unsupported;
      LLVMTypeRef at = LLVMTypeOf(a);
      unsigned w = LLVMGetIntTypeWidth(at);
      unsigned cw = c ? LLVMGetIntTypeWidth(LLVMTypeOf(c)) : w;
      uint64_t r;
      if (!spec_int_op(op, LLVMConstIntGetZExtValue(a), c ? LLVMConstIntGetZExtValue(c) : 0,
                       w, cw, &r))
         goto unsupported;
      out[i] = LLVMConstInt(rt, r & width_mask(LLVMGetIntTypeWidth(rt)), false);
   }
   return true;
unsupported:
   return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported OpSpecConstantOp %s", sc_opcode_name(op));
}

bool
sc_emit_op(struct sc_xlate *x, const struct sc_inst *inst, bool *handled)
{
   *handled = true;
   switch (inst->opcode) {
   case SpvOpSNegate:
   case SpvOpFNegate:
   case SpvOpNot:
   case SpvOpLogicalNot:
   case SpvOpIsNan:
   case SpvOpIsInf:
   case SpvOpConvertFToU:
   case SpvOpConvertFToS:
   case SpvOpConvertSToF:
   case SpvOpConvertUToF:
   case SpvOpUConvert:
   case SpvOpSConvert:
   case SpvOpFConvert:
   case SpvOpQuantizeToF16:
   case SpvOpBitReverse:
   case SpvOpBitCount:
      return unary(x, inst);
   case SpvOpIAdd:
   case SpvOpISub:
   case SpvOpIMul:
   case SpvOpUDiv:
   case SpvOpUMod:
   case SpvOpSDiv:
   case SpvOpSRem:
   case SpvOpSMod:
   case SpvOpFAdd:
   case SpvOpFSub:
   case SpvOpFMul:
   case SpvOpFDiv:
   case SpvOpFRem:
   case SpvOpFMod:
   case SpvOpShiftLeftLogical:
   case SpvOpShiftRightLogical:
   case SpvOpShiftRightArithmetic:
   case SpvOpBitwiseOr:
   case SpvOpBitwiseXor:
   case SpvOpBitwiseAnd:
   case SpvOpLogicalOr:
   case SpvOpLogicalAnd:
   case SpvOpLogicalEqual:
   case SpvOpLogicalNotEqual:
   case SpvOpIEqual:
   case SpvOpINotEqual:
   case SpvOpUGreaterThan:
   case SpvOpSGreaterThan:
   case SpvOpUGreaterThanEqual:
   case SpvOpSGreaterThanEqual:
   case SpvOpULessThan:
   case SpvOpSLessThan:
   case SpvOpULessThanEqual:
   case SpvOpSLessThanEqual:
   case SpvOpFOrdEqual:
   case SpvOpFUnordEqual:
   case SpvOpFOrdNotEqual:
   case SpvOpFUnordNotEqual:
   case SpvOpFOrdLessThan:
   case SpvOpFUnordLessThan:
   case SpvOpFOrdGreaterThan:
   case SpvOpFUnordGreaterThan:
   case SpvOpFOrdLessThanEqual:
   case SpvOpFUnordLessThanEqual:
   case SpvOpFOrdGreaterThanEqual:
   case SpvOpFUnordGreaterThanEqual:
      return binary(x, inst);
   case SpvOpAny:
   case SpvOpAll:
      return vector_reduce_bool(x, inst);
   case SpvOpSelect:
      return select_op(x, inst);
   case SpvOpBitcast:
      return bitcast(x, inst);
   case SpvOpIAddCarry:
   case SpvOpISubBorrow:
   case SpvOpUMulExtended:
   case SpvOpSMulExtended:
      return extended_op(x, inst);
   case SpvOpBitFieldInsert:
   case SpvOpBitFieldSExtract:
   case SpvOpBitFieldUExtract:
      return bitfield(x, inst);
   case SpvOpVectorTimesScalar:
      return times_scalar(x, inst);
   case SpvOpDot:
   case SpvOpMatrixTimesVector:
   case SpvOpVectorTimesMatrix:
   case SpvOpMatrixTimesMatrix:
   case SpvOpMatrixTimesScalar:
   case SpvOpOuterProduct:
   case SpvOpTranspose:
      return matrix_op(x, inst);
   case SpvOpCompositeConstruct:
   case SpvOpCompositeExtract:
   case SpvOpCompositeInsert:
   case SpvOpVectorShuffle:
   case SpvOpVectorExtractDynamic:
   case SpvOpVectorInsertDynamic:
   case SpvOpCopyObject:
   case SpvOpCopyLogical:
      return composite_op(x, inst);
   default:
      *handled = false;
      return true;
   }
}
