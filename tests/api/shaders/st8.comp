#version 450
// api/storage8: 8-bit integers in storage buffers, uniform buffers and push
// constants (storageBuffer8BitAccess, uniformAndStorageBuffer8BitAccess,
// storagePushConstant8) without 8-bit arithmetic (no Int8 capability):
// members read and widened to 32 bits (scalars, vectors, an array,
// signed and unsigned), and 8-bit stores of narrowed values by adjacent
// lanes. std430 E: a 0, b 1, c 2, d 4, e 8 (stride 1), stride 12; std140 U:
// uv 0, us 4, uarr 16 (stride 16); push constants: pa 0, pb 1, pc 2, n 4.
#extension GL_EXT_shader_8bit_storage : require
layout(local_size_x = 16) in;
struct E { uint8_t a; int8_t b; u8vec2 c; i8vec4 d; uint8_t e[3]; };
layout(std430, binding = 0) readonly buffer In { E in_e[]; };
layout(std140, binding = 1) uniform U { u8vec4 uv; int8_t us; uint8_t uarr[4]; } u;
layout(std430, binding = 2) writeonly buffer Out32 { uint o[]; };
layout(std430, binding = 3) writeonly buffer Out8 { uint8_t o8[]; };
layout(push_constant) uniform P { uint8_t pa; int8_t pb; u8vec2 pc; uint n; } p;
void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint b = i * 8u;
   o[b + 0u] = uint(in_e[i].a);
   o[b + 1u] = uint(int(in_e[i].b));
   o[b + 2u] = uint(in_e[i].c.x) | (uint(in_e[i].c.y) << 8);
   o[b + 3u] = uint(int(in_e[i].d.x) + int(in_e[i].d.w));
   o[b + 4u] = uint(in_e[i].e[i % 3u]);
   o[b + 5u] = uvec4(u.uv)[i & 3u] + uint(int(u.us)) * 1000u;
   o[b + 6u] = uint(u.uarr[i & 3u]);
   o[b + 7u] = uint(p.pa) + uint(int(p.pb)) * 256u + uint(p.pc.y) * 65536u;
   o8[i] = uint8_t(uint(in_e[i].a) + i);
}
