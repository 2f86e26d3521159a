#version 450
// A large private array (moves from the stack to scratch memory at wide
// SIMD widths) indexed with per-lane values.
layout(local_size_x = 32) in;
layout(std430, binding = 0) writeonly buffer O { float o[]; };
void main()
{
   float big[1024];
   uint g = gl_GlobalInvocationID.x;
   for (int k = 0; k < 1024; k++)
      big[k] = float(k) * 0.5 + float(g);
   float acc = 0.0;
   for (uint k = g % 7u; k < 1024u; k += 97u)
      acc += big[k];
   o[g] = acc + big[(g * 13u) % 1024u];
}
