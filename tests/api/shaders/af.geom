#version 450
// api/alloc_fail: each triangle out twice (two invocations), as strips.
layout(triangles, invocations = 2) in;
layout(triangle_strip, max_vertices = 3) out;
layout(location = 0) in vec4 v_color[];
layout(location = 0) out vec4 g_color;
void main()
{
   for (int i = 0; i < 3; i++) {
      gl_Position = gl_in[i].gl_Position + vec4(0.1 * gl_InvocationID, 0.0, 0.0, 0.0);
      g_color = v_color[i];
      EmitVertex();
   }
   EndPrimitive();
}
