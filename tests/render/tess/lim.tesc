#version 450
// Tessellation limits: 32 control points in and out (maxTessellationPatchSize),
// every input component of every input vertex read and checked (12 vec4
// and the position). Per-vertex and patch Locations share one space, and
// the validation layer (1.3.239) holds the Locations used, patch ones
// included, plus up to 13 components it counts for the gl_PerVertex
// built-ins, to the per-vertex limit, 64: by default 8 vec4 out per vertex
// at Locations 0-7 and 4 patch vec4 at 8-11; with -DPATCH_MAX no
// per-vertex user output and 12 patch vec4 at 0-11. A component that
// reads wrong writes -1 into the patch data.
#ifdef PATCH_MAX
#define NV 0
#define NP 12
#else
#define NV 8
#define NP 4
#endif
layout(vertices = 32) out;
layout(location = 0) in vec4 v_d[][12];
#if NV
layout(location = 0) out vec4 c_d[][NV];
#endif
layout(location = NV) patch out vec4 p_d[NP];
void main()
{
   int i = gl_InvocationID;
   bool ok = gl_in[i].gl_Position.w == 1.0;
   for (int v = 0; v < 32; v++)
      for (int k = 0; k < 12; k++)
         ok = ok && v_d[v][k] == vec4(float((gl_PrimitiveID * 32 + v) * 64 + k * 4)) +
                                 vec4(0, 1, 2, 3);
   gl_out[gl_InvocationID].gl_Position = gl_in[i].gl_Position;
#if NV
   for (int k = 0; k < NV; k++)
      c_d[gl_InvocationID][k] = vec4(float(i * 1000 + k * 4 + 7)) + vec4(0, 1, 2, 3);
#endif
   // Invocation i writes patch vector i: its own check in the x.
   if (i < NP)
      p_d[i] = vec4(ok ? float(5000 + i) : -1.0, float(i), float(2 * i), float(3 * i));
   if (i == 0) {
      gl_TessLevelOuter[0] = 2.0;
      gl_TessLevelOuter[1] = 2.0;
      gl_TessLevelOuter[2] = 2.0;
      gl_TessLevelOuter[3] = 2.0;
      gl_TessLevelInner[0] = 2.0;
      gl_TessLevelInner[1] = 2.0;
   }
}
