/* PNG writer: IHDR, one IDAT of stored (uncompressed) deflate blocks, IEND. */
#include "png_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t
crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
   static uint32_t table[256];
   if (!table[1]) {
      for (uint32_t i = 0; i < 256; i++) {
         uint32_t c = i;
         for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
         table[i] = c;
      }
   }
   crc = ~crc;
   for (size_t i = 0; i < n; i++)
      crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
   return ~crc;
}

static void
put32(uint8_t *p, uint32_t v)
{
   p[0] = v >> 24;
   p[1] = v >> 16;
   p[2] = v >> 8;
   p[3] = v;
}

static bool
write_chunk(FILE *f, const char *type, const uint8_t *data, uint32_t len)
{
   uint8_t hdr[8];
   put32(hdr, len);
   memcpy(hdr + 4, type, 4);
   uint32_t crc = crc32_update(0, hdr + 4, 4);
   crc = crc32_update(crc, data, len);
   uint8_t tail[4];
   put32(tail, crc);
   return fwrite(hdr, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) &&
          fwrite(tail, 1, 4, f) == 4;
}

bool
png_write_rgba8(const char *path, uint32_t width, uint32_t height, const uint8_t *pixels,
                uint32_t stride)
{
   size_t row = (size_t)width * 4 + 1;        /* filter byte + pixels */
   size_t raw_len = row * height;
   size_t blocks = (raw_len + 65534) / 65535;
   size_t z_len = 2 + raw_len + blocks * 5 + 4;
   uint8_t *raw = malloc(raw_len);
   uint8_t *z = malloc(z_len);
   if (!raw || !z) {
      free(raw);
      free(z);
      return false;
   }
   for (uint32_t y = 0; y < height; y++) {
      raw[y * row] = 0;
      memcpy(raw + y * row + 1, pixels + (size_t)y * stride, (size_t)width * 4);
   }
   /* zlib stream: header, stored blocks, Adler-32 of the raw data. */
   size_t o = 0;
   z[o++] = 0x78;
   z[o++] = 0x01;
   uint32_t a = 1, b = 0;
   for (size_t i = 0; i < raw_len; i++) {
      a = (a + raw[i]) % 65521;
      b = (b + a) % 65521;
   }
   for (size_t off = 0; off < raw_len || off == 0; off += 65535) {
      size_t n = raw_len - off < 65535 ? raw_len - off : 65535;
      z[o++] = off + n >= raw_len ? 1 : 0;
      z[o++] = n & 0xff;
      z[o++] = n >> 8;
      z[o++] = ~n & 0xff;
      z[o++] = (~n >> 8) & 0xff;
      memcpy(z + o, raw + off, n);
      o += n;
      if (raw_len == 0)
         break;
   }
   put32(z + o, (b << 16) | a);
   o += 4;

   uint8_t ihdr[13];
   put32(ihdr, width);
   put32(ihdr + 4, height);
   ihdr[8] = 8;   /* bit depth */
   ihdr[9] = 6;   /* RGBA */
   ihdr[10] = ihdr[11] = ihdr[12] = 0;
   static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
   FILE *f = fopen(path, "wb");
   bool ok = f && fwrite(sig, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) &&
             write_chunk(f, "IDAT", z, (uint32_t)o) && write_chunk(f, "IEND", NULL, 0);
   if (f)
      ok &= fclose(f) == 0;
   free(raw);
   free(z);
   return ok;
}
