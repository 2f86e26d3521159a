#version 450
// Specialization: the workgroup width (constant_id on local_size_x), an
// int, a bool, a float, and values derived by spec-constant operations.
// (A shared array sized by gl_WorkGroupSize.x is not used: the compiler
// cannot take an array whose length is a spec-constant operation yet.)
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int MUL = 2;
layout(constant_id = 2) const bool NEGATE = false;
layout(constant_id = 3) const float OFFSET = 0.5;
layout(constant_id = 4) const uint SHIFT = 3u;
const int MUL2 = MUL * 3 + 1;                 // OpSpecConstantOp IMul, IAdd
const uint MASK = (1u << SHIFT) - 1u;         // OpSpecConstantOp ShiftLeftLogical, ISub
const bool BOTH = NEGATE && (MUL > 4);        // OpSpecConstantOp LogicalAnd, SGreaterThan
layout(std430, set = 0, binding = 0) writeonly buffer O { float o[]; };
layout(std430, set = 0, binding = 1) writeonly buffer I { uint info[]; };
shared uint lane[1024];
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint i = gl_GlobalInvocationID.x;
   lane[l] = l * uint(MUL2);
   barrier();
   // Read a neighbour's value: only right if every lane of the specialised
   // width ran before the barrier.
   uint n = lane[(l + 1u) % gl_WorkGroupSize.x];
   float v = float(int(i) * MUL) + OFFSET;
   o[i] = NEGATE ? -v : v;
   info[i] = (n & 0xffffu) | ((i & MASK) << 16) | (BOTH ? 0x80000000u : 0u);
   if (i == 0u)
      info[gl_NumWorkGroups.x * gl_WorkGroupSize.x] = gl_WorkGroupSize.x;
}
