/* Binning: appending tile commands in API order. */
#include "sr_front.h"

static VkResult
bin_append(struct sr_arena *arena, struct sr_bin *bin, struct sr_cmd cmd)
{
   struct sr_bin_chunk *c = bin->last;
   if (!c || c->count == SR_BIN_CHUNK) {
      c = sr_arena_alloc(arena, sizeof(*c));
      if (!c)
         return VK_ERROR_OUT_OF_HOST_MEMORY;
      c->next = NULL;
      c->count = 0;
      if (bin->last)
         bin->last->next = c;
      else
         bin->first = c;
      bin->last = c;
   }
   c->cmds[c->count++] = cmd;
   bin->count++;
   if (cmd.kind == SR_CMD_PRIM)
      bin->prims_end = bin->count;
   return VK_SUCCESS;
}

VkResult
sr_bin_box(struct sr_scene *scene, uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
           struct sr_cmd cmd)
{
   if (layer >= scene->layer_count || x1 < x0 || y1 < y0 || x1 < 0 || y1 < 0)
      return VK_SUCCESS;
   int32_t tx0 = x0 < 0 ? 0 : x0 / SR_TILE_SIZE, ty0 = y0 < 0 ? 0 : y0 / SR_TILE_SIZE;
   int32_t tx1 = x1 / SR_TILE_SIZE, ty1 = y1 / SR_TILE_SIZE;
   if (tx1 >= (int32_t)scene->tiles_x)
      tx1 = (int32_t)scene->tiles_x - 1;
   if (ty1 >= (int32_t)scene->tiles_y)
      ty1 = (int32_t)scene->tiles_y - 1;
   struct sr_bin *bins = scene->bins + (size_t)layer * scene->tiles_x * scene->tiles_y;
   for (int32_t ty = ty0; ty <= ty1; ty++) {
      for (int32_t tx = tx0; tx <= tx1; tx++) {
         VkResult r = bin_append(&scene->arena, &bins[(size_t)ty * scene->tiles_x + tx], cmd);
         if (r != VK_SUCCESS)
            return r;
         scene->dirty = true;
      }
   }
   return VK_SUCCESS;
}

VkResult
sr_bin_row(struct sr_scene *scene, struct sr_arena *arena, uint32_t layer, uint32_t ty, int32_t x0,
           int32_t x1, struct sr_cmd cmd)
{
   if (layer >= scene->layer_count || ty >= scene->tiles_y || x1 < x0 || x1 < 0)
      return VK_SUCCESS;
   int32_t tx0 = x0 < 0 ? 0 : x0 / SR_TILE_SIZE, tx1 = x1 / SR_TILE_SIZE;
   if (tx1 >= (int32_t)scene->tiles_x)
      tx1 = (int32_t)scene->tiles_x - 1;
   struct sr_bin *row = scene->bins + ((size_t)layer * scene->tiles_y + ty) * scene->tiles_x;
   for (int32_t tx = tx0; tx <= tx1; tx++) {
      VkResult r = bin_append(arena, &row[tx], cmd);
      if (r != VK_SUCCESS)
         return r;
   }
   return VK_SUCCESS;
}
