#version 450
// The same set layout at set numbers 0 and 1: one descriptor set can be
// bound at both with different dynamic offsets.
layout(local_size_x = 4) in;
layout(std430, set = 0, binding = 0) buffer A { uint a[4]; };
layout(std430, set = 1, binding = 0) buffer B { uint b[4]; };
void main()
{
   uint i = gl_LocalInvocationID.x;
   b[i] = a[i] * 10u + i;
}
