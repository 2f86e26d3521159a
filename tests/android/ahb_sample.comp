// test_ahb: samples an image through a Y'CbCr conversion (an immutable
// sampler) at every texel centre, nearest filtering, level 0.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, std430) buffer Out { vec4 texels[]; };
layout(push_constant) uniform Size { uvec2 size; };

void main()
{
   uvec2 p = gl_GlobalInvocationID.xy;
   if (p.x >= size.x || p.y >= size.y)
      return;
   texels[p.y * size.x + p.x] = textureLod(tex, (vec2(p) + 0.5) / vec2(size), 0.0);
}
