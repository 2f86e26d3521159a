#version 450
// Tessellation tests: the position only (init.tesc.spvasm reads no other input).
layout(location = 0) in vec4 pos;
void main()
{
   gl_Position = pos;
}
