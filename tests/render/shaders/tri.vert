#version 450
// One triangle covering the whole target at depth 0.5, no inputs.
void main()
{
   vec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);
   gl_Position = vec4(p, 0.5, 1.0);
}
