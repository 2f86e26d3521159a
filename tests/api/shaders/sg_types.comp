#version 450
// api/subgroup_types: subgroup operations on 16- and 64-bit integers
// (shaderSubgroupExtendedTypes with shaderInt16 and shaderInt64): reductions,
// scans, clustered reductions, shuffles, broadcasts and a quad swap, all
// lanes active, and a reduction over a divergent lane set. Each invocation
// writes WORDS words; word 0 is its subgroup id and lane for the reference.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };   // 2 words an invocation
layout(std430, binding = 1) writeonly buffer O { uint o[]; };

const uint WORDS = 28u;

void put64(uint at, uint64_t v)
{
   o[at] = uint(v);
   o[at + 1u] = uint(v >> 32);
}

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint b = g * WORDS;
   uint lane = gl_SubgroupInvocationID;
   o[b + 0u] = (gl_SubgroupID << 16) | lane;
   int16_t s = int16_t(a[2u * g]);
   uint16_t u = uint16_t(a[2u * g + 1u]);
   int64_t S = int64_t((uint64_t(a[2u * g]) << 32) | uint64_t(a[2u * g + 1u]));
   o[b + 1u] = uint(int(subgroupAdd(s)));
   o[b + 2u] = uint(int(subgroupMin(s)));
   o[b + 3u] = uint(int(subgroupMax(s)));
   o[b + 4u] = uint(subgroupInclusiveAdd(u));
   o[b + 5u] = uint(subgroupXor(u));
   o[b + 6u] = uint(int(subgroupShuffleXor(s, 1u)));
   o[b + 7u] = uint(int(subgroupBroadcast(s, 2u)));
   o[b + 8u] = uint(subgroupQuadSwapHorizontal(u));
   o[b + 9u] = uint(subgroupClusteredAdd(u, 4u));
   put64(b + 10u, uint64_t(subgroupAdd(S)));
   put64(b + 12u, uint64_t(subgroupMin(S)));
   put64(b + 14u, subgroupMax(uint64_t(S)));
   put64(b + 16u, uint64_t(subgroupExclusiveAdd(S)));
   put64(b + 18u, subgroupOr(uint64_t(S)));
   put64(b + 20u, uint64_t(subgroupShuffle(S, lane ^ 3u)));
   put64(b + 22u, uint64_t(subgroupBroadcastFirst(S)));
   put64(b + 24u, uint64_t(subgroupClusteredMax(S, 2u)));
   if (g % 3u != 0u) {
      o[b + 26u] = uint(int(subgroupAdd(s)));
      o[b + 27u] = uint(subgroupMul(uint64_t(u) + 1ul) >> 3);
   }
}
