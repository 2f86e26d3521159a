#version 450
#extension GL_ARB_shader_texture_image_samples : require
// Multisampled storage image arrays (render/msaa_storage): every sample of
// both layers read back with imageLoad; imageSize and imageSamples.
layout(local_size_x = 8, local_size_y = 8, local_size_z = 2) in;
layout(set = 0, binding = 0, rgba32ui) uniform readonly uimage2DMSArray u;
layout(set = 0, binding = 1, r32ui) uniform readonly uimage2DMSArray a;
layout(set = 0, binding = 2, std430) buffer Out {
   uvec4 u[512];
   uint a[512];
   ivec4 q;
} o;
void main()
{
   ivec3 p = ivec3(gl_GlobalInvocationID);
   int i = (p.z * 8 + p.y) * 8 + p.x;
   for (int s = 0; s < 4; s++) {
      o.u[i * 4 + s] = imageLoad(u, p, s);
      o.a[i * 4 + s] = imageLoad(a, p, s).r;
   }
   if (i == 0)
      o.q = ivec4(imageSize(u), imageSamples(a));
}
