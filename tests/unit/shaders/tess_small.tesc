#version 450
// A tessellation control shader of 3 invocations, one subgroup, no barrier
// (unit/tess_stages): passes the patch through, levels from a push constant.
layout(vertices = 3) out;
layout(push_constant) uniform PC { float level; } pc;
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   gl_TessLevelOuter[gl_InvocationID] = pc.level + float(gl_InvocationID);
   if (gl_InvocationID == 0)
      gl_TessLevelInner[0] = pc.level;
}
