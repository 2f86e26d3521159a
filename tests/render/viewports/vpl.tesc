#version 450
// render/viewport_layer: one control point a patch (a rectangle and its
// colour), passed on; levels 1 (two triangles on the quad's corners).
layout(vertices = 1) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 t_color[];
void main()
{
   gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;
   t_color[gl_InvocationID] = v_color[gl_InvocationID];
   gl_TessLevelOuter[0] = 1.0;
   gl_TessLevelOuter[1] = 1.0;
   gl_TessLevelOuter[2] = 1.0;
   gl_TessLevelOuter[3] = 1.0;
   gl_TessLevelInner[0] = 1.0;
   gl_TessLevelInner[1] = 1.0;
}
