#version 450
// test_feedback_loop.c, depth: mode 0 writes a depth pattern of the pixel's
// position (multiples of 1/256, exact in D32_SFLOAT) and black; mode 1
// samples the depth attachment being rendered with (binding 0, nearest, at
// texel centres) at the pixel mirrored left to right and writes it to red
// as 8 bits (d * 256 / 255 in UNORM).
layout(set = 0, binding = 0) uniform sampler2D depth;
layout(push_constant) uniform PC { vec2 x; int mode; } pc;
layout(location = 0) out vec4 o;
void main()
{
   uvec2 p = uvec2(gl_FragCoord.xy);
   if (pc.mode == 0) {
      gl_FragDepth = float((p.x * 7u + p.y * 3u) & 255u) / 256.0;
      o = vec4(0.0, 0.0, 0.0, 1.0);
      return;
   }
   gl_FragDepth = gl_FragCoord.z;
   vec2 size = vec2(textureSize(depth, 0));
   float d = texture(depth, (vec2(size.x - 1.0 - float(p.x), float(p.y)) + 0.5) / size).r;
   o = vec4(d * 256.0 / 255.0, 0.0, 0.0, 1.0);
}
