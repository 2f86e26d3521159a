#version 450
// Storage images of format rgba16i: mirrored copies on 2D, 2D array and 3D views,
// the loaded 2D texels and every view's imageSize (test_storage.c).
layout(local_size_x = 4, local_size_y = 4, local_size_z = 2) in;
layout(set = 0, binding = 0, rgba16i) uniform readonly iimage2D src2;
layout(set = 0, binding = 1, rgba16i) uniform writeonly iimage2D dst2;
layout(set = 0, binding = 2, rgba16i) uniform readonly iimage2DArray srca;
layout(set = 0, binding = 3, rgba16i) uniform writeonly iimage2DArray dsta;
layout(set = 0, binding = 4, rgba16i) uniform readonly iimage3D src3;
layout(set = 0, binding = 5, rgba16i) uniform writeonly iimage3D dst3;
layout(set = 0, binding = 6, std430) buffer Out { ivec4 sizes[6]; ivec4 loaded[]; } o;
void main()
{
   ivec3 p = ivec3(gl_GlobalInvocationID);
   if (p == ivec3(0)) {
      o.sizes[0] = ivec4(imageSize(src2), 0, 0);
      o.sizes[1] = ivec4(imageSize(dst2), 0, 0);
      o.sizes[2] = ivec4(imageSize(srca), 0);
      o.sizes[3] = ivec4(imageSize(dsta), 0);
      o.sizes[4] = ivec4(imageSize(src3), 0);
      o.sizes[5] = ivec4(imageSize(dst3), 0);
   }
   ivec2 s2 = imageSize(src2);
   if (p.x < s2.x && p.y < s2.y && p.z == 0) {
      ivec4 v = imageLoad(src2, ivec2(s2.x - 1 - p.x, p.y));
      imageStore(dst2, p.xy, v);
      o.loaded[p.y * s2.x + p.x] = v;
   }
   ivec3 sa = imageSize(srca);
   if (all(lessThan(p, sa)))
      imageStore(dsta, p, imageLoad(srca, ivec3(p.x, sa.y - 1 - p.y, p.z)));
   ivec3 s3 = imageSize(src3);
   if (all(lessThan(p, s3)))
      imageStore(dst3, p, imageLoad(src3, ivec3(p.x, p.y, s3.z - 1 - p.z)));
}
