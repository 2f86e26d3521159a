/*
 * sr_fragment: the rasterizer's per-fragment operations in plain C (the
 * back end's reference: depth/stencil, multisample coverage, blending,
 * logic ops, write masks, format packing), used by sr_tile.c.
 *
 * A tile worker prepares one struct sr_fragment_state per draw state and
 * framebuffer (sr_fragment_setup: what each attachment needs, decided
 * once), then calls sr_fragment_depth_stencil and sr_fragment_color per
 * pixel with a sample coverage mask. The scalar helpers (compare, stencil
 * op, blend, logic op, depth keys) are exposed for tests/unit/test_fragment.c.
 * Order of operations is the spec's (sr_raster.h's design note); early or
 * late depth/stencil is the caller's choice (sr_fragment_state.early).
 *
 * The compiled back end (sr_raster.h, "The fragment back end"): setup
 * also derives the state's key (sr_fragment_key) and, when it equals the
 * key of the draw state's compiled routine, sets `compiled` and its
 * context; sr_tile.c then calls the routine instead of sr_fragment_color,
 * which stays the reference it is tested against. Likewise the
 * depth/stencil key (sr_fragment_ds_key) and `compiled_ds`, called instead
 * of sr_fragment_depth_stencil on W lanes.
 *
 * Threading: a state is read-only once set up; every function works on the
 * pixels it is handed, which the caller's tile owns.
 */
#ifndef SR_FRAGMENT_H
#define SR_FRAGMENT_H

#include "sr_scene.h"

/* Largest colour texel the back end packs (R64G64B64A64). */
#define SR_MAX_TEXEL_SIZE 32

enum sr_pack_kind {
   SR_PACK_GENERIC,
   SR_PACK_UNORM8,
   SR_PACK_SRGB8,
   SR_PACK_COPY32,
};

static inline uint8_t *sr_surface_texel(const struct sr_surface *s, uint32_t layer, int32_t x,
                                        int32_t y, uint32_t sample)
{
   return s->base + layer * s->layer_pitch + (uint64_t)y * s->row_pitch +
          ((uint64_t)x * s->samples + sample) * s->format->block_size;
}

/* One colour attachment as the fragment operations write it. */
struct sr_color_target {
   const struct sr_surface *surf;       /* NULL: nothing written */
   enum su_numeric_class cls;           /* the attachment's class */
   bool blend;                          /* blending applies (float/normalized, enabled, no logic op) */
   bool logic;                          /* the logic op applies (integer or UNORM/SNORM) */
   bool clamp01, clamp11;               /* UNORM / SNORM: blend inputs clamped */
   bool dual;                           /* the blend reads the second source (SRC1) */
   float constants[4];                  /* blend constants, clamped like the inputs */
   bool full_write;                     /* every channel written */
   /* Packing shortcuts, exact to su_pack_*: SR_PACK_UNORM8 / _SRGB8 (8-bit
    * UNORM / sRGB channels, one byte each at byte_of[c], 0xff when absent) and
    * SR_PACK_COPY32 (32-bit float/int channels in RGBA order: the bits). */
   uint8_t pack;
   uint8_t byte_of[4];
   uint8_t write_bits[SR_MAX_TEXEL_SIZE];   /* bits of the written channels */
};

struct sr_fragment_state {
   const struct sr_draw_state *state;
   uint32_t samples;
   const float (*positions)[2];         /* sr_sample_positions(samples) */
   /* Depth/stencil: NULL when the attachment is absent or the test off. */
   const struct sr_surface *depth;      /* depth test, write or bounds needs it */
   const struct sr_surface *stencil;    /* stencil test on and a stencil attachment */
   bool depth_test, depth_write, depth_bounds;
   bool depth_float;                    /* D32 depth: stored and compared as a float */
   bool ds_tests;                       /* depth or stencil is non-NULL */
   /* Tests run before the shader (EarlyFragmentTests, or nothing the shader
    * does could change their outcome or be observed). */
   bool early;
   /* The shader runs once per covered sample. */
   bool per_sample;
   bool alpha_to_coverage, alpha_to_one;
   uint32_t color_count;
   struct sr_color_target color[SR_MAX_COLOR_ATTACHMENTS];
   /* The compiled colour routine (state->fb_color when the key derived
    * here equals state->fb_key), and its context; NULL: sr_fragment_color. */
   shale_fb_color_fn compiled;
   /* The compiled depth/stencil routine (state->fb_ds when the key derived
    * here equals state->fb_ds_key; its context is fb_ctx too) and its
    * width; NULL: sr_fragment_depth_stencil. */
   shale_fb_ds_fn compiled_ds;
   uint32_t ds_width;
   struct shale_fb_context fb_ctx;
};

void sr_fragment_setup(struct sr_fragment_state *fs, const struct sr_framebuffer *fb,
                       const struct sr_draw_state *state);

/* The back-end key of a set-up state whose fragment shader runs `width`
 * lanes per call; false when no colour attachment is written. */
bool sr_fragment_key(const struct sr_fragment_state *fs, uint32_t width, struct shale_fb_key *key);
/* The depth/stencil key of a set-up state; false when no depth or
 * stencil test happens. */
bool sr_fragment_ds_key(const struct sr_fragment_state *fs, struct shale_fb_ds_key *key);

/* Depth bounds, stencil and depth tests with their writes, for the samples
 * of `cov` at pixel (x, y) of `layer`; returns the samples that passed.
 * Depth per sample: FragDepth `frag_depth` when non-NULL (clamped to the
 * prim's range with depth clamp), else the prim's z plane at the sample
 * (clamped to [depth_min, depth_max]). *passed counts the samples passing. */
uint32_t sr_fragment_depth_stencil(const struct sr_fragment_state *fs, const struct sr_prim *prim,
                                   uint32_t layer, int32_t x, int32_t y, uint32_t cov,
                                   const float *frag_depth, uint64_t *passed);

/* Alpha to coverage: the mask for alpha (clamped to [0, 1]) at `samples`
 * samples: the lowest round(alpha * samples) bits. */
uint32_t sr_alpha_to_coverage(float alpha, uint32_t samples);

/* Colour: blends / logic-ops / masks and packs lanes 0 .. lanes-1 of a
 * fragment shader's outputs (`width` lanes, SHALE_FS_OUTPUT_LOCATIONS
 * locations) into every attachment: lane i's samples cov[i] at pixel
 * (x[i], y[i]); lanes with cov[i] == 0 write nothing. */
void sr_fragment_color(const struct sr_fragment_state *fs, uint32_t layer, const int32_t *x,
                       const int32_t *y, const uint32_t *cov, uint32_t lanes,
                       const uint32_t *outputs, uint32_t width);

/* ---- Scalar operations (exposed for tests) ---- */

/* A VkCompareOp of ref against stored (stencil values and depth keys are
 * exact as doubles; NaN compares unordered). */
bool sr_compare(VkCompareOp op, double ref, double stored);
uint8_t sr_stencil_op(VkStencilOp op, uint8_t s, uint8_t ref);
/* The stencil test and update of one sample: returns whether the stencil
 * test passed; *s is updated by the op the outcome selects (depth_pass
 * tells pass from depth fail when the stencil test passed). */
bool sr_stencil_test(const struct sr_stencil_face *f, uint8_t s);
uint8_t sr_stencil_update(const struct sr_stencil_face *f, uint8_t s, bool stencil_pass,
                          bool depth_pass);

/* Depth as the format stores it, as an exactly comparable number (UNORM:
 * the integer; D32: the float). */
double sr_depth_key(const struct su_format_desc *desc, const void *texel);

/* Blending of one component: src/dst/src1/constant colours, RGBA.
 * Returns the blended colour in out (MIN/MAX ignore the factors). */
float sr_blend_factor(VkBlendFactor f, int c, const float src[4], const float src1[4],
                      const float dst[4], const float k[4]);
void sr_blend(const struct sr_blend_attachment *b, const float src[4], const float src1[4],
              const float dst[4], const float k[4], float out[4]);
uint32_t sr_logic_op(VkLogicOp op, uint32_t s, uint32_t d);

/* Blending into 8-bit UNORM channels (SR_PACK_UNORM8 attachments), in the
 * destination's scale: src (clamped) and dst (dst[c] = dbyte[c] / 255)
 * give factors as sr_blend's, then channel c is
 *    ADD      fmaf(s, sf * 255, dbyte * df)
 *    SUBTRACT fmaf(s, sf * 255, -(dbyte * df))
 *    REVERSE  fmaf(-s, sf * 255, dbyte * df)
 * (single precision, each product rounded once), clamped to [0, 255] (NaN
 * to 0) and rounded to nearest even: within 1e-4 of the exact result
 * times 255 before the rounding, so the byte is the exact result's nearest
 * (either neighbour where that lies within 1e-4 of a midpoint; the spec's
 * conversion allows either neighbour anywhere). MIN / MAX, and ADD /
 * SUBTRACT with factors ONE / ZERO (a copy of the source), are
 * sr_unorm8 of fminf / fmaxf(s, d) or of s: the bytes a write without
 * blending leaves. The compiled routines (llvm_backend.c) do the same
 * operations. out: the bytes, RGBA. */
void sr_blend_unorm8(const struct sr_blend_attachment *b, const float src[4],
                     const float src1[4], const float dst[4], const float dbyte[4],
                     const float k[4], uint8_t out[4]);

/* Which packing shortcut suits d (enum sr_pack_kind); byte_of[c]: the
 * byte of channel c for SR_PACK_UNORM8 / _SRGB8 (0xff: absent). */
uint8_t sr_pack_kind(const struct su_format_desc *d, uint8_t byte_of[4]);

/* su_pack_float's UNORM rounding for 8 bits. */
static inline uint8_t sr_unorm8(float f)
{
   if (!(f > 0.0f))
      return 0;
   if (f >= 1.0f)
      return 255;
   return (uint8_t)(int)((double)f * 255.0 + 0.5);
}

/* 8-bit sRGB encoding and decoding, exactly su_pack_float's and
 * su_unpack_float's (from tables built once). */
uint8_t sr_srgb8_encode(float linear);
float sr_srgb8_decode(uint8_t v);

#endif
