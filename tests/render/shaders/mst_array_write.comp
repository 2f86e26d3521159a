#version 450
// Multisampled storage image arrays (render/msaa_storage): every sample of
// both layers of 8x8 2-layer 4-sample rgba32ui and r32ui images (2D_ARRAY
// views) written with its own value, then an atomic add on each r32ui
// sample (its old value kept). gl_GlobalInvocationID.z is the layer.
layout(local_size_x = 8, local_size_y = 8, local_size_z = 2) in;
layout(set = 0, binding = 0, rgba32ui) uniform writeonly uimage2DMSArray u;
layout(set = 0, binding = 1, r32ui) uniform uimage2DMSArray a;
layout(set = 0, binding = 2, std430) buffer Out { uint old[512]; } o;
void main()
{
   ivec3 p = ivec3(gl_GlobalInvocationID);
   int i = (p.z * 8 + p.y) * 8 + p.x;
   for (int s = 0; s < 4; s++) {
      uint k = uint(i * 4 + s);
      imageStore(u, p, s, uvec4(p.x, p.y, p.z * 4 + s, 0x20000u + k * 613u));
      imageStore(a, p, s, uvec4(1000u * uint(i) + uint(s)));
   }
   for (int s = 0; s < 4; s++)
      o.old[i * 4 + s] = imageAtomicAdd(a, p, s, uint(p.z * 4 + s) + 11u);
}
