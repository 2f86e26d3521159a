#version 450
// test_xfb.c: captures gl_Position and a tag (buffer 0, stride 20) and a
// vec2 at offset 4 of buffer 1 (stride 12: bytes 0-3 of each vertex are
// never written).
layout(location = 0) in vec4 pos;
layout(location = 0, xfb_buffer = 0, xfb_offset = 16, xfb_stride = 20) flat out uint tag;
layout(location = 1, xfb_buffer = 1, xfb_offset = 4, xfb_stride = 12) out vec2 uv;
layout(location = 2) out vec4 not_captured;
out gl_PerVertex {
   layout(xfb_buffer = 0, xfb_offset = 0) vec4 gl_Position;
   float gl_PointSize;
};
void main()
{
   gl_Position = pos;
   gl_PointSize = 1.0;
   tag = uint(gl_VertexIndex) | (uint(gl_InstanceIndex) << 16);
   uv = pos.xy * 2.0;
   not_captured = pos.yxwz;
}
