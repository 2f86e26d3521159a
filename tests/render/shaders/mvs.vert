#version 450
#extension GL_EXT_multiview : require
// Multiview with tessellation and geometry shaders (render/multiview): the
// corners of the rectangle `rect` (pixels of a 16x16 target) as a patch of
// 4 (tri == 0: in the order the quad domain takes them) or as two
// triangles (tri != 0, 6 vertices); this stage's ViewIndex in c.w.
layout(push_constant) uniform pc_block {
   vec4 rect;   // x0, y0, x1, y1
   uint tri;
} pc;
layout(location = 0) flat out uvec4 c;
void main()
{
   const uint quad[4] = uint[4](0u, 1u, 2u, 3u), tris[6] = uint[6](0u, 1u, 2u, 0u, 2u, 3u);
   uint k = pc.tri != 0u ? tris[gl_VertexIndex % 6] : quad[gl_VertexIndex % 4];
   vec2 u = vec2(k == 1u || k == 2u ? 1.0 : 0.0, k >= 2u ? 1.0 : 0.0);
   vec2 p = mix(pc.rect.xy, pc.rect.zw, u);
   gl_Position = vec4(p / 8.0 - 1.0, 0.0, 1.0);
   c = uvec4(0u, 0u, 0u, gl_ViewIndex);
}
