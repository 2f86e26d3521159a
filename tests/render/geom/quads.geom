#version 450
// Amplification and strip cuts: each input point becomes two quads (strips
// of four, cut by EndPrimitive): a square of half-size pos.z (NDC) at the
// point in its colour, and one shifted by (pos.w, 0) in the colour's BGR.
layout(points) in;
layout(triangle_strip, max_vertices = 8) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void quad(vec2 c, float h, vec4 col)
{
   gl_Position = vec4(c + vec2(-h, -h), 0.0, 1.0); g_color = col; EmitVertex();
   gl_Position = vec4(c + vec2(h, -h), 0.0, 1.0); g_color = col; EmitVertex();
   gl_Position = vec4(c + vec2(-h, h), 0.0, 1.0); g_color = col; EmitVertex();
   gl_Position = vec4(c + vec2(h, h), 0.0, 1.0); g_color = col; EmitVertex();
   EndPrimitive();
}
void main()
{
   vec4 p = gl_in[0].gl_Position;
   quad(p.xy, p.z, v_color[0]);
   quad(p.xy + vec2(p.w, 0.0), p.z, vec4(v_color[0].bgr, 1.0));
}
