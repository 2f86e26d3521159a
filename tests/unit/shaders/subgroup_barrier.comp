#version 450
// Subgroup operations around workgroup barriers (the body suspends and
// resumes there when the workgroup has several subgroups), in a partial last
// subgroup, and after the barriers in a divergent branch.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
layout(std430, binding = 2) writeonly buffer I { uint ids[]; };
shared uint sh[128];

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint li = gl_LocalInvocationIndex;
   ids[g] = (gl_SubgroupID << 16) | (gl_SubgroupInvocationID << 8) | gl_SubgroupSize;
   uint x = a[g];
   uint s1 = subgroupAdd(x);
   uint e1 = subgroupExclusiveMax(x);
   sh[li] = s1;
   barrier();
   uint nb = sh[(li + gl_SubgroupSize) % gl_WorkGroupSize.x];
   uint s2 = subgroupInclusiveAdd(nb) ^ subgroupBroadcastFirst(e1 + 1u);
   barrier();
   if ((x & 1u) != 0u)
      s2 += subgroupAdd(1u) * 1000u;
   o[g * 4u + 0u] = s1;
   o[g * 4u + 1u] = e1;
   o[g * 4u + 2u] = s2;
   o[g * 4u + 3u] = subgroupBallot(true).x;
}
