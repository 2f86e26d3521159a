#version 450
// test_feedback_loop.c: a rectangle over the columns pc.x0..pc.x1 (NDC) and
// the whole height, as a 4-vertex strip.
layout(push_constant) uniform PC { vec2 x; int mode; } pc;
void main()
{
   gl_Position = vec4((gl_VertexIndex & 1) != 0 ? pc.x.y : pc.x.x,
                      (gl_VertexIndex & 2) != 0 ? 1.0 : -1.0, 0.5, 1.0);
}
