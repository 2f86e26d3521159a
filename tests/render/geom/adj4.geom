#version 450
// Input vertex order: primitive p (PrimitiveIdIn) draws one small quad per
// input vertex i in row p, column i, in that vertex's colour; the image
// says which vertex the assembly put at which place (lines_adjacency).
layout(lines_adjacency) in;
layout(triangle_strip, max_vertices = 24) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   for (int i = 0; i < 4; i++) {
      vec2 o = vec2(-1.0 + 0.25 * float(i), -1.0 + 0.125 * float(gl_PrimitiveIDIn));
      for (int k = 0; k < 4; k++) {
         gl_Position = vec4(o + vec2((k & 1) != 0 ? 0.25 : 0.0, (k & 2) != 0 ? 0.125 : 0.0), 0.0, 1.0);
         g_color = v_color[i];
         EmitVertex();
      }
      EndPrimitive();
   }
}
