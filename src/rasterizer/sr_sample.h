/*
 * sr_sample: texture sampling for compiled shaders, in plain C.
 *
 * Design note
 * -----------
 * Owns: sr_sample(), the generic shale_sample_fn (include/shale/shader_abi.h)
 * that image descriptor records point at. It implements the spec's "Image
 * Operations" for explicit-LOD sampling, fetches and gathers on W lanes:
 * coordinate systems (normalized and unnormalized), cube face selection and
 * seamless cube edges (corner texels are the average of their three
 * neighbours), scale factor and LOD from gradients, mipLodBias, minLod,
 * maxLod, nearest/linear filters and mipmap modes, anisotropic filtering
 * (maxAnisotropy above 1, at most 16: for GRAD sampling of 2D and 2D-array
 * views of float classes, the spec's eta = min(rho_max / rho_min, maxAniso)
 * gives lambda log2(rho_max / eta) and each level's result is the mean of
 * ceil(eta) isotropic samples along the footprint's major axis, as the
 * spec's Texel Anisotropic Filtering describes, and QueryLod reports that
 * lambda; other views and LOD sampling are isotropic), every address mode and
 * border colour, depth comparison with every compare op (filtered as a
 * weighted average of the pass/fail results), view swizzles and the view's
 * base level and layer. Texels are decoded by src/util/su_format (sRGB to
 * linear, SNORM, half floats, packed and shared-exponent formats, depth and
 * stencil aspects). Arithmetic is single-precision float on unquantized
 * weights, within the 8 sub-texel and mipmap bits the device reports.
 * Samplers with a Y'CbCr conversion (VK_KHR_sampler_ycbcr_conversion) read
 * the planes of a multi-planar view, or the one plane of a single-plane
 * UNORM or SFLOAT view (the RGB formats external-format conversions of
 * Android hardware buffers stand for: R8G8B8A8, R5G6B5, A2B10G10R10,
 * R16G16B16A16_SFLOAT): chroma reconstruction, implicit (luma filtered by
 * the sampler's filter, chroma by chromaFilter at its cosited or midpoint
 * sample locations; chroma is the R and B the conversion's swizzle
 * outputs) or explicit (chroma rebuilt at every luma texel, then the
 * converted texels filtered), the conversion's component swizzle, range
 * expansion (full or narrow; each of R, G, B with the bit depth n of the
 * component its swizzle picks, 16 for half floats) and model conversion
 * (RGB identity, Y'CbCr identity, BT.709, BT.601, BT.2020), unclamped. A
 * single-plane format is subsampled nowhere: reconstruction is the texel
 * itself and the chroma locations change nothing, chromaFilter still
 * filters R and B under implicit reconstruction. One level, clamp to edge,
 * explicit-LOD sampling only (fetches and gathers through a conversion
 * read zeros, as do conversions that do not fit the view).
 * This routine stays the reference: sr_sample_select() hands descriptor
 * records a specialised routine (sr_sample_fast.c) where one fits the view
 * and sampler, and sr_sample() everywhere else.
 *
 * Invariants: never reads outside the view's levels and layers whatever the
 * coordinates (NaN and infinities included); integer formats (and stencil)
 * are never interpolated: a linear filter on them acts as nearest.
 *
 * Threading: reentrant, no state; never allocates.
 */
#ifndef SR_SAMPLE_H
#define SR_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "shale/shader_abi.h"

/* The spec's Wrapping Operation of one coordinate: the texel coordinate,
 * or -1 for a border texel (the generic and the specialised routines). */
static inline int32_t
sr_sample_wrap(int32_t i, int32_t n, uint32_t mode)
{
   switch (mode) {
   case VK_SAMPLER_ADDRESS_MODE_REPEAT: {
      int32_t m = i % n;
      return m < 0 ? m + n : m;
   }
   case VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT: {
      int32_t m = i % (2 * n);
      if (m < 0)
         m += 2 * n;
      m -= n;
      int32_t mirror = m >= 0 ? m : -(1 + m);
      return (n - 1) - mirror;
   }
   case VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER:
      return i < 0 || i >= n ? -1 : i;
   case VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE: {
      int32_t mirror = i >= 0 ? i : -(1 + i);
      return mirror < n ? mirror : n - 1;
   }
   default:   /* CLAMP_TO_EDGE */
      return i < 0 ? 0 : i >= n ? n - 1 : i;
   }
}

void sr_sample(const struct shale_image_view_desc *view, const struct shale_sampler_desc *sampler,
               struct shale_sample_args *args);

/* The sampling routine for records of `view` sampled with `sampler`
 * (NULL where the sampler is not known when the record is written: sampled
 * images, whose sampler comes from another record). The fast routines
 * (sr_sample_fast.c) take 2D and 2D-array views of R8G8B8A8, B8G8R8A8,
 * A8B8G8R8_PACK32, R8 and R8G8 (UNORM and sRGB), R16G16B16A16_SFLOAT and
 * R32G32B32A32_SFLOAT, with normalized coordinates, NEAREST or LINEAR
 * filters and mipmap modes, no anisotropy (maxAnisotropy 1) and REPEAT,
 * MIRRORED_REPEAT or CLAMP_TO_EDGE addressing, for OpImageSample* with Lod, Grad or Bias (offsets too); each
 * checks the sampler and the operation of every call and hands anything
 * else to sr_sample(). Their results are sr_sample()'s: identical for
 * nearest filtering, within 1e-5 of the texels' range (unit/sample) for
 * linear, but for 8-bit UNORM RGBA / BGRA views sampled trilinearly with
 * REPEAT (power-of-two 2D views) on AVX2 CPUs: those are filtered in fixed
 * point, with weights snapped to the 8 sub-texel and mipmap bits the
 * device reports (within 3 * 2^-8 of the range, unit/sample). */
shale_sample_fn sr_sample_select(const struct shale_image_view_desc *view,
                                 const struct shale_sampler_desc *sampler);

/* Whether the portable build of the fast routines exists: clang refuses
 * 32-byte vectors in x86 code without AVX, so its x86 builds have only the
 * AVX2 one (CPUs without AVX2 get sr_sample). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__) && !defined(__AVX__)
#define SR_SAMPLE_FAST_PORTABLE 0
#else
#define SR_SAMPLE_FAST_PORTABLE 1
#endif

/* sr_sample_select() with the AVX2 build of the fast routines allowed
 * (where the CPU has AVX2) or not (the portable build): for tests. */
shale_sample_fn sr_sample_select_isa(const struct shale_image_view_desc *view,
                                     const struct shale_sampler_desc *sampler, bool avx2);

/* For tests only (single-threaded): while non-NULL, the fast routines read
 * it on every chunk of the AVX2 fixed-point path: gathers_only makes them
 * read every texel through gathers (never the contiguous row windows);
 * windows counts the levels read through a window; tri_calls the calls
 * taken by the routines chosen for trilinear-ready views (sr_sample_fast.c's
 * run_tri) in their compile-time state; no_shortcut makes them compute
 * lambda where it can only select level 0 alone (magnified chunks, one
 * level); level0_chunks counts the chunks that skipped it; no_avx512, set
 * while sr_sample_select_isa() chooses, picks the AVX2 routine for
 * trilinear-ready views where the AVX-512 one would be chosen; windows8
 * counts (in windows' units) the AVX-512 windows eight columns wide;
 * level_guesses and guess_misses count the AVX-512 calls that read levels
 * from a guess at the level and those that had to read them again. NULL
 * otherwise. */
struct sr_sample_fast_test {
   bool gathers_only;
   bool no_shortcut;
   bool no_avx512;
   uint64_t windows;
   uint64_t tri_calls;
   uint64_t level0_chunks;
   uint64_t near16_calls;   /* calls through AVX-512's near_chunk16 */
   uint64_t windows8;       /* of windows, those eight columns wide (window8) */
   uint64_t level_guesses;  /* AVX-512 calls read from fixed_guess16's level */
   uint64_t guess_misses;   /* of those, the calls read again (the guess missed) */
};
extern struct sr_sample_fast_test *sr_sample_fast_test;

/* Whether sr_sample decodes views of `format` (uncompressed colour formats
 * without 64-bit channels, and depth/stencil formats). */
bool sr_sample_format_supported(VkFormat format);

#endif
