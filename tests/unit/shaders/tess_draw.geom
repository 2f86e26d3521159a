#version 450
// unit/tess_stages' draw: a geometry shader after tessellation passing
// each generated triangle on as it is.
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec4 color_in[];
layout(location = 0) out vec4 color_out;
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position;
      color_out = color_in[i];
      EmitVertex();
   }
}
