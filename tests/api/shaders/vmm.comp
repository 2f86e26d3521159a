#version 450
// api/memory_model: the Vulkan memory model (vulkanMemoryModel,
// vulkanMemoryModelDeviceScope). Each workgroup of 64 sums its 64 inputs
// through shared memory (a workgroup-scope control barrier with
// acquire-release, make-available and make-visible semantics), invocation 0
// stores the sum (device-coherent: NonPrivate, MakePointerAvailable) and
// takes a ticket with a device-scope acquire-release atomic add; the
// workgroup that takes the last ticket reads every workgroup's sum
// (MakePointerVisible; the buffer is also volatile: Volatile loads and
// stores) and writes the total, its id and a check of each sum.
#pragma use_vulkan_memory_model
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { uint data[]; };
layout(std430, binding = 1) devicecoherent volatile buffer Part { uint partial[]; };
layout(std430, binding = 2) buffer Ctl { uint counter; uint total; uint last; uint seen; };
shared uint sh[64];

void main()
{
   uint l = gl_LocalInvocationID.x, g = gl_WorkGroupID.x;
   sh[l] = data[g * 64u + l];
   controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared,
                  gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
   if (l != 0u)
      return;
   uint s = 0u;
   for (uint i = 0u; i < 64u; i++)
      s += sh[(i + g) & 63u];
   partial[g] = s;
   uint ticket = atomicAdd(counter, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                           gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable |
                              gl_SemanticsMakeVisible);
   if (ticket == gl_NumWorkGroups.x - 1u) {
      uint t = 0u, nonzero = 0u;
      for (uint i = 0u; i < gl_NumWorkGroups.x; i++) {
         uint p = partial[i];
         t += p;
         nonzero += p != 0u ? 1u : 0u;
      }
      total = t;
      last = g;
      seen = nonzero;
   }
}
