#version 450
// The demo's mesh: position, normal and texture coordinates; lit in the
// fragment shader.
layout(push_constant) uniform PC {
   mat4 mvp;
   mat4 model;
} pc;
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;
layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec2 v_uv;
layout(location = 2) out vec3 v_world;
void main()
{
   gl_Position = pc.mvp * vec4(a_pos, 1.0);
   v_normal = mat3(pc.model) * a_normal;
   v_uv = a_uv;
   v_world = (pc.model * vec4(a_pos, 1.0)).xyz;
}
