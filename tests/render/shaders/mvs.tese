#version 450
#extension GL_EXT_multiview : require
// Multiview (render/multiview): the quad moved ViewIndex pixels right;
// (control shader's code, this stage's ViewIndex + 20, 0, vertex shader's).
layout(quads, equal_spacing, ccw) in;
layout(location = 0) flat in uvec4 c[];
layout(location = 1) patch in uint p_view;
layout(location = 0) flat out uvec4 c_out;
void main()
{
   vec4 a = mix(gl_in[0].gl_Position, gl_in[1].gl_Position, gl_TessCoord.x);
   vec4 b = mix(gl_in[3].gl_Position, gl_in[2].gl_Position, gl_TessCoord.x);
   gl_Position = mix(a, b, gl_TessCoord.y) + vec4(float(gl_ViewIndex) / 8.0, 0.0, 0.0, 0.0);
   c_out = uvec4(p_view, gl_ViewIndex + 20u, 0u, c[0].w);
}
