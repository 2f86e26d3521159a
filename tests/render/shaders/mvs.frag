#version 450
#extension GL_EXT_multiview : require
// Multiview (render/multiview): the earlier stages' codes in red, green
// and blue; 40 + 8 x the vertex shader's ViewIndex + this stage's in alpha.
layout(location = 0) flat in uvec4 c;
layout(location = 0) out vec4 o;
void main()
{
   o = vec4(float(c.x), float(c.y), float(c.z), float(40u + 8u * c.w + gl_ViewIndex)) / 255.0;
}
