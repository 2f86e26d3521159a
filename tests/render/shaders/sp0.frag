#version 450
// Subpass 0: two position-dependent colours.
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
void main()
{
   o0 = vec4(gl_FragCoord.xy, 1.0, 2.0);
   o1 = vec4(gl_FragCoord.y * 3.0, gl_FragCoord.x, 5.0, 7.0);
}
