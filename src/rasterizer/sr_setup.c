/* Primitive assembly, clipping, fixed-point setup and binning. */
#include "sr_front.h"

#include "util/su_thread_pool.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

/* Clip planes (bits of a vertex's clip code). */
enum {
   CLIP_NEAR = 1u << 0,       /* z >= 0 */
   CLIP_FAR = 1u << 1,        /* z <= w */
   CLIP_W = 1u << 2,          /* w > 0 */
   CLIP_GX0 = 1u << 3,        /* window x >= -guard band */
   CLIP_GX1 = 1u << 4,        /* window x <= guard band */
   CLIP_GY0 = 1u << 5,
   CLIP_GY1 = 1u << 6,
   CLIP_USER0 = 1u << 7,      /* ClipDistance[i] >= 0: bit 7 + i */
   CLIP_PLANES = 15,
   /* Reject-only codes: outside the view volume in x or y (never clipped
    * against: the scissor box takes care of them). */
   OUT_X0 = 1u << 16,
   OUT_X1 = 1u << 17,
   OUT_Y0 = 1u << 18,
   OUT_Y1 = 1u << 19,
};

#define MAX_POLY (3 + CLIP_PLANES)
/* Words of a clipped record: position to distances and the fragment
 * inputs (clip_words()). The record's later words are never read from a
 * clipped copy: transform feedback captures the shaded records before
 * clipping, and geom_prim() reads a geometry shader's PrimitiveId, Layer
 * and ViewportIndex from the unclipped provoking record. */
#define MAX_CLIP_WORDS (SR_V_DIST + 8 + SHALE_FS_INPUT_COMPONENTS)
/* Smallest w kept: window coordinates stay finite. */
#define W_MIN 1e-30f

/* Signed distance of a record to clip plane `p` (inside: >= 0). */
static float
plane_dist(const struct sr_vdraw *vd, const struct sr_viewport *vp, const float *r, unsigned p)
{
   const float x = r[SR_V_POS], y = r[SR_V_POS + 1], z = r[SR_V_POS + 2], w = r[SR_V_POS + 3];
   switch (p) {
   case 0: return z;
   case 1: return w - z;
   case 2: return w - W_MIN;
   case 3: return (float)(SR_GUARD_BAND * (double)w + (vp->ox * w + vp->hx * x));
   case 4: return (float)(SR_GUARD_BAND * (double)w - (vp->ox * w + vp->hx * x));
   case 5: return (float)(SR_GUARD_BAND * (double)w + (vp->oy * w + vp->hy * y));
   case 6: return (float)(SR_GUARD_BAND * (double)w - (vp->oy * w + vp->hy * y));
   default: return r[SR_V_DIST + (p - 7)];
   }
}

static uint32_t
clip_code(const struct sr_vdraw *vd, const struct sr_viewport *vp, const float *r, uint32_t planes)
{
   const float x = r[SR_V_POS], y = r[SR_V_POS + 1], z = r[SR_V_POS + 2], w = r[SR_V_POS + 3];
   /* The same expressions as plane_dist(), so codes and clipping agree. */
   const double gw = SR_GUARD_BAND * (double)w;
   const double wx = vp->ox * w + vp->hx * x, wy = vp->oy * w + vp->hy * y;
   uint32_t code = 0;
   code |= !(z >= 0.0f) ? CLIP_NEAR : 0;
   code |= !(w - z >= 0.0f) ? CLIP_FAR : 0;
   code |= !(w - W_MIN >= 0.0f) ? CLIP_W : 0;
   code |= !((float)(gw + wx) >= 0.0f) ? CLIP_GX0 : 0;
   code |= !((float)(gw - wx) >= 0.0f) ? CLIP_GX1 : 0;
   code |= !((float)(gw + wy) >= 0.0f) ? CLIP_GY0 : 0;
   code |= !((float)(gw - wy) >= 0.0f) ? CLIP_GY1 : 0;
   for (uint32_t d = 0; d < vd->clip_count; d++)
      code |= !(r[SR_V_DIST + d] >= 0.0f) ? CLIP_USER0 << d : 0;
   code &= planes;
   code |= x > w ? OUT_X1 : 0;
   code |= x < -w ? OUT_X0 : 0;
   code |= y > w ? OUT_Y1 : 0;
   code |= y < -w ? OUT_Y0 : 0;
   return code;
}

/* The words clipping interpolates and copies (the clipped records'
 * stride): those setup reads, up to the last fragment input. */
static inline uint32_t
clip_words(const struct sr_vdraw *vd)
{
   const uint32_t n = vd->attr_off + vd->attr_count;
   assert(n <= MAX_CLIP_WORDS && n <= vd->stride);
   return n;
}

/* Clips a convex polygon against plane p (Sutherland-Hodgman). New
 * vertices are interpolated from the inside vertex towards the outside
 * one, so two primitives sharing an edge get the same points. Flags per
 * vertex: bit 0: the edge to the next vertex lies on an edge of the
 * original primitive; bit 1: the vertex is one of the primitive's own
 * (polygon modes LINE and POINT draw only those). */
static unsigned
clip_polygon(const struct sr_vdraw *vd, const struct sr_viewport *vp, const float *in, const uint8_t *fin,
             unsigned n, unsigned p, float *out, uint8_t *fout)
{
   const uint32_t stride = clip_words(vd);
   unsigned m = 0;
   for (unsigned i = 0; i < n; i++) {
      const float *a = in + (size_t)i * stride;
      const float *b = in + (size_t)((i + 1) % n) * stride;
      float da = plane_dist(vd, vp, a, p), db = plane_dist(vd, vp, b, p);
      bool ina = da >= 0.0f, inb = db >= 0.0f;
      if (ina) {
         memcpy(out + (size_t)m * stride, a, stride * sizeof(float));
         fout[m++] = fin[i];
      }
      if (ina != inb) {
         const float *s = ina ? a : b, *e = ina ? b : a;
         float ds = ina ? da : db, de = ina ? db : da;
         float t = ds / (ds - de);
         float *o = out + (size_t)m * stride;
         for (uint32_t k = 0; k < stride; k++)
            o[k] = s[k] + t * (e[k] - s[k]);
         fout[m++] = ina ? 0 : (fin[i] & 1);
      }
   }
   return m;
}

/* ---- Setup ---- */

struct wvert {
   double x, y, z, inv_w;     /* window coordinates (x, y snapped), 1/w */
   int64_t fx, fy;            /* fixed point, SR_SUBPIXEL_BITS */
};

static void
to_window(const struct sr_viewport *vp, const float *r, struct wvert *o)
{
   double inv_w = 1.0 / r[SR_V_POS + 3];
   double xw = vp->ox + vp->hx * (r[SR_V_POS] * inv_w);
   double yw = vp->oy + vp->hy * (r[SR_V_POS + 1] * inv_w);
   const double lim = SR_GUARD_BAND + SR_MAX_FRAMEBUFFER_SIZE / 2;
   /* Clipping keeps window coordinates inside the guard band up to
    * rounding; NaN positions (undefined results) become 0, never
    * overflowing integers. */
   xw = xw == xw ? xw : 0.0;
   yw = yw == yw ? yw : 0.0;
   xw = xw < -lim ? -lim : xw > lim ? lim : xw;
   yw = yw < -lim ? -lim : yw > lim ? lim : yw;
   o->fx = llrint(xw * (1 << SR_SUBPIXEL_BITS));
   o->fy = llrint(yw * (1 << SR_SUBPIXEL_BITS));
   o->x = (double)o->fx / (1 << SR_SUBPIXEL_BITS);
   o->y = (double)o->fy / (1 << SR_SUBPIXEL_BITS);
   /* z and 1/w as the records keep them (floats), whichever path computed them. */
   o->z = (float)(vp->pz * (r[SR_V_POS + 2] * inv_w) + vp->oz);
   o->inv_w = (float)inv_w;
}

static uint32_t
code_of(const float *r)
{
   uint32_t c;
   memcpy(&c, &r[SR_V_CODE], 4);
   return c;
}

/* Window coordinates kept in an unclipped record. */
static void
wvert_of(const float *r, struct wvert *o)
{
   int32_t fx, fy;
   memcpy(&fx, &r[SR_V_WIN], 4);
   memcpy(&fy, &r[SR_V_WIN + 1], 4);
   o->fx = fx;
   o->fy = fy;
   o->x = (double)fx / (1 << SR_SUBPIXEL_BITS);
   o->y = (double)fy / (1 << SR_SUBPIXEL_BITS);
   o->z = r[SR_V_WIN + 2];
   o->inv_w = r[SR_V_WIN + 3];
}

void
sr_setup_vertex(const struct sr_vdraw *vd, float *r)
{
   uint32_t code = clip_code(vd, &vd->vp[0], r, vd->clip_planes);
   memcpy(&r[SR_V_CODE], &code, 4);
   if (!(code & vd->clip_planes)) {
      struct wvert w;
      to_window(&vd->vp[0], r, &w);
      int32_t fx = (int32_t)w.fx, fy = (int32_t)w.fy;
      memcpy(&r[SR_V_WIN], &fx, 4);
      memcpy(&r[SR_V_WIN + 1], &fy, 4);
      r[SR_V_WIN + 2] = (float)w.z;
      r[SR_V_WIN + 3] = (float)w.inv_w;
   }
}

/* The pixel box viewport i's primitives may touch: its scissor, the
 * render area, the framebuffer. */
static void
draw_box(const struct sr_vdraw *vd, uint32_t i, int32_t *box)
{
   const VkRect2D *s = &vd->st->scissors[i], *ra = &vd->scene->render_area;
   int64_t x0 = s->offset.x, y0 = s->offset.y;
   int64_t x1 = x0 + s->extent.width - 1, y1 = y0 + s->extent.height - 1;
   if (x0 < ra->offset.x)
      x0 = ra->offset.x;
   if (y0 < ra->offset.y)
      y0 = ra->offset.y;
   if (x1 > (int64_t)ra->offset.x + ra->extent.width - 1)
      x1 = (int64_t)ra->offset.x + ra->extent.width - 1;
   if (y1 > (int64_t)ra->offset.y + ra->extent.height - 1)
      y1 = (int64_t)ra->offset.y + ra->extent.height - 1;
   box[0] = (int32_t)(x0 < 0 ? 0 : x0);
   box[1] = (int32_t)(y0 < 0 ? 0 : y0);
   box[2] = (int32_t)(x1 > INT32_MAX ? INT32_MAX : x1);
   box[3] = (int32_t)(y1 > INT32_MAX ? INT32_MAX : y1);
}

/* Plane of value f at the three window positions. */
static struct shale_fs_plane
plane3(const struct wvert *v, double inv_area, double f0, double f1, double f2)
{
   double dx1 = v[1].x - v[0].x, dy1 = v[1].y - v[0].y;
   double dx2 = v[2].x - v[0].x, dy2 = v[2].y - v[0].y;
   double a = ((f1 - f0) * dy2 - (f2 - f0) * dy1) * inv_area;
   double b = ((f2 - f0) * dx1 - (f1 - f0) * dx2) * inv_area;
   double c = f0 - a * v[0].x - b * v[0].y;
   return (struct shale_fs_plane){(float)a, (float)b, (float)c};
}

/* What the edge-function triangles of one primitive share. */
struct prim_common {
   const struct shale_fs_plane *planes;
   struct shale_fs_plane z;            /* bias included */
   const struct shale_fs_plane *point_coord;   /* [2] after the inputs (points), or NULL */
   uint32_t primitive_id;
   bool front, is_line, is_point;
};

/* Sets up one edge-function triangle of fixed-point corners (fx, fy) and
 * bins it; zero-area triangles and those outside the draw's box vanish. */
static void
emit_prim(struct sr_vdraw *vd, const int64_t fx[3], const int64_t fy[3], const struct prim_common *pc)
{
   int64_t area2 = (fx[1] - fx[0]) * (fy[2] - fy[0]) - (fx[2] - fx[0]) * (fy[1] - fy[0]);
   if (area2 == 0)
      return;
   const int32_t *box = vd->box[vd->viewport];
   int64_t minx = fx[0], maxx = fx[0], miny = fy[0], maxy = fy[0];
   for (int i = 1; i < 3; i++) {
      minx = fx[i] < minx ? fx[i] : minx;
      maxx = fx[i] > maxx ? fx[i] : maxx;
      miny = fy[i] < miny ? fy[i] : miny;
      maxy = fy[i] > maxy ? fy[i] : maxy;
   }
   /* Pixels with a sample position in [minx, maxx] x [miny, maxy]. */
   int64_t px0 = minx >> SR_SUBPIXEL_BITS, py0 = miny >> SR_SUBPIXEL_BITS;
   int64_t px1 = maxx >> SR_SUBPIXEL_BITS, py1 = maxy >> SR_SUBPIXEL_BITS;
   if (px0 < box[0])
      px0 = box[0];
   if (py0 < box[1])
      py0 = box[1];
   if (px1 > box[2])
      px1 = box[2];
   if (py1 > box[3])
      py1 = box[3];
   if (px0 > px1 || py0 > py1)
      return;

   struct sr_prim *p = sr_arena_alloc(vd->arena, sizeof(*p));
   if (!p) {
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
      return;
   }
   p->draw = vd->snap;
   p->layer = vd->layer;
   p->planes = pc->planes;
   p->z = pc->z;
   p->primitive_id = pc->primitive_id;
   p->front_facing = pc->front;
   p->is_line = pc->is_line;
   p->is_point = pc->is_point;
   p->point_coord = pc->is_point ? pc->point_coord : NULL;
   p->min_x = (int32_t)px0;
   p->min_y = (int32_t)py0;
   p->max_x = (int32_t)px1;
   p->max_y = (int32_t)py1;
   p->viewport_index = (uint8_t)vd->viewport;
   const VkViewport *v = &vd->st->viewports[vd->viewport];
   p->depth_min = v->minDepth < v->maxDepth ? v->minDepth : v->maxDepth;
   p->depth_max = v->minDepth < v->maxDepth ? v->maxDepth : v->minDepth;

   /* Edge i runs from corner i+1 to i+2: E = a X + b Y + c, positive inside. */
   for (int i = 0; i < 3; i++) {
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      int64_t a = fy[i1] - fy[i2], b = fx[i2] - fx[i1];
      int64_t c = fx[i1] * fy[i2] - fx[i2] * fy[i1];
      if (area2 < 0)
         a = -a, b = -b, c = -c;
      /* Top-left rule: samples on an edge count only for left edges (inside
       * to the right, a > 0) and top edges (horizontal, inside below). */
      if (!(a > 0 || (a == 0 && b > 0)))
         c -= 1;
      p->a[i] = (int32_t)a;   /* |a|, |b| < 2^25 (sr_scene.h) */
      p->b[i] = (int32_t)b;
      p->c[i] = c;
   }

   if (vd->list_first) {
      /* Parallel setup: binned in order once every chunk is set up. */
      struct sr_prim_list_node *n = vd->list_last;
      if (n->count == SR_PRIM_LIST_NODE) {
         n = sr_arena_alloc(vd->arena, sizeof(*n));
         if (!n) {
            vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
            return;
         }
         n->next = NULL;
         n->count = 0;
         vd->list_last->next = n;
         vd->list_last = n;
      }
      /* Tile rows floor(min_y / T) .. floor(max_y / T), the rows whose
       * pixels [ty T, ty T + T - 1] the box meets. */
      int32_t r0 = p->min_y < 0 ? 0 : p->min_y / SR_TILE_SIZE;
      int32_t r1 = p->max_y < 0 ? -1 : p->max_y / SR_TILE_SIZE;
      if (r1 < r0)
         r0 = 1, r1 = 0;
      n->row0[n->count] = (uint16_t)(r0 > 0xffff ? 0xffff : r0);
      n->row1[n->count] = (uint16_t)(r1 > 0xffff ? 0xffff : r1);
      /* Columns likewise (min_x >= 0, max_x >= min_x: the box is in the
       * render area). */
      int32_t c0 = p->min_x / SR_TILE_SIZE, c1 = p->max_x / SR_TILE_SIZE;
      n->col0[n->count] = (uint16_t)(c0 > 0xffff ? 0xffff : c0);
      n->col1[n->count] = (uint16_t)(c1 > 0xffff ? 0xffff : c1);
      n->layer[n->count] = p->layer;
      n->prims[n->count++] = p;
      return;
   }
   VkResult res = sr_bin_box(vd->scene, p->layer, p->min_x, p->min_y, p->max_x, p->max_y,
                             (struct sr_cmd){.kind = SR_CMD_PRIM, .prim = p});
   if (res != VK_SUCCESS)
      vd->result = res;
}

/* A primitive's planes; `extra` more after them (a point's PointCoord). */
static struct shale_fs_plane *
alloc_planes(struct sr_vdraw *vd, uint32_t extra)
{
   struct shale_fs_plane *planes =
      sr_arena_alloc(vd->arena, (vd->snap->fs_input_count + extra) * sizeof(*planes));
   if (!planes)
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
   return planes;
}

static uint32_t
float_bits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float
bits_float(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

/* A flat input's plane: a = b = 0, c = the provoking vertex's bits. */
static struct shale_fs_plane
flat_plane(const float *prov, uint32_t o)
{
   return (struct shale_fs_plane){0.0f, 0.0f, bits_float(float_bits(prov[o]))};
}

/* The depth bias of a polygon whose depth plane is zp and whose largest
 * window depth magnitude is zmax (Vulkan's "Depth Bias": m * slope +
 * r * constant, clamped). r is the depth attachment's minimum resolvable
 * difference: 2^-n for n-bit UNORM, 2^(e - 23) for float depth (e: the
 * exponent of zmax). */
static float
depth_bias(const struct sr_vdraw *vd, const struct shale_fs_plane *zp, double zmax)
{
   const struct sr_draw_state *st = vd->st;
   if (!st->depth_bias_enable)
      return 0.0f;
   const struct sr_surface *ds = &vd->scene->fb.depth;
   double r = 0.0;
   if (ds->base && ds->format) {
      if (ds->format->format == VK_FORMAT_D32_SFLOAT || ds->format->format == VK_FORMAT_D32_SFLOAT_S8_UINT) {
         int e;
         frexp(zmax, &e);   /* zmax = m * 2^e, m in [0.5, 1): exponent e - 1 */
         r = zmax > 0.0 ? ldexp(1.0, e - 1 - 23) : ldexp(1.0, -149);
      } else {
         r = ldexp(1.0, -(int)su_format_depth_bits(ds->format));
      }
   }
   double m = fabs(zp->a) > fabs(zp->b) ? fabs(zp->a) : fabs(zp->b);
   double o = m * st->depth_bias_slope + r * st->depth_bias_constant;
   if (st->depth_bias_clamp > 0.0f && o > st->depth_bias_clamp)
      o = st->depth_bias_clamp;
   else if (st->depth_bias_clamp < 0.0f && o < st->depth_bias_clamp)
      o = st->depth_bias_clamp;
   return (float)o;
}

/* Sets up and bins one filled triangle of window vertices wv[3] (records
 * r[3] for the inputs; prov: the provoking vertex's record). */
static void
setup_triangle(struct sr_vdraw *vd, const struct wvert *wv, const float *const r[3], const float *prov,
               uint32_t primitive_id, bool front)
{
   const int64_t area2 = (wv[1].fx - wv[0].fx) * (wv[2].fy - wv[0].fy) -
                         (wv[2].fx - wv[0].fx) * (wv[1].fy - wv[0].fy);
   if (area2 == 0)
      return;
   struct shale_fs_plane *planes = alloc_planes(vd, 0);
   if (!planes)
      return;
   const double inv_area = (double)(1 << (2 * SR_SUBPIXEL_BITS)) / (double)area2;
   planes[0] = plane3(wv, inv_area, wv[0].z, wv[1].z, wv[2].z);
   planes[1] = plane3(wv, inv_area, wv[0].inv_w, wv[1].inv_w, wv[2].inv_w);
   for (uint32_t k = 0; k < vd->attr_count; k++) {
      uint32_t o = vd->attr_off + k;
      switch (vd->attr_interp[k]) {
      case SHALE_INTERP_FLAT:
         planes[2 + k] = flat_plane(prov, o);
         break;
      case SHALE_INTERP_NOPERSPECTIVE:
         planes[2 + k] = plane3(wv, inv_area, r[0][o], r[1][o], r[2][o]);
         break;
      default:
         planes[2 + k] = plane3(wv, inv_area, r[0][o] * wv[0].inv_w, r[1][o] * wv[1].inv_w,
                                r[2][o] * wv[2].inv_w);
         break;
      }
   }
   struct prim_common pc = {.planes = planes, .z = planes[0], .primitive_id = primitive_id, .front = front};
   if (vd->st->depth_bias_enable) {
      double zmax = fmax(fabs(wv[0].z), fmax(fabs(wv[1].z), fabs(wv[2].z)));
      pc.z.c += depth_bias(vd, &planes[0], zmax);
   }
   const int64_t fx[3] = {wv[0].fx, wv[1].fx, wv[2].fx}, fy[3] = {wv[0].fy, wv[1].fy, wv[2].fy};
   emit_prim(vd, fx, fy, &pc);
}

/* The L1 distance from (x, y) to the segment a-b is convex along the
 * segment and piecewise linear: its minimum is at an end or where the
 * segment crosses x = xc or y = yc. */
static double
l1_to_segment(double ax, double ay, double bx, double by, double xc, double yc)
{
   double best = fabs(ax - xc) + fabs(ay - yc);
   double e = fabs(bx - xc) + fabs(by - yc);
   best = e < best ? e : best;
   const double ddx = bx - ax, ddy = by - ay;
   if (ddx != 0.0) {
      double t = (xc - ax) / ddx;
      if (t > 0.0 && t < 1.0) {
         e = fabs(ay + t * ddy - yc);
         best = e < best ? e : best;
      }
   }
   if (ddy != 0.0) {
      double t = (yc - ay) / ddy;
      if (t > 0.0 && t < 1.0) {
         e = fabs(ax + t * ddx - xc);
         best = e < best ? e : best;
      }
   }
   return best;
}

/* Diamond exit (Bresenham lines), in major (u) / minor (v) coordinates
 * with |dv| <= |du|: column k has a fragment when the segment crosses the
 * diamond |u - uc| + |v - vc| < 1/2 of the pixel (k, floor(v(uc))) of
 * that column (the only diamond of the column the line can cross) and
 * ends outside it. Columns strictly between the ends always do; the first
 * and last such columns are [*k0, *k1] (false: none). */
static bool
bresenham_span(double ua, double va, double ub, double vb, int64_t *k0, int64_t *k1)
{
   const double lo = ua < ub ? ua : ub, hi = ua < ub ? ub : ua;
   const double m = (vb - va) / (ub - ua);
   int64_t first = INT64_MAX, last = INT64_MIN;
   for (int64_t k = (int64_t)floor(lo) - 1; k <= (int64_t)floor(hi) + 1; k++) {
      const double uc = (double)k + 0.5;
      if (uc > lo + 1.0 && uc < hi - 1.0) {
         /* Interior (uc + 1/2 and uc - 1/2 on the segment): crossed, and
          * the end at least 1 away. Skip to the last such column. */
         const int64_t kl = (int64_t)ceil(hi - 1.5) - 1;
         first = k < first ? k : first;
         last = kl > last ? kl : last;
         k = kl > k ? kl : k;
         continue;
      }
      const double vc = floor(va + (uc - ua) * m) + 0.5;
      if (!(l1_to_segment(ua, va, ub, vb, uc, vc) < 0.5))
         continue;
      if (fabs(ub - uc) + fabs(vb - vc) < 0.5)
         continue;   /* ends inside: never exits */
      first = k < first ? k : first;
      last = k > last ? k : last;
   }
   *k0 = first;
   *k1 = last;
   return first <= last;
}

/* Sets up a line segment between records ra and rb (already clipped) as a
 * parallelogram of width line_width along the minor axis (non-strict
 * lines; Bresenham lines with their ends moved to the diamond-exit
 * columns) or a rectangle of width line_width (strict, RECTANGULAR): two
 * triangles sharing planes that vary only along the segment. */
static void
setup_line(struct sr_vdraw *vd, const struct sr_viewport *vp, const float *ra, const float *rb, const float *prov,
           uint32_t primitive_id, float bias, bool front)
{
   struct wvert w[2];
   to_window(vp, ra, &w[0]);
   to_window(vp, rb, &w[1]);
   const double dx = w[1].x - w[0].x, dy = w[1].y - w[0].y, l2 = dx * dx + dy * dy;
   if (l2 == 0.0)
      return;
   struct shale_fs_plane *planes = alloc_planes(vd, 0);
   if (!planes)
      return;
   /* t(x, y) = ((x - xa) dx + (y - ya) dy) / l2: 0 at a, 1 at b. */
   const double ta = dx / l2, tb = dy / l2, tc = -(w[0].x * dx + w[0].y * dy) / l2;
#define LINE_PLANE(fa, fb)                                                                        \
   ((struct shale_fs_plane){(float)(((fb) - (fa)) * ta), (float)(((fb) - (fa)) * tb),           \
                            (float)((fa) + ((fb) - (fa)) * tc)})
   planes[0] = LINE_PLANE(w[0].z, w[1].z);
   planes[1] = LINE_PLANE(w[0].inv_w, w[1].inv_w);
   for (uint32_t k = 0; k < vd->attr_count; k++) {
      uint32_t o = vd->attr_off + k;
      switch (vd->attr_interp[k]) {
      case SHALE_INTERP_FLAT:
         planes[2 + k] = flat_plane(prov, o);
         break;
      case SHALE_INTERP_NOPERSPECTIVE:
         planes[2 + k] = LINE_PLANE((double)ra[o], (double)rb[o]);
         break;
      default:
         planes[2 + k] = LINE_PLANE(ra[o] * w[0].inv_w, rb[o] * w[1].inv_w);
         break;
      }
   }
#undef LINE_PLANE
   struct prim_common pc = {.planes = planes, .z = planes[0], .primitive_id = primitive_id,
                            .front = front, .is_line = true};
   pc.z.c += bias;
   float lw = vd->st->line_width;
   lw = !(lw >= 1.0f) ? 1.0f : lw > SR_MAX_LINE_WIDTH ? SR_MAX_LINE_WIDTH : lw;
   const double one = 1 << SR_SUBPIXEL_BITS;
   /* Bresenham lines are w = round(lineWidth) fragments wide in the minor
    * direction: the parallelogram of height w centred on the line. */
   if (vd->st->line_mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT)
      lw = floorf(lw + 0.5f);
   const int64_t h = llrint(lw * 0.5 * one);
   const bool x_major = fabs(dx) >= fabs(dy);
   int64_t ox = x_major ? 0 : h, oy = x_major ? h : 0;
   int64_t ax = w[0].fx, ay = w[0].fy, bx = w[1].fx, by = w[1].fy;
   if (vd->st->line_mode == VK_LINE_RASTERIZATION_MODE_RECTANGULAR_EXT) {
      /* Strict: the rectangle of width lw centred on the segment. */
      const double l = sqrt(l2);
      ox = llrint(-dy / l * lw * 0.5 * one);
      oy = llrint(dx / l * lw * 0.5 * one);
   } else if (vd->st->line_mode == VK_LINE_RASTERIZATION_MODE_BRESENHAM_EXT) {
      /* The non-strict parallelogram covers, in each column (x-major) or
       * row, the pixel whose diamond the infinite line crosses; the
       * diamond-exit rule only decides which columns at the two ends have
       * a fragment. The ends move to a quarter pixel outside those. */
      int64_t k0, k1;
      if (!bresenham_span(x_major ? w[0].x : w[0].y, x_major ? w[0].y : w[0].x,
                          x_major ? w[1].x : w[1].y, x_major ? w[1].y : w[1].x, &k0, &k1))
         return;
      const double ua = x_major ? w[0].x : w[0].y, va = x_major ? w[0].y : w[0].x;
      const double du = x_major ? dx : dy, dv = x_major ? dy : dx;
      const double u0 = (double)k0 + 0.25, u1 = (double)k1 + 0.75;
      const double v0 = va + (u0 - ua) * dv / du, v1 = va + (u1 - ua) * dv / du;
      const int64_t fu0 = llrint(u0 * one), fu1 = llrint(u1 * one);
      const int64_t fv0 = llrint(v0 * one), fv1 = llrint(v1 * one);
      ax = x_major ? fu0 : fv0, ay = x_major ? fv0 : fu0;
      bx = x_major ? fu1 : fv1, by = x_major ? fv1 : fu1;
   }
   const int64_t cx[4] = {ax - ox, bx - ox, bx + ox, ax + ox};
   const int64_t cy[4] = {ay - oy, by - oy, by + oy, ay + oy};
   const int64_t t0x[3] = {cx[0], cx[1], cx[2]}, t0y[3] = {cy[0], cy[1], cy[2]};
   const int64_t t1x[3] = {cx[0], cx[2], cx[3]}, t1y[3] = {cy[0], cy[2], cy[3]};
   emit_prim(vd, t0x, t0y, &pc);
   emit_prim(vd, t1x, t1y, &pc);
}

/* Sets up a point (record r, inside the view volume) as a square of side
 * PointSize centred on it: two triangles with constant planes. */
static void
setup_point(struct sr_vdraw *vd, const struct sr_viewport *vp, const float *r, uint32_t primitive_id, float bias,
            bool front)
{
   struct wvert w;
   to_window(vp, r, &w);
   struct shale_fs_plane *planes = alloc_planes(vd, 2);
   if (!planes)
      return;
   planes[0] = (struct shale_fs_plane){0.0f, 0.0f, (float)w.z};
   planes[1] = (struct shale_fs_plane){0.0f, 0.0f, (float)w.inv_w};
   for (uint32_t k = 0; k < vd->attr_count; k++) {
      uint32_t o = vd->attr_off + k;
      switch (vd->attr_interp[k]) {
      case SHALE_INTERP_FLAT:
         planes[2 + k] = flat_plane(r, o);
         break;
      case SHALE_INTERP_NOPERSPECTIVE:
         planes[2 + k] = (struct shale_fs_plane){0.0f, 0.0f, r[o]};
         break;
      default:
         planes[2 + k] = (struct shale_fs_plane){0.0f, 0.0f, (float)(r[o] * w.inv_w)};
         break;
      }
   }
   float size = r[SR_V_PSIZE];
   size = !(size >= 1.0f) ? 1.0f : size > SR_MAX_POINT_SIZE ? SR_MAX_POINT_SIZE : size;
   struct prim_common pc = {.planes = planes, .z = planes[0], .primitive_id = primitive_id,
                            .front = front, .is_point = true};
   pc.z.c += bias;
   /* PointCoord: s = 0.5 + (x - xc) / size, t = 0.5 + (y - yc) / size. */
   struct shale_fs_plane *coord = planes + vd->snap->fs_input_count;
   coord[0] = (struct shale_fs_plane){(float)(1.0 / size), 0.0f, (float)(0.5 - w.x / size)};
   coord[1] = (struct shale_fs_plane){0.0f, (float)(1.0 / size), (float)(0.5 - w.y / size)};
   pc.point_coord = coord;
   const int64_t h = llrint(size * 0.5 * (1 << SR_SUBPIXEL_BITS));
   const int64_t t0x[3] = {w.fx - h, w.fx + h, w.fx + h}, t0y[3] = {w.fy - h, w.fy - h, w.fy + h};
   const int64_t t1x[3] = {w.fx - h, w.fx + h, w.fx - h}, t1y[3] = {w.fy - h, w.fy + h, w.fy + h};
   emit_prim(vd, t0x, t0y, &pc);
   emit_prim(vd, t1x, t1y, &pc);
}

void
sr_setup_draw(struct sr_vdraw *vd)
{
   const uint32_t n = vd->st->viewport_count;
   vd->viewport_count = n == 0 ? 1 : n > SR_MAX_VIEWPORTS ? SR_MAX_VIEWPORTS : n;
   vd->viewport = 0;
   for (uint32_t i = 0; i < vd->viewport_count; i++) {
      const VkViewport *v = &vd->st->viewports[i];
      vd->vp[i] = (struct sr_viewport){
         .ox = v->x + v->width * 0.5,
         .oy = v->y + v->height * 0.5,
         .hx = v->width * 0.5,
         .hy = v->height * 0.5,
         .pz = (double)v->maxDepth - v->minDepth,
         .oz = v->minDepth,
      };
      draw_box(vd, i, vd->box[i]);
   }
   /* The planes a draw clips against. */
   uint32_t planes = CLIP_W | CLIP_GX0 | CLIP_GX1 | CLIP_GY0 | CLIP_GY1;
   if (!vd->st->no_depth_clip)
      planes |= CLIP_NEAR | CLIP_FAR;
   planes |= ((1u << vd->clip_count) - 1) * CLIP_USER0;
   vd->clip_planes = planes;
}

static bool
culled_by_distance(const struct sr_vdraw *vd, const float *const *r, unsigned n)
{
   for (uint32_t d = 0; d < vd->cull_count; d++) {
      unsigned out = 0;
      for (unsigned i = 0; i < n; i++)
         out += !(r[i][SR_V_DIST + vd->clip_count + d] >= 0.0f);
      if (out == n)
         return true;
   }
   return false;
}

/* The record of index position i. */
static inline const float *
record(const struct sr_vdraw *vd, uint32_t i)
{
   return vd->verts + (size_t)(vd->pos_rec ? vd->pos_rec[i] : i) * vd->stride;
}

static int64_t
area2_of(const struct wvert *a, const struct wvert *b, const struct wvert *c)
{
   return (b->fx - a->fx) * (c->fy - a->fy) - (c->fx - a->fx) * (b->fy - a->fy);
}

/* A geometry shader's output primitive: the PrimitiveId, Layer and
 * ViewportIndex its provoking vertex was emitted with (sr_geom.c; Layer
 * and ViewportIndex also a vertex or evaluation shader's); false:
 * dropped (a Layer outside the scene, a ViewportIndex past the draw's
 * viewports). */
static bool
geom_prim(struct sr_vdraw *vd, const float *prov, uint32_t *primitive_id)
{
   uint32_t u;
   if (vd->prim_id_off) {
      memcpy(&u, &prov[vd->prim_id_off], 4);
      *primitive_id = u;
   }
   if (vd->layer_off) {
      memcpy(&u, &prov[vd->layer_off], 4);
      if (u >= vd->scene->layer_count)
         return false;
      vd->layer = u;
   }
   if (vd->viewport_off) {
      memcpy(&u, &prov[vd->viewport_off], 4);
      if (u >= vd->viewport_count)
         return false;
      vd->viewport = u;
   }
   return true;
}

/* The clip code and window coordinates of record r for the primitive's
 * viewport: those the record keeps (viewport 0, sr_setup_vertex), else
 * computed for the primitive's viewport the same way. */
static uint32_t
prim_code(const struct sr_vdraw *vd, const float *r)
{
   return vd->viewport ? clip_code(vd, &vd->vp[vd->viewport], r, vd->clip_planes) : code_of(r);
}

static void
prim_wvert(const struct sr_vdraw *vd, const float *r, struct wvert *o)
{
   if (vd->viewport)
      to_window(&vd->vp[vd->viewport], r, o);
   else
      wvert_of(r, o);
}

static void
triangle(struct sr_vdraw *vd, uint32_t i0, uint32_t i1, uint32_t i2, uint32_t iprov)
{
   const struct sr_draw_state *st = vd->st;
   uint32_t primitive_id = vd->primitive_id++;
   const float *r[3] = {record(vd, i0), record(vd, i1), record(vd, i2)};
   const float *prov = record(vd, iprov);
   if ((vd->geom || vd->layer_off || vd->viewport_off) && !geom_prim(vd, prov, &primitive_id))
      return;
   if (culled_by_distance(vd, r, 3))
      return;
   const struct sr_viewport vp = vd->vp[vd->viewport];
   const uint32_t planes = vd->clip_planes;
   uint32_t c0 = prim_code(vd, r[0]), c1 = prim_code(vd, r[1]), c2 = prim_code(vd, r[2]);
   if (c0 & c1 & c2)
      return;

   if (!((c0 | c1 | c2) & planes) && st->polygon_mode == VK_POLYGON_MODE_FILL) {
      /* Unclipped and filled (the common case): straight to setup. */
      vd->clip_out++;
      struct wvert wv[3];
      for (unsigned i = 0; i < 3; i++)
         prim_wvert(vd, r[i], &wv[i]);
      const int64_t area = area2_of(&wv[0], &wv[1], &wv[2]);
      if (area == 0)
         return;
      const bool front = (area > 0) == (st->front_face == VK_FRONT_FACE_CLOCKWISE);
      if ((st->cull_mode & VK_CULL_MODE_FRONT_BIT) && front)
         return;
      if ((st->cull_mode & VK_CULL_MODE_BACK_BIT) && !front)
         return;
      setup_triangle(vd, wv, r, prov, primitive_id, front);
      return;
   }

   /* The polygon: the triangle, or what clipping leaves of it. */
   const float *pv[MAX_POLY] = {r[0], r[1], r[2]};
   uint8_t flags[2][MAX_POLY] = {{3, 3, 3}};
   unsigned n = 3, cur = 0;
   float buf[2][MAX_POLY * MAX_CLIP_WORDS];
   if ((c0 | c1 | c2) & planes) {
      const uint32_t stride = clip_words(vd);
      for (int i = 0; i < 3; i++)
         memcpy(buf[0] + (size_t)i * stride, r[i], stride * sizeof(float));
      for (uint32_t m = (c0 | c1 | c2) & planes; m && n >= 3; m &= m - 1) {
         n = clip_polygon(vd, &vp, buf[cur], flags[cur], n, (unsigned)__builtin_ctz(m), buf[cur ^ 1],
                          flags[cur ^ 1]);
         cur ^= 1;
      }
      if (n < 3)
         return;
      for (unsigned i = 0; i < n; i++)
         pv[i] = buf[cur] + (size_t)i * stride;
   }
   vd->clip_out += n - 2;
   struct wvert wv[MAX_POLY];
   for (unsigned i = 0; i < n; i++) {
      if (n == 3 && pv[i] == r[i])
         prim_wvert(vd, pv[i], &wv[i]);
      else
         to_window(&vp, pv[i], &wv[i]);
   }

   /* Facing and culling from the whole polygon's area: area2 > 0 is
    * clockwise in framebuffer coordinates (y down), the spec's negative
    * signed area. */
   int64_t area = 0, best = 0;
   unsigned besti = 1;
   for (unsigned i = 1; i + 1 < n; i++) {
      int64_t a = area2_of(&wv[0], &wv[i], &wv[i + 1]);
      area += a;
      if ((a < 0 ? -a : a) > best)
         best = a < 0 ? -a : a, besti = i;
   }
   if (area == 0)
      return;
   const bool front = (area > 0) == (st->front_face == VK_FRONT_FACE_CLOCKWISE);
   if ((st->cull_mode & VK_CULL_MODE_FRONT_BIT) && front)
      return;
   if ((st->cull_mode & VK_CULL_MODE_BACK_BIT) && !front)
      return;

   if (st->polygon_mode == VK_POLYGON_MODE_FILL) {
      for (unsigned i = 1; i + 1 < n; i++) {
         const struct wvert t[3] = {wv[0], wv[i], wv[i + 1]};
         const float *tr[3] = {pv[0], pv[i], pv[i + 1]};
         setup_triangle(vd, t, tr, prov, primitive_id, front);
      }
      return;
   }

   /* LINE and POINT: the polygon's own edges or vertices, with the bias of
    * the polygon's depth plane. */
   float bias = 0.0f;
   if (st->depth_bias_enable && best) {
      const struct wvert t[3] = {wv[0], wv[besti], wv[besti + 1]};
      const double inv_area = (double)(1 << (2 * SR_SUBPIXEL_BITS)) / (double)area2_of(&t[0], &t[1], &t[2]);
      struct shale_fs_plane zp = plane3(t, inv_area, t[0].z, t[1].z, t[2].z);
      double zmax = 0.0;
      for (unsigned i = 0; i < n; i++)
         zmax = fmax(zmax, fabs(wv[i].z));
      bias = depth_bias(vd, &zp, zmax);
   }
   for (unsigned i = 0; i < n; i++) {
      if (st->polygon_mode == VK_POLYGON_MODE_LINE && (flags[cur][i] & 1))
         setup_line(vd, &vp, pv[i], pv[(i + 1) % n], prov, primitive_id, bias, front);
      else if (st->polygon_mode == VK_POLYGON_MODE_POINT && (flags[cur][i] & 2))
         setup_point(vd, &vp, pv[i], primitive_id, bias, front);
   }
}

static void
line(struct sr_vdraw *vd, uint32_t i0, uint32_t i1, uint32_t iprov)
{
   uint32_t primitive_id = vd->primitive_id++;
   const float *r[2] = {record(vd, i0), record(vd, i1)};
   const float *prov = record(vd, iprov);
   if ((vd->geom || vd->layer_off || vd->viewport_off) && !geom_prim(vd, prov, &primitive_id))
      return;
   if (culled_by_distance(vd, r, 2))
      return;
   const struct sr_viewport vp = vd->vp[vd->viewport];
   const uint32_t planes = vd->clip_planes;
   uint32_t c0 = prim_code(vd, r[0]), c1 = prim_code(vd, r[1]);
   if (c0 & c1)
      return;
   float buf[2][MAX_CLIP_WORDS];
   if ((c0 | c1) & planes) {
      float t0 = 0.0f, t1 = 1.0f;
      for (uint32_t m = (c0 | c1) & planes; m; m &= m - 1) {
         unsigned p = (unsigned)__builtin_ctz(m);
         float da = plane_dist(vd, &vp, r[0], p), db = plane_dist(vd, &vp, r[1], p);
         if (!(da >= 0.0f) && !(db >= 0.0f))
            return;
         if (!(da >= 0.0f))
            t0 = fmaxf(t0, da / (da - db));
         else if (!(db >= 0.0f))
            t1 = fminf(t1, da / (da - db));
      }
      if (!(t0 < t1))
         return;
      const uint32_t words = clip_words(vd);
      for (uint32_t k = 0; k < words; k++) {
         buf[0][k] = r[0][k] + t0 * (r[1][k] - r[0][k]);
         buf[1][k] = r[0][k] + t1 * (r[1][k] - r[0][k]);
      }
      r[0] = buf[0];
      r[1] = buf[1];
   }
   vd->clip_out++;
   setup_line(vd, &vp, r[0], r[1], prov, primitive_id, 0.0f, true);
}

static void
point(struct sr_vdraw *vd, uint32_t i0)
{
   uint32_t primitive_id = vd->primitive_id++;
   const float *r = record(vd, i0);
   if ((vd->geom || vd->layer_off || vd->viewport_off) && !geom_prim(vd, r, &primitive_id))
      return;
   if (culled_by_distance(vd, &r, 1))
      return;
   /* A point is kept only when its vertex is inside the clip volume. */
   const float x = r[SR_V_POS], y = r[SR_V_POS + 1], z = r[SR_V_POS + 2], w = r[SR_V_POS + 3];
   if (!(w >= W_MIN && x >= -w && x <= w && y >= -w && y <= w))
      return;
   if (!vd->st->no_depth_clip && !(z >= 0.0f && z <= w))
      return;
   for (uint32_t d = 0; d < vd->clip_count; d++)
      if (!(r[SR_V_DIST + d] >= 0.0f))
         return;
   vd->clip_out++;
   setup_point(vd, &vd->vp[vd->viewport], r, primitive_id, 0.0f, true);
}

/* ---- Assembly ---- */

/* Primitives of n positions without restarts. */
uint32_t
sr_prim_count(VkPrimitiveTopology topology, uint32_t n)
{
   switch (topology) {
   case VK_PRIMITIVE_TOPOLOGY_POINT_LIST: return n;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST: return n / 2;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP: return n > 1 ? n - 1 : 0;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST: return n / 3;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN: return n > 2 ? n - 2 : 0;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY: return n / 4;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP_WITH_ADJACENCY: return n > 3 ? n - 3 : 0;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY: return n / 6;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP_WITH_ADJACENCY: return n > 5 ? (n - 4) / 2 : 0;
   default: return 0;
   }
}

/* Primitives [pb, pe) of the run of positions starting at b (no restart
 * inside the run). */
static void
assemble(struct sr_vdraw *vd, uint32_t b, uint32_t pb, uint32_t pe)
{
   const bool last = vd->st->provoking_last;
   switch (vd->st->topology) {
   case VK_PRIMITIVE_TOPOLOGY_POINT_LIST:
      for (uint32_t p = pb; p < pe; p++)
         point(vd, b + p);
      break;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST:
      for (uint32_t p = pb, i = b + 2 * pb; p < pe; p++, i += 2)
         line(vd, i, i + 1, last ? i + 1 : i);
      break;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP:
      for (uint32_t p = pb, i = b + pb; p < pe; p++, i++)
         line(vd, i, i + 1, last ? i + 1 : i);
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      for (uint32_t p = pb, i = b + 3 * pb; p < pe; p++, i += 3)
         triangle(vd, i, i + 1, i + 2, last ? i + 2 : i);
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
      /* Triangle p is (p, p + 1, p + 2), odd ones reordered to keep the
       * strip's winding. */
      for (uint32_t p = pb, i = b + pb; p < pe; p++, i++) {
         uint32_t odd = p & 1;
         triangle(vd, i, i + 1 + odd, i + 2 - odd, last ? i + 2 : i);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN:
      /* Triangle p is (p + 1, p + 2, 0). */
      for (uint32_t p = pb, i = b + pb + 1; p < pe; p++, i++)
         triangle(vd, i, i + 1, b, last ? i + 1 : i);
      break;
   default:
      break;
   }
}

/* Parallel setup: chunks of primitives set up on the workers into lists,
 * then binned here in order. */
#define SR_SETUP_CHUNK 1024u

/* One chunk's primitives sorted by tile row (a counting sort of its list
 * at the chunk's end, API order kept within each row): row ty's are
 * prims[start[ty] .. start[ty + 1]), a primitive once in every row its
 * box meets. */
struct row_entry {
   const struct sr_prim *prim;
   uint16_t col0, col1;          /* tile columns */
   uint32_t layer;
};

struct chunk_rows {
   const uint32_t *start;        /* [tiles_y + 1] */
   const struct row_entry *prims;
};

struct setup_job {
   const struct sr_vdraw *vd;
   struct sr_vdraw *chunks;      /* one per chunk, its list in it */
   struct chunk_rows *rows;      /* one per chunk */
   uint32_t prims, nchunks;
   bool bin_failed;              /* written (true only) by any row's worker */
};

/* Sorts chunk c's list by tile row into job->rows[c] (worker's arena). */
static VkResult
sort_rows(struct setup_job *job, uint64_t c, struct sr_arena *arena)
{
   const struct sr_vdraw *vd = &job->chunks[c];
   const uint32_t rows = vd->scene->tiles_y;
   if (!rows)
      return VK_SUCCESS;   /* nothing to bin into (start NULL: skipped) */
   uint32_t *start = sr_arena_alloc(arena, (rows + 2) * sizeof(uint32_t));
   if (!start)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   memset(start, 0, (rows + 2) * sizeof(uint32_t));
   /* Counts at start[ty + 2], prefix sums to start[ty + 1], then each
    * primitive placed at start[ty + 1]++: start[ty] ends at row ty's first. */
   for (const struct sr_prim_list_node *n = vd->list_first; n; n = n->next) {
      for (uint32_t i = 0; i < n->count; i++) {
         uint32_t r1 = n->row1[i] < rows ? n->row1[i] : rows - 1;
         for (uint32_t ty = n->row0[i]; ty <= r1; ty++)
            start[ty + 2]++;
      }
   }
   for (uint32_t ty = 0; ty < rows; ty++)
      start[ty + 2] += start[ty + 1];
   const uint32_t total = start[rows + 1];
   struct row_entry *prims = NULL;
   if (total) {
      prims = sr_arena_alloc(arena, total * sizeof(*prims));
      if (!prims)
         return VK_ERROR_OUT_OF_HOST_MEMORY;
   }
   for (const struct sr_prim_list_node *n = vd->list_first; n; n = n->next) {
      for (uint32_t i = 0; i < n->count; i++) {
         uint32_t r1 = n->row1[i] < rows ? n->row1[i] : rows - 1;
         for (uint32_t ty = n->row0[i]; ty <= r1; ty++)
            prims[start[ty + 1]++] = (struct row_entry){n->prims[i], n->col0[i], n->col1[i], n->layer[i]};
      }
   }
   job->rows[c] = (struct chunk_rows){start, prims};
   return VK_SUCCESS;
}

static void
setup_chunks(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   struct setup_job *job = data;
   struct sr_arena *arena = &job->vd->scene->front->arenas[worker].arena;
   for (uint64_t c = begin; c < end; c++) {
      struct sr_vdraw *vd = &job->chunks[c];
      struct sr_prim_list_node *n = sr_arena_alloc(arena, sizeof(*n));
      job->rows[c] = (struct chunk_rows){NULL, NULL};
      vd->list_first = vd->list_last = NULL;
      vd->clip_out = 0;
      if (!n) {
         vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
         continue;
      }
      n->next = NULL;
      n->count = 0;
      *vd = *job->vd;
      vd->clip_out = 0;
      vd->arena = arena;
      vd->list_first = vd->list_last = n;
      uint32_t pb = (uint32_t)c * SR_SETUP_CHUNK;
      uint32_t pe = job->prims - pb < SR_SETUP_CHUNK ? job->prims : pb + SR_SETUP_CHUNK;
      vd->primitive_id = job->vd->primitive_id + pb;
      assemble(vd, 0, pb, pe);
      VkResult r = sort_rows(job, c, arena);
      if (r != VK_SUCCESS)
         vd->result = r;
   }
}

/* Bins the primitives of every chunk, in order, into the bins of tile rows
 * [begin, end): each row belongs to one call, so each bin gets its
 * primitives in API order from one worker. A call reads only its rows'
 * primitives (the chunks' row lists). */
static void
bin_rows(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   struct setup_job *job = data;
   struct sr_scene *scene = job->vd->scene;
   struct sr_arena *arena = &scene->front->arenas[worker].arena;
   for (uint32_t c = 0; c < job->nchunks; c++) {
      const struct chunk_rows *cr = &job->rows[c];
      if (!cr->start)
         continue;
      for (uint32_t ty = (uint32_t)begin; ty < (uint32_t)end; ty++) {
         for (uint32_t k = cr->start[ty]; k < cr->start[ty + 1]; k++) {
            const struct row_entry *e = &cr->prims[k];
            if (sr_bin_row(scene, arena, e->layer, ty, e->col0 * SR_TILE_SIZE, e->col1 * SR_TILE_SIZE,
                           (struct sr_cmd){.kind = SR_CMD_PRIM, .prim = e->prim}) != VK_SUCCESS)
               __atomic_store_n(&job->bin_failed, true, __ATOMIC_RELAXED);
         }
      }
   }
}

static bool
setup_parallel(struct sr_vdraw *vd, uint32_t prims)
{
   const VkAllocationCallbacks *alloc = vd->scene->ctx->alloc;
   const uint32_t nchunks = (prims + SR_SETUP_CHUNK - 1) / SR_SETUP_CHUNK;
   struct setup_job job = {.vd = vd, .chunks = sr_alloc(alloc, nchunks * sizeof(struct sr_vdraw), 64),
                           .rows = sr_alloc(alloc, nchunks * sizeof(struct chunk_rows), 64),
                           .prims = prims};
   if (!job.chunks || !job.rows) {
      sr_free(alloc, job.chunks);
      sr_free(alloc, job.rows);
      return false;
   }
   su_thread_pool_run(vd->scene->ctx->pool, nchunks, 1, setup_chunks, &job);
   job.nchunks = nchunks;
   /* Binning in parallel by tile rows, one a call: each row's worker walks
    * every chunk's primitives of that row in order, so every bin keeps
    * API order. */
   su_thread_pool_run(vd->scene->ctx->pool, vd->scene->tiles_y, 1, bin_rows, &job);
   vd->scene->dirty = true;
   for (uint32_t c = 0; c < nchunks; c++) {
      if (job.chunks[c].result != VK_SUCCESS)
         vd->result = job.chunks[c].result;
      vd->clip_out += job.chunks[c].clip_out;
   }
   if (job.bin_failed)
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
   sr_free(alloc, job.chunks);
   sr_free(alloc, job.rows);
   vd->primitive_id += prims;
   return true;
}

void
sr_setup_instance(struct sr_vdraw *vd)
{
   if (!vd->restart) {
      const uint32_t prims = sr_prim_count(vd->st->topology, vd->count);
      if (prims > SR_SETUP_CHUNK && vd->scene->ctx->workers > 1 && setup_parallel(vd, prims))
         return;
      assemble(vd, 0, 0, prims);
      return;
   }
   uint32_t b = 0;
   for (uint32_t i = 0; i <= vd->count; i++) {
      if (i == vd->count || vd->restart[i]) {
         assemble(vd, b, 0, sr_prim_count(vd->st->topology, i - b));
         b = i + 1;
      }
   }
}
