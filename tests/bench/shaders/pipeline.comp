#version 450
// A nontrivial kernel whose pipeline creation is timed: a particle step with
// shared-memory tiles and barriers (softened gravity over every particle),
// transcendental functions, integer hashing, a switch, nested loops, a
// helper function and atomics. SEED is a specialization constant folded
// into the code, so each value is a different pipeline to every cache.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint SEED = 1u;
layout(push_constant) uniform Params { uint n; float dt; } pc;
layout(std430, set = 0, binding = 0) readonly buffer In { vec4 pos_in[]; };
layout(std430, set = 0, binding = 1) buffer Vel { vec4 vel[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { vec4 pos_out[]; };
layout(std430, set = 0, binding = 3) buffer Stats { uint histogram[16]; uint collisions; };
shared vec4 tile[64];

uint hash(uint x)
{
   x ^= x >> 16;
   x *= 0x7feb352du ^ SEED;
   x ^= x >> 15;
   x *= 0x846ca68bu + SEED * 2u;
   x ^= x >> 16;
   return x;
}

vec3 jitter(uint i, uint step)
{
   uint h = hash(i * 747796405u + step + SEED);
   vec3 r = vec3(h & 1023u, (h >> 10) & 1023u, (h >> 20) & 1023u) / 1023.0 - 0.5;
   vec3 j;
   switch ((h ^ SEED) & 3u) {
   case 0u: j = r * 0.001; break;
   case 1u: j = vec3(sin(r.x), cos(r.y), tanh(r.z)) * 0.002; break;
   case 2u: j = normalize(r + vec3(1e-3)) * 0.0005; break;
   default: j = vec3(0.0); break;
   }
   return j;
}

void main()
{
   uint i = gl_GlobalInvocationID.x;
   uint l = gl_LocalInvocationID.x;
   vec4 p = i < pc.n ? pos_in[i] : vec4(0.0);
   vec3 force = vec3(0.0);
   uint near = 0u;
   for (uint base = 0u; base < pc.n; base += 64u) {
      uint j = base + l;
      tile[l] = j < pc.n ? pos_in[j] : vec4(0.0);
      barrier();
      for (uint k = 0u; k < 64u && base + k < pc.n; k++) {
         vec3 d = tile[k].xyz - p.xyz;
         float r2 = dot(d, d) + 0.01 * float(SEED % 7u + 1u);
         float inv = inversesqrt(r2);
         force += d * (tile[k].w * inv * inv * inv);
         if (r2 < 0.02 && base + k != i)
            near++;
      }
      barrier();
   }
   if (i >= pc.n)
      return;
   vec4 v = vel[i];
   v.xyz = v.xyz * exp(-0.1 * pc.dt) + force * pc.dt + jitter(i, uint(v.w));
   v.w += 1.0;
   vel[i] = v;
   vec3 np = p.xyz + v.xyz * pc.dt;
   np = clamp(np, vec3(-10.0), vec3(10.0));
   pos_out[i] = vec4(np, p.w);
   float speed = length(v.xyz);
   uint bin = min(uint(log2(1.0 + speed * 100.0) * 2.0), 15u);
   atomicAdd(histogram[bin], 1u);
   if (near > 0u)
      atomicAdd(collisions, near);
}
