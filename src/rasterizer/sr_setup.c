/* Primitive assembly, clipping, fixed-point setup and binning. */
#include "sr_front.h"

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
#define MAX_STRIDE (SR_V_DIST + 8 + SHALE_MAX_LOCATIONS * 4)
/* Smallest w kept: window coordinates stay finite. */
#define W_MIN 1e-30f

/* Viewport transform constants of a draw. */
struct vp {
   double ox, oy, hx, hy, pz, oz;
   double guard;
};

static struct vp
viewport_of(const struct sr_draw_state *st)
{
   const VkViewport *v = &st->viewport;
   return (struct vp){
      .ox = v->x + v->width * 0.5,
      .oy = v->y + v->height * 0.5,
      .hx = v->width * 0.5,
      .hy = v->height * 0.5,
      .pz = (double)v->maxDepth - v->minDepth,
      .oz = v->minDepth,
      .guard = SR_GUARD_BAND,
   };
}

/* Signed distance of a record to clip plane `p` (inside: >= 0). */
static float
plane_dist(const struct sr_vdraw *vd, const struct vp *vp, const float *r, unsigned p)
{
   const float x = r[SR_V_POS], y = r[SR_V_POS + 1], z = r[SR_V_POS + 2], w = r[SR_V_POS + 3];
   switch (p) {
   case 0: return z;
   case 1: return w - z;
   case 2: return w - W_MIN;
   case 3: return (float)(vp->guard * w + vp->ox * w + vp->hx * x);
   case 4: return (float)(vp->guard * w - vp->ox * w - vp->hx * x);
   case 5: return (float)(vp->guard * w + vp->oy * w + vp->hy * y);
   case 6: return (float)(vp->guard * w - vp->oy * w - vp->hy * y);
   default: return r[SR_V_DIST + (p - 7)];
   }
}

static uint32_t
clip_code(const struct sr_vdraw *vd, const struct vp *vp, const float *r, uint32_t planes)
{
   uint32_t code = 0;
   for (uint32_t m = planes; m; m &= m - 1) {
      unsigned p = (unsigned)__builtin_ctz(m);
      float d = plane_dist(vd, vp, r, p);
      if (!(d >= 0.0f))
         code |= 1u << p;
   }
   const float x = r[SR_V_POS], y = r[SR_V_POS + 1], w = r[SR_V_POS + 3];
   if (x > w)
      code |= OUT_X1;
   if (x < -w)
      code |= OUT_X0;
   if (y > w)
      code |= OUT_Y1;
   if (y < -w)
      code |= OUT_Y0;
   return code;
}

/* Clips a convex polygon against plane p (Sutherland-Hodgman). New
 * vertices are interpolated from the inside vertex towards the outside
 * one, so two primitives sharing an edge get the same points. */
static unsigned
clip_polygon(const struct sr_vdraw *vd, const struct vp *vp, const float *in, unsigned n,
             unsigned p, float *out)
{
   const uint32_t stride = vd->stride;
   unsigned m = 0;
   for (unsigned i = 0; i < n; i++) {
      const float *a = in + (size_t)i * stride;
      const float *b = in + (size_t)((i + 1) % n) * stride;
      float da = plane_dist(vd, vp, a, p), db = plane_dist(vd, vp, b, p);
      bool ina = da >= 0.0f, inb = db >= 0.0f;
      if (ina) {
         memcpy(out + (size_t)m * stride, a, stride * sizeof(float));
         m++;
      }
      if (ina != inb) {
         const float *s = ina ? a : b, *e = ina ? b : a;
         float ds = ina ? da : db, de = ina ? db : da;
         float t = ds / (ds - de);
         float *o = out + (size_t)m * stride;
         for (uint32_t k = 0; k < stride; k++)
            o[k] = s[k] + t * (e[k] - s[k]);
         m++;
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
to_window(const struct vp *vp, const float *r, struct wvert *o)
{
   double inv_w = 1.0 / r[SR_V_POS + 3];
   double xw = vp->ox + vp->hx * (r[SR_V_POS] * inv_w);
   double yw = vp->oy + vp->hy * (r[SR_V_POS + 1] * inv_w);
   const double lim = SR_GUARD_BAND + SR_MAX_FRAMEBUFFER_SIZE / 2;
   xw = xw < -lim ? -lim : xw > lim ? lim : xw;
   yw = yw < -lim ? -lim : yw > lim ? lim : yw;
   o->fx = llrint(xw * (1 << SR_SUBPIXEL_BITS));
   o->fy = llrint(yw * (1 << SR_SUBPIXEL_BITS));
   o->x = (double)o->fx / (1 << SR_SUBPIXEL_BITS);
   o->y = (double)o->fy / (1 << SR_SUBPIXEL_BITS);
   o->z = vp->pz * (r[SR_V_POS + 2] * inv_w) + vp->oz;
   o->inv_w = inv_w;
}

/* The pixel box the draw may touch: scissor, render area, framebuffer. */
static void
draw_box(const struct sr_vdraw *vd, int32_t box[4])
{
   const VkRect2D *s = &vd->st->scissor, *ra = &vd->scene->render_area;
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

static float
bits_to_float(const float *p)
{
   return *p;
}

/* Sets up and bins one triangle of window vertices w[3] (records r[3] for
 * the attributes; prov: the provoking vertex's record). */
static void
setup_triangle(struct sr_vdraw *vd, const struct wvert *wv, const float *const r[3], const float *prov,
               uint32_t primitive_id)
{
   const struct sr_draw_state *st = vd->st;
   int64_t area2 = (wv[1].fx - wv[0].fx) * (wv[2].fy - wv[0].fy) -
                   (wv[2].fx - wv[0].fx) * (wv[1].fy - wv[0].fy);
   if (area2 == 0)
      return;
   /* area2 > 0: clockwise in framebuffer coordinates (y down), the spec's
    * negative signed area. */
   bool front = (area2 > 0) == (st->front_face == VK_FRONT_FACE_CLOCKWISE);
   if ((st->cull_mode & VK_CULL_MODE_FRONT_BIT) && front)
      return;
   if ((st->cull_mode & VK_CULL_MODE_BACK_BIT) && !front)
      return;

   int32_t box[4];
   draw_box(vd, box);
   int64_t minx = wv[0].fx, maxx = wv[0].fx, miny = wv[0].fy, maxy = wv[0].fy;
   for (int i = 1; i < 3; i++) {
      minx = wv[i].fx < minx ? wv[i].fx : minx;
      maxx = wv[i].fx > maxx ? wv[i].fx : maxx;
      miny = wv[i].fy < miny ? wv[i].fy : miny;
      maxy = wv[i].fy > maxy ? wv[i].fy : maxy;
   }
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

   const struct sr_draw_snapshot *snap = vd->snap;
   size_t planes_bytes = snap->fs_input_count * sizeof(struct shale_fs_plane);
   struct sr_prim *p = sr_arena_alloc(&vd->scene->arena, sizeof(*p) + planes_bytes);
   if (!p) {
      vd->result = VK_ERROR_OUT_OF_HOST_MEMORY;
      return;
   }
   memset(p, 0, sizeof(*p));
   struct shale_fs_plane *planes = (struct shale_fs_plane *)(p + 1);
   p->draw = snap;
   p->planes = planes;
   p->primitive_id = primitive_id;
   p->front_facing = front;
   p->min_x = (int32_t)px0;
   p->min_y = (int32_t)py0;
   p->max_x = (int32_t)px1;
   p->max_y = (int32_t)py1;

   /* Edge i runs from vertex i+1 to i+2: E = a X + b Y + c, positive inside. */
   for (int i = 0; i < 3; i++) {
      const struct wvert *s = &wv[(i + 1) % 3], *e = &wv[(i + 2) % 3];
      int64_t a = s->fy - e->fy, b = e->fx - s->fx;
      int64_t c = s->fx * e->fy - e->fx * s->fy;
      if (area2 < 0)
         a = -a, b = -b, c = -c;
      /* Top-left rule: samples on an edge count only for left edges (inside
       * to the right, a > 0) and top edges (horizontal, inside below). */
      if (!(a > 0 || (a == 0 && b > 0)))
         c -= 1;
      p->a[i] = a;
      p->b[i] = b;
      p->c[i] = c;
   }

   const double inv_area = (double)(1 << (2 * SR_SUBPIXEL_BITS)) / (double)area2;
   planes[0] = plane3(wv, inv_area, wv[0].z, wv[1].z, wv[2].z);
   planes[1] = plane3(wv, inv_area, wv[0].inv_w, wv[1].inv_w, wv[2].inv_w);
   for (uint32_t k = 0; k < vd->attr_count; k++) {
      uint32_t o = vd->attr_off + k;
      switch (vd->attr_interp[k]) {
      case SHALE_INTERP_FLAT:
         planes[2 + k] = (struct shale_fs_plane){0.0f, 0.0f, bits_to_float(prov + o)};
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
   p->z = planes[0];
   const VkViewport *v = &st->viewport;
   p->depth_min = v->minDepth < v->maxDepth ? v->minDepth : v->maxDepth;
   p->depth_max = v->minDepth < v->maxDepth ? v->maxDepth : v->minDepth;

   VkResult res = sr_bin_box(vd->scene, p->layer, p->min_x, p->min_y, p->max_x, p->max_y,
                             (struct sr_cmd){.kind = SR_CMD_PRIM, .prim = p});
   if (res != VK_SUCCESS)
      vd->result = res;
}

/* Planes a draw clips against. */
static uint32_t
clip_planes(const struct sr_vdraw *vd)
{
   uint32_t planes = CLIP_W | CLIP_GX0 | CLIP_GX1 | CLIP_GY0 | CLIP_GY1;
   if (!vd->st->depth_clamp)
      planes |= CLIP_NEAR | CLIP_FAR;
   planes |= ((1u << vd->clip_count) - 1) * CLIP_USER0;
   return planes;
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

static void
triangle(struct sr_vdraw *vd, uint32_t i0, uint32_t i1, uint32_t i2, uint32_t iprov)
{
   uint32_t primitive_id = vd->primitive_id++;
   const uint32_t stride = vd->stride;
   const float *r[3] = {vd->verts + (size_t)i0 * stride, vd->verts + (size_t)i1 * stride,
                        vd->verts + (size_t)i2 * stride};
   const float *prov = vd->verts + (size_t)iprov * stride;
   if (culled_by_distance(vd, r, 3))
      return;
   const struct vp vp = viewport_of(vd->st);
   const uint32_t planes = clip_planes(vd);
   uint32_t c0 = clip_code(vd, &vp, r[0], planes), c1 = clip_code(vd, &vp, r[1], planes);
   uint32_t c2 = clip_code(vd, &vp, r[2], planes);
   if (c0 & c1 & c2)
      return;
   if (!((c0 | c1 | c2) & planes)) {
      struct wvert wv[3];
      for (int i = 0; i < 3; i++)
         to_window(&vp, r[i], &wv[i]);
      setup_triangle(vd, wv, r, prov, primitive_id);
      return;
   }

   float buf[2][MAX_POLY * MAX_STRIDE];
   unsigned n = 3, cur = 0;
   for (int i = 0; i < 3; i++)
      memcpy(buf[0] + (size_t)i * stride, r[i], stride * sizeof(float));
   for (uint32_t m = (c0 | c1 | c2) & planes; m && n >= 3; m &= m - 1) {
      n = clip_polygon(vd, &vp, buf[cur], n, (unsigned)__builtin_ctz(m), buf[cur ^ 1]);
      cur ^= 1;
   }
   if (n < 3)
      return;
   struct wvert wv[MAX_POLY];
   for (unsigned i = 0; i < n; i++)
      to_window(&vp, buf[cur] + (size_t)i * stride, &wv[i]);
   for (unsigned i = 1; i + 1 < n; i++) {
      struct wvert t[3] = {wv[0], wv[i], wv[i + 1]};
      const float *tr[3] = {buf[cur], buf[cur] + (size_t)i * stride, buf[cur] + (size_t)(i + 1) * stride};
      setup_triangle(vd, t, tr, prov, primitive_id);
   }
}

/* ---- Assembly ---- */

/* One run of positions [b, e) without restarts. */
static void
assemble(struct sr_vdraw *vd, uint32_t b, uint32_t e)
{
   const bool last = vd->st->provoking_last;
   switch (vd->st->topology) {
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      for (uint32_t i = b; i + 2 < e; i += 3)
         triangle(vd, i, i + 1, i + 2, last ? i + 2 : i);
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
      for (uint32_t i = b; i + 2 < e; i++) {
         uint32_t odd = (i - b) & 1;
         triangle(vd, i, i + 1 + odd, i + 2 - odd, last ? i + 2 : i);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN:
      for (uint32_t i = b + 1; i + 1 < e; i++)
         triangle(vd, i, i + 1, b, last ? i + 1 : i);
      break;
   default:
      break;
   }
}

void
sr_setup_instance(struct sr_vdraw *vd)
{
   if (!vd->restart) {
      assemble(vd, 0, vd->count);
      return;
   }
   uint32_t b = 0;
   for (uint32_t i = 0; i <= vd->count; i++) {
      if (i == vd->count || vd->restart[i]) {
         assemble(vd, b, i);
         b = i + 1;
      }
   }
}
