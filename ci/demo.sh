#!/usr/bin/env bash
# The main job: installs what is needed, builds Shale, and runs the demo
# through the Khronos loader on Shale (a lit, textured, depth-tested torus
# with 4x MSAA); the picture lands in shale-demo.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
BUILD_DIR=build bash ci/build.sh
export VK_DRIVER_FILES="$PWD/build/src/hal/shale_icd.$(uname -m).json"
build/demo/shale_demo "${1:-shale-demo.png}"
