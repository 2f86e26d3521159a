#version 450
// api/stencil_usage: the depth aspect of a depth/stencil image whose stencil
// aspect has a usage of its own (no SAMPLED), read texel by texel.
layout(local_size_x = 16, local_size_y = 16) in;
layout(binding = 0) uniform sampler2D d;
layout(std430, binding = 1) writeonly buffer O { float o[]; };
void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   o[p.y * 16 + p.x] = texelFetch(d, p, 0).r;
}
