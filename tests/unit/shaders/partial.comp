#version 450
// A workgroup of 6x3x1 (not a multiple of the SIMD width): built-ins and
// the inactive tail lanes.
layout(local_size_x = 6, local_size_y = 3) in;
layout(std430, binding = 0) buffer O { uvec4 o[]; };
void main()
{
   uint flat_group = gl_WorkGroupID.x + gl_NumWorkGroups.x *
                     (gl_WorkGroupID.y + gl_NumWorkGroups.y * gl_WorkGroupID.z);
   uint i = flat_group * 18u + gl_LocalInvocationIndex;
   o[i * 3u + 0u] = uvec4(gl_LocalInvocationID, gl_LocalInvocationIndex);
   o[i * 3u + 1u] = uvec4(gl_GlobalInvocationID, flat_group);
   o[i * 3u + 2u] = uvec4(gl_WorkGroupID, gl_NumWorkGroups.x * 100u + gl_NumWorkGroups.y * 10u +
                          gl_NumWorkGroups.z);
}
