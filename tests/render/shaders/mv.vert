#version 450
#extension GL_EXT_multiview : require
// Multiview: an 8x8 pixel square of a 16x16 target per view and instance:
// x from ViewIndex % 8, y from the instance's parity; the view and instance
// index go to the fragment shader.
layout(location = 0) flat out uvec4 v_out;
void main()
{
   uint i = uint(gl_VertexIndex);
   vec2 c = vec2((i == 1u || i == 3u || i == 4u) ? 1.0 : 0.0,
                 (i == 2u || i == 4u || i == 5u) ? 1.0 : 0.0);
   uint view = gl_ViewIndex;
   uint inst = uint(gl_InstanceIndex);
   vec2 p = vec2(float(view % 8u), float((inst & 1u) * 8u)) + c * 8.0;
   gl_Position = vec4(p / 8.0 - 1.0, 0.0, 1.0);
   v_out = uvec4(view, inst & 255u, (inst >> 20) & 255u, 0u);
}
