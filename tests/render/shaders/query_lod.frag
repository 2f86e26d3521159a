#version 450
// textureQueryLod at uv = window position / 16 * pc.scale (per axis).
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(push_constant) uniform PC { vec2 scale; } pc;
layout(location = 0) out vec4 o;
void main() { o = vec4(textureQueryLod(tex, gl_FragCoord.xy / 16.0 * pc.scale), 0.0, 1.0); }
