/* The fragment back end's routines compiled in the background (issue 12;
 * sd_graphics_pipeline.c, sd_optimizer.c), on Shale, through the loader
 * with the validation layer. SHALE_BACKEND_DELAY_MS holds each background
 * compile back for 2 s, so that the draws right after creation run the C
 * back end for certain (SHALE_DEBUG=info logs, counted with
 * tests/common/capture.h, say when each routine is in place). What is
 * held here:
 *  - creating a pipeline whose colour (blended RGBA8) and depth/stencil
 *    (D32, LESS, written) routines nobody compiled yet runs no LLVM for
 *    them: both are queued for the background, and the creation log has
 *    no back-end "LLVM compile ... ms" line;
 *  - a draw made before either routine is in place, and the same draw made
 *    once both are (the log says so), leave bit-identical colour and depth
 *    bytes, which are also those of the same pipeline with the C back end
 *    only (SHALE_FRAGMENT_BACKEND=c) and with the routines compiled at
 *    creation (=sync, which finds them in the compiler now); the scene
 *    blends overlapping, depth-tested, translucent triangles, so the
 *    routines do real work;
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

/* The pipeline with blending (ALPHA over, or ADD when add) and the depth
 * test, made with SHALE_FRAGMENT_BACKEND set to mode (NULL: unset). */
static bool
make_pipeline(struct ctx *c, const char *mode, bool add, struct draw_pipeline *p)
{
   if (mode)
      setenv("SHALE_FRAGMENT_BACKEND", mode, 1);
   else
      unsetenv("SHALE_FRAGMENT_BACKEND");
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = add ? VK_COMPARE_OP_GREATER : VK_COMPARE_OP_LESS,
   };
   VkPipelineColorBlendAttachmentState blend = {
      .blendEnable = VK_TRUE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
      .dstColorBlendFactor = add ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
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
   VkResult r = draw_pipeline_create(&c->t, &c->dt, &pi, p);
   unsetenv("SHALE_FRAGMENT_BACKEND");
   return r == VK_SUCCESS && p->pipeline != VK_NULL_HANDLE;
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
   bool made = make_pipeline(&c, NULL, false, &p);
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
   CHECK(make_pipeline(&c, "c", false, &pc) && draw(&c, &pc, c_only),
         "the C back end only (SHALE_FRAGMENT_BACKEND=c)");
   CHECK(bytes_differing(before, c_only, bytes) == 0, "against the C back end only: %u bytes",
         bytes_differing(before, c_only, bytes));
   capture_begin(&cap);
   bool sync_made = make_pipeline(&c, "sync", false, &ps);
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

   /* Destroyed while its compile waits: nothing put in place for it. */
   struct draw_pipeline gone;
   capture_begin(&cap);
   bool gone_made = make_pipeline(&c, NULL, true, &gone);
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
   CHECK(make_pipeline(&c, NULL, true, &pending), "a pipeline left pending");
   draw_pipeline_destroy(&c.t, &p);
   struct timespec t0, t1;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   draw_pipeline_destroy(&c.t, &pending);
   ctx_finish(&c);
   clock_gettime(CLOCK_MONOTONIC, &t1);
   double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
   CHECK(ms < DELAY_MS, "device destroyed with a routine pending in %.0f ms", ms);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
