/* Compute built-ins (invocation, workgroup and subgroup ids, subgroup lane
 * masks) with their linear forms, computed once per body in the entry block. */
#include "llvm_private.h"

#include <stddef.h>

#include <spirv/unified1/spirv.h>

/* ------------------------------------------------------------------------ */
/* Built-ins                                                                 */
/* ------------------------------------------------------------------------ */

static LLVMValueRef
entry_field_u32(struct sc_xlate *x, LLVMValueRef base, size_t offset)
{
   return sc_ctx_field(x, base, (uint32_t)offset, x->t_i32);
}

/* Local invocation index per lane: sg * W + lane. */
static LLVMValueRef
local_index(struct sc_xlate *x)
{
   LLVMValueRef first = LLVMBuildMul(x->eb, x->arg_sg, sc_const_i32(x, x->W), "");
   return LLVMBuildAdd(x->eb, sc_splat_with(x, x->eb, first), x->lane_ids, "");
}

/* Scalar code (W == 1): the call's one invocation is the subgroup index;
 * its ids are uniform scalars. */
static bool
scalar_invocation_ids(struct sc_xlate *x, uint32_t builtin, struct sc_val *out)
{
   LLVMBuilderRef b = x->eb;
   const uint32_t *ls = x->local_size;
   LLVMValueRef idx = x->arg_sg;
   struct sc_val v = sc_new_val(x, builtin == SpvBuiltInLocalInvocationIndex ? 1 : 3, true);
   if (!v.c)
      return false;
   if (builtin == SpvBuiltInLocalInvocationIndex) {
      v.c[0] = idx;
   } else {
      LLVMValueRef lx = sc_const_i32(x, ls[0]);
      v.c[0] = ls[1] * ls[2] == 1 ? idx : LLVMBuildURem(b, idx, lx, "");
      v.c[1] = ls[1] == 1 ? sc_const_i32(x, 0)
                          : LLVMBuildURem(b, LLVMBuildUDiv(b, idx, lx, ""),
                                          sc_const_i32(x, ls[1]), "");
      v.c[2] = ls[2] == 1 ? sc_const_i32(x, 0)
                          : LLVMBuildUDiv(b, idx, sc_const_i32(x, ls[0] * ls[1]), "");
      for (int k = 0; k < 3 && builtin == SpvBuiltInGlobalInvocationId; k++) {
         LLVMValueRef id = entry_field_u32(x, x->arg_wg,
                                           offsetof(struct shale_cs_workgroup, workgroup_id) + 4 * k);
         v.c[k] = LLVMBuildAdd(b, LLVMBuildMul(b, id, sc_const_i32(x, ls[k]), ""), v.c[k], "");
      }
   }
   *out = v;
   return true;
}

bool
sc_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out)
{
   LLVMBuilderRef b = x->eb;
   struct sc_val v = { 0 };
   const uint32_t *ls = x->local_size;
   if (x->W == 1 && (builtin == SpvBuiltInLocalInvocationIndex ||
                     builtin == SpvBuiltInLocalInvocationId ||
                     builtin == SpvBuiltInGlobalInvocationId))
      return scalar_invocation_ids(x, builtin, out);
   switch (builtin) {
   case SpvBuiltInLocalInvocationIndex:
      v = sc_new_val(x, 1, false);
      if (!v.c)
         return false;
      v.c[0] = local_index(x);
      sc_set_lin(x, &v, 0, LLVMBuildMul(b, x->arg_sg, sc_const_i32(x, x->W), ""), 1);
      break;
   case SpvBuiltInLocalInvocationId:
   case SpvBuiltInGlobalInvocationId: {
      v = sc_new_val(x, 3, false);
      if (!v.c)
         return false;
      LLVMValueRef idx = local_index(x);
      LLVMValueRef lx = sc_splat_with(x, b, sc_const_i32(x, ls[0]));
      LLVMValueRef lxy = sc_splat_with(x, b, sc_const_i32(x, ls[0] * ls[1]));
      LLVMValueRef ly = sc_splat_with(x, b, sc_const_i32(x, ls[1]));
      v.c[0] = ls[1] * ls[2] == 1 ? idx : LLVMBuildURem(b, idx, lx, "");
      v.c[1] = ls[1] == 1 ? LLVMConstNull(LLVMTypeOf(idx))
                          : LLVMBuildURem(b, LLVMBuildUDiv(b, idx, lx, ""), ly, "");
      v.c[2] = ls[2] == 1 ? LLVMConstNull(LLVMTypeOf(idx)) : LLVMBuildUDiv(b, idx, lxy, "");
      /* Linear forms: a subgroup covers W consecutive invocations, so a
       * component whose lower dimensions hold a multiple of W invocations is
       * the same for the whole subgroup, and the x component steps by one
       * when the width is a multiple of W. */
      LLVMValueRef first = LLVMBuildMul(b, x->arg_sg, sc_const_i32(x, x->W), "");
      uint32_t lower = 1;
      for (int k = 0; k < 3; k++) {
         LLVMValueRef base = NULL;
         int64_t stride = 0;
         if (ls[k] == 1) {
            base = sc_const_i32(x, 0);
         } else if (lower % x->W == 0) {
            base = LLVMBuildURem(b, LLVMBuildUDiv(b, first, sc_const_i32(x, lower), ""),
                                 sc_const_i32(x, ls[k]), "");
         } else if (lower == 1 && ls[k] % x->W == 0) {
            base = LLVMBuildURem(b, first, sc_const_i32(x, ls[k]), "");
            stride = 1;
         }
         lower *= ls[k];
         LLVMValueRef group = NULL;
         if (builtin == SpvBuiltInGlobalInvocationId) {
            LLVMValueRef id = entry_field_u32(x, x->arg_wg,
                                              offsetof(struct shale_cs_workgroup, workgroup_id) + 4 * k);
            group = LLVMBuildMul(b, id, sc_const_i32(x, ls[k]), "");
            v.c[k] = LLVMBuildAdd(b, sc_splat_with(x, b, group), v.c[k], "");
            if (base)
               base = LLVMBuildAdd(b, group, base, "");
         }
         if (base)
            sc_set_lin(x, &v, k, base, stride);
      }
      break;
   }
   case SpvBuiltInWorkgroupId:
   case SpvBuiltInNumWorkgroups:
   case SpvBuiltInWorkgroupSize:
      v = sc_new_val(x, 3, true);
      if (!v.c)
         return false;
      for (int k = 0; k < 3; k++) {
         if (builtin == SpvBuiltInWorkgroupId)
            v.c[k] = entry_field_u32(x, x->arg_wg,
                                     offsetof(struct shale_cs_workgroup, workgroup_id) + 4 * k);
         else if (builtin == SpvBuiltInNumWorkgroups)
            v.c[k] = entry_field_u32(x, x->arg_ctx,
                                     offsetof(struct shale_cs_context, num_workgroups) + 4 * k);
         else
            v.c[k] = sc_const_i32(x, ls[k]);
      }
      break;
   case SpvBuiltInSubgroupSize:
   case SpvBuiltInSubgroupId:
   case SpvBuiltInNumSubgroups:
      v = sc_new_val(x, 1, true);
      if (!v.c)
         return false;
      v.c[0] = builtin == SpvBuiltInSubgroupSize ? sc_const_i32(x, x->W)
               : builtin == SpvBuiltInSubgroupId ? x->arg_sg
                                                 : sc_const_i32(x, x->subgroups);
      break;
   case SpvBuiltInSubgroupLocalInvocationId:
      v = sc_new_val(x, 1, false);
      if (!v.c)
         return false;
      v.c[0] = x->lane_ids;
      sc_set_lin(x, &v, 0, sc_const_i32(x, 0), 1);
      break;
   case SpvBuiltInSubgroupEqMask:
   case SpvBuiltInSubgroupGeMask:
   case SpvBuiltInSubgroupGtMask:
   case SpvBuiltInSubgroupLeMask:
   case SpvBuiltInSubgroupLtMask: {
      /* uvec4 of lane bits; lanes are bits 0 .. W-1 of the first word. */
      v = sc_new_val(x, 4, false);
      if (!v.c)
         return false;
      LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
      uint64_t all = (1ull << x->W) - 1;
      for (uint32_t l = 0; l < x->W; l++) {
         uint64_t below = (1ull << l) - 1, eq = 1ull << l, bits;
         switch (builtin) {
         case SpvBuiltInSubgroupEqMask: bits = eq; break;
         case SpvBuiltInSubgroupGeMask: bits = all & ~below; break;
         case SpvBuiltInSubgroupGtMask: bits = all & ~(below | eq); break;
         case SpvBuiltInSubgroupLeMask: bits = below | eq; break;
         default: bits = below; break;
         }
         e[l] = sc_const_i32(x, (uint32_t)bits);
      }
      v.c[0] = LLVMConstVector(e, x->W);
      for (int k = 1; k < 4; k++)
         v.c[k] = LLVMConstNull(LLVMVectorType(x->t_i32, x->W));
      break;
   }
   default:
      return sc_stage_builtin_value(x, builtin, out);
   }
   *out = v;
   return true;
}
