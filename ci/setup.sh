#!/usr/bin/env bash
# Installs what Shale needs to build and test on Debian 12, from Debian's
# packages only. Safe to run again. Needs root (or sudo).
set -euo pipefail
PKGS=(
  meson ninja-build pkg-config gcc g++ clang python3
  libvulkan-dev libvulkan1 vulkan-tools vulkan-validationlayers   # headers + registry, loader, vulkaninfo, layer
  spirv-headers spirv-tools glslang-tools                          # SPIR-V (compiler issue, test shaders)
  llvm-15-dev                                                       # the JIT (same LLVM as Debian's Mesa)
  mesa-vulkan-drivers                                               # lavapipe, the reference driver
  binutils                                                          # nm, for the export test
  libxcb1-dev xvfb                                                  # X11 presentation: xcb headers (X is dlopen-ed at run time), Xvfb for render/wsi_x11
  gfxreconstruct                                                    # capture layer + gfxrecon-replay, for render/gfxr
  mesa-utils libgl1-mesa-dri glmark2-es2-x11                        # glxinfo, zink, glmark2-es2: render/zink (OpenGL through zink)
  libwayland-dev wayland-protocols weston                           # Wayland presentation: headers (libwayland-client is dlopen-ed at run time), xdg-shell for the test, weston headless for render/wsi_wayland
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
