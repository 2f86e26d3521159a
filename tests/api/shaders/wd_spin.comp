#version 450
// api/watchdog: loops that end or not as the buffer says. mode 0: a
// uniform loop until `stop` is nonzero (never, for the watchdog cases);
// mode 1: a divergent loop, even invocations step by 1 and odd ones by 2
// up to `limit` (odd lanes never reach an odd limit); both write the
// iterations counted.
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint mode; };
layout(std430, set = 0, binding = 0) buffer B { uint stop; uint limit; uint count[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint n = 0u;
   if (mode == 0u) {
      while (stop == 0u && n != limit)
         n++;
   } else {
      uint step = 1u + (i & 1u);
      while (n != limit)
         n += step;
   }
   count[i] = n;
}
