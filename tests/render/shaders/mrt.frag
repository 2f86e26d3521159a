#version 450
// Two render targets, one push-constant colour each.
layout(push_constant) uniform PC { vec4 c0; vec4 c1; } pc;
layout(location = 0) out vec4 o_c0;
layout(location = 1) out vec4 o_c1;
void main() { o_c0 = pc.c0; o_c1 = pc.c1; }
