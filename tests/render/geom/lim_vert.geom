#version 450
// test_geometry_limits.c: maxGeometryOutputVertices (256) and
// maxGeometryShaderInvocations (32) with maxGeometryTotalOutputComponents
// (1024: 256 vertices of gl_Position only): per input point and
// invocation one line strip of 256 vertices (255 lines), the position
// captured (buffer 0, stride 16). Exact in float: k / 128 - 1, and so on.
layout(points, invocations = 32) in;
layout(line_strip, max_vertices = 256) out;
out gl_PerVertex {
   layout(xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) vec4 gl_Position;
};
void main()
{
   for (int k = 0; k < 256; k++) {
      gl_Position = vec4(float(k) * 0.0078125 - 1.0,
                         float(gl_InvocationID) * 0.0625 - 1.0 + float(gl_PrimitiveIDIn) * 0.03125,
                         0.5, 1.0);
      EmitVertex();
   }
}
