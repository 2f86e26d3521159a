#version 450
// 16-bit integer operations (api/types). shaderInt16 alone allows 16-bit
// arithmetic, not 16-bit buffers: operands arrive as 32-bit words, are
// converted (truncated) to int16_t / uint16_t, and results are widened back.
// Each invocation applies the list to its own pair, its workgroup's pair
// (uniform), a mix of the two, and the push-constant pair; test_types.c
// computes the same slots in C.
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer Lanes { uvec2 lane[]; };
layout(std430, set = 0, binding = 1) readonly buffer Groups { uvec2 group[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint r[]; };
layout(push_constant) uniform Push { uint a; uint b; uint n; } pc;

const uint NR = 48;

void ops(uint a32, uint b32, uint k)
{
   uint16_t a = uint16_t(a32), b = uint16_t(b32);
   int16_t sa = int16_t(a32), sb = int16_t(b32);
   uint16_t ub = b != uint16_t(0) ? b : uint16_t(7);
   int16_t sd = (sb == int16_t(0) || (sa == int16_t(-32768) && sb == int16_t(-1))) ? int16_t(3) : sb;
   r[k + 0] = uint(a + b);
   r[k + 1] = uint(int(sa + sb));
   r[k + 2] = uint(a - b);
   r[k + 3] = uint(int(sa - sb));
   r[k + 4] = uint(a * b);
   r[k + 5] = uint(int(sa * sb));
   r[k + 6] = uint(a / ub);
   r[k + 7] = uint(a % ub);
   r[k + 8] = uint(int(sa / sd));
   r[k + 9] = uint(int((sa & int16_t(0x7fff)) % ((sd & int16_t(0x7fff)) | int16_t(1))));
   r[k + 10] = uint(a << (b & uint16_t(15)));
   r[k + 11] = uint(a >> (b & uint16_t(15)));
   r[k + 12] = uint(int(sa >> (sb & int16_t(15))));
   r[k + 13] = uint(a << (b32 & 15u));
   r[k + 14] = uint(int(sa >> int(b32 & 15u)));
   r[k + 15] = uint(a & b);
   r[k + 16] = uint(a | b);
   r[k + 17] = uint(a ^ b);
   r[k + 18] = uint(~a);
   r[k + 19] = uint(int(-sa));
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
   r[k + 20] = m;
   r[k + 21] = uint(sa);             // sign-extended
   r[k + 22] = uint(a);              // zero-extended
   r[k + 23] = uint(int(a));
   r[k + 24] = floatBitsToUint(float(sa));
   r[k + 25] = floatBitsToUint(float(a));
   r[k + 26] = uint(int(int16_t(float(int(a32 & 0xffffu)) - 32768.5)));
   r[k + 27] = uint(uint16_t(float(b32 & 0xffffu) * 0.75));
   r[k + 28] = uint(int(abs(sa)));
   r[k + 29] = uint(int(sign(sa)));
   r[k + 30] = uint(int(min(sa, sb)));
   r[k + 31] = uint(int(max(sa, sb)));
   r[k + 32] = uint(min(a, b));
   r[k + 33] = uint(max(a, b));
   r[k + 34] = uint(int(clamp(sa, int16_t(-100), int16_t(300))));
   r[k + 35] = uint(clamp(a, min(b, uint16_t(1000)), max(b, uint16_t(1000))));
   r[k + 36] = uint(uint16_t(a >> uint16_t(8)) | uint16_t(b << uint16_t(8)));
   r[k + 37] = uint(int(sb * int16_t(-7)));
   r[k + 38] = packUint2x16(u16vec2(a, b));
   r[k + 39] = uint(packInt2x16(i16vec2(sb, sa)));
   u16vec2 un = unpackUint2x16(a32 ^ b32);
   r[k + 40] = uint(un.x) * 65536u + uint(un.y);
   uint64_t p4 = packUint4x16(u16vec4(a, b, ~a, a ^ b));
   r[k + 41] = uint(p4 >> 24u);
   i16vec4 up = unpackInt4x16(int64_t(uint64_t(a32) * 0x10001ul + (uint64_t(b32) << 40u)));
   r[k + 42] = uint(int(up.x + up.y * up.z - up.w));
   r[k + 43] = uint(a * uint16_t(0xABCD) + uint16_t(0x1234));
   r[k + 44] = uint(u16vec4(a, b, a + b, a * b)[b32 & 3u]);
   r[k + 45] = uint(sa < sb ? a : b);
   r[k + 46] = uint(int(int16_t(a)));
   r[k + 47] = uint(int64_t(sa) * int64_t(sb) + int64_t(uint16_t(sb)));
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.n)
      return;
   uvec2 v = lane[i];
   uvec2 g = group[gl_WorkGroupID.x];
   ops(v.x, v.y, (i * 4u + 0u) * NR);
   ops(g.x, g.y, (i * 4u + 1u) * NR);
   ops(v.x, g.y, (i * 4u + 2u) * NR);
   ops(pc.a, pc.b, (i * 4u + 3u) * NR);
}
