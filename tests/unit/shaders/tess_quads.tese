#version 450
// Execution modes (unit/tess_stages): quads, equal spacing, ccw, points.
layout(quads, equal_spacing, ccw, point_mode) in;
void main()
{
   gl_Position = vec4(gl_TessCoord, 1.0);
}
