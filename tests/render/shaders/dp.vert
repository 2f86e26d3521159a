#version 450
// Shader draw parameters (render/draw_params): every vertex invocation
// records VertexIndex, InstanceIndex, BaseVertex, BaseInstance and DrawIndex
// in a slot made of the draw (push constant group + DrawIndex), the
// instance within the draw and the vertex within it (or the index read),
// so a wrong base value also lands in the wrong slot. The triangles lie
// outside the clip volume: nothing is rasterized.
#extension GL_ARB_shader_draw_parameters : require
layout(push_constant) uniform PC { uint group; } pc;
layout(std430, set = 0, binding = 0) buffer B { uvec4 rec[256]; uint did[256]; } b;
void main()
{
   uint slot = (pc.group + uint(gl_DrawIDARB)) * 32u + uint(gl_InstanceIndex - gl_BaseInstanceARB) * 8u +
               uint(gl_VertexIndex - gl_BaseVertexARB);
   if (slot < 256u) {
      b.rec[slot] = uvec4(gl_VertexIndex, gl_InstanceIndex, gl_BaseVertexARB, gl_BaseInstanceARB);
      b.did[slot] = uint(gl_DrawIDARB) + 1u;
   }
   gl_Position = vec4(4.0, 4.0, 0.5, 1.0);
}
