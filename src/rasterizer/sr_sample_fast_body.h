/* The body of sr_sample_fast.c's routines, included once per build (portable, AVX2). */
/*
 * Expects FAST_SUFFIX (the build's name), FAST_TARGET (its function
 * attribute), FAST_GATHER(base, offsets) (eight 32-bit texels at byte
 * offsets), FAST_GATHER_PAIR(base, offsets, &t0, &t1) (eight pairs of
 * 32-bit texels side by side: the first of each in t0, the second in t1),
 * FAST_TABLE(table, indices) (eight floats of a table) and
 * FAST_SQRT(v) (correctly rounded square roots).
 * Every function is always inlined into the build's entry points.
 * run() hands states outside its trilinear REPEAT one to
 * sr_sample_fast_nl.h's paths (NEAREST, fixed-point LINEAR) first.
 */
#define FAST_CAT2(a, b) a##_##b
#define FAST_CAT(a, b) FAST_CAT2(a, b)
#define FN(name) FAST_CAT(name, FAST_SUFFIX)
#define BODY static inline __attribute__((always_inline)) FAST_TARGET

/* Eight texels of 8-bit channels (one per lane, in the low bytes) as
 * fetch() gives them. */
BODY void FN(decode)(v8u u, int fmt, bool srgb, v8f c[4])
{
   v8i ch[4] = { (v8i)(u & 0xff), (v8i)((u >> 8) & 0xff), (v8i)((u >> 16) & 0xff), (v8i)(u >> 24) };
   if (fmt == FF_BGRA8) {
      v8i r = ch[2];
      ch[2] = ch[0];
      ch[0] = r;
   }
   if (fmt == FF_R8 || fmt == FF_RG8) {
      if (fmt == FF_R8)
         ch[1] = vsplati(0);
      ch[2] = vsplati(0);
      ch[3] = vsplati(255);
   }
   for (int k = 0; k < 4; k++)
      c[k] = srgb && k < (fmt == FF_R8 ? 1 : fmt == FF_RG8 ? 2 : 3) ? FAST_TABLE(srgb_table, ch[k])
                                                                    : vtof(ch[k]);
}

/* Eight texels at byte offsets `off`, as four channels in the units they
 * are filtered in: UNORM codes (0 to 255; a missing B is 0, a missing A
 * 255), linear values for sRGB colour channels, floats for float formats. */
BODY void FN(fetch)(const uint8_t *base, v8i off, int fmt, bool srgb, v8f c[4])
{
   if (fmt == FF_RGBA32F) {
      for (int k = 0; k < 4; k++)
         c[k] = (v8f)FAST_GATHER(base, off + 4 * k);
      return;
   }
   if (fmt == FF_RGBA16F) {
      v8i lo = FAST_GATHER(base, off), hi = FAST_GATHER(base, off + 4);
      c[0] = vhalf(lo);
      c[1] = vhalf((v8i)((v8u)lo >> 16));
      c[2] = vhalf(hi);
      c[3] = vhalf((v8i)((v8u)hi >> 16));
      return;
   }
   FN(decode)((v8u)(fmt == FF_R8 || fmt == FF_RG8 ? FAST_GATHER_NARROW(base, off)
                                                   : FAST_GATHER(base, off)),
              fmt, srgb, c);
}

/* Where one level per lane lies: its size, the byte offset of its texel
 * (0, 0) on the lane's layer, its row pitch. */
struct FN(addr) {
   v8i w, h, start, row;
   bool shared;   /* one level and one layer on every lane: the vectors are
                   * splats (window() reads lane 0's) */
};

/* The addressing of level `lvl` on every lane (levels in the view): one
 * splat when the lanes share it (the usual case: a chunk is two quads),
 * else lane by lane. */
BODY void FN(address)(const struct fast *f, v8i lvl, v8i layer, bool tri, struct FN(addr) *ad)
{
   const struct shale_image_view_desc *v = f->v;
   int32_t l = lvl[0];
   if (!vany(lvl != vsplati(l))) {
      ad->w = vsplati(f->width >> l > 1 ? f->width >> l : 1);
      ad->h = vsplati(f->height >> l > 1 ? f->height >> l : 1);
      ad->row = vsplati((int32_t)v->row_pitch[l]);
      ad->start = vsplati((int32_t)v->level_offset[l]);
      if (!tri && f->arrayed)
         ad->start = ad->start + layer * (int32_t)v->slice_pitch[l];
      /* An arrayed view's lanes may sit on different layers. */
      ad->shared = tri || !f->arrayed;
      return;
   }
   v8i off, slice;
   for (int k = 0; k < VL; k++) {
      int32_t lk = lvl[k];
      off[k] = (int32_t)v->level_offset[lk];
      slice[k] = (int32_t)v->slice_pitch[lk];
      ad->row[k] = (int32_t)v->row_pitch[lk];
   }
   ad->w = vmaxi(vsplati(f->width) >> lvl, vsplati(1));
   ad->h = vmaxi(vsplati(f->height) >> lvl, vsplati(1));
   ad->start = off + layer * slice;
   ad->shared = false;
}

/* Texel Nearest / Linear Filtering of one level per lane (ad), at
 * normalized (s, t): sr_sample's filter_level() on every lane, linear
 * where `lin` is set. */
BODY void FN(level)(const struct fast *f, const struct shale_sample_args *a, unsigned l0,
                    v8f s, v8f t, const struct FN(addr) *ad, v8i lin, int fmt, bool srgb,
                    bool tri, v8f out[4])
{
   const uint32_t mode_u = tri ? VK_SAMPLER_ADDRESS_MODE_REPEAT : f->mode_u;
   const uint32_t mode_v = tri ? VK_SAMPLER_ADDRESS_MODE_REPEAT : f->mode_v;
   const bool pow2w = tri || f->pow2w, pow2h = tri || f->pow2h;
   v8i w = ad->w, h = ad->h;
   v8f u = s * vtof(w), v = t * vtof(h);
   if (!tri && (a->op & SHALE_SAMPLE_OFFSET)) {
      u = u + vtof(vloadi(&a->offset[0][l0]));
      v = v + vtof(vloadi(&a->offset[1][l0]));
   }
   v8f uu = vsel(lin, u - 0.5f, u), vv = vsel(lin, v - 0.5f, v);
   v8i i0 = vifloor(uu), j0 = vifloor(vv);
   v8i start = ad->start, row = ad->row;
   const int32_t size = fmt_size(fmt);
   v8i x0 = vwrap(i0, w, mode_u, pow2w) * size;
   v8i y0 = vwrap(j0, h, mode_v, pow2h) * row + start;
   v8f c00[4];
   if (!vany(lin)) {
      FN(fetch)(f->base, y0 + x0, fmt, srgb, c00);
      for (int k = 0; k < 4; k++)
         out[k] = c00[k];
      return;
   }
   v8i x1 = vwrap(i0 + 1, w, mode_u, pow2w) * size;
   v8i y1 = vwrap(j0 + 1, h, mode_v, pow2h) * row + start;
   v8f c10[4], c01[4], c11[4];
   if (size == 4 && !vany(x1 != x0 + 4)) {
      /* Both columns next to each other on every lane: one 8-byte load
       * a row (texel x0 + 1 is in the row, so is the load). */
      v8i t0, t1;
      FAST_GATHER_PAIR(f->base, y0 + x0, &t0, &t1);
      FN(decode)((v8u)t0, fmt, srgb, c00);
      FN(decode)((v8u)t1, fmt, srgb, c10);
      FAST_GATHER_PAIR(f->base, y1 + x0, &t0, &t1);
      FN(decode)((v8u)t0, fmt, srgb, c01);
      FN(decode)((v8u)t1, fmt, srgb, c11);
   } else {
      FN(fetch)(f->base, y0 + x0, fmt, srgb, c00);
      FN(fetch)(f->base, y0 + x1, fmt, srgb, c10);
      FN(fetch)(f->base, y1 + x0, fmt, srgb, c01);
      FN(fetch)(f->base, y1 + x1, fmt, srgb, c11);
   }
   v8f zero = vsplat(0.0f);
   v8f ai = vsel(lin, uu - vffloor(uu), zero), bj = vsel(lin, vv - vffloor(vv), zero);
   v8f wi0 = 1.0f - ai, wj0 = 1.0f - bj;
   v8f w00 = wi0 * wj0, w10 = ai * wj0, w01 = wi0 * bj, w11 = ai * bj;
   for (int k = 0; k < 4; k++) {
      v8f acc = w00 * c00[k];
      acc = acc + w10 * c10[k];
      acc = acc + w01 * c01[k];
      acc = acc + w11 * c11[k];
      /* Nearest lanes: the texel itself (weights 1, 0, 0, 0 give it too,
       * but for infinities). */
      out[k] = vsel(lin, acc, c00[k]);
   }
}

/* What lanes l0 .. l0 + 7 of a call sample: layer, filter, levels. */
struct FN(sel) {
   v8i layer, lin, lvl0, lvl1, two, on;
   v8f delta;
   uint32_t active;
};

/* Layer, Scale Factor and LOD Operations, level selection. */
BODY void FN(select)(const struct fast *f, const struct shale_sample_args *a, unsigned l0,
                     bool tri, struct FN(sel) *sel)
{
   const uint32_t op = a->op;
   v8i layer = vsplati(0);
   if (!tri && f->arrayed) {
      /* clamp(RNE(a), 0, layers - 1); NaN and negative layers give 0. */
      v8f la = vloadf(&a->coord[2][l0]);
      v8i ge0 = la >= 0.0f;
      la = vsel(la < 4194304.0f, la, vsplat(4194304.0f));
      v8f rne = (la + 8388608.0f) - 8388608.0f;
      layer = vmini(vtoi(rne), vsplati(f->last_layer)) & ge0;
   }
   /* Scale Factor and LOD Operations. */
   v8f lambda;
   if ((op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      v8f mx0 = vloadf(&a->grad[0][0][l0]) * f->fwidth;
      v8f mx1 = vloadf(&a->grad[0][1][l0]) * f->fheight;
      v8f my0 = vloadf(&a->grad[1][0][l0]) * f->fwidth;
      v8f my1 = vloadf(&a->grad[1][1][l0]) * f->fheight;
      v8f qx = mx0 * mx0 + mx1 * mx1, qy = my0 * my0 + my1 * my1;
      if (tri) {
         /* log2 of the larger square root, as half the log2 of the
          * larger square (vhalf_log2: within 3.6e-7 where it matters),
          * every lane being linear (the result moves with lambda by as
          * little). */
         lambda = vhalf_log2(vsel(qx > qy, qx, qy));
      } else {
         v8f rhox = FAST_SQRT(qx), rhoy = FAST_SQRT(qy);
         lambda = vlog2(vsel(rhox > rhoy, rhox, rhoy));
      }
   } else {
      lambda = vloadf(&a->lod[l0]);
   }
   const float sbias = f->bias;
   if ((op & SHALE_SAMPLE_BIAS) && (op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      v8f b = sbias + vloadf(&a->lod[l0]);
      b = vsel(b > -MAX_LOD_BIAS, b, vsplat(-MAX_LOD_BIAS));
      b = vsel(b < MAX_LOD_BIAS, b, vsplat(MAX_LOD_BIAS));
      lambda = lambda + b;
   } else {
      lambda = lambda + sbias;
   }
   lambda = vsel(lambda > f->min_lod, lambda, vsplat(f->min_lod));
   lambda = vsel(lambda < f->max_lod, lambda, vsplat(f->max_lod));
   v8i mag = lambda <= 0.0f;
   v8i lin = tri ? vsplati(-1)
                 : (mag & vsplati(f->mag_linear ? -1 : 0)) | (~mag & vsplati(f->min_linear ? -1 : 0));
   v8f dl = vsel(lambda > 0.0f, vsel(lambda < f->q, lambda, vsplat(f->q)), vsplat(0.0f));
   /* Level selection and mipmap filtering. */
   v8i lvl0, lvl1 = vsplati(0), two = vsplati(0);
   v8f delta = vsplat(0.0f);
   if (!tri && !f->mip_linear) {
      v8f y = dl + 0.5f;
      v8i c = vtoi(y);
      lvl0 = c - (vtof(c) < y) - 1;
   } else {
      lvl0 = vtoi(dl);
      lvl1 = vmini(lvl0 + 1, vsplati(f->last_level));
      delta = dl - vtof(lvl0);
      two = delta > 0.0f;
   }
   uint32_t active = (a->lanes >> l0) & 0xffu;
   v8i lane_bit = (v8i) { 1, 2, 4, 8, 16, 32, 64, 128 };
   v8i on = (vsplati((int32_t)active) & lane_bit) != 0;
   /* Lanes left out read the first active lane's levels (any level in
    * the view keeps their reads in it): the lanes asked for decide
    * whether the chunk shares one level. */
   int32_t first = (int32_t)__builtin_ctz(active);
   sel->layer = layer;
   sel->lin = lin;
   sel->lvl0 = vseli(on, lvl0, vsplati(lvl0[first]));
   sel->lvl1 = vseli(on, lvl1, vsplati(lvl1[first]));
   sel->two = two;
   sel->on = on;
   sel->delta = delta;
   sel->active = active;
}

/* The view's swizzle on filtered components (none where `ident`: the
 * view's is the identity); lanes asked for stored. */
BODY void FN(store_sw)(const struct fast *f, struct shale_sample_args *a, unsigned l0,
                       const struct FN(sel) *sel, const v8f tau[4], bool ident)
{
   v8f res[4];
   for (int k = 0; k < 4; k++) {
      uint8_t sw = ident ? (uint8_t)k : f->swz[k];
      res[k] = sw < 4 ? tau[sw] : vsplat(sw == SWZ_ONE ? 1.0f : 0.0f);
   }
   for (int k = 0; k < 4; k++) {
      v8f r = res[k];
      if (sel->active != 0xffu)
         r = vsel(sel->on, r, vloadf((const float *)&a->result[k][l0]));
      memcpy(&a->result[k][l0], &r, sizeof(r));
   }
}

BODY void FN(store)(const struct fast *f, struct shale_sample_args *a, unsigned l0,
                    const struct FN(sel) *sel, const v8f tau[4])
{
   FN(store_sw)(f, a, l0, sel, tau, false);
}

/* Lanes l0 .. l0 + 7 of a call. */
BODY void FN(chunk)(const struct fast *f, struct shale_sample_args *a, unsigned l0, int fmt,
                    bool srgb, bool tri)
{
   struct FN(sel) sel;
   FN(select)(f, a, l0, tri, &sel);
   v8f s = vloadf(&a->coord[0][l0]), t = vloadf(&a->coord[1][l0]);
   v8f tau[4];
   struct FN(addr) ad;
   FN(address)(f, sel.lvl0, sel.layer, tri, &ad);
   FN(level)(f, a, l0, s, t, &ad, sel.lin, fmt, srgb, tri, tau);
   if (vany(sel.two & sel.on)) {
      v8f tau1[4];
      FN(address)(f, sel.lvl1, sel.layer, tri, &ad);
      FN(level)(f, a, l0, s, t, &ad, sel.lin, fmt, srgb, tri, tau1);
      v8f d0 = 1.0f - sel.delta;
      for (int k = 0; k < 4; k++)
         tau[k] = vsel(sel.two, d0 * tau[k] + sel.delta * tau1[k], tau[k]);
   }
   /* UNORM codes to [0, 1]: the division su_unpack_float's table holds. */
   if (fmt != FF_RGBA16F && fmt != FF_RGBA32F)
      for (int k = 0; k < 4; k++)
         if (!srgb || k >= (fmt == FF_R8 ? 1 : fmt == FF_RG8 ? 2 : 3))
            /* Every lane linear: within a few ulps is all it takes. */
            tau[k] = tri ? tau[k] * (1.0f / 255.0f) : tau[k] / 255.0f;
   FN(store)(f, a, l0, &sel, tau);
}

#if FAST_FIXED
/* Horizontal minimum and maximum of eight lanes. */
BODY int32_t FN(hmin)(v8i x)
{
   __m128i m = _mm_min_epi32(_mm256_castsi256_si128((__m256i)x), _mm256_extracti128_si256((__m256i)x, 1));
   m = _mm_min_epi32(m, _mm_shuffle_epi32(m, 0x4e));
   m = _mm_min_epi32(m, _mm_shuffle_epi32(m, 0xb1));
   return _mm_cvtsi128_si32(m);
}

BODY int32_t FN(hmax)(v8i x)
{
   __m128i m = _mm_max_epi32(_mm256_castsi256_si128((__m256i)x), _mm256_extracti128_si256((__m256i)x, 1));
   m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4e));
   m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xb1));
   return _mm_cvtsi128_si32(m);
}

/* The four texels of every lane's bilinear footprint (REPEAT, power-of-two
 * level ad shared by the lanes, 32-bit texels) from contiguous loads where
 * the chunk's footprint allows: texel columns i0 .. i0 + 1 of every lane
 * within eight consecutive columns of the level that do not wrap, texel
 * rows j0 of the lanes at most one apart. Then the rows j0min .. j0min + 2
 * (each wrapped) are read eight texels at a time and the lanes' texels
 * picked from them by permutes: the same texels the gathers would read,
 * at 2 or 3 loads and 4 or 6 permutes instead of four gathers. false: the
 * footprint does not fit (or the test hook asks for gathers); nothing
 * read. */
BODY bool FN(window)(const struct fast *f, const struct FN(addr) *ad, v8i i0, v8i j0,
                     __m256i *t00, __m256i *t10, __m256i *t01, __m256i *t11)
{
   if (!ad->shared || (sr_sample_fast_test && sr_sample_fast_test->gathers_only))
      return false;
   const int32_t w = ad->w[0], h = ad->h[0];
   if (w < 8)
      return false;
   const int32_t imin = FN(hmin)(i0), imax = FN(hmax)(i0);
   const int32_t jmin = FN(hmin)(j0), jmax = FN(hmax)(j0);
   /* i0 and j0 lie in [-2^30, 2^30]: the differences fit 64 bits. */
   const int64_t span = (int64_t)imax - imin;
   if (span >= 7 || (int64_t)jmax - jmin > 1)
      return false;
   const int32_t c0 = imin & (w - 1);   /* the wrapped column of imin */
   if (c0 + span + 1 >= w)
      return false;
   /* Columns cs .. cs + 7 of the level hold c0 .. c0 + span + 1. */
   const int32_t cs = c0 < w - 8 ? c0 : w - 8;
   const uint8_t *p = f->base + (size_t)ad->start[0] + (size_t)cs * 4;
   const size_t row = (size_t)ad->row[0];
   const int32_t hm = h - 1;
   __m256i ix0 = (__m256i)(i0 - imin + (c0 - cs));
   __m256i ix1 = _mm256_add_epi32(ix0, _mm256_set1_epi32(1));
   __m256i ra = _mm256_loadu_si256((const __m256i *)(p + (size_t)(jmin & hm) * row));
   __m256i rb = _mm256_loadu_si256((const __m256i *)(p + (size_t)((jmin + 1) & hm) * row));
   *t00 = _mm256_permutevar8x32_epi32(ra, ix0);
   *t10 = _mm256_permutevar8x32_epi32(ra, ix1);
   *t01 = _mm256_permutevar8x32_epi32(rb, ix0);
   *t11 = _mm256_permutevar8x32_epi32(rb, ix1);
   if (jmax != jmin) {
      /* Lanes on row jmin + 1 read rows jmin + 1 and jmin + 2. */
      __m256i rc = _mm256_loadu_si256((const __m256i *)(p + (size_t)((jmin + 2) & hm) * row));
      __m256i down = (__m256i)(j0 != vsplati(jmin));
      *t00 = _mm256_blendv_epi8(*t00, *t01, down);
      *t10 = _mm256_blendv_epi8(*t10, *t11, down);
      *t01 = _mm256_blendv_epi8(*t01, _mm256_permutevar8x32_epi32(rc, ix0), down);
      *t11 = _mm256_blendv_epi8(*t11, _mm256_permutevar8x32_epi32(rc, ix1), down);
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->windows++;
   return true;
}

/* The bilinear blend of every lane's four 32-bit 8-bit UNORM RGBA texels
 * t00, t10 (row j0), t01, t11 (row j0 + 1) with the weights wa, wb in
 * [0, 255] (1/256 of a texel): out[k] holds lanes k and k + 4 as four
 * 32-bit sums each (R, G, B, A in texel order), 2^16 times the filtered
 * code, less 2^23. fixed_level() and sr_sample_fast_nl.h's
 * nl_fixed_level() read the texels, this filters them. */
BODY void FN(fixed_filter)(__m256i t00, __m256i t10, __m256i t01, __m256i t11, v8i wa, v8i wb,
                           __m256i out[4])
{
   const __m256i z = _mm256_setzero_si256();
   /* Horizontal: t0 * (256 - a) + t1 * a = (t0 << 8) + (t1 - t0) * a,
    * in [0, 65280]: exact in 16-bit words (modulo 2^16). Words of lanes
    * (0, 1 | 4, 5) from the low bytes, (2, 3 | 6, 7) from the high. */
   __m256i aw = (__m256i)(wa | (wa << 16));
   __m256i alo = _mm256_unpacklo_epi32(aw, aw), ahi = _mm256_unpackhi_epi32(aw, aw);
   __m256i h[2][2];
   const __m256i flip = _mm256_set1_epi16((short)0x8000);
   for (int r = 0; r < 2; r++) {
      __m256i p = r ? t01 : t00, q = r ? t11 : t10;
      __m256i plo = _mm256_unpacklo_epi8(p, z), qlo = _mm256_unpacklo_epi8(q, z);
      __m256i phi = _mm256_unpackhi_epi8(p, z), qhi = _mm256_unpackhi_epi8(q, z);
      __m256i lo = _mm256_add_epi16(_mm256_slli_epi16(plo, 8),
                                    _mm256_mullo_epi16(_mm256_sub_epi16(qlo, plo), alo));
      __m256i hi = _mm256_add_epi16(_mm256_slli_epi16(phi, 8),
                                    _mm256_mullo_epi16(_mm256_sub_epi16(qhi, phi), ahi));
      /* As signed words: h - 32768. */
      h[r][0] = _mm256_xor_si256(lo, flip);
      h[r][1] = _mm256_xor_si256(hi, flip);
   }
   /* Vertical: (h0 - 2^15) * (256 - b) + (h1 - 2^15) * b, the rows'
    * words paired and multiplied with the pair (256 - b, b). */
   __m256i bw = (__m256i)((256 - wb) | (wb << 16));
   out[0] = _mm256_madd_epi16(_mm256_unpacklo_epi16(h[0][0], h[1][0]), _mm256_shuffle_epi32(bw, 0x00));
   out[1] = _mm256_madd_epi16(_mm256_unpackhi_epi16(h[0][0], h[1][0]), _mm256_shuffle_epi32(bw, 0x55));
   out[2] = _mm256_madd_epi16(_mm256_unpacklo_epi16(h[0][1], h[1][1]), _mm256_shuffle_epi32(bw, 0xaa));
   out[3] = _mm256_madd_epi16(_mm256_unpackhi_epi16(h[0][1], h[1][1]), _mm256_shuffle_epi32(bw, 0xff));
}

/* Whether any lane of a mask is set (one vptest: the generic vany()
 * compiles to eight extracts here). */
BODY bool FN(fixed_any)(__m256i m)
{
   return !_mm256_testz_si256(m, m);
}

/* select() for the compile-time state (every lane linear, no layer), in
 * intrinsics: the same operations in the same order, so the same bits.
 * vsel(x > c, x, c) is vmaxps(x, c) and vsel(x < c, x, c) vminps(x, c)
 * (both give the second operand for NaN, as the selects do), and the
 * clamp of lambda to [0, q] is vmaxps(vminps(lambda, q), 0) (q >= 0: +0 for
 * lambda <= 0, as the select's constant). GCC built the scalars' splats of
 * the generic form from four vinsertps and a vinsertf128 each.
 * Where lambda can only select level 0 alone (a view of one level, maxLod
 * <= 0, or a chunk magnified on every lane asked for), lambda is not
 * computed: the levels, delta and the second level's absence are what the
 * arithmetic gives for it (dl = +0), so the same bits at no polynomial. */
BODY void FN(fixed_select)(const struct fast *f, const struct shale_sample_args *a, unsigned l0,
                           struct FN(sel) *sel)
{
   const uint32_t op = a->op;
   uint32_t active = (a->lanes >> l0) & 0xffu;
   sel->active = active;
   sel->layer = vsplati(0);
   sel->lin = vsplati(-1);
   __m256i on = _mm256_set1_epi32(-1);
   if (active != 0xffu) {
      const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
      on = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int32_t)active), lane_bit),
                              lane_bit);
   }
   sel->on = (v8i)on;
   /* The bias added to lambda_base. */
   __m256 b;
   if ((op & SHALE_SAMPLE_BIAS) && (op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      b = _mm256_add_ps(_mm256_set1_ps(f->bias), _mm256_loadu_ps(&a->lod[l0]));
      b = _mm256_max_ps(b, _mm256_set1_ps(-MAX_LOD_BIAS));
      b = _mm256_min_ps(b, _mm256_set1_ps(MAX_LOD_BIAS));
   } else {
      b = _mm256_set1_ps(f->bias);
   }
   __m256 lambda;
   const bool shortcut = !(sr_sample_fast_test && sr_sample_fast_test->no_shortcut);
   bool one = f->one_level && shortcut;
   if (!one && (op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      const __m256 fw = _mm256_set1_ps(f->fwidth), fh = _mm256_set1_ps(f->fheight);
      __m256 mx0 = _mm256_mul_ps(_mm256_loadu_ps(&a->grad[0][0][l0]), fw);
      __m256 mx1 = _mm256_mul_ps(_mm256_loadu_ps(&a->grad[0][1][l0]), fh);
      __m256 my0 = _mm256_mul_ps(_mm256_loadu_ps(&a->grad[1][0][l0]), fw);
      __m256 my1 = _mm256_mul_ps(_mm256_loadu_ps(&a->grad[1][1][l0]), fh);
      __m256 qx = _mm256_add_ps(_mm256_mul_ps(mx0, mx0), _mm256_mul_ps(mx1, mx1));
      __m256 qy = _mm256_add_ps(_mm256_mul_ps(my0, my0), _mm256_mul_ps(my1, my1));
      __m256 qm = _mm256_max_ps(qx, qy);
      /* Magnified on every lane asked for: rho <= 1 (the larger square
       * <= 1, ordered) and a bias <= 0 give lambda' <= 0 (vhalf_log2 is
       * <= 0 there), so with minLod <= 0 lambda <= 0 and the level is 0
       * with no second one, whatever the polynomial's value
       * (f->mag_level0 holds minLod <= 0 and maxLod not NaN). */
      if (f->mag_level0 && shortcut) {
         __m256 ok = _mm256_and_ps(_mm256_cmp_ps(qm, _mm256_set1_ps(1.0f), _CMP_LE_OQ),
                                   _mm256_cmp_ps(b, _mm256_setzero_ps(), _CMP_LE_OQ));
         ok = _mm256_or_ps(ok, _mm256_castsi256_ps(_mm256_xor_si256(on, _mm256_set1_epi32(-1))));
         one = _mm256_movemask_ps(ok) == 0xff;
      }
      if (!one)
         lambda = (__m256)vhalf_log2((v8f)qm);
   } else if (!one) {
      lambda = _mm256_loadu_ps(&a->lod[l0]);
   }
   if (one) {
      /* What the arithmetic below gives for lambda <= 0 or a single level
       * (dl = +0): level 0, delta +0, no second level. */
      if (sr_sample_fast_test)
         sr_sample_fast_test->level0_chunks++;
      sel->lvl0 = vsplati(0);
      sel->lvl1 = vsplati(f->last_level > 0 ? 1 : 0);
      sel->delta = vsplat(0.0f);
      sel->two = vsplati(0);
      return;
   }
   lambda = _mm256_add_ps(lambda, b);
   lambda = _mm256_max_ps(lambda, _mm256_set1_ps(f->min_lod));
   lambda = _mm256_min_ps(lambda, _mm256_set1_ps(f->max_lod));
   __m256 dl = _mm256_max_ps(_mm256_min_ps(lambda, _mm256_set1_ps(f->q)), _mm256_setzero_ps());
   __m256i lvl0 = _mm256_cvttps_epi32(dl);
   __m256i lvl1 = _mm256_min_epi32(_mm256_add_epi32(lvl0, _mm256_set1_epi32(1)),
                                   _mm256_set1_epi32(f->last_level));
   __m256 delta = _mm256_sub_ps(dl, _mm256_cvtepi32_ps(lvl0));
   sel->two = (v8i)_mm256_castps_si256(_mm256_cmp_ps(delta, _mm256_setzero_ps(), _CMP_GT_OQ));
   sel->delta = (v8f)delta;
   if (active != 0xffu) {
      /* Lanes left out read the first active lane's levels (select()). */
      __m256i first = _mm256_set1_epi32((int32_t)__builtin_ctz(active));
      lvl0 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lvl0, first), lvl0, on);
      lvl1 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lvl1, first), lvl1, on);
   }
   sel->lvl0 = (v8i)lvl0;
   sel->lvl1 = (v8i)lvl1;
}

/* address() for the compile-time state: one splat where the lanes share
 * the level (tested with one compare and a movemask), else address()'s
 * lane by lane form. */
BODY void FN(fixed_address)(const struct fast *f, v8i lvl, struct FN(addr) *ad)
{
   const int32_t l = _mm_cvtsi128_si32(_mm256_castsi256_si128((__m256i)lvl));
   __m256i same = _mm256_cmpeq_epi32((__m256i)lvl, _mm256_set1_epi32(l));
   if (_mm256_movemask_epi8(same) != -1) {
      FN(address)(f, lvl, vsplati(0), true, ad);
      return;
   }
   const struct shale_image_view_desc *v = f->v;
   const int32_t w = f->width >> l > 1 ? f->width >> l : 1;
   const int32_t h = f->height >> l > 1 ? f->height >> l : 1;
   ad->w = (v8i)_mm256_set1_epi32(w);
   ad->h = (v8i)_mm256_set1_epi32(h);
   ad->row = (v8i)_mm256_set1_epi32((int32_t)v->row_pitch[l]);
   ad->start = (v8i)_mm256_set1_epi32((int32_t)v->level_offset[l]);
   ad->shared = true;
}

/* floor(x) as an integer and as a float, x clamped to +-2^30 and NaN
 * taken as 0 first: vifloor()'s integer (floor is exact there), by one
 * vroundps. */
BODY __m256i FN(fixed_floor)(__m256 x, __m256 *fl)
{
   x = _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q));
   x = _mm256_min_ps(x, _mm256_set1_ps(1073741824.0f));
   x = _mm256_max_ps(x, _mm256_set1_ps(-1073741824.0f));
   *fl = _mm256_floor_ps(x);
   return _mm256_cvttps_epi32(*fl);
}

/* Texel Linear Filtering of one level (ad) of 8-bit UNORM RGBA texels at
 * normalized (s, t) for the compile-time state (REPEAT, power-of-two
 * sizes), in fixed point: the weights snapped to 1/256 of a texel
 * (subTexelPrecisionBits = 8), the sums exact in integers. out[k] holds
 * lanes k and k + 4 as four 32-bit sums each (R, G, B, A in texel order),
 * 2^16 times the filtered code, less 2^23. */
BODY void FN(fixed_level)(const struct fast *f, v8f s, v8f t, const struct FN(addr) *ad,
                          __m256i out[4])
{
   const __m256 half = _mm256_set1_ps(0.5f);
   __m256 u = _mm256_sub_ps(_mm256_mul_ps((__m256)s, _mm256_cvtepi32_ps((__m256i)ad->w)), half);
   __m256 v = _mm256_sub_ps(_mm256_mul_ps((__m256)t, _mm256_cvtepi32_ps((__m256i)ad->h)), half);
   __m256 fu, fv;
   v8i i0 = (v8i)FN(fixed_floor)(u, &fu), j0 = (v8i)FN(fixed_floor)(v, &fv);
   /* The fraction is exact (u - floor(u)); clamped or non-finite lanes
    * get some weight in [0, 255]. */
   const __m256 k256 = _mm256_set1_ps(256.0f);
   const __m256i m255 = _mm256_set1_epi32(0xff);
   v8i wa = (v8i)_mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(_mm256_sub_ps(u, fu), k256)), m255);
   v8i wb = (v8i)_mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(_mm256_sub_ps(v, fv), k256)), m255);
   __m256i t00, t10, t01, t11;
   if (!FN(window)(f, ad, i0, j0, &t00, &t10, &t01, &t11)) {
      v8i wm = ad->w - 1, hm = ad->h - 1;
      v8i x0 = (i0 & wm) << 2, x1 = ((i0 + 1) & wm) << 2;
      v8i y0 = (j0 & hm) * ad->row + ad->start, y1 = ((j0 + 1) & hm) * ad->row + ad->start;
      if (!FN(fixed_any)((__m256i)(x1 != x0 + 4))) {
         /* No lane on the level's last column: each lane's two columns
          * are side by side in the row, one 64-bit load (the same texels). */
         v8i p0, p1, p2, p3;
         FAST_GATHER_PAIR(f->base, y0 + x0, &p0, &p1);
         FAST_GATHER_PAIR(f->base, y1 + x0, &p2, &p3);
         t00 = (__m256i)p0;
         t10 = (__m256i)p1;
         t01 = (__m256i)p2;
         t11 = (__m256i)p3;
      } else {
         t00 = (__m256i)FAST_GATHER(f->base, y0 + x0);
         t10 = (__m256i)FAST_GATHER(f->base, y0 + x1);
         t01 = (__m256i)FAST_GATHER(f->base, y1 + x0);
         t11 = (__m256i)FAST_GATHER(f->base, y1 + x1);
      }
   }
   FN(fixed_filter)(t00, t10, t01, t11, wa, wb, out);
}

/* The mipmap blend of two levels' fixed_filter() sums, into r0: delta in
 * [0, 1) (0 keeps r0) to d in [0, 255]; the levels' sums to 8.8 (the bias
 * 2^23 stays a whole 2^15), then x0 * (256 - d) + x1 * d. The 8.8 values
 * lie in [-2^15, 2^15) (sums in [-2^23, 2^23)), so each lane's pair
 * (x0, x1) is two signed words and one multiply-add of word pairs with
 * (256 - d, d) gives the exact sum (below 2^24 in magnitude). */
BODY void FN(fixed_mip)(__m256i r0[4], const __m256i r1[4], v8f delta)
{
   __m256i d = (__m256i)vtoi(delta * 256.0f);
   __m256i dw = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(256), d), _mm256_slli_epi32(d, 16));
   const __m256i dk[4] = { _mm256_shuffle_epi32(dw, 0x00), _mm256_shuffle_epi32(dw, 0x55),
                           _mm256_shuffle_epi32(dw, 0xaa), _mm256_shuffle_epi32(dw, 0xff) };
   for (int k = 0; k < 4; k++) {
      /* x0 = r0 >> 8 in the low word (bits 8 .. 23), x1 = r1 >> 8 in the
       * high word. */
      __m256i x = _mm256_blend_epi16(_mm256_srli_epi32(r0[k], 8), _mm256_slli_epi32(r1[k], 8), 0xaa);
      r0[k] = _mm256_madd_epi16(x, dk[k]);
   }
}

/* fixed_filter()'s layout, lanes (k | k + 4) of R, G, B, A, to R, G, B, A
 * of lanes 0 .. 7 (c[k]: component k of the eight lanes). */
BODY void FN(fixed_lanes)(const __m256i r[4], __m256i c[4])
{
   __m256i u0 = _mm256_unpacklo_epi32(r[0], r[1]), u1 = _mm256_unpackhi_epi32(r[0], r[1]);
   __m256i u2 = _mm256_unpacklo_epi32(r[2], r[3]), u3 = _mm256_unpackhi_epi32(r[2], r[3]);
   c[0] = _mm256_unpacklo_epi64(u0, u2);
   c[1] = _mm256_unpackhi_epi64(u0, u2);
   c[2] = _mm256_unpacklo_epi64(u1, u3);
   c[3] = _mm256_unpackhi_epi64(u1, u3);
}

/* Lanes l0 .. l0 + 7 of a call in the compile-time state, 8-bit UNORM
 * RGBA or BGRA: fixed-point filtering (fixed_level), the mipmap weight
 * snapped to 1/256 (mipmapPrecisionBits = 8). */
BODY void FN(fixed_chunk)(const struct fast *f, struct shale_sample_args *a, unsigned l0, bool bgra,
                          bool ident)
{
   struct FN(sel) sel;
   FN(fixed_select)(f, a, l0, &sel);
   v8f s = vloadf(&a->coord[0][l0]), t = vloadf(&a->coord[1][l0]);
   struct FN(addr) ad;
   __m256i r0[4];
   FN(fixed_address)(f, sel.lvl0, &ad);
   FN(fixed_level)(f, s, t, &ad, r0);
   if (FN(fixed_any)(_mm256_and_si256((__m256i)sel.two, (__m256i)sel.on))) {
      __m256i r1[4];
      FN(fixed_address)(f, sel.lvl1, &ad);
      FN(fixed_level)(f, s, t, &ad, r1);
      FN(fixed_mip)(r0, r1, sel.delta);
   }
   __m256i c[4];
   FN(fixed_lanes)(r0, c);
   /* Codes times 2^16 (exact in floats, below 2^24), times the float
    * nearest 1 / (255 * 2^16): within an ulp of the quotient for every
    * code (checked exhaustively), 1 exactly at 255, where a division cost
    * more than the rest of the conversion. */
   const __m256i bias = _mm256_set1_epi32(1 << 23);
   const __m256 scale = _mm256_set1_ps(1.0f / (255.0f * 65536.0f));
   v8f tau[4];
   for (int k = 0; k < 4; k++)
      tau[k] = (v8f)_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(c[k], bias)), scale);
   if (bgra) {
      v8f r = tau[0];
      tau[0] = tau[2];
      tau[2] = r;
   }
   FN(store_sw)(f, a, l0, &sel, tau, ident);
}
#endif

#include "rasterizer/sr_sample_fast_nl.h"

/* run() after fast_init(): its state f (AVX-512's run_nl_avx512 calls it
 * with its own). */
BODY void FN(run_state)(const struct fast *fp, struct shale_sample_args *args, int fmt, bool srgb)
{
   const struct fast f = *fp;
   /* The usual trilinear, repeating, power-of-two case with its choices
    * made at compile time. */
   if (f.tri && !(args->op & SHALE_SAMPLE_OFFSET)) {
#if FAST_FIXED
      if ((fmt == FF_RGBA8 || fmt == FF_BGRA8) && !srgb) {
         for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
            if ((args->lanes >> l0) & 0xffu)
               FN(fixed_chunk)(&f, args, l0, fmt == FF_BGRA8, false);
         return;
      }
#endif
      for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
         if ((args->lanes >> l0) & 0xffu)
            FN(chunk)(&f, args, l0, fmt, srgb, true);
      return;
   }
   /* NEAREST, and LINEAR on other sizes and modes (sr_sample_fast_nl.h). */
   if (FN(nl_run)(&f, args, fmt, srgb))
      return;
   for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
      if ((args->lanes >> l0) & 0xffu)
         FN(chunk)(&f, args, l0, fmt, srgb, false);
}

BODY void FN(run)(const struct shale_image_view_desc *view, const struct shale_sampler_desc *sampler,
                  struct shale_sample_args *args, int fmt, bool srgb)
{
   struct fast f;
   if (!fast_init(&f, view, sampler, args->op)) {
      sr_sample(view, sampler, args);
      return;
   }
   FN(run_state)(&f, args, fmt, srgb);
}

FAST_TARGET static void FN(fast_rgba8)(const struct shale_image_view_desc *view,
                                       const struct shale_sampler_desc *sampler,
                                       struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_RGBA8, false);
}

FAST_TARGET static void FN(fast_srgba8)(const struct shale_image_view_desc *view,
                                        const struct shale_sampler_desc *sampler,
                                        struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_RGBA8, true);
}

FAST_TARGET static void FN(fast_bgra8)(const struct shale_image_view_desc *view,
                                       const struct shale_sampler_desc *sampler,
                                       struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_BGRA8, false);
}

FAST_TARGET static void FN(fast_sbgra8)(const struct shale_image_view_desc *view,
                                        const struct shale_sampler_desc *sampler,
                                        struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_BGRA8, true);
}

FAST_TARGET static void FN(fast_r8)(const struct shale_image_view_desc *view,
                                    const struct shale_sampler_desc *sampler,
                                    struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_R8, false);
}

FAST_TARGET static void FN(fast_sr8)(const struct shale_image_view_desc *view,
                                     const struct shale_sampler_desc *sampler,
                                     struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_R8, true);
}

FAST_TARGET static void FN(fast_rg8)(const struct shale_image_view_desc *view,
                                     const struct shale_sampler_desc *sampler,
                                     struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_RG8, false);
}

FAST_TARGET static void FN(fast_srg8)(const struct shale_image_view_desc *view,
                                      const struct shale_sampler_desc *sampler,
                                      struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_RG8, true);
}

FAST_TARGET static void FN(fast_rgba16f)(const struct shale_image_view_desc *view,
                                         const struct shale_sampler_desc *sampler,
                                         struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_RGBA16F, false);
}

FAST_TARGET static void FN(fast_rgba32f)(const struct shale_image_view_desc *view,
                                         const struct shale_sampler_desc *sampler,
                                         struct shale_sample_args *args)
{
   FN(run)(view, sampler, args, FF_RGBA32F, false);
}

#if FAST_FIXED
/* The routines of 8-bit UNORM RGBA / BGRA views that are 2D, power-of-two
 * and unswizzled (sr_sample_select_isa checks): a call in the fixed-point
 * state (fast_tri_call) decodes only the few fields it reads (fast_init_tri)
 * and stores without swizzling; any other goes to the view's usual
 * routine. */
BODY void FN(run_tri)(const struct shale_image_view_desc *view,
                      const struct shale_sampler_desc *sampler, struct shale_sample_args *args,
                      bool bgra)
{
   if (!fast_tri_call(sampler, args->op)) {
      if (bgra)
         FN(fast_bgra8)(view, sampler, args);
      else
         FN(fast_rgba8)(view, sampler, args);
      return;
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->tri_calls++;
   struct fast f;
   fast_init_tri(&f, view, sampler);
   for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
      if ((args->lanes >> l0) & 0xffu)
         FN(fixed_chunk)(&f, args, l0, bgra, true);
}

FAST_TARGET static void FN(fast_rgba8_tri)(const struct shale_image_view_desc *view,
                                           const struct shale_sampler_desc *sampler,
                                           struct shale_sample_args *args)
{
   FN(run_tri)(view, sampler, args, false);
}

FAST_TARGET static void FN(fast_bgra8_tri)(const struct shale_image_view_desc *view,
                                           const struct shale_sampler_desc *sampler,
                                           struct shale_sample_args *args)
{
   FN(run_tri)(view, sampler, args, true);
}
#endif

#undef FAST_CAT2
#undef FAST_CAT
#undef FN
#undef BODY
