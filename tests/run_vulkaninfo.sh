#!/usr/bin/env bash
# vulkaninfo (vulkan-tools) must run to completion on Shale alone and name it.
set -euo pipefail
out=$(vulkaninfo 2>&1) || { echo "$out" | tail -20; echo "vulkaninfo failed"; exit 1; }
echo "$out" | grep -q "deviceName *= Shale" || { echo "$out" | head -40; echo "Shale not listed"; exit 1; }
echo "vulkaninfo ok ($(echo "$out" | wc -l) lines)"
