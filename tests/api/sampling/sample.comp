#version 450
// Sampling kernel of test_sampling.c, compiled once per variant with
//   SAMPLER, TEXTURE the GLSL types (e.g. usampler2D, utexture2D)
//   DIM 1 = 1D, 2 = 1D array, 3 = 2D, 4 = 2D array, 5 = 3D, 6 = cube,
//   7 = cube array (depth comparison: gathers only)
//   TY 0 = float, 1 = int, 2 = uint results
//   SHADOW 1: a depth-comparison sampler (float results in .x)
//   UNNORM 1: only what unnormalized-coordinate samplers allow
//   GEXT 1: gathers with offsets (shaderImageGatherExtended): constant
//     offsets, ConstOffsets and dynamic offsets (in dx.xy) at the
//     minTexelGatherOffset / maxTexelGatherOffset limits -8 and 7
// Constant offsets of the other ops (OFF_A, OFF_B) reach the spec's
// minimum minTexelOffset / maxTexelOffset, -8 and 7, in every component.
// Invocation i runs query q[i] (its op, coordinates, LOD, gradients, D_ref)
// on binding 0 (combined image sampler), or 1 + 4 (separate image and
// sampler), and writes r[i].
layout(local_size_x = 64) in;

#if TY == 0
#define VEC vec4
#elif TY == 1
#define VEC ivec4
#else
#define VEC uvec4
#endif

#if DIM == 1
#define P q[i].c.x
#define G(v) v.x
#define IP int(q[i].c.x)
#define OFF_A 7
#define OFF_B (-8)
#define SIZE4(s) ivec4(s, 0, 0, 0)
#define PROJ vec2(q[i].c.x, q[i].dx.w)
#elif DIM == 2
#define P q[i].c.xy
#define G(v) v.x
#define IP ivec2(q[i].c.xy)
#define OFF_A 7
#define OFF_B (-8)
#define SIZE4(s) ivec4(s, 0, 0)
#elif DIM == 3
#define P q[i].c.xy
#define G(v) v.xy
#define IP ivec2(q[i].c.xy)
#define OFF_A ivec2(7, -8)
#define OFF_B ivec2(-8, 7)
#define SIZE4(s) ivec4(s, 0, 0)
#define PROJ vec3(q[i].c.xy, q[i].dx.w)
#define GATHER 1
#elif DIM == 4
#define P q[i].c.xyz
#define G(v) v.xy
#define IP ivec3(q[i].c.xyz)
#define OFF_A ivec2(7, -8)
#define OFF_B ivec2(-8, 7)
#define SIZE4(s) ivec4(s, 0)
#define GATHER 1
#elif DIM == 5
#define P q[i].c.xyz
#define G(v) v.xyz
#define IP ivec3(q[i].c.xyz)
#define OFF_A ivec3(7, -8, 7)
#define OFF_B ivec3(-8, 7, -8)
#define SIZE4(s) ivec4(s, 0)
#define PROJ vec4(q[i].c.xyz, q[i].dx.w)
#elif DIM == 6
#define P q[i].c.xyz
#define G(v) v.xyz
#define SIZE4(s) ivec4(s, 0, 0)
#define GATHER 1
#define NO_OFFSET 1
#else
#define P q[i].c
#define G(v) v.xyz
#define SIZE4(s) ivec4(s, 0)
#define GATHER 1
#define NO_OFFSET 1
#endif

#define GOFFS ivec2[4](ivec2(-8, 7), ivec2(7, -8), ivec2(0, 0), ivec2(-3, 5))

#if SHADOW
#define SMP samplerShadow
#else
#define SMP sampler
#endif

struct Query {
   vec4 c;      // coordinates (integers for fetches), homogeneous for Proj;
                // (gathers with dynamic offsets: the offset in dx.xy)
   vec4 dx;     // d/dx; .w: q of Proj
   vec4 dy;     // .w: the LOD of size queries
   float lod;
   float dref;
   int op;
   int pad;
};

layout(set = 0, binding = 0) uniform SAMPLER tex;
layout(set = 0, binding = 1) uniform TEXTURE img;
layout(set = 0, binding = 2, std430) readonly buffer In { Query q[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Out { VEC r[]; };
layout(set = 0, binding = 4) uniform SMP smp;
layout(push_constant) uniform Push { uint count; } pc;

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.count)
      return;
   int op = q[i].op;
   float lod = q[i].lod;
   VEC res = VEC(0);
#if SHADOW
   float dref = q[i].dref;
#if DIM == 3
   if (op == 0)
      res.x = textureLod(tex, vec3(P, dref), lod);
   else if (op == 2)
      res.x = textureLodOffset(tex, vec3(P, dref), lod, OFF_A);
   else if (op == 12)
      res.x = textureLod(SAMPLER(img, smp), vec3(P, dref), lod);
   else if (op == 13)
      res.x = textureProjLod(tex, vec4(P, dref * q[i].dx.w, q[i].dx.w), lod);
   else if (op == 1)
      res.x = textureGrad(tex, vec3(P, dref), G(q[i].dx), G(q[i].dy));
   else if (op == 3)
      res.x = textureGradOffset(tex, vec3(P, dref), G(q[i].dx), G(q[i].dy), OFF_B);
   else if (op == 6)
      res = textureGather(tex, P, dref);
#if GEXT
   else if (op == 14)
      res = textureGatherOffsets(tex, P, dref, GOFFS);
   else if (op == 15)
      res = textureGatherOffset(tex, P, dref, ivec2(q[i].dx.xy));
#endif
#elif DIM == 4
   if (op == 1)
      res.x = textureGrad(tex, vec4(P, dref), G(q[i].dx), G(q[i].dy));
   else if (op == 3)
      res.x = textureGradOffset(tex, vec4(P, dref), G(q[i].dx), G(q[i].dy), OFF_B);
   else if (op == 12)
      res.x = textureGrad(SAMPLER(img, smp), vec4(P, dref), G(q[i].dx), G(q[i].dy));
   else if (op == 6)
      res = textureGather(tex, P, dref);
#elif DIM == 6
   if (op == 1)
      res.x = textureGrad(tex, vec4(P, dref), G(q[i].dx), G(q[i].dy));
   else if (op == 12)
      res.x = textureGrad(SAMPLER(img, smp), vec4(P, dref), G(q[i].dx), G(q[i].dy));
   else if (op == 6)
      res = textureGather(tex, P, dref);
#else
   // Cube arrays: no explicit-LOD comparison in GLSL; gathers only.
   if (op == 6)
      res = textureGather(tex, P, dref);
#endif
#else
   if (op == 0)
      res = textureLod(tex, P, lod);
   else if (op == 1)
      res = textureGrad(tex, P, G(q[i].dx), G(q[i].dy));
   else if (op == 12)
      res = textureLod(SAMPLER(img, smp), P, lod);
#if !UNNORM
#if !NO_OFFSET
   else if (op == 2)
      res = textureLodOffset(tex, P, lod, OFF_A);
   else if (op == 3)
      res = textureGradOffset(tex, P, G(q[i].dx), G(q[i].dy), OFF_B);
   else if (op == 4)
      res = texelFetch(tex, IP, int(lod));
   else if (op == 5)
      res = texelFetchOffset(tex, IP, int(lod), OFF_B);
#endif
#ifdef PROJ
   else if (op == 13)
      res = textureProjLod(tex, PROJ, lod);
#endif
#ifdef GATHER
   else if (op == 6)
      res = textureGather(tex, P, 0);
   else if (op == 7)
      res = textureGather(tex, P, 1);
   else if (op == 8)
      res = textureGather(tex, P, 2);
   else if (op == 9)
      res = textureGather(tex, P, 3);
#if GEXT && !NO_OFFSET
   else if (op == 10)
      res = textureGatherOffset(tex, P, ivec2(-8, 7), 1);
   else if (op == 14)
      res = textureGatherOffsets(tex, P, GOFFS, 2);
   else if (op == 15)
      res = textureGatherOffset(tex, P, ivec2(q[i].dx.xy), 3);
#endif
#endif
#endif
#endif
   if (op == 11) {
      res = VEC(SIZE4(textureSize(tex, int(q[i].dy.w))));
      res.w = textureQueryLevels(tex);
   }
   r[i] = res;
}
