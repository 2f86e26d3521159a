#version 450
// Shared memory and a barrier in a workgroup of 4 (one subgroup at any
// SIMD width): each invocation reads its neighbour's value after the barrier.
layout(local_size_x = 4) in;
layout(std430, binding = 0) readonly buffer I { uint i_[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
shared uint s[4];
void main()
{
   uint l = gl_LocalInvocationID.x;
   s[l] = i_[gl_GlobalInvocationID.x] * 3u;
   barrier();
   o[gl_GlobalInvocationID.x] = s[3u - l] + l;
}
