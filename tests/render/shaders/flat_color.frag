#version 450
// The provoking vertex's colour: exact, whatever the interpolation (the
// smooth input is read, times zero, so the vertex shader's outputs are all
// consumed).
layout(location = 0) in vec4 v_smooth;
layout(location = 1) flat in vec4 v_flat;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = v_flat + 0.0 * v_smooth;
}
