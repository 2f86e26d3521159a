#version 450
// unit/tess_stages' draw: transform feedback of the evaluation shader's
// outputs (the last vertex stage without a geometry shader).
layout(quads, fractional_odd_spacing, ccw) in;
layout(location = 0) in vec4 c_color[];
layout(location = 0, xfb_buffer = 0, xfb_offset = 0, xfb_stride = 16) out vec4 color;
void main()
{
   vec2 uv = gl_TessCoord.xy;
   gl_Position = vec4(uv, 0.5, 1.0);
   color = vec4(uv, c_color[2].z, float(gl_PrimitiveID + 1));
}
