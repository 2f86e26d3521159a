#version 450
// Per sample (reads SampleId): the pixel, the sample and its position in the
// colour; a depth that names pixel and sample (exact in D32_SFLOAT).
layout(location = 0) out vec4 o;
void main()
{
   vec2 p = floor(gl_FragCoord.xy);
   o = vec4(p.x, p.y, float(gl_SampleID), gl_SamplePosition.x + 2.0 * gl_SamplePosition.y);
   gl_FragDepth = (float(gl_SampleID) * 64.0 + p.x + p.y * 8.0) / 1024.0;
}
