#version 450
// Storage cube arrays (imageCubeArray) for test_sampling_arrays.c: every
// texel (x, y, cube * 6 + face) of `src` is loaded, written to v[] and
// stored into `dst` with its components reversed; size gets imageSize of
// both views.
layout(local_size_x = 4, local_size_y = 4) in;

layout(set = 0, binding = 0, rgba8) uniform readonly imageCubeArray src;
layout(set = 0, binding = 1, rgba8) uniform writeonly imageCubeArray dst;
layout(set = 0, binding = 2, std430) writeonly buffer Out { ivec4 size; vec4 v[]; };

void main()
{
   ivec3 p = ivec3(gl_GlobalInvocationID);
   ivec3 s = imageSize(src);
   if (p == ivec3(0))
      size = ivec4(s, imageSize(dst).z);
   if (p.x >= s.x || p.y >= s.y || p.z >= s.z * 6)
      return;
   vec4 t = imageLoad(src, p);
   v[(p.z * s.y + p.y) * s.x + p.x] = t;
   imageStore(dst, p, t.wzyx);
}
