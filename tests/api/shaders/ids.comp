#version 450
// Every invocation records its built-ins; used for big, base and indirect
// dispatches. out is indexed by the global invocation ID (base included)
// over a grid of `dim` invocations.
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
layout(push_constant) uniform P { uvec3 dim; } pc;
layout(std430, set = 0, binding = 0) writeonly buffer Out { uvec4 o[]; };
layout(std430, set = 0, binding = 1) buffer Count { uint count; };
void main()
{
   uvec3 g = gl_GlobalInvocationID;
   uint i = (g.z * pc.dim.y + g.y) * pc.dim.x + g.x;
   uvec3 w = gl_WorkGroupID, n = gl_NumWorkGroups, l = gl_LocalInvocationID;
   o[i] = uvec4(g.x | (g.y << 16), g.z | (l.x << 16) | (l.y << 20) | (l.z << 24),
                w.x | (w.y << 16), w.z | (n.x << 8) | (n.y << 16) | (n.z << 24));
   atomicAdd(count, 1u);
}
