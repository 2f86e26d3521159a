#version 450
// FragDepth from the window x.
layout(location = 0) out vec4 o;
void main()
{
   gl_FragDepth = gl_FragCoord.x / 16.0;
   o = vec4(1.0);
}
