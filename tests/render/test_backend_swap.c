/* The fragment back end's routines compiled in the background (issue 12;
 * sd_graphics_pipeline.c, sd_optimizer.c), on Shale, through the loader
 * with the validation layer. SHALE_BACKEND_DELAY_MS holds each background
 * compile back for 2 s, so that the draws right after creation find the
 * routines missing for certain (SHALE_DEBUG=info logs, counted with
 * tests/common/capture.h, say when each routine is in place). What is
 * held here:
 *  - with SHALE_FRAGMENT_BACKEND=background (draws leave the routines to
 *    the background, the C back end running meanwhile): creating a pipeline whose colour (blended RGBA8) and depth/stencil
 *    (D32, LESS, written) routines nobody compiled yet runs no LLVM for
 *    them: both are queued for the background, and the creation log has
 *    no back-end "LLVM compile ... ms" line;
 *  - a draw made before either routine is in place, and the same draw made
 *    once both are (the log says so), leave bit-identical colour and depth
 *    bytes, which are also those of the same pipeline with the C back end
 *    only (SHALE_FRAGMENT_BACKEND=c) and with the routines compiled at
 *    creation (=sync, which finds them in the compiler now); the scenes
 *    blends overlapping, depth-tested, translucent triangles, so the
 *    routines do real work;
 *  - by default, the first draw made while the routines wait in the
 *    background compiles them itself ("compiled for a draw"), the
 *    background then compiles nothing, the next draw nothing either, and
 *    both draws' bytes are the C back end's;
 *  - routines still pending are written by vkGetPipelineCacheData and
 *    carried by vkMergePipelineCaches: a merged cache's data, written
 *    before the background compiled them, links both on a fresh device
 *    (no LLVM), and their draw gives the C back end's bytes;
 *  - a pipeline destroyed while its background compile waits, and one left
 *    pending at device destruction, are safe (no routine is put in place
 *    for the first; the device goes without waiting out the delay; the
 *    ASan build checks the memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "pos_color_vert_spv.h"
#include "smooth_color_frag_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)

#define W 48
#define H 40
#define DELAY_MS 2000

/* Translucent triangles crossing at several depths. */
static const struct draw_vertex tris[] = {
   { { -0.9f, -0.9f, 0.6f, 1.0f }, { 1.0f, 0.2f, 0.1f, 0.7f } },
   { { 0.8f, -0.7f, 0.2f, 1.0f }, { 0.1f, 0.9f, 0.3f, 0.4f } },
   { { -0.2f, 0.9f, 0.4f, 1.0f }, { 0.2f, 0.3f, 1.0f, 0.9f } },
   { { -0.8f, 0.6f, 0.1f, 1.0f }, { 0.9f, 0.9f, 0.1f, 0.35f } },
   { { 0.9f, 0.8f, 0.7f, 1.0f }, { 0.1f, 0.8f, 0.9f, 0.55f } },
   { { 0.1f, -0.9f, 0.5f, 1.0f }, { 0.7f, 0.1f, 0.8f, 0.8f } },
   { { -0.5f, -0.2f, 0.3f, 1.0f }, { 0.5f, 0.5f, 0.5f, 0.25f } },
   { { 0.6f, 0.1f, 0.3f, 1.0f }, { 1.0f, 1.0f, 1.0f, 0.6f } },
   { { 0.0f, 0.7f, 0.05f, 1.0f }, { 0.0f, 0.4f, 0.2f, 0.5f } },
};
#define NV (sizeof(tris) / sizeof(tris[0]))

struct ctx {
   struct vkt t;
   struct draw_target dt;
   struct vkt_buffer vb;
};

/* What stderr received since capture_begin, without ending the capture
 * (the background thread logs while the test waits). Free it. */
static char *
capture_peek(struct capture *c)
{
   fflush(stderr);
   if (!c->file)
      return calloc(1, 1);
   int fd = fileno(c->file);
   off_t size = lseek(fd, 0, SEEK_END);
   char *text = calloc(1, size > 0 ? (size_t)size + 1 : 1);
   if (text && size > 0 && pread(fd, text, (size_t)size, 0) != (ssize_t)size)
      text[0] = '\0';
   return text;
}

/* Lines of log naming `what` after `subject` ("back end"). */
static unsigned
lines_with(const char *log, const char *subject, const char *what)
{
   unsigned n = 0;
   for (const char *p = log; p && (p = strstr(p, subject)); p++) {
      const char *eol = strchr(p, '\n');
      const char *w = strstr(p, what);
      n += w && (!eol || w < eol);
   }
   return n;
}

/* Back-end routines put in place by the background so far. */
static unsigned
peek_in_place(struct capture *c)
{
   char *log = capture_peek(c);
   unsigned n = lines_with(log, "back end", "routine in place, compiled in the background");
   free(log);
   return n;
}

static unsigned
peek_count(struct capture *c, const char *needle)
{
   char *log = capture_peek(c);
   unsigned n = count_of(log, needle);
   free(log);
   return n;
}

/* The pipeline with blending and the depth test, made with
 * SHALE_FRAGMENT_BACKEND set to mode (NULL: unset). Each variant has keys
 * of its own: 0 ALPHA over and LESS, 1 ADD and GREATER, 2 ONE_MINUS_SRC_COLOR
 * and LESS_OR_EQUAL, 3 DST_ALPHA and NOT_EQUAL; made through `cache` (may be
 * VK_NULL_HANDLE). */
static bool
make_pipeline_in(struct ctx *c, const char *mode, int variant, VkPipelineCache cache,
                 struct draw_pipeline *p)
{
   static const VkCompareOp compare[] = { VK_COMPARE_OP_LESS, VK_COMPARE_OP_GREATER,
                                          VK_COMPARE_OP_LESS_OR_EQUAL, VK_COMPARE_OP_NOT_EQUAL };
   static const VkBlendFactor dst[] = { VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_FACTOR_ONE,
                                        VK_BLEND_FACTOR_ONE_MINUS_SRC_COLOR,
                                        VK_BLEND_FACTOR_DST_ALPHA };
   if (mode)
      setenv("SHALE_FRAGMENT_BACKEND", mode, 1);
   else
      unsetenv("SHALE_FRAGMENT_BACKEND");
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = compare[variant],
   };
   VkPipelineColorBlendAttachmentState blend = {
      .blendEnable = VK_TRUE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
      .dstColorBlendFactor = dst[variant],
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = 0xf,
   };
   struct draw_pipeline_info pi;
   draw_vertex_info(&pi, pos_color_vert_spv, sizeof(pos_color_vert_spv), smooth_color_frag_spv,
                    sizeof(smooth_color_frag_spv));
   pi.depth_stencil = &ds;
   pi.blend = &blend;
   pi.dynamic_viewport_scissor = true;
   pi.cache = cache;
   VkResult r = draw_pipeline_create(&c->t, &c->dt, &pi, p);
   unsetenv("SHALE_FRAGMENT_BACKEND");
   return r == VK_SUCCESS && p->pipeline != VK_NULL_HANDLE;
}

static bool
make_pipeline(struct ctx *c, const char *mode, int variant, struct draw_pipeline *p)
{
   return make_pipeline_in(c, mode, variant, VK_NULL_HANDLE, p);
}

/* Draws the scene; out gets the colour then the depth bytes. */
static bool
draw(struct ctx *c, const struct draw_pipeline *p, uint8_t *out)
{
   VkCommandBuffer cb = draw_begin(&c->t, &c->dt, p, c->vb.buffer);
   vkCmdDraw(cb, NV, 1, 0, 0);
   if (draw_end(&c->t, &c->dt, cb) != VK_SUCCESS)
      return false;
   memcpy(out, c->dt.readback.map, (size_t)W * H * 8);
   return true;
}

static bool
ctx_init(struct ctx *c)
{
   memset(c, 0, sizeof(*c));
   if (!vkt_init(&c->t, &(struct vkt_options) { .driver = VKT_SHALE }))
      return false;
   c->dt = (struct draw_target) {
      .color_format = VK_FORMAT_R8G8B8A8_UNORM,
      .depth_format = VK_FORMAT_D32_SFLOAT,
      .width = W, .height = H,
      .clear_color = { .float32 = { 0.1f, 0.2f, 0.3f, 0.5f } },
      .clear_depth = 0.8f,
   };
   CHECK_VK(draw_target_create(&c->t, &c->dt));
   CHECK_VK(draw_upload(&c->t, tris, sizeof(tris), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &c->vb));
   return true;
}

static void
ctx_finish(struct ctx *c)
{
   vkt_buffer_destroy(&c->t, &c->vb);
   draw_target_destroy(&c->t, &c->dt);
   vkt_finish(&c->t);
}

static void
sleep_ms(unsigned ms)
{
   struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
   nanosleep(&ts, NULL);
}

static unsigned
bytes_differing(const uint8_t *a, const uint8_t *b, size_t n)
{
   unsigned d = 0;
   for (size_t i = 0; i < n; i++)
      d += a[i] != b[i];
   return d;
}

int
main(void)
{
   const char *dbg = getenv("SHALE_DEBUG");
   char flags[256];
   snprintf(flags, sizeof(flags), "%s%sinfo", dbg ? dbg : "", dbg && *dbg ? "," : "");
   setenv("SHALE_DEBUG", flags, 1);
   char delay[16];
   snprintf(delay, sizeof(delay), "%d", DELAY_MS);
   setenv("SHALE_BACKEND_DELAY_MS", delay, 1);
   unsetenv("SHALE_JIT_BASELINE");

   const size_t bytes = (size_t)W * H * 8;
   static uint8_t before[W * H * 8], after[W * H * 8], c_only[W * H * 8], sync[W * H * 8];
   struct ctx c;
   if (!ctx_init(&c)) {
      CHECK(false, "no Shale device");
      return check_finish();
   }

   struct capture cap;
   capture_begin(&cap);
   struct draw_pipeline p;
   bool made = make_pipeline(&c, "background", 0, &p);
   char *log = capture_peek(&cap);
   unsigned queued = count_of(log, "LLVM compile queued for the background");
   unsigned compiled = lines_with(log, "back end", "LLVM compile ") - queued;
   free(log);
   bool drawn_before = made && draw(&c, &p, before);
   unsigned in_place_at_first_draw = peek_in_place(&cap);
   /* Both routines in place (up to a minute on a loaded machine). */
   unsigned in_place = 0;
   for (int i = 0; i < 1200 && in_place < 2; i++) {
      sleep_ms(50);
      in_place = peek_in_place(&cap);
   }
   bool drawn_after = made && draw(&c, &p, after);
   log = capture_end(&cap);
   free(log);

   CHECK(made, "pipeline created");
   CHECK(queued == 2 && compiled == 0,
         "creation: %u back-end routines queued for the background (want 2), %u compiled at "
         "creation (want 0)", queued, compiled);
   CHECK(drawn_before && in_place_at_first_draw == 0,
         "the first draw ran before any routine was in place (%u in place)",
         in_place_at_first_draw);
   CHECK(in_place == 2, "both routines in place after the delay (%u)", in_place);
   CHECK(drawn_after, "the draw after the swap");

   /* The scene is not trivial: blended pixels of several colours. */
   unsigned changed = 0;
   for (unsigned i = 0; i < W * H; i++)
      changed += before[i * 4] != before[4 * (W * H - 1)] || before[i * 4 + 1] != before[1];
   CHECK(changed > W * H / 4, "the scene covers %u pixels with varying colours", changed);
   CHECK(bytes_differing(before, after, bytes) == 0,
         "the C back end before the swap and the compiled routines after it: %u bytes differ",
         bytes_differing(before, after, bytes));

   struct draw_pipeline pc, ps;
   CHECK(make_pipeline(&c, "c", 0, &pc) && draw(&c, &pc, c_only),
         "the C back end only (SHALE_FRAGMENT_BACKEND=c)");
   CHECK(bytes_differing(before, c_only, bytes) == 0, "against the C back end only: %u bytes",
         bytes_differing(before, c_only, bytes));
   capture_begin(&cap);
   bool sync_made = make_pipeline(&c, "sync", 0, &ps);
   log = capture_end(&cap);
   CHECK(sync_made && lines_with(log, "back end", "memory cache hit") == 2 &&
            count_of(log, "queued for the background") == 0,
         "=sync: both routines found in the compiler at creation");
   free(log);
   CHECK(sync_made && draw(&c, &ps, sync) && bytes_differing(before, sync, bytes) == 0,
         "against the routines compiled at creation: %u bytes",
         bytes_differing(before, sync, bytes));
   draw_pipeline_destroy(&c.t, &pc);
   draw_pipeline_destroy(&c.t, &ps);

   /* The default: the first draw replayed before the background got to
    * the routines (held in its delay) compiles them on the queue thread,
    * and runs them; same pixels as the C back end's. The pipeline goes
    * right after, while the background's job may still hold the slot. */
   static uint8_t claimed[W * H * 8], claimed_c[W * H * 8];
   struct draw_pipeline pcc, pd;
   CHECK(make_pipeline(&c, "c", 2, &pcc) && draw(&c, &pcc, claimed_c),
         "variant 2, the C back end only");
   draw_pipeline_destroy(&c.t, &pcc);
   capture_begin(&cap);
   bool d_made = make_pipeline(&c, NULL, 2, &pd);
   unsigned d_queued = peek_count(&cap, "LLVM compile queued for the background");
   bool d_drawn = d_made && draw(&c, &pd, claimed);
   unsigned d_for_draw = peek_count(&cap, "routine in place, compiled for a draw");
   unsigned d_background = peek_count(&cap, "routine in place, compiled in the background");
   bool d_again = d_drawn && draw(&c, &pd, after);
   draw_pipeline_destroy(&c.t, &pd);
   unsigned d_for_draw_after = peek_count(&cap, "compiled for a draw");
   log = capture_end(&cap);
   free(log);
   CHECK(d_made && d_queued == 2, "default policy: %u routines queued at creation (want 2)",
         d_queued);
   CHECK(d_drawn && d_for_draw == 2 && d_background == 0,
         "the first draw compiled both routines itself: %u for the draw (want 2), %u in the "
         "background (want 0)", d_for_draw, d_background);
   CHECK(d_again && d_for_draw_after == 2, "the second draw compiled nothing (%u)",
         d_for_draw_after);
   CHECK(bytes_differing(claimed, claimed_c, bytes) == 0 &&
            bytes_differing(after, claimed_c, bytes) == 0,
         "the draws with the routines compiled for them against the C back end: %u, %u bytes",
         bytes_differing(claimed, claimed_c, bytes), bytes_differing(after, claimed_c, bytes));
   changed = 0;
   for (unsigned i = 0; i < W * H; i++)
      changed += claimed[i * 4] != claimed[4 * (W * H - 1)];
   CHECK(changed > W * H / 4, "variant 2's scene covers %u pixels", changed);

   /* Routines still pending (held in the background's delay, draws
    * leaving them there) are written by vkGetPipelineCacheData and carried
    * by vkMergePipelineCaches: their entries go from the pipeline's cache
    * into another by a merge, whose data, written at once, holds them;
    * checked on a fresh device below. */
   static uint8_t pend_c[W * H * 8], pend_linked[W * H * 8];
   VkPipelineCache pcache = draw_make_cache(&c.t, NULL, 0), merged = draw_make_cache(&c.t, NULL, 0);
   struct draw_pipeline pp;
   capture_begin(&cap);
   bool p_made = make_pipeline_in(&c, "background", 3, pcache, &pp);
   unsigned p_queued = peek_count(&cap, "LLVM compile queued for the background");
   CHECK_VK(vkMergePipelineCaches(c.t.device, merged, 1, &pcache));
   size_t data_size = 0;
   CHECK_VK(vkGetPipelineCacheData(c.t.device, merged, &data_size, NULL));
   uint8_t *data = malloc(data_size ? data_size : 1);
   CHECK(data && vkGetPipelineCacheData(c.t.device, merged, &data_size, data) == VK_SUCCESS,
         "the merged cache's data (%zu bytes)", data_size);
   unsigned p_background = peek_count(&cap, "routine in place, compiled in the background");
   bool p_drawn = p_made && draw(&c, &pp, pend_c);   /* the C back end's bytes */
   log = capture_end(&cap);
   free(log);
   CHECK(p_made && p_queued == 2 && p_background == 0,
         "variant 3: %u routines queued (want 2), %u compiled in the background before the "
         "data was written (want 0)", p_queued, p_background);
   CHECK(p_drawn, "variant 3 drawn");
   draw_pipeline_destroy(&c.t, &pp);
   vkDestroyPipelineCache(c.t.device, pcache, NULL);
   vkDestroyPipelineCache(c.t.device, merged, NULL);

   /* Destroyed while its compile waits: nothing put in place for it. */
   struct draw_pipeline gone;
   capture_begin(&cap);
   bool gone_made = make_pipeline(&c, NULL, 1, &gone);
   unsigned gone_queued = peek_count(&cap, "LLVM compile queued for the background");
   draw_pipeline_destroy(&c.t, &gone);
   sleep_ms(DELAY_MS + 500);
   unsigned gone_in_place = peek_in_place(&cap);
   log = capture_end(&cap);
   free(log);
   CHECK(gone_made && gone_queued == 2 && gone_in_place == 0,
         "a pipeline destroyed while its routines wait: %u queued, %u compiled after all",
         gone_queued, gone_in_place);

   /* Left pending at device destruction: the teardown does not wait out
    * the delay. */
   struct draw_pipeline pending;
   CHECK(make_pipeline(&c, NULL, 1, &pending), "a pipeline left pending");
   draw_pipeline_destroy(&c.t, &p);
   struct timespec t0, t1;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   draw_pipeline_destroy(&c.t, &pending);
   ctx_finish(&c);
   clock_gettime(CLOCK_MONOTONIC, &t1);
   double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
   CHECK(ms < DELAY_MS, "device destroyed with a routine pending in %.0f ms", ms);

   /* A fresh device (and compiler): the data written while variant 3's
    * routines were pending links them, no LLVM compile, same bytes. */
   if (data && ctx_init(&c)) {
      VkPipelineCache from = draw_make_cache(&c.t, data, data_size);
      capture_begin(&cap);
      bool l_made = make_pipeline_in(&c, NULL, 3, from, &pp);
      log = capture_end(&cap);
      unsigned linked = lines_with(log, "back end", "pipeline cache data hit (linked)");
      unsigned llvm = lines_with(log, "back end", "LLVM compile");
      free(log);
      CHECK(l_made && linked == 2 && llvm == 0,
            "from the data: %u routines linked (want 2), %u LLVM compiles or queued (want 0)",
            linked, llvm);
      CHECK(l_made && draw(&c, &pp, pend_linked) &&
               bytes_differing(pend_c, pend_linked, bytes) == 0,
            "the linked routines against the C back end: %u bytes differ",
            bytes_differing(pend_c, pend_linked, bytes));
      draw_pipeline_destroy(&c.t, &pp);
      vkDestroyPipelineCache(c.t.device, from, NULL);
      ctx_finish(&c);
   } else {
      CHECK(false, "a second device for the cache data");
   }
   free(data);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
