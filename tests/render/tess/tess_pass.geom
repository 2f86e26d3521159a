#version 450
// After tessellation: each generated triangle passed on.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec4 t_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position;
      g_color = t_color[i];
      EmitVertex();
   }
}
