#version 450
// The coverage the shader sees (SampleMask input).
layout(location = 0) out vec4 o;
void main() { o = vec4(float(gl_SampleMaskIn[0]), 0.0, 0.0, 1.0); }
