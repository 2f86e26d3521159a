#version 450
// Geometry shader clip and cull distances (render/geometry_clip): each
// triangle passed on with the distances read from gl_in[] (the cull
// distance sits after the vertex shader's two clip distances).
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
} gl_in[];
out gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
};
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position;
      gl_ClipDistance[0] = gl_in[i].gl_ClipDistance[0];
      gl_ClipDistance[1] = gl_in[i].gl_ClipDistance[1];
      gl_CullDistance[0] = gl_in[i].gl_CullDistance[0];
      EmitVertex();
   }
   EndPrimitive();
}
