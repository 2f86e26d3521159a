#version 450
// Multisampled storage images (render/msaa_storage): every sample of an
// 8x8 rgba32ui, r32ui and rgba8 4-sample image written with its own value,
// then an atomic add on each r32ui sample (its old value kept).
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32ui) uniform writeonly uimage2DMS u;
layout(set = 0, binding = 1, r32ui) uniform uimage2DMS a;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2DMS f;
layout(set = 0, binding = 3, std430) buffer Out { uint old[256]; } o;
void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   int i = p.y * 8 + p.x;
   for (int s = 0; s < 4; s++) {
      uint k = uint(i * 4 + s);
      imageStore(u, p, s, uvec4(p.x, p.y, s, 0x10000u + k * 977u));
      imageStore(a, p, s, uvec4(100u * uint(i) + uint(s)));
      imageStore(f, p, s, vec4(float(p.x), float(p.y), float(s), float(k)) / 255.0);
   }
   for (int s = 0; s < 4; s++)
      o.old[i * 4 + s] = imageAtomicAdd(a, p, s, uint(s) + 7u);
}
