#version 450
// test_xfb64.c: reads every output of xfb64.geom (times 0: the colour is
// constant), so none goes unconsumed.
layout(location = 0) flat in dvec2 g;
layout(location = 1) flat in uint gtag;
layout(location = 2) flat in double gd[2];
layout(location = 0) out vec4 color;
void main()
{
   double sum = g.x + g.y + gd[0] + gd[1] + double(gtag);
   color = vec4(0.0, 1.0, 0.0, 1.0) + 0.0 * vec4(float(sum));
}
