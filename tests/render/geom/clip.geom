#version 450
// Clip distances from a geometry shader: each input triangle passed
// through with ClipDistance[0] = x - 0.25 (NDC): only x >= 0.25 (pixel
// column 40 on) stays.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
out gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[1];
};
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position;
      gl_ClipDistance[0] = gl_in[i].gl_Position.x - 0.25;
      g_color = v_color[i];
      EmitVertex();
   }
}
