#!/usr/bin/env bash
# Installs every build and test dependency of ttune from Debian packages, skipping what is present.
# Usage: scripts/setup.sh            (as root, or with sudo available)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  llvm-19-dev libclang-rt-19-dev zlib1g-dev libzstd-dev libedit-dev libxml2-dev libffi-dev
  libxgboost-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  libsqlite3-dev sqlite3
  # the PostgreSQL bank (libpq) and the throw-away test server (scripts/pg_server.sh)
  postgresql libpq-dev
  nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the style check (scripts/check_style.sh, CI's Style.FormatAndSize)
  clang-format
  libdnnl-dev
  tmux
  # the AArch64 target: cross compiler and libc for exports and the emulated worker, QEMU to run them
  g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  pybind11-dev python3-dev python3-numpy python3-pytest python3-onnx
  # `pip install .` and wheels (pyproject.toml), offline: setuptools and wheel, and their wheels for
  # pip's isolated build environment (/usr/share/python-wheels)
  python3-setuptools python3-wheel python3-build python3-venv python3-pip python3-setuptools-whl python3-wheel-whl
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# ttune runs its own PostgreSQL clusters (scripts/pg_server.sh, docs/fleet.md): the package's
# service need not start, and in a container without an init system starting it can fail the
# install. A policy-rc.d that denies service starts (the Debian mechanism) holds during the
# install, unless the machine already has one.
if [[ " ${missing[*]} " == *" postgresql "* ]] && [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\n# ttune scripts/setup.sh: no service starts during its install\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
