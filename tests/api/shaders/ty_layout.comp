#version 450
// 64-bit values in memory (api/types): one struct read from a std140
// uniform buffer and from a std430 storage buffer, push constants with
// 64-bit members, row-major double matrices, indices that vary per lane,
// and per-lane stores of the struct into std140 and std430 arrays.
// test_types.c places and checks every member at the offsets the GLSL
// rules give, written out there by hand.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;

struct S {
   float f0; double d0; dvec2 v2; float f1; dvec3 v3; double d1; dvec4 v4;
   double arr[3]; dmat2 m2; dmat3 m3; int64_t q; uint u; u64vec2 qv;
};
layout(std140, set = 0, binding = 0) uniform U { S s; layout(row_major) dmat2x3 rm; double tail; } u;
layout(std430, set = 0, binding = 1) readonly buffer B { S s; layout(row_major) dmat2x3 rm; double tail; } b;
layout(std430, set = 0, binding = 2) writeonly buffer Out { uint64_t o[]; };
layout(std140, set = 0, binding = 3) writeonly buffer W140 { S w[]; } w140;
layout(std430, set = 0, binding = 4) writeonly buffer W430 { S w[]; } w430;
layout(std430, set = 0, binding = 5) writeonly buffer WR { layout(row_major) dmat2x3 m[]; } wr;
layout(push_constant) uniform P {
   uint pu; double pd; int64_t pq; dvec2 pv; uint64_t pq2; float pf; uint n; dvec3 pv3;
} pc;

const uint NO = 98;
uint k;

void put(uint64_t v) { o[k++] = v; }
void putd(double v) { o[k++] = doubleBitsToUint64(v); }

void copy(S s, dmat2x3 rm, double tail, uint i)
{
   put(uint64_t(floatBitsToUint(s.f0)));
   putd(s.d0); putd(s.v2.x); putd(s.v2.y);
   put(uint64_t(floatBitsToUint(s.f1)));
   putd(s.v3.x); putd(s.v3.y); putd(s.v3.z);
   putd(s.d1);
   putd(s.v4.x); putd(s.v4.y); putd(s.v4.z); putd(s.v4.w);
   putd(s.arr[0]); putd(s.arr[1]); putd(s.arr[2]);
   putd(s.m2[0][0]); putd(s.m2[0][1]); putd(s.m2[1][0]); putd(s.m2[1][1]);
   for (int c = 0; c < 3; c++)
      for (int r = 0; r < 3; r++)
         putd(s.m3[c][r]);
   put(uint64_t(s.q)); put(uint64_t(s.u)); put(s.qv.x); put(s.qv.y);
   for (int c = 0; c < 2; c++)
      for (int r = 0; r < 3; r++)
         putd(rm[c][r]);
   putd(tail);
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.n)
      return;
   k = i * NO;
   copy(u.s, u.rm, u.tail, i);
   // Indices that differ per lane, straight from the buffers.
   putd(u.s.arr[i % 3u]); putd(u.s.m3[i % 3u][(i / 3u) % 3u]); putd(u.s.v4[i & 3u]);
   putd(u.rm[i & 1u][(i >> 1u) % 3u]);
   copy(b.s, b.rm, b.tail, i);
   putd(b.s.arr[i % 3u]); putd(b.s.m3[i % 3u][(i / 3u) % 3u]); putd(b.s.v4[i & 3u]);
   putd(b.rm[i & 1u][(i >> 1u) % 3u]);
   put(uint64_t(pc.pu)); putd(pc.pd); put(uint64_t(pc.pq)); putd(pc.pv.x); putd(pc.pv.y);
   put(pc.pq2); put(uint64_t(floatBitsToUint(pc.pf))); putd(pc.pv3.x); putd(pc.pv3.y); putd(pc.pv3.z);

   double di = double(i);
   S w;
   w.f0 = u.s.f0 + float(i);
   w.d0 = u.s.d0 * (di + 1.0lf);
   w.v2 = u.s.v2 + dvec2(di);
   w.f1 = float(i);
   w.v3 = b.s.v3 - dvec3(di);
   w.d1 = di * 0.5lf;
   w.v4 = dvec4(di, di + 1.0lf, di + 2.0lf, di + 3.0lf);
   for (int j = 0; j < 3; j++)
      w.arr[j] = u.s.arr[j] + di;
   w.m2 = u.s.m2 * (di + 1.0lf);
   w.m3 = b.s.m3 + dmat3(di);
   w.q = b.s.q + int64_t(i);
   w.u = i * 3u;
   w.qv = u64vec2(uint64_t(i), ~uint64_t(i));
   w140.w[i] = w;
   w430.w[i] = w;
   wr.m[i] = b.rm * (di + 1.0lf);
}
