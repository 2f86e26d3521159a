/*
 * llvm_backend: what the fragment back end's builders share (llvm_backend.c:
 * colour, llvm_backend_ds.c: depth/stencil): the builder state over W-lane
 * vectors and small IR helpers. Private to src/compiler.
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
   LLVMValueRef srgb_thresholds, srgb_decode;
};

static inline LLVMValueRef call_intrinsic(struct fb *f, const char *name, LLVMTypeRef *ov,
                                          unsigned nov, LLVMValueRef *args, unsigned nargs)
{
   unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
   LLVMValueRef decl = LLVMGetIntrinsicDeclaration(f->mod, id, ov, nov);
   LLVMTypeRef fnty = LLVMIntrinsicGetType(f->ctx, id, ov, nov);
   return LLVMBuildCall2(f->b, fnty, decl, args, nargs, "");
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

#endif
