#version 450
// api/alloc_fail: the triangle domain interpolated.
layout(triangles, fractional_odd_spacing, ccw) in;
layout(location = 0) in vec4 c_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   vec3 c = gl_TessCoord;
   gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position +
                 c.z * gl_in[2].gl_Position;
   g_color = c.x * c_color[0] + c.y * c_color[1] + c.z * c_color[2];
}
