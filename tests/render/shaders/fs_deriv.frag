#version 450
// Fine and coarse derivatives of x * y (window coordinates).
layout(location = 0) out vec4 o;
void main()
{
   float f = gl_FragCoord.x * gl_FragCoord.y;
   o = vec4(dFdxFine(f), dFdyFine(f), dFdxCoarse(f), dFdyCoarse(f));
}
