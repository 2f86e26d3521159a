#version 450
// FragCoord and FrontFacing.
layout(location = 0) out vec4 o;
void main() { o = vec4(gl_FragCoord.xy, gl_FragCoord.z, gl_FrontFacing ? 1.0 : 0.0); }
