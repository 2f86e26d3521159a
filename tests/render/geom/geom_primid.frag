#version 450
// Geometry tests: PrimitiveId as the geometry shader wrote it, in red and
// green; blue from the emitted colour.
layout(location = 0) flat in vec4 g_color;
layout(location = 0) out vec4 o_color;
void main()
{
   o_color = vec4(float(gl_PrimitiveID & 255) / 255.0, float((gl_PrimitiveID >> 8) & 255) / 255.0,
                  g_color.b, 1.0);
}
