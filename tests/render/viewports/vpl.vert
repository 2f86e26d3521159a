#version 450
#extension GL_ARB_shader_viewport_layer_array : require
// render/viewport_layer: the vertex shader picks each primitive's layer and
// viewport (VK_EXT_shader_viewport_index_layer): pos.xy in the viewport's
// normalized coordinates, color = (r, g, layer, viewport index). Built
// three times: writing both, -DLAYER_ONLY (gl_Layer only: viewport 0) and
// -DVIEWPORT_ONLY (gl_ViewportIndex only: layer 0).
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 color;
layout(location = 0) flat out vec4 g_color;
void main()
{
   gl_Position = vec4(pos.xy, 0.0, 1.0);
#ifndef VIEWPORT_ONLY
   gl_Layer = int(color.z);
#endif
#ifndef LAYER_ONLY
   gl_ViewportIndex = int(color.w);
#endif
   g_color = vec4(color.xy, 0.0, 1.0);
}
