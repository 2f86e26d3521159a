#version 450
// Every 32-bit transcendental of GLSL.std.450, per lane (x, y from the input)
// and uniform (x, y from element 0, the same for the whole subgroup).
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer I { vec2 a[]; };
layout(std430, binding = 1) writeonly buffer O { float o[]; };
layout(std430, binding = 2) writeonly buffer U { float u[18]; };

void eval(float x, float y, out float r[18])
{
   r[0] = sin(x);
   r[1] = cos(x);
   r[2] = tan(x);
   r[3] = asin(x);
   r[4] = acos(x);
   r[5] = atan(x);
   r[6] = atan(x, y);
   r[7] = sinh(x);
   r[8] = cosh(x);
   r[9] = tanh(x);
   r[10] = asinh(x);
   r[11] = acosh(x);
   r[12] = atanh(x);
   r[13] = exp(x);
   r[14] = exp2(x);
   r[15] = log(x);
   r[16] = log2(x);
   r[17] = pow(abs(x), y);
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   float r[18];
   eval(a[i].x, a[i].y, r);
   for (int k = 0; k < 18; k++)
      o[i * 18u + uint(k)] = r[k];
   if (i == 0u) {
      eval(a[0].x, a[0].y, r);
      for (int k = 0; k < 18; k++)
         u[k] = r[k];
   }
}
