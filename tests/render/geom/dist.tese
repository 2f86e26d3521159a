#version 450
// Clip and cull distances through tessellation (render/geometry_clip): the
// quad's position and distances interpolated from the control points'
// (bilinear, exact for these affine distances up to rounding). The
// position comes through dist.tesc's extra[] (a copy of gl_in[]'s).
layout(quads, equal_spacing, ccw) in;
in gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
} gl_in[gl_MaxPatchVertices];
layout(location = 0) in vec4 extra[];
out gl_PerVertex {
   vec4 gl_Position;
   float gl_ClipDistance[2];
   float gl_CullDistance[1];
};
void main()
{
   float u = gl_TessCoord.x, v = gl_TessCoord.y;
   gl_Position = mix(mix(extra[0], extra[1], u), mix(extra[3], extra[2], u), v);
   for (int i = 0; i < 2; i++)
      gl_ClipDistance[i] = mix(mix(gl_in[0].gl_ClipDistance[i], gl_in[1].gl_ClipDistance[i], u),
                               mix(gl_in[3].gl_ClipDistance[i], gl_in[2].gl_ClipDistance[i], u),
                               v);
   gl_CullDistance[0] = gl_in[0].gl_CullDistance[0];
}
