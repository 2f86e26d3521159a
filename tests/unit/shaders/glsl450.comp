#version 450
// The rest of GLSL.std.450: trigonometry, hyperbolics, angle conversion,
// geometry (reflect, refract, faceforward), packing and unpacking.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer I { float a[]; };
layout(std430, binding = 1) writeonly buffer O { float o[]; };
layout(std430, binding = 2) writeonly buffer P { uint p[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   float x = a[i];                       // in (-0.9, 0.9)
   uint k = i * 24u;
   o[k + 0] = round(x * 10.0);
   o[k + 1] = tan(x);
   o[k + 2] = asin(x);
   o[k + 3] = acos(x);
   o[k + 4] = atan(x * 3.0);
   o[k + 5] = atan(x, 0.5 - x);
   o[k + 6] = sinh(x);
   o[k + 7] = cosh(x);
   o[k + 8] = tanh(x * 2.0);
   o[k + 9] = asinh(x * 5.0);
   o[k + 10] = acosh(2.0 + x);
   o[k + 11] = atanh(x);
   o[k + 12] = degrees(x);
   o[k + 13] = radians(x * 100.0);
   vec3 n = normalize(vec3(0.3, 1.0, x));
   vec3 d = normalize(vec3(1.0, -1.0, 0.25));
   vec3 r = reflect(d, n);
   vec3 t = refract(d, n, 0.66);
   vec3 f = faceforward(n, d, vec3(x, 1.0, 0.0));
   o[k + 14] = r.x; o[k + 15] = r.y; o[k + 16] = r.z;
   o[k + 17] = t.x; o[k + 18] = t.y; o[k + 19] = t.z;
   o[k + 20] = f.x + f.y * 10.0;
   vec2 uh = unpackHalf2x16(0x3c00u | (i << 16));
   o[k + 21] = uh.x + uh.y;
   vec4 u4 = unpackUnorm4x8(i * 0x01020304u);
   vec4 s4 = unpackSnorm4x8(i * 0x10203040u);
   o[k + 22] = u4.x + u4.y * 10.0 + u4.z * 100.0 + u4.w * 1000.0;
   o[k + 23] = s4.x + s4.y * 10.0 + s4.z * 100.0 + s4.w * 1000.0;
   vec4 c = vec4(x, -x, x * 0.5 + 0.5, 1.5);
   p[i * 4u + 0u] = packUnorm4x8(c);
   p[i * 4u + 1u] = packSnorm4x8(c);
   p[i * 4u + 2u] = packUnorm2x16(c.zw) ^ packSnorm2x16(c.xy);
   vec2 u2 = unpackUnorm2x16(i * 0x12345u);
   vec2 s2 = unpackSnorm2x16(i * 0x87654321u);
   p[i * 4u + 3u] = uint(u2.x * 1000.0) + uint(abs(s2.y) * 1000.0) * 10000u;
}
