#version 450
// Every sample of this pixel of a 4-sample input attachment, into a buffer.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInputMS inp;
layout(set = 0, binding = 1, std430) buffer Out { vec4 v[]; } outb;
layout(push_constant) uniform PC { int width; } pc;
void main()
{
   ivec2 p = ivec2(gl_FragCoord.xy);
   for (int s = 0; s < 4; s++)
      outb.v[(p.y * pc.width + p.x) * 4 + s] = subpassLoad(inp, s);
}
