#version 450
#extension GL_ARB_gpu_shader_int64 : require
// 64-bit vertex inputs (render/vertex_input64): each component of every
// R64* attribute stored as its 64 bits, 26 words per vertex at
// (InstanceIndex * 8 + VertexIndex) * 26. dvec3, dvec4, u64vec3, i64vec4
// and each dmat2x3 column take two Locations.
layout(location = 0) in double a;
layout(location = 1) in dvec2 b;
layout(location = 2) in dvec3 c;
layout(location = 4) in dvec4 d;
layout(location = 6) in uint64_t e;
layout(location = 7) in i64vec2 f;
layout(location = 8) in u64vec3 g;
layout(location = 10) in i64vec4 h;
layout(location = 12) in dmat2x3 m;
layout(set = 0, binding = 0) buffer B { uint64_t w[]; } o;
void main()
{
   uint n = (uint(gl_InstanceIndex) * 8u + uint(gl_VertexIndex)) * 26u;
   o.w[n + 0u] = doubleBitsToUint64(a);
   for (uint i = 0u; i < 2u; i++) o.w[n + 1u + i] = doubleBitsToUint64(b[i]);
   for (uint i = 0u; i < 3u; i++) o.w[n + 3u + i] = doubleBitsToUint64(c[i]);
   for (uint i = 0u; i < 4u; i++) o.w[n + 6u + i] = doubleBitsToUint64(d[i]);
   for (uint i = 0u; i < 3u; i++) o.w[n + 10u + i] = doubleBitsToUint64(m[0][i]);
   for (uint i = 0u; i < 3u; i++) o.w[n + 13u + i] = doubleBitsToUint64(m[1][i]);
   o.w[n + 16u] = e;
   for (uint i = 0u; i < 2u; i++) o.w[n + 17u + i] = uint64_t(f[i]);
   for (uint i = 0u; i < 3u; i++) o.w[n + 19u + i] = g[i];
   for (uint i = 0u; i < 4u; i++) o.w[n + 22u + i] = uint64_t(h[i]);
   gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
   gl_PointSize = 1.0;
}
