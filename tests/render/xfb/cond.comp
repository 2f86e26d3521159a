#version 450
// test_conditional.c: one invocation adds 1 to counter[idx].
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Counters { uint counter[]; };
layout(push_constant) uniform Push { uint idx; };
void main()
{
   counter[idx] += 1u;
}
