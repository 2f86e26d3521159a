#version 450
// Viewport arrays (render/viewports): each input point carries a window
// rectangle already in the normalized coordinates of its viewport
// (gl_Position = x0, y0, x1, y1) and v_color = (r, g, z, viewport index).
// TRI: the rectangle as a 4-vertex strip; LINE: the segment (x0, y0) -
// (x1, y1); POINT: a point at (x0, y0). Every vertex writes
// gl_ViewportIndex and the flat colour (r, g).
layout(points) in;
#if defined(TRI)
layout(triangle_strip, max_vertices = 4) out;
#elif defined(LINE)
layout(line_strip, max_vertices = 2) out;
#else
layout(points, max_vertices = 1) out;
#endif
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   vec4 p = gl_in[0].gl_Position;
   vec4 c = v_color[0];
#if defined(TRI)
   const int n = 4;
#elif defined(LINE)
   const int n = 2;
#else
   const int n = 1;
#endif
   for (int k = 0; k < n; k++) {
#if defined(TRI)
      vec2 xy = vec2((k & 1) != 0 ? p.z : p.x, (k & 2) != 0 ? p.w : p.y);
#else
      vec2 xy = k == 0 ? p.xy : p.zw;
#endif
      gl_Position = vec4(xy, c.z, 1.0);
      g_color = vec4(c.xy, 0.0, 1.0);
      gl_ViewportIndex = int(c.w);
      EmitVertex();
   }
}
