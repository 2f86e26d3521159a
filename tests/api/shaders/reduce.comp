#version 450
// Tree reduction in shared memory with barriers: partial[g] = sum of the
// workgroup's 256 inputs; total += partial (atomically, across workgroups).
layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer In { uint v[]; };
layout(std430, set = 0, binding = 1) buffer Out { uint total; uint partial[]; };
shared uint s[256];
void main()
{
   uint l = gl_LocalInvocationID.x;
   s[l] = v[gl_GlobalInvocationID.x];
   barrier();
   for (uint stride = 128; stride > 0; stride >>= 1) {
      if (l < stride)
         s[l] += s[l + stride];
      barrier();
   }
   if (l == 0) {
      partial[gl_WorkGroupID.x] = s[0];
      atomicAdd(total, s[0]);
   }
}
