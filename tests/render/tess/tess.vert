#version 450
// Tessellation tests: position and the patch data (levels, colour) passed
// on to the control shader.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 data;
layout(location = 0) out vec4 v_data;
void main()
{
   gl_Position = pos;
   v_data = data;
}
