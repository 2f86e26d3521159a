#version 450
// A tessellation control shader of 20 invocations (unit/tess_stages): more
// than one subgroup at every width (20 > 16), so its
// barrier suspends and resumes subgroups; after it, invocations read what
// the others wrote (per-vertex outputs) and invocation 0 writes the patch's.
layout(vertices = 20) out;
layout(location = 0) in vec4 v_in[];
layout(location = 0) out vec4 v_out[];
layout(location = 1) out uint v_next[];
layout(location = 3) patch out vec4 p_sum;
void main()
{
   int i = gl_InvocationID;
   int src = i % gl_PatchVerticesIn;
   gl_out[gl_InvocationID].gl_Position = gl_in[src].gl_Position + vec4(float(i));
   v_out[gl_InvocationID] = v_in[src] * 2.0 + vec4(float(gl_PrimitiveID));
   barrier();
   v_next[gl_InvocationID] = floatBitsToUint(v_out[(i + 1) % 20].x);
   if (i == 0) {
      vec4 s = vec4(0.0);
      for (int k = 0; k < 20; k++)
         s += v_out[k];
      p_sum = s;
      gl_TessLevelOuter[0] = 1.0;
      gl_TessLevelOuter[1] = 2.0;
      gl_TessLevelOuter[2] = 3.0;
      gl_TessLevelOuter[3] = 4.0;
      gl_TessLevelInner[0] = 5.0;
      gl_TessLevelInner[1] = 6.0;
   }
}
