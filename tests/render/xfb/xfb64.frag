#version 450
// test_xfb64.c: reads every output of xfb64.vert (times 0: the colour is
// constant), so none goes unconsumed.
#extension GL_ARB_gpu_shader_int64 : require
layout(location = 0) flat in dvec3 dv;
layout(location = 2) flat in uint tag;
layout(location = 3) flat in double d;
layout(location = 4) flat in u64vec2 q;
layout(location = 5) flat in int64_t s;
layout(location = 6) in Blk {
   flat double a[2];
   flat dvec2 b;
} blk;
layout(location = 0) out vec4 color;
void main()
{
   double sum = dv.x + dv.y + dv.z + d + blk.a[0] + blk.a[1] + blk.b.x + blk.b.y +
                double(q.x + q.y) + double(s) + double(tag);
   color = vec4(0.0, 1.0, 0.0, 1.0) + 0.0 * vec4(float(sum));
}
