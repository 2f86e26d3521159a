#version 450
// Clip and cull distances through tessellation (render/geometry_clip):
// each control point's distances passed on through gl_in[] / gl_out[].
// extra[], a per-vertex user output written after gl_out[] (its variable
// after gl_out's), carries the position dist.tese draws with: describing it
// must leave the control shader's clip distance count (2) alone.
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
layout(location = 0) out vec4 extra[];
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   gl_out[gl_InvocationID].gl_ClipDistance[0] = gl_in[gl_InvocationID].gl_ClipDistance[0];
   gl_out[gl_InvocationID].gl_ClipDistance[1] = gl_in[gl_InvocationID].gl_ClipDistance[1];
   gl_out[gl_InvocationID].gl_CullDistance[0] = gl_in[gl_InvocationID].gl_CullDistance[0];
   extra[gl_InvocationID] = gl_in[gl_InvocationID].gl_Position;
   if (gl_InvocationID == 0) {
      gl_TessLevelOuter[0] = 1.0;
      gl_TessLevelOuter[1] = 1.0;
      gl_TessLevelOuter[2] = 1.0;
      gl_TessLevelOuter[3] = 1.0;
      gl_TessLevelInner[0] = 1.0;
      gl_TessLevelInner[1] = 1.0;
   }
}
