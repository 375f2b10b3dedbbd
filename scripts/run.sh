#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job on the built-in default.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec "${BUILD_DIR:-build}"/bin/ttune op conv2d N=1 C=64 H=56 W=56 K=64 R=3 S=3 stride=1 pad=1 --check --bench "$@"
