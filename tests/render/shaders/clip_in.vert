#version 450
// A triangle over the target with per-vertex w from pc.w; two clip and one
// cull distance (all positive), linear in NDC, and the same values as a
// smooth varying.
layout(push_constant) uniform PC { vec4 w; } pc;
layout(location = 0) out vec3 v;
out gl_PerVertex { vec4 gl_Position; float gl_ClipDistance[2]; float gl_CullDistance[1]; };
void main()
{
   vec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);
   float w = pc.w[gl_VertexIndex];
   gl_Position = vec4(p * w, 0.0, w);
   float c0 = 2.0 + p.x, c1 = 4.0 - p.y, u0 = 5.0 + 0.5 * p.x + 0.25 * p.y;
   gl_ClipDistance[0] = c0;
   gl_ClipDistance[1] = c1;
   gl_CullDistance[0] = u0;
   v = vec3(c0, c1, u0);
}
