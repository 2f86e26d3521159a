/* sr_sample_fast.c's routines for 8-bit sRGB RGBA / BGRA views sampled trilinearly with REPEAT (AVX2 build). */
/*
 * Included by sr_sample_fast.c right after the AVX2 build of
 * sr_sample_fast_body.h (its FAST_* macros still defined), and uses that
 * build's functions by their _avx2 names. sr_sample_select_isa() hands
 * these routines 2D, power-of-two, unswizzled views of R8G8B8A8_SRGB,
 * A8B8G8R8_SRGB_PACK32 and B8G8R8A8_SRGB (what fast_tri_view() takes)
 * where the CPU lacks AVX-512 VBMI (sr_sample_fast_srgb16.h's fixed-point
 * routines take them where it has it, with the rest of AVX-512); a
 * call in the trilinear REPEAT state (fast_tri_call()) runs srgb_chunk()
 * here, any other goes to the view's usual routine (fast_srgba8_avx2 /
 * fast_sbgra8_avx2).
 *
 * The spec converts sRGB texels to linear before filtering (Vulkan 1.3,
 * chapter 16 "Image Operations", Texel Input Operations, Format
 * Conversion: R, G and B of an sRGB format go through the sRGB EOTF of the
 * Khronos Data Format Specification, alpha unchanged; Texel Filtering then
 * works on the converted values). The body's float chunk() does that with
 * one table gather per channel of each of a lane's four texels (srgb_table:
 * su_unpack_float's bits for every code): twelve gathers a level, which
 * were most of the cost of sampling the demo's texture. srgb_chunk() does
 * the same arithmetic (chunk()'s, tri state: the same float expressions in
 * the same order), but decodes each texel of the chunk's footprint on a
 * level once where the footprint is small, and picks each lane's four
 * texels' linear values by permutes: the same values, so the results are
 * chunk()'s bits exactly (unit/sample compares these against gathers, and
 * both against sr_sample() within 1e-5 as for every linear float result).
 * Two shapes: a row window, where the footprint lies within eight
 * unwrapped columns and rows at most one apart (the body's window()
 * condition): those two or three rows read eight texels at a time and
 * decoded once per row (six or nine table gathers instead of twelve); else
 * a block, where the footprint's bounding box (columns imin .. imax + 1,
 * rows jmin .. jmax + 1, wrapped) holds at most 16 texels: gathered and
 * decoded eight at a time in one or two units (four or eight gathers in
 * all instead of twelve table gathers and four half-width texel gathers),
 * each lane's texel picked from the two units by two permutes and a blend.
 * The demo's trilinear texture (shale_demo, 1 thread, before the block
 * shape): of its levels sampled, 41% took a row window, 55% did not for
 * rows two or more apart (the torus's v axis is foreshortened), 1.8% for
 * the window crossing the level's right edge, 1.2% for lanes on different
 * levels or levels narrower than eight texels. Other footprints go through
 * the body's level() as before.
 *
 * Invariants: sr_sample_fast.c's (every texel read lies in the view: the
 * window's rows are wrapped, its eight columns inside the level; lanes
 * outside args->lanes are computed and not stored).
 */

/* A level's decoded window: R, G, B linear and A as its code (floats),
 * of rows jmin, jmin + 1 and jmin + 2 (wrapped), eight columns from cs. */
struct srgb_rows {
   v8f c[3][4];
};

/* Eight 8-bit sRGB RGBA (or BGRA) texels to chunk()'s units: the table's
 * linear R, G, B and A's code, as decode() gives them. */
AVX2_FN void srgb_decode_row(__m256i row, bool bgra, v8f c[4])
{
   v8u u = (v8u)row;
   v8i b0 = (v8i)(u & 0xff), b2 = (v8i)((u >> 16) & 0xff);
   c[0] = table_avx2(srgb_table, bgra ? b2 : b0);
   c[1] = table_avx2(srgb_table, (v8i)((u >> 8) & 0xff));
   c[2] = table_avx2(srgb_table, bgra ? b0 : b2);
   c[3] = vtof((v8i)(u >> 24));
}

/* Component k of every lane's texel number n (0 to 15) of a block decoded
 * as two units of eight texels (u0: texels 0 to 7, u1: 8 to 15; u1 is not
 * read where n < 8 on every lane). */
AVX2_FN v8f srgb_pick(const v8f u0[4], const v8f u1[4], v8i n, bool two, int k)
{
   v8f lo = (v8f)_mm256_permutevar8x32_ps((__m256)u0[k], (__m256i)n);
   if (!two)
      return lo;
   return vsel(n > 7, (v8f)_mm256_permutevar8x32_ps((__m256)u1[k], (__m256i)n), lo);
}

/* Texel Linear Filtering of one level (ad) in the trilinear REPEAT state:
 * level_avx2()'s results (chunk()'s arithmetic), the texels' linear values
 * from a decoded row window or block where the footprint fits one (see
 * the note). */
AVX2_FN void srgb_level(const struct fast *f, const struct shale_sample_args *a, unsigned l0,
                        v8f s, v8f t, const struct addr_avx2 *ad, bool bgra, v8f out[4])
{
   const bool gathers = sr_sample_fast_test && sr_sample_fast_test->gathers_only;
   if (!ad->shared || gathers) {
      level_avx2(f, a, l0, s, t, ad, vsplati(-1), bgra ? FF_BGRA8 : FF_RGBA8, true, true, out);
      return;
   }
   const int32_t w = ad->w[0], h = ad->h[0];
   v8f uu = s * vtof(ad->w) - 0.5f, vv = t * vtof(ad->h) - 0.5f;
   v8i i0 = vifloor(uu), j0 = vifloor(vv);
   const int32_t imin = hmin_avx2(i0), imax = hmax_avx2(i0);
   const int32_t jmin = hmin_avx2(j0), jmax = hmax_avx2(j0);
   /* i0 and j0 lie in [-2^30, 2^30]: the differences fit 64 bits. */
   const int64_t span = (int64_t)imax - imin, jspan = (int64_t)jmax - jmin;
   const int32_t c0 = imin & (w - 1), wm = w - 1, hm = h - 1;
   v8f c00[4], c10[4], c01[4], c11[4];
   if (w >= 8 && span < 7 && jspan <= 1 && c0 + span + 1 < w) {
      /* Rows: columns cs .. cs + 7 hold c0 .. c0 + span + 1
       * (window_avx2()'s layout). */
      const int32_t cs = c0 < w - 8 ? c0 : w - 8;
      const uint8_t *p = f->base + (size_t)ad->start[0] + (size_t)cs * 4;
      const size_t row = (size_t)ad->row[0];
      const int nrows = jmax != jmin ? 3 : 2;
      struct srgb_rows r;
      for (int k = 0; k < nrows; k++)
         srgb_decode_row(
            _mm256_loadu_si256((const __m256i *)(p + (size_t)((jmin + k) & hm) * row)), bgra,
            r.c[k]);
      __m256i ix0 = (__m256i)(i0 - imin + (c0 - cs));
      __m256i ix1 = _mm256_add_epi32(ix0, _mm256_set1_epi32(1));
      for (int k = 0; k < 4; k++) {
         c00[k] = (v8f)_mm256_permutevar8x32_ps((__m256)r.c[0][k], ix0);
         c10[k] = (v8f)_mm256_permutevar8x32_ps((__m256)r.c[0][k], ix1);
         c01[k] = (v8f)_mm256_permutevar8x32_ps((__m256)r.c[1][k], ix0);
         c11[k] = (v8f)_mm256_permutevar8x32_ps((__m256)r.c[1][k], ix1);
      }
      if (nrows == 3) {
         /* Lanes on row jmin + 1 read rows jmin + 1 and jmin + 2. */
         v8i down = j0 != vsplati(jmin);
         for (int k = 0; k < 4; k++) {
            c00[k] = vsel(down, c01[k], c00[k]);
            c10[k] = vsel(down, c11[k], c10[k]);
            c01[k] = vsel(down, (v8f)_mm256_permutevar8x32_ps((__m256)r.c[2][k], ix0), c01[k]);
            c11[k] = vsel(down, (v8f)_mm256_permutevar8x32_ps((__m256)r.c[2][k], ix1), c11[k]);
         }
      }
   } else if (span < 7 && jspan < 7 && (span + 2) * (jspan + 2) <= 16) {
      /* Block: the bw x (jspan + 2) texels from (imin, jmin), row by row,
       * texel n at column n % bw and row n / bw (wrapped), gathered and
       * decoded eight at a time. */
      const int32_t bw = (int32_t)span + 2;
      const bool two = bw * ((int32_t)jspan + 2) > 8;
      const float rbw = 1.0f / (float)bw;
      v8f u0[4], u1[4];
      for (int u = 0; u < (two ? 2 : 1); u++) {
         v8i n = (v8i) { 0, 1, 2, 3, 4, 5, 6, 7 } + 8 * u;
         /* n / bw exactly: (n + 1/2) / bw lies at least 1/16 from an
          * integer, far beyond the float product's error. */
         v8i r = vtoi((vtof(n) + 0.5f) * rbw);
         v8i c = n - r * bw;
         v8i off = ((jmin + r) & hm) * ad->row + ad->start + ((imin + c) & wm) * 4;
         srgb_decode_row((__m256i)FAST_GATHER(f->base, off), bgra, u ? u1 : u0);
      }
      v8i n00 = (j0 - jmin) * bw + (i0 - imin), n01 = n00 + bw;
      for (int k = 0; k < 4; k++) {
         c00[k] = srgb_pick(u0, u1, n00, two, k);
         c10[k] = srgb_pick(u0, u1, n00 + 1, two, k);
         c01[k] = srgb_pick(u0, u1, n01, two, k);
         c11[k] = srgb_pick(u0, u1, n01 + 1, two, k);
      }
   } else {
      level_avx2(f, a, l0, s, t, ad, vsplati(-1), bgra ? FF_BGRA8 : FF_RGBA8, true, true, out);
      return;
   }
   if (sr_sample_fast_test)
      sr_sample_fast_test->windows++;
   /* level()'s weights and sums, every lane linear. */
   v8f ai = uu - vffloor(uu), bj = vv - vffloor(vv);
   v8f wi0 = 1.0f - ai, wj0 = 1.0f - bj;
   v8f w00 = wi0 * wj0, w10 = ai * wj0, w01 = wi0 * bj, w11 = ai * bj;
   for (int k = 0; k < 4; k++) {
      v8f acc = w00 * c00[k];
      acc = acc + w10 * c10[k];
      acc = acc + w01 * c01[k];
      acc = acc + w11 * c11[k];
      out[k] = acc;
   }
}

/* Lanes l0 .. l0 + 7 of a call in the trilinear REPEAT state on an
 * unswizzled sRGB RGBA / BGRA view: chunk()'s steps with srgb_level(),
 * its level selection and addressing as fixed_chunk() does them. */
AVX2_FN void srgb_chunk(const struct fast *f, struct shale_sample_args *a, unsigned l0, bool bgra)
{
   struct sel_avx2 sel;
   /* The body's intrinsic forms of select(), address() and vany() for this
    * state (fixed_chunk()'s: the same bits). */
   fixed_select_avx2(f, a, l0, &sel);
   v8f s = vloadf(&a->coord[0][l0]), t = vloadf(&a->coord[1][l0]);
   v8f tau[4];
   struct addr_avx2 ad;
   fixed_address_avx2(f, sel.lvl0, &ad);
   srgb_level(f, a, l0, s, t, &ad, bgra, tau);
   if (fixed_any_avx2((__m256i)(sel.two & sel.on))) {
      v8f tau1[4];
      fixed_address_avx2(f, sel.lvl1, &ad);
      srgb_level(f, a, l0, s, t, &ad, bgra, tau1);
      v8f d0 = 1.0f - sel.delta;
      for (int k = 0; k < 4; k++)
         tau[k] = vsel(sel.two, d0 * tau[k] + sel.delta * tau1[k], tau[k]);
   }
   /* Alpha's code to [0, 1] as chunk() divides it (every lane linear). */
   tau[3] = tau[3] * (1.0f / 255.0f);
   store_sw_avx2(f, a, l0, &sel, tau, true);
}

/* The routines of the views above (see the note). */
AVX2_FN void srgb_run_tri(const struct shale_image_view_desc *view,
                          const struct shale_sampler_desc *sampler, struct shale_sample_args *args,
                          bool bgra)
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
   for (unsigned l0 = 0; l0 < SHALE_MAX_SIMD_WIDTH; l0 += VL)
      if ((args->lanes >> l0) & 0xffu)
         srgb_chunk(&f, args, l0, bgra);
}

__attribute__((target("avx2"))) static void
fast_srgba8_tri_avx2(const struct shale_image_view_desc *view,
                     const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   srgb_run_tri(view, sampler, args, false);
}

__attribute__((target("avx2"))) static void
fast_sbgra8_tri_avx2(const struct shale_image_view_desc *view,
                     const struct shale_sampler_desc *sampler, struct shale_sample_args *args)
{
   srgb_run_tri(view, sampler, args, true);
}
