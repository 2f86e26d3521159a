#version 450
// SGEMM C = A * B (n x n, row-major, n a multiple of 64) with shared-memory
// tiling: a 16x16 workgroup computes a 64x64 tile of C, each invocation a
// 4x4 block (rows ty + 16i, columns tx + 16j, so neighbouring invocations
// touch neighbouring columns). Per step of TK along k the workgroup stages a
// 64xTK tile of A and a TKx64 tile of B in shared memory (rows indexed by
// ty, columns by tx: each invocation loads 4 * TK / 16 + 4 * TK / 16 floats,
// neighbours neighbouring addresses), then runs TK x 16 FMAs per invocation.
// TK = 64 fills the 32 KiB of shared memory Vulkan guarantees: the longest
// runs along each row of A and the fewest barriers.
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform Params { uint n; } pc;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { float c[]; };

const uint TS = 64u;   // tile of C per workgroup
const uint TK = 64u;   // step along k
shared float as[TS][TK];
shared float bs[TK][TS];

void main()
{
   uint n = pc.n;
   uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
   uint row0 = gl_WorkGroupID.y * TS, col0 = gl_WorkGroupID.x * TS;
   float acc[4][4];
   for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
         acc[i][j] = 0.0;

   for (uint k0 = 0u; k0 < n; k0 += TK) {
      for (uint h = 0u; h < TK / 16u; h++) {
         for (uint i = 0u; i < 4u; i++) {
            as[ty + 16u * i][tx + 16u * h] = a[(row0 + ty + 16u * i) * n + k0 + tx + 16u * h];
            bs[ty + 16u * h][tx + 16u * i] = b[(k0 + ty + 16u * h) * n + col0 + tx + 16u * i];
         }
      }
      barrier();
      for (uint k = 0u; k < TK; k++) {
         float av[4], bv[4];
         for (int i = 0; i < 4; i++)
            av[i] = as[ty + 16u * uint(i)][k];
         for (int j = 0; j < 4; j++)
            bv[j] = bs[k][tx + 16u * uint(j)];
         for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
               acc[i][j] = fma(av[i], bv[j], acc[i][j]);
      }
      barrier();
   }
   for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++)
         c[(row0 + ty + 16u * uint(i)) * n + col0 + tx + 16u * uint(j)] = acc[i][j];
}
