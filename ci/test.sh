#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs every test
# (unit, api, android) in the normal build and again under ASan/UBSan, runs
# the libFuzzer targets for about 3 minutes (ci/fuzz.sh; SHALE_SKIP_FUZZ=1
# skips them), with SHALE_TSAN=1 also the api and android suites under
# ThreadSanitizer (ci/tsan.sh; off by default: it adds about 17 minutes), and
# ends with "N passed, N failed, N skipped". Exit status is non-zero on any
# failure.
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
if [ "${SHALE_TSAN:-0}" = 1 ]; then
  bash ci/tsan.sh
  logs+=(build-tsan/meson-logs/testlog.json)
fi
if [ "${SHALE_SKIP_FUZZ:-0}" != 1 ]; then
  bash ci/fuzz.sh
  logs+=(build-fuzz/meson-logs/testlog.json)
fi
python3 ci/summary.py "${logs[@]}"
