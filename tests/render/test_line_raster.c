/* VK_EXT_line_rasterization: RECTANGULAR (strict) lines of widths 1, 2.5
 * and 4.25 and BRESENHAM lines of widths 1 and 2.75 (rounded to 3), one line per 16x16 cell of a
 * 128x128 target (random sub-pixel ends, plus horizontal, vertical and
 * diagonal ones), on Shale and lavapipe, checked pixel by pixel against
 * references written from the spec: a strict line covers the pixel
 * centres inside the rectangle of its width centred on the segment; a
 * Bresenham line has a fragment at each pixel whose diamond
 * |x - xc| + |y - yc| < 1/2 the segment crosses and leaves (diamond exit),
 * replicated into columns (rows, y-major) of round(width) fragments.
 * Pixel centres within 1/64 of a boundary of either rule are not checked
 * (the spec lets implementations perturb the ends by a tiny amount). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "zink_pv_frag_spv.h"
#include "zink_pv_vert_spv.h"

#define W 128
#define H 128
#define CELLS 64
#define EPS (1.0 / 64)

struct seg {
   double ax, ay, bx, by;
};

static struct seg segs[CELLS];
static uint32_t rng = 0x51ab;

static double
rnd_sub(double lo, double hi)
{
   rng = rng * 1664525u + 1013904223u;
   double u = (double)(rng >> 8) / (double)(1u << 24);
   return floor((lo + u * (hi - lo)) * 256.0) / 256.0;
}

static void
make_segs(void)
{
   for (int c = 0; c < CELLS; c++) {
      double ox = 16.0 * (c % 8), oy = 16.0 * (c / 8);
      struct seg s;
      switch (c) {
      case 0: s = (struct seg) { 4.0, 8.0, 12.0, 8.0 }; break;         /* horizontal on centres' edge */
      case 1: s = (struct seg) { 4.3, 7.7, 12.6, 7.7 }; break;
      case 2: s = (struct seg) { 8.2, 4.1, 8.2, 12.9 }; break;         /* vertical */
      case 3: s = (struct seg) { 4.25, 4.25, 11.75, 11.75 }; break;    /* diagonal */
      case 4: s = (struct seg) { 12.5, 4.125, 4.0625, 11.5 }; break;
      default:
         s = (struct seg) { rnd_sub(4, 12), rnd_sub(4, 12), rnd_sub(4, 12), rnd_sub(4, 12) };
         break;
      }
      s.ax += ox, s.bx += ox, s.ay += oy, s.by += oy;
      segs[c] = s;
   }
}

/* 1: covered, 0: not, -1: too close to call. */
static int
ref_rect(const struct seg *s, double w, double x, double y)
{
   double dx = s->bx - s->ax, dy = s->by - s->ay, l = sqrt(dx * dx + dy * dy);
   if (l == 0)
      return 0;
   double along = ((x - s->ax) * dx + (y - s->ay) * dy) / l;
   double across = fabs((x - s->ax) * -dy + (y - s->ay) * dx) / l;
   if (fabs(along) < EPS || fabs(along - l) < EPS || fabs(across - w / 2) < EPS)
      return -1;
   return along > 0 && along < l && across < w / 2;
}

static double
l1_seg(const struct seg *s, double xc, double yc)
{
   double best = fmin(fabs(s->ax - xc) + fabs(s->ay - yc), fabs(s->bx - xc) + fabs(s->by - yc));
   double dx = s->bx - s->ax, dy = s->by - s->ay;
   if (dx != 0) {
      double t = (xc - s->ax) / dx;
      if (t > 0 && t < 1)
         best = fmin(best, fabs(s->ay + t * dy - yc));
   }
   if (dy != 0) {
      double t = (yc - s->ay) / dy;
      if (t > 0 && t < 1)
         best = fmin(best, fabs(s->ax + t * dx - xc));
   }
   return best;
}

static int
ref_bresenham1(const struct seg *s, double x, double y)
{
   double d = l1_seg(s, x, y), e = fabs(s->bx - x) + fabs(s->by - y);
   if (fabs(d - 0.5) < EPS || fabs(e - 0.5) < EPS)
      return -1;
   /* The diagonal case's segment runs through diamond corners: every
    * pixel it touches is a tie. */
   return d < 0.5 && e >= 0.5;
}

/* Width w (an odd integer here): the width-1 fragments replicated into
 * columns (x-major) or rows of w fragments centred on them. */
static int
ref_bresenham(const struct seg *s, int w, double x, double y)
{
   bool x_major = fabs(s->bx - s->ax) >= fabs(s->by - s->ay);
   int any = 0;
   for (int k = -(w / 2); k <= w / 2; k++) {
      int r = ref_bresenham1(s, x_major ? x : x + k, x_major ? y + k : y);
      if (r < 0)
         return -1;
      any |= r;
   }
   return any;
}

struct lcase {
   const char *name;
   VkLineRasterizationModeEXT mode;
   float width;
};

static const struct lcase cases[] = {
   { "rectangular, width 1", VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT, 1.0f },
   { "rectangular, width 2.5", VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT, 2.5f },
   { "rectangular, width 4.25", VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT, 4.25f },
   { "bresenham, width 1", VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT, 1.0f },
   /* 2.75 rounds to 3 */
   { "bresenham, width 2.75", VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT, 2.75f },
};

static bool
draw(struct vkt *t, const struct lcase *lc, uint32_t *px)
{
   const char *dn = vkt_driver_name(t->driver);
   struct draw_target dt = { .color_format = VK_FORMAT_R32_UINT, .width = W, .height = H };
   VkResult r = draw_target_create(t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   if (r != VK_SUCCESS)
      return false;
   VkPipelineRasterizationLineStateCreateInfoEXT ls = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_LINE_STATE_CREATE_INFO_EXT,
      .lineRasterizationMode = lc->mode,
   };
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .pNext = &ls,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .cullMode = VK_CULL_MODE_NONE,
      .lineWidth = lc->width,
   };
   struct draw_pipeline_info pi = {
      .vs = zink_pv_vert_spv, .vs_size = sizeof(zink_pv_vert_spv),
      .fs = zink_pv_frag_spv, .fs_size = sizeof(zink_pv_frag_spv),
      .stride = 8, .attrib_count = 1, .attrib_format = { VK_FORMAT_R32G32_SFLOAT },
      .topology = VK_PRIMITIVE_TOPOLOGY_LINE_LIST, .rasterization = &rs,
   };
   struct draw_pipeline p;
   r = draw_pipeline_create(t, &dt, &pi, &p);
   CHECK(r == VK_SUCCESS, "%s: pipeline: %d", dn, r);
   static float v[CELLS * 2][2];
   for (int c = 0; c < CELLS; c++) {
      v[2 * c][0] = (float)(segs[c].ax / W * 2.0 - 1.0);
      v[2 * c][1] = (float)(segs[c].ay / H * 2.0 - 1.0);
      v[2 * c + 1][0] = (float)(segs[c].bx / W * 2.0 - 1.0);
      v[2 * c + 1][1] = (float)(segs[c].by / H * 2.0 - 1.0);
   }
   struct vkt_buffer vb;
   r = draw_upload(t, v, sizeof(v), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   CHECK(r == VK_SUCCESS, "%s: vertex buffer", dn);
   VkCommandBuffer cb = draw_begin(t, &dt, &p, vb.buffer);
   vkCmdDraw(cb, CELLS * 2, 1, 0, 0);
   r = draw_end(t, &dt, cb);
   CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);
   memcpy(px, dt.readback.map, W * H * 4);
   vkt_buffer_destroy(t, &vb);
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
   return r == VK_SUCCESS;
}

/* Mismatches against the reference; *checked counts decided pixels. */
static unsigned
check_lines(const char *dn, const struct lcase *lc, const uint32_t *px, unsigned *checked)
{
   unsigned bad = 0;
   *checked = 0;
   for (uint32_t y = 0; y < H; y++) {
      for (uint32_t x = 0; x < W; x++) {
         int c = (int)(y / 16) * 8 + (int)(x / 16);
         const struct seg *s = &segs[c];
         double xc = x + 0.5, yc = y + 0.5;
         int want = lc->mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT
                       ? ref_bresenham(s, (int)floorf(lc->width + 0.5f), xc, yc)
                       : ref_rect(s, lc->width, xc, yc);
         if (want < 0)
            continue;
         (*checked)++;
         uint32_t v = px[y * W + x];
         int got = v != 0;
         bool ok = got == want && (!got || v == 2 * (uint32_t)c + 1);
         if (!ok && bad++ < 6)
            fprintf(stderr, "%s: %s: pixel (%u, %u) of line %d (%g,%g)-(%g,%g): %s (value %u)\n", dn,
                    lc->name, x, y, c, s->ax, s->ay, s->bx, s->by,
                    want ? "missing" : "extra", v);
      }
   }
   return bad;
}

static void
run_driver(enum vkt_driver which)
{
   VkPhysicalDeviceLineRasterizationFeaturesEXT lf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT };
   VkPhysicalDeviceLineRasterizationPropertiesEXT lp = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_PROPERTIES_EXT };
   VkPhysicalDeviceFeatures core;
   struct vkt_options o;
   struct vkt t;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME,
                             &lf, &lp, &core, &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE) {
      CHECK(has, "shale: VK_EXT_line_rasterization not offered");
      CHECK(lf.rectangularLines && lf.bresenhamLines, "shale: rectangular %u bresenham %u",
            lf.rectangularLines, lf.bresenhamLines);
      /* Not implemented, so not claimed. */
      CHECK(!lf.smoothLines && !lf.stippledRectangularLines && !lf.stippledBresenhamLines &&
               !lf.stippledSmoothLines, "shale: smooth or stippled lines claimed");
      CHECK(lp.lineSubPixelPrecisionBits == 8, "shale: lineSubPixelPrecisionBits %u",
            lp.lineSubPixelPrecisionBits);
      CHECK(core.wideLines, "shale: wideLines");
   }
   if (!has) {
      fprintf(stderr, "%s: no VK_EXT_line_rasterization, not run\n", dn);
      return;
   }
   static const char *const dexts[] = { VK_EXT_LINE_RASTERIZATION_EXTENSION_NAME };
   VkPhysicalDeviceLineRasterizationFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_LINE_RASTERIZATION_FEATURES_EXT,
      .rectangularLines = lf.rectangularLines,
      .bresenhamLines = lf.bresenhamLines,
   };
   VkPhysicalDeviceFeatures feats = { .wideLines = core.wideLines };
   o.device_extensions = dexts;
   o.device_extension_count = 1;
   o.device_pnext = &enable;
   o.features = &feats;
   CHECK(vkt_init(&t, &o), "%s: device with VK_EXT_line_rasterization", dn);
   static uint32_t px[W * H];
   for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      const struct lcase *lc = &cases[i];
      if ((lc->mode == VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT && !lf.rectangularLines) ||
          (lc->mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT && !lf.bresenhamLines) ||
          (lc->width != 1.0f && !core.wideLines)) {
         fprintf(stderr, "%s: %s: not supported, not run\n", dn, lc->name);
         continue;
      }
      bool ok = draw(&t, lc, px);
      CHECK(ok, "%s: %s: drawn", dn, lc->name);
      unsigned checked;
      unsigned bad = check_lines(dn, lc, px, &checked);
      CHECK(bad == 0, "%s: %s: %u of %u decided pixels differ from the reference", dn, lc->name,
            bad, checked);
      CHECK(checked > W * H * 9 / 10, "%s: %s: only %u pixels decided", dn, lc->name, checked);
   }
   vkt_finish(&t);
}

int
main(void)
{
   make_segs();
   run_driver(VKT_SHALE);
   run_driver(VKT_LAVAPIPE);
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}
