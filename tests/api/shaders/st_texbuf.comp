#version 450
// Texel buffers (test_storage.c): texelFetch from uniform texel buffers and
// mirrored imageLoad/imageStore copies between storage texel buffers of
// r32ui, r32i, r32f, rgba8 and rgba32f, their sizes, and atomics on r32ui and
// r32i storage texel buffers (a contended add on elements 0-3, exchanges on
// the others).
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform usamplerBuffer ub0;
layout(set = 0, binding = 1) uniform isamplerBuffer ub1;
layout(set = 0, binding = 2) uniform samplerBuffer ub2;
layout(set = 0, binding = 3) uniform samplerBuffer ub3;
layout(set = 0, binding = 4) uniform samplerBuffer ub4;
layout(set = 0, binding = 5, r32ui) uniform readonly uimageBuffer src0;
layout(set = 0, binding = 6, r32i) uniform readonly iimageBuffer src1;
layout(set = 0, binding = 7, r32f) uniform readonly imageBuffer src2;
layout(set = 0, binding = 8, rgba8) uniform readonly imageBuffer src3;
layout(set = 0, binding = 9, rgba32f) uniform readonly imageBuffer src4;
layout(set = 0, binding = 10, r32ui) uniform writeonly uimageBuffer dst0;
layout(set = 0, binding = 11, r32i) uniform writeonly iimageBuffer dst1;
layout(set = 0, binding = 12, r32f) uniform writeonly imageBuffer dst2;
layout(set = 0, binding = 13, rgba8) uniform writeonly imageBuffer dst3;
layout(set = 0, binding = 14, rgba32f) uniform writeonly imageBuffer dst4;
layout(set = 0, binding = 15, r32ui) uniform uimageBuffer au;
layout(set = 0, binding = 16, r32i) uniform iimageBuffer ai;
layout(set = 0, binding = 17, std430) buffer Out { int sizes[20]; uvec4 fetched[5][32]; uint uret[32]; int sret[32]; } o;
void main()
{
   int g = int(gl_GlobalInvocationID.x);
   if (g == 0) {
      o.sizes[0] = textureSize(ub0); o.sizes[1] = textureSize(ub1);
      o.sizes[2] = textureSize(ub2); o.sizes[3] = textureSize(ub3);
      o.sizes[4] = textureSize(ub4);
      o.sizes[5] = imageSize(src0); o.sizes[6] = imageSize(src1);
      o.sizes[7] = imageSize(src2); o.sizes[8] = imageSize(src3);
      o.sizes[9] = imageSize(src4);
      o.sizes[10] = imageSize(dst0); o.sizes[11] = imageSize(dst1);
      o.sizes[12] = imageSize(dst2); o.sizes[13] = imageSize(dst3);
      o.sizes[14] = imageSize(dst4);
      o.sizes[15] = imageSize(au); o.sizes[16] = imageSize(ai);
   }
   if (g < textureSize(ub0)) o.fetched[0][g] = texelFetch(ub0, g);
   if (g < textureSize(ub1)) o.fetched[1][g] = uvec4(texelFetch(ub1, g));
   if (g < textureSize(ub2)) o.fetched[2][g] = floatBitsToUint(texelFetch(ub2, g));
   if (g < textureSize(ub3)) o.fetched[3][g] = floatBitsToUint(texelFetch(ub3, g));
   if (g < textureSize(ub4)) o.fetched[4][g] = floatBitsToUint(texelFetch(ub4, g));
   int n = imageSize(src0);
   if (g < n) imageStore(dst0, g, imageLoad(src0, n - 1 - g));
   n = imageSize(src1);
   if (g < n) imageStore(dst1, g, imageLoad(src1, n - 1 - g));
   n = imageSize(src2);
   if (g < n) imageStore(dst2, g, imageLoad(src2, n - 1 - g));
   n = imageSize(src3);
   if (g < n) imageStore(dst3, g, imageLoad(src3, n - 1 - g));
   n = imageSize(src4);
   if (g < n) imageStore(dst4, g, imageLoad(src4, n - 1 - g));
   imageAtomicAdd(au, g % 4, uint(g) * 5u + 1u);
   imageAtomicAdd(ai, g % 4, 3 - g * 7);
   if (g >= 4 && g < imageSize(au)) {
      o.uret[g] = imageAtomicExchange(au, g, uint(g) * 0x01010101u);
      o.sret[g] = imageAtomicExchange(ai, g, -g * 1000);
   }
}
