/*
 * sr_resolve: multisample resolves as tile commands: the scene call that
 * bins a depth/stencil resolve (colour resolves are binned by
 * sr_scene_resolve in sr_raster.c) and the back end's run of a RESOLVE
 * command on a tile's pixels. Workload: once per attachment at the end of
 * a subpass or rendering instance, every pixel of the render area.
 */
#include "sr_fragment.h"
#include "sr_transfer.h"

#include <string.h>

VkResult sr_scene_resolve_depth_stencil(struct sr_scene *scene, const struct sr_surface *dst,
                                        VkResolveModeFlagBits depth_mode,
                                        VkResolveModeFlagBits stencil_mode)
{
   if (depth_mode == VK_RESOLVE_MODE_NONE && stencil_mode == VK_RESOLVE_MODE_NONE)
      return VK_SUCCESS;
   struct sr_resolve_cmd *c = sr_arena_alloc(&scene->arena, sizeof(*c));
   if (!c)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   memset(c, 0, sizeof(*c));
   c->attachment = SR_ATTACHMENT_DEPTH_STENCIL;
   c->dst = *dst;
   c->rect = scene->render_area;
   c->layer_count = scene->layer_count;
   c->depth_mode = depth_mode;
   c->stencil_mode = stencil_mode;
   const VkRect2D *ra = &scene->render_area;
   if (!ra->extent.width || !ra->extent.height)
      return VK_SUCCESS;
   struct sr_cmd cmd = {.kind = SR_CMD_RESOLVE, .resolve = c};
   for (uint32_t l = 0; l < scene->layer_count; l++) {
      if (!sr_scene_resolves_layer(scene, l))
         continue;
      VkResult res = sr_bin_box(scene, l, ra->offset.x, ra->offset.y,
                                ra->offset.x + (int32_t)ra->extent.width - 1,
                                ra->offset.y + (int32_t)ra->extent.height - 1, cmd);
      if (res != VK_SUCCESS)
         return res;
   }
   return VK_SUCCESS;
}

/* 8-bit UNORM and sRGB formats with a byte per channel (sr_pack_kind),
 * source and destination alike: each byte averaged on its own, with
 * su_unpack_float's values, the same float sum in sample order and
 * su_pack_float's rounding (sr_unorm8, sr_srgb8_encode), so the bytes are
 * those of the generic loop below. `size` and `samples` are constants in
 * the common instances (RGBA8 at 4 samples), which the compiler unrolls
 * and vectorizes. */
static inline void resolve_row8(const uint8_t *restrict s, uint8_t *restrict d, int32_t n,
                                unsigned size, uint32_t samples, uint8_t srgb_mask)
{
   const float inv = (float)samples;
   for (int32_t x = 0; x < n; x++, s += size * samples, d += size) {
      for (unsigned i = 0; i < size; i++) {
         float sum = 0.0f;
         if (srgb_mask & (1u << i)) {
            for (uint32_t k = 0; k < samples; k++)
               sum += sr_srgb8_decode(s[k * size + i]);
            d[i] = sr_srgb8_encode(sum / inv);
         } else {
            for (uint32_t k = 0; k < samples; k++)
               sum += (float)s[k * size + i] / 255.0f;
            /* sr_unorm8 without its NaN and range branches: the average
             * of values in [0, 1] is in [0, 1], where they change nothing
             * (1.0 gives 255 either way). Branch-free, so it vectorizes. */
            d[i] = (uint8_t)(int)((double)(sum / inv) * 255.0 + 0.5);
         }
      }
   }
}

/* resolve_row8 for 4-byte UNORM texels at 4 samples (RGBA8 / BGRA8, the
 * common MSAA target) in GCC/Clang vector types: the same operations per
 * byte (a float per sample byte, divided by 255, summed in sample order,
 * divided by 4, rounded through double), four bytes at once. */
typedef uint8_t sr_v4u8 __attribute__((vector_size(4)));
typedef int32_t sr_v4i __attribute__((vector_size(16)));
typedef float sr_v4f __attribute__((vector_size(16)));
typedef double sr_v4d __attribute__((vector_size(32)));

/* b / 255.0f for every byte b, as the division rounds it (IEEE: the
 * nearest float), so a look-up gives the same bits as the division. */
static const float unorm8_to_float[256] = {
   0x0p+0f, 0x1.010102p-8f, 0x1.010102p-7f, 0x1.818182p-7f,
   0x1.010102p-6f, 0x1.414142p-6f, 0x1.818182p-6f, 0x1.c1c1c2p-6f,
   0x1.010102p-5f, 0x1.212122p-5f, 0x1.414142p-5f, 0x1.616162p-5f,
   0x1.818182p-5f, 0x1.a1a1a2p-5f, 0x1.c1c1c2p-5f, 0x1.e1e1e2p-5f,
   0x1.010102p-4f, 0x1.111112p-4f, 0x1.212122p-4f, 0x1.313132p-4f,
   0x1.414142p-4f, 0x1.515152p-4f, 0x1.616162p-4f, 0x1.717172p-4f,
   0x1.818182p-4f, 0x1.919192p-4f, 0x1.a1a1a2p-4f, 0x1.b1b1b2p-4f,
   0x1.c1c1c2p-4f, 0x1.d1d1d2p-4f, 0x1.e1e1e2p-4f, 0x1.f1f1f2p-4f,
   0x1.010102p-3f, 0x1.09090ap-3f, 0x1.111112p-3f, 0x1.19191ap-3f,
   0x1.212122p-3f, 0x1.29292ap-3f, 0x1.313132p-3f, 0x1.39393ap-3f,
   0x1.414142p-3f, 0x1.49494ap-3f, 0x1.515152p-3f, 0x1.59595ap-3f,
   0x1.616162p-3f, 0x1.69696ap-3f, 0x1.717172p-3f, 0x1.79797ap-3f,
   0x1.818182p-3f, 0x1.89898ap-3f, 0x1.919192p-3f, 0x1.99999ap-3f,
   0x1.a1a1a2p-3f, 0x1.a9a9aap-3f, 0x1.b1b1b2p-3f, 0x1.b9b9bap-3f,
   0x1.c1c1c2p-3f, 0x1.c9c9cap-3f, 0x1.d1d1d2p-3f, 0x1.d9d9dap-3f,
   0x1.e1e1e2p-3f, 0x1.e9e9eap-3f, 0x1.f1f1f2p-3f, 0x1.f9f9fap-3f,
   0x1.010102p-2f, 0x1.050506p-2f, 0x1.09090ap-2f, 0x1.0d0d0ep-2f,
   0x1.111112p-2f, 0x1.151516p-2f, 0x1.19191ap-2f, 0x1.1d1d1ep-2f,
   0x1.212122p-2f, 0x1.252526p-2f, 0x1.29292ap-2f, 0x1.2d2d2ep-2f,
   0x1.313132p-2f, 0x1.353536p-2f, 0x1.39393ap-2f, 0x1.3d3d3ep-2f,
   0x1.414142p-2f, 0x1.454546p-2f, 0x1.49494ap-2f, 0x1.4d4d4ep-2f,
   0x1.515152p-2f, 0x1.555556p-2f, 0x1.59595ap-2f, 0x1.5d5d5ep-2f,
   0x1.616162p-2f, 0x1.656566p-2f, 0x1.69696ap-2f, 0x1.6d6d6ep-2f,
   0x1.717172p-2f, 0x1.757576p-2f, 0x1.79797ap-2f, 0x1.7d7d7ep-2f,
   0x1.818182p-2f, 0x1.858586p-2f, 0x1.89898ap-2f, 0x1.8d8d8ep-2f,
   0x1.919192p-2f, 0x1.959596p-2f, 0x1.99999ap-2f, 0x1.9d9d9ep-2f,
   0x1.a1a1a2p-2f, 0x1.a5a5a6p-2f, 0x1.a9a9aap-2f, 0x1.adadaep-2f,
   0x1.b1b1b2p-2f, 0x1.b5b5b6p-2f, 0x1.b9b9bap-2f, 0x1.bdbdbep-2f,
   0x1.c1c1c2p-2f, 0x1.c5c5c6p-2f, 0x1.c9c9cap-2f, 0x1.cdcdcep-2f,
   0x1.d1d1d2p-2f, 0x1.d5d5d6p-2f, 0x1.d9d9dap-2f, 0x1.dddddep-2f,
   0x1.e1e1e2p-2f, 0x1.e5e5e6p-2f, 0x1.e9e9eap-2f, 0x1.ededeep-2f,
   0x1.f1f1f2p-2f, 0x1.f5f5f6p-2f, 0x1.f9f9fap-2f, 0x1.fdfdfep-2f,
   0x1.010102p-1f, 0x1.030304p-1f, 0x1.050506p-1f, 0x1.070708p-1f,
   0x1.09090ap-1f, 0x1.0b0b0cp-1f, 0x1.0d0d0ep-1f, 0x1.0f0f1p-1f,
   0x1.111112p-1f, 0x1.131314p-1f, 0x1.151516p-1f, 0x1.171718p-1f,
   0x1.19191ap-1f, 0x1.1b1b1cp-1f, 0x1.1d1d1ep-1f, 0x1.1f1f2p-1f,
   0x1.212122p-1f, 0x1.232324p-1f, 0x1.252526p-1f, 0x1.272728p-1f,
   0x1.29292ap-1f, 0x1.2b2b2cp-1f, 0x1.2d2d2ep-1f, 0x1.2f2f3p-1f,
   0x1.313132p-1f, 0x1.333334p-1f, 0x1.353536p-1f, 0x1.373738p-1f,
   0x1.39393ap-1f, 0x1.3b3b3cp-1f, 0x1.3d3d3ep-1f, 0x1.3f3f4p-1f,
   0x1.414142p-1f, 0x1.434344p-1f, 0x1.454546p-1f, 0x1.474748p-1f,
   0x1.49494ap-1f, 0x1.4b4b4cp-1f, 0x1.4d4d4ep-1f, 0x1.4f4f5p-1f,
   0x1.515152p-1f, 0x1.535354p-1f, 0x1.555556p-1f, 0x1.575758p-1f,
   0x1.59595ap-1f, 0x1.5b5b5cp-1f, 0x1.5d5d5ep-1f, 0x1.5f5f6p-1f,
   0x1.616162p-1f, 0x1.636364p-1f, 0x1.656566p-1f, 0x1.676768p-1f,
   0x1.69696ap-1f, 0x1.6b6b6cp-1f, 0x1.6d6d6ep-1f, 0x1.6f6f7p-1f,
   0x1.717172p-1f, 0x1.737374p-1f, 0x1.757576p-1f, 0x1.777778p-1f,
   0x1.79797ap-1f, 0x1.7b7b7cp-1f, 0x1.7d7d7ep-1f, 0x1.7f7f8p-1f,
   0x1.818182p-1f, 0x1.838384p-1f, 0x1.858586p-1f, 0x1.878788p-1f,
   0x1.89898ap-1f, 0x1.8b8b8cp-1f, 0x1.8d8d8ep-1f, 0x1.8f8f9p-1f,
   0x1.919192p-1f, 0x1.939394p-1f, 0x1.959596p-1f, 0x1.979798p-1f,
   0x1.99999ap-1f, 0x1.9b9b9cp-1f, 0x1.9d9d9ep-1f, 0x1.9f9fap-1f,
   0x1.a1a1a2p-1f, 0x1.a3a3a4p-1f, 0x1.a5a5a6p-1f, 0x1.a7a7a8p-1f,
   0x1.a9a9aap-1f, 0x1.ababacp-1f, 0x1.adadaep-1f, 0x1.afafbp-1f,
   0x1.b1b1b2p-1f, 0x1.b3b3b4p-1f, 0x1.b5b5b6p-1f, 0x1.b7b7b8p-1f,
   0x1.b9b9bap-1f, 0x1.bbbbbcp-1f, 0x1.bdbdbep-1f, 0x1.bfbfcp-1f,
   0x1.c1c1c2p-1f, 0x1.c3c3c4p-1f, 0x1.c5c5c6p-1f, 0x1.c7c7c8p-1f,
   0x1.c9c9cap-1f, 0x1.cbcbccp-1f, 0x1.cdcdcep-1f, 0x1.cfcfdp-1f,
   0x1.d1d1d2p-1f, 0x1.d3d3d4p-1f, 0x1.d5d5d6p-1f, 0x1.d7d7d8p-1f,
   0x1.d9d9dap-1f, 0x1.dbdbdcp-1f, 0x1.dddddep-1f, 0x1.dfdfep-1f,
   0x1.e1e1e2p-1f, 0x1.e3e3e4p-1f, 0x1.e5e5e6p-1f, 0x1.e7e7e8p-1f,
   0x1.e9e9eap-1f, 0x1.ebebecp-1f, 0x1.ededeep-1f, 0x1.efeffp-1f,
   0x1.f1f1f2p-1f, 0x1.f3f3f4p-1f, 0x1.f5f5f6p-1f, 0x1.f7f7f8p-1f,
   0x1.f9f9fap-1f, 0x1.fbfbfcp-1f, 0x1.fdfdfep-1f, 0x1p+0f,
};

static void resolve_row_unorm8x4(const uint8_t *restrict s, uint8_t *restrict d, int32_t n)
{
   const sr_v4f k4 = {4.0f, 4.0f, 4.0f, 4.0f};
   const sr_v4d d255 = {255.0, 255.0, 255.0, 255.0}, half = {0.5, 0.5, 0.5, 0.5};
   for (int32_t x = 0; x < n; x++, s += 16, d += 4) {
      sr_v4f sum = {0.0f, 0.0f, 0.0f, 0.0f};
      for (int k = 0; k < 4; k++) {
         const uint8_t *b = s + 4 * k;
         const sr_v4f q = {unorm8_to_float[b[0]], unorm8_to_float[b[1]], unorm8_to_float[b[2]],
                           unorm8_to_float[b[3]]};
         sum += q;
      }
      sr_v4d v = __builtin_convertvector(sum / k4, sr_v4d) * d255 + half;
      sr_v4u8 r = __builtin_convertvector(__builtin_convertvector(v, sr_v4i), sr_v4u8);
      memcpy(d, &r, 4);
   }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SR_RESOLVE_AVX2 1

/* resolve_row_unorm8x4 with AVX2, two pixels (eight bytes out) an
 * iteration, the same IEEE operations in the same order on every byte: a
 * sample byte b becomes b / 255.0f (vdivps rounds the quotient as the
 * scalar division that made unorm8_to_float does), the four samples' floats
 * are summed in sample order, multiplied by 0.25f (exact, as the division
 * by 4), widened to double, multiplied by 255.0 and then 0.5 added (two
 * roundings, no FMA: the target enables none) and truncated. A last odd
 * pixel takes the scalar row.
 * With FMA (SR_RESOLVE_FMA) the quotient b / 255.0f comes from no division:
 * q0 = b * (1 / 255.0f), r = b - q0 * 255 (exact in one FMA), q = q0 + r *
 * (1 / 255.0f); for every byte b this q is the correctly rounded quotient
 * (checked for all 256 bytes against the division when written; unit
 * test_resolve resolves every byte value in every sample and channel and
 * compares with the division's bytes), so the same bits as vdivps at a
 * fraction of its cost (three FMA-unit operations against one vdivps of
 * about 3.5 cycles' throughput a 256-bit vector on Zen 3). GCC would otherwise
 * contract the double multiply and add that follow into an FMA (one
 * rounding instead of two): fp-contract is off for the function.
 * A pair of pixels whose samples are each four equal texels (most pixels
 * of a frame: the inside of primitives, cleared background) skips the
 * arithmetic: for such a pixel its texel's bytes are the result. For a
 * byte b, q = b / 255.0f rounded, the float sum q + q + q + q is 4q times
 * (1 + e) with |e| < 2^-22 (q + q is exact, two roundings after it), so
 * the double 255 * sum / 4 + 0.5 lies within b + 0.5 +- 10^-4 and
 * truncates to b (unit test_resolve checks every byte value).
 * stream (a RESOLVE after the tile's last PRIM: nothing in the tile reads
 * the destination again): pairs of pixels go out as 8-byte non-temporal
 * stores (movnti; the row's write-combining fills whole lines), no read
 * for ownership of the destination; resolve_color8 fences after the rows.
 * Not stream (ordinary stores): a RESOLVE with a PRIM after it in its
 * tile, which the driver never records (its resolves come right before a
 * flush or the scene's end: subpass end, vkCmdEndRendering,
 * vkCmdResolveImage), only the rasterizer's own callers can;
 * unit/raster test_resolve_before_prim runs those stores (the AVX-512
 * rows and, for the last pixels of a row, the FMA ones; the AVX2 rows
 * only on a CPU without FMA). unit/fragment test_resolve_rows runs the
 * streaming FMA, AVX2 and scalar rows on a CPU with AVX-512 too, holding
 * the others back through sr_resolve_test_rows. */
#define SR_RESOLVE_BODY                                                                    \
   /* Per 128-bit lane (one pixel's 16 bytes): sample k's four bytes to                    \
    * the lane's four dwords. */                                                           \
   const __m256i sel0 = SR_SAMPLE_BYTES(0), sel1 = SR_SAMPLE_BYTES(1);                     \
   const __m256i sel2 = SR_SAMPLE_BYTES(2), sel3 = SR_SAMPLE_BYTES(3);                     \
   const __m256 f255 = _mm256_set1_ps(255.0f), quarter = _mm256_set1_ps(0.25f);            \
   const __m256 inv255 = _mm256_set1_ps(1.0f / 255.0f);                                    \
   const __m256d d255 = _mm256_set1_pd(255.0), half = _mm256_set1_pd(0.5);                 \
   (void)inv255; /* the division's body does without */                                  \
   /* The first dword of each pixel's 16 bytes, for pixels whose samples                 \
    * are equal. */                                                                        \
   const __m256i firsts = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);                       \
   int32_t x = 0;                                                                          \
   for (; x + 2 <= n; x += 2, s += 32, d += 8) {                                           \
      const __m256i v = _mm256_loadu_si256((const __m256i *)s);                            \
      /* Both pixels' four samples equal (the interior of primitives, the                  \
       * clear): their bytes are the result (see above), no arithmetic. */                 \
      if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(v, _mm256_shuffle_epi32(v, 0))) == -1) { \
         const __m128i px2 =                                                               \
            _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, firsts));                \
         if (stream)                                                                       \
            _mm_stream_si64((long long *)d, _mm_cvtsi128_si64(px2));                       \
         else                                                                              \
            _mm_storel_epi64((__m128i *)d, px2);                                           \
         continue;                                                                         \
      }                                                                                    \
      __m256 sum = SR_UNORM8_F(_mm256_cvtepi32_ps(_mm256_shuffle_epi8(v, sel0)));          \
      sum = _mm256_add_ps(sum, SR_UNORM8_F(_mm256_cvtepi32_ps(_mm256_shuffle_epi8(v, sel1)))); \
      sum = _mm256_add_ps(sum, SR_UNORM8_F(_mm256_cvtepi32_ps(_mm256_shuffle_epi8(v, sel2)))); \
      sum = _mm256_add_ps(sum, SR_UNORM8_F(_mm256_cvtepi32_ps(_mm256_shuffle_epi8(v, sel3)))); \
      const __m256 avg = _mm256_mul_ps(sum, quarter);                                      \
      const __m256d lo =                                                                   \
         _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(avg)), d255), half); \
      const __m256d hi =                                                                   \
         _mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(avg, 1)), d255), half); \
      const __m128i i32lo = _mm256_cvttpd_epi32(lo), i32hi = _mm256_cvttpd_epi32(hi);      \
      const __m128i i16 = _mm_packs_epi32(i32lo, i32hi);                                   \
      const __m128i px2 = _mm_packus_epi16(i16, i16);                                      \
      if (stream)                                                                          \
         _mm_stream_si64((long long *)d, _mm_cvtsi128_si64(px2));                          \
      else                                                                                 \
         _mm_storel_epi64((__m128i *)d, px2);                                              \
   }                                                                                       \
   if (x < n)                                                                              \
      resolve_row_unorm8x4(s, d, n - x);

#define SR_SAMPLE_BYTES(k)                                                              \
   _mm256_setr_epi8(4 * k, -1, -1, -1, 4 * k + 1, -1, -1, -1, 4 * k + 2, -1, -1, -1,     \
                    4 * k + 3, -1, -1, -1, 4 * k, -1, -1, -1, 4 * k + 1, -1, -1, -1,       \
                    4 * k + 2, -1, -1, -1, 4 * k + 3, -1, -1, -1)

__attribute__((target("avx2"))) static void
resolve_row_unorm8x4_avx2(const uint8_t *restrict s, uint8_t *restrict d, int32_t n, bool stream)
{
#define SR_UNORM8_F(b) _mm256_div_ps(b, f255)
   SR_RESOLVE_BODY
#undef SR_UNORM8_F
}

#if defined(__GNUC__) && !defined(__clang__)
#define SR_RESOLVE_FMA 1
/* b / 255.0f for byte values b (floats 0 .. 255), without a division. */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
unorm8_quotient_fma(__m256 b, __m256 inv255, __m256 f255)
{
   const __m256 q0 = _mm256_mul_ps(b, inv255);
   const __m256 r = _mm256_fnmadd_ps(q0, f255, b);
   return _mm256_fmadd_ps(r, inv255, q0);
}

__attribute__((target("avx2,fma"), optimize("fp-contract=off"))) static void
resolve_row_unorm8x4_fma(const uint8_t *restrict s, uint8_t *restrict d, int32_t n, bool stream)
{
#define SR_UNORM8_F(b) unorm8_quotient_fma(b, inv255, f255)
   SR_RESOLVE_BODY
#undef SR_UNORM8_F
}

#define SR_RESOLVE_AVX512 1
#define SR_SAMPLE_BYTES4(k)                                                               \
   _mm512_broadcast_i32x4(_mm_setr_epi8(4 * k, -1, -1, -1, 4 * k + 1, -1, -1, -1, 4 * k + 2, \
                                        -1, -1, -1, 4 * k + 3, -1, -1, -1))

/* resolve_row_unorm8x4_fma with AVX-512 (F and BW), four pixels (one
 * 64-byte load) an iteration: the same IEEE operations in the same order
 * on every byte (the quotient's three FMA-unit operations, the sum in
 * sample order, * 0.25f, to double, * 255.0, + 0.5, truncated), so the
 * same bytes; four pixels of equal samples are copied, as the AVX2 rows
 * copy two. The results lie in [0, 255] (the average of values in [0, 1]),
 * so the saturating narrowing gives the AVX2 rows' packed bytes. The last
 * pixels (fewer than four) take the AVX2 rows. */
__attribute__((target("avx2,fma,avx512f,avx512bw"), optimize("fp-contract=off"))) static void
resolve_row_unorm8x4_avx512(const uint8_t *restrict s, uint8_t *restrict d, int32_t n,
                            bool stream)
{
   const __m512i sel0 = SR_SAMPLE_BYTES4(0), sel1 = SR_SAMPLE_BYTES4(1);
   const __m512i sel2 = SR_SAMPLE_BYTES4(2), sel3 = SR_SAMPLE_BYTES4(3);
   const __m512i firsts = _mm512_setr_epi32(0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12);
   const __m512 f255 = _mm512_set1_ps(255.0f), quarter = _mm512_set1_ps(0.25f);
   const __m512 inv255 = _mm512_set1_ps(1.0f / 255.0f);
   const __m512d d255 = _mm512_set1_pd(255.0), half = _mm512_set1_pd(0.5);
#define SR_Q(b) _mm512_fmadd_ps(_mm512_fnmadd_ps(_mm512_mul_ps(b, inv255), f255, b), inv255, \
                                _mm512_mul_ps(b, inv255))
#define SR_F(k) _mm512_cvtepi32_ps(_mm512_shuffle_epi8(v, sel##k))
   int32_t x = 0;
   for (; x + 4 <= n; x += 4, s += 64, d += 16) {
      const __m512i v = _mm512_loadu_si512(s);
      __m128i px4;
      if (_mm512_cmpeq_epi32_mask(v, _mm512_shuffle_epi32(v, 0)) == 0xffff) {
         px4 = _mm512_castsi512_si128(_mm512_permutexvar_epi32(firsts, v));
      } else {
         __m512 sum = SR_Q(SR_F(0));
         sum = _mm512_add_ps(sum, SR_Q(SR_F(1)));
         sum = _mm512_add_ps(sum, SR_Q(SR_F(2)));
         sum = _mm512_add_ps(sum, SR_Q(SR_F(3)));
         const __m512 avg = _mm512_mul_ps(sum, quarter);
         const __m512d lo = _mm512_add_pd(
            _mm512_mul_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(avg)), d255), half);
         const __m512d hi = _mm512_add_pd(
            _mm512_mul_pd(_mm512_cvtps_pd(_mm256_castpd_ps(
                             _mm512_extractf64x4_pd(_mm512_castps_pd(avg), 1))),
                          d255),
            half);
         const __m512i i32 = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvttpd_epi32(lo)),
                                                _mm512_cvttpd_epi32(hi), 1);
         px4 = _mm512_cvtusepi32_epi8(i32);
      }
      if (stream) {
         _mm_stream_si64((long long *)d, _mm_cvtsi128_si64(px4));
         _mm_stream_si64((long long *)(d + 8), _mm_extract_epi64(px4, 1));
      } else {
         _mm_storeu_si128((__m128i *)d, px4);
      }
   }
#undef SR_Q
#undef SR_F
   if (x < n)
      resolve_row_unorm8x4_fma(s, d, n - x, stream);
}
#undef SR_SAMPLE_BYTES4
#else
#define SR_RESOLVE_FMA 0
#endif
#ifndef SR_RESOLVE_AVX512
#define SR_RESOLVE_AVX512 0
#endif
#undef SR_SAMPLE_BYTES
#undef SR_RESOLVE_BODY
#else
#define SR_RESOLVE_AVX2 0
#endif

enum sr_resolve_rows sr_resolve_test_rows;   /* tests only (sr_scene.h) */

static bool resolve_color8(const struct sr_surface *src, const struct sr_surface *dst,
                           uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                           bool stream)
{
   uint8_t byte_of[4];
   uint8_t kind = sr_pack_kind(src->format, byte_of);
   if ((kind != SR_PACK_UNORM8 && kind != SR_PACK_SRGB8) || src->format != dst->format ||
       src->samples < 2)
      return false;
   uint8_t srgb_mask = 0;   /* bit i: byte i is an sRGB colour channel */
   for (int c = 0; c < 3 && kind == SR_PACK_SRGB8; c++)
      if (byte_of[c] != 0xff)
         srgb_mask |= (uint8_t)(1u << byte_of[c]);
   unsigned size = src->format->block_size;
   int32_t n = x1 - x0 + 1;
   const enum sr_resolve_rows rows = sr_resolve_test_rows;
#if SR_RESOLVE_AVX2
   const bool avx2 = __builtin_cpu_supports("avx2") && rows < SR_RESOLVE_ROWS_NO_AVX2;
#else
   const bool avx2 = false;
#endif
#if SR_RESOLVE_FMA
   const bool fma = avx2 && __builtin_cpu_supports("fma") && rows < SR_RESOLVE_ROWS_NO_FMA;
#endif
#if SR_RESOLVE_AVX512
   const bool avx512 = fma && __builtin_cpu_supports("avx512f") &&
                       __builtin_cpu_supports("avx512bw") && rows < SR_RESOLVE_ROWS_NO_AVX512;
#endif
   (void)rows;
   for (int32_t y = y0; y <= y1; y++) {
      const uint8_t *s = sr_surface_texel(src, layer, x0, y, 0);
      uint8_t *d = sr_surface_texel(dst, layer, x0, y, 0);
#if SR_RESOLVE_AVX512
      if (size == 4 && src->samples == 4 && !srgb_mask && avx512)
         resolve_row_unorm8x4_avx512(s, d, n, stream);
      else
#endif
#if SR_RESOLVE_FMA
      if (size == 4 && src->samples == 4 && !srgb_mask && fma)
         resolve_row_unorm8x4_fma(s, d, n, stream);
      else
#endif
      if (size == 4 && src->samples == 4 && !srgb_mask && avx2)
         resolve_row_unorm8x4_avx2(s, d, n, stream);
      else if (size == 4 && src->samples == 4 && !srgb_mask)
         resolve_row_unorm8x4(s, d, n);
      else if (size == 4 && src->samples == 4)
         resolve_row8(s, d, n, 4, 4, srgb_mask);
      else
         resolve_row8(s, d, n, size, src->samples, srgb_mask);
   }
#if SR_RESOLVE_AVX2
   if (stream && avx2 && size == 4 && src->samples == 4 && !srgb_mask)
      _mm_sfence();   /* the rows' non-temporal stores */
#endif
   return true;
}

/* Colour: the average of the samples for float and normalized formats (sRGB
 * averaged in linear), sample 0 for integer formats. */
static void resolve_color(const struct sr_surface *src, const struct sr_surface *dst,
                          uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                          bool stream)
{
   bool average = src->samples > 1 && su_format_class(src->format) == SU_CLASS_FLOAT;
   if (average && resolve_color8(src, dst, layer, x0, y0, x1, y1, stream))
      return;
   unsigned size = dst->format->block_size;
   for (int32_t y = y0; y <= y1; y++) {
      for (int32_t x = x0; x <= x1; x++) {
         uint8_t *d = sr_surface_texel(dst, layer, x, y, 0);
         if (!average) {
            memcpy(d, sr_surface_texel(src, layer, x, y, 0), size);
            continue;
         }
         float sum[4] = {0, 0, 0, 0};
         for (uint32_t s = 0; s < src->samples; s++) {
            float v[4];
            su_unpack_float(src->format, sr_surface_texel(src, layer, x, y, s), v);
            for (int c = 0; c < 4; c++)
               sum[c] += v[c];
         }
         for (int c = 0; c < 4; c++)
            sum[c] /= (float)src->samples;
         su_pack_float(dst->format, sum, d);
      }
   }
}

/* Depth: sample 0, the minimum or maximum sample (their bits copied when
 * both formats store depth alike), or the average. */
static void resolve_depth(const struct sr_surface *src, const struct sr_surface *dst,
                          VkResolveModeFlagBits mode, uint32_t layer, int32_t x0, int32_t y0,
                          int32_t x1, int32_t y1)
{
   const struct su_format_desc *sf = src->format, *df = dst->format;
   unsigned bits = su_format_depth_bits(sf);
   bool same = bits == su_format_depth_bits(df);
   unsigned bytes = bits == 16 ? 2 : bits == 24 ? 3 : 4;
   for (int32_t y = y0; y <= y1; y++) {
      for (int32_t x = x0; x <= x1; x++) {
         uint8_t *d = sr_surface_texel(dst, layer, x, y, 0);
         if (mode == VK_RESOLVE_MODE_AVERAGE_BIT) {
            double sum = 0;
            for (uint32_t s = 0; s < src->samples; s++)
               sum += su_unpack_depth(sf, sr_surface_texel(src, layer, x, y, s));
            su_pack_depth(df, (float)(sum / src->samples), d);
            continue;
         }
         const uint8_t *pick = sr_surface_texel(src, layer, x, y, 0);
         if (mode == VK_RESOLVE_MODE_MIN_BIT || mode == VK_RESOLVE_MODE_MAX_BIT) {
            double best = sr_depth_key(sf, pick);
            for (uint32_t s = 1; s < src->samples; s++) {
               const uint8_t *t = sr_surface_texel(src, layer, x, y, s);
               double k = sr_depth_key(sf, t);
               if (mode == VK_RESOLVE_MODE_MIN_BIT ? k < best : k > best) {
                  best = k;
                  pick = t;
               }
            }
         }
         if (same)
            memcpy(d + df->depth_offset, pick + sf->depth_offset, bytes);
         else
            su_pack_depth(df, su_unpack_depth(sf, pick), d);
      }
   }
}

static void resolve_stencil(const struct sr_surface *src, const struct sr_surface *dst,
                            VkResolveModeFlagBits mode, uint32_t layer, int32_t x0, int32_t y0,
                            int32_t x1, int32_t y1)
{
   for (int32_t y = y0; y <= y1; y++) {
      for (int32_t x = x0; x <= x1; x++) {
         uint8_t v = su_unpack_stencil(src->format, sr_surface_texel(src, layer, x, y, 0));
         for (uint32_t s = 1; s < src->samples && mode != VK_RESOLVE_MODE_SAMPLE_ZERO_BIT; s++) {
            uint8_t w = su_unpack_stencil(src->format, sr_surface_texel(src, layer, x, y, s));
            v = mode == VK_RESOLVE_MODE_MIN_BIT ? (w < v ? w : v) : (w > v ? w : v);
         }
         su_pack_stencil(dst->format, v, sr_surface_texel(dst, layer, x, y, 0));
      }
   }
}

/* A colour resolve of pixels whose samples all hold the clear's texel:
 * resolve_color on one such pixel (a 1x1 copy), then that result in every
 * destination pixel of the box. */
static void resolve_cleared(const struct sr_surface *src, const struct sr_surface *dst,
                            const struct sr_clear_cmd *c, uint32_t layer, int32_t x0, int32_t y0,
                            int32_t x1, int32_t y1, bool stream)
{
   uint8_t texel[SR_CLEAR_TEXEL_MAX], samples[SR_CLEAR_TEXEL_MAX * SR_RESOLVE_CLEARED_MAX_SAMPLES], out[SR_CLEAR_TEXEL_MAX];
   const uint32_t bs = src->format->block_size;
   sr_clear_color_texel(src->format, &c->value.color, texel);
   for (uint32_t s = 0; s < src->samples; s++)
      memcpy(samples + s * bs, texel, bs);
   struct sr_surface one_src = *src, one_dst = *dst;
   one_src.base = samples;
   one_src.width = one_src.height = one_src.layers = 1;
   one_src.row_pitch = one_src.layer_pitch = (uint64_t)bs * src->samples;
   one_dst.base = out;
   one_dst.width = one_dst.height = one_dst.layers = 1;
   one_dst.row_pitch = one_dst.layer_pitch = dst->format->block_size;
   resolve_color(&one_src, &one_dst, 0, 0, 0, 0, 0, false);
   const struct sr_image_level l = {
      .base = dst->base,
      .format = dst->format,
      .width = dst->width,
      .height = dst->height,
      .depth = 1,
      .layers = dst->layers,
      .row_pitch = dst->row_pitch,
      .depth_pitch = dst->layer_pitch,
      .layer_pitch = dst->layer_pitch,
   };
   const struct sr_box box = {x0, y0, 0, (uint32_t)(x1 - x0 + 1), (uint32_t)(y1 - y0 + 1), 1};
   sr_fill_texel_box(&l, layer, 1, &box, out, stream);
}

void sr_resolve_run(const struct sr_framebuffer *fb, const struct sr_resolve_cmd *r,
                    uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                    const struct sr_clear_cmd *cleared, bool stream)
{
   const struct sr_surface *dst = &r->dst;
   if (layer >= r->layer_count || !dst->base)
      return;
   /* The rect inside the tile and the destination. */
   int32_t rx1 = r->rect.offset.x + (int32_t)r->rect.extent.width - 1;
   int32_t ry1 = r->rect.offset.y + (int32_t)r->rect.extent.height - 1;
   x0 = x0 > r->rect.offset.x ? x0 : r->rect.offset.x;
   y0 = y0 > r->rect.offset.y ? y0 : r->rect.offset.y;
   x1 = x1 < rx1 ? x1 : rx1;
   y1 = y1 < ry1 ? y1 : ry1;
   x1 = x1 < (int32_t)dst->width - 1 ? x1 : (int32_t)dst->width - 1;
   y1 = y1 < (int32_t)dst->height - 1 ? y1 : (int32_t)dst->height - 1;
   if (x0 > x1 || y0 > y1)
      return;

   if (r->attachment != SR_ATTACHMENT_DEPTH_STENCIL) {
      if (r->attachment < fb->color_count && fb->color[r->attachment].base) {
         if (cleared && fb->color[r->attachment].samples <= SR_RESOLVE_CLEARED_MAX_SAMPLES)
            resolve_cleared(&fb->color[r->attachment], dst, cleared, layer, x0, y0, x1, y1,
                            stream);
         else
            resolve_color(&fb->color[r->attachment], dst, layer, x0, y0, x1, y1, stream);
      }
      return;
   }
   if (r->depth_mode != VK_RESOLVE_MODE_NONE && fb->depth.base &&
       su_format_depth_bits(fb->depth.format) && su_format_depth_bits(dst->format))
      resolve_depth(&fb->depth, dst, r->depth_mode, layer, x0, y0, x1, y1);
   if (r->stencil_mode != VK_RESOLVE_MODE_NONE && fb->stencil.base &&
       (fb->stencil.format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT) &&
       (dst->format->aspects & VK_IMAGE_ASPECT_STENCIL_BIT))
      resolve_stencil(&fb->stencil, dst, r->stencil_mode, layer, x0, y0, x1, y1);
}
