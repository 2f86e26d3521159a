#version 450
// unit/stages test_plane_sinking: a texture read at an interpolated
// coordinate, then two other interpolated inputs used only after it (as
// vkcube's shader does); their plane loads must be after the sampler call.
layout(location = 0) in vec2 v_uv;
layout(location = 1) in vec4 v_a;
layout(location = 2) noperspective in vec3 v_b;
layout(location = 0) out vec4 o_color;
layout(set = 0, binding = 1) uniform sampler2D tex;

void main()
{
   vec4 t = texture(tex, v_uv);
   o_color = t * v_a + vec4(v_b, 1.0);
}
