/* Private data (VK_EXT_private_data: privateData; core in Vulkan 1.3 and
 * required by it) through the loader with the validation layer, on Shale
 * and (when present) lavapipe: a device created with
 * VkDevicePrivateDataCreateInfo; three slots; values set on the device, the
 * queue, a command pool, 2000 events (enough to grow the table several
 * times) and a buffer, each slot with values of its own; every value read
 * back, overwritten values read as the last write, objects never set read
 * 0, a slot's values independent of another's; then four threads set and
 * read back values of their own 500 events in one slot at once; a slot
 * destroyed and a new one reading 0. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#define NEVENTS 2000
#define THREADS 4

static PFN_vkCreatePrivateDataSlotEXT create_slot;
static PFN_vkDestroyPrivateDataSlotEXT destroy_slot;
static PFN_vkSetPrivateDataEXT set_data;
static PFN_vkGetPrivateDataEXT get_data;

static VkEvent events[NEVENTS];

struct worker {
   struct vkt *t;
   VkPrivateDataSlot slot;
   int first;
   unsigned bad;
};

static uint64_t
value_of(int slot, int i)
{
   return ((uint64_t)(slot + 1) << 48) ^ ((uint64_t)i * 0x9E3779B97F4A7C15ull);
}

static void *
worker_main(void *arg)
{
   struct worker *w = arg;
   for (int round = 0; round < 3; round++) {
      for (int i = w->first; i < w->first + NEVENTS / THREADS; i++)
         if (set_data(w->t->device, VK_OBJECT_TYPE_EVENT, (uint64_t)events[i], w->slot,
                      value_of(7, i) + (uint64_t)round) != VK_SUCCESS)
            w->bad++;
      for (int i = w->first; i < w->first + NEVENTS / THREADS; i++) {
         uint64_t v = 1;
         get_data(w->t->device, VK_OBJECT_TYPE_EVENT, (uint64_t)events[i], w->slot, &v);
         w->bad += v != value_of(7, i) + (uint64_t)round;
      }
   }
   return NULL;
}

static void
run(struct vkt *t)
{
   const char *dn = vkt_driver_name(t->driver);
   create_slot = (PFN_vkCreatePrivateDataSlotEXT)vkGetDeviceProcAddr(t->device,
                                                                     "vkCreatePrivateDataSlotEXT");
   destroy_slot = (PFN_vkDestroyPrivateDataSlotEXT)vkGetDeviceProcAddr(
      t->device, "vkDestroyPrivateDataSlotEXT");
   set_data = (PFN_vkSetPrivateDataEXT)vkGetDeviceProcAddr(t->device, "vkSetPrivateDataEXT");
   get_data = (PFN_vkGetPrivateDataEXT)vkGetDeviceProcAddr(t->device, "vkGetPrivateDataEXT");
   CHECK(create_slot && destroy_slot && set_data && get_data, "%s: entry points", dn);
   if (!create_slot || !destroy_slot || !set_data || !get_data)
      return;
   VkResult r = VK_SUCCESS;
   for (int i = 0; i < NEVENTS && r == VK_SUCCESS; i++) {
      const VkEventCreateInfo ei = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
      r = vkCreateEvent(t->device, &ei, NULL, &events[i]);
   }
   struct vkt_buffer buf = { 0 };
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(t, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &buf);
   VkPrivateDataSlot slots[3] = { VK_NULL_HANDLE, VK_NULL_HANDLE, VK_NULL_HANDLE };
   const VkPrivateDataSlotCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_PRIVATE_DATA_SLOT_CREATE_INFO,
   };
   for (int s = 0; s < 3 && r == VK_SUCCESS; s++)
      r = create_slot(t->device, &sci, NULL, &slots[s]);
   CHECK(r == VK_SUCCESS, "%s: events, buffer and slots: %d", dn, r);
   if (r == VK_SUCCESS) {
      const struct {
         VkObjectType type;
         uint64_t handle;
      } objs[] = {
         { VK_OBJECT_TYPE_DEVICE, (uint64_t)(uintptr_t)t->device },
         { VK_OBJECT_TYPE_QUEUE, (uint64_t)(uintptr_t)t->queue },
         { VK_OBJECT_TYPE_COMMAND_POOL, (uint64_t)t->pool },
         { VK_OBJECT_TYPE_BUFFER, (uint64_t)buf.buffer },
      };
      const int nobj = sizeof(objs) / sizeof(objs[0]);
      unsigned bad = 0;
      /* Slots 0 and 1: every object; slot 2: only the events, later. */
      for (int s = 0; s < 2; s++) {
         for (int i = 0; i < nobj; i++)
            bad += set_data(t->device, objs[i].type, objs[i].handle, slots[s],
                            value_of(s, 10000 + i)) != VK_SUCCESS;
         for (int i = 0; i < NEVENTS; i += s + 1)
            bad += set_data(t->device, VK_OBJECT_TYPE_EVENT, (uint64_t)events[i], slots[s],
                            value_of(s, i)) != VK_SUCCESS;
      }
      /* Overwrite some of slot 0's. */
      for (int i = 0; i < NEVENTS; i += 7)
         bad += set_data(t->device, VK_OBJECT_TYPE_EVENT, (uint64_t)events[i], slots[0],
                         ~value_of(0, i)) != VK_SUCCESS;
      CHECK(bad == 0, "%s: %u vkSetPrivateData calls failed", dn, bad);
      unsigned wrong = 0;
      for (int s = 0; s < 3; s++) {
         for (int i = 0; i < nobj; i++) {
            uint64_t v = 1;
            get_data(t->device, objs[i].type, objs[i].handle, slots[s], &v);
            uint64_t want = s < 2 ? value_of(s, 10000 + i) : 0;
            if (v != want && wrong++ < 6)
               printf("%s: slot %d object %d: 0x%llx, expected 0x%llx\n", dn, s, i,
                      (unsigned long long)v, (unsigned long long)want);
         }
         for (int i = 0; i < NEVENTS; i++) {
            uint64_t v = 1, want = 0;
            if (s == 0)
               want = i % 7 == 0 ? ~value_of(0, i) : value_of(0, i);
            else if (s == 1)
               want = i % 2 == 0 ? value_of(1, i) : 0;
            get_data(t->device, VK_OBJECT_TYPE_EVENT, (uint64_t)events[i], slots[s], &v);
            if (v != want && wrong++ < 6)
               printf("%s: slot %d event %d: 0x%llx, expected 0x%llx\n", dn, s, i,
                      (unsigned long long)v, (unsigned long long)want);
         }
      }
      CHECK(wrong == 0, "%s: %u values read back wrong", dn, wrong);

      /* Threads on slot 2 at once. */
      struct worker w[THREADS];
      pthread_t th[THREADS];
      for (int i = 0; i < THREADS; i++) {
         w[i] = (struct worker) { t, slots[2], i * (NEVENTS / THREADS), 0 };
         pthread_create(&th[i], NULL, worker_main, &w[i]);
      }
      unsigned tbad = 0;
      for (int i = 0; i < THREADS; i++) {
         pthread_join(th[i], NULL);
         tbad += w[i].bad;
      }
      CHECK(tbad == 0, "%s: %u values wrong with %d threads on one slot", dn, tbad, THREADS);

      /* A destroyed slot's values do not show in a new one. */
      destroy_slot(t->device, slots[1], NULL);
      slots[1] = VK_NULL_HANDLE;
      VkPrivateDataSlot fresh = VK_NULL_HANDLE;
      r = create_slot(t->device, &sci, NULL, &fresh);
      CHECK(r == VK_SUCCESS, "%s: new slot: %d", dn, r);
      if (r == VK_SUCCESS) {
         uint64_t v = 1;
         get_data(t->device, VK_OBJECT_TYPE_EVENT, (uint64_t)events[0], fresh, &v);
         CHECK(v == 0, "%s: a new slot reads 0x%llx", dn, (unsigned long long)v);
         destroy_slot(t->device, fresh, NULL);
      }
   }
   for (int s = 0; s < 3; s++)
      if (slots[s])
         destroy_slot(t->device, slots[s], NULL);
   vkt_buffer_destroy(t, &buf);
   for (int i = 0; i < NEVENTS; i++)
      if (events[i])
         vkDestroyEvent(t->device, events[i], NULL);
   memset(events, 0, sizeof(events));
}

int
main(void)
{
   for (int d = 0; d < 2; d++) {
      enum vkt_driver drv = d ? VKT_LAVAPIPE : VKT_SHALE;
      const char *dn = vkt_driver_name(drv);
      VkPhysicalDevicePrivateDataFeatures have = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRIVATE_DATA_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &have };
      bool has_ext;
      const char *ext = VK_EXT_PRIVATE_DATA_EXTENSION_NAME;
      if (!vkt_query_features(drv, &f2, ext, &has_ext)) {
         CHECK(d == 1, "shale not available");
         continue;
      }
      bool ok = has_ext && have.privateData;
      if (drv == VKT_SHALE)
         CHECK(ok, "Shale: %s %u, privateData %u", ext, has_ext, have.privateData);
      if (!ok) {
         printf("%s lacks private data: skipped\n", dn);
         continue;
      }
      const VkDevicePrivateDataCreateInfo reserve = {
         .sType = VK_STRUCTURE_TYPE_DEVICE_PRIVATE_DATA_CREATE_INFO,
         .privateDataSlotRequestCount = 2,
      };
      VkPhysicalDevicePrivateDataFeatures want = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRIVATE_DATA_FEATURES,
         .pNext = (void *)&reserve, .privateData = VK_TRUE,
      };
      struct vkt_options opts = { .driver = drv, .api_version = VK_API_VERSION_1_1,
                                  .device_extensions = &ext, .device_extension_count = 1,
                                  .device_pnext = &want };
      struct vkt t;
      if (!vkt_init(&t, &opts)) {
         CHECK(false, "%s: device with private data", dn);
         continue;
      }
      run(&t);
      vkt_finish(&t);
   }
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
