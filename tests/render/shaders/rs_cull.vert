#version 450
// Four clip and four cull distances (maxCombinedClipAndCullDistances 8):
// a primitive is culled when all its vertices have one cull distance < 0.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_smooth;
layout(location = 1) flat out vec4 v_flat;
out gl_PerVertex {
   vec4 gl_Position; float gl_PointSize; float gl_ClipDistance[4]; float gl_CullDistance[4];
};
void main()
{
   gl_Position = pos;
   gl_PointSize = 1.0;
   for (int i = 0; i < 4; i++) {
      gl_ClipDistance[i] = 0.9 + (i < 2 ? pos.x : pos.y) * (i % 2 == 0 ? 1.0 : -1.0);
      gl_CullDistance[i] = 0.3 + (i < 2 ? pos.y : pos.x) * (i % 2 == 0 ? 1.0 : -1.0);
   }
   v_smooth = color;
   v_flat = color;
}
