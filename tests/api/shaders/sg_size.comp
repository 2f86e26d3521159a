#version 450
// api/subgroup_size: each invocation of a 32x2 workgroup writes its subgroup
// layout and what its subgroup sees: gl_SubgroupSize, gl_NumSubgroups,
// gl_SubgroupID, gl_SubgroupInvocationID, the ballot count of active lanes
// and the subgroup sum of the input.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x = 32, local_size_y = 2) in;
layout(std430, binding = 0) readonly buffer In { uint a[]; };
layout(std430, binding = 1) writeonly buffer Out { uint o[]; };
void main()
{
   uint g = gl_WorkGroupID.x * 64u + gl_LocalInvocationIndex;
   uint b = g * 6u;
   o[b + 0u] = gl_SubgroupSize;
   o[b + 1u] = gl_NumSubgroups;
   o[b + 2u] = gl_SubgroupID;
   o[b + 3u] = gl_SubgroupInvocationID;
   o[b + 4u] = subgroupBallotBitCount(subgroupBallot(true));
   o[b + 5u] = subgroupAdd(a[g]);
}
