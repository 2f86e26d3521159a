#version 450
// One vertex attribute of a float format, passed flat to the fragment
// shader; each vertex is a point on its own pixel of a 16-wide target.
layout(location = 0) in vec4 a;
layout(location = 0) flat out vec4 v;
void main()
{
   int i = gl_VertexIndex;
   gl_Position = vec4((float(i % 16) + 0.5) / 8.0 - 1.0, (float(i / 16) + 0.5) / 2.0 - 1.0, 0.0, 1.0);
   gl_PointSize = 1.0;
   v = a;
}
