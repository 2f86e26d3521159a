#version 450
// Writes the flat input unchanged.
layout(location = 0) flat in ivec4 v;
layout(location = 0) out ivec4 o;
void main()
{
   o = v;
}
