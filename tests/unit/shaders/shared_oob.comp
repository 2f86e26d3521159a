#version 450
// Out-of-range indices into workgroup memory: undefined values, but every
// access must stay inside the workgroup's memory (sc_address clamps).
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint off; } pc;
layout(std430, binding = 0) buffer O { uint o[]; };
shared uint s[64];
void main()
{
   uint l = gl_LocalInvocationIndex;
   uint base = gl_WorkGroupID.x * 192u;
   s[l] = l * 3u;
   barrier();
   s[l + pc.off] = 1000u + l;                 // contiguous lanes, maybe past the end
   barrier();
   s[pc.off] = 2000u;                         // one address for every lane
   barrier();
   s[(l * 37u + pc.off) % 200u] = 5000u + l;  // an address per lane (a scatter)
   barrier();
   o[base + l] = s[l];
   o[base + 64u + l] = s[l + pc.off];
   o[base + 128u + l] = s[(l * 37u + pc.off) % 200u];
}
