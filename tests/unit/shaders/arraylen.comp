#version 450
// An array of storage buffer descriptors (constant and dynamically uniform
// indices), OpArrayLength on each, and a store through a uniform index.
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer B { uint hdr; float data[]; } bufs[3];
layout(std430, binding = 1) writeonly buffer O { uint o[]; };
layout(push_constant) uniform P { uint which; } pc;
void main()
{
   uint l = gl_LocalInvocationID.x;
   if (l == 0u) {
      o[0] = uint(bufs[0].data.length());
      o[1] = uint(bufs[1].data.length());
      o[2] = uint(bufs[2].data.length());
      o[3] = uint(bufs[pc.which].data.length()) + bufs[pc.which].hdr * 1000u;
   }
   bufs[pc.which].data[l] += 1.5;
}
