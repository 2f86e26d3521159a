#version 450
// Sample shading built-ins, centroid and sample inputs, PointCoord,
// PrimitiveId, Layer, HelperInvocation, FragDepth (with a depth mode) and
// the SampleMask input and output.
layout(location = 0) in vec4 v_a;
layout(location = 1) centroid in vec2 v_c;
layout(location = 1, component = 2) sample in float v_s;

layout(location = 0) out vec4 o_pos;
layout(location = 1) out vec4 o_c;
layout(location = 2) out ivec4 o_mask;
layout(location = 3) out vec4 o_a;
layout(depth_less) out float gl_FragDepth;

void main()
{
   o_pos = vec4(gl_SamplePosition, float(gl_SampleID), float(gl_PrimitiveID));
   o_c = vec4(v_c, v_s, gl_PointCoord.y);
   o_mask = ivec4(gl_SampleMaskIn[0], gl_Layer, gl_HelperInvocation ? 1 : 0, 0);
   o_a = vec4(v_a.xyz, gl_PointCoord.x);
   gl_FragDepth = v_a.x * 0.5;
   gl_SampleMask[0] = gl_SampleMaskIn[0] & 5;
}
