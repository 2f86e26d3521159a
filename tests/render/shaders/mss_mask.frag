#version 450
// Covers only the samples in pc.mask (stencil writes per sample).
layout(push_constant) uniform PC { int mask; } pc;
void main() { gl_SampleMask[0] = pc.mask; }
