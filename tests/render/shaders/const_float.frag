#version 450
layout(push_constant) uniform PC { vec4 color; } pc;
layout(location = 0) out vec4 o_color;
void main() { o_color = pc.color; }
