#version 450
// Image atomics on r32ui and r32i storage images (test_storage.c): a contended
// imageAtomicAdd on row 0, then one op per row (1 comp-swap, 2 exchange,
// 3 min, 4 max, 5 and, 6 or, 7 xor) on 16 texels with the returned values.
layout(local_size_x = 16) in;
layout(set = 0, binding = 0, r32ui) uniform coherent uimage2D u;
layout(set = 0, binding = 1, r32i) uniform coherent iimage2D s;
layout(set = 0, binding = 2, std430) buffer In { uint operand[128]; uint compare[16]; } i;
layout(set = 0, binding = 3, std430) buffer Out { uint uret[128]; int sret[128]; } o;
void main()
{
   uint g = gl_GlobalInvocationID.x;
   ivec2 hot = ivec2(g % 4u, 0);
   imageAtomicAdd(u, hot, g + 1u);
   imageAtomicAdd(s, hot, -int(g) * 3 + 7);
   if (g >= 16u)
      return;
   ivec2 p;
   for (int row = 1; row < 8; row++) {
      p = ivec2(g, row);
      uint a = i.operand[row * 16 + int(g)];
      uint ru, rs;
      int sa = int(a);
      int rsi;
      switch (row) {
      case 1: ru = imageAtomicCompSwap(u, p, i.compare[g], a);
              rsi = imageAtomicCompSwap(s, p, int(i.compare[g]), sa); break;
      case 2: ru = imageAtomicExchange(u, p, a); rsi = imageAtomicExchange(s, p, sa); break;
      case 3: ru = imageAtomicMin(u, p, a); rsi = imageAtomicMin(s, p, sa); break;
      case 4: ru = imageAtomicMax(u, p, a); rsi = imageAtomicMax(s, p, sa); break;
      case 5: ru = imageAtomicAnd(u, p, a); rsi = imageAtomicAnd(s, p, sa); break;
      case 6: ru = imageAtomicOr(u, p, a); rsi = imageAtomicOr(s, p, sa); break;
      default: ru = imageAtomicXor(u, p, a); rsi = imageAtomicXor(s, p, sa); break;
      }
      o.uret[row * 16 + int(g)] = ru;
      o.sret[row * 16 + int(g)] = rsi;
   }
}
