/* VK_EXT_shader_subgroup_vote and VK_EXT_shader_subgroup_ballot through the loader. */
/*
 * Shale must offer VK_EXT_shader_subgroup_vote; its shader (GLSL
 * GL_ARB_shader_group_vote, SPV_KHR_subgroup_vote) finds each invocation's
 * subgroup from the votes themselves and then votes on per-invocation
 * predicates, with every invocation active and in a divergent branch. The
 * references are computed here from the subgroups the shader found, after
 * checking that those partition the workgroup; nothing depends on the
 * subgroup size or layout. VK_EXT_shader_subgroup_ballot (GL_ARB_shader_ballot
 * needs shaderInt64) runs when the device offers both, likewise checked
 * against references built from the invocations' reported lanes. The same
 * work runs on lavapipe when present, as a check of the test itself.
 *
 * Shale's first code for a new pipeline (baseline code, with optimized code
 * compiled in the background) is scalar only for shaders without subgroups:
 * from its SHALE_DEBUG=info log, both shaders here must be refused scalar
 * code and start on vector baseline code (none of it with
 * SHALE_JIT_BASELINE=0).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "vkt.h"

#include "sg_ext_ballot_spv.h"
#include "sg_ext_vote_spv.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { LOCAL = 64, GROUPS = 6, N = LOCAL * GROUPS };

struct dev {
   struct vkt t;
   const char *name;
   bool vote, ballot;
   VkDescriptorPool pool;
};

static bool
dev_init(struct dev *d, enum vkt_driver driver)
{
   memset(d, 0, sizeof(*d));
   d->name = vkt_driver_name(driver);
   struct vkt_options probe = { .driver = driver, .no_validation = true };
   if (!vkt_init(&d->t, &probe))
      return false;
   VkPhysicalDeviceFeatures feats;
   vkGetPhysicalDeviceFeatures(d->t.pdev, &feats);
   d->vote = vkt_has_device_extension(d->t.pdev, VK_EXT_SHADER_SUBGROUP_VOTE_EXTENSION_NAME);
   bool has_ballot =
      vkt_has_device_extension(d->t.pdev, VK_EXT_SHADER_SUBGROUP_BALLOT_EXTENSION_NAME);
   vkt_finish(&d->t);

   const char *exts[2];
   uint32_t ne = 0;
   VkPhysicalDeviceFeatures want = { 0 };
   if (d->vote)
      exts[ne++] = VK_EXT_SHADER_SUBGROUP_VOTE_EXTENSION_NAME;
   d->ballot = has_ballot && feats.shaderInt64;
   if (d->ballot) {
      exts[ne++] = VK_EXT_SHADER_SUBGROUP_BALLOT_EXTENSION_NAME;
      want.shaderInt64 = VK_TRUE;
   }
   if (!has_ballot)
      fprintf(stderr, "%s: no VK_EXT_shader_subgroup_ballot: ballot part skipped\n", d->name);
   else if (!feats.shaderInt64)
      fprintf(stderr, "%s: no shaderInt64 (GL_ARB_shader_ballot needs it): ballot part "
              "skipped\n", d->name);
   struct vkt_options opts = {
      .driver = driver,
      .device_extensions = exts,
      .device_extension_count = ne,
      .features = &want,
   };
   if (!vkt_init(&d->t, &opts))
      return false;
   VkDescriptorPoolSize size = { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8 };
   VkResult r = vkt_descriptor_pool(&d->t, 4, &size, 1,
                                    VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, &d->pool);
   CHECK(r == VK_SUCCESS, "%s: vkCreateDescriptorPool: %d", d->name, r);
   return r == VK_SUCCESS;
}

static void
dev_finish(struct dev *d)
{
   if (d->pool)
      vkDestroyDescriptorPool(d->t.device, d->pool, NULL);
   vkt_finish(&d->t);
}

/* Runs a shader of two storage buffers (in: p[N], out: nout words per
 * invocation) over GROUPS workgroups. */
static bool
run(struct dev *d, const uint32_t *code, size_t size, const uint32_t *p, uint32_t *out,
    uint32_t nout)
{
   static const VkDescriptorSetLayoutBinding b[2] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   const struct vkt_kernel_info info = {
      .code = code,
      .code_size = size,
      .bindings = { b },
      .binding_counts = { 2 },
   };
   struct vkt_buffer bufs[2] = { { 0 } };
   struct vkt_kernel k = { 0 };
   VkDescriptorSet set = VK_NULL_HANDLE;
   bool ok = false;
   VkDeviceSize out_size = (VkDeviceSize)N * nout * 4;
   VkResult r = vkt_buffer_create(&d->t, N * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &bufs[0]);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&d->t, out_size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &bufs[1]);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", d->name, r);
   if (r != VK_SUCCESS)
      goto out;
   memcpy(bufs[0].map, p, N * 4);
   memset(bufs[1].map, 0xa5, out_size);
   r = vkt_kernel_create(&d->t, &info, &k);
   CHECK(r == VK_SUCCESS, "%s: kernel: %d", d->name, r);
   if (r == VK_SUCCESS)
      r = vkt_alloc_sets(&d->t, d->pool, k.set_layouts, 1, &set);
   if (r != VK_SUCCESS)
      goto out;
   const VkBuffer buffers[2] = { bufs[0].buffer, bufs[1].buffer };
   vkt_bind_buffers(&d->t, set, NULL, buffers, 2);
   r = vkt_dispatch(&d->t, &k, &set, 1, NULL, 0, GROUPS, 1, 1);
   CHECK(r == VK_SUCCESS, "%s: submit: %d", d->name, r);
   if (r == VK_SUCCESS) {
      memcpy(out, bufs[1].map, out_size);
      ok = true;
   }
out:
   if (set)
      vkFreeDescriptorSets(d->t.device, d->pool, 1, &set);
   vkt_kernel_destroy(&d->t, &k);
   for (int i = 0; i < 2; i++)
      vkt_buffer_destroy(&d->t, &bufs[i]);
   return ok;
}

/* run(), and on Shale the check of the code its new pipeline started on,
 * from the log of the pipeline's creation and dispatch. */
static bool
run_logged(struct dev *d, const char *what, const uint32_t *code, size_t size, const uint32_t *p,
           uint32_t *out, uint32_t nout)
{
   if (d->t.driver != VKT_SHALE)
      return run(d, code, size, p, out, nout);
   struct capture cap;
   capture_begin(&cap);
   bool ok = run(d, code, size, p, out, nout);
   char *log = capture_end(&cap);
   unsigned refused = count_of(log, "no scalar baseline code");
   /* The refusal is the compiler's "unsupported", not another failure. */
   unsigned unsupported = count_of(log, "no scalar baseline code (unsupported SPIR-V feature");
   unsigned vector = count_of(log, ", baseline code (optimized code follows)");
   unsigned scalar = count_of(log, "scalar baseline code (optimized code follows)");
   free(log);
   const char *env = getenv("SHALE_JIT_BASELINE");
   if (!(env && strcmp(env, "0") == 0))
      CHECK(refused == 1 && unsupported == 1 && vector == 1 && scalar == 0,
            "%s: %s: scalar code refused %u times (%u as unsupported), %u vector and %u scalar "
            "baseline compiles; expected the vector baseline", d->name, what, refused,
            unsupported, vector, scalar);
   else
      CHECK(refused == 0 && vector == 0 && scalar == 0,
            "%s: %s: SHALE_JIT_BASELINE=0: %u scalar refusals, %u vector and %u scalar baseline "
            "compiles", d->name, what, refused, vector, scalar);
   return ok;
}

static uint32_t rng_state = 0x5b6a11;

static uint32_t
rng(void)
{
   rng_state = rng_state * 1664525u + 1013904223u;
   return rng_state ^ (rng_state >> 15);
}

/* Predicate bits per invocation: each workgroup leans another way, so
 * that votes come out both true and false. */
static void
make_predicates(uint32_t *p)
{
   for (uint32_t g = 0; g < N; g++) {
      uint32_t wg = g / LOCAL, r = rng();
      switch (wg) {
      case 0: p[g] = ~0u; break;
      case 1: p[g] = 0; break;
      case 2: p[g] = r; break;
      case 3: p[g] = r | rng() | rng() | rng() | rng(); break;   /* mostly set */
      case 4: p[g] = r & rng() & rng() & rng() & rng(); break;   /* mostly clear */
      default: p[g] = (g % 7 == 0) ? 0 : ~0u; break;
      }
   }
}

static uint64_t
members_of(const uint32_t *o, uint32_t g, uint32_t stride)
{
   return o[g * stride] | (uint64_t)o[g * stride + 1] << 32;
}

static void
test_vote(struct dev *d)
{
   static uint32_t p[N], o[N * 8];
   make_predicates(p);
   if (!run_logged(d, "vote", sg_ext_vote_spv, sizeof(sg_ext_vote_spv), p, o, 8))
      return;
   int bad = 0;
   unsigned sizes = 0;
   for (uint32_t g = 0; g < N; g++) {
      uint32_t wg = g / LOCAL, li = g % LOCAL;
      uint64_t m = members_of(o, g, 8);
      /* The subgroups partition the workgroup. */
      bool part = (m >> li) & 1;
      for (uint32_t j = 0; j < LOCAL && part; j++)
         if ((m >> j) & 1)
            part = members_of(o, wg * LOCAL + j, 8) == m;
      if (!part) {
         if (bad++ < 8)
            CHECK(0, "%s: invocation %u found subgroup %#llx, not a partition", d->name, g,
                  (unsigned long long)m);
         continue;
      }
      sizes |= 1u << (__builtin_popcountll(m) & 31);
      bool all[2] = { true, true }, any[2] = { false, false }, eq[2] = { true, true };
      int first[2] = { -1, -1 };
      for (uint32_t j = 0; j < LOCAL; j++) {
         if (!((m >> j) & 1))
            continue;
         uint32_t v = p[wg * LOCAL + j];
         for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 && j % 3 == 0)
               continue;
            uint32_t s = pass * 3;
            all[pass] &= (v >> s) & 1;
            any[pass] |= (v >> (s + 1)) & 1;
            bool e = (v >> (s + 2)) & 1;
            if (first[pass] < 0)
               first[pass] = e;
            eq[pass] &= e == (bool)first[pass];
         }
      }
      uint32_t want[8] = { o[g * 8], o[g * 8 + 1], all[0], any[0], eq[0], all[1], any[1], eq[1] };
      bool inactive = li % 3 == 0;
      for (int k = 2; k < 8; k++) {
         uint32_t w = k >= 5 && inactive ? 0xa5a5a5a5u : want[k];
         if (o[g * 8 + k] != w && bad++ < 8)
            CHECK(0, "%s: vote invocation %u (subgroup %#llx) result %d = %#x, expected %#x",
                  d->name, g, (unsigned long long)m, k, o[g * 8 + k], w);
      }
   }
   CHECK(bad == 0, "%s: subgroup vote: %d wrong", d->name, bad);
   fprintf(stderr, "%s: vote: subgroup sizes seen (bit n = n invocations): %#x\n", d->name,
           sizes);
}

static uint64_t
bits_between(uint32_t lo, uint32_t hi)   /* bits lo .. hi - 1 */
{
   uint64_t up = hi >= 64 ? ~0ull : (1ull << hi) - 1;
   uint64_t down = lo >= 64 ? ~0ull : (1ull << lo) - 1;
   return up & ~down;
}

static void
test_ballot(struct dev *d)
{
   static uint32_t p[N], o[N * 12];
   make_predicates(p);
   if (!run_logged(d, "ballot", sg_ext_ballot_spv, sizeof(sg_ext_ballot_spv), p, o, 12))
      return;
   int bad = 0;
   for (uint32_t g = 0; g < N; g++) {
      uint32_t wg = g / LOCAL, li = g % LOCAL;
      const uint32_t *r = o + g * 12;
      uint32_t lane = r[2], size = r[3], leader = r[4];
      if (size == 0 || size > 64 || lane >= size || leader >= LOCAL) {
         if (bad++ < 8)
            CHECK(0, "%s: ballot invocation %u: lane %u of %u, lane 0 is %u", d->name, g, lane,
                  size, leader);
         continue;
      }
      /* Members: the invocations whose lane 0 is the same one. */
      uint64_t lanes = 0, some = 0;
      uint32_t lowest = LOCAL, lowest_lane = 64;
      bool dup = false;
      for (uint32_t j = 0; j < LOCAL; j++) {
         const uint32_t *rj = o + (wg * LOCAL + j) * 12;
         if (rj[4] != leader || rj[2] >= 64)
            continue;
         dup |= (lanes >> rj[2]) & 1;
         lanes |= 1ull << rj[2];
         if (j % 3 != 0) {
            if (p[wg * LOCAL + j] & 1)
               some |= 1ull << rj[2];
            if (rj[2] < lowest_lane) {
               lowest_lane = rj[2];
               lowest = j;
            }
         }
      }
      CHECK(!dup, "%s: two invocations in one lane", d->name);
      uint64_t eq = 1ull << lane, lt = eq - 1, ge = bits_between(lane, size),
               gt = bits_between(lane + 1, size), le = lt | eq;
      uint32_t want[12] = {
         (uint32_t)lanes, (uint32_t)(lanes >> 32), lane, size, leader,
         (uint32_t)eq ^ (uint32_t)(lt << 8) ^ (uint32_t)(ge >> 32) ^ (uint32_t)(le >> 32) ^
            (uint32_t)(gt >> 32),
         (uint32_t)some, (uint32_t)(some >> 32), lowest,
         (uint32_t)ge, (uint32_t)gt, (uint32_t)le,
      };
      for (int k = 0; k < 12; k++) {
         uint32_t w = k >= 6 && k <= 8 && li % 3 == 0 ? 0xa5a5a5a5u : want[k];
         if (r[k] != w && bad++ < 8)
            CHECK(0, "%s: ballot invocation %u (lane %u of %u) result %d = %#x, expected %#x",
                  d->name, g, lane, size, k, r[k], w);
      }
   }
   CHECK(bad == 0, "%s: subgroup ballot: %d wrong", d->name, bad);
}

int
main(void)
{
   /* Shale logs which code its pipelines start on with SHALE_DEBUG=info. */
   const char *dbg = getenv("SHALE_DEBUG");
   char flags[256];
   snprintf(flags, sizeof(flags), "%s%sinfo", dbg ? dbg : "", dbg && *dbg ? "," : "");
   setenv("SHALE_DEBUG", flags, 1);

   struct dev d;
   bool ok = dev_init(&d, VKT_SHALE);
   CHECK(ok, "shale device");
   if (ok) {
      CHECK(d.vote, "shale offers VK_EXT_shader_subgroup_vote");
      if (d.vote)
         test_vote(&d);
      if (d.ballot)
         test_ballot(&d);
      dev_finish(&d);
   }
   /* The same on lavapipe: the test's own references hold for another
    * implementation's subgroups. */
   if (dev_init(&d, VKT_LAVAPIPE)) {
      if (d.vote)
         test_vote(&d);
      if (d.ballot)
         test_ballot(&d);
      dev_finish(&d);
   } else {
      fprintf(stderr, "lavapipe not available: comparison skipped\n");
   }
   return check_finish();
}
