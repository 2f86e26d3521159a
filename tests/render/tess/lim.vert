#version 450
// Tessellation limits: 12 vec4 per vertex (48 components, and the
// position) for the control shader, each component a distinct integer.
layout(location = 0) in vec4 pos;
layout(location = 0) out vec4 v_d[12];
void main()
{
   gl_Position = pos;
   for (int k = 0; k < 12; k++)
      v_d[k] = vec4(gl_VertexIndex * 64 + k * 4) + vec4(0, 1, 2, 3);
}
