#version 450
// Reads every kind of buffer binding, so a test can tell which buffer each
// descriptor names: a uniform buffer, an array of three storage buffers and
// (set 1) a dynamic uniform and a dynamic storage buffer.
layout(local_size_x = 16) in;
layout(std140, set = 0, binding = 0) uniform U { uvec4 u; };
layout(std430, set = 0, binding = 1) readonly buffer A { uint v[16]; } arr[3];
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint o[]; };
layout(std140, set = 1, binding = 0) uniform DU { uvec4 du; };
layout(std430, set = 1, binding = 1) buffer DS { uint ds[16]; };
void main()
{
   uint i = gl_LocalInvocationID.x;
   o[i] = arr[0].v[i];
   o[16u + i] = arr[1].v[i];
   o[32u + i] = arr[2].v[i];
   o[48u + i] = u[i % 4u];
   o[64u + i] = du[i % 4u];
   o[80u + i] = ds[i];
   ds[i] = ds[i] * 2u + 1u;
}
