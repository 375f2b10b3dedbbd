#!/usr/bin/env bash
# Configures (Release, assertions on, Ninja, ccache when present) and builds ttune into ./build.
# Extra arguments are passed to CMake, e.g. scripts/build.sh -DTTUNE_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > "$BUILD_DIR.configure.log" 2>&1 || {
  cat "$BUILD_DIR.configure.log"; exit 1; }
ninja -C "$BUILD_DIR" -j "$JOBS"
