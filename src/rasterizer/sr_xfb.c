/* Transform feedback capture: the primitives of one shaded window of an
 * instance, in primitive order, appended to the draw's buffers on the
 * calling thread (sr_raster.h, "Transform feedback"). */
#include <string.h>

#include "sr_front.h"

/* Appends one primitive (positions pos[0..n-1] of the window), or nothing
 * when it does not fit in every buffer it writes. */
static void
capture_prim(struct sr_vdraw *vd, const uint32_t *pos, uint32_t n)
{
   struct sr_xfb *x = vd->xfb;
   const struct shale_vs_info *io = &vd->st->vs_io;
   x->primitives_needed++;
   for (uint32_t m = vd->xfb_used; m; m &= m - 1) {
      uint32_t b = (uint32_t)__builtin_ctz(m);
      if (x->offset[b] + (uint64_t)n * io->xfb_stride[b] > x->size[b])
         return;
   }
   for (uint32_t v = 0; v < n; v++) {
      uint32_t rec = vd->pos_rec ? vd->pos_rec[pos[v]] : pos[v];
      const float *r = vd->verts + (size_t)rec * vd->stride + vd->xfb_off;
      for (uint32_t k = 0; k < vd->xfb_count; k++) {
         const struct shale_xfb_component *c = &io->xfb[k];
         if (!(vd->xfb_used >> c->buffer & 1))
            continue;
         uint8_t *dst = x->base[c->buffer] + x->offset[c->buffer] +
                        (uint64_t)v * io->xfb_stride[c->buffer] + c->offset;
         memcpy(dst, &r[k], 4);
      }
   }
   for (uint32_t m = vd->xfb_used; m; m &= m - 1) {
      uint32_t b = (uint32_t)__builtin_ctz(m);
      x->offset[b] += (uint64_t)n * io->xfb_stride[b];
   }
   x->primitives_written++;
}

/* The primitives of `len` positions from `first` without restarts, each
 * as a separate list primitive: every triangle keeps the strip's or fan's
 * winding and is rotated so that its provoking vertex is written first
 * (FIRST) or last (LAST): strip triangle i is i, i + 1, i + 2 when i is
 * even, else i, i + 2, i + 1 (FIRST) or i + 1, i, i + 2 (LAST); fan
 * triangle i is i + 1, i + 2, 0 (FIRST) or 0, i + 1, i + 2 (LAST). */
static void
capture_run(struct sr_vdraw *vd, uint32_t first, uint32_t len)
{
   const bool last = vd->st->provoking_last;
   uint32_t p[3];
   switch (vd->st->topology) {
   case VK_PRIMITIVE_TOPOLOGY_POINT_LIST:
      for (uint32_t i = 0; i < len; i++) {
         p[0] = first + i;
         capture_prim(vd, p, 1);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_LINE_LIST:
      for (uint32_t i = 0; i + 1 < len; i += 2) {
         p[0] = first + i, p[1] = first + i + 1;
         capture_prim(vd, p, 2);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_LINE_STRIP:
      for (uint32_t i = 0; i + 1 < len; i++) {
         p[0] = first + i, p[1] = first + i + 1;
         capture_prim(vd, p, 2);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST:
      for (uint32_t i = 0; i + 2 < len; i += 3) {
         p[0] = first + i, p[1] = first + i + 1, p[2] = first + i + 2;
         capture_prim(vd, p, 3);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP:
      for (uint32_t i = 0; i + 2 < len; i++) {
         if (!(i & 1))
            p[0] = first + i, p[1] = first + i + 1, p[2] = first + i + 2;
         else if (!last)
            p[0] = first + i, p[1] = first + i + 2, p[2] = first + i + 1;
         else
            p[0] = first + i + 1, p[1] = first + i, p[2] = first + i + 2;
         capture_prim(vd, p, 3);
      }
      break;
   case VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN:
      for (uint32_t i = 0; i + 2 < len; i++) {
         if (!last)
            p[0] = first + i + 1, p[1] = first + i + 2, p[2] = first;
         else
            p[0] = first, p[1] = first + i + 1, p[2] = first + i + 2;
         capture_prim(vd, p, 3);
      }
      break;
   default:
      break;   /* adjacency and patches: no geometry or tessellation stages */
   }
}

void
sr_xfb_capture(struct sr_vdraw *vd)
{
   uint32_t first = 0;
   while (first < vd->count) {
      uint32_t end = first;
      while (end < vd->count && !(vd->restart && vd->restart[end]))
         end++;
      capture_run(vd, first, end - first);
      first = end + 1;
   }
}
