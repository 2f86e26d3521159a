#version 450
// A vertex shader: stages other than compute are not compiled yet.
layout(location = 0) in vec4 pos;
void main()
{
   gl_Position = pos * 2.0;
}
