#version 450
// 64-bit integer operations (api/types): every invocation applies the same
// list of operations to four operand pairs: its own (a, b), the pair of its
// workgroup (uniform), its own a with the workgroup's b (mixed), and the
// push-constant pair. test_types.c computes the same list in C (keep the
// two in step: the slot numbers are the C switch's cases).
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer Lanes { u64vec2 lane[]; };
layout(std430, set = 0, binding = 1) readonly buffer Groups { u64vec2 group[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint64_t r[]; };
layout(push_constant) uniform Push { uint64_t a; uint64_t b; uint n; } pc;

const uint NR = 51;

void ops(uint64_t a, uint64_t b, uint k)
{
   int64_t sa = int64_t(a), sb = int64_t(b);
   uint64_t ub = b != 0ul ? b : 7ul;
   int64_t sd = (sb == 0l || (sa == (-9223372036854775807l - 1l) && sb == -1l)) ? 3l : sb;
   uint s6 = uint(b & 63ul);
   r[k + 0] = a + b;
   r[k + 1] = a - b;
   r[k + 2] = a * b;
   r[k + 3] = a / ub;
   r[k + 4] = a % ub;
   r[k + 5] = uint64_t(sa / sd);
   r[k + 6] = uint64_t((sa & 0x7fffffffffffffffl) % ((sd & 0x7fffffffffffffffl) | 1l));
   r[k + 7] = a << (b & 63ul);
   r[k + 8] = a >> (b & 63ul);
   r[k + 9] = uint64_t(sa >> int64_t(b & 63ul));
   r[k + 10] = a << s6;
   r[k + 11] = a >> s6;
   r[k + 12] = uint64_t(sa >> int(s6));
   r[k + 13] = a & b;
   r[k + 14] = a | b;
   r[k + 15] = a ^ b;
   r[k + 16] = ~a;
   r[k + 17] = uint64_t(-sa);
   uint m = 0u;
   m |= a == b ? 1u : 0u;
   m |= a != b ? 2u : 0u;
   m |= a < b ? 4u : 0u;
   m |= a <= b ? 8u : 0u;
   m |= a > b ? 16u : 0u;
   m |= a >= b ? 32u : 0u;
   m |= sa < sb ? 64u : 0u;
   m |= sa <= sb ? 128u : 0u;
   m |= sa > sb ? 256u : 0u;
   m |= sa >= sb ? 512u : 0u;
   m |= sa == sb ? 1024u : 0u;
   m |= sa != sb ? 2048u : 0u;
   r[k + 18] = uint64_t(m);
   r[k + 19] = uint64_t(int64_t(uint(a)) - int64_t(int(b)));
   r[k + 20] = (a >> 1u) + (b >> 1u) + (a & b & 1ul);
   r[k + 21] = uint64_t(uint(a));
   r[k + 22] = uint64_t(int(sa));
   r[k + 23] = uint64_t(uint(a) * uint(b));
   r[k + 24] = doubleBitsToUint64(double(sa));
   r[k + 25] = doubleBitsToUint64(double(a));
   r[k + 26] = uint64_t(floatBitsToUint(float(sa)));
   r[k + 27] = uint64_t(floatBitsToUint(float(a)));
   r[k + 28] = uint64_t(int64_t(double(sa) / 1024.0lf));
   r[k + 29] = uint64_t(double(a) * 0.25lf);
   r[k + 30] = uint64_t(int64_t(float(sa) * 0.25));
   r[k + 31] = uint64_t(abs(sa));
   r[k + 32] = uint64_t(sign(sa));
   r[k + 33] = uint64_t(min(sa, sb));
   r[k + 34] = uint64_t(max(sa, sb));
   r[k + 35] = min(a, b);
   r[k + 36] = max(a, b);
   r[k + 37] = uint64_t(clamp(sa, -1000l, 1000000l));
   r[k + 38] = clamp(a, min(b, 0x1000000000ul), max(b, 0x1000000000ul));
   r[k + 39] = packUint2x32(unpackUint2x32(a).yx);
   r[k + 40] = packUint2x32(uvec2(uint(b), uint(a)));
   r[k + 41] = a * 0x9E3779B97F4A7C15ul + 0x0123456789ABCDEFul;
   r[k + 42] = uint64_t(uint(a) >> (b & 31ul));
   r[k + 43] = sa < sb ? a : b;
   r[k + 44] = u64vec4(a, b, a ^ b, a + b)[uint(b) & 3u];
   r[k + 45] = uint64_t(int64_t(int16_t(sa)));
   r[k + 46] = uint64_t(uint16_t(a));
   r[k + 47] = uint64_t(uint(a >> 32u)) | (uint64_t(uint(a)) << 32u);
   // Amounts of 64 and more: undefined results, run but not compared.
   r[k + 48] = a << (b & 127ul);
   r[k + 49] = a >> (b & 127ul);
   r[k + 50] = uint64_t(sa >> int(b & 127ul));
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.n)
      return;
   u64vec2 v = lane[i];
   u64vec2 g = group[gl_WorkGroupID.x];
   ops(v.x, v.y, (i * 4u + 0u) * NR);
   ops(g.x, g.y, (i * 4u + 1u) * NR);
   ops(v.x, g.y, (i * 4u + 2u) * NR);
   ops(pc.a, pc.b, (i * 4u + 3u) * NR);
}
