#version 450
// Demotion, helper queries, dual-source outputs, early fragment tests, and
// buffer and image writes that demoted and helper lanes must not do.
#extension GL_EXT_demote_to_helper_invocation : require
layout(early_fragment_tests) in;
layout(location = 0) in float v;

layout(location = 0, index = 0) out vec4 o0;
layout(location = 0, index = 1) out vec4 o1;

layout(set = 0, binding = 0) buffer B { uint counter; uint written[]; };
layout(set = 0, binding = 2, r32ui) uniform uimage2D img;
layout(push_constant) uniform P { float demote_below; } pc;

void main()
{
   if (v < pc.demote_below)
      demote;
   o0 = vec4(v, helperInvocationEXT() ? 1.0 : 0.0, gl_HelperInvocation ? 1.0 : 0.0, 1.0);
   o1 = vec4(dFdxFine(v), dFdyFine(v), 0.0, 2.0);
   atomicAdd(counter, 1u);
   imageStore(img, ivec2(gl_FragCoord.xy), uvec4(7u));
}
