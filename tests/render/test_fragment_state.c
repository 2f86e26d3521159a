/* Colour blending, blend constants, dual source, independent blend, logic ops and write masks against a CPU reference. */
/*
 * Every case draws a full-screen triangle through a 1x1 scissor onto its
 * own pixel of a row of pixels cleared to a known colour, so one render
 * pass checks dozens of pipelines. The fragment shader writes push-constant
 * colours; the result is compared with a CPU evaluation of Vulkan's
 * blending equations (tolerances: 1e-5 on R32G32B32A32_SFLOAT, one unit of
 * the last place on R8G8B8A8_UNORM, where the source and the constants are
 * clamped to [0, 1]; exact for logic ops and write masks). The same cases
 * run on lavapipe when it is present, against the same reference, to keep
 * the reference honest (two units on UNORM8 there: lavapipe's 8-bit
 * blending divides by 256).
 *  - every Vulkan 1.0 blend factor as source and as destination factor (colour
 *    and alpha), every blend op, 25 random combinations of separate colour
 *    and alpha factors and ops; blend constants from the pipeline and
 *    from vkCmdSetBlendConstants (VK_DYNAMIC_STATE_BLEND_CONSTANTS, three
 *    values in one render pass);
 *  - dualSrcBlend: the four SRC1 factors as source and destination factors,
 *    the second output at Location 0 Index 1 (maxFragmentDualSrcAttachments 1);
 *  - independentBlend: two attachments (UNORM and float) with different
 *    blend states and write masks in one pipeline;
 *  - logicOp: the 16 logic ops on R8G8B8A8_UINT and R8G8B8A8_UNORM;
 *  - colour write masks: all 16 masks, with and without blending.
 * Fragment shaders, on a 16x16 R32G32B32A32_SFLOAT target through
 * draw_util (exact CPU references): FragCoord (pixel centres, z) and
 * FrontFacing for both front-face settings; discard; FragDepth with a LESS
 * test (colour and D32 depth); dFdxFine/dFdyFine of x * y (each pixel's own
 * row and column) and dFdxCoarse/dFdyCoarse (a difference within the
 * quad: the y of one of its rows, the x of one of its columns; lavapipe's
 * coarse derivatives are its fine ones, as the spec allows); fragmentStoresAndAtomics and
 * vertexPipelineStoresAndAtomics: a storage buffer written and counted with
 * atomics by both stages, with the depth test failing every fragment: 256
 * fragment invocations with late tests, none with early_fragment_tests;
 * smooth, noperspective, flat and centroid inputs of a triangle with w 1,
 * 2 and 4 (window coordinates on the 1/256 grid, so snapping moves
 * nothing) against barycentric references at the pixel centres (1e-5
 * relative; pixels within 2% of an edge left out); texture() with implicit
 * LOD on a 64x64 texture of 7 levels, each one colour, NEAREST filters:
 * uv scales of 1/4 to 32 pick levels 0, 2, 3, 5 and the last (LOD clamped).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "const_uint_frag_spv.h"
#include "dual_src_frag_spv.h"
#include "fs_coord_frag_spv.h"
#include "fs_depth_frag_spv.h"
#include "fs_deriv_frag_spv.h"
#include "fs_discard_frag_spv.h"
#include "fs_store_early_frag_spv.h"
#include "fs_store_frag_spv.h"
#include "fullscreen_vert_spv.h"
#include "interp_frag_spv.h"
#include "interp_vert_spv.h"
#include "vs_store_vert_spv.h"
#include "mrt_frag_spv.h"
#include "tex_lod_frag_spv.h"
#include "tri_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define WIDTH 64
#define MAX_ATT 2

/* ---- a row of WIDTH pixels, up to two colour attachments ---- */

struct row_target {
   uint32_t count;
   VkFormat format[MAX_ATT];
   VkClearColorValue clear[MAX_ATT];
   struct vkt_image image[MAX_ATT];
   VkImageView view[MAX_ATT];
   VkRenderPass render_pass;
   VkFramebuffer framebuffer;
   struct vkt_buffer readback[MAX_ATT];
};

static uint32_t
texel_bytes(VkFormat f)
{
   return f == VK_FORMAT_R32G32B32A32_SFLOAT ? 16 : 4;
}

static VkResult
row_target_create(struct vkt *t, struct row_target *rt)
{
   VkAttachmentDescription att[MAX_ATT];
   VkAttachmentReference refs[MAX_ATT];
   VkResult r;
   for (uint32_t i = 0; i < rt->count; i++) {
      if ((r = draw_image_create(t, rt->format[i], WIDTH, 1, VK_SAMPLE_COUNT_1_BIT,
                                 VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                 VK_IMAGE_ASPECT_COLOR_BIT, &rt->image[i], &rt->view[i])) !=
          VK_SUCCESS)
         return r;
      if ((r = vkt_buffer_create(t, WIDTH * texel_bytes(rt->format[i]),
                                 VK_BUFFER_USAGE_TRANSFER_DST_BIT, &rt->readback[i])) != VK_SUCCESS)
         return r;
      att[i] = (VkAttachmentDescription) {
         .format = rt->format[i],
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      };
      refs[i] = (VkAttachmentReference) { i, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   }
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = rt->count,
      .pColorAttachments = refs,
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = rt->count,
      .pAttachments = att,
      .subpassCount = 1,
      .pSubpasses = &sub,
      .dependencyCount = 1,
      .pDependencies = &draw_dep_color_to_transfer,
   };
   if ((r = vkCreateRenderPass(t->device, &rpci, NULL, &rt->render_pass)) != VK_SUCCESS)
      return r;
   return draw_framebuffer(t, rt->render_pass, rt->view, rt->count, WIDTH, 1, 1,
                           &rt->framebuffer);
}

static void
row_target_destroy(struct vkt *t, struct row_target *rt)
{
   vkDestroyFramebuffer(t->device, rt->framebuffer, NULL);
   vkDestroyRenderPass(t->device, rt->render_pass, NULL);
   for (uint32_t i = 0; i < rt->count; i++) {
      vkDestroyImageView(t->device, rt->view[i], NULL);
      vkt_image_destroy(t, &rt->image[i]);
      vkt_buffer_destroy(t, &rt->readback[i]);
   }
}

/* Shaders and a layout shared by every pipeline of a test: push constants
 * (32 bytes) for the fragment stage. */
struct kit {
   VkShaderModule vs, fs;
   VkPipelineLayout layout;
};

static VkResult
kit_create(struct vkt *t, const uint32_t *fs, size_t fs_size, struct kit *k)
{
   memset(k, 0, sizeof(*k));
   VkResult r = vkt_shader_module(t, tri_vert_spv, sizeof(tri_vert_spv), &k->vs);
   if (r == VK_SUCCESS)
      r = vkt_shader_module(t, fs, fs_size, &k->fs);
   if (r != VK_SUCCESS)
      return r;
   return draw_pipeline_layout(t, VK_NULL_HANDLE, VK_SHADER_STAGE_FRAGMENT_BIT, 32, &k->layout);
}

static void
kit_destroy(struct vkt *t, struct kit *k)
{
   vkDestroyPipelineLayout(t->device, k->layout, NULL);
   vkDestroyShaderModule(t->device, k->vs, NULL);
   vkDestroyShaderModule(t->device, k->fs, NULL);
}

/* A pipeline of the kit's shaders for rt with the given blend state;
 * viewport and scissor are dynamic, and so are the blend constants when
 * dynamic_constants is set. */
static VkPipeline
make_pipeline(struct vkt *t, const struct row_target *rt, const struct kit *k,
              const VkPipelineColorBlendStateCreateInfo *cb, bool dynamic_constants)
{
   static const VkDynamicState blend_constants = VK_DYNAMIC_STATE_BLEND_CONSTANTS;
   struct draw_pipeline_info info = {
      .vs_module = k->vs,
      .fs_module = k->fs,
      .layout = k->layout,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = VK_CULL_MODE_NONE,
      .dynamic_viewport_scissor = true,
      .dynamic_states = &blend_constants,
      .dynamic_state_count = dynamic_constants ? 1 : 0,
      .color_blend = cb,
      .render_pass = rt->render_pass,
      .color_count = rt->count,
   };
   struct draw_pipeline p;
   draw_pipeline_create(t, NULL, &info, &p);   /* owns nothing but the pipeline */
   return p.pipeline;
}

static VkCommandBuffer
row_begin(struct vkt *t, const struct row_target *rt)
{
   VkCommandBuffer cb = vkt_begin(t);
   VkClearValue clears[MAX_ATT];
   for (uint32_t i = 0; i < rt->count; i++)
      clears[i].color = rt->clear[i];
   VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rt->render_pass,
      .framebuffer = rt->framebuffer,
      .renderArea = { { 0, 0 }, { WIDTH, 1 } },
      .clearValueCount = rt->count,
      .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   VkViewport viewport = { 0, 0, WIDTH, 1, 0, 1 };
   vkCmdSetViewport(cb, 0, 1, &viewport);
   return cb;
}

/* Draws with p onto pixel x, pushing 32 bytes. */
static void
row_draw(VkCommandBuffer cb, const struct kit *k, VkPipeline p, uint32_t x, const void *push)
{
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p);
   VkRect2D scissor = { { (int32_t)x, 0 }, { 1, 1 } };
   vkCmdSetScissor(cb, 0, 1, &scissor);
   vkCmdPushConstants(cb, k->layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 32, push);
   vkCmdDraw(cb, 3, 1, 0, 0);
}

static VkResult
row_end(struct vkt *t, struct row_target *rt, VkCommandBuffer cb)
{
   vkCmdEndRenderPass(cb);
   for (uint32_t i = 0; i < rt->count; i++)
      draw_copy_to_buffer(cb, rt->image[i].image, VK_IMAGE_ASPECT_COLOR_BIT, WIDTH, 1,
                          rt->readback[i].buffer, 0);
   draw_host_barrier(cb);
   return vkt_submit_wait(t, cb);
}

/* Pixel x of attachment i as four floats (UNORM8 as bytes / 255). */
static void
read_pixel(const struct row_target *rt, uint32_t i, uint32_t x, float out[4])
{
   if (rt->format[i] == VK_FORMAT_R32G32B32A32_SFLOAT) {
      memcpy(out, (const float *)rt->readback[i].map + 4 * x, 16);
   } else {
      const uint8_t *p = (const uint8_t *)rt->readback[i].map + 4 * x;
      for (int c = 0; c < 4; c++)
         out[c] = p[c] / 255.0f;
   }
}

/* ---- the CPU reference ---- */

struct blend_in {
   float s[4], s1[4], d[4], k[4];
};

static float
ref_factor(VkBlendFactor f, const struct blend_in *in, int c)
{
   const float *s = in->s, *s1 = in->s1, *d = in->d, *k = in->k;
   switch (f) {
   case VK_BLEND_FACTOR_ZERO: return 0.0f;
   case VK_BLEND_FACTOR_ONE: return 1.0f;
   case VK_BLEND_FACTOR_SRC_COLOR: return s[c];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR: return 1.0f - s[c];
   case VK_BLEND_FACTOR_DST_COLOR: return d[c];
   case VK_BLEND_FACTOR_ONE_MINUS_DST_COLOR: return 1.0f - d[c];
   case VK_BLEND_FACTOR_SRC_ALPHA: return s[3];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA: return 1.0f - s[3];
   case VK_BLEND_FACTOR_DST_ALPHA: return d[3];
   case VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA: return 1.0f - d[3];
   case VK_BLEND_FACTOR_CONSTANT_COLOR: return k[c];
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR: return 1.0f - k[c];
   case VK_BLEND_FACTOR_CONSTANT_ALPHA: return k[3];
   case VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA: return 1.0f - k[3];
   case VK_BLEND_FACTOR_SRC_ALPHA_SATURATE: return c < 3 ? fminf(s[3], 1.0f - d[3]) : 1.0f;
   case VK_BLEND_FACTOR_SRC1_COLOR: return s1[c];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_COLOR: return 1.0f - s1[c];
   case VK_BLEND_FACTOR_SRC1_ALPHA: return s1[3];
   case VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA: return 1.0f - s1[3];
   default: return NAN;
   }
}

static float
ref_op(VkBlendOp op, float s, float sf, float d, float df)
{
   switch (op) {
   case VK_BLEND_OP_ADD: return s * sf + d * df;
   case VK_BLEND_OP_SUBTRACT: return s * sf - d * df;
   case VK_BLEND_OP_REVERSE_SUBTRACT: return d * df - s * sf;
   case VK_BLEND_OP_MIN: return fminf(s, d);
   case VK_BLEND_OP_MAX: return fmaxf(s, d);
   default: return NAN;
   }
}

static float
clamp01(float x)
{
   return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x;
}

/* The blended (or, without blending, written) value of a pixel whose
 * attachment holds `in->d`, with write mask applied. */
static void
ref_blend(const VkPipelineColorBlendAttachmentState *b, struct blend_in in, bool unorm,
          float out[4])
{
   if (unorm) {
      for (int c = 0; c < 4; c++) {
         in.s[c] = clamp01(in.s[c]);
         in.s1[c] = clamp01(in.s1[c]);
         in.k[c] = clamp01(in.k[c]);
      }
   }
   for (int c = 0; c < 4; c++) {
      float v = in.s[c];
      if (b->blendEnable) {
         bool a = c == 3;
         v = ref_op(a ? b->alphaBlendOp : b->colorBlendOp, in.s[c],
                    ref_factor(a ? b->srcAlphaBlendFactor : b->srcColorBlendFactor, &in, c),
                    in.d[c],
                    ref_factor(a ? b->dstAlphaBlendFactor : b->dstColorBlendFactor, &in, c));
      }
      if (unorm)
         v = roundf(clamp01(v) * 255.0f) / 255.0f;
      out[c] = (b->colorWriteMask & (1u << c)) ? v : in.d[c];
   }
}

/* Units of the last place allowed on UNORM8: 1 on Shale; lavapipe's 8-bit
 * blending is off by 2 in places (its products divide by 256). */
static float unorm_units = 1.0f;

/* Compares got with want; returns the number of components off by more
 * than the tolerance, printing the first. */
static unsigned
compare(const char *driver, const char *what, uint32_t x, const float got[4], const float want[4],
        bool unorm)
{
   unsigned bad = 0;
   for (int c = 0; c < 4; c++) {
      float tol = unorm ? (unorm_units + 0.01f) / 255.0f : 1e-5f * fmaxf(1.0f, fabsf(want[c]));
      if (!(fabsf(got[c] - want[c]) <= tol))
         bad++;
   }
   if (bad)
      fprintf(stderr, "%s: %s pixel %u: got %g %g %g %g, want %g %g %g %g\n", driver, what, x,
              got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
   return bad;
}

/* ---- blending ---- */

static const float src_color[4] = { 0.8f, 0.3f, 0.55f, 0.6f };
static const float src1_color[4] = { 0.15f, 0.65f, 0.9f, 0.25f };
static const float pipe_constants[4] = { 0.2f, 0.4f, 0.6f, 0.8f };
static const float dyn_constants[3][4] = {
   { 0.9f, 0.1f, 0.5f, 0.3f }, { 0.05f, 0.75f, 0.35f, 0.95f }, { 1.0f, 0.0f, 0.25f, 0.5f },
};
/* Destination values exact in 8 bits. */
static const float dst_color[4] = { 64 / 255.0f, 179 / 255.0f, 115 / 255.0f, 89 / 255.0f };

#define NON_DUAL_FACTORS (VK_BLEND_FACTOR_SRC_ALPHA_SATURATE + 1)

static unsigned
random_u(unsigned *state, unsigned n)
{
   *state = *state * 1103515245u + 12345u;
   return (*state >> 16) % n;
}

/* The blend cases (at most WIDTH): returns their count. */
static uint32_t
blend_cases(VkPipelineColorBlendAttachmentState *cases, bool dual)
{
   uint32_t n = 0;
   VkPipelineColorBlendAttachmentState base = {
      .blendEnable = VK_TRUE,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = 0xf,
   };
   if (dual) {
      for (VkBlendFactor f = VK_BLEND_FACTOR_SRC1_COLOR; f <= VK_BLEND_FACTOR_ONE_MINUS_SRC1_ALPHA;
           f++) {
         VkPipelineColorBlendAttachmentState b = base;
         b.srcColorBlendFactor = b.srcAlphaBlendFactor = f;
         b.dstColorBlendFactor = b.dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
         cases[n++] = b;
         b.srcColorBlendFactor = b.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
         b.dstColorBlendFactor = b.dstAlphaBlendFactor = f;
         cases[n++] = b;
         b.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
         b.dstColorBlendFactor = f;
         b.srcAlphaBlendFactor = f;
         b.dstAlphaBlendFactor = VK_BLEND_FACTOR_DST_ALPHA;
         b.colorBlendOp = VK_BLEND_OP_SUBTRACT;
         cases[n++] = b;
      }
      return n;
   }
   for (VkBlendFactor f = 0; f < NON_DUAL_FACTORS; f++) {
      VkPipelineColorBlendAttachmentState b = base;
      b.srcColorBlendFactor = b.srcAlphaBlendFactor = f;
      b.dstColorBlendFactor = b.dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
      cases[n++] = b;
      b.srcColorBlendFactor = b.srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
      b.dstColorBlendFactor = b.dstAlphaBlendFactor = f;
      cases[n++] = b;
   }
   for (VkBlendOp op = VK_BLEND_OP_ADD; op <= VK_BLEND_OP_MAX; op++) {
      VkPipelineColorBlendAttachmentState b = base;
      b.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_COLOR;
      b.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_DST_ALPHA;
      b.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
      b.dstAlphaBlendFactor = VK_BLEND_FACTOR_DST_ALPHA;
      b.colorBlendOp = op;
      b.alphaBlendOp = (VkBlendOp)(VK_BLEND_OP_MAX - op);
      cases[n++] = b;
   }
   unsigned seed = 7;
   while (n < WIDTH - 4) {
      VkPipelineColorBlendAttachmentState b = base;
      b.srcColorBlendFactor = random_u(&seed, NON_DUAL_FACTORS);
      b.dstColorBlendFactor = random_u(&seed, NON_DUAL_FACTORS);
      b.srcAlphaBlendFactor = random_u(&seed, NON_DUAL_FACTORS);
      b.dstAlphaBlendFactor = random_u(&seed, NON_DUAL_FACTORS);
      b.colorBlendOp = random_u(&seed, 5);
      b.alphaBlendOp = random_u(&seed, 5);
      cases[n++] = b;
   }
   return n;
}

/* Every case on its own pixel, then (not dual) the dynamic constants on
 * three more pixels. Returns the number of wrong components. */
static unsigned
run_blend(struct vkt *t, VkFormat format, bool dual)
{
   bool unorm = format != VK_FORMAT_R32G32B32A32_SFLOAT;
   struct row_target rt = { .count = 1, .format = { format } };
   memcpy(rt.clear[0].float32, dst_color, 16);
   struct kit k;
   VkPipelineColorBlendAttachmentState cases[WIDTH];
   uint32_t n = blend_cases(cases, dual);
   VkPipeline pipes[WIDTH] = { 0 };
   unsigned bad = 0;
   CHECK_VK(row_target_create(t, &rt));
   CHECK_VK(dual ? kit_create(t, dual_src_frag_spv, sizeof(dual_src_frag_spv), &k)
                 : kit_create(t, const_float_frag_spv, sizeof(const_float_frag_spv), &k));
   VkPipelineColorBlendStateCreateInfo cb = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = 1,
   };
   memcpy(cb.blendConstants, pipe_constants, 16);
   bool ok = true;
   for (uint32_t i = 0; i < n; i++) {
      cb.pAttachments = &cases[i];
      pipes[i] = make_pipeline(t, &rt, &k, &cb, false);
      ok = ok && pipes[i];
   }
   VkPipelineColorBlendAttachmentState dyn_case = {
      .blendEnable = VK_TRUE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_CONSTANT_COLOR,
      .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_CONSTANT_ALPHA,
      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_CONSTANT_COLOR,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = 0xf,
   };
   VkPipeline dyn_pipe = VK_NULL_HANDLE;
   if (!dual) {
      cb.pAttachments = &dyn_case;
      dyn_pipe = make_pipeline(t, &rt, &k, &cb, true);
      ok = ok && dyn_pipe;
   }
   CHECK(ok, "%s: blend pipelines of format %d (dual %d)", vkt_driver_name(t->driver), format,
         dual);
   if (ok) {
      float push[8];
      memcpy(push, src_color, 16);
      memcpy(push + 4, src1_color, 16);
      VkCommandBuffer cmd = row_begin(t, &rt);
      for (uint32_t i = 0; i < n; i++)
         row_draw(cmd, &k, pipes[i], i, push);
      for (uint32_t j = 0; dyn_pipe && j < 3; j++) {
         vkCmdSetBlendConstants(cmd, dyn_constants[j]);
         row_draw(cmd, &k, dyn_pipe, n + j, push);
      }
      CHECK_VK(row_end(t, &rt, cmd));
      struct blend_in in;
      memcpy(in.s, src_color, 16);
      memcpy(in.s1, dual ? src1_color : src_color, 16);
      memcpy(in.d, dst_color, 16);
      memcpy(in.k, pipe_constants, 16);
      float got[4], want[4];
      char what[96];
      for (uint32_t i = 0; i < n; i++) {
         ref_blend(&cases[i], in, unorm, want);
         read_pixel(&rt, 0, i, got);
         snprintf(what, sizeof(what), "format %d blend %d/%d %d, %d/%d %d", format,
                  cases[i].srcColorBlendFactor, cases[i].dstColorBlendFactor,
                  cases[i].colorBlendOp, cases[i].srcAlphaBlendFactor,
                  cases[i].dstAlphaBlendFactor, cases[i].alphaBlendOp);
         bad += compare(vkt_driver_name(t->driver), what, i, got, want, unorm);
      }
      for (uint32_t j = 0; dyn_pipe && j < 3; j++) {
         memcpy(in.k, dyn_constants[j], 16);
         ref_blend(&dyn_case, in, unorm, want);
         read_pixel(&rt, 0, n + j, got);
         snprintf(what, sizeof(what), "format %d dynamic constants %u", format, j);
         bad += compare(vkt_driver_name(t->driver), what, n + j, got, want, unorm);
      }
   }
   for (uint32_t i = 0; i < n; i++)
      vkDestroyPipeline(t->device, pipes[i], NULL);
   vkDestroyPipeline(t->device, dyn_pipe, NULL);
   kit_destroy(t, &k);
   row_target_destroy(t, &rt);
   return bad;
}

/* ---- independent blend: two attachments, two blend states ---- */

static unsigned
run_mrt(struct vkt *t)
{
   struct row_target rt = {
      .count = 2, .format = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R32G32B32A32_SFLOAT },
   };
   memcpy(rt.clear[0].float32, dst_color, 16);
   static const float dst1[4] = { 0.5f, 0.25f, 0.125f, 1.0f };
   memcpy(rt.clear[1].float32, dst1, 16);
   struct kit k;
   CHECK_VK(row_target_create(t, &rt));
   CHECK_VK(kit_create(t, mrt_frag_spv, sizeof(mrt_frag_spv), &k));
   /* Pixel i: attachment 0 blends SRC_ALPHA / ONE_MINUS_SRC_ALPHA with
    * write mask i, attachment 1 adds ONE / ONE with write mask 15 - i; odd
    * pixels swap which attachment blends. */
   VkPipeline pipes[16];
   VkPipelineColorBlendAttachmentState atts[16][2];
   bool ok = true;
   for (uint32_t i = 0; i < 16; i++) {
      VkPipelineColorBlendAttachmentState a = {
         .blendEnable = VK_TRUE,
         .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
         .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
         .colorBlendOp = VK_BLEND_OP_ADD,
         .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO,
         .alphaBlendOp = VK_BLEND_OP_ADD,
         .colorWriteMask = i,
      };
      VkPipelineColorBlendAttachmentState b = {
         .blendEnable = (i & 1) == 0,
         .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstColorBlendFactor = VK_BLEND_FACTOR_ONE,
         .colorBlendOp = VK_BLEND_OP_ADD,
         .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .alphaBlendOp = VK_BLEND_OP_REVERSE_SUBTRACT,
         .colorWriteMask = 15 - i,
      };
      if (i & 1)
         a.blendEnable = VK_FALSE;
      atts[i][0] = a;
      atts[i][1] = b;
      VkPipelineColorBlendStateCreateInfo cb = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
         .attachmentCount = 2,
         .pAttachments = atts[i],
      };
      pipes[i] = make_pipeline(t, &rt, &k, &cb, false);
      ok = ok && pipes[i];
   }
   unsigned bad = 0;
   CHECK(ok, "%s: independent blend pipelines", vkt_driver_name(t->driver));
   static const float s1[4] = { 0.25f, 0.5f, 0.75f, 0.125f };
   if (ok) {
      float push[8];
      memcpy(push, src_color, 16);
      memcpy(push + 4, s1, 16);
      VkCommandBuffer cmd = row_begin(t, &rt);
      for (uint32_t i = 0; i < 16; i++)
         row_draw(cmd, &k, pipes[i], i, push);
      CHECK_VK(row_end(t, &rt, cmd));
      for (uint32_t i = 0; i < 16; i++) {
         struct blend_in in;
         float got[4], want[4];
         memcpy(in.s, src_color, 16);
         memcpy(in.s1, src_color, 16);
         memcpy(in.d, dst_color, 16);
         memset(in.k, 0, 16);
         ref_blend(&atts[i][0], in, true, want);
         read_pixel(&rt, 0, i, got);
         bad += compare(vkt_driver_name(t->driver), "MRT attachment 0", i, got, want, true);
         memcpy(in.s, s1, 16);
         memcpy(in.d, dst1, 16);
         ref_blend(&atts[i][1], in, false, want);
         read_pixel(&rt, 1, i, got);
         bad += compare(vkt_driver_name(t->driver), "MRT attachment 1", i, got, want, false);
      }
   }
   for (uint32_t i = 0; i < 16; i++)
      vkDestroyPipeline(t->device, pipes[i], NULL);
   kit_destroy(t, &k);
   row_target_destroy(t, &rt);
   return bad;
}

/* ---- logic ops ---- */

static uint8_t
ref_logic(VkLogicOp op, uint8_t s, uint8_t d)
{
   switch (op) {
   case VK_LOGIC_OP_CLEAR: return 0;
   case VK_LOGIC_OP_AND: return s & d;
   case VK_LOGIC_OP_AND_REVERSE: return s & ~d;
   case VK_LOGIC_OP_COPY: return s;
   case VK_LOGIC_OP_AND_INVERTED: return ~s & d;
   case VK_LOGIC_OP_NO_OP: return d;
   case VK_LOGIC_OP_XOR: return s ^ d;
   case VK_LOGIC_OP_OR: return s | d;
   case VK_LOGIC_OP_NOR: return ~(s | d);
   case VK_LOGIC_OP_EQUIVALENT: return ~(s ^ d);
   case VK_LOGIC_OP_INVERT: return ~d;
   case VK_LOGIC_OP_OR_REVERSE: return s | ~d;
   case VK_LOGIC_OP_COPY_INVERTED: return ~s;
   case VK_LOGIC_OP_OR_INVERTED: return ~s | d;
   case VK_LOGIC_OP_NAND: return ~(s & d);
   case VK_LOGIC_OP_SET: return 0xff;
   default: return 0;
   }
}

/* The 16 ops on pixels 0-15, then again with write mask 0x5 on 16-31
 * (blendEnable set, which logic ops override). */
static unsigned
run_logic(struct vkt *t, VkFormat format)
{
   static const uint8_t s8[4] = { 0x5a, 0xc3, 0x0f, 0xff }, d8[4] = { 0x3c, 0x96, 0xf0, 0x00 };
   bool uint = format == VK_FORMAT_R8G8B8A8_UINT;
   struct row_target rt = { .count = 1, .format = { format } };
   for (int c = 0; c < 4; c++) {
      if (uint)
         rt.clear[0].uint32[c] = d8[c];
      else
         rt.clear[0].float32[c] = d8[c] / 255.0f;
   }
   struct kit k;
   CHECK_VK(row_target_create(t, &rt));
   CHECK_VK(uint ? kit_create(t, const_uint_frag_spv, sizeof(const_uint_frag_spv), &k)
                 : kit_create(t, const_float_frag_spv, sizeof(const_float_frag_spv), &k));
   VkPipeline pipes[32] = { 0 };
   bool ok = true;
   for (uint32_t i = 0; i < 32; i++) {
      VkPipelineColorBlendAttachmentState a = {
         .blendEnable = i >= 16,
         .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstColorBlendFactor = VK_BLEND_FACTOR_ONE,
         .colorBlendOp = VK_BLEND_OP_ADD,
         .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .alphaBlendOp = VK_BLEND_OP_ADD,
         .colorWriteMask = i >= 16 ? 0x5 : 0xf,
      };
      if (uint)
         a.blendEnable = VK_FALSE;   /* blending needs a float format */
      VkPipelineColorBlendStateCreateInfo cb = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
         .logicOpEnable = VK_TRUE,
         .logicOp = (VkLogicOp)(i % 16),
         .attachmentCount = 1,
         .pAttachments = &a,
      };
      pipes[i] = make_pipeline(t, &rt, &k, &cb, false);
      ok = ok && pipes[i];
   }
   unsigned bad = 0;
   CHECK(ok, "%s: logic op pipelines of format %d", vkt_driver_name(t->driver), format);
   if (ok) {
      uint32_t push[8] = { 0 };
      for (int c = 0; c < 4; c++) {
         if (uint)
            push[c] = s8[c];
         else {
            float f = s8[c] / 255.0f;
            memcpy(&push[c], &f, 4);
         }
      }
      VkCommandBuffer cmd = row_begin(t, &rt);
      for (uint32_t i = 0; i < 32; i++)
         row_draw(cmd, &k, pipes[i], i, push);
      CHECK_VK(row_end(t, &rt, cmd));
      const uint8_t *got = rt.readback[0].map;
      for (uint32_t i = 0; i < 32; i++) {
         for (int c = 0; c < 4; c++) {
            uint8_t want = ((i < 16) || (0x5 & (1u << c))) ? ref_logic(i % 16, s8[c], d8[c]) : d8[c];
            if (got[4 * i + c] != want) {
               fprintf(stderr, "%s: format %d logic op %u pixel %u component %d: %#x, want %#x\n",
                       vkt_driver_name(t->driver), format, i % 16, i, c, got[4 * i + c], want);
               bad++;
            }
         }
      }
   }
   for (uint32_t i = 0; i < 32; i++)
      vkDestroyPipeline(t->device, pipes[i], NULL);
   kit_destroy(t, &k);
   row_target_destroy(t, &rt);
   return bad;
}

/* ---- write masks: the 16 masks without blending, then with ONE/ONE ---- */

static unsigned
run_write_masks(struct vkt *t, VkFormat format)
{
   bool unorm = format != VK_FORMAT_R32G32B32A32_SFLOAT;
   struct row_target rt = { .count = 1, .format = { format } };
   memcpy(rt.clear[0].float32, dst_color, 16);
   struct kit k;
   CHECK_VK(row_target_create(t, &rt));
   CHECK_VK(kit_create(t, const_float_frag_spv, sizeof(const_float_frag_spv), &k));
   VkPipeline pipes[32] = { 0 };
   VkPipelineColorBlendAttachmentState atts[32];
   bool ok = true;
   for (uint32_t i = 0; i < 32; i++) {
      atts[i] = (VkPipelineColorBlendAttachmentState) {
         .blendEnable = i >= 16,
         .srcColorBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstColorBlendFactor = VK_BLEND_FACTOR_ONE,
         .colorBlendOp = VK_BLEND_OP_ADD,
         .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
         .alphaBlendOp = VK_BLEND_OP_SUBTRACT,
         .colorWriteMask = i % 16,
      };
      VkPipelineColorBlendStateCreateInfo cb = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
         .attachmentCount = 1,
         .pAttachments = &atts[i],
      };
      pipes[i] = make_pipeline(t, &rt, &k, &cb, false);
      ok = ok && pipes[i];
   }
   unsigned bad = 0;
   CHECK(ok, "%s: write mask pipelines", vkt_driver_name(t->driver));
   if (ok) {
      float push[8] = { 0 };
      memcpy(push, src_color, 16);
      VkCommandBuffer cmd = row_begin(t, &rt);
      for (uint32_t i = 0; i < 32; i++)
         row_draw(cmd, &k, pipes[i], i, push);
      CHECK_VK(row_end(t, &rt, cmd));
      struct blend_in in;
      memcpy(in.s, src_color, 16);
      memcpy(in.s1, src_color, 16);
      memcpy(in.d, dst_color, 16);
      memset(in.k, 0, 16);
      for (uint32_t i = 0; i < 32; i++) {
         float got[4], want[4];
         ref_blend(&atts[i], in, unorm, want);
         read_pixel(&rt, 0, i, got);
         bad += compare(vkt_driver_name(t->driver), "write mask", i, got, want, unorm);
      }
   }
   for (uint32_t i = 0; i < 32; i++)
      vkDestroyPipeline(t->device, pipes[i], NULL);
   kit_destroy(t, &k);
   row_target_destroy(t, &rt);
   return bad;
}

/* ---- fragment shaders ---- */

#define FS_SIZE 16

struct fs_run {
   const uint32_t *vs, *fs;
   size_t vs_size, fs_size;
   VkFrontFace front_face;
   const VkPipelineDepthStencilStateCreateInfo *ds;   /* NULL: no depth attachment */
   float z;
   VkBuffer storage;                                   /* bound at set 0 binding 0 */
};

/* Draws the full-screen triangle over a target cleared to 0 (depth 0.5);
 * colour (4 floats a pixel) into color, depth into depth (when ds). */
static bool
fs_draw(struct vkt *t, const struct fs_run *run, float *color, float *depth)
{
   struct draw_target dt = {
      .color_format = VK_FORMAT_R32G32B32A32_SFLOAT,
      .depth_format = run->ds ? VK_FORMAT_D32_SFLOAT : VK_FORMAT_UNDEFINED,
      .width = FS_SIZE, .height = FS_SIZE, .clear_depth = 0.5f,
   };
   VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
   VkDescriptorPool pool = VK_NULL_HANDLE;
   VkDescriptorSet set = VK_NULL_HANDLE;
   bool ok = draw_target_create(t, &dt) == VK_SUCCESS;
   if (ok && run->storage) {
      ok = draw_single_set(t, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                           VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                           &set_layout, &pool, &set) == VK_SUCCESS;
      if (ok)
         vkt_bind_buffers(t, set, NULL, &run->storage, 1);
   }
   struct draw_pipeline_info pi = {
      .vs = run->vs, .vs_size = run->vs_size,
      .fs = run->fs, .fs_size = run->fs_size,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .front_face = run->front_face,
      .depth_stencil = run->ds,
      .push_size = 20,
      .set_layout = set_layout,
   };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   ok = ok && draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
   if (ok) {
      VkCommandBuffer cb = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
      uint8_t push[20] = { 0 };
      memcpy(push + 16, &run->z, 4);
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 20, push);
      if (set)
         vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0,
                                 NULL);
      vkCmdDraw(cb, 3, 1, 0, 0);
      ok = draw_end(t, &dt, cb) == VK_SUCCESS;
      memcpy(color, dt.readback.map, FS_SIZE * FS_SIZE * 16);
      if (run->ds && depth)
         memcpy(depth, (uint8_t *)dt.readback.map + FS_SIZE * FS_SIZE * 16, FS_SIZE * FS_SIZE * 4);
   }
   draw_pipeline_destroy(t, &p);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, set_layout, NULL);
   draw_target_destroy(t, &dt);
   return ok;
}

static unsigned
count_wrong(const char *driver, const char *what, const float *got, const float *want,
            size_t n)
{
   unsigned bad = 0;
   for (size_t i = 0; i < n; i++) {
      if (got[i] != want[i]) {
         if (bad < 4)
            fprintf(stderr, "%s: %s: value %zu (pixel %zu): %g, want %g\n", driver, what, i,
                    i / 4, got[i], want[i]);
         bad++;
      }
   }
   return bad;
}

/* Interpolation qualifiers: one triangle with w 1, 2, 4 and values 1, 5, 9. */
static unsigned
run_interpolation(struct vkt *t)
{
   const char *name = vkt_driver_name(t->driver);
   static const float pos[3][4] = {
      { -0.90625f, -0.8125f, 0.5f, 1.0f }, { 1.8125f, -1.25f, 1.0f, 2.0f },
      { -1.25f, 3.875f, 2.0f, 4.0f },
   };   /* window (0.75, 1.5), (15.25, 3), (5.5, 15.75): on the 1/256 grid */
   static const float value[4] = { 1.0f, 5.0f, 9.0f, 0.0f };
   struct draw_target dt = {
      .color_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = FS_SIZE, .height = FS_SIZE,
   };
   struct draw_pipeline_info pi = {
      .vs = interp_vert_spv, .vs_size = sizeof(interp_vert_spv),
      .fs = interp_frag_spv, .fs_size = sizeof(interp_frag_spv),
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .push_size = 64,
   };
   struct draw_pipeline p;
   memset(&p, 0, sizeof(p));
   bool ok = draw_target_create(t, &dt) == VK_SUCCESS &&
             draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
   unsigned bad = 0, compared = 0;
   if (ok) {
      VkCommandBuffer cb = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
      float push[16];
      memcpy(push, pos, 48);
      memcpy(push + 12, value, 16);
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 64, push);
      vkCmdDraw(cb, 3, 1, 0, 0);
      ok = draw_end(t, &dt, cb) == VK_SUCCESS;
   }
   if (ok) {
      double wx[3], wy[3];
      for (int i = 0; i < 3; i++) {
         wx[i] = (pos[i][0] / pos[i][3] * 0.5 + 0.5) * FS_SIZE;
         wy[i] = (pos[i][1] / pos[i][3] * 0.5 + 0.5) * FS_SIZE;
      }
      double area = (wx[1] - wx[0]) * (wy[2] - wy[0]) - (wy[1] - wy[0]) * (wx[2] - wx[0]);
      const float *got = dt.readback.map;
      for (int y = 0; y < FS_SIZE; y++)
         for (int x = 0; x < FS_SIZE; x++) {
            double px = x + 0.5, py = y + 0.5, b[3];
            for (int i = 0; i < 3; i++) {
               int j = (i + 1) % 3, k = (i + 2) % 3;
               b[i] = ((wx[k] - wx[j]) * (py - wy[j]) - (wy[k] - wy[j]) * (px - wx[j])) / area;
            }
            if (b[0] < 0.02 || b[1] < 0.02 || b[2] < 0.02)
               continue;
            compared++;
            double np = 0, num = 0, den = 0;
            for (int i = 0; i < 3; i++) {
               np += b[i] * value[i];
               num += b[i] * value[i] / pos[i][3];
               den += b[i] / pos[i][3];
            }
            double want[4] = { num / den, np, value[0], num / den };
            const float *g = &got[(y * FS_SIZE + x) * 4];
            for (int c = 0; c < 4; c++)
               if (!(fabs(g[c] - want[c]) <= 1e-5 * fmax(1.0, fabs(want[c])))) {
                  if (bad++ < 4)
                     fprintf(stderr, "%s: interpolation pixel (%d, %d)[%d]: %g, want %g\n", name,
                             x, y, c, g[c], want[c]);
               }
         }
   }
   CHECK(ok && compared > 50, "%s: interpolation drawn (%u pixels compared)", name, compared);
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
   return bad;
}

/* texture() with implicit LOD: level k is filled with colour (32k, 255 -
 * 32k, 64 * (k & 1), 255). Returns the number of wrong components. */
static unsigned
run_texture_lod(struct vkt *t)
{
   const char *name = vkt_driver_name(t->driver);
   enum { TEX = 64, LEVELS = 7 };
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { TEX, TEX, 1 },
      .mipLevels = LEVELS,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
   };
   struct vkt_image img;
   CHECK_VK(vkt_image_create(t, &ici, &img));
   struct vkt_buffer staging;
   CHECK_VK(vkt_buffer_create(t, TEX * TEX * 4 * 2, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging));
   VkBufferImageCopy regions[LEVELS];
   VkDeviceSize off = 0;
   for (uint32_t k = 0; k < LEVELS; k++) {
      uint32_t side = TEX >> k;
      uint8_t *p = (uint8_t *)staging.map + off;
      for (uint32_t i = 0; i < side * side; i++) {
         p[4 * i + 0] = (uint8_t)(32 * k);
         p[4 * i + 1] = (uint8_t)(255 - 32 * k);
         p[4 * i + 2] = (uint8_t)(64 * (k & 1));
         p[4 * i + 3] = 255;
      }
      regions[k] = (VkBufferImageCopy) {
         .bufferOffset = off,
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, k, 0, 1 },
         .imageExtent = { side, side, 1 },
      };
      off += (VkDeviceSize)side * side * 4;
   }
   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   vkCmdCopyBufferToImage(cb, staging.buffer, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          LEVELS, regions);
   vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
   CHECK_VK(vkt_submit_wait(t, cb));
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, LEVELS, 0, 1 },
   };
   VkImageView view;
   CHECK_VK(vkCreateImageView(t->device, &vci, NULL, &view));
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_NEAREST,
      .minFilter = VK_FILTER_NEAREST,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .maxLod = 16.0f,
   };
   VkSampler sampler;
   CHECK_VK(vkCreateSampler(t->device, &sci, NULL, &sampler));
   VkDescriptorSetLayout sl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   CHECK_VK(draw_single_set(t, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                            VK_SHADER_STAGE_FRAGMENT_BIT, &sl, &pool, &set));
   VkDescriptorImageInfo ii = { sampler, view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkWriteDescriptorSet w = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0,
      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
      .pImageInfo = &ii,
   };
   vkUpdateDescriptorSets(t->device, 1, &w, 0, NULL);

   static const float scales[] = { 0.25f, 1.0f, 2.0f, 8.0f, 32.0f };
   static const uint32_t levels[] = { 0, 2, 3, 5, 6 };
   unsigned bad = 0;
   for (unsigned s = 0; s < sizeof(scales) / sizeof(scales[0]); s++) {
      struct draw_target dt = {
         .color_format = VK_FORMAT_R32G32B32A32_SFLOAT, .width = FS_SIZE, .height = FS_SIZE,
      };
      struct draw_pipeline_info pi = {
         .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
         .fs = tex_lod_frag_spv, .fs_size = sizeof(tex_lod_frag_spv),
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .polygon_mode = VK_POLYGON_MODE_FILL,
         .push_size = 20,
         .set_layout = sl,
      };
      struct draw_pipeline p;
      memset(&p, 0, sizeof(p));
      bool ok = draw_target_create(t, &dt) == VK_SUCCESS &&
                draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
      if (ok) {
         VkCommandBuffer cmd = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
         float push[5] = { scales[s], 0, 0, 0, 0.5f };
         vkCmdPushConstants(cmd, p.layout,
                            VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 20, push);
         vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0,
                                 NULL);
         vkCmdDraw(cmd, 3, 1, 0, 0);
         ok = draw_end(t, &dt, cmd) == VK_SUCCESS;
      }
      CHECK(ok, "%s: implicit-LOD draw at scale %g", name, scales[s]);
      uint32_t k = levels[s];
      const float want[4] = { 32 * k / 255.0f, (255 - 32 * k) / 255.0f, 64 * (k & 1) / 255.0f,
                              1.0f };
      unsigned wrong = 0;
      const float *got = dt.readback.map;
      for (int i = 0; ok && i < FS_SIZE * FS_SIZE; i++)
         for (int c = 0; c < 4; c++)
            if (!(fabsf(got[4 * i + c] - want[c]) <= 1e-6f)) {
               if (wrong++ < 2)
                  fprintf(stderr, "%s: scale %g pixel %d[%d]: %g, want %g (level %u)\n", name,
                          scales[s], i, c, got[4 * i + c], want[c], k);
            }
      CHECK(ok && wrong == 0, "%s: texture() at scale %g samples level %u (%u wrong)", name,
            scales[s], k, wrong);
      bad += wrong;
      draw_pipeline_destroy(t, &p);
      draw_target_destroy(t, &dt);
   }
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkDestroyDescriptorSetLayout(t->device, sl, NULL);
   vkDestroySampler(t->device, sampler, NULL);
   vkDestroyImageView(t->device, view, NULL);
   vkt_buffer_destroy(t, &staging);
   vkt_image_destroy(t, &img);
   return bad;
}

static void
run_fragment_shaders(struct vkt *t)
{
   const char *name = vkt_driver_name(t->driver);
   static float color[FS_SIZE * FS_SIZE * 4], want[FS_SIZE * FS_SIZE * 4];
   static float depth[FS_SIZE * FS_SIZE], want_depth[FS_SIZE * FS_SIZE];
   const size_t n = FS_SIZE * FS_SIZE * 4;
   struct fs_run run = {
      .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
      .z = 0.25f,
   };

   run_texture_lod(t);
   unsigned ibad = run_interpolation(t);
   CHECK(ibad == 0, "%s: smooth, noperspective, flat and centroid inputs (%u wrong)", name, ibad);

   /* FragCoord and FrontFacing. The triangle (-1,-1), (3,-1), (-1,3) is
    * clockwise in framebuffer coordinates (y down): back-facing with
    * COUNTER_CLOCKWISE front faces, front-facing with CLOCKWISE. */
   for (int cw = 0; cw < 2; cw++) {
      run.fs = fs_coord_frag_spv;
      run.fs_size = sizeof(fs_coord_frag_spv);
      run.front_face = cw ? VK_FRONT_FACE_CLOCKWISE : VK_FRONT_FACE_COUNTER_CLOCKWISE;
      bool ok = fs_draw(t, &run, color, NULL);
      for (int y = 0; y < FS_SIZE; y++)
         for (int x = 0; x < FS_SIZE; x++) {
            float *w = &want[(y * FS_SIZE + x) * 4];
            w[0] = x + 0.5f;
            w[1] = y + 0.5f;
            w[2] = 0.25f;
            w[3] = cw ? 1.0f : 0.0f;
         }
      unsigned bad = ok ? count_wrong(name, "FragCoord/FrontFacing", color, want, n) : 1;
      CHECK(bad == 0, "%s: FragCoord and FrontFacing, front face %s (%u wrong)", name,
            cw ? "CLOCKWISE" : "COUNTER_CLOCKWISE", bad);
   }
   run.front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE;

   /* discard */
   run.fs = fs_discard_frag_spv;
   run.fs_size = sizeof(fs_discard_frag_spv);
   bool ok = fs_draw(t, &run, color, NULL);
   for (int i = 0; i < FS_SIZE * FS_SIZE; i++) {
      bool kept = ((i % FS_SIZE) + (i / FS_SIZE)) % 3 != 0;
      for (int c = 0; c < 4; c++)
         want[i * 4 + c] = kept ? (float)(c + 1) : 0.0f;
   }
   unsigned bad = ok ? count_wrong(name, "discard", color, want, n) : 1;
   CHECK(bad == 0, "%s: discard (%u wrong)", name, bad);

   /* FragDepth against a LESS test on depth cleared to 0.5. */
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS,
   };
   run.fs = fs_depth_frag_spv;
   run.fs_size = sizeof(fs_depth_frag_spv);
   run.ds = &ds;
   run.z = 0.9f;
   ok = fs_draw(t, &run, color, depth);
   for (int i = 0; i < FS_SIZE * FS_SIZE; i++) {
      float d = ((i % FS_SIZE) + 0.5f) / 16.0f;
      bool pass = d < 0.5f;
      want_depth[i] = pass ? d : 0.5f;
      for (int c = 0; c < 4; c++)
         want[i * 4 + c] = pass ? 1.0f : 0.0f;
   }
   bad = ok ? count_wrong(name, "FragDepth colour", color, want, n) +
                 count_wrong(name, "FragDepth depth", depth, want_depth, FS_SIZE * FS_SIZE)
            : 1;
   CHECK(bad == 0, "%s: FragDepth (%u wrong)", name, bad);

   /* Derivatives. */
   run.fs = fs_deriv_frag_spv;
   run.fs_size = sizeof(fs_deriv_frag_spv);
   run.ds = NULL;
   run.z = 0.25f;
   ok = fs_draw(t, &run, color, NULL);
   unsigned fine_bad = 0, coarse_bad = 0;
   for (int y = 0; ok && y < FS_SIZE; y++)
      for (int x = 0; x < FS_SIZE; x++) {
         const float *g = &color[(y * FS_SIZE + x) * 4];
         float qy = (y & ~1) + 0.5f, qx = (x & ~1) + 0.5f;
         if (g[0] != y + 0.5f || g[1] != x + 0.5f) {
            if (fine_bad++ < 4)
               fprintf(stderr, "%s: fine derivatives at (%d, %d): %g %g\n", name, x, y, g[0],
                       g[1]);
         }
         if ((g[2] != qy && g[2] != qy + 1.0f) ||
             (g[3] != qx && g[3] != qx + 1.0f)) {
            if (coarse_bad++ < 4)
               fprintf(stderr, "%s: coarse derivatives at (%d, %d): %g %g\n", name, x, y, g[2],
                       g[3]);
         }
      }
   CHECK(ok && fine_bad == 0, "%s: dFdxFine/dFdyFine (%u wrong)", name, fine_bad);
   CHECK(ok && coarse_bad == 0, "%s: dFdxCoarse/dFdyCoarse (%u wrong)", name, coarse_bad);

   /* Stores and atomics from both stages, with every fragment failing a
    * LESS test (z 0.75 against 0.5): late tests run the shader for all
    * 256 pixels; early_fragment_tests for none. */
   for (int early = 0; early < 2; early++) {
      struct vkt_buffer buf;
      CHECK_VK(vkt_buffer_create(t, 4 * (2 + 4 + 256), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &buf));
      memset(buf.map, 0, 4 * (2 + 4 + 256));
      run.vs = vs_store_vert_spv;
      run.vs_size = sizeof(vs_store_vert_spv);
      run.fs = early ? fs_store_early_frag_spv : fs_store_frag_spv;
      run.fs_size = early ? sizeof(fs_store_early_frag_spv) : sizeof(fs_store_frag_spv);
      run.ds = &ds;
      run.z = 0.75f;
      run.storage = buf.buffer;
      ok = fs_draw(t, &run, color, depth);
      const uint32_t *u = buf.map;
      unsigned px_bad = 0;
      for (uint32_t i = 0; ok && i < 256; i++) {
         uint32_t w = early ? 0 : (i % 16) * 100 + i / 16 + 1;
         px_bad += u[6 + i] != w;
      }
      CHECK(ok && u[0] == (early ? 0u : 256u), "%s: %s: %u fragment invocations counted", name,
            early ? "early_fragment_tests" : "late tests", u[0]);
      CHECK(ok && px_bad == 0, "%s: %s: fragment stores (%u wrong)", name,
            early ? "early_fragment_tests" : "late tests", px_bad);
      CHECK(ok && u[1] >= 3 && u[2] == 1 && u[3] == 8 && u[4] == 15 && u[5] == 0,
            "%s: vertex stores and atomics (%u invocations; %u %u %u %u)", name, u[1], u[2], u[3],
            u[4], u[5]);
      for (int i = 0; i < FS_SIZE * FS_SIZE * 4; i++)
         want[i] = 0.0f;
      bad = ok ? count_wrong(name, "failed depth test leaves colour", color, want, n) : 1;
      CHECK(bad == 0, "%s: no colour where the depth test failed (%u wrong)", name, bad);
      vkt_buffer_destroy(t, &buf);
      run.storage = VK_NULL_HANDLE;
   }
}

static void
run_all(enum vkt_driver driver)
{
   struct vkt probe;
   if (!draw_probe(driver, &probe)) {
      if (driver != VKT_LAVAPIPE)
         CHECK(false, "Shale device");
      return;
   }
   VkPhysicalDeviceFeatures have;
   vkGetPhysicalDeviceFeatures(probe.pdev, &have);
   uint32_t dual_atts = probe.props.limits.maxFragmentDualSrcAttachments;
   vkt_finish(&probe);
   const char *name = vkt_driver_name(driver);
   unorm_units = driver == VKT_LAVAPIPE ? 2.0f : 1.0f;
   CHECK(have.independentBlend, "%s reports independentBlend", name);
   CHECK(have.dualSrcBlend, "%s reports dualSrcBlend", name);
   CHECK(dual_atts >= 1, "%s: maxFragmentDualSrcAttachments %u", name, dual_atts);
   CHECK(have.logicOp, "%s reports logicOp", name);
   CHECK(have.fragmentStoresAndAtomics, "%s reports fragmentStoresAndAtomics", name);
   CHECK(have.vertexPipelineStoresAndAtomics, "%s reports vertexPipelineStoresAndAtomics", name);
   VkPhysicalDeviceFeatures want = {
      .fragmentStoresAndAtomics = have.fragmentStoresAndAtomics,
      .vertexPipelineStoresAndAtomics = have.vertexPipelineStoresAndAtomics,
      .independentBlend = have.independentBlend,
      .dualSrcBlend = have.dualSrcBlend,
      .logicOp = have.logicOp,
   };
   struct vkt t;
   if (!vkt_init(&t, &(struct vkt_options) { .driver = driver, .features = &want })) {
      CHECK(false, "%s device with the blend features", name);
      return;
   }
   static const VkFormat formats[] = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R8G8B8A8_UNORM };
   for (unsigned i = 0; i < 2; i++) {
      unsigned bad = run_blend(&t, formats[i], false);
      CHECK(bad == 0, "%s: every blend factor, op and constant on format %d (%u wrong)", name,
            formats[i], bad);
      bad = run_write_masks(&t, formats[i]);
      CHECK(bad == 0, "%s: write masks on format %d (%u wrong)", name, formats[i], bad);
      if (want.dualSrcBlend) {
         bad = run_blend(&t, formats[i], true);
         CHECK(bad == 0, "%s: dual-source factors on format %d (%u wrong)", name, formats[i],
               bad);
      }
   }
   if (want.independentBlend) {
      unsigned bad = run_mrt(&t);
      CHECK(bad == 0, "%s: independent blend states and write masks (%u wrong)", name, bad);
   }
   if (want.logicOp) {
      unsigned bad = run_logic(&t, VK_FORMAT_R8G8B8A8_UINT);
      CHECK(bad == 0, "%s: logic ops on R8G8B8A8_UINT (%u wrong)", name, bad);
      bad = run_logic(&t, VK_FORMAT_R8G8B8A8_UNORM);
      CHECK(bad == 0, "%s: logic ops on R8G8B8A8_UNORM (%u wrong)", name, bad);
   }
   if (want.fragmentStoresAndAtomics && want.vertexPipelineStoresAndAtomics)
      run_fragment_shaders(&t);
   vkt_finish(&t);
}

int
main(void)
{
   run_all(VKT_SHALE);
   run_all(VKT_LAVAPIPE);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
