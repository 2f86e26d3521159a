#version 450
// SPIR-V 1.5: broadcast and quad broadcast lanes given by dynamically
// uniform values instead of constants (a push constant, and one the
// uniformity analysis cannot see is uniform); 4 results per invocation.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x_id = 0) in;
layout(push_constant) uniform P { uint lanes[4]; uint k; uint q; } pc;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
layout(std430, binding = 2) writeonly buffer I { uint ids[]; };

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint lane = gl_SubgroupInvocationID;
   ids[g] = (gl_SubgroupID << 16) | (lane << 8) | gl_SubgroupSize;
   if (((pc.lanes[gl_SubgroupID & 3u] >> lane) & 1u) == 0u)
      return;
   uint x = a[g];
   uint k = (lane >> 8) + pc.k;   // 0 + k in every lane
   o[g * 4u + 0u] = subgroupBroadcast(x, pc.k);
   o[g * 4u + 1u] = subgroupBroadcast(x * 3u, k);
   o[g * 4u + 2u] = floatBitsToUint(subgroupBroadcast(float(x & 0xffffu), k));
   o[g * 4u + 3u] = subgroupQuadBroadcast(x, (lane >> 8) + pc.q);
}
