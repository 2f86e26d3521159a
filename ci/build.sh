#!/usr/bin/env bash
# Configures (once) and builds Shale in BUILD_DIR (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  meson setup "$BUILD_DIR" "$@"
fi
ninja -C "$BUILD_DIR"
