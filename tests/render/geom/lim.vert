#version 450
// test_geometry_limits.c: 64 output components (16 uvec4, the geometry
// shader's maxGeometryInputComponents) and the position, from exact
// integer patterns of the vertex index.
layout(location = 0) in vec4 pos;
layout(location = 0) out VB {
   flat uvec4 a[16];
} vout;
void main()
{
   gl_Position = pos;
   uint v = uint(gl_VertexIndex);
   for (uint i = 0u; i < 16u; i++)
      vout.a[i] = uvec4(0x9e3779b9u) * (uvec4(v * 64u + i * 4u) + uvec4(0u, 1u, 2u, 3u)) +
                  uvec4(0x01000000u * i);
}
