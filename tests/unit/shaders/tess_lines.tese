#version 450
// Execution modes (unit/tess_stages): isolines, fractional even spacing.
layout(isolines, fractional_even_spacing) in;
void main()
{
   gl_Position = vec4(gl_TessCoord, 1.0);
}
