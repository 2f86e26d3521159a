#version 450
// Scene (b): a full-screen quad from gl_VertexIndex (a 4-vertex strip),
// texture coordinates scaled and offset per quad.
layout(push_constant) uniform Push {
   vec4 tint;
   vec4 uv_transform;   // uv = [0,1]^2 * xy + zw
} pc;
layout(location = 0) out vec2 out_uv;

void main()
{
   vec2 p = vec2((gl_VertexIndex & 1) != 0 ? 1.0 : -1.0, (gl_VertexIndex & 2) != 0 ? 1.0 : -1.0);
   gl_Position = vec4(p, 0.0, 1.0);
   out_uv = (p * 0.5 + 0.5) * pc.uv_transform.xy + pc.uv_transform.zw;
}
