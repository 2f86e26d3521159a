#version 450
// Scene (c): a textured torus; normals rotated by the model matrix.
layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec2 in_uv;
layout(push_constant) uniform Push {
   mat4 mvp;
   mat4 model;
} pc;
layout(location = 0) out vec3 out_normal;
layout(location = 1) out vec2 out_uv;

void main()
{
   gl_Position = pc.mvp * vec4(in_pos, 1.0);
   out_normal = mat3(pc.model) * in_normal;
   out_uv = in_uv;
}
