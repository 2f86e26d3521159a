#version 450
// Scene (a): a height-field sheet per instance, lit per vertex
// (ambient + diffuse + Blinn-Phong specular), colour interpolated.
layout(location = 0) in vec3 in_pos;
layout(location = 1) in vec3 in_normal;
layout(push_constant) uniform Push {
   mat4 mvp;
   vec4 light;   // xyz: direction to the light (normalized), w: per-instance depth step
} pc;
layout(location = 0) out vec3 out_color;

void main()
{
   float inst = float(gl_InstanceIndex);
   vec3 p = in_pos + vec3(0.013 * inst, -0.011 * inst, pc.light.w * inst);
   gl_Position = pc.mvp * vec4(p, 1.0);
   vec3 n = normalize(in_normal);
   vec3 l = pc.light.xyz;
   vec3 h = normalize(l + vec3(0.0, 0.0, 1.0));
   float diffuse = max(dot(n, l), 0.0);
   float specular = pow(max(dot(n, h), 0.0), 24.0);
   vec3 base = vec3(0.35 + 0.15 * inst, 0.6, 0.9 - 0.15 * inst);
   out_color = base * (0.15 + 0.85 * diffuse) + vec3(0.6 * specular);
}
