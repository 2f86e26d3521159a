#version 450
// Clip and cull distances through tessellation (render/geometry_clip):
// each control point's distances passed on through gl_in[] / gl_out[].
layout(vertices = 4) out;
in gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
} gl_in[gl_MaxPatchVertices];
out gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
} gl_out[];
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   gl_out[gl_InvocationID].gl_ClipDistance[0] = gl_in[gl_InvocationID].gl_ClipDistance[0];
   gl_out[gl_InvocationID].gl_ClipDistance[1] = gl_in[gl_InvocationID].gl_ClipDistance[1];
   gl_out[gl_InvocationID].gl_CullDistance[0] = gl_in[gl_InvocationID].gl_CullDistance[0];
   if (gl_InvocationID == 0) {
      gl_TessLevelOuter[0] = 1.0;
      gl_TessLevelOuter[1] = 1.0;
      gl_TessLevelOuter[2] = 1.0;
      gl_TessLevelOuter[3] = 1.0;
      gl_TessLevelInner[0] = 1.0;
      gl_TessLevelInner[1] = 1.0;
   }
}
