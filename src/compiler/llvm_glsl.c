/* GLSL.std.450 extended instructions for the SPMD translator. */
#include "llvm_private.h"

#include <string.h>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>

static LLVMValueRef
fconst(struct sc_xlate *x, LLVMValueRef like, double v)
{
   LLVMValueRef c = LLVMConstReal(sc_scalar_of(like), v);
   return sc_is_vec(like) ? sc_splat(x, c) : c;
}

static LLVMValueRef
iconst(struct sc_xlate *x, LLVMValueRef like, uint64_t v)
{
   LLVMValueRef c = LLVMConstInt(sc_scalar_of(like), v, false);
   return sc_is_vec(like) ? sc_splat(x, c) : c;
}

static LLVMValueRef
intr1(struct sc_xlate *x, const char *name, LLVMValueRef a)
{
   LLVMTypeRef t = LLVMTypeOf(a);
   return sc_intrinsic(x, name, &t, 1, &a, 1);
}

static LLVMValueRef
intr2(struct sc_xlate *x, const char *name, LLVMValueRef a, LLVMValueRef c)
{
   LLVMTypeRef t = LLVMTypeOf(a);
   LLVMValueRef args[2] = { a, c };
   return sc_intrinsic(x, name, &t, 1, args, 2);
}

/* Transcendentals: 32-bit in IR (llvm_math.c), 16-bit through 32-bit, 64-bit
 * (which GLSL.std.450 does not allow for them) through libm. */
static LLVMValueRef
transcendental(struct sc_xlate *x, uint32_t op, const char *f64, LLVMValueRef *c, unsigned n)
{
   LLVMTypeRef t = LLVMTypeOf(c[0]);
   LLVMTypeKind k = LLVMGetTypeKind(sc_scalar_of(c[0]));
   if (k == LLVMDoubleTypeKind)
      return sc_libm(x, f64, c, n, t);
   if (k == LLVMHalfTypeKind) {
      LLVMTypeRef ft = sc_is_vec(c[0]) ? sc_vec_type(x, x->t_f32) : x->t_f32;
      LLVMValueRef a = LLVMBuildFPExt(x->b, c[0], ft, "");
      LLVMValueRef b = n > 1 ? LLVMBuildFPExt(x->b, c[1], ft, "") : NULL;
      return LLVMBuildFPTrunc(x->b, sc_math_f32(x, op, a, b), t, "");
   }
   return sc_math_f32(x, op, c[0], n > 1 ? c[1] : NULL);
}

static LLVMValueRef
fclamp(struct sc_xlate *x, LLVMValueRef v, LLVMValueRef lo, LLVMValueRef hi)
{
   return intr2(x, "llvm.minnum", intr2(x, "llvm.maxnum", v, lo), hi);
}

/* Component-wise instructions: operands all of the result's shape (or
 * scalars for per-call parameters); c[k] is operand k's component i. */
static LLVMValueRef
componentwise(struct sc_xlate *x, uint32_t op, LLVMValueRef *c, unsigned nops)
{
   LLVMBuilderRef b = x->b;
   LLVMValueRef a = c[0];
   switch (op) {
   case GLSLstd450Round: return intr1(x, "llvm.round", a);
   case GLSLstd450RoundEven: return intr1(x, "llvm.roundeven", a);
   case GLSLstd450Trunc: return intr1(x, "llvm.trunc", a);
   case GLSLstd450FAbs: return intr1(x, "llvm.fabs", a);
   case GLSLstd450SAbs: {
      LLVMTypeRef t = LLVMTypeOf(a);
      LLVMValueRef args[2] = { a, LLVMConstInt(x->t_i1, 0, false) };
      return sc_intrinsic(x, "llvm.abs", &t, 1, args, 2);
   }
   case GLSLstd450FSign: {
      LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, a, fconst(x, a, 0.0), "");
      LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, a, fconst(x, a, 0.0), "");
      return LLVMBuildSelect(b, pos, fconst(x, a, 1.0),
                             LLVMBuildSelect(b, neg, fconst(x, a, -1.0), a, ""), "");
   }
   case GLSLstd450SSign:
      return intr2(x, "llvm.smax", intr2(x, "llvm.smin", a, iconst(x, a, 1)), iconst(x, a, ~0ull));
   case GLSLstd450Floor: return intr1(x, "llvm.floor", a);
   case GLSLstd450Ceil: return intr1(x, "llvm.ceil", a);
   case GLSLstd450Fract: return LLVMBuildFSub(b, a, intr1(x, "llvm.floor", a), "");
   case GLSLstd450Radians: return LLVMBuildFMul(b, a, fconst(x, a, 0.017453292519943295), "");
   case GLSLstd450Degrees: return LLVMBuildFMul(b, a, fconst(x, a, 57.29577951308232), "");
   case GLSLstd450Sin: return transcendental(x, op, "sin", c, 1);
   case GLSLstd450Cos: return transcendental(x, op, "cos", c, 1);
   case GLSLstd450Tan: return transcendental(x, op, "tan", c, 1);
   case GLSLstd450Asin: return transcendental(x, op, "asin", c, 1);
   case GLSLstd450Acos: return transcendental(x, op, "acos", c, 1);
   case GLSLstd450Atan: return transcendental(x, op, "atan", c, 1);
   case GLSLstd450Sinh: return transcendental(x, op, "sinh", c, 1);
   case GLSLstd450Cosh: return transcendental(x, op, "cosh", c, 1);
   case GLSLstd450Tanh: return transcendental(x, op, "tanh", c, 1);
   case GLSLstd450Asinh: return transcendental(x, op, "asinh", c, 1);
   case GLSLstd450Acosh: return transcendental(x, op, "acosh", c, 1);
   case GLSLstd450Atanh: return transcendental(x, op, "atanh", c, 1);
   case GLSLstd450Atan2: return transcendental(x, op, "atan2", c, 2);
   case GLSLstd450Pow: return transcendental(x, op, "pow", c, 2);
   case GLSLstd450Exp: return transcendental(x, op, "exp", c, 1);
   case GLSLstd450Log: return transcendental(x, op, "log", c, 1);
   case GLSLstd450Exp2: return transcendental(x, op, "exp2", c, 1);
   case GLSLstd450Log2: return transcendental(x, op, "log2", c, 1);
   case GLSLstd450Sqrt: return intr1(x, "llvm.sqrt", a);
   case GLSLstd450InverseSqrt:
      return LLVMBuildFDiv(b, fconst(x, a, 1.0), intr1(x, "llvm.sqrt", a), "");
   case GLSLstd450FMin:
   case GLSLstd450NMin: return intr2(x, "llvm.minnum", a, c[1]);
   case GLSLstd450FMax:
   case GLSLstd450NMax: return intr2(x, "llvm.maxnum", a, c[1]);
   case GLSLstd450UMin: return intr2(x, "llvm.umin", a, c[1]);
   case GLSLstd450SMin: return intr2(x, "llvm.smin", a, c[1]);
   case GLSLstd450UMax: return intr2(x, "llvm.umax", a, c[1]);
   case GLSLstd450SMax: return intr2(x, "llvm.smax", a, c[1]);
   case GLSLstd450FClamp:
   case GLSLstd450NClamp: return fclamp(x, a, c[1], c[2]);
   case GLSLstd450UClamp: return intr2(x, "llvm.umin", intr2(x, "llvm.umax", a, c[1]), c[2]);
   case GLSLstd450SClamp: return intr2(x, "llvm.smin", intr2(x, "llvm.smax", a, c[1]), c[2]);
   case GLSLstd450FMix:
      return LLVMBuildFAdd(b, a, LLVMBuildFMul(b, LLVMBuildFSub(b, c[1], a, ""), c[2], ""), "");
   case GLSLstd450Step: {
      LLVMValueRef lt = LLVMBuildFCmp(b, LLVMRealOLT, c[1], a, "");
      return LLVMBuildSelect(b, lt, fconst(x, a, 0.0), fconst(x, a, 1.0), "");
   }
   case GLSLstd450SmoothStep: {
      LLVMValueRef t = LLVMBuildFDiv(b, LLVMBuildFSub(b, c[2], a, ""),
                                     LLVMBuildFSub(b, c[1], a, ""), "");
      t = fclamp(x, t, fconst(x, t, 0.0), fconst(x, t, 1.0));
      LLVMValueRef k = LLVMBuildFSub(b, fconst(x, t, 3.0),
                                     LLVMBuildFMul(b, fconst(x, t, 2.0), t, ""), "");
      return LLVMBuildFMul(b, LLVMBuildFMul(b, t, t, ""), k, "");
   }
   case GLSLstd450Fma: {
      /* Vulkan: precision inherited from OpFMul then OpFAdd, so fuse only
       * where the CPU has a fused multiply-add. */
      LLVMTypeRef t = LLVMTypeOf(a);
      LLVMValueRef args[3] = { a, c[1], c[2] };
      return sc_intrinsic(x, "llvm.fmuladd", &t, 1, args, 3);
   }
   case GLSLstd450FindILsb: {
      LLVMTypeRef t = LLVMTypeOf(a);
      LLVMValueRef args[2] = { a, LLVMConstInt(x->t_i1, 0, false) };
      LLVMValueRef tz = sc_intrinsic(x, "llvm.cttz", &t, 1, args, 2);
      LLVMValueRef zero = LLVMBuildICmp(b, LLVMIntEQ, a, iconst(x, a, 0), "");
      return LLVMBuildSelect(b, zero, iconst(x, a, ~0ull), tz, "");
   }
   case GLSLstd450FindSMsb:
   case GLSLstd450FindUMsb: {
      LLVMTypeRef t = LLVMTypeOf(a);
      unsigned w = LLVMGetIntTypeWidth(sc_scalar_of(a));
      LLVMValueRef v = a;
      if (op == GLSLstd450FindSMsb) {
         LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, a, iconst(x, a, 0), "");
         v = LLVMBuildSelect(b, neg, LLVMBuildNot(b, a, ""), a, "");
      }
      LLVMValueRef args[2] = { v, LLVMConstInt(x->t_i1, 0, false) };
      LLVMValueRef lz = sc_intrinsic(x, "llvm.ctlz", &t, 1, args, 2);
      /* w - 1 - lz; v == 0 gives lz == w, so -1. */
      return LLVMBuildSub(b, iconst(x, a, w - 1), lz, "");
   }
   default:
      return NULL;
   }
}

/* Geometric instructions on whole vectors. */
static LLVMValueRef
dot(struct sc_xlate *x, LLVMValueRef *a, LLVMValueRef *c, uint32_t n)
{
   LLVMValueRef s = LLVMBuildFMul(x->b, a[0], c[0], "");
   for (uint32_t i = 1; i < n; i++)
      s = LLVMBuildFAdd(x->b, s, LLVMBuildFMul(x->b, a[i], c[i], ""), "");
   return s;
}

static bool
geometric(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op,
          const struct sc_val **ops, unsigned nops)
{
   LLVMBuilderRef b = x->b;
   unsigned need = op == GLSLstd450Length || op == GLSLstd450Normalize ? 1
                   : op == GLSLstd450FaceForward || op == GLSLstd450Refract ? 3 : 2;
   if (nops != need)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s with %u operands", sc_glsl450_name(op), nops);
   uint32_t n = ops[0]->n;
   if (n > 4)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "vector of more than 4 components");
   /* Every operand has the first's n components but Refract's eta, one. */
   for (unsigned k = 1; k < nops; k++) {
      uint32_t kn = op == GLSLstd450Refract && k == 2 ? 1 : n;
      if (!sc_operand(x, inst->w[5 + k], kn, kn))
         return false;
   }
   uint32_t rn = sc_ncomp(x, inst->type_id);
   uint32_t want = op == GLSLstd450Length || op == GLSLstd450Distance ? 1 : n;
   if (rn != want)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s result of %u components, expected %u",
                     sc_glsl450_name(op), rn, want);
   bool uniform = true;
   for (unsigned k = 0; k < nops; k++)
      uniform &= ops[k]->uniform;
   LLVMValueRef c[4][4];
   for (unsigned k = 0; k < nops; k++)
      for (uint32_t i = 0; i < ops[k]->n; i++)
         c[k][i] = sc_comp(x, ops[k], i, !uniform);
   struct sc_val r = sc_new_val(x, rn, uniform);
   if (!r.c)
      return false;
   switch (op) {
   case GLSLstd450Length:
      r.c[0] = n == 1 ? intr1(x, "llvm.fabs", c[0][0])
                      : intr1(x, "llvm.sqrt", dot(x, c[0], c[0], n));
      break;
   case GLSLstd450Distance: {
      LLVMValueRef d[4] = { NULL };
      for (uint32_t i = 0; i < n; i++)
         d[i] = LLVMBuildFSub(b, c[0][i], c[1][i], "");
      r.c[0] = n == 1 ? intr1(x, "llvm.fabs", d[0]) : intr1(x, "llvm.sqrt", dot(x, d, d, n));
      break;
   }
   case GLSLstd450Cross:
      if (n != 3)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "Cross of a non-3-vector");
      for (uint32_t i = 0; i < 3; i++) {
         uint32_t j = (i + 1) % 3, k = (i + 2) % 3;
         r.c[i] = LLVMBuildFSub(b, LLVMBuildFMul(b, c[0][j], c[1][k], ""),
                                LLVMBuildFMul(b, c[0][k], c[1][j], ""), "");
      }
      break;
   case GLSLstd450Normalize: {
      if (n == 1) {
         r.c[0] = LLVMBuildFDiv(b, c[0][0], intr1(x, "llvm.fabs", c[0][0]), "");
         break;
      }
      /* x * (1 / length(x)): one division for the vector, where a division
       * a component took one each. Up to an ulp from x / length(x) (the
       * reciprocal's rounding), inside the 2.5 ulp of the division the
       * spec's precision for Normalize inherits; a zero, infinite or NaN
       * length gives NaN, infinity or zero as x / length(x) does. */
      LLVMValueRef len = intr1(x, "llvm.sqrt", dot(x, c[0], c[0], n));
      LLVMValueRef inv = LLVMBuildFDiv(b, fconst(x, len, 1.0), len, "");
      for (uint32_t i = 0; i < n; i++)
         r.c[i] = LLVMBuildFMul(b, c[0][i], inv, "");
      break;
   }
   case GLSLstd450FaceForward: {
      /* N if dot(Nref, I) < 0 else -N. */
      LLVMValueRef d = dot(x, c[2], c[1], n);
      LLVMValueRef lt = LLVMBuildFCmp(b, LLVMRealOLT, d, fconst(x, d, 0.0), "");
      for (uint32_t i = 0; i < n; i++)
         r.c[i] = LLVMBuildSelect(b, lt, c[0][i], LLVMBuildFNeg(b, c[0][i], ""), "");
      break;
   }
   case GLSLstd450Reflect: {
      /* I - 2 * dot(N, I) * N */
      LLVMValueRef d = dot(x, c[1], c[0], n);
      LLVMValueRef d2 = LLVMBuildFMul(b, fconst(x, d, 2.0), d, "");
      for (uint32_t i = 0; i < n; i++)
         r.c[i] = LLVMBuildFSub(b, c[0][i], LLVMBuildFMul(b, d2, c[1][i], ""), "");
      break;
   }
   case GLSLstd450Refract: {
      /* k = 1 - eta^2 (1 - dot(N,I)^2); k < 0 ? 0 : eta I - (eta dot(N,I) + sqrt(k)) N */
      LLVMValueRef eta = c[2][0];
      LLVMValueRef d = dot(x, c[1], c[0], n);
      if (LLVMTypeOf(eta) != LLVMTypeOf(d))
         eta = LLVMGetTypeKind(sc_scalar_of(eta)) == LLVMGetTypeKind(sc_scalar_of(d))
                  ? eta : LLVMBuildFPCast(b, eta, LLVMTypeOf(d), "");
      LLVMValueRef one = fconst(x, d, 1.0);
      LLVMValueRef k = LLVMBuildFSub(b, one, LLVMBuildFMul(b, LLVMBuildFMul(b, eta, eta, ""),
                                                           LLVMBuildFSub(b, one, LLVMBuildFMul(b, d, d, ""), ""), ""), "");
      LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, k, fconst(x, k, 0.0), "");
      LLVMValueRef s = LLVMBuildFAdd(b, LLVMBuildFMul(b, eta, d, ""), intr1(x, "llvm.sqrt", k), "");
      for (uint32_t i = 0; i < n; i++) {
         LLVMValueRef v = LLVMBuildFSub(b, LLVMBuildFMul(b, eta, c[0][i], ""),
                                        LLVMBuildFMul(b, s, c[1][i], ""), "");
         r.c[i] = LLVMBuildSelect(b, neg, fconst(x, v, 0.0), v, "");
      }
      break;
   }
   default:
      return sc_fail(x, SC_ERROR_INTERNAL, "geometric op");
   }
   return sc_set(x, inst->result_id, r);
}

/* Pack / unpack between float vectors and 32-bit integers. */
static bool
packing(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op, const struct sc_val *a)
{
   LLVMBuilderRef b = x->b;
   bool vec = !a->uniform;
   LLVMTypeRef i32 = vec ? sc_vec_type(x, x->t_i32) : x->t_i32;
   LLVMTypeRef f32 = vec ? sc_vec_type(x, x->t_f32) : x->t_f32;
   uint32_t rn = sc_ncomp(x, inst->type_id);
   /* Operand and result sizes: 2 or 4 floats, one 32-bit integer. */
   bool pack = op == GLSLstd450PackHalf2x16 || op == GLSLstd450PackUnorm4x8 ||
               op == GLSLstd450PackSnorm4x8 || op == GLSLstd450PackUnorm2x16 ||
               op == GLSLstd450PackSnorm2x16;
   uint32_t floats = op == GLSLstd450PackUnorm4x8 || op == GLSLstd450PackSnorm4x8 ||
                     op == GLSLstd450UnpackUnorm4x8 || op == GLSLstd450UnpackSnorm4x8 ? 4 : 2;
   if (!sc_operand(x, inst->w[5], pack ? floats : 1, pack ? floats : 1))
      return false;
   if (rn != (pack ? 1 : floats))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s result of %u components",
                     sc_glsl450_name(op), rn);
   struct sc_val r = sc_new_val(x, rn, a->uniform);
   if (!r.c)
      return false;
   switch (op) {
   case GLSLstd450PackHalf2x16: {
      LLVMTypeRef h = vec ? sc_vec_type(x, x->t_f16) : x->t_f16;
      LLVMTypeRef i16 = vec ? sc_vec_type(x, x->t_i16) : x->t_i16;
      LLVMValueRef lo = LLVMBuildZExt(b, LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, a->c[0], h, ""), i16, ""), i32, "");
      LLVMValueRef hi = LLVMBuildZExt(b, LLVMBuildBitCast(b, LLVMBuildFPTrunc(b, a->c[1], h, ""), i16, ""), i32, "");
      r.c[0] = LLVMBuildOr(b, lo, LLVMBuildShl(b, hi, iconst(x, hi, 16), ""), "");
      break;
   }
   case GLSLstd450UnpackHalf2x16: {
      LLVMTypeRef h = vec ? sc_vec_type(x, x->t_f16) : x->t_f16;
      LLVMTypeRef i16 = vec ? sc_vec_type(x, x->t_i16) : x->t_i16;
      for (int k = 0; k < 2; k++) {
         LLVMValueRef s = LLVMBuildLShr(b, a->c[0], iconst(x, a->c[0], 16 * k), "");
         LLVMValueRef hv = LLVMBuildBitCast(b, LLVMBuildTrunc(b, s, i16, ""), h, "");
         r.c[k] = LLVMBuildFPExt(b, hv, f32, "");
      }
      break;
   }
   case GLSLstd450PackUnorm4x8:
   case GLSLstd450PackSnorm4x8:
   case GLSLstd450PackUnorm2x16:
   case GLSLstd450PackSnorm2x16: {
      bool snorm = op == GLSLstd450PackSnorm4x8 || op == GLSLstd450PackSnorm2x16;
      uint32_t bits = a->n == 4 ? 8 : 16;
      double scale = snorm ? (1u << (bits - 1)) - 1 : (1u << bits) - 1;
      LLVMValueRef acc = LLVMConstNull(i32);
      for (uint32_t k = 0; k < a->n; k++) {
         LLVMValueRef v = fclamp(x, a->c[k], fconst(x, a->c[k], snorm ? -1.0 : 0.0),
                                 fconst(x, a->c[k], 1.0));
         v = intr1(x, "llvm.roundeven", LLVMBuildFMul(b, v, fconst(x, v, scale), ""));
         LLVMValueRef iv = LLVMBuildFPToSI(b, v, i32, "");
         iv = LLVMBuildAnd(b, iv, iconst(x, iv, (1u << bits) - 1), "");
         acc = LLVMBuildOr(b, acc, LLVMBuildShl(b, iv, iconst(x, iv, k * bits), ""), "");
      }
      r.c[0] = acc;
      break;
   }
   case GLSLstd450UnpackUnorm4x8:
   case GLSLstd450UnpackSnorm4x8:
   case GLSLstd450UnpackUnorm2x16:
   case GLSLstd450UnpackSnorm2x16: {
      bool snorm = op == GLSLstd450UnpackSnorm4x8 || op == GLSLstd450UnpackSnorm2x16;
      uint32_t bits = rn == 4 ? 8 : 16;
      double scale = snorm ? (1u << (bits - 1)) - 1 : (1u << bits) - 1;
      for (uint32_t k = 0; k < rn; k++) {
         LLVMValueRef v = a->c[0];
         if (snorm) {
            v = LLVMBuildShl(b, v, iconst(x, v, 32 - bits * (k + 1)), "");
            v = LLVMBuildAShr(b, v, iconst(x, v, 32 - bits), "");
            v = LLVMBuildSIToFP(b, v, f32, "");
         } else {
            v = LLVMBuildLShr(b, v, iconst(x, v, bits * k), "");
            v = LLVMBuildAnd(b, v, iconst(x, v, (1u << bits) - 1), "");
            v = LLVMBuildUIToFP(b, v, f32, "");
         }
         v = LLVMBuildFDiv(b, v, fconst(x, v, scale), "");
         r.c[k] = snorm ? fclamp(x, v, fconst(x, v, -1.0), fconst(x, v, 1.0)) : v;
      }
      break;
   }
   default:
      return sc_fail(x, SC_ERROR_INTERNAL, "packing op");
   }
   return sc_set(x, inst->result_id, r);
}

bool
sc_emit_glsl(struct sc_xlate *x, const struct sc_inst *inst)
{
   uint32_t op = inst->w[4];
   unsigned nops = inst->nwords - 5;
   const struct sc_val *ops[4] = { NULL, NULL, NULL, NULL };
   if (nops > 4)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "GLSL.std.450 with %u operands", nops);

   switch (op) {
   case GLSLstd450Modf:
   case GLSLstd450ModfStruct:
   case GLSLstd450Frexp:
   case GLSLstd450FrexpStruct:
   case GLSLstd450Ldexp:
   case GLSLstd450Determinant:
   case GLSLstd450MatrixInverse:
   case GLSLstd450PackDouble2x32:
   case GLSLstd450UnpackDouble2x32:
      if (nops < 1)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "GLSL.std.450 without operands");
      return sc_emit_glsl_float(x, inst, op);
   case GLSLstd450IMix:
   case GLSLstd450InterpolateAtCentroid:
   case GLSLstd450InterpolateAtSample:
   case GLSLstd450InterpolateAtOffset:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported GLSL.std.450 instruction %s",
                     sc_glsl450_name(op));
   case GLSLstd450Length:
   case GLSLstd450Distance:
   case GLSLstd450Cross:
   case GLSLstd450Normalize:
   case GLSLstd450FaceForward:
   case GLSLstd450Reflect:
   case GLSLstd450Refract:
   case GLSLstd450PackHalf2x16:
   case GLSLstd450UnpackHalf2x16:
   case GLSLstd450PackUnorm4x8:
   case GLSLstd450PackSnorm4x8:
   case GLSLstd450PackUnorm2x16:
   case GLSLstd450PackSnorm2x16:
   case GLSLstd450UnpackUnorm4x8:
   case GLSLstd450UnpackSnorm4x8:
   case GLSLstd450UnpackUnorm2x16:
   case GLSLstd450UnpackSnorm2x16:
      if (!nops)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "GLSL.std.450 without operands");
      for (unsigned k = 0; k < nops; k++)
         if (!(ops[k] = sc_operand(x, inst->w[5 + k], 1, SC_ANY)))
            return false;
      if (op >= GLSLstd450PackSnorm4x8 && op <= GLSLstd450UnpackUnorm4x8)
         return packing(x, inst, op, ops[0]);
      return geometric(x, inst, op, ops, nops);
   default:
      break;
   }

   if (!nops)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "GLSL.std.450 without operands");
   uint32_t n = sc_ncomp(x, inst->type_id);
   bool uniform = true;
   for (unsigned k = 0; k < nops; k++) {
      if (!(ops[k] = sc_operand_like(x, inst->w[5 + k], n)))
         return false;
      uniform &= ops[k]->uniform;
   }
   struct sc_val r = sc_new_val(x, n, uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < n; i++) {
      LLVMValueRef c[4];
      for (unsigned k = 0; k < nops; k++)
         c[k] = sc_comp(x, ops[k], ops[k]->n == 1 ? 0 : i, !uniform);
      r.c[i] = componentwise(x, op, c, nops);
      if (!r.c[i])
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported GLSL.std.450 instruction %s",
                        sc_glsl450_name(op));
   }
   return sc_set(x, inst->result_id, r);
}
