#version 450
// A large dispatch: every invocation writes a hash of its global index.
layout(local_size_x = 128, local_size_y = 2) in;
layout(std430, binding = 0) writeonly buffer O { uint o[]; };
void main()
{
   uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256u +
            gl_LocalInvocationIndex;
   uint h = i * 0x9e3779b9u;
   h ^= h >> 16;
   h *= 0x85ebca6bu;
   h ^= h >> 13;
   o[i] = h + gl_LocalInvocationID.y;
}
