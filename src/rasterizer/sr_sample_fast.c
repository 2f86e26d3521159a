/* Specialised sampling routines: 2D views of common colour formats, eight lanes at a time. */
/*
 * What sr_sample_select() (sr_sample.h) hands records whose view fits:
 * OpImageSample* with Lod, Grad or Bias on 2D and 2D-array views of
 * R8G8B8A8, B8G8R8A8, A8B8G8R8_PACK32, R8 and R8G8 (UNORM and sRGB),
 * R16G16B16A16_SFLOAT and R32G32B32A32_SFLOAT. A call checks
 * its sampler and operation (normalized coordinates, no comparison, no
 * Y'CbCr, NEAREST or LINEAR filters and mipmap modes, REPEAT,
 * MIRRORED_REPEAT or CLAMP_TO_EDGE on s and t; LOD or GRAD, offsets
 * allowed) and passes anything else to sr_sample().
 *
 * The arithmetic is sr_sample()'s, step for step, on vectors of eight
 * lanes (GCC vector extensions; the body, sr_sample_fast_body.h, is built
 * twice: portable, and for AVX2 with gathers, chosen by
 * __builtin_cpu_supports): the same float expressions for coordinates,
 * LOD (but log2, a polynomial within about an ulp of log2f), wrapping,
 * weights and the bilinear and mipmap sums in the same order. Two things
 * differ: UNORM channels are filtered as their integer codes and divided
 * by 255 at the end (nearest: the same division su_unpack_float's table
 * holds, so identical bits; linear: within a few ulps), and the view's
 * swizzle is applied after filtering (linear in each component, so equal
 * but for the rounding of the weights' sum against a constant ONE). No FMA
 * contraction (the AVX2 build does not enable FMA), so nearest results
 * are bit for bit sr_sample()'s; unit/sample holds linear ones to 1e-5 of
 * the texels' range (an ulp of log2 moves the mipmap weight by as much).
 * Float formats are filtered as they are (halves converted exactly); R8
 * and R8G8 filter codes 0 for the missing G and B and 255 for A (0 and 1
 * once divided), where sr_sample filters 0 and 1.
 * One exception to all of this: in the AVX2 build, 8-bit UNORM RGBA and
 * BGRA views in the common state below filter in fixed point, as the
 * precision Shale reports allows (subTexelPrecisionBits and
 * mipmapPrecisionBits 8): the bilinear weights snapped down to 1/256 of a
 * texel, the mipmap weight to 1/256, the texel sums exact in 16- and
 * 32-bit integers (each level's truncated to 1/256 of a code before the
 * mipmap blend), one multiplication by the float nearest 1 / (255 * 2^16)
 * at the end (within an ulp of the quotient, 1 exactly at code 255 and
 * never above it). unit/sample holds it to
 * 3 * 2^-8 of the range plus 2^-8 / 255 and 1e-5 (what those limits allow).
 * Lanes with a NaN or infinite coordinate get some value in [0, 1] there
 * (NaN from sr_sample).
 * Outside the trilinear REPEAT state, sr_sample_fast_nl.h takes NEAREST
 * filtering (sr_sample()'s bits; lambda skipped where a single level can be
 * chosen, zink's maxLod 0.25 with NEAREST mipmaps included; in the AVX2
 * build, such calls on 2D 8-bit RGBA / BGRA views run in intrinsics, read
 * a quad pair's texels from two rows by permutes instead of a gather where
 * they lie within eight columns, and divide codes by 255 without a
 * division, vdiv255: glmark2's effect2d) and, in the AVX2 build, LINEAR filtering of 8-bit UNORM RGBA and
 * BGRA views in the same fixed point, any size, address mode and mipmap
 * mode (vkcube, and glmark2's and zink's one-level CLAMP_TO_EDGE views;
 * single-level ones in intrinsics, footprints from rows where a quad pair's
 * fits eight columns: glmark2's desktop).
 * 8-bit sRGB RGBA / BGRA views in the trilinear REPEAT state (2D,
 * power-of-two, unswizzled) go through sr_sample_fast_srgb.h: chunk()'s
 * float arithmetic and bits, each row of a fitting window decoded once;
 * where the CPU has AVX-512 F, BW, DQ, VL and VBMI, through
 * sr_sample_fast_srgb16.h instead: sixteen lanes in fixed point (each code
 * decoded by byte permutes to a 16-bit linear value, within 2^-17 of
 * sr_sample()'s; 8-bit weights, sums exact in integers), held to
 * FIXED_TOLERANCE as the UNORM routines, and to 8e-6 of sr_sample() where
 * the weights lie on the 1/256 grid (see its note).
 *
 * Cost (scene (b) of bench_render, trilinear RGBA8, is bound by it): a
 * call decodes only scalars of its sampler and view; a chunk of eight
 * lanes whose lanes share a level (two quads nearly always do) reads that
 * level's size, pitch and offset once, others lane by lane. 32-bit texels
 * whose two columns are side by side on every lane are read as 64-bit
 * pairs. The common state (LINEAR filters and mipmaps, REPEAT on s and t,
 * power-of-two 2D views, no offsets) runs a copy of the chunk with those
 * choices made at compile time (every lane is linear, so its UNORM
 * division is a multiplication by 1/255 and its LOD half the log2 of the
 * larger squared scale, without square roots, by a shorter polynomial
 * (vhalf_log2, within 3.6e-7 of it where lambda is small: a linear result
 * moves with lambda by as little, and 8 mipmap bits need no more); a chunk
 * whose eight lanes are all asked
 * for stores its results without merging. Its fixed-point form (AVX2,
 * 8-bit UNORM RGBA / BGRA) gathers the four texels of each level as
 * 32-bit words, lerps each row's pair in 16-bit words ((t0 << 8) +
 * (t1 - t0) * a, exact modulo 2^16) and the two rows with one
 * multiply-add of word pairs, and transposes lanes to components once.
 * Its level selection, addressing and floors are written in intrinsics
 * (fixed_select, fixed_address, fixed_floor: the same operations, so the
 * same bits), where GCC built the generic form's splats of scalars from
 * vinsertps chains and vany() from eight extracts. fixed_select skips the
 * LOD where it can only select level 0 alone: views of one level or maxLod
 * <= 0, and chunks magnified on every lane asked for (the larger squared
 * scale <= 1 with a bias <= 0 and minLod <= 0; bench_render (b)'s quads
 * up to 3.75 repeats across the screen): what the LOD arithmetic gives
 * there, level 0 and no second level, without its polynomial.
 * Where the chunk's lanes share the level and their footprints lie within
 * eight unwrapped columns and three rows (magnified and mildly minified
 * levels), it reads those rows eight texels at a time and picks each
 * lane's four texels by permutes instead of the four gathers (the same
 * texels: identical results). Elsewhere, where no lane's footprint
 * wraps across the level's last column, each row's two texels of a lane
 * are one 64-bit word: two 4-lane 64-bit gathers a row instead of two
 * 8-lane 32-bit ones (half the elements).
 * Where the CPU has AVX-512 (F, BW, DQ, VL), the trilinear-ready RGBA8 /
 * BGRA8 routines run a call's sixteen lanes as one chunk when its lanes
 * asked for share a level (fixed_select16 and fixed_chunk16, below the
 * AVX2 build: 512-bit vectors, one LOD selection for the sixteen lanes,
 * a window sixteen columns wide and up to eight rows high read with one
 * 64-byte load a row, 16-lane gathers elsewhere; the same sums, so
 * the AVX2 routine's bits, kept channel-planar: each texel vector's bytes
 * transposed within 128-bit quarters by one vpshufb, each row's lerp one
 * vpmaddubsw, no transpose before the stores), and the AVX2 chunks per
 * half otherwise. The window's least column and row are lane 0's where
 * no lane lies below them (a 4x4 block whose s and t do not fall to the
 * right or down), without a reduction over the lanes. A call with two
 * levels computes them step by step together (fixed_level16x2: both
 * levels' coordinates, then both levels' texels, then both filters), so
 * that the second level's loads do not queue behind the first's filter
 * (the call is bound by its dependency chains, not its operations).
 * Where the lanes' columns fit eight (i0 at most six apart, as a 4x4
 * block's are below two texels a pixel), window8 reads the window's rows
 * 32 bytes each, two rows to a register, so that rows 0-3 and 4-7 are one
 * vpermt2d table each. Calls whose every lane asked for takes the level-0
 * shortcut (fixed_pre16: magnified GRAD calls, one-level views) read and
 * filter level 0 alone at once, with no guess and no polynomial. Other
 * GRAD calls without a bias whose LOD clamps do not
 * bind read and filter their level (and the next, where the guess says
 * minified) at fixed_guess16's guess, made from the gradients alone
 * (half the binary exponent of the first lane asked for's larger squared
 * scale, read from fixed_pre16's vector, clamped to the view's levels)
 * while fixed_select16's polynomial runs (minified calls are bound by
 * that way to the mipmap weight: with a guess, the bias and LOD clamps,
 * which cannot bind there, are left off it); where fixed_select16's level is not the guess, or a
 * second level is wanted that was not read, fixed_redo16 (out of line,
 * from the view and sampler, so that the inlined path hands out no
 * address of its state or sums, which GCC would keep in memory) reads
 * them again and stores: the same levels, texels and sums. Each level's
 * s * 256 w - 128 is one multiply-add (256 w a power of two: the product
 * is exact, so one rounding either way).
 * There too, the 8-bit UNORM RGBA / BGRA routines (trilinear-ready views
 * and all others) run single-level NEAREST calls on 2D views with lanes
 * asked for in both halves as one chunk of sixteen (near_chunk16:
 * near_chunk32()'s operations, so its bits, but for UNORM codes converted
 * by unorm8_16 (a byte shuffle and a conversion rounded up: the
 * division's bits, as vdiv255's); a 16-lane gather, which beat windows
 * of rows there; vkcube's sampler) and the rest as the AVX2 routine
 * does, from the same state (run_state).
 * Wider windows did not pay in the AVX2 build (Zen 3, bench_render (b) at
 * one thread, CPU time): sixteen columns and rows up to two apart (two
 * loads a row, a blend per half and per row) took windows for a third
 * more levels and made the frame 9% slower; rows never apart (two loads,
 * four permutes) was no faster than the three-row form kept here.
 *
 * Invariants: every texel read lies in the view whatever the lanes hold
 * (lanes outside args->lanes included: they are computed, clamped, and not
 * stored; the AVX2 build reads a texel of 1 or 2 bytes as the aligned
 * 4-byte word holding it, which may reach 3 bytes past the view's end but
 * never another page); results of lanes outside args->lanes are
 * untouched. Views are
 * accepted only when every texel's byte offset fits 31 bits (the gathers'
 * signed 32-bit offsets).
 *
 * Threading: reentrant, no state but the sRGB tables, filled once (and the
 * single-threaded tests' hook, sr_sample_fast_test, NULL otherwise).
 */
#include "rasterizer/sr_sample.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/su_format.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SR_FAST_X86 1
#else
#define SR_FAST_X86 0
#endif

/* Every function taking or returning lane vectors is inlined: no ABI
 * question between the portable and the AVX2 builds. No multiply-add is
 * fused anywhere in the file (the AVX-512 target implies FMA, and the
 * arithmetic is sr_sample()'s, step for step). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#pragma GCC optimize("fp-contract=off")
#endif

#define VL 8   /* lanes per vector */
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef uint32_t v8u __attribute__((vector_size(32)));

#define AI static inline __attribute__((always_inline))

/* Formats with a routine. */
enum fast_fmt { FF_RGBA8, FF_BGRA8, FF_R8, FF_RG8, FF_RGBA16F, FF_RGBA32F, FF_COUNT };

static inline int32_t
fmt_size(int fmt)
{
   return fmt == FF_R8 ? 1 : fmt == FF_RG8 ? 2 : fmt == FF_RGBA16F ? 8 : fmt == FF_RGBA32F ? 16 : 4;
}

/* What one call needs about its view and sampler, decoded once (the
 * per-level addressing is read from the view where a chunk needs it). */
struct fast {
   const struct shale_image_view_desc *v;
   const uint8_t *base;
   int32_t width, height;             /* base level */
   float fwidth, fheight;
   int32_t last_level, last_layer;
   float q;                           /* level_count - 1 */
   bool pow2w, pow2h;                 /* every level's width (height) a power of two */
   bool arrayed;
   bool mag_linear, min_linear, mip_linear;
   uint32_t mode_u, mode_v;
   float bias, min_lod, max_lod;
   /* Level 0 alone whatever lambda: one level, or maxLod <= 0. */
   bool one_level;
   /* lambda' <= 0 gives level 0 alone: minLod <= 0, maxLod not NaN. */
   bool mag_level0;
   uint8_t swz[4];                    /* source component, SWZ_ZERO or SWZ_ONE */
   bool swz_identity;
   bool tri;   /* LINEAR everywhere, REPEAT on s and t, power-of-two sizes, 2D */
};

enum { SWZ_ZERO = 4, SWZ_ONE = 5 };

/* The driver's maxSamplerLodBias (sr_sample.c's SR_MAX_SAMPLER_LOD_BIAS). */
#define MAX_LOD_BIAS 16.0f
/* Wrapping by a float reciprocal is exact below this (see vmod). */
#define WRAP_LIMIT (1 << 22)

/* ---- lane vectors --------------------------------------------------------- */

/* clang's x86 builds have only the AVX2 routines (SR_SAMPLE_FAST_PORTABLE)
 * and want every function taking or returning 32-byte vectors compiled
 * for AVX: these helpers are, there. */
#if SR_FAST_X86 && !SR_SAMPLE_FAST_PORTABLE
#pragma clang attribute push(__attribute__((target("avx2"))), apply_to = function)
#endif

AI v8f vsel(v8i m, v8f a, v8f b)
{
   return (v8f)(((v8i)a & m) | ((v8i)b & ~m));
}

AI v8i vseli(v8i m, v8i a, v8i b)
{
   return (a & m) | (b & ~m);
}

AI v8f vsplat(float x)
{
   return (v8f) { x, x, x, x, x, x, x, x };
}

AI v8i vsplati(int32_t x)
{
   return (v8i) { x, x, x, x, x, x, x, x };
}

AI v8f vloadf(const float *p)
{
   v8f r;
   memcpy(&r, p, sizeof(r));
   return r;
}

AI v8i vloadi(const void *p)
{
   v8i r;
   memcpy(&r, p, sizeof(r));
   return r;
}

AI v8i vtoi(v8f x)
{
   return __builtin_convertvector(x, v8i);
}

AI v8f vtof(v8i x)
{
   return __builtin_convertvector(x, v8f);
}

AI bool vany(v8i m)
{
   int32_t r = 0;
   for (int k = 0; k < VL; k++)
      r |= m[k];
   return r != 0;
}

AI v8i vmini(v8i a, v8i b)
{
   return vseli(a < b, a, b);
}

AI v8i vmaxi(v8i a, v8i b)
{
   return vseli(a > b, a, b);
}

/* sr_sample's ifloor(): floor as an integer, kept to +-2^30, NaN 0. */
AI v8i vifloor(v8f x)
{
   x = vsel(x == x, x, vsplat(0.0f));
   x = vsel(x > 1073741824.0f, vsplat(1073741824.0f), x);
   x = vsel(x < -1073741824.0f, vsplat(-1073741824.0f), x);
   v8i t = vtoi(x);
   return t + (vtof(t) > x);   /* true is -1 */
}

/* floorf(x) (NaN stays NaN). */
AI v8f vffloor(v8f x)
{
   v8i small = (v8f)((v8i)x & 0x7fffffff) < 8388608.0f;
   v8f xs = vsel(small, x, vsplat(0.0f));
   v8f f = vtof(vtoi(xs));
   f = vsel(f > xs, f - 1.0f, f);
   return vsel(small, f, x);
}

/* log2 within a few ulps (a Cephes-style polynomial for ln on
 * [sqrt(1/2), sqrt(2)]); exact at powers of two; 0 -> -inf, inf -> inf,
 * NaN -> NaN. Inputs are never negative (square roots). */
AI v8f vlog2(v8f x)
{
   v8i den = (x < 0x1p-126f) & (x > 0.0f);
   v8f xs = vsel(den, x * 0x1p23f, x);
   v8i bits = (v8i)xs;
   v8i e = ((bits >> 23) & 0xff) - 127 - (den & 23);
   v8f m = (v8f)((bits & 0x007fffff) | 0x3f800000);
   v8i big = m > 1.41421356f;
   m = vsel(big, m * 0.5f, m);
   e = e - big;
   v8f f = m - 1.0f;
   v8f z = f * f;
   v8f y = 7.0376836292e-2f * f - 1.1514610310e-1f;
   y = y * f + 1.1676998740e-1f;
   y = y * f - 1.2420140846e-1f;
   y = y * f + 1.4249322787e-1f;
   y = y * f - 1.6668057665e-1f;
   y = y * f + 2.0000714765e-1f;
   y = y * f - 2.4999993993e-1f;
   y = y * f + 3.3333331174e-1f;
   y = y * f * z - 0.5f * z;
   /* log2(m) = (f + y) * log2(e), the small part first. */
   v8f r = (y * 1.44269504088896341f + f * 1.44269504088896341f) + vtof(e);
   r = vsel(x == 0.0f, vsplat(-__builtin_inff()), r);
   r = vsel(x == __builtin_inff(), vsplat(__builtin_inff()), r);
   return vsel(x == x, r, x);
}

/* Half the log2 of x, for the trilinear state's LOD (half the log2 of the
 * larger squared scale): a degree-7 polynomial for log2 on [sqrt(1/2),
 * sqrt(2)] (f * P(f) with m = 1 + f, fitted at Chebyshev nodes; halved
 * coefficients), P evaluated by Estrin's scheme (pairs of terms, then
 * f^2 and f^4: a chain of 7 dependent operations where Horner's had 14,
 * on the path from the gradients to the first texel load: minified
 * trilinear calls about 5% faster on Zen 3), within 3.6e-7 of the exact
 * value where |result| < 1 and the rounding of the exponent's half added
 * to it beyond (2.2e-6 near -63), checked on every seventh normal float
 * against log2 in double (Horner's form: 3.4e-7); exact at powers of two;
 * <= 0 for every x <= 1 (checked on every float).
 * The mipmap weight needs 8 bits (mipmapPrecisionBits), vlog2's ulps were
 * more than it takes at three times the cost. x below 2^-126, 0 and NaN
 * give -63, infinity 64: with a bias of at most 16 (maxSamplerLodBias)
 * and minLod <= maxLod, every lambda the first gives selects what -inf
 * and NaN did (level 0 alone, or minLod's levels), the second what
 * infinity did (the last level). */
AI v8f vhalf_log2(v8f x)
{
   x = vsel(x > 0x1p-126f, x, vsplat(0x1p-126f));
   v8i bits = (v8i)x;
   v8i e = ((bits >> 23) & 0xff) - 127;
   v8f m = (v8f)((bits & 0x007fffff) | 0x3f800000);
   v8i big = m > 1.41421356f;
   m = vsel(big, m * 0.5f, m);
   e = e - big;
   v8f f = m - 1.0f;
   v8f f2 = f * f;
   v8f p0 = -0.360680104f * f + 0.721348285f;
   v8f p1 = -0.17976223f * f + 0.240306556f;
   v8f p2 = -0.133981928f * f + 0.148059786f;
   v8f q0 = p1 * f2 + p0;
   v8f q1 = 0.084093295f * f2 + p2;
   v8f y = q1 * (f2 * f2) + q0;
   return f * y + 0.5f * vtof(e);
}

/* x / 255 for the integers 0 .. 255 (UNORM codes), the same bits as the
 * division, without one: q0 = x * RN(1/255) is within an ulp; x - 256 q0
 * and then + q0 are exact (Sterbenz: each pair within a factor of two), so
 * rem = x - 255 q0 exactly, and q0 + rem * RN(1/255) rounds to x / 255
 * (checked for every code; no FMA contraction, see above). */
AI v8f vdiv255(v8f x)
{
   const float r = 1.0f / 255.0f;
   v8f q0 = x * r;
   v8f rem = (x - q0 * 256.0f) + q0;
   return q0 + rem * r;
}

/* Half floats (the low 16 bits of each lane) to floats, exactly:
 * normals and subnormals by an exponent shift and a power-of-two scale,
 * infinities and NaNs (payload kept) by setting the exponent. */
AI v8f vhalf(v8i h)
{
   v8i em = h & 0x7fff;
   v8i sign = (h & 0x8000) << 16;
   v8f f = (v8f)(em << 13) * 0x1p112f;
   v8i bits = vseli(em >= 0x7c00, (em << 13) | 0x7f800000, (v8i)f);
   return (v8f)(bits | sign);
}

/* i mod n for |i| < WRAP_LIMIT: the quotient from a float reciprocal is off
 * by at most one there (i is exact, the product within 2^-22 relative).
 * The integer arithmetic here and in vwrap() is done on unsigned lanes
 * (the same bits: every value stays in range). With signed lanes, GCC 12's
 * -fsanitize=address,undefined -O2 build (ci/sanitize.sh) scalarizes each
 * operation for its overflow checks and miscompiled vwrap() in the
 * portable build: MIRRORED_REPEAT's quotient came from 1 / n instead of
 * 1 / 2n, so i - q * 2n was far outside [0, 2n) and the texel read far
 * outside the view (unit/sample faulted; at -O0, or with either sanitizer
 * alone at -O2, it was right). */
AI v8i vmod(v8i i, v8i n, v8f rcp)
{
   v8f p = vtof(i) * rcp;
   v8i q = vtoi(p);
   q = (v8i)((v8u)q + (v8u)(vtof(q) > p));
   v8u m = (v8u)i - (v8u)q * (v8u)n;
   m = m + ((v8u)n & (v8u)((v8i)m < 0));
   m = m - ((v8u)n & (v8u)((v8i)m >= n));
   return (v8i)m;
}

/* The Wrapping Operation for every lane: i in [-2^30, 2^30 + 1], n >= 1. */
AI v8i vwrap(v8i i, v8i n, uint32_t mode, bool pow2)
{
   if (mode == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE)
      return vmini(vmaxi(i, vsplati(0)), (v8i)((v8u)n - 1u));
   v8i period = (v8i)((v8u)n * (mode == VK_SAMPLER_ADDRESS_MODE_REPEAT ? 1u : 2u));
   v8i m;
   if (pow2) {
      m = i & (v8i)((v8u)period - 1u);
   } else if (vany((i <= -WRAP_LIMIT) | (i >= WRAP_LIMIT))) {
      for (int k = 0; k < VL; k++)
         m[k] = sr_sample_wrap(i[k], n[k], mode);
      return m;
   } else {
      m = vmod(i, period, 1.0f / vtof(period));
   }
   if (mode == VK_SAMPLER_ADDRESS_MODE_REPEAT)
      return m;
   m = (v8i)((v8u)m - (v8u)n);
   return (v8i)((v8u)n - 1u - (v8u)(m ^ (m >> 31)));
}

#if SR_FAST_X86 && !SR_SAMPLE_FAST_PORTABLE
#pragma clang attribute pop
#endif

/* ---- per call ------------------------------------------------------------- */

static bool
fast_filter_ok(uint32_t f)
{
   return f == VK_FILTER_NEAREST || f == VK_FILTER_LINEAR;
}

static bool
fast_mode_ok(uint32_t m)
{
   return m == VK_SAMPLER_ADDRESS_MODE_REPEAT || m == VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT ||
          m == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
}

static bool
fast_sampler_ok(const struct shale_sampler_desc *s)
{
   return s && !s->ycbcr && !s->unnormalized_coordinates && !s->compare_enable &&
          fast_filter_ok(s->mag_filter) && fast_filter_ok(s->min_filter) &&
          (s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST ||
           s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_LINEAR) &&
          fast_mode_ok(s->address_mode[0]) && fast_mode_ok(s->address_mode[1]) &&
          s->max_anisotropy <= 1.0f;   /* anisotropic filtering: sr_sample */
}

static bool
fast_op_ok(uint32_t op)
{
   uint32_t k = op & SHALE_SAMPLE_OP_MASK;
   return (k == SHALE_SAMPLE_LOD || k == SHALE_SAMPLE_GRAD) &&
          !(op & ~(SHALE_SAMPLE_OP_MASK | SHALE_SAMPLE_OFFSET | SHALE_SAMPLE_BIAS));
}

static uint32_t
minify(uint32_t v, uint32_t level)
{
   v >>= level;
   return v ? v : 1;
}

/* The fields of the call's state that fast_init() and fast_init_tri()
 * both take from the view and the sampler alike: the view's base, size
 * and levels, the sampler's bias and LOD clamps. */
static inline void
fast_init_view(struct fast *f, const struct shale_image_view_desc *v,
               const struct shale_sampler_desc *s)
{
   f->v = v;
   f->base = v->base;
   f->width = (int32_t)v->width;
   f->height = (int32_t)v->height;
   f->fwidth = (float)v->width;
   f->fheight = (float)v->height;
   f->last_level = (int32_t)v->level_count - 1;
   f->q = (float)(v->level_count - 1);
   f->bias = s->mip_lod_bias;
   f->min_lod = s->min_lod;
   f->max_lod = s->max_lod;
   f->one_level = v->level_count == 1 || s->max_lod <= 0.0f;
   f->mag_level0 = s->min_lod <= 0.0f && s->max_lod == s->max_lod;
}

/* The view's swizzle as the routines apply it (f->swz, f->swz_identity). */
static inline void
fast_init_swizzle(struct fast *f, const struct shale_image_view_desc *v)
{
   f->swz_identity = true;
   for (unsigned k = 0; k < 4; k++) {
      uint32_t sw = v->swizzle[k];
      if (sw == VK_COMPONENT_SWIZZLE_ZERO)
         f->swz[k] = SWZ_ZERO;
      else if (sw == VK_COMPONENT_SWIZZLE_ONE)
         f->swz[k] = SWZ_ONE;
      else if (sw >= VK_COMPONENT_SWIZZLE_R && sw <= VK_COMPONENT_SWIZZLE_A)
         f->swz[k] = (uint8_t)(sw - VK_COMPONENT_SWIZZLE_R);
      else
         f->swz[k] = (uint8_t)k;
      f->swz_identity &= f->swz[k] == k;
   }
}

/* The call's state; false: hand the call to sr_sample(). The view was
 * checked by fast_view_format() when the routine was chosen. */
static bool
fast_init(struct fast *f, const struct shale_image_view_desc *v,
          const struct shale_sampler_desc *s, uint32_t op)
{
   if (!fast_op_ok(op) || !fast_sampler_ok(s))
      return false;
   fast_init_view(f, v, s);
   f->arrayed = v->view_type == VK_IMAGE_VIEW_TYPE_2D_ARRAY;
   f->last_layer = f->arrayed ? (int32_t)v->layer_count - 1 : 0;
   f->pow2w = (v->width & (v->width - 1)) == 0;
   f->pow2h = (v->height & (v->height - 1)) == 0;
   f->mag_linear = s->mag_filter == VK_FILTER_LINEAR;
   f->min_linear = s->min_filter == VK_FILTER_LINEAR;
   f->mip_linear = s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_LINEAR;
   f->mode_u = s->address_mode[0];
   f->mode_v = s->address_mode[1];
   f->tri = f->mag_linear && f->min_linear && f->mip_linear && !f->arrayed && f->pow2w &&
            f->pow2h && f->mode_u == VK_SAMPLER_ADDRESS_MODE_REPEAT &&
            f->mode_v == VK_SAMPLER_ADDRESS_MODE_REPEAT;
   fast_init_swizzle(f, v);
   return true;
}

/* Whether a call of a trilinear-ready view (2D, power-of-two, identity
 * swizzle: checked at selection) is in the fixed-point state: LOD or GRAD
 * (bias allowed, no offsets), LINEAR filters and mipmaps, REPEAT on s and
 * t, normalized coordinates, no comparison, no Y'CbCr. The same answer as
 * fast_init()'s `tri` with fast_op_ok() and no offset, in one test of ORed
 * fields. */
static inline bool
fast_tri_call(const struct shale_sampler_desc *s, uint32_t op)
{
   return s && (op & ~(uint32_t)SHALE_SAMPLE_BIAS) <= SHALE_SAMPLE_GRAD &&
          s->max_anisotropy <= 1.0f &&   /* anisotropic filtering: sr_sample */
          !((s->mag_filter ^ VK_FILTER_LINEAR) | (s->min_filter ^ VK_FILTER_LINEAR) |
            (s->mipmap_mode ^ VK_SAMPLER_MIPMAP_MODE_LINEAR) |
            (s->address_mode[0] ^ VK_SAMPLER_ADDRESS_MODE_REPEAT) |
            (s->address_mode[1] ^ VK_SAMPLER_ADDRESS_MODE_REPEAT) | s->ycbcr |
            s->unnormalized_coordinates | s->compare_enable);
}

/* fast_init() for such a call: the fields the fixed-point chunk reads. */
static inline void
fast_init_tri(struct fast *f, const struct shale_image_view_desc *v,
              const struct shale_sampler_desc *s)
{
   fast_init_view(f, v, s);
   f->arrayed = false;
   f->last_layer = 0;
   f->tri = true;
   f->swz_identity = true;
}

/* Every 8-bit sRGB code as su_unpack_float decodes it (the same bits). */
static float srgb_table[256];
static pthread_once_t srgb_once = PTHREAD_ONCE_INIT;

static void
srgb_table_init(void)
{
   const struct su_format_desc *d = su_format_desc(VK_FORMAT_R8_SRGB);
   for (unsigned i = 0; i < 256; i++) {
      uint8_t b = (uint8_t)i;
      float rgba[4];
      su_unpack_float(d, &b, rgba);
      srgb_table[i] = rgba[0];
   }
}

struct sr_sample_fast_test *sr_sample_fast_test;

/* ---- the two builds --------------------------------------------------------- */

#if SR_SAMPLE_FAST_PORTABLE
AI v8i gather_loop(const uint8_t *base, v8i off)
{
   v8i r;
   for (int k = 0; k < VL; k++) {
      uint32_t t;
      memcpy(&t, base + off[k], 4);
      r[k] = (int32_t)t;
   }
   return r;
}

AI void gather_pair_loop(const uint8_t *base, v8i off, v8i *t0, v8i *t1)
{
   for (int k = 0; k < VL; k++) {
      uint32_t t[2];
      memcpy(t, base + off[k], 8);
      (*t0)[k] = (int32_t)t[0];
      (*t1)[k] = (int32_t)t[1];
   }
}

AI v8i gather_narrow_loop(const uint8_t *base, v8i off, int32_t size)
{
   v8i r;
   for (int k = 0; k < VL; k++) {
      const uint8_t *p = base + off[k];
      r[k] = size == 1 ? p[0] : p[0] | p[1] << 8;
   }
   return r;
}

AI v8f table_loop(const float *table, v8i idx)
{
   v8f r;
   for (int k = 0; k < VL; k++)
      r[k] = table[idx[k]];
   return r;
}

AI v8f sqrt_loop(v8f x)
{
   v8f r;
   for (int k = 0; k < VL; k++)
      r[k] = x[k] >= 0.0f ? __builtin_sqrtf(x[k]) : x[k];   /* NaN stays */
   return r;
}

#define FAST_SUFFIX portable
#define FAST_TARGET
#define FAST_FIXED 0
#define FAST_GATHER(base, off) gather_loop(base, off)
#define FAST_GATHER_PAIR(base, off, t0, t1) gather_pair_loop(base, off, t0, t1)
#define FAST_GATHER_NARROW(base, off) gather_narrow_loop(base, off, fmt_size(fmt))
#define FAST_TABLE(table, idx) table_loop(table, idx)
#define FAST_SQRT(x) sqrt_loop(x)
#include "rasterizer/sr_sample_fast_body.h"
#undef FAST_SUFFIX
#undef FAST_TARGET
#undef FAST_FIXED
#undef FAST_GATHER
#undef FAST_GATHER_PAIR
#undef FAST_GATHER_NARROW
#undef FAST_TABLE
#undef FAST_SQRT
#endif

#if SR_FAST_X86
#define AVX2_FN static inline __attribute__((always_inline, target("avx2")))

AVX2_FN v8i gather_avx2(const uint8_t *base, v8i off)
{
   return (v8i)_mm256_i32gather_epi32((const int *)base, (__m256i)off, 1);
}

/* Two 32-bit texels side by side per lane: two 4-lane gathers of 64-bit
 * words, split into first and second texels. The offsets go in the lane
 * order 0, 1, 4, 5 / 2, 3, 6, 7, so that one in-lane shuffle of the two
 * results gives each texel back in lane order (no cross-lane permute). */
AVX2_FN void gather_pair_avx2(const uint8_t *base, v8i off, v8i *t0, v8i *t1)
{
   __m256i o = _mm256_permute4x64_epi64((__m256i)off, 0xd8);
   __m256 a = _mm256_castsi256_ps(
      _mm256_i32gather_epi64((const long long *)base, _mm256_castsi256_si128(o), 1));
   __m256 b = _mm256_castsi256_ps(
      _mm256_i32gather_epi64((const long long *)base, _mm256_extracti128_si256(o, 1), 1));
   *t0 = (v8i)_mm256_castps_si256(_mm256_shuffle_ps(a, b, 0x88));
   *t1 = (v8i)_mm256_castps_si256(_mm256_shuffle_ps(a, b, 0xdd));
}

/* The aligned words holding texels of 1 or 2 bytes (a texel of 2 bytes is
 * 2-aligned, fast_view_format() checks): never past the end of a page the
 * texel is on. */
AVX2_FN v8i gather_narrow_avx2(const uint8_t *base, v8i off)
{
   v8i mis = (off + (int32_t)((uintptr_t)base & 3)) & 3;
   v8i w = (v8i)_mm256_i32gather_epi32((const int *)base, (__m256i)(off - mis), 1);
   return (v8i)((v8u)w >> (v8u)(mis * 8));
}

AVX2_FN v8f table_avx2(const float *table, v8i idx)
{
   return (v8f)_mm256_i32gather_ps(table, (__m256i)idx, 4);
}

#define FAST_SUFFIX avx2
#define FAST_TARGET __attribute__((target("avx2")))
#define FAST_FIXED 1
#define FAST_GATHER(base, off) gather_avx2(base, off)
#define FAST_GATHER_PAIR(base, off, t0, t1) gather_pair_avx2(base, off, t0, t1)
#define FAST_GATHER_NARROW(base, off) gather_narrow_avx2(base, off)
#define FAST_TABLE(table, idx) table_avx2(table, idx)
#define FAST_SQRT(x) ((v8f)_mm256_sqrt_ps((__m256)(x)))
#include "rasterizer/sr_sample_fast_body.h"
#include "rasterizer/sr_sample_fast_srgb.h"
#undef FAST_SUFFIX
#undef FAST_TARGET
#undef FAST_FIXED
#undef FAST_GATHER
#undef FAST_GATHER_PAIR
#undef FAST_GATHER_NARROW
#undef FAST_TABLE
#undef FAST_SQRT
#endif

#if SR_FAST_X86 && defined(__GNUC__) && !defined(__clang__)
/* ---- AVX-512: the fixed-point trilinear state, sixteen lanes at once ------- */
/*
 * Where the CPU has AVX-512 F, BW, DQ and VL, the trilinear-ready RGBA8 /
 * BGRA8 routines take a call's sixteen lanes as one chunk when both halves
 * have lanes asked for and the lanes asked for share one level (and so its
 * second): fixed_select()'s operations on the sixteen lanes at once
 * (fixed_pre16 and fixed_select16: the same LOD and bits; the level-0
 * shortcut where every lane asked for allows it, which then reads level 0
 * at once; where the call has no bias and its LOD clamps
 * do not bind, the levels are read and filtered from a guess at the level,
 * fixed_guess16's, while lambda's polynomial runs, and read again where
 * the guess missed), then fixed_level()'s arithmetic on 512-bit
 * vectors (the same texels, weights and sums lane for lane: the texel
 * coordinate and weight from one floor of 256 u, its bits above and below
 * the eighth, which are fixed_level()'s floor(u) and floor(256 (u -
 * floor(u))) wherever |256 u| < 2^31; calls with a lane beyond or NaN
 * take fixed_level()'s floors and clamps), the window sixteen columns
 * wide and up to eight rows high
 * (64-byte loads of rows, in pairs, each lane's texels picked by vpermt2d
 * from the pair holding its row: a draw's 16 lanes are a 4x4 block, whose
 * four pixel rows span up to seven texel rows at two texels a pixel,
 * where window() takes two rows and a third; where the lanes' columns fit
 * eight, as a block's do below two texels a pixel, window8 reads eight
 * columns, 32 bytes a row and two rows a register, so that rows 0-3 and
 * 4-7 are one vpermt2d table each),
 * else 16-lane gathers. A half without a second level keeps its first
 * level's sums (as fixed_chunk() skips fixed_mip() there): results
 * identical to the AVX2 routine's. Calls whose lanes differ in level
 * take the AVX2 fixed_chunk() per half. The sums are kept per channel
 * (fixed_filter16, fixed_mip16: each vector one channel of the sixteen
 * lanes in lane order, the exact sums less FIXED16_OFFSET), so that the
 * stores need no transpose. Calls with every lane asked for
 * store their results whole (no masked stores for the shader's loads of
 * them to wait on). GCC's avx512f target implies FMA:
 * the file is built with fp-contract off (above), so no multiply-add is
 * fused here either.
 */
#define AVX512_FN static inline __attribute__((always_inline, target("avx2,avx512f,avx512bw,avx512dq,avx512vl")))

/* The offset of fixed_filter16's and fixed_mip16's sums below the
 * exact ones (32640 * 256: see fixed_filter16). */
#define FIXED16_OFFSET 8355840

/* fixed_filter() on sixteen lanes, channel-planar: out[c] holds channel c
 * (R, G, B, A in memory order) of lanes 0 .. 15 in lane order, each the
 * exact sum fixed_filter() makes (texels times 8-bit weights, 16
 * fractional bits) less FIXED16_OFFSET. Each texel vector's bytes are
 * first transposed within its 128-bit quarters (one vpshufb: R of lanes
 * 4q .. 4q + 3, then G, B, A), so that the row lerps and the column
 * madd leave the sums in lane order, with no transpose after them.
 * A row's lerp p (256 - a) + q a is one vpmaddubsw of the byte pairs
 * (p - 128, q - 128), signed, by (255 - a, a), unsigned, plus p: the
 * pairs' sum lies in [-32640, 32385] (no saturation), so each word is
 * the lerp less 32640, within [-32640, 32640]; the column step's vpmaddwd
 * by (256 - b, b) makes the exact sum less 32640 * 256. The same sums as
 * fixed_filter()'s, exactly. */
AVX512_FN void fixed_filter16(__m512i t00, __m512i t10, __m512i t01, __m512i t11, __m512i wa,
                              __m512i wb, __m512i out[4])
{
   const __m512i planar = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
   /* (255 - a, a) as bytes, for lanes 4q .. 4q + 3 in each half of a quarter. */
   const __m512i pairs = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 0, 1, 4, 5, 8, 9, 12, 13));
   const __m512i aw = _mm512_shuffle_epi8(
      _mm512_or_si512(_mm512_slli_epi32(wa, 8), _mm512_xor_si512(wa, _mm512_set1_epi32(0xff))), pairs);
   const __m512i sign = _mm512_set1_epi8((char)0x80), low = _mm512_set1_epi16(0xff);
   __m512i h[2][2];
   for (int r = 0; r < 2; r++) {
      const __m512i p = _mm512_shuffle_epi8(r ? t01 : t00, planar);
      const __m512i q = _mm512_shuffle_epi8(r ? t11 : t10, planar);
      for (int k = 0; k < 2; k++) {
         const __m512i x = k ? _mm512_unpackhi_epi8(p, q) : _mm512_unpacklo_epi8(p, q);
         h[r][k] = _mm512_add_epi16(_mm512_maddubs_epi16(aw, _mm512_xor_si512(x, sign)),
                                    _mm512_and_si512(x, low));
      }
   }
   const __m512i bw = _mm512_or_si512(_mm512_sub_epi32(_mm512_set1_epi32(256), wb), _mm512_slli_epi32(wb, 16));
   out[0] = _mm512_madd_epi16(_mm512_unpacklo_epi16(h[0][0], h[1][0]), bw);
   out[1] = _mm512_madd_epi16(_mm512_unpackhi_epi16(h[0][0], h[1][0]), bw);
   out[2] = _mm512_madd_epi16(_mm512_unpacklo_epi16(h[0][1], h[1][1]), bw);
   out[3] = _mm512_madd_epi16(_mm512_unpackhi_epi16(h[0][1], h[1][1]), bw);
}

/* fixed_floor() on sixteen lanes. */
AVX512_FN __m512i fixed_floor16(__m512 x, __m512 *fl)
{
   x = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), x);
   x = _mm512_min_ps(x, _mm512_set1_ps(1073741824.0f));
   x = _mm512_max_ps(x, _mm512_set1_ps(-1073741824.0f));
   *fl = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
   return _mm512_cvttps_epi32(*fl);
}

/* window16()'s footprint where it fits eight columns (di at most six and
 * w - 2 - c0: every lane's two columns within columns cs .. cs + 7 of the
 * level, unwrapped) and eight rows (dj at most six): rows jmin .. jmin + 7
 * (wrapped) read 32 bytes each, two rows to a register, so that rows 0-3
 * and 4-7 are each one table of 32 texels; each lane's texel is entry
 * 8 * row + cx, picked by one vpermt2d from the table holding its row
 * (the second table read and merged only where a lane's lower row lies in
 * it). The same texels as window16's loads and the gathers. */
AVX512_FN void window8(const uint8_t *level, int32_t w, int32_t h, size_t row, int32_t c0,
                       int32_t jmin, __m512i di, __m512i dj, __m512i t[4])
{
   const int32_t cs = c0 < w - 8 ? c0 : w - 8;
   const uint8_t *p = level + (size_t)cs * 4;
   const int32_t hm = h - 1;
#define W8_ROW(k) _mm256_loadu_si256((const __m256i *)(p + (size_t)((jmin + (k)) & hm) * row))
#define W8_ROWS(k) _mm512_inserti64x4(_mm512_castsi256_si512(W8_ROW(k)), W8_ROW((k) + 1), 1)
   /* Each lane's first texel: 8 * (j0 - jmin) + (i0 - imin) + (c0 - cs),
    * in [0, 55]; its second one on, the next row's two eight on. */
   const __m512i top = _mm512_add_epi32(_mm512_slli_epi32(dj, 3), _mm512_add_epi32(di, _mm512_set1_epi32(c0 - cs)));
   const __m512i top1 = _mm512_add_epi32(top, _mm512_set1_epi32(1));
   const __m512i bot = _mm512_add_epi32(top, _mm512_set1_epi32(8));
   const __m512i bot1 = _mm512_add_epi32(top, _mm512_set1_epi32(9));
   const __m512i r01 = W8_ROWS(0), r23 = W8_ROWS(2);
   t[0] = _mm512_permutex2var_epi32(r01, top, r23);
   t[1] = _mm512_permutex2var_epi32(r01, top1, r23);
   t[2] = _mm512_permutex2var_epi32(r01, bot, r23);
   t[3] = _mm512_permutex2var_epi32(r01, bot1, r23);
   /* Lanes whose lower row is row 4 or later (dj >= 3), upper (dj >= 4). */
   const __mmask16 mb = _mm512_cmpgt_epu32_mask(dj, _mm512_set1_epi32(2));
   if (mb) {
      const __mmask16 mt = _mm512_cmpgt_epu32_mask(dj, _mm512_set1_epi32(3));
      const __m512i r45 = W8_ROWS(4), r67 = W8_ROWS(6);
      t[0] = _mm512_mask_blend_epi32(mt, t[0], _mm512_permutex2var_epi32(r45, top, r67));
      t[1] = _mm512_mask_blend_epi32(mt, t[1], _mm512_permutex2var_epi32(r45, top1, r67));
      t[2] = _mm512_mask_blend_epi32(mb, t[2], _mm512_permutex2var_epi32(r45, bot, r67));
      t[3] = _mm512_mask_blend_epi32(mb, t[3], _mm512_permutex2var_epi32(r45, bot1, r67));
   }
#undef W8_ROWS
#undef W8_ROW
   if (sr_sample_fast_test) {
      sr_sample_fast_test->windows += 2;   /* counted per eight lanes */
      sr_sample_fast_test->windows8 += 2;
   }
}

/* window() sixteen columns wide and up to eight rows high: the lanes'
 * columns i0 .. i0 + 1 within sixteen consecutive unwrapped columns that
 * do not wrap, rows j0 at most six apart (a 4x4 block's four pixel rows up
 * to two texels apart: bench_render (b)'s quads minified up to two texels
 * a pixel; two quads side by side, rows a texel or two apart). Rows jmin
 * .. jmax + 1 (wrapped) are read 64 bytes at a time, in pairs: each lane's
 * texel is row (j0 - jmin) and column cx of that table, picked from the
 * pair holding its row by one vpermt2d (index 16 * row + cx, modulo 32)
 * and the pairs' picks merged by masks.
 * Where the lanes' columns fit eight (i0 at most six apart: a 4x4 block
 * at under two texels a pixel, the finer level of every trilinear block
 * that is not anisotropic), window8() reads them instead. */
AVX512_FN bool window16(const uint8_t *level, int32_t w, int32_t h, size_t row, __m512i i0,
                        __m512i j0, __m512i t[4])
{
   if (w < 8 || (sr_sample_fast_test && sr_sample_fast_test->gathers_only))
      return false;
   /* The least i0 and j0: lane 0's where no lane lies below it (i0 - i0
    * of lane 0 and j0 - j0 of lane 0 all in [0, 2^31): a draw's 4x4 block
    * where s and t do not fall to the right or down, as bench_render (b)'s
    * quads), read without waiting for a reduction over the lanes, on the
    * way from the coordinates to the rows' loads; else one reduction, i0's
    * halves in quarters 0-1, j0's in 2-3. The same least values either
    * way. */
   int32_t imin = _mm_cvtsi128_si32(_mm512_castsi512_si128(i0));
   int32_t jmin = _mm_cvtsi128_si32(_mm512_castsi512_si128(j0));
   __m512i di = _mm512_sub_epi32(i0, _mm512_set1_epi32(imin));
   __m512i dj = _mm512_sub_epi32(j0, _mm512_set1_epi32(jmin));
   if (_mm512_movepi32_mask(_mm512_or_si512(di, dj))) {
      __m512i m = _mm512_min_epi32(_mm512_shuffle_i64x2(i0, j0, 0x44), _mm512_shuffle_i64x2(i0, j0, 0xee));
      m = _mm512_min_epi32(m, _mm512_shuffle_i64x2(m, m, 0xb1));
      m = _mm512_min_epi32(m, _mm512_shuffle_epi32(m, (_MM_PERM_ENUM)0x4e));
      m = _mm512_min_epi32(m, _mm512_shuffle_epi32(m, (_MM_PERM_ENUM)0xb1));
      imin = _mm_cvtsi128_si32(_mm512_castsi512_si128(m));
      jmin = _mm_cvtsi128_si32(_mm512_extracti32x4_epi32(m, 2));
      di = _mm512_sub_epi32(i0, _mm512_set1_epi32(imin));
      dj = _mm512_sub_epi32(j0, _mm512_set1_epi32(jmin));
   }
   const int32_t c0 = imin & (w - 1);   /* the wrapped column of imin */
   /* Every lane's i0 - imin (exact as unsigned: i0 lies in [-2^30, 2^30])
    * at most 14 (six for window8) and w - 2 - c0 (its second column
    * before the level's last one, unwrapped), j0 - jmin at most 6. */
   if (_mm512_cmpgt_epu32_mask(dj, _mm512_set1_epi32(6)))
      return false;
   const int32_t lim8 = w - 2 - c0 < 6 ? w - 2 - c0 : 6;
   if (lim8 >= 0 && !_mm512_cmpgt_epu32_mask(di, _mm512_set1_epi32(lim8))) {
      window8(level, w, h, row, c0, jmin, di, dj, t);
      return true;
   }
   const int32_t lim = w - 2 - c0 < 14 ? w - 2 - c0 : 14;
   if (w < 16 || lim < 0 || _mm512_cmpgt_epu32_mask(di, _mm512_set1_epi32(lim)))
      return false;
   /* Columns cs .. cs + 15 of the level hold every lane's. */
   const int32_t cs = c0 < w - 16 ? c0 : w - 16;
   const uint8_t *p = level + (size_t)cs * 4;
   const int32_t hm = h - 1;
   /* Index of each lane's first texel in the table of rows jmin ..:
    * 16 * (j0 - jmin) + (i0 - imin) + (c0 - cs), in [0, 111]; its second
    * is one on (never across a row: the column is at most 14), the next
    * row's two sixteen on. */
   const __m512i top = _mm512_add_epi32(_mm512_slli_epi32(dj, 4), _mm512_add_epi32(di, _mm512_set1_epi32(c0 - cs)));
   const __m512i bot = _mm512_add_epi32(top, _mm512_set1_epi32(16));
   const __m512i one = _mm512_set1_epi32(1);
   __m512i r0 = _mm512_loadu_si512((const void *)(p + (size_t)(jmin & hm) * row));
   __m512i r1 = _mm512_loadu_si512((const void *)(p + (size_t)((jmin + 1) & hm) * row));
   t[0] = _mm512_permutex2var_epi32(r0, top, r1);
   t[1] = _mm512_permutex2var_epi32(r0, _mm512_add_epi32(top, one), r1);
   t[2] = _mm512_permutex2var_epi32(r0, bot, r1);
   t[3] = _mm512_permutex2var_epi32(r0, _mm512_add_epi32(bot, one), r1);
   for (int q = 1; q < 4; q++) {
      /* Lanes whose row lies in pair q or later take it (the indices
       * rise with the row; bot > top: none past the last pair a bot
       * reaches). */
      const __m512i first = _mm512_set1_epi32(32 * q);
      const __mmask16 mb = _mm512_cmpge_epi32_mask(bot, first);
      if (!mb)
         break;
      const __mmask16 mt = _mm512_cmpge_epi32_mask(top, first);
      __m512i ra = _mm512_loadu_si512((const void *)(p + (size_t)((jmin + 2 * q) & hm) * row));
      __m512i rb = _mm512_loadu_si512((const void *)(p + (size_t)((jmin + 2 * q + 1) & hm) * row));
      t[0] = _mm512_mask_blend_epi32(mt, t[0], _mm512_permutex2var_epi32(ra, top, rb));
      t[1] = _mm512_mask_blend_epi32(mt, t[1], _mm512_permutex2var_epi32(ra, _mm512_add_epi32(top, one), rb));
      t[2] = _mm512_mask_blend_epi32(mb, t[2], _mm512_permutex2var_epi32(ra, bot, rb));
      t[3] = _mm512_mask_blend_epi32(mb, t[3], _mm512_permutex2var_epi32(ra, _mm512_add_epi32(bot, one), rb));
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->windows += 2;   /* counted per eight lanes */
   return true;
}

/* One level of fixed_level16 between its steps: its size and addressing,
 * each lane's texel column and row and weights, then its texels. */
struct lev16 {
   int32_t w, h, row, start;
   __m512i i0, j0, wa, wb;
   __m512i tx[4];
};

/* fixed_level16's first step: the level's size and addressing, i0, j0,
 * wa and wb. */
AVX512_FN void fixed_coords16(const struct fast *f, __m512 s, __m512 t, int32_t lvl, struct lev16 *L)
{
   const struct shale_image_view_desc *v = f->v;
   const int32_t w = f->width >> lvl > 1 ? f->width >> lvl : 1;
   const int32_t h = f->height >> lvl > 1 ? f->height >> lvl : 1;
   const int32_t row = (int32_t)v->row_pitch[lvl], start = (int32_t)v->level_offset[lvl];
   /* 256 u and 256 v (u = s * w - 1/2: scaling by 256 commutes with the
    * roundings) rounded down to integers: i0 and the weight wa (floor(u)
    * and floor(256 (u - floor(u)))) are its bits above and below the
    * eighth, as fixed_level() takes them, wherever |256 u| < 2^31; a lane
    * out of that range or NaN (vcvtps2dq's 0x80000000, as is -2^31
    * itself) sends all to fixed_level()'s floors and clamps. */
   /* s * 256 w - 128 as one multiply-add: 256 w is a power of two (the
    * view's levels are), so s * 256 w is exact and the fused form rounds
    * the same sum once, as the multiplication and the subtraction did. */
   const __m512 k128 = _mm512_set1_ps(128.0f);
   __m512i fu = _mm512_cvt_roundps_epi32(_mm512_fmsub_ps(s, _mm512_set1_ps((float)w * 256.0f), k128),
                                         _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
   __m512i fv = _mm512_cvt_roundps_epi32(_mm512_fmsub_ps(t, _mm512_set1_ps((float)h * 256.0f), k128),
                                         _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
   const __m512i m255 = _mm512_set1_epi32(0xff), bad = _mm512_set1_epi32(INT32_MIN);
   __m512i i0 = _mm512_srai_epi32(fu, 8), j0 = _mm512_srai_epi32(fv, 8);
   __m512i wa = _mm512_and_si512(fu, m255), wb = _mm512_and_si512(fv, m255);
   if (_mm512_cmpeq_epi32_mask(fu, bad) | _mm512_cmpeq_epi32_mask(fv, bad)) {
      const __m512 half = _mm512_set1_ps(0.5f), k256 = _mm512_set1_ps(256.0f);
      __m512 u = _mm512_sub_ps(_mm512_mul_ps(s, _mm512_set1_ps((float)w)), half);
      __m512 vv = _mm512_sub_ps(_mm512_mul_ps(t, _mm512_set1_ps((float)h)), half);
      __m512 ffu, ffv;
      i0 = fixed_floor16(u, &ffu);
      j0 = fixed_floor16(vv, &ffv);
      wa = _mm512_and_si512(_mm512_cvttps_epi32(_mm512_mul_ps(_mm512_sub_ps(u, ffu), k256)), m255);
      wb = _mm512_and_si512(_mm512_cvttps_epi32(_mm512_mul_ps(_mm512_sub_ps(vv, ffv), k256)), m255);
   }
   L->w = w;
   L->h = h;
   L->row = row;
   L->start = start;
   L->i0 = i0;
   L->j0 = j0;
   L->wa = wa;
   L->wb = wb;
}

/* fixed_level16's second step: the level's texels, from a window or
 * gathers. */
AVX512_FN void fixed_texels16(const struct fast *f, struct lev16 *L)
{
   const int32_t w = L->w, h = L->h, row = L->row, start = L->start;
   const __m512i i0 = L->i0, j0 = L->j0;
   __m512i *tx = L->tx;
   if (!window16(f->base + (size_t)start, w, h, (size_t)row, i0, j0, tx)) {
      const __m512i wm = _mm512_set1_epi32(w - 1), hm = _mm512_set1_epi32(h - 1);
      const __m512i one = _mm512_set1_epi32(1), rp = _mm512_set1_epi32(row), st = _mm512_set1_epi32(start);
      __m512i x0 = _mm512_slli_epi32(_mm512_and_si512(i0, wm), 2);
      __m512i x1 = _mm512_slli_epi32(_mm512_and_si512(_mm512_add_epi32(i0, one), wm), 2);
      __m512i y0 = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_and_si512(j0, hm), rp), st);
      __m512i y1 = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_and_si512(_mm512_add_epi32(j0, one), hm), rp), st);
      if (!_mm512_cmpneq_epi32_mask(x1, _mm512_add_epi32(x0, _mm512_set1_epi32(4)))) {
         /* No lane on the level's last column: one 64-bit word a row. */
         const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
         const __m512i odd = _mm512_add_epi32(even, one);
         for (int r = 0; r < 2; r++) {
            __m512i o = _mm512_add_epi32(r ? y1 : y0, x0);
            __m512i lo = _mm512_i32gather_epi64(_mm512_castsi512_si256(o), (const void *)f->base, 1);
            __m512i hi = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(o, 1), (const void *)f->base, 1);
            tx[2 * r] = _mm512_permutex2var_epi32(lo, even, hi);
            tx[2 * r + 1] = _mm512_permutex2var_epi32(lo, odd, hi);
         }
      } else {
         tx[0] = _mm512_i32gather_epi32(_mm512_add_epi32(y0, x0), (const void *)f->base, 1);
         tx[1] = _mm512_i32gather_epi32(_mm512_add_epi32(y0, x1), (const void *)f->base, 1);
         tx[2] = _mm512_i32gather_epi32(_mm512_add_epi32(y1, x0), (const void *)f->base, 1);
         tx[3] = _mm512_i32gather_epi32(_mm512_add_epi32(y1, x1), (const void *)f->base, 1);
      }
   }
}

/* fixed_level() on sixteen lanes sharing level `lvl`. */
AVX512_FN void fixed_level16(const struct fast *f, __m512 s, __m512 t, int32_t lvl, __m512i out[4])
{
   struct lev16 L;
   fixed_coords16(f, s, t, lvl, &L);
   fixed_texels16(f, &L);
   fixed_filter16(L.tx[0], L.tx[1], L.tx[2], L.tx[3], L.wa, L.wb, out);
}

/* fixed_level16() on levels lvl and lvl1 at once, step by step (both
 * levels' coordinates, then both levels' texels, then both filters), so
 * that the second level's loads are not queued behind the first level's
 * filter: the same texels and sums. */
AVX512_FN void fixed_level16x2(const struct fast *f, __m512 s, __m512 t, int32_t lvl, int32_t lvl1,
                               __m512i out[4], __m512i out1[4])
{
   struct lev16 L, L1;
   fixed_coords16(f, s, t, lvl, &L);
   fixed_coords16(f, s, t, lvl1, &L1);
   fixed_texels16(f, &L);
   fixed_texels16(f, &L1);
   fixed_filter16(L.tx[0], L.tx[1], L.tx[2], L.tx[3], L.wa, L.wb, out);
   fixed_filter16(L1.tx[0], L1.tx[1], L1.tx[2], L1.tx[3], L1.wa, L1.wb, out1);
}

/* fixed_mip() on sixteen lanes, channel-planar (r0[c], r1[c]: channel c
 * of lanes 0 .. 15, less FIXED16_OFFSET), on the lanes of `take` (the
 * others keep r0): each level's sum truncated to 1/256 of a code (bits
 * 8 .. 23, the exact value less 32640), blended by dw's (256 - d, d)
 * (struct sel16) in one vpmaddwd, merged under the mask, which leaves the
 * exact blend less FIXED16_OFFSET again. */
AVX512_FN void fixed_mip16(__m512i r0[4], const __m512i r1[4], __m512i dw, __mmask16 take)
{
   for (int k = 0; k < 4; k++) {
      __m512i x = _mm512_mask_blend_epi16(0xaaaaaaaau, _mm512_srli_epi32(r0[k], 8), _mm512_slli_epi32(r1[k], 8));
      r0[k] = _mm512_mask_madd_epi16(r0[k], take, x, dw);
   }
}

/* vhalf_log2() on sixteen lanes: the same operations in the same order
 * (vsel(x > c, x, c) is vmaxps(x, c): c for NaN), so the same bits, but
 * for f = m - 1 (m halved where above sqrt(2)), which is taken as one of
 * m - 1 and m * 0.5 - 1 (one multiply-add) computed side by side and
 * picked by the comparison's mask: both are exact (m * 0.5 is, and each
 * difference lies within a factor of two of 1), so f is the same value,
 * three dependent steps sooner. */
AVX512_FN __m512 half_log2_16(__m512 x)
{
   x = _mm512_max_ps(x, _mm512_set1_ps(0x1p-126f));
   const __m512i bits = _mm512_castps_si512(x);
   __m512i e = _mm512_sub_epi32(_mm512_and_si512(_mm512_srli_epi32(bits, 23), _mm512_set1_epi32(0xff)),
                                _mm512_set1_epi32(127));
   __m512 m = _mm512_castsi512_ps(_mm512_or_si512(_mm512_and_si512(bits, _mm512_set1_epi32(0x007fffff)),
                                                  _mm512_set1_epi32(0x3f800000)));
   const __mmask16 big = _mm512_cmp_ps_mask(m, _mm512_set1_ps(1.41421356f), _CMP_GT_OQ);
   e = _mm512_mask_add_epi32(e, big, e, _mm512_set1_epi32(1));
   const __m512 one = _mm512_set1_ps(1.0f);
   const __m512 f = _mm512_mask_blend_ps(big, _mm512_sub_ps(m, one), _mm512_fmsub_ps(m, _mm512_set1_ps(0.5f), one));
   const __m512 f2 = _mm512_mul_ps(f, f);
   const __m512 p0 = _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-0.360680104f), f), _mm512_set1_ps(0.721348285f));
   const __m512 p1 = _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-0.17976223f), f), _mm512_set1_ps(0.240306556f));
   const __m512 p2 = _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(-0.133981928f), f), _mm512_set1_ps(0.148059786f));
   const __m512 q0 = _mm512_add_ps(_mm512_mul_ps(p1, f2), p0);
   const __m512 q1 = _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(0.084093295f), f2), p2);
   const __m512 y = _mm512_add_ps(_mm512_mul_ps(q1, _mm512_mul_ps(f2, f2)), q0);
   return _mm512_add_ps(_mm512_mul_ps(f, y), _mm512_mul_ps(_mm512_set1_ps(0.5f), _mm512_cvtepi32_ps(e)));
}

/* What fixed_select() gives sixteen lanes that share their first level
 * (lanes asked for): that level, each lane's mipmap weight and whether it
 * has a second level. */
struct sel16 {
   int32_t lvl;
   __mmask16 two;   /* delta > 0 */
   /* The mipmap weight d = floor(256 delta) as the word pair (256 - d, d):
    * d is floor(256 dl) modulo 256 (dl in [0, q] is the clamped lambda,
    * delta = dl - floor(dl), both exact, and 256 dl exact), which does not
    * wait for delta. */
   __m512i dw;
};

/* What fixed_pre16 finds a call's level selection needs. */
enum { SEL16_LEVEL0, SEL16_GRAD, SEL16_LOD };

/* fixed_select()'s first step on the sixteen lanes of a call whose halves
 * both have lanes asked for: the bias (b) and, for GRAD, the larger
 * squared scale of each lane (qm), then the level-0 shortcut where every
 * lane asked for allows it. SEL16_LEVEL0: level 0 alone (no second level,
 * weight 256, as fixed_select() gives there); SEL16_GRAD: lambda is half
 * the log2 of qm; SEL16_LOD: lambda is the call's lod. */
AVX512_FN int fixed_pre16(const struct fast *f, const struct shale_sample_args *a, __m512 *bias,
                          __m512 *qmax)
{
   const uint32_t op = a->op;
   const __mmask16 on = (__mmask16)a->lanes;
   __m512 b;
   if ((op & SHALE_SAMPLE_BIAS) && (op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      b = _mm512_add_ps(_mm512_set1_ps(f->bias), _mm512_loadu_ps(&a->lod[0]));
      b = _mm512_max_ps(b, _mm512_set1_ps(-MAX_LOD_BIAS));
      b = _mm512_min_ps(b, _mm512_set1_ps(MAX_LOD_BIAS));
   } else {
      b = _mm512_set1_ps(f->bias);
   }
   *bias = b;
   *qmax = _mm512_setzero_ps();
   const bool shortcut = !(sr_sample_fast_test && sr_sample_fast_test->no_shortcut);
   bool one = f->one_level && shortcut;
   int kind = SEL16_LOD;
   if (!one && (op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      const __m512 fw = _mm512_set1_ps(f->fwidth), fh = _mm512_set1_ps(f->fheight);
      __m512 mx0 = _mm512_mul_ps(_mm512_loadu_ps(&a->grad[0][0][0]), fw);
      __m512 mx1 = _mm512_mul_ps(_mm512_loadu_ps(&a->grad[0][1][0]), fh);
      __m512 my0 = _mm512_mul_ps(_mm512_loadu_ps(&a->grad[1][0][0]), fw);
      __m512 my1 = _mm512_mul_ps(_mm512_loadu_ps(&a->grad[1][1][0]), fh);
      __m512 qx = _mm512_add_ps(_mm512_mul_ps(mx0, mx0), _mm512_mul_ps(mx1, mx1));
      __m512 qy = _mm512_add_ps(_mm512_mul_ps(my0, my0), _mm512_mul_ps(my1, my1));
      __m512 qm = _mm512_max_ps(qx, qy);
      if (f->mag_level0 && shortcut) {
         __mmask16 ok = _mm512_cmp_ps_mask(qm, _mm512_set1_ps(1.0f), _CMP_LE_OQ) &
                        _mm512_cmp_ps_mask(b, _mm512_setzero_ps(), _CMP_LE_OQ);
         one = (ok & on) == on;
      }
      *qmax = qm;
      kind = SEL16_GRAD;
   }
   if (one) {
      if (sr_sample_fast_test)
         sr_sample_fast_test->level0_chunks += 2;   /* counted per eight lanes */
      return SEL16_LEVEL0;
   }
   return kind;
}

/* fixed_select()'s second step, after fixed_pre16 (kind SEL16_GRAD or
 * SEL16_LOD): the same operations on 512-bit vectors (so the same bits
 * lane for lane; where the shortcut was not taken lambda is computed on
 * every lane, which gives the shortcut's level, weight and absence of a
 * second level on the lanes that would have taken it: the shortcut's own
 * argument). false: the lanes asked for do not share one first level
 * (the caller takes each half on its own). */
AVX512_FN bool fixed_select16(const struct fast *f, const struct shale_sample_args *a, int kind, __m512 b,
                              __m512 qm, bool plain, struct sel16 *sel)
{
   const __mmask16 on = (__mmask16)a->lanes;
   __m512 lambda = kind == SEL16_GRAD ? half_log2_16(qm) : _mm512_loadu_ps(&a->lod[0]);
   if (!plain) {
      lambda = _mm512_add_ps(lambda, b);
      lambda = _mm512_max_ps(lambda, _mm512_set1_ps(f->min_lod));
      lambda = _mm512_min_ps(lambda, _mm512_set1_ps(f->max_lod));
   }
   __m512 dl = _mm512_max_ps(_mm512_min_ps(lambda, _mm512_set1_ps(f->q)), _mm512_setzero_ps());
   __m512i lvl0 = _mm512_cvttps_epi32(dl);
   const __m512 delta = _mm512_sub_ps(dl, _mm512_cvtepi32_ps(lvl0));
   sel->two = _mm512_cmp_ps_mask(delta, _mm512_setzero_ps(), _CMP_GT_OQ);
   /* d = floor(256 dl) mod 256: the low byte of dl + 2^15 rounded down
    * (dl in [0, 15]: the sum's last bit is 2^-8, so its mantissa is
    * 2^23 + floor(256 dl)), one addition where a multiplication and a
    * conversion took longer. */
   const __m512i d = _mm512_and_si512(
      _mm512_castps_si512(_mm512_add_round_ps(dl, _mm512_set1_ps(32768.0f), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)),
      _mm512_set1_epi32(0xff));
   sel->dw = _mm512_or_si512(_mm512_sub_epi32(_mm512_set1_epi32(256), d), _mm512_slli_epi32(d, 16));
   /* The first lane asked for's level, shared by every lane asked for? */
   const __m512i first = _mm512_permutexvar_epi32(_mm512_set1_epi32((int32_t)__builtin_ctz(on)), lvl0);
   sel->lvl = _mm_cvtsi128_si32(_mm512_castsi512_si128(first));
   return !_mm512_mask_cmpneq_epi32_mask(on, lvl0, first);
}

/* The mipmap blend of fixed_chunk16: r1 (level lvl + 1) into r0 on the
 * halves with a lane asked for that has a second level (two: those lanes). */
AVX512_FN void fixed_blend16(__m512i r0[4], const __m512i r1[4], __m512i dw, __mmask16 two)
{
   /* A half with no second level keeps r0 (fixed_chunk skips the blend). */
   const __mmask16 take = ((two & 0x00ffu) ? 0x00ffu : 0) | ((two & 0xff00u) ? 0xff00u : 0);
   fixed_mip16(r0, r1, dw, take);
}

/* fixed_chunk16's levels once fixed_select16 has chosen them: level
 * sel->lvl, its second where a lane asked for has one, blended. */
AVX512_FN void fixed_levels16(const struct fast *f, const struct shale_sample_args *a,
                              const struct sel16 *sel, __m512i r0[4])
{
   const int32_t lvl = sel->lvl;
   const __m512 s = _mm512_loadu_ps(&a->coord[0][0]), t = _mm512_loadu_ps(&a->coord[1][0]);
   const __mmask16 two = sel->two & (__mmask16)a->lanes;
   if (two) {
      /* Lanes sharing level lvl share its second, min(lvl + 1, last). */
      __m512i r1[4];
      fixed_level16x2(f, s, t, lvl, lvl + 1 < f->last_level ? lvl + 1 : f->last_level, r0, r1);
      fixed_blend16(r0, r1, sel->dw, two);
   } else {
      fixed_level16(f, s, t, lvl, r0);
   }
}

/* A guess at fixed_select16's level from the first lane asked for alone:
 * half the binary exponent of its larger square (fixed_pre16's qm, read
 * from the vector), floor(log2(rho)), clamped to the view's levels. That
 * is floor(lambda) but where vhalf_log2's rounding carries lambda up to
 * the next integer, for GRAD without a bias (the sampler's or the call's)
 * and LOD clamps that do not bind (minLod <= 0, maxLod at least the last
 * level); -1 (no guess) for any other call. *minified: whether the lane's
 * lambda is at least 0 (the square at least 1), where a second level is
 * likely. Only a guess: fixed_chunk16 checks it against fixed_select16's
 * level, which it needs no sooner, so that the levels' reads and
 * filtering need not wait for the polynomial. */
AVX512_FN int32_t fixed_guess16(const struct fast *f, const struct shale_sample_args *a, __m512 qm,
                                bool *minified)
{
   *minified = false;
   if (a->op != SHALE_SAMPLE_GRAD || f->bias != 0.0f || !(f->min_lod <= 0.0f) || !(f->max_lod >= f->q))
      return -1;
   /* Lane 0 where it is asked for (a draw's full block): no permute and
    * no wait for the mask's bit scan. */
   const uint32_t lanes = a->lanes;
   __m128i q0 = _mm512_castsi512_si128(_mm512_castps_si512(qm));
   if (!(lanes & 1u))
      q0 = _mm512_castsi512_si128(
         _mm512_permutexvar_epi32(_mm512_set1_epi32((int32_t)__builtin_ctz(lanes)), _mm512_castps_si512(qm)));
   /* The larger square's exponent (NaN: 128, a level beyond the last). */
   const uint32_t bits = (uint32_t)_mm_cvtsi128_si32(q0);
   const int32_t e = (int32_t)((bits >> 23) & 0xffu) - 127;
   *minified = e >= 0;
   const int32_t g = e >= 0 ? e >> 1 : 0;
   return g < f->last_level ? g : f->last_level;
}

/* fixed_lanes() on sixteen lanes: the planar sums (fixed_filter16's or
 * fixed_mip16's) made exact again (FIXED16_OFFSET added: below 2^24, so
 * converted to floats exactly), scaled, and stored for the lanes asked
 * for; no transpose (the sums are already in lane order), no swizzle (the
 * trilinear-ready views have none). Written out channel by channel, with
 * one test of the mask, so that the four results go from registers to
 * a->result (GCC kept an array of them on the stack, which put a store
 * and a load on the way to the caller's loads). */
AVX512_FN void fixed_store16(struct shale_sample_args *a, const __m512i r0[4], bool bgra)
{
   const __mmask16 on = (__mmask16)a->lanes;
   const __m512i bias = _mm512_set1_epi32(FIXED16_OFFSET);
   const __m512 scale = _mm512_set1_ps(1.0f / (255.0f * 65536.0f));
   const __m512 c0 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(r0[0], bias)), scale);
   const __m512 c1 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(r0[1], bias)), scale);
   const __m512 c2 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(r0[2], bias)), scale);
   const __m512 c3 = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_add_epi32(r0[3], bias)), scale);
   const __m512 r = bgra ? c2 : c0, b = bgra ? c0 : c2;
   /* All lanes asked for: plain stores, which the caller's loads of the
    * results right after the call take from the store buffer (masked
    * ones they wait for). */
   if (on == 0xffff) {
      _mm512_storeu_ps(&a->result[0][0], r);
      _mm512_storeu_ps(&a->result[1][0], c1);
      _mm512_storeu_ps(&a->result[2][0], b);
      _mm512_storeu_ps(&a->result[3][0], c3);
   } else {
      _mm512_mask_storeu_ps(&a->result[0][0], on, r);
      _mm512_mask_storeu_ps(&a->result[1][0], on, c1);
      _mm512_mask_storeu_ps(&a->result[2][0], on, b);
      _mm512_mask_storeu_ps(&a->result[3][0], on, c3);
   }
}

/* fixed_levels16() and the stores out of line, for the calls whose guess
 * at the level missed (rare: one copy fewer of the levels' code inlined;
 * the call's state is decoded again here, so that the inlined path hands
 * out no address of its state or sums, which GCC then kept in memory). */
__attribute__((noinline, target("avx2,avx512f,avx512bw,avx512dq,avx512vl"))) static void
fixed_redo16(const struct shale_image_view_desc *view, const struct shale_sampler_desc *sampler,
             struct shale_sample_args *a, const struct sel16 *sel, bool bgra)
{
   struct fast f;
   fast_init_tri(&f, view, sampler);
   __m512i r0[4];
   fixed_levels16(&f, a, sel, r0);
   fixed_store16(a, r0, bgra);
}

/* Lanes 0 .. 15 of a call in the fixed-point trilinear state whose halves
 * both have lanes asked for (see the note above). With a guess at the
 * level (fixed_guess16), its level (and the next, where the guess says
 * minified) are read and filtered from the guess, which depends on the
 * gradients alone, while fixed_select16's polynomial runs; where the
 * guess is not its level, or a second level is wanted that the guess did
 * not read, fixed_levels16 reads them again: the same levels, texels and
 * sums either way. */
AVX512_FN void fixed_chunk16(const struct fast *f, const struct shale_image_view_desc *view,
                             const struct shale_sampler_desc *sampler, struct shale_sample_args *a,
                             bool bgra)
{
   struct sel16 sel;
   __m512 b, qm;
   const int kind = fixed_pre16(f, a, &b, &qm);
   if (kind == SEL16_LEVEL0) {
      /* Level 0 alone on every lane asked for (magnified): no guess, no
       * polynomial. */
      __m512i r0[4];
      fixed_level16(f, _mm512_loadu_ps(&a->coord[0][0]), _mm512_loadu_ps(&a->coord[1][0]), 0, r0);
      fixed_store16(a, r0, bgra);
      return;
   }
   bool minified = false;
   const int32_t g = kind == SEL16_GRAD ? fixed_guess16(f, a, qm, &minified) : -1;
   /* Where a guess is made (GRAD, no bias, minLod <= 0, maxLod at least
    * the last level) lambda + 0 and the clamps to [minLod, maxLod] change
    * nothing that is read (lambda is finite: half_log2_16 gives no NaN;
    * -0 and +0 give the same level and weights), so fixed_select16 leaves
    * them off its way to the mipmap weight. */
   const bool ok = g >= 0 ? fixed_select16(f, a, kind, b, qm, true, &sel)
                          : fixed_select16(f, a, kind, b, qm, false, &sel);
   if (!ok) {
      fixed_chunk_avx2(f, a, 0, bgra, true);
      fixed_chunk_avx2(f, a, 8, bgra, true);
      return;
   }
   if (g < 0) {
      /* No guess (LOD calls, biases, binding LOD clamps). */
      __m512i r0[4];
      fixed_levels16(f, a, &sel, r0);
      fixed_store16(a, r0, bgra);
      return;
   }
   /* Each way ends in its own store, so that the sums stay in registers
    * (merged, GCC kept them on the stack). */
   const __m512 s = _mm512_loadu_ps(&a->coord[0][0]), t = _mm512_loadu_ps(&a->coord[1][0]);
   const __mmask16 two = sel.two & (__mmask16)a->lanes;
   __m512i r0[4];
   if (minified && g < f->last_level) {
      __m512i r1[4];
      fixed_level16x2(f, s, t, g, g + 1, r0, r1);
      const bool miss = sel.lvl != g;
      if (sr_sample_fast_test) {
         sr_sample_fast_test->level_guesses++;
         sr_sample_fast_test->guess_misses += miss;
      }
      if (miss) {
         fixed_redo16(view, sampler, a, &sel, bgra);
         return;
      }
      if (two)
         fixed_blend16(r0, r1, sel.dw, two);
      fixed_store16(a, r0, bgra);
   } else {
      fixed_level16(f, s, t, g, r0);
      const bool miss = sel.lvl != g || two;
      if (sr_sample_fast_test) {
         sr_sample_fast_test->level_guesses++;
         sr_sample_fast_test->guess_misses += miss;
      }
      if (miss) {
         fixed_redo16(view, sampler, a, &sel, bgra);
         return;
      }
      fixed_store16(a, r0, bgra);
   }
}

/* ---- AVX-512: single-level NEAREST on 8-bit UNORM RGBA / BGRA, sixteen lanes - */
/*
 * near_chunk32()'s arithmetic (sr_sample_fast_nl.h) on a call's sixteen
 * lanes at once, for the calls nl_run() hands it (NEAREST filters, one
 * level chosen, 2D, 8-bit UNORM RGBA or BGRA) with lanes asked for in both
 * halves: the same float multiplications, additions of offsets, clamps
 * and truncations (CLAMP_TO_EDGE; other modes take near_index() per
 * half), the same texels, and each code's quotient by 255 (unorm8_16,
 * the bits vdiv255 gives), so the AVX2 routine's bits. The texels come
 * from one 16-lane gather. A window (one 64-byte load of each row the
 * lanes read, up to eight or sixteen, and a vpermt2d per pair of rows,
 * where the lanes lay within sixteen columns) was slower than the gather
 * on both CPUs measured: vkcube-like calls (256x256, faces of 64 4x4
 * blocks at 0.4 to 2.6 texels a pixel, rotated) took 29-33 ns a call with
 * eight-row windows against 21-26 with the gather alone on a Sapphire
 * Rapids Xeon, 28-33 against 24 on Zen 4 (the reduction of the lanes'
 * bounds, the scalar row addresses and the branches on the rows' count
 * sit on the call's path; the gather does not), and vkcube's sampler
 * samples fell about 5% on Zen 4.
 */
AVX512_FN __m512i near_index16(__m512 x, int32_t n, uint32_t mode, bool pow2)
{
   if (mode != VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE) {
      __m256i lo = near_index_avx2(_mm512_castps512_ps256(x), n, mode, pow2);
      __m256i hi = near_index_avx2(
         _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)), n, mode, pow2);
      return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
   }
   x = _mm512_max_ps(x, _mm512_setzero_ps());
   x = _mm512_min_ps(x, _mm512_set1_ps((float)(n - 1)));
   return _mm512_cvttps_epi32(x);
}

/* c / 255.0f for the 8-bit code c in byte `byte` (0 .. 3) of each 32-bit
 * lane of t: the correctly rounded quotient (the division's bits, which
 * su_unpack_float's table holds) without a division, for any c. A byte
 * shuffle repeats c in the four bytes of its lane, N = c * 0x01010101 =
 * c (2^32 - 1) / 255, so c / 255 = (N + N / 2^32) / 2^32 with 0 <= N / 2^32
 * < 1. For c >= 1 of b bits (1 .. 8), N has 24 + b bits: rounding it to a
 * float's 24 drops its low b bits, which are c itself (its low byte),
 * and the quotient's part below those 24 bits is c + N / 2^32 units of
 * the lowest bit, in (2^(b - 1), 2^b): above half a float ulp (2^(b - 1)
 * units) and below one, so the nearest float is N truncated plus an ulp:
 * what converting N rounded up gives (its dropped bits, c, are not 0;
 * 255 gives 2^32, so 1). c = 0 gives 0. Scaling by 2^-32 is exact.
 * Three instructions a component (vpshufb, vcvtudq2ps {ru}, vmulps), where
 * vdiv255's division-free form took a shift, a mask, a conversion and six
 * dependent multiplications and additions. unit/sample's
 * test_unorm8_codes checks every code of every byte through
 * near_chunk16 against the division. */
AVX512_FN __m512 unorm8_16(__m512i t, int byte)
{
   /* Byte 4 q + byte of the 128-bit quarter, for the lane's dword q. */
   const __m512i ctrl = _mm512_add_epi32(
      _mm512_setr_epi32(0, 0x04040404, 0x08080808, 0x0c0c0c0c, 0, 0x04040404, 0x08080808, 0x0c0c0c0c,
                        0, 0x04040404, 0x08080808, 0x0c0c0c0c, 0, 0x04040404, 0x08080808, 0x0c0c0c0c),
      _mm512_set1_epi32(0x01010101 * byte));
   const __m512 n = _mm512_cvt_roundepu32_ps(_mm512_shuffle_epi8(t, ctrl),
                                             _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
   return _mm512_mul_ps(n, _mm512_set1_ps(0x1p-32f));
}

AVX512_FN void near_chunk16(const struct fast *f, struct shale_sample_args *a, bool bgra)
{
   const __mmask16 on = (__mmask16)(a->lanes & 0xffffu);
   const struct shale_image_view_desc *view = f->v;
   const int32_t w = f->width, h = f->height;
   const int32_t row = (int32_t)view->row_pitch[0], start = (int32_t)view->level_offset[0];
   __m512 u = _mm512_mul_ps(_mm512_loadu_ps(&a->coord[0][0]), _mm512_set1_ps(f->fwidth));
   __m512 v = _mm512_mul_ps(_mm512_loadu_ps(&a->coord[1][0]), _mm512_set1_ps(f->fheight));
   if (a->op & SHALE_SAMPLE_OFFSET) {
      u = _mm512_add_ps(u, _mm512_cvtepi32_ps(_mm512_loadu_si512((const void *)&a->offset[0][0])));
      v = _mm512_add_ps(v, _mm512_cvtepi32_ps(_mm512_loadu_si512((const void *)&a->offset[1][0])));
   }
   const __m512i xi = near_index16(u, w, f->mode_u, f->pow2w);
   const __m512i yi = near_index16(v, h, f->mode_v, f->pow2h);
   const __m512i off = _mm512_add_epi32(_mm512_mullo_epi32(yi, _mm512_set1_epi32(row)),
                                        _mm512_add_epi32(_mm512_set1_epi32(start), _mm512_slli_epi32(xi, 2)));
   const __m512i t = _mm512_i32gather_epi32(off, (const void *)f->base, 1);
   for (int k = 0; k < 4; k++) {
      /* The component the swizzle takes, from its byte (BGRA: B, G, R, A). */
      const uint8_t sw = f->swz[k];
      __m512 r = sw < 4 ? unorm8_16(t, bgra && sw != 3 ? 2 - sw : sw)
                        : _mm512_set1_ps(sw == SWZ_ONE ? 1.0f : 0.0f);
      if (on == 0xffff)
         _mm512_storeu_ps(&a->result[k][0], r);
      else
         _mm512_mask_storeu_ps(&a->result[k][0], on, r);
   }
}

/* Whether fast_init() would accept the call and near_chunk16() take it
 * (NEAREST filters, one level chosen as nl_single() says, 2D, a lane
 * asked for: calls with lanes in one half too, whose other eight lanes
 * are computed, their indices clamped or wrapped into the level, and not
 * stored, cheaper than the AVX2 chunk with fast_init()),
 * tested on the sampler and view directly (vkcube's every call), with only
 * the fields near_chunk16() reads filled in: fast_init()'s decoding of the
 * rest (3% of vkcube's CPU time) skipped. NEAREST is 0, so both filters
 * are NEAREST where their OR is; a 2D view is not arrayed. */
static inline bool
near16_init(struct fast *f, const struct shale_image_view_desc *v,
            const struct shale_sampler_desc *s, const struct shale_sample_args *a)
{
   if (!s || !(a->lanes & 0xffffu) || !fast_op_ok(a->op) ||
       (s->mag_filter | s->min_filter) != VK_FILTER_NEAREST || !fast_sampler_ok(s) ||
       v->view_type != VK_IMAGE_VIEW_TYPE_2D)
      return false;
   if (!(v->level_count == 1 || s->max_lod <= 0.0f ||
         (s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST && s->max_lod <= 0.5f)))
      return false;
   f->v = v;
   f->base = v->base;
   f->width = (int32_t)v->width;
   f->height = (int32_t)v->height;
   f->fwidth = (float)v->width;
   f->fheight = (float)v->height;
   f->mode_u = s->address_mode[0];
   f->mode_v = s->address_mode[1];
   f->pow2w = (v->width & (v->width - 1)) == 0;
   f->pow2h = (v->height & (v->height - 1)) == 0;
   fast_init_swizzle(f, v);
   return true;
}

/* The AVX2 routine's calls outside the fixed-point trilinear state, with
 * near_chunk16() taking those it can. */
AVX512_FN void run_nl_avx512(const struct shale_image_view_desc *view,
                             const struct shale_sampler_desc *sampler, struct shale_sample_args *args,
                             bool bgra)
{
   struct fast f;
   if (near16_init(&f, view, sampler, args)) {
      if (sr_sample_fast_test)
         sr_sample_fast_test->near16_calls++;
      near_chunk16(&f, args, bgra);
      return;
   }
   if (!fast_init(&f, view, sampler, args->op)) {
      sr_sample(view, sampler, args);
      return;
   }
   run_state_avx2(&f, args, bgra ? FF_BGRA8 : FF_RGBA8, false);
}

AVX512_FN void run_tri_avx512(const struct shale_image_view_desc *view,
                              const struct shale_sampler_desc *sampler, struct shale_sample_args *args,
                              bool bgra)
{
   if (!fast_tri_call(sampler, args->op)) {
      run_nl_avx512(view, sampler, args, bgra);
      return;
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->tri_calls++;
   struct fast f;
   fast_init_tri(&f, view, sampler);
   if ((args->lanes & 0xffu) && (args->lanes & 0xff00u)) {
      fixed_chunk16(&f, view, sampler, args, bgra);
      return;
   }
   for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
      if ((args->lanes >> l0) & 0xffu)
         fixed_chunk_avx2(&f, args, l0, bgra, true);
}

__attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl"))) static void
fast_rgba8_tri_avx512(const struct shale_image_view_desc *view,
                      const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   run_tri_avx512(view, sampler, args, false);
}

__attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl"))) static void
fast_bgra8_tri_avx512(const struct shale_image_view_desc *view,
                      const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   run_tri_avx512(view, sampler, args, true);
}

/* RGBA8 / BGRA8 UNORM views outside fast_tri_view() (any size, swizzle,
 * 2D arrays): run_nl_avx512(). */
__attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl"))) static void
fast_rgba8_nl_avx512(const struct shale_image_view_desc *view,
                     const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   run_nl_avx512(view, sampler, args, false);
}

__attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl"))) static void
fast_bgra8_nl_avx512(const struct shale_image_view_desc *view,
                     const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   run_nl_avx512(view, sampler, args, true);
}

static bool
fast_avx512(void)
{
   return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
}

/* sRGB RGBA / BGRA in the trilinear REPEAT state: 16 lanes in fixed point. */
#include "rasterizer/sr_sample_fast_srgb16.h"
#define SR_FAST_AVX512 1
#else
#define SR_FAST_AVX512 0
#endif

/* ---- selection ------------------------------------------------------------ */

/* The routine's format for views it can take, or -1. */
static int
fast_view_format(const struct shale_image_view_desc *v)
{
   if (!v || !v->base || v->plane_count || v->aspect != VK_IMAGE_ASPECT_COLOR_BIT ||
       v->samples > 1 || !v->level_count || v->level_count > 16 || !v->layer_count ||
       !v->width || !v->height || v->width > (1u << 16) || v->height > (1u << 16))
      return -1;
   if (v->view_type != VK_IMAGE_VIEW_TYPE_2D && v->view_type != VK_IMAGE_VIEW_TYPE_2D_ARRAY)
      return -1;
   int fmt;
   switch (v->format) {
   case VK_FORMAT_R8G8B8A8_UNORM:
   case VK_FORMAT_R8G8B8A8_SRGB:
   case VK_FORMAT_A8B8G8R8_UNORM_PACK32:
   case VK_FORMAT_A8B8G8R8_SRGB_PACK32:
      fmt = FF_RGBA8;
      break;
   case VK_FORMAT_B8G8R8A8_UNORM:
   case VK_FORMAT_B8G8R8A8_SRGB:
      fmt = FF_BGRA8;
      break;
   case VK_FORMAT_R8_UNORM:
   case VK_FORMAT_R8_SRGB:
      fmt = FF_R8;
      break;
   case VK_FORMAT_R8G8_UNORM:
   case VK_FORMAT_R8G8_SRGB:
      fmt = FF_RG8;
      break;
   case VK_FORMAT_R16G16B16A16_SFLOAT:
      fmt = FF_RGBA16F;
      break;
   case VK_FORMAT_R32G32B32A32_SFLOAT:
      fmt = FF_RGBA32F;
      break;
   default:
      return -1;
   }
   /* Every texel aligned to its size (so narrow texels are whole in their
    * aligned word) and its offset below 2^31 (layers: the view's; 2D views
    * read layer 0 only). */
   const uint64_t size = (uint64_t)fmt_size(fmt);
   if (v->texel_size != size || (uintptr_t)v->base % size)
      return -1;
   uint64_t layers = v->view_type == VK_IMAGE_VIEW_TYPE_2D_ARRAY ? v->layer_count : 1;
   for (uint32_t l = 0; l < v->level_count; l++) {
      uint64_t end = v->level_offset[l] + (layers - 1) * v->slice_pitch[l] +
                     (uint64_t)(minify(v->height, l) - 1) * v->row_pitch[l] +
                     (uint64_t)minify(v->width, l) * size;
      if (end > INT32_MAX || v->row_pitch[l] > INT32_MAX || v->slice_pitch[l] > INT32_MAX ||
          (v->level_offset[l] | v->row_pitch[l] | v->slice_pitch[l]) % size)
         return -1;
   }
   return fmt;
}

/* 2D, power-of-two, identity swizzle: what run_tri takes from the view. */
static bool
fast_tri_view(const struct shale_image_view_desc *v)
{
   return v->view_type == VK_IMAGE_VIEW_TYPE_2D && !(v->width & (v->width - 1)) &&
          !(v->height & (v->height - 1)) && v->swizzle[0] == VK_COMPONENT_SWIZZLE_R &&
          v->swizzle[1] == VK_COMPONENT_SWIZZLE_G && v->swizzle[2] == VK_COMPONENT_SWIZZLE_B &&
          v->swizzle[3] == VK_COMPONENT_SWIZZLE_A;
}

static bool
fast_srgb(uint32_t format)
{
   return format == VK_FORMAT_R8G8B8A8_SRGB || format == VK_FORMAT_A8B8G8R8_SRGB_PACK32 ||
          format == VK_FORMAT_B8G8R8A8_SRGB || format == VK_FORMAT_R8_SRGB ||
          format == VK_FORMAT_R8G8_SRGB;
}

shale_sample_fn
sr_sample_select_isa(const struct shale_image_view_desc *view,
                     const struct shale_sampler_desc *sampler, bool avx2)
{
   int fmt = fast_view_format(view);
   /* A known sampler the routines would hand back every time: the
    * generic routine at once. */
   if (fmt < 0 || (sampler && !fast_sampler_ok(sampler)))
      return sr_sample;
   bool srgb = fast_srgb(view->format);
   if (srgb)
      pthread_once(&srgb_once, srgb_table_init);
#if SR_FAST_X86
   if (avx2 && __builtin_cpu_supports("avx2")) {
      /* Views the fixed-point state can take whatever the sampler: a
       * routine that checks only the sampler and the operation. */
      if ((fmt == FF_RGBA8 || fmt == FF_BGRA8) && !srgb && fast_tri_view(view)) {
#if SR_FAST_AVX512
         if (fast_avx512() && !(sr_sample_fast_test && sr_sample_fast_test->no_avx512))
            return fmt == FF_RGBA8 ? fast_rgba8_tri_avx512 : fast_bgra8_tri_avx512;
#endif
         return fmt == FF_RGBA8 ? fast_rgba8_tri_avx2 : fast_bgra8_tri_avx2;
      }
      /* sRGB ones: sr_sample_fast_srgb16.h where the CPU has AVX-512 with
       * VBMI, else sr_sample_fast_srgb.h. */
      if ((fmt == FF_RGBA8 || fmt == FF_BGRA8) && srgb && fast_tri_view(view)) {
#if SR_FAST_AVX512
         if (srgb16_supported() && !(sr_sample_fast_test && sr_sample_fast_test->no_avx512)) {
            pthread_once(&srgb16_once, srgb16_init);
            return fmt == FF_RGBA8 ? fast_srgba8_tri_avx512 : fast_sbgra8_tri_avx512;
         }
#endif
         return fmt == FF_RGBA8 ? fast_srgba8_tri_avx2 : fast_sbgra8_tri_avx2;
      }
#if SR_FAST_AVX512
      if ((fmt == FF_RGBA8 || fmt == FF_BGRA8) && !srgb && fast_avx512() &&
          !(sr_sample_fast_test && sr_sample_fast_test->no_avx512))
         return fmt == FF_RGBA8 ? fast_rgba8_nl_avx512 : fast_bgra8_nl_avx512;
#endif
      static const shale_sample_fn fns[FF_COUNT][2] = {
         [FF_RGBA8] = { fast_rgba8_avx2, fast_srgba8_avx2 },
         [FF_BGRA8] = { fast_bgra8_avx2, fast_sbgra8_avx2 },
         [FF_R8] = { fast_r8_avx2, fast_sr8_avx2 },
         [FF_RG8] = { fast_rg8_avx2, fast_srg8_avx2 },
         [FF_RGBA16F] = { fast_rgba16f_avx2, NULL },
         [FF_RGBA32F] = { fast_rgba32f_avx2, NULL },
      };
      return fns[fmt][srgb];
   }
#endif
#if !SR_SAMPLE_FAST_PORTABLE
   return sr_sample;
#else
   static const shale_sample_fn fns[FF_COUNT][2] = {
      [FF_RGBA8] = { fast_rgba8_portable, fast_srgba8_portable },
      [FF_BGRA8] = { fast_bgra8_portable, fast_sbgra8_portable },
      [FF_R8] = { fast_r8_portable, fast_sr8_portable },
      [FF_RG8] = { fast_rg8_portable, fast_srg8_portable },
      [FF_RGBA16F] = { fast_rgba16f_portable, NULL },
      [FF_RGBA32F] = { fast_rgba32f_portable, NULL },
   };
   return fns[fmt][srgb];
#endif
}

shale_sample_fn
sr_sample_select(const struct shale_image_view_desc *view, const struct shale_sampler_desc *sampler)
{
   return sr_sample_select_isa(view, sampler, true);
}
