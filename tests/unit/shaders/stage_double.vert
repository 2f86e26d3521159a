#version 450
// A 64-bit input: refused (not claimed), with a message.
layout(location = 0) in dvec2 d;
layout(location = 0) out float v;
void main()
{
   v = float(d.x);
}
