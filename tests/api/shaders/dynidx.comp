#version 450
// Arrays of uniform and storage buffers indexed by dynamically uniform
// values (the workgroup ID, a push constant): needs
// shader{Uniform,Storage}BufferArrayDynamicIndexing.
layout(local_size_x = 16) in;
layout(push_constant) uniform P { uint sel; } pc;
layout(std430, set = 0, binding = 0) readonly buffer A { uint v[16]; } arr[3];
layout(std140, set = 0, binding = 1) uniform U { uvec4 u; } ubo[2];
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint o[]; };
void main()
{
   uint g = gl_WorkGroupID.x, i = gl_LocalInvocationID.x;
   o[g * 16u + i] = arr[g % 3u].v[i] * 3u + ubo[(pc.sel + g) & 1u].u[i % 4u];
}
