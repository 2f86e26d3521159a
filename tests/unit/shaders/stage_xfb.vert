#version 450
// test_stages.c: transform feedback decorations on built-ins (gl_Position,
// gl_ClipDistance in buffer 0) and on the members of an output block
// (buffer 1); `plain` is not captured.
layout(location = 0) in vec4 pos;
layout(location = 0, xfb_buffer = 1, xfb_offset = 8, xfb_stride = 32) out Blk {
   vec2 a;
   float b;
} blk;
layout(location = 3) out vec4 plain;
out gl_PerVertex {
   layout(xfb_buffer = 0, xfb_offset = 0, xfb_stride = 48) vec4 gl_Position;
   layout(xfb_buffer = 0, xfb_offset = 16) float gl_ClipDistance[2];
};
void main()
{
   gl_Position = pos;
   gl_ClipDistance[0] = pos.x;
   gl_ClipDistance[1] = pos.y;
   blk.a = pos.zw;
   blk.b = pos.x + pos.y;
   plain = pos;
}
