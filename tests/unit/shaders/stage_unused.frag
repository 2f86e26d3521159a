#version 450
// Declared inputs and outputs the shader never touches: not read, not written.
layout(location = 0) in vec4 a;
layout(location = 1) in vec4 unused_in;
layout(location = 0) out vec4 o;
layout(location = 1) out vec4 unused_out;
void main() { o = a; }
