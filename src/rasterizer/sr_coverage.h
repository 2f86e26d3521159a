/*
 * sr_coverage: which samples of a 4x4-pixel block a set-up primitive
 * covers (the tile loop's coverage masks). Private to src/rasterizer;
 * inline, called for every block of every primitive of every tile.
 *
 * Design note
 * -----------
 * Exactness: a sample is covered exactly when E_i(X, Y) >= 0 for the three
 * edge functions of struct sr_prim (64-bit fixed point, top-left rule in
 * c); nothing here rounds. Per block the three edges are evaluated in
 * 64 bits at the block's origin, and the block's extremes follow from
 * the origin and the steps a * 1023, b * 1023 (every sample point of the
 * block lies within 1023 sub-pixel units of its origin): an edge whose
 * smallest value is >= 0 accepts the whole block, one whose largest is
 * < 0 rejects it, only the others ("partial" edges) are evaluated per
 * sample.
 * 32-bit lanes: a partial edge whose values over the block all lie in
 * [INT32_MIN, INT32_MAX] is evaluated as origin value + a per-primitive
 * table of a * dX + b * dY for every (pixel, sample) lane, in wrapping
 * 32-bit arithmetic: the wrapped sum equals the exact value modulo 2^32,
 * and the exact value is within the int32 range, so its sign is right.
 * That holds for every edge of up to about a thousand pixels; longer
 * partial edges take the 64-bit loop, sample by sample.
 * Lanes are pixel-major, sample-minor (lane p * S + s for pixel
 * p = py * 4 + px of S samples), so with 4 samples one 4-lane vector is
 * one pixel's mask: the OR of the partial edges' lanes has its sign bit
 * set where a sample is outside (movemask on x86).
 * The table of an edge is built the first time a block needs it, once per
 * primitive and tile (the iterator lives on the tile loop's stack).
 * At four samples (x86 SSE2) there is no 64-lane table: the edge keeps
 * its four sample offsets and the four column and row steps, and a block
 * adds them, (origin + sample offsets) + row step + column step per pixel
 * vector: the same sums modulo 2^32, so the same signs; the four pixels'
 * masks of a vector group come out of one pack of their sign bits. Small
 * primitives (scene (c)'s torus) build their edges' parts once per tile
 * and use them in one to four blocks, where the table's 64 entries cost
 * more than the blocks' lanes. Where the CPU has AVX2 (checked once per
 * struct sr_cover_samples) the same sums go two pixels a 256-bit vector
 * and the masks eight pixels a pack (sr_cover_lanes4_avx2). Where it has
 * AVX-512 F and DQ, one sample takes a block's 16 lanes as one 512-bit
 * vector (sr_cover_lanes1_avx512) and four samples a row of four pixels
 * a vector (sr_cover_lanes4_avx512); their edge lanes, a * x + b * y of
 * the lanes' sample positions (struct sr_cover_samples lane_x, lane_y),
 * are computed in registers and then kept in tab[i] (its first 16
 * entries, in that layout: a primitive takes one path); the same sums
 * mod 2^32, so the same masks. unit/raster checks each path against the
 * 64-bit reference, forcing the others off.
 * Besides the masks a block's result has one bit per pixel with coverage
 * (with one sample: the four vectors' sign bits, no per-pixel loop), which
 * the tile loop walks to pack pixels into lanes and to pick quads.
 */
#ifndef SR_COVERAGE_H
#define SR_COVERAGE_H

#include "sr_scene.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SR_COVER_AVX2 1
#else
#define SR_COVER_AVX2 0
#endif

#define SR_COVER_MAX_SAMPLES 16

/* The sample offsets of a sample count in fixed point (a tile keeps one
 * and rebuilds it when the count changes). */
struct sr_cover_samples {
   uint32_t samples;                    /* 1, 2, 4, 8, 16 */
   bool avx2;                           /* four samples take sr_cover_lanes4_avx2 */
   bool avx512;                         /* one and four samples take the _avx512 forms */
   int32_t off[SR_COVER_MAX_SAMPLES][2];
   /* The _avx512 forms' 16 lanes' sample positions relative to the block
    * (one sample: pixel k = lane k; four: lane column * 4 + sample of a
    * row), x and y in sub-pixel units. */
   int32_t lane_x[16], lane_y[16];
};

static inline void
sr_cover_samples_init(struct sr_cover_samples *cs, uint32_t samples)
{
   const float(*pos)[2] = sr_sample_positions(samples);
   cs->samples = samples > SR_COVER_MAX_SAMPLES ? SR_COVER_MAX_SAMPLES : samples ? samples : 1;
#if SR_COVER_AVX2
   cs->avx2 = __builtin_cpu_supports("avx2");
   cs->avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
#else
   cs->avx2 = false;
   cs->avx512 = false;
#endif
   for (uint32_t s = 0; s < cs->samples; s++) {
      cs->off[s][0] = (int32_t)(pos[s][0] * (1 << SR_SUBPIXEL_BITS));
      cs->off[s][1] = (int32_t)(pos[s][1] * (1 << SR_SUBPIXEL_BITS));
   }
   for (int32_t k = 0; k < 16; k++) {
      if (cs->samples == 4) {
         cs->lane_x[k] = ((k >> 2) << SR_SUBPIXEL_BITS) + cs->off[k & 3][0];
         cs->lane_y[k] = cs->off[k & 3][1];
      } else {
         cs->lane_x[k] = ((k & 3) << SR_SUBPIXEL_BITS) + cs->off[0][0];
         cs->lane_y[k] = ((k >> 2) << SR_SUBPIXEL_BITS) + cs->off[0][1];
      }
   }
}

typedef uint32_t sr_v4u __attribute__((vector_size(16)));

/* One primitive's coverage inside one clip box (its box within the tile). */
struct sr_cover {
   const struct sr_prim *p;
   const struct sr_cover_samples *cs;
   int32_t x0, y0, x1, y1;              /* clip box, inclusive */
   uint32_t all;                        /* every sample */
   uint32_t tab_ready;                  /* bit i: tab[i] built */
   int64_t lo_off[3], hi_off[3];        /* block extremes relative to its origin */
   _Alignas(16) uint32_t tab[3][16 * SR_COVER_MAX_SAMPLES];
};

static inline void
sr_cover_init(struct sr_cover *cv, const struct sr_prim *p, const struct sr_cover_samples *cs,
              uint32_t sample_mask, int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
   cv->p = p;
   cv->cs = cs;
   cv->x0 = x0;
   cv->y0 = y0;
   cv->x1 = x1;
   cv->y1 = y1;
   cv->all = ((1u << cs->samples) - 1) & sample_mask;
   cv->tab_ready = 0;
   const int64_t d = (4 << SR_SUBPIXEL_BITS) - 1;
   for (int i = 0; i < 3; i++) {
      int64_t ea = p->a[i] * d, eb = p->b[i] * d;
      cv->lo_off[i] = (ea < 0 ? ea : 0) + (eb < 0 ? eb : 0);
      cv->hi_off[i] = (ea > 0 ? ea : 0) + (eb > 0 ? eb : 0);
   }
}

/* tab[i][p * S + s] = a * dX + b * dY (mod 2^32) of pixel p's sample s. */
static inline __attribute__((always_inline)) void
sr_cover_table(struct sr_cover *cv, int i, const uint32_t S)
{
   const uint32_t ua = (uint32_t)cv->p->a[i], ub = (uint32_t)cv->p->b[i];
   uint32_t so[SR_COVER_MAX_SAMPLES], px[4], py[4];
   for (uint32_t s = 0; s < S; s++)
      so[s] = ua * (uint32_t)cv->cs->off[s][0] + ub * (uint32_t)cv->cs->off[s][1];
   for (uint32_t k = 0; k < 4; k++) {
      px[k] = ua * (k << SR_SUBPIXEL_BITS);
      py[k] = ub * (k << SR_SUBPIXEL_BITS);
   }
   uint32_t *t = cv->tab[i];
   if (S == 1) {
      /* One sample: four rows of four pixels, built as vectors. */
      const sr_v4u row = (sr_v4u){px[0], px[1], px[2], px[3]} + so[0];
      for (uint32_t r = 0; r < 4; r++) {
         const sr_v4u v = row + py[r];
         memcpy(&t[r * 4], &v, sizeof(v));
      }
      cv->tab_ready |= 1u << i;
      return;
   }
   for (uint32_t p = 0; p < 16; p++) {
      const uint32_t po = px[p & 3] + py[p >> 2];
      for (uint32_t s = 0; s < S; s++)
         t[p * S + s] = po + so[s];
   }
   cv->tab_ready |= 1u << i;
}

/* Four samples: no per-lane table but its three parts, tab[i][0..3] the
 * samples' offsets so[s], [4..7] px[k] = a * k and [8..11] py[k] = b * k
 * (sub-pixel steps), which sr_cover_lanes4 adds per block (the same sums
 * mod 2^32 in another order). */
static inline __attribute__((always_inline)) void
sr_cover_parts4(struct sr_cover *cv, int i)
{
   const uint32_t ua = (uint32_t)cv->p->a[i], ub = (uint32_t)cv->p->b[i];
   uint32_t *t = cv->tab[i];
   for (uint32_t s = 0; s < 4; s++)
      t[s] = ua * (uint32_t)cv->cs->off[s][0] + ub * (uint32_t)cv->cs->off[s][1];
   for (uint32_t k = 0; k < 4; k++) {
      t[4 + k] = ua * (k << SR_SUBPIXEL_BITS);
      t[8 + k] = ub * (k << SR_SUBPIXEL_BITS);
   }
   cv->tab_ready |= 1u << i;
}

/* cov[k] = all where bit k of pm is set, else 0 (k < 16), four lanes at a
 * time. */
static inline __attribute__((always_inline)) void
sr_cover_spread(uint32_t pm, uint32_t all, uint32_t cov[16])
{
   const sr_v4u bit = {1, 2, 4, 8};
   for (uint32_t v = 0; v < 4; v++) {
      const sr_v4u m = (sr_v4u)((((sr_v4u){0, 0, 0, 0} + (pm >> (4 * v))) & bit) != 0) & all;
      memcpy(&cov[4 * v], &m, sizeof(m));
   }
}

/* The sign bits of the 4 lanes of v, lane j at bit j. */
static inline uint32_t
sr_cover_signs(sr_v4u v)
{
#if defined(__SSE2__)
   return (uint32_t)_mm_movemask_ps(_mm_castsi128_ps((__m128i)v));
#else
   return (v[0] >> 31) | (v[1] >> 31) << 1 | (v[2] >> 31) << 2 | (v[3] >> 31) << 3;
#endif
}

#if defined(__SSE2__)
/* sr_cover_lanes at four samples (one 4-lane vector a pixel): each partial
 * edge's lanes are (so + e) + py[row] + px[column] (sr_cover_parts4), and
 * the masks come four pixels at a time: the sign bits packed to bytes
 * (signed saturation keeps signs), a byte per sample, sample s's byte
 * inside -> bit s, the dword's four bytes ORed into its low byte. */
static inline __attribute__((always_inline)) uint32_t
sr_cover_lanes4(struct sr_cover *cv, const int64_t e[3], uint32_t edges, uint32_t pix,
                uint32_t cov[16])
{
   sr_v4u acc[16];
   for (uint32_t v = 0; v < 16; v++)
      acc[v] = (sr_v4u){0, 0, 0, 0};
   for (int i = 0; i < 3; i++) {
      if (!(edges >> i & 1))
         continue;
      if (!(cv->tab_ready >> i & 1))
         sr_cover_parts4(cv, i);
      const uint32_t *t = cv->tab[i];
      sr_v4u base;
      memcpy(&base, t, sizeof(base));
      base += (uint32_t)e[i];
      for (uint32_t r = 0; r < 4; r++) {
         const sr_v4u row = base + t[8 + r];
         for (uint32_t c = 0; c < 4; c++)
            acc[r * 4 + c] |= row + t[4 + c];
      }
   }
   const __m128i sample_bit = _mm_set1_epi32(0x08040201);
   const sr_v4u bit = {1, 2, 4, 8};
   uint32_t pm = 0;
   for (uint32_t v = 0; v < 4; v++) {
      const __m128i a = _mm_packs_epi32((__m128i)acc[4 * v], (__m128i)acc[4 * v + 1]);
      const __m128i b = _mm_packs_epi32((__m128i)acc[4 * v + 2], (__m128i)acc[4 * v + 3]);
      const __m128i in = _mm_and_si128(_mm_cmpgt_epi8(_mm_packs_epi16(a, b), _mm_set1_epi8(-1)),
                                       sample_bit);
      __m128i m = _mm_or_si128(in, _mm_srli_epi32(in, 8));
      m = _mm_or_si128(m, _mm_srli_epi32(m, 16));
      /* The pixels of pix, their samples in `all` (< 16: the low byte). */
      const sr_v4u keep = (sr_v4u)((((sr_v4u){0, 0, 0, 0} + (pix >> (4 * v))) & bit) != 0) &
                          cv->all;
      const __m128i c = _mm_and_si128(m, (__m128i)keep);
      _mm_storeu_si128((__m128i *)&cov[4 * v], c);
      const uint32_t zero =
         (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(c, _mm_setzero_si128())));
      pm |= (~zero & 0xfu) << (4 * v);
   }
   return pm;
}
#endif

#if SR_COVER_AVX2
/* sr_cover_lanes4 with AVX2 (where the CPU has it: sr_cover_samples.avx2),
 * two pixels a vector: the same lanes' sums, (so + e) + py[row] +
 * px[column] mod 2^32, so the same signs; the masks come eight pixels at
 * a time (two rows: packed to bytes as sr_cover_lanes4 does, each 128-bit
 * half holding every other pixel, then put back in pixel order). */
static inline __attribute__((target("avx2"))) uint32_t
sr_cover_lanes4_avx2(struct sr_cover *cv, const int64_t e[3], uint32_t edges, uint32_t pix,
                     uint32_t cov[16])
{
   /* Row r's pixels 0, 1 in a[r], 2, 3 in b[r]: named, so they stay in
    * registers (an array of them was zeroed in memory by rep stos). */
   __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
   __m256i b0 = a0, b1 = a0, b2 = a0, b3 = a0;
   for (int i = 0; i < 3; i++) {
      if (!(edges >> i & 1))
         continue;
      if (!(cv->tab_ready >> i & 1))
         sr_cover_parts4(cv, i);
      const uint32_t *t = cv->tab[i];
      const __m256i base = _mm256_broadcastsi128_si256(_mm_add_epi32(
         _mm_loadu_si128((const __m128i *)t), _mm_set1_epi32((int32_t)(uint32_t)e[i])));
      /* Columns 0, 1 and 2, 3: each half one column's step. */
      const __m256i c01 = _mm256_setr_m128i(_mm_set1_epi32((int32_t)t[4]),
                                            _mm_set1_epi32((int32_t)t[5]));
      const __m256i c23 = _mm256_setr_m128i(_mm_set1_epi32((int32_t)t[6]),
                                            _mm_set1_epi32((int32_t)t[7]));
#define SR_COVER_ROW(r)                                                                    \
      do {                                                                                 \
         const __m256i row = _mm256_add_epi32(base, _mm256_set1_epi32((int32_t)t[8 + r])); \
         a##r = _mm256_or_si256(a##r, _mm256_add_epi32(row, c01));                         \
         b##r = _mm256_or_si256(b##r, _mm256_add_epi32(row, c23));                         \
      } while (0)
      SR_COVER_ROW(0);
      SR_COVER_ROW(1);
      SR_COVER_ROW(2);
      SR_COVER_ROW(3);
#undef SR_COVER_ROW
   }
   const __m256i acc[8] = {a0, b0, a1, b1, a2, b2, a3, b3};
   const __m256i sample_bit = _mm256_set1_epi32(0x08040201);
   const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
   /* The dwords after the packs hold pixels 0, 2, 4, 6 | 1, 3, 5, 7 of the
    * two rows (k = row * 4 + column, relative): back to 0 .. 7. */
   const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
   uint32_t pm = 0;
   for (uint32_t h = 0; h < 2; h++) {
      /* Rows 2h and 2h + 1: per half, columns 0, 2 (low) or 1, 3 (high). */
      const __m256i a = _mm256_packs_epi32(acc[4 * h], acc[4 * h + 1]);
      const __m256i b = _mm256_packs_epi32(acc[4 * h + 2], acc[4 * h + 3]);
      const __m256i in = _mm256_and_si256(
         _mm256_cmpgt_epi8(_mm256_packs_epi16(a, b), _mm256_set1_epi8(-1)), sample_bit);
      __m256i m = _mm256_or_si256(in, _mm256_srli_epi32(in, 8));
      m = _mm256_or_si256(m, _mm256_srli_epi32(m, 16));
      m = _mm256_permutevar8x32_epi32(m, order);
      /* The pixels of pix, their samples in `all` (< 16: the low byte). */
      const __m256i keep = _mm256_and_si256(
         _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int32_t)(pix >> (8 * h))), bit),
                            bit),
         _mm256_set1_epi32((int32_t)cv->all));
      const __m256i c = _mm256_and_si256(m, keep);
      _mm256_storeu_si256((__m256i *)&cov[8 * h], c);
      const uint32_t zero = (uint32_t)_mm256_movemask_ps(
         _mm256_castsi256_ps(_mm256_cmpeq_epi32(c, _mm256_setzero_si256())));
      pm |= (~zero & 0xffu) << (8 * h);
   }
   return pm;
}
#endif

#if SR_COVER_AVX2
/* AVX-512 (F and DQ, where the CPU has them: sr_cover_samples.avx512):
 * a block's 16 pixel masks are one 512-bit vector. */

/* Edge i's 16 lanes, a * lane_x + b * lane_y (mod 2^32): tab[i]'s
 * first 16 entries, computed in registers the first time a block needs
 * them (a load of the table just stored piece by piece would wait for
 * the stores: tiny primitives use it once or twice) and kept. The
 * sums are those of sr_cover_table and sr_cover_parts4 mod 2^32. */
static inline __attribute__((target("avx512f,avx512dq"), always_inline)) __m512i
sr_cover_lanes_avx512(struct sr_cover *cv, int i)
{
   if (cv->tab_ready >> i & 1)
      return _mm512_loadu_si512(cv->tab[i]);
   const __m512i t = _mm512_add_epi32(
      _mm512_mullo_epi32(_mm512_set1_epi32(cv->p->a[i]), _mm512_loadu_si512(cv->cs->lane_x)),
      _mm512_mullo_epi32(_mm512_set1_epi32(cv->p->b[i]), _mm512_loadu_si512(cv->cs->lane_y)));
   _mm512_storeu_si512(cv->tab[i], t);
   cv->tab_ready |= 1u << i;
   return t;
}

/* sr_cover_spread: cov[k] = all where bit k of pm is set, else 0. */
static inline __attribute__((target("avx512f,avx512dq"))) void
sr_cover_spread_avx512(uint32_t pm, uint32_t all, uint32_t cov[16])
{
   _mm512_storeu_si512(cov, _mm512_maskz_mov_epi32((__mmask16)pm, _mm512_set1_epi32((int32_t)all)));
}

/* sr_cover_lanes at one sample: the block's 16 lanes
 * (sr_cover_lanes_avx512) in one vector, their sign bits the 16 pixels'
 * "outside" bits
 * (vpmovd2m), the masks one masked store. */
static inline __attribute__((target("avx512f,avx512dq"))) uint32_t
sr_cover_lanes1_avx512(struct sr_cover *cv, const int64_t e[3], uint32_t edges, uint32_t pix,
                       uint32_t cov[16])
{
   __m512i acc = _mm512_setzero_si512();
   for (int i = 0; i < 3; i++) {
      if (!(edges >> i & 1))
         continue;
      const __m512i t = sr_cover_lanes_avx512(cv, i);
      acc = _mm512_or_si512(acc, _mm512_add_epi32(t, _mm512_set1_epi32((int32_t)(uint32_t)e[i])));
   }
   const uint32_t out = (uint32_t)_mm512_movepi32_mask(acc);
   const uint32_t pm = ~out & pix & 0xffffu & (0u - (cv->all & 1));
   sr_cover_spread_avx512(pm, cv->all, cov);
   return pm;
}

/* sr_cover_lanes4 with AVX-512: a row of four pixels a vector (lane
 * column * 4 + sample), each partial edge's lanes row 0's
 * (sr_cover_lanes_avx512) + e + b * row (the same sums mod 2^32 as
 * sr_cover_parts4's, so the same signs);
 * the four rows' sign bits (vpmovd2m) make a 64-bit "outside" mask whose
 * nibble k is pixel k's samples, spread to the 16 masks by variable
 * shifts. */
static inline __attribute__((target("avx512f,avx512dq"))) uint32_t
sr_cover_lanes4_avx512(struct sr_cover *cv, const int64_t e[3], uint32_t edges, uint32_t pix,
                       uint32_t cov[16])
{
   __m512i r0 = _mm512_setzero_si512(), r1 = r0, r2 = r0, r3 = r0;
   for (int i = 0; i < 3; i++) {
      if (!(edges >> i & 1))
         continue;
      /* Row 0's lanes (column * 4 + sample) plus e, then the row steps
       * b * (r << SR_SUBPIXEL_BITS). */
      const __m512i bc = _mm512_add_epi32(sr_cover_lanes_avx512(cv, i),
                                          _mm512_set1_epi32((int32_t)(uint32_t)e[i]));
      const uint32_t step = (uint32_t)cv->p->b[i] << SR_SUBPIXEL_BITS;
      r0 = _mm512_or_si512(r0, bc);
      r1 = _mm512_or_si512(r1, _mm512_add_epi32(bc, _mm512_set1_epi32((int32_t)step)));
      r2 = _mm512_or_si512(r2, _mm512_add_epi32(bc, _mm512_set1_epi32((int32_t)(2 * step))));
      r3 = _mm512_or_si512(r3, _mm512_add_epi32(bc, _mm512_set1_epi32((int32_t)(3 * step))));
   }
   const uint32_t in_lo = ~((uint32_t)_mm512_movepi32_mask(r0) |
                            (uint32_t)_mm512_movepi32_mask(r1) << 16);
   const uint32_t in_hi = ~((uint32_t)_mm512_movepi32_mask(r2) |
                            (uint32_t)_mm512_movepi32_mask(r3) << 16);
   const __m512i in = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi32((int32_t)in_lo)),
                                         _mm256_set1_epi32((int32_t)in_hi), 1);
   const __m512i shifts =
      _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28);
   /* The pixels of pix, their samples in `all` (< 16). */
   const __m512i c = _mm512_maskz_and_epi32((__mmask16)pix, _mm512_srlv_epi32(in, shifts),
                                            _mm512_set1_epi32((int32_t)(cv->all & 0xfu)));
   _mm512_storeu_si512(cov, c);
   return (uint32_t)_mm512_test_epi32_mask(c, c);
}
#endif

/* The coverage of the block's pixels from the partial edges `edges` (bit
 * i: edge i), evaluated in 32-bit lanes from origin values e[]: cov[k]
 * the samples of pixel k inside every partial edge, & all, 0 for pixels
 * outside `pix`. Returns the pixels with coverage (bit k: cov[k] != 0). */
static inline __attribute__((always_inline)) uint32_t
sr_cover_lanes(struct sr_cover *cv, const int64_t e[3], uint32_t edges, uint32_t pix,
               const uint32_t S, uint32_t cov[16])
{
   const uint32_t vecs = 16 * S / 4;
   sr_v4u acc[16 * SR_COVER_MAX_SAMPLES / 4];
   for (uint32_t v = 0; v < vecs; v++)
      acc[v] = (sr_v4u){0, 0, 0, 0};
   for (int i = 0; i < 3; i++) {
      if (!(edges >> i & 1))
         continue;
      if (!(cv->tab_ready >> i & 1))
         sr_cover_table(cv, i, S);
      const uint32_t ei = (uint32_t)e[i];
      for (uint32_t v = 0; v < vecs; v++) {
         sr_v4u t;
         memcpy(&t, &cv->tab[i][v * 4], sizeof(t));
         acc[v] |= t + ei;
      }
   }
   /* Sign bit set: outside. Lane p * S + s is bit s of pixel p. */
   const uint32_t all = cv->all;
   uint32_t pm = 0;
   if (S == 1) {
      /* A bit a pixel: the four vectors' signs are the block's 16 bits. */
      uint32_t out = 0;
      for (uint32_t v = 0; v < 4; v++)
         out |= sr_cover_signs(acc[v]) << (4 * v);
      pm = ~out & pix & (0u - (all & 1));
      sr_cover_spread(pm, all, cov);
   } else if (S < 4) {
      const uint32_t ppv = 4 / S;                  /* pixels a vector */
      for (uint32_t v = 0; v < vecs; v++) {
         const uint32_t in = ~sr_cover_signs(acc[v]);
         for (uint32_t j = 0; j < ppv; j++) {
            const uint32_t k = v * ppv + j;
            const uint32_t m = (in >> (j * S)) & all & (0u - (pix >> k & 1));
            cov[k] = m;
            pm |= (uint32_t)(m != 0) << k;
         }
      }
   } else {
      const uint32_t vpp = S / 4;                  /* vectors a pixel */
      for (uint32_t k = 0; k < 16; k++) {
         uint32_t out = 0;
         for (uint32_t j = 0; j < vpp; j++)
            out |= sr_cover_signs(acc[k * vpp + j]) << (4 * j);
         const uint32_t m = ~out & all & (0u - (pix >> k & 1));
         cov[k] = m;
         pm |= (uint32_t)(m != 0) << k;
      }
   }
   return pm;
}

/* The 64-bit reference: samples of pixel (x, y) inside all three edges. */
static inline uint32_t
sr_cover_pixel64(const struct sr_cover *cv, int32_t x, int32_t y)
{
   const struct sr_prim *p = cv->p;
   uint32_t m = 0;
   for (uint32_t s = 0; s < cv->cs->samples; s++) {
      int64_t X = ((int64_t)x << SR_SUBPIXEL_BITS) + cv->cs->off[s][0];
      int64_t Y = ((int64_t)y << SR_SUBPIXEL_BITS) + cv->cs->off[s][1];
      if (p->a[0] * X + p->b[0] * Y + p->c[0] >= 0 && p->a[1] * X + p->b[1] * Y + p->c[1] >= 0 &&
          p->a[2] * X + p->b[2] * Y + p->c[2] >= 0)
         m |= 1u << s;
   }
   return m;
}

/* What sr_cover_block found: nothing covered, some samples, or every
 * sample of `all` in all 16 pixels (no edge crosses the block and the
 * clip box holds it: the tile loop's whole-block path). */
#define SR_COVER_NONE 0u
#define SR_COVER_SOME 1u
#define SR_COVER_FULL 2u

/* Coverage of the block at (bx, by) (a multiple of 4) inside the clip box:
 * cov[py * 4 + px] a sample mask per pixel, *pixels the pixels with
 * coverage (bit py * 4 + px: cov[py * 4 + px] != 0; 0 when nothing is
 * covered, and then cov is not written); SR_COVER_NONE (0) when nothing
 * is covered. */
/* The edge functions at the origin of block (bx, by): e[i] = a[i] * X0 +
 * b[i] * Y0 + c[i] (exact in 64 bits). A loop over blocks may instead
 * step them: + a[i] * SR_COVER_BLOCK_STEP a block to the right, + b[i] *
 * SR_COVER_BLOCK_STEP a block down (the same exact values). */
#define SR_COVER_BLOCK_STEP ((int64_t)4 << SR_SUBPIXEL_BITS)
static inline void
sr_cover_block_edges(const struct sr_cover *cv, int32_t bx, int32_t by, int64_t e[3])
{
   const struct sr_prim *p = cv->p;
   const int64_t X0 = (int64_t)bx << SR_SUBPIXEL_BITS, Y0 = (int64_t)by << SR_SUBPIXEL_BITS;
   for (int i = 0; i < 3; i++)
      e[i] = p->a[i] * X0 + p->b[i] * Y0 + p->c[i];
}

/* sr_cover_block_pixels with the block's edge values e_in
 * (sr_cover_block_edges, or stepped). */
static inline uint32_t
sr_cover_block_pixels_e(struct sr_cover *cv, int32_t bx, int32_t by, const int64_t e_in[3],
                        uint32_t cov[16], uint32_t *pixels)
{
   *pixels = 0;
   int64_t e[3];
   uint32_t partial = 0;
   bool fits = true;
   for (int i = 0; i < 3; i++) {
      e[i] = e_in[i];
      const int64_t lo = e[i] + cv->lo_off[i], hi = e[i] + cv->hi_off[i];
      if (hi < 0)
         return SR_COVER_NONE;
      if (lo < 0) {
         partial |= 1u << i;
         fits &= lo >= INT32_MIN && hi <= INT32_MAX;
      }
   }

   /* Pixels inside the clip box. */
   uint32_t cols = 0xf, rows = 0xf;
   if (bx < cv->x0)
      cols &= 0xfu << (cv->x0 - bx);
   if (bx + 3 > cv->x1)
      cols &= 0xfu >> (bx + 3 - cv->x1);
   if (by < cv->y0)
      rows &= 0xfu << (cv->y0 - by);
   if (by + 3 > cv->y1)
      rows &= 0xfu >> (by + 3 - cv->y1);
   cols &= 0xf;
   rows &= 0xf;
   /* Each row bit widened to its row's four pixel bits. */
   static const uint16_t row_bits[16] = {
      0x0000, 0x000f, 0x00f0, 0x00ff, 0x0f00, 0x0f0f, 0x0ff0, 0x0fff,
      0xf000, 0xf00f, 0xf0f0, 0xf0ff, 0xff00, 0xff0f, 0xfff0, 0xffff};
   const uint32_t pix = cols * 0x1111u & row_bits[rows];
   if (!pix)
      return SR_COVER_NONE;

   const uint32_t all = cv->all;
   if (!all)
      return SR_COVER_NONE;
   if (!partial) {
#if SR_COVER_AVX2
      if (cv->cs->avx512)
         sr_cover_spread_avx512(pix, all, cov);
      else
#endif
         sr_cover_spread(pix, all, cov);
      *pixels = pix;
      return pix == 0xffff ? SR_COVER_FULL : SR_COVER_SOME;
   }
   uint32_t pm = 0;
   if (!fits) {
      for (int k = 0; k < 16; k++) {
         cov[k] = pix >> k & 1 ? sr_cover_pixel64(cv, bx + (k & 3), by + (k >> 2)) & all : 0;
         pm |= (uint32_t)(cov[k] != 0) << k;
      }
      *pixels = pm;
      return pm ? SR_COVER_SOME : SR_COVER_NONE;
   }
   switch (cv->cs->samples) {
   case 1:
#if SR_COVER_AVX2
      if (cv->cs->avx512) {
         pm = sr_cover_lanes1_avx512(cv, e, partial, pix, cov);
         break;
      }
#endif
      pm = sr_cover_lanes(cv, e, partial, pix, 1, cov);
      break;
   case 2: pm = sr_cover_lanes(cv, e, partial, pix, 2, cov); break;
#if defined(__SSE2__)
   case 4:
#if SR_COVER_AVX2
      if (cv->cs->avx512) {
         pm = sr_cover_lanes4_avx512(cv, e, partial, pix, cov);
         break;
      }
      if (cv->cs->avx2) {
         pm = sr_cover_lanes4_avx2(cv, e, partial, pix, cov);
         break;
      }
#endif
      pm = sr_cover_lanes4(cv, e, partial, pix, cov);
      break;
#else
   case 4: pm = sr_cover_lanes(cv, e, partial, pix, 4, cov); break;
#endif
   case 8: pm = sr_cover_lanes(cv, e, partial, pix, 8, cov); break;
   default: pm = sr_cover_lanes(cv, e, partial, pix, 16, cov); break;
   }
   *pixels = pm;
   return pm ? SR_COVER_SOME : SR_COVER_NONE;
}

static inline uint32_t
sr_cover_block_pixels(struct sr_cover *cv, int32_t bx, int32_t by, uint32_t cov[16],
                      uint32_t *pixels)
{
   int64_t e[3];
   sr_cover_block_edges(cv, bx, by, e);
   return sr_cover_block_pixels_e(cv, bx, by, e, cov, pixels);
}

/* sr_cover_block_pixels without the pixel bits. */
static inline uint32_t
sr_cover_block(struct sr_cover *cv, int32_t bx, int32_t by, uint32_t cov[16])
{
   uint32_t pixels;
   return sr_cover_block_pixels(cv, bx, by, cov, &pixels);
}

#endif
