#version 450
// Functions that return from inside a switch and from inside a loop: the
// legalizer must merge their returns before it can inline them.
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { uint a[]; };
layout(std430, binding = 1) writeonly buffer O { uint o[]; };

uint f(uint x)
{
   switch (x & 3u) {
   case 0u:
      return 1u;
   case 1u:
      return x * 3u;
   default:
      break;
   }
   return x + 7u;
}

// Return from a switch nested in a loop.
uint g(uint x)
{
   uint acc = 0u;
   for (uint n = 0u; n < (x & 15u); n++) {
      switch ((x >> n) & 3u) {
      case 3u:
         return acc + 100u;
      case 2u:
         acc += n;
         break;
      default:
         acc += 1u;
         break;
      }
   }
   return acc;
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint x = a[i];
   o[i * 2u + 0u] = f(x);
   o[i * 2u + 1u] = g(x) + f(x >> 2u);
}
