#version 450
// Fragment stage test: smooth, noperspective and flat inputs (Components,
// integers), FragCoord, FrontFacing, colour outputs of every type, discard,
// and buffer writes that helper and discarded lanes must not do.
layout(location = 0) in vec4 v_smooth;
layout(location = 1) noperspective in vec2 v_noper;
layout(location = 1, component = 2) flat in ivec2 v_flat;
layout(location = 2) flat in uint v_u;

layout(location = 0) out vec4 o_color;
layout(location = 1) out ivec4 o_int;
layout(location = 2) out uvec2 o_uint;
layout(location = 3) out vec4 o_coord;
layout(location = 4) out vec2 o_noper;

layout(set = 0, binding = 0) buffer B { uint counter; uint written[]; };
layout(push_constant) uniform P { float discard_below; } pc;

void main()
{
   if (v_smooth.x < pc.discard_below)
      discard;
   o_color = v_smooth;
   o_int = ivec4(v_flat, gl_FrontFacing ? 1 : 0, -7);
   o_uint = uvec2(v_u, 12345u);
   o_coord = gl_FragCoord;
   o_noper = v_noper;
   written[int(gl_FragCoord.y) * 16 + int(gl_FragCoord.x)] = 1u;
   atomicAdd(counter, 1u);
}
