#version 450
// A tessellation control shader at the highest Locations the reported limits
// allow (unit/tess_stages): 64 per-vertex input and output components are
// Locations 0-15, 120 per-patch components Locations 0-29.
layout(vertices = 4) out;
layout(location = 15) in vec4 v_hi[];
layout(location = 15) out vec4 o_hi[];
layout(location = 29) patch out vec4 p_hi;
void main()
{
   int i = gl_InvocationID;
   o_hi[gl_InvocationID] = v_hi[i] * 3.0 + vec4(float(i));
   if (i == 0) {
      p_hi = v_hi[0] + v_hi[gl_PatchVerticesIn - 1];
      gl_TessLevelOuter[0] = 1.0;
      gl_TessLevelOuter[1] = 1.0;
      gl_TessLevelOuter[2] = 1.0;
      gl_TessLevelOuter[3] = 1.0;
      gl_TessLevelInner[0] = 1.0;
      gl_TessLevelInner[1] = 1.0;
   }
}
