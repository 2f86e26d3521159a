#version 450
// api/int8: 8-bit integer arithmetic (shaderInt8): each invocation converts
// two 32-bit inputs to int8_t and uint8_t and writes 16 results widened to
// 32 bits: wrapping add, sub, mul, negate, signed and unsigned division and
// remainder (divisors never 0, no -128 / -1), shifts, bitwise ops,
// (abs never of -128)
// comparisons, min / max / abs / clamp, and conversions to and from 16 bits.
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer In { uint x[]; };
layout(std430, binding = 1) writeonly buffer Out { int o[]; };

void main()
{
   uint i = gl_GlobalInvocationID.x;
   int8_t a = int8_t(x[2u * i]);
   int8_t b = int8_t(x[2u * i + 1u]);
   uint8_t ua = uint8_t(x[2u * i]);
   uint8_t ub = uint8_t(x[2u * i + 1u]);
   int8_t d = b == int8_t(0) || (a == int8_t(-128) && b == int8_t(-1)) ? int8_t(3) : b;
   uint8_t ud = ub == uint8_t(0) ? uint8_t(7) : ub;
   uint base = i * 16u;
   o[base + 0u] = int(a + b);
   o[base + 1u] = int(a - b);
   o[base + 2u] = int(a * b);
   o[base + 3u] = int(-a);
   o[base + 4u] = int(a / d);
   o[base + 5u] = int(a % d);
   o[base + 6u] = int(uint(ua / ud));
   o[base + 7u] = int(uint(ua % ud));
   o[base + 8u] = int(a >> (ub & uint8_t(7)));
   o[base + 9u] = int(uint(ua >> (ub & uint8_t(7))));
   o[base + 10u] = int(uint(ua << (ub & uint8_t(7))));
   o[base + 11u] = int(uint((ua & ub) | (ua ^ uint8_t(0x5a)) | ~ub)) ;
   o[base + 12u] = (a < b ? 1 : 0) | (ua < ub ? 2 : 0) | (a == b ? 4 : 0) | (ua >= ub ? 8 : 0);
   o[base + 13u] = int(min(a, b)) * 1000 + int(max(ua, ub));
   o[base + 14u] = int(a == int8_t(-128) ? int8_t(0) : abs(a)) +
                   int(clamp(b, int8_t(-20), int8_t(30))) * 1000;
   o[base + 15u] = int(int16_t(a) * int16_t(b)) + int(uint16_t(ua) + uint16_t(ub)) * 100000;
}
