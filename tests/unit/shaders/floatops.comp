#version 450
// 32 float results per invocation from a[i], b[i] (see test_compiler.c).
layout(local_size_x = 16) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer O { float o[]; };
layout(std430, binding = 3) writeonly buffer P { int p[]; };
void main()
{
   uint i = gl_GlobalInvocationID.x;
   float x = a[i], y = b[i];
   int k = int(i) * 32;
   o[k + 0] = x + y;
   o[k + 1] = x - y;
   o[k + 2] = x * y;
   o[k + 3] = x / y;
   o[k + 4] = abs(x);
   o[k + 5] = -x;
   o[k + 6] = floor(x);
   o[k + 7] = ceil(x);
   o[k + 8] = fract(x);
   o[k + 9] = trunc(x);
   o[k + 10] = sqrt(abs(x));
   o[k + 11] = inversesqrt(abs(x));
   o[k + 12] = min(x, y);
   o[k + 13] = max(x, y);
   o[k + 14] = clamp(x, -1.0, 1.0);
   o[k + 15] = mix(x, y, 0.25);
   o[k + 16] = fma(x, y, 1.0);
   o[k + 17] = sin(x);
   o[k + 18] = cos(x);
   o[k + 19] = exp(clamp(x, -80.0, 80.0));
   o[k + 20] = log(abs(x));
   o[k + 21] = pow(abs(x), 1.5);
   o[k + 22] = sign(x);
   o[k + 23] = step(y, x);
   o[k + 24] = smoothstep(-2.0, 2.0, x);
   o[k + 25] = float(int(clamp(x, -1e9, 1e9)));
   o[k + 26] = float(uint(clamp(x, 0.0, 4e9)));
   o[k + 27] = float(int(y * 1000.0 + 0.5) & 0xffff);
   o[k + 28] = roundEven(x);
   o[k + 29] = exp2(clamp(y, -100.0, 100.0));
   o[k + 30] = log2(abs(y));
   o[k + 31] = x * 0.5;
   int m = int(i) * 4;
   p[m + 0] = (isnan(x) ? 1 : 0) | (isinf(x) ? 2 : 0) | (x < y ? 4 : 0) | (x <= y ? 8 : 0) |
              (x == y ? 16 : 0) | (x != y ? 32 : 0) | (x > y ? 64 : 0) | (x >= y ? 128 : 0);
   p[m + 1] = floatBitsToInt(x);
   p[m + 2] = int(uintBitsToFloat(0x3f800000u) == 1.0) + int(x * 0.0 != 0.0) * 2;
   p[m + 3] = int(packHalf2x16(vec2(x, 0.5)) & 0xffffu);
}
