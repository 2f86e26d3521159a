#version 450
// Sum reduction for the bandwidth benchmark: each workgroup sums a block of
// 256 * PER_INVOCATION uints (coalesced: consecutive invocations read
// consecutive words), reduces in shared memory with barriers and adds its
// sum to total atomically. Sums wrap mod 2^32, so the result is exact.
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint PER_INVOCATION = 64;
layout(std430, set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint total; };
shared uint s[256];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint base = gl_WorkGroupID.x * (256u * PER_INVOCATION) + l;
   uint sum = 0u;
   for (uint i = 0u; i < PER_INVOCATION; i++)
      sum += v[base + i * 256u];
   s[l] = sum;
   barrier();
   for (uint stride = 128u; stride > 0u; stride >>= 1) {
      if (l < stride)
         s[l] += s[l + stride];
      barrier();
   }
   if (l == 0u)
      atomicAdd(total, s[0]);
}
