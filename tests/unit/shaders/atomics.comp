#version 450
// Atomics on a storage buffer: a counter handing out unique slots, and
// min / max / and / or / xor / exchange / compare-exchange accumulators.
layout(local_size_x = 48) in;
layout(std430, binding = 0) buffer C {
   uint counter;
   int smin;
   int smax;
   uint umin;
   uint umax;
   uint andv;
   uint orv;
   uint xorv;
   uint exch;
   uint cas_wins;
   uint cas_target;
} c;
layout(std430, binding = 1) writeonly buffer S { uint slot[]; };
layout(std430, binding = 2) writeonly buffer R { uint ret[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   if ((i % 5u) == 4u)
      return;   // these lanes take no part
   uint my = atomicAdd(c.counter, 1u);
   slot[my] = i;
   int v = int(i * 2654435761u) >> 8;
   atomicMin(c.smin, v);
   atomicMax(c.smax, v);
   atomicMin(c.umin, uint(v));
   atomicMax(c.umax, uint(v));
   atomicAnd(c.andv, ~(1u << (i & 31u)));
   atomicOr(c.orv, 1u << (i % 29u));
   atomicXor(c.xorv, i * 7u);
   ret[i] = atomicExchange(c.exch, i);
   if (atomicCompSwap(c.cas_target, 0xffffffffu, i) == 0xffffffffu)
      atomicAdd(c.cas_wins, 1u);
}
