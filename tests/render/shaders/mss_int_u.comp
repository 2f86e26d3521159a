#version 450
// texelFetch of every sample of a 4-sample unsigned-integer image.
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform usampler2DMS img;
layout(set = 0, binding = 1, std430) buffer Out { uvec4 v[256]; } o;
void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   int i = p.y * 8 + p.x;
   for (int s = 0; s < 4; s++)
      o.v[i * 4 + s] = texelFetch(img, p, s);
}
