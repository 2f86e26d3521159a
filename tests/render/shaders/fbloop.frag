#version 450
// test_feedback_loop.c: mode 0 writes a pattern of the pixel's position;
// modes 1 and 2 sample the attachment being rendered to (binding 0, nearest
// filtering, at texel centres) at the pixel mirrored left to right, and
// write its inverse (1) or its channels swapped (2); mode 3 writes the
// inverse of the pixel's own texel.
layout(set = 0, binding = 0) uniform sampler2D img;
layout(push_constant) uniform PC { vec2 x; int mode; } pc;
layout(location = 0) out vec4 o;
void main()
{
   uvec2 p = uvec2(gl_FragCoord.xy);
   if (pc.mode == 0) {
      o = vec4(uvec4((p.x * 7u + p.y * 3u) & 255u, (p.x ^ (p.y * 5u)) & 255u,
                     (p.y * 11u + 17u) & 255u, 255u)) / 255.0;
      return;
   }
   vec2 size = vec2(textureSize(img, 0));
   float x = pc.mode == 3 ? float(p.x) : size.x - 1.0 - float(p.x);
   vec4 t = texture(img, (vec2(x, float(p.y)) + 0.5) / size);
   o = pc.mode == 2 ? t.bgra : vec4(1.0 - t.rgb, t.a);
}
