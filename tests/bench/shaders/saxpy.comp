#version 450
// SAXPY for the bandwidth benchmark: y[i] = a * x[i] + y[i], one element per
// invocation; rows of workgroups along y (a dispatch's x count stays within
// the minimum maxComputeWorkGroupCount of 65535).
layout(local_size_x = 256) in;
layout(push_constant) uniform Params { float a; uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
void main()
{
   uint i = gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * 256u) + gl_GlobalInvocationID.x;
   if (i < pc.n)
      y[i] = pc.a * x[i] + y[i];
}
