#version 450
// Atomics contended by every invocation of every workgroup, on storage and
// shared memory; a ticket counter hands out slots (each exactly once).
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer C { uint c[8]; int smin; int smax; uint cas; };
layout(std430, set = 0, binding = 1) buffer S { uint slot[]; };
shared uint local_count;
uint hash(uint x)
{
   x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
   return x;
}
void main()
{
   uint g = gl_GlobalInvocationID.x;
   if (gl_LocalInvocationID.x == 0)
      local_count = 0;
   barrier();
   atomicAdd(local_count, 1u);
   atomicAdd(c[0], 1u);
   atomicAdd(c[1], g);
   atomicMax(c[2], hash(g));
   atomicMin(c[3], hash(g));
   atomicXor(c[4], hash(g));
   atomicOr(c[5], 1u << (g % 32u));
   atomicAnd(c[6], ~(1u << (g % 29u)));
   atomicMin(smin, int(hash(g)));
   atomicMax(smax, int(hash(g)));
   uint ticket = atomicAdd(c[7], 1u);
   slot[ticket] = g + 1u;
   if (g % 4u == 0u) {
      // A lock-free increment by compare-and-swap.
      uint old = cas, seen;
      do {
         seen = old;
         old = atomicCompSwap(cas, seen, seen + 3u);
      } while (old != seen);
   }
   barrier();
   if (gl_LocalInvocationID.x == 0)
      atomicAdd(c[0], local_count << 16);
}
