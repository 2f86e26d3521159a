/* Graphics pipelines in VkPipelineCache data, creation feedback and
 * derivative pipelines, through the loader with the validation layer. */
/*
 * What is held here (Shale only; SHALE_DEBUG=info logs counted with
 * tests/common/capture.h):
 *  - a graphics pipeline made through a VkPipelineCache draws the same
 *    pixels as the same pipeline made without one (and covers the
 *    triangle);
 *  - VK_EXT_pipeline_creation_feedback (when offered): per-stage feedback
 *    in pStages order (fragment first here): the vertex shader already in
 *    the cache is an application cache hit, the new fragment shader is not,
 *    and the pipeline's own feedback is no hit;
 *  - derivative pipelines: a base with ALLOW_DERIVATIVES and a derivative
 *    by basePipelineIndex in one call, one by basePipelineHandle in
 *    another, all drawing the reference pixels;
 *  - vkGetPipelineCacheData, the device destroyed (the shader runtime and
 *    its memory cache with it), a new device and cache from the data: the
 *    same pipeline links both stages from the data ("pipeline cache data
 *    hit", no LLVM compilation), feedback says application cache hit for
 *    each stage and the pipeline, and the draw gives identical pixels; a
 *    derivative pair on that device too;
 *  - the fragment back end's routines (colour, and depth/stencil: the
 *    target has a D32 attachment with a LESS test) travel in the data too:
 *    on the first device the routines the first pipeline compiled are
 *    cache hits for the second; on the new device they are linked from the
 *    data ("pipeline cache data hit", no LLVM compile of any kind); with
 *    their blobs damaged in the data, a third device refuses them, compiles
 *    both again and still links the shaders, and draws the same pixels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "flat_color_frag_spv.h"
#include "pos_color_vert_spv.h"
#include "smooth_color_frag_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)

#define W 32
#define H 32

struct vertex {
   float pos[4];
   float color[4];
};

static const struct vertex tri[3] = {
   { { -0.8f, -0.9f, 0.5f, 1.0f }, { 1.0f, 0.0f, 0.0f, 1.0f } },
   { { 0.9f, -0.2f, 0.5f, 1.0f }, { 0.0f, 1.0f, 0.0f, 1.0f } },
   { { -0.3f, 0.85f, 0.5f, 1.0f }, { 0.0f, 0.0f, 1.0f, 1.0f } },
};

struct ctx {
   struct vkt t;
   bool feedback;
   struct draw_target dt;
   VkShaderModule vs, fs, fs_flat;
   VkPipelineLayout layout;
   struct vkt_buffer vb;
};

static bool
ctx_init(struct ctx *c)
{
   memset(c, 0, sizeof(*c));
   struct vkt_options probe = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&c->t, &probe))
      return false;
   c->feedback = vkt_has_device_extension(c->t.pdev, "VK_EXT_pipeline_creation_feedback");
   vkt_finish(&c->t);
   const char *exts[] = { "VK_EXT_pipeline_creation_feedback" };
   struct vkt_options opts = {
      .driver = VKT_SHALE,
      .device_extensions = exts,
      .device_extension_count = c->feedback ? 1 : 0,
   };
   if (!vkt_init(&c->t, &opts))
      return false;
   struct vkt *t = &c->t;
   c->dt = (struct draw_target) {
      .color_format = VK_FORMAT_R8G8B8A8_UNORM,
      .depth_format = VK_FORMAT_D32_SFLOAT,
      .clear_depth = 1.0f,
      .width = W,
      .height = H,
      .clear_color = { .float32 = { 0.0f, 0.0f, 0.0f, 0.0f } },
   };
   VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
   bool ok = draw_target_create(t, &c->dt) == VK_SUCCESS &&
             vkt_shader_module(t, pos_color_vert_spv, sizeof(pos_color_vert_spv), &c->vs) ==
                VK_SUCCESS &&
             vkt_shader_module(t, smooth_color_frag_spv, sizeof(smooth_color_frag_spv),
                               &c->fs) == VK_SUCCESS &&
             vkt_shader_module(t, flat_color_frag_spv, sizeof(flat_color_frag_spv),
                               &c->fs_flat) == VK_SUCCESS &&
             vkCreatePipelineLayout(t->device, &plci, NULL, &c->layout) == VK_SUCCESS &&
             draw_upload(t, tri, sizeof(tri), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &c->vb) ==
                VK_SUCCESS;
   CHECK(ok, "device objects");
   return ok;
}

static void
ctx_finish(struct ctx *c)
{
   struct vkt *t = &c->t;
   vkt_buffer_destroy(t, &c->vb);
   vkDestroyPipelineLayout(t->device, c->layout, NULL);
   vkDestroyShaderModule(t->device, c->vs, NULL);
   vkDestroyShaderModule(t->device, c->fs, NULL);
   vkDestroyShaderModule(t->device, c->fs_flat, NULL);
   draw_target_destroy(t, &c->dt);
   vkt_finish(t);
}

/* What differs between the pipelines made here. */
struct pdesc {
   bool fs_first;                 /* pStages: fragment, then vertex */
   bool flat;                     /* flat_color.frag instead of smooth_color.frag */
   VkPipelineCreateFlags flags;
   VkPipeline base_handle;
   int32_t base_index;
   VkPipelineCreationFeedback *fb;        /* NULL: no feedback asked */
   VkPipelineCreationFeedback *stage_fb;  /* 2, in pStages order */
};

/* Creates `count` pipelines in one vkCreateGraphicsPipelines call. */
static VkResult
make_pipelines(struct ctx *c, VkPipelineCache cache, uint32_t count, const struct pdesc *d,
               VkPipeline *out)
{
   static struct draw_pipeline_state st[4];
   static const VkPipelineDepthStencilStateCreateInfo depth = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS,
   };
   VkPipelineCreationFeedbackCreateInfo fbi[4];
   VkGraphicsPipelineCreateInfo gci[4];
   const struct draw_pipeline_info info = {
      .stride = sizeof(struct vertex),
      .attrib_count = 2,
      .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
      .attrib_offset = { 0, 16 },
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = VK_CULL_MODE_NONE,
      .depth_stencil = &depth,
   };
   if (count > 4)
      return VK_ERROR_UNKNOWN;
   for (uint32_t i = 0; i < count; i++) {
      draw_pipeline_state_init(&st[i], &c->dt, &info, c->vs, d[i].flat ? c->fs_flat : c->fs,
                               c->layout);
      if (d[i].fs_first) {
         VkPipelineShaderStageCreateInfo vs = st[i].stages[0];
         st[i].stages[0] = st[i].stages[1];
         st[i].stages[1] = vs;
      }
      fbi[i] = (VkPipelineCreationFeedbackCreateInfo) {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO,
         .pPipelineCreationFeedback = d[i].fb,
         .pipelineStageCreationFeedbackCount = 2,
         .pPipelineStageCreationFeedbacks = d[i].stage_fb,
      };
      gci[i] = st[i].info;
      gci[i].pNext = d[i].fb ? &fbi[i] : NULL;
      gci[i].flags = d[i].flags;
      gci[i].basePipelineHandle = d[i].base_handle;
      gci[i].basePipelineIndex = d[i].base_index;
   }
   return vkCreateGraphicsPipelines(c->t.device, cache, count, gci, NULL, out);
}

static VkResult
make_pipeline(struct ctx *c, VkPipelineCache cache, const struct pdesc *d, VkPipeline *out)
{
   *out = VK_NULL_HANDLE;
   return make_pipelines(c, cache, 1, d, out);
}

/* Draws the triangle with `pipeline` into `pixels` (W * H RGBA8). */
static bool
draw(struct ctx *c, VkPipeline pipeline, uint8_t *pixels)
{
   memset(pixels, 0, W * H * 4);
   if (!pipeline)
      return false;
   struct draw_pipeline p = { .pipeline = pipeline };
   VkCommandBuffer cb = draw_begin(&c->t, &c->dt, &p, c->vb.buffer);
   vkCmdDraw(cb, 3, 1, 0, 0);
   if (draw_end(&c->t, &c->dt, cb) != VK_SUCCESS)
      return false;
   memcpy(pixels, c->dt.readback.map, W * H * 4);
   return true;
}

/* Pixels of `got` that differ from `want`, the first few printed. */
static unsigned
diff(const char *what, const uint8_t *got, const uint8_t *want)
{
   unsigned bad = 0;
   for (unsigned i = 0; i < W * H; i++)
      if (memcmp(got + i * 4, want + i * 4, 4) && bad++ < 4)
         fprintf(stderr, "%s: pixel (%u, %u) %u %u %u %u, expected %u %u %u %u\n", what, i % W,
                 i / W, got[i * 4], got[i * 4 + 1], got[i * 4 + 2], got[i * 4 + 3], want[i * 4],
                 want[i * 4 + 1], want[i * 4 + 2], want[i * 4 + 3]);
   return bad;
}

/* Lines of the driver's log that begin with `stage` ("pipeline: vertex
 * shader") and say `what`. */
static unsigned
lines_with(const char *log, const char *stage, const char *what)
{
   unsigned n = 0;
   for (const char *p = log; p && (p = strstr(p, stage)); p++) {
      const char *eol = strchr(p, '\n');
      const char *w = strstr(p, what);
      n += w && (!eol || w < eol);
   }
   return n;
}

/* Flips the last byte of every back-end routine's blob in Shale cache data
 * (header, "SHPC" preamble, entries of key[32], flags, size, blob padded to
 * 4: sd_pipeline_cache.h; flags 1 marks a back-end routine); returns how
 * many. */
static unsigned
damage_backend_blobs(uint8_t *data, size_t size)
{
   uint32_t header, count, flags, blob;
   if (size < 48)
      return 0;
   memcpy(&header, data, 4);
   if (header + 16 > size || memcmp(data + header, "SHPC", 4))
      return 0;
   memcpy(&count, data + header + 12, 4);
   size_t at = header + 16;
   unsigned n = 0;
   for (uint32_t i = 0; i < count && at + 40 <= size; i++) {
      memcpy(&flags, data + at + 32, 4);
      memcpy(&blob, data + at + 36, 4);
      if (at + 40 + blob > size)
         break;
      if (flags == 1 && blob) {
         data[at + 40 + blob - 1] ^= 0x5a;
         n++;
      }
      at += 40 + ((blob + 3) & ~3u);
   }
   return n;
}

#define HIT VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT
#define VALID VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT

/* Derivatives: a base and one by index in one call, one by handle in
 * another; all three draw `ref`. */
static void
test_derivatives(struct ctx *c, VkPipelineCache cache, const uint8_t *ref, const char *when)
{
   struct pdesc d[2] = {
      { .flags = VK_PIPELINE_CREATE_ALLOW_DERIVATIVES_BIT, .base_index = -1 },
      { .flags = VK_PIPELINE_CREATE_DERIVATIVE_BIT, .base_index = 0, .fs_first = true },
   };
   VkPipeline p[3] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
   CHECK(make_pipelines(c, cache, 2, d, p) == VK_SUCCESS && p[0] && p[1],
         "%s: base and derivative (basePipelineIndex) in one call", when);
   struct pdesc h = {
      .flags = VK_PIPELINE_CREATE_DERIVATIVE_BIT | VK_PIPELINE_CREATE_ALLOW_DERIVATIVES_BIT,
      .base_handle = p[0],
      .base_index = -1,
   };
   CHECK(make_pipeline(c, VK_NULL_HANDLE, &h, &p[2]) == VK_SUCCESS && p[2],
         "%s: derivative (basePipelineHandle)", when);
   static const char *const names[3] = { "base", "derivative by index", "derivative by handle" };
   uint8_t img[W * H * 4];
   for (unsigned i = 0; i < 3; i++) {
      char what[96];
      snprintf(what, sizeof(what), "%s: %s", when, names[i]);
      CHECK(draw(c, p[i], img) && diff(what, img, ref) == 0, "%s draws the reference", what);
      vkDestroyPipeline(c->t.device, p[i], NULL);
   }
}

int
main(void)
{
   const char *dbg = getenv("SHALE_DEBUG");
   char flags[256];
   snprintf(flags, sizeof(flags), "%s%sinfo", dbg ? dbg : "", dbg && *dbg ? "," : "");
   setenv("SHALE_DEBUG", flags, 1);

   static uint8_t ref[W * H * 4], img[W * H * 4];
   struct ctx c;
   if (!ctx_init(&c)) {
      CHECK(false, "no Shale device");
      return check_finish();
   }
   if (!c.feedback)
      fprintf(stderr, "VK_EXT_pipeline_creation_feedback not offered: feedback not checked\n");
   struct vkt *t = &c.t;
   VkPipelineCache cache = draw_make_cache(t, NULL, 0);

   /* The vertex shader enters the cache with another fragment shader. */
   VkPipeline flat = VK_NULL_HANDLE, cached = VK_NULL_HANDLE, uncached = VK_NULL_HANDLE;
   CHECK_VK(make_pipeline(&c, cache, &(struct pdesc) { .flat = true, .base_index = -1 }, &flat));

   /* pStages: fragment, vertex. Only the fragment shader is compiled. */
   VkPipelineCreationFeedback fb = { 0 }, sfb[2] = { { 0 }, { 0 } };
   struct pdesc d = { .fs_first = true, .base_index = -1 };
   if (c.feedback) {
      d.fb = &fb;
      d.stage_fb = sfb;
   }
   struct capture cap;
   capture_begin(&cap);
   VkResult r = make_pipeline(&c, cache, &d, &cached);
   char *log = capture_end(&cap);
   CHECK(r == VK_SUCCESS, "graphics pipeline through the cache");
   CHECK(count_of(log, "LLVM compile") == 1 &&
            lines_with(log, "pipeline: fragment shader", "LLVM compile") == 1 &&
            lines_with(log, "pipeline: vertex shader", "pipeline cache hit in") == 1,
         "first device: the fragment shader compiled, the vertex shader a cache hit");
   CHECK(lines_with(log, "pipeline: colour back end", "pipeline cache hit in") == 1 &&
            lines_with(log, "pipeline: depth/stencil back end", "pipeline cache hit in") == 1,
         "first device: both back-end routines cache hits");
   free(log);
   if (c.feedback) {
      CHECK((sfb[0].flags & VALID) && !(sfb[0].flags & HIT),
            "feedback, pStages[0] (fragment, compiled): flags %#x", sfb[0].flags);
      CHECK((sfb[1].flags & VALID) && (sfb[1].flags & HIT),
            "feedback, pStages[1] (vertex, in the cache): flags %#x", sfb[1].flags);
      CHECK((fb.flags & VALID) && !(fb.flags & HIT), "feedback, pipeline: flags %#x", fb.flags);
   }

   /* The same pipeline without a cache (the runtime's memory cache). */
   CHECK_VK(make_pipeline(&c, VK_NULL_HANDLE, &(struct pdesc) { .base_index = -1 }, &uncached));
   CHECK(draw(&c, uncached, ref), "draw without a cache");
   unsigned covered = 0;
   for (unsigned i = 0; i < W * H; i++)
      covered += ref[i * 4 + 3] == 255;
   CHECK(covered > W * H / 5 && covered < W * H * 4 / 5, "the triangle covers %u pixels", covered);
   CHECK(draw(&c, cached, img) && diff("through the cache", img, ref) == 0,
         "the pipeline made through the cache draws the same pixels");

   test_derivatives(&c, cache, ref, "first device");

   size_t size = 0;
   CHECK_VK(vkGetPipelineCacheData(t->device, cache, &size, NULL));
   uint8_t *data = malloc(size ? size : 1);
   CHECK(data && vkGetPipelineCacheData(t->device, cache, &size, data) == VK_SUCCESS,
         "pipeline cache data (%zu bytes)", size);
   vkDestroyPipeline(t->device, flat, NULL);
   vkDestroyPipeline(t->device, cached, NULL);
   vkDestroyPipeline(t->device, uncached, NULL);
   vkDestroyPipelineCache(t->device, cache, NULL);
   ctx_finish(&c);

   /* A new device (no Shale device in between: the memory cache is gone)
    * and a cache from the data. */
   if (!ctx_init(&c)) {
      free(data);
      return check_finish();
   }
   t = &c.t;
   cache = draw_make_cache(t, data, size);
   memset(&fb, 0, sizeof(fb));
   memset(sfb, 0, sizeof(sfb));
   cached = VK_NULL_HANDLE;
   capture_begin(&cap);
   r = make_pipeline(&c, cache, &d, &cached);
   log = capture_end(&cap);
   CHECK(r == VK_SUCCESS, "graphics pipeline from the cache data");
   unsigned compiles = count_of(log, "LLVM compile");
   unsigned hits = count_of(log, "pipeline cache data hit");
   unsigned vs_hit = lines_with(log, "pipeline: vertex shader", "pipeline cache data hit");
   unsigned fs_hit = lines_with(log, "pipeline: fragment shader", "pipeline cache data hit");
   unsigned color_hit = lines_with(log, "pipeline: colour back end", "pipeline cache data hit");
   unsigned ds_hit = lines_with(log, "pipeline: depth/stencil back end", "pipeline cache data hit");
   free(log);
   CHECK(compiles == 0 && hits == 4 && vs_hit == 1 && fs_hit == 1 && color_hit == 1 &&
            ds_hit == 1,
         "reload: %u LLVM compilations, %u data hits (vertex %u, fragment %u, colour back "
         "end %u, depth/stencil back end %u)", compiles, hits, vs_hit, fs_hit, color_hit,
         ds_hit);
   if (c.feedback) {
      CHECK((sfb[0].flags & VALID) && (sfb[0].flags & HIT), "reload feedback, pStages[0]: %#x",
            sfb[0].flags);
      CHECK((sfb[1].flags & VALID) && (sfb[1].flags & HIT), "reload feedback, pStages[1]: %#x",
            sfb[1].flags);
      CHECK((fb.flags & VALID) && (fb.flags & HIT), "reload feedback, pipeline: %#x", fb.flags);
   }
   CHECK(draw(&c, cached, img) && diff("from the cache data", img, ref) == 0,
         "the pipeline from the cache data draws the same pixels");
   test_derivatives(&c, cache, ref, "second device");
   vkDestroyPipeline(t->device, cached, NULL);
   vkDestroyPipelineCache(t->device, cache, NULL);
   ctx_finish(&c);

   /* Damaged back-end blobs (their last byte flipped: the digest fails)
    * on a third device: both routines are compiled again, the shaders
    * still link from the data, and the pixels stay the same. */
   unsigned damaged = damage_backend_blobs(data, size);
   CHECK(damaged == 2, "%u back-end entries in the cache data", damaged);
   if (ctx_init(&c)) {
      t = &c.t;
      cache = draw_make_cache(t, data, size);
      cached = VK_NULL_HANDLE;
      capture_begin(&cap);
      r = make_pipeline(&c, cache, &d, &cached);
      log = capture_end(&cap);
      CHECK(r == VK_SUCCESS, "graphics pipeline from damaged cache data");
      unsigned refused = count_of(log, "back-end blob does not load");
      unsigned recompiled = lines_with(log, "back end", "LLVM compile");
      unsigned shader_hits = lines_with(log, "shader", "pipeline cache data hit");
      free(log);
      CHECK(refused == 2 && recompiled == 2 && shader_hits == 2,
            "damaged routines: %u refused, %u compiled again; %u shaders linked", refused,
            recompiled, shader_hits);
      CHECK(draw(&c, cached, img) && diff("damaged cache data", img, ref) == 0,
            "the pipeline from damaged cache data draws the same pixels");
      vkDestroyPipeline(t->device, cached, NULL);
      vkDestroyPipelineCache(t->device, cache, NULL);
      ctx_finish(&c);
   }
   free(data);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
