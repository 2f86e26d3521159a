#version 450
// findLSB on 64- and 16-bit values (api/types), per lane and uniform.
// GLSL.std.450 FindILsb of any width is valid Vulkan SPIR-V (FindSMsb and
// FindUMsb are 32-bit only); Shale alone runs this: lavapipe's SPIR-V
// front end (Mesa 22.3) rejects the 64-bit form.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : require
layout(local_size_x = 32) in;

layout(std430, set = 0, binding = 0) readonly buffer Lanes { uint64_t lane[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { int64_t r[]; };

void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint64_t a = lane[i], g = lane[gl_WorkGroupID.x * 5u];
   r[i * 8u + 0u] = findLSB(a);
   r[i * 8u + 1u] = findLSB(int64_t(a));
   r[i * 8u + 2u] = int64_t(findLSB(uint16_t(a)));
   r[i * 8u + 3u] = int64_t(findLSB(int16_t(a >> 16u)));
   r[i * 8u + 4u] = findLSB(g);
   r[i * 8u + 5u] = int64_t(findLSB(int16_t(g)));
   i64vec2 v = findLSB(u64vec2(a, ~a));
   r[i * 8u + 6u] = v.x + v.y * 100l;
   r[i * 8u + 7u] = int64_t(findLSB(uint(a)));
}
