/* Unit test of su_format: the format table and texel pack/unpack. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "util/su_format.h"

/*
 * The reference model here is independent of su_format.c: a texel's layout is
 * derived from the format's name by the spec's naming rules (packed formats:
 * first-named component in the most significant bits; others: first-named
 * component at the lowest address), bits are addressed one at a time, and
 * every numeric conversion is written from the spec's formulas in double.
 */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
   rng_state ^= rng_state << 13;
   rng_state ^= rng_state >> 7;
   rng_state ^= rng_state << 17;
   return rng_state;
}

static float rnd_unit(void)
{
   return (float)((rnd() >> 11) * (1.0 / 9007199254740992.0));
}

static const struct su_format_desc *fmt(VkFormat f)
{
   const struct su_format_desc *d = su_format_desc(f);
   if (!d) {
      fprintf(stderr, "format %d unknown\n", (int)f);
      exit(1);
   }
   return d;
}

static uint32_t fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

static float bitsf(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

static uint32_t word32(const void *p)
{
   const uint8_t *b = p;
   return b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint16_t word16(const void *p)
{
   const uint8_t *b = p;
   return (uint16_t)(b[0] | b[1] << 8);
}

/* Bit i of a texel is bit i % 8 of byte i / 8 (little-endian host). */
static uint64_t get_field(const uint8_t *t, int off, int bits)
{
   uint64_t v = 0;
   for (int i = 0; i < bits; i++)
      v |= (uint64_t)((t[(off + i) / 8] >> ((off + i) % 8)) & 1) << i;
   return v;
}

static void set_field(uint8_t *t, int off, int bits, uint64_t v)
{
   for (int i = 0; i < bits; i++) {
      const int b = off + i;
      t[b / 8] = (uint8_t)((t[b / 8] & ~(1 << (b % 8))) | (((v >> i) & 1) << (b % 8)));
   }
}

/* ---- references from the spec ------------------------------------------- */

static double ref_srgb_decode(double s)
{
   return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

static double ref_srgb_encode(double l)
{
   if (!(l > 0))
      return 0;
   if (l >= 1)
      return 1;
   return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055;
}

/* Float with a 5-bit exponent (bias 15), `mbits` mantissa bits, optional sign
 * above them. */
static double ref_small(uint32_t v, int mbits, bool has_sign)
{
   const int s = has_sign ? (v >> (mbits + 5)) & 1 : 0;
   const int e = (v >> mbits) & 31;
   const uint32_t m = v & ((1u << mbits) - 1);
   double r;
   if (e == 31)
      r = m ? NAN : INFINITY;
   else if (e == 0)
      r = ldexp((double)m, -14 - mbits);
   else
      r = ldexp(1.0 + m / (double)(1u << mbits), e - 15);
   return s ? -r : r;
}

/* Round-to-nearest-even encoding by brute force: nearest finite code, ties to
 * the even code, Inf from max finite + half an ulp on (IEEE overflow).
 * small_vals[i] lists the finite values of the 10-bit (mbits 5), 11-bit (6)
 * and half (10) formats by code. */
static double small_vals[3][31 * 1024];

static int small_index(int mbits)
{
   return mbits == 5 ? 0 : mbits == 6 ? 1 : 2;
}

static void init_small_vals(void)
{
   static const int mb[3] = { 5, 6, 10 };
   for (int i = 0; i < 3; i++) {
      for (int k = 0; k < (31 << mb[i]); k++)
         small_vals[i][k] = ref_small(k, mb[i], false);
   }
}

static uint32_t ref_encode_small(double v, int mbits)
{
   const double *vals = small_vals[small_index(mbits)];
   const int n = 31 << mbits;
   const double thresh = vals[n - 1] + ldexp(1.0, 15 - mbits - 1);
   if (v >= thresh)
      return 31u << mbits;
   int lo = 0, hi = n - 1;   /* largest k with vals[k] <= v */
   while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (vals[mid] <= v)
         lo = mid;
      else
         hi = mid - 1;
   }
   if (vals[lo] == v || lo == n - 1)
      return lo;
   const double d0 = v - vals[lo], d1 = vals[lo + 1] - v;
   if (d0 < d1)
      return lo;
   if (d1 < d0)
      return lo + 1;
   return (lo & 1) ? lo + 1 : lo;
}

/* ---- layout from the name ----------------------------------------------- */

struct ref_layout {
   int off[4], bits[4];   /* R, G, B, A */
   int exp_off;           /* E of E5B9G9R9, else -1 */
   char suffix[16];       /* UNORM, SNORM, USCALED, ..., UFLOAT */
};

static bool parse_layout(const struct su_format_desc *d, struct ref_layout *L)
{
   char comp[8];
   int cbits[8], n = 0, total = 0;
   const char *p = d->name;
   memset(L, 0, sizeof(*L));
   L->exp_off = -1;
   while (*p && *p != '_') {
      if (n == 8)
         return false;
      comp[n] = *p++;
      cbits[n] = 0;
      while (*p >= '0' && *p <= '9')
         cbits[n] = cbits[n] * 10 + (*p++ - '0');
      total += cbits[n++];
   }
   if (*p != '_')
      return false;
   p++;
   size_t len = strcspn(p, "_");
   if (len >= sizeof(L->suffix))
      return false;
   memcpy(L->suffix, p, len);
   const bool packed = strstr(d->name, "_PACK") != NULL;
   int pos = packed ? total : 0;
   for (int i = 0; i < n; i++) {
      int off;
      if (packed) {
         pos -= cbits[i];
         off = pos;
      } else {
         off = pos;
         pos += cbits[i];
      }
      const char *idx = strchr("RGBA", comp[i]);
      if (comp[i] == 'E')
         L->exp_off = off;
      else if (idx && comp[i])
         L->off[idx - "RGBA"] = off, L->bits[idx - "RGBA"] = cbits[i];
      else
         return false;
   }
   return total == d->block_size * 8;
}

/* ---- table -------------------------------------------------------------- */

static void test_table(void)
{
   uint32_t count;
   const struct su_format_desc *t = su_format_table(&count);
   CHECK_EQ_INT(count, 184 + 2);

   int prev = 0, colour = 0, ds = 0, comp = 0;
   for (uint32_t i = 0; i < count; i++) {
      const struct su_format_desc *d = &t[i];
      CHECK(su_format_desc(d->format) == d, "lookup of %s", d->name);
      CHECK((int)d->format > prev, "table order at %s", d->name);
      prev = d->format;
      CHECK(d->name && d->name[0], "format %d has a name", (int)d->format);
      if (d->kind == SU_KIND_DEPTH_STENCIL) {
         ds++;
         continue;
      }
      if (d->kind == SU_KIND_COMPRESSED) {
         comp++;
         CHECK(d->block_width >= 4 && d->block_height >= 4, "%s block extent", d->name);
         continue;
      }
      colour++;

      struct ref_layout L;
      CHECK(parse_layout(d, &L), "%s: name does not give block_size %d", d->name,
            d->block_size);
      int nc = 0;
      for (int c = 0; c < 4; c++) {
         CHECK(d->bits[c] == L.bits[c], "%s bits[%d] = %d, name says %d", d->name, c,
               d->bits[c], L.bits[c]);
         nc += L.bits[c] != 0;
      }
      CHECK(d->num_channels == nc, "%s num_channels", d->name);
      CHECK(d->block_width == 1 && d->block_height == 1, "%s block", d->name);
      CHECK(d->aspects == VK_IMAGE_ASPECT_COLOR_BIT, "%s aspects", d->name);
      CHECK(d->compat_class == d->block_size * 8, "%s compat_class", d->name);

      static const struct {
         const char *s;
         enum su_format_kind k;
         bool scaled;
         enum su_numeric_class cls;
      } kinds[] = {
         { "UNORM", SU_KIND_UNORM, false, SU_CLASS_FLOAT },
         { "SNORM", SU_KIND_SNORM, false, SU_CLASS_FLOAT },
         { "USCALED", SU_KIND_UNORM, true, SU_CLASS_FLOAT },
         { "SSCALED", SU_KIND_SNORM, true, SU_CLASS_FLOAT },
         { "UINT", SU_KIND_UINT, false, SU_CLASS_UINT },
         { "SINT", SU_KIND_SINT, false, SU_CLASS_SINT },
         { "SRGB", SU_KIND_SRGB, false, SU_CLASS_FLOAT },
         { "SFLOAT", SU_KIND_SFLOAT, false, SU_CLASS_FLOAT },
         { "UFLOAT", SU_KIND_UFLOAT, false, SU_CLASS_FLOAT },
      };
      bool found = false;
      for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
         if (strcmp(kinds[k].s, L.suffix))
            continue;
         found = true;
         CHECK(d->kind == kinds[k].k && d->scaled == kinds[k].scaled, "%s kind", d->name);
         CHECK(su_format_class(d) == kinds[k].cls, "%s class", d->name);
         CHECK(su_format_is_srgb(d) == (kinds[k].k == SU_KIND_SRGB), "%s srgb", d->name);
      }
      CHECK(found, "%s: suffix %s", d->name, L.suffix);
   }
   /* R4G4 .. E5B9G9R9 and the two A4 formats; 7 depth/stencil; 16 BC, 10
    * ETC2/EAC, 28 ASTC. */
   CHECK_EQ_INT(colour, 123 + 2);
   CHECK_EQ_INT(ds, 7);
   CHECK_EQ_INT(comp, 16 + 10 + 28);

   CHECK(su_format_desc(VK_FORMAT_UNDEFINED) == NULL, "UNDEFINED unknown");
   CHECK(su_format_desc(VK_FORMAT_G8B8G8R8_422_UNORM) == NULL, "YCbCr unknown");
   CHECK(su_format_desc(VK_FORMAT_ASTC_4x4_SFLOAT_BLOCK) == NULL, "ASTC HDR unknown");
   CHECK(su_format_desc((VkFormat)185) == NULL, "185 unknown");
   CHECK(strcmp(fmt(VK_FORMAT_R8G8B8A8_UNORM)->name, "R8G8B8A8_UNORM") == 0, "name");
   CHECK(strcmp(fmt(VK_FORMAT_A4B4G4R4_UNORM_PACK16)->name, "A4B4G4R4_UNORM_PACK16") == 0,
         "name");
   CHECK_EQ_INT(fmt(VK_FORMAT_R64G64B64A64_SFLOAT)->block_size, 32);
   CHECK_EQ_INT(fmt(VK_FORMAT_R16G16B16_SFLOAT)->block_size, 6);
   CHECK_EQ_INT(fmt(VK_FORMAT_B8G8R8_SRGB)->block_size, 3);

   /* compatibility classes */
   CHECK(fmt(VK_FORMAT_R8G8B8A8_UNORM)->compat_class == fmt(VK_FORMAT_R32_UINT)->compat_class &&
            fmt(VK_FORMAT_R32_UINT)->compat_class ==
               fmt(VK_FORMAT_B10G11R11_UFLOAT_PACK32)->compat_class &&
            fmt(VK_FORMAT_R32_UINT)->compat_class ==
               fmt(VK_FORMAT_E5B9G9R9_UFLOAT_PACK32)->compat_class,
         "32-bit class");
   CHECK(fmt(VK_FORMAT_R8G8B8A8_UNORM)->compat_class !=
            fmt(VK_FORMAT_R16G16B16A16_UNORM)->compat_class,
         "32 vs 64-bit class");
   CHECK(fmt(VK_FORMAT_A4R4G4B4_UNORM_PACK16)->compat_class ==
            fmt(VK_FORMAT_R16_SFLOAT)->compat_class,
         "16-bit class");
   CHECK(fmt(VK_FORMAT_BC1_RGB_UNORM_BLOCK)->compat_class ==
            fmt(VK_FORMAT_BC1_RGB_SRGB_BLOCK)->compat_class,
         "BC1_RGB class");
   CHECK(fmt(VK_FORMAT_BC1_RGB_UNORM_BLOCK)->compat_class !=
            fmt(VK_FORMAT_BC1_RGBA_UNORM_BLOCK)->compat_class,
         "BC1 RGB vs RGBA");
   CHECK(fmt(VK_FORMAT_BC4_UNORM_BLOCK)->compat_class ==
            fmt(VK_FORMAT_BC4_SNORM_BLOCK)->compat_class,
         "BC4 class");
   CHECK(fmt(VK_FORMAT_BC4_UNORM_BLOCK)->compat_class != fmt(VK_FORMAT_R16G16B16A16_UINT)->compat_class,
         "BC4 vs 64-bit");
   CHECK(fmt(VK_FORMAT_ASTC_5x4_UNORM_BLOCK)->compat_class !=
            fmt(VK_FORMAT_ASTC_4x4_UNORM_BLOCK)->compat_class,
         "ASTC classes");
   CHECK(fmt(VK_FORMAT_D24_UNORM_S8_UINT)->compat_class !=
            fmt(VK_FORMAT_X8_D24_UNORM_PACK32)->compat_class,
         "depth classes");
   CHECK(fmt(VK_FORMAT_D32_SFLOAT)->compat_class != fmt(VK_FORMAT_R32_SFLOAT)->compat_class,
         "depth vs colour");
}

static void test_compressed(void)
{
   static const struct {
      VkFormat f;
      int w, h, size, nc;
      bool srgb;
   } c[] = {
      { VK_FORMAT_BC1_RGB_UNORM_BLOCK, 4, 4, 8, 3, false },
      { VK_FORMAT_BC1_RGBA_SRGB_BLOCK, 4, 4, 8, 4, true },
      { VK_FORMAT_BC2_UNORM_BLOCK, 4, 4, 16, 4, false },
      { VK_FORMAT_BC3_SRGB_BLOCK, 4, 4, 16, 4, true },
      { VK_FORMAT_BC4_SNORM_BLOCK, 4, 4, 8, 1, false },
      { VK_FORMAT_BC5_UNORM_BLOCK, 4, 4, 16, 2, false },
      { VK_FORMAT_BC6H_SFLOAT_BLOCK, 4, 4, 16, 3, false },
      { VK_FORMAT_BC7_SRGB_BLOCK, 4, 4, 16, 4, true },
      { VK_FORMAT_ETC2_R8G8B8_UNORM_BLOCK, 4, 4, 8, 3, false },
      { VK_FORMAT_ETC2_R8G8B8A1_SRGB_BLOCK, 4, 4, 8, 4, true },
      { VK_FORMAT_ETC2_R8G8B8A8_UNORM_BLOCK, 4, 4, 16, 4, false },
      { VK_FORMAT_EAC_R11_SNORM_BLOCK, 4, 4, 8, 1, false },
      { VK_FORMAT_EAC_R11G11_UNORM_BLOCK, 4, 4, 16, 2, false },
      { VK_FORMAT_ASTC_4x4_UNORM_BLOCK, 4, 4, 16, 4, false },
      { VK_FORMAT_ASTC_5x4_SRGB_BLOCK, 5, 4, 16, 4, true },
      { VK_FORMAT_ASTC_8x6_UNORM_BLOCK, 8, 6, 16, 4, false },
      { VK_FORMAT_ASTC_10x10_SRGB_BLOCK, 10, 10, 16, 4, true },
      { VK_FORMAT_ASTC_12x10_UNORM_BLOCK, 12, 10, 16, 4, false },
      { VK_FORMAT_ASTC_12x12_SRGB_BLOCK, 12, 12, 16, 4, true },
   };
   for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
      const struct su_format_desc *d = fmt(c[i].f);
      CHECK(d->kind == SU_KIND_COMPRESSED, "%s compressed", d->name);
      CHECK(d->block_width == c[i].w && d->block_height == c[i].h && d->block_size == c[i].size,
            "%s block %dx%d %d bytes, got %dx%d %d", d->name, c[i].w, c[i].h, c[i].size,
            d->block_width, d->block_height, d->block_size);
      CHECK(d->num_channels == c[i].nc, "%s channels", d->name);
      CHECK(su_format_is_srgb(d) == c[i].srgb, "%s srgb", d->name);
      CHECK(d->aspects == VK_IMAGE_ASPECT_COLOR_BIT, "%s aspects", d->name);
   }
}

/* ---- exhaustive / random texel checks ------------------------------------ */

struct mismatch {
   int count;
   char first[200];
};

static void note(struct mismatch *m, const char *what, const struct su_format_desc *d,
                 const uint8_t *t, int c, double got, double want)
{
   if (m->count++ == 0) {
      char hex[80] = "";
      for (int i = 0; i < d->block_size && i < 32; i++)
         snprintf(hex + strlen(hex), sizeof(hex) - strlen(hex), "%02x", t[i]);
      snprintf(m->first, sizeof(m->first), "%s texel %s channel %d: got %.9g want %.9g", what,
               hex, c, got, want);
   }
}

static bool same_float(float a, float b)
{
   return (isnan(a) && isnan(b)) || fbits(a) == fbits(b);
}

/* Expected unpacked value of channel c with code v (name-derived kind). */
static float ref_value(const struct su_format_desc *d, const struct ref_layout *L,
                       const uint8_t *t, int c, uint64_t v)
{
   const int b = L->bits[c];
   const char *s = L->suffix;
   const double umax = ldexp(1.0, b) - 1;
   const double smax = ldexp(1.0, b - 1) - 1;
   const double sv = b < 64 && (v >> (b - 1)) & 1 ? (double)v - ldexp(1.0, b) : (double)v;

   if (!strcmp(s, "UNORM") || (!strcmp(s, "SRGB") && c == 3))
      return (float)v / (float)umax;
   if (!strcmp(s, "SNORM"))
      return fmaxf((float)sv / (float)smax, -1.0f);
   if (!strcmp(s, "USCALED"))
      return (float)v;
   if (!strcmp(s, "SSCALED"))
      return (float)sv;
   if (!strcmp(s, "SRGB"))
      return (float)ref_srgb_decode(v / 255.0);
   if (!strcmp(s, "SFLOAT")) {
      if (b == 16)
         return (float)ref_small((uint32_t)v, 10, true);
      if (b == 32)
         return bitsf((uint32_t)v);
      double dv;
      memcpy(&dv, &v, 8);
      return (float)dv;
   }
   if (L->exp_off >= 0) {   /* E5B9G9R9 */
      const int e = (int)get_field(t, L->exp_off, 5);
      return (float)ldexp((double)v, e - 15 - 9);
   }
   /* B10G11R11 */
   (void)d;
   return (float)ref_small((uint32_t)v, b - 5, false);
}

static void check_texel(const struct su_format_desc *d, const struct ref_layout *L,
                        const uint8_t *t, struct mismatch *m)
{
   const char *s = L->suffix;
   uint8_t out[32];
   uint64_t code[4];
   for (int c = 0; c < 4; c++)
      code[c] = L->bits[c] ? get_field(t, L->off[c], L->bits[c]) : 0;

   if (d->kind == SU_KIND_UINT || d->kind == SU_KIND_SINT) {
      const bool is_signed = d->kind == SU_KIND_SINT;
      int64_t want[4];
      for (int c = 0; c < 4; c++) {
         const int b = L->bits[c];
         if (!b) {
            want[c] = c == 3;
            continue;
         }
         int64_t v = (int64_t)code[c];
         if (is_signed && b < 64 && (code[c] >> (b - 1)) & 1)
            v = (int64_t)code[c] - ((int64_t)1 << b);
         if (b == 64 && !is_signed && code[c] > UINT32_MAX)
            v = UINT32_MAX;
         if (is_signed)
            v = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v;
         want[c] = v;
      }
      memset(out, 0xa5, sizeof(out));
      if (is_signed) {
         int32_t got[4], in[4];
         su_unpack_sint(d, t, got);
         for (int c = 0; c < 4; c++) {
            if (got[c] != want[c])
               note(m, "unpack_sint", d, t, c, got[c], (double)want[c]);
            in[c] = (int32_t)want[c];
         }
         su_pack_sint(d, in, out);
      } else {
         uint32_t got[4], in[4];
         su_unpack_uint(d, t, got);
         for (int c = 0; c < 4; c++) {
            if (got[c] != (uint64_t)want[c])
               note(m, "unpack_uint", d, t, c, got[c], (double)want[c]);
            in[c] = (uint32_t)want[c];
         }
         su_pack_uint(d, in, out);
      }
      for (int c = 0; c < 4; c++) {
         if (!L->bits[c])
            continue;
         const uint64_t mask = L->bits[c] == 64 ? ~0ull : (1ull << L->bits[c]) - 1;
         const uint64_t want_code = (uint64_t)want[c] & mask;
         const uint64_t got = get_field(out, L->off[c], L->bits[c]);
         if (got != want_code)
            note(m, "pack int", d, t, c, (double)got, (double)want_code);
      }
      return;
   }

   float want[4], got[4];
   for (int c = 0; c < 4; c++)
      want[c] = L->bits[c] ? ref_value(d, L, t, c, code[c]) : (c == 3 ? 1.0f : 0.0f);
   su_unpack_float(d, t, got);
   for (int c = 0; c < 4; c++) {
      const bool srgb = !strcmp(s, "SRGB") && c < 3;
      const bool ok = srgb ? fabsf(got[c] - want[c]) <= 1e-7f * fmaxf(want[c], 1e-3f)
                           : same_float(got[c], want[c]);
      if (!ok)
         note(m, "unpack_float", d, t, c, got[c], want[c]);
   }

   /* Pack the reference values back: the original codes come back, except
    * for the values that have two codes or none. */
   memset(out, 0xa5, sizeof(out));
   su_pack_float(d, want, out);
   if (L->exp_off >= 0) {
      float again[4];
      su_unpack_float(d, out, again);
      for (int c = 0; c < 3; c++) {
         if (again[c] != want[c])
            note(m, "E5B9G9R9 repack value", d, t, c, again[c], want[c]);
      }
      return;
   }
   for (int c = 0; c < 4; c++) {
      const int b = L->bits[c];
      if (!b)
         continue;
      uint64_t want_code = code[c];
      const uint64_t gotc = get_field(out, L->off[c], b);
      if (isnan(want[c])) {
         float again[4];
         su_unpack_float(d, out, again);
         if (!isnan(again[c]))
            note(m, "NaN repack", d, t, c, again[c], want[c]);
         continue;
      }
      if (!strcmp(s, "SNORM") && want_code == 1ull << (b - 1))
         want_code++;   /* -2^(b-1) and -(2^(b-1) - 1) both mean -1.0 */
      if (!strcmp(s, "SFLOAT") && b == 64) {
         const double dv = (double)want[c];
         memcpy(&want_code, &dv, 8);
      }
      if (gotc != want_code)
         note(m, "pack_float", d, t, c, (double)gotc, (double)want_code);
   }
}

static void test_texels(void)
{
   uint32_t count;
   const struct su_format_desc *table = su_format_table(&count);
   for (uint32_t i = 0; i < count; i++) {
      const struct su_format_desc *d = &table[i];
      if (d->kind == SU_KIND_DEPTH_STENCIL || d->kind == SU_KIND_COMPRESSED)
         continue;
      struct ref_layout L;
      if (!parse_layout(d, &L))
         continue;   /* reported by test_table */
      struct mismatch m = { 0, "" };
      uint8_t t[32];
      int n = 0;

      if (d->block_size <= 2) {
         /* every texel */
         for (uint32_t v = 0; v < (1u << (8 * d->block_size)); v++) {
            t[0] = (uint8_t)v;
            t[1] = (uint8_t)(v >> 8);
            check_texel(d, &L, t, &m);
            n++;
         }
      } else {
         /* every code of each channel of up to 16 bits, the rest random */
         for (int c = 0; c < 5; c++) {
            const int off = c < 4 ? L.off[c] : L.exp_off;
            const int bits = c < 4 ? L.bits[c] : (L.exp_off >= 0 ? 5 : 0);
            if (!bits || bits > 16)
               continue;
            for (uint32_t v = 0; v < (1u << bits); v++) {
               for (int k = 0; k < 32; k += 8) {
                  const uint64_t r = rnd();
                  memcpy(t + k, &r, 8);
               }
               set_field(t, off, bits, v);
               check_texel(d, &L, t, &m);
               n++;
            }
         }
         /* random texels, with special values in wide channels */
         static const uint64_t special32[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
                                               0x3f800000, 0x7f800000, 0xff800000,
                                               0x7fc00000, 0x7f800001, 0x00000001, 0x00800000 };
         static const uint64_t special64[] = { 0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                               0xffffffffffffffffull, 0x00000000ffffffffull,
                                               0x0000000100000000ull, 0xffffffff80000000ull,
                                               0xffffffff7fffffffull, 0x3ff8000000000000ull,
                                               0x7ff0000000000000ull, 0x7ff8000000000000ull,
                                               0x47efffffe0000000ull, 0x47efffffefffffffull,
                                               0x36a0000000000000ull, 0x3690000000000000ull };
         for (int k = 0; k < 20000; k++) {
            for (int j = 0; j < 32; j += 8) {
               const uint64_t r = rnd();
               memcpy(t + j, &r, 8);
            }
            for (int c = 0; c < 4; c++) {
               if (L.bits[c] == 32 && k % 3 == 0)
                  set_field(t, L.off[c], 32, special32[rnd() % 12]);
               if (L.bits[c] == 64 && k % 3 == 0)
                  set_field(t, L.off[c], 64, special64[rnd() % 16]);
               if (L.bits[c] == 64 && k % 3 == 1) {
                  /* a double that is a float */
                  const double dv = (double)bitsf((uint32_t)rnd());
                  uint64_t u;
                  memcpy(&u, &dv, 8);
                  set_field(t, L.off[c], 64, u);
               }
            }
            check_texel(d, &L, t, &m);
            n++;
         }
      }
      CHECK(m.count == 0, "%s: %d mismatches over %d texels; first: %s", d->name, m.count, n, m.first);
   }
}

/* ---- values the spec gives ----------------------------------------------- */

static void test_known_values(void)
{
   float v[4];
   uint8_t t[16];

   t[0] = 128;
   su_unpack_float(fmt(VK_FORMAT_R8_UNORM), t, v);
   CHECK(v[0] == 128.0f / 255.0f && v[1] == 0 && v[2] == 0 && v[3] == 1,
         "R8_UNORM 128 -> %.9g %g %g %g", v[0], v[1], v[2], v[3]);
   t[0] = 0x80;
   su_unpack_float(fmt(VK_FORMAT_R8_SNORM), t, v);
   CHECK(v[0] == -1.0f, "SNORM8 -128 -> %g", v[0]);
   t[0] = 0x81;
   su_unpack_float(fmt(VK_FORMAT_R8_SNORM), t, v);
   CHECK(v[0] == -1.0f, "SNORM8 -127 -> %g", v[0]);
   t[0] = 0x40;
   su_unpack_float(fmt(VK_FORMAT_R8_SNORM), t, v);
   CHECK(v[0] == 64.0f / 127.0f, "SNORM8 64 -> %g", v[0]);
   t[0] = 0xff;
   su_unpack_float(fmt(VK_FORMAT_R8_SSCALED), t, v);
   CHECK(v[0] == -1.0f, "SSCALED8 0xff -> %g", v[0]);
   su_unpack_float(fmt(VK_FORMAT_R8_USCALED), t, v);
   CHECK(v[0] == 255.0f, "USCALED8 0xff -> %g", v[0]);

   /* half */
   CHECK(su_half_to_float(0x3c00) == 1.0f, "half 1.0");
   CHECK(su_half_to_float(0x7bff) == 65504.0f, "half max");
   CHECK(su_half_to_float(0x0001) == 0x1p-24f, "half smallest denormal");
   CHECK(su_half_to_float(0x03ff) == 1023 * 0x1p-24f, "half largest denormal");
   CHECK(su_half_to_float(0x0400) == 0x1p-14f, "half smallest normal");
   CHECK(su_half_to_float(0xc000) == -2.0f, "half -2");
   CHECK(fbits(su_half_to_float(0x8000)) == 0x80000000u, "half -0");
   CHECK(isinf(su_half_to_float(0x7c00)) && su_half_to_float(0x7c00) > 0, "half +Inf");
   CHECK(isinf(su_half_to_float(0xfc00)) && su_half_to_float(0xfc00) < 0, "half -Inf");
   CHECK(isnan(su_half_to_float(0x7e00)) && isnan(su_half_to_float(0x7c01)), "half NaN");
   CHECK(su_float_to_half(1.0f) == 0x3c00, "1.0 -> half");
   CHECK(su_float_to_half(65504.0f) == 0x7bff, "65504 -> half");
   CHECK(su_float_to_half(65519.0f) == 0x7bff, "65519 -> half max");
   CHECK(su_float_to_half(65520.0f) == 0x7c00, "65520 -> half Inf (tie to even)");
   CHECK(su_float_to_half(1e10f) == 0x7c00, "1e10 -> Inf");
   CHECK(su_float_to_half(-1e10f) == 0xfc00, "-1e10 -> -Inf");
   CHECK(su_float_to_half(0x1p-24f) == 0x0001, "2^-24 -> half");
   CHECK(su_float_to_half(0x1p-25f) == 0x0000, "2^-25 ties to even 0");
   CHECK(su_float_to_half(0x1.000002p-25f) == 0x0001, "just above 2^-25 -> 1");
   CHECK(su_float_to_half(0x1.8p-24f) == 0x0002, "1.5 * 2^-24 ties to even 2");
   CHECK(su_float_to_half(1.0f + 0x1p-11f) == 0x3c00, "1 + 2^-11 ties down to even");
   CHECK(su_float_to_half(1.0f + 3 * 0x1p-11f) == 0x3c02, "1 + 3*2^-11 ties up to even");
   CHECK(su_float_to_half(0x1.ffcp-15f) == 0x0400, "largest denormal + half ulp rounds to normal");
   CHECK(su_float_to_half(-0.0f) == 0x8000, "-0 -> half");
   CHECK(su_float_to_half(INFINITY) == 0x7c00 && su_float_to_half(-INFINITY) == 0xfc00, "Inf");
   {
      const uint16_t h = su_float_to_half(NAN);
      CHECK((h & 0x7c00) == 0x7c00 && (h & 0x3ff) && (h & 0x200), "NaN -> quiet half NaN %04x", h);
      const uint16_t h2 = su_float_to_half(bitsf(0x7f800001));   /* signalling, low payload */
      CHECK((h2 & 0x7c00) == 0x7c00 && (h2 & 0x3ff), "sNaN -> half NaN %04x", h2);
   }

   /* B10G11R11: R = 1.0 (11-bit: exponent 15 -> 15 << 6), G = 2.0 (16 << 6),
    * B = 0.5 (10-bit: 14 << 5); B in bits 22..31, G 11..21, R 0..10. */
   const struct su_format_desc *b10 = fmt(VK_FORMAT_B10G11R11_UFLOAT_PACK32);
   const uint32_t w_known = (14u << 5) << 22 | (16u << 6) << 11 | (15u << 6);
   CHECK(w_known == 0x702003c0u, "hand-built word");
   su_pack_float(b10, (float[4]){ 1.0f, 2.0f, 0.5f, 1.0f }, t);
   CHECK(word32(t) == 0x702003c0u, "B10G11R11 pack (1, 2, 0.5) = %08x", word32(t));
   su_unpack_float(b10, t, v);
   CHECK(v[0] == 1.0f && v[1] == 2.0f && v[2] == 0.5f && v[3] == 1.0f, "B10G11R11 unpack");
   /* max finite: 11-bit (1 + 63/64) * 2^15 = 65024, 10-bit (1 + 31/32) * 2^15 = 64512 */
   const uint32_t wmax = (30u << 5 | 31) << 22 | (30u << 6 | 63) << 11 | (30u << 6 | 63);
   memcpy(t, &wmax, 4);
   su_unpack_float(b10, t, v);
   CHECK(v[0] == 65024.0f && v[1] == 65024.0f && v[2] == 64512.0f, "B10G11R11 max");
   su_pack_float(b10, (float[4]){ 65279.0f, 65280.0f, -5.0f, 0 }, t);
   CHECK((word32(t) & 0x7ff) == (30u << 6 | 63), "65279 -> max finite");
   CHECK(((word32(t) >> 11) & 0x7ff) == 31u << 6, "65280 -> Inf (IEEE round to nearest)");
   CHECK((word32(t) >> 22) == 0, "negative -> 0");
   su_pack_float(b10, (float[4]){ NAN, INFINITY, -INFINITY, 0 }, t);
   CHECK((word32(t) & 0x7c0) == 0x7c0 && (word32(t) & 0x3f), "NaN stays NaN");
   CHECK(((word32(t) >> 11) & 0x7ff) == 0x7c0, "Inf stays Inf");
   CHECK((word32(t) >> 22) == 0, "-Inf -> 0");
   su_pack_float(b10, (float[4]){ 0x1p-20f, 0x1p-15f, 0x1p-19f, 0 }, t);
   CHECK((word32(t) & 0x7ff) == 1, "11-bit smallest denormal 2^-20");
   CHECK(((word32(t) >> 11) & 0x7ff) == 32, "11-bit 2^-15 denormal");
   CHECK((word32(t) >> 22) == 1, "10-bit smallest denormal 2^-19");

   /* E5B9G9R9, the spec's algorithm by hand (N = 9, B = 15):
    * (1, 0.5, 0.25): exp' = 0 + 16, max_s = 1 * 2^8 = 256 -> r 256, g 128, b 64. */
   const struct su_format_desc *e5 = fmt(VK_FORMAT_E5B9G9R9_UFLOAT_PACK32);
   su_pack_float(e5, (float[4]){ 1.0f, 0.5f, 0.25f, 1 }, t);
   CHECK(word32(t) == (16u << 27 | 64u << 18 | 128u << 9 | 256u), "E5B9G9R9 (1, .5, .25) = %08x",
         word32(t));
   su_unpack_float(e5, t, v);
   CHECK(v[0] == 1.0f && v[1] == 0.5f && v[2] == 0.25f && v[3] == 1.0f, "E5B9G9R9 unpack");
   /* 1 - 2^-10: exp' = -1 + 16 = 15, max_s = floor(511.5 + 0.5) = 512 = 2^N,
    * so exp_shared = 16 and r = floor(255.75 + 0.5) = 256. */
   su_pack_float(e5, (float[4]){ 1.0f - 0x1p-10f, 0, 0, 1 }, t);
   CHECK(word32(t) == (16u << 27 | 256u), "E5B9G9R9 exponent bump = %08x", word32(t));
   /* clamped to sharedexp_max = 511/512 * 2^16 = 65408: exp 31, mantissa 511 */
   su_pack_float(e5, (float[4]){ 1e10f, -3.0f, NAN, 1 }, t);
   CHECK(word32(t) == (31u << 27 | 511u), "E5B9G9R9 clamp = %08x", word32(t));
   /* 2^-20: exp' = max(-16, -20) + 16 = 0, r = 2^-20 / 2^-24 = 16 */
   su_pack_float(e5, (float[4]){ 0x1p-20f, 0, 0, 1 }, t);
   CHECK(word32(t) == 16u, "E5B9G9R9 tiny = %08x", word32(t));
   /* (3, 0.1, 0): exp' = 1 + 16 = 17, r = 3 * 2^7 = 384, g = floor(12.8 + .5) = 13 */
   su_pack_float(e5, (float[4]){ 3.0f, 0.1f, 0.0f, 1 }, t);
   CHECK(word32(t) == (17u << 27 | 13u << 9 | 384u), "E5B9G9R9 (3, .1, 0) = %08x", word32(t));

   /* sRGB at 0, 0.5, 1 against the formula */
   CHECK(su_srgb_to_linear(0.0f) == 0.0f && su_srgb_to_linear(1.0f) == 1.0f, "srgb ends");
   CHECK(fabs(su_srgb_to_linear(0.5f) - pow(0.555 / 1.055, 2.4)) < 1e-7, "srgb 0.5 -> %.9g",
         su_srgb_to_linear(0.5f));
   CHECK(fabs(su_srgb_to_linear(0.04f) - 0.04 / 12.92) < 1e-9, "srgb linear segment");
   CHECK(su_linear_to_srgb(0.0f) == 0.0f && su_linear_to_srgb(1.0f) == 1.0f, "linear ends");
   CHECK(fabs(su_linear_to_srgb(0.5f) - (1.055 * pow(0.5, 1 / 2.4) - 0.055)) < 1e-7,
         "linear 0.5 -> %.9g", su_linear_to_srgb(0.5f));
   CHECK(fabs(su_linear_to_srgb(0.003f) - 0.003 * 12.92) < 1e-8, "linear segment");
   CHECK(su_linear_to_srgb(NAN) == 0.0f && su_linear_to_srgb(-1.0f) == 0.0f &&
            su_linear_to_srgb(2.0f) == 1.0f,
         "linear_to_srgb clamps");
   /* both curves over [0, 1], including the stretches near the thresholds
    * that no 8-bit code reaches */
   int bad_curve = 0;
   for (int k = 0; k <= 100000; k++) {
      const float x = k < 50000 ? k / 50000.0f : 0.002f + (k - 50000) / 50000.0f * 0.04f;
      const double d1 = su_srgb_to_linear(x), r1 = ref_srgb_decode(x);
      const double d2 = su_linear_to_srgb(x), r2 = ref_srgb_encode(x);
      if (fabs(d1 - r1) > 1e-7 * r1 || fabs(d2 - r2) > 1e-7 * r2)
         bad_curve++;
   }
   CHECK(bad_curve == 0, "sRGB curves: %d points off", bad_curve);

   const struct su_format_desc *srgb = fmt(VK_FORMAT_R8G8B8A8_SRGB);
   su_pack_float(srgb, (float[4]){ 0.0f, 0.5f, 1.0f, 0.5f }, t);
   CHECK(t[0] == 0 && t[2] == 255, "srgb pack ends");
   CHECK(t[1] == (uint8_t)floor((1.055 * pow(0.5, 1 / 2.4) - 0.055) * 255 + 0.5) && t[1] == 188,
         "srgb pack 0.5 -> %d", t[1]);
   CHECK(t[3] == 128, "srgb alpha is linear: %d", t[3]);
}

static void test_packed_bits(void)
{
   uint8_t t[8];
   su_pack_float(fmt(VK_FORMAT_R5G6B5_UNORM_PACK16), (float[4]){ 1, 0, 1, 0 }, t);
   CHECK(word16(t) == 0xf81f, "R5G6B5 (1,0,1) = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_R5G6B5_UNORM_PACK16), (float[4]){ 0, 1, 0, 0 }, t);
   CHECK(word16(t) == 0x07e0, "R5G6B5 (0,1,0) = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_B5G6R5_UNORM_PACK16), (float[4]){ 1, 0, 0, 0 }, t);
   CHECK(word16(t) == 0x001f, "B5G6R5 red = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_A2B10G10R10_UNORM_PACK32), (float[4]){ 1, 0, 0, 1 }, t);
   CHECK(word32(t) == 0xc00003ffu, "A2B10G10R10 (1,0,0,1) = %08x", word32(t));
   su_pack_float(fmt(VK_FORMAT_A2R10G10B10_UNORM_PACK32), (float[4]){ 1, 0, 0, 1.0f / 3 }, t);
   CHECK(word32(t) == (0x3ffu << 20 | 1u << 30), "A2R10G10B10 = %08x", word32(t));
   su_pack_uint(fmt(VK_FORMAT_A2B10G10R10_UINT_PACK32), (uint32_t[4]){ 1, 2, 3, 2 }, t);
   CHECK(word32(t) == (2u << 30 | 3u << 20 | 2u << 10 | 1u), "A2B10G10R10_UINT = %08x",
         word32(t));
   su_pack_float(fmt(VK_FORMAT_B4G4R4A4_UNORM_PACK16), (float[4]){ 1, 0, 0, 0 }, t);
   CHECK(word16(t) == 0x00f0, "B4G4R4A4 red = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_B4G4R4A4_UNORM_PACK16), (float[4]){ 0, 0, 1, 0 }, t);
   CHECK(word16(t) == 0xf000, "B4G4R4A4 blue = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_R4G4B4A4_UNORM_PACK16), (float[4]){ 1, 0, 0, 0.2f }, t);
   CHECK(word16(t) == 0xf003, "R4G4B4A4 = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_A1R5G5B5_UNORM_PACK16), (float[4]){ 0, 0, 0, 1 }, t);
   CHECK(word16(t) == 0x8000, "A1R5G5B5 alpha = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_A1R5G5B5_UNORM_PACK16), (float[4]){ 0, 0, 1, 0 }, t);
   CHECK(word16(t) == 0x001f, "A1R5G5B5 blue = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_A1R5G5B5_UNORM_PACK16), (float[4]){ 1, 0, 0, 0.49f }, t);
   CHECK(word16(t) == 0x7c00, "A1R5G5B5 red = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_R5G5B5A1_UNORM_PACK16), (float[4]){ 0, 0, 0, 1 }, t);
   CHECK(word16(t) == 0x0001, "R5G5B5A1 alpha = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_B5G5R5A1_UNORM_PACK16), (float[4]){ 1, 0, 0, 0 }, t);
   CHECK(word16(t) == 0x003e, "B5G5R5A1 red = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_A4R4G4B4_UNORM_PACK16), (float[4]){ 1, 0, 0, 0 }, t);
   CHECK(word16(t) == 0x0f00, "A4R4G4B4 red = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_A4B4G4R4_UNORM_PACK16), (float[4]){ 1, 0, 0, 1 }, t);
   CHECK(word16(t) == 0xf00f, "A4B4G4R4 red+alpha = %04x", word16(t));
   su_pack_float(fmt(VK_FORMAT_R4G4_UNORM_PACK8), (float[4]){ 1, 0, 0, 0 }, t);
   CHECK(t[0] == 0xf0, "R4G4 red = %02x", t[0]);
   su_pack_float(fmt(VK_FORMAT_B8G8R8A8_UNORM), (float[4]){ 1, 0, 0, 0 }, t);
   CHECK(t[0] == 0 && t[2] == 255, "B8G8R8A8 red in byte 2");
   su_pack_float(fmt(VK_FORMAT_A8B8G8R8_UNORM_PACK32), (float[4]){ 1, 0, 0, 1 }, t);
   CHECK(word32(t) == 0xff0000ffu, "A8B8G8R8 = %08x", word32(t));
   su_pack_float(fmt(VK_FORMAT_R16G16_SFLOAT), (float[4]){ 1, -2, 0, 0 }, t);
   CHECK(word32(t) == 0xc0003c00u, "R16G16_SFLOAT = %08x", word32(t));
}

static void test_clamping(void)
{
   uint8_t t[16];
   float v[4];
   const struct su_format_desc *u8 = fmt(VK_FORMAT_R8G8B8A8_UNORM);
   su_pack_float(u8, (float[4]){ 2.0f, -1.0f, NAN, INFINITY }, t);
   CHECK(t[0] == 255 && t[1] == 0 && t[2] == 0 && t[3] == 255, "UNORM clamp %d %d %d %d", t[0],
         t[1], t[2], t[3]);
   su_pack_float(u8, (float[4]){ 0.5f, 0.51f / 255, 0.49f / 255, -INFINITY }, t);
   CHECK(t[0] == 128 && t[1] == 1 && t[2] == 0 && t[3] == 0, "UNORM rounding %d %d %d", t[0], t[1],
         t[2]);
   const struct su_format_desc *s8 = fmt(VK_FORMAT_R8G8B8A8_SNORM);
   su_pack_float(s8, (float[4]){ 2.0f, -2.0f, NAN, -0.5f }, t);
   CHECK(t[0] == 127 && t[1] == 0x81 && t[2] == 0 && (int8_t)t[3] == -64, "SNORM clamp %d %d %d %d",
         (int8_t)t[0], (int8_t)t[1], (int8_t)t[2], (int8_t)t[3]);
   su_pack_float(fmt(VK_FORMAT_R8G8_USCALED), (float[4]){ 300.0f, -4.0f, 0, 0 }, t);
   CHECK(t[0] == 255 && t[1] == 0, "USCALED clamp");
   su_pack_float(fmt(VK_FORMAT_R8G8_SSCALED), (float[4]){ 300.0f, -300.0f, 0, 0 }, t);
   CHECK(t[0] == 127 && t[1] == 0x80, "SSCALED clamp");
   su_pack_float(fmt(VK_FORMAT_R8G8_USCALED), (float[4]){ 2.6f, 2.4f, 0, 0 }, t);
   CHECK(t[0] == 3 && t[1] == 2, "USCALED rounds to nearest: %d %d", t[0], t[1]);
   su_pack_float(fmt(VK_FORMAT_R8G8_SSCALED), (float[4]){ -2.6f, 2.6f, 0, 0 }, t);
   CHECK((int8_t)t[0] == -3 && t[1] == 3, "SSCALED rounds to nearest: %d %d", (int8_t)t[0], t[1]);
   su_pack_float(fmt(VK_FORMAT_R16_UNORM), (float[4]){ 0.5f, 0, 0, 0 }, t);
   CHECK(word16(t) == 32768, "UNORM16 0.5 = %d", word16(t));

   su_pack_uint(fmt(VK_FORMAT_R8_UINT), (uint32_t[4]){ 300, 0, 0, 0 }, t);
   CHECK(t[0] == 255, "R8_UINT 300 -> %d", t[0]);
   su_pack_uint(fmt(VK_FORMAT_R16G16_UINT), (uint32_t[4]){ 70000, 65535, 0, 0 }, t);
   CHECK(word16(t) == 65535 && word16(t + 2) == 65535, "R16_UINT clamp");
   su_pack_uint(fmt(VK_FORMAT_A2R10G10B10_UINT_PACK32), (uint32_t[4]){ 5000, 0, 0, 9 }, t);
   CHECK(word32(t) == (3u << 30 | 1023u << 20), "10-bit uint clamp = %08x", word32(t));
   su_pack_sint(fmt(VK_FORMAT_R8G8_SINT), (int32_t[4]){ -300, 300, 0, 0 }, t);
   CHECK(t[0] == 0x80 && t[1] == 0x7f, "R8_SINT clamp");
   su_pack_sint(fmt(VK_FORMAT_A2B10G10R10_SINT_PACK32), (int32_t[4]){ -1000, 1000, 0, -5 }, t);
   CHECK(word32(t) == (2u << 30 | 511u << 10 | 0x200u), "10-bit sint clamp = %08x", word32(t));
   su_pack_uint(fmt(VK_FORMAT_R64_UINT), (uint32_t[4]){ 0xffffffffu, 0, 0, 0 }, t);
   CHECK(word32(t) == 0xffffffffu && word32(t + 4) == 0, "R64_UINT zero-extends");
   su_pack_sint(fmt(VK_FORMAT_R64_SINT), (int32_t[4]){ -2, 0, 0, 0 }, t);
   CHECK(word32(t) == 0xfffffffeu && word32(t + 4) == 0xffffffffu, "R64_SINT sign-extends");

   /* unpack of missing channels */
   uint32_t u[4];
   t[0] = 7;
   su_unpack_uint(fmt(VK_FORMAT_R8_UINT), t, u);
   CHECK(u[0] == 7 && u[1] == 0 && u[2] == 0 && u[3] == 1, "R8_UINT unpack (7,0,0,1)");
   su_unpack_float(fmt(VK_FORMAT_R8G8B8_UNORM), t, v);
   CHECK(v[3] == 1.0f, "RGB alpha = 1");

   /* rounding of normalized pack for arbitrary inputs: within half a step */
   static const VkFormat nf[] = { VK_FORMAT_R4G4B4A4_UNORM_PACK16, VK_FORMAT_R5G6B5_UNORM_PACK16,
                                  VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
                                  VK_FORMAT_R16G16B16A16_UNORM, VK_FORMAT_R8G8B8A8_SNORM,
                                  VK_FORMAT_A2R10G10B10_SNORM_PACK32, VK_FORMAT_R16G16_SNORM };
   for (unsigned i = 0; i < sizeof(nf) / sizeof(nf[0]); i++) {
      const struct su_format_desc *d = fmt(nf[i]);
      struct ref_layout L;
      parse_layout(d, &L);
      const bool is_signed = d->kind == SU_KIND_SNORM;
      int bad = 0;
      for (int k = 0; k < 100000; k++) {
         float in[4];
         for (int c = 0; c < 4; c++)
            in[c] = is_signed ? rnd_unit() * 2 - 1 : rnd_unit();
         su_pack_float(d, in, t);
         for (int c = 0; c < 4; c++) {
            const int b = L.bits[c];
            if (!b)
               continue;
            uint64_t code = get_field(t, L.off[c], b);
            double val = (double)code;
            if (is_signed && (code >> (b - 1)))
               val -= ldexp(1.0, b);
            const double scale = is_signed ? ldexp(1.0, b - 1) - 1 : ldexp(1.0, b) - 1;
            if (fabs(in[c] * scale - val) > 0.5 + 1e-9)
               bad++;
         }
      }
      CHECK(bad == 0, "%s: %d channels not rounded to nearest", d->name, bad);
   }

   /* sRGB encode of arbitrary linear values: nearest code */
   int bad = 0;
   const struct su_format_desc *sd = fmt(VK_FORMAT_R8_SRGB);
   for (int k = 0; k < 200000; k++) {
      const float l = k < 100000 ? rnd_unit() : rnd_unit() * 0.01f;
      su_pack_float(sd, (float[4]){ l, 0, 0, 0 }, t);
      if (fabs(ref_srgb_encode(l) * 255 - t[0]) > 0.5 + 1e-9)
         bad++;
   }
   CHECK(bad == 0, "sRGB pack: %d not nearest", bad);
}

/* Float -> half / 11-bit / 10-bit against the brute-force reference. */
static void test_float_encoders(void)
{
   init_small_vals();
   const struct su_format_desc *b10 = fmt(VK_FORMAT_B10G11R11_UFLOAT_PACK32);
   int bad_h = 0, bad_11 = 0, bad_10 = 0, n = 0;
   uint8_t t[4];

   /* a stride through the floats from 0 to past 2^17, then the midpoints
    * between neighbouring codes of each format and the floats next to them */
   static float probes[3 * 3 * 31 * 1024 + 400000];
   int np = 0;
   for (uint32_t x = 0; x <= 0x48000000u + 131 * 4096; x += 3307)
      probes[np++] = bitsf(x);
   for (int mb = 0; mb < 3; mb++) {
      const int mbits = mb == 0 ? 5 : mb == 1 ? 6 : 10;
      const int codes = 31 << mbits;
      for (int k = 0; k < codes; k++) {
         const double next = k + 1 < codes ? small_vals[mb][k + 1] : 65536.0;
         const float mid = (float)((small_vals[mb][k] + next) / 2);
         probes[np++] = mid;
         probes[np++] = nextafterf(mid, 0);
         probes[np++] = nextafterf(mid, INFINITY);
      }
   }
   for (int p = 0; p < np; p++) {
      const float f = probes[p];
      n++;
      if (su_float_to_half(f) != ref_encode_small(f, 10))
         bad_h++;
      if (su_float_to_half(-f) != (0x8000 | ref_encode_small(f, 10)))
         bad_h++;
      su_pack_float(b10, (float[4]){ f, 0, f, 0 }, t);
      if ((word32(t) & 0x7ff) != ref_encode_small(f, 6))
         bad_11++;
      if ((word32(t) >> 22) != ref_encode_small(f, 5))
         bad_10++;
   }
   CHECK(bad_h == 0, "half encode: %d of %d wrong", bad_h, n);
   CHECK(bad_11 == 0, "11-bit encode: %d of %d wrong", bad_11, n);
   CHECK(bad_10 == 0, "10-bit encode: %d of %d wrong", bad_10, n);

   /* every half decodes per the formula and re-encodes to itself */
   int bad_rt = 0;
   for (uint32_t h = 0; h < 65536; h++) {
      const float f = su_half_to_float((uint16_t)h);
      const double want = ref_small(h, 10, true);
      if (!(isnan(want) ? isnan(f) : (double)f == want))
         bad_rt++;
      else if (!isnan(want) && su_float_to_half(f) != h)
         bad_rt++;
      else if (isnan(want) && (su_float_to_half(f) & 0x7c00) != 0x7c00)
         bad_rt++;
   }
   CHECK(bad_rt == 0, "half decode/round trip: %d wrong", bad_rt);
}

/* E5B9G9R9 on arbitrary inputs: properties of the spec's algorithm. */
static void test_e5b9g9r9_random(void)
{
   const struct su_format_desc *e5 = fmt(VK_FORMAT_E5B9G9R9_UFLOAT_PACK32);
   int bad = 0;
   uint8_t t[4];
   for (int k = 0; k < 200000; k++) {
      float in[4] = { 0, 0, 0, 1 };
      for (int c = 0; c < 3; c++)
         in[c] = ldexpf(rnd_unit(), (int)(rnd() % 44) - 26);
      su_pack_float(e5, in, t);
      const uint32_t w = word32(t);
      const int e = (int)(w >> 27);
      uint32_t maxm = 0;
      for (int c = 0; c < 3; c++) {
         const uint32_t mnt = (w >> (9 * c)) & 0x1ff;
         maxm = mnt > maxm ? mnt : maxm;
         const double cl = fmin(in[c], 511.0 / 512 * 65536);
         /* each mantissa rounds the clamped value to nearest in steps of 2^(e-24) */
         if (fabs(ldexp(mnt, e - 24) - cl) > ldexp(1.0, e - 25) * (1 + 1e-12))
            bad++;
      }
      /* the exponent is the smallest that holds the largest component */
      if (e != 0 && maxm < 256)
         bad++;
   }
   CHECK(bad == 0, "E5B9G9R9 random: %d violations", bad);
}

static void test_depth_stencil(void)
{
   uint8_t t[8];
   const struct su_format_desc *d24s8 = fmt(VK_FORMAT_D24_UNORM_S8_UINT);
   CHECK(d24s8->block_size == 4 && d24s8->depth_offset == 0 && d24s8->stencil_offset == 3 &&
            d24s8->depth_copy_size == 4,
         "D24S8 layout");
   CHECK(d24s8->aspects == (VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT), "D24S8 aspects");
   CHECK(d24s8->num_channels == 0, "depth has no colour channels");
   memset(t, 0, sizeof(t));
   su_pack_stencil(d24s8, 0xab, t);
   su_pack_depth(d24s8, 1.0f, t);
   CHECK(word32(t) == 0xabffffffu, "D24S8 (1.0, 0xab) = %08x", word32(t));
   su_pack_depth(d24s8, 0.5f, t);
   CHECK(word32(t) == 0xab800000u, "D24S8 0.5 = %08x", word32(t));   /* floor(8388607.5 + .5) */
   CHECK(su_unpack_depth(d24s8, t) == 8388608.0f / 16777215.0f, "D24 unpack");
   CHECK(su_unpack_stencil(d24s8, t) == 0xab, "D24S8 stencil");
   su_pack_stencil(d24s8, 0x12, t);
   CHECK(word32(t) == 0x12800000u, "stencil write keeps depth = %08x", word32(t));
   su_pack_depth(d24s8, 2.0f, t);
   CHECK(word32(t) == 0x12ffffffu, "depth clamps to 1");
   su_pack_depth(d24s8, -1.0f, t);
   CHECK(word32(t) == 0x12000000u, "depth clamps to 0");
   su_pack_depth(d24s8, NAN, t);
   CHECK(word32(t) == 0x12000000u, "NaN depth -> 0");
   const uint32_t w = 0x5a000001u;
   memcpy(t, &w, 4);
   CHECK(su_unpack_depth(d24s8, t) == 1.0f / 16777215.0f, "D24 ignores stencil byte");

   const struct su_format_desc *x8 = fmt(VK_FORMAT_X8_D24_UNORM_PACK32);
   CHECK(x8->block_size == 4 && x8->depth_copy_size == 4 && x8->aspects == VK_IMAGE_ASPECT_DEPTH_BIT,
         "X8_D24 layout");
   memset(t, 0xff, sizeof(t));
   su_pack_depth(x8, 0.25f, t);
   CHECK(word32(t) == 0x00400000u, "X8_D24 0.25 = %08x", word32(t));   /* 4194303.75 -> 4194304 */
   memset(t, 0xff, 4);
   CHECK(su_unpack_depth(x8, t) == 1.0f, "X8_D24 ignores X8");

   const struct su_format_desc *d16 = fmt(VK_FORMAT_D16_UNORM);
   CHECK(d16->block_size == 2 && d16->depth_copy_size == 2, "D16 layout");
   su_pack_depth(d16, 0.5f, t);
   CHECK(word16(t) == 32768, "D16 0.5 = %d", word16(t));
   CHECK(su_unpack_depth(d16, t) == 32768.0f / 65535.0f, "D16 unpack");
   CHECK(su_format_depth_bits(d16) == 16 && su_format_depth_bits(d24s8) == 24 &&
            su_format_depth_bits(x8) == 24 &&
            su_format_depth_bits(fmt(VK_FORMAT_D32_SFLOAT_S8_UINT)) == 32 &&
            su_format_depth_bits(fmt(VK_FORMAT_S8_UINT)) == 0,
         "depth bits");

   const struct su_format_desc *d16s8 = fmt(VK_FORMAT_D16_UNORM_S8_UINT);
   CHECK(d16s8->block_size == 4 && d16s8->stencil_offset == 2 && d16s8->depth_copy_size == 2,
         "D16S8 layout");
   memset(t, 0xcc, sizeof(t));
   su_pack_depth(d16s8, 1.0f, t);
   su_pack_stencil(d16s8, 7, t);
   CHECK(t[0] == 0xff && t[1] == 0xff && t[2] == 7 && t[3] == 0xcc, "D16S8 bytes %02x %02x %02x %02x",
         t[0], t[1], t[2], t[3]);

   const struct su_format_desc *d32s8 = fmt(VK_FORMAT_D32_SFLOAT_S8_UINT);
   CHECK(d32s8->block_size == 8 && d32s8->stencil_offset == 4 && d32s8->depth_copy_size == 4,
         "D32S8 layout");
   memset(t, 0xcc, sizeof(t));
   su_pack_depth(d32s8, 0.3f, t);
   su_pack_stencil(d32s8, 0x80, t);
   CHECK(word32(t) == fbits(0.3f) && t[4] == 0x80 && t[5] == 0xcc && t[6] == 0xcc && t[7] == 0xcc,
         "D32S8 bytes");
   CHECK(su_unpack_depth(d32s8, t) == 0.3f && su_unpack_stencil(d32s8, t) == 0x80, "D32S8 unpack");

   const struct su_format_desc *d32 = fmt(VK_FORMAT_D32_SFLOAT);
   su_pack_depth(d32, 0.7f, t);
   CHECK(word32(t) == fbits(0.7f) && d32->depth_copy_size == 4, "D32");
   CHECK(su_format_class(d32) == SU_CLASS_FLOAT, "D32 class");

   const struct su_format_desc *s8 = fmt(VK_FORMAT_S8_UINT);
   CHECK(s8->block_size == 1 && s8->aspects == VK_IMAGE_ASPECT_STENCIL_BIT, "S8 layout");
   su_pack_stencil(s8, 200, t);
   CHECK(t[0] == 200 && su_unpack_stencil(s8, t) == 200, "S8");
   CHECK(su_format_class(s8) == SU_CLASS_UINT, "S8 class");

   /* exhaustive D16 and strided D24 round trips against c / (2^b - 1) */
   int bad = 0;
   for (uint32_t c = 0; c < 65536; c++) {
      t[0] = (uint8_t)c;
      t[1] = (uint8_t)(c >> 8);
      const float f = su_unpack_depth(d16, t);
      if (f != (float)c / 65535.0f)
         bad++;
      su_pack_depth(d16, f, t);
      if (word16(t) != c)
         bad++;
   }
   for (uint32_t c = 0; c < (1u << 24); c += 7) {
      uint32_t wd = c | 0x5a000000u;
      memcpy(t, &wd, 4);
      const float f = su_unpack_depth(d24s8, t);
      if (f != (float)c / 16777215.0f)
         bad++;
      su_pack_depth(d24s8, f, t);
      if (word32(t) != wd)
         bad++;
   }
   CHECK(bad == 0, "depth round trips: %d wrong", bad);
}

/* Multi-planar formats, as the spec defines them: G8_B8_R8_3PLANE_420 is
 * G, B and R planes of R8 (the last two halved in both dimensions);
 * G8_B8R8_2PLANE_420 a G plane of R8 and a halved R8G8 plane holding B in
 * byte 0 and R in byte 1. Single-plane formats are not multi-planar, and
 * multi-planar ones are not in the single-plane table. */
static void test_multiplanar(void)
{
   const struct su_multiplanar_desc *p3 = su_format_multiplanar(VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM);
   const struct su_multiplanar_desc *p2 = su_format_multiplanar(VK_FORMAT_G8_B8R8_2PLANE_420_UNORM);
   CHECK(p3 && p2, "multi-planar descriptions");
   if (!p3 || !p2)
      return;
   CHECK(p3->plane_count == 3 && p3->bits == 8, "3-plane: count / bits");
   for (int i = 0; i < 3; i++) {
      const uint8_t div = i ? 2 : 1;
      CHECK(p3->planes[i].format == VK_FORMAT_R8_UNORM && p3->planes[i].width_divisor == div &&
               p3->planes[i].height_divisor == div,
            "3-plane: plane %d", i);
   }
   CHECK(p3->g.plane == 0 && p3->b.plane == 1 && p3->r.plane == 2 && !p3->g.channel &&
            !p3->b.channel && !p3->r.channel,
         "3-plane: component locations");
   CHECK(p2->plane_count == 2 && p2->bits == 8 && p2->planes[0].format == VK_FORMAT_R8_UNORM &&
            p2->planes[0].width_divisor == 1 && p2->planes[1].format == VK_FORMAT_R8G8_UNORM &&
            p2->planes[1].width_divisor == 2 && p2->planes[1].height_divisor == 2,
         "2-plane: planes");
   CHECK(p2->g.plane == 0 && p2->g.channel == 0 && p2->b.plane == 1 && p2->b.channel == 0 &&
            p2->r.plane == 1 && p2->r.channel == 1,
         "2-plane: component locations");
   uint32_t n;
   const struct su_multiplanar_desc *t = su_format_multiplanar_table(&n);
   for (uint32_t i = 0; i < n; i++)
      CHECK(su_format_multiplanar(t[i].format) == &t[i] && !su_format_desc(t[i].format),
            "%s: lookup", t[i].name);
   CHECK(!su_format_multiplanar(VK_FORMAT_R8_UNORM) && !su_format_multiplanar(VK_FORMAT_UNDEFINED),
         "single-plane formats are not multi-planar");
   CHECK(su_plane_of_aspect(VK_IMAGE_ASPECT_PLANE_0_BIT) == 0 &&
            su_plane_of_aspect(VK_IMAGE_ASPECT_PLANE_2_BIT) == 2 &&
            su_plane_of_aspect(VK_IMAGE_ASPECT_COLOR_BIT) == -1 &&
            su_plane_of_aspect(VK_IMAGE_ASPECT_PLANE_0_BIT | VK_IMAGE_ASPECT_PLANE_1_BIT) == -1,
         "plane aspects");
}


/* su_unpack_float's 8-bit UNORM/SRGB byte reads against the generic layout
 * walk, bit for bit: every code in every channel position, then random
 * texels of every float-class colour format (other formats must reach the
 * same answer through whichever path they take). */
static void test_unpack_float_fast_path(void)
{
   static const VkFormat byte_formats[] = {
      VK_FORMAT_R8_UNORM, VK_FORMAT_R8_SRGB, VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8_SRGB,
      VK_FORMAT_R8G8B8_UNORM, VK_FORMAT_R8G8B8_SRGB, VK_FORMAT_B8G8R8_UNORM,
      VK_FORMAT_B8G8R8_SRGB, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_SRGB,
      VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_A8B8G8R8_UNORM_PACK32,
      VK_FORMAT_A8B8G8R8_SRGB_PACK32,
   };
   unsigned mismatches = 0, compared = 0;
   for (size_t f = 0; f < sizeof(byte_formats) / sizeof(byte_formats[0]); f++) {
      const struct su_format_desc *d = fmt(byte_formats[f]);
      for (unsigned pos = 0; pos < d->block_size; pos++) {
         for (unsigned b = 0; b < 256; b++) {
            uint8_t t[8];
            for (unsigned i = 0; i < sizeof(t); i++)
               t[i] = (uint8_t)rnd();
            t[pos] = (uint8_t)b;
            float fast[4], gen[4];
            su_unpack_float(d, t, fast);
            su_unpack_float_generic(d, t, gen);
            compared++;
            if (memcmp(fast, gen, sizeof(fast))) {
               if (mismatches++ < 8)
                  fprintf(stderr, "%s byte %u = %u: fast (%a %a %a %a) generic (%a %a %a %a)\n",
                          d->name, pos, b, fast[0], fast[1], fast[2], fast[3], gen[0], gen[1],
                          gen[2], gen[3]);
            }
         }
      }
   }
   CHECK(compared == 256 * (2 * (1 + 2 + 3 + 3 + 4 + 4 + 4)), "compared %u texels", compared);
   /* Known values, so that the two paths cannot agree on a wrong answer. */
   const uint8_t known[4] = { 0, 255, 128, 51 };
   float v[4];
   su_unpack_float(fmt(VK_FORMAT_R8G8B8A8_UNORM), known, v);
   CHECK(v[0] == 0.0f && v[1] == 1.0f && v[2] == 128.0f / 255.0f && v[3] == 0.2f,
         "R8G8B8A8_UNORM (%a %a %a %a)", v[0], v[1], v[2], v[3]);
   su_unpack_float(fmt(VK_FORMAT_B8G8R8A8_SRGB), known, v);
   CHECK(v[2] == 0.0f && v[1] == 1.0f && v[0] == (float)pow((128 / 255.0 + 0.055) / 1.055, 2.4) &&
            v[3] == 0.2f,
         "B8G8R8A8_SRGB (%a %a %a %a)", v[0], v[1], v[2], v[3]);
   su_unpack_float(fmt(VK_FORMAT_R8_SRGB), known + 1, v);
   CHECK(v[0] == 1.0f && v[1] == 0.0f && v[2] == 0.0f && v[3] == 1.0f, "R8_SRGB (%a %a %a %a)",
         v[0], v[1], v[2], v[3]);

   uint32_t count;
   const struct su_format_desc *table = su_format_table(&count);
   unsigned formats = 0;
   for (uint32_t i = 0; i < count; i++) {
      const struct su_format_desc *d = &table[i];
      if (d->kind == SU_KIND_DEPTH_STENCIL || d->kind == SU_KIND_COMPRESSED ||
          su_format_class(d) != SU_CLASS_FLOAT)
         continue;
      formats++;
      for (unsigned n = 0; n < 4096; n++) {
         uint8_t t[32];
         for (unsigned k = 0; k < sizeof(t); k++)
            t[k] = (uint8_t)rnd();
         float fast[4], gen[4];
         su_unpack_float(d, t, fast);
         su_unpack_float_generic(d, t, gen);
         if (memcmp(fast, gen, sizeof(fast)) && mismatches++ < 8)
            fprintf(stderr, "%s random texel: fast (%a %a %a %a) generic (%a %a %a %a)\n", d->name,
                    fast[0], fast[1], fast[2], fast[3], gen[0], gen[1], gen[2], gen[3]);
      }
   }
   CHECK(formats > 50, "%u float-class colour formats", formats);
   CHECK(mismatches == 0, "%u texels unpacked differently by the fast path", mismatches);
}

int main(void)
{
   test_unpack_float_fast_path();
   test_multiplanar();
   test_table();
   test_compressed();
   test_known_values();
   test_packed_bits();
   test_clamping();
   test_float_encoders();
   test_e5b9g9r9_random();
   test_depth_stencil();
   test_texels();
   return check_finish();
}
