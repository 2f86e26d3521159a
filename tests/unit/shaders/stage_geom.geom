#version 450
// A geometry shader: points in, one point out (render/geometry draws with
// geometry shaders; unit/stages checks the interface the compiler reports).
layout(points) in;
layout(points, max_vertices = 1) out;
void main()
{
   gl_Position = gl_in[0].gl_Position;
   EmitVertex();
}
