#version 450
// Scene (c): per-pixel diffuse + ambient lighting of a sampled texture.
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(location = 0) in vec3 in_normal;
layout(location = 1) in vec2 in_uv;
layout(location = 0) out vec4 out_color;

void main()
{
   vec3 n = normalize(in_normal);
   float diffuse = max(dot(n, normalize(vec3(0.4, 0.5, 0.75))), 0.0);
   out_color = vec4(texture(tex, in_uv).rgb * (0.2 + 0.8 * diffuse), 1.0);
}
