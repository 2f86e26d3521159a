#version 450
// ClipDistance and CullDistance read as fragment inputs; w: 1 when they
// equal the smooth varying carrying the same vertex values.
layout(location = 0) in vec3 v;
in float gl_ClipDistance[2];
in float gl_CullDistance[1];
layout(location = 0) out vec4 o;
void main()
{
   vec3 d = vec3(gl_ClipDistance[0], gl_ClipDistance[1], gl_CullDistance[0]);
   o = vec4(d, all(equal(d, v)) ? 1.0 : 0.0);
}
