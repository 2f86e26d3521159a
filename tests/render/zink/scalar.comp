#version 450
#extension GL_EXT_scalar_block_layout : require
// test_zink_scalar.c: scalar block layout (VK_EXT_scalar_block_layout) in
// storage buffers (a runtime array of structs with a 120-byte stride, vec3s
// across 16-byte boundaries, packed mat3 columns), a uniform buffer (with a
// row-major mat3) and push constants. Invocation i transforms element i of
// `src` into element i of `dst`; invocation 0 also copies the uniform and
// push-constant blocks into `misc`.
layout(local_size_x = 8) in;
struct S {
   float a;
   vec3 b;
   vec2 c;
   float d;
   mat3 m;
   vec3 arr[3];
   double e;
   uint f;
};
layout(scalar, set = 0, binding = 0) readonly buffer Src { S src[]; };
layout(scalar, set = 0, binding = 1) writeonly buffer Dst { S dst[]; };
layout(scalar, set = 0, binding = 2) uniform U {
   vec3 u0; float u1; vec3 u2; vec2 u3; layout(row_major) mat3 ur;
};
layout(scalar, set = 0, binding = 3) writeonly buffer Misc {
   vec3 m0; float m1; vec3 m2; vec2 m3; float mp; vec3 mq; layout(row_major) mat3 mr;
};
layout(scalar, push_constant) uniform P { float p; vec3 q; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   S s = src[i];
   dst[i].a = s.a * 2.0;
   dst[i].b = s.b + vec3(1.0, 2.0, 3.0);
   dst[i].c = s.c.yx;
   dst[i].d = s.d + s.b.z;
   dst[i].m = transpose(s.m);
   for (int k = 0; k < 3; k++)
      dst[i].arr[k] = s.arr[2 - k] * 2.0;
   dst[i].e = s.e * 3.0;
   dst[i].f = s.f ^ 0xffu;
   if (i == 0u) {
      m0 = u0;
      m1 = u1;
      m2 = u2;
      m3 = u3;
      mp = p;
      mq = q;
      mr = ur * 2.0;
      mr[1][2] = ur[2][1];
   }
}
