#version 450
// SAXPY with push constants: y[i] = a * x[i] + y[i] for i < n.
layout(local_size_x = 64) in;
layout(push_constant) uniform Params { float a; uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i < pc.n)
      y[i] = pc.a * x[i] + y[i];
}
