#version 450
// An array of format-less storage images indexed per lane: each lane's
// image may have another format (and, declared, another place).
#extension GL_EXT_shader_image_load_formatted : require
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x = 16) in;
layout(binding = 0) uniform image2D imgs[3];
layout(binding = 1) uniform uimage2D uimgs[2];
layout(binding = 2, r32f) uniform image2D rimgs[2];

void main()
{
   int i = int(gl_GlobalInvocationID.x);
   int k = i % 3;
   vec4 v = imageLoad(imgs[nonuniformEXT(k)], ivec2(i, 0));
   imageStore(imgs[nonuniformEXT(k)], ivec2(i, 1), v * 0.5);
   uvec4 u = imageLoad(uimgs[nonuniformEXT(i & 1)], ivec2(i, 0));
   imageStore(uimgs[nonuniformEXT(i & 1)], ivec2(i, 1), u + 1u);
   // A declared format, per-lane records.
   int j = (i >> 1) & 1;
   imageStore(rimgs[nonuniformEXT(j)], ivec2(i, 1), imageLoad(rimgs[nonuniformEXT(j)], ivec2(i, 0)) + 1.0);
}
