#!/usr/bin/env python3
# Seeds of fuzz_gralloc (its input layout: tests/fuzz/fuzz_gralloc.c):
# make_gralloc_seeds.py OUTDIR STAMP. Valid host native handles and
# AHardwareBuffer descriptions of each format the host backend takes.
import os
import struct
import sys

MAGIC = 0x53484752
RW = 0x33           # CPU_READ_OFTEN | CPU_WRITE_OFTEN
NV21 = 1 << 28
I420 = 1 << 29


def handle(width, height, stride, fmt, bpp, usage, lock, extra=0):
    size = stride * bpp * height + extra
    ints = [MAGIC, width, height, stride, fmt, usage & 0xffffffff, usage >> 32]
    data = struct.pack('<BBIB', 0, 4 | 8, size, len(ints))
    data += struct.pack('<7I', *ints)
    data += struct.pack('<IIIIIII', width, height, fmt, stride, usage & 0xffffffff, usage >> 32, lock)
    return data


def ahb(width, height, layers, fmt, usage):
    return struct.pack('<BIIBIII', 1, width, height, layers, fmt, usage & 0xffffffff, usage >> 32)


def main():
    out, stamp = sys.argv[1:3]
    os.makedirs(out, exist_ok=True)
    seeds = {
        'rgba8888': handle(64, 32, 64, 0x1, 4, RW, RW),
        'rgbx8888_read': handle(20, 7, 32, 0x2, 4, 0x3, 0x3),
        'rgb565': handle(17, 5, 32, 0x4, 2, RW, 0x30),
        'bgra8888': handle(1, 1, 16, 0x5, 4, RW, RW),
        'fp16': handle(9, 9, 16, 0x16, 8, RW, RW),
        'rgba1010102': handle(30, 3, 32, 0x2B, 4, RW, RW, 100),
        'ahb_rgba8': ahb(64, 64, 1, 0x01, RW),
        'ahb_rgb8': ahb(33, 7, 1, 0x03, RW),
        'ahb_fp16': ahb(5, 3, 1, 0x16, 0x3),
        'ahb_blob': ahb(1000, 1, 1, 0x21, RW),
        'ahb_nv12': ahb(33, 17, 1, 0x23, RW),
        'ahb_nv21': ahb(32, 18, 1, 0x23, RW | NV21),
        'ahb_i420': ahb(31, 15, 1, 0x23, RW | I420),
        'ahb_layers': ahb(16, 16, 2, 0x01, RW),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name + '.bin'), 'wb') as f:
            f.write(data)
    with open(stamp, 'w') as f:
        f.write('%d\n' % len(seeds))


if __name__ == '__main__':
    main()
