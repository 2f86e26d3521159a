#version 450
// api/watchdog: `limit` rounds (2^32 - 1 for the watchdog cases), each
// passing a value to the left neighbour through shared memory between two
// barriers; a workgroup of 64 has several subgroups, so the body is
// resumable. Every invocation ends with the number of rounds.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer B { uint stop; uint limit; uint count[]; };
shared uint s[64];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint acc = 0u;
   for (uint r = 0u; r != limit; r++) {
      s[l] = acc;
      barrier();
      acc = s[(l + 1u) % 64u] + 1u;
      barrier();
   }
   count[gl_GlobalInvocationID.x] = acc;
}
