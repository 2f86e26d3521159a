#version 450
// SPV_KHR_shader_ballot and SPV_KHR_subgroup_vote (GL_ARB_shader_ballot,
// GL_ARB_shader_group_vote) in a SPIR-V 1.0 module; 16 results per
// invocation (o[g * 16 + k]).
#extension GL_ARB_shader_ballot : require
#extension GL_ARB_shader_group_vote : require
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x_id = 0) in;
// Lanes of subgroup s run when bit lane of lanes[s % 4] is set (subgroup s:
// local invocations s * size .. s * size + size - 1).
layout(push_constant) uniform P { uint lanes[4]; } pc;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
layout(std430, binding = 2) writeonly buffer I { uint ids[]; };

uint u(bool b) { return b ? 1u : 0u; }

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint lane = gl_SubGroupInvocationARB;
   uint sg = gl_LocalInvocationIndex / gl_SubGroupSizeARB;
   ids[g] = (sg << 16) | (lane << 8) | gl_SubGroupSizeARB;
   if (((pc.lanes[sg & 3u] >> lane) & 1u) == 0u)
      return;
   uint x = a[g];
   uint base = g * 16u;
   uint64_t bal = ballotARB((x % 3u) == 0u);
   o[base + 0u] = uint(bal);
   o[base + 1u] = uint(bal >> 32);
   o[base + 2u] = readInvocationARB(x, 1u);
   o[base + 3u] = readFirstInvocationARB(x);
   o[base + 4u] = u(anyInvocationARB((x % 16u) == 0u));
   o[base + 5u] = u(allInvocationsARB((x % 16u) != 0u));
   o[base + 6u] = u(allInvocationsEqualARB((x % 8u) != 0u));
   o[base + 7u] = uint(gl_SubGroupEqMaskARB);
   o[base + 8u] = uint(gl_SubGroupEqMaskARB >> 32);
   o[base + 9u] = uint(gl_SubGroupGeMaskARB);
   o[base + 10u] = uint(gl_SubGroupGtMaskARB);
   o[base + 11u] = uint(gl_SubGroupLeMaskARB);
   o[base + 12u] = uint(gl_SubGroupLtMaskARB);
   o[base + 13u] = uint((gl_SubGroupGeMaskARB | gl_SubGroupGtMaskARB | gl_SubGroupLeMaskARB |
                         gl_SubGroupLtMaskARB) >> 32);
   o[base + 14u] = gl_SubGroupSizeARB;
   o[base + 15u] = readInvocationARB(x ^ 5u, 0u);
}
