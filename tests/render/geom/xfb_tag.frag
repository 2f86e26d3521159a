#version 450
// test_geometry_xfb.c: the geometry shader's tag, low byte as red.
layout(location = 0) flat in uint tag;
layout(location = 0) out vec4 color;
void main()
{
   color = vec4(float(tag & 255u) / 255.0, 0.0, 0.0, 1.0);
}
