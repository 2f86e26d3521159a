#version 450
// unit/tess_stages' draw: passes the patch on; the levels come from the
// colours of vertices 0 (outer) and 1 (inner).
layout(vertices = 4) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 c_color[];
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   c_color[gl_InvocationID] = v_color[gl_InvocationID];
   if (gl_InvocationID == 0) {
      gl_TessLevelOuter[0] = v_color[0].x;
      gl_TessLevelOuter[1] = v_color[0].y;
      gl_TessLevelOuter[2] = v_color[0].z;
      gl_TessLevelOuter[3] = v_color[0].w;
      gl_TessLevelInner[0] = v_color[1].x;
      gl_TessLevelInner[1] = v_color[1].y;
   }
}
