#version 450
#extension GL_EXT_multiview : require
// The vertex shader's ViewIndex, this stage's ViewIndex + 64, the instance
// index's low byte and bits 20-27, as UNORM8 codes.
layout(location = 0) flat in uvec4 v_in;
layout(location = 0) out vec4 o;
void main()
{
   o = vec4(float(v_in.x), float(gl_ViewIndex + 64u), float(v_in.y), float(v_in.z)) / 255.0;
}
