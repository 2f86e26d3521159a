/* Unit test of sr_tess, the tessellation primitive generator: level
 * clamping and rounding per spacing, primitive and vertex counts against
 * closed forms, coordinates inside the domain (u + v + w exactly 1),
 * every triangle set a valid triangulation (one winding, areas summing to
 * the domain's, interior edges shared by exactly two triangles), outer
 * edge points matching exactly between patches (watertightness), symmetry,
 * culling, fractional segments, point mode, winding and origin, and
 * allocation failures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rasterizer/sr_tess.h"

static const char *const domain_name[] = { "triangles", "quads", "isolines" };
static const char *const spacing_name[] = { "equal", "fractional_even", "fractional_odd" };

static struct sr_tess_params
params(enum sr_tess_domain d, enum sr_tess_spacing s, float o0, float o1, float o2, float o3,
       float i0, float i1)
{
   struct sr_tess_params p = { .domain = d, .spacing = s, .outer = { o0, o1, o2, o3 },
                               .inner = { i0, i1 } };
   return p;
}

static struct sr_tess_patch
build(const struct sr_tess_params *p)
{
   struct sr_tess_patch t;
   VkResult r = sr_tess_patch_build(p, NULL, &t);
   CHECK(r == VK_SUCCESS, "build: %d", r);
   return t;
}

/* The fixed-point value of a coordinate (exact: coordinates are k/65536). */
static uint32_t
fx(float c)
{
   return (uint32_t)(c * 65536.0f);
}

/* The spec's a for triangle t (twice its signed area in (u, v)). */
static double
area_of(const struct sr_tess_patch *t, uint32_t i)
{
   const float *p0 = t->coord[t->index[3 * i]], *p1 = t->coord[t->index[3 * i + 1]],
               *p2 = t->coord[t->index[3 * i + 2]];
   return (double)p0[0] * p1[1] - (double)p1[0] * p0[1] + (double)p1[0] * p2[1] -
          (double)p2[0] * p1[1] + (double)p2[0] * p0[1] - (double)p0[0] * p2[1];
}

/* Both points on one boundary line of the domain. */
static bool
on_same_boundary(const struct sr_tess_params *p, const float *a, const float *b)
{
   if (p->domain == SR_TESS_TRIANGLES)
      return (a[0] == 0 && b[0] == 0) || (a[1] == 0 && b[1] == 0) || (a[2] == 0 && b[2] == 0);
   return (a[0] == 0 && b[0] == 0) || (a[0] == 1 && b[0] == 1) || (a[1] == 0 && b[1] == 0) ||
          (a[1] == 1 && b[1] == 1);
}

static int
cmp_u64(const void *a, const void *b)
{
   uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
   return x < y ? -1 : x > y;
}

/* Everything that must hold for any patch: counts, coordinates, indices;
 * for triangles (nondegenerate: every triangle of nonzero area, distinct
 * points) a valid triangulation in the requested winding. */
static void
validate(const struct sr_tess_params *p, const struct sr_tess_patch *t, bool nondegenerate,
         const char *what)
{
   struct sr_tess_counts c;
   sr_tess_count(p, &c);
   CHECK(c.vertices == t->n.vertices && c.primitives == t->n.primitives &&
         c.prim_verts == t->n.prim_verts, "%s: count and build agree", what);
   uint32_t pv = p->point_mode ? 1 : p->domain == SR_TESS_ISOLINES ? 2 : 3;
   CHECK_EQ_INT(t->n.prim_verts, pv);

   uint32_t outside = 0, badsum = 0;
   for (uint32_t i = 0; i < t->n.vertices; i++) {
      const float *v = t->coord[i];
      for (int k = 0; k < 3; k++)
         outside += !(v[k] >= 0.0f && v[k] <= 1.0f) || v[k] * 65536.0f != floorf(v[k] * 65536.0f);
      if (p->domain == SR_TESS_TRIANGLES)
         badsum += (v[0] + v[1]) + v[2] != 1.0f || fx(v[0]) + fx(v[1]) + fx(v[2]) != 65536;
      else
         badsum += v[2] != 0.0f;
   }
   CHECK(outside == 0, "%s: %u coordinates outside [0, 1] or not k/65536", what, outside);
   CHECK(badsum == 0, "%s: %u vertices with u + v + w != 1 (triangles) or w != 0", what, badsum);

   uint32_t ni = t->n.primitives * t->n.prim_verts, bad_index = 0;
   uint8_t *used = calloc(t->n.vertices + 1, 1);
   for (uint32_t i = 0; i < ni; i++) {
      bad_index += t->index[i] >= t->n.vertices;
      if (t->index[i] < t->n.vertices)
         used[t->index[i]] = 1;
   }
   CHECK(bad_index == 0, "%s: %u indices out of range", what, bad_index);
   uint32_t unused = 0;
   for (uint32_t i = 0; i < t->n.vertices; i++)
      unused += !used[i];
   CHECK(unused == 0, "%s: %u vertices no primitive uses", what, unused);
   free(used);

   if (nondegenerate) {
      /* Distinct points. */
      uint64_t *keys = malloc(((size_t)t->n.vertices + 1) * sizeof(uint64_t));
      for (uint32_t i = 0; i < t->n.vertices; i++)
         keys[i] = (uint64_t)fx(t->coord[i][0]) << 32 | fx(t->coord[i][1]);
      qsort(keys, t->n.vertices, sizeof(uint64_t), cmp_u64);
      uint32_t dup = 0;
      for (uint32_t i = 1; i < t->n.vertices; i++)
         dup += keys[i] == keys[i - 1];
      CHECK(dup == 0, "%s: %u repeated points", what, dup);
      free(keys);
   }

   if (p->point_mode || p->domain == SR_TESS_ISOLINES)
      return;
   /* Winding: a < 0 is counter-clockwise with the upper-left origin. */
   double sum = 0;
   uint32_t wrong = 0, flat = 0;
   for (uint32_t i = 0; i < t->n.primitives; i++) {
      double a = area_of(t, i);
      double s = p->lower_left ? -a : a;
      if (a == 0)
         flat++;
      else if (p->ccw ? s > 0 : s < 0)
         wrong++;
      sum += fabs(a);
   }
   CHECK(wrong == 0, "%s: %u triangles in the wrong winding", what, wrong);
   if (!nondegenerate)
      return;
   CHECK(flat == 0, "%s: %u zero-area triangles", what, flat);
   double domain = p->domain == SR_TESS_TRIANGLES ? 1.0 : 2.0;
   CHECK(sum == domain, "%s: areas sum to %.17g, expected %g", what, sum, domain);

   /* Directed edges: each once; one without its reverse lies on the
    * domain's boundary. */
   uint32_t ne = t->n.primitives * 3;
   uint64_t *e = malloc(((size_t)ne + 1) * sizeof(uint64_t));
   for (uint32_t i = 0; i < t->n.primitives; i++)
      for (uint32_t k = 0; k < 3; k++)
         e[i * 3 + k] = (uint64_t)t->index[i * 3 + k] << 32 | t->index[i * 3 + (k + 1) % 3];
   qsort(e, ne, sizeof(uint64_t), cmp_u64);
   uint32_t twice = 0, open = 0;
   for (uint32_t i = 0; i < ne; i++) {
      if (i > 0 && e[i] == e[i - 1])
         twice++;
      uint64_t rev = (e[i] & 0xffffffffu) << 32 | e[i] >> 32;
      if (!bsearch(&rev, e, ne, sizeof(uint64_t), cmp_u64) &&
          !on_same_boundary(p, t->coord[e[i] >> 32], t->coord[e[i] & 0xffffffffu]))
         open++;
   }
   CHECK(twice == 0, "%s: %u directed edges used twice (overlap)", what, twice);
   CHECK(open == 0, "%s: %u interior edges without a neighbour (hole)", what, open);
   free(e);
}

/* ---- Levels ---- */

static void
test_levels(void)
{
   static const struct {
      enum sr_tess_spacing s;
      float level, clamped;
      uint32_t n;
   } cases[] = {
      { SR_TESS_EQUAL, 0.5f, 1.0f, 1 },     { SR_TESS_EQUAL, 1.0f, 1.0f, 1 },
      { SR_TESS_EQUAL, 1.0001f, 1.0001f, 2 }, { SR_TESS_EQUAL, 2.5f, 2.5f, 3 },
      { SR_TESS_EQUAL, 64.0f, 64.0f, 64 },  { SR_TESS_EQUAL, 100.0f, 64.0f, 64 },
      { SR_TESS_EQUAL, -3.0f, 1.0f, 1 },    { SR_TESS_EQUAL, INFINITY, 64.0f, 64 },
      { SR_TESS_EQUAL, NAN, 1.0f, 1 },
      { SR_TESS_FRACTIONAL_EVEN, 1.0f, 2.0f, 2 }, { SR_TESS_FRACTIONAL_EVEN, 2.0f, 2.0f, 2 },
      { SR_TESS_FRACTIONAL_EVEN, 2.1f, 2.1f, 4 }, { SR_TESS_FRACTIONAL_EVEN, 3.0f, 3.0f, 4 },
      { SR_TESS_FRACTIONAL_EVEN, 4.0f, 4.0f, 4 }, { SR_TESS_FRACTIONAL_EVEN, 63.5f, 63.5f, 64 },
      { SR_TESS_FRACTIONAL_EVEN, 100.0f, 64.0f, 64 }, { SR_TESS_FRACTIONAL_EVEN, NAN, 2.0f, 2 },
      { SR_TESS_FRACTIONAL_ODD, 0.2f, 1.0f, 1 }, { SR_TESS_FRACTIONAL_ODD, 1.0f, 1.0f, 1 },
      { SR_TESS_FRACTIONAL_ODD, 1.5f, 1.5f, 3 }, { SR_TESS_FRACTIONAL_ODD, 3.0f, 3.0f, 3 },
      { SR_TESS_FRACTIONAL_ODD, 3.01f, 3.01f, 5 }, { SR_TESS_FRACTIONAL_ODD, 62.0f, 62.0f, 63 },
      { SR_TESS_FRACTIONAL_ODD, 63.0f, 63.0f, 63 }, { SR_TESS_FRACTIONAL_ODD, 64.0f, 63.0f, 63 },
   };
   for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
      float f = -1;
      uint32_t n = sr_tess_level(cases[i].s, cases[i].level, &f);
      CHECK(n == cases[i].n && f == cases[i].clamped, "%s level %g: n %u f %g, expected %u %g",
            spacing_name[cases[i].s], cases[i].level, n, f, cases[i].n, cases[i].clamped);
   }
}

/* ---- Counts against closed forms (integer levels each spacing keeps) ---- */

static void
expected_triangles(uint32_t o0, uint32_t o1, uint32_t o2, uint32_t in, bool odd, uint32_t *v,
                   uint32_t *prims)
{
   if (in == 1 && o0 == 1 && o1 == 1 && o2 == 1) {
      *v = 3, *prims = 1;
      return;
   }
   if (in == 1)
      in = odd ? 3 : 2;
   *v = *prims = o0 + o1 + o2;
   for (int L = (int)in - 2; L >= 0; L -= 2) {
      *v += L == 0 ? 1 : 3 * (uint32_t)L;
      *prims += L == 0 ? 0 : L == 1 ? 4 : 6 * (uint32_t)L;
   }
}

static void
expected_quads(const uint32_t o[4], uint32_t i0, uint32_t i1, bool odd, uint32_t *v, uint32_t *prims)
{
   if (i0 == 1 && i1 == 1 && o[0] == 1 && o[1] == 1 && o[2] == 1 && o[3] == 1) {
      *v = 4, *prims = 2;
      return;
   }
   if (i0 == 1)
      i0 = odd ? 3 : 2;
   if (i1 == 1)
      i1 = odd ? 3 : 2;
   uint32_t so = o[0] + o[1] + o[2] + o[3];
   *v = so + (i0 - 1) * (i1 - 1);
   *prims = 2 * (i0 - 2) * (i1 - 2) + 2 * (i0 - 2) + 2 * (i1 - 2) + so;
}

/* The levels a spacing keeps as they are: any for equal, even ones for
 * fractional even, odd ones for fractional odd. */
static uint32_t
kept(enum sr_tess_spacing s, uint32_t k)
{
   return s == SR_TESS_EQUAL ? k : s == SR_TESS_FRACTIONAL_EVEN ? 2 * k : 2 * k - 1;
}

static void
test_counts(void)
{
   char what[160];
   for (int s = 0; s < 3; s++) {
      bool odd = s == SR_TESS_FRACTIONAL_ODD;
      uint32_t mismatches = 0, runs = 0;
      for (uint32_t a = 1; a <= 7; a++)
         for (uint32_t b = 1; b <= 7; b++) {
            /* Triangles: inner a, outer (b, a, b+1 kept). */
            uint32_t in = kept(s, a), o0 = kept(s, b), o1 = kept(s, a), o2 = kept(s, b % 7 + 1);
            struct sr_tess_params p = params(SR_TESS_TRIANGLES, s, o0, o1, o2, 0, in, 0);
            struct sr_tess_patch t = build(&p);
            uint32_t ev, ep;
            expected_triangles(o0, o1, o2, in, odd, &ev, &ep);
            if (t.n.vertices != ev || t.n.primitives != ep) {
               mismatches++;
               fprintf(stderr, "triangles %s inner %u outer %u %u %u: %u/%u, expected %u/%u\n",
                       spacing_name[s], in, o0, o1, o2, t.n.vertices, t.n.primitives, ev, ep);
            }
            snprintf(what, sizeof(what), "triangles %s in %u out %u %u %u", spacing_name[s], in,
                     o0, o1, o2);
            /* Fractional odd with inner 1 puts inner points on the edge. */
            validate(&p, &t, !(odd && in == 1 && (o0 > 1 || o1 > 1 || o2 > 1)), what);
            sr_tess_patch_free(&t, NULL);

            /* Quads: inner (a, b), outer (b, a, a, b) kept. */
            uint32_t o[4] = { kept(s, b), kept(s, a), kept(s, (a + b) % 7 + 1), kept(s, b) };
            uint32_t i0 = kept(s, a), i1 = kept(s, b);
            p = params(SR_TESS_QUADS, s, o[0], o[1], o[2], o[3], i0, i1);
            t = build(&p);
            expected_quads(o, i0, i1, odd, &ev, &ep);
            if (t.n.vertices != ev || t.n.primitives != ep) {
               mismatches++;
               fprintf(stderr, "quads %s inner %u %u outer %u %u %u %u: %u/%u, expected %u/%u\n",
                       spacing_name[s], i0, i1, o[0], o[1], o[2], o[3], t.n.vertices,
                       t.n.primitives, ev, ep);
            }
            snprintf(what, sizeof(what), "quads %s in %u %u out %u %u %u %u", spacing_name[s], i0,
                     i1, o[0], o[1], o[2], o[3]);
            bool ones = o[0] == 1 && o[1] == 1 && o[2] == 1 && o[3] == 1 && i0 == 1 && i1 == 1;
            validate(&p, &t, !(odd && (i0 == 1 || i1 == 1) && !ones), what);
            sr_tess_patch_free(&t, NULL);

            /* Isolines: a lines (always equal spacing) of b kept segments. */
            p = params(SR_TESS_ISOLINES, s, (float)a, kept(s, b), 0, 0, 0, 0);
            t = build(&p);
            if (t.n.vertices != a * (kept(s, b) + 1) || t.n.primitives != a * kept(s, b))
               mismatches++;
            snprintf(what, sizeof(what), "isolines %s %u x %u", spacing_name[s], a, kept(s, b));
            validate(&p, &t, true, what);
            sr_tess_patch_free(&t, NULL);
            runs += 3;
         }
      CHECK(mismatches == 0, "%s: %u of %u patches with unexpected counts", spacing_name[s],
            mismatches, runs);
   }
   /* The largest patches. */
   struct sr_tess_params p = params(SR_TESS_QUADS, SR_TESS_EQUAL, 64, 64, 64, 64, 64, 64);
   struct sr_tess_counts c;
   sr_tess_count(&p, &c);
   CHECK(c.vertices == 65 * 65 && c.primitives == 8192, "quads 64: %u %u", c.vertices,
         c.primitives);
   struct sr_tess_patch t = build(&p);
   validate(&p, &t, true, "quads 64");
   sr_tess_patch_free(&t, NULL);
   p = params(SR_TESS_TRIANGLES, SR_TESS_EQUAL, 64, 64, 64, 0, 64, 0);
   t = build(&p);
   uint32_t ev, ep;
   expected_triangles(64, 64, 64, 64, false, &ev, &ep);
   CHECK(t.n.vertices == ev && t.n.primitives == ep, "triangles 64: %u %u, expected %u %u",
         t.n.vertices, t.n.primitives, ev, ep);
   validate(&p, &t, true, "triangles 64");
   sr_tess_patch_free(&t, NULL);
   /* Levels above the maximum clamp to it. */
   p = params(SR_TESS_ISOLINES, SR_TESS_EQUAL, 1000, 1e30f, 0, 0, 0, 0);
   sr_tess_count(&p, &c);
   CHECK(c.vertices == 64 * 65 && c.primitives == 64 * 64, "isolines clamp: %u %u", c.vertices,
         c.primitives);
}

/* Fractional levels: valid triangulations too. */
static void
test_fractional_patches(void)
{
   static const float levels[] = { 1.3f, 2.0f, 2.5f, 3.7f, 5.0f, 6.2f, 9.9f, 17.4f, 40.5f };
   char what[160];
   for (int s = 1; s < 3; s++)
      for (size_t a = 0; a < 9; a++) {
         size_t b = (a * 4 + 3) % 9, c = (a * 7 + 1) % 9;
         /* Odd spacing with an inner level up to 1 may put inner points on
          * the edge (allowed): only the validity of counts and windings then. */
         bool nd = !(s == SR_TESS_FRACTIONAL_ODD && levels[a] <= 1.0f);
         struct sr_tess_params p = params(SR_TESS_TRIANGLES, s, levels[b], levels[c], levels[a],
                                          0, levels[a], 0);
         struct sr_tess_patch t = build(&p);
         snprintf(what, sizeof(what), "triangles %s in %g out %g %g %g", spacing_name[s],
                  levels[a], levels[b], levels[c], levels[a]);
         validate(&p, &t, nd, what);
         sr_tess_patch_free(&t, NULL);
         p = params(SR_TESS_QUADS, s, levels[b], levels[c], levels[a], levels[b], levels[a],
                    levels[c]);
         t = build(&p);
         snprintf(what, sizeof(what), "quads %s in %g %g", spacing_name[s], levels[a], levels[c]);
         validate(&p, &t, nd, what);
         sr_tess_patch_free(&t, NULL);
      }
}

/* ---- Edges ---- */

/* The points of a patch on one domain edge, as sorted fixed-point
 * parameters: edge 0..2 of triangles are u = 0 (parameter v), v = 0
 * (parameter w), w = 0 (parameter u); of quads u = 0, v = 0, u = 1, v = 1
 * (parameter v, u, v, u). Returns how many. */
static uint32_t
edge_points(const struct sr_tess_patch *t, enum sr_tess_domain d, int edge, uint32_t *out)
{
   uint32_t n = 0;
   for (uint32_t i = 0; i < t->n.vertices; i++) {
      const float *c = t->coord[i];
      float par;
      bool on;
      if (d == SR_TESS_TRIANGLES) {
         on = c[edge] == 0.0f;
         par = c[(edge + 1) % 3];
      } else {
         int axis = edge & 1 ? 1 : 0;   /* 0, 2: u fixed; 1, 3: v fixed */
         on = c[axis] == (edge >= 2 ? 1.0f : 0.0f);
         par = c[1 - axis];
      }
      if (on)
         out[n++] = fx(par);
   }
   for (uint32_t i = 1; i < n; i++)
      for (uint32_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
         uint32_t x = out[j];
         out[j] = out[j - 1], out[j - 1] = x;
      }
   return n;
}

static void
test_watertight(void)
{
   static const float levels[] = { 1.0f, 2.0f, 3.0f, 4.5f, 5.0f, 7.25f, 12.0f, 33.3f, 64.0f };
   uint32_t a[80], b[80];
   uint32_t failed = 0, asym = 0, bad_n = 0, runs = 0;
   for (int s = 0; s < 3; s++)
      for (size_t l = 0; l < 9; l++) {
         float L = levels[l];
         uint32_t n = sr_tess_level(s, L, NULL);
         /* The reference: a quad's u = 0 edge with outer level L. */
         struct sr_tess_params p = params(SR_TESS_QUADS, s, L, 3, 5, 2, 4, 6);
         struct sr_tess_patch ref = build(&p);
         uint32_t na = edge_points(&ref, SR_TESS_QUADS, 0, a);
         bad_n += na != n + 1;
         for (uint32_t i = 0; i < na; i++)
            asym += a[i] + a[na - 1 - i] != 65536;
         /* Every other edge of both domains with the same level, the rest
          * of the patch different. */
         for (int d = 0; d < 2; d++)
            for (int e = 0; e < (d == 0 ? 3 : 4); e++) {
               float o[4] = { 2.5f, 9, 1, 6 }, in[2] = { 7.5f, 3 };
               o[e] = L;
               p = params(d, s, o[0], o[1], o[2], o[3], in[0], in[1]);
               struct sr_tess_patch t = build(&p);
               uint32_t nb = edge_points(&t, d, e, b);
               if (nb != na || memcmp(a, b, na * sizeof(uint32_t))) {
                  failed++;
                  fprintf(stderr, "%s %s edge %d level %g: %u points differ from the reference's %u\n",
                          domain_name[d], spacing_name[s], e, L, nb, na);
               }
               runs++;
               sr_tess_patch_free(&t, NULL);
            }
         sr_tess_patch_free(&ref, NULL);
      }
   CHECK(failed == 0, "%u of %u edges differ from another edge of the same level", failed, runs);
   CHECK(asym == 0, "%u edge points without their mirror 1 - t", asym);
   CHECK(bad_n == 0, "%u edges without n + 1 points", bad_n);
   /* An isoline's points along u are an outer edge's of the same level. */
   struct sr_tess_params p = params(SR_TESS_ISOLINES, SR_TESS_FRACTIONAL_ODD, 1, 7.25f, 0, 0, 0, 0);
   struct sr_tess_patch t = build(&p);
   p = params(SR_TESS_QUADS, SR_TESS_FRACTIONAL_ODD, 2, 7.25f, 2, 2, 2, 2);
   struct sr_tess_patch q = build(&p);
   uint32_t nb = edge_points(&q, SR_TESS_QUADS, 1, b);
   bool same = nb == t.n.vertices;
   for (uint32_t i = 0; same && i < nb; i++)
      same = fx(t.coord[i][0]) == b[i];
   CHECK(same, "isoline points along u equal the v = 0 edge's");
   sr_tess_patch_free(&t, NULL);
   sr_tess_patch_free(&q, NULL);
}

/* ---- Symmetry ---- */

static bool
has_point(const struct sr_tess_patch *t, uint32_t u, uint32_t v, uint32_t w)
{
   for (uint32_t i = 0; i < t->n.vertices; i++)
      if (fx(t->coord[i][0]) == u && fx(t->coord[i][1]) == v && fx(t->coord[i][2]) == w)
         return true;
   return false;
}

static void
test_symmetry(void)
{
   static const float levels[] = { 2, 3, 4, 5.5f, 8, 11.3f };
   uint32_t rot = 0, refl = 0, qsym = 0, centre = 0;
   for (int s = 0; s < 3; s++)
      for (size_t o = 0; o < 6; o++)
         for (size_t i = 0; i < 6; i++) {
            float L = levels[o], I = levels[i];
            struct sr_tess_params p = params(SR_TESS_TRIANGLES, s, L, L, L, 0, I, 0);
            struct sr_tess_patch t = build(&p);
            for (uint32_t k = 0; k < t.n.vertices; k++) {
               uint32_t u = fx(t.coord[k][0]), v = fx(t.coord[k][1]), w = fx(t.coord[k][2]);
               if (u == 21845 && v == 21845 && w == 21846) {
                  centre++;   /* 1/3 has no 16.16 value: the one exception */
                  continue;
               }
               rot += !has_point(&t, v, w, u);
               refl += !has_point(&t, v, u, w);
            }
            sr_tess_patch_free(&t, NULL);
            p = params(SR_TESS_QUADS, s, L, L, L, L, I, I);
            t = build(&p);
            for (uint32_t k = 0; k < t.n.vertices; k++) {
               uint32_t u = fx(t.coord[k][0]), v = fx(t.coord[k][1]);
               qsym += !has_point(&t, v, u, 0) + !has_point(&t, 65536 - u, v, 0) +
                       !has_point(&t, u, 65536 - v, 0);
            }
            sr_tess_patch_free(&t, NULL);
         }
   CHECK(rot == 0, "%u triangle points without their rotation (v, w, u)", rot);
   CHECK(refl == 0, "%u triangle points without their reflection (v, u, w)", refl);
   CHECK(qsym == 0, "%u quad points without their mirrors", qsym);
   CHECK(centre > 0, "the even-level triangles have their centre point");
}

/* ---- Culling ---- */

static void
test_culling(void)
{
   static const float bad[] = { 0.0f, -0.0f, -1.0f, -INFINITY, NAN };
   uint32_t not_culled = 0, culled_wrongly = 0;
   for (int d = 0; d < 3; d++) {
      int relevant = d == SR_TESS_QUADS ? 4 : d == SR_TESS_TRIANGLES ? 3 : 2;
      for (int e = 0; e < 4; e++)
         for (size_t b = 0; b < 5; b++) {
            struct sr_tess_params p = params(d, SR_TESS_EQUAL, 3, 3, 3, 3, 3, 3);
            p.outer[e] = bad[b];
            struct sr_tess_counts c;
            bool kept_patch = sr_tess_count(&p, &c);
            if (e < relevant) {
               not_culled += kept_patch || c.vertices || c.primitives;
               struct sr_tess_patch t;
               CHECK(sr_tess_patch_build(&p, NULL, &t) == VK_SUCCESS && !t.coord && !t.index &&
                     t.n.vertices == 0, "a culled patch builds empty");
            } else {
               culled_wrongly += !kept_patch || c.vertices == 0;
            }
         }
      /* Inner levels never cull. */
      struct sr_tess_params p = params(d, SR_TESS_FRACTIONAL_ODD, 3, 3, 3, 3, NAN, -5);
      struct sr_tess_counts c;
      culled_wrongly += !sr_tess_count(&p, &c) || c.primitives == 0;
   }
   CHECK(not_culled == 0, "%u patches with a relevant outer level <= 0 or NaN not culled",
         not_culled);
   CHECK(culled_wrongly == 0, "%u patches culled by an irrelevant or inner level",
         culled_wrongly);
   /* A positive level below 1 is not culled: it clamps. */
   struct sr_tess_params p = params(SR_TESS_TRIANGLES, SR_TESS_EQUAL, 0.01f, 1, 1, 0, 1, 0);
   struct sr_tess_counts c;
   CHECK(sr_tess_count(&p, &c) && c.primitives == 1, "level 0.01 clamps to 1");
}

/* ---- Fractional segments ---- */

/* The points along u of a one-line isoline patch of level f. */
static uint32_t
line_points(enum sr_tess_spacing s, float f, uint32_t *t)
{
   struct sr_tess_params p = params(SR_TESS_ISOLINES, s, 1, f, 0, 0, 0, 0);
   struct sr_tess_patch q = build(&p);
   for (uint32_t i = 0; i < q.n.vertices; i++)
      t[i] = fx(q.coord[i][0]);
   uint32_t n = q.n.vertices - 1;
   sr_tess_patch_free(&q, NULL);
   return n;
}

static void
test_fractional(void)
{
   uint32_t t[80], e[80];
   for (int s = 1; s < 3; s++) {
      /* f = n: the equal spacing's points. */
      for (uint32_t n = s == 1 ? 2 : 1; n <= 64 - (s == 2); n += 2) {
         uint32_t nf = line_points(s, (float)n, t), ne = line_points(SR_TESS_EQUAL, (float)n, e);
         CHECK(nf == n && ne == n && !memcmp(t, e, (n + 1) * sizeof(uint32_t)),
               "%s level %u: equal spacing's points", spacing_name[s], n);
      }
      /* n - 2 equal segments of 1/f, two shorter of (f - (n - 2)) / 2f,
       * mirror images, growing as f approaches n. */
      uint32_t last_short = 0, last_n = 0;
      for (float f = s == 1 ? 2.05f : 1.05f; f < (s == 1 ? 8.0f : 9.0f); f += 0.1f) {
         uint32_t n = line_points(s, f, t), shorts = 0, shorter = 0;
         uint32_t expect_full = (uint32_t)lround(65536.0 / f);
         uint32_t expect_short = (uint32_t)lround(65536.0 * (f - (n - 2.0)) / (2.0 * f));
         uint32_t short_len = 0;
         bool full_ok = true;
         for (uint32_t k = 0; k < n; k++) {
            uint32_t len = t[k + 1] - t[k];
            if (labs((long)len - (long)expect_full) <= 1)
               continue;
            if (labs((long)len - (long)expect_short) <= 1) {
               shorts++;
               shorter += len < expect_full;
               short_len = len;
               /* Its mirror image on the other side, exactly. */
               full_ok = full_ok && t[n - k] - t[n - k - 1] == len;
            } else {
               full_ok = false;
            }
         }
         CHECK(full_ok && (n < 3 || shorts == 2) && shorter == shorts,
               "%s f %g: %u segments, %u short (%u) and the rest 1/f", spacing_name[s], f, n,
               shorts, short_len);
         if (n == last_n && n >= 3)
            CHECK(short_len >= last_short, "%s f %g: short segments grow with f", spacing_name[s], f);
         last_n = n, last_short = short_len;
      }
   }
}

/* ---- Point mode, winding, origin ---- */

static void
test_point_mode_and_winding(void)
{
   static const struct sr_tess_params base[] = {
      { SR_TESS_TRIANGLES, SR_TESS_FRACTIONAL_ODD, false, false, false, { 3.5f, 2, 5.1f }, { 4.2f } },
      { SR_TESS_QUADS, SR_TESS_EQUAL, false, false, false, { 1, 2, 3, 4 }, { 5, 2 } },
      { SR_TESS_ISOLINES, SR_TESS_FRACTIONAL_EVEN, false, false, false, { 3, 5.5f }, { 0 } },
      { SR_TESS_TRIANGLES, SR_TESS_EQUAL, false, false, false, { 1, 1, 1 }, { 1 } },
   };
   for (size_t i = 0; i < 4; i++) {
      struct sr_tess_params p = base[i], pm = base[i];
      pm.point_mode = true;
      struct sr_tess_patch t = build(&p), q = build(&pm);
      bool same = q.n.vertices == t.n.vertices && q.n.primitives == q.n.vertices &&
                  q.n.prim_verts == 1 &&
                  !memcmp(q.coord, t.coord, (size_t)t.n.vertices * sizeof(*t.coord));
      for (uint32_t k = 0; same && k < q.n.primitives; k++)
         same = q.index[k] == k;
      CHECK(same, "%s point mode: each of the %u vertices once", domain_name[p.domain],
            t.n.vertices);
      validate(&pm, &q, true, "point mode");
      sr_tess_patch_free(&q, NULL);
      if (p.domain != SR_TESS_ISOLINES) {
         /* Every winding and origin: the same triangles, oriented as asked. */
         for (int w = 0; w < 4; w++) {
            struct sr_tess_params pw = p;
            pw.ccw = w & 1, pw.lower_left = w >> 1;
            struct sr_tess_patch u = build(&pw);
            validate(&pw, &u, true, "winding");
            bool flipped = pw.ccw != pw.lower_left;   /* cw upper-left is the base */
            uint32_t diff = 0;
            for (uint32_t k = 0; k < u.n.primitives; k++) {
               double a = area_of(&t, k), b = area_of(&u, k);
               diff += flipped ? a != -b : a != b;
            }
            CHECK(u.n.primitives == t.n.primitives && diff == 0,
                  "%s ccw %d lower_left %d: %u triangles not as expected", domain_name[p.domain],
                  pw.ccw, pw.lower_left, diff);
            sr_tess_patch_free(&u, NULL);
         }
      }
      sr_tess_patch_free(&t, NULL);
   }
   /* The single triangle of levels 1 is the spec's (0,0,1) (1,0,0) (0,1,0). */
   struct sr_tess_params p = base[3];
   struct sr_tess_patch t = build(&p);
   CHECK(t.n.vertices == 3 && has_point(&t, 0, 0, 65536) && has_point(&t, 65536, 0, 0) &&
         has_point(&t, 0, 65536, 0), "levels 1: the domain's corners");
   sr_tess_patch_free(&t, NULL);
}

/* ---- Allocation failures ---- */

static int live, fail_at, calls;

static void *VKAPI_PTR
counting_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   (void)user, (void)align, (void)scope;
   if (calls++ == fail_at)
      return NULL;
   live++;
   return malloc(size);
}

static void VKAPI_PTR
counting_free(void *user, void *ptr)
{
   (void)user;
   if (ptr)
      live--;
   free(ptr);
}

static void
test_alloc_failures(void)
{
   VkAllocationCallbacks a = { .pfnAllocation = counting_alloc, .pfnFree = counting_free };
   struct sr_tess_params p = params(SR_TESS_QUADS, SR_TESS_EQUAL, 3, 3, 3, 3, 3, 3);
   struct sr_tess_patch t;
   for (fail_at = 0; fail_at < 2; fail_at++) {
      calls = 0;
      VkResult r = sr_tess_patch_build(&p, &a, &t);
      CHECK(r == VK_ERROR_OUT_OF_HOST_MEMORY && live == 0 && !t.coord && !t.index,
            "allocation %d failing: %d, %d live", fail_at, r, live);
   }
   fail_at = -1, calls = 0;
   CHECK(sr_tess_patch_build(&p, &a, &t) == VK_SUCCESS && calls == 2 && live == 2,
         "two allocations (%d, %d live)", calls, live);
   sr_tess_patch_free(&t, &a);
   CHECK(live == 0, "freed: %d live", live);
   p.outer[1] = 0;
   calls = 0;
   CHECK(sr_tess_patch_build(&p, &a, &t) == VK_SUCCESS && calls == 0,
         "a culled patch allocates nothing (%d)", calls);
}

int
main(void)
{
   test_levels();
   test_counts();
   test_fractional_patches();
   test_watertight();
   test_symmetry();
   test_culling();
   test_fractional();
   test_point_mode_and_winding();
   test_alloc_failures();
   return check_finish();
}
