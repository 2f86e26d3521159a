#version 450
// One channel per sample: SampleId (runs the shader per sample).
layout(location = 0) out vec4 o;
void main() { o = vec4(equal(ivec4(gl_SampleID), ivec4(0, 1, 2, 3))); }
