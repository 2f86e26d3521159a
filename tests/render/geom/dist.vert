#version 450
// Geometry shader clip and cull distances (render/geometry_clip): the
// position, and distances the geometry shader reads back through
// gl_in[]: ClipDistance[0] = x - 10.25 and [1] = 24.25 - y in pixels of a
// 32x32 target, CullDistance[0] the attribute's cull value (the same on a
// rectangle's vertices: -1 culls it).
layout(location = 0) in vec4 pos;   // pixels x, y; cull value in z
out gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
};
void main()
{
   gl_Position = vec4(pos.xy / 16.0 - 1.0, 0.0, 1.0);
   gl_ClipDistance[0] = pos.x - 10.25;
   gl_ClipDistance[1] = 24.25 - pos.y;
   gl_CullDistance[0] = pos.z;
}
