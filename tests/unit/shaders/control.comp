#version 450
// Divergent control flow: per-lane results for if/else, loops with break and
// continue, a switch with fallthrough, early return (see test_compiler.c).
layout(local_size_x = 8, local_size_y = 4) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) writeonly buffer O { int o[]; };
layout(push_constant) uniform Params { int limit; int width; } pc;

int collatz(int v)
{
   int steps = 0;
   for (int n = 0; n < pc.limit; n++) {
      if (v <= 1)
         break;
      if ((v & 1) == 0) {
         v /= 2;
         continue;
      }
      v = 3 * v + 1;
      steps++;
   }
   return steps * 1000 + v % 1000;
}

void main()
{
   uint gx = gl_GlobalInvocationID.x, gy = gl_GlobalInvocationID.y;
   uint i = gy * uint(pc.width) + gx;
   int v = a[i];
   int k = int(i) * 6;
   // if / else if / else
   int r;
   if (v < 0)
      r = -v * 3;
   else if (v % 3 == 0)
      r = v / 3;
   else
      r = v + 7;
   o[k + 0] = r;
   // loop with break and continue
   o[k + 1] = collatz(v < 0 ? -v : v);
   // nested loops with a per-lane trip count
   int acc = 0;
   for (int p = 0; p < (v & 7); p++) {
      for (int q = 0; q <= p; q++) {
         if (((p + q) & 3) == 3)
            continue;
         acc += p * q + 1;
      }
      if (acc > 40)
         break;
   }
   o[k + 2] = acc;
   // switch with fallthrough and default
   int s = 0;
   switch (v & 7) {
   case 0:
      s = 10;
      break;
   case 1:
   case 2:
      s = 20;
   case 3:
      s += 5;
      break;
   case 6:
      s = 60;
      break;
   default:
      s = -1;
      break;
   }
   o[k + 3] = s;
   // a do-while with a data-dependent exit
   int d = v, cnt = 0;
   do {
      d = d / 2;
      cnt++;
   } while (d != 0 && cnt < 40);
   o[k + 4] = cnt;
   // early return: lanes with odd v stop here
   o[k + 5] = -7;
   if ((v & 1) != 0)
      return;
   o[k + 5] = v * 2 + int(gl_LocalInvocationIndex);
}
