#version 450
// texture() with implicit LOD: uv = window position / 16 * scale.
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(push_constant) uniform PC { float scale; } pc;
layout(location = 0) out vec4 o;
void main() { o = texture(tex, gl_FragCoord.xy / 16.0 * pc.scale); }
