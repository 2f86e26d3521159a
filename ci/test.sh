#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs every test
# (unit, api, android) in the normal build and again under ASan/UBSan, runs
# the libFuzzer targets for about 3 minutes (ci/fuzz.sh; SHALE_SKIP_FUZZ=1
# skips them), runs the api and android suites under ThreadSanitizer
# (ci/tsan.sh; SHALE_SKIP_TSAN=1 skips it), and ends with "N passed, N
# failed, N skipped". Exit status is non-zero on any failure.
# ThreadSanitizer runs only those two suites, where the driver's threads
# meet the application's (queue, workers, optimizer, watchdog, sync fds,
# exit), and builds only their programs; every test of them runs, at its
# normal size except api/alloc_fail, which under TSan tests one
# allocation-failure point in 32 past each sweep's first and last 64
# (ci/tsan.sh says why); the unit and render suites run in the normal and
# ASan builds only. Its cost, 2026-11-26 on this 2-core machine shared with
# other builds (load average 12 to 14): 13 minutes from an empty build-tsan
# (build and tests; the tests alone 5.7), 4.3 minutes of CPU time, so an
# estimated (not measured) 3 to 5 minutes on an idle one; api/types (2.5
# min there), api/alloc_fail (2 min) and api/transfer (1.5 min) are the
# longest tests.
set -uo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh || exit 1
BUILD_DIR=build bash ci/build.sh || exit 1
logs=()
meson test -C build --print-errorlogs --num-processes 2
logs+=(build/meson-logs/testlog.json)
if [ "${SHALE_SKIP_SANITIZERS:-0}" != 1 ] && [ -x ci/sanitize.sh ]; then
  bash ci/sanitize.sh
  logs+=(build-asan/meson-logs/testlog.json)
fi
if [ "${SHALE_SKIP_TSAN:-0}" != 1 ]; then
  bash ci/tsan.sh
  logs+=(build-tsan/meson-logs/testlog.json)
fi
if [ "${SHALE_SKIP_FUZZ:-0}" != 1 ]; then
  bash ci/fuzz.sh
  logs+=(build-fuzz/meson-logs/testlog.json)
fi
python3 ci/summary.py "${logs[@]}"
