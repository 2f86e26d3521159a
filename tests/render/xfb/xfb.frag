#version 450
// test_xfb.c: the tag's low byte as red (the other inputs read, times 0).
layout(location = 0) flat in uint tag;
layout(location = 1) in vec2 uv;
layout(location = 2) in vec4 not_captured;
layout(location = 0) out vec4 color;
void main()
{
   color = vec4(float(tag & 255u) / 255.0, 0.0, 0.0, 1.0) + 0.0 * vec4(uv, 0.0, 0.0) +
           0.0 * not_captured;
}
