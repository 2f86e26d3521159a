#version 450
// Per-lane vectors in buffers whose lanes' elements follow each other
// (vec4 and vec3 at a 16-byte stride, ivec2 at 8): the compiler loads and
// stores whole blocks and shuffles. Divergent stores, stores of a uniform
// value, short ranges under robust buffer access (the test binds them), and
// the fourth word of a vec3 element that must never be written.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { float k; } pc;
layout(std430, binding = 0) readonly buffer In4 { vec4 a4[]; };
layout(std430, binding = 1) readonly buffer In3 { vec3 a3[]; };
layout(std430, binding = 2) buffer Out4 { vec4 o4[]; };
layout(std430, binding = 3) buffer Out3 { uvec3 o3[]; };
layout(std430, binding = 4) buffer Out2 { ivec2 o2[]; };
layout(std430, binding = 5) buffer OutU { vec4 ou[]; };

void main()
{
   uint i = gl_GlobalInvocationID.x;
   vec4 v = a4[i];
   vec3 w = a3[i];
   if (i % 3u != 1u)
      o4[i] = v * 2.0 + vec4(w, 1.0);
   o3[i] = uvec3(w * 4.0);
   o2[i] = ivec2(int(i), -int(i)) + ivec2(v.xy);
   ou[i] = vec4(pc.k, pc.k + 1.0, pc.k + 2.0, pc.k + 3.0);
}
