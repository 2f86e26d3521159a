/* sr_sample_fast.c's 16-lane fixed-point routines for 8-bit sRGB RGBA / BGRA views sampled trilinearly with REPEAT (AVX-512). */
/*
 * Included by sr_sample_fast.c at the end of its AVX-512 section (GCC x86
 * builds), after sr_sample_fast_srgb.h's AVX2 routines, whose views it
 * takes where the CPU has AVX-512 F, BW, DQ, VL and VBMI:
 * sr_sample_select_isa() hands these routines 2D, power-of-two, unswizzled
 * views of R8G8B8A8_SRGB, A8B8G8R8_SRGB_PACK32 and B8G8R8A8_SRGB; a call in
 * the trilinear REPEAT state (fast_tri_call()) runs srgb_chunk16() on its
 * sixteen lanes at once, any other goes to the view's usual routine
 * (fast_srgba8_avx2 / fast_sbgra8_avx2).
 *
 * Precision. The spec converts R, G and B of an sRGB texel to linear
 * before filtering (Vulkan 1.3, Texel Input Operations, Format Conversion:
 * the sRGB EOTF of the Khronos Data Format Specification; alpha
 * unchanged), and Texel Filtering then weighs the converted values with
 * weights of the precision the implementation reports: Shale's
 * subTexelPrecisionBits and mipmapPrecisionBits are 8. Here:
 *   - each code's linear value is an integer T(c) = round(65535 * L(c)),
 *     L(c) being sr_sample()'s decoded float (su_unpack_float): within
 *     2^-17 (7.6e-6) of it. Near 0 that is what 16 bits give: code 1
 *     decodes to 20 / 65535 (L(1) = 3.035e-4, 2.5% of it, 0.025 of an
 *     sRGB code once encoded again), and T is strictly increasing, so a
 *     texel read alone re-encodes to its own code. Alpha's T is 257 c
 *     (c / 255 exactly);
 *   - the bilinear weights are snapped down to 1/256 of a texel and the
 *     mipmap weight to 1/256 (the reported 8 bits), as the UNORM
 *     fixed-point routines do;
 *   - the sums are exact in integers: each row's pair T0 (256 - a) + T1 a
 *     in one multiply-add of signed words (T - 2^15 stored, the sum 2^23
 *     low), the two rows in 32-bit lanes ((H0 << 8) + (H1 - H0) b, modulo
 *     2^32, below 2^32 unsigned), each level's sum truncated to 1/256 of
 *     a unit (below 2^-24 of the range) before the mipmap blend, which is
 *     exact the same way; the result, a multiple of 256 below 2^32, is
 *     divided by 256 (exact), converted to float (exact, below 2^24) and
 *     multiplied by the float nearest 1 / (65535 * 256) (within an ulp;
 *     1 exactly at 65535, never above).
 * So a result is within 2^-17 + 2^-23 of sr_sample()'s where the weights
 * are multiples of 1/256 (unit/sample's test_srgb_fixed holds 8e-6 there),
 * and within FIXED_TOLERANCE (three 2^-8 of the range, the weights'
 * snapping) anywhere (test_fast, test_srgb_window, test_level0). Lanes
 * with a NaN or infinite coordinate get some value in [0, 1].
 *
 * Cost. The AVX2 routines decode through a table gather per channel (the
 * float arithmetic needs chunk()'s bits): most of the demo's sampling
 * time. Here a texel vector (sixteen lanes' texels, 64 codes) is decoded
 * with byte permutes (VBMI's vpermt2b: T's low and high bytes, two
 * 128-byte tables each, chosen by the code's top bit): 12 instructions
 * for 64 codes. The texels themselves come from srgb16_window() (rows
 * read sixteen texels at a time, up to eight of them) where the lanes
 * share a level and their footprints fit, else from 16-lane gathers
 * (64-bit pairs where no lane is on the level's last column). The demo's
 * texture (shale_demo, one thread): of the levels sampled, 30% have their
 * lanes' rows at most two apart, 40% three to six apart (both take the
 * window where sixteen columns hold the footprint and do not wrap), 11%
 * seven or more, 5% cross the level's right edge, 2% lanes on different
 * levels. In the demo under perf (80 frames, load 10 on the 2-core EPYC),
 * these routines took 45-50% of the samples the AVX2 float routine took.
 * Lanes on different levels
 * are addressed lane by lane, in the same chunk: every lane's arithmetic
 * is its own, so a lane's result does not depend on the other lanes of its
 * call (nor on the thread that runs it).
 *
 * Invariants: sr_sample_fast.c's (every texel read lies in the view: rows
 * and columns wrapped by the power-of-two masks; lanes outside
 * args->lanes read the levels of lanes asked for, are computed and not
 * stored).
 *
 * Threading: the byte tables are filled once (srgb16_init, by
 * pthread_once at selection), read-only after.
 */

#define SRGB16_FN                                                                          \
   static inline __attribute__((always_inline,                                             \
                                target("avx2,avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))

/* T(c)'s low byte and its high byte with the top bit flipped (the word
 * T - 2^15), for every code c. */
static uint8_t srgb16_lo[256] __attribute__((aligned(64)));
static uint8_t srgb16_hi[256] __attribute__((aligned(64)));
static pthread_once_t srgb16_once = PTHREAD_ONCE_INIT;

/* After srgb_table_init() (sr_sample_select_isa calls both). */
static void
srgb16_init(void)
{
   for (unsigned c = 0; c < 256; c++) {
      /* srgb_table[c] in [0, 1]: the product and its rounding stay in
       * [0, 65535]. */
      uint32_t t = (uint32_t)__builtin_lrint((double)srgb_table[c] * 65535.0);
      srgb16_lo[c] = (uint8_t)(t & 0xff);
      srgb16_hi[c] = (uint8_t)((t >> 8) ^ 0x80);
   }
}

/* Lane 4q + k of every 128-bit quarter q of x, across the quarter (k a
 * constant: the shuffle's immediate). */
#define SRGB16_BCAST(x, k)                                                                 \
   ((k) == 0   ? _mm512_shuffle_epi32((x), (_MM_PERM_ENUM)0x00)                            \
    : (k) == 1 ? _mm512_shuffle_epi32((x), (_MM_PERM_ENUM)0x55)                            \
    : (k) == 2 ? _mm512_shuffle_epi32((x), (_MM_PERM_ENUM)0xaa)                            \
               : _mm512_shuffle_epi32((x), (_MM_PERM_ENUM)0xff))

struct srgb16_tables {
   __m512i lo[4], hi[4];
};

/* Sixteen RGBA (or BGRA) texels (one a 32-bit lane) to the words T - 2^15
 * of their channels (alpha: 257 c - 2^15): lo holds lanes 4q and 4q + 1 of
 * each 128-bit quarter q (R, G, B, A, R, G, B, A), hi lanes 4q + 2 and
 * 4q + 3. */
SRGB16_FN void srgb16_decode(const struct srgb16_tables *tb, __m512i tx, __m512i *lo, __m512i *hi)
{
   const __mmask64 top = _mm512_movepi8_mask(tx);
   const __mmask64 alpha = 0x8888888888888888ull;
   __m512i l = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(tb->lo[0], tx, tb->lo[1]),
                                      _mm512_permutex2var_epi8(tb->lo[2], tx, tb->lo[3]));
   __m512i h = _mm512_mask_blend_epi8(top, _mm512_permutex2var_epi8(tb->hi[0], tx, tb->hi[1]),
                                      _mm512_permutex2var_epi8(tb->hi[2], tx, tb->hi[3]));
   /* Alpha: 257 c has both bytes c. */
   l = _mm512_mask_mov_epi8(l, alpha, tx);
   h = _mm512_mask_mov_epi8(h, alpha, _mm512_xor_si512(tx, _mm512_set1_epi8((char)0x80)));
   *lo = _mm512_unpacklo_epi8(l, h);
   *hi = _mm512_unpackhi_epi8(l, h);
}

/* One level's exact bilinear sums of the sixteen lanes' decoded texels:
 * out[k] holds lanes k, k + 4, k + 8 and k + 12 (one a 128-bit quarter)
 * as four 32-bit sums each (R, G, B, A in texel order): 2^16 times the
 * filtered T, less 2^31 (modulo 2^32). */
SRGB16_FN void srgb16_filter(const struct srgb16_tables *tb, const __m512i tx[4], __m512i wa,
                             __m512i wb, __m512i out[4])
{
   __m512i w[4][2];
   for (int q = 0; q < 4; q++)
      srgb16_decode(tb, tx[q], &w[q][0], &w[q][1]);
   /* Horizontal: (T0 - 2^15)(256 - a) + (T1 - 2^15) a, one pair of words
    * a channel: T0 (256 - a) + T1 a - 2^23. */
   const __m512i aw = _mm512_or_si512(_mm512_sub_epi32(_mm512_set1_epi32(256), wa),
                                      _mm512_slli_epi32(wa, 16));
   __m512i hs[2][4];
   for (int r = 0; r < 2; r++) {
      const __m512i *p = w[2 * r], *q = w[2 * r + 1];
      hs[r][0] = _mm512_madd_epi16(_mm512_unpacklo_epi16(p[0], q[0]), _mm512_shuffle_epi32(aw, 0x00));
      hs[r][1] = _mm512_madd_epi16(_mm512_unpackhi_epi16(p[0], q[0]), _mm512_shuffle_epi32(aw, 0x55));
      hs[r][2] = _mm512_madd_epi16(_mm512_unpacklo_epi16(p[1], q[1]), _mm512_shuffle_epi32(aw, 0xaa));
      hs[r][3] = _mm512_madd_epi16(_mm512_unpackhi_epi16(p[1], q[1]), _mm512_shuffle_epi32(aw, 0xff));
   }
   /* Vertical: (H0 << 8) + (H1 - H0) b with H = sum - 2^23 (|H| < 2^23),
    * modulo 2^32: the sum times 256, less 2^31. */
   for (int k = 0; k < 4; k++) {
      const __m512i b = SRGB16_BCAST(wb, k);
      out[k] = _mm512_add_epi32(_mm512_slli_epi32(hs[0][k], 8),
                                _mm512_mullo_epi32(_mm512_sub_epi32(hs[1][k], hs[0][k]), b));
   }
}

/* The four texels of every lane (32-bit words) from rows read whole where
 * the lanes share a level and their footprints fit: columns i0 .. i0 + 1
 * of every lane within sixteen consecutive columns of the level that do
 * not wrap, rows j0 at most six apart (window16()'s shape, taller: the
 * demo's foreshortened torus puts a call's four quads on rows three to six
 * apart as often as on rows up to two apart). Rows jmin .. jmax + 1
 * (wrapped) are read 64 bytes at a time and each lane's two rows picked by
 * masks: the texels the gathers would read. false: the footprint does not
 * fit (or the test hook asks for gathers); nothing read. */
SRGB16_FN bool srgb16_window(const uint8_t *level, int32_t w, int32_t h, size_t row, __m512i i0,
                             __m512i j0, __m512i t[4])
{
   if (w < 16 || (sr_sample_fast_test && sr_sample_fast_test->gathers_only))
      return false;
   const int32_t imin = _mm512_reduce_min_epi32(i0), imax = _mm512_reduce_max_epi32(i0);
   const int32_t jmin = _mm512_reduce_min_epi32(j0), jmax = _mm512_reduce_max_epi32(j0);
   /* i0 and j0 lie in [-2^30, 2^30]: the differences fit 64 bits. */
   const int64_t span = (int64_t)imax - imin, jspan = (int64_t)jmax - jmin;
   if (span >= 15 || jspan > 6)
      return false;
   const int32_t c0 = imin & (w - 1);
   if (c0 + span + 1 >= w)
      return false;
   /* Columns cs .. cs + 15 hold c0 .. c0 + span + 1. */
   const int32_t cs = c0 < w - 16 ? c0 : w - 16;
   const uint8_t *p = level + (size_t)cs * 4;
   const int32_t hm = h - 1;
   const __m512i ix0 = _mm512_add_epi32(_mm512_sub_epi32(i0, _mm512_set1_epi32(imin)),
                                        _mm512_set1_epi32(c0 - cs));
   const __m512i ix1 = _mm512_add_epi32(ix0, _mm512_set1_epi32(1));
   const __m512i dj = _mm512_sub_epi32(j0, _mm512_set1_epi32(jmin));
   __m512i r = _mm512_loadu_si512((const void *)(p + (size_t)(jmin & hm) * row));
   t[0] = _mm512_permutexvar_epi32(ix0, r);
   t[1] = _mm512_permutexvar_epi32(ix1, r);
   t[2] = t[3] = _mm512_setzero_si512();
   /* Row k is the second row of lanes with dj = k - 1 and the first of
    * those with dj = k: every lane gets both of its rows. */
   for (int32_t k = 1; k <= (int32_t)jspan + 1; k++) {
      r = _mm512_loadu_si512((const void *)(p + (size_t)((jmin + k) & hm) * row));
      const __m512i a0 = _mm512_permutexvar_epi32(ix0, r), a1 = _mm512_permutexvar_epi32(ix1, r);
      const __mmask16 second = _mm512_cmpeq_epi32_mask(dj, _mm512_set1_epi32(k - 1));
      t[2] = _mm512_mask_mov_epi32(t[2], second, a0);
      t[3] = _mm512_mask_mov_epi32(t[3], second, a1);
      if (k <= jspan) {
         const __mmask16 first = _mm512_cmpeq_epi32_mask(dj, _mm512_set1_epi32(k));
         t[0] = _mm512_mask_mov_epi32(t[0], first, a0);
         t[1] = _mm512_mask_mov_epi32(t[1], first, a1);
      }
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->windows += 2;   /* counted per eight lanes */
   return true;
}

/* Texel Linear Filtering of level lvl (per lane) at (s, t) for the
 * trilinear REPEAT state: the weights snapped to 1/256 (as fixed_level16()
 * does), the texels read through srgb16_window() where the lanes share the
 * level and fit, else gathered; out as srgb16_filter() gives it. */
SRGB16_FN void srgb16_level(const struct fast *f, const struct srgb16_tables *tb, __m512 s,
                            __m512 t, __m512i lvl, __m512i out[4])
{
   const struct shale_image_view_desc *v = f->v;
   const int32_t l = _mm_cvtsi128_si32(_mm512_castsi512_si128(lvl));
   const bool shared = !_mm512_cmpneq_epi32_mask(lvl, _mm512_set1_epi32(l));
   const int32_t wl = f->width >> l > 1 ? f->width >> l : 1;
   const int32_t hl = f->height >> l > 1 ? f->height >> l : 1;
   __m512i w, h, row, start;
   if (shared) {
      w = _mm512_set1_epi32(wl);
      h = _mm512_set1_epi32(hl);
      row = _mm512_set1_epi32((int32_t)v->row_pitch[l]);
      start = _mm512_set1_epi32((int32_t)v->level_offset[l]);
   } else {
      const __m512i one = _mm512_set1_epi32(1);
      w = _mm512_max_epi32(_mm512_srlv_epi32(_mm512_set1_epi32(f->width), lvl), one);
      h = _mm512_max_epi32(_mm512_srlv_epi32(_mm512_set1_epi32(f->height), lvl), one);
      int32_t lv[16], rp[16], st[16];
      _mm512_storeu_si512((void *)lv, lvl);
      for (int k = 0; k < 16; k++) {
         rp[k] = (int32_t)v->row_pitch[lv[k]];
         st[k] = (int32_t)v->level_offset[lv[k]];
      }
      row = _mm512_loadu_si512((const void *)rp);
      start = _mm512_loadu_si512((const void *)st);
   }
   const __m512 half = _mm512_set1_ps(0.5f);
   __m512 u = _mm512_sub_ps(_mm512_mul_ps(s, _mm512_cvtepi32_ps(w)), half);
   __m512 vv = _mm512_sub_ps(_mm512_mul_ps(t, _mm512_cvtepi32_ps(h)), half);
   __m512 fu, fv;
   __m512i i0 = fixed_floor16(u, &fu), j0 = fixed_floor16(vv, &fv);
   const __m512 k256 = _mm512_set1_ps(256.0f);
   const __m512i m255 = _mm512_set1_epi32(0xff);
   __m512i wa = _mm512_and_si512(_mm512_cvttps_epi32(_mm512_mul_ps(_mm512_sub_ps(u, fu), k256)), m255);
   __m512i wb = _mm512_and_si512(_mm512_cvttps_epi32(_mm512_mul_ps(_mm512_sub_ps(vv, fv), k256)), m255);
   __m512i tx[4];
   if (!shared ||
       !srgb16_window(f->base + (size_t)v->level_offset[l], wl, hl, (size_t)v->row_pitch[l], i0,
                      j0, tx)) {
      const __m512i one = _mm512_set1_epi32(1);
      const __m512i wm = _mm512_sub_epi32(w, one), hm = _mm512_sub_epi32(h, one);
      __m512i x0 = _mm512_slli_epi32(_mm512_and_si512(i0, wm), 2);
      __m512i x1 = _mm512_slli_epi32(_mm512_and_si512(_mm512_add_epi32(i0, one), wm), 2);
      __m512i y0 = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_and_si512(j0, hm), row), start);
      __m512i y1 = _mm512_add_epi32(
         _mm512_mullo_epi32(_mm512_and_si512(_mm512_add_epi32(j0, one), hm), row), start);
      if (!_mm512_cmpneq_epi32_mask(x1, _mm512_add_epi32(x0, _mm512_set1_epi32(4)))) {
         /* No lane on its level's last column: one 64-bit word a row. */
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
   srgb16_filter(tb, tx, wa, wb, out);
}

/* Lanes 0 .. 15 of a call in the trilinear REPEAT state (see the note):
 * fixed_select_avx2() on each half with lanes asked for (a half without
 * takes the other's levels), every lane's levels filtered as its own. */
SRGB16_FN void srgb_chunk16(const struct fast *f, struct shale_sample_args *a, bool bgra)
{
   struct srgb16_tables tb;
   for (int k = 0; k < 4; k++) {
      tb.lo[k] = _mm512_load_si512((const void *)(srgb16_lo + 64 * k));
      tb.hi[k] = _mm512_load_si512((const void *)(srgb16_hi + 64 * k));
   }
   struct sel_avx2 sel[2];
   const uint32_t lanes = a->lanes & 0xffffu;
   if (lanes & 0xffu)
      fixed_select_avx2(f, a, 0, &sel[0]);
   if (lanes & 0xff00u)
      fixed_select_avx2(f, a, 8, &sel[1]);
   if (!(lanes & 0xffu) || !(lanes & 0xff00u)) {
      /* The half without lanes asked for reads the other's levels. */
      const int e = lanes & 0xffu ? 1 : 0;
      sel[e] = sel[1 - e];
      sel[e].active = 0;
      sel[e].on = vsplati(0);
   }
   const __m512i lvl0 = _mm512_inserti64x4(_mm512_castsi256_si512((__m256i)sel[0].lvl0), (__m256i)sel[1].lvl0, 1);
   const __m512 s = _mm512_loadu_ps(&a->coord[0][0]), t = _mm512_loadu_ps(&a->coord[1][0]);
   __m512i r[4];
   srgb16_level(f, &tb, s, t, lvl0, r);
   /* Each level's sum (2^16 T, less 2^31) to 2^8 T, less 2^23. */
   for (int k = 0; k < 4; k++)
      r[k] = _mm512_srai_epi32(r[k], 8);
   const __m256i two0 = _mm256_and_si256((__m256i)sel[0].two, (__m256i)sel[0].on);
   const __m256i two1 = _mm256_and_si256((__m256i)sel[1].two, (__m256i)sel[1].on);
   if (fixed_any_avx2(_mm256_or_si256(two0, two1))) {
      const __m512i lvl1 = _mm512_inserti64x4(_mm512_castsi256_si512((__m256i)sel[0].lvl1), (__m256i)sel[1].lvl1, 1);
      __m512i r1[4];
      srgb16_level(f, &tb, s, t, lvl1, r1);
      /* x0 (256 - d) + x1 d = (x0 << 8) + (x1 - x0) d, d = delta snapped
       * down to 1/256 (0 where there is no second level: delta is 0). */
      const __m512 delta = _mm512_insertf32x8(_mm512_castps256_ps512((__m256)sel[0].delta), (__m256)sel[1].delta, 1);
      const __m512i d = _mm512_cvttps_epi32(_mm512_mul_ps(delta, _mm512_set1_ps(256.0f)));
      for (int k = 0; k < 4; k++) {
         const __m512i dk = SRGB16_BCAST(d, k);
         __m512i x1 = _mm512_srai_epi32(r1[k], 8);
         r[k] = _mm512_add_epi32(_mm512_slli_epi32(r[k], 8),
                                 _mm512_mullo_epi32(_mm512_sub_epi32(x1, r[k]), dk));
      }
   } else {
      /* What d = 0 gives. */
      for (int k = 0; k < 4; k++)
         r[k] = _mm512_slli_epi32(r[k], 8);
   }
   /* fixed_lanes() on sixteen lanes. */
   __m512i u0 = _mm512_unpacklo_epi32(r[0], r[1]), u1 = _mm512_unpackhi_epi32(r[0], r[1]);
   __m512i u2 = _mm512_unpacklo_epi32(r[2], r[3]), u3 = _mm512_unpackhi_epi32(r[2], r[3]);
   __m512i c[4] = { _mm512_unpacklo_epi64(u0, u2), _mm512_unpackhi_epi64(u0, u2),
                    _mm512_unpacklo_epi64(u1, u3), _mm512_unpackhi_epi64(u1, u3) };
   /* 2^16 T - 2^31 (modulo 2^32) to T / 65535: add 2^31 back, divide by
    * 256 (the low 8 bits are 0), convert (exact below 2^24) and scale. */
   const __m512i bias = _mm512_set1_epi32((int32_t)0x80000000u);
   const __m512 scale = _mm512_set1_ps(1.0f / (65535.0f * 256.0f));
   __m512 tau[4];
   for (int k = 0; k < 4; k++)
      tau[k] = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(_mm512_xor_si512(c[k], bias), 8)), scale);
   if (bgra) {
      __m512 x = tau[0];
      tau[0] = tau[2];
      tau[2] = x;
   }
   const __mmask16 on = (__mmask16)(sel[0].active | sel[1].active << 8);
   for (int k = 0; k < 4; k++)
      _mm512_mask_storeu_ps(&a->result[k][0], on, tau[k]);
}

SRGB16_FN void srgb_run_tri16(const struct shale_image_view_desc *view,
                              const struct shale_sampler_desc *sampler,
                              struct shale_sample_args *args, bool bgra)
{
   if (!fast_tri_call(sampler, args->op)) {
      if (bgra)
         fast_sbgra8_avx2(view, sampler, args);
      else
         fast_srgba8_avx2(view, sampler, args);
      return;
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->tri_calls++;
   struct fast f;
   fast_init_tri(&f, view, sampler);
   if (args->lanes & 0xffffu)
      srgb_chunk16(&f, args, bgra);
}

__attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi"))) static void
fast_srgba8_tri_avx512(const struct shale_image_view_desc *view,
                       const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   srgb_run_tri16(view, sampler, args, false);
}

__attribute__((target("avx2,avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi"))) static void
fast_sbgra8_tri_avx512(const struct shale_image_view_desc *view,
                       const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   srgb_run_tri16(view, sampler, args, true);
}

/* Whether the CPU has what these routines need (fast_avx512()'s and VBMI). */
static bool
srgb16_supported(void)
{
   return fast_avx512() && __builtin_cpu_supports("avx512vbmi");
}
