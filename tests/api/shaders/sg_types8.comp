#version 450
// api/subgroup_types: subgroup operations on 8-bit integers
// (shaderSubgroupExtendedTypes with shaderInt8): reductions, scans,
// broadcasts, shuffles, clustered reductions and quad operations, all lanes
// active, and a reduction over a divergent lane set. Each invocation writes
// WORDS words; word 0 is its subgroup id and lane for the reference.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_clustered : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_EXT_shader_subgroup_extended_types_int8 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };   // 2 words an invocation
layout(std430, binding = 1) writeonly buffer O { uint o[]; };

const uint WORDS = 21u;

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint b = g * WORDS;
   uint lane = gl_SubgroupInvocationID;
   o[b + 0u] = (gl_SubgroupID << 16) | lane;
   int8_t s = int8_t(a[2u * g]);
   uint8_t u = uint8_t(a[2u * g + 1u]);
   o[b + 1u] = uint(int(subgroupAdd(s)));
   o[b + 2u] = uint(int(subgroupMin(s)));
   o[b + 3u] = uint(int(subgroupMax(s)));
   o[b + 4u] = uint(subgroupMin(u));
   o[b + 5u] = uint(subgroupMax(u));
   o[b + 6u] = uint(subgroupMul(u));
   o[b + 7u] = uint(subgroupAnd(u));
   o[b + 8u] = uint(subgroupOr(u));
   o[b + 9u] = uint(subgroupXor(u));
   o[b + 10u] = uint(subgroupInclusiveAdd(u));
   o[b + 11u] = uint(int(subgroupExclusiveAdd(s)));
   o[b + 12u] = uint(int(subgroupBroadcast(s, 2u)));
   o[b + 13u] = uint(int(subgroupBroadcastFirst(s)));
   o[b + 14u] = uint(subgroupShuffle(u, lane ^ 3u));
   o[b + 15u] = uint(int(subgroupShuffleXor(s, 1u)));
   o[b + 16u] = uint(subgroupClusteredAdd(u, 4u));
   o[b + 17u] = uint(int(subgroupClusteredMin(s, 2u)));
   o[b + 18u] = uint(subgroupQuadSwapHorizontal(u));
   o[b + 19u] = uint(int(subgroupQuadBroadcast(s, 1u)));
   if (g % 3u != 0u)
      o[b + 20u] = uint(int(subgroupAdd(s)));
}
