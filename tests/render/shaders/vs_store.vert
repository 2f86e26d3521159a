#version 450
// The full-screen triangle of fullscreen.vert, with storage writes and
// atomics from the vertex shader.
layout(push_constant) uniform PC { layout(offset = 16) float z; } pc;
layout(set = 0, binding = 0) buffer B { uint frags; uint verts; uint vtx[4]; uint px[256]; } b;
void main()
{
   atomicAdd(b.verts, 1u);
   b.vtx[gl_VertexIndex] = uint(gl_VertexIndex) * 7u + 1u;
   vec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);
   gl_Position = vec4(p, pc.z, 1.0);
}
