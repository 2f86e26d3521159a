#version 450
// Eight clip distances (maxClipDistances): half-planes through the target.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 color;
layout(location = 0) out vec4 v_smooth;
layout(location = 1) flat out vec4 v_flat;
out gl_PerVertex { vec4 gl_Position; float gl_PointSize; float gl_ClipDistance[8]; };
void main()
{
   gl_Position = pos;
   gl_PointSize = 1.0;
   for (int i = 0; i < 8; i++) {
      float a = float(i) * 0.785398;
      gl_ClipDistance[i] = 0.8 - (cos(a) * pos.x + sin(a) * pos.y) / pos.w;
   }
   v_smooth = color;
   v_flat = color;
}
