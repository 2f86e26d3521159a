// test_ahb: samples an image through a Y'CbCr conversion (an immutable
// sampler) at texel (x + offset.x, y + offset.y) of every texel, with an
// explicit LOD (0: magnification; above 0: minification; one level).
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, std430) buffer Out { vec4 texels[]; };
layout(push_constant) uniform Params { uvec2 size; vec2 offset; float lod; };

void main()
{
   uvec2 p = gl_GlobalInvocationID.xy;
   if (p.x >= size.x || p.y >= size.y)
      return;
   texels[p.y * size.x + p.x] = textureLod(tex, (vec2(p) + offset) / vec2(size), lod);
}
