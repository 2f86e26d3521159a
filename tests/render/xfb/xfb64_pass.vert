#version 450
// test_xfb64.c: the position and VertexIndex passed on to the geometry
// shader (xfb64.geom), which captures.
layout(location = 0) in vec4 pos;
layout(location = 0) flat out uint vtag;
void main()
{
   gl_Position = pos;
   vtag = uint(gl_VertexIndex);
}
