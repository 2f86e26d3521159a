#version 450
#extension GL_EXT_multiview : require
// Multiview (render/multiview): levels 1, the vertices passed on, the
// control shader's ViewIndex + 10 as a patch output.
layout(vertices = 4) out;
layout(location = 0) flat in uvec4 c[];
layout(location = 0) flat out uvec4 c_out[];
layout(location = 1) patch out uint p_view;
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   c_out[gl_InvocationID] = c[gl_InvocationID];
   if (gl_InvocationID == 0) {
      gl_TessLevelOuter[0] = 1.0;
      gl_TessLevelOuter[1] = 1.0;
      gl_TessLevelOuter[2] = 1.0;
      gl_TessLevelOuter[3] = 1.0;
      gl_TessLevelInner[0] = 1.0;
      gl_TessLevelInner[1] = 1.0;
      p_view = gl_ViewIndex + 10u;
   }
}
