#version 450
#extension GL_ARB_gpu_shader_int64 : require
// Matrices (row- and column-major in memory, products, transpose, outer
// product), dynamic vector indexing, bool arrays, 64-bit integers and doubles.
layout(local_size_x = 8) in;
layout(std430, binding = 0) readonly buffer M {
   layout(row_major) mat4 rm;
   layout(column_major) mat4 cm;
   mat2x3 m23;                       // 2 columns of vec3
} mats;
layout(std430, binding = 1) readonly buffer I {
   int64_t a64[8];
   double d[8];
} ins;
layout(std430, binding = 2) writeonly buffer O {
   vec4 f[8 * 6];
   int64_t i64[8 * 4];
   double dd[8 * 3];
   uint flags[8];
} o;
void main()
{
   uint i = gl_LocalInvocationIndex;
   vec4 v = vec4(float(i), 1.0 - float(i), 0.5 * float(i), 2.0);
   o.f[i * 6u + 0u] = mats.rm * v;
   o.f[i * 6u + 1u] = v * mats.cm;                      // vector * matrix
   mat4 p = mats.rm * mats.cm;
   o.f[i * 6u + 2u] = p[i % 4u];                         // dynamic column
   o.f[i * 6u + 3u] = transpose(mats.cm)[1] + vec4(mats.m23 * v.xy, 0.0);
   mat3x2 op = outerProduct(v.xy, v.yzw);               // 3 columns of vec2
   o.f[i * 6u + 4u] = vec4(op[0], op[2]);
   vec4 w = v;
   w[i % 4u] = 42.0;                                    // dynamic insert
   o.f[i * 6u + 5u] = vec4(w.x, w.w, v[(i + 1u) % 4u], w[i % 4u]);   // dynamic extract

   bool flags[8];
   for (int k = 0; k < 8; k++)
      flags[k] = ((i >> (k % 3)) & 1u) != 0u;
   uint bits = 0u;
   for (uint k = 0u; k < 8u; k++)
      if (flags[(k + i) % 8u])
         bits |= 1u << k;
   o.flags[i] = bits;

   int64_t a = ins.a64[i];
   o.i64[i * 4u + 0u] = a * 3 + (a >> 7);
   o.i64[i * 4u + 1u] = int64_t(uint64_t(a) / 1000000007ul);
   o.i64[i * 4u + 2u] = a < 0 ? -a : a;
   o.i64[i * 4u + 3u] = int64_t(i) << 40;
   double x = ins.d[i];
   o.dd[i * 3u + 0u] = x * x + 1.0lf;
   o.dd[i * 3u + 1u] = sqrt(abs(x)) / 3.0lf;
   o.dd[i * 3u + 2u] = double(float(x)) - x;
}
