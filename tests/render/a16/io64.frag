#version 450
// 64-bit fragment inputs (render/stage_io): every input's words stored per
// pixel.
#extension GL_ARB_gpu_shader_int64 : require
layout(location = 0) flat in double d;
layout(location = 0, component = 2) flat in float f0;
layout(location = 1) flat in dvec3 dv;
layout(location = 3) flat in u64vec2 q;
layout(location = 4) flat in dvec4 d4;
layout(location = 6) flat in float f6;
layout(location = 6, component = 2) flat in int64_t s;
layout(location = 0) out vec4 o;
layout(std430, set = 0, binding = 0) buffer B { uint rec[64][28]; } b;
void put(uint i, uint k, uvec2 v)
{
   b.rec[i][k] = v.x;
   b.rec[i][k + 1u] = v.y;
}
void main()
{
   ivec2 c = ivec2(gl_FragCoord.xy);
   uint i = uint(c.y * 8 + c.x);
   put(i, 0u, unpackDouble2x32(d));
   b.rec[i][2] = floatBitsToUint(f0);
   for (int k = 0; k < 3; k++)
      put(i, 3u + 2u * uint(k), unpackDouble2x32(dv[k]));
   put(i, 9u, unpackUint2x32(q.x));
   put(i, 11u, unpackUint2x32(q.y));
   for (int k = 0; k < 4; k++)
      put(i, 13u + 2u * uint(k), unpackDouble2x32(d4[k]));
   b.rec[i][21] = floatBitsToUint(f6);
   put(i, 22u, unpackUint2x32(uint64_t(s)));
   b.rec[i][24] = 1u;
   o = vec4(0.25, 0.5, 0.75, 1.0);
}
