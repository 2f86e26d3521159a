#!/usr/bin/env python3
# Writes a libFuzzer seed corpus directory from the test suite's shaders:
# make_corpus.py OUTDIR STAMP INPUT... where each INPUT is a SPIR-V binary
# (.spv) or a C header of one (<name>_spv.h, from glslangValidator --vn or
# embed_spv.py). Each module becomes OUTDIR/<name>.spv; STAMP is touched.
import os
import re
import struct
import sys


def words_of_header(path):
    with open(path) as f:
        text = f.read()
    body = text[text.index('{') + 1:text.rindex('}')]
    return [int(w, 16) for w in re.findall(r'0x[0-9a-fA-F]+', body)]


def main():
    out, stamp = sys.argv[1:3]
    os.makedirs(out, exist_ok=True)
    for path in sys.argv[3:]:
        base = os.path.basename(path)
        if base.endswith('_spv.h'):
            words = words_of_header(path)
            data = struct.pack('<%dI' % len(words), *words)
            name = base[:-len('_spv.h')]
        else:
            with open(path, 'rb') as f:
                data = f.read()
            name = os.path.splitext(base)[0]
        if len(data) < 20 or struct.unpack('<I', data[:4])[0] != 0x07230203:
            sys.exit('%s: not SPIR-V' % path)
        with open(os.path.join(out, name + '.spv'), 'wb') as f:
            f.write(data)
    with open(stamp, 'w') as f:
        f.write('%d\n' % (len(sys.argv) - 3))


if __name__ == '__main__':
    main()
