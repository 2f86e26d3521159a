#version 450
#extension GL_ARB_shader_texture_image_samples : require
// Multisampled storage images (render/msaa_storage): every sample read back
// with imageLoad, the rgba32ui one also with texelFetch of a sampled view;
// imageSize and imageSamples.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, rgba32ui) uniform readonly uimage2DMS u;
layout(set = 0, binding = 1, r32ui) uniform readonly uimage2DMS a;
layout(set = 0, binding = 2, rgba8) uniform readonly image2DMS f;
layout(set = 0, binding = 3) uniform usampler2DMS us;
layout(set = 0, binding = 4, std430) buffer Out {
   uvec4 u[256];
   uvec4 t[256];
   uint a[256];
   vec4 f[256];
   ivec4 q;
} o;
void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   int i = p.y * 8 + p.x;
   for (int s = 0; s < 4; s++) {
      o.u[i * 4 + s] = imageLoad(u, p, s);
      o.t[i * 4 + s] = texelFetch(us, p, s);
      o.a[i * 4 + s] = imageLoad(a, p, s).r;
      o.f[i * 4 + s] = imageLoad(f, p, s);
   }
   if (i == 0)
      o.q = ivec4(imageSize(u), imageSamples(a), imageSamples(f));
}
