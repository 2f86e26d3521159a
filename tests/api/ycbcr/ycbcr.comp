#version 450
// Sampling kernel of the Y'CbCr tests: invocation i runs query q[i] on the
// combined image sampler at binding 0 (an immutable sampler with a Y'CbCr
// conversion, or a plain sampler on a view of one plane): textureLod
// (op 0) or textureGrad (op 1), and writes r[i].
layout(local_size_x = 64) in;

struct Query {
   vec2 st;
   float lod;
   int op;
   vec2 dx;
   vec2 dy;
};

layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, std430) readonly buffer In { Query q[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Out { vec4 r[]; };
layout(push_constant) uniform Push { uint count; } pc;

void main()
{
   uint i = gl_GlobalInvocationID.x;
   if (i >= pc.count)
      return;
   if (q[i].op == 0)
      r[i] = textureLod(tex, q[i].st, q[i].lod);
   else
      r[i] = textureGrad(tex, q[i].st, q[i].dx, q[i].dy);
}
