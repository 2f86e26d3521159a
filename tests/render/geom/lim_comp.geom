#version 450
// test_geometry_limits.c: maxGeometryInputComponents (64: 16 uvec4 per
// input vertex, every one read, no built-in input: the validation layer
// counts those too), maxGeometryOutputComponents (64: 16 uvec4, no
// built-in written) and maxGeometryTotalOutputComponents (1024: 16 points
// of 64): per input triangle 16 points, all captured (buffer 0, stride
// 256).
layout(triangles) in;
layout(points, max_vertices = 16) out;
layout(location = 0) in VB {
   flat uvec4 a[16];
} vin[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 256) flat out uvec4 o[16];
void main()
{
   const uvec4 tag = uvec4(0x5a5a0000u, 7u, 0x0000a5a5u, 0x70000000u);
   for (uint j = 0u; j < 16u; j++) {
      for (uint i = 0u; i < 16u; i++)
         o[i] = vin[0].a[i] + vin[1].a[(i + j) % 16u] * 3u + vin[2].a[(i + 2u * j) % 16u] * 5u +
                tag * (j + 1u);
      EmitVertex();
   }
}
