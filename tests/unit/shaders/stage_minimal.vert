#version 450
// A vertex shader that writes no Position: one user output.
layout(location = 0) out float v;
void main()
{
   v = float(gl_VertexIndex);
}
