/*
 * llvm_backend_ds: the fragment back end's depth/stencil routines
 * (shader_abi.h shale_fb_ds_fn, src/rasterizer/sr_raster.h "The fragment
 * back end"): LLVM IR built from a struct shale_fb_ds_key, formats,
 * compare ops and stencil ops constants. Every lane's samples are one
 * vector (up to DS_VECTOR_MAX lanes x samples; beyond, a loop over the
 * lanes with coverage, a lane's samples the vector; the caller's rows
 * promise, shale_fb_ds_fn's `rows`, selects a copy of the vector form
 * that reads only x[0] and y[0] and, at W 16, each row of four pixels with
 * one masked load and store), taken through the
 * steps of the C reference (sr_fragment_depth_stencil): depth
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
   /* floor(z * max + 0.5) of the exact value (the double arithmetic
    * below is exact, or rounds only values far below 1): with AVX-512,
    * one fma rounded down (floor_fma16), the same integer. */
   LLVMValueRef r16 = floor_fma16(f, z, cf(f, (float)max), cf(f, 0.5f));
   if (r16) {
      r16 = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, z, cf(f, 1.0f), ""),
                            ci(f, f->i32, max), r16, "");
      return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULE, z, cf(f, 0.0f), ""),
                             ci(f, f->i32, 0), r16, "");
   }
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

/* What the body needs besides the key. Vectors have one element per
 * (lane, sample) the call tests, f->W of them: one pixel's samples (the
 * lane loop), or every lane's samples, lane-major (the vector form). */
struct ds_call {
   LLVMValueRef m0;                    /* vb: the elements covered */
   LLVMValueRef xf, yf;                /* vf: the element's pixel, as floats */
   LLVMValueRef posx, posy;            /* vf: sample positions */
   LLVMValueRef za, zb, zc, zmin, zmax;   /* splats: plane (double), range (float) */
   LLVMValueRef ref, cmask, wmask;     /* splats, i32: the face's dynamic stencil state */
   LLVMValueRef bmin, bmax;            /* depth bounds, splats */
   LLVMValueRef fd;                    /* vf: FragDepth, or NULL */
   /* vf: the plane's depth before the clamp, when the rows copy made it
    * (else computed from xf, yf). */
   LLVMValueRef zplane;
   /* Memory: the lane loop's pixel (dpix, spix: its first texel), or the
    * vector form's lanes (dlane, slane: W pointers each, uncovered lanes
    * pointing at a scratch pixel), `lanes` of `samples` texels. */
   LLVMValueRef dpix, spix;
   LLVMValueRef dlane[SHALE_MAX_SIMD_WIDTH], slane[SHALE_MAX_SIMD_WIDTH];
   uint32_t lanes, samples;
   /* Or the masked rows (row_count > 0: the rows promise at W 16): row
    * r's first pixel (drow, srow) and its elements' mask (lanes covered),
    * a masked load and store of 4 x samples texels a row. */
   uint32_t row_count;
   LLVMValueRef drow[SHALE_MAX_SIMD_WIDTH / 4], srow[SHALE_MAX_SIMD_WIDTH / 4];
   LLVMValueRef rmask[SHALE_MAX_SIMD_WIDTH / 4];
};

/* The vector type of a pixel's texels of `size` bytes. */
static LLVMTypeRef texel_vec(struct fb *f, uint32_t size)
{
   return LLVMVectorType(LLVMIntTypeInContext(f->ctx, 8 * size), f->W);
}

/* The call's texels of `size` bytes, as <f->W x i(8 * size)>: the
 * pixel's S texels (contiguous), or each lane's S texels in turn. */
static LLVMValueRef load_texels(struct fb *f, const struct ds_call *c, bool stencil, uint32_t size)
{
   if (c->row_count) {
      LLVMTypeRef rt = LLVMVectorType(LLVMIntTypeInContext(f->ctx, 8 * size), 4 * c->samples);
      LLVMValueRef parts[SHALE_MAX_SIMD_WIDTH / 4] = {NULL};
      for (uint32_t r = 0; r < c->row_count; r++) {
         LLVMValueRef args[4] = {stencil ? c->srow[r] : c->drow[r],
                                 LLVMConstInt(f->i32, size, false), c->rmask[r],
                                 LLVMConstNull(rt)};
         LLVMTypeRef ov[2] = {rt, f->ptr};
         parts[r] = call_intrinsic(f, "llvm.masked.load", ov, 2, args, 4);
      }
      return fb_concat(f, parts, c->row_count);
   }
   if (!c->lanes) {
      LLVMValueRef v = LLVMBuildLoad2(f->b, texel_vec(f, size), stencil ? c->spix : c->dpix, "");
      LLVMSetAlignment(v, 1);
      return v;
   }
   return fb_lanes_load(f, stencil ? c->slane : c->dlane, c->lanes,
                        LLVMIntTypeInContext(f->ctx, 8 * size), c->samples);
}

/* Stores what load_texels loaded (every texel: unchanged ones as they
 * were). */
static void store_texels(struct fb *f, const struct ds_call *c, bool stencil, LLVMValueRef v)
{
   if (c->row_count) {
      const uint32_t n = 4 * c->samples;
      const uint32_t size = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(v))) / 8;
      for (uint32_t r = 0; r < c->row_count; r++) {
         LLVMValueRef part = LLVMBuildShuffleVector(f->b, v, LLVMGetUndef(LLVMTypeOf(v)),
                                                    fb_index_vector(f, n, r * n, 1), "");
         LLVMValueRef args[4] = {part, stencil ? c->srow[r] : c->drow[r],
                                 LLVMConstInt(f->i32, size, false), c->rmask[r]};
         LLVMTypeRef ov[2] = {LLVMTypeOf(part), f->ptr};
         call_intrinsic(f, "llvm.masked.store", ov, 2, args, 4);
      }
      return;
   }
   if (!c->lanes) {
      LLVMValueRef st = LLVMBuildStore(f->b, v, stencil ? c->spix : c->dpix);
      LLVMSetAlignment(st, 1);
      return;
   }
   fb_lanes_store(f, stencil ? c->slane : c->dlane, c->lanes, v, c->samples);
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

   LLVMValueRef m = c->m0;

   LLVMValueRef dword = key->depth_format ? load_texels(f, c, false, df.size) : NULL;
   LLVMValueRef sword = combined ? dword
                        : key->stencil_format ? load_texels(f, c, true, sf.size) : NULL;
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
         z = c->fd;
         if (key->depth_clamp)
            z = clamp_range(f, z, c->zmin, c->zmax);
      } else if (c->zplane) {
         z = clamp_range(f, c->zplane, c->zmin, c->zmax);
      } else {
         /* px = x + pos[s][0] in float, then double, as the C code. */
         LLVMValueRef px = LLVMBuildFAdd(b, c->xf, c->posx, "");
         LLVMValueRef py = LLVMBuildFAdd(b, c->yf, c->posy, "");
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
      store_texels(f, c, false, w);
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
      store_texels(f, c, true, w);
   }
   return m;
}

/* A uint32_t of an array of two in the context, [face] (i1 scalar front). */
static LLVMValueRef face_value(struct fb *f, size_t offset, LLVMValueRef front)
{
   LLVMValueRef v0 = ctx_load(f, f->i32, offset), v1 = ctx_load(f, f->i32, offset + 4);
   return LLVMBuildSelect(f->b, front, v0, v1, "");
}

/* The body for the call's face: one for both faces when their static ops
 * agree, else a body each behind a branch on `front`. Returns the covered
 * elements that passed. */
static LLVMValueRef emit_faces(struct fb *f, LLVMValueRef fn, const struct shale_fb_ds_key *key,
                               LLVMValueRef front, const struct ds_call *c)
{
   LLVMBuilderRef b = f->b;
   if (!key->stencil_format || !memcmp(&key->stencil[0], &key->stencil[1], sizeof(key->stencil[0])))
      return emit_body(f, key, &key->stencil[0], c);
   LLVMBasicBlockRef bf = LLVMAppendBasicBlockInContext(f->ctx, fn, "front");
   LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(f->ctx, fn, "back");
   LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(f->ctx, fn, "faces");
   LLVMBuildCondBr(b, front, bf, bb);
   LLVMPositionBuilderAtEnd(b, bf);
   LLVMValueRef of = emit_body(f, key, &key->stencil[0], c);
   LLVMBasicBlockRef endf = LLVMGetInsertBlock(b);
   LLVMBuildBr(b, join);
   LLVMPositionBuilderAtEnd(b, bb);
   LLVMValueRef ob = emit_body(f, key, &key->stencil[1], c);
   LLVMBasicBlockRef endb = LLVMGetInsertBlock(b);
   LLVMBuildBr(b, join);
   LLVMPositionBuilderAtEnd(b, join);
   LLVMValueRef out = LLVMBuildPhi(b, f->vb, "");
   LLVMValueRef vals[2] = {of, ob};
   LLVMBasicBlockRef blocks[2] = {endf, endb};
   LLVMAddIncoming(out, vals, blocks, 2);
   return out;
}

/* Calls of at most this many lanes x samples test them all as one vector. */
#define DS_VECTOR_MAX 64

/* The vector form's copy of the routine for one way of getting the lanes
 * (where the builder is, up to its return). rows: the caller's rows
 * promise (shader_abi.h): lane i at (x[0] + (i & 3), y[0] + (i >> 2)),
 * x[0] and y[0] loaded as scalars and the coverage four lanes at a time
 * (the tile loop has just written x[0] and y[0] as scalars and the block's
 * coverage a vector of four or eight lanes at a time: a wider load would
 * wait for those stores to reach the cache, these take the stored
 * values); each lane's address is its row's plus a constant. Else every
 * lane's x, y and coverage are loaded four lanes at a time likewise
 * (fb_load_lanes4). */
static void emit_vector(struct fb *f, LLVMValueRef fn, const struct shale_fb_ds_key *key,
                        struct ds_call *c, LLVMValueRef front, bool rows,
                        const struct fb_target_fields *targets, const uint64_t *pixel_size,
                        LLVMValueRef bits, LLVMValueRef scratch, LLVMValueRef xp, LLVMValueRef yp,
                        LLVMValueRef covp, LLVMValueRef fdp, uint32_t W, uint32_t S)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef zero = LLVMConstInt(f->i32, 0, false);
   /* Lane i's values repeated for its S elements. */
   LLVMValueRef rep[DS_VECTOR_MAX];
   for (uint32_t e = 0; e < f->W; e++)
      rep[e] = LLVMConstInt(f->i32, e / S, false);
   LLVMValueRef repv = LLVMConstVector(rep, f->W);
   LLVMTypeRef lvi = LLVMVectorType(f->i32, W), lvf = LLVMVectorType(f->f32, W);
   LLVMValueRef xs, ys, covs, x0 = NULL, y0 = NULL;
   if (rows) {
      x0 = LLVMBuildLoad2(b, f->i32, xp, "");
      y0 = LLVMBuildLoad2(b, f->i32, yp, "");
      LLVMSetAlignment(x0, 4);
      LLVMSetAlignment(y0, 4);
      LLVMValueRef ex[SHALE_MAX_SIMD_WIDTH], ey[SHALE_MAX_SIMD_WIDTH];
      for (uint32_t i = 0; i < W; i++) {
         ex[i] = LLVMConstInt(f->i32, i & 3, false);
         ey[i] = LLVMConstInt(f->i32, i >> 2, false);
      }
      LLVMValueRef u = LLVMGetUndef(lvi);
      LLVMValueRef x0v = LLVMBuildShuffleVector(
         b, LLVMBuildInsertElement(b, u, x0, zero, ""), u, LLVMConstNull(lvi), "");
      LLVMValueRef y0v = LLVMBuildShuffleVector(
         b, LLVMBuildInsertElement(b, u, y0, zero, ""), u, LLVMConstNull(lvi), "");
      xs = LLVMBuildAdd(b, x0v, LLVMConstVector(ex, W), "");
      ys = LLVMBuildAdd(b, y0v, LLVMConstVector(ey, W), "");
      covs = fb_load_lanes4(f, covp, W);
   } else {
      xs = fb_load_lanes4(f, xp, W);
      ys = fb_load_lanes4(f, yp, W);
      covs = fb_load_lanes4(f, covp, W);
   }
   LLVMValueRef ce = LLVMBuildShuffleVector(b, covs, LLVMGetUndef(lvi), repv, "");
   c->m0 = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, ce, bits, ""), splat(f, zero), "");
   c->xf = LLVMBuildShuffleVector(b, LLVMBuildSIToFP(b, xs, lvf, ""), LLVMGetUndef(lvf), repv, "");
   c->yf = LLVMBuildShuffleVector(b, LLVMBuildSIToFP(b, ys, lvf, ""), LLVMGetUndef(lvf), repv, "");
   if (key->frag_depth && key->depth_test) {
      LLVMValueRef fd = LLVMBuildLoad2(b, lvf, fdp, "");
      LLVMSetAlignment(fd, 4);
      c->fd = LLVMBuildShuffleVector(b, fd, LLVMGetUndef(lvf), repv, "");
   }
   c->lanes = W;
   c->samples = S;
   if (rows && key->depth_test && !key->frag_depth) {
      /* The plane under the rows promise: a * px takes 4 x S values (a
       * column's samples), b * py (W / 4) x S (a row's), so each product
       * is computed once and spread to the elements that share it; the
       * same operations and order as emit_body's (px = x + pos in float,
       * then double; (a px + b py) + c), so the same bits. */
      const uint32_t R = W / 4, nx = 4 * S, ny = R * S;
      LLVMValueRef xi[4 * 32], yi[4 * 32], pxi[4 * 32], pyi[4 * 32];
      for (uint32_t e = 0; e < nx; e++) {
         xi[e] = LLVMConstInt(f->i32, e / S, false);
         pxi[e] = LLVMConstInt(f->i32, e, false);
      }
      for (uint32_t e = 0; e < ny; e++) {
         yi[e] = LLVMConstInt(f->i32, e / S, false);
         pyi[e] = LLVMConstInt(f->i32, e, false);
      }
      LLVMTypeRef vxi = LLVMVectorType(f->i32, nx), vyi = LLVMVectorType(f->i32, ny);
      LLVMValueRef ux = LLVMGetUndef(vxi), uy = LLVMGetUndef(vyi);
      LLVMValueRef cx = LLVMBuildAdd(
         b, LLVMBuildShuffleVector(b, LLVMBuildInsertElement(b, ux, x0, zero, ""), ux,
                                   LLVMConstNull(vxi), ""),
         LLVMConstVector(xi, nx), "");
      LLVMValueRef ry = LLVMBuildAdd(
         b, LLVMBuildShuffleVector(b, LLVMBuildInsertElement(b, uy, y0, zero, ""), uy,
                                   LLVMConstNull(vyi), ""),
         LLVMConstVector(yi, ny), "");
      LLVMTypeRef vxf = LLVMVectorType(f->f32, nx), vyf = LLVMVectorType(f->f32, ny);
      /* Element e of posx / posy has sample e % S: their first elements. */
      LLVMValueRef px = LLVMBuildFAdd(
         b, LLVMBuildSIToFP(b, cx, vxf, ""),
         LLVMBuildShuffleVector(b, c->posx, LLVMGetUndef(f->vf), LLVMConstVector(pxi, nx), ""),
         "");
      LLVMValueRef py = LLVMBuildFAdd(
         b, LLVMBuildSIToFP(b, ry, vyf, ""),
         LLVMBuildShuffleVector(b, c->posy, LLVMGetUndef(f->vf), LLVMConstVector(pyi, ny), ""),
         "");
      LLVMValueRef za = LLVMBuildShuffleVector(b, c->za, LLVMGetUndef(f->vd),
                                               LLVMConstVector(pxi, nx), "");
      LLVMValueRef zb = LLVMBuildShuffleVector(b, c->zb, LLVMGetUndef(f->vd),
                                               LLVMConstVector(pyi, ny), "");
      LLVMValueRef ax = LLVMBuildFMul(b, za, LLVMBuildFPExt(b, px, LLVMVectorType(f->f64, nx), ""),
                                      "");
      LLVMValueRef by = LLVMBuildFMul(b, zb, LLVMBuildFPExt(b, py, LLVMVectorType(f->f64, ny), ""),
                                      "");
      LLVMValueRef ae[DS_VECTOR_MAX], be[DS_VECTOR_MAX];
      for (uint32_t e = 0; e < f->W; e++) {
         const uint32_t i = e / S, smp = e % S;
         ae[e] = LLVMConstInt(f->i32, (i & 3) * S + smp, false);
         be[e] = LLVMConstInt(f->i32, (i >> 2) * S + smp, false);
      }
      LLVMValueRef axe = LLVMBuildShuffleVector(b, ax, LLVMGetUndef(LLVMTypeOf(ax)),
                                                LLVMConstVector(ae, f->W), "");
      LLVMValueRef bye = LLVMBuildShuffleVector(b, by, LLVMGetUndef(LLVMTypeOf(by)),
                                                LLVMConstVector(be, f->W), "");
      LLVMValueRef d = LLVMBuildFAdd(b, axe, bye, "");
      d = LLVMBuildFAdd(b, d, c->zc, "");
      c->zplane = LLVMBuildFPTrunc(b, d, f->vf, "");
   }
   LLVMValueRef row[2][SHALE_MAX_SIMD_WIDTH / 4];
   for (int t = 0; t < 2 && rows; t++) {
      if (!pixel_size[t])
         continue;
      /* Row 0's address, the others r row pitches further (y0 + r
       * never wraps). */
      row[t][0] = fb_pixel_address(f, &targets[t], x0, y0, pixel_size[t]);
      for (uint32_t r = 1; r < W / 4; r++) {
         LLVMValueRef o = LLVMBuildMul(b, targets[t].row_pitch, LLVMConstInt(f->i64, r, false), "");
         row[t][r] = LLVMBuildGEP2(b, f->i8, row[t][0], &o, 1, "");
      }
   }
   if (rows && W == 16) {
      /* W 16 (the width chosen where the CPU has AVX-512, whose masked
       * loads and stores take a mask register and skip the masked-off
       * bytes without faulting): each row one masked load and store, the
       * mask every element of the covered lanes. */
      LLVMValueRef lm = LLVMBuildShuffleVector(
         b, LLVMBuildICmp(b, LLVMIntNE, covs, LLVMConstNull(lvi), ""),
         LLVMGetUndef(LLVMVectorType(f->i1, W)), repv, "");
      c->row_count = W / 4;
      for (uint32_t r = 0; r < W / 4; r++) {
         c->rmask[r] = LLVMBuildShuffleVector(b, lm, LLVMGetUndef(f->vb),
                                              fb_index_vector(f, 4 * S, 4 * S * r, 1), "");
         c->drow[r] = pixel_size[0] ? row[0][r] : NULL;
         c->srow[r] = pixel_size[1] ? row[1][r] : NULL;
      }
   }
   for (uint32_t i = 0; i < W && !c->row_count; i++) {
      LLVMValueRef li = LLVMConstInt(f->i32, i, false);
      LLVMValueRef covered = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildExtractElement(b, covs, li, ""),
                                           zero, "");
      LLVMValueRef x = rows ? NULL : LLVMBuildExtractElement(b, xs, li, "");
      LLVMValueRef y = rows ? NULL : LLVMBuildExtractElement(b, ys, li, "");
      for (int t = 0; t < 2; t++) {
         if (!pixel_size[t])
            continue;
         LLVMValueRef p;
         if (rows) {
            LLVMValueRef o = LLVMConstInt(f->i64, (i & 3) * pixel_size[t], false);
            p = LLVMBuildGEP2(b, f->i8, row[t][i >> 2], &o, 1, "");
         } else {
            p = fb_pixel_address(f, &targets[t], x, y, pixel_size[t]);
         }
         p = LLVMBuildSelect(b, covered, p, scratch, "");
         if (t)
            c->slane[i] = p;
         else
            c->dlane[i] = p;
      }
   }
   LLVMValueRef out = emit_faces(f, fn, key, front, c);
   /* Lane i's passed samples: its elements' bits, or-ed pairwise. */
   LLVMValueRef lc = LLVMBuildSelect(b, out, bits, splat(f, zero), "");
   for (uint32_t n = f->W; n > W; n /= 2) {
      LLVMValueRef ev[DS_VECTOR_MAX / 2], od[DS_VECTOR_MAX / 2];
      for (uint32_t k = 0; k < n / 2; k++) {
         ev[k] = LLVMConstInt(f->i32, 2 * k, false);
         od[k] = LLVMConstInt(f->i32, 2 * k + 1, false);
      }
      LLVMValueRef u = LLVMGetUndef(LLVMTypeOf(lc));
      lc = LLVMBuildOr(b, LLVMBuildShuffleVector(b, lc, u, LLVMConstVector(ev, n / 2), ""),
                       LLVMBuildShuffleVector(b, lc, u, LLVMConstVector(od, n / 2), ""), "");
   }
   LLVMValueRef st = LLVMBuildStore(b, lc, covp);
   LLVMSetAlignment(st, 4);
   LLVMTypeRef nt = LLVMIntTypeInContext(f->ctx, f->W);
   LLVMValueRef o = LLVMBuildBitCast(b, out, nt, "");
   o = f->W < 64 ? LLVMBuildZExt(b, o, f->i64, "") : o;
   LLVMTypeRef ov = f->i64;
   LLVMValueRef cnt = call_intrinsic(f, "llvm.ctpop", &ov, 1, &o, 1);
   LLVMBuildRet(b, LLVMBuildTrunc(b, cnt, f->i32, ""));
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
   /* Two forms. Up to DS_VECTOR_MAX lanes x samples: every lane's samples
    * as one vector (lane-major), each lane's pixel one load and one store
    * per attachment, a lane without coverage pointed at a scratch pixel
    * (its address may be anything). Beyond: a loop over the W lanes
    * (skipping those without coverage), a covered lane's samples as one
    * vector. A pixel's samples are adjacent in memory either way. */
   const uint32_t W = key->width, S = key->samples;
   const bool vector = W * S <= DS_VECTOR_MAX;
   struct fb f = {.ctx = ctx, .mod = mod, .W = vector ? W * S : S};
   fb_types(&f);

   /* (ctx, prim, layer, x, y, cov, frag_depth, rows) -> passed samples */
   LLVMTypeRef params[8] = {f.ptr, f.ptr, f.i32, f.ptr, f.ptr, f.ptr, f.ptr, f.i32};
   LLVMBasicBlockRef entry;
   LLVMValueRef fn = fb_begin_function(&f, symbol, f.i32, params, 8, &entry);
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

   /* Everything read from the context, before the stores. */
   c.bmin = splat(&f, ctx_load(&f, f.f32, offsetof(struct shale_fb_context, depth_bounds)));
   c.bmax = splat(&f, ctx_load(&f, f.f32, offsetof(struct shale_fb_context, depth_bounds) + 4));
   LLVMValueRef ff = LLVMConstInt(f.i32, 0xff, false);
   c.ref = splat(&f, LLVMBuildAnd(b, face_value(&f, offsetof(struct shale_fb_context,
                                                            stencil_reference), front), ff, ""));
   c.cmask = splat(&f, LLVMBuildAnd(b, face_value(&f, offsetof(struct shale_fb_context,
                                                              stencil_compare_mask), front), ff, ""));
   c.wmask = splat(&f, LLVMBuildAnd(b, face_value(&f, offsetof(struct shale_fb_context,
                                                              stencil_write_mask), front), ff, ""));
   /* Sample positions: element e has sample e % S. One vector load of
    * the S (x, y) pairs, spread by shuffles (LLVM made the scalar loads
    * and inserts of each into gathers, which every call waited for). */
   LLVMValueRef pos = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, sample_positions));
   LLVMTypeRef pvt = LLVMVectorType(f.f32, 2 * S);
   LLVMValueRef pv = LLVMBuildLoad2(b, pvt, pos, "");
   LLVMSetAlignment(pv, 4);
   LLVMValueRef pxi[DS_VECTOR_MAX], pyi[DS_VECTOR_MAX];
   for (uint32_t e = 0; e < f.W; e++) {
      pxi[e] = LLVMConstInt(f.i32, 2 * (e % S), false);
      pyi[e] = LLVMConstInt(f.i32, 2 * (e % S) + 1, false);
   }
   c.posx = LLVMBuildShuffleVector(b, pv, LLVMGetUndef(pvt), LLVMConstVector(pxi, f.W), "");
   c.posy = LLVMBuildShuffleVector(b, pv, LLVMGetUndef(pvt), LLVMConstVector(pyi, f.W), "");
   /* Element e's sample bit: 1 << (e % S). */
   LLVMValueRef bit[DS_VECTOR_MAX];
   for (uint32_t e = 0; e < f.W; e++)
      bit[e] = LLVMConstInt(f.i32, 1u << (e % S), false);
   LLVMValueRef bits = LLVMConstVector(bit, f.W);
   /* The targets' base, row pitch and layer offset, and their pixels' size
    * (0: no such target). */
   struct fb_target_fields targets[2];
   uint64_t pixel_size[2] = {0, 0};
   memset(targets, 0, sizeof(targets));
   const size_t tds[2] = {offsetof(struct shale_fb_context, depth),
                          offsetof(struct shale_fb_context, stencil)};
   for (int t = 0; t < 2; t++) {
      const uint32_t fmt = t ? key->stencil_format : key->depth_format;
      struct ds_format d = {0, 0, -1};
      if (!fmt)
         continue;
      ds_format(fmt, &d);
      targets[t] = fb_target(&f, tds[t]);
      pixel_size[t] = (uint64_t)S * d.size;
   }
   LLVMValueRef zero = LLVMConstInt(f.i32, 0, false);

   if (vector) {
      /* The scratch pixel (zeroed) for the lanes without coverage, in the
       * entry block. */
      LLVMTypeRef sct = LLVMArrayType(f.i64, S);
      LLVMValueRef scratch = LLVMBuildAlloca(b, sct, "scratch");
      LLVMBuildStore(b, LLVMConstNull(sct), scratch);
      /* The caller's rows promise (shader_abi.h) selects one of two copies
       * of the routine (as the colour routine's does). */
      LLVMBasicBlockRef rows_bb = LLVMAppendBasicBlockInContext(ctx, fn, "rows");
      LLVMBasicBlockRef lanes_bb = LLVMAppendBasicBlockInContext(ctx, fn, "lanes");
      LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, LLVMGetParam(fn, 7), zero, ""), rows_bb,
                      lanes_bb);
      for (int rows = 1; rows >= 0; rows--) {
         LLVMPositionBuilderAtEnd(b, rows ? rows_bb : lanes_bb);
         struct ds_call cc = c;
         emit_vector(&f, fn, key, &cc, front, rows, targets, pixel_size, bits, scratch, xp, yp,
                     covp, fdp, W, S);
      }
      LLVMDisposeBuilder(b);
      return SC_SUCCESS;
   }

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
   LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, cov, zero, ""), body, next);

   LLVMPositionBuilderAtEnd(b, body);
   c.m0 = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, splat(&f, cov), bits, ""), splat(&f, zero),
                        "");
   /* The rows promise: x[0] + (i & 3), y[0] + (i >> 2); else x[i], y[i]. */
   LLVMValueRef rows = LLVMBuildICmp(b, LLVMIntNE, LLVMGetParam(fn, 7), zero, "");
   LLVMValueRef i0 = LLVMConstInt(f.i64, 0, false);
   LLVMValueRef li = LLVMBuildSelect(b, rows, i0, i, "");
   LLVMValueRef x = LLVMBuildLoad2(b, f.i32, LLVMBuildGEP2(b, f.i32, xp, &li, 1, ""), "");
   LLVMValueRef y = LLVMBuildLoad2(b, f.i32, LLVMBuildGEP2(b, f.i32, yp, &li, 1, ""), "");
   LLVMValueRef i32v = LLVMBuildTrunc(b, i, f.i32, "");
   LLVMValueRef dx = LLVMBuildAnd(b, i32v, LLVMConstInt(f.i32, 3, false), "");
   LLVMValueRef dy = LLVMBuildLShr(b, i32v, LLVMConstInt(f.i32, 2, false), "");
   x = LLVMBuildAdd(b, x, LLVMBuildSelect(b, rows, dx, zero, ""), "");
   y = LLVMBuildAdd(b, y, LLVMBuildSelect(b, rows, dy, zero, ""), "");
   c.xf = splat(&f, LLVMBuildSIToFP(b, x, f.f32, ""));
   c.yf = splat(&f, LLVMBuildSIToFP(b, y, f.f32, ""));
   if (key->frag_depth && key->depth_test)
      c.fd = splat(&f, LLVMBuildLoad2(b, f.f32, LLVMBuildGEP2(b, f.f32, fdp, &i, 1, ""), ""));
   for (int t = 0; t < 2; t++) {
      if (!pixel_size[t])
         continue;
      LLVMValueRef p = fb_pixel_address(&f, &targets[t], x, y, pixel_size[t]);
      if (t)
         c.spix = p;
      else
         c.dpix = p;
   }
   LLVMValueRef out = emit_faces(&f, fn, key, front, &c);
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
