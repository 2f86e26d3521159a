#version 450
// Position and a colour per vertex, passed through (smooth and flat).
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_smooth;
layout(location = 1) flat out vec4 v_flat;
void main()
{
   gl_Position = pos;
   v_smooth = color;
   v_flat = color;
}
