#!/usr/bin/env python3
# Writes a SPIR-V binary as a C header: const uint32_t <name>[] = { ... };
import struct
import sys


def main():
    src, name, out = sys.argv[1:4]
    with open(src, 'rb') as f:
        data = f.read()
    if len(data) % 4:
        sys.exit('%s: not a whole number of words' % src)
    words = struct.unpack('<%dI' % (len(data) // 4), data)
    lines = ['/* Generated from %s by embed_spv.py: do not edit. */' % src.split('/')[-1],
             '#pragma once', '#include <stdint.h>',
             'static const uint32_t %s[] = {' % name]
    for i in range(0, len(words), 8):
        lines.append('   ' + ', '.join('0x%08x' % w for w in words[i:i + 8]) + ',')
    lines.append('};')
    with open(out, 'w') as f:
        f.write('\n'.join(lines) + '\n')


if __name__ == '__main__':
    main()
