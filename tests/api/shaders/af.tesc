#version 450
// api/alloc_fail: triangle patches passed on, levels 3 and 2, a barrier.
layout(vertices = 3) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 c_color[];
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   c_color[gl_InvocationID] = v_color[gl_InvocationID];
   barrier();
   if (gl_InvocationID == 0) {
      gl_TessLevelOuter[0] = 3.0;
      gl_TessLevelOuter[1] = 3.0;
      gl_TessLevelOuter[2] = 3.0;
      gl_TessLevelInner[0] = 2.0;
   }
}
