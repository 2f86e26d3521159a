#version 450
// A tessellation evaluation shader (unit/tess_stages): TessCoord per lane,
// the patch's per-vertex and patch inputs and its levels the same for all.
layout(triangles, fractional_odd_spacing, cw) in;
layout(location = 0) in vec4 v_val[];
layout(location = 3) patch in vec4 p_sum;
layout(location = 0) out vec4 color;
layout(location = 1) flat out ivec2 ids;
void main()
{
   vec3 c = gl_TessCoord;
   gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position +
                 c.z * gl_in[2].gl_Position;
   color = v_val[gl_PatchVerticesIn - 1] * c.x + p_sum +
           vec4(gl_TessLevelOuter[1], gl_TessLevelInner[0], gl_TessLevelOuter[3], c.y);
   ids = ivec2(gl_PrimitiveID, gl_PatchVerticesIn);
}
