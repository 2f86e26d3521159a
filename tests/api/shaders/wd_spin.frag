#version 450
// api/watchdog: each fragment counts to `limit` (2^32 - 1 for the watchdog
// case: hours) and writes the count; the step depends on the pixel, so the
// loop is divergent within a quad but every lane reaches an even limit.
layout(push_constant) uniform P { uint limit; };
layout(location = 0) out vec4 o_color;
void main()
{
   uint step = 1u + (uint(gl_FragCoord.x) & 1u);
   uint n = 0u;
   while (n < limit)
      n += step;
   o_color = vec4(float(n));
}
