#version 450
// test_zink_provoking.c: the provoking vertex's index + 1 (0 is the clear value).
layout(location = 0) flat in uint v;
layout(location = 0) out uint o;
void main()
{
   o = v + 1u;
}
