#version 450
// Sizes, levels and samples of every image kind, texel buffer fetches and
// loads through 1D array, 2D array, 3D and cube array addressing.
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 16) in;
layout(binding = 0, r32ui) uniform readonly uimage1DArray a1;
layout(binding = 1, r32ui) uniform readonly uimage2DArray a2;
layout(binding = 2, r32ui) uniform readonly uimage3D a3;
layout(binding = 3, r32ui) uniform readonly uimageCubeArray ac;
layout(binding = 4, r32ui) uniform readonly uimageCube cube;
layout(binding = 5) uniform samplerBuffer tb;                 // uniform texel buffer
layout(binding = 6) uniform utextureBuffer utb;               // uniform texel buffer
layout(binding = 7, rgba32f) uniform readonly imageBuffer sb; // storage texel buffer
layout(binding = 8) uniform sampler2D s2;                     // sizes per level
layout(binding = 9) uniform texture2DMS ms;
layout(binding = 12, rgba8) uniform writeonly imageBuffer wb;  // storage texel buffers
layout(binding = 13) uniform writeonly uimageBuffer wub;         // (format from the view)
layout(std430, binding = 10) writeonly buffer O { uint o[]; };
layout(std430, binding = 11) writeonly buffer F { vec4 f[]; };

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i == 0u) {
      o[0] = uint(imageSize(a1).x); o[1] = uint(imageSize(a1).y);
      ivec3 s = imageSize(a2); o[2] = uint(s.x); o[3] = uint(s.y); o[4] = uint(s.z);
      s = imageSize(a3); o[5] = uint(s.x); o[6] = uint(s.y); o[7] = uint(s.z);
      s = imageSize(ac); o[8] = uint(s.x); o[9] = uint(s.y); o[10] = uint(s.z);
      ivec2 c = imageSize(cube); o[11] = uint(c.x); o[12] = uint(c.y);
      o[13] = uint(textureSize(tb)); o[14] = uint(textureSize(utb)); o[15] = uint(imageSize(sb));
      for (int l = 0; l < 4; l++) {
         ivec2 t = textureSize(s2, l);
         o[16 + l * 2] = uint(t.x);
         o[17 + l * 2] = uint(t.y);
      }
      o[24] = uint(textureQueryLevels(s2));
      o[25] = uint(textureSamples(ms));
   }
   // Per-lane sizes (a varying level).
   o[32 + i] = uint(textureSize(s2, int(i % 4u)).x);
   int k = int(i);
   o[48 + i] = imageLoad(a1, ivec2(k % 5, k / 5)).x;
   o[64 + i] = imageLoad(a2, ivec3(k % 3, k / 3 % 2, k / 6)).x;
   o[80 + i] = imageLoad(a3, ivec3(k % 2, k / 2 % 3, k / 6)).x;
   o[96 + i] = imageLoad(ac, ivec3(k % 2, k / 2 % 2, k / 4 * 3 % 13)).x;
   o[112 + i] = texelFetch(utb, k - 2).x;
   f[i] = texelFetch(tb, k * 3 - 5) + imageLoad(sb, k - 1);
   imageStore(wb, k - 1, vec4(float(k) / 15.0, 0.5, -1.0, 2.0));
   imageStore(wub, k + 1, uvec4(k * 1000u + 7u, k, 99u, 5u));
}
