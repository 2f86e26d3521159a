#version 450
// Vectors, matrices, swizzles, structs, local arrays with dynamic indices,
// a uniform buffer (std140) and push constants.
layout(local_size_x = 4, local_size_y = 2) in;
struct Light { vec3 dir; float power; };
layout(std140, binding = 0) uniform U {
   mat4 m;
   Light lights[3];
   ivec4 sel;
} u;
layout(push_constant) uniform P { vec4 bias; int count; } pc;
layout(std430, binding = 1) readonly buffer In { vec4 v[]; } inp;
layout(std430, binding = 2) writeonly buffer Out { vec4 r[]; } outp;
void main()
{
   uint i = gl_LocalInvocationIndex + gl_WorkGroupID.x * 8u;
   vec4 p = inp.v[i];
   vec4 t = u.m * p + pc.bias;               // matrix * vector
   vec3 n = normalize(p.xyz + vec3(1.0, 2.0, 3.0));
   float lit = 0.0;
   for (int l = 0; l < 3; l++)
      lit += max(dot(n, u.lights[l].dir), 0.0) * u.lights[l].power;
   float arr[8];
   for (int k = 0; k < 8; k++)
      arr[k] = float(k * k) + p.x;
   int idx = int(i) % 8;                      // varying index into a local array
   vec3 c = cross(p.xyz, vec3(0.0, 0.0, 1.0));
   outp.r[i * 4u + 0u] = t;
   outp.r[i * 4u + 1u] = vec4(n, lit);
   outp.r[i * 4u + 2u] = vec4(arr[idx], arr[u.sel.x], length(p), distance(p.xy, p.zw));
   outp.r[i * 4u + 3u] = vec4(c.zyx, float(pc.count)) * p.wzyx;
}
