#version 450
// api/alloc_fail: the interpolated colour.
layout(location = 0) in vec4 g_color;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = g_color;
}
