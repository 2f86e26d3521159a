#version 450
#extension GL_ARB_shader_texture_image_samples : require
// texelFetch of every sample of 4-sample images (2D colour, a 2D array of
// two layers, depth and stencil aspects), textureSize and textureSamples.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2DMS col;
layout(set = 0, binding = 1) uniform sampler2DMSArray arr;
layout(set = 0, binding = 2) uniform sampler2DMS dep;
layout(set = 0, binding = 3) uniform usampler2DMS sten;
layout(set = 0, binding = 4, std430) buffer Out {
   vec4 c[256];
   vec4 a[512];
   float d[256];
   uint st[256];
   ivec4 q[4];
} o;
void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   int i = p.y * 8 + p.x;
   for (int s = 0; s < 4; s++) {
      o.c[i * 4 + s] = texelFetch(col, p, s);
      o.a[i * 4 + s] = texelFetch(arr, ivec3(p, 0), s);
      o.a[256 + i * 4 + s] = texelFetch(arr, ivec3(p, 1), s);
      o.d[i * 4 + s] = texelFetch(dep, p, s).r;
      o.st[i * 4 + s] = texelFetch(sten, p, s).r;
   }
   if (i == 0) {
      o.q[0] = ivec4(textureSize(col), textureSamples(col), textureSamples(arr));
      o.q[1] = ivec4(textureSize(arr), textureSamples(dep));
      o.q[2] = ivec4(textureSize(dep), textureSamples(sten), 0);
   }
}
