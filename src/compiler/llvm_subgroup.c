/* Subgroup operations in SPMD form: the subgroup is the W lanes of one call
 * and x->mask its active invocations. Cross-lane reads are vector shuffles
 * (constant ones when the lane pattern is known, a gather from a stack copy
 * otherwise); reductions, scans and clustered reductions are log2(W)
 * shuffle steps over the value with inactive lanes replaced by the
 * operation's identity; boolean ones are bit arithmetic on the lane mask. */
#include "llvm_private.h"

#include <math.h>

#include <llvm-c/Target.h>

#include <spirv/unified1/spirv.h>

/* ------------------------------------------------------------------------ */
/* Lane helpers                                                              */
/* ------------------------------------------------------------------------ */

static bool
is_float(LLVMTypeRef st)
{
   LLVMTypeKind k = LLVMGetTypeKind(st);
   return k == LLVMHalfTypeKind || k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
}

static bool
is_bool(LLVMTypeRef st)
{
   return LLVMGetTypeKind(st) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(st) == 1;
}

/* <W x i32> of f(lane) for the lanes. */
static LLVMValueRef
lane_consts(struct sc_xlate *x, uint32_t (*f)(uint32_t lane, uint32_t arg), uint32_t arg)
{
   LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t l = 0; l < x->W; l++)
      e[l] = sc_const_i32(x, f(l, arg));
   return LLVMConstVector(e, x->W);
}

static uint32_t
bits_le(uint32_t l, uint32_t w)
{
   return (uint32_t)((2ull << l) - 1) & (uint32_t)((1ull << w) - 1);
}

static uint32_t
bits_lt(uint32_t l, uint32_t w)
{
   (void)w;
   return (1u << l) - 1;
}

/* Bits of the lanes of cluster size c holding lane l. */
static uint32_t
bits_cluster(uint32_t l, uint32_t c)
{
   return (uint32_t)((1ull << c) - 1) << (l & ~(c - 1));
}

/* The bits of a <W x i1> as an i32 (lane l is bit l). */
static LLVMValueRef
bits_of(struct sc_xlate *x, LLVMValueRef lanes)
{
   LLVMValueRef n = LLVMBuildBitCast(x->b, lanes, LLVMIntTypeInContext(x->ctx, x->W), "");
   return LLVMBuildZExt(x->b, n, x->t_i32, "");
}

/* Bits of the active lanes for which the predicate (i1 or <W x i1>) holds. */
static LLVMValueRef
ballot_bits(struct sc_xlate *x, LLVMValueRef pred)
{
   if (!sc_is_vec(pred))
      return LLVMBuildSelect(x->b, pred, bits_of(x, x->mask), sc_const_i32(x, 0), "");
   return bits_of(x, LLVMBuildAnd(x->b, pred, x->mask, ""));
}

static LLVMValueRef
ctpop32(struct sc_xlate *x, LLVMValueRef v)
{
   LLVMTypeRef t = LLVMTypeOf(v);
   return sc_intrinsic(x, "llvm.ctpop", &t, 1, &v, 1);
}

/* Index of the lowest active lane (the mask is never empty where code runs). */
static LLVMValueRef
first_lane(struct sc_xlate *x)
{
   LLVMValueRef args[2] = { bits_of(x, x->mask), LLVMConstInt(x->t_i1, 0, false) };
   LLVMValueRef tz = sc_intrinsic(x, "llvm.cttz", &x->t_i32, 1, args, 2);
   return LLVMBuildAnd(x->b, tz, sc_const_i32(x, x->W - 1), "");
}

/* An integer scalar or lane vector as i32 (lane indices, bit positions). */
static LLVMValueRef
to_i32(struct sc_xlate *x, LLVMValueRef v)
{
   LLVMTypeRef want = sc_is_vec(v) ? sc_vec_type(x, x->t_i32) : x->t_i32;
   unsigned w = LLVMGetIntTypeWidth(sc_scalar_of(v));
   if (w > 32)
      return LLVMBuildTrunc(x->b, v, want, "");
   if (w < 32)
      return LLVMBuildZExt(x->b, v, want, "");
   return v;
}

/* A uniform i32 from a value that should be uniform (dynamically uniform
 * ids): the first active lane's when it is a lane vector. */
static LLVMValueRef
uniform_i32(struct sc_xlate *x, LLVMValueRef v)
{
   v = to_i32(x, v);
   if (sc_is_vec(v))
      v = LLVMBuildExtractElement(x->b, LLVMBuildFreeze(x->b, v, ""), first_lane(x), "");
   return v;
}

/* Lane l of the result reads lane idx[l] of v (idx constant, each < W). */
static LLVMValueRef
shuffle_const(struct sc_xlate *x, LLVMValueRef v, const uint32_t *idx)
{
   LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t l = 0; l < x->W; l++)
      e[l] = sc_const_i32(x, idx[l]);
   return LLVMBuildShuffleVector(x->b, v, LLVMGetPoison(LLVMTypeOf(v)),
                                 LLVMConstVector(e, x->W), "");
}

/* Lanes of idx when it is a constant vector, in range after & (W - 1). */
static bool
const_lanes(struct sc_xlate *x, LLVMValueRef idx, uint32_t *out)
{
   if (!LLVMIsConstant(idx))
      return false;
   for (uint32_t l = 0; l < x->W; l++) {
      LLVMValueRef e = LLVMGetAggregateElement(idx, l);
      if (!e || !LLVMIsAConstantInt(e))
         return false;
      out[l] = (uint32_t)LLVMConstIntGetZExtValue(e) & (x->W - 1);
   }
   return true;
}

/* Lane l of the result reads lane idx[l] & (W - 1) of the lane vector v. */
static LLVMValueRef
read_lanes(struct sc_xlate *x, LLVMValueRef v, LLVMValueRef idx)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef vt = LLVMTypeOf(v);
   LLVMTypeRef st = LLVMGetElementType(vt);
   idx = LLVMBuildAnd(b, idx, sc_splat(x, sc_const_i32(x, x->W - 1)), "");
   uint32_t lanes[SHALE_MAX_SIMD_WIDTH];
   if (const_lanes(x, idx, lanes))
      return shuffle_const(x, v, lanes);
   if (is_bool(st)) {
      /* Lane l takes bit idx[l] of the lanes' bits. */
      LLVMValueRef bits = sc_splat(x, bits_of(x, v));
      LLVMValueRef sh = LLVMBuildLShr(b, bits, idx, "");
      return LLVMBuildTrunc(b, sh, vt, "");
   }
   /* A stack copy of the lanes and one gather from it. */
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(x->mod);
   unsigned valign = (unsigned)LLVMABIAlignmentOfType(td, vt);
   LLVMValueRef tmp = sc_entry_alloca(x, vt, valign);
   LLVMSetAlignment(LLVMBuildStore(b, v, tmp), valign);
   LLVMValueRef ptrs = LLVMBuildGEP2(b, st, tmp, &idx, 1, "");
   unsigned align = (unsigned)LLVMABIAlignmentOfType(td, st);
   LLVMValueRef args[4] = { ptrs, sc_const_i32(x, align),
                            LLVMConstAllOnes(sc_vec_type(x, x->t_i1)), LLVMGetPoison(vt) };
   LLVMTypeRef ov[2] = { vt, LLVMTypeOf(ptrs) };
   return sc_intrinsic(x, "llvm.masked.gather", ov, 2, args, 4);
}

enum lane_pattern {
   LANE_XOR,     /* lane ^ k */
   LANE_UP,      /* lane - k */
   LANE_DOWN,    /* lane + k */
};

static uint32_t
pattern_lane(enum lane_pattern p, uint32_t l, uint32_t k, uint32_t W)
{
   switch (p) {
   case LANE_XOR: return (l ^ k) & (W - 1);
   case LANE_UP: return (l - k) & (W - 1);
   default: return (l + k) & (W - 1);
   }
}

/* Lane l reads lane pattern(l, k) of v for a uniform k: constant k is one
 * shuffle, a run-time k one conditional shuffle per bit of k (xor and
 * rotations compose bit by bit; lanes that leave the subgroup are
 * undefined anyway). */
static LLVMValueRef
read_pattern(struct sc_xlate *x, LLVMValueRef v, enum lane_pattern p, LLVMValueRef k)
{
   uint32_t idx[SHALE_MAX_SIMD_WIDTH];
   k = to_i32(x, k);
   if (LLVMIsAConstantInt(k)) {
      uint32_t kk = (uint32_t)LLVMConstIntGetZExtValue(k);
      for (uint32_t l = 0; l < x->W; l++)
         idx[l] = pattern_lane(p, l, kk, x->W);
      return shuffle_const(x, v, idx);
   }
   for (uint32_t bit = 1; bit < x->W; bit <<= 1) {
      for (uint32_t l = 0; l < x->W; l++)
         idx[l] = pattern_lane(p, l, bit, x->W);
      LLVMValueRef s = shuffle_const(x, v, idx);
      LLVMValueRef on = LLVMBuildICmp(x->b, LLVMIntNE,
                                      LLVMBuildAnd(x->b, k, sc_const_i32(x, bit), ""),
                                      sc_const_i32(x, 0), "");
      v = LLVMBuildSelect(x->b, on, s, v, "");
   }
   return v;
}

/* ------------------------------------------------------------------------ */
/* Operations of reductions and scans                                        */
/* ------------------------------------------------------------------------ */

/* The identity of an operation (what inactive lanes contribute; what an
 * exclusive scan gives the first lanes). FAdd's 0 is -0.0, which leaves
 * every sum unchanged, -0.0 included. */
static LLVMValueRef
identity(uint32_t op, LLVMTypeRef st)
{
   unsigned w = is_float(st) ? 0 : LLVMGetIntTypeWidth(st);
   switch (op) {
   case SpvOpGroupNonUniformIMul: return LLVMConstInt(st, 1, false);
   case SpvOpGroupNonUniformFAdd: return LLVMConstReal(st, -0.0);
   case SpvOpGroupNonUniformFMul: return LLVMConstReal(st, 1.0);
   case SpvOpGroupNonUniformFMin: return LLVMConstReal(st, INFINITY);
   case SpvOpGroupNonUniformFMax: return LLVMConstReal(st, -INFINITY);
   case SpvOpGroupNonUniformSMin: return LLVMConstInt(st, (1ull << (w - 1)) - 1, false);
   case SpvOpGroupNonUniformSMax: return LLVMConstInt(st, 1ull << (w - 1), false);
   case SpvOpGroupNonUniformUMin:
   case SpvOpGroupNonUniformBitwiseAnd:
   case SpvOpGroupNonUniformLogicalAnd: return LLVMConstAllOnes(st);
   default: return LLVMConstNull(st);   /* add, or, xor, umax */
   }
}

static LLVMValueRef
combine(struct sc_xlate *x, uint32_t op, LLVMValueRef a, LLVMValueRef c)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef t = LLVMTypeOf(a);
   LLVMValueRef args[2] = { a, c };
   switch (op) {
   case SpvOpGroupNonUniformIAdd: return LLVMBuildAdd(b, a, c, "");
   case SpvOpGroupNonUniformFAdd: return LLVMBuildFAdd(b, a, c, "");
   case SpvOpGroupNonUniformIMul: return LLVMBuildMul(b, a, c, "");
   case SpvOpGroupNonUniformFMul: return LLVMBuildFMul(b, a, c, "");
   case SpvOpGroupNonUniformSMin: return sc_intrinsic(x, "llvm.smin", &t, 1, args, 2);
   case SpvOpGroupNonUniformUMin: return sc_intrinsic(x, "llvm.umin", &t, 1, args, 2);
   case SpvOpGroupNonUniformSMax: return sc_intrinsic(x, "llvm.smax", &t, 1, args, 2);
   case SpvOpGroupNonUniformUMax: return sc_intrinsic(x, "llvm.umax", &t, 1, args, 2);
   /* A NaN operand yields the other one (SPIR-V FMin / FMax): minnum. */
   case SpvOpGroupNonUniformFMin:
   case SpvOpGroupNonUniformFMax: {
      const char *name = op == SpvOpGroupNonUniformFMin ? "llvm.minnum" : "llvm.maxnum";
      if (LLVMGetTypeKind(sc_scalar_of(a)) != LLVMHalfTypeKind)
         return sc_intrinsic(x, name, &t, 1, args, 2);
      /* LLVM 15 cannot select half vector minnum on x86 without native
       * half arithmetic (and folds a float detour back): compare and pick,
       * c where it is smaller (larger) or a is a NaN. */
      LLVMRealPredicate pr = op == SpvOpGroupNonUniformFMin ? LLVMRealOGT : LLVMRealOLT;
      LLVMValueRef pick = LLVMBuildOr(b, LLVMBuildFCmp(b, pr, a, c, ""),
                                      LLVMBuildFCmp(b, LLVMRealUNO, a, a, ""), "");
      return LLVMBuildSelect(b, pick, c, a, "");
   }
   case SpvOpGroupNonUniformBitwiseAnd:
   case SpvOpGroupNonUniformLogicalAnd: return LLVMBuildAnd(b, a, c, "");
   case SpvOpGroupNonUniformBitwiseOr:
   case SpvOpGroupNonUniformLogicalOr: return LLVMBuildOr(b, a, c, "");
   default: return LLVMBuildXor(b, a, c, "");
   }
}

/* The lanes of v with the inactive ones replaced by the identity. */
static LLVMValueRef
pad(struct sc_xlate *x, uint32_t op, LLVMValueRef v)
{
   return LLVMBuildSelect(x->b, x->mask, v, sc_splat(x, identity(op, sc_scalar_of(v))), "");
}

/* Reduction of padded lanes to a scalar. */
static LLVMValueRef
reduce_lanes(struct sc_xlate *x, uint32_t op, LLVMValueRef v)
{
   LLVMTypeRef vt = LLVMTypeOf(v);
   const char *name = NULL;
   switch (op) {
   case SpvOpGroupNonUniformIAdd: name = "llvm.vector.reduce.add"; break;
   case SpvOpGroupNonUniformIMul: name = "llvm.vector.reduce.mul"; break;
   case SpvOpGroupNonUniformSMin: name = "llvm.vector.reduce.smin"; break;
   case SpvOpGroupNonUniformUMin: name = "llvm.vector.reduce.umin"; break;
   case SpvOpGroupNonUniformSMax: name = "llvm.vector.reduce.smax"; break;
   case SpvOpGroupNonUniformUMax: name = "llvm.vector.reduce.umax"; break;
   case SpvOpGroupNonUniformBitwiseAnd: name = "llvm.vector.reduce.and"; break;
   case SpvOpGroupNonUniformBitwiseOr: name = "llvm.vector.reduce.or"; break;
   case SpvOpGroupNonUniformBitwiseXor: name = "llvm.vector.reduce.xor"; break;
   default: break;
   }
   if (name)
      return sc_intrinsic(x, name, &vt, 1, &v, 1);
   /* Floats: a tree of halves (any order is allowed; this one is fixed). */
   uint32_t idx[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t half = x->W / 2; half >= 1; half /= 2) {
      for (uint32_t l = 0; l < x->W; l++)
         idx[l] = (l + half) & (x->W - 1);
      v = combine(x, op, v, shuffle_const(x, v, idx));
   }
   return LLVMBuildExtractElement(x->b, v, sc_const_i32(x, 0), "");
}

/* Inclusive scan of padded lanes: log2(W) shifted combines. */
static LLVMValueRef
scan_lanes(struct sc_xlate *x, uint32_t op, LLVMValueRef v)
{
   LLVMValueRef id = sc_splat(x, identity(op, sc_scalar_of(v)));
   LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t s = 1; s < x->W; s <<= 1) {
      for (uint32_t l = 0; l < x->W; l++)
         e[l] = sc_const_i32(x, l >= s ? l - s : x->W + l);
      LLVMValueRef sh = LLVMBuildShuffleVector(x->b, v, id, LLVMConstVector(e, x->W), "");
      v = combine(x, op, sh, v);
   }
   return v;
}

/* Lanes shifted up by one, the identity entering lane 0. */
static LLVMValueRef
shift_in_identity(struct sc_xlate *x, uint32_t op, LLVMValueRef v)
{
   LLVMValueRef id = sc_splat(x, identity(op, sc_scalar_of(v)));
   LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t l = 0; l < x->W; l++)
      e[l] = sc_const_i32(x, l >= 1 ? l - 1 : x->W);
   return LLVMBuildShuffleVector(x->b, v, id, LLVMConstVector(e, x->W), "");
}

/* Every lane gets the reduction of its cluster of c lanes (butterfly). */
static LLVMValueRef
cluster_lanes(struct sc_xlate *x, uint32_t op, LLVMValueRef v, uint32_t c)
{
   uint32_t idx[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t s = 1; s < c; s <<= 1) {
      for (uint32_t l = 0; l < x->W; l++)
         idx[l] = l ^ s;
      v = combine(x, op, v, shuffle_const(x, v, idx));
   }
   return v;
}

/* Boolean operations on lane bits: p's active lanes, bits of the lanes
 * that count for each lane (sel: a constant <W x i32> or a scalar). */
static LLVMValueRef
bool_group(struct sc_xlate *x, uint32_t op, LLVMValueRef p, LLVMValueRef sel)
{
   LLVMBuilderRef b = x->b;
   LLVMValueRef active = bits_of(x, x->mask);
   LLVMValueRef t = ballot_bits(x, p);
   bool vec = sc_is_vec(sel);
   if (vec) {
      active = sc_splat(x, active);
      t = sc_splat(x, t);
   }
   LLVMValueRef zero = vec ? sc_splat(x, sc_const_i32(x, 0)) : sc_const_i32(x, 0);
   switch (op) {
   case SpvOpGroupNonUniformLogicalAnd: {
      /* No counted active lane is false. */
      LLVMValueRef f = LLVMBuildAnd(b, LLVMBuildXor(b, active, t, ""), sel, "");
      return LLVMBuildICmp(b, LLVMIntEQ, f, zero, "");
   }
   case SpvOpGroupNonUniformLogicalOr:
      return LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, t, sel, ""), zero, "");
   default: {
      LLVMValueRef n = ctpop32(x, LLVMBuildAnd(b, t, sel, ""));
      LLVMTypeRef it = vec ? sc_vec_type(x, x->t_i1) : x->t_i1;
      return LLVMBuildTrunc(b, n, it, "");
   }
   }
}

/* ------------------------------------------------------------------------ */
/* Instructions                                                              */
/* ------------------------------------------------------------------------ */

static bool
check_scope(struct sc_xlate *x, uint32_t id)
{
   const struct sc_val *s = sc_operand(x, id, 1, SC_ANY);
   if (!s)
      return false;
   if (!s->uniform || !LLVMIsAConstantInt(s->c[0]))
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "subgroup operation with a non-constant scope");
   if (LLVMConstIntGetZExtValue(s->c[0]) != SpvScopeSubgroup)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "group operation of scope %llu (only Subgroup)",
                     (unsigned long long)LLVMConstIntGetZExtValue(s->c[0]));
   return true;
}

static bool
set_bool(struct sc_xlate *x, const struct sc_inst *inst, LLVMValueRef v)
{
   struct sc_val r = sc_new_val(x, 1, !sc_is_vec(v));
   if (!r.c)
      return false;
   r.c[0] = v;
   return sc_set(x, inst->result_id, r);
}

/* uvec4 ballot of i32 bits (bits past W are zero). */
static bool
set_ballot(struct sc_xlate *x, const struct sc_inst *inst, LLVMValueRef bits)
{
   struct sc_val r = sc_new_val(x, 4, !sc_is_vec(bits));
   if (!r.c)
      return false;
   LLVMValueRef zero = sc_const_i32(x, 0);
   r.c[0] = bits;
   for (int i = 1; i < 4; i++)
      r.c[i] = r.uniform ? zero : sc_splat(x, zero);
   return sc_set(x, inst->result_id, r);
}

static bool
emit_all_any(struct sc_xlate *x, const struct sc_inst *inst, uint32_t pred_id, bool all)
{
   const struct sc_val *p = sc_operand(x, pred_id, 1, SC_ANY);
   if (!p)
      return false;
   uint32_t op = all ? SpvOpGroupNonUniformLogicalAnd : SpvOpGroupNonUniformLogicalOr;
   return set_bool(x, inst, bool_group(x, op, p->c[0], LLVMConstAllOnes(x->t_i32)));
}

static bool
emit_all_equal(struct sc_xlate *x, const struct sc_inst *inst, uint32_t value_id)
{
   const struct sc_val *v = sc_operand(x, value_id, 1, SC_ANY);
   if (!v)
      return false;
   LLVMBuilderRef b = x->b;
   if (v->uniform)
      return set_bool(x, inst, LLVMConstInt(x->t_i1, 1, false));
   LLVMValueRef first = first_lane(x);
   LLVMValueRef eq = NULL;
   for (uint32_t i = 0; i < v->n; i++) {
      LLVMValueRef c = LLVMBuildFreeze(b, v->c[i], "");
      LLVMValueRef f = sc_splat(x, LLVMBuildExtractElement(b, c, first, ""));
      LLVMValueRef e = is_float(sc_scalar_of(c)) ? LLVMBuildFCmp(b, LLVMRealOEQ, c, f, "")
                                              : LLVMBuildICmp(b, LLVMIntEQ, c, f, "");
      eq = eq ? LLVMBuildAnd(b, eq, e, "") : e;
   }
   LLVMValueRef all = bool_group(x, SpvOpGroupNonUniformLogicalAnd, eq, LLVMConstAllOnes(x->t_i32));
   return set_bool(x, inst, all);
}

/* Broadcast of lane id (uniform result): Broadcast, ReadInvocation, and
 * BroadcastFirst / FirstInvocation with id_op 0. */
static bool
emit_broadcast(struct sc_xlate *x, const struct sc_inst *inst, uint32_t value_id, uint32_t id_op)
{
   const struct sc_val *v = sc_operand(x, value_id, 1, SC_ANY);
   const struct sc_val *id = id_op ? sc_operand(x, id_op, 1, SC_ANY) : NULL;
   if (!v || (id_op && !id))
      return false;
   struct sc_val r = sc_new_val(x, v->n, true);
   if (!r.c)
      return false;
   LLVMValueRef lane = NULL;
   if (!v->uniform) {
      lane = id ? uniform_i32(x, id->c[0]) : first_lane(x);
      lane = LLVMBuildAnd(x->b, lane, sc_const_i32(x, x->W - 1), "");
   }
   for (uint32_t i = 0; i < v->n; i++)
      r.c[i] = v->uniform ? v->c[i]
                          : LLVMBuildExtractElement(x->b, LLVMBuildFreeze(x->b, v->c[i], ""),
                                                    lane, "");
   return sc_set(x, inst->result_id, r);
}

enum shuffle_kind { SHUF_INDEX, SHUF_XOR, SHUF_UP, SHUF_DOWN, SHUF_QUAD_BCAST, SHUF_QUAD_SWAP };

/* Shuffles and quad operations: lane l reads lane f(l, k) of the value. */
static bool
emit_shuffle(struct sc_xlate *x, const struct sc_inst *inst, enum shuffle_kind kind)
{
   const struct sc_val *v = sc_operand(x, inst->w[4], 1, SC_ANY);
   const struct sc_val *k = sc_operand(x, inst->w[5], 1, SC_ANY);
   if (!v || !k)
      return false;
   LLVMBuilderRef b = x->b;
   struct sc_val r = sc_new_val(x, v->n, v->uniform);
   if (!r.c)
      return false;
   if (v->uniform) {
      /* Every lane reads the same value (reads of inactive or missing
       * lanes are undefined, so this value will do). */
      for (uint32_t i = 0; i < v->n; i++)
         r.c[i] = v->c[i];
      return sc_set(x, inst->result_id, r);
   }
   LLVMValueRef kv = to_i32(x, k->c[0]);
   LLVMValueRef idx = NULL;              /* per-lane source lanes, or NULL */
   enum lane_pattern pat = LANE_XOR;
   LLVMValueRef amount = NULL;           /* uniform pattern amount */
   LLVMValueRef lanes = x->lane_ids;
   LLVMValueRef wm1 = sc_const_i32(x, x->W - 1);
   switch (kind) {
   case SHUF_INDEX:
      if (k->uniform)
         break;
      idx = kv;
      break;
   case SHUF_XOR:
   case SHUF_UP:
   case SHUF_DOWN:
      pat = kind == SHUF_XOR ? LANE_XOR : kind == SHUF_UP ? LANE_UP : LANE_DOWN;
      if (k->uniform) {
         amount = kv;
      } else {
         idx = kind == SHUF_XOR ? LLVMBuildXor(b, lanes, kv, "")
               : kind == SHUF_UP ? LLVMBuildSub(b, lanes, kv, "")
                                 : LLVMBuildAdd(b, lanes, kv, "");
      }
      break;
   case SHUF_QUAD_BCAST: {
      LLVMValueRef three = sc_const_i32(x, 3);
      LLVMValueRef q = LLVMBuildAnd(b, kv, k->uniform ? three : sc_splat(x, three), "");
      idx = LLVMBuildOr(b, LLVMBuildAnd(b, lanes, sc_splat(x, sc_const_i32(x, ~3u)), ""),
                        sc_splat(x, q), "");
      break;
   }
   case SHUF_QUAD_SWAP:
      /* Direction 0: horizontal (lane ^ 1), 1: vertical (^ 2), 2: diagonal (^ 3). */
      idx = LLVMBuildXor(b, lanes,
                         sc_splat(x, LLVMBuildAdd(b, uniform_i32(x, kv), sc_const_i32(x, 1), "")),
                         "");
      break;
   }
   for (uint32_t i = 0; i < v->n; i++) {
      LLVMValueRef c = LLVMBuildFreeze(b, v->c[i], "");
      if (kind == SHUF_INDEX && k->uniform)
         r.c[i] = sc_splat(x, LLVMBuildExtractElement(b, c, LLVMBuildAnd(b, kv, wm1, ""), ""));
      else if (amount)
         r.c[i] = read_pattern(x, c, pat, amount);
      else
         r.c[i] = read_lanes(x, c, idx);
   }
   return sc_set(x, inst->result_id, r);
}

static bool
emit_ballot_ops(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   uint32_t op = inst->opcode;
   uint32_t vid = op == SpvOpGroupNonUniformBallotBitCount ? inst->w[5] : inst->w[4];
   const struct sc_val *v = sc_operand(x, vid, 4, 4);   /* a uvec4 ballot */
   if (!v)
      return false;
   /* Only lanes 0 .. W-1 exist: bits past them are ignored. */
   LLVMValueRef c0 = v->c[0];
   LLVMValueRef wmask = sc_const_i32(x, (uint32_t)((1ull << x->W) - 1));
   LLVMValueRef lanes_bits = LLVMBuildAnd(b, c0, v->uniform ? wmask : sc_splat(x, wmask), "");
   switch (op) {
   case SpvOpGroupNonUniformInverseBallot: {
      LLVMValueRef bits = sc_comp(x, v, 0, true);
      LLVMValueRef sh = LLVMBuildLShr(b, bits, x->lane_ids, "");
      return set_bool(x, inst, LLVMBuildTrunc(b, sh, sc_vec_type(x, x->t_i1), ""));
   }
   case SpvOpGroupNonUniformBallotBitExtract: {
      const struct sc_val *ix = sc_operand(x, inst->w[5], 1, SC_ANY);
      if (!ix)
         return false;
      bool vec = !v->uniform || !ix->uniform;
      LLVMValueRef index = to_i32(x, ix->c[0]);
      if (vec)
         index = sc_splat(x, index);
      LLVMValueRef word = sc_comp(x, v, 0, vec);
      for (uint32_t i = 1; i < 4; i++) {
         LLVMValueRef w = LLVMBuildLShr(b, index, vec ? sc_splat(x, sc_const_i32(x, 5))
                                                      : sc_const_i32(x, 5), "");
         LLVMValueRef ci = vec ? sc_splat(x, sc_const_i32(x, i)) : sc_const_i32(x, i);
         LLVMValueRef is = LLVMBuildICmp(b, LLVMIntEQ, w, ci, "");
         word = LLVMBuildSelect(b, is, sc_comp(x, v, i, vec), word, "");
      }
      LLVMValueRef c31 = vec ? sc_splat(x, sc_const_i32(x, 31)) : sc_const_i32(x, 31);
      LLVMValueRef sh = LLVMBuildLShr(b, word, LLVMBuildAnd(b, index, c31, ""), "");
      return set_bool(x, inst, LLVMBuildTrunc(b, sh, vec ? sc_vec_type(x, x->t_i1) : x->t_i1, ""));
   }
   case SpvOpGroupNonUniformBallotBitCount: {
      uint32_t gop = inst->w[4];
      LLVMValueRef n;
      if (gop == SpvGroupOperationReduce) {
         n = ctpop32(x, lanes_bits);
      } else if (gop == SpvGroupOperationInclusiveScan || gop == SpvGroupOperationExclusiveScan) {
         LLVMValueRef sel = lane_consts(x, gop == SpvGroupOperationInclusiveScan ? bits_le : bits_lt,
                                        x->W);
         LLVMValueRef bits = v->uniform ? sc_splat(x, lanes_bits) : lanes_bits;
         n = ctpop32(x, LLVMBuildAnd(b, bits, sel, ""));
      } else {
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "ballot bit count with group operation %u", gop);
      }
      struct sc_val r = sc_new_val(x, 1, !sc_is_vec(n));
      if (!r.c)
         return false;
      r.c[0] = n;
      return sc_set(x, inst->result_id, r);
   }
   default: {
      /* FindLSB / FindMSB: undefined (here 32 / -1) when no bit is set. */
      LLVMValueRef args[2] = { lanes_bits, LLVMConstInt(x->t_i1, 0, false) };
      LLVMTypeRef t = LLVMTypeOf(lanes_bits);
      LLVMValueRef n;
      if (op == SpvOpGroupNonUniformBallotFindLSB) {
         n = sc_intrinsic(x, "llvm.cttz", &t, 1, args, 2);
      } else {
         LLVMValueRef lz = sc_intrinsic(x, "llvm.ctlz", &t, 1, args, 2);
         LLVMValueRef c31 = v->uniform ? sc_const_i32(x, 31) : sc_splat(x, sc_const_i32(x, 31));
         n = LLVMBuildSub(b, c31, lz, "");
      }
      struct sc_val r = sc_new_val(x, 1, v->uniform);
      if (!r.c)
         return false;
      r.c[0] = n;
      return sc_set(x, inst->result_id, r);
   }
   }
}

/* Reduce / scan of a uniform value without lane arithmetic, or NULL where
 * the general path is needed. n: active lanes counted (i32, scalar for a
 * reduction, per lane for scans). */
static LLVMValueRef
uniform_group(struct sc_xlate *x, uint32_t op, LLVMValueRef v, LLVMValueRef n, bool exclusive)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef st = LLVMTypeOf(v);
   bool vec = sc_is_vec(n);
   LLVMValueRef vv = vec ? sc_splat(x, v) : v;
   LLVMValueRef zero = vec ? sc_splat(x, sc_const_i32(x, 0)) : sc_const_i32(x, 0);
   LLVMValueRef one = vec ? sc_splat(x, sc_const_i32(x, 1)) : sc_const_i32(x, 1);
   LLVMValueRef id = vec ? sc_splat(x, identity(op, st)) : identity(op, st);
   switch (op) {
   case SpvOpGroupNonUniformIAdd: {
      LLVMTypeRef nt = vec ? sc_vec_type(x, st) : st;
      unsigned w = LLVMGetIntTypeWidth(st);
      LLVMValueRef cnt = w > 32 ? LLVMBuildZExt(b, n, nt, "")
                         : w < 32 ? LLVMBuildTrunc(b, n, nt, "") : n;
      return LLVMBuildMul(b, vv, cnt, "");
   }
   case SpvOpGroupNonUniformSMin:
   case SpvOpGroupNonUniformUMin:
   case SpvOpGroupNonUniformSMax:
   case SpvOpGroupNonUniformUMax:
   case SpvOpGroupNonUniformFMin:
   case SpvOpGroupNonUniformFMax:
   case SpvOpGroupNonUniformBitwiseAnd:
   case SpvOpGroupNonUniformBitwiseOr:
   case SpvOpGroupNonUniformLogicalAnd:
   case SpvOpGroupNonUniformLogicalOr:
      /* Idempotent: v once any lane counts (always for reductions and
       * inclusive scans of active lanes). */
      if (!exclusive)
         return vv;
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, n, zero, ""), vv, id, "");
   case SpvOpGroupNonUniformBitwiseXor:
   case SpvOpGroupNonUniformLogicalXor: {
      LLVMValueRef odd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, n, one, ""), zero, "");
      return LLVMBuildSelect(b, odd, vv, id, "");
   }
   default:
      return NULL;
   }
}

/* The operand type each group arithmetic takes (spirv-val passes a mutated
 * module's mismatches, such as an FMin of integers, and the identities and
 * intrinsics below are only defined for the right kind): floats for the F
 * operations, booleans for the logical ones, integers wider than one bit
 * for the rest. */
static bool
arithmetic_type_ok(uint32_t op, LLVMTypeRef st)
{
   bool integer = LLVMGetTypeKind(st) == LLVMIntegerTypeKind;
   switch (op) {
   case SpvOpGroupNonUniformFAdd:
   case SpvOpGroupNonUniformFMul:
   case SpvOpGroupNonUniformFMin:
   case SpvOpGroupNonUniformFMax:
      return is_float(st);
   case SpvOpGroupNonUniformLogicalAnd:
   case SpvOpGroupNonUniformLogicalOr:
   case SpvOpGroupNonUniformLogicalXor:
      return integer && LLVMGetIntTypeWidth(st) == 1;
   default:
      return integer && LLVMGetIntTypeWidth(st) > 1;
   }
}

static bool
emit_arithmetic(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   uint32_t op = inst->opcode;
   uint32_t gop = inst->w[4];
   const struct sc_val *v = sc_operand(x, inst->w[5], 1, SC_ANY);
   if (!v)
      return false;
   if (!arithmetic_type_ok(op, sc_scalar_of(v->c[0])))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "group operation %u on a value of the wrong type", op);
   uint32_t cluster = x->W;
   switch (gop) {
   case SpvGroupOperationReduce:
   case SpvGroupOperationInclusiveScan:
   case SpvGroupOperationExclusiveScan:
      break;
   case SpvGroupOperationClusteredReduce: {
      const struct sc_val *cs = inst->nwords > 6 ? sc_operand(x, inst->w[6], 1, SC_ANY) : NULL;
      if (!cs)
         return x->err ? false : sc_fail(x, SC_ERROR_INVALID_SPIRV, "clustered reduce without a cluster size");
      if (!cs->uniform || !LLVMIsAConstantInt(cs->c[0]))
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "cluster size is not a constant");
      uint64_t c = LLVMConstIntGetZExtValue(cs->c[0]);
      if (c == 0 || (c & (c - 1)))
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "cluster size %llu is not a power of two",
                        (unsigned long long)c);
      /* Larger than the subgroup: undefined; the whole subgroup will do. */
      cluster = c < x->W ? (uint32_t)c : x->W;
      break;
   }
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "group operation %u", gop);
   }
   bool result_uniform = gop == SpvGroupOperationReduce ||
                         (gop == SpvGroupOperationClusteredReduce && cluster == x->W);
   struct sc_val r = sc_new_val(x, v->n, result_uniform);
   if (!r.c)
      return false;
   bool logical = op >= SpvOpGroupNonUniformLogicalAnd && op <= SpvOpGroupNonUniformLogicalXor;

   /* Active lanes counted for each lane of a uniform value. */
   LLVMValueRef count = NULL;
   if (v->uniform) {
      LLVMValueRef active = bits_of(x, x->mask);
      if (result_uniform) {
         count = ctpop32(x, active);
      } else {
         LLVMValueRef sel;
         if (gop == SpvGroupOperationClusteredReduce)
            sel = lane_consts(x, bits_cluster, cluster);
         else
            sel = lane_consts(x, gop == SpvGroupOperationInclusiveScan ? bits_le : bits_lt, x->W);
         count = ctpop32(x, LLVMBuildAnd(b, sc_splat(x, active), sel, ""));
      }
   }
   for (uint32_t i = 0; i < v->n; i++) {
      LLVMValueRef c = v->c[i];
      LLVMValueRef res = NULL;
      if (v->uniform)
         res = uniform_group(x, op, c, count, gop == SpvGroupOperationExclusiveScan);
      if (res) {
         r.c[i] = res;
         continue;
      }
      if (logical) {
         LLVMValueRef sel;
         if (result_uniform) {
            sel = LLVMConstAllOnes(x->t_i32);
         } else if (gop == SpvGroupOperationClusteredReduce) {
            sel = lane_consts(x, bits_cluster, cluster);
         } else {
            sel = lane_consts(x, gop == SpvGroupOperationInclusiveScan ? bits_le : bits_lt, x->W);
         }
         r.c[i] = bool_group(x, op, c, sel);
         continue;
      }
      LLVMValueRef lanes = pad(x, op, sc_comp(x, v, i, true));
      switch (gop) {
      case SpvGroupOperationReduce:
         r.c[i] = reduce_lanes(x, op, lanes);
         break;
      case SpvGroupOperationInclusiveScan:
         r.c[i] = scan_lanes(x, op, lanes);
         break;
      case SpvGroupOperationExclusiveScan:
         r.c[i] = scan_lanes(x, op, shift_in_identity(x, op, lanes));
         break;
      default:
         r.c[i] = cluster == x->W ? reduce_lanes(x, op, lanes) : cluster_lanes(x, op, lanes, cluster);
         break;
      }
   }
   return sc_set(x, inst->result_id, r);
}

bool
sc_emit_subgroup(struct sc_xlate *x, const struct sc_inst *inst, bool *handled)
{
   uint32_t op = inst->opcode;
   *handled = true;
   switch (op) {
   /* SPV_KHR_shader_ballot, SPV_KHR_subgroup_vote: no scope operand. */
   case SpvOpSubgroupBallotKHR: {
      const struct sc_val *p = sc_operand(x, inst->w[3], 1, SC_ANY);
      return p && set_ballot(x, inst, ballot_bits(x, p->c[0]));
   }
   case SpvOpSubgroupFirstInvocationKHR:
      return emit_broadcast(x, inst, inst->w[3], 0);
   case SpvOpSubgroupReadInvocationKHR:
      return emit_broadcast(x, inst, inst->w[3], inst->w[4]);
   case SpvOpSubgroupAllKHR:
   case SpvOpSubgroupAnyKHR:
      return emit_all_any(x, inst, inst->w[3], op == SpvOpSubgroupAllKHR);
   case SpvOpSubgroupAllEqualKHR:
      return emit_all_equal(x, inst, inst->w[3]);
   default:
      break;
   }
   if (op < SpvOpGroupNonUniformElect || op > SpvOpGroupNonUniformQuadSwap) {
      *handled = false;
      return true;
   }
   if (!check_scope(x, inst->w[3]))
      return false;
   switch (op) {
   case SpvOpGroupNonUniformElect:
      return set_bool(x, inst, LLVMBuildICmp(x->b, LLVMIntEQ, x->lane_ids,
                                             sc_splat(x, first_lane(x)), ""));
   case SpvOpGroupNonUniformAll:
   case SpvOpGroupNonUniformAny:
      return emit_all_any(x, inst, inst->w[4], op == SpvOpGroupNonUniformAll);
   case SpvOpGroupNonUniformAllEqual:
      return emit_all_equal(x, inst, inst->w[4]);
   case SpvOpGroupNonUniformBroadcast:
      return emit_broadcast(x, inst, inst->w[4], inst->w[5]);
   case SpvOpGroupNonUniformBroadcastFirst:
      return emit_broadcast(x, inst, inst->w[4], 0);
   case SpvOpGroupNonUniformBallot: {
      const struct sc_val *p = sc_operand(x, inst->w[4], 1, SC_ANY);
      return p && set_ballot(x, inst, ballot_bits(x, p->c[0]));
   }
   case SpvOpGroupNonUniformInverseBallot:
   case SpvOpGroupNonUniformBallotBitExtract:
   case SpvOpGroupNonUniformBallotBitCount:
   case SpvOpGroupNonUniformBallotFindLSB:
   case SpvOpGroupNonUniformBallotFindMSB:
      return emit_ballot_ops(x, inst);
   case SpvOpGroupNonUniformShuffle:
      return emit_shuffle(x, inst, SHUF_INDEX);
   case SpvOpGroupNonUniformShuffleXor:
      return emit_shuffle(x, inst, SHUF_XOR);
   case SpvOpGroupNonUniformShuffleUp:
      return emit_shuffle(x, inst, SHUF_UP);
   case SpvOpGroupNonUniformShuffleDown:
      return emit_shuffle(x, inst, SHUF_DOWN);
   case SpvOpGroupNonUniformQuadBroadcast:
      return emit_shuffle(x, inst, SHUF_QUAD_BCAST);
   case SpvOpGroupNonUniformQuadSwap:
      return emit_shuffle(x, inst, SHUF_QUAD_SWAP);
   default:
      return emit_arithmetic(x, inst);
   }
}
