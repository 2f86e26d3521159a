#version 450
// Writes the flat input unchanged.
layout(location = 0) flat in uvec4 v;
layout(location = 0) out uvec4 o;
void main()
{
   o = v;
}
