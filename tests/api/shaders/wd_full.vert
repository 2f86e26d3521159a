#version 450
// api/watchdog: one triangle covering the whole target.
void main()
{
   vec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);
   gl_Position = vec4(p, 0.0, 1.0);
}
