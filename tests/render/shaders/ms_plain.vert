#version 450
// A triangle from push constants (clip coordinates, w = 1), no outputs.
layout(push_constant) uniform PC { vec4 v[3]; } pc;
void main() { gl_Position = pc.v[gl_VertexIndex]; }
