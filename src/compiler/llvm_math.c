/* Vectorised 32-bit transcendentals in LLVM IR (GLSL.std.450 sin ... pow):
 * branch-free range reduction and polynomials that work on whole W-lane
 * vectors, instead of one libm call per lane.
 *
 * Accuracy (measured by tests/unit/test_compiler.c against libm in double)
 * is well inside Vulkan's "Precision and Operation of SPIR-V Instructions":
 * exp / exp2 within a few ULP (the spec allows 3 + 2|x|), log / log2 within
 * a few ULP (3 ULP, absolute 2^-21 in [0.5, 2]), sin / cos within a few ULP
 * of |x| on [-pi, pi] (absolute 2^-11), atan / atan2 within a few ULP (4096),
 * and the "inherited" ones (tan, asin, acos, the hyperbolics, pow) built so
 * that they are at least as accurate as the formulas the spec names.
 *
 * Polynomials are truncated Taylor series on ranges small enough that the
 * truncation error is far below half an ULP; Horner steps use fmuladd. */
#include "llvm_private.h"

#include <math.h>

#include <spirv/unified1/GLSL.std.450.h>

/* A tiny IR vocabulary over float (scalar or vector) values. */
struct m {
   struct sc_xlate *x;
   LLVMBuilderRef b;
   LLVMTypeRef ft;   /* float or <W x float> */
   LLVMTypeRef it;   /* i32 or <W x i32> */
   bool vec;
};

static LLVMValueRef
fc(struct m *m, double v)
{
   LLVMValueRef c = LLVMConstReal(m->x->t_f32, v);
   return m->vec ? sc_splat(m->x, c) : c;
}

static LLVMValueRef
ic(struct m *m, int32_t v)
{
   LLVMValueRef c = LLVMConstInt(m->x->t_i32, (uint64_t)(int64_t)v, true);
   return m->vec ? sc_splat(m->x, c) : c;
}

static LLVMValueRef
add(struct m *m, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildFAdd(m->b, a, b, "");
}

static LLVMValueRef
sub(struct m *m, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildFSub(m->b, a, b, "");
}

static LLVMValueRef
mul(struct m *m, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildFMul(m->b, a, b, "");
}

static LLVMValueRef
div_(struct m *m, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildFDiv(m->b, a, b, "");
}

static LLVMValueRef
intr(struct m *m, const char *name, LLVMValueRef *args, unsigned n)
{
   return sc_intrinsic(m->x, name, &m->ft, 1, args, n);
}

/* a * b + c, fused where the CPU can. */
static LLVMValueRef
madd(struct m *m, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c)
{
   LLVMValueRef args[3] = { a, b, c };
   return intr(m, "llvm.fmuladd", args, 3);
}

static LLVMValueRef
fabs_(struct m *m, LLVMValueRef a)
{
   return intr(m, "llvm.fabs", &a, 1);
}

static LLVMValueRef
rint_(struct m *m, LLVMValueRef a)
{
   return intr(m, "llvm.rint", &a, 1);
}

static LLVMValueRef
sqrt_(struct m *m, LLVMValueRef a)
{
   return intr(m, "llvm.sqrt", &a, 1);
}

static LLVMValueRef
fmin_(struct m *m, LLVMValueRef a, LLVMValueRef b)
{
   LLVMValueRef args[2] = { a, b };
   return intr(m, "llvm.minnum", args, 2);
}

static LLVMValueRef
fmax_(struct m *m, LLVMValueRef a, LLVMValueRef b)
{
   LLVMValueRef args[2] = { a, b };
   return intr(m, "llvm.maxnum", args, 2);
}

/* |mag| with the sign of sgn. */
static LLVMValueRef
copysign_(struct m *m, LLVMValueRef mag, LLVMValueRef sgn)
{
   LLVMValueRef args[2] = { mag, sgn };
   return intr(m, "llvm.copysign", args, 2);
}

static LLVMValueRef
cmp(struct m *m, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildFCmp(m->b, p, a, b, "");
}

static LLVMValueRef
sel(struct m *m, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b)
{
   return LLVMBuildSelect(m->b, c, a, b, "");
}

static LLVMValueRef
bits(struct m *m, LLVMValueRef f)
{
   return LLVMBuildBitCast(m->b, f, m->it, "");
}

static LLVMValueRef
from_bits(struct m *m, LLVMValueRef i)
{
   return LLVMBuildBitCast(m->b, i, m->ft, "");
}

/* c[0] + z * (c[1] + z * (... + z * c[n-1])) */
static LLVMValueRef
poly(struct m *m, LLVMValueRef z, const double *c, unsigned n)
{
   LLVMValueRef r = fc(m, c[n - 1]);
   for (unsigned i = n - 1; i-- > 0;)
      r = madd(m, r, z, fc(m, c[i]));
   return r;
}

/* 2^n for integer n in [-126, 127]. */
static LLVMValueRef
pow2i(struct m *m, LLVMValueRef n)
{
   LLVMValueRef e = LLVMBuildAdd(m->b, n, ic(m, 127), "");
   return from_bits(m, LLVMBuildShl(m->b, e, ic(m, 23), ""));
}

/* v * 2^n for integer n in [-252, 254]: two exact scalings by normal powers
 * of two, so only the last multiplication rounds (denormal results). */
static LLVMValueRef
scale(struct m *m, LLVMValueRef v, LLVMValueRef n)
{
   LLVMValueRef n1 = LLVMBuildAShr(m->b, n, ic(m, 1), "");
   LLVMValueRef n2 = LLVMBuildSub(m->b, n, n1, "");
   return mul(m, mul(m, v, pow2i(m, n1)), pow2i(m, n2));
}

/* ------------------------------------------------------------------------ */
/* exp family                                                                */
/* ------------------------------------------------------------------------ */

#define LN2_HI 0.693145751953125          /* 16 significant bits: n * LN2_HI is exact */
#define LN2_LO 1.428606765330187e-06
#define LOG2E 1.4426950408889634

/* e^r - 1 for |r| <= ln2 / 2 (Taylor to r^8: truncation below 1e-9). */
static LLVMValueRef
expm1_small(struct m *m, LLVMValueRef r)
{
   static const double c[] = { 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720,
                               1.0 / 5040, 1.0 / 40320 };
   LLVMValueRef r2 = mul(m, r, r);
   return madd(m, r2, poly(m, r, c, 7), r);
}

/* e^x = 2^n * (1 + p): n integer (as a float), |reduced x| <= ln2 / 2.
 * x is clamped first so n stays in [-150, 128]. */
static void
exp_parts(struct m *m, LLVMValueRef x, LLVMValueRef *n, LLVMValueRef *p)
{
   x = fmin_(m, fmax_(m, x, fc(m, -104.0)), fc(m, 89.0));
   LLVMValueRef q = rint_(m, mul(m, x, fc(m, LOG2E)));
   LLVMValueRef r = madd(m, LLVMBuildFNeg(m->b, q, ""), fc(m, LN2_HI), x);
   r = madd(m, LLVMBuildFNeg(m->b, q, ""), fc(m, LN2_LO), r);
   *n = q;
   *p = expm1_small(m, r);
}

static LLVMValueRef
keep_nan(struct m *m, LLVMValueRef x, LLVMValueRef r)
{
   return sel(m, cmp(m, LLVMRealUNO, x, x), x, r);
}

static LLVMValueRef
exp_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef n, p;
   exp_parts(m, x, &n, &p);
   LLVMValueRef r = scale(m, add(m, fc(m, 1.0), p), LLVMBuildFPToSI(m->b, n, m->it, ""));
   return keep_nan(m, x, r);
}

static LLVMValueRef
exp2_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef c = fmin_(m, fmax_(m, x, fc(m, -151.0)), fc(m, 129.0));
   LLVMValueRef n = rint_(m, c);
   LLVMValueRef f = sub(m, c, n);                       /* exact, |f| <= 1/2 */
   LLVMValueRef p = expm1_small(m, mul(m, f, fc(m, M_LN2)));
   LLVMValueRef r = scale(m, add(m, fc(m, 1.0), p), LLVMBuildFPToSI(m->b, n, m->it, ""));
   return keep_nan(m, x, r);
}

/* e^x - 1, accurate near 0 (used by the hyperbolics). Below -30 it is -1
 * to float precision. */
static LLVMValueRef
expm1_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef n, p;
   exp_parts(m, fmax_(m, x, fc(m, -30.0)), &n, &p);
   /* 2^n p + (2^n - 1): exact terms for small n, one rounding. */
   LLVMValueRef ni = LLVMBuildFPToSI(m->b, n, m->it, "");
   LLVMValueRef small = LLVMBuildICmp(m->b, LLVMIntSLE, ni, ic(m, 100), "");
   LLVMValueRef two_n = pow2i(m, sel(m, small, ni, ic(m, 100)));
   LLVMValueRef r = madd(m, p, two_n, sub(m, two_n, fc(m, 1.0)));
   /* n > 100 only for x > 69: 2^n (1 + p) overflows or is exact enough. */
   r = sel(m, small, r, scale(m, add(m, fc(m, 1.0), p), ni));
   return keep_nan(m, x, r);
}

/* ------------------------------------------------------------------------ */
/* log family                                                                */
/* ------------------------------------------------------------------------ */

/* x = 2^e * mm with mm in [sqrt(1/2), sqrt(2)); returns s = (mm - 1) / (mm + 1)
 * and e as a float. x must be positive and finite for a meaningful result. */
static void
log_parts(struct m *m, LLVMValueRef x, LLVMValueRef *e, LLVMValueRef *s)
{
   /* Denormals: scale by 2^23 first. */
   LLVMValueRef tiny = cmp(m, LLVMRealOLT, x, fc(m, 0x1p-126));
   LLVMValueRef xs = sel(m, tiny, mul(m, x, fc(m, 0x1p23)), x);
   LLVMValueRef bias = sel(m, tiny, ic(m, 127 + 23), ic(m, 127));
   LLVMValueRef ib = bits(m, xs);
   /* Subtracting the bits of sqrt(1/2) puts mm's split at the exponent. */
   LLVMValueRef t = LLVMBuildSub(m->b, ib, ic(m, 0x3f3504f3), "");
   LLVMValueRef ei = LLVMBuildAShr(m->b, t, ic(m, 23), "");
   LLVMValueRef mb = LLVMBuildAdd(m->b, LLVMBuildAnd(m->b, t, ic(m, 0x7fffff), ""),
                                  ic(m, 0x3f3504f3), "");
   LLVMValueRef mm = from_bits(m, mb);
   *e = LLVMBuildSIToFP(m->b, LLVMBuildSub(m->b, LLVMBuildAdd(m->b, ei, ic(m, 127), ""), bias, ""),
                        m->ft, "");
   *s = div_(m, sub(m, mm, fc(m, 1.0)), add(m, mm, fc(m, 1.0)));
}

/* log(mm) - 2s = 2s * z * (1/3 + z/5 + ...), z = s^2 <= 0.0295. */
static LLVMValueRef
log_tail(struct m *m, LLVMValueRef t, LLVMValueRef z)
{
   static const double c[] = { 1.0 / 3, 1.0 / 5, 1.0 / 7, 1.0 / 9, 1.0 / 11 };
   return mul(m, mul(m, t, z), poly(m, z, c, 5));
}

/* Special inputs: log(0) = -inf, log(negative) = NaN, log(inf) = inf. */
static LLVMValueRef
log_special(struct m *m, LLVMValueRef x, LLVMValueRef r)
{
   r = sel(m, cmp(m, LLVMRealOEQ, x, fc(m, 0.0)), fc(m, -INFINITY), r);
   r = sel(m, cmp(m, LLVMRealOEQ, x, fc(m, INFINITY)), x, r);
   r = sel(m, cmp(m, LLVMRealOLT, x, fc(m, 0.0)), fc(m, NAN), r);
   return keep_nan(m, x, r);
}

static LLVMValueRef
log_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef e, s;
   log_parts(m, x, &e, &s);
   LLVMValueRef t = add(m, s, s);
   LLVMValueRef lo = madd(m, e, fc(m, LN2_LO), log_tail(m, t, mul(m, s, s)));
   LLVMValueRef r = madd(m, e, fc(m, LN2_HI), add(m, t, lo));
   return log_special(m, x, r);
}

static LLVMValueRef
log2_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef e, s;
   log_parts(m, x, &e, &s);
   LLVMValueRef t = add(m, s, s);
   LLVMValueRef ln = add(m, t, log_tail(m, t, mul(m, s, s)));
   /* log2(e) in two parts keeps the product's error below an ULP. */
   LLVMValueRef hi = fc(m, 1.4426950216293335), lo = fc(m, 1.92596298909109e-08);
   LLVMValueRef l2 = madd(m, ln, hi, mul(m, ln, lo));
   return log_special(m, x, add(m, e, l2));
}

/* log(1 + u) for u > -1, accurate for small u. */
static LLVMValueRef
log1p_f(struct m *m, LLVMValueRef u)
{
   LLVMValueRef w = add(m, fc(m, 1.0), u);
   LLVMValueRef corr = div_(m, sub(m, u, sub(m, w, fc(m, 1.0))), w);
   corr = sel(m, cmp(m, LLVMRealOEQ, w, fc(m, INFINITY)), fc(m, 0.0), corr);
   return add(m, log_f(m, w), corr);
}

/* ------------------------------------------------------------------------ */
/* sin, cos, tan                                                             */
/* ------------------------------------------------------------------------ */

/* pi/2 in three parts (12, 12 and 24 significant bits). */
#define PIO2_1 1.5703125
#define PIO2_2 0.0004837512969970703
#define PIO2_3 7.549790126404332e-08

/* x = q * pi/2 + r, |r| <= pi/4 (for |x| up to about 6000 exactly, and
 * to much larger |x| with a fused multiply-add); q & 3 as an integer. */
static void
trig_reduce(struct m *m, LLVMValueRef x, LLVMValueRef *r, LLVMValueRef *quadrant)
{
   LLVMValueRef q = rint_(m, mul(m, x, fc(m, 2.0 / M_PI)));
   LLVMValueRef nq = LLVMBuildFNeg(m->b, q, "");
   LLVMValueRef t = madd(m, nq, fc(m, PIO2_1), x);
   t = madd(m, nq, fc(m, PIO2_2), t);
   *r = madd(m, nq, fc(m, PIO2_3), t);
   /* q may exceed the int range for huge x: the result is then only
    * bounded, which Vulkan allows outside [-pi, pi]. */
   LLVMValueRef qi = LLVMBuildFPToSI(m->b, fmax_(m, fmin_(m, q, fc(m, 1e9)), fc(m, -1e9)),
                                     m->it, "");
   *quadrant = LLVMBuildAnd(m->b, qi, ic(m, 3), "");
}

/* sin and cos of |r| <= pi/4: Taylor to r^11 / r^12 (error below 1e-9). */
static LLVMValueRef
sin_small(struct m *m, LLVMValueRef r, LLVMValueRef z)
{
   static const double c[] = { -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880,
                               -1.0 / 39916800 };
   return madd(m, mul(m, r, z), poly(m, z, c, 5), r);
}

static LLVMValueRef
cos_small(struct m *m, LLVMValueRef z)
{
   static const double c[] = { 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800,
                               1.0 / 479001600 };
   LLVMValueRef hz = mul(m, z, fc(m, 0.5));
   LLVMValueRef w = sub(m, fc(m, 1.0), hz);
   /* 1 - z/2 + z^2 * P(z), with the rounding error of 1 - z/2 added back. */
   LLVMValueRef err = sub(m, sub(m, fc(m, 1.0), w), hz);
   return add(m, w, madd(m, mul(m, z, z), poly(m, z, c, 5), err));
}

/* Non-finite x gives NaN; finite x at most 1 in magnitude. */
static LLVMValueRef
trig_finish(struct m *m, LLVMValueRef x, LLVMValueRef r)
{
   r = fmax_(m, fmin_(m, r, fc(m, 1.0)), fc(m, -1.0));
   LLVMValueRef finite = cmp(m, LLVMRealOLT, fabs_(m, x), fc(m, INFINITY));
   return sel(m, finite, r, fc(m, NAN));
}

static LLVMValueRef
sincos_f(struct m *m, LLVMValueRef x, bool want_cos)
{
   LLVMValueRef r, q;
   trig_reduce(m, x, &r, &q);
   LLVMValueRef z = mul(m, r, r);
   LLVMValueRef s = sin_small(m, r, z), c = cos_small(m, z);
   /* sin: s, c, -s, -c by quadrant; cos: c, -s, -c, s. */
   if (want_cos)
      q = LLVMBuildAnd(m->b, LLVMBuildAdd(m->b, q, ic(m, 1), ""), ic(m, 3), "");
   LLVMValueRef odd = LLVMBuildTrunc(m->b, q, m->vec ? sc_vec_type(m->x, m->x->t_i1) : m->x->t_i1, "");
   LLVMValueRef v = sel(m, odd, c, s);
   LLVMValueRef neg = LLVMBuildICmp(m->b, LLVMIntUGE, q, ic(m, 2), "");
   v = sel(m, neg, LLVMBuildFNeg(m->b, v, ""), v);
   return trig_finish(m, x, v);
}

static LLVMValueRef
tan_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef r, q;
   trig_reduce(m, x, &r, &q);
   LLVMValueRef z = mul(m, r, r);
   LLVMValueRef s = sin_small(m, r, z), c = cos_small(m, z);
   LLVMValueRef odd = LLVMBuildICmp(m->b, LLVMIntNE, LLVMBuildAnd(m->b, q, ic(m, 1), ""),
                                    ic(m, 0), "");
   LLVMValueRef v = sel(m, odd, LLVMBuildFNeg(m->b, div_(m, c, s), ""), div_(m, s, c));
   LLVMValueRef finite = cmp(m, LLVMRealOLT, fabs_(m, x), fc(m, INFINITY));
   return sel(m, finite, v, fc(m, NAN));
}

/* ------------------------------------------------------------------------ */
/* atan family                                                               */
/* ------------------------------------------------------------------------ */

#define TAN_PI_12 0.2679491924311227
#define SQRT3 1.7320508075688772

/* atan(u) for u in [0, 1] (NaN propagates). */
static LLVMValueRef
atan_unit(struct m *m, LLVMValueRef u)
{
   /* Above tan(pi/12): atan(u) = pi/6 + atan((u sqrt3 - 1) / (u + sqrt3)). */
   LLVMValueRef big = cmp(m, LLVMRealOGT, u, fc(m, TAN_PI_12));
   LLVMValueRef red = div_(m, madd(m, u, fc(m, SQRT3), fc(m, -1.0)), add(m, u, fc(m, SQRT3)));
   LLVMValueRef v = sel(m, big, red, u);
   LLVMValueRef z = mul(m, v, v);
   static const double c[] = { -1.0 / 3, 1.0 / 5, -1.0 / 7, 1.0 / 9, -1.0 / 11, 1.0 / 13 };
   LLVMValueRef a = madd(m, mul(m, v, z), poly(m, z, c, 6), v);
   return sel(m, big, add(m, fc(m, M_PI / 6), a), a);
}

static LLVMValueRef
atan_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef t = fabs_(m, x);
   LLVMValueRef inv = cmp(m, LLVMRealOGT, t, fc(m, 1.0));
   LLVMValueRef u = sel(m, inv, div_(m, fc(m, 1.0), t), t);
   LLVMValueRef a = atan_unit(m, u);
   a = sel(m, inv, sub(m, fc(m, M_PI / 2), a), a);
   return copysign_(m, a, x);
}

static LLVMValueRef
atan2_f(struct m *m, LLVMValueRef y, LLVMValueRef x)
{
   LLVMValueRef ay = fabs_(m, y), ax = fabs_(m, x);
   LLVMValueRef num = fmin_(m, ay, ax), den = fmax_(m, ay, ax);
   /* Both infinite: the diagonal; both zero: 0 (GLSL leaves it undefined). */
   LLVMValueRef u = div_(m, num, den);
   u = sel(m, cmp(m, LLVMRealOEQ, den, fc(m, 0.0)), fc(m, 0.0), u);
   u = sel(m, cmp(m, LLVMRealOEQ, num, fc(m, INFINITY)), fc(m, 1.0), u);
   LLVMValueRef a = atan_unit(m, u);
   a = sel(m, cmp(m, LLVMRealOGT, ay, ax), sub(m, fc(m, M_PI / 2), a), a);
   LLVMValueRef xneg = LLVMBuildICmp(m->b, LLVMIntSLT, bits(m, x), ic(m, 0), "");
   a = sel(m, xneg, sub(m, fc(m, M_PI), a), a);
   a = copysign_(m, a, y);
   LLVMValueRef nan = LLVMBuildOr(m->b, cmp(m, LLVMRealUNO, x, x), cmp(m, LLVMRealUNO, y, y), "");
   return sel(m, nan, fc(m, NAN), a);
}

/* asin(x) = atan2(x, sqrt(1 - x^2)), with 1 - x^2 as (1 - x)(1 + x). */
static LLVMValueRef
asin_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef c = sqrt_(m, mul(m, sub(m, fc(m, 1.0), x), add(m, fc(m, 1.0), x)));
   return atan2_f(m, x, c);
}

static LLVMValueRef
acos_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef s = sqrt_(m, mul(m, sub(m, fc(m, 1.0), x), add(m, fc(m, 1.0), x)));
   return atan2_f(m, s, x);
}

/* ------------------------------------------------------------------------ */
/* Hyperbolics                                                               */
/* ------------------------------------------------------------------------ */

static LLVMValueRef
sinh_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef a = fabs_(m, x);
   LLVMValueRef u = expm1_f(m, fmin_(m, a, fc(m, 20.0)));
   /* (e^a - e^-a) / 2 = (u + u / (u + 1)) / 2 with u = e^a - 1. */
   LLVMValueRef small = mul(m, add(m, u, div_(m, u, add(m, u, fc(m, 1.0)))), fc(m, 0.5));
   LLVMValueRef w = exp_f(m, mul(m, a, fc(m, 0.5)));
   LLVMValueRef large = mul(m, w, mul(m, w, fc(m, 0.5)));
   return copysign_(m, sel(m, cmp(m, LLVMRealOLT, a, fc(m, 20.0)), small, large), x);
}

static LLVMValueRef
cosh_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef a = fabs_(m, x);
   LLVMValueRef e = exp_f(m, fmin_(m, a, fc(m, 20.0)));
   LLVMValueRef small = mul(m, add(m, e, div_(m, fc(m, 1.0), e)), fc(m, 0.5));
   LLVMValueRef w = exp_f(m, mul(m, a, fc(m, 0.5)));
   LLVMValueRef large = mul(m, w, mul(m, w, fc(m, 0.5)));
   LLVMValueRef r = sel(m, cmp(m, LLVMRealOLT, a, fc(m, 20.0)), small, large);
   return keep_nan(m, x, r);
}

static LLVMValueRef
tanh_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef a = fabs_(m, x);
   /* tanh(a) = u / (u + 2), u = e^(2a) - 1; 1 to float precision past 9. */
   LLVMValueRef u = expm1_f(m, mul(m, fmin_(m, a, fc(m, 9.0)), fc(m, 2.0)));
   LLVMValueRef t = div_(m, u, add(m, u, fc(m, 2.0)));
   t = sel(m, cmp(m, LLVMRealOLT, a, fc(m, 9.0)), t, fc(m, 1.0));
   return keep_nan(m, x, copysign_(m, t, x));
}

static LLVMValueRef
asinh_f(struct m *m, LLVMValueRef x)
{
   LLVMValueRef a = fabs_(m, x);
   /* log(a + sqrt(a^2 + 1)) = log1p(a + a^2 / (1 + sqrt(1 + a^2))). */
   LLVMValueRef a2 = mul(m, a, a);
   LLVMValueRef small = log1p_f(m, add(m, a, div_(m, a2, add(m, fc(m, 1.0),
                                                           sqrt_(m, add(m, fc(m, 1.0), a2))))));
   LLVMValueRef large = add(m, log_f(m, a), fc(m, M_LN2));
   LLVMValueRef r = sel(m, cmp(m, LLVMRealOLT, a, fc(m, 0x1p12)), small, large);
   return keep_nan(m, x, copysign_(m, r, x));
}

static LLVMValueRef
acosh_f(struct m *m, LLVMValueRef x)
{
   /* log(x + sqrt(x^2 - 1)) = log1p((x - 1) + sqrt((x - 1)(x + 1))). */
   LLVMValueRef d = sub(m, x, fc(m, 1.0));
   LLVMValueRef small = log1p_f(m, add(m, d, sqrt_(m, mul(m, d, add(m, x, fc(m, 1.0))))));
   LLVMValueRef large = add(m, log_f(m, x), fc(m, M_LN2));
   LLVMValueRef r = sel(m, cmp(m, LLVMRealOLT, x, fc(m, 0x1p12)), small, large);
   r = sel(m, cmp(m, LLVMRealOLT, x, fc(m, 1.0)), fc(m, NAN), r);
   return keep_nan(m, x, r);
}

static LLVMValueRef
atanh_f(struct m *m, LLVMValueRef x)
{
   /* 0.5 * log((1 + a) / (1 - a)) = 0.5 * log1p(2a / (1 - a)). */
   LLVMValueRef a = fabs_(m, x);
   LLVMValueRef r = mul(m, log1p_f(m, div_(m, add(m, a, a), sub(m, fc(m, 1.0), a))), fc(m, 0.5));
   r = sel(m, cmp(m, LLVMRealOGT, a, fc(m, 1.0)), fc(m, NAN), r);
   return keep_nan(m, x, copysign_(m, r, x));
}

/* pow(x, y) = exp2(y * log2(x)); GLSL leaves x < 0, and x = 0 with y <= 0,
 * undefined. */
static LLVMValueRef
pow_f(struct m *m, LLVMValueRef x, LLVMValueRef y)
{
   return exp2_f(m, mul(m, y, log2_f(m, x)));
}

/* ------------------------------------------------------------------------ */

LLVMValueRef
sc_math_f32(struct sc_xlate *x, uint32_t op, LLVMValueRef a, LLVMValueRef b)
{
   LLVMTypeRef t = LLVMTypeOf(a);
   bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
   if ((vec ? LLVMGetElementType(t) : t) != x->t_f32)
      return NULL;
   struct m m = { x, x->b, t, vec ? sc_vec_type(x, x->t_i32) : x->t_i32, vec };
   switch (op) {
   case GLSLstd450Sin: return sincos_f(&m, a, false);
   case GLSLstd450Cos: return sincos_f(&m, a, true);
   case GLSLstd450Tan: return tan_f(&m, a);
   case GLSLstd450Asin: return asin_f(&m, a);
   case GLSLstd450Acos: return acos_f(&m, a);
   case GLSLstd450Atan: return atan_f(&m, a);
   case GLSLstd450Atan2: return atan2_f(&m, a, b);
   case GLSLstd450Sinh: return sinh_f(&m, a);
   case GLSLstd450Cosh: return cosh_f(&m, a);
   case GLSLstd450Tanh: return tanh_f(&m, a);
   case GLSLstd450Asinh: return asinh_f(&m, a);
   case GLSLstd450Acosh: return acosh_f(&m, a);
   case GLSLstd450Atanh: return atanh_f(&m, a);
   case GLSLstd450Exp: return exp_f(&m, a);
   case GLSLstd450Exp2: return exp2_f(&m, a);
   case GLSLstd450Log: return log_f(&m, a);
   case GLSLstd450Log2: return log2_f(&m, a);
   case GLSLstd450Pow: return pow_f(&m, a, b);
   default: return NULL;
   }
}
