#version 450
// api/storage_formats: one storage image format in a compute (COMP) or a
// fragment (FRAG) shader, or the vertex shader (VERT) that covers the
// fragment case's 13x5 target with one triangle. CLASS_F / CLASS_I /
// CLASS_U pick the component class. With FMT (the format's layout
// qualifier): imageLoad of src (declared format), its value stored to dst
// (declared format) and into o.loaded, and o.vals stored to dst_nf (format
// Unknown: shaderStorageImageWriteWithoutFormat). With READ_NF instead: the
// same load through src_nf (format Unknown:
// shaderStorageImageReadWithoutFormat), stored to dst_nf. Texel p takes
// src's texel mirrored in x.
#extension GL_EXT_shader_image_load_formatted : enable
#if defined(VERT)
void main()
{
   vec2 p = vec2((gl_VertexIndex & 1) * 4 - 1, (gl_VertexIndex >> 1) * 4 - 1);
   gl_Position = vec4(p, 0.0, 1.0);
}
#else
#if defined(CLASS_I)
#define IMG iimage2D
#define VEC ivec4
#define BITS(v) uvec4(v)
#define FROM(u) ivec4(u)
#elif defined(CLASS_U)
#define IMG uimage2D
#define VEC uvec4
#define BITS(v) (v)
#define FROM(u) (u)
#else
#define IMG image2D
#define VEC vec4
#define BITS(v) floatBitsToUint(v)
#define FROM(u) uintBitsToFloat(u)
#endif
#ifdef FMT
layout(set = 0, binding = 0, FMT) uniform readonly IMG src;
layout(set = 0, binding = 1, FMT) uniform writeonly IMG dst;
#endif
layout(set = 0, binding = 2) uniform writeonly IMG dst_nf;
#ifdef READ_NF
layout(set = 0, binding = 3) uniform readonly IMG src_nf;
#endif
layout(set = 0, binding = 4, std430) buffer Io { uvec4 vals[128]; uvec4 loaded[128]; } io;
#ifdef FRAG
layout(location = 0) out vec4 color;
#else
layout(local_size_x = 8, local_size_y = 8) in;
#endif

void body(ivec2 p)
{
   ivec2 s = imageSize(dst_nf);
   if (p.x >= s.x || p.y >= s.y)
      return;
   int i = p.y * 16 + p.x;
   ivec2 m = ivec2(s.x - 1 - p.x, p.y);
#ifdef READ_NF
   VEC v = imageLoad(src_nf, m);
   imageStore(dst_nf, p, v);
#else
   VEC v = imageLoad(src, m);
   imageStore(dst, p, v);
   imageStore(dst_nf, p, FROM(io.vals[i]));
#endif
   io.loaded[i] = BITS(v);
}

void main()
{
#ifdef FRAG
   body(ivec2(gl_FragCoord.xy));
   color = vec4(0.0);
#else
   body(ivec2(gl_GlobalInvocationID.xy));
#endif
}
#endif
