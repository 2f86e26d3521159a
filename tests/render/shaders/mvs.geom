#version 450
#extension GL_EXT_multiview : require
// Multiview (render/multiview): each triangle moved ViewIndex pixels right,
// this stage's ViewIndex + 30 in c.z.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) flat in uvec4 c[];
layout(location = 0) flat out uvec4 c_out;
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position + vec4(float(gl_ViewIndex) / 8.0, 0.0, 0.0, 0.0);
      c_out = uvec4(c[i].x, c[i].y, gl_ViewIndex + 30u, c[i].w);
      EmitVertex();
   }
   EndPrimitive();
}
