#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Configures (once) and builds warder in a build directory.
# Usage: scripts/build.sh [BUILDDIR] [meson setup options...]
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${1:-build}
shift || true
scripts/setup.sh
if [ ! -f "$builddir/build.ninja" ]; then
  meson setup "$builddir" "$@" >/dev/null
elif [ $# -gt 0 ]; then
  meson configure "$builddir" "$@" >/dev/null
fi
ninja -C "$builddir" >"$builddir/ninja.log" 2>&1 || { tail -n 40 "$builddir/ninja.log" >&2; exit 1; }
