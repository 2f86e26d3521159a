#version 450
// Vertex stage test: inputs of every shape (vectors, integers, a Component,
// a matrix), outputs of every kind (arrays indexed at run time, a matrix, a
// block, a Component), built-ins, clip and cull distances, and stores and
// atomics that lanes without a vertex must not do.
#extension GL_ARB_shader_draw_parameters : require
layout(location = 0) in vec4 a_pos;
layout(location = 1) in ivec2 a_i;
layout(location = 2) in uvec3 a_u;
layout(location = 3, component = 1) in float a_f;
layout(location = 4) in mat2 a_m;

layout(location = 0) out vec4 o_color;
layout(location = 1) flat out ivec2 o_i;
layout(location = 2) out float o_arr[2];
layout(location = 4) out mat2 o_m;
layout(location = 6) out Blk { vec3 a; uint b; } o_blk;
layout(location = 8, component = 2) out float o_c;
layout(location = 9) flat out uvec4 o_ids;

layout(set = 0, binding = 0) buffer B { uint counter; uint seen[]; };
layout(push_constant) uniform P { float scale; int sel; } pc;

out gl_PerVertex {
   vec4 gl_Position;
   float gl_PointSize;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
};

void main()
{
   gl_Position = a_pos * pc.scale + vec4(float(gl_VertexIndex), float(gl_InstanceIndex), 0.0, 0.0);
   gl_PointSize = a_f + 1.0;
   gl_ClipDistance[0] = a_pos.x;
   gl_ClipDistance[1] = -a_pos.y;
   gl_CullDistance[0] = float(a_i.x);
   o_color = vec4(vec3(a_u), 1.0) * 0.5;
   o_i = a_i * 3;
   o_arr[pc.sel & 1] = a_f;
   o_arr[(pc.sel + 1) & 1] = a_f * 2.0;
   o_m = a_m * 2.0;
   o_blk.a = a_pos.xyz + 1.0;
   o_blk.b = a_u.z + 7u;
   o_c = float(gl_VertexIndex) * 0.25;
   o_ids = uvec4(gl_BaseVertexARB, gl_BaseInstanceARB, gl_DrawIDARB, gl_VertexIndex);
   if (a_i.y > 0) {
      seen[gl_VertexIndex] = uint(gl_InstanceIndex) + 1u;
      atomicAdd(counter, 1u);
   }
}
