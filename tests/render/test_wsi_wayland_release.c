/* Wayland presentation against a compositor of the test's own: presents that do not wait for buffer releases (copy or not), acquires that do, MAILBOX without waiting for frame callbacks, and the wl_shm format of R8G8B8A8 images. */
/*
 * The compositor is libwayland-server in a thread of this process, on one
 * end of a socketpair (the test's wl_display is the other end): globals
 * wl_compositor (version 4) and wl_shm (XRGB8888 and ARGB8888, and
 * XBGR8888 where the case asks for it), surfaces that record every commit
 * (when, which wl_buffer, its wl_shm format, its texel at (16, 16) as
 * stored bytes), and a switch that keeps the buffer a commit replaces
 * instead of releasing it, until the test says so (at once, or at a given
 * time), and another that keeps frame callbacks unanswered until the test
 * says so (else they are answered at commit). What is held:
 *  - IMMEDIATE, 3 images, releases kept, both with buffers in the images
 *    (B8G8R8A8) and with Shale's copy (R8G8B8A8 where wl_shm offers no
 *    XBGR8888): three presents reach the compositor as three commits
 *    within 300 ms of the third present (a present thread that waited for
 *    the replaced buffer's release would hold the third commit back: the
 *    copy's did, by up to a second, while it had two buffers); each
 *    present returns in under 300 ms;
 *  - then, the two images shown before the last still the compositor's:
 *    acquire with timeout 0 gives VK_NOT_READY, with 30 ms VK_TIMEOUT after
 *    at least 30 ms, and with UINT64_MAX waits until the compositor
 *    releases them (50 ms later) and returns one of those two, the other
 *    then acquirable with timeout 0;
 *  - MAILBOX, 3 B8G8R8A8 images, frame callbacks kept unanswered: twelve
 *    frames 20 ms apart, whose acquires wait less than 150 ms in all (a
 *    present thread that waited for the frame callback with the image off
 *    the queue, 100 ms at most a frame, held acquires back by most of
 *    that each time), at most one commit more than the first per 100 ms
 *    (the bounded wait for a callback; the other presents were replaced
 *    while queued), and once the callbacks are answered, the last commit
 *    is the last frame's colour;
 *  - FIFO with releases at commit: B8G8R8A8 images are committed as
 *    XRGB8888 buffers, one per image; R8G8B8A8 images, where wl_shm offers
 *    XBGR8888, as XBGR8888 buffers, one per image (no copy), and where it
 *    does not, as XRGB8888 buffers, also one per image (Shale's copy); the
 *    texel the compositor reads is the cleared colour in each case (bytes
 *    B, G, R for XRGB8888, R, G, B for XBGR8888);
 *  - no validation message.
 * The test skips (77) where the Wayland platform is not built.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <wayland-client.h>
#include <wayland-server.h>
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vulkan.h>

#include "check.h"
#include "vkt.h"
#include "wsi_util.h"

#define W 64
#define H 48
#define MAX_COMMITS 64
#define MAX_BUFFERS 32
#define MAX_FRAMES 16

/* ---- the compositor ---- */

struct srv;

/* A wl_buffer the compositor has seen attached: every one is tracked
 * until the client destroys it, so that no pointer to it outlives it. */
struct srv_buffer {
   struct srv *s;
   struct wl_resource *res;   /* NULL: slot free */
   struct wl_listener destroy;
   bool held;                 /* replaced, release kept back */
};

struct srv {
   struct wl_display *display;
   pthread_t thread;
   pthread_mutex_t mutex;
   bool stop;
   bool keep_releases;        /* replaced buffers are held, not released */
   bool untracked;            /* a buffer found no slot (fails the test) */
   uint64_t release_at;       /* nonzero: release the held ones at this time */
   bool keep_frames;          /* frame callbacks wait for send_frames */
   bool send_frames;          /* answer the kept ones (compositor thread) */
   struct wl_resource *frames[MAX_FRAMES];
   struct srv_buffer bufs[MAX_BUFFERS];
   struct wl_resource *pending, *current;
   bool attached;
   int commits;
   struct commit {
      uint64_t ns;
      struct wl_resource *buffer;
      uint32_t format;
      uint8_t texel[4];
   } log[MAX_COMMITS];
};

/* The client destroyed the buffer (compositor thread, mutex not held). */
static void
srv_buffer_destroyed(struct wl_listener *l, void *data)
{
   struct srv_buffer *b = wl_container_of(l, b, destroy);
   struct srv *s = b->s;
   pthread_mutex_lock(&s->mutex);
   if (s->current == b->res)
      s->current = NULL;
   if (s->pending == b->res)
      s->pending = NULL;
   b->res = NULL;
   b->held = false;
   pthread_mutex_unlock(&s->mutex);
}

/* Mutex held: the slot of buffer res, made on first sight. */
static struct srv_buffer *
srv_track(struct srv *s, struct wl_resource *res)
{
   for (int i = 0; i < MAX_BUFFERS; i++)
      if (s->bufs[i].res == res)
         return &s->bufs[i];
   for (int i = 0; i < MAX_BUFFERS; i++) {
      if (!s->bufs[i].res) {
         s->bufs[i].s = s;
         s->bufs[i].res = res;
         s->bufs[i].held = false;
         s->bufs[i].destroy.notify = srv_buffer_destroyed;
         wl_resource_add_destroy_listener(res, &s->bufs[i].destroy);
         return &s->bufs[i];
      }
   }
   return NULL;
}

/* Mutex held: releases every held buffer. */
static void
srv_release_held(struct srv *s)
{
   for (int i = 0; i < MAX_BUFFERS; i++) {
      if (s->bufs[i].res && s->bufs[i].held) {
         s->bufs[i].held = false;
         wl_buffer_send_release(s->bufs[i].res);
      }
   }
}

static void
surf_destroy(struct wl_client *client, struct wl_resource *res)
{
   wl_resource_destroy(res);
}

static void
surf_attach(struct wl_client *client, struct wl_resource *res, struct wl_resource *buffer,
            int32_t x, int32_t y)
{
   struct srv *s = wl_resource_get_user_data(res);
   pthread_mutex_lock(&s->mutex);
   s->pending = buffer;
   s->attached = true;
   if (buffer && !srv_track(s, buffer))
      s->untracked = true;
   pthread_mutex_unlock(&s->mutex);
}

static void
surf_damage(struct wl_client *client, struct wl_resource *res, int32_t x, int32_t y, int32_t w,
            int32_t h)
{
}

/* A kept frame callback's resource went (answered, or the client left). */
static void
frame_destroyed(struct wl_resource *cb)
{
   struct srv *s = wl_resource_get_user_data(cb);
   pthread_mutex_lock(&s->mutex);
   for (int i = 0; i < MAX_FRAMES; i++)
      if (s->frames[i] == cb)
         s->frames[i] = NULL;
   pthread_mutex_unlock(&s->mutex);
}

/* Mutex held, compositor thread: answers the kept frame callbacks. */
static void
srv_send_frames(struct srv *s)
{
   for (int i = 0; i < MAX_FRAMES; i++) {
      struct wl_resource *cb = s->frames[i];
      if (cb) {
         s->frames[i] = NULL;
         wl_callback_send_done(cb, 0);
         pthread_mutex_unlock(&s->mutex);
         wl_resource_destroy(cb);
         pthread_mutex_lock(&s->mutex);
      }
   }
}

static void
surf_frame(struct wl_client *client, struct wl_resource *res, uint32_t id)
{
   struct srv *s = wl_resource_get_user_data(res);
   struct wl_resource *cb = wl_resource_create(client, &wl_callback_interface, 1, id);
   if (!cb) {
      wl_client_post_no_memory(client);
      return;
   }
   pthread_mutex_lock(&s->mutex);
   bool kept = false;
   for (int i = 0; s->keep_frames && !kept && i < MAX_FRAMES; i++) {
      if (!s->frames[i]) {
         s->frames[i] = cb;
         kept = true;
      }
   }
   if (!kept && s->keep_frames)
      s->untracked = true;
   pthread_mutex_unlock(&s->mutex);
   if (kept) {
      wl_resource_set_implementation(cb, NULL, s, frame_destroyed);
      return;
   }
   /* Answered at once: this compositor always shows the surface. */
   wl_callback_send_done(cb, 0);
   wl_resource_destroy(cb);
}

static void
surf_region(struct wl_client *client, struct wl_resource *res, struct wl_resource *region)
{
}

static void
surf_commit(struct wl_client *client, struct wl_resource *res)
{
   struct srv *s = wl_resource_get_user_data(res);
   pthread_mutex_lock(&s->mutex);
   if (s->attached) {
      struct wl_resource *old = s->current;
      s->current = s->pending;
      s->attached = false;
      /* Both tracked (at attach): a destroyed one is NULL here. */
      if (old && old != s->current) {
         struct srv_buffer *b = srv_track(s, old);
         if (s->keep_releases && b)
            b->held = true;
         else
            wl_buffer_send_release(old);
      }
      if (s->commits < MAX_COMMITS && s->current) {
         struct commit *c = &s->log[s->commits++];
         memset(c, 0, sizeof(*c));
         c->ns = wsi_now_ns();
         c->buffer = s->current;
         struct wl_shm_buffer *shm = wl_shm_buffer_get(s->current);
         if (shm) {
            c->format = wl_shm_buffer_get_format(shm);
            wl_shm_buffer_begin_access(shm);
            const uint8_t *data = wl_shm_buffer_get_data(shm);
            memcpy(c->texel, data + 16 * wl_shm_buffer_get_stride(shm) + 16 * 4, 4);
            wl_shm_buffer_end_access(shm);
         }
      }
   }
   pthread_mutex_unlock(&s->mutex);
}

static void
surf_transform(struct wl_client *client, struct wl_resource *res, int32_t v)
{
}

static const struct wl_surface_interface surf_impl = {
   .destroy = surf_destroy,
   .attach = surf_attach,
   .damage = surf_damage,
   .frame = surf_frame,
   .set_opaque_region = surf_region,
   .set_input_region = surf_region,
   .commit = surf_commit,
   .set_buffer_transform = surf_transform,
   .set_buffer_scale = surf_transform,
   .damage_buffer = surf_damage,
};

static void
comp_create_surface(struct wl_client *client, struct wl_resource *res, uint32_t id)
{
   struct wl_resource *surf =
      wl_resource_create(client, &wl_surface_interface, wl_resource_get_version(res), id);
   if (!surf) {
      wl_client_post_no_memory(client);
      return;
   }
   wl_resource_set_implementation(surf, &surf_impl, wl_resource_get_user_data(res), NULL);
}

static void
comp_create_region(struct wl_client *client, struct wl_resource *res, uint32_t id)
{
   wl_resource_post_error(res, WL_DISPLAY_ERROR_INVALID_METHOD, "no regions here");
}

static const struct wl_compositor_interface comp_impl = { comp_create_surface,
                                                          comp_create_region };

static void
comp_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
   struct wl_resource *res = wl_resource_create(client, &wl_compositor_interface, version, id);
   if (!res) {
      wl_client_post_no_memory(client);
      return;
   }
   wl_resource_set_implementation(res, &comp_impl, data, NULL);
}

static void *
srv_main(void *arg)
{
   struct srv *s = arg;
   struct wl_event_loop *loop = wl_display_get_event_loop(s->display);
   for (;;) {
      pthread_mutex_lock(&s->mutex);
      const bool stop = s->stop;
      if (s->release_at && wsi_now_ns() >= s->release_at) {
         s->release_at = 0;
         srv_release_held(s);
      }
      if (s->send_frames) {
         s->send_frames = false;
         srv_send_frames(s);
      }
      pthread_mutex_unlock(&s->mutex);
      if (stop)
         break;
      wl_display_flush_clients(s->display);
      wl_event_loop_dispatch(loop, 2);
   }
   return NULL;
}

/* Starts the compositor and connects to it; NULL (CHECKed) on failure. */
static struct wl_display *
srv_start(struct srv *s, bool xbgr)
{
   memset(s, 0, sizeof(*s));
   pthread_mutex_init(&s->mutex, NULL);
   int sv[2];
   CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %s",
         strerror(errno));
   s->display = wl_display_create();
   CHECK(s->display != NULL, "wl_display_create");
   if (!s->display)
      return NULL;
   CHECK(wl_global_create(s->display, &wl_compositor_interface, 4, s, comp_bind) != NULL,
         "wl_compositor global");
   CHECK(wl_display_init_shm(s->display) == 0, "wl_display_init_shm");
   if (xbgr)
      CHECK(wl_display_add_shm_format(s->display, WL_SHM_FORMAT_XBGR8888) != NULL,
            "XBGR8888 offered");
   CHECK(wl_client_create(s->display, sv[0]) != NULL, "wl_client_create");
   CHECK(pthread_create(&s->thread, NULL, srv_main, s) == 0, "compositor thread");
   struct wl_display *d = wl_display_connect_to_fd(sv[1]);
   CHECK(d != NULL, "wl_display_connect_to_fd");
   return d;
}

static void
srv_stop(struct srv *s)
{
   pthread_mutex_lock(&s->mutex);
   s->stop = true;
   pthread_mutex_unlock(&s->mutex);
   pthread_join(s->thread, NULL);
   wl_display_destroy_clients(s->display);
   wl_display_destroy(s->display);
   pthread_mutex_destroy(&s->mutex);
}

static int
srv_commits(struct srv *s)
{
   pthread_mutex_lock(&s->mutex);
   const int n = s->commits;
   pthread_mutex_unlock(&s->mutex);
   return n;
}

/* ---- the test's client ---- */

struct client {
   struct wl_display *display;
   struct wl_registry *registry;
   struct wl_compositor *compositor;
   struct wl_surface *surface;
};

static void
global(void *data, struct wl_registry *reg, uint32_t name, const char *iface, uint32_t version)
{
   struct client *c = data;
   if (!strcmp(iface, "wl_compositor"))
      c->compositor = wl_registry_bind(reg, name, &wl_compositor_interface, 4);
}

static void
global_remove(void *data, struct wl_registry *reg, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = { global, global_remove };

static bool
client_init(struct client *c, struct wl_display *d)
{
   memset(c, 0, sizeof(*c));
   c->display = d;
   c->registry = wl_display_get_registry(d);
   wl_registry_add_listener(c->registry, &registry_listener, c);
   wl_display_roundtrip(d);
   CHECK(c->compositor != NULL, "no wl_compositor");
   if (!c->compositor)
      return false;
   c->surface = wl_compositor_create_surface(c->compositor);
   wl_display_roundtrip(d);
   return c->surface != NULL;
}

static void
client_finish(struct client *c)
{
   if (c->surface)
      wl_surface_destroy(c->surface);
   if (c->compositor)
      wl_compositor_destroy(c->compositor);
   if (c->registry)
      wl_registry_destroy(c->registry);
   wl_display_roundtrip(c->display);
   wl_display_disconnect(c->display);
}

/* ---- Vulkan ---- */

struct ctx {
   struct vkt t;
   VkSemaphore acquired[8], rendered[8];
   VkFence done;
   VkImage images[8];
   uint32_t image_count;
   VkSurfaceKHR surface;
};

static bool
surface_create(struct ctx *c, struct client *cl)
{
   PFN_vkCreateWaylandSurfaceKHR create = (PFN_vkCreateWaylandSurfaceKHR)vkGetInstanceProcAddr(
      c->t.instance, "vkCreateWaylandSurfaceKHR");
   CHECK(create != NULL, "vkCreateWaylandSurfaceKHR");
   if (!create)
      return false;
   const VkWaylandSurfaceCreateInfoKHR sci = {
      .sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
      .display = cl->display,
      .surface = cl->surface,
   };
   CHECK_VK(create(c->t.instance, &sci, NULL, &c->surface));
   VkSurfaceCapabilitiesKHR caps;
   CHECK_VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(c->t.pdev, c->surface, &caps));
   return true;
}

static VkSwapchainKHR
chain_create(struct ctx *c, VkFormat format, VkPresentModeKHR mode, uint32_t images)
{
   const VkSwapchainCreateInfoKHR ci =
      wsi_swapchain_info(c->surface, format, (VkExtent2D){ W, H }, images,
                         VK_IMAGE_USAGE_TRANSFER_DST_BIT, mode, VK_NULL_HANDLE);
   VkSwapchainKHR chain = VK_NULL_HANDLE;
   CHECK_VK(vkCreateSwapchainKHR(c->t.device, &ci, NULL, &chain));
   c->image_count = 8;
   CHECK_VK(vkGetSwapchainImagesKHR(c->t.device, chain, &c->image_count, c->images));
   return chain;
}

/* Fills and presents the image just acquired with c->acquired[slot]. */
static VkResult
present(struct ctx *c, VkSwapchainKHR chain, uint32_t index, uint32_t slot, uint32_t color)
{
   return wsi_fill_frame(&c->t, chain, index, c->images[index], c->acquired[slot],
                         c->rendered[index], c->done, color, 0x000000);
}

static VkResult
frame(struct ctx *c, VkSwapchainKHR chain, uint32_t color, uint32_t *index_out)
{
   uint32_t index;
   VkResult r = vkAcquireNextImageKHR(c->t.device, chain, 1000000000ull, c->acquired[0],
                                      VK_NULL_HANDLE, &index);
   CHECK_VK(r);
   if (r != VK_SUCCESS)
      return r;
   if (index_out)
      *index_out = index;
   return present(c, chain, index, 0, color);
}

/* Waits (up to `ms`) for the compositor to have seen n commits. */
static bool
wait_commits(struct srv *s, int n, int ms)
{
   for (int i = 0; i < ms && srv_commits(s) < n; i++)
      usleep(1000);
   return srv_commits(s) >= n;
}

/* Presents that do not wait for releases; acquires that do. */
static void
release_case(struct ctx *c, struct srv *s, VkFormat format)
{
   const char *what = format == VK_FORMAT_R8G8B8A8_UNORM ? "R8G8B8A8" : "B8G8R8A8";
   pthread_mutex_lock(&s->mutex);
   s->keep_releases = true;
   pthread_mutex_unlock(&s->mutex);
   VkSwapchainKHR chain = chain_create(c, format, VK_PRESENT_MODE_IMMEDIATE_KHR, 3);
   if (c->image_count != 3) {
      CHECK(false, "%u images, 3 asked for", c->image_count);
      vkDestroySwapchainKHR(c->t.device, chain, NULL);
      return;
   }
   const int base = srv_commits(s);
   uint32_t shown[3];
   for (int k = 0; k < 3; k++) {
      const uint64_t t0 = wsi_now_ns();
      CHECK_VK(frame(c, chain, 0x112233 * (uint32_t)(k + 1), &shown[k]));
      const uint64_t took = wsi_now_ns() - t0;
      CHECK(took < 300000000ull, "acquire and present %d took %.1f ms", k, took / 1e6);
   }
   const uint64_t t_last = wsi_now_ns();
   CHECK(wait_commits(s, base + 3, 2000), "%d commits, 3 expected", srv_commits(s) - base);
   pthread_mutex_lock(&s->mutex);
   const uint64_t t_commit = s->commits >= base + 3 ? s->log[base + 2].ns : UINT64_MAX;
   int held = 0;
   for (int i = 0; i < MAX_BUFFERS; i++)
      held += s->bufs[i].res && s->bufs[i].held;
   pthread_mutex_unlock(&s->mutex);
   CHECK(t_commit != UINT64_MAX && t_commit < t_last + 300000000ull,
         "%s: the third commit %.1f ms after the third present, with the replaced buffers kept",
         what, t_commit == UINT64_MAX ? -1.0 : ((double)t_commit - (double)t_last) / 1e6);
   CHECK_EQ_INT(held, 2);
   fprintf(stderr, "%s, 3 presents with releases kept: third commit %.1f ms after the present\n",
           what, t_commit == UINT64_MAX ? -1.0 : ((double)t_commit - (double)t_last) / 1e6);

   /* Images shown[0] and shown[1] are free to the engine but still the
    * compositor's; shown[2] is on screen. */
   uint32_t idx = UINT32_MAX;
   CHECK_EQ_INT(vkAcquireNextImageKHR(c->t.device, chain, 0, c->acquired[1], VK_NULL_HANDLE,
                                      &idx),
                VK_NOT_READY);
   uint64_t t1 = wsi_now_ns();
   CHECK_EQ_INT(vkAcquireNextImageKHR(c->t.device, chain, 30000000ull, c->acquired[1],
                                      VK_NULL_HANDLE, &idx),
                VK_TIMEOUT);
   uint64_t waited = wsi_now_ns() - t1;
   CHECK(waited >= 30000000ull && waited < 500000000ull, "VK_TIMEOUT after %.1f ms",
         waited / 1e6);

   /* The compositor lets them go 50 ms from now: an unbounded acquire
    * returns then, with one of them. */
   t1 = wsi_now_ns();
   pthread_mutex_lock(&s->mutex);
   s->keep_releases = false;
   s->release_at = t1 + 50000000ull;
   pthread_mutex_unlock(&s->mutex);
   VkResult r = vkAcquireNextImageKHR(c->t.device, chain, UINT64_MAX, c->acquired[1],
                                      VK_NULL_HANDLE, &idx);
   waited = wsi_now_ns() - t1;
   CHECK_VK(r);
   CHECK(waited >= 45000000ull && waited < 1000000000ull,
         "acquire returned %.1f ms after the release was scheduled 50 ms ahead", waited / 1e6);
   CHECK(r != VK_SUCCESS || idx == shown[0] || idx == shown[1],
         "acquired image %u, not one of the released %u and %u", idx, shown[0], shown[1]);
   uint32_t idx2 = UINT32_MAX;
   VkResult r2 = vkAcquireNextImageKHR(c->t.device, chain, 0, c->acquired[2], VK_NULL_HANDLE,
                                       &idx2);
   CHECK_VK(r2);
   CHECK(r2 != VK_SUCCESS || ((idx2 == shown[0] || idx2 == shown[1]) && idx2 != idx),
         "second acquire %u", idx2);

   /* Give both back. */
   if (r == VK_SUCCESS)
      CHECK_VK(present(c, chain, idx, 1, 0x445566));
   if (r2 == VK_SUCCESS)
      CHECK_VK(present(c, chain, idx2, 2, 0x778899));
   CHECK_VK(vkQueueWaitIdle(c->t.queue));
   vkDestroySwapchainKHR(c->t.device, chain, NULL);
}

/* The wl_shm format and buffer count a swapchain's commits use, and the
 * texel the compositor reads. */
static void
format_case(struct ctx *c, struct srv *s, VkFormat format, bool xbgr_offered)
{
   VkSwapchainKHR chain = chain_create(c, format, VK_PRESENT_MODE_FIFO_KHR, 3);
   const int base = srv_commits(s);
   const uint32_t color = 0x20a0e0;   /* R 0x20, G 0xa0, B 0xe0 */
   for (int k = 0; k < 6; k++)
      CHECK_VK(frame(c, chain, color, NULL));
   CHECK_VK(vkQueueWaitIdle(c->t.queue));
   CHECK(wait_commits(s, base + 6, 2000), "%d commits, 6 expected", srv_commits(s) - base);
   const bool rgba = format == VK_FORMAT_R8G8B8A8_UNORM;
   const bool xbgr = rgba && xbgr_offered;
   const uint32_t want_format = xbgr ? WL_SHM_FORMAT_XBGR8888 : WL_SHM_FORMAT_XRGB8888;
   const int want_buffers = (int)c->image_count;
   pthread_mutex_lock(&s->mutex);
   struct wl_resource *seen[MAX_COMMITS];
   int distinct = 0;
   bool formats_ok = true, texels_ok = true;
   for (int i = base; i < s->commits; i++) {
      const struct commit *cm = &s->log[i];
      formats_ok &= cm->format == want_format;
      const uint8_t *t = cm->texel;
      const uint32_t got = xbgr ? (uint32_t)t[0] << 16 | t[1] << 8 | t[2]
                                : (uint32_t)t[2] << 16 | t[1] << 8 | t[0];
      if (got != color) {
         texels_ok = false;
         fprintf(stderr, "commit %d: texel bytes %02x %02x %02x %02x\n", i - base, t[0], t[1],
                 t[2], t[3]);
      }
      int j = 0;
      while (j < distinct && seen[j] != cm->buffer)
         j++;
      if (j == distinct)
         seen[distinct++] = cm->buffer;
   }
   pthread_mutex_unlock(&s->mutex);
   const char *what = format == VK_FORMAT_R8G8B8A8_UNORM ? "R8G8B8A8" : "B8G8R8A8";
   CHECK(formats_ok, "%s (XBGR8888 %s): a commit's wl_shm format is not %s", what,
         xbgr_offered ? "offered" : "not offered", xbgr ? "XBGR8888" : "XRGB8888");
   CHECK(texels_ok, "%s: the compositor read another colour than %06x", what, color);
   CHECK(distinct == want_buffers, "%s (XBGR8888 %s): %d wl_buffers committed, %d expected (%s)",
         what, xbgr_offered ? "offered" : "not offered", distinct, want_buffers,
         rgba && !xbgr_offered ? "the copy's, one per image" : "one per image");
   fprintf(stderr, "%s, XBGR8888 %s: %d buffers of format 0x%x\n", what,
           xbgr_offered ? "offered" : "not offered", distinct, want_format);
   vkDestroySwapchainKHR(c->t.device, chain, NULL);
}

/* The last commit's texel as 0xRRGGBB (XRGB8888 bytes B, G, R), or
 * UINT32_MAX before any commit since base. */
static uint32_t
last_commit_color(struct srv *s, int base)
{
   pthread_mutex_lock(&s->mutex);
   uint32_t got = UINT32_MAX;
   if (s->commits > base) {
      const uint8_t *t = s->log[s->commits - 1].texel;
      got = (uint32_t)t[2] << 16 | t[1] << 8 | t[0];
   }
   pthread_mutex_unlock(&s->mutex);
   return got;
}

/* MAILBOX with the frame callbacks kept unanswered: the application is
 * never held back, queued presents are replaced, the newest is shown. */
static void
mailbox_case(struct ctx *c, struct srv *s)
{
   pthread_mutex_lock(&s->mutex);
   s->keep_frames = true;
   pthread_mutex_unlock(&s->mutex);
   VkSwapchainKHR chain =
      chain_create(c, VK_FORMAT_B8G8R8A8_UNORM, VK_PRESENT_MODE_MAILBOX_KHR, 3);
   const int base = srv_commits(s);
   enum { FRAMES = 12 };
   uint32_t last = 0, index;
   uint64_t acquiring = 0, longest = 0;
   const uint64_t t0 = wsi_now_ns();
   for (int k = 0; k < FRAMES; k++) {
      /* A frame every 20 ms: the engine's refreshes come in between. */
      usleep(20000);
      last = 0x102030 + 0x010101 * (uint32_t)k;
      const uint64_t ta = wsi_now_ns();
      VkResult r = vkAcquireNextImageKHR(c->t.device, chain, 2000000000ull, c->acquired[0],
                                         VK_NULL_HANDLE, &index);
      const uint64_t waited = wsi_now_ns() - ta;
      acquiring += waited;
      longest = waited > longest ? waited : longest;
      CHECK_VK(r);
      if (r != VK_SUCCESS)
         break;
      CHECK_VK(present(c, chain, index, 0, last));
   }
   const uint64_t took = wsi_now_ns() - t0;
   CHECK_VK(vkQueueWaitIdle(c->t.queue));
   const int during = srv_commits(s) - base;
   CHECK(acquiring < 150000000ull,
         "%d MAILBOX acquires waited %.1f ms in all (longest %.1f ms), no frame callback answered",
         FRAMES, acquiring / 1e6, longest / 1e6);
   /* The first commit, then one a bounded wait (100 ms) for its callback. */
   CHECK(during <= 2 + (int)(took / 100000000ull),
         "%d commits for %d MAILBOX presents in %.1f ms, the callbacks unanswered", during,
         FRAMES, took / 1e6);
   fprintf(stderr,
           "MAILBOX, frame callbacks kept: %d frames in %.1f ms, acquires %.1f ms (longest %.1f),"
           " %d commits\n",
           FRAMES, took / 1e6, acquiring / 1e6, longest / 1e6, during);

   /* The callbacks come: the newest present is (or already was, after
    * the present thread's bounded wait) the last commit. */
   pthread_mutex_lock(&s->mutex);
   s->keep_frames = false;
   s->send_frames = true;
   pthread_mutex_unlock(&s->mutex);
   uint32_t got = UINT32_MAX;
   for (int i = 0; i < 1000 && (got = last_commit_color(s, base)) != last; i++)
      usleep(1000);
   CHECK(got == last, "MAILBOX: last commit %06x, last frame %06x", got, last);
   vkDestroySwapchainKHR(c->t.device, chain, NULL);
}

static void
run_server(struct ctx *c, bool xbgr)
{
   struct srv s;
   struct wl_display *d = srv_start(&s, xbgr);
   if (!d) {
      if (s.display)
         srv_stop(&s);
      return;
   }
   struct client cl;
   if (client_init(&cl, d) && surface_create(c, &cl)) {
      /* In the images where XBGR8888 is offered, Shale's copy where not. */
      release_case(c, &s, xbgr ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_R8G8B8A8_UNORM);
      if (xbgr)
         mailbox_case(c, &s);
      format_case(c, &s, VK_FORMAT_B8G8R8A8_UNORM, xbgr);
      format_case(c, &s, VK_FORMAT_R8G8B8A8_UNORM, xbgr);
      vkDestroySurfaceKHR(c->t.instance, c->surface, NULL);
   }
   client_finish(&cl);
   CHECK(!s.untracked, "more than %d live wl_buffers", MAX_BUFFERS);
   srv_stop(&s);
}

int
main(void)
{
   const char *wl_ext = VK_KHR_WAYLAND_SURFACE_EXTENSION_NAME;
   struct ctx c = { 0 };
   if (!wsi_vkt_init(&c.t, &wl_ext, 1)) {
      return check_finish();
   }
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   wsi_semaphores_create(&c.t, c.acquired, 8);
   wsi_semaphores_create(&c.t, c.rendered, 8);
   CHECK_VK(vkCreateFence(c.t.device, &fci, NULL, &c.done));

   run_server(&c, true);
   run_server(&c, false);

   wsi_semaphores_destroy(&c.t, c.acquired, 8);
   wsi_semaphores_destroy(&c.t, c.rendered, 8);
   vkDestroyFence(c.t.device, c.done, NULL);
   vkt_finish(&c.t);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
