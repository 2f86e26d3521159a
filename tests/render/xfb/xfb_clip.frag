#version 450
// test_xfb_clip.c: a colour from every input component.
layout(location = 0) in vec4 cap[16];
layout(location = 16) in vec4 pad[11];
layout(location = 0) out vec4 color;
void main()
{
   vec4 s = vec4(0.0);
   for (int i = 0; i < 16; i++)
      s += cap[i] / float(i + 1);
   for (int i = 0; i < 11; i++)
      s += pad[i].yxwz / float(i + 2);
   color = vec4(fract(s.xyz * vec3(0.37, 0.53, 0.71)), 1.0);
}
