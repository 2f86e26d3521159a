#!/usr/bin/env python3
# Counts meson test results (one or more testlog.json files) and prints
# "N passed, N failed, N skipped"; exits 1 when anything failed.
import json
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)['result']
            if r == 'OK':
                passed += 1
            elif r == 'SKIP':
                skipped += 1
            else:
                failed += 1
                print('failed: %s (%s)' % (json.loads(line)['name'], r))
print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
sys.exit(1 if failed or passed == 0 else 0)
