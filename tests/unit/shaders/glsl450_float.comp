#version 450
// GLSL.std.450 float decomposition and matrix functions: modf, frexp, ldexp,
// determinant, inverse, packDouble2x32 / unpackDouble2x32.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer I { float a[]; };   // 17 per invocation
layout(std430, binding = 1) readonly buffer E { int ei[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };  // 48 per invocation
layout(std430, binding = 3) writeonly buffer P { int p[]; };    // 8 per invocation

void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint b = i * 17u, k = i * 48u, q = i * 8u;
   float x = a[b];
   float w;
   o[k + 0] = modf(x, w);
   o[k + 1] = w;
   int e;
   o[k + 2] = frexp(x, e);
   p[q + 0] = e;
   o[k + 3] = ldexp(x, ei[i]);
   mat2 m2 = mat2(a[b + 1], a[b + 2], a[b + 3], a[b + 4]);
   mat3 m3 = mat3(a[b + 1], a[b + 2], a[b + 3], a[b + 4], a[b + 5], a[b + 6], a[b + 7],
                  a[b + 8], a[b + 9]);
   mat4 m4 = mat4(a[b + 1], a[b + 2], a[b + 3], a[b + 4], a[b + 5], a[b + 6], a[b + 7],
                  a[b + 8], a[b + 9], a[b + 10], a[b + 11], a[b + 12], a[b + 13], a[b + 14],
                  a[b + 15], a[b + 16]);
   o[k + 4] = determinant(m2);
   o[k + 5] = determinant(m3);
   o[k + 6] = determinant(m4);
   mat4 i4 = inverse(m4);
   mat3 i3 = inverse(m3);
   mat2 i2 = inverse(m2);
   for (int c = 0; c < 4; c++)
      for (int r = 0; r < 4; r++)
         o[k + 7u + uint(c * 4 + r)] = i4[c][r];
   for (int c = 0; c < 3; c++)
      for (int r = 0; r < 3; r++)
         o[k + 23u + uint(c * 3 + r)] = i3[c][r];
   for (int c = 0; c < 2; c++)
      for (int r = 0; r < 2; r++)
         o[k + 32u + uint(c * 2 + r)] = i2[c][r];
   // Vectors, and a uniform matrix (element 0's).
   vec3 v = vec3(x, x * 3.0, -x - 0.25);
   vec3 wv;
   vec3 fv = modf(v, wv);
   ivec3 ev;
   vec3 mv = frexp(v, ev);
   o[k + 36] = fv.y; o[k + 37] = wv.z; o[k + 38] = mv.z;
   p[q + 1] = ev.y;
   vec3 lv = ldexp(v, ivec3(ei[i], 2, -3));
   o[k + 39] = lv.z;
   mat3 u3 = mat3(a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]);
   o[k + 40] = determinant(u3);
   o[k + 41] = inverse(u3)[1][2];
   double d = packDouble2x32(uvec2(floatBitsToUint(x), i * 0x01010101u + 0x3ff00000u));
   uvec2 back = unpackDouble2x32(d * 2.0);
   p[q + 2] = int(back.x);
   p[q + 3] = int(back.y);
}
