#version 450
// 32 integer results per invocation from a[i], b[i] (see test_compiler.c).
layout(local_size_x = 32) in;
layout(std430, binding = 0) readonly buffer A { int a[]; };
layout(std430, binding = 1) readonly buffer B { int b[]; };
layout(std430, binding = 2) writeonly buffer O { int o[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   int x = a[i], y = b[i];
   uint ux = uint(x), uy = uint(y);
   uint s = uy & 31u;
   int k = int(i) * 32;
   o[k + 0] = x + y;
   o[k + 1] = x - y;
   o[k + 2] = x * y;
   o[k + 3] = (y != 0 && !(x == int(0x80000000) && y == -1)) ? x / y : 12345;
   o[k + 4] = (y != 0 && !(x == int(0x80000000) && y == -1)) ? x % y : 12345;
   o[k + 5] = int(ux / max(uy, 1u));
   o[k + 6] = int(ux % max(uy, 1u));
   o[k + 7] = x << s;
   o[k + 8] = x >> s;
   o[k + 9] = int(ux >> s);
   o[k + 10] = x & y;
   o[k + 11] = x | y;
   o[k + 12] = x ^ y;
   o[k + 13] = ~x;
   o[k + 14] = -x;
   o[k + 15] = (x < y ? 1 : 0) | (x <= y ? 2 : 0) | (x > y ? 4 : 0) | (x >= y ? 8 : 0) |
               (x == y ? 16 : 0) | (x != y ? 32 : 0) | (ux < uy ? 64 : 0) |
               (ux > uy ? 128 : 0) | (ux <= uy ? 256 : 0) | (ux >= uy ? 512 : 0);
   o[k + 16] = min(x, y);
   o[k + 17] = max(x, y);
   o[k + 18] = clamp(x, -100, 100);
   o[k + 19] = int(min(ux, uy));
   o[k + 20] = int(max(ux, uy));
   o[k + 21] = int(clamp(ux, 10u, 1000u));
   o[k + 22] = abs(x);
   o[k + 23] = sign(x);
   o[k + 24] = bitfieldExtract(x, int(uy & 15u), 8);
   o[k + 25] = int(bitfieldExtract(ux, int(uy & 15u), 8));
   o[k + 26] = bitfieldInsert(x, y, 4, 12);
   o[k + 27] = bitCount(x);
   o[k + 28] = findLSB(x);
   o[k + 29] = findMSB(x);
   o[k + 30] = findMSB(ux);
   o[k + 31] = bitfieldReverse(x);
}
