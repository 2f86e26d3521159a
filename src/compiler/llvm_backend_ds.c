/*
 * llvm_backend_ds: the fragment back end's depth/stencil routines
 * (shader_abi.h shale_fb_ds_fn, src/rasterizer/sr_raster.h "The fragment
 * back end"): LLVM IR built from a struct shale_fb_ds_key, formats,
 * compare ops and stencil ops constants: a loop over the W lanes (skipping
 * those without coverage), each lane's samples one after the other as the
 * C reference (sr_fragment_depth_stencil) goes: depth
 * bounds, stencil test (fail op written), depth test and write, stencil
 * pass / depth-fail op. Same arithmetic (z in double rounded to float,
 * clamped; UNORM depth rounded as su_pack_depth; compares on the stored
 * keys), so results are bit-identical (tests/unit/test_fragment_backend.c).
 * Workload: once per key per compiler (sc_compile_fragment_ds caches).
 */
#include <stdio.h>

#include "llvm_backend.h"

/* A depth/stencil format's layout: texel size, depth bits (0: none) at
 * byte 0, stencil byte (or -1). */
struct ds_format {
   uint32_t size, depth_bits;
   int32_t stencil_byte;
};

static bool ds_format(uint32_t format, struct ds_format *d)
{
   switch (format) {
   case VK_FORMAT_D16_UNORM: *d = (struct ds_format){2, 16, -1}; return true;
   case VK_FORMAT_X8_D24_UNORM_PACK32: *d = (struct ds_format){4, 24, -1}; return true;
   case VK_FORMAT_D32_SFLOAT: *d = (struct ds_format){4, 32, -1}; return true;
   case VK_FORMAT_S8_UINT: *d = (struct ds_format){1, 0, 0}; return true;
   case VK_FORMAT_D16_UNORM_S8_UINT: *d = (struct ds_format){4, 16, 2}; return true;
   case VK_FORMAT_D24_UNORM_S8_UINT: *d = (struct ds_format){4, 24, 3}; return true;
   case VK_FORMAT_D32_SFLOAT_S8_UINT: *d = (struct ds_format){8, 32, 4}; return true;
   default: return false;
   }
}

bool sc_backend_ds_supported(const struct shale_fb_ds_key *key)
{
   struct ds_format d = {0, 0, -1};
   if (!fb_key_shape_supported(key->width, key->samples))
      return false;
   if (!key->depth_format && !key->stencil_format)
      return false;
   if (key->depth_format && (!ds_format(key->depth_format, &d) || !d.depth_bits))
      return false;
   if (key->stencil_format && (!ds_format(key->stencil_format, &d) || d.stencil_byte < 0))
      return false;
   if (key->depth_compare > VK_COMPARE_OP_ALWAYS)
      return false;
   for (int i = 0; i < 2; i++) {
      const struct shale_fb_stencil_ops *o = &key->stencil[i];
      if (o->compare_op > VK_COMPARE_OP_ALWAYS || o->fail_op > VK_STENCIL_OP_DECREMENT_AND_WRAP ||
          o->pass_op > VK_STENCIL_OP_DECREMENT_AND_WRAP ||
          o->depth_fail_op > VK_STENCIL_OP_DECREMENT_AND_WRAP)
         return false;
   }
   return true;
}

/* sr_compare(op, a, b) on two vectors (integers: unsigned; floats:
 * IEEE, NaN unordered). */
static LLVMValueRef compare(struct fb *f, uint32_t op, LLVMValueRef a, LLVMValueRef b, bool fp)
{
   LLVMBuilderRef bl = f->b;
   LLVMIntPredicate ip = LLVMIntEQ;
   LLVMRealPredicate rp = LLVMRealOEQ;
   switch (op) {
   case VK_COMPARE_OP_NEVER: return ci(f, f->i1, 0);
   case VK_COMPARE_OP_LESS: ip = LLVMIntULT, rp = LLVMRealOLT; break;
   case VK_COMPARE_OP_EQUAL: ip = LLVMIntEQ, rp = LLVMRealOEQ; break;
   case VK_COMPARE_OP_LESS_OR_EQUAL: ip = LLVMIntULE, rp = LLVMRealOLE; break;
   case VK_COMPARE_OP_GREATER: ip = LLVMIntUGT, rp = LLVMRealOGT; break;
   case VK_COMPARE_OP_NOT_EQUAL: ip = LLVMIntNE, rp = LLVMRealUNE; break;
   case VK_COMPARE_OP_GREATER_OR_EQUAL: ip = LLVMIntUGE, rp = LLVMRealOGE; break;
   default: return ci(f, f->i1, 1);
   }
   return fp ? LLVMBuildFCmp(bl, rp, a, b, "") : LLVMBuildICmp(bl, ip, a, b, "");
}

/* sr_stencil_op on stencil values s (i32, 0..255) and ref (i32 splat, the
 * reference's low byte); the result in 0..255 only where written. */
static LLVMValueRef stencil_op(struct fb *f, uint32_t op, LLVMValueRef s, LLVMValueRef ref)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef ff = ci(f, f->i32, 0xff), zero = ci(f, f->i32, 0), one = ci(f, f->i32, 1);
   switch (op) {
   case VK_STENCIL_OP_ZERO: return zero;
   case VK_STENCIL_OP_REPLACE: return ref;
   case VK_STENCIL_OP_INCREMENT_AND_CLAMP:
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, s, ff, ""), s,
                             LLVMBuildAdd(b, s, one, ""), "");
   case VK_STENCIL_OP_DECREMENT_AND_CLAMP:
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, s, zero, ""), s,
                             LLVMBuildSub(b, s, one, ""), "");
   case VK_STENCIL_OP_INVERT: return LLVMBuildXor(b, s, ff, "");
   case VK_STENCIL_OP_INCREMENT_AND_WRAP: return LLVMBuildAdd(b, s, one, "");
   case VK_STENCIL_OP_DECREMENT_AND_WRAP: return LLVMBuildSub(b, s, one, "");
   default: return s;   /* KEEP */
   }
}

/* (s & ~wm) | (v & wm), 0..255. */
static LLVMValueRef stencil_merge(struct fb *f, LLVMValueRef s, LLVMValueRef v, LLVMValueRef wm)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef keep = LLVMBuildAnd(b, s, LLVMBuildNot(b, wm, ""), "");
   LLVMValueRef r = LLVMBuildOr(b, keep, LLVMBuildAnd(b, v, wm, ""), "");
   return LLVMBuildAnd(b, r, ci(f, f->i32, 0xff), "");
}

/* C's clampf(v, lo, hi): v < lo ? lo : v > hi ? hi : v. */
static LLVMValueRef clamp_range(struct fb *f, LLVMValueRef v, LLVMValueRef lo, LLVMValueRef hi)
{
   LLVMValueRef r = LLVMBuildSelect(f->b, LLVMBuildFCmp(f->b, LLVMRealOGT, v, hi, ""), hi, v, "");
   return LLVMBuildSelect(f->b, LLVMBuildFCmp(f->b, LLVMRealOLT, v, lo, ""), lo, r, "");
}

/* su_pack_depth's UNORM value of z for `bits` bits (float_to_unorm), i32. */
static LLVMValueRef unorm_depth(struct fb *f, LLVMValueRef z, uint32_t bits)
{
   LLVMBuilderRef b = f->b;
   const uint32_t max = (1u << bits) - 1;
   LLVMValueRef d = LLVMBuildFPExt(b, z, f->vd, "");
   d = LLVMBuildFMul(b, d, splat(f, LLVMConstReal(f->f64, (double)max)), "");
   d = LLVMBuildFAdd(b, d, splat(f, LLVMConstReal(f->f64, 0.5)), "");
   LLVMTypeRef ov = f->vd;
   d = call_intrinsic(f, "llvm.floor", &ov, 1, &d, 1);
   LLVMValueRef r = LLVMBuildFPToSI(b, d, f->vi32, "");
   r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, z, cf(f, 1.0f), ""), ci(f, f->i32, max),
                       r, "");
   return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULE, z, cf(f, 0.0f), ""),
                          ci(f, f->i32, 0), r, "");
}

/* What one pixel's body needs besides the key. Vectors have one element
 * per sample (f->W is the sample count). */
struct ds_call {
   LLVMValueRef cov;                   /* i32: the lane's coverage */
   LLVMValueRef x, y;                  /* i32 */
   LLVMValueRef dpix, spix;            /* the pixel's first texel, depth / stencil target */
   LLVMValueRef posx, posy;            /* vf: sample positions */
   LLVMValueRef za, zb, zc, zmin, zmax;   /* splats: plane (double), range (float) */
   LLVMValueRef ref, cmask, wmask;     /* splats, i32: the face's dynamic stencil state */
   LLVMValueRef bmin, bmax;            /* depth bounds, splats */
   LLVMValueRef fd;                    /* FragDepth (float) or NULL */
};

/* The vector type of a pixel's texels of `size` bytes. */
static LLVMTypeRef texel_vec(struct fb *f, uint32_t size)
{
   return LLVMVectorType(LLVMIntTypeInContext(f->ctx, 8 * size), f->W);
}

/* A pixel's S texels (contiguous), as <S x i(8 * size)>. */
static LLVMValueRef load_pixel(struct fb *f, LLVMValueRef p, uint32_t size)
{
   LLVMValueRef v = LLVMBuildLoad2(f->b, texel_vec(f, size), p, "");
   LLVMSetAlignment(v, 1);
   return v;
}

static void store_pixel(struct fb *f, LLVMValueRef v, LLVMValueRef p)
{
   LLVMValueRef st = LLVMBuildStore(f->b, v, p);
   LLVMSetAlignment(st, 1);
}

/* Word vector w (any width) as <S x i32>: (w >> shift) & mask. */
static LLVMValueRef field(struct fb *f, LLVMValueRef w, uint32_t shift, uint32_t mask)
{
   LLVMBuilderRef b = f->b;
   LLVMTypeRef t = LLVMTypeOf(w);
   const unsigned width = LLVMGetIntTypeWidth(LLVMGetElementType(t));
   if (shift)
      w = LLVMBuildLShr(b, w, splat(f, LLVMConstInt(LLVMGetElementType(t), shift, false)), "");
   LLVMValueRef r = width > 32   ? LLVMBuildTrunc(b, w, f->vi32, "")
                    : width < 32 ? LLVMBuildZExt(b, w, f->vi32, "")
                                 : w;
   return mask == 0xffffffffu ? r : LLVMBuildAnd(b, r, ci(f, f->i32, mask), "");
}

/* The tests and writes of one pixel (every sample at once) for one
 * stencil face's static ops; returns the covered samples that passed
 * (<S x i1>). */
static LLVMValueRef emit_body(struct fb *f, const struct shale_fb_ds_key *key,
                              const struct shale_fb_stencil_ops *ops, const struct ds_call *c)
{
   LLVMBuilderRef b = f->b;
   struct ds_format df = {0, 0, -1}, sf = {0, 0, -1};
   if (key->depth_format)
      ds_format(key->depth_format, &df);
   if (key->stencil_format)
      ds_format(key->stencil_format, &sf);
   const bool combined = key->depth_format && key->depth_format == key->stencil_format;
   const bool depth_float = df.depth_bits == 32;
   const uint32_t dmask = df.depth_bits == 16 ? 0xffffu : df.depth_bits == 24 ? 0xffffffu
                                                                               : 0xffffffffu;
   const uint32_t S = f->W;

   /* Coverage bit s of sample s. */
   LLVMValueRef sh[32];
   for (uint32_t s = 0; s < S; s++)
      sh[s] = LLVMConstInt(f->i32, s, false);
   LLVMValueRef m = LLVMBuildLShr(b, splat(f, c->cov), LLVMConstVector(sh, S), "");
   m = LLVMBuildTrunc(b, m, f->vb, "");

   LLVMValueRef dword = key->depth_format ? load_pixel(f, c->dpix, df.size) : NULL;
   LLVMValueRef sword = combined ? dword
                        : key->stencil_format ? load_pixel(f, c->spix, sf.size) : NULL;
   LLVMValueRef stored = NULL, old = NULL;   /* depth bits; what a depth write replaces (i32) */
   const bool x8 = key->depth_format == VK_FORMAT_X8_D24_UNORM_PACK32;
   if (dword) {
      stored = field(f, dword, 0, dmask);
      old = x8 ? field(f, dword, 0, 0xffffffffu) : stored;
   }

   if (key->depth_bounds) {
      LLVMValueRef za;
      if (depth_float)
         za = LLVMBuildBitCast(b, stored, f->vf, "");
      else
         za = LLVMBuildFDiv(b, LLVMBuildUIToFP(b, stored, f->vf, ""),
                            cf(f, df.depth_bits == 16 ? 65535.0f : 16777215.0f), "");
      LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOGE, za, c->bmin, ""),
                                     LLVMBuildFCmp(b, LLVMRealOLE, za, c->bmax, ""), "");
      m = LLVMBuildAnd(b, m, in, "");
   }

   LLVMValueRef sv = NULL, snew = NULL;
   if (key->stencil_format) {
      sv = field(f, sword, 8u * (uint32_t)sf.stencil_byte, 0xff);
      snew = sv;
      LLVMValueRef r = LLVMBuildAnd(b, c->ref, c->cmask, "");
      LLVMValueRef v = LLVMBuildAnd(b, sv, c->cmask, "");
      LLVMValueRef spass = compare(f, ops->compare_op, r, v, false);
      if (ops->fail_op != VK_STENCIL_OP_KEEP) {
         LLVMValueRef fm = LLVMBuildAnd(b, m, LLVMBuildNot(b, spass, ""), "");
         LLVMValueRef nv = stencil_merge(f, sv, stencil_op(f, ops->fail_op, sv, c->ref), c->wmask);
         snew = LLVMBuildSelect(b, fm, nv, snew, "");
      }
      m = LLVMBuildAnd(b, m, spass, "");
   }

   LLVMValueRef dpass = NULL, dnew = NULL;
   if (key->depth_test) {
      LLVMValueRef z;
      if (key->frag_depth) {
         z = splat(f, c->fd);
         if (key->depth_clamp)
            z = clamp_range(f, z, c->zmin, c->zmax);
      } else {
         /* px = x + pos[s][0] in float, then double, as the C code. */
         LLVMValueRef px = LLVMBuildFAdd(b, splat(f, LLVMBuildSIToFP(b, c->x, f->f32, "")),
                                         c->posx, "");
         LLVMValueRef py = LLVMBuildFAdd(b, splat(f, LLVMBuildSIToFP(b, c->y, f->f32, "")),
                                         c->posy, "");
         px = LLVMBuildFPExt(b, px, f->vd, "");
         py = LLVMBuildFPExt(b, py, f->vd, "");
         LLVMValueRef d = LLVMBuildFAdd(b, LLVMBuildFMul(b, c->za, px, ""),
                                        LLVMBuildFMul(b, c->zb, py, ""), "");
         d = LLVMBuildFAdd(b, d, c->zc, "");
         z = clamp_range(f, LLVMBuildFPTrunc(b, d, f->vf, ""), c->zmin, c->zmax);
      }
      LLVMValueRef q;
      if (depth_float) {
         dpass = compare(f, key->depth_compare, z, LLVMBuildBitCast(b, stored, f->vf, ""), true);
         q = LLVMBuildBitCast(b, z, f->vi32, "");
      } else {
         q = unorm_depth(f, z, df.depth_bits);
         dpass = compare(f, key->depth_compare, q, stored, false);
      }
      if (key->depth_write)
         dnew = LLVMBuildSelect(b, LLVMBuildAnd(b, m, dpass, ""), q, old, "");
   }

   if (key->stencil_format &&
       (ops->pass_op != VK_STENCIL_OP_KEEP || ops->depth_fail_op != VK_STENCIL_OP_KEEP)) {
      LLVMValueRef nv = stencil_op(f, ops->pass_op, sv, c->ref);
      if (dpass && ops->depth_fail_op != ops->pass_op)
         nv = LLVMBuildSelect(b, dpass, nv, stencil_op(f, ops->depth_fail_op, sv, c->ref), "");
      snew = LLVMBuildSelect(b, m, stencil_merge(f, sv, nv, c->wmask), snew, "");
   }
   if (dpass)
      m = LLVMBuildAnd(b, m, dpass, "");

   /* Write back whole texels: uncovered samples keep their bits (the
    * tile's worker owns these pixels). X8_D24 writes its X8 byte as 0
    * with the depth (q < 2^24), as su_pack_depth does. */
   const bool stencil_written = key->stencil_format && snew != sv;
   LLVMTypeRef dwt = key->depth_format ? texel_vec(f, df.size) : NULL;
   if (dnew || (combined && stencil_written)) {
      uint64_t keep = ~(uint64_t)0;
      LLVMValueRef w = NULL;
      const uint32_t dbits = x8 ? 32 : df.depth_bits;
      if (dnew) {
         keep &= ~((dbits == 32 ? 0xffffffffull : (1ull << dbits) - 1));
         w = df.size == 4 ? dnew
             : df.size == 2 ? LLVMBuildTrunc(b, dnew, dwt, "") : LLVMBuildZExt(b, dnew, dwt, "");
      }
      if (combined && stencil_written) {
         keep &= ~((uint64_t)0xff << (8 * sf.stencil_byte));
         LLVMValueRef sw = df.size == 4 ? snew : LLVMBuildZExt(b, snew, dwt, "");
         sw = LLVMBuildShl(b, sw, splat(f, LLVMConstInt(LLVMGetElementType(dwt),
                                                          8u * (uint32_t)sf.stencil_byte, false)),
                           "");
         w = w ? LLVMBuildOr(b, w, sw, "") : sw;
      }
      if (keep & (df.size == 8 ? ~0ull : (1ull << (8 * df.size)) - 1))
         w = LLVMBuildOr(b, w, LLVMBuildAnd(b, dword, splat(f, LLVMConstInt(LLVMGetElementType(dwt),
                                                                              keep, false)), ""),
                         "");
      store_pixel(f, w, c->dpix);
   }
   if (!combined && stencil_written) {
      /* A stencil-only view of a texel (S8_UINT, or a combined format
       * whose depth is not accessed): its other bytes kept. */
      LLVMTypeRef swt = texel_vec(f, sf.size);
      LLVMTypeRef se = LLVMGetElementType(swt);
      const uint32_t sb = 8u * (uint32_t)sf.stencil_byte;
      LLVMValueRef w = sf.size == 4 ? snew
                       : sf.size < 4 ? LLVMBuildTrunc(b, snew, swt, "") : LLVMBuildZExt(b, snew, swt, "");
      if (sf.size > 1) {
         w = LLVMBuildShl(b, w, splat(f, LLVMConstInt(se, sb, false)), "");
         LLVMValueRef keep = splat(f, LLVMConstInt(se, ~((uint64_t)0xff << sb), false));
         w = LLVMBuildOr(b, w, LLVMBuildAnd(b, sword, keep, ""), "");
      }
      store_pixel(f, w, c->spix);
   }
   return m;
}

/* A uint32_t of an array of two in the context, [face] (i1 scalar front). */
static LLVMValueRef face_value(struct fb *f, size_t offset, LLVMValueRef front)
{
   LLVMValueRef v0 = ctx_load(f, f->i32, offset), v1 = ctx_load(f, f->i32, offset + 4);
   return LLVMBuildSelect(f->b, front, v0, v1, "");
}

enum sc_result sc_backend_build_ds(LLVMContextRef ctx, LLVMModuleRef mod,
                                   const struct shale_fb_ds_key *key, const char *symbol,
                                   char *message, size_t message_size)
{
   if (!sc_backend_ds_supported(key)) {
      if (message && message_size)
         snprintf(message, message_size, "fragment back end: depth/stencil state not compiled");
      return SC_ERROR_UNSUPPORTED;
   }
   /* A loop over the W lanes (scattered pixels), a covered lane's samples
    * as one vector: a pixel's samples are adjacent in memory, so each
    * attachment is one load and at most one store per pixel. */
   const uint32_t W = key->width, S = key->samples;
   struct fb f = {.ctx = ctx, .mod = mod, .W = S};
   fb_types(&f);

   /* (ctx, prim, layer, x, y, cov, frag_depth) -> passed samples */
   LLVMTypeRef params[7] = {f.ptr, f.ptr, f.i32, f.ptr, f.ptr, f.ptr, f.ptr};
   LLVMBasicBlockRef entry;
   LLVMValueRef fn = fb_begin_function(&f, symbol, f.i32, params, 7, &entry);
   LLVMBuilderRef b = f.b;
   LLVMValueRef prim = LLVMGetParam(fn, 1);
   f.layer = LLVMGetParam(fn, 2);
   LLVMValueRef xp = LLVMGetParam(fn, 3), yp = LLVMGetParam(fn, 4), covp = LLVMGetParam(fn, 5);
   LLVMValueRef fdp = LLVMGetParam(fn, 6);

   struct ds_call c;
   memset(&c, 0, sizeof(c));
   /* The primitive: z plane (promoted to double as the C code does), range, facing. */
   LLVMValueRef pf[5];
   for (unsigned i = 0; i < 5; i++) {
      LLVMValueRef o = LLVMConstInt(f.i64, 4 * i, false);
      pf[i] = LLVMBuildLoad2(b, f.f32, LLVMBuildGEP2(b, f.i8, prim, &o, 1, ""), "");
   }
   c.za = splat(&f, LLVMBuildFPExt(b, pf[0], f.f64, ""));
   c.zb = splat(&f, LLVMBuildFPExt(b, pf[1], f.f64, ""));
   c.zc = splat(&f, LLVMBuildFPExt(b, pf[2], f.f64, ""));
   c.zmin = splat(&f, pf[3]);
   c.zmax = splat(&f, pf[4]);
   LLVMValueRef fo = LLVMConstInt(f.i64, offsetof(struct shale_fb_prim, front_facing), false);
   LLVMValueRef front = LLVMBuildLoad2(b, f.i32, LLVMBuildGEP2(b, f.i8, prim, &fo, 1, ""), "");
   front = LLVMBuildICmp(b, LLVMIntNE, front, LLVMConstInt(f.i32, 0, false), "");

   /* Everything read from the context, before the loop's stores. */
   c.bmin = splat(&f, ctx_load(&f, f.f32, offsetof(struct shale_fb_context, depth_bounds)));
   c.bmax = splat(&f, ctx_load(&f, f.f32, offsetof(struct shale_fb_context, depth_bounds) + 4));
   LLVMValueRef ff = LLVMConstInt(f.i32, 0xff, false);
   c.ref = splat(&f, LLVMBuildAnd(b, face_value(&f, offsetof(struct shale_fb_context,
                                                            stencil_reference), front), ff, ""));
   c.cmask = splat(&f, LLVMBuildAnd(b, face_value(&f, offsetof(struct shale_fb_context,
                                                              stencil_compare_mask), front), ff, ""));
   c.wmask = splat(&f, LLVMBuildAnd(b, face_value(&f, offsetof(struct shale_fb_context,
                                                              stencil_write_mask), front), ff, ""));
   LLVMValueRef pos = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, sample_positions));
   c.posx = LLVMGetUndef(f.vf);
   c.posy = LLVMGetUndef(f.vf);
   for (uint32_t s = 0; s < S; s++) {
      LLVMValueRef idx[2] = {LLVMConstInt(f.i64, 2 * s, false), LLVMConstInt(f.i64, 2 * s + 1, false)};
      LLVMValueRef sx = LLVMBuildLoad2(b, f.f32, LLVMBuildGEP2(b, f.f32, pos, &idx[0], 1, ""), "");
      LLVMValueRef sy = LLVMBuildLoad2(b, f.f32, LLVMBuildGEP2(b, f.f32, pos, &idx[1], 1, ""), "");
      LLVMValueRef si = LLVMConstInt(f.i32, s, false);
      c.posx = LLVMBuildInsertElement(b, c.posx, sx, si, "");
      c.posy = LLVMBuildInsertElement(b, c.posy, sy, si, "");
   }
   struct ds_format d = {0, 0, -1};
   /* The targets' base, row pitch and layer offset. */
   struct fb_target_fields targets[2];
   memset(targets, 0, sizeof(targets));
   const size_t tds[2] = {offsetof(struct shale_fb_context, depth),
                          offsetof(struct shale_fb_context, stencil)};
   for (int t = 0; t < 2; t++)
      if (t ? key->stencil_format : key->depth_format)
         targets[t] = fb_target(&f, tds[t]);

   /* for (i = 0; i < W; i++) if (cov[i]) { ... } */
   LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx, fn, "lane");
   LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(ctx, fn, "covered");
   LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(ctx, fn, "next");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(ctx, fn, "done");
   LLVMBuildBr(b, loop);
   LLVMPositionBuilderAtEnd(b, loop);
   LLVMValueRef i = LLVMBuildPhi(b, f.i64, "i");
   LLVMValueRef acc = LLVMBuildPhi(b, f.i32, "passed");
   LLVMValueRef cp = LLVMBuildGEP2(b, f.i32, covp, &i, 1, "");
   LLVMValueRef cov = LLVMBuildLoad2(b, f.i32, cp, "");
   LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, cov, LLVMConstInt(f.i32, 0, false), ""), body,
                   next);

   LLVMPositionBuilderAtEnd(b, body);
   c.cov = cov;
   c.x = LLVMBuildLoad2(b, f.i32, LLVMBuildGEP2(b, f.i32, xp, &i, 1, ""), "");
   c.y = LLVMBuildLoad2(b, f.i32, LLVMBuildGEP2(b, f.i32, yp, &i, 1, ""), "");
   if (key->frag_depth && key->depth_test)
      c.fd = LLVMBuildLoad2(b, f.f32, LLVMBuildGEP2(b, f.f32, fdp, &i, 1, ""), "");
   for (int t = 0; t < 2; t++) {
      uint32_t fmt = t ? key->stencil_format : key->depth_format;
      if (!fmt)
         continue;
      ds_format(fmt, &d);
      LLVMValueRef p = fb_pixel_address(&f, &targets[t], c.x, c.y, (uint64_t)S * d.size);
      if (t)
         c.spix = p;
      else
         c.dpix = p;
   }
   LLVMValueRef out;
   if (!key->stencil_format || !memcmp(&key->stencil[0], &key->stencil[1], sizeof(key->stencil[0]))) {
      out = emit_body(&f, key, &key->stencil[0], &c);
   } else {
      /* Faces with different static ops: a body each. */
      LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(ctx, fn, "front");
      LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(ctx, fn, "back");
      LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(ctx, fn, "faces");
      LLVMBuildCondBr(b, front, bf, bb);
      LLVMPositionBuilderAtEnd(b, bf);
      LLVMValueRef of = emit_body(&f, key, &key->stencil[0], &c);
      LLVMBasicBlockRef endf = LLVMGetInsertBlock(b);
      LLVMBuildBr(b, join);
      LLVMPositionBuilderAtEnd(b, bb);
      LLVMValueRef ob = emit_body(&f, key, &key->stencil[1], &c);
      LLVMBasicBlockRef endb = LLVMGetInsertBlock(b);
      LLVMBuildBr(b, join);
      LLVMPositionBuilderAtEnd(b, join);
      out = LLVMBuildPhi(b, f.vb, "");
      LLVMValueRef vals[2] = {of, ob};
      LLVMBasicBlockRef blocks[2] = {endf, endb};
      LLVMAddIncoming(out, vals, blocks, 2);
   }
   LLVMValueRef zero = LLVMConstInt(f.i32, 0, false);
   LLVMValueRef o = LLVMBuildBitCast(b, out, LLVMIntTypeInContext(ctx, S), "");
   o = S < 32 ? LLVMBuildZExt(b, o, f.i32, "") : o;
   LLVMBuildStore(b, o, cp);
   LLVMTypeRef ov = f.i32;
   LLVMValueRef cnt = LLVMBuildAdd(b, acc, call_intrinsic(&f, "llvm.ctpop", &ov, 1, &o, 1), "");
   LLVMBasicBlockRef body_end = LLVMGetInsertBlock(b);
   LLVMBuildBr(b, next);

   LLVMPositionBuilderAtEnd(b, next);
   LLVMValueRef acc2 = LLVMBuildPhi(b, f.i32, "");
   LLVMValueRef av[2] = {acc, cnt};
   LLVMBasicBlockRef ab[2] = {loop, body_end};
   LLVMAddIncoming(acc2, av, ab, 2);
   LLVMValueRef i2 = LLVMBuildAdd(b, i, LLVMConstInt(f.i64, 1, false), "");
   LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i2, LLVMConstInt(f.i64, W, false), ""), loop,
                   done);
   LLVMValueRef iv[2] = {LLVMConstInt(f.i64, 0, false), i2};
   LLVMBasicBlockRef ib[2] = {entry, next};
   LLVMAddIncoming(i, iv, ib, 2);
   LLVMValueRef accv[2] = {zero, acc2};
   LLVMAddIncoming(acc, accv, ib, 2);

   LLVMPositionBuilderAtEnd(b, done);
   LLVMBuildRet(b, acc2);
   LLVMDisposeBuilder(b);
   return SC_SUCCESS;
}
