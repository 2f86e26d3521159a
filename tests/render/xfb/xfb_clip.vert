#version 450
// test_xfb_clip.c: 16 captured vec4s in buffer 0 (stride 256), gl_Position
// and 11 more vec4s in buffer 1 (stride 192), all of them also read by the
// fragment shader, and eight clip distances (an octagon of radius 0.7 in
// normalized device coordinates): records far longer than their
// position-to-fragment-input words.
layout(location = 0) in vec4 pos;
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 256) out vec4 cap[16];
layout(location = 16, xfb_buffer = 1, xfb_offset = 16, xfb_stride = 192) out vec4 pad[11];
layout(xfb_buffer = 1) out gl_PerVertex {
   layout(xfb_offset = 0) vec4 gl_Position;
   float gl_ClipDistance[8];
};
const vec2 dirs[8] = vec2[8](vec2(1.0, 0.0), vec2(0.70710678, 0.70710678), vec2(0.0, 1.0),
                             vec2(-0.70710678, 0.70710678), vec2(-1.0, 0.0),
                             vec2(-0.70710678, -0.70710678), vec2(0.0, -1.0),
                             vec2(0.70710678, -0.70710678));
void main()
{
   gl_Position = pos;
   for (int i = 0; i < 16; i++)
      cap[i] = pos * float(i + 1);
   for (int i = 0; i < 11; i++)
      pad[i] = pos.yxwz * float(i + 2);
   for (int i = 0; i < 8; i++)
      gl_ClipDistance[i] = 0.7 * pos.w - dot(pos.xy, dirs[i]);
}
