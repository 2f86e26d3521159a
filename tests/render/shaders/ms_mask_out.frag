#version 450
// Writes only samples 1 and 2 (SampleMask output).
layout(push_constant) uniform PC { layout(offset = 48) vec4 color; } pc;
layout(location = 0) out vec4 o;
void main() { gl_SampleMask[0] = 0x6; o = pc.color; }
