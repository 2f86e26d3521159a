#version 450
// Image atomics on R32_UINT / R32_SINT storage images and a storage texel
// buffer, with out-of-bounds texels (dropped).
layout(local_size_x = 64) in;
layout(binding = 0, r32ui) uniform uimage2D counters;   // 6 x 2
layout(binding = 1, r32i) uniform iimage2D mins;        // 3 x 1
layout(binding = 2, r32ui) uniform uimageBuffer tcount; // 4 texels
layout(binding = 3, r32ui) uniform uimage2D swaps;      // 1 x 1
layout(std430, binding = 4) writeonly buffer O { uint olds[]; };
layout(std430, binding = 5) writeonly buffer X { uint xch[]; };

void main()
{
   uint i = gl_GlobalInvocationID.x;
   olds[i] = imageAtomicAdd(counters, ivec2(int(i % 5u), int(i / 160u)), 1u);
   imageAtomicMin(mins, ivec2(int(i % 3u), 0), int(i * 37u % 101u) - 50);
   imageAtomicAdd(tcount, int(i % 4u), i);
   imageAtomicAdd(tcount, 4 + int(i), 1u);                   // out of bounds
   imageAtomicAdd(counters, ivec2(-1, 0), 1u);               // out of bounds
   xch[i] = imageAtomicCompSwap(swaps, ivec2(0, 0), i, i + 1u);
   imageAtomicOr(counters, ivec2(5, 0), 1u << (i % 32u));
}
