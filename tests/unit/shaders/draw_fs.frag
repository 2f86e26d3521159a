#version 450
// unit/draw: the interpolated colour; fragments whose alpha is below the
// push constant are discarded.
layout(location = 0) in vec4 v_color;
layout(location = 0) out vec4 o_color;
layout(push_constant) uniform P { float discard_below; } pc;

void main()
{
   if (v_color.a < pc.discard_below)
      discard;
   o_color = v_color;
}
