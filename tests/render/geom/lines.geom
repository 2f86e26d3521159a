#version 450
// Line and point outputs: each input point becomes a horizontal line strip
// of two segments (pos.z long each, NDC) in its colour; a point after an
// EndPrimitive ends nothing drawn (a strip of one vertex).
layout(points) in;
layout(line_strip, max_vertices = 4) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   vec4 p = gl_in[0].gl_Position;
   for (int k = 0; k < 3; k++) {
      gl_Position = vec4(p.x + float(k) * p.z, p.y, 0.0, 1.0);
      g_color = v_color[0];
      EmitVertex();
   }
   EndPrimitive();
   gl_Position = vec4(p.x, p.y + 0.5, 0.0, 1.0);
   EmitVertex();
}
