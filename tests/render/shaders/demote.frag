#version 450
// render/demote_terminate: whole 2x2 quads whose (qx + qy) % 3 == 0 end with
// terminateInvocation; in quads with (qx + qy) % 3 == 1 the pixels with
// x & 1 == y & 1 are demoted (demote): they write nothing but go on as
// helpers, so their quad neighbours' fine derivatives of x^2 and y^2 stay
// exact; every written pixel records helperInvocationEXT() (0: it is not a
// helper). A debugPrintfEXT call brings a NonSemantic.DebugPrintf
// instruction (VK_KHR_shader_non_semantic_info), which changes nothing.
#extension GL_EXT_demote_to_helper_invocation : require
#extension GL_EXT_terminate_invocation : require
#extension GL_EXT_debug_printf : require
layout(location = 0) out vec4 o;
void main()
{
   ivec2 p = ivec2(gl_FragCoord.xy);
   ivec2 q = p >> 1;
   int k = (q.x + q.y) % 3;
   if (k == 0)
      terminateInvocation;
   if (k == 1 && (p.x & 1) == (p.y & 1))
      demote;
   float x2 = gl_FragCoord.x * gl_FragCoord.x, y2 = gl_FragCoord.y * gl_FragCoord.y;
   float dx = dFdxFine(x2), dy = dFdyFine(y2);
   if (p.x == 3 && p.y == 5)
      debugPrintfEXT("pixel %d %d\n", p.x, p.y);
   o = vec4(dx, dy, helperInvocationEXT() ? 1.0 : 0.0, 1.0);
}
