#version 450
// test_geometry_xfb.c: the position and a tag (VertexIndex) passed on to
// the geometry shader; the tag is declared captured into buffer 1, which a
// pipeline with a geometry shader must not write.
layout(location = 0) in vec4 pos;
layout(location = 0, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 4) flat out uint tag;
void main()
{
   gl_Position = pos;
   tag = uint(gl_VertexIndex);
}
