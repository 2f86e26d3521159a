#version 450
// Texel buffers of one format (test_storage.c's mandatory-format sweep):
// texelFetch of every texel of a uniform texel buffer into o.fetched (the
// components' bits), and, when FMT is defined (the format has
// STORAGE_TEXEL_BUFFER), a mirrored imageLoad/imageStore copy between two
// storage texel buffers of that format. Built once per component class
// (SAMPLER, IMAGE and BITS, which turns the fetched vector into uvec4)
// and storage format.
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) uniform SAMPLER ub;
#ifdef FMT
layout(set = 0, binding = 1, FMT) uniform readonly IMAGE src;
layout(set = 0, binding = 2, FMT) uniform writeonly IMAGE dst;
#endif
layout(set = 0, binding = 3, std430) buffer Out { int size; int ssize; uvec4 fetched[32]; } o;
void main()
{
   int g = int(gl_GlobalInvocationID.x);
   if (g == 0) {
      o.size = textureSize(ub);
#ifdef FMT
      o.ssize = imageSize(src);
#endif
   }
   if (g < textureSize(ub))
      o.fetched[g] = BITS(texelFetch(ub, g));
#ifdef FMT
   int n = imageSize(src);
   if (g < n)
      imageStore(dst, g, imageLoad(src, n - 1 - g));
#endif
}
