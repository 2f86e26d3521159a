#version 450
// Tessellation tests: the outputs of init.tesc.spvasm (initialized control
// shader outputs) read back at every point. Green where every component is
// as expected, else red with one bit of blue per wrong input (the sums are
// exact in binary floating point).
layout(quads, equal_spacing, ccw) in;
layout(location = 0) in vec4 v_col[];
layout(location = 1) patch in vec4 p_init;
layout(location = 2) patch in vec4 p_sum;
layout(location = 0) out vec4 t_color;
void main()
{
   vec3 c = gl_TessCoord;
   vec4 a = mix(gl_in[0].gl_Position, gl_in[1].gl_Position, c.x);
   vec4 b = mix(gl_in[3].gl_Position, gl_in[2].gl_Position, c.x);
   gl_Position = mix(a, b, c.y);
   const vec4 a0 = vec4(0.125, 0.25, 0.375, 0.5), b1 = vec4(5.0, 6.0, 7.0, 8.0);
   int bad = 0;
   if (v_col[0] != a0)
      bad |= 1;
   if (v_col[1] != b1)
      bad |= 2;
   if (v_col[2] != vec4(-1.0, -2.0, -3.0, -4.0))
      bad |= 4;
   if (v_col[3] != vec4(0.5, 1.5, 2.5, 3.5))
      bad |= 8;
   if (p_init != vec4(0.25, 0.5, 0.75, 1.0))
      bad |= 16;
   if (p_sum != a0 + b1)
      bad |= 32;
   if (gl_in[0].gl_PointSize != 3.0)   // gl_out[]'s initializer, never stored
      bad |= 64;
   t_color = bad == 0 ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, float(bad) / 255.0, 1.0);
}
