#version 450
// A tessellation evaluation shader at the highest Locations the reported
// limits allow (unit/tess_stages): per-vertex input and output Location 15,
// patch input Location 29.
layout(quads, equal_spacing, ccw) in;
layout(location = 15) in vec4 v_hi[];
layout(location = 29) patch in vec4 p_hi;
layout(location = 15) out vec4 o_hi;
void main()
{
   vec2 c = gl_TessCoord.xy;
   gl_Position = vec4(c, 0.0, 1.0);
   o_hi = v_hi[1] * c.x + v_hi[3] * c.y + p_hi;
}
