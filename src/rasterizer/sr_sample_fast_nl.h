/* sr_sample_fast_body.h's paths for states outside "tri": NEAREST filtering, and LINEAR in fixed point on any size and address mode. */
/*
 * Included by sr_sample_fast_body.h (once per build) after its chunk
 * functions; run() hands a call here (nl_run) when its state is not the
 * compile-time trilinear one. Two paths:
 *
 * NEAREST (both filters NEAREST, mipmaps NEAREST or a single level, any of
 * the routines' formats, address modes and sizes, 2D and 2D-array, offsets
 * allowed), both builds: chunk()'s arithmetic with every lane nearest known
 * at compile time, so its results are sr_sample()'s bits. Where only one
 * level can be chosen (the view has one, maxLod <= 0 clamps every
 * lambda to level 0, or NEAREST mipmapping with maxLod <= 0.5 rounds every
 * clamped lambda to level 0: zink's GL textures without mipmaps) and both
 * filters agree, lambda decides nothing: the
 * chunk skips the Scale Factor and LOD Operations (the derivatives' square
 * roots and log2). CLAMP_TO_EDGE takes floor(clamp(u, 0, w - 1)) for
 * clamp(floor(u), 0, w - 1) (the same integer: floor is monotonic and the
 * bounds are integers; NaN gives 0 either way). In the AVX2 build a
 * single-level call on a 2D 8-bit RGBA / BGRA view (sRGB too) runs
 * near_chunk32: the same arithmetic in intrinsics, the texels of a chunk
 * whose lanes lie within eight columns and a quad's two rows read from
 * those rows (near_window: two loads and permutes for a gather; the same
 * texels), UNORM codes divided by vdiv255 (the division's bits); where
 * the CPU has AVX-512, sr_sample_fast.c's near_chunk16 takes UNORM ones
 * sixteen lanes at a time, with the same bits.
 *
 * LINEAR (both filters LINEAR, any mipmap mode, any address mode and
 * size, 2D and 2D-array, offsets allowed), AVX2 build, 8-bit UNORM RGBA and
 * BGRA: fixed_chunk()'s fixed point (the weights snapped down to 1/256 of a
 * texel, subTexelPrecisionBits 8; the mipmap weight to 1/256,
 * mipmapPrecisionBits 8; 16- and 32-bit integer sums, each level's
 * truncated to 1/256 of a code before the mipmap blend, one division at
 * the end) with chunk()'s addressing (vwrap: any mode, any size), lambda
 * skipped as above when a single level can be chosen, and 64-bit pair
 * loads where both columns of every lane are side by side (CLAMP_TO_EDGE
 * away from the right edge: nearly always). Single-level calls on 2D views
 * run lin_chunk32: the same arithmetic in intrinsics, the footprint of a
 * chunk whose lanes lie within eight columns and whose rows are a quad's
 * (up to four, three at about a texel a pixel) read from those rows
 * (lin_window: permutes for gathers; the same texels), and fixed_chunk()'s
 * conversion (a multiplication by the float nearest 1 / (255 * 2^16), within
 * an ulp of the division the other calls make). glmark2's desktop scene
 * (zink's one-level and maxLod 0.25 CLAMP_TO_EDGE views) runs there.
 * unit/sample holds both to the fixed-point tolerance the tri path has.
 *
 * The invariants of sr_sample_fast.c hold: every texel read is in the view
 * (wrapped or clamped indices; the pair loads only where the second
 * column is the first's neighbour in the row), lanes outside args->lanes
 * are computed and not stored.
 */

/* Whether lambda can choose only level 0 with one filter: the view has one
 * level, or maxLod <= 0 (lambda is clamped to maxLod, then to [0, q]), or
 * NEAREST mipmapping with maxLod <= 0.5 (zink's clamp for GL textures
 * without mipmaps is 0.25: dl in [0, 0.5] gives ceil(dl + 0.5) - 1 = 0),
 * and the two filters agree (lambda <= 0 picks magFilter). */
BODY bool FN(nl_single)(const struct fast *f)
{
   return f->mag_linear == f->min_linear &&
          (f->last_level == 0 || f->max_lod <= 0.0f || (!f->mip_linear && f->max_lod <= 0.5f));
}

/* select() for a single-level call: level 0, no second level, the layer
 * and the lanes asked for; lin as the filters say. */
BODY void FN(nl_select_single)(const struct fast *f, const struct shale_sample_args *a, unsigned l0,
                               struct FN(sel) *sel)
{
   v8i layer = vsplati(0);
   if (f->arrayed) {
      /* clamp(RNE(a), 0, layers - 1); NaN and negative layers give 0
       * (select()'s). */
      v8f la = vloadf(&a->coord[2][l0]);
      v8i ge0 = la >= 0.0f;
      la = vsel(la < 4194304.0f, la, vsplat(4194304.0f));
      v8f rne = (la + 8388608.0f) - 8388608.0f;
      layer = vmini(vtoi(rne), vsplati(f->last_layer)) & ge0;
   }
   uint32_t active = (a->lanes >> l0) & 0xffu;
   v8i lane_bit = (v8i) { 1, 2, 4, 8, 16, 32, 64, 128 };
   sel->layer = layer;
   sel->lin = vsplati(f->mag_linear ? -1 : 0);
   sel->lvl0 = vsplati(0);
   sel->lvl1 = vsplati(0);
   sel->two = vsplati(0);
   sel->on = (vsplati((int32_t)active) & lane_bit) != 0;
   sel->delta = vsplat(0.0f);
   sel->active = active;
}

/* The wrapped texel index of coordinate x (texel units) on every lane in
 * mode `mode`: vwrap(ifloor(x)), or for CLAMP_TO_EDGE floor of x clamped
 * to [0, n - 1] (the same integer; NaN 0). */
BODY v8i FN(nl_index)(v8f x, v8i n, uint32_t mode, bool pow2)
{
   if (mode == VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE) {
      x = vsel(x > 0.0f, x, vsplat(0.0f));
      v8f top = vtof(n - 1);
      x = vsel(x < top, x, top);
      return vtoi(x);
   }
   return vwrap(vifloor(x), n, mode, pow2);
}

#if FAST_FIXED
/* The texels of a NEAREST chunk of 32-bit texels read from rows instead of
 * a gather: where the lanes share a level and layer (texel (0, 0) at byte
 * `start`, rows `row` bytes apart) of at least eight columns (w), the
 * columns xi of the lanes asked for (`on`, `active`) lie within eight
 * consecutive ones and their rows yi are lane 0's or lane 2's (a quad's
 * two rows; after the lanes left out are given the first active lane's
 * indices), each such row is read eight texels at a time and every lane's
 * texel picked by a permute: the texels the gather reads (xi and yi are
 * wrapped or clamped indices in the level), so the same bits. A
 * screen-aligned quad pair (glmark2's effect2d and desktop) spans two rows
 * and two to four columns. false: the footprint does not fit (or the test
 * hook asks for gathers); nothing read. */
BODY bool FN(near_window)(const struct fast *f, int32_t start, int32_t row, int32_t w,
                          uint32_t active, __m256i on, __m256i x, __m256i y, __m256i *out)
{
   if (w < 8 || (sr_sample_fast_test && sr_sample_fast_test->gathers_only))
      return false;
   if (active != 0xffu) {
      const __m256i first = _mm256_set1_epi32((int32_t)__builtin_ctz(active));
      x = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(x, first), x, on);
      y = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(y, first), y, on);
   }
   const int32_t imin = FN(hmin)((v8i)x), imax = FN(hmax)((v8i)x);
   if (imax - imin > 7)
      return false;
   const int32_t ja = _mm_cvtsi128_si32(_mm256_castsi256_si128(y));
   const int32_t jb = _mm_extract_epi32(_mm256_castsi256_si128(y), 2);
   const __m256i in_a = _mm256_cmpeq_epi32(y, _mm256_set1_epi32(ja));
   const __m256i in_b = _mm256_cmpeq_epi32(y, _mm256_set1_epi32(jb));
   if (_mm256_movemask_epi8(_mm256_or_si256(in_a, in_b)) != -1)
      return false;
   /* Columns cs .. cs + 7 of the level hold imin .. imax. */
   const int32_t cs = imin < w - 8 ? imin : w - 8;
   const uint8_t *p = f->base + (size_t)start + (size_t)cs * 4;
   const __m256i ix = _mm256_sub_epi32(x, _mm256_set1_epi32(cs));
   __m256i r = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256((const __m256i *)(p + (size_t)ja * (size_t)row)), ix);
   if (ja != jb) {
      __m256i rb = _mm256_permutevar8x32_epi32(
         _mm256_loadu_si256((const __m256i *)(p + (size_t)jb * (size_t)row)), ix);
      r = _mm256_blendv_epi8(rb, r, in_a);
   }
   *out = r;
   if (sr_sample_fast_test)
      sr_sample_fast_test->windows++;
   return true;
}

/* The texel index of coordinate x (texel units) on every lane, n texels,
 * as nl_index() computes it: CLAMP_TO_EDGE in intrinsics (max(x, 0) gives
 * 0 for NaN and x <= 0 as the select does, min(x, n - 1) the bound), other
 * modes by nl_index(). */
BODY __m256i FN(near_index)(__m256 x, int32_t n, uint32_t mode, bool pow2)
{
   if (mode != VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE)
      return (__m256i)FN(nl_index)((v8f)x, vsplati(n), mode, pow2);
   x = _mm256_max_ps(x, _mm256_setzero_ps());
   x = _mm256_min_ps(x, _mm256_set1_ps((float)(n - 1)));
   return _mm256_cvttps_epi32(x);
}

/* The lanes asked for (active, on) of filtered components, the view's
 * swizzle applied: store() in intrinsics. */
BODY void FN(store32)(const struct fast *f, struct shale_sample_args *a, unsigned l0,
                      uint32_t active, __m256i on, const v8f tau[4])
{
   for (int k = 0; k < 4; k++) {
      const uint8_t sw = f->swz[k];
      __m256 r = sw < 4 ? (__m256)tau[sw] : _mm256_set1_ps(sw == SWZ_ONE ? 1.0f : 0.0f);
      if (active != 0xffu)
         r = _mm256_blendv_ps(_mm256_loadu_ps((const float *)&a->result[k][l0]), r,
                              _mm256_castsi256_ps(on));
      _mm256_storeu_ps((float *)&a->result[k][l0], r);
   }
}

/* The mask of the lanes asked for among l0 .. l0 + 7. */
BODY __m256i FN(lane_mask)(uint32_t active)
{
   if (active == 0xffu)
      return _mm256_set1_epi32(-1);
   const __m256i lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
   return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int32_t)active), lane_bit),
                             lane_bit);
}

/* near_chunk() for a single-level call (nl_single) on a 2D view of 8-bit
 * RGBA or BGRA texels: level 0, written in intrinsics where GCC built the
 * generic form's splats of scalars from vpinsrd chains and vany() from
 * extracts; the same operations, so the same bits, UNORM codes divided by
 * 255 as vdiv255() does (the same bits as the division). */
BODY void FN(near_chunk32)(const struct fast *f, struct shale_sample_args *a, unsigned l0, int fmt,
                           bool srgb)
{
   const uint32_t active = (a->lanes >> l0) & 0xffu;
   const __m256i on = FN(lane_mask)(active);
   const struct shale_image_view_desc *view = f->v;
   const int32_t w = f->width, h = f->height;
   const int32_t row = (int32_t)view->row_pitch[0], start = (int32_t)view->level_offset[0];
   __m256 u = _mm256_mul_ps(_mm256_loadu_ps(&a->coord[0][l0]), _mm256_set1_ps(f->fwidth));
   __m256 v = _mm256_mul_ps(_mm256_loadu_ps(&a->coord[1][l0]), _mm256_set1_ps(f->fheight));
   if (a->op & SHALE_SAMPLE_OFFSET) {
      u = _mm256_add_ps(u, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)&a->offset[0][l0])));
      v = _mm256_add_ps(v, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)&a->offset[1][l0])));
   }
   const __m256i xi = FN(near_index)(u, w, f->mode_u, f->pow2w);
   const __m256i yi = FN(near_index)(v, h, f->mode_v, f->pow2h);
   __m256i texels;
   if (!FN(near_window)(f, start, row, w, active, on, xi, yi, &texels)) {
      __m256i off = _mm256_add_epi32(_mm256_mullo_epi32(yi, _mm256_set1_epi32(row)),
                                     _mm256_add_epi32(_mm256_set1_epi32(start), _mm256_slli_epi32(xi, 2)));
      texels = (__m256i)FAST_GATHER(f->base, (v8i)off);
   }
   v8f tau[4];
   FN(decode)((v8u)texels, fmt, srgb, tau);
   for (int k = srgb ? 3 : 0; k < 4; k++)
      tau[k] = vdiv255(tau[k]);
   FN(store32)(f, a, l0, active, on, tau);
}
#endif

/* Lanes l0 .. l0 + 7 of a NEAREST call (see the note): level() with no
 * linear lane, chunk()'s division of UNORM codes. */
BODY void FN(near_chunk)(const struct fast *f, struct shale_sample_args *a, unsigned l0, int fmt,
                         bool srgb, bool single)
{
   struct FN(sel) sel;
   if (single)
      FN(nl_select_single)(f, a, l0, &sel);
   else
      FN(select)(f, a, l0, false, &sel);
   struct FN(addr) ad;
   FN(address)(f, sel.lvl0, sel.layer, false, &ad);
   v8f u = vloadf(&a->coord[0][l0]) * vtof(ad.w), v = vloadf(&a->coord[1][l0]) * vtof(ad.h);
   if (a->op & SHALE_SAMPLE_OFFSET) {
      u = u + vtof(vloadi(&a->offset[0][l0]));
      v = v + vtof(vloadi(&a->offset[1][l0]));
   }
   const int32_t size = fmt_size(fmt);
   v8i xi = FN(nl_index)(u, ad.w, f->mode_u, f->pow2w);
   v8i yi = FN(nl_index)(v, ad.h, f->mode_v, f->pow2h);
   v8f tau[4];
   FN(fetch)(f->base, yi * ad.row + ad.start + xi * size, fmt, srgb, tau);
   if (fmt != FF_RGBA16F && fmt != FF_RGBA32F)
      for (int k = 0; k < 4; k++)
         if (!srgb || k >= (fmt == FF_R8 ? 1 : fmt == FF_RG8 ? 2 : 3))
            tau[k] = tau[k] / 255.0f;   /* su_unpack_float's division: the same bits */
   FN(store)(f, a, l0, &sel, tau);
}

#if FAST_FIXED
/* Texel Linear Filtering of one level (ad) of 8-bit UNORM RGBA texels in
 * fixed point, any address mode and size: fixed_level()'s arithmetic
 * (fixed_filter(), and its output layout: out[k] holds lanes k and k + 4
 * as four 32-bit sums, 2^16 times the filtered code, less 2^23) on
 * chunk()'s addressing. */
BODY void FN(nl_fixed_level)(const struct fast *f, const struct shale_sample_args *a, unsigned l0,
                             v8f s, v8f t, const struct FN(addr) *ad, __m256i out[4])
{
   v8f u = s * vtof(ad->w), v = t * vtof(ad->h);
   if (a->op & SHALE_SAMPLE_OFFSET) {
      u = u + vtof(vloadi(&a->offset[0][l0]));
      v = v + vtof(vloadi(&a->offset[1][l0]));
   }
   u = u - 0.5f;
   v = v - 0.5f;
   v8i i0 = vifloor(u), j0 = vifloor(v);
   v8i wa = vtoi((u - vtof(i0)) * 256.0f) & 0xff;
   v8i wb = vtoi((v - vtof(j0)) * 256.0f) & 0xff;
   v8i x0 = vwrap(i0, ad->w, f->mode_u, f->pow2w) * 4;
   v8i x1 = vwrap(i0 + 1, ad->w, f->mode_u, f->pow2w) * 4;
   v8i y0 = vwrap(j0, ad->h, f->mode_v, f->pow2h) * ad->row + ad->start;
   v8i y1 = vwrap(j0 + 1, ad->h, f->mode_v, f->pow2h) * ad->row + ad->start;
   __m256i t00, t10, t01, t11;
   if (!vany(x1 != x0 + 4)) {
      /* Texel x0 + 1 is in the row on every lane: 8-byte loads. */
      v8i p0, p1;
      FAST_GATHER_PAIR(f->base, y0 + x0, &p0, &p1);
      t00 = (__m256i)p0;
      t10 = (__m256i)p1;
      FAST_GATHER_PAIR(f->base, y1 + x0, &p0, &p1);
      t01 = (__m256i)p0;
      t11 = (__m256i)p1;
   } else {
      t00 = (__m256i)FAST_GATHER(f->base, y0 + x0);
      t10 = (__m256i)FAST_GATHER(f->base, y0 + x1);
      t01 = (__m256i)FAST_GATHER(f->base, y1 + x0);
      t11 = (__m256i)FAST_GATHER(f->base, y1 + x1);
   }
   FN(fixed_filter)(t00, t10, t01, t11, wa, wb, out);
}

/* Lanes l0 .. l0 + 7 of a LINEAR call on 8-bit UNORM RGBA or BGRA in fixed
 * point (see the note): fixed_chunk()'s mipmap blend and conversion. */
BODY void FN(lin_fixed_chunk)(const struct fast *f, struct shale_sample_args *a, unsigned l0,
                              bool bgra, bool single)
{
   struct FN(sel) sel;
   if (single)
      FN(nl_select_single)(f, a, l0, &sel);
   else
      FN(select)(f, a, l0, false, &sel);
   v8f s = vloadf(&a->coord[0][l0]), t = vloadf(&a->coord[1][l0]);
   struct FN(addr) ad;
   __m256i r0[4];
   FN(address)(f, sel.lvl0, sel.layer, false, &ad);
   FN(nl_fixed_level)(f, a, l0, s, t, &ad, r0);
   if (!single && vany(sel.two & sel.on)) {
      __m256i r1[4];
      FN(address)(f, sel.lvl1, sel.layer, false, &ad);
      FN(nl_fixed_level)(f, a, l0, s, t, &ad, r1);
      /* Lanes with one level have delta 0: d 0, r0 kept. */
      FN(fixed_mip)(r0, r1, sel.delta);
   }
   __m256i c[4];
   FN(fixed_lanes)(r0, c);
   const __m256i bias = _mm256_set1_epi32(1 << 23);
   const __m256 scale = _mm256_set1_ps(255.0f * 65536.0f);
   v8f tau[4];
   for (int k = 0; k < 4; k++)
      tau[k] = (v8f)_mm256_div_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(c[k], bias)), scale);
   if (bgra) {
      v8f r = tau[0];
      tau[0] = tau[2];
      tau[2] = r;
   }
   FN(store)(f, a, l0, &sel, tau);
}

/* The wrapped texel index i (an integer in [-2^30, 2^30 + 1]) on every
 * lane, n texels: vwrap(); CLAMP_TO_EDGE in intrinsics. */
BODY __m256i FN(lin_wrap)(__m256i i, int32_t n, uint32_t mode, bool pow2)
{
   if (mode != VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE)
      return (__m256i)vwrap((v8i)i, vsplati(n), mode, pow2);
   return _mm256_min_epi32(_mm256_max_epi32(i, _mm256_setzero_si256()), _mm256_set1_epi32(n - 1));
}

/* One row's texels at columns ix0 and ix1 (of the eight read from p). */
BODY void FN(lin_row)(const uint8_t *p, __m256i ix0, __m256i ix1, __m256i *t0, __m256i *t1)
{
   __m256i r = _mm256_loadu_si256((const __m256i *)p);
   *t0 = _mm256_permutevar8x32_epi32(r, ix0);
   *t1 = _mm256_permutevar8x32_epi32(r, ix1);
}

/* The four texels of each lane's bilinear footprint (columns x0, x1 and
 * rows y0, y1: wrapped or clamped indices in the level) read from rows
 * instead of gathers: where the level (texel (0, 0) at byte `start`, rows
 * `row` bytes apart) has at least eight columns, the columns of the lanes
 * asked for (the others given the first active lane's indices) lie within
 * eight consecutive ones, every lane's row y0 is lane 0's or lane 2's and
 * its row y1 lane 0's or lane 2's (a quad's rows: up to four rows, three
 * where a quad pair is drawn at about a texel a pixel), each of those
 * rows is read eight texels at a time and the lanes' texels picked by
 * permutes: the texels the gathers read, so the same bits. false: the
 * footprint does not fit (or the test hook asks for gathers); nothing
 * read. */
BODY bool FN(lin_window)(const struct fast *f, int32_t start, int32_t row, int32_t w,
                         uint32_t active, __m256i on, __m256i x0, __m256i x1, __m256i y0,
                         __m256i y1, __m256i t[4])
{
   if (w < 8 || (sr_sample_fast_test && sr_sample_fast_test->gathers_only))
      return false;
   if (active != 0xffu) {
      const __m256i first = _mm256_set1_epi32((int32_t)__builtin_ctz(active));
      x0 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(x0, first), x0, on);
      x1 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(x1, first), x1, on);
      y0 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(y0, first), y0, on);
      y1 = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(y1, first), y1, on);
   }
   const int32_t cmin = FN(hmin)((v8i)_mm256_min_epi32(x0, x1));
   const int32_t cmax = FN(hmax)((v8i)_mm256_max_epi32(x0, x1));
   if (cmax - cmin > 7)
      return false;
   const __m128i ylo0 = _mm256_castsi256_si128(y0), ylo1 = _mm256_castsi256_si128(y1);
   const int32_t ra = _mm_cvtsi128_si32(ylo0), rb = _mm_extract_epi32(ylo0, 2);
   const int32_t rc = _mm_cvtsi128_si32(ylo1), rd = _mm_extract_epi32(ylo1, 2);
   const __m256i in_a = _mm256_cmpeq_epi32(y0, _mm256_set1_epi32(ra));
   const __m256i in_c = _mm256_cmpeq_epi32(y1, _mm256_set1_epi32(rc));
   const __m256i ok = _mm256_and_si256(
      _mm256_or_si256(in_a, _mm256_cmpeq_epi32(y0, _mm256_set1_epi32(rb))),
      _mm256_or_si256(in_c, _mm256_cmpeq_epi32(y1, _mm256_set1_epi32(rd))));
   if (_mm256_movemask_epi8(ok) != -1)
      return false;
   /* Columns cs .. cs + 7 of the level hold cmin .. cmax. */
   const int32_t cs = cmin < w - 8 ? cmin : w - 8;
   const uint8_t *p = f->base + (size_t)start + (size_t)cs * 4;
   const size_t pitch = (size_t)row;
   const __m256i base = _mm256_set1_epi32(cs);
   const __m256i ix0 = _mm256_sub_epi32(x0, base), ix1 = _mm256_sub_epi32(x1, base);
   /* Rows ra, rb (y0) and rc, rd (y1), each read and permuted once. */
   __m256i a0, a1, b0, b1, c0, c1, d0, d1;
   FN(lin_row)(p + (size_t)ra * pitch, ix0, ix1, &a0, &a1);
   if (rb == ra) {
      b0 = a0;
      b1 = a1;
   } else {
      FN(lin_row)(p + (size_t)rb * pitch, ix0, ix1, &b0, &b1);
   }
   if (rc == ra) {
      c0 = a0;
      c1 = a1;
   } else if (rc == rb) {
      c0 = b0;
      c1 = b1;
   } else {
      FN(lin_row)(p + (size_t)rc * pitch, ix0, ix1, &c0, &c1);
   }
   if (rd == rc) {
      d0 = c0;
      d1 = c1;
   } else if (rd == rb) {
      d0 = b0;
      d1 = b1;
   } else if (rd == ra) {
      d0 = a0;
      d1 = a1;
   } else {
      FN(lin_row)(p + (size_t)rd * pitch, ix0, ix1, &d0, &d1);
   }
   t[0] = _mm256_blendv_epi8(b0, a0, in_a);
   t[1] = _mm256_blendv_epi8(b1, a1, in_a);
   t[2] = _mm256_blendv_epi8(d0, c0, in_c);
   t[3] = _mm256_blendv_epi8(d1, c1, in_c);
   if (sr_sample_fast_test)
      sr_sample_fast_test->windows++;
   return true;
}

/* lin_fixed_chunk() for a single-level call (nl_single) on a 2D view:
 * level 0, nl_fixed_level()'s arithmetic in intrinsics (as near_chunk32;
 * fixed_floor() gives vifloor()'s integer and its float, so the same
 * weights), the footprint from rows (lin_window) where it fits, else the
 * gathers; the conversion of fixed_chunk() (a multiplication by the float
 * nearest 1 / (255 * 2^16)). */
BODY void FN(lin_chunk32)(const struct fast *f, struct shale_sample_args *a, unsigned l0, bool bgra)
{
   const uint32_t active = (a->lanes >> l0) & 0xffu;
   const __m256i on = FN(lane_mask)(active);
   const struct shale_image_view_desc *view = f->v;
   const int32_t w = f->width, h = f->height;
   const int32_t row = (int32_t)view->row_pitch[0], start = (int32_t)view->level_offset[0];
   __m256 u = _mm256_mul_ps(_mm256_loadu_ps(&a->coord[0][l0]), _mm256_set1_ps(f->fwidth));
   __m256 v = _mm256_mul_ps(_mm256_loadu_ps(&a->coord[1][l0]), _mm256_set1_ps(f->fheight));
   if (a->op & SHALE_SAMPLE_OFFSET) {
      u = _mm256_add_ps(u, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)&a->offset[0][l0])));
      v = _mm256_add_ps(v, _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)&a->offset[1][l0])));
   }
   const __m256 half = _mm256_set1_ps(0.5f);
   u = _mm256_sub_ps(u, half);
   v = _mm256_sub_ps(v, half);
   __m256 fu, fv;
   const __m256i i0 = FN(fixed_floor)(u, &fu), j0 = FN(fixed_floor)(v, &fv);
   const __m256 k256 = _mm256_set1_ps(256.0f);
   const __m256i m255 = _mm256_set1_epi32(0xff);
   const v8i wa = (v8i)_mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(_mm256_sub_ps(u, fu), k256)), m255);
   const v8i wb = (v8i)_mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(_mm256_sub_ps(v, fv), k256)), m255);
   const __m256i one = _mm256_set1_epi32(1);
   const __m256i x0 = FN(lin_wrap)(i0, w, f->mode_u, f->pow2w);
   const __m256i x1 = FN(lin_wrap)(_mm256_add_epi32(i0, one), w, f->mode_u, f->pow2w);
   const __m256i y0 = FN(lin_wrap)(j0, h, f->mode_v, f->pow2h);
   const __m256i y1 = FN(lin_wrap)(_mm256_add_epi32(j0, one), h, f->mode_v, f->pow2h);
   __m256i t[4];
   if (!FN(lin_window)(f, start, row, w, active, on, x0, x1, y0, y1, t)) {
      const __m256i rp = _mm256_set1_epi32(row), st = _mm256_set1_epi32(start);
      const __m256i o0 = _mm256_add_epi32(_mm256_mullo_epi32(y0, rp), st);
      const __m256i o1 = _mm256_add_epi32(_mm256_mullo_epi32(y1, rp), st);
      const __m256i c0 = _mm256_slli_epi32(x0, 2), c1 = _mm256_slli_epi32(x1, 2);
      if (_mm256_testz_si256(_mm256_xor_si256(c1, _mm256_add_epi32(c0, _mm256_set1_epi32(4))),
                             _mm256_set1_epi32(-1))) {
         /* Texel x0 + 1 is in the row on every lane: 8-byte loads. */
         v8i p0, p1, p2, p3;
         FAST_GATHER_PAIR(f->base, (v8i)_mm256_add_epi32(o0, c0), &p0, &p1);
         FAST_GATHER_PAIR(f->base, (v8i)_mm256_add_epi32(o1, c0), &p2, &p3);
         t[0] = (__m256i)p0;
         t[1] = (__m256i)p1;
         t[2] = (__m256i)p2;
         t[3] = (__m256i)p3;
      } else {
         t[0] = (__m256i)FAST_GATHER(f->base, (v8i)_mm256_add_epi32(o0, c0));
         t[1] = (__m256i)FAST_GATHER(f->base, (v8i)_mm256_add_epi32(o0, c1));
         t[2] = (__m256i)FAST_GATHER(f->base, (v8i)_mm256_add_epi32(o1, c0));
         t[3] = (__m256i)FAST_GATHER(f->base, (v8i)_mm256_add_epi32(o1, c1));
      }
   }
   __m256i r[4], c[4];
   FN(fixed_filter)(t[0], t[1], t[2], t[3], wa, wb, r);
   FN(fixed_lanes)(r, c);
   const __m256i bias = _mm256_set1_epi32(1 << 23);
   const __m256 scale = _mm256_set1_ps(1.0f / (255.0f * 65536.0f));
   v8f tau[4];
   for (int k = 0; k < 4; k++)
      tau[k] = (v8f)_mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(c[k], bias)), scale);
   if (bgra) {
      v8f rr = tau[0];
      tau[0] = tau[2];
      tau[2] = rr;
   }
   FN(store32)(f, a, l0, active, on, tau);
}
#endif

/* Calls this header's paths take (see the note); false: run() goes on. */
BODY bool FN(nl_run)(const struct fast *f, struct shale_sample_args *args, int fmt, bool srgb)
{
   const bool single = FN(nl_single)(f);
   if (!f->mag_linear && !f->min_linear && (single || !f->mip_linear)) {
#if FAST_FIXED
      if (single && !f->arrayed && (fmt == FF_RGBA8 || fmt == FF_BGRA8)) {
         for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
            if ((args->lanes >> l0) & 0xffu)
               FN(near_chunk32)(f, args, l0, fmt, srgb);
         return true;
      }
#endif
      for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
         if ((args->lanes >> l0) & 0xffu)
            FN(near_chunk)(f, args, l0, fmt, srgb, single);
      return true;
   }
#if FAST_FIXED
   if (f->mag_linear && f->min_linear && (fmt == FF_RGBA8 || fmt == FF_BGRA8) && !srgb) {
      if (single && !f->arrayed) {
         for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
            if ((args->lanes >> l0) & 0xffu)
               FN(lin_chunk32)(f, args, l0, fmt == FF_BGRA8);
         return true;
      }
      for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
         if ((args->lanes >> l0) & 0xffu)
            FN(lin_fixed_chunk)(f, args, l0, fmt == FF_BGRA8, single);
      return true;
   }
#endif
   return false;
}
