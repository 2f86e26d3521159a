#version 450
// Viewport arrays (render/viewports): the geometry shader's (r, g), the
// window depth (the viewport's depth range) and the ViewportIndex the
// fragment shader reads, times 16 / 255.
layout(location = 0) flat in vec4 g_color;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = vec4(g_color.xy, gl_FragCoord.z, float(gl_ViewportIndex * 16) / 255.0);
}
