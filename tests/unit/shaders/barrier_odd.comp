#version 450
// A workgroup of 70 (the last subgroup partly empty) with a barrier: each
// invocation reads the value its neighbour wrote before the barrier.
layout(local_size_x = 70) in;
layout(std430, binding = 0) writeonly buffer O { uint o[]; };
shared uint s[70];
void main()
{
   uint l = gl_LocalInvocationIndex;
   s[l] = l * l + gl_WorkGroupID.x;
   barrier();
   o[gl_GlobalInvocationID.x] = s[(l + 1u) % 70u];
}
