#version 450
// A long first dispatch whose results are cheap to check, for the driver's
// policy of lending a dispatch worker to the optimizer: each invocation
// steps a 32-bit linear congruential generator rounds[i] times (a chain of
// dependent multiply-adds; the test gets the same value in O(log n) steps by
// composing the affine map), then mixes in its right neighbour's value
// through shared memory after a barrier. SEED enters the result and makes
// every specialization a new pipeline to the caches. Exact integer
// arithmetic: baseline and optimized code must agree bit for bit.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SEED = 0u;
layout(std430, set = 0, binding = 0) readonly buffer R { uint rounds[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { uint o[]; };
shared uint value[64];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint i = gl_GlobalInvocationID.x;
   uint x = i ^ SEED;
   uint n = rounds[i];
   for (uint r = 0u; r < n; r++)
      x = x * 1664525u + 1013904223u;
   value[l] = x;
   barrier();
   o[i] = x ^ (value[(l + 1u) % 64u] * 0x9e3779b9u);
}
