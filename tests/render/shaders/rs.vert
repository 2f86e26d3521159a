#version 450
// Raster-state scenes: a position and a colour per vertex, an offset per
// instance, point size and a per-instance x step from push constants.
layout(location = 0) in vec4 pos;
layout(location = 1) in vec4 color;
layout(location = 2) in vec4 offset;
layout(location = 0) out vec4 v_smooth;
layout(location = 1) flat out vec4 v_flat;
layout(push_constant) uniform P { float point_size; float instance_dx; } p;
void main()
{
   gl_Position = pos + offset + vec4(p.instance_dx * float(gl_InstanceIndex), 0.0, 0.0, 0.0);
   gl_PointSize = p.point_size;
   v_smooth = color;
   v_flat = color;
}
