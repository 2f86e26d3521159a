#version 450
// A triangle from push constants (clip coordinates, any w) with one value
// per vertex, passed with every interpolation qualifier.
layout(push_constant) uniform PC { vec4 pos[3]; vec4 value; } pc;
layout(location = 0) smooth out float v_smooth;
layout(location = 1) noperspective out float v_noperspective;
layout(location = 2) flat out float v_flat;
layout(location = 3) centroid out float v_centroid;
void main()
{
   gl_Position = pc.pos[gl_VertexIndex];
   float v = pc.value[gl_VertexIndex];
   v_smooth = v;
   v_noperspective = v;
   v_flat = v;
   v_centroid = v;
}
