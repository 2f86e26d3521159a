/*
 * llvm_backend: the fragment back end's routines (src/rasterizer/sr_raster.h,
 * "The fragment back end"; shader_abi.h shale_fb_color_fn): LLVM IR built
 * straight from a struct shale_fb_key, every format, factor, op and mask a
 * constant, over W-lane vectors. Each step mirrors the C reference
 * (src/rasterizer/sr_fragment.c) operation for operation, in IEEE float
 * without fast-math flags, so the results are bit-identical to it
 * (tests/unit/test_fragment_backend.c checks). Workload: once per key per
 * compiler (sc_compile_fragment_backend caches the routines).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "llvm_backend.h"

enum fb_kind { FB_UNORM8, FB_SRGB8, FB_F16X4, FB_F32X4 };

/* The formats this slice compiles: kind, texel size, byte of each channel
 * (8-bit kinds). */
static bool fb_format(uint32_t format, enum fb_kind *kind, uint32_t *size, uint8_t byte_of[4])
{
   static const uint8_t rgba[4] = { 0, 1, 2, 3 }, bgra[4] = { 2, 1, 0, 3 };
   switch (format) {
   case VK_FORMAT_R8G8B8A8_UNORM: *kind = FB_UNORM8; memcpy(byte_of, rgba, 4); break;
   case VK_FORMAT_R8G8B8A8_SRGB: *kind = FB_SRGB8; memcpy(byte_of, rgba, 4); break;
   case VK_FORMAT_B8G8R8A8_UNORM: *kind = FB_UNORM8; memcpy(byte_of, bgra, 4); break;
   case VK_FORMAT_B8G8R8A8_SRGB: *kind = FB_SRGB8; memcpy(byte_of, bgra, 4); break;
   case VK_FORMAT_R16G16B16A16_SFLOAT: *kind = FB_F16X4; *size = 8; return true;
   case VK_FORMAT_R32G32B32A32_SFLOAT: *kind = FB_F32X4; *size = 16; return true;
   default: return false;
   }
   *size = 4;
   return true;
}

bool sc_backend_supported(const struct shale_fb_key *key)
{
   if (key->width != 4 && key->width != 8 && key->width != 16)
      return false;
   if (key->samples < 1 || key->samples > 32 || key->color_count > SHALE_FB_MAX_COLOR)
      return false;
   for (uint32_t a = 0; a < key->color_count; a++) {
      const struct shale_fb_attachment *k = &key->color[a];
      enum fb_kind kind;
      uint32_t size;
      uint8_t byte_of[4];
      if (!k->format)
         continue;
      if (k->logic_op || !fb_format(k->format, &kind, &size, byte_of))
         return false;
      const uint32_t f[4] = { k->src_color, k->dst_color, k->src_alpha, k->dst_alpha };
      for (int i = 0; i < 4 && k->blend; i++)
         if (f[i] > VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA)
            return false;
      if (k->blend && (k->color_op > VK_BLEND_OP_MAX || k->alpha_op > VK_BLEND_OP_MAX))
         return false;
   }
   return true;
}

/* C's clampf: v < lo ? lo : v > hi ? hi : v (NaN stays). */
static LLVMValueRef clampv(struct fb *f, LLVMValueRef v, float lo, float hi)
{
   LLVMValueRef l = cf(f, lo), h = cf(f, hi);
   LLVMValueRef r = LLVMBuildSelect(f->b, LLVMBuildFCmp(f->b, LLVMRealOGT, v, h, ""), h, v, "");
   return LLVMBuildSelect(f->b, LLVMBuildFCmp(f->b, LLVMRealOLT, v, l, ""), l, r, "");
}

/* fminf / fmaxf as the C reference gets them (glibc on x86-64): x when
 * x <= y (min) or x >= y (max), else y, when neither is NaN; a signaling
 * NaN operand gives that NaN made quiet, a quiet one the other operand;
 * two NaNs give y made quiet. */
static LLVMValueRef fminmax(struct fb *f, LLVMValueRef x, LLVMValueRef y, bool max)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef quiet_bit = ci(f, f->i32, 0x400000);
   LLVMValueRef xi = LLVMBuildBitCast(b, x, f->vi32, ""), yi = LLVMBuildBitCast(b, y, f->vi32, "");
   LLVMValueRef qx = LLVMBuildBitCast(b, LLVMBuildOr(b, xi, quiet_bit, ""), f->vf, "");
   LLVMValueRef qy = LLVMBuildBitCast(b, LLVMBuildOr(b, yi, quiet_bit, ""), f->vf, "");
   LLVMValueRef xn = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
   LLVMValueRef yn = LLVMBuildFCmp(b, LLVMRealUNO, y, y, "");
   LLVMValueRef zero = ci(f, f->i32, 0);
   LLVMValueRef sx = LLVMBuildAnd(b, xn, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, xi, quiet_bit, ""), zero, ""), "");
   LLVMValueRef sy = LLVMBuildAnd(b, yn, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, yi, quiet_bit, ""), zero, ""), "");
   LLVMValueRef keep_x = LLVMBuildFCmp(b, max ? LLVMRealOGE : LLVMRealOLE, x, y, "");
   LLVMValueRef ordered = LLVMBuildSelect(b, keep_x, x, y, "");
   LLVMValueRef x_nan = LLVMBuildSelect(b, sx, qx, y, "");       /* y is a number */
   LLVMValueRef y_nan = LLVMBuildSelect(b, xn, qy, LLVMBuildSelect(b, sy, qy, x, ""), "");
   return LLVMBuildSelect(b, yn, y_nan, LLVMBuildSelect(b, xn, x_nan, ordered, ""), "");
}

/* sr_blend_factor of factor k for component c. */
static LLVMValueRef blend_factor(struct fb *f, uint32_t k, int c, LLVMValueRef src[4],
                                 LLVMValueRef src1[4], LLVMValueRef dst[4], LLVMValueRef kc[4])
{
   LLVMValueRef one = cf(f, 1.0f);
   LLVMValueRef v = NULL;
   bool inv = false;
   switch (k) {
   case VK_BLEND_FACTOR_ZERO: return cf(f, 0.0f);
   case VK_BLEND_FACTOR_ONE: return one;
   case VK_BLEND_FACTOR_SRC_ALPHA_SATURATE:
      if (c == 3)
         return one;
      return fminmax(f, src[3], LLVMBuildFSub(f->b, one, dst[3], ""), false);
   case VK_BLEND_FACTOR_SRC_COLOR: v = src[c]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR: v = src[c], inv = true; break;
   case VK_BLEND_FACTOR_DST_COLOR: v = dst[c]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR: v = dst[c], inv = true; break;
   case VK_BLEND_FACTOR_SRC_ALPHA: v = src[3]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA: v = src[3], inv = true; break;
   case VK_BLEND_FACTOR_DST_ALPHA: v = dst[3]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA: v = dst[3], inv = true; break;
   case VK_BLEND_FACTOR_CONSTANT_COLOR: v = kc[c]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR: v = kc[c], inv = true; break;
   case VK_BLEND_FACTOR_CONSTANT_ALPHA: v = kc[3]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA: v = kc[3], inv = true; break;
   case VK_BLEND_FACTOR_SRC1_COLOR: v = src1[c]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_COLOR: v = src1[c], inv = true; break;
   case VK_BLEND_FACTOR_SRC1_ALPHA: v = src1[3]; break;
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA: v = src1[3], inv = true; break;
   default: return cf(f, 0.0f);
   }
   return inv ? LLVMBuildFSub(f->b, one, v, "") : v;
}

static LLVMValueRef blend_op(struct fb *f, uint32_t op, LLVMValueRef s, LLVMValueRef sf,
                             LLVMValueRef d, LLVMValueRef df)
{
   LLVMBuilderRef b = f->b;
   switch (op) {
   case VK_BLEND_OP_ADD:
      return LLVMBuildFAdd(b, LLVMBuildFMul(b, s, sf, ""), LLVMBuildFMul(b, d, df, ""), "");
   case VK_BLEND_OP_SUBTRACT:
      return LLVMBuildFSub(b, LLVMBuildFMul(b, s, sf, ""), LLVMBuildFMul(b, d, df, ""), "");
   case VK_BLEND_OP_REVERSE_SUBTRACT:
      return LLVMBuildFSub(b, LLVMBuildFMul(b, d, df, ""), LLVMBuildFMul(b, s, sf, ""), "");
   case VK_BLEND_OP_MIN: return fminmax(f, s, d, false);
   case VK_BLEND_OP_MAX: return fminmax(f, s, d, true);
   default: return s;
   }
}

/* su_pack_float's 8-bit UNORM rounding (sr_fragment.c unorm8), as i32. */
static LLVMValueRef unorm8(struct fb *f, LLVMValueRef v)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef d = LLVMBuildFPExt(b, v, f->vd, "");
   d = LLVMBuildFMul(b, d, splat(f, LLVMConstReal(f->f64, 255.0)), "");
   d = LLVMBuildFAdd(b, d, splat(f, LLVMConstReal(f->f64, 0.5)), "");
   LLVMValueRef r = LLVMBuildFPToSI(b, d, f->vi32, "");
   r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, cf(f, 1.0f), ""), ci(f, f->i32, 255),
                       r, "");
   return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULE, v, cf(f, 0.0f), ""),
                          ci(f, f->i32, 0), r, "");
}

/* sr_srgb8_encode: the number of thresholds at or below v (a branchless
 * search of the sorted table), 0 unless v > 0. */
static LLVMValueRef srgb8(struct fb *f, LLVMValueRef v)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef pos = ci(f, f->i32, 0);
   LLVMValueRef all = ci(f, f->i1, 1);
   for (uint32_t step = 128; step; step >>= 1) {
      LLVMValueRef idx = LLVMBuildAdd(b, pos, ci(f, f->i32, step - 1), "");
      LLVMValueRef p = LLVMBuildGEP2(b, f->f32, f->srgb_thresholds, &idx, 1, "");
      LLVMValueRef t = gather(f, f->vf, p, 4, all);
      LLVMValueRef le = LLVMBuildFCmp(b, LLVMRealOLE, t, v, "");
      pos = LLVMBuildSelect(b, le, LLVMBuildAdd(b, pos, ci(f, f->i32, step), ""), pos, "");
   }
   return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULE, v, cf(f, 0.0f), ""),
                          ci(f, f->i32, 0), pos, "");
}

/* A texel's value as stored: one word (8-bit kinds: i32; F16X4: i64) or
 * four channel words (F32X4). */
struct texel {
   LLVMValueRef w;
   LLVMValueRef ch[4];
};

static void pack(struct fb *f, enum fb_kind kind, const uint8_t byte_of[4], LLVMValueRef v[4],
                 LLVMValueRef vi[4], struct texel *t)
{
   LLVMBuilderRef b = f->b;
   switch (kind) {
   case FB_UNORM8:
   case FB_SRGB8:
      t->w = ci(f, f->i32, 0);
      for (int c = 0; c < 4; c++) {
         LLVMValueRef x = kind == FB_SRGB8 && c < 3 ? srgb8(f, v[c]) : unorm8(f, v[c]);
         x = LLVMBuildShl(b, x, ci(f, f->i32, 8u * byte_of[c]), "");
         t->w = LLVMBuildOr(b, t->w, x, "");
      }
      return;
   case FB_F16X4:
      t->w = ci(f, f->i64, 0);
      for (int c = 0; c < 4; c++) {
         LLVMValueRef h = LLVMBuildFPTrunc(b, v[c], f->vh, "");
         h = LLVMBuildZExt(b, LLVMBuildBitCast(b, h, f->vi16, ""), f->vi64, "");
         h = LLVMBuildShl(b, h, ci(f, f->i64, 16u * c), "");
         t->w = LLVMBuildOr(b, t->w, h, "");
      }
      return;
   case FB_F32X4:
      for (int c = 0; c < 4; c++)
         t->ch[c] = vi ? vi[c] : LLVMBuildBitCast(b, v[c], f->vi32, "");
      return;
   }
}

static void load_texel(struct fb *f, enum fb_kind kind, LLVMValueRef ptrs, LLVMValueRef m,
                       struct texel *t)
{
   switch (kind) {
   case FB_UNORM8:
   case FB_SRGB8: t->w = gather(f, f->vi32, ptrs, 1, m); return;
   case FB_F16X4: t->w = gather(f, f->vi64, ptrs, 2, m); return;
   case FB_F32X4:
      for (int c = 0; c < 4; c++)
         t->ch[c] = gather(f, f->vi32, ptrs_at(f, ptrs, 4u * c), 4, m);
      return;
   }
}

/* The blend's destination colour, decoded like sr_fragment.c does. */
static void decode(struct fb *f, enum fb_kind kind, const uint8_t byte_of[4],
                   const struct texel *t, LLVMValueRef m, LLVMValueRef out[4])
{
   LLVMBuilderRef b = f->b;
   for (int c = 0; c < 4; c++) {
      switch (kind) {
      case FB_UNORM8:
      case FB_SRGB8: {
         LLVMValueRef x = LLVMBuildLShr(b, t->w, ci(f, f->i32, 8u * byte_of[c]), "");
         x = LLVMBuildAnd(b, x, ci(f, f->i32, 0xff), "");
         if (kind == FB_SRGB8 && c < 3) {
            LLVMValueRef p = LLVMBuildGEP2(b, f->f32, f->srgb_decode, &x, 1, "");
            out[c] = gather(f, f->vf, p, 4, m);
         } else {
            out[c] = LLVMBuildFDiv(b, LLVMBuildUIToFP(b, x, f->vf, ""), cf(f, 255.0f), "");
         }
         break;
      }
      case FB_F16X4: {
         LLVMValueRef x = LLVMBuildLShr(b, t->w, ci(f, f->i64, 16u * c), "");
         x = LLVMBuildBitCast(b, LLVMBuildTrunc(b, x, f->vi16, ""), f->vh, "");
         x = LLVMBuildFPExt(b, x, f->vf, "");
         /* su_half_to_float makes NaNs quiet. */
         LLVMValueRef q = LLVMBuildOr(b, LLVMBuildBitCast(b, x, f->vi32, ""),
                                      ci(f, f->i32, 0x400000), "");
         out[c] = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""),
                                  LLVMBuildBitCast(b, q, f->vf, ""), x, "");
         break;
      }
      case FB_F32X4:
         out[c] = LLVMBuildBitCast(b, t->ch[c], f->vf, "");
         break;
      }
   }
}

static void emit_attachment(struct fb *f, const struct shale_fb_key *key, uint32_t a)
{
   LLVMBuilderRef b = f->b;
   const struct shale_fb_attachment *k = &key->color[a];
   enum fb_kind kind;
   uint32_t size;
   uint8_t byte_of[4] = { 0, 0, 0, 0 };
   fb_format(k->format, &kind, &size, byte_of);
   const uint32_t W = f->W, S = key->samples;
   const bool clamp = kind == FB_UNORM8 || kind == FB_SRGB8;
   const size_t tgt = offsetof(struct shale_fb_context, color) + a * sizeof(struct shale_fb_target);

   LLVMValueRef base = ctx_load(f, f->ptr, tgt + offsetof(struct shale_fb_target, base));
   LLVMValueRef rp = ctx_load(f, f->i64, tgt + offsetof(struct shale_fb_target, row_pitch));
   LLVMValueRef lp = ctx_load(f, f->i64, tgt + offsetof(struct shale_fb_target, layer_pitch));

   /* The shader's outputs (and Location 0 Index 1 for dual-source). */
   LLVMValueRef srci[4], src[4], src1[4] = { NULL, NULL, NULL, NULL }, kc[4];
   for (int c = 0; c < 4; c++) {
      LLVMValueRef o = LLVMConstInt(f->i64, (uint64_t)(a * 4 + c) * W * 4, false);
      LLVMValueRef p = LLVMBuildGEP2(b, f->i8, f->outputs, &o, 1, "");
      LLVMValueRef l = LLVMBuildLoad2(b, f->vi32, p, "");
      LLVMSetAlignment(l, 4);
      srci[c] = l;
      src[c] = LLVMBuildBitCast(b, l, f->vf, "");
   }
   if (key->alpha_to_one) {
      src[3] = cf(f, 1.0f);
      srci[3] = LLVMBuildBitCast(b, src[3], f->vi32, "");
   }
   const uint32_t fac[4] = { k->src_color, k->dst_color, k->src_alpha, k->dst_alpha };
   bool dual = false;
   for (int i = 0; i < 4; i++)
      dual |= fac[i] >= VK_BLEND_FACTOR_SRC1_COLOR && fac[i] <= VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA;
   if (k->blend) {
      for (int c = 0; c < 4; c++) {
         if (dual) {
            LLVMValueRef o = LLVMConstInt(f->i64,
               (uint64_t)((SHALE_FS_OUTPUT_LOCATIONS - 1) * 4 + c) * W * 4, false);
            LLVMValueRef p = LLVMBuildGEP2(b, f->i8, f->outputs, &o, 1, "");
            LLVMValueRef l = LLVMBuildLoad2(b, f->vi32, p, "");
            LLVMSetAlignment(l, 4);
            src1[c] = LLVMBuildBitCast(b, l, f->vf, "");
         } else {
            src1[c] = cf(f, 0.0f);
         }
         if (clamp) {
            src[c] = clampv(f, src[c], 0.0f, 1.0f);
            src1[c] = clampv(f, src1[c], 0.0f, 1.0f);
         }
         kc[c] = splat(f, ctx_load(f, f->f32, tgt + offsetof(struct shale_fb_target, constants) +
                                                 4u * c));
      }
   }

   /* Pixel addresses of sample 0. */
   LLVMValueRef loff = LLVMBuildMul(b, LLVMBuildZExt(b, f->layer, f->i64, ""), lp, "");
   LLVMValueRef off = LLVMBuildMul(b, LLVMBuildSExt(b, f->ys, f->vi64, ""), splat(f, rp), "");
   off = LLVMBuildAdd(b, off, LLVMBuildMul(b, LLVMBuildSExt(b, f->xs, f->vi64, ""),
                                           ci(f, f->i64, (uint64_t)S * size), ""), "");
   off = LLVMBuildAdd(b, off, splat(f, loff), "");
   LLVMValueRef pix = LLVMBuildGEP2(b, f->i8, base, &off, 1, "");

   const uint32_t wm = k->write_mask & 0xf;
   const bool full = wm == 0xf;
   uint64_t wbits = 0;
   for (int c = 0; c < 4; c++)
      if (wm & (1u << c))
         wbits |= kind == FB_F16X4 ? (uint64_t)0xffff << (16 * c) : (uint64_t)0xff << (8 * byte_of[c]);

   struct texel packed;
   if (!k->blend)
      pack(f, kind, byte_of, src, srci, &packed);

   for (uint32_t s = 0; s < S; s++) {
      LLVMValueRef m = LLVMBuildAnd(b, LLVMBuildLShr(b, f->cov, ci(f, f->i32, s), ""),
                                    ci(f, f->i32, 1), "");
      m = LLVMBuildICmp(b, LLVMIntNE, m, ci(f, f->i32, 0), "");
      LLVMValueRef ptrs = ptrs_at(f, pix, (uint64_t)s * size);
      struct texel dst, val;
      bool have_dst = false;
      if (k->blend) {
         load_texel(f, kind, ptrs, m, &dst);
         have_dst = true;
         LLVMValueRef dv[4], sf[4], df[4], out[4];
         decode(f, kind, byte_of, &dst, m, dv);
         for (int c = 0; c < 4; c++) {
            sf[c] = blend_factor(f, c < 3 ? k->src_color : k->src_alpha, c, src, src1, dv, kc);
            df[c] = blend_factor(f, c < 3 ? k->dst_color : k->dst_alpha, c, src, src1, dv, kc);
         }
         for (int c = 0; c < 4; c++)
            out[c] = blend_op(f, c < 3 ? k->color_op : k->alpha_op, src[c], sf[c], dv[c], df[c]);
         pack(f, kind, byte_of, out, NULL, &val);
      } else {
         val = packed;
      }
      if (kind == FB_F32X4) {
         for (int c = 0; c < 4; c++)
            if (wm & (1u << c))
               scatter(f, val.ch[c], ptrs_at(f, ptrs, 4u * c), 4, m);
         continue;
      }
      LLVMTypeRef wt = kind == FB_F16X4 ? f->i64 : f->i32;
      unsigned align = kind == FB_F16X4 ? 2 : 1;
      if (!full) {
         if (!have_dst)
            load_texel(f, kind, ptrs, m, &dst);
         LLVMValueRef keep = LLVMBuildAnd(b, dst.w, ci(f, wt, ~wbits), "");
         val.w = LLVMBuildOr(b, LLVMBuildAnd(b, val.w, ci(f, wt, wbits), ""), keep, "");
      }
      scatter(f, val.w, ptrs, align, m);
   }
}

enum sc_result sc_backend_build(LLVMContextRef ctx, LLVMModuleRef mod,
                                const struct shale_fb_key *key, const char *symbol,
                                char *message, size_t message_size)
{
   if (!sc_backend_supported(key)) {
      if (message && message_size)
         snprintf(message, message_size, "fragment back end: state not compiled yet");
      return SC_ERROR_UNSUPPORTED;
   }
   struct fb f = { .ctx = ctx, .mod = mod, .W = key->width };
   fb_types(&f);

   LLVMTypeRef params[6] = { f.ptr, f.i32, f.ptr, f.ptr, f.ptr, f.ptr };
   LLVMTypeRef fnty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 6, false);
   LLVMValueRef fn = LLVMAddFunction(mod, symbol, fnty);
   unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, nounwind, 0));
   f.b = LLVMCreateBuilderInContext(ctx);
   LLVMPositionBuilderAtEnd(f.b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
   f.ctxp = LLVMGetParam(fn, 0);
   f.layer = LLVMGetParam(fn, 1);
   LLVMValueRef lanes[3];
   for (int i = 0; i < 3; i++) {
      lanes[i] = LLVMBuildLoad2(f.b, f.vi32, LLVMGetParam(fn, 2 + (unsigned)i), "");
      LLVMSetAlignment(lanes[i], 4);
   }
   f.xs = lanes[0];
   f.ys = lanes[1];
   f.cov = lanes[2];
   f.outputs = LLVMGetParam(fn, 5);
   f.srgb_thresholds = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_thresholds));
   f.srgb_decode = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_decode));

   for (uint32_t a = 0; a < key->color_count; a++)
      if (key->color[a].format)
         emit_attachment(&f, key, a);
   LLVMBuildRetVoid(f.b);
   LLVMDisposeBuilder(f.b);
   return SC_SUCCESS;
}
