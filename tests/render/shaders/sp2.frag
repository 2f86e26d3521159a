#version 450
// Subpass 2: subpass 1's output minus subpass 0's second output (preserved
// through subpass 1).
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput a;
layout(input_attachment_index = 1, set = 0, binding = 1) uniform subpassInput b;
layout(location = 0) out vec4 o;
void main() { o = subpassLoad(a) - subpassLoad(b); }
