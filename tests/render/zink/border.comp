#version 450
// Kernel of test_zink_border.c: invocation i samples binding 0 at level 0,
// coordinate q[i].xy, and writes the result to r[i]. TY 0 = float, 1 = int,
// 2 = uint results.
layout(local_size_x = 8) in;
#if TY == 0
#define VEC vec4
#define SMP sampler2D
#elif TY == 1
#define VEC ivec4
#define SMP isampler2D
#else
#define VEC uvec4
#define SMP usampler2D
#endif
layout(set = 0, binding = 0) uniform SMP s;
layout(set = 0, binding = 1, std430) readonly buffer Q { vec4 q[]; };
layout(set = 0, binding = 2, std430) writeonly buffer R { VEC r[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   r[i] = textureLod(s, q[i].xy, 0.0);
}
