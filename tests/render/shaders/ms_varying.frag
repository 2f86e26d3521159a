#version 450
// A non-linear function of a smooth input: its average over a pixel's
// samples tells where the input was interpolated.
layout(location = 0) in float v_u;
layout(location = 0) out vec4 o;
void main() { o = vec4(v_u * v_u, v_u, 0.0, 1.0); }
