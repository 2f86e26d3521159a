#version 450
// api/ubo_std430: a uniform block laid out by the std430 rules
// (uniformBufferStandardLayout): float and struct arrays of stride 4 and 8,
// an ivec2 array of stride 8 and a mat2 of column stride 8, where std140
// would give each a stride of 16; every invocation reads elements picked
// by its index and writes them out as words.
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 16) in;
struct S { float a; float b; };
layout(std430, binding = 0) uniform U {
   float f[8];     // offset 0, stride 4
   vec3 v;         // 32
   float after;    // 44
   ivec2 p[3];     // 48, stride 8
   mat2 m;         // 72, column stride 8
   S s[4];         // 88, stride 8
   uint tail;      // 120
} u;
layout(std430, binding = 1) writeonly buffer O { uint o[]; };

void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint b = i * 10u;
   o[b + 0u] = floatBitsToUint(u.f[i & 7u]);
   o[b + 1u] = floatBitsToUint(u.v[i % 3u]);
   o[b + 2u] = floatBitsToUint(u.after);
   o[b + 3u] = uint(u.p[i % 3u].x);
   o[b + 4u] = uint(u.p[i % 3u].y);
   o[b + 5u] = floatBitsToUint(u.m[(i >> 1) & 1u][i & 1u]);
   o[b + 6u] = floatBitsToUint(u.s[i & 3u].a);
   o[b + 7u] = floatBitsToUint(u.s[(i + 1u) & 3u].b);
   o[b + 8u] = u.tail;
   o[b + 9u] = floatBitsToUint(u.f[7u - (i & 7u)] + u.s[i & 3u].b);
}
