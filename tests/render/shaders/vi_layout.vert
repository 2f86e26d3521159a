#version 450
// 16 float attributes (maxVertexInputAttributes); push constant k picks the one
// passed on. Point (vertex - firstVertex) + verts * (instance - firstInstance)
// goes to column of that number, row k, of a 16x16 target.
layout(location = 0) in vec4 a0;
layout(location = 1) in vec4 a1;
layout(location = 2) in vec4 a2;
layout(location = 3) in vec4 a3;
layout(location = 4) in vec4 a4;
layout(location = 5) in vec4 a5;
layout(location = 6) in vec4 a6;
layout(location = 7) in vec4 a7;
layout(location = 8) in vec4 a8;
layout(location = 9) in vec4 a9;
layout(location = 10) in vec4 a10;
layout(location = 11) in vec4 a11;
layout(location = 12) in vec4 a12;
layout(location = 13) in vec4 a13;
layout(location = 14) in vec4 a14;
layout(location = 15) in vec4 a15;
layout(location = 0) flat out vec4 v;
layout(push_constant) uniform P { int k; int first_vertex; int first_instance; int verts; } p;
void main()
{
   int col = (gl_VertexIndex - p.first_vertex) + p.verts * (gl_InstanceIndex - p.first_instance);
   gl_Position = vec4((float(col) + 0.5) / 8.0 - 1.0, (float(p.k) + 0.5) / 8.0 - 1.0, 0.0, 1.0);
   gl_PointSize = 1.0;
   vec4 r = a0;
   if (p.k == 1) r = a1;
   if (p.k == 2) r = a2;
   if (p.k == 3) r = a3;
   if (p.k == 4) r = a4;
   if (p.k == 5) r = a5;
   if (p.k == 6) r = a6;
   if (p.k == 7) r = a7;
   if (p.k == 8) r = a8;
   if (p.k == 9) r = a9;
   if (p.k == 10) r = a10;
   if (p.k == 11) r = a11;
   if (p.k == 12) r = a12;
   if (p.k == 13) r = a13;
   if (p.k == 14) r = a14;
   if (p.k == 15) r = a15;
   v = r;
}
