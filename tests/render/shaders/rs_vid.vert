#version 450
// Positions chosen by VertexIndex - base (wrapping 32-bit arithmetic), for
// index values near 2^32 (fullDrawIndexUint32).
layout(location = 0) out vec4 v_smooth;
layout(location = 1) flat out vec4 v_flat;
layout(push_constant) uniform P { uint base; } p;
const vec2 corners[4] = vec2[](vec2(-0.8, -0.7), vec2(0.9, -0.6), vec2(-0.5, 0.85), vec2(0.7, 0.75));
void main()
{
   uint i = uint(gl_VertexIndex) - p.base;
   gl_Position = vec4(corners[i & 3u], 0.5, 1.0);
   gl_PointSize = 1.0;
   vec4 c = vec4(float(i & 3u) / 3.0, float(i >> 2u & 3u) / 3.0, i < 16u ? 1.0 : 0.0, 1.0);
   v_smooth = c;
   v_flat = c;
}
