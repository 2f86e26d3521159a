/* The tessellation primitive generator (sr_tess.h, "The primitive
 * generator"): a patch's levels, domain, spacing, point mode and winding
 * to domain points (16.16 fixed point, converted to float exactly) and
 * index lists. Plain C, no state: one call generates one patch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sr_tess.h"

#define ONE SR_TESS_ONE

/* The points of one subdivided edge: t[0] = 0 .. t[n] = ONE, t[n - k] =
 * ONE - t[k] exactly. */
struct edge {
   uint32_t n;
   uint32_t t[SR_TESS_MAX_LEVEL + 1];
};

/* The generator's output, or only its counts when coord is NULL. */
struct gen {
   const struct sr_tess_params *p;
   float (*coord)[3];
   uint32_t *index;
   uint32_t nv, np;
};

uint32_t
sr_tess_level(enum sr_tess_spacing spacing, float level, float *clamped)
{
   float lo = spacing == SR_TESS_FRACTIONAL_EVEN ? 2.0f : 1.0f;
   float hi = spacing == SR_TESS_FRACTIONAL_ODD ? SR_TESS_MAX_LEVEL - 1 : SR_TESS_MAX_LEVEL;
   float f = !(level >= lo) ? lo : level > hi ? hi : level;   /* NaN: lo */
   uint32_t n;
   switch (spacing) {
   case SR_TESS_FRACTIONAL_EVEN:
      n = 2 * (uint32_t)ceilf(f * 0.5f);
      break;
   case SR_TESS_FRACTIONAL_ODD:
      n = 2 * (uint32_t)ceilf((f - 1.0f) * 0.5f) + 1;   /* f - 1 is exact for f >= 1 */
      break;
   default:
      n = (uint32_t)ceilf(f);
      break;
   }
   if (clamped)
      *clamped = f;
   return n;
}

/* Edge of n segments for the clamped level f: equal segments, or (fractional
 * spacing with f < n) n - 2 of length 1/f and two of (f - (n - 2)) / (2f)
 * next to the middle. The first half is computed, the second mirrored. */
static void
edge_init(struct edge *e, enum sr_tess_spacing spacing, uint32_t n, float f)
{
   bool equal = spacing == SR_TESS_EQUAL || n < 3 || f == (float)n;
   /* The short segment of the first half (segments before the middle). */
   uint32_t first_short = (n & 1) ? (n - 1) / 2 - 1 : n / 2 - 1;
   double full = 1.0 / f, part = (f - (n - 2.0)) / (2.0 * f);
   e->n = n;
   for (uint32_t k = 0; 2 * k <= n; k++) {
      uint32_t t;
      if (equal) {
         t = (uint32_t)(((uint64_t)k * ONE * 2 + n) / (2 * (uint64_t)n));
      } else {
         double pos = k > first_short ? (k - 1) * full + part : k * full;
         double x = floor(pos * ONE + 0.5);
         t = x < 0 ? 0 : x > ONE / 2 ? ONE / 2 : (uint32_t)x;
      }
      e->t[k] = t;
      e->t[n - k] = ONE - t;
   }
   if ((n & 1) == 0)
      e->t[n / 2] = ONE / 2;
}

/* A vertex at fixed-point (u, v, w); returns its index. */
static uint32_t
vertex(struct gen *g, uint32_t u, uint32_t v, uint32_t w)
{
   if (g->coord) {
      g->coord[g->nv][0] = (float)u * (1.0f / ONE);
      g->coord[g->nv][1] = (float)v * (1.0f / ONE);
      g->coord[g->nv][2] = (float)w * (1.0f / ONE);
   }
   return g->nv++;
}

/* A triangle, put in the requested winding by the sign of the spec's a
 * (exact in double: products of multiples of 2^-16 in [0, 1]). */
static void
triangle(struct gen *g, uint32_t a, uint32_t b, uint32_t c)
{
   if (g->p->point_mode)
      return;
   if (g->index) {
      const float *p0 = g->coord[a], *p1 = g->coord[b], *p2 = g->coord[c];
      double area = (double)p0[0] * p1[1] - (double)p1[0] * p0[1] +
                    (double)p1[0] * p2[1] - (double)p2[0] * p1[1] +
                    (double)p2[0] * p0[1] - (double)p0[0] * p2[1];
      /* Upper-left origin: a < 0 is counter-clockwise. */
      if (g->p->lower_left)
         area = -area;
      bool is_ccw = area < 0, is_cw = area > 0;
      if ((g->p->ccw && is_cw) || (!g->p->ccw && is_ccw)) {
         uint32_t x = b;
         b = c, c = x;
      }
      uint32_t *o = g->index + (size_t)g->np * 3;
      o[0] = a, o[1] = b, o[2] = c;
   }
   g->np++;
}

static void
segment(struct gen *g, uint32_t a, uint32_t b)
{
   if (g->p->point_mode)
      return;
   if (g->index) {
      g->index[(size_t)g->np * 2] = a;
      g->index[(size_t)g->np * 2 + 1] = b;
   }
   g->np++;
}

/* Fills the band between an outer polyline P (a segments, a + 1 vertices,
 * parameters pp along the side) and an inner one Q (b segments; b = 0: one
 * point), both running the same way: a + b triangles, advancing on the
 * side whose next segment's middle comes first. */
static void
stitch(struct gen *g, const uint32_t *P, const uint32_t *pp, uint32_t a,
       const uint32_t *Q, const uint32_t *qp, uint32_t b)
{
   uint32_t i = 0, j = 0;
   while (i < a || j < b) {
      bool outer = j == b || (i < a && pp[i] + pp[i + 1] <= qp[j] + qp[j + 1]);
      if (outer) {
         triangle(g, P[i], P[i + 1], Q[j]);
         i++;
      } else {
         triangle(g, P[i], Q[j + 1], Q[j]);
         j++;
      }
   }
}

/* ---- Triangles ---- */

/* A side of the triangle runs from corner A to corner B; coordinate c of a
 * point is written at its corner's slot. Sides: 0 is u = 0 (corner v to
 * corner w, outer level 0), 1 is v = 0 (w to u, level 1), 2 is w = 0 (u to
 * v, level 2). */
static const uint8_t side_a[3] = { 1, 2, 0 }, side_b[3] = { 2, 0, 1 };

static uint32_t
vertex3(struct gen *g, const uint32_t c[3])
{
   return vertex(g, c[0], c[1], c[2]);
}

/* A ring's vertices: per side its L + 1 indices (corners shared) and
 * parameters along the side. */
struct ring {
   uint32_t L;
   uint32_t idx[3][SR_TESS_MAX_LEVEL + 1];
   uint32_t par[3][SR_TESS_MAX_LEVEL + 1];
};

/* Ring r of the inner edge e (r + 1 .. n - r - 1 its points: L = n - 2r - 2
 * segments a side; L = 0 is the centre). Its corners are (1 - 2m, m, m)
 * and rotations, m = 2t/3 for t = e->t[r + 1]; a side point's two varying
 * coordinates split 1 - m linearly in the inner edge's parameter, the
 * half nearer B mirrored from the half nearer A and the middle split
 * evenly, so the ring is symmetric exactly. */
static void
ring_init(struct gen *g, const struct edge *e, uint32_t r, struct ring *R)
{
   uint32_t n = e->n, L = n - 2 * r - 2;
   uint32_t ta = e->t[r + 1], tb = e->t[n - r - 1];
   /* m rounded to an even value, so a side's middle point splits 1 - m
    * evenly and its reflection is exact. */
   uint32_t M = 2 * ((ta + 1) / 3);
   uint32_t D = ONE - 3 * M, span = tb - ta;
   R->L = L;
   if (L == 0) {
      M = (2 * ta + 1) / 3;   /* the nearest to 1/3: 21845 */
      uint32_t c = vertex(g, M, M, ONE - 2 * M);
      for (uint32_t s = 0; s < 3; s++)
         R->idx[s][0] = c, R->par[s][0] = ta;
      return;
   }
   uint32_t corner[3];
   for (uint32_t k = 0; k < 3; k++) {
      uint32_t c[3] = { M, M, M };
      c[k] = ONE - 2 * M;
      corner[k] = vertex3(g, c);
   }
   for (uint32_t s = 0; s < 3; s++) {
      uint32_t A = side_a[s], B = side_b[s];
      R->idx[s][0] = corner[A], R->idx[s][L] = corner[B];
      for (uint32_t j = 0; j <= L; j++)
         R->par[s][j] = e->t[r + 1 + j];
      for (uint32_t j = 1; j < L; j++) {
         uint32_t tk = e->t[r + 1 + j], c[3], cA, cB;
         if (2 * (uint64_t)(tk - ta) == span) {
            cA = cB = (ONE - M) / 2;
         } else if (2 * (uint64_t)(tk - ta) < span) {
            cB = M + (uint32_t)(((uint64_t)D * (tk - ta) * 2 + span) / (2 * (uint64_t)span));
            cA = ONE - M - cB;
         } else {
            cA = M + (uint32_t)(((uint64_t)D * (tb - tk) * 2 + span) / (2 * (uint64_t)span));
            cB = ONE - M - cA;
         }
         c[A] = cA, c[B] = cB, c[3 - A - B] = M;
         R->idx[s][j] = vertex3(g, c);
      }
   }
}

static void
tess_triangles(struct gen *g)
{
   const struct sr_tess_params *p = g->p;
   enum sr_tess_spacing sp = p->spacing;
   float fo[3], fi;
   uint32_t no[3], ni = sr_tess_level(sp, p->inner[0], &fi);
   for (uint32_t i = 0; i < 3; i++)
      no[i] = sr_tess_level(sp, p->outer[i], &fo[i]);
   if (ni == 1 && no[0] == 1 && no[1] == 1 && no[2] == 1) {
      uint32_t a = vertex(g, 0, 0, ONE), b = vertex(g, ONE, 0, 0), c = vertex(g, 0, ONE, 0);
      triangle(g, a, b, c);
      return;
   }
   if (ni == 1)   /* 1 + epsilon */
      ni = sp == SR_TESS_FRACTIONAL_ODD ? 3 : 2, fi = sp == SR_TESS_FRACTIONAL_EVEN ? 2.0f : 1.0f;
   struct edge ei;
   edge_init(&ei, sp, ni, fi);

   /* The outer edges: corners, then each side's inner points. */
   uint32_t corner[3], oidx[3][SR_TESS_MAX_LEVEL + 1];
   struct edge eo[3];
   for (uint32_t k = 0; k < 3; k++) {
      uint32_t c[3] = { 0, 0, 0 };
      c[k] = ONE;
      corner[k] = vertex3(g, c);
   }
   for (uint32_t s = 0; s < 3; s++) {
      uint32_t A = side_a[s], B = side_b[s], n = no[s];
      edge_init(&eo[s], sp, n, fo[s]);
      oidx[s][0] = corner[A], oidx[s][n] = corner[B];
      for (uint32_t k = 1; k < n; k++) {
         uint32_t c[3] = { 0, 0, 0 };
         c[A] = ONE - eo[s].t[k], c[B] = eo[s].t[k];
         oidx[s][k] = vertex3(g, c);
      }
   }

   /* Ring 0 and the outer band, then ring by ring inward. */
   struct ring rings[2];
   struct ring *in = &rings[0], *out = &rings[1];
   ring_init(g, &ei, 0, in);
   for (uint32_t s = 0; s < 3; s++)
      stitch(g, oidx[s], eo[s].t, no[s], in->idx[s], in->par[s], in->L);
   for (uint32_t r = 1; in->L >= 2; r++) {
      struct ring *x = out;
      out = in, in = x;
      ring_init(g, &ei, r, in);
      for (uint32_t s = 0; s < 3; s++)
         stitch(g, out->idx[s], out->par[s], out->L, in->idx[s], in->par[s], in->L);
   }
   if (in->L == 1)
      triangle(g, in->idx[0][0], in->idx[1][0], in->idx[2][0]);
}

/* ---- Quads ---- */

static void
tess_quads(struct gen *g)
{
   const struct sr_tess_params *p = g->p;
   enum sr_tess_spacing sp = p->spacing;
   float fo[4], fi[2];
   uint32_t no[4], ni[2];
   bool ones = true;
   for (uint32_t i = 0; i < 4; i++)
      no[i] = sr_tess_level(sp, p->outer[i], &fo[i]), ones = ones && no[i] == 1;
   for (uint32_t i = 0; i < 2; i++)
      ni[i] = sr_tess_level(sp, p->inner[i], &fi[i]), ones = ones && ni[i] == 1;
   if (ones) {
      uint32_t a = vertex(g, 0, 0, 0), b = vertex(g, ONE, 0, 0);
      uint32_t c = vertex(g, ONE, ONE, 0), d = vertex(g, 0, ONE, 0);
      triangle(g, a, b, c);
      triangle(g, a, c, d);
      return;
   }
   for (uint32_t i = 0; i < 2; i++)
      if (ni[i] == 1)   /* 1 + epsilon */
         ni[i] = sp == SR_TESS_FRACTIONAL_ODD ? 3 : 2,
         fi[i] = sp == SR_TESS_FRACTIONAL_EVEN ? 2.0f : 1.0f;
   struct edge eu, ev;   /* inner level 0 subdivides u, inner level 1 v */
   edge_init(&eu, sp, ni[0], fi[0]);
   edge_init(&ev, sp, ni[1], fi[1]);
   uint32_t nu = ni[0], nv = ni[1];

   /* Outer corners (0,0) (1,0) (1,1) (0,1); sides between them: 0 is v = 0
    * (outer level 1), 1 is u = 1 (level 2), 2 is v = 1 (level 3), 3 is
    * u = 0 (level 0), each running from corner s to corner s + 1. */
   static const uint8_t level_of_side[4] = { 1, 2, 3, 0 };
   uint32_t corner[4] = {
      vertex(g, 0, 0, 0), vertex(g, ONE, 0, 0), vertex(g, ONE, ONE, 0), vertex(g, 0, ONE, 0),
   };
   uint32_t oidx[4][SR_TESS_MAX_LEVEL + 1];
   struct edge eo[4];
   for (uint32_t s = 0; s < 4; s++) {
      uint32_t n = no[level_of_side[s]];
      edge_init(&eo[s], sp, n, fo[level_of_side[s]]);
      oidx[s][0] = corner[s], oidx[s][n] = corner[(s + 1) & 3];
      for (uint32_t k = 1; k < n; k++) {
         uint32_t t = eo[s].t[k], r = ONE - t;
         oidx[s][k] = s == 0 ? vertex(g, t, 0, 0) : s == 1 ? vertex(g, ONE, t, 0)
                    : s == 2 ? vertex(g, r, ONE, 0) : vertex(g, 0, r, 0);
      }
   }

   /* The inner grid: points (x, y), 1 <= x < nu, 1 <= y < nv. */
   uint32_t first = 0;
   for (uint32_t y = 1; y < nv; y++)
      for (uint32_t x = 1; x < nu; x++) {
         uint32_t i = vertex(g, eu.t[x], ev.t[y], 0);
         if (x == 1 && y == 1)
            first = i;
      }
#define GRID(x, y) (first + ((y) - 1) * (nu - 1) + ((x) - 1))
   for (uint32_t y = 1; y + 1 < nv; y++)
      for (uint32_t x = 1; x + 1 < nu; x++) {
         triangle(g, GRID(x, y), GRID(x + 1, y), GRID(x + 1, y + 1));
         triangle(g, GRID(x, y), GRID(x + 1, y + 1), GRID(x, y + 1));
      }

   /* The inner rectangle's sides, the same way round as the outer ones. */
   uint32_t qidx[SR_TESS_MAX_LEVEL + 1], qpar[SR_TESS_MAX_LEVEL + 1];
   for (uint32_t s = 0; s < 4; s++) {
      uint32_t b = (s & 1) ? nv - 2 : nu - 2;
      for (uint32_t j = 0; j <= b; j++) {
         switch (s) {
         case 0: qidx[j] = GRID(1 + j, 1), qpar[j] = eu.t[1 + j]; break;
         case 1: qidx[j] = GRID(nu - 1, 1 + j), qpar[j] = ev.t[1 + j]; break;
         case 2: qidx[j] = GRID(nu - 1 - j, nv - 1), qpar[j] = ONE - eu.t[nu - 1 - j]; break;
         default: qidx[j] = GRID(1, nv - 1 - j), qpar[j] = ONE - ev.t[nv - 1 - j]; break;
         }
      }
      stitch(g, oidx[s], eo[s].t, eo[s].n, qidx, qpar, b);
   }
#undef GRID
}

/* ---- Isolines ---- */

static void
tess_isolines(struct gen *g)
{
   const struct sr_tess_params *p = g->p;
   float f0, f1;
   uint32_t lines = sr_tess_level(SR_TESS_EQUAL, p->outer[0], &f0);
   uint32_t segs = sr_tess_level(p->spacing, p->outer[1], &f1);
   struct edge ev, eu;
   edge_init(&ev, SR_TESS_EQUAL, lines, f0);
   edge_init(&eu, p->spacing, segs, f1);
   for (uint32_t j = 0; j < lines; j++) {
      uint32_t prev = vertex(g, 0, ev.t[j], 0);
      for (uint32_t k = 1; k <= segs; k++) {
         uint32_t cur = vertex(g, eu.t[k], ev.t[j], 0);
         segment(g, prev, cur);
         prev = cur;
      }
   }
}

/* ---- Entry points ---- */

static bool
culled(const struct sr_tess_params *p)
{
   uint32_t relevant = p->domain == SR_TESS_QUADS ? 4 : p->domain == SR_TESS_TRIANGLES ? 3 : 2;
   for (uint32_t i = 0; i < relevant; i++)
      if (!(p->outer[i] > 0.0f))   /* <= 0 or NaN */
         return true;
   return false;
}

static void
run(struct gen *g)
{
   switch (g->p->domain) {
   case SR_TESS_TRIANGLES: tess_triangles(g); break;
   case SR_TESS_QUADS: tess_quads(g); break;
   default: tess_isolines(g); break;
   }
   if (g->p->point_mode) {
      if (g->index)
         for (uint32_t i = 0; i < g->nv; i++)
            g->index[i] = i;
      g->np = g->nv;
   }
}

static uint32_t
prim_verts(const struct sr_tess_params *p)
{
   return p->point_mode ? 1 : p->domain == SR_TESS_ISOLINES ? 2 : 3;
}

bool
sr_tess_count(const struct sr_tess_params *p, struct sr_tess_counts *c)
{
   memset(c, 0, sizeof(*c));
   if (culled(p))
      return false;
   struct gen g = { .p = p };
   run(&g);
   c->vertices = g.nv;
   c->primitives = g.np;
   c->prim_verts = prim_verts(p);
   return true;
}

void
sr_tess_generate(const struct sr_tess_params *p, float (*coord)[3], uint32_t *index)
{
   if (culled(p))
      return;
   struct gen g = { .p = p, .coord = coord, .index = index };
   run(&g);
}

static void *
tess_alloc(const VkAllocationCallbacks *a, size_t size)
{
   if (!a)
      return malloc(size);
   return a->pfnAllocation(a->pUserData, size, 16, VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
}

static void
tess_free(const VkAllocationCallbacks *a, void *ptr)
{
   if (!a)
      free(ptr);
   else if (ptr)
      a->pfnFree(a->pUserData, ptr);
}

VkResult
sr_tess_patch_build(const struct sr_tess_params *p, const VkAllocationCallbacks *alloc,
                    struct sr_tess_patch *out)
{
   memset(out, 0, sizeof(*out));
   struct sr_tess_counts c;
   if (!sr_tess_count(p, &c))
      return VK_SUCCESS;
   float (*coord)[3] = tess_alloc(alloc, (size_t)c.vertices * sizeof(*coord));
   uint32_t *index = coord ? tess_alloc(alloc, (size_t)c.primitives * c.prim_verts * sizeof(uint32_t))
                           : NULL;
   if (!coord || !index) {
      tess_free(alloc, coord);
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   }
   sr_tess_generate(p, coord, index);
   out->n = c, out->coord = coord, out->index = index;
   return VK_SUCCESS;
}

void
sr_tess_patch_free(struct sr_tess_patch *patch, const VkAllocationCallbacks *alloc)
{
   tess_free(alloc, patch->coord);
   tess_free(alloc, patch->index);
   memset(patch, 0, sizeof(*patch));
}
