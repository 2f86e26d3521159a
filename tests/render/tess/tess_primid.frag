#version 450
// Tessellation tests: PrimitiveId without a geometry shader, in red and
// green; blue from the colour.
layout(location = 0) in vec4 t_color;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = vec4(float(gl_PrimitiveID & 255) / 255.0, float((gl_PrimitiveID >> 8) & 255) / 255.0,
                  t_color.b, 1.0);
}
