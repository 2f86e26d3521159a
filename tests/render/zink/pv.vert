#version 450
// test_zink_provoking.c: each vertex's index as a flat output.
layout(location = 0) in vec2 pos;
layout(location = 0) flat out uint v;
void main()
{
   v = uint(gl_VertexIndex);
   gl_Position = vec4(pos, 0.0, 1.0);
}
