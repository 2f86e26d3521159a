#version 450
// test_geometry_limits.c: the position only (lim_vert.geom reads nothing).
layout(location = 0) in vec4 pos;
void main()
{
   gl_Position = pos;
}
