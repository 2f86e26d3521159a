#version 450
// test_geometry_xfb.c: per input point p a line strip of three vertices, a
// cut, a strip of two and a strip of one (which makes no line); captured:
// gl_Position (offset 0) and a tag p * 16 + vertex number (offset 16) in
// buffer 0, stride 20. The vertex shader's own Xfb outputs (buffer 1) are
// not captured: the geometry shader is the last stage before rasterization.
layout(points) in;
layout(line_strip, max_vertices = 6) out;
layout(location = 0) flat in uint tag_in[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 16, xfb_stride = 20) flat out uint tag;
out gl_PerVertex {
   layout(xfb_buffer = 0, xfb_offset = 0) vec4 gl_Position;
};
void main()
{
   vec4 p = gl_in[0].gl_Position;
   for (int k = 0; k < 6; k++) {
      gl_Position = p + vec4(0.125 * float(k), 0.0625 * float(k & 1), 0.0, 0.0);
      tag = uint(gl_PrimitiveIDIn) * 16u + uint(k) + (tag_in[0] << 8);
      EmitVertex();
      if (k == 2 || k == 4)
         EndPrimitive();
   }
}
