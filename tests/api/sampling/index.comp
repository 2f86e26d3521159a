#version 450
// Arrays of sampled-image descriptors indexed in the shader
// (test_sampling_arrays.c), compiled twice:
//   DYN 1: the indices are computed from the workgroup id (dynamically
//          uniform: shaderSampledImageArrayDynamicIndexing)
//   DYN 0: the same indices through switches of constant indices (core)
// Workgroup g uses combined element g % 4, image g / 4 % 3 and sampler
// g / 12 % 2; invocation i reads c[2i] (coordinates for the combined
// image, and a texel of it to fetch) and c[2i + 1] (coordinates for the
// separate image) and writes four results r[4i .. 4i+3].
layout(local_size_x = 16) in;

layout(set = 0, binding = 0) uniform sampler2D comb[4];
layout(set = 0, binding = 1) uniform texture2D tex[3];
layout(set = 0, binding = 2) uniform sampler smp[2];
layout(set = 0, binding = 3, std430) readonly buffer In { vec4 c[]; };
layout(set = 0, binding = 4, std430) writeonly buffer Out { vec4 r[]; };

#if DYN
vec4 comb_lod(int k, vec2 p) { return textureLod(comb[k], p, 0.0); }
vec4 comb_fetch(int k, ivec2 p) { return texelFetch(comb[k], p, 0); }
vec4 comb_gather(int k, vec2 p) { return textureGather(comb[k], p, 1); }
vec4 sep_lod(int t, int s, vec2 p) { return textureLod(sampler2D(tex[t], smp[s]), p, 0.0); }
#else
#define SWITCH4(k, e)                                              \
   switch (k) {                                                    \
   case 0: return e(0);                                            \
   case 1: return e(1);                                            \
   case 2: return e(2);                                            \
   default: return e(3);                                           \
   }
vec4 comb_lod(int k, vec2 p)
{
#define E(n) textureLod(comb[n], p, 0.0)
   SWITCH4(k, E)
#undef E
}
vec4 comb_fetch(int k, ivec2 p)
{
#define E(n) texelFetch(comb[n], p, 0)
   SWITCH4(k, E)
#undef E
}
vec4 comb_gather(int k, vec2 p)
{
#define E(n) textureGather(comb[n], p, 1)
   SWITCH4(k, E)
#undef E
}
vec4 sep_lod(int t, int s, vec2 p)
{
   if (s == 0) {
      if (t == 0)
         return textureLod(sampler2D(tex[0], smp[0]), p, 0.0);
      if (t == 1)
         return textureLod(sampler2D(tex[1], smp[0]), p, 0.0);
      return textureLod(sampler2D(tex[2], smp[0]), p, 0.0);
   }
   if (t == 0)
      return textureLod(sampler2D(tex[0], smp[1]), p, 0.0);
   if (t == 1)
      return textureLod(sampler2D(tex[1], smp[1]), p, 0.0);
   return textureLod(sampler2D(tex[2], smp[1]), p, 0.0);
}
#endif

void main()
{
   uint g = gl_WorkGroupID.x;
   int ck = int(g % 4u), tk = int(g / 4u % 3u), sk = int(g / 12u % 2u);
   uint i = gl_GlobalInvocationID.x;
   vec4 q = c[2 * i], q2 = c[2 * i + 1];
   r[4 * i] = comb_lod(ck, q.xy);
   r[4 * i + 1] = comb_fetch(ck, ivec2(q.zw));
   r[4 * i + 2] = comb_gather(ck, q.xy);
   r[4 * i + 3] = sep_lod(tk, sk, q2.xy);
}
