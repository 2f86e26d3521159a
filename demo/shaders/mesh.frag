#version 450
// Texture (implicit LOD, trilinear) times diffuse + ambient light, plus a
// specular highlight.
layout(set = 0, binding = 0) uniform sampler2D u_tex;
layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec2 v_uv;
layout(location = 2) in vec3 v_world;
layout(location = 0) out vec4 o_color;
void main()
{
   vec3 n = normalize(v_normal);
   vec3 l = normalize(vec3(-0.3, 0.6, -0.75));
   vec3 v = normalize(vec3(0.0, 0.0, -4.0) - v_world);
   vec3 h = normalize(l + v);
   float diffuse = max(dot(n, l), 0.0);
   float spec = pow(max(dot(n, h), 0.0), 32.0);
   vec3 albedo = texture(u_tex, v_uv).rgb;
   o_color = vec4(albedo * (0.2 + 0.8 * diffuse) + vec3(0.35 * spec), 1.0);
}
