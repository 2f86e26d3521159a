#!/usr/bin/env python3
"""Checks that the desktop ICD and the Android HAL module export exactly their
interface symbols and nothing else (nm -D --defined-only)."""

import argparse
import os
import subprocess
import sys

EXPECTED = {
    'icd': {
        'vk_icdNegotiateLoaderICDInterfaceVersion',
        'vk_icdGetInstanceProcAddr',
        'vk_icdGetPhysicalDeviceProcAddr',
    },
    'hal': {'HMI'},
}


def exported_symbols(path, nm):
    """Returns the set of defined dynamic symbols of `path`, version suffixes
    (name@VERSION / name@@VERSION) removed."""
    out = subprocess.run([nm, '-D', '--defined-only', path], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    symbols = set()
    for line in out.splitlines():
        fields = line.split()
        if not fields:
            continue
        # "ADDRESS TYPE NAME"; an address can be missing for some types.
        name = fields[-1]
        symbols.add(name.split('@', 1)[0])
    return symbols


def check(kind, path, nm):
    try:
        got = exported_symbols(path, nm)
    except (OSError, subprocess.CalledProcessError) as err:
        print('%s %s: cannot read symbols: %s' % (kind, path, err))
        return False
    want = EXPECTED[kind]
    extra = sorted(got - want)
    missing = sorted(want - got)
    for name in extra:
        print('%s %s: unexpected export %s' % (kind, path, name))
    for name in missing:
        print('%s %s: missing export %s' % (kind, path, name))
    if not extra and not missing:
        print('%s %s: exports exactly %s' % (kind, path, ', '.join(sorted(want))))
    return not extra and not missing


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--icd', metavar='PATH', help='the desktop ICD (libvulkan_shale.so)')
    parser.add_argument('--hal', metavar='PATH', help='the Android HAL module (vulkan.shale.so)')
    parser.add_argument('--nm', default=os.environ.get('NM', 'nm'),
                        help='nm to run (default: $NM or nm)')
    args = parser.parse_args()
    if not args.icd and not args.hal:
        parser.error('give --icd and/or --hal')

    ok = True
    if args.icd:
        ok = check('icd', args.icd, args.nm) and ok
    if args.hal:
        ok = check('hal', args.hal, args.nm) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
