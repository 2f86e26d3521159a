#version 450
#extension GL_EXT_multiview : require
// Reads the earlier subpass's pixel of this view's layer; alpha: the view + 1.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput inp;
layout(location = 0) flat in uvec4 v_in;   // w is 0
layout(location = 0) out vec4 o;
void main()
{
   vec4 c = subpassLoad(inp);
   o = vec4(c.rgb, float(gl_ViewIndex + 1u + v_in.w) / 255.0);
}
