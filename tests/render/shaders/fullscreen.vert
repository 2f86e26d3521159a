#version 450
// One triangle covering the whole target, at depth pc.z.
layout(push_constant) uniform PC { layout(offset = 16) float z; } pc;
void main()
{
   vec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);
   gl_Position = vec4(p, pc.z, 1.0);
}
