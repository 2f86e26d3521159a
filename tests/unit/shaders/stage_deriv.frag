#version 450
// Derivatives (fine, coarse, plain, fwidth, of a uniform value) and
// implicit-LOD sampling (texture with and without bias, textureProj, depth
// comparisons with an offset and a projection).
#extension GL_ARB_derivative_control : require
layout(location = 0) in float v_val;
layout(location = 1) noperspective in vec2 v_uv;

layout(location = 0) out vec4 o_deriv;
layout(location = 1) out vec4 o_width;
layout(location = 2) out vec4 o_tex;
layout(location = 3) out vec4 o_bias;
layout(location = 4) out vec4 o_proj;
layout(location = 5) out float o_uni;
layout(location = 6) out vec4 o_shadow;

layout(set = 0, binding = 1) uniform sampler2D tex;
layout(set = 0, binding = 3) uniform sampler2DShadow shadow;
layout(push_constant) uniform P { float k; } pc;

void main()
{
   float s = v_val * v_val;
   o_deriv = vec4(dFdxFine(s), dFdyFine(s), dFdxCoarse(s), dFdyCoarse(s));
   o_width = vec4(dFdx(s), dFdy(s), fwidth(s), fwidthCoarse(s));
   o_tex = texture(tex, v_uv);
   o_bias = texture(tex, v_uv, 2.0);
   o_proj = textureProj(tex, vec3(v_uv * 2.0, 2.0));
   o_uni = dFdx(pc.k) + 3.0 * dFdy(pc.k) + 1.0;
   o_shadow = vec4(texture(shadow, vec3(v_uv, 0.5)),
                   textureOffset(shadow, vec3(v_uv, 0.5), ivec2(3, 0)),
                   textureProj(shadow, vec4(v_uv * 2.0, 1.0, 2.0)), 0.0);
}
