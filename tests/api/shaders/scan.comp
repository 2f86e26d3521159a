#version 450
// Inclusive prefix sum of each workgroup's 128 elements (Hillis-Steele,
// double-buffered in shared memory, a barrier per step).
layout(local_size_x = 128) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
shared uint buf[2][128];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint src = 0;
   buf[0][l] = v[gl_GlobalInvocationID.x];
   barrier();
   for (uint d = 1; d < 128; d <<= 1) {
      uint x = buf[src][l];
      if (l >= d)
         x += buf[src][l - d];
      buf[1 - src][l] = x;
      src = 1 - src;
      barrier();
   }
   o[gl_GlobalInvocationID.x] = buf[src][l];
}
