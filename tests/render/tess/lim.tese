#version 450
// Tessellation limits: reads every per-vertex input component of the 32
// vertices and every patch component (lim.tesc's layouts, -DPATCH_MAX the
// same), green where all are as written, red otherwise. Position:
// bilinear over vertices 0, 1, 2, 3.
#ifdef PATCH_MAX
#define NV 0
#define NP 12
#else
#define NV 8
#define NP 4
#endif
layout(quads, equal_spacing, ccw) in;
#if NV
layout(location = 0) in vec4 c_d[][NV];
#endif
layout(location = NV) patch in vec4 p_d[NP];
layout(location = 0) out vec4 t_color;
void main()
{
   bool ok = gl_PatchVerticesIn == 32;
#if NV
   for (int v = 0; v < 32; v++)
      for (int k = 0; k < NV; k++)
         ok = ok && c_d[v][k] == vec4(float(v * 1000 + k * 4 + 7)) + vec4(0, 1, 2, 3);
#endif
   for (int k = 0; k < NP; k++)
      ok = ok && p_d[k] == vec4(float(5000 + k), float(k), float(2 * k), float(3 * k));
   vec3 c = gl_TessCoord;
   vec4 a = mix(gl_in[0].gl_Position, gl_in[1].gl_Position, c.x);
   vec4 b = mix(gl_in[3].gl_Position, gl_in[2].gl_Position, c.x);
   gl_Position = mix(a, b, c.y);
   t_color = ok ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}
