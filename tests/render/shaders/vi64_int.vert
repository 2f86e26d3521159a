#version 450
#extension GL_ARB_gpu_shader_int64 : require
// vi64.vert's 64-bit integer inputs alone (render/vertex_input64, for
// drivers with the R64 UINT / SINT vertex formats but not the SFLOAT
// ones): the same words 16-25 of the same slots.
layout(location = 6) in uint64_t e;
layout(location = 7) in i64vec2 f;
layout(location = 8) in u64vec3 g;
layout(location = 10) in i64vec4 h;
layout(set = 0, binding = 0) buffer B { uint64_t w[]; } o;
void main()
{
   uint n = (uint(gl_InstanceIndex) * 8u + uint(gl_VertexIndex)) * 26u;
   o.w[n + 16u] = e;
   for (uint i = 0u; i < 2u; i++) o.w[n + 17u + i] = uint64_t(f[i]);
   for (uint i = 0u; i < 3u; i++) o.w[n + 19u + i] = g[i];
   for (uint i = 0u; i < 4u; i++) o.w[n + 22u + i] = uint64_t(h[i]);
   gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
   gl_PointSize = 1.0;
}
