#version 450
// A vertex shader (compiled since stages exist; unit/stages tests them).
layout(location = 0) in vec4 pos;
void main()
{
   gl_Position = pos * 2.0;
}
