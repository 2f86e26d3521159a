#version 450
// Point output: each input line becomes points at its two ends and its
// middle, in the first vertex's colour.
layout(lines) in;
layout(points, max_vertices = 3) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   vec4 a = gl_in[0].gl_Position, b = gl_in[1].gl_Position;
   gl_Position = a; g_color = v_color[0]; EmitVertex();
   gl_Position = 0.5 * (a + b); g_color = v_color[0]; EmitVertex();
   gl_Position = b; g_color = v_color[1]; EmitVertex();
}
