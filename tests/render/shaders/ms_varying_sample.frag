#version 450
// A Sample-decorated smooth input: interpolated at each sample.
layout(location = 0) sample in float v_u;
layout(location = 0) out vec4 o;
void main() { o = vec4(v_u * v_u, v_u, 0.0, 1.0); }
