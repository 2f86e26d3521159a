#version 450
// After tessellation in point mode: each point passed on with PointSize 3
// (shaderTessellationAndGeometryPointSize).
layout(points) in;
layout(points, max_vertices = 1) out;
layout(location = 0) in vec4 t_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   gl_Position = gl_in[0].gl_Position;
   gl_PointSize = 3.0;
   g_color = t_color[0];
   EmitVertex();
}
