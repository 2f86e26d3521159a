#version 450
// Storage images without a declared format (the format comes from the
// descriptor): dst(p) = src(p - (1, 0)), for the float, int and uint
// classes. Column 0 reads outside src; invocations past dst's edge write
// outside dst. A uniform load and store at (0, 0) of image set 3 too.
#extension GL_EXT_shader_image_load_formatted : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform readonly image2D fsrc;
layout(binding = 1) uniform writeonly image2D fdst;
layout(binding = 2) uniform readonly iimage2D isrc;
layout(binding = 3) uniform writeonly iimage2D idst;
layout(binding = 4) uniform readonly uimage2D usrc;
layout(binding = 5) uniform writeonly uimage2D udst;
layout(binding = 6) uniform image2D uni;
layout(push_constant) uniform P { int mode; } pc;

void main()
{
   ivec2 p = ivec2(gl_GlobalInvocationID.xy);
   ivec2 q = p - ivec2(1, 0);
   if (pc.mode == 0)
      imageStore(fdst, p, imageLoad(fsrc, q));
   else if (pc.mode == 1)
      imageStore(idst, p, imageLoad(isrc, q));
   else if (pc.mode == 2)
      imageStore(udst, p, imageLoad(usrc, q));
   else
      imageStore(uni, ivec2(1, 0), imageLoad(uni, ivec2(0, 0)) * 2.0);
}
