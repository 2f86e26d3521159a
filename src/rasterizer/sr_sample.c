/* Texture sampling for compiled shaders: the spec's image operations on W lanes. */
#include "rasterizer/sr_sample.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/su_format.h"

/* Compiled code stores whole lane vectors at these offsets. */
_Static_assert(offsetof(struct shale_sample_args, coord) % 64 == 0, "lane arrays 64-aligned");
_Static_assert(offsetof(struct shale_sample_args, result) % 64 == 0, "lane arrays 64-aligned");

union texel {
   float f[4];
   uint32_t u[4];
   int32_t i[4];
};

enum cls { CLS_FLOAT, CLS_UINT, CLS_SINT };

/* What one call needs about its view and sampler. */
struct ctx {
   const struct shale_image_view_desc *v;
   const struct shale_sampler_desc *s;
   const struct su_format_desc *fmt;
   enum cls cls;
   bool depth, stencil;        /* the aspect read from a depth/stencil format */
   bool dref, unorm_depth;
   bool cube, arrayed;
   unsigned dims;              /* texel coordinates within a layer (cube: 2, on a face) */
   unsigned layer_coord;       /* index of the array coordinate */
   uint32_t layers;            /* array layers (cubes for cube views) */
   union texel border;         /* border texel after component substitution */
   /* Per-call state decoded once for every lane and texel. */
   uint8_t swz[4];             /* view swizzle: source component, SWZ_ZERO or SWZ_ONE */
   bool swz_identity;          /* every swz[k] == k */
   uint32_t one;               /* 1 in the format's class */
   int32_t size[16][3];        /* each level's width, height, depth */
};

enum { SWZ_ZERO = 4, SWZ_ONE = 5 };

/* A lane's coordinates once face and layer are resolved. */
struct lane {
   float s, t, r;              /* normalized (s, t, r), or face (s, t) for cubes */
   uint32_t layer;             /* view layer of the texels (cube: cube * 6 + face) */
   uint32_t face;
   float dref;
   int32_t off[3];
};

static uint32_t
minify(uint32_t v, uint32_t level)
{
   v >>= level;
   return v ? v : 1;
}

/* floor(x) as an integer, kept to +-2^30 (NaN gives 0) so that wrapping
 * arithmetic cannot overflow; such coordinates have lost every sub-texel
 * bit anyway. */
static int32_t
ifloor(float x)
{
   double d = floor((double)x);
   if (d != d)
      return 0;
   if (d < -1073741824.0)
      return -1073741824;
   if (d > 1073741824.0)
      return 1073741824;
   return (int32_t)d;
}

/* ---- texels ------------------------------------------------------------- */

static void
decode(const struct ctx *c, const uint8_t *p, union texel *t)
{
   if (c->depth) {
      t->f[0] = su_unpack_depth(c->fmt, p);
      t->f[1] = t->f[2] = 0.0f;
      t->f[3] = 1.0f;
   } else if (c->stencil) {
      t->u[0] = su_unpack_stencil(c->fmt, p);
      t->u[1] = t->u[2] = 0;
      t->u[3] = 1;
   } else if (c->cls == CLS_FLOAT) {
      su_unpack_float(c->fmt, p, t->f);
   } else if (c->cls == CLS_UINT) {
      su_unpack_uint(c->fmt, p, t->u);
   } else {
      su_unpack_sint(c->fmt, p, t->i);
   }
}

/* Texel (x, y) of level `level`, slice or layer z; all in range. */
static void
read_texel(const struct ctx *c, uint32_t level, uint32_t x, uint32_t y, uint32_t z,
           union texel *t)
{
   const struct shale_image_view_desc *v = c->v;
   const uint8_t *p = v->base + v->level_offset[level] + (uint64_t)z * v->slice_pitch[level] +
                      (uint64_t)y * v->row_pitch[level] + (uint64_t)x * v->texel_size;
   decode(c, p, t);
}

/* Border Replacement: the border colour's components for the components
 * the format has; component substitution gives the others. */
static void
border_init(struct ctx *c)
{
   uint32_t bc = c->s->border_color;
   bool opaque = bc == VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK || bc == VK_BORDER_COLOR_INT_OPAQUE_BLACK ||
                 bc == VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE || bc == VK_BORDER_COLOR_INT_OPAQUE_WHITE;
   bool white = bc == VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE || bc == VK_BORDER_COLOR_INT_OPAQUE_WHITE;
   union texel b;
   if (bc == VK_BORDER_COLOR_FLOAT_CUSTOM_EXT || bc == VK_BORDER_COLOR_INT_CUSTOM_EXT) {
      memcpy(b.u, c->s->custom_border, sizeof(b.u));
   } else {
      /* The numbers 0 and 1 in the format's class, whichever kind the
       * enum names (a mismatch is invalid; this is one defined answer). */
      for (int k = 0; k < 4; k++) {
         bool one = k < 3 ? white : opaque;
         if (c->cls == CLS_FLOAT)
            b.f[k] = one ? 1.0f : 0.0f;
         else
            b.u[k] = one ? 1 : 0;
      }
   }
   unsigned n = c->depth || c->stencil ? 1 : c->fmt->num_channels;
   for (unsigned k = 0; k < 4; k++) {
      if (k < n)
         c->border.u[k] = b.u[k];
      else if (c->cls == CLS_FLOAT)
         c->border.f[k] = k == 3 ? 1.0f : 0.0f;
      else
         c->border.u[k] = k == 3 ? 1 : 0;
   }
}

static bool
compare(uint32_t op, float ref, float test)
{
   switch (op) {
   case VK_COMPARE_OP_NEVER: return false;
   case VK_COMPARE_OP_LESS: return ref < test;
   case VK_COMPARE_OP_EQUAL: return ref == test;
   case VK_COMPARE_OP_LESS_OR_EQUAL: return ref <= test;
   case VK_COMPARE_OP_GREATER: return ref > test;
   case VK_COMPARE_OP_NOT_EQUAL: return ref != test;
   case VK_COMPARE_OP_GREATER_OR_EQUAL: return ref >= test;
   default: return true;
   }
}

/* Depth comparison, then the view's component swizzle. */
static void
finish_texel(const struct ctx *c, const struct lane *ln, union texel *t)
{
   if (c->dref)
      t->f[0] = compare(c->s->compare_op, ln->dref, t->f[0]) ? 1.0f : 0.0f;
   if (c->swz_identity)
      return;
   union texel in = *t;
   for (unsigned k = 0; k < 4; k++) {
      uint8_t sw = c->swz[k];
      t->u[k] = sw < 4 ? in.u[sw] : sw == SWZ_ONE ? c->one : 0u;
   }
}

/* The view's swizzle as finish_texel applies it: IDENTITY (and any value
 * that names no component) keeps component k. */
static void
swizzle_init(struct ctx *c)
{
   c->one = c->cls == CLS_FLOAT ? 0x3f800000u : 1u;
   c->swz_identity = true;
   for (unsigned k = 0; k < 4; k++) {
      uint32_t sw = c->v->swizzle[k];
      if (sw == VK_COMPONENT_SWIZZLE_ZERO)
         c->swz[k] = SWZ_ZERO;
      else if (sw == VK_COMPONENT_SWIZZLE_ONE)
         c->swz[k] = SWZ_ONE;
      else if (sw >= VK_COMPONENT_SWIZZLE_R && sw <= VK_COMPONENT_SWIZZLE_A)
         c->swz[k] = (uint8_t)(sw - VK_COMPONENT_SWIZZLE_R);
      else
         c->swz[k] = (uint8_t)k;
      c->swz_identity &= c->swz[k] == k;
   }
}

/* ---- cube maps ------------------------------------------------------------ */

/* Face f's major axis direction, and the directions of its s and t axes
 * (Cube Map Face and Coordinate Selection: s_c, t_c per face). */
static const int8_t cube_axes[6][3][3] = {
   { { 1, 0, 0 }, { 0, 0, -1 }, { 0, -1, 0 } },    /* +X: sc = -rz, tc = -ry */
   { { -1, 0, 0 }, { 0, 0, 1 }, { 0, -1, 0 } },    /* -X: sc = +rz, tc = -ry */
   { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } },      /* +Y: sc = +rx, tc = +rz */
   { { 0, -1, 0 }, { 1, 0, 0 }, { 0, 0, -1 } },    /* -Y: sc = +rx, tc = -rz */
   { { 0, 0, 1 }, { 1, 0, 0 }, { 0, -1, 0 } },     /* +Z: sc = +rx, tc = -ry */
   { { 0, 0, -1 }, { -1, 0, 0 }, { 0, -1, 0 } },   /* -Z: sc = -rx, tc = -ry */
};

static int32_t
dot3i(const int32_t a[3], const int8_t b[3])
{
   return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Cube Map Face Selection: ties go to z, then y. */
static uint32_t
cube_face(float x, float y, float z)
{
   float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
   if (az >= ax && az >= ay)
      return z < 0 ? 5 : 4;
   if (ay >= ax)
      return y < 0 ? 3 : 2;
   return x < 0 ? 1 : 0;
}

/* The face of direction dir and its s_c, t_c and |r_c|. */
static uint32_t
cube_coords(const float dir[3], float *sc, float *tc, float *rc)
{
   uint32_t f = cube_face(dir[0], dir[1], dir[2]);
   const int8_t(*ax)[3] = cube_axes[f];
   *sc = *tc = *rc = 0.0f;
   for (int k = 0; k < 3; k++) {
      *sc += ax[1][k] * dir[k];
      *tc += ax[2][k] * dir[k];
      *rc += ax[0][k] * dir[k];
   }
   return f;
}

/* The texel beyond one edge of face *f (exactly one of i, j is -1 or n):
 * the adjacent texel on the neighbouring face. In units of half texels
 * from the cube's centre, texel (i, j) of face f has the direction
 * n * major + (2i + 1 - n) * s_axis + (2j + 1 - n) * t_axis; one step past
 * the edge that direction's largest component moves to the other axis,
 * which is the neighbour's major axis; the old major component becomes
 * the neighbour's edge row. */
static void
cube_neighbour(uint32_t *f, int32_t *i, int32_t *j, int32_t n)
{
   const int8_t(*ax)[3] = cube_axes[*f];
   int32_t a = 2 * *i + 1 - n, b = 2 * *j + 1 - n;
   int32_t d[3];
   for (int k = 0; k < 3; k++)
      d[k] = n * ax[0][k] + a * ax[1][k] + b * ax[2][k];
   /* The axis that left the face, and the old major axis. */
   int out = 0, major = 0;
   for (int k = 0; k < 3; k++) {
      if (ax[0][k])
         major = k;
      if (abs(d[k]) > n)
         out = k;
   }
   uint32_t nf = (uint32_t)out * 2 + (d[out] < 0);
   d[out] = d[out] < 0 ? -n : n;
   d[major] = d[major] < 0 ? -(n - 1) : n - 1;
   *f = nf;
   *i = (dot3i(d, cube_axes[nf][1]) + n - 1) / 2;
   *j = (dot3i(d, cube_axes[nf][2]) + n - 1) / 2;
}

/* Texel (i, j) of face `face` of the lane's cube, i and j in [-1, n]
 * (Cube Map Edge Handling; corners average their three neighbours). */
static void
cube_texel(const struct ctx *c, uint32_t level, uint32_t cube_layer, uint32_t face, int32_t i,
           int32_t j, union texel *t)
{
   int32_t n = (int32_t)minify(c->v->width, level);
   /* Only gathers with (invalid) offsets reach further than one texel. */
   i = i < -1 ? -1 : i > n ? n : i;
   j = j < -1 ? -1 : j > n ? n : j;
   bool out_i = i < 0 || i >= n, out_j = j < 0 || j >= n;
   if (!out_i && !out_j) {
      read_texel(c, level, (uint32_t)i, (uint32_t)j, cube_layer + face, t);
      return;
   }
   if (out_i != out_j) {
      cube_neighbour(&face, &i, &j, n);
      read_texel(c, level, (uint32_t)i, (uint32_t)j, cube_layer + face, t);
      return;
   }
   /* A corner: the texel on this face at the corner, and the two texels
    * across its edges, averaged. */
   int32_t ci = i < 0 ? 0 : n - 1, cj = j < 0 ? 0 : n - 1;
   union texel s[3];
   read_texel(c, level, (uint32_t)ci, (uint32_t)cj, cube_layer + face, &s[0]);
   uint32_t f1 = face, f2 = face;
   int32_t i1 = i, j1 = cj, i2 = ci, j2 = j;
   cube_neighbour(&f1, &i1, &j1, n);
   cube_neighbour(&f2, &i2, &j2, n);
   read_texel(c, level, (uint32_t)i1, (uint32_t)j1, cube_layer + f1, &s[1]);
   read_texel(c, level, (uint32_t)i2, (uint32_t)j2, cube_layer + f2, &s[2]);
   if (c->cls != CLS_FLOAT) {
      *t = s[0];
      return;
   }
   for (int k = 0; k < 4; k++)
      t->f[k] = (s[0].f[k] + s[1].f[k] + s[2].f[k]) * (1.0f / 3.0f);
}

/* ---- filtering ---------------------------------------------------------- */

/* Texel (i, j, k) of `level` for the lane, through wrapping (or cube edge
 * handling), border replacement, depth comparison and swizzle. */
static void
get_texel(const struct ctx *c, const struct lane *ln, uint32_t level, int32_t i, int32_t j,
          int32_t k, union texel *t)
{
   if (c->cube) {
      cube_texel(c, level, ln->layer, ln->face, i, j, t);
   } else {
      const uint32_t *mode = c->s->address_mode;
      const int32_t *size = c->size[level];
      int32_t x = sr_sample_wrap(i, size[0], mode[0]);
      int32_t y = c->dims >= 2 ? sr_sample_wrap(j, size[1], mode[1]) : 0;
      int32_t z = c->dims >= 3 ? sr_sample_wrap(k, size[2], mode[2]) : (int32_t)ln->layer;
      if (x < 0 || y < 0 || z < 0)
         *t = c->border;
      else
         read_texel(c, level, (uint32_t)x, (uint32_t)y, (uint32_t)z, t);
   }
   finish_texel(c, ln, t);
}

/* Texel Nearest / Linear Filtering at unnormalized (u, v, w) of one level. */
static void
filter_level(const struct ctx *c, const struct lane *ln, uint32_t level, uint32_t filter, float u,
             float v, float w, union texel *out)
{
   bool linear = filter == VK_FILTER_LINEAR && c->cls == CLS_FLOAT;
   if (c->cube && !linear) {
      /* Nearest within a cube face is CLAMP_TO_EDGE on that face. */
      int32_t n = (int32_t)minify(c->v->width, level);
      int32_t i = ifloor(u), j = ifloor(v);
      i = i < 0 ? 0 : i >= n ? n - 1 : i;
      j = j < 0 ? 0 : j >= n ? n - 1 : j;
      get_texel(c, ln, level, i, j, 0, out);
      return;
   }
   if (!linear) {
      get_texel(c, ln, level, ifloor(u), ifloor(v), ifloor(w), out);
      return;
   }
   float uu = u - 0.5f, vv = v - 0.5f, ww = w - 0.5f;
   int32_t i0 = ifloor(uu), j0 = ifloor(vv), k0 = ifloor(ww);
   float wi[2], wj[2] = { 1.0f, 0.0f }, wk[2] = { 1.0f, 0.0f };
   float a = uu - floorf(uu);
   wi[0] = 1.0f - a;
   wi[1] = a;
   if (c->dims >= 2) {
      float b = vv - floorf(vv);
      wj[0] = 1.0f - b;
      wj[1] = b;
   }
   if (c->dims >= 3) {
      float g = ww - floorf(ww);
      wk[0] = 1.0f - g;
      wk[1] = g;
   }
   float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
   for (int dk = 0; dk < (c->dims >= 3 ? 2 : 1); dk++)
      for (int dj = 0; dj < (c->dims >= 2 ? 2 : 1); dj++)
         for (int di = 0; di < 2; di++) {
            float weight = wi[di] * wj[dj] * wk[dk];
            union texel t;
            get_texel(c, ln, level, i0 + di, j0 + dj, k0 + dk, &t);
            for (int q = 0; q < 4; q++)
               acc[q] += weight * t.f[q];
         }
   memcpy(out->f, acc, sizeof(acc));
}

/* The driver's maxSamplerLodBias. */
#define SR_MAX_SAMPLER_LOD_BIAS 16.0f

/* The bias added to a lane's lambda: the sampler's, plus a shader's Bias
 * operand (SHALE_SAMPLE_BIAS, GRAD only) clamped together as the spec's
 * "Scale Factor and LOD Operations" say. */
static float
lod_bias(const struct shale_sampler_desc *s, const struct shale_sample_args *args, unsigned l)
{
   if (!(args->op & SHALE_SAMPLE_BIAS) || (args->op & SHALE_SAMPLE_OP_MASK) != SHALE_SAMPLE_GRAD)
      return s->mip_lod_bias;
   float b = s->mip_lod_bias + args->lod[l];
   return fminf(fmaxf(b, -SR_MAX_SAMPLER_LOD_BIAS), SR_MAX_SAMPLER_LOD_BIAS);
}

/* The driver's maxSamplerAnisotropy. */
#define SR_MAX_SAMPLER_ANISOTROPY 16.0f

/* Texel Anisotropic Filtering of a GRAD lane: n isotropic probes along the
 * footprint's major axis, whose normalized-coordinate derivative is
 * (ds, dt); n is 1 where the lane is sampled isotropically. */
struct aniso {
   unsigned n;
   float ds, dt;
};

/* Whether a sampler with maxAnisotropy above 1 filters this view
 * anisotropically: 2D and 2D-array views of float classes (1D, 3D and cube
 * views, integer classes, unnormalized coordinates and Y'CbCr conversions
 * are sampled isotropically, as with maxAnisotropy 1). */
static bool
aniso_view(const struct ctx *c)
{
   return c->s && c->s->max_anisotropy > 1.0f && !c->s->unnormalized_coordinates && !c->cube &&
          c->dims == 2 && c->cls == CLS_FLOAT;
}

/* Scale Factor and LOD Operations: lambda of a GRAD lane. With anisotropy
 * (aniso_view), the spec's eta = min(rho_max / rho_min, maxAniso) (maxAniso
 * the sampler's maxAnisotropy, at most SR_MAX_SAMPLER_ANISOTROPY; rho_min 0
 * gives maxAniso) makes lambda_base log2(rho_max / eta), and *an (when not
 * NULL) gets N = ceil(eta) probes along the axis of rho_max (x where
 * rho_x > rho_y, else y); rho_max 0 or NaN stays isotropic. */
static float
lambda_grad(const struct ctx *c, const struct shale_sample_args *args, unsigned l, float x,
            float y, float z, struct aniso *an)
{
   float d[2][3];
   for (int e = 0; e < 2; e++)
      for (int k = 0; k < 3; k++)
         d[e][k] = k < (int)c->dims || c->cube ? args->grad[e][k][l] : 0.0f;
   if (c->cube) {
      /* Cube Map Derivative Transformation, the face's (s_c, t_c, r_c)
       * derivatives selected by the same table as the coordinates. */
      float dir[3] = { x, y, z }, sc, tc, rc;
      const int8_t(*ax)[3] = cube_axes[cube_coords(dir, &sc, &tc, &rc)];
      for (int e = 0; e < 2; e++) {
         float dsc = 0, dtc = 0, drc = 0;
         for (int k = 0; k < 3; k++) {
            dsc += ax[1][k] * d[e][k];
            dtc += ax[2][k] * d[e][k];
            drc += ax[0][k] * d[e][k];
         }
         float rr = rc * rc;
         d[e][0] = 0.5f * (rc * dsc - sc * drc) / rr;
         d[e][1] = 0.5f * (rc * dtc - tc * drc) / rr;
         d[e][2] = 0.0f;
      }
   }
   const struct shale_image_view_desc *v = c->v;
   float size[3] = { (float)v->width, (float)v->height, (float)v->depth };
   float rho[2];
   for (int e = 0; e < 2; e++) {
      float sum = 0.0f;
      for (int k = 0; k < 3; k++) {
         float m = d[e][k] * size[k];
         sum += m * m;
      }
      rho[e] = sqrtf(sum);
   }
   float rho_max = rho[0] > rho[1] ? rho[0] : rho[1];
   if (an)
      an->n = 1;
   if (aniso_view(c) && rho_max > 0.0f) {
      float rho_min = rho[0] > rho[1] ? rho[1] : rho[0];
      float max_aniso = fminf(c->s->max_anisotropy, SR_MAX_SAMPLER_ANISOTROPY);
      float eta = rho_min > 0.0f ? fminf(rho_max / rho_min, max_aniso) : max_aniso;
      if (an) {
         int e = rho[0] > rho[1] ? 0 : 1;
         an->n = (unsigned)ceilf(eta);
         an->ds = d[e][0];
         an->dt = d[e][1];
      }
      return log2f(rho_max / eta);
   }
   return log2f(rho_max);
}

/* The lane's coordinates: cube face and face coordinates, array layer. */
static void
lane_coords(const struct ctx *c, const struct shale_sample_args *args, unsigned l, struct lane *ln)
{
   ln->s = args->coord[0][l];
   ln->t = c->dims >= 2 ? args->coord[1][l] : 0.0f;
   ln->r = c->dims >= 3 || c->cube ? args->coord[2][l] : 0.0f;
   uint32_t layer = 0;
   if (c->arrayed) {
      /* clamp(RNE(a), 0, layers - 1) */
      float a = args->coord[c->layer_coord][l];
      if (a >= 0.0f) {
         float rne = nearbyintf(a);
         layer = rne >= (float)(c->layers - 1) ? c->layers - 1 : (uint32_t)rne;
      }
   }
   ln->face = 0;
   if (c->cube) {
      float dir[3] = { ln->s, ln->t, ln->r }, sc, tc, rc;
      uint32_t f = cube_coords(dir, &sc, &tc, &rc);
      ln->s = 0.5f * sc / rc + 0.5f;
      ln->t = 0.5f * tc / rc + 0.5f;
      ln->r = 0.0f;
      ln->face = f;
      layer *= 6;
   }
   ln->layer = layer;
   /* UNORM depth compares against D_ref clamped to [0, 1]. */
   float dref = c->dref ? args->dref[l] : 0.0f;
   if (c->unorm_depth)
      dref = dref > 0.0f ? (dref < 1.0f ? dref : 1.0f) : 0.0f;
   ln->dref = dref;
   for (int k = 0; k < 3; k++)
      ln->off[k] = args->op & SHALE_SAMPLE_OFFSET ? args->offset[k][l] : 0;
}

/* OpImageSample*: LOD, level selection, filtering and mipmap filtering. */
static void
sample_lane(const struct ctx *c, const struct shale_sample_args *args, unsigned l, union texel *out)
{
   const struct shale_sampler_desc *s = c->s;
   const struct shale_image_view_desc *v = c->v;
   struct lane ln;
   float x = args->coord[0][l], y = args->coord[1][l], z = args->coord[2][l];
   lane_coords(c, args, l, &ln);
   struct aniso an = { 1, 0.0f, 0.0f };
   float lambda = (args->op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD
                     ? lambda_grad(c, args, l, x, y, z, &an)
                     : args->lod[l];
   lambda += lod_bias(s, args, l);
   lambda = fminf(fmaxf(lambda, s->min_lod), s->max_lod);
   uint32_t filter = lambda <= 0.0f ? s->mag_filter : s->min_filter;
   float q = (float)(v->level_count - 1);
   float dl = lambda > 0.0f ? (lambda < q ? lambda : q) : 0.0f;
   uint32_t level[2];
   float delta = 0.0f;
   unsigned nlevels = 1;
   if (s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST || s->unnormalized_coordinates) {
      level[0] = (uint32_t)(ceilf(dl + 0.5f) - 1.0f);
   } else {
      level[0] = (uint32_t)floorf(dl);
      level[1] = level[0] + 1 < v->level_count ? level[0] + 1 : level[0];
      delta = dl - (float)level[0];
      nlevels = delta > 0.0f && c->cls == CLS_FLOAT ? 2 : 1;
   }
   union texel tau[2];
   for (unsigned n = 0; n < nlevels; n++) {
      uint32_t d = level[n];
      float u, vv, w;
      if (s->unnormalized_coordinates) {
         u = ln.s;
         vv = ln.t;
         w = 0.0f;
      } else {
         u = ln.s * (float)minify(v->width, d) + (float)ln.off[0];
         vv = ln.t * (float)minify(v->height, d) + (float)ln.off[1];
         w = ln.r * (float)minify(v->depth, d) + (float)ln.off[2];
      }
      if (an.n == 1) {
         filter_level(c, &ln, d, filter, u, vv, w, &tau[n]);
         continue;
      }
      /* tau_2Daniso: the mean of N isotropic samples at level d, probe i
       * (1 .. N) at the footprint's point x - 1/2 + i / (N + 1) along the
       * major axis (u and v move by that fraction of its derivative). */
      float su = (float)minify(v->width, d), sv = (float)minify(v->height, d);
      float acc[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
      for (unsigned i = 1; i <= an.n; i++) {
         float f = (float)i / (float)(an.n + 1) - 0.5f;
         union texel t;
         filter_level(c, &ln, d, filter, u + f * an.ds * su, vv + f * an.dt * sv, w, &t);
         for (int k = 0; k < 4; k++)
            acc[k] += t.f[k];
      }
      for (int k = 0; k < 4; k++)
         tau[n].f[k] = acc[k] / (float)an.n;
   }
   if (nlevels == 1) {
      *out = tau[0];
      return;
   }
   for (int k = 0; k < 4; k++)
      out->f[k] = (1.0f - delta) * tau[0].f[k] + delta * tau[1].f[k];
}

/* OpImageQueryLod (shader_abi.h, SHALE_SAMPLE_QUERY_LOD): the level
 * selection of sample_lane without the filtering. */
static void
query_lod_lane(const struct ctx *c, const struct shale_sample_args *args, unsigned l,
               union texel *out)
{
   const struct shale_sampler_desc *s = c->s;
   float lambda = lambda_grad(c, args, l, args->coord[0][l], args->coord[1][l],
                              args->coord[2][l], NULL) +
                  lod_bias(s, args, l);
   out->f[1] = lambda;
   lambda = fminf(fmaxf(lambda, s->min_lod), s->max_lod);
   float q = (float)(c->v->level_count - 1);
   float dl = lambda > 0.0f ? (lambda < q ? lambda : q) : 0.0f;
   if (s->mipmap_mode == VK_SAMPLER_MIPMAP_MODE_NEAREST)
      dl = ceilf(dl + 0.5f) - 1.0f;
   out->f[0] = dl;
   out->u[2] = out->u[3] = 0;
}

/* Texel Gathering: four texels of the base level's linear footprint. */
static void
gather_lane(const struct ctx *c, const struct shale_sample_args *args, unsigned l, union texel *out)
{
   const struct shale_image_view_desc *v = c->v;
   struct lane ln;
   lane_coords(c, args, l, &ln);
   float u = ln.s, vv = ln.t;
   if (!c->s->unnormalized_coordinates) {
      u = u * (float)v->width + (float)ln.off[0];
      vv = vv * (float)v->height + (float)ln.off[1];
   }
   int32_t i0 = ifloor(u - 0.5f), j0 = ifloor(vv - 0.5f);
   /* (i0, j1), (i1, j1), (i1, j0), (i0, j0) */
   static const int32_t corner[4][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 }, { 0, 0 } };
   uint32_t comp = c->dref ? 0 : args->component & 3;
   for (int n = 0; n < 4; n++) {
      int32_t i = i0 + corner[n][0], j = j0 + corner[n][1];
      if (args->op & SHALE_SAMPLE_GATHER_OFFSETS) {
         i = i0 + args->gather_offsets[n][0];
         j = j0 + args->gather_offsets[n][1];
      }
      union texel t;
      get_texel(c, &ln, 0, i, j, 0, &t);
      out->u[n] = t.u[comp];
   }
}

/* OpImageFetch: integer coordinates and level, no sampler. Out of range:
 * (0, 0, 0, 1), unswizzled. Multisampled views: lod[] is the sample with
 * SHALE_SAMPLE_SAMPLE (sample 0 without), and a pixel's samples are
 * adjacent texels. */
static void
fetch_lane(const struct ctx *c, const struct shale_sample_args *args, unsigned l, union texel *out)
{
   const struct shale_image_view_desc *v = c->v;
   int32_t ci[4];
   for (int k = 0; k < 4; k++)
      memcpy(&ci[k], &args->coord[k][l], 4);
   int32_t lod;
   memcpy(&lod, &args->lod[l], 4);
   int32_t sample = 0;
   if (args->op & SHALE_SAMPLE_SAMPLE) {
      sample = lod;
      lod = 0;
   }
   int32_t x = ci[0], y = 0, z = 0;
   switch (v->view_type) {
   case VK_IMAGE_VIEW_TYPE_1D:
      break;
   case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
      z = ci[1];
      break;
   case VK_IMAGE_VIEW_TYPE_2D:
      y = ci[1];
      break;
   default:   /* 2D array, 3D, and cube views as arrays of faces */
      y = ci[1];
      z = ci[2];
      break;
   }
   if (args->op & SHALE_SAMPLE_OFFSET) {
      x += args->offset[0][l];
      if (v->view_type != VK_IMAGE_VIEW_TYPE_1D && v->view_type != VK_IMAGE_VIEW_TYPE_1D_ARRAY)
         y += args->offset[1][l];
      if (v->view_type == VK_IMAGE_VIEW_TYPE_3D)
         z += args->offset[2][l];
   }
   uint32_t zmax = v->view_type == VK_IMAGE_VIEW_TYPE_3D ? 0 : v->layer_count;
   bool in = lod >= 0 && (uint32_t)lod < v->level_count;
   if (in) {
      if (!zmax)
         zmax = minify(v->depth, (uint32_t)lod);
      in = x >= 0 && (uint32_t)x < minify(v->width, (uint32_t)lod) && y >= 0 &&
           (uint32_t)y < minify(v->height, (uint32_t)lod) && z >= 0 && (uint32_t)z < zmax;
   }
   uint32_t samples = v->samples > 1 ? v->samples : 1;
   in = in && sample >= 0 && (uint32_t)sample < samples;
   if (!in) {
      out->u[0] = out->u[1] = out->u[2] = 0;
      out->u[3] = c->cls == CLS_FLOAT ? 0x3f800000u : 1u;
      return;
   }
   read_texel(c, (uint32_t)lod, (uint32_t)x * samples + (uint32_t)sample, (uint32_t)y, (uint32_t)z,
              out);
   struct lane ln = { 0 };
   finish_texel(c, &ln, out);
}

/* ---- Y'CbCr conversion ------------------------------------------------- */

/* What one call through a sampler Y'CbCr conversion needs: the planes of
 * a multi-planar view, or a single-plane view (an unsubsampled UNORM or
 * SFLOAT colour format, as one plane whose channels are R, G, B, A: what
 * external-format conversions of RGB AHardwareBuffers sample). Source
 * components are numbered as the format names them: 0 R (Cr), 1 G (Y'),
 * 2 B (Cb), 3 A; output components are those after the conversion's
 * swizzle. */
struct yctx {
   const struct shale_image_view_desc *v;
   const struct shale_sampler_desc *s;
   const struct shale_ycbcr_desc *y;
   struct shale_plane_desc planes[3];
   const struct su_format_desc *pf[3];       /* plane formats */
   uint8_t wdiv[3], hdiv[3];                 /* plane subsampling */
   struct su_component_location loc[4];      /* R, G, B, A */
   bool alpha;                               /* A is read (else 1) */
   uint8_t src_bits[4];                      /* bits of each source component */
   float n_max[3], scale[3];                 /* range expansion per output R, G, B: */
                                             /* 2^n - 1 and 2^(n-8), n its source's bits */
};

/* Bit depth n of output component k (the source its swizzle picks; the
 * format's widest component for ZERO and ONE, which only the RGB identity
 * model may use, and it expands nothing). */
static void
yctx_init_range(struct yctx *c)
{
   uint8_t widest = 0;
   for (int k = 0; k < 4; k++)
      widest = c->src_bits[k] > widest ? c->src_bits[k] : widest;
   for (int k = 0; k < 3; k++) {
      const uint32_t sw = c->y->swizzle[k];
      const int n = sw >= VK_COMPONENT_SWIZZLE_R && sw <= VK_COMPONENT_SWIZZLE_A
                       ? c->src_bits[sw - VK_COMPONENT_SWIZZLE_R]
                       : widest;
      c->n_max[k] = ldexpf(1.0f, n) - 1.0f;
      c->scale[k] = ldexpf(1.0f, n - 8);
   }
}

static bool
yctx_init(struct yctx *c, const struct shale_image_view_desc *v,
          const struct shale_sampler_desc *s)
{
   memset(c, 0, sizeof(*c));
   if (!v || !s || !s->ycbcr || v->format != s->conversion.format || !v->width || !v->height)
      return false;
   c->v = v;
   c->s = s;
   c->y = &s->conversion;
   if (!v->plane_count) {
      const struct su_format_desc *f = su_format_desc(v->format);
      if (!f || (f->kind != SU_KIND_UNORM && f->kind != SU_KIND_SFLOAT) || f->scaled ||
          f->block_width != 1 || su_format_is_depth_stencil(f) || f->bits[0] > 32 || !v->base ||
          v->texel_size != f->block_size)
         return false;
      c->planes[0] = (struct shale_plane_desc) { v->base, v->row_pitch[0], v->width, v->height,
                                                 v->format, v->texel_size };
      c->pf[0] = f;
      c->wdiv[0] = c->hdiv[0] = 1;
      for (uint8_t k = 0; k < 4; k++) {
         c->loc[k] = (struct su_component_location) { 0, k };
         c->src_bits[k] = f->bits[k];
      }
      /* A format without alpha reads it as one (su_unpack_float). */
      c->alpha = true;
      yctx_init_range(c);
      return true;
   }
   const struct su_multiplanar_desc *mp = su_format_multiplanar(v->format);
   if (!mp || mp->plane_count != v->plane_count)
      return false;
   for (uint32_t p = 0; p < v->plane_count; p++) {
      c->planes[p] = v->planes[p];
      c->pf[p] = su_format_desc(v->planes[p].format);
      c->wdiv[p] = mp->planes[p].width_divisor;
      c->hdiv[p] = mp->planes[p].height_divisor;
      if (!c->pf[p] || !v->planes[p].base || !v->planes[p].width || !v->planes[p].height)
         return false;
   }
   c->loc[0] = mp->r;
   c->loc[1] = mp->g;
   c->loc[2] = mp->b;
   for (int k = 0; k < 3; k++)
      c->src_bits[k] = mp->bits;
   yctx_init_range(c);
   return true;
}

static int32_t
clampi(int32_t i, uint32_t n)
{
   return i < 0 ? 0 : (uint32_t)i >= n ? (int32_t)n - 1 : i;
}

/* Source component k of texel (i, j) of its plane, clamped to the plane's
 * edge (the CLAMP_TO_EDGE every Y'CbCr sampler has); alpha is one where
 * the format has none. */
static float
yc_read(const struct yctx *c, int k, int32_t i, int32_t j)
{
   if (k == 3 && !c->alpha)
      return 1.0f;
   const struct su_component_location *l = &c->loc[k];
   const struct shale_plane_desc *p = &c->planes[l->plane];
   i = clampi(i, p->width);
   j = clampi(j, p->height);
   const uint8_t *t = p->base + (uint64_t)j * p->row_pitch + (uint64_t)i * p->texel_size;
   float rgba[4];
   su_unpack_float(c->pf[l->plane], t, rgba);
   return rgba[l->channel];
}

/* Source component k filtered (nearest or bilinear) at (u, v) in its
 * plane's texel space. */
static float
yc_filter(const struct yctx *c, int k, uint32_t filter, float u, float v)
{
   if (filter != VK_FILTER_LINEAR)
      return yc_read(c, k, ifloor(u), ifloor(v));
   float uu = u - 0.5f, vv = v - 0.5f;
   int32_t i0 = ifloor(uu), j0 = ifloor(vv);
   float a = uu - floorf(uu), b = vv - floorf(vv);
   return (1.0f - a) * (1.0f - b) * yc_read(c, k, i0, j0) + a * (1.0f - b) * yc_read(c, k, i0 + 1, j0) +
          (1.0f - a) * b * yc_read(c, k, i0, j0 + 1) + a * b * yc_read(c, k, i0 + 1, j0 + 1);
}

/* Component Swizzle of the conversion: output k from source components
 * `in` (indexed as the format names them). */
static float
yc_swizzle_one(const struct yctx *c, int k, const float in[4])
{
   const uint32_t sw = c->y->swizzle[k];
   return sw == VK_COMPONENT_SWIZZLE_ZERO ? 0.0f
          : sw == VK_COMPONENT_SWIZZLE_ONE ? 1.0f
          : sw >= VK_COMPONENT_SWIZZLE_R && sw <= VK_COMPONENT_SWIZZLE_A
             ? in[sw - VK_COMPONENT_SWIZZLE_R]
             : in[k];
}

/* Sampler Y'CbCr range expansion and model conversion of one swizzled
 * texel (no clamping). Each of R, G, B expands with its own bit depth. */
static void
yc_expand(const struct yctx *c, float t[4])
{
   const struct shale_ycbcr_desc *y = c->y;
   if (y->model == VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY)
      return;
   float luma, cb, cr;
   if (y->range == VK_SAMPLER_YCBCR_RANGE_ITU_NARROW) {
      luma = (t[1] * c->n_max[1] - 16.0f * c->scale[1]) / (219.0f * c->scale[1]);
      cb = (t[2] * c->n_max[2] - 128.0f * c->scale[2]) / (224.0f * c->scale[2]);
      cr = (t[0] * c->n_max[0] - 128.0f * c->scale[0]) / (224.0f * c->scale[0]);
   } else {
      /* 2^(n-1) / (2^n - 1) = 128 * 2^(n-8) / (2^n - 1). */
      luma = t[1];
      cb = t[2] - 128.0f * c->scale[2] / c->n_max[2];
      cr = t[0] - 128.0f * c->scale[0] / c->n_max[0];
   }
   float kr, kb;
   switch (y->model) {
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709:
      kr = 0.2126f;
      kb = 0.0722f;
      break;
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601:
      kr = 0.299f;
      kb = 0.114f;
      break;
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020:
      kr = 0.2627f;
      kb = 0.0593f;
      break;
   default:   /* YCBCR_IDENTITY: (Cr, Y', Cb, A) */
      t[0] = cr;
      t[1] = luma;
      t[2] = cb;
      return;
   }
   const float kg = 1.0f - kr - kb;
   t[0] = luma + 2.0f * (1.0f - kr) * cr;
   t[1] = luma - 2.0f * kb * (1.0f - kb) / kg * cb - 2.0f * kr * (1.0f - kr) / kg * cr;
   t[2] = luma + 2.0f * (1.0f - kb) * cb;
}

/* The coordinate of a chroma sample's texel space for luma coordinate x
 * (Implicit Reconstruction): halved with the chroma location when the
 * plane is subsampled in that dimension. */
static float
yc_chroma_coord(float x, uint32_t divisor, uint32_t location)
{
   if (divisor != 2)
      return x;
   return location == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5f * (x + 0.5f) : 0.5f * x;
}

/* Implicit reconstruction: each output component is its swizzled source
 * filtered where that source's samples are, chroma (the swizzled R and B,
 * which chroma reconstruction follows) by chromaFilter, the others by the
 * sampler's filter; then range expansion and model conversion. A
 * single-plane format is subsampled nowhere, so only the filters differ. */
static void
yc_sample_implicit(const struct yctx *c, float u, float v, uint32_t filter, float out[4])
{
   for (int k = 0; k < 4; k++) {
      const uint32_t sw = c->y->swizzle[k];
      if (sw == VK_COMPONENT_SWIZZLE_ZERO || sw == VK_COMPONENT_SWIZZLE_ONE) {
         out[k] = sw == VK_COMPONENT_SWIZZLE_ONE ? 1.0f : 0.0f;
         continue;
      }
      const int src = sw >= VK_COMPONENT_SWIZZLE_R && sw <= VK_COMPONENT_SWIZZLE_A
                         ? (int)(sw - VK_COMPONENT_SWIZZLE_R)
                         : k;
      const uint32_t p = c->loc[src].plane;
      out[k] = yc_filter(c, src, k == 0 || k == 2 ? c->y->chroma_filter : filter,
                         yc_chroma_coord(u, c->wdiv[p], c->y->chroma_offset[0]),
                         yc_chroma_coord(v, c->hdiv[p], c->y->chroma_offset[1]));
   }
   yc_expand(c, out);
}

/* Explicit reconstruction of source component k at full-resolution texel
 * (i, j), i and j inside the image (a component that is not subsampled is
 * its own texel). */
static float
yc_chroma_explicit(const struct yctx *c, int k, int32_t i, int32_t j)
{
   const uint32_t p = c->loc[k].plane;
   if (c->y->chroma_filter != VK_FILTER_LINEAR || (c->wdiv[p] == 1 && c->hdiv[p] == 1))
      return yc_read(c, k, i / c->wdiv[p], j / c->hdiv[p]);
   float irb = (float)i, jrb = (float)j;
   if (c->wdiv[p] == 2)
      irb = c->y->chroma_offset[0] == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5f * irb
                                                                       : 0.5f * (irb - 0.5f);
   if (c->hdiv[p] == 2)
      jrb = c->y->chroma_offset[1] == VK_CHROMA_LOCATION_COSITED_EVEN ? 0.5f * jrb
                                                                       : 0.5f * (jrb - 0.5f);
   int32_t i0 = ifloor(irb), j0 = ifloor(jrb);
   float a = irb - (float)i0, b = jrb - (float)j0;
   return (1.0f - a) * (1.0f - b) * yc_read(c, k, i0, j0) + a * (1.0f - b) * yc_read(c, k, i0 + 1, j0) +
          (1.0f - a) * b * yc_read(c, k, i0, j0 + 1) + a * b * yc_read(c, k, i0 + 1, j0 + 1);
}

/* tau'(i, j) of explicit reconstruction, converted: texel (i, j) clamped to
 * the image (CLAMP_TO_EDGE), its chroma reconstructed, swizzled. */
static void
yc_texel_explicit(const struct yctx *c, int32_t i, int32_t j, float out[4])
{
   i = clampi(i, c->v->width);
   j = clampi(j, c->v->height);
   float in[4];
   in[1] = yc_read(c, 1, i, j);
   in[0] = yc_chroma_explicit(c, 0, i, j);
   in[2] = yc_chroma_explicit(c, 2, i, j);
   in[3] = yc_read(c, 3, i, j);
   for (int k = 0; k < 4; k++)
      out[k] = yc_swizzle_one(c, k, in);
   yc_expand(c, out);
}

/* Explicit reconstruction: converted full-resolution texels, filtered by the
 * sampler's filter. */
static void
yc_sample_explicit(const struct yctx *c, float u, float v, uint32_t filter, float out[4])
{
   if (filter != VK_FILTER_LINEAR) {
      yc_texel_explicit(c, ifloor(u), ifloor(v), out);
      return;
   }
   float uu = u - 0.5f, vv = v - 0.5f;
   int32_t i0 = ifloor(uu), j0 = ifloor(vv);
   float a = uu - floorf(uu), b = vv - floorf(vv);
   float t[4][4];
   yc_texel_explicit(c, i0, j0, t[0]);
   yc_texel_explicit(c, i0 + 1, j0, t[1]);
   yc_texel_explicit(c, i0, j0 + 1, t[2]);
   yc_texel_explicit(c, i0 + 1, j0 + 1, t[3]);
   for (int k = 0; k < 4; k++)
      out[k] = (1.0f - a) * (1.0f - b) * t[0][k] + a * (1.0f - b) * t[1][k] +
               (1.0f - a) * b * t[2][k] + a * b * t[3][k];
}

/* OpImageSample*ExplicitLod through a Y'CbCr conversion (one level: the
 * LOD only picks the magnification or minification filter). */
static void
yc_sample_lane(const struct yctx *c, const struct shale_sample_args *args, unsigned l,
               float out[4])
{
   const struct shale_sampler_desc *s = c->s;
   float lambda;
   if ((args->op & SHALE_SAMPLE_OP_MASK) == SHALE_SAMPLE_GRAD) {
      struct ctx g;
      memset(&g, 0, sizeof(g));
      g.v = c->v;
      g.dims = 2;
      lambda = lambda_grad(&g, args, l, 0.0f, 0.0f, 0.0f, NULL);
   } else {
      lambda = args->lod[l];
   }
   lambda += lod_bias(s, args, l);
   lambda = fminf(fmaxf(lambda, s->min_lod), s->max_lod);
   const uint32_t filter = lambda <= 0.0f ? s->mag_filter : s->min_filter;
   const float u = args->coord[0][l] * (float)c->v->width, v = args->coord[1][l] * (float)c->v->height;
   if (c->y->explicit_reconstruction)
      yc_sample_explicit(c, u, v, filter, out);
   else
      yc_sample_implicit(c, u, v, filter, out);
}

/* ---- entry -------------------------------------------------------------- */

bool
sr_sample_format_supported(VkFormat format)
{
   const struct su_format_desc *d = su_format_desc(format);
   if (!d || d->kind == SU_KIND_COMPRESSED)
      return false;
   if (su_format_is_depth_stencil(d))
      return true;
   return d->bits[0] != 64;
}

static bool
ctx_init(struct ctx *c, const struct shale_image_view_desc *view,
         const struct shale_sampler_desc *sampler, uint32_t op)
{
   memset(c, 0, sizeof(*c));
   c->v = view;
   c->s = sampler;
   if (!view || !view->base || !view->level_count || view->level_count > 16 ||
       !view->layer_count || !sr_sample_format_supported(view->format))
      return false;
   if (op != SHALE_SAMPLE_FETCH && !sampler)
      return false;
   c->fmt = su_format_desc(view->format);
   if (su_format_is_depth_stencil(c->fmt)) {
      bool has_depth = (c->fmt->aspects & VK_IMAGE_ASPECT_DEPTH_BIT) != 0;
      bool want_stencil = view->aspect == VK_IMAGE_ASPECT_STENCIL_BIT || !has_depth;
      c->stencil = want_stencil && (c->fmt->aspects & VK_IMAGE_ASPECT_STENCIL_BIT);
      c->depth = !c->stencil;
      c->cls = c->stencil ? CLS_UINT : CLS_FLOAT;
      c->unorm_depth = c->depth && su_format_depth_bits(c->fmt) != 32;
   } else {
      enum su_numeric_class k = su_format_class(c->fmt);
      c->cls = k == SU_CLASS_UINT ? CLS_UINT : k == SU_CLASS_SINT ? CLS_SINT : CLS_FLOAT;
   }
   switch (view->view_type) {
   case VK_IMAGE_VIEW_TYPE_1D_ARRAY:
      c->arrayed = true;
      c->layer_coord = 1;
      /* fallthrough */
   case VK_IMAGE_VIEW_TYPE_1D:
      c->dims = 1;
      break;
   case VK_IMAGE_VIEW_TYPE_2D_ARRAY:
      c->arrayed = true;
      c->layer_coord = 2;
      c->dims = 2;
      break;
   case VK_IMAGE_VIEW_TYPE_3D:
      c->dims = 3;
      break;
   case VK_IMAGE_VIEW_TYPE_CUBE_ARRAY:
      c->arrayed = true;
      c->layer_coord = 3;
      /* fallthrough */
   case VK_IMAGE_VIEW_TYPE_CUBE:
      c->cube = true;
      c->dims = 2;
      break;
   default:
      c->dims = 2;
      break;
   }
   c->layers = c->cube ? view->layer_count / 6 : view->layer_count;
   if (c->cube && (!c->layers || view->width != view->height))
      return false;
   for (uint32_t l = 0; l < view->level_count; l++) {
      c->size[l][0] = (int32_t)minify(view->width, l);
      c->size[l][1] = (int32_t)minify(view->height, l);
      c->size[l][2] = (int32_t)minify(view->depth, l);
   }
   swizzle_init(c);
   if (op == SHALE_SAMPLE_FETCH)
      return true;
   border_init(c);
   return true;
}

void
sr_sample(const struct shale_image_view_desc *view, const struct shale_sampler_desc *sampler,
          struct shale_sample_args *args)
{
   uint32_t op = args->op & SHALE_SAMPLE_OP_MASK;
   if (sampler && sampler->ycbcr) {
      /* Only sampling with Lod or Grad may use a conversion; anything else
       * (and a view the conversion does not fit) reads zeros. */
      struct yctx y;
      bool ok = (op == SHALE_SAMPLE_LOD || op == SHALE_SAMPLE_GRAD) && yctx_init(&y, view, sampler);
      for (unsigned l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
         if (!(args->lanes & (1u << l)))
            continue;
         float t[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
         if (ok)
            yc_sample_lane(&y, args, l, t);
         for (int k = 0; k < 4; k++)
            memcpy(&args->result[k][l], &t[k], 4);
      }
      return;
   }
   struct ctx c;
   bool ok = ctx_init(&c, view, sampler, op);
   c.dref = ok && op != SHALE_SAMPLE_FETCH && (args->op & SHALE_SAMPLE_DREF) && c.depth;
   for (unsigned l = 0; l < SHALE_MAX_SIMD_WIDTH; l++) {
      if (!(args->lanes & (1u << l)))
         continue;
      union texel t = { .u = { 0, 0, 0, 0 } };
      if (ok) {
         switch (op) {
         case SHALE_SAMPLE_FETCH:
            fetch_lane(&c, args, l, &t);
            break;
         case SHALE_SAMPLE_GATHER:
            gather_lane(&c, args, l, &t);
            break;
         case SHALE_SAMPLE_QUERY_LOD:
            query_lod_lane(&c, args, l, &t);
            break;
         default:
            sample_lane(&c, args, l, &t);
            break;
         }
      }
      for (int k = 0; k < 4; k++)
         args->result[k][l] = t.u[k];
   }
}
