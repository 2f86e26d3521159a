#version 450
// Barriers across several subgroups: shared memory exchange, a tree
// reduction with a barrier inside a loop, values and a private array that
// live across barriers, divergent work between barriers.
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer I { uint v[]; };
layout(std430, binding = 1) writeonly buffer R { uint rev[]; };
layout(std430, binding = 2) writeonly buffer S { uint sums[]; };
shared uint s[64];
shared uint t[64];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint g = gl_GlobalInvocationID.x;
   uint mine = v[g];
   uint keep = mine * 3u + l;
   uint priv[4];
   for (uint k = 0u; k < 4u; k++)
      priv[k] = mine + k * 1000u;
   s[l] = mine;
   barrier();
   t[l] = s[63u - l];
   if ((mine & 1u) != 0u)
      keep += 7u;            // divergent, then reconverged before the next barrier
   for (uint stride = 32u; stride > 0u; stride >>= 1) {
      barrier();
      if (l < stride)
         s[l] += s[l + stride];
   }
   barrier();
   rev[g] = t[l] + keep + priv[l & 3u];
   if (l == 0u)
      sums[gl_WorkGroupID.x] = s[0];
}
