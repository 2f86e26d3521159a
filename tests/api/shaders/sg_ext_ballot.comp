#version 450
#extension GL_ARB_shader_ballot : require
#extension GL_ARB_gpu_shader_int64 : require
// VK_EXT_shader_subgroup_ballot: ballots, lane masks, reads of other
// invocations, with every invocation active and inside a divergent branch
// (o[g * 12 + 6 .. 8]); the test groups invocations by readInvocation(li, 0).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint p[]; };
layout(std430, binding = 1) writeonly buffer Out { uint o[]; };

void main()
{
   uint li = gl_LocalInvocationIndex;
   uint g = gl_GlobalInvocationID.x;
   uint v = p[g];
   uint b = g * 12u;
   uint64_t all = ballotARB(true);
   o[b + 0u] = uint(all);
   o[b + 1u] = uint(all >> 32);
   o[b + 2u] = gl_SubGroupInvocationARB;
   o[b + 3u] = gl_SubGroupSizeARB;
   o[b + 4u] = readInvocationARB(li, 0u);
   o[b + 5u] = uint(gl_SubGroupEqMaskARB) ^ uint(gl_SubGroupLtMaskARB << 8) ^
               uint(gl_SubGroupGeMaskARB >> 32) ^ uint(gl_SubGroupLeMaskARB >> 32) ^
               uint(gl_SubGroupGtMaskARB >> 32);
   if (li % 3u != 0u) {
      uint64_t some = ballotARB((v & 1u) != 0u);
      o[b + 6u] = uint(some);
      o[b + 7u] = uint(some >> 32);
      o[b + 8u] = readFirstInvocationARB(li);
   }
   o[b + 9u] = uint(gl_SubGroupGeMaskARB);
   o[b + 10u] = uint(gl_SubGroupGtMaskARB);
   o[b + 11u] = uint(gl_SubGroupLeMaskARB);
}
