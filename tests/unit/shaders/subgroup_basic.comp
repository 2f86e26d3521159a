#version 450
// Subgroup basic, vote, ballot, shuffle, shuffle-relative and quad
// operations, the lane mask built-ins, a divergent loop and a nested
// divergent branch; 64 results per invocation (o[g * 64 + k]).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#extension GL_KHR_shader_subgroup_quad : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
layout(local_size_x_id = 0) in;
// Lanes of subgroup s run when bit lane of lanes[s % 4] is set; k: a
// run-time uniform lane distance.
layout(push_constant) uniform P { uint lanes[4]; uint k; } pc;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) readonly buffer E { uint e[]; };
layout(std430, binding = 2) writeonly buffer O { uint o[]; };
layout(std430, binding = 3) writeonly buffer I { uint ids[]; };

uint u(bool b) { return b ? 1u : 0u; }

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint wg = gl_WorkGroupID.x;
   uint lane = gl_SubgroupInvocationID;
   uint W = gl_SubgroupSize;
   ids[g] = (gl_SubgroupID << 16) | (lane << 8) | W;
   if (((pc.lanes[gl_SubgroupID & 3u] >> lane) & 1u) == 0u)
      return;
   uint x = a[g];
   float f = float(int(x % 2001u) - 1000) * 0.25;
   double d = double(x) * 1.5 + 0.5;
   int64_t q = (int64_t(x) << 24) - 7l;
   bool b = (x & 4u) != 0u;
   uint16_t h = uint16_t(x >> 7);
   uvec3 v3 = uvec3(x, x ^ 0x55u, ~x);
   uint c = e[g];
   uint base = g * 64u;

   o[base + 0u] = u(subgroupElect());
   o[base + 1u] = u(subgroupAll((x % 16u) != 0u));
   o[base + 2u] = u(subgroupAny((x % 16u) == 0u));
   o[base + 3u] = u(subgroupAllEqual(c));
   o[base + 4u] = u(subgroupAllEqual(c == 7u ? uintBitsToFloat(0x7fc00000u) : float(c)));
   o[base + 5u] = u(subgroupAllEqual(bvec2((c & 1u) != 0u, (c & 2u) != 0u)));
   o[base + 6u] = u(subgroupAllEqual(uvec3(c >> 2, 5u, c & 1u)));
   o[base + 7u] = u(subgroupAllEqual(a[wg]));
   o[base + 8u] = subgroupBroadcast(x, 0u);
   o[base + 9u] = subgroupBroadcast(x, 3u);
   o[base + 10u] = subgroupBroadcastFirst(x);
   o[base + 11u] = floatBitsToUint(subgroupBroadcastFirst(f));
   uvec4 bal = subgroupBallot((x % 3u) == 0u);
   o[base + 12u] = bal.x;
   o[base + 13u] = bal.y;
   o[base + 14u] = bal.z;
   o[base + 15u] = bal.w;
   uvec4 bv = uvec4(a[wg], a[wg + 1u], 0xffffffffu, 0x80000001u);
   o[base + 16u] = u(subgroupInverseBallot(bv));
   o[base + 17u] = u(subgroupBallotBitExtract(bv, x % 128u));
   o[base + 18u] = subgroupBallotBitCount(bv);
   o[base + 19u] = subgroupBallotInclusiveBitCount(bv);
   o[base + 20u] = subgroupBallotExclusiveBitCount(bv);
   o[base + 21u] = subgroupBallotFindLSB(bal | gl_SubgroupEqMask);
   o[base + 22u] = subgroupBallotFindMSB(bv);
   o[base + 23u] = subgroupBallotBitCount(uvec4(x));
   o[base + 24u] = gl_SubgroupEqMask.x;
   o[base + 25u] = gl_SubgroupGeMask.x;
   o[base + 26u] = gl_SubgroupGtMask.x;
   o[base + 27u] = gl_SubgroupLeMask.x;
   o[base + 28u] = gl_SubgroupLtMask.x;
   uvec3 hi = gl_SubgroupEqMask.yzw | gl_SubgroupGeMask.yzw | gl_SubgroupGtMask.yzw |
              gl_SubgroupLeMask.yzw | gl_SubgroupLtMask.yzw;
   o[base + 29u] = hi.x | hi.y | hi.z;
   o[base + 30u] = subgroupShuffle(x, (lane * 5u + 3u) % W);
   o[base + 31u] = floatBitsToUint(subgroupShuffle(f, (lane + 1u) % W));
   uvec2 du = unpackDouble2x32(subgroupShuffle(d, W - 1u - lane));
   o[base + 32u] = du.x;
   o[base + 33u] = du.y;
   o[base + 34u] = u(subgroupShuffle(b, (lane * 3u) % W));
   o[base + 35u] = subgroupShuffle(x, pc.k);
   o[base + 36u] = subgroupShuffleXor(x, 1u);
   o[base + 37u] = subgroupShuffleXor(x, 6u);
   o[base + 38u] = subgroupShuffleXor(x, pc.k);
   o[base + 39u] = subgroupShuffleXor(x, x & (W - 1u));
   o[base + 40u] = subgroupShuffleUp(x, 1u);
   o[base + 41u] = subgroupShuffleUp(x, pc.k);
   o[base + 42u] = subgroupShuffleUp(x, lane % 3u);
   o[base + 43u] = subgroupShuffleDown(x, 2u);
   o[base + 44u] = subgroupShuffleDown(x, pc.k);
   o[base + 45u] = u(subgroupShuffleDown(b, 1u));
   o[base + 46u] = subgroupQuadBroadcast(x, 0u);
   o[base + 47u] = subgroupQuadBroadcast(x, 3u);
   o[base + 48u] = subgroupQuadSwapHorizontal(x);
   o[base + 49u] = subgroupQuadSwapVertical(x);
   o[base + 50u] = subgroupQuadSwapDiagonal(x);
   o[base + 51u] = u(subgroupQuadSwapDiagonal(b));
   o[base + 52u] = subgroupShuffleXor(v3, 3u).y;
   int64_t qs = subgroupShuffleDown(q, 1u);
   o[base + 53u] = uint(qs);
   o[base + 54u] = uint(qs >> 32);
   o[base + 55u] = uint(subgroupShuffle(h, lane ^ 2u));
   o[base + 56u] = subgroupShuffle(a[wg], (lane + 1u) % W);
   // A loop that lanes leave in different iterations.
   uint acc = 0u;
   for (uint i = 0u; i <= x % 5u; i++)
      acc = acc * 31u + subgroupAdd(x + i) + subgroupBallotBitCount(subgroupBallot(true)) * 7u +
            (subgroupElect() ? 1000u : 0u);
   o[base + 57u] = acc;
   // A branch inside the divergent code.
   if ((x & 8u) != 0u)
      o[base + 58u] = subgroupExclusiveAdd(1u) + 100u * subgroupBroadcastFirst(lane);
   else
      o[base + 58u] = subgroupMax(lane);
   o[base + 59u] = W;
   o[base + 60u] = subgroupBroadcast(v3, 2u).z;
   o[base + 61u] = uint(subgroupBroadcastFirst(q) >> 8);
   o[base + 62u] = u(subgroupBroadcast(b, 1u));
   o[base + 63u] = u(subgroupAllEqual(x));
}
