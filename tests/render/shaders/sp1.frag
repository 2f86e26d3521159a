#version 450
// Subpass 1: reads subpass 0's first output as an input attachment.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput a;
layout(location = 0) out vec4 o;
void main() { o = subpassLoad(a) * 2.0 + vec4(1.0); }
