#version 450
layout(push_constant) uniform PC { uvec4 color; } pc;
layout(location = 0) out uvec4 o_color;
void main() { o_color = pc.color; }
