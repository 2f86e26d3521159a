#version 450
// test_xfb64.c: 64-bit outputs captured by a geometry shader: per input
// point two lines (vertices k = 0, 1 and 2, 3); buffer 0 (stride 48) gets
// a dvec2 at 0, a uint tag at 16 and a double[2] at 24 (two Locations;
// bytes 20-23 and 40-47 never written). Values from exact bit patterns of
// v = VertexIndex * 4 + k.
layout(points) in;
layout(line_strip, max_vertices = 4) out;
layout(location = 0) flat in uint vtag[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 48) flat out dvec2 g;
layout(location = 1, xfb_buffer = 0, xfb_offset = 16) flat out uint gtag;
layout(location = 2, xfb_buffer = 0, xfb_offset = 24) flat out double gd[2];
void main()
{
   for (uint k = 0u; k < 4u; k++) {
      uint v = vtag[0] * 4u + k;
      gl_Position = gl_in[0].gl_Position + vec4(0.0625 * float(k), 0.0, 0.0, 0.0);
      g = dvec2(packDouble2x32(uvec2(0x01020304u * (v + 1u), 0x3ff00000u + v)),
                packDouble2x32(uvec2(0xdeadbeefu ^ v, 0xc0100000u + (v << 8))));
      gtag = v | 0xabc00000u;
      gd[0] = packDouble2x32(uvec2(~v, 0x40000000u | (v << 4)));
      gd[1] = packDouble2x32(uvec2(v * 9u + 2u, 0xbfe00000u + v));
      EmitVertex();
      if (k == 1u)
         EndPrimitive();
   }
}
