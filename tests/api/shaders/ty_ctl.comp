#version 450
// 64- and 16-bit values across control flow and memory (api/types): loops
// with 64-bit counters and per-lane trip counts, branches on 64-bit
// comparisons, values merged after divergent branches, private arrays of
// 64- and 16-bit elements indexed per lane, Workgroup memory reduced across
// barriers, and 64-/16-bit specialization constants. test_types.c computes
// the same slots in C.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 64) in;

layout(constant_id = 0) const int64_t K64 = 5l;
layout(constant_id = 1) const double KD = 1.5lf;
layout(constant_id = 2) const uint64_t KU = 0xfffffffffffffffful;
layout(constant_id = 3) const int16_t K16 = int16_t(-2);
const int64_t K64X = K64 * 3l + 1l;
const uint64_t KUX = KU >> 4u;

layout(std430, set = 0, binding = 0) readonly buffer In { uint64_t in64[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint64_t o[]; };

shared uint64_t s64[64];
shared double sd[64];
shared int16_t s16[64];

const uint NO = 32;

void main()
{
   uint li = gl_LocalInvocationID.x;
   uint gi = gl_GlobalInvocationID.x;
   uint k = gi * NO;
   uint64_t a = in64[gi];
   int64_t sa = int64_t(a);

   // Loop with a 64-bit counter, trip count per lane.
   uint64_t acc = a;
   for (uint64_t j = 0ul; j < (a & 15ul) + 3ul; j++)
      acc = (acc * 31ul + j) ^ (acc >> 7u);
   o[k + 0] = acc;

   // Data-dependent while loop on 64-bit values.
   uint64_t v = (a & 0xfffffful) | 1ul;
   uint n = 0u;
   while (v != 1ul && n < 1000u) {
      v = (v & 1ul) != 0ul ? 3ul * v + 1ul : v >> 1u;
      n++;
   }
   o[k + 1] = uint64_t(n);

   // Branches on signed 64-bit comparisons, merged.
   uint64_t x;
   if (sa < 0l)
      x = uint64_t(-(sa / 3l));
   else if (sa > 1000000l)
      x = a * 5ul;
   else
      x = a + 9ul;
   o[k + 2] = x;

   // Private arrays indexed per lane.
   uint64_t loc[8];
   double dl[8];
   int16_t hl[8];
   for (int j = 0; j < 8; j++) {
      loc[j] = a >> uint(j * 8);
      dl[j] = double(j) * 0.5lf + double(li);
      hl[j] = int16_t(a >> uint(j * 4));
   }
   uint idx = uint(a) & 7u;
   loc[(idx + 3u) & 7u] = ~loc[idx];
   hl[idx] = hl[idx] * int16_t(3);
   dl[(idx + 1u) & 7u] = -dl[idx];
   int hs = 0;
   double ds = 0.0lf;
   uint64_t lx = 0ul;
   for (int j = 0; j < 8; j++) {
      hs += int(hl[j]);
      ds += dl[j] * double(j + 1);
      lx = lx * 3ul + loc[j];
   }
   o[k + 3] = loc[idx];
   o[k + 4] = lx;
   o[k + 5] = uint64_t(int64_t(hs));
   o[k + 6] = doubleBitsToUint64(ds);
   o[k + 7] = uint64_t(int64_t(hl[(idx + 5u) & 7u]));

   // Switch with 64-bit values in the cases.
   uint64_t sw;
   switch (uint(a >> 60u)) {
   case 0u: sw = a * 3ul; break;
   case 1u:
   case 2u: sw = a ^ 0x5555555555555555ul; break;
   case 15u: sw = uint64_t(-sa); break;
   default: sw = a >> 3u; break;
   }
   o[k + 8] = sw;

   // Values of this lane live across the barriers below.
   int16_t h0 = int16_t(a * 3ul);
   double d0 = double(sa >> 20u) * 0.125lf;
   u16vec2 hv = u16vec2(a >> 16u, a >> 32u);

   // Workgroup memory across barriers: 64-bit sums, double sums, 16-bit
   // maxima, by halving trees.
   s64[li] = a;
   sd[li] = double(sa >> 40u) * 0.25lf;
   s16[li] = int16_t(a);
   barrier();
   for (uint s = 32u; s > 0u; s >>= 1u) {
      if (li < s) {
         s64[li] += s64[li + s];
         sd[li] += sd[li + s];
         s16[li] = max(s16[li], s16[li + s]);
      }
      barrier();
   }
   o[k + 9] = s64[0];
   o[k + 10] = doubleBitsToUint64(sd[0]);
   o[k + 11] = uint64_t(int64_t(s16[0]));
   o[k + 12] = acc ^ x;
   o[k + 25] = uint64_t(int64_t(h0));
   o[k + 26] = doubleBitsToUint64(d0);
   o[k + 27] = uint64_t(hv.x) | (uint64_t(hv.y) << 16u) | (uint64_t(hv.y - hv.x) << 32u);

   // Doubles to and from 16-bit integers.
   o[k + 28] = uint64_t(int64_t(int16_t(double(sa >> 48u) * 0.5lf)));
   o[k + 29] = uint64_t(uint16_t(double(a >> 48u) * 0.75lf));
   o[k + 30] = doubleBitsToUint64(double(int16_t(a)) / 4.0lf + double(uint16_t(a >> 8u)));

   // Specialization constants.
   o[k + 13] = uint64_t(K64);
   o[k + 14] = uint64_t(K64X);
   o[k + 15] = doubleBitsToUint64(KD);
   o[k + 16] = KU;
   o[k + 17] = KUX;
   o[k + 18] = uint64_t(int64_t(K16));
   o[k + 19] = uint64_t(sa * K64 + int64_t(K16));
   o[k + 20] = doubleBitsToUint64(double(sa >> 12u) * KD);

   // 16-bit loop counter wrapping around.
   uint16_t c16 = uint16_t(a);
   uint steps = 0u;
   for (uint16_t j = c16; j != uint16_t(3); j += uint16_t(4099)) {
      steps++;
      if (steps > 70000u)
         break;
   }
   o[k + 21] = uint64_t(steps);

   // Phi of 64-bit and double values from divergent paths.
   uint64_t ph = 0ul;
   double phd = 0.0lf;
   if ((a & 3ul) == 0ul) {
      ph = a + 1ul;
      phd = double(li);
   } else if ((a & 3ul) == 1ul) {
      ph = a * a;
      phd = -double(li);
   } else {
      ph = ~a;
      phd = 0.5lf;
   }
   o[k + 22] = ph;
   o[k + 23] = doubleBitsToUint64(phd);
   // Early exit for some lanes: the others still write.
   if ((a & 7ul) == 5ul)
      return;
   o[k + 24] = a - 1ul;
}
