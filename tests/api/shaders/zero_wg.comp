#version 450
// api/zero_workgroup: Workgroup variables with null initializers
// (shaderZeroInitializeWorkgroupMemory): every invocation of a 64-wide
// workgroup first reads an array element another invocation writes later,
// and the members of a struct, all of which must be zero; after a barrier
// it writes over them, so the next workgroup on the same thread would see
// those values if the memory were not zeroed again for each workgroup.
#extension GL_EXT_null_initializer : require
layout(local_size_x = 64) in;
struct S { uint a; float b[3]; uvec2 c; };
shared uint s[64] = {};
shared S st = {};
layout(std430, binding = 0) writeonly buffer O { uint o[]; };
void main()
{
   uint l = gl_LocalInvocationID.x;
   uint g = gl_WorkGroupID.x * 64u + l;
   o[2u * g] = s[(l + 17u) & 63u] | st.a | floatBitsToUint(st.b[l % 3u]) | st.c.x | st.c.y;
   barrier();
   s[l] = g + 1u;
   if (l == 5u) {
      st.a = 7u;
      st.b[0] = 1.0;
      st.b[1] = 2.0;
      st.b[2] = 3.0;
      st.c = uvec2(9u);
   }
   barrier();
   o[2u * g + 1u] = s[(l + 17u) & 63u] + st.a;
}
