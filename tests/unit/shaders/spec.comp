#version 450
// Specialization constants: a multiplier, a switch and the workgroup width.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const int MUL = 2;
layout(constant_id = 2) const bool NEGATE = false;
layout(constant_id = 3) const float OFFSET = 0.5;
layout(std430, binding = 0) writeonly buffer O { float o[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   float v = float(int(i) * MUL) + OFFSET;
   o[i] = NEGATE ? -v : v;
}
