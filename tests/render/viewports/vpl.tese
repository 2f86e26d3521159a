#version 450
#extension GL_ARB_shader_viewport_layer_array : require
// render/viewport_layer: the evaluation shader picks each primitive's layer
// and viewport: the patch's rectangle (x0, y0, x1, y1) at the quad domain's
// corners, color = (r, g, layer, viewport index).
layout(quads, equal_spacing, ccw) in;
layout(location = 0) in vec4 t_color[];
layout(location = 0) flat out vec4 g_color;
void main()
{
   vec4 p = gl_in[0].gl_Position;
   vec4 c = t_color[0];
   gl_Position = vec4(mix(p.x, p.z, gl_TessCoord.x), mix(p.y, p.w, gl_TessCoord.y), 0.0, 1.0);
   gl_Layer = int(c.z);
   gl_ViewportIndex = int(c.w);
   g_color = vec4(c.xy, 0.0, 1.0);
}
