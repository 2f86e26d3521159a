/* GLSL.std.450 float decomposition (Modf, Frexp, Ldexp and their Struct
 * forms), matrix functions (Determinant, MatrixInverse) and double packing,
 * for 16-, 32- and 64-bit floats, uniform or per lane. */
#include "llvm_private.h"

#include <math.h>

#include <spirv/unified1/GLSL.std.450.h>

/* IEEE layout of a float type. */
struct fmt {
   unsigned width, mbits, bias;
   LLVMTypeRef ft, it;      /* float and same-width integer, scalar or vector */
   bool vec;
};

static struct fmt
fmt_of(struct sc_xlate *x, LLVMValueRef v)
{
   struct fmt f;
   LLVMTypeRef t = LLVMTypeOf(v);
   f.vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
   LLVMTypeRef st = f.vec ? LLVMGetElementType(t) : t;
   switch (LLVMGetTypeKind(st)) {
   case LLVMHalfTypeKind: f.width = 16, f.mbits = 10, f.bias = 15; break;
   case LLVMDoubleTypeKind: f.width = 64, f.mbits = 52, f.bias = 1023; break;
   default: f.width = 32, f.mbits = 23, f.bias = 127; break;
   }
   f.ft = t;
   LLVMTypeRef it = LLVMIntTypeInContext(x->ctx, f.width);
   f.it = f.vec ? sc_vec_type(x, it) : it;
   return f;
}

static LLVMValueRef
fk(struct sc_xlate *x, const struct fmt *f, double v)
{
   LLVMValueRef c = LLVMConstReal(f->vec ? LLVMGetElementType(f->ft) : f->ft, v);
   return f->vec ? sc_splat(x, c) : c;
}

/* An integer constant of type t (scalar or vector). */
static LLVMValueRef
ik(struct sc_xlate *x, LLVMTypeRef t, int64_t v)
{
   bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
   LLVMValueRef c = LLVMConstInt(vec ? LLVMGetElementType(t) : t, (uint64_t)v, true);
   return vec ? sc_splat(x, c) : c;
}

static LLVMValueRef
fintr(struct sc_xlate *x, const char *name, LLVMValueRef a)
{
   LLVMTypeRef t = LLVMTypeOf(a);
   return sc_intrinsic(x, name, &t, 1, &a, 1);
}

static LLVMTypeRef
i32_type(struct sc_xlate *x, const struct fmt *f)
{
   return f->vec ? sc_vec_type(x, x->t_i32) : x->t_i32;
}

/* An integer of the float's width as i32 (its values fit). */
static LLVMValueRef
to_i32(struct sc_xlate *x, const struct fmt *f, LLVMValueRef v)
{
   LLVMTypeRef t32 = i32_type(x, f);
   if (f->width == 32)
      return v;
   return f->width > 32 ? LLVMBuildTrunc(x->b, v, t32, "") : LLVMBuildZExt(x->b, v, t32, "");
}

/* Converts an integer (any width, scalar or vector) to i32 of the same shape,
 * saturating wide values. */
static LLVMValueRef
to_i32_sat(struct sc_xlate *x, LLVMValueRef v, LLVMTypeRef t32)
{
   LLVMTypeRef t = LLVMTypeOf(v);
   bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
   unsigned w = LLVMGetIntTypeWidth(vec ? LLVMGetElementType(t) : t);
   if (w == 32)
      return v;
   if (w < 32)
      return LLVMBuildSExt(x->b, v, t32, "");
   LLVMValueRef lo = ik(x, t, -(1 << 24)), hi = ik(x, t, 1 << 24);
   v = LLVMBuildSelect(x->b, LLVMBuildICmp(x->b, LLVMIntSLT, v, lo, ""), lo, v, "");
   v = LLVMBuildSelect(x->b, LLVMBuildICmp(x->b, LLVMIntSGT, v, hi, ""), hi, v, "");
   return LLVMBuildTrunc(x->b, v, t32, "");
}

/* v = mant * 2^e with |mant| in [0.5, 1); zero, infinity and NaN give
 * mant = v, e = 0. e is i32 (scalar or vector). */
static void
frexp_comp(struct sc_xlate *x, LLVMValueRef v, LLVMValueRef *mant, LLVMValueRef *e)
{
   LLVMBuilderRef b = x->b;
   struct fmt f = fmt_of(x, v);
   LLVMTypeRef t32 = i32_type(x, &f);
   unsigned emask = (1u << (f.width - f.mbits - 1)) - 1;
   LLVMValueRef av = fintr(x, "llvm.fabs", v);
   /* Denormals: scaled into the normal range first. */
   LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, av, fk(x, &f, ldexp(1.0, 1 - (int)f.bias)), "");
   LLVMValueRef vs = LLVMBuildSelect(b, tiny, LLVMBuildFMul(b, v, fk(x, &f, ldexp(1.0, f.mbits + 1)), ""),
                                     v, "");
   LLVMValueRef bits = LLVMBuildBitCast(b, vs, f.it, "");
   LLVMValueRef ef = LLVMBuildAnd(b, LLVMBuildLShr(b, bits, ik(x, f.it, f.mbits), ""),
                                  ik(x, f.it, emask), "");
   ef = to_i32(x, &f, ef);
   LLVMValueRef ev = LLVMBuildSub(b, ef, ik(x, t32, (int64_t)f.bias - 1), "");
   ev = LLVMBuildSub(b, ev, LLVMBuildSelect(b, tiny, ik(x, t32, f.mbits + 1), ik(x, t32, 0), ""), "");
   LLVMValueRef keep = LLVMBuildAnd(b, bits, ik(x, f.it, ~((int64_t)emask << f.mbits)), "");
   LLVMValueRef mb = LLVMBuildOr(b, keep, ik(x, f.it, (int64_t)(f.bias - 1) << f.mbits), "");
   LLVMValueRef m = LLVMBuildBitCast(b, mb, f.ft, "");
   /* Zero (tiny too, but not really), infinity and NaN pass through. */
   LLVMValueRef special = LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, v, fk(x, &f, 0.0), ""),
                                      LLVMBuildFCmp(b, LLVMRealUEQ, av, fk(x, &f, INFINITY), ""), "");
   special = LLVMBuildOr(b, special, LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""), "");
   *mant = LLVMBuildSelect(b, special, v, m, "");
   *e = LLVMBuildSelect(b, special, ik(x, t32, 0), ev, "");
}

/* 2^a for an i32 a in the normal exponent range of f. */
static LLVMValueRef
pow2_of(struct sc_xlate *x, const struct fmt *f, LLVMValueRef a)
{
   LLVMBuilderRef b = x->b;
   LLVMValueRef w = f->width == 32 ? a : f->width > 32 ? LLVMBuildSExt(b, a, f->it, "")
                                                        : LLVMBuildTrunc(b, a, f->it, "");
   w = LLVMBuildShl(b, LLVMBuildAdd(b, w, ik(x, f->it, f->bias), ""), ik(x, f->it, f->mbits), "");
   return LLVMBuildBitCast(b, w, f->ft, "");
}

/* v * 2^e, rounded once (also into the denormal range), overflowing to
 * infinity. e: any integer type of v's shape. */
static LLVMValueRef
ldexp_comp(struct sc_xlate *x, LLVMValueRef v, LLVMValueRef e)
{
   LLVMBuilderRef b = x->b;
   struct fmt f = fmt_of(x, v);
   LLVMTypeRef t32 = i32_type(x, &f);
   int emin = 1 - (int)f.bias, emax = (int)f.bias, k = (int)f.mbits + 3;
   int elo = emin - (int)f.mbits - 2;
   LLVMValueRef m, ex;
   frexp_comp(x, v, &m, &ex);
   LLVMValueRef E = LLVMBuildAdd(b, ex, to_i32_sat(x, e, t32), "");
   LLVMValueRef over = LLVMBuildICmp(b, LLVMIntSGT, E, ik(x, t32, emax + 1), "");
   LLVMValueRef Ec = LLVMBuildSelect(b, over, ik(x, t32, emax + 1), E, "");
   Ec = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, Ec, ik(x, t32, elo), ""), ik(x, t32, elo),
                        Ec, "");
   /* Normal results: (2m) * 2^(E-1), exact. Denormal ones: m * 2^(E+k) is
    * normal and exact, then one rounding multiplying by 2^-k. */
   LLVMValueRef normal = LLVMBuildICmp(b, LLVMIntSGE, Ec, ik(x, t32, emin + 1), "");
   LLVMValueRef m2 = LLVMBuildSelect(b, normal, LLVMBuildFAdd(b, m, m, ""), m, "");
   LLVMValueRef a = LLVMBuildSelect(b, normal, LLVMBuildSub(b, Ec, ik(x, t32, 1), ""),
                                    LLVMBuildAdd(b, Ec, ik(x, t32, k), ""), "");
   LLVMValueRef bexp = LLVMBuildSelect(b, normal, ik(x, t32, 0), ik(x, t32, -k), "");
   LLVMValueRef r = LLVMBuildFMul(b, LLVMBuildFMul(b, m2, pow2_of(x, &f, a), ""),
                                  pow2_of(x, &f, bexp), "");
   LLVMValueRef nonzero = LLVMBuildFCmp(b, LLVMRealONE, v, fk(x, &f, 0.0), "");
   LLVMTypeRef ft = f.ft;
   LLVMValueRef args[2] = { fk(x, &f, INFINITY), v };
   LLVMValueRef inf = sc_intrinsic(x, "llvm.copysign", &ft, 1, args, 2);
   return LLVMBuildSelect(b, LLVMBuildAnd(b, over, nonzero, ""), inf, r, "");
}

/* Modf: whole = trunc(v), fraction = v - whole, both with v's sign. */
static void
modf_comp(struct sc_xlate *x, LLVMValueRef v, LLVMValueRef *frac, LLVMValueRef *whole)
{
   LLVMBuilderRef b = x->b;
   struct fmt f = fmt_of(x, v);
   *whole = fintr(x, "llvm.trunc", v);
   LLVMValueRef d = LLVMBuildFSub(b, v, *whole, "");
   LLVMValueRef inf = LLVMBuildFCmp(b, LLVMRealOEQ, fintr(x, "llvm.fabs", v), fk(x, &f, INFINITY), "");
   d = LLVMBuildSelect(b, inf, fk(x, &f, 0.0), d, "");
   LLVMTypeRef ft = f.ft;
   LLVMValueRef args[2] = { d, v };
   *frac = sc_intrinsic(x, "llvm.copysign", &ft, 1, args, 2);
}

static LLVMValueRef
convert_int(struct sc_xlate *x, LLVMValueRef v, uint32_t type_id, bool uniform)
{
   LLVMTypeRef t = sc_llvm_scalar(x, type_id);
   if (!uniform)
      t = sc_vec_type(x, t);
   unsigned w = LLVMGetIntTypeWidth(uniform ? t : LLVMGetElementType(t));
   if (w == 32)
      return v;
   return w > 32 ? LLVMBuildSExt(x->b, v, t, "") : LLVMBuildTrunc(x->b, v, t, "");
}

static bool
decompose(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op)
{
   const struct sc_val *a = sc_operand(x, inst->w[5], 1, SC_ANY);
   if (!a)
      return false;
   uint32_t n = a->n;
   bool with_ptr = op == GLSLstd450Modf || op == GLSLstd450Frexp;
   const struct sc_ptr *p = NULL;
   if (with_ptr) {
      if (inst->nwords < 7)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s without its pointer", sc_glsl450_name(op));
      if (!(p = sc_get_ptr(x, inst->w[6])))
         return false;
   }
   /* The second part's scalar type: Modf's is the float, Frexp's the
    * integer of the pointer or of the struct's second member. */
   uint32_t second_type = 0;
   if (op == GLSLstd450Frexp)
      second_type = sc_scalar_at(x, p->type, 0);
   else if (op == GLSLstd450FrexpStruct)
      second_type = sc_scalar_at(x, inst->type_id, n);
   struct sc_val first = sc_new_val(x, n, a->uniform), second = sc_new_val(x, n, a->uniform);
   if (!first.c || !second.c)
      return false;
   for (uint32_t i = 0; i < n; i++) {
      if (op == GLSLstd450Modf || op == GLSLstd450ModfStruct) {
         modf_comp(x, a->c[i], &first.c[i], &second.c[i]);
      } else {
         frexp_comp(x, a->c[i], &first.c[i], &second.c[i]);
         second.c[i] = convert_int(x, second.c[i], second_type, a->uniform);
      }
   }
   if (with_ptr) {
      if (!sc_store_value(x, p, &second))
         return false;
      return sc_set(x, inst->result_id, first);
   }
   struct sc_val r = sc_new_val(x, 2 * n, a->uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < n; i++) {
      r.c[i] = first.c[i];
      r.c[n + i] = second.c[i];
   }
   return sc_set(x, inst->result_id, r);
}

static bool
emit_ldexp(struct sc_xlate *x, const struct sc_inst *inst)
{
   if (inst->nwords < 7)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "Ldexp without its exponent");
   const struct sc_val *a = sc_operand(x, inst->w[5], 1, SC_ANY);
   const struct sc_val *e = a ? sc_operand_like(x, inst->w[6], a->n) : NULL;
   if (!e)
      return false;
   bool uniform = a->uniform && e->uniform;
   struct sc_val r = sc_new_val(x, a->n, uniform);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < a->n; i++)
      r.c[i] = ldexp_comp(x, sc_comp(x, a, i, !uniform),
                          sc_comp(x, e, e->n == 1 ? 0 : i, !uniform));
   return sc_set(x, inst->result_id, r);
}

/* ------------------------------------------------------------------------ */
/* Determinant and inverse by cofactors                                      */
/* ------------------------------------------------------------------------ */

/* Determinant of the k x k submatrix of a (n x n, a[row * n + col]) on rows
 * rows[] and columns cols[], by expansion along its first row. */
static LLVMValueRef
minor_det(struct sc_xlate *x, LLVMValueRef *a, uint32_t n, const uint32_t *rows,
          const uint32_t *cols, uint32_t k)
{
   LLVMBuilderRef b = x->b;
   if (k == 1)
      return a[rows[0] * n + cols[0]];
   if (k == 2)
      return LLVMBuildFSub(b, LLVMBuildFMul(b, a[rows[0] * n + cols[0]], a[rows[1] * n + cols[1]], ""),
                           LLVMBuildFMul(b, a[rows[0] * n + cols[1]], a[rows[1] * n + cols[0]], ""),
                           "");
   LLVMValueRef sum = NULL;
   for (uint32_t j = 0; j < k; j++) {
      uint32_t sub_cols[3], m = 0;
      for (uint32_t c = 0; c < k; c++)
         if (c != j)
            sub_cols[m++] = cols[c];
      LLVMValueRef t = LLVMBuildFMul(b, a[rows[0] * n + cols[j]],
                                     minor_det(x, a, n, rows + 1, sub_cols, k - 1), "");
      sum = !sum ? t : (j & 1) ? LLVMBuildFSub(b, sum, t, "") : LLVMBuildFAdd(b, sum, t, "");
   }
   return sum;
}

static bool
matrix_fn(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op)
{
   const struct sc_val *m = sc_get(x, inst->w[5]);
   if (!m)
      return false;
   const struct sc_inst *def = sc_module_def(x->m, inst->w[5]);
   const struct sc_type *t = def ? sc_module_type(x->m, def->type_id) : NULL;
   uint32_t n = t ? t->count : 0;
   if (!t || t->kind != SC_T_MATRIX || n < 2 || n > 4 || m->n != n * n)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s of a non-square matrix", sc_glsl450_name(op));
   /* Row r, column c of the matrix is component c * n + r (columns first). */
   LLVMValueRef a[16];
   for (uint32_t r = 0; r < n; r++)
      for (uint32_t c = 0; c < n; c++)
         a[r * n + c] = m->c[c * n + r];
   uint32_t all[4] = { 0, 1, 2, 3 };
   LLVMValueRef det = minor_det(x, a, n, all, all, n);
   if (op == GLSLstd450Determinant) {
      struct sc_val r = sc_new_val(x, 1, m->uniform);
      if (!r.c)
         return false;
      r.c[0] = det;
      return sc_set(x, inst->result_id, r);
   }
   /* inverse[r][c] = cofactor(c, r) / det */
   struct sc_val r = sc_new_val(x, n * n, m->uniform);
   if (!r.c)
      return false;
   LLVMValueRef one = LLVMConstReal(LLVMGetTypeKind(LLVMTypeOf(det)) == LLVMVectorTypeKind
                                       ? LLVMGetElementType(LLVMTypeOf(det)) : LLVMTypeOf(det), 1.0);
   if (!m->uniform)
      one = sc_splat(x, one);
   LLVMValueRef inv_det = LLVMBuildFDiv(x->b, one, det, "");
   for (uint32_t i = 0; i < n; i++) {
      for (uint32_t j = 0; j < n; j++) {
         uint32_t rows[3], cols[3], nr = 0, nc = 0;
         for (uint32_t k = 0; k < n; k++) {
            if (k != i)
               rows[nr++] = k;
            if (k != j)
               cols[nc++] = k;
         }
         LLVMValueRef cof = minor_det(x, a, n, rows, cols, n - 1);
         if ((i + j) & 1)
            cof = LLVMBuildFNeg(x->b, cof, "");
         /* cofactor(i, j) goes to inverse row j, column i: component i * n + j. */
         r.c[i * n + j] = LLVMBuildFMul(x->b, cof, inv_det, "");
      }
   }
   return sc_set(x, inst->result_id, r);
}

/* ------------------------------------------------------------------------ */

static bool
double_packing(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op)
{
   /* PackDouble2x32: two 32-bit integers; UnpackDouble2x32: one double. */
   uint32_t an = op == GLSLstd450PackDouble2x32 ? 2 : 1;
   const struct sc_val *a = sc_operand(x, inst->w[5], an, an);
   if (!a)
      return false;
   LLVMBuilderRef b = x->b;
   bool vec = !a->uniform;
   LLVMTypeRef i64 = vec ? sc_vec_type(x, x->t_i64) : x->t_i64;
   LLVMTypeRef i32 = vec ? sc_vec_type(x, x->t_i32) : x->t_i32;
   if (op == GLSLstd450PackDouble2x32) {
      struct sc_val r = sc_new_val(x, 1, a->uniform);
      if (!r.c)
         return false;
      LLVMValueRef v = LLVMBuildOr(b, LLVMBuildZExt(b, a->c[0], i64, ""),
                                   LLVMBuildShl(b, LLVMBuildZExt(b, a->c[1], i64, ""),
                                                ik(x, i64, 32), ""), "");
      r.c[0] = LLVMBuildBitCast(b, v, vec ? sc_vec_type(x, x->t_f64) : x->t_f64, "");
      return sc_set(x, inst->result_id, r);
   }
   struct sc_val r = sc_new_val(x, 2, a->uniform);
   if (!r.c)
      return false;
   LLVMValueRef v = LLVMBuildBitCast(b, a->c[0], i64, "");
   r.c[0] = LLVMBuildTrunc(b, v, i32, "");
   r.c[1] = LLVMBuildTrunc(b, LLVMBuildLShr(b, v, ik(x, i64, 32), ""), i32, "");
   return sc_set(x, inst->result_id, r);
}

bool
sc_emit_glsl_float(struct sc_xlate *x, const struct sc_inst *inst, uint32_t op)
{
   switch (op) {
   case GLSLstd450Modf:
   case GLSLstd450ModfStruct:
   case GLSLstd450Frexp:
   case GLSLstd450FrexpStruct:
      return decompose(x, inst, op);
   case GLSLstd450Ldexp:
      return emit_ldexp(x, inst);
   case GLSLstd450Determinant:
   case GLSLstd450MatrixInverse:
      return matrix_fn(x, inst, op);
   case GLSLstd450PackDouble2x32:
   case GLSLstd450UnpackDouble2x32:
      return double_packing(x, inst, op);
   default:
      return sc_fail(x, SC_ERROR_INTERNAL, "GLSL.std.450 float op %u", op);
   }
}
