#version 450
// A triangle from push constants (clip coordinates, w = 1); v_u is the
// window x / width (linear across the triangle).
layout(push_constant) uniform PC { vec4 v[3]; } pc;
layout(location = 0) out float v_u;
void main()
{
   gl_Position = pc.v[gl_VertexIndex];
   v_u = gl_Position.x * 0.5 + 0.5;
}
