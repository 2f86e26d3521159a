#version 450
// 16-bit storage (api/storage16): 16-bit float and integer members of storage
// buffers, a uniform buffer and push constants, scalars, vectors, arrays and
// a struct, loaded and widened (OpFConvert / OpSConvert / OpUConvert),
// computed on in 32 bits and narrowed back into 16-bit stores, whole-struct
// copies, stores to single vector components and to adjacent 16-bit array
// elements by adjacent lanes. Only GL_EXT_shader_16bit_storage: no 16-bit
// arithmetic. test_storage16.c computes every result in C.
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16) in;

struct E {
   float16_t a;      // 0
   int16_t b;        // 2
   uint16_t c;       // 4
   f16vec3 d;        // 8
   i16vec2 e;        // 16
   u16vec4 f;        // 24
};                   // 32 bytes

layout(std430, set = 0, binding = 0) readonly buffer In { E e[]; } src;
layout(std430, set = 0, binding = 1) writeonly buffer Out16 { E e[]; } dst;
layout(std430, set = 0, binding = 2) writeonly buffer Out32 { uint r[]; } o32;
layout(std430, set = 0, binding = 3) writeonly buffer Copy { E e[]; } cp;
layout(std430, set = 0, binding = 4) buffer Odd {
   float16_t h[64];  // 0
   int16_t s[64];    // 128
   u16vec3 v[64];    // 256, stride 8
} odd;
layout(std140, set = 0, binding = 5) uniform U {
   f16vec4 uv;       // 0
   float16_t uh;     // 8
   int16_t us;       // 10
   uint16_t uu;      // 12
   i16vec4 uarr[4];  // 16, stride 16
};
layout(push_constant) uniform P {
   float16_t ph;     // 0
   int16_t ps;       // 2
   f16vec2 pv;       // 4
   u16vec3 pu;       // 8
   uint n;           // 16
} pc;

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.n)
      return;
   cp.e[i].a = src.e[i].a;
   cp.e[i].b = src.e[i].b;
   cp.e[i].c = src.e[i].c;
   cp.e[i].d = src.e[i].d;
   cp.e[i].e = src.e[i].e;
   cp.e[i].f = src.e[i].f;
   float a = float(src.e[i].a);
   int b = int(src.e[i].b);
   uint c = uint(src.e[i].c);
   vec3 d = vec3(src.e[i].d);
   ivec2 e = ivec2(src.e[i].e);
   uvec4 f = uvec4(src.e[i].f);
   uint k = i * 24u;
   o32.r[k + 0u] = floatBitsToUint(a);
   o32.r[k + 1u] = uint(b);
   o32.r[k + 2u] = c;
   o32.r[k + 3u] = floatBitsToUint(d.x);
   o32.r[k + 4u] = floatBitsToUint(d.y);
   o32.r[k + 5u] = floatBitsToUint(d.z);
   o32.r[k + 6u] = uint(e.x);
   o32.r[k + 7u] = uint(e.y);
   o32.r[k + 8u] = f.x;
   o32.r[k + 9u] = f.y;
   o32.r[k + 10u] = f.z;
   o32.r[k + 11u] = f.w;
   o32.r[k + 12u] = floatBitsToUint(vec3(src.e[i].d)[i % 3u]);
   o32.r[k + 13u] = uint(int(src.e[(i * 7u) % pc.n].b));
   o32.r[k + 14u] = floatBitsToUint(vec4(uv)[i & 3u]);
   o32.r[k + 15u] = floatBitsToUint(float(uh));
   o32.r[k + 16u] = uint(int(us));
   o32.r[k + 17u] = uint(uu);
   ivec4 ua = ivec4(uarr[i & 3u]);
   o32.r[k + 18u] = uint(ua.x + ua.y * 3 + ua.z * 5 + ua.w * 7);
   o32.r[k + 19u] = floatBitsToUint(float(pc.ph));
   o32.r[k + 20u] = uint(int(pc.ps));
   o32.r[k + 21u] = floatBitsToUint(vec2(pc.pv)[i & 1u]);
   o32.r[k + 22u] = uvec3(pc.pu)[i % 3u];
   o32.r[k + 23u] = uint(ivec2(src.e[i].e)[i & 1u]) + uvec4(src.e[i].f)[(i + 1u) & 3u];
   dst.e[i].a = float16_t(a * 2.0);
   dst.e[i].b = int16_t(b - 3);
   dst.e[i].c = uint16_t(c ^ 0x8001u);
   dst.e[i].d = f16vec3(d.zyx * -0.5);
   dst.e[i].e = i16vec2(e.yx + ivec2(1, -1));
   dst.e[i].f = u16vec4(f.wzyx + uvec4(0x10000u));
   odd.h[i] = float16_t(float(i) + 0.25);
   odd.s[i] = int16_t(-int(i) * 3);
   odd.v[i].x = uint16_t(i);
   odd.v[i].z = uint16_t(i * 5u + 0xfff0u);
}
