#version 450
// Heavy integer work per invocation, for optimized code taking over from
// baseline code in the middle of one dispatch: each invocation chains a
// 32-bit hash rounds[i] times (rounds differ between neighbours, so vector
// code's loop diverges), then mixes in its right neighbour's chain through
// shared memory after a barrier (so the codes' shared memory and barrier
// state are used too). SEED enters the result and makes every
// specialization a new pipeline to the caches. Exact integer arithmetic:
// baseline and optimized code must agree bit for bit.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SEED = 0u;
layout(std430, set = 0, binding = 0) readonly buffer R { uint rounds[]; };
layout(std430, set = 0, binding = 1) writeonly buffer O { uint o[]; };
shared uint chain[64];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint i = gl_GlobalInvocationID.x;
   uint x = i ^ SEED;
   uint n = rounds[i];
   for (uint r = 0u; r < n; r++) {
      x ^= x >> 16;
      x *= 0x7feb352du;
      x ^= x >> 15;
      x *= 0x846ca68bu;
      x ^= x >> 16;
      x += r;
   }
   chain[l] = x;
   barrier();
   o[i] = x ^ (chain[(l + 1u) % 64u] * 0x9e3779b9u);
}
