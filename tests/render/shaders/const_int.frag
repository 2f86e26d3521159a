#version 450
layout(push_constant) uniform PC { ivec4 color; } pc;
layout(location = 0) out ivec4 o_color;
void main() { o_color = pc.color; }
