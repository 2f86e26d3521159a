#version 450
// Cull distances from a geometry shader: each input triangle passed through
// with CullDistance[0] = 1 for primitives 0 and 1, -1 from 2 on (culled).
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
out gl_PerVertex {
   vec4 gl_Position;
   float gl_CullDistance[1];
};
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position;
      gl_CullDistance[0] = gl_PrimitiveIDIn < 2 ? 1.0 : -1.0;
      g_color = v_color[i];
      EmitVertex();
   }
}
