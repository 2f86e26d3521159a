#version 450
// Tessellation tests: the interpolated colour.
layout(location = 0) in vec4 t_color;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = t_color;
}
