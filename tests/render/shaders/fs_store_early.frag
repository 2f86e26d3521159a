#version 450
// Storage writes and atomics after early fragment tests.
layout(early_fragment_tests) in;
layout(set = 0, binding = 0) buffer B { uint frags; uint verts; uint vtx[4]; uint px[256]; } b;
layout(location = 0) out vec4 o;
void main()
{
   atomicAdd(b.frags, 1u);
   uint x = uint(gl_FragCoord.x), y = uint(gl_FragCoord.y);
   b.px[y * 16u + x] = x * 100u + y + 1u;
   o = vec4(1.0);
}
