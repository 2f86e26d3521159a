#version 450
// Layered rendering: each input point drawn as a quad (half-size pos.z) by
// two invocations, invocation i into Layer i, shifted by i * pos.w in x,
// in the point's colour with blue (i + 1) / 4.
layout(points, invocations = 2) in;
layout(triangle_strip, max_vertices = 4) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   vec4 p = gl_in[0].gl_Position;
   vec2 c = p.xy + vec2(float(gl_InvocationID) * p.w, 0.0);
   for (int k = 0; k < 4; k++) {
      gl_Position = vec4(c + vec2((k & 1) != 0 ? p.z : -p.z, (k & 2) != 0 ? p.z : -p.z), 0.0, 1.0);
      g_color = vec4(v_color[0].rg, float(gl_InvocationID + 1) * 0.25, 1.0);
      gl_Layer = gl_InvocationID;
      EmitVertex();
   }
}
