#version 450
#extension GL_ARB_shader_group_vote : require
// VK_EXT_shader_subgroup_vote: each invocation finds the members of its
// subgroup from the votes themselves (anyInvocation(index == k) for every k
// of the workgroup), then votes on its predicate bits p[g], with every
// invocation active (o[2..4]) and inside a divergent branch (o[5..7]).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint p[]; };
layout(std430, binding = 1) writeonly buffer Out { uint o[]; };

uint u(bool b) { return b ? 1u : 0u; }

void main()
{
   uint li = gl_LocalInvocationIndex;
   uint g = gl_GlobalInvocationID.x;
   uvec2 members = uvec2(0u);
   for (uint k = 0u; k < 64u; k++) {
      if (anyInvocationARB(li == k)) {
         if (k < 32u)
            members.x |= 1u << k;
         else
            members.y |= 1u << (k - 32u);
      }
   }
   uint v = p[g];
   o[g * 8u + 0u] = members.x;
   o[g * 8u + 1u] = members.y;
   o[g * 8u + 2u] = u(allInvocationsARB((v & 1u) != 0u));
   o[g * 8u + 3u] = u(anyInvocationARB((v & 2u) != 0u));
   o[g * 8u + 4u] = u(allInvocationsEqualARB((v & 4u) != 0u));
   if (li % 3u != 0u) {
      o[g * 8u + 5u] = u(allInvocationsARB((v & 8u) != 0u));
      o[g * 8u + 6u] = u(anyInvocationARB((v & 16u) != 0u));
      o[g * 8u + 7u] = u(allInvocationsEqualARB((v & 32u) != 0u));
   }
}
