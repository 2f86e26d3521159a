#version 450
// Writes the flat input unchanged.
layout(location = 0) flat in vec4 v;
layout(location = 0) out vec4 o;
void main()
{
   o = v;
}
