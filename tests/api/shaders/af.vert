#version 450
// api/alloc_fail's graphics pipelines: position and colour from vertex input.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_color;
void main()
{
   gl_Position = pos;
   v_color = color;
}
