#version 450
// The perspective-correct interpolated colour.
layout(location = 0) in vec4 v_smooth;
layout(location = 1) flat in vec4 v_flat;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = v_smooth + 0.0 * v_flat;
}
