#version 450
// Counts the covered samples of each fragment (no attachments).
layout(set = 0, binding = 0) buffer B { uint samples; uint fragments; } b;
void main()
{
   atomicAdd(b.samples, uint(bitCount(gl_SampleMaskIn[0])));
   atomicAdd(b.fragments, 1u);
}
