#!/usr/bin/env bash
# Optional set-up of the whole-model peer benchmark (bench/models): PyTorch, torchvision, onnx,
# numpy and OpenBLAS from Debian (to export the models and run the PyTorch side), and
# onnxruntime-node from npm
# into <build dir>/bench-peers (the ONNX Runtime side; its CPU binaries ship inside the package,
# so --ignore-scripts skips the install script, which would try to download more).
# Nothing in the test suite needs any of this. Idempotent: skips what is present.
# Usage (as root): bench/models/setup.sh [BUILD_DIR]      (default: build, or $BUILD_DIR)
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-${BUILD_DIR:-build}}
ORT_VERSION=1.30.0

# libopenblas0-openmp: Debian's PyTorch calls whatever libblas.so.3 the system provides for its
# dense layers and matmuls; without OpenBLAS that is the unoptimized reference BLAS (about 2
# GFLOP/s), which would make PyTorch's transformer figures meaningless. The OpenMP build shares
# PyTorch's OpenMP runtime and thread count. ttune does not use BLAS.
# binutils: objdump, for the AVX2-restricted copy of ONNX Runtime (ort_avx2.py).
PACKAGES=(python3-torch python3-torchvision python3-onnx python3-numpy libopenblas0-openmp nodejs npm binutils)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node and npm may come from elsewhere than Debian; only install them when absent.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}")
  missing=("${missing[@]/npm}")
fi
read -r -a missing <<< "${missing[*]}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench/models/setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "bench/models/setup: Debian packages present"
fi

PEERS="$BUILD_DIR/bench-peers"
installed=$(node -p "try { require('./$PEERS/node_modules/onnxruntime-node/package.json').version } catch (e) { '' }" 2>/dev/null || true)
if [ "$installed" = "$ORT_VERSION" ]; then
  echo "bench/models/setup: onnxruntime-node $ORT_VERSION present in $PEERS"
else
  echo "bench/models/setup: installing onnxruntime-node@$ORT_VERSION into $PEERS"
  mkdir -p "$PEERS"
  [ -f "$PEERS/package.json" ] || echo '{"name": "ttune-bench-peers", "private": true}' > "$PEERS/package.json"
  (cd "$PEERS" && npm install --ignore-scripts --no-audit --no-fund "onnxruntime-node@$ORT_VERSION")
fi

# On x86-64: a copy of the package whose ONNX Runtime runs its AVX2 kernels (bench_models.py
# --peer-isa avx2); a hard-linked copy but for one patched library.
if [ "$(uname -m)" = "x86_64" ]; then
  /usr/bin/python3 bench/models/ort_avx2.py "$PEERS" "$BUILD_DIR/bench-peers-avx2"
fi
