/* Atomics: one LLVM atomic per active lane, in lane order (a loop over the
 * lanes, sc_lane_loop). */
#include "llvm_private.h"

#include <spirv/unified1/spirv.h>

/* ------------------------------------------------------------------------ */
/* Atomics                                                                   */
/* ------------------------------------------------------------------------ */

bool
sc_emit_atomic(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   uint32_t op = inst->opcode;
   bool has_result = op != SpvOpAtomicStore;
   uint32_t ptr_id = has_result ? inst->w[3] : inst->w[1];
   const struct sc_ptr *p = sc_get_ptr(x, ptr_id);
   if (!p)
      return false;
   if (p->kind != SC_PTR_MEM)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "atomic on this storage class");
   uint32_t stype = p->type;
   const struct sc_type *t = sc_module_type(x->m, stype);
   if (!t || (t->kind != SC_T_INT && t->kind != SC_T_FLOAT))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "atomic on a non-scalar");
   LLVMTypeRef st = sc_llvm_scalar(x, stype);
   uint32_t bytes = t->width / 8;
   if (p->binding_use != SC_NONE)
      x->bindings[p->binding_use].written = true;

   /* Operands. */
   const struct sc_val *val = NULL, *cmp = NULL;
   switch (op) {
   case SpvOpAtomicStore:
      val = sc_operand(x, inst->w[4], 1, SC_ANY);
      break;
   case SpvOpAtomicCompareExchange:
   case SpvOpAtomicCompareExchangeWeak:
      val = sc_operand(x, inst->w[7], 1, SC_ANY);
      cmp = val ? sc_operand(x, inst->w[8], 1, SC_ANY) : NULL;
      if (!cmp)
         return false;
      break;
   case SpvOpAtomicLoad:
   case SpvOpAtomicIIncrement:
   case SpvOpAtomicIDecrement:
      break;
   default:
      val = sc_operand(x, inst->w[6], 1, SC_ANY);
      break;
   }
   if (x->err)
      return false;

   LLVMAtomicRMWBinOp rmw = LLVMAtomicRMWBinOpAdd;
   bool is_rmw = true;
   switch (op) {
   case SpvOpAtomicExchange: rmw = LLVMAtomicRMWBinOpXchg; break;
   case SpvOpAtomicIIncrement:
   case SpvOpAtomicIAdd: rmw = LLVMAtomicRMWBinOpAdd; break;
   case SpvOpAtomicIDecrement:
   case SpvOpAtomicISub: rmw = LLVMAtomicRMWBinOpSub; break;
   case SpvOpAtomicSMin: rmw = LLVMAtomicRMWBinOpMin; break;
   case SpvOpAtomicUMin: rmw = LLVMAtomicRMWBinOpUMin; break;
   case SpvOpAtomicSMax: rmw = LLVMAtomicRMWBinOpMax; break;
   case SpvOpAtomicUMax: rmw = LLVMAtomicRMWBinOpUMax; break;
   case SpvOpAtomicAnd: rmw = LLVMAtomicRMWBinOpAnd; break;
   case SpvOpAtomicOr: rmw = LLVMAtomicRMWBinOpOr; break;
   case SpvOpAtomicXor: rmw = LLVMAtomicRMWBinOpXor; break;
   case SpvOpAtomicFAddEXT: rmw = LLVMAtomicRMWBinOpFAdd; break;
   case SpvOpAtomicFMinEXT: rmw = LLVMAtomicRMWBinOpFMin; break;
   case SpvOpAtomicFMaxEXT: rmw = LLVMAtomicRMWBinOpFMax; break;
   default: is_rmw = false; break;
   }

   struct sc_access a = sc_address(x, p, 0, bytes, false);
   LLVMValueRef lanes_ok = a.scalar ? LLVMBuildAnd(b, x->mask, sc_splat(x, a.mask), "") : a.mask;
   LLVMTypeRef vt = sc_vec_type(x, st);

   /* One atomic per active lane, in lane order, in a loop over the lanes so
    * the code does not grow with W. */
   LLVMValueRef res_slot = has_result ? sc_entry_alloca(x, vt, 4) : NULL;
   if (res_slot)
      LLVMBuildStore(b, LLVMConstNull(vt), res_slot);
   struct sc_lane_loop l;
   sc_lane_loop_begin(x, &l, lanes_ok);
   LLVMValueRef li = l.lane;
   LLVMValueRef addr = a.scalar ? a.addr : LLVMBuildExtractElement(b, a.addr, li, "");
   LLVMValueRef v = NULL, c = NULL;
   if (val)
      v = val->uniform ? val->c[0] : LLVMBuildExtractElement(b, val->c[0], li, "");
   if (cmp)
      c = cmp->uniform ? cmp->c[0] : LLVMBuildExtractElement(b, cmp->c[0], li, "");
   if (op == SpvOpAtomicIIncrement || op == SpvOpAtomicIDecrement)
      v = LLVMConstInt(st, 1, false);
   LLVMValueRef old = NULL;
   if (is_rmw) {
      old = LLVMBuildAtomicRMW(b, rmw, addr, v, LLVMAtomicOrderingSequentiallyConsistent, false);
   } else if (op == SpvOpAtomicCompareExchange || op == SpvOpAtomicCompareExchangeWeak) {
      LLVMValueRef pair = LLVMBuildAtomicCmpXchg(b, addr, c, v,
                                                 LLVMAtomicOrderingSequentiallyConsistent,
                                                 LLVMAtomicOrderingSequentiallyConsistent, false);
      old = LLVMBuildExtractValue(b, pair, 0, "");
   } else if (op == SpvOpAtomicLoad) {
      old = LLVMBuildLoad2(b, st, addr, "");
      LLVMSetOrdering(old, LLVMAtomicOrderingSequentiallyConsistent);
      LLVMSetAlignment(old, bytes);
   } else {
      LLVMValueRef store = LLVMBuildStore(b, v, addr);
      LLVMSetOrdering(store, LLVMAtomicOrderingSequentiallyConsistent);
      LLVMSetAlignment(store, bytes);
   }
   if (res_slot) {
      LLVMValueRef r = LLVMBuildLoad2(b, vt, res_slot, "");
      LLVMBuildStore(b, LLVMBuildInsertElement(b, r, old, li, ""), res_slot);
   }
   sc_lane_loop_end(x, &l, LLVMBuildICmp(b, LLVMIntEQ, x->lane_ids, sc_splat(x, li), ""));
   if (!has_result)
      return true;
   struct sc_val r = sc_new_val(x, 1, false);
   if (!r.c)
      return false;
   r.c[0] = LLVMBuildLoad2(b, vt, res_slot, "");
   return sc_set(x, inst->result_id, r);
}
