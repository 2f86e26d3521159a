#version 450
// 64-bit vertex outputs (render/stage_io): flat double, dvec3 (two
// Locations), dvec4, u64vec2 and int64_t outputs, one sharing its Location
// with a 32-bit float at Component 0 and one at Component 2, from the
// vertex index, so the provoking vertex's values are the ones expected.
#extension GL_ARB_gpu_shader_int64 : require
layout(location = 0) flat out double d;
layout(location = 0, component = 2) flat out float f0;
layout(location = 1) flat out dvec3 dv;
layout(location = 3) flat out u64vec2 q;
layout(location = 4) flat out dvec4 d4;
layout(location = 6) flat out float f6;
layout(location = 6, component = 2) flat out int64_t s;
void main()
{
   int vid = gl_VertexIndex;
   vec2 p = vec2((vid & 1) * 4 - 1, (vid >> 1) * 4 - 1);
   gl_Position = vec4(p, 0.0, 1.0);
   d = double(vid + 1) / 3.0lf;
   f0 = 0.5 + float(vid);
   dv = dvec3(d * 1.0e10lf, -d, 1.0e300lf * d);
   q = u64vec2(0x123456789abcdef0ul + uint64_t(vid), ~uint64_t(vid));
   d4 = dvec4(-d, d / 7.0lf, 2.5e-300lf, double(vid) - 0.125lf);
   f6 = -3.0 * float(vid + 1);
   s = -0x100000000l * int64_t(vid + 3) + 5l;
}
