#version 450
// 64-bit inputs: dvec3 takes Locations 0-1, each dmat2x3 column two more
// (2-3, 4-5).
layout(location = 0) in dvec3 d;
layout(location = 2) in dmat2x3 m;
layout(location = 0) out float v;
void main()
{
   v = float(d.z + m[1].z);
}
