#version 450
// Tessellation tests: four control points' positions passed on; the levels come from
// the patch's vertex data (vertex 0: the outer levels, vertex 1: the inner
// ones), a per-patch colour from vertex 2's, written by invocation 0 only.
layout(vertices = 4) out;
layout(location = 0) in vec4 v_data[];
layout(location = 1) patch out vec4 p_color;
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   if (gl_InvocationID == 0) {
      gl_TessLevelOuter[0] = v_data[0].x;
      gl_TessLevelOuter[1] = v_data[0].y;
      gl_TessLevelOuter[2] = v_data[0].z;
      gl_TessLevelOuter[3] = v_data[0].w;
      gl_TessLevelInner[0] = v_data[1].x;
      gl_TessLevelInner[1] = v_data[1].y;
      p_color = v_data[2];
   }
}
