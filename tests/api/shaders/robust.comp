#version 450
// Out-of-range accesses: with robustBufferAccess, reads past the bound range
// give zero (or bytes of the buffer: Shale gives zero) and writes past it
// are dropped.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer In { uint v[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform P { uint count; } pc;
void main()
{
   uint i = gl_GlobalInvocationID.x;
   o[i] = v[i];                 // in is bound to fewer elements than invocations
   v[i + pc.count] = 0xdeadbeefu;   // all out of range
}
