/*
 * llvm_backend: the fragment back end's routines (src/rasterizer/sr_raster.h,
 * "The fragment back end"; shader_abi.h shale_fb_color_fn): LLVM IR built
 * straight from a struct shale_fb_key, every format, factor, op, logic op
 * and mask a constant, over W-lane vectors. Formats other than the 8-bit
 * RGBA / BGRA and R16G16B16A16_SFLOAT ones are described from su_format:
 * one word with a field per channel (found by packing probes, as
 * sr_fragment.c finds its write masks; 3- and 6-byte texels read and
 * written in three pieces; B10G11R11's unsigned floats encoded as
 * su_format does), bytes of 8-bit sRGB channels, or 32-bit channels.
 * Texels other than 3- and 6-byte ones are read and written a lane's
 * pixel at a time (llvm_backend.h, "Lanes addressed one by one"), or,
 * where the caller promises the quads of a block side by side
 * (shale_fb_color_fn's `rows`: sr_tile.c's layout, every sample of every
 * lane covered), a row of pixels at a time (the rows form: the routine
 * branches on the promise once and each branch has its own copy of the
 * whole work; the rows copy reads no lane arrays but x[0] and y[0], and
 * with several samples and nothing to read, writes without reading; where
 * it reads, it prefetches each row's next cache line within the caller's
 * 64-pixel tile, for writing); 3- and 6-byte texels
 * and pixels of more than 16 words go through masked gathers and
 * scatters, a sample at a time. Each step
 * mirrors the C reference
 * (src/rasterizer/sr_fragment.c) operation for operation, in IEEE float
 * without fast-math flags, so the results are bit-identical to it
 * (tests/unit/test_fragment_backend.c checks); blending into 8-bit UNORM
 * channels runs in the destination's scale, one rounding to nearest even
 * at the end (sr_blend_unorm8's operations; the test also holds it to
 * exact arithmetic). Workload: once per key per
 * compiler (sc_compile_fragment_backend caches the routines).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "llvm_backend.h"
#include "util/su_format.h"

enum fb_kind {
   FB_UNORM8,   /* four 8-bit UNORM channels (byte_of) */
   FB_SRGB8,    /* nch 8-bit sRGB channels, alpha linear (byte_of; 1 to 4 bytes) */
   FB_F16X4,    /* R16G16B16A16_SFLOAT */
   FB_CH32,     /* nch 32-bit channels in RGBA order: float, uint or sint bits */
   FB_WORD,     /* one texel of 1, 2, 3, 4, 6 or 8 bytes read as a little-endian
                 * word, channel c at shift[c], bits[c] wide */
};

/* A colour format as the routine packs it. */
struct fb_fmt {
   enum fb_kind kind;
   uint32_t size;                   /* texel bytes */
   uint32_t nch;                    /* channels present */
   enum su_numeric_class cls;
   enum su_format_kind ckind;       /* FB_WORD: UNORM, SNORM, SFLOAT (16-bit), UINT, SINT,
                                     * UFLOAT (B10G11R11's 11- and 10-bit floats) */
   uint8_t byte_of[4];              /* 8-bit kinds */
   uint8_t shift[4], bits[4];       /* FB_WORD */
};

/* The bits channel c of d occupies in a texel of up to 8 bytes, found by
 * packing probes through su_format (as sr_fragment.c's write masks are). */
static uint64_t channel_mask(const struct su_format_desc *d, int c)
{
   static const float probes[] = {1.0f, -1.0f, -1.5f, 65504.0f, 65024.0f, 64512.0f, INFINITY,
                                  -INFINITY};
   uint64_t m = 0;
   enum su_numeric_class cls = su_format_class(d);
   for (unsigned p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
      uint64_t t = 0;
      if (cls == SU_CLASS_UINT) {
         uint32_t v[4] = {0, 0, 0, 0};
         v[c] = ~0u;
         su_pack_uint(d, v, &t);
      } else if (cls == SU_CLASS_SINT) {
         int32_t v[4] = {0, 0, 0, 0};
         v[c] = -1;
         su_pack_sint(d, v, &t);
      } else {
         float v[4] = {0, 0, 0, 0};
         v[c] = probes[p];
         su_pack_float(d, v, &t);
      }
      m |= t;
   }
   return m;
}

/* The formats compiled: false for the others (the C back end runs). */
static bool fb_format(uint32_t format, struct fb_fmt *ff)
{
   static const uint8_t rgba[4] = {0, 1, 2, 3}, bgra[4] = {2, 1, 0, 3};
   memset(ff, 0, sizeof(*ff));
   ff->cls = SU_CLASS_FLOAT;
   ff->nch = 4;
   switch (format) {
   case VK_FORMAT_R8G8B8A8_UNORM: ff->kind = FB_UNORM8; memcpy(ff->byte_of, rgba, 4); break;
   case VK_FORMAT_R8G8B8A8_SRGB: ff->kind = FB_SRGB8; memcpy(ff->byte_of, rgba, 4); break;
   case VK_FORMAT_B8G8R8A8_UNORM: ff->kind = FB_UNORM8; memcpy(ff->byte_of, bgra, 4); break;
   case VK_FORMAT_B8G8R8A8_SRGB: ff->kind = FB_SRGB8; memcpy(ff->byte_of, bgra, 4); break;
   case VK_FORMAT_R16G16B16A16_SFLOAT: ff->kind = FB_F16X4; ff->size = 8; return true;
   default: {
      const struct su_format_desc *d = su_format_desc((VkFormat)format);
      if (!d || d->aspects != VK_IMAGE_ASPECT_COLOR_BIT || d->block_width != 1 || d->scaled ||
          !d->num_channels)
         return false;
      ff->nch = d->num_channels;
      ff->cls = su_format_class(d);
      ff->size = d->block_size;
      ff->ckind = d->kind;
      if (d->kind == SU_KIND_SRGB) {
         /* 8-bit channels, a byte each (what sr_fragment.c packs with its
          * sRGB table): the byte of each channel found by a probe. */
         if (d->block_size != ff->nch)
            return false;
         for (uint32_t c = 0; c < ff->nch; c++) {
            if (d->bits[c] != 8)
               return false;
            float v[4] = {0, 0, 0, 0};
            uint8_t t[8] = {0};
            v[c] = 1.0f;
            su_pack_float(d, v, t);
            ff->byte_of[c] = 0xff;
            for (uint32_t i = 0; i < d->block_size; i++)
               if (t[i] == 0xff)
                  ff->byte_of[c] = (uint8_t)i;
            if (ff->byte_of[c] == 0xff)
               return false;
         }
         ff->kind = FB_SRGB8;
         return true;
      }
      bool all32 = true, small = true;
      for (uint32_t c = 0; c < ff->nch; c++) {
         all32 &= d->bits[c] == 32;
         small &= d->bits[c] && d->bits[c] <= 16;
      }
      if (all32 && d->block_size == 4 * ff->nch &&
          (d->kind == SU_KIND_SFLOAT || d->kind == SU_KIND_UINT || d->kind == SU_KIND_SINT)) {
         ff->kind = FB_CH32;
         return true;
      }
      if (!small || (d->block_size != 1 && d->block_size != 2 && d->block_size != 3 &&
                     d->block_size != 4 && d->block_size != 6 && d->block_size != 8))
         return false;
      if (d->kind != SU_KIND_UNORM && d->kind != SU_KIND_SNORM && d->kind != SU_KIND_UINT &&
          d->kind != SU_KIND_SINT && d->kind != SU_KIND_SFLOAT &&
          !(d->kind == SU_KIND_UFLOAT && format == VK_FORMAT_B10G11R11_UFLOAT_PACK32))
         return false;
      for (uint32_t c = 0; c < ff->nch; c++) {
         if (d->kind == SU_KIND_SFLOAT && d->bits[c] != 16)
            return false;
         uint64_t m = channel_mask(d, (int)c);
         if (!m)
            return false;
         ff->shift[c] = (uint8_t)__builtin_ctzll(m);
         ff->bits[c] = d->bits[c];
         if (m >> ff->shift[c] != (1ull << d->bits[c]) - 1)
            return false;   /* not one contiguous field */
      }
      ff->kind = FB_WORD;
      return true;
   }
   }
   ff->size = 4;
   return true;
}

bool sc_backend_supported(const struct shale_fb_key *key)
{
   if (!fb_key_shape_supported(key->width, key->samples) || key->color_count > SHALE_FB_MAX_COLOR)
      return false;
   for (uint32_t a = 0; a < key->color_count; a++) {
      const struct shale_fb_attachment *k = &key->color[a];
      struct fb_fmt ff;
      if (!k->format)
         continue;
      if (!fb_format(k->format, &ff) || k->logic_op > VK_LOGIC_OP_SET + 1)
         return false;
      /* Blending and logic ops only where sr_fragment_setup applies them. */
      if ((k->blend && ff.cls != SU_CLASS_FLOAT) ||
          (k->logic_op && ff.cls == SU_CLASS_FLOAT && ff.kind != FB_UNORM8 &&
           !(ff.kind == FB_WORD && (ff.ckind == SU_KIND_UNORM || ff.ckind == SU_KIND_SNORM))))
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

/* C's clampf: v < lo ? lo : v > hi ? hi : v (NaN stays), as
 * r = v > hi ? hi : v, then r < lo ? lo : r: the same value for every v
 * (lo <= hi; NaN and -0.0 kept), and each select compares the value it
 * picks from, which x86 does in one minps / maxps (whose NaN operand is
 * the second: r). */
static LLVMValueRef clampv(struct fb *f, LLVMValueRef v, float lo, float hi)
{
   LLVMValueRef l = cf(f, lo), h = cf(f, hi);
   LLVMValueRef r = LLVMBuildSelect(f->b, LLVMBuildFCmp(f->b, LLVMRealOGT, v, h, ""), h, v, "");
   return LLVMBuildSelect(f->b, LLVMBuildFCmp(f->b, LLVMRealOLT, r, l, ""), l, r, "");
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

/* Whether the host (the JIT's target) has fused multiply-add: the 8-bit
 * UNORM conversions below are exact with it, and a library call per
 * element without it. */
static bool host_fma(void)
{
#if defined(__x86_64__) || defined(__i386__)
   return __builtin_cpu_supports("fma");
#elif defined(__aarch64__)
   return true;
#else
   return false;
#endif
}

static LLVMValueRef fma3(struct fb *f, LLVMValueRef x, LLVMValueRef y, LLVMValueRef z)
{
   LLVMTypeRef ov = LLVMTypeOf(x);
   LLVMValueRef args[3] = { x, y, z };
   return call_intrinsic(f, "llvm.fma", &ov, 1, args, 3);
}

/* x / 255.0f (correctly rounded) of integers x in 0 .. 255, i32: with FMA
 * fma(x, hi, x * lo), hi = (float)(1 / 255) and lo = (float)(1 / 255 - hi)
 * (0x1.010102p-8f and -0x1.fdfdfep-33f), one rounding of x / 255 to within about
 * 2^-24 of an ulp, while x / 255 (x's bits repeating every 8 binary places)
 * lies at least about 2^-9 of an ulp from a rounding boundary: equal to
 * the division for each of the 256 values (test_fragment_backend.c checks
 * them all); a division otherwise. */
static LLVMValueRef unorm8_value(struct fb *f, LLVMValueRef x)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef xf = LLVMBuildUIToFP(b, x, f->vf, "");
   if (!host_fma())
      return LLVMBuildFDiv(b, xf, cf(f, 255.0f), "");
   LLVMValueRef t = LLVMBuildFMul(b, xf, cf(f, -0x1.fdfdfep-33f), "");
   return fma3(f, xf, cf(f, 0x1.010102p-8f), t);
}

/* su_pack_float's 8-bit UNORM rounding (sr_fragment.c unorm8), as i32:
 * 255 from 1.0 up, 0 for zero, negative numbers and NaN, and
 * floor((double)v * 255 + 0.5) between. With FMA in single precision: v
 * clamped to [0, 1] (NaN to 0: maxps / minps), y = fma(v, 255, 0.5)
 * rounded, its floor k, and k - 1 where the exact v * 255 + 0.5 - k (one
 * more fma, exact in sign) is negative (y rounded up onto k); the same
 * result for every float in [0, 1] (checked exhaustively). At 16 lanes
 * with AVX-512, floor_fma16 (the fma rounded down, truncated: two
 * instructions for the last five; the same results, also checked for
 * every float in [0, 1]). In double otherwise. */
static LLVMValueRef unorm8(struct fb *f, LLVMValueRef v)
{
   LLVMBuilderRef b = f->b;
   if (host_fma()) {
      LLVMTypeRef ov = f->vf;
      LLVMValueRef zero = cf(f, 0.0f), one = cf(f, 1.0f);
      v = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, v, zero, ""), v, zero, "");
      v = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, v, one, ""), v, one, "");
      LLVMValueRef r16 = floor_fma16(f, v, cf(f, 255.0f), cf(f, 0.5f));
      if (r16)
         return r16;
      LLVMValueRef y = fma3(f, v, cf(f, 255.0f), cf(f, 0.5f));
      LLVMValueRef k = call_intrinsic(f, "llvm.floor", &ov, 1, &y, 1);
      LLVMValueRef e = fma3(f, v, cf(f, 255.0f), LLVMBuildFSub(b, cf(f, 0.5f), k, ""));
      LLVMValueRef r = LLVMBuildFPToSI(b, k, f->vi32, "");
      return LLVMBuildSub(b, r, LLVMBuildZExt(b, LLVMBuildFCmp(b, LLVMRealOLT, e, zero, ""),
                                              f->vi32, ""), "");
   }
   LLVMValueRef d = LLVMBuildFPExt(b, v, f->vd, "");
   d = LLVMBuildFMul(b, d, splat(f, LLVMConstReal(f->f64, 255.0)), "");
   d = LLVMBuildFAdd(b, d, splat(f, LLVMConstReal(f->f64, 0.5)), "");
   LLVMValueRef r = LLVMBuildFPToSI(b, d, f->vi32, "");
   r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, cf(f, 1.0f), ""), ci(f, f->i32, 255),
                       r, "");
   return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULE, v, cf(f, 0.0f), ""),
                          ci(f, f->i32, 0), r, "");
}

/* sr_srgb8_encode: the number of thresholds at or below v, from the
 * count below v's bucket (shader_abi.h SHALE_SRGB8_BUCKET_FIRST) and the
 * one threshold that may lie in it; 255 from 1.0 up, 0 for smaller
 * buckets, zero, negative numbers and NaN. */
static LLVMValueRef srgb8(struct fb *f, LLVMValueRef v)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef all = ci(f, f->i1, 1);
   LLVMValueRef bits = LLVMBuildBitCast(b, v, f->vi32, "");
   LLVMValueRef first = ci(f, f->i32, SHALE_SRGB8_BUCKET_FIRST << 16);
   LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, bits, first, ""),
                                   ci(f, f->i32, SHALE_SRGB8_BUCKETS << 16), "");
   LLVMValueRef key = LLVMBuildLShr(b, LLVMBuildSub(b, bits, first, ""), ci(f, f->i32, 16), "");
   key = LLVMBuildSelect(b, in, key, ci(f, f->i32, 0), "");
   LLVMValueRef lo = gather(f, f->vi32, LLVMBuildGEP2(b, f->i32, f->srgb_buckets, &key, 1, ""), 4,
                            all);
   LLVMValueRef some = LLVMBuildICmp(b, LLVMIntULT, lo, ci(f, f->i32, 255), "");
   LLVMValueRef ti = LLVMBuildSelect(b, some, lo, ci(f, f->i32, 254), "");
   LLVMValueRef t = gather(f, f->vf, LLVMBuildGEP2(b, f->f32, f->srgb_thresholds, &ti, 1, ""), 4,
                           all);
   LLVMValueRef up = LLVMBuildAnd(b, some, LLVMBuildFCmp(b, LLVMRealOLE, t, v, ""), "");
   LLVMValueRef r = LLVMBuildAdd(b, lo, LLVMBuildZExt(b, up, f->vi32, ""), "");
   LLVMValueRef big = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, cf(f, 1.0f), ""),
                                      ci(f, f->i32, 255), ci(f, f->i32, 0), "");
   return LLVMBuildSelect(b, in, r, big, "");
}

/* A texel's value as stored: one word (8-bit kinds: i32; F16X4, FB_WORD:
 * i64) or one word per channel (FB_CH32: i32). */
struct texel {
   LLVMValueRef w;
   LLVMValueRef ch[4];
};

/* su_pack_float's UNORM rounding (float_to_unorm) for `bits` bits, i64. */
static LLVMValueRef unorm_n(struct fb *f, LLVMValueRef v, uint32_t bits)
{
   LLVMBuilderRef b = f->b;
   const uint64_t max = (1ull << bits) - 1;
   LLVMValueRef d = LLVMBuildFPExt(b, v, f->vd, "");
   d = LLVMBuildFMul(b, d, splat(f, LLVMConstReal(f->f64, (double)max)), "");
   d = LLVMBuildFAdd(b, d, splat(f, LLVMConstReal(f->f64, 0.5)), "");
   LLVMTypeRef ov = f->vd;
   d = call_intrinsic(f, "llvm.floor", &ov, 1, &d, 1);
   LLVMValueRef r = LLVMBuildFPToSI(b, d, f->vi64, "");
   r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, cf(f, 1.0f), ""), ci(f, f->i64, max),
                       r, "");
   return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealULE, v, cf(f, 0.0f), ""),
                          ci(f, f->i64, 0), r, "");
}

/* su_pack_float's SNORM rounding (float_to_snorm, half away from zero)
 * for `bits` bits, as the field's bits (i64). */
static LLVMValueRef snorm_n(struct fb *f, LLVMValueRef v, uint32_t bits)
{
   LLVMBuilderRef b = f->b;
   const double max = (double)((1ull << (bits - 1)) - 1);
   LLVMValueRef d = LLVMBuildFPExt(b, v, f->vd, "");
   LLVMTypeRef ov = f->vd;
   LLVMValueRef a = call_intrinsic(f, "llvm.fabs", &ov, 1, &d, 1);
   a = LLVMBuildFMul(b, a, splat(f, LLVMConstReal(f->f64, max)), "");
   a = LLVMBuildFAdd(b, a, splat(f, LLVMConstReal(f->f64, 0.5)), "");
   a = call_intrinsic(f, "llvm.floor", &ov, 1, &a, 1);
   LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, v, cf(f, 0.0f), "");
   a = LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, a, ""), a, "");
   a = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLE, v, cf(f, -1.0f), ""),
                       splat(f, LLVMConstReal(f->f64, -max)), a, "");
   a = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, cf(f, 1.0f), ""),
                       splat(f, LLVMConstReal(f->f64, max)), a, "");
   a = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, v, v, ""),
                       splat(f, LLVMConstReal(f->f64, 0.0)), a, "");
   LLVMValueRef r = LLVMBuildFPToSI(b, a, f->vi64, "");
   return LLVMBuildAnd(b, r, ci(f, f->i64, (1ull << bits) - 1), "");
}

/* float -> half bits (round to nearest even, as su_float_to_half), i64. */
static LLVMValueRef half_bits(struct fb *f, LLVMValueRef v)
{
   LLVMValueRef h = LLVMBuildFPTrunc(f->b, v, f->vh, "");
   return LLVMBuildZExt(f->b, LLVMBuildBitCast(f->b, h, f->vi16, ""), f->vi64, "");
}

/* su_half_to_float (NaNs made quiet) of the low 16 bits of an i64 vector. */
static LLVMValueRef half_value(struct fb *f, LLVMValueRef w)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef x = LLVMBuildBitCast(b, LLVMBuildTrunc(b, w, f->vi16, ""), f->vh, "");
   x = LLVMBuildFPExt(b, x, f->vf, "");
   LLVMValueRef q = LLVMBuildOr(b, LLVMBuildBitCast(b, x, f->vi32, ""), ci(f, f->i32, 0x400000), "");
   return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x, x, ""),
                          LLVMBuildBitCast(b, q, f->vf, ""), x, "");
}

/* su_format's float_to_ufloat: the unsigned 11-bit (mbits 6) or 10-bit
 * (mbits 5) float of v, rounded to nearest even, denormals produced,
 * overflow to Inf, negatives to 0, NaN a quiet NaN with the top payload
 * bits (encode_e5 step for step), as i32. */
static LLVMValueRef ufloat_bits(struct fb *f, LLVMValueRef v, uint32_t mbits)
{
   LLVMBuilderRef b = f->b;
   LLVMTypeRef t = f->i32;
   LLVMValueRef x = LLVMBuildBitCast(b, v, f->vi32, "");
   LLVMValueRef abs = LLVMBuildAnd(b, x, ci(f, t, 0x7fffffffu), "");
   LLVMValueRef frac = LLVMBuildAnd(b, abs, ci(f, t, 0x7fffffu), "");
   const uint32_t inf = 0x1fu << mbits;
   LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, abs, ci(f, t, 0x7f800000u), "");
   LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, x, ci(f, t, 0), "");
   LLVMValueRef nanv = LLVMBuildOr(b, ci(f, t, inf | (1u << (mbits - 1))),
                                   LLVMBuildLShr(b, frac, ci(f, t, 23 - mbits), ""), "");
   /* e = exponent - 127; normal when e >= -14 (biased exponent >= 113). */
   LLVMValueRef be = LLVMBuildLShr(b, abs, ci(f, t, 23), "");
   LLVMValueRef normal = LLVMBuildICmp(b, LLVMIntUGE, be, ci(f, t, 113), "");
   LLVMValueRef over = LLVMBuildICmp(b, LLVMIntUGT, be, ci(f, t, 127 + 15), "");
   /* Denormal shift: 23 - mbits + (-14 - e) = 23 - mbits + 113 - be. */
   LLVMValueRef dshift = LLVMBuildSub(b, ci(f, t, 23 - mbits + 113), be, "");
   LLVMValueRef tiny = LLVMBuildAnd(b, LLVMBuildNot(b, normal, ""),
                                    LLVMBuildICmp(b, LLVMIntUGT, dshift, ci(f, t, 24), ""), "");
   LLVMValueRef shift = LLVMBuildSelect(b, normal, ci(f, t, 23 - mbits),
                                        LLVMBuildSelect(b, tiny, ci(f, t, 24), dshift, ""), "");
   LLVMValueRef mant = LLVMBuildSelect(b, normal, frac,
                                       LLVMBuildOr(b, frac, ci(f, t, 0x800000u), ""), "");
   LLVMValueRef vv = LLVMBuildLShr(b, mant, shift, "");
   LLVMValueRef ebits = LLVMBuildShl(b, LLVMBuildSub(b, be, ci(f, t, 112), ""),
                                     ci(f, t, mbits), "");
   vv = LLVMBuildSelect(b, normal, LLVMBuildOr(b, ebits, vv, ""), vv, "");
   LLVMValueRef one = ci(f, t, 1);
   LLVMValueRef rem = LLVMBuildAnd(b, mant,
                                   LLVMBuildSub(b, LLVMBuildShl(b, one, shift, ""), one, ""), "");
   LLVMValueRef half = LLVMBuildShl(b, one, LLVMBuildSub(b, shift, one, ""), "");
   LLVMValueRef up = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntUGT, rem, half, ""),
                                 LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntEQ, rem, half, ""),
                                              LLVMBuildTrunc(b, vv, f->vb, ""), ""), "");
   vv = LLVMBuildAdd(b, vv, LLVMBuildZExt(b, up, f->vi32, ""), "");
   vv = LLVMBuildSelect(b, tiny, ci(f, t, 0), vv, "");
   vv = LLVMBuildSelect(b, over, ci(f, t, inf), vv, "");
   vv = LLVMBuildSelect(b, neg, ci(f, t, 0), vv, "");
   return LLVMBuildSelect(b, nan, nanv, vv, "");
}

/* su_format's decode_e5 for an unsigned float of 5 exponent and mbits
 * mantissa bits (the low bits of an i64 vector). */
static LLVMValueRef ufloat_value(struct fb *f, LLVMValueRef w, uint32_t mbits)
{
   LLVMBuilderRef b = f->b;
   LLVMTypeRef t = f->i32;
   LLVMValueRef v = LLVMBuildTrunc(b, w, f->vi32, "");
   LLVMValueRef e = LLVMBuildLShr(b, v, ci(f, t, mbits), "");
   LLVMValueRef m = LLVMBuildAnd(b, v, ci(f, t, (1u << mbits) - 1), "");
   LLVMValueRef mh = LLVMBuildShl(b, m, ci(f, t, 23 - mbits), "");
   /* ldexpf(m, -14 - mbits): exact, a power-of-two scale of a small integer. */
   LLVMValueRef den = LLVMBuildFMul(b, LLVMBuildUIToFP(b, m, f->vf, ""),
                                    cf(f, ldexpf(1.0f, -14 - (int)mbits)), "");
   LLVMValueRef quiet = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntNE, m, ci(f, t, 0), ""),
                                        ci(f, t, 0x400000u), ci(f, t, 0), "");
   LLVMValueRef infnan = LLVMBuildOr(b, LLVMBuildOr(b, ci(f, t, 0x7f800000u), mh, ""), quiet, "");
   LLVMValueRef norm = LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAdd(b, e, ci(f, t, 112), ""),
                                                   ci(f, t, 23), ""), mh, "");
   LLVMValueRef bits = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, ci(f, t, 0x1f), ""),
                                       infnan, norm, "");
   return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, ci(f, t, 0), ""), den,
                          LLVMBuildBitCast(b, bits, f->vf, ""), "");
}

/* Packs float values v (or, for integer classes and unblended 32-bit
 * floats, the bits vi) as the format stores them. */
static void pack(struct fb *f, const struct fb_fmt *ff, LLVMValueRef v[4], LLVMValueRef vi[4],
                 struct texel *t)
{
   LLVMBuilderRef b = f->b;
   switch (ff->kind) {
   case FB_UNORM8:
   case FB_SRGB8:
      t->w = ci(f, f->i32, 0);
      for (int c = 0; c < (int)ff->nch; c++) {
         LLVMValueRef x = ff->kind == FB_SRGB8 && c < 3 ? srgb8(f, v[c]) : unorm8(f, v[c]);
         x = LLVMBuildShl(b, x, ci(f, f->i32, 8u * ff->byte_of[c]), "");
         t->w = LLVMBuildOr(b, t->w, x, "");
      }
      return;
   case FB_F16X4:
      t->w = ci(f, f->i64, 0);
      for (int c = 0; c < 4; c++)
         t->w = LLVMBuildOr(b, t->w, LLVMBuildShl(b, half_bits(f, v[c]), ci(f, f->i64, 16u * c), ""),
                            "");
      return;
   case FB_CH32:
      for (uint32_t c = 0; c < ff->nch; c++)
         t->ch[c] = vi ? vi[c] : LLVMBuildBitCast(b, v[c], f->vi32, "");
      return;
   case FB_WORD:
      t->w = ci(f, f->i64, 0);
      for (uint32_t c = 0; c < ff->nch; c++) {
         const uint32_t bits = ff->bits[c];
         const uint64_t mask = (1ull << bits) - 1;
         LLVMValueRef x;
         switch (ff->ckind) {
         case SU_KIND_UNORM: x = unorm_n(f, v[c], bits); break;
         case SU_KIND_SNORM: x = snorm_n(f, v[c], bits); break;
         case SU_KIND_SFLOAT: x = half_bits(f, v[c]); break;
         case SU_KIND_UFLOAT: x = LLVMBuildZExt(b, ufloat_bits(f, v[c], bits - 5), f->vi64, ""); break;
         case SU_KIND_UINT: {
            LLVMValueRef m = ci(f, f->i32, mask);
            x = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGT, vi[c], m, ""), m, vi[c], "");
            x = LLVMBuildZExt(b, x, f->vi64, "");
            break;
         }
         default: {   /* SINT: clamped to the field's range */
            const int64_t max = (int64_t)((1ull << (bits - 1)) - 1);
            x = LLVMBuildSExt(b, vi[c], f->vi64, "");
            LLVMValueRef hi = ci(f, f->i64, (uint64_t)max), lo = ci(f, f->i64, (uint64_t)(-max - 1));
            x = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, x, hi, ""), hi, x, "");
            x = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, lo, ""), lo, x, "");
            x = LLVMBuildAnd(b, x, ci(f, f->i64, mask), "");
            break;
         }
         }
         t->w = LLVMBuildOr(b, t->w, LLVMBuildShl(b, x, ci(f, f->i64, ff->shift[c]), ""), "");
      }
      return;
   }
}

/* The word type of a one-word texel. */
static LLVMTypeRef word_type(struct fb *f, const struct fb_fmt *ff)
{
   switch (ff->size) {
   case 1: return f->vi8;
   case 2: return f->vi16;
   case 4: return f->vi32;
   default: return f->vi64;
   }
}

/* A texel of `size` bytes as a little-endian word of vector type wt (i32 or
 * i64): one gather, or three (bytes or halves) for 3- and 6-byte texels. */
static LLVMValueRef load_word(struct fb *f, LLVMValueRef ptrs, uint32_t size, LLVMTypeRef wt,
                              LLVMValueRef m)
{
   LLVMBuilderRef b = f->b;
   LLVMTypeRef et = LLVMGetElementType(wt);
   if (size == 3 || size == 6) {
      const uint32_t pb = size / 3;
      LLVMValueRef w = LLVMConstNull(wt);
      for (uint32_t i = 0; i < 3; i++) {
         LLVMValueRef x = gather(f, pb == 1 ? f->vi8 : f->vi16, ptrs_at(f, ptrs, i * pb), 1, m);
         x = LLVMBuildShl(b, LLVMBuildZExt(b, x, wt, ""), ci(f, et, 8u * pb * i), "");
         w = LLVMBuildOr(b, w, x, "");
      }
      return w;
   }
   LLVMTypeRef lt = word_type(f, &(struct fb_fmt) { .size = size });
   LLVMValueRef x = gather(f, lt, ptrs, 1, m);
   return lt == wt ? x : LLVMBuildZExt(b, x, wt, "");
}

/* Stores the low `size` bytes of word w (the inverse of load_word). */
static void store_word(struct fb *f, LLVMValueRef w, LLVMValueRef ptrs, uint32_t size,
                       LLVMValueRef m)
{
   LLVMBuilderRef b = f->b;
   LLVMTypeRef wt = LLVMTypeOf(w), et = LLVMGetElementType(wt);
   if (size == 3 || size == 6) {
      const uint32_t pb = size / 3;
      for (uint32_t i = 0; i < 3; i++) {
         LLVMValueRef x = LLVMBuildLShr(b, w, ci(f, et, 8u * pb * i), "");
         x = LLVMBuildTrunc(b, x, pb == 1 ? f->vi8 : f->vi16, "");
         scatter(f, x, ptrs_at(f, ptrs, i * pb), 1, m);
      }
      return;
   }
   LLVMTypeRef lt = word_type(f, &(struct fb_fmt) { .size = size });
   scatter(f, lt == wt ? w : LLVMBuildTrunc(b, w, lt, ""), ptrs, 1, m);
}

static void load_texel(struct fb *f, const struct fb_fmt *ff, LLVMValueRef ptrs, LLVMValueRef m,
                       struct texel *t)
{
   switch (ff->kind) {
   case FB_UNORM8:
   case FB_SRGB8: t->w = load_word(f, ptrs, ff->size, f->vi32, m); return;
   case FB_F16X4: t->w = gather(f, f->vi64, ptrs, 2, m); return;
   case FB_CH32:
      for (uint32_t c = 0; c < ff->nch; c++)
         t->ch[c] = gather(f, f->vi32, ptrs_at(f, ptrs, 4u * c), 4, m);
      return;
   case FB_WORD:
      t->w = load_word(f, ptrs, ff->size, f->vi64, m);
      return;
   }
}

/* The blend's destination colour, decoded like sr_fragment.c does. */
static void decode(struct fb *f, const struct fb_fmt *ff, const struct texel *t, LLVMValueRef m,
                   LLVMValueRef out[4])
{
   LLVMBuilderRef b = f->b;
   for (uint32_t c = 0; c < 4; c++) {
      if (c >= ff->nch) {
         out[c] = cf(f, c == 3 ? 1.0f : 0.0f);
         continue;
      }
      switch (ff->kind) {
      case FB_UNORM8:
      case FB_SRGB8: {
         LLVMValueRef x = LLVMBuildLShr(b, t->w, ci(f, f->i32, 8u * ff->byte_of[c]), "");
         x = LLVMBuildAnd(b, x, ci(f, f->i32, 0xff), "");
         if (ff->kind == FB_SRGB8 && c < 3) {
            LLVMValueRef p = LLVMBuildGEP2(b, f->f32, f->srgb_decode, &x, 1, "");
            out[c] = gather(f, f->vf, p, 4, m);
         } else {
            out[c] = unorm8_value(f, x);
         }
         break;
      }
      case FB_F16X4:
         out[c] = half_value(f, LLVMBuildLShr(b, t->w, ci(f, f->i64, 16u * c), ""));
         break;
      case FB_CH32:
         out[c] = LLVMBuildBitCast(b, t->ch[c], f->vf, "");
         break;
      case FB_WORD: {
         const uint32_t bits = ff->bits[c];
         LLVMValueRef x = LLVMBuildLShr(b, t->w, ci(f, f->i64, ff->shift[c]), "");
         x = LLVMBuildAnd(b, x, ci(f, f->i64, (1ull << bits) - 1), "");
         if (ff->ckind == SU_KIND_SFLOAT) {
            out[c] = half_value(f, x);
         } else if (ff->ckind == SU_KIND_UFLOAT) {
            out[c] = ufloat_value(f, x, bits - 5);
         } else if (ff->ckind == SU_KIND_SNORM) {
            /* fmaxf(s / max, -1.0f), s sign-extended */
            LLVMValueRef sh = ci(f, f->i64, 64 - bits);
            x = LLVMBuildAShr(b, LLVMBuildShl(b, x, sh, ""), sh, "");
            LLVMValueRef v = LLVMBuildFDiv(b, LLVMBuildSIToFP(b, x, f->vf, ""),
                                           cf(f, (float)((1ull << (bits - 1)) - 1)), "");
            out[c] = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, v, cf(f, -1.0f), ""), v,
                                     cf(f, -1.0f), "");
         } else {   /* UNORM */
            out[c] = LLVMBuildFDiv(b, LLVMBuildUIToFP(b, x, f->vf, ""),
                                   cf(f, (float)((1ull << bits) - 1)), "");
         }
         break;
      }
      }
   }
}

/* sr_logic_op on vectors of any integer type. */
static LLVMValueRef logic_op(struct fb *f, uint32_t op, LLVMValueRef s, LLVMValueRef d)
{
   LLVMBuilderRef b = f->b;
   switch (op) {
   case VK_LOGIC_OP_CLEAR: return LLVMConstNull(LLVMTypeOf(s));
   case VK_LOGIC_OP_AND: return LLVMBuildAnd(b, s, d, "");
   case VK_LOGIC_OP_AND_REVERSE: return LLVMBuildAnd(b, s, LLVMBuildNot(b, d, ""), "");
   case VK_LOGIC_OP_COPY: return s;
   case VK_LOGIC_OP_AND_INVERTED: return LLVMBuildAnd(b, LLVMBuildNot(b, s, ""), d, "");
   case VK_LOGIC_OP_NO_OP: return d;
   case VK_LOGIC_OP_XOR: return LLVMBuildXor(b, s, d, "");
   case VK_LOGIC_OP_OR: return LLVMBuildOr(b, s, d, "");
   case VK_LOGIC_OP_NOR: return LLVMBuildNot(b, LLVMBuildOr(b, s, d, ""), "");
   case VK_LOGIC_OP_EQUIVALENT: return LLVMBuildNot(b, LLVMBuildXor(b, s, d, ""), "");
   case VK_LOGIC_OP_INVERT: return LLVMBuildNot(b, d, "");
   case VK_LOGIC_OP_OR_REVERSE: return LLVMBuildOr(b, s, LLVMBuildNot(b, d, ""), "");
   case VK_LOGIC_OP_COPY_INVERTED: return LLVMBuildNot(b, s, "");
   case VK_LOGIC_OP_OR_INVERTED: return LLVMBuildOr(b, LLVMBuildNot(b, s, ""), d, "");
   case VK_LOGIC_OP_NAND: return LLVMBuildNot(b, LLVMBuildAnd(b, s, d, ""), "");
   default: return LLVMConstAllOnes(LLVMTypeOf(s));   /* SET */
   }
}

/* Whether ff's channels are 8-bit UNORM bytes (sr_fragment.c's
 * SR_PACK_UNORM8), which blend in the destination's scale
 * (sr_blend_unorm8). */
static bool fb_unorm8(const struct fb_fmt *ff)
{
   if (ff->kind == FB_UNORM8)
      return true;
   if (ff->kind != FB_WORD || ff->ckind != SU_KIND_UNORM || ff->size != ff->nch)
      return false;
   for (uint32_t c = 0; c < ff->nch; c++)
      if (ff->bits[c] != 8)
         return false;
   return true;
}

/* The destination's bytes of an fb_unorm8 format as floats (0 .. 255;
 * absent channels 0). */
static void decode_bytes(struct fb *f, const struct fb_fmt *ff, const struct texel *t,
                         LLVMValueRef out[4])
{
   LLVMBuilderRef b = f->b;
   for (uint32_t c = 0; c < 4; c++) {
      if (c >= ff->nch) {
         out[c] = cf(f, 0.0f);
         continue;
      }
      LLVMValueRef x;
      if (ff->kind == FB_UNORM8) {
         x = LLVMBuildLShr(b, t->w, ci(f, f->i32, 8u * ff->byte_of[c]), "");
         x = LLVMBuildAnd(b, x, ci(f, f->i32, 0xff), "");
      } else {
         x = LLVMBuildLShr(b, t->w, ci(f, f->i64, ff->shift[c]), "");
         x = LLVMBuildTrunc(b, LLVMBuildAnd(b, x, ci(f, f->i64, 0xff), ""), f->vi32, "");
      }
      out[c] = LLVMBuildSIToFP(b, x, f->vf, "");
   }
}

/* Whether ADD with factors fs, fd (the source clamped to [0, 1] or NaN,
 * the destination's bytes 0 .. 255) stays below 255.5 before its clamp:
 * factors a and 1 - a of one a in [0, 1] (source or destination alpha),
 * so v = fma(s, RN(a * 255), RN(db * RN(1 - a))) <= 255 * (1 + 2^-24)^3 +
 * a few ulps of 255, far below 255.5 (test_fragment_backend.c checks the
 * bound over every destination byte and a sweep of a). Nearest-even
 * rounding then gives 255 at most, as the clamp to 255 would: the clamp
 * is left out (its NaN-to-0 half stays). */
static bool unorm8_add_bounded(uint32_t op, uint32_t fs, uint32_t fd)
{
   if (op != VK_BLEND_OP_ADD)
      return false;
   return (fs == VK_BLEND_FACTOR_SRC_ALPHA && fd == VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA) ||
          (fs == VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA && fd == VK_BLEND_FACTOR_SRC_ALPHA) ||
          (fs == VK_BLEND_FACTOR_DST_ALPHA && fd == VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA) ||
          (fs == VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA && fd == VK_BLEND_FACTOR_DST_ALPHA);
}

/* sr_blend_unorm8's channel: op in the destination's scale, clamped to
 * [0, 255] (NaN to 0; the upper clamp left out where
 * unorm8_add_bounded), rounded to nearest even (rintf) by adding 2^23
 * (where the ulp is 1; the sum is even exactly when the rounded value is),
 * as the sum's bits: 0x4b000000 + the byte, i32. */
static LLVMValueRef unorm8_blend_op(struct fb *f, uint32_t op, uint32_t fs, uint32_t fd,
                                    LLVMValueRef s, LLVMValueRef sf, LLVMValueRef d,
                                    LLVMValueRef db, LLVMValueRef df)
{
   LLVMBuilderRef b = f->b;
   LLVMValueRef k = cf(f, 255.0f), v;
   /* MIN / MAX and copies of the source: unorm8's exact rounding. */
   LLVMValueRef exact = NULL;
   if (op == VK_BLEND_OP_MIN || op == VK_BLEND_OP_MAX)
      exact = unorm8(f, fminmax(f, s, d, op == VK_BLEND_OP_MAX));
   else if ((op == VK_BLEND_OP_ADD || op == VK_BLEND_OP_SUBTRACT) &&
            fs == VK_BLEND_FACTOR_ONE && fd == VK_BLEND_FACTOR_ZERO)
      exact = unorm8(f, s);
   if (exact)
      return LLVMBuildOr(b, exact, ci(f, f->i32, 0x4b000000u), "");
   switch (op) {
   case VK_BLEND_OP_ADD:
      v = fma3(f, s, LLVMBuildFMul(b, sf, k, ""), LLVMBuildFMul(b, db, df, ""));
      break;
   case VK_BLEND_OP_SUBTRACT:
      v = fma3(f, s, LLVMBuildFMul(b, sf, k, ""), LLVMBuildFNeg(b, LLVMBuildFMul(b, db, df, ""), ""));
      break;
   case VK_BLEND_OP_REVERSE_SUBTRACT:
      v = fma3(f, LLVMBuildFNeg(b, s, ""), LLVMBuildFMul(b, sf, k, ""), LLVMBuildFMul(b, db, df, ""));
      break;
   default: v = LLVMBuildFMul(b, s, k, ""); break;
   }
   LLVMValueRef zero = cf(f, 0.0f);
   v = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, v, zero, ""), v, zero, "");
   if (!unorm8_add_bounded(op, fs, fd))
      v = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, v, k, ""), v, k, "");
   v = LLVMBuildFAdd(b, v, cf(f, 0x1p23f), "");
   return LLVMBuildBitCast(b, v, f->vi32, "");
}

/* Attachment k's blend of the shader's src (and src1) with the texel dst,
 * packed into val; m masks the table gathers of an sRGB dst's decoding. */
static void blend_texel(struct fb *f, const struct shale_fb_attachment *k,
                        const struct fb_fmt *ff, const struct texel *dst, LLVMValueRef m,
                        LLVMValueRef src[4], LLVMValueRef src1[4], LLVMValueRef kc[4],
                        struct texel *val)
{
   LLVMValueRef dv[4], sf[4], df[4], out[4];
   decode(f, ff, dst, m, dv);
   for (int c = 0; c < 4; c++) {
      sf[c] = blend_factor(f, c < 3 ? k->src_color : k->src_alpha, c, src, src1, dv, kc);
      df[c] = blend_factor(f, c < 3 ? k->dst_color : k->dst_alpha, c, src, src1, dv, kc);
   }
   if (fb_unorm8(ff)) {
      /* sr_blend_unorm8: the bytes straight into the texel. */
      LLVMBuilderRef b = f->b;
      LLVMValueRef db[4];
      decode_bytes(f, ff, dst, db);
      const bool word = ff->kind == FB_WORD;
      val->w = word ? ci(f, f->i64, 0) : ci(f, f->i32, 0);
      for (uint32_t c = 0; c < ff->nch; c++) {
         LLVMValueRef r = unorm8_blend_op(f, c < 3 ? k->color_op : k->alpha_op,
                                          c < 3 ? k->src_color : k->src_alpha,
                                          c < 3 ? k->dst_color : k->dst_alpha, src[c], sf[c],
                                          dv[c], db[c], df[c]);
         /* The byte of r: 0x4b000000 above it, which a shift by 8 or more
          * moves out of the word (bits 8 - 23 are zero). */
         if (word) {
            r = LLVMBuildZExt(b, LLVMBuildAnd(b, r, ci(f, f->i32, 0xff), ""), f->vi64, "");
            r = LLVMBuildShl(b, r, ci(f, f->i64, ff->shift[c]), "");
         } else if (ff->byte_of[c]) {
            r = LLVMBuildShl(b, r, ci(f, f->i32, 8u * ff->byte_of[c]), "");
         } else {
            r = LLVMBuildAnd(b, r, ci(f, f->i32, 0xff), "");
         }
         val->w = LLVMBuildOr(b, val->w, r, "");
      }
      return;
   }
   for (int c = 0; c < 4; c++)
      out[c] = blend_op(f, c < 3 ? k->color_op : k->alpha_op, src[c], sf[c], dv[c], df[c]);
   pack(f, ff, out, NULL, val);
}

/* Each lane's pixel pointer, the scratch pixel for lanes without coverage
 * (llvm_backend.h, "Lanes addressed one by one"). */
static void lanes_pointers(struct fb *f, LLVMValueRef pix, LLVMValueRef scratch, LLVMValueRef *lp)
{
   LLVMBuilderRef b = f->b;
   for (uint32_t i = 0; i < f->W; i++) {
      LLVMValueRef li = LLVMConstInt(f->i32, i, false);
      LLVMValueRef covered = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildExtractElement(b, f->cov, li, ""),
                                           LLVMConstInt(f->i32, 0, false), "");
      lp[i] = LLVMBuildSelect(b, covered, LLVMBuildExtractElement(b, pix, li, ""), scratch, "");
   }
}

/* The first pixel of row h (0 .. rows_count - 1) of the rows form: lane
 * 0's, from scalar coordinates, then h row pitches further (one address
 * computed, the other rows' an add each; y0 + h never wraps). */
static LLVMValueRef row_address(struct fb *f, const struct fb_target_fields *t, int h,
                                uint64_t pixel_bytes)
{
   LLVMValueRef p = fb_pixel_address(f, t, f->x0, f->y0, pixel_bytes);
   if (h) {
      LLVMValueRef o =
         LLVMBuildMul(f->b, t->row_pitch, LLVMConstInt(f->i64, (uint64_t)h, false), "");
      p = LLVMBuildGEP2(f->b, f->i8, p, &o, 1, "");
   }
   return p;
}

/* The rows promise's layout (shader_abi.h): lane i's column and row
 * within the C x (W / C) pixels from lane 0's, C = rows_cols(W) pixels a
 * row (2 for W 4, else 4). */
static uint32_t rows_cols(uint32_t W)
{
   return W < 8 ? 2 : 4;
}

static uint32_t rows_col(uint32_t W, uint32_t i)
{
   return 2 * ((i / 4) % (rows_cols(W) / 2)) + (i & 1);
}

static uint32_t rows_row(uint32_t W, uint32_t i)
{
   return 2 * ((i / 4) / (rows_cols(W) / 2)) + ((i >> 1) & 1);
}

/* How a call's lanes reach the attachment (emit_attachment). */
enum fb_form {
   FB_FORM_LANES,   /* a lane's pixel at a time, or gathers and scatters */
   FB_FORM_ROWS,    /* a full block's rows (the caller's rows promise) */
};

/* Whether the rows form applies to attachment k's texels (format ff, S
 * samples, W lanes): one word a sample and the lanes form's sizes; *fill:
 * the form only writes (several samples, no blend or logic op, every
 * channel written). */
static bool rows_form(const struct shale_fb_attachment *k, const struct fb_fmt *ff, uint32_t W,
                      uint32_t S, bool *fill)
{
   const uint32_t present = (1u << ff->nch) - 1;
   const bool full = (k->write_mask & present) == present;
   *fill = !k->blend && !k->logic_op && full && S > 1;
   (void)W;
   return ff->kind != FB_CH32 && ff->size != 3 && ff->size != 6 && S <= 16;
}

static void emit_attachment_form(struct fb *f, const struct shale_fb_key *key, uint32_t a,
                                 enum fb_form form)
{
   LLVMBuilderRef b = f->b;
   const struct shale_fb_attachment *k = &key->color[a];
   struct fb_fmt ff;
   fb_format(k->format, &ff);
   const uint32_t W = f->W, S = key->samples, size = ff.size;
   const bool is_float = ff.cls == SU_CLASS_FLOAT;
   const bool clamp01 = ff.kind == FB_UNORM8 || ff.kind == FB_SRGB8 ||
                        (ff.kind == FB_WORD && ff.ckind == SU_KIND_UNORM);
   const bool clamp11 = ff.kind == FB_WORD && ff.ckind == SU_KIND_SNORM;
   const size_t tgt = offsetof(struct shale_fb_context, color) + a * sizeof(struct shale_fb_target);

   const struct fb_target_fields target = fb_target(f, tgt);

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
   if (key->alpha_to_one && is_float) {
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
         if (clamp01 || clamp11) {
            float lo = clamp01 ? 0.0f : -1.0f;
            src[c] = clampv(f, src[c], lo, 1.0f);
            src1[c] = clampv(f, src1[c], lo, 1.0f);
         }
         kc[c] = splat(f, ctx_load(f, f->f32, tgt + offsetof(struct shale_fb_target, constants) +
                                                 4u * c));
      }
   }

   /* Pixel addresses of sample 0, per lane (computed where used: the
    * rows form below needs two). */
   const uint64_t pixel_bytes = (uint64_t)S * size;

   const uint32_t wm = k->write_mask & 0xf, present = (1u << ff.nch) - 1;
   const bool full = (wm & present) == present;
   uint64_t wbits = 0;
   for (uint32_t c = 0; c < ff.nch; c++) {
      if (!(wm & (1u << c)))
         continue;
      switch (ff.kind) {
      case FB_F16X4: wbits |= (uint64_t)0xffff << (16 * c); break;
      case FB_WORD: wbits |= ((1ull << ff.bits[c]) - 1) << ff.shift[c]; break;
      default: wbits |= (uint64_t)0xff << (8 * ff.byte_of[c]); break;
      }
   }
   const uint32_t lop = k->logic_op ? k->logic_op - 1 : 0;

   struct texel packed;
   if (!k->blend)
      pack(f, &ff, src, srci, &packed);

   /* Texels of one word of 1, 2, 4 or 8 bytes, or of 32-bit channels: the
    * lanes form (llvm_backend.h), each lane's pixel one load (when the
    * old texels matter) and one store. */
   const bool chans = ff.kind == FB_CH32;
   const uint32_t E = chans ? ff.nch : 1;
   if (size != 3 && size != 6 && S * E <= 16) {
      LLVMTypeRef et = chans ? f->i32 : LLVMIntTypeInContext(f->ctx, 8 * size);
      LLVMTypeRef vet = LLVMVectorType(et, W);
      LLVMTypeRef wt = ff.kind == FB_UNORM8 || ff.kind == FB_SRGB8 ? f->vi32 : f->vi64;
      /* The old texels: blended, logic-op'ed or partly kept, or samples
       * outside the coverage of a covered pixel. */
      const bool need_dst = k->blend || k->logic_op || !full || S > 1;
      /* Rows (rows_form, the rows promise): the lanes' pixels are W / C
       * rows of C pixels (S texels each; C = rows_cols(W)) from lane 0's,
       * each row read (where needed) and written with one vector load and
       * store; with `fill`, nothing read and each lane's texel written to
       * all its samples. */
      bool fill = false;
      const bool rows = form == FB_FORM_ROWS;
      if (rows)
         rows_form(k, &ff, W, S, &fill);
      const uint32_t C = rows_cols(W), H = W / C;
      LLVMValueRef ridx[4] = { NULL, NULL, NULL, NULL }, lidx = NULL;
      LLVMValueRef fidx[4] = { NULL, NULL, NULL, NULL };
      LLVMTypeRef rowt = LLVMVectorType(et, C * S);
      if (rows) {
         LLVMValueRef li[SHALE_MAX_SIMD_WIDTH * 16], ri[4][SHALE_MAX_SIMD_WIDTH * 4];
         LLVMValueRef fi[4][SHALE_MAX_SIMD_WIDTH * 4];
         for (uint32_t i = 0; i < W; i++) {
            const uint32_t col = rows_col(W, i), row = rows_row(W, i);
            for (uint32_t s = 0; s < S; s++) {
               li[i * S + s] = LLVMConstInt(f->i32, (row * C + col) * S + s, false);
               ri[row][col * S + s] = LLVMConstInt(f->i32, i * S + s, false);
               fi[row][col * S + s] = LLVMConstInt(f->i32, i, false);
            }
         }
         for (uint32_t h = 0; h < H; h++) {
            fidx[h] = LLVMConstVector(fi[h], C * S);
            ridx[h] = LLVMConstVector(ri[h], C * S);
         }
         lidx = LLVMConstVector(li, W * S);
      }
      if (fill) {
         LLVMValueRef w = vet == wt ? packed.w : LLVMBuildTrunc(b, packed.w, vet, "");
         for (int h = 0; h < (int)H; h++) {
            LLVMValueRef p = row_address(f, &target, h, pixel_bytes);
            LLVMValueRef st = LLVMBuildStore(
               b, LLVMBuildShuffleVector(b, w, LLVMGetUndef(vet), fidx[h], ""), p);
            LLVMSetAlignment(st, 1);
         }
         return;
      }
      LLVMValueRef scratch = NULL;
      if (!rows) {
         /* The scratch pixel, in the entry block (a static slot). */
         LLVMTypeRef sct = LLVMArrayType(f->i8, S * size);
         LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
         LLVMBasicBlockRef eb = LLVMGetEntryBasicBlock(fn);
         LLVMBuilderRef eb_b = LLVMCreateBuilderInContext(f->ctx);
         LLVMValueRef first = LLVMGetFirstInstruction(eb);
         if (first)
            LLVMPositionBuilderBefore(eb_b, first);
         else
            LLVMPositionBuilderAtEnd(eb_b, eb);
         scratch = LLVMBuildAlloca(eb_b, sct, "scratch");
         LLVMDisposeBuilder(eb_b);
         LLVMBuildStore(b, LLVMConstNull(sct), scratch);
      }
      LLVMValueRef lp[SHALE_MAX_SIMD_WIDTH];
      LLVMValueRef old = NULL;
      if (!rows) {
         lanes_pointers(f, fb_pixel_address(f, &target, f->xs, f->ys, pixel_bytes), scratch, lp);
         if (need_dst)
            old = fb_lanes_load(f, lp, W, et, S * E);
      } else if (need_dst) {
         LLVMValueRef r[4] = { NULL, NULL, NULL, NULL };
         /* The caller's blocks run left to right along a row of blocks
          * of a 64-pixel tile (sr_tile.c; SR_TILE_SIZE), so the rows'
          * next cache lines (the next block's rows where a block's row
          * fills a line or more) are read a few calls later: prefetched
          * now, for writing, they are in the cache by then instead of
          * missing under the sampler's traffic. Not past the tile's right
          * edge (another thread's tile: the row's own line instead). */
         const uint64_t row_bytes = (uint64_t)C * pixel_bytes;
         const uint64_t ahead = row_bytes > 64 ? row_bytes : 64;
         LLVMValueRef inside = LLVMBuildICmp(
            b, LLVMIntULT,
            LLVMBuildAdd(b, LLVMBuildAnd(b, f->x0, LLVMConstInt(f->i32, 63, false), ""),
                         LLVMConstInt(f->i32, (ahead + pixel_bytes - 1) / pixel_bytes, false),
                         ""),
            LLVMConstInt(f->i32, 64, false), "");
         LLVMValueRef off = LLVMBuildSelect(b, inside, LLVMConstInt(f->i64, ahead, false),
                                            LLVMConstInt(f->i64, 0, false), "");
         for (int h = 0; h < (int)H; h++) {
            LLVMValueRef p = row_address(f, &target, h, pixel_bytes);
            r[h] = LLVMBuildLoad2(b, rowt, p, "");
            LLVMSetAlignment(r[h], 1);
            LLVMValueRef args[4] = { LLVMBuildGEP2(b, f->i8, p, &off, 1, ""),
                                     LLVMConstInt(f->i32, 1, false),
                                     LLVMConstInt(f->i32, 3, false),
                                     LLVMConstInt(f->i32, 1, false) };
            call_intrinsic(f, "llvm.prefetch", &f->ptr, 1, args, 4);
         }
         LLVMValueRef rr = fb_concat(f, r, H);
         old = LLVMBuildShuffleVector(b, rr, LLVMGetUndef(LLVMTypeOf(rr)), lidx, "");
      }
      LLVMValueRef all = ci(f, f->i1, 1);
      LLVMValueRef outs[16];
      for (uint32_t s = 0; s < S; s++) {
         /* The rows form's lanes cover every sample: cov is not read. */
         LLVMValueRef m = all;
         if (!rows) {
            m = LLVMBuildAnd(b, LLVMBuildLShr(b, f->cov, ci(f, f->i32, s), ""), ci(f, f->i32, 1),
                             "");
            m = LLVMBuildICmp(b, LLVMIntNE, m, ci(f, f->i32, 0), "");
         }
         struct texel dst, val;
         if (need_dst) {
            if (chans) {
               for (uint32_t c = 0; c < E; c++)
                  dst.ch[c] = fb_lanes_pick(f, old, W, S * E, s * E + c);
            } else {
               LLVMValueRef x = fb_lanes_pick(f, old, W, S, s);
               dst.w = vet == wt ? x : LLVMBuildZExt(b, x, wt, "");
            }
         }
         if (k->blend) {
            blend_texel(f, k, &ff, &dst, all, src, src1, kc, &val);
         } else {
            val = packed;
         }
         if (chans) {
            for (uint32_t c = 0; c < E; c++) {
               LLVMValueRef v = !(wm & (1u << c)) ? dst.ch[c]
                                : k->logic_op     ? logic_op(f, lop, val.ch[c], dst.ch[c])
                                                  : val.ch[c];
               outs[s * E + c] = need_dst ? LLVMBuildSelect(b, m, v, dst.ch[c], "") : v;
            }
            continue;
         }
         LLVMTypeRef wet = LLVMGetElementType(wt);
         LLVMValueRef w = val.w;
         if (k->logic_op)
            w = logic_op(f, lop, w, dst.w);
         if (!full) {
            LLVMValueRef keep = LLVMBuildAnd(b, dst.w, ci(f, wet, ~wbits), "");
            w = LLVMBuildOr(b, LLVMBuildAnd(b, w, ci(f, wet, wbits), ""), keep, "");
         }
         if (need_dst && !rows)   /* rows: m is true */
            w = LLVMBuildSelect(b, m, w, dst.w, "");
         outs[s] = vet == wt ? w : LLVMBuildTrunc(b, w, vet, "");
      }
      LLVMValueRef v = fb_lanes_interleave(f, outs, W, S * E);
      if (!rows) {
         fb_lanes_store(f, lp, W, v, S * E);
         return;
      }
      /* One permutation into row order, then each row a contiguous part
       * (a vpermd and extracts, where per-row shuffles took more). */
      LLVMValueRef all_rows[SHALE_MAX_SIMD_WIDTH * 16], part[SHALE_MAX_SIMD_WIDTH * 16];
      for (uint32_t h = 0; h < H; h++)
         for (uint32_t j = 0; j < C * S; j++)
            all_rows[h * C * S + j] = LLVMGetAggregateElement(ridx[h], j);
      LLVMValueRef vr = LLVMBuildShuffleVector(b, v, LLVMGetUndef(LLVMTypeOf(v)),
                                               LLVMConstVector(all_rows, H * C * S), "");
      for (int h = 0; h < (int)H; h++) {
         LLVMValueRef p = row_address(f, &target, h, pixel_bytes);
         for (uint32_t j = 0; j < C * S; j++)
            part[j] = LLVMConstInt(f->i32, h * C * S + j, false);
         LLVMValueRef st = LLVMBuildStore(
            b, LLVMBuildShuffleVector(b, vr, LLVMGetUndef(LLVMTypeOf(vr)),
                                      LLVMConstVector(part, C * S), ""), p);
         LLVMSetAlignment(st, 1);
      }
      return;
   }

   LLVMValueRef pix = fb_pixel_address(f, &target, f->xs, f->ys, pixel_bytes);
   for (uint32_t s = 0; s < S; s++) {
      LLVMValueRef m = LLVMBuildAnd(b, LLVMBuildLShr(b, f->cov, ci(f, f->i32, s), ""),
                                    ci(f, f->i32, 1), "");
      m = LLVMBuildICmp(b, LLVMIntNE, m, ci(f, f->i32, 0), "");
      LLVMValueRef ptrs = ptrs_at(f, pix, (uint64_t)s * size);
      struct texel dst, val;
      bool have_dst = false;
      if (k->blend) {
         load_texel(f, &ff, ptrs, m, &dst);
         have_dst = true;
         blend_texel(f, k, &ff, &dst, m, src, src1, kc, &val);
      } else {
         val = packed;
      }
      if (k->logic_op && !have_dst) {
         load_texel(f, &ff, ptrs, m, &dst);
         have_dst = true;
      }
      if (ff.kind == FB_CH32) {
         for (uint32_t c = 0; c < ff.nch; c++) {
            if (!(wm & (1u << c)))
               continue;
            LLVMValueRef v = k->logic_op ? logic_op(f, lop, val.ch[c], dst.ch[c]) : val.ch[c];
            scatter(f, v, ptrs_at(f, ptrs, 4u * c), 4, m);
         }
         continue;
      }
      LLVMTypeRef wt = ff.kind == FB_UNORM8 || ff.kind == FB_SRGB8 ? f->i32 : f->i64;
      if (k->logic_op)
         val.w = logic_op(f, lop, val.w, dst.w);
      if (!full) {
         if (!have_dst)
            load_texel(f, &ff, ptrs, m, &dst);
         LLVMValueRef keep = LLVMBuildAnd(b, dst.w, ci(f, wt, ~wbits), "");
         val.w = LLVMBuildOr(b, LLVMBuildAnd(b, val.w, ci(f, wt, wbits), ""), keep, "");
      }
      if (ff.kind == FB_F16X4)
         scatter(f, val.w, ptrs, 2, m);
      else
         store_word(f, val.w, ptrs, ff.size, m);
   }
}

/* Loads the lanes' x, y and coverage vectors (f->xs, f->ys, f->cov) from
 * the routine's parameters, where the builder is, four lanes at a time
 * (fb_load_lanes4: the caller has just stored them a quad at a time). */
static void load_lanes(struct fb *f, LLVMValueRef fn)
{
   LLVMValueRef *dst[3] = { &f->xs, &f->ys, &f->cov };
   for (int i = 0; i < 3; i++)
      *dst[i] = fb_load_lanes4(f, LLVMGetParam(fn, 2 + (unsigned)i), f->W);
}

/* The lanes the rows promise describes, from f->x0 and f->y0: lane i at
 * (x0 + rows_col(W, i), y0 + rows_row(W, i)), every sample covered (for
 * attachments of the rows copy that take the lanes form). */
static void rows_lanes(struct fb *f, uint32_t samples)
{
   LLVMValueRef ex[SHALE_MAX_SIMD_WIDTH], ey[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t i = 0; i < f->W; i++) {
      ex[i] = LLVMConstInt(f->i32, rows_col(f->W, i), false);
      ey[i] = LLVMConstInt(f->i32, rows_row(f->W, i), false);
   }
   f->xs = LLVMBuildAdd(f->b, splat(f, f->x0), LLVMConstVector(ex, f->W), "");
   f->ys = LLVMBuildAdd(f->b, splat(f, f->y0), LLVMConstVector(ey, f->W), "");
   f->cov = ci(f, f->i32, samples >= 32 ? ~0u : (1u << samples) - 1);
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

   /* (ctx, layer, x, y, cov, outputs, rows) */
   LLVMTypeRef params[7] = { f.ptr, f.i32, f.ptr, f.ptr, f.ptr, f.ptr, f.i32 };
   LLVMBasicBlockRef entry;
   LLVMValueRef fn = fb_begin_function(&f, symbol, LLVMVoidTypeInContext(ctx), params, 7, &entry);
   f.layer = LLVMGetParam(fn, 1);
   f.outputs = LLVMGetParam(fn, 5);
   f.srgb_thresholds = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_thresholds));
   f.srgb_decode = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_decode));
   f.srgb_buckets = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_buckets));

   /* The caller's rows promise (shader_abi.h) selects one of two copies of
    * the whole routine: the rows copy reads only x[0] and y[0]
    * (scalars: a vector load of lanes the caller has just stored one by
    * one would wait for those stores to reach the cache)
    * and needs no coverage (attachments that take the lanes form there get
    * the lanes the promise describes); the lanes copy loads every lane's
    * x, y and coverage. */
   bool fill;
   LLVMBasicBlockRef lanes_bb = LLVMAppendBasicBlockInContext(ctx, fn, "lanes");
   {
      LLVMBasicBlockRef rows_bb = LLVMAppendBasicBlockInContext(ctx, fn, "rows");
      LLVMValueRef rows = LLVMBuildICmp(f.b, LLVMIntNE, LLVMGetParam(fn, 6),
                                        LLVMConstInt(f.i32, 0, false), "");
      LLVMBuildCondBr(f.b, rows, rows_bb, lanes_bb);
      LLVMPositionBuilderAtEnd(f.b, rows_bb);
      f.x0 = LLVMBuildLoad2(f.b, f.i32, LLVMGetParam(fn, 2), "");
      f.y0 = LLVMBuildLoad2(f.b, f.i32, LLVMGetParam(fn, 3), "");
      LLVMSetAlignment(f.x0, 4);
      LLVMSetAlignment(f.y0, 4);
      bool made = false;
      for (uint32_t a = 0; a < key->color_count; a++) {
         const struct shale_fb_attachment *k = &key->color[a];
         struct fb_fmt ff;
         if (!k->format)
            continue;
         fb_format(k->format, &ff);
         if (rows_form(k, &ff, f.W, key->samples, &fill)) {
            emit_attachment_form(&f, key, a, FB_FORM_ROWS);
            continue;
         }
         if (!made)
            rows_lanes(&f, key->samples);
         made = true;
         emit_attachment_form(&f, key, a, FB_FORM_LANES);
      }
      LLVMBuildRetVoid(f.b);
   }
   /* The lanes copy is a function of its own that the entry tail-calls:
    * its values (many more) would otherwise make the entry save and
    * restore callee-saved registers on the rows copy's path too
    * (noinline: llvm_jit.c's inline_single_calls leaves it alone). */
   LLVMPositionBuilderAtEnd(f.b, lanes_bb);
   /* (ctx, layer, x, y, cov, outputs): every argument in a register, so
    * the call is a jump. */
   LLVMTypeRef fnty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 6, false);
   LLVMValueRef lanes_fn = LLVMAddFunction(mod, "shale_fb_lanes", fnty);
   LLVMSetLinkage(lanes_fn, LLVMInternalLinkage);
   LLVMAddAttributeAtIndex(lanes_fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName(
                                                           "nounwind", 8), 0));
   LLVMAddAttributeAtIndex(lanes_fn, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(ctx, LLVMGetEnumAttributeKindForName(
                                                           "noinline", 8), 0));
   LLVMValueRef args[6];
   for (unsigned i = 0; i < 6; i++)
      args[i] = LLVMGetParam(fn, i);
   LLVMValueRef call = LLVMBuildCall2(f.b, fnty, lanes_fn, args, 6, "");
   LLVMSetTailCall(call, true);
   LLVMBuildRetVoid(f.b);
   LLVMDisposeBuilder(f.b);

   f.b = LLVMCreateBuilderInContext(ctx);
   LLVMPositionBuilderAtEnd(f.b, LLVMAppendBasicBlockInContext(ctx, lanes_fn, "entry"));
   f.ctxp = LLVMGetParam(lanes_fn, 0);
   f.layer = LLVMGetParam(lanes_fn, 1);
   f.outputs = LLVMGetParam(lanes_fn, 5);
   f.srgb_thresholds = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_thresholds));
   f.srgb_decode = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_decode));
   f.srgb_buckets = ctx_load(&f, f.ptr, offsetof(struct shale_fb_context, srgb_buckets));
   load_lanes(&f, lanes_fn);
   for (uint32_t a = 0; a < key->color_count; a++)
      if (key->color[a].format)
         emit_attachment_form(&f, key, a, FB_FORM_LANES);
   LLVMBuildRetVoid(f.b);
   LLVMDisposeBuilder(f.b);
   return SC_SUCCESS;
}

bool sc_backend_key_supported(const struct shale_fb_key *key, const struct shale_fb_ds_key *ds_key)
{
   return ds_key ? sc_backend_ds_supported(ds_key) : sc_backend_supported(key);
}
