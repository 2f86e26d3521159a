#version 450
// Invocations: three per point, invocation i a quad shifted by i * pos.w in
// x (overlapping its neighbours: later invocations must land on top) in a
// colour of its own; PrimitiveId written as PrimitiveIdIn * 4 + i.
layout(points, invocations = 3) in;
layout(triangle_strip, max_vertices = 4) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   vec4 p = gl_in[0].gl_Position;
   vec2 c = p.xy + vec2(float(gl_InvocationID) * p.w, 0.0);
   float h = p.z;
   vec4 col = vec4(v_color[0].rg, float(gl_InvocationID + 1) * 0.25, 1.0);
   for (int k = 0; k < 4; k++) {
      gl_Position = vec4(c + vec2((k & 1) != 0 ? h : -h, (k & 2) != 0 ? h : -h), 0.0, 1.0);
      g_color = col;
      gl_PrimitiveID = gl_PrimitiveIDIn * 4 + gl_InvocationID;
      EmitVertex();
   }
}
