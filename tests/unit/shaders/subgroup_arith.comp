#version 450
// Subgroup reductions, inclusive / exclusive scans and clustered reductions
// of one value type, chosen at build time: -DT=<type> -DS=<storage type>
// -DKIND_INT / -DKIND_FLOAT / -DKIND_BOOL (+ the type's extensions).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_clustered : require
#ifdef EXT_INT64
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_subgroup_extended_types_int64 : require
#endif
#ifdef EXT_INT8
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_shader_subgroup_extended_types_int8 : require
#endif
#ifdef EXT_INT16
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
#extension GL_EXT_shader_subgroup_extended_types_int16 : require
#endif
#ifdef EXT_FLOAT16
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : require
#endif
layout(local_size_x_id = 0) in;
// Lanes of subgroup s run the operations when bit lane of lanes[s % 4] is set.
layout(push_constant) uniform P { uint lanes[4]; } pc;
layout(std430, binding = 0) readonly buffer A { S a[]; };   // add, bitwise
layout(std430, binding = 1) readonly buffer M { S m[]; };   // multiply
layout(std430, binding = 2) readonly buffer N { S n[]; };   // min, max
layout(std430, binding = 3) writeonly buffer O { S o[]; };
layout(std430, binding = 4) writeonly buffer I { uint ids[]; };

#define FORMS(base, F, x) \
   o[base + 0u] = S(subgroup##F(x)); \
   o[base + 1u] = S(subgroupInclusive##F(x)); \
   o[base + 2u] = S(subgroupExclusive##F(x)); \
   o[base + 3u] = S(subgroupClustered##F(x, 1u)); \
   o[base + 4u] = S(subgroupClustered##F(x, 2u)); \
   o[base + 5u] = S(subgroupClustered##F(x, 4u)); \
   o[base + 6u] = S(subgroupClustered##F(x, 8u)); \
   o[base + 7u] = S(subgroupClustered##F(x, 16u));
// Operation k on the invocation's value, then on a uniform one.
#define OP(k, F, arr) \
   FORMS(row + (2u * k) * 8u, F, T(arr[g])) \
   FORMS(row + (2u * k + 1u) * 8u, F, T(arr[u]))

void main()
{
   uint g = gl_GlobalInvocationID.x;
   uint u = gl_WorkGroupID.x;
   ids[g] = (gl_SubgroupID << 16) | (gl_SubgroupInvocationID << 8) | gl_SubgroupSize;
   if (((pc.lanes[gl_SubgroupID & 3u] >> gl_SubgroupInvocationID) & 1u) != 0u) {
#if defined(KIND_INT)
      uint row = g * 112u;
      OP(0u, Add, a) OP(1u, Mul, m) OP(2u, Min, n) OP(3u, Max, n)
      OP(4u, And, a) OP(5u, Or, a) OP(6u, Xor, a)
#elif defined(KIND_FLOAT)
      uint row = g * 64u;
      OP(0u, Add, a) OP(1u, Mul, m) OP(2u, Min, n) OP(3u, Max, n)
#else
      uint row = g * 48u;
      OP(0u, And, a) OP(1u, Or, m) OP(2u, Xor, n)
#endif
   }
}
