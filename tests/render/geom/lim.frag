#version 450
// test_geometry_limits.c: a constant colour (lim_vert.geom writes only
// gl_Position).
layout(location = 0) out vec4 color;
void main()
{
   color = vec4(0.0, 1.0, 0.0, 1.0);
}
