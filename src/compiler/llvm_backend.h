/*
 * llvm_backend: what the fragment back end's builders share (llvm_backend.c:
 * colour, llvm_backend_ds.c: depth/stencil): the builder state over W-lane
 * vectors, small IR helpers, and what both decode from their keys and
 * context the same way: the key's shape (W, samples), the routine's
 * creation, an attachment's addressing (base, row pitch, layer; the
 * address of a pixel's sample 0 for scalar or vector coordinates). Private
 * to src/compiler.
 */
#ifndef LLVM_BACKEND_H
#define LLVM_BACKEND_H

#include <stddef.h>
#include <string.h>

#include "llvm_private.h"

struct fb {
   LLVMContextRef ctx;
   LLVMModuleRef mod;
   LLVMBuilderRef b;
   uint32_t W;
   LLVMTypeRef f32, f64, i1, i8, i16, i32, i64, ptr, half;
   LLVMTypeRef vf, vd, vi8, vi16, vi32, vi64, vh, vb, vp;
   LLVMValueRef ctxp, layer, xs, ys, cov, outputs;
   /* Lane 0's coordinates, loaded as scalars (the colour routines' rows
    * copy: a scalar load at the start of what the caller has just stored,
    * one by one or as a vector, takes the stored value). */
   LLVMValueRef x0, y0;
   LLVMValueRef srgb_thresholds, srgb_decode, srgb_buckets;
};

static inline LLVMValueRef call_intrinsic(struct fb *f, const char *name, LLVMTypeRef *ov,
                                          unsigned nov, LLVMValueRef *args, unsigned nargs)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMValueRef decl = LLVMGetIntrinsicDeclaration(f->mod, id, ov, nov);
   LLVMTypeRef fnty = LLVMIntrinsicGetType(f->ctx, id, ov, nov);
   return LLVMBuildCall2(f->b, fnty, decl, args, nargs, "");
}

/* floor(a * b + c) of the exact product and sum, as i32, for 16-lane
 * float vectors on a host with AVX-512: one fused multiply-add rounded
 * toward negative infinity (AVX-512's embedded rounding) and a
 * truncation. Exact where the true value lies in [0, 2^24]: every integer
 * there is a float, so the float at or below the value (the fma's result)
 * has the value's floor. NULL elsewhere (other widths, other hosts): the
 * callers keep their general forms. */
static inline LLVMValueRef floor_fma16(struct fb *f, LLVMValueRef a, LLVMValueRef b,
                                       LLVMValueRef c)
{
#if defined(__x86_64__)
   if (LLVMGetVectorSize(LLVMTypeOf(a)) != 16 || !__builtin_cpu_supports("avx512f"))
      return NULL;
   /* 9: _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC */
   LLVMValueRef args[4] = { a, b, c, LLVMConstInt(f->i32, 9, false) };
   LLVMValueRef y = call_intrinsic(f, "llvm.x86.avx512.vfmadd.ps.512", NULL, 0, args, 4);
   return LLVMBuildFPToSI(f->b, y, LLVMVectorType(f->i32, 16), "");
#else
   (void)f, (void)a, (void)b, (void)c;
   return NULL;
#endif
}

/* A W-lane vector of scalar v. */
static inline LLVMValueRef splat(struct fb *f, LLVMValueRef v)
{
   LLVMTypeRef vt = LLVMVectorType(LLVMTypeOf(v), f->W);
   LLVMValueRef u = LLVMBuildInsertElement(f->b, LLVMGetUndef(vt), v,
                                           LLVMConstInt(f->i32, 0, false), "");
   return LLVMBuildShuffleVector(f->b, u, LLVMGetUndef(vt), LLVMConstNull(f->vi32), "");
}

static inline LLVMValueRef cf(struct fb *f, float v)
{
   return splat(f, LLVMConstReal(f->f32, v));
}

static inline LLVMValueRef ci(struct fb *f, LLVMTypeRef t, uint64_t v)
{
   return splat(f, LLVMConstInt(t, v, false));
}

/* The field at byte `offset` of the context block. */
static inline LLVMValueRef ctx_load(struct fb *f, LLVMTypeRef t, size_t offset)
{
   LLVMValueRef o = LLVMConstInt(f->i64, offset, false);
   LLVMValueRef p = LLVMBuildGEP2(f->b, f->i8, f->ctxp, &o, 1, "");
   return LLVMBuildLoad2(f->b, t, p, "");
}

static inline LLVMValueRef gather(struct fb *f, LLVMTypeRef vt, LLVMValueRef ptrs, unsigned align,
                           LLVMValueRef mask)
{
   LLVMValueRef args[4] = { ptrs, LLVMConstInt(f->i32, align, false), mask, LLVMConstNull(vt) };
   LLVMTypeRef ov[2] = { vt, f->vp };
   return call_intrinsic(f, "llvm.masked.gather", ov, 2, args, 4);
}

static inline void scatter(struct fb *f, LLVMValueRef v, LLVMValueRef ptrs, unsigned align,
                    LLVMValueRef mask)
{
   LLVMValueRef args[4] = { v, ptrs, LLVMConstInt(f->i32, align, false), mask };
   LLVMTypeRef ov[2] = { LLVMTypeOf(v), f->vp };
   call_intrinsic(f, "llvm.masked.scatter", ov, 2, args, 4);
}

static inline LLVMValueRef ptrs_at(struct fb *f, LLVMValueRef base_ptrs, uint64_t bytes)
{
   if (!bytes)
      return base_ptrs;
   LLVMValueRef o = ci(f, f->i64, bytes);
   return LLVMBuildGEP2(f->b, f->i8, base_ptrs, &o, 1, "");
}

static inline void fb_types(struct fb *f)
{
   LLVMContextRef ctx = f->ctx;
   f->f32 = LLVMFloatTypeInContext(ctx);
   f->f64 = LLVMDoubleTypeInContext(ctx);
   f->half = LLVMHalfTypeInContext(ctx);
   f->i1 = LLVMInt1TypeInContext(ctx);
   f->i8 = LLVMInt8TypeInContext(ctx);
   f->i16 = LLVMInt16TypeInContext(ctx);
   f->i32 = LLVMInt32TypeInContext(ctx);
   f->i64 = LLVMInt64TypeInContext(ctx);
   f->ptr = LLVMPointerTypeInContext(ctx, 0);
   f->vf = LLVMVectorType(f->f32, f->W);
   f->vd = LLVMVectorType(f->f64, f->W);
   f->vh = LLVMVectorType(f->half, f->W);
   f->vb = LLVMVectorType(f->i1, f->W);
   f->vi8 = LLVMVectorType(f->i8, f->W);
   f->vi16 = LLVMVectorType(f->i16, f->W);
   f->vi32 = LLVMVectorType(f->i32, f->W);
   f->vi64 = LLVMVectorType(f->i64, f->W);
   f->vp = LLVMVectorType(f->ptr, f->W);
}

/* What both kinds of key share: W (the lanes a call covers) 4, 8 or 16,
 * and 1 to 32 samples a pixel. */
static inline bool fb_key_shape_supported(uint32_t width, uint32_t samples)
{
   return (width == 4 || width == 8 || width == 16) && samples >= 1 && samples <= 32;
}

/* The routine `symbol` of type (params) -> ret, nounwind, with f->b
 * created and positioned at its entry block (returned in *entry). */
static inline LLVMValueRef fb_begin_function(struct fb *f, const char *symbol, LLVMTypeRef ret,
                                             LLVMTypeRef *params, unsigned nparams,
                                             LLVMBasicBlockRef *entry)
{
   LLVMTypeRef fnty = LLVMFunctionType(ret, params, nparams, false);
   LLVMValueRef fn = LLVMAddFunction(f->mod, symbol, fnty);
   unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(f->ctx, nounwind, 0));
   f->b = LLVMCreateBuilderInContext(f->ctx);
   *entry = LLVMAppendBasicBlockInContext(f->ctx, fn, "entry");
   LLVMPositionBuilderAtEnd(f->b, *entry);
   f->ctxp = LLVMGetParam(fn, 0);
   return fn;
}

/* An attachment of the context block at byte `offset` (a struct
 * shale_fb_target or shale_fb_ds_target: base, row_pitch, layer_pitch
 * first): its base, its row pitch and the byte offset of f->layer. */
struct fb_target_fields {
   LLVMValueRef base, row_pitch, layer_offset;
};

static inline struct fb_target_fields fb_target(struct fb *f, size_t offset)
{
   _Static_assert(offsetof(struct shale_fb_target, base) ==
                     offsetof(struct shale_fb_ds_target, base) &&
                  offsetof(struct shale_fb_target, row_pitch) ==
                     offsetof(struct shale_fb_ds_target, row_pitch) &&
                  offsetof(struct shale_fb_target, layer_pitch) ==
                     offsetof(struct shale_fb_ds_target, layer_pitch),
                  "colour and depth/stencil targets share their addressing fields");
   struct fb_target_fields t;
   t.base = ctx_load(f, f->ptr, offset + offsetof(struct shale_fb_target, base));
   t.row_pitch = ctx_load(f, f->i64, offset + offsetof(struct shale_fb_target, row_pitch));
   LLVMValueRef lp = ctx_load(f, f->i64, offset + offsetof(struct shale_fb_target, layer_pitch));
   t.layer_offset = LLVMBuildMul(f->b, LLVMBuildZExt(f->b, f->layer, f->i64, ""), lp, "");
   return t;
}

/* The address of sample 0 of pixel (x, y) (i32 scalars, or vectors: then
 * a vector of addresses) in target t, `pixel_bytes` (samples x texel size)
 * a pixel: base + layer offset + y * row pitch + x * pixel_bytes. */
static inline LLVMValueRef fb_pixel_address(struct fb *f, const struct fb_target_fields *t,
                                            LLVMValueRef x, LLVMValueRef y, uint64_t pixel_bytes)
{
   LLVMBuilderRef b = f->b;
   const bool vec = LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVectorTypeKind;
   LLVMTypeRef i64 = vec ? f->vi64 : f->i64;
   LLVMValueRef rp = vec ? splat(f, t->row_pitch) : t->row_pitch;
   LLVMValueRef lo = vec ? splat(f, t->layer_offset) : t->layer_offset;
   LLVMValueRef px = vec ? ci(f, f->i64, pixel_bytes) : LLVMConstInt(f->i64, pixel_bytes, false);
   LLVMValueRef off = LLVMBuildMul(b, LLVMBuildSExt(b, y, i64, ""), rp, "");
   off = LLVMBuildAdd(b, off, LLVMBuildMul(b, LLVMBuildSExt(b, x, i64, ""), px, ""), "");
   off = LLVMBuildAdd(b, off, lo, "");
   return LLVMBuildGEP2(b, f->i8, t->base, &off, 1, "");
}

/* ---- Lanes addressed one by one ----
 * Both kinds of routine can read and write each lane's whole pixel (all
 * its samples) with one plain load and store, a lane without coverage
 * pointed at a scratch pixel of the routine's own (its coordinates may be
 * anything): no masked gathers and scatters, whose masks x86 turns into a
 * branch per lane. The values are lane-major vectors: lane i's k elements
 * at i * k ... i * k + k - 1. */

/* Constant i32 vector of n indices: first + i * step. */
static inline LLVMValueRef fb_index_vector(struct fb *f, uint32_t n, uint32_t first, uint32_t step)
{
   LLVMValueRef idx[512];
   for (uint32_t i = 0; i < n; i++)
      idx[i] = LLVMConstInt(f->i32, first + i * step, false);
   return LLVMConstVector(idx, n);
}

/* n vectors of equal length (n a power of two) concatenated. */
static inline LLVMValueRef fb_concat(struct fb *f, LLVMValueRef *v, uint32_t n)
{
   uint32_t len = LLVMGetVectorSize(LLVMTypeOf(v[0]));
   for (; n > 1; n /= 2, len *= 2)
      for (uint32_t i = 0; i < n / 2; i++)
         v[i] = LLVMBuildShuffleVector(f->b, v[2 * i], v[2 * i + 1],
                                       fb_index_vector(f, 2 * len, 0, 1), "");
   return v[0];
}

/* A lane array of the caller's (x, y, coverage: W 32-bit words at p) as
 * <W x i32>, loaded four lanes (16 bytes) at a time: the tile loop
 * stores these arrays a quad (16 bytes) at a time just before the call,
 * and a wider load would wait for those stores to reach the cache where
 * these take the stored values. Volatile, so that LLVM does not merge
 * them into one wide load. */
static inline LLVMValueRef fb_load_lanes4(struct fb *f, LLVMValueRef p, uint32_t W)
{
   LLVMTypeRef v4 = LLVMVectorType(f->i32, 4);
   LLVMValueRef parts[SHALE_MAX_SIMD_WIDTH / 4] = {NULL};
   for (uint32_t k = 0; k < W / 4; k++) {
      LLVMValueRef o = LLVMConstInt(f->i64, 4 * k, false);
      parts[k] = LLVMBuildLoad2(f->b, v4, LLVMBuildGEP2(f->b, f->i32, p, &o, 1, ""), "");
      LLVMSetAlignment(parts[k], 4);
      LLVMSetVolatile(parts[k], 1);
   }
   return fb_concat(f, parts, W / 4);
}

/* Lane i's k elements of type et at p[i], for lanes 0 .. n - 1 (n a
 * power of two): <n * k x et>, lane-major. */
static inline LLVMValueRef fb_lanes_load(struct fb *f, const LLVMValueRef *p, uint32_t n,
                                         LLVMTypeRef et, uint32_t k)
{
   LLVMValueRef parts[SHALE_MAX_SIMD_WIDTH] = {NULL};
   LLVMTypeRef lt = LLVMVectorType(et, k);
   for (uint32_t i = 0; i < n; i++) {
      parts[i] = LLVMBuildLoad2(f->b, lt, p[i], "");
      LLVMSetAlignment(parts[i], 1);
   }
   return fb_concat(f, parts, n);
}

/* The inverse: lane i's k elements of lane-major v stored at p[i]. */
static inline void fb_lanes_store(struct fb *f, const LLVMValueRef *p, uint32_t n, LLVMValueRef v,
                                  uint32_t k)
{
   for (uint32_t i = 0; i < n; i++) {
      LLVMValueRef part =
         k == 1 ? LLVMBuildExtractElement(f->b, v, LLVMConstInt(f->i32, i, false), "")
                : LLVMBuildShuffleVector(f->b, v, LLVMGetUndef(LLVMTypeOf(v)),
                                         fb_index_vector(f, k, i * k, 1), "");
      LLVMValueRef st = LLVMBuildStore(f->b, part, p[i]);
      LLVMSetAlignment(st, 1);
   }
}

/* Element j of every lane of lane-major v (k elements a lane): <n x et>. */
static inline LLVMValueRef fb_lanes_pick(struct fb *f, LLVMValueRef v, uint32_t n, uint32_t k,
                                         uint32_t j)
{
   if (k == 1)
      return v;
   return LLVMBuildShuffleVector(f->b, v, LLVMGetUndef(LLVMTypeOf(v)),
                                 fb_index_vector(f, n, j, k), "");
}

/* The inverse: k vectors of n lanes (k a power of two) as one lane-major
 * vector, lane i's element j from v[j]. */
static inline LLVMValueRef fb_lanes_interleave(struct fb *f, LLVMValueRef *v, uint32_t n,
                                               uint32_t k)
{
   if (k == 1)
      return v[0];
   /* Padded to a power of two with undefined vectors. */
   LLVMValueRef parts[64] = {NULL};
   uint32_t k2 = 1;
   while (k2 < k)
      k2 *= 2;
   for (uint32_t j = 0; j < k2; j++)
      parts[j] = j < k ? v[j] : LLVMGetUndef(LLVMTypeOf(v[0]));
   LLVMValueRef all = fb_concat(f, parts, k2);   /* element j * n + i */
   LLVMValueRef idx[512];
   for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; j < k; j++)
         idx[i * k + j] = LLVMConstInt(f->i32, j * n + i, false);
   return LLVMBuildShuffleVector(f->b, all, LLVMGetUndef(LLVMTypeOf(all)),
                                 LLVMConstVector(idx, n * k), "");
}

#endif
