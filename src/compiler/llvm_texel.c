/* Texel format conversion in IR: loads and stores of storage image and
 * texel buffer texels in the formats of sc_format.h, for one address or W
 * lanes. A format known when compiling is converted inline; a format known
 * only from the descriptor (SPIR-V Image Format Unknown) goes through one
 * function per module and kind that switches over the candidate formats. */
#include "llvm_private.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sc_format.h"

/* Scalar or W-lane values of one access. */
struct tx {
   struct sc_xlate *x;
   LLVMBuilderRef b;
   bool vec;
};

static LLVMTypeRef
ty(struct tx *t, LLVMTypeRef scalar)
{
   return t->vec ? sc_vec_type(t->x, scalar) : scalar;
}

static LLVMValueRef
ik(struct tx *t, LLVMTypeRef scalar, uint64_t v)
{
   LLVMValueRef c = LLVMConstInt(scalar, v, false);
   return t->vec ? sc_splat(t->x, c) : c;
}

static LLVMValueRef
i32k(struct tx *t, uint32_t v)
{
   return ik(t, t->x->t_i32, v);
}

static LLVMValueRef
fk(struct tx *t, double v)
{
   LLVMValueRef c = LLVMConstReal(t->x->t_f32, v);
   return t->vec ? sc_splat(t->x, c) : c;
}

static LLVMValueRef
f2(struct tx *t, const char *name, LLVMValueRef a, LLVMValueRef c)
{
   LLVMTypeRef ft = ty(t, t->x->t_f32);
   LLVMValueRef args[2] = { a, c };
   return sc_intrinsic(t->x, name, &ft, 1, args, 2);
}

static LLVMValueRef
as_float(struct tx *t, LLVMValueRef i)
{
   return LLVMBuildBitCast(t->b, i, ty(t, t->x->t_f32), "");
}

static LLVMValueRef
as_int(struct tx *t, LLVMValueRef f)
{
   return LLVMBuildBitCast(t->b, f, ty(t, t->x->t_i32), "");
}

/* ------------------------------------------------------------------------ */
/* Raw texel memory                                                          */
/* ------------------------------------------------------------------------ */

/* How a texel of f is accessed raw: `words` integers 8 bytes apart, word w
 * of bits[w] bits (it[w]), aligned to `align`. A 12-byte texel is a 64-bit
 * and a 32-bit word, so no access reaches past the texel. */
struct raw_access {
   unsigned bits[2], words, align;
   LLVMTypeRef it[2];
};

static struct raw_access
raw_access(struct tx *t, const struct sc_texel_format *f)
{
   struct raw_access r = {
      .bits = { f->size >= 8 ? 64 : f->size * 8, f->size > 8 ? (f->size - 8) * 8 : 0 },
      .words = f->size > 8 ? 2 : 1,
      .align = f->size < 4 ? f->size : 4,
   };
   for (unsigned w = 0; w < r.words; w++)
      r.it[w] = LLVMIntTypeInContext(t->x->ctx, r.bits[w]);
   return r;
}

/* The address of raw word w of the texel at addr. */
static LLVMValueRef
raw_word_addr(struct tx *t, LLVMValueRef addr, unsigned w)
{
   struct sc_xlate *x = t->x;
   if (!w)
      return addr;
   LLVMValueRef eight = t->vec ? sc_splat(x, LLVMConstInt(x->t_i64, 8, 0))
                               : LLVMConstInt(x->t_i64, 8, 0);
   return LLVMBuildGEP2(t->b, x->t_i8, addr, &eight, 1, "");
}

/* The texel's bits as up to two i64 words (zero for lanes not in mask). */
static void
load_raw(struct tx *t, const struct sc_texel_format *f, LLVMValueRef addr, LLVMValueRef mask,
         LLVMValueRef raw[2])
{
   struct sc_xlate *x = t->x;
   const struct raw_access ra = raw_access(t, f);
   const unsigned align = ra.align;
   for (unsigned w = 0; w < ra.words; w++) {
      const unsigned bits = ra.bits[w];
      LLVMTypeRef it = ra.it[w];
      LLVMValueRef a = raw_word_addr(t, addr, w);
      LLVMValueRef v;
      if (!t->vec) {
         a = LLVMBuildSelect(t->b, mask, a, x->zero_page, "");
         v = LLVMBuildLoad2(t->b, it, a, "");
         LLVMSetAlignment(v, align);
      } else {
         LLVMTypeRef vt = sc_vec_type(x, it);
         LLVMTypeRef ov[2] = { vt, sc_vec_type(x, x->t_ptr) };
         LLVMValueRef args[4] = { a, LLVMConstInt(x->t_i32, align, 0), mask, LLVMConstNull(vt) };
         v = sc_intrinsic(x, "llvm.masked.gather", ov, 2, args, 4);
      }
      raw[w] = bits == 64 ? v : LLVMBuildZExt(t->b, v, ty(t, x->t_i64), "");
   }
}

static void
store_raw(struct tx *t, const struct sc_texel_format *f, LLVMValueRef addr, LLVMValueRef mask,
          LLVMValueRef raw[2])
{
   struct sc_xlate *x = t->x;
   const struct raw_access ra = raw_access(t, f);
   const unsigned align = ra.align;
   LLVMBasicBlockRef done = NULL;
   if (!t->vec) {
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "texel_store");
      done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "texel_stored");
      LLVMBuildCondBr(t->b, mask, yes, done);
      LLVMPositionBuilderAtEnd(t->b, yes);
   }
   for (unsigned w = 0; w < ra.words; w++) {
      LLVMValueRef a = raw_word_addr(t, addr, w);
      LLVMValueRef v = ra.bits[w] == 64 ? raw[w] : LLVMBuildTrunc(t->b, raw[w], ty(t, ra.it[w]), "");
      if (!t->vec) {
         LLVMValueRef s = LLVMBuildStore(t->b, v, a);
         LLVMSetAlignment(s, align);
      } else {
         LLVMTypeRef ov[2] = { LLVMTypeOf(v), sc_vec_type(x, x->t_ptr) };
         LLVMValueRef args[4] = { v, a, LLVMConstInt(x->t_i32, align, 0), mask };
         sc_intrinsic(x, "llvm.masked.scatter", ov, 2, args, 4);
      }
   }
   if (done) {
      LLVMBuildBr(t->b, done);
      LLVMPositionBuilderAtEnd(t->b, done);
   }
}

/* ------------------------------------------------------------------------ */
/* Channels                                                                  */
/* ------------------------------------------------------------------------ */

static uint32_t
low_bits(unsigned n)
{
   return n >= 32 ? 0xffffffffu : (1u << n) - 1;
}

/* Unsigned 11- or 10-bit float (5-bit exponent, m-bit mantissa) to float. */
static LLVMValueRef
ufloat_decode(struct tx *t, LLVMValueRef v, unsigned m)
{
   LLVMBuilderRef b = t->b;
   LLVMValueRef e = LLVMBuildLShr(b, v, i32k(t, m), "");
   LLVMValueRef mant = LLVMBuildAnd(b, v, i32k(t, low_bits(m)), "");
   /* Normal: rebias the exponent, widen the mantissa. */
   LLVMValueRef normal = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAdd(b, e, i32k(t, 127 - 15), ""),
                                                    i32k(t, 23), ""),
                                     LLVMBuildShl(b, mant, i32k(t, 23 - m), ""), "");
   LLVMValueRef special = LLVMBuildOr(b, i32k(t, 0x7f800000),
                                      LLVMBuildShl(b, mant, i32k(t, 23 - m), ""), "");
   LLVMValueRef denorm = as_int(t, LLVMBuildFMul(b, LLVMBuildUIToFP(b, mant, ty(t, t->x->t_f32), ""),
                                                 fk(t, ldexp(1.0, -14 - (int)m)), ""));
   LLVMValueRef r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, i32k(t, 31), ""), special,
                                    normal, "");
   return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, i32k(t, 0), ""), denorm, r, "");
}

/* Float to unsigned 11- or 10-bit float, rounding to nearest even;
 * negative values and -inf give 0, NaN a NaN, overflow infinity. */
static LLVMValueRef
ufloat_encode(struct tx *t, LLVMValueRef fbits, unsigned m)
{
   LLVMBuilderRef b = t->b;
   LLVMValueRef f = as_float(t, fbits);
   unsigned drop = 23 - m;
   /* Normal range: round the float's bits at the new mantissa's last bit. */
   LLVMValueRef half = i32k(t, (1u << (drop - 1)) - 1);
   LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, fbits, i32k(t, drop), ""), i32k(t, 1), "");
   LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildAdd(b, fbits, half, ""), odd, "");
   r = LLVMBuildSub(b, LLVMBuildLShr(b, r, i32k(t, drop), ""), i32k(t, (127 - 15) << m), "");
   LLVMValueRef inf = i32k(t, 31u << m);
   r = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGE, r, inf, ""), inf, r, "");
   /* Below 2^-14: denormal (rounding up into the smallest normal works). */
   LLVMValueRef d = LLVMBuildFMul(b, f, fk(t, ldexp(1.0, 14 + (int)m)), "");
   LLVMTypeRef ft = ty(t, t->x->t_f32);
   d = sc_intrinsic(t->x, "llvm.rint", &ft, 1, &d, 1);
   LLVMValueRef den = LLVMBuildFPToUI(b, d, ty(t, t->x->t_i32), "");
   LLVMValueRef tiny = LLVMBuildFCmp(b, LLVMRealOLT, f, fk(t, ldexp(1.0, -14)), "");
   r = LLVMBuildSelect(b, tiny, den, r, "");
   /* Not above zero (or -0, negative, -inf): 0; NaN: NaN. */
   LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGT, f, fk(t, 0.0), "");
   r = LLVMBuildSelect(b, pos, r, i32k(t, 0), "");
   LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, f, f, "");
   return LLVMBuildSelect(b, nan, i32k(t, (31u << m) | (1u << (m - 1))), r, "");
}

/* Stored channel i of raw as a 32-bit component. */
static LLVMValueRef
decode(struct tx *t, const struct sc_texel_format *f, unsigned i, LLVMValueRef raw[2], int extend)
{
   LLVMBuilderRef b = t->b;
   struct sc_xlate *x = t->x;
   unsigned shift = f->shift[i], n = f->bits[i];
   LLVMValueRef w = raw[shift >= 64];
   shift %= 64;
   if (shift)
      w = LLVMBuildLShr(b, w, ik(t, x->t_i64, shift), "");
   LLVMValueRef v = LLVMBuildTrunc(b, w, ty(t, x->t_i32), "");
   if (n < 32)
      v = LLVMBuildAnd(b, v, i32k(t, low_bits(n)), "");
   LLVMValueRef sext = v;
   if (n < 32)
      sext = LLVMBuildAShr(b, LLVMBuildShl(b, v, i32k(t, 32 - n), ""), i32k(t, 32 - n), "");
   LLVMTypeRef ft = ty(t, x->t_f32);
   switch (f->kind) {
   case SC_TEXEL_UNORM:
      return as_int(t, LLVMBuildFDiv(b, LLVMBuildUIToFP(b, v, ft, ""), fk(t, low_bits(n)), ""));
   case SC_TEXEL_SNORM: {
      LLVMValueRef r = LLVMBuildFDiv(b, LLVMBuildSIToFP(b, sext, ft, ""),
                                     fk(t, low_bits(n - 1)), "");
      return as_int(t, f2(t, "llvm.maxnum", r, fk(t, -1.0)));
   }
   case SC_TEXEL_UINT:
      return extend == 1 ? sext : v;
   case SC_TEXEL_SINT:
      return extend == 2 ? v : sext;
   case SC_TEXEL_SFLOAT:
      if (n == 16) {
         LLVMValueRef h = LLVMBuildTrunc(b, v, ty(t, x->t_i16), "");
         h = LLVMBuildBitCast(b, h, ty(t, x->t_f16), "");
         return as_int(t, LLVMBuildFPExt(b, h, ft, ""));
      }
      return v;
   default:
      return ufloat_decode(t, v, n - 5);
   }
}

/* A 32-bit component as stored channel i's bits (in the low n bits). */
static LLVMValueRef
encode(struct tx *t, const struct sc_texel_format *f, unsigned i, LLVMValueRef c)
{
   LLVMBuilderRef b = t->b;
   struct sc_xlate *x = t->x;
   unsigned n = f->bits[i];
   LLVMTypeRef ft = ty(t, x->t_f32), it = ty(t, x->t_i32);
   LLVMValueRef v;
   switch (f->kind) {
   case SC_TEXEL_UNORM:
   case SC_TEXEL_SNORM: {
      bool sn = f->kind == SC_TEXEL_SNORM;
      /* Clamp (NaN to 0), scale, round to nearest. */
      LLVMValueRef fv = as_float(t, c);
      fv = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, fv, fv, ""), fk(t, 0.0), fv, "");
      fv = f2(t, "llvm.maxnum", fv, fk(t, sn ? -1.0 : 0.0));
      fv = f2(t, "llvm.minnum", fv, fk(t, 1.0));
      fv = LLVMBuildFMul(b, fv, fk(t, low_bits(sn ? n - 1 : n)), "");
      fv = sc_intrinsic(x, "llvm.rint", &ft, 1, &fv, 1);
      v = sn ? LLVMBuildFPToSI(b, fv, it, "") : LLVMBuildFPToUI(b, fv, it, "");
      break;
   }
   case SC_TEXEL_SFLOAT:
      if (n == 16) {
         LLVMValueRef h = LLVMBuildFPTrunc(b, as_float(t, c), ty(t, x->t_f16), "");
         v = LLVMBuildZExt(b, LLVMBuildBitCast(b, h, ty(t, x->t_i16), ""), it, "");
      } else {
         v = c;
      }
      break;
   case SC_TEXEL_UFLOAT:
      v = ufloat_encode(t, c, n - 5);
      break;
   default:   /* integers keep their low bits */
      v = c;
      break;
   }
   if (n < 32)
      v = LLVMBuildAnd(b, v, i32k(t, low_bits(n)), "");
   return v;
}

/* ------------------------------------------------------------------------ */
/* One known format                                                          */
/* ------------------------------------------------------------------------ */

static void
load_known(struct tx *t, const struct sc_texel_format *f, int extend, LLVMValueRef addr,
           LLVMValueRef mask, LLVMValueRef out[4])
{
   LLVMValueRef raw[2];
   load_raw(t, f, addr, mask, raw);
   /* Missing components: 0, and 1 (or 1.0) for alpha. */
   out[0] = out[1] = out[2] = i32k(t, 0);
   out[3] = i32k(t, sc_texel_is_integer(f) ? 1 : 0x3f800000);
   for (unsigned i = 0; i < f->channels; i++)
      out[f->comp[i]] = decode(t, f, i, raw, extend);
}

static void
store_known(struct tx *t, const struct sc_texel_format *f, LLVMValueRef addr, LLVMValueRef mask,
            LLVMValueRef in[4])
{
   struct sc_xlate *x = t->x;
   LLVMValueRef raw[2] = { ik(t, x->t_i64, 0), ik(t, x->t_i64, 0) };
   for (unsigned i = 0; i < f->channels; i++) {
      LLVMValueRef v = LLVMBuildZExt(t->b, encode(t, f, i, in[f->comp[i]]), ty(t, x->t_i64), "");
      unsigned shift = f->shift[i];
      if (shift % 64)
         v = LLVMBuildShl(t->b, v, ik(t, x->t_i64, shift % 64), "");
      raw[shift >= 64] = LLVMBuildOr(t->b, raw[shift >= 64], v, "");
   }
   store_raw(t, f, addr, mask, raw);
}

/* ------------------------------------------------------------------------ */
/* Formats known at run time                                                 */
/* ------------------------------------------------------------------------ */

/* Builds the body of a run-time format function: a switch over the
 * candidate formats of the class. x->b and x->fn point into it. */
static void
build_switch(struct sc_xlate *x, LLVMValueRef fn, bool vec, bool integer, int extend, bool store)
{
   struct tx t = { x, x->b, vec };
   LLVMValueRef addr = LLVMGetParam(fn, 0), mask = LLVMGetParam(fn, 1), fmt = LLVMGetParam(fn, 2);
   LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(x->ctx, fn, "entry");
   LLVMBasicBlockRef merge = LLVMAppendBasicBlockInContext(x->ctx, fn, "merge");
   LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(x->ctx, fn, "unknown");
   uint32_t count;
   const struct sc_texel_format *table = sc_texel_formats(&count);
   LLVMPositionBuilderAtEnd(x->b, entry);
   LLVMValueRef sw = LLVMBuildSwitch(x->b, fmt, none, count);
   LLVMValueRef phis[4] = { NULL };
   if (!store) {
      LLVMPositionBuilderAtEnd(x->b, merge);
      for (int c = 0; c < 4; c++)
         phis[c] = LLVMBuildPhi(x->b, ty(&t, x->t_i32), "");
   }
   for (uint32_t k = 0; k < count; k++) {
      const struct sc_texel_format *f = &table[k];
      if (sc_texel_is_integer(f) != integer)
         continue;
      LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(x->ctx, fn, "format");
      LLVMAddCase(sw, LLVMConstInt(x->t_i32, f->format, 0), bb);
      LLVMPositionBuilderAtEnd(x->b, bb);
      if (store) {
         LLVMValueRef in[4];
         for (int c = 0; c < 4; c++)
            in[c] = LLVMGetParam(fn, 3 + c);
         store_known(&t, f, addr, mask, in);
      } else {
         LLVMValueRef out[4];
         load_known(&t, f, extend, addr, mask, out);
         LLVMBasicBlockRef from = LLVMGetInsertBlock(x->b);
         for (int c = 0; c < 4; c++)
            LLVMAddIncoming(phis[c], &out[c], &from, 1);
      }
      LLVMBuildBr(x->b, merge);
   }
   /* A format we do not convert: reads give (0, 0, 0, 1), writes nothing. */
   LLVMPositionBuilderAtEnd(x->b, none);
   if (!store) {
      LLVMValueRef out[4] = { i32k(&t, 0), i32k(&t, 0), i32k(&t, 0),
                              i32k(&t, integer ? 1 : 0x3f800000) };
      for (int c = 0; c < 4; c++)
         LLVMAddIncoming(phis[c], &out[c], &none, 1);
   }
   LLVMBuildBr(x->b, merge);
   LLVMPositionBuilderAtEnd(x->b, merge);
   if (store) {
      LLVMBuildRetVoid(x->b);
   } else {
      LLVMBuildAggregateRet(x->b, phis, 4);
   }
}

/* The module's function for one (lanes, class, extension, direction). */
static LLVMValueRef
runtime_fn(struct sc_xlate *x, bool vec, bool integer, int extend, bool store, LLVMTypeRef *fty)
{
   char name[64];
   snprintf(name, sizeof(name), "sc_texel_%s_%s_%s_%d", store ? "store" : "load",
            vec ? "lanes" : "one", integer ? "int" : "float", store ? 0 : extend);
   struct tx t = { x, x->b, vec };
   LLVMTypeRef it = ty(&t, x->t_i32);
   LLVMTypeRef params[7] = { vec ? sc_vec_type(x, x->t_ptr) : x->t_ptr, ty(&t, x->t_i1), x->t_i32,
                             it, it, it, it };
   LLVMTypeRef comps[4] = { it, it, it, it };
   LLVMTypeRef ret = store ? x->t_void : LLVMStructTypeInContext(x->ctx, comps, 4, false);
   *fty = LLVMFunctionType(ret, params, store ? 7 : 3, false);
   LLVMValueRef fn = LLVMGetNamedFunction(x->mod, name);
   if (fn)
      return fn;
   fn = LLVMAddFunction(x->mod, name, *fty);
   LLVMSetLinkage(fn, LLVMInternalLinkage);
   sc_set_function_attrs(x, fn);
   /* One copy per module, however many accesses call it. */
   const char *noinline = "noinline";
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(x->ctx, LLVMGetEnumAttributeKindForName(
                                                      noinline, strlen(noinline)), 0));
   LLVMBuilderRef saved_b = x->b;
   LLVMValueRef saved_fn = x->fn;
   x->b = LLVMCreateBuilderInContext(x->ctx);
   x->fn = fn;
   build_switch(x, fn, vec, integer, extend, store);
   LLVMDisposeBuilder(x->b);
   x->b = saved_b;
   x->fn = saved_fn;
   return fn;
}

static void
call_load(struct sc_xlate *x, bool vec, bool integer, int extend, LLVMValueRef addr,
          LLVMValueRef mask, LLVMValueRef fmt, LLVMValueRef out[4])
{
   LLVMTypeRef fty;
   LLVMValueRef fn = runtime_fn(x, vec, integer, extend, false, &fty);
   LLVMValueRef args[3] = { addr, mask, fmt };
   LLVMValueRef r = LLVMBuildCall2(x->b, fty, fn, args, 3, "");
   for (unsigned c = 0; c < 4; c++)
      out[c] = LLVMBuildExtractValue(x->b, r, c, "");
}

static void
call_store(struct sc_xlate *x, bool vec, bool integer, LLVMValueRef addr, LLVMValueRef mask,
           LLVMValueRef fmt, LLVMValueRef in[4])
{
   LLVMTypeRef fty;
   LLVMValueRef fn = runtime_fn(x, vec, integer, 0, true, &fty);
   LLVMValueRef args[7] = { addr, mask, fmt, in[0], in[1], in[2], in[3] };
   LLVMBuildCall2(x->b, fty, fn, args, 7, "");
}

/* Lanes whose formats differ (descriptors indexed per lane): one call per
 * distinct format, each for the lanes that have it. */
static void
per_format(struct sc_xlate *x, bool integer, int extend, bool store, LLVMValueRef addr,
           LLVMValueRef mask, LLVMValueRef fmt, LLVMValueRef io[4])
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef it = sc_vec_type(x, x->t_i32);
   LLVMValueRef acc[4] = { NULL };
   if (!store) {
      for (int c = 0; c < 4; c++) {
         acc[c] = sc_entry_alloca(x, it, 4);
         LLVMBuildStore(b, LLVMConstNull(it), acc[c]);
      }
   }
   struct sc_lane_loop l;
   sc_lane_loop_begin(x, &l, mask);
   LLVMValueRef f;
   LLVMValueRef same = sc_lane_loop_same(x, &l, fmt, &f);
   if (store) {
      call_store(x, true, integer, addr, same, f, io);
   } else {
      LLVMValueRef r[4];
      call_load(x, true, integer, extend, addr, same, f, r);
      for (int c = 0; c < 4; c++) {
         LLVMValueRef old = LLVMBuildLoad2(b, it, acc[c], "");
         LLVMBuildStore(b, LLVMBuildSelect(b, same, r[c], old, ""), acc[c]);
      }
   }
   sc_lane_loop_end(x, &l, same);
   if (!store)
      for (int c = 0; c < 4; c++)
         io[c] = LLVMBuildLoad2(b, it, acc[c], "");
}

/* ------------------------------------------------------------------------ */

void
sc_texel_load(struct sc_xlate *x, const struct sc_texel_format *f, LLVMValueRef fmt,
              bool integer, int extend, LLVMValueRef addr, LLVMValueRef mask, LLVMValueRef out[4])
{
   bool vec = LLVMGetTypeKind(LLVMTypeOf(addr)) == LLVMVectorTypeKind;
   struct tx t = { x, x->b, vec };
   if (f)
      load_known(&t, f, extend, addr, mask, out);
   else if (LLVMGetTypeKind(LLVMTypeOf(fmt)) == LLVMVectorTypeKind)
      per_format(x, integer, extend, false, addr, mask, fmt, out);
   else
      call_load(x, vec, integer, extend, addr, mask, fmt, out);
}

void
sc_texel_store(struct sc_xlate *x, const struct sc_texel_format *f, LLVMValueRef fmt,
               bool integer, LLVMValueRef addr, LLVMValueRef mask, LLVMValueRef in[4])
{
   bool vec = LLVMGetTypeKind(LLVMTypeOf(addr)) == LLVMVectorTypeKind;
   struct tx t = { x, x->b, vec };
   if (f)
      store_known(&t, f, addr, mask, in);
   else if (LLVMGetTypeKind(LLVMTypeOf(fmt)) == LLVMVectorTypeKind)
      per_format(x, integer, 0, true, addr, mask, fmt, in);
   else
      call_store(x, vec, integer, addr, mask, fmt, in);
}
