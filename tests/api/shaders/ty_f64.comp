#version 450
// 64-bit float operations (api/types): every invocation applies the same
// list to four operand triples: its own (a, b, c), its workgroup's
// (uniform), its own a with the workgroup's b and c (mixed), and the
// push-constant triple. test_types.c computes the same slots in C.
layout(local_size_x = 32) in;

struct Triple { double a, b, c; int e; };   // std430: 32 bytes
layout(std430, set = 0, binding = 0) readonly buffer Lanes { Triple lane[]; };
layout(std430, set = 0, binding = 1) readonly buffer Groups { Triple group[]; };
layout(std430, set = 0, binding = 2) writeonly buffer OutD { double rd[]; };
layout(std430, set = 0, binding = 3) writeonly buffer OutI { uint ri[]; };
layout(push_constant) uniform Push { double a, b, c; int e; uint n; } pc;

const uint ND = 72;
const uint NI = 8;

void ops(double a, double b, double c, int e, uint kd, uint ki)
{
   rd[kd + 0] = a + b;
   rd[kd + 1] = a - b;
   rd[kd + 2] = a * b;
   rd[kd + 3] = a / b;
   rd[kd + 4] = fma(a, b, c);
   rd[kd + 5] = sqrt(abs(a));
   rd[kd + 6] = inversesqrt(abs(a));
   rd[kd + 7] = floor(a);
   rd[kd + 8] = ceil(a);
   rd[kd + 9] = fract(a);
   rd[kd + 10] = round(a);
   rd[kd + 11] = roundEven(a);
   rd[kd + 12] = trunc(a);
   rd[kd + 13] = min(a, b);
   rd[kd + 14] = max(a, b);
   rd[kd + 15] = clamp(a, min(b, c), max(b, c));
   rd[kd + 16] = mix(a, b, c);
   rd[kd + 17] = abs(a);
   rd[kd + 18] = sign(a);
   rd[kd + 19] = -a;
   rd[kd + 20] = double(float(b));
   double whole;
   rd[kd + 21] = modf(a, whole);
   rd[kd + 22] = whole;
   int ex;
   double fm = frexp(a, ex);
   rd[kd + 23] = fm;
   rd[kd + 24] = ldexp(b, e);
   rd[kd + 25] = mod(a, b);
   rd[kd + 26] = step(a, b);
   rd[kd + 27] = a * 0.1lf;
   rd[kd + 28] = a + 3.141592653589793lf;
   rd[kd + 29] = double(int(clamp(a, -2.0e9lf, 2.0e9lf)));
   rd[kd + 30] = double(uint(clamp(a, 0.0lf, 4.0e9lf)));
   rd[kd + 31] = packDouble2x32(unpackDouble2x32(a).yx);
   dvec3 u = dvec3(a, b, c), v = dvec3(c, a, b);
   rd[kd + 32] = dot(u, v);
   rd[kd + 33] = length(u);
   rd[kd + 34] = distance(u, v);
   dvec3 nu = normalize(u);
   rd[kd + 35] = nu.x;
   rd[kd + 36] = nu.y;
   rd[kd + 37] = nu.z;
   dvec3 cr = cross(u, v);
   rd[kd + 38] = cr.x;
   rd[kd + 39] = cr.y;
   rd[kd + 40] = cr.z;
   // A matrix whose inverse exists for the inputs the test checks.
   dmat3 m = dmat3(4.0lf + abs(c), a, b,
                   b, 5.0lf + abs(a), c,
                   c, a, 6.0lf + abs(b));
   rd[kd + 41] = determinant(m);
   dmat3 im = inverse(m);
   for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++)
         rd[kd + 42 + uint(j * 3 + i)] = im[j][i];
   dvec3 mv = m * u;
   rd[kd + 51] = mv.x;
   rd[kd + 52] = mv.y;
   rd[kd + 53] = mv.z;
   dvec3 vm = u * m;
   rd[kd + 54] = vm.x;
   rd[kd + 55] = vm.y;
   rd[kd + 56] = vm.z;
   dmat2 m2 = dmat2(a, b, c, a) * transpose(dmat2(b, c, a, b));
   rd[kd + 57] = m2[0][0];
   rd[kd + 58] = m2[0][1];
   rd[kd + 59] = m2[1][0];
   rd[kd + 60] = m2[1][1];
   rd[kd + 61] = smoothstep(min(b, c), max(b, c) + 1.0lf, a);
   rd[kd + 62] = dvec4(a, b, c, a + b)[uint(e) & 3u];
   rd[kd + 63] = a > b ? c : -c;
   dmat2 op = outerProduct(dvec2(a, b), dvec2(c, a));
   rd[kd + 64] = op[0][0];
   rd[kd + 65] = op[0][1];
   rd[kd + 66] = op[1][0];
   rd[kd + 67] = op[1][1];
   dvec3 rf = reflect(u, v);
   rd[kd + 68] = rf.x;
   rd[kd + 69] = rf.y;
   rd[kd + 70] = rf.z;
   rd[kd + 71] = ldexp(fm, ex);

   uint mk = 0u;
   mk |= a == b ? 1u : 0u;
   mk |= a != b ? 2u : 0u;
   mk |= a < b ? 4u : 0u;
   mk |= a <= b ? 8u : 0u;
   mk |= a > b ? 16u : 0u;
   mk |= a >= b ? 32u : 0u;
   mk |= isnan(a) ? 64u : 0u;
   mk |= isinf(a) ? 128u : 0u;
   mk |= !(a < b) ? 256u : 0u;
   mk |= !(a >= b) ? 512u : 0u;
   mk |= lessThan(dvec2(a, b), dvec2(b, a)) == bvec2(true, false) ? 1024u : 0u;
   ri[ki + 0] = mk;
   ri[ki + 1] = floatBitsToUint(float(a));
   ri[ki + 2] = uint(int(clamp(a, -2.0e9lf, 2.0e9lf)));
   ri[ki + 3] = uint(clamp(a, 0.0lf, 4.0e9lf));
   ri[ki + 4] = uint(ex);
   uvec2 halves = unpackDouble2x32(a);
   ri[ki + 5] = halves.x;
   ri[ki + 6] = halves.y;
   ri[ki + 7] = uint(int(double(e) * 0.5lf));
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.n)
      return;
   Triple v = lane[i];
   Triple g = group[gl_WorkGroupID.x];
   ops(v.a, v.b, v.c, v.e, (i * 4u + 0u) * ND, (i * 4u + 0u) * NI);
   ops(g.a, g.b, g.c, g.e, (i * 4u + 1u) * ND, (i * 4u + 1u) * NI);
   ops(v.a, g.b, g.c, g.e, (i * 4u + 2u) * ND, (i * 4u + 2u) * NI);
   ops(pc.a, pc.b, pc.c, pc.e, (i * 4u + 3u) * ND, (i * 4u + 3u) * NI);
}
