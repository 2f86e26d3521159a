#version 450
// api/spirv_1_4_int: integer sampling compiled with --target-env spirv1.4,
// where glslang puts SignExtend (isampler) or ZeroExtend (usampler) image
// operands on every fetch, sample and gather. SAMPLER is usampler2D or
// isampler2D; each texel of the 16x16 image gives 6 words.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform SAMPLER s;
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   uint i = uint(p.y * 16 + p.x) * 6u;
   o[i] = uint(texelFetch(s, p, 0).r);
   o[i + 1u] = uint(textureLod(s, (vec2(p) + 0.5) / 16.0, 0.0).r);
   uvec4 g = uvec4(textureGather(s, (vec2(p) + 0.75) / 16.0));
   o[i + 2u] = g.x;
   o[i + 3u] = g.y;
   o[i + 4u] = g.z;
   o[i + 5u] = g.w;
}
