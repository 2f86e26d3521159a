#version 450
// Tessellation tests: the domain, spacing, order and point mode come from
// the build (-DDOMAIN=triangles|quads|isolines, -DSPACING=..., -DORDER=cw|ccw,
// -DPOINTS to add point_mode, -DPSIZE=s to write PointSize s). Triangles:
// u P0 + v P1 + w P2; quads and isolines: bilinear over P0 P1 (v = 0) and
// P3 P2 (v = 1). The colour is (u, v, the patch colour's blue, 1).
#ifdef POINTS
layout(DOMAIN, SPACING, ORDER, point_mode) in;
#else
layout(DOMAIN, SPACING, ORDER) in;
#endif
layout(location = 1) patch in vec4 p_color;
layout(location = 0) out vec4 t_color;
void main()
{
   vec3 c = gl_TessCoord;
#ifdef TRI
   gl_Position = c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position +
                 c.z * gl_in[2].gl_Position;
#else
   vec4 a = mix(gl_in[0].gl_Position, gl_in[1].gl_Position, c.x);
   vec4 b = mix(gl_in[3].gl_Position, gl_in[2].gl_Position, c.x);
   gl_Position = mix(a, b, c.y);
#endif
   t_color = vec4(c.x, c.y, p_color.b, 1.0);
#ifdef PSIZE
   gl_PointSize = PSIZE;   // shaderTessellationAndGeometryPointSize
#endif
}
