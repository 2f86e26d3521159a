#version 450
// Discards every pixel whose x + y is a multiple of 3.
layout(location = 0) out vec4 o;
void main()
{
   if (((int(gl_FragCoord.x) + int(gl_FragCoord.y)) % 3) == 0)
      discard;
   o = vec4(1.0, 2.0, 3.0, 4.0);
}
