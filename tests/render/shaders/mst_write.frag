#version 450
// The fragment-shader twin of mst_write.comp (render/msaa_storage): the
// one fragment of each pixel of an 8x8 one-sample target writes every
// sample of that pixel in the 4-sample rgba32ui, r32ui and rgba8 images,
// then adds to each r32ui sample atomically (its old value kept).
layout(location = 0) out vec4 color;
layout(set = 0, binding = 0, rgba32ui) uniform writeonly uimage2DMS u;
layout(set = 0, binding = 1, r32ui) uniform uimage2DMS a;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2DMS f;
layout(set = 0, binding = 3, std430) buffer Out { uint old[256]; } o;
void main()
{
   ivec2 p = ivec2(gl_FragCoord.xy);
   int i = p.y * 8 + p.x;
   for (int s = 0; s < 4; s++) {
      uint k = uint(i * 4 + s);
      imageStore(u, p, s, uvec4(p.x, p.y, s, 0x10000u + k * 977u));
      imageStore(a, p, s, uvec4(100u * uint(i) + uint(s)));
      imageStore(f, p, s, vec4(float(p.x), float(p.y), float(s), float(k)) / 255.0);
   }
   for (int s = 0; s < 4; s++)
      o.old[i * 4 + s] = imageAtomicAdd(a, p, s, uint(s) + 7u);
   color = vec4(0.0);
}
