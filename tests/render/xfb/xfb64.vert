#version 450
// test_xfb64.c: 64-bit outputs captured by a vertex shader (points, one per
// vertex): in buffer 0 (stride 56) a dvec3 at 8 (two Locations), a uint
// tag at 32 and a double at 40 (bytes 0-7, 36-39 and 48-55 never written);
// in buffer 1 (stride 24) a u64vec2 at 0 and an int64_t at 16; in buffer 2
// (stride 40) a block whose double[2] is at 0 and whose dvec2 is at 16
// (bytes 32-39 never written). Every value is built from exact bit patterns
// of v = VertexIndex + 16 * InstanceIndex, low and high words different,
// so a swapped, shifted or dropped word shows.
#extension GL_ARB_gpu_shader_int64 : require
layout(location = 0) in vec4 pos;
layout(location = 0, xfb_buffer = 0, xfb_offset = 8, xfb_stride = 56) flat out dvec3 dv;
layout(location = 2, xfb_buffer = 0, xfb_offset = 32) flat out uint tag;
layout(location = 3, xfb_buffer = 0, xfb_offset = 40) flat out double d;
layout(location = 4, xfb_buffer = 1, xfb_offset = 0, xfb_stride = 24) flat out u64vec2 q;
layout(location = 5, xfb_buffer = 1, xfb_offset = 16) flat out int64_t s;
layout(location = 6, xfb_buffer = 2, xfb_stride = 40) out Blk {
   layout(xfb_offset = 0) flat double a[2];
   layout(xfb_offset = 16) flat dvec2 b;
} blk;
out gl_PerVertex {
   vec4 gl_Position;
   float gl_PointSize;
};
void main()
{
   uint v = uint(gl_VertexIndex) + 16u * uint(gl_InstanceIndex);
   gl_Position = pos;
   gl_PointSize = 1.0;
   dv = dvec3(packDouble2x32(uvec2(0x01020304u * (v + 1u), 0x3ff00000u + v)),
              packDouble2x32(uvec2(0xdeadbeefu ^ v, 0xc0100000u + (v << 8))),
              packDouble2x32(uvec2(v, 0x7fe00000u - v)));
   tag = v | 0xabc00000u;
   d = packDouble2x32(uvec2(~v, 0x40000000u | (v << 4)));
   q = u64vec2(packUint2x32(uvec2(0x11111111u * v, 0x80000000u | v)),
               packUint2x32(uvec2(0xffffffffu - v, v * 3u)));
   s = packInt2x32(ivec2(-int(v) - 7, -(int(v) << 12)));
   blk.a[0] = packDouble2x32(uvec2(v * 7u + 1u, 0x3fe00000u + v));
   blk.a[1] = packDouble2x32(uvec2(v * 9u + 2u, 0xbfe00000u + v));
   blk.b = dvec2(packDouble2x32(uvec2(0x5555u * v, 0x41000000u + v)),
                 packDouble2x32(uvec2(0xaaaa0000u | v, 0x42000000u + v)));
}
