#version 450
// Storage images with declared formats (conversion compiled inline): each
// texel is read, changed and written back in place.
layout(local_size_x = 4, local_size_y = 4) in;
layout(binding = 0, rgba8) uniform image2D i_rgba8;
layout(binding = 1, rgba8_snorm) uniform image2D i_rgba8s;
layout(binding = 2, rgba16f) uniform image2D i_rgba16f;
layout(binding = 3, rgba16) uniform image2D i_rgba16;
layout(binding = 4, r11f_g11f_b10f) uniform image2D i_r11g11b10;
layout(binding = 5, rgb10_a2) uniform image2D i_rgb10a2;
layout(binding = 6, rg32f) uniform image2D i_rg32f;
layout(binding = 7, r32f) uniform image2D i_r32f;
layout(binding = 8, rgba32f) uniform image2D i_rgba32f;
layout(binding = 9, rg16_snorm) uniform image2D i_rg16s;
layout(binding = 10, rgba8ui) uniform uimage2D i_rgba8ui;
layout(binding = 11, rgba16i) uniform iimage2D i_rgba16i;
layout(binding = 12, rgb10_a2ui) uniform uimage2D i_rgb10a2ui;
layout(binding = 13, r32i) uniform iimage2D i_r32i;
layout(binding = 14, rgba32ui) uniform uimage2D i_rgba32ui;
layout(binding = 15, rg8i) uniform iimage2D i_rg8i;

vec4 f(vec4 v) { return v * vec4(0.5, -1.5, 2.0, 1.0) + vec4(0.25, 0.125, -0.5, 0.0); }
ivec4 g(ivec4 v) { return v * ivec4(3, -1, 1, 2) + ivec4(1, 2, 300, -7); }

void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   imageStore(i_rgba8, p, f(imageLoad(i_rgba8, p)));
   imageStore(i_rgba8s, p, f(imageLoad(i_rgba8s, p)));
   imageStore(i_rgba16f, p, f(imageLoad(i_rgba16f, p)));
   imageStore(i_rgba16, p, f(imageLoad(i_rgba16, p)));
   imageStore(i_r11g11b10, p, f(imageLoad(i_r11g11b10, p)));
   imageStore(i_rgb10a2, p, f(imageLoad(i_rgb10a2, p)));
   imageStore(i_rg32f, p, f(imageLoad(i_rg32f, p)));
   imageStore(i_r32f, p, f(imageLoad(i_r32f, p)));
   imageStore(i_rgba32f, p, f(imageLoad(i_rgba32f, p)));
   imageStore(i_rg16s, p, f(imageLoad(i_rg16s, p)));
   imageStore(i_rgba8ui, p, uvec4(g(ivec4(imageLoad(i_rgba8ui, p)))));
   imageStore(i_rgba16i, p, g(imageLoad(i_rgba16i, p)));
   imageStore(i_rgb10a2ui, p, uvec4(g(ivec4(imageLoad(i_rgb10a2ui, p)))));
   imageStore(i_r32i, p, g(imageLoad(i_r32i, p)));
   imageStore(i_rgba32ui, p, uvec4(g(ivec4(imageLoad(i_rgba32ui, p)))));
   imageStore(i_rg8i, p, g(imageLoad(i_rg8i, p)));
}
